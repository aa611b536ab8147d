//! Placing a simulated character in a state: a pose ([`Simulation::set_configuration`]) and,
//! for a simulation that starts in motion (a captured walk tracked from its first frame,
//! Borer, Guay and Sumner 2018, §5), its velocities ([`Simulation::set_velocities`]).

use super::Simulation;
use crate::model::RootKind;
use rapier3d::math::{Pose, Rotation, Vector};

impl Simulation {
    /// Places the character at rest in a pose: the root body's pose (position, quaternion x, y,
    /// z, w) and every degree of freedom's coordinate (as [`Self::dof_state`]), every velocity
    /// zero. For starting a simulation from a played pose; contacts are found at the next step.
    /// A planar root keeps its place (only the joint coordinates change).
    pub fn set_configuration(&mut self, root: [f32; 7], q: &[f32]) {
        let (now, _) = self.dof_state();
        let index = self
            .character
            .body_index(&self.character.root.body)
            .expect("validated character");
        let handle = self.bodies[index];
        if self.character.root.kind == RootKind::Free {
            let pose = Pose::from_parts(
                Vector::new(root[0], root[1], root[2]),
                Rotation::from_xyzw(root[3], root[4], root[5], root[6]).normalize(),
            );
            self.state.bodies[handle].set_position(pose, true);
        }
        let Some(id) = self.state.multibody_joints.rigid_body_link(handle).copied() else {
            return;
        };
        // Each degree of freedom's displacement at its place in the multibody's coordinates.
        let places = self.dof_places();
        let Some(mb) = self.state.multibody_joints.get_multibody_mut(id.multibody) else {
            return;
        };
        let mut displacement = vec![0.0; mb.ndofs()];
        for ((place, target), current) in places.iter().zip(q).zip(&now) {
            if let Some(k) = place {
                displacement[*k] = target - current;
            }
        }
        mb.apply_displacements(&displacement);
        mb.generalized_velocity_mut().fill(0.0);
        mb.forward_kinematics(&self.state.bodies, true);
        mb.update_rigid_bodies(&mut self.state.bodies, true);
        for h in &self.bodies {
            let rb = &mut self.state.bodies[*h];
            rb.set_linvel(Vector::ZERO, true);
            rb.set_angvel(Vector::ZERO, true);
        }
    }

    /// Sets the character's velocities: the root body's linear velocity (of its centre of mass)
    /// and angular velocity, both in the world (m/s, rad/s), and every degree of freedom's rate
    /// (as [`Self::dof_state`]'s). The pose is kept; the bodies move so from the next step. A
    /// planar root keeps its velocity.
    pub fn set_velocities(&mut self, root_linear: [f32; 3], root_angular: [f32; 3], qdot: &[f32]) {
        let index = self
            .character
            .body_index(&self.character.root.body)
            .expect("validated character");
        let handle = self.bodies[index];
        let places = self.dof_places();
        let free = self.character.root.kind == RootKind::Free;
        let Some(id) = self.state.multibody_joints.rigid_body_link(handle).copied() else {
            return;
        };
        let Some(mb) = self.state.multibody_joints.get_multibody_mut(id.multibody) else {
            return;
        };
        let root_dofs = mb.link(0).map_or(0, |l| l.joint().ndofs());
        let mut v = mb.generalized_velocity_mut();
        if free && root_dofs == 6 {
            for a in 0..3 {
                v[a] = root_linear[a];
                v[3 + a] = root_angular[a];
            }
        }
        for (place, rate) in places.iter().zip(qdot) {
            if let Some(k) = place {
                v[*k] = *rate;
            }
        }
    }

    /// Each degree of freedom's place in its multibody's coordinates and velocities.
    fn dof_places(&self) -> Vec<Option<usize>> {
        self.dofs
            .iter()
            .map(|d| {
                let link = self.state.multibody_joints.rigid_body_link(d.link_body)?;
                let mb = self.state.multibody_joints.get_multibody(link.multibody)?;
                Some(mb.link(link.id)?.assembly_id() + d.slot)
            })
            .collect()
    }
}
