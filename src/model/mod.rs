//! Characters as articulated rigid body systems (ARBS).
//!
//! Holds the characters of Agrawal et al. 2014 (§5) and of Keys-to-Sim (Borer et al. 2018, §4):
//! bodies (capsule, box, ellipsoid; mass; inertia derived from the shape or given; frame), a tree
//! of joints (hinge, universal, ball, fixed, and a planar or free root) with limits, PD gains and a
//! torque limit per joint, end effectors tagged hand/foot/head, left/right pairs, and generic part
//! names so that one task can drive several characters.
//!
//! Conventions: y is up, metres, kilograms, seconds. The file describes the character in its
//! *reference pose*: every body's centre of mass and orientation, and every joint's anchor and
//! axes, are given in the world frame with all joint coordinates at zero. Angles in files are in
//! degrees; everything in memory is radians. Planar characters move in the x–y plane (x forward),
//! their hinges turning about z.

mod inertia;
mod load;
pub mod numbers;
pub mod planar;
pub mod rotation;
pub mod shape;
pub mod skin;
mod validate;

pub use inertia::principal_inertia;
pub use load::{
    ModelError, character_text, load_character, parse_character, parse_validated, read_text,
    save_character,
};
pub use rotation::{euler_xyz_deg_to_quat, quat_mul, rotate};
use validate::validate;
pub use validate::{
    MAX_BODY_MASS, MAX_COORDINATE, MAX_GAIN, MAX_INERTIA, MAX_SIZE, MAX_TORQUE, Problem,
};

use num_traits::Float;
use serde::{Deserialize, Serialize};

/// A character: the bodies, the joints that connect them into a tree, and annotations.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct Character {
    pub name: String,
    /// Human-readable description (source, proportions).
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub description: String,
    pub root: Root,
    pub bodies: Vec<Body>,
    #[serde(default)]
    pub joints: Vec<Joint>,
    #[serde(default)]
    pub end_effectors: Vec<EndEffector>,
    /// Left/right pairs of body names, for symmetric control and shape groups.
    #[serde(default)]
    pub mirror_pairs: Vec<(String, String)>,
    /// Pairs of body end points the gait solver keeps apart (Wampler 2012, thesis Eq. 3.6: feet
    /// and knees). A body's end point is its foot's point if it has one, else its far end: the
    /// point twice as far from its joint as its centre of mass.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub separations: Vec<Separation>,
    /// Bodies besides the feet that may bear weight on the ground without the character counting
    /// as fallen: a digitigrade leg's metatarsus, which a theropod (like a bird) sets down in a
    /// deep crouch the way a human sets down a heel. Any other body touching the ground is a fall.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub weight_bearing: Vec<String>,
    /// Settings the spacetime gait solver needs for this character (defaults of `gait`).
    #[serde(default, skip_serializing_if = "GaitHints::is_default")]
    pub gait: GaitHints,
}

/// Two bodies whose end points must stay at least `min_distance` metres apart (Eq. 3.6).
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct Separation {
    pub a: String,
    pub b: String,
    pub min_distance: f64,
}

/// Gait-solver settings a character file may give for itself: the defaults of `motionlab gait`'s
/// `--lbfgs-iterations`, `--sample-iterations`, `--torques`, `--starts`, `--barrier` and
/// `--springs` (and the Gait panel's fields) for this character. An explicit flag wins. The horse
/// needs them: its exact-Hessian stage fails in IPOPT's restoration phase from 300 L-BFGS
/// iterations and converges from 1,500 (docs/gaits.md, Limits: "The horse needs a long L-BFGS
/// stage"). The simple biped's walk is
/// solved best with its torques as variables from two starts (docs/gaits.md, "Torques as
/// variables"), the monoped's hop is not solved that way at all.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct GaitHints {
    /// L-BFGS iterations before the exact Hessian takes over.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub lbfgs_iterations: Option<usize>,
    /// IPOPT iteration limit of each discovery sample's projection.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sample_iterations: Option<usize>,
    /// How a solve from the rest pose holds the joint torques (not a discovery's, a
    /// morphology's or one from a clip).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub torques: Option<Torques>,
    /// Starts of a solve from the rest pose ([1, 256]).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub starts: Option<usize>,
    /// The barrier strategy of a solve's first start from the rest pose (a pair's second start
    /// takes the other).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub barrier: Option<Barrier>,
    /// The passive springs a solve from the rest pose starts with, its torques as variables.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub springs: Option<StartSprings>,
    /// Solve a treadmill cycle from the rest pose as half a mirror-symmetric cycle (its other
    /// half the mirror image, the legs swapped): half the variables.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mirror_half: Option<bool>,
}

