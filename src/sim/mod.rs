//! Rigid-body simulation of a character on raw rapier3d (no Bevy).
//!
//! See docs/simulation.md; the PD actuation modes follow Agrawal et al. 2014, §5 and §7.
//! - Reduced coordinates: one multibody joint per model joint. A universal joint's two angles and
//!   a ball joint's three are Euler angles (the patched rapier's, vendor/rapier3d PATCHES.md 5–6:
//!   the first axis fixed in the parent, each next one carried by the rotations before it), so
//!   every degree of freedom has its own limit and motor, as a chain of hinges would, without the
//!   1 g virtual links such a chain needs. A joint's `armature` adds actuator inertia to its
//!   degrees of freedom.
//! - One solver substep of 8 sweeps per step, friction also solved in the stabilization pass
//!   (issue P5's measurements: standing feet stay within 0.5 mm over 10 s).
//! - PD in three modes: `Implicit` uses rapier's joint motors with `MotorModel::ForceBased`
//!   (stiffness N·m/rad, damping N·m·s/rad, max force = torque limit), stable at 120 Hz;
//!   `Explicit` computes τ = clamp(kp(θ* − θ) − kd θ̇, ±τ_max) each step and applies it as equal
//!   and opposite torques on child and parent (needs a small step: 4 kHz by default);
//!   `Stable` integrates the PD law implicitly in the multibody's step (stable PD, Tan et al.
//!   2011) without rapier's motor constraint rows (1.47× the steps per second of `Implicit` for
//!   the standing human).
//! - Characters do not collide with themselves; every body collides with the ground.
//! - A snapshot clones the whole physics state (bodies, joints, islands, broad and narrow phase
//!   with contact caches), so a restored simulation continues bit-identically.
//! - A blow-up (NaN or runaway velocity) stops the simulation with a [`Failure`], never a panic.

mod actuation;
pub mod bench;
mod controller;
mod hash;
pub mod impulse_joints;
mod placement;
mod rollout;
pub(crate) mod world;

use actuation::AxisFrame;
pub use actuation::Dof;
pub use controller::{Controller, HoldPose};
pub use rollout::{Push, Rollout, RolloutSpec, TrajectoryHasher, continue_rollout, run_rollout};
/// A model body's collider and reference-pose placement, for geometric queries outside the
/// simulation (the editor's interpenetration lint).
pub(crate) use world::{body_collider, body_pose as reference_body_pose};

use crate::model::{Character, EffectorTag, RootKind};
use rapier3d::math::{Pose, Rotation, Vector};
use rapier3d::prelude::*;
use serde::{Deserialize, Serialize};

/// How PD control is applied.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, Default)]
pub enum PdMode {
    /// Joint motors solved implicitly by rapier (ForceBased): large steps are stable.
    #[default]
    Implicit,
    /// Torques computed from the state at the start of each step (paper-faithful; small steps).
    Explicit,
    /// Stable PD (Tan, Liu and Turk 2011, "Stable Proportional-Derivative Controllers", §3) in
    /// reduced coordinates: the PD law is integrated by backward Euler inside the multibody's
    /// own step (kp as an implicit joint spring, dt²·kp and dt·kd on the mass matrix's
    /// diagonal), so it is stable at 120 Hz without a constraint row per degree of freedom.
    Stable,
}

#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct GroundSettings {
    /// Effective Coulomb friction between the character and the ground.
    pub friction: f32,
    /// Effective restitution between the character and the ground.
    pub restitution: f32,
}

impl Default for GroundSettings {
    fn default() -> Self {
        GroundSettings {
            friction: 0.8,
            restitution: 0.0,
        }
    }
}

/// A static box on the ground (jump onto, jump over): centre relative to the ground surface
/// below the character, and half extents, m.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct Obstacle {
    pub center: [f32; 3],
    pub half_extents: [f32; 3],
}

