//! The 2-D hypervolume indicator and exclusive contributions (Agrawal 2015, thesis §4.4.2).
//!
//! Hypervolume (Zitzler & Thiele): S_xref(X) = Λ(∪_{x ∈ ndom(X)} {x′ | x ≺ x′ ≺ x_ref}), the
//! Lebesgue measure of the objective-space region dominated by X and bounded by the reference
//! point x_ref. Points that are not strictly better than x_ref in both objectives (and failed,
//! non-finite points) contribute nothing.
//!
//! Contribution: Δs(x, X) = S_xref(X) − S_xref(X \ x). For two objectives and the
//! non-dominated points sorted by f1 (so f2 decreases), the exclusive region of an interior
//! point x_i is the rectangle [f1(x_i), f1(x_{i+1})) × [f2(x_i), f2(x_{i−1})) clipped to x_ref,
//! so every contribution is found in O(n log n). The two extreme points (best f1, best f2)
//! get +∞, as the thesis prescribes for boundary elements (their contribution changes with
//! x_ref).

use super::Objectives;
use super::dominance::{is_feasible, lexicographic};

/// Exact hypervolume S_xref of `points` w.r.t. `reference` (minimization), O(n log n).
/// Dominated points, duplicates, failed points and points not strictly better than the
/// reference in both objectives are allowed; they add nothing.
pub fn hypervolume(points: &[Objectives], reference: Objectives) -> f64 {
    let mut inside: Vec<Objectives> = points
        .iter()
        .copied()
        .filter(|p| is_feasible(*p) && p[0] < reference[0] && p[1] < reference[1])
        .collect();
    inside.sort_by(|a, b| lexicographic(*a, *b));
    // Sweep by increasing f1: each point that lowers the running minimum of f2 adds the slab
    // [f1, r1) × [f2, previous minimum).
    let mut volume = 0.0;
    let mut ceiling = reference[1];
    for p in inside {
        if p[1] < ceiling {
            volume += (reference[0] - p[0]) * (ceiling - p[1]);
            ceiling = p[1];
        }
    }
    volume
}

/// The exclusive hypervolume contribution Δs(x, ndom(X)) = S(ndom(X)) − S(ndom(X) \ x) of
/// every point of `points` within the non-dominated subset ndom(X), w.r.t. `reference`, in
/// O(n log n). Eq. 4.16 uses it on one non-domination level at a time, where ndom(X) = X.
///
/// - The two extreme points of ndom(X) (least f1, least f2) get +∞; if an extreme point
///   occurs several times, its copy with the lowest index gets +∞ and the others 0.
/// - Other non-dominated points get the area of their exclusive rectangle clipped to the
///   reference (0 if duplicated, or outside the reference box).
/// - Dominated and failed points get 0.
pub fn contributions(points: &[Objectives], reference: Objectives) -> Vec<f64> {
    let mut result = vec![0.0; points.len()];
    let mut order: Vec<usize> = (0..points.len())
        .filter(|&i| is_feasible(points[i]))
        .collect();
    order.sort_by(|&i, &j| lexicographic(points[i], points[j]).then(i.cmp(&j)));
    // The distinct non-dominated points in order of increasing f1 (strictly decreasing f2):
    // (index of the first copy, whether there are further copies).
    let mut front: Vec<(usize, bool)> = Vec::new();
    for &i in &order {
        let q = points[i];
        match front.last_mut() {
            Some((j, duplicated)) if points[*j][1] <= q[1] => {
                // Dominated by, or equal to, the previous non-dominated point.
                if points[*j] == q {
                    *duplicated = true;
                }
            }
            _ => front.push((i, false)),
        }
    }
    let m = front.len();
    for k in 0..m {
        let (i, duplicated) = front[k];
        if k == 0 || k + 1 == m {
            result[i] = f64::INFINITY;
            continue;
        }
        if duplicated {
            continue;
        }
        let p = points[i];
        let right = points[front[k + 1].0][0].min(reference[0]);
        let top = points[front[k - 1].0][1].min(reference[1]);
        result[i] = (right - p[0]).max(0.0) * (top - p[1]).max(0.0);
    }
    result
}

#[cfg(test)]
mod tests {
    use super::super::dominance::non_dominated;
    use super::*;
    use rand::{Rng, SeedableRng};
    use rand_chacha::ChaCha8Rng;

    /// Union of the dominated rectangles by coordinate compression: a grid cell is covered iff
    /// some point (strictly inside the reference box) weakly dominates its lower-left corner.
    /// O(n³), independent of the sweep above.
    fn brute_force(points: &[Objectives], reference: Objectives) -> f64 {
        let inside: Vec<Objectives> = points
            .iter()
            .copied()
            .filter(|p| is_feasible(*p) && p[0] < reference[0] && p[1] < reference[1])
            .collect();
        let mut xs: Vec<f64> = inside.iter().map(|p| p[0]).collect();
        let mut ys: Vec<f64> = inside.iter().map(|p| p[1]).collect();
        xs.push(reference[0]);
        ys.push(reference[1]);
        for v in [&mut xs, &mut ys] {
            v.sort_by(f64::total_cmp);
            v.dedup();
        }
        let mut volume = 0.0;
        for a in xs.windows(2) {
            for b in ys.windows(2) {
                if inside.iter().any(|p| p[0] <= a[0] && p[1] <= b[0]) {
                    volume += (a[1] - a[0]) * (b[1] - b[0]);
                }
            }
        }
        volume
    }

