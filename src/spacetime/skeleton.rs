//! The creature model of the spacetime gait engine: a kinematic tree of cylinder limbs joined by
//! parameterised rotations, with the user annotations the gait optimisation needs.
//!
//! Implements the creature of Wampler 2012 (thesis ch. 2, §3.2 and Appendix A):
//!
//! - **Limbs** are solid cylinders with a length, a radius and a mass ([`Limb`]); their inertia is
//!   that of a solid cylinder ([`cylinder_inertia`]).
//! - **Joints** are "a rotation, then a translation along the child limb" (§3.2): the child limb's
//!   frame is its parent's frame, moved to the attachment point on the parent and rotated by the
//!   joint's rotation; the child limb then extends from that point along its own `direction`.
//!   Joint kinds ([`JointKind`], App. A): fixed (0 DOF, a constant 3×3 matrix), hinge (1 DOF,
//!   Eq. A.1), Euler angles (2 or 3 hinges about user axes, composed left to right), exponential
//!   map (3 DOF, Eq. A.2, with sinc/cosc series below the thresholds of A.7–A.10, see
//!   [`super::rotation`]) and the free root (exponential-map rotation plus translation, 6 DOF).
//! - **Annotations**: feet (limb end points used as point contacts, constraints 3.3–3.5), the
//!   head (terms 3.16–3.17), pairs of points kept apart (constraint 3.6), the rest pose (the
//!   initialisation) and the joint bounds.
//!
//! # Conventions
//!
//! - Units: metres, kilograms, radians, seconds.
//! - World: y up, the ground is the plane y = 0 (constraint 3.2), x is the direction of travel,
//!   z points to the creature's right (right-handed).
//! - Limb frames: every limb has a frame whose origin is the limb's proximal end (its joint). With
//!   every joint coordinate at 0 all limb frames are parallel to the world frame, so a limb's
//!   `direction`, its `offset` and its joint axes are all written as seen in that zero pose. The
//!   limb's distal end is origin + R·direction·length and its centre of mass is at half that.
//! - A limb is attached at `at` (a fraction of its parent's length along the parent's direction,
//!   default 1: the parent's distal end; 0 is the parent's proximal end) plus an optional constant
//!   `offset` in the parent's frame (e.g. the hips on either side of a pelvis).
//! - Generalized coordinates q: the limbs' joint coordinates concatenated in limb order (parents
//!   are listed before children, the root first). A free root's six are
//!   (r_x, r_y, r_z, x, y, z): the exponential map of the root's rotation, then the world position
//!   of the root limb's proximal end (App. A, "Free").
//! - **DOF count**: the length of q, the root's six included. This is the count of the thesis's
//!   creature table (§3.2.5): the monoped's 10 DOFs are 6 (root) + 3 (hip) + 1 (knee), and the
//!   same convention gives the simple biped 16, velociraptor 33, horse 29 and pentaped 32.
//! - Foot points are the end points of the limbs listed in `feet`: the distal end, or a limb's
//!   own `end` point (a foot's sole); separation pairs name two limbs whose end points must stay
//!   `min_distance` apart (a knee is the thigh's distal end).
//! - Inertia: a solid cylinder's, or a limb's own tensor (`inertia`) for bodies of other shapes.
//!
//! A skeleton is built from a character file (`crate::model`, the one character model) by
//! [`super::creature`]; [`Skeleton::load`] reads one, with errors that name the file, the line
//! and what was expected. The numeric
//! part of the model is available in any scalar type as a [`Morphology`], so limb lengths and
//! radii can later become optimisation variables (thesis §3.4).

use super::autodiff::Scalar;
use super::rotation::{Mat3, Vec3, exp_map, hinge};
use num_dual::{Dual, Dual2};
use std::collections::HashMap;
use std::ops::Range;

/// Standard gravity (m/s²), pointing down the y axis.
pub const GRAVITY: [f64; 3] = [0.0, -crate::model::rotation::GRAVITY_F64, 0.0];

