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
//! - **Balance** (after SIMBICON, Yin, Loken & van de Panne 2007), on the *deviation* of the
//!   simulated centre of mass from the played one (its offset from the planted feet, and its
//!   velocity, in the heading frame; the played motion's own offset and velocity are not
//!   errors): the hip of a leg in the air aims its flexion and abduction further by
//!   c_d·Δd + c_v·Δv, so a step lands where it catches the fall; the planted ankles pitch and
//!   roll against it; the planted hips take back the pelvis's rotation and angular velocity
//!   off the played one (SIMBICON's torso control, in all three axes).
//! - **Clearance:** a leg in the air bends its hip and knee further and lifts its toes: the
//!   gait NLP's feet are points, and the clips' swinging soles graze the ground (their box
//!   corners dip up to 4 cm under it), which loads the swinging foot and lets the planted one
//!   spin ([`crate::spacetime::gait::GaitSpec::sole_clearance`] solves clips without it).
//! - **Reference:** the kinematic controller's place in the world follows the simulated pelvis
//!   (position and heading, by a spring), so its choices steer the body that exists. The feet
//!   it holds on the ground move with it ([`Controller::follow`]): left where they were, the
//!   foot locks' IK bent the legs towards the old place, the simulated body tracked that lean,
//!   the reference followed it further, and even standing fell (at 10 s).
//!
//! The default gains were searched again once the held feet moved with the reference (the
//! earlier ones had been tuned around that runaway): a random search of 400 settings around
//! the old ones on ten scripts of the shipped graph, then two local searches (120 and 200
//! steps) scored on that graph and on the graph of solved motions only, checked on 24 scripts
//! the search did not see (docs/results.md has the figures).
//! The pelvis's angular velocity term (`trunk_v`) came in with that search.
//!
//! The character falls when a body other than a foot touches the ground or its centre of mass
//! drops below half its standing height ([`crate::sim::Simulation::has_fallen`]).

use crate::model::EffectorTag;
use crate::model::planar::PlanarMotion;
use crate::sim::{Controller as SimController, SimSettings, Simulation};
use crate::steering::script::{ScriptPush, SteerTrace, StickScript, face_first_key, run_script};
use crate::steering::{Controller, Output};

/// Gains of the balance feedback.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct BalanceGains {
    /// Swing hip: rad per m of centre-of-mass offset from the played one.
    pub c_d: f64,
    /// Swing hip: rad per m/s of centre-of-mass velocity off the played one.
    pub c_v: f64,
    /// Fraction of the pelvis's rotation off the played one that the planted hips take back.
    pub trunk: f64,
    /// The same for the pelvis's angular velocity off the played one (rad per rad/s).
    pub trunk_v: f64,
    /// Ankle strategy of the planted feet along the heading (pitch): rad per m and per m/s.
    pub ankle_d: f64,
    pub ankle_v: f64,
    /// Ankle strategy across the heading (roll): rad per m and per m/s.
    pub roll_d: f64,
    pub roll_v: f64,
    /// Swing-foot clearance: extra knee bend, hip flexion and toe lift (rad) of a leg in the air.
    pub lift_knee: f64,
    pub lift_hip: f64,
    pub lift_toe: f64,
    /// Half-life (s) with which the kinematic reference follows the simulated pelvis.
    pub follow: f64,
    /// Fraction of the played clip's joint torques applied as feedforward (0: PD and balance
    /// feedback alone).
    pub feedforward: f64,
    /// Fraction of the played joint rates the PD's damping aims at (0: it damps all motion).
    pub rates: f64,
}

impl Default for BalanceGains {
    fn default() -> Self {
        Self {
            c_d: 1.53,
            c_v: 0.184,
            trunk: 0.561,
            trunk_v: 0.00718,
            ankle_d: 1.3,
            ankle_v: 0.659,
            roll_d: 0.459,
            roll_v: 0.0226,
            lift_knee: 0.609,
            lift_hip: 0.207,
            lift_toe: 0.396,
            follow: 0.0128,
            feedforward: 0.761,
            rates: 0.553,
        }
    }
}

