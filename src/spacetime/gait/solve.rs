//! Solving a gait NLP with IPOPT: the solver options, the warm-start options, the feasibility
//! projection of a solve that stopped short, keeping the best iterates, and the staged solve
//! (L-BFGS, then the exact Hessian).

#[cfg(feature = "ipopt")]
use super::*;

/// IPOPT options for gait solves: L-BFGS Hessian, and feasibility required to 1e-8 (mass-normalised
/// units) even for an "acceptable" stop.
pub fn gait_solver_options() -> crate::spacetime::SolverOptions {
    use crate::spacetime::nlp::{HessianMode, OptionValue};
    crate::spacetime::SolverOptions {
        hessian: HessianMode::LimitedMemory,
        tolerance: 1e-6,
        max_iterations: 1000,
        extra: vec![
            ("constr_viol_tol".into(), OptionValue::Num(1e-8)),
            ("acceptable_constr_viol_tol".into(), OptionValue::Num(1e-8)),
            ("acceptable_tol".into(), OptionValue::Num(1e-4)),
            ("mu_strategy".into(), OptionValue::Str("adaptive".into())),
        ],
        ..Default::default()
    }
}

/// IPOPT options for a solve that starts from a clip ([`GaitSpec::with_warm_start`]): a small
/// initial barrier parameter (1e-7, monotone), almost no push off the bounds, and a constant
/// initial L-BFGS curvature of 100 (in IPOPT's scaled problem), so the solve goes on from the
/// clip instead of first moving far away from it. With IPOPT's defaults, 60 iterations from a
/// 60-iteration monoped hop (cost 62.7) end at 108.8; with these, at 42.3, below 120 from the
/// rest pose (44.5). Simple biped walk, 100 + 100 iterations: 44.3, against 50.4 for 200 from
/// the rest pose. It is still not a descent method: the CLI keeps the start when the solve ends
/// above it.
pub fn warm_start_options() -> Vec<(String, crate::spacetime::OptionValue)> {
    use crate::spacetime::OptionValue::{Num, Str};
    vec![
        ("mu_init".into(), Num(1e-7)),
        ("mu_strategy".into(), Str("monotone".into())),
        ("bound_push".into(), Num(1e-10)),
        ("bound_frac".into(), Num(1e-10)),
        (
            "limited_memory_initialization".into(),
            Str("constant".into()),
        ),
        ("limited_memory_init_val".into(), Num(100.0)),
    ]
}

/// IPOPT options for the exact stage of [`solve_gait_staged`], which starts from the first
/// stage's clip and multipliers: IPOPT's adaptive barrier from 1e-4, and bound pushes of 1e-4.
/// The first stage's clip is far from the optimum (the horse's L-BFGS stage ends at cost
/// 1,677–3,614, its optimum is near 1), and with [`warm_start_options`]' fixed barrier of 1e-7
/// the iterates hug their bounds and take short steps. Horse trot, one row of twist per frame,
/// multipliers passed: 2,594 iterations to 1.0901, solved, against 3,045 to 1.1425 at the
/// iteration limit; simple biped walk at 0.7 m/s: 633 iterations to 1.0870 against 678 to
/// 1.0897.
pub fn exact_stage_options() -> Vec<(String, crate::spacetime::OptionValue)> {
    adaptive_barrier_options(Some(1e-4), 1e-4)
}

/// IPOPT's adaptive barrier (from `mu_init`, else IPOPT's default) with bound pushes and
/// fractions of `bound_push`.
fn adaptive_barrier_options(
    mu_init: Option<f64>,
    bound_push: f64,
) -> Vec<(String, crate::spacetime::OptionValue)> {
    use crate::spacetime::OptionValue::{Num, Str};
    let mut options = vec![("mu_strategy".into(), Str("adaptive".into()))];
    options.extend(mu_init.map(|mu| ("mu_init".into(), Num(mu))));
    options.push(("bound_push".into(), Num(bound_push)));
    options.push(("bound_frac".into(), Num(bound_push)));
    options
}

