//! A Pareto search as a background job (docs/jobs-and-files.md): one generation per step,
//! its points evaluated in parallel, a checkpoint after every generation from which a killed
//! run resumes bit for bit, and a result holding the front, every sample and the hypervolume
//! after every generation (the RMOO-against-BSOO plot of Agrawal 2015, thesis §4.5, Fig. 4.8).

use super::jump::JumpTask;
use super::search::{Bsoo, BsooOptions, FrontPoint, Rmoo, RmooOptions, Sample, hypervolume};
use crate::jobs::{Job, Progress, StepOutcome};
use anyhow::Context;
use serde::{Deserialize, Serialize};
use std::path::PathBuf;

/// Which search grows the front.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum Method {
    /// Re-sampled MO-CMA-ES (Algorithm 1).
    Rmoo,
    /// Binned single-objective CMA-ES.
    Bsoo,
    /// MO-CMA-ES without resampling.
    Mocma,
}

/// A name that is none of the Pareto search methods.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("unknown method {0:?} (expected rmoo, bsoo or mocma)")]
pub struct UnknownMethod(pub String);

impl std::str::FromStr for Method {
    type Err = UnknownMethod;
    fn from_str(s: &str) -> Result<Self, UnknownMethod> {
        match s.to_ascii_lowercase().as_str() {
            "rmoo" => Ok(Method::Rmoo),
            "bsoo" => Ok(Method::Bsoo),
            "mocma" | "mo-cma" | "mocmaes" => Ok(Method::Mocma),
            _ => Err(UnknownMethod(s.to_string())),
        }
    }
}

/// What a Pareto run was asked to do; recorded in its result so it can be replayed.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ParetoConfig {
    pub scene: PathBuf,
    pub method: Method,
    pub seed: u64,
    /// RMOO and MO-CMA-ES: generations; BSOO: the most generations per bin (3000).
    pub generations: u64,
    /// BSOO: generations without improvement that end a bin (300).
    pub stall_generations: u64,
    /// Stop once this many rollouts are spent (equal-budget comparisons).
    pub max_evaluations: Option<u64>,
}

impl ParetoConfig {
    pub fn new(scene: impl Into<PathBuf>, method: Method) -> Self {
        ParetoConfig {
            scene: scene.into(),
            method,
            seed: 1,
            generations: match method {
                Method::Bsoo => 3000,
                _ => 1000,
            },
            stall_generations: 300,
            max_evaluations: None,
        }
    }

    pub fn load_jump(&self) -> anyhow::Result<JumpTask> {
        let scene = crate::scene::load_scene(&self.scene)
            .with_context(|| format!("loading scene {}", self.scene.display()))?;
        JumpTask::from_scene(&scene)
            .map_err(|e| anyhow::anyhow!("scene {}: {e}", self.scene.display()))
    }
}

/// The state of either search.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub enum Search {
    Rmoo(Box<Rmoo>),
    Bsoo(Box<Bsoo>),
}

/// Hypervolume of the front after a number of rollouts.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct HypervolumePoint {
    pub evaluations: u64,
    pub hypervolume: f64,
}

/// What a run reports, live and at the end.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ParetoResult {
    pub code_version: String,
    pub config: ParetoConfig,
    pub parameter_labels: Vec<String>,
    /// Non-dominated successful controllers, lowest jump first.
    pub front: Vec<FrontPoint>,
    pub hypervolume: f64,
    /// Hypervolume reference (head height m, log effort).
    pub reference: (f64, f64),
    pub history: Vec<HypervolumePoint>,
    pub generations: u64,
    pub evaluations: u64,
    /// RMOO: failed children per generation after resampling.
    pub failures: Vec<usize>,
    /// Every evaluated sample.
    pub samples: Vec<Sample>,
}

/// A Pareto run: the jump, its search, and what it has seen.
pub struct ParetoRun {
    config: ParetoConfig,
    jump: JumpTask,
    search: Search,
    samples: Vec<Sample>,
    history: Vec<HypervolumePoint>,
    /// Where each generation's rollouts run (this process alone, or spread over MPI ranks).
    ranks: crate::cluster::Ranks,
}

#[derive(Serialize, Deserialize)]
struct Checkpoint {
    config: ParetoConfig,
    search: Search,
    samples: Vec<Sample>,
    history: Vec<HypervolumePoint>,
}

