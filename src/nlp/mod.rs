//! Nonlinear programming, apart from any one problem: the constrained NLP of spacetime control
//! ([`NlpProblem`]), exact derivatives of block-structured problems ([`autodiff`], over the
//! [`tape`]), and the IPOPT back end ([`solve`], feature `ipopt`). The gait solver
//! (`crate::spacetime`), the CEC 2006 benchmark (`crate::optim::cec2006`) and the particle use it.
//!
//!
//! McIntosh 2011, thesis §3.2.1, Eq. 3.1: minimize f(x) over x ∈ ℝⁿ subject to l ≤ (x; c(x)) ≤ u,
//! with equalities written as l = u. [`NlpProblem`] states such a problem with sparse first
//! derivatives (Jacobian triplets) and, optionally, the sparse Hessian of the Lagrangian
//! σ∇²f(x) + Σᵢ λᵢ∇²cᵢ(x). [`SolverOptions`] selects the exact Hessian or IPOPT's limited-memory
//! (L-BFGS) approximation; [`NlpSolution`] is what a solve returns, failures included
//! ([`SolveStatus`] mirrors IPOPT's `ApplicationReturnStatus`).
//!
//! Problems are usually not written against this trait by hand: [`autodiff`] builds one
//! from blocks of constraints and objective terms and derives every derivative exactly.

pub mod autodiff;
#[cfg(feature = "ipopt")]
mod callbacks;
#[cfg(feature = "ipopt")]
mod ipopt;
#[cfg(feature = "ripopt")]
mod ripopt;
pub mod tape;

#[cfg(test)]
pub(crate) mod hs071_tests;
#[cfg(all(test, feature = "ipopt", feature = "ripopt"))]
mod ripopt_tests;

pub use autodiff::{AutoDiff, BlockProblem, BlockSpec, Curvature, Scalar, TermSpec};

/// Solves `problem` with the back end `options.backend` names. `Err` only when the problem is
/// inconsistent (sizes, sparsity, bounds), an option is refused, or the back end is not built
/// in; every solver outcome, failures included, is an `Ok` with its [`SolveStatus`].
#[cfg(feature = "ipopt")]
pub fn solve(problem: &dyn NlpProblem, options: &SolverOptions) -> Result<NlpSolution, NlpError> {
    match options.backend {
        Backend::Ipopt => ipopt::solve(problem, options),
        #[cfg(feature = "ripopt")]
        Backend::Ripopt => ripopt::solve(problem, options),
        #[cfg(not(feature = "ripopt"))]
        Backend::Ripopt => Err(NlpError::BackendNotBuilt("ripopt")),
    }
}

/// The interior-point solver a solve runs on.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, serde::Serialize, serde::Deserialize)]
pub enum Backend {
    /// IPOPT (Wächter and Biegler 2006) through its C interface, on MUMPS: the system's
    /// library (Debian's IPOPT 3.11).
    #[default]
    Ipopt,
    /// ripopt, an interior-point method after IPOPT written in Rust, on a sparse LDLᵀ in Rust.
    Ripopt,
}

impl Backend {
    pub const ALL: [Backend; 2] = [Backend::Ipopt, Backend::Ripopt];

    /// The back ends this program was built with.
    pub fn built_in() -> impl Iterator<Item = Backend> {
        Backend::ALL
            .into_iter()
            .filter(|b| *b == Backend::Ipopt || cfg!(feature = "ripopt"))
    }

    /// The back end for small problems (up to a few hundred variables, as the spacetime
    /// particle's 84): ripopt when built in. Measured on the particle, side by side: ripopt 0.61 ms,
    /// IPOPT 3.11 on MUMPS 2.34 ms (most of it building IPOPT's application and MUMPS's
    /// per-call bookkeeping), CasADi's IPOPT 1.69 ms. On the gaits (hundreds to thousands of
    /// variables, banded KKT systems) IPOPT stays faster per iteration, so it is the default.
    pub fn for_small_problems() -> Backend {
        Backend::built_in()
            .find(|b| *b == Backend::Ripopt)
            .unwrap_or(Backend::Ipopt)
    }

    /// Its name on the command line (`ipopt`, `ripopt`).
    pub fn label(self) -> &'static str {
        match self {
            Backend::Ipopt => "ipopt",
            Backend::Ripopt => "ripopt",
        }
    }
}

