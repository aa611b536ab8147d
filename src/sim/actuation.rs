//! Actuation: the degrees of freedom of the multibody (one per angle of each model joint), where
//! their axes lie, their angles and rates, the armatures, and PD control in every mode (the
//! module docs of [`super`]: implicit motors, explicit torques, stable PD).

use super::*;

/// The damping rapier gives every free angular coordinate of a multibody (its default, N·m·s
/// per rad), which stable PD adds its kd to.
const DEFAULT_JOINT_DAMPING: f32 = 0.1;

/// One actuated degree of freedom: a hinge, or one angle of a universal or ball joint, of the
/// multibody.
#[derive(Clone, Debug)]
pub struct Dof {
    pub name: String,
    /// Index of the model joint it belongs to.
    pub joint: usize,
    /// Rigid body of the multibody link whose joint holds this degree of freedom.
    pub(super) link_body: RigidBodyHandle,
    /// Rigid body of the parent link (for explicit reaction torques).
    pub(super) parent_body: RigidBodyHandle,
    /// Its place among the joint's free coordinates, which is also its angular axis (0, 1, 2:
    /// x, y, z) of the joint frame.
    pub(super) slot: usize,
    /// Where its axis of rotation is fixed.
    pub(super) axis_frame: AxisFrame,
    pub kp: f32,
    pub kd: f32,
    pub torque_limit: f32,
    /// Radians; None when unlimited.
    pub limits: Option<(f32, f32)>,
}

/// The multibody holding `body`'s link, and the link's index in it.
pub(super) fn link_multibody_mut(
    joints: &mut MultibodyJointSet,
    body: RigidBodyHandle,
) -> Option<(&mut Multibody, usize)> {
    let id = *joints.rigid_body_link(body)?;
    Some((joints.get_multibody_mut(id.multibody)?, id.id))
}

/// The multibody holding a degree of freedom, its link's index, and the degree of freedom's
/// index in the multibody's generalized coordinates (its row of the mass matrix).
fn dof_entry<'a>(
    joints: &'a mut MultibodyJointSet,
    d: &Dof,
) -> Option<(&'a mut Multibody, usize, usize)> {
    let (mb, link) = link_multibody_mut(joints, d.link_body)?;
    let k = mb.link(link)?.assembly_id() + d.slot;
    Some((mb, link, k))
}

/// Where a degree of freedom's axis of rotation is fixed. A joint's axes are Euler angles' (the
/// patched rapier, vendor/rapier3d PATCHES.md): the first fixed in the parent, the last in the
/// child, and a ball joint's second one turned by the first angle.
#[derive(Clone, Copy, Debug)]
pub(super) enum AxisFrame {
    /// This axis in this body's frame.
    Body(RigidBodyHandle, Vector),
    /// The y axis of the joint frame (this rotation in this parent body's frame) turned by the
    /// joint's first angle about its x axis.
    AfterFirst(RigidBodyHandle, Rotation),
}

impl Simulation {
    /// The world direction of a degree of freedom's axis of rotation.
    pub(super) fn world_axis(&self, d: &Dof) -> Vector {
        match d.axis_frame {
            AxisFrame::Body(body, local) => self.state.bodies[body].rotation() * local,
            AxisFrame::AfterFirst(parent, frame) => {
                let first = self
                    .multibody_link(d.link_body)
                    .map_or(0.0, |(_, link)| link.joint().coords()[3]);
                self.state.bodies[parent].rotation()
                    * frame
                    * Rotation::from_axis_angle(Vector::X, first)
                    * Vector::Y
            }
        }
    }

    fn multibody_link(&self, body: RigidBodyHandle) -> Option<(&Multibody, &MultibodyLink)> {
        let id = self.state.multibody_joints.rigid_body_link(body)?;
        let mb = self.state.multibody_joints.get_multibody(id.multibody)?;
        Some((mb, mb.link(id.id)?))
    }

