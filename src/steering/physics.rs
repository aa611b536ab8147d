//! Physics playback of a steered motion: the Rapier-simulated character tracks the poses the
//! steering controller ([`crate::steering::Controller`]) plays, through the one stepping loop
//! ([`crate::sim::Simulation::step_controlled`]).
//!
//! - **Start:** the simulation starts at rest in the played pose, where the controller places
//!   it and facing its way ([`crate::sim::Simulation::set_configuration`]).
//! - **Targets:** every joint's PD target is the played pose's coordinate, and the PD's damping
//!   aims at the played joint rates (kd(θ̇* − θ̇), [`crate::sim::Simulation::set_target_rates`]):
//!   damping towards rest opposed a swinging hip with up to kd·θ̇ = 100 N·m·s × 4 rad/s, more
//!   than its torque limit.
//! - **Feedforward:** the played clip's joint torques ([`Output::torques`]: the gait solution's
//!   inverse dynamics, Wampler 2012, §3.2.3) are added to the PD torques, so the PD loop corrects
//!   errors instead of carrying the body's weight.
//! - **Balance** ([`super::balance`]): SIMBICON's feedback on the simulated body's deviation
//!   from the played one: where a swinging leg steps, how the planted ankles lean, and the
//!   torque the planted hips put on the pelvis.
//! - **Contacts:** the contact solver runs [`CONTACT_SWEEPS`] projected Gauss–Seidel sweeps,
//!   not the simulation's default 8. At 8 the result depends on the order the contact
//!   constraints are solved in, which follows where the bodies are in the world: the same
//!   standing human placed facing east and facing west differs by 0.026 rad at an ankle after one
//!   step (facing north, where the turn is nearly exact in floating point, by 0.010), and a
//!   straight walk stayed up in the five directions around east and fell in the nine around
//!   west (after 5–16 s). At 32 sweeps the difference is 0.002 rad and a walk's fate no longer
//!   depends on its direction; a step costs about 1.4 times as much.
//! - **Reference:** the kinematic controller's place in the world follows the simulated pelvis
//!   (position and heading, by a spring), so its choices steer the body that exists. The feet
//!   it holds on the ground move with it ([`Controller::follow`]): left where they were, the
//!   foot locks' IK bent the legs towards the old place, the simulated body tracked that lean,
//!   the reference followed it further, and even standing fell (at 10 s).
//!
//! The character falls when a body other than a foot touches the ground or its centre of mass
//! drops below half its standing height ([`crate::sim::Simulation::has_fallen`]).

use super::balance::{BalanceGains, Feedback, Leg, LegOffsets, Reference, legs};
use crate::model::Character;
use crate::model::planar::PlanarMotion;
use crate::sim::{Controller as SimController, FallCause, SimSettings, Simulation};
use crate::steering::script::{SteerTrace, StickScript, face_first_key, run_script};
use crate::steering::{Controller, Output};

/// Projected Gauss–Seidel sweeps of the contact solver in physics playback (see the module
/// docs): at the simulation's default of 8 the solution depends on the order of the contact
/// constraints, which follows the bodies' places in the world, and a walk's fate on its direction.
pub const CONTACT_SWEEPS: usize = 32;

/// The simulation settings of physics playback: the defaults with [`CONTACT_SWEEPS`].
pub fn playback_settings() -> SimSettings {
    SimSettings {
        pgs_iterations: CONTACT_SWEEPS,
        ..SimSettings::default()
    }
}

/// The PD targets of one step.
struct Targets {
    joints: Vec<f32>,
}

impl SimController for Targets {
    fn update(&mut self, _sim: &Simulation, targets: &mut [f32]) {
        for (t, v) in targets.iter_mut().zip(&self.joints) {
            *t = *v;
        }
    }
}

