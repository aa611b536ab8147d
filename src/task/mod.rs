//! Motion tasks: a seed phase controller, its free parameters, constraints and distance metric
//! (Agrawal et al. 2014, §6 and §7.1; the metrics of §4.1). A task lives inside a scene
//! file (`task:` field) and turns a parameter vector into an [`Evaluation`]: the constraint
//! penalty C and the phase-normalized features the diversity objective compares.
//!
//! Parameters are normalized: every coordinate lies in [−1, 1] and 0 is the seed controller, so
//! CMA-ES starts at x₀ = 0 with one σ for all. Pose parameters move a target by ±`range`
//! degrees; durations and gain multipliers scale by 2^(x·log₂ factor); shape ratios map
//! [−1, 0, 1] to [0.4, 1, 2.5] piecewise log-linearly.

mod eval;
pub mod prepare;
mod ranges;

pub use eval::{
    Evaluation, FALL_COM_FRACTION, Metric, StepObserver, Summary, TaskRun, UnknownMetric,
    constraint_penalty, evaluate, evaluate_observed, evaluate_recorded,
};

use crate::control::phase::{
    ControllerError, DofError, PhaseController, PhaseControllerDef, resolve_dofs,
};
use crate::model::{Character, shape};
use serde::{Deserialize, Serialize};

/// Penalty weight outside a constraint region: C = K‖d‖² (Agrawal et al. 2014, §7.1, K = 5000).
pub const VIOLATION_WEIGHT: f64 = 5000.0;
/// Added to any violated constraint's quadratic penalty (see [`constraint_penalty`]).
pub const VIOLATION_OFFSET: f64 = 1.0;
/// Constant penalty for a fall, a missed rotation or a missing flight phase.
pub const FAIL_PENALTY: f64 = 1000.0;

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct TaskDef {
    pub controller: PhaseControllerDef,
    pub free: FreeParams,
    #[serde(default)]
    pub constraints: Vec<Constraint>,
    pub metric: Metric,
    /// Phases sampled by the motion distance (jumps: the two airborne phases).
    pub sampled_phases: Vec<String>,
    #[serde(default = "default_samples")]
    pub samples_per_phase: usize,
    /// Initial CMA-ES step size in normalized parameter units.
    #[serde(default = "default_sigma")]
    pub sigma: f64,
    /// Link groups whose length ratios are free in shape mode (a pair shares a ratio).
    #[serde(default)]
    pub shape_groups: Vec<Vec<String>>,
    /// Seed parameters (normalized) found by the seeding optimization; empty = all zero.
    #[serde(default)]
    pub seed: Vec<f64>,
    /// Seconds the controller's last phase (the landing's balance) must be held without a
    /// fall. The rollout lasts at least the scene's duration and is extended until the last
    /// phase has run this long (at most twice the scene's duration plus `stand`); a last phase
    /// that never starts costs FAIL_PENALTY. Without it a motion could push its landing to the
    /// end of the horizon and fall unseen just after.
    #[serde(default)]
    pub stand: Option<f32>,
    /// Walks (the walk protocol of Agrawal et al. 2014, §7.1): simulate until this many steps,
    /// the first `settle` of them to settle into the limit cycle; step and posture constraints
    /// are evaluated over the rest, and a fall (or too few steps within the scene's duration)
    /// costs the ramp.
    #[serde(default)]
    pub walk: Option<WalkDef>,
}

/// The walk protocol of Agrawal et al. 2014, §7.1: 30 steps, 10 to settle; fall penalty
/// 50,000 falling linearly to 0 (see [`walk_fall_penalty`]).
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct WalkDef {
    #[serde(default = "default_walk_steps")]
    pub steps: u32,
    #[serde(default = "default_walk_settle")]
    pub settle: u32,
}

fn default_walk_steps() -> u32 {
    30
}
fn default_walk_settle() -> u32 {
    10
}

