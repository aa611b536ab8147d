//! The discovery of a gait job (Wampler 2012, thesis §3.3): basin-CMA over
//! the timings ([`crate::spacetime::discovery::discover`]), each sample projected by a capped
//! gait solve, itself a [`GaitRequest`] solved by a [`SampleSolver`]: [`ProcessPool`] runs them
//! as separate processes (IPOPT's linear solver is not thread-safe, so parallel solves need
//! processes).
//!
//! A sample's clip is named by a hash of the solver's source (`MOTIONLAB_SOLVER_HASH`,
//! build.rs), the creature file's contents and the sample's request, and kept in the request's
//! `samples_dir` when it has one, with a small summary beside it (`sample-….summary.ron`: its cost
//! and violation as basin-CMA ranks them). A rerun of a build of the same solver, on this
//! machine or a fresh one, reuses the samples already solved (an interrupted discovery resumes),
//! from the summaries alone if need be; a changed solver solves afresh. Apart from the solve
//! (`run.rs`) so that the discovery loop can change without changing that hash.

#![cfg_attr(not(feature = "ipopt"), allow(dead_code))]

use super::*;
use crate::spacetime::discovery::{DiscoveryOptions, Projected, TimingSpace};
use crate::spacetime::skeleton::Skeleton;
use anyhow::{Context, Result};
use std::path::{Path, PathBuf};

/// Solves a batch of sample requests; each writes its clip to its `out` (a sample whose solve
/// fails writes none). Errors are the solver's own (a process that cannot start), not a
/// sample's.
pub trait SampleSolver {
    fn solve(&mut self, requests: &[GaitRequest]) -> Result<()>;
}

/// Each sample solved by `EXE gait-job REQUEST` in a worker process of its own, `threads` at
/// once (0: one per core). Each process evaluates its derivatives on its share of the cores.
#[derive(Debug, Clone)]
pub struct ProcessPool {
    /// The motionlab executable.
    pub exe: PathBuf,
    pub threads: usize,
}

impl ProcessPool {
    /// A pool running this program (the motionlab executable itself).
    pub fn this_program(threads: usize) -> Result<Self> {
        Ok(Self {
            exe: std::env::current_exe()
                .context("locating the motionlab executable for the sample processes")?,
            threads,
        })
    }
}

impl SampleSolver for ProcessPool {
    /// Every request in a [`super::pool::GaitWorker`] of its own, `threads` at once; a slot
    /// frees as soon as any solve ends (sample times differ by 2x and more).
    fn solve(&mut self, requests: &[GaitRequest]) -> Result<()> {
        let mut workers = crate::jobs::supervisor::Supervisor::new(
            &self.exe,
            super::pool::GaitWorker,
            self.threads,
        );
        for (i, request) in requests.iter().enumerate() {
            workers.submit(i as u64, request.clone());
        }
        while let Some(report) = workers.next() {
            if let crate::jobs::supervisor::Report::Exited {
                outcome: Err(e @ crate::jobs::supervisor::WorkerError::Spawn { .. }),
                ..
            } = report
            {
                anyhow::bail!("starting a sample process: {e}");
            }
        }
        Ok(())
    }
}

/// The samples of every batch spread over the ranks of an MPI job: each rank solves its block
/// with `inner`, then every clip file travels to every rank (its bytes, in index order), so
/// each rank's discovery reads the same clips and takes the same path as a single process's.
/// Nothing is assumed of the filesystems: a sample folder of a rank's own (scratch) works as a
/// shared one does.
pub struct SpreadSamples<S> {
    pub ranks: crate::cluster::Ranks,
    pub inner: S,
}

impl<S: SampleSolver> SampleSolver for SpreadSamples<S> {
    fn solve(&mut self, requests: &[GaitRequest]) -> Result<()> {
        let clip = |r: &GaitRequest| r.out.clone().expect("a sample request names its clip");
        let mut error = None;
        let inner = &mut self.inner;
        let block = self.ranks.share(requests.len());
        let clips: Vec<Option<Vec<u8>>> = self.ranks.spread(requests.len(), |mine| {
            if let Err(e) = inner.solve(&requests[mine.clone()]) {
                error = Some(e);
            }
            requests[mine]
                .iter()
                .map(|r| std::fs::read(clip(r)).ok())
                .collect()
        });
        if let Some(e) = error {
            return Err(e);
        }
        for (i, bytes) in clips.iter().enumerate() {
            if let Some(bytes) = bytes.as_deref().filter(|_| !block.contains(&i)) {
                let path = clip(&requests[i]);
                crate::files::write_atomic(&path, bytes)
                    .with_context(|| format!("writing a sample clip {}", path.display()))?;
            }
        }
        Ok(())
    }
}

