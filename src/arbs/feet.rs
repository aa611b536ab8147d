//! Feet pads of an automatic ARBS: "end-effectors for stable ground contacts" (Borer et al.
//! 2018, §4.3, the edits the paper's users made by hand), so that the character stands.
//!
//! A foot (a leaf body tagged Foot) gets a thin box welded under it by a `Fixed` joint, named
//! `<foot>_pad`, its end effector at the centre of its bottom face. The box is horizontal:
//! - **Heading** u: the horizontal part of the foot group's span (below) when it is at least a
//!   quarter of the span, else the character's forward axis x; w = u × y is across the foot.
//! - **Footprint**: the foot group is the foot body and up to two ancestors whose capsules
//!   reach within max(2r, 5 % of the height) of the foot's bottom (a heel and an ankle lying on
//!   the ground). The footprint is the (u, w) bounding box of the group's capsules, grown to
//!   the skin's sole when the skeleton has skin: the vertices bound most to the group's joints
//!   or their leaf children, within max(r, 2 % of the height) of their lowest one (at least 8
//!   of them). Without skin the pad is at least 0.4 times as wide as it is long.
//! - **Height**: the top overlaps the group's lowest capsule point by r/4 (the character does
//!   not collide with itself); the bottom is max(r/2, 1 % of the height) below that point, or
//!   at the sole when the skin reaches lower, so that no capsule touches the ground while the
//!   pads stand on it (the simulator counts any other contact as a fall). Pads whose bottoms
//!   are within 3 % of the height of the lowest pad's are extended down to it: the feet of the
//!   rest pose stand on one ground.

use super::build::Segment;
use super::skeleton::Skeleton;
use nalgebra::{Rotation3, Vector3};

/// A pad to weld under a foot body.
#[derive(Clone, Debug)]
pub(super) struct Pad {
    /// The foot body (index of its segment).
    pub foot: usize,
    pub center: Vector3<f64>,
    /// Frame: x along the heading u, y up, z across (w).
    pub rotation: Rotation3<f64>,
    pub half: [f64; 3],
}

impl Pad {
    pub fn volume(&self) -> f64 {
        8.0 * self.half[0] * self.half[1] * self.half[2]
    }
}

/// A pad being planned: the bounds along u, w and y.
struct Plan {
    foot: usize,
    u: Vector3<f64>,
    w: Vector3<f64>,
    along: (f64, f64),
    across: (f64, f64),
    top: f64,
    bottom: f64,
}

/// Pads for the foot bodies `feet` (segment indices).
pub(super) fn plan(
    ks: &Skeleton,
    segs: &[Segment],
    parent_body: &[Option<usize>],
    children: &[Vec<usize>],
    feet: &[usize],
    height: f64,
) -> Vec<Pad> {
    let mut plans: Vec<Plan> = feet
        .iter()
        .map(|&f| plan_one(ks, segs, parent_body, children, f, height))
        .collect();
    let ground = plans.iter().map(|p| p.bottom).fold(f64::INFINITY, f64::min);
    for p in &mut plans {
        if p.bottom - ground <= 0.03 * height {
            p.bottom = ground;
        }
    }
    plans
        .into_iter()
        .map(|p| {
            let uc = (p.along.0 + p.along.1) / 2.0;
            let wc = (p.across.0 + p.across.1) / 2.0;
            let yc = (p.top + p.bottom) / 2.0;
            Pad {
                foot: p.foot,
                center: p.u * uc + p.w * wc + Vector3::y() * yc,
                rotation: Rotation3::from_basis_unchecked(&[p.u, Vector3::y(), p.w]),
                half: [
                    (p.along.1 - p.along.0) / 2.0,
                    (p.top - p.bottom) / 2.0,
                    (p.across.1 - p.across.0) / 2.0,
                ],
            }
        })
        .collect()
}

fn plan_one(
    ks: &Skeleton,
    segs: &[Segment],
    parent_body: &[Option<usize>],
    children: &[Vec<usize>],
    foot: usize,
    height: f64,
) -> Plan {
    let r = segs[foot].radius;
    let band = (2.0 * r).max(0.05 * height);
    let mut group = vec![foot];
    let mut cur = foot;
    while group.len() < 3 {
        match parent_body[cur] {
            Some(p) if segs[p].bottom() <= segs[foot].bottom() + band => {
                group.push(p);
                cur = p;
            }
            _ => break,
        }
    }
    let top_seg = &segs[*group.last().expect("the foot")];
    let span = segs[foot].b - top_seg.a;
    let horizontal = Vector3::new(span.x, 0.0, span.z);
    let u = if horizontal.norm() >= 0.25 * span.norm() && horizontal.norm() > 1e-9 {
        horizontal.normalize()
    } else {
        Vector3::x()
    };
    let w = u.cross(&Vector3::y());
    let mut along = (f64::INFINITY, f64::NEG_INFINITY);
    let mut across = (f64::INFINITY, f64::NEG_INFINITY);
    let mut grow = |x: Vector3<f64>, margin: f64| {
        along = (
            along.0.min(x.dot(&u) - margin),
            along.1.max(x.dot(&u) + margin),
        );
        across = (
            across.0.min(x.dot(&w) - margin),
            across.1.max(x.dot(&w) + margin),
        );
    };
    for &g in &group {
        grow(segs[g].a, segs[g].radius);
        grow(segs[g].b, segs[g].radius);
    }
    let capsule_bottom = group
        .iter()
        .map(|&g| segs[g].bottom())
        .fold(f64::INFINITY, f64::min);
    // The sole, from the skin.
    let joints: Vec<usize> = group
        .iter()
        .flat_map(|&g| {
            let j = segs[g].joint;
            std::iter::once(j).chain(
                children[j]
                    .iter()
                    .copied()
                    .filter(|&c| children[c].is_empty()),
            )
        })
        .collect();
    let bound: Vec<Vector3<f64>> = ks
        .skin
        .iter()
        .filter(|s| joints.contains(&s.dominant()))
        .map(|s| Vector3::from(s.position))
        .collect();
    let lowest = bound.iter().map(|x| x.y).fold(f64::INFINITY, f64::min);
    let sole: Vec<&Vector3<f64>> = bound
        .iter()
        .filter(|x| x.y <= lowest + r.max(0.02 * height))
        .collect();
    let has_sole = sole.len() >= 8;
    if has_sole {
        for x in &sole {
            grow(**x, 0.0);
        }
    } else {
        let length = along.1 - along.0;
        let width = across.1 - across.0;
        if width < 0.4 * length {
            let mid = (across.0 + across.1) / 2.0;
            across = (mid - 0.2 * length, mid + 0.2 * length);
        }
    }
    let top = capsule_bottom + 0.25 * r;
    let mut bottom = capsule_bottom - (0.5 * r).max(0.01 * height);
    if has_sole {
        bottom = bottom.min(lowest);
    }
    Plan {
        foot,
        u,
        w,
        along,
        across,
        top,
        bottom,
    }
}
