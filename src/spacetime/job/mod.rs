//! The gait job: one typed request ([`GaitRequest`]) for a cyclic gait solve or a gait
//! discovery (Wampler 2012, thesis §3.2 and §3.3), run by
//! [`run_gait`] with typed progress ([`GaitEvent`]) and a typed outcome ([`GaitOutcome`]).
//! The command line (`motionlab gait`), the Gait panel (through `motionlab gait-job REQUEST`, a child
//! process given the request as RON, which writes its events as RON lines) and the tests all call [`run_gait`].
//!
//! What the job adds to the solver of [`crate::spacetime::gait`]:
//! - the timing: given, the creature's default, a start clip's own, or discovered
//!   ([`discover`]: basin-CMA over the timings, each sample a capped solve);
//! - a warm start from a clip (a refinement, or a discovery's best sample) with
//!   [`warm_start_options`];
//! - the default staged solve (L-BFGS for the creature's `lbfgs_iterations`, then the exact
//!   Hessian) or one Hessian mode throughout;
//! - keeping a valid start when the solve ends no better (IPOPT is no descent method);
//! - the independent physics audit of the result, and the clip written atomically.

pub mod discover;
pub mod events;
pub mod pool;
pub mod starts;
mod worker_job;

use crate::spacetime::gait::{FootTiming, GaitClip, StageSummary};
use crate::spacetime::morphology::MorphologyOptions;
use crate::spacetime::nlp::OptionValue;
use serde::{Deserialize, Serialize};
use std::path::PathBuf;

pub use discover::{ProcessPool, SampleSolver, SpreadSamples};
pub use events::{GaitEvent, StartSummary};
pub use pool::{GaitWorker, PoolError, PoolEvent, SolverPool};
pub use worker_job::{GaitLog, GaitWorkerJob};

/// Second derivatives of a gait solve.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize, clap::ValueEnum)]
pub enum GaitHessian {
    /// L-BFGS for the first `lbfgs_iterations`, then the exact Hessian from the clip reached.
    #[default]
    LbfgsThenExact,
    /// The least-squares objective's Gauss–Newton part plus the exact constraint curvature.
    GaussNewton,
    /// The Gauss–Newton part alone (no constraint curvature).
    GaussNewtonObjective,
    /// Reverse-mode second-order adjoints from the rest pose on.
    Exact,
    /// IPOPT's limited-memory approximation throughout.
    Lbfgs,
    /// The Gauss–Newton curvature for the first `lbfgs_iterations`, then the exact Hessian
    /// from the clip reached (experimental: a lower cost on the simple biped, restoration
    /// failures on the horse).
    GaussNewtonThenExact,
}

impl GaitHessian {
    /// The curvature a solve takes unless asked for another: with the torques as variables the
    /// exact Hessian from the rest pose (their objective is convex, and an L-BFGS stage first
    /// takes longer to the same cost), else L-BFGS first, then the exact Hessian.
    pub fn default_for(torques: crate::spacetime::gait::Torques) -> Self {
        match torques {
            crate::spacetime::gait::Torques::Variables => GaitHessian::Exact,
            crate::spacetime::gait::Torques::Computed => GaitHessian::LbfgsThenExact,
        }
    }
}

/// A discovery's settings (Wampler 2012, thesis §3.3).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct DiscoverRequest {
    /// CMA-ES generations.
    pub generations: usize,
    /// Samples per generation (default 4 + ⌊3 ln n⌋, n = 2 × feet).
    pub population: Option<usize>,
    /// IPOPT iteration limit of each sample's projection; default the character file's
    /// `gait: (sample_iterations: …)`, else [`crate::spacetime::discovery::SAMPLE_ITERATIONS`].
    pub sample_iterations: Option<usize>,
    /// Samples solved side by side (0: one per core).
    pub threads: usize,
    /// Keep every sample's clip and summary here; a rerun reuses the samples already solved.
    pub samples_dir: Option<PathBuf>,
    /// The periods searched, (shortest, longest) in seconds.
    pub period_range: Option<(f64, f64)>,
}

