//! The motion-graph controller as a Markov decision process (Wampler 2012, thesis §5.2–5.3):
//! the state is a graph frame and the task parameter, here the travel direction θ_v the user
//! asks for; an action is an edge out of the frame; the task parameter moves by a Markov user
//! model; the value of every (frame, θ_v) comes from value iteration, and the policy takes the
//! edge of least expected discounted cost.
//!
//! - **Relative task parameter.** The costs and the user model do not change when the world
//!   turns, so the value is kept over θ = θ_v − ψ, the asked direction seen from the frame's
//!   heading ψ, on `bins` evenly spaced angles. An edge that turns the heading by Δψ takes θ to
//!   θ − Δψ (read between bins linearly).
//! - **Task cost** (thesis §5.3, direction following, with the erratum's wrapped angle): the
//!   angle between θ and the frame's own travel direction, |wrap(θ − atan2(v))|, on a frame that
//!   travels; a frame slower than [`MOVING_SPEED`] costs π/2, what a random direction costs on
//!   average. A blended transition adds its frame distance over the graph's threshold, times
//!   `blend_weight` (the biomechanical term the thesis weights 1 to 0.1 against the task's).
//! - **User model** (thesis §5.3): each frame, θ_v is kept, jumps to a uniform angle, or moves by
//!   a Gaussian step; the thesis gives no probabilities, so they come from rates per second
//!   (a player's stick every 1–4 s), which keeps the model independent of the frame rate. The
//!   discount is per second for the same reason.
//! - **Controller quality** cost(G) (thesis Eq. 5.2): samples spread evenly over (frame, θ_v)
//!   are advected by the policy and the user model; the mean cost per frame over the last half
//!   of the run approximates the cost under the influence function.
//!
//! The MDP is Bevy-free and built from a graph's frames and edges ([`DirectionMdp::from_graph`])
//! or from any frames and edges (tests, synthetic graphs).

use super::index::SteeringIndex;
use crate::model::planar::wrap_angle;
use crate::motion_graph::{FrameRef, LoadedGraph};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use rand_distr::{Distribution, StandardNormal};
use std::f64::consts::{PI, TAU};

/// A frame slower than this (m/s) does not travel: its direction cost is π/2.
pub const MOVING_SPEED: f64 = 0.1;

/// How the user moves the asked direction (thesis §5.3's Markov user model), as rates per second.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct UserModel {
    /// Jumps to a uniformly drawn direction per second.
    pub jumps_per_second: f64,
    /// Gaussian steps per second, and their standard deviation (rad).
    pub steps_per_second: f64,
    pub step_sigma: f64,
}

impl Default for UserModel {
    /// A player who picks a new direction every 2.5 s on average (the steering trials' stick
    /// timelines hold each setting 1–4 s) and nudges it about once a second by 20°.
    fn default() -> Self {
        Self {
            jumps_per_second: 0.4,
            steps_per_second: 1.0,
            step_sigma: 20f64.to_radians(),
        }
    }
}

/// The MDP's settings.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct MdpSettings {
    /// Directions the value is kept at.
    pub bins: usize,
    /// Discount per second of play.
    pub discount_per_second: f64,
    pub user: UserModel,
    /// Weight of a blended transition's frame distance (per graph threshold) against the task
    /// cost (rad).
    pub blend_weight: f64,
    /// Value iteration stops when no value changes by more than this, or after `max_sweeps`.
    pub tolerance: f64,
    pub max_sweeps: usize,
}

impl Default for MdpSettings {
    fn default() -> Self {
        Self {
            bins: 32,
            discount_per_second: 0.3,
            user: UserModel::default(),
            blend_weight: 0.3,
            tolerance: 1e-6,
            max_sweeps: 5000,
        }
    }
}

/// One frame of the MDP.
#[derive(Clone, Debug, PartialEq)]
pub struct Node {
    /// Seconds to the next frame.
    pub frame_time: f64,
    /// Its travel direction seen from its heading (rad), when it travels.
    pub travel: Option<f64>,
    pub edges: Vec<Edge>,
}