    #[test]
    fn hand_examples() {
        let front = [[1.0, 3.0], [2.0, 2.0], [3.0, 1.0]];
        assert_eq!(hypervolume(&front, [4.0, 4.0]), 6.0);
        assert_eq!(
            contributions(&front, [4.0, 4.0]),
            vec![f64::INFINITY, 1.0, f64::INFINITY]
        );
        // A dominated point, a duplicate, a failure and a point outside the box add nothing.
        let noisy = [
            [2.0, 2.0],
            [1.0, 3.0],
            [3.5, 3.5],
            [2.0, 2.0],
            [f64::NAN, 0.0],
            [0.5, 4.0],
            [3.0, 1.0],
        ];
        assert_eq!(hypervolume(&noisy, [4.0, 4.0]), 6.0);
        let c = contributions(&noisy, [4.0, 4.0]);
        // (0.5, 4) is now the least-f1 extreme; (1, 3) is interior: [1, 2) × [3, 4).
        assert_eq!(
            c,
            vec![0.0, 1.0, 0.0, 0.0, 0.0, f64::INFINITY, f64::INFINITY]
        );
        assert_eq!(hypervolume(&[], [1.0, 1.0]), 0.0);
        assert_eq!(hypervolume(&[[1.0, 0.0]], [1.0, 1.0]), 0.0);
        assert_eq!(
            contributions(&[[0.0, 0.0]], [1.0, 1.0]),
            vec![f64::INFINITY]
        );
        // Copies of an extreme point: the first copy keeps +∞.
        assert_eq!(
            contributions(&[[1.0, 1.0], [0.0, 2.0], [1.0, 1.0]], [3.0, 3.0]),
            vec![f64::INFINITY, f64::INFINITY, 0.0]
        );
    }

    fn random_set(rng: &mut ChaCha8Rng, case: usize) -> Vec<Objectives> {
        let n = rng.random_range(1..30);
        let mut points: Vec<Objectives> = (0..n)
            .map(|_| match case % 3 {
                // Integer grid: ties in one coordinate and exact duplicates.
                0 => [rng.random_range(0..8) as f64, rng.random_range(0..8) as f64],
                // Continuous, partly outside the reference box (1, 1).
                1 => [rng.random_range(-0.2..1.3), rng.random_range(-0.2..1.3)],
                // Near a convex front, with wide scale differences.
                _ => {
                    let t: f64 = rng.random();
                    let noise: f64 = rng.random_range(0.0..0.1);
                    [1e3 * t + noise, (1.0 - t.sqrt()) * 1e-2 + noise * 1e-3]
                }
            })
            .collect();
        if rng.random_bool(0.3) {
            let i = rng.random_range(0..points.len());
            points.push(points[i]);
        }
        if rng.random_bool(0.1) {
            points.push([f64::NAN, 0.5]);
        }
        points
    }

    #[test]
    fn property_agrees_with_brute_force() {
        let mut checked_contributions = 0;
        for seed in 0..4u64 {
            let mut rng = ChaCha8Rng::seed_from_u64(seed);
            for case in 0..300 {
                let points = random_set(&mut rng, case);
                let reference = match case % 3 {
                    0 => [7.0, 7.0],
                    1 => [1.0, 1.0],
                    _ => [1.1e3, 1.2e-2],
                };
                let exact = brute_force(&points, reference);
                let fast = hypervolume(&points, reference);
                let tol = 1e-9 * exact.abs().max(f64::MIN_POSITIVE);
                assert!((fast - exact).abs() <= tol, "{fast} vs {exact}: {points:?}");
                // Contributions on the whole set (relative to its non-dominated subset,
                // duplicates included) and on that subset alone (a front).
                let front: Vec<Objectives> =
                    non_dominated(&points).iter().map(|&i| points[i]).collect();
                for set in [&points, &front] {
                    let nd = non_dominated(set);
                    let base: Vec<Objectives> = nd.iter().map(|&i| set[i]).collect();
                    let total = brute_force(&base, reference);
                    let c = contributions(set, reference);
                    let mut distinct = base.clone();
                    distinct.sort_by(|a, b| lexicographic(*a, *b));
                    distinct.dedup();
                    let infinite = c.iter().filter(|v| v.is_infinite()).count();
                    assert_eq!(infinite, distinct.len().min(2), "{set:?}");
                    for (i, ci) in c.iter().enumerate() {
                        if ci.is_infinite() {
                            assert!(nd.contains(&i));
                            continue;
                        }
                        let expected = match nd.iter().position(|&j| j == i) {
                            Some(k) => {
                                let mut rest = base.clone();
                                rest.remove(k);
                                total - brute_force(&rest, reference)
                            }
                            None => 0.0,
                        };
                        let tol = 1e-9 * total.abs().max(f64::MIN_POSITIVE);
                        assert!(
                            (ci - expected).abs() <= tol,
                            "point {i}: {ci} vs {expected} in {set:?}"
                        );
                        checked_contributions += 1;
                    }
                }
            }
        }
        assert!(checked_contributions > 5000, "{checked_contributions}");
    }
}
