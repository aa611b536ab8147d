//! Running a background job from the command line with a progress bar.

use anyhow::{Context, Result, bail};
use indicatif::{ProgressBar, ProgressStyle};
use motionlab::jobs::{Job, JobEvent, JobRunner, JobStatus};
use std::path::PathBuf;

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
    let cp = folder.join("checkpoint.ron");
    let finished = folder.join("result.ron");
    if resume && !cp.exists() && finished.exists() {
        eprintln!(
            "{} holds a finished {what}; reporting its result",
            folder.display()
        );
        return Ok(finished);
    }
    let job = if resume {
        let text = std::fs::read_to_string(&cp)
            .with_context(|| format!("reading checkpoint {}", cp.display()))?;
        from_checkpoint(&text).with_context(|| format!("resuming from {}", cp.display()))?
    } else {
        start()?
    };
    run_with_progress(Box::new(job), folder, threads, what)
}
