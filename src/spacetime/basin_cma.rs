//! Basin-CMA (Wampler 2012, thesis §3.3.2): CMA-ES over f∘g, where g(x) projects a sample
//! to a nearby constrained local minimum with the NLP solver.
//!
//! - Every variable of the [`NlpProblem`] carries a [`VarRole`]: `CmaOnly` (sampled by CMA,
//!   held fixed in the local solve), `Both` (sampled by CMA, then free in the local solve) or
//!   `LocalOnly` (not sampled; each local solve starts it from the problem's initial point).
//! - Each CMA sample is completed with the local-only values and projected by one IPOPT solve
//!   (minimize f subject to the constraints, from that point).
//! - A projection is *feasible* when its largest bound or constraint violation is at most
//!   [`BasinOptions::feasibility_tolerance`]. CMA is then told f at the projected point, and the
//!   sample is replaced by its projection (injected into CMA-ES, whose step of an injected point
//!   is clipped in Mahalanobis norm, Hansen 2011), so the mean and covariance follow the projected
//!   elites. Infeasible or failed projections are ranked after every feasible one, at the
//!   original sample, by violation, failures last (the one rule of every search,
//!   [`crate::optim::scheduler::Verdict`]; the search itself is [`crate::optim::basin`]).
//! - Initialisation (§3.3.3): the CMA mean is the problem's initial point; the search runs in
//!   coordinates scaled per variable by the largest distance from the mean to either bound (500
//!   for a variable without two finite bounds), so the thesis's wide diagonal covariance is
//!   σ₀ = [`BasinOptions::sigma0`] (1 = one such distance as standard deviation). Bounded
//!   variables are kept in their box by CMA-ES's mirroring. BIPOP restarts start from random
//!   points of the box once a run stagnates.
//! - Counting (documented for CEC 2006 comparisons, App. B's first ratio): one *value
//!   evaluation* is one point at which the solver evaluated f and/or c (f and c at the same point
//!   count once, as a CEC "FES" is one evaluation of the objective with all its constraints); one
//!   *derivative evaluation* is one point at which ∇f and/or the Jacobian were evaluated (counted
//!   as one evaluation, the thesis's ratio₁ convention); every Hessian-of-the-Lagrangian
//!   evaluation also counts one. [`EvaluationCounts::total`] is their sum and is what budgets
//!   and reports use.
//! - The run is sequential (IPOPT solves are serialized process-wide anyway) and deterministic
//!   for a seed.

use super::nlp::{EvalError, EvalResult, NlpProblem, SolveStatus, SolverOptions};
use crate::nlp::solve;
use crate::optim::basin::{BasinCma, Projection, verdict};
use crate::optim::scheduler::Verdict;
use crate::optim::{Bounds as BoxBounds, CmaesOptions, RestartPolicy};
use std::cell::{Cell, RefCell};

/// Which optimizer a variable belongs to (§3.3.3).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum VarRole {
    /// Sampled by CMA-ES, fixed during the local solve.
    CmaOnly,
    /// Sampled by CMA-ES, then optimized by the local solve.
    Both,
    /// Optimized by the local solve only, from the problem's initial value.
    LocalOnly,
}

/// Stop as soon as a feasible projection satisfies |f − value| ≤ tolerance.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Target {
    pub value: f64,
    pub tolerance: f64,
}

#[derive(Debug, Clone)]
pub struct BasinOptions {
    pub seed: u64,
    /// Initial CMA step size in the scaled coordinates (see the module notes).
    pub sigma0: f64,
    /// CMA population λ (default 4 + ⌊3 ln n⌋).
    pub population: Option<usize>,
    /// Budget of [`EvaluationCounts::total`]; the run stops after the projection that reaches it.
    pub max_evaluations: u64,
    pub target: Option<Target>,
    /// Largest violation of a projection that is still feasible.
    pub feasibility_tolerance: f64,
    /// Options of each local solve.
    pub solver: SolverOptions,
}

impl Default for BasinOptions {
    fn default() -> Self {
        Self {
            seed: 1,
            sigma0: 1.0,
            population: None,
            max_evaluations: 500_000,
            target: None,
            feasibility_tolerance: 1e-4,
            solver: SolverOptions {
                max_iterations: 500,
                ..Default::default()
            },
        }
    }
}

/// Function evaluations made by the local solves (see the module notes).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct EvaluationCounts {
    pub values: u64,
    pub derivatives: u64,
    pub hessians: u64,
}

impl EvaluationCounts {
    pub fn total(&self) -> u64 {
        self.values + self.derivatives + self.hessians
    }
}

