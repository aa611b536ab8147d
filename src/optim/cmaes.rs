//! CMA-ES with active weights (Hansen 2016, "The CMA Evolution Strategy: A Tutorial").
//! Equation numbers below refer to that tutorial.

use super::{AskTell, Bounds, Fitness, Params};
use nalgebra::{DMatrix, DVector, SymmetricEigen};
use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;
use rand_distr::{Distribution, StandardNormal};
use serde::{Deserialize, Serialize};
use std::collections::HashMap;

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct CmaesOptions {
    /// Population size λ (default 4 + ⌊3 ln n⌋).
    pub population: Option<usize>,
    pub seed: u64,
    pub bounds: Option<Bounds>,
    /// Stop when the best fitness of the last generations spans less than this.
    pub tol_fun: f64,
    /// Stop when σ times every coordinate's standard deviation is below this.
    pub tol_x: f64,
    pub max_evaluations: Option<u64>,
    /// Use negative weights for the worst half (active CMA).
    pub active: bool,
}

impl Default for CmaesOptions {
    fn default() -> Self {
        CmaesOptions {
            population: None,
            seed: 1,
            bounds: None,
            tol_fun: 1e-12,
            tol_x: 1e-12,
            max_evaluations: None,
            active: true,
        }
    }
}

/// Why a run should stop.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum StopReason {
    TolFun,
    TolX,
    MaxEvaluations,
    /// The covariance matrix became ill-conditioned (condition number above 1e14).
    ConditionCov,
    /// No finite fitness for 20 generations in a row.
    AllFailed,
}

/// The complete, serializable state of a CMA-ES run; cloning it forks the run.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct Cmaes {
    n: usize,
    lambda: usize,
    mu: usize,
    /// Recombination weights, positive for the best μ, negative (active) for the rest.
    weights: Vec<f64>,
    mu_eff: f64,
    c_sigma: f64,
    d_sigma: f64,
    c_c: f64,
    c_1: f64,
    c_mu: f64,
    chi_n: f64,
    mean: DVector<f64>,
    sigma: f64,
    cov: DMatrix<f64>,
    /// Eigenvectors B and the square roots of the eigenvalues D of C.
    b: DMatrix<f64>,
    d: DVector<f64>,
    p_sigma: DVector<f64>,
    p_c: DVector<f64>,
    generation: u64,
    evaluations: u64,
    eigen_generation: u64,
    rng: ChaCha8Rng,
    options: CmaesOptions,
    /// Asked points (phenotype bits) → their unbounded genotype, until told.
    #[serde(with = "pending_serde")]
    pending: HashMap<Vec<u64>, Vec<f64>>,
    best: Option<(Vec<f64>, f64)>,
    recent_best: Vec<f64>,
    failed_generations: u32,
}

mod pending_serde {
    use serde::{Deserialize, Deserializer, Serialize, Serializer};
    use std::collections::HashMap;
    pub fn serialize<S: Serializer>(
        m: &HashMap<Vec<u64>, Vec<f64>>,
        s: S,
    ) -> Result<S::Ok, S::Error> {
        let mut v: Vec<(&Vec<u64>, &Vec<f64>)> = m.iter().collect();
        v.sort_by(|a, b| a.0.cmp(b.0));
        v.serialize(s)
    }
    pub fn deserialize<'de, D: Deserializer<'de>>(
        d: D,
    ) -> Result<HashMap<Vec<u64>, Vec<f64>>, D::Error> {
        let v: Vec<(Vec<u64>, Vec<f64>)> = Vec::deserialize(d)?;
        Ok(v.into_iter().collect())
    }
}

fn key(x: &[f64]) -> Vec<u64> {
    x.iter().map(|v| v.to_bits()).collect()
}

