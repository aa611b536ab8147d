//! `motionlab bench gait`: single fixed-contact gait solves timed stage by stage (Wampler 2012,
//! thesis §3.3), each derivative callback's share and the solver's own.

#[cfg(feature = "ipopt")]
use crate::spacetime_cli::print_stages;
use anyhow::Result;

/// `bench gait`'s per-stage table: iterations, time per iteration, status, cost, violation and
/// audit, then each derivative callback's calls and milliseconds per call (f, c, ∇f, the
/// Jacobian, the Hessian) and the solver's own share of the time.
#[cfg(feature = "ipopt")]
fn print_stage_table(stages: &[motionlab::spacetime::gait::StageSummary]) {
    println!(
        "  {:<6} {:>6} {:>8} {:>8} {:<28} {:>10} {:>9} {:>9} | {:>14} {:>14} {:>14} {:>14} {:>14} {:>8}",
        "stage",
        "iters",
        "s",
        "ms/iter",
        "status",
        "cost",
        "violation",
        "audit",
        "f",
        "c",
        "grad f",
        "jac c",
        "hess L",
        "ipopt s"
    );
    for s in stages {
        let c = &s.callbacks;
        let inside = c.objective.seconds
            + c.constraints.seconds
            + c.gradient.seconds
            + c.jacobian.seconds
            + c.hessian.seconds;
        let cell =
            |t: &motionlab::nlp::CallbackTime| format!("{}×{:.3}ms", t.calls, t.ms_per_call());
        println!(
            "  {:<6} {:>6} {:>8.2} {:>8.2} {:<28} {:>10.4} {:>9.1e} {:>9.1e} | {:>14} {:>14} {:>14} {:>14} {:>14} {:>8.2}",
            s.hessian,
            s.iterations,
            s.seconds,
            1e3 * s.seconds / s.iterations.max(1) as f64,
            format!(
                "{}/{}",
                s.status,
                s.projection_status.as_deref().unwrap_or("none")
            ),
            s.cost,
            s.max_violation,
            s.audit,
            cell(&c.objective),
            cell(&c.constraints),
            cell(&c.gradient),
            cell(&c.jacobian),
            cell(&c.hessian),
            s.seconds - inside
        );
    }
}

/// The benchmark's cases: (character file, speed, period and contacts; none: the creature's
/// default timing). The simple biped's walk is CasADi's 5-link biped's counterpart, the horse's
/// trot the thesis's heaviest creature.
#[cfg(feature = "ipopt")]
const CASES: [(&str, f64, Option<(f64, &str)>); 2] = [
    ("simple_biped.ron", 0.7, None),
    (
        "horse.ron",
        1.0,
        Some((
            0.8,
            "lh_pastern:0:0.6,rf_pastern:0:0.6,rh_pastern:0.5:0.6,lf_pastern:0.5:0.6",
        )),
    ),
];

/// Each case (those whose file name starts with `only`, every one without it) with each solver
/// asked for (`solver`, else every one built in), in that order.
#[cfg(feature = "ipopt")]
fn case_runs(
    solver: Option<motionlab::nlp::Backend>,
    only: Option<&str>,
) -> Vec<(
    (&'static str, f64, Option<(f64, &'static str)>),
    motionlab::nlp::Backend,
)> {
    let backends: Vec<motionlab::nlp::Backend> = match solver {
        Some(b) => vec![b],
        None => motionlab::nlp::Backend::built_in().collect(),
    };
    CASES
        .into_iter()
        .filter(|(file, ..)| only.is_none_or(|o| file.starts_with(o)))
        .flat_map(|case| backends.iter().map(move |&b| (case, b)))
        .collect()
}