impl std::str::FromStr for Backend {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        Backend::ALL
            .into_iter()
            .find(|b| b.label() == s)
            .ok_or_else(|| format!("unknown solver `{s}` (expected ipopt or ripopt)"))
    }
}

use std::fmt;
use std::sync::Arc;
use std::sync::atomic::AtomicBool;
use std::time::Duration;

/// An evaluation of f, c or a derivative could not be carried out at this point (e.g. a value is
/// not finite). The solver then shortens its step; it is not an error of the whole solve.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct EvalError(pub String);

impl fmt::Display for EvalError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for EvalError {}

/// Result of one evaluation callback.
pub type EvalResult = Result<(), EvalError>;

/// A sparse constrained NLP (Eq. 3.1).
///
/// Conventions: variables and constraints are indexed from 0; bounds of ±∞ (`f64::INFINITY`)
/// mean "unbounded"; an equality constraint or a fixed variable has lower = upper. The
/// Jacobian is given as (constraint row, variable column) triplets, each position at most once;
/// [`NlpProblem::jacobian_values`] fills values in the same order. The Hessian of the Lagrangian
/// is symmetric: give each unordered pair (i, j) at most once, in either order.
pub trait NlpProblem {
    /// n, the number of variables.
    fn num_variables(&self) -> usize;
    /// m, the number of constraints c(x).
    fn num_constraints(&self) -> usize;
    /// Fills `lower` and `upper` (length n) with the variable bounds.
    fn variable_bounds(&self, lower: &mut [f64], upper: &mut [f64]);
    /// Fills `lower` and `upper` (length m) with the constraint bounds.
    fn constraint_bounds(&self, lower: &mut [f64], upper: &mut [f64]);
    /// Fills `x` (length n) with the starting point.
    fn initial_point(&self, x: &mut [f64]);
    /// f(x).
    fn objective(&self, x: &[f64]) -> Result<f64, EvalError>;
    /// ∇f(x) into `grad` (length n).
    fn objective_gradient(&self, x: &[f64], grad: &mut [f64]) -> EvalResult;
    /// c(x) into `g` (length m).
    fn constraints(&self, x: &[f64], g: &mut [f64]) -> EvalResult;
    /// The structurally non-zero positions (row, column) of the constraint Jacobian ∂c/∂x.
    fn jacobian_structure(&self) -> Vec<(usize, usize)>;
    /// The Jacobian values at x, in the order of [`NlpProblem::jacobian_structure`].
    fn jacobian_values(&self, x: &[f64], values: &mut [f64]) -> EvalResult;
    /// The structurally non-zero positions of the Hessian of the Lagrangian, or `None` when the
    /// problem has no exact Hessian (the solver then approximates it by L-BFGS).
    fn hessian_structure(&self) -> Option<Vec<(usize, usize)>> {
        None
    }
    /// Values of σ∇²f(x) + Σᵢ λᵢ∇²cᵢ(x), in the order of [`NlpProblem::hessian_structure`].
    fn hessian_values(
        &self,
        _x: &[f64],
        _objective_factor: f64,
        _lambda: &[f64],
        _values: &mut [f64],
    ) -> EvalResult {
        Err(EvalError("this problem has no exact Hessian".into()))
    }
}

/// How the solver gets second derivatives.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum HessianMode {
    /// The exact Hessian when the problem provides one, L-BFGS otherwise.
    #[default]
    Auto,
    /// The problem's exact Hessian (a problem without one is rejected).
    Exact,
    /// IPOPT's `hessian_approximation limited-memory` (L-BFGS), even if an exact one exists.
    LimitedMemory,
}

/// A solver option passed through verbatim (IPOPT's option names).
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
pub enum OptionValue {
    Str(String),
    Num(f64),
    Int(i32),
}

/// One iteration of a solve, as reported to [`SolverOptions::progress`].
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct IterationReport {
    pub iteration: usize,
    pub objective: f64,
    /// Largest constraint violation (IPOPT's inf_pr).
    pub infeasibility: f64,
    /// In IPOPT's restoration phase.
    pub restoration: bool,
}

