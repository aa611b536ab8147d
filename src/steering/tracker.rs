//! A learned tracking policy for physics playback, after DReCon (Bergamin, Clavet, Holden &
//! Forbes 2019): the steering controller plays the motion the stick asks for, and a policy
//! trained by reinforcement ([`crate::learn::ppo`]) adds corrections to every joint's PD target
//! (on top of the balance feedback of [`super::balance`]) so that the simulated human follows it
//! without falling. Trained, as DReCon's and DeepMimic's (Peng et al. 2018, §5–6) are, on the
//! distribution it must hold: episodes of seeded player stick timelines
//! ([`super::trials::random_timeline`]) from the standing start or (a share of them) from a
//! random frame of a gait with the body moving, a share of them with long straight holds,
//! pushed on the pelvis at random times (DReCon's perturbations), ended early by a fall.
//!
//! - **Decisions** at [`DECISION_RATE`] Hz (DeepMimic's 30): every other step of a 60 Hz
//!   script; the corrections are held in between.
//! - **Observation** ([`observe`]), in the heading frame of the simulated pelvis: the simulated
//!   pelvis's height, orientation, velocity and spin; every joint coordinate and rate; the
//!   played coordinates' difference from the simulated ones; the played pelvis's place and
//!   orientation, and the played motion's own centre-of-mass velocity (its following of the
//!   body taken out); which feet touch the ground, simulated and played.
//! - **Reward** ([`reward`]), DeepMimic's form (§5.3, eq. 5–9, with its weights re-balanced for
//!   a reference that follows the body): 0.5·exp(−2·Σ joint error²) + 0.2·exp(−10·(pelvis height
//!   error² + pelvis angle error²)) + 0.3·exp(−0.5·|centre-of-mass velocity error|²), the last
//!   with a wide basin so that a body 2 m/s behind a run is still paid for gaining on it. The
//!   played place follows the simulated pelvis within a step or two, so the places agree
//!   whatever the body's pace: the velocity is the played clip's own, so that the body is paid
//!   for keeping up with the clip (the stick's speed), not for matching a reference that waits
//!   for it.

use super::balance::BalanceGains;
use super::physics::PhysicsPlayback;
use super::script::{ScriptPush, StickScript, face_first_key};
use super::trials::{PlayerModel, random_timeline};
use super::{Controller, Mode, Output};
use crate::clip::pose::quat_of;
use crate::learn::network::Mlp;
use crate::learn::ppo::{Episode, Learner, Policy, Step};
use crate::model::EffectorTag;
use crate::motion_graph::{FrameRef, LoadedGraph};
use nalgebra::{UnitQuaternion, Vector3};
use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;
use std::sync::Arc;

/// Decisions per second (DeepMimic's policies act at 30 Hz).
pub const DECISION_RATE: f64 = 30.0;

/// The script rate the tracker is trained and played at (steps per second).
pub const SCRIPT_RATE: f64 = 60.0;

/// Largest correction (rad) a decision adds to a PD target.
pub const MAX_CORRECTION: f32 = 0.6;

/// A trained tracker as played: its policy, and its value network (the expected discounted
/// reward from a state on, which the guard reads at the end of a future, [`super::guard`]).
#[derive(Clone, Debug, PartialEq)]
pub struct Tracker {
    pub policy: Policy,
    pub value: Mlp,
    /// The discount per decision the value was fit with.
    pub gamma: f32,
    /// The half-life (s) of the reference's heading following the body's that it was trained
    /// with, and so is played with ([`BalanceGains::heading_follow`]).
    pub heading_follow: f64,
}

impl Tracker {
    /// The value of the state seen as `observation` ([`observe`]).
    pub fn value(&self, observation: &[f32]) -> f32 {
        let x = self.policy.normalizer.normalize(observation);
        self.value.forward(&x)[0]
    }

    /// The largest value a state can have (every reward is at most 1): 1 / (1 − γ).
    pub fn best_value(&self) -> f32 {
        1.0 / (1.0 - self.gamma).max(1e-6)
    }
}

/// What a tracker keeps between decisions of one run.
#[derive(Clone, Debug, Default)]
pub struct TrackerState {
    next_decision: f64,
    started: bool,
    played_velocity: [f64; 3],
    /// Seeded noise on the policy's mean until a time: a rescue's chosen future
    /// ([`super::rescue`]), played again exactly.
    pub explore: Option<Exploration>,
}

/// Gaussian noise of `scale` rad added to every correction the tracker decides before `until`
/// (s), drawn from `rng`: the same seed and start give the same corrections.
#[derive(Clone, Debug)]
pub struct Exploration {
    pub rng: ChaCha8Rng,
    pub until: f64,
    pub scale: f32,
}

