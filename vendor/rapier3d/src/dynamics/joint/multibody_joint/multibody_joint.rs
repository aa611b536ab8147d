use crate::dynamics::solver::GenericJointConstraint;
use crate::dynamics::{
    FixedJointBuilder, GenericJoint, IntegrationParameters, Multibody, MultibodyLink,
    RigidBodyVelocity, joint,
};
use crate::math::{
    ANG_DIM, DIM, DVector, JacobianViewMut, Pose, Real, Rotation, SPATIAL_DIM, SpatialVector,
    Vector,
};
use parry::math::VectorExt;

#[cfg(feature = "dim2")]
use crate::math::rotation_from_angle;
#[cfg(feature = "dim3")]
use crate::utils::RotationOps;
use crate::utils::vect_to_na;
use na::DVectorViewMut;

#[cfg_attr(feature = "serde-serialize", derive(Serialize, Deserialize))]
#[derive(Copy, Clone, Debug)]
/// An joint attached to two bodies based on the reduced coordinates formalism.
pub struct MultibodyJoint {
    /// The joint’s description.
    pub data: GenericJoint,
    /// Is the joint a kinematic joint?
    ///
    /// Kinematic joint velocities are never changed by the physics engine. This gives the user
    /// total control over the values of their degrees of freedoms.
    pub kinematic: bool,
    pub(crate) coords: SpatialVector,
    pub(crate) joint_rot: Rotation,
    /// Per-DoF spring stiffness (a passive joint spring integrated implicitly
    /// in the generalized dynamics). Zero on axes with no spring.
    pub(crate) spring_stiffness: SpatialVector,
    /// Per-DoF spring rest position, in the joint's generalized coordinate
    /// (same convention as [`Self::coords`]). Only meaningful where
    /// `spring_stiffness` is non-zero.
    pub(crate) spring_ref: SpatialVector,
    /// With three free angular axes: Euler-angle coordinates (see [`Self::set_euler_angles`])
    /// instead of the angular velocity.
    #[cfg_attr(feature = "serde-serialize", serde(default))]
    pub(crate) euler: bool,
}

impl MultibodyJoint {
    /// Creates a new multibody joint from its description.
    pub fn new(data: GenericJoint, kinematic: bool) -> Self {
        Self {
            data,
            kinematic,
            coords: Default::default(),
            joint_rot: Rotation::IDENTITY,
            spring_stiffness: Default::default(),
            spring_ref: Default::default(),
            euler: false,
        }
    }

    /// With three free angular axes, whether the angular coordinates are Euler angles: rotations
    /// about x, then y (carried by the first rotation), then z (carried by both), so that
    /// `coords[3..6]` are the three angles and each axis's limit and motor act on its own angle
    /// (with a 1 g virtual link per extra axis, a chain of three hinges does the same). Without
    /// it (the default) the generalized velocity is the angular velocity and the angular
    /// coordinates are its integral, which names no angle once the joint has turned about two
    /// axes. A joint with two free angular axes always uses Euler angles (a universal joint).
    /// Resets the joint's rotation from its coordinates.
    pub fn set_euler_angles(&mut self, euler: bool) {
        self.euler = euler;
        #[cfg(feature = "dim3")]
        if let Some((axes, n)) = self.euler_axes() {
            self.joint_rot = self.euler_rotation(&axes, n);
        }
    }

    /// Whether the angular coordinates are Euler angles ([`Self::set_euler_angles`]; always
    /// with two free angular axes).
    pub fn euler_angles(&self) -> bool {
        #[cfg(feature = "dim3")]
        {
            self.euler_axes().is_some()
        }
        #[cfg(feature = "dim2")]
        {
            false
        }
    }

    /// Sets a passive joint spring on `axis` (an index into the 6-DoF spatial
    /// layout: `0..DIM` linear, `DIM..SPATIAL_DIM` angular). The spring applies
    /// a generalized force `-stiffness · (q − rest)` integrated implicitly.
    pub fn set_spring(&mut self, axis: usize, stiffness: Real, rest: Real) {
        self.spring_stiffness[axis] = stiffness;
        self.spring_ref[axis] = rest;
    }

    /// The passive joint spring on `axis` as `(stiffness, rest)`, as set by
    /// [`Self::set_spring`]. `(0, 0)` if no spring is set on that axis.
    pub fn spring(&self, axis: usize) -> (Real, Real) {
        (self.spring_stiffness[axis], self.spring_ref[axis])
    }