#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct SimSettings {
    /// Time step in seconds (default 1/120).
    pub dt: f32,
    pub pd: PdMode,
    pub ground: GroundSettings,
    /// Multiplies every kp and kd (0 switches actuation off).
    pub gain_scale: f32,
    /// Multiplies every torque limit (supernatural strength, Agrawal et al. 2014, §7.2).
    pub strength_scale: f32,
    /// rapier substeps per step (default 1). Each substep after the first rebuilds and factors
    /// every multibody mass matrix again; one substep of 8 sweeps runs 1.6× as many steps per
    /// second as 2 of 8, and with friction solved in the stabilization pass standing feet stay
    /// within 0.5 mm over 10 s either way (measured for issue P5, docs/results.md "Physics speed").
    pub solver_iterations: usize,
    /// Projected Gauss–Seidel sweeps per substep (default 8).
    #[serde(default = "default_pgs_iterations")]
    pub pgs_iterations: usize,
    /// A body faster than this (m/s) ends the simulation as diverged.
    pub max_linear_speed: f32,
    /// A body spinning faster than this (rad/s) ends the simulation as diverged.
    pub max_angular_speed: f32,
}

impl Default for SimSettings {
    fn default() -> Self {
        SimSettings {
            dt: 1.0 / 120.0,
            pd: PdMode::Implicit,
            ground: GroundSettings::default(),
            gain_scale: 1.0,
            strength_scale: 1.0,
            solver_iterations: 1,
            pgs_iterations: default_pgs_iterations(),
            max_linear_speed: 100.0,
            max_angular_speed: 400.0,
        }
    }
}

fn default_pgs_iterations() -> usize {
    8
}

impl SimSettings {
    /// Default settings for a PD mode: 120 Hz implicit; 4 kHz explicit (the paper used 3.9 kHz:
    /// explicit PD on light distal links is stable only for dt < 2·I/kd).
    pub fn for_mode(pd: PdMode) -> Self {
        let dt = match pd {
            PdMode::Implicit | PdMode::Stable => 1.0 / 120.0,
            PdMode::Explicit => 1.0 / 4000.0,
        };
        SimSettings {
            dt,
            pd,
            ..Default::default()
        }
    }
}

#[derive(Debug, thiserror::Error)]
pub enum SimError {
    #[error("character {name:?} is invalid: {problems}")]
    InvalidCharacter { name: String, problems: String },
    #[error("invalid simulation settings: {0}")]
    InvalidSettings(String),
    #[error("rapier refused joint {0:?} (is the joint tree valid?)")]
    JointRejected(String),
}

/// Why a simulated character counts as fallen ([`Simulation::fall_cause`]).
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum FallCause {
    /// A body that bears no weight (model body index) touched the ground.
    Touch { body: usize },
    /// The centre of mass came down to this height above the ground (m), below the threshold.
    Low { height: f32 },
}

impl FallCause {
    /// In words, with `character`'s body names: `l_hand on the ground`, `centre of mass down
    /// to 0.45 m`.
    pub fn describe(&self, character: &Character) -> String {
        match *self {
            FallCause::Touch { body } => match character.bodies.get(body) {
                Some(b) => format!("{} on the ground", b.name),
                None => format!("body {body} on the ground"),
            },
            FallCause::Low { height } => format!("centre of mass down to {height:.2} m"),
        }
    }
}

/// Why a simulation stopped early.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub enum Failure {
    /// A body's state became NaN or infinite.
    NonFinite { time: f32, body: String },
    /// A body moved or spun faster than the configured limits.
    RunawayVelocity { time: f32, body: String, speed: f32 },
}

impl std::fmt::Display for Failure {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Failure::NonFinite { time, body } => {
                write!(f, "state of {body:?} became non-finite at t = {time:.3} s")
            }
            Failure::RunawayVelocity { time, body, speed } => {
                write!(f, "{body:?} ran away at t = {time:.3} s (speed {speed:.1})")
            }
        }
    }
}

/// Everything rapier needs between steps; cloning it is a complete snapshot.
#[derive(Clone)]
struct PhysicsState {
    islands: IslandManager,
    broad_phase: DefaultBroadPhase,
    narrow_phase: NarrowPhase,
    bodies: RigidBodySet,
    colliders: ColliderSet,
    impulse_joints: ImpulseJointSet,
    multibody_joints: MultibodyJointSet,
    ccd_solver: CCDSolver,
}

