use super::*;
use crate::model::load_character;
use crate::sim::{Controller, HoldPose};
use rayon::prelude::*;
use std::path::Path;

const BUILTINS: [&str; 3] = ["human2d", "human3d", "bird_robot"];

fn builtin(name: &str) -> Character {
    let path =
        Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/characters")).join(format!("{name}.ron"));
    load_character(&path).unwrap_or_else(|e| panic!("loading {name}: {e}"))
}

fn dof_index(sim: &Simulation, name: &str) -> usize {
    sim.dofs()
        .iter()
        .position(|d| d.name == name)
        .unwrap_or_else(|| panic!("no DOF {name}"))
}

/// Runs `seconds` of hold-pose control on `sim`, hashing every step with [`TrajectoryHasher`].
fn run_hashed(sim: &mut Simulation, seconds: f32) -> u128 {
    let steps = (seconds / sim.settings().dt).round() as usize;
    let mut ctl = HoldPose::reference();
    let mut targets = vec![0.0; sim.dofs().len()];
    let mut hasher = TrajectoryHasher::default();
    for _ in 0..steps {
        ctl.update(sim, &mut targets);
        sim.set_targets(&targets);
        sim.step();
        assert!(sim.failure().is_none(), "{:?}", sim.failure());
        hasher.add(sim);
    }
    hasher.finish()
}

/// Stands for 10 s at 120 Hz holding the reference pose; returns the simulation afterwards.
fn stand_10s(name: &str) -> Simulation {
    let c = builtin(name);
    let settings = SimSettings::default();
    assert_eq!(settings.dt, 1.0 / 120.0);
    let mut sim = Simulation::new(&c, settings).unwrap();
    let r = continue_rollout(
        &mut sim,
        &mut HoldPose::reference(),
        &RolloutSpec::seconds(10.0),
    );
    assert_eq!(r.steps, 1200, "{name}");
    assert!(
        (r.seconds - 10.0).abs() < 1e-3,
        "{name}: simulated {} s",
        r.seconds
    );
    assert!(r.failure.is_none(), "{name}: {:?}", r.failure);
    assert!(!r.fell, "{name} fell at {:?}", r.fell_at);
    assert_eq!(r.fell_at, None);
    let com_h = r.final_com[1] - sim.ground_height();
    assert!(
        com_h > 0.8 * sim.reference_com_height(),
        "{name}: COM height {com_h} vs reference {}",
        sim.reference_com_height()
    );
    assert_eq!(r.final_com, sim.com());
    assert!(!sim.has_fallen(), "{name}");
    sim
}

/// After standing, only the feet touch the ground, and both of them do.
fn assert_on_feet(sim: &Simulation) {
    let c = sim.character();
    let contacts = sim.contacts();
    assert_eq!(contacts.len(), c.bodies.len());
    for (b, n) in c.bodies.iter().zip(&contacts) {
        if b.name.ends_with("_foot") {
            assert!(
                *n > 0,
                "{}: foot {} does not touch the ground",
                c.name,
                b.name
            );
        } else {
            assert_eq!(*n, 0, "{}: {} touches the ground", c.name, b.name);
        }
    }
    let points = sim.contact_points();
    assert!(!points.is_empty());
    for (i, p) in points {
        assert!(
            c.bodies[i].name.ends_with("_foot"),
            "{}: contact on {}",
            c.name,
            c.bodies[i].name
        );
        assert!(
            (p[1] - sim.ground_height()).abs() < 0.02,
            "{}: contact point {p:?} not on the ground",
            c.name
        );
    }
}

#[test]
fn human2d_stands_10s_and_stays_in_its_plane() {
    let sim = stand_10s("human2d");
    assert_on_feet(&sim);
    assert_in_plane(&sim);
}

#[test]
fn human3d_stands_10s_on_its_feet() {
    let sim = stand_10s("human3d");
    assert_on_feet(&sim);
}

