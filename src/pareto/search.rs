//! The two searches for a front of jump controllers (Agrawal 2015, thesis §4.4.1 and §4.4.3),
//! stepped one generation at a time by [`super::run::ParetoRun`], which evaluates their points in
//! parallel.
//!
//! - [`Rmoo`], Algorithm 1: µ = 16 (1+1)-CMA-ES units of [`MoCmaes`] all started from the input
//!   controller (evaluated once). Each generation mutates one child per parent; while more than
//!   `max_failures` (3) children failed, the failed children's parents are mutated again and the
//!   copies evaluated in parallel (a round cap stops a hopeless generation); then the µ parents
//!   and µ children are sorted by non-dominated rank and hypervolume contribution (Eq. 4.16) and
//!   the success rule updates every unit. Without resampling (`max_failures: None`) it is the
//!   plain MO-CMA-ES of Igel, Hansen & Roth (2007), the thesis's ablation of Fig. 4.6.
//! - [`Bsoo`]: 16 head-height bins from the lowest, each a CMA-ES run (λ = 16, σ₀ = 0.015) on
//!   f_so of its target, warm-started from the previous bin's optimum, ending after
//!   `stall_generations` (300) generations without an improvement of at least ε or after
//!   `max_generations` (3000).

use super::jump::{JumpDef, JumpOutcome};
use crate::optim::pareto::{MoCmaes, MoCmaesOptions, Objectives, Offspring, non_dominated};
use crate::optim::scheduler::{self, Verdict};
use crate::optim::{Bounds, Cmaes, CmaesOptions, Params};
use serde::{Deserialize, Serialize};

/// A controller of the front and what its rollout gave.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct FrontPoint {
    pub x: Params,
    pub outcome: JumpOutcome,
}

/// One evaluated sample, for the all-samples scatter of the front viewer.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct Sample {
    pub height: f64,
    pub log_effort: f64,
    pub failed: bool,
}

/// Evaluates a batch of points (in parallel, in order): the scheduler's seam.
pub type Evaluate<'a> = dyn scheduler::Evaluate<JumpOutcome> + 'a;

/// RMOO's settings.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct RmooOptions {
    pub mu: usize,
    pub sigma0: f64,
    pub seed: u64,
    /// Resample while more children than this failed (3: the thesis's 13/16 success rate);
    /// `None`: no resampling (plain MO-CMA-ES).
    pub max_failures: Option<usize>,
    /// Resampling rounds per generation at most.
    pub max_rounds: usize,
}

impl Default for RmooOptions {
    fn default() -> Self {
        RmooOptions {
            mu: 16,
            sigma0: 0.015,
            seed: 1,
            max_failures: Some(3),
            max_rounds: 20,
        }
    }
}

/// RMOO (or MO-CMA-ES without resampling) over a jump.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct Rmoo {
    pub options: RmooOptions,
    es: MoCmaes,
    /// Outcomes of the current parents, in the parents' order.
    outcomes: Vec<JumpOutcome>,
    evaluations: u64,
    /// Failed children left in each generation after resampling (the thesis's criterion).
    pub failures: Vec<usize>,
}

impl Rmoo {
    /// Algorithm 1, step 1: every parent is the input controller `x0` with its one evaluation.
    pub fn new(
        def: &JumpDef,
        x0: &[f64],
        seed_outcome: JumpOutcome,
        bounds: Bounds,
        options: RmooOptions,
    ) -> Self {
        let es = MoCmaes::new(
            x0,
            seed_outcome.objectives(),
            MoCmaesOptions {
                mu: options.mu,
                seed: options.seed,
                sigma0: options.sigma0,
                bounds: Some(bounds),
                reference: Some(reference(def)),
                ..Default::default()
            },
        );
        Rmoo {
            outcomes: vec![seed_outcome; options.mu],
            options,
            es,
            evaluations: 1,
            failures: Vec::new(),
        }
    }

