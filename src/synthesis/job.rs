//! A controller synthesis (Wampler 2012, thesis fig. 5.2) as a background [`Job`] like every
//! other: listed, paused between steps, cancelled, its history its live state
//! ([`SynthesisProgress`]). Each solve runs in a worker process ([`GaitWorkerJob`]); the graph,
//! its clips and `synthesis.ron` (the checkpoint and history) are written atomically after every
//! iteration, and opening the same graph file again resumes there. `motionlab controller
//! synthesize` and the app's Synthesis panel both run it.

use super::graph::{self, Creature};
use super::surrogate::Template;
use super::{ControllerTask, Iteration, Proposal, Synthesis};
use crate::jobs::{Detail, Job, Progress, StepOutcome};
use crate::spacetime::gait::{Connection, GaitClip};
use crate::spacetime::job::{ConnectRequest, GaitRequest, GaitWorkerJob};
use anyhow::{Context, Result};
use serde::{Deserialize, Serialize};
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

/// What a synthesis is asked to do: the files, the seed and when to stop.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct SynthesisRequest {
    /// The creature's character file.
    pub creature: PathBuf,
    /// The task file ([`ControllerTask`]); a relative `base` is read next to it.
    pub task: PathBuf,
    /// Stop at this many clips (the base counted).
    pub clips: usize,
    /// Stop after this many iterations (solves).
    pub iterations: usize,
    /// Draw templates uniformly (the thesis's baseline) instead of weighing them.
    pub uniform: bool,
    pub seed: u64,
    /// The graph file; its clips go in the folder of the same name without `.ron`.
    pub out: PathBuf,
}

impl SynthesisRequest {
    /// The folder of the graph's clips, gaits and `synthesis.ron`.
    pub fn folder(&self) -> PathBuf {
        folder_of(&self.out)
    }
}

/// The folder of a graph file's clips: its path without `.ron`.
pub fn folder_of(out: &Path) -> PathBuf {
    let name = out
        .file_name()
        .map(|n| n.to_string_lossy().trim_end_matches(".ron").to_string())
        .unwrap_or_else(|| "graph".into());
    out.with_file_name(name)
}

/// The synthesis's checkpoint file in a graph's folder.
pub fn checkpoint_of(out: &Path) -> PathBuf {
    folder_of(out).join("synthesis.ron")
}

/// The job's live state.
#[derive(Clone, Debug, PartialEq)]
pub struct SynthesisProgress {
    /// Every iteration so far (iteration 0 is the base alone).
    pub history: Vec<Iteration>,
    /// The template being solved, and the solver's progress line.
    pub solving: Option<(Template, String)>,
    pub uniform: bool,
    pub graph: PathBuf,
}

enum Phase {
    /// Between solves: the next step proposes.
    Ready,
    /// The base cycle read: the next step measures iteration 0 (off the caller's thread).
    Begin(Box<GaitClip>),
    /// The base cycle being solved (a task without `base`).
    Base(Box<GaitWorkerJob>),
    /// A template being solved: its clips solved so far (an S₂'s cycle, then its connections)
    /// and the solve running.
    Solving(Box<Proposal>, Vec<GaitClip>, Box<GaitWorkerJob>),
}

/// A synthesis run as a job.
pub struct SynthesisJob {
    request: SynthesisRequest,
    task: ControllerTask,
    creature: Creature,
    /// The worker program (this one).
    program: PathBuf,
    synthesis: Option<Synthesis>,
    phase: Phase,
    /// A line for the log of whoever runs it (the CLI prints them).
    said: Vec<String>,
}

/// How long one step waits on a solve before it reports progress.
const STEP: Duration = Duration::from_millis(500);