/// A joint's parameterised rotation (App. A). Axes are unit vectors in the parent's frame (which
/// is the child's frame at zero rotation).
#[derive(Clone, Debug, PartialEq)]
pub enum JointKind {
    /// 0 DOF: a constant rotation matrix, given by rows.
    Fixed { rotation: [[f64; 3]; 3] },
    /// 1 DOF: rotation about `axis` (A.1).
    Hinge { axis: [f64; 3] },
    /// 2 or 3 DOF: R = R(a₁, q₁)·R(a₂, q₂)[·R(a₃, q₃)], hinges about the given axes.
    Euler { axes: Vec<[f64; 3]> },
    /// 3 DOF: the exponential map (A.2).
    ExpMap,
    /// 6 DOF, root only: exponential-map rotation, then translation (x, y, z).
    Free,
    /// 6 DOF, root only: yaw about y, then pitch about z, then roll about x
    /// (R = R_y(ψ)·R_z(θ)·R_x(φ)), then translation (x, y, z). A turn about the vertical only
    /// adds to the yaw, so the transform of a transformed-cyclic clip (McIntosh 2011, §3.2.5) is
    /// linear in these coordinates (see [`Skeleton::with_heading_root`]).
    FreeHeading,
}

/// A joint's rotation and its angular velocity and acceleration relative to the parent,
/// expressed in the child's frame.
#[derive(Clone, Debug)]
pub struct JointMotion<D> {
    pub rotation: Mat3<D>,
    pub angular_velocity: Vec3<D>,
    pub angular_acceleration: Vec3<D>,
}

impl JointKind {
    /// Number of generalized coordinates.
    pub fn dof(&self) -> usize {
        match self {
            JointKind::Fixed { .. } => 0,
            JointKind::Hinge { .. } => 1,
            JointKind::Euler { axes } => axes.len(),
            JointKind::ExpMap => 3,
            JointKind::Free | JointKind::FreeHeading => 6,
        }
    }

    /// Number of rotational coordinates (the first ones; a free joint's last three translate).
    pub fn rotational_dof(&self) -> usize {
        match self {
            JointKind::Free | JointKind::FreeHeading => 3,
            other => other.dof(),
        }
    }

    /// The rotation for the joint's coordinates `q` (at least [`Self::rotational_dof`] values).
    pub fn rotation<D: Scalar>(&self, q: &[D]) -> Mat3<D> {
        match self {
            JointKind::Fixed { rotation } => Mat3::from_f64(*rotation),
            JointKind::Hinge { axis } => hinge(axis, &q[0]),
            JointKind::Euler { axes } => {
                let mut r = hinge(&axes[0], &q[0]);
                for (axis, angle) in axes.iter().zip(q).skip(1) {
                    r = r.mul(&hinge(axis, angle));
                }
                r
            }
            JointKind::ExpMap | JointKind::Free => {
                exp_map(&Vec3::new(q[0].clone(), q[1].clone(), q[2].clone()))
            }
            JointKind::FreeHeading => hinge(&[0.0, 1.0, 0.0], &q[0])
                .mul(&hinge(&[0.0, 0.0, 1.0], &q[1]))
                .mul(&hinge(&[1.0, 0.0, 0.0], &q[2])),
        }
    }

