//! Child processes of this program as typed workers: a request (serde) written to a file for the
//! child, typed events read from its standard output (one RON value per line), its exit status
//! and the tail of its standard error. Every child leads a process group of its own, so
//! cancelling ends it and whatever it started; at most `limit` run at once, the rest wait in
//! order. Dropping the supervisor cancels what still runs.
//!
//! Work goes to processes where it cannot share one: IPOPT's linear solver (MUMPS) keeps global
//! state, so parallel gait solves need separate processes. Gait solves in the app, discovery
//! samples and parameter-space generation all run through this one supervisor.

use serde::Serialize;
use serde::de::DeserializeOwned;
use std::collections::{BTreeMap, VecDeque};
use std::ffi::OsString;
use std::io::BufRead;
use std::path::{Path, PathBuf};
use std::process::{Command, ExitStatus, Stdio};
use std::sync::{Arc, Mutex};

/// How a kind of worker is started and speaks.
pub trait Protocol: Send + 'static {
    type Request: Serialize;
    type Event: DeserializeOwned + Send + 'static;
    /// The program's arguments for a request written (as RON) to `request_file`.
    fn args(&self, request_file: &Path) -> Vec<OsString>;
}

/// Why a worker ended without success.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum WorkerError {
    #[error("cannot start {program}: {message}")]
    Spawn { program: String, message: String },
    #[error("cannot write the request file {path}: {message}")]
    Request { path: String, message: String },
    #[error("the worker exited with {status}{}", tail_suffix(stderr))]
    Failed { status: String, stderr: Vec<String> },
    #[error("cancelled")]
    Cancelled,
}

fn tail_suffix(stderr: &[String]) -> String {
    if stderr.is_empty() {
        String::new()
    } else {
        format!(": {}", stderr.join(" | "))
    }
}

/// What the supervisor reports.
#[derive(Debug)]
pub enum Report<E> {
    /// Worker `id` said this.
    Event { id: u64, event: E },
    /// Worker `id` ended: `Ok` with the tail of its standard error when it exited with success.
    Exited {
        id: u64,
        outcome: Result<Vec<String>, WorkerError>,
    },
}

enum Message<E> {
    Event(u64, E),
    /// The process ended (reaped), with its status.
    Exited(u64, std::io::Result<ExitStatus>),
}

/// A worker that runs.
struct Running {
    pid: u32,
    /// Set once the process has been reaped (its pid may then be reused: never signal it).
    reaped: Arc<Mutex<bool>>,
    stderr: Arc<Mutex<VecDeque<String>>>,
    request_file: PathBuf,
    cancelled: bool,
}

/// Runs workers of one [`Protocol`].
pub struct Supervisor<P: Protocol> {
    program: PathBuf,
    protocol: P,
    limit: usize,
    /// `RAYON_NUM_THREADS` of each worker: the cores shared among the workers at once.
    child_threads: usize,
    stderr_lines: usize,
    queue: VecDeque<(u64, P::Request)>,
    running: BTreeMap<u64, Running>,
    tx: crossbeam_channel::Sender<Message<P::Event>>,
    rx: crossbeam_channel::Receiver<Message<P::Event>>,
    scratch: PathBuf,
    requests_written: u64,
}

impl<P: Protocol> Supervisor<P> {
    /// Workers of `program` (this program: `std::env::current_exe()`), `limit` at a time (0:
    /// one per core).
    pub fn new(program: &Path, protocol: P, limit: usize) -> Self {
        let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
        let limit = if limit == 0 { cores } else { limit };
        let (tx, rx) = crossbeam_channel::unbounded();
        Supervisor {
            program: program.to_path_buf(),
            protocol,
            limit,
            child_threads: (cores / limit).max(1),
            stderr_lines: 8,
            queue: VecDeque::new(),
            running: BTreeMap::new(),
            tx,
            rx,
            scratch: std::env::temp_dir().join(format!(
                "motionlab-workers-{}-{:x}",
                std::process::id(),
                std::time::SystemTime::now()
                    .duration_since(std::time::UNIX_EPOCH)
                    .map_or(0, |d| d.as_nanos())
            )),
            requests_written: 0,
        }
    }

