//! The editing tools of Keys-to-Sim (Borer et al. 2018, §4.3) as data: one [`Edit`] per
//! tool, addressing bodies and joints by name, and [`apply_edit`], which carries one out on a
//! character. Body and joint edits live here; end-effector pads in `effector`, the structure
//! edits (root, delete, merge) in `structure`. An edit only changes the character; whether the
//! result is a valid model is [`crate::model::Character::validate`]'s to say (the `Editor` runs
//! it), so out-of-range numbers are accepted here and rejected there with its messages.

use super::geometry::volume;
use super::{effector, structure};
use crate::model::{Body, Character, EffectorTag, Joint, JointKind, Shape};
use serde::{Deserialize, Serialize};

/// One editing operation. Positions, anchors and axes are world coordinates of the reference
/// pose; rotations and limits are in degrees, as in the character files.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub enum Edit {
    /// Moves a body's centre of mass; its joints' anchors and the other bodies stay.
    SetBodyPosition { body: String, position: [f64; 3] },
    /// Sets a body's orientation (rotations about x, then y, then z, degrees).
    SetBodyRotation { body: String, rotation: [f64; 3] },
    /// Replaces a body's shape (size); the mass stays and an explicit inertia is dropped, so the
    /// inertia follows the new shape.
    SetBodyShape { body: String, shape: Shape },
    /// Sets a body's mass, kg; an explicit inertia scales with it (same shape, same density
    /// distribution).
    SetBodyMass { body: String, mass: f64 },
    /// Sets the mass from a density, kg/m³: mass = density × shape volume; an explicit inertia is
    /// dropped so it is derived from the shape.
    SetBodyDensity { body: String, density: f64 },
    /// Changes a joint's type or axes. When the number of degrees of freedom changes, the limits
    /// and rest angles (one per degree of freedom) are cleared.
    SetJointKind { joint: String, kind: JointKind },
    /// Moves a joint's centre.
    SetJointAnchor { joint: String, anchor: [f64; 3] },
    /// One `(min, max)` pair in degrees per degree of freedom; empty means unlimited.
    SetJointLimits {
        joint: String,
        limits: Vec<(f64, f64)>,
    },
    /// PD gains and torque limit; `None` means derived ([`Character::gains`]).
    SetJointGains {
        joint: String,
        kp: Option<f64>,
        kd: Option<f64>,
        torque_limit: Option<f64>,
    },
    /// Adds a pad (a small box welded to a terminal body at its far end) carrying an end
    /// effector with `tag`; see `effector` for the placement.
    AddEndEffector {
        body: String,
        tag: EffectorTag,
        half_extents: [f64; 3],
    },
    /// Moves a pad's centre; its weld moves with it.
    MoveEndEffector { body: String, position: [f64; 3] },
    /// Resizes a pad, keeping the face welded to its parent where it is.
    ResizeEndEffector {
        body: String,
        half_extents: [f64; 3],
    },
    /// Removes a pad; its end effectors go back to the parent body at the same world points.
    RemoveEndEffector { body: String },
    /// Makes `body` the root: the joints between the old root and it turn round.
    SetRoot { body: String },
    /// Deletes a body (never the root).
    DeleteBody { body: String, mode: DeleteMode },
    /// Merges two bodies joined by a joint into `keep`; `absorb` disappears.
    MergeBodies { keep: String, absorb: String },
}

/// Why an edit cannot be carried out on a character (before any validation).
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
pub enum Rejection {
    #[error("no body named `{0}`")]
    NoBody(String),
    #[error("no joint named `{0}`")]
    NoJoint(String),
    #[error("body `{0}` is not connected to the root")]
    NotConnected(String),
    #[error("the joints form a cycle: not a tree")]
    Cycle,
    #[error("`{0}` is the root: it cannot be deleted (choose another root first)")]
    DeleteRoot(String),
    #[error("body `{0}` has no parent joint")]
    NoParentJoint(String),
    #[error("a body cannot be merged with itself")]
    MergeWithItself,
    #[error("`{keep}` and `{absorb}` are not joined by a joint: only adjacent bodies merge")]
    NotAdjacent { keep: String, absorb: String },
    #[error(
        "`{0}` is not an end-effector pad (a box welded to a terminal body, with an end effector)"
    )]
    NotAPad(String),
    #[error(
        "`{body}` is not a terminal body (joint `{joint}` hangs `{child}` from it): end effectors go on bodies without children"
    )]
    NotTerminal {
        body: String,
        joint: String,
        child: String,
    },
    #[error("`{0}` is already an end-effector pad")]
    AlreadyAPad(String),
    #[error("`{partner}`, the mirror of `{body}`, has no joint to its parent")]
    MirrorHasNoJoint { partner: String, body: String },
    #[error(
        "joints `{joint}` and `{partner}` have different numbers of degrees of freedom: limits cannot be mirrored"
    )]
    MirrorDofs { joint: String, partner: String },
    #[error("on the mirrored side: {0}")]
    MirroredSide(Box<Rejection>),
}

/// What happens to the bodies below a deleted body.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum DeleteMode {
    /// They are deleted too.
    Subtree,
    /// They stay, hung from the deleted body's parent by their own joints.
    MergeChildrenUp,
}

