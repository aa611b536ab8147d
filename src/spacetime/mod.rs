//! Spacetime control: motions solved whole as sparse constrained nonlinear programs.
//!
//! McIntosh 2011, §3.2.1, Eq. 3.1: minimize f(x) subject to l ≤ (x; c(x)) ≤ u, where x holds every
//! frame's state and forces, c the discretized dynamics and the animation specifiers, and f a
//! weighted sum of objectives (Eq. 3.2). The same machinery serves the cyclic gaits of
//! Wampler 2012, thesis §3.2.4 (sparse Jacobian, bounds, exact derivatives).
//!
//! The NLP machinery is `crate::nlp` (the problem trait, automatic differentiation, the IPOPT
//! back end), re-exported here under the names the solver uses; the CEC 2006 benchmark is
//! `crate::optim::cec2006`.
//!
//! - [`creature`]: the solver's creature built from a character (`crate::model`).
//! - `basin_cma` (feature `ipopt`): basin-CMA, CMA-ES over samples projected by local solves
//!   (Wampler 2012, thesis §3.3.2), with per-variable roles (CMA-only, both, local-only).
//! - [`discovery`]: gait discovery, basin-CMA over the contact timings (thesis §3.3).
//! - [`gait`]: cyclic "treadmill" gaits with fixed contact timings (thesis §3.2, Eqs
//!   3.2–3.17), their NLP, the staged solve (L-BFGS, then the exact Hessian) and the
//!   independent physics audit.
//! - [`job`]: the gait job, a typed request run with typed events: the timing (given, a clip's
//!   or discovered), warm starts, the staged solve, the audit; what the CLI, the Gait panel and
//!   the tests call.
//! - [`morphology`]: limb lengths and radii as gait variables, and the muscle-aware effort
//!   (thesis §3.4, Eqs 3.26–3.33).
//! - [`particle`]: the Spacetime Particle of McIntosh 2011 (Table 3.1, Eqs 3.5–3.9), the reference
//!   test.

#[cfg(feature = "ipopt")]
pub mod basin_cma;
pub mod creature;
pub mod discovery;
pub mod dynamics;
pub mod gait;
pub mod job;
pub mod morphology;
pub mod particle;
pub mod rotation;
pub mod skeleton;

#[cfg(test)]
pub(crate) mod tests;

// The NLP machinery lives in `crate::nlp`; the solver's modules reach it through these names.
#[cfg(feature = "ipopt")]
pub use crate::nlp::solve;
pub use crate::nlp::{self, autodiff, tape};
pub use crate::nlp::{AutoDiff, BlockProblem, BlockSpec, Curvature, Scalar, TermSpec};
pub use crate::nlp::{
    EvalError, HessianMode, Iterate, NlpError, NlpProblem, NlpSolution, OptionValue, SolveStatus,
    SolverOptions,
};
pub use particle::ParticleSpec;
#[cfg(feature = "ipopt")]
pub use particle::{ParticleSolution, solve_particle};
