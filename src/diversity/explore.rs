//! Exploring a task: the diversity search of [`super::search`] on simulated motions, as a
//! resumable job with live progress (Agrawal et al. 2014, §3–8; Fig. 5 for what the user sees).
//!
//! The evaluator simulates a task's phase controller for a parameter vector and turns it into an
//! [`Outcome`]: the constraint penalty, the phase-normalized motion features of the chosen metric
//! and the link lengths. Motion mode optimizes control parameters; shape mode also frees the
//! task's link-length ratios (§5). The metric `shape` makes the objective the shape distance.

use super::{
    DistanceKind, DiversitySearch, Evaluator, GenerationRecord, KPlacement, Outcome, PathPoint,
    SearchSettings, Strategy, objective,
};
use crate::jobs::{Job, Progress, StepOutcome};
use crate::optim::Bounds;
use crate::task::{Metric, Task, evaluate};
use rayon::prelude::*;
use serde::{Deserialize, Serialize};
use std::path::{Path, PathBuf};

/// The distance an exploration maximizes.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum ExploreMetric {
    Motion(Metric),
    Shape,
}

/// A name that is none of the exploration metrics.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("unknown metric {0:?} (expected hf, md, wja or shape)")]
pub struct UnknownExploreMetric(pub String);

impl std::str::FromStr for ExploreMetric {
    type Err = UnknownExploreMetric;
    fn from_str(s: &str) -> Result<Self, UnknownExploreMetric> {
        if s.eq_ignore_ascii_case("shape") {
            Ok(ExploreMetric::Shape)
        } else {
            s.parse::<Metric>()
                .map(ExploreMetric::Motion)
                .map_err(|_| UnknownExploreMetric(s.to_string()))
        }
    }
}

/// Everything that defines an exploration (stored in checkpoints and results).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ExploreConfig {
    /// Scene file with a task, as given by the user.
    pub scene: PathBuf,
    pub variants: usize,
    pub generations: u64,
    pub k: f64,
    pub placement: KPlacement,
    /// None: the task's own metric.
    pub metric: Option<ExploreMetric>,
    /// Link lengths free as well (Agrawal et al. 2014, §5, §8).
    pub shape_mode: bool,
    pub seed: u64,
    /// Supernatural strength on gains and torque limits (§7.2: ×1.5–3); 1 = normal.
    pub strength: f32,
    pub strategy: Strategy,
    /// ε-stall window in generations (0 = run every generation).
    pub stall_generations: u64,
    /// Initial CMA-ES step size (normalized units); None: the task's `sigma`.
    #[serde(default)]
    pub sigma: Option<f64>,
}

impl Default for ExploreConfig {
    fn default() -> Self {
        ExploreConfig {
            scene: PathBuf::new(),
            variants: 4,
            generations: 500,
            k: 10.0,
            placement: KPlacement::default(),
            metric: None,
            shape_mode: false,
            seed: 1,
            strength: 1.0,
            strategy: Strategy::RoundRobin,
            stall_generations: 100,
            sigma: None,
        }
    }
}

impl ExploreConfig {
    /// Loads the task this configuration explores.
    pub fn load_task(&self) -> anyhow::Result<Task> {
        let scene = crate::scene::load_scene(&self.scene)?;
        let mut task = scene
            .task(self.shape_mode)
            .map_err(|e| anyhow::anyhow!("{}: task: {e}", self.scene.display()))?;
        task.strength = self.strength;
        Ok(task)
    }

    fn motion_metric(&self, task: &Task) -> Metric {
        match self.metric {
            Some(ExploreMetric::Motion(m)) => m,
            _ => task.def.metric,
        }
    }

    fn distance_kind(&self) -> DistanceKind {
        if self.metric == Some(ExploreMetric::Shape) {
            DistanceKind::Shape
        } else {
            DistanceKind::Motion
        }
    }
}

/// A task as an [`Evaluator`] for the diversity search.
pub struct TaskEvaluator<'a> {
    pub task: &'a Task,
    pub metric: Metric,
}

impl Evaluator for TaskEvaluator<'_> {
    fn dimension(&self) -> usize {
        self.task.dimension()
    }
    fn bounds(&self) -> Bounds {
        self.task.bounds()
    }
    fn evaluate(&self, params: &[f64]) -> Outcome {
        let e = evaluate(self.task, params, self.metric);
        Outcome {
            penalty: e.penalty,
            features: e.features,
            shape: e.shape,
            hash: e.hash,
        }
    }
}

