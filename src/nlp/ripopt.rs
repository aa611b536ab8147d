//! ripopt as a solver of [`NlpProblem`]s: a primal-dual interior-point method written in Rust
//! after IPOPT (Wächter and Biegler 2006: filter line search, second-order corrections, the
//! adaptive barrier), on the sparse multifrontal LDLᵀ of the `feral` crate with inertia counts.
//! Crate `ripopt` (EPL-2.0, the licence IPOPT itself has), feature `ripopt`.
//!
//! Unlike IPOPT over MUMPS it keeps no global state, so solves may run on several threads of
//! one process at once, and it has no application object to build per solve. Options arrive as
//! IPOPT's names ([`SolverOptions::extra`]); those with a ripopt counterpart are applied, the
//! other IPOPT tuning knobs (limited-memory initialisation, acceptable-level tolerances) have none
//! and are left to ripopt's defaults.

use super::callbacks::{self, Guard};
use super::{
    Bounds, CallbackTime, CallbackTimes, Iterate, IterationReport, NlpError, NlpProblem,
    NlpSolution, OptionValue, SolveStatus, SolverOptions,
};
use std::cell::{Cell, RefCell};
use std::ffi::{c_int, c_void};
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::sync::atomic::Ordering;
use std::time::Instant;

/// The problem seen through ripopt's trait, with the callbacks timed and guarded.
struct Adapter<'a> {
    problem: &'a dyn NlpProblem,
    bounds: &'a Bounds,
    jacobian: (Vec<usize>, Vec<usize>),
    /// Lower triangle (row ≥ col).
    hessian: (Vec<usize>, Vec<usize>),
    guard: Guard,
    options: &'a SolverOptions,
    iterations: Cell<usize>,
    best: RefCell<Vec<Option<Iterate>>>,
    barrier: Cell<f64>,
    /// The x of the last gradient evaluation (in the problem's own variables: ripopt's iterate
    /// snapshot is of its internal problem, slacks and scaling included).
    gradient_x: RefCell<Vec<f64>>,
}

impl Adapter<'_> {
    fn guard(
        &self,
        which: fn(&mut CallbackTimes) -> &mut CallbackTime,
        body: impl FnOnce() -> bool,
    ) -> bool {
        self.guard.run(which, body)
    }

    /// Keeps the iterate of the last gradient evaluation for every `keep_best` level it is
    /// within and improves on (its objective evaluated here: ripopt reports a scaled one).
    fn keep_if_best(&self, iteration: usize) {
        let x = self.gradient_x.borrow();
        if x.len() != self.problem.num_variables() {
            return;
        }
        let objective = catch_unwind(AssertUnwindSafe(|| self.problem.objective(&x)));
        if let Ok(Ok(objective)) = objective {
            callbacks::keep_if_best(
                &self.best,
                &self.options.keep_best,
                self.problem,
                self.bounds,
                iteration,
                objective,
                &x,
            );
        }
    }
}

impl ripopt::NlpProblem for Adapter<'_> {
    fn num_variables(&self) -> usize {
        self.problem.num_variables()
    }
    fn num_constraints(&self) -> usize {
        self.problem.num_constraints()
    }
    fn bounds(&self, x_l: &mut [f64], x_u: &mut [f64]) {
        x_l.copy_from_slice(&self.bounds.x_lower);
        x_u.copy_from_slice(&self.bounds.x_upper);
    }
    fn constraint_bounds(&self, g_l: &mut [f64], g_u: &mut [f64]) {
        g_l.copy_from_slice(&self.bounds.g_lower);
        g_u.copy_from_slice(&self.bounds.g_upper);
    }
    fn initial_point(&self, x0: &mut [f64]) {
        self.problem.initial_point(x0);
    }
    fn objective(&self, x: &[f64], _new_x: bool, obj: &mut f64) -> bool {
        self.guard(
            |t| &mut t.objective,
            || match self.problem.objective(x) {
                Ok(v) if v.is_finite() => {
                    *obj = v;
                    true
                }
                _ => false,
            },
        )
    }
    fn gradient(&self, x: &[f64], _new_x: bool, grad: &mut [f64]) -> bool {
        self.guard(
            |t| &mut t.gradient,
            || {
                if !self.options.keep_best.is_empty() {
                    let mut kept = self.gradient_x.borrow_mut();
                    kept.clear();
                    kept.extend_from_slice(x);
                }
                self.problem.objective_gradient(x, grad).is_ok()
            },
        )
    }
    fn constraints(&self, x: &[f64], _new_x: bool, g: &mut [f64]) -> bool {
        self.guard(
            |t| &mut t.constraints,
            || self.problem.constraints(x, g).is_ok(),
        )
    }
    fn jacobian_structure(&self) -> (Vec<usize>, Vec<usize>) {
        self.jacobian.clone()
    }
    fn jacobian_values(&self, x: &[f64], _new_x: bool, vals: &mut [f64]) -> bool {
        self.guard(
            |t| &mut t.jacobian,
            || self.problem.jacobian_values(x, vals).is_ok(),
        )
    }
    fn hessian_structure(&self) -> (Vec<usize>, Vec<usize>) {
        self.hessian.clone()
    }
    fn hessian_values(
        &self,
        x: &[f64],
        _new_x: bool,
        obj_factor: f64,
        lambda: &[f64],
        vals: &mut [f64],
    ) -> bool {
        self.guard(
            |t| &mut t.hessian,
            || {
                self.problem
                    .hessian_values(x, obj_factor, lambda, vals)
                    .is_ok()
            },
        )
    }
}

