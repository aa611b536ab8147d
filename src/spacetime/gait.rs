//! Cyclic gaits with fixed contact timings: the "treadmill" spacetime NLP of specs/004.md §1.2
//! (Wampler thesis §3.2), solved with IPOPT.
//!
//! A gait cycle is [`FRAMES`] = 30 frames of period T (dt = T/30). Every time derivative wraps
//! cyclically (frame 29 is followed by frame 0) and the creature stays in place overall: feet in
//! contact slide backwards at the gait speed V, as on a treadmill.
//!
//! # Variables (§1.2 "Variables")
//! - q_i, every joint coordinate of every frame (the free root's six included);
//! - per rotational joint coordinate j (not the root's): spring stiffness k_sj ≥ 0, rest value q̄_j
//!   (within the joint's limits) and damping k_dj ≥ 0, constant over the cycle (3.12–3.13);
//! - per foot and **contact frame** (from the [`FootTiming`]s): force f and free torque t, stored
//!   mass-normalised as f/m (m/s²) and t/(m ν) (see 3.11 below). Feet out of contact carry no
//!   variables.
//!
//! # Constraints (all rows mass-normalised where they involve forces)
//! - (3.2) every node (limb end point, and a limb's origin where it is not another node) has
//!   y ≥ 0;
//! - (3.3) a foot in contact has y = 0;
//! - (3.4) a foot in contact moves at −V: between consecutive contact frames i, i+1 (cyclically,
//!   so a window crossing the cycle end ties frame 29 to frame 0), p_{i+1} − p_i = (−V·dt, ·, 0)
//!   (its y is held by 3.3). Lift-off and touch-down frames are not constrained further;
//! - (3.5) no twist of a contact foot about y: R_{x,z} − R_{z,x} = 0 for the foot limb's R;
//! - (3.6) ‖p_{k,2} − p_{k,1}‖² ≥ r² for every separation pair of the creature file;
//! - (3.7) Σ_i root_x = Σ_i root_z = 0;
//! - (3.8)–(3.9) Newton–Euler about the centre of mass with every limb a point mass at its centre
//!   (§1.2), per frame and divided by m: Σ_k m_k a_k/m − g − Σ f/m = 0 and
//!   Σ_k m_k (c_k − CM) × a_k/m − Σ [(p_c − CM) × f/m + t/m] = 0, with the limb centres'
//!   accelerations a_k = (c_{k,i+1} − 2c_{k,i} + c_{k,i−1})/dt² (cyclic). (For point masses
//!   d/dt Σ m(c − CM) × v = Σ m(c − CM) × a exactly.)
//! - (3.10) Coulomb friction, the exact cone written smoothly: (μ f_y/m)² − ‖f_xz/m‖² ≥ 0;
//! - (3.11) the torque ellipsoid: (f_y/m)² − ‖t_xz/(m ν_b)‖² − (t_y/(m ν_t))² ≥ 0;
//!
//!   with f_y/m ≥ [`MIN_NORMAL_FORCE`] as a bound, which keeps both away from the cone's apex
//!   (where their gradients vanish) and selects the upper nappe: a foot in contact presses on the
//!   ground with at least 0.1% of the body weight. The torque is stored as t/(m ν) (ν_b for x, z
//!   and ν_t for y), a fixed rescaling of t/m that gives torque and force variables the same
//!   scale (ν = 0.02 m would otherwise make the torque variables 50 times smaller).
//!
//! # Objective (3.14)–(3.17), averaged over the frames
//! (1/N)·Σ_i [C₁/m·Σ_j t_a,ij² + C₂·Σ_q q̇² + C₃·‖ṗ_head⊥‖² + C₄·‖R_head − I‖²_F] with
//! C₁..C₄ = 25, 0.1, 25, 100 ([`GaitWeights::THESIS`]). The joint torques t come from recursive
//! Newton–Euler inverse dynamics ([`inverse_dynamics`], cylinder limbs, the contact loads of the
//! frame applied to the feet) at q̇ = (q_{i+1} − q_{i−1})/2dt and q̈ = (q_{i+1} − 2q_i + q_{i−1})/dt²;
//! the active torque is t_a = t − t_p with the passive torque t_p = −k_s(q − q̄) − k_d·q̇ (3.12–3.13).
//! The velocity terms (3.15)–(3.16) use forward differences (frame i to i+1), so a frame-to-frame
//! zigzag is penalised too; "perpendicular to the gait velocity" is the head's y and z velocity
//! (the head point is the distal end of the head limb).
//!
//! Derivatives: the problem is a [`BlockProblem`]; every constraint block (one frame's kinematic
//! rows, one contact pair's slip, one frame's momentum balance, one contact's cones) and objective
//! term (one frame's effort, one frame pair's smoothness) reads a few frames only, and
//! [`super::AutoDiff`] differentiates it exactly by reverse-mode differentiation on a tape
//! ([`super::tape`]; second-order adjoints for the Hessian), the blocks in parallel and summed in
//! a fixed order (the same bits on any number of threads).
//!
//! Solving: L-BFGS alone approaches the optimum slowly here (the 1/dt² of the dynamics spreads
//! the curvature over many orders of magnitude): on the simple-biped walk (0.7 m/s, default
//! timing) it is at cost 33.6 after 400 iterations and 28.8 after 600. The exact Hessian alone,
//! from the rest pose, converges there (1.300, IPOPT's tolerance met at iteration 405, 22 s) but
//! can go astray where the curvature is strongly indefinite (monoped hop, 0.7 m/s: 43.7 after
//! 3,000 heavily regularised iterations, against L-BFGS's 28.8 after 300). So the default solve
//! ([`solve_gait_staged`]) runs 300 L-BFGS iterations and then the exact Hessian from the clip
//! reached: the biped walk converges at 1.090 (714 iterations, 25 s), the monoped hop at 8.22
//! (1,883 + 300, 30 s). Every objective term is a sum of squares ([`GaitProblem`] gives its
//! residuals), so [`super::Curvature::GaussNewton`] offers 2JᵀJ plus the exact constraint
//! curvature as a further choice. A solve stopped by its iteration limit is projected onto the
//! constraints by [`solve_gait`] (the nearest feasible point, a second IPOPT solve that converges
//! in a few iterations): the clip is feasible to ≈1e-9, but its cost is then **not** an optimum.
//! The cheapest nearly feasible iterates the solve passed are projected too, and the cheapest
//! projection wins. (The exact Hessian is checked against differences of the Lagrangian's
//! gradient and against forward-mode dual numbers.)
//!
//! [`audit`] re-checks a finished [`GaitClip`] physically, without the constraint code: momentum
//! from finite differences of the limb centres (linear momentum and angular momentum about the
//! moving centre of mass between frames), the exact cones, contact heights and slip, the wrap
//! from the last frame to the first included.

use super::autodiff::{BlockProblem, BlockSpec, Scalar, TermSpec};
use super::dynamics::{FootLoad, forward_kinematics, inverse_dynamics};
use super::morphology::{
    LENGTH_SCALE, LimbShape, MorphologyOptions, RADIUS_SCALE, ShapeGroups, limb_shapes, moment_arm,
    muscle_area, muscle_residuals, reshaped,
};
use super::nlp::NlpError;
use super::rotation::Vec3;
use super::skeleton::{GRAVITY, Morphology, Skeleton};
use serde::{Deserialize, Serialize};

/// Frames per gait cycle (specs/004.md §0.3, §1.2).
pub const FRAMES: usize = 30;
/// Coulomb friction coefficient μ (§1.2, the same for all animals).
pub const MU: f64 = 1.0;
/// Torque-ellipsoid radii ν_b = ν_t (m) of (3.11).
pub const NU: f64 = 0.02;
/// Smallest normal force of a foot in contact, mass-normalised (m/s²): 0.1% of the weight.
pub const MIN_NORMAL_FORCE: f64 = 0.00981;

/// The weights C₁..C₄ of (3.14)–(3.17).
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct GaitWeights {
    /// C₁, active joint torque (3.14).
    pub effort: f64,
    /// C₂, joint velocity (3.15).
    pub joint_velocity: f64,
    /// C₃, head velocity perpendicular to the gait (3.16).
    pub head_velocity: f64,
    /// C₄, head orientation (3.17).
    pub head_orientation: f64,
}

impl GaitWeights {
    /// C₁..C₄ = 25, 0.1, 25, 100, "the same for all animals and gaits".
    pub const THESIS: GaitWeights = GaitWeights {
        effort: 25.0,
        joint_velocity: 0.1,
        head_velocity: 25.0,
        head_orientation: 100.0,
    };
}

/// One foot's contact window: it touches the ground from `start` for `duration`, both fractions of
/// the period (§1.3: exactly one interval per foot and cycle). A window may cross the cycle's end.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct FootTiming {
    /// The foot's limb name.
    pub foot: String,
    pub start: f64,
    pub duration: f64,
}

/// What is wrong with a gait request.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum GaitError {
    #[error("gait speed must be finite, found {0}")]
    Speed(f64),
    #[error("gait period must be a positive number of seconds, found {0}")]
    Period(f64),
    #[error("`{0}` is not a foot of this creature (feet: {1})")]
    UnknownFoot(String, String),
    #[error(
        "foot `{0}` has two contact windows; each foot touches the ground in exactly one interval per cycle"
    )]
    DuplicateFoot(String),
    #[error("foot `{0}` has no contact window")]
    MissingFoot(String),
    #[error(
        "foot `{foot}`: expected start in [0, 1) and duration in (0, 1], found start {start}, duration {duration}"
    )]
    Window {
        foot: String,
        start: f64,
        duration: f64,
    },
    #[error("foot `{0}`: its window covers no frame of the {1}-frame cycle")]
    EmptyWindow(String, usize),
    #[error(
        "foot `{0}` is in contact all cycle long, which a treadmill moving at {1} m/s cannot allow"
    )]
    FullContact(String, f64),
    #[error("contacts: expected `foot:start:duration` items separated by commas, found {0:?}")]
    Syntax(String),
    #[error("cannot start from that clip: {0}")]
    WarmStart(String),
    #[error("the clip sizes limb `{0}`, which creature `{1}` does not have")]
    UnknownLimb(String, String),
    #[error("not a usable clip of `{0}`: {1}")]
    InvalidClip(String, String),
    #[error(transparent)]
    Nlp(#[from] NlpError),
}

/// Parses `foot:start:duration,...` (the CLI's `--contacts`).
pub fn parse_timings(text: &str) -> Result<Vec<FootTiming>, GaitError> {
    text.split(',')
        .map(str::trim)
        .filter(|s| !s.is_empty())
        .map(|item| {
            let parts: Vec<&str> = item.split(':').collect();
            let bad = || GaitError::Syntax(item.to_string());
            if parts.len() != 3 {
                return Err(bad());
            }
            Ok(FootTiming {
                foot: parts[0].trim().to_string(),
                start: parts[1].trim().parse().map_err(|_| bad())?,
                duration: parts[2].trim().parse().map_err(|_| bad())?,
            })
        })
        .collect()
}

/// Default timings and period for a creature with `feet` feet: one foot hops (contact half of a
/// 0.5 s cycle); otherwise foot k lands at k/n of a 1 s cycle and stays down for 0.6 of it (for
/// two feet: a walk, each foot 0.6 of the cycle, half a cycle apart, with double support).
pub fn default_timings(skeleton: &Skeleton) -> (f64, Vec<FootTiming>) {
    let n = skeleton.feet.len();
    let name = |k: usize| skeleton.limbs[skeleton.feet[k]].name.clone();
    if n == 1 {
        return (
            0.5,
            vec![FootTiming {
                foot: name(0),
                start: 0.0,
                duration: 0.5,
            }],
        );
    }
    (
        1.0,
        (0..n)
            .map(|k| FootTiming {
                foot: name(k),
                start: k as f64 / n as f64,
                duration: 0.6,
            })
            .collect(),
    )
}

