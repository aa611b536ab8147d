//! [`run_gait`]: a [`GaitRequest`] solved (or discovered, then solved), with typed events.

use super::*;
use crate::spacetime::gait::{
    FirstStage, GaitProblem, GaitSpec, audit, connecting_spec, default_timings,
    gait_solver_options, refit_options, solve_gait, solve_gait_staged, warm_start_options,
};
use crate::spacetime::skeleton::Skeleton;
use crate::spacetime::{Curvature, HessianMode};
use anyhow::{Context, Result};

impl GaitHessian {
    /// IPOPT's Hessian mode and the curvature the problem then reports (for the staged solve,
    /// its first stage's; [`solve_gait_staged`] switches to the exact Hessian itself).
    fn solver(self) -> (HessianMode, Curvature) {
        match self {
            GaitHessian::Lbfgs | GaitHessian::LbfgsThenExact => {
                (HessianMode::LimitedMemory, Curvature::Exact)
            }
            GaitHessian::Exact => (HessianMode::Exact, Curvature::Exact),
            GaitHessian::GaussNewton | GaitHessian::GaussNewtonThenExact => {
                (HessianMode::Exact, Curvature::GaussNewton)
            }
            GaitHessian::GaussNewtonObjective => {
                (HessianMode::Exact, Curvature::GaussNewtonObjective)
            }
        }
    }
}

/// Stack of the solve's thread (the main thread's size on Linux).
const SOLVE_STACK: usize = 8 << 20;

/// The start clip of `--init`, checked against the creature before its timing is used.
fn read_start(path: &std::path::Path, skeleton: &Skeleton) -> Result<GaitClip> {
    let clip = crate::files::read_ron::<GaitClip>(path)
        .context("the start clip must be a gait clip, as written by `gait --out`")?;
    clip.check_creature(skeleton)
        .and_then(|()| clip.validate(&clip.body(skeleton)?))
        .with_context(|| format!("the start clip {}", path.display()))?;
    Ok(clip)
}

/// Runs a gait job: reads the creature (and the start clip), discovers the timing when asked
/// (each sample solved by `samples`), solves, keeps a valid start that the solve did not
/// improve on, audits the clip and writes it to `request.out`. Every step is reported to
/// `on_event`, ending with [`GaitEvent::Finished`]. An unsolved gait is an outcome (its clip
/// says how the solve ended), not an error; errors are bad input or files that cannot be
/// written.
pub fn run_gait(
    request: &GaitRequest,
    samples: &mut dyn SampleSolver,
    on_event: &mut dyn FnMut(GaitEvent),
) -> Result<GaitOutcome> {
    anyhow::ensure!(
        request.speed.is_finite(),
        "the speed must be a number of m/s, found {}",
        request.speed
    );
    let skeleton = Skeleton::load(&request.creature)?;
    if let Some(h) = request.morphology.and_then(|m| m.min_head_height) {
        anyhow::ensure!(h.is_finite(), "the head height must be metres, found {h}");
        anyhow::ensure!(
            skeleton.head.is_some(),
            "a head height needs a head: {} names no `Head` end effector",
            request.creature.display()
        );
    }
    let mut start = match &request.init {
        Some(path) => Some((path.display().to_string(), read_start(path, &skeleton)?)),
        None => None,
    };
    if let Some(connect) = &request.connect {
        anyhow::ensure!(
            request.discover.is_none() && request.morphology.is_none(),
            "a connecting clip is solved with the file's body and the timing of its ends"
        );
        let (a, b) = (
            read_start(&connect.from, &skeleton)?,
            read_start(&connect.to, &skeleton)?,
        );
        let spec = connecting_spec(&skeleton, &a, &b, &connect.connection)
            .with_context(|| {
                format!(
                    "connecting {} to {}",
                    connect.from.display(),
                    connect.to.display()
                )
            })?
            .with_ceiling(request.ceiling);
        let mut spec = spec;
        if let Some(weights) = request.weights {
            spec.weights = weights;
        }
        spec = spec.with_posture(&request.posture_limbs)?;
        spec.flat_feet = request.flat_feet;
        spec.sole_clearance = request.sole_clearance;
        spec.swing_clearance = request.swing_clearance;
        spec.torques = request.torques;
        spec.start_springs = request.springs;
        // A start clip (the same connection solved before) replaces the two ends' blend.
        let mut fits = true;
        if let Some((from, clip)) = start {
            (spec, fits) = start_from(spec, &from, clip, on_event)?;
        }
        return solve_and_report(request, spec, None, fits, on_event);
    }
    let (default_period, default_contacts) = default_timings(&skeleton);
    let (period, timings) = match &request.discover {
        Some(discovery) => {
            anyhow::ensure!(
                request.contacts.is_none() && request.period.is_none(),
                "a discovery searches the period and contacts itself; give neither"
            );
            let found =
                discover::discover_timings(request, discovery, &skeleton, samples, on_event)?;
            if start.is_none() {
                start = found.best_clip.map(|c| ("the best sample".to_string(), c));
            }
            (found.period, found.timings)
        }
        // A clip to refine keeps its own timing unless told otherwise.
        None => match (&request.contacts, request.period, &start) {
            (None, None, Some((_, clip))) => (clip.period, clip.timings.clone()),
            (contacts, period, _) => (
                period.unwrap_or(default_period),
                contacts.clone().unwrap_or(default_contacts),
            ),
        },
    };
    if request.starts > 1 && start.is_none() {
        return super::starts::solve_starts(
            request, &skeleton, period, &timings, samples, on_event,
        );
    }
    let mut spec = cycle_spec(request, skeleton, period, &timings, request.seed)?;
    let mut fits = true;
    if let Some((from, clip)) = &start {
        (spec, fits) = start_from(spec, from, clip.clone(), on_event)?;
    }
    solve_and_report(request, spec, start, fits, on_event)
}

