//! Push-robustness sweep: the largest impulse a standing character survives in each direction.
//!
//! The character holds its reference pose for `settle` seconds; that state is snapshotted once,
//! and every trial restores it, pushes the heaviest body (the trunk) with an impulse delivered
//! over `push_duration`, and watches for `observe` seconds whether it falls
//! ([`Simulation::has_fallen`]). Per direction the impulse doubles from `start_impulse` until a
//! fall, then bisects until the bracket is within `tolerance` (relative). All directions of a
//! round run in parallel. 3D characters are pushed in 8 horizontal directions; planar
//! characters in 8 directions of their plane (forward, up, back, down and the diagonals).

use crate::control::HoldPose;
use crate::jobs::{Job, Progress, StepOutcome};
use crate::model::{Character, RootKind};
use crate::sim::{RolloutSpec, SimSettings, Simulation, Snapshot, continue_rollout};
use rayon::prelude::*;
use serde::{Deserialize, Serialize};

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct SweepConfig {
    pub directions: usize,
    pub settle: f32,
    pub observe: f32,
    pub push_duration: f32,
    /// First impulse tried, N·s.
    pub start_impulse: f32,
    /// Largest impulse tried, N·s.
    pub max_impulse: f32,
    /// Bisection stops when (fall − survive) / fall is below this.
    pub tolerance: f32,
}

impl Default for SweepConfig {
    fn default() -> Self {
        SweepConfig {
            directions: 8,
            settle: 1.0,
            observe: 3.0,
            push_duration: 0.1,
            start_impulse: 10.0,
            max_impulse: 1280.0,
            tolerance: 0.05,
        }
    }
}

/// Bracket of one direction.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct DirectionBound {
    pub label: String,
    /// Unit push direction (world).
    pub direction: [f32; 3],
    /// Largest impulse survived so far (N·s).
    pub survived: f32,
    /// Smallest impulse that made it fall (N·s), if any yet.
    pub fell: Option<f32>,
    pub trials: u32,
    pub done: bool,
}

impl DirectionBound {
    fn next_trial(&self, cfg: &SweepConfig) -> Option<f32> {
        if self.done {
            return None;
        }
        Some(match self.fell {
            None if self.survived == 0.0 => cfg.start_impulse,
            None => (self.survived * 2.0).min(cfg.max_impulse),
            Some(f) => 0.5 * (self.survived + f),
        })
    }
}

/// Saved state and final result of a sweep.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct SweepState {
    pub character: Character,
    pub settings: SimSettings,
    pub config: SweepConfig,
    pub pushed_body: String,
    pub bounds: Vec<DirectionBound>,
    pub rounds: u32,
    pub code_version: String,
}

pub struct RobustnessSweep {
    pub state: SweepState,
    base: Option<Snapshot>,
}

fn direction_set(planar: bool, n: usize) -> Vec<(String, [f32; 3])> {
    let names3 = [
        "forward",
        "forward-right",
        "right",
        "back-right",
        "back",
        "back-left",
        "left",
        "forward-left",
    ];
    let names2 = [
        "forward",
        "forward-up",
        "up",
        "back-up",
        "back",
        "back-down",
        "down",
        "forward-down",
    ];
    (0..n)
        .map(|k| {
            let a = std::f32::consts::TAU * k as f32 / n as f32;
            let (label, dir) = if planar {
                (names2.get(k).filter(|_| n == 8), [a.cos(), a.sin(), 0.0])
            } else {
                (names3.get(k).filter(|_| n == 8), [a.cos(), 0.0, a.sin()])
            };
            let label = label
                .map(|s| s.to_string())
                .unwrap_or_else(|| format!("{:.0} deg", a.to_degrees()));
            (label, dir.map(|v| if v.abs() < 1e-6 { 0.0 } else { v }))
        })
        .collect()
}

impl RobustnessSweep {
    pub fn new(
        character: Character,
        settings: SimSettings,
        config: SweepConfig,
    ) -> anyhow::Result<Self> {
        let heaviest = character
            .bodies
            .iter()
            .max_by(|a, b| a.mass.total_cmp(&b.mass))
            .map(|b| b.name.clone())
            .ok_or_else(|| anyhow::anyhow!("character has no bodies"))?;
        let planar = character.root.kind == RootKind::Planar;
        let bounds = direction_set(planar, config.directions)
            .into_iter()
            .map(|(label, direction)| DirectionBound {
                label,
                direction,
                survived: 0.0,
                fell: None,
                trials: 0,
                done: false,
            })
            .collect();
        Ok(RobustnessSweep {
            state: SweepState {
                character,
                settings,
                config,
                pushed_body: heaviest,
                bounds,
                rounds: 0,
                code_version: crate::code_version(),
            },
            base: None,
        })
    }

