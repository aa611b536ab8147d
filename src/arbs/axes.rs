//! Hinge axes of an automatic ARBS (Borer et al. 2018, §4.2).
//!
//! - **Geometry** ([`hinge_axis`]): "the direction orthogonal to the directions from the joint
//!   position to the two associated rigid bodies", axis = normalize((c_parent − p) × (c_child −
//!   p)). When the two directions are within 3° of collinear (a straight limb) the cross
//!   product means nothing; the fallback is the character's lateral axis z made perpendicular
//!   to the limb, else x (a T-pose arm lies along z), else y.
//! - **Motion** ([`motion_axes`]): the paper only guesses and lets the user edit; ours is the axis
//!   of largest rotation in the animation. The geometric rule is blind to how a joint moves (a
//!   pelvis wider than it is tall gives the hips a frontal axis, and a walk's swing cannot be
//!   followed), so when the skeleton has animations a joint that turns takes the principal axis of
//!   its rotations, and hands what one hinge cannot make to the hinge above it.

use super::build::Segment;
use super::skeleton::{JointPose, Skeleton};
use nalgebra::{Matrix3, UnitQuaternion, Vector3};

/// How hinge axes are chosen.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum AxisRule {
    /// [`AxisRule::Motion`] when the skeleton has animation frames, else geometry.
    #[default]
    Auto,
    /// The cross-product rule of Borer et al. 2018, §4.2 (with the collinear fallback).
    Geometry,
    /// The axis of largest rotation in the skeleton's animations (our remedy), the
    /// geometric rule for joints that turn less than [`MIN_MOTION`] (RMS).
    Motion,
}

/// Where a hinge's axis came from.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum AxisSource {
    /// (c_parent − p) × (c_child − p).
    CrossProduct,
    /// The collinear fallback (lateral z, else x, made perpendicular to the limb).
    Collinear,
    /// The principal axis of the joint's rotations in the animations.
    Motion,
}

/// A joint turning less than this (RMS over the animation frames, rad) keeps the geometric
/// axis under [`AxisRule::Motion`]: 3°.
pub const MIN_MOTION: f64 = 0.0524;

/// The hinge axis of Borer et al. 2018, §4.2, for directions `u` (to the parent's centre) and `v`
/// (to the child's centre), and whether the collinear fallback was used (`limb`: the child's
/// direction).
pub fn hinge_axis(u: Vector3<f64>, v: Vector3<f64>, limb: Vector3<f64>) -> (Vector3<f64>, bool) {
    let c = u.cross(&v);
    // sin 3° ≈ 0.052.
    if c.norm() > 0.052 * u.norm() * v.norm() && c.norm() > 1e-12 {
        return (c.normalize(), false);
    }
    let limb = if limb.norm() > 1e-12 {
        limb.normalize()
    } else {
        Vector3::y()
    };
    for cand in [Vector3::z(), Vector3::x(), Vector3::y()] {
        let w = cand - limb * cand.dot(&limb);
        if w.norm() > 0.5 {
            return (w.normalize(), true);
        }
    }
    (Vector3::z(), true)
}

/// Motion axes of every body's hinge (`None`: the root, or a joint turning less than
/// [`MIN_MOTION`]). A body's samples are the relative rotations J_f of its KS joint k to its
/// parent's kp over every frame of every animation, J = (R_kp·R_kp,rest⁻¹)⁻¹·(R_k·R_k,rest⁻¹)
/// (the world-aligned rest frame of the clips' joints); its axis is the principal eigenvector
/// of Σ ω ωᵀ with ω = log J. Bodies are visited children first: what a hinge cannot make —
/// J·R(a, θ)⁻¹, θ the twist of J about the chosen axis a — is handed up to its parent's
/// samples when the parent has no other child body and a hinge of its own (the parent's
/// J_p becomes J_p·J·R(a, θ)⁻¹, the rotation it needs for the pair to make J_p·J), so that two
/// hinges in a row (a clavicle and a shoulder) share a two-axis motion.
pub(super) fn motion_axes(
    ks: &Skeleton,
    segs: &[Segment],
    parent_body: &[Option<usize>],
) -> Vec<Option<Vector3<f64>>> {
    let turn = |f: &[JointPose], j: usize| f[j].rotation() * ks.joints[j].rest.rotation().inverse();
    let mut samples: Vec<Vec<UnitQuaternion<f64>>> = segs
        .iter()
        .zip(parent_body)
        .map(|(s, pb)| match pb {
            Some(pb) => ks
                .animations
                .iter()
                .flat_map(|a| &a.frames)
                .map(|f| turn(f, segs[*pb].joint).inverse() * turn(f, s.joint))
                .collect(),
            None => Vec::new(),
        })
        .collect();
    let mut child_bodies = vec![0usize; segs.len()];
    for p in parent_body.iter().flatten() {
        child_bodies[*p] += 1;
    }
    let mut out = vec![None; segs.len()];
    for b in (0..segs.len()).rev() {
        let Some(pb) = parent_body[b] else { continue };
        let n = samples[b].len();
        if n == 0 {
            continue;
        }
        let mut m = Matrix3::zeros();
        for q in &samples[b] {
            let w = q.scaled_axis();
            m += w * w.transpose();
        }
        if (m.trace() / n as f64).sqrt() < MIN_MOTION {
            continue;
        }
        let eig = m.symmetric_eigen();
        let axis: Vector3<f64> = eig.eigenvectors.column(eig.eigenvalues.imax()).into_owned();
        let axis = axis.normalize();
        out[b] = Some(axis);
        if child_bodies[pb] == 1 && parent_body[pb].is_some() {
            let rest: Vec<UnitQuaternion<f64>> = samples[b]
                .iter()
                .map(|q| {
                    let c = q.quaternion();
                    let along = c.imag().dot(&axis);
                    let twist = 2.0 * along.atan2(c.w);
                    q * UnitQuaternion::from_axis_angle(
                        &nalgebra::Unit::new_unchecked(axis),
                        -twist,
                    )
                })
                .collect();
            for (qp, r) in samples[pb].iter_mut().zip(rest) {
                *qp *= r;
            }
        }
    }
    out
}
