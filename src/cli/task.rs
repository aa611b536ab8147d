//! Task subcommands: evaluate a task's seed, prepare a seed (minimize C), explore, replay.

use anyhow::{Context, Result};
use motionlab::scene::load_scene;
use motionlab::task::{Evaluation, Task, evaluate_recorded};
use std::path::Path;

pub fn load_task(file: &Path, shape: bool) -> Result<Task> {
    let s = load_scene(file)?;
    s.task(shape)
        .with_context(|| format!("{}: task", file.display()))
}

pub fn print_evaluation(e: &Evaluation) {
    println!("penalty: {:.3}", e.penalty);
    for (what, v) in &e.terms {
        println!("  {what}: {v:.3}");
    }
    println!("fell: {}", e.fell);
    println!("landing: ({:.3}, {:.3}) m", e.landing[0], e.landing[1]);
    println!("peak_height: {:.3} m", e.peak_height);
    println!("rotation: {:.1} deg", e.rotation);
    if !e.steps.is_empty() {
        let range = |k: usize| {
            let v = e.steps.iter().map(|s| s[k]);
            let (lo, hi) = v
                .clone()
                .fold((f32::MAX, f32::MIN), |(a, b), x| (a.min(x), b.max(x)));
            let mean = v.sum::<f32>() / e.steps.len() as f32;
            format!("{lo:.3} .. {hi:.3} (mean {mean:.3})")
        };
        println!(
            "steps: {} evaluated, forward {} m, lateral {} m, max tilt {:.1} deg",
            e.steps.len(),
            range(0),
            range(1),
            e.max_tilt
        );
    }
    for p in &e.phases {
        let end = p
            .end
            .map(|t| format!("{t:.3}"))
            .unwrap_or_else(|| "-".into());
        println!(
            "  phase {:<10} {:.3} .. {}{}",
            p.name,
            p.start,
            end,
            if p.timed_out { " (timed out)" } else { "" }
        );
    }
    println!("hash: {:032x}", e.hash);
}

pub fn simulate_task(file: &Path, trace: bool) -> Result<()> {
    let task = load_task(file, false)?;
    println!("task: {} ({} parameters)", task.name, task.dimension());
    let run = evaluate_recorded(&task, &task.x0(), task.def.metric);
    if trace {
        let root = run
            .character
            .body_index(&run.character.root.body)
            .unwrap_or(0);
        for f in run.frames.iter().step_by(6) {
            let phase = run
                .evaluation
                .phases
                .iter()
                .rev()
                .find(|p| p.start <= f.time)
                .map(|p| p.name.as_str())
                .unwrap_or("");
            let q = f.poses[root];
            let pitch = motionlab::model::rotation::pitch_about_z(
                motionlab::model::rotation::pose_rotation(q),
            );
            // Heading: the root's x axis projected on the ground, degrees towards −z (left).
            let (x, y, z, w) = (q[3], q[4], q[5], q[6]);
            let (fx, fz) = (1.0 - 2.0 * (y * y + z * z), 2.0 * (x * z - w * y));
            let heading = (-fz).atan2(fx).to_degrees();
            let contacts: Vec<String> = f
                .contacts
                .iter()
                .enumerate()
                .filter(|(_, n)| **n > 0)
                .map(|(i, _)| run.character.bodies[i].name.clone())
                .collect();
            let feet: Vec<String> = run
                .character
                .effectors(motionlab::model::EffectorTag::Foot)
                .filter_map(|e| run.character.body_index(&e.body))
                .map(|b| format!("{:+.3} {:+.3}", f.poses[b][0], f.poses[b][2]))
                .collect();
            println!(
                "t {:.3} {:<8} com ({:+.3}, {:.3}, {:+.3}) pitch {:+7.1} heading {:+6.1} feet x z [{}] contacts [{}]",
                f.time,
                phase,
                f.com[0],
                f.com[1],
                f.com[2],
                pitch.to_degrees(),
                heading,
                feet.join(", "),
                contacts.join(",")
            );
        }
    }
    print_evaluation(&run.evaluation);
    Ok(())
}