/// A fixed-timing gait request: the inputs of §1.2.
#[derive(Debug, Clone)]
pub struct GaitSpec {
    pub skeleton: Skeleton,
    /// V (m/s along +x).
    pub speed: f64,
    /// T (s).
    pub period: f64,
    /// One window per foot, in the order of `skeleton.feet`.
    pub timings: Vec<FootTiming>,
    pub frames: usize,
    pub weights: GaitWeights,
    pub mu: f64,
    pub nu: f64,
    /// Seeds a small perturbation of the rest-pose initialisation (0: none).
    pub seed: u64,
    /// Co-optimise the limbs' lengths and radii (specs/004.md §1.5, [`super::morphology`]).
    pub morphology: Option<MorphologyOptions>,
    /// Start from this clip's motion, loads, springs and body instead of the rest pose
    /// ([`GaitSpec::with_warm_start`]).
    warm_start: Option<Box<GaitClip>>,
    /// contact[frame][foot].
    contact: Vec<Vec<bool>>,
}

impl GaitSpec {
    /// Validates the timings (every foot exactly once, in any order) and derives the contact flags.
    pub fn new(
        skeleton: Skeleton,
        speed: f64,
        period: f64,
        timings: &[FootTiming],
    ) -> Result<Self, GaitError> {
        if !speed.is_finite() {
            return Err(GaitError::Speed(speed));
        }
        if !(period > 0.0 && period.is_finite()) {
            return Err(GaitError::Period(period));
        }
        let names: Vec<String> = skeleton
            .feet
            .iter()
            .map(|&l| skeleton.limbs[l].name.clone())
            .collect();
        let mut ordered: Vec<Option<FootTiming>> = vec![None; names.len()];
        for t in timings {
            let k = names
                .iter()
                .position(|n| *n == t.foot)
                .ok_or_else(|| GaitError::UnknownFoot(t.foot.clone(), names.join(", ")))?;
            if ordered[k].is_some() {
                return Err(GaitError::DuplicateFoot(t.foot.clone()));
            }
            if !((0.0..1.0).contains(&t.start) && t.duration > 0.0 && t.duration <= 1.0) {
                return Err(GaitError::Window {
                    foot: t.foot.clone(),
                    start: t.start,
                    duration: t.duration,
                });
            }
            ordered[k] = Some(t.clone());
        }
        let timings: Vec<FootTiming> = ordered
            .into_iter()
            .zip(&names)
            .map(|(t, n)| t.ok_or_else(|| GaitError::MissingFoot(n.clone())))
            .collect::<Result<_, _>>()?;
        let mut spec = Self {
            skeleton,
            speed,
            period,
            timings,
            frames: FRAMES,
            weights: GaitWeights::THESIS,
            mu: MU,
            nu: NU,
            seed: 0,
            morphology: None,
            warm_start: None,
            contact: Vec::new(),
        };
        spec.contact = contact_flags(&spec.timings, spec.frames);
        for (k, t) in spec.timings.iter().enumerate() {
            if !spec.contact.iter().any(|c| c[k]) {
                return Err(GaitError::EmptyWindow(t.foot.clone(), spec.frames));
            }
            if spec.speed != 0.0 && spec.contact.iter().all(|c| c[k]) {
                return Err(GaitError::FullContact(t.foot.clone(), spec.speed));
            }
        }
        Ok(spec)
    }

    pub fn with_seed(mut self, seed: u64) -> Self {
        self.seed = seed;
        self
    }

    /// Makes the limbs' lengths and radii variables of the solve (specs/004.md §1.5).
    pub fn with_morphology(mut self, morphology: Option<MorphologyOptions>) -> Self {
        self.morphology = morphology;
        self
    }

    /// Starts the solve from `clip` (to refine a capped solve, or a discovery's best sample): its
    /// poses, its springs (by coordinate name), its loads where this timing has the foot down
    /// too (the weight shared where it has not), and its body's scales when both have a body.
    /// The clip must be of this creature with this many frames; its timing may differ.
    pub fn with_warm_start(mut self, clip: GaitClip) -> Result<Self, GaitError> {
        let dof = self.skeleton.dof();
        clip.check_creature(&self.skeleton)?;
        if clip.frames.len() != self.frames
            || clip.frames.iter().any(|q| q.len() != dof)
            || clip.contacts.len() != self.frames
            || clip
                .contacts
                .iter()
                .any(|c| c.len() != self.skeleton.feet.len())
        {
            return Err(GaitError::WarmStart(format!(
                "expected {} frames of {dof} coordinates and {} feet",
                self.frames,
                self.skeleton.feet.len()
            )));
        }
        clip.body(&self.skeleton)?;
        self.warm_start = Some(Box::new(clip));
        Ok(self)
    }

    /// Whether the solve starts from a clip.
    pub fn is_warm_started(&self) -> bool {
        self.warm_start.is_some()
    }

    /// dt = T/N.
    pub fn dt(&self) -> f64 {
        self.period / self.frames as f64
    }

    /// Whether foot `foot` (index into `skeleton.feet`) is in contact at `frame`.
    pub fn in_contact(&self, frame: usize, foot: usize) -> bool {
        self.contact[frame][foot]
    }

    /// contact[frame][foot] for the whole cycle.
    pub fn contacts(&self) -> &[Vec<bool>] {
        &self.contact
    }

    /// Some frame has no foot on the ground.
    pub fn has_flight(&self) -> bool {
        self.contact.iter().any(|c| !c.iter().any(|&b| b))
    }

    /// Some frame has two or more feet on the ground.
    pub fn has_double_support(&self) -> bool {
        self.contact
            .iter()
            .any(|c| c.iter().filter(|&&b| b).count() >= 2)
    }

    /// How much feet `a` and `b` (indices into `skeleton.feet`) are down together: the frames
    /// with both down over the frames of the shorter contact. 1: they land and lift together (a
    /// hop's feet, a trot's diagonal pair); 0: never down at the same time (a run's feet).
    pub fn contact_overlap(&self, a: usize, b: usize) -> f64 {
        contact_overlap(&self.contact, a, b)
    }
}

/// [`GaitSpec::contact_overlap`] of a contact table (`contact[frame][foot]`).
pub fn contact_overlap(contact: &[Vec<bool>], a: usize, b: usize) -> f64 {
    let count = |f: &dyn Fn(&Vec<bool>) -> bool| contact.iter().filter(|c| f(c)).count();
    let both = count(&|c| c[a] && c[b]);
    let shorter = count(&|c| c[a]).min(count(&|c| c[b]));
    both as f64 / shorter.max(1) as f64
}

/// Each foot's most synchronous partner (highest [`contact_overlap`], the lower index on ties),
/// as pairs (a < b) with their overlap, each pair once: a trot gives its two diagonal pairs.
pub fn feet_in_step(contact: &[Vec<bool>]) -> Vec<(usize, usize, f64)> {
    let feet = contact.first().map_or(0, |c| c.len());
    let mut pairs: Vec<(usize, usize, f64)> = Vec::new();
    for a in 0..feet {
        let best = (0..feet)
            .filter(|&b| b != a)
            .map(|b| (b, contact_overlap(contact, a, b)))
            .fold(None, |m: Option<(usize, f64)>, (b, o)| match m {
                Some((_, mo)) if mo >= o => m,
                _ => Some((b, o)),
            });
        if let Some((b, o)) = best {
            let pair = (a.min(b), a.max(b), o);
            if !pairs.iter().any(|p| (p.0, p.1) == (pair.0, pair.1)) {
                pairs.push(pair);
            }
        }
    }
    pairs
}

/// Frame i is in foot k's window when ((i − start·N) mod N) < duration·N.
fn contact_flags(timings: &[FootTiming], frames: usize) -> Vec<Vec<bool>> {
    let n = frames as f64;
    (0..frames)
        .map(|i| {
            timings
                .iter()
                .map(|t| {
                    let phase = (i as f64 - t.start * n).rem_euclid(n);
                    phase < t.duration * n - 1e-9
                })
                .collect()
        })
        .collect()
}

/// Where the variables live in x.
#[derive(Debug, Clone)]
struct Layout {
    dof: usize,
    frames: usize,
    /// Non-root rotational coordinates carrying passive elements.
    passive_dofs: Vec<usize>,
    passive_start: usize,
    /// force_start[frame][foot]: the first of the 6 load variables (f/m then t/m).
    force_start: Vec<Vec<Option<usize>>>,
    /// The shape variables (length scale, radius scale per limb group), last; empty without
    /// morphology.
    shape: std::ops::Range<usize>,
    n: usize,
}

impl Layout {
    /// `shape_vars`: the number of shape variables (twice the limb groups), 0 without morphology.
    fn new(spec: &GaitSpec, shape_vars: usize) -> Self {
        let dof = spec.skeleton.dof();
        let frames = spec.frames;
        let rotational = spec.skeleton.rotational_dofs();
        let passive_dofs: Vec<usize> = (6..dof).filter(|&d| rotational[d]).collect();
        let passive_start = frames * dof;
        let mut next = passive_start + 3 * passive_dofs.len();
        let force_start = (0..frames)
            .map(|i| {
                (0..spec.skeleton.feet.len())
                    .map(|k| {
                        spec.in_contact(i, k).then(|| {
                            next += 6;
                            next - 6
                        })
                    })
                    .collect()
            })
            .collect();
        Self {
            dof,
            frames,
            passive_dofs,
            passive_start,
            force_start,
            shape: next..next + shape_vars,
            n: next + shape_vars,
        }
    }

    fn q(&self, frame: usize, d: usize) -> usize {
        frame * self.dof + d
    }

    fn q_vars(&self, frame: usize) -> impl Iterator<Item = usize> + '_ {
        (0..self.dof).map(move |d| self.q(frame, d))
    }

    /// (stiffness, rest, damping) of passive coordinate p.
    fn passive(&self, p: usize) -> [usize; 3] {
        let s = self.passive_start + 3 * p;
        [s, s + 1, s + 2]
    }

    fn next(&self, i: usize) -> usize {
        (i + 1) % self.frames
    }

    fn prev(&self, i: usize) -> usize {
        (i + self.frames - 1) % self.frames
    }

    /// Feet in contact at frame i, with their first load variable.
    fn loads(&self, i: usize) -> Vec<(usize, usize)> {
        self.force_start[i]
            .iter()
            .enumerate()
            .filter_map(|(k, s)| s.map(|s| (k, s)))
            .collect()
    }
}

/// A point whose height is bounded below (3.2).
#[derive(Debug, Clone, Copy, PartialEq)]
enum Node {
    Origin(usize),
    End(usize),
}

#[derive(Debug, Clone, PartialEq)]
enum KinematicRow {
    Clearance(Node),
    FootHeight(usize),
    Twist(usize),
    Separation(usize),
    /// The head point's height (bounded below by the minimum head height).
    HeadHeight,
}

#[derive(Debug, Clone, PartialEq)]
enum Block {
    /// One frame's (3.2), (3.3), (3.5), (3.6) rows; variables q_i.
    Kinematic { rows: Vec<KinematicRow> },
    /// (3.4) for foot k between frame i and the next; variables q_i, q_{i+1}.
    Slip { foot: usize },
    /// (3.8)–(3.9) at one frame; variables q_{i−1}, q_i, q_{i+1}, then the frame's loads.
    Momentum { feet: Vec<usize> },
    /// (3.10)–(3.11) for one contact; variables f/m, t/(m ν).
    Cones,
    /// (3.7); variables every frame's root x, then every frame's root z.
    Centring,
}

#[derive(Debug, Clone, PartialEq)]
enum Term {
    /// (3.14) at one frame; variables q_{i−1}, q_i, q_{i+1}, passive (k_s, q̄, k_d)…, loads.
    Effort { feet: Vec<usize> },
    /// (3.15)–(3.17) at one frame; variables q_i, q_{i+1}.
    Smooth,
}

/// The fixed-timing gait NLP of §1.2, as a [`BlockProblem`] (wrap it in [`super::AutoDiff`]).
#[derive(Debug, Clone)]
pub struct GaitProblem {
    spec: GaitSpec,
    layout: Layout,
    /// The variable limb groups, with morphology.
    shapes: Option<ShapeGroups>,
    blocks: Vec<(Block, BlockSpec)>,
    terms: Vec<(Term, TermSpec)>,
    mass: f64,
}

