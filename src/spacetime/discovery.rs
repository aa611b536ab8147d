//! Gait discovery: basin-CMA over the contact timings (Wampler 2012, thesis §3.3).
//!
//! - The CMA-only variables are the timings: the period T and, per foot, the start and duration
//!   of its single contact window (fractions of T). The first foot's start is fixed at 0: shifting
//!   every start by the same amount only relabels the frames, so that direction would be flat.
//!   Everything else (pose, passive elements, ground forces) is local-only: each sample is
//!   projected by one fixed-timing gait solve ([`super::gait`]) started from the rest pose.
//! - Timings change which variables exist (forces live only at contact frames), so a sample is
//!   projected by building its own gait NLP; the timing variables themselves are not moved by
//!   the local solve, so "replacing an elite by its projection" leaves the CMA coordinates as
//!   they are and CMA-ES is told the projected cost.
//! - Failed projections (not feasible to the tolerance) rank after every feasible one, by their
//!   violation ([`crate::optim::scheduler::Verdict`], the rule of every search).
//! - Initialisation (§3.3.3): feet evenly spaced within a 1 s cycle, each down half of it; a wide
//!   diagonal covariance (σ₀ = 0.3 of every range).
//! - The evaluation of a generation's λ samples is the caller's: the CLI runs them as separate
//!   processes in parallel (IPOPT's linear solver is not thread-safe), tests use closures. Each
//!   solve is deterministic, so the run is deterministic for a seed however it is evaluated.
//!
//! Search box: T ∈ [0.25, 1.5] s by default, durations ∈ [0.1, 0.9], starts ∈ [−0.5, 1.5] read
//! modulo 1 (so a window can move across the cycle's end without meeting a bound). The period's
//! range is the user's to narrow or widen ([`TimingSpace::with_period_range`]): the thesis lets
//! an artist restrict the search to a subspace of timings (§3.3.4: "an artist can design some
//! aspects of a gait"), and it gives no range of its own.

use super::gait::FootTiming;
use crate::optim::basin::{BasinCma, Projection};
use crate::optim::scheduler::Verdict;
use crate::optim::{Bounds, CmaesOptions, RestartPolicy};
use serde::{Deserialize, Serialize};

/// Default largest violation (mass-normalised) of a projection counted as feasible.
pub const FEASIBILITY_TOLERANCE: f64 = 1e-6;

/// Default IPOPT iteration limit of a sample's projection (the staged solve: L-BFGS, then the
/// exact Hessian).
pub const SAMPLE_ITERATIONS: usize = 600;

/// Default range of the period (s).
pub const PERIOD_RANGE: (f64, f64) = (0.25, 1.5);
/// Range of a contact duration (fraction of the period).
pub const DURATION_RANGE: (f64, f64) = (0.1, 0.9);
/// Range of a start before it is read modulo 1.
pub const START_RANGE: (f64, f64) = (-0.5, 1.5);

/// The timing variables of a creature with the given feet: x = [T, d₀, s₁, d₁, …] in SI and
/// fractions; CMA works on the unit box u ∈ [0, 1]ⁿ mapped linearly onto the ranges.
#[derive(Debug, Clone, PartialEq)]
pub struct TimingSpace {
    pub feet: Vec<String>,
    /// Smallest and largest period searched (s); [`PERIOD_RANGE`] unless narrowed.
    pub period_range: (f64, f64),
}

/// A period range that is not 0 < shortest < longest (s), both finite.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
#[error("a period range needs 0 < shortest < longest (s), got {lo} to {hi}")]
pub struct PeriodRangeError {
    pub lo: f64,
    pub hi: f64,
}

/// Fails unless 0 < lo < hi (s) and both are finite.
pub fn check_period_range(lo: f64, hi: f64) -> Result<(), PeriodRangeError> {
    if !(lo.is_finite() && hi.is_finite() && lo > 0.0 && lo < hi) {
        return Err(PeriodRangeError { lo, hi });
    }
    Ok(())
}

impl TimingSpace {
    pub fn new(feet: Vec<String>) -> Self {
        assert!(!feet.is_empty(), "a gait needs at least one foot");
        Self {
            feet,
            period_range: PERIOD_RANGE,
        }
    }

    /// The same space with the period searched in [lo, hi] (s). Fails unless 0 < lo < hi and
    /// both are finite.
    pub fn with_period_range(mut self, lo: f64, hi: f64) -> Result<Self, PeriodRangeError> {
        check_period_range(lo, hi)?;
        self.period_range = (lo, hi);
        Ok(self)
    }

    pub fn dimension(&self) -> usize {
        2 * self.feet.len()
    }

