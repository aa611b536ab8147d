//! Two-bone leg IK on world body poses: the knee bends in the plane of hip, knee and ankle to
//! the length the target needs (law of cosines), then the hip turns the leg by the smallest
//! rotation onto the target; the foot keeps its world orientation, hung from the moved ankle.
//! Joint coordinates are read back from the bodies ([`crate::clip::pose::coordinates_of`]).
//! Foot locking in steering and the full body of footstep plans (Agrawal 2016, thesis §5.5)
//! both place feet with it.
//!
//! The leg of a foot effector is the chain of the three joints above the effector's foot (ankle,
//! knee, hip); a motion-capture leg that ends in a toe has the toe's parent as its foot.

use crate::clip::pose::{pose_of, quat_of, reference_orientation};
use crate::model::{Character, EffectorTag};
use nalgebra::{Rotation3, Unit, UnitQuaternion, Vector3};
use std::f64::consts::{FRAC_PI_2, PI};

/// One leg: body indices (thigh, shin, foot), and the effector's body and point (on the foot,
/// or on a toe hanging from it).
#[derive(Clone, Debug)]
pub struct Leg {
    /// Index of the foot effector among the character's effectors.
    pub effector: usize,
    pub thigh: usize,
    pub shin: usize,
    pub foot: usize,
    pub effector_body: usize,
    pub point: Vector3<f64>,
    /// The knee hinge's flexion direction (−1 or +1: the side of its wider limit), 0 when the
    /// knee is not a limited hinge (then it bends in the plane the leg makes).
    pub flexion: f64,
    /// The leg's joint coordinates (hip, knee, ankle) in the pose's order.
    pub coordinates: Vec<usize>,
    /// The toes' direction, seen from the foot's reference frame: +x, or for a leg ending in a
    /// toe, from the ankle to the toe's effector point in the reference pose, along the ground
    /// (+x when the toe is straight below the ankle).
    pub forward: Vector3<f64>,
}

impl Leg {
    /// The ankle's coordinates with their limits in radians: (index into the pose's
    /// coordinates, low, high); none when the foot hangs from no joint.
    pub fn ankle_limits(&self, c: &Character) -> Vec<(usize, f64, f64)> {
        let Some(j) = hanging_joint(c, self.foot) else {
            return Vec::new();
        };
        let first: usize = c.joints[..j].iter().map(|j| j.kind.dof()).sum();
        c.joints[j]
            .limits
            .iter()
            .enumerate()
            .map(|(k, &(lo, hi))| (first + k, lo.to_radians(), hi.to_radians()))
            .collect()
    }

    /// The effector's point on a posed character.
    pub fn foot_point(&self, poses: &[[f64; 7]]) -> Vector3<f64> {
        let b = self.effector_body;
        position(&poses[b]) + quat_of(&poses[b]) * self.point
    }
}

/// The joint a body hangs from.
fn hanging_joint(c: &Character, body: usize) -> Option<usize> {
    c.joints.iter().position(|j| j.child == c.bodies[body].name)
}