/// The passive elements (Wampler 2012, thesis §3.2, Eq. 3.13: a spring k_s, q̄ and a damper k_d
/// per joint coordinate, constant over the cycle) at the start of a gait solve from the rest
/// pose with its torques as variables. Measured on the horse's trot at 1 m/s, period 0.8, seeds
/// 0–9 (torques as variables, monotone barrier): slack, median 438 iterations and costs
/// 0.78–1.06; holding, median 283 iterations and costs 0.76–0.98. On the simple biped's walk
/// holding springs end above the 1.09 basin more often (3 seeds of 10 against 1), so slack stays
/// the default.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize, clap::ValueEnum)]
pub enum StartSprings {
    /// No springs and no dampers (k_s = 0, q̄ = the rest pose, k_d = 0): the joints carry the
    /// whole weight.
    #[default]
    Slack,
    /// Each coordinate's spring holds its mean torque over the cycle at the start's poses and
    /// loads, stretched a quarter radian from the rest pose; no dampers.
    Holding,
}

impl StartSprings {
    /// The springs a solve with `torques` starts from: the computed torques have no torque
    /// variables to size holding springs from, so they start slack.
    pub fn for_torques(self, torques: Torques) -> Self {
        match torques {
            Torques::Variables => self,
            Torques::Computed => StartSprings::Slack,
        }
    }

    /// Its name on the command line and in the Gait panel.
    pub fn name(self) -> &'static str {
        match self {
            StartSprings::Slack => "slack",
            StartSprings::Holding => "holding",
        }
    }
}

/// How an interior-point gait solve lowers its barrier parameter (IPOPT's `mu_strategy`). The
/// two strategies take different paths from the same point, and on the gait NLP they end in
/// different local optima about as often as different perturbations do: over ten seeds of the
/// simple biped's 0.7 m/s walk (torques as variables, exact Hessian), the adaptive barrier
/// reached the 1.09 basin or lower in 6, the monotone one in 5, and the better of the two from
/// the same perturbation in 9.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize, clap::ValueEnum)]
pub enum Barrier {
    /// IPOPT's adaptive (quality-function) update, the gait solves' default.
    #[default]
    Adaptive,
    /// Fiacco–McCormick: the barrier lowered once each barrier problem is solved.
    Monotone,
}

impl Barrier {
    /// IPOPT's name for it.
    pub fn name(self) -> &'static str {
        match self {
            Barrier::Adaptive => "adaptive",
            Barrier::Monotone => "monotone",
        }
    }

    /// The other strategy: a pair's second start.
    pub fn other(self) -> Self {
        match self {
            Barrier::Adaptive => Barrier::Monotone,
            Barrier::Monotone => Barrier::Adaptive,
        }
    }
}

/// How the gait solver's effort term (Wampler 2012, thesis §3.2, Eq. 3.14) holds the active
/// joint torques.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize, clap::ValueEnum)]
pub enum Torques {
    /// As the thesis writes it: computed inside each frame's effort term by inverse dynamics of
    /// the motion and the loads, so the objective is a nonlinear least-squares in the motion.
    #[default]
    Computed,
    /// Lifted: one variable per active coordinate and frame, defined by an equality row
    /// τ = t_a(q_{i−1}, q_i, q_{i+1}, springs, loads), with the objective Σ τ² (the same optimum;
    /// a convex objective, and the curvature moves into the rows' multipliers). Not with
    /// morphology, whose effort is not the torques' squares.
    Variables,
}