    /// Rotation, relative angular velocity ω = vee(RᵀṘ) and its derivative
    /// α = vee(ṘᵀṘ + RᵀR̈), in the child's frame, for coordinates q with rates q̇ and q̈.
    ///
    /// Ṙ and R̈ are taken exactly by evaluating R along q(t) = q + q̇t + q̈t²/2 with second-order
    /// dual numbers in t, over whatever scalar type the caller uses.
    pub fn motion<D: Scalar>(&self, q: &[D], qd: &[D], qdd: &[D]) -> JointMotion<D> {
        match self {
            JointKind::Fixed { rotation } => JointMotion {
                rotation: Mat3::from_f64(*rotation),
                angular_velocity: Vec3::zero(),
                angular_acceleration: Vec3::zero(),
            },
            JointKind::Hinge { axis } => {
                let a = Vec3::<D>::from_f64(*axis);
                JointMotion {
                    rotation: hinge(axis, &q[0]),
                    angular_velocity: a.scale(&qd[0]),
                    angular_acceleration: a.scale(&qdd[0]),
                }
            }
            _ => {
                let n = self.rotational_dof();
                let qt: Vec<Dual2<D>> = (0..n)
                    .map(|k| Dual2::new(q[k].clone(), qd[k].clone(), qdd[k].clone()))
                    .collect();
                let rt = self.rotation(&qt);
                let r = Mat3::from_fn(|i, j| rt.m[i][j].re.clone());
                let rd = Mat3::from_fn(|i, j| rt.m[i][j].v1.clone());
                let rdd = Mat3::from_fn(|i, j| rt.m[i][j].v2.clone());
                let angular_velocity = r.tr_mul(&rd).vee();
                let angular_acceleration = rd.tr_mul(&rd).add(&r.tr_mul(&rdd)).vee();
                JointMotion {
                    rotation: r,
                    angular_velocity,
                    angular_acceleration,
                }
            }
        }
    }

    /// The motion subspace: column k is the child-frame angular velocity per unit rate of
    /// rotational coordinate k (ω = Σ Sₖ q̇ₖ), i.e. vee(Rᵀ ∂R/∂qₖ). The joint torque of
    /// coordinate k is Sₖ · n for the moment n transmitted through the joint.
    pub fn subspace<D: Scalar>(&self, q: &[D]) -> Vec<Vec3<D>> {
        match self {
            JointKind::Fixed { .. } => Vec::new(),
            JointKind::Hinge { axis } => vec![Vec3::from_f64(*axis)],
            _ => {
                let n = self.rotational_dof();
                (0..n)
                    .map(|k| {
                        let qk: Vec<Dual<D>> = (0..n)
                            .map(|i| {
                                Dual::new(q[i].clone(), if i == k { D::one() } else { D::zero() })
                            })
                            .collect();
                        let rk = self.rotation(&qk);
                        let r = Mat3::from_fn(|i, j| rk.m[i][j].re.clone());
                        let dr = Mat3::from_fn(|i, j| rk.m[i][j].eps.clone());
                        r.tr_mul(&dr).vee()
                    })
                    .collect()
            }
        }
    }

    fn coordinate_names(&self) -> Vec<String> {
        match self {
            JointKind::Fixed { .. } => Vec::new(),
            JointKind::Hinge { .. } => vec!["angle".into()],
            JointKind::Euler { axes } => (0..axes.len()).map(|k| format!("angle{k}")).collect(),
            JointKind::ExpMap => ["rx", "ry", "rz"].map(String::from).to_vec(),
            JointKind::Free => ["rx", "ry", "rz", "x", "y", "z"].map(String::from).to_vec(),
            JointKind::FreeHeading => ["yaw", "pitch", "roll", "x", "y", "z"]
                .map(String::from)
                .to_vec(),
        }
    }
}

/// One limb of a creature description (built from a character by [`super::creature`]).
#[derive(Clone, Debug)]
pub struct LimbSpec {
    pub name: String,
    /// Parent limb's name; omitted (empty) for the root, which must come first.
    pub parent: String,
    /// Attachment point as a fraction of the parent's length (1 = the parent's distal end).
    pub at: f64,
    /// Extra constant offset of the attachment point, in the parent's frame (m).
    pub offset: [f64; 3],
    pub joint: JointKind,
    /// Direction of the limb from its joint, in its own frame (normalised on load).
    pub direction: [f64; 3],
    pub length: f64,
    pub radius: f64,
    pub mass: f64,
    /// Rest pose of the joint's coordinates; omitted means all zero.
    pub rest: Vec<f64>,
    /// (lower, upper) per coordinate; omitted means unbounded. `inf` is allowed.
    pub limits: Vec<(f64, f64)>,
    /// The limb's end point in its own frame, relative to its joint, when it is not the far
    /// end of the cylinder (a foot's sole). Not scaled by morphology changes.
    pub end: Option<[f64; 3]>,
    /// Inertia tensor about the centre of mass in the limb's frame (kg·m²) at the limb's mass,
    /// when the body is not a cylinder along the limb; scaled with the mass.
    pub inertia: Option<[[f64; 3]; 3]>,
    /// A foot's sole corners in its own frame, relative to its joint (a box foot's four lowest
    /// corners); empty for a point foot. Not scaled by morphology changes.
    pub sole: Vec<[f64; 3]>,
}

