use super::*;
use rayon::prelude::*;

/// The Fig. 2 toy of Agrawal et al. 2014 (§3): points in [0,1]², features = the point (squared
/// Euclidean distance), penalty 0 (the box bounds keep CMA inside).
struct Toy;

impl Evaluator for Toy {
    fn dimension(&self) -> usize {
        2
    }
    fn bounds(&self) -> Bounds {
        Bounds::new(vec![0.0; 2], vec![1.0; 2]).unwrap()
    }
    fn evaluate(&self, p: &[f64]) -> Outcome {
        Outcome {
            penalty: 0.0,
            features: p.to_vec(),
            shape: p.to_vec(),
            hash: 0,
        }
    }
}

/// The reference point: offset from the corner (0, 0), like the red dot of Fig. 2. (From the
/// centre (0.5, 0.5) every K > 0 reaches the four corners; the corner offset is what lets the
/// d_min term trap points, see `KPlacement`.)
const REF: [f64; 2] = [0.1, 0.1];

fn serial(xs: &[Vec<f64>]) -> Vec<Outcome> {
    xs.iter().map(|x| Toy.evaluate(x)).collect()
}

fn parallel(xs: &[Vec<f64>]) -> Vec<Outcome> {
    xs.par_iter().map(|x| Toy.evaluate(x)).collect()
}

fn toy_settings(k: f64, placement: KPlacement, seed: u64, generations: u64) -> SearchSettings {
    SearchSettings {
        k,
        placement,
        seed,
        max_generations: generations,
        stall_generations: 0,
        ..Default::default()
    }
}

/// Final points [M_0, M_1..M_N].
fn toy_points(s: &DiversitySearch) -> Vec<Vec<f64>> {
    let mut v = vec![s.x0().to_vec()];
    v.extend(s.incumbents().iter().map(|i| i.params.clone()));
    v
}

fn dist(a: &[f64], b: &[f64]) -> f64 {
    a.iter()
        .zip(b)
        .map(|(x, y)| (x - y) * (x - y))
        .sum::<f64>()
        .sqrt()
}

/// Smallest Euclidean distance between any two of the given points.
fn min_pairwise(points: &[Vec<f64>]) -> f64 {
    let mut m = f64::INFINITY;
    for i in 0..points.len() {
        for j in i + 1..points.len() {
            m = m.min(dist(&points[i], &points[j]));
        }
    }
    m
}

fn corner_distance(p: &[f64]) -> f64 {
    let dx = p[0].min(1.0 - p[0]);
    let dy = p[1].min(1.0 - p[1]);
    (dx * dx + dy * dy).sqrt()
}

/// Mean distance of M_1..M_N to their nearest corner of the box.
fn mean_corner_distance(points: &[Vec<f64>]) -> f64 {
    points[1..].iter().map(|p| corner_distance(p)).sum::<f64>() / (points.len() - 1) as f64
}

struct Fig2 {
    /// Seeds in which two of M_1..M_4 end within 0.05 of each other.
    clustered: usize,
    /// Seeds in which all of M_1..M_4 end within 0.05 of a corner.
    all_at_corners: usize,
    /// Mean over seeds of the mean corner distance.
    corner: f64,
    /// Smallest pairwise distance among M_0..M_4 over all seeds.
    min_pair: f64,
}

const SEEDS: u64 = 8;

fn fig2(k: f64, placement: KPlacement) -> Fig2 {
    let mut f = Fig2 {
        clustered: 0,
        all_at_corners: 0,
        corner: 0.0,
        min_pair: f64::INFINITY,
    };
    for seed in 1..=SEEDS {
        let s = run(&Toy, &REF, toy_settings(k, placement, seed, 300), false).unwrap();
        let p = toy_points(&s);
        if min_pairwise(&p[1..]) < 0.05 {
            f.clustered += 1;
        }
        if p[1..].iter().all(|q| corner_distance(q) < 0.05) {
            f.all_at_corners += 1;
        }
        f.corner += mean_corner_distance(&p) / SEEDS as f64;
        f.min_pair = f.min_pair.min(min_pairwise(&p));
    }
    println!(
        "{placement:?} K={k}: clustered {}/{SEEDS}, all at corners {}/{SEEDS}, mean corner distance {:.3}, min pair {:.3}",
        f.clustered, f.all_at_corners, f.corner, f.min_pair
    );
    f
}