    /// Joint angle (rad) and angular velocity (rad/s) of every degree of freedom.
    pub fn dof_state(&self) -> (Vec<f32>, Vec<f32>) {
        let mut q = Vec::with_capacity(self.dofs.len());
        let mut qd = Vec::with_capacity(self.dofs.len());
        for d in &self.dofs {
            match self.multibody_link(d.link_body) {
                Some((mb, link)) => {
                    q.push(link.joint().coords()[3 + d.slot]);
                    qd.push(mb.joint_velocity(link)[d.slot]);
                }
                None => {
                    q.push(0.0);
                    qd.push(0.0);
                }
            }
        }
        (q, qd)
    }

    /// Each joint's armature (model `Joint::armature`) on its degrees of freedom's diagonal of
    /// the multibody's mass matrix.
    pub(super) fn apply_armature(&mut self) {
        for d in &self.dofs {
            let armature = self.character.joints[d.joint].armature.unwrap_or(0.0) as f32;
            let Some((mb, _, k)) = dof_entry(&mut self.state.multibody_joints, d) else {
                continue;
            };
            mb.armature_mut()[k] = armature;
        }
    }

    pub(super) fn apply_motor_settings(&mut self) {
        if self.settings.pd == PdMode::Stable {
            // Stable PD sets its springs and dampings every step (`apply_stable_pd`).
            return;
        }
        let implicit = self.settings.pd == PdMode::Implicit;
        let gs = self.settings.gain_scale;
        let ss = self.settings.strength_scale;
        for (((d, &target), &rate), &(mp, md)) in self
            .dofs
            .iter()
            .zip(&self.targets)
            .zip(&self.target_rates)
            .zip(&self.gain_multipliers)
        {
            let Some((mb, link)) =
                link_multibody_mut(&mut self.state.multibody_joints, d.link_body)
            else {
                continue;
            };
            let Some(link) = mb.link_mut(link) else {
                continue;
            };
            let data = &mut link.joint.data;
            let (kp, kd) = (d.kp * gs * mp, d.kd * gs * md);
            let (axis, mask) = [
                (JointAxis::AngX, JointAxesMask::ANG_X),
                (JointAxis::AngY, JointAxesMask::ANG_Y),
                (JointAxis::AngZ, JointAxesMask::ANG_Z),
            ][d.slot];
            if implicit && (kp > 0.0 || kd > 0.0) {
                data.set_motor_model(axis, MotorModel::ForceBased);
                data.set_motor(axis, target, rate, kp, kd);
                data.set_motor_max_force(axis, d.torque_limit * ss);
            } else {
                data.motor_axes.remove(mask);
                data.motors[3 + d.slot] = JointMotor::default();
            }
        }
    }

    /// Stable PD (Tan, Liu and Turk 2011, §3, in reduced coordinates): for each degree of
    /// freedom the PD torque kp(θ* − θ⁺) + kd(θ̇* − θ̇⁺) at the step's end state, θ⁺ = θ + dt·θ̇⁺,
    /// solved with the multibody's velocities: kp is an implicit joint spring towards θ*, kd
    /// an implicit joint damping (both on the mass matrix's diagonal, dt²·kp + dt·kd), and
    /// kd·θ̇* an explicit torque. The torque limit cannot be put on an implicit term, so a degree
    /// of freedom whose PD torque predicted from the step's start, kp(θ* − θ − dt·θ̇) +
    /// kd(θ̇* − θ̇), passes its limit gets the limit's torque, explicitly, for the step, with only
    /// its damping kept implicit on the change of rate within the step.
    pub(super) fn apply_stable_pd(&mut self) {
        let (q, qd) = self.dof_state();
        let dt = self.settings.dt;
        let gs = self.settings.gain_scale;
        let ss = self.settings.strength_scale;
        let mut taus = vec![0.0f32; self.dofs.len()];
        for (i, d) in self.dofs.iter().enumerate() {
            let Some((mb, link, k)) = dof_entry(&mut self.state.multibody_joints, d) else {
                continue;
            };
            let (mp, md) = self.gain_multipliers[i];
            let (kp, kd) = (d.kp * gs * mp, d.kd * gs * md);
            let (target, rate) = (self.targets[i], self.target_rates[i]);
            let lim = d.torque_limit * ss;
            let predicted = kp * (target - q[i] - dt * qd[i]) + kd * (rate - qd[i]);
            let (stiffness, damping) = if predicted.abs() > lim {
                // Saturated: the limit's torque, with the damping kept implicit on the change
                // of rate within the step (−kd·(θ̇⁺ − θ̇)), which keeps light links from
                // chattering between the two limits.
                taus[i] = predicted.clamp(-lim, lim) + kd * qd[i];
                (0.0, kd)
            } else {
                taus[i] = kd * rate;
                (kp, kd)
            };
            mb.damping_mut()[k] = DEFAULT_JOINT_DAMPING + damping;
            let Some(link) = mb.link_mut(link) else {
                continue;
            };
            let mask = [
                JointAxesMask::ANG_X,
                JointAxesMask::ANG_Y,
                JointAxesMask::ANG_Z,
            ][d.slot];
            link.joint.data.motor_axes.remove(mask);
            link.joint.data.motors[3 + d.slot] = JointMotor::default();
            link.joint.set_spring(3 + d.slot, stiffness, target);
        }
        self.apply_joint_torques(&taus);
    }

