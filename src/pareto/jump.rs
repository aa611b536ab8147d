//! The Pareto jump task (Agrawal 2015, thesis ch. 4): a standing-jump phase controller of
//! the 2D human whose free parameters are the task's pose targets (hips, knees, back, abdomen,
//! shoulders and elbows in every phase; ankles in take-off and rise: 32) plus the two assist
//! parameters (g₀, T): 34 in all. One rollout gives the head's peak height h_p, the weighted
//! joint effort e_je (Eq. 4.4, [`super::effort`]), the assist effort e_se ([`super::assist`])
//! and whether the jump failed: it fell, landed outside the landing bracket |l_p − l_o| ≤ l_r
//! (the scene's `LandingBox`), or did not end standing balanced.
//!
//! Objectives (all minimized):
//! - RMOO (§4.4.3): f1 = −h_p, f2 = log(w_je e_je + w_se e_se) with w_se / w_je = 5000; a
//!   failure (the constant f_p) is reported as non-finite objectives, which every selection
//!   ranks below every success;
//! - BSOO (§4.4.1, Eq. 4.5): f_so = C_h + C_l + log(w_je e_je + w_se e_se), with
//!   C_h = w_p (h_p − h_o)² when |h_p − h_o| > h_r (w_p = 5000) and C_l = f_p = 100,000 on failure.
//!
//! The assist coordinates are normalized like the task's: v_g ∈ [−1, 1] gives
//! g₀ = −9.81 + (g_max + 9.81)·max(0, v_g), so the whole half v_g ≤ 0 is exactly natural (the
//! thesis's natural points use exactly zero external force), and v_T ∈ [−1, 1] gives
//! T = T_max (v_T + 1)/2.

use super::assist::{Assist, AssistEffort, NATURAL_GRAVITY};
use super::effort::EffortWeights;
use crate::control::phase::{PhaseController, Transition};
pub use crate::scene::{JumpDef, JumpDefError};
use crate::sim::Simulation;
use crate::task::{Metric, StepObserver, Task, TaskRun, evaluate_observed};
use serde::{Deserialize, Serialize};

/// The jump task resolved against its scene: the task (32 control coordinates) and the assist.
#[derive(Clone, Debug)]
pub struct JumpTask {
    pub task: Task,
    pub def: JumpDef,
    weights: EffortWeights,
    head: usize,
    /// Index of the phase that ends at lift-off (take-off).
    takeoff_phase: usize,
    mass: f32,
}

/// What one rollout of a jump controller gives.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct JumpOutcome {
    /// Peak head height above the ground, m.
    pub height: f64,
    /// Weighted joint effort e_je, N²m²s.
    pub joint_effort: f64,
    /// Assist effort e_se, N²s.
    pub assist_effort: f64,
    pub assist: Assist,
    /// log(w_je e_je + w_se e_se), w_je = 1.
    pub log_effort: f64,
    /// Why the jump failed (fell, landed outside the bracket, …), if it did.
    pub failure: Option<String>,
    /// Trajectory hash of the rollout (replay check).
    pub hash: u128,
}

impl JumpOutcome {
    /// Whether the jump used no external force at all.
    pub fn is_natural(&self) -> bool {
        self.assist_effort == 0.0
    }

    /// RMOO's objectives (−h_p, log effort), both minimized; non-finite on failure.
    pub fn objectives(&self) -> [f64; 2] {
        if self.failure.is_some() {
            return [f64::INFINITY, f64::INFINITY];
        }
        [-self.height, self.log_effort]
    }

    /// BSOO's f_so for a bin of target head height `target` ± `bracket` (Eq. 4.5).
    pub fn single_objective(&self, def: &JumpDef, target: f64, bracket: f64) -> f64 {
        let d = self.height - target;
        let c_h = if d.abs() > bracket {
            def.height_weight * d * d
        } else {
            0.0
        };
        let c_l = if self.failure.is_some() {
            def.failure_penalty
        } else {
            0.0
        };
        let f = c_h + c_l + self.log_effort;
        if f.is_finite() {
            f
        } else {
            2.0 * def.failure_penalty
        }
    }
}

/// Measures a rollout and applies the assist (a [`StepObserver`] on the task's rollout).
struct JumpObserver<'a> {
    jump: &'a JumpTask,
    assist: Assist,
    dt: f32,
    /// Steps since take-off (None before).
    airborne_steps: Option<u32>,
    joint_effort: f64,
    assist_effort: AssistEffort,
    peak: f32,
    /// Recorded gravity per step (tests and playback).
    gravity: Vec<f32>,
}

impl StepObserver for JumpObserver<'_> {
    fn before_step(&mut self, sim: &mut Simulation, controller: &PhaseController) {
        // Steps since take-off, counted (not timed) so the profile starts exactly at g₀ on the
        // first step after the controller's take-off phase ends.
        match &mut self.airborne_steps {
            Some(k) => *k += 1,
            None => {
                let took_off = controller
                    .log
                    .iter()
                    .any(|r| r.index == self.jump.takeoff_phase && !r.timed_out && r.end.is_some());
                if took_off {
                    self.airborne_steps = Some(0);
                }
            }
        }
        let g = match self.airborne_steps {
            Some(k) => self.assist.gravity_at(k as f32 * self.dt),
            None => NATURAL_GRAVITY,
        };
        sim.set_gravity(g);
        self.assist_effort.add(self.jump.mass, g, self.dt);
        self.gravity.push(g);
    }

    fn after_step(&mut self, sim: &Simulation) {
        self.joint_effort += self.jump.weights.rate(sim.torques()) * self.dt as f64;
        let h = sim.body_pose(self.jump.head)[1] - sim.ground_height();
        self.peak = self.peak.max(h);
    }
}

