//! Small geometry the editing tools share (Borer et al. 2018, §4.3): shape volumes and support
//! points, body ↔ world frames of the reference pose, and the reflection across the sagittal
//! plane z = 0 that the mirror mode applies.

use crate::model::{Body, Shape, rotate};

pub(super) fn add(a: [f64; 3], b: [f64; 3]) -> [f64; 3] {
    [a[0] + b[0], a[1] + b[1], a[2] + b[2]]
}

pub(super) fn sub(a: [f64; 3], b: [f64; 3]) -> [f64; 3] {
    [a[0] - b[0], a[1] - b[1], a[2] - b[2]]
}

pub(super) fn scale(a: [f64; 3], k: f64) -> [f64; 3] {
    [a[0] * k, a[1] * k, a[2] * k]
}

pub(super) fn dot(a: [f64; 3], b: [f64; 3]) -> f64 {
    a[0] * b[0] + a[1] * b[1] + a[2] * b[2]
}

pub(super) fn norm(a: [f64; 3]) -> f64 {
    dot(a, a).sqrt()
}

/// `0 − x`: the negation that never writes `-0.0` into a file.
pub(super) fn neg(x: f64) -> f64 {
    0.0 - x
}

/// Volume of a shape, m³ (mass = density × volume).
pub fn volume(shape: &Shape) -> f64 {
    use std::f64::consts::PI;
    match *shape {
        Shape::Capsule {
            radius,
            half_length,
            ..
        } => PI * radius * radius * 2.0 * half_length + 4.0 / 3.0 * PI * radius.powi(3),
        Shape::Box { half_extents: h } => 8.0 * h[0] * h[1] * h[2],
        Shape::Ellipsoid { radii: r } => 4.0 / 3.0 * PI * r[0] * r[1] * r[2],
        Shape::Cylinder {
            radius,
            half_length,
            ..
        } => PI * radius * radius * 2.0 * half_length,
    }
}

/// The point of `shape` (body frame, centred on the centre of mass) farthest along the unit
/// direction `u` (body frame).
pub(super) fn support_point(shape: &Shape, u: [f64; 3]) -> [f64; 3] {
    let sign = |x: f64| {
        if x > 0.0 {
            1.0
        } else if x < 0.0 {
            -1.0
        } else {
            0.0
        }
    };
    match *shape {
        Shape::Box { half_extents: h } => [h[0] * sign(u[0]), h[1] * sign(u[1]), h[2] * sign(u[2])],
        Shape::Ellipsoid { radii: r } => {
            let w = [r[0] * r[0] * u[0], r[1] * r[1] * u[1], r[2] * r[2] * u[2]];
            let s = dot(w, u).sqrt();
            if s > 0.0 { scale(w, 1.0 / s) } else { [0.0; 3] }
        }
        Shape::Capsule {
            radius,
            half_length,
            axis,
        } => {
            let mut p = scale(u, radius / norm(u).max(1e-300));
            p[axis.index()] += half_length * sign(u[axis.index()]);
            p
        }
        Shape::Cylinder {
            radius,
            half_length,
            axis,
        } => {
            let a = axis.index();
            let mut across = u;
            across[a] = 0.0;
            let n = norm(across);
            let mut p = if n > 1e-12 {
                scale(across, radius / n)
            } else {
                [0.0; 3]
            };
            p[a] = half_length * sign(u[a]);
            p
        }
    }
}

/// Half the width of `shape` along the unit direction `u` (body frame): its support value.
pub(super) fn half_width(shape: &Shape, u: [f64; 3]) -> f64 {
    dot(support_point(shape, u), u)
}

fn conjugate(q: [f64; 4]) -> [f64; 4] {
    [-q[0], -q[1], -q[2], q[3]]
}

/// A direction of the body frame in world coordinates (reference pose).
pub(super) fn dir_to_world(b: &Body, v: [f64; 3]) -> [f64; 3] {
    rotate(b.orientation(), v)
}

/// A world direction in the body frame (reference pose).
pub(super) fn dir_to_body(b: &Body, v: [f64; 3]) -> [f64; 3] {
    rotate(conjugate(b.orientation()), v)
}

/// A point of the body frame in world coordinates (reference pose).
pub(super) fn point_to_world(b: &Body, p: [f64; 3]) -> [f64; 3] {
    add(b.position, dir_to_world(b, p))
}

/// A world point in the body frame (reference pose).
pub(super) fn point_to_body(b: &Body, p: [f64; 3]) -> [f64; 3] {
    dir_to_body(b, sub(p, b.position))
}

/// The reflection of a point across the sagittal plane: (x, y, z) → (x, y, −z).
pub(super) fn mirror_point(p: [f64; 3]) -> [f64; 3] {
    [p[0], p[1], neg(p[2])]
}

/// The reflection of a rotation axis, an axial vector: a → (−aₓ, −a_y, a_z). A rotation by θ
/// about `a` reflects to a rotation by θ about this axis.
pub(super) fn mirror_axis(a: [f64; 3]) -> [f64; 3] {
    [neg(a[0]), neg(a[1]), a[2]]
}

/// The reflection of an orientation given as rotations about x, then y, then z (degrees):
/// M·Rz(c)·Ry(b)·Rx(a)·M = Rz(c)·Ry(−b)·Rx(−a) for M = diag(1, 1, −1). The reflected body's
/// shapes are symmetric under their own z reflection, so the shape itself is unchanged.
pub(super) fn mirror_rotation(r: [f64; 3]) -> [f64; 3] {
    [neg(r[0]), neg(r[1]), r[2]]
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::{Axis, euler_xyz_deg_to_quat};

    #[test]
    fn mirrored_rotation_is_the_reflection() {
        let r = [20.0, -35.0, 50.0];
        let (q, qm) = (
            euler_xyz_deg_to_quat(r),
            euler_xyz_deg_to_quat(mirror_rotation(r)),
        );
        for v in [[1.0, 0.0, 0.0], [0.0, 1.0, 0.0], [0.3, -0.2, 0.9]] {
            // M R M v = R' v
            let want = mirror_point(rotate(q, mirror_point(v)));
            let got = rotate(qm, v);
            for k in 0..3 {
                assert!((want[k] - got[k]).abs() < 1e-12, "{want:?} vs {got:?}");
            }
        }
    }

    #[test]
    fn support_points_lie_on_the_shapes() {
        let u = [0.6, -0.8, 0.0];
        let capsule = Shape::Capsule {
            radius: 0.1,
            half_length: 0.2,
            axis: Axis::Y,
        };
        assert!((half_width(&capsule, u) - (0.8 * 0.2 + 0.1)).abs() < 1e-12);
        let b = Shape::Box {
            half_extents: [0.1, 0.2, 0.3],
        };
        assert_eq!(support_point(&b, u), [0.1, -0.2, 0.0]);
        let e = Shape::Ellipsoid {
            radii: [0.2, 0.2, 0.2],
        };
        assert!((half_width(&e, u) - 0.2).abs() < 1e-12);
        let cyl = Shape::Cylinder {
            radius: 0.1,
            half_length: 0.2,
            axis: Axis::X,
        };
        assert!((half_width(&cyl, u) - (0.6 * 0.2 + 0.8 * 0.1)).abs() < 1e-12);
        assert!((volume(&b) - 0.048).abs() < 1e-15);
    }
}
