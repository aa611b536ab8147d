//! The solve running as a child process: its output lines turned into messages, and the
//! channel polled each frame.

use super::*;

/// One line of `motionlab gait` output: an IPOPT iteration row or a discovery generation.
pub(super) fn parse_solver_line(job: u64, line: &str) -> Option<JobMsg> {
    let words: Vec<&str> = line.split_whitespace().collect();
    let value = |key: &str| {
        words
            .iter()
            .position(|w| *w == key)
            .and_then(|i| words.get(i + 1))
    };
    if words.first() == Some(&"sample") {
        // sample G I period T cost C max_violation V contacts foot:s:d,...
        // sample G I period T failed contacts foot:s:d,...
        let period: f64 = value("period")?.parse().ok()?;
        let timings = parse_timings(value("contacts")?).ok()?;
        let cost = (|| {
            let cost: f64 = value("cost")?.parse().ok()?;
            let violation: f64 = value("max_violation")?.parse().ok()?;
            (violation <= SAMPLE_TOLERANCE && cost.is_finite()).then_some(cost)
        })();
        return Some(JobMsg::Sample {
            job,
            period,
            cost,
            timings,
        });
    }
    if words.first() == Some(&"generation") {
        // generation G feasible k/λ best_cost C period T contacts foot:s:d,...
        let generation = words.get(1)?.parse().ok()?;
        let feasible = words.get(3).unwrap_or(&"").to_string();
        let best = (|| {
            let cost: f64 = value("best_cost")?.parse().ok()?;
            let period: f64 = value("period")?.parse().ok()?;
            let timings = parse_timings(value("contacts")?).ok()?;
            Some((cost, period, timings))
        })();
        return Some(JobMsg::Generation {
            job,
            generation,
            best,
            feasible,
        });
    }
    // IPOPT: "iter objective inf_pr inf_du lg(mu) ||d|| lg(rg) alpha_du alpha_pr ls".
    if words.len() >= 9 {
        let iter = words[0].trim_end_matches('r');
        if iter.parse::<usize>().is_ok() {
            if let (Ok(objective), Ok(inf_pr)) = (words[1].parse(), words[2].parse()) {
                return Some(JobMsg::Iteration(job, objective, inf_pr));
            }
        }
    }
    None
}

pub(super) fn poll_gait_job(mut state: ResMut<GaitState>) {
    let msgs: Vec<JobMsg> = state.rx.try_iter().collect();
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
            JobMsg::Done(id, result) if Some(id) == current => {
                let job = state.job.take();
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
                                state.message = format!("gait {note} in {took:.0} s");
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