/// The legs of `c`'s foot effectors that hang from three joints, in effector order.
pub fn legs(c: &Character) -> Vec<Leg> {
    let parent_joint = |body: usize| hanging_joint(c, body);
    let parent_body = |joint: usize| c.body_index(&c.joints[joint].parent);
    let legs: Vec<Leg> = c
        .end_effectors
        .iter()
        .enumerate()
        .filter(|(_, e)| e.tag == EffectorTag::Foot)
        .filter_map(|(k, e)| {
            let effector_body = c.body_index(&e.body)?;
            // Motion-capture skeletons end a leg in a toe: the foot is its parent.
            let foot = if e.body.to_lowercase().contains("toe") {
                parent_body(parent_joint(effector_body)?)?
            } else {
                effector_body
            };
            let shin = parent_body(parent_joint(foot)?)?;
            let thigh = parent_body(parent_joint(shin)?)?;
            parent_joint(thigh)?;
            let knee = &c.joints[parent_joint(shin)?];
            let flexion = match (&knee.kind, knee.limits.first()) {
                (crate::model::JointKind::Hinge { .. }, Some(&(lo, hi))) => {
                    if -lo > hi {
                        -1.0
                    } else {
                        1.0
                    }
                }
                _ => 0.0,
            };
            let first =
                |joint: usize| -> usize { c.joints[..joint].iter().map(|j| j.kind.dof()).sum() };
            let coordinates = [
                parent_joint(thigh)?,
                parent_joint(shin)?,
                parent_joint(foot)?,
            ]
            .into_iter()
            .flat_map(|j| first(j)..first(j) + c.joints[j].kind.dof())
            .collect();
            let forward = if effector_body == foot {
                Vector3::x()
            } else {
                rest_forward(c, parent_joint(foot)?, foot, effector_body, e.point)
                    .unwrap_or_else(Vector3::x)
            };
            Some(Leg {
                flexion,
                coordinates,
                forward,
                effector: k,
                thigh,
                shin,
                foot,
                effector_body,
                point: Vector3::from(e.point),
            })
        })
        .collect();
    legs
}

/// The direction from a foot's ankle to its toe's effector point in the reference pose, along
/// the ground, in the foot's reference frame; None when the toe is straight below the ankle.
fn rest_forward(
    c: &Character,
    ankle: usize,
    foot: usize,
    toe: usize,
    point: [f64; 3],
) -> Option<Vector3<f64>> {
    let poses = reference_poses(c);
    let toe_point = position(&poses[toe]) + quat_of(&poses[toe]) * Vector3::from(point);
    let along = toe_point - anchor(c, &poses, ankle, foot);
    let flat = Vector3::new(along.x, 0.0, along.z);
    (flat.norm() > 1e-6).then(|| relative(c, &poses, foot).inverse() * flat.normalize())
}

/// Every body in its reference pose: the root at the origin in its reference orientation,
/// every joint coordinate 0.
pub fn reference_poses(c: &Character) -> Vec<[f64; 7]> {
    let dof: usize = c.joints.iter().map(|j| j.kind.dof()).sum();
    let root = c
        .body_index(&c.root.body)
        .map_or(UnitQuaternion::identity(), |b| {
            reference_orientation(&c.bodies[b])
        });
    crate::clip::pose::body_poses(c, &pose_of(Vector3::zeros(), &root), &vec![0.0; dof])
}

/// Where a character's toes point in its reference pose, along the ground: the mean of its legs'
/// (+x for a character without legs, the model's convention). Motion-capture skeletons face
/// wherever their capture did; a clip's heading is taken along this axis.
pub fn toes_forward(c: &Character, legs: &[Leg]) -> [f64; 3] {
    let poses = reference_poses(c);
    let sum: Vector3<f64> = legs
        .iter()
        .map(|l| relative(c, &poses, l.foot) * l.forward)
        .sum();
    let flat = Vector3::new(sum.x, 0.0, sum.z);
    if flat.norm() > 1e-6 {
        let n = flat.normalize();
        [n.x, 0.0, n.z]
    } else {
        [1.0, 0.0, 0.0]
    }
}

/// A body's world rotation relative to its reference orientation.
pub fn relative(c: &Character, poses: &[[f64; 7]], b: usize) -> UnitQuaternion<f64> {
    quat_of(&poses[b]) * reference_orientation(&c.bodies[b]).inverse()
}

pub fn position(p: &[f64; 7]) -> Vector3<f64> {
    Vector3::new(p[0], p[1], p[2])
}

/// The world position of a joint's anchor, seen from its child body.
pub fn anchor(c: &Character, poses: &[[f64; 7]], joint: usize, child: usize) -> Vector3<f64> {
    let j = &c.joints[joint];
    position(&poses[child])
        + relative(c, poses, child)
            * (Vector3::from(j.anchor) - Vector3::from(c.bodies[child].position))
}

