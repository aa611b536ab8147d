//! Tests of the NLP layer on a problem with nonlinear objective and constraints (HS071, the
//! example of IPOPT's own C interface) and of the wrapper's failure handling.

use super::autodiff::{BlockProblem, BlockSpec, Scalar, TermSpec};

/// Hock–Schittkowski problem 71: min x₁x₄(x₁+x₂+x₃) + x₃ s.t. x₁x₂x₃x₄ ≥ 25, Σxᵢ² = 40,
/// 1 ≤ x ≤ 5, from (1, 5, 5, 1) ([`HS071`]) or another start. Optimum f* = 17.0140173 at
/// (1, 4.7430, 3.8211, 1.3794).
pub(crate) struct Hs071 {
    pub start: [f64; 4],
}

/// HS071 from its usual start.
pub(crate) const HS071: Hs071 = Hs071 {
    start: [1.0, 5.0, 5.0, 1.0],
};

impl BlockProblem for Hs071 {
    fn num_variables(&self) -> usize {
        4
    }
    fn variable_bounds(&self, lower: &mut [f64], upper: &mut [f64]) {
        lower.fill(1.0);
        upper.fill(5.0);
    }
    fn initial_point(&self, x: &mut [f64]) {
        x.copy_from_slice(&self.start);
    }
    fn objective_terms(&self) -> Vec<TermSpec> {
        vec![TermSpec {
            variables: vec![0, 1, 2, 3],
        }]
    }
    fn objective_term<D: Scalar>(&self, _: usize, x: &[D]) -> D {
        x[0].clone() * x[3].clone() * (x[0].clone() + x[1].clone() + x[2].clone()) + x[2].clone()
    }
    fn constraint_blocks(&self) -> Vec<BlockSpec> {
        vec![
            BlockSpec {
                variables: vec![0, 1, 2, 3],
                lower: vec![25.0],
                upper: vec![f64::INFINITY],
                linear: false,
                flat: Vec::new(),
                linear_in: Vec::new(),
            },
            BlockSpec::equal(vec![0, 1, 2, 3], vec![40.0]),
        ]
    }
    fn constraint_block<D: Scalar>(&self, block: usize, x: &[D]) -> Vec<D> {
        match block {
            0 => vec![x[0].clone() * x[1].clone() * x[2].clone() * x[3].clone()],
            _ => vec![x.iter().map(|v| v.clone() * v.clone()).sum()],
        }
    }
}

#[cfg(feature = "ipopt")]
pub(crate) mod solver {
    use super::{HS071, Hs071};
    use crate::nlp::{
        AutoDiff, EvalError, EvalResult, HessianMode, NlpError, NlpProblem, OptionValue,
        SolveStatus, SolverOptions, solve,
    };
    use std::sync::Arc;
    use std::sync::atomic::AtomicBool;

    pub(crate) const HS071_OPTIMUM: f64 = 17.014017145179164;
    pub(crate) const HS071_X: [f64; 4] = [1.0, 4.742999643, 3.821149978, 1.379408293];

    /// `keep_best`: per violation level, the lowest-objective iterate within it, with its own x
    /// (f(x) is the objective IPOPT reported for that iteration, so the x is the iterate's).
    #[test]
    fn the_best_iterate_within_each_violation_level_is_kept() {
        let p = AutoDiff::new(HS071).unwrap();
        let s = solve(
            &p,
            &SolverOptions {
                hessian: HessianMode::LimitedMemory,
                keep_best: vec![f64::INFINITY, 1e-6],
                ..Default::default()
            },
        )
        .unwrap();
        assert!(s.status.is_success(), "{:?}", s.status);
        assert_eq!(s.best_iterates.len(), 2);
        let (any, feasible) = (
            s.best_iterates[0].as_ref().unwrap(),
            s.best_iterates[1].as_ref().unwrap(),
        );
        for b in [any, feasible] {
            let f = p.objective(&b.x).unwrap();
            assert!(
                (f - b.objective).abs() <= 1e-9 * f.abs(),
                "{f} vs {}",
                b.objective
            );
            assert!(b.iteration <= s.iterations);
        }
        // Without a level the best iterate is at or below the final one; the start (f = 16,
        // infeasible: Σx² = 52, not 40) is below the optimum.
        assert!(any.objective <= s.objective + 1e-12, "{any:?}");
        assert!(any.objective < HS071_OPTIMUM - 0.5, "{any:?}");
        assert!(any.max_violation > 1.0, "{any:?}");
        // Within 1e-6 no iterate can undercut the optimum by more than the violation allows.
        assert!(feasible.max_violation <= 1e-6, "{feasible:?}");
        assert!(
            (feasible.objective - HS071_OPTIMUM).abs() < 1e-4,
            "{feasible:?}"
        );
        // Not asked for: none kept.
        let plain = solve(&p, &SolverOptions::default()).unwrap();
        assert!(plain.best_iterates.is_empty());
    }

