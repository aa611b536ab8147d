//! Joint rotations of the spacetime creature model and the small 3-vector / 3×3-matrix algebra
//! its kinematics is written in, generic over the scalar type ([`Scalar`]: `f64` for values,
//! `num-dual` dual numbers for exact derivatives).
//!
//! Implements the joint types of Wampler's thesis (2012), Appendix A:
//!
//! - [`hinge`]: rotation by θ about a unit axis (x, y, z), Eq. (A.1).
//! - [`exp_map`]: the exponential map r = (x, y, z) ↦ R, Eq. (A.2), written with
//!   sinc θ and cosc θ so that it has no singularity at r = 0.
//! - [`sinc`], [`cosc`], [`d_sinc`], [`d_cosc`]: Eqs (A.3)–(A.6), evaluated with the series
//!   below the thresholds of (A.7)–(A.10). The thesis's (A.3) prints sinc(0) = 0; that is an
//!   erratum, sinc(0) = 1 as (A.7) implies, and that is what is used here.
//!
//! Dual numbers differentiate these functions automatically, so [`d_sinc`] and [`d_cosc`] are
//! not needed for derivatives; they are kept as the thesis states them (and tested against the
//! derivatives the dual numbers produce). [`exp_map`] takes sinc and cosc as functions of θ²
//! ([`sinc_cosc_of_squared`]) so that no square root is taken at r = 0, where its derivative
//! would be infinite: the values are exactly those of (A.7) and (A.8) at θ = √(x² + y² + z²).

use super::autodiff::Scalar;
use std::ops::{Add, Mul, Neg, Sub};

/// |θ| at or below which sinc θ ≈ 1 − θ²/6 (A.7).
pub const SINC_SERIES_BELOW: f64 = 1e-3;
/// |θ| at or below which cosc θ ≈ ½ − θ²/24 (A.8).
pub const COSC_SERIES_BELOW: f64 = 5e-3;
/// |θ| at or below which d sinc/dθ ≈ −θ/3 (A.9).
pub const D_SINC_SERIES_BELOW: f64 = 5e-4;
/// |θ| at or below which d cosc/dθ ≈ −θ/12 (A.10).
pub const D_COSC_SERIES_BELOW: f64 = 5e-3;

/// A 3-vector over a scalar type.
#[derive(Clone, Debug, PartialEq)]
pub struct Vec3<D> {
    pub x: D,
    pub y: D,
    pub z: D,
}

impl<D: Scalar> Vec3<D> {
    pub fn new(x: D, y: D, z: D) -> Self {
        Self { x, y, z }
    }

    pub fn zero() -> Self {
        Self::new(D::zero(), D::zero(), D::zero())
    }

    /// A constant vector.
    pub fn from_f64(v: [f64; 3]) -> Self {
        Self::new(D::from(v[0]), D::from(v[1]), D::from(v[2]))
    }

    /// Components, in the order x, y, z.
    pub fn components(&self) -> [&D; 3] {
        [&self.x, &self.y, &self.z]
    }

    /// Real parts (the values without derivatives).
    pub fn re(&self) -> [f64; 3] {
        [self.x.re(), self.y.re(), self.z.re()]
    }

    pub fn dot(&self, o: &Self) -> D {
        self.x.clone() * &o.x + self.y.clone() * &o.y + self.z.clone() * &o.z
    }

    pub fn cross(&self, o: &Self) -> Self {
        Self::new(
            self.y.clone() * &o.z - self.z.clone() * &o.y,
            self.z.clone() * &o.x - self.x.clone() * &o.z,
            self.x.clone() * &o.y - self.y.clone() * &o.x,
        )
    }

    pub fn scale(&self, s: &D) -> Self {
        Self::new(self.x.clone() * s, self.y.clone() * s, self.z.clone() * s)
    }

    pub fn scale_f(&self, s: f64) -> Self {
        Self::new(self.x.clone() * s, self.y.clone() * s, self.z.clone() * s)
    }

    pub fn norm_squared(&self) -> D {
        self.dot(self)
    }

    pub fn norm(&self) -> D {
        self.norm_squared().sqrt()
    }

    /// This constant vector in another scalar type.
    pub fn cast<E: Scalar>(&self) -> Vec3<E> {
        Vec3::from_f64(self.re())
    }
}