/// Penalty of the walk fall ramp (Agrawal et al. 2014, §7.1: 50,000 for a fall in the first step,
/// "linearly decreasing to 0 for falling after the 30th step"). Our reading: with k steps
/// completed before the fall (0 ≤ k ≤ n), the penalty is 50,000 · (1 − (k + ½·f)/n), where
/// f ∈ [0, 1] is how far the unfinished step got (time since the last footfall over 0.6 s,
/// capped at 1). So a fall at the start of step 1 costs 50,000, one during step 16 of 30 about
/// 25,000, and nothing once all n steps are done. The ½·f term only orders falls within one
/// step (it never reaches the next step's value), so that preparing a seed has a gradient
/// before the first footfall. A walk that takes too few steps within the scene's duration
/// (e.g. stands still) is charged as if it had fallen there.
pub fn walk_fall_penalty(completed: u32, steps: u32, unfinished: f32) -> f64 {
    let n = steps.max(1) as f64;
    if completed >= steps {
        return 0.0;
    }
    let f = (unfinished / WALK_STEP_SECONDS).clamp(0.0, 1.0) as f64;
    WALK_FALL_PENALTY * (1.0 - (completed as f64 + 0.5 * f) / n)
}

/// Seconds of an unfinished step counted as a whole one by [`walk_fall_penalty`].
pub const WALK_STEP_SECONDS: f32 = 0.6;

/// The walk fall penalty at the first step (Agrawal et al. 2014, §7.1).
pub const WALK_FALL_PENALTY: f64 = 50_000.0;

fn default_samples() -> usize {
    10
}
fn default_sigma() -> f64 {
    0.15
}

/// Which parameters are free (the masks of Agrawal et al. 2014, §6).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct FreeParams {
    /// Phases whose target poses are free.
    #[serde(default)]
    pub pose_phases: Vec<String>,
    /// Degrees of freedom (joint, joint.axis or symmetric names) free in those phases.
    #[serde(default)]
    pub joints: Vec<String>,
    /// Single (phase, degree of freedom) pairs free besides the `pose_phases` × `joints` grid
    /// (the Pareto jump frees the ankles in take-off and rise only, Agrawal 2015, §4.3).
    #[serde(default)]
    pub pose_extra: Vec<(String, String)>,
    /// ± degrees around the seed.
    #[serde(default = "default_range")]
    pub range: f32,
    /// Phases whose durations (Δt_i) are free.
    #[serde(default)]
    pub durations: Vec<String>,
    /// Durations scale within [1/f, f].
    #[serde(default = "default_factor")]
    pub duration_factor: f32,
    /// Phases with free kp and kd multipliers …
    #[serde(default)]
    pub gain_phases: Vec<String>,
    /// … for these joints (symmetric names allowed).
    #[serde(default)]
    pub gain_joints: Vec<String>,
    #[serde(default = "default_factor")]
    pub gain_factor: f32,
    /// Landing placement offset and velocity gain (± metres and ± seconds).
    #[serde(default)]
    pub landing: Option<(f32, f32)>,
    /// Bodies whose world pitch targets are free in the pose phases (walks: pelvis and torso
    /// lean, the main speed control of SIMBICON) …
    #[serde(default)]
    pub world: Vec<String>,
    /// … within ± this many degrees of the seed.
    #[serde(default = "default_world_range")]
    pub world_range: f32,
    /// Foot-placement gains c_d and c_v free within ± these amounts (rad/m, rad/(m/s)).
    #[serde(default)]
    pub foot_placement: Option<(f32, f32)>,
}

fn default_world_range() -> f32 {
    10.0
}

fn default_range() -> f32 {
    45.0
}
fn default_factor() -> f32 {
    2.0
}

/// Task constraints (Agrawal et al. 2014, §7.1). Distances are in metres, angles in degrees.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub enum Constraint {
    /// The feet's centre at the end lies within an axis-aligned box (x, z) of the given half size.
    LandingBox {
        center: [f32; 2],
        half_size: [f32; 2],
    },
    /// The feet's centre at the end lies within `radius` of `center` (x, z).
    LandingCircle { center: [f32; 2], radius: f32 },
    /// The root turns at least this much about z (backflip: near 360°, positive = backwards).
    Rotation { min_degrees: f32 },
    /// The root's pitch stays within ± this many degrees of its start.
    PitchLimit { max_degrees: f32 },
    /// The peak centre-of-mass height (above the ground) reaches this.
    PeakHeight { min: f32 },
    /// At the end the centre of mass is within this horizontal distance of the feet's centre
    /// (the character stands balanced rather than sitting back or lunging).
    EndBalanced { max_offset: f32 },
    /// Walks: every evaluated step (footfall minus the previous footfall of the other foot,
    /// forward x and lateral z) lies within `center ± half_size` (human: (1.0 ± 0.5, 0 ± 0.5) m).
    StepWindow {
        center: [f32; 2],
        half_size: [f32; 2],
    },
    /// Walks: these bodies' up axes stay within this many degrees of vertical over the
    /// evaluated steps (pelvis and torso within 15°).
    Upright {
        max_degrees: f32,
        bodies: Vec<String>,
    },
    /// No body touches an obstacle (jump over: the feet must not step on the wall). Violation:
    /// the time in contact, s.
    ClearObstacles,
}

