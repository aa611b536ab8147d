//! `motionlab gait --discover`: basin-CMA over the contact timings (specs/004.md §1.3), each
//! sample projected by this program's own `gait` command in a child process. Apart from
//! `cli/spacetime.rs` so that the discovery loop can change without changing the solver's
//! source hash (`MOTIONLAB_SOLVER_HASH`, build.rs), by which sample clips are named.

#[cfg(feature = "ipopt")]
use crate::spacetime_cli::{GaitArgs, contacts_text};
#[cfg(feature = "ipopt")]
use anyhow::Result;

/// Waits until fewer than `slots` of the `running` processes are still running, dropping
/// those that have ended.
#[cfg(feature = "ipopt")]
fn wait_for_slots(running: &mut Vec<std::process::Child>, slots: usize) {
    loop {
        // A process whose status cannot be read counts as ended.
        running.retain_mut(|c| matches!(c.try_wait(), Ok(None)));
        if running.len() < slots.max(1) {
            return;
        }
        std::thread::sleep(std::time::Duration::from_millis(50));
    }
}

/// Basin-CMA over the timings (specs/004.md §1.3). Each sample is projected by this program's
/// own `gait` command in a child process (IPOPT's linear solver is not thread-safe, so parallel
/// solves need processes), capped at --sample-iterations, its clip read back from a scratch
/// directory. Prints a line per sample and per generation and returns the best feasible timing.
#[cfg(feature = "ipopt")]
pub(crate) fn discover_timings(
    args: &GaitArgs,
    skeleton: &motionlab::spacetime::skeleton::Skeleton,
) -> Result<(
    f64,
    Vec<motionlab::spacetime::gait::FootTiming>,
    Option<motionlab::spacetime::gait::GaitClip>,
)> {
    use anyhow::Context;
    use motionlab::spacetime::discovery::{DiscoveryOptions, Projected, TimingSpace, discover};
    use motionlab::spacetime::gait::{FootTiming, GaitClip};
    let feet: Vec<String> = skeleton
        .feet
        .iter()
        .map(|&l| skeleton.limbs[l].name.clone())
        .collect();
    let mut space = TimingSpace::new(feet);
    if let Some((lo, hi)) = args.period_range {
        space = space
            .with_period_range(lo, hi)
            .map_err(|e| anyhow::anyhow!("--period-range: {e}"))?;
    }
    let exe = std::env::current_exe()
        .context("locating the motionlab executable for the projection processes")?;
    // Sample clips go to a scratch directory, or to --samples-dir, where they stay. A sample is
    // named by a hash of the solver's source (MOTIONLAB_SOLVER_HASH, see build.rs), the creature
    // file and its solve arguments, so a rerun of a build of the same solver, on this machine or
    // a fresh one, reuses the samples it has already solved (an interrupted discovery resumes),
    // and a changed solver solves afresh. Beside each clip a small summary
    // (`sample-….summary.ron`: its cost and violation as basin-CMA ranks them) is kept: a
    // discovery resumes from the summaries alone, and only the best sample's clip is needed to
    // start the final solve (it is solved again, with the same result, if it is missing).
    let keep = args.samples_dir.is_some();
    let scratch = match &args.samples_dir {
        Some(dir) => dir.clone(),
        None => std::env::temp_dir().join(format!("motionlab-discover-{}", std::process::id())),
    };
    std::fs::create_dir_all(&scratch).with_context(|| format!("creating {}", scratch.display()))?;
    let inputs = {
        let mut h = xxhash_rust::xxh3::Xxh3::new();
        h.update(env!("MOTIONLAB_SOLVER_HASH").as_bytes());
        h.update(
            &std::fs::read(&args.creature)
                .with_context(|| format!("reading {}", args.creature.display()))?,
        );
        h.digest128().to_le_bytes()
    };
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
    let threads = if args.threads == 0 {
        cores
    } else {
        args.threads
    };
    let child_threads = (cores / threads).max(1);
    let options = DiscoveryOptions {
        seed: args.seed.max(1),
        generations: args.generations,
        population: args.population,
        ..Default::default()
    };
    let hessian = args.hessian.name();
    let (sample_iterations, lbfgs_iterations) = (
        args.sample_iterations(skeleton),
        args.lbfgs_iterations(skeleton),
    );
    let tolerance = options.feasibility_tolerance;
    // The best feasible sample (discovery's ranking: lowest cost), to start the final solve
    // from: its clip, or, when only its summary was kept, its solve and clip path.
    let mut best_cost = f64::INFINITY;
    let mut best_clip: Option<GaitClip> = None;
    let mut best_unsolved: Option<(Vec<String>, std::path::PathBuf)> = None;
    let mut spawn_error: Option<anyhow::Error> = None;
    let read_clip = |p: &std::path::Path| -> Option<GaitClip> {
        motionlab::files::from_ron(&std::fs::read_to_string(p).ok()?).ok()
    };
    let summary_path = |p: &std::path::Path| p.with_extension("summary.ron");
    let read_summary = |p: &std::path::Path| -> Option<Projected> {
        motionlab::files::from_ron(&std::fs::read_to_string(summary_path(p)).ok()?).ok()
    };
    // Starts one sample's projection process, writing its clip to `path`.
    let spawn = |solve: &[String], path: &std::path::Path| {
        std::process::Command::new(&exe)
            .args(solve)
            .arg("--out")
            .arg(path)
            // Each process evaluates its derivatives on its share of the cores.
            .env("RAYON_NUM_THREADS", child_threads.to_string())
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::null())
            .spawn()
            .map_err(|e| anyhow::anyhow!("starting a projection process {}: {e}", exe.display()))
    };
    let mut evaluate = |batch: &[(f64, Vec<FootTiming>)]| -> Vec<Option<Projected>> {
        let solves: Vec<Vec<String>> = batch
            .iter()
            .map(|(period, timings)| {
                let mut a = vec![
                    "gait".to_string(),
                    args.creature.display().to_string(),
                    "--speed".into(),
                    args.speed.to_string(),
                    "--period".into(),
                    period.to_string(),
                    "--contacts".into(),
                    contacts_text(timings),
                    "--max-iterations".into(),
                    sample_iterations.to_string(),
                    "--hessian".into(),
                    hessian.clone(),
                    "--lbfgs-iterations".into(),
                    lbfgs_iterations.to_string(),
                ];
                a.extend(args.morphology_flags());
                a
            })
            .collect();
        let paths: Vec<std::path::PathBuf> = solves
            .iter()
            .map(|a| {
                let mut h = xxhash_rust::xxh3::Xxh3::new();
                // The solver's and the creature's contents (not the creature's path), and
                // the solve's arguments.
                h.update(&inputs);
                for w in &a[2..] {
                    h.update(w.as_bytes());
                    h.update(&[0]);
                }
                scratch.join(format!("sample-{:032x}.ron", h.digest128()))
            })
            .collect();
        let mut running: Vec<std::process::Child> = Vec::new();
        let mut reused = 0;
        for (solve, path) in solves.iter().zip(&paths) {
            if keep && (read_summary(path).is_some() || read_clip(path).is_some()) {
                reused += 1;
                continue;
            }
            // A slot frees as soon as any solve ends (sample times differ by 2x and more).
            wait_for_slots(&mut running, threads);
            match spawn(solve, path) {
                Ok(c) => running.push(c),
                Err(e) => {
                    spawn_error.get_or_insert(e);
                }
            }
        }
        for mut c in running {
            let _ = c.wait();
        }
        if keep {
            crate::spacetime_cli::say!(
                args.events,
                "reused {reused}/{} sample clips from {}",
                batch.len(),
                scratch.display()
            );
        }
        paths
            .iter()
            .zip(&solves)
            .map(|(p, solve)| {
                let clip = read_clip(p);
                if !keep {
                    let _ = std::fs::remove_file(p);
                }
                let projected = match &clip {
                    Some(clip) => {
                        let projected = Projected {
                            cost: clip.cost,
                            max_violation: if clip.converged() {
                                clip.max_violation
                            } else {
                                clip.max_violation.max(1.0)
                            },
                        };
                        if keep && read_summary(p).is_none() {
                            // Best effort: without it the clip itself is read next time.
                            let _ = motionlab::jobs::write_ron(&summary_path(p), &projected);
                        }
                        projected
                    }
                    None if keep => read_summary(p)?,
                    None => return None,
                };
                if projected.max_violation <= tolerance
                    && projected.cost.is_finite()
                    && projected.cost < best_cost
                {
                    best_cost = projected.cost;
                    best_unsolved = match &clip {
                        Some(_) => None,
                        None => Some((solve.clone(), p.to_path_buf())),
                    };
                    best_clip = clip;
                }
                Some(projected)
            })
            .collect()
    };
    let mut progress = |g: &motionlab::spacetime::discovery::GenerationReport| {
        use motionlab::spacetime::gait::events::{BestTiming, GaitEvent};
        if args.events {
            for (i, c) in g.samples.iter().enumerate() {
                let e = GaitEvent::Sample {
                    generation: g.generation,
                    index: i,
                    period: c.period,
                    timings: c.timings.clone(),
                    cost: c.projected.as_ref().map(|p| p.cost),
                    max_violation: c.projected.as_ref().map(|p| p.max_violation),
                };
                println!("{}", e.encode());
            }
            let e = GaitEvent::Generation {
                generation: g.generation,
                feasible: g
                    .samples
                    .iter()
                    .filter(|c| c.feasible(options.feasibility_tolerance))
                    .count(),
                population: g.samples.len(),
                best: g.best.as_ref().and_then(|b| {
                    Some(BestTiming {
                        cost: b.projected.as_ref()?.cost,
                        period: b.period,
                        timings: b.timings.clone(),
                    })
                }),
            };
            println!("{}", e.encode());
        }
        for (i, c) in g.samples.iter().enumerate() {
            let outcome = match &c.projected {
                Some(p) => format!("cost {:.6} max_violation {:.3e}", p.cost, p.max_violation),
                None => "failed".to_string(),
            };
            crate::spacetime_cli::say!(
                args.events,
                "sample {} {} period {:.4} {} contacts {}",
                g.generation,
                i,
                c.period,
                outcome,
                contacts_text(&c.timings)
            );
        }
        let feasible = g
            .samples
            .iter()
            .filter(|c| c.feasible(options.feasibility_tolerance))
            .count();
        match &g.best {
            Some(b) => crate::spacetime_cli::say!(
                args.events,
                "generation {} feasible {}/{} best_cost {:.6} period {:.4} contacts {}",
                g.generation,
                feasible,
                g.samples.len(),
                b.projected.as_ref().map_or(f64::NAN, |p| p.cost),
                b.period,
                contacts_text(&b.timings)
            ),
            None => crate::spacetime_cli::say!(
                args.events,
                "generation {} feasible 0/{} best_cost none",
                g.generation,
                g.samples.len()
            ),
        }
        true
    };
    let result = discover(&space, &options, &mut evaluate, &mut progress);
    // The scratch directory goes whatever the outcome (without --samples-dir every clip was
    // read as it came, so nothing below needs it).
    if !keep {
        let _ = std::fs::remove_dir_all(&scratch);
    }
    if let Some(e) = spawn_error {
        return Err(e);
    }
    // Only the best sample's summary was kept (--samples-dir): solve it again (the same solve,
    // so the same clip) for the final solve to start from.
    if let Some((solve, path)) = best_unsolved {
        crate::spacetime_cli::say!(
            args.events,
            "solving the best sample again for its clip ({})",
            path.display()
        );
        let _ = spawn(&solve, &path)?.wait();
        best_clip = read_clip(&path);
    }
    let best = result
        .best
        .with_context(|| format!("no feasible gait in {} projections", result.projections))?;
    // The clip kept is the best sample's when its timing is the result's (it always is, unless
    // two samples tie).
    let best_clip = best_clip.filter(|c| c.period == best.period && c.timings == best.timings);
    Ok((best.period, best.timings, best_clip))
}
