//! The real-time controller over a motion graph: every render step it advances the intent
//! springs, plays the current frame towards its continuation, and at each frame boundary picks
//! the next edge, then inertializes a blended transition and locks the planted feet.
//!
//! Two modes:
//! - **random walk** (the playback of McIntosh 2011, thesis §4.3.1): at a frame with transitions,
//!   take one of them at random (seeded) half of the time;
//! - **steering** (beyond that thesis; the task costs of Wampler 2012, thesis §5.3): each
//!   edge out of the frame — playing on, or a transition — is scored by where it leads over a
//!   one-second horizon against where the user wants to be: the predicted root positions and
//!   facings at ⅓, ⅔ and 1 s, the travel direction |θ_v − atan2(v)|, the speed |s_t − ‖v‖|, the
//!   gait type 10·(1 − δ) scaled, plus the transition's own distance, plus the time the edge's
//!   frame needs to reach the commanded gait through the graph ([`super::route`]: what a
//!   one-second horizon cannot see). A transition is taken only when it beats playing on by a
//!   margin (no dithering).
//!
//! The character's place is one ground motion W from the current clip's coordinates to the
//! world; every edge taken composes W with the edge's root displacement.

use super::foot_lock::FootLocks;
use super::index::{SteeringIndex, lerp};
use super::inertialize::Inertialization;
use super::intent::{Gait, HORIZON, Intent, SpeedRange, Stick};
use super::mdp::SteeringMdp;
use super::route::RouteTable;
use super::spring::wrap_angle;
use crate::clip::ClipFrame;
use crate::clip::pose::{pose_of, quat_of};
use crate::model::planar::PlanarMotion;
use crate::motion_graph::{FrameRef, LoadedGraph};
use nalgebra::{UnitQuaternion, Vector3};
use rand::{Rng, SeedableRng};
use std::sync::Arc;

/// The longest route (s) the cost counts: a frame that cannot reach the gait at all costs this.
const ROUTE_CAP: f64 = 10.0;

/// How the next edge is chosen.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Mode {
    Steer,
    /// The value-function policy of the controller's MDP ([`Controller::with_policy`]; Wampler
    /// 2012, thesis §5.2): the edge of least expected discounted cost for the asked direction and
    /// speed. Without a policy, it plays on.
    Policy,
    /// Take a transition with this probability where there is one.
    RandomWalk {
        seed: u64,
        probability: f64,
    },
}

/// Weights of the steering cost (per m, per rad, per m/s, per gait mismatch, per threshold of
/// transition distance).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct CostWeights {
    pub position: f64,
    pub facing: f64,
    pub direction: f64,
    pub speed: f64,
    pub gait: f64,
    pub transition: f64,
    /// Per second the edge's frame needs to reach the commanded gait ([`super::route`]).
    pub route: f64,
    /// How much a transition must beat playing on by.
    pub margin: f64,
    /// Seconds after a blended transition before the next blended one while a foot planted at
    /// the first is still down: two blends within a stance (start → 1.0 m/s walk → 1.4 m/s walk
    /// in 0.13 s) asked the planted foot's leg for more than it reaches, and the foot slid
    /// 5 cm. A foot that lifted in between (a run's flight) frees the next blend at once.
    pub cooldown: f64,
    /// Root-motion warping: the largest turn (rad/s) added to the played motion to bring the
    /// facing onto the desired one (0: none), and the half-life of that correction (s).
    pub warp_rate: f64,
    pub warp_halflife: f64,
}

impl Default for CostWeights {
    fn default() -> Self {
        Self {
            position: 1.0,
            facing: 0.6,
            direction: 0.6,
            speed: 1.0,
            gait: 1.0,
            transition: 0.3,
            route: 3.0,
            margin: 0.15,
            cooldown: 0.25,
            warp_rate: 60f64.to_radians(),
            warp_halflife: 0.3,
        }
    }
}

/// The last decision: what was taken and what it cost.
#[derive(Clone, Debug, PartialEq)]
pub struct Decision {
    /// The transition taken (its index in the graph), or `None`: played on.
    pub transition: Option<usize>,
    pub cost: f64,
    /// Playing on would have cost this.
    pub continue_cost: f64,
    /// Edges weighed.
    pub candidates: usize,
}

