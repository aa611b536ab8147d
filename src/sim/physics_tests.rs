//! Tests of the patched rapier (vendor/rapier3d, PATCHES.md; issue P5): the sparse mass matrix
//! against the dense one, the stability bar, the native universal joint against the two-hinge
//! chain it replaces, and the impulse-joint alternative of `bench impulse`.

use super::*;
use crate::sim::{Controller, HoldPose};

fn builtin(name: &str) -> Character {
    let path = std::path::Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/characters"))
        .join(format!("{name}.ron"));
    crate::model::load_character(&path).unwrap_or_else(|e| panic!("loading {name}: {e}"))
}

/// The patched rapier (vendor/rapier3d, PATCHES.md change 1) assembles each link's `JᵀMJ` over
/// its path of degrees of freedom from the root only. On human3d, pushed and moving (so every
/// Jacobian and Coriolis term is non-trivial), the joint-space mass matrix equals the dense
/// assembly over every column bit for bit (so the columns skipped were exact zeros), and its
/// factorization along the tree solves like a dense LU.
#[test]
fn sparse_mass_matrix_equals_the_dense_one_bit_for_bit() {
    let c = builtin("human3d");
    let mut sim = Simulation::new(&c, SimSettings::default()).unwrap();
    sim.push(c.body_index("pelvis").unwrap(), [30.0, 0.0, 20.0], 0.1);
    for _ in 0..30 {
        sim.step();
    }
    let root = sim.bodies[c.body_index(&c.root.body).unwrap()];
    let link = sim
        .state
        .multibody_joints
        .rigid_body_link(root)
        .expect("the root is in the multibody");
    let multibody = sim
        .state
        .multibody_joints
        .get_multibody_mut(link.multibody)
        .unwrap();
    // Kinematics and the mass matrix assembled again at the current state (dt = 0: no implicit
    // damping or spring terms, so the matrix is M + armature).
    let inverse_inertia = multibody.dof_inverse_inertia(&sim.state.bodies);
    assert!(inverse_inertia.iter().all(|v| *v > 0.0 && v.is_finite()));
    let sparse = multibody.augmented_mass();
    let dense = multibody.dense_mass_matrix_reference(&sim.state.bodies);
    assert_eq!(sparse.shape(), dense.shape());
    let n = sparse.nrows();
    assert!(n >= 24, "human3d has 24 degrees of freedom, found {n}");
    for a in 0..n {
        for b in 0..n {
            assert_eq!(
                sparse[(a, b)].to_bits(),
                dense[(a, b)].to_bits(),
                "entry ({a}, {b}): {} against {}",
                sparse[(a, b)],
                dense[(a, b)]
            );
        }
    }
    // The factorization that follows the tree solves like a dense LU with pivoting.
    let lu = sparse.clone().lu();
    for i in 0..n {
        let mut e = nalgebra::DVector::<f32>::zeros(n);
        e[i] = 1.0;
        let dense_x = lu.solve(&e).unwrap();
        let mut x = e.clone();
        assert!(multibody.inv_augmented_mass().solve_mut(&mut x));
        let scale = dense_x.amax();
        assert!(
            (&x - &dense_x).amax() <= 1e-3 * scale,
            "column {i}: {x} against {dense_x}"
        );
    }
    // And it is a mass matrix: symmetric with a positive diagonal.
    for a in 0..n {
        assert!(sparse[(a, a)] > 0.0);
        for b in 0..a {
            let (x, y) = (sparse[(a, b)], sparse[(b, a)]);
            assert!(
                (x - y).abs() <= 1e-4 * (1.0 + x.abs()),
                "({a}, {b}) {x} {y}"
            );
        }
    }
}

