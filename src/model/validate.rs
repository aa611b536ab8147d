//! Validation of characters: the structure (a tree rooted at the root body), every number's
//! physical range, and the problems located by record and field for the loader's line numbers
//! (the bounds are this project's, docs/characters.md "Bad input").

use super::{Character, JointKind, Shape};

/// The heaviest body a character file may give, kg (an elephant's leg is a few hundred).
pub const MAX_BODY_MASS: f64 = 10_000.0;
/// The largest size (radius, half length, half extent) of a body's shape, m.
pub const MAX_SIZE: f64 = 100.0;
/// The largest principal moment of inertia a file may give, kg·m².
pub const MAX_INERTIA: f64 = 1.0e6;
/// How far from the origin a body or joint may be placed in the reference pose, m.
pub const MAX_COORDINATE: f64 = 1_000.0;
/// How far a joint's anchor may lie from the centre of mass of either body it joins: this many
/// times the body's length, plus [`ANCHOR_MARGIN`].
pub const ANCHOR_REACH: f64 = 2.0;
/// See [`ANCHOR_REACH`], m.
pub const ANCHOR_MARGIN: f64 = 0.5;
/// The largest PD gain, N·m/rad or N·m·s/rad.
pub const MAX_GAIN: f64 = 1.0e7;
/// The largest torque limit, N·m.
pub const MAX_TORQUE: f64 = 1.0e7;
/// The largest joint armature, kg·m².
pub const MAX_ARMATURE: f64 = 1.0e3;

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

pub(super) fn validate(c: &Character) -> Vec<Problem> {
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
        let dims: Vec<f64> = match b.shape {
            Shape::Capsule {
                radius,
                half_length,
                ..
            } => vec![radius, half_length + radius],
            Shape::Box { half_extents } => half_extents.to_vec(),
            Shape::Ellipsoid { radii } => radii.to_vec(),
            Shape::Cylinder {
                radius,
                half_length,
                ..
            } => vec![radius, half_length],
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
        for (field, gain) in [("kp", j.kp), ("kd", j.kd)] {
            if let Some(g) = gain
                && !(g >= 0.0 && g <= MAX_GAIN)
            {
                push(
                    &mut out,
                    rec,
                    field,
                    format!("expected a gain in [0, {MAX_GAIN}], found {g}"),
                );
            }
        }
        if let Some(t) = j.torque_limit
            && !(t >= 0.0 && t <= MAX_TORQUE)
        {
            push(
                &mut out,
                rec,
                "torque_limit",
                format!("expected a torque limit in [0, {MAX_TORQUE}] N·m, found {t}"),
            );
        }
        if let Some(a) = j.armature
            && !(a >= 0.0 && a <= MAX_ARMATURE)
        {
            push(
                &mut out,
                rec,
                "armature",
                format!("expected an armature in [0, {MAX_ARMATURE}] kg·m², found {a}"),
            );
        }
        if !j.rest.is_empty() && j.rest.len() != j.kind.dof() {
            push(
                &mut out,
                rec,
                "rest",
                format!(
                    "expected {} angles (one per degree of freedom), found {}",
                    j.kind.dof(),
                    j.rest.len()
                ),
            );
        }
        for (k, v) in j.rest.iter().enumerate() {
            let (lo, hi) = j.limits.get(k).copied().unwrap_or((-360.0, 360.0));
            if !(*v >= lo && *v <= hi) {
                push(
                    &mut out,
                    rec,
                    "rest",
                    format!(
                        "angle {k}: expected a rest angle within ({lo}, {hi}) degrees, found {v}"
                    ),
                );
            }
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
        } else {
            // A joint holds two bodies together: an anchor far outside either body is an
            // invisible lever that no solver integrates stably (a typo such as -900 for -0.09).
            for (side, body) in [("parent", p), ("child", ch)] {
                let Some(b) = body.map(|i| &c.bodies[i]) else {
                    continue;
                };
                let d = (0..3)
                    .map(|k| (j.anchor[k] - b.position[k]).powi(2))
                    .sum::<f64>()
                    .sqrt();
                let reach = ANCHOR_REACH * b.length() + ANCHOR_MARGIN;
                if !(d <= reach) {
                    push(
                        &mut out,
                        rec,
                        "anchor",
                        format!(
                            "expected the anchor within {reach:.3} m of its {side} `{}` (twice its length plus {ANCHOR_MARGIN} m), found {d:.3} m",
                            b.name
                        ),
                    );
                }
            }
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
    for (i, s) in c.separations.iter().enumerate() {
        for (field, n) in [("a", &s.a), ("b", &s.b)] {
            if c.body_index(n).is_none() {
                out.push(Problem::indexed(
                    "separations",
                    i,
                    field,
                    format!("no body named {n:?}"),
                ));
            }
        }
        if s.a == s.b {
            out.push(Problem::indexed(
                "separations",
                i,
                "b",
                "expected two different bodies".into(),
            ));
        }
        if !(s.min_distance > 0.0 && s.min_distance <= MAX_SIZE) {
            out.push(Problem::indexed(
                "separations",
                i,
                "min_distance",
                format!(
                    "expected a distance in (0, {MAX_SIZE}] m, found {}",
                    s.min_distance
                ),
            ));
        }
    }
    for n in &c.weight_bearing {
        if c.body_index(n).is_none() {
            out.push(Problem::named(
                "weight_bearing",
                n,
                "weight_bearing",
                format!("no body named {n:?}"),
            ));
        }
    }
    if c.gait.sample_iterations == Some(0) {
        out.push(Problem::new(
            None,
            "gait",
            "sample_iterations: expected at least 1 IPOPT iteration per discovery sample".into(),
        ));
    }
    if let Some(n) = c.gait.starts.filter(|n| !(1..=256).contains(n)) {
        out.push(Problem::new(
            None,
            "gait",
            format!("starts: expected a whole number in [1, 256], found {n}"),
        ));
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