/// `motionlab bench gait --seeds N`: what `motionlab gait` does by default, timed: each case's
/// request takes the character file's solve settings
/// ([`motionlab::spacetime::job::GaitRequest::with_solve_settings`]: the simple biped's pair of
/// starts on half its cycle, the horse's lifted monotone solve) and runs through
/// [`motionlab::spacetime::job::run_gait`] with its starts side by side in their own processes
/// (`threads` at a time, 0: one per core), for seeds 0 to N − 1. One line per seed (the kept
/// cost, its validity, the wall time from request to audited clip, each start's cost), then the
/// spread over the seeds: the optimum a user gets is a distribution, not one path (Wampler 2012,
/// thesis §3.3, the many local minima of the gait NLP). `only` keeps the cases whose file name
/// starts with it; `quick` caps each start at 100 iterations.
#[cfg(feature = "ipopt")]
pub fn bench_gait_seeds(
    quick: bool,
    characters: &std::path::Path,
    solver: Option<motionlab::nlp::Backend>,
    seeds: usize,
    only: Option<&str>,
    threads: usize,
) -> Result<()> {
    use motionlab::spacetime::gait::parse_timings;
    use motionlab::spacetime::job::{GaitRequest, ProcessPool, run_gait};
    use motionlab::spacetime::skeleton::Skeleton;
    let runs = case_runs(solver, only);
    anyhow::ensure!(
        !runs.is_empty(),
        "--case {:?} names no case: expected simple_biped or horse",
        only.unwrap_or_default()
    );
    for ((file, speed, timing), backend) in runs {
        let path = characters.join(file);
        let skeleton = Skeleton::load(&path)?;
        let name = skeleton.name.replace(' ', "_");
        let mut runs = Vec::new();
        for seed in 0..seeds as u64 {
            let request = GaitRequest {
                period: timing.map(|(p, _)| p),
                contacts: timing.map(|(_, c)| parse_timings(c)).transpose()?,
                seed,
                solver: backend,
                max_iterations: if quick { 100 } else { 3000 },
                ..GaitRequest::new(&path, speed)
            }
            .with_solve_settings(skeleton.solve, Default::default(), None);
            let mut pool = ProcessPool::this_program(threads)?;
            let clock = std::time::Instant::now();
            let outcome = run_gait(&request, &mut pool, &mut |_| {})?;
            let wall = clock.elapsed().as_secs_f64();
            let costs: Vec<String> = (outcome.starts.iter())
                .map(|s| format!("{:.6}", s.cost))
                .collect();
            let clip = &outcome.clip;
            println!(
                "pipeline gait {name} solver {} seed {seed} starts {} mirror_half {} variables {} cost {:.6} valid {} max_violation {:.2e} wall_s {wall:.2} start_costs {}",
                backend.label(),
                request.starts,
                outcome.spec.is_mirror_half(),
                outcome.variables,
                clip.cost,
                clip.is_valid(),
                clip.max_violation,
                if costs.is_empty() {
                    format!("{:.6}", clip.cost)
                } else {
                    costs.join(",")
                }
            );
            runs.push((clip.is_valid().then_some(clip.cost), wall));
        }
        let mut costs: Vec<f64> = runs.iter().filter_map(|r| r.0).collect();
        costs.sort_by(f64::total_cmp);
        let mut walls: Vec<f64> = runs.iter().map(|r| r.1).collect();
        walls.sort_by(f64::total_cmp);
        let show = |v: Option<f64>| v.map_or("none".to_string(), |v| format!("{v:.6}"));
        let median = |v: &[f64]| match v.len() {
            0 => f64::NAN,
            n if n % 2 == 1 => v[n / 2],
            n => 0.5 * (v[n / 2 - 1] + v[n / 2]),
        };
        println!(
            "pipeline_spread gait {name} solver {} seeds {seeds} valid {} cost_min {} cost_median {} cost_max {} wall_median_s {:.2} costs {}",
            backend.label(),
            costs.len(),
            show(costs.first().copied()),
            show((!costs.is_empty()).then(|| median(&costs))),
            show(costs.last().copied()),
            median(&walls),
            costs
                .iter()
                .map(|c| format!("{c:.4}"))
                .collect::<Vec<_>>()
                .join(",")
        );
    }
    Ok(())
}

