//! A gait job (a solve, or a discovery of contact timings and its solve; Wampler 2012, thesis
//! ch. 3) run in a worker process of this program ([`super::pool::GaitWorker`]) as a background
//! [`Job`] like every other: listed, paused between steps, cancelled (the worker's process group
//! with it), its typed events kept as its live state ([`GaitLog`]) and its clip its result.

use super::pool::{GaitWorker, read_clip};
use super::{GaitEvent, GaitRequest};
use crate::jobs::supervisor::{Report, Supervisor};
use crate::jobs::{Detail, Job, Progress, StepOutcome};
use crate::spacetime::gait::GaitClip;
use std::path::PathBuf;
use std::time::{Duration, Instant};

/// Every event the worker has sent so far, in order: the job's live state.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct GaitLog(pub Vec<GaitEvent>);

/// A gait request solved by a worker process.
pub struct GaitWorkerJob {
    request: GaitRequest,
    program: PathBuf,
    /// Where the worker writes its clip (the request's `out`).
    out: PathBuf,
    workers: Option<Supervisor<GaitWorker>>,
    log: Vec<GaitEvent>,
    clip: Option<GaitClip>,
    title: String,
}

/// How long one step waits for the worker's events before it reports progress.
const STEP: Duration = Duration::from_millis(200);

impl GaitWorkerJob {
    /// The job of `request` for worker `program` (this program); the clip goes to a scratch file
    /// unless the request names its `out`.
    pub fn new(mut request: GaitRequest, program: PathBuf) -> Self {
        let out = request.out.clone().unwrap_or_else(|| {
            std::env::temp_dir().join(format!(
                "motionlab-gait-{}-{:x}.ron",
                std::process::id(),
                std::time::SystemTime::now()
                    .duration_since(std::time::UNIX_EPOCH)
                    .map_or(0, |d| d.as_nanos())
            ))
        });
        request.out = Some(out.clone());
        let what = if request.discover.is_some() {
            "discovery".to_string()
        } else if request.starts > 1 && request.init.is_none() {
            format!("solve, {} starts", request.starts)
        } else {
            "solve".to_string()
        };
        let title = format!(
            "{} at {} m/s ({what})",
            request
                .creature
                .file_stem()
                .map(|s| s.to_string_lossy().into_owned())
                .unwrap_or_default(),
            request.speed
        );
        GaitWorkerJob {
            request,
            program,
            out,
            workers: None,
            log: Vec::new(),
            clip: None,
            title,
        }
    }

    /// The clip, once the job is done.
    pub fn clip(&self) -> Option<&GaitClip> {
        self.clip.as_ref()
    }
}

impl Job for GaitWorkerJob {
    fn kind(&self) -> &'static str {
        "gait"
    }

    fn title(&self) -> String {
        self.title.clone()
    }

    fn step(&mut self, _pool: &rayon::ThreadPool) -> anyhow::Result<StepOutcome> {
        let workers = self.workers.get_or_insert_with(|| {
            let mut w = Supervisor::new(&self.program, GaitWorker, 1);
            let _ = std::fs::remove_file(&self.out);
            w.submit(0, self.request.clone());
            w
        });
        let until = Instant::now() + STEP;
        loop {
            let left = until.saturating_duration_since(Instant::now());
            if left.is_zero() {
                return Ok(StepOutcome::Running);
            }
            match workers.next_within(left) {
                Some(Report::Event { event, .. }) => self.log.push(event),
                Some(Report::Exited { outcome, .. }) => {
                    let clip = read_clip(&self.out, outcome);
                    let _ = std::fs::remove_file(&self.out);
                    self.clip = Some(clip?);
                    return Ok(StepOutcome::Done);
                }
                None => return Ok(StepOutcome::Running),
            }
        }
    }

    fn progress(&self) -> Progress {
        let iterations = self
            .log
            .iter()
            .filter(|e| matches!(e, GaitEvent::Iteration { .. }))
            .count();
        let generations = self
            .log
            .iter()
            .filter(|e| matches!(e, GaitEvent::Generation { .. }))
            .count();
        let starts_ended = self
            .log
            .iter()
            .filter(|e| matches!(e, GaitEvent::StartEnded(_)))
            .count();
        let multi_start = self
            .log
            .iter()
            .any(|e| matches!(e, GaitEvent::Starts { .. }));
        let (fraction, message) = match &self.request.discover {
            Some(d) => (
                generations as f32 / d.generations.max(1) as f32,
                format!("generation {generations} of {}", d.generations),
            ),
            // The starts' iterations stay in their own processes: count the starts ended.
            None if multi_start => (
                starts_ended as f32 / self.request.starts.max(1) as f32,
                format!("{starts_ended} of {} starts ended", self.request.starts),
            ),
            None => (
                iterations as f32 / self.request.max_iterations.max(1) as f32,
                format!("iteration {iterations}"),
            ),
        };
        Progress {
            fraction: fraction.min(1.0),
            message,
            detail: Some(Detail::new(GaitLog(self.log.clone()))),
        }
    }

    /// The request: a job started again from it solves again.
    fn checkpoint(&self) -> anyhow::Result<String> {
        Ok(crate::files::to_ron_string(&self.request))
    }

    fn result(&self) -> anyhow::Result<String> {
        let clip = self
            .clip
            .as_ref()
            .ok_or_else(|| anyhow::anyhow!("the gait job has not finished"))?;
        Ok(crate::files::to_ron_string(clip))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A multi-start job's progress counts its starts ended (their iterations stay in their own
    /// processes); a single solve's counts its iterations.
    #[test]
    fn a_multi_start_job_counts_its_starts_ended() {
        let request = GaitRequest {
            starts: 4,
            ..GaitRequest::new("characters/monoped.ron", 0.5)
        };
        let mut job = GaitWorkerJob::new(request, "motionlab".into());
        job.log = vec![
            GaitEvent::Starts {
                seeds: vec![0, 1, 2, 3],
                barriers: Vec::new(),
            },
            GaitEvent::StartEnded(crate::spacetime::job::StartSummary {
                start: 2,
                seed: 2,
                barrier: Default::default(),
                status: "solved".into(),
                cost: 8.0,
                max_violation: 1e-9,
                iterations: 1839,
                solve_time_s: 41.0,
                valid: true,
            }),
        ];
        let p = job.progress();
        assert_eq!(p.message, "1 of 4 starts ended");
        assert_eq!(p.fraction, 0.25);
        job.log = vec![GaitEvent::Iteration {
            iteration: 0,
            objective: 1.0,
            infeasibility: 0.0,
            restoration: false,
        }];
        assert_eq!(job.progress().message, "iteration 1");
    }
}