/// Issue P5's stability bar for the patched physics: standing 10 s under hold-pose gains, after
/// the first 0.5 s of settling onto the ground, no foot moves more than 2 mm (measured: human3d
/// 0.04, bird robot 0.43, human2d 0.15, horse 0.77 mm, with one substep of 8 sweeps and friction
/// in the stabilization pass; without the latter the bird's feet crept 2.05 mm and the horse
/// walked off 0.35 m). With zero gains every one of them falls.
#[test]
fn feet_stay_put_standing_and_zero_gains_fall() {
    for name in ["human3d", "bird_robot", "human2d", "horse"] {
        let c = builtin(name);
        let feet: Vec<usize> = c
            .effectors(crate::model::EffectorTag::Foot)
            .map(|e| c.body_index(&e.body).unwrap())
            .collect();
        assert!(!feet.is_empty(), "{name} has feet");
        let mut sim = Simulation::new(&c, SimSettings::default()).unwrap();
        let mut hold = HoldPose::reference();
        let mut targets = sim.targets().to_vec();
        let mut settled: Vec<[f32; 7]> = Vec::new();
        let mut worst = 0.0f32;
        for step in 0..1200 {
            hold.update(&sim, &mut targets);
            sim.set_targets(&targets);
            sim.step();
            let now: Vec<[f32; 7]> = feet.iter().map(|&f| sim.body_pose(f)).collect();
            if step == 59 {
                settled = now.clone();
            }
            for (p, q) in now.iter().zip(&settled) {
                let d =
                    ((p[0] - q[0]).powi(2) + (p[1] - q[1]).powi(2) + (p[2] - q[2]).powi(2)).sqrt();
                worst = worst.max(d);
            }
        }
        assert!(!sim.has_fallen(), "{name} fell");
        assert!(
            worst <= 0.002,
            "{name}: a foot moved {:.2} mm while standing",
            worst * 1e3
        );
        let zero = SimSettings {
            gain_scale: 0.0,
            ..Default::default()
        };
        let mut limp = Simulation::new(&c, zero).unwrap();
        let r = continue_rollout(
            &mut limp,
            &mut HoldPose::reference(),
            &RolloutSpec::seconds(5.0),
        );
        assert!(r.fell, "{name} stood with zero gains");
    }
}

/// A fall says what ended it: the standing human has no cause; limp, it comes down onto a body
/// that is not a foot (or its centre of mass drops below half its standing height), and the
/// words name that body or the height.
#[test]
fn a_fall_names_what_ended_it() {
    let c = builtin("human3d");
    let mut standing = Simulation::new(&c, SimSettings::default()).unwrap();
    standing.step();
    assert_eq!(standing.fall_cause(), None);
    let limp_settings = SimSettings {
        gain_scale: 0.0,
        ..Default::default()
    };
    let mut limp = Simulation::new(&c, limp_settings).unwrap();
    let standing_com = limp.com()[1];
    let mut cause = None;
    for _ in 0..600 {
        limp.step();
        cause = limp.fall_cause();
        if cause.is_some() {
            break;
        }
    }
    let cause = cause.expect("a limp human falls within 5 s");
    assert!(limp.has_fallen());
    let words = cause.describe(&c);
    match cause {
        FallCause::Touch { body } => {
            let name = &c.bodies[body].name;
            assert!(!name.contains("foot"), "a foot is not a fall: {name}");
            assert_eq!(words, format!("{name} on the ground"));
        }
        FallCause::Low { height } => {
            assert!(height < 0.5 * standing_com, "{height} of {standing_com}");
            assert!(words.starts_with("centre of mass down to"), "{words}");
        }
    }
}

/// `bench impulse` (issue P5 deliverable 1): human3d from impulse joints stands 2 s with its
/// joints held together to within a few millimetres.
#[test]
fn impulse_joint_human3d_stands() {
    let r = crate::sim::impulse_joints::stand(&builtin("human3d"), 2.0, true, true);
    assert!(!r.fell, "{r:?}");
    assert!(r.joint_gap < 0.005, "{r:?}");
}

