//! Walk to a task and step into it: footstep planning with sub-steps (Agrawal 2016, "Synthesis
//! of task-based locomotion", thesis ch. 5). Bevy-free.
//!
//! - [`step`]: the step vocabulary (seven tags, phases, the step record of Eq. 5.1).

//! - [`marker`]: tasks (location, facing, category, effort) and task files.
//! - [`library`]: entry and exit templates (Table 5.1), k-d tree retrieval and coupled
//!   selection (§5.3.2).
//! - [`objective`], [`optimize`]: the footstep objective (Eqs. 5.11–5.16, Table 5.2) and BFGS.
//! - [`plan`]: Algorithm 2 with its shortcut cases and the enter preparation.

pub mod library;
pub mod marker;
pub mod objective;
pub mod optimize;
pub mod plan;
pub mod step;

#[cfg(test)]
mod tests;

pub use library::{Library, StepTemplate};
pub use marker::{Effort, TaskCategory, TaskMarker, TaskSequence};
pub use plan::{FootstepPlan, PlannedStep, Route, TaskReport, plan};
pub use step::{Foot, Footstep, Phase, StepRecord, StepTag};