/// The horse file gives no gains: the derived ones (Character::gains) stand it for 10 s, on its
/// hooves (the pasterns) only.
#[test]
fn horse_stands_10s_on_derived_gains() {
    let c = builtin("horse");
    assert!(
        c.joints.iter().all(|j| j.kp.is_none()),
        "the file gives no gains"
    );
    let hip = c.joints.iter().position(|j| j.name == "lh_upper").unwrap();
    let g = c.gains(hip);
    // Reach of the hind leg from the hip: upper 0.4 + lower 0.38 + cannon 0.27 + the pastern's
    // 0.12 tilted forward (1.15–1.17 m); kp = 5·M·g·reach, kd = 0.1·kp, limit = 2·M·g·reach.
    let weight = 502.0 * 9.81;
    assert!(
        g.kp > 5.0 * weight * 1.15 && g.kp < 5.0 * weight * 1.17,
        "{g:?}"
    );
    assert!((g.kd - 0.1 * g.kp).abs() < 1e-9 * g.kp, "{g:?}");
    assert!((g.torque_limit - 0.4 * g.kp).abs() < 1e-9 * g.kp, "{g:?}");
    let sim = stand_10s("horse");
    let contacts = sim.contacts();
    let mut hooves = 0;
    for (b, n) in c.bodies.iter().zip(&contacts) {
        if b.name.ends_with("_pastern") {
            hooves += usize::from(*n > 0);
        } else {
            assert_eq!(*n, 0, "{} touches the ground", b.name);
        }
    }
    // The hooves are flat cylinder ends: one may rest on its rim between contacts.
    assert!(hooves >= 3, "only {hooves} hooves on the ground");
}

#[test]
fn bird_robot_stands_10s_on_its_feet() {
    let sim = stand_10s("bird_robot");
    assert_on_feet(&sim);
}

fn assert_in_plane(sim: &Simulation) {
    let c = sim.character();
    for (i, b) in c.bodies.iter().enumerate() {
        let p = sim.body_pose(i);
        assert!(
            (p[2] - b.position[2] as f32).abs() <= 1e-4,
            "{}: z {} vs reference {}",
            b.name,
            p[2],
            b.position[2]
        );
        // Rotation about z only: no x or y quaternion component.
        assert!(
            p[3].abs() <= 1e-4 && p[4].abs() <= 1e-4,
            "{}: rotation {:?} is not about z",
            b.name,
            &p[3..]
        );
        // The plane is an impulse joint on the pelvis, solved iteratively with the contacts:
        // out of the plane its velocity stays within a few mm/s (1.3e-3 m/s after a 30 N·s
        // push across the plane and a fall), its position within 0.1 mm.
        let (v, w) = sim.body_velocity(i);
        assert!(
            v[2].abs() <= 5e-3 && w[0].abs() <= 5e-3 && w[1].abs() <= 5e-3,
            "{}: v {v:?} w {w:?}",
            b.name
        );
    }
}

#[test]
fn human2d_stays_in_its_plane_while_falling() {
    // Unactuated and pushed, the planar character tumbles; it must still move in its plane.
    let c = builtin("human2d");
    let settings = SimSettings {
        gain_scale: 0.0,
        ..Default::default()
    };
    let mut sim = Simulation::new(&c, settings).unwrap();
    let chest = c.body_index("chest").unwrap();
    sim.push(chest, [40.0, 0.0, 30.0], 0.1); // the z part must have no effect
    let r = continue_rollout(
        &mut sim,
        &mut HoldPose::reference(),
        &RolloutSpec::seconds(3.0),
    );
    assert!(r.fell && r.failure.is_none(), "{r:?}");
    // It really moved: the chest turned by more than 30 degrees.
    let q = sim.body_pose(chest);
    assert!(
        2.0 * q[5].abs().asin() > 30f32.to_radians(),
        "chest rotation {:?}",
        &q[3..]
    );
    assert_in_plane(&sim);
}

#[test]
fn builtins_fall_without_actuation() {
    for name in BUILTINS {
        let c = builtin(name);
        let settings = SimSettings {
            gain_scale: 0.0,
            ..Default::default()
        };
        let r = run_rollout(
            &c,
            settings,
            &mut HoldPose::reference(),
            &RolloutSpec::seconds(3.0),
        )
        .unwrap();
        assert!(r.failure.is_none(), "{name}: {:?}", r.failure);
        assert!(r.fell, "{name} did not fall with gain_scale 0");
        let t = r.fell_at.unwrap();
        assert!(t > 0.0 && t < 3.0, "{name}: fell_at {t}");
    }
}

