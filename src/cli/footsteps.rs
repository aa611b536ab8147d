//! `motionlab footsteps plan`: footstep plans into a sequence of tasks (Agrawal 2016, thesis
//! ch. 5) from the command line. Parsing and printing only; the work is `motionlab::footsteps`.

use anyhow::{Result, anyhow};
use motionlab::footsteps::library::Dimensions;
use motionlab::footsteps::{Library, TaskSequence, plan};
use std::path::PathBuf;

#[derive(clap::Subcommand)]
pub enum FootstepsCommand {
    /// Plan the footsteps into each task of a task file, in order: an exit out of the task
    /// before, walk steps, the enter preparation and an entry onto the task's stance. Prints per
    /// task `task I reached_m D reached_deg A steps N plan_ms T route R`. Example:
    /// `motionlab footsteps plan assets/tasks/demo.ron --out /tmp/demo.plan.ron`
    Plan {
        /// A task file (`start`, `start_facing_deg`, `tasks: [(category, location, facing_deg,
        /// effort)]`); not with --random.
        #[arg(required_unless_present = "random", conflicts_with = "random")]
        tasks: Option<PathBuf>,
        /// Plan a seeded random sequence instead (tasks 0.5 to 8 m apart at any facing).
        #[arg(long)]
        random: Option<u64>,
        /// Tasks in the random sequence.
        #[arg(long, default_value_t = 5, requires = "random")]
        count: usize,
        /// Write the plan (every footstep with its tag and phase, and the reports) here.
        #[arg(long)]
        out: Option<PathBuf>,
        /// Print every footstep too.
        #[arg(long)]
        steps: bool,
    },
}

pub fn run(command: FootstepsCommand) -> Result<()> {
    match command {
        FootstepsCommand::Plan {
            tasks,
            random,
            count,
            out,
            steps,
        } => {
            let sequence = match (tasks, random) {
                (Some(path), _) => TaskSequence::load(&path)?,
                (None, Some(seed)) => TaskSequence::random(seed, count.max(1)),
                (None, None) => return Err(anyhow!("give a task file or --random SEED")),
            };
            let library = Library::geometric(Dimensions::default());
            let plan = plan(&library, &sequence);
            if steps {
                for s in &plan.steps {
                    println!(
                        "step task {} {:?} {:?} {:?} x {:.3} y {:.3} yaw_deg {:.1}",
                        s.task + 1,
                        s.phase,
                        s.tag,
                        s.step.foot,
                        s.step.x,
                        s.step.y,
                        s.step.yaw.to_degrees()
                    );
                }
            }
            for r in &plan.reports {
                println!(
                    "task {} reached_m {:.4} reached_deg {:.2} steps {} plan_ms {:.3} route {:?}",
                    r.task + 1,
                    r.reached_m,
                    r.reached_deg,
                    r.steps,
                    r.plan_ms,
                    r.route
                );
            }
            if let Some(out) = out {
                motionlab::files::write_ron(&out, &plan)
                    .map_err(|e| anyhow!("{}: {e}", out.display()))?;
                println!("wrote {}", out.display());
            }
            Ok(())
        }
    }
}

/// `motionlab bench footsteps`: plans random sequences of five tasks (100, or 10 with --quick)
/// and prints the median and 90th percentile of one task's plan time, and the steps per task.
pub fn bench(quick: bool, seed: u64) -> Result<()> {
    let library = Library::geometric(Dimensions::default());
    let sequences = if quick { 10 } else { 100 };
    let mut ms = Vec::new();
    let mut steps = Vec::new();
    for s in 0..sequences {
        let plan = plan(&library, &TaskSequence::random(seed + s, 5));
        for r in &plan.reports {
            ms.push(r.plan_ms);
            steps.push(r.steps as f64);
        }
    }
    ms.sort_by(f64::total_cmp);
    let at = |q: f64| ms[((ms.len() - 1) as f64 * q).round() as usize];
    println!(
        "footsteps_plan_ms median {:.3} p90 {:.3} max {:.3} (tasks {}, steps per task {:.1})",
        at(0.5),
        at(0.9),
        ms[ms.len() - 1],
        ms.len(),
        steps.iter().sum::<f64>() / steps.len() as f64
    );
    Ok(())
}
