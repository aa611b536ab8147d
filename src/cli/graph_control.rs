//! `motionlab graph control`: trains the graph's tracking policy for physics playback (a
//! background job: resumable from its checkpoint, with progress and a line per iteration).
//! Parsing and printing only; the work is `motionlab::steering::tracker_training`.

use anyhow::{Context, Result};
use motionlab::learn::ppo::PpoSettings;
use motionlab::motion_graph::MotionGraph;
use motionlab::steering::tracker_training::{TrackerCheckpoint, TrainingSettings};
use std::path::Path;
use std::sync::Arc;

/// Trains (or goes on training) the tracker of `graph` in `out` for `iterations` more updates,
/// with the exploration noise, policy learning rate, target KL and heading follow changed when
/// given.
pub fn control(
    graph: &Path,
    out: &Path,
    iterations: u64,
    settings: &TrainingSettings,
    seed: u64,
    (noise, learning_rate, target_kl, heading_follow): (
        Option<f32>,
        Option<f32>,
        Option<f32>,
        Option<f64>,
    ),
    threads: usize,
) -> Result<()> {
    let g = Arc::new(MotionGraph::load(graph)?);
    let mut checkpoint = if out.exists() {
        let c = TrackerCheckpoint::load(out, &g)?;
        println!(
            "resuming {}: {} iterations, {} decisions learned from",
            out.display(),
            c.learner.iterations,
            c.learner.samples
        );
        c
    } else {
        TrackerCheckpoint::new(&g, PpoSettings::default(), seed)?
    };
    checkpoint.learner.retune(noise, learning_rate, target_kl);
    if let Some(h) = heading_follow {
        checkpoint.heading_follow = h;
    }
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .build()
        .context("starting the worker threads")?;
    let bar = indicatif::ProgressBar::new(iterations);
    bar.set_style(
        indicatif::ProgressStyle::with_template(
            "control {bar:30} {pos}/{len} iterations, {elapsed} (eta {eta}) {msg}",
        )
        .expect("valid template"),
    );
    for _ in 0..iterations {
        let started = std::time::Instant::now();
        let r = pool.install(|| checkpoint.iterate(&g, settings))?;
        checkpoint.save(out)?;
        bar.inc(1);
        bar.set_message(format!("reward {:.3}, {:.1} s up", r.reward, r.seconds));
        bar.suspend(|| {
            println!(
                "iteration {} samples {} episodes {} reward {:.4} seconds_up {:.2} falls {:.2} value_error {:.4} clipped {:.3} kl {:.4} epochs {:.2} wall_s {:.1}",
                r.iteration,
                r.samples,
                r.episodes,
                r.reward,
                r.seconds,
                r.falls,
                r.value_error,
                r.clipped,
                r.kl,
                r.epochs,
                started.elapsed().as_secs_f64()
            )
        });
    }
    bar.finish_and_clear();
    println!("tracker: {}", out.display());
    Ok(())
}