impl Cmaes {
    /// A run from `x0` with initial step size `sigma0`. Panics only on programmer errors
    /// (empty x0, non-positive σ0, bounds of the wrong size), which are checked by callers
    /// that take user input.
    pub fn new(x0: &[f64], sigma0: f64, options: CmaesOptions) -> Self {
        let n = x0.len();
        assert!(n > 0, "CMA-ES needs at least one parameter");
        assert!(sigma0 > 0.0, "CMA-ES needs a positive initial step size");
        if let Some(b) = &options.bounds {
            assert_eq!(b.lower.len(), n, "bounds must have one pair per parameter");
        }
        let nf = n as f64;
        let lambda = options
            .population
            .unwrap_or(4 + (3.0 * nf.ln()).floor() as usize)
            .max(2);
        let mu = lambda / 2;
        // Eq. (49): preliminary weights.
        let raw: Vec<f64> = (1..=lambda)
            .map(|i| ((lambda as f64 + 1.0) / 2.0).ln() - (i as f64).ln())
            .collect();
        let pos_sum: f64 = raw[..mu].iter().sum();
        let pos_sq: f64 = raw[..mu].iter().map(|w| w * w).sum();
        let mu_eff = pos_sum * pos_sum / pos_sq;
        let neg_sum: f64 = raw[mu..].iter().filter(|w| **w < 0.0).map(|w| -w).sum();
        let neg_sq: f64 = raw[mu..].iter().map(|w| w * w).sum();
        let mu_eff_neg = if neg_sq > 0.0 {
            neg_sum * neg_sum / neg_sq
        } else {
            0.0
        };
        // Eqs. (54)–(58).
        let c_sigma = (mu_eff + 2.0) / (nf + mu_eff + 5.0);
        let d_sigma = 1.0 + 2.0 * (((mu_eff - 1.0) / (nf + 1.0)).sqrt() - 1.0).max(0.0) + c_sigma;
        let c_c = (4.0 + mu_eff / nf) / (nf + 4.0 + 2.0 * mu_eff / nf);
        let alpha_cov = 2.0;
        let c_1 = alpha_cov / ((nf + 1.3).powi(2) + mu_eff);
        let c_mu = (1.0 - c_1).min(
            alpha_cov * (mu_eff - 2.0 + 1.0 / mu_eff)
                / ((nf + 2.0).powi(2) + alpha_cov * mu_eff / 2.0),
        );
        // Eq. (53): scale of the negative weights.
        let alpha_mu_neg = 1.0 + c_1 / c_mu;
        let alpha_mueff_neg = 1.0 + 2.0 * mu_eff_neg / (mu_eff + 2.0);
        let alpha_posdef_neg = (1.0 - c_1 - c_mu) / (nf * c_mu);
        let neg_scale = alpha_mu_neg.min(alpha_mueff_neg).min(alpha_posdef_neg);
        let weights = raw
            .iter()
            .enumerate()
            .map(|(i, w)| {
                if i < mu {
                    w / pos_sum
                } else if options.active && neg_sum > 0.0 {
                    neg_scale * w / neg_sum
                } else {
                    0.0
                }
            })
            .collect();
        let chi_n = nf.sqrt() * (1.0 - 1.0 / (4.0 * nf) + 1.0 / (21.0 * nf * nf));
        let mut mean = DVector::from_column_slice(x0);
        if let Some(b) = &options.bounds {
            b.mirror(mean.as_mut_slice());
        }
        let rng = ChaCha8Rng::seed_from_u64(options.seed);
        Cmaes {
            n,
            lambda,
            mu,
            weights,
            mu_eff,
            c_sigma,
            d_sigma,
            c_c,
            c_1,
            c_mu,
            chi_n,
            mean,
            sigma: sigma0,
            cov: DMatrix::identity(n, n),
            b: DMatrix::identity(n, n),
            d: DVector::from_element(n, 1.0),
            p_sigma: DVector::zeros(n),
            p_c: DVector::zeros(n),
            generation: 0,
            evaluations: 0,
            eigen_generation: 0,
            rng,
            options,
            pending: HashMap::new(),
            best: None,
            recent_best: Vec::new(),
            failed_generations: 0,
        }
    }

    pub fn dimension(&self) -> usize {
        self.n
    }

    /// Checks a state read back from a checkpoint: every vector and matrix of dimension n,
    /// weights for the whole population, a finite positive step size, finite covariance and
    /// bounds of dimension n. A state that fails it would index out of bounds or sample NaN
    /// once resumed.
    pub fn check_state(&self) -> Result<(), super::StateError> {
        let n = self.n;
        let square = |m: &DMatrix<f64>| m.shape() == (n, n) && m.iter().all(|v| v.is_finite());
        let vector = |v: &DVector<f64>| v.len() == n && v.iter().all(|x| x.is_finite());
        let sized = n >= 1
            && (1..=self.lambda).contains(&self.mu)
            && self.weights.len() == self.lambda
            && square(&self.cov)
            && square(&self.b)
            && vector(&self.mean)
            && vector(&self.d)
            && vector(&self.p_sigma)
            && vector(&self.p_c)
            && self.sigma.is_finite()
            && self.sigma > 0.0
            && self.pending.values().all(|g| g.len() == n)
            && self
                .options
                .bounds
                .as_ref()
                .is_none_or(|b| b.lower.len() == n && b.upper.len() == n);
        if sized {
            Ok(())
        } else {
            Err(super::StateError::Cmaes {
                dimension: n,
                population: self.lambda,
            })
        }
    }
    pub fn population(&self) -> usize {
        self.lambda
    }
    pub fn generation(&self) -> u64 {
        self.generation
    }
    pub fn evaluations(&self) -> u64 {
        self.evaluations
    }
    pub fn sigma(&self) -> f64 {
        self.sigma
    }
    pub fn mean(&self) -> Vec<f64> {
        let mut m = self.mean.as_slice().to_vec();
        if let Some(b) = &self.options.bounds {
            b.mirror(&mut m);
        }
        m
    }
    pub fn options(&self) -> &CmaesOptions {
        &self.options
    }