#[test]
fn explicit_pd_keeps_human2d_standing() {
    let c = builtin("human2d");
    let settings = SimSettings::for_mode(PdMode::Explicit);
    assert_eq!(settings.dt, 1.0 / 4000.0);
    assert_eq!(settings.pd, PdMode::Explicit);
    let mut sim = Simulation::new(&c, settings).unwrap();
    let r = continue_rollout(
        &mut sim,
        &mut HoldPose::reference(),
        &RolloutSpec::seconds(2.0),
    );
    assert_eq!(r.steps, 8000);
    assert!(r.failure.is_none(), "{:?}", r.failure);
    assert!(!r.fell, "fell at {:?}", r.fell_at);
    assert!(r.final_com[1] - sim.ground_height() > 0.8 * sim.reference_com_height());
    // The explicit torques hold the body up: the ankles and hips work against gravity but stay
    // below their limits.
    let sat = sim.saturation();
    // (Legs and trunk: since the planar root became an impulse joint, the light wrists can
    // touch their 50 N·m limit at an instant under explicit PD; they carry no weight.)
    let names: Vec<&str> = sim.dofs().iter().map(|d| d.name.as_str()).collect();
    let bearing = |n: &str| {
        ["waist", "hip", "knee", "ankle"]
            .iter()
            .any(|k| n.contains(k))
    };
    assert!(
        sat.iter()
            .zip(&names)
            .filter(|(_, n)| bearing(n))
            .all(|(s, _)| *s < 1.0),
        "{sat:?} {names:?} {:?}",
        sim.torques()
    );
    assert!(
        sim.torques().iter().any(|t| t.abs() > 1.0),
        "{:?}",
        sim.torques()
    );
}

#[test]
fn explicit_torque_saturates_at_the_limit() {
    let c = builtin("human3d");
    for strength in [1.0f32, 2.0] {
        let settings = SimSettings {
            strength_scale: strength,
            ..SimSettings::for_mode(PdMode::Explicit)
        };
        let mut sim = Simulation::new(&c, settings).unwrap();
        let knee = dof_index(&sim, "l_knee");
        let limit = sim.dofs()[knee].torque_limit;
        assert_eq!(limit, 150.0);
        let mut targets = vec![0.0; sim.dofs().len()];
        targets[knee] = -2.5;
        sim.set_targets(&targets);
        sim.step();
        assert_eq!(
            sim.torques()[knee],
            -limit * strength,
            "strength {strength}"
        );
        assert_eq!(sim.saturation()[knee], 1.0);
        // From rest in the reference pose every other DOF has zero error: zero torque.
        for (i, t) in sim.torques().iter().enumerate() {
            if i != knee {
                assert_eq!(*t, 0.0, "{} at strength {strength}", sim.dofs()[i].name);
            }
        }
        // The saturated torque bends the knee towards the target.
        let (q, qd) = sim.dof_state();
        assert!(
            qd[knee] < 0.0 && q[knee] < 0.0,
            "q {} qd {}",
            q[knee],
            qd[knee]
        );
    }
}

#[test]
fn implicit_torque_estimate_is_clamped() {
    let c = builtin("human3d");
    let mut sim = Simulation::new(&c, SimSettings::default()).unwrap();
    let knee = dof_index(&sim, "l_knee");
    let mut targets = vec![0.0; sim.dofs().len()];
    targets[knee] = -2.5;
    sim.set_targets(&targets);
    sim.step();
    assert_eq!(sim.torques()[knee], -150.0);
    let (q, _) = sim.dof_state();
    assert!(q[knee] < 0.0, "{}", q[knee]);
}

#[test]
fn same_rollout_same_hash() {
    let c = builtin("human3d");
    let spec = RolloutSpec::seconds(1.0);
    let a = run_rollout(
        &c,
        SimSettings::default(),
        &mut HoldPose::reference(),
        &spec,
    )
    .unwrap();
    let b = run_rollout(
        &c,
        SimSettings::default(),
        &mut HoldPose::reference(),
        &spec,
    )
    .unwrap();
    assert_eq!(a.hash, b.hash);
    assert_eq!(a.final_com, b.final_com);
    assert_eq!(a.hash_hex().len(), 32);
    assert!(a.hash_hex().chars().all(|ch| ch.is_ascii_hexdigit()));
    // A different controller changes the hash.
    let mut bent = HoldPose {
        pose: vec![0.0; c.internal_dof()],
    };
    bent.pose[0] = 0.2;
    let d = run_rollout(&c, SimSettings::default(), &mut bent, &spec).unwrap();
    assert_ne!(a.hash, d.hash);
}

