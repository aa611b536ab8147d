//! `motionlab controller synthesize`: grow a controller's motion graph (Wampler 2012, thesis
//! ch. 5) from the command line. Parsing and printing; the job and the
//! science are `motionlab::synthesis`.

use anyhow::{Context, Result};
use motionlab::jobs::{Job, StepOutcome};
use motionlab::synthesis::job::{SynthesisJob, SynthesisRequest};
use std::path::PathBuf;

#[derive(clap::Subcommand)]
pub enum ControllerCommand {
    /// Grow a motion graph for a task one physically valid clip at a time (Wampler 2012, thesis
    /// ch. 5): each iteration weighs templates (turns; with a speed task, new cycles at other
    /// speeds too; with a facing task, strafes; with a gait task, runs) by the surrogates (or draws one uniformly with --uniform), solves the best with
    /// the gait NLP and measures the expected cost of the graph's optimal controller. Prints per iteration `iteration I clips C expected_cost E
    /// template T solved true|false`. Writes the graph after every iteration (playable by
    /// `steer` and the app) and resumes from its folder's `synthesis.ron` when run again.
    /// Example: `motionlab controller synthesize characters/simple_biped.ron --task
    /// assets/controllers/biped_direction.ron --clips 10 --out /tmp/biped.graph.ron`
    Synthesize {
        /// The creature's character file.
        creature: PathBuf,
        /// The task file (`task: Direction`, `DirectionSpeed` with its `speeds`,
        /// `DirectionFacing` with its strafes, `max_strafe_deg`, or `DirectionGait` with its
        /// `gaits`, runs beside the walk; the base cycle, the turns searched).
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
        } => synthesize(SynthesisRequest {
            creature,
            task,
            clips,
            iterations,
            uniform,
            seed,
            out,
        }),
    }
}

fn synthesize(request: SynthesisRequest) -> Result<()> {
    let out = request.out.clone();
    let program = std::env::current_exe().context("locating this program (the solver worker)")?;
    let mut job = SynthesisJob::open(request, program)?;
    let pool = rayon::ThreadPoolBuilder::new().num_threads(1).build()?;
    let mut printed = 0;
    loop {
        let outcome = job.step(&pool)?;
        for line in job.take_said() {
            eprintln!("  {line}");
        }
        if let Some(s) = job.synthesis() {
            for h in &s.history[printed..] {
                print_iteration(h);
            }
            printed = s.history.len();
        }
        if matches!(outcome, StepOutcome::Done) {
            break;
        }
    }
    let s = job.synthesis().context("no synthesis")?;
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