/// IPOPT options for a start clip that breaks a constraint of the problem at hand (one added
/// since it was solved, such as sole clearance): IPOPT's adaptive barrier and bound pushes of
/// 1e-3, so that the solve can move the start into the interior of the constraints it breaks.
/// With [`warm_start_options`]' barrier of 1e-7 (monotone) and pushes of 1e-10, the
/// exact-Hessian solves of the human's shipped 1.0 m/s walk and 2.6 m/s run with sole clearance
/// ended at costs 4,522 and 2,759. With these the run ends at 31.07, and the walk reaches 12.71,
/// feasible, within 540 iterations (the shipped clips cost 10.20 and 34.44 without the
/// constraint; solved from the rest pose with it, 16.51 and 95.27). The walk then never meets
/// its dual tolerance and ends in a failed restoration. Its projections cost 976,835 (IPOPT's
/// bound push moves each projected point off by about 1e-3, and the cost there is steep), so
/// the fallback takes its cheapest iterate feasible to 1e-6 as it is: 12.708.
pub fn refit_options() -> Vec<(String, crate::spacetime::OptionValue)> {
    adaptive_barrier_options(None, 1e-3)
}

/// The feasibility projection of a solve that stopped short of its tolerance: the same variables,
/// bounds and constraints, and the objective ½‖x − x̂‖² (x̂ the point reached), so IPOPT returns
/// the nearest point that meets every constraint to its tolerance and the gait barely changes.
#[cfg(feature = "ipopt")]
struct Projection<'a> {
    inner: &'a dyn crate::spacetime::NlpProblem,
    target: Vec<f64>,
}

#[cfg(feature = "ipopt")]
impl crate::spacetime::NlpProblem for Projection<'_> {
    fn num_variables(&self) -> usize {
        self.inner.num_variables()
    }
    fn num_constraints(&self) -> usize {
        self.inner.num_constraints()
    }
    fn variable_bounds(&self, lower: &mut [f64], upper: &mut [f64]) {
        self.inner.variable_bounds(lower, upper)
    }
    fn constraint_bounds(&self, lower: &mut [f64], upper: &mut [f64]) {
        self.inner.constraint_bounds(lower, upper)
    }
    fn initial_point(&self, x: &mut [f64]) {
        x.copy_from_slice(&self.target)
    }
    fn objective(&self, x: &[f64]) -> Result<f64, crate::spacetime::EvalError> {
        Ok(0.5
            * x.iter()
                .zip(&self.target)
                .map(|(a, b)| (a - b) * (a - b))
                .sum::<f64>())
    }
    fn objective_gradient(&self, x: &[f64], grad: &mut [f64]) -> crate::spacetime::nlp::EvalResult {
        for ((g, a), b) in grad.iter_mut().zip(x).zip(&self.target) {
            *g = a - b;
        }
        Ok(())
    }
    fn constraints(&self, x: &[f64], g: &mut [f64]) -> crate::spacetime::nlp::EvalResult {
        self.inner.constraints(x, g)
    }
    fn jacobian_structure(&self) -> Vec<(usize, usize)> {
        self.inner.jacobian_structure()
    }
    fn jacobian_values(&self, x: &[f64], values: &mut [f64]) -> crate::spacetime::nlp::EvalResult {
        self.inner.jacobian_values(x, values)
    }
}

/// The violation (mass-normalised) at which a start of the fallback is a gait as it is: a clip's
/// bar ([`GaitClip::is_valid`]).
const AS_IS_VIOLATION: f64 = 1e-6;

/// A projection is preferred to a start taken as it is (feasible to 1e-9 rather than 1e-6) when
/// it costs at most this many times the start.
#[cfg_attr(not(feature = "ipopt"), allow(dead_code))]
const AS_IS_MARGIN: f64 = 1.01;

/// [`GaitClip::projection_status`] of a solve whose fallback took a kept iterate as it is.
pub const FEASIBLE_AS_IS: &str = "feasible_as_is";

/// Whether the fallback of a solve that stopped short keeps its cheapest acceptable projection
/// (`true`) or its cheapest start that meets a clip's bar as it is (`false`), given their costs;
/// `None` when it has neither.
#[cfg_attr(not(feature = "ipopt"), allow(dead_code))]
fn keeps_projection(projection: Option<f64>, as_is: Option<f64>) -> Option<bool> {
    match (projection, as_is) {
        (Some(p), Some(a)) => Some(p <= AS_IS_MARGIN * a),
        (Some(_), None) => Some(true),
        (None, Some(_)) => Some(false),
        (None, None) => None,
    }
}

