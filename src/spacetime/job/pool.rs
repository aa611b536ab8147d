//! Gait jobs solved side by side, each in a `motionlab gait-job REQUEST` worker process of its
//! own (IPOPT's linear solver is not thread-safe), through the program's one supervisor of
//! child processes ([`crate::jobs::supervisor`]): what the parameter-space generator, the motion
//! graph's connections and a discovery's samples run.

use super::{GaitEvent, GaitRequest};
use crate::jobs::supervisor::{Protocol, Report, Supervisor, WorkerError};
use crate::spacetime::gait::GaitClip;
use std::ffi::OsString;
use std::path::Path;

/// `motionlab gait-job FILE`: a [`GaitRequest`] in, [`GaitEvent`]s out.
pub struct GaitWorker;

impl Protocol for GaitWorker {
    type Request = GaitRequest;
    type Event = GaitEvent;
    fn args(&self, request_file: &Path) -> Vec<OsString> {
        vec!["gait-job".into(), request_file.into()]
    }
}

/// Why a pooled gait job has no clip. When the worker wrote none that reads, its own words come
/// first (its error, or the last line it printed), then why its clip file does not read.
#[derive(Clone, Debug, thiserror::Error)]
pub enum PoolError {
    #[error("a pooled gait job must write its clip to a file")]
    NoOutFile,
    #[error("{worker}; {unreadable}")]
    Worker {
        worker: WorkerError,
        unreadable: String,
    },
    #[error("{last_line}; {unreadable}")]
    LastLine {
        last_line: String,
        unreadable: String,
    },
    #[error("{unreadable}")]
    Unreadable { unreadable: String },
}

/// What a running pool reports.
#[derive(Debug)]
pub enum PoolEvent {
    /// An IPOPT iteration of job `job`.
    Iteration {
        job: usize,
        iteration: usize,
        objective: f64,
        infeasibility: f64,
    },
    /// Job `job` ended: the clip it wrote, or why there is none.
    Done {
        job: usize,
        clip: Result<GaitClip, PoolError>,
    },
}

/// Gait jobs that write their clips to files, solved by [`GaitWorker`]s.
pub struct SolverPool {
    workers: Supervisor<GaitWorker>,
    /// Each job's clip file.
    outs: std::collections::BTreeMap<usize, std::path::PathBuf>,
}

impl SolverPool {
    /// A pool of `exe` workers meant to run `threads` at a time (the cores shared among them).
    pub fn new(exe: &Path, threads: usize) -> Self {
        Self {
            workers: Supervisor::new(exe, GaitWorker, threads.max(1)),
            outs: Default::default(),
        }
    }

    /// Starts `request` (which must name its `out` file) as job `job`, or queues it until a
    /// worker is free.
    pub fn start(&mut self, job: usize, request: &GaitRequest) -> Result<(), PoolError> {
        let out = request.out.clone().ok_or(PoolError::NoOutFile)?;
        self.outs.insert(job, out);
        self.workers.submit(job as u64, request.clone());
        Ok(())
    }

    /// Jobs running or waiting.
    pub fn busy(&self) -> usize {
        self.workers.running() + self.workers.queued()
    }

    /// The next event of a job; `None` when none runs or waits.
    pub fn next_event(&mut self) -> Option<PoolEvent> {
        loop {
            match self.workers.next()? {
                Report::Event {
                    id,
                    event:
                        GaitEvent::Iteration {
                            iteration,
                            objective,
                            infeasibility,
                            ..
                        },
                } => {
                    return Some(PoolEvent::Iteration {
                        job: id as usize,
                        iteration,
                        objective,
                        infeasibility,
                    });
                }
                Report::Event { .. } => {}
                Report::Exited { id, outcome } => {
                    let job = id as usize;
                    let out = self.outs.remove(&job)?;
                    return Some(PoolEvent::Done {
                        job,
                        clip: read_clip(&out, outcome),
                    });
                }
            }
        }
    }
}

/// The clip a worker wrote to `out`; when there is none, why (the worker's own words first).
pub fn read_clip(
    out: &Path,
    outcome: Result<Vec<String>, WorkerError>,
) -> Result<GaitClip, PoolError> {
    crate::files::read_ron::<GaitClip>(out).map_err(|e| {
        let unreadable = e.to_string();
        match outcome {
            Err(worker) => PoolError::Worker { worker, unreadable },
            Ok(mut tail) => match tail.pop() {
                Some(last_line) => PoolError::LastLine {
                    last_line,
                    unreadable,
                },
                None => PoolError::Unreadable { unreadable },
            },
        }
    })
}
