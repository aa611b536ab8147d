//! Diversity search: objective D and round-robin CMA-ES (Agrawal et al. 2014).
//!
//! * [`objective`], [`DistanceMatrix`], [`score_replacement`]: the diversity objective of
//!   §3, eq. (1), maximized:
//!   D = Σ_{i=0..N} ( −C(M_i) + Σ_{j=0..N} d(M_i, M_j) + K_eff·d_min(M_i) ),
//!   with M_0 the fixed input motion (always included, never optimized) and
//!   d_min(M_i) = min_{j≠i} d(M_i, M_j) (self excluded, else it is 0). The pair sum counts each
//!   pair twice, as typeset (harmless for rank-based CMA). CMA minimizes −D.
//! * [`DiversitySearch`] with [`Strategy::RoundRobin`]: §3, N independent CMA-ES instances, one
//!   generation of each in turn, every sample scored by the full D with the other motions at their
//!   incumbents (best so far; the paper does not say which); stale fitness is recomputed from
//!   cached outcomes whenever an incumbent changes (§3: optimizing one changes the others'
//!   objective). Samples rank feasibility first, then D ([`feasibility_rank`]: §6's penalty must
//!   "rapidly dominate"), so a variant never trades a small violation for distance. Stops at
//!   `max_generations` or on an ε-stall of D.
//! * [`Strategy::Progressive`]: the progressive-addition baseline of §3 and §9.
//! * Path recording and [`DiversitySearch::path_point`]: the magnitude slider of §7.2 (Fig. 6a);
//!   the paper does not say what is interpolated, so we take the stored incumbent nearest a
//!   requested distance fraction.
//!
//! # Where K goes ([`KPlacement`]; Eq. 1's typesetting is ambiguous)
//! As typeset, K·d_min sits inside the j-sum, which multiplies it by N+1 ([`KPlacement::InsideSum`],
//! K_eff = K·(N+1) = 50 for K = 10, N = 4). [`KPlacement::OutsideSum`] uses K_eff = K.
//! The Fig. 2 toy (§3; `search_tests.rs`) decides the default; see [`KPlacement`] for the
//! numbers.
//!
//! The module is independent of the simulator: an [`Evaluator`] (or a batch closure) maps
//! parameter vectors to [`Outcome`]s, which are computed once and cached; distances are recomputed
//! from the cached features.

use super::objective::*;
use crate::optim::scheduler::{self, Judged, Verdict};
use crate::optim::{AskTell, Bounds, Cmaes, CmaesOptions};
use serde::{Deserialize, Serialize};

/// How the N variants are optimized (Agrawal et al. 2014, §3).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum Strategy {
    /// One CMA generation of each variant in turn, the others fixed at their incumbents.
    RoundRobin,
    /// Variants added one at a time; only the newest is optimized (for `max_generations`
    /// generations or until it stalls), then frozen. Same rollout budget as round-robin.
    Progressive,
}

/// Settings of a diversity search (defaults: Agrawal et al. 2014, §3).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct SearchSettings {
    pub strategy: Strategy,
    /// N, the number of synthesized variants (M_0 excluded).
    pub variants: usize,
    /// K of eq. (1).
    pub k: f64,
    pub placement: KPlacement,
    pub kind: DistanceKind,
    /// Samples per CMA generation (M = 16).
    pub population: usize,
    /// Generations per variant (round-robin: for all variants in lock-step; progressive: for
    /// each variant in its stage).
    pub max_generations: u64,
    /// Initial CMA step size in the evaluator's coordinates.
    pub sigma0: f64,
    /// ε-stall stop: finish when D improved by at most `stall_epsilon`·|D| over the last
    /// `stall_generations` generations (0 disables it).
    pub stall_generations: u64,
    pub stall_epsilon: f64,
    pub seed: u64,
}

impl Default for SearchSettings {
    fn default() -> Self {
        SearchSettings {
            strategy: Strategy::RoundRobin,
            variants: 4,
            k: 10.0,
            placement: KPlacement::default(),
            kind: DistanceKind::Motion,
            population: 16,
            max_generations: 1000,
            sigma0: 0.1,
            stall_generations: 50,
            stall_epsilon: 1e-3,
            seed: 1,
        }
    }
}