/// Violation levels (mass-normalised) at which a capped gait solve keeps its best iterate as a
/// further start for the projection ([`crate::spacetime::SolverOptions::keep_best`]).
pub const BEST_ITERATE_LEVELS: [f64; 3] = [1e-2, 1e-4, AS_IS_VIOLATION];

/// Solves the fixed-timing gait NLP of `spec`: IPOPT on the full problem (the L-BFGS Hessian of
/// [`gait_solver_options`]); if that stops before its tolerance (iteration limit, or feasible only
/// to more than 1e-9), the point reached is projected onto the constraints (nearest feasible
/// point, [`GaitClip::projection_status`]). IPOPT does not descend monotonically: a capped solve
/// often passed iterates of lower cost than its last one (the simple-biped walk: 9.99 at
/// iteration 800, 16.5 at 1000). So the best iterates within [`BEST_ITERATE_LEVELS`] are
/// projected too, and the clip is the projected point of lowest cost
/// ([`GaitClip::projected_from`] names the iteration it came from), unless a kept iterate already
/// feasible to 1e-6 (other than the start, iteration 0) costs less than every projection by over
/// 1 %: that one is taken as it is ([`FEASIBLE_AS_IS`]).
#[cfg(feature = "ipopt")]
pub fn solve_gait(
    spec: &GaitSpec,
    options: &crate::spacetime::SolverOptions,
    curvature: crate::spacetime::Curvature,
) -> Result<GaitClip, GaitError> {
    solve_gait_timed(spec, options, curvature).map(|(clip, _, _)| clip)
}

/// A solve's clip, the time spent in each problem callback (its projections' included), and the
/// multipliers of its last iterate when the clip is that iterate or its projection (a next
/// stage starts from them).
#[cfg(feature = "ipopt")]
type TimedSolve = (
    GaitClip,
    crate::nlp::CallbackTimes,
    Option<crate::nlp::Multipliers>,
);

/// The constraint violation at which a solve with the torques as variables may stop as
/// acceptable: its torque rows are then set from the motion they define.
pub const LIFTED_ACCEPTABLE_VIOLATION: f64 = 1e-6;