impl Edit {
    /// The body or joint the edit is about (`keep+absorb` for a merge): with the variant, what
    /// [`super::Editor::apply_coalesced`] compares.
    pub fn subject(&self) -> String {
        match self {
            Edit::SetBodyPosition { body, .. }
            | Edit::SetBodyRotation { body, .. }
            | Edit::SetBodyShape { body, .. }
            | Edit::SetBodyMass { body, .. }
            | Edit::SetBodyDensity { body, .. }
            | Edit::AddEndEffector { body, .. }
            | Edit::MoveEndEffector { body, .. }
            | Edit::ResizeEndEffector { body, .. }
            | Edit::RemoveEndEffector { body }
            | Edit::SetRoot { body }
            | Edit::DeleteBody { body, .. } => body.clone(),
            Edit::SetJointKind { joint, .. }
            | Edit::SetJointAnchor { joint, .. }
            | Edit::SetJointLimits { joint, .. }
            | Edit::SetJointGains { joint, .. } => joint.clone(),
            Edit::MergeBodies { keep, absorb } => format!("{keep}+{absorb}"),
        }
    }

    /// A short name of the tool, for undo menus and messages.
    pub fn label(&self) -> &'static str {
        match self {
            Edit::SetBodyPosition { .. } => "move body",
            Edit::SetBodyRotation { .. } => "rotate body",
            Edit::SetBodyShape { .. } => "resize body",
            Edit::SetBodyMass { .. } => "set mass",
            Edit::SetBodyDensity { .. } => "set density",
            Edit::SetJointKind { .. } => "set joint axes",
            Edit::SetJointAnchor { .. } => "move joint",
            Edit::SetJointLimits { .. } => "set joint limits",
            Edit::SetJointGains { .. } => "set joint gains",
            Edit::AddEndEffector { .. } => "add end effector",
            Edit::MoveEndEffector { .. } => "move end effector",
            Edit::ResizeEndEffector { .. } => "resize end effector",
            Edit::RemoveEndEffector { .. } => "remove end effector",
            Edit::SetRoot { .. } => "set root",
            Edit::DeleteBody { .. } => "delete body",
            Edit::MergeBodies { .. } => "merge bodies",
        }
    }
}

/// Carries out `edit` on `c`. Returns the name of the body it created (a pad), if any, or why it
/// cannot be done (an unknown name, a body that is not terminal, the root deleted, …). The
/// result is not validated here.
pub(super) fn apply_edit(c: &mut Character, edit: &Edit) -> Result<Option<String>, Rejection> {
    match edit {
        Edit::SetBodyPosition { body, position } => body_mut(c, body)?.position = *position,
        Edit::SetBodyRotation { body, rotation } => body_mut(c, body)?.rotation = *rotation,
        Edit::SetBodyShape { body, shape } => {
            let b = body_mut(c, body)?;
            b.shape = *shape;
            b.inertia = None;
        }
        Edit::SetBodyMass { body, mass } => {
            let b = body_mut(c, body)?;
            if let Some(i) = &mut b.inertia
                && b.mass > 0.0
            {
                let k = mass / b.mass;
                *i = i.map(|v| v * k);
            }
            b.mass = *mass;
        }
        Edit::SetBodyDensity { body, density } => {
            let b = body_mut(c, body)?;
            b.mass = density * volume(&b.shape);
            b.inertia = None;
        }
        Edit::SetJointKind { joint, kind } => {
            let j = joint_mut(c, joint)?;
            if kind.dof() != j.kind.dof() {
                j.limits.clear();
                j.rest.clear();
            }
            j.kind = kind.clone();
        }
        Edit::SetJointAnchor { joint, anchor } => joint_mut(c, joint)?.anchor = *anchor,
        Edit::SetJointLimits { joint, limits } => joint_mut(c, joint)?.limits = limits.clone(),
        Edit::SetJointGains {
            joint,
            kp,
            kd,
            torque_limit,
        } => {
            let j = joint_mut(c, joint)?;
            (j.kp, j.kd, j.torque_limit) = (*kp, *kd, *torque_limit);
        }
        Edit::AddEndEffector {
            body,
            tag,
            half_extents,
        } => return effector::add_pad(c, body, *tag, *half_extents).map(Some),
        Edit::MoveEndEffector { body, position } => effector::move_pad(c, body, *position)?,
        Edit::ResizeEndEffector { body, half_extents } => {
            effector::resize_pad(c, body, *half_extents)?
        }
        Edit::RemoveEndEffector { body } => effector::remove_pad(c, body)?,
        Edit::SetRoot { body } => structure::set_root(c, body)?,
        Edit::DeleteBody { body, mode } => structure::delete_body(c, body, *mode)?,
        Edit::MergeBodies { keep, absorb } => structure::merge_bodies(c, keep, absorb)?,
    }
    Ok(None)
}

pub(super) fn body_mut<'a>(c: &'a mut Character, name: &str) -> Result<&'a mut Body, Rejection> {
    c.bodies
        .iter_mut()
        .find(|b| b.name == name)
        .ok_or_else(|| Rejection::NoBody(name.to_string()))
}

pub(super) fn joint_mut<'a>(c: &'a mut Character, name: &str) -> Result<&'a mut Joint, Rejection> {
    c.joints
        .iter_mut()
        .find(|j| j.name == name)
        .ok_or_else(|| Rejection::NoJoint(name.to_string()))
}
