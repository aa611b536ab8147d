//! The one pose vocabulary of clips: a character's pose is its root body's pose (centre of mass
//! and orientation) plus one coordinate per joint degree of freedom, in the simulation's
//! conventions (`crate::model`): a hinge's angle about its axis; a universal joint's two angles,
//! R = R(a₁, q₁)·R(a₂, q₂); a ball's three angles about x, then y, then z, each carried by the
//! previous (R = Rx·Ry·Rz). Every rotation is the child's relative to its parent, in the frame
//! that is world-aligned in the reference pose (where every coordinate is zero).
//!
//! [`body_poses`] runs the forward kinematics of a pose; [`joint_coordinates`] projects a
//! relative rotation onto a joint's coordinates (exactly for a rotation the joint can make).

use crate::model::{Body, Character, JointKind};
use nalgebra::{Matrix3, Rotation3, Unit, UnitQuaternion, Vector3};

/// A body's world pose: position (x, y, z) of its centre of mass, orientation (x, y, z, w).
pub type BodyPose = [f64; 7];

fn vec3(v: [f64; 3]) -> Vector3<f64> {
    Vector3::new(v[0], v[1], v[2])
}

/// The body's orientation in the reference pose.
pub fn reference_orientation(b: &Body) -> UnitQuaternion<f64> {
    let q = b.orientation();
    UnitQuaternion::from_quaternion(nalgebra::Quaternion::new(q[3], q[0], q[1], q[2]))
}

pub fn quat_of(pose: &BodyPose) -> UnitQuaternion<f64> {
    UnitQuaternion::from_quaternion(nalgebra::Quaternion::new(
        pose[6], pose[3], pose[4], pose[5],
    ))
}

pub fn pose_of(position: Vector3<f64>, q: &UnitQuaternion<f64>) -> BodyPose {
    let c = q.coords;
    [position.x, position.y, position.z, c.x, c.y, c.z, c.w]
}

/// The rotation a joint of `kind` makes for its coordinates `q` (world-aligned rest frame).
pub fn joint_rotation(kind: &JointKind, q: &[f64]) -> Rotation3<f64> {
    kind.axes()
        .iter()
        .zip(q)
        .fold(Rotation3::identity(), |r, (a, angle)| {
            r * Rotation3::from_axis_angle(&Unit::new_normalize(vec3(*a)), *angle)
        })
}

/// Angles (x, y, z) with R = Rx(x)·Ry(y)·Rz(z).
fn xyz_angles(r: &Matrix3<f64>) -> [f64; 3] {
    let y = r[(0, 2)].clamp(-1.0, 1.0).asin();
    let x = (-r[(1, 2)]).atan2(r[(2, 2)]);
    let z = (-r[(0, 1)]).atan2(r[(0, 0)]);
    [x, y, z]
}

/// The coordinates of a joint of `kind` closest to rotation `r`: exact when `r` is a rotation
/// the joint can make; otherwise the components it cannot make are dropped (a hinge keeps the
/// angle about its axis, a universal joint drops the twist about the third axis).
pub fn joint_coordinates(kind: &JointKind, r: &Rotation3<f64>) -> Vec<f64> {
    let m = r.matrix();
    match kind {
        JointKind::Fixed => Vec::new(),
        JointKind::Hinge { axis } => {
            // The angle by which r turns a vector u perpendicular to the axis, about the axis.
            let a = vec3(*axis).normalize();
            let helper = if a.x.abs() < 0.9 {
                Vector3::x()
            } else {
                Vector3::y()
            };
            let u = a.cross(&helper).normalize();
            let v = a.cross(&u);
            let turned = m * u;
            vec![turned.dot(&v).atan2(turned.dot(&u))]
        }
        JointKind::Universal { axes } => {
            let a1 = vec3(axes.0).normalize();
            let a2 = vec3(axes.1).normalize();
            let a3 = a1.cross(&a2).normalize();
            let basis = Matrix3::from_columns(&[a1, a2, a3]);
            let local = basis.transpose() * m * basis;
            let [x, y, _] = xyz_angles(&local);
            vec![x, y]
        }
        JointKind::Ball => xyz_angles(m).to_vec(),
    }
}