/// [`solve_gait`], with the time spent in each problem callback (its projections' included)
/// and the multipliers of [`TimedSolve`].
#[cfg(feature = "ipopt")]
fn solve_gait_timed(
    spec: &GaitSpec,
    options: &crate::spacetime::SolverOptions,
    curvature: crate::spacetime::Curvature,
) -> Result<TimedSolve, GaitError> {
    use crate::spacetime::NlpProblem;
    if let Some(half) = spec.half_cycle()? {
        // Half a mirror-symmetric cycle, unfolded and measured as the whole cycle. Its
        // multipliers are the half problem's, which a next stage (also solved as a half) takes.
        let (clip, callbacks, multipliers) = solve_gait_timed(&half, options, curvature)?;
        let mut whole = clip.unfold_half(spec)?;
        (whole.cost, whole.max_violation) = measure(spec, &whole)?;
        return Ok((whole, callbacks, multipliers));
    }
    let problem = GaitProblem::new(spec.clone());
    let nlp = crate::spacetime::AutoDiff::new(problem)?.with_curvature(curvature);
    let mut options = options.clone();
    options.keep_best = BEST_ITERATE_LEVELS.to_vec();
    if nlp.problem().lifted() {
        // IPOPT may stop where only the torque rows (set below) stay above 1e-8: 15 iterates in
        // a row within 1e-6 and its acceptable tolerance.
        for (name, value) in options.extra.iter_mut() {
            if name == "acceptable_constr_viol_tol"
                && *value == crate::spacetime::OptionValue::Num(1e-8)
            {
                *value = crate::spacetime::OptionValue::Num(LIFTED_ACCEPTABLE_VIOLATION);
            }
        }
    }
    let mut s = crate::spacetime::solve(&nlp, &options)?;
    if nlp.problem().lifted() {
        // Lifted torques are definitions: set them from the motion, loads and springs they
        // define. IPOPT holds their rows only to its steps' second-order error (1e-7 to 1e-5 on
        // the horse, whose inverse dynamics curve steeply), the other rows to its tolerance.
        let bounds = crate::nlp::Bounds::of(&nlp)?;
        nlp.problem().consistent_torques(&mut s.x);
        s.max_violation = crate::nlp::evaluate_violation(&nlp, &bounds, &s.x).1;
        s.objective = nlp.objective(&s.x).unwrap_or(f64::INFINITY);
        for b in s.best_iterates.iter_mut().flatten() {
            nlp.problem().consistent_torques(&mut b.x);
            b.objective = nlp.objective(&b.x).unwrap_or(f64::INFINITY);
            b.max_violation = crate::nlp::evaluate_violation(&nlp, &bounds, &b.x).1;
        }
    }
    let (mut x, mut violation, mut iterations, mut time) =
        (s.x.clone(), s.max_violation, s.iterations, s.solve_time);
    let mut callbacks = s.callback_times;
    let mut projection_status = None;
    let mut projected_from = None;
    if !(s.status == crate::spacetime::SolveStatus::Solved && s.max_violation <= 1e-9)
        && s.x.iter().all(|v| v.is_finite())
    {
        // Starts: the last iterate, then the kept ones of lower objective (each once).
        let mut starts: Vec<(usize, &[f64])> = vec![(s.iterations, &s.x)];
        for b in s.best_iterates.iter().flatten() {
            if b.objective < s.objective && starts.iter().all(|(k, _)| *k != b.iteration) {
                starts.push((b.iteration, &b.x));
            }
        }
        // A start that already meets a clip's bar (violation ≤ 1e-6) is a gait as it is. It is
        // taken when no projection is acceptable, or when every projection costs more than
        // [`AS_IS_MARGIN`] times it: a projection first pushes the point off its bounds, and
        // where the cost is steep it can land far up the objective (the 1.0 m/s walk with sole
        // clearance: 976,835 from iterates near its 12.71). Not the solve's own start
        // (iteration 0): a valid start that the solve did not beat is its caller's to keep,
        // measured by the problem and reported as kept (`run_gait`).
        let bounds = crate::nlp::Bounds::of(&nlp)?;
        let as_is: Option<(f64, usize, &[f64], f64)> = starts
            .iter()
            .filter(|(from, _)| *from > 0)
            .filter_map(|&(from, start)| {
                let (_, v) = crate::nlp::evaluate_violation(&nlp, &bounds, start);
                let cost = nlp.objective(start).unwrap_or(f64::INFINITY);
                (v <= AS_IS_VIOLATION && cost.is_finite()).then_some((cost, from, start, v))
            })
            .min_by(|a, b| a.0.total_cmp(&b.0));
        let mut popts = options.clone();
        popts.max_iterations = 1000;
        popts.hessian = crate::spacetime::HessianMode::LimitedMemory;
        popts.keep_best.clear();
        // The cheapest acceptable projection: (cost, the iteration it started from, its solve).
        let mut best: Option<(f64, usize, crate::spacetime::NlpSolution)> = None;
        let mut last_status = None;
        for &(from, start) in &starts {
            let projection = Projection {
                inner: &nlp,
                target: start.to_vec(),
            };
            let p = crate::spacetime::solve(&projection, &popts)?;
            iterations += p.iterations;
            time += p.solve_time;
            callbacks += p.callback_times;
            last_status.get_or_insert_with(|| p.status.label());
            // A projection must end feasible, and no less so than the point the solve stopped
            // at (unless both are within 1e-9).
            if !p.status.is_success() || !(p.max_violation < violation || p.max_violation <= 1e-9) {
                continue;
            }
            let cost = nlp.objective(&p.x).unwrap_or(f64::INFINITY);
            if best.as_ref().is_none_or(|b| cost < b.0) {
                best = Some((cost, from, p));
            }
        }
        match keeps_projection(best.as_ref().map(|b| b.0), as_is.as_ref().map(|a| a.0)) {
            Some(true) => {
                let (_, from, p) = best.expect("a projection");
                projection_status = Some(p.status.label());
                projected_from = Some(from);
                violation = p.max_violation;
                x = p.x;
            }
            Some(false) => {
                let (_, from, start, v) = as_is.expect("a start as it is");
                projection_status = Some(FEASIBLE_AS_IS.into());
                projected_from = Some(from);
                violation = v;
                x = start.to_vec();
            }
            None => projection_status = last_status,
        }
    }
    // The multipliers belong to the solve's last iterate, so only a clip of that point has them.
    let multipliers = (x == s.x || projected_from == Some(s.iterations)).then(|| s.multipliers());
    let cost = nlp.objective(&x).unwrap_or(f64::NAN);
    let p = nlp.problem();
    let clip = GaitClip {
        cost,
        projection_status,
        iterations,
        max_violation: violation,
        solve_time_s: time.as_secs_f64(),
        morphology: p.limb_shapes(&x),
        projected_from,
        ..GaitClip::unsolved(
            spec,
            p.poses(&x),
            p.loads(&x),
            p.passive(&x),
            &s.status.label(),
        )
    };
    Ok((clip, callbacks, multipliers))
}