/// The complete state of a [`Simulation`] at one instant.
#[derive(Clone)]
pub struct Snapshot {
    physics: PhysicsState,
    time: f64,
    steps: u64,
    targets: Vec<f32>,
    torques: Vec<f32>,
    feedforward: Vec<f32>,
    target_rates: Vec<f32>,
    pushes: Vec<(usize, Vector, u32)>,
    failure: Option<Failure>,
    gain_multipliers: Vec<(f32, f32)>,
    gravity: f32,
}

/// Poses and contacts of every model body at one instant.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Frame {
    pub time: f32,
    /// Per body: position (x, y, z) then orientation quaternion (x, y, z, w).
    pub poses: Vec<[f32; 7]>,
    pub com: [f32; 3],
    /// Number of contact points with the ground, per body.
    pub contacts: Vec<u16>,
    /// Joint torque per degree of freedom, N·m (in implicit mode, the PD torque the motor
    /// applies, estimated from the state at the end of the step: rapier does not report it).
    pub torques: Vec<f32>,
}

/// A character in a physics world with a ground.
pub struct Simulation {
    character: Character,
    settings: SimSettings,
    pipeline: PhysicsPipeline,
    params: IntegrationParameters,
    state: PhysicsState,
    /// Rigid body of each model body, in model order.
    bodies: Vec<RigidBodyHandle>,
    colliders: Vec<ColliderHandle>,
    ground: ColliderHandle,
    /// Static boxes (jump onto, jump over); they count as ground for contacts.
    obstacles: Vec<ColliderHandle>,
    ground_height: f32,
    dofs: Vec<Dof>,
    targets: Vec<f32>,
    torques: Vec<f32>,
    /// Feedforward torque per degree of freedom (N·m), added to the PD torque.
    feedforward: Vec<f32>,
    /// Target rate per degree of freedom (rad/s) of the PD's damping term, kd·(θ̇* − θ̇).
    target_rates: Vec<f32>,
    /// Pending pushes: body, force, remaining steps.
    pushes: Vec<(usize, Vector, u32)>,
    time: f64,
    steps: u64,
    failure: Option<Failure>,
    reference_com_height: f32,
    /// Per body: a foot or a `weight_bearing` body, allowed on the ground.
    bears_weight: Vec<bool>,
    /// Per degree of freedom: multipliers of kp and kd set by a controller (phase-specific gains).
    gain_multipliers: Vec<(f32, f32)>,
    /// Per joint: child body index and the anchor in the child's frame.
    joint_anchors: Vec<(usize, Vector)>,
    /// Vertical acceleration of gravity, m/s² (−9.81 unless a controller changes it: the
    /// supernatural assist of Agrawal 2015, thesis §4.3.3).
    gravity: f32,
}

const CHARACTER_GROUP: Group = Group::GROUP_2;
const GROUND_GROUP: Group = Group::GROUP_1;

/// A character-file vector (f64) as a simulation vector (f32).
pub fn model_vec(v: [f64; 3]) -> Vector {
    Vector::new(v[0] as f32, v[1] as f32, v[2] as f32)
}

pub fn to_vec(v: [f32; 3]) -> Vector {
    Vector::new(v[0], v[1], v[2])
}

impl Simulation {
    pub fn character(&self) -> &Character {
        &self.character
    }

    pub fn settings(&self) -> &SimSettings {
        &self.settings
    }

    pub fn dofs(&self) -> &[Dof] {
        &self.dofs
    }

    pub fn time(&self) -> f64 {
        self.time
    }

    pub fn steps(&self) -> u64 {
        self.steps
    }

    pub fn failure(&self) -> Option<&Failure> {
        self.failure.as_ref()
    }

    /// Vertical acceleration of gravity, m/s² (negative: down).
    pub fn gravity(&self) -> f32 {
        self.gravity
    }