/// Two limbs whose distal ends must stay at least `min_distance` apart (Eq. 3.6).
#[derive(Clone, Debug)]
pub struct SeparationSpec {
    pub a: String,
    pub b: String,
    pub min_distance: f64,
}

/// A creature description (see the module docs for the conventions).
#[derive(Clone, Debug)]
pub struct CreatureSpec {
    pub name: String,
    pub limbs: Vec<LimbSpec>,
    /// Limbs whose distal ends are feet (point contacts).
    pub feet: Vec<String>,
    pub head: Option<String>,
    pub separations: Vec<SeparationSpec>,
    /// Solver settings this creature needs (defaults of `gait` and the Gait panel).
    pub solve: SolveHints,
}

/// Gait-solver settings a character may give for itself (see [`crate::model::GaitHints`]).
pub type SolveHints = crate::model::GaitHints;

/// A limb of a loaded skeleton.
#[derive(Clone, Debug, PartialEq)]
pub struct Limb {
    pub name: String,
    pub parent: Option<usize>,
    /// Joint kind, axes normalised.
    pub joint: JointKind,
    /// Attachment point as a fraction of the parent's length along its direction.
    pub at: f64,
    /// Constant attachment offset in the parent's frame (m).
    pub offset: [f64; 3],
    /// Unit direction of the limb in its own frame.
    pub direction: [f64; 3],
    pub length: f64,
    pub radius: f64,
    pub mass: f64,
    /// The joint's coordinates within q.
    pub dofs: Range<usize>,
    pub rest: Vec<f64>,
    pub lower: Vec<f64>,
    pub upper: Vec<f64>,
    /// End point in the limb frame relative to the joint, when not the cylinder's far end.
    pub end: Option<[f64; 3]>,
    /// Inertia tensor about the centre of mass (limb frame, at `mass`), when the limb is not
    /// a solid cylinder of `length` and `radius`.
    pub inertia: Option<[[f64; 3]; 3]>,
    /// A foot's sole corners (limb frame, relative to the joint); empty for a point foot.
    pub sole: Vec<[f64; 3]>,
}

/// A pair of limb end points kept apart (Eq. 3.6), by limb index.
#[derive(Clone, Debug, PartialEq)]
pub struct Separation {
    pub a: usize,
    pub b: usize,
    pub min_distance: f64,
}

/// A validated creature: limbs in topological order (root first), annotations by limb index.
#[derive(Clone, Debug, PartialEq)]
pub struct Skeleton {
    pub name: String,
    pub limbs: Vec<Limb>,
    /// Limbs whose distal end is a foot.
    pub feet: Vec<usize>,
    pub head: Option<usize>,
    pub separations: Vec<Separation>,
    /// The file's solver settings ([`SolveHints`]).
    pub solve: SolveHints,
    /// A planar creature (a character with a planar root): the root turns about z only and stays
    /// at z = its reference, every joint turns about z, and the gait solver keeps the in-plane
    /// balances only (momentum along x and y, about z), the plane's reactions doing the rest.
    pub planar: bool,
    dof: usize,
}

/// The numeric shape of a creature in some scalar type: per limb length, radius and mass.
#[derive(Clone, Debug)]
pub struct Morphology<D> {
    pub length: Vec<D>,
    pub radius: Vec<D>,
    pub mass: Vec<D>,
}