impl Torques {
    /// Its name on the command line (`--torques`) and in the Gait panel.
    pub fn name(self) -> &'static str {
        match self {
            Torques::Computed => "computed",
            Torques::Variables => "variables",
        }
    }
}

impl GaitHints {
    pub fn is_default(&self) -> bool {
        *self == GaitHints::default()
    }
}

/// How the root body is attached to the world.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct Root {
    pub body: String,
    pub kind: RootKind,
    /// The point (world, reference pose) whose position the root's translation coordinates
    /// give in the spacetime solver's poses; the root body's centre of mass when absent.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub origin: Option<[f64; 3]>,
}

#[derive(Clone, Copy, Debug, Serialize, Deserialize, PartialEq, Eq)]
pub enum RootKind {
    /// Six unactuated degrees of freedom (3D characters).
    Free,
    /// Translation in x and y and rotation about z: a fixed base with a planar joint (2D characters).
    Planar,
}

#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct Body {
    /// Generic part name (`pelvis`, `torso`, `head`, `l_thigh`, `r_foot`, …).
    pub name: String,
    pub shape: Shape,
    /// kg, > 0.
    pub mass: f64,
    /// Principal moments about the body axes (kg·m²). Derived from the shape when absent.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub inertia: Option<[f64; 3]>,
    /// World position of the centre of mass in the reference pose (m).
    pub position: [f64; 3],
    /// Orientation in the reference pose: rotations about x, then y, then z, in degrees.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub rotation: [f64; 3],
}

fn is_zero(v: &[f64; 3]) -> bool {
    v.iter().all(|x| *x == 0.0)
}

/// Collision and mass shape, in the body frame, centred on the centre of mass.
#[derive(Clone, Copy, Debug, Serialize, Deserialize, PartialEq)]
pub enum Shape<F = f64> {
    /// A capsule along `axis` whose cylinder is `2·half_length` long.
    Capsule {
        radius: F,
        half_length: F,
        #[serde(default)]
        axis: Axis,
    },
    Box {
        half_extents: [F; 3],
    },
    Ellipsoid {
        radii: [F; 3],
    },
    /// A solid cylinder along `axis`, `2·half_length` long (Wampler 2012, thesis §3.2).
    Cylinder {
        radius: F,
        half_length: F,
        #[serde(default)]
        axis: Axis,
    },
}

/// A shape in single precision, for the simulation and the viewport.
pub type ShapeF32 = Shape<f32>;

impl Shape {
    /// The sizes in single precision (Rapier and Bevy work in f32).
    pub fn as_f32(&self) -> ShapeF32 {
        let v = |v: [f64; 3]| v.map(|x| x as f32);
        match *self {
            Shape::Capsule {
                radius,
                half_length,
                axis,
            } => Shape::Capsule {
                radius: radius as f32,
                half_length: half_length as f32,
                axis,
            },
            Shape::Box { half_extents } => Shape::Box {
                half_extents: v(half_extents),
            },
            Shape::Ellipsoid { radii } => Shape::Ellipsoid { radii: v(radii) },
            Shape::Cylinder {
                radius,
                half_length,
                axis,
            } => Shape::Cylinder {
                radius: radius as f32,
                half_length: half_length as f32,
                axis,
            },
        }
    }
}

#[derive(Clone, Copy, Debug, Default, Serialize, Deserialize, PartialEq, Eq)]
pub enum Axis {
    X,
    #[default]
    Y,
    Z,
}

impl Axis {
    pub fn index(self) -> usize {
        match self {
            Axis::X => 0,
            Axis::Y => 1,
            Axis::Z => 2,
        }
    }
}