#[test]
fn rollouts_are_identical_serially_and_in_parallel() {
    let c = builtin("human3d");
    let torso = c.body_index("torso").unwrap();
    let specs: Vec<RolloutSpec> = (0..8)
        .map(|k| RolloutSpec {
            pushes: vec![Push {
                time: 0.25,
                body: torso,
                impulse: [10.0 * k as f32, 0.0, 5.0 * (k % 3) as f32],
                duration: 0.1,
            }],
            ..RolloutSpec::seconds(1.0)
        })
        .collect();
    let run = |spec: &RolloutSpec| {
        run_rollout(&c, SimSettings::default(), &mut HoldPose::reference(), spec)
            .unwrap()
            .hash
    };
    let serial: Vec<u128> = specs.iter().map(run).collect();
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(2)
        .build()
        .unwrap();
    let parallel: Vec<u128> = pool.install(|| specs.par_iter().map(run).collect());
    assert_eq!(serial, parallel);
    let distinct: std::collections::HashSet<u128> = serial.iter().copied().collect();
    assert!(
        distinct.len() >= 2,
        "pushes did not change the trajectory: {serial:x?}"
    );
    assert_eq!(distinct.len(), 8, "{serial:x?}");
}

#[test]
fn snapshot_restore_continues_bit_identically() {
    let c = builtin("human3d");
    let mut sim = Simulation::new(&c, SimSettings::default()).unwrap();
    run_hashed(&mut sim, 0.9);
    // A push still in flight at the snapshot is part of the state.
    sim.push(c.body_index("torso").unwrap(), [20.0, 0.0, 10.0], 0.2);
    run_hashed(&mut sim, 0.1);
    let snap = sim.snapshot();
    let t = sim.time();
    let h1 = run_hashed(&mut sim, 1.0);
    let com1 = sim.com();

    sim.restore(&snap);
    assert_eq!(sim.time(), t);
    let h2 = run_hashed(&mut sim, 1.0);
    assert_eq!(h1, h2);
    assert_eq!(sim.com(), com1);

    let mut fresh = Simulation::new(&c, SimSettings::default()).unwrap();
    fresh.restore(&snap);
    assert_eq!(fresh.time(), t);
    let h3 = run_hashed(&mut fresh, 1.0);
    assert_eq!(h1, h3);

    // Without the snapshot's pending push the continuation differs (the check has teeth).
    let mut unpushed = Simulation::new(&c, SimSettings::default()).unwrap();
    run_hashed(&mut unpushed, 1.0);
    assert_ne!(run_hashed(&mut unpushed, 1.0), h1);
}

/// Sets one target to NaN.
struct NanTarget;

impl Controller for NanTarget {
    fn update(&mut self, _sim: &Simulation, targets: &mut [f32]) {
        targets.fill(0.0);
        targets[0] = f32::NAN;
    }
}

/// Steps `sim` with DOF 0's target set to NaN until it fails (at most 120 steps).
fn step_with_nan_target(sim: &mut Simulation) {
    let mut targets = vec![0.0; sim.dofs().len()];
    targets[0] = f32::NAN;
    sim.set_targets(&targets);
    for _ in 0..120 {
        sim.step();
    }
}

#[test]
fn nan_target_implicit_stops_with_a_failure() {
    let c = builtin("human3d");
    let mut sim = Simulation::new(&c, SimSettings::default()).unwrap();
    step_with_nan_target(&mut sim);
    let f = sim.failure().cloned();
    assert!(
        f.is_some(),
        "no failure after a NaN target; torque {:?}",
        sim.torques()[0]
    );

    let r = run_rollout(
        &c,
        SimSettings::default(),
        &mut NanTarget,
        &RolloutSpec::seconds(1.0),
    )
    .unwrap();
    assert!(r.fell);
    assert!(r.failure.is_some(), "{r:?}");
}

#[test]
fn nan_target_explicit_stops_with_a_failure() {
    let c = builtin("human3d");
    let settings = SimSettings::for_mode(PdMode::Explicit);
    let mut sim = Simulation::new(&c, settings).unwrap();
    step_with_nan_target(&mut sim);
    let f = sim.failure().cloned();
    assert!(matches!(f, Some(Failure::NonFinite { .. })), "{f:?}");
    // Stepping a failed simulation does nothing.
    let steps = sim.steps();
    assert!(steps < 120, "{steps}");
    sim.step();
    assert_eq!(sim.steps(), steps);

    let r = run_rollout(&c, settings, &mut NanTarget, &RolloutSpec::seconds(0.02)).unwrap();
    assert!(r.fell);
    assert!(
        matches!(r.failure, Some(Failure::NonFinite { .. })),
        "{:?}",
        r.failure
    );
    assert!(r.steps < 80, "{}", r.steps);
}