/// Outcome of a basin-CMA run.
#[derive(Debug, Clone)]
pub struct BasinResult {
    /// The best feasible projection (lowest f), if any.
    pub best: Option<BasinPoint>,
    pub evaluations: EvaluationCounts,
    /// Evaluations spent when the target was first reached.
    pub evaluations_to_target: Option<u64>,
    pub projections: u64,
    pub feasible_projections: u64,
    pub generations: u64,
    pub restarts: u32,
}

impl BasinResult {
    pub fn reached_target(&self) -> bool {
        self.evaluations_to_target.is_some()
    }
}

#[derive(Debug, Clone)]
pub struct BasinPoint {
    pub x: Vec<f64>,
    pub objective: f64,
    pub violation: f64,
    pub status: SolveStatus,
}

/// The problem as one local solve sees it: CMA-only variables fixed at the sample, the others
/// starting from the sample (CMA variables) or the problem's initial point (local-only), and
/// every evaluation counted.
struct LocalProblem<'a> {
    inner: &'a dyn NlpProblem,
    start: Vec<f64>,
    fixed: &'a [bool],
    counts: Cell<EvaluationCounts>,
    last_value_x: RefCell<Vec<f64>>,
    last_derivative_x: RefCell<Vec<f64>>,
}

impl LocalProblem<'_> {
    fn count(&self, last: &RefCell<Vec<f64>>, x: &[f64], derivative: bool) {
        let mut last = last.borrow_mut();
        if last.as_slice() != x {
            last.clear();
            last.extend_from_slice(x);
            let mut c = self.counts.get();
            if derivative {
                c.derivatives += 1;
            } else {
                c.values += 1;
            }
            self.counts.set(c);
        }
    }
}

impl NlpProblem for LocalProblem<'_> {
    fn num_variables(&self) -> usize {
        self.inner.num_variables()
    }
    fn num_constraints(&self) -> usize {
        self.inner.num_constraints()
    }
    fn variable_bounds(&self, lower: &mut [f64], upper: &mut [f64]) {
        self.inner.variable_bounds(lower, upper);
        for (i, &fixed) in self.fixed.iter().enumerate() {
            if fixed {
                lower[i] = self.start[i];
                upper[i] = self.start[i];
            }
        }
    }
    fn constraint_bounds(&self, lower: &mut [f64], upper: &mut [f64]) {
        self.inner.constraint_bounds(lower, upper)
    }
    fn initial_point(&self, x: &mut [f64]) {
        x.copy_from_slice(&self.start);
    }
    fn objective(&self, x: &[f64]) -> Result<f64, EvalError> {
        self.count(&self.last_value_x, x, false);
        self.inner.objective(x)
    }
    fn objective_gradient(&self, x: &[f64], grad: &mut [f64]) -> EvalResult {
        self.count(&self.last_derivative_x, x, true);
        self.inner.objective_gradient(x, grad)
    }
    fn constraints(&self, x: &[f64], g: &mut [f64]) -> EvalResult {
        self.count(&self.last_value_x, x, false);
        self.inner.constraints(x, g)
    }
    fn jacobian_structure(&self) -> Vec<(usize, usize)> {
        self.inner.jacobian_structure()
    }
    fn jacobian_values(&self, x: &[f64], values: &mut [f64]) -> EvalResult {
        self.count(&self.last_derivative_x, x, true);
        self.inner.jacobian_values(x, values)
    }
    fn hessian_structure(&self) -> Option<Vec<(usize, usize)>> {
        self.inner.hessian_structure()
    }
    fn hessian_values(
        &self,
        x: &[f64],
        objective_factor: f64,
        lambda: &[f64],
        values: &mut [f64],
    ) -> EvalResult {
        let mut c = self.counts.get();
        c.hessians += 1;
        self.counts.set(c);
        self.inner
            .hessian_values(x, objective_factor, lambda, values)
    }
}

