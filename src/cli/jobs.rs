//! Running a background job from the command line with a progress bar.

use anyhow::{Context, Result, bail};
use indicatif::{ProgressBar, ProgressStyle};
use motionlab::cluster::Ranks;
use motionlab::jobs::{Job, JobEvent, JobRunner, JobStatus, StepOutcome};
use std::path::PathBuf;

/// `--mpi` of the commands whose evaluations may spread over MPI ranks.
#[derive(clap::Args, Clone, Copy, Debug, Default)]
pub struct MpiArgs {
    /// Spread every generation's rollouts over the ranks of an MPI job (`mpirun -np N motionlab
    /// … --mpi`; rank 0 prints and writes); the result is the same bits as without MPI.
    #[cfg(feature = "mpi")]
    #[arg(long)]
    pub mpi: bool,
}

impl MpiArgs {
    /// This process's ranks (MPI started when asked); keep the session until the job is done.
    pub fn start(&self) -> Result<(Ranks, motionlab::cluster::Session)> {
        #[cfg(feature = "mpi")]
        let mpi = self.mpi;
        #[cfg(not(feature = "mpi"))]
        let mpi = false;
        motionlab::cluster::start(mpi)
    }
}

/// Runs `job` in `folder` on `threads` cores (0: all), showing its progress, and returns the
/// path of its result file. `what` names the job in errors ("robustness sweep").
pub fn run_with_progress(
    job: Box<dyn Job>,
    folder: PathBuf,
    threads: usize,
    what: &str,
) -> Result<PathBuf> {
    let runner = JobRunner::new(threads, "results")?;
    let mut handle = runner.spawn(job, Some(folder));
    let bar = ProgressBar::new(1000);
    bar.set_style(ProgressStyle::with_template(
        "{spinner} [{elapsed_precise}] {bar:40} {percent:>3}% {msg}",
    )?);
    while let Some(e) = handle.next_event() {
        match e {
            JobEvent::Progress(p) => {
                bar.set_position((p.fraction * 1000.0) as u64);
                bar.set_message(p.message.clone());
            }
            JobEvent::Failed(m) => {
                bar.abandon();
                bail!("{what} failed: {m}");
            }
            _ => {}
        }
    }
    bar.finish_and_clear();
    if handle.wait() != JobStatus::Finished {
        bail!("{what} did not finish");
    }
    handle.result.clone().context("no result file")
}

/// The `--out DIR [--resume]` protocol of every job command: a new job (`start`), or with
/// `resume` the one whose checkpoint is in `folder` (`from_checkpoint` parses it); a finished
/// job has removed its checkpoint, so resuming it reports its result again. Returns the path of
/// the result file.
pub fn start_or_resume<J: Job + 'static>(
    folder: PathBuf,
    resume: bool,
    threads: usize,
    what: &str,
    from_checkpoint: impl FnOnce(&str) -> Result<J>,
    start: impl FnOnce() -> Result<J>,
) -> Result<PathBuf> {
    let path = start_or_resume_on(
        Ranks::Alone,
        folder,
        resume,
        threads,
        what,
        from_checkpoint,
        start,
    )?;
    path.context("no result file")
}

/// [`start_or_resume`] on one rank of an MPI job (the job spreads its own evaluations over
/// `ranks`): rank 0 shows the progress, checkpoints and writes the result, and gets its path;
/// the other ranks run the same steps silently, write nothing, and get `None`.
pub fn start_or_resume_on<J: Job + 'static>(
    ranks: Ranks,
    folder: PathBuf,
    resume: bool,
    threads: usize,
    what: &str,
    from_checkpoint: impl FnOnce(&str) -> Result<J>,
    start: impl FnOnce() -> Result<J>,
) -> Result<Option<PathBuf>> {
    let cp = folder.join("checkpoint.ron");
    let finished = folder.join("result.ron");
    if resume && !cp.exists() && finished.exists() {
        if ranks.is_root() {
            eprintln!(
                "{} holds a finished {what}; reporting its result",
                folder.display()
            );
        }
        return Ok(ranks.is_root().then_some(finished));
    }
    let mut job = if resume {
        let text = std::fs::read_to_string(&cp)
            .with_context(|| format!("reading checkpoint {}", cp.display()))?;
        from_checkpoint(&text).with_context(|| format!("resuming from {}", cp.display()))?
    } else {
        start()?
    };
    if ranks.is_root() {
        return run_with_progress(Box::new(job), folder, threads, what).map(Some);
    }
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .build()?;
    while let StepOutcome::Running = job
        .step(&pool)
        .with_context(|| format!("{what} on rank {}", ranks.rank()))?
    {}
    Ok(None)
}