    fn ranges(&self) -> Vec<(f64, f64)> {
        let mut r = vec![self.period_range, DURATION_RANGE];
        for _ in 1..self.feet.len() {
            r.push(START_RANGE);
            r.push(DURATION_RANGE);
        }
        r
    }

    /// Period and timings of unit-box coordinates `u`.
    pub fn decode(&self, u: &[f64]) -> (f64, Vec<FootTiming>) {
        let x: Vec<f64> = self
            .ranges()
            .iter()
            .zip(u)
            .map(|(&(lo, hi), &v)| lo + (hi - lo) * v.clamp(0.0, 1.0))
            .collect();
        let mut timings = vec![FootTiming {
            foot: self.feet[0].clone(),
            start: 0.0,
            duration: x[1],
        }];
        for k in 1..self.feet.len() {
            let start = x[2 * k].rem_euclid(1.0);
            // rem_euclid may round up to exactly 1.0 for tiny negative inputs.
            let start = if start >= 1.0 { 0.0 } else { start };
            timings.push(FootTiming {
                foot: self.feet[k].clone(),
                start,
                duration: x[2 * k + 1],
            });
        }
        (x[0], timings)
    }

    /// Unit-box coordinates of a period and timings (starts relative to the first foot's).
    pub fn encode(&self, period: f64, timings: &[FootTiming]) -> Vec<f64> {
        let unit = |(lo, hi): (f64, f64), v: f64| ((v - lo) / (hi - lo)).clamp(0.0, 1.0);
        let find = |name: &str| {
            timings
                .iter()
                .find(|t| t.foot == name)
                .expect("a timing per foot")
        };
        let first = find(&self.feet[0]);
        let mut u = vec![
            unit(self.period_range, period),
            unit(DURATION_RANGE, first.duration),
        ];
        for f in &self.feet[1..] {
            let t = find(f);
            u.push(unit(START_RANGE, (t.start - first.start).rem_euclid(1.0)));
            u.push(unit(DURATION_RANGE, t.duration));
        }
        u
    }

    /// The thesis's starting point: feet evenly spaced in a 1 s cycle, each down half of it (the
    /// period clamped into the range searched).
    pub fn initial(&self) -> Vec<f64> {
        let n = self.feet.len();
        let timings: Vec<FootTiming> = self
            .feet
            .iter()
            .enumerate()
            .map(|(k, f)| FootTiming {
                foot: f.clone(),
                start: k as f64 / n as f64,
                duration: 0.5,
            })
            .collect();
        let (lo, hi) = self.period_range;
        self.encode(1.0_f64.clamp(lo, hi), &timings)
    }
}

/// A sample's projection, as reported by the evaluator.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Projected {
    /// The gait objective at the projected point.
    pub cost: f64,
    /// Largest constraint violation (mass-normalised).
    pub max_violation: f64,
}

/// One evaluated sample.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Candidate {
    pub period: f64,
    pub timings: Vec<FootTiming>,
    /// `None`: the projection failed outright.
    pub projected: Option<Projected>,
}

impl Candidate {
    /// How it ranks (basin-CMA's rule, [`crate::optim::basin::verdict`]).
    pub fn verdict(&self, tolerance: f64) -> Verdict {
        crate::optim::basin::verdict(
            self.projected.as_ref().map(Projected::projection).as_ref(),
            tolerance,
        )
    }

    pub fn feasible(&self, tolerance: f64) -> bool {
        self.verdict(tolerance).is_feasible()
    }
}

impl Projected {
    /// As basin-CMA reads it: the timings are held fixed by the solve, so the sample stays
    /// where it was.
    fn projection(&self) -> Projection {
        Projection {
            objective: self.cost,
            violation: self.max_violation,
            moved_to: None,
        }
    }
}

#[derive(Debug, Clone)]
pub struct DiscoveryOptions {
    pub seed: u64,
    pub generations: usize,
    /// λ (default 4 + ⌊3 ln n⌋).
    pub population: Option<usize>,
    /// σ₀ in the unit box.
    pub sigma0: f64,
    /// Largest violation of a feasible projection (mass-normalised).
    pub feasibility_tolerance: f64,
}

impl Default for DiscoveryOptions {
    fn default() -> Self {
        Self {
            seed: 1,
            generations: 8,
            population: None,
            sigma0: 0.3,
            feasibility_tolerance: FEASIBILITY_TOLERANCE,
        }
    }
}

/// Progress after one generation.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct GenerationReport {
    pub generation: usize,
    /// This generation's samples and their projections.
    pub samples: Vec<Candidate>,
    /// The best feasible sample so far.
    pub best: Option<Candidate>,
}

