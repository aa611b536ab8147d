//! `motionlab track CLIP --character CHAR.ron --out DIR`: an animation made simulated motion by
//! wide-band stochastic trajectory optimization (Borer, Guay and Sumner 2018), as a job with
//! checkpoints and `--resume`; one line per window, the metrics at the end; writes the result,
//! the simulated clip, its controls and the windows' samples. `bench track` measures its speed.

use anyhow::{Context, Result};
use motionlab::cluster::Ranks;
use motionlab::jobs::{JobEvent, JobRunner, JobStatus};
use motionlab::track::{TrackConfig, TrackJob, TrackProgress, TrackResult, TrackSettings};
use std::path::{Path, PathBuf};

/// Options of `track`.
#[derive(clap::Args)]
pub struct TrackArgs {
    /// The motion to track: a clip, a gait clip, a BVH file, a glTF animation (anything `clip
    /// import` reads); a BVH file's nodes are matched to the character's bodies by name.
    pub clip: PathBuf,
    /// The character that tracks it.
    #[arg(long)]
    pub character: PathBuf,
    /// Folder for checkpoint.ron, result.ron, clip.ron, controls.ron and samples.ron.
    #[arg(long)]
    pub out: PathBuf,
    /// k: samples kept per window (1: greedy).
    #[arg(long, default_value_t = 20, value_parser = crate::flags::positive_count)]
    pub keep: usize,
    /// n: samples stored per window over the k searches.
    #[arg(long, default_value_t = 400, value_parser = crate::flags::positive_count)]
    pub samples: usize,
    /// CMA-ES generations per start state.
    #[arg(long, default_value_t = 200, value_parser = crate::flags::positive_count)]
    pub generations: usize,
    /// CMA-ES population.
    #[arg(long, default_value_t = 30, value_parser = crate::flags::population)]
    pub population: usize,
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// Worker threads (0: every core).
    #[arg(long, default_value_t = 0, value_parser = crate::flags::threads)]
    pub threads: usize,
    /// Track the motion from this time (s).
    #[arg(long, default_value_t = 0.0)]
    pub from: f64,
    /// Track the motion up to this time (s; default its end).
    #[arg(long)]
    pub to: Option<f64>,
    /// A rollout stops once its cost passes this many times its search's best (0: never).
    #[arg(long, default_value_t = 3.0)]
    pub abort_factor: f64,
    /// Continue the search in --out from its checkpoint.
    #[arg(long)]
    pub resume: bool,
    #[command(flatten)]
    pub cluster: crate::job_cli::MpiArgs,
}

/// The lines of `track`'s windows: `window I t T best B kept MIN..MAX rollouts R`.
fn window_line(i: usize, w: &motionlab::track::WindowRecord) -> String {
    let kept: Vec<f64> = w.kept_samples.iter().map(|k| k.sample.cost).collect();
    let (lo, hi) = kept
        .iter()
        .fold((f64::INFINITY, f64::NEG_INFINITY), |(l, h), c| {
            (l.min(*c), h.max(*c))
        });
    format!(
        "window {i} t {:.2} best {:.4} kept {lo:.4}..{hi:.4} rollouts {}",
        w.start,
        w.best(),
        w.rollouts
    )
}

/// Runs the job in `folder`, printing each window's line as it ends; the result's path.
fn run_job(job: TrackJob, folder: &Path, threads: usize) -> Result<PathBuf> {
    let runner = JobRunner::new(threads, "results")?;
    let mut printed = job.search().windows.len();
    for (i, w) in job.search().windows.iter().enumerate() {
        println!("{}", window_line(i, w));
    }
    let mut handle = runner.spawn(Box::new(job), Some(folder.to_path_buf()));
    while let Some(e) = handle.next_event() {
        match e {
            JobEvent::Progress(p) => {
                if let Some(t) = p.detail::<TrackProgress>() {
                    for (i, w) in t.windows.iter().enumerate().skip(printed) {
                        println!("{}", window_line(i, w));
                    }
                    printed = printed.max(t.windows.len());
                }
            }
            JobEvent::Failed(m) => anyhow::bail!("tracking failed: {m}"),
            _ => {}
        }
    }
    if handle.wait() != JobStatus::Finished {
        anyhow::bail!("the tracking search did not finish");
    }
    handle.result.clone().context("no result file")
}

/// Prints a result's summary and writes its clip, controls and samples beside it.
pub fn report(result: &TrackResult, folder: &Path) -> Result<()> {
    let m = &result.metrics;
    println!("fell {}", m.fell);
    println!("root_error_median_m {:.4}", m.root_error_median_m);
    println!("root_error_max_m {:.4}", m.root_error_max_m);
    println!("ee_error_median_m {:.4}", m.ee_error_median_m);
    println!("pose_error_rad {:.4}", m.pose_error_rad);
    println!("cost {:.4}", m.cost);
    println!(
        "core_hours_per_motion_second {:.4}",
        result.core_hours_per_motion_second()
    );
    println!("hash {}", result.hash);
    let write = |name: &str, text: String| -> Result<()> {
        let path = folder.join(name);
        motionlab::files::write_atomic(&path, text.as_bytes())
            .with_context(|| format!("writing {}", path.display()))
    };
    write("clip.ron", motionlab::files::to_ron_string(&result.clip))?;
    write(
        "controls.ron",
        motionlab::files::to_ron_string(&result.controls),
    )?;
    write(
        "samples.ron",
        motionlab::files::to_ron_string(&result.windows),
    )?;
    Ok(())
}

