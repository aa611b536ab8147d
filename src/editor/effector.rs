//! End-effector pads (Borer et al. 2018, §4.3: "End-effectors: add to a terminal rigid body and
//! change its position and size", "for stable ground contacts").
//!
//! A pad is a small box body, aligned with the world axes, welded by a `Fixed` joint to a
//! terminal body (one without child joints) and carrying an end effector:
//! - **Placement.** A foot pad goes under the sole: its top face is centred below the body's
//!   centre of mass at the body's lowest point. Any other pad goes at the body's far end: the
//!   point of its shape farthest along the direction from its parent joint to its centre of mass
//!   (straight down for a root), hanging below that point when the direction points down, else
//!   sitting on top of it. The weld's anchor is the centre of the attached face.
//! - **Effector.** The pad's end effector is at the centre of its outer face (the sole of a foot
//!   pad). An end effector of the same tag already on the body moves to the pad, so a character
//!   keeps its number of feet and hands; removing the pad gives the body back the pad's end
//!   effectors at the same world points.
//! - **Mass.** The density of the body it is welded to, times the pad's volume; a resized pad
//!   keeps its density and its attached face, and its effector stays at the same relative place.
//! - **Names.** `<body>_pad` (then `_pad2`, …) and its joint `<pad>_weld`, unique.

use super::edit::{Rejection, body_mut};
use super::geometry::{
    add, dir_to_body, norm, point_to_body, point_to_world, scale, sub, support_point, volume,
};
use super::structure::drop_references;
use crate::model::{Character, EffectorTag, EndEffector, Joint, JointKind, Shape};

/// Whether body `name` is an end-effector pad (a box welded to a terminal body, with an end
/// effector): what the pad tools accept.
pub fn is_pad(c: &Character, name: &str) -> bool {
    pad(c, name).is_ok()
}

/// The pad `name` and the index of its weld, or why it is not a pad.
fn pad(c: &Character, name: &str) -> Result<(usize, usize), Rejection> {
    let bi = c
        .body_index(name)
        .ok_or_else(|| Rejection::NoBody(name.to_string()))?;
    let ji = c.joints.iter().position(|j| j.child == name);
    let is_pad = matches!(c.bodies[bi].shape, Shape::Box { .. })
        && ji.is_some_and(|ji| c.joints[ji].kind == JointKind::Fixed)
        && !c.joints.iter().any(|j| j.parent == name)
        && c.end_effectors.iter().any(|e| e.body == name);
    match ji {
        Some(ji) if is_pad => Ok((bi, ji)),
        _ => Err(Rejection::NotAPad(name.to_string())),
    }
}

fn unique(taken: impl Fn(&str) -> bool, base: &str) -> String {
    if !taken(base) {
        return base.to_string();
    }
    (2..)
        .map(|k| format!("{base}{k}"))
        .find(|n| !taken(n))
        .expect("an unused name")
}

/// +1 when the pad sits above its weld's anchor, −1 when it hangs below.
fn side(c: &Character, bi: usize, ji: usize) -> f64 {
    if c.bodies[bi].position[1] >= c.joints[ji].anchor[1] {
        1.0
    } else {
        -1.0
    }
}

pub(super) fn add_pad(
    c: &mut Character,
    body: &str,
    tag: EffectorTag,
    half_extents: [f64; 3],
) -> Result<String, Rejection> {
    let bi = c
        .body_index(body)
        .ok_or_else(|| Rejection::NoBody(body.to_string()))?;
    if let Some(j) = c.joints.iter().find(|j| j.parent == body) {
        return Err(Rejection::NotTerminal {
            body: body.to_string(),
            joint: j.name.clone(),
            child: j.child.clone(),
        });
    }
    if is_pad(c, body) {
        return Err(Rejection::AlreadyAPad(body.to_string()));
    }
    let b = &c.bodies[bi];
    let (attach, s) = if tag == EffectorTag::Foot {
        let bottom = b.vertical_extent().0;
        ([b.position[0], bottom, b.position[2]], -1.0)
    } else {
        let d = c
            .joint_to(body)
            .map(|j| sub(b.position, j.anchor))
            .filter(|d| norm(*d) > 1e-9)
            .map(|d| scale(d, 1.0 / norm(d)))
            .unwrap_or([0.0, -1.0, 0.0]);
        let far = point_to_world(b, support_point(&b.shape, dir_to_body(b, d)));
        (far, if d[1] > 0.0 { 1.0 } else { -1.0 })
    };
    let shape = Shape::Box { half_extents };
    let density = b.mass / volume(&b.shape);
    let name = unique(|n| c.body_index(n).is_some(), &format!("{body}_pad"));
    let joint = unique(
        |n| c.joints.iter().any(|j| j.name == n),
        &format!("{name}_weld"),
    );
    c.bodies.push(crate::model::Body {
        name: name.clone(),
        shape,
        mass: density * volume(&shape),
        inertia: None,
        position: add(attach, [0.0, s * half_extents[1], 0.0]),
        rotation: [0.0; 3],
    });
    c.joints.push(Joint::new(
        joint,
        body,
        name.clone(),
        attach,
        JointKind::Fixed,
    ));
    c.end_effectors
        .retain(|e| !(e.body == body && e.tag == tag));
    c.end_effectors.push(EndEffector {
        body: name.clone(),
        tag,
        point: [0.0, s * half_extents[1], 0.0],
    });
    Ok(name)
}

pub(super) fn move_pad(c: &mut Character, name: &str, position: [f64; 3]) -> Result<(), Rejection> {
    let (bi, ji) = pad(c, name)?;
    let delta = sub(position, c.bodies[bi].position);
    c.bodies[bi].position = position;
    c.joints[ji].anchor = add(c.joints[ji].anchor, delta);
    Ok(())
}

pub(super) fn resize_pad(
    c: &mut Character,
    name: &str,
    half_extents: [f64; 3],
) -> Result<(), Rejection> {
    let (bi, ji) = pad(c, name)?;
    let s = side(c, bi, ji);
    let b = &c.bodies[bi];
    let Shape::Box { half_extents: old } = b.shape else {
        unreachable!("a pad is a box")
    };
    // The attached face (its height) stays.
    let (lo, hi) = b.vertical_extent();
    let face = if s < 0.0 { hi } else { lo };
    let density = b.mass / volume(&b.shape);
    let b = body_mut(c, name)?;
    b.shape = Shape::Box { half_extents };
    b.position[1] = 0.0;
    let (lo0, hi0) = b.vertical_extent();
    b.position[1] = if s < 0.0 { face - hi0 } else { face - lo0 };
    b.mass = density * volume(&b.shape);
    b.inertia = None;
    for e in c.end_effectors.iter_mut().filter(|e| e.body == name) {
        for k in 0..3 {
            if old[k] > 0.0 {
                e.point[k] *= half_extents[k] / old[k];
            }
        }
    }
    Ok(())
}

pub(super) fn remove_pad(c: &mut Character, name: &str) -> Result<(), Rejection> {
    let (bi, ji) = pad(c, name)?;
    let parent = c.joints[ji].parent.clone();
    let pi = c
        .body_index(&parent)
        .ok_or_else(|| Rejection::NoBody(parent.clone()))?;
    let (pad_body, parent_body) = (c.bodies[bi].clone(), c.bodies[pi].clone());
    for e in c.end_effectors.iter_mut().filter(|e| e.body == name) {
        e.point = point_to_body(&parent_body, point_to_world(&pad_body, e.point));
        e.body = parent.clone();
    }
    c.joints.remove(ji);
    c.bodies.remove(bi);
    drop_references(c, &[name.to_string()]);
    Ok(())
}
