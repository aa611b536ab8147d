//! `motionlab controller synthesize`: grow a controller's motion graph (Wampler 2012, thesis
//! ch. 5) from the command line. Parsing, solving processes and printing; the science is
//! `motionlab::synthesis`.

use anyhow::{Context, Result};
use motionlab::spacetime::gait::GaitClip;
use motionlab::spacetime::job::{ConnectRequest, GaitRequest, PoolEvent, SolverPool};
use motionlab::synthesis::graph::{self, Creature};
use motionlab::synthesis::{ControllerTask, Synthesis};
use std::path::{Path, PathBuf};

#[derive(clap::Subcommand)]
pub enum ControllerCommand {
    /// Grow a motion graph for a task one physically valid clip at a time (Wampler 2012, thesis
    /// ch. 5): each iteration weighs turn templates by the surrogates (or draws one uniformly
    /// with --uniform), solves the best with the gait NLP and measures the expected cost of the
    /// graph's optimal controller. Prints per iteration `iteration I clips C expected_cost E
    /// template T solved true|false`. Writes the graph after every iteration (playable by
    /// `steer` and the app) and resumes from its folder's `synthesis.ron` when run again.
    /// Example: `motionlab controller synthesize characters/simple_biped.ron --task
    /// assets/controllers/biped_direction.ron --clips 10 --out /tmp/biped.graph.ron`
    Synthesize {
        /// The creature's character file.
        creature: PathBuf,
        /// The task file (`task: Direction`, the base cycle, the turns searched).
        #[arg(long)]
        task: PathBuf,
        /// Stop when the graph has this many clips (the base cycle counted).
        #[arg(long, default_value_t = 10)]
        clips: usize,
        /// Stop after this many iterations (solves), whatever they gave.
        #[arg(long, default_value_t = 20)]
        iterations: usize,
        /// Draw each template's parameters uniformly (the thesis's baseline).
        #[arg(long)]
        uniform: bool,
        /// Seed of the uniform draws.
        #[arg(long, default_value_t = 1)]
        seed: u64,
        /// The graph file; its clips, gaits and `synthesis.ron` (history and checkpoint) go in
        /// the folder of the same name without `.ron`.
        #[arg(long)]
        out: PathBuf,
    },
}

pub fn run(command: ControllerCommand) -> Result<()> {
    match command {
        ControllerCommand::Synthesize {
            creature,
            task,
            clips,
            iterations,
            uniform,
            seed,
            out,
        } => synthesize(&creature, &task, clips, iterations, uniform, seed, &out),
    }
}

/// The folder of a graph file's clips: its path without `.ron`.
fn folder_of(out: &Path) -> PathBuf {
    let name = out
        .file_name()
        .map(|n| n.to_string_lossy().trim_end_matches(".ron").to_string())
        .unwrap_or_else(|| "graph".into());
    out.with_file_name(name)
}

/// Solves one gait job in a worker process; `Err` with why there is no clip.
fn solve(request: &GaitRequest) -> Result<GaitClip, String> {
    let exe = std::env::current_exe().map_err(|e| e.to_string())?;
    let mut pool = SolverPool::new(&exe, 1);
    pool.start(0, request).map_err(|e| e.to_string())?;
    let mut last = 0;
    while let Some(event) = pool.next_event() {
        match event {
            PoolEvent::Iteration {
                iteration,
                objective,
                infeasibility,
                ..
            } => {
                if iteration >= last + 250 {
                    last = iteration;
                    eprintln!(
                        "  IPOPT iteration {iteration}: objective {objective:.4e}, infeasibility {infeasibility:.1e}"
                    );
                }
            }
            PoolEvent::Done { clip, .. } => return clip.map_err(|e| e.to_string()),
        }
    }
    Err("the solver process ended without a clip".into())
}