// Geometry of the toy with M_0 at (0.1, 0.1) in [0,1]²: the global optimum of D for every K > 0
// is the four corners, whose smallest pairwise distance is |M_0 − (0,0)| = √0.02 ≈ 0.141; a
// "cluster" is two variants at the same corner (distance ≈ 0), "at the extremes" is within 0.05
// of a corner. The thresholds below follow from that geometry, not from a particular run.
#[test]
fn fig2_k0_clusters_at_extremal_points() {
    let f = fig2(0.0, KPlacement::default());
    // Without the d_min term nothing separates two variants at the same corner.
    assert!(
        f.clustered >= SEEDS as usize / 2,
        "clustered in {}/{SEEDS} seeds",
        f.clustered
    );
    assert!(f.corner < 0.01, "mean corner distance {:.3}", f.corner);
}

#[test]
fn fig2_k10_spreads_to_the_extremes() {
    let f = fig2(10.0, KPlacement::default());
    // No cluster in any seed: the smallest distance is the M_0-to-corner distance √0.02.
    assert_eq!(f.clustered, 0);
    assert!(f.min_pair > 0.14, "min pairwise distance {:.3}", f.min_pair);
    // Most seeds reach the global optimum (all four corners).
    assert!(
        f.all_at_corners > SEEDS as usize / 2,
        "all at corners in {}/{SEEDS} seeds",
        f.all_at_corners
    );
    assert!(f.corner < 0.06, "mean corner distance {:.3}", f.corner);
}

#[test]
fn fig2_k100_fails_to_reach_the_extremes() {
    let k10 = fig2(10.0, KPlacement::default());
    let f = fig2(100.0, KPlacement::default());
    assert_eq!(f.clustered, 0);
    // The d_min term of the far variant traps its neighbours part-way along the edges.
    assert!(
        f.all_at_corners <= 1,
        "all at corners in {}/{SEEDS} seeds",
        f.all_at_corners
    );
    assert!(
        f.corner > 0.08 && f.corner > 2.0 * k10.corner,
        "mean corner distance {:.3} (K = 10: {:.3})",
        f.corner,
        k10.corner
    );
}

#[test]
fn fig2_outside_sum_k10_still_clusters() {
    // The reason InsideSum is the default: with K_eff = K = 10 the d_min term is too weak to
    // separate variants that reached the same corner.
    let f = fig2(10.0, KPlacement::OutsideSum);
    assert!(
        f.clustered >= SEEDS as usize / 2,
        "clustered in {}/{SEEDS} seeds",
        f.clustered
    );
}

fn outcome(p: &[f64], penalty: f64) -> Outcome {
    Outcome {
        penalty,
        features: p.to_vec(),
        shape: p.to_vec(),
        hash: 0,
    }
}