    /// Resumes from a checkpoint written by a previous run.
    pub fn from_checkpoint(text: &str) -> anyhow::Result<Self> {
        let state: SweepState = crate::files::from_ron(text)?;
        let problems = state.character.validate();
        if let Some(p) = problems.first() {
            anyhow::bail!("the checkpoint's character {}: {p}", state.character.name);
        }
        let c = &state.config;
        let finite_positive = |v: f32| v.is_finite() && v > 0.0;
        anyhow::ensure!(
            state.character.body_index(&state.pushed_body).is_some(),
            "the checkpoint pushes body {:?}, which its character does not have",
            state.pushed_body
        );
        anyhow::ensure!(
            state.bounds.len() == c.directions
                && [
                    c.settle,
                    c.observe,
                    c.push_duration,
                    c.start_impulse,
                    c.max_impulse
                ]
                .into_iter()
                .all(finite_positive)
                && c.settle + c.observe <= crate::scene::MAX_SECONDS
                && c.tolerance > 0.0
                && c.tolerance < 1.0
                && state.bounds.iter().all(|b| {
                    b.direction.iter().all(|v| v.is_finite())
                        && b.survived.is_finite()
                        && b.fell.is_none_or(|f| f.is_finite())
                }),
            "the checkpoint's sweep settings or bounds are not those of a sweep"
        );
        Ok(RobustnessSweep { state, base: None })
    }

    fn base(&mut self) -> anyhow::Result<Snapshot> {
        if self.base.is_none() {
            let mut sim = Simulation::new(&self.state.character, self.state.settings)?;
            let r = continue_rollout(
                &mut sim,
                &mut HoldPose::reference(),
                &RolloutSpec::seconds(self.state.config.settle),
            );
            if r.fell {
                anyhow::bail!(
                    "the character does not stand unpushed for {} s",
                    self.state.config.settle
                );
            }
            self.base = Some(sim.snapshot());
        }
        Ok(self.base.clone().expect("just set"))
    }

    /// Runs one trial: does the character survive `impulse` along `dir`?
    pub fn survives(&self, base: &Snapshot, dir: [f32; 3], impulse: f32) -> anyhow::Result<bool> {
        let st = &self.state;
        let mut sim = Simulation::new(&st.character, st.settings)?;
        sim.restore(base);
        let body = st.character.body_index(&st.pushed_body).unwrap_or(0);
        sim.push(body, dir.map(|d| d * impulse), st.config.push_duration);
        let spec = RolloutSpec {
            stop_on_fall: true,
            ..RolloutSpec::seconds(st.config.observe)
        };
        let r = continue_rollout(&mut sim, &mut HoldPose::reference(), &spec);
        Ok(!r.fell)
    }
}

impl Job for RobustnessSweep {
    fn kind(&self) -> &'static str {
        "robustness"
    }

    fn title(&self) -> String {
        format!("push robustness of {}", self.state.character.name)
    }

    fn step(&mut self, pool: &rayon::ThreadPool) -> anyhow::Result<StepOutcome> {
        let base = self.base()?;
        let cfg = self.state.config.clone();
        let trials: Vec<(usize, f32)> = self
            .state
            .bounds
            .iter()
            .enumerate()
            .filter_map(|(i, b)| b.next_trial(&cfg).map(|x| (i, x)))
            .collect();
        let this = &*self;
        let outcomes: Vec<anyhow::Result<bool>> = pool.install(|| {
            trials
                .par_iter()
                .map(|&(i, x)| this.survives(&base, this.state.bounds[i].direction, x))
                .collect()
        });
        for ((i, x), ok) in trials.into_iter().zip(outcomes) {
            let ok = ok?;
            let b = &mut self.state.bounds[i];
            b.trials += 1;
            if ok {
                b.survived = x;
                if b.fell.is_none() && x >= cfg.max_impulse {
                    b.done = true;
                }
            } else {
                b.fell = Some(x);
            }
            if let Some(f) = b.fell {
                if f - b.survived <= cfg.tolerance * f {
                    b.done = true;
                }
            }
        }
        self.state.rounds += 1;
        Ok(if self.state.bounds.iter().all(|b| b.done) {
            StepOutcome::Done
        } else {
            StepOutcome::Running
        })
    }

    fn progress(&self) -> Progress {
        let done = self.state.bounds.iter().filter(|b| b.done).count();
        let n = self.state.bounds.len().max(1);
        // Each direction needs about a dozen trials; count finished ones fully.
        let partial: f32 = self
            .state
            .bounds
            .iter()
            .map(|b| {
                if b.done {
                    1.0
                } else {
                    (b.trials as f32 / 12.0).min(0.95)
                }
            })
            .sum();
        Progress {
            fraction: partial / n as f32,
            message: format!(
                "round {}, {done}/{n} directions bracketed",
                self.state.rounds
            ),
            detail: Some(crate::jobs::Detail::new(self.state.clone())),
        }
    }

    fn checkpoint(&self) -> anyhow::Result<String> {
        Ok(ron::ser::to_string_pretty(
            &self.state,
            ron::ser::PrettyConfig::default(),
        )?)
    }

    fn result(&self) -> anyhow::Result<String> {
        self.checkpoint()
    }
}
