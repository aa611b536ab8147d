use super::*;
use crate::analysis::robustness::{RobustnessSweep, SweepConfig, SweepState};
use crate::model::load_character;
use crate::sim::SimSettings;
use crossbeam_channel::Sender as GateSender;
use std::time::Duration;

fn dir_names(dir: &Path) -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    names
}

#[test]
fn write_atomic_replaces_the_whole_file() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("out.txt");
    let long = "x".repeat(10_000);
    write_atomic(&path, long.as_bytes()).unwrap();
    assert_eq!(std::fs::read_to_string(&path).unwrap(), long);
    write_atomic(&path, b"short").unwrap();
    assert_eq!(std::fs::read(&path).unwrap(), b"short");
    assert_eq!(dir_names(dir.path()), ["out.txt"]);

    // Missing folders are created; still nothing but the file is left behind.
    let nested = dir.path().join("a").join("b").join("c.ron");
    write_ron(&nested, &vec![1.5f32, 2.0]).unwrap();
    let back: Vec<f32> =
        crate::files::from_ron(&std::fs::read_to_string(&nested).unwrap()).unwrap();
    assert_eq!(back, [1.5, 2.0]);
    assert_eq!(dir_names(&dir.path().join("a").join("b")), ["c.ron"]);

    // A failed write leaves the old file and no temporary file.
    let blocked = dir.path().join("is_a_dir");
    std::fs::create_dir(&blocked).unwrap();
    assert!(write_atomic(&blocked, b"data").is_err());
    assert!(blocked.is_dir());
    assert_eq!(dir_names(dir.path()), ["a", "is_a_dir", "out.txt"]);
}

/// Counts to `n`, sleeping a little per step. With a gate, each step first waits for a token
/// (bounded), so the test decides when the job advances.
struct CountJob {
    n: u32,
    i: u32,
    sleep: Duration,
    gate: Option<crossbeam_channel::Receiver<()>>,
    fail_at: Option<u32>,
}

impl CountJob {
    fn new(n: u32) -> Self {
        CountJob {
            n,
            i: 0,
            sleep: Duration::from_millis(2),
            gate: None,
            fail_at: None,
        }
    }

    fn gated(n: u32) -> (Self, GateSender<()>) {
        let (tx, rx) = crossbeam_channel::unbounded();
        (
            CountJob {
                gate: Some(rx),
                ..CountJob::new(n)
            },
            tx,
        )
    }
}

impl Job for CountJob {
    fn kind(&self) -> &'static str {
        "count"
    }

    fn title(&self) -> String {
        format!("count to {}", self.n)
    }

    fn step(&mut self, _pool: &rayon::ThreadPool) -> anyhow::Result<StepOutcome> {
        if let Some(g) = &self.gate {
            g.recv_timeout(Duration::from_secs(30))
                .map_err(|e| anyhow::anyhow!("gate: {e}"))?;
        }
        std::thread::sleep(self.sleep);
        self.i += 1;
        if self.fail_at == Some(self.i) {
            anyhow::bail!("boom at step {}", self.i);
        }
        Ok(if self.i >= self.n {
            StepOutcome::Done
        } else {
            StepOutcome::Running
        })
    }

    fn progress(&self) -> Progress {
        Progress {
            fraction: self.i as f32 / self.n as f32,
            message: format!("{}/{}", self.i, self.n),
            detail: Some(Detail::new(self.i)),
        }
    }

    fn checkpoint(&self) -> anyhow::Result<String> {
        Ok(format!("(i: {})", self.i))
    }

    fn result(&self) -> anyhow::Result<String> {
        Ok(format!("(count: {})", self.i))
    }
}

/// Polls `h` until an event matching `want` arrives, returning every event seen up to and
/// including it. Bounded: panics after about 30 s without it.
fn wait_for(h: &mut JobHandle, want: impl Fn(&JobEvent) -> bool) -> Vec<JobEvent> {
    let mut seen = Vec::new();
    for _ in 0..6000 {
        for e in h.poll() {
            let hit = want(&e);
            seen.push(e);
            if hit {
                return seen;
            }
        }
        std::thread::sleep(Duration::from_millis(5));
    }
    panic!("event not received; saw {seen:?}");
}

fn fractions(events: &[JobEvent]) -> Vec<f32> {
    events
        .iter()
        .filter_map(|e| match e {
            JobEvent::Progress(p) => Some(p.fraction),
            _ => None,
        })
        .collect()
}

