//! The motion-graph controller as a Markov decision process (Wampler 2012, thesis §5.2–5.3):
//! the state is a graph frame and the task parameters, here the travel direction θ_v and the
//! speed s_t the user asks for (and the facing θ_r, when asked); an action is an edge out of the frame; the task parameters move
//! by a Markov user model; the value of every (frame, s_t, θ_v) comes from value iteration, and
//! the policy takes the edge of least expected discounted cost.
//!
//! - **Relative task parameters.** The costs and the user model do not change when the world
//!   turns, so the value is kept over θ = θ_v − ψ, the asked direction seen from the frame's
//!   heading ψ, on `bins` evenly spaced angles, and likewise over the asked facing θ_r − ψ on
//!   `facing_bins` angles when the facing is a task parameter. An edge that turns the heading by
//!   Δψ takes both to their value − Δψ (read between bins bilinearly).
//! - **Task cost** (thesis §5.3, with the erratum's wrapped angle): direction following, the
//!   angle between θ and the frame's own travel direction, |wrap(θ − atan2(v))|, on a frame that
//!   travels (a frame slower than [`MOVING_SPEED`] costs π/2, what a random direction costs on
//!   average), counted while the asked speed is not zero; and speed, `speed_weight`·|s_t − ‖v‖|
//!   over a few speed levels (none: direction alone); and torso orientation, when the facing is
//!   a task parameter, `facing_weight`·|wrap(θ_r − ψ)| with θ_r the asked facing, which only a
//!   strafing clip (travel at an angle to its heading) can meet together with a direction;
//!   and gait type, when asked (a gait task's synthesis; steering on a graph whose runs the
//!   speed cannot tell from its walks, [`walks_and_runs`]), `gait_weight` on every frame of another
//!   gait than the asked one (the thesis's mismatch penalty; a frame's gait is its clip's family,
//!   a connection's the clip it leaves for its first half and the one it enters for the second,
//!   as its contact schedule is theirs).
//!   A blended transition adds its frame
//!   distance over the graph's threshold, times `blend_weight` (the biomechanical term the
//!   thesis weights 1 to 0.1 against the task's).
//! - **User model** (thesis §5.3, each parameter on its own): each frame, θ_v is kept, jumps to
//!   a uniform angle, or moves by a Gaussian step, and the level (s_t and the gait g_t) is kept
//!   or jumps to a uniformly drawn one; the thesis gives no probabilities, so they come from rates per second (a player's
//!   stick every 1–4 s), which keeps the model independent of the frame rate. The discount is
//!   per second for the same reason.
//! - **Controller quality** cost(G) (thesis Eq. 5.2): samples spread evenly over (frame, s_t, θ_v)
//!   are advected by the policy and the user model; the mean cost per frame over the last half
//!   of the run approximates the cost under the influence function.
//!
//! The MDP is Bevy-free and built from a graph's frames and edges ([`SteeringMdp::from_graph`])
//! or from any frames and edges (tests, synthetic graphs).

use super::index::SteeringIndex;
use super::intent::Gait;
use crate::model::planar::wrap_angle;
use crate::motion_graph::{FrameRef, LoadedGraph};
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
    /// Jumps of the asked speed (and gait, when asked) to a uniformly drawn level per second.
    pub speed_changes_per_second: f64,
}

impl Default for UserModel {
    /// A player who picks a new direction every 2.5 s on average (the steering trials' stick
    /// timelines hold each setting 1–4 s) and nudges it about once a second by 20°.
    fn default() -> Self {
        Self {
            jumps_per_second: 0.4,
            steps_per_second: 1.0,
            step_sigma: 20f64.to_radians(),
            speed_changes_per_second: 0.3,
        }
    }
}

