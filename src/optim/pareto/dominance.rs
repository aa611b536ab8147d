//! Pareto dominance and non-dominated sorting (Agrawal 2015, thesis §4.4.2, Eqs 4.8–4.12).
//!
//! Dominance (minimization): x ≺ x′ ⇔ ∀i f_i(x) ≤ f_i(x′) ∧ ∃j f_j(x) < f_j(x′).
//! Non-dominated sorting levels: dom_0(X) = X, ndom_l(X) = ndom(dom_{l−1}(X)),
//! dom_l(X) = dom_{l−1}(X) \ ndom_l(X), rank(x, X) = l ⇔ x ∈ ndom_l(X); ranks here start at 0
//! (rank 0 is the non-dominated front). For two objectives the levels are found in
//! O(n log n) by a sweep over the points sorted by f1 (instead of the O(MN²) of Deb et al.
//! 2002).
//!
//! Failed evaluations (a non-finite coordinate) are dominated by every finite point, never
//! dominate anything, and all share the rank after the last finite level.

use super::Objectives;
use std::cmp::Ordering;

/// Whether both objective values are finite (the evaluation did not fail).
pub fn is_feasible(p: Objectives) -> bool {
    p[0].is_finite() && p[1].is_finite()
}

/// a ≺ b: `a` is no worse in both objectives and better in one. A finite point dominates every
/// failed (non-finite) point; a failed point dominates nothing.
pub fn dominates(a: Objectives, b: Objectives) -> bool {
    if !is_feasible(a) {
        return false;
    }
    if !is_feasible(b) {
        return true;
    }
    a[0] <= b[0] && a[1] <= b[1] && (a[0] < b[0] || a[1] < b[1])
}

/// Lexicographic order on (f1, f2) for finite points.
pub(crate) fn lexicographic(a: Objectives, b: Objectives) -> Ordering {
    a[0].total_cmp(&b[0]).then(a[1].total_cmp(&b[1]))
}

/// The non-domination rank of every point (0 = non-dominated front). Points with a
/// non-finite coordinate get the worst rank: one more than the last finite level (0 if no
/// point is finite). Equal points share a rank. O(n log n).
pub fn non_dominated_sort(points: &[Objectives]) -> Vec<usize> {
    let mut order: Vec<usize> = (0..points.len())
        .filter(|&i| is_feasible(points[i]))
        .collect();
    order.sort_by(|&i, &j| lexicographic(points[i], points[j]).then(i.cmp(&j)));
    let mut ranks = vec![usize::MAX; points.len()];
    // The last point put into each level. Sweeping by increasing f1, a level's last point has
    // the level's smallest f2 and largest f1, so a new point q is dominated by some member of
    // level l iff it is dominated by that last point; and if q is dominated by level l + 1 it
    // is dominated by level l (transitivity). Hence the first level not dominating q is found
    // by binary search.
    let mut last: Vec<Objectives> = Vec::new();
    for &i in &order {
        let q = points[i];
        let level = last.partition_point(|&p| dominates(p, q));
        if level == last.len() {
            last.push(q);
        } else {
            last[level] = q;
        }
        ranks[i] = level;
    }
    let failed_rank = last.len();
    for r in ranks.iter_mut() {
        if *r == usize::MAX {
            *r = failed_rank;
        }
    }
    ranks
}

/// Indices of the finite non-dominated points (rank 0), in increasing index order.
pub fn non_dominated(points: &[Objectives]) -> Vec<usize> {
    non_dominated_sort(points)
        .iter()
        .enumerate()
        .filter(|&(i, &r)| r == 0 && is_feasible(points[i]))
        .map(|(i, _)| i)
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::{Rng, SeedableRng};
    use rand_chacha::ChaCha8Rng;

    /// The O(MN²) definition: peel off non-dominated sets one after another.
    fn naive_ranks(points: &[Objectives]) -> Vec<usize> {
        let mut ranks = vec![usize::MAX; points.len()];
        let mut level = 0;
        loop {
            let remaining: Vec<usize> = (0..points.len())
                .filter(|&i| ranks[i] == usize::MAX && is_feasible(points[i]))
                .collect();
            if remaining.is_empty() {
                break;
            }
            let front: Vec<usize> = remaining
                .iter()
                .copied()
                .filter(|&i| !remaining.iter().any(|&j| dominates(points[j], points[i])))
                .collect();
            for i in front {
                ranks[i] = level;
            }
            level += 1;
        }
        ranks
            .iter()
            .map(|&r| if r == usize::MAX { level } else { r })
            .collect()
    }

    #[test]
    fn dominance_definition() {
        assert!(dominates([1.0, 2.0], [1.0, 3.0]));
        assert!(dominates([0.0, 0.0], [1.0, 1.0]));
        assert!(!dominates([1.0, 2.0], [1.0, 2.0]));
        assert!(!dominates([1.0, 3.0], [2.0, 2.0]));
        assert!(dominates([1e9, 1e9], [f64::NAN, 0.0]));
        assert!(dominates([1e9, 1e9], [f64::NEG_INFINITY, 0.0]));
        assert!(!dominates([f64::NEG_INFINITY, 0.0], [1.0, 1.0]));
        assert!(!dominates([f64::NAN, 0.0], [f64::INFINITY, 0.0]));
    }

    #[test]
    fn hand_example() {
        let points = [
            [1.0, 5.0],               // 0: front
            [2.0, 3.0],               // 1: front
            [4.0, 1.0],               // 2: front
            [3.0, 4.0],               // 3: dominated by 1 → rank 1
            [5.0, 2.0],               // 4: dominated by 2 → rank 1
            [2.0, 3.0],               // 5: duplicate of 1 → rank 0
            [6.0, 6.0],               // 6: dominated by 9 → rank 3
            [f64::NAN, 0.0],          // 7: failed → rank 4
            [0.0, f64::NEG_INFINITY], // 8: failed → rank 4
            [4.0, 4.0],               // 9: dominated by 3 (rank 1) → rank 2
        ];
        assert_eq!(
            non_dominated_sort(&points),
            vec![0, 0, 0, 1, 1, 0, 3, 4, 4, 2]
        );
        assert_eq!(non_dominated(&points), vec![0, 1, 2, 5]);
        assert_eq!(non_dominated_sort(&[[f64::NAN, 1.0]]), vec![0]);
        assert!(non_dominated_sort(&[]).is_empty());
    }

    #[test]
    fn agrees_with_the_definition_on_random_sets() {
        let mut rng = ChaCha8Rng::seed_from_u64(11);
        for case in 0..400 {
            let n = rng.random_range(0..40);
            let points: Vec<Objectives> = (0..n)
                .map(|_| {
                    if rng.random_bool(0.05) {
                        [f64::NAN, 1.0]
                    } else if case % 2 == 0 {
                        // Small integer grid: many ties and duplicates.
                        [rng.random_range(0..6) as f64, rng.random_range(0..6) as f64]
                    } else {
                        [rng.random::<f64>(), rng.random::<f64>()]
                    }
                })
                .collect();
            assert_eq!(
                non_dominated_sort(&points),
                naive_ranks(&points),
                "{points:?}"
            );
        }
    }
}
