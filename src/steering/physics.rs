//! Physics playback of a steered motion: the Rapier-simulated character tracks the poses the
//! steering controller ([`crate::steering::Controller`]) plays, through the one stepping loop
//! ([`crate::sim::Simulation::step_controlled`]).
//!
//! - **Targets:** every joint's PD target is the played pose's coordinate.
//! - **Feedforward:** the played clip's joint torques ([`Output::torques`]: the gait solution's
//!   inverse dynamics, specs/004.md §3.2.3) are added to the PD torques, so the PD loop corrects
//!   errors instead of carrying the body's weight.
//! - **Balance** (after SIMBICON, Yin, Loken & van de Panne 2007): the hip of a leg in the air
//!   aims its flexion and abduction further by c_d·d + c_v·v, d and v the centre of mass's
//!   horizontal offset and velocity from the planted foot in the character's heading frame, so
//!   a step lands where it catches the fall; the trunk leans back towards upright through the
//!   planted hip.
//! - **Reference:** the kinematic controller's place in the world follows the simulated pelvis
//!   (position and heading, by a spring), so its choices steer the body that exists.
//!
//! The character falls when a body other than a foot touches the ground or its centre of mass
//! drops below half its standing height ([`crate::sim::Simulation::has_fallen`]).

use crate::model::EffectorTag;
use crate::model::planar::PlanarMotion;
use crate::sim::{Controller as SimController, SimSettings, Simulation};
use crate::steering::script::{ScriptPush, SteerTrace, StickScript, run_script};
use crate::steering::{Controller, Output};

/// Gains of the balance feedback.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct BalanceGains {
    /// rad per m of centre-of-mass offset.
    pub c_d: f64,
    /// rad per m/s of centre-of-mass velocity.
    pub c_v: f64,
    /// Fraction of the trunk's tilt the planted hip takes back.
    pub trunk: f64,
    /// Ankle strategy of the planted feet: rad per m of the centre of mass ahead of them, and per
    /// m/s.
    pub ankle_d: f64,
    pub ankle_v: f64,
    /// Half-life (s) with which the kinematic reference follows the simulated pelvis.
    pub follow: f64,
    /// Fraction of the played clip's joint torques applied as feedforward (0: PD and balance
    /// feedback alone).
    pub feedforward: f64,
}