    pub fn generation(&mut self, evaluate: &mut Evaluate, samples: &mut Vec<Sample>) {
        // Child k is parent k's offspring.
        let asked = self.es.ask();
        let outcomes = evaluate.evaluate(&asked);
        self.evaluations += asked.len() as u64;
        let mut children: Vec<(usize, Params, JumpOutcome)> = asked
            .into_iter()
            .zip(outcomes)
            .enumerate()
            .map(|(p, (x, o))| (p, x, o))
            .collect();
        record(children.iter().map(|c| &c.2), samples);
        if let Some(max) = self.options.max_failures {
            for _ in 0..self.options.max_rounds {
                let failed: Vec<usize> = (0..children.len())
                    .filter(|&i| children[i].2.failure.is_some())
                    .collect();
                if failed.len() <= max {
                    break;
                }
                let of: Vec<usize> = failed.iter().map(|&i| children[i].0).collect();
                let xs = self.es.resample(&of);
                let new = evaluate.evaluate(&xs);
                self.evaluations += xs.len() as u64;
                record(new.iter(), samples);
                for ((&i, x), o) in failed.iter().zip(xs).zip(new) {
                    children[i].1 = x;
                    children[i].2 = o;
                }
            }
        }
        self.failures
            .push(children.iter().filter(|c| c.2.failure.is_some()).count());
        // Outcomes of the next parents: matched by their points.
        let mut pool: Vec<(Params, JumpOutcome)> = self
            .es
            .parents()
            .iter()
            .map(|p| p.x.clone())
            .zip(self.outcomes.drain(..))
            .collect();
        pool.extend(children.iter().map(|c| (c.1.clone(), c.2.clone())));
        self.es.tell_offspring(
            children
                .into_iter()
                .map(|(parent, x, o)| Offspring {
                    parent,
                    x,
                    objectives: o.objectives(),
                })
                .collect(),
        );
        self.outcomes = self
            .es
            .parents()
            .iter()
            .map(|p| {
                pool.iter()
                    .find(|(x, _)| same_point(x, &p.x))
                    .map(|(_, o)| o.clone())
                    .expect("every parent was a parent or a child")
            })
            .collect();
    }

    /// The non-dominated successful parents, lowest first.
    pub fn front(&self) -> Vec<FrontPoint> {
        let points: Vec<FrontPoint> = self
            .es
            .parents()
            .iter()
            .zip(&self.outcomes)
            .map(|(p, o)| FrontPoint {
                x: p.x.clone(),
                outcome: o.clone(),
            })
            .collect();
        front_of(points)
    }

    pub fn evaluations(&self) -> u64 {
        self.evaluations
    }

    pub fn generations(&self) -> u64 {
        self.es.generation()
    }

    /// Largest step size of the units (the run has converged when every σ is tiny).
    pub fn max_sigma(&self) -> f64 {
        self.es
            .parents()
            .iter()
            .map(|p| p.sigma)
            .fold(0.0, f64::max)
    }
}

/// BSOO's settings (Agrawal 2015, thesis §4.4.1).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct BsooOptions {
    pub population: usize,
    pub sigma0: f64,
    pub seed: u64,
    pub stall_generations: u64,
    pub max_generations: u64,
    /// Improvement that resets the stall count.
    pub epsilon: f64,
}

impl Default for BsooOptions {
    fn default() -> Self {
        BsooOptions {
            population: 16,
            sigma0: 0.015,
            seed: 1,
            stall_generations: 300,
            max_generations: 3000,
            epsilon: 1e-6,
        }
    }
}

/// The best controller of one height bin.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct BinBest {
    pub target: f64,
    pub value: f64,
    pub point: FrontPoint,
}

/// BSOO over a jump.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct Bsoo {
    pub options: BsooOptions,
    bounds: Bounds,
    /// Index of the bin being optimized (== number of bins when finished).
    bin: usize,
    es: Cmaes,
    /// Generations in this bin, and the last one that improved its best by ε.
    in_bin: u64,
    improved_at: u64,
    pub bests: Vec<Option<BinBest>>,
    evaluations: u64,
    generations: u64,
}

impl Bsoo {
    pub fn new(def: &JumpDef, x0: &[f64], bounds: Bounds, options: BsooOptions) -> Self {
        let es = Self::cmaes(x0, &bounds, &options, 0);
        Bsoo {
            bin: 0,
            es,
            bounds,
            in_bin: 0,
            improved_at: 0,
            bests: vec![None; def.bins],
            evaluations: 0,
            generations: 0,
            options,
        }
    }

    fn cmaes(x0: &[f64], bounds: &Bounds, o: &BsooOptions, bin: usize) -> Cmaes {
        Cmaes::new(
            x0,
            o.sigma0,
            CmaesOptions {
                population: Some(o.population),
                seed: o.seed.wrapping_mul(1000).wrapping_add(bin as u64),
                bounds: Some(bounds.clone()),
                tol_fun: 0.0,
                tol_x: 0.0,
                ..Default::default()
            },
        )
    }

    /// Target head height h_o of bin `k` and the bracket h_r (half the bin spacing).
    pub fn target(def: &JumpDef, k: usize) -> (f64, f64) {
        let (lo, hi) = def.heights;
        let step = if def.bins > 1 {
            (hi - lo) / (def.bins - 1) as f64
        } else {
            hi - lo
        };
        (lo + step * k as f64, step / 2.0)
    }

