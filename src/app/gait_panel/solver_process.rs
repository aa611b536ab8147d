//! The gait job running among the session's jobs, in a worker process (`motionlab gait-job`;
//! IPOPT solves do not share a process): the typed events of its log turned into the panel's
//! plots, and its clip shown when it finishes.

use super::*;

/// The message of one event of the solver's log, or nothing for the events the panel does not
/// plot.
pub(super) fn solver_message(job: u64, event: &GaitEvent) -> Option<JobMsg> {
    match event.clone() {
        GaitEvent::Iteration {
            objective,
            infeasibility,
            ..
        } => Some(JobMsg::Iteration(job, objective, infeasibility)),
        GaitEvent::Sample {
            period,
            timings,
            cost,
            max_violation,
            ..
        } => Some(JobMsg::Sample {
            job,
            period,
            cost: cost
                .filter(|c| c.is_finite() && max_violation.is_some_and(|v| v <= SAMPLE_TOLERANCE)),
            timings,
        }),
        GaitEvent::Generation {
            generation,
            feasible,
            population,
            best,
        } => Some(JobMsg::Generation {
            job,
            generation,
            best: best.map(|b| (b.cost, b.period, b.timings)),
            feasible: format!("{feasible}/{population}"),
        }),
        GaitEvent::Stage { .. }
        | GaitEvent::Finished { .. }
        | GaitEvent::Start { .. }
        | GaitEvent::SamplesReused { .. }
        | GaitEvent::SolvingBestSampleAgain { .. }
        | GaitEvent::KeptStart { .. }
        | GaitEvent::Starts { .. }
        | GaitEvent::BestStart { .. } => None,
        GaitEvent::StartEnded(s) => Some(JobMsg::StartEnded(job, s)),
    }
}

pub(super) fn poll_gait_job(mut state: ResMut<GaitState>, jobs: Res<Jobs>) {
    let mut msgs: Vec<JobMsg> = Vec::new();
    if let Some(job) = state.job.as_mut() {
        match jobs.get(job.id) {
            Some(h) => {
                if let Some(log) = h.progress.detail::<crate::spacetime::job::GaitLog>() {
                    msgs.extend(
                        log.0[job.seen.min(log.0.len())..]
                            .iter()
                            .filter_map(|e| solver_message(job.id, e)),
                    );
                    job.seen = log.0.len();
                }
                match h.status {
                    crate::jobs::JobStatus::Finished => msgs.push(JobMsg::Done(
                        job.id,
                        h.result.as_ref().ok_or(SolveError::NoResult).and_then(|p| {
                            crate::files::read_ron::<GaitClip>(p).map_err(SolveError::Unreadable)
                        }),
                    )),
                    crate::jobs::JobStatus::Failed => msgs.push(JobMsg::Done(
                        job.id,
                        Err(SolveError::Failed(
                            h.error.clone().unwrap_or_else(|| "failed".into()),
                        )),
                    )),
                    crate::jobs::JobStatus::Cancelled => {
                        state.job = None;
                        state.message = "solve cancelled".into();
                    }
                    _ => {}
                }
            }
            None => state.job = None,
        }
    }
    for msg in msgs {
        let current = state.job.as_ref().map(|j| j.id);
        match msg {
            JobMsg::Iteration(id, objective, inf_pr) if Some(id) == current => {
                if let Some(job) = &mut state.job {
                    job.iterations.push((objective, inf_pr));
                }
            }
            JobMsg::Sample {
                job: id,
                period,
                cost,
                timings,
            } if Some(id) == current => {
                let creature = state.job.as_ref().map(|j| (j.creature, j.speed));
                let skeleton =
                    creature.and_then(|(c, v)| Some((state.creatures.get(c)?.skeleton.clone(), v)));
                if let Some(job) = &mut state.job {
                    match (cost, skeleton) {
                        (Some(cost), Some((skeleton, speed))) => {
                            if let Ok(spec) = GaitSpec::new(skeleton, speed, period, &timings) {
                                job.samples.push(SampleDot::new(&spec, cost));
                            }
                        }
                        _ => job.failed_samples += 1,
                    }
                }
            }
            JobMsg::Generation {
                job: id,
                generation,
                best,
                feasible,
            } if Some(id) == current => {
                if let Some(job) = &mut state.job {
                    job.feasible = feasible;
                    job.generations = generation + 1;
                    if let Some((cost, period, timings)) = best {
                        job.best_costs.push([generation as f64, cost]);
                        job.best = Some((period, timings));
                    }
                    // Iterations so far were the sample solves' (silent); the log that follows
                    // is the final solve's.
                    job.iterations.clear();
                }
            }
            JobMsg::StartEnded(id, summary) if Some(id) == current => {
                if let Some(job) = &mut state.job {
                    job.starts_ended.push(summary);
                }
            }
            JobMsg::Done(id, result) if Some(id) == current => {
                let job = state.job.take();
                let spread = job
                    .as_ref()
                    .and_then(|j| crate::spacetime::job::starts::spread(&j.starts_ended))
                    .map(|(lo, _, hi, valid)| {
                        format!(
                            "; best of {} starts, {valid} valid, costs {lo:.4} to {hi:.4}",
                            job.as_ref().map_or(0, |j| j.starts_ended.len())
                        )
                    })
                    .unwrap_or_default();
                let took = job
                    .as_ref()
                    .map(|j| j.started.elapsed().as_secs_f64())
                    .unwrap_or(0.0);
                match result {
                    Ok(clip) => {
                        let note = if clip.converged() {
                            "solved".to_string()
                        } else {
                            format!("NOT converged ({})", clip.status)
                        };
                        let source = format!("{note} in the panel, {took:.0} s");
                        match state.show(clip, source) {
                            Ok(()) => {
                                state.message = format!("gait {note} in {took:.0} s{spread}");
                                state.last_discovery =
                                    job.filter(|j| j.discover).map(|j| DiscoveryRecord {
                                        best_costs: j.best_costs.clone(),
                                        samples: j.samples.clone(),
                                        failed_samples: j.failed_samples,
                                    });
                            }
                            Err(e) => state.message = format!("solver clip: {e}"),
                        }
                    }
                    Err(e) => state.message = format!("solve failed: {e}"),
                }
            }
            _ => {}
        }
    }
}