/// The outcome of a discovery run.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct DiscoveryResult {
    pub best: Option<Candidate>,
    pub history: Vec<GenerationReport>,
    pub projections: usize,
}

/// Runs basin-CMA over the timings. `evaluate` projects a batch of (period, timings) samples and
/// returns one result per sample, in order (`None`: the solve failed). `progress` sees every
/// generation; returning `false` from it stops the run (cancellation).
pub fn discover(
    space: &TimingSpace,
    options: &DiscoveryOptions,
    evaluate: &mut dyn FnMut(&[(f64, Vec<FootTiming>)]) -> Vec<Option<Projected>>,
    progress: &mut dyn FnMut(&GenerationReport) -> bool,
) -> DiscoveryResult {
    let n = space.dimension();
    let cma_options = CmaesOptions {
        population: options.population,
        seed: options.seed,
        bounds: Some(Bounds::new(vec![0.0; n], vec![1.0; n]).expect("unit box")),
        tol_fun: 1e-9,
        tol_x: 1e-6,
        max_evaluations: None,
        active: true,
    };
    let tol = options.feasibility_tolerance;
    let mut basin = BasinCma::new(
        &space.initial(),
        options.sigma0,
        cma_options,
        RestartPolicy::Ipop,
        tol,
    );
    let mut result = DiscoveryResult {
        best: None,
        history: Vec::new(),
        projections: 0,
    };
    for generation in 0..options.generations {
        let mut evaluated: Vec<(f64, Vec<FootTiming>, Option<Projected>)> = Vec::new();
        basin.generation(&mut |samples: &[Vec<f64>]| -> Vec<Option<Projection>> {
            let decoded: Vec<(f64, Vec<FootTiming>)> =
                samples.iter().map(|u| space.decode(u)).collect();
            let mut projected = evaluate(&decoded);
            projected.resize(samples.len(), None);
            let out = projected
                .iter()
                .map(|p| p.as_ref().map(Projected::projection))
                .collect();
            evaluated = decoded
                .into_iter()
                .zip(projected)
                .map(|((period, timings), p)| (period, timings, p))
                .collect();
            out
        });
        result.projections += evaluated.len();
        let candidates: Vec<Candidate> = evaluated
            .into_iter()
            .map(|(period, timings, projected)| Candidate {
                period,
                timings,
                projected,
            })
            .collect();
        for c in &candidates {
            if c.feasible(tol)
                && result
                    .best
                    .as_ref()
                    .is_none_or(|b| c.verdict(tol).fitness() < b.verdict(tol).fitness())
            {
                result.best = Some(c.clone());
            }
        }
        let report = GenerationReport {
            generation,
            samples: candidates,
            best: result.best.clone(),
        };
        let go_on = progress(&report);
        result.history.push(report);
        if !go_on {
            break;
        }
    }
    result
}

#[cfg(test)]
mod tests {
    use super::*;

    fn biped() -> TimingSpace {
        TimingSpace::new(vec!["l_foot".into(), "r_foot".into()])
    }

    #[test]
    fn encode_and_decode_round_trip_with_starts_relative_to_the_first_foot() {
        let s = biped();
        let t = vec![
            FootTiming {
                foot: "r_foot".into(),
                start: 0.8,
                duration: 0.35,
            },
            FootTiming {
                foot: "l_foot".into(),
                start: 0.3,
                duration: 0.6,
            },
        ];
        let (period, back) = s.decode(&s.encode(0.7, &t));
        assert!((period - 0.7).abs() < 1e-12);
        assert_eq!(back[0].foot, "l_foot");
        assert_eq!(back[0].start, 0.0);
        assert!((back[0].duration - 0.6).abs() < 1e-12);
        assert_eq!(back[1].foot, "r_foot");
        assert!(
            (back[1].start - 0.5).abs() < 1e-12,
            "r starts half a cycle after l: {}",
            back[1].start
        );
        assert!((back[1].duration - 0.35).abs() < 1e-12);
        // The thesis's start: 1 s, evenly spaced, half the cycle down.
        let (p0, t0) = s.decode(&s.initial());
        assert!(
            (p0 - 1.0).abs() < 1e-12
                && (t0[1].start - 0.5).abs() < 1e-12
                && (t0[1].duration - 0.5).abs() < 1e-12
        );
        // Starts past the range's ends wrap into [0, 1).
        let (_, w) = s.decode(&[0.5, 0.5, 1.0, 0.5]);
        assert!(
            (w[1].start - 0.5).abs() < 1e-12,
            "1.5 reads as 0.5: {}",
            w[1].start
        );
        let (_, w) = s.decode(&[0.5, 0.5, 0.0, 0.5]);
        assert!(
            (w[1].start - 0.5).abs() < 1e-12,
            "−0.5 reads as 0.5: {}",
            w[1].start
        );
    }