#[test]
fn job_reports_progress_checkpoints_and_result() {
    let dir = tempfile::tempdir().unwrap();
    let runner = JobRunner::new(1, dir.path()).unwrap();
    assert_eq!(runner.threads(), 1);
    let folder = dir.path().join("count");
    let mut h = runner.spawn(Box::new(CountJob::new(20)), Some(folder.clone()));
    assert_eq!(h.kind, "count");
    assert_eq!(h.title, "count to 20");
    let mut events = Vec::new();
    while let Some(e) = h.next_event() {
        if let JobEvent::Checkpointed(p) = &e {
            assert_eq!(p, &folder.join("checkpoint.ron"));
        }
        events.push(e);
    }
    assert_eq!(h.wait(), JobStatus::Finished);
    let f = fractions(&events);
    assert_eq!(f.len(), 20, "{events:?}");
    assert!(f.windows(2).all(|w| w[0] < w[1]), "{f:?}");
    assert_eq!(f[0], 0.05);
    assert_eq!(*f.last().unwrap(), 1.0);
    let checkpoints = events
        .iter()
        .filter(|e| matches!(e, JobEvent::Checkpointed(_)))
        .count();
    assert_eq!(checkpoints, 19);
    assert_eq!(
        events.last(),
        Some(&JobEvent::Finished {
            result: folder.join("result.ron")
        })
    );
    assert_eq!(h.result, Some(folder.join("result.ron")));
    assert_eq!(h.progress.fraction, 1.0);
    assert_eq!(
        std::fs::read_to_string(folder.join("result.ron")).unwrap(),
        "(count: 20)"
    );
    assert_eq!(dir_names(&folder), ["result.ron"]);
}

#[test]
fn job_without_folder_gets_one_under_results_dir() {
    let dir = tempfile::tempdir().unwrap();
    let runner = JobRunner::new(1, dir.path().join("results")).unwrap();
    let mut a = runner.spawn(Box::new(CountJob::new(2)), None);
    let mut b = runner.spawn(Box::new(CountJob::new(2)), None);
    assert_ne!(a.id, b.id);
    assert_ne!(a.folder, b.folder);
    for h in [&mut a, &mut b] {
        assert_eq!(h.wait(), JobStatus::Finished);
        assert!(h.folder.starts_with(dir.path().join("results")));
        assert!(
            h.folder
                .file_name()
                .unwrap()
                .to_string_lossy()
                .starts_with("count-")
        );
        assert!(h.folder.join("result.ron").is_file());
    }
}

#[test]
fn checkpoint_exists_mid_run_and_pause_resume_work() {
    let dir = tempfile::tempdir().unwrap();
    let runner = JobRunner::new(1, dir.path()).unwrap();
    let folder = dir.path().join("job");
    let (job, gate) = CountJob::gated(5);
    let mut h = runner.spawn(Box::new(job), Some(folder.clone()));
    let checkpoint = folder.join("checkpoint.ron");

    gate.send(()).unwrap();
    let seen = wait_for(&mut h, |e| matches!(e, JobEvent::Checkpointed(_)));
    assert_eq!(fractions(&seen), [0.2]);
    // The job now waits for its next token: mid-run, with a checkpoint and no result.
    assert_eq!(std::fs::read_to_string(&checkpoint).unwrap(), "(i: 1)");
    assert!(!folder.join("result.ron").exists());
    assert_eq!(h.status, JobStatus::Running);
    assert_eq!(h.progress.fraction, 0.2);

    // Pause: the job either pauses before step 2 or is already waiting inside it, in which
    // case step 2 completes first. Either way it then reports Paused and stops stepping.
    h.pause();
    gate.send(()).unwrap();
    let seen = wait_for(&mut h, |e| *e == JobEvent::Paused);
    assert_eq!(h.status, JobStatus::Paused);
    let steps_done = 1 + fractions(&seen).len() as u32;
    assert_eq!(fractions(&seen), [0.4][..(steps_done - 1) as usize]);
    assert_eq!(gate.len() as u32, 2 - steps_done);
    let mut sent = 2;
    if gate.is_empty() {
        gate.send(()).unwrap();
        sent += 1;
    }
    // While paused the job takes no step: the pending token stays unconsumed and nothing moves.
    std::thread::sleep(Duration::from_millis(150));
    assert_eq!(gate.len(), 1, "a paused job took a step");
    assert!(fractions(&h.poll()).is_empty());
    assert_eq!(
        std::fs::read_to_string(&checkpoint).unwrap(),
        format!("(i: {steps_done})")
    );
    assert_eq!(h.status, JobStatus::Paused);

    h.resume();
    let seen = wait_for(&mut h, |e| matches!(e, JobEvent::Progress(_)));
    assert_eq!(seen[0], JobEvent::Resumed, "{seen:?}");
    assert_eq!(fractions(&seen), [(steps_done + 1) as f32 / 5.0]);
    assert_eq!(h.status, JobStatus::Running);
    while sent < 5 {
        gate.send(()).unwrap();
        sent += 1;
    }
    assert_eq!(h.wait(), JobStatus::Finished);
    assert_eq!(h.progress.fraction, 1.0);
    assert!(!checkpoint.exists());
    assert_eq!(
        std::fs::read_to_string(folder.join("result.ron")).unwrap(),
        "(count: 5)"
    );
}