/// The MDP's settings.
#[derive(Clone, Debug, PartialEq)]
pub struct MdpSettings {
    /// Directions the value is kept at.
    pub bins: usize,
    /// Speed levels the asked speed is kept at (m/s); empty: the direction alone.
    pub speeds: Vec<f64>,
    /// Weight of the speed cost (per m/s) against the direction's (per rad).
    pub speed_weight: f64,
    /// Gaits the user may ask for (each speed level with each gait); empty: the gait is not a
    /// task parameter.
    pub gaits: Vec<Gait>,
    /// The cost (rad) of a frame of another gait than the asked one.
    pub gait_weight: f64,
    /// Facings the value is kept at (the torso-orientation task θ_r); 0: the facing is not a
    /// task parameter.
    pub facing_bins: usize,
    /// Weight of the facing cost (per rad) against the direction's.
    pub facing_weight: f64,
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

/// The spread of the clips' speeds (m/s) within which a graph moves at one speed
/// ([`MdpSettings::for_graph`]): the speed tolerance steering is held to.
pub const ONE_SPEED: f64 = 0.2;

/// The slowest and the fastest clip of a graph's strongly connected component, by the mean
/// ground speed of its frames there (m/s; a walk's speed swings within a stride, and a turn's
/// more).
pub fn clip_speeds(graph: &LoadedGraph) -> (f64, f64) {
    let index = SteeringIndex::new(graph);
    let mut range = (f64::INFINITY, f64::NEG_INFINITY);
    for (ci, c) in graph.clips.iter().enumerate() {
        let speeds: Vec<f64> = (0..c.frames.len())
            .map(|frame| FrameRef { clip: ci, frame })
            .filter(|&f| graph.inside(f))
            .map(|f| index.get(f).speed)
            .collect();
        if !speeds.is_empty() {
            let mean = speeds.iter().sum::<f64>() / speeds.len() as f64;
            range = (range.0.min(mean), range.1.max(mean));
        }
    }
    range
}

/// A cycle that travels at least this far off its heading strafes ([`MdpSettings::for_graph`]).
pub const STRAFING: f64 = 10.0 * PI / 180.0;

impl MdpSettings {
    /// The defaults with the stick's speed levels (m/s): standing, the walks at the smallest, a
    /// middle and the full deflection, and the run ([`super::intent::SpeedRange`]'s).
    pub fn with_stick_speeds() -> Self {
        Self::with_speeds(&super::intent::SpeedRange::default())
    }

    /// The defaults with the speed levels of `r`: standing, the walks at the smallest, a middle
    /// and the full deflection, and the run.
    pub fn with_speeds(r: &super::intent::SpeedRange) -> Self {
        Self {
            speeds: vec![0.0, r.walk.0, 0.5 * (r.walk.0 + r.walk.1), r.walk.1, r.run],
            ..Self::default()
        }
    }