impl GaitProblem {
    pub fn new(spec: GaitSpec) -> Self {
        let sk = &spec.skeleton;
        let shapes = spec
            .morphology
            .map(|m| ShapeGroups::new(sk, m.min_head_height.is_some()));
        let layout = Layout::new(&spec, shapes.as_ref().map_or(0, |g| 2 * g.len()));
        // Nodes: the root's origin and every limb end, plus any limb origin that is neither its
        // parent's origin (at = 0) nor its parent's end (at = 1) without offset.
        let mut nodes = vec![Node::Origin(0)];
        for (i, limb) in sk.limbs.iter().enumerate() {
            if i > 0 && limb.offset == [0.0; 3] && (limb.at == 0.0 || limb.at == 1.0) {
                // coincides with an existing node
            } else if i > 0 {
                nodes.push(Node::Origin(i));
            }
            nodes.push(Node::End(i));
        }
        let feet = sk.feet.len();
        let mut blocks = Vec::new();
        for i in 0..spec.frames {
            let mut rows = Vec::new();
            let (mut lower, mut upper) = (Vec::new(), Vec::new());
            for &node in &nodes {
                let contact_foot = match node {
                    Node::End(l) => sk
                        .feet
                        .iter()
                        .position(|&f| f == l)
                        .filter(|&k| spec.in_contact(i, k)),
                    Node::Origin(_) => None,
                };
                if contact_foot.is_none() {
                    rows.push(KinematicRow::Clearance(node));
                    lower.push(0.0);
                    upper.push(f64::INFINITY);
                }
            }
            for k in 0..feet {
                if spec.in_contact(i, k) {
                    rows.extend([KinematicRow::FootHeight(k), KinematicRow::Twist(k)]);
                    lower.extend([0.0, 0.0]);
                    upper.extend([0.0, 0.0]);
                }
            }
            for (s, sep) in sk.separations.iter().enumerate() {
                rows.push(KinematicRow::Separation(s));
                lower.push(sep.min_distance * sep.min_distance);
                upper.push(f64::INFINITY);
            }
            if let (Some(h), Some(_)) = (spec.morphology.and_then(|m| m.min_head_height), sk.head) {
                rows.push(KinematicRow::HeadHeight);
                lower.push(h);
                upper.push(f64::INFINITY);
            }
            let variables = layout.q_vars(i).chain(layout.shape.clone()).collect();
            blocks.push((
                Block::Kinematic { rows },
                BlockSpec {
                    variables,
                    lower,
                    upper,
                    linear: false,
                },
            ));
        }
        let dx = -spec.speed * spec.dt();
        for i in 0..spec.frames {
            let j = layout.next(i);
            for k in 0..feet {
                if spec.in_contact(i, k) && spec.in_contact(j, k) && i != j {
                    let variables = layout
                        .q_vars(i)
                        .chain(layout.q_vars(j))
                        .chain(layout.shape.clone())
                        .collect();
                    blocks.push((
                        Block::Slip { foot: k },
                        BlockSpec::equal(variables, vec![dx, 0.0]),
                    ));
                }
            }
        }
        for i in 0..spec.frames {
            let loads = layout.loads(i);
            let mut variables: Vec<usize> = layout
                .q_vars(layout.prev(i))
                .chain(layout.q_vars(i))
                .chain(layout.q_vars(layout.next(i)))
                .collect();
            for &(_, s) in &loads {
                variables.extend(s..s + 6);
            }
            variables.extend(layout.shape.clone());
            let feet = loads.iter().map(|l| l.0).collect();
            blocks.push((
                Block::Momentum { feet },
                BlockSpec::equal(variables, vec![0.0; 6]),
            ));
        }
        for i in 0..spec.frames {
            for (_, s) in layout.loads(i) {
                let spec_ = BlockSpec {
                    variables: (s..s + 6).collect(),
                    lower: vec![0.0; 2],
                    upper: vec![f64::INFINITY; 2],
                    linear: false,
                };
                blocks.push((Block::Cones, spec_));
            }
        }
        let centring: Vec<usize> = (0..spec.frames)
            .map(|i| layout.q(i, 3))
            .chain((0..spec.frames).map(|i| layout.q(i, 5)))
            .collect();
        blocks.push((
            Block::Centring,
            BlockSpec::equal(centring, vec![0.0, 0.0]).linear(),
        ));

        let mut terms = Vec::new();
        for i in 0..spec.frames {
            let loads = layout.loads(i);
            let mut variables: Vec<usize> = layout
                .q_vars(layout.prev(i))
                .chain(layout.q_vars(i))
                .chain(layout.q_vars(layout.next(i)))
                .collect();
            variables
                .extend(layout.passive_start..layout.passive_start + 3 * layout.passive_dofs.len());
            for &(_, s) in &loads {
                variables.extend(s..s + 6);
            }
            variables.extend(layout.shape.clone());
            terms.push((
                Term::Effort {
                    feet: loads.iter().map(|l| l.0).collect(),
                },
                TermSpec { variables },
            ));
        }
        for i in 0..spec.frames {
            let variables = layout
                .q_vars(i)
                .chain(layout.q_vars(layout.next(i)))
                .chain(layout.shape.clone())
                .collect();
            terms.push((Term::Smooth, TermSpec { variables }));
        }
        let mass = sk.total_mass();
        Self {
            spec,
            layout,
            shapes,
            blocks,
            terms,
            mass,
        }
    }

    pub fn spec(&self) -> &GaitSpec {
        &self.spec
    }

    /// Number of variables (for messages).
    pub fn variables(&self) -> usize {
        self.layout.n
    }

    /// q of every frame.
    pub fn poses(&self, x: &[f64]) -> Vec<Vec<f64>> {
        (0..self.spec.frames)
            .map(|i| self.layout.q_vars(i).map(|v| x[v]).collect())
            .collect()
    }

    /// The limbs' sizes at x, with morphology.
    pub fn limb_shapes(&self, x: &[f64]) -> Option<Vec<LimbShape>> {
        let groups = self.shapes.as_ref()?;
        let sk = &self.spec.skeleton;
        let morph = groups.morphology(sk, &x[self.layout.shape.clone()]);
        Some(limb_shapes(sk, &morph))
    }

    /// Overwrites the rest-pose start `x` with what `clip` has (see [`GaitSpec::with_warm_start`],
    /// which checked its sizes), clamped to the bounds.
    fn warm_start(&self, clip: &GaitClip, x: &mut [f64]) {
        let sk = &self.spec.skeleton;
        let (lo, hi) = sk.bounds();
        for (i, q) in clip.frames.iter().enumerate() {
            for (d, v) in q.iter().enumerate() {
                x[self.layout.q(i, d)] = v.clamp(lo[d], hi[d]);
            }
        }
        let names = sk.dof_names();
        for (p, &d) in self.layout.passive_dofs.iter().enumerate() {
            if let Some(e) = clip.passive.iter().find(|e| e.coordinate == names[d]) {
                let [ks, rest, kd] = self.layout.passive(p);
                x[ks] = e.stiffness.max(0.0);
                x[rest] = e.rest.clamp(lo[d], hi[d]);
                x[kd] = e.damping.max(0.0);
            }
        }
        let mass = clip.body(sk).map_or(self.mass, |b| b.total_mass());
        for (i, row) in self.layout.force_start.iter().enumerate() {
            for (k, s) in row.iter().enumerate() {
                if let (Some(s), Some(load)) = (s, &clip.contacts[i][k]) {
                    for c in 0..3 {
                        x[s + c] = load.force[c] / mass;
                        x[s + 3 + c] = load.torque[c] / (mass * self.torque_scale(c));
                    }
                    x[s + 1] = x[s + 1].max(MIN_NORMAL_FORCE);
                }
            }
        }
        if let (Some(groups), Some(shapes)) = (&self.shapes, &clip.morphology) {
            for (g, limbs) in groups.groups().iter().enumerate() {
                let limb = &sk.limbs[limbs[0]];
                if let Some(shape) = shapes.iter().find(|s| s.name == limb.name) {
                    let v = self.layout.shape.start + 2 * g;
                    x[v] = (shape.length / limb.length).clamp(LENGTH_SCALE.0, LENGTH_SCALE.1);
                    x[v + 1] = (shape.radius / limb.radius).clamp(RADIUS_SCALE.0, RADIUS_SCALE.1);
                }
            }
        }
    }

    /// Splits a block's variables into the others and the trailing shape variables, and returns
    /// the morphology those give (the file's, without morphology).
    fn shaped<'a, D: Scalar>(&self, x: &'a [D]) -> (&'a [D], Morphology<D>) {
        let (x, scales) = x.split_at(x.len() - self.layout.shape.len());
        let sk = &self.spec.skeleton;
        let morph = match &self.shapes {
            Some(groups) => groups.morphology(sk, scales),
            None => sk.morphology(),
        };
        (x, morph)
    }

    /// SI loads (force N, torque N·m) per frame and foot, `None` out of contact.
    pub fn loads(&self, x: &[f64]) -> Vec<Vec<Option<ContactLoad>>> {
        let mass = self.shaped(&x[self.layout.shape.clone()]).1.total_mass();
        self.layout
            .force_start
            .iter()
            .map(|row| {
                row.iter()
                    .map(|s| {
                        s.map(|s| ContactLoad {
                            force: std::array::from_fn(|c| x[s + c] * mass),
                            torque: std::array::from_fn(|c| {
                                x[s + 3 + c] * mass * self.torque_scale(c)
                            }),
                        })
                    })
                    .collect()
            })
            .collect()
    }

    /// The passive elements (3.13) at x.
    pub fn passive(&self, x: &[f64]) -> Vec<PassiveElement> {
        let names = self.spec.skeleton.dof_names();
        self.layout
            .passive_dofs
            .iter()
            .enumerate()
            .map(|(p, &d)| {
                let [ks, rest, kd] = self.layout.passive(p);
                PassiveElement {
                    coordinate: names[d].clone(),
                    stiffness: x[ks],
                    rest: x[rest],
                    damping: x[kd],
                }
            })
            .collect()
    }

    /// t/m = torque_scale(c)·x for torque component c: ν_b for x and z, ν_t for y.
    fn torque_scale(&self, _component: usize) -> f64 {
        self.spec.nu
    }

    /// A foot's torque t/m from its three stored variables.
    fn torque<D: Scalar>(&self, x: &[D]) -> Vec3<D> {
        Vec3::new(
            x[0].clone() * self.torque_scale(0),
            x[1].clone() * self.torque_scale(1),
            x[2].clone() * self.torque_scale(2),
        )
    }

    fn vec3<D: Scalar>(x: &[D]) -> Vec3<D> {
        Vec3::new(x[0].clone(), x[1].clone(), x[2].clone())
    }

    fn node<D: Scalar>(k: &super::dynamics::Kinematics<D>, node: Node) -> Vec3<D> {
        match node {
            Node::Origin(l) => k.limbs[l].origin.clone(),
            Node::End(l) => k.limbs[l].end.clone(),
        }
    }
    /// Objective term `term` as weighted residuals r (the term is Σ r²): every cost of
    /// (3.14)–(3.17) is a sum of squares, so the Gauss–Newton Hessian applies
    /// ([`super::autodiff::Curvature`]).
    fn residuals<D: Scalar>(&self, term: usize, x: &[D]) -> Vec<D> {
        let sk = &self.spec.skeleton;
        let (dof, dt, n) = (self.layout.dof, self.spec.dt(), self.spec.frames as f64);
        let w = &self.spec.weights;
        let (x, morph) = self.shaped(x);
        match &self.terms[term].0 {
            Term::Effort { feet } => {
                let (qm, rest) = x.split_at(dof);
                let (q, rest) = rest.split_at(dof);
                let (qp, rest) = rest.split_at(dof);
                let np = self.layout.passive_dofs.len();
                let (passive, loads) = rest.split_at(3 * np);
                let qd: Vec<D> = (0..dof)
                    .map(|d| (qp[d].clone() - &qm[d]) * (0.5 / dt))
                    .collect();
                let qdd: Vec<D> = (0..dof)
                    .map(|d| (qp[d].clone() - q[d].clone() * 2.0 + &qm[d]) * (1.0 / (dt * dt)))
                    .collect();
                let total = morph.total_mass();
                let loads: Vec<FootLoad<D>> = feet
                    .iter()
                    .enumerate()
                    .map(|(j, &k)| FootLoad {
                        foot: k,
                        force: Self::vec3(&loads[6 * j..]).scale(&total),
                        torque: self.torque(&loads[6 * j + 3..]).scale(&total),
                    })
                    .collect();
                let id = inverse_dynamics(sk, &morph, q, &qd, &qdd, GRAVITY, &loads);
                let scale = (w.effort / self.mass / n).sqrt();
                // Per passive coordinate: (t_a, t_p), with t_p = −k_s(q − q̄) − k_d q̇ (3.12–3.13)
                // and t_a = t − t_p.
                let torques: Vec<(D, D)> = self
                    .layout
                    .passive_dofs
                    .iter()
                    .enumerate()
                    .map(|(p, &d)| {
                        let (ks, rest, kd) =
                            (&passive[3 * p], &passive[3 * p + 1], &passive[3 * p + 2]);
                        let tp = -(ks.clone() * (q[d].clone() - rest) + kd.clone() * &qd[d]);
                        (id.generalized_forces[d].clone() - &tp, tp)
                    })
                    .collect();
                if !self.spec.morphology.is_some_and(|m| m.muscle) {
                    return torques.into_iter().map(|(ta, _)| ta * scale).collect();
                }
                // The muscle-aware effort (3.26)–(3.33), joint by joint.
                let mut r = Vec::new();
                for (i, limb) in sk.limbs.iter().enumerate() {
                    let Some(parent) = limb.parent else { continue };
                    let coords: Vec<usize> = limb
                        .dofs
                        .clone()
                        .filter_map(|d| self.layout.passive_dofs.iter().position(|&e| e == d))
                        .collect();
                    if coords.is_empty() {
                        continue;
                    }
                    let active: Vec<D> = coords.iter().map(|&p| torques[p].0.clone()).collect();
                    let passive: Vec<D> = coords.iter().map(|&p| torques[p].1.clone()).collect();
                    let frame = &id.kinematics.limbs[i];
                    let axial = id.joint_forces[i].dot(&(&frame.end - &frame.origin));
                    let arm = moment_arm(
                        &morph.length[parent],
                        &morph.radius[parent],
                        &morph.length[i],
                        &morph.radius[i],
                    );
                    let area = muscle_area(&morph.radius[parent], &morph.radius[i]);
                    r.extend(muscle_residuals(
                        &active, &passive, &axial, &arm, &area, scale,
                    ));
                }
                r
            }
            Term::Smooth => {
                let (q, qn) = x.split_at(dof);
                let jv = (w.joint_velocity / n).sqrt() / dt;
                let mut r: Vec<D> = (0..dof).map(|d| (qn[d].clone() - &q[d]) * jv).collect();
                if let Some(h) = sk.head {
                    let (k0, k1) = (
                        forward_kinematics(sk, &morph, q),
                        forward_kinematics(sk, &morph, qn),
                    );
                    let v = (&k1.limbs[h].end - &k0.limbs[h].end)
                        .scale_f((w.head_velocity / n).sqrt() / dt);
                    r.extend([v.y, v.z]);
                    let ho = (w.head_orientation / n).sqrt();
                    let m = &k0.limbs[h].rotation.m;
                    for (i, row) in m.iter().enumerate() {
                        for (j, e) in row.iter().enumerate() {
                            r.push(if i == j {
                                (e.clone() - 1.0) * ho
                            } else {
                                e.clone() * ho
                            });
                        }
                    }
                }
                r
            }
        }
    }
}

