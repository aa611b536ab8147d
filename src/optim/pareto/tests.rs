//! MO-CMA-ES behaviour: convergence on a convex problem and ZDT1, checkpoint/resume,
//! determinism, failures, and the RMOO resampling interface (Agrawal 2015, thesis §4.4.2–4.4.3).

use super::super::{Bounds, Params};
use super::*;
use std::time::Instant;

fn convex(x: &[f64]) -> Objectives {
    let f1 = x.iter().map(|v| v * v).sum();
    let f2 = x
        .iter()
        .enumerate()
        .map(|(i, v)| if i == 0 { (v - 2.0).powi(2) } else { v * v })
        .sum();
    [f1, f2]
}

fn zdt1(x: &[f64]) -> Objectives {
    let n = x.len() as f64;
    let g = 1.0 + 9.0 * x[1..].iter().sum::<f64>() / (n - 1.0);
    [x[0], g * (1.0 - (x[0] / g).sqrt())]
}

/// Hypervolume of 2000 evenly spaced points of a parameterized true front.
fn true_front_hypervolume(front: impl Fn(f64) -> Objectives, reference: Objectives) -> f64 {
    let points: Vec<Objectives> = (0..2000).map(|i| front(i as f64 / 1999.0)).collect();
    hypervolume(&points, reference)
}

/// Hypervolume of the best `mu` points of a parameterized front f(t), t ∈ [0, 1], with both
/// ends included (they have infinite contribution in the selection): coordinate-wise
/// maximization of each interior point's exclusive rectangle between its neighbours.
fn best_subset_hypervolume(
    front: impl Fn(f64) -> Objectives,
    mu: usize,
    reference: Objectives,
) -> f64 {
    let mut t: Vec<f64> = (0..mu).map(|i| i as f64 / (mu - 1) as f64).collect();
    for _ in 0..100 {
        for i in 1..mu - 1 {
            let (lo, hi) = (t[i - 1], t[i + 1]);
            let (right, top) = (front(hi)[0], front(lo)[1]);
            let area = |u: f64| {
                let p = front(u);
                (right - p[0]) * (top - p[1])
            };
            t[i] = (0..=200)
                .map(|k| lo + (hi - lo) * k as f64 / 200.0)
                .max_by(|a, b| area(*a).total_cmp(&area(*b)))
                .unwrap();
        }
    }
    let points: Vec<Objectives> = t.iter().map(|&u| front(u)).collect();
    hypervolume(&points, reference)
}

fn bits(front: &[(Vec<f64>, Objectives)]) -> Vec<Vec<u64>> {
    front
        .iter()
        .map(|(x, f)| x.iter().chain(f).map(|v| v.to_bits()).collect())
        .collect()
}

fn convex_front(t: f64) -> Objectives {
    [4.0 * t * t, 4.0 * (1.0 - t) * (1.0 - t)]
}

/// Runs the convex problem (n = 5, µ = 16, x0 = 1) and returns the hypervolume w.r.t. (5, 5).
fn run_convex(selection: Selection, generations: usize) -> (MoCmaes, f64) {
    let x0 = vec![1.0; 5];
    let mut es = MoCmaes::new(
        &x0,
        convex(&x0),
        MoCmaesOptions {
            mu: 16,
            seed: 3,
            sigma0: 0.5,
            selection,
            ..Default::default()
        },
    );
    for _ in 0..generations {
        es.step(convex);
    }
    let hv = es.hypervolume([5.0, 5.0]);
    (es, hv)
}

#[test]
fn converges_on_a_convex_problem() {
    // f1 = ‖x‖², f2 = ‖x − 2e₁‖²; Pareto set x = 2t·e₁, t ∈ [0, 1], front (4t², 4(1 − t)²).
    let start = Instant::now();
    let reference = [5.0, 5.0];
    let optimum = true_front_hypervolume(convex_front, reference);
    // No 16 points reach the continuous front's hypervolume: this is the best they can do.
    let best16 = best_subset_hypervolume(convex_front, 16, reference);
    let (es, achieved) = run_convex(Selection::Greedy, 500);
    eprintln!(
        "convex n=5, µ=16, 500 generations: HV {achieved:.5}, continuous front {optimum:.5} \
         ({:.3} %), best 16 points {best16:.5} ({:.3} %), {:?}",
        100.0 * achieved / optimum,
        100.0 * achieved / best16,
        start.elapsed()
    );
    assert_eq!(es.evaluations(), 500 * 16);
    assert_eq!(es.generation(), 500);
    assert!(achieved >= 0.98 * optimum, "{achieved} vs {optimum}");
    assert!(achieved >= 0.995 * best16, "{achieved} vs {best16}");
    assert!(achieved <= best16 * (1.0 + 1e-6));
    assert_eq!(es.front().len(), 16);
    es.check_state().unwrap();
    // The one-shot order of Eq. 4.16 converges too, to a less even spread.
    let (_, sorted) = run_convex(Selection::Sorted, 500);
    eprintln!(
        "convex, one-shot Eq. 4.16 truncation: HV {sorted:.5} ({:.3} % of the continuous front)",
        100.0 * sorted / optimum
    );
    assert!(sorted >= 0.965 * optimum, "{sorted} vs {optimum}");
}

