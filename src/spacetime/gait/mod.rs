//! Cyclic gaits with fixed contact timings: the "treadmill" spacetime NLP of Wampler 2012
//! (thesis §3.2), solved with IPOPT.
//!
//! A gait cycle is [`FRAMES`] = 30 frames of period T (dt = T/30). Every time derivative wraps
//! cyclically (frame 29 is followed by frame 0) and the creature stays in place overall: feet in
//! contact slide backwards at the gait speed V, as on a treadmill.
//!
//! # Variables (thesis §3.2)
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
//! - (3.5) no twist of a contact foot about y: R_{x,z} − R_{z,x} = 0 for the foot limb's R; of
//!   the feet down whose legs have no joint about the vertical, only the first one's (the
//!   others' rows are nearly parallel to it: [`crate::spacetime::skeleton::Skeleton::held_twists`]);
//! - (3.6) ‖p_{k,2} − p_{k,1}‖² ≥ r² for every separation pair of the character file;
//! - (3.7) Σ_i root_x = Σ_i root_z = 0;
//! - (3.8)–(3.9) Newton–Euler about the centre of mass with every limb a point mass at its centre
//!   (§3.2.1), per frame and divided by m: Σ_k m_k a_k/m − g − Σ f/m = 0 and
//!   Σ_k m_k (c_k − CM) × a_k/m − Σ [(p_c − CM) × f/m + t/m] = 0, with the limb centres'
//!   accelerations a_k = (c_{k,i+1} − 2c_{k,i} + c_{k,i−1})/dt² (cyclic). (For point masses
//!   d/dt Σ m(c − CM) × v = Σ m(c − CM) × a exactly.)
//! - (3.10) Coulomb friction, the exact cone written smoothly: (μ f_y/m)² − ‖f_xz/m‖² ≥ 0;
//! - (3.11) the torque ellipsoid: (f_y/m)² − ‖t_xz/(m ν_b)‖² − (t_y/(m ν_t))² ≥ 0 (for a foot
//!   up on its toes, in the foot's frame and wider across it: [`Footing::torque_rows`]);
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

/// Frames per gait cycle (Wampler 2012, thesis §3.2.5).
pub const FRAMES: usize = 30;
/// Coulomb friction coefficient μ (thesis §3.2.1, the same for all animals).
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
    /// Weight of a preferred posture, Σ (q − q_rest)² over the joint coordinates per frame
    /// (the "preferred angles" objective of McIntosh 2011, §3.2.3; 0 in the thesis's gaits). Light
    /// limbs cost little effort wherever they are, so without it a gait may swing an arm far
    /// back in one solve and forward in the next.
    #[serde(default)]
    pub posture: f64,
}

impl GaitWeights {
    /// C₁..C₄ = 25, 0.1, 25, 100, "the same for all animals and gaits".
    pub const THESIS: GaitWeights = GaitWeights {
        effort: 25.0,
        joint_velocity: 0.1,
        head_velocity: 25.0,
        head_orientation: 100.0,
        posture: 0.0,
    };
}

/// One foot's contact window: it touches the ground from `start` for `duration`, both fractions of
/// the period (§3.3: exactly one interval per foot and cycle). A window may cross the cycle's end.
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
    #[error("turn rate must be a finite number of rad/s (and 0 for a planar creature), found {0}")]
    TurnRate(f64),
    #[error(
        "strafe angle must be within ±180° (in radians) on a transformed cycle (not a treadmill or open clip), found {0}"
    )]
    Strafe(f64),
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
    #[error("cannot solve half the cycle and mirror it: {0}")]
    NotSymmetric(String),
    #[error("{0}")]
    Pivot(String),
    #[error("the clip sizes limb `{0}`, which creature `{1}` does not have")]
    UnknownLimb(String, String),
    #[error("not a usable clip of `{0}`: {1}")]
    InvalidClip(String, String),
    #[error(
        "posture entry `{0}` names no limb (by part of its name) or joint coordinate (an entry with a dot) of `{1}` (limbs: {2})"
    )]
    UnknownPosture(String, String, String),
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

