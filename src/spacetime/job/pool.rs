//! Gait jobs solved side by side, each in a `motionlab gait-job REQUEST` process of its own
//! (IPOPT's linear solver is not thread-safe), their typed events read as they come: what the
//! parameter-space generator and the motion graph's connections run.

use super::{GaitEvent, GaitRequest};
use crate::spacetime::gait::GaitClip;
use std::io::BufRead;
use std::path::{Path, PathBuf};

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
        clip: Result<GaitClip, String>,
    },
}

/// A pool of `gait-job` processes.
pub struct SolverPool {
    exe: PathBuf,
    /// Threads each solve's derivatives run on.
    child_threads: usize,
    tx: std::sync::mpsc::Sender<(usize, Option<GaitEvent>)>,
    rx: std::sync::mpsc::Receiver<(usize, Option<GaitEvent>)>,
    /// Per running job: its clip file and its reader thread (which returns the process's last
    /// line on standard error).
    running: std::collections::HashMap<usize, (PathBuf, std::thread::JoinHandle<Option<String>>)>,
}

impl SolverPool {
    /// A pool of `exe` processes meant to run `threads` at a time (the cores shared among them).
    pub fn new(exe: &Path, threads: usize) -> Self {
        let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
        let (tx, rx) = std::sync::mpsc::channel();
        Self {
            exe: exe.to_path_buf(),
            child_threads: (cores / threads.max(1)).max(1),
            tx,
            rx,
            running: std::collections::HashMap::new(),
        }
    }

    /// Starts `request` (which must name its `out` file) as job `job`.
    pub fn start(&mut self, job: usize, request: &GaitRequest) -> Result<(), String> {
        let out = request
            .out
            .clone()
            .ok_or_else(|| "a pooled gait job must write its clip to a file".to_string())?;
        let mut child = std::process::Command::new(&self.exe)
            .arg("gait-job")
            .arg(request.encode())
            .env("RAYON_NUM_THREADS", self.child_threads.to_string())
            .stdin(std::process::Stdio::null())
            .stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::piped())
            .spawn()
            .map_err(|e| format!("cannot start {}: {e}", self.exe.display()))?;
        let tx = self.tx.clone();
        let reader = std::thread::spawn(move || {
            let stderr = child.stderr.take();
            let errors = std::thread::spawn(move || {
                stderr.and_then(|e| {
                    std::io::BufReader::new(e)
                        .lines()
                        .map_while(Result::ok)
                        .last()
                })
            });
            if let Some(out) = child.stdout.take() {
                for line in std::io::BufReader::new(out).lines().map_while(Result::ok) {
                    if let Some(e) = GaitEvent::decode(&line) {
                        let _ = tx.send((job, Some(e)));
                    }
                }
            }
            let _ = child.wait();
            let tail = errors.join().ok().flatten();
            let _ = tx.send((job, None));
            tail
        });
        self.running.insert(job, (out, reader));
        Ok(())
    }

    /// Jobs running.
    pub fn busy(&self) -> usize {
        self.running.len()
    }

    /// The next event of a running job; `None` when none runs.
    pub fn next_event(&mut self) -> Option<PoolEvent> {
        while !self.running.is_empty() {
            let (job, event) = self.rx.recv().ok()?;
            match event {
                Some(GaitEvent::Iteration {
                    iteration,
                    objective,
                    infeasibility,
                    ..
                }) => {
                    return Some(PoolEvent::Iteration {
                        job,
                        iteration,
                        objective,
                        infeasibility,
                    });
                }
                Some(_) => {}
                None => {
                    let (out, reader) = self.running.remove(&job)?;
                    let tail = reader.join().ok().flatten();
                    // The process's own error first: it says why no clip was written.
                    let clip = crate::files::read_ron::<GaitClip>(&out).map_err(|e| match tail {
                        Some(t) => format!("{t}; {e}"),
                        None => e.to_string(),
                    });
                    return Some(PoolEvent::Done { job, clip });
                }
            }
        }
        None
    }
}