/// What a tracked run measured.
#[derive(Clone, Debug)]
pub struct TrackingReport {
    /// The kinematic controller's run (heading, speed, slides of the played motion).
    pub trace: SteerTrace,
    /// When the simulated character fell, if it did.
    pub fell_at: Option<f64>,
    /// What ended it, in words (a body on the ground, the centre of mass down, the simulation
    /// diverged), when it fell.
    pub fell_by: Option<String>,
    /// RMS difference of the simulated and played joint coordinates while up (rad).
    pub joint_error: f64,
    /// Mean absolute difference of the same coordinates over the same steps (rad): the mean
    /// joint error, which the RMS bounds from above.
    pub joint_mean_error: f64,
    /// Mean horizontal distance of the simulated pelvis from the played one while up (m).
    pub root_error: f64,
    /// Candidates the look-ahead played (0 without one).
    pub rollouts: usize,
    /// Times the guard's rescue played a noisy future of the tracker instead of a plan that
    /// fell ([`super::rescue`]).
    pub rescues: usize,
    /// Of those, the times it stopped the body, every other future falling (the guard's
    /// `brake`).
    pub brakes: usize,
    /// Steps the guard's futures played ahead, all together (0 without the guard).
    pub ahead_steps: usize,
}

/// The simulated character tracking a controller, one played pose at a time (what the
/// scripted runs and the app's physics mode step).
pub struct PhysicsPlayback {
    pub sim: Simulation,
    legs: Vec<Leg>,
    pub gains: BalanceGains,
    root: usize,
    targets: Vec<f32>,
    /// Simulated seconds.
    time: f64,
    /// When it fell, if it did (simulated seconds).
    pub fell_at: Option<f64>,
    /// Why it fell ([`Self::fall_description`]); `None` with `fell_at` set: the simulation
    /// stopped ([`Simulation::failure`]).
    pub fall_cause: Option<FallCause>,
    joint_sq: f64,
    joint_abs: f64,
    joint_n: usize,
    root_sum: f64,
    root_n: usize,
    /// The played motion at the last step, moved with the reference's place.
    last_played: Option<Played>,
    /// The played joint coordinates at the last step, and its time (for the target rates).
    last_joints: Option<(Vec<f64>, f64)>,
    /// What a look-ahead adds to the balance feedback (zero without one).
    pub offsets: LegOffsets,
    /// Open-loop corrections added to every joint's PD target (rad, per coordinate; empty:
    /// none): a SAMCON search's sample or its result ([`super::samcon`]).
    pub corrections: Vec<f32>,
}

/// Everything a [`PhysicsPlayback`] goes on from: a look-ahead saves it, plays candidates
/// forward and puts it back.
#[derive(Clone)]
pub struct PlaybackState {
    sim: crate::sim::Snapshot,
    time: f64,
    fell_at: Option<f64>,
    fall_cause: Option<FallCause>,
    sums: (f64, f64, usize, f64, usize),
    last_played: Option<Played>,
    last_joints: Option<(Vec<f64>, f64)>,
    offsets: LegOffsets,
    corrections: Vec<f32>,
}

/// The played centre of mass and pelvis orientation at a step (world), and the step's time.
#[derive(Clone, Copy)]
struct Played {
    com: [f64; 3],
    pelvis: nalgebra::UnitQuaternion<f64>,
    time: f64,
}

impl PhysicsPlayback {
    /// A simulation of the controller's character, at rest in the controller's current pose
    /// (its place and facing).
    pub fn new(controller: &mut Controller, gains: BalanceGains) -> anyhow::Result<Self> {
        let character = controller.graph.character.clone();
        let mut sim = Simulation::new(&character, playback_settings())?;
        let root = character
            .body_index(&character.root.body)
            .expect("validated character");
        // The simulated body starts at rest in the played pose (its place and its facing).
        let pose = controller.pose();
        let joints: Vec<f32> = pose.joints.iter().map(|&x| x as f32).collect();
        sim.set_configuration(pose.root.map(|x| x as f32), &joints);
        let start = sim.body_pose(root);
        controller.place_root(start[0] as f64, start[2] as f64);
        Ok(Self {
            legs: legs(&character),
            sim,
            gains,
            root,
            targets: Vec::new(),
            time: 0.0,
            fell_at: None,
            fall_cause: None,
            joint_sq: 0.0,
            joint_abs: 0.0,
            joint_n: 0,
            root_sum: 0.0,
            root_n: 0,
            last_played: None,
            last_joints: None,
            offsets: LegOffsets::default(),
            corrections: Vec::new(),
        })
    }

