//! The structure tools of Borer et al. 2018, §4.3 ("select new root, delete or merge rigid
//! bodies"): each keeps the joints a tree, listed parent first, and every
//! reference to a body (root, joints, end effectors, mirror pairs, separations, weight-bearing
//! bodies) consistent.
//!
//! - **Set root.** The joints on the path from the old root to the new one turn round: parent
//!   and child swap, anchors and world axes stay, each limit (min, max) becomes (−max, −min) and
//!   each rest angle is negated, since the child's angle relative to the parent is the negative
//!   of the parent's relative to the child. A universal joint also swaps its two axes (and their
//!   limits and rest angles): its inverse turns about the second axis first, which makes the
//!   reversal exact; a ball joint's Euler box has no exact inverse and keeps its order. The
//!   root's `origin` is cleared (the new root's centre of mass).
//! - **Delete.** `Subtree` removes the body and everything below it; `MergeChildrenUp` hangs the
//!   deleted body's child joints from its parent. The root cannot be deleted.
//! - **Merge.** Only bodies joined by a joint merge. `keep` takes both masses, its centre of mass
//!   moves to the combined one, and its shape becomes a box in `keep`'s frame centred on the new
//!   centre of mass that covers both shapes (the smallest such box: the two shapes' bounding box
//!   in that frame, grown to be symmetric about the centre of mass); the inertia is then derived
//!   from that box. The joint between them disappears, `absorb`'s other child joints hang from
//!   `keep` (if `absorb` was `keep`'s parent, `keep` takes over `absorb`'s own joint, or the
//!   root). End effectors on either body keep their world points on `keep`; separations naming
//!   `absorb` name `keep` (dropped if both ends become `keep`), and so does a weight-bearing
//!   `absorb` (once); mirror pairs with `absorb` are dropped (a pair moved onto `keep` would pair
//!   it twice).

use super::edit::{DeleteMode, Rejection};
use super::geometry::{
    add, dir_to_body, dir_to_world, half_width, neg, point_to_body, point_to_world, scale,
};
use crate::model::{Body, Character, Joint, JointKind, Shape};

pub(super) fn set_root(c: &mut Character, body: &str) -> Result<(), Rejection> {
    if c.body_index(body).is_none() {
        return Err(Rejection::NoBody(body.to_string()));
    }
    if c.root.body == body {
        return Ok(());
    }
    let mut path = Vec::new();
    let mut cur = body.to_string();
    while cur != c.root.body {
        let ji = c
            .joints
            .iter()
            .position(|j| j.child == cur)
            .ok_or_else(|| Rejection::NotConnected(cur.clone()))?;
        if path.contains(&ji) {
            return Err(Rejection::Cycle);
        }
        path.push(ji);
        cur = c.joints[ji].parent.clone();
    }
    for ji in path {
        reverse_joint(&mut c.joints[ji]);
    }
    c.root.body = body.to_string();
    c.root.origin = None;
    sort_parent_first(c);
    Ok(())
}

/// Turns a joint round (see the module docs).
fn reverse_joint(j: &mut Joint) {
    std::mem::swap(&mut j.parent, &mut j.child);
    if let JointKind::Universal { axes } = &mut j.kind {
        *axes = (axes.1, axes.0);
        j.limits.reverse();
        j.rest.reverse();
    }
    for l in &mut j.limits {
        *l = (neg(l.1), neg(l.0));
    }
    for r in &mut j.rest {
        *r = neg(*r);
    }
}

pub(super) fn delete_body(
    c: &mut Character,
    body: &str,
    mode: DeleteMode,
) -> Result<(), Rejection> {
    if c.body_index(body).is_none() {
        return Err(Rejection::NoBody(body.to_string()));
    }
    if c.root.body == body {
        return Err(Rejection::DeleteRoot(body.to_string()));
    }
    let removed: Vec<String> = match mode {
        DeleteMode::Subtree => c
            .subtree(body)
            .into_iter()
            .map(|i| c.bodies[i].name.clone())
            .collect(),
        DeleteMode::MergeChildrenUp => {
            let parent = c
                .joint_to(body)
                .ok_or_else(|| Rejection::NoParentJoint(body.to_string()))?
                .parent
                .clone();
            for j in c.joints.iter_mut().filter(|j| j.parent == body) {
                j.parent = parent.clone();
            }
            vec![body.to_string()]
        }
    };
    c.joints.retain(|j| !removed.contains(&j.child));
    c.bodies.retain(|b| !removed.contains(&b.name));
    drop_references(c, &removed);
    sort_parent_first(c);
    Ok(())
}