#[test]
fn d_min_excludes_self_and_d_matches_hand_computation() {
    // d(a,b) = 1, d(a,c) = 4, d(b,c) = 5 (squared Euclidean).
    let o = [
        outcome(&[0.0, 0.0], 0.5),
        outcome(&[1.0, 0.0], 0.0),
        outcome(&[0.0, 2.0], 1.0),
    ];
    let out = objective(&o, DistanceKind::Motion, 10.0, KPlacement::OutsideSum);
    assert_eq!(out.d_min, vec![1.0, 1.0, 4.0]);
    // −(0.5 + 0 + 1) + 2·(1 + 4 + 5) + 10·(1 + 1 + 4) = −1.5 + 20 + 60.
    assert_eq!(out.value, 78.5);
    let inside = objective(&o, DistanceKind::Motion, 10.0, KPlacement::InsideSum);
    // K_eff = 10·3 = 30: −1.5 + 20 + 180.
    assert_eq!(inside.value, 198.5);
    assert_eq!(inside.d_min, out.d_min);
    // Identical motions: d_min is 0 only because another motion coincides, not because of self.
    let twin = [
        outcome(&[0.0, 0.0], 0.0),
        outcome(&[0.0, 0.0], 0.0),
        outcome(&[3.0, 0.0], 0.0),
    ];
    assert_eq!(
        objective(&twin, DistanceKind::Motion, 1.0, KPlacement::OutsideSum).d_min,
        vec![0.0, 0.0, 9.0]
    );
    // Shape distance is L1.
    assert_eq!(distance(DistanceKind::Shape, &o[1], &o[2]), 3.0);
    // One motion: no pairs, d_min 0; mismatched lengths: NaN.
    assert_eq!(
        objective(&o[..1], DistanceKind::Motion, 10.0, KPlacement::InsideSum).value,
        -0.5
    );
    assert!(distance(DistanceKind::Motion, &o[0], &outcome(&[1.0], 0.0)).is_nan());
}

#[test]
fn replacement_score_equals_the_full_objective() {
    let pts = [[0.1, 0.1], [0.9, 0.2], [0.3, 0.8], [0.5, 0.5]];
    let o: Vec<Outcome> = pts
        .iter()
        .enumerate()
        .map(|(i, p)| outcome(p, i as f64 * 0.1))
        .collect();
    let m = DistanceMatrix::new(DistanceKind::Motion, &o);
    let pen: Vec<f64> = o.iter().map(|x| x.penalty).collect();
    let cand = outcome(&[0.0, 1.0], 0.7);
    let row: Vec<f64> = o
        .iter()
        .map(|x| distance(DistanceKind::Motion, &cand, x))
        .collect();
    for placement in [KPlacement::InsideSum, KPlacement::OutsideSum] {
        let k_eff = placement.k_eff(10.0, 4);
        let fast = score_replacement(&m, &pen, 2, &row, 0.7, k_eff);
        let mut replaced = o.clone();
        replaced[2] = cand.clone();
        let full = objective(&replaced, DistanceKind::Motion, 10.0, placement).value;
        assert!((fast - full).abs() < 1e-12, "{fast} vs {full}");
    }
}

#[test]
fn generation_counters_in_lock_step_and_cma_state_persists() {
    let mut s =
        DiversitySearch::new(&Toy, &REF, toy_settings(10.0, KPlacement::InsideSum, 3, 50)).unwrap();
    for g in 1..=10u64 {
        // The samples each instance will draw next, from a copy of its state before the round.
        let expected: Vec<Vec<Vec<f64>>> =
            (0..4).map(|i| s.cma(i).unwrap().clone().ask()).collect();
        let asked = std::sync::Mutex::new(Vec::new());
        s.generation(|xs| {
            asked.lock().unwrap().push(xs.to_vec());
            serial(xs)
        });
        // One generation of each instance, continuing from its previous state, their samples
        // in one batch in the instances' order.
        assert_eq!(
            asked.into_inner().unwrap(),
            vec![expected.concat()],
            "round {g}"
        );
        assert_eq!(s.generations(), g);
        for i in 0..4 {
            assert_eq!(s.cma(i).unwrap().generation(), g);
            assert_eq!(s.cma(i).unwrap().evaluations(), 16 * g);
        }
    }
    assert_eq!(s.evaluations(), 4 * 16 * 10);
    assert_eq!(s.history().len(), 11);
    // Every variant moved away from M_0, and D never decreases.
    assert!(s.incumbents().iter().all(|inc| inc.params != REF.to_vec()));
    assert!(
        s.history()
            .windows(2)
            .all(|w| w[1].objective >= w[0].objective)
    );
}