impl BlockProblem for GaitProblem {
    fn num_variables(&self) -> usize {
        self.layout.n
    }

    fn variable_bounds(&self, lower: &mut [f64], upper: &mut [f64]) {
        for v in self.layout.shape.clone().step_by(2) {
            (lower[v], upper[v]) = LENGTH_SCALE;
            (lower[v + 1], upper[v + 1]) = RADIUS_SCALE;
        }
        let (lo, hi) = self.spec.skeleton.bounds();
        for i in 0..self.spec.frames {
            for d in 0..self.layout.dof {
                lower[self.layout.q(i, d)] = lo[d];
                upper[self.layout.q(i, d)] = hi[d];
            }
        }
        for (p, &d) in self.layout.passive_dofs.iter().enumerate() {
            let [ks, rest, kd] = self.layout.passive(p);
            lower[ks] = 0.0;
            lower[kd] = 0.0;
            lower[rest] = lo[d];
            upper[rest] = hi[d];
        }
        for row in &self.layout.force_start {
            for s in row.iter().flatten() {
                lower[s + 1] = MIN_NORMAL_FORCE;
            }
        }
    }

    /// The rest pose in every frame (with a small seeded perturbation of the joint coordinates
    /// when the seed is not 0), no passive elements (k = 0, q̄ = rest), and the weight shared
    /// equally by the feet in contact.
    fn initial_point(&self, x: &mut [f64]) {
        use rand::{Rng, SeedableRng};
        let rest = self.spec.skeleton.rest_pose();
        let (lo, hi) = self.spec.skeleton.bounds();
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(self.spec.seed);
        for i in 0..self.spec.frames {
            for d in 0..self.layout.dof {
                let noise = if self.spec.seed != 0 && d >= 6 {
                    rng.random_range(-0.02..0.02)
                } else {
                    0.0
                };
                x[self.layout.q(i, d)] = (rest[d] + noise).clamp(lo[d], hi[d]);
            }
        }
        for (p, &d) in self.layout.passive_dofs.iter().enumerate() {
            let [ks, r, kd] = self.layout.passive(p);
            x[ks] = 0.0;
            x[r] = rest[d];
            x[kd] = 0.0;
        }
        for i in 0..self.spec.frames {
            let loads = self.layout.loads(i);
            for &(_, s) in &loads {
                x[s + 1] = -GRAVITY[1] / loads.len() as f64;
            }
        }
        for v in self.layout.shape.clone() {
            x[v] = 1.0;
        }
        if let Some(clip) = &self.spec.warm_start {
            self.warm_start(clip, x);
        }
    }

    fn objective_terms(&self) -> Vec<TermSpec> {
        self.terms.iter().map(|t| t.1.clone()).collect()
    }

    fn objective_term<D: Scalar>(&self, term: usize, x: &[D]) -> D {
        let r = self.residuals(term, x);
        r.into_iter().fold(D::zero(), |acc, v| acc + v.clone() * v)
    }

    fn objective_residuals<D: Scalar>(&self, term: usize, x: &[D]) -> Option<Vec<D>> {
        Some(self.residuals(term, x))
    }

    fn constraint_blocks(&self) -> Vec<BlockSpec> {
        self.blocks.iter().map(|b| b.1.clone()).collect()
    }

    fn constraint_block<D: Scalar>(&self, block: usize, x: &[D]) -> Vec<D> {
        let sk = &self.spec.skeleton;
        let dof = self.layout.dof;
        let block = &self.blocks[block].0;
        // Only the blocks with kinematics read the shape variables.
        let (x, morph) = match block {
            Block::Cones | Block::Centring => (x, None),
            _ => {
                let (x, morph) = self.shaped(x);
                (x, Some(morph))
            }
        };
        let morph = || morph.as_ref().expect("kinematic blocks have a morphology");
        match block {
            Block::Kinematic { rows } => {
                let k = forward_kinematics(sk, morph(), x);
                rows.iter()
                    .map(|row| match row {
                        KinematicRow::Clearance(node) => Self::node(&k, *node).y,
                        KinematicRow::FootHeight(f) => k.foot(sk, *f).y.clone(),
                        KinematicRow::Twist(f) => {
                            let r = &k.limbs[sk.feet[*f]].rotation.m;
                            r[0][2].clone() - &r[2][0]
                        }
                        KinematicRow::Separation(s) => {
                            let sep = &sk.separations[*s];
                            (&k.limbs[sep.a].end - &k.limbs[sep.b].end).norm_squared()
                        }
                        KinematicRow::HeadHeight => k.limbs
                            [sk.head.expect("a head-height row needs a head")]
                        .end
                        .y
                        .clone(),
                    })
                    .collect()
            }
            Block::Slip { foot } => {
                let (a, b) = x.split_at(dof);
                let (ka, kb) = (
                    forward_kinematics(sk, morph(), a),
                    forward_kinematics(sk, morph(), b),
                );
                let d = kb.foot(sk, *foot) - ka.foot(sk, *foot);
                vec![d.x, d.z]
            }
            Block::Momentum { feet } => {
                let (qm, rest) = x.split_at(dof);
                let (q, rest) = rest.split_at(dof);
                let (qp, loads) = rest.split_at(dof);
                let (km, k, kp) = (
                    forward_kinematics(sk, morph(), qm),
                    forward_kinematics(sk, morph(), q),
                    forward_kinematics(sk, morph(), qp),
                );
                let dt = self.spec.dt();
                let total = morph().total_mass();
                let mut linear = Vec3::<D>::from_f64(GRAVITY).scale(&-total.clone());
                let mut angular = Vec3::<D>::zero();
                for (l, mass) in morph().mass.iter().enumerate() {
                    let a = (&kp.limbs[l].com - k.limbs[l].com.scale_f(2.0) + &km.limbs[l].com)
                        .scale(&(mass.clone() * (1.0 / (dt * dt))));
                    angular = angular + (&k.limbs[l].com - &k.com).cross(&a);
                    linear = linear + a;
                }
                let inv = total.recip();
                let mut out_l = linear.scale(&inv);
                let mut out_a = angular.scale(&inv);
                for (j, &f) in feet.iter().enumerate() {
                    let force = Self::vec3(&loads[6 * j..]);
                    let torque = self.torque(&loads[6 * j + 3..]);
                    out_a = out_a - (k.foot(sk, f) - &k.com).cross(&force) - torque;
                    out_l = out_l - force;
                }
                vec![out_l.x, out_l.y, out_l.z, out_a.x, out_a.y, out_a.z]
            }
            Block::Cones => {
                let (fx, fy, fz) = (&x[0], &x[1], &x[2]);
                let (tx, ty, tz) = (&x[3], &x[4], &x[5]);
                let normal = fy.clone() * fy;
                let friction = normal.clone() * (self.spec.mu * self.spec.mu)
                    - fx.clone() * fx
                    - fz.clone() * fz;
                vec![
                    friction,
                    normal - tx.clone() * tx - ty.clone() * ty - tz.clone() * tz,
                ]
            }
            Block::Centring => {
                let n = self.spec.frames;
                vec![x[..n].iter().cloned().sum(), x[n..].iter().cloned().sum()]
            }
        }
    }
}

/// A foot's ground reaction in SI units: force (N) at the foot point and free torque (N·m).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ContactLoad {
    pub force: [f64; 3],
    pub torque: [f64; 3],
}

/// A joint coordinate's spring and damper (3.13): t_p = −stiffness·(q − rest) − damping·q̇.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PassiveElement {
    pub coordinate: String,
    /// N·m/rad.
    pub stiffness: f64,
    /// rad.
    pub rest: f64,
    /// N·m·s/rad.
    pub damping: f64,
}

/// A solved cyclic gait, as written by `motionlab gait --out`: q per frame (treadmill frame: the
/// creature stays in place and the ground moves at −speed), the contact loads, the timings and
/// what produced it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct GaitClip {
    pub creature: String,
    /// V (m/s, +x).
    pub speed: f64,
    /// T (s).
    pub period: f64,
    pub timings: Vec<FootTiming>,
    /// Names of the coordinates of q.
    pub coordinates: Vec<String>,
    /// q per frame.
    pub frames: Vec<Vec<f64>>,
    /// Per frame, per foot (order of `timings`): the load in contact, `None` in the air.
    pub contacts: Vec<Vec<Option<ContactLoad>>>,
    pub passive: Vec<PassiveElement>,
    /// The objective (3.14)–(3.17) averaged over frames.
    pub cost: f64,
    /// How the IPOPT solve of the gait NLP ended (`solved`, `maximum_iterations_exceeded`, …).
    pub status: String,
    /// How the feasibility projection ended, when the solve stopped short (see [`solve_gait`]).
    pub projection_status: Option<String>,
    /// IPOPT iterations, the projection's included.
    pub iterations: usize,
    /// Largest bound or constraint violation (constraints mass-normalised).
    pub max_violation: f64,
    pub seed: u64,
    pub solve_time_s: f64,
    /// Every limb's size, when the morphology was optimised with the gait (specs/004.md §1.5);
    /// absent: the creature file's.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub morphology: Option<Vec<LimbShape>>,
    /// The iteration of the capped solve whose projection this clip is (the last one, or an
    /// earlier iterate of lower cost, see [`solve_gait`]); absent when nothing was projected.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub projected_from: Option<usize>,
}

