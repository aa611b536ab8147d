//! Rigid motions of the ground plane: a turn about the vertical followed by a move along the
//! ground. They are the transform T of transformed-cyclic clips (McIntosh 2011, thesis §3.2.5,
//! Eq. 3.11), the placement of one clip's frames relative to another's in a motion graph (thesis
//! §4.3.1 after Kovar et al. 2002: the alignment up to a rotation about the vertical axis and a
//! translation in the floor plane) and a steered character's place and heading.
//!
//! Conventions are the project's: +y up, x forward, z to the character's right, so a positive
//! yaw turns +x towards −z (left).

use serde::{Deserialize, Serialize};
use std::ops::{Add, Mul, Sub};

/// A number a motion can move: f64, or the NLP's dual and tape numbers.
pub trait Coordinate:
    Clone + Add<f64, Output = Self> + Mul<f64, Output = Self> + Add<Output = Self> + Sub<Output = Self>
{
}
impl<T> Coordinate for T where
    T: Clone + Add<f64, Output = T> + Mul<f64, Output = T> + Add<Output = T> + Sub<Output = T>
{
}

/// A rigid motion of the ground plane: p ↦ R_y(yaw)·p + (x, 0, z), heading ψ ↦ ψ + yaw.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize, Default)]
pub struct PlanarMotion {
    pub x: f64,
    pub z: f64,
    pub yaw: f64,
}

impl PlanarMotion {
    pub const IDENTITY: PlanarMotion = PlanarMotion {
        x: 0.0,
        z: 0.0,
        yaw: 0.0,
    };

    /// Where a creature starting at the origin with heading 0 is after `time` seconds at speed
    /// `speed` and turn rate `turn_rate` (see the module docs; exact as ω → 0).
    pub fn along_arc(speed: f64, turn_rate: f64, time: f64) -> Self {
        let a = turn_rate * time;
        // sin(a)/ω and (1 − cos a)/ω as time·sinc and time·versinc, smooth at ω = 0.
        let (s, v) = if a.abs() < 1e-6 {
            (time * (1.0 - a * a / 6.0), time * a * 0.5)
        } else {
            (a.sin() / turn_rate, (1.0 - a.cos()) / turn_rate)
        };
        PlanarMotion {
            x: speed * s,
            z: -speed * v,
            yaw: a,
        }
    }

    /// [`Self::along_arc`] travelling at `strafe` rad to the left of the heading (thesis §5.2.1's
    /// strafe angle ϕ): the heading still turns at `turn_rate`, the velocity keeps the angle ϕ to
    /// it, so the arc's move along the ground is turned by ϕ about the start.
    pub fn along_strafed_arc(speed: f64, turn_rate: f64, strafe: f64, time: f64) -> Self {
        let arc = Self::along_arc(speed, turn_rate, time);
        if strafe == 0.0 {
            return arc;
        }
        let turn = PlanarMotion {
            yaw: strafe,
            ..Self::IDENTITY
        };
        let (x, z) = turn.apply_point(&arc.x, &arc.z);
        PlanarMotion { x, z, yaw: arc.yaw }
    }

    /// Applies the motion to the point (x, z) of the ground plane.
    pub fn apply_point<D: Coordinate>(&self, x: &D, z: &D) -> (D, D) {
        let (s, c) = self.yaw.sin_cos();
        (
            x.clone() * c + z.clone() * s + self.x,
            z.clone() * c - x.clone() * s + self.z,
        )
    }

    /// The inverse motion.
    pub fn inverse(&self) -> Self {
        let (s, c) = self.yaw.sin_cos();
        // R⁻¹ = R(−yaw); t' = −R⁻¹ t.
        PlanarMotion {
            x: -(c * self.x - s * self.z),
            z: -(s * self.x + c * self.z),
            yaw: -self.yaw,
        }
    }

    /// self ∘ other: first `other`, then `self`.
    pub fn compose(&self, other: &PlanarMotion) -> Self {
        let (x, z) = self.apply_point(&other.x, &other.z);
        PlanarMotion {
            x,
            z,
            yaw: self.yaw + other.yaw,
        }
    }

    /// Moves heading-root coordinates (yaw, pitch, roll, x, y, z, joints…) by this motion.
    pub fn apply_heading_root<D: Coordinate>(&self, q: &[D]) -> Vec<D> {
        let mut out = q.to_vec();
        out[0] = q[0].clone() + self.yaw;
        let (x, z) = self.apply_point(&q[3], &q[5]);
        out[3] = x;
        out[5] = z;
        out
    }

