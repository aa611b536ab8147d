//! One generation of any search: ask the optimizer, evaluate the batch, judge each outcome,
//! tell. The searches of the project (the diversity search, Pareto fronts, a task's preparation,
//! gait discovery, basin-CMA on CEC 2006) all run their generations through here, so they share
//! one rule for failures ([`Verdict`]) and one seam for evaluation ([`Evaluate`]): a batch of
//! points in, their outcomes out in the same order, computed however the caller likes (rayon
//! threads, worker processes, machines). Outcomes are consumed in index order, never in the
//! order they finish, so the same seed gives the same bits however the batch is spread. The
//! scheduler never evaluates itself (the pattern of pyribs' ask/tell schedulers).

use super::{AskTell, Params};

/// What an infeasible candidate is told above: every feasible value of the project's searches
/// lies below it. Infeasible candidates rank among themselves by their secondary value (a
/// violation, or a negated distance), at the resolution of an f64 near 1e12 (about 1.2e-4).
pub const INFEASIBLE_OFFSET: f64 = 1e12;

/// How one evaluated candidate ranks, the same rule in every search: feasible candidates by
/// their value, then infeasible ones by their secondary value, then failures (a rollout that
/// blew up, a solve that did not return, NaN).
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Verdict {
    Feasible(f64),
    Infeasible(f64),
    Failed,
}

impl Verdict {
    /// A value that is feasible when `feasible`, failed when not finite.
    pub fn of(value: f64, feasible: bool) -> Verdict {
        match (value.is_finite(), feasible) {
            (false, _) => Verdict::Failed,
            (true, true) => Verdict::Feasible(value),
            (true, false) => Verdict::Infeasible(value),
        }
    }

    /// The fitness the optimizer is told (lower is better): the value; [`INFEASIBLE_OFFSET`]
    /// plus the secondary value; +∞.
    pub fn fitness(self) -> f64 {
        match self {
            Verdict::Feasible(v) => v,
            Verdict::Infeasible(v) => INFEASIBLE_OFFSET + v,
            Verdict::Failed => f64::INFINITY,
        }
    }

    pub fn is_feasible(self) -> bool {
        matches!(self, Verdict::Feasible(_))
    }
}

/// Evaluates a batch of points and returns one outcome per point, in order (fewer at the end
/// when it stopped early: the missing count as failures). The seam where evaluation is spread
/// over threads, processes or machines.
pub trait Evaluate<O> {
    fn evaluate(&mut self, points: &[Params]) -> Vec<O>;
}

impl<O, F: FnMut(&[Params]) -> Vec<O>> Evaluate<O> for F {
    fn evaluate(&mut self, points: &[Params]) -> Vec<O> {
        self(points)
    }
}

/// A pure function of one point evaluated on rayon threads (a pool of the caller's, or the
/// global one), outcomes in index order.
pub struct OnThreads<'p, F> {
    pub pool: Option<&'p rayon::ThreadPool>,
    pub f: F,
}

impl<O: Send, F: Fn(&[f64]) -> O + Sync> Evaluate<O> for OnThreads<'_, F> {
    fn evaluate(&mut self, points: &[Params]) -> Vec<O> {
        use rayon::prelude::*;
        let run = || points.par_iter().map(|x| (self.f)(x)).collect();
        match self.pool {
            Some(p) => p.install(run),
            None => run(),
        }
    }
}

/// What the judge says of one outcome: its verdict, and where to tell it when not at the
/// sample itself (basin-CMA tells a feasible projection at the projected point).
#[derive(Clone, Debug, PartialEq)]
pub struct Judged {
    pub verdict: Verdict,
    pub tell_at: Option<Params>,
}

impl From<Verdict> for Judged {
    fn from(verdict: Verdict) -> Self {
        Judged {
            verdict,
            tell_at: None,
        }
    }
}

/// One generation as it went.
#[derive(Clone, Debug)]
pub struct Generation<O> {
    /// The points asked.
    pub points: Vec<Params>,
    /// Their outcomes (`None`: the evaluation stopped before it).
    pub outcomes: Vec<Option<O>>,
    pub verdicts: Vec<Verdict>,
}

impl<O> Generation<O> {
    /// The index of the best candidate (lowest fitness, first among equals), if any is not a
    /// failure.
    pub fn best(&self) -> Option<usize> {
        let mut best: Option<usize> = None;
        for (i, v) in self.verdicts.iter().enumerate() {
            if *v != Verdict::Failed
                && best.is_none_or(|b| v.fitness() < self.verdicts[b].fitness())
            {
                best = Some(i);
            }
        }
        best
    }
}