impl TrackerState {
    /// Feeds `h` what the tracker's next decisions read of this state.
    pub fn hash_state(&self, h: &mut impl std::hash::Hasher) {
        h.write_u64(self.next_decision.to_bits());
        h.write_u8(self.started as u8);
        for x in self.played_velocity {
            h.write_u64(x.to_bits());
        }
        if let Some(e) = &self.explore {
            h.write(&e.rng.get_seed());
            h.write_u128(e.rng.get_word_pos());
            h.write_u64(e.until.to_bits());
            h.write_u32(e.scale.to_bits());
        }
    }

    /// Notes the played pose `out` of the step at time `t`, before `physics` tracks it (for the
    /// played motion's own velocity, [`PhysicsPlayback::played_velocity`]); true when this step
    /// is a decision ([`DECISION_RATE`] a second, whatever the step: every other step of a
    /// 60 Hz script, or an app's uneven frames).
    pub fn advance(&mut self, t: f64, out: &Output, physics: &PhysicsPlayback) -> bool {
        if !self.started {
            self.next_decision = t;
            self.started = true;
        }
        self.played_velocity = physics.played_velocity(t, out);
        let decide = t + 1e-6 >= self.next_decision;
        if decide {
            self.next_decision += 1.0 / DECISION_RATE;
            if self.next_decision <= t {
                self.next_decision = t + 1.0 / DECISION_RATE;
            }
        }
        decide
    }

    /// Before `physics` tracks `out` at time `t`: on a decision step, sets its corrections to
    /// `tracker`'s policy's (its mean: playback, the guard's futures); the reference's heading
    /// follows the body's as it did in the tracker's training.
    pub fn play(&mut self, tracker: &Tracker, t: f64, out: &Output, physics: &mut PhysicsPlayback) {
        physics.gains.heading_follow = tracker.heading_follow;
        if self.advance(t, out, physics) {
            let seen = observe(physics, out, self);
            let mut action = tracker.policy.act(&seen);
            if let Some(e) = &mut self.explore {
                match t < e.until {
                    true => {
                        use rand_distr::{Distribution, StandardNormal};
                        for a in &mut action {
                            let z: f64 = StandardNormal.sample(&mut e.rng);
                            *a += e.scale * z as f32;
                        }
                    }
                    false => self.explore = None,
                }
            }
            physics.corrections = corrections(&action);
        }
    }
}

/// The heading frame of a pose: its yaw about the vertical (the forward x axis projected).
fn heading(q: &UnitQuaternion<f64>) -> UnitQuaternion<f64> {
    let f = q * Vector3::x();
    UnitQuaternion::from_axis_angle(&Vector3::y_axis(), (-f.z).atan2(f.x))
}

/// The feet's bodies of the playback's character, and their effector indices.
fn feet(physics: &PhysicsPlayback) -> Vec<(usize, usize)> {
    let c = physics.sim.character();
    c.end_effectors
        .iter()
        .enumerate()
        .filter(|(_, e)| e.tag == EffectorTag::Foot)
        .filter_map(|(k, e)| Some((k, c.body_index(&e.body)?)))
        .collect()
}

fn push_rotation(obs: &mut Vec<f32>, r: &UnitQuaternion<f64>) {
    let m = r.to_rotation_matrix();
    for col in 0..2 {
        for row in 0..3 {
            obs.push(m[(row, col)] as f32);
        }
    }
}

/// What the policy sees (see the module docs).
pub fn observe(physics: &PhysicsPlayback, out: &Output, state: &TrackerState) -> Vec<f32> {
    let sim = &physics.sim;
    let root = physics.root_body();
    let p = sim.body_pose(root).map(|v| v as f64);
    let q_sim = quat_of(&p);
    let h = heading(&q_sim);
    let to_h = h.inverse();
    let v3 = |v: [f32; 3]| Vector3::new(v[0] as f64, v[1] as f64, v[2] as f64);
    let mut obs = Vec::with_capacity(256);
    obs.push(p[1] as f32);
    push_rotation(&mut obs, &(to_h * q_sim));
    let (lin, ang) = sim.body_velocity(root);
    obs.extend((to_h * v3(lin)).iter().map(|x| *x as f32));
    obs.extend((to_h * v3(ang)).iter().map(|x| *x as f32));
    let (q, qd) = sim.dof_state();
    obs.extend(&q);
    obs.extend(qd.iter().map(|x| 0.1 * x));
    obs.extend(
        q.iter()
            .zip(&out.pose.joints)
            .map(|(a, b)| (*b - *a as f64) as f32),
    );
    let played = &out.pose.root;
    let offset = Vector3::new(played[0] - p[0], played[1] - p[1], played[2] - p[2]);
    obs.extend((to_h * offset).iter().map(|x| *x as f32));
    push_rotation(&mut obs, &(to_h * quat_of(played)));
    obs.extend(
        (to_h * Vector3::from(state.played_velocity))
            .iter()
            .map(|x| *x as f32),
    );
    let touching = sim.contacts();
    for (effector, body) in feet(physics) {
        obs.push(f32::from(touching.get(body).is_some_and(|&n| n > 0)));
        obs.push(f32::from(
            out.contacts.get(effector).copied().unwrap_or(false),
        ));
    }
    obs
}

