//! Building a simulation from the one character model: the ground, one rigid body and collider
//! per model body (shape, mass, inertia), the multibody tree with one joint per model joint
//! (hinges, and universal and ball joints in Euler angles), a planar root held in its plane by an
//! impulse joint, end-effector bookkeeping, the armatures and the PD motors (see the module docs
//! of [`super`] for the modelling choices).

use super::*;
use crate::model::ShapeF32;
use std::f32::consts::FRAC_PI_2;

impl Simulation {
    pub fn new(character: &Character, settings: SimSettings) -> Result<Self, SimError> {
        let problems = character.validate();
        if !problems.is_empty() {
            return Err(SimError::InvalidCharacter {
                name: character.name.clone(),
                problems: problems
                    .iter()
                    .map(|p| p.to_string())
                    .collect::<Vec<_>>()
                    .join("; "),
            });
        }
        if !(settings.dt > 0.0 && settings.dt <= 0.05) {
            return Err(SimError::InvalidSettings(format!(
                "time step {} s is outside (0, 0.05]",
                settings.dt
            )));
        }
        if !(settings.gain_scale >= 0.0 && settings.strength_scale >= 0.0)
            || !(settings.gain_scale.is_finite() && settings.strength_scale.is_finite())
        {
            return Err(SimError::InvalidSettings(
                "gain and strength scales must be finite and non-negative".into(),
            ));
        }
        if !(1..=16).contains(&settings.solver_iterations)
            || !(1..=64).contains(&settings.pgs_iterations)
        {
            return Err(SimError::InvalidSettings(format!(
                "expected 1 to 16 substeps of 1 to 64 sweeps, found {} of {}",
                settings.solver_iterations, settings.pgs_iterations
            )));
        }
        let ground = settings.ground;
        if !((0.0..=10.0).contains(&ground.friction) && (0.0..=1.0).contains(&ground.restitution)) {
            return Err(SimError::InvalidSettings(format!(
                "expected a ground friction in [0, 10] and a restitution in [0, 1], found {} and {}",
                ground.friction, ground.restitution
            )));
        }
        if !(settings.max_linear_speed > 0.0 && settings.max_angular_speed > 0.0) {
            return Err(SimError::InvalidSettings(
                "the runaway speed limits must be positive".into(),
            ));
        }
        let mut params = IntegrationParameters::default();
        params.dt = settings.dt;
        params.num_solver_iterations = settings.solver_iterations.max(1);
        params.num_internal_pgs_iterations = settings.pgs_iterations.max(1);
        // Friction rows also in the stabilization (bias) pass, with their positional anchor
        // terms: standing feet then stay within 0.5 mm over 10 s instead of creeping 2 mm (the
        // bird robot) to 0.3 m (the horse) while the solver slowly gives way under a constant
        // load.
        params.friction_in_bias_pass = true;

        let mut st = PhysicsState {
            islands: IslandManager::new(),
            broad_phase: DefaultBroadPhase::default(),
            narrow_phase: NarrowPhase::new(),
            bodies: RigidBodySet::new(),
            colliders: ColliderSet::new(),
            impulse_joints: ImpulseJointSet::new(),
            multibody_joints: MultibodyJointSet::new(),
            ccd_solver: CCDSolver::new(),
        };

        // Ground: a large box whose top is at the character's lowest point.
        // The reference pose's lowest point, in the simulation's own f32 arithmetic.
        let ground_height = reference_ground_height(character);
        let ground_body = st
            .bodies
            .insert(RigidBodyBuilder::fixed().translation(Vector::new(
                0.0,
                ground_height - 1.0,
                0.0,
            )));
        let ground = st.colliders.insert_with_parent(
            ground_collider([200.0, 1.0, 200.0], &settings.ground),
            ground_body,
            &mut st.bodies,
        );

        let mut bodies = Vec::with_capacity(character.bodies.len());
        let mut colliders = Vec::with_capacity(character.bodies.len());
        for b in &character.bodies {
            let h = st.bodies.insert(rigid_body(b));
            colliders.push(
                st.colliders
                    .insert_with_parent(body_collider(b), h, &mut st.bodies),
            );
            bodies.push(h);
        }

        let root = character
            .body_index(&character.root.body)
            .expect("validated");
        if character.root.kind == RootKind::Planar {
            // Fixed base at the root's reference position; planar joint x, y, rot z. It is an
            // impulse joint, not a multibody joint: with the multibody rooted at a fixed base
            // through a generic planar joint, Rapier 0.35 applied no contact friction (a pushed
            // character slid across the ground at constant speed, even with μ = 2). As an
            // impulse joint the pelvis stays in the plane to 1e-5 m and the feet hold.
            let base = st.bodies.insert(
                RigidBodyBuilder::fixed().translation(model_vec(character.bodies[root].position)),
            );
            let rot = body_pose(&character.bodies[root]).rotation;
            let joint = GenericJointBuilder::new(
                JointAxesMask::LIN_Z | JointAxesMask::ANG_X | JointAxesMask::ANG_Y,
            )
            .local_frame1(Pose::from_rotation(rot))
            .local_frame2(Pose::identity())
            .contacts_enabled(false)
            .build();
            st.impulse_joints.insert(base, bodies[root], joint, true);
        }

        // Insert joints parent-first so the multibody grows from its root.
        let mut order = Vec::new();
        let mut reached = vec![false; character.bodies.len()];
        reached[root] = true;
        while order.len() < character.joints.len() {
            let before = order.len();
            for (ji, j) in character.joints.iter().enumerate() {
                let p = character.body_index(&j.parent).unwrap();
                let c = character.body_index(&j.child).unwrap();
                if reached[p] && !reached[c] {
                    reached[c] = true;
                    order.push(ji);
                }
            }
            if order.len() == before {
                break;
            }
        }

        let mut dofs = Vec::new();
        for ji in order {
            let j = &character.joints[ji];
            let gains = character.gains(ji);
            let p = character.body_index(&j.parent).unwrap();
            let c = character.body_index(&j.child).unwrap();
            let anchor = model_vec(j.anchor);
            let parent_pose = body_pose(&character.bodies[p]);
            let child_pose = body_pose(&character.bodies[c]);
            let axes = j.kind.axes();
            if axes.is_empty() {
                let frame = Pose::from_translation(anchor);
                let joint = GenericJointBuilder::new(JointAxesMask::all())
                    .local_frame1(parent_pose.inverse() * frame)
                    .local_frame2(child_pose.inverse() * frame)
                    .contacts_enabled(false)
                    .build();
                st.multibody_joints
                    .insert(bodies[p], bodies[c], joint, true)
                    .ok_or_else(|| SimError::JointRejected(j.name.clone()))?;
                continue;
            }
            // One multibody joint per model joint, its free angular axes x, y (and z) of the
            // joint frame. Two or three axes are Euler angles (the patched rapier's universal and
            // ball joints, vendor/rapier3d PATCHES.md): the first fixed in the parent, each next
            // one carried by the rotations before it, the last fixed in the child.
            let n = axes.len();
            let frame = Pose::from_parts(
                anchor,
                if n == 1 {
                    frame_for_axis(model_vec(axes[0]))
                } else {
                    frame_for_axes(model_vec(axes[0]), model_vec(axes[1]))
                },
            );
            let local1 = parent_pose.inverse() * frame;
            let local2 = child_pose.inverse() * frame;
            let (mask, joint_axes) = match n {
                1 => (JointAxesMask::LOCKED_REVOLUTE_AXES, &[JointAxis::AngX][..]),
                2 => (
                    JointAxesMask::LOCKED_REVOLUTE_AXES.difference(JointAxesMask::ANG_Y),
                    &[JointAxis::AngX, JointAxis::AngY][..],
                ),
                _ => (
                    JointAxesMask::LOCKED_SPHERICAL_AXES,
                    &[JointAxis::AngX, JointAxis::AngY, JointAxis::AngZ][..],
                ),
            };
            let mut builder = GenericJointBuilder::new(mask)
                .local_frame1(local1)
                .local_frame2(local2)
                .contacts_enabled(false);
            for (k, axis) in joint_axes.iter().enumerate() {
                if let Some(&(lo, hi)) = j.limits.get(k) {
                    builder =
                        builder.limits(*axis, [lo.to_radians() as f32, hi.to_radians() as f32]);
                }
            }
            let handle = st
                .multibody_joints
                .insert(bodies[p], bodies[c], builder.build(), true)
                .ok_or_else(|| SimError::JointRejected(j.name.clone()))?;
            if n == 3 {
                let (mb, link) = st
                    .multibody_joints
                    .get_mut(handle)
                    .ok_or_else(|| SimError::JointRejected(j.name.clone()))?;
                if let Some(link) = mb.link_mut(link) {
                    link.joint.set_euler_angles(true);
                }
            }
            let unit = [Vector::X, Vector::Y, Vector::Z];
            for k in 0..n {
                dofs.push(Dof {
                    name: if n == 1 {
                        j.name.clone()
                    } else {
                        format!("{}.{k}", j.name)
                    },
                    joint: ji,
                    link_body: bodies[c],
                    parent_body: bodies[p],
                    slot: k,
                    axis_frame: if k + 1 == n {
                        AxisFrame::Body(bodies[c], local2.rotation * unit[k])
                    } else if k == 0 {
                        AxisFrame::Body(bodies[p], local1.rotation * unit[k])
                    } else {
                        AxisFrame::AfterFirst(bodies[p], local1.rotation)
                    },
                    kp: gains.kp as f32,
                    kd: gains.kd as f32,
                    torque_limit: gains.torque_limit as f32,
                    limits: j
                        .limits
                        .get(k)
                        .map(|&(a, b)| (a.to_radians() as f32, b.to_radians() as f32)),
                });
            }
        }
        // Keep DOFs in model order (joint order, then axis order) whatever the insertion order.
        dofs.sort_by_key(|d| d.joint);

        let bears_weight = character
            .bodies
            .iter()
            .map(|b| {
                character
                    .effectors(EffectorTag::Foot)
                    .any(|e| e.body == b.name)
                    || character.weight_bearing.contains(&b.name)
            })
            .collect();
        let n = dofs.len();
        let joint_anchors = character
            .joints
            .iter()
            .map(|j| {
                let c = character.body_index(&j.child).unwrap();
                (
                    c,
                    body_pose(&character.bodies[c]).inverse_transform_point(model_vec(j.anchor)),
                )
            })
            .collect();
        let mut sim = Simulation {
            character: character.clone(),
            settings,
            pipeline: PhysicsPipeline::new(),
            params,
            state: st,
            bodies,
            colliders,
            ground,
            obstacles: Vec::new(),
            ground_height,
            dofs,
            targets: vec![0.0; n],
            torques: vec![0.0; n],
            feedforward: vec![0.0; n],
            target_rates: vec![0.0; n],
            pushes: Vec::new(),
            time: 0.0,
            steps: 0,
            failure: None,
            reference_com_height: 0.0,
            bears_weight,
            gain_multipliers: vec![(1.0, 1.0); n],
            joint_anchors,
            gravity: -crate::model::rotation::GRAVITY,
        };
        sim.reference_com_height = sim.com()[1] - ground_height;
        sim.apply_armature();
        sim.apply_motor_settings();
        Ok(sim)
    }
}