    /// At most this many at once.
    pub fn limit(&self) -> usize {
        self.limit
    }

    /// Workers running now.
    pub fn running(&self) -> usize {
        self.running.len()
    }

    /// Workers waiting for a slot.
    pub fn queued(&self) -> usize {
        self.queue.len()
    }

    /// Nothing runs or waits.
    pub fn is_idle(&self) -> bool {
        self.running.is_empty() && self.queue.is_empty()
    }

    /// Queues `request` as worker `id` (started as soon as a slot is free).
    pub fn submit(&mut self, id: u64, request: P::Request) {
        self.queue.push_back((id, request));
        self.fill_slots();
    }

    /// Starts queued workers while slots are free; a worker that cannot start reports so.
    fn fill_slots(&mut self) {
        while self.running.len() < self.limit {
            let Some((id, request)) = self.queue.pop_front() else {
                return;
            };
            if let Err(e) = self.start(id, &request) {
                let _ = self.tx.send(Message::Exited(
                    id,
                    Err(std::io::Error::other(e.to_string())),
                ));
                // Reported as a spawn failure by `translate`.
                self.running.insert(
                    id,
                    Running {
                        pid: 0,
                        reaped: Arc::new(Mutex::new(true)),
                        stderr: Arc::new(Mutex::new(VecDeque::from([e.to_string()]))),
                        request_file: PathBuf::new(),
                        cancelled: false,
                    },
                );
            }
        }
    }

