//! motionlab: a workbench for physics-based character animation.
//!
//! Layering (docs/jobs-and-files.md, "Source layout"): [`model`] → [`sim`] / [`control`] → [`jobs`] and
//! [`analysis`] → `app` (Bevy, behind the `gui` feature). The science modules never depend on Bevy.

pub mod analysis;
pub mod arbs;
#[cfg(feature = "ipopt")]
pub mod blas;
pub mod clip;
pub mod cluster;
pub mod control;
pub mod diversity;
/// The character editor's model (no Bevy): edits, undo, mirror mode, physics lint.
pub mod editor;
pub mod files;
pub mod footsteps;
pub mod job_folder;
pub mod jobs;
pub mod learn;
pub mod model;
pub mod motion_graph;
pub mod nlp;
pub mod optim;
pub mod pareto;
pub mod scene;
pub mod sim;
pub mod space;
pub mod spacetime;
pub mod steering;
pub mod synthesis;
pub mod task;
pub mod track;
pub mod untrusted;

#[cfg(feature = "gui")]
pub mod app;

/// Version string recorded in every result (crate version and, when built from git, the commit).
pub fn code_version() -> String {
    format!("motionlab {}", env!("CARGO_PKG_VERSION"))
}