impl SynthesisJob {
    /// Opens a synthesis: resumed from the graph folder's `synthesis.ron` when there is one
    /// (it must be the same task, `uniform` and seed), else started from the task's base cycle.
    pub fn open(request: SynthesisRequest, program: PathBuf) -> Result<Self> {
        let task: ControllerTask = crate::files::read_ron(&request.task)?;
        let creature = Creature::load(&request.creature)?;
        let checkpoint = checkpoint_of(&request.out);
        let mut job = Self {
            task: task.clone(),
            creature,
            program,
            synthesis: None,
            phase: Phase::Ready,
            said: Vec::new(),
            request,
        };
        if checkpoint.exists() {
            let s: Synthesis = crate::files::read_ron(&checkpoint)?;
            anyhow::ensure!(
                s.task == task && s.uniform == job.request.uniform && s.seed == job.request.seed,
                "{} is another synthesis (task, uniform or seed differ); remove it or choose another graph file",
                checkpoint.display()
            );
            job.said.push(format!(
                "resuming {} at iteration {} ({} clips)",
                checkpoint.display(),
                s.iterations(),
                s.clips.len()
            ));
            job.synthesis = Some(s);
        } else if let Some(rel) = &task.base {
            let path = job.request.task.parent().unwrap_or(Path::new("")).join(rel);
            let base = crate::files::read_ron::<GaitClip>(&path)
                .with_context(|| format!("the task's base cycle {}", path.display()))?;
            job.phase = Phase::Begin(Box::new(base));
        } else {
            job.said
                .push(format!("solving the base cycle at {} m/s", task.speed));
            let request = GaitRequest {
                turn_rate: Some(0.0),
                max_iterations: task.solver_iterations,
                weights: task.weights,
                posture_limbs: task.posture.clone(),
                out: Some(job.scratch().join("base.ron")),
                ..GaitRequest::new(&job.request.creature, task.speed)
            };
            job.phase = Phase::Base(Box::new(GaitWorkerJob::new(request, job.program.clone())));
        }
        Ok(job)
    }

    /// The solver's scratch folder (removed when the synthesis ends).
    fn scratch(&self) -> PathBuf {
        self.request.folder().join("trials")
    }

    /// Starts from a solved base cycle: iteration 0 measured and written.
    fn begin(&mut self, base: GaitClip) -> Result<()> {
        let s = Synthesis::new(
            self.task.clone(),
            self.request.uniform,
            self.request.seed,
            base,
            &self.creature,
        )?;
        self.synthesis = Some(s);
        self.save()
    }

    /// The graph, its clips and the checkpoint, written atomically.
    fn save(&self) -> Result<()> {
        let s = self.synthesis.as_ref().context("no synthesis yet")?;
        let folder = self.request.folder();
        graph::write(
            &self.creature,
            &s.clips,
            self.task.effort_weight,
            &self.request.out,
            &folder,
        )?;
        crate::files::write_ron(&checkpoint_of(&self.request.out), s)?;
        Ok(())
    }

    /// The synthesis so far (none while the base cycle solves).
    pub fn synthesis(&self) -> Option<&Synthesis> {
        self.synthesis.as_ref()
    }

    /// The lines said since the last call (resumed, solving what).
    pub fn take_said(&mut self) -> Vec<String> {
        std::mem::take(&mut self.said)
    }

    fn finished(&self) -> bool {
        self.synthesis.as_ref().is_some_and(|s| {
            s.clips.len() >= self.request.clips || s.iterations() >= self.request.iterations
        })
    }

    /// The next solve of `proposal` after the valid clips `done`: a turn's connection; a cycle,
    /// then its connection in, then its connection out. `None` when all are solved.
    fn next_solve(
        &mut self,
        proposal: &Proposal,
        done: &[GaitClip],
    ) -> Result<Option<GaitWorkerJob>> {
        let Some(request) = self.next_request(proposal, done)? else {
            return Ok(None);
        };
        self.said.push(format!(
            "  solving {}",
            request
                .out
                .as_deref()
                .and_then(Path::file_stem)
                .map(|s| s.to_string_lossy().into_owned())
                .unwrap_or_default()
        ));
        Ok(Some(GaitWorkerJob::new(request, self.program.clone())))
    }