    /// Sets the vertical acceleration of gravity for the coming steps (m/s², negative: down;
    /// positive values pull upwards). A non-finite value is ignored.
    pub fn set_gravity(&mut self, g: f32) {
        if g.is_finite() {
            self.gravity = g;
        }
    }

    pub fn ground_height(&self) -> f32 {
        self.ground_height
    }

    /// Height of the centre of mass above the ground in the reference pose.
    pub fn reference_com_height(&self) -> f32 {
        self.reference_com_height
    }

    /// PD targets in radians, one per degree of freedom (0 is the reference pose).
    pub fn targets(&self) -> &[f32] {
        &self.targets
    }

    pub fn set_targets(&mut self, targets: &[f32]) {
        let n = self.targets.len().min(targets.len());
        self.targets[..n].copy_from_slice(&targets[..n]);
    }

    /// Feedforward torques (N·m), one per degree of freedom, added to the PD torques from the
    /// next step on (a motion's inverse-dynamics torques, so the PD loop only corrects errors);
    /// missing entries are 0. Each total is clamped to the degree of freedom's torque limit.
    pub fn set_feedforward(&mut self, torques: &[f32]) {
        for (i, t) in self.feedforward.iter_mut().enumerate() {
            *t = torques
                .get(i)
                .copied()
                .filter(|t| t.is_finite())
                .unwrap_or(0.0);
        }
    }

    /// Target rates (rad/s), one per degree of freedom, for the PD's damping term from the next
    /// step on: τ = kp(θ* − θ) + kd(θ̇* − θ̇), so a tracked motion's own speed is not damped
    /// (0, the default, damps all motion); missing entries are 0.
    pub fn set_target_rates(&mut self, rates: &[f32]) {
        for (i, r) in self.target_rates.iter_mut().enumerate() {
            *r = rates
                .get(i)
                .copied()
                .filter(|r| r.is_finite())
                .unwrap_or(0.0);
        }
    }

    /// Changes gain and strength scales while running (the GUI's gain multiplier).
    pub fn set_scales(&mut self, gain_scale: f32, strength_scale: f32) {
        self.settings.gain_scale = gain_scale.max(0.0);
        self.settings.strength_scale = strength_scale.max(0.0);
        self.apply_motor_settings();
    }

    /// Per-DOF multipliers of kp and kd (phase-specific gains, Agrawal et al. 2014, §6); missing
    /// entries are 1. Takes effect at the next step.
    pub fn set_gain_multipliers(&mut self, kp: &[f32], kd: &[f32]) {
        for (i, m) in self.gain_multipliers.iter_mut().enumerate() {
            let (p, d) = (
                kp.get(i).copied().unwrap_or(1.0),
                kd.get(i).copied().unwrap_or(1.0),
            );
            if !(p.is_finite() && d.is_finite()) {
                // Handed to the solver, an infinite or NaN gain poisons the state: end the run.
                self.failure.get_or_insert(Failure::NonFinite {
                    time: self.time as f32,
                    body: format!("gain multiplier of {}", self.dofs[i].name),
                });
                return;
            }
            *m = (p.max(0.0), d.max(0.0));
        }
    }

    /// Effective (kp, kd) of degree of freedom `i` now: model gains × gain scale × multipliers.
    pub fn effective_gains(&self, i: usize) -> (f32, f32) {
        let d = &self.dofs[i];
        let (mp, md) = self.gain_multipliers[i];
        let gs = self.settings.gain_scale;
        (d.kp * gs * mp, d.kd * gs * md)
    }

    /// World direction of degree of freedom `i`'s hinge axis.
    pub fn dof_axis_world(&self, i: usize) -> [f32; 3] {
        self.world_axis(&self.dofs[i]).to_array()
    }

    /// World position of model joint `j`'s anchor.
    pub fn joint_anchor_world(&self, j: usize) -> [f32; 3] {
        let (c, local) = self.joint_anchors[j];
        self.state.bodies[self.bodies[c]]
            .position()
            .transform_point(local)
            .to_array()
    }