impl Default for BalanceGains {
    fn default() -> Self {
        Self {
            c_d: 0.5,
            c_v: 0.2,
            trunk: 0.5,
            ankle_d: 1.5,
            ankle_v: 0.3,
            follow: 0.3,
            feedforward: 1.0,
        }
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
    /// RMS difference of the simulated and played joint coordinates while up (rad).
    pub joint_error: f64,
    /// Mean horizontal distance of the simulated pelvis from the played one while up (m).
    pub root_error: f64,
}

/// The legs: per foot effector, its index, the foot body and the hip's flexion (z) and
/// abduction (x) coordinates.
struct Leg {
    effector: usize,
    foot: usize,
    flexion: Option<usize>,
    abduction: Option<usize>,
    /// The ankle's pitch coordinate (about z).
    ankle: Option<usize>,
}

fn legs(c: &crate::model::Character) -> Vec<Leg> {
    let names = c.dof_names();
    c.end_effectors
        .iter()
        .enumerate()
        .filter(|(_, e)| e.tag == EffectorTag::Foot)
        .filter_map(|(k, e)| {
            // foot ← ankle ← shin ← knee ← thigh ← hip (a toe's parent is the foot).
            let up = |body: usize| c.joints.iter().position(|j| j.child == c.bodies[body].name);
            let mut foot = c.body_index(&e.body)?;
            if e.body.to_lowercase().contains("toe") {
                foot = c.body_index(&c.joints[up(foot)?].parent)?;
            }
            let shin = c.body_index(&c.joints[up(foot)?].parent)?;
            let thigh = c.body_index(&c.joints[up(shin)?].parent)?;
            let hip = &c.joints[up(thigh)?];
            let ankle = &c.joints[up(foot)?];
            let coordinate = |joint: &crate::model::Joint, axis: [f64; 3]| {
                let axes = joint.kind.axes();
                let k = axes.iter().position(|a| a == &axis)?;
                let name = if axes.len() == 1 {
                    joint.name.clone()
                } else {
                    format!("{}.{k}", joint.name)
                };
                names.iter().position(|n| *n == name)
            };
            Some(Leg {
                effector: k,
                foot,
                flexion: coordinate(hip, [0.0, 0.0, 1.0]),
                abduction: coordinate(hip, [1.0, 0.0, 0.0]),
                ankle: coordinate(ankle, [0.0, 0.0, 1.0]),
            })
        })
        .collect()
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
    joint_sq: f64,
    joint_n: usize,
    root_sum: f64,
    root_n: usize,
}

impl PhysicsPlayback {
    /// A simulation of the controller's character, standing in its reference pose, with the
    /// controller's place moved onto it.
    pub fn new(controller: &mut Controller, gains: BalanceGains) -> anyhow::Result<Self> {
        let character = controller.graph.character.clone();
        let sim = Simulation::new(&character, SimSettings::default())?;
        let root = character
            .body_index(&character.root.body)
            .expect("validated character");
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
            joint_sq: 0.0,
            joint_n: 0,
            root_sum: 0.0,
            root_n: 0,
        })
    }

    /// An impulse (N·s, world) on the simulated pelvis.
    pub fn push(&mut self, impulse: [f64; 3]) {
        self.sim.push(
            self.root,
            [impulse[0] as f32, impulse[1] as f32, impulse[2] as f32],
            0.1,
        );
    }

    /// Simulates up to time `t` tracking `out` (the controller's pose now), then lets the
    /// controller's place follow the simulated pelvis by `follow` (a fraction).
    pub fn track(&mut self, t: f64, out: &Output, controller: &mut Controller, follow: f64) {
        if self.fell_at.is_some() {
            return;
        }
        let joints = balanced_targets(&self.sim, &self.legs, out, &self.gains, self.root);
        let mut step = Targets { joints };
        let feedforward: Vec<f32> = out
            .torques
            .iter()
            .flatten()
            .map(|t| (self.gains.feedforward * t) as f32)
            .collect();
        self.sim.set_feedforward(&feedforward);
        let dt = self.sim.settings().dt as f64;
        while self.time + 0.5 * dt < t {
            self.sim.step_controlled(&mut step, &mut self.targets);
            self.time += dt;
        }
        if self.sim.has_fallen() || self.sim.failure().is_some() {
            self.fell_at = Some(t);
            return;
        }
        let (q, _) = self.sim.dof_state();
        for (a, b) in q.iter().zip(&out.pose.joints) {
            self.joint_sq += (*a as f64 - b).powi(2);
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
        controller.shift_world(&PlanarMotion {
            x: follow * dx,
            z: follow * dz,
            yaw: 0.0,
        });
        controller.turn_world(follow * yaw);
    }

    /// RMS difference of the simulated and played joint coordinates so far (rad), and the mean
    /// distance of the simulated pelvis from the played one (m).
    pub fn errors(&self) -> (f64, f64) {
        (
            (self.joint_sq / self.joint_n.max(1) as f64).sqrt(),
            self.root_sum / self.root_n.max(1) as f64,
        )
    }
}

/// Plays `script` through `controller` with the simulated character tracking it (see the
/// module docs); pushes of the script hit the simulated pelvis.
pub fn run_tracked(
    controller: &mut Controller,
    script: &StickScript,
) -> anyhow::Result<TrackingReport> {
    run_tracked_with(controller, script, BalanceGains::default(), |_, _| {})
}