    /// The request of [`Self::next_solve`].
    fn next_request(&self, proposal: &Proposal, done: &[GaitClip]) -> Result<Option<GaitRequest>> {
        let s = self.synthesis.as_ref().context("no synthesis")?;
        let scratch = self.scratch();
        let base = self
            .request
            .folder()
            .join("gait")
            .join(format!("{}.ron", super::BASE));
        let solve = |name: &str| GaitRequest {
            max_iterations: self.task.solver_iterations,
            out: Some(scratch.join(format!("{name}.ron"))),
            weights: self.task.weights,
            posture_limbs: self.task.posture.clone(),
            ..GaitRequest::new(&self.request.creature, s.clips[0].gait.speed)
        };
        let connect =
            |name: &str, from: PathBuf, to: PathBuf, connection: Connection| GaitRequest {
                connect: Some(ConnectRequest {
                    from,
                    to,
                    connection,
                }),
                ..solve(name)
            };
        let name = &proposal.name;
        let start_file = || -> Result<Option<PathBuf>> {
            let Some(start) = &proposal.start else {
                return Ok(None);
            };
            let path = scratch.join(format!("{name}_start.ron"));
            crate::files::write_ron(&path, start)
                .map_err(|e| anyhow::anyhow!("writing {}: {e}", path.display()))?;
            Ok(Some(path))
        };
        let request = match (proposal.sigma, &proposal.connection, done.len()) {
            (Template::Turn { cycle, .. }, Some(c), 0) => {
                // From the initialisation searched inside the graph (thesis §5.2.1), else the
                // blend of the cycle with itself.
                let init = start_file()?;
                let cycle = self
                    .request
                    .folder()
                    .join("gait")
                    .join(format!("{}.ron", s.cycle_name(cycle)?));
                GaitRequest {
                    init,
                    ..connect(name, cycle.clone(), cycle, c.clone())
                }
            }
            (Template::Cycle { speed, strafe, .. }, _, 0) => {
                // From the initialisation searched inside the graph (thesis §5.2.1), else the base;
                // its period and contact windows (the gait's) are the solve's.
                let init = start_file()?.unwrap_or(base);
                GaitRequest {
                    speed,
                    turn_rate: Some(0.0),
                    strafe,
                    init: Some(init),
                    ..solve(name)
                }
            }
            (Template::Cycle { .. }, _, k @ (1 | 2)) => {
                // The worker removes the file it wrote once read: the cycle is written again
                // for the connections' workers.
                let cycle = scratch.join(format!("{name}.ron"));
                if k == 1 {
                    crate::files::write_ron(&cycle, &done[0])
                        .map_err(|e| anyhow::anyhow!("writing {}: {e}", cycle.display()))?;
                }
                let [into, back] = s.cycle_connections(&self.creature.skeleton()?, &done[0]);
                if k == 1 {
                    connect(&format!("{name}_in"), base, cycle, into)
                } else {
                    connect(&format!("{name}_out"), cycle, base, back)
                }
            }
            _ => return Ok(None),
        };
        Ok(Some(request))
    }

    /// Polls a worker job for up to [`STEP`]: `Some(clip or why not)` once it has ended.
    fn poll(
        worker: &mut GaitWorkerJob,
        pool: &rayon::ThreadPool,
    ) -> Option<std::result::Result<GaitClip, String>> {
        let until = Instant::now() + STEP;
        loop {
            match worker.step(pool) {
                Ok(StepOutcome::Done) => {
                    return Some(worker.clip().cloned().ok_or_else(|| "no clip".to_string()));
                }
                Ok(StepOutcome::Running) if Instant::now() < until => {}
                Ok(StepOutcome::Running) => return None,
                Err(e) => return Some(Err(format!("{e:#}"))),
            }
        }
    }
}