/// The patched rapier's Euler-angle multibody joints (two free angular axes: a universal joint;
/// three with `set_euler_angles`: a ball joint as rotations about x, y, z) move a body as the
/// chain of hinges they replace (1 µg, near-zero-inertia links between them), here swinging
/// freely without gravity at several rad/s on every axis, where the joint's own bias term
/// Σ_{i<j} ω_i × ω_j matters: after 1 s the child's orientations agree to 7e-8 rad (universal;
/// without that term they differ by 4.5e-3 rad) and ~1e-6 rad (ball); the bound is 1e-4.
#[test]
fn native_euler_joints_move_like_hinge_chains() {
    // Axes in the base's frame: human3d's universal joints (z fixed in the base, then x carried
    // by the child), and the ball joint's x, y, z.
    let cases: [&[Vector]; 2] = [&[Vector::Z, Vector::X], &[Vector::X, Vector::Y, Vector::Z]];
    for axes in cases {
        let n = axes.len();
        let world = |native: bool| -> (RigidBodySet, MultibodyJointSet, RigidBodyHandle) {
            let mut bodies = RigidBodySet::new();
            let mut joints = MultibodyJointSet::new();
            let base = bodies.insert(RigidBodyBuilder::fixed());
            let child = bodies.insert(
                RigidBodyBuilder::dynamic()
                    .translation(Vector::new(0.3, 0.0, 0.0))
                    .additional_mass_properties(MassProperties::new(
                        Vector::ZERO,
                        1.0,
                        Vector::new(0.01, 0.02, 0.03),
                    )),
            );
            let child_pose = Pose::from_translation(Vector::new(0.3, 0.0, 0.0));
            if native {
                let (mask, frame) = if n == 2 {
                    (
                        JointAxesMask::LOCKED_REVOLUTE_AXES.difference(JointAxesMask::ANG_Y),
                        Pose::from_rotation(super::world::frame_for_axes(axes[0], axes[1])),
                    )
                } else {
                    (JointAxesMask::LOCKED_SPHERICAL_AXES, Pose::IDENTITY)
                };
                let j = GenericJointBuilder::new(mask)
                    .local_frame1(frame)
                    .local_frame2(child_pose.inverse() * frame)
                    .build();
                let h = joints.insert(base, child, j, true).unwrap();
                let (mb, id) = joints.get_mut(h).unwrap();
                mb.link_mut(id).unwrap().joint.set_euler_angles(true);
            } else {
                let mut parent = base;
                for (k, axis) in axes.iter().enumerate() {
                    let f = Pose::from_rotation(super::world::frame_for_axis(*axis));
                    let (body, f2) = if k + 1 == n {
                        (child, child_pose.inverse() * f)
                    } else {
                        let mid =
                            bodies.insert(RigidBodyBuilder::dynamic().additional_mass_properties(
                                MassProperties::new(Vector::ZERO, 1e-9, Vector::splat(1e-12)),
                            ));
                        (mid, f)
                    };
                    let j = GenericJointBuilder::new(JointAxesMask::LOCKED_REVOLUTE_AXES)
                        .local_frame1(f)
                        .local_frame2(f2)
                        .build();
                    joints.insert(parent, body, j, true).unwrap();
                    parent = body;
                }
            }
            (bodies, joints, child)
        };
        let run = |native: bool| {
            let (mut bodies, mut multibodies, child) = world(native);
            let link = *multibodies.rigid_body_link(child).unwrap();
            {
                let mb = multibodies.get_multibody_mut(link.multibody).unwrap();
                let mut v = mb.generalized_velocity_mut();
                let len = v.len();
                for (k, w) in [4.0, -3.0, 2.5][..n].iter().enumerate() {
                    v[len - n + k] = *w;
                }
            }
            let params = IntegrationParameters {
                dt: 1.0 / 480.0,
                ..Default::default()
            };
            let (mut islands, mut broad, mut narrow) = (
                IslandManager::new(),
                DefaultBroadPhase::default(),
                NarrowPhase::new(),
            );
            let (mut colliders, mut impulse, mut ccd) =
                (ColliderSet::new(), ImpulseJointSet::new(), CCDSolver::new());
            let mut pipeline = PhysicsPipeline::new();
            for _ in 0..480 {
                pipeline.step(
                    Vector::ZERO,
                    &params,
                    &mut islands,
                    &mut broad,
                    &mut narrow,
                    &mut bodies,
                    &mut colliders,
                    &mut impulse,
                    &mut multibodies,
                    &mut ccd,
                    &(),
                    &(),
                );
            }
            *bodies[child].rotation()
        };
        let (native, chain) = (run(true), run(false));
        let angle = (native.inverse() * chain).to_axis_angle().1.abs();
        println!("{n} axes: orientations differ by {angle} rad");
        assert!(angle < 1e-4, "{n} axes: orientations differ by {angle} rad");
    }
}