/// The cycle `request` asks for with the given timing, started from the rest pose perturbed by
/// `seed`.
pub(super) fn cycle_spec(
    request: &GaitRequest,
    skeleton: Skeleton,
    period: f64,
    timings: &[FootTiming],
    seed: u64,
) -> Result<GaitSpec> {
    let mut spec = GaitSpec::new(skeleton, request.speed, period, timings)?
        .with_seed(seed)
        .with_morphology(request.morphology)
        .with_ceiling(request.ceiling);
    if let Some(turn_rate) = request.turn_rate {
        anyhow::ensure!(
            request.discover.is_none() && request.morphology.is_none(),
            "a transformed cycle (a turn rate) is solved with given timings and the file's body"
        );
        spec = spec.transformed(turn_rate)?;
        if request.strafe != 0.0 {
            spec = spec.strafing(request.strafe)?;
        }
    } else {
        anyhow::ensure!(
            request.strafe == 0.0,
            "a strafing gait is a transformed cycle: give it a turn rate (0 for straight)"
        );
    }
    if let Some(weights) = request.weights {
        spec.weights = weights;
    }
    spec = spec.with_posture(&request.posture_limbs)?;
    spec.flat_feet = request.flat_feet;
    spec.sole_clearance = request.sole_clearance;
    spec.swing_clearance = request.swing_clearance;
    spec.torques = request.torques;
    spec.start_springs = request.springs;
    spec = match request.mirror_half {
        MirrorHalf::Whole => spec,
        // A timing that is not symmetric is refused before any solve.
        MirrorHalf::Half => {
            let spec = spec.with_mirror_half(true);
            spec.half_cycle()?;
            spec
        }
        MirrorHalf::WhenSymmetric => {
            let half = spec.clone().with_mirror_half(true);
            if half.half_cycle().is_ok() {
                half
            } else {
                spec
            }
        }
    };
    Ok(spec)
}

/// `spec` started from `clip` (named `from`), and whether the clip meets `spec`'s constraints: a
/// clip solved for another problem may break one added since (sole clearance); its solve then
/// starts with [`refit_options`] instead of [`warm_start_options`].
fn start_from(
    spec: GaitSpec,
    from: &str,
    clip: GaitClip,
    on_event: &mut dyn FnMut(GaitEvent),
) -> Result<(GaitSpec, bool)> {
    let context = || format!("starting from {from}");
    let (_, violation) = crate::spacetime::gait::measure(&spec, &clip).with_context(context)?;
    let spec = spec.with_warm_start(clip).with_context(context)?;
    on_event(GaitEvent::Start {
        from: from.to_string(),
    });
    Ok((spec, violation <= 1e-6))
}