impl Job for SynthesisJob {
    fn kind(&self) -> &'static str {
        "synthesis"
    }

    fn title(&self) -> String {
        format!(
            "{} for {}{}",
            self.request
                .task
                .file_stem()
                .map(|s| s.to_string_lossy().into_owned())
                .unwrap_or_default(),
            self.creature.character.name,
            if self.request.uniform {
                " (uniform)"
            } else {
                ""
            }
        )
    }

    fn step(&mut self, pool: &rayon::ThreadPool) -> Result<StepOutcome> {
        match std::mem::replace(&mut self.phase, Phase::Ready) {
            Phase::Begin(base) => self.begin(*base)?,
            Phase::Base(mut worker) => match Self::poll(&mut worker, pool) {
                None => self.phase = Phase::Base(worker),
                Some(Err(e)) => anyhow::bail!("the base cycle: {e}"),
                Some(Ok(base)) => {
                    anyhow::ensure!(
                        base.is_valid(),
                        "the base cycle did not solve ({}, violation {:.1e})",
                        base.status,
                        base.max_violation
                    );
                    self.begin(base)?;
                }
            },
            Phase::Solving(proposal, mut done, mut worker) => match Self::poll(&mut worker, pool) {
                None => self.phase = Phase::Solving(proposal, done, worker),
                Some(solved) => {
                    let mut failure = None;
                    let next = match solved {
                        Ok(clip) if clip.is_valid() => {
                            done.push(clip);
                            self.next_solve(&proposal, &done)?
                        }
                        Ok(clip) => {
                            done.push(clip);
                            None
                        }
                        Err(e) => {
                            done.clear();
                            self.said.push(format!("the solve failed: {e}"));
                            failure = Some(format!("the solve failed: {e}"));
                            None
                        }
                    };
                    match next {
                        Some(worker) => {
                            self.phase = Phase::Solving(proposal, done, Box::new(worker));
                        }
                        None => {
                            let outcome = if done.is_empty() {
                                Err(failure.unwrap_or_else(|| "the solve failed".to_string()))
                            } else {
                                Ok(done)
                            };
                            let s = self.synthesis.as_mut().context("no synthesis")?;
                            s.record(&self.creature, &proposal, outcome)?;
                            self.save()?;
                            let _ = std::fs::remove_dir_all(self.scratch());
                        }
                    }
                }
            },
            Phase::Ready if self.finished() => {
                // Written once more: a graph grown by an older version gets what this one writes.
                self.save()?;
                let _ = std::fs::remove_dir_all(self.scratch());
                return Ok(StepOutcome::Done);
            }
            Phase::Ready => {
                let s = self.synthesis.as_ref().context("no synthesis")?;
                let proposal = s.propose(&self.creature)?;
                self.said.push(format!(
                    "weighed {} templates; solving {} (q {:.3}, P {:.2}, predicted {:.4})",
                    proposal.weighed.len().max(1),
                    proposal.sigma.label(),
                    proposal.quality,
                    proposal.probability,
                    proposal.predicted
                ));
                let scratch = self.scratch();
                std::fs::create_dir_all(&scratch)
                    .with_context(|| format!("creating {}", scratch.display()))?;
                let worker = self
                    .next_solve(&proposal, &[])?
                    .context("nothing to solve")?;
                self.phase = Phase::Solving(Box::new(proposal), Vec::new(), Box::new(worker));
            }
        }
        Ok(StepOutcome::Running)
    }

    fn progress(&self) -> Progress {
        let history = self
            .synthesis
            .as_ref()
            .map(|s| s.history.clone())
            .unwrap_or_default();
        let (solving, line) = match &self.phase {
            Phase::Solving(p, _, w) => (
                Some((p.sigma, w.progress().message)),
                format!("solving {}", p.name),
            ),
            Phase::Base(w) => (None, format!("base cycle: {}", w.progress().message)),
            Phase::Begin(_) => (None, "measuring the base cycle's controller".into()),
            Phase::Ready => (None, "weighing templates".into()),
        };
        let (clips, cost) = self
            .synthesis
            .as_ref()
            .map_or((0, f64::NAN), |s| (s.clips.len(), s.cost()));
        Progress {
            fraction: (clips as f32 / self.request.clips.max(1) as f32).min(1.0),
            message: format!("{clips} clips, cost(G) {cost:.3}; {line}"),
            detail: Some(Detail::new(SynthesisProgress {
                history,
                solving,
                uniform: self.request.uniform,
                graph: self.request.out.clone(),
            })),
        }
    }

    /// The request: opening it again resumes from the graph folder's `synthesis.ron`.
    fn checkpoint(&self) -> Result<String> {
        Ok(crate::files::to_ron_string(&self.request))
    }

    /// The history, iteration by iteration.
    fn result(&self) -> Result<String> {
        let s = self.synthesis.as_ref().context("no synthesis")?;
        Ok(crate::files::to_ron_string(&s.history))
    }
}