/// One step's result: the pose in the world and what it came from.
#[derive(Clone, Debug)]
pub struct Output {
    pub pose: ClipFrame,
    /// Per effector: planted from the current frame to the next (down at both).
    pub contacts: Vec<bool>,
    pub frame: FrameRef,
    /// The root's heading frame in the world.
    pub heading: PlanarMotion,
    /// The played motion's joint torques (N·m per coordinate) between this frame's and the
    /// next's, when the clip has them (solved clips do): physics playback's feedforward.
    pub torques: Option<Vec<f64>>,
}

/// The controller. A clone shares the graph's precomputed tables and continues on its own (a
/// look-ahead plays one forward without touching the original).
#[derive(Clone)]
pub struct Controller {
    pub graph: Arc<LoadedGraph>,
    index: Arc<SteeringIndex>,
    routes: Arc<RouteTable>,
    pub intent: Intent,
    pub mode: Mode,
    pub weights: CostWeights,
    current: FrameRef,
    time_in_frame: f64,
    /// Seconds since the last blended transition, and which feet planted then have stayed down.
    since_blend: f64,
    held_since_blend: Vec<bool>,
    /// The current clip's coordinates → the world.
    world: PlanarMotion,
    inertia: Inertialization,
    pub locks: FootLocks,
    pub last_decision: Option<Decision>,
    pub transitions_taken: usize,
    rng: rand_chacha::ChaCha8Rng,
    /// The solved MDP [`Mode::Policy`] decides by (shared by clones).
    policy: Option<Arc<SteeringMdp>>,
    /// Transitions the decisions may not take for now (physics playback's guard,
    /// [`crate::steering::guard`]).
    pub barred: Barred,
    /// Seconds the controller still plays the stick at rest instead of the one it is given:
    /// the guard's brake, when stopping is the only future that stays up
    /// ([`crate::steering::rescue`]; 0: none).
    pub brake_left: f64,
}

/// Which transitions a controller's decisions may not take.
#[derive(Clone, Debug, Default, PartialEq)]
pub enum Barred {
    /// Every transition is open.
    #[default]
    Nothing,
    /// No transition into these clips (graph clip indices).
    Into(Vec<usize>),
    /// No transition at all: the current clip plays on (where it can).
    All,
}

impl Barred {
    /// Whether a transition into `clip` is barred.
    pub fn bars(&self, clip: usize) -> bool {
        match self {
            Barred::Nothing => false,
            Barred::Into(clips) => clips.contains(&clip),
            Barred::All => true,
        }
    }
}

impl Controller {
    /// Starts at `start` placed at the world origin facing its own heading.
    pub fn new(graph: Arc<LoadedGraph>, start: FrameRef, mode: Mode) -> Self {
        let index = SteeringIndex::new(&graph);
        let heading = index.get(start).heading;
        let seed = match mode {
            Mode::RandomWalk { seed, .. } => seed,
            Mode::Steer | Mode::Policy => 0,
        };
        let locks = FootLocks::new(&graph.character);
        Self {
            routes: Arc::new(RouteTable::new(&graph)),
            index: Arc::new(index),
            intent: Intent::new(heading.yaw).with_speeds(SpeedRange::of_graph(&graph.graph)),
            mode,
            weights: CostWeights::default(),
            current: start,
            time_in_frame: 0.0,
            since_blend: f64::INFINITY,
            held_since_blend: Vec::new(),
            world: PlanarMotion {
                x: -heading.x,
                z: -heading.z,
                yaw: 0.0,
            },
            inertia: Inertialization::new(0.12),
            locks,
            last_decision: None,
            transitions_taken: 0,
            rng: rand_chacha::ChaCha8Rng::seed_from_u64(seed),
            policy: None,
            barred: Barred::Nothing,
            brake_left: 0.0,
            graph,
        }
    }

    /// Decides by this MDP's policy ([`Mode::Policy`]); it must have been built from this
    /// controller's graph ([`SteeringMdp::from_graph`]).
    pub fn with_policy(mut self, policy: Arc<SteeringMdp>) -> Self {
        self.policy = Some(policy);
        self.mode = Mode::Policy;
        self
    }

    /// The first frame in the graph's component of the clip of `family` with the smallest
    /// |turn rate| and speed (the stand, when there is one), else of the first kept clip.
    pub fn default_start(graph: &LoadedGraph, family: &str) -> FrameRef {
        let kept: Vec<usize> = (0..graph.clips.len()).filter(|&c| graph.kept(c)).collect();
        let clip = kept
            .iter()
            .copied()
            .filter(|&c| graph.graph.clips[c].family == family)
            .min_by(|&a, &b| {
                let key = |c: usize| {
                    let g = &graph.graph.clips[c];
                    g.turn_rate.abs() + g.speed
                };
                key(a).total_cmp(&key(b))
            })
            .or(kept.first().copied())
            .unwrap_or(0);
        let frame = (0..graph.graph.clips[clip].frames)
            .find(|&frame| graph.inside(FrameRef { clip, frame }))
            .unwrap_or(0);
        FrameRef { clip, frame }
    }