    fn check_hs071(hessian: HessianMode) -> usize {
        check_hs071_with(
            SolverOptions {
                hessian,
                ..Default::default()
            },
            1e-7,
        )
    }

    /// HS071 solved with `options` reaches the known optimum, feasible within `violation`, with
    /// its inequality active; the iterations it took.
    pub(crate) fn check_hs071_with(options: SolverOptions, violation: f64) -> usize {
        let p = AutoDiff::new(HS071).unwrap();
        let hessian = (options.backend, options.hessian);
        let s = solve(&p, &options).unwrap();
        assert!(s.status.is_success(), "{hessian:?}: {:?}", s.status);
        assert!(
            (s.objective - HS071_OPTIMUM).abs() < 1e-6,
            "{hessian:?}: f = {}",
            s.objective
        );
        for (got, want) in s.x.iter().zip(HS071_X) {
            assert!((got - want).abs() < 1e-5, "{hessian:?}: x = {:?}", s.x);
        }
        assert!(
            s.max_violation < violation,
            "{hessian:?}: violation {}",
            s.max_violation
        );
        // The inequality x₁x₂x₃x₄ ≥ 25 is active: its multiplier is non-zero.
        assert!(
            s.constraint_multipliers[0].abs() > 1e-3,
            "{:?}",
            s.constraint_multipliers
        );
        assert!(s.iterations > 0);
        assert!(s.callback_times.gradient.calls > 0);
        s.iterations
    }

    #[test]
    fn hs071_exact_and_l_bfgs_reach_the_known_optimum() {
        let exact = check_hs071(HessianMode::Exact);
        let lbfgs = check_hs071(HessianMode::LimitedMemory);
        assert!(
            exact <= lbfgs,
            "exact Hessian {exact} iterations, L-BFGS {lbfgs}"
        );
    }

    /// HS071 without its Hessian, whose objective panics after `panic_after` evaluations.
    pub(crate) struct Panicking {
        inner: AutoDiff<Hs071>,
        calls: std::cell::Cell<usize>,
        panic_after: usize,
    }

    impl Panicking {
        pub(crate) fn new(panic_after: usize) -> Self {
            Self {
                inner: AutoDiff::new(HS071).unwrap(),
                calls: Default::default(),
                panic_after,
            }
        }
    }

    impl NlpProblem for Panicking {
        fn num_variables(&self) -> usize {
            self.inner.num_variables()
        }
        fn num_constraints(&self) -> usize {
            self.inner.num_constraints()
        }
        fn variable_bounds(&self, l: &mut [f64], u: &mut [f64]) {
            self.inner.variable_bounds(l, u)
        }
        fn constraint_bounds(&self, l: &mut [f64], u: &mut [f64]) {
            self.inner.constraint_bounds(l, u)
        }
        fn initial_point(&self, x: &mut [f64]) {
            self.inner.initial_point(x)
        }
        fn objective(&self, x: &[f64]) -> Result<f64, EvalError> {
            self.calls.set(self.calls.get() + 1);
            if self.calls.get() > self.panic_after {
                panic!("objective blew up");
            }
            self.inner.objective(x)
        }
        fn objective_gradient(&self, x: &[f64], g: &mut [f64]) -> EvalResult {
            self.inner.objective_gradient(x, g)
        }
        fn constraints(&self, x: &[f64], g: &mut [f64]) -> EvalResult {
            self.inner.constraints(x, g)
        }
        fn jacobian_structure(&self) -> Vec<(usize, usize)> {
            self.inner.jacobian_structure()
        }
        fn jacobian_values(&self, x: &[f64], v: &mut [f64]) -> EvalResult {
            self.inner.jacobian_values(x, v)
        }
    }

    #[test]
    fn a_panicking_callback_is_a_status_not_a_crash() {
        let p = Panicking::new(3);
        let s = solve(&p, &SolverOptions::default()).unwrap();
        assert_eq!(s.status, SolveStatus::CallbackPanicked);
        assert_eq!(s.callback_error.as_deref(), Some("objective blew up"));
        assert!(!s.status.is_success());
    }