/// `motionlab bench gait`: single fixed-contact solves (Wampler 2012 "one spacetime solve
/// takes about 30 s for the simplified biped, up to about 10 min for the horse"): the simple biped
/// walking at 0.7 m/s (default timings) and the horse trotting at 1 m/s (period 0.8 s, diagonal
/// pairs down 0.6 of the cycle), each from the rest pose with the gait command's default solve
/// (the creature's L-BFGS stage, 300 unless its file says otherwise, then the exact Hessian, at
/// most 3000 in all; `--quick`: 100 L-BFGS iterations only), projected if stopped by the limit. One line per solve:
/// wall time, iterations, time per iteration, status, cost and violation.
#[cfg(feature = "ipopt")]
pub fn bench_gait(
    quick: bool,
    characters: &std::path::Path,
    solver: Option<motionlab::nlp::Backend>,
    starts: usize,
    torques: motionlab::spacetime::gait::Torques,
) -> Result<()> {
    use motionlab::spacetime::gait::{
        GaitSpec, STAGED_LBFGS_ITERATIONS, Torques, audit, default_timings, gait_solver_options,
        parse_timings, solve_gait_exact, solve_gait_staged,
    };
    use motionlab::spacetime::job::starts;
    use motionlab::spacetime::skeleton::Skeleton;
    // Each solve's L-BFGS stage is the character file's own
    // (`gait: (lbfgs_iterations: …)`): the horse's exact stage fails in restoration from 300
    // L-BFGS iterations and converges from 1,500 (docs/gaits.md, Limits: "The horse needs a long L-BFGS
    // stage"), so its bench times the solve that reaches IPOPT's tolerance.
    let mut options = gait_solver_options();
    options.max_iterations = if quick { 100 } else { 3000 };
    for ((file, speed, timing), backend) in case_runs(solver, None) {
        options.backend = backend;
        let skeleton = Skeleton::load(characters.join(file))?;
        let lbfgs_iterations = skeleton
            .solve
            .lbfgs_iterations
            .unwrap_or(STAGED_LBFGS_ITERATIONS);
        let (period, timings) = match timing {
            Some((p, t)) => (p, parse_timings(t)?),
            None => default_timings(&skeleton),
        };
        let mut summaries = Vec::new();
        for k in 0..starts {
            // The starts of `gait --starts N --seed 0`: pairs of one perturbation and two barriers.
            let (seed, barrier) = starts::start_plan(0, k, true, starts::Barrier::Adaptive);
            let mut start_options = options.clone();
            start_options.extra = starts::start_options(&options.extra, true, barrier);
            let mut spec =
                GaitSpec::new(skeleton.clone(), speed, period, &timings)?.with_seed(seed);
            spec.torques = torques;
            let start = std::time::Instant::now();
            let (clip, stages) = if torques == Torques::Variables {
                // `gait --torques variables --hessian exact`.
                solve_gait_exact(&spec, &start_options)?
            } else {
                solve_gait_staged(
                    &spec,
                    &start_options,
                    lbfgs_iterations,
                    motionlab::spacetime::gait::FirstStage::Lbfgs,
                )?
            };
            print_stages(&stages);
            print_stage_table(&stages);
            let wall = start.elapsed().as_secs_f64();
            let report = audit(&clip.body(&spec.skeleton)?, &clip, spec.mu, spec.nu);
            println!(
                "gait {} solver {} seed {seed} barrier {} speed {speed} period {period} variables {} iterations {} wall_s {wall:.2} per_iteration_ms {:.1} status {} projection {} cost {:.4} max_violation {:.2e} audit {:.2e}",
                spec.skeleton.name.replace(' ', "_"),
                backend.label(),
                barrier.name(),
                motionlab::spacetime::gait::GaitProblem::new(spec.clone()).variables(),
                clip.iterations,
                1000.0 * wall / clip.iterations.max(1) as f64,
                clip.status,
                clip.projection_status.as_deref().unwrap_or("none"),
                clip.cost,
                clip.max_violation,
                report.max()
            );
            summaries.push(motionlab::spacetime::job::StartSummary {
                start: k,
                seed,
                barrier,
                status: clip.status.clone(),
                cost: clip.cost,
                max_violation: clip.max_violation,
                iterations: clip.iterations,
                solve_time_s: wall,
                valid: clip.is_valid(),
            });
        }
        if starts > 1 {
            let mut walls: Vec<f64> = summaries.iter().map(|s| s.solve_time_s).collect();
            walls.sort_by(f64::total_cmp);
            let (lo, median, hi, valid) = motionlab::spacetime::job::starts::spread(&summaries)
                .unwrap_or((f64::NAN, f64::NAN, f64::NAN, 0));
            println!(
                "spread gait {} solver {} starts {starts} valid {valid} cost_min {lo:.4} cost_median {median:.4} cost_max {hi:.4} wall_median_s {:.2}",
                skeleton.name.replace(' ', "_"),
                backend.label(),
                walls[walls.len() / 2]
            );
        }
    }
    Ok(())
}

#[cfg(not(feature = "ipopt"))]
pub fn bench_gait(
    _quick: bool,
    _characters: &std::path::Path,
    _solver: Option<motionlab::nlp::Backend>,
    _starts: usize,
    _torques: motionlab::spacetime::gait::Torques,
) -> Result<()> {
    anyhow::bail!("this build has no NLP solver (built without the `ipopt` feature)")
}

#[cfg(not(feature = "ipopt"))]
pub fn bench_gait_seeds(
    _quick: bool,
    _characters: &std::path::Path,
    _solver: Option<motionlab::nlp::Backend>,
    _seeds: usize,
    _only: Option<&str>,
    _threads: usize,
) -> Result<()> {
    anyhow::bail!("this build has no NLP solver (built without the `ipopt` feature)")
}