impl Default for DiscoverRequest {
    fn default() -> Self {
        Self {
            generations: 8,
            population: None,
            sample_iterations: None,
            threads: 0,
            samples_dir: None,
            period_range: None,
        }
    }
}

/// One gait job: a fixed-timing solve, a refinement of a clip, or a discovery.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct GaitRequest {
    /// The character file (a free root and `Foot` end effectors).
    pub creature: PathBuf,
    /// V (m/s, along +x).
    pub speed: f64,
    /// T (s); default the start clip's, else 0.5 for one foot and 1.0 otherwise.
    pub period: Option<f64>,
    /// The contact windows; default the start clip's, else the creature's default timing.
    pub contacts: Option<Vec<FootTiming>>,
    /// Perturbs the rest-pose initialisation (0: none); a discovery's CMA-ES seed (0 counts
    /// as 1).
    pub seed: u64,
    /// Start from this clip (of the same creature) instead of the rest pose.
    pub init: Option<PathBuf>,
    /// Discover the timing first; the best sample's clip is the start of the final solve.
    pub discover: Option<DiscoverRequest>,
    /// IPOPT iteration limit of the solve, both stages together.
    pub max_iterations: usize,
    pub hessian: GaitHessian,
    /// L-BFGS iterations of the staged solve; default the character file's, else
    /// [`crate::spacetime::gait::STAGED_LBFGS_ITERATIONS`].
    pub lbfgs_iterations: Option<usize>,
    /// Extra IPOPT options.
    pub ipopt: Vec<(String, OptionValue)>,
    /// Co-optimise the body (Wampler 2012, thesis §3.4).
    pub morphology: Option<MorphologyOptions>,
    /// IPOPT's print level (0 silent, 5 the iteration log, on standard output).
    pub print_level: i32,
    /// Write the clip here (RON, atomically).
    pub out: Option<PathBuf>,
    /// Solve a transformed cycle turning at this rate (rad/s, positive to the left;
    /// McIntosh 2011, §3.2.5) instead of the treadmill cycle.
    #[serde(default)]
    pub turn_rate: Option<f64>,
    /// The transformed cycle travels at this angle to the left of its heading (rad; Wampler
    /// 2012, thesis §5.2.1's strafe angle ϕ; 0: forwards). Needs `turn_rate`.
    #[serde(default)]
    pub strafe: f64,
    /// A ceiling the head stays under (m): a crouching gait (McIntosh 2011, §3.4.2).
    #[serde(default)]
    pub ceiling: Option<f64>,
    /// The objective's weights C₁..C₄ (and the posture's) instead of the thesis's.
    #[serde(default)]
    pub weights: Option<crate::spacetime::gait::GaitWeights>,
    /// The limbs the posture term holds (parts of their names; empty: all).
    #[serde(default)]
    pub posture_limbs: Vec<String>,
    /// Feet in contact are flat ([`crate::spacetime::gait::GaitSpec::flat_feet`]).
    #[serde(default)]
    pub flat_feet: bool,
    /// Feet in the air keep their soles above the ground
    /// ([`crate::spacetime::gait::GaitSpec::sole_clearance`]).
    #[serde(default)]
    pub sole_clearance: bool,
    /// The swinging soles' least height mid-swing (m; above 0 implies `sole_clearance`)
    /// ([`crate::spacetime::gait::GaitSpec::swing_clearance`]).
    #[serde(default)]
    pub swing_clearance: f64,
    /// Solve a connecting clip between two solved clips instead of a cycle (Wampler
    /// 2012, App. C); `speed`, `period`, `contacts` and `turn_rate` are then unused.
    #[serde(default)]
    pub connect: Option<ConnectRequest>,
    /// The NLP solver.
    #[serde(default)]
    pub solver: crate::nlp::Backend,
    /// How the effort holds the joint torques ([`crate::spacetime::gait::Torques`]).
    #[serde(default)]
    pub torques: crate::spacetime::gait::Torques,
    /// Solves from the rest pose, each with its own perturbation of the start, run side by side
    /// by the job's sample solver; the best valid clip is kept ([`starts`]). 1: one solve, from
    /// the start `seed` gives. A solve from a clip is one start whatever this says.
    #[serde(default = "one_start")]
    pub starts: usize,
    /// The barrier strategy of the solve (of the first start of several, the second taking the
    /// other, [`starts::start_plan`]), unless `ipopt` names `mu_strategy`. A staged solve's exact
    /// stage keeps its own adaptive barrier.
    #[serde(default)]
    pub barrier: starts::Barrier,
    /// The passive elements a solve from the rest pose starts with, with the torques as
    /// variables ([`crate::model::StartSprings`]).
    #[serde(default)]
    pub springs: crate::model::StartSprings,
    /// Solve half the cycle, the other half its mirror image ([`MirrorHalf`]).
    #[serde(default)]
    pub mirror_half: MirrorHalf,
}