    /// Velocity of the whole-body centre of mass.
    pub fn com_velocity(&self) -> [f32; 3] {
        let mut v = Vector::ZERO;
        let mut m = 0.0;
        for (b, h) in self.character.bodies.iter().zip(&self.bodies) {
            let rb = &self.state.bodies[*h];
            v += rb.velocity_at_point(rb.center_of_mass()) * b.mass as f32;
            m += b.mass as f32;
        }
        (v / m).to_array()
    }

    /// Torque applied on each degree of freedom during the last step, N·m.
    pub fn torques(&self) -> &[f32] {
        &self.torques
    }

    /// Whether the last torque on each degree of freedom reached its limit.
    pub fn saturation(&self) -> Vec<f32> {
        self.dofs
            .iter()
            .zip(&self.torques)
            .map(|(d, t)| {
                let lim = d.torque_limit * self.settings.strength_scale;
                if lim > 0.0 {
                    (t.abs() / lim).min(1.0)
                } else {
                    0.0
                }
            })
            .collect()
    }

    /// Pushes `body` (model index) with an impulse (N·s), delivered as a constant force over
    /// `duration` seconds (at least one step).
    pub fn push(&mut self, body: usize, impulse: [f32; 3], duration: f32) {
        if body >= self.bodies.len() {
            return;
        }
        let steps = ((duration / self.settings.dt).round() as u32).max(1);
        let force = to_vec(impulse) / (steps as f32 * self.settings.dt);
        if !(force.x.is_finite() && force.y.is_finite() && force.z.is_finite()) {
            // Handed to the solver, a NaN force panics inside rapier: end the run instead.
            self.failure.get_or_insert(Failure::NonFinite {
                time: self.time as f32,
                body: format!("push on {}", self.character().bodies[body].name),
            });
            return;
        }
        self.pushes.push((body, force, steps));
    }