/// A joint torque applied for one step acts for that step only (rapier keeps a torque once
/// added and `reset_forces` clears forces only: without clearing torques too, a feedforward or
/// explicit PD torque piled up step after step). With a constant feedforward τ on the standing
/// human3d's left elbow, the elbow settles τ/kp further than without it, in every PD mode
/// (kp = 200 N·m/rad: 2 N·m bends it 0.01 rad; in stable PD the spring's stiffness and sign).
#[test]
fn a_feedforward_torque_bends_a_joint_by_torque_over_stiffness() {
    let c = builtin("human3d");
    let elbow = c.dof_names().iter().position(|n| n == "l_elbow").unwrap();
    for pd in [PdMode::Implicit, PdMode::Explicit, PdMode::Stable] {
        let settle = |tau: f32| {
            let mut sim = Simulation::new(&c, SimSettings::for_mode(pd)).unwrap();
            let mut ff = vec![0.0; sim.dofs().len()];
            ff[elbow] = tau;
            sim.set_feedforward(&ff);
            let steps = (1.5 / sim.settings().dt) as usize;
            for _ in 0..steps {
                sim.step();
            }
            assert!(!sim.has_fallen(), "{pd:?}: fell with τ = {tau}");
            (sim.dof_state().0[elbow], sim.effective_gains(elbow).0)
        };
        let (free, kp) = settle(0.0);
        for tau in [2.0f32, 5.0] {
            let (bent, _) = settle(tau);
            let expected = tau / kp;
            assert!(
                ((bent - free) - expected).abs() < 0.25 * expected,
                "{pd:?}: τ = {tau} N·m bent the elbow {:.4} rad, τ/kp = {expected:.4}",
                bent - free
            );
        }
    }
}

/// `set_configuration` places the pose it is given: every degree of freedom reads back, and
/// every body sits where the model's forward kinematics puts it (the played pose a physics
/// playback starts from).
#[test]
fn a_configuration_is_placed_exactly() {
    let c = builtin("human3d_walker");
    let mut sim = Simulation::new(&c, SimSettings::default()).unwrap();
    let n = c.dof_names().len();
    let q: Vec<f32> = (0..n).map(|i| 0.3 * ((i as f32 * 1.7).sin())).collect();
    let yaw = nalgebra::UnitQuaternion::from_axis_angle(&nalgebra::Vector3::y_axis(), 1.2);
    let root = sim.body_pose(0);
    let turned = [
        root[0] + 0.5,
        root[1] + 0.1,
        root[2] - 0.3,
        0.0,
        0.0,
        0.0,
        0.0,
    ];
    let qv = yaw.coords;
    let root = [
        turned[0],
        turned[1],
        turned[2],
        qv.x as f32,
        qv.y as f32,
        qv.z as f32,
        qv.w as f32,
    ];
    sim.set_configuration(root, &q);
    let (got, rates) = sim.dof_state();
    for (a, b) in q.iter().zip(&got) {
        assert!((a - b).abs() < 1e-5, "{a} against {b}");
    }
    assert!(rates.iter().all(|r| *r == 0.0));
    let model = crate::clip::pose::body_poses(
        &c,
        &root.map(|x| x as f64),
        &q.iter().map(|x| *x as f64).collect::<Vec<_>>(),
    );
    for (i, b) in c.bodies.iter().enumerate() {
        let s = sim.body_pose(i);
        let (p, r) = (
            crate::clip::pose::quat_of(&s.map(|x| x as f64)),
            crate::clip::pose::quat_of(&model[i]),
        );
        let d = ((0..3)
            .map(|k| (s[k] as f64 - model[i][k]).powi(2))
            .sum::<f64>())
        .sqrt();
        assert!(d < 1e-5, "{}: {d} m off", b.name);
        assert!(
            p.angle_to(&r) < 1e-4,
            "{}: {} rad off",
            b.name,
            p.angle_to(&r)
        );
    }
}