fn synthesize(
    creature_path: &Path,
    task_path: &Path,
    max_clips: usize,
    max_iterations: usize,
    uniform: bool,
    seed: u64,
    out: &Path,
) -> Result<()> {
    let task: ControllerTask = motionlab::files::read_ron(task_path)?;
    let creature = Creature::load(creature_path)?;
    let folder = folder_of(out);
    let trials = folder.join("trials");
    std::fs::create_dir_all(&trials).with_context(|| format!("creating {}", trials.display()))?;
    let checkpoint = folder.join("synthesis.ron");
    let mut s = if checkpoint.exists() {
        let s: Synthesis = motionlab::files::read_ron(&checkpoint)?;
        anyhow::ensure!(
            s.task == task && s.uniform == uniform && s.seed == seed,
            "{} is another synthesis (task, --uniform or --seed differ); remove it or choose another --out",
            checkpoint.display()
        );
        eprintln!(
            "resuming {} at iteration {} ({} clips)",
            checkpoint.display(),
            s.iterations(),
            s.clips.len()
        );
        s
    } else {
        let base = match &task.base {
            Some(rel) => {
                let path = task_path.parent().unwrap_or(Path::new("")).join(rel);
                motionlab::files::read_ron::<GaitClip>(&path)
                    .with_context(|| format!("the task's base cycle {}", path.display()))?
            }
            None => {
                eprintln!("solving the base cycle at {} m/s", task.speed);
                let request = GaitRequest {
                    turn_rate: Some(0.0),
                    max_iterations: task.solver_iterations,
                    out: Some(trials.join("base.ron")),
                    ..GaitRequest::new(creature_path, task.speed)
                };
                let base = solve(&request).map_err(|e| anyhow::anyhow!("the base cycle: {e}"))?;
                let _ = std::fs::remove_file(trials.join("base.ron"));
                anyhow::ensure!(
                    base.is_valid(),
                    "the base cycle did not solve ({}, violation {:.1e})",
                    base.status,
                    base.max_violation
                );
                base
            }
        };
        Synthesis::new(task.clone(), uniform, seed, base, &creature)?
    };
    let base_file = folder
        .join("gait")
        .join(format!("{}.ron", motionlab::synthesis::BASE));
    graph::write(&creature, &s.clips, out, &folder)?;
    motionlab::files::write_ron(&checkpoint, &s)?;
    for h in &s.history {
        print_iteration(h);
    }
    while s.clips.len() < max_clips && s.iterations() < max_iterations {
        let proposal = s.propose(&creature)?;
        eprintln!(
            "  weighed {} templates; solving a turn of {:+.0}° from frame {} (q {:.3}, P {:.2}, predicted {:.4})",
            proposal.weighed.len().max(1),
            proposal.sigma.theta.to_degrees(),
            proposal.connection.from_frame,
            proposal.quality,
            proposal.probability,
            proposal.predicted
        );
        let request = GaitRequest {
            max_iterations: task.solver_iterations,
            out: Some(trials.join(format!("{}.ron", proposal.name))),
            connect: Some(ConnectRequest {
                from: base_file.clone(),
                to: base_file.clone(),
                connection: proposal.connection.clone(),
            }),
            ..GaitRequest::new(creature_path, s.clips[0].gait.speed)
        };
        let solved = solve(&request);
        let h = s.record(&creature, &proposal, solved)?.clone();
        // A valid clip is now in the graph's folder, and the history says how each solve
        // ended: the solver's own file is scratch.
        if let Some(out) = &request.out {
            let _ = std::fs::remove_file(out);
        }
        graph::write(&creature, &s.clips, out, &folder)?;
        motionlab::files::write_ron(&checkpoint, &s)?;
        print_iteration(&h);
    }
    let _ = std::fs::remove_dir(&trials);
    println!(
        "graph {} clips {} iterations {} expected_cost {:.4}",
        out.display(),
        s.clips.len(),
        s.iterations(),
        s.cost()
    );
    Ok(())
}

fn print_iteration(h: &motionlab::synthesis::Iteration) {
    println!(
        "iteration {} clips {} expected_cost {:.4} template {} solved {} q {:.3} p {:.2} violation {:.1e} solve_s {:.1}",
        h.iteration,
        h.clips,
        h.expected_cost,
        h.template(),
        h.solved,
        h.quality,
        h.probability,
        h.max_violation,
        h.solve_time_s
    );
}