    /// The simulation at the start of `script`: the controller faces the script's first key (so
    /// the simulated body starts facing it too) and the body stands at rest in its pose; with
    /// `moving`, the controller's intent is already at the script's first stick and the body
    /// moves as the played motion does there ([`Self::start_moving`]).
    pub fn start(
        controller: &mut Controller,
        script: &StickScript,
        gains: BalanceGains,
        moving: bool,
    ) -> anyhow::Result<Self> {
        face_first_key(controller, script);
        if moving {
            controller.settle_intent(&script.stick_at(0.0));
        }
        let mut physics = Self::new(controller, gains)?;
        if moving {
            physics.start_moving(controller);
        }
        Ok(physics)
    }

    /// Sets the simulated body moving as the played motion does at the controller's current
    /// frame (the pelvis's velocity and spin and every joint's rate, by finite differences to
    /// the next frame), so that a trial can start in the middle of a gait.
    pub fn start_moving(&mut self, controller: &Controller) {
        let now = controller.pose();
        let (next, dt) = controller.next_pose();
        if dt <= 0.0 {
            return;
        }
        let linear = [0, 1, 2].map(|k| ((next.root[k] - now.root[k]) / dt) as f32);
        let turn = crate::clip::pose::quat_of(&next.root)
            * crate::clip::pose::quat_of(&now.root).inverse();
        let spin = turn.scaled_axis() / dt;
        let rates: Vec<f32> = now
            .joints
            .iter()
            .zip(&next.joints)
            .map(|(a, b)| ((b - a) / dt) as f32)
            .collect();
        self.sim.set_velocities(
            linear,
            [spin.x as f32, spin.y as f32, spin.z as f32],
            &rates,
        );
    }

    /// The state to come back to after a look-ahead.
    pub fn save(&self) -> PlaybackState {
        PlaybackState {
            sim: self.sim.snapshot(),
            time: self.time,
            fell_at: self.fell_at,
            fall_cause: self.fall_cause,
            sums: (
                self.joint_sq,
                self.joint_abs,
                self.joint_n,
                self.root_sum,
                self.root_n,
            ),
            last_played: self.last_played,
            last_joints: self.last_joints.clone(),
            offsets: self.offsets,
            corrections: self.corrections.clone(),
        }
    }

    /// Feeds `h` the simulation's state ([`crate::sim::Simulation::hash_state`]) and what the
    /// next step's tracking reads of the last one: two playbacks that hash alike track alike.
    pub fn hash_state(&self, h: &mut impl std::hash::Hasher) {
        self.sim.hash_state(h);
        h.write_u64(self.time.to_bits());
        h.write_u8(self.fell_at.is_some() as u8);
        if let Some(p) = &self.last_played {
            h.write_u64(p.time.to_bits());
            for x in p.com.iter().chain(p.pelvis.coords.iter()) {
                h.write_u64(x.to_bits());
            }
        }
        if let Some((q, at)) = &self.last_joints {
            h.write_u64(at.to_bits());
            for x in q {
                h.write_u64(x.to_bits());
            }
        }
        let o = &self.offsets;
        for x in [
            o.swing_flexion,
            o.swing_abduction,
            o.ankle_pitch,
            o.ankle_roll,
            o.trunk_pitch,
            o.trunk_roll,
        ] {
            h.write_u64(x.to_bits());
        }
        for x in &self.corrections {
            h.write_u32(x.to_bits());
        }
    }