#[test]
fn cancel_ends_without_result() {
    let dir = tempfile::tempdir().unwrap();
    let runner = JobRunner::new(1, dir.path()).unwrap();
    let folder = dir.path().join("job");
    let (job, gate) = CountJob::gated(5);
    let mut h = runner.spawn(Box::new(job), Some(folder.clone()));
    gate.send(()).unwrap();
    wait_for(&mut h, |e| matches!(e, JobEvent::Checkpointed(_)));
    h.cancel();
    gate.send(()).unwrap(); // lets a step already under way finish
    assert_eq!(h.wait(), JobStatus::Cancelled);
    assert!(h.is_done());
    assert_eq!(h.result, None);
    assert!(!folder.join("result.ron").exists());
    // The job stopped after step 1 or, if it was already inside step 2, after step 2; the last
    // checkpoint stays for a later resume.
    let steps_done = 2 - gate.len();
    assert_eq!(
        std::fs::read_to_string(folder.join("checkpoint.ron")).unwrap(),
        format!("(i: {steps_done})")
    );
    assert!(h.progress.fraction < 1.0);
}

#[test]
fn cancel_while_paused_ends_the_job() {
    let dir = tempfile::tempdir().unwrap();
    let runner = JobRunner::new(1, dir.path()).unwrap();
    let (job, gate) = CountJob::gated(5);
    let mut h = runner.spawn(Box::new(job), Some(dir.path().join("job")));
    h.pause();
    gate.send(()).unwrap(); // in case the job was already waiting inside step 1
    wait_for(&mut h, |e| *e == JobEvent::Paused);
    h.cancel();
    assert_eq!(h.wait(), JobStatus::Cancelled);
    assert!(gate.len() <= 1);
    assert!(!dir.path().join("job").join("result.ron").exists());
}

#[test]
fn failing_step_ends_failed_with_its_message() {
    let dir = tempfile::tempdir().unwrap();
    let runner = JobRunner::new(1, dir.path()).unwrap();
    let folder = dir.path().join("job");
    let job = CountJob {
        fail_at: Some(3),
        ..CountJob::new(10)
    };
    let mut h = runner.spawn(Box::new(job), Some(folder.clone()));
    let mut events = Vec::new();
    while let Some(e) = h.next_event() {
        events.push(e);
    }
    assert_eq!(h.wait(), JobStatus::Failed);
    assert_eq!(h.error.as_deref(), Some("boom at step 3"));
    assert_eq!(
        events.last(),
        Some(&JobEvent::Failed("boom at step 3".into()))
    );
    assert_eq!(fractions(&events), [0.1, 0.2]);
    assert!(!folder.join("result.ron").exists());
    assert_eq!(h.result, None);
}

// ---------------------------------------------------------------------------------------------
// Robustness sweep as a job

fn small_sweep() -> RobustnessSweep {
    let path = Path::new(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/characters/human2d.ron"
    ));
    let c = load_character(path).unwrap();
    let config = SweepConfig {
        directions: 4,
        observe: 1.5,
        tolerance: 0.2,
        max_impulse: 640.0,
        ..Default::default()
    };
    RobustnessSweep::new(c, SimSettings::default(), config).unwrap()
}