/// What one parameter coordinate controls.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub enum ParamKind {
    Pose {
        phase: usize,
        key: String,
        seed_degrees: f32,
    },
    Duration {
        phase: usize,
        seed: f32,
    },
    Gain {
        phase: usize,
        joint: String,
        kd: bool,
    },
    LandingOffset,
    LandingGain,
    WorldPitch {
        phase: usize,
        body: String,
        seed_degrees: f32,
    },
    FootPlacementCd,
    FootPlacementCv,
    ShapeRatio {
        group: usize,
    },
}

/// Why a task does not resolve against its character. Errors name the offending entry.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
pub enum TaskError {
    #[error("scene {scene:?} has no `task`")]
    NoTask { scene: String },
    #[error(transparent)]
    Controller(#[from] ControllerError),
    #[error(transparent)]
    Dof(#[from] DofError),
    #[error("free parameters name unknown phase {phase:?}")]
    UnknownPhase { phase: String },
    #[error(
        "free joint {joint:?} has no effect in phase {phase:?}: its pose sets {} there, which \
         override {joint:?} (free the side names instead)",
        quoted_and(.overrides)
    )]
    Shadowed {
        joint: String,
        phase: String,
        overrides: Vec<String>,
    },
    #[error("free gains name unknown joint {joint:?}")]
    UnknownGainJoint { joint: String },
    #[error("free world pitch {body:?}: phase {phase:?} has no world target for it")]
    NoWorldTarget { body: String, phase: String },
    #[error("shape mode needs `shape_groups` in the task")]
    NoShapeGroups,
    #[error("shape group {group} names unknown body {body:?}")]
    UnknownShapeBody { group: usize, body: String },
    #[error("seed has {seed} values but the task has {control} control parameters")]
    SeedLength { seed: usize, control: usize },
    #[error("samples_per_phase must be at least 1")]
    NoSamples,
}

/// `"a" and "b"`: names quoted and joined, for messages.
fn quoted_and(names: &[String]) -> String {
    names
        .iter()
        .map(|o| format!("{o:?}"))
        .collect::<Vec<_>>()
        .join(" and ")
}

/// A task resolved against its character: the parameter layout and how to build a controller.
#[derive(Clone, Debug)]
pub struct Task {
    pub name: String,
    pub def: TaskDef,
    pub character: Character,
    pub params: Vec<ParamKind>,
    /// Number of control parameters (shape ratios follow them in shape mode).
    pub control_dim: usize,
    pub shape_mode: bool,
    /// Supernatural strength: multiplies kp, kd and torque limits (×1.5–3 in §7.2).
    pub strength: f32,
    pub settings: crate::sim::SimSettings,
    pub seconds: f32,
    /// Static boxes of the scene.
    pub obstacles: Vec<crate::sim::Obstacle>,
}