#[test]
fn checkpoint_to_ron_resumes_identically() {
    let mut a = DiversitySearch::new(
        &Toy,
        &REF,
        toy_settings(10.0, KPlacement::InsideSum, 5, 100),
    )
    .unwrap();
    for _ in 0..20 {
        a.generation(serial);
    }
    let text = ron::to_string(&a).unwrap();
    let mut b: DiversitySearch = crate::files::from_ron(&text).unwrap();
    for _ in 0..30 {
        a.generation(serial);
        b.generation(serial);
    }
    assert_eq!(ron::to_string(&a).unwrap(), ron::to_string(&b).unwrap());
    assert_eq!(
        a.history().last().unwrap().objective.to_bits(),
        b.history().last().unwrap().objective.to_bits()
    );
}

#[test]
fn path_slider_reproduces_m0_and_the_final_incumbent() {
    let s = run(
        &Toy,
        &REF,
        toy_settings(10.0, KPlacement::InsideSum, 2, 100),
        false,
    )
    .unwrap();
    for i in 1..=4 {
        let path = s.path(i).unwrap();
        assert!(path.len() > 2);
        assert_eq!(
            path[0],
            PathPoint {
                params: REF.to_vec(),
                distance: 0.0
            }
        );
        assert_eq!(s.path_point(i, 0.0).unwrap(), &REF[..]);
        assert_eq!(
            s.path_point(i, 1.0).unwrap(),
            s.incumbents()[i - 1].params.as_slice()
        );
        // Half-way: the stored point nearest half the final distance from M_0.
        let half = s.path_point(i, 0.5).unwrap();
        let target = 0.5 * path.last().unwrap().distance;
        let d_half =
            (distance(DistanceKind::Motion, s.reference(), &Toy.evaluate(half)) - target).abs();
        assert!(
            path.iter()
                .all(|p| (p.distance - target).abs() >= d_half - 1e-15)
        );
        // Clamped and NaN fractions, out-of-range variants.
        assert_eq!(s.path_point(i, -1.0).unwrap(), &REF[..]);
        assert_eq!(s.path_point(i, f64::NAN).unwrap(), &REF[..]);
        assert_eq!(s.path_point(i, 7.0), s.path_point(i, 1.0));
    }
    assert!(s.path_point(0, 0.5).is_none());
    assert!(s.path_point(5, 0.5).is_none());
}

#[test]
fn round_robin_beats_progressive_addition() {
    let (mut rr, mut pa) = (Vec::new(), Vec::new());
    for seed in 1..=5 {
        let settings = toy_settings(10.0, KPlacement::InsideSum, seed, 100);
        let a = run(&Toy, &REF, settings.clone(), false).unwrap();
        let b = run(
            &Toy,
            &REF,
            SearchSettings {
                strategy: Strategy::Progressive,
                ..settings
            },
            false,
        )
        .unwrap();
        assert_eq!(a.evaluations(), b.evaluations());
        assert_eq!(a.evaluations(), 4 * 100 * 16);
        assert_eq!(b.stop_reason(), Some(SearchStop::MaxGenerations));
        rr.push(a.final_objective().value);
        pa.push(b.final_objective().value);
    }
    let mean = |v: &[f64]| v.iter().sum::<f64>() / v.len() as f64;
    println!(
        "D round-robin {rr:.2?} mean {:.2}; progressive {pa:.2?} mean {:.2}",
        mean(&rr),
        mean(&pa)
    );
    assert!(
        mean(&rr) > mean(&pa),
        "round-robin {:.2} vs progressive {:.2}",
        mean(&rr),
        mean(&pa)
    );
}

/// The toy with a feasible square [0.3, 0.7]² inside the search box [0, 1]²: outside it the
/// penalty is 1 + 0.01·(distance outside)², far less than the distance a variant gains there.
struct SmallPenaltyToy;