/// Whether a cycle is solved as half a mirror-symmetric cycle
/// ([`crate::spacetime::gait::GaitSpec::with_mirror_half`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
pub enum MirrorHalf {
    /// The whole cycle.
    #[default]
    Whole,
    /// Half the cycle; a timing that is not symmetric is refused with the reason.
    Half,
    /// Half the cycle when the timing is symmetric, else the whole (a character file's hint:
    /// the simple biped's, whose other timings stay solvable).
    WhenSymmetric,
}

fn one_start() -> usize {
    1
}

/// A connecting clip's two ends: gait clips (transformed cycles or open clips) of the request's
/// creature, and how to join them.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ConnectRequest {
    pub from: PathBuf,
    pub to: PathBuf,
    pub connection: crate::spacetime::gait::Connection,
}

impl GaitRequest {
    /// A request with the defaults of `motionlab gait`.
    pub fn new(creature: impl Into<PathBuf>, speed: f64) -> Self {
        Self {
            creature: creature.into(),
            speed,
            period: None,
            contacts: None,
            seed: 0,
            init: None,
            discover: None,
            max_iterations: 3000,
            hessian: GaitHessian::default(),
            lbfgs_iterations: None,
            ipopt: Vec::new(),
            morphology: None,
            print_level: 0,
            out: None,
            turn_rate: None,
            strafe: 0.0,
            ceiling: None,
            weights: None,
            posture_limbs: Vec::new(),
            flat_feet: false,
            sole_clearance: false,
            swing_clearance: 0.0,
            connect: None,
            solver: crate::nlp::Backend::default(),
            torques: Default::default(),
            starts: 1,
            barrier: Default::default(),
            springs: Default::default(),
            mirror_half: MirrorHalf::Whole,
        }
    }

    /// The L-BFGS stage's iterations: the request's, the creature's own, or the default.
    pub fn lbfgs_iterations(&self, skeleton: &crate::spacetime::skeleton::Skeleton) -> usize {
        self.lbfgs_iterations
            .or(skeleton.solve.lbfgs_iterations)
            .unwrap_or(crate::spacetime::gait::STAGED_LBFGS_ITERATIONS)
    }