/// Every body's world pose for a root pose and joint coordinates (in joint order, each joint's
/// coordinates in axis order, as `Character::dof_names`). Bodies are returned in file order.
pub fn body_poses(c: &Character, root: &BodyPose, coordinates: &[f64]) -> Vec<BodyPose> {
    let n = c.bodies.len();
    // World rotation relative to the reference pose, and world pose, per body.
    let mut rotation: Vec<Option<Rotation3<f64>>> = vec![None; n];
    let mut poses = vec![[0.0; 7]; n];
    let mut offsets = Vec::with_capacity(c.joints.len());
    let mut k = 0;
    for j in &c.joints {
        offsets.push(k);
        k += j.kind.dof();
    }
    let root_index = c.body_index(&c.root.body).expect("validated character");
    let root_q = quat_of(root);
    rotation[root_index] = Some(
        (root_q * reference_orientation(&c.bodies[root_index]).inverse()).to_rotation_matrix(),
    );
    poses[root_index] = *root;
    // Joints in tree order from the root (a validated character is a tree).
    let mut placed = 1;
    while placed < n {
        let before = placed;
        for (ji, j) in c.joints.iter().enumerate() {
            let (Some(p), Some(ch)) = (c.body_index(&j.parent), c.body_index(&j.child)) else {
                continue;
            };
            if rotation[ch].is_some() {
                continue;
            }
            let Some(rp) = rotation[p] else { continue };
            let q = &coordinates[offsets[ji]..offsets[ji] + j.kind.dof()];
            let rc = rp * joint_rotation(&j.kind, q);
            let parent_ref = vec3(c.bodies[p].position);
            let parent_pos = Vector3::new(poses[p][0], poses[p][1], poses[p][2]);
            let anchor = parent_pos + rp * (vec3(j.anchor) - parent_ref);
            let com = anchor + rc * (vec3(c.bodies[ch].position) - vec3(j.anchor));
            let orientation =
                UnitQuaternion::from_rotation_matrix(&rc) * reference_orientation(&c.bodies[ch]);
            poses[ch] = pose_of(com, &orientation);
            rotation[ch] = Some(rc);
            placed += 1;
        }
        if placed == before {
            break;
        }
    }
    poses
}

/// The joint coordinates of a set of body poses (the inverse of [`body_poses`] for the
/// rotations; positions are not read).
pub fn coordinates_of(c: &Character, poses: &[BodyPose]) -> Vec<f64> {
    let relative: Vec<Rotation3<f64>> = c
        .bodies
        .iter()
        .zip(poses)
        .map(|(b, p)| (quat_of(p) * reference_orientation(b).inverse()).to_rotation_matrix())
        .collect();
    let mut out = Vec::with_capacity(c.internal_dof());
    for j in &c.joints {
        let (p, ch) = (
            c.body_index(&j.parent).expect("validated"),
            c.body_index(&j.child).expect("validated"),
        );
        let r = relative[p].inverse() * relative[ch];
        out.extend(joint_coordinates(&j.kind, &r));
    }
    out
}

impl super::Clip {
    /// The world pose of every body of the clip at `t` seconds: frames interpolated (positions
    /// linearly, orientations by slerp), cycles applied cumulatively when looping a cyclic clip.
    pub fn poses_at(&self, character: &Character, t: f64, looping: bool) -> Vec<[f64; 7]> {
        let clip = self;
        let n = clip.frames.len();
        let f = (t.max(0.0) * clip.rate).max(0.0);
        let (cycle, within) = if looping {
            let c = (f / n as f64).floor();
            (c, f - c * n as f64)
        } else {
            (0.0, f.min((n - 1) as f64))
        };
        let i0 = (within.floor() as usize).min(n - 1);
        let s = within - i0 as f64;
        let (i1, wrap) = if i0 + 1 < n {
            (i0 + 1, 0.0)
        } else if looping {
            (0, 1.0)
        } else {
            (i0, 0.0)
        };
        let a = clip.body_poses(character, i0);
        let b = clip.body_poses(character, i1);
        let first_root = clip.frames[0].root;
        // Loop k is the clip moved by T^k (composed, so turning clips keep turning).
        let place = |p: [f64; 7], cycles: f64| -> [f64; 7] {
            match (&clip.cycle, cycles > 0.0) {
                (Some(c), true) => {
                    let t = c
                        .motion([first_root[0], first_root[1], first_root[2]])
                        .power(cycles as i64);
                    let pos = t.apply_vec3([p[0], p[1], p[2]]);
                    let yaw = nalgebra::UnitQuaternion::from_axis_angle(
                        &nalgebra::Vector3::y_axis(),
                        t.yaw,
                    );
                    let q = yaw * quat_of(&p);
                    pose_of(nalgebra::Vector3::from(pos), &q)
                }
                _ => p,
            }
        };
        a.iter()
            .zip(&b)
            .map(|(pa, pb)| {
                let pa = place(*pa, cycle);
                let pb = place(*pb, cycle + wrap);
                let qa = quat_of(&pa);
                let qb = quat_of(&pb);
                let q = qa.slerp(&qb, s);
                let pos = nalgebra::Vector3::new(
                    pa[0] + s * (pb[0] - pa[0]),
                    pa[1] + s * (pb[1] - pa[1]),
                    pa[2] + s * (pb[2] - pa[2]),
                );
                pose_of(pos, &q)
            })
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn coordinates_survive_rotation_and_back_for_every_joint_kind() {
        let kinds = [
            JointKind::Hinge {
                axis: [0.0, 0.0, 1.0],
            },
            JointKind::Hinge {
                axis: [0.6, 0.8, 0.0],
            },
            JointKind::Universal {
                axes: ([0.0, 0.0, 1.0], [1.0, 0.0, 0.0]),
            },
            JointKind::Ball,
        ];
        for kind in &kinds {
            let q: Vec<f64> = [0.7, -1.1, 0.4][..kind.dof()].to_vec();
            let back = joint_coordinates(kind, &joint_rotation(kind, &q));
            for (a, b) in q.iter().zip(&back) {
                assert!((a - b).abs() < 1e-12, "{kind:?}: {q:?} -> {back:?}");
            }
        }
    }
}