/// The outcome of a discovery: the best feasible timing and, when kept, its sample's clip.
pub(super) struct Found {
    pub period: f64,
    pub timings: Vec<FootTiming>,
    pub best_clip: Option<GaitClip>,
}

/// The sample clip files of a discovery: where they go and by what name.
struct SampleFiles {
    folder: PathBuf,
    /// The folder stays (the request's `samples_dir`) or is scratch.
    keep: bool,
    /// Hash of the solver's source and the creature file's contents.
    inputs: [u8; 16],
}

impl SampleFiles {
    fn new(request: &GaitRequest, discovery: &DiscoverRequest) -> Result<Self> {
        let keep = discovery.samples_dir.is_some();
        let folder = match &discovery.samples_dir {
            Some(dir) => dir.clone(),
            None => std::env::temp_dir().join(format!(
                "motionlab-discover-{}-{:x}",
                std::process::id(),
                std::time::SystemTime::now()
                    .duration_since(std::time::UNIX_EPOCH)
                    .map_or(0, |d| d.as_nanos())
            )),
        };
        std::fs::create_dir_all(&folder)
            .with_context(|| format!("creating {}", folder.display()))?;
        let mut h = xxhash_rust::xxh3::Xxh3::new();
        h.update(env!("MOTIONLAB_SOLVER_HASH").as_bytes());
        h.update(
            &std::fs::read(&request.creature)
                .with_context(|| format!("reading {}", request.creature.display()))?,
        );
        Ok(Self {
            folder,
            keep,
            inputs: h.digest128().to_le_bytes(),
        })
    }

    /// The clip of a sample request (its creature's contents, not its path, are what count).
    fn clip_path(&self, sample: &GaitRequest) -> PathBuf {
        let named = GaitRequest {
            creature: PathBuf::new(),
            out: None,
            ..sample.clone()
        };
        let mut h = xxhash_rust::xxh3::Xxh3::new();
        h.update(&self.inputs);
        h.update(named.encode().as_bytes());
        self.folder
            .join(format!("sample-{:032x}.ron", h.digest128()))
    }
}

fn read_clip(path: &Path) -> Option<GaitClip> {
    crate::files::from_ron(&std::fs::read_to_string(path).ok()?).ok()
}

fn summary_path(clip: &Path) -> PathBuf {
    clip.with_extension("summary.ron")
}

fn read_summary(clip: &Path) -> Option<Projected> {
    crate::files::from_ron(&std::fs::read_to_string(summary_path(clip)).ok()?).ok()
}