/// One edge out of a frame.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Edge {
    pub to: usize,
    /// The turn of the heading from this frame to the next (rad).
    pub turn: f64,
    /// What taking it costs on top of the frame's task cost.
    pub cost: f64,
    /// The graph transition it is, or `None` for playing on.
    pub transition: Option<usize>,
}

/// The solved MDP: values and the greedy policy over (frame, direction bin).
#[derive(Clone, Debug)]
pub struct DirectionMdp {
    pub nodes: Vec<Node>,
    pub settings: MdpSettings,
    /// Node index of each graph frame (`None` outside the MDP).
    frames: Vec<Vec<Option<usize>>>,
    /// V(node, bin), row-major by node.
    value: Vec<f64>,
    /// The edge (index into the node's edges) the policy takes at (node, bin).
    choice: Vec<u32>,
    /// Sweeps value iteration took, and the largest change in the last one.
    pub sweeps: usize,
    pub residual: f64,
}

impl DirectionMdp {
    /// The MDP of a graph's frames inside its strongly connected component: an edge for playing
    /// on and one per transition (blended ones cost `blend_weight` × distance / threshold).
    pub fn from_graph(graph: &LoadedGraph, settings: MdpSettings) -> Self {
        let index = SteeringIndex::new(graph);
        let mut frames: Vec<Vec<Option<usize>>> = graph
            .clips
            .iter()
            .map(|c| vec![None; c.frames.len()])
            .collect();
        let mut refs = Vec::new();
        for (ci, c) in graph.clips.iter().enumerate() {
            for frame in 0..c.frames.len() {
                let f = FrameRef { clip: ci, frame };
                if graph.inside(f) {
                    frames[ci][frame] = Some(refs.len());
                    refs.push(f);
                }
            }
        }
        let threshold = graph.graph.settings.threshold.max(1e-6);
        let heading = |f: FrameRef| index.get(f).heading.yaw;
        let nodes = refs
            .iter()
            .map(|&f| {
                let feat = index.get(f);
                let first = feat.future[0];
                let travel = (feat.speed >= MOVING_SPEED).then(|| (-first.z).atan2(first.x));
                let mut edges = Vec::new();
                let mut edge = |to: FrameRef, yaw: f64, cost: f64, transition| {
                    if let Some(node) = frames[to.clip][to.frame] {
                        edges.push(Edge {
                            to: node,
                            turn: wrap_angle(yaw + heading(to) - heading(f)),
                            cost,
                            transition,
                        });
                    }
                };
                if let Some((n, m)) = graph.next(f) {
                    edge(n, m.yaw, 0.0, None);
                }
                for (k, t) in graph.branches(f) {
                    let blend = if t.exact {
                        0.0
                    } else {
                        settings.blend_weight * t.cost / threshold
                    };
                    edge(t.to, t.motion.yaw, blend, Some(k));
                }
                Node {
                    frame_time: graph.frame_time(f),
                    travel,
                    edges,
                }
            })
            .collect();
        let mut mdp = Self::new(nodes, settings);
        mdp.frames = frames;
        mdp
    }

    /// The MDP of these nodes, solved by value iteration.
    pub fn new(nodes: Vec<Node>, settings: MdpSettings) -> Self {
        let bins = settings.bins.max(4);
        let n = nodes.len();
        let mut mdp = Self {
            nodes,
            settings: MdpSettings { bins, ..settings },
            frames: Vec::new(),
            value: vec![0.0; n * bins],
            choice: vec![0; n * bins],
            sweeps: 0,
            residual: f64::INFINITY,
        };
        mdp.solve();
        mdp
    }

    fn bin_angle(&self, b: usize) -> f64 {
        b as f64 * TAU / self.settings.bins as f64
    }