#[test]
fn runaway_speed_stops_with_a_failure() {
    let c = builtin("human2d");
    let settings = SimSettings {
        max_linear_speed: 1e-3,
        ..Default::default()
    };
    let r = run_rollout(
        &c,
        settings,
        &mut HoldPose::reference(),
        &RolloutSpec::seconds(1.0),
    )
    .unwrap();
    assert!(r.fell);
    match &r.failure {
        Some(Failure::RunawayVelocity { speed, time, .. }) => {
            assert!(*speed > 1e-3, "{speed}");
            assert!(*time < 0.5, "{time}");
        }
        other => panic!("expected RunawayVelocity, got {other:?}"),
    }
    assert!(r.steps < 60, "{}", r.steps);
    assert!(r.failure.as_ref().unwrap().to_string().contains("ran away"));
}

fn push_human3d_torso(impulse: f32) -> Rollout {
    let c = builtin("human3d");
    let spec = RolloutSpec {
        pushes: vec![Push {
            time: 0.5,
            body: c.body_index("torso").unwrap(),
            impulse: [impulse, 0.0, 0.0],
            duration: 0.1,
        }],
        ..RolloutSpec::seconds(3.5)
    };
    run_rollout(
        &c,
        SimSettings::default(),
        &mut HoldPose::reference(),
        &spec,
    )
    .unwrap()
}

#[test]
fn strong_push_topples_human3d() {
    let r = push_human3d_torso(300.0);
    assert!(r.failure.is_none(), "{:?}", r.failure);
    assert!(r.fell);
    let t = r.fell_at.unwrap();
    assert!(t > 0.5 && t < 3.5, "fell at {t}");
    // Forward push: it falls forward.
    assert!(r.final_com[0] > 0.2, "{:?}", r.final_com);
}

#[test]
fn weak_push_does_not_topple_human3d() {
    let r = push_human3d_torso(5.0);
    assert!(r.failure.is_none(), "{:?}", r.failure);
    assert!(!r.fell, "fell at {:?}", r.fell_at);
}

/// A NaN or infinite push (from a program, since scene files are validated) ends the rollout
/// with a failure naming the push, at the push's time, instead of a panic inside rapier.
#[test]
fn a_non_finite_push_stops_with_a_failure() {
    for impulse in [f32::NAN, f32::INFINITY] {
        let r = push_human3d_torso(impulse);
        match &r.failure {
            Some(Failure::NonFinite { time, body }) => {
                assert_eq!(body, "push on torso");
                assert!((time - 0.5).abs() < 0.01, "at {time}");
            }
            other => panic!("{impulse}: {other:?}"),
        }
        assert!(r.fell, "a failed rollout counts as a fall");
        assert!(r.seconds < 0.6, "it stops at the push: {}", r.seconds);
    }
}

/// A controller that asks for an infinite or NaN gain multiplier ends the run with a failure
/// naming the degree of freedom.
#[test]
fn a_non_finite_gain_multiplier_stops_with_a_failure() {
    for bad in [f32::INFINITY, f32::NAN] {
        let mut sim = Simulation::new(&builtin("human3d"), SimSettings::default()).unwrap();
        let n = sim.dofs().len();
        let mut kp = vec![1.0; n];
        kp[3] = bad;
        sim.set_gain_multipliers(&kp, &vec![1.0; n]);
        sim.step();
        match sim.failure() {
            Some(Failure::NonFinite { body, .. }) => {
                assert!(body.starts_with("gain multiplier of "), "{body}")
            }
            other => panic!("{bad}: {other:?}"),
        }
    }
}

#[test]
fn invalid_settings_are_rejected() {
    let c = builtin("human2d");
    for dt in [0.0, -0.01, 0.1, f32::NAN] {
        let r = Simulation::new(
            &c,
            SimSettings {
                dt,
                ..Default::default()
            },
        );
        assert!(matches!(r, Err(SimError::InvalidSettings(_))), "dt {dt}");
    }
    let r = Simulation::new(
        &c,
        SimSettings {
            gain_scale: -1.0,
            ..Default::default()
        },
    );
    assert!(matches!(r, Err(SimError::InvalidSettings(_))));
    let mut bad = c.clone();
    bad.bodies[3].mass = -1.0;
    assert!(matches!(
        Simulation::new(&bad, SimSettings::default()),
        Err(SimError::InvalidCharacter { .. })
    ));
}