#[test]
fn reaches_the_zdt1_front() {
    let start = Instant::now();
    let n = 10;
    let reference = [1.1, 1.1];
    let front = |t: f64| [t, 1.0 - t.sqrt()];
    let optimum = true_front_hypervolume(front, reference);
    let best16 = best_subset_hypervolume(front, 16, reference);
    let bounds = Bounds::new(vec![0.0; n], vec![1.0; n]).unwrap();
    let x0 = vec![0.5; n];
    let mut es = MoCmaes::new(
        &x0,
        zdt1(&x0),
        MoCmaesOptions {
            mu: 16,
            seed: 5,
            sigma0: 0.1,
            bounds: Some(bounds.clone()),
            reference: Some(reference),
            ..Default::default()
        },
    );
    for _ in 0..1000 {
        es.step(|x| {
            assert!(bounds.contains(x), "{x:?} outside the box");
            zdt1(x)
        });
    }
    let achieved = es.hypervolume(reference);
    eprintln!(
        "ZDT1 n=10, µ=16, 1000 generations: HV {achieved:.5}, continuous front {optimum:.5} \
         ({:.3} %), best 16 points {best16:.5} ({:.3} %), {:?}",
        100.0 * achieved / optimum,
        100.0 * achieved / best16,
        start.elapsed()
    );
    assert!(achieved >= 0.95 * optimum, "{achieved} vs {optimum}");
}

#[test]
fn checkpoint_resume_is_bit_identical() {
    // Starts from a failed point and fails where x₁ > 0.5, so NaN objectives are serialized.
    let f = |x: &[f64]| {
        if x[1] > 0.5 {
            [f64::NAN, f64::NAN]
        } else {
            convex(x)
        }
    };
    let options = MoCmaesOptions {
        mu: 8,
        seed: 9,
        sigma0: 0.3,
        ..Default::default()
    };
    let mut a = MoCmaes::new(&[0.0, 1.0, 0.5], [f64::NAN, f64::NAN], options.clone());
    let mut b = MoCmaes::new(&[0.0, 1.0, 0.5], [f64::NAN, f64::NAN], options.clone());
    for _ in 0..3 {
        a.step(f);
    }
    // A state with NaN parents, checkpointed between two generations.
    assert!(a.parents().iter().any(|p| p.failed));
    let text = ron::to_string(&a).unwrap();
    let mut resumed: MoCmaes = crate::files::from_ron(&text).unwrap();
    resumed.check_state().unwrap();
    for _ in 0..40 {
        a.step(f);
        resumed.step(f);
    }
    assert_eq!(bits(&a.front()), bits(&resumed.front()));
    // Checkpointed between ask and tell: the pending points survive the round trip.
    let asked = a.ask();
    let text = ron::to_string(&a).unwrap();
    let mut resumed: MoCmaes = crate::files::from_ron(&text).unwrap();
    assert_eq!(resumed.pending().len(), asked.len());
    let told: Vec<(Params, Objectives)> = asked.iter().map(|x| (x.clone(), f(x))).collect();
    a.tell(told.clone());
    resumed.tell(told);
    for _ in 0..40 {
        a.step(f);
        resumed.step(f);
    }
    assert_eq!(bits(&a.front()), bits(&resumed.front()));
    assert_eq!(
        ron::to_string(&a).unwrap(),
        ron::to_string(&resumed).unwrap()
    );
    // The same seed without interruption gives the same run; another seed another run.
    for _ in 0..3 + 40 {
        b.step(f);
    }
    let asked_b = b.ask();
    assert_eq!(asked, asked_b);
    b.tell(asked_b.iter().map(|x| (x.clone(), f(x))).collect());
    for _ in 0..40 {
        b.step(f);
    }
    assert_eq!(bits(&a.front()), bits(&b.front()));
    let mut c = MoCmaes::new(
        &[0.0, 1.0, 0.5],
        [f64::NAN, f64::NAN],
        MoCmaesOptions {
            seed: 10,
            ..options
        },
    );
    for _ in 0..20 {
        c.step(f);
    }
    assert_ne!(bits(&a.front()), bits(&c.front()));
}