    fn start(&mut self, id: u64, request: &P::Request) -> Result<(), WorkerError> {
        std::fs::create_dir_all(&self.scratch).map_err(|e| WorkerError::Request {
            path: self.scratch.display().to_string(),
            message: e.to_string(),
        })?;
        self.requests_written += 1;
        let request_file = self
            .scratch
            .join(format!("request-{id}-{}.ron", self.requests_written));
        crate::files::write_ron(&request_file, request).map_err(|e| WorkerError::Request {
            path: request_file.display().to_string(),
            message: e.to_string(),
        })?;
        let mut command = Command::new(&self.program);
        command
            .args(self.protocol.args(&request_file))
            .env("RAYON_NUM_THREADS", self.child_threads.to_string())
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped());
        #[cfg(unix)]
        std::os::unix::process::CommandExt::process_group(&mut command, 0);
        let mut child = command.spawn().map_err(|e| WorkerError::Spawn {
            program: self.program.display().to_string(),
            message: e.to_string(),
        })?;
        let pid = child.id();
        let reaped = Arc::new(Mutex::new(false));
        let stderr_tail = Arc::new(Mutex::new(VecDeque::new()));
        let errors = child.stderr.take().map(|err| {
            let tail = stderr_tail.clone();
            let keep = self.stderr_lines;
            std::thread::spawn(move || {
                for line in std::io::BufReader::new(err).lines().map_while(Result::ok) {
                    let mut t = tail.lock().unwrap_or_else(|e| e.into_inner());
                    t.push_back(line);
                    while t.len() > keep {
                        t.pop_front();
                    }
                }
            })
        });
        let tx = self.tx.clone();
        let done = reaped.clone();
        std::thread::spawn(move || {
            if let Some(out) = child.stdout.take() {
                for line in std::io::BufReader::new(out).lines().map_while(Result::ok) {
                    if let Ok(event) = crate::files::from_ron::<P::Event>(&line) {
                        let _ = tx.send(Message::Event(id, event));
                    }
                }
            }
            if let Some(e) = errors {
                let _ = e.join();
            }
            // Reaped under the lock that `cancel` takes before it signals the group.
            let status = {
                let mut reaped = done.lock().unwrap_or_else(|e| e.into_inner());
                let status = child.wait();
                *reaped = true;
                status
            };
            let _ = tx.send(Message::Exited(id, status));
        });
        self.running.insert(
            id,
            Running {
                pid,
                reaped,
                stderr: stderr_tail,
                request_file,
                cancelled: false,
            },
        );
        Ok(())
    }

    /// Ends worker `id` and its process group (a queued one is dropped); its `Exited` report
    /// says `Cancelled`.
    pub fn cancel(&mut self, id: u64) {
        if let Some(k) = self.queue.iter().position(|(q, _)| *q == id) {
            self.queue.remove(k);
            let _ = self
                .tx
                .send(Message::Exited(id, Err(std::io::Error::other("cancelled"))));
            self.running.insert(
                id,
                Running {
                    pid: 0,
                    reaped: Arc::new(Mutex::new(true)),
                    stderr: Default::default(),
                    request_file: PathBuf::new(),
                    cancelled: true,
                },
            );
            return;
        }
        if let Some(r) = self.running.get_mut(&id) {
            r.cancelled = true;
            terminate(r);
        }
    }

    /// Ends every worker, queued or running.
    pub fn cancel_all(&mut self) {
        let ids: Vec<u64> = self
            .queue
            .iter()
            .map(|(id, _)| *id)
            .chain(self.running.keys().copied())
            .collect();
        for id in ids {
            self.cancel(id);
        }
    }

    fn translate(&mut self, m: Message<P::Event>) -> Report<P::Event> {
        match m {
            Message::Event(id, event) => Report::Event { id, event },
            Message::Exited(id, status) => {
                let r = self.running.remove(&id);
                let (tail, cancelled) = match &r {
                    Some(r) => {
                        let _ = std::fs::remove_file(&r.request_file);
                        let t = r.stderr.lock().unwrap_or_else(|e| e.into_inner());
                        (t.iter().cloned().collect::<Vec<_>>(), r.cancelled)
                    }
                    None => (Vec::new(), false),
                };
                let outcome = match status {
                    _ if cancelled => Err(WorkerError::Cancelled),
                    Ok(s) if s.success() => Ok(tail),
                    Ok(s) => Err(WorkerError::Failed {
                        status: s.to_string(),
                        stderr: tail,
                    }),
                    Err(e) => Err(WorkerError::Spawn {
                        program: self.program.display().to_string(),
                        message: e.to_string(),
                    }),
                };
                self.fill_slots();
                Report::Exited { id, outcome }
            }
        }
    }

    /// The next report if one is waiting (never blocks: for a frame loop).
    pub fn try_next(&mut self) -> Option<Report<P::Event>> {
        let m = self.rx.try_recv().ok()?;
        Some(self.translate(m))
    }

    /// The next report, waiting for it; `None` once nothing runs or waits.
    pub fn next(&mut self) -> Option<Report<P::Event>> {
        if self.is_idle() && self.rx.is_empty() {
            return None;
        }
        let m = self.rx.recv().ok()?;
        Some(self.translate(m))
    }

    /// The next report within `timeout`; `None` if none came (or nothing runs).
    pub fn next_within(&mut self, timeout: std::time::Duration) -> Option<Report<P::Event>> {
        if self.is_idle() && self.rx.is_empty() {
            return None;
        }
        let m = self.rx.recv_timeout(timeout).ok()?;
        Some(self.translate(m))
    }
}

/// SIGTERM to the worker's process group, unless the worker has been reaped already.
fn terminate(r: &Running) {
    let reaped = r.reaped.lock().unwrap_or_else(|e| e.into_inner());
    if !*reaped && r.pid != 0 {
        #[cfg(unix)]
        // SAFETY: kill(2) on the process group this supervisor started (pgid = the child's pid,
        // not reaped yet, so not reused: the waiter thread reaps it under this same lock).
        unsafe {
            libc::kill(-(r.pid as i32), libc::SIGTERM);
        }
    }
}

impl<P: Protocol> Drop for Supervisor<P> {
    fn drop(&mut self) {
        self.queue.clear();
        for r in self.running.values() {
            terminate(r);
        }
        let _ = std::fs::remove_dir_all(&self.scratch);
    }
}