/// ripopt's per-iteration callback: counts iterations, reports progress, keeps the best
/// iterates and answers a cancel (returning 0 stops the solve).
unsafe extern "C" fn intermediate(
    alg_mod: c_int,
    iter: c_int,
    obj_value: f64,
    inf_pr: f64,
    _inf_du: f64,
    mu: f64,
    _d_norm: f64,
    _regularization_size: f64,
    _alpha_du: f64,
    _alpha_pr: f64,
    _ls_trials: c_int,
    user_data: *mut c_void,
) -> c_int {
    // SAFETY: `user_data` is the `Adapter` that `solve` registered for this thread, alive for the
    // whole of `ripopt::solve`, which is the only caller.
    let adapter = unsafe { &*(user_data as *const Adapter) };
    let restoration = alg_mod != 0;
    let iteration = iter.max(0) as usize;
    adapter.iterations.set(iteration);
    if !restoration {
        adapter.barrier.set(mu);
        if !adapter.options.keep_best.is_empty() {
            adapter.keep_if_best(iteration);
        }
    }
    if let Some(progress) = &adapter.options.progress {
        (progress.0)(&IterationReport {
            iteration,
            objective: obj_value,
            infeasibility: inf_pr,
            restoration,
        });
    }
    let cancelled = adapter
        .options
        .cancel
        .as_ref()
        .is_some_and(|c| c.load(Ordering::Relaxed));
    (!cancelled && !adapter.guard.panicked()) as c_int
}

/// ripopt's options from ours: the tolerance, the iteration limit, the Hessian mode, the warm
/// start, and those of IPOPT's options in `extra` that ripopt has.
fn ripopt_options(
    options: &SolverOptions,
    limited_memory: bool,
) -> Result<ripopt::SolverOptions, NlpError> {
    let mut o = ripopt::SolverOptions {
        tol: options.tolerance,
        max_iter: options.max_iterations,
        print_level: options.print_level.clamp(0, 12) as u8,
        hessian_approximation_lbfgs: limited_memory,
        ..Default::default()
    };
    let num = |name: &str, value: &OptionValue| match value {
        OptionValue::Num(v) => Ok(*v),
        OptionValue::Int(v) => Ok(*v as f64),
        OptionValue::Str(s) => Err(NlpError::RejectedOption {
            name: name.into(),
            value: s.clone(),
        }),
    };
    for (name, value) in &options.extra {
        match name.as_str() {
            "tol" => o.tol = num(name, value)?,
            "max_iter" => o.max_iter = num(name, value)? as usize,
            "constr_viol_tol" => o.constr_viol_tol = num(name, value)?,
            "dual_inf_tol" => o.dual_inf_tol = num(name, value)?,
            "compl_inf_tol" => o.compl_inf_tol = num(name, value)?,
            "mu_init" => o.mu_init = num(name, value)?,
            "mu_min" => o.mu_min = num(name, value)?,
            "bound_push" => o.bound_push = num(name, value)?,
            "bound_frac" => o.bound_frac = num(name, value)?,
            "bound_relax_factor" => o.bound_relax_factor = num(name, value)?,
            "max_cpu_time" | "max_wall_time" => o.max_wall_time = num(name, value)?,
            "mu_strategy" => {
                o.mu_strategy_adaptive = match value {
                    OptionValue::Str(s) if s == "adaptive" => true,
                    OptionValue::Str(s) if s == "monotone" => false,
                    other => {
                        return Err(NlpError::RejectedOption {
                            name: name.clone(),
                            value: format!("{other:?}"),
                        });
                    }
                }
            }
            "print_level" => o.print_level = num(name, value)?.clamp(0.0, 12.0) as u8,
            // IPOPT's own tuning without a ripopt counterpart: ripopt's defaults stand.
            _ => {}
        }
    }
    if let Some(w) = &options.initial_multipliers {
        o.warm_start = true;
        o.warm_start_y = Some(w.constraints.clone());
        o.warm_start_z_l = Some(w.lower.clone());
        o.warm_start_z_u = Some(w.upper.clone());
    }
    Ok(o)
}