fn check_bounds(state: &SweepState) {
    let cfg = &state.config;
    assert_eq!(state.bounds.len(), 4);
    assert_eq!(state.pushed_body, "chest");
    for b in &state.bounds {
        assert!(b.done, "{b:?}");
        assert!(b.trials > 0, "{b:?}");
        assert!(b.survived > 0.0, "{b:?}");
        match b.fell {
            Some(f) => {
                assert!(b.survived < f, "{b:?}");
                assert!(f - b.survived <= cfg.tolerance * f, "{b:?}");
            }
            None => assert_eq!(b.survived, cfg.max_impulse, "{b:?}"),
        }
        let n = (b.direction[0].powi(2) + b.direction[1].powi(2) + b.direction[2].powi(2)).sqrt();
        assert!((n - 1.0).abs() < 1e-5 && b.direction[2] == 0.0, "{b:?}");
    }
    // Pushed forward (first direction, +x) the character must fall within the range tried.
    assert_eq!(state.bounds[0].direction, [1.0, 0.0, 0.0]);
    assert!(state.bounds[0].fell.is_some(), "{:?}", state.bounds[0]);
}

#[test]
fn robustness_sweep_runs_as_a_job_and_resumes_from_its_checkpoint() {
    let dir = tempfile::tempdir().unwrap();
    let runner = JobRunner::new(2, dir.path()).unwrap();
    let folder = dir.path().join("sweep");
    let mut h = runner.spawn(Box::new(small_sweep()), Some(folder.clone()));
    assert_eq!(h.kind, "robustness");
    assert_eq!(h.title, "push robustness of human2d");

    // Pause after the first round to read a mid-run checkpoint (every sweep needs more than
    // two rounds: the impulse doubles from 10 N·s before any bisection).
    wait_for(&mut h, |e| matches!(e, JobEvent::Checkpointed(_)));
    h.pause();
    let seen = wait_for(&mut h, |e| {
        matches!(
            e,
            JobEvent::Paused | JobEvent::Finished { .. } | JobEvent::Failed(_)
        )
    });
    assert_eq!(seen.last(), Some(&JobEvent::Paused), "{seen:?}");
    let mid_text = std::fs::read_to_string(folder.join("checkpoint.ron")).unwrap();
    let mid = RobustnessSweep::from_checkpoint(&mid_text).unwrap();
    assert!(
        mid.state.rounds >= 1 && mid.state.bounds.iter().any(|b| !b.done),
        "{:?}",
        mid.state
    );
    assert!(
        mid.state
            .bounds
            .iter()
            .all(|b| b.trials >= 1 && b.trials <= mid.state.rounds),
        "{:?}",
        mid.state.bounds
    );
    // The checkpoint text round-trips.
    assert_eq!(
        RobustnessSweep::from_checkpoint(&mid.checkpoint().unwrap())
            .unwrap()
            .state,
        mid.state
    );
    h.resume();

    let mut fractions_seen = Vec::new();
    while let Some(e) = h.next_event() {
        if let JobEvent::Progress(p) = &e {
            let live = p.detail::<SweepState>().expect("a sweep reports its state");
            assert_eq!(live.bounds.len(), 4);
            fractions_seen.push(p.fraction);
        }
        assert!(!matches!(e, JobEvent::Failed(_)), "{e:?}");
    }
    assert_eq!(h.wait(), JobStatus::Finished);
    assert!(
        fractions_seen.windows(2).all(|w| w[0] <= w[1]),
        "{fractions_seen:?}"
    );
    assert!(!folder.join("checkpoint.ron").exists());
    let text = std::fs::read_to_string(folder.join("result.ron")).unwrap();
    let done = RobustnessSweep::from_checkpoint(&text).unwrap();
    check_bounds(&done.state);
    assert!(done.state.rounds > mid.state.rounds);
    assert_eq!(
        RobustnessSweep::from_checkpoint(&done.checkpoint().unwrap())
            .unwrap()
            .state,
        done.state
    );

    // Resuming the mid-run checkpoint in a new runner reaches the same result.
    let runner2 = JobRunner::new(2, dir.path()).unwrap();
    let mut h2 = runner2.spawn(
        Box::new(RobustnessSweep::from_checkpoint(&mid_text).unwrap()),
        Some(dir.path().join("resumed")),
    );
    assert_eq!(h2.wait(), JobStatus::Finished, "{:?}", h2.error);
    let resumed = RobustnessSweep::from_checkpoint(
        &std::fs::read_to_string(dir.path().join("resumed/result.ron")).unwrap(),
    )
    .unwrap();
    assert_eq!(resumed.state, done.state);
}