/// A function called at every iteration of a solve (from the solving thread).
#[derive(Clone)]
pub struct ProgressSink(pub Arc<dyn Fn(&IterationReport) + Send + Sync>);

impl std::fmt::Debug for ProgressSink {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("ProgressSink")
    }
}

/// Options of a solve. The defaults are silent (print level 0) with IPOPT's own tolerances.
#[derive(Debug, Clone)]
pub struct SolverOptions {
    /// The solver.
    pub backend: Backend,
    pub hessian: HessianMode,
    /// IPOPT's `print_level` (0 silent … 12 very verbose; 5 is IPOPT's usual iteration log).
    pub print_level: i32,
    /// Desired convergence tolerance (IPOPT's `tol`, default 1e-8).
    pub tolerance: f64,
    pub max_iterations: usize,
    /// Further options set after the ones above (and so overriding them).
    pub extra: Vec<(String, OptionValue)>,
    /// Set to true (from any thread) to stop the solve at its next iteration; it then ends
    /// with [`SolveStatus::UserRequestedStop`].
    pub cancel: Option<Arc<AtomicBool>>,
    /// Violation levels at which to keep the best iterate: for each level v, the iterate with
    /// the lowest objective among those whose largest bound or constraint violation is at most
    /// v ([`NlpSolution::best_iterates`]). An interior-point method does not descend
    /// monotonically, so a solve stopped at its iteration limit may have passed better points
    /// than its last one. Empty: none kept.
    pub keep_best: Vec<f64>,
    /// Called at every iteration with its objective and violation.
    pub progress: Option<ProgressSink>,
    /// Start from these multipliers (IPOPT's `warm_start_init_point`), e.g. those an earlier
    /// solve of the same problem ended with; ignored unless their lengths match (m, n, n).
    pub initial_multipliers: Option<Multipliers>,
}

/// The multipliers of a solve: of the constraints c(x) (λ) and of the lower and upper variable
/// bounds (z_L, z_U).
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Multipliers {
    pub constraints: Vec<f64>,
    pub lower: Vec<f64>,
    pub upper: Vec<f64>,
}

impl Default for SolverOptions {
    fn default() -> Self {
        Self {
            backend: Backend::default(),
            hessian: HessianMode::Auto,
            print_level: 0,
            tolerance: 1e-8,
            max_iterations: 3000,
            extra: Vec::new(),
            cancel: None,
            keep_best: Vec::new(),
            progress: None,
            initial_multipliers: None,
        }
    }
}

/// How a solve ended: IPOPT's `ApplicationReturnStatus`, one variant per code, plus the case of
/// a problem callback that panicked (the solve is stopped and the panic reported, never
/// propagated).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SolveStatus {
    Solved,
    SolvedToAcceptableLevel,
    /// IPOPT converged to a point of local infeasibility: the constraints cannot be met.
    Infeasible,
    SearchDirectionTooSmall,
    DivergingIterates,
    UserRequestedStop,
    FeasiblePointFound,
    MaximumIterationsExceeded,
    RestorationFailed,
    ErrorInStepComputation,
    MaximumCpuTimeExceeded,
    NotEnoughDegreesOfFreedom,
    InvalidProblemDefinition,
    InvalidOption,
    InvalidNumberDetected,
    UnrecoverableException,
    NonIpoptExceptionThrown,
    InsufficientMemory,
    InternalError,
    /// A callback of the problem panicked; [`NlpSolution::callback_error`] has the message.
    CallbackPanicked,
    /// A return code this wrapper does not know.
    Unknown(i32),
}

impl SolveStatus {
    /// Maps IPOPT's `enum ApplicationReturnStatus` (IpReturnCodes_inc.h).
    pub fn from_ipopt_code(code: i32) -> Self {
        use SolveStatus::*;
        match code {
            0 => Solved,
            1 => SolvedToAcceptableLevel,
            2 => Infeasible,
            3 => SearchDirectionTooSmall,
            4 => DivergingIterates,
            5 => UserRequestedStop,
            6 => FeasiblePointFound,
            -1 => MaximumIterationsExceeded,
            -2 => RestorationFailed,
            -3 => ErrorInStepComputation,
            -4 => MaximumCpuTimeExceeded,
            -10 => NotEnoughDegreesOfFreedom,
            -11 => InvalidProblemDefinition,
            -12 => InvalidOption,
            -13 => InvalidNumberDetected,
            -100 => UnrecoverableException,
            -101 => NonIpoptExceptionThrown,
            -102 => InsufficientMemory,
            -199 => InternalError,
            other => Unknown(other),
        }
    }