impl Task {
    /// Resolves the free-parameter mask. Errors name the offending entry.
    pub fn new(
        name: &str,
        def: TaskDef,
        character: Character,
        settings: crate::sim::SimSettings,
        seconds: f32,
        shape_mode: bool,
    ) -> Result<Self, TaskError> {
        let seed_ctrl = PhaseController::new(&character, &def.controller)?;
        let phase_index = |n: &str| -> Result<usize, TaskError> {
            def.controller
                .phases
                .iter()
                .position(|p| p.name == n)
                .ok_or_else(|| TaskError::UnknownPhase {
                    phase: n.to_string(),
                })
        };
        let mut params = Vec::new();
        let grid = def
            .free
            .pose_phases
            .iter()
            .flat_map(|p| def.free.joints.iter().map(move |k| (p.clone(), k.clone())));
        for (pn, k) in grid.chain(def.free.pose_extra.iter().cloned()) {
            let (pn, k) = (&pn, &k);
            let pi = phase_index(pn)?;
            let target = seed_ctrl.phase_target(pi);
            {
                let dofs = resolve_dofs(&character, k)?;
                // A pair name is overridden by a side's own name in the same pose: freeing it
                // would give the search a parameter that changes nothing.
                if crate::control::phase::is_pair_name(&character, k) {
                    let shadows: Vec<&String> = def.controller.phases[pi]
                        .pose
                        .keys()
                        .filter(|o| {
                            *o != k
                                && !crate::control::phase::is_pair_name(&character, o)
                                && resolve_dofs(&character, o).is_ok_and(|od| {
                                    od.iter().any(|(i, _)| dofs.iter().any(|(j, _)| i == j))
                                })
                        })
                        .collect();
                    if !shadows.is_empty() {
                        return Err(TaskError::Shadowed {
                            joint: k.clone(),
                            phase: pn.clone(),
                            overrides: shadows.into_iter().cloned().collect(),
                        });
                    }
                }
                let seed = match def.controller.phases[pi].pose.get(k) {
                    Some(v) => *v,
                    None => target[dofs[0].0].to_degrees() * dofs[0].1,
                };
                params.push(ParamKind::Pose {
                    phase: pi,
                    key: k.clone(),
                    seed_degrees: seed,
                });
            }
        }
        for pn in &def.free.durations {
            let pi = phase_index(pn)?;
            params.push(ParamKind::Duration {
                phase: pi,
                seed: def.controller.phases[pi].duration,
            });
        }
        for pn in &def.free.gain_phases {
            let pi = phase_index(pn)?;
            for j in &def.free.gain_joints {
                if !character
                    .joints
                    .iter()
                    .any(|x| x.name == *j || x.name == format!("l_{j}"))
                {
                    return Err(TaskError::UnknownGainJoint { joint: j.clone() });
                }
                params.push(ParamKind::Gain {
                    phase: pi,
                    joint: j.clone(),
                    kd: false,
                });
                params.push(ParamKind::Gain {
                    phase: pi,
                    joint: j.clone(),
                    kd: true,
                });
            }
        }
        if def.free.landing.is_some() {
            params.push(ParamKind::LandingOffset);
            params.push(ParamKind::LandingGain);
        }
        for pn in &def.free.pose_phases {
            let pi = phase_index(pn)?;
            for b in &def.free.world {
                let seed = def.controller.phases[pi]
                    .world
                    .get(b)
                    .copied()
                    .ok_or_else(|| TaskError::NoWorldTarget {
                        body: b.clone(),
                        phase: pn.clone(),
                    })?;
                params.push(ParamKind::WorldPitch {
                    phase: pi,
                    body: b.clone(),
                    seed_degrees: seed,
                });
            }
        }
        if def.free.foot_placement.is_some() {
            params.push(ParamKind::FootPlacementCd);
            params.push(ParamKind::FootPlacementCv);
        }
        let control_dim = params.len();
        if shape_mode {
            if def.shape_groups.is_empty() {
                return Err(TaskError::NoShapeGroups);
            }
            for (g, names) in def.shape_groups.iter().enumerate() {
                for n in names {
                    if character.body_index(n).is_none() {
                        return Err(TaskError::UnknownShapeBody {
                            group: g,
                            body: n.clone(),
                        });
                    }
                }
                params.push(ParamKind::ShapeRatio { group: g });
            }
        }
        if !def.seed.is_empty() && def.seed.len() != control_dim {
            return Err(TaskError::SeedLength {
                seed: def.seed.len(),
                control: control_dim,
            });
        }
        if def.samples_per_phase == 0 {
            return Err(TaskError::NoSamples);
        }
        for p in &def.sampled_phases {
            phase_index(p)?;
        }
        Ok(Task {
            name: name.into(),
            def,
            character,
            params,
            control_dim,
            shape_mode,
            strength: 1.0,
            settings,
            seconds,
            obstacles: Vec::new(),
        })
    }

    pub fn dimension(&self) -> usize {
        self.params.len()
    }

    /// The seed point x₀ in normalized coordinates (shape ratios at 1).
    pub fn x0(&self) -> Vec<f64> {
        let mut x = if self.def.seed.is_empty() {
            vec![0.0; self.control_dim]
        } else {
            self.def.seed.clone()
        };
        x.resize(self.dimension(), 0.0);
        x
    }

