//! Foot locking: while a clip says a foot is down, its point stays where it touched down, and a
//! two-bone IK of the leg (hip and knee; the ankle keeps the foot's orientation) reaches it.
//! Blending, inertialization and the transitions' ground motions would otherwise slide planted
//! feet. At lift-off the lock is released and follows the animated foot by a spring, so the
//! leg does not snap.
//!
//! The leg of a foot effector is the chain of the three joints above the effector's body (ankle,
//! knee, hip). The IK works on world body poses: the knee bends in the plane of hip, knee and
//! ankle to the length the target needs (law of cosines), then the hip turns the leg by the
//! smallest rotation onto the target; joint coordinates are read back from the bodies
//! ([`crate::clip::pose::coordinates_of`]).

use super::spring::towards;
use crate::clip::ClipFrame;
use crate::clip::pose::{body_poses, coordinates_of, pose_of, quat_of, reference_orientation};
use crate::model::{Character, EffectorTag};
use nalgebra::{Rotation3, Unit, UnitQuaternion, Vector3};

/// One leg: body indices (thigh, shin, foot), and the effector's body and point (on the foot,
/// or on a toe hanging from it).
#[derive(Clone, Debug)]
struct Leg {
    /// Index of the foot effector among the character's effectors.
    effector: usize,
    thigh: usize,
    shin: usize,
    foot: usize,
    effector_body: usize,
    point: Vector3<f64>,
    /// The knee hinge's flexion direction (−1 or +1: the side of its wider limit), 0 when the
    /// knee is not a limited hinge (then it bends in the plane the leg makes).
    flexion: f64,
    /// The leg's joint coordinates (hip, knee, ankle) in the pose's order.
    coordinates: Vec<usize>,
    /// Where the foot is held; after a release, its offset from the animated foot and the
    /// offset's velocity.
    lock: Option<Vector3<f64>>,
    release: Option<(Vector3<f64>, Vector3<f64>)>,
}

/// The legs of a character and their locks.
#[derive(Clone, Debug)]
pub struct FootLocks {
    legs: Vec<Leg>,
    /// Half-life of the release (s).
    pub release_halflife: f64,
    pub enabled: bool,
}

/// A body's world rotation relative to its reference orientation.
fn relative(c: &Character, poses: &[[f64; 7]], b: usize) -> UnitQuaternion<f64> {
    quat_of(&poses[b]) * reference_orientation(&c.bodies[b]).inverse()
}

fn position(p: &[f64; 7]) -> Vector3<f64> {
    Vector3::new(p[0], p[1], p[2])
}

/// The world position of a joint's anchor, seen from its child body.
fn anchor(c: &Character, poses: &[[f64; 7]], joint: usize, child: usize) -> Vector3<f64> {
    let j = &c.joints[joint];
    position(&poses[child])
        + relative(c, poses, child)
            * (Vector3::from(j.anchor) - Vector3::from(c.bodies[child].position))
}

