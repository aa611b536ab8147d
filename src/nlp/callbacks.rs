//! What every solver back end does around a problem's callbacks: the problem's structures
//! checked before a solve, each callback timed and kept from unwinding into the solver (a panic
//! becomes a stored message that stops the solve), and the best iterate within each violation
//! level of [`SolverOptions::keep_best`].

use super::{
    Bounds, CallbackTime, CallbackTimes, HessianMode, Iterate, NlpError, NlpProblem, SolverOptions,
};
use std::cell::{Cell, RefCell};
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::time::Instant;

/// A problem's bounds and sparsity, checked, with the Hessian's pattern when the solve uses one
/// (`None`: a limited-memory approximation).
pub(super) struct Checked {
    pub bounds: Bounds,
    pub jacobian: Vec<(usize, usize)>,
    pub hessian: Option<Vec<(usize, usize)>>,
}

/// Checks `problem` for a solve with `options`: at least one variable, consistent bounds, the
/// Jacobian and Hessian patterns in range without duplicates, and an exact Hessian if one is
/// required.
pub(super) fn check(
    problem: &dyn NlpProblem,
    options: &SolverOptions,
) -> Result<Checked, NlpError> {
    let (n, m) = (problem.num_variables(), problem.num_constraints());
    if n == 0 {
        return Err(NlpError::NoVariables);
    }
    let bounds = Bounds::of(problem)?;
    let jacobian = problem.jacobian_structure();
    super::check_structure("Jacobian", &jacobian, m, n, false)?;
    let hessian = match options.hessian {
        HessianMode::LimitedMemory => None,
        HessianMode::Auto => problem.hessian_structure(),
        HessianMode::Exact => Some(
            problem
                .hessian_structure()
                .ok_or(NlpError::NoExactHessian)?,
        ),
    };
    if let Some(h) = &hessian {
        super::check_structure("Hessian", h, n, n, true)?;
    }
    Ok(Checked {
        bounds,
        jacobian,
        hessian,
    })
}

/// The callbacks' time and the message of the first one that panicked.
#[derive(Default)]
pub(super) struct Guard {
    pub panic: RefCell<Option<String>>,
    pub times: Cell<CallbackTimes>,
}

impl Guard {
    /// Runs one callback body, timed into `which` of the callback times: false if it fails or
    /// panics, and after any earlier panic (so that the solve stops).
    pub fn run(
        &self,
        which: fn(&mut CallbackTimes) -> &mut CallbackTime,
        body: impl FnOnce() -> bool,
    ) -> bool {
        if self.panic.borrow().is_some() {
            return false;
        }
        let start = Instant::now();
        let result = catch_unwind(AssertUnwindSafe(body));
        let mut times = self.times.get();
        let t = which(&mut times);
        t.calls += 1;
        t.seconds += start.elapsed().as_secs_f64();
        self.times.set(times);
        match result {
            Ok(ok) => ok,
            Err(payload) => {
                let message = payload
                    .downcast_ref::<&str>()
                    .map(|s| s.to_string())
                    .or_else(|| payload.downcast_ref::<String>().cloned())
                    .unwrap_or_else(|| "a problem callback panicked".into());
                *self.panic.borrow_mut() = Some(message);
                false
            }
        }
    }

    /// A callback has panicked.
    pub fn panicked(&self) -> bool {
        self.panic.borrow().is_some()
    }
}

/// Keeps iterate `x` (objective `objective`) in `best` for every level of `levels` it is within
/// and improves on; its violation is measured only when it could improve on one.
pub(super) fn keep_if_best(
    best: &RefCell<Vec<Option<Iterate>>>,
    levels: &[f64],
    problem: &dyn NlpProblem,
    bounds: &Bounds,
    iteration: usize,
    objective: f64,
    x: &[f64],
) {
    let mut best = best.borrow_mut();
    if !best
        .iter()
        .any(|b| b.as_ref().is_none_or(|b| objective < b.objective))
    {
        return;
    }
    let (_, violation) = super::evaluate_violation(problem, bounds, x);
    for (&level, b) in levels.iter().zip(best.iter_mut()) {
        if violation <= level && b.as_ref().is_none_or(|b| objective < b.objective) {
            *b = Some(Iterate {
                iteration,
                objective,
                max_violation: violation,
                x: x.to_vec(),
            });
        }
    }
}