/// Why a search finished.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum SearchStop {
    MaxGenerations,
    /// D advanced by less than ε over `stall_generations` (progressive: in the last stage).
    Stalled,
}

#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum SearchError {
    #[error("a diversity search needs at least one variant (N = 0)")]
    NoVariants,
    #[error("the parameter vector is empty")]
    EmptyParameters,
    #[error("x0 has {x0} parameters but the bounds have {bounds}")]
    DimensionMismatch { x0: usize, bounds: usize },
    #[error("x0 lies outside the bounds")]
    OutsideBounds,
    #[error("invalid setting: {0}")]
    Setting(String),
    #[error("the reference outcome M_0 is not finite (penalty {0})")]
    BadReference(f64),
}

/// A search read back from a checkpoint that does not fit the task it resumes.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum CheckpointError {
    #[error("the checkpoint's search has {search} parameters, the task {task}")]
    Parameters { search: usize, task: usize },
    #[error("expected {variants} CMA-ES states and incumbents, found {cmas} and {incumbents}")]
    Variants {
        variants: usize,
        cmas: usize,
        incumbents: usize,
    },
    #[error("a CMA-ES state of dimension {state}, the task has {task}")]
    CmaesDimension { state: usize, task: usize },
    #[error(transparent)]
    Cmaes(#[from] crate::optim::StateError),
    #[error("the stored motions do not fit the task's parameters and variants")]
    Motions,
    #[error("the distance matrix is not square")]
    Matrix,
}

/// A variant's current best parameters and their cached outcome.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct Incumbent {
    pub params: Vec<f64>,
    pub outcome: Outcome,
}

/// One stored point of an optimization path (§7.2): parameters and d(M_0, ·).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct PathPoint {
    pub params: Vec<f64>,
    pub distance: f64,
}

/// State after one generation (index 0 of the history is the initial state), for live plots.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct GenerationRecord {
    pub generation: u64,
    /// Motions in the objective (N+1 for round-robin; grows in progressive addition).
    pub active: usize,
    /// D over the active motions.
    pub objective: f64,
    /// d_min per active motion, index 0 = M_0.
    pub d_min: Vec<f64>,
    /// Penalty per active motion, index 0 = M_0.
    pub penalty: Vec<f64>,
    /// Incumbent replacements in this generation.
    pub replacements: u32,
    /// Samples whose score was not finite (failed or missing outcomes).
    pub failed: u32,
}

/// Round-robin (or progressive) diversity search; the complete state serializes (RON checkpoint,
/// bit-identical resume).
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct DiversitySearch {
    settings: SearchSettings,
    x0: Vec<f64>,
    reference: Outcome,
    cmas: Vec<Cmaes>,
    incumbents: Vec<Incumbent>,
    /// Pairwise distances over [M_0, incumbents…].
    matrix: DistanceMatrix,
    generation: u64,
    /// Progressive: index (0-based) of the variant being optimized and its first generation.
    stage: usize,
    stage_start: u64,
    evaluations: u64,
    history: Vec<GenerationRecord>,
    paths: Vec<Vec<PathPoint>>,
    stop: Option<SearchStop>,
}