impl FootLocks {
    /// The legs of `c`'s foot effectors that hang from three joints; others are not locked.
    pub fn new(c: &Character) -> Self {
        let parent_joint =
            |body: usize| c.joints.iter().position(|j| j.child == c.bodies[body].name);
        let parent_body = |joint: usize| c.body_index(&c.joints[joint].parent);
        let legs =
            c.end_effectors
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
                    let flexion =
                        match (&knee.kind, knee.limits.first()) {
                            (crate::model::JointKind::Hinge { .. }, Some(&(lo, hi))) => {
                                if -lo > hi { -1.0 } else { 1.0 }
                            }
                            _ => 0.0,
                        };
                    let first = |joint: usize| -> usize {
                        c.joints[..joint].iter().map(|j| j.kind.dof()).sum()
                    };
                    let coordinates = [
                        parent_joint(thigh)?,
                        parent_joint(shin)?,
                        parent_joint(foot)?,
                    ]
                    .into_iter()
                    .flat_map(|j| first(j)..first(j) + c.joints[j].kind.dof())
                    .collect();
                    Some(Leg {
                        flexion,
                        coordinates,
                        effector: k,
                        thigh,
                        shin,
                        foot,
                        effector_body,
                        point: Vector3::from(e.point),
                        lock: None,
                        release: None,
                    })
                })
                .collect();
        Self {
            legs,
            release_halflife: 0.08,
            enabled: true,
        }
    }

    /// Forgets every lock (a jump of the character, a reset).
    pub fn clear(&mut self) {
        for l in &mut self.legs {
            l.lock = None;
            l.release = None;
        }
    }

    /// Carries the locks with the character's place when it is moved by `m` (a world motion,
    /// not a motion in the clip): a held foot stays where it is on the moved character.
    pub fn carry(&mut self, m: &crate::model::planar::PlanarMotion) {
        for l in &mut self.legs {
            if let Some(p) = &mut l.lock {
                let q = m.apply_vec3([p.x, p.y, p.z]);
                *p = Vector3::new(q[0], q[1], q[2]);
            }
            if let Some((o, v)) = &mut l.release {
                let (a, b) = (
                    m.rotate_vec3([o.x, o.y, o.z]),
                    m.rotate_vec3([v.x, v.y, v.z]),
                );
                *o = Vector3::from(a);
                *v = Vector3::from(b);
            }
        }
    }

    /// How far, on the ground, the held feet that stay down in `to` are from where `from` puts
    /// them: the mean of `from`'s foot points less `to`'s, over the locked legs that `contacts`
    /// (one flag per effector) keeps down. None when there is no such leg.
    pub fn planted_shift(
        &self,
        c: &Character,
        from: &ClipFrame,
        to: &ClipFrame,
        contacts: &[bool],
    ) -> Option<Vector3<f64>> {
        if !self.enabled {
            return None;
        }
        let held: Vec<&Leg> = self
            .legs
            .iter()
            .filter(|l| l.lock.is_some() && contacts.get(l.effector).copied().unwrap_or(false))
            .collect();
        if held.is_empty() {
            return None;
        }
        let (a, b) = (
            body_poses(c, &from.root, &from.joints),
            body_poses(c, &to.root, &to.joints),
        );
        let sum: Vector3<f64> = held
            .iter()
            .map(|l| self.foot_point(&a, l) - self.foot_point(&b, l))
            .sum();
        let mean = sum / held.len() as f64;
        Some(Vector3::new(mean.x, 0.0, mean.z))
    }

    /// Where the locked feet are held: the mean of their points on the ground, or None.
    pub fn held_centre(&self) -> Option<Vector3<f64>> {
        if !self.enabled {
            return None;
        }
        let held: Vec<Vector3<f64>> = self.legs.iter().filter_map(|l| l.lock).collect();
        (!held.is_empty()).then(|| held.iter().sum::<Vector3<f64>>() / held.len() as f64)
    }

    /// The foot effector's point on a posed character.
    fn foot_point(&self, poses: &[[f64; 7]], leg: &Leg) -> Vector3<f64> {
        let b = leg.effector_body;
        position(&poses[b]) + quat_of(&poses[b]) * leg.point
    }

    /// Locks and unlocks the feet by `contacts` (one flag per effector) and bends the legs of
    /// `pose` to hold the locked ones. `dt`: time since the last call.
    pub fn apply(&mut self, c: &Character, pose: &mut ClipFrame, contacts: &[bool], dt: f64) {
        if !self.enabled || self.legs.is_empty() {
            return;
        }
        let mut poses = body_poses(c, &pose.root, &pose.joints);
        let mut changed: Vec<usize> = Vec::new();
        for k in 0..self.legs.len() {
            let leg = self.legs[k].clone();
            let down = contacts.get(leg.effector).copied().unwrap_or(false);
            let here = self.foot_point(&poses, &leg);
            let target = if down {
                let lock = leg.lock.unwrap_or(here);
                self.legs[k].lock = Some(lock);
                self.legs[k].release = None;
                // Held on the ground: a planted foot does not sink below its touch-down height.
                Some(lock)
            } else if let Some(lock) = leg.lock {
                // Just lifted: spring from the lock to the animated foot.
                self.legs[k].lock = None;
                self.legs[k].release = Some((lock - here, Vector3::zeros()));
                self.follow(k, here, dt)
            } else if leg.release.is_some() {
                self.follow(k, here, dt)
            } else {
                None
            };
            if let Some(t) = target {
                solve_leg(c, &mut poses, &leg, here, t);
                changed.extend(leg.coordinates.iter().copied());
            }
        }
        if !changed.is_empty() {
            let joints = coordinates_of(c, &poses);
            // Only the bent legs' coordinates are read back: another ball joint's angles read
            // back from its body can come out on the other branch (a shoulder's 1.17 rad as
            // −1.95), a jump of 3 rad that is no motion at all. A leg the solver could not bend
            // (a degenerate triangle) keeps the played pose.
            if changed.iter().all(|&i| joints[i].is_finite()) {
                for i in changed {
                    pose.joints[i] = joints[i];
                }
            }
        }
    }

    /// Decays a released lock's offset from the animated foot (at `here`); ends the release
    /// when it has died out. The offset, not the point, is sprung: a point chasing a swinging
    /// foot lags it by its speed times the half-life all through the swing, and the next lock
    /// would snap the leg to the animated foot.
    fn follow(&mut self, k: usize, here: Vector3<f64>, dt: f64) -> Option<Vector3<f64>> {
        let h = self.release_halflife;
        let (mut o, mut v) = self.legs[k].release?;
        for a in 0..3 {
            towards(&mut o[a], &mut v[a], 0.0, h, dt);
        }
        if o.norm() < 1e-4 && v.norm() < 1e-3 {
            self.legs[k].release = None;
            None
        } else {
            self.legs[k].release = Some((o, v));
            Some(here + o)
        }
    }
}