    /// Condition number of the covariance matrix.
    pub fn condition(&self) -> f64 {
        let max = self.d.max();
        let min = self.d.min();
        (max / min).powi(2)
    }

    /// The reason to stop, if any termination criterion holds.
    pub fn should_stop(&self) -> Option<StopReason> {
        if let Some(m) = self.options.max_evaluations {
            if self.evaluations >= m {
                return Some(StopReason::MaxEvaluations);
            }
        }
        if self.failed_generations >= 20 {
            return Some(StopReason::AllFailed);
        }
        let window = 10 + (30.0 * self.n as f64 / self.lambda as f64).ceil() as usize;
        if self.recent_best.len() >= window {
            let tail = &self.recent_best[self.recent_best.len() - window..];
            let (lo, hi) = tail
                .iter()
                .fold((f64::INFINITY, f64::NEG_INFINITY), |(l, h), v| {
                    (l.min(*v), h.max(*v))
                });
            if hi - lo < self.options.tol_fun {
                return Some(StopReason::TolFun);
            }
        }
        let max_sd = (0..self.n)
            .map(|i| self.cov[(i, i)].sqrt())
            .fold(0.0, f64::max);
        if self.sigma * max_sd.max(self.p_c.amax()) < self.options.tol_x {
            return Some(StopReason::TolX);
        }
        if self.condition() > 1e14 {
            return Some(StopReason::ConditionCov);
        }
        None
    }

    fn update_eigen(&mut self) {
        // Lazy decomposition: every 0.5 / ((c1 + cμ) n) generations, as pycma's default
        // `lazy_gap_evals = 0.5` (C changes little in between; tutorial §B.2).
        let gap = (0.5 / ((self.c_1 + self.c_mu) * self.n as f64)).max(1.0) as u64;
        if self.generation - self.eigen_generation < gap && self.generation > 0 {
            return;
        }
        self.eigen_generation = self.generation;
        // Enforce symmetry against round-off.
        let c = (&self.cov + self.cov.transpose()) * 0.5;
        let eig = SymmetricEigen::new(c.clone());
        self.cov = c;
        self.b = eig.eigenvectors;
        self.d = eig.eigenvalues.map(|v| v.max(1e-300).sqrt());
    }

    /// C^{-1/2} y.
    fn inv_sqrt_times(&self, y: &DVector<f64>) -> DVector<f64> {
        let bt_y = self.b.transpose() * y;
        let scaled = bt_y.component_div(&self.d);
        &self.b * scaled
    }

    fn sample(&mut self) -> (Vec<f64>, Vec<f64>) {
        let z = DVector::from_fn(self.n, |_, _| StandardNormal.sample(&mut self.rng));
        let y = &self.b * z.component_mul(&self.d);
        let geno = &self.mean + &y * self.sigma;
        let mut pheno = geno.as_slice().to_vec();
        if let Some(b) = &self.options.bounds {
            b.mirror(&mut pheno);
        }
        (geno.as_slice().to_vec(), pheno)
    }