/// The plain toy's box and features, with the penalty outside the square.
impl Evaluator for SmallPenaltyToy {
    fn dimension(&self) -> usize {
        Toy.dimension()
    }
    fn bounds(&self) -> Bounds {
        Toy.bounds()
    }
    fn evaluate(&self, p: &[f64]) -> Outcome {
        let out: f64 = p
            .iter()
            .map(|x| ((x - 0.5).abs() - 0.2).max(0.0).powi(2))
            .sum();
        Outcome {
            penalty: if out > 0.0 { 1.0 + 0.01 * out } else { 0.0 },
            ..Toy.evaluate(p)
        }
    }
}

#[test]
fn a_small_violation_never_buys_distance_every_variant_ends_feasible() {
    for strategy in [Strategy::RoundRobin, Strategy::Progressive] {
        for seed in 1..=3 {
            let settings = SearchSettings {
                strategy,
                ..toy_settings(10.0, KPlacement::InsideSum, seed, 60)
            };
            let s = run(&SmallPenaltyToy, &[0.5, 0.5], settings, false).unwrap();
            let points = toy_points(&s);
            // Every variant at C = 0 …
            for (i, inc) in s.incumbents().iter().enumerate() {
                assert_eq!(
                    inc.outcome.penalty,
                    0.0,
                    "{strategy:?} seed {seed}: M{} at {:?}",
                    i + 1,
                    inc.params
                );
            }
            // … although the square's edge holds them back: the variants press against it (a
            // corner of the square is 0.28 from the centre; outside it lie corners 0.71 away).
            let far = points[1..]
                .iter()
                .map(|p| dist(p, &[0.5, 0.5]))
                .fold(0.0, f64::max);
            assert!(far > 0.25, "{strategy:?} seed {seed}: {points:?}");
            // A point just outside the square scores a higher D than the incumbents' (the
            // trade the ranking refuses): move the farthest variant 0.05 further out.
            let k = (1..points.len())
                .max_by(|a, b| {
                    dist(&points[*a], &[0.5, 0.5]).total_cmp(&dist(&points[*b], &[0.5, 0.5]))
                })
                .unwrap();
            let mut outside = points.clone();
            for c in 0..2 {
                outside[k][c] =
                    (outside[k][c] + 0.05 * (outside[k][c] - 0.5).signum()).clamp(0.0, 1.0);
            }
            let d_of = |pts: &[Vec<f64>]| {
                let outs: Vec<Outcome> = pts.iter().map(|p| SmallPenaltyToy.evaluate(p)).collect();
                let m = DistanceMatrix::new(DistanceKind::Motion, &outs);
                let pens: Vec<f64> = outs.iter().map(|o| o.penalty).collect();
                objective_from_matrix(&m, &pens, 10.0 * 5.0).value
            };
            assert!(
                d_of(&outside) > d_of(&points),
                "{strategy:?} seed {seed}: D outside {} vs inside {}",
                d_of(&outside),
                d_of(&points)
            );
        }
    }
}

#[test]
fn progressive_optimizes_only_the_newest_variant() {
    let settings = SearchSettings {
        strategy: Strategy::Progressive,
        ..toy_settings(10.0, KPlacement::InsideSum, 1, 5)
    };
    let mut s = DiversitySearch::new(&Toy, &REF, settings).unwrap();
    for g in 1..=20u64 {
        let stage = s.current_stage().unwrap();
        let frozen: Vec<Vec<f64>> = s.incumbents().iter().map(|i| i.params.clone()).collect();
        s.generation(serial);
        for i in 0..4 {
            let gens = s.cma(i).unwrap().generation();
            assert_eq!(
                gens,
                (g.saturating_sub(5 * i as u64)).min(5),
                "generation {g}, instance {i}"
            );
            if i + 1 != stage {
                assert_eq!(s.incumbents()[i].params, frozen[i]);
            }
        }
        assert_eq!(s.history().last().unwrap().active, stage + 1);
    }
    assert!(s.is_finished());
    assert_eq!(s.final_objective().d_min.len(), 5);
}