    pub fn current(&self) -> FrameRef {
        self.current
    }

    /// Turns the character where it stands so that it faces `yaw`, and its intent with it.
    pub fn face(&mut self, yaw: f64) {
        let here = self.heading();
        self.turn_world(wrap_angle(yaw - here.yaw));
        self.intent = Intent::new(yaw).with_speeds(self.intent.speeds);
        self.locks.clear();
    }

    /// The intent settled at `stick`'s command ([`Intent::settle`]): the controller then plays
    /// as if the stick had been held for long.
    pub fn settle_intent(&mut self, stick: &Stick) {
        self.intent.settle(stick);
    }

    /// Turns the character's place by `yaw` about its root (the played motion turns with it).
    pub fn turn_world(&mut self, yaw: f64) {
        let here = self.heading();
        self.turn_about(here.x, here.z, yaw);
    }

    /// Turns the character's place by `yaw` about the ground point (x, z).
    fn turn_about(&mut self, x: f64, z: f64, yaw: f64) {
        let to_origin = PlanarMotion {
            x: -x,
            z: -z,
            yaw: 0.0,
        };
        let turn = PlanarMotion {
            x: 0.0,
            z: 0.0,
            yaw,
        };
        self.world = to_origin
            .inverse()
            .compose(&turn.compose(&to_origin.compose(&self.world)));
    }

    /// Moves the character's place by `shift` (a ground motion applied after its own).
    pub fn shift_world(&mut self, shift: &PlanarMotion) {
        self.world = shift.compose(&self.world);
    }

    /// Re-places the character by `shift` on the ground, then turns it by `yaw` about its root,
    /// carrying the held feet with it (physics playback's reference following the simulated
    /// body). A re-placement moves the whole reference, so a foot held on the ground moves too:
    /// held where it was, the leg's IK bent towards the old place, the simulated body tracking
    /// that lean was followed further, and the loop ran away (standing fell at 10 s). Returns
    /// the world motion applied.
    pub fn follow(&mut self, shift: &PlanarMotion, yaw: f64) -> PlanarMotion {
        let before = self.world;
        self.shift_world(shift);
        self.turn_world(yaw);
        let moved = self.world.compose(&before.inverse());
        self.locks.carry(&moved);
        moved
    }

    /// Moves the character's place so that its root is over (x, z), keeping its heading.
    pub fn place_root(&mut self, x: f64, z: f64) {
        let h = self.heading();
        self.shift_world(&PlanarMotion {
            x: x - h.x,
            z: z - h.z,
            yaw: 0.0,
        });
        self.locks.clear();
    }

    /// The world motion of the current clip.
    pub fn world(&self) -> PlanarMotion {
        self.world
    }

    /// The current frame's pose in the world (without the blend and foot locks of
    /// [`Self::step`]'s output).
    pub fn pose(&self) -> ClipFrame {
        self.placed(self.current, &self.world)
    }

    /// The frame after the current one along its continuation, in the world, and the time
    /// between the two (s): with [`Self::pose`], the played motion's rates.
    pub fn next_pose(&self) -> (ClipFrame, f64) {
        self.placed_next(self.current, &self.world)
    }

    /// A frame of a clip, moved into the world by `m`.
    fn placed(&self, f: FrameRef, m: &PlanarMotion) -> ClipFrame {
        let frame = &self.graph.clips[f.clip].frames[f.frame];
        let p = m.apply_vec3([frame.root[0], frame.root[1], frame.root[2]]);
        let q = UnitQuaternion::from_axis_angle(&Vector3::y_axis(), m.yaw) * quat_of(&frame.root);
        ClipFrame {
            root: pose_of(Vector3::from(p), &q),
            joints: frame.joints.clone(),
        }
    }

    /// The frame after `f` along its continuation, in the world of `m` (f's clip's motion), or
    /// `f` itself at a dead end.
    fn placed_next(&self, f: FrameRef, m: &PlanarMotion) -> (ClipFrame, f64) {
        match self.graph.next(f) {
            Some((n, step)) => (self.placed(n, &m.compose(&step)), self.graph.frame_time(f)),
            None => (self.placed(f, m), self.graph.frame_time(f)),
        }
    }