/// A fixed-timing gait request: the inputs of Wampler 2012, thesis §3.2.
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
    /// Co-optimise the limbs' lengths and radii (thesis §3.4, [`super::morphology`]).
    pub morphology: Option<MorphologyOptions>,
    /// How the frames close: treadmill, transformed cycle or open ([`closure`]).
    pub closure: Closure,
    /// An upper bound on the head point's height at every frame (m): a ceiling that forces a
    /// crouch (McIntosh 2011, §3.4.2, Eq. 3.14).
    pub max_head_height: Option<f64>,
    /// The limbs whose joints the posture term ([`GaitWeights::posture`]) holds, by parts of
    /// their names (`arm`, `hand`), or single coordinates by parts of theirs when the entry
    /// has a dot (`thigh.ry`: both hips' rotation about the thigh); empty: every limb.
    pub posture_limbs: Vec<String>,
    /// A foot in contact is flat: its limb's up axis is vertical (for feet with soles; the
    /// thesis's feet are points, free to pitch and roll on the ground).
    pub flat_feet: bool,
    /// A foot in the air keeps its sole's corners above the ground (for box feet: the NLP's
    /// foot is a point, free to graze the ground and tip its toe under it while it swings).
    pub sole_clearance: bool,
    /// The least height (m) of a swinging sole's corners at the middle of its time in the air
    /// ([`Self::swing_floor`]); above 0 it keeps the soles up as `sole_clearance` does.
    pub swing_clearance: f64,
    /// How the effort term holds the joint torques ([`Torques`]).
    pub torques: Torques,
    /// The passive elements a solve from the rest pose with lifted torques starts with.
    pub start_springs: StartSprings,
    /// Solve half the cycle, the other half being its mirror image ([`Self::with_mirror_half`]).
    mirror_half: bool,
    /// This spec is the half cycle of a mirror-symmetric one: its frames are the first N/2, its
    /// seam [`Seam::Mirror`] (the contact table stays the whole cycle's).
    half: bool,
    /// Start from this clip's motion, loads, springs and body instead of the rest pose
    /// ([`GaitSpec::with_warm_start`]).
    warm_start: Option<Box<GaitClip>>,
    /// contact[frame][foot].
    contact: Vec<Vec<bool>>,
    /// pivoting[frame][foot]: how far (rad, left positive) the foot turns on its contact point
    /// from this frame to the next (a connection's [`Pivot`]); empty: no foot turns.
    pivoting: Vec<Vec<f64>>,
    /// footing[frame][foot] (empty: every foot down on its sole, [`Footing::Sole`]).
    footing: Vec<Vec<Footing>>,
}

/// How the effort term holds the active joint torques (one type with the character file's
/// hints).
pub use crate::model::{StartSprings, Torques};

/// How a foot on the ground stands at a frame: on its sole (its foot point) or, in a toe pivot's
/// window, turning about its toes ([`Skeleton::toes`]), flat or up on them.
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize, Deserialize)]
pub enum Footing {
    /// On its foot point, keeping it where it is.
    #[default]
    Sole,
    /// Flat on its sole, the load at its foot point, turning about its toes (a toe pivot's
    /// window, before the heel comes up and after it is down).
    SoleAboutToes,
    /// Up on its toes, level across, the heel at least `heel` metres up: the load acts at the
    /// toes, and the foot turns about them. `yaw` (rad, left positive): the foot's heading at
    /// this frame, along which the toes' edge lies across the foot (the pivot's share of the turn
    /// fixes it, [`Footing::torque_rows`]).
    Toes {
        heel: f64,
        #[serde(default)]
        yaw: f64,
    },
}

impl Footing {
    /// Whether the foot turns about its toes (a toe pivot's window).
    pub fn about_toes(&self) -> bool {
        *self != Footing::Sole
    }

    /// Whether the load acts at the toes.
    pub fn on_toes(&self) -> bool {
        matches!(self, Footing::Toes { .. })
    }

