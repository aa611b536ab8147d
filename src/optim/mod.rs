//! Optimizers behind one ask/tell interface, and the one loop that drives them
//! ([`scheduler`]: ask, evaluate a batch, judge, tell).
//!
//! [`Cmaes`] is the single CMA-ES core: (μ/μ_w, λ) with active (negative) recombination weights,
//! cumulative step-size adaptation, box bounds through a mirroring transform, seeded sampling,
//! serializable state (checkpoint, resume, fork by cloning), failures (NaN, ±∞) ranked last and
//! never ending a run, and injection of external points. Parameters follow Hansen, "The CMA
//! Evolution Strategy: A Tutorial" (2016), eqs. (47)–(58) with the active weights of §A.
//! [`RestartingCmaes`] adds IPOP and BIPOP restarts.

pub mod basin;
pub mod cec2006;
mod cmaes;
pub mod pareto;
mod restarts;
pub mod scheduler;

pub use cmaes::{Cmaes, CmaesOptions, StopReason};
pub use restarts::{RestartPolicy, RestartingCmaes};

/// A candidate parameter vector.
pub type Params = Vec<f64>;

/// Lower is better. Non-finite values mean the evaluation failed.
pub type Fitness = f64;

/// The interface every optimizer offers.
pub trait AskTell {
    /// New candidates to evaluate (within the bounds, if any).
    fn ask(&mut self) -> Vec<Params>;
    /// Results for asked candidates, in any order; points that were not asked are injected.
    fn tell(&mut self, results: &[(Params, Fitness)]);
    /// Best point seen so far and its fitness.
    fn best(&self) -> Option<(&[f64], Fitness)>;

    /// One generation evaluated serially with `f` (tests, benchmarks and cheap objectives;
    /// rollouts use ask/tell with a parallel evaluation in between).
    fn step(&mut self, mut f: impl FnMut(&[f64]) -> Fitness)
    where
        Self: Sized,
    {
        let told: Vec<(Params, Fitness)> = self
            .ask()
            .into_iter()
            .map(|x| {
                let v = f(&x);
                (x, v)
            })
            .collect();
        self.tell(&told);
    }
}

/// Box bounds, one `(lo, hi)` pair per coordinate.
#[derive(Clone, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct Bounds {
    pub lower: Vec<f64>,
    pub upper: Vec<f64>,
}

/// Why lower and upper values do not make a box.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
pub enum BoundsError {
    #[error("bounds have {lower} lower and {upper} upper values")]
    Lengths { lower: usize, upper: usize },
    #[error("bound {index}: expected lower < upper, found ({lower}, {upper})")]
    Inverted {
        index: usize,
        lower: f64,
        upper: f64,
    },
}

/// A state read back from a checkpoint that does not fit its optimizer.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
pub enum StateError {
    #[error(
        "not a CMA-ES state of dimension {dimension} (population {population}): a vector, matrix or the step size does not fit"
    )]
    Cmaes { dimension: usize, population: usize },
    #[error(
        "not an MO-CMA-ES state of dimension {dimension} with µ = {mu}: a parent, pending point or the bounds do not fit"
    )]
    MoCmaes { dimension: usize, mu: usize },
}

impl Bounds {
    pub fn new(lower: Vec<f64>, upper: Vec<f64>) -> Result<Self, BoundsError> {
        if lower.len() != upper.len() {
            return Err(BoundsError::Lengths {
                lower: lower.len(),
                upper: upper.len(),
            });
        }
        for (i, (l, u)) in lower.iter().zip(&upper).enumerate() {
            if !(l < u) {
                return Err(BoundsError::Inverted {
                    index: i,
                    lower: *l,
                    upper: *u,
                });
            }
        }
        Ok(Bounds { lower, upper })
    }

    /// Maps any point into the box by mirroring at the bounds (period 2·(hi − lo)); points
    /// already inside are unchanged.
    pub fn mirror(&self, x: &mut [f64]) {
        for (i, v) in x.iter_mut().enumerate() {
            let (lo, hi) = (self.lower[i], self.upper[i]);
            if *v >= lo && *v <= hi {
                continue;
            }
            let w = hi - lo;
            let mut t = (*v - lo).rem_euclid(2.0 * w);
            if t > w {
                t = 2.0 * w - t;
            }
            *v = lo + t;
        }
    }

    pub fn contains(&self, x: &[f64]) -> bool {
        x.iter()
            .enumerate()
            .all(|(i, v)| *v >= self.lower[i] && *v <= self.upper[i])
    }
}

#[cfg(test)]
mod tests;
