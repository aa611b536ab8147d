//! Foot locking: while a clip says a foot is down, its point stays where it touched down, and a
//! two-bone IK of the leg (hip and knee; the ankle keeps the foot's orientation) reaches it.
//! Blending, inertialization and the transitions' ground motions would otherwise slide planted
//! feet. At lift-off the lock is released and follows the animated foot by a spring, so the
//! leg does not snap.
//! The legs bend by [`crate::clip::leg_ik`].

use super::spring::towards;
use crate::clip::ClipFrame;
use crate::clip::leg_ik::{Leg, legs, reach};
use crate::clip::pose::{body_poses, coordinates_of};
use crate::model::Character;
use nalgebra::Vector3;

/// Where a leg's foot is held; after a release, its offset from the animated foot and the
/// offset's velocity.
#[derive(Clone, Debug, Default)]
struct Hold {
    lock: Option<Vector3<f64>>,
    release: Option<(Vector3<f64>, Vector3<f64>)>,
}

/// The legs of a character and their locks.
#[derive(Clone, Debug)]
pub struct FootLocks {
    legs: Vec<Leg>,
    /// One per leg.
    holds: Vec<Hold>,
    /// Half-life of the release (s).
    pub release_halflife: f64,
    pub enabled: bool,
}

impl FootLocks {
    /// The legs of `c`'s foot effectors that hang from three joints; others are not locked.
    pub fn new(c: &Character) -> Self {
        let legs = legs(c);
        Self {
            holds: vec![Hold::default(); legs.len()],
            legs,
            release_halflife: 0.08,
            enabled: true,
        }
    }

    /// Forgets every lock (a jump of the character, a reset).
    pub fn clear(&mut self) {
        for h in &mut self.holds {
            h.lock = None;
            h.release = None;
        }
    }

    /// Carries the locks with the character's place when it is moved by `m` (a world motion,
    /// not a motion in the clip): a held foot stays where it is on the moved character.
    pub fn carry(&mut self, m: &crate::model::planar::PlanarMotion) {
        for l in &mut self.holds {
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
            .zip(&self.holds)
            .filter(|(l, h)| h.lock.is_some() && contacts.get(l.effector).copied().unwrap_or(false))
            .map(|(l, _)| l)
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
            .map(|l| l.foot_point(&a) - l.foot_point(&b))
            .sum();
        let mean = sum / held.len() as f64;
        Some(Vector3::new(mean.x, 0.0, mean.z))
    }

    /// Where the locked feet are held: the mean of their points on the ground, or None.
    pub fn held_centre(&self) -> Option<Vector3<f64>> {
        if !self.enabled {
            return None;
        }
        let held: Vec<Vector3<f64>> = self.holds.iter().filter_map(|h| h.lock).collect();
        (!held.is_empty()).then(|| held.iter().sum::<Vector3<f64>>() / held.len() as f64)
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
            let hold = self.holds[k].clone();
            let down = contacts.get(leg.effector).copied().unwrap_or(false);
            let here = leg.foot_point(&poses);
            let target = if down {
                let lock = hold.lock.unwrap_or(here);
                self.holds[k].lock = Some(lock);
                self.holds[k].release = None;
                // Held on the ground: a planted foot does not sink below its touch-down height.
                Some(lock)
            } else if let Some(lock) = hold.lock {
                // Just lifted: spring from the lock to the animated foot.
                self.holds[k].lock = None;
                self.holds[k].release = Some((lock - here, Vector3::zeros()));
                self.follow(k, here, dt)
            } else if hold.release.is_some() {
                self.follow(k, here, dt)
            } else {
                None
            };
            if let Some(t) = target {
                reach(c, &mut poses, &leg, here, t);
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
        let (mut o, mut v) = self.holds[k].release?;
        for a in 0..3 {
            towards(&mut o[a], &mut v[a], 0.0, h, dt);
        }
        if o.norm() < 1e-4 && v.norm() < 1e-3 {
            self.holds[k].release = None;
            None
        } else {
            self.holds[k].release = Some((o, v));
            Some(here + o)
        }
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
            .map(|e| e.tag == crate::model::EffectorTag::Foot)
            .collect();
        let feet = |p: &ClipFrame, locks: &FootLocks| -> Vec<Vector3<f64>> {
            let poses = body_poses(&c, &p.root, &p.joints);
            locks.legs.iter().map(|l| l.foot_point(&poses)).collect()
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