#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct Joint {
    pub name: String,
    pub parent: String,
    pub child: String,
    /// World position of the joint centre in the reference pose.
    pub anchor: [f64; 3],
    pub kind: JointKind,
    /// One `(min, max)` pair in degrees per degree of freedom, in the order of the axes.
    /// Empty means unlimited.
    #[serde(default)]
    pub limits: Vec<(f64, f64)>,
    /// Proportional gain, N·m/rad. Derived when absent ([`Character::gains`]).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub kp: Option<f64>,
    /// Derivative gain, N·m·s/rad. Derived when absent ([`Character::gains`]).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub kd: Option<f64>,
    /// Largest torque the actuator applies on each axis, N·m. Derived when absent.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub torque_limit: Option<f64>,
    /// Armature, kg·m²: the reflected inertia of the joint's actuator, added to each of its
    /// degrees of freedom's diagonal of the joint-space mass matrix (MuJoCo's joint `armature`).
    /// Zero when absent. A light link under a heavy one (the horse's 1 kg hooves under its
    /// 344 kg trunk) needs some for the constraint solver to converge in a few sweeps.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub armature: Option<f64>,
    /// Rest pose of the joint's coordinates in degrees (the spacetime solver's initial pose);
    /// empty means zero, the reference pose.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub rest: Vec<f64>,
}

/// Joint types. Axes are world directions in the reference pose and must be unit vectors.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
pub enum JointKind {
    /// One rotational degree of freedom.
    Hinge { axis: [f64; 3] },
    /// Two rotational degrees of freedom, no twist: rotation about `axes.0` (fixed in the parent)
    /// then about `axes.1` (carried by the child).
    Universal { axes: ([f64; 3], [f64; 3]) },
    /// Three rotational degrees of freedom, as successive rotations about x, y and z.
    Ball,
    /// Welded.
    Fixed,
}

impl Joint {
    /// A joint with no limits, derived gains, no armature and the reference pose as rest.
    pub fn new(
        name: impl Into<String>,
        parent: impl Into<String>,
        child: impl Into<String>,
        anchor: [f64; 3],
        kind: JointKind,
    ) -> Joint {
        Joint {
            name: name.into(),
            parent: parent.into(),
            child: child.into(),
            anchor,
            kind,
            limits: Vec::new(),
            kp: None,
            kd: None,
            torque_limit: None,
            armature: None,
            rest: Vec::new(),
        }
    }
}

impl JointKind {
    /// Rotation axes (world frame, reference pose) of the degrees of freedom, in order.
    pub fn axes(&self) -> Vec<[f64; 3]> {
        match self {
            JointKind::Hinge { axis } => vec![*axis],
            JointKind::Universal { axes } => vec![axes.0, axes.1],
            JointKind::Ball => vec![[1.0, 0.0, 0.0], [0.0, 1.0, 0.0], [0.0, 0.0, 1.0]],
            JointKind::Fixed => vec![],
        }
    }

    pub fn dof(&self) -> usize {
        self.axes().len()
    }

    pub fn label(&self) -> &'static str {
        match self {
            JointKind::Hinge { .. } => "hinge",
            JointKind::Universal { .. } => "universal",
            JointKind::Ball => "ball",
            JointKind::Fixed => "fixed",
        }
    }
}

/// A joint's actuator: PD gains and torque limit (given or derived, [`Character::gains`]).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Gains {
    /// N·m/rad.
    pub kp: f64,
    /// N·m·s/rad.
    pub kd: f64,
    /// N·m per axis.
    pub torque_limit: f64,
}

#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct EndEffector {
    pub body: String,
    pub tag: EffectorTag,
    /// Point in the body frame (for example the sole of a foot).
    #[serde(default, skip_serializing_if = "is_zero")]
    pub point: [f64; 3],
}

#[derive(Clone, Copy, Debug, Serialize, Deserialize, PartialEq, Eq)]
pub enum EffectorTag {
    Hand,
    Foot,
    Head,
    /// A tail's tip (tracked like the other end effectors by Keys-to-Sim).
    Tail,
}

impl Character {
    pub fn body_index(&self, name: &str) -> Option<usize> {
        self.bodies.iter().position(|b| b.name == name)
    }

    pub fn total_mass(&self) -> f64 {
        self.bodies.iter().map(|b| b.mass).sum()
    }

    /// Internal (actuated) degrees of freedom: the sum over joints, root excluded.
    pub fn internal_dof(&self) -> usize {
        self.joints.iter().map(|j| j.kind.dof()).sum()
    }