    pub(crate) fn free(pos: Pose) -> Self {
        let mut result = Self::new(GenericJoint::default(), false);
        result.set_free_pos(pos);
        result
    }

    pub(crate) fn fixed(pos: Pose) -> Self {
        Self::new(
            FixedJointBuilder::new().local_frame1(pos).build().into(),
            false,
        )
    }

    pub(crate) fn set_free_pos(&mut self, pos: Pose) {
        #[cfg(feature = "dim2")]
        {
            self.coords.x = pos.translation.x;
            self.coords.y = pos.translation.y;
        }
        #[cfg(feature = "dim3")]
        {
            self.coords[0] = pos.translation.x;
            self.coords[1] = pos.translation.y;
            self.coords[2] = pos.translation.z;
        }
        self.joint_rot = pos.rotation;
    }

    /// The joint’s angular coordinates converted to a rotation.
    pub fn joint_rot(&self) -> Rotation {
        self.joint_rot
    }

    /// For a joint with Euler-angle coordinates (two free angular axes, or three with
    /// [`Self::set_euler_angles`]), its free angular axes in order (indices into x, y, z of
    /// frame 1) and their number.
    #[cfg(feature = "dim3")]
    fn euler_axes(&self) -> Option<([usize; 3], usize)> {
        let free = !(self.data.locked_axes.bits() >> DIM) & 0b111;
        let n = free.count_ones() as usize;
        if n == 2 || (n == 3 && self.euler) {
            let mut axes = [0; 3];
            let mut k = 0;
            for a in 0..3 {
                if free & (1 << a) != 0 {
                    axes[k] = a;
                    k += 1;
                }
            }
            Some((axes, n))
        } else {
            None
        }
    }

    /// The rotation R_a0(q_a0)·R_a1(q_a1)[·R_a2(q_a2)] of Euler-angle coordinates.
    #[cfg(feature = "dim3")]
    fn euler_rotation(&self, axes: &[usize; 3], n: usize) -> Rotation {
        let mut rot = Rotation::IDENTITY;
        for &a in &axes[..n] {
            rot = rot * Rotation::from_axis_angle(Vector::ith(a, 1.0), self.coords[DIM + a]);
        }
        rot
    }

    /// The angular Jacobian columns of Euler-angle coordinates in frame 1: each axis as the
    /// rotations before it have turned it, `c_k = R_a0·…·R_a(k−1)·e_ak`.
    #[cfg(feature = "dim3")]
    fn euler_columns(&self, axes: &[usize; 3], n: usize) -> [Vector; 3] {
        let mut cols = [Vector::ZERO; 3];
        let mut rot = Rotation::IDENTITY;
        for k in 0..n {
            let a = axes[k];
            cols[k] = rot * Vector::ith(a, 1.0);
            rot = rot * Rotation::from_axis_angle(Vector::ith(a, 1.0), self.coords[DIM + a]);
        }
        cols
    }

    /// For a joint with Euler-angle coordinates, the number n of its angular coordinates, their
    /// Jacobian columns `c_k` in frame 1 turned by `transform`, and the joint's own bias `J̇·q̇`
    /// with its derivatives in each `q̇_k`; `None` for other joints. With `ω_k = q̇_k·c_k`, each
    /// column turns with the rotations before it, so the bias is `Σ_{i<j} ω_i × ω_j`, and its
    /// derivative in `q̇_k` is `c_k × Σ_{j>k} ω_j + (Σ_{i<k} ω_i) × c_k`.
    pub(crate) fn euler_bias(
        &self,
        transform: &Rotation,
        vels: &[Real],
    ) -> Option<(usize, Vector, [Vector; 3])> {
        #[cfg(feature = "dim3")]
        {
            if let Some((axes, n)) = self.euler_axes() {
                let lin = self.num_free_lin_dofs();
                let cols = self.euler_columns(&axes, n).map(|c| *transform * c);
                let mut w = [Vector::ZERO; 3];
                for k in 0..n {
                    w[k] = cols[k] * vels[lin + k];
                }
                let mut bias = Vector::ZERO;
                let mut before = w[0];
                for j in 1..n {
                    bias += before.cross(w[j]);
                    before += w[j];
                }
                let mut derivatives = [Vector::ZERO; 3];
                for k in 0..n {
                    let mut after = Vector::ZERO;
                    for wj in &w[k + 1..n] {
                        after += *wj;
                    }
                    let mut prior = Vector::ZERO;
                    for wi in &w[..k] {
                        prior += *wi;
                    }
                    derivatives[k] = cols[k].cross(after) + prior.cross(cols[k]);
                }
                return Some((n, bias, derivatives));
            }
        }
        let _ = (transform, vels);
        None
    }