    /// A synthetic landscape over the timings with its optimum at T = 0.6 s, duty factors 0.7
    /// and 0.4, feet 0.3 of a cycle apart; samples with a duty factor above 0.85 "fail". The
    /// search must end within 0.02 of the optimum in every variable, and never report a failed
    /// sample as the best.
    #[test]
    fn discovery_finds_the_optimum_of_a_synthetic_timing_landscape_and_ranks_failures_last() {
        let s = biped();
        let cost = |p: f64, t: &[FootTiming]| {
            let phase = (t[1].start - 0.3 + 0.5).rem_euclid(1.0) - 0.5;
            10.0 + (p - 0.6).powi(2) * 50.0
                + (t[0].duration - 0.7).powi(2) * 30.0
                + (t[1].duration - 0.4).powi(2) * 30.0
                + phase * phase * 40.0
        };
        let mut failures = 0;
        let mut evaluate = |batch: &[(f64, Vec<FootTiming>)]| -> Vec<Option<Projected>> {
            batch
                .iter()
                .map(|(p, t)| {
                    if t.iter().any(|w| w.duration > 0.85) {
                        failures += 1;
                        Some(Projected {
                            cost: 1.0,
                            max_violation: 0.5,
                        })
                    } else {
                        Some(Projected {
                            cost: cost(*p, t),
                            max_violation: 1e-9,
                        })
                    }
                })
                .collect()
        };
        let options = DiscoveryOptions {
            generations: 120,
            seed: 3,
            ..Default::default()
        };
        let r = discover(&s, &options, &mut evaluate, &mut |_| true);
        let best = r.best.expect("feasible samples exist");
        assert!((best.period - 0.6).abs() < 0.02, "period {}", best.period);
        assert!(
            (best.timings[0].duration - 0.7).abs() < 0.02,
            "left duty {}",
            best.timings[0].duration
        );
        assert!(
            (best.timings[1].duration - 0.4).abs() < 0.02,
            "right duty {}",
            best.timings[1].duration
        );
        assert!(
            (best.timings[1].start - 0.3).abs() < 0.02,
            "offset {}",
            best.timings[1].start
        );
        assert!(best.projected.unwrap().cost < 10.05);
        assert!(
            failures > 0,
            "the wide initial distribution reaches the failing region"
        );
        assert_eq!(r.history.len(), 120);
    }

    /// A feasible projection costing the sample's period.
    fn cost_is_the_period(batch: &[(f64, Vec<FootTiming>)]) -> Vec<Option<Projected>> {
        batch
            .iter()
            .map(|(p, _)| {
                Some(Projected {
                    cost: *p,
                    max_violation: 0.0,
                })
            })
            .collect()
    }

    /// A narrowed period range bounds every sample and moves the thesis's 1 s start inside it;
    /// a cost that falls with the period drives the search to the range's short end, not the
    /// default box's 0.25 s.
    #[test]
    fn a_narrowed_period_range_bounds_every_sample() {
        assert!(biped().with_period_range(0.6, 0.4).is_err());
        assert!(biped().with_period_range(0.0, 1.0).is_err());
        assert!(biped().with_period_range(0.5, f64::INFINITY).is_err());
        let s = biped().with_period_range(0.45, 0.9).unwrap();
        let (p0, _) = s.decode(&s.initial());
        assert!((p0 - 0.9).abs() < 1e-12, "1 s clamps to 0.9: {p0}");
        let mut periods = Vec::new();
        let r = discover(
            &s,
            &DiscoveryOptions {
                generations: 40,
                ..Default::default()
            },
            &mut |b| {
                periods.extend(b.iter().map(|s| s.0));
                cost_is_the_period(b)
            },
            &mut |_| true,
        );
        assert!(periods.iter().all(|p| (0.45..=0.9).contains(p)));
        let best = r.best.unwrap().period;
        assert!((best - 0.45).abs() < 0.01, "the short end: {best}");
    }

    #[test]
    fn progress_can_stop_the_run() {
        let s = TimingSpace::new(vec!["foot".into()]);
        let mut calls = 0;
        let r = discover(
            &s,
            &DiscoveryOptions {
                generations: 50,
                ..Default::default()
            },
            &mut cost_is_the_period,
            &mut |g| {
                calls += 1;
                g.generation < 2
            },
        );
        assert_eq!(calls, 3);
        assert_eq!(r.history.len(), 3);
        let best = r.best.unwrap();
        assert!(
            best.period >= PERIOD_RANGE.0 && best.period < 1.0,
            "cost = period pulls it down: {}",
            best.period
        );
    }
}