/// The PD's damping aims at the target rates: an elbow following a target that turns at
/// 2 rad/s lags kd·θ̇/kp behind it when the damping aims at rest, and far less when it aims at
/// the target's own rate.
#[test]
fn target_rates_stop_the_damping_of_a_tracked_motion() {
    let c = builtin("human3d");
    let elbow = c.dof_names().iter().position(|n| n == "l_elbow").unwrap();
    let lag = |with_rates: bool| {
        let mut sim = Simulation::new(&c, SimSettings::default()).unwrap();
        let mut targets = vec![0.0; c.dof_names().len()];
        let mut rates = vec![0.0; targets.len()];
        let rate = 2.0;
        for _ in 0..48 {
            targets[elbow] += rate * sim.settings().dt;
            if with_rates {
                rates[elbow] = rate;
            }
            sim.set_targets(&targets);
            sim.set_target_rates(&rates);
            sim.step();
        }
        let (q, _) = sim.dof_state();
        targets[elbow] - q[elbow]
    };
    let (without, with) = (lag(false), lag(true));
    // kd/kp = 20/200: 0.2 rad behind at 2 rad/s.
    assert!((0.1..0.3).contains(&without), "lag without rates {without}");
    assert!(
        with.abs() < 0.25 * without,
        "lag with rates {with}, without {without}"
    );
}

/// `set_velocities` starts the character in motion: every degree of freedom's rate reads back,
/// and in the air without gravity or motors the root keeps the velocity it was given.
#[test]
fn velocities_are_placed_and_kept_in_free_flight() {
    let c = builtin("human3d");
    let mut sim = Simulation::new(&c, SimSettings::default()).unwrap();
    sim.set_gravity(0.0);
    sim.set_scales(0.0, 0.0);
    let mut root = sim.body_pose(0);
    root[1] += 1.0;
    let n = c.dof_names().len();
    sim.set_configuration(root, &vec![0.0; n]);
    let rates: Vec<f32> = (0..n).map(|i| 0.4 * ((i as f32 * 0.9).cos())).collect();
    sim.set_velocities([0.7, 0.1, -0.2], [0.0, 0.5, 0.0], &rates);
    let (_, got) = sim.dof_state();
    for (a, b) in rates.iter().zip(&got) {
        assert_eq!(a, b);
    }
    sim.step();
    let (linear, angular) = sim.body_velocity(0);
    assert!(sim.contacts().iter().all(|&c| c == 0), "in the air");
    for (got, want) in linear.iter().zip([0.7, 0.1, -0.2]) {
        assert!((got - want).abs() < 0.05, "root velocity {linear:?}");
    }
    assert!((angular[1] - 0.5).abs() < 0.1, "root spin {angular:?}");
}

/// Stable PD (Tan et al. 2011) at 120 Hz: the standing human holds its pose with every gain 50
/// times the model's, where explicit PD at the same step runs away within the first second; and
/// an elbow sent to a new target reaches it (the spring pulls each coordinate towards its own
/// target, with the right sign).
#[test]
fn stable_pd_holds_stiff_gains_at_120_hz_and_reaches_its_targets() {
    let c = builtin("human3d_walker");
    let stiff = |pd: PdMode| {
        let mut sim = Simulation::new(
            &c,
            SimSettings {
                dt: 1.0 / 120.0,
                gain_scale: 50.0,
                ..SimSettings::for_mode(pd)
            },
        )
        .unwrap();
        for _ in 0..240 {
            sim.step();
        }
        sim
    };
    let stable = stiff(PdMode::Stable);
    assert!(stable.failure().is_none(), "{:?}", stable.failure());
    assert!(!stable.has_fallen());
    let explicit = stiff(PdMode::Explicit);
    assert!(
        explicit.failure().is_some() || explicit.has_fallen(),
        "explicit PD at 120 Hz with 50× gains was expected to run away"
    );

    let elbow = c.dof_names().iter().position(|n| n == "l_elbow").unwrap();
    let mut sim = Simulation::new(&c, SimSettings::for_mode(PdMode::Stable)).unwrap();
    let mut targets = sim.targets().to_vec();
    targets[elbow] = 0.8;
    sim.set_targets(&targets);
    for _ in 0..120 {
        sim.step();
    }
    let bent = sim.dof_state().0[elbow];
    assert!(
        (bent - 0.8).abs() < 0.05,
        "the elbow sent to 0.8 rad is at {bent:.3} rad after 1 s"
    );
    assert!(!sim.has_fallen());
}