    /// The torque ellipsoid (3.11) in the foot's frame: two rows that take a load's torque
    /// (t_x, t_z) to the components bounded, with t_y, by ν·f_y. On the sole (Wampler's model)
    /// they are the identity: the centre of pressure within ν of the foot point. Up on the toes
    /// the load may sit anywhere along their edge: across the foot (the torque about its forward
    /// axis) within `half_width`, the edge's half length, and along it within ν. With ν alone
    /// on one foot's toes the solver balanced a toe pivot by swinging the arms (Agrawal 2016's
    /// pivots turn on the ball of the foot, which is as wide as the foot).
    pub fn torque_rows(&self, half_width: f64, nu: f64) -> [[f64; 2]; 2] {
        match *self {
            Footing::Toes { yaw, .. } => {
                let (s, c) = yaw.sin_cos();
                let across = nu / half_width.max(nu);
                // Forward u = (cos, −sin) and sideways w = (sin, cos) in (x, z): an offset of
                // the load along w turns about u, and one along u about w.
                [[c * across, -s * across], [s, c]]
            }
            _ => [[1.0, 0.0], [0.0, 1.0]],
        }
    }
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
            closure: Closure::Treadmill,
            max_head_height: None,
            posture_limbs: Vec::new(),
            flat_feet: false,
            sole_clearance: false,
            swing_clearance: 0.0,
            torques: Torques::default(),
            start_springs: StartSprings::default(),
            mirror_half: false,
            half: false,
            warm_start: None,
            contact: Vec::new(),
            pivoting: Vec::new(),
            footing: Vec::new(),
        };
        spec.contact = contact_flags(&spec.timings, spec.frames);
        spec.check_contacts()?;
        Ok(spec)
    }

    fn check_contacts(&self) -> Result<(), GaitError> {
        let moving = self.speed != 0.0 || self.closure.turn_rate() != 0.0;
        for (k, t) in self.timings.iter().enumerate() {
            if !self.contact.iter().any(|c| c[k]) && self.closure.is_cyclic() {
                return Err(GaitError::EmptyWindow(t.foot.clone(), self.frames));
            }
            if moving && self.closure.is_cyclic() && self.contact.iter().all(|c| c[k]) {
                return Err(GaitError::FullContact(t.foot.clone(), self.speed));
            }
        }
        Ok(())
    }

    /// An open clip of N = `contact.len()` frames over `duration` seconds (from the first frame
    /// to the last, see [`Self::dt`]) whose first two and last two frames are `ends`
    /// (heading-root coordinates), with the given contact table (`contact[frame][foot]`);
    /// `speed` is only a tag. The feet's windows name the feet and give the share of frames in
    /// contact; the table is what counts.
    pub fn open(
        skeleton: Skeleton,
        speed: f64,
        duration: f64,
        contact: Vec<Vec<bool>>,
        ends: OpenEnds,
    ) -> Result<Self, GaitError> {
        let skeleton = skeleton.with_heading_root();
        let n = contact.len();
        let feet = skeleton.feet.len();
        let dof = skeleton.dof();
        if n < 5 || contact.iter().any(|c| c.len() != feet) {
            return Err(GaitError::WarmStart(format!(
                "an open clip needs at least 5 frames with a contact flag per foot ({feet})"
            )));
        }
        if ends.first.iter().chain(&ends.last).any(|q| q.len() != dof) {
            return Err(GaitError::WarmStart(format!(
                "the fixed end frames need {dof} coordinates each"
            )));
        }
        let timings = (0..feet)
            .map(|k| {
                let down = contact.iter().filter(|c| c[k]).count();
                FootTiming {
                    foot: skeleton.limbs[skeleton.feet[k]].name.clone(),
                    start: contact.iter().position(|c| c[k]).unwrap_or(0) as f64 / n as f64,
                    duration: down as f64 / n as f64,
                }
            })
            .collect();
        let spec = Self {
            skeleton,
            speed,
            period: duration,
            timings,
            frames: n,
            weights: GaitWeights::THESIS,
            mu: MU,
            nu: NU,
            seed: 0,
            morphology: None,
            closure: Closure::Open(Box::new(ends)),
            max_head_height: None,
            posture_limbs: Vec::new(),
            flat_feet: false,
            sole_clearance: false,
            swing_clearance: 0.0,
            torques: Torques::default(),
            start_springs: StartSprings::default(),
            mirror_half: false,
            half: false,
            warm_start: None,
            contact,
            pivoting: Vec::new(),
            footing: Vec::new(),
        };
        spec.check_contacts()?;
        Ok(spec)
    }

    /// Bounds the head's height by a ceiling (m).
    pub fn with_ceiling(mut self, height: Option<f64>) -> Self {
        self.max_head_height = height;
        self
    }

    /// The transform T of a transformed cycle (frame N = T(frame 0)); the identity otherwise.
    pub fn cycle_motion(&self) -> PlanarMotion {
        self.closure.cycle_motion(self.speed, self.period)
    }

    /// Where the root would be at frame `i` moving exactly along the cycle's arc from the
    /// origin (transformed cycles; see [`closure`]).
    pub fn path(&self, i: usize) -> PlanarMotion {
        self.closure.path(self.speed, i as f64 * self.dt())
    }

    pub fn with_seed(mut self, seed: u64) -> Self {
        self.seed = seed;
        self
    }

    /// Makes the limbs' lengths and radii variables of the solve (Wampler 2012, thesis §3.4).
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
        if clip.closure.is_treadmill() != self.closure.is_treadmill() && !self.skeleton.planar {
            return Err(GaitError::WarmStart(
                "a treadmill clip and a transformed or open one have different root coordinates"
                    .into(),
            ));
        }
        clip.body(&self.skeleton)?;
        self.warm_start = Some(Box::new(clip));
        Ok(self)
    }

    /// Whether the solve starts from a clip.
    pub fn is_warm_started(&self) -> bool {
        self.warm_start.is_some()
    }

    /// dt = T/N for a cycle (N intervals, the last one across the seam); duration/(N − 1)
    /// for an open clip.
    pub fn dt(&self) -> f64 {
        if self.closure.is_cyclic() {
            self.period / self.frames as f64
        } else {
            self.period / (self.frames - 1) as f64
        }
    }

    /// Whether foot `foot` (index into `skeleton.feet`) is in contact at `frame`.
    pub fn in_contact(&self, frame: usize, foot: usize) -> bool {
        self.contact[frame][foot]
    }

    /// How far (rad, left positive) a foot on the ground turns on its contact point from
    /// `frame` to the next: a pivot's share of its turn, 0 for a foot that keeps its heading.
    pub fn pivot_turn(&self, frame: usize, foot: usize) -> f64 {
        self.pivoting
            .get(frame)
            .and_then(|f| f.get(foot).copied())
            .unwrap_or(0.0)
    }

    /// The spec with its feet turning on their contact points by `pivoting[frame][foot]` (rad,
    /// from that frame to the next; see [`Pivot`]).
    pub fn with_pivots(mut self, pivoting: Vec<Vec<f64>>) -> Self {
        self.pivoting = pivoting;
        self
    }

    /// How foot `foot` stands at `frame` ([`Footing`]).
    pub fn footing(&self, frame: usize, foot: usize) -> Footing {
        (self.footing.get(frame))
            .and_then(|f| f.get(foot).copied())
            .unwrap_or_default()
    }

    /// Where the load of foot `foot` acts at `frame`: its toes' offset from the foot point when
    /// it stands on them, zero otherwise (see [`crate::spacetime::dynamics::Kinematics::contact`]).
    pub fn contact_offset(&self, frame: usize, foot: usize) -> [f64; 3] {
        self.offset_if(foot, self.footing(frame, foot).on_toes())
    }

    /// The point of foot `foot` that stays from `frame` to `next`: its toes when it turns about
    /// them at either frame, its foot point otherwise.
    pub fn slip_offset(&self, frame: usize, next: usize, foot: usize) -> [f64; 3] {
        let about = |i: usize| self.footing(i, foot).about_toes();
        self.offset_if(foot, about(frame) || about(next))
    }

    fn offset_if(&self, foot: usize, toes: bool) -> [f64; 3] {
        match toes {
            true => self.skeleton.toes(foot).unwrap_or([0.0; 3]),
            false => [0.0; 3],
        }
    }

    /// The spec with its feet standing as `footing[frame][foot]` says (see [`Footing`]).
    pub fn with_footing(mut self, footing: Vec<Vec<Footing>>) -> Self {
        self.footing = footing;
        self
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

mod audit;
mod blocks;
mod clip;
pub mod closure;
mod connect;
mod effort;
mod mirror;
mod posture;
mod problem;
mod solve;
mod swing;
#[cfg(test)]
mod tests;
mod torques;

pub use audit::*;
pub use clip::*;
pub use closure::{Closure, OpenEnds, PlanarMotion, Seam};
pub use connect::*;
pub use problem::*;
pub use solve::*;
pub use torques::gait_torques;