/// The reference pose's lowest point, in the simulation's own f32 arithmetic: where the ground's
/// top is.
pub(super) fn reference_ground_height(character: &Character) -> f32 {
    character
        .bodies
        .iter()
        .map(|b| {
            let r = b.rotation.map(|x| x as f32);
            crate::model::vertical_extent(&b.shape.as_f32(), r, b.position[1] as f32).0
        })
        .fold(f32::INFINITY, f32::min)
}

/// The rigid body of a model body: its reference pose, mass and inertia (the file's, or the
/// shape's), never sleeping.
pub(super) fn rigid_body(b: &crate::model::Body) -> RigidBodyBuilder {
    let i = b
        .inertia
        .map(|i| i.map(|x| x as f32))
        .unwrap_or_else(|| crate::model::principal_inertia(&b.shape.as_f32(), b.mass as f32));
    RigidBodyBuilder::dynamic()
        .pose(body_pose(b))
        .additional_mass_properties(MassProperties::new(
            Vector::ZERO,
            b.mass as f32,
            Vector::new(i[0], i[1], i[2]),
        ))
        .can_sleep(false)
}

/// A box of the ground (the floor, or an obstacle on it): the ground's friction and restitution,
/// in the ground's collision group.
pub(super) fn ground_collider(half_extents: [f32; 3], ground: &GroundSettings) -> ColliderBuilder {
    ColliderBuilder::cuboid(half_extents[0], half_extents[1], half_extents[2])
        .friction(ground.friction)
        .friction_combine_rule(CoefficientCombineRule::Min)
        .restitution(ground.restitution)
        .restitution_combine_rule(CoefficientCombineRule::Min)
        .collision_groups(InteractionGroups::new(
            GROUND_GROUP,
            Group::ALL,
            InteractionTestMode::And,
        ))
}