    /// The task cost of a node at relative direction θ.
    pub fn task_cost(&self, node: usize, theta: f64) -> f64 {
        match self.nodes[node].travel {
            Some(travel) => wrap_angle(theta - travel).abs(),
            None => PI / 2.0,
        }
    }

    /// The user model's transition over one frame of `dt` seconds, as weights over bin offsets
    /// (index j: the asked direction moved by j bins, modulo `bins`); they sum to 1.
    pub fn user_kernel(&self, dt: f64) -> Vec<f64> {
        let bins = self.settings.bins;
        let u = &self.settings.user;
        let jump = (u.jumps_per_second * dt).clamp(0.0, 1.0);
        let step = (u.steps_per_second * dt).clamp(0.0, 1.0 - jump);
        let keep = 1.0 - jump - step;
        let mut k = vec![jump / bins as f64; bins];
        k[0] += keep;
        let width = TAU / bins as f64;
        let sigma = u.step_sigma.max(1e-9);
        let gauss: Vec<f64> = (0..bins)
            .map(|j| {
                let d = wrap_angle(j as f64 * width);
                (-(d * d) / (2.0 * sigma * sigma)).exp()
            })
            .collect();
        let total: f64 = gauss.iter().sum();
        for (kj, g) in k.iter_mut().zip(&gauss) {
            *kj += step * g / total;
        }
        k
    }

    /// V of a node at a relative direction between bins (linear, around the circle).
    fn value_at(values: &[f64], bins: usize, theta: f64) -> f64 {
        let x = theta.rem_euclid(TAU) / (TAU / bins as f64);
        let i = (x.floor() as usize) % bins;
        let s = x - x.floor();
        (1.0 - s) * values[i] + s * values[(i + 1) % bins]
    }

    /// Value iteration (Gauss–Seidel over the nodes) to `tolerance`, then the greedy policy.
    fn solve(&mut self) {
        let bins = self.settings.bins;
        let n = self.nodes.len();
        // One kernel per distinct frame time (a graph's clips share one or two rates).
        let mut kernels: Vec<(f64, Vec<f64>)> = Vec::new();
        for node in &self.nodes {
            if !kernels.iter().any(|(t, _)| *t == node.frame_time) {
                kernels.push((node.frame_time, self.user_kernel(node.frame_time)));
            }
        }
        let kernel_of = |t: f64| kernels.iter().position(|(k, _)| *k == t).unwrap_or(0);
        let node_kernel: Vec<usize> = self.nodes.iter().map(|n| kernel_of(n.frame_time)).collect();
        let discount: Vec<f64> = self
            .nodes
            .iter()
            .map(|n| self.settings.discount_per_second.powf(n.frame_time))
            .collect();
        let costs: Vec<f64> = (0..n * bins)
            .map(|i| self.task_cost(i / bins, self.bin_angle(i % bins)))
            .collect();
        // W(node, ·) = the user kernel applied to V(node, ·): the expected value after the user
        // moves the asked direction (the kernel of the frame that is left).
        let mut expected = vec![0.0; n * bins];
        let mut sweeps = 0;
        let mut residual = f64::INFINITY;
        let mut new_row = vec![0.0; bins];
        while sweeps < self.settings.max_sweeps && residual > self.settings.tolerance {
            sweeps += 1;
            residual = 0.0;
            for v in 0..n {
                let kernel = &kernels[node_kernel[v]].1;
                for b in 0..bins {
                    let mut best = f64::INFINITY;
                    for e in &self.nodes[v].edges {
                        let row = &expected[e.to * bins..(e.to + 1) * bins];
                        let q = e.cost + Self::value_at(row, bins, self.bin_angle(b) - e.turn);
                        best = best.min(q);
                    }
                    if !best.is_finite() {
                        // A frame with no edge: it ends play; nothing more to pay.
                        best = 0.0;
                    }
                    new_row[b] = costs[v * bins + b] + discount[v] * best;
                }
                for b in 0..bins {
                    residual = residual.max((new_row[b] - self.value[v * bins + b]).abs());
                    self.value[v * bins + b] = new_row[b];
                }
                // Refresh W for this node (Gauss–Seidel: later nodes see it this sweep).
                for b in 0..bins {
                    expected[v * bins + b] =
                        (0..bins).map(|j| kernel[j] * new_row[(b + j) % bins]).sum();
                }
            }
        }
        for v in 0..n {
            for b in 0..bins {
                let mut best = (f64::INFINITY, 0u32);
                for (k, e) in self.nodes[v].edges.iter().enumerate() {
                    let row = &expected[e.to * bins..(e.to + 1) * bins];
                    let q = e.cost + Self::value_at(row, bins, self.bin_angle(b) - e.turn);
                    if q < best.0 {
                        best = (q, k as u32);
                    }
                }
                self.choice[v * bins + b] = best.1;
            }
        }
        self.sweeps = sweeps;
        self.residual = residual;
    }