impl GaitClip {
    /// Fails unless the clip is of creature `skeleton` (by name).
    pub fn check_creature(&self, skeleton: &Skeleton) -> Result<(), GaitError> {
        if self.creature == skeleton.name {
            Ok(())
        } else {
            Err(GaitError::WarmStart(format!(
                "the clip is of creature `{}`, not `{}`",
                self.creature, skeleton.name
            )))
        }
    }

    /// The creature `base` (its file) with this clip's limb sizes: the body the clip's motion
    /// belongs to. Fails when the clip names a limb the creature lacks.
    pub fn body(&self, base: &Skeleton) -> Result<Skeleton, GaitError> {
        match &self.morphology {
            None => Ok(base.clone()),
            Some(shapes) => reshaped(base, shapes)
                .map_err(|limb| GaitError::UnknownLimb(limb, base.name.clone())),
        }
    }

    /// Checks what the solver and the audit index and divide by: a finite speed, a positive
    /// period, one frame of `body.dof()` finite coordinates per frame (at least one), contacts
    /// for every frame and foot with finite loads, a window in [0, 1] per foot and finite
    /// springs. `body` is [`Self::body`] of the clip's creature.
    pub fn validate(&self, body: &Skeleton) -> Result<(), GaitError> {
        let fail = |what: String| Err(GaitError::InvalidClip(body.name.clone(), what));
        let finite = |v: &[f64]| v.iter().all(|x| x.is_finite());
        if !self.speed.is_finite() {
            return fail(format!("expected a finite speed, found {}", self.speed));
        }
        if !(self.period > 0.0 && self.period.is_finite()) {
            return fail(format!("expected a positive period, found {}", self.period));
        }
        if self.frames.is_empty() {
            return fail("expected at least one frame".into());
        }
        for (i, q) in self.frames.iter().enumerate() {
            if q.len() != body.dof() {
                return fail(format!(
                    "frame {i} has {} coordinates, the creature {}",
                    q.len(),
                    body.dof()
                ));
            }
            if !finite(q) {
                return fail(format!(
                    "frame {i} has a coordinate that is not a finite number"
                ));
            }
        }
        let feet = body.feet.len();
        if self.timings.len() != feet {
            return fail(format!(
                "expected a contact window for each of the {feet} feet, found {}",
                self.timings.len()
            ));
        }
        for t in &self.timings {
            if !((0.0..=1.0).contains(&t.start) && (0.0..=1.0).contains(&t.duration)) {
                return fail(format!(
                    "foot `{}`: expected start and duration in [0, 1], found {} and {}",
                    t.foot, t.start, t.duration
                ));
            }
        }
        if self.contacts.len() != self.frames.len() {
            return fail(format!(
                "expected contacts for each of the {} frames, found {}",
                self.frames.len(),
                self.contacts.len()
            ));
        }
        for (i, c) in self.contacts.iter().enumerate() {
            if c.len() != feet {
                return fail(format!(
                    "frame {i}: expected {feet} feet's contacts, found {}",
                    c.len()
                ));
            }
            if !c
                .iter()
                .flatten()
                .all(|l| finite(&l.force) && finite(&l.torque))
            {
                return fail(format!("frame {i}: a contact load is not finite"));
            }
        }
        if !self
            .passive
            .iter()
            .all(|p| p.stiffness.is_finite() && p.rest.is_finite() && p.damping.is_finite())
        {
            return fail("a spring or damper is not finite".into());
        }
        Ok(())
    }

    /// IPOPT succeeded on the gait NLP, or on the feasibility projection of where it stopped.
    pub fn converged(&self) -> bool {
        let ok = |s: &str| s == "solved" || s == "solved_to_acceptable_level";
        ok(&self.status) || self.projection_status.as_deref().is_some_and(ok)
    }

    /// A usable gait: [`Self::converged`], feasible to 1e-6 (mass-normalised, issue 4's bar) and
    /// of finite cost.
    pub fn is_valid(&self) -> bool {
        self.converged() && self.max_violation <= 1e-6 && self.cost.is_finite()
    }
}

/// IPOPT options for gait solves: L-BFGS Hessian, and feasibility required to 1e-8 (mass-normalised
/// units) even for an "acceptable" stop.
pub fn gait_solver_options() -> super::SolverOptions {
    use super::nlp::{HessianMode, OptionValue};
    super::SolverOptions {
        hessian: HessianMode::LimitedMemory,
        tolerance: 1e-6,
        max_iterations: 1000,
        extra: vec![
            ("constr_viol_tol".into(), OptionValue::Num(1e-8)),
            ("acceptable_constr_viol_tol".into(), OptionValue::Num(1e-8)),
            ("acceptable_tol".into(), OptionValue::Num(1e-4)),
            ("mu_strategy".into(), OptionValue::Str("adaptive".into())),
        ],
        ..Default::default()
    }
}

/// IPOPT options for a solve that starts from a clip ([`GaitSpec::with_warm_start`]): a small
/// initial barrier parameter (1e-7, monotone), almost no push off the bounds, and a constant
/// initial L-BFGS curvature of 100 (in IPOPT's scaled problem), so the solve goes on from the
/// clip instead of first moving far away from it. With IPOPT's defaults, 60 iterations from a
/// 60-iteration monoped hop (cost 62.7) end at 108.8; with these, at 42.3, below 120 from the
/// rest pose (44.5). Simple biped walk, 100 + 100 iterations: 44.3, against 50.4 for 200 from
/// the rest pose. It is still not a descent method: the CLI keeps the start when the solve ends
/// above it.
pub fn warm_start_options() -> Vec<(String, super::OptionValue)> {
    use super::OptionValue::{Num, Str};
    vec![
        ("mu_init".into(), Num(1e-7)),
        ("mu_strategy".into(), Str("monotone".into())),
        ("bound_push".into(), Num(1e-10)),
        ("bound_frac".into(), Num(1e-10)),
        (
            "limited_memory_initialization".into(),
            Str("constant".into()),
        ),
        ("limited_memory_init_val".into(), Num(100.0)),
    ]
}

/// The feasibility projection of a solve that stopped short of its tolerance: the same variables,
/// bounds and constraints, and the objective ½‖x − x̂‖² (x̂ the point reached), so IPOPT returns
/// the nearest point that meets every constraint to its tolerance and the gait barely changes.
#[cfg(feature = "ipopt")]
struct Projection<'a> {
    inner: &'a dyn super::NlpProblem,
    target: Vec<f64>,
}

#[cfg(feature = "ipopt")]
impl super::NlpProblem for Projection<'_> {
    fn num_variables(&self) -> usize {
        self.inner.num_variables()
    }
    fn num_constraints(&self) -> usize {
        self.inner.num_constraints()
    }
    fn variable_bounds(&self, lower: &mut [f64], upper: &mut [f64]) {
        self.inner.variable_bounds(lower, upper)
    }
    fn constraint_bounds(&self, lower: &mut [f64], upper: &mut [f64]) {
        self.inner.constraint_bounds(lower, upper)
    }
    fn initial_point(&self, x: &mut [f64]) {
        x.copy_from_slice(&self.target)
    }
    fn objective(&self, x: &[f64]) -> Result<f64, super::EvalError> {
        Ok(0.5
            * x.iter()
                .zip(&self.target)
                .map(|(a, b)| (a - b) * (a - b))
                .sum::<f64>())
    }
    fn objective_gradient(&self, x: &[f64], grad: &mut [f64]) -> super::nlp::EvalResult {
        for ((g, a), b) in grad.iter_mut().zip(x).zip(&self.target) {
            *g = a - b;
        }
        Ok(())
    }
    fn constraints(&self, x: &[f64], g: &mut [f64]) -> super::nlp::EvalResult {
        self.inner.constraints(x, g)
    }
    fn jacobian_structure(&self) -> Vec<(usize, usize)> {
        self.inner.jacobian_structure()
    }
    fn jacobian_values(&self, x: &[f64], values: &mut [f64]) -> super::nlp::EvalResult {
        self.inner.jacobian_values(x, values)
    }
}

/// Violation levels (mass-normalised) at which a capped gait solve keeps its best iterate as a
/// further start for the projection ([`super::SolverOptions::keep_best`]).
pub const BEST_ITERATE_LEVELS: [f64; 2] = [1e-2, 1e-4];

/// Solves the fixed-timing gait NLP of `spec`: IPOPT on the full problem (the L-BFGS Hessian of
/// [`gait_solver_options`]); if that stops before its tolerance (iteration limit, or feasible only
/// to more than 1e-9), the point reached is projected onto the constraints (nearest feasible
/// point, [`GaitClip::projection_status`]). IPOPT does not descend monotonically: a capped solve
/// often passed iterates of lower cost than its last one (the simple-biped walk: 9.99 at
/// iteration 800, 16.5 at 1000). So the best iterates within [`BEST_ITERATE_LEVELS`] are
/// projected too, and the clip is the projected point of lowest cost
/// ([`GaitClip::projected_from`] names the iteration it came from).
#[cfg(feature = "ipopt")]
pub fn solve_gait(
    spec: &GaitSpec,
    options: &super::SolverOptions,
    curvature: super::Curvature,
) -> Result<GaitClip, GaitError> {
    use super::NlpProblem;
    let problem = GaitProblem::new(spec.clone());
    let nlp = super::AutoDiff::new(problem)?.with_curvature(curvature);
    let mut options = options.clone();
    options.keep_best = BEST_ITERATE_LEVELS.to_vec();
    let s = super::solve(&nlp, &options)?;
    let (mut x, mut violation, mut iterations, mut time) =
        (s.x.clone(), s.max_violation, s.iterations, s.solve_time);
    let mut projection_status = None;
    let mut projected_from = None;
    if !(s.status == super::SolveStatus::Solved && s.max_violation <= 1e-9)
        && s.x.iter().all(|v| v.is_finite())
    {
        // Starts: the last iterate, then the kept ones of lower objective (each once).
        let mut starts: Vec<(usize, &[f64])> = vec![(s.iterations, &s.x)];
        for b in s.best_iterates.iter().flatten() {
            if b.objective < s.objective && starts.iter().all(|(k, _)| *k != b.iteration) {
                starts.push((b.iteration, &b.x));
            }
        }
        let mut popts = options.clone();
        popts.max_iterations = 1000;
        popts.hessian = super::HessianMode::LimitedMemory;
        popts.keep_best.clear();
        // The cheapest acceptable projection: (cost, the iteration it started from, its solve).
        let mut best: Option<(f64, usize, super::NlpSolution)> = None;
        let mut last_status = None;
        for (from, start) in starts {
            let projection = Projection {
                inner: &nlp,
                target: start.to_vec(),
            };
            let p = super::solve(&projection, &popts)?;
            iterations += p.iterations;
            time += p.solve_time;
            last_status.get_or_insert_with(|| p.status.label());
            // A projection must end feasible, and no less so than the point the solve stopped
            // at (unless both are within 1e-9).
            if !p.status.is_success() || !(p.max_violation < violation || p.max_violation <= 1e-9) {
                continue;
            }
            let cost = nlp.objective(&p.x).unwrap_or(f64::INFINITY);
            if best.as_ref().is_none_or(|b| cost < b.0) {
                best = Some((cost, from, p));
            }
        }
        match best {
            Some((_, from, p)) => {
                projection_status = Some(p.status.label());
                projected_from = Some(from);
                violation = p.max_violation;
                x = p.x;
            }
            None => projection_status = last_status,
        }
    }
    let cost = nlp.objective(&x).unwrap_or(f64::NAN);
    let p = nlp.problem();
    Ok(GaitClip {
        creature: spec.skeleton.name.clone(),
        speed: spec.speed,
        period: spec.period,
        timings: spec.timings.clone(),
        coordinates: spec.skeleton.dof_names(),
        frames: p.poses(&x),
        contacts: p.loads(&x),
        passive: p.passive(&x),
        cost,
        status: s.status.label(),
        projection_status,
        iterations,
        max_violation: violation,
        seed: spec.seed,
        solve_time_s: time.as_secs_f64(),
        morphology: p.limb_shapes(&x),
        projected_from,
    })
}

