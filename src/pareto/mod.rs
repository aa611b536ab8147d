//! Pareto fronts of jump height against effort (Agrawal 2015, thesis ch. 4): the jump task
//! with its supernatural assist and weighted effort, and the two searches over it, RMOO (the
//! thesis's re-sampled MO-CMA-ES, Algorithm 1) and BSOO (binned single-objective CMA-ES). The
//! multi-objective machinery itself (non-dominated sorting, hypervolume, MO-CMA-ES) lives in
//! [`crate::optim::pareto`].

pub mod assist;
pub mod effort;
pub mod jump;
pub mod run;
pub mod search;

pub use assist::{Assist, NATURAL_GRAVITY};
pub use effort::{EffortError, EffortWeights};
pub use jump::{JumpDef, JumpError, JumpOutcome, JumpTask};
pub use run::{Method, ParetoConfig, ParetoResult, ParetoRun, UnknownMethod, load_result};
pub use search::{FrontPoint, Sample};

#[cfg(test)]
mod tests;