/// Runs basin-CMA on `problem` with one role per variable. Panics if `roles` does not have one
/// entry per variable or no variable is sampled by CMA.
pub fn basin_cma(
    problem: &dyn NlpProblem,
    roles: &[VarRole],
    options: &BasinOptions,
) -> BasinResult {
    let n = problem.num_variables();
    assert_eq!(roles.len(), n, "basin-CMA needs one role per variable");
    let cma_vars: Vec<usize> = (0..n).filter(|&i| roles[i] != VarRole::LocalOnly).collect();
    assert!(
        !cma_vars.is_empty(),
        "basin-CMA needs at least one CMA variable"
    );
    let fixed: Vec<bool> = roles.iter().map(|r| *r == VarRole::CmaOnly).collect();
    let (mut lower, mut upper) = (vec![f64::NEG_INFINITY; n], vec![f64::INFINITY; n]);
    problem.variable_bounds(&mut lower, &mut upper);
    let mut x0 = vec![0.0; n];
    problem.initial_point(&mut x0);

    // Scaled coordinates u = (x − centre)/scale over the CMA variables.
    let mut centre = Vec::with_capacity(cma_vars.len());
    let mut scale = Vec::with_capacity(cma_vars.len());
    let (mut u_lo, mut u_hi) = (Vec::new(), Vec::new());
    for &i in &cma_vars {
        let (lo, hi) = (lower[i], upper[i]);
        let bounded = lo.is_finite() && hi.is_finite() && lo < hi;
        let c = if bounded { x0[i].clamp(lo, hi) } else { x0[i] };
        let s = if bounded { (c - lo).max(hi - c) } else { 500.0 };
        centre.push(c);
        scale.push(s);
        // Unbounded directions get a wide artificial box (±10 scales = ±5000) so that the
        // mirroring and the restarts' uniform starting points stay defined.
        if bounded {
            u_lo.push((lo - c) / s);
            u_hi.push((hi - c) / s);
        } else {
            u_lo.push(-10.0);
            u_hi.push(10.0);
        }
    }
    let cma_options = CmaesOptions {
        population: options.population,
        seed: options.seed,
        bounds: Some(BoxBounds::new(u_lo, u_hi).expect("scaled bounds are ordered")),
        tol_fun: 1e-10,
        tol_x: 1e-10,
        max_evaluations: None,
        active: true,
    };
    let mut basin = BasinCma::new(
        &vec![0.0; cma_vars.len()],
        options.sigma0,
        cma_options,
        RestartPolicy::Bipop,
        options.feasibility_tolerance,
    );

    let mut solver = options.solver.clone();
    if !solver
        .extra
        .iter()
        .any(|(name, _)| name == "bound_relax_factor")
    {
        // Keep every iterate inside the box (some CEC functions take logarithms at the bounds).
        solver.extra.push((
            "bound_relax_factor".into(),
            super::nlp::OptionValue::Num(0.0),
        ));
    }
    let mut result = BasinResult {
        best: None,
        evaluations: EvaluationCounts::default(),
        evaluations_to_target: None,
        projections: 0,
        feasible_projections: 0,
        generations: 0,
        restarts: 0,
    };
    let mut stop = false;
    while !stop {
        // The samples are projected one after the other (IPOPT solves are serialized process
        // wide); the run stops after the projection that reaches the target or the budget.
        basin.generation(&mut |samples: &[Vec<f64>]| -> Vec<Option<Projection>> {
            let mut out = Vec::with_capacity(samples.len());
            for u in samples {
                let mut start = x0.clone();
                for (k, &i) in cma_vars.iter().enumerate() {
                    start[i] = centre[k] + scale[k] * u[k];
                    // Mirroring keeps u in the box; round-off may not.
                    if lower[i].is_finite() && upper[i].is_finite() {
                        start[i] = start[i].clamp(lower[i], upper[i]);
                    }
                }
                let projection = LocalProblem {
                    inner: problem,
                    start,
                    fixed: &fixed,
                    counts: Cell::new(EvaluationCounts::default()),
                    last_value_x: RefCell::new(Vec::new()),
                    last_derivative_x: RefCell::new(Vec::new()),
                };
                let solution = solve(&projection, &solver);
                let used = projection.counts.get();
                result.evaluations.values += used.values;
                result.evaluations.derivatives += used.derivatives;
                result.evaluations.hessians += used.hessians;
                result.projections += 1;
                let projected = match solution {
                    Ok(s) => {
                        let p = Projection {
                            objective: s.objective,
                            violation: s.max_violation,
                            moved_to: Some(
                                cma_vars
                                    .iter()
                                    .enumerate()
                                    .map(|(k, &i)| (s.x[i] - centre[k]) / scale[k])
                                    .collect(),
                            ),
                        };
                        if verdict(Some(&p), options.feasibility_tolerance).is_feasible() {
                            result.feasible_projections += 1;
                            if result
                                .best
                                .as_ref()
                                .is_none_or(|b| s.objective < b.objective)
                            {
                                result.best = Some(BasinPoint {
                                    x: s.x,
                                    objective: s.objective,
                                    violation: s.max_violation,
                                    status: s.status,
                                });
                            }
                        }
                        Some(p)
                    }
                    Err(_) => None,
                };
                let judged = verdict(projected.as_ref(), options.feasibility_tolerance);
                out.push(projected);
                if let (Some(t), Verdict::Feasible(value)) = (options.target, judged)
                    && (value - t.value).abs() <= t.tolerance
                {
                    result.evaluations_to_target = Some(result.evaluations.total());
                    stop = true;
                    break;
                }
                if result.evaluations.total() >= options.max_evaluations {
                    stop = true;
                    break;
                }
            }
            out
        });
        if !stop {
            result.generations += 1;
        }
    }
    result.restarts = basin.restarts();
    result
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::optim::cec2006::{Cec2006, Cec2006Nlp};
    use crate::spacetime::AutoDiff;

    fn run(number: usize, seed: u64) -> (BasinResult, f64) {
        let p = Cec2006::new(number).unwrap();
        let nlp = AutoDiff::new(Cec2006Nlp::new(p)).unwrap();
        let roles = vec![VarRole::Both; p.dimension()];
        let options = BasinOptions {
            seed,
            max_evaluations: 200_000,
            target: Some(Target {
                value: p.best_known_value(),
                tolerance: 1e-4,
            }),
            ..Default::default()
        };
        (basin_cma(&nlp, &roles, &options), p.best_known_value())
    }

    #[test]
    fn g06_and_g08_reach_the_cec_target() {
        for number in [6, 8] {
            let (r, target) = run(number, 7);
            let best = r.best.as_ref().expect("a feasible projection");
            assert!(
                r.reached_target(),
                "g{number:02}: best {} (target {target}) after {:?}",
                best.objective,
                r.evaluations
            );
            assert!(
                (best.objective - target).abs() <= 1e-4 && best.violation <= 1e-4,
                "g{number:02}: {best:?}"
            );
            let p = Cec2006::new(number).unwrap();
            assert!(
                p.violation(&best.x) <= 1e-6,
                "g{number:02}: CEC violation {}",
                p.violation(&best.x)
            );
            assert!(r.evaluations.values > 0 && r.evaluations.derivatives > 0);
            assert_eq!(r.evaluations_to_target, Some(r.evaluations.total()));
        }
    }

    #[test]
    fn runs_are_deterministic_for_a_seed() {
        let (a, _) = run(8, 3);
        let (b, _) = run(8, 3);
        assert_eq!(a.evaluations, b.evaluations);
        assert_eq!(a.best.unwrap().x, b.best.unwrap().x);
    }

    /// A CMA-only variable is held at its sample by the local solve; a local-only one starts from
    /// the problem's initial point: min (x−2)² + (y−3)² with x CMA-only in [0, 1] and y
    /// local-only is solved at x = 1, y = 3 once CMA has pushed x to its bound.
    #[test]
    fn roles_fix_and_free_variables() {
        use crate::spacetime::autodiff::{BlockProblem, BlockSpec, Scalar, TermSpec};
        struct Quad;
        impl BlockProblem for Quad {
            fn num_variables(&self) -> usize {
                2
            }
            fn variable_bounds(&self, lower: &mut [f64], upper: &mut [f64]) {
                lower[0] = 0.0;
                upper[0] = 1.0;
                lower[1] = -10.0;
                upper[1] = 10.0;
            }
            fn initial_point(&self, x: &mut [f64]) {
                x[0] = 0.5;
                x[1] = -5.0;
            }
            fn objective_terms(&self) -> Vec<TermSpec> {
                vec![TermSpec {
                    variables: vec![0, 1],
                }]
            }
            fn objective_term<D: Scalar>(&self, _: usize, x: &[D]) -> D {
                (x[0].clone() - 2.0).powi(2) + (x[1].clone() - 3.0).powi(2)
            }
            fn constraint_blocks(&self) -> Vec<BlockSpec> {
                vec![]
            }
            fn constraint_block<D: Scalar>(&self, _: usize, _: &[D]) -> Vec<D> {
                vec![]
            }
        }
        let nlp = AutoDiff::new(Quad).unwrap();
        let options = BasinOptions {
            max_evaluations: 3000,
            ..Default::default()
        };
        let r = basin_cma(&nlp, &[VarRole::CmaOnly, VarRole::LocalOnly], &options);
        let best = r.best.unwrap();
        assert!((best.x[1] - 3.0).abs() < 1e-6, "{best:?}");
        assert!(best.x[0] > 0.99 && best.x[0] <= 1.0, "{best:?}");
    }
}