/// The fraction of a leg's length over which the IK's reach is softened. 1.5 %: the knee's
/// largest change in one 1/60 s frame on the scripted steering run is 0.39 rad (3 % gave 0.41
/// and held the feet 2 mm less close at the end of a stance).
const SOFT_REACH: f64 = 0.015;

/// Bends one leg of `poses` (world body poses) so that its foot point (now at `foot_point`) reaches `target`,
/// keeping the foot's world orientation (the point moves with the ankle).
pub fn reach(
    c: &Character,
    poses: &mut [[f64; 7]],
    leg: &Leg,
    foot_point: Vector3<f64>,
    target: Vector3<f64>,
) {
    let joint_of = |body: usize| hanging_joint(c, body).expect("a leg body hangs from a joint");
    let (hip, knee, ankle) = (joint_of(leg.thigh), joint_of(leg.shin), joint_of(leg.foot));
    let h = anchor(c, poses, hip, leg.thigh);
    let k = anchor(c, poses, knee, leg.shin);
    let a = anchor(c, poses, ankle, leg.foot);
    let want_ankle = a + (target - foot_point);
    let (l1, l2) = ((k - h).norm(), (a - k).norm());
    if l1 < 1e-6 || l2 < 1e-6 {
        return;
    }
    // Soft IK near full extension: the knee's angle changes without bound per unit of reach as
    // the leg straightens, so a target just out of reach and then just inside it popped the
    // knee by 0.43 rad in one frame. The last SOFT_REACH of the leg's length is approached
    // exponentially instead (the foot falls short of its target by millimetres).
    let full = l1 + l2;
    let soft = SOFT_REACH * full;
    let distance = (want_ankle - h).norm();
    let distance = if distance > full - soft {
        full - soft + soft * (1.0 - (-(distance - (full - soft)) / soft).exp())
    } else {
        distance
    };
    let reach = distance.clamp((l1 - l2).abs() + 1e-4, full - 1e-4);
    let (u, w) = (h - k, a - k);
    // atan2 of the cross and dot products: exact where acos of a rounded cosine is not (a
    // straight leg's cosine can round past −1, and acos of it is NaN).
    let interior = u.cross(&w).norm().atan2(u.dot(&w));
    let wanted = ((l1 * l1 + l2 * l2 - reach * reach) / (2.0 * l1 * l2))
        .clamp(-1.0, 1.0)
        .acos();
    let normal = u.cross(&w);
    let bend = if let (crate::model::JointKind::Hinge { axis }, true) =
        (&c.joints[knee].kind, leg.flexion != 0.0)
    {
        // About the knee's own axis, towards flexion: a nearly straight leg has no plane to
        // bend in (the cross product flips with rounding and the knee would pop backwards).
        let n = relative(c, poses, leg.thigh) * Vector3::from(*axis);
        Rotation3::from_axis_angle(&Unit::new_normalize(n), leg.flexion * (interior - wanted))
    } else if normal.norm() > 1e-9 {
        Rotation3::from_axis_angle(&Unit::new_normalize(normal), wanted - interior)
    } else {
        Rotation3::identity()
    };
    let rotate_about =
        |poses: &mut [[f64; 7]], body: usize, pivot: Vector3<f64>, r: &Rotation3<f64>| {
            let p = pivot + r * (position(&poses[body]) - pivot);
            let q = UnitQuaternion::from_rotation_matrix(r) * quat_of(&poses[body]);
            poses[body] = pose_of(p, &q);
        };
    let foot_rotation = quat_of(&poses[leg.foot]);
    rotate_about(poses, leg.shin, k, &bend);
    let a_bent = k + bend * (a - k);
    let swing = Rotation3::rotation_between(&(a_bent - h), &(want_ankle - h))
        .unwrap_or_else(Rotation3::identity);
    rotate_about(poses, leg.thigh, h, &swing);
    rotate_about(poses, leg.shin, h, &swing);
    // The foot keeps its orientation, hung from the moved ankle.
    let new_ankle = anchor(c, poses, ankle, leg.shin);
    let rel = foot_rotation * reference_orientation(&c.bodies[leg.foot]).inverse();
    let com = new_ankle
        + rel
            * (Vector3::from(c.bodies[leg.foot].position) - Vector3::from(c.joints[ankle].anchor));
    let foot = pose_of(com, &foot_rotation);
    if foot.iter().all(|v| v.is_finite()) {
        poses[leg.foot] = foot;
    }
}