    /// A (locally) optimal point was found: `Solved` or `SolvedToAcceptableLevel`.
    pub fn is_success(self) -> bool {
        matches!(
            self,
            SolveStatus::Solved | SolveStatus::SolvedToAcceptableLevel
        )
    }

    /// Short lower-case name, as printed by the CLI (`solved`, `infeasible`, …).
    pub fn label(self) -> String {
        use SolveStatus::*;
        match self {
            Solved => "solved".into(),
            SolvedToAcceptableLevel => "solved_to_acceptable_level".into(),
            Infeasible => "infeasible".into(),
            SearchDirectionTooSmall => "search_direction_too_small".into(),
            DivergingIterates => "diverging_iterates".into(),
            UserRequestedStop => "user_requested_stop".into(),
            FeasiblePointFound => "feasible_point_found".into(),
            MaximumIterationsExceeded => "maximum_iterations_exceeded".into(),
            RestorationFailed => "restoration_failed".into(),
            ErrorInStepComputation => "error_in_step_computation".into(),
            MaximumCpuTimeExceeded => "maximum_cpu_time_exceeded".into(),
            NotEnoughDegreesOfFreedom => "not_enough_degrees_of_freedom".into(),
            InvalidProblemDefinition => "invalid_problem_definition".into(),
            InvalidOption => "invalid_option".into(),
            InvalidNumberDetected => "invalid_number_detected".into(),
            UnrecoverableException => "unrecoverable_exception".into(),
            NonIpoptExceptionThrown => "non_ipopt_exception_thrown".into(),
            InsufficientMemory => "insufficient_memory".into(),
            InternalError => "internal_error".into(),
            CallbackPanicked => "callback_panicked".into(),
            Unknown(c) => format!("unknown_status_{c}"),
        }
    }
}

impl fmt::Display for SolveStatus {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.label())
    }
}

/// What a solve returns, whatever its outcome.
#[derive(Debug, Clone)]
pub struct NlpSolution {
    pub status: SolveStatus,
    /// Iterations of the interior-point method (counted by the per-iteration callback; the
    /// initial point is iteration 0).
    pub iterations: usize,
    /// f at the final x.
    pub objective: f64,
    /// The final point.
    pub x: Vec<f64>,
    /// c at the final x.
    pub constraints: Vec<f64>,
    /// λ, the multipliers of the constraints c(x).
    pub constraint_multipliers: Vec<f64>,
    /// Multipliers of the lower and upper variable bounds (z_L, z_U).
    pub lower_bound_multipliers: Vec<f64>,
    pub upper_bound_multipliers: Vec<f64>,
    /// The largest violation of any variable or constraint bound at the final x, computed here
    /// from the problem's own bounds and c(x) (not taken from the solver); ∞ if c(x) could not
    /// be evaluated.
    pub max_violation: f64,
    /// Wall-clock time of the solve.
    pub solve_time: Duration,
    /// The message of a panic raised by a problem callback, if any.
    pub callback_error: Option<String>,
    /// One entry per level of [`SolverOptions::keep_best`]: the best iterate within it, if any
    /// iterate was (restoration-phase iterates are not considered).
    pub best_iterates: Vec<Option<Iterate>>,
    /// Time spent in each problem callback (the rest of `solve_time` is the solver's own).
    pub callback_times: CallbackTimes,
    /// The barrier parameter μ of the last regular (not restoration) iteration.
    pub final_barrier: f64,
}

impl NlpSolution {
    /// The multipliers the solve ended with.
    pub fn multipliers(&self) -> Multipliers {
        Multipliers {
            constraints: self.constraint_multipliers.clone(),
            lower: self.lower_bound_multipliers.clone(),
            upper: self.upper_bound_multipliers.clone(),
        }
    }
}

/// How often one problem callback ran during a solve, and for how long in all.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct CallbackTime {
    pub calls: usize,
    pub seconds: f64,
}