impl<D: Scalar> Morphology<D> {
    /// New lengths and radii with masses at the file's density (thesis §3.4: the mass scales so
    /// "that it maintains a constant density"): mᵢ = m⁰ᵢ·(lᵢrᵢ²)/(l⁰ᵢr⁰ᵢ²) (by length only
    /// where r⁰ᵢ = 0).
    pub fn at_constant_density(skeleton: &Skeleton, length: Vec<D>, radius: Vec<D>) -> Self {
        let mass = skeleton
            .limbs
            .iter()
            .zip(length.iter().zip(&radius))
            .map(|(limb, (l, r))| {
                if limb.radius > 0.0 {
                    l.clone() * r * r * (limb.mass / (limb.length * limb.radius * limb.radius))
                } else {
                    l.clone() * (limb.mass / limb.length)
                }
            })
            .collect();
        Self {
            length,
            radius,
            mass,
        }
    }

    pub fn total_mass(&self) -> D {
        self.mass.iter().cloned().sum()
    }
}

/// Principal moments of inertia of a solid cylinder about its centre of mass:
/// (transverse, axial) = (m(3r² + l²)/12, mr²/2).
pub fn cylinder_inertia<D: Scalar>(mass: &D, radius: &D, length: &D) -> (D, D) {
    let r2 = radius.clone() * radius;
    let transverse = mass.clone() * (r2.clone() * 3.0 + length.clone() * length) / 12.0;
    let axial = mass.clone() * r2 * 0.5;
    (transverse, axial)
}

impl Skeleton {
    /// Whether foot `k`'s leg has a joint that turns it about the vertical: a joint of three
    /// rotations, or an axis with a vertical component in the reference pose, between the root
    /// and the foot.
    pub fn foot_can_turn(&self, k: usize) -> bool {
        let vertical = |a: &[f64; 3]| a[1].abs() > 1e-9;
        let mut limb = Some(self.feet[k]);
        while let Some(l) = limb {
            let turns = match &self.limbs[l].joint {
                JointKind::Hinge { axis } => vertical(axis),
                JointKind::Euler { axes } => axes.len() > 2 || axes.iter().any(vertical),
                JointKind::Fixed { .. } => false,
                JointKind::ExpMap | JointKind::Free | JointKind::FreeHeading => true,
            };
            if turns && self.limbs[l].parent.is_some() {
                return true;
            }
            limb = self.limbs[l].parent;
        }
        false
    }

    /// The feet whose twist about the vertical the gait NLP holds at zero (thesis §3.2.1,
    /// (3.5)) in a frame where `in_contact` tells which feet are down: every foot down whose leg
    /// can turn it ([`Self::foot_can_turn`]), and the first foot down among those whose legs
    /// cannot. A leg without a joint about the vertical (the horse's 2-DOF hips and shoulders,
    /// hinges below) twists its foot only with the trunk and by the coupling of flexion and
    /// abduction, which vanishes when the leg is upright. The rows of two such feet are then
    /// nearly parallel, their zero sets cross, and IPOPT's Newton systems needed regularizations
    /// of 1e6 to 1e9 (docs/gaits.md, Limits); one row holds the trunk's twist and the others are
    /// left free.
    pub fn held_twists(&self, in_contact: impl Fn(usize) -> bool) -> Vec<bool> {
        let first_fixed = (0..self.feet.len()).find(|&k| in_contact(k) && !self.foot_can_turn(k));
        (0..self.feet.len())
            .map(|k| in_contact(k) && (self.foot_can_turn(k) || first_fixed == Some(k)))
            .collect()
    }

    /// Foot `k`'s sole corner `c` relative to its end point (the contact point), in its limb
    /// frame.
    pub fn sole_corner(&self, k: usize, c: usize) -> [f64; 3] {
        let limb = &self.limbs[self.feet[k]];
        let end = limb.end.unwrap_or(limb.direction.map(|d| d * limb.length));
        std::array::from_fn(|j| limb.sole[c][j] - end[j])
    }

    /// Foot `k`'s sole corners relative to its end point, in its limb frame.
    fn sole_from_end(&self, k: usize) -> Vec<[f64; 3]> {
        (0..self.limbs[self.feet[k]].sole.len())
            .map(|c| self.sole_corner(k, c))
            .collect()
    }

