//! The target motion a simulated character tracks (Borer, Guay and Sumner 2018, §3: the
//! keyframes moved onto the articulated rigid bodies), sampled on the simulation's time steps:
//! the PD targets of every degree of freedom, and at the cost instants the root's pose, every
//! joint's relative rotation and every end effector's world position.

use crate::clip::Clip;
use crate::clip::pose::{self, BodyPose};
use crate::model::Character;
use nalgebra::{Rotation3, UnitQuaternion, Vector3};

/// What the window cost compares at one instant (Borer et al. 2018, §5.3).
#[derive(Clone, Debug, PartialEq)]
pub struct Pose {
    /// The root body's position (m) and orientation.
    pub root_position: Vector3<f64>,
    pub root_orientation: UnitQuaternion<f64>,
    /// Per joint: the child's rotation relative to its parent (world-aligned rest frames).
    pub joints: Vec<Rotation3<f64>>,
    /// Per end effector: its point in the world (m).
    pub effectors: Vec<Vector3<f64>>,
}

/// A clip made a target: PD targets per simulation step, poses per cost instant.
#[derive(Clone, Debug)]
pub struct Target {
    /// Per simulation step k (time k·dt): every degree of freedom's target angle (rad).
    pub targets: Vec<Vec<f32>>,
    /// The clip's pose at the first step (where the simulation starts).
    pub start: (BodyPose, Vec<f64>),
    /// Per cost instant (every `cost_every` steps, from step `cost_every`): the target pose.
    pub poses: Vec<Pose>,
    /// Simulation steps between cost instants.
    pub cost_every: usize,
    pub dt: f64,
}

/// The clip's root pose and joint coordinates at `t` (s): frames interpolated (positions and
/// angles linearly, orientations by slerp), the last frame held after the end.
pub fn sample(clip: &Clip, t: f64) -> (BodyPose, Vec<f64>) {
    let n = clip.frames.len();
    let f = (t.max(0.0) * clip.rate).min((n - 1) as f64);
    let i0 = (f.floor() as usize).min(n - 1);
    let i1 = (i0 + 1).min(n - 1);
    let s = f - i0 as f64;
    let (a, b) = (&clip.frames[i0], &clip.frames[i1]);
    let qa = pose::quat_of(&a.root);
    let qb = pose::quat_of(&b.root);
    let q = qa.slerp(&qb, s);
    let p = Vector3::new(
        a.root[0] + s * (b.root[0] - a.root[0]),
        a.root[1] + s * (b.root[1] - a.root[1]),
        a.root[2] + s * (b.root[2] - a.root[2]),
    );
    let joints = a
        .joints
        .iter()
        .zip(&b.joints)
        .map(|(x, y)| x + s * (y - x))
        .collect();
    (pose::pose_of(p, &q), joints)
}

/// Every body's world pose as the cost reads it.
pub fn pose_of_bodies(character: &Character, bodies: &[BodyPose]) -> Pose {
    let root = character
        .body_index(&character.root.body)
        .expect("validated character");
    let relative: Vec<Rotation3<f64>> = character
        .bodies
        .iter()
        .zip(bodies)
        .map(|(b, p)| {
            (pose::quat_of(p) * pose::reference_orientation(b).inverse()).to_rotation_matrix()
        })
        .collect();
    let joints = character
        .joints
        .iter()
        .map(|j| {
            let (p, c) = (
                character.body_index(&j.parent).expect("validated"),
                character.body_index(&j.child).expect("validated"),
            );
            relative[p].inverse() * relative[c]
        })
        .collect();
    let effectors = character
        .end_effectors
        .iter()
        .map(|e| {
            let b = character.body_index(&e.body).expect("validated");
            let q = pose::quat_of(&bodies[b]);
            Vector3::new(bodies[b][0], bodies[b][1], bodies[b][2]) + q * Vector3::from(e.point)
        })
        .collect();
    Pose {
        root_position: Vector3::new(bodies[root][0], bodies[root][1], bodies[root][2]),
        root_orientation: pose::quat_of(&bodies[root]),
        joints,
        effectors,
    }
}

impl Target {
    /// `clip` on `character` sampled for a simulation of time step `dt`, `steps` steps long,
    /// with a cost instant every `cost_every` steps.
    pub fn new(
        clip: &Clip,
        character: &Character,
        dt: f64,
        steps: usize,
        cost_every: usize,
    ) -> Self {
        let targets = (0..=steps)
            .map(|k| {
                sample(clip, k as f64 * dt)
                    .1
                    .into_iter()
                    .map(|x| x as f32)
                    .collect()
            })
            .collect();
        let poses = (1..=steps / cost_every)
            .map(|i| {
                let (root, joints) = sample(clip, (i * cost_every) as f64 * dt);
                pose_of_bodies(character, &pose::body_poses(character, &root, &joints))
            })
            .collect();
        Target {
            targets,
            start: sample(clip, 0.0),
            poses,
            cost_every,
            dt,
        }
    }

    /// The target pose at simulation step `step` (a multiple of `cost_every`, at least one).
    pub fn pose_at_step(&self, step: usize) -> Option<&Pose> {
        (step > 0 && step.is_multiple_of(self.cost_every))
            .then(|| self.poses.get(step / self.cost_every - 1))
            .flatten()
    }

    /// Simulation steps the target spans.
    pub fn steps(&self) -> usize {
        self.targets.len() - 1
    }
}