/// Turns a leg's foot to the world orientation `q` (a body orientation, reference included),
/// hung from the ankle where it is. The effector point moves with the foot; a leg that ends in
/// a toe leaves the toe where it was.
pub fn orient_foot(c: &Character, poses: &mut [[f64; 7]], leg: &Leg, q: &UnitQuaternion<f64>) {
    let Some(ankle) = hanging_joint(c, leg.foot) else {
        return;
    };
    let a = anchor(c, poses, ankle, leg.shin);
    let rel = q * reference_orientation(&c.bodies[leg.foot]).inverse();
    let com = a + rel
        * (Vector3::from(c.bodies[leg.foot].position) - Vector3::from(c.joints[ankle].anchor));
    poses[leg.foot] = pose_of(com, q);
}

/// The greatest distance from a leg's hip to its ankle, m (thigh plus shin).
pub fn length(c: &Character, poses: &[[f64; 7]], leg: &Leg) -> f64 {
    let joint_of = |body: usize| hanging_joint(c, body);
    let (Some(hip), Some(knee), Some(ankle)) =
        (joint_of(leg.thigh), joint_of(leg.shin), joint_of(leg.foot))
    else {
        return 0.0;
    };
    let h = anchor(c, poses, hip, leg.thigh);
    let k = anchor(c, poses, knee, leg.shin);
    let a = anchor(c, poses, ankle, leg.foot);
    (k - h).norm() + (a - k).norm()
}

/// Where a leg's hip and ankle are on a posed character (the joints' anchors).
pub fn hip_and_ankle(
    c: &Character,
    poses: &[[f64; 7]],
    leg: &Leg,
) -> Option<(Vector3<f64>, Vector3<f64>)> {
    let joint_of = |body: usize| hanging_joint(c, body);
    let hip = joint_of(leg.thigh)?;
    let ankle = joint_of(leg.foot)?;
    Some((
        anchor(c, poses, hip, leg.thigh),
        anchor(c, poses, ankle, leg.foot),
    ))
}

/// Twists a leg about its hip–ankle line so that the knee's hinge axis is perpendicular to the
/// world direction `forward` (the way the foot should point), with the knee bent towards it. An
/// ankle that only flexes and tilts (a universal joint) can then turn the foot to any yaw: the
/// yaw comes from the hip. The ankle stays where it is; the foot keeps its world orientation.
pub fn twist_towards(c: &Character, poses: &mut [[f64; 7]], leg: &Leg, forward: Vector3<f64>) {
    let Some((h, a)) = hip_and_ankle(c, poses, leg) else {
        return;
    };
    let line = a - h;
    let Some(u) = Unit::try_new(line, 1e-9) else {
        return;
    };
    let Some(knee_joint) = hanging_joint(c, leg.shin) else {
        return;
    };
    let crate::model::JointKind::Hinge { axis } = &c.joints[knee_joint].kind else {
        return;
    };
    let k = relative(c, poses, leg.shin) * Vector3::from(*axis);
    let k_perp = k - u.into_inner() * k.dot(&u);
    let (b, s) = (k_perp.dot(&forward), u.cross(&k_perp).dot(&forward));
    if b.hypot(s) < 1e-9 {
        return;
    }
    let knee = anchor(c, poses, knee_joint, leg.shin);
    let bend = knee - h - u.into_inner() * (knee - h).dot(&u);
    // k(φ)·forward = b cos φ + s sin φ vanishes at φ0 ± π/2; take the one that leaves the knee
    // bent towards `forward` (the bend direction turns with the axis).
    let phi0 = s.atan2(b);
    let candidates = [phi0 + FRAC_PI_2, phi0 - FRAC_PI_2].map(|p| {
        let r = Rotation3::from_axis_angle(&u, p);
        let p = if p > PI {
            p - 2.0 * PI
        } else if p < -PI {
            p + 2.0 * PI
        } else {
            p
        };
        (p, (r * bend).dot(&forward))
    });
    let phi = if candidates[0].1 >= candidates[1].1 {
        candidates[0].0
    } else {
        candidates[1].0
    };
    let r = Rotation3::from_axis_angle(&u, phi);
    let foot = poses[leg.foot];
    for body in [leg.thigh, leg.shin] {
        let p = h + r * (position(&poses[body]) - h);
        let q = UnitQuaternion::from_rotation_matrix(&r) * quat_of(&poses[body]);
        poses[body] = pose_of(p, &q);
    }
    poses[leg.foot] = foot;
}

