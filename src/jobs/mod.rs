//! Background jobs: resumable state machines stepped on a dedicated rayon pool.
//!
//! See docs/jobs-and-files.md. A [`Job`] advances in small steps (a round of rollouts, a
//! generation); between steps the runner honours pause, resume and cancel, sends a
//! [`Progress`] message, and writes the job's checkpoint atomically. When the job finishes its
//! result is written atomically (temporary file, then rename) as RON under the results folder,
//! and the checkpoint is removed. Bevy's async pool has at most 4 threads and is shared with
//! rendering, so jobs run on their own pool, sized to the machine.

use crossbeam_channel::{Receiver, Sender};
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};

pub mod supervisor;

pub use crate::files::{read_ron, write_atomic, write_ron};

/// A job's live state in its own type (a robustness sweep's `SweepState`, an exploration's
/// incumbents as an `ExploreResult`), for whoever started the job and knows that type: read with
/// [`Detail::get`], never parsed from text or re-read from the checkpoint on disk.
#[derive(Clone)]
pub struct Detail(Arc<dyn std::any::Any + Send + Sync>);

impl Detail {
    pub fn new<T: std::any::Any + Send + Sync>(value: T) -> Self {
        Detail(Arc::new(value))
    }

    /// The state, if it is a `T`.
    pub fn get<T: std::any::Any>(&self) -> Option<&T> {
        self.0.downcast_ref()
    }
}

impl std::fmt::Debug for Detail {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Detail")
    }
}

impl PartialEq for Detail {
    fn eq(&self, other: &Self) -> bool {
        Arc::ptr_eq(&self.0, &other.0)
    }
}

/// Where a job stands, for progress bars and live plots.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Progress {
    /// Completed fraction in [0, 1].
    pub fraction: f32,
    pub message: String,
    /// The job's live state, typed by the job.
    pub detail: Option<Detail>,
}

impl Progress {
    /// The live state, if the job reports a `T`.
    pub fn detail<T: std::any::Any>(&self) -> Option<&T> {
        self.detail.as_ref()?.get()
    }
}

/// What one step of a job produced.
pub enum StepOutcome {
    /// More work remains.
    Running,
    /// The job has finished; its result is ready.
    Done,
}

/// A resumable unit of background work.
pub trait Job: Send {
    /// Kind of job, used in folder names and the Jobs panel (`robustness`, …).
    fn kind(&self) -> &'static str;
    /// One-line description (character, settings).
    fn title(&self) -> String;
    /// Advances the job by one step, running parallel work on `pool`.
    fn step(&mut self, pool: &rayon::ThreadPool) -> anyhow::Result<StepOutcome>;
    fn progress(&self) -> Progress;
    /// Serialized state from which the job can be resumed (RON).
    fn checkpoint(&self) -> anyhow::Result<String>;
    /// Serialized final result (RON); valid once `step` returned `Done`.
    fn result(&self) -> anyhow::Result<String>;
}

/// Messages a running job sends.
#[derive(Clone, Debug, PartialEq)]
pub enum JobEvent {
    Progress(Progress),
    Paused,
    Resumed,
    Checkpointed(PathBuf),
    Finished { result: PathBuf },
    Cancelled,
    Failed(String),
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum JobStatus {
    Running,
    Paused,
    Finished,
    Cancelled,
    Failed,
}

#[derive(Default)]
struct JobControl {
    paused: AtomicBool,
    cancelled: AtomicBool,
}

/// The caller's side of a running job.
pub struct JobHandle {
    pub id: u64,
    pub kind: &'static str,
    pub title: String,
    /// Folder holding `checkpoint.ron` and `result.ron`.
    pub folder: PathBuf,
    control: Arc<JobControl>,
    events: Receiver<JobEvent>,
    thread: Option<std::thread::JoinHandle<()>>,
    pub status: JobStatus,
    pub progress: Progress,
    /// Steps reported so far.
    pub steps: u64,
    /// Checkpoints written so far.
    pub checkpoints: u64,
    pub result: Option<PathBuf>,
    pub error: Option<String>,
}

impl Drop for JobHandle {
    /// A job nobody holds any more is cancelled (it stops at its next step).
    fn drop(&mut self) {
        if !self.is_done() {
            self.cancel();
        }
    }
}

impl JobHandle {
    pub fn pause(&self) {
        self.control.paused.store(true, Ordering::SeqCst);
    }
    pub fn resume(&self) {
        self.control.paused.store(false, Ordering::SeqCst);
    }
    pub fn cancel(&self) {
        self.control.cancelled.store(true, Ordering::SeqCst);
    }
    pub fn is_done(&self) -> bool {
        matches!(
            self.status,
            JobStatus::Finished | JobStatus::Cancelled | JobStatus::Failed
        )
    }

    /// Applies every pending event to `status`/`progress` and returns them.
    pub fn poll(&mut self) -> Vec<JobEvent> {
        let events: Vec<JobEvent> = self.events.try_iter().collect();
        for e in &events {
            self.apply(e);
        }
        events
    }

    /// Blocks until the next event (None once the job has ended and all events were read).
    pub fn next_event(&mut self) -> Option<JobEvent> {
        let e = self.events.recv().ok()?;
        self.apply(&e);
        Some(e)
    }