/// L-BFGS iterations of the first stage of [`solve_gait_staged`] (the CLI's `--lbfgs-iterations`).
pub const STAGED_LBFGS_ITERATIONS: usize = 300;

/// The gait solve the CLI runs by default: IPOPT with L-BFGS for at most `lbfgs_iterations`
/// (projected as in [`solve_gait`]), then IPOPT with the exact Hessian started from that clip
/// ([`GaitSpec::with_warm_start`], [`warm_start_options`]) for the rest of
/// `options.max_iterations`. From the rest pose the exact Hessian alone can go astray where the
/// curvature is indefinite (monoped hop, 0.7 m/s: cost 43.7 after 3,000 iterations, heavily
/// regularised steps), while L-BFGS first brings the gait near a valid one (28.8 after 300) and
/// the exact stage then converges (8.22, IPOPT's tolerance met after 1,883 more, 30 s). The
/// result is the second stage's clip unless that ended invalid or above the first's; its
/// iteration count and time are the two stages' sums. A first stage that already met the
/// tolerance, or a budget of no more than `lbfgs_iterations`, is the L-BFGS solve alone.
#[cfg(feature = "ipopt")]
pub fn solve_gait_staged(
    spec: &GaitSpec,
    options: &super::SolverOptions,
    lbfgs_iterations: usize,
) -> Result<(GaitClip, Vec<StageSummary>), GaitError> {
    let mut first_options = options.clone();
    first_options.hessian = super::HessianMode::LimitedMemory;
    first_options.max_iterations = lbfgs_iterations.min(options.max_iterations);
    let first = solve_gait(spec, &first_options, super::Curvature::Exact)?;
    let mut stages = vec![StageSummary::of("lbfgs", &first)];
    if first.status == "solved"
        || options.max_iterations <= first_options.max_iterations
        || first.frames.iter().flatten().any(|v| !v.is_finite())
    {
        return Ok((first, stages));
    }
    let second_spec = spec.clone().with_warm_start(first.clone())?;
    let mut second_options = options.clone();
    second_options.hessian = super::HessianMode::Exact;
    second_options.max_iterations = options.max_iterations - first_options.max_iterations;
    second_options.extra.extend(warm_start_options());
    let second = solve_gait(&second_spec, &second_options, super::Curvature::Exact)?;
    stages.push(StageSummary::of("exact", &second));
    let (iterations, time) = (
        first.iterations + second.iterations,
        first.solve_time_s + second.solve_time_s,
    );
    let best = if second.is_valid() && (!first.is_valid() || second.cost <= first.cost) {
        second
    } else {
        first
    };
    Ok((
        GaitClip {
            iterations,
            solve_time_s: time,
            ..best
        },
        stages,
    ))
}

/// How one stage of [`solve_gait_staged`] ended.
#[derive(Debug, Clone, PartialEq)]
pub struct StageSummary {
    /// `lbfgs` or `exact`.
    pub hessian: &'static str,
    pub status: String,
    pub projection_status: Option<String>,
    pub cost: f64,
    pub max_violation: f64,
    pub iterations: usize,
}

impl StageSummary {
    fn of(hessian: &'static str, clip: &GaitClip) -> Self {
        Self {
            hessian,
            status: clip.status.clone(),
            projection_status: clip.projection_status.clone(),
            cost: clip.cost,
            max_violation: clip.max_violation,
            iterations: clip.iterations,
        }
    }
}

/// An independent physical check of a [`GaitClip`] (see the module docs): the largest residual of
/// each kind over all frames, the wrap from the last frame to the first included.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct GaitAudit {
    /// |ṗ − m·g − Σf|/m (m/s²), with ṗ from differences of the linear momentum between frames.
    pub linear_momentum: f64,
    /// |L̇ − Σ[(p − CM) × f + t]|/m (m²/s²), with L̇ from differences of the angular momentum about
    /// the centre of mass between frames (point-mass limbs).
    pub angular_momentum: f64,
    /// max(0, ‖f_xz‖ − μ f_y)/m (m/s²), the exact cone (3.10).
    pub friction: f64,
    /// max(0, √(‖t_xz/ν_b‖² + (t_y/ν_t)²) − f_y)/m (m/s²), the exact ellipsoid (3.11).
    pub torque_ellipsoid: f64,
    /// Largest depth of a node below the ground, or height of a contact foot above it (m).
    pub ground: f64,
    /// Largest |foot velocity + V x̂| between consecutive contact frames (m/s).
    pub slip: f64,
    /// Largest twist |R_xz − R_zx| of a contact foot.
    pub twist: f64,
}

impl GaitAudit {
    /// The largest mass-normalised dynamic violation (momentum, friction, ellipsoid).
    pub fn max_dynamics(&self) -> f64 {
        self.linear_momentum
            .max(self.angular_momentum)
            .max(self.friction)
            .max(self.torque_ellipsoid)
    }

    /// The largest violation of any kind.
    pub fn max(&self) -> f64 {
        self.max_dynamics()
            .max(self.ground)
            .max(self.slip)
            .max(self.twist)
    }
}