    /// The cost of arriving at `g` with clip motion `m` (world), see the module docs.
    fn cost(&self, g: FrameRef, m: &PlanarMotion, desired: &[PlanarMotion; 3]) -> f64 {
        let w = &self.weights;
        let feat = self.index.get(g);
        let start = m.compose(&feat.heading);
        let mut cost = 0.0;
        for k in 0..HORIZON.len() {
            let p = start.compose(&feat.future[k]);
            let d = &desired[k];
            cost += w.position * ((p.x - d.x).powi(2) + (p.z - d.z).powi(2)).sqrt()
                + w.facing * wrap_angle(p.yaw - d.yaw).abs();
        }
        let c = &self.intent.command;
        let first = start.compose(&feat.future[0]);
        if c.speed > 0.1 && feat.speed > 0.1 {
            let travel = (-(first.z - start.z)).atan2(first.x - start.x);
            cost += w.direction * wrap_angle(c.direction - travel).abs();
        }
        cost += w.speed * (c.speed - feat.speed).abs();
        let clip = &self.graph.graph.clips[g.clip];
        let family = match &clip.joins {
            // A connection counts as the gait it leads into.
            Some(j) => self
                .graph
                .graph
                .clips
                .iter()
                .find(|o| o.name == j.to)
                .map_or(clip.family.as_str(), |o| o.family.as_str()),
            None => clip.family.as_str(),
        };
        if !c.gait.matches(family) {
            cost += w.gait;
        }
        if w.route > 0.0 {
            let gait = c.gait;
            let route = self.routes.closest(c.speed, |f| {
                if gait.matches(f) {
                    0.0
                } else {
                    w.gait / w.speed.max(1e-9)
                }
            });
            if let Some(r) = route {
                cost += w.route * r.time(g).min(ROUTE_CAP);
            }
        }
        cost
    }

    /// Picks the edge out of the current frame; returns (next frame, motion, blended?).
    fn decide(&mut self, desired: &[PlanarMotion; 3]) -> Option<(FrameRef, PlanarMotion, bool)> {
        let f = self.current;
        // Never into a frame outside the graph's strongly connected component (a dead end).
        let go_on = self.graph.next(f).filter(|(n, _)| self.graph.inside(*n));
        let cooling = matches!(self.mode, Mode::Steer)
            && self.since_blend < self.weights.cooldown
            && self.held_since_blend.iter().any(|&h| h);
        let mut branches: Vec<(usize, FrameRef, PlanarMotion, f64, bool)> = self
            .graph
            .branches(f)
            .filter(|(_, t)| self.graph.inside(t.to) && (t.exact || !cooling))
            .map(|(k, t)| (k, t.to, t.motion, t.cost, t.exact))
            .collect();
        // Barred transitions are left out, unless playing on is a dead end.
        if go_on.is_some() {
            branches.retain(|b| !self.barred.bars(b.1.clip));
        }
        if branches.is_empty() {
            let (n, m) = go_on?;
            return Some((n, m, false));
        }
        let chosen = match self.mode {
            Mode::RandomWalk { probability, .. } => {
                let take = go_on.is_none() || self.rng.random_bool(probability.clamp(0.0, 1.0));
                if take {
                    let i = self.rng.random_range(0..branches.len());
                    Some(i)
                } else {
                    None
                }
            }
            Mode::Steer => {
                let threshold = self.graph.graph.settings.threshold.max(1e-6);
                let continue_cost = go_on
                    .map(|(n, m)| self.cost(n, &self.world.compose(&m), desired))
                    .unwrap_or(f64::INFINITY);
                let mut best: Option<(usize, f64)> = None;
                for (i, &(_, to, m, d, exact)) in branches.iter().enumerate() {
                    let mut c = self.cost(to, &self.world.compose(&m), desired);
                    if !exact {
                        c += self.weights.transition * d / threshold;
                    }
                    if best.is_none_or(|(_, b)| c < b) {
                        best = Some((i, c));
                    }
                }
                let take = best.filter(|&(_, c)| c < continue_cost - self.weights.margin);
                self.last_decision = Some(Decision {
                    transition: take.map(|(i, _)| branches[i].0),
                    cost: take.map_or(continue_cost, |(_, c)| c),
                    continue_cost,
                    candidates: branches.len() + usize::from(go_on.is_some()),
                });
                take.map(|(i, _)| i)
            }
            Mode::Policy => {
                let c = &self.intent.command;
                let heading = self.world.compose(&self.index.get(f).heading).yaw;
                let pick = self.policy.as_ref().and_then(|p| {
                    let node = p.node_of(f)?;
                    let (level, theta) = (
                        p.level_of(c.speed, c.gait),
                        wrap_angle(c.direction - heading),
                    );
                    let facing = wrap_angle(c.facing - heading);
                    let edge = p.choose(node, level, theta, facing)?;
                    Some((edge.transition, p.value(node, level, theta, facing)))
                });
                // A blended transition the cooldown holds back plays on.
                let chosen = pick
                    .and_then(|(t, _)| t)
                    .and_then(|k| branches.iter().position(|b| b.0 == k));
                let value = pick.map_or(f64::NAN, |(_, v)| v);
                self.last_decision = Some(Decision {
                    transition: chosen.map(|i| branches[i].0),
                    cost: value,
                    continue_cost: value,
                    candidates: branches.len() + usize::from(go_on.is_some()),
                });
                chosen
            }
        };
        match chosen {
            Some(i) => {
                let (_, to, m, _, exact) = branches[i];
                self.transitions_taken += 1;
                Some((to, m, !exact))
            }
            None => {
                let (n, m) = go_on?;
                Some((n, m, false))
            }
        }
    }