    /// Builds the controller definition and character for normalized parameters `x`.
    pub fn instantiate(&self, x: &[f64]) -> (PhaseControllerDef, Character) {
        let mut def = self.def.controller.clone();
        let mut ratios = vec![1.0f32; self.def.shape_groups.len()];
        let f = &self.def.free;
        for (k, p) in self.params.iter().enumerate() {
            let v = x.get(k).copied().unwrap_or(0.0).clamp(-1.0, 1.0) as f32;
            match p {
                ParamKind::Pose {
                    phase,
                    key,
                    seed_degrees,
                } => {
                    def.phases[*phase]
                        .pose
                        .insert(key.clone(), seed_degrees + v * f.range);
                }
                ParamKind::Duration { phase, seed } => {
                    def.phases[*phase].duration = seed * f.duration_factor.powf(v);
                }
                ParamKind::Gain { phase, joint, kd } => {
                    let e = def.phases[*phase]
                        .gains
                        .entry(joint.clone())
                        .or_insert((1.0, 1.0));
                    let m = f.gain_factor.powf(v);
                    if *kd {
                        e.1 *= m;
                    } else {
                        e.0 *= m;
                    }
                }
                ParamKind::LandingOffset => {
                    def.landing.offset += v * f.landing.map(|l| l.0).unwrap_or(0.0)
                }
                ParamKind::LandingGain => {
                    def.landing.velocity_gain += v * f.landing.map(|l| l.1).unwrap_or(0.0)
                }
                ParamKind::WorldPitch {
                    phase,
                    body,
                    seed_degrees,
                } => {
                    def.phases[*phase]
                        .world
                        .insert(body.clone(), seed_degrees + v * f.world_range);
                }
                ParamKind::FootPlacementCd => {
                    def.foot_placement.cd += v * f.foot_placement.map(|g| g.0).unwrap_or(0.0)
                }
                ParamKind::FootPlacementCv => {
                    def.foot_placement.cv += v * f.foot_placement.map(|g| g.1).unwrap_or(0.0)
                }
                ParamKind::ShapeRatio { group } => {
                    ratios[*group] = ratio_from_normalized(v);
                }
            }
        }
        let character = if self.shape_mode {
            let ratios: Vec<f64> = ratios.iter().map(|&r| f64::from(r)).collect();
            shape::scale_links(&self.character, &self.def.shape_groups, &ratios)
        } else {
            self.character.clone()
        };
        (def, character)
    }

    /// Normalized box: every coordinate in [−1, 1].
    pub fn bounds(&self) -> crate::optim::Bounds {
        let n = self.dimension();
        crate::optim::Bounds::new(vec![-1.0; n], vec![1.0; n]).expect("non-empty box")
    }

    /// Human-readable name of parameter `k`.
    pub fn param_label(&self, k: usize) -> String {
        let phase = |i: usize| self.def.controller.phases[i].name.clone();
        match &self.params[k] {
            ParamKind::Pose { phase: p, key, .. } => format!("{}.{key}", phase(*p)),
            ParamKind::Duration { phase: p, .. } => format!("{}.duration", phase(*p)),
            ParamKind::Gain {
                phase: p,
                joint,
                kd,
            } => format!("{}.{joint}.{}", phase(*p), if *kd { "kd" } else { "kp" }),
            ParamKind::LandingOffset => "landing.offset".into(),
            ParamKind::LandingGain => "landing.velocity_gain".into(),
            ParamKind::WorldPitch { phase: p, body, .. } => format!("{}.world.{body}", phase(*p)),
            ParamKind::FootPlacementCd => "foot_placement.cd".into(),
            ParamKind::FootPlacementCv => "foot_placement.cv".into(),
            ParamKind::ShapeRatio { group } => {
                format!("shape.{}", self.def.shape_groups[*group].join("+"))
            }
        }
    }
}

/// Shape ratio r for a normalized coordinate: −1 → 0.4, 0 → 1, 1 → 2.5 (log-linear pieces).
pub fn ratio_from_normalized(v: f32) -> f32 {
    let (lo, hi) = (shape::RATIO_RANGE.0 as f32, shape::RATIO_RANGE.1 as f32);
    if v < 0.0 { lo.powf(-v) } else { hi.powf(v) }
}

#[cfg(test)]
mod seed_tests;
#[cfg(test)]
mod tests;
