//! Phase-based pose controllers: a finite-state machine whose phases hold PD target poses.
//!
//! After Agrawal et al. 2014, §6 (controller, free parameters) and Agrawal 2015, thesis §4.3.1:
//! - A phase ends after its time Δt_i (`After`) or on an event: `Liftoff` (no body touches the
//!   ground), `Apex` (airborne and the centre of mass stops rising) or `Touchdown` (a body touches
//!   the ground after being airborne). Event phases also end at a timeout of `timeout` seconds.
//!   An extension beyond the paper's events: `Rotation(deg)` ends a phase once the root has
//!   turned that far about the world z axis since the controller started (a flip opens its tuck
//!   at a turned angle rather than after a fixed time, which makes the landing robust to
//!   take-off variations); its duration is predicted from the current pitch rate.
//! - Within phase i the target moves linearly from Ω_{i−1} to Ω_i over the phase's predicted
//!   duration: Δt_i for timed phases; ballistic predictions for `Apex` (v_y / g) and `Touchdown`
//!   (time for the centre of mass to fall back to its standing height); `duration` otherwise.
//!   A phase with `step: true` (the jump's *extend*) jumps straight to Ω_i.
//! - World-frame targets (stance links): a body's pitch about the world z axis is tracked through
//!   its parent joint; the root's orientation through the hips of the legs in contact
//!   (SIMBICON-style, the stance hip acts on the pelvis). The orientation error rotation vector is
//!   projected onto each joint axis, so U-joints also hold the body upright sideways.
//! - Balance (jump start and end phases): a virtual force F = kp (c_support − c) − kd ċ
//!   (horizontal) on the centre of mass, realised by Jacobian transpose on the stance legs,
//!   τ_j = −a_j · ((c − p_j) × F), and added to the PD targets as τ_j / kp_j (Coros et al. 2010).
//! - Landing (2D falling phase): the hips aim the legs so the feet land ahead of the centre of
//!   mass by `offset + velocity_gain · v_x`, i.e. where the centre of mass is predicted to pass
//!   through the ground plus a linear function of horizontal velocity.
//! - Walks: `swap_sides` mirrors a phase's pose onto the other leg, `loop_to` repeats phases, and
//!   SIMBICON foot placement adds cd·d + cv·v to the swing hip (d: COM ahead of the stance ankle).
//!
//! Poses name degrees of freedom as `joint` or `joint.axis`. A name that is not a joint but has
//! `l_` and `r_` joints (`hip` → `l_hip`, `r_hip`) sets both: sagittal axes take the same value,
//! axes that a left–right mirror reverses (e.g. abduction about x) take the opposite value on the
//! right. Angles in files are degrees.

use super::Controller;
use super::phase_def::mirror_map;
pub use super::phase_def::*;
use crate::model::{Character, EffectorTag};
use crate::sim::Simulation;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

use crate::model::rotation::{GRAVITY as G, pitch_about_z, pose_rotation, rotation_vector};

/// A phase resolved against a character.
#[derive(Clone, Debug)]
struct Phase {
    def: PhaseDef,
    /// Full target vector Ω_i (radians, one per DOF).
    target: Vec<f32>,
    /// World pitch targets: body index → radians.
    world: Vec<(usize, f32)>,
    kp_mult: Vec<f32>,
    kd_mult: Vec<f32>,
}

/// One completed or current phase in a rollout.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct PhaseRecord {
    pub index: usize,
    pub name: String,
    pub start: f32,
    pub end: Option<f32>,
    /// The phase ended by timeout rather than by its event.
    pub timed_out: bool,
}