    fn apply(&mut self, told: Vec<(DVector<f64>, f64)>) {
        self.generation += 1;
        let mut ranked: Vec<(DVector<f64>, f64)> = told;
        // Failures rank last; among them the order is kept (stable sort).
        ranked.sort_by(|a, b| {
            let fa = if a.1.is_finite() { a.1 } else { f64::INFINITY };
            let fb = if b.1.is_finite() { b.1 } else { f64::INFINITY };
            fa.total_cmp(&fb)
        });
        let finite = ranked.iter().filter(|r| r.1.is_finite()).count();
        if finite == 0 {
            self.failed_generations += 1;
            return;
        }
        self.failed_generations = 0;
        self.recent_best.push(ranked[0].1);
        if self.recent_best.len() > 1000 {
            self.recent_best.drain(..500);
        }
        // Steps y_i = (x_i − m)/σ, with weights for the λ ranks (missing ranks get no weight).
        let ys: Vec<DVector<f64>> = ranked
            .iter()
            .map(|(x, _)| (x - &self.mean) / self.sigma)
            .collect();
        let w = |i: usize| -> f64 {
            if i >= self.weights.len() {
                return 0.0;
            }
            // A failed point never receives a positive weight.
            if !ranked[i].1.is_finite() && self.weights[i] > 0.0 {
                0.0
            } else {
                self.weights[i]
            }
        };
        let mut y_w = DVector::zeros(self.n);
        let mut pos_total = 0.0;
        for (i, y) in ys.iter().enumerate().take(self.mu) {
            let wi = w(i);
            y_w += y * wi;
            pos_total += wi;
        }
        if pos_total > 0.0 && (pos_total - 1.0).abs() > 1e-12 {
            y_w /= pos_total;
        }
        // Eq. (41): mean.
        self.mean += &y_w * self.sigma;
        // Eq. (43): conjugate evolution path.
        let c_inv_sqrt_yw = self.inv_sqrt_times(&y_w);
        self.p_sigma = &self.p_sigma * (1.0 - self.c_sigma)
            + c_inv_sqrt_yw * (self.c_sigma * (2.0 - self.c_sigma) * self.mu_eff).sqrt();
        let ps_norm = self.p_sigma.norm();
        let g = self.generation as f64;
        let h_sigma = ps_norm / (1.0 - (1.0 - self.c_sigma).powf(2.0 * g)).sqrt()
            < (1.4 + 2.0 / (self.n as f64 + 1.0)) * self.chi_n;
        let hs = if h_sigma { 1.0 } else { 0.0 };
        // Eq. (45): evolution path.
        self.p_c = &self.p_c * (1.0 - self.c_c)
            + &y_w * (hs * (self.c_c * (2.0 - self.c_c) * self.mu_eff).sqrt());
        // Eqs. (46)–(47): covariance with active weights.
        let mut rank_mu = DMatrix::zeros(self.n, self.n);
        let mut w_sum = 0.0;
        for (i, y) in ys.iter().enumerate() {
            let mut wi = w(i);
            if wi == 0.0 {
                continue;
            }
            if wi < 0.0 {
                let norm2 = self.inv_sqrt_times(y).norm_squared();
                wi *= self.n as f64 / norm2.max(1e-300);
            }
            rank_mu.ger(wi, y, y, 1.0);
            w_sum += w(i);
        }
        let delta_h = (1.0 - hs) * self.c_c * (2.0 - self.c_c);
        let decay = 1.0 + self.c_1 * delta_h - self.c_1 - self.c_mu * w_sum;
        self.cov =
            &self.cov * decay + (&self.p_c * self.p_c.transpose()) * self.c_1 + rank_mu * self.c_mu;
        // Eq. (44): step size.
        self.sigma *= ((self.c_sigma / self.d_sigma) * (ps_norm / self.chi_n - 1.0))
            .min(1.0)
            .exp();
        self.update_eigen();
    }
}

impl AskTell for Cmaes {
    fn ask(&mut self) -> Vec<Params> {
        self.update_eigen();
        (0..self.lambda)
            .map(|_| {
                let (geno, pheno) = self.sample();
                self.pending.insert(key(&pheno), geno);
                pheno
            })
            .collect()
    }

    fn tell(&mut self, results: &[(Params, Fitness)]) {
        let mut told = Vec::with_capacity(results.len());
        let clip = (self.n as f64).sqrt() + 2.0 * self.n as f64 / (self.n as f64 + 2.0);
        for (x, f) in results {
            if x.len() != self.n {
                continue;
            }
            self.evaluations += 1;
            if f.is_finite() && self.best.as_ref().map(|b| *f < b.1).unwrap_or(true) {
                self.best = Some((x.clone(), *f));
            }
            let geno = match self.pending.remove(&key(x)) {
                Some(g) => DVector::from_vec(g),
                None => {
                    // Injected point (Hansen 2011): its step is clipped in Mahalanobis norm so
                    // that one far point cannot dominate the update.
                    let xv = DVector::from_column_slice(x);
                    let y = (&xv - &self.mean) / self.sigma;
                    let m = self.inv_sqrt_times(&y).norm();
                    let y = if m > clip { y * (clip / m) } else { y };
                    &self.mean + y * self.sigma
                }
            };
            told.push((geno, *f));
        }
        self.pending.clear();
        if !told.is_empty() {
            self.apply(told);
        }
    }

    fn best(&self) -> Option<(&[f64], Fitness)> {
        self.best.as_ref().map(|(x, f)| (x.as_slice(), *f))
    }
}