#[test]
fn failures_never_displace_finite_points() {
    // About 40 % of the evaluations fail (NaN or −∞, which must not count as "best").
    let f = |x: &[f64]| {
        let h = (x[0] * 1e4).rem_euclid(1.0);
        if h < 0.2 {
            [f64::NAN, 0.0]
        } else if h < 0.4 {
            [f64::NEG_INFINITY, f64::NEG_INFINITY]
        } else {
            convex(x)
        }
    };
    let mu = 10;
    let mut es = MoCmaes::new(
        &[3.0, 3.0, 3.0, 3.0],
        [f64::NAN, f64::NAN],
        MoCmaesOptions {
            mu,
            seed: 2,
            sigma0: 0.5,
            ..Default::default()
        },
    );
    let mut failures = 0;
    for _ in 0..300 {
        let before = es.parents().iter().filter(|p| !p.failed).count();
        let told: Vec<(Params, Objectives)> =
            es.ask().into_iter().map(|x| (x.clone(), f(&x))).collect();
        let finite_told = told.iter().filter(|t| is_feasible(t.1)).count();
        failures += told.len() - finite_told;
        es.tell(told);
        let after = es.parents().iter().filter(|p| !p.failed).count();
        assert_eq!(after, (before + finite_told).min(mu));
        for p in es.parents() {
            assert_eq!(p.failed, !is_feasible(p.objectives));
        }
    }
    assert!(failures > 1000, "{failures}");
    // Finite parents come first in the order of the parents.
    let failed: Vec<bool> = es.parents().iter().map(|p| p.failed).collect();
    assert!(failed.windows(2).all(|w| !w[0] || w[1]));
    assert!(es.front().iter().all(|(_, o)| is_feasible(*o)));
    assert!(es.hypervolume([5.0, 5.0]) > 0.9 * 22.0);
}

#[test]
fn rmoo_resampling_interface() {
    // RMOO (thesis §4.4.3): resample the parents whose offspring failed until at most 3 are bad,
    // then tell only the good samples with their parents.
    let f = |x: &[f64]| {
        if x[0] > 1.6 || x[2] > 0.3 {
            [f64::NAN, f64::NAN]
        } else {
            convex(x)
        }
    };
    let x0 = [0.5, 0.0, 0.0];
    let mut es = MoCmaes::new(
        &x0,
        f(&x0),
        MoCmaesOptions {
            mu: 16,
            seed: 4,
            sigma0: 0.3,
            ..Default::default()
        },
    );
    let mut evaluations = 0;
    for _ in 0..150 {
        let asked = es.ask();
        let mut samples: Vec<Offspring> = asked
            .into_iter()
            .enumerate()
            .map(|(k, x)| Offspring {
                parent: k,
                objectives: f(&x),
                x,
            })
            .collect();
        evaluations += samples.len();
        for _ in 0..20 {
            let bad: Vec<usize> = (0..samples.len())
                .filter(|&i| !is_feasible(samples[i].objectives))
                .collect();
            if bad.len() <= 3 {
                break;
            }
            let parents: Vec<usize> = bad.iter().map(|&i| samples[i].parent).collect();
            let fresh = es.resample(&parents);
            assert_eq!(fresh.len(), parents.len());
            for (&i, x) in bad.iter().zip(fresh) {
                evaluations += 1;
                samples[i] = Offspring {
                    parent: samples[i].parent,
                    objectives: f(&x),
                    x,
                };
            }
        }
        es.tell_offspring(samples);
        assert!(es.pending().is_empty());
    }
    assert_eq!(es.evaluations(), 150 * 16);
    assert!(evaluations as u64 > es.evaluations());
    let front = es.front();
    assert!(front.len() >= 12, "{}", front.len());
    assert!(front.iter().all(|(x, _)| x[0] <= 1.6 && x[2] <= 0.3));
    // Several offspring of one parent in one tell, and unknown points ignored by `tell`.
    let before = es.generation();
    let mut told: Vec<(Params, Objectives)> = es
        .resample(&[0, 0, 0, 5])
        .into_iter()
        .map(|x| (x.clone(), f(&x)))
        .collect();
    told.push((vec![9.0, 9.0, 9.0], [0.0, 0.0]));
    es.tell(told);
    assert_eq!(es.generation(), before + 1);
    assert!(es.parents().iter().all(|p| p.x != vec![9.0, 9.0, 9.0]));
    es.check_state().unwrap();
}

#[test]
fn initial_points() {
    let points: Vec<(Params, Objectives)> = (0..6)
        .map(|i| {
            let x = vec![0.4 * i as f64, 0.1];
            let f = convex(&x);
            (x, f)
        })
        .collect();
    // Fewer points than µ: repeated cyclically.
    let es = MoCmaes::from_points(
        &points,
        MoCmaesOptions {
            mu: 8,
            ..Default::default()
        },
    );
    assert_eq!(es.parents()[6].x, points[0].0);
    assert_eq!(es.front().len(), 8);
    // More points than µ: the best µ by ≺_s (the extremes first).
    let es = MoCmaes::from_points(
        &points,
        MoCmaesOptions {
            mu: 3,
            ..Default::default()
        },
    );
    let kept: Vec<Vec<f64>> = es.parents().iter().map(|p| p.x.clone()).collect();
    assert!(kept.contains(&points[0].0) && kept.contains(&points[5].0));
}