/// [`run_tracked`] with these gains; `on_step` sees the time and the simulation after every
/// step of the script (to record it).
pub fn run_tracked_with(
    controller: &mut Controller,
    script: &StickScript,
    gains: BalanceGains,
    mut on_step: impl FnMut(f64, &PhysicsPlayback),
) -> anyhow::Result<TrackingReport> {
    let mut physics = PhysicsPlayback::new(controller, gains)?;
    let follow = 1.0 - (-std::f64::consts::LN_2 / (gains.follow * script.rate)).exp();
    let mut pushes: Vec<ScriptPush> = script.pushes.clone();
    pushes.sort_by(|a, b| a.time.total_cmp(&b.time));
    let trace = run_script(controller, script, |t, out, controller| {
        for p in pushes
            .iter()
            .filter(|p| p.time <= t && p.time > t - 1.0 / script.rate)
        {
            physics.push(p.impulse);
        }
        physics.track(t, out, controller, follow);
        on_step(t, &physics);
    });
    let (joint_error, root_error) = physics.errors();
    Ok(TrackingReport {
        trace,
        fell_at: physics.fell_at,
        joint_error,
        root_error,
    })
}

/// The played pose's coordinates with the balance feedback added (see the module docs).
fn balanced_targets(
    sim: &Simulation,
    legs: &[Leg],
    out: &Output,
    gains: &BalanceGains,
    root: usize,
) -> Vec<f32> {
    let mut q: Vec<f64> = out.pose.joints.clone();
    let com = sim.com();
    let v = sim.com_velocity();
    let heading = out.heading;
    // Forward and left of the heading, on the ground.
    let (fwd, left) = (
        [heading.yaw.cos(), -heading.yaw.sin()],
        [-heading.yaw.sin(), -heading.yaw.cos()],
    );
    let planted: Vec<&Leg> = legs
        .iter()
        .filter(|l| out.contacts.get(l.effector).copied().unwrap_or(false))
        .collect();
    if planted.is_empty() {
        return q.into_iter().map(|x| x as f32).collect();
    }
    // The centre of mass relative to the planted feet (their mean), along and across the heading.
    let mut support = [0.0, 0.0];
    for l in &planted {
        let f = sim.body_pose(l.foot);
        support[0] += f[0] as f64 / planted.len() as f64;
        support[1] += f[2] as f64 / planted.len() as f64;
    }
    let d = [com[0] as f64 - support[0], com[2] as f64 - support[1]];
    let (d_fwd, d_left) = (
        d[0] * fwd[0] + d[1] * fwd[1],
        d[0] * left[0] + d[1] * left[1],
    );
    let (v_fwd, v_left) = (
        v[0] as f64 * fwd[0] + v[2] as f64 * fwd[1],
        v[0] as f64 * left[0] + v[2] as f64 * left[1],
    );
    // Planted ankles push the centre of mass back over the feet (a larger ankle angle tips the
    // shin forward).
    for l in &planted {
        if let Some(k) = l.ankle {
            q[k] -= gains.ankle_d * d_fwd + gains.ankle_v * v_fwd;
        }
    }
    // A leg in the air aims its step where it catches the fall (SIMBICON): further forward when
    // the centre of mass runs ahead, further left when it drifts left (abduction about +x
    // swings a hanging leg towards −z, the character's left).
    for l in legs
        .iter()
        .filter(|l| !out.contacts.get(l.effector).copied().unwrap_or(false))
    {
        if let Some(k) = l.flexion {
            q[k] += gains.c_d * d_fwd + gains.c_v * v_fwd;
        }
        if let Some(k) = l.abduction {
            q[k] += gains.c_d * d_left + gains.c_v * v_left;
        }
    }
    // On one foot, the trunk's tilt (the root body's up axis off the played one's) is taken
    // back by the planted hip.
    if planted.len() == 1 {
        let pelvis = sim.body_pose(root);
        let r = crate::model::rotation::rotate(
            crate::model::rotation::pose_rotation(pelvis),
            [0.0, 1.0, 0.0],
        );
        let pitch = (r[0] as f64 * fwd[0] + r[2] as f64 * fwd[1]).asin();
        let reference = crate::clip::pose::quat_of(&out.pose.root) * nalgebra::Vector3::y();
        let want = (reference.x * fwd[0] + reference.z * fwd[1]).asin();
        if let Some(k) = planted[0].flexion {
            q[k] += gains.trunk * (pitch - want);
        }
    }
    q.into_iter().map(|x| x as f32).collect()
}