    /// Per internal coordinate (in the joints' order), its limits in radians; None where the
    /// joint gives none.
    pub fn coordinate_limits(&self) -> Vec<Option<(f64, f64)>> {
        self.joints
            .iter()
            .flat_map(|j| {
                (0..j.kind.dof()).map(|k| {
                    j.limits
                        .get(k)
                        .map(|&(lo, hi)| (lo.to_radians(), hi.to_radians()))
                })
            })
            .collect()
    }

    /// Height of the reference pose: top of the highest shape minus bottom of the lowest.
    pub fn height(&self) -> f64 {
        let (mut lo, mut hi) = (f64::INFINITY, f64::NEG_INFINITY);
        for b in &self.bodies {
            let (l, h) = b.vertical_extent();
            lo = lo.min(l);
            hi = hi.max(h);
        }
        hi - lo
    }

    /// Lowest point of the reference pose (the ground is placed here by the simulator).
    pub fn lowest_point(&self) -> f64 {
        self.bodies
            .iter()
            .map(|b| b.vertical_extent().0)
            .fold(f64::INFINITY, f64::min)
    }

    /// Centre of mass of the reference pose.
    pub fn reference_com(&self) -> [f64; 3] {
        let m = self.total_mass();
        let mut c = [0.0; 3];
        for b in &self.bodies {
            for k in 0..3 {
                c[k] += b.mass * b.position[k] / m;
            }
        }
        c
    }

    /// Bodies tagged with the given end-effector tag.
    pub fn effectors(&self, tag: EffectorTag) -> impl Iterator<Item = &EndEffector> {
        self.end_effectors.iter().filter(move |e| e.tag == tag)
    }

    /// Joint whose child is `body`, if any (none for the root).
    pub fn joint_to(&self, body: &str) -> Option<&Joint> {
        self.joints.iter().find(|j| j.child == body)
    }

    /// Bodies of the subtree hanging from `body` (itself included), by index.
    pub fn subtree(&self, body: &str) -> Vec<usize> {
        let mut out: Vec<usize> = self.body_index(body).into_iter().collect();
        let mut k = 0;
        while k < out.len() {
            let name = &self.bodies[out[k]].name;
            for j in self.joints.iter().filter(|j| &j.parent == name) {
                if let Some(c) = self.body_index(&j.child)
                    && !out.contains(&c)
                {
                    out.push(c);
                }
            }
            k += 1;
        }
        out
    }

    /// The PD gains and torque limit of joint `j`: the file's where it gives them, else derived
    /// from masses and lengths. With M the character's mass, g gravity and ℓ the reach of the
    /// joint's subtree (the largest distance from the anchor to the far side of a body below
    /// it), the whole weight acting at that reach is M·g·ℓ; a derived joint resists it with
    /// kp = 5·M·g·ℓ per radian (it sags 0.2 rad, 11°, under the full weight at full reach), a
    /// damping time of 0.1 s (kd = 0.1·kp, the ratio of the hand-tuned human3d hips) and a
    /// torque limit of 2·M·g·ℓ. Panics if `j` is out of range.
    pub fn gains(&self, j: usize) -> Gains {
        let joint = &self.joints[j];
        let (kp, kd, torque_limit) = (joint.kp, joint.kd, joint.torque_limit);
        if let (Some(kp), Some(kd), Some(torque_limit)) = (kp, kd, torque_limit) {
            return Gains {
                kp,
                kd,
                torque_limit,
            };
        }
        let reach = self
            .subtree(&joint.child)
            .into_iter()
            .map(|b| {
                let b = &self.bodies[b];
                let d: f64 = (0..3)
                    .map(|k| (b.position[k] - joint.anchor[k]).powi(2))
                    .sum::<f64>()
                    .sqrt();
                d + 0.5 * b.length()
            })
            .fold(0.0f64, f64::max);
        let load = self.total_mass() * rotation::GRAVITY_F64 * reach;
        let kp = kp.unwrap_or(5.0 * load);
        Gains {
            kp,
            kd: kd.unwrap_or(0.1 * kp),
            torque_limit: torque_limit.unwrap_or(2.0 * load),
        }
    }