impl BalanceGains {
    /// The defaults with the gains `NAME=VALUE,...` changes (the field names); an unknown name
    /// or a value that is not a finite number is an error that lists the names.
    pub fn parse(text: &str) -> anyhow::Result<Self> {
        let mut g = Self::default();
        let names = "c_d, c_v, trunk, trunk_v, ankle_d, ankle_v, roll_d, roll_v, lift_knee, lift_hip, \
                     lift_toe, follow, feedforward, rates";
        for (name, value) in named_values(text, names)? {
            let field = match name {
                "c_d" => &mut g.c_d,
                "c_v" => &mut g.c_v,
                "trunk" => &mut g.trunk,
                "trunk_v" => &mut g.trunk_v,
                "ankle_d" => &mut g.ankle_d,
                "ankle_v" => &mut g.ankle_v,
                "roll_d" => &mut g.roll_d,
                "roll_v" => &mut g.roll_v,
                "lift_knee" => &mut g.lift_knee,
                "lift_hip" => &mut g.lift_hip,
                "lift_toe" => &mut g.lift_toe,
                "follow" => &mut g.follow,
                "feedforward" => &mut g.feedforward,
                "rates" => &mut g.rates,
                other => anyhow::bail!("unknown balance gain `{other}` (expected one of {names})"),
            };
            *field = value;
        }
        anyhow::ensure!(g.follow > 0.0, "follow is a half-life: it must be positive");
        Ok(g)
    }
}

/// The `NAME=VALUE` entries of a comma-separated list (blank entries skipped); an entry without
/// `=` or with a value that is not a finite number is an error (`names` lists what is expected).
pub(crate) fn named_values<'a>(text: &'a str, names: &str) -> anyhow::Result<Vec<(&'a str, f64)>> {
    let mut out = Vec::new();
    for entry in text.split(',').map(str::trim).filter(|e| !e.is_empty()) {
        let (name, value) = entry
            .split_once('=')
            .ok_or_else(|| anyhow::anyhow!("`{entry}`: expected NAME=VALUE ({names})"))?;
        let value: f64 = value
            .trim()
            .parse()
            .ok()
            .filter(|v: &f64| v.is_finite())
            .ok_or_else(|| anyhow::anyhow!("`{entry}`: the value is not a finite number"))?;
        out.push((name.trim(), value));
    }
    Ok(out)
}

/// Offsets (rad) a look-ahead adds to the balance feedback's targets
/// ([`super::lookahead`]): where the swinging leg reaches, how the planted ankles lean, and how
/// the planted hips hold the pelvis.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct LegOffsets {
    /// A leg in the air: hip flexion (forward) and abduction (left).
    pub swing_flexion: f64,
    pub swing_abduction: f64,
    /// The planted feet: ankle pitch and roll.
    pub ankle_pitch: f64,
    pub ankle_roll: f64,
    /// The planted hips: flexion and abduction (shared between them), tilting the pelvis.
    pub trunk_pitch: f64,
    pub trunk_roll: f64,
}

impl LegOffsets {
    pub const DIMENSION: usize = 6;

    pub fn from_array(a: [f64; 6]) -> Self {
        Self {
            swing_flexion: a[0],
            swing_abduction: a[1],
            ankle_pitch: a[2],
            ankle_roll: a[3],
            trunk_pitch: a[4],
            trunk_roll: a[5],
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
    /// Candidates the look-ahead played (0 without one).
    pub rollouts: usize,
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
    /// The ankle's roll coordinate (about x).
    ankle_roll: Option<usize>,
    /// The knee's flexion coordinate (about z, bent negative).
    knee: Option<usize>,
    /// The hip's twist coordinate (about y), for a ball hip.
    twist: Option<usize>,
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
            let knee = &c.joints[up(shin)?];
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
                ankle_roll: coordinate(ankle, [1.0, 0.0, 0.0]),
                knee: coordinate(knee, [0.0, 0.0, 1.0]),
                twist: coordinate(hip, [0.0, 1.0, 0.0]),
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
    /// The played motion at the last step, moved with the reference's place.
    last_played: Option<Played>,
    /// The played joint coordinates at the last step, and its time (for the target rates).
    last_joints: Option<(Vec<f64>, f64)>,
    /// What a look-ahead adds to the balance feedback (zero without one).
    pub offsets: LegOffsets,
}

/// Everything a [`PhysicsPlayback`] goes on from: a look-ahead saves it, plays candidates
/// forward and puts it back.
#[derive(Clone)]
pub struct PlaybackState {
    sim: crate::sim::Snapshot,
    time: f64,
    fell_at: Option<f64>,
    sums: (f64, usize, f64, usize),
    last_played: Option<Played>,
    last_joints: Option<(Vec<f64>, f64)>,
    offsets: LegOffsets,
}

/// The played centre of mass and pelvis orientation at a step (world), and the step's time.
#[derive(Clone, Copy)]
struct Played {
    com: [f64; 3],
    pelvis: nalgebra::UnitQuaternion<f64>,
    time: f64,
}

/// The played motion's centre of mass, its velocity and its bodies, for feedback on deviations.
struct Reference {
    com: [f64; 3],
    velocity: [f64; 3],
    /// The played pelvis's angular velocity (world).
    spin: nalgebra::Vector3<f64>,
    bodies: Vec<crate::clip::pose::BodyPose>,
}

impl PhysicsPlayback {
    /// A simulation of the controller's character, at rest in the controller's current pose
    /// (its place and facing).
    pub fn new(controller: &mut Controller, gains: BalanceGains) -> anyhow::Result<Self> {
        let character = controller.graph.character.clone();
        let mut sim = Simulation::new(&character, SimSettings::default())?;
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
            joint_sq: 0.0,
            joint_n: 0,
            root_sum: 0.0,
            root_n: 0,
            last_played: None,
            last_joints: None,
            offsets: LegOffsets::default(),
        })
    }