    /// The stick's speeds ([`Self::with_stick_speeds`]), and the facing as a task parameter on
    /// `facing_bins` angles when some cycle of the graph strafes (travels more than [`STRAFING`]
    /// off its heading): only such a graph can follow a direction and a facing apart.
    ///
    /// A graph whose clips all move at one speed (within [`ONE_SPEED`], none standing) cannot
    /// answer the asked speed, and every speed level would get nearly the same policy: there the
    /// speed is not a task parameter, and the policy solves several times faster (the simple
    /// biped's synthesized direction controller, or a facing one whose strafes join the walk
    /// in one stride).
    pub fn for_graph(graph: &LoadedGraph, facing_bins: usize) -> Self {
        let strafes = graph
            .graph
            .clips
            .iter()
            .any(|c| c.strafe().abs() > STRAFING);
        let stick = Self::with_speeds(&super::intent::SpeedRange::of_graph(&graph.graph));
        let (slowest, fastest) = clip_speeds(graph);
        let speeds = if slowest >= MOVING_SPEED && fastest - slowest <= ONE_SPEED {
            Vec::new()
        } else {
            stick.speeds.clone()
        };
        Self {
            facing_bins: if strafes { facing_bins } else { 0 },
            speeds,
            gaits: walks_and_runs(graph),
            ..stick
        }
    }
}

impl Default for MdpSettings {
    fn default() -> Self {
        Self {
            bins: 32,
            speeds: Vec::new(),
            speed_weight: 1.0,
            gaits: Vec::new(),
            gait_weight: 1.0,
            facing_bins: 0,
            facing_weight: 1.0,
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
    /// Its ground speed (m/s).
    pub speed: f64,
    /// Its travel direction seen from its heading (rad), when it travels.
    pub travel: Option<f64>,
    /// Its gait ([`frame_gait`]), when known (a frame of no known gait pays no gait cost).
    pub gait: Option<Gait>,
    pub edges: Vec<Edge>,
    /// What playing the frame costs whatever is asked: the biomechanical term of the thesis's
    /// per-frame cost (Eq. 5.1), already weighted against the task's (0 in a graph played for
    /// its task alone).
    pub effort: f64,
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

/// The solved MDP: values and the greedy policy over (frame, speed level, facing bin,
/// direction bin).
#[derive(Clone, Debug)]
pub struct SteeringMdp {
    pub nodes: Vec<Node>,
    pub settings: MdpSettings,
    /// Node index of each graph frame (`None` outside the MDP).
    frames: Vec<Vec<Option<usize>>>,
    /// V(node, speed level, facing bin, direction bin), row-major.
    value: Vec<f64>,
    /// The edge (index into the node's edges) the policy takes at each cell of `value`.
    choice: Vec<u32>,
    /// Sweeps value iteration took, and the largest change in the last one.
    pub sweeps: usize,
    pub residual: f64,
}

impl SteeringMdp {
    /// The MDP of a graph's frames inside its strongly connected component: an edge for playing
    /// on and one per transition (blended ones cost `blend_weight` × distance / threshold); each
    /// frame costs its clip's `effort` (a synthesized controller's, else 0).
    pub fn from_graph(graph: &LoadedGraph, settings: MdpSettings) -> Self {
        Self::with_effort(graph, settings, &|f| graph.graph.clips[f.clip].effort)
    }

    /// [`Self::from_graph`] with each frame's weighted biomechanical cost (`effort`, see
    /// [`Node::effort`]).
    pub fn with_effort(
        graph: &LoadedGraph,
        settings: MdpSettings,
        effort: &dyn Fn(FrameRef) -> f64,
    ) -> Self {
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
                    speed: feat.speed,
                    travel,
                    gait: frame_gait(graph, f),
                    edges,
                    effort: effort(f),
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
        // A facing kept at all is kept on 4 angles at least.
        let facing_bins = match settings.facing_bins {
            0 => 0,
            f => f.max(4),
        };
        let cells =
            settings.speeds.len().max(1) * settings.gaits.len().max(1) * facing_bins.max(1) * bins;
        let n = nodes.len();
        let mut mdp = Self {
            nodes,
            settings: MdpSettings {
                bins,
                facing_bins,
                ..settings
            },
            frames: Vec::new(),
            value: vec![0.0; n * cells],
            choice: vec![0; n * cells],
            sweeps: 0,
            residual: f64::INFINITY,
        };
        mdp.solve();
        mdp
    }

    fn bin_angle(&self, b: usize) -> f64 {
        b as f64 * TAU / self.settings.bins as f64
    }

    /// Levels: each speed level with each gait (1 when neither is a task parameter); level l
    /// asks for speed `l / gaits` and gait `l % gaits`.
    pub fn levels(&self) -> usize {
        self.settings.speeds.len().max(1) * self.gaits()
    }

    /// Gaits (1 when the gait is not a task parameter).
    fn gaits(&self) -> usize {
        self.settings.gaits.len().max(1)
    }

    /// Facing bins (1 when the facing is not a task parameter).
    pub fn facings(&self) -> usize {
        self.settings.facing_bins.max(1)
    }

    fn facing_angle(&self, f: usize) -> f64 {
        f as f64 * TAU / self.facings() as f64
    }

    /// Cells of one node: speed levels × facing bins × direction bins.
    fn row(&self) -> usize {
        self.levels() * self.facings() * self.settings.bins
    }

    /// The first cell of (node, level, facing bin).
    fn cell(&self, node: usize, level: usize, facing: usize) -> usize {
        ((node * self.levels() + level) * self.facings() + facing) * self.settings.bins
    }

    /// The level of an asked speed and gait: the nearest speed level (0 when the speed is not a
    /// task parameter) with the gait (a stop asks for a walk; 0 when the gait is not a task
    /// parameter).
    pub fn level_of(&self, speed: f64, gait: Gait) -> usize {
        let s = (0..self.settings.speeds.len())
            .min_by(|&a, &b| {
                let d = |l: usize| (self.settings.speeds[l] - speed).abs();
                d(a).total_cmp(&d(b))
            })
            .unwrap_or(0);
        let gait = if gait == Gait::Stand {
            Gait::Walk
        } else {
            gait
        };
        let g = self
            .settings
            .gaits
            .iter()
            .position(|&x| x == gait)
            .unwrap_or(0);
        s * self.gaits() + g
    }

    /// The cost of a node at level `level` (speed and gait), relative direction θ and relative
    /// facing φ (the asked facing seen from the frame's heading; unused when the facing is not a
    /// task parameter): the task's, plus the frame's effort.
    pub fn task_cost(&self, node: usize, level: usize, theta: f64, facing: f64) -> f64 {
        let nd = &self.nodes[node];
        let gait = match self.settings.gaits.get(level % self.gaits()) {
            Some(&asked) if nd.gait.is_some_and(|g| g != asked) => self.settings.gait_weight,
            _ => 0.0,
        };
        let level = level / self.gaits();
        let direction = match nd.travel {
            Some(travel) => wrap_angle(theta - travel).abs(),
            None => PI / 2.0,
        };
        let facing = if self.settings.facing_bins > 0 {
            self.settings.facing_weight * wrap_angle(facing).abs()
        } else {
            0.0
        };
        nd.effort
            + facing
            + gait
            + match self.settings.speeds.get(level) {
                None => direction,
                Some(&asked) => {
                    let speed = self.settings.speed_weight * (asked - nd.speed).abs();
                    if asked >= MOVING_SPEED {
                        speed + direction
                    } else {
                        speed
                    }
                }
            }
    }

    /// The user model's move of the asked direction over one frame of `dt` seconds, as weights
    /// over bin offsets (index j: moved by j bins, modulo `bins`); they sum to 1.
    pub fn user_kernel(&self, dt: f64) -> Vec<f64> {
        self.kernel_over(dt, self.settings.bins)
    }

    /// [`Self::user_kernel`] over `bins` bins (the facing's are moved by the same model).
    fn kernel_over(&self, dt: f64, bins: usize) -> Vec<f64> {
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

    /// The kernel of a frame time over `bins` bins as its uniform part (the jumps: a share of
    /// the row's mean) and its few other taps (staying and the Gaussian steps, whose tails under
    /// 1e-6 a frame go to staying).
    fn sparse_kernel(&self, dt: f64, bins: usize) -> Kernel {
        let jump = (self.settings.user.jumps_per_second * dt).clamp(0.0, 1.0);
        let all: Vec<(usize, f64)> = self
            .kernel_over(dt, bins)
            .iter()
            .enumerate()
            .map(|(j, w)| (j, w - jump / bins as f64))
            .collect();
        let mut taps: Vec<(usize, f64)> = all
            .iter()
            .copied()
            .filter(|&(j, w)| j == 0 || w > 1e-6)
            .collect();
        taps[0].1 += all
            .iter()
            .filter(|&&(j, w)| j != 0 && w <= 1e-6)
            .map(|p| p.1)
            .sum::<f64>();
        Kernel { bins, jump, taps }
    }

    /// An angle's place among `bins` bins around the circle: the bin at or below it and the
    /// share of the way to the next.
    fn between_bins(angle: f64, bins: usize) -> (usize, f64) {
        let x = angle.rem_euclid(TAU) / (TAU / bins as f64);
        let i = x.floor();
        ((i as usize) % bins, x - i)
    }

    /// Values of one (node, level) block, `facings` rows of `bins` directions, at a relative
    /// direction and facing between bins (bilinear, around both circles).
    fn value_at(values: &[f64], bins: usize, facings: usize, theta: f64, facing: f64) -> f64 {
        let (i, s) = Self::between_bins(theta, bins);
        let (j, t) = if facings > 1 {
            Self::between_bins(facing, facings)
        } else {
            (0, 0.0)
        };
        let at = |f: usize, b: usize| values[(f % facings) * bins + b % bins];
        (1.0 - t) * ((1.0 - s) * at(j, i) + s * at(j, i + 1))
            + t * ((1.0 - s) * at(j + 1, i) + s * at(j + 1, i + 1))
    }

    /// Each edge's turn as a shift of the direction bins and of the facing bins: θ_b − turn lies
    /// `frac` of the way from bin b + `offset` to the next (the same for every b), and so does
    /// the facing.
    fn shifts(&self) -> Vec<Vec<[(usize, f64); 2]>> {
        let (bins, facings) = (self.settings.bins, self.facings());
        self.nodes
            .iter()
            .map(|nd| {
                nd.edges
                    .iter()
                    .map(|e| {
                        let shift = |n: usize| {
                            let x = -e.turn / (TAU / n as f64);
                            let floor = x.floor();
                            ((floor as i64).rem_euclid(n as i64) as usize, x - floor)
                        };
                        [shift(bins), shift(facings)]
                    })
                    .collect()
            })
            .collect()
    }

    /// The best edge at (node, level, facing bin, direction bin) against the expected values W:
    /// its index and Q.
    fn best_edge(
        &self,
        shifts: &[Vec<[(usize, f64); 2]>],
        expected: &[f64],
        v: usize,
        level: usize,
        f: usize,
        b: usize,
    ) -> (u32, f64) {
        let (bins, facings) = (self.settings.bins, self.facings());
        let mut best = (0u32, f64::INFINITY);
        for (k, (e, [(offset, frac), (f_offset, f_frac)])) in
            self.nodes[v].edges.iter().zip(&shifts[v]).enumerate()
        {
            let block = self.cell(e.to, level, 0);
            let w = &expected[block..block + facings * bins];
            let (i, j) = ((b + offset) % bins, (f + f_offset) % facings);
            let at = |f: usize, b: usize| w[(f % facings) * bins + b % bins];
            let q = if facings > 1 {
                e.cost
                    + (1.0 - f_frac) * ((1.0 - frac) * at(j, i) + frac * at(j, i + 1))
                    + f_frac * ((1.0 - frac) * at(j + 1, i) + frac * at(j + 1, i + 1))
            } else {
                e.cost + (1.0 - frac) * at(0, i) + frac * at(0, i + 1)
            };
            if q < best.1 {
                best = (k as u32, q);
            }
        }
        best
    }

    /// Value iteration (Gauss–Seidel over the nodes) to `tolerance`, then the greedy policy.
    fn solve(&mut self) {
        let (bins, levels, facings) = (self.settings.bins, self.levels(), self.facings());
        let n = self.nodes.len();
        let row = self.row();
        let block = facings * bins;
        // One kernel per distinct frame time (a graph's clips share one or two rates), for the
        // directions and for the facings.
        let mut kernels: Vec<(f64, Kernel, Kernel)> = Vec::new();
        for node in &self.nodes {
            let dt = node.frame_time;
            if !kernels.iter().any(|(t, _, _)| *t == dt) {
                kernels.push((
                    dt,
                    self.sparse_kernel(dt, bins),
                    self.sparse_kernel(dt, facings),
                ));
            }
        }
        let node_kernel: Vec<usize> = self
            .nodes
            .iter()
            .map(|nd| {
                kernels
                    .iter()
                    .position(|(t, _, _)| *t == nd.frame_time)
                    .unwrap_or(0)
            })
            .collect();
        let discount: Vec<f64> = self
            .nodes
            .iter()
            .map(|nd| self.settings.discount_per_second.powf(nd.frame_time))
            .collect();
        let change: Vec<f64> = self
            .nodes
            .iter()
            .map(|nd| {
                if levels > 1 {
                    (self.settings.user.speed_changes_per_second * nd.frame_time).clamp(0.0, 1.0)
                } else {
                    0.0
                }
            })
            .collect();
        let costs: Vec<f64> = (0..n * row)
            .map(|i| {
                let (v, c) = (i / row, i % row);
                let (level, f, b) = (c / block, (c / bins) % facings, c % bins);
                self.task_cost(v, level, self.bin_angle(b), self.facing_angle(f))
            })
            .collect();
        // W(node, ·): the expected value of V(node, ·) after the user moves the asked
        // direction, facing and speed (with the kernel of the frame that is left).
        let mut expected = vec![0.0; n * row];
        let shifts = self.shifts();
        let (mut sweeps, mut residual) = (0, f64::INFINITY);
        let mut new_row = vec![0.0; row];
        let mut moved = vec![0.0; row];
        let mut turned = vec![0.0; row];
        while sweeps < self.settings.max_sweeps && residual > self.settings.tolerance {
            sweeps += 1;
            residual = 0.0;
            for v in 0..n {
                for l in 0..levels {
                    for f in 0..facings {
                        for b in 0..bins {
                            let (_, q) = self.best_edge(&shifts, &expected, v, l, f, b);
                            // A frame with no edge ends play: nothing more to pay.
                            let future = if q.is_finite() { q } else { 0.0 };
                            let c = (l * facings + f) * bins + b;
                            new_row[c] = costs[v * row + c] + discount[v] * future;
                        }
                    }
                }
                for (i, x) in new_row.iter().enumerate() {
                    residual = residual.max((x - self.value[v * row + i]).abs());
                    self.value[v * row + i] = *x;
                }
                // Refresh W for this node (Gauss–Seidel: later nodes see it this sweep): the
                // directions move, then the facings, then the speed level.
                let (_, direction, facing) = &kernels[node_kernel[v]];
                for (r, out) in new_row.chunks(bins).zip(moved.chunks_mut(bins)) {
                    direction.apply(r, out, 1);
                }
                if facings > 1 {
                    for l in 0..levels {
                        for b in 0..bins {
                            let at = l * block + b;
                            facing.apply(&moved[at..], &mut turned[at..], bins);
                        }
                    }
                    std::mem::swap(&mut moved, &mut turned);
                }
                for c in 0..block {
                    let mean =
                        (0..levels).map(|l| moved[l * block + c]).sum::<f64>() / levels as f64;
                    for l in 0..levels {
                        expected[v * row + l * block + c] =
                            (1.0 - change[v]) * moved[l * block + c] + change[v] * mean;
                    }
                }
            }
        }
        for v in 0..n {
            for l in 0..levels {
                for f in 0..facings {
                    for b in 0..bins {
                        self.choice[v * row + (l * facings + f) * bins + b] =
                            self.best_edge(&shifts, &expected, v, l, f, b).0;
                    }
                }
            }
        }
        self.sweeps = sweeps;
        self.residual = residual;
    }

    /// V at a node, speed level, relative direction and relative facing (the facing is unused
    /// when it is not a task parameter).
    pub fn value(&self, node: usize, level: usize, theta: f64, facing: f64) -> f64 {
        let (bins, facings) = (self.settings.bins, self.facings());
        let at = self.cell(node, level.min(self.levels() - 1), 0);
        Self::value_at(
            &self.value[at..at + facings * bins],
            bins,
            facings,
            theta,
            facing,
        )
    }

    /// The policy's edge at a node for speed level `level`, relative direction θ and relative
    /// facing φ (the nearest bins' choice), or `None` at a frame with no edge.
    pub fn choose(&self, node: usize, level: usize, theta: f64, facing: f64) -> Option<&Edge> {
        let nearest =
            |a: f64, n: usize| (a.rem_euclid(TAU) / (TAU / n as f64)).round() as usize % n;
        let (b, f) = (
            nearest(theta, self.settings.bins),
            nearest(facing, self.facings()),
        );
        let at = self.cell(node, level.min(self.levels() - 1), f) + b;
        self.nodes[node].edges.get(self.choice[at] as usize)
    }

    /// The node of a graph frame (built by [`Self::from_graph`]).
    pub fn node_of(&self, f: FrameRef) -> Option<usize> {
        *self.frames.get(f.clip)?.get(f.frame)?
    }
}

/// The user model's move of one asked angle over one frame, on `bins` bins: a uniform jump (a
/// share of the bins' mean) and a few taps (bin offset, weight).
#[derive(Clone, Debug)]
struct Kernel {
    bins: usize,
    jump: f64,
    taps: Vec<(usize, f64)>,
}

impl Kernel {
    /// out[k·stride] = jump · mean + Σ_taps w · row[((k + j) mod bins)·stride], k < bins.
    fn apply(&self, row: &[f64], out: &mut [f64], stride: usize) {
        let n = self.bins;
        let mean = (0..n).map(|k| row[k * stride]).sum::<f64>() / n as f64;
        for k in 0..n {
            out[k * stride] = self.jump * mean
                + self
                    .taps
                    .iter()
                    .map(|&(j, w)| w * row[((k + j) % n) * stride])
                    .sum::<f64>();
        }
    }
}

#[path = "mdp_gait.rs"]
mod gait;
pub use gait::{frame_gait, walks_and_runs};

#[path = "mdp_quality.rs"]
mod quality;

#[cfg(test)]
#[path = "mdp_tests.rs"]
mod tests;