/// The collider of a model body: its shape, colliding with the ground only, with friction and
/// restitution taken from the ground (combine rule Min).
pub(crate) fn body_collider(b: &crate::model::Body) -> ColliderBuilder {
    let shape = match b.shape.as_f32() {
        ShapeF32::Capsule {
            radius,
            half_length,
            axis,
        } => match axis {
            crate::model::Axis::X => ColliderBuilder::capsule_x(half_length, radius),
            crate::model::Axis::Y => ColliderBuilder::capsule_y(half_length, radius),
            crate::model::Axis::Z => ColliderBuilder::capsule_z(half_length, radius),
        },
        ShapeF32::Cylinder {
            radius,
            half_length,
            axis,
        } => {
            // Rapier's cylinder lies along its local y; turn it onto the body's axis.
            let c = ColliderBuilder::cylinder(half_length, radius);
            match axis {
                crate::model::Axis::X => c.rotation(Vector::new(0.0, 0.0, -FRAC_PI_2)),
                crate::model::Axis::Y => c,
                crate::model::Axis::Z => c.rotation(Vector::new(FRAC_PI_2, 0.0, 0.0)),
            }
        }
        ShapeF32::Box { half_extents: e } => ColliderBuilder::cuboid(e[0], e[1], e[2]),
        ShapeF32::Ellipsoid { radii } => ColliderBuilder::convex_hull(&ellipsoid_points(radii))
            .unwrap_or_else(|| ColliderBuilder::ball(radii[0].min(radii[1]).min(radii[2]))),
    };
    shape
        .density(0.0)
        .friction(1.0e3)
        .friction_combine_rule(CoefficientCombineRule::Min)
        .restitution(1.0)
        .restitution_combine_rule(CoefficientCombineRule::Min)
        .collision_groups(InteractionGroups::new(
            CHARACTER_GROUP,
            GROUND_GROUP,
            InteractionTestMode::And,
        ))
}