/// One motion of a finished exploration.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct VariantResult {
    /// 0 is the input motion M0.
    pub index: usize,
    pub params: Vec<f64>,
    pub penalty: f64,
    /// d_min(M_i) under the objective's distance.
    pub min_distance: f64,
    /// Distance to every motion (index 0 = M0), objective's distance.
    pub distances: Vec<f64>,
    /// Motion distance (task metric) and shape distance to M0, whichever was optimized.
    pub motion_distance_to_input: f64,
    pub shape_distance_to_input: f64,
    /// Trajectory hash (hex): `motionlab replay` reproduces it.
    pub hash: String,
    /// Optimization path from M0 (parameters and distance to M0), for the magnitude slider.
    pub path: Vec<PathPoint>,
}

#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct ExploreResult {
    pub code_version: String,
    pub config: ExploreConfig,
    pub task: String,
    pub parameter_labels: Vec<String>,
    pub generations: u64,
    pub evaluations: u64,
    pub stop: String,
    /// D of the final set (eq. 1).
    pub diversity: f64,
    /// D of N copies of the input motion (the baseline any result must beat).
    pub diversity_of_copies: f64,
    /// M0 first, then the N variants.
    pub motions: Vec<VariantResult>,
    pub history: Vec<GenerationRecord>,
}

/// The exploration as a job: one round-robin generation per step.
pub struct DiversityJob {
    config: ExploreConfig,
    task: Task,
    search: DiversitySearch,
    /// Where each generation's rollouts run (this process alone, or spread over MPI ranks).
    ranks: crate::cluster::Ranks,
}

#[derive(Serialize, Deserialize)]
struct Checkpoint {
    config: ExploreConfig,
    search: DiversitySearch,
}

impl DiversityJob {
    pub fn new(config: ExploreConfig) -> anyhow::Result<Self> {
        let task = config.load_task()?;
        let metric = config.motion_metric(&task);
        let settings = SearchSettings {
            strategy: config.strategy,
            variants: config.variants,
            k: config.k,
            placement: config.placement,
            kind: config.distance_kind(),
            population: 16,
            max_generations: config.generations,
            sigma0: config.sigma.unwrap_or(task.def.sigma),
            stall_generations: config.stall_generations,
            stall_epsilon: 1e-3,
            seed: config.seed,
        };
        let x0 = task.x0();
        let search = DiversitySearch::new(
            &TaskEvaluator {
                task: &task,
                metric,
            },
            &x0,
            settings,
        )?;
        if search.reference().penalty > 0.0 {
            log_warning(&format!(
                "the seed of {} violates its constraints (C = {:.3}); run `motionlab prepare` first",
                task.name,
                search.reference().penalty
            ));
        }
        Ok(DiversityJob {
            config,
            task,
            search,
            ranks: Default::default(),
        })
    }

    pub fn from_checkpoint(text: &str) -> anyhow::Result<Self> {
        let cp: Checkpoint = crate::files::from_ron(text)?;
        let task = cp.config.load_task()?;
        cp.search
            .check_state(task.dimension())
            .map_err(|e| anyhow::anyhow!("checkpoint of {}: {e}", task.name))?;
        Ok(DiversityJob {
            config: cp.config,
            task,
            search: cp.search,
            ranks: Default::default(),
        })
    }

    pub fn search(&self) -> &DiversitySearch {
        &self.search
    }

    pub fn task(&self) -> &Task {
        &self.task
    }

    pub fn config(&self) -> &ExploreConfig {
        &self.config
    }

    /// The job with its rollouts spread over `ranks` (every rank runs the same job; the result
    /// does not depend on how many there are).
    pub fn on_ranks(mut self, ranks: crate::cluster::Ranks) -> Self {
        self.ranks = ranks;
        self
    }

    /// Runs one generation: this rank's share of the rollouts on `pool`.
    pub fn generation(&mut self, pool: &rayon::ThreadPool) {
        let metric = self.config.motion_metric(&self.task);
        let task = &self.task;
        let ranks = self.ranks;
        self.search.generation(|xs| {
            ranks.spread(xs.len(), |block| {
                pool.install(|| {
                    xs[block]
                        .par_iter()
                        .map(|x| TaskEvaluator { task, metric }.evaluate(x))
                        .collect()
                })
            })
        });
    }