#[test]
fn simulation_has_one_dof_per_joint_axis() {
    for name in BUILTINS {
        let c = builtin(name);
        let sim = Simulation::new(&c, SimSettings::default()).unwrap();
        let names: Vec<String> = sim.dofs().iter().map(|d| d.name.clone()).collect();
        assert_eq!(names, c.dof_names(), "{name}");
        assert_eq!(sim.ground_height(), c.lowest_point() as f32);
        let com = c.reference_com();
        let sc = sim.com();
        for k in 0..3 {
            assert!(
                (sc[k] - com[k] as f32).abs() < 1e-5,
                "{name}: {sc:?} vs {com:?}"
            );
        }
        let (q, qd) = sim.dof_state();
        assert!(
            q.iter().chain(&qd).all(|v| v.abs() < 1e-6),
            "{name}: {q:?} {qd:?}"
        );
    }
}

#[test]
fn ball_and_fixed_joints_simulate() {
    // human3d with a ball-jointed waist and a welded neck.
    let mut c = builtin("human3d");
    let waist = c.joints.iter().position(|j| j.name == "waist").unwrap();
    c.joints[waist].kind = crate::model::JointKind::Ball;
    c.joints[waist].limits = vec![(-30.0, 30.0), (-20.0, 20.0), (-40.0, 20.0)];
    let neck = c.joints.iter().position(|j| j.name == "neck").unwrap();
    c.joints[neck].kind = crate::model::JointKind::Fixed;
    c.joints[neck].limits.clear();
    assert!(c.validate().is_empty(), "{:?}", c.validate());
    let mut sim = Simulation::new(&c, SimSettings::default()).unwrap();
    let names: Vec<&str> = sim.dofs().iter().map(|d| d.name.as_str()).collect();
    assert_eq!(names.len(), 23);
    assert_eq!(
        &names[..4],
        ["waist.0", "waist.1", "waist.2", "l_shoulder.0"]
    );
    let r = continue_rollout(
        &mut sim,
        &mut HoldPose::reference(),
        &RolloutSpec::seconds(1.0),
    );
    assert!(!r.fell && r.failure.is_none(), "{r:?}");
    // The welded head keeps its reference offset from the torso.
    let (torso, head) = (
        c.body_index("torso").unwrap(),
        c.body_index("head").unwrap(),
    );
    let (pt, ph) = (sim.body_pose(torso), sim.body_pose(head));
    let qt = Rotation::from_xyzw(pt[3], pt[4], pt[5], pt[6]);
    let qh = Rotation::from_xyzw(ph[3], ph[4], ph[5], ph[6]);
    let offset =
        qt.inverse() * (Vector::new(ph[0], ph[1], ph[2]) - Vector::new(pt[0], pt[1], pt[2]));
    let reference = model_vec(c.bodies[head].position) - model_vec(c.bodies[torso].position);
    assert!(
        (offset - reference).length() < 1e-3,
        "{offset:?} vs {reference:?}"
    );
    assert!(
        qt.angle_between(qh) < 1e-3,
        "head turned relative to the torso"
    );
}

/// Ground friction holds the planar human's feet. Regression: with the 2D root as a multibody
/// joint to a fixed base, contacts had no friction and a 40 N·s push made the whole character
/// glide backwards on its feet at about 0.45 m/s (13 cm in the 0.3 s checked here).
#[test]
fn friction_holds_the_planar_humans_feet_when_pushed() {
    for (name, friction) in [("human2d", 0.8f32), ("human3d", 0.8)] {
        let c = builtin(name);
        let foot = c.body_index("l_foot").unwrap();
        let pelvis = c.body_index("pelvis").unwrap();
        let mut settings = SimSettings {
            solver_iterations: 1,
            pgs_iterations: 12,
            ..Default::default()
        };
        settings.ground.friction = friction;
        let mut sim = Simulation::new(&c, settings).unwrap();
        let mut ctl = HoldPose::reference();
        let mut targets = vec![0.0; sim.dofs().len()];
        let mut x_at_push = 0.0;
        let mut max_slide = 0.0f32;
        for k in 0..(1.3 / settings.dt) as usize {
            ctl.update(&sim, &mut targets);
            sim.set_targets(&targets);
            if k == 120 {
                sim.push(pelvis, [-40.0, 0.0, 0.0], 0.1);
                x_at_push = sim.body_pose(foot)[0];
            }
            sim.step();
            if k > 120 && sim.contacts()[foot] >= 2 {
                max_slide = max_slide.max((sim.body_pose(foot)[0] - x_at_push).abs());
            }
        }
        assert!(
            max_slide < 0.01,
            "{name}: the planted foot slid {max_slide} m"
        );
    }
}