/// Solves `problem` with ripopt. `Err` only when the problem is inconsistent (sizes, sparsity,
/// bounds) or an option is refused; every solver outcome, failures included, is an `Ok` with
/// its [`SolveStatus`].
pub fn solve(problem: &dyn NlpProblem, options: &SolverOptions) -> Result<NlpSolution, NlpError> {
    let (n, m) = (problem.num_variables(), problem.num_constraints());
    let callbacks::Checked {
        bounds,
        jacobian,
        hessian,
    } = callbacks::check(problem, options)?;
    let warm = options
        .initial_multipliers
        .as_ref()
        .filter(|w| w.constraints.len() == m && w.lower.len() == n && w.upper.len() == n);
    let mut effective = options.clone();
    effective.initial_multipliers = warm.cloned();
    let ropts = ripopt_options(&effective, hessian.is_none())?;
    let adapter = Adapter {
        problem,
        bounds: &bounds,
        jacobian: jacobian.iter().copied().unzip(),
        hessian: hessian
            .as_deref()
            .unwrap_or_default()
            .iter()
            .map(|&(r, c)| (r.max(c), r.min(c)))
            .unzip(),
        guard: Guard::default(),
        options,
        iterations: Cell::new(0),
        best: RefCell::new(vec![None; options.keep_best.len()]),
        barrier: Cell::new(f64::NAN),
        gradient_x: RefCell::new(Vec::new()),
    };
    let start = Instant::now();
    ripopt::intermediate::set_intermediate_callback(Some((
        intermediate,
        &adapter as *const Adapter as *mut c_void,
    )));
    let outcome = catch_unwind(AssertUnwindSafe(|| ripopt::solve(&adapter, &ropts)));
    ripopt::intermediate::set_intermediate_callback(None);
    let solve_time = start.elapsed();

    let callback_error = adapter.guard.panic.borrow().clone().or_else(|| {
        outcome
            .as_ref()
            .err()
            .map(|_| "ripopt panicked inside the solve".to_string())
    });
    let (status, x, objective, mult_g, mult_l, mult_u, iterations) = match outcome {
        Ok(r) => {
            let status = if adapter.guard.panicked() {
                SolveStatus::CallbackPanicked
            } else {
                status_of(r.status)
            };
            (
                status,
                r.x,
                r.objective,
                r.constraint_multipliers,
                r.bound_multipliers_lower,
                r.bound_multipliers_upper,
                r.iterations,
            )
        }
        Err(_) => {
            let mut x = vec![0.0; n];
            problem.initial_point(&mut x);
            (
                SolveStatus::InternalError,
                x,
                f64::NAN,
                vec![0.0; m],
                vec![0.0; n],
                vec![0.0; n],
                adapter.iterations.get(),
            )
        }
    };
    let (constraints, max_violation) = super::evaluate_violation(problem, &bounds, &x);
    Ok(NlpSolution {
        status,
        iterations,
        objective,
        x,
        constraints,
        constraint_multipliers: mult_g,
        lower_bound_multipliers: mult_l,
        upper_bound_multipliers: mult_u,
        max_violation,
        solve_time,
        callback_error,
        best_iterates: adapter.best.into_inner(),
        callback_times: adapter.guard.times.get(),
        final_barrier: adapter.barrier.get(),
    })
}

/// Our status for ripopt's.
fn status_of(status: ripopt::SolveStatus) -> SolveStatus {
    use ripopt::SolveStatus as R;
    match status {
        R::Optimal => SolveStatus::Solved,
        R::Acceptable => SolveStatus::SolvedToAcceptableLevel,
        R::Infeasible | R::LocalInfeasibility => SolveStatus::Infeasible,
        R::MaxIterations => SolveStatus::MaximumIterationsExceeded,
        R::MaxTimeExceeded => SolveStatus::MaximumCpuTimeExceeded,
        R::NumericalError => SolveStatus::ErrorInStepComputation,
        R::DivergingIterates => SolveStatus::DivergingIterates,
        R::RestorationFailed => SolveStatus::RestorationFailed,
        R::EvaluationError => SolveStatus::InvalidNumberDetected,
        R::UserRequestedStop => SolveStatus::UserRequestedStop,
        R::StopAtTinyStep => SolveStatus::SearchDirectionTooSmall,
        R::InternalError => SolveStatus::InternalError,
    }
}