pub fn run(a: TrackArgs) -> Result<()> {
    let (ranks, _session) = a.cluster.start()?;
    run_on(a, ranks)
}

fn run_on(a: TrackArgs, ranks: Ranks) -> Result<()> {
    let cp = a.out.join("checkpoint.ron");
    let finished = a.out.join("result.ron");
    let path = if a.resume && !cp.exists() && finished.exists() {
        if !ranks.is_root() {
            return Ok(());
        }
        eprintln!(
            "{} holds a finished search; reporting its result",
            a.out.display()
        );
        finished
    } else {
        let job = if a.resume {
            let text = std::fs::read_to_string(&cp)
                .with_context(|| format!("reading checkpoint {}", cp.display()))?;
            TrackJob::from_checkpoint(&text)
                .with_context(|| format!("resuming from {}", cp.display()))?
        } else {
            TrackJob::new(TrackConfig {
                clip: a.clip.clone(),
                character: a.character.clone(),
                from: a.from,
                to: a.to,
                settings: TrackSettings {
                    keep: a.keep,
                    samples: a.samples,
                    generations: a.generations,
                    population: a.population,
                    seed: a.seed,
                    abort_factor: a.abort_factor,
                    ..TrackSettings::default()
                },
            })?
        };
        let mut job = job.on_ranks(ranks);
        if !ranks.is_root() {
            // The same windows as rank 0, silently: it alone prints and writes.
            use motionlab::jobs::{Job, StepOutcome};
            let pool = rayon::ThreadPoolBuilder::new()
                .num_threads(a.threads)
                .build()?;
            while let StepOutcome::Running = job.step(&pool)? {}
            return Ok(());
        }
        run_job(job, &a.out, a.threads)?
    };
    let result: TrackResult = motionlab::files::read_ron(&path)?;
    report(&result, &a.out)
}

/// `motionlab replay DIR/result.ron` of a tracking search: the chain simulated again from its
/// settings and windows must give the stored trajectory hash.
pub fn replay(result: &TrackResult) -> Result<()> {
    let hash = result.replay()?;
    println!("hash: {hash}");
    Ok(())
}

/// `bench track`: rollouts per second of one window of the human3d tracking its walk, at the
/// paper's settings, and the core-hours a second of motion costs at them.
pub fn bench(quick: bool) -> Result<()> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let config = TrackConfig {
        clip: root.join("assets/gaits/human3d_walk_1.2ms.ron"),
        character: root.join("characters/human3d.ron"),
        from: 0.0,
        to: Some(0.5),
        settings: TrackSettings {
            keep: if quick { 2 } else { 20 },
            generations: if quick { 10 } else { 200 },
            samples: if quick { 4 } else { 400 },
            ..TrackSettings::default()
        },
    };
    let mut job = TrackJob::new(config.clone())?;
    let pool = rayon::ThreadPoolBuilder::new().build()?;
    let started = std::time::Instant::now();
    use motionlab::jobs::Job;
    job.step(&pool)?;
    let seconds = started.elapsed().as_secs_f64();
    let w = &job.search().windows[0];
    let threads = pool.current_num_threads() as f64;
    let rollouts_per_second = w.rollouts as f64 / seconds;
    // A second of motion is 1/stride windows of this cost, at the paper's settings.
    let paper_rollouts_per_window = 20.0 * 200.0 * 30.0;
    let windows_per_second = 1.0 / config.settings.stride;
    let core_hours =
        paper_rollouts_per_window * windows_per_second / rollouts_per_second * threads / 3600.0;
    println!(
        "rollouts {} in {seconds:.2} s on {threads} threads",
        w.rollouts
    );
    println!("rollouts_per_second {rollouts_per_second:.1}");
    println!(
        "stopped_early {:.1} %",
        100.0 * w.stopped_early as f64 / w.rollouts.max(1) as f64
    );
    println!("core_hours_per_motion_second {core_hours:.3}");
    // The floor: the same steps at the speed of the physics alone (the standing human, one
    // core, median of 3, measured now: the machine's speed varies from sitting to sitting).
    let human = motionlab::model::load_character(&config.character)?;
    let physics = motionlab::sim::bench::steps_per_second(
        &human,
        motionlab::sim::SimSettings::default(),
        2.0,
    )?;
    let window_steps = job.search().layout(0).steps as f64;
    let floor = paper_rollouts_per_window * windows_per_second * window_steps / physics / 3600.0;
    println!("physics_steps_per_second {physics:.0}");
    println!("physics_floor_core_hours_per_motion_second {floor:.3}");
    println!("ratio_to_floor {:.2}", core_hours / floor);
    Ok(())
}