/// How well the simulated body follows the played one after a step (see the module docs).
pub fn reward(physics: &PhysicsPlayback, out: &Output, state: &TrackerState) -> f32 {
    let sim = &physics.sim;
    let root = physics.root_body();
    let (q, _) = sim.dof_state();
    let joints: f64 = q
        .iter()
        .zip(&out.pose.joints)
        .map(|(a, b)| (*a as f64 - b).powi(2))
        .sum();
    let p = sim.body_pose(root).map(|v| v as f64);
    let height = p[1] - out.pose.root[1];
    let angle = quat_of(&p).angle_to(&quat_of(&out.pose.root));
    let v = sim.com_velocity();
    let dv: f64 = (0..3)
        .map(|k| (v[k] as f64 - state.played_velocity[k]).powi(2))
        .sum();
    (0.5 * (-2.0 * joints).exp()
        + 0.2 * (-10.0 * (height * height + angle * angle)).exp()
        + 0.3 * (-0.5 * dv).exp()) as f32
}

/// Turns a policy output into PD-target corrections.
pub fn corrections(action: &[f32]) -> Vec<f32> {
    action
        .iter()
        .map(|a| a.clamp(-MAX_CORRECTION, MAX_CORRECTION))
        .collect()
}

/// Settings of one training episode.
#[derive(Clone, Debug, PartialEq)]
pub struct EpisodeSettings {
    /// Longest episode (simulated seconds).
    pub duration: f64,
    pub player: PlayerModel,
    pub gains: BalanceGains,
    /// Share of the episodes that start at a random frame of a random cyclic gait with the
    /// body moving as the clip does there (DeepMimic's reference state initialization, §5.2),
    /// instead of standing: the states after a start are seen without the start before them.
    pub moving_starts: f64,
    /// Share of the episodes whose stick settings are held [`STEADY_HOLD`] seconds instead of
    /// the player's 1–4 s: long straight walks and runs, so that the gaits' steady state is
    /// learned and not only the turns and starts where most episodes fall.
    pub steady_share: f64,
    /// Mean seconds between random pushes on the pelvis during an episode (none if zero):
    /// horizontal, in a uniform direction, of [`PUSH_IMPULSE`] N·s (DReCon's perturbations).
    pub push_interval: f64,
}

/// Seconds a steady episode's stick settings are held: uniform in this range.
pub const STEADY_HOLD: (f64, f64) = (6.0, 20.0);
/// Impulse of a training push (N·s): uniform in this range.
pub const PUSH_IMPULSE: (f64, f64) = (10.0, 45.0);

impl Default for EpisodeSettings {
    fn default() -> Self {
        Self {
            duration: 20.0,
            player: PlayerModel::default(),
            gains: BalanceGains::default(),
            moving_starts: 0.5,
            steady_share: 0.25,
            push_interval: 5.0,
        }
    }
}

/// The stick timeline of the episode of `seed`: a player's, or (a `steady_share` of the time)
/// one of long holds, with random pushes every `push_interval` seconds on average, none in the
/// first second.
pub fn episode_script(settings: &EpisodeSettings, seed: u64) -> StickScript {
    use rand::Rng;
    let mut rng = ChaCha8Rng::seed_from_u64(seed ^ 0x7075_7368_6573);
    let mut player = settings.player.clone();
    if rng.random_bool(settings.steady_share.clamp(0.0, 1.0)) {
        player.hold = STEADY_HOLD;
    }
    let mut script = random_timeline(seed, settings.duration, SCRIPT_RATE, &player);
    if settings.push_interval > 0.0 {
        let mut t = 1.0;
        loop {
            // Exponential gaps: pushes at any phase, as a Poisson process.
            t += -settings.push_interval * (1.0 - rng.random_range(0.0..1.0f64)).ln();
            if t >= settings.duration {
                break;
            }
            let a = rng.random_range(0.0..std::f64::consts::TAU);
            let j = rng.random_range(PUSH_IMPULSE.0..=PUSH_IMPULSE.1);
            script.pushes.push(ScriptPush {
                time: t,
                impulse: [j * a.cos(), 0.0, j * a.sin()],
            });
        }
    }
    script
}