pub(super) fn merge_bodies(c: &mut Character, keep: &str, absorb: &str) -> Result<(), Rejection> {
    let (Some(ik), Some(ia)) = (c.body_index(keep), c.body_index(absorb)) else {
        let missing = if c.body_index(keep).is_none() {
            keep
        } else {
            absorb
        };
        return Err(Rejection::NoBody(missing.to_string()));
    };
    if keep == absorb {
        return Err(Rejection::MergeWithItself);
    }
    let ji = c
        .joints
        .iter()
        .position(|j| {
            (j.parent == keep && j.child == absorb) || (j.parent == absorb && j.child == keep)
        })
        .ok_or_else(|| Rejection::NotAdjacent {
            keep: keep.to_string(),
            absorb: absorb.to_string(),
        })?;
    let (old_keep, gone) = (c.bodies[ik].clone(), c.bodies[ia].clone());
    let merged = merged_body(&old_keep, &gone);
    // End effectors keep their world points.
    for e in &mut c.end_effectors {
        let from = if e.body == keep {
            &old_keep
        } else if e.body == absorb {
            &gone
        } else {
            continue;
        };
        e.point = point_to_body(&merged, point_to_world(from, e.point));
        e.body = keep.to_string();
    }
    c.bodies[ik] = merged;
    let absorb_was_parent = c.joints[ji].parent == absorb;
    c.joints.remove(ji);
    if absorb_was_parent {
        if c.root.body == absorb {
            c.root.body = keep.to_string();
            c.root.origin = None;
        } else if let Some(j) = c.joints.iter_mut().find(|j| j.child == absorb) {
            j.child = keep.to_string();
        }
    }
    for j in c.joints.iter_mut().filter(|j| j.parent == absorb) {
        j.parent = keep.to_string();
    }
    for s in &mut c.separations {
        for n in [&mut s.a, &mut s.b] {
            if n == absorb {
                *n = keep.to_string();
            }
        }
    }
    for n in &mut c.weight_bearing {
        if n == absorb {
            *n = keep.to_string();
        }
    }
    let mut bearing: Vec<String> = Vec::new();
    c.weight_bearing.retain(|n| {
        let fresh = !bearing.contains(n);
        bearing.push(n.clone());
        fresh
    });
    c.separations.retain(|s| s.a != s.b);
    let mut seen: Vec<(String, String)> = Vec::new();
    c.separations.retain(|s| {
        let key = if s.a <= s.b {
            (s.a.clone(), s.b.clone())
        } else {
            (s.b.clone(), s.a.clone())
        };
        let fresh = !seen.contains(&key);
        seen.push(key);
        fresh
    });
    c.bodies.remove(ia);
    drop_references(c, &[absorb.to_string()]);
    sort_parent_first(c);
    Ok(())
}

/// `keep` after absorbing `absorb` (see the module docs for the shape).
fn merged_body(keep: &Body, absorb: &Body) -> Body {
    let mass = keep.mass + absorb.mass;
    let com = add(
        scale(keep.position, keep.mass / mass),
        scale(absorb.position, absorb.mass / mass),
    );
    let (mut lo, mut hi) = ([f64::INFINITY; 3], [f64::NEG_INFINITY; 3]);
    for b in [keep, absorb] {
        let centre = point_to_body(keep, b.position);
        for k in 0..3 {
            let mut e = [0.0; 3];
            e[k] = 1.0;
            // keep's axis k in b's own frame; the shapes are symmetric about their centres.
            let u = dir_to_body(b, dir_to_world(keep, e));
            let h = half_width(&b.shape, u);
            lo[k] = lo[k].min(centre[k] - h);
            hi[k] = hi[k].max(centre[k] + h);
        }
    }
    let c = point_to_body(keep, com);
    let half = std::array::from_fn(|k| (hi[k] - c[k]).max(c[k] - lo[k]));
    Body {
        name: keep.name.clone(),
        shape: Shape::Box { half_extents: half },
        mass,
        inertia: None,
        position: com,
        rotation: keep.rotation,
    }
}

/// Drops the end effectors, mirror pairs, separations and weight-bearing bodies that name a
/// removed body.
pub(super) fn drop_references(c: &mut Character, removed: &[String]) {
    let gone = |n: &String| removed.contains(n);
    c.end_effectors.retain(|e| !gone(&e.body));
    c.mirror_pairs.retain(|(l, r)| !gone(l) && !gone(r));
    c.separations.retain(|s| !gone(&s.a) && !gone(&s.b));
    c.weight_bearing.retain(|n| !gone(n));
}

/// Reorders the joints so that each comes after the joint of its parent (the order of the
/// simulation's multibody and of [`Character::dof_names`]), otherwise keeping their order: a
/// list already parent first is unchanged. Joints not reached from the root keep their places
/// at the end (validation reports them).
pub(super) fn sort_parent_first(c: &mut Character) {
    let mut reached = vec![c.root.body.clone()];
    let mut rest: Vec<Joint> = std::mem::take(&mut c.joints);
    loop {
        let before = rest.len();
        let mut left = Vec::new();
        for j in rest {
            if reached.contains(&j.parent) && !reached.contains(&j.child) {
                reached.push(j.child.clone());
                c.joints.push(j);
            } else {
                left.push(j);
            }
        }
        rest = left;
        if rest.is_empty() || rest.len() == before {
            break;
        }
    }
    c.joints.extend(rest);
}
