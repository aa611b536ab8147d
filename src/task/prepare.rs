//! Preparing a task's seed controller (Agrawal et al. 2014, §3: the diversity search starts from a
//! controller that performs the task): CMA-ES on the constraint penalty C alone until C = 0,
//! optionally raising the scene's first obstacle in stages (continuation) and averaging C over
//! fixed perturbations of the point so that the seed has room around it (robust seeds).
//!
//! A library job with a typed request and typed events ([`prepare`]); the command line prints
//! the events and writes the seed, the GUI or a test may watch them instead.

use super::{Evaluation, Task, evaluate};
use crate::optim::scheduler::{self, OnThreads, Verdict};
use crate::optim::{Cmaes, CmaesOptions};
use serde::{Deserialize, Serialize};

/// What to prepare.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct PrepareRequest {
    /// CMA-ES generations per stage.
    pub generations: u64,
    pub seed: u64,
    /// Raise the first obstacle's height from `.0` to `.1` (m) in `.2` stages.
    pub continuation: Option<(f32, f32, usize)>,
    /// Extra seconds the character must keep standing after the task (a margin).
    pub hold: f32,
    /// Average C over the point and `.0` fixed perturbations of normalised scale `.1`.
    pub robust: Option<(usize, f64)>,
}

/// Progress of a preparation.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub enum PrepareEvent {
    /// A continuation stage starts with the obstacle this high (m).
    Stage { stage: usize, obstacle_height: f32 },
    /// A stage starts: the task, its parameter count and the start's penalty.
    Start {
        task: String,
        parameters: usize,
        penalty: f64,
    },
    /// Every tenth generation, and the one that reaches C = 0.
    Generation {
        generation: u64,
        best_penalty: f64,
        sigma: f64,
    },
    /// A better point than any before (the caller may save it as it goes).
    Improved { params: Vec<f64>, penalty: f64 },
    /// A continuation stage that did not reach C = 0; the last feasible stage is kept.
    StageFailed {
        stage: usize,
        best_penalty: f64,
        kept_height: Option<f32>,
    },
}

/// The prepared seed: its parameters and its evaluation on the task as it stands.
#[derive(Clone, Debug)]
pub struct PrepareOutcome {
    pub params: Vec<f64>,
    pub evaluation: Evaluation,
    /// The first obstacle's height at the end of a continuation (m).
    pub obstacle_height: Option<f32>,
}

/// Runs a preparation of `task` on `pool`, reporting to `on_event`. Fails if the continuation
/// asks for an obstacle the scene lacks.
pub fn prepare(
    mut task: Task,
    request: &PrepareRequest,
    pool: &rayon::ThreadPool,
    on_event: &mut dyn FnMut(PrepareEvent),
) -> anyhow::Result<PrepareOutcome> {
    // A seed must not be on the edge of falling: while preparing, the character has to keep
    // standing `hold` seconds longer than the task lasts.
    let task_seconds = task.seconds;
    task.seconds += request.hold.max(0.0);
    let metric = task.def.metric;
    let heights: Vec<Option<f32>> = match request.continuation {
        None => vec![None],
        Some((a, b, n)) => {
            anyhow::ensure!(
                !task.obstacles.is_empty(),
                "task {}: continuation needs an obstacle in the scene",
                task.name
            );
            (0..=n.max(1))
                .map(|k| Some(a + (b - a) * k as f32 / n.max(1) as f32))
                .collect()
        }
    };
    // Robust seeds: C is averaged over the point and `n` fixed perturbations of scale `s`
    // (common random numbers), so the seed sits inside the feasible region with room for the
    // diversity search to move, not on its edge.
    let offsets: Vec<Vec<f64>> = match request.robust {
        None => Vec::new(),
        Some((n, scale)) => {
            use rand::SeedableRng;
            use rand_distr::{Distribution, StandardNormal};
            let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(request.seed ^ 0x5eed);
            (0..n)
                .map(|_| {
                    (0..task.dimension())
                        .map(|_| {
                            let z: f64 = StandardNormal.sample(&mut rng);
                            scale * z
                        })
                        .collect::<Vec<f64>>()
                })
                .collect()
        }
    };
    let penalty = |task: &Task, x: &[f64]| -> f64 {
        let mut c = evaluate(task, x, metric).penalty;
        for o in &offsets {
            let y: Vec<f64> = x
                .iter()
                .zip(o)
                .map(|(a, b)| (a + b).clamp(-1.0, 1.0))
                .collect();
            c += evaluate(task, &y, metric).penalty;
        }
        c / (1 + offsets.len()) as f64
    };
    let set_height = |task: &mut Task, h: f32| {
        task.obstacles[0].center[1] = h / 2.0;
        task.obstacles[0].half_extents[1] = h / 2.0;
    };
    let mut x = task.x0();
    let mut last_ok: Option<(Vec<f64>, f32)> = None;
    let mut height = None;
    for (stage, h) in heights.iter().enumerate() {
        if let Some(h) = h {
            let h = h.max(0.01);
            set_height(&mut task, h);
            height = Some(h);
            on_event(PrepareEvent::Stage {
                stage,
                obstacle_height: h,
            });
        }
        let start = penalty(&task, &x);
        on_event(PrepareEvent::Start {
            task: task.name.clone(),
            parameters: task.dimension(),
            penalty: start,
        });
        let mut best = (x.clone(), start);
        let mut es = Cmaes::new(
            &x,
            task.def.sigma,
            CmaesOptions {
                population: Some(16),
                seed: request.seed + stage as u64,
                bounds: Some(task.bounds()),
                ..Default::default()
            },
        );
        for g in 0..request.generations {
            if best.1 == 0.0 {
                break;
            }
            let batch = scheduler::generation(
                &mut es,
                &mut OnThreads {
                    pool: Some(pool),
                    f: |x: &[f64]| penalty(&task, x),
                },
                &mut |_, v| Verdict::of(*v, true).into(),
            );
            for (x, v) in batch.points.iter().zip(&batch.outcomes) {
                if let Some(v) = v
                    && *v < best.1
                {
                    best = (x.clone(), *v);
                    on_event(PrepareEvent::Improved {
                        params: best.0.clone(),
                        penalty: best.1,
                    });
                }
            }
            if g % 10 == 0 || best.1 == 0.0 {
                on_event(PrepareEvent::Generation {
                    generation: g,
                    best_penalty: best.1,
                    sigma: es.sigma(),
                });
            }
        }
        if h.is_some() && best.1 > 0.0 {
            // A continuation stops at the first stage it cannot solve and keeps the last
            // feasible solution (rerun from it with more generations or another seed).
            let kept = last_ok.as_ref().map(|(_, h)| *h);
            on_event(PrepareEvent::StageFailed {
                stage,
                best_penalty: best.1,
                kept_height: kept,
            });
            match last_ok {
                Some((xo, ho)) => {
                    x = xo;
                    set_height(&mut task, ho);
                    height = Some(ho);
                }
                None => x = best.0,
            }
            break;
        }
        x = best.0;
        if let Some(h) = h {
            last_ok = Some((x.clone(), h.max(0.01)));
        }
    }
    task.seconds = task_seconds;
    let evaluation = evaluate(&task, &x, metric);
    Ok(PrepareOutcome {
        params: x,
        evaluation,
        obstacle_height: height,
    })
}