    /// Root-motion warping (Holden's "adjustment"): while travelling, turns the played motion
    /// by the gap between the desired facing and the heading the clip will have a horizon step
    /// ahead, at most `warp_rate`. The clips do the turning; this closes what their turn rates
    /// leave (and lets a graph of straight mocap turn at all). The turn pivots about the held
    /// feet when a foot is locked, as a walker pivots on the stance foot, else about the root:
    /// turned about the root, the animated foot left its lock by the turn times its distance
    /// from the root (up to 20 cm/s at 45 °/s), out of the leg's reach by the end of the stance
    /// (4.3 cm of slide on the scripted run).
    fn warp(&mut self, dt: f64) {
        let w = self.weights;
        if w.warp_rate <= 0.0 || self.intent.command.speed <= 0.0 {
            return;
        }
        let ahead = self.predicted()[0];
        let desired = self.desired()[0];
        let gap = wrap_angle(desired.yaw - ahead.yaw);
        let rate = (gap / w.warp_halflife.max(1e-3)).clamp(-w.warp_rate, w.warp_rate);
        match self.locks.held_centre() {
            Some(p) => self.turn_about(p.x, p.z, rate * dt),
            None => self.turn_world(rate * dt),
        }
    }

    /// The clip's torques a fraction `s` of the way from frame `f` to the next.
    fn torques_at(&self, f: FrameRef, s: f64) -> Option<Vec<f64>> {
        let of = |f: FrameRef| self.graph.clips[f.clip].torques.as_ref()?.get(f.frame);
        let a = of(f)?;
        let b = self.graph.next(f).and_then(|(n, _)| of(n)).unwrap_or(a);
        Some(a.iter().zip(b).map(|(x, y)| x + s * (y - x)).collect())
    }

    /// The feet planted from frame `f` to the frame after it: a clip's contact flags are
    /// samples at its frames, and the gait NLP holds a foot only at its contact frames, so a
    /// foot is planted over an interval only when it is down at both ends. (Between a stance's
    /// last frame and the first swing frame the solved foot moves 8–13 cm along the ground;
    /// held there, the leg could not reach its lock.)
    fn planted(&self, f: FrameRef) -> Vec<bool> {
        let mut down = self.graph.clips[f.clip]
            .contacts
            .get(f.frame)
            .cloned()
            .unwrap_or_default();
        if let Some((n, _)) = self.graph.next(f)
            && let Some(then) = self.graph.clips[n.clip].contacts.get(n.frame)
        {
            for (d, t) in down.iter_mut().zip(then) {
                *d = *d && *t;
            }
        }
        down
    }

    /// The heading frame (world) of the character now: the current frame's, towards the next.
    pub fn heading(&self) -> PlanarMotion {
        let f = self.current;
        let a = self.world.compose(&self.index.get(f).heading);
        match self.graph.next(f) {
            Some((n, m)) => {
                let b = self.world.compose(&m).compose(&self.index.get(n).heading);
                lerp(&a, &b, self.time_in_frame / self.graph.frame_time(f))
            }
            None => a,
        }
    }

    /// The desired trajectory from where the character is now.
    pub fn desired(&self) -> [PlanarMotion; 3] {
        self.intent.predict(&self.heading())
    }