    /// Advances one time step. Does nothing once the simulation has failed. A non-finite PD
    /// target ends the simulation with [`Failure::NonFinite`] (naming the degree of freedom)
    /// instead of being handed to the solver.
    pub fn step(&mut self) {
        if self.failure.is_some() {
            return;
        }
        if let Some(i) = self.targets.iter().position(|t| !t.is_finite()) {
            self.failure = Some(Failure::NonFinite {
                time: self.time as f32,
                body: format!("target of {}", self.dofs[i].name),
            });
            return;
        }
        let explicit = self.settings.pd == PdMode::Explicit;
        for h in self.bodies.iter() {
            if let Some(rb) = self.state.bodies.get_mut(*h) {
                // rapier keeps a torque once added: `reset_forces` clears forces only.
                rb.reset_forces(false);
                rb.reset_torques(false);
            }
        }
        if explicit {
            self.apply_explicit_torques();
        } else if self.settings.pd == PdMode::Stable {
            self.apply_stable_pd();
            self.apply_feedforward_torques();
        } else {
            self.apply_motor_settings();
            self.apply_feedforward_torques();
        }
        for (body, force, remaining) in self.pushes.iter_mut() {
            let h = self.bodies[*body];
            self.state.bodies[h].add_force(*force, true);
            *remaining -= 1;
        }
        self.pushes.retain(|p| p.2 > 0);

        let st = &mut self.state;
        let pipeline = &mut self.pipeline;
        let params = &self.params;
        let gravity = self.gravity;
        // A state that diverges within one step (an ill-conditioned character) can make the
        // physics solver panic on its NaNs; that ends the simulation as a failure instead.
        let stepped = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            pipeline.step(
                Vector::new(0.0, gravity, 0.0),
                params,
                &mut st.islands,
                &mut st.broad_phase,
                &mut st.narrow_phase,
                &mut st.bodies,
                &mut st.colliders,
                &mut st.impulse_joints,
                &mut st.multibody_joints,
                &mut st.ccd_solver,
                &(),
                &(),
            )
        }));
        if stepped.is_err() {
            self.failure = Some(Failure::NonFinite {
                time: self.time as f32,
                body: "the physics solver's state".into(),
            });
            return;
        }
        self.steps += 1;
        self.time = self.steps as f64 * self.settings.dt as f64;

        if !explicit {
            // Estimate the motor torque from the end-of-step state (the implicit PD law).
            let (q, qd) = self.dof_state();
            let gs = self.settings.gain_scale;
            let ss = self.settings.strength_scale;
            for (i, d) in self.dofs.iter().enumerate() {
                let lim = d.torque_limit * ss;
                let (mp, md) = self.gain_multipliers[i];
                self.torques[i] = (d.kp * gs * mp * (self.targets[i] - q[i])
                    + d.kd * gs * md * (self.target_rates[i] - qd[i]))
                    .clamp(-lim, lim);
            }
        }
        self.failure = self.check_health();
    }

    fn check_health(&self) -> Option<Failure> {
        let t = self.time as f32;
        for (b, h) in self.character.bodies.iter().zip(&self.bodies) {
            let rb = &self.state.bodies[*h];
            let (p, v, w) = (rb.translation(), rb.linvel(), rb.angvel());
            if !(p.is_finite() && v.is_finite() && w.is_finite() && rb.rotation().is_finite()) {
                return Some(Failure::NonFinite {
                    time: t,
                    body: b.name.clone(),
                });
            }
            if v.length() > self.settings.max_linear_speed {
                return Some(Failure::RunawayVelocity {
                    time: t,
                    body: b.name.clone(),
                    speed: v.length(),
                });
            }
            if w.length() > self.settings.max_angular_speed {
                return Some(Failure::RunawayVelocity {
                    time: t,
                    body: b.name.clone(),
                    speed: w.length(),
                });
            }
        }
        None
    }

    /// World pose of model body `i`: position and quaternion (x, y, z, w).
    pub fn body_pose(&self, i: usize) -> [f32; 7] {
        let p = self.state.bodies[self.bodies[i]].position();
        let (t, r) = (p.translation, p.rotation);
        [t.x, t.y, t.z, r.x, r.y, r.z, r.w]
    }

    pub fn body_velocity(&self, i: usize) -> ([f32; 3], [f32; 3]) {
        let rb = &self.state.bodies[self.bodies[i]];
        (rb.linvel().to_array(), rb.angvel().to_array())
    }

    /// Whole-body centre of mass (model bodies only).
    pub fn com(&self) -> [f32; 3] {
        let mut c = Vector::ZERO;
        let mut m = 0.0;
        for (b, h) in self.character.bodies.iter().zip(&self.bodies) {
            c += self.state.bodies[*h].center_of_mass() * b.mass as f32;
            m += b.mass as f32;
        }
        (c / m).to_array()
    }

    /// Adds a static box (centre relative to the ground surface, half extents in metres) with
    /// the ground's friction and restitution. Contacts with it count as ground contacts.
    pub fn add_obstacle(&mut self, center: [f32; 3], half_extents: [f32; 3]) {
        let st = &mut self.state;
        let body = st
            .bodies
            .insert(RigidBodyBuilder::fixed().translation(Vector::new(
                center[0],
                center[1] + self.ground_height,
                center[2],
            )));
        let h = st.colliders.insert_with_parent(
            world::ground_collider(half_extents, &self.settings.ground),
            body,
            &mut st.bodies,
        );
        self.obstacles.push(h);
    }

    fn ground_colliders(&self) -> impl Iterator<Item = ColliderHandle> + '_ {
        std::iter::once(self.ground).chain(self.obstacles.iter().copied())
    }

    /// Whether any model body touches one of the obstacles (not the ground plane).
    pub fn touches_obstacle(&self) -> bool {
        self.colliders.iter().any(|c| {
            self.obstacles
                .iter()
                .filter_map(|g| self.state.narrow_phase.contact_pair(*g, *c))
                .any(|pair| {
                    pair.manifolds
                        .iter()
                        .any(|m| m.points.iter().any(|p| p.dist <= 1e-3))
                })
        })
    }

    /// Number of contact points between each model body and the ground (or an obstacle).
    pub fn contacts(&self) -> Vec<u16> {
        self.colliders
            .iter()
            .map(|c| {
                self.ground_colliders()
                    .filter_map(|g| self.state.narrow_phase.contact_pair(g, *c))
                    .map(|pair| {
                        pair.manifolds
                            .iter()
                            .map(|m| m.points.iter().filter(|p| p.dist <= 1e-3).count())
                            .sum::<usize>() as u16
                    })
                    .sum()
            })
            .collect()
    }

    /// World positions of the ground contact points of every body, with the body index.
    pub fn contact_points(&self) -> Vec<(usize, [f32; 3])> {
        let mut out = Vec::new();
        for (i, c) in self.colliders.iter().enumerate() {
            for g in self.ground_colliders() {
                if let Some(pair) = self.state.narrow_phase.contact_pair(g, *c) {
                    let swap = pair.collider1 != g;
                    let co = &self.state.colliders[*c];
                    for m in &pair.manifolds {
                        for p in m.points.iter().filter(|p| p.dist <= 1e-3) {
                            let local = if swap { p.local_p1 } else { p.local_p2 };
                            out.push((i, co.position().transform_point(local).to_array()));
                        }
                    }
                }
            }
        }
        out
    }

    /// A character has fallen when a body other than a foot (or a body its file lists as
    /// `weight_bearing`) touches the ground, or its centre of mass has dropped below half of its
    /// reference height.
    pub fn has_fallen(&self) -> bool {
        self.fall_cause().is_some()
    }

    /// Why the character has fallen ([`Self::has_fallen`]), if it has.
    pub fn fall_cause(&self) -> Option<FallCause> {
        self.fall_cause_below(0.5)
    }

    /// Like [`Self::has_fallen`] with the centre-of-mass threshold as a fraction of its reference
    /// height (jump tasks land in deep squats, so they use a lower one).
    pub fn has_fallen_below(&self, fraction: f32) -> bool {
        self.fall_cause_below(fraction).is_some()
    }

    /// Like [`Self::fall_cause`] with the threshold of [`Self::has_fallen_below`]. A body on the
    /// ground is named before a low centre of mass: it is what a viewer sees.
    pub fn fall_cause_below(&self, fraction: f32) -> Option<FallCause> {
        let touching = self
            .contacts()
            .iter()
            .zip(&self.bears_weight)
            .position(|(n, foot)| *n > 0 && !foot);
        if let Some(body) = touching {
            return Some(FallCause::Touch { body });
        }
        let height = self.com()[1] - self.ground_height;
        (height < fraction * self.reference_com_height).then_some(FallCause::Low { height })
    }

    pub fn frame(&self) -> Frame {
        Frame {
            time: self.time as f32,
            poses: (0..self.bodies.len()).map(|i| self.body_pose(i)).collect(),
            com: self.com(),
            contacts: self.contacts(),
            torques: self.torques.clone(),
        }
    }

    pub fn snapshot(&self) -> Snapshot {
        Snapshot {
            physics: self.state.clone(),
            time: self.time,
            steps: self.steps,
            targets: self.targets.clone(),
            torques: self.torques.clone(),
            feedforward: self.feedforward.clone(),
            target_rates: self.target_rates.clone(),
            pushes: self.pushes.clone(),
            failure: self.failure.clone(),
            gain_multipliers: self.gain_multipliers.clone(),
            gravity: self.gravity,
        }
    }

    /// Restores a snapshot taken from this simulation (same character and settings).
    pub fn restore(&mut self, s: &Snapshot) {
        self.state = s.physics.clone();
        self.time = s.time;
        self.steps = s.steps;
        self.targets = s.targets.clone();
        self.torques = s.torques.clone();
        self.feedforward = s.feedforward.clone();
        self.target_rates = s.target_rates.clone();
        self.pushes = s.pushes.clone();
        self.failure = s.failure.clone();
        self.gain_multipliers = s.gain_multipliers.clone();
        self.gravity = s.gravity;
        // The pipeline keeps only scratch buffers; a fresh one makes restore independent of them.
        self.pipeline = PhysicsPipeline::new();
        self.apply_motor_settings();
    }
}

#[cfg(test)]
mod physics_tests;
#[cfg(test)]
mod tests;
