//! IPOP and BIPOP restart strategies around [`Cmaes`] (Auger & Hansen 2005; Hansen 2009).
//!
//! IPOP restarts a stopped run with the population doubled; BIPOP alternates between such
//! large-population regimes and small-population runs with a random smaller step size, giving
//! each regime a similar evaluation budget. Restarts start from a uniformly random point of the
//! bounds when there are bounds, else from the original x0.

use super::{AskTell, Cmaes, CmaesOptions, Fitness, Params};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use serde::{Deserialize, Serialize};

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum RestartPolicy {
    Ipop,
    Bipop,
}

#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct RestartingCmaes {
    policy: RestartPolicy,
    x0: Vec<f64>,
    sigma0: f64,
    base: CmaesOptions,
    default_lambda: usize,
    current: Cmaes,
    restarts: u32,
    large_restarts: u32,
    large_evaluations: u64,
    small_evaluations: u64,
    finished_evaluations: u64,
    current_is_large: bool,
    rng: ChaCha8Rng,
    best: Option<(Vec<f64>, f64)>,
}

impl RestartingCmaes {
    pub fn new(x0: &[f64], sigma0: f64, options: CmaesOptions, policy: RestartPolicy) -> Self {
        let current = Cmaes::new(x0, sigma0, options.clone());
        RestartingCmaes {
            policy,
            x0: x0.to_vec(),
            sigma0,
            default_lambda: current.population(),
            base: options.clone(),
            current,
            restarts: 0,
            large_restarts: 0,
            large_evaluations: 0,
            small_evaluations: 0,
            finished_evaluations: 0,
            current_is_large: true,
            rng: ChaCha8Rng::seed_from_u64(options.seed ^ 0x9e37_79b9_7f4a_7c15),
            best: None,
        }
    }

    pub fn restarts(&self) -> u32 {
        self.restarts
    }

    pub fn evaluations(&self) -> u64 {
        self.finished_evaluations + self.current.evaluations()
    }

    pub fn current(&self) -> &Cmaes {
        &self.current
    }

    fn restart(&mut self) {
        let used = self.current.evaluations();
        self.finished_evaluations += used;
        if self.current_is_large {
            self.large_evaluations += used;
        } else {
            self.small_evaluations += used;
        }
        self.restarts += 1;
        let start: Vec<f64> = match &self.base.bounds {
            Some(b) => b
                .lower
                .iter()
                .zip(&b.upper)
                .map(|(l, u)| self.rng.random_range(*l..*u))
                .collect(),
            None => self.x0.clone(),
        };
        let large = match self.policy {
            RestartPolicy::Ipop => true,
            // BIPOP: the regime that has used fewer evaluations runs next (large first).
            RestartPolicy::Bipop => {
                self.large_restarts == 0 || self.small_evaluations >= self.large_evaluations
            }
        };
        let seed = self.base.seed.wrapping_add(self.restarts as u64 * 7919);
        let remaining = self
            .base
            .max_evaluations
            .map(|m| m.saturating_sub(self.finished_evaluations).max(1));
        let (lambda, sigma) = if large {
            self.large_restarts += 1;
            (
                self.default_lambda << self.large_restarts.min(20),
                self.sigma0,
            )
        } else {
            let large_lambda = (self.default_lambda << self.large_restarts.min(20)) as f64;
            let u: f64 = self.rng.random();
            let v: f64 = self.rng.random();
            let lambda = (self.default_lambda as f64
                * (0.5 * large_lambda / self.default_lambda as f64).powf(u * u))
            .floor()
            .max(2.0);
            (lambda as usize, self.sigma0 * 2.0 * 10f64.powf(-2.0 * v))
        };
        self.current_is_large = large;
        let options = CmaesOptions {
            population: Some(lambda),
            seed,
            max_evaluations: remaining,
            ..self.base.clone()
        };
        self.current = Cmaes::new(&start, sigma, options);
    }

    /// Whether the whole run is over (the evaluation budget is spent).
    pub fn exhausted(&self) -> bool {
        self.base
            .max_evaluations
            .map(|m| self.evaluations() >= m)
            .unwrap_or(false)
    }
}

impl AskTell for RestartingCmaes {
    fn ask(&mut self) -> Vec<Params> {
        if self.current.should_stop().is_some() && !self.exhausted() {
            self.restart();
        }
        self.current.ask()
    }

    fn tell(&mut self, results: &[(Params, Fitness)]) {
        for (x, f) in results {
            if f.is_finite() && self.best.as_ref().map(|b| *f < b.1).unwrap_or(true) {
                self.best = Some((x.clone(), *f));
            }
        }
        self.current.tell(results);
    }

    fn best(&self) -> Option<(&[f64], Fitness)> {
        self.best.as_ref().map(|(x, f)| (x.as_slice(), *f))
    }
}
