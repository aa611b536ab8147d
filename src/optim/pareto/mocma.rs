//! MO-CMA-ES: µ elitist (1+1)-CMA-ES units with hypervolume-based selection, the
//! "s-MO-CMA-ES" of Igel, Hansen & Roth (2007), "Covariance Matrix Adaptation for
//! Multi-objective Optimization", Evolutionary Computation 15(1), Algorithm 4 (µ×(1+1)), as
//! summarized in Agrawal 2015 (thesis §4.4.2), with the interface RMOO needs (§4.4.3, Algorithm 1).
//!
//! One generation (Alg. 4):
//! 1. every parent a_k produces an offspring x′_k = x_k + σ_k·A_k·z, z ~ N(0, I) (mirrored
//!    into the bounds, if any);
//! 2. Q = parents ∪ offspring is ordered by ≺_{s,Q} (thesis Eq. 4.16: non-domination rank, then
//!    hypervolume contribution within the rank, see [`super::selection`]) and the best µ
//!    become the next parents. By default the level that does not fit whole is truncated
//!    greedily (drop the ≺_{s,Q}-last point, recompute, repeat); [`Selection::Sorted`] takes
//!    the first µ of the one-shot order instead;
//! 3. an offspring is successful iff it is selected: λ_succ,Q,k = 1 if a′_k survives, else 0;
//!    `updateStepSize` is applied to parent and offspring with λ_succ,Q,k, and
//!    `updateCovariance` to the offspring with the step (x′_k − x_k)/σ_k (see [`super::unit`]).
//!
//! RMOO resamples the parents whose offspring failed (§4.4.3), so a parent may have any number
//! of told offspring: its success rate is then λ_succ/λ, the fraction of its offspring that were
//! selected (the (1+λ) rule of Igel et al. 2006), and each selected offspring inherits the
//! parent's strategy updated with its own step. Parents without told offspring keep their
//! strategy. Failed evaluations (non-finite objectives) rank after every finite point, so they
//! never displace one.
//!
//! Bound handling: offspring are mirrored into the box and the mirrored point is the new
//! individual; the covariance step is the realized displacement (x′ − x)/σ.

use super::super::{Bounds, Params};
use super::Objectives;
use super::dominance::{is_feasible, non_dominated};
use super::hypervolume::hypervolume;
use super::selection::{Selection, select};
use super::unit::{Individual, UnitParameters};
use nalgebra::DVector;
use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;
use rand_distr::{Distribution, StandardNormal};
use serde::{Deserialize, Serialize};

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct MoCmaesOptions {
    /// Number of parents µ (and of offspring per generation); RMOO uses 16.
    pub mu: usize,
    pub seed: u64,
    /// Initial step size σ₀ of every unit.
    pub sigma0: f64,
    pub bounds: Option<Bounds>,
    /// Reference point of the hypervolume contributions; `None`: the worst finite value of
    /// each objective in the population being selected, plus 1.
    pub reference: Option<Objectives>,
    /// Truncation of the last level that fits: greedy (default) or Eq. 4.16's one-shot order.
    pub selection: Selection,
}

impl Default for MoCmaesOptions {
    fn default() -> Self {
        MoCmaesOptions {
            mu: 16,
            seed: 1,
            sigma0: 0.1,
            bounds: None,
            reference: None,
            selection: Selection::Greedy,
        }
    }
}

/// An evaluated offspring and the index of the parent that produced it.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Offspring {
    pub parent: usize,
    pub x: Params,
    pub objectives: Objectives,
}

/// The complete, serializable state of an MO-CMA-ES run; cloning it forks the run.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct MoCmaes {
    n: usize,
    params: UnitParameters,
    /// The µ parents, best first in the order ≺_{s,X} of their selection.
    parents: Vec<Individual>,
    /// Asked points not yet told, with their parent.
    pending: Vec<(usize, Params)>,
    rng: ChaCha8Rng,
    options: MoCmaesOptions,
    generation: u64,
    evaluations: u64,
}

impl MoCmaes {
    /// All µ parents start at `x0` (mirrored into the bounds) with fitness `f0` (RMOO
    /// Algorithm 1, step 1). Panics on programmer errors: empty x0, µ = 0, σ₀ ≤ 0, bounds of
    /// the wrong size.
    pub fn new(x0: &[f64], f0: Objectives, options: MoCmaesOptions) -> Self {
        Self::from_points(&[(x0.to_vec(), f0)], options)
    }