/// The running controller.
#[derive(Clone, Debug)]
pub struct PhaseController {
    phases: Vec<Phase>,
    start_target: Vec<f32>,
    def: PhaseControllerDef,
    current: usize,
    phase_start: f32,
    predicted: f32,
    airborne_seen: bool,
    /// Measured joint angles when a `from_current` phase began.
    entry_pose: Option<Vec<f32>>,
    /// Root pitch about world z: last wrapped value and the unwrapped total since the start.
    root_pitch: Option<(f32, f32)>,
    pub log: Vec<PhaseRecord>,
    finished: bool,
    /// Joints leading from the root to each foot: (foot body, joints root → foot).
    legs: Vec<(usize, Vec<usize>)>,
    root: usize,
    limits: Vec<(f32, f32)>,
    /// DOFs of each joint.
    joint_dofs: Vec<Vec<usize>>,
    step_count: u64,
}

fn body_pitch(q: [f32; 7]) -> f32 {
    pitch_about_z(pose_rotation(q))
}

fn wrap(a: f32) -> f32 {
    let t = std::f32::consts::TAU;
    (a + std::f32::consts::PI).rem_euclid(t) - std::f32::consts::PI
}

fn quat_from_z(angle: f32) -> [f32; 4] {
    [0.0, 0.0, (angle / 2.0).sin(), (angle / 2.0).cos()]
}

/// Rotation vector of q_a · q_b⁻¹ (world frame).
fn rotation_error(target: [f32; 4], current: [f32; 4]) -> [f32; 3] {
    let inv = [-current[0], -current[1], -current[2], current[3]];
    rotation_vector(crate::model::quat_mul(target, inv))
}

fn dot(a: [f32; 3], b: [f32; 3]) -> f32 {
    a[0] * b[0] + a[1] * b[1] + a[2] * b[2]
}

fn cross(a: [f32; 3], b: [f32; 3]) -> [f32; 3] {
    [
        a[1] * b[2] - a[2] * b[1],
        a[2] * b[0] - a[0] * b[2],
        a[0] * b[1] - a[1] * b[0],
    ]
}

/// Why a phase controller definition does not fit its character.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
pub enum ControllerError {
    #[error("a phase controller needs at least one phase")]
    NoPhases,
    #[error("loop_to {loop_to} is past the last phase ({last})")]
    LoopPastEnd { loop_to: usize, last: usize },
    #[error("start_pose: {0}")]
    StartPose(DofError),
    #[error("phase {index} ({name:?}): {problem}")]
    Phase {
        index: usize,
        name: String,
        problem: PhaseProblem,
    },
    #[error("root body missing")]
    NoRoot,
}