    /// The result of the search so far (complete once finished).
    pub fn build_result(&self) -> ExploreResult {
        let kind = self.config.distance_kind();
        let mut outcomes = vec![self.search.reference().clone()];
        let mut params = vec![self.search.x0().to_vec()];
        for inc in self.search.incumbents() {
            outcomes.push(inc.outcome.clone());
            params.push(inc.params.clone());
        }
        let obj = objective(&outcomes, kind, self.config.k, self.config.placement);
        let copies = vec![self.search.reference().clone(); outcomes.len()];
        let copies_obj = objective(&copies, kind, self.config.k, self.config.placement);
        let motions = outcomes
            .iter()
            .enumerate()
            .map(|(i, o)| VariantResult {
                index: i,
                params: params[i].clone(),
                penalty: o.penalty,
                min_distance: obj.d_min[i],
                distances: outcomes
                    .iter()
                    .map(|p| super::objective::distance(kind, o, p))
                    .collect(),
                motion_distance_to_input: super::objective::distance(
                    DistanceKind::Motion,
                    o,
                    &outcomes[0],
                ),
                shape_distance_to_input: super::objective::distance(
                    DistanceKind::Shape,
                    o,
                    &outcomes[0],
                ),
                hash: format!("{:032x}", o.hash),
                path: if i == 0 {
                    Vec::new()
                } else {
                    self.search.path(i).map(|p| p.to_vec()).unwrap_or_default()
                },
            })
            .collect();
        ExploreResult {
            code_version: crate::code_version(),
            config: self.config.clone(),
            task: self.task.name.clone(),
            parameter_labels: (0..self.task.dimension())
                .map(|k| self.task.param_label(k))
                .collect(),
            generations: self.search.generations(),
            evaluations: self.search.evaluations(),
            stop: format!("{:?}", self.search.stop_reason()),
            diversity: obj.value,
            diversity_of_copies: copies_obj.value,
            motions,
            history: self.search.history().to_vec(),
        }
    }
}

fn log_warning(msg: &str) {
    eprintln!("warning: {msg}");
}

impl Job for DiversityJob {
    fn kind(&self) -> &'static str {
        "diversity"
    }

    fn title(&self) -> String {
        format!(
            "{}: N = {}, K = {}, {} generations, seed {}{}",
            self.task.name,
            self.config.variants,
            self.config.k,
            self.config.generations,
            self.config.seed,
            if self.config.shape_mode {
                ", shape mode"
            } else {
                ""
            }
        )
    }

    fn step(&mut self, pool: &rayon::ThreadPool) -> anyhow::Result<StepOutcome> {
        if !self.search.is_finished() {
            self.generation(pool);
        }
        Ok(if self.search.is_finished() {
            StepOutcome::Done
        } else {
            StepOutcome::Running
        })
    }

    fn progress(&self) -> Progress {
        let g = self.search.generations();
        Progress {
            fraction: (g as f32 / self.config.generations.max(1) as f32).min(1.0),
            message: format!(
                "generation {g}/{}, D = {:.2}",
                self.config.generations,
                self.search
                    .history()
                    .last()
                    .map(|h| h.objective)
                    .unwrap_or(0.0)
            ),
            // The incumbents so far, for live display (the Diversity panel's gallery).
            detail: Some(crate::jobs::Detail::new(self.build_result())),
        }
    }

    fn checkpoint(&self) -> anyhow::Result<String> {
        #[derive(Serialize)]
        struct CheckpointRef<'a> {
            config: &'a ExploreConfig,
            search: &'a DiversitySearch,
        }
        Ok(ron::ser::to_string(&CheckpointRef {
            config: &self.config,
            search: &self.search,
        })?)
    }

    fn result(&self) -> anyhow::Result<String> {
        Ok(ron::ser::to_string_pretty(
            &self.build_result(),
            ron::ser::PrettyConfig::default(),
        )?)
    }
}

/// Loads a result file written by an exploration.
pub fn load_result(path: &Path) -> anyhow::Result<ExploreResult> {
    crate::jobs::read_ron(path)
}