/// Audits `clip` for `skeleton` with friction μ and ellipsoid radius ν (see [`GaitAudit`]).
/// `skeleton` is the clip's body ([`GaitClip::body`]): the creature file with the clip's limb
/// sizes, when it has some.
pub fn audit(skeleton: &Skeleton, clip: &GaitClip, mu: f64, nu: f64) -> GaitAudit {
    let n = clip.frames.len();
    let dt = clip.period / n as f64;
    let m = skeleton.total_mass();
    let morph = skeleton.morphology::<f64>();
    let kin: Vec<_> = clip
        .frames
        .iter()
        .map(|q| forward_kinematics(skeleton, &morph, q))
        .collect();
    let com = |i: usize, l: usize| kin[i].limbs[l].com.re();
    let cm = |i: usize| kin[i].com.re();
    let sub = |a: [f64; 3], b: [f64; 3]| [a[0] - b[0], a[1] - b[1], a[2] - b[2]];
    let cross = |a: [f64; 3], b: [f64; 3]| {
        [
            a[1] * b[2] - a[2] * b[1],
            a[2] * b[0] - a[0] * b[2],
            a[0] * b[1] - a[1] * b[0],
        ]
    };
    let norm = |a: [f64; 3]| (a[0] * a[0] + a[1] * a[1] + a[2] * a[2]).sqrt();
    // Momenta between frame i and i+1 (cyclic): P = Σ m_k Δc_k/dt, L = Σ m_k (c̄_k − C̄M) × Δc_k/dt.
    let half: Vec<([f64; 3], [f64; 3])> = (0..n)
        .map(|i| {
            let j = (i + 1) % n;
            let mid_cm = cm(i)
                .iter()
                .zip(cm(j))
                .map(|(a, b)| 0.5 * (a + b))
                .collect::<Vec<_>>();
            let (mut p, mut l) = ([0.0; 3], [0.0; 3]);
            for (k, limb) in skeleton.limbs.iter().enumerate() {
                let v: [f64; 3] = std::array::from_fn(|c| (com(j, k)[c] - com(i, k)[c]) / dt);
                let r: [f64; 3] =
                    std::array::from_fn(|c| 0.5 * (com(i, k)[c] + com(j, k)[c]) - mid_cm[c]);
                let rv = cross(r, v);
                for c in 0..3 {
                    p[c] += limb.mass * v[c];
                    l[c] += limb.mass * rv[c];
                }
            }
            (p, l)
        })
        .collect();
    let mut out = GaitAudit {
        linear_momentum: 0.0,
        angular_momentum: 0.0,
        friction: 0.0,
        torque_ellipsoid: 0.0,
        ground: 0.0,
        slip: 0.0,
        twist: 0.0,
    };
    for i in 0..n {
        let before = (i + n - 1) % n;
        let mut force = [0.0; 3];
        let mut moment = [0.0; 3];
        for (k, load) in clip.contacts[i].iter().enumerate() {
            let Some(load) = load else { continue };
            let p = kin[i].foot(skeleton, k).re();
            let mc = cross(sub(p, cm(i)), load.force);
            for c in 0..3 {
                force[c] += load.force[c];
                moment[c] += mc[c] + load.torque[c];
            }
            let [fx, fy, fz] = load.force;
            let [tx, ty, tz] = load.torque;
            out.friction = out
                .friction
                .max(((fx * fx + fz * fz).sqrt() - mu * fy).max(0.0) / m);
            out.torque_ellipsoid = out
                .torque_ellipsoid
                .max((((tx * tx + tz * tz) + ty * ty).sqrt() / nu - fy).max(0.0) / m);
        }
        let pdot: [f64; 3] = std::array::from_fn(|c| (half[i].0[c] - half[before].0[c]) / dt);
        let ldot: [f64; 3] = std::array::from_fn(|c| (half[i].1[c] - half[before].1[c]) / dt);
        let lin: [f64; 3] = std::array::from_fn(|c| pdot[c] - m * GRAVITY[c] - force[c]);
        let ang = sub(ldot, moment);
        out.linear_momentum = out.linear_momentum.max(norm(lin) / m);
        out.angular_momentum = out.angular_momentum.max(norm(ang) / m);
        // Ground: every limb end and origin above y = 0; contact feet on it, sliding at −V.
        for l in &kin[i].limbs {
            out.ground = out.ground.max(-l.origin.y).max(-l.end.y);
        }
        for (k, load) in clip.contacts[i].iter().enumerate() {
            if load.is_none() {
                continue;
            }
            let p = kin[i].foot(skeleton, k).re();
            out.ground = out.ground.max(p[1].abs());
            let r = &kin[i].limbs[skeleton.feet[k]].rotation.m;
            out.twist = out.twist.max((r[0][2] - r[2][0]).abs());
            let j = (i + 1) % n;
            if clip.contacts[j][k].is_some() && j != i {
                let v = sub(kin[j].foot(skeleton, k).re(), p);
                out.slip = out
                    .slip
                    .max(norm([v[0] / dt + clip.speed, v[1] / dt, v[2] / dt]));
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::spacetime::tests::creature;
    use crate::spacetime::{AutoDiff, NlpProblem};

    /// Solves `spec` (L-BFGS capped at `iterations`, then projected) and logs how it ended.
    #[cfg(feature = "ipopt")]
    fn solve_logged(spec: &GaitSpec, iterations: usize) -> GaitClip {
        let mut options = gait_solver_options();
        options.max_iterations = iterations;
        let clip = solve_gait(spec, &options, crate::spacetime::Curvature::Exact).unwrap();
        eprintln!(
            "{}: {} {:?} cost {} iterations {} violation {:e} time {:.2}s",
            spec.skeleton.name,
            clip.status,
            clip.projection_status,
            clip.cost,
            clip.iterations,
            clip.max_violation,
            clip.solve_time_s
        );
        clip
    }

    fn timing(foot: &str, start: f64, duration: f64) -> FootTiming {
        FootTiming {
            foot: foot.into(),
            start,
            duration,
        }
    }

    #[test]
    fn contact_overlap_tells_a_hop_from_a_run() {
        let sk = creature("simple_biped");
        let feet: Vec<String> = sk.feet.iter().map(|&l| sk.limbs[l].name.clone()).collect();
        let overlap = |a: (f64, f64), b: (f64, f64)| {
            let spec = GaitSpec::new(
                sk.clone(),
                2.5,
                1.0,
                &[timing(&feet[0], a.0, a.1), timing(&feet[1], b.0, b.1)],
            )
            .unwrap();
            (spec.contact_overlap(0, 1), spec.contact_overlap(1, 0))
        };
        // Hop: both down over the same 9 frames.
        assert_eq!(overlap((0.0, 0.3), (0.0, 0.3)), (1.0, 1.0));
        // Run: alternating windows, never together.
        assert_eq!(overlap((0.0, 0.3), (0.5, 0.3)), (0.0, 0.0));
        // Walk: each foot down 0.6, half a cycle apart: frames 0–17 and 15–29 plus 0–2 share
        // frames 0–2 and 15–17, 6 of 18.
        let (ab, ba) = overlap((0.0, 0.6), (0.5, 0.6));
        assert!((ab - 6.0 / 18.0).abs() < 1e-12 && ab == ba, "{ab} {ba}");
    }

    #[test]
    fn a_trot_has_its_diagonal_pairs_in_step() {
        // Horse feet lh, rh, lf, rf: lh + rf down 0–0.5, rh + lf down 0.5–1.
        let sk = creature("horse");
        let feet: Vec<String> = sk.feet.iter().map(|&l| sk.limbs[l].name.clone()).collect();
        let t = |k: usize, start: f64| timing(&feet[k], start, 0.5);
        let spec =
            GaitSpec::new(sk, 2.0, 0.6, &[t(0, 0.0), t(1, 0.5), t(2, 0.5), t(3, 0.0)]).unwrap();
        assert_eq!(
            feet_in_step(spec.contacts()),
            vec![(0, 3, 1.0), (1, 2, 1.0)]
        );
    }

    #[test]
    fn contact_windows_wrap_around_the_cycle_end() {
        let sk = creature("simple_biped");
        let spec = GaitSpec::new(
            sk,
            0.7,
            1.0,
            &[timing("r_foot", 0.5, 0.6), timing("l_foot", 0.0, 0.6)],
        )
        .unwrap();
        // l_foot: frames 0..=17; r_foot: 15..=29 and 0..=2 (18 frames each).
        let left: Vec<usize> = (0..30).filter(|&i| spec.in_contact(i, 0)).collect();
        let right: Vec<usize> = (0..30).filter(|&i| spec.in_contact(i, 1)).collect();
        assert_eq!(left, (0..18).collect::<Vec<_>>());
        assert_eq!(
            right,
            [0, 1, 2].into_iter().chain(15..30).collect::<Vec<_>>()
        );
        assert!(spec.has_double_support() && !spec.has_flight());
        let hop =
            GaitSpec::new(creature("monoped"), 0.5, 0.5, &[timing("shin", 0.0, 0.5)]).unwrap();
        assert!(hop.has_flight() && !hop.has_double_support());
        assert_eq!(
            parse_timings("l_foot:0:0.6, r_foot:0.5:0.6").unwrap()[1],
            timing("r_foot", 0.5, 0.6)
        );
        assert!(matches!(
            parse_timings("l_foot:0"),
            Err(GaitError::Syntax(_))
        ));
        assert!(matches!(
            GaitSpec::new(creature("monoped"), 0.5, 0.5, &[timing("shin", 0.0, 1.0)]),
            Err(GaitError::FullContact(..))
        ));
        assert!(
            GaitSpec::new(creature("monoped"), 0.0, 0.5, &[timing("shin", 0.0, 1.0)]).is_ok(),
            "standing still"
        );
        let sk = creature("simple_biped");
        assert!(matches!(
            GaitSpec::new(sk.clone(), 0.7, 1.0, &[timing("l_foot", 0.0, 0.6)]),
            Err(GaitError::MissingFoot(_))
        ));
        assert!(matches!(
            GaitSpec::new(sk.clone(), 0.7, 1.0, &[timing("toe", 0.0, 0.6)]),
            Err(GaitError::UnknownFoot(..))
        ));
        assert!(matches!(
            GaitSpec::new(
                sk,
                0.7,
                1.0,
                &[timing("l_foot", 1.2, 0.6), timing("r_foot", 0.0, 0.5)]
            ),
            Err(GaitError::Window { .. })
        ));
    }

    /// A point away from the rest pose, with loads and passive elements, to test derivatives.
    fn disturbed_point(nlp: &AutoDiff<GaitProblem>) -> Vec<f64> {
        let mut x = vec![0.0; nlp.num_variables()];
        nlp.initial_point(&mut x);
        for (k, v) in x.iter_mut().enumerate() {
            *v += 0.05 * ((k as f64 * 12.9898).sin() * 43758.5453).fract();
        }
        x
    }

    #[test]
    fn derivative_blocks_match_central_differences() {
        // Monoped hop with a window crossing the cycle end (frames 24..=29 and 0..=8).
        let spec =
            GaitSpec::new(creature("monoped"), 0.7, 0.5, &[timing("shin", 0.8, 0.5)]).unwrap();
        check_derivatives(spec.clone());
        // With the body's shape as variables and the muscle-aware effort (3.26)–(3.33).
        let shaped = spec
            .clone()
            .with_morphology(Some(MorphologyOptions::default()));
        assert_eq!(
            GaitProblem::new(shaped.clone()).variables(),
            GaitProblem::new(spec).variables() + 4,
            "thigh and shin: a length and a radius scale each"
        );
        check_derivatives(shaped);
    }

    #[test]
    fn a_minimum_head_height_bounds_every_frame_and_frees_the_neck() {
        let horse = creature("horse");
        let (period, timings) = default_timings(&horse);
        let spec = GaitSpec::new(horse.clone(), 1.0, period, &timings).unwrap();
        let plain = GaitProblem::new(spec.clone());
        let morph = |h: Option<f64>| {
            GaitProblem::new(spec.clone().with_morphology(Some(MorphologyOptions {
                muscle: true,
                min_head_height: h,
            })))
        };
        // 8 leg pairs, then the neck too: two scales each.
        assert_eq!(morph(None).variables(), plain.variables() + 16);
        let raised = morph(Some(1.6));
        assert_eq!(raised.variables(), plain.variables() + 18);
        let rows: Vec<(f64, f64)> = raised
            .constraint_blocks()
            .iter()
            .flat_map(|b| b.lower.iter().copied().zip(b.upper.iter().copied()))
            .collect();
        let plain_rows = plain
            .constraint_blocks()
            .iter()
            .map(|b| b.lower.len())
            .sum::<usize>();
        assert_eq!(rows.len(), plain_rows + FRAMES, "one head row per frame");
        assert_eq!(
            rows.iter().filter(|r| **r == (1.6, f64::INFINITY)).count(),
            FRAMES
        );
        // At the start (rest pose, file body) the head row reads the muzzle's height.
        let nlp = AutoDiff::new(raised).unwrap();
        let mut x = vec![0.0; nlp.num_variables()];
        nlp.initial_point(&mut x);
        let mut g = vec![0.0; nlp.num_constraints()];
        nlp.constraints(&x, &mut g).unwrap();
        let head = forward_kinematics(&horse, &horse.morphology::<f64>(), &horse.rest_pose()).limbs
            [horse.head.unwrap()]
        .end
        .y;
        assert!(head > 0.5 && head < 1.6, "rest muzzle height {head}");
        let bounds = nlp.problem().constraint_blocks();
        let mut k = 0;
        let mut found = 0;
        for b in &bounds {
            for lower in &b.lower {
                if *lower == 1.6 {
                    assert!((g[k] - head).abs() < 1e-12, "{} vs {head}", g[k]);
                    found += 1;
                }
                k += 1;
            }
        }
        assert_eq!(found, FRAMES);
    }

    fn check_derivatives(spec: GaitSpec) {
        let nlp = AutoDiff::new(GaitProblem::new(spec)).unwrap();
        let x = disturbed_point(&nlp);
        let (n, m) = (nlp.num_variables(), nlp.num_constraints());
        let h = 1e-6;
        let mut grad = vec![0.0; n];
        nlp.objective_gradient(&x, &mut grad).unwrap();
        let structure = nlp.jacobian_structure();
        let mut jac = vec![0.0; structure.len()];
        nlp.jacobian_values(&x, &mut jac).unwrap();
        let mut by_column: Vec<Vec<(usize, f64)>> = vec![Vec::new(); n];
        for (k, &(r, c)) in structure.iter().enumerate() {
            by_column[c].push((r, jac[k]));
        }
        let (mut gp, mut gm) = (vec![0.0; m], vec![0.0; m]);
        for c in 0..n {
            let (mut xp, mut xm) = (x.clone(), x.clone());
            xp[c] += h;
            xm[c] -= h;
            let (fp, fm) = (nlp.objective(&xp).unwrap(), nlp.objective(&xm).unwrap());
            let fd = (fp - fm) / (2.0 * h);
            // Central differences carry a rounding error of about ε·|f|/h besides O(h²).
            let rounding = 1e-15 * fp.abs().max(fm.abs()) / h;
            assert!(
                (fd - grad[c]).abs() <= 1e-5 * (1.0 + fd.abs()) + rounding,
                "∂f/∂x{c}: {} vs {fd}",
                grad[c]
            );
            nlp.constraints(&xp, &mut gp).unwrap();
            nlp.constraints(&xm, &mut gm).unwrap();
            let mut dense: Vec<f64> = gp
                .iter()
                .zip(&gm)
                .map(|(a, b)| (a - b) / (2.0 * h))
                .collect();
            for &(r, v) in &by_column[c] {
                let rounding = 1e-15 * gp[r].abs().max(gm[r].abs()) / h;
                assert!(
                    (dense[r] - v).abs() <= 1e-5 * (1.0 + v.abs()) + rounding,
                    "∂c{r}/∂x{c}: {v} vs {}",
                    dense[r]
                );
                dense[r] = 0.0;
            }
            // Nothing outside the declared structure depends on x_c.
            let stray = dense.iter().fold(0.0f64, |a, v| a.max(v.abs()));
            assert!(
                stray < 1e-6,
                "x{c} changes a constraint outside the Jacobian structure ({stray})"
            );
        }
    }

    /// The exact Hessian of the Lagrangian σ∇²f + Σλᵢ∇²cᵢ (the tape's second-order adjoints) against
    /// central differences of the exact Lagrangian gradient ∇f + Jᵀλ, at a disturbed point with
    /// λ of both signs: the curvature `--hessian exact` hands to IPOPT is the true one.
    fn check_hessian(spec: GaitSpec) {
        let nlp = AutoDiff::new(GaitProblem::new(spec)).unwrap();
        let x = disturbed_point(&nlp);
        let (n, m) = (nlp.num_variables(), nlp.num_constraints());
        let lambda: Vec<f64> = (0..m)
            .map(|k| ((k as f64 * 7.13).sin() * 1000.0).fract())
            .collect();
        let structure = nlp.jacobian_structure();
        let lagrangian_gradient = |x: &[f64]| {
            let mut g = vec![0.0; n];
            nlp.objective_gradient(x, &mut g).unwrap();
            let mut jac = vec![0.0; structure.len()];
            nlp.jacobian_values(x, &mut jac).unwrap();
            for (&(r, c), v) in structure.iter().zip(&jac) {
                g[c] += lambda[r] * v;
            }
            g
        };
        let mut dense = vec![vec![0.0; n]; n];
        let hessian = nlp.hessian_structure().unwrap();
        let mut values = vec![0.0; hessian.len()];
        nlp.hessian_values(&x, 1.0, &lambda, &mut values).unwrap();
        for (&(r, c), v) in hessian.iter().zip(&values) {
            dense[r][c] += v;
            if r != c {
                dense[c][r] += v;
            }
        }
        let h = 1e-6;
        // Every third column (each kind of variable included), to keep the debug-build test short.
        for c in (0..n).step_by(3) {
            let (mut xp, mut xm) = (x.clone(), x.clone());
            xp[c] += h;
            xm[c] -= h;
            let (gp, gm) = (lagrangian_gradient(&xp), lagrangian_gradient(&xm));
            for r in 0..n {
                let fd = (gp[r] - gm[r]) / (2.0 * h);
                let rounding = 1e-15 * gp[r].abs().max(gm[r].abs()) / h;
                assert!(
                    (fd - dense[r][c]).abs() <= 1e-3 * (1.0 + fd.abs()) + rounding,
                    "∂²L/∂x{r}∂x{c}: {} vs {fd}",
                    dense[r][c]
                );
            }
        }
    }

    #[test]
    fn exact_hessian_matches_differences_of_the_lagrangian_gradient() {
        let spec =
            GaitSpec::new(creature("monoped"), 0.5, 0.5, &[timing("shin", 0.0, 0.5)]).unwrap();
        check_hessian(spec);
    }

    /// The simple biped's walk NLP (0.7 m/s, default timing) and a disturbed point of it.
    fn disturbed_biped_walk() -> (AutoDiff<GaitProblem>, Vec<f64>) {
        let spec = GaitSpec::new(
            creature("simple_biped"),
            0.7,
            1.0,
            &[timing("l_foot", 0.0, 0.6), timing("r_foot", 0.5, 0.6)],
        )
        .unwrap();
        let nlp = AutoDiff::new(GaitProblem::new(spec)).unwrap();
        let x = disturbed_point(&nlp);
        (nlp, x)
    }

    /// Gradient, Jacobian and Hessian are evaluated block by block in parallel and summed in a
    /// fixed order: one thread and four give the same bits, so solves stay reproducible.
    #[test]
    fn derivatives_do_not_depend_on_the_thread_count() {
        let (nlp, x) = disturbed_biped_walk();
        let lambda: Vec<f64> = (0..nlp.num_constraints())
            .map(|k| ((k as f64 * 3.71).sin() * 100.0).fract())
            .collect();
        let evaluate = |threads: usize| {
            let pool = rayon::ThreadPoolBuilder::new()
                .num_threads(threads)
                .build()
                .unwrap();
            pool.install(|| {
                let mut g = vec![0.0; nlp.num_variables()];
                nlp.objective_gradient(&x, &mut g).unwrap();
                let mut j = vec![0.0; nlp.jacobian_structure().len()];
                nlp.jacobian_values(&x, &mut j).unwrap();
                let mut h = vec![0.0; nlp.hessian_structure().unwrap().len()];
                nlp.hessian_values(&x, 0.7, &lambda, &mut h).unwrap();
                [g, j, h].map(|v| v.iter().map(|e| e.to_bits()).collect::<Vec<u64>>())
            })
        };
        let (one, four) = (evaluate(1), evaluate(4));
        for (what, (a, b)) in ["gradient", "jacobian", "hessian"]
            .iter()
            .zip(one.iter().zip(&four))
        {
            assert!(a.iter().any(|&v| v != 0), "{what} is all zeros");
            assert_eq!(a, b, "{what} differs between 1 and 4 threads");
        }
    }

    /// The tape's reverse-mode derivatives (autodiff's engine) equal forward-mode dual numbers
    /// on the real problem: every objective term of the simple biped (effort terms with their
    /// inverse dynamics included) and every third constraint block, gradient, Jacobian and the
    /// weighted Hessian, at a disturbed point.
    #[test]
    fn tape_derivatives_equal_dual_number_derivatives_on_the_biped() {
        use crate::spacetime::autodiff::BlockProblem;
        use crate::spacetime::tape;
        use nalgebra::DVector;
        use num_dual::{Dual2DVec64, DualDVec64};
        let (nlp, x) = disturbed_biped_walk();
        let p = nlp.problem();
        let close = |got: f64, want: f64, scale: f64, what: &str| {
            assert!(
                (got - want).abs() <= 1e-9 * scale.max(1.0),
                "{what}: tape {got} vs duals {want} (scale {scale})"
            );
        };
        let max_abs = |m: &nalgebra::DMatrix<f64>| m.iter().fold(0.0f64, |a, v| a.max(v.abs()));
        // Compares the lower triangles; returns the largest |entry| of `want`.
        let lower_triangles_agree =
            |h: &nalgebra::DMatrix<f64>, want: &nalgebra::DMatrix<f64>, what: &str| -> f64 {
                let scale = max_abs(want);
                for a in 0..want.nrows() {
                    for b in 0..=a {
                        close(
                            h[(a, b)],
                            want[(a, b)],
                            scale,
                            &format!("{what} H[{a},{b}]"),
                        );
                    }
                }
                scale
            };
        let (mut largest_term, mut largest_variables) = (0.0f64, 0);
        for (k, t) in p.objective_terms().iter().enumerate() {
            let local: Vec<f64> = t.variables.iter().map(|&i| x[i]).collect();
            let (_, g) = tape::gradient(&local, |v| p.objective_term(k, v));
            let (_, want_g) = num_dual::gradient(
                |v: DVector<DualDVec64>| p.objective_term(k, v.as_slice()),
                &DVector::from_vec(local.clone()),
            );
            let g_scale = want_g.amax();
            for a in 0..local.len() {
                close(g[a], want_g[a], g_scale, &format!("term {k} gradient {a}"));
            }
            let (_, h) = tape::weighted_hessian(&local, &[1.0], |v| vec![p.objective_term(k, v)]);
            let (_, _, want_h) = num_dual::hessian(
                |v: DVector<Dual2DVec64>| p.objective_term(k, v.as_slice()),
                &DVector::from_vec(local.clone()),
            );
            let h_scale = lower_triangles_agree(&h, &want_h, &format!("term {k}"));
            if h_scale > largest_term {
                (largest_term, largest_variables) = (h_scale, local.len());
            }
        }
        assert!(
            largest_term > 1.0 && largest_variables > 50,
            "an effort term with real curvature was compared ({largest_term}, {largest_variables} variables)"
        );
        let blocks = p.constraint_blocks();
        for (k, b) in blocks.iter().enumerate().step_by(3) {
            let local: Vec<f64> = b.variables.iter().map(|&i| x[i]).collect();
            let weights: Vec<f64> = (0..b.rows()).map(|r| 1.0 - 0.37 * r as f64).collect();
            let (_, jac) = tape::jacobian(&local, |v| p.constraint_block(k, v));
            let (_, want_jac) = num_dual::jacobian(
                |v: DVector<DualDVec64>| DVector::from_vec(p.constraint_block(k, v.as_slice())),
                &DVector::from_vec(local.clone()),
            );
            let j_scale = max_abs(&want_jac);
            for r in 0..b.rows() {
                for a in 0..local.len() {
                    close(
                        jac[r][a],
                        want_jac[(r, a)],
                        j_scale,
                        &format!("block {k} J[{r},{a}]"),
                    );
                }
            }
            let (_, h) = tape::weighted_hessian(&local, &weights, |v| p.constraint_block(k, v));
            let (_, _, want_h) = num_dual::hessian(
                |v: DVector<Dual2DVec64>| {
                    p.constraint_block(k, v.as_slice())
                        .into_iter()
                        .zip(&weights)
                        .fold(Dual2DVec64::from(0.0), |acc, (c, &w)| acc + c * w)
                },
                &DVector::from_vec(local.clone()),
            );
            lower_triangles_agree(&h, &want_h, &format!("block {k}"));
        }
    }

    /// Every demo clip shipped in assets/gaits/ loads, names a creature of characters/, and is
    /// physically valid by the independent audit (with its own body, for morphology clips).
    #[test]
    fn every_shipped_gait_clip_passes_the_audit() {
        let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("assets/gaits");
        let mut checked = 0;
        for entry in std::fs::read_dir(&dir).unwrap() {
            let path = entry.unwrap().path();
            if path.extension().and_then(|e| e.to_str()) != Some("ron") {
                continue;
            }
            let clip: GaitClip = crate::jobs::read_ron(&path).unwrap();
            let sk = creature(&clip.creature.replace(' ', "_"));
            clip.check_creature(&sk).unwrap();
            let body = clip.body(&sk).unwrap();
            clip.validate(&body).unwrap();
            let report = audit(&body, &clip, MU, NU);
            assert!(
                clip.max_violation <= 1e-6 && report.max() <= 1e-6,
                "{}: violation {:e}, audit {:e}",
                path.display(),
                clip.max_violation,
                report.max()
            );
            assert_eq!(clip.frames.len(), FRAMES, "{}", path.display());
            checked += 1;
        }
        assert!(checked >= 10, "only {checked} clips in {}", dir.display());
    }

    /// The audit is not blind: a shipped gait with one joint angle of one frame moved by
    /// 0.05 rad, or one contact force scaled by 1.1, breaks the momentum balance it checks by far
    /// more than its 1e-6 bar.
    #[test]
    fn the_audit_rejects_a_perturbed_gait() {
        let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("assets/gaits/biped_walk_0.7ms.ron");
        let clip: GaitClip = crate::jobs::read_ron(&path).unwrap();
        let body = clip.body(&creature("simple_biped")).unwrap();
        assert!(audit(&body, &clip, MU, NU).max() <= 1e-6);
        let mut moved = clip.clone();
        moved.frames[7][9] += 0.05; // l_shin.angle, the left knee
        let a = audit(&body, &moved, MU, NU);
        assert!(a.max_dynamics() > 1e-3, "a moved knee passes: {a:?}");
        let mut pushed = clip.clone();
        let (i, k) = (0..pushed.contacts.len())
            .flat_map(|i| (0..pushed.contacts[i].len()).map(move |k| (i, k)))
            .find(|&(i, k)| clip.contacts[i][k].is_some())
            .expect("a frame in contact");
        let load = pushed.contacts[i][k].as_mut().unwrap();
        load.force = load.force.map(|f| f * 1.1);
        let a = audit(&body, &pushed, MU, NU);
        assert!(
            a.max_dynamics() > 1e-3,
            "a scaled contact force passes: {a:?}"
        );
    }

    #[cfg(feature = "ipopt")]
    fn check_solution(spec: &GaitSpec, clip: &GaitClip) {
        assert!(
            clip.converged(),
            "status {} projection {:?}",
            clip.status,
            clip.projection_status
        );
        assert!(
            clip.max_violation <= 1e-6,
            "max violation {}",
            clip.max_violation
        );
        let a = audit(&clip.body(&spec.skeleton).unwrap(), clip, spec.mu, spec.nu);
        assert!(a.max() <= 1e-6, "audit {a:?}");
        assert!(clip.cost.is_finite() && clip.cost > 0.0);
        // The clip's contacts follow the timings; feet in the air carry nothing.
        for (i, row) in clip.contacts.iter().enumerate() {
            for (k, c) in row.iter().enumerate() {
                assert_eq!(c.is_some(), spec.in_contact(i, k));
            }
        }
    }

    #[cfg(feature = "ipopt")]
    #[test]
    fn monoped_hop_converges_with_a_clean_audit() {
        // The contact window crosses the cycle end: frames 24..=29 and 0..=8.
        let spec =
            GaitSpec::new(creature("monoped"), 0.7, 0.5, &[timing("shin", 0.8, 0.5)]).unwrap();
        assert!(spec.in_contact(29, 0) && spec.in_contact(0, 0) && spec.has_flight());
        let clip = solve_logged(&spec, 300);
        check_solution(&spec, &clip);
        // The foot slides back across the wrap at −V: frame 29 → 0.
        let k = |q: &Vec<f64>| {
            forward_kinematics(&spec.skeleton, &spec.skeleton.morphology::<f64>(), q)
                .foot(&spec.skeleton, 0)
                .re()
        };
        let (a, b) = (k(&clip.frames[29]), k(&clip.frames[0]));
        assert!(
            ((b[0] - a[0]) / spec.dt() + 0.7).abs() < 1e-6,
            "{a:?} → {b:?}"
        );
        // In flight (frame 15) no force acts: the centre of mass falls freely.
        assert!(clip.contacts[15][0].is_none());
    }

    #[cfg(feature = "ipopt")]
    #[test]
    fn simple_biped_walk_is_physically_valid() {
        // Walk at 0.7 m/s (§1.3's biped speed): each foot down 0.6 of a 1 s cycle, half a cycle
        // apart; the right foot's window crosses the cycle end. A short solve (100 iterations,
        // then the feasibility projection) keeps the test fast; `motionlab gait` runs it fully.
        let sk = creature("simple_biped");
        let (period, timings) = default_timings(&sk);
        assert_eq!(
            timings,
            vec![timing("l_foot", 0.0, 0.6), timing("r_foot", 0.5, 0.6)]
        );
        let spec = GaitSpec::new(sk, 0.7, period, &timings).unwrap();
        assert!(spec.has_double_support() && !spec.has_flight());
        let clip = solve_logged(&spec, 100);
        check_solution(&spec, &clip);
        // The clip round-trips through RON.
        let text = ron::ser::to_string(&clip).unwrap();
        assert_eq!(ron::from_str::<GaitClip>(&text).unwrap(), clip);
    }
}