    /// Names of the degrees of freedom, `joint` or `joint.0`, `joint.1`, … in simulation order.
    pub fn dof_names(&self) -> Vec<String> {
        let mut names = Vec::new();
        for j in &self.joints {
            let n = j.kind.dof();
            for k in 0..n {
                names.push(if n == 1 {
                    j.name.clone()
                } else {
                    format!("{}.{k}", j.name)
                });
            }
        }
        names
    }

    /// Checks the structure: a tree rooted at `root`, positive masses and sizes, unit axes,
    /// ordered limits of the right count, non-negative gains. Returns every problem found,
    /// each naming the record and field (the loader adds file and line).
    pub fn validate(&self) -> Vec<Problem> {
        validate(self)
    }
}

impl Body {
    /// World-frame rotation of the reference pose as a unit quaternion (x, y, z, w).
    pub fn orientation(&self) -> [f64; 4] {
        euler_xyz_deg_to_quat(self.rotation)
    }

    /// Principal inertia: given, or derived from the shape and mass.
    pub fn principal_inertia(&self) -> [f64; 3] {
        self.inertia
            .unwrap_or_else(|| principal_inertia(&self.shape, self.mass))
    }

    /// Lowest and highest y of the shape in the reference pose.
    pub fn vertical_extent(&self) -> (f64, f64) {
        vertical_extent(&self.shape, self.rotation, self.position[1])
    }

    /// Characteristic length of the shape along its main axis (for shape variation).
    pub fn length(&self) -> f64 {
        match self.shape {
            Shape::Capsule {
                radius,
                half_length,
                ..
            } => 2.0 * (half_length + radius),
            Shape::Box { half_extents: h } => 2.0 * h[0].max(h[1]).max(h[2]),
            Shape::Ellipsoid { radii: r } => 2.0 * r[0].max(r[1]).max(r[2]),
            Shape::Cylinder { half_length, .. } => 2.0 * half_length,
        }
    }
}

/// Lowest and highest y of `shape` turned by `rotation` (degrees about x, then y, then z) with
/// its centre at height `y`; generic so that the simulation evaluates it in its own f32.
pub fn vertical_extent<F: Float>(shape: &Shape<F>, rotation: [F; 3], y: F) -> (F, F) {
    let zero = [F::zero(); 3];
    let q = euler_xyz_deg_to_quat(rotation);
    let half = match *shape {
        Shape::Capsule {
            radius,
            half_length,
            axis,
        } => {
            let mut a = zero;
            a[axis.index()] = half_length;
            let d = rotate(q, a);
            d[1].abs() + radius
        }
        Shape::Box { half_extents: h } => {
            let mut s = F::zero();
            for k in 0..3 {
                let mut a = zero;
                a[k] = h[k];
                s = s + rotate(q, a)[1].abs();
            }
            s
        }
        Shape::Ellipsoid { radii: r } => {
            // Support of an ellipsoid along y: sqrt(sum (r_k * R_{1k})^2).
            let mut s = F::zero();
            for k in 0..3 {
                let mut a = zero;
                a[k] = r[k];
                s = s + rotate(q, a)[1].powi(2);
            }
            s.sqrt()
        }
        Shape::Cylinder {
            radius,
            half_length,
            axis,
        } => {
            // The two rims' support along y: |a_y|·h + r·√(1 − a_y²) for the unit axis a.
            let mut a = zero;
            a[axis.index()] = F::one();
            let ay = rotate(q, a)[1].abs().min(F::one());
            ay * half_length + radius * (F::one() - ay * ay).sqrt()
        }
    };
    (y - half, y + half)
}

/// A character file a motion belongs to (a clip's, a gait clip's): its path and a hash of its
/// text.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct CharacterRef {
    /// Path of the character file, as given when the clip was made.
    pub path: String,
    /// xxh3-128 of the file's bytes (hex), to notice a character edited since.
    pub hash: String,
}

impl CharacterRef {
    /// Refers to the file at `path` with `text` its content.
    pub fn new(path: &std::path::Path, text: &str) -> Self {
        CharacterRef {
            path: path.display().to_string(),
            hash: format!("{:032x}", xxhash_rust::xxh3::xxh3_128(text.as_bytes())),
        }
    }
}

#[cfg(test)]
mod file_tests;
#[cfg(test)]
mod tests;