impl ParetoRun {
    /// Starts a run: the seed controller is evaluated once (RMOO's step 1).
    pub fn new(config: ParetoConfig) -> anyhow::Result<Self> {
        let jump = config.load_jump()?;
        let x0 = jump.x0();
        let seed = jump.evaluate(&x0);
        if let Some(f) = &seed.failure {
            anyhow::bail!(
                "the seed controller of {} fails ({f}); a Pareto run grows from a jump that lands",
                config.scene.display()
            );
        }
        let bounds = jump.bounds();
        let search = match config.method {
            Method::Rmoo | Method::Mocma => Search::Rmoo(Box::new(Rmoo::new(
                &jump.def,
                &x0,
                seed.clone(),
                bounds,
                RmooOptions {
                    seed: config.seed,
                    max_failures: (config.method == Method::Rmoo).then_some(3),
                    ..Default::default()
                },
            ))),
            Method::Bsoo => Search::Bsoo(Box::new(Bsoo::new(
                &jump.def,
                &x0,
                bounds,
                BsooOptions {
                    seed: config.seed,
                    max_generations: config.generations,
                    stall_generations: config.stall_generations,
                    ..Default::default()
                },
            ))),
        };
        let mut run = ParetoRun {
            config,
            jump,
            search,
            samples: Vec::new(),
            history: Vec::new(),
            ranks: Default::default(),
        };
        run.samples.push(Sample {
            height: seed.height,
            log_effort: seed.log_effort,
            failed: false,
        });
        run.record_hypervolume();
        Ok(run)
    }

    /// Resumes from a checkpoint's text.
    pub fn from_checkpoint(text: &str) -> anyhow::Result<Self> {
        let cp: Checkpoint = crate::files::from_ron(text).map_err(|e| anyhow::anyhow!("{e}"))?;
        let jump = cp.config.load_jump()?;
        Ok(ParetoRun {
            config: cp.config,
            jump,
            search: cp.search,
            samples: cp.samples,
            history: cp.history,
            ranks: Default::default(),
        })
    }

    /// The run with its rollouts spread over `ranks` (every rank runs the same run; the result
    /// does not depend on how many there are).
    pub fn on_ranks(mut self, ranks: crate::cluster::Ranks) -> Self {
        self.ranks = ranks;
        self
    }

    pub fn config(&self) -> &ParetoConfig {
        &self.config
    }

    pub fn jump(&self) -> &JumpTask {
        &self.jump
    }

    /// The search's own state (its bins or units).
    pub fn search_state(&self) -> &Search {
        &self.search
    }

    pub fn evaluations(&self) -> u64 {
        match &self.search {
            Search::Rmoo(r) => r.evaluations(),
            Search::Bsoo(b) => b.evaluations(),
        }
    }

    pub fn generations(&self) -> u64 {
        match &self.search {
            Search::Rmoo(r) => r.generations(),
            Search::Bsoo(b) => b.generations(),
        }
    }

    pub fn is_finished(&self) -> bool {
        if self
            .config
            .max_evaluations
            .is_some_and(|m| self.evaluations() >= m)
        {
            return true;
        }
        match &self.search {
            Search::Rmoo(r) => r.generations() >= self.config.generations || r.max_sigma() < 1e-9,
            Search::Bsoo(b) => b.is_finished(),
        }
    }

    pub fn front(&self) -> Vec<FrontPoint> {
        match &self.search {
            Search::Rmoo(r) => r.front(),
            Search::Bsoo(b) => b.front(),
        }
    }

    /// One generation on `pool`.
    pub fn generation(&mut self, pool: &rayon::ThreadPool) {
        let jump = &self.jump;
        let mut evaluate = crate::cluster::Spread {
            ranks: self.ranks,
            inner: crate::optim::scheduler::OnThreads {
                pool: Some(pool),
                f: |x: &[f64]| jump.evaluate(x),
            },
        };
        match &mut self.search {
            Search::Rmoo(r) => r.generation(&mut evaluate, &mut self.samples),
            Search::Bsoo(b) => b.generation(&jump.def, &mut evaluate, &mut self.samples),
        }
        self.record_hypervolume();
    }