    /// The request with the solve settings of a cycle from the rest pose: each of `chosen`'s
    /// (a caller's explicit choices: `gait`'s flags) that is set, else the character file's
    /// (`file`, its `gait: (…)` hints), else the defaults. The springs follow the torques
    /// ([`crate::model::StartSprings::for_torques`]) and so does the Hessian unless `hessian`
    /// names one ([`GaitHessian::default_for`]). The file's half cycle applies where the timing
    /// allows it ([`MirrorHalf::WhenSymmetric`]), a chosen one everywhere ([`MirrorHalf::Half`]);
    /// neither reaches a discovery or a morphology, which solve the whole cycle. This is how
    /// `motionlab gait` and `motionlab bench gait --seeds` settle a solve.
    pub fn with_solve_settings(
        mut self,
        file: crate::model::GaitHints,
        chosen: crate::model::GaitHints,
        hessian: Option<GaitHessian>,
    ) -> Self {
        let torques = chosen.torques.or(file.torques).unwrap_or_default();
        self.torques = torques;
        self.starts = chosen.starts.or(file.starts).unwrap_or(1);
        self.barrier = chosen.barrier.or(file.barrier).unwrap_or_default();
        self.springs = (chosen.springs.or(file.springs))
            .unwrap_or_default()
            .for_torques(torques);
        let whole_only = self.discover.is_some() || self.morphology.is_some();
        self.mirror_half = match (whole_only, chosen.mirror_half) {
            (_, Some(true)) => MirrorHalf::Half,
            (_, Some(false)) | (true, None) => MirrorHalf::Whole,
            (false, None) if file.mirror_half == Some(true) => MirrorHalf::WhenSymmetric,
            (false, None) => MirrorHalf::Whole,
        };
        self.hessian = hessian.unwrap_or(GaitHessian::default_for(torques));
        self
    }

    /// One line of RON (what `motionlab gait-job` takes).
    pub fn encode(&self) -> String {
        ron::to_string(self).expect("plain data serialises")
    }
}

/// What a gait job produced.
#[derive(Debug, Clone)]
pub struct GaitOutcome {
    /// The problem solved last (its timing is the discovered one after a discovery).
    pub spec: crate::spacetime::gait::GaitSpec,
    pub clip: GaitClip,
    /// The stages of the default solve (empty for a single-mode solve).
    pub stages: Vec<StageSummary>,
    /// The refinement ended no better than its valid start, which is the clip.
    pub kept_start: bool,
    /// Largest violation found by the independent audit of the clip.
    pub audit_max_violation: f64,
    /// Variables of the NLP.
    pub variables: usize,
    /// Every start of a multi-start solve, in order (empty for one solve).
    pub starts: Vec<StartSummary>,
}

#[cfg(feature = "ipopt")]
mod run;
#[cfg(feature = "ipopt")]
pub use run::run_gait;

#[cfg(test)]
mod tests {
    use super::*;

    /// A request survives its one line of RON (what a `gait-job` process is given), options,
    /// timings and discovery included.
    #[test]
    fn a_request_survives_its_line() {
        let request = GaitRequest {
            contacts: Some(vec![FootTiming {
                foot: "shin".into(),
                start: 0.25,
                duration: 0.1 + 0.2,
            }]),
            period: Some(0.7),
            discover: None,
            ipopt: vec![
                ("mu_init".into(), OptionValue::Num(1e-7)),
                ("print_frequency_iter".into(), OptionValue::Int(3)),
                ("mu_strategy".into(), OptionValue::Str("monotone".into())),
            ],
            morphology: Some(MorphologyOptions {
                muscle: false,
                min_head_height: Some(0.3),
            }),
            hessian: GaitHessian::GaussNewton,
            starts: 4,
            out: Some("results/a b.ron".into()),
            ..GaitRequest::new("characters/monoped.ron", 0.5)
        };
        let line = request.encode();
        assert!(!line.contains('\n'), "{line}");
        let back: GaitRequest = crate::files::from_ron(&line).unwrap();
        assert_eq!(back, request);
        let discovery = GaitRequest {
            discover: Some(DiscoverRequest {
                period_range: Some((0.4, 0.8)),
                samples_dir: Some("s".into()),
                ..Default::default()
            }),
            ..GaitRequest::new("c.ron", 1.0)
        };
        assert_eq!(
            crate::files::from_ron::<GaitRequest>(&discovery.encode()).unwrap(),
            discovery
        );
    }
}