/// Seed of CMA instance `index`, derived from the search seed (SplitMix64 finalizer).
fn instance_seed(seed: u64, index: usize) -> u64 {
    let mut z = seed ^ (index as u64 + 1).wrapping_mul(0x9E37_79B9_7F4A_7C15);
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

impl DiversitySearch {
    /// Checks a search read back from a checkpoint against the task it resumes: one CMA-ES
    /// state of the task's dimension per variant, every stored point of that dimension, a
    /// distance matrix over the input and the variants.
    pub fn check_state(&self, dimension: usize) -> Result<(), CheckpointError> {
        let variants = self.settings.variants;
        if self.x0.len() != dimension {
            return Err(CheckpointError::Parameters {
                search: self.x0.len(),
                task: dimension,
            });
        }
        if self.cmas.len() != variants || self.incumbents.len() != variants {
            return Err(CheckpointError::Variants {
                variants,
                cmas: self.cmas.len(),
                incumbents: self.incumbents.len(),
            });
        }
        for c in &self.cmas {
            if c.dimension() != dimension {
                return Err(CheckpointError::CmaesDimension {
                    state: c.dimension(),
                    task: dimension,
                });
            }
            c.check_state()?;
        }
        let points_fit = self.incumbents.iter().all(|i| i.params.len() == dimension)
            && self
                .paths
                .iter()
                .flatten()
                .all(|p| p.params.len() == dimension);
        if !points_fit || self.paths.len() != variants || self.matrix.len != variants + 1 {
            return Err(CheckpointError::Motions);
        }
        if self.matrix.d.len() != self.matrix.len * self.matrix.len {
            return Err(CheckpointError::Matrix);
        }
        Ok(())
    }

    /// A search from `x0`, evaluating M_0 with `evaluator`.
    pub fn new(
        evaluator: &impl Evaluator,
        x0: &[f64],
        settings: SearchSettings,
    ) -> Result<Self, SearchError> {
        if evaluator.dimension() != x0.len() {
            return Err(SearchError::DimensionMismatch {
                x0: x0.len(),
                bounds: evaluator.dimension(),
            });
        }
        let bounds = evaluator.bounds();
        Self::check(x0, &bounds, &settings)?;
        let reference = evaluator.evaluate(x0);
        Self::from_reference(x0, reference, bounds, settings)
    }

    fn check(x0: &[f64], bounds: &Bounds, settings: &SearchSettings) -> Result<(), SearchError> {
        if settings.variants == 0 {
            return Err(SearchError::NoVariants);
        }
        if x0.is_empty() {
            return Err(SearchError::EmptyParameters);
        }
        if bounds.lower.len() != x0.len() {
            return Err(SearchError::DimensionMismatch {
                x0: x0.len(),
                bounds: bounds.lower.len(),
            });
        }
        if !bounds.contains(x0) {
            return Err(SearchError::OutsideBounds);
        }
        if !(settings.sigma0 > 0.0 && settings.sigma0.is_finite()) {
            return Err(SearchError::Setting(format!(
                "sigma0 must be positive, found {}",
                settings.sigma0
            )));
        }
        if settings.population < 2 {
            return Err(SearchError::Setting(format!(
                "population must be at least 2, found {}",
                settings.population
            )));
        }
        if !settings.k.is_finite() || settings.k < 0.0 {
            return Err(SearchError::Setting(format!(
                "K must be finite and non-negative, found {}",
                settings.k
            )));
        }
        if !(settings.stall_epsilon >= 0.0) {
            return Err(SearchError::Setting(format!(
                "stall_epsilon must be non-negative, found {}",
                settings.stall_epsilon
            )));
        }
        Ok(())
    }

    /// A search from `x0` whose outcome `reference` (M_0) was computed elsewhere.
    pub fn from_reference(
        x0: &[f64],
        reference: Outcome,
        bounds: Bounds,
        settings: SearchSettings,
    ) -> Result<Self, SearchError> {
        Self::check(x0, &bounds, &settings)?;
        let self_d = distance(settings.kind, &reference, &reference);
        if !reference.penalty.is_finite() || !self_d.is_finite() {
            return Err(SearchError::BadReference(reference.penalty));
        }
        let n = settings.variants;
        let cmas = (0..n)
            .map(|i| {
                let options = CmaesOptions {
                    population: Some(settings.population),
                    seed: instance_seed(settings.seed, i),
                    bounds: Some(bounds.clone()),
                    ..Default::default()
                };
                Cmaes::new(x0, settings.sigma0, options)
            })
            .collect();
        let incumbents = vec![
            Incumbent {
                params: x0.to_vec(),
                outcome: reference.clone()
            };
            n
        ];
        let matrix = DistanceMatrix::new(settings.kind, &vec![reference.clone(); n + 1]);
        let paths = vec![
            vec![PathPoint {
                params: x0.to_vec(),
                distance: 0.0
            }];
            n
        ];
        let mut search = DiversitySearch {
            settings,
            x0: x0.to_vec(),
            reference,
            cmas,
            incumbents,
            matrix,
            generation: 0,
            stage: 0,
            stage_start: 0,
            evaluations: 0,
            history: Vec::new(),
            paths,
            stop: None,
        };
        if search.settings.max_generations == 0 {
            search.stop = Some(SearchStop::MaxGenerations);
        }
        let record = search.record(0, 0);
        search.history.push(record);
        Ok(search)
    }

    pub fn settings(&self) -> &SearchSettings {
        &self.settings
    }
    pub fn x0(&self) -> &[f64] {
        &self.x0
    }
    pub fn reference(&self) -> &Outcome {
        &self.reference
    }
    /// Generations done (round-robin: each instance has done this many; progressive: the sum
    /// over the stages).
    pub fn generations(&self) -> u64 {
        self.generation
    }
    /// Rollouts requested so far.
    pub fn evaluations(&self) -> u64 {
        self.evaluations
    }
    /// The CMA instance of variant i (0-based: instance 0 optimizes M_1).
    pub fn cma(&self, index: usize) -> Option<&Cmaes> {
        self.cmas.get(index)
    }
    /// Incumbents of M_1…M_N (0-based).
    pub fn incumbents(&self) -> &[Incumbent] {
        &self.incumbents
    }
    pub fn history(&self) -> &[GenerationRecord] {
        &self.history
    }
    /// Path of M_i, i in 1..=N; the first entry is x0 at distance 0.
    pub fn path(&self, i: usize) -> Option<&[PathPoint]> {
        i.checked_sub(1)
            .and_then(|k| self.paths.get(k))
            .map(|p| p.as_slice())
    }
    pub fn is_finished(&self) -> bool {
        self.stop.is_some()
    }
    pub fn stop_reason(&self) -> Option<SearchStop> {
        self.stop
    }
    /// Progressive: the variant (1-based) being optimized; round-robin: None.
    pub fn current_stage(&self) -> Option<usize> {
        match self.settings.strategy {
            Strategy::RoundRobin => None,
            Strategy::Progressive => Some(self.stage + 1),
        }
    }

    /// Motions in the objective now: M_0 plus the variants added so far.
    fn active(&self) -> usize {
        match self.settings.strategy {
            Strategy::RoundRobin => self.settings.variants + 1,
            Strategy::Progressive => (self.stage + 2).min(self.settings.variants + 1),
        }
    }

    fn outcome(&self, slot: usize) -> &Outcome {
        if slot == 0 {
            &self.reference
        } else {
            &self.incumbents[slot - 1].outcome
        }
    }

    fn penalties(&self, m: usize) -> Vec<f64> {
        (0..m).map(|i| self.outcome(i).penalty).collect()
    }

    fn k_eff(&self, m: usize) -> f64 {
        self.settings.placement.k_eff(self.settings.k, m)
    }

    /// D over the active motions, from the cached distances.
    pub fn current_objective(&self) -> Objective {
        let m = self.active();
        objective_from_matrix(&self.matrix, &self.penalties(m), self.k_eff(m))
    }

    /// D over all N+1 motions (M_0 and every incumbent), as reported at the end.
    pub fn final_objective(&self) -> Objective {
        let m = self.settings.variants + 1;
        objective_from_matrix(&self.matrix, &self.penalties(m), self.k_eff(m))
    }

    fn record(&self, replacements: u32, failed: u32) -> GenerationRecord {
        let m = self.active();
        let obj = self.current_objective();
        GenerationRecord {
            generation: self.generation,
            active: m,
            objective: obj.value,
            d_min: obj.d_min,
            penalty: self.penalties(m),
            replacements,
            failed,
        }
    }

    /// One CMA generation of variant `slot` (1-based) whose samples were asked and evaluated
    /// (`outcomes` in their order; missing ones are failures): score by D with the other active
    /// motions at their incumbents, tell −D, replace the incumbent if improved.
    fn optimize_slot(
        &mut self,
        slot: usize,
        m: usize,
        samples: Vec<Vec<f64>>,
        outcomes: &[Outcome],
    ) -> (u32, u32) {
        self.evaluations += samples.len() as u64;
        let kind = self.settings.kind;
        let k_eff = self.k_eff(m);
        let penalties = self.penalties(m);
        let mut rows = Vec::with_capacity(samples.len());
        let mut scores = Vec::with_capacity(samples.len());
        for s in 0..samples.len() {
            match outcomes.get(s) {
                Some(o) => {
                    let row: Vec<f64> = (0..m)
                        .map(|j| {
                            if j == slot {
                                0.0
                            } else {
                                distance(kind, o, self.outcome(j))
                            }
                        })
                        .collect();
                    scores.push(score_replacement(
                        &self.matrix,
                        &penalties,
                        slot,
                        &row,
                        o.penalty,
                        k_eff,
                    ));
                    rows.push(row);
                }
                None => {
                    scores.push(f64::NAN);
                    rows.push(Vec::new());
                }
            }
        }
        let failed = scores.iter().filter(|v| !v.is_finite()).count() as u32;
        // CMA-ES and the incumbent rank feasibility first, then D (the one rule of every
        // search: infeasible candidates after every feasible one, failures last).
        let verdicts: Vec<Verdict> = scores
            .iter()
            .zip(outcomes)
            .map(|(v, o)| verdict(*v, o.penalty))
            .collect();
        let ranks: Vec<f64> = (0..samples.len())
            .map(|s| verdicts.get(s).map_or(f64::NAN, |v| rank_of(*v)))
            .collect();
        let judged: Vec<Judged> = verdicts.iter().map(|v| (*v).into()).collect();
        scheduler::tell(&mut self.cmas[slot - 1], &samples, &judged);
        // The incumbent's D against the current others, from the cached matrix (never stale).
        let current = feasibility_rank(
            objective_from_matrix(&self.matrix, &penalties, k_eff).value,
            penalties[slot],
        );
        let mut best: Option<usize> = None;
        for (s, v) in ranks.iter().enumerate() {
            if v.is_finite() && best.map(|b| *v > ranks[b]).unwrap_or(true) {
                best = Some(s);
            }
        }
        match best {
            Some(b) if ranks[b] > current => {
                let outcome = outcomes[b].clone();
                let mut row = rows[b].clone();
                // Distances to the not-yet-active variants (progressive) sit at M_0's values.
                for j in m..=self.settings.variants {
                    row.push(distance(kind, &outcome, self.outcome(j)));
                }
                self.matrix.set_row(slot, &row);
                let d0 = row[0];
                self.incumbents[slot - 1] = Incumbent {
                    params: samples[b].clone(),
                    outcome,
                };
                self.paths[slot - 1].push(PathPoint {
                    params: samples[b].clone(),
                    distance: d0,
                });
                (1, failed)
            }
            _ => (0, failed),
        }
    }

    /// One generation: round-robin runs one CMA generation of each variant M_1…M_N in turn;
    /// progressive runs one of the newest variant. `evaluate_batch` maps the samples to their
    /// outcomes in the same order (it may compute them in parallel; missing or malformed outcomes
    /// count as failures, ranked last). Does nothing once the search is finished.
    ///
    /// Every variant's samples are asked before any is judged and rolled out as one batch: a
    /// variant's CMA-ES samples from its own state alone, and only the judging (D against the
    /// others' incumbents) must go in turn. The result is that of asking, rolling out and
    /// judging each variant in turn, and a batch N times larger spreads over N times more
    /// threads or ranks.
    pub fn generation(&mut self, evaluate_batch: impl Fn(&[Vec<f64>]) -> Vec<Outcome>) {
        if self.stop.is_some() {
            return;
        }
        let m = self.active();
        let (mut replacements, mut failed) = (0, 0);
        let slots: Vec<usize> = match self.settings.strategy {
            Strategy::RoundRobin => (1..=self.settings.variants).collect(),
            Strategy::Progressive => vec![self.stage + 1],
        };
        let asked: Vec<(usize, Vec<Vec<f64>>)> = slots
            .into_iter()
            .map(|slot| (slot, self.cmas[slot - 1].ask()))
            .collect();
        let batch: Vec<Vec<f64>> = asked.iter().flat_map(|(_, xs)| xs.clone()).collect();
        let outcomes = evaluate_batch(&batch);
        let mut at = 0;
        for (slot, samples) in asked {
            let n = samples.len();
            let mine = &outcomes[at.min(outcomes.len())..(at + n).min(outcomes.len())];
            at += n;
            let (r, f) = self.optimize_slot(slot, m, samples, mine);
            replacements += r;
            failed += f;
        }
        self.generation += 1;
        let record = self.record(replacements, failed);
        self.history.push(record);
        let stage_generations = self.generation - self.stage_start;
        let stalled = self.stalled(stage_generations);
        let done = stalled || stage_generations >= self.settings.max_generations;
        if !done {
            return;
        }
        let reason = if stalled && stage_generations < self.settings.max_generations {
            SearchStop::Stalled
        } else {
            SearchStop::MaxGenerations
        };
        match self.settings.strategy {
            Strategy::RoundRobin => self.stop = Some(reason),
            Strategy::Progressive => {
                self.stage += 1;
                self.stage_start = self.generation;
                if self.stage >= self.settings.variants {
                    self.stage = self.settings.variants - 1;
                    self.stop = Some(reason);
                }
            }
        }
    }

    /// ε-stall: D (over the same active set) advanced by at most ε·max(|D_then|, |D_now|) over
    /// the last `stall_generations` generations of the current stage.
    fn stalled(&self, stage_generations: u64) -> bool {
        let w = self.settings.stall_generations;
        if w == 0 || stage_generations <= w {
            return false;
        }
        let now = &self.history[self.history.len() - 1];
        let then = &self.history[self.history.len() - 1 - w as usize];
        if then.active != now.active {
            return false;
        }
        now.objective - then.objective
            <= self.settings.stall_epsilon * then.objective.abs().max(now.objective.abs())
    }

    /// The magnitude slider of §7.2: the stored incumbent of M_i (1-based) whose d(M_0, ·) is
    /// nearest to `fraction` × d(M_0, final incumbent). 0 gives x0 exactly, 1 the final incumbent;
    /// fractions are clamped to [0, 1] (NaN reads as 0). None for i outside 1..=N.
    pub fn path_point(&self, i: usize, fraction: f64) -> Option<&[f64]> {
        let path = self.path(i)?;
        let last = path.last()?;
        let f = if fraction.is_nan() {
            0.0
        } else {
            fraction.clamp(0.0, 1.0)
        };
        if f == 0.0 {
            return Some(&path[0].params);
        }
        if f == 1.0 {
            return Some(&last.params);
        }
        let target = f * last.distance;
        let mut best = 0;
        for (k, p) in path.iter().enumerate() {
            if (p.distance - target).abs() < (path[best].distance - target).abs() {
                best = k;
            }
        }
        Some(&path[best].params)
    }
}

/// Runs a search to its end, evaluating each batch on the rayon pool (`parallel`) or serially.
pub fn run(
    evaluator: &impl Evaluator,
    x0: &[f64],
    settings: SearchSettings,
    parallel: bool,
) -> Result<DiversitySearch, SearchError> {
    use rayon::prelude::*;
    let mut search = DiversitySearch::new(evaluator, x0, settings)?;
    while !search.is_finished() {
        search.generation(|xs: &[Vec<f64>]| {
            if parallel {
                xs.par_iter().map(|x| evaluator.evaluate(x)).collect()
            } else {
                xs.iter().map(|x| evaluator.evaluate(x)).collect()
            }
        });
    }
    Ok(search)
}

#[cfg(test)]
#[path = "search_tests.rs"]
mod tests;