impl CallbackTime {
    /// Milliseconds per call (0 when it never ran).
    pub fn ms_per_call(&self) -> f64 {
        if self.calls == 0 {
            0.0
        } else {
            1e3 * self.seconds / self.calls as f64
        }
    }
}

/// Time per problem callback: f, c, ∇f, the Jacobian of c and the Hessian of the Lagrangian.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct CallbackTimes {
    pub objective: CallbackTime,
    pub constraints: CallbackTime,
    pub gradient: CallbackTime,
    pub jacobian: CallbackTime,
    pub hessian: CallbackTime,
}

impl std::ops::AddAssign for CallbackTimes {
    fn add_assign(&mut self, other: Self) {
        for (a, b) in [
            (&mut self.objective, other.objective),
            (&mut self.constraints, other.constraints),
            (&mut self.gradient, other.gradient),
            (&mut self.jacobian, other.jacobian),
            (&mut self.hessian, other.hessian),
        ] {
            a.calls += b.calls;
            a.seconds += b.seconds;
        }
    }
}

/// An iterate of the solver, as kept by [`SolverOptions::keep_best`].
#[derive(Debug, Clone, PartialEq)]
pub struct Iterate {
    pub iteration: usize,
    pub objective: f64,
    /// Its largest bound or constraint violation, computed as for [`NlpSolution::max_violation`].
    pub max_violation: f64,
    pub x: Vec<f64>,
}

/// The problem itself is inconsistent, or the solver refused an option: nothing was solved.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum NlpError {
    #[error("the problem has no variables")]
    NoVariables,
    #[error("the problem is too large for the solver's 32-bit indices ({0})")]
    TooLarge(&'static str),
    #[error("{what} entry {index} is ({row}, {col}), outside the {rows}×{cols} matrix")]
    StructureOutOfRange {
        what: &'static str,
        index: usize,
        row: usize,
        col: usize,
        rows: usize,
        cols: usize,
    },
    #[error("{what} lists position ({row}, {col}) twice")]
    DuplicateEntry {
        what: &'static str,
        row: usize,
        col: usize,
    },
    #[error("{what} bound {index} is inverted: lower {lower} > upper {upper}")]
    InvertedBound {
        what: &'static str,
        index: usize,
        lower: f64,
        upper: f64,
    },
    #[error("an exact Hessian was requested but the problem provides none")]
    NoExactHessian,
    #[error("the solver rejected option {name} = {value}")]
    RejectedOption { name: String, value: String },
    #[error("the solver could not create the problem")]
    CreateFailed,
    #[error(
        "IPOPT's library could not be loaded (scripts/setup.sh installs coinor-libipopt-dev): {0}"
    )]
    SolverUnavailable(String),
    #[error("the solver {0} is not built into this program (cargo feature `{0}`)")]
    BackendNotBuilt(&'static str),
}

/// Checks a sparsity pattern (in range, no duplicates; for a symmetric Hessian (i, j) and (j, i)
/// are the same position).
pub fn check_structure(
    what: &'static str,
    entries: &[(usize, usize)],
    rows: usize,
    cols: usize,
    symmetric: bool,
) -> Result<(), NlpError> {
    let mut seen = std::collections::HashSet::with_capacity(entries.len());
    for (index, &(row, col)) in entries.iter().enumerate() {
        if row >= rows || col >= cols {
            return Err(NlpError::StructureOutOfRange {
                what,
                index,
                row,
                col,
                rows,
                cols,
            });
        }
        let key = if symmetric {
            (row.max(col), row.min(col))
        } else {
            (row, col)
        };
        if !seen.insert(key) {
            return Err(NlpError::DuplicateEntry { what, row, col });
        }
    }
    Ok(())
}

/// The problem's variable and constraint bounds, checked (lower ≤ upper, no NaN).
#[derive(Debug, Clone)]
pub struct Bounds {
    pub x_lower: Vec<f64>,
    pub x_upper: Vec<f64>,
    pub g_lower: Vec<f64>,
    pub g_upper: Vec<f64>,
}