macro_rules! vec3_binary_op {
    ($trait:ident, $method:ident, $op:tt) => {
        impl<D: Scalar> $trait<&Vec3<D>> for &Vec3<D> {
            type Output = Vec3<D>;
            fn $method(self, o: &Vec3<D>) -> Vec3<D> {
                Vec3::new(self.x.clone() $op &o.x, self.y.clone() $op &o.y, self.z.clone() $op &o.z)
            }
        }
        impl<D: Scalar> $trait<Vec3<D>> for Vec3<D> {
            type Output = Vec3<D>;
            fn $method(self, o: Vec3<D>) -> Vec3<D> {
                Vec3::new(self.x $op o.x, self.y $op o.y, self.z $op o.z)
            }
        }
        impl<D: Scalar> $trait<&Vec3<D>> for Vec3<D> {
            type Output = Vec3<D>;
            fn $method(self, o: &Vec3<D>) -> Vec3<D> {
                Vec3::new(self.x $op &o.x, self.y $op &o.y, self.z $op &o.z)
            }
        }
        impl<D: Scalar> $trait<Vec3<D>> for &Vec3<D> {
            type Output = Vec3<D>;
            fn $method(self, o: Vec3<D>) -> Vec3<D> {
                Vec3::new(self.x.clone() $op o.x, self.y.clone() $op o.y, self.z.clone() $op o.z)
            }
        }
    };
}
vec3_binary_op!(Add, add, +);
vec3_binary_op!(Sub, sub, -);

impl<D: Scalar> Neg for Vec3<D> {
    type Output = Vec3<D>;
    fn neg(self) -> Vec3<D> {
        Vec3::new(-self.x, -self.y, -self.z)
    }
}

impl<D: Scalar> Mul<f64> for &Vec3<D> {
    type Output = Vec3<D>;
    fn mul(self, s: f64) -> Vec3<D> {
        self.scale_f(s)
    }
}

/// A 3×3 matrix over a scalar type, row-major: `m[row][col]`.
#[derive(Clone, Debug, PartialEq)]
pub struct Mat3<D> {
    pub m: [[D; 3]; 3],
}

impl<D: Scalar> Mat3<D> {
    pub fn identity() -> Self {
        Self::from_fn(|i, j| if i == j { D::one() } else { D::zero() })
    }

    pub fn from_fn(mut f: impl FnMut(usize, usize) -> D) -> Self {
        Self {
            m: std::array::from_fn(|i| std::array::from_fn(|j| f(i, j))),
        }
    }

    /// A constant matrix (rows).
    pub fn from_f64(rows: [[f64; 3]; 3]) -> Self {
        Self::from_fn(|i, j| D::from(rows[i][j]))
    }

    /// Real parts (the values without derivatives).
    pub fn re(&self) -> [[f64; 3]; 3] {
        std::array::from_fn(|i| std::array::from_fn(|j| self.m[i][j].re()))
    }

    /// This constant matrix in another scalar type.
    pub fn cast<E: Scalar>(&self) -> Mat3<E> {
        Mat3::from_f64(self.re())
    }

    pub fn transpose(&self) -> Self {
        Self::from_fn(|i, j| self.m[j][i].clone())
    }

    /// Column `j`.
    pub fn column(&self, j: usize) -> Vec3<D> {
        Vec3::new(
            self.m[0][j].clone(),
            self.m[1][j].clone(),
            self.m[2][j].clone(),
        )
    }

    /// M·v.
    pub fn mul_vec(&self, v: &Vec3<D>) -> Vec3<D> {
        let row = |i: usize| {
            self.m[i][0].clone() * &v.x + self.m[i][1].clone() * &v.y + self.m[i][2].clone() * &v.z
        };
        Vec3::new(row(0), row(1), row(2))
    }

    /// Mᵀ·v.
    pub fn tr_mul_vec(&self, v: &Vec3<D>) -> Vec3<D> {
        let col = |j: usize| {
            self.m[0][j].clone() * &v.x + self.m[1][j].clone() * &v.y + self.m[2][j].clone() * &v.z
        };
        Vec3::new(col(0), col(1), col(2))
    }

    /// M·v for a constant v.
    pub fn mul_vec_f(&self, v: &[f64; 3]) -> Vec3<D> {
        let row = |i: usize| {
            self.m[i][0].clone() * v[0] + self.m[i][1].clone() * v[1] + self.m[i][2].clone() * v[2]
        };
        Vec3::new(row(0), row(1), row(2))
    }

    /// M·N.
    pub fn mul(&self, n: &Self) -> Self {
        Self::from_fn(|i, j| {
            self.m[i][0].clone() * &n.m[0][j]
                + self.m[i][1].clone() * &n.m[1][j]
                + self.m[i][2].clone() * &n.m[2][j]
        })
    }

