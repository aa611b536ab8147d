//! Walk to a task and step into it: footstep planning with sub-steps (Agrawal 2016, "Synthesis
//! of task-based locomotion", thesis ch. 5). Bevy-free.
//!
//! - [`step`]: the step vocabulary (seven tags, phases, the step record of Eq. 5.1).
//! - [`segment`]: any clip cut into tagged steps with their phases.
//! - [`marker`]: tasks (location, facing, category, effort) and task files.
//! - [`library`]: entry and exit templates (Table 5.1), k-d tree retrieval and coupled
//!   selection (§5.3.2).
//! - [`captured`]: templates cut from clips (solved or motion capture) and template files.
//! - [`objective`], [`optimize`]: the footstep objective (Eqs. 5.11–5.16, Table 5.2) and BFGS.
//! - [`plan`]: Algorithm 2 with its shortcut cases and the enter preparation.
//! - [`source`], [`body`]: the example motion and the full body warped from it (§5.5).

pub mod body;
pub mod body_quality;
mod body_segments;
pub mod captured;
pub mod library;
pub mod marker;
pub mod objective;
pub mod optimize;
pub mod plan;
pub mod segment;
pub mod source;
pub mod step;

#[cfg(test)]
mod body_tests;
#[cfg(test)]
mod captured_tests;
#[cfg(test)]
mod span_tests;
#[cfg(test)]
mod tests;

pub use library::{Library, StepTemplate};
pub use marker::{Effort, TaskCategory, TaskMarker, TaskSequence};
pub use plan::{FootstepPlan, PlannedStep, Route, TaskReport, plan};
pub use step::{Foot, Footstep, Phase, StepRecord, StepTag};