    /// Back to a saved state.
    pub fn restore(&mut self, s: &PlaybackState) {
        self.sim.restore(&s.sim);
        self.time = s.time;
        self.fell_at = s.fell_at;
        self.fall_cause = s.fall_cause;
        (
            self.joint_sq,
            self.joint_abs,
            self.joint_n,
            self.root_sum,
            self.root_n,
        ) = s.sums;
        self.last_played = s.last_played;
        self.last_joints = s.last_joints.clone();
        self.offsets = s.offsets;
        self.corrections.clone_from(&s.corrections);
    }

    /// Why the simulated character fell, in words with `character`'s body names (`None` while
    /// it is up).
    pub fn fall_description(&self, character: &Character) -> Option<String> {
        self.fell_at?;
        Some(match (&self.fall_cause, self.sim.failure()) {
            (Some(c), _) => c.describe(character),
            (None, Some(f)) => format!("the simulation stopped: {f}"),
            (None, None) => "fell".into(),
        })
    }

    /// The played motion's centre-of-mass velocity (world, m/s) from the last tracked step to
    /// `out` at time `t`, the reference's following of the body taken out: the clip's own
    /// travel, which the body should keep up with (zero before the second step).
    pub fn played_velocity(&self, t: f64, out: &Output) -> [f64; 3] {
        let character = self.sim.character();
        let bodies = crate::clip::pose::body_poses(character, &out.pose.root, &out.pose.joints);
        self.velocity_to(t, played_com(character, &bodies))
    }

    fn velocity_to(&self, t: f64, com: [f64; 3]) -> [f64; 3] {
        match self.last_played {
            Some(last) if t > last.time => {
                [0, 1, 2].map(|k| (com[k] - last.com[k]) / (t - last.time))
            }
            _ => [0.0; 3],
        }
    }

    /// The simulated pelvis's body index.
    pub fn root_body(&self) -> usize {
        self.root
    }

    /// An impulse (N·s, world) on the simulated pelvis.
    pub fn push(&mut self, impulse: [f64; 3]) {
        self.sim.push(
            self.root,
            [impulse[0] as f32, impulse[1] as f32, impulse[2] as f32],
            0.1,
        );
    }