/// The fraction of a leg's length over which the IK's reach is softened. 1.5 %: the knee's
/// largest change in one 1/60 s frame on the scripted steering run is 0.39 rad (3 % gave 0.41
/// and held the feet 2 mm less close at the end of a stance).
const SOFT_REACH: f64 = 0.015;

/// Bends one leg of `poses` so that its foot point (now at `foot_point`) reaches `target`,
/// keeping the foot's world orientation (the point moves with the ankle).
fn solve_leg(
    c: &Character,
    poses: &mut [[f64; 7]],
    leg: &Leg,
    foot_point: Vector3<f64>,
    target: Vector3<f64>,
) {
    let joint_of = |body: usize| {
        c.joints
            .iter()
            .position(|j| j.child == c.bodies[body].name)
            .expect("a leg body hangs from a joint")
    };
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

#[cfg(test)]
mod tests {
    use super::*;

    /// A foot locked where it touched down stays there (within 1 cm, what the universal ankle's
    /// projection leaves) while the body moves 5 cm forward over it.
    #[test]
    fn a_locked_foot_stays_while_the_body_moves() {
        let path =
            std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("characters/human3d_walker.ron");
        let c = crate::model::load_character(&path).unwrap();
        let mut locks = FootLocks::new(&c);
        assert_eq!(locks.legs.len(), 2, "both feet have legs");
        let root = c.body_index(&c.root.body).unwrap();
        let b = &c.bodies[root];
        let q = b.orientation();
        let mut joints = vec![0.0; c.internal_dof()];
        let names = c.dof_names();
        for (i, n) in names.iter().enumerate() {
            if n.contains("knee") {
                joints[i] = -0.3;
            }
            if n.contains("hip") && n.ends_with(".2") {
                joints[i] = 0.15;
            }
        }
        let mut pose = ClipFrame {
            root: [
                b.position[0],
                b.position[1] - 0.03,
                b.position[2],
                q[0],
                q[1],
                q[2],
                q[3],
            ],
            joints,
        };
        let contacts: Vec<bool> = c
            .end_effectors
            .iter()
            .map(|e| e.tag == EffectorTag::Foot)
            .collect();
        let feet = |p: &ClipFrame, locks: &FootLocks| -> Vec<Vector3<f64>> {
            let poses = body_poses(&c, &p.root, &p.joints);
            locks
                .legs
                .iter()
                .map(|l| locks.foot_point(&poses, l))
                .collect()
        };
        locks.apply(&c, &mut pose, &contacts, 1.0 / 60.0);
        let start = feet(&pose, &locks);
        let mut moved = pose.clone();
        moved.root[0] += 0.05;
        locks.apply(&c, &mut moved, &contacts, 1.0 / 60.0);
        let after = feet(&moved, &locks);
        for (a, b) in start.iter().zip(&after) {
            assert!((a - b).norm() < 0.01, "foot moved {} m", (a - b).norm());
        }
    }
}