/// Solves `spec` as `request` asks (staged or in one mode), keeps a valid `start` the solve did
/// not improve on, audits the clip, writes it and reports the outcome.
fn solve_and_report(
    request: &GaitRequest,
    spec: GaitSpec,
    start: Option<(String, GaitClip)>,
    start_fits: bool,
    on_event: &mut dyn FnMut(GaitEvent),
) -> Result<GaitOutcome> {
    let mut options = gait_solver_options();
    options.backend = request.solver;
    options.print_level = request.print_level;
    options.max_iterations = request.max_iterations;
    let (hessian_mode, curvature) = request.hessian.solver();
    options.hessian = hessian_mode;
    if spec.is_warm_started() {
        options.extra.extend(if start_fits {
            warm_start_options()
        } else {
            refit_options()
        });
    }
    options.extra = super::starts::start_options(
        &options.extra,
        super::starts::alternates_barrier(&request.ipopt),
        request.barrier,
    );
    options.extra.extend(request.ipopt.iter().cloned());
    let (progress_tx, progress_rx) = std::sync::mpsc::channel();
    options.progress = Some(crate::spacetime::nlp::ProgressSink(std::sync::Arc::new(
        move |r: &crate::spacetime::nlp::IterationReport| {
            let _ = progress_tx.send(GaitEvent::Iteration {
                iteration: r.iteration,
                objective: r.objective,
                infeasibility: r.infeasibility,
                restoration: r.restoration,
            });
        },
    )));
    let variables = GaitProblem::solved_variables(&spec)?;
    // The solve runs on a thread of its own and its iterations reach `on_event` here as they
    // come: the channel closes when the solve's options, which hold its sender, are dropped.
    let solved = std::thread::scope(|scope| {
        let solve = std::thread::Builder::new()
            .name("gait solve".into())
            .stack_size(SOLVE_STACK)
            .spawn_scoped(scope, move || {
                let staged = match request.hessian {
                    GaitHessian::LbfgsThenExact => Some(FirstStage::Lbfgs),
                    GaitHessian::GaussNewtonThenExact => Some(FirstStage::GaussNewton),
                    _ => None,
                };
                let r = if let Some(first) = staged {
                    solve_gait_staged(
                        &spec,
                        &options,
                        request.lbfgs_iterations(&spec.skeleton),
                        first,
                    )
                } else {
                    solve_gait(&spec, &options, curvature).map(|c| (c, Vec::new()))
                };
                drop(options);
                r.map(|r| (spec, r))
            })
            .context("starting the solve's thread")?;
        for e in progress_rx.iter() {
            on_event(e);
        }
        anyhow::Ok(solve.join())
    })?;
    let (spec, (mut clip, stages)) = match solved {
        Ok(r) => r?,
        Err(panic) => std::panic::resume_unwind(panic),
    };
    for s in &stages {
        on_event(GaitEvent::Stage {
            name: s.hessian.to_string(),
            status: s.status.clone(),
            cost: s.cost,
            max_violation: s.max_violation,
            iterations: s.iterations,
        });
    }
    // IPOPT is no descent method: a refinement that ends above a valid start, or invalid, keeps
    // the start, measured by this problem (its own figures may be another problem's: a space
    // solved again with a constraint added starts from clips that break it).
    let mut kept_start = false;
    let measured = start
        .filter(|(_, s)| {
            s.is_valid()
                && s.period == spec.period
                && s.timings == spec.timings
                && s.speed == spec.speed
                && s.closure == spec.closure
                && s.max_head_height == spec.max_head_height
                && s.morphology.is_some() == spec.morphology.is_some()
        })
        .and_then(|(_, s)| {
            let (cost, violation) = crate::spacetime::gait::measure(&spec, &s).ok()?;
            (violation <= 1e-6 && cost.is_finite()).then_some((s, cost, violation))
        });
    if let Some((start, cost, violation)) =
        measured.filter(|(_, cost, _)| !(clip.is_valid() && clip.cost <= *cost))
    {
        on_event(GaitEvent::KeptStart {
            cost: clip.cost,
            max_violation: clip.max_violation,
        });
        kept_start = true;
        clip = GaitClip {
            iterations: start.iterations + clip.iterations,
            solve_time_s: start.solve_time_s + clip.solve_time_s,
            cost,
            max_violation: violation,
            start_kept: Some(crate::spacetime::gait::KeptStart {
                cost: clip.cost,
                max_violation: clip.max_violation,
            }),
            ..start
        };
    }
    let audit_max_violation = finish(request, &spec, &mut clip, on_event)?;
    Ok(GaitOutcome {
        spec,
        clip,
        stages,
        kept_start,
        audit_max_violation,
        variables,
        starts: Vec::new(),
    })
}

/// Audits `clip`, names its character file, writes it to `request.out` and reports the end;
/// returns the audit's largest violation.
pub(super) fn finish(
    request: &GaitRequest,
    spec: &GaitSpec,
    clip: &mut GaitClip,
    on_event: &mut dyn FnMut(GaitEvent),
) -> Result<f64> {
    let audit_max_violation = audit(&clip.body(&spec.skeleton)?, clip, spec.mu, spec.nu).max();
    // The clip names its character file as a clip does (the file's path and a hash of its text).
    if let Ok(text) = std::fs::read_to_string(&request.creature) {
        clip.character = Some(crate::model::CharacterRef::new(&request.creature, &text));
    }
    if let Some(out) = &request.out {
        crate::files::write_ron(out, &*clip)
            .with_context(|| format!("writing {}", out.display()))?;
    }
    on_event(GaitEvent::Finished {
        status: clip.status.clone(),
        cost: clip.cost,
        max_violation: clip.max_violation,
        audit_max_violation,
        out: request.out.as_ref().map(|p| p.display().to_string()),
    });
    Ok(audit_max_violation)
}