    /// Parents from several evaluated points: with at least µ points the best µ by the
    /// selection of [`MoCmaesOptions::selection`]; with fewer, the points are repeated
    /// cyclically. Same panics as [`new`](Self::new), and all points must have one dimension.
    pub fn from_points(points: &[(Params, Objectives)], options: MoCmaesOptions) -> Self {
        assert!(
            !points.is_empty(),
            "MO-CMA-ES needs at least one initial point"
        );
        let n = points[0].0.len();
        assert!(n > 0, "MO-CMA-ES needs at least one parameter");
        assert!(
            points.iter().all(|p| p.0.len() == n),
            "initial points of different dimensions"
        );
        assert!(options.mu > 0, "MO-CMA-ES needs µ ≥ 1");
        assert!(
            options.sigma0 > 0.0 && options.sigma0.is_finite(),
            "MO-CMA-ES needs a positive initial step size"
        );
        if let Some(b) = &options.bounds {
            assert_eq!(b.lower.len(), n, "bounds must have one pair per parameter");
        }
        let params = UnitParameters::new(n);
        let mu = options.mu;
        let chosen: Vec<usize> = if points.len() >= mu {
            let objectives: Vec<Objectives> = points.iter().map(|p| p.1).collect();
            select(&objectives, mu, options.reference, options.selection)
        } else {
            (0..mu).map(|k| k % points.len()).collect()
        };
        let parents = chosen
            .into_iter()
            .map(|i| {
                let mut x = points[i].0.clone();
                if let Some(b) = &options.bounds {
                    b.mirror(&mut x);
                }
                Individual::new(x, points[i].1, options.sigma0, &params)
            })
            .collect();
        MoCmaes {
            n,
            params,
            parents,
            pending: Vec::new(),
            rng: ChaCha8Rng::seed_from_u64(options.seed),
            options,
            generation: 0,
            evaluations: 0,
        }
    }

    /// One offspring per parent, in parent order (Alg. 4, lines 3–5).
    pub fn ask(&mut self) -> Vec<Params> {
        let all: Vec<usize> = (0..self.parents.len()).collect();
        self.resample(&all)
    }

    /// Fresh offspring of the given parents (indices into [`parents`](Self::parents); repeats
    /// allowed), one per entry, e.g. to replace failed samples (RMOO §4.4.3). They are added to
    /// the points awaiting [`tell`](Self::tell).
    pub fn resample(&mut self, parents: &[usize]) -> Vec<Params> {
        parents
            .iter()
            .map(|&k| {
                assert!(k < self.parents.len(), "no parent {k}");
                let z = DVector::from_fn(self.n, |_, _| StandardNormal.sample(&mut self.rng));
                let mut x = self.parents[k].mutate(&z);
                if let Some(b) = &self.options.bounds {
                    b.mirror(&mut x);
                }
                self.pending.push((k, x.clone()));
                x
            })
            .collect()
    }

    /// Results for asked or resampled points, in any order; each is matched bit for bit to an
    /// asked point to find its parent. Points that were not asked are ignored; asked points
    /// that are not told are dropped (they neither succeed nor fail). Then one generation of
    /// selection and strategy updates ([`tell_offspring`](Self::tell_offspring)).
    pub fn tell(&mut self, evaluated: Vec<(Params, Objectives)>) {
        let mut pending = std::mem::take(&mut self.pending);
        let mut offspring = Vec::with_capacity(evaluated.len());
        for (x, objectives) in evaluated {
            let found = pending.iter().position(|(_, p)| {
                p.len() == x.len() && p.iter().zip(&x).all(|(a, b)| a.to_bits() == b.to_bits())
            });
            if let Some(i) = found {
                let (parent, _) = pending.swap_remove(i);
                offspring.push(Offspring {
                    parent,
                    x,
                    objectives,
                });
            }
        }
        self.tell_offspring(offspring);
    }