/// Prints the seed controller of a task scene with its normalized seed applied: the RON to
/// put in the scene's `controller:` field (with `seed: []`), re-centring the parameter box on a
/// prepared seed whose coordinates sit near the box's edges.
pub fn bake(file: &Path) -> Result<()> {
    let task = load_task(file, false)?;
    let (def, _) = task.instantiate(&task.x0());
    let cfg = ron::ser::PrettyConfig::default().struct_names(false);
    println!("{}", ron::ser::to_string_pretty(&def, cfg)?);
    Ok(())
}

/// Minimizes the constraint penalty C alone from the task's seed (Agrawal et al. 2014, §3: C(M0)
/// "can be used as an objective function"), then prints the parameters to paste into the scene's
/// `seed:` field (and keeps the best so far in `<scene>.seed.txt`). With `continuation` = (from,
/// to, steps) the height of the scene's first obstacle is raised step by step, each stage starting
/// from the previous solution (continuation of Yin et al. 2008, as in Agrawal et al. 2014, §7.1).
#[allow(clippy::too_many_arguments)]
pub fn prepare(
    file: &Path,
    generations: u64,
    seed: u64,
    threads: usize,
    continuation: Option<(f32, f32, usize)>,
    hold: f32,
    robust: Option<(usize, f64)>,
) -> Result<()> {
    use motionlab::task::prepare::{PrepareEvent, PrepareRequest, prepare};
    let task = load_task(file, false)?;
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .build()?;
    let request = PrepareRequest {
        generations,
        seed,
        continuation,
        hold,
        robust,
    };
    // The best point so far is kept beside the scene as it improves (a long run can be cut).
    let seed_file = file.with_extension("seed.txt");
    let mut write_error = None;
    let outcome = prepare(task, &request, &pool, &mut |event| match event {
        PrepareEvent::Stage {
            stage,
            obstacle_height,
        } => println!("stage {stage}: obstacle height {obstacle_height:.3} m"),
        PrepareEvent::Start {
            task,
            parameters,
            penalty,
        } => println!("task: {task} ({parameters} parameters), start penalty {penalty:.3}"),
        PrepareEvent::Generation {
            generation,
            best_penalty,
            sigma,
        } => println!("generation {generation} best penalty {best_penalty:.3} sigma {sigma:.4}"),
        PrepareEvent::Improved { params, .. } => {
            let list: Vec<String> = params.iter().map(|v| format!("{v}")).collect();
            if let Err(e) = motionlab::jobs::write_atomic(
                &seed_file,
                format!("seed: [{}],\n", list.join(", ")).as_bytes(),
            ) {
                write_error.get_or_insert(e);
            }
        }
        PrepareEvent::StageFailed {
            stage,
            best_penalty,
            kept_height,
        } => {
            println!(
                "stage {stage} not solved (best penalty {best_penalty:.3}); keeping the last feasible stage"
            );
            if let Some(h) = kept_height {
                println!("obstacle height {h:.3} m");
            }
        }
    })
    .with_context(|| file.display().to_string())?;
    if let Some(e) = write_error {
        return Err(e).with_context(|| format!("writing {}", seed_file.display()));
    }
    print_evaluation(&outcome.evaluation);
    let list: Vec<String> = outcome.params.iter().map(|v| format!("{v}")).collect();
    println!("seed: [{}],", list.join(", "));
    Ok(())
}

/// Re-simulates one motion of a result and prints its hash.
pub fn replay(result: &Path, variant: usize, out: Option<&Path>) -> Result<()> {
    use motionlab::diversity::explore::{load_result, replay, replay_clip};
    let r = load_result(result)?;
    let e = replay(&r, variant)?;
    let stored = &r.motions[variant].hash;
    let hash = format!("{:032x}", e.hash);
    println!("penalty: {:.4}", e.penalty);
    println!("hash: {hash}");
    if hash != *stored {
        anyhow::bail!("hash differs from the stored {stored}");
    }
    if let Some(out) = out {
        let recorded = replay_clip(&r, variant, out)?;
        if let Some(path) = &recorded.character_written {
            println!("character: {}", path.display());
        }
        recorded
            .clip
            .save(out)
            .with_context(|| format!("writing {}", out.display()))?;
        println!("clip: {}", out.display());
    }
    Ok(())
}