    /// V at a node and relative direction.
    pub fn value(&self, node: usize, theta: f64) -> f64 {
        let bins = self.settings.bins;
        Self::value_at(&self.value[node * bins..(node + 1) * bins], bins, theta)
    }

    /// The policy's edge at a node for relative direction θ (the nearest bin's choice), or
    /// `None` at a frame with no edge.
    pub fn choose(&self, node: usize, theta: f64) -> Option<&Edge> {
        let bins = self.settings.bins;
        let b = (theta.rem_euclid(TAU) / (TAU / bins as f64)).round() as usize % bins;
        self.nodes[node]
            .edges
            .get(self.choice[node * bins + b] as usize)
    }

    /// The node of a graph frame (built by [`Self::from_graph`]).
    pub fn node_of(&self, f: FrameRef) -> Option<usize> {
        *self.frames.get(f.clip)?.get(f.frame)?
    }

    /// Controller quality cost(G) (thesis Eq. 5.2): `samples` states spread evenly over the
    /// nodes and directions, each advected `frames` frames by the policy and by draws of the
    /// user model (seeded); the mean cost per frame over the second half.
    pub fn quality(&self, samples: usize, frames: usize, seed: u64) -> f64 {
        let n = self.nodes.len();
        if n == 0 || samples == 0 {
            return 0.0;
        }
        let mut rng = ChaCha8Rng::seed_from_u64(seed);
        let (mut total, mut count) = (0.0, 0usize);
        for s in 0..samples {
            let mut node = s * n / samples;
            // The asked direction in the world and the heading: θ = θ_v − ψ.
            let mut theta = (s as f64 * 0.618_033_988_75 * TAU).rem_euclid(TAU);
            for k in 0..frames {
                let edge = self.choose(node, theta).copied();
                if k >= frames / 2 {
                    total += self.task_cost(node, theta) + edge.map_or(0.0, |e| e.cost);
                    count += 1;
                }
                let Some(e) = edge else { break };
                let dt = self.nodes[node].frame_time;
                theta = wrap_angle(theta - e.turn);
                node = e.to;
                // The user moves the asked direction.
                let u = &self.settings.user;
                let r: f64 = rng.random();
                let jump = u.jumps_per_second * dt;
                if r < jump {
                    theta = rng.random_range(-PI..PI);
                } else if r < jump + u.steps_per_second * dt {
                    let z: f64 = StandardNormal.sample(&mut rng);
                    theta = wrap_angle(theta + u.step_sigma * z);
                }
            }
        }
        total / count.max(1) as f64
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Three cyclic "clips" of `len` frames at 30 Hz: straight, turning left and turning right
    /// (each frame turns by ±`rate`/30 rad), travelling along their heading; with `turns`, a
    /// transition at every frame between the straight clip and each turning one, both ways.
    fn three_cycles(len: usize, rate: f64, turns: bool, blend: f64) -> Vec<Node> {
        let dt = 1.0 / 30.0;
        let mut nodes = Vec::new();
        for clip in 0..3 {
            let turn = [0.0, rate * dt, -rate * dt][clip];
            for i in 0..len {
                let next = clip * len + (i + 1) % len;
                let mut edges = vec![Edge {
                    to: next,
                    turn,
                    cost: 0.0,
                    transition: None,
                }];
                if turns {
                    let others: &[usize] = if clip == 0 { &[1, 2] } else { &[0] };
                    for &o in others {
                        edges.push(Edge {
                            to: o * len + (i + 1) % len,
                            turn: [0.0, rate * dt, -rate * dt][o],
                            cost: blend,
                            transition: Some(o),
                        });
                    }
                }
                nodes.push(Node {
                    frame_time: dt,
                    travel: Some(0.0),
                    edges,
                });
            }
        }
        nodes
    }

    #[test]
    fn the_user_kernel_is_a_distribution_that_keeps_most_mass_in_place() {
        let mdp = DirectionMdp::new(three_cycles(4, 1.0, false, 0.0), MdpSettings::default());
        let k = mdp.user_kernel(1.0 / 30.0);
        assert!((k.iter().sum::<f64>() - 1.0).abs() < 1e-12);
        assert!(k.iter().all(|w| *w >= 0.0));
        // Per frame: 1 − (0.4 + 1.0)/30 stays put, plus the Gaussian's and the jump's share.
        assert!(k[0] > 1.0 - 1.4 / 30.0, "{k:?}");
        // Symmetric: as likely to move one bin left as right.
        let b = k.len();
        assert!((k[1] - k[b - 1]).abs() < 1e-12);
    }

    /// The policy turns towards the asked direction: asked 90° to the left on the straight
    /// clip, it transitions into the left turn; to the right, into the right turn; straight
    /// ahead, it plays on. Value iteration converged, and the value grows with the angle off.
    #[test]
    fn the_policy_turns_towards_the_asked_direction() {
        let mdp = DirectionMdp::new(three_cycles(10, 1.5, true, 0.05), MdpSettings::default());
        assert!(mdp.residual <= 1e-6, "residual {}", mdp.residual);
        let straight = 3;
        let left = mdp.choose(straight, PI / 2.0).unwrap();
        assert_eq!(left.transition, Some(1), "{left:?}");
        let right = mdp.choose(straight, -PI / 2.0).unwrap();
        assert_eq!(right.transition, Some(2), "{right:?}");
        let ahead = mdp.choose(straight, 0.0).unwrap();
        assert_eq!(ahead.transition, None, "{ahead:?}");
        assert!(mdp.value(straight, 0.0) < mdp.value(straight, PI / 4.0));
        assert!(mdp.value(straight, PI / 4.0) < mdp.value(straight, PI / 2.0));
        // Turning left and asked straight ahead: back to the straight clip.
        let back = mdp.choose(10 + 3, 0.0).unwrap();
        assert_eq!(back.to / 10, 0, "{back:?}");
    }

    /// The thesis's measure of a graph: with the turns the expected cost per frame is far lower
    /// than with the straight clip alone (which can never follow a change of direction); the
    /// straight-only graph's cost is the mean angle off a uniformly moving direction, π/2.
    #[test]
    fn turns_lower_the_expected_cost_of_the_graph() {
        let alone = DirectionMdp::new(three_cycles(10, 1.5, false, 0.0), MdpSettings::default());
        let turning = DirectionMdp::new(three_cycles(10, 1.5, true, 0.05), MdpSettings::default());
        let (a, t) = (alone.quality(64, 1800, 1), turning.quality(64, 1800, 1));
        assert!((a - PI / 2.0).abs() < 0.25, "straight only: {a}");
        assert!(t < 0.5 * a, "with turns {t} against {a}");
        // Seeded: the same figure again.
        assert_eq!(t, turning.quality(64, 1800, 1));
    }
}