    fn record_hypervolume(&mut self) {
        let hv = hypervolume(&self.jump.def, &self.front());
        self.history.push(HypervolumePoint {
            evaluations: self.evaluations(),
            hypervolume: hv,
        });
    }

    pub fn result(&self) -> ParetoResult {
        let front = self.front();
        ParetoResult {
            code_version: crate::code_version(),
            config: self.config.clone(),
            parameter_labels: (0..self.jump.dimension())
                .map(|k| self.jump.param_label(k))
                .collect(),
            hypervolume: hypervolume(&self.jump.def, &front),
            front,
            reference: self.jump.def.reference,
            history: self.history.clone(),
            generations: self.generations(),
            evaluations: self.evaluations(),
            failures: match &self.search {
                Search::Rmoo(r) => r.failures.clone(),
                Search::Bsoo(_) => Vec::new(),
            },
            samples: self.samples.clone(),
        }
    }
}

impl Job for ParetoRun {
    fn kind(&self) -> &'static str {
        "pareto"
    }

    fn title(&self) -> String {
        format!(
            "{}: {:?}, seed {}",
            self.jump.task.name, self.config.method, self.config.seed
        )
    }

    fn step(&mut self, pool: &rayon::ThreadPool) -> anyhow::Result<StepOutcome> {
        if !self.is_finished() {
            self.generation(pool);
        }
        Ok(if self.is_finished() {
            StepOutcome::Done
        } else {
            StepOutcome::Running
        })
    }

    fn progress(&self) -> Progress {
        let fraction = match (self.config.max_evaluations, &self.search) {
            (Some(m), _) => self.evaluations() as f32 / m.max(1) as f32,
            (None, Search::Rmoo(r)) => {
                r.generations() as f32 / self.config.generations.max(1) as f32
            }
            (None, Search::Bsoo(b)) => b.bin() as f32 / self.jump.def.bins as f32,
        };
        let result = self.result();
        Progress {
            fraction: fraction.min(1.0),
            message: format!(
                "generation {}, {} rollouts, {} front points, hypervolume {:.4}",
                result.generations,
                result.evaluations,
                result.front.len(),
                result.hypervolume
            ),
            detail: Some(crate::jobs::Detail::new(result)),
        }
    }

    fn checkpoint(&self) -> anyhow::Result<String> {
        #[derive(Serialize)]
        struct CheckpointRef<'a> {
            config: &'a ParetoConfig,
            search: &'a Search,
            samples: &'a [Sample],
            history: &'a [HypervolumePoint],
        }
        Ok(ron::ser::to_string(&CheckpointRef {
            config: &self.config,
            search: &self.search,
            samples: &self.samples,
            history: &self.history,
        })?)
    }

    fn result(&self) -> anyhow::Result<String> {
        Ok(ron::ser::to_string_pretty(
            &ParetoRun::result(self),
            ron::ser::PrettyConfig::default(),
        )?)
    }
}

/// Loads a result written by a Pareto run.
pub fn load_result(path: &std::path::Path) -> anyhow::Result<ParetoResult> {
    crate::jobs::read_ron(path)
}

/// Front point `index` of a result re-simulated as a clip (source `pareto`, its log effort as
/// cost, the run's seed), on the scene's character. Fails when the point no longer replays to
/// its recorded trajectory (the scene or the code changed).
pub fn front_clip(result: &ParetoResult, index: usize) -> anyhow::Result<crate::clip::Clip> {
    let point = result
        .front
        .get(index)
        .ok_or_else(|| anyhow::anyhow!("the front has no point {index}"))?;
    let jump = result.config.load_jump()?;
    let (outcome, run, _) = jump.run_recorded(&point.x);
    if outcome.hash != point.outcome.hash {
        anyhow::bail!(
            "point {index} replays to another trajectory (hash {:032x}, stored {:032x}): was the scene edited?",
            outcome.hash,
            point.outcome.hash
        );
    }
    let scene = crate::scene::load_scene(&result.config.scene)?;
    let text = crate::model::read_text(&scene.character_path)?;
    let reference = crate::clip::CharacterRef::new(&scene.character_path, &text);
    let mut clip = crate::clip::from_recording(
        &run.character,
        reference,
        jump.task.settings.dt,
        &run.frames,
        "pareto",
    );
    clip.tags.seed = Some(result.config.seed);
    clip.tags.cost = Some(outcome.log_effort);
    Ok(clip)
}
