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