impl Bounds {
    pub fn of(problem: &dyn NlpProblem) -> Result<Self, NlpError> {
        let (n, m) = (problem.num_variables(), problem.num_constraints());
        let mut b = Bounds {
            x_lower: vec![f64::NEG_INFINITY; n],
            x_upper: vec![f64::INFINITY; n],
            g_lower: vec![f64::NEG_INFINITY; m],
            g_upper: vec![f64::INFINITY; m],
        };
        problem.variable_bounds(&mut b.x_lower, &mut b.x_upper);
        problem.constraint_bounds(&mut b.g_lower, &mut b.g_upper);
        for (what, lo, up) in [
            ("variable", &b.x_lower, &b.x_upper),
            ("constraint", &b.g_lower, &b.g_upper),
        ] {
            for (index, (&lower, &upper)) in lo.iter().zip(up.iter()).enumerate() {
                if lower.is_nan() || upper.is_nan() || lower > upper {
                    return Err(NlpError::InvertedBound {
                        what,
                        index,
                        lower,
                        upper,
                    });
                }
            }
        }
        Ok(b)
    }

    /// The largest amount by which x or c(x) lies outside its bounds (0 when feasible).
    pub fn max_violation(&self, x: &[f64], g: &[f64]) -> f64 {
        let over = |v: f64, lo: f64, up: f64| {
            if v.is_nan() {
                f64::INFINITY
            } else {
                (lo - v).max(v - up).max(0.0)
            }
        };
        let xv = x
            .iter()
            .zip(self.x_lower.iter().zip(&self.x_upper))
            .map(|(&v, (&l, &u))| over(v, l, u));
        let gv = g
            .iter()
            .zip(self.g_lower.iter().zip(&self.g_upper))
            .map(|(&v, (&l, &u))| over(v, l, u));
        xv.chain(gv).fold(0.0, f64::max)
    }
}

/// Evaluates c at `x` and returns it with the largest bound violation (∞ when c fails).
pub fn evaluate_violation(problem: &dyn NlpProblem, bounds: &Bounds, x: &[f64]) -> (Vec<f64>, f64) {
    let mut g = vec![0.0; problem.num_constraints()];
    let ok = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        problem.constraints(x, &mut g)
    }));
    match ok {
        Ok(Ok(())) => {
            let v = bounds.max_violation(x, &g);
            (g, v)
        }
        _ => (g, f64::INFINITY),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn status_codes_round_trip_the_ipopt_enum() {
        assert_eq!(SolveStatus::from_ipopt_code(0), SolveStatus::Solved);
        assert_eq!(SolveStatus::from_ipopt_code(2), SolveStatus::Infeasible);
        assert_eq!(
            SolveStatus::from_ipopt_code(-13),
            SolveStatus::InvalidNumberDetected
        );
        assert_eq!(SolveStatus::from_ipopt_code(42), SolveStatus::Unknown(42));
        assert!(
            SolveStatus::Solved.is_success() && SolveStatus::SolvedToAcceptableLevel.is_success()
        );
        assert!(!SolveStatus::Infeasible.is_success());
        assert_eq!(SolveStatus::Infeasible.to_string(), "infeasible");
    }

    #[test]
    fn structure_checks_catch_range_and_duplicates() {
        assert!(check_structure("Jacobian", &[(0, 0), (1, 2)], 2, 3, false).is_ok());
        assert!(matches!(
            check_structure("Jacobian", &[(0, 3)], 2, 3, false),
            Err(NlpError::StructureOutOfRange { .. })
        ));
        assert!(check_structure("Jacobian", &[(0, 1), (1, 0)], 2, 2, false).is_ok());
        assert!(matches!(
            check_structure("Hessian", &[(0, 1), (1, 0)], 2, 2, true),
            Err(NlpError::DuplicateEntry { .. })
        ));
    }

    #[test]
    fn violation_measures_the_worst_bound() {
        let b = Bounds {
            x_lower: vec![0.0, f64::NEG_INFINITY],
            x_upper: vec![1.0, f64::INFINITY],
            g_lower: vec![2.0],
            g_upper: vec![2.0],
        };
        assert_eq!(b.max_violation(&[0.5, -1e30], &[2.0]), 0.0);
        assert!((b.max_violation(&[1.25, 0.0], &[2.1]) - 0.25).abs() < 1e-12);
        assert!((b.max_violation(&[0.5, 0.0], &[1.5]) - 0.5).abs() < 1e-12);
        assert_eq!(b.max_violation(&[f64::NAN, 0.0], &[2.0]), f64::INFINITY);
    }
}
