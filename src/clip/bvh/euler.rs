//! A rotation as the angles of a BVH node's rotation channels, in the node's own order: the
//! channels `a b c` mean R = R_a(α)·R_b(β)·R_c(γ) (each rotation about a fixed axis of the parent
//! frame, applied right to left), as [`super::Bvh`]'s reader composes them.
//!
//! Three distinct axes are Tait–Bryan angles, solved in closed form for any of the six orders;
//! one or two channels are a hinge or a universal joint's coordinates; a repeated axis (proper
//! Euler angles, `Z X Z`) is solved in closed form too.

use nalgebra::{Matrix3, Rotation3, Unit, Vector3};

/// +1 when (i, j, k) is a cyclic order of (0, 1, 2), −1 otherwise.
fn parity(i: usize, j: usize) -> f64 {
    if (i + 1) % 3 == j { 1.0 } else { -1.0 }
}

/// The angles (rad), one per axis in `axes` (0 = x, 1 = y, 2 = z), whose product in that order
/// is `r` (exactly for a rotation such axes can make; for one or two axes the part they cannot
/// make is dropped).
pub fn angles(r: &Rotation3<f64>, axes: &[usize]) -> Vec<f64> {
    let m: &Matrix3<f64> = r.matrix();
    match *axes {
        [] => Vec::new(),
        [a] => {
            // The turn about the axis of a vector perpendicular to it.
            let (u, v) = ((a + 1) % 3, (a + 2) % 3);
            vec![m[(v, u)].atan2(m[(u, u)])]
        }
        [a, b] if a != b => {
            // R_a(α)·R_b(β)·R_c(γ) with the third axis dropped.
            let c = 3 - a - b;
            let mut all = angles(r, &[a, b, c]);
            all.truncate(2);
            all
        }
        [i, j, k] if i != j && j != k && i != k => {
            let s = parity(i, j);
            let beta = (s * m[(i, k)]).clamp(-1.0, 1.0).asin();
            let alpha = (-s * m[(j, k)]).atan2(m[(k, k)]);
            let gamma = (-s * m[(i, j)]).atan2(m[(i, i)]);
            vec![alpha, beta, gamma]
        }
        [i, j, k] if i == k && i != j => {
            let l = 3 - i - j;
            let s = parity(i, j);
            let beta = m[(i, i)].clamp(-1.0, 1.0).acos();
            let alpha = m[(j, i)].atan2(-s * m[(l, i)]);
            let gamma = m[(i, j)].atan2(s * m[(i, l)]);
            vec![alpha, beta, gamma]
        }
        _ => {
            // Anything else (an axis three times, or twice in a row) turns about the axes in
            // turn; keep the whole rotation on the first axis that can hold most of it.
            let mut out = vec![0.0; axes.len()];
            if let Some(&a) = axes.first() {
                out[0] = angles(r, &[a])[0];
            }
            out
        }
    }
}

/// The rotation of `angles` about `axes`, composed in channel order (the inverse of [`angles`]).
pub fn rotation(axes: &[usize], angles: &[f64]) -> Rotation3<f64> {
    axes.iter()
        .zip(angles)
        .fold(Rotation3::identity(), |r, (&a, &t)| {
            let mut v = Vector3::zeros();
            v[a] = 1.0;
            r * Rotation3::from_axis_angle(&Unit::new_normalize(v), t)
        })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn orders() -> Vec<Vec<usize>> {
        let mut out = Vec::new();
        for i in 0..3 {
            for j in 0..3 {
                for k in 0..3 {
                    if i != j && j != k {
                        out.push(vec![i, j, k]);
                    }
                }
            }
        }
        out
    }

    #[test]
    fn every_three_axis_order_decomposes_exactly() {
        let orders = orders();
        assert_eq!(
            orders.len(),
            12,
            "six Tait–Bryan and six proper Euler orders"
        );
        for axes in orders {
            for t in [[0.3f64, -0.7, 1.2], [-2.9, 0.4, 2.5], [1.0, 1.4, -0.2]] {
                // Proper Euler angles keep β in (0, π).
                let t = if axes[0] == axes[2] {
                    [t[0], t[1].abs(), t[2]]
                } else {
                    t
                };
                let r = rotation(&axes, &t);
                let back = angles(&r, &axes);
                let again = rotation(&axes, &back);
                assert!(
                    (again.matrix() - r.matrix()).abs().max() < 1e-12,
                    "{axes:?}: {t:?} -> {back:?}"
                );
                for (a, b) in t.iter().zip(&back) {
                    assert!((a - b).abs() < 1e-12, "{axes:?}: {t:?} -> {back:?}");
                }
            }
        }
    }

    #[test]
    fn one_and_two_axes_give_a_hinge_and_a_universal_joints_angles() {
        for a in 0..3 {
            let r = rotation(&[a], &[0.8]);
            assert!((angles(&r, &[a])[0] - 0.8).abs() < 1e-12);
            for b in (0..3).filter(|&b| b != a) {
                let r = rotation(&[a, b], &[-0.6, 1.1]);
                let back = angles(&r, &[a, b]);
                assert!((back[0] + 0.6).abs() < 1e-12 && (back[1] - 1.1).abs() < 1e-12);
            }
        }
    }
}