    /// Simulates up to time `t` tracking `out` (the controller's pose now, a step of `dt`
    /// seconds after the last), then lets the controller's place and heading follow the
    /// simulated pelvis's ([`BalanceGains::following`]).
    pub fn track(&mut self, t: f64, out: &Output, controller: &mut Controller, dt: f64) {
        if self.fell_at.is_some() {
            return;
        }
        let character = &controller.graph.character;
        let bodies = crate::clip::pose::body_poses(character, &out.pose.root, &out.pose.joints);
        let com = played_com(character, &bodies);
        let pelvis = crate::clip::pose::quat_of(&bodies[self.root]);
        let velocity = self.velocity_to(t, com);
        let spin = match self.last_played {
            Some(last) if t > last.time => {
                (pelvis * last.pelvis.inverse()).scaled_axis() / (t - last.time)
            }
            _ => nalgebra::Vector3::zeros(),
        };
        let reference = Reference {
            com,
            velocity,
            spin,
            bodies,
        };
        let feedback = Feedback {
            sim: &self.sim,
            legs: &self.legs,
            out,
            gains: &self.gains,
            root: self.root,
            reference: &reference,
        };
        let mut joints = feedback.targets(&self.offsets);
        for (j, c) in joints.iter_mut().zip(&self.corrections) {
            *j += c;
        }
        let mut step = Targets { joints };
        let mut feedforward: Vec<f32> = out
            .torques
            .iter()
            .flatten()
            .map(|t| (self.gains.feedforward * t) as f32)
            .collect();
        feedforward.resize(self.sim.dofs().len(), 0.0);
        feedback.torso_torques(&mut feedforward);
        self.sim.set_feedforward(&feedforward);
        // The PD damps deviations from the played motion's rates, not the motion itself.
        let rates: Vec<f32> = match &self.last_joints {
            Some((last, at)) if t > *at && self.gains.rates > 0.0 => out
                .pose
                .joints
                .iter()
                .zip(last)
                .map(|(q, p)| (self.gains.rates * (q - p) / (t - at)).clamp(-30.0, 30.0) as f32)
                .collect(),
            _ => Vec::new(),
        };
        self.sim.set_target_rates(&rates);
        self.last_joints = Some((out.pose.joints.clone(), t));
        let h = self.sim.settings().dt as f64;
        while self.time + 0.5 * h < t {
            self.sim.step_controlled(&mut step, &mut self.targets);
            self.time += h;
        }
        let cause = self.sim.fall_cause();
        if cause.is_some() || self.sim.failure().is_some() {
            self.fell_at = Some(t);
            self.fall_cause = cause;
            return;
        }
        let (q, _) = self.sim.dof_state();
        for (a, b) in q.iter().zip(&out.pose.joints) {
            let e = *a as f64 - b;
            self.joint_sq += e * e;
            self.joint_abs += e.abs();
            self.joint_n += 1;
        }
        let p = self.sim.body_pose(self.root);
        let (dx, dz) = (
            p[0] as f64 - out.pose.root[0],
            p[2] as f64 - out.pose.root[2],
        );
        self.root_sum += (dx * dx + dz * dz).sqrt();
        self.root_n += 1;
        // The reference follows the simulated pelvis: its place, and its heading.
        let sim_root = p.map(|v| v as f64);
        let turn = crate::clip::pose::quat_of(&sim_root)
            * crate::clip::pose::quat_of(&out.pose.root).inverse();
        let forward = turn * nalgebra::Vector3::x();
        let yaw = (-forward.z).atan2(forward.x);
        let (place, heading) = self.gains.following(dt);
        let moved = controller.follow(
            &PlanarMotion {
                x: place * dx,
                z: place * dz,
                yaw: 0.0,
            },
            heading * yaw,
        );
        self.last_played = Some(Played {
            com: moved.apply_vec3(reference.com),
            pelvis: nalgebra::UnitQuaternion::from_axis_angle(
                &nalgebra::Vector3::y_axis(),
                moved.yaw,
            ) * pelvis,
            time: t,
        });
    }

    /// RMS difference of the simulated and played joint coordinates so far (rad), and the mean
    /// distance of the simulated pelvis from the played one (m).
    pub fn errors(&self) -> (f64, f64) {
        (
            (self.joint_sq / self.joint_n.max(1) as f64).sqrt(),
            self.root_sum / self.root_n.max(1) as f64,
        )
    }

    /// Mean absolute difference of the simulated and played joint coordinates so far (rad).
    pub fn joint_mean_error(&self) -> f64 {
        self.joint_abs / self.joint_n.max(1) as f64
    }
}

/// The centre of mass of a character's bodies placed at `bodies` (world poses).
fn played_com(character: &crate::model::Character, bodies: &[[f64; 7]]) -> [f64; 3] {
    let mass: f64 = character.bodies.iter().map(|b| b.mass).sum();
    let mut com = [0.0; 3];
    for (b, p) in character.bodies.iter().zip(bodies) {
        for k in 0..3 {
            com[k] += b.mass * p[k] / mass;
        }
    }
    com
}

/// Plays `script` through `controller` with the simulated character tracking it (see the
/// module docs); pushes of the script hit the simulated pelvis.
pub fn run_tracked(
    controller: &mut Controller,
    script: &StickScript,
) -> anyhow::Result<TrackingReport> {
    run_tracked_with(controller, script, BalanceGains::default(), |_| {})
}

/// What a run of physics playback shows its caller after every step of the script (to record
/// it, or to watch the guard's decisions).
pub struct Step<'a> {
    /// The script's time of the step (s).
    pub time: f64,
    pub physics: &'a PhysicsPlayback,
    pub controller: &'a Controller,
    /// The guard over transitions, when one plays.
    pub guard: Option<&'a super::guard::Guard>,
}