/// What is wrong with one phase of a controller.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
pub enum PhaseProblem {
    #[error("expected a positive duration, found {0}")]
    Duration(f32),
    #[error("expected a positive timeout, found {0}")]
    Timeout(f32),
    #[error(transparent)]
    Pose(#[from] DofError),
    #[error("world target names unknown body {0:?}")]
    UnknownBody(String),
    #[error("gain multipliers for {0:?} must be non-negative")]
    NegativeGains(String),
    #[error("gains name {0:?}, which is not a joint")]
    UnknownGainJoint(String),
}

impl PhaseController {
    pub fn new(c: &Character, def: &PhaseControllerDef) -> Result<Self, ControllerError> {
        if def.phases.is_empty() {
            return Err(ControllerError::NoPhases);
        }
        if let Some(l) = def.loop_to {
            if l >= def.phases.len() {
                return Err(ControllerError::LoopPastEnd {
                    loop_to: l,
                    last: def.phases.len() - 1,
                });
            }
        }
        let n = c.internal_dof();
        let mirror = mirror_map(c);
        let apply = |base: &Vec<f32>,
                     pose: &BTreeMap<String, f32>,
                     swap: bool|
         -> Result<Vec<f32>, DofError> {
            let mut t = base.clone();
            // Pair names (`hip`: both `l_hip` and `r_hip`) first, so that a side's own name
            // always wins, whatever the keys' alphabetical order.
            let mut keys: Vec<(&String, &f32, Vec<(usize, f32)>)> = Vec::new();
            for (k, v) in pose {
                keys.push((k, v, resolve_dofs(c, k)?));
            }
            keys.sort_by_key(|(k, _, _)| !is_pair_name(c, k));
            for (_, v, dofs) in keys {
                for (i, s) in dofs {
                    let (i, s) = if swap {
                        (mirror[i].0, s * mirror[i].1)
                    } else {
                        (i, s)
                    };
                    t[i] = (v * s).to_radians();
                }
            }
            Ok(t)
        };
        let start_target =
            apply(&vec![0.0; n], &def.start_pose, false).map_err(ControllerError::StartPose)?;
        let mut phases = Vec::new();
        let mut prev = start_target.clone();
        for (pi, p) in def.phases.iter().enumerate() {
            let ctx = |problem: PhaseProblem| ControllerError::Phase {
                index: pi,
                name: p.name.clone(),
                problem,
            };
            if !(p.duration > 0.0 && p.duration.is_finite()) {
                return Err(ctx(PhaseProblem::Duration(p.duration)));
            }
            if !(p.timeout > 0.0) {
                return Err(ctx(PhaseProblem::Timeout(p.timeout)));
            }
            // A swapped phase mirrors its own pose; it starts from the previous target mirrored.
            let base = if p.swap_sides {
                mirror_vec(&prev, &mirror)
            } else {
                prev.clone()
            };
            let target = apply(&base, &p.pose, false).map_err(|e| ctx(e.into()))?;
            let target = if p.swap_sides {
                mirror_vec(&target, &mirror)
            } else {
                target
            };
            let mut world = Vec::new();
            for (b, deg) in &p.world {
                // A swapped phase tracks the mirrored body (l_ ↔ r_).
                let name = match (p.swap_sides, b.strip_prefix("l_"), b.strip_prefix("r_")) {
                    (true, Some(rest), _) => format!("r_{rest}"),
                    (true, _, Some(rest)) => format!("l_{rest}"),
                    _ => b.clone(),
                };
                let bi = c
                    .body_index(&name)
                    .ok_or_else(|| ctx(PhaseProblem::UnknownBody(b.clone())))?;
                world.push((bi, deg.to_radians()));
            }
            let (mut kp_mult, mut kd_mult) = (vec![1.0; n], vec![1.0; n]);
            for (k, (mp, md)) in &p.gains {
                if !(*mp >= 0.0 && *md >= 0.0) {
                    return Err(ctx(PhaseProblem::NegativeGains(k.clone())));
                }
                let joints: Vec<&str> = if c.joints.iter().any(|j| j.name == *k) {
                    vec![k.as_str()]
                } else {
                    vec![]
                };
                let sel: Vec<String> = if joints.is_empty() {
                    vec![format!("l_{k}"), format!("r_{k}")]
                } else {
                    vec![k.clone()]
                };
                let mut found = false;
                for jn in sel {
                    for (i, name) in c.dof_names().iter().enumerate() {
                        if *name == jn || name.starts_with(&format!("{jn}.")) {
                            kp_mult[i] = *mp;
                            kd_mult[i] = *md;
                            found = true;
                        }
                    }
                }
                if !found {
                    return Err(ctx(PhaseProblem::UnknownGainJoint(k.clone())));
                }
            }
            prev = target.clone();
            phases.push(Phase {
                def: p.clone(),
                target,
                world,
                kp_mult,
                kd_mult,
            });
        }
        let root = c.body_index(&c.root.body).ok_or(ControllerError::NoRoot)?;
        let mut legs = Vec::new();
        for e in c.effectors(EffectorTag::Foot) {
            let Some(mut b) = c.body_index(&e.body) else {
                continue;
            };
            let mut chain = Vec::new();
            while b != root {
                let Some(ji) = c.joints.iter().position(|j| j.child == c.bodies[b].name) else {
                    break;
                };
                chain.push(ji);
                b = c.body_index(&c.joints[ji].parent).unwrap_or(root);
            }
            chain.reverse();
            legs.push((c.body_index(&e.body).unwrap(), chain));
        }
        let mut limits = Vec::new();
        let mut joint_dofs = vec![Vec::new(); c.joints.len()];
        for (ji, j) in c.joints.iter().enumerate() {
            for k in 0..j.kind.dof() {
                let (lo, hi) = j.limits.get(k).copied().unwrap_or((-180.0, 180.0));
                joint_dofs[ji].push(limits.len());
                limits.push(((lo as f32).to_radians(), (hi as f32).to_radians()));
            }
        }
        Ok(PhaseController {
            phases,
            start_target,
            def: def.clone(),
            current: 0,
            phase_start: 0.0,
            predicted: def.phases[0].duration,
            airborne_seen: false,
            entry_pose: None,
            root_pitch: None,
            log: vec![PhaseRecord {
                index: 0,
                name: def.phases[0].name.clone(),
                start: 0.0,
                end: None,
                timed_out: false,
            }],
            finished: false,
            legs,
            root,
            limits,
            joint_dofs,
            step_count: 0,
        })
    }