pub(crate) fn body_pose(b: &crate::model::Body) -> Pose {
    let q = crate::model::euler_xyz_deg_to_quat(b.rotation.map(|x| x as f32));
    Pose::from_parts(
        model_vec(b.position),
        Rotation::from_xyzw(q[0], q[1], q[2], q[3]).normalize(),
    )
}

/// The rotation whose x axis is `a` and y axis `b` (made orthogonal to a).
pub(super) fn frame_for_axes(a: Vector, b: Vector) -> Rotation {
    let x = a.normalize();
    let y = (b - x * x.dot(b)).normalize();
    Rotation::from_mat3(&rapier3d::glamx::Mat3::from_cols(x, y, x.cross(y)))
}

/// Rotation taking the x axis onto `axis`.
pub(super) fn frame_for_axis(axis: Vector) -> Rotation {
    Rotation::from_rotation_arc(Vector::X, axis.normalize())
}

/// Points on an ellipsoid surface for its convex-hull collider.
fn ellipsoid_points(r: [f32; 3]) -> Vec<Vector> {
    let mut pts = Vec::new();
    let (nu, nv) = (12, 8);
    for i in 0..=nv {
        let v = std::f32::consts::PI * i as f32 / nv as f32;
        for j in 0..nu {
            let u = 2.0 * std::f32::consts::PI * j as f32 / nu as f32;
            pts.push(Vector::new(
                r[0] * v.sin() * u.cos(),
                r[1] * v.cos(),
                r[2] * v.sin() * u.sin(),
            ));
        }
    }
    pts
}