/// [`run_tracked`] with these gains; `on_step` sees every step ([`Step`]).
pub fn run_tracked_with(
    controller: &mut Controller,
    script: &StickScript,
    gains: BalanceGains,
    on_step: impl FnMut(&Step<'_>),
) -> anyhow::Result<TrackingReport> {
    run_tracked_planned(controller, script, gains, Planning::default(), on_step)
}

/// What physics playback plays ahead: the look-ahead's offsets to the balance feedback
/// ([`super::lookahead`]) and the guard over transitions ([`super::guard`]), each when given.
#[derive(Clone, Debug, Default)]
pub struct Planning {
    pub lookahead: Option<super::lookahead::LookaheadSettings>,
    pub guard: Option<super::guard::GuardSettings>,
    /// A SAMCON search's corrections, segment by segment, played open loop ([`super::samcon`]).
    pub corrections: Option<std::sync::Arc<super::samcon::SamconRun>>,
    /// A learned tracking policy's corrections, decided from the body's state
    /// ([`super::tracker`]).
    pub tracker: Option<std::sync::Arc<super::tracker::Tracker>>,
}

/// [`run_tracked_with`], with the look-ahead and the guard of `planning`.
pub fn run_tracked_planned(
    controller: &mut Controller,
    script: &StickScript,
    gains: BalanceGains,
    planning: Planning,
    on_step: impl FnMut(&Step<'_>),
) -> anyhow::Result<TrackingReport> {
    run_tracked_from(controller, script, gains, planning, false, on_step)
}

/// [`run_tracked_planned`]; with `moving`, the simulated body starts with the played motion's
/// velocities at the controller's frame ([`PhysicsPlayback::start_moving`]) instead of at rest.
pub fn run_tracked_from(
    controller: &mut Controller,
    script: &StickScript,
    gains: BalanceGains,
    planning: Planning,
    moving: bool,
    mut on_step: impl FnMut(&Step<'_>),
) -> anyhow::Result<TrackingReport> {
    let mut planner = planning.lookahead.map(super::lookahead::Lookahead::new);
    let mut guard = planning.guard.map(super::guard::Guard::new);
    let mut physics = PhysicsPlayback::start(controller, script, gains, moving)?;
    let dt = 1.0 / script.rate;
    let mut tracking = super::tracker::TrackerState::default();
    let trace = run_script(controller, script, |t, out, controller| {
        for p in script.pushes_due(t) {
            physics.push(p.impulse);
        }
        if let Some(run) = &planning.corrections {
            let step = (t * script.rate).round() as usize;
            physics.corrections = run
                .correction_at(step.saturating_sub(1))
                .map_or_else(Vec::new, <[f32]>::to_vec);
        }
        if let Some(tracker) = &planning.tracker {
            tracking.play(tracker, t, out, &mut physics);
        }
        if let Some(p) = &mut planner {
            let stick = script.stick_at(t);
            p.plan(t, out, &stick, dt, controller, &mut physics);
        }
        physics.track(t, out, controller, dt);
        if let Some(g) = &mut guard {
            let tracker = planning.tracker.as_deref().map(|p| (p, &mut tracking));
            g.check(
                t,
                &script.stick_at(t + dt),
                dt,
                tracker,
                controller,
                &mut physics,
            );
        }
        on_step(&Step {
            time: t,
            physics: &physics,
            controller,
            guard: guard.as_ref(),
        });
    });
    let (joint_error, root_error) = physics.errors();
    Ok(TrackingReport {
        trace,
        fell_at: physics.fell_at,
        fell_by: physics.fall_description(&controller.graph.character),
        joint_error,
        joint_mean_error: physics.joint_mean_error(),
        root_error,
        rollouts: planner.map_or(0, |p| p.rollouts) + guard.as_ref().map_or(0, |g| g.rollouts),
        rescues: guard.as_ref().map_or(0, |g| g.rescued),
        brakes: guard.as_ref().map_or(0, |g| g.brakes),
        ahead_steps: guard.map_or(0, |g| g.ahead_steps),
    })
}
