//! A simulated body from any skinned skeleton: the automatic articulated rigid body system
//! (ARBS) of Keys-to-Sim (Borer et al. 2018, §4.1–4.2) and the transfer of the skeleton's
//! keyframes onto it by full-body inverse kinematics (§3, §4.3), into a kinematic clip.
//!
//! - [`Skeleton`] (`skeleton.rs`): the kinematic skeleton (KS) of a file, in the project's frame
//!   (y up, x forward, z lateral with the left at z < 0, metres): joints with parents and rest
//!   transforms, skin samples, animations as per-frame world transforms. Read from glTF/GLB
//!   (`gltf_load.rs`, `gltf_data.rs`) and BVH (`bvh_load.rs`); bad files give an [`ArbsError`]
//!   naming the file and what is wrong, never a panic.
//! - [`build_character`] (`build.rs`; `skin_fit.rs`, `axes.rs`, `feet.rs`, `names.rs`): one
//!   capsule body per non-leaf KS joint (optionally per leaf the skin binds to), hinge joints
//!   whose axes follow §4.2's cross-product rule (or, for joints that turn in the animations,
//!   their axis of largest rotation), masses
//!   from a uniform density, end effectors and feet pads, generic part names and mirror pairs;
//!   the [`ArbsMap`] says which KS joint every body and end effector came from.
//! - [`transfer`] (`transfer.rs`): per frame, damped least squares over the root pose and every
//!   hinge angle so that the character's joints and end points follow the KS joints, written
//!   as a [`crate::clip::Clip`].
//! - [`retarget`] (`retarget.rs`): the same transfer onto a character of the project that was
//!   not built from the skeleton (motion capture onto human3d), its joints matched by part name
//!   and the skeleton scaled to the character's legs.

mod axes;
mod build;
mod bvh_load;
mod feet;
mod gltf_animation;
mod gltf_data;
mod gltf_load;
mod masses;
mod names;
mod retarget;
mod skeleton;
mod skin_fit;
mod source;
mod transfer;

pub use axes::{AxisRule, AxisSource, MIN_MOTION, hinge_axis};
pub use build::{ArbsMap, ArbsOptions, DEFAULT_LIMITS, MappedPoint, MassRule, build_character};
pub use retarget::{Retarget, retarget};
pub use skeleton::{
    Animation, Forward, JointPose, KsJoint, LoadOptions, MAX_FILE_BYTES, MAX_FRAMES, MAX_JOINTS,
    MAX_POSES, Skeleton, SkinSample,
};
pub use skin_fit::RadiusRule;
pub use source::{OpenedCharacter, SourceKind, open_character};
pub use transfer::{ErrorSummary, Transfer, TransferOptions, transfer};

use crate::clip::bvh::BvhError;

/// What went wrong reading a skeleton, building its character or transferring its motion.
/// Every message names the file (or the skeleton's file) and the problem.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum ArbsError {
    /// The file cannot be read or is not a usable skeleton.
    #[error("{path}: {message}")]
    File { path: String, message: String },
    /// A BVH file with a syntax or value error (file:line: message).
    #[error(transparent)]
    Bvh(#[from] BvhError),
    /// The skeleton was read but no character or motion can be made from it.
    #[error("{path}: {message}")]
    Build { path: String, message: String },
}

impl ArbsError {
    pub(crate) fn file(path: &str, message: impl Into<String>) -> Self {
        ArbsError::File {
            path: path.into(),
            message: message.into(),
        }
    }

    pub(crate) fn build(path: &str, message: impl Into<String>) -> Self {
        ArbsError::Build {
            path: path.into(),
            message: message.into(),
        }
    }
}

#[cfg(test)]
mod tests;
#[cfg(test)]
mod tests_files;
#[cfg(test)]
mod tests_standing;
