//! Characters as articulated rigid body systems (ARBS).
//!
//! Implements the character data model of specs/002_003.md §B1.4 and C.5 and specs/000.md §1.4:
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
pub mod rotation;
pub mod shape;

pub use inertia::principal_inertia;
pub use load::{
    ModelError, load_character, parse_character, parse_validated, read_text, save_character,
};
pub use rotation::{euler_xyz_deg_to_quat, quat_mul, rotate};

use serde::{Deserialize, Serialize};

/// A character: the bodies, the joints that connect them into a tree, and annotations.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
pub struct Character {
    pub name: String,
    /// Human-readable description (source, proportions).
    #[serde(default)]
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
}

/// How the root body is attached to the world.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
pub struct Root {
    pub body: String,
    pub kind: RootKind,
}

#[derive(Clone, Copy, Debug, Serialize, Deserialize, PartialEq, Eq)]
pub enum RootKind {
    /// Six unactuated degrees of freedom (3D characters).
    Free,
    /// Translation in x and y and rotation about z: a fixed base with a planar joint (2D characters).
    Planar,
}

#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
pub struct Body {
    /// Generic part name (`pelvis`, `torso`, `head`, `l_thigh`, `r_foot`, …).
    pub name: String,
    pub shape: Shape,
    /// kg, > 0.
    pub mass: f32,
    /// Principal moments about the body axes (kg·m²). Derived from the shape when absent.
    #[serde(default)]
    pub inertia: Option<[f32; 3]>,
    /// World position of the centre of mass in the reference pose (m).
    pub position: [f32; 3],
    /// Orientation in the reference pose: rotations about x, then y, then z, in degrees.
    #[serde(default)]
    pub rotation: [f32; 3],
}

