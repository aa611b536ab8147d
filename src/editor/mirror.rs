//! The mirror mode of the editor (on the editing tools of Borer et al. 2018, §4.3):
//! an edit on one side of a character, reflected across the sagittal plane z = 0 onto the
//! partner named by `mirror_pairs`.
//!
//! - A body edit's subject is the body; a joint's is its child body (the joint of the partner is
//!   the partner's joint to its parent); a pad's is the pad (pads added in mirror mode are paired).
//!   A merge is mirrored when the absorbed body has a partner (`keep` maps to its partner, or to
//!   itself on the midline). Setting the root is never mirrored; a subject without a partner (on
//!   the midline) is edited once.
//! - Points (positions, anchors) reflect as (x, y, z) → (x, y, −z); an orientation's Euler angles
//!   as (a, b, c) → (−a, −b, c) (the reflected body); shapes, masses, densities, gains and tags
//!   are unchanged.
//! - A rotation axis is an axial vector: a → a′ = (−aₓ, −a_y, a_z). Where the partner's current
//!   axis is closer to −a′ than to a′ the partner keeps its sign: its axis becomes −a′ and a
//!   mirrored limit (min, max) becomes (−max, −min). Files keep their authors' conventions: in
//!   human3d both knees turn about (0, 0, 1) with the same limits, and so they stay.

use super::edit::{Edit, Rejection};
use super::geometry::{dot, mirror_axis, mirror_point, mirror_rotation, neg};
use crate::model::{Character, JointKind};

/// The partner of `body` in `mirror_pairs`, if any.
pub(super) fn partner(c: &Character, body: &str) -> Option<String> {
    c.mirror_pairs.iter().find_map(|(l, r)| {
        if l == body {
            Some(r.clone())
        } else if r == body {
            Some(l.clone())
        } else {
            None
        }
    })
}

/// The partner of joint `joint` (the joint above its child's partner), if its child has one.
fn partner_joint(c: &Character, joint: &str) -> Result<Option<String>, Rejection> {
    let Some(j) = c.joints.iter().find(|j| j.name == joint) else {
        return Ok(None); // the edit itself reports the unknown name
    };
    let Some(p) = partner(c, &j.child) else {
        return Ok(None);
    };
    c.joint_to(&p)
        .map(|pj| Some(pj.name.clone()))
        .ok_or_else(|| Rejection::MirrorHasNoJoint {
            partner: p.clone(),
            body: j.child.clone(),
        })
}

/// The edit mirrored onto the partner of its subject, computed on `c` before the edit; `None`
/// when the subject is on the midline (or the edit is never mirrored).
pub(super) fn mirrored(c: &Character, edit: &Edit) -> Result<Option<Edit>, Rejection> {
    let body = |b: &str| partner(c, b);
    Ok(match edit {
        Edit::SetBodyPosition { body: b, position } => body(b).map(|p| Edit::SetBodyPosition {
            body: p,
            position: mirror_point(*position),
        }),
        Edit::SetBodyRotation { body: b, rotation } => body(b).map(|p| Edit::SetBodyRotation {
            body: p,
            rotation: mirror_rotation(*rotation),
        }),
        Edit::SetBodyShape { body: b, shape } => body(b).map(|p| Edit::SetBodyShape {
            body: p,
            shape: *shape,
        }),
        Edit::SetBodyMass { body: b, mass } => body(b).map(|p| Edit::SetBodyMass {
            body: p,
            mass: *mass,
        }),
        Edit::SetBodyDensity { body: b, density } => body(b).map(|p| Edit::SetBodyDensity {
            body: p,
            density: *density,
        }),
        Edit::SetJointKind { joint, kind } => match partner_joint(c, joint)? {
            None => None,
            Some(pj) => {
                let current = joint_kind(c, &pj);
                Some(Edit::SetJointKind {
                    kind: mirror_kind(kind, &current),
                    joint: pj,
                })
            }
        },
        Edit::SetJointAnchor { joint, anchor } => {
            partner_joint(c, joint)?.map(|pj| Edit::SetJointAnchor {
                joint: pj,
                anchor: mirror_point(*anchor),
            })
        }
        Edit::SetJointLimits { joint, limits } => match partner_joint(c, joint)? {
            None => None,
            Some(pj) => {
                let (mine, theirs) = (joint_kind(c, joint).axes(), joint_kind(c, &pj).axes());
                if mine.len() != theirs.len() {
                    return Err(Rejection::MirrorDofs {
                        joint: joint.clone(),
                        partner: pj,
                    });
                }
                let limits = limits
                    .iter()
                    .enumerate()
                    .map(|(k, &(lo, hi))| match (mine.get(k), theirs.get(k)) {
                        (Some(a), Some(p)) if dot(*p, mirror_axis(*a)) < 0.0 => (neg(hi), neg(lo)),
                        _ => (lo, hi),
                    })
                    .collect();
                Some(Edit::SetJointLimits { joint: pj, limits })
            }
        },
        Edit::SetJointGains {
            joint,
            kp,
            kd,
            torque_limit,
        } => partner_joint(c, joint)?.map(|pj| Edit::SetJointGains {
            joint: pj,
            kp: *kp,
            kd: *kd,
            torque_limit: *torque_limit,
        }),
        Edit::AddEndEffector {
            body: b,
            tag,
            half_extents,
        } => body(b).map(|p| Edit::AddEndEffector {
            body: p,
            tag: *tag,
            half_extents: *half_extents,
        }),
        Edit::MoveEndEffector { body: b, position } => body(b).map(|p| Edit::MoveEndEffector {
            body: p,
            position: mirror_point(*position),
        }),
        Edit::ResizeEndEffector {
            body: b,
            half_extents,
        } => body(b).map(|p| Edit::ResizeEndEffector {
            body: p,
            half_extents: *half_extents,
        }),
        Edit::RemoveEndEffector { body: b } => body(b).map(|p| Edit::RemoveEndEffector { body: p }),
        Edit::SetRoot { .. } => None,
        Edit::DeleteBody { body: b, mode } => body(b).map(|p| Edit::DeleteBody {
            body: p,
            mode: *mode,
        }),
        Edit::MergeBodies { keep, absorb } => body(absorb).map(|pa| Edit::MergeBodies {
            keep: body(keep).unwrap_or_else(|| keep.clone()),
            absorb: pa,
        }),
    })
}

fn joint_kind(c: &Character, joint: &str) -> JointKind {
    c.joints
        .iter()
        .find(|j| j.name == joint)
        .map(|j| j.kind.clone())
        .unwrap_or(JointKind::Fixed)
}

/// `kind` reflected, each axis signed like the partner's `current` axis (module docs).
fn mirror_kind(kind: &JointKind, current: &JointKind) -> JointKind {
    let theirs = current.axes();
    let reflect = |a: [f64; 3], k: usize| {
        let m = mirror_axis(a);
        match theirs.get(k) {
            Some(p) if dot(*p, m) < 0.0 => m.map(neg),
            _ => m,
        }
    };
    match kind {
        JointKind::Hinge { axis } => JointKind::Hinge {
            axis: reflect(*axis, 0),
        },
        JointKind::Universal { axes } => JointKind::Universal {
            axes: (reflect(axes.0, 0), reflect(axes.1, 1)),
        },
        JointKind::Ball | JointKind::Fixed => kind.clone(),
    }
}