#[cfg(all(test, unix))]
mod tests {
    use super::*;

    /// `sh -c SCRIPT` as a worker: the request file is the script's $0... its argument.
    struct Shell(&'static str);

    impl Protocol for Shell {
        type Request = u32;
        type Event = (u32, String);
        fn args(&self, request_file: &Path) -> Vec<OsString> {
            vec![
                "-c".into(),
                self.0.into(),
                "worker".into(),
                request_file.into(),
            ]
        }
    }

    fn drain(
        s: &mut Supervisor<Shell>,
    ) -> (
        Vec<(u64, (u32, String))>,
        BTreeMap<u64, Result<Vec<String>, WorkerError>>,
    ) {
        let (mut events, mut exits) = (Vec::new(), BTreeMap::new());
        while let Some(r) = s.next() {
            match r {
                Report::Event { id, event } => events.push((id, event)),
                Report::Exited { id, outcome } => {
                    exits.insert(id, outcome);
                }
            }
        }
        (events, exits)
    }

    #[test]
    fn workers_read_their_request_and_send_typed_events_in_order() {
        // Prints (n, "a"), (n, "b") where n is the request (the file holds it as RON).
        let mut s = Supervisor::new(
            Path::new("/bin/sh"),
            Shell(
                r#"n=$(cat "$1"); echo "($n, \"a\")"; echo "not ron"; echo "($n, \"b\")"; echo oops >&2"#,
            ),
            2,
        );
        for id in 0..5u64 {
            s.submit(id, id as u32 * 10);
        }
        assert!(s.running() <= 2, "at most the limit runs at once");
        let (events, exits) = drain(&mut s);
        assert_eq!(exits.len(), 5);
        for id in 0..5u64 {
            let mine: Vec<&(u32, String)> = events
                .iter()
                .filter(|(i, _)| *i == id)
                .map(|(_, e)| e)
                .collect();
            let n = id as u32 * 10;
            assert_eq!(mine, [&(n, "a".to_string()), &(n, "b".to_string())]);
            assert_eq!(exits[&id], Ok(vec!["oops".to_string()]));
        }
        assert!(s.is_idle());
    }

    #[test]
    fn a_failing_worker_reports_its_status_and_stderr() {
        let mut s = Supervisor::new(
            Path::new("/bin/sh"),
            Shell(r#"echo "line 1" >&2; echo "it broke" >&2; exit 3"#),
            1,
        );
        s.submit(7, 0);
        let (_, exits) = drain(&mut s);
        match &exits[&7] {
            Err(WorkerError::Failed { status, stderr }) => {
                assert!(status.contains('3'), "{status}");
                assert_eq!(stderr, &["line 1", "it broke"]);
            }
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn cancel_ends_the_worker_and_its_children() {
        let dir = tempfile::tempdir().unwrap();
        let marker = dir.path().join("grandchild-alive");
        // The worker starts a grandchild that would write a file after 3 s, then waits.
        let script: &'static str = Box::leak(
            format!(
                r#"(sleep 3; touch "{}") & echo "(1, \"started\")"; wait"#,
                marker.display()
            )
            .into_boxed_str(),
        );
        let mut s = Supervisor::new(Path::new("/bin/sh"), Shell(script), 1);
        s.submit(1, 0);
        s.submit(2, 0);
        // Wait for the first worker to start, then cancel both (the second is still queued).
        match s.next() {
            Some(Report::Event { id: 1, .. }) => {}
            other => panic!("{other:?}"),
        }
        s.cancel(2);
        s.cancel(1);
        let (_, exits) = drain(&mut s);
        assert_eq!(exits[&1], Err(WorkerError::Cancelled));
        assert_eq!(exits[&2], Err(WorkerError::Cancelled));
        std::thread::sleep(std::time::Duration::from_millis(3500));
        assert!(
            !marker.exists(),
            "the worker's own child outlived the cancel"
        );
    }
}