    pub fn is_finished(&self) -> bool {
        self.bin >= self.bests.len()
    }

    /// The bin being optimized.
    pub fn bin(&self) -> usize {
        self.bin
    }

    pub fn generation(
        &mut self,
        def: &JumpDef,
        evaluate: &mut Evaluate,
        samples: &mut Vec<Sample>,
    ) {
        if self.is_finished() {
            return;
        }
        let (target, bracket) = Self::target(def, self.bin);
        // f_so holds the thesis's failure penalty f_p itself, so every outcome is "feasible".
        let g = scheduler::generation(&mut self.es, evaluate, &mut |_, o: &JumpOutcome| {
            Verdict::of(o.single_objective(def, target, bracket), true).into()
        });
        let xs = g.points;
        let outcomes: Vec<JumpOutcome> = g.outcomes.into_iter().flatten().collect();
        assert_eq!(outcomes.len(), xs.len(), "a jump batch is evaluated whole");
        self.evaluations += xs.len() as u64;
        self.generations += 1;
        self.in_bin += 1;
        record(outcomes.iter(), samples);
        let values: Vec<f64> = g.verdicts.iter().map(|v| v.fitness()).collect();
        let (k, v) = values
            .iter()
            .enumerate()
            .min_by(|a, b| a.1.total_cmp(b.1))
            .map(|(k, v)| (k, *v))
            .expect("a generation has points");
        let best = &mut self.bests[self.bin];
        let previous = best.as_ref().map(|b| b.value).unwrap_or(f64::INFINITY);
        if v < previous {
            if previous - v >= self.options.epsilon {
                self.improved_at = self.in_bin;
            }
            *best = Some(BinBest {
                target,
                value: v,
                point: FrontPoint {
                    x: xs[k].clone(),
                    outcome: outcomes[k].clone(),
                },
            });
        }
        let stalled = self.in_bin - self.improved_at >= self.options.stall_generations;
        if stalled || self.in_bin >= self.options.max_generations {
            let x = self.bests[self.bin]
                .as_ref()
                .map(|b| b.point.x.clone())
                .unwrap_or_else(|| self.es.mean());
            self.bin += 1;
            self.in_bin = 0;
            self.improved_at = 0;
            self.es = Self::cmaes(&x, &self.bounds, &self.options, self.bin);
        }
    }

    /// The non-dominated successful bin optima so far, lowest first.
    pub fn front(&self) -> Vec<FrontPoint> {
        front_of(
            self.bests
                .iter()
                .flatten()
                .map(|b| b.point.clone())
                .collect(),
        )
    }

    pub fn evaluations(&self) -> u64 {
        self.evaluations
    }

    pub fn generations(&self) -> u64 {
        self.generations
    }
}

/// The hypervolume reference point of a jump in minimized objectives (−h, log effort).
pub fn reference(def: &JumpDef) -> Objectives {
    [-def.reference.0, def.reference.1]
}

/// Hypervolume of a set of front points w.r.t. the jump's reference.
pub fn hypervolume(def: &JumpDef, points: &[FrontPoint]) -> f64 {
    let objectives: Vec<Objectives> = points.iter().map(|p| p.outcome.objectives()).collect();
    crate::optim::pareto::hypervolume(&objectives, reference(def))
}

fn front_of(points: Vec<FrontPoint>) -> Vec<FrontPoint> {
    let objectives: Vec<Objectives> = points.iter().map(|p| p.outcome.objectives()).collect();
    let mut keep: Vec<usize> = non_dominated(&objectives)
        .into_iter()
        .filter(|&i| objectives[i].iter().all(|v| v.is_finite()))
        .collect();
    keep.sort_by(|&a, &b| {
        points[a]
            .outcome
            .height
            .total_cmp(&points[b].outcome.height)
            .then(a.cmp(&b))
    });
    // Equal points (copies of one controller) appear once.
    keep.dedup_by(|a, b| same_point(&points[*a].x, &points[*b].x));
    keep.into_iter().map(|i| points[i].clone()).collect()
}

fn record<'a>(outcomes: impl Iterator<Item = &'a JumpOutcome>, samples: &mut Vec<Sample>) {
    samples.extend(outcomes.map(|o| Sample {
        height: o.height,
        log_effort: o.log_effort,
        failed: o.failure.is_some(),
    }));
}

fn same_point(a: &[f64], b: &[f64]) -> bool {
    a.len() == b.len() && a.iter().zip(b).all(|(x, y)| x.to_bits() == y.to_bits())
}