    fn num_free_lin_dofs(&self) -> usize {
        let locked_bits = self.data.locked_axes.bits();
        DIM - (locked_bits & ((1 << DIM) - 1)).count_ones() as usize
    }

    /// Generalized coordinates for this joint.
    pub fn coords(&self) -> SpatialVector {
        self.coords
    }

    /// The number of degrees of freedom allowed by the multibody_joint.
    pub fn ndofs(&self) -> usize {
        SPATIAL_DIM - self.data.locked_axes.bits().count_ones() as usize
    }

    /// The position of the multibody link containing this multibody_joint relative to its parent.
    pub fn body_to_parent(&self) -> Pose {
        let locked_bits = self.data.locked_axes.bits();
        let mut transform = Pose::from_rotation(self.joint_rot) * self.data.local_frame2.inverse();

        for i in 0..DIM {
            if (locked_bits & (1 << i)) == 0 {
                // Create a translation along axis i with the coordinate value
                let translation = Vector::ith(i, self.coords[i]);
                transform = Pose::from_translation(translation) * transform;
            }
        }

        self.data.local_frame1 * transform
    }

    /// Integrate the position of this multibody_joint.
    #[profiling::function]
    pub fn integrate(&mut self, dt: Real, vels: &[Real]) {
        let locked_bits = self.data.locked_axes.bits();
        let mut curr_free_dof = 0;

        for i in 0..DIM {
            if (locked_bits & (1 << i)) == 0 {
                self.coords[i] += vels[curr_free_dof] * dt;
                curr_free_dof += 1;
            }
        }

        let locked_ang_bits = locked_bits >> DIM;
        let num_free_ang_dofs = ANG_DIM - locked_ang_bits.count_ones() as usize;
        match num_free_ang_dofs {
            0 => { /* No free dofs. */ }
            1 => {
                let dof_id = (!locked_ang_bits).trailing_zeros() as usize;
                self.coords[DIM + dof_id] += vels[curr_free_dof] * dt;
                #[cfg(feature = "dim2")]
                {
                    self.joint_rot = rotation_from_angle(self.coords[DIM + dof_id]);
                }
                #[cfg(feature = "dim3")]
                {
                    self.joint_rot = Rotation::from_axis_angle(
                        Vector::ith(dof_id, 1.0),
                        self.coords[DIM + dof_id],
                    );
                }
            }
            #[cfg(feature = "dim3")]
            2 | 3 if self.euler_axes().is_some() => {
                // Euler angles: about the first free axis (fixed in frame 1), then the next ones
                // (each carried by the rotations before it).
                let (axes, n) = self.euler_axes().unwrap();
                for (k, &a) in axes[..n].iter().enumerate() {
                    self.coords[DIM + a] += vels[curr_free_dof + k] * dt;
                }
                self.joint_rot = self.euler_rotation(&axes, n);
            }
            #[cfg(feature = "dim3")]
            3 => {
                let angvel = Vector::from_slice(&vels[curr_free_dof..curr_free_dof + 3]);
                let disp = Rotation::from_scaled_axis(angvel * dt);
                self.joint_rot = disp * self.joint_rot;
                self.coords[3] += angvel[0] * dt;
                self.coords[4] += angvel[1] * dt;
                self.coords[5] += angvel[2] * dt;
            }
            _ => unreachable!(),
        }
    }

    /// Apply a displacement to the multibody_joint.
    pub fn apply_displacement(&mut self, disp: &[Real]) {
        self.integrate(1.0, disp);
    }

