//! The physics lint of the character editor (issue P7 deliverable 2; the editing tools of
//! Borer et al. 2018, §4.3) and the validation messages it shows next to it.
//!
//! A lint is a warning, not an error: the character is valid, but something in it is likely to
//! simulate badly or to be a mistake.
//! - **Mass ratio**: the two bodies of a joint differ in mass by more than 10:1 (an iterative
//!   constraint solver converges slowly on a light link under a heavy one).
//! - **Narrow limits**: a degree of freedom whose limits leave less than 5° of motion (better a
//!   fixed joint, or a typo).
//! - **Degenerate inertia**: a principal moment (given or derived) not finite or ≤ 0; moments
//!   that violate the triangle inequality I₁ + I₂ ≥ I₃ (no mass distribution has them) beyond a
//!   relative 1e-9; or a largest-to-smallest ratio over 1000 (a needle: stiff to integrate).
//! - **Interpenetration**: two bodies not joined by a joint whose shapes overlap by more than
//!   5 mm in the reference pose. The shapes are the simulation's colliders (an ellipsoid is its
//!   convex hull) placed as the simulation places them, in single precision.

use crate::model::{Character, parse_character};
use rapier3d::math::{Pose, Vector};
use rapier3d::parry::query;
use rapier3d::parry::shape::Shape;
use std::path::Path;

/// Largest parent/child (or child/parent) mass ratio across a joint.
pub const MAX_MASS_RATIO: f64 = 10.0;
/// Smallest range of a joint limit, degrees.
pub const MIN_LIMIT_RANGE: f64 = 5.0;
/// Largest ratio of the largest to the smallest principal moment of inertia.
pub const MAX_INERTIA_RATIO: f64 = 1000.0;
/// Relative tolerance of the triangle inequality of principal moments.
pub const TRIANGLE_TOLERANCE: f64 = 1e-9;
/// Deepest overlap of two bodies not joined by a joint in the reference pose, m.
pub const MAX_OVERLAP: f64 = 0.005;

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum LintKind {
    MassRatio,
    NarrowLimits,
    DegenerateInertia,
    Interpenetration,
}

/// One warning about a character.
#[derive(Clone, Debug, PartialEq)]
pub struct Lint {
    pub kind: LintKind,
    /// The joint (mass ratio, limits) or body (inertia; the first body of an overlapping pair)
    /// the warning is about.
    pub subject: String,
    /// What is wrong, naming the bodies and joints and giving the numbers.
    pub message: String,
}

/// Every lint of `c`: joints in file order (mass ratio, then limits), then bodies (inertia),
/// then overlapping pairs. Names that do not resolve are skipped (validation reports them).
pub fn lint(c: &Character) -> Vec<Lint> {
    let mut out = Vec::new();
    for j in &c.joints {
        let (Some(p), Some(ch)) = (c.body_index(&j.parent), c.body_index(&j.child)) else {
            continue;
        };
        let (mp, mc) = (c.bodies[p].mass, c.bodies[ch].mass);
        let ratio = mp.max(mc) / mp.min(mc);
        // Masses as a person would write them: 23.44, 0.154.
        let (mp, mc) = ((mp * 1e3).round() / 1e3, (mc * 1e3).round() / 1e3);
        if ratio > MAX_MASS_RATIO {
            out.push(Lint {
                kind: LintKind::MassRatio,
                subject: j.name.clone(),
                message: format!(
                    "joint `{}`: parent `{}` ({mp} kg) and child `{}` ({mc} kg) differ in mass {ratio:.1}:1, more than {MAX_MASS_RATIO}:1",
                    j.name, j.parent, j.child
                ),
            });
        }
    }
    for j in &c.joints {
        for (k, &(lo, hi)) in j.limits.iter().enumerate() {
            if hi - lo < MIN_LIMIT_RANGE {
                out.push(Lint {
                    kind: LintKind::NarrowLimits,
                    subject: j.name.clone(),
                    message: format!(
                        "joint `{}`, degree of freedom {k}: limits ({lo}, {hi})° leave {:.2}° of motion, less than {MIN_LIMIT_RANGE}°",
                        j.name,
                        hi - lo
                    ),
                });
            }
        }
    }
    for b in &c.bodies {
        if let Some(why) = inertia_problem(b.principal_inertia()) {
            out.push(Lint {
                kind: LintKind::DegenerateInertia,
                subject: b.name.clone(),
                message: format!(
                    "body `{}`: {} principal moments {:?} kg·m² {why}",
                    b.name,
                    if b.inertia.is_some() {
                        "given"
                    } else {
                        "derived"
                    },
                    b.principal_inertia()
                ),
            });
        }
    }
    out.extend(interpenetrations(c));
    out
}