    /// The full target Ω_i of phase `i` (radians per DOF).
    pub fn phase_target(&self, i: usize) -> &[f32] {
        &self.phases[i].target
    }

    pub fn current_phase(&self) -> usize {
        self.current
    }

    /// Whether the last phase has ended (never, for looping controllers).
    pub fn finished(&self) -> bool {
        self.finished
    }

    /// Target of the current phase at normalized time `s` in [0, 1] (linear interpolation from
    /// the previous phase's target; a `step` phase is at its target at once).
    pub fn interpolated_target(&self, s: f32) -> Vec<f32> {
        let p = &self.phases[self.current];
        let from = if self.current == 0 {
            &self.start_target
        } else {
            &self.phases[self.current - 1].target
        };
        let from: Vec<f32> = if let Some(e) = &self.entry_pose {
            e.clone()
        } else if self.current == 0 && self.log.len() > 1 {
            // Looping back: start from the last phase's target.
            self.phases.last().unwrap().target.clone()
        } else {
            from.clone()
        };
        if p.def.step || self.finished {
            return p.target.clone();
        }
        let s = s.clamp(0.0, 1.0);
        from.iter()
            .zip(&p.target)
            .map(|(a, b)| a + (b - a) * s)
            .collect()
    }

    fn predict_duration(&self, sim: &Simulation, phase: usize) -> f32 {
        let p = &self.phases[phase].def;
        let v = sim.com_velocity();
        let h = sim.com()[1] - sim.ground_height();
        // Ballistic predictions under the gravity of the moment (the Pareto jump's assist
        // lowers it after take-off); at least 1 m/s² so an upward pull predicts the timeout.
        let g = (-sim.gravity()).max(1.0);
        match p.end {
            Transition::After | Transition::Liftoff | Transition::FootContact => p.duration,
            Transition::Apex => (v[1] / g).clamp(0.02, p.timeout),
            Transition::Touchdown => {
                let drop = (h - sim.reference_com_height()).max(0.0);
                ((v[1] + (v[1] * v[1] + 2.0 * g * drop).sqrt()) / g).clamp(0.02, p.timeout)
            }
            Transition::Rotation(deg) => {
                let w = sim.body_velocity(self.root).1[2];
                let left = deg.to_radians() - self.root_pitch.map(|r| r.1).unwrap_or(0.0);
                if w.abs() > 1e-3 && left * w > 0.0 {
                    (left / w).clamp(0.02, p.timeout)
                } else {
                    p.duration
                }
            }
        }
    }

    fn enter(&mut self, sim: &Simulation, next: usize, t: f32, timed_out: bool) {
        if let Some(r) = self.log.last_mut() {
            r.end = Some(t);
            r.timed_out = timed_out;
        }
        self.current = next;
        self.phase_start = t;
        self.entry_pose = if self.phases[next].def.from_current {
            Some(sim.dof_state().0)
        } else {
            None
        };
        self.predicted = self.predict_duration(sim, next);
        if self.phases[next].def.end == Transition::Touchdown {
            self.airborne_seen = false;
        }
        self.log.push(PhaseRecord {
            index: next,
            name: self.phases[next].def.name.clone(),
            start: t,
            end: None,
            timed_out: false,
        });
    }