    /// Sets in `out` the non-zero entries of the multibody_joint jacobian transformed by `transform`.
    pub fn jacobian(&self, transform: &Rotation, out: &mut JacobianViewMut<Real>) {
        let locked_bits = self.data.locked_axes.bits();
        let mut curr_free_dof = 0;

        for i in 0..DIM {
            if (locked_bits & (1 << i)) == 0 {
                let transformed_axis = (*transform) * Vector::ith(i, 1.0);
                out.fixed_view_mut::<DIM, 1>(0, curr_free_dof)
                    .copy_from(&vect_to_na(transformed_axis));
                curr_free_dof += 1;
            }
        }

        let locked_ang_bits = locked_bits >> DIM;
        let num_free_ang_dofs = ANG_DIM - locked_ang_bits.count_ones() as usize;
        match num_free_ang_dofs {
            0 => { /* No free dofs. */ }
            1 => {
                #[cfg(feature = "dim2")]
                {
                    out[(DIM, curr_free_dof)] = 1.0;
                }

                #[cfg(feature = "dim3")]
                {
                    let dof_id = (!locked_ang_bits).trailing_zeros() as usize;
                    let rotmat = transform.to_mat();
                    out.fixed_view_mut::<ANG_DIM, 1>(DIM, curr_free_dof)
                        .copy_from_slice(rotmat.col(dof_id).as_ref());
                }
            }
            #[cfg(feature = "dim3")]
            2 | 3 if self.euler_axes().is_some() => {
                // Angular velocity Σ q̇_k·c_k, in frame 1 turned by `transform`.
                let (axes, n) = self.euler_axes().unwrap();
                let cols = self.euler_columns(&axes, n);
                for (k, c) in cols[..n].iter().enumerate() {
                    out.fixed_view_mut::<ANG_DIM, 1>(DIM, curr_free_dof + k)
                        .copy_from(&vect_to_na(*transform * *c));
                }
            }
            #[cfg(feature = "dim3")]
            3 => {
                let rotmat = transform.to_mat();
                out.fixed_view_mut::<3, 3>(3, curr_free_dof)
                    .copy_from_slice(rotmat.as_ref());
            }
            _ => unreachable!(),
        }
    }

    /// Multiply the multibody_joint jacobian by generalized velocities to obtain the
    /// relative velocity of the multibody link containing this multibody_joint.
    pub fn jacobian_mul_coordinates(&self, acc: &[Real]) -> RigidBodyVelocity<Real> {
        let locked_bits = self.data.locked_axes.bits();
        let mut result = RigidBodyVelocity::zero();
        let mut curr_free_dof = 0;

        for i in 0..DIM {
            if (locked_bits & (1 << i)) == 0 {
                result.linvel += Vector::ith(i, acc[curr_free_dof]);
                curr_free_dof += 1;
            }
        }

        let locked_ang_bits = locked_bits >> DIM;
        let num_free_ang_dofs = ANG_DIM - locked_ang_bits.count_ones() as usize;
        match num_free_ang_dofs {
            0 => { /* No free dofs. */ }
            1 => {
                #[cfg(feature = "dim2")]
                {
                    result.angvel += acc[curr_free_dof];
                }
                #[cfg(feature = "dim3")]
                {
                    let dof_id = (!locked_ang_bits).trailing_zeros() as usize;
                    result.angvel[dof_id] += acc[curr_free_dof];
                }
            }
            #[cfg(feature = "dim3")]
            2 | 3 if self.euler_axes().is_some() => {
                let (axes, n) = self.euler_axes().unwrap();
                let cols = self.euler_columns(&axes, n);
                for (k, c) in cols[..n].iter().enumerate() {
                    result.angvel += *c * acc[curr_free_dof + k];
                }
            }
            #[cfg(feature = "dim3")]
            3 => {
                let angvel = Vector::from_slice(&acc[curr_free_dof..curr_free_dof + 3]);
                result.angvel += angvel;
            }
            _ => unreachable!(),
        }
        result
    }

    /// Fill `out` with the non-zero entries of a damping that can be applied by default to ensure a good stability of the multibody_joint.
    pub fn default_damping(&self, out: &mut DVectorViewMut<Real>) {
        let locked_bits = self.data.locked_axes.bits();
        let mut curr_free_dof = self.num_free_lin_dofs();

        // A default damping only for the angular dofs
        for i in DIM..SPATIAL_DIM {
            if locked_bits & (1 << i) == 0 {
                // This is a free angular DOF.
                out[curr_free_dof] = 0.1;
                curr_free_dof += 1;
            }
        }
    }

    /// Maximum number of velocity constrains that can be generated by this multibody_joint.
    pub fn num_velocity_constraints(&self) -> usize {
        let locked_bits = self.data.locked_axes.bits();
        let limit_bits = self.data.limit_axes.bits();
        let motor_bits = self.data.motor_axes.bits();
        let mut num_constraints = 0;

        for i in 0..SPATIAL_DIM {
            if (locked_bits & (1 << i)) == 0 {
                if (limit_bits & (1 << i)) != 0 {
                    num_constraints += 1;
                }
                if (motor_bits & (1 << i)) != 0 {
                    num_constraints += 1;
                }
            }
        }

        num_constraints
    }