/// Wall time and rollouts per second of a round-robin exploration on all cores.
pub fn bench_diversity(scene: &Path, variants: usize, generations: u64) -> Result<()> {
    use motionlab::diversity::explore::{DiversityJob, ExploreConfig};
    let config = ExploreConfig {
        scene: scene.into(),
        variants,
        generations,
        stall_generations: 0,
        ..Default::default()
    };
    let mut job = DiversityJob::new(config)?;
    let pool = rayon::ThreadPoolBuilder::new().build()?;
    let t0 = std::time::Instant::now();
    // Progress on stderr (hidden when it is not a terminal); the figures go to stdout.
    let bar = indicatif::ProgressBar::new(generations);
    bar.set_style(indicatif::ProgressStyle::with_template(
        "{spinner} [{elapsed_precise}] {bar:40} generation {pos}/{len} eta {eta}",
    )?);
    while !job.search().is_finished() {
        job.generation(&pool);
        bar.inc(1);
    }
    bar.finish_and_clear();
    let secs = t0.elapsed().as_secs_f64();
    let evals = job.search().evaluations();
    println!(
        "diversity_bench task={} variants={variants} generations={generations} threads={}",
        job.task().name,
        pool.current_num_threads()
    );
    println!("wall_seconds {secs:.1}");
    println!("rollouts {evals}");
    println!("rollouts_per_second {:.1}", evals as f64 / secs);
    println!("diversity {:.4}", job.build_result().diversity);
    Ok(())
}

/// Aggregates exploration results: D (min, mean, max) and, over every variant of every result,
/// the mean and standard deviation of its motion and shape distance to the input (the Table 1 /
/// Table 3.1 analogue: both metrics are measured whichever one was optimized).
pub fn summarize(results: &[std::path::PathBuf]) -> Result<()> {
    use motionlab::diversity::explore::load_result;
    anyhow::ensure!(!results.is_empty(), "give one or more result.ron files");
    let mut ds = Vec::new();
    let (mut motion, mut shape, mut penalties) = (Vec::new(), Vec::new(), Vec::new());
    for p in results {
        let r = load_result(p)?;
        println!(
            "result {} task {} D {:.3} copies {:.3} generations {} rollouts {}",
            p.display(),
            r.task,
            r.diversity,
            r.diversity_of_copies,
            r.generations,
            r.evaluations
        );
        ds.push(r.diversity);
        for m in r.motions.iter().skip(1) {
            motion.push(m.motion_distance_to_input);
            shape.push(m.shape_distance_to_input);
            penalties.push(m.penalty);
        }
    }
    let stats = |v: &[f64]| {
        let n = v.len() as f64;
        let mean = v.iter().sum::<f64>() / n;
        let sd = (v.iter().map(|x| (x - mean).powi(2)).sum::<f64>() / (n - 1.0).max(1.0)).sqrt();
        (mean, sd)
    };
    let (dm, _) = stats(&ds);
    let dmin = ds.iter().cloned().fold(f64::INFINITY, f64::min);
    let dmax = ds.iter().cloned().fold(f64::NEG_INFINITY, f64::max);
    println!(
        "diversity min {dmin:.3} mean {dm:.3} max {dmax:.3} over {} runs",
        ds.len()
    );
    let (mm, ms) = stats(&motion);
    let (sm, ss) = stats(&shape);
    println!(
        "motion_distance_to_input mean {mm:.3} sd {ms:.3} over {} variants",
        motion.len()
    );
    println!("shape_distance_to_input mean {sm:.3} sd {ss:.3}");
    println!(
        "variants_with_zero_penalty {}/{}",
        penalties.iter().filter(|p| **p == 0.0).count(),
        penalties.len()
    );
    Ok(())
}