    /// Mᵀ·N.
    pub fn tr_mul(&self, n: &Self) -> Self {
        Self::from_fn(|i, j| {
            self.m[0][i].clone() * &n.m[0][j]
                + self.m[1][i].clone() * &n.m[1][j]
                + self.m[2][i].clone() * &n.m[2][j]
        })
    }

    pub fn add(&self, n: &Self) -> Self {
        Self::from_fn(|i, j| self.m[i][j].clone() + &n.m[i][j])
    }

    /// The vector w of the skew-symmetric part of M (M ≈ [w]×), i.e. the inverse of the cross
    /// product matrix, averaged over both triangles.
    pub fn vee(&self) -> Vec3<D> {
        let m = &self.m;
        Vec3::new(
            (m[2][1].clone() - &m[1][2]) * 0.5,
            (m[0][2].clone() - &m[2][0]) * 0.5,
            (m[1][0].clone() - &m[0][1]) * 0.5,
        )
    }

    /// Frobenius norm squared of M − I (the head term, Eq. 3.17).
    pub fn distance_squared_from_identity(&self) -> D {
        let mut s = D::zero();
        for i in 0..3 {
            for j in 0..3 {
                let d = if i == j {
                    self.m[i][j].clone() - 1.0
                } else {
                    self.m[i][j].clone()
                };
                s += d.clone() * d;
            }
        }
        s
    }
}

/// sinc θ = sin θ / θ with sinc 0 = 1 (A.3 corrected), by the series 1 − θ²/6 for
/// |θ| ≤ 10⁻³ (A.7).
pub fn sinc<D: Scalar>(theta: &D) -> D {
    if theta.re().abs() <= SINC_SERIES_BELOW {
        D::one() - theta.clone() * theta / 6.0
    } else {
        theta.sin() / theta
    }
}

/// cosc θ = (1 − cos θ)/θ² with cosc 0 = ½ (A.4), by the series ½ − θ²/24 for
/// |θ| ≤ 5·10⁻³ (A.8).
pub fn cosc<D: Scalar>(theta: &D) -> D {
    if theta.re().abs() <= COSC_SERIES_BELOW {
        D::from(0.5) - theta.clone() * theta / 24.0
    } else {
        (D::one() - theta.cos()) / (theta.clone() * theta)
    }
}

/// d sinc/dθ = (θ cos θ − sin θ)/θ² (A.5), by −θ/3 for |θ| ≤ 5·10⁻⁴ (A.9).
pub fn d_sinc<D: Scalar>(theta: &D) -> D {
    if theta.re().abs() <= D_SINC_SERIES_BELOW {
        -theta.clone() / 3.0
    } else {
        (theta.clone() * theta.cos() - theta.sin()) / (theta.clone() * theta)
    }
}

/// d cosc/dθ = (θ sin θ + 2 cos θ − 2)/θ³ (A.6), by −θ/12 for |θ| ≤ 5·10⁻³ (A.10).
pub fn d_cosc<D: Scalar>(theta: &D) -> D {
    if theta.re().abs() <= D_COSC_SERIES_BELOW {
        -theta.clone() / 12.0
    } else {
        (theta.clone() * theta.sin() + theta.cos() * 2.0 - 2.0) / theta.powi(3)
    }
}

/// (sinc θ, cosc θ) from θ²: the values of (A.7) and (A.8) at θ = √θ², with the square root
/// only taken in the closed-form branches (θ > 10⁻³), so derivatives are finite at θ = 0.
pub fn sinc_cosc_of_squared<D: Scalar>(theta_sq: &D) -> (D, D) {
    let t2 = theta_sq.re();
    let needs_root = t2 > SINC_SERIES_BELOW * SINC_SERIES_BELOW;
    let theta = if needs_root {
        theta_sq.sqrt()
    } else {
        D::zero()
    };
    let s = if needs_root {
        theta.sin() / &theta
    } else {
        D::one() - theta_sq.clone() / 6.0
    };
    let c = if t2 > COSC_SERIES_BELOW * COSC_SERIES_BELOW {
        (D::one() - theta.cos()) / theta_sq
    } else {
        D::from(0.5) - theta_sq.clone() / 24.0
    };
    (s, c)
}