    /// Initialize and generate velocity constraints to enforce, e.g., multibody_joint limits and motors.
    pub fn velocity_constraints(
        &self,
        params: &IntegrationParameters,
        multibody: &Multibody,
        link: &MultibodyLink,
        mut j_id: usize,
        jacobians: &mut DVector,
        constraints: &mut [GenericJointConstraint],
    ) -> usize {
        let j_id = &mut j_id;
        let locked_bits = self.data.locked_axes.bits();
        let limit_bits = self.data.limit_axes.bits();
        let motor_bits = self.data.motor_axes.bits();
        let mut num_constraints = 0;
        let mut curr_free_dof = 0;

        for i in 0..DIM {
            if (locked_bits & (1 << i)) == 0 {
                let limits = if (limit_bits & (1 << i)) != 0 {
                    Some([self.data.limits[i].min, self.data.limits[i].max])
                } else {
                    None
                };

                if (motor_bits & (1 << i)) != 0 {
                    joint::unit_joint_motor_constraint(
                        params,
                        multibody,
                        link,
                        &self.data.motors[i],
                        self.coords[i],
                        limits,
                        curr_free_dof,
                        j_id,
                        jacobians,
                        constraints,
                        &mut num_constraints,
                    );
                }

                if (limit_bits & (1 << i)) != 0 {
                    joint::unit_joint_limit_constraint(
                        params,
                        multibody,
                        link,
                        [self.data.limits[i].min, self.data.limits[i].max],
                        self.coords[i],
                        curr_free_dof,
                        j_id,
                        jacobians,
                        constraints,
                        &mut num_constraints,
                        self.data.softness,
                    );
                }
                // Dry joint friction (MuJoCo `frictionloss`), keyed per-DoF on
                // the multibody rather than per-axis on the joint. Zero (the
                // default) emits nothing.
                let friction = multibody.frictions()[link.assembly_id + curr_free_dof];
                if friction > 0.0 {
                    joint::unit_joint_friction_constraint(
                        params,
                        multibody,
                        link,
                        friction,
                        curr_free_dof,
                        j_id,
                        jacobians,
                        constraints,
                        &mut num_constraints,
                        self.data.softness,
                    );
                }
                curr_free_dof += 1;
            }
        }

        /*
        let locked_ang_bits = locked_bits >> DIM;
        let num_free_ang_dofs = ANG_DIM - locked_ang_bits.count_ones() as usize;
        match num_free_ang_dofs {
            0 => { /* No free dofs. */ }
            1 => {}
            2 => {
                todo!()
            }
            3 => {}
            _ => unreachable!(),
        }
         */
        // TODO: we should make special cases for multi-angular-dofs limits/motors
        for i in DIM..SPATIAL_DIM {
            if (locked_bits & (1 << i)) == 0 {
                let limits = if (limit_bits & (1 << i)) != 0 {
                    let limits = [self.data.limits[i].min, self.data.limits[i].max];
                    joint::unit_joint_limit_constraint(
                        params,
                        multibody,
                        link,
                        limits,
                        self.coords[i],
                        curr_free_dof,
                        j_id,
                        jacobians,
                        constraints,
                        &mut num_constraints,
                        self.data.softness,
                    );
                    Some(limits)
                } else {
                    None
                };

                if (motor_bits & (1 << i)) != 0 {
                    joint::unit_joint_motor_constraint(
                        params,
                        multibody,
                        link,
                        &self.data.motors[i],
                        self.coords[i],
                        limits,
                        curr_free_dof,
                        j_id,
                        jacobians,
                        constraints,
                        &mut num_constraints,
                    );
                }

                // Dry joint friction (MuJoCo `frictionloss`), keyed per-DoF on
                // the multibody rather than per-axis on the joint. Zero (the
                // default) emits nothing.
                let friction = multibody.frictions()[link.assembly_id + curr_free_dof];
                if friction > 0.0 {
                    joint::unit_joint_friction_constraint(
                        params,
                        multibody,
                        link,
                        friction,
                        curr_free_dof,
                        j_id,
                        jacobians,
                        constraints,
                        &mut num_constraints,
                        self.data.softness,
                    );
                }
                curr_free_dof += 1;
            }
        }

        num_constraints
    }
}