    /// Accumulates the root's pitch about world z (unwrapped across ±180°).
    fn track_root_pitch(&mut self, sim: &Simulation) {
        let a = body_pitch(sim.body_pose(self.root));
        self.root_pitch = Some(match self.root_pitch {
            None => (a, 0.0),
            Some((last, total)) => (a, total + angle_step(last, a)),
        });
    }

    fn advance(&mut self, sim: &Simulation) {
        if self.finished {
            return;
        }
        let t = sim.time() as f32;
        let elapsed = t - self.phase_start;
        let p = &self.phases[self.current].def;
        let per_body = sim.contacts();
        let contacts: u32 = per_body.iter().map(|&n| n as u32).sum();
        let airborne = contacts == 0;
        if airborne {
            self.airborne_seen = true;
        }
        let (done, timed_out) = match p.end {
            Transition::After => (elapsed >= p.duration - 1e-6, false),
            // Airborne and rising, so a foot skimming the ground does not count as a take-off.
            Transition::Liftoff => (airborne && sim.com_velocity()[1] > 0.2, false),
            Transition::Apex => (airborne && sim.com_velocity()[1] <= 0.0, false),
            Transition::Touchdown => (self.airborne_seen && !airborne, false),
            Transition::FootContact => {
                let prefix = swing_side(p.swap_sides);
                let swing = self
                    .legs
                    .iter()
                    .find(|(f, _)| sim.character().bodies[*f].name.starts_with(prefix));
                (
                    elapsed >= 0.05 && swing.is_some_and(|(f, _)| per_body[*f] > 0),
                    false,
                )
            }
            Transition::Rotation(deg) => {
                let turned = self.root_pitch.map(|r| r.1).unwrap_or(0.0);
                (
                    if deg >= 0.0 {
                        turned >= deg.to_radians()
                    } else {
                        turned <= deg.to_radians()
                    },
                    false,
                )
            }
        };
        let timed_out = timed_out || (!done && p.end != Transition::After && elapsed >= p.timeout);
        if done || timed_out {
            let next = self.current + 1;
            if next < self.phases.len() {
                self.enter(sim, next, t, timed_out);
            } else if let Some(l) = self.def.loop_to {
                self.enter(sim, l, t, timed_out);
            } else {
                if let Some(r) = self.log.last_mut() {
                    r.end = Some(t);
                    r.timed_out = timed_out;
                }
                self.finished = true;
            }
        }
    }

    /// Stance feet: foot body indices touching the ground, with their leg chains.
    fn stance_legs<'a>(&'a self, contacts: &[u16]) -> Vec<&'a (usize, Vec<usize>)> {
        self.legs.iter().filter(|(f, _)| contacts[*f] > 0).collect()
    }
}

/// Walks: the name prefix of the swing leg's bodies in a foot-placement phase (unswapped
/// phases swing the right leg).
fn swing_prefix(p: &PhaseDef) -> Option<&'static str> {
    p.foot_placement.then_some(swing_side(p.swap_sides))
}

/// Name prefix of the swing leg: the right leg in unswapped phases, the left in swapped ones.
fn swing_side(swap_sides: bool) -> &'static str {
    if swap_sides { "l_" } else { "r_" }
}

/// The signed change from angle `from` to angle `to` (radians), wrapped into [−π, π): summing
/// these unwraps an angle across ±180°.
pub fn angle_step(from: f32, to: f32) -> f32 {
    (to - from + std::f32::consts::PI).rem_euclid(std::f32::consts::TAU) - std::f32::consts::PI
}

fn mirror_vec(v: &[f32], mirror: &[(usize, f32)]) -> Vec<f32> {
    let mut out = v.to_vec();
    for (i, &(k, s)) in mirror.iter().enumerate() {
        out[k] = v[i] * s;
    }
    out
}