/// Why a scene's jump does not resolve against its task.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
pub enum JumpError {
    #[error("scene {scene:?} has no `pareto` section")]
    NoParetoSection { scene: String },
    #[error(transparent)]
    Task(#[from] crate::task::TaskError),
    #[error(transparent)]
    Def(#[from] JumpDefError),
    #[error(transparent)]
    Effort(#[from] super::effort::EffortError),
    #[error("the jump controller has no phase that ends at lift-off (take-off)")]
    NoLiftoff,
    #[error("pareto.max_g0 is {max_g0}, expected above {}", NATURAL_GRAVITY)]
    MaxG0 { max_g0: f32 },
}

impl JumpTask {
    /// Resolves the jump against its task: the head body, the effort weights and the
    /// take-off phase (the controller's `Liftoff` phase) must exist.
    pub fn new(task: Task, def: JumpDef) -> Result<Self, JumpError> {
        let c = &task.character;
        def.check(c)?;
        let head = c
            .body_index(&def.head)
            .ok_or_else(|| JumpDefError::UnknownHead {
                head: def.head.clone(),
            })?;
        let weights = EffortWeights::new(c, &def.effort_weights)?;
        let takeoff_phase = task
            .def
            .controller
            .phases
            .iter()
            .position(|p| p.end == Transition::Liftoff)
            .ok_or(JumpError::NoLiftoff)?;
        if !(def.max_g0 > NATURAL_GRAVITY && def.max_g0.is_finite()) {
            return Err(JumpError::MaxG0 { max_g0: def.max_g0 });
        }
        let mass = c.total_mass() as f32;
        Ok(JumpTask {
            task,
            def,
            weights,
            head,
            takeoff_phase,
            mass,
        })
    }

    /// The jump of a scene with a `pareto` section (its `task` with the assist).
    pub fn from_scene(scene: &crate::scene::LoadedScene) -> Result<Self, JumpError> {
        let def = scene
            .scene
            .pareto
            .clone()
            .ok_or_else(|| JumpError::NoParetoSection {
                scene: scene.scene.name.clone(),
            })?;
        JumpTask::new(scene.task(false)?, def)
    }

    /// Number of free parameters: the task's control coordinates and (v_g, v_T).
    pub fn dimension(&self) -> usize {
        self.task.control_dim + 2
    }

    /// The seed controller in normalized coordinates.
    pub fn x0(&self) -> Vec<f64> {
        let mut x = self.task.x0();
        x.truncate(self.task.control_dim);
        x.push(self.def.seed_assist.0);
        x.push(self.def.seed_assist.1);
        x
    }

    pub fn bounds(&self) -> crate::optim::Bounds {
        let n = self.dimension();
        crate::optim::Bounds::new(vec![-1.0; n], vec![1.0; n]).expect("non-empty box")
    }

    /// The assist of normalized coordinates `x` (its last two).
    pub fn assist(&self, x: &[f64]) -> Assist {
        let k = self.task.control_dim;
        let vg = x.get(k).copied().unwrap_or(-1.0).clamp(-1.0, 1.0) as f32;
        let vt = x.get(k + 1).copied().unwrap_or(-1.0).clamp(-1.0, 1.0) as f32;
        let g0 = NATURAL_GRAVITY + (self.def.max_g0 - NATURAL_GRAVITY) * vg.max(0.0);
        let duration = self.def.max_duration * (vt + 1.0) / 2.0;
        if g0 == NATURAL_GRAVITY || duration == 0.0 {
            Assist::NONE
        } else {
            Assist { g0, duration }
        }
    }

    /// Label of coordinate `k`.
    pub fn param_label(&self, k: usize) -> String {
        let c = self.task.control_dim;
        match k {
            _ if k < c => self.task.param_label(k),
            _ if k == c => "assist.g0".into(),
            _ => "assist.duration".into(),
        }
    }

    /// Simulates the controller `x`.
    pub fn evaluate(&self, x: &[f64]) -> JumpOutcome {
        self.run(x, false).0
    }

    /// Simulates `x` keeping every frame (playback), with the gravity of every step.
    pub fn run_recorded(&self, x: &[f64]) -> (JumpOutcome, TaskRun, Vec<f32>) {
        let (o, run, g) = self.run(x, true);
        (o, run, g)
    }

    fn run(&self, x: &[f64], keep_frames: bool) -> (JumpOutcome, TaskRun, Vec<f32>) {
        let k = self.task.control_dim.min(x.len());
        let assist = self.assist(x);
        let mut obs = JumpObserver {
            jump: self,
            assist,
            dt: self.task.settings.dt,
            airborne_steps: None,
            joint_effort: 0.0,
            assist_effort: AssistEffort::default(),
            peak: f32::MIN,
            gravity: Vec::new(),
        };
        let run = evaluate_observed(&self.task, &x[..k], Metric::Md, keep_frames, &mut obs);
        let e = &run.evaluation;
        let failure = (e.penalty > 0.0).then(|| {
            e.terms
                .iter()
                .map(|t| t.0.clone())
                .collect::<Vec<_>>()
                .join("; ")
        });
        let failure = match (failure, obs.airborne_steps) {
            (Some(f), _) => Some(f),
            (None, None) => Some("never left the ground".into()),
            (None, Some(_)) => None,
        };
        let outcome = JumpOutcome {
            height: if obs.peak.is_finite() {
                obs.peak as f64
            } else {
                0.0
            },
            joint_effort: obs.joint_effort,
            assist_effort: obs.assist_effort.total,
            assist,
            log_effort: (obs.joint_effort + self.def.assist_weight * obs.assist_effort.total).ln(),
            failure,
            hash: e.hash,
        };
        (outcome, run, obs.gravity)
    }
}
