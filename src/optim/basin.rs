//! Basin-CMA (Wampler 2012, thesis §3.3.2): CMA-ES over f∘g, where g projects a sample onto a
//! nearby constrained local minimum with a local solver. The one implementation, used by gait
//! discovery (the samples are contact timings, each projected by a gait solve) and by the
//! CEC 2006 benchmark (each sample projected by IPOPT).
//!
//! A projection is *feasible* when its largest violation is at most the tolerance and its
//! objective is finite. CMA-ES is then told the objective, at the projected point when the
//! projection moved the CMA variables (the sample is replaced by its projection, an injected
//! point whose step CMA-ES clips in Mahalanobis norm; Hansen 2011), so the mean and covariance
//! follow the projected elites. Infeasible projections rank after every feasible one, by their
//! violation, and failed ones last ([`Verdict`]). The evaluation of a generation's samples is
//! the caller's ([`Evaluate`]): worker processes for gait samples, a serial loop for CEC.

use super::scheduler::{Evaluate, Generation, Judged, Verdict, generation};
use super::{CmaesOptions, Params, RestartPolicy, RestartingCmaes};

/// A sample's projection by the local solver.
#[derive(Clone, Debug, PartialEq)]
pub struct Projection {
    /// The objective at the projected point.
    pub objective: f64,
    /// Its largest bound or constraint violation.
    pub violation: f64,
    /// The projected point in the search's coordinates, when the projection moved the sampled
    /// variables (`None`: they were held fixed).
    pub moved_to: Option<Params>,
}

/// How a projection ranks with feasibility tolerance `tolerance`.
pub fn verdict(p: Option<&Projection>, tolerance: f64) -> Verdict {
    match p {
        Some(p) if p.objective.is_finite() && p.violation <= tolerance => {
            Verdict::Feasible(p.objective)
        }
        Some(p) if p.violation.is_finite() => Verdict::Infeasible(p.violation),
        _ => Verdict::Failed,
    }
}

/// Basin-CMA's search state: restarting CMA-ES and the feasibility tolerance.
pub struct BasinCma {
    cma: RestartingCmaes,
    tolerance: f64,
}

impl BasinCma {
    /// A search from `start` with step `sigma0` (in the search's coordinates), restarting by
    /// `policy`; projections with a violation up to `tolerance` are feasible.
    pub fn new(
        start: &[f64],
        sigma0: f64,
        options: CmaesOptions,
        policy: RestartPolicy,
        tolerance: f64,
    ) -> Self {
        BasinCma {
            cma: RestartingCmaes::new(start, sigma0, options, policy),
            tolerance,
        }
    }

    /// How a projection ranks (`None`: the local solve failed outright).
    pub fn verdict(&self, p: Option<&Projection>) -> Verdict {
        verdict(p, self.tolerance)
    }

    /// One generation: samples asked of CMA-ES, projected by `evaluate`, told (feasible
    /// projections at their projected points).
    pub fn generation(
        &mut self,
        evaluate: &mut dyn Evaluate<Option<Projection>>,
    ) -> Generation<Option<Projection>> {
        let tolerance = self.tolerance;
        let judge = &mut |_: &[f64], p: &Option<Projection>| {
            let verdict = verdict(p.as_ref(), tolerance);
            Judged {
                verdict,
                tell_at: match (verdict, p) {
                    (Verdict::Feasible(_), Some(p)) => p.moved_to.clone(),
                    _ => None,
                },
            }
        };
        generation(&mut self.cma, evaluate, judge)
    }

    /// Restarts so far.
    pub fn restarts(&self) -> u32 {
        self.cma.restarts()
    }
}