    /// The trajectory the current clip would follow from here.
    pub fn predicted(&self) -> [PlanarMotion; 3] {
        let feat = self.index.get(self.current);
        let start = self.world.compose(&feat.heading);
        feat.future.map(|f| start.compose(&f))
    }

    /// Advances by `dt` seconds with the controls `stick`; the pose to show.
    pub fn step(&mut self, stick: &Stick, dt: f64) -> Output {
        let rest = Stick::default();
        let stick = match self.brake_left > 0.0 {
            true => {
                self.brake_left -= dt;
                &rest
            }
            false => stick,
        };
        self.intent.update(stick, dt);
        self.inertia.update(dt);
        self.time_in_frame += dt;
        self.since_blend += dt;
        // Decisions at every frame boundary passed (several at low render rates).
        let mut guard = 0;
        while self.time_in_frame >= self.graph.frame_time(self.current) && guard < 100 {
            guard += 1;
            self.time_in_frame -= self.graph.frame_time(self.current);
            let desired = self.desired();
            let Some((next, m, blended)) = self.decide(&desired) else {
                // A dead end (outside the graph's component): stay on the last frame.
                self.time_in_frame = 0.0;
                break;
            };
            let mut new_world = self.world.compose(&m);
            if self.graph.next(self.current).map(|(n, _)| n) != Some(next) {
                // Where the old path would be now.
                let (from, from_dt) = self.placed_next(self.current, &self.world);
                // A transition lands the new clip where the graph aligned it (point clouds within
                // the threshold, 25 cm here), which can put a planted foot 10–25 cm from where
                // the old clip had it. Shift the new clip on the ground so that its feet that
                // stay planted are where the old path's are: the feet then hold without the IK
                // stretching, and the root's shift is inertialized with the rest.
                let to = self.placed(next, &new_world);
                if let Some(d) =
                    self.locks
                        .planted_shift(&self.graph.character, &from, &to, &self.planted(next))
                {
                    let shift = PlanarMotion {
                        x: d.x,
                        z: d.z,
                        yaw: 0.0,
                    };
                    new_world = shift.compose(&new_world);
                }
                if blended {
                    self.since_blend = 0.0;
                    self.held_since_blend = self.planted(next);
                    // The old path against the new one.
                    let (from_next, _) = match self.graph.next(self.current) {
                        Some((n, s)) => self.placed_next(n, &self.world.compose(&s)),
                        None => (from.clone(), from_dt),
                    };
                    let to = self.placed(next, &new_world);
                    let (to_next, to_dt) = self.placed_next(next, &new_world);
                    self.inertia
                        .transition(&from, &from_next, from_dt, &to, &to_next, to_dt);
                }
            }
            self.world = new_world;
            self.current = next;
            let down = self.planted(next);
            for (h, d) in self.held_since_blend.iter_mut().zip(down) {
                *h = *h && d;
            }
        }
        self.warp(dt);
        let f = self.current;
        let s = (self.time_in_frame / self.graph.frame_time(f)).clamp(0.0, 1.0);
        let a = self.placed(f, &self.world);
        let (b, _) = self.placed_next(f, &self.world);
        let mut pose = blend(&a, &b, s);
        pose = self.inertia.apply(&pose);
        let contacts = self.planted(f);
        self.locks
            .apply(&self.graph.character, &mut pose, &contacts, dt);
        Output {
            pose,
            contacts,
            frame: f,
            heading: self.heading(),
            torques: self.torques_at(f, s),
        }
    }
}

/// Between two poses: positions and joint coordinates linearly, the root's rotation by slerp.
pub fn blend(a: &ClipFrame, b: &ClipFrame, s: f64) -> ClipFrame {
    let (qa, qb) = (quat_of(&a.root), quat_of(&b.root));
    let p = Vector3::new(
        a.root[0] + s * (b.root[0] - a.root[0]),
        a.root[1] + s * (b.root[1] - a.root[1]),
        a.root[2] + s * (b.root[2] - a.root[2]),
    );
    ClipFrame {
        root: pose_of(p, &qa.slerp(&qb, s)),
        joints: a
            .joints
            .iter()
            .zip(&b.joints)
            .map(|(x, y)| x + s * (y - x))
            .collect(),
    }
}

/// A way to tell which gait the intent asks for from outside (for reports).
pub fn gait_name(g: Gait) -> &'static str {
    match g {
        Gait::Stand => "stand",
        Gait::Walk => "walk",
        Gait::Run => "run",
    }
}