    /// One generation with explicitly parented offspring: selection of the best µ of parents ∪
    /// offspring by ≺_{s,Q} and the success-rule updates (see the module documentation). An
    /// empty set changes nothing. Clears the asked points. Panics if a parent index is out of
    /// range or a point has the wrong dimension.
    pub fn tell_offspring(&mut self, offspring: Vec<Offspring>) {
        self.pending.clear();
        if offspring.is_empty() {
            return;
        }
        let mu = self.parents.len();
        for o in &offspring {
            assert!(o.parent < mu, "no parent {}", o.parent);
            assert_eq!(o.x.len(), self.n, "offspring of the wrong dimension");
        }
        self.evaluations += offspring.len() as u64;
        self.generation += 1;
        let objectives: Vec<Objectives> = self
            .parents
            .iter()
            .map(|p| p.objectives)
            .chain(offspring.iter().map(|o| o.objectives))
            .collect();
        let reference = self.options.reference;
        let selected = select(&objectives, mu, reference, self.options.selection);
        // λ_k (told offspring) and λ_succ,k (selected offspring) of every parent.
        let mut told = vec![0usize; mu];
        let mut succeeded = vec![0usize; mu];
        for o in &offspring {
            told[o.parent] += 1;
        }
        for &i in &selected {
            if i >= mu {
                succeeded[offspring[i - mu].parent] += 1;
            }
        }
        let rate = |k: usize| succeeded[k] as f64 / told[k] as f64;
        let old = &self.parents;
        let next: Vec<Individual> = selected
            .iter()
            .map(|&i| {
                if i < mu {
                    let mut a = old[i].clone();
                    if told[i] > 0 {
                        a.update_step_size(rate(i), &self.params);
                    }
                    a
                } else {
                    let o = &offspring[i - mu];
                    let parent = &old[o.parent];
                    let step = DVector::from_iterator(
                        self.n,
                        o.x.iter()
                            .zip(&parent.x)
                            .map(|(a, b)| (a - b) / parent.sigma),
                    );
                    let mut a = parent.clone();
                    a.x = o.x.clone();
                    a.objectives = o.objectives;
                    a.failed = !is_feasible(o.objectives);
                    a.update_step_size(rate(o.parent), &self.params);
                    a.update_covariance(&step, &self.params);
                    a
                }
            })
            .collect();
        self.parents = next;
    }

    /// One generation evaluated serially with `f` (tests and cheap objectives).
    pub fn step(&mut self, mut f: impl FnMut(&[f64]) -> Objectives) {
        let told = self
            .ask()
            .into_iter()
            .map(|x| {
                let v = f(&x);
                (x, v)
            })
            .collect();
        self.tell(told);
    }

    /// The finite non-dominated parents, by increasing f1 (ties by parent order).
    pub fn front(&self) -> Vec<(Params, Objectives)> {
        let objectives: Vec<Objectives> = self.parents.iter().map(|p| p.objectives).collect();
        let mut front: Vec<(Params, Objectives)> = non_dominated(&objectives)
            .into_iter()
            .map(|i| (self.parents[i].x.clone(), objectives[i]))
            .collect();
        front.sort_by(|a, b| a.1[0].total_cmp(&b.1[0]));
        front
    }

    /// Hypervolume of the parents w.r.t. `reference`.
    pub fn hypervolume(&self, reference: Objectives) -> f64 {
        let objectives: Vec<Objectives> = self.parents.iter().map(|p| p.objectives).collect();
        hypervolume(&objectives, reference)
    }

    /// The µ parents, best first.
    pub fn parents(&self) -> &[Individual] {
        &self.parents
    }

    /// Asked points awaiting a tell, with their parent index.
    pub fn pending(&self) -> &[(usize, Params)] {
        &self.pending
    }

    pub fn mu(&self) -> usize {
        self.parents.len()
    }

    pub fn dimension(&self) -> usize {
        self.n
    }

    /// Completed generations (tells with at least one offspring).
    pub fn generation(&self) -> u64 {
        self.generation
    }

    /// Told offspring evaluations (the initial points are not counted).
    pub fn evaluations(&self) -> u64 {
        self.evaluations
    }

    pub fn options(&self) -> &MoCmaesOptions {
        &self.options
    }

    pub fn unit_parameters(&self) -> &UnitParameters {
        &self.params
    }

    /// Checks a state read back from a checkpoint: µ parents of dimension n with finite
    /// strategies, pending points of dimension n with valid parents, bounds of dimension n.
    pub fn check_state(&self) -> Result<(), crate::optim::StateError> {
        let n = self.n;
        let ok = n >= 1
            && self.parents.len() == self.options.mu
            && self.parents.iter().all(|p| p.is_consistent(n))
            && self
                .pending
                .iter()
                .all(|(k, x)| *k < self.parents.len() && x.len() == n)
            && self
                .options
                .bounds
                .as_ref()
                .is_none_or(|b| b.lower.len() == n && b.upper.len() == n);
        if ok {
            Ok(())
        } else {
            Err(crate::optim::StateError::MoCmaes {
                dimension: n,
                mu: self.options.mu,
            })
        }
    }
}
