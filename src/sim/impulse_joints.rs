//! The alternative to the multibody that issue P5 asks to measure first (deliverable 1): the
//! same character built from impulse joints, solved iteratively with the contacts, one generic
//! joint per joint (a universal joint is one joint with two free angular axes, not two hinges),
//! PD motors per free axis as in the multibody (force-based, the same gains and torque limits),
//! held in its reference pose. A measurement for `motionlab bench impulse`, not a simulation
//! the product uses: the rest of the project keeps the multibody (see the issue notes).

use super::GroundSettings;
use super::world::{
    body_collider, body_pose, frame_for_axes, frame_for_axis, reference_ground_height, rigid_body,
};
use crate::model::{Character, EffectorTag, JointKind, RootKind};
use rapier3d::math::{Pose, Rotation, Vector};
use rapier3d::prelude::*;
use std::time::Instant;

/// How the impulse-joint human stood.
#[derive(Debug, Clone, Copy)]
pub struct ImpulseStanding {
    pub steps_per_second: f64,
    /// The root fell below half its reference height.
    pub fell: bool,
    /// Largest displacement of a foot after the first 0.5 s (m).
    pub foot_drift: f64,
    /// Largest separation of a joint's two anchor points at the end (m): how far the iterative
    /// solve lets the joints come apart.
    pub joint_gap: f64,
}

/// Stands `c` (a free root) for `seconds` at 120 Hz with 2 substeps of 8 sweeps (with the
/// multibody's single substep it falls), with `friction_in_bias_pass` and joint warm starting
/// as given.
pub fn stand(
    c: &Character,
    seconds: f32,
    friction_in_bias_pass: bool,
    warmstart_joints: bool,
) -> ImpulseStanding {
    assert_eq!(
        c.root.kind,
        RootKind::Free,
        "the experiment builds free roots only"
    );
    let mut params = IntegrationParameters {
        dt: 1.0 / 120.0,
        ..Default::default()
    };
    params.num_solver_iterations = 2;
    params.num_internal_pgs_iterations = 8;
    params.friction_in_bias_pass = friction_in_bias_pass;
    params.warmstart_joints = warmstart_joints;
    let mut bodies = RigidBodySet::new();
    let mut colliders = ColliderSet::new();
    let mut joints = ImpulseJointSet::new();
    let ground_height = reference_ground_height(c);
    let ground = bodies.insert(RigidBodyBuilder::fixed().translation(Vector::new(
        0.0,
        ground_height - 1.0,
        0.0,
    )));
    colliders.insert_with_parent(
        super::world::ground_collider([200.0, 1.0, 200.0], &GroundSettings::default()),
        ground,
        &mut bodies,
    );
    let handles: Vec<RigidBodyHandle> = c
        .bodies
        .iter()
        .map(|b| {
            let h = bodies.insert(rigid_body(b));
            colliders.insert_with_parent(body_collider(b), h, &mut bodies);
            h
        })
        .collect();
    let mut anchors = Vec::new();
    for (ji, j) in c.joints.iter().enumerate() {
        let p = c.body_index(&j.parent).unwrap();
        let ch = c.body_index(&j.child).unwrap();
        let anchor = Vector::new(j.anchor[0] as f32, j.anchor[1] as f32, j.anchor[2] as f32);
        let axes: Vec<Vector> = j
            .kind
            .axes()
            .iter()
            .map(|a| Vector::new(a[0] as f32, a[1] as f32, a[2] as f32))
            .collect();
        let (rotation, free) = match &j.kind {
            JointKind::Hinge { .. } => (frame_for_axis(axes[0]), vec![JointAxis::AngX]),
            JointKind::Universal { .. } => (
                frame_for_axes(axes[0], axes[1]),
                vec![JointAxis::AngX, JointAxis::AngY],
            ),
            JointKind::Ball => (
                Rotation::IDENTITY,
                vec![JointAxis::AngX, JointAxis::AngY, JointAxis::AngZ],
            ),
            JointKind::Fixed => (Rotation::IDENTITY, vec![]),
        };
        let mut locked = JointAxesMask::all();
        for a in &free {
            locked.remove(JointAxesMask::from(*a));
        }
        let frame = Pose::from_parts(anchor, rotation);
        let parent_pose = body_pose(&c.bodies[p]);
        let child_pose = body_pose(&c.bodies[ch]);
        let mut builder = GenericJointBuilder::new(locked)
            .local_frame1(parent_pose.inverse() * frame)
            .local_frame2(child_pose.inverse() * frame)
            .contacts_enabled(false);
        let gains = c.gains(ji);
        for (k, a) in free.iter().enumerate() {
            if let Some(&(lo, hi)) = j.limits.get(k) {
                builder = builder.limits(*a, [lo.to_radians() as f32, hi.to_radians() as f32]);
            }
            builder = builder
                .motor_model(*a, MotorModel::ForceBased)
                .motor_position(*a, 0.0, gains.kp as f32, gains.kd as f32)
                .motor_max_force(*a, gains.torque_limit as f32);
        }
        joints.insert(handles[p], handles[ch], builder.build(), true);
        anchors.push((
            p,
            ch,
            parent_pose.inverse_transform_point(anchor),
            child_pose.inverse_transform_point(anchor),
        ));
    }
    let feet: Vec<usize> = c
        .effectors(EffectorTag::Foot)
        .filter_map(|e| c.body_index(&e.body))
        .collect();
    let root = c.body_index(&c.root.body).unwrap();
    let root_height = c.bodies[root].position[1] as f32 - ground_height;
    let mut pipeline = PhysicsPipeline::new();
    let mut islands = IslandManager::new();
    let mut broad_phase = DefaultBroadPhase::default();
    let mut narrow_phase = NarrowPhase::new();
    let mut multibodies = MultibodyJointSet::new();
    let mut ccd = CCDSolver::new();
    let steps = (seconds * 120.0) as usize;
    let position = |bodies: &RigidBodySet, i: usize| bodies[handles[i]].translation();
    let mut settled: Vec<Vector> = Vec::new();
    let mut foot_drift: f32 = 0.0;
    let t0 = Instant::now();
    for step in 0..steps {
        pipeline.step(
            Vector::new(0.0, -crate::model::rotation::GRAVITY, 0.0),
            &params,
            &mut islands,
            &mut broad_phase,
            &mut narrow_phase,
            &mut bodies,
            &mut colliders,
            &mut joints,
            &mut multibodies,
            &mut ccd,
            &(),
            &(),
        );
        if step == 59 {
            settled = feet.iter().map(|&f| position(&bodies, f)).collect();
        }
        for (k, &f) in feet.iter().enumerate().filter(|_| !settled.is_empty()) {
            foot_drift = foot_drift.max((position(&bodies, f) - settled[k]).length());
        }
    }
    let elapsed = t0.elapsed().as_secs_f64();
    let fell = position(&bodies, root).y - ground_height < 0.5 * root_height;
    let joint_gap = anchors
        .iter()
        .map(|&(p, ch, a1, a2)| {
            let w1 = bodies[handles[p]].position().transform_point(a1);
            let w2 = bodies[handles[ch]].position().transform_point(a2);
            (w1 - w2).length()
        })
        .fold(0.0f32, f32::max);
    ImpulseStanding {
        steps_per_second: steps as f64 / elapsed,
        fell,
        foot_drift: foot_drift as f64,
        joint_gap: joint_gap as f64,
    }
}