    #[test]
    fn exact_hessian_without_one_is_an_error_and_auto_falls_back_to_l_bfgs() {
        let p = Panicking::new(usize::MAX);
        let r = solve(
            &p,
            &SolverOptions {
                hessian: HessianMode::Exact,
                ..Default::default()
            },
        );
        assert!(matches!(r, Err(NlpError::NoExactHessian)), "{r:?}");
        let s = solve(&p, &SolverOptions::default()).unwrap();
        assert!(s.status.is_success(), "{:?}", s.status);
        assert!(
            (s.objective - HS071_OPTIMUM).abs() < 1e-6,
            "f = {}",
            s.objective
        );
    }

    #[test]
    fn cancel_flag_stops_the_solve() {
        let p = AutoDiff::new(HS071).unwrap();
        let cancel = Arc::new(AtomicBool::new(true));
        let s = solve(
            &p,
            &SolverOptions {
                cancel: Some(cancel),
                ..Default::default()
            },
        )
        .unwrap();
        assert_eq!(s.status, SolveStatus::UserRequestedStop);
        assert_eq!(s.iterations, 0);
    }

    #[test]
    fn unknown_option_is_rejected() {
        let p = AutoDiff::new(HS071).unwrap();
        let options = SolverOptions {
            extra: vec![("no_such_option".into(), OptionValue::Int(1))],
            ..Default::default()
        };
        assert!(matches!(
            solve(&p, &options),
            Err(NlpError::RejectedOption { .. })
        ));
    }

    #[test]
    fn iteration_limit_is_reported() {
        let p = AutoDiff::new(HS071).unwrap();
        let s = solve(
            &p,
            &SolverOptions {
                max_iterations: 2,
                ..Default::default()
            },
        )
        .unwrap();
        assert_eq!(s.status, SolveStatus::MaximumIterationsExceeded);
        assert_eq!(s.iterations, 2);
    }

    /// `initial_multipliers`: a solve started at a solution with the multipliers and barrier
    /// parameter it ended with (IPOPT's warm start) is already converged and keeps them, and
    /// multipliers of the wrong length are ignored.
    #[test]
    fn a_solve_starts_from_given_multipliers() {
        let p = AutoDiff::new(HS071).unwrap();
        let first = solve(&p, &SolverOptions::default()).unwrap();
        let at_solution = AutoDiff::new(Hs071 {
            start: first.x.clone().try_into().unwrap(),
        })
        .unwrap();
        assert_eq!(first.status, SolveStatus::Solved);
        assert!(first.final_barrier > 0.0 && first.final_barrier < 1e-6);
        let warm = |multipliers: crate::nlp::Multipliers| SolverOptions {
            max_iterations: 3,
            initial_multipliers: Some(multipliers),
            extra: vec![
                ("mu_init".into(), OptionValue::Num(first.final_barrier)),
                ("warm_start_bound_push".into(), OptionValue::Num(1e-12)),
                ("warm_start_mult_bound_push".into(), OptionValue::Num(1e-12)),
            ],
            ..Default::default()
        };
        let again = solve(&at_solution, &warm(first.multipliers())).unwrap();
        assert_eq!(again.status, SolveStatus::Solved, "{again:?}");
        assert!((again.objective - HS071_OPTIMUM).abs() < 1e-6);
        for (a, b) in again
            .constraint_multipliers
            .iter()
            .zip(&first.constraint_multipliers)
        {
            assert!((a - b).abs() < 1e-4 * (1.0 + b.abs()), "{a} {b}");
        }
        // The solve really starts from the given multipliers: with no iteration allowed it
        // returns them (doubled here), not IPOPT's own least-squares estimate (the solution's).
        let doubled = crate::nlp::Multipliers {
            constraints: first
                .constraint_multipliers
                .iter()
                .map(|v| 2.0 * v)
                .collect(),
            ..first.multipliers()
        };
        let start = solve(
            &at_solution,
            &SolverOptions {
                max_iterations: 0,
                ..warm(doubled.clone())
            },
        )
        .unwrap();
        for (a, b) in start
            .constraint_multipliers
            .iter()
            .zip(&doubled.constraints)
        {
            assert!((a - b).abs() < 1e-6 * (1.0 + b.abs()), "{a} {b}");
        }
        // Wrong lengths: a cold start from the same point (still solved, from IPOPT's own
        // multiplier estimate).
        let cold = solve(
            &at_solution,
            &SolverOptions {
                initial_multipliers: Some(crate::nlp::Multipliers {
                    constraints: vec![0.0; 1],
                    ..Default::default()
                }),
                ..Default::default()
            },
        )
        .unwrap();
        assert_eq!(cold.status, SolveStatus::Solved);
    }
}