    /// Foot `k`'s toes: the middle of its sole's front edge (the corners farthest along the limb
    /// frame's x, within 1 mm), relative to its end point, in its limb frame. `None` for a point
    /// foot. A foot on its toes, heel up, stands and turns on this point (a toe pivot, Agrawal
    /// 2016, thesis §5.2).
    pub fn toes(&self, k: usize) -> Option<[f64; 3]> {
        let sole = self.sole_from_end(k);
        let front = sole.iter().map(|c| c[0]).fold(f64::NEG_INFINITY, f64::max);
        let edge: Vec<&[f64; 3]> = sole.iter().filter(|c| c[0] > front - 1e-3).collect();
        (!edge.is_empty()).then(|| {
            std::array::from_fn(|j| edge.iter().map(|c| c[j]).sum::<f64>() / edge.len() as f64)
        })
    }

    /// Half the length of foot `k`'s toes' edge across the foot (m; 0 for a point foot): how far
    /// to either side of [`Skeleton::toes`] a load on the toes may act.
    pub fn toe_half_width(&self, k: usize) -> f64 {
        let sole = self.sole_from_end(k);
        let front = sole.iter().map(|c| c[0]).fold(f64::NEG_INFINITY, f64::max);
        let across = sole.iter().filter(|c| c[0] > front - 1e-3).map(|c| c[2]);
        let (lo, hi) = across.fold((f64::INFINITY, f64::NEG_INFINITY), |(lo, hi), z| {
            (lo.min(z), hi.max(z))
        });
        if hi >= lo { 0.5 * (hi - lo) } else { 0.0 }
    }

    /// Foot `k`'s heel: the indices of its sole corners at the back (the least x of the limb
    /// frame, within 1 mm).
    pub fn heel_corners(&self, k: usize) -> Vec<usize> {
        let sole = self.sole_from_end(k);
        let back = sole.iter().map(|c| c[0]).fold(f64::INFINITY, f64::min);
        (0..sole.len())
            .filter(|&c| sole[c][0] < back + 1e-3)
            .collect()
    }

    /// Builds the skeleton of a creature description (see [`super::creature`], which derives
    /// one from a character).
    pub fn build(spec: &CreatureSpec) -> Skeleton {
        let index: HashMap<&str, usize> = spec
            .limbs
            .iter()
            .enumerate()
            .map(|(i, l)| (l.name.as_str(), i))
            .collect();
        let mut next = 0;
        let limbs = spec
            .limbs
            .iter()
            .map(|l| {
                let n = l.joint.dof();
                let dofs = next..next + n;
                next += n;
                let joint = match &l.joint {
                    JointKind::Hinge { axis } => JointKind::Hinge { axis: unit(axis) },
                    JointKind::Euler { axes } => JointKind::Euler {
                        axes: axes.iter().map(unit).collect(),
                    },
                    other => other.clone(),
                };
                Limb {
                    name: l.name.clone(),
                    parent: if l.parent.is_empty() {
                        None
                    } else {
                        Some(index[l.parent.as_str()])
                    },
                    joint,
                    at: l.at,
                    offset: l.offset,
                    direction: unit(&l.direction),
                    length: l.length,
                    radius: l.radius,
                    mass: l.mass,
                    dofs,
                    rest: if l.rest.is_empty() {
                        vec![0.0; n]
                    } else {
                        l.rest.clone()
                    },
                    lower: if l.limits.is_empty() {
                        vec![f64::NEG_INFINITY; n]
                    } else {
                        l.limits.iter().map(|b| b.0).collect()
                    },
                    upper: if l.limits.is_empty() {
                        vec![f64::INFINITY; n]
                    } else {
                        l.limits.iter().map(|b| b.1).collect()
                    },
                    end: l.end,
                    inertia: l.inertia,
                    sole: l.sole.clone(),
                }
            })
            .collect();
        Skeleton {
            name: spec.name.clone(),
            limbs,
            feet: spec.feet.iter().map(|f| index[f.as_str()]).collect(),
            head: spec.head.as_ref().map(|h| index[h.as_str()]),
            separations: spec
                .separations
                .iter()
                .map(|s| Separation {
                    a: index[s.a.as_str()],
                    b: index[s.b.as_str()],
                    min_distance: s.min_distance,
                })
                .collect(),
            solve: spec.solve,
            planar: false,
            dof: next,
        }
    }

