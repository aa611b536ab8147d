//! Inertialized transitions (Bollo, "Inertialization: High-Performance Animation Transitions in
//! Gears of War", GDC 2018; Holden's offset form): at a transition the pose jumps from where the
//! old path would have been to the new path's frame; the difference (and the difference of
//! their velocities) becomes an offset added to every later pose and decayed to zero by a
//! critically damped spring, so neither position nor velocity pops.

use super::spring::decay;
use crate::clip::ClipFrame;
use crate::clip::pose::{pose_of, quat_of};
use nalgebra::{UnitQuaternion, Vector3};

/// The offsets being decayed.
#[derive(Clone, Debug, Default)]
pub struct Inertialization {
    /// Half-life of the fade (s).
    pub halflife: f64,
    root_position: [(f64, f64); 3],
    /// Root rotation offset as a scaled axis (rad), with its rate.
    root_rotation: [(f64, f64); 3],
    joints: Vec<(f64, f64)>,
}

fn scaled_axis(q: &UnitQuaternion<f64>) -> Vector3<f64> {
    q.scaled_axis()
}

impl Inertialization {
    pub fn new(halflife: f64) -> Self {
        Self {
            halflife,
            ..Default::default()
        }
    }

    /// A transition from the old path (its pose now, `from`, and one frame `dt_from` later,
    /// `from_next`) to the new one (`to`, and `to_next` one frame `dt_to` later): the offsets
    /// grow by the differences of pose and velocity.
    pub fn transition(
        &mut self,
        from: &ClipFrame,
        from_next: &ClipFrame,
        dt_from: f64,
        to: &ClipFrame,
        to_next: &ClipFrame,
        dt_to: f64,
    ) {
        if self.joints.len() != from.joints.len() {
            self.joints = vec![(0.0, 0.0); from.joints.len()];
        }
        for k in 0..3 {
            let d = from.root[k] - to.root[k];
            let v = (from_next.root[k] - from.root[k]) / dt_from
                - (to_next.root[k] - to.root[k]) / dt_to;
            self.root_position[k].0 += d;
            self.root_position[k].1 += v;
        }
        let (qf, qfn, qt, qtn) = (
            quat_of(&from.root),
            quat_of(&from_next.root),
            quat_of(&to.root),
            quat_of(&to_next.root),
        );
        let d = scaled_axis(&(qf * qt.inverse()));
        let wf = scaled_axis(&(qfn * qf.inverse())) / dt_from;
        let wt = scaled_axis(&(qtn * qt.inverse())) / dt_to;
        // The offset's existing rotation composes with the new one (small: summed as vectors).
        for k in 0..3 {
            self.root_rotation[k].0 += d[k];
            self.root_rotation[k].1 += wf[k] - wt[k];
        }
        for (j, o) in self.joints.iter_mut().enumerate() {
            o.0 += from.joints[j] - to.joints[j];
            o.1 += (from_next.joints[j] - from.joints[j]) / dt_from
                - (to_next.joints[j] - to.joints[j]) / dt_to;
        }
    }

    /// Decays the offsets by `dt`.
    pub fn update(&mut self, dt: f64) {
        let h = self.halflife;
        for (x, v) in self
            .root_position
            .iter_mut()
            .chain(self.root_rotation.iter_mut())
            .chain(self.joints.iter_mut())
        {
            decay(x, v, h, dt);
        }
    }

    /// `pose` with the offsets added.
    pub fn apply(&self, pose: &ClipFrame) -> ClipFrame {
        let mut out = pose.clone();
        for k in 0..3 {
            out.root[k] += self.root_position[k].0;
        }
        let r = Vector3::new(
            self.root_rotation[0].0,
            self.root_rotation[1].0,
            self.root_rotation[2].0,
        );
        let q = UnitQuaternion::from_scaled_axis(r) * quat_of(&pose.root);
        let p = Vector3::new(out.root[0], out.root[1], out.root[2]);
        out.root = pose_of(p, &q);
        for (j, (x, _)) in self.joints.iter().enumerate() {
            if let Some(v) = out.joints.get_mut(j) {
                *v += x;
            }
        }
        out
    }

    /// The largest remaining offset (m or rad): how far the fade has still to go.
    pub fn remaining(&self) -> f64 {
        self.root_position
            .iter()
            .chain(&self.root_rotation)
            .chain(&self.joints)
            .map(|(x, _)| x.abs())
            .fold(0.0, f64::max)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn frame(x: f64, yaw: f64, joint: f64) -> ClipFrame {
        let q = UnitQuaternion::from_axis_angle(&Vector3::y_axis(), yaw);
        ClipFrame {
            root: pose_of(Vector3::new(x, 1.0, 0.0), &q),
            joints: vec![joint],
        }
    }

    /// Right after a transition the pose is the old path's (no pop); it fades into the new
    /// path's.
    #[test]
    fn the_pose_starts_on_the_old_path_and_fades_into_the_new() {
        let mut i = Inertialization::new(0.1);
        let (from, from_next) = (frame(0.0, 0.1, 0.5), frame(0.05, 0.1, 0.52));
        let (to, to_next) = (frame(0.2, 0.3, 0.1), frame(0.25, 0.3, 0.1));
        i.transition(&from, &from_next, 1.0 / 30.0, &to, &to_next, 1.0 / 30.0);
        let now = i.apply(&to);
        for k in 0..7 {
            assert!((now.root[k] - from.root[k]).abs() < 1e-9, "{now:?}");
        }
        assert!((now.joints[0] - 0.5).abs() < 1e-12);
        for _ in 0..60 {
            i.update(1.0 / 60.0);
        }
        let later = i.apply(&to);
        assert!((later.root[0] - to.root[0]).abs() < 1e-3);
        assert!(i.remaining() < 2e-3);
    }
}