/// The cost and the largest violation of `clip` as a point of `spec`'s NLP. A clip's own
/// figures belong to the problem it was solved for: a start kept in place of a solve's result
/// must be measured by the problem at hand, which may add a constraint (sole clearance, flat
/// feet, a ceiling) or weigh the objective otherwise (posture).
#[cfg(feature = "ipopt")]
pub fn measure(spec: &GaitSpec, clip: &GaitClip) -> Result<(f64, f64), GaitError> {
    use crate::spacetime::NlpProblem;
    let problem = GaitProblem::new(spec.clone().with_warm_start(clip.clone())?);
    let nlp = crate::spacetime::AutoDiff::new(problem)?;
    let mut x = vec![0.0; nlp.num_variables()];
    nlp.initial_point(&mut x);
    let bounds = crate::nlp::Bounds::of(&nlp)?;
    let (_, violation) = crate::nlp::evaluate_violation(&nlp, &bounds, &x);
    let cost = nlp.objective(&x).unwrap_or(f64::INFINITY);
    Ok((cost, violation))
}

/// The curvature of the first stage of [`solve_gait_staged`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FirstStage {
    /// IPOPT's L-BFGS approximation.
    Lbfgs,
    /// The exact Hessian with the least-squares objective's Gauss–Newton part in place of its
    /// own second derivatives ([`crate::spacetime::Curvature::GaussNewton`]). On the simple
    /// biped's walk at 0.7 m/s, 300 such iterations then the exact Hessian end at cost 0.899
    /// (794 iterations), below the L-BFGS start's 1.0897 (743); on the horse trot both stages
    /// end in restoration (49.3, against 2.651 from L-BFGS).
    GaussNewton,
}

/// L-BFGS iterations of the first stage of [`solve_gait_staged`] (the CLI's `--lbfgs-iterations`).
pub const STAGED_LBFGS_ITERATIONS: usize = 300;

/// The gait solve the CLI runs by default: IPOPT with L-BFGS for at most `lbfgs_iterations`
/// (projected as in [`solve_gait`]), then IPOPT with the exact Hessian started from that clip
/// ([`GaitSpec::with_warm_start`], [`exact_stage_options`]) for the rest of
/// `options.max_iterations`. From the rest pose the exact Hessian alone can go astray where the
/// curvature is indefinite (monoped hop, 0.7 m/s: cost 43.7 after 3,000 iterations, heavily
/// regularised steps), while L-BFGS first brings the gait near a valid one (28.8 after 300) and
/// the exact stage then converges (8.22, IPOPT's tolerance met after 1,883 more, 30 s). The
/// result is the second stage's clip unless that ended invalid or above the first's; its
/// iteration count and time are the two stages' sums. A first stage that already met the
/// tolerance, or a budget of no more than `lbfgs_iterations`, is the L-BFGS solve alone.
#[cfg(feature = "ipopt")]
pub fn solve_gait_staged(
    spec: &GaitSpec,
    options: &crate::spacetime::SolverOptions,
    lbfgs_iterations: usize,
    first_stage: FirstStage,
) -> Result<(GaitClip, Vec<StageSummary>), GaitError> {
    let mut first_options = options.clone();
    first_options.max_iterations = lbfgs_iterations.min(options.max_iterations);
    let (name, curvature) = match first_stage {
        FirstStage::Lbfgs => {
            first_options.hessian = crate::spacetime::HessianMode::LimitedMemory;
            ("lbfgs", crate::spacetime::Curvature::Exact)
        }
        FirstStage::GaussNewton => {
            first_options.hessian = crate::spacetime::HessianMode::Exact;
            ("gauss-newton", crate::spacetime::Curvature::GaussNewton)
        }
    };
    let (first, times, multipliers) = solve_gait_timed(spec, &first_options, curvature)?;
    let mut stages = vec![StageSummary::of(name, spec, &first, times)?];
    if first.status == "solved"
        || options.max_iterations <= first_options.max_iterations
        || first.frames.iter().flatten().any(|v| !v.is_finite())
    {
        return Ok((first, stages));
    }
    let second_spec = spec.clone().with_warm_start(first.clone())?;
    let mut second_options = options.clone();
    second_options.hessian = crate::spacetime::HessianMode::Exact;
    second_options.max_iterations = options.max_iterations - first_options.max_iterations;
    second_options.extra.extend(exact_stage_options());
    second_options.initial_multipliers = multipliers;
    let (second, times, _) = solve_gait_timed(
        &second_spec,
        &second_options,
        crate::spacetime::Curvature::Exact,
    )?;
    stages.push(StageSummary::of("exact", spec, &second, times)?);
    let (iterations, time) = (
        first.iterations + second.iterations,
        first.solve_time_s + second.solve_time_s,
    );
    let best = if second.is_valid() && (!first.is_valid() || second.cost <= first.cost) {
        second
    } else {
        first
    };
    Ok((
        GaitClip {
            iterations,
            solve_time_s: time,
            ..best
        },
        stages,
    ))
}

