//! The character editor's model, without Bevy: the editing tools of Borer et al. 2018, §4.3, as
//! [`Edit`]s, an undoable [`Editor`] with a mirror mode, and the physics [`lint`] (issue P7,
//! deliverables 1 and 2: each operation keeps the structure a tree, updates the joint and DoF
//! counts, and is undoable).
//!
//! The editor works on the one character model ([`crate::model::Character`]) in its file
//! conventions: y up, x forward, z lateral (the left side at z < 0), the reference pose in world
//! coordinates, angles in degrees. Every edit addresses bodies and joints by name and keeps every
//! reference consistent (root, joint parents and children, end effectors, mirror pairs,
//! separations); the [`Editor`] accepts an edit only if the result passes
//! [`crate::model::Character::validate`].
//!
//! - `edit`: [`Edit`] and the body and joint tools;
//! - `effector`: end-effector pads on terminal bodies;
//! - `structure`: new root, delete, merge;
//! - `mirror`: reflection of an edit onto the partner body;
//! - `document`: [`Editor`], undo and redo, saving;
//! - `lint`: [`lint`] and [`validation`].

mod document;
mod edit;
mod effector;
mod geometry;
mod lint;
mod mirror;
mod structure;

pub use document::{EditError, Editor};
pub use edit::{DeleteMode, Edit, Rejection};
pub use effector::is_pad;
pub use geometry::volume;
pub use lint::{
    Lint, LintKind, MAX_INERTIA_RATIO, MAX_MASS_RATIO, MAX_OVERLAP, MIN_LIMIT_RANGE,
    TRIANGLE_TOLERANCE, lint, validation,
};

#[cfg(test)]
mod lint_tests;
#[cfg(test)]
mod mirror_tests;
#[cfg(test)]
mod random_tests;
#[cfg(test)]
mod tests;
