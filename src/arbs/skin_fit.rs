//! Fitting an automatic ARBS's capsules to the skin (Borer et al. 2018, §4.1: "radius set to
//! 10% of its length"; with a skin this project fits it, and places multi-child bodies where
//! their flesh is — see `build.rs`).

use super::build::Segment;
use super::skeleton::Skeleton;
use nalgebra::{Matrix3, Vector3};

/// Radius as a fraction of the segment length (Borer et al. 2018, §4.1).
pub const RADIUS_FRACTION: f64 = 0.1;
/// Bounds of a skin-fitted radius, as fractions of the segment length.
pub const FITTED_RADIUS: (f64, f64) = (0.05, 0.4);

/// How capsule radii are chosen.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub enum RadiusRule {
    /// Fitted to the skin when the skeleton has skin samples, else 10 % of the length.
    #[default]
    Auto,
    /// This fraction of the segment length, (0, 1].
    Fraction(f64),
    /// Fitted to the skin (10 % for bodies without bound vertices).
    Skin,
}

/// Distance from `x` to the segment `a`–`b`.
fn distance_to_segment(x: Vector3<f64>, a: Vector3<f64>, b: Vector3<f64>) -> f64 {
    let ab = b - a;
    let t = ((x - a).dot(&ab) / ab.norm_squared().max(1e-18)).clamp(0.0, 1.0);
    (x - (a + ab * t)).norm()
}

/// Per body: the skin vertices bound to its joint, with their weights for it.
pub(super) fn bound_vertices(
    ks: &Skeleton,
    body_of: &[Option<usize>],
    bodies: usize,
) -> Vec<Vec<(Vector3<f64>, f64)>> {
    let mut out = vec![Vec::new(); bodies];
    for v in &ks.skin {
        for k in 0..4 {
            let w = v.weights[k];
            if w > 0.0
                && let Some(b) = body_of.get(v.joints[k]).copied().flatten()
            {
                out[b].push((Vector3::from(v.position), w));
            }
        }
    }
    out
}

/// The weighted quantile `q` of `(value, weight)` pairs.
fn weighted_quantile(mut v: Vec<(f64, f64)>, q: f64) -> f64 {
    v.sort_by(|a, b| a.0.total_cmp(&b.0));
    let total: f64 = v.iter().map(|x| x.1).sum();
    let mut acc = 0.0;
    for (x, w) in &v {
        acc += w;
        if acc >= q * total {
            return *x;
        }
    }
    v.last().map_or(0.0, |x| x.0)
}

/// A multi-child body fitted to its skin as well (module docs): the line through the centre of
/// the skin's 5–95 % box, along the skin's principal axis when the skin is elongated (largest
/// eigenvalue at least twice the next), else along the KS axis; its ends cover the children,
/// the joint (unless it is the root, which anchors nothing) and the skin's 5–95 % range.
pub(super) fn fit_to_skin(
    ks: &Skeleton,
    s: &mut Segment,
    kids: &[usize],
    bound: &[(Vector3<f64>, f64)],
    min_len: f64,
) {
    let total: f64 = bound.iter().map(|x| x.1).sum();
    if total < 4.0 {
        return;
    }
    let mean = bound.iter().map(|(x, w)| x * *w).sum::<Vector3<f64>>() / total;
    let cov = bound
        .iter()
        .map(|(x, w)| (x - mean) * (x - mean).transpose() * *w)
        .sum::<Matrix3<f64>>()
        / total;
    let eig = cov.symmetric_eigen();
    let mut order = [0, 1, 2];
    order.sort_by(|&a, &b| eig.eigenvalues[b].total_cmp(&eig.eigenvalues[a]));
    let range = |axis: &Vector3<f64>| {
        let proj: Vec<(f64, f64)> = bound
            .iter()
            .map(|(x, w)| ((x - mean).dot(axis), *w))
            .collect();
        (
            weighted_quantile(proj.clone(), 0.05),
            weighted_quantile(proj, 0.95),
        )
    };
    let mut centre = mean;
    for &k in &order {
        let e: Vector3<f64> = eig.eigenvectors.column(k).into_owned();
        let (lo, hi) = range(&e);
        centre += e * ((lo + hi) / 2.0);
    }
    let p = ks.rest_position(s.joint);
    let kids_mean = kids
        .iter()
        .map(|&k| ks.rest_position(k))
        .sum::<Vector3<f64>>()
        / kids.len() as f64;
    let (l1, l2) = (eig.eigenvalues[order[0]], eig.eigenvalues[order[1]]);
    let mut axis: Vector3<f64> = if l1 >= 2.0 * l2 {
        eig.eigenvectors.column(order[0]).into_owned()
    } else {
        s.dir
    };
    if axis.dot(&(kids_mean - p)) < 0.0 {
        axis = -axis;
    }
    let (skin_lo, skin_hi) = range(&axis);
    let offset = (mean - centre).dot(&axis);
    let mut lo = skin_lo + offset;
    let mut hi = skin_hi + offset;
    let covered = kids
        .iter()
        .map(|&k| ks.rest_position(k))
        .chain((ks.joints[s.joint].parent.is_some()).then_some(p));
    for x in covered {
        let t = (x - centre).dot(&axis);
        lo = lo.min(t);
        hi = hi.max(t);
    }
    if hi - lo < min_len {
        let mid = (lo + hi) / 2.0;
        lo = mid - min_len / 2.0;
        hi = mid + min_len / 2.0;
    }
    s.a = centre + axis * lo;
    s.b = centre + axis * hi;
    s.dir = axis;
    s.length = hi - lo;
}

/// Radii by `rule` (module docs), from the skin vertices `bound` to each body.
pub(super) fn fit_radii(
    ks: &Skeleton,
    rule: RadiusRule,
    segs: &mut [Segment],
    bound: &[Vec<(Vector3<f64>, f64)>],
) {
    let fraction = match rule {
        RadiusRule::Fraction(f) => Some(f),
        RadiusRule::Auto if ks.skin.is_empty() => Some(RADIUS_FRACTION),
        _ => None,
    };
    for (s, v) in segs.iter_mut().zip(bound) {
        let total: f64 = v.iter().map(|x| x.1).sum();
        s.radius = match fraction {
            Some(f) => f * s.length,
            None if total >= 1.0 => weighted_quantile(
                v.iter()
                    .map(|(x, w)| (distance_to_segment(*x, s.a, s.b), *w))
                    .collect(),
                0.5,
            )
            .clamp(FITTED_RADIUS.0 * s.length, FITTED_RADIUS.1 * s.length),
            None => RADIUS_FRACTION * s.length,
        };
    }
}