    /// The motion applied `times` times (T^k; the inverse's for negative k).
    pub fn power(&self, times: i64) -> Self {
        let step = if times < 0 { self.inverse() } else { *self };
        (0..times.unsigned_abs()).fold(PlanarMotion::IDENTITY, |acc, _| step.compose(&acc))
    }

    /// The motion that takes heading frame `from` onto heading frame `to` (both given as the
    /// motions that place them relative to the origin): to ∘ from⁻¹.
    pub fn between(from: &PlanarMotion, to: &PlanarMotion) -> Self {
        to.compose(&from.inverse())
    }

    /// Applies the motion to a world point (x, y, z).
    pub fn apply_vec3(&self, p: [f64; 3]) -> [f64; 3] {
        let (x, z) = self.apply_point(&p[0], &p[2]);
        [x, p[1], z]
    }

    /// Turns a world direction (no translation).
    pub fn rotate_vec3(&self, v: [f64; 3]) -> [f64; 3] {
        let (s, c) = self.yaw.sin_cos();
        [c * v[0] + s * v[2], v[1], c * v[2] - s * v[0]]
    }
}

/// The angle in (−π, π] equal to `a` modulo 2π.
pub fn wrap_angle(a: f64) -> f64 {
    let t = (a + std::f64::consts::PI).rem_euclid(std::f64::consts::TAU) - std::f64::consts::PI;
    if t == -std::f64::consts::PI {
        std::f64::consts::PI
    } else {
        t
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A strafed arc travels at ϕ to the heading and, being the arc conjugated by a turn of ϕ,
    /// still composes: two halves make the whole (a transformed cycle's T is its path's end).
    #[test]
    fn a_strafed_arc_travels_at_its_angle_to_the_heading() {
        let (v, phi) = (0.6, 30f64.to_radians());
        let straight = PlanarMotion::along_strafed_arc(v, 0.0, phi, 2.0);
        assert!((straight.x - 1.2 * phi.cos()).abs() < 1e-12);
        // Positive ϕ is to the left, towards −z.
        assert!((straight.z + 1.2 * phi.sin()).abs() < 1e-12);
        assert_eq!(straight.yaw, 0.0);
        for w in [0.0, 0.4, -0.7] {
            let half = PlanarMotion::along_strafed_arc(v, w, phi, 0.5);
            let whole = PlanarMotion::along_strafed_arc(v, w, phi, 1.0);
            let twice = half.compose(&half);
            for (a, b) in [
                (twice.x, whole.x),
                (twice.z, whole.z),
                (twice.yaw, whole.yaw),
            ] {
                assert!((a - b).abs() < 1e-12, "{w}: {a} against {b}");
            }
            // The start's velocity is at ϕ to the heading (finite difference).
            let h = 1e-6;
            let step = PlanarMotion::along_strafed_arc(v, w, phi, h);
            assert!(((-step.z).atan2(step.x) - phi).abs() < 1e-5);
        }
        assert_eq!(
            PlanarMotion::along_strafed_arc(v, 0.4, 0.0, 1.3),
            PlanarMotion::along_arc(v, 0.4, 1.3)
        );
    }

    #[test]
    fn the_arc_turns_about_its_centre_and_has_the_straight_limit() {
        let (v, w) = (1.2, 0.5);
        let c = [0.0, -v / w];
        for t in [0.3, 1.0, 2.7] {
            let p = PlanarMotion::along_arc(v, w, t);
            let r = ((p.x - c[0]).powi(2) + (p.z - c[1]).powi(2)).sqrt();
            assert!((r - v / w).abs() < 1e-12, "radius {r}");
            assert!((p.yaw - w * t).abs() < 1e-15);
        }
        let straight = PlanarMotion::along_arc(0.9, 0.0, 2.0);
        assert_eq!((straight.x, straight.z, straight.yaw), (1.8, 0.0, 0.0));
        // Continuous across ω = 0.
        let tiny = PlanarMotion::along_arc(0.9, 1e-9, 2.0);
        assert!((tiny.x - 1.8).abs() < 1e-12 && tiny.z.abs() < 1e-8);
        // Two half arcs make the whole one; the inverse undoes it.
        let half = PlanarMotion::along_arc(v, w, 0.5);
        let whole = half.compose(&half);
        let direct = PlanarMotion::along_arc(v, w, 1.0);
        for (a, b) in [
            (whole.x, direct.x),
            (whole.z, direct.z),
            (whole.yaw, direct.yaw),
        ] {
            assert!((a - b).abs() < 1e-12);
        }
        let back = direct.inverse().compose(&direct);
        assert!(back.x.abs() < 1e-12 && back.z.abs() < 1e-12 && back.yaw.abs() < 1e-15);
    }
}