/// Re-simulates motion `index` of a result (0 = M0) and returns its evaluation.
pub fn replay(result: &ExploreResult, index: usize) -> anyhow::Result<crate::task::Evaluation> {
    let m = result
        .motions
        .get(index)
        .ok_or_else(|| match result.motions.len() {
            0 => anyhow::anyhow!("the result holds no motions"),
            n => anyhow::anyhow!(
                "the result has motions 0..={} (0 is the input), not {index}",
                n - 1
            ),
        })?;
    let task = result.config.load_task()?;
    let metric = result.config.motion_metric(&task);
    if m.params.len() != task.dimension() {
        anyhow::bail!(
            "motion {index} has {} parameters but task {} now has {} (was the scene edited?)",
            m.params.len(),
            task.name,
            task.dimension()
        );
    }
    Ok(evaluate(&task, &m.params, metric))
}

/// A replayed motion as a clip, and where its body was written when it is not the scene's
/// character file's (a shape variant).
pub struct RecordedMotion {
    pub clip: crate::clip::Clip,
    pub character_written: Option<std::path::PathBuf>,
}

/// Motion `index` of a result, replayed with its frames recorded, as a clip (tags: source
/// `diversity`, the seed). A variant whose body differs from the scene's character (shape mode)
/// has its character written beside `out` as `<out>.character.ron`, which the clip names.
pub fn replay_clip(
    result: &ExploreResult,
    index: usize,
    out: &std::path::Path,
) -> anyhow::Result<RecordedMotion> {
    let written = out.with_extension("character.ron");
    let (clip, _, own_body) = recorded_clip(result, index, Some(&written))?;
    Ok(RecordedMotion {
        clip,
        character_written: own_body.then_some(written),
    })
}

/// Motion `index` of a result, replayed with its frames recorded: the clip (tags: source
/// `diversity`, the seed, the penalty as cost), the character it plays on, and whether that is a
/// body of its own (a shape variant) rather than the scene's character. A body of its own is
/// written to `character_file` when one is given (the clip then names that file); otherwise the
/// clip names it by its content hash only (`<scene character> (variant's body)`).
pub fn recorded_clip(
    result: &ExploreResult,
    index: usize,
    character_file: Option<&std::path::Path>,
) -> anyhow::Result<(crate::clip::Clip, crate::model::Character, bool)> {
    let m = result
        .motions
        .get(index)
        .ok_or_else(|| anyhow::anyhow!("the result has no motion {index}"))?;
    let task = result.config.load_task()?;
    let metric = result.config.motion_metric(&task);
    let run = crate::task::evaluate_recorded(&task, &m.params, metric);
    let scene = crate::scene::load_scene(&result.config.scene)?;
    let own_body = run.character != scene.character;
    let reference = if !own_body {
        let text = crate::model::read_text(&scene.character_path)?;
        crate::clip::CharacterRef::new(&scene.character_path, &text)
    } else if let Some(path) = character_file {
        crate::model::save_character(&run.character, path)?;
        crate::clip::CharacterRef::new(path, &crate::model::read_text(path)?)
    } else {
        let text = ron::ser::to_string_pretty(&run.character, Default::default())?;
        let name = format!("{} (variant's body)", scene.character_path.display());
        crate::clip::CharacterRef::new(std::path::Path::new(&name), &text)
    };
    let mut clip = crate::clip::from_recording(
        &run.character,
        reference,
        task.settings.dt,
        &run.frames,
        "diversity",
    );
    clip.tags.seed = Some(result.config.seed);
    clip.tags.cost = Some(run.evaluation.penalty);
    Ok((clip, run.character, own_body))
}

/// Parameters at `fraction` of the way along variant `index`'s path (the magnitude slider of §7.2).
pub fn path_point(result: &ExploreResult, index: usize, fraction: f64) -> Option<Vec<f64>> {
    let m = result.motions.get(index)?;
    if index == 0 || m.path.is_empty() {
        return Some(m.params.clone());
    }
    let target = fraction.clamp(0.0, 1.0) * m.path.last()?.distance;
    m.path
        .iter()
        .min_by(|a, b| {
            (a.distance - target)
                .abs()
                .total_cmp(&(b.distance - target).abs())
        })
        .map(|p| p.params.clone())
}
