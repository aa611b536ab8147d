//! The one pose and rotation vocabulary of the Rapier side: unit quaternions (x, y, z, w) as
//! `[f32; 4]`, body poses as `[x, y, z, qx, qy, qz, qw]` (`Simulation::body_pose`), gravity.
//! Every controller, task and command reads orientations through these functions instead of
//! writing the formulas out again.

use num_traits::Float;

/// Standard gravity, m/s², pointing down the y axis (the simulation's world).
pub const GRAVITY: f32 = 9.81;
/// The same, for the f64 spacetime solver.
pub const GRAVITY_F64: f64 = 9.81;

/// Quaternion (x, y, z, w) of rotations about x, then y, then z (extrinsic), angles in degrees.
pub fn euler_xyz_deg_to_quat<F: Float>(r: [F; 3]) -> [F; 4] {
    let half = F::from(0.5).unwrap();
    let (hx, hy, hz) = (
        r[0].to_radians() * half,
        r[1].to_radians() * half,
        r[2].to_radians() * half,
    );
    let o = F::zero();
    let qx = [hx.sin(), o, o, hx.cos()];
    let qy = [o, hy.sin(), o, hy.cos()];
    let qz = [o, o, hz.sin(), hz.cos()];
    quat_mul(qz, quat_mul(qy, qx))
}

/// The inverse of [`euler_xyz_deg_to_quat`]: rotations about x, then y, then z (extrinsic),
/// degrees, of the unit quaternion (x, y, z, w).
pub fn quat_to_euler_xyz_deg(q: [f64; 4]) -> [f64; 3] {
    let q = nalgebra::UnitQuaternion::from_quaternion(nalgebra::Quaternion::new(
        q[3], q[0], q[1], q[2],
    ));
    let (x, y, z) = q.euler_angles();
    [x, y, z].map(f64::to_degrees)
}

pub fn quat_mul<F: Float>(a: [F; 4], b: [F; 4]) -> [F; 4] {
    [
        a[3] * b[0] + a[0] * b[3] + a[1] * b[2] - a[2] * b[1],
        a[3] * b[1] - a[0] * b[2] + a[1] * b[3] + a[2] * b[0],
        a[3] * b[2] + a[0] * b[1] - a[1] * b[0] + a[2] * b[3],
        a[3] * b[3] - a[0] * b[0] - a[1] * b[1] - a[2] * b[2],
    ]
}

/// Rotates `v` by the unit quaternion `q` (x, y, z, w).
pub fn rotate<F: Float>(q: [F; 4], v: [F; 3]) -> [F; 3] {
    let u = [q[0], q[1], q[2]];
    let s = q[3];
    let cross = |a: [F; 3], b: [F; 3]| {
        [
            a[1] * b[2] - a[2] * b[1],
            a[2] * b[0] - a[0] * b[2],
            a[0] * b[1] - a[1] * b[0],
        ]
    };
    let t = cross(u, v).map(|x| x + x);
    let c = cross(u, t);
    [
        v[0] + s * t[0] + c[0],
        v[1] + s * t[1] + c[1],
        v[2] + s * t[2] + c[2],
    ]
}

/// The rotation vector (axis × angle, radians) of the unit quaternion `q`, taking the shorter
/// way round (angle in [0, π]).
pub fn rotation_vector(q: [f32; 4]) -> [f32; 3] {
    let q = if q[3] < 0.0 {
        [-q[0], -q[1], -q[2], -q[3]]
    } else {
        q
    };
    let s = (q[0] * q[0] + q[1] * q[1] + q[2] * q[2]).sqrt();
    if s < 1e-9 {
        return [0.0; 3];
    }
    let a = 2.0 * s.atan2(q[3]);
    [q[0] / s * a, q[1] / s * a, q[2] / s * a]
}

/// The angle (radians, in (−2π, 2π]) of a rotation about world z, read from the quaternion of a
/// planar body or of a root whose pitch is wanted: 2·atan2(q_z, q_w).
pub fn pitch_about_z(q: [f32; 4]) -> f32 {
    2.0 * q[2].atan2(q[3])
}

/// The orientation part of a body pose `[x, y, z, qx, qy, qz, qw]`.
pub fn pose_rotation(pose: [f32; 7]) -> [f32; 4] {
    [pose[3], pose[4], pose[5], pose[6]]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn euler_angles_round_trip() {
        for r in [
            [0.0, 0.0, 0.0],
            [10.0, -35.0, 80.0],
            [-170.0, 60.0, 5.0],
            [90.0, 0.0, -90.0],
        ] {
            let q = euler_xyz_deg_to_quat(r);
            let back = quat_to_euler_xyz_deg(q);
            let q2 = euler_xyz_deg_to_quat(back);
            let dot: f64 = q.iter().zip(&q2).map(|(a, b)| a * b).sum();
            assert!(dot.abs() > 1.0 - 1e-12, "{r:?} -> {back:?}");
            assert!(
                back.iter().zip(&r).all(|(a, b)| (a - b).abs() < 1e-9),
                "{r:?} -> {back:?}"
            );
        }
    }
}
