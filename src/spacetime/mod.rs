//! Spacetime control: motions solved whole as sparse constrained nonlinear programs.
//!
//! specs/001.md §1.2, Eq. 3.1: minimize f(x) subject to l ≤ (x; c(x)) ≤ u, where x holds every
//! frame's state and forces, c the discretized dynamics and the animation specifiers, and f a
//! weighted sum of objectives (Eq. 3.2). The same machinery serves the cyclic gaits of
//! specs/004.md §3 (sparse Jacobian, bounds, exact derivatives).
//!
//! - [`nlp`]: the solver-independent problem ([`NlpProblem`]), options (exact Hessian or L-BFGS,
//!   print level), statuses and solutions.
//! - [`autodiff`]: problems written as small blocks ([`BlockProblem`]) get exact, sparse first
//!   and second derivatives by automatic differentiation.
//! - [`tape`]: reverse-mode differentiation on a per-thread tape: gradients and Jacobian rows by
//!   adjoint sweeps, Hessians by second-order adjoints (the engine of [`autodiff`]).
//! - `ipopt` (feature `ipopt`): the IPOPT back end ([`solve`]), through its C interface.
//! - `basin_cma` (feature `ipopt`): basin-CMA, CMA-ES over samples projected by local solves
//!   (specs/004.md §1.3), with per-variable roles (CMA-only, both, local-only).
//! - [`cec2006`]: the 24 CEC 2006 constrained benchmark problems (specs/004.md §1.4).
//! - [`discovery`]: gait discovery, basin-CMA over the contact timings (specs/004.md §1.3).
//! - [`gait`]: cyclic "treadmill" gaits with fixed contact timings (specs/004.md §1.2, Eqs
//!   3.2–3.17), their NLP, the staged solve (L-BFGS, then the exact Hessian) and the
//!   independent physics audit.
//! - [`morphology`]: limb lengths and radii as gait variables, and the muscle-aware effort
//!   (specs/004.md §1.5, Eqs 3.26–3.33).
//! - [`particle`]: the Spacetime Particle of §1.3 (Table 3.1, Eqs 3.5–3.9), the reference test.

pub mod autodiff;
#[cfg(feature = "ipopt")]
pub mod basin_cma;
pub mod cec2006;
pub mod creature;
pub mod discovery;
pub mod dynamics;
pub mod gait;
#[cfg(feature = "ipopt")]
mod ipopt;
pub mod morphology;
pub mod nlp;
pub mod particle;
pub mod rotation;
pub mod skeleton;
pub mod tape;

#[cfg(test)]
mod tests;

pub use autodiff::{AutoDiff, BlockProblem, BlockSpec, Curvature, Scalar, TermSpec};
#[cfg(feature = "ipopt")]
pub use ipopt::solve;
pub use nlp::{
    EvalError, HessianMode, Iterate, NlpError, NlpProblem, NlpSolution, OptionValue, SolveStatus,
    SolverOptions,
};
pub use particle::ParticleSpec;
#[cfg(feature = "ipopt")]
pub use particle::{ParticleSolution, solve_particle};