/// Basin-CMA over the timings (Wampler 2012, thesis §3.3), every sample a solve capped at the
/// discovery's `sample_iterations`, solved by `samples`. Reports every sample and generation
/// and returns the best feasible timing (lowest cost) with its sample's clip.
pub(super) fn discover_timings(
    request: &GaitRequest,
    discovery: &DiscoverRequest,
    skeleton: &Skeleton,
    samples: &mut dyn SampleSolver,
    on_event: &mut dyn FnMut(GaitEvent),
) -> Result<Found> {
    let feet: Vec<String> = skeleton
        .feet
        .iter()
        .map(|&l| skeleton.limbs[l].name.clone())
        .collect();
    let mut space = TimingSpace::new(feet);
    if let Some((lo, hi)) = discovery.period_range {
        space = space
            .with_period_range(lo, hi)
            .map_err(|e| anyhow::anyhow!("the discovery's period range: {e}"))?;
    }
    let files = SampleFiles::new(request, discovery)?;
    let options = DiscoveryOptions {
        seed: request.seed.max(1),
        generations: discovery.generations,
        population: discovery.population,
        ..Default::default()
    };
    let sample_iterations = discovery
        .sample_iterations
        .or(skeleton.solve.sample_iterations)
        .unwrap_or(crate::spacetime::discovery::SAMPLE_ITERATIONS);
    let lbfgs_iterations = request.lbfgs_iterations(skeleton);
    let tolerance = options.feasibility_tolerance;
    // The best feasible sample (discovery's ranking: lowest cost), to start the final solve
    // from: its clip, or, when only its summary was kept, its request.
    let mut best_cost = f64::INFINITY;
    let mut best_clip: Option<GaitClip> = None;
    let mut best_unsolved: Option<GaitRequest> = None;
    let mut solver_error: Option<anyhow::Error> = None;
    // Both the evaluation and the progress report.
    let on_event = std::cell::RefCell::new(on_event);
    let mut evaluate = |batch: &[(f64, Vec<FootTiming>)]| -> Vec<Option<Projected>> {
        let requests: Vec<GaitRequest> = batch
            .iter()
            .map(|(period, timings)| {
                let mut sample = GaitRequest {
                    period: Some(*period),
                    contacts: Some(timings.clone()),
                    max_iterations: sample_iterations,
                    hessian: request.hessian,
                    lbfgs_iterations: Some(lbfgs_iterations),
                    morphology: request.morphology,
                    // The discovery's form of the solve: its torques, barrier and starting
                    // springs (one start per sample).
                    torques: request.torques,
                    barrier: request.barrier,
                    springs: request.springs,
                    ..GaitRequest::new(request.creature.clone(), request.speed)
                };
                sample.out = Some(files.clip_path(&sample));
                sample
            })
            .collect();
        let clip_of = |r: &GaitRequest| r.out.clone().expect("every sample has its clip path");
        let (reused, to_solve): (Vec<&GaitRequest>, Vec<&GaitRequest>) =
            requests.iter().partition(|r| {
                files.keep && {
                    let p = clip_of(r);
                    read_summary(&p).is_some() || read_clip(&p).is_some()
                }
            });
        let to_solve: Vec<GaitRequest> = to_solve.into_iter().cloned().collect();
        if let Err(e) = samples.solve(&to_solve) {
            solver_error.get_or_insert(e);
        }
        if files.keep {
            (on_event.borrow_mut())(GaitEvent::SamplesReused {
                reused: reused.len(),
                total: batch.len(),
                folder: files.folder.display().to_string(),
            });
        }
        requests
            .iter()
            .map(|sample| {
                let p = clip_of(sample);
                let clip = read_clip(&p);
                if !files.keep {
                    let _ = std::fs::remove_file(&p);
                }
                let projected = match &clip {
                    Some(clip) => {
                        let projected = Projected {
                            cost: clip.cost,
                            max_violation: if clip.converged() {
                                clip.max_violation
                            } else {
                                clip.max_violation.max(1.0)
                            },
                        };
                        if files.keep && read_summary(&p).is_none() {
                            // Best effort: without it the clip itself is read next time.
                            let _ = crate::files::write_ron(&summary_path(&p), &projected);
                        }
                        projected
                    }
                    None if files.keep => read_summary(&p)?,
                    None => return None,
                };
                if projected.max_violation <= tolerance
                    && projected.cost.is_finite()
                    && projected.cost < best_cost
                {
                    best_cost = projected.cost;
                    best_unsolved = clip.is_none().then(|| sample.clone());
                    best_clip = clip;
                }
                Some(projected)
            })
            .collect()
    };
    let mut progress = |g: &crate::spacetime::discovery::GenerationReport| {
        for (i, c) in g.samples.iter().enumerate() {
            (on_event.borrow_mut())(GaitEvent::Sample {
                generation: g.generation,
                index: i,
                period: c.period,
                timings: c.timings.clone(),
                cost: c.projected.as_ref().map(|p| p.cost),
                max_violation: c.projected.as_ref().map(|p| p.max_violation),
            });
        }
        (on_event.borrow_mut())(GaitEvent::Generation {
            generation: g.generation,
            feasible: g.samples.iter().filter(|c| c.feasible(tolerance)).count(),
            population: g.samples.len(),
            best: g.best.as_ref().and_then(|b| {
                Some(events::BestTiming {
                    cost: b.projected.as_ref()?.cost,
                    period: b.period,
                    timings: b.timings.clone(),
                })
            }),
        });
        true
    };
    let result =
        crate::spacetime::discovery::discover(&space, &options, &mut evaluate, &mut progress);
    // Scratch goes whatever the outcome (every clip was read as it came).
    if !files.keep {
        let _ = std::fs::remove_dir_all(&files.folder);
    }
    if let Some(e) = solver_error {
        return Err(e);
    }
    // Only the best sample's summary was kept: solve it again (the same solve, so the same
    // clip) for the final solve to start from.
    if let Some(sample) = best_unsolved {
        let clip = sample.out.clone().expect("every sample has its clip path");
        (on_event.borrow_mut())(GaitEvent::SolvingBestSampleAgain {
            clip: clip.display().to_string(),
        });
        samples.solve(std::slice::from_ref(&sample))?;
        best_clip = read_clip(&clip);
    }
    let best = result
        .best
        .with_context(|| format!("no feasible gait in {} projections", result.projections))?;
    // The clip kept is the best sample's when its timing is the result's (it always is, unless
    // two samples tie).
    let best_clip = best_clip.filter(|c| c.period == best.period && c.timings == best.timings);
    Ok(Found {
        period: best.period,
        timings: best.timings,
        best_clip,
    })
}