#[test]
fn parallel_and_serial_evaluation_give_the_same_search() {
    let settings = toy_settings(10.0, KPlacement::InsideSum, 9, 60);
    let a = run(&Toy, &REF, settings.clone(), true).unwrap();
    let b = run(&Toy, &REF, settings.clone(), false).unwrap();
    assert_eq!(ron::to_string(&a).unwrap(), ron::to_string(&b).unwrap());
    let mut c = DiversitySearch::new(&Toy, &REF, settings).unwrap();
    while !c.is_finished() {
        c.generation(parallel);
    }
    assert_eq!(ron::to_string(&a).unwrap(), ron::to_string(&c).unwrap());
}

#[test]
fn stall_stops_before_the_generation_limit() {
    let settings = SearchSettings {
        stall_generations: 20,
        stall_epsilon: 1e-3,
        max_generations: 1000,
        ..toy_settings(10.0, KPlacement::InsideSum, 4, 1000)
    };
    let s = run(&Toy, &REF, settings, false).unwrap();
    assert_eq!(s.stop_reason(), Some(SearchStop::Stalled));
    assert!(s.generations() < 1000, "{}", s.generations());
    let h = s.history();
    let (now, then) = (h[h.len() - 1].objective, h[h.len() - 21].objective);
    assert!(now - then <= 1e-3 * now.abs());
}

#[test]
fn odd_inputs_give_errors_or_work() {
    let bad = |n: usize| SearchSettings {
        variants: n,
        ..Default::default()
    };
    assert_eq!(
        DiversitySearch::new(&Toy, &REF, bad(0)).unwrap_err(),
        SearchError::NoVariants
    );
    assert!(matches!(
        DiversitySearch::new(&Toy, &[2.0, 0.5], bad(4)),
        Err(SearchError::OutsideBounds)
    ));
    assert!(matches!(
        DiversitySearch::new(&Toy, &[0.5], bad(4)),
        Err(SearchError::DimensionMismatch { .. })
    ));
    assert!(matches!(
        DiversitySearch::new(
            &Toy,
            &REF,
            SearchSettings {
                sigma0: 0.0,
                ..Default::default()
            }
        ),
        Err(SearchError::Setting(_))
    ));
    assert!(matches!(
        DiversitySearch::new(
            &Toy,
            &REF,
            SearchSettings {
                population: 1,
                ..Default::default()
            }
        ),
        Err(SearchError::Setting(_))
    ));
    // N = 1: D = d(M_0,M_1)·2 + K_eff·2·d(M_0,M_1); the variant runs to the far corner.
    let s = run(
        &Toy,
        &REF,
        SearchSettings {
            variants: 1,
            ..toy_settings(10.0, KPlacement::InsideSum, 1, 100)
        },
        false,
    )
    .unwrap();
    assert!(
        dist(&s.incumbents()[0].params, &[1.0, 1.0]) < 0.01,
        "{:?}",
        s.incumbents()[0].params
    );
    // A batch closure that returns too few or malformed outcomes: failures, no panic.
    let mut s =
        DiversitySearch::new(&Toy, &REF, toy_settings(10.0, KPlacement::InsideSum, 1, 3)).unwrap();
    s.generation(|xs| serial(&xs[..xs.len() / 2]));
    assert_eq!(s.history().last().unwrap().failed, 4 * 8);
    s.generation(|xs| xs.iter().map(|x| outcome(&[x[0]], f64::NAN)).collect());
    assert_eq!(s.history().last().unwrap().failed, 4 * 16);
    s.generation(serial);
    assert!(s.is_finished());
    assert_eq!(s.stop_reason(), Some(SearchStop::MaxGenerations));
    s.generation(serial); // no-op once finished
    assert_eq!(s.generations(), 3);
}
