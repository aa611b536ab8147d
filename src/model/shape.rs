//! Link-length variation for shape diversity (Agrawal et al. 2014, §5 "Shape Parameterization").
//!
//! Each link's length scales as L′ = r·L₀ with 0.4 ≤ r ≤ 2.5 and L′ ≥ 0.03 m; link mass stays
//! constant (a longer link is less dense) and the inertia is recomputed from the new geometry
//! with the same mass. A link is stretched along its long axis about the joint to its parent
//! (the root about its own centre); everything below it moves with its joints, so the tree and
//! the joint axes are unchanged.

use super::{Character, Shape, rotate};

/// Range of the length ratio r.
pub const RATIO_RANGE: (f64, f64) = (0.4, 2.5);
/// Shortest link after scaling, m.
pub const MIN_LENGTH: f64 = 0.03;

/// Index of the long axis of a shape (its own frame).
fn long_axis(shape: &Shape) -> usize {
    match *shape {
        Shape::Capsule { axis, .. } | Shape::Cylinder { axis, .. } => axis.index(),
        Shape::Box { half_extents: h } => argmax(h),
        Shape::Ellipsoid { radii } => argmax(radii),
    }
}

fn argmax(v: [f64; 3]) -> usize {
    if v[0] >= v[1] && v[0] >= v[2] {
        0
    } else if v[1] >= v[2] {
        1
    } else {
        2
    }
}

/// Returns a copy of `c` with body `i`'s length scaled by `r` (clamped to [`RATIO_RANGE`] and
/// [`MIN_LENGTH`]). Unknown indices leave the character unchanged.
pub fn scale_link(c: &Character, i: usize, r: f64) -> Character {
    let mut out = c.clone();
    let Some(b) = c.bodies.get(i) else { return out };
    let r = r.clamp(RATIO_RANGE.0, RATIO_RANGE.1);
    let l0 = b.length();
    let r = if l0 * r < MIN_LENGTH {
        (MIN_LENGTH / l0).min(1.0).max(r)
    } else {
        r
    };
    if r == 1.0 {
        // Exactly the input shape: recomputing the geometry would change it by rounding, and a
        // seed motion on the edge of its constraints must stay bit-identical in shape mode.
        return out;
    }
    let ax = long_axis(&b.shape);
    let mut local = [0.0; 3];
    local[ax] = 1.0;
    let u = rotate(b.orientation(), local);
    // Pivot: the joint to the parent, or the body centre for the root.
    let pivot = c
        .joints
        .iter()
        .find(|j| j.child == b.name)
        .map(|j| j.anchor)
        .unwrap_or(b.position);
    let stretch = |p: [f64; 3]| -> [f64; 3] {
        let d = [p[0] - pivot[0], p[1] - pivot[1], p[2] - pivot[2]];
        let along = d[0] * u[0] + d[1] * u[1] + d[2] * u[2];
        let k = (r - 1.0) * along;
        [p[0] + k * u[0], p[1] + k * u[1], p[2] + k * u[2]]
    };
    // Scale the shape along its long axis.
    let nb = &mut out.bodies[i];
    match &mut nb.shape {
        Shape::Capsule {
            radius,
            half_length,
            ..
        } => {
            // Total length 2(h + ρ) scales by r; the radius is kept unless the link gets shorter
            // than its diameter.
            let total = 2.0 * (*half_length + *radius) * r;
            *radius = radius.min(total / 2.0);
            *half_length = (total / 2.0 - *radius).max(0.0);
        }
        Shape::Cylinder { half_length, .. } => *half_length *= r,
        Shape::Box { half_extents } => half_extents[ax] *= r,
        Shape::Ellipsoid { radii } => radii[ax] *= r,
    }
    nb.inertia = None;
    nb.position = stretch(b.position);
    // Move every descendant by the displacement of the joint that connects it to this body.
    let mut moved: Vec<(usize, [f64; 3])> = Vec::new();
    for (ji, j) in c.joints.iter().enumerate() {
        if j.parent == b.name {
            let a2 = stretch(j.anchor);
            let delta = [
                a2[0] - j.anchor[0],
                a2[1] - j.anchor[1],
                a2[2] - j.anchor[2],
            ];
            moved.push((ji, delta));
        }
    }
    for (ji, delta) in moved {
        let child = &c.joints[ji].child;
        out.joints[ji].anchor = add(c.joints[ji].anchor, delta);
        translate_subtree(c, &mut out, child, delta);
    }
    out
}

fn add(a: [f64; 3], b: [f64; 3]) -> [f64; 3] {
    [a[0] + b[0], a[1] + b[1], a[2] + b[2]]
}

fn translate_subtree(c: &Character, out: &mut Character, body: &str, delta: [f64; 3]) {
    if let Some(bi) = c.body_index(body) {
        out.bodies[bi].position = add(out.bodies[bi].position, delta);
    }
    for (ji, j) in c.joints.iter().enumerate() {
        if j.parent == body {
            out.joints[ji].anchor = add(out.joints[ji].anchor, delta);
            translate_subtree(c, out, &j.child.clone(), delta);
        }
    }
}

/// Applies one ratio per group of body names (a symmetric pair shares a ratio).
pub fn scale_links(c: &Character, groups: &[Vec<String>], ratios: &[f64]) -> Character {
    let mut out = c.clone();
    for (g, &r) in groups.iter().zip(ratios) {
        for name in g {
            if let Some(i) = out.body_index(name) {
                out = scale_link(&out, i, r);
            }
        }
    }
    out
}

/// Link lengths in body order (the shape distance compares these, weights 1).
pub fn link_lengths(c: &Character) -> Vec<f64> {
    c.bodies.iter().map(|b| b.length()).collect()
}