/// Weight of the foot point's error against its orientation's in [`reach_within_limits`], per
/// metre against per radian: a millimetre counts as 0.1 rad.
const POINT_WEIGHT: f64 = 100.0;
/// Damped Gauss–Newton steps of [`reach_within_limits`].
const LIMITED_STEPS: usize = 30;

/// A leg's coordinates (hip, knee, ankle) within their limits that bring its foot point nearest
/// `target` and its foot body nearest the world orientation `orientation` (reference included),
/// the point weighted [`POINT_WEIGHT`] times a radian per metre: where the two-bone solve would
/// twist a hip past its limit, the foot turns or tilts a little from its orientation instead and
/// stays on its point. A projected Levenberg–Marquardt search from `joints` (clamped into the
/// limits first) over the leg's coordinates only; `limits` are every coordinate's, in radians.
pub fn reach_within_limits(
    c: &Character,
    root: &[f64; 7],
    joints: &mut [f64],
    leg: &Leg,
    limits: &[Option<(f64, f64)>],
    target: Vector3<f64>,
    orientation: &UnitQuaternion<f64>,
) {
    use nalgebra::{DMatrix, DVector};
    let vars = &leg.coordinates;
    let bound = |i: usize| limits[i].unwrap_or((f64::NEG_INFINITY, f64::INFINITY));
    for &i in vars {
        let (lo, hi) = bound(i);
        joints[i] = joints[i].clamp(lo, hi);
    }
    let residual = |joints: &[f64]| -> DVector<f64> {
        let poses = crate::clip::pose::body_poses(c, root, joints);
        let p = (leg.foot_point(&poses) - target) * POINT_WEIGHT;
        let e = (quat_of(&poses[leg.foot]) * orientation.inverse()).scaled_axis();
        DVector::from_column_slice(&[p.x, p.y, p.z, e.x, e.y, e.z])
    };
    let mut r = residual(joints);
    let mut damping = 1e-3;
    for _ in 0..LIMITED_STEPS {
        let cost = r.norm_squared();
        if cost < 1e-14 {
            break;
        }
        // Forward differences, stepping inwards at a bound.
        let mut jac = DMatrix::zeros(6, vars.len());
        for (k, &i) in vars.iter().enumerate() {
            let (_, hi) = bound(i);
            let h = if joints[i] + 1e-6 > hi { -1e-6 } else { 1e-6 };
            let keep = joints[i];
            joints[i] += h;
            jac.set_column(k, &((residual(joints) - &r) / h));
            joints[i] = keep;
        }
        let gradient = jac.transpose() * &r;
        // A coordinate at a bound that the descent would push further out stays there.
        let free: Vec<usize> = (0..vars.len())
            .filter(|&k| {
                let (lo, hi) = bound(vars[k]);
                let x = joints[vars[k]];
                !((x >= hi && gradient[k] < 0.0) || (x <= lo && gradient[k] > 0.0))
            })
            .collect();
        if free.is_empty() {
            break;
        }
        let jf = jac.select_columns(&free);
        let normal = jf.transpose() * &jf;
        let g = jf.transpose() * &r;
        let mut improved = false;
        for _ in 0..8 {
            let mut a = normal.clone();
            for d in 0..free.len() {
                a[(d, d)] += damping * (1.0 + normal[(d, d)]);
            }
            let Some(step) = a.cholesky().map(|ch| ch.solve(&(-&g))) else {
                damping *= 10.0;
                continue;
            };
            let mut trial = joints.to_vec();
            for (d, &k) in free.iter().enumerate() {
                let i = vars[k];
                let (lo, hi) = bound(i);
                trial[i] = (trial[i] + step[d]).clamp(lo, hi);
            }
            let tr = residual(&trial);
            if tr.norm_squared() < cost {
                joints.copy_from_slice(&trial);
                r = tr;
                damping = (damping / 3.0).max(1e-9);
                improved = true;
                break;
            }
            damping *= 4.0;
        }
        if !improved {
            break;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::clip::pose::body_poses;
    use crate::model::load_character;

    /// human3d's walker, its root at the reference pose, every coordinate 0, its left leg.
    fn walker() -> (Character, [f64; 7], Vec<f64>, Leg) {
        let c = load_character(
            &std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("characters/human3d_walker.ron"),
        )
        .unwrap();
        let root = reference_poses(&c)[c.body_index(&c.root.body).unwrap()];
        let joints = vec![0.0; c.internal_dof()];
        let leg = legs(&c).remove(0);
        (c, root, joints, leg)
    }

    /// The foot turned `yaw` about the vertical and its point moved by `shift`: the leg's
    /// coordinates found, the point's error (m) and the foot's orientation error (rad).
    fn turn_foot(
        yaw: f64,
        shift: Vector3<f64>,
    ) -> (Vec<f64>, Vec<Option<(f64, f64)>>, Leg, f64, f64) {
        let (c, root, mut joints, leg) = walker();
        let poses = body_poses(&c, &root, &joints);
        let target = leg.foot_point(&poses) + shift;
        let want =
            UnitQuaternion::from_axis_angle(&Vector3::y_axis(), yaw) * quat_of(&poses[leg.foot]);
        let limits = c.coordinate_limits();
        reach_within_limits(&c, &root, &mut joints, &leg, &limits, target, &want);
        let poses = body_poses(&c, &root, &joints);
        let point = (leg.foot_point(&poses) - target).norm();
        let turn = quat_of(&poses[leg.foot]).angle_to(&want);
        (joints, limits, leg, point, turn)
    }

    #[test]
    fn a_foot_turned_within_the_hips_reach_is_reached_exactly() {
        let (_, _, _, point, turn) = turn_foot(0.3, Vector3::new(0.05, 0.03, -0.02));
        assert!(point < 1e-4, "the foot point is {point} m off");
        assert!(turn < 1e-3, "the foot is {turn} rad off");
    }

    #[test]
    fn a_foot_turned_past_the_hips_twist_stays_on_its_point_within_the_limits() {
        // The hip twists at most 45°: a foot turned 70° out keeps its point, and turns as far as
        // the leg's limits let it (25° short, at this pose).
        let (joints, limits, leg, point, turn) = turn_foot(70f64.to_radians(), Vector3::zeros());
        for &i in &leg.coordinates {
            let (lo, hi) = limits[i].unwrap();
            assert!(
                (lo - 1e-12..=hi + 1e-12).contains(&joints[i]),
                "coordinate {i} at {} is outside [{lo}, {hi}]",
                joints[i]
            );
        }
        assert!(point < 1e-3, "the foot point is {point} m off");
        assert!(
            turn > 15f64.to_radians() && turn < 30f64.to_radians(),
            "the foot is {:.1}° off its 70° turn",
            turn.to_degrees()
        );
    }
}