/// Asks `search` for a batch, evaluates it with `evaluate`, judges each outcome with `judge`
/// and tells the fitnesses (a missing outcome is a failure).
pub fn generation<S: AskTell + ?Sized, O>(
    search: &mut S,
    evaluate: &mut dyn Evaluate<O>,
    judge: &mut dyn FnMut(&[f64], &O) -> Judged,
) -> Generation<O> {
    let points = search.ask();
    let mut outcomes: Vec<Option<O>> = evaluate.evaluate(&points).into_iter().map(Some).collect();
    outcomes.truncate(points.len());
    outcomes.resize_with(points.len(), || None);
    let judged: Vec<Judged> = points
        .iter()
        .zip(&outcomes)
        .map(|(x, o)| match o {
            Some(o) => judge(x, o),
            None => Verdict::Failed.into(),
        })
        .collect();
    tell(search, &points, &judged);
    Generation {
        points,
        outcomes,
        verdicts: judged.into_iter().map(|j| j.verdict).collect(),
    }
}

/// The second half of [`generation`], for a search that asks and evaluates itself: tells
/// `search` the fitness of each judged point (a point without a judgement failed).
pub fn tell<S: AskTell + ?Sized>(search: &mut S, points: &[Params], judged: &[Judged]) {
    let told: Vec<(Params, f64)> = points
        .iter()
        .enumerate()
        .map(|(i, x)| match judged.get(i) {
            Some(j) => (
                j.tell_at.clone().unwrap_or_else(|| x.clone()),
                j.verdict.fitness(),
            ),
            None => (x.clone(), Verdict::Failed.fitness()),
        })
        .collect();
    search.tell(&told);
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::optim::{Cmaes, CmaesOptions};

    #[test]
    fn feasible_then_infeasible_by_violation_then_failed() {
        let order = [
            Verdict::Feasible(-3.0),
            Verdict::Feasible(5e11),
            Verdict::Infeasible(0.0),
            Verdict::Infeasible(0.5),
            Verdict::Failed,
        ];
        for w in order.windows(2) {
            assert!(
                w[0].fitness() < w[1].fitness(),
                "{:?} before {:?}",
                w[0],
                w[1]
            );
        }
        assert_eq!(Verdict::of(f64::NAN, true), Verdict::Failed);
        assert_eq!(Verdict::of(2.0, false), Verdict::Infeasible(2.0));
    }

    /// A constrained sphere (feasible when x₀ ≥ 0.5) through the scheduler: the failures it
    /// meets (NaN outcomes, a batch cut short) never win, and the search ends feasible, at the
    /// constrained optimum.
    #[test]
    fn a_constrained_search_through_the_scheduler_ends_feasible() {
        let mut es = Cmaes::new(
            &[-1.0, 1.0],
            0.5,
            CmaesOptions {
                seed: 3,
                ..Default::default()
            },
        );
        let mut evaluate = |xs: &[Params]| -> Vec<f64> {
            // Every fourth point fails; the last point of a batch is never evaluated.
            xs.iter()
                .take(xs.len() - 1)
                .enumerate()
                .map(|(i, x)| {
                    if i % 4 == 3 {
                        f64::NAN
                    } else {
                        x[0] * x[0] + x[1] * x[1]
                    }
                })
                .collect()
        };
        let mut best = (f64::INFINITY, vec![]);
        for _ in 0..150 {
            let g = generation(&mut es, &mut evaluate, &mut |x, v| {
                Verdict::of(*v, x[0] >= 0.5).into()
            });
            assert_eq!(g.outcomes.len(), g.points.len());
            assert!(g.outcomes.last().unwrap().is_none());
            if let Some(b) = g.best()
                && g.verdicts[b].is_feasible()
                && g.verdicts[b].fitness() < best.0
            {
                best = (g.verdicts[b].fitness(), g.points[b].clone());
            }
        }
        assert!(best.1[0] >= 0.5 && (best.0 - 0.25).abs() < 1e-3, "{best:?}");
    }

    #[test]
    fn threads_give_the_outcomes_in_index_order() {
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(2)
            .build()
            .unwrap();
        let mut on = OnThreads {
            pool: Some(&pool),
            f: |x: &[f64]| x[0] * 2.0,
        };
        let xs: Vec<Params> = (0..50).map(|i| vec![i as f64]).collect();
        let out = on.evaluate(&xs);
        assert_eq!(out, (0..50).map(|i| 2.0 * i as f64).collect::<Vec<_>>());
    }
}
