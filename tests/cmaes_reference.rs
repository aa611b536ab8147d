//! Our CMA-ES ([`motionlab::optim::Cmaes`]) beside the `cmaes` crate (0.2) as a reference
//! (the push-style `cmaes` crate serves as a reference in tests only; issue P8, deliverable 4).
//!
//! Protocol of pycma's reference runs: n = 10, x0 = 0.1·(1, …, 1), σ0 = 0.5,
//! the default population λ = 4 + ⌊3 ln n⌋ = 10, a run ends when the best f ≤ 1e-8; sphere
//! Σ xᵢ², ellipsoid Σ 10^(6 i/(n−1)) xᵢ², Rosenbrock Σ 100 (xᵢ₊₁ − xᵢ²)² + (1 − xᵢ)². Both
//! implementations run seeds 1–5 on each function and every run must reach 1e-8; the MEDIAN
//! evaluation counts are compared, ours ≤ 1.15 × the reference's (fewer is fine). Medians of
//! counts, no timing and no exact counts, so the test holds on every machine.

use cmaes::{CMAESOptions, DVector, TerminationReason};
use motionlab::optim::{AskTell, Cmaes, CmaesOptions};
use std::cell::Cell;

const N: usize = 10;
const X0: f64 = 0.1;
const SIGMA0: f64 = 0.5;
const TARGET: f64 = 1e-8;
const SEEDS: [u64; 5] = [1, 2, 3, 4, 5];
/// Generous cap for either implementation; the expected counts are a few thousand.
const MAX_EVALS: usize = 100_000;
/// Ours may use at most this factor of the reference's median evaluations.
const TOLERANCE: f64 = 1.15;

/// λ = 4 + ⌊3 ln n⌋, the default of both implementations (and pycma's).
fn default_population(n: usize) -> usize {
    4 + (3.0 * (n as f64).ln()).floor() as usize
}

fn sphere(x: &[f64]) -> f64 {
    x.iter().map(|v| v * v).sum()
}

fn ellipsoid(x: &[f64]) -> f64 {
    let n = x.len();
    x.iter()
        .enumerate()
        .map(|(i, v)| 10f64.powf(6.0 * i as f64 / (n - 1) as f64) * v * v)
        .sum()
}

fn rosenbrock(x: &[f64]) -> f64 {
    x.windows(2)
        .map(|w| 100.0 * (w[1] - w[0] * w[0]).powi(2) + (1.0 - w[0]).powi(2))
        .sum()
}

/// A named objective.
type Function = (&'static str, fn(&[f64]) -> f64);

const FUNCTIONS: [Function; 3] = [
    ("sphere", sphere),
    ("ellipsoid", ellipsoid),
    ("rosenbrock", rosenbrock),
];

/// Evaluations our CMA-ES needs until its best f ≤ 1e-8, serial ask/tell.
fn ours(name: &str, f: fn(&[f64]) -> f64, seed: u64) -> u64 {
    let options = CmaesOptions {
        seed,
        max_evaluations: Some(MAX_EVALS as u64),
        ..CmaesOptions::default()
    };
    let mut es = Cmaes::new(&[X0; N], SIGMA0, options);
    assert_eq!(es.population(), default_population(N));
    let mut counted = 0u64;
    while es.best().is_none_or(|(_, v)| v > TARGET) {
        if let Some(reason) = es.should_stop() {
            panic!(
                "ours, {name} seed {seed}: stopped ({reason:?}) at {} evaluations with best {:?}, \
                 before reaching {TARGET:e}",
                es.evaluations(),
                es.best().map(|(_, v)| v)
            );
        }
        es.step(|x| {
            counted += 1;
            f(x)
        });
    }
    assert_eq!(es.evaluations(), counted, "ours, {name} seed {seed}");
    let (x, v) = es.best().unwrap();
    assert!(
        v <= TARGET && f(x) == v,
        "ours, {name} seed {seed}: best {v:e}"
    );
    counted
}

/// Evaluations the `cmaes` crate needs until its best f ≤ 1e-8 (its `fun_target`).
fn reference(name: &str, f: fn(&[f64]) -> f64, seed: u64) -> u64 {
    // The objective is `FnMut`, but a `Cell` counter stays readable while the closure is borrowed.
    let counted = Cell::new(0usize);
    let objective = |x: &DVector<f64>| {
        counted.set(counted.get() + 1);
        f(x.as_slice())
    };
    let mut es = CMAESOptions::new(vec![X0; N], SIGMA0)
        .population_size(default_population(N))
        .seed(seed)
        .fun_target(TARGET)
        .max_function_evals(MAX_EVALS)
        .build(objective)
        .unwrap_or_else(|e| panic!("cmaes options: {e:?}"));
    let result = es.run();
    let evals = es.function_evals();
    assert!(
        result.reasons.contains(&TerminationReason::FunTarget),
        "reference, {name} seed {seed}: stopped ({:?}) at {evals} evaluations without reaching {TARGET:e}",
        result.reasons
    );
    let best = result.overall_best.expect("reference: a best individual");
    assert!(
        best.value <= TARGET && f(best.point.as_slice()) == best.value,
        "reference, {name} seed {seed}: best {:e}",
        best.value
    );
    assert_eq!(evals, counted.get(), "reference, {name} seed {seed}");
    evals as u64
}

fn median(mut v: Vec<u64>) -> u64 {
    v.sort_unstable();
    v[v.len() / 2]
}

#[test]
fn evaluations_to_1e8_within_15_percent_of_the_cmaes_crate() {
    let mut failures = Vec::new();
    for (name, f) in FUNCTIONS {
        let our_counts: Vec<u64> = SEEDS.iter().map(|&s| ours(name, f, s)).collect();
        let their_counts: Vec<u64> = SEEDS.iter().map(|&s| reference(name, f, s)).collect();
        let (m_ours, m_theirs) = (median(our_counts.clone()), median(their_counts.clone()));
        println!(
            "{name:<10} ours median {m_ours:>5} {our_counts:?}   cmaes crate median {m_theirs:>5} \
             {their_counts:?}   ratio {:.3}",
            m_ours as f64 / m_theirs as f64
        );
        if m_ours as f64 > TOLERANCE * m_theirs as f64 {
            failures.push(format!(
                "{name}: ours {m_ours} > {TOLERANCE} × reference {m_theirs}"
            ));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("; "));
}