/// Where an episode starts: the standing start, or (a `moving_starts` share of the time) a
/// random frame of a random kept cyclic gait.
fn episode_start(graph: &LoadedGraph, share: f64, rng: &mut ChaCha8Rng) -> Option<FrameRef> {
    use rand::Rng;
    if !rng.random_bool(share.clamp(0.0, 1.0)) {
        return None;
    }
    let gaits: Vec<usize> = (0..graph.graph.clips.len())
        .filter(|&c| {
            let clip = &graph.graph.clips[c];
            clip.joins.is_none() && clip.cycle.is_some() && graph.kept(c) && clip.speed >= 0.1
        })
        .collect();
    let &clip = gaits.get(rng.random_range(0..gaits.len().max(1)))?;
    let frames = graph.graph.clips[clip].frames;
    let frame = rng.random_range(0..frames.max(1));
    let at = FrameRef { clip, frame };
    graph.inside(at).then_some(at)
}

/// One episode of `graph` steered by the timeline of `seed`, the simulated human tracking it
/// with `policy`'s corrections (drawn around its mean with `explore`, else the mean), from the
/// standing start until it falls or the timeline ends.
pub fn run_episode(
    graph: &Arc<LoadedGraph>,
    policy: &Policy,
    settings: &EpisodeSettings,
    seed: u64,
    explore: bool,
) -> anyhow::Result<Episode> {
    let script = episode_script(settings, seed);
    let mut rng = ChaCha8Rng::seed_from_u64(seed ^ 0x0074_7261_636b_6572);
    let moving = episode_start(graph, settings.moving_starts, &mut rng);
    let from = moving.unwrap_or_else(|| Controller::default_start(graph, "stand"));
    let mut controller = Controller::new(graph.clone(), from, Mode::Steer);
    let mut physics =
        PhysicsPlayback::start(&mut controller, &script, settings.gains, moving.is_some())?;
    face_first_key(&mut controller, &script);
    let mut state = TrackerState::default();
    let mut episode = Episode::default();
    let dt = 1.0 / SCRIPT_RATE;
    let steps = (settings.duration * SCRIPT_RATE).round() as usize;
    let mut pending: Option<Step> = None;
    let mut rewards = (0.0f32, 0usize);
    for i in 0..steps {
        let t = (i + 1) as f64 * dt;
        let out = controller.step(&script.stick_at(t), dt);
        for p in script.pushes_due(t) {
            physics.push(p.impulse);
        }
        if state.advance(t, &out, &physics) {
            let obs = observe(&physics, &out, &state);
            if let Some(mut s) = pending.take() {
                s.reward = rewards.0 / rewards.1.max(1) as f32;
                episode.steps.push(s);
            }
            rewards = (0.0, 0);
            let (action, log_density) = match explore {
                true => policy.sample(&obs, &mut rng),
                false => (policy.act(&obs), 0.0),
            };
            physics.corrections = corrections(&action);
            pending = Some(Step {
                observation: obs,
                action,
                log_density,
                reward: 0.0,
            });
        }
        physics.track(t, &out, &mut controller, dt);
        if physics.fell_at.is_some() {
            episode.failed = true;
            break;
        }
        rewards.0 += reward(&physics, &out, &state);
        rewards.1 += 1;
        if i + 1 == steps {
            episode.last_observation = observe(&physics, &out, &state);
        }
    }
    if let Some(mut s) = pending.take() {
        s.reward = rewards.0 / rewards.1.max(1) as f32;
        episode.steps.push(s);
    }
    if episode.last_observation.is_empty()
        && let Some(s) = episode.steps.last()
    {
        episode.last_observation = s.observation.clone();
    }
    Ok(episode)
}

/// The sizes of a tracker's observation and action for `graph`'s character (its joint
/// coordinates).
pub fn sizes(graph: &Arc<LoadedGraph>) -> anyhow::Result<(usize, usize)> {
    let from = Controller::default_start(graph, "stand");
    let mut controller = Controller::new(graph.clone(), from, Mode::Steer);
    let physics = PhysicsPlayback::new(&mut controller, BalanceGains::default())?;
    let out = controller.step(&Default::default(), 1.0 / SCRIPT_RATE);
    let obs = observe(&physics, &out, &TrackerState::default());
    Ok((obs.len(), physics.sim.dofs().len()))
}

/// A new learner for `graph`'s tracker.
pub fn new_learner(
    graph: &Arc<LoadedGraph>,
    settings: crate::learn::ppo::PpoSettings,
    seed: u64,
) -> anyhow::Result<Learner> {
    let (observations, actions) = sizes(graph)?;
    Ok(Learner::new(observations, actions, settings, seed))
}