impl Controller for PhaseController {
    fn update(&mut self, sim: &Simulation, targets: &mut [f32]) {
        self.track_root_pitch(sim);
        if self.step_count > 0 {
            self.advance(sim);
        }
        self.step_count += 1;
        let elapsed = sim.time() as f32 - self.phase_start;
        let s = if self.predicted > 0.0 {
            elapsed / self.predicted
        } else {
            1.0
        };
        let mut t = self.interpolated_target(s);
        let phase = &self.phases[self.current];
        let (q, qd) = sim.dof_state();
        let contacts = sim.contacts();

        // World-frame targets: the PD acts on the body's world orientation and world angular
        // velocity. The joint motor computes kp (t − q) − kd q̇, so the target that yields the
        // world-frame torque is t = q + e·a ∓ (kd/kp)(ω·a ∓ q̇).
        for &(body, pitch) in &phase.world {
            let pose = sim.body_pose(body);
            let cur = [pose[3], pose[4], pose[5], pose[6]];
            let e = rotation_error(quat_from_z(pitch), cur);
            let (_, w) = sim.body_velocity(body);
            if body == self.root {
                // Walks (SIMBICON): the stance hip is the one the phase names, whether or not
                // the swing foot still touches the ground; otherwise the legs in contact.
                let legs: Vec<&(usize, Vec<usize>)> = match swing_prefix(&phase.def) {
                    Some(prefix) => self
                        .legs
                        .iter()
                        .filter(|(f, _)| !sim.character().bodies[*f].name.starts_with(prefix))
                        .collect(),
                    None => self.stance_legs(&contacts),
                };
                for (_, chain) in legs {
                    let Some(&hip) = chain.first() else { continue };
                    for &d in &self.joint_dofs[hip] {
                        let a = sim.dof_axis_world(d);
                        let (kp, kd) = sim.effective_gains(d);
                        let damp = if kp > 0.0 {
                            kd / kp * (dot(w, a) + qd[d])
                        } else {
                            0.0
                        };
                        t[d] = q[d] - dot(e, a) + damp;
                    }
                }
            } else if let Some(ji) = sim
                .character()
                .joints
                .iter()
                .position(|j| j.child == sim.character().bodies[body].name)
            {
                for &d in &self.joint_dofs[ji] {
                    let a = sim.dof_axis_world(d);
                    let (kp, kd) = sim.effective_gains(d);
                    let damp = if kp > 0.0 {
                        kd / kp * (qd[d] - dot(w, a))
                    } else {
                        0.0
                    };
                    t[d] = q[d] + dot(e, a) + damp;
                }
            }
        }

        // Jacobian-transpose balance on the stance legs.
        if phase.def.balance {
            let stance = self.stance_legs(&contacts);
            if !stance.is_empty() {
                let c = sim.com();
                let v = sim.com_velocity();
                let mut support = [0.0f32; 3];
                for (f, _) in &stance {
                    let p = sim.body_pose(*f);
                    support[0] += p[0];
                    support[2] += p[2];
                }
                support[0] /= stance.len() as f32;
                support[2] /= stance.len() as f32;
                let b = self.def.balance;
                let fy = match phase.def.support {
                    Some(frac) => {
                        let h = c[1] - sim.ground_height();
                        let m = sim.character().total_mass() as f32;
                        (m * G + b.kp_y * (frac * sim.reference_com_height() - h) - b.kd_y * v[1])
                            .max(0.0)
                    }
                    None => 0.0,
                };
                let f = [
                    b.kp * (support[0] - c[0]) - b.kd * v[0],
                    fy,
                    b.kp * (support[2] - c[2]) - b.kd * v[2],
                ];
                let n = stance.len() as f32;
                let f = [f[0] / n, f[1] / n, f[2] / n];
                let max = if phase.def.support.is_some() {
                    2.0 * b.max_offset
                } else {
                    b.max_offset
                }
                .to_radians();
                for (_, chain) in &stance {
                    for &ji in chain {
                        let pj = sim.joint_anchor_world(ji);
                        let r = [c[0] - pj[0], c[1] - pj[1], c[2] - pj[2]];
                        let m = cross(r, f);
                        for &d in &self.joint_dofs[ji] {
                            let tau = -dot(sim.dof_axis_world(d), m);
                            let (kp, _) = sim.effective_gains(d);
                            if kp > 0.0 {
                                t[d] += (tau / kp).clamp(-max, max);
                            }
                        }
                    }
                }
            }
        }

        // Landing: aim the legs so the feet land ahead of the centre of mass.
        if phase.def.landing {
            let v = sim.com_velocity();
            let root_pose = sim.body_pose(self.root);
            let pelvis = wrap(body_pitch(root_pose));
            let l = self.def.landing;
            let ahead = l.offset + l.velocity_gain * v[0];
            for (_, chain) in &self.legs {
                if chain.len() < 2 {
                    continue;
                }
                let hip = self.joint_dofs[chain[0]][0];
                // Leg length along the chain (hip → last joint) in the reference pose.
                let a0 = sim.character().joints[chain[0]].anchor.map(|x| x as f32);
                let an = sim.character().joints[*chain.last().unwrap()]
                    .anchor
                    .map(|x| x as f32);
                let leg = ((an[0] - a0[0]).powi(2) + (an[1] - a0[1]).powi(2)).sqrt();
                // Angle of hip → ankle relative to the thigh for the current knee target.
                let alpha = if chain.len() >= 3 {
                    let knee = self.joint_dofs[chain[1]][0];
                    let a1 = sim.character().joints[chain[1]].anchor.map(|x| x as f32);
                    let l1 = ((a1[0] - a0[0]).powi(2) + (a1[1] - a0[1]).powi(2)).sqrt();
                    let l2 = ((an[0] - a1[0]).powi(2) + (an[1] - a1[1]).powi(2)).sqrt();
                    let k = t[knee];
                    (l2 * k.sin()).atan2(l1 + l2 * k.cos())
                } else {
                    0.0
                };
                let phi = ahead.atan2(leg.max(0.1));
                t[hip] = phi - alpha - pelvis;
            }
        }

        // SIMBICON foot placement on the swing hip.
        if phase.def.foot_placement {
            let swing_left = phase.def.swap_sides; // unswapped phases swing the right leg
            let c = sim.com();
            let v = sim.com_velocity();
            let fp = self.def.foot_placement;
            let stance_foot = self.legs.iter().find(|(f, _)| {
                sim.character().bodies[*f]
                    .name
                    .starts_with(if swing_left { "r_" } else { "l_" })
            });
            let swing = self.legs.iter().find(|(f, _)| {
                sim.character().bodies[*f]
                    .name
                    .starts_with(if swing_left { "l_" } else { "r_" })
            });
            if let (Some((sf, _)), Some((_, chain))) = (stance_foot, swing) {
                let p = sim.body_pose(*sf);
                if let Some(&hip) = chain.first() {
                    let d = c[0] - p[0];
                    let dofs = &self.joint_dofs[hip];
                    t[dofs[0]] += fp.cd * d + fp.cv * v[0];
                    if dofs.len() > 1 {
                        // Lateral: abduction about x; moving the foot toward +z needs a negative
                        // rotation about x on a downward leg.
                        let dz = c[2] - p[2];
                        let (cd, cv) = fp.lateral.unwrap_or((fp.cd, fp.cv));
                        t[dofs[1]] -= cd * dz + cv * v[2];
                    }
                }
            }
        }

        for (i, v) in t.iter().enumerate() {
            let (lo, hi) = self.limits[i];
            targets[i] = v.clamp(lo, hi);
        }
    }

    fn gain_multipliers(&self) -> Option<(&[f32], &[f32])> {
        let p = &self.phases[self.current];
        Some((&p.kp_mult, &p.kd_mult))
    }
}