    /// The state to come back to after a look-ahead.
    pub fn save(&self) -> PlaybackState {
        PlaybackState {
            sim: self.sim.snapshot(),
            time: self.time,
            fell_at: self.fell_at,
            sums: (self.joint_sq, self.joint_n, self.root_sum, self.root_n),
            last_played: self.last_played,
            last_joints: self.last_joints.clone(),
            offsets: self.offsets,
        }
    }

    /// Back to a saved state.
    pub fn restore(&mut self, s: &PlaybackState) {
        self.sim.restore(&s.sim);
        self.time = s.time;
        self.fell_at = s.fell_at;
        (self.joint_sq, self.joint_n, self.root_sum, self.root_n) = s.sums;
        self.last_played = s.last_played;
        self.last_joints = s.last_joints.clone();
        self.offsets = s.offsets;
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

    /// Simulates up to time `t` tracking `out` (the controller's pose now), then lets the
    /// controller's place follow the simulated pelvis by `follow` (a fraction).
    pub fn track(&mut self, t: f64, out: &Output, controller: &mut Controller, follow: f64) {
        if self.fell_at.is_some() {
            return;
        }
        let character = &controller.graph.character;
        let bodies = crate::clip::pose::body_poses(character, &out.pose.root, &out.pose.joints);
        let mut com = [0.0; 3];
        let mass: f64 = character.bodies.iter().map(|b| b.mass).sum();
        for (b, p) in character.bodies.iter().zip(&bodies) {
            for k in 0..3 {
                com[k] += b.mass * p[k] / mass;
            }
        }
        let pelvis = crate::clip::pose::quat_of(&bodies[self.root]);
        let (velocity, spin) = match self.last_played {
            Some(last) if t > last.time => (
                [0, 1, 2].map(|k| (com[k] - last.com[k]) / (t - last.time)),
                (pelvis * last.pelvis.inverse()).scaled_axis() / (t - last.time),
            ),
            _ => ([0.0; 3], nalgebra::Vector3::zeros()),
        };
        let reference = Reference {
            com,
            velocity,
            spin,
            bodies,
        };
        let joints = balanced_targets(
            &self.sim,
            &self.legs,
            out,
            &self.gains,
            self.root,
            &reference,
            &self.offsets,
        );
        let mut step = Targets { joints };
        let feedforward: Vec<f32> = out
            .torques
            .iter()
            .flatten()
            .map(|t| (self.gains.feedforward * t) as f32)
            .collect();
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
        let moved = controller.follow(
            &PlanarMotion {
                x: follow * dx,
                z: follow * dz,
                yaw: 0.0,
            },
            follow * yaw,
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
    on_step: impl FnMut(f64, &PhysicsPlayback),
) -> anyhow::Result<TrackingReport> {
    run_tracked_planned(controller, script, gains, None, on_step)
}

/// [`run_tracked_with`], with a look-ahead ([`super::lookahead`]) choosing offsets to the
/// balance feedback when `lookahead` is given.
pub fn run_tracked_planned(
    controller: &mut Controller,
    script: &StickScript,
    gains: BalanceGains,
    lookahead: Option<super::lookahead::LookaheadSettings>,
    mut on_step: impl FnMut(f64, &PhysicsPlayback),
) -> anyhow::Result<TrackingReport> {
    let mut planner = lookahead.map(super::lookahead::Lookahead::new);
    // Face the script's way first, so the simulated body starts facing it too.
    face_first_key(controller, script);
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
        if let Some(p) = &mut planner {
            let stick = script.stick_at(t);
            p.plan(
                t,
                out,
                &stick,
                1.0 / script.rate,
                follow,
                controller,
                &mut physics,
            );
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
        rollouts: planner.map_or(0, |p| p.rollouts),
    })
}

/// The played pose's coordinates with the balance feedback added (see the module docs).
fn balanced_targets(
    sim: &Simulation,
    legs: &[Leg],
    out: &Output,
    gains: &BalanceGains,
    root: usize,
    reference: &Reference,
    offsets: &LegOffsets,
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
    // The centre of mass relative to the planted feet (their mean), along and across the heading,
    // less the played motion's own offset and velocity.
    let mut support = [0.0, 0.0];
    let mut played = [0.0, 0.0];
    for l in &planted {
        let f = sim.body_pose(l.foot);
        support[0] += f[0] as f64 / planted.len() as f64;
        support[1] += f[2] as f64 / planted.len() as f64;
        let g = reference.bodies[l.foot];
        played[0] += g[0] / planted.len() as f64;
        played[1] += g[2] / planted.len() as f64;
    }
    let d = [
        com[0] as f64 - support[0] - (reference.com[0] - played[0]),
        com[2] as f64 - support[1] - (reference.com[2] - played[1]),
    ];
    let v = [
        v[0] as f64 - reference.velocity[0],
        v[2] as f64 - reference.velocity[2],
    ];
    let (d_fwd, d_left) = (
        d[0] * fwd[0] + d[1] * fwd[1],
        d[0] * left[0] + d[1] * left[1],
    );
    let (v_fwd, v_left) = (
        v[0] * fwd[0] + v[1] * fwd[1],
        v[0] * left[0] + v[1] * left[1],
    );
    // Planted ankles push the centre of mass back over the feet (a larger ankle angle tips the
    // shin forward; a larger roll tips it to the left, so a smaller one pushes the centre of mass
    // back to the right).
    for l in &planted {
        if let Some(k) = l.ankle {
            q[k] -= gains.ankle_d * d_fwd + gains.ankle_v * v_fwd - offsets.ankle_pitch;
        }
        if let Some(k) = l.ankle_roll {
            q[k] -= gains.roll_d * d_left + gains.roll_v * v_left - offsets.ankle_roll;
        }
        let share = 1.0 / planted.len() as f64;
        if let Some(k) = l.flexion {
            q[k] += share * offsets.trunk_pitch;
        }
        if let Some(k) = l.abduction {
            q[k] += share * offsets.trunk_roll;
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
            q[k] += gains.c_d * d_fwd + gains.c_v * v_fwd + gains.lift_hip + offsets.swing_flexion;
        }
        if let Some(k) = l.knee {
            q[k] -= gains.lift_knee;
        }
        if let Some(k) = l.ankle {
            q[k] += gains.lift_toe;
        }
        if let Some(k) = l.abduction {
            q[k] += gains.c_d * d_left + gains.c_v * v_left + offsets.swing_abduction;
        }
    }
    // The pelvis's orientation in the world (SIMBICON's torso control): its rotation and
    // angular velocity off the played one's, in the pelvis's frame, are taken back by the
    // planted hips, shared between them (a hip's coordinates turn its thigh about the pelvis's
    // axes).
    if gains.trunk != 0.0 || gains.trunk_v != 0.0 {
        let pelvis = crate::clip::pose::quat_of(&sim.body_pose(root).map(|x| x as f64));
        let error = pelvis * crate::clip::pose::quat_of(&reference.bodies[root]).inverse();
        let (_, w) = sim.body_velocity(root);
        let spin = nalgebra::Vector3::new(w[0] as f64, w[1] as f64, w[2] as f64) - reference.spin;
        let local = pelvis.inverse() * (gains.trunk * error.scaled_axis() + gains.trunk_v * spin);
        let share = 1.0 / planted.len() as f64;
        for l in &planted {
            for (k, e) in [
                (l.abduction, local.x),
                (l.twist, local.y),
                (l.flexion, local.z),
            ] {
                if let Some(k) = k {
                    q[k] += share * e;
                }
            }
        }
    }
    q.into_iter().map(|x| x as f32).collect()
}

#[cfg(test)]
mod tests {
    use super::BalanceGains;

    /// `steer --balance` changes the gains it names and keeps the others; a wrong name or value
    /// is an error that says what was expected.
    #[test]
    fn balance_gains_are_parsed_by_name() {
        let g = BalanceGains::parse("c_d=2, trunk=0,lift_knee=0.4").unwrap();
        assert_eq!((g.c_d, g.trunk, g.lift_knee), (2.0, 0.0, 0.4));
        let d = BalanceGains::default();
        assert_eq!((g.c_v, g.follow, g.rates), (d.c_v, d.follow, d.rates));
        assert_eq!(BalanceGains::parse("").unwrap(), d);
        let e = BalanceGains::parse("cd=1").unwrap_err().to_string();
        assert!(e.contains("`cd`") && e.contains("c_d, c_v"), "{e}");
        for bad in ["c_d=nan", "c_d=x", "c_d", "follow=0"] {
            assert!(BalanceGains::parse(bad).is_err(), "{bad}");
        }
    }
}