/// The hinge rotation by `theta` about the unit `axis` (A.1).
pub fn hinge<D: Scalar>(axis: &[f64; 3], theta: &D) -> Mat3<D> {
    let [x, y, z] = *axis;
    let (s, c) = theta.sin_cos();
    let k = D::one() - &c;
    Mat3 {
        m: [
            [
                k.clone() * (x * x) + &c,
                k.clone() * (x * y) - s.clone() * z,
                k.clone() * (x * z) + s.clone() * y,
            ],
            [
                k.clone() * (x * y) + s.clone() * z,
                k.clone() * (y * y) + &c,
                k.clone() * (y * z) - s.clone() * x,
            ],
            [
                k.clone() * (x * z) - s.clone() * y,
                k.clone() * (y * z) + s.clone() * x,
                k * (z * z) + c,
            ],
        ],
    }
}

/// The exponential-map rotation of r = (x, y, z) (A.2): rotation by θ = |r| about r/θ.
pub fn exp_map<D: Scalar>(r: &Vec3<D>) -> Mat3<D> {
    let theta_sq = r.norm_squared();
    let (s, c) = sinc_cosc_of_squared(&theta_sq);
    let (x, y, z) = (&r.x, &r.y, &r.z);
    let diag = D::one() - c.clone() * &theta_sq;
    let xy = x.clone() * y * &c;
    let xz = x.clone() * z * &c;
    let yz = y.clone() * z * &c;
    let (xs, ys, zs) = (x.clone() * &s, y.clone() * &s, z.clone() * &s);
    Mat3 {
        m: [
            [
                x.clone() * x * &c + &diag,
                xy.clone() - &zs,
                xz.clone() + &ys,
            ],
            [xy + zs, y.clone() * y * &c + &diag, yz.clone() - &xs],
            [xz - ys, yz + xs, z.clone() * z * &c + diag],
        ],
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use num_dual::Dual64;

    fn max_abs_diff(a: &[[f64; 3]; 3], b: &[[f64; 3]; 3]) -> f64 {
        (0..9)
            .map(|k| (a[k / 3][k % 3] - b[k / 3][k % 3]).abs())
            .fold(0.0, f64::max)
    }

    fn orthonormality_error(r: &[[f64; 3]; 3]) -> f64 {
        let m = Mat3::<f64>::from_f64(*r);
        max_abs_diff(&m.tr_mul(&m).re(), &Mat3::<f64>::identity().re())
    }

    fn det(r: &[[f64; 3]; 3]) -> f64 {
        r[0][0] * (r[1][1] * r[2][2] - r[1][2] * r[2][1])
            - r[0][1] * (r[1][0] * r[2][2] - r[1][2] * r[2][0])
            + r[0][2] * (r[1][0] * r[2][1] - r[1][1] * r[2][0])
    }

    #[test]
    fn sinc_of_zero_is_one_and_cosc_of_zero_is_half() {
        // (A.3) as printed says sinc(0) = 0; the erratum: it is 1 (A.7).
        assert_eq!(sinc(&0.0), 1.0);
        assert_eq!(cosc(&0.0), 0.5);
        assert_eq!(d_sinc(&0.0), 0.0);
        assert_eq!(d_cosc(&0.0), 0.0);
        assert_eq!(sinc_cosc_of_squared(&0.0), (1.0, 0.5));
    }

    #[test]
    fn series_branches_agree_with_closed_forms_at_the_thresholds() {
        // Just above each threshold the closed form is used; the series there must agree to
        // (nearly) its truncation error: θ⁴/120, θ⁴/720, θ³/30, θ³/180 respectively.
        for (t, series, closed, tol) in [
            (
                SINC_SERIES_BELOW,
                1.0 - SINC_SERIES_BELOW.powi(2) / 6.0,
                sinc(&(SINC_SERIES_BELOW * (1.0 + 1e-12))),
                1e-13,
            ),
            (
                COSC_SERIES_BELOW,
                0.5 - COSC_SERIES_BELOW.powi(2) / 24.0,
                cosc(&(COSC_SERIES_BELOW * (1.0 + 1e-12))),
                2e-11,
            ),
            (
                D_SINC_SERIES_BELOW,
                -D_SINC_SERIES_BELOW / 3.0,
                d_sinc(&(D_SINC_SERIES_BELOW * (1.0 + 1e-12))),
                1e-10,
            ),
            (
                D_COSC_SERIES_BELOW,
                -D_COSC_SERIES_BELOW / 12.0,
                d_cosc(&(D_COSC_SERIES_BELOW * (1.0 + 1e-12))),
                1e-8,
            ),
        ] {
            assert!(
                (series - closed).abs() < tol,
                "θ = {t}: series {series} vs closed form {closed}"
            );
        }
        // The branches used at the thresholds themselves are the series.
        assert_eq!(
            sinc(&SINC_SERIES_BELOW),
            1.0 - SINC_SERIES_BELOW.powi(2) / 6.0
        );
        assert_eq!(
            cosc(&COSC_SERIES_BELOW),
            0.5 - COSC_SERIES_BELOW.powi(2) / 24.0
        );
        // Far from 0 the closed forms are exact.
        assert!((sinc(&1.0) - 1f64.sin()).abs() < 1e-15);
        assert!((cosc(&2.0) - (1.0 - 2f64.cos()) / 4.0).abs() < 1e-15);
        // sinc/cosc from θ² match the θ versions on both sides of the thresholds.
        for t in [0.0f64, 4e-4, 1e-3, 2e-3, 5e-3, 6e-3, 0.3, 2.5] {
            let (s, c) = sinc_cosc_of_squared(&(t * t));
            assert!((s - sinc(&t)).abs() < 1e-15, "sinc at {t}");
            assert!((c - cosc(&t)).abs() < 1e-15, "cosc at {t}");
        }
    }

    #[test]
    fn derivative_formulas_match_dual_number_derivatives() {
        // (A.5)/(A.6) (with A.9/A.10 near 0) against the derivatives dual numbers take of
        // (A.7)/(A.8), on both sides of the thresholds.
        for t in [1e-4f64, 4e-4, 6e-4, 3e-3, 6e-3, 0.1, 1.0, 3.0] {
            let d = Dual64::from_re(t).derivative();
            assert!((sinc(&d).eps - d_sinc(&t)).abs() < 1e-9, "d sinc at {t}");
            assert!((cosc(&d).eps - d_cosc(&t)).abs() < 1e-8, "d cosc at {t}");
        }
    }

    #[test]
    fn exp_map_about_one_axis_equals_the_hinge_matrix() {
        for axis in [
            [1.0, 0.0, 0.0],
            [0.0, 1.0, 0.0],
            [0.0, 0.0, 1.0],
            [0.48, -0.6, 0.64],
        ] {
            for theta in [-2.7, -0.4, 1e-4, 3e-3, 0.9, 3.0] {
                let r = Vec3::new(axis[0] * theta, axis[1] * theta, axis[2] * theta);
                let e = exp_map(&r).re();
                let h = hinge(&axis, &theta).re();
                assert!(
                    max_abs_diff(&e, &h) < 1e-14,
                    "axis {axis:?} θ {theta}: {e:?} vs {h:?}"
                );
            }
        }
        // Rotating (1, 0, 0) by 90° about z gives (0, 1, 0) (right-handed).
        let v = hinge(&[0.0, 0.0, 1.0], &std::f64::consts::FRAC_PI_2)
            .mul_vec(&Vec3::new(1.0, 0.0, 0.0));
        assert!((v.re()[0]).abs() < 1e-15 && (v.re()[1] - 1.0).abs() < 1e-15);
    }

    #[test]
    fn exp_map_is_orthonormal_with_unit_determinant() {
        for r in [
            [0.0, 0.0, 0.0],
            [1e-4, -2e-4, 3e-4],
            [2e-3, 1e-3, -2e-3],
            [0.3, -1.2, 0.8],
            [2.0, 1.0, -2.5],
        ] {
            let m = exp_map(&Vec3::new(r[0], r[1], r[2])).re();
            assert!(orthonormality_error(&m) < 1e-14, "RᵀR ≠ I at {r:?}");
            assert!((det(&m) - 1.0).abs() < 1e-14, "det ≠ 1 at {r:?}");
        }
    }

    #[test]
    fn exp_map_derivative_at_zero_is_the_cross_product_matrix() {
        // ∂R/∂r_k at r = 0 is [e_k]×: finite, no NaN from the square root.
        for k in 0..3 {
            let mut r = Vec3::<Dual64>::zero();
            *[&mut r.x, &mut r.y, &mut r.z][k] = Dual64::from_re(0.0).derivative();
            let m = exp_map(&r);
            let d = Mat3::<f64>::from_fn(|i, j| m.m[i][j].eps);
            let mut e = [0.0; 3];
            e[k] = 1.0;
            assert_eq!(d.vee().re(), e);
            assert_eq!(d.add(&d.transpose()).re(), [[0.0; 3]; 3]);
        }
    }
}