    /// Explicit PD: each degree of freedom's torque τ = clamp(kp(θ* − θ) + kd(θ̇* − θ̇) + τ_ff,
    /// ±τ_max), θ̇* the target rate ([`Simulation::set_target_rates`], 0 by default), τ_ff the
    /// feedforward ([`Simulation::set_feedforward`]), applied by
    /// [`Self::apply_joint_torques`].
    pub(super) fn apply_explicit_torques(&mut self) {
        let (q, qd) = self.dof_state();
        let gs = self.settings.gain_scale;
        let ss = self.settings.strength_scale;
        for (i, d) in self.dofs.iter().enumerate() {
            let lim = d.torque_limit * ss;
            let (mp, md) = self.gain_multipliers[i];
            let tau = (d.kp * gs * mp * (self.targets[i] - q[i])
                + d.kd * gs * md * (self.target_rates[i] - qd[i])
                + self.feedforward[i])
                .clamp(-lim, lim);
            self.torques[i] = tau;
        }
        let taus = std::mem::take(&mut self.torques);
        self.apply_joint_torques(&taus);
        self.torques = taus;
    }

    /// Implicit PD leaves the PD torque to the joint motors; the feedforward, clamped to the
    /// torque limit, is applied on top by [`Self::apply_joint_torques`].
    pub(super) fn apply_feedforward_torques(&mut self) {
        if self.feedforward.iter().all(|t| *t == 0.0) {
            return;
        }
        let ss = self.settings.strength_scale;
        let taus: Vec<f32> = self
            .dofs
            .iter()
            .zip(&self.feedforward)
            .map(|(d, t)| t.clamp(-d.torque_limit * ss, d.torque_limit * ss))
            .collect();
        self.apply_joint_torques(&taus);
    }

    /// Each joint's torques τ (one per degree of freedom) as one world torque T on the child
    /// (and −T on the parent) whose generalized force on each of its coordinates k is τ_k:
    /// c_kᵀ·T = τ_k, with c_k the coordinates' axes. Those of hinges and universal joints are
    /// orthonormal (T = Σ τ_k·c_k); a ball joint's last axis leans on its first by the second
    /// angle.
    fn apply_joint_torques(&mut self, taus: &[f32]) {
        let mut first = 0;
        for joint in self.dofs.chunk_by(|a, b| a.joint == b.joint) {
            let axes: Vec<Vector> = joint.iter().map(|d| self.world_axis(d)).collect();
            let taus = &taus[first..first + joint.len()];
            first += joint.len();
            let c = (axes.len() == 3)
                .then(|| rapier3d::glamx::Mat3::from_cols(axes[0], axes[1], axes[2]))
                .filter(|c| c.determinant().abs() > 1e-4);
            let torque = match c {
                Some(c) => c.transpose().inverse() * Vector::new(taus[0], taus[1], taus[2]),
                None => axes.iter().zip(taus).map(|(a, t)| *a * *t).sum(),
            };
            let (child, parent) = (joint[0].link_body, joint[0].parent_body);
            self.state.bodies[child].add_torque(torque, false);
            self.state.bodies[parent].add_torque(-torque, false);
        }
    }
}