    /// Waits for the job to end and returns its final status.
    pub fn wait(&mut self) -> JobStatus {
        while self.next_event().is_some() {}
        if let Some(t) = self.thread.take() {
            let _ = t.join();
        }
        self.status
    }

    fn apply(&mut self, e: &JobEvent) {
        match e {
            JobEvent::Progress(p) => {
                self.progress = p.clone();
                self.steps += 1;
            }
            JobEvent::Paused => self.status = JobStatus::Paused,
            JobEvent::Resumed => self.status = JobStatus::Running,
            JobEvent::Checkpointed(_) => self.checkpoints += 1,
            JobEvent::Finished { result } => {
                self.status = JobStatus::Finished;
                self.progress.fraction = 1.0;
                self.result = Some(result.clone());
            }
            JobEvent::Cancelled => self.status = JobStatus::Cancelled,
            JobEvent::Failed(m) => {
                self.status = JobStatus::Failed;
                self.error = Some(m.clone());
            }
        }
    }
}

/// Runs jobs on a rayon pool of its own.
pub struct JobRunner {
    pool: Arc<rayon::ThreadPool>,
    results_dir: PathBuf,
    next_id: AtomicU64,
}

impl JobRunner {
    /// `threads` = 0 uses every core.
    pub fn new(threads: usize, results_dir: impl Into<PathBuf>) -> anyhow::Result<Self> {
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(threads)
            .thread_name(|i| format!("motionlab-job-{i}"))
            .build()?;
        Ok(JobRunner {
            pool: Arc::new(pool),
            results_dir: results_dir.into(),
            next_id: AtomicU64::new(1),
        })
    }

    pub fn threads(&self) -> usize {
        self.pool.current_num_threads()
    }

    pub fn results_dir(&self) -> &Path {
        &self.results_dir
    }

    /// Starts `job` in `folder` (created if needed), or in a new folder under the results
    /// directory named after its kind and start time.
    pub fn spawn(&self, job: Box<dyn Job>, folder: Option<PathBuf>) -> JobHandle {
        let id = self.next_id.fetch_add(1, Ordering::Relaxed);
        let kind = job.kind();
        let title = job.title();
        let folder = folder.unwrap_or_else(|| {
            let stamp = std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .map(|d| d.as_secs())
                .unwrap_or(0);
            self.results_dir.join(format!("{kind}-{stamp}-{id}"))
        });
        let control = Arc::new(JobControl::default());
        let (tx, rx) = crossbeam_channel::unbounded();
        let pool = self.pool.clone();
        let ctl = control.clone();
        let dir = folder.clone();
        let thread = std::thread::Builder::new()
            .name(format!("motionlab-{kind}-{id}"))
            .spawn(move || drive(job, &pool, &ctl, &dir, &tx))
            .expect("spawning a job thread");
        JobHandle {
            id,
            kind,
            title,
            folder,
            control,
            events: rx,
            thread: Some(thread),
            status: JobStatus::Running,
            progress: Progress::default(),
            steps: 0,
            checkpoints: 0,
            result: None,
            error: None,
        }
    }
}

fn drive(
    mut job: Box<dyn Job>,
    pool: &rayon::ThreadPool,
    ctl: &JobControl,
    dir: &Path,
    tx: &Sender<JobEvent>,
) {
    let checkpoint = dir.join("checkpoint.ron");
    let mut paused = false;
    loop {
        if ctl.cancelled.load(Ordering::SeqCst) {
            let _ = tx.send(JobEvent::Cancelled);
            return;
        }
        if ctl.paused.load(Ordering::SeqCst) {
            if !paused {
                paused = true;
                let _ = tx.send(JobEvent::Paused);
            }
            std::thread::sleep(std::time::Duration::from_millis(20));
            continue;
        } else if paused {
            paused = false;
            let _ = tx.send(JobEvent::Resumed);
        }
        let outcome = match job.step(pool) {
            Ok(o) => o,
            Err(e) => {
                let _ = tx.send(JobEvent::Failed(format!("{e:#}")));
                return;
            }
        };
        let _ = tx.send(JobEvent::Progress(job.progress()));
        match outcome {
            StepOutcome::Running => match job
                .checkpoint()
                .and_then(|c| Ok(write_atomic(&checkpoint, c.as_bytes())?))
            {
                Ok(()) => {
                    let _ = tx.send(JobEvent::Checkpointed(checkpoint.clone()));
                }
                Err(e) => {
                    let _ = tx.send(JobEvent::Failed(format!(
                        "writing checkpoint {}: {e:#}",
                        checkpoint.display()
                    )));
                    return;
                }
            },
            StepOutcome::Done => {
                let path = dir.join("result.ron");
                match job
                    .result()
                    .and_then(|r| Ok(write_atomic(&path, r.as_bytes())?))
                {
                    Ok(()) => {
                        let _ = std::fs::remove_file(&checkpoint);
                        let _ = tx.send(JobEvent::Finished { result: path });
                    }
                    Err(e) => {
                        let _ = tx.send(JobEvent::Failed(format!(
                            "writing result {}: {e:#}",
                            path.display()
                        )));
                    }
                }
                return;
            }
        }
    }
}

#[cfg(test)]
mod tests;