/// Why principal moments `i` are degenerate, if they are.
fn inertia_problem(i: [f64; 3]) -> Option<String> {
    if i.iter().any(|v| !(v.is_finite() && *v > 0.0)) {
        return Some("include one that is not finite or not positive".into());
    }
    for k in 0..3 {
        let (a, b, c) = (i[(k + 1) % 3], i[(k + 2) % 3], i[k]);
        if a + b < c * (1.0 - TRIANGLE_TOLERANCE) {
            return Some(format!(
                "violate the triangle inequality: {a} + {b} < {c} (no mass distribution has them)"
            ));
        }
    }
    let (lo, hi) = (i[0].min(i[1]).min(i[2]), i[0].max(i[1]).max(i[2]));
    if hi / lo > MAX_INERTIA_RATIO {
        return Some(format!(
            "have a largest-to-smallest ratio of {:.0}, over {MAX_INERTIA_RATIO}",
            hi / lo
        ));
    }
    None
}

/// Pairs of bodies not joined by a joint that overlap by more than [`MAX_OVERLAP`].
fn interpenetrations(c: &Character) -> Vec<Lint> {
    let placed: Vec<_> = c
        .bodies
        .iter()
        .map(|b| {
            let collider = crate::sim::body_collider(b);
            let pose = crate::sim::reference_body_pose(b) * collider.position;
            (pose, collider.shape)
        })
        .collect();
    let joined = |a: &str, b: &str| {
        c.joints
            .iter()
            .any(|j| (j.parent == a && j.child == b) || (j.parent == b && j.child == a))
    };
    let mut out = Vec::new();
    for i in 0..c.bodies.len() {
        for k in i + 1..c.bodies.len() {
            let (a, b) = (&c.bodies[i].name, &c.bodies[k].name);
            if joined(a, b) {
                continue;
            }
            let ((pa, sa), (pb, sb)) = (&placed[i], &placed[k]);
            let Some(depth) = overlap(pa, &**sa, pb, &**sb) else {
                continue;
            };
            if depth > MAX_OVERLAP {
                out.push(Lint {
                    kind: LintKind::Interpenetration,
                    subject: a.clone(),
                    message: if depth.is_finite() {
                        format!(
                            "bodies `{a}` and `{b}` overlap by {:.1} mm in the reference pose (more than {} mm), and no joint joins them",
                            depth * 1e3,
                            MAX_OVERLAP * 1e3
                        )
                    } else {
                        format!(
                            "bodies `{a}` and `{b}` overlap in the reference pose, and no joint joins them"
                        )
                    },
                });
            }
        }
    }
    out
}

/// How deep two placed shapes overlap, m (`None` when apart). Coincident shapes are a degenerate
/// case of the penetration solver (EPA), which then reports a contact at distance zero (or
/// none): the second shape is nudged by a tenth of a millimetre and the solver asked again. An
/// intersection whose depth is never found counts as infinitely deep; one only ever found at
/// distance zero, as touching.
fn overlap(pa: &Pose, sa: &dyn Shape, pb: &Pose, sb: &dyn Shape) -> Option<f64> {
    if !query::intersection_test(pa, sa, pb, sb).unwrap_or(false) {
        return None;
    }
    let mut touching = false;
    for k in 0..4 {
        let nudge = Vector::new(1.0e-4, 0.7e-4, 0.3e-4) * k as f32;
        let pb = Pose::from_translation(nudge) * *pb;
        if let Ok(Some(c)) = query::contact(pa, sa, &pb, sb, 0.0) {
            if c.dist < 0.0 {
                return Some(-f64::from(c.dist));
            }
            touching = true;
        }
    }
    Some(if touching { 0.0 } else { f64::INFINITY })
}

/// The problems [`Character::validate`] finds in `c`, one line each, worded as `motionlab
/// check` prints them for a file (`path:line: section["record"], field `f`: message`, without
/// the `error: ` it puts before the first): the line is that of the text `save_character` would
/// write to `path`. Empty for a valid character.
pub fn validation(c: &Character, path: &Path) -> Vec<String> {
    let text = match crate::model::character_text(c) {
        Ok(text) => text,
        Err(e) => return vec![format!("{}: cannot write: {e}", path.display())],
    };
    match parse_character(&text, path) {
        Ok(_) => Vec::new(),
        Err(e) => e.to_string().lines().map(String::from).collect(),
    }
}