/// Collision and mass shape, in the body frame, centred on the centre of mass.
#[derive(Clone, Copy, Debug, Serialize, Deserialize, PartialEq)]
pub enum Shape {
    /// A capsule along `axis` whose cylinder is `2·half_length` long.
    Capsule {
        radius: f32,
        half_length: f32,
        #[serde(default)]
        axis: Axis,
    },
    Box {
        half_extents: [f32; 3],
    },
    Ellipsoid {
        radii: [f32; 3],
    },
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
pub struct Joint {
    pub name: String,
    pub parent: String,
    pub child: String,
    /// World position of the joint centre in the reference pose.
    pub anchor: [f32; 3],
    pub kind: JointKind,
    /// One `(min, max)` pair in degrees per degree of freedom, in the order of the axes.
    /// Empty means unlimited.
    #[serde(default)]
    pub limits: Vec<(f32, f32)>,
    /// Proportional gain, N·m/rad.
    pub kp: f32,
    /// Derivative gain, N·m·s/rad.
    pub kd: f32,
    /// Largest torque the actuator applies on each axis, N·m.
    pub torque_limit: f32,
}

/// Joint types. Axes are world directions in the reference pose and must be unit vectors.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
pub enum JointKind {
    /// One rotational degree of freedom.
    Hinge { axis: [f32; 3] },
    /// Two rotational degrees of freedom, no twist: rotation about `axes.0` (fixed in the parent)
    /// then about `axes.1` (carried by the child).
    Universal { axes: ([f32; 3], [f32; 3]) },
    /// Three rotational degrees of freedom, as successive rotations about x, y and z.
    Ball,
    /// Welded.
    Fixed,
}

impl JointKind {
    /// Rotation axes (world frame, reference pose) of the degrees of freedom, in order.
    pub fn axes(&self) -> Vec<[f32; 3]> {
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

#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
pub struct EndEffector {
    pub body: String,
    pub tag: EffectorTag,
    /// Point in the body frame (for example the sole of a foot).
    #[serde(default)]
    pub point: [f32; 3],
}

#[derive(Clone, Copy, Debug, Serialize, Deserialize, PartialEq, Eq)]
pub enum EffectorTag {
    Hand,
    Foot,
    Head,
}

impl Character {
    pub fn body_index(&self, name: &str) -> Option<usize> {
        self.bodies.iter().position(|b| b.name == name)
    }

    pub fn total_mass(&self) -> f32 {
        self.bodies.iter().map(|b| b.mass).sum()
    }

    /// Internal (actuated) degrees of freedom: the sum over joints, root excluded.
    pub fn internal_dof(&self) -> usize {
        self.joints.iter().map(|j| j.kind.dof()).sum()
    }

    /// Height of the reference pose: top of the highest shape minus bottom of the lowest.
    pub fn height(&self) -> f32 {
        let (mut lo, mut hi) = (f32::INFINITY, f32::NEG_INFINITY);
        for b in &self.bodies {
            let (l, h) = b.vertical_extent();
            lo = lo.min(l);
            hi = hi.max(h);
        }
        hi - lo
    }

    /// Lowest point of the reference pose (the ground is placed here by the simulator).
    pub fn lowest_point(&self) -> f32 {
        self.bodies
            .iter()
            .map(|b| b.vertical_extent().0)
            .fold(f32::INFINITY, f32::min)
    }

    /// Centre of mass of the reference pose.
    pub fn reference_com(&self) -> [f32; 3] {
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
    pub fn orientation(&self) -> [f32; 4] {
        euler_xyz_deg_to_quat(self.rotation)
    }

    /// Principal inertia: given, or derived from the shape and mass.
    pub fn principal_inertia(&self) -> [f32; 3] {
        self.inertia
            .unwrap_or_else(|| principal_inertia(&self.shape, self.mass))
    }

    /// Lowest and highest y of the shape in the reference pose.
    pub fn vertical_extent(&self) -> (f32, f32) {
        let q = self.orientation();
        let half = match self.shape {
            Shape::Capsule {
                radius,
                half_length,
                axis,
            } => {
                let mut a = [0.0; 3];
                a[axis.index()] = half_length;
                let d = rotate(q, a);
                d[1].abs() + radius
            }
            Shape::Box { half_extents: h } => {
                let mut s = 0.0;
                for k in 0..3 {
                    let mut a = [0.0; 3];
                    a[k] = h[k];
                    s += rotate(q, a)[1].abs();
                }
                s
            }
            Shape::Ellipsoid { radii: r } => {
                // Support of an ellipsoid along y: sqrt(sum (r_k * R_{1k})^2).
                let mut s = 0.0;
                for k in 0..3 {
                    let mut a = [0.0; 3];
                    a[k] = r[k];
                    s += rotate(q, a)[1].powi(2);
                }
                f32::sqrt(s)
            }
        };
        (self.position[1] - half, self.position[1] + half)
    }

    /// Characteristic length of the shape along its main axis (for shape variation).
    pub fn length(&self) -> f32 {
        match self.shape {
            Shape::Capsule {
                radius,
                half_length,
                ..
            } => 2.0 * (half_length + radius),
            Shape::Box { half_extents: h } => 2.0 * h[0].max(h[1]).max(h[2]),
            Shape::Ellipsoid { radii: r } => 2.0 * r[0].max(r[1]).max(r[2]),
        }
    }
}

/// The heaviest body a character file may give, kg (an elephant's leg is a few hundred).
pub const MAX_BODY_MASS: f32 = 10_000.0;
/// The largest size (radius, half length, half extent) of a body's shape, m.
pub const MAX_SIZE: f32 = 100.0;
/// The largest principal moment of inertia a file may give, kg·m².
pub const MAX_INERTIA: f32 = 1.0e6;
/// How far from the origin a body or joint may be placed in the reference pose, m.
pub const MAX_COORDINATE: f32 = 1_000.0;
/// The largest PD gain, N·m/rad or N·m·s/rad.
pub const MAX_GAIN: f32 = 1.0e7;
/// The largest torque limit, N·m.
pub const MAX_TORQUE: f32 = 1.0e7;

/// One validation problem: where it is (section, record name or index, field) and what was
/// expected. The loader turns the location into a line number.
#[derive(Clone, Debug, PartialEq)]
pub struct Problem {
    /// Top-level field holding the record (`bodies`, `joints`, `end_effectors`, …).
    pub section: Option<&'static str>,
    /// Name of the record within its section.
    pub record: Option<String>,
    /// Position of the record within its section, for unnamed records.
    pub index: Option<usize>,
    pub field: String,
    pub message: String,
}

impl Problem {
    pub fn new(section: Option<&'static str>, field: &str, message: String) -> Self {
        Problem {
            section,
            record: None,
            index: None,
            field: field.into(),
            message,
        }
    }
    pub fn named(section: &'static str, record: &str, field: &str, message: String) -> Self {
        Problem {
            section: Some(section),
            record: Some(record.into()),
            index: None,
            field: field.into(),
            message,
        }
    }
    pub fn indexed(section: &'static str, index: usize, field: &str, message: String) -> Self {
        Problem {
            section: Some(section),
            record: None,
            index: Some(index),
            field: field.into(),
            message,
        }
    }
}

impl std::fmt::Display for Problem {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        if let Some(s) = self.section {
            write!(f, "{s}")?;
            if let Some(r) = &self.record {
                write!(f, "[{r:?}]")?;
            } else if let Some(i) = self.index {
                write!(f, "[{i}]")?;
            }
            write!(f, ", ")?;
        }
        write!(f, "field `{}`: {}", self.field, self.message)
    }
}

fn validate(c: &Character) -> Vec<Problem> {
    let mut out = Vec::new();
    if c.bodies.is_empty() {
        out.push(Problem::new(
            None,
            "bodies",
            "expected at least one body".into(),
        ));
        return out;
    }
    let body = |out: &mut Vec<Problem>, name: &str, field: &str, message: String| {
        out.push(Problem::named("bodies", name, field, message))
    };
    let mut seen = std::collections::HashSet::new();
    for b in &c.bodies {
        if !seen.insert(b.name.as_str()) {
            body(&mut out, &b.name, "name", "body name used twice".into());
        }
        if !(b.mass > 0.0 && b.mass <= MAX_BODY_MASS) {
            body(
                &mut out,
                &b.name,
                "mass",
                format!(
                    "expected a mass in (0, {MAX_BODY_MASS}] kg, found {}",
                    b.mass
                ),
            );
        }
        let dims: Vec<f32> = match b.shape {
            Shape::Capsule {
                radius,
                half_length,
                ..
            } => vec![radius, half_length + radius],
            Shape::Box { half_extents } => half_extents.to_vec(),
            Shape::Ellipsoid { radii } => radii.to_vec(),
        };
        if dims.iter().any(|d| !(*d > 0.0 && *d <= MAX_SIZE)) {
            body(
                &mut out,
                &b.name,
                "shape",
                format!("expected sizes in (0, {MAX_SIZE}] m, found {dims:?}"),
            );
        }
        if let Shape::Capsule { half_length, .. } = b.shape {
            if half_length < 0.0 {
                body(
                    &mut out,
                    &b.name,
                    "shape",
                    "expected half_length >= 0".into(),
                );
            }
        }
        if let Some(i) = b.inertia {
            if i.iter().any(|v| !(*v > 0.0 && *v <= MAX_INERTIA)) {
                body(
                    &mut out,
                    &b.name,
                    "inertia",
                    format!("expected three moments in (0, {MAX_INERTIA}] kg·m², found {i:?}"),
                );
            } else if i[0] + i[1] < i[2] * 0.999
                || i[1] + i[2] < i[0] * 0.999
                || i[0] + i[2] < i[1] * 0.999
            {
                body(
                    &mut out,
                    &b.name,
                    "inertia",
                    format!("moments {i:?} violate the triangle inequality"),
                );
            }
        }
        if b.position.iter().any(|v| !(v.abs() <= MAX_COORDINATE)) {
            body(
                &mut out,
                &b.name,
                "position",
                format!(
                    "expected coordinates within ±{MAX_COORDINATE} m, found {:?}",
                    b.position
                ),
            );
        }
        if b.rotation.iter().any(|v| !(v.abs() <= 360.0)) {
            body(
                &mut out,
                &b.name,
                "rotation",
                format!("expected angles within ±360°, found {:?}", b.rotation),
            );
        }
    }
    if c.body_index(&c.root.body).is_none() {
        out.push(Problem::new(
            Some("root"),
            "body",
            format!("no body named {:?}", c.root.body),
        ));
    }
    let mut parent_of: Vec<Option<usize>> = vec![None; c.bodies.len()];
    let mut joint_names = std::collections::HashSet::new();
    for j in &c.joints {
        let rec = j.name.as_str();
        let push = |out: &mut Vec<Problem>, rec: &str, field: &str, message: String| {
            out.push(Problem::named("joints", rec, field, message))
        };
        if !joint_names.insert(j.name.as_str()) {
            push(&mut out, rec, "name", "joint name used twice".into());
        }
        let p = c.body_index(&j.parent);
        let ch = c.body_index(&j.child);
        if p.is_none() {
            push(
                &mut out,
                rec,
                "parent",
                format!("no body named {:?}", j.parent),
            );
        }
        match ch {
            None => push(
                &mut out,
                rec,
                "child",
                format!("no body named {:?}", j.child),
            ),
            Some(ci) => {
                if j.child == c.root.body {
                    push(
                        &mut out,
                        rec,
                        "child",
                        "the root body cannot be a joint's child".into(),
                    );
                } else if parent_of[ci].is_some() {
                    push(
                        &mut out,
                        rec,
                        "child",
                        format!("body {:?} already has a parent joint: not a tree", j.child),
                    );
                } else {
                    parent_of[ci] = p;
                }
            }
        }
        if j.parent == j.child {
            push(
                &mut out,
                rec,
                "child",
                "a joint must connect two different bodies".into(),
            );
        }
        for (k, a) in j.kind.axes().iter().enumerate() {
            let n = (a[0] * a[0] + a[1] * a[1] + a[2] * a[2]).sqrt();
            if !((n - 1.0).abs() <= 1e-3) {
                push(
                    &mut out,
                    rec,
                    "kind",
                    format!("axis {k} {a:?} is not a unit vector (length {n:.4})"),
                );
            }
        }
        if let JointKind::Universal { axes } = &j.kind {
            let d = axes.0[0] * axes.1[0] + axes.0[1] * axes.1[1] + axes.0[2] * axes.1[2];
            if d.abs() > 1e-3 {
                push(
                    &mut out,
                    rec,
                    "kind",
                    "the two universal-joint axes must be perpendicular".into(),
                );
            }
        }
        if !j.limits.is_empty() && j.limits.len() != j.kind.dof() {
            push(
                &mut out,
                rec,
                "limits",
                format!(
                    "expected {} (min, max) pairs for a {} joint, found {}",
                    j.kind.dof(),
                    j.kind.label(),
                    j.limits.len()
                ),
            );
        }
        for (k, (lo, hi)) in j.limits.iter().enumerate() {
            if !(lo < hi && *lo >= -360.0 && *hi <= 360.0) {
                push(
                    &mut out,
                    rec,
                    "limits",
                    format!(
                        "pair {k}: expected -360 <= min < max <= 360 degrees, found ({lo}, {hi})"
                    ),
                );
            }
        }
        if !(j.kp >= 0.0 && j.kd >= 0.0 && j.kp <= MAX_GAIN && j.kd <= MAX_GAIN) {
            push(
                &mut out,
                rec,
                "kp",
                format!(
                    "expected gains in [0, {MAX_GAIN}], found kp {} kd {}",
                    j.kp, j.kd
                ),
            );
        }
        if !(j.torque_limit >= 0.0 && j.torque_limit <= MAX_TORQUE) {
            push(
                &mut out,
                rec,
                "torque_limit",
                format!(
                    "expected a torque limit in [0, {MAX_TORQUE}] N·m, found {}",
                    j.torque_limit
                ),
            );
        }
        if j.anchor.iter().any(|v| !(v.abs() <= MAX_COORDINATE)) {
            push(
                &mut out,
                rec,
                "anchor",
                format!(
                    "expected coordinates within ±{MAX_COORDINATE} m, found {:?}",
                    j.anchor
                ),
            );
        }
    }
    // Every non-root body must be reached from the root, and there must be no cycles.
    if let Some(root) = c.body_index(&c.root.body) {
        for (i, b) in c.bodies.iter().enumerate() {
            if i == root {
                continue;
            }
            let mut cur = i;
            let mut steps = 0;
            loop {
                match parent_of[cur] {
                    Some(p) if p == root => break,
                    Some(p) => {
                        cur = p;
                        steps += 1;
                        if steps > c.bodies.len() {
                            body(
                                &mut out,
                                &b.name,
                                "name",
                                "joints form a cycle: not a tree".into(),
                            );
                            break;
                        }
                    }
                    None => {
                        body(
                            &mut out,
                            &b.name,
                            "name",
                            format!("body is not connected to the root {:?}", c.root.body),
                        );
                        break;
                    }
                }
            }
        }
    }
    for (i, e) in c.end_effectors.iter().enumerate() {
        if c.body_index(&e.body).is_none() {
            out.push(Problem::indexed(
                "end_effectors",
                i,
                "body",
                format!("no body named {:?}", e.body),
            ));
        }
        if e.point.iter().any(|v| !(v.abs() <= MAX_SIZE)) {
            out.push(Problem::indexed(
                "end_effectors",
                i,
                "point",
                format!(
                    "expected a point within ±{MAX_SIZE} m of the body, found {:?}",
                    e.point
                ),
            ));
        }
    }
    for (i, (l, r)) in c.mirror_pairs.iter().enumerate() {
        for n in [l, r] {
            if c.body_index(n).is_none() {
                out.push(Problem::indexed(
                    "mirror_pairs",
                    i,
                    "body",
                    format!("no body named {n:?}"),
                ));
            }
        }
    }
    out
}

#[cfg(test)]
mod tests;