    /// The same creature with its free root in heading coordinates ([`JointKind::FreeHeading`]:
    /// yaw, pitch, roll, then the position): what transformed-cyclic and open clips are solved
    /// in. The yaw is unbounded; pitch and roll keep the root's rotation limits. Unchanged when
    /// the root already is so (or is planar).
    pub fn with_heading_root(&self) -> Skeleton {
        let mut out = self.clone();
        if let Some(root) = out.limbs.first_mut()
            && root.joint == JointKind::Free
        {
            root.joint = JointKind::FreeHeading;
            root.lower[0] = f64::NEG_INFINITY;
            root.upper[0] = f64::INFINITY;
        }
        out
    }

    /// Whether the root is in heading coordinates ([`Self::with_heading_root`]).
    pub fn has_heading_root(&self) -> bool {
        self.limbs
            .first()
            .is_some_and(|l| l.joint == JointKind::FreeHeading)
    }

    /// Number of generalized coordinates (the root's six included).
    pub fn dof(&self) -> usize {
        self.dof
    }

    pub fn total_mass(&self) -> f64 {
        self.limbs.iter().map(|l| l.mass).sum()
    }

    pub fn limb_index(&self, name: &str) -> Option<usize> {
        self.limbs.iter().position(|l| l.name == name)
    }

    /// The rest pose, as a full coordinate vector.
    pub fn rest_pose(&self) -> Vec<f64> {
        self.limbs
            .iter()
            .flat_map(|l| l.rest.iter().copied())
            .collect()
    }

    /// (lower, upper) bounds of every coordinate (±∞ where unbounded).
    pub fn bounds(&self) -> (Vec<f64>, Vec<f64>) {
        let lower = self
            .limbs
            .iter()
            .flat_map(|l| l.lower.iter().copied())
            .collect();
        let upper = self
            .limbs
            .iter()
            .flat_map(|l| l.upper.iter().copied())
            .collect();
        (lower, upper)
    }

    /// `limb.coordinate` names of every coordinate, e.g. `l_knee.angle`, `pelvis.y`.
    pub fn dof_names(&self) -> Vec<String> {
        self.limbs
            .iter()
            .flat_map(|l| {
                l.joint
                    .coordinate_names()
                    .into_iter()
                    .map(move |c| format!("{}.{c}", l.name))
            })
            .collect()
    }

    /// Whether each coordinate is rotational (every one but the root's translation): the
    /// coordinates that carry passive elements (Eq. 3.13).
    pub fn rotational_dofs(&self) -> Vec<bool> {
        self.limbs
            .iter()
            .flat_map(|l| (0..l.joint.dof()).map(move |k| k < l.joint.rotational_dof()))
            .collect()
    }

    /// Indices of the limbs from `limb` up to the root (the limb first).
    pub fn path_to_root(&self, limb: usize) -> Vec<usize> {
        let mut out = vec![limb];
        while let Some(p) = self.limbs[*out.last().unwrap()].parent {
            out.push(p);
        }
        out
    }

    /// The file's lengths, radii and masses in scalar type `D`.
    pub fn morphology<D: Scalar>(&self) -> Morphology<D> {
        Morphology {
            length: self.limbs.iter().map(|l| D::from(l.length)).collect(),
            radius: self.limbs.iter().map(|l| D::from(l.radius)).collect(),
            mass: self.limbs.iter().map(|l| D::from(l.mass)).collect(),
        }
    }
}

fn unit(v: &[f64; 3]) -> [f64; 3] {
    let n = (v[0] * v[0] + v[1] * v[1] + v[2] * v[2]).sqrt();
    [v[0] / n, v[1] / n, v[2] / n]
}

#[cfg(test)]
#[path = "skeleton_tests.rs"]
pub(crate) mod tests;