/// One solve with the exact Hessian from the spec's start (`gait --hessian exact`), as one
/// stage named `exact`.
#[cfg(feature = "ipopt")]
pub fn solve_gait_exact(
    spec: &GaitSpec,
    options: &crate::spacetime::SolverOptions,
) -> Result<(GaitClip, Vec<StageSummary>), GaitError> {
    let mut exact = options.clone();
    exact.hessian = crate::spacetime::HessianMode::Exact;
    let (clip, times, _) = solve_gait_timed(spec, &exact, crate::spacetime::Curvature::Exact)?;
    let stage = StageSummary::of("exact", spec, &clip, times)?;
    Ok((clip, vec![stage]))
}

/// How one stage of [`solve_gait_staged`] ended.
#[derive(Debug, Clone, PartialEq)]
pub struct StageSummary {
    /// `lbfgs`, `gauss-newton` or `exact`.
    pub hessian: &'static str,
    pub status: String,
    pub projection_status: Option<String>,
    pub cost: f64,
    pub max_violation: f64,
    pub iterations: usize,
    /// Wall time of the stage's solves (its projections' included).
    pub seconds: f64,
    /// Time in each problem callback; the rest of `seconds` is IPOPT's own (factorizations).
    pub callbacks: crate::nlp::CallbackTimes,
    /// The stage's clip's largest audit residual ([`audit`]).
    pub audit: f64,
}

impl StageSummary {
    #[cfg(feature = "ipopt")]
    fn of(
        hessian: &'static str,
        spec: &GaitSpec,
        clip: &GaitClip,
        callbacks: crate::nlp::CallbackTimes,
    ) -> Result<Self, GaitError> {
        let audit = if clip.frames.iter().flatten().all(|v| v.is_finite()) {
            audit(&clip.body(&spec.skeleton)?, clip, spec.mu, spec.nu).max()
        } else {
            f64::INFINITY
        };
        Ok(Self {
            hessian,
            status: clip.status.clone(),
            projection_status: clip.projection_status.clone(),
            cost: clip.cost,
            max_violation: clip.max_violation,
            iterations: clip.iterations,
            seconds: clip.solve_time_s,
            callbacks,
            audit,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A failed solve's fallback keeps a start that meets a clip's bar as it is when every
    /// projection lands far up the objective (the 1.0 m/s walk with sole clearance: projections
    /// from 976,835, its last iterate 13.53 at violation 2.4e-7), and a projection (feasible to
    /// 1e-9) when it costs at most 1 % more.
    #[test]
    fn the_fallback_prefers_a_projection_unless_it_costs_far_more() {
        assert_eq!(keeps_projection(Some(976_834.7), Some(13.53)), Some(false));
        assert_eq!(keeps_projection(Some(37.6037), Some(37.6036)), Some(true));
        assert_eq!(keeps_projection(Some(13.60), Some(13.53)), Some(true));
        assert_eq!(keeps_projection(Some(13.70), Some(13.53)), Some(false));
        assert_eq!(keeps_projection(Some(5.0), None), Some(true));
        assert_eq!(keeps_projection(None, Some(5.0)), Some(false));
        assert_eq!(keeps_projection(None, None), None);
    }
}
