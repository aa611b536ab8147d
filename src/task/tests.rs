//! Tests of tasks, metrics, constraints, phase controllers and shape scaling
//! (specs/002_003.md B4 items 3–7 and 12).

use super::eval::{Record, features};
use super::*;
use crate::control::phase::{
    PhaseController, PhaseControllerDef, PhaseDef, Transition, resolve_dofs,
};
use crate::model::{load_character, shape};
use std::path::Path;

fn human2d() -> Character {
    load_character(Path::new(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/characters/human2d.ron"
    )))
    .unwrap()
}

fn human3d() -> Character {
    load_character(Path::new(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/characters/human3d.ron"
    )))
    .unwrap()
}

fn summary() -> Summary {
    Summary {
        landing: [0.0, 0.0],
        touchdown: None,
        rotation: 360.0,
        max_pitch_deviation: 0.0,
        peak_height: 1.0,
        end_offset: 0.0,
        obstacle_contact: 0.0,
        steps: Vec::new(),
        max_tilt: 0.0,
    }
}

#[test]
fn landing_box_penalty_is_zero_inside_and_on_the_boundary_and_quadratic_outside() {
    let c = Constraint::LandingBox {
        center: [1.0, 0.0],
        half_size: [0.15, 0.15],
    };
    let at = |x: f32, z: f32| {
        constraint_penalty(
            &c,
            &Summary {
                landing: [x, z],
                ..summary()
            },
        )
        .map(|t| t.1)
        .unwrap_or(0.0)
    };
    assert_eq!(at(1.0, 0.0), 0.0);
    assert_eq!(at(1.15, 0.15), 0.0, "the boundary is inside");
    // 10 cm beyond the front edge: 1 + 5000 · 0.1² = 51.
    assert!((at(1.25, 0.0) - 51.0).abs() < 1e-3, "{}", at(1.25, 0.0));
    // Diagonal violation (0.1, 0.2): 1 + 5000 · 0.05 = 251.
    assert!(
        (at(0.75, -0.35) - 251.0).abs() < 1e-2,
        "{}",
        at(0.75, -0.35)
    );
    // Any violation, however small, costs at least the offset.
    assert!(at(1.1501, 0.0) >= VIOLATION_OFFSET);
}

#[test]
fn circle_rotation_pitch_and_peak_penalties() {
    let circle = Constraint::LandingCircle {
        center: [-0.8, 0.0],
        radius: 0.25,
    };
    let p = |s: Summary, c: &Constraint| constraint_penalty(c, &s).map(|t| t.1).unwrap_or(0.0);
    assert_eq!(
        p(
            Summary {
                landing: [-0.8, 0.25],
                ..summary()
            },
            &circle
        ),
        0.0
    );
    assert!(
        (p(
            Summary {
                landing: [-0.35, 0.0],
                ..summary()
            },
            &circle
        ) - (1.0 + 5000.0 * 0.2f64.powi(2)))
        .abs()
            < 1e-2
    );
    let rot = Constraint::Rotation { min_degrees: 330.0 };
    assert_eq!(
        p(
            Summary {
                rotation: 345.0,
                ..summary()
            },
            &rot
        ),
        0.0
    );
    // 30° short: the large constant plus 5000 · (π/6)².
    let short = p(
        Summary {
            rotation: 300.0,
            ..summary()
        },
        &rot,
    );
    assert!(
        (short - (FAIL_PENALTY + 5000.0 * (std::f64::consts::PI / 6.0).powi(2))).abs() < 0.1,
        "{short}"
    );
    let pitch = Constraint::PitchLimit { max_degrees: 45.0 };
    assert_eq!(
        p(
            Summary {
                max_pitch_deviation: 45.0,
                ..summary()
            },
            &pitch
        ),
        0.0
    );
    assert!(
        p(
            Summary {
                max_pitch_deviation: 50.0,
                ..summary()
            },
            &pitch
        ) > 0.0
    );
    let balanced = Constraint::EndBalanced { max_offset: 0.1 };
    assert_eq!(
        p(
            Summary {
                end_offset: 0.1,
                ..summary()
            },
            &balanced
        ),
        0.0
    );
    assert!(
        (p(
            Summary {
                end_offset: 0.3,
                ..summary()
            },
            &balanced
        ) - 201.0)
            .abs()
            < 1e-2
    );
    let peak = Constraint::PeakHeight { min: 1.3 };
    assert!(
        (p(
            Summary {
                peak_height: 1.2,
                ..summary()
            },
            &peak
        ) - 51.0)
            .abs()
            < 1e-2
    );
    let clear = Constraint::ClearObstacles;
    assert_eq!(p(summary(), &clear), 0.0);
    // 0.1 s on the wall: 1 + 5000 · 0.1² = 51.
    assert!(
        (p(
            Summary {
                obstacle_contact: 0.1,
                ..summary()
            },
            &clear
        ) - 51.0)
            .abs()
            < 1e-2
    );
}

/// A recorded motion: each body at a base position plus an offset, over `n` steps.
fn record(c: &Character, t: f32, offset: [f32; 3], moved: Option<(usize, [f32; 3])>) -> Record {
    let mut positions: Vec<[f32; 3]> = c
        .bodies
        .iter()
        .map(|b| {
            [
                b.position[0] as f32 + offset[0],
                b.position[1] as f32 + offset[1],
                b.position[2] as f32 + offset[2],
            ]
        })
        .collect();
    if let Some((i, d)) = moved {
        for k in 0..3 {
            positions[i][k] += d[k];
        }
    }
    let m = c.total_mass() as f32;
    let mut com = [0.0; 3];
    for (b, p) in c.bodies.iter().zip(&positions) {
        for k in 0..3 {
            com[k] += b.mass as f32 * p[k] / m;
        }
    }
    Record {
        time: t,
        positions,
        com,
        angles: vec![0.1 * t; c.internal_dof()],
        root: [t, 0.0, 0.0],
    }
}

fn sq(a: &[f64], b: &[f64]) -> f64 {
    a.iter().zip(b).map(|(x, y)| (x - y) * (x - y)).sum()
}

#[test]
fn pose_metrics_are_zero_for_equal_poses_and_translation_invariant() {
    let c = human2d();
    let times = [0.05, 0.15];
    let a: Vec<Record> = (0..30)
        .map(|k| record(&c, k as f32 * 0.01, [0.0; 3], None))
        .collect();
    let b: Vec<Record> = (0..30)
        .map(|k| record(&c, k as f32 * 0.01, [3.0, 0.5, -1.0], None))
        .collect();
    for metric in [Metric::Md, Metric::Hf, Metric::Wja] {
        let fa = features(&c, metric, &a, &times);
        assert!(!fa.is_empty());
        assert_eq!(sq(&fa, &features(&c, metric, &a, &times)), 0.0);
        // A pure translation of the whole character: 0 after aligning the centres of mass.
        assert!(
            sq(&fa, &features(&c, metric, &b, &times)) < 1e-8,
            "{metric:?}"
        );
    }
}

#[test]
fn mass_distance_of_a_single_link_displacement() {
    // Moving link i by Δ moves the centre of mass by m_i Δ / M; after alignment,
    // Σ m_j ‖x_j − x′_j‖² = m_i ‖Δ‖² (1 − m_i / M), and d_MD divides it by M (one sample).
    let c = human2d();
    let i = c.body_index("l_hand").unwrap();
    let delta = [0.2, -0.1, 0.0];
    let a = vec![record(&c, 0.0, [0.0; 3], None)];
    let b = vec![record(&c, 0.0, [0.0; 3], Some((i, delta)))];
    let d = sq(
        &features(&c, Metric::Md, &a, &[0.0]),
        &features(&c, Metric::Md, &b, &[0.0]),
    );
    let (mi, m) = (c.bodies[i].mass as f64, c.total_mass() as f64);
    let expected = mi * 0.05 * (1.0 - mi / m) / m;
    assert!((d - expected).abs() < 1e-4 * expected, "{d} vs {expected}");
    // HF counts the hand with weight 1 (and the others through the COM shift).
    let hf = sq(
        &features(&c, Metric::Hf, &a, &[0.0]),
        &features(&c, Metric::Hf, &b, &[0.0]),
    );
    assert!(hf > 0.04 && hf < 0.06, "{hf}");
}

#[test]
fn phase_normalized_sampling_ignores_phase_durations() {
    // The same poses played at half speed: samples at the same normalized phase times agree.
    let c = human2d();
    let fast: Vec<Record> = (0..=20)
        .map(|k| {
            record(
                &c,
                k as f32 * 0.01,
                [k as f32 * 0.01, 0.0, 0.0],
                Some((3, [0.0, 0.01 * k as f32, 0.0])),
            )
        })
        .collect();
    let slow: Vec<Record> = (0..=40)
        .map(|k| {
            let mut r = record(
                &c,
                k as f32 * 0.005 * 2.0,
                [k as f32 * 0.005, 0.0, 0.0],
                Some((3, [0.0, 0.005 * k as f32, 0.0])),
            );
            r.time = k as f32 * 0.01;
            r
        })
        .collect();
    // Fast phase lasts 0.2 s, slow 0.4 s; 10 samples at (k + ½)/10 of each.
    let tf: Vec<f32> = (0..10).map(|k| (k as f32 + 0.5) / 10.0 * 0.2).collect();
    let ts: Vec<f32> = (0..10).map(|k| (k as f32 + 0.5) / 10.0 * 0.4).collect();
    let d = sq(
        &features(&c, Metric::Md, &fast, &tf),
        &features(&c, Metric::Md, &slow, &ts),
    );
    assert!(d < 1e-8, "{d}");
    // Sampled at the same absolute times instead, they differ.
    assert!(
        sq(
            &features(&c, Metric::Md, &fast, &tf),
            &features(&c, Metric::Md, &slow, &tf)
        ) > 1e-5
    );
}

#[test]
fn shape_scaling_keeps_masses_and_bounds() {
    let c = human2d();
    let thigh = c.body_index("l_thigh").unwrap();
    let knee = c.joints.iter().position(|j| j.name == "l_knee").unwrap();
    let l0 = c.bodies[thigh].length();
    let s = shape::scale_link(&c, thigh, 1.5);
    assert!((s.total_mass() - c.total_mass()).abs() < 1e-4);
    assert_eq!(s.bodies[thigh].mass, c.bodies[thigh].mass);
    assert!((s.bodies[thigh].length() - 1.5 * l0).abs() < 1e-4);
    // The knee moves down by half the thigh's joint-to-joint length (0.375 m · 0.5).
    let dy = c.joints[knee].anchor[1] - s.joints[knee].anchor[1];
    assert!((dy - 0.5 * 0.375).abs() < 1e-3, "{dy}");
    assert!(s.validate().is_empty(), "{:?}", s.validate());
    // Ratios are clamped to [0.4, 2.5] and lengths stay at least 3 cm.
    assert!((shape::scale_link(&c, thigh, 9.0).bodies[thigh].length() - 2.5 * l0).abs() < 1e-4);
    let arm = c.body_index("l_forearm").unwrap();
    assert!(
        (shape::scale_link(&c, arm, 0.01).bodies[arm].length() - 0.4 * c.bodies[arm].length())
            .abs()
            < 1e-5
    );
    // A 6 cm link cannot shrink below 3 cm (0.4 · 6 cm would be 2.4 cm).
    let mut small = c.clone();
    let hand = small.body_index("l_hand").unwrap();
    small.bodies[hand].shape = crate::model::Shape::Capsule {
        radius: 0.01,
        half_length: 0.02,
        axis: crate::model::Axis::Y,
    };
    let tiny = shape::scale_link(&small, hand, 0.01);
    assert!(
        (tiny.bodies[hand].length() - shape::MIN_LENGTH).abs() < 1e-5,
        "{}",
        tiny.bodies[hand].length()
    );
    // Ratio 1 leaves the character bit-identical (so shape mode keeps the seed's trajectory).
    assert_eq!(shape::scale_link(&c, thigh, 1.0), c);
    // The default shape has distance 0 and the normalized mapping hits 0.4, 1 and 2.5.
    assert_eq!(
        shape::link_lengths(&c),
        shape::link_lengths(&shape::scale_links(&c, &[vec!["l_thigh".into()]], &[1.0]))
    );
    assert!((ratio_from_normalized(-1.0) - 0.4).abs() < 1e-6);
    assert!((ratio_from_normalized(0.0) - 1.0).abs() < 1e-6);
    assert!((ratio_from_normalized(1.0) - 2.5).abs() < 1e-6);
}

fn phase(name: &str, end: Transition, duration: f32, pose: &[(&str, f32)]) -> PhaseDef {
    PhaseDef {
        name: name.into(),
        end,
        duration,
        timeout: 2.0,
        pose: pose.iter().map(|(k, v)| (k.to_string(), *v)).collect(),
        world: Default::default(),
        step: false,
        gains: Default::default(),
        balance: false,
        support: None,
        landing: false,
        swap_sides: false,
        foot_placement: false,
        from_current: false,
    }
}

#[test]
fn interpolated_target_at_mid_phase_is_the_average_and_step_phases_jump() {
    let c = human2d();
    let def = PhaseControllerDef {
        start_pose: [("knee".to_string(), -20.0)].into_iter().collect(),
        phases: vec![phase(
            "a",
            Transition::After,
            0.4,
            &[("knee", -60.0), ("hip", 40.0)],
        )],
        loop_to: None,
        balance: Default::default(),
        landing: Default::default(),
        foot_placement: Default::default(),
    };
    let ctrl = PhaseController::new(&c, &def).unwrap();
    let knee = resolve_dofs(&c, "knee").unwrap();
    let hip = resolve_dofs(&c, "hip").unwrap();
    let mid = ctrl.interpolated_target(0.5);
    for (d, _) in &knee {
        assert!(
            (mid[*d].to_degrees() + 40.0).abs() < 1e-4,
            "knee mid {}",
            mid[*d].to_degrees()
        );
    }
    for (d, _) in &hip {
        assert!((mid[*d].to_degrees() - 20.0).abs() < 1e-4);
    }
    let mut stepped = def.clone();
    stepped.phases[0].step = true;
    let ctrl = PhaseController::new(&c, &stepped).unwrap();
    assert!((ctrl.interpolated_target(0.0)[knee[0].0].to_degrees() + 60.0).abs() < 1e-4);
}

#[test]
fn a_from_current_phase_starts_at_the_measured_pose() {
    use crate::control::Controller;
    use crate::sim::{SimSettings, Simulation};
    let c = human2d();
    // Phase "a" bends the knees towards −90° for 0.1 s, far from reaching it; phase "b" starts
    // from wherever the knees are. A hinge pose starts at 0, so interpolating from "a"'s target
    // would start "b" at −90°.
    let mut def = PhaseControllerDef {
        start_pose: Default::default(),
        phases: vec![
            phase(
                "a",
                Transition::After,
                0.1,
                &[("knee", -90.0), ("hip", 45.0)],
            ),
            phase(
                "b",
                Transition::After,
                1.0,
                &[("knee", -10.0), ("hip", 5.0)],
            ),
        ],
        loop_to: None,
        balance: Default::default(),
        landing: Default::default(),
        foot_placement: Default::default(),
    };
    def.phases[1].from_current = true;
    let knee = resolve_dofs(&c, "knee").unwrap()[0].0;
    let settings = SimSettings {
        solver_iterations: 1,
        pgs_iterations: 12,
        ..Default::default()
    };
    let run = |def: &PhaseControllerDef| {
        let mut sim = Simulation::new(&c, settings).unwrap();
        let mut ctrl = PhaseController::new(&c, def).unwrap();
        let mut targets = sim.targets().to_vec();
        loop {
            ctrl.update(&sim, &mut targets);
            if ctrl.current_phase() == 1 {
                return (sim.dof_state().0[knee], targets[knee]);
            }
            sim.set_targets(&targets);
            sim.step();
        }
    };
    let (measured, target) = run(&def);
    assert!(
        measured.to_degrees() > -80.0 && measured.to_degrees() < -5.0,
        "knee {}",
        measured.to_degrees()
    );
    assert!(
        (target - measured).abs() < 1e-6,
        "target {} vs measured {}",
        target.to_degrees(),
        measured.to_degrees()
    );
    def.phases[1].from_current = false;
    let (_, target) = run(&def);
    assert!(
        (target.to_degrees() + 90.0).abs() < 1e-3,
        "without from_current: {}",
        target.to_degrees()
    );
}

#[test]
fn symmetric_names_mirror_lateral_axes() {
    let c = human3d();
    // Sagittal hip flexion: same sign on both sides; abduction about x: opposite.
    let flex = resolve_dofs(&c, "hip").unwrap();
    assert_eq!(flex.iter().map(|x| x.1).collect::<Vec<_>>(), vec![1.0, 1.0]);
    let abd = resolve_dofs(&c, "hip.1").unwrap();
    assert_eq!(abd.iter().map(|x| x.1).collect::<Vec<_>>(), vec![1.0, -1.0]);
    assert!(resolve_dofs(&c, "tail").is_err());
    assert!(resolve_dofs(&c, "l_knee.1").is_err());
}

#[test]
fn controller_and_task_errors_name_the_problem() {
    let c = human2d();
    let mut def = PhaseControllerDef {
        start_pose: Default::default(),
        phases: vec![phase("a", Transition::After, 0.4, &[("wing", 10.0)])],
        loop_to: None,
        balance: Default::default(),
        landing: Default::default(),
        foot_placement: Default::default(),
    };
    let e = PhaseController::new(&c, &def).unwrap_err();
    assert!(e.contains("phase 0") && e.contains("wing"), "{e}");
    def.phases[0] = phase("a", Transition::After, -1.0, &[]);
    assert!(
        PhaseController::new(&c, &def)
            .unwrap_err()
            .contains("positive duration")
    );
    def.phases.clear();
    assert!(PhaseController::new(&c, &def).is_err());
}

#[test]
fn a_sides_own_name_wins_over_the_pair_name_and_a_shadowed_free_pair_name_is_an_error() {
    let c = human3d();
    // "r_shoulder" sorts before "shoulder": the side's own name must still win.
    let def = PhaseControllerDef {
        start_pose: Default::default(),
        phases: vec![phase(
            "a",
            Transition::After,
            0.4,
            &[("shoulder", 10.0), ("r_shoulder", 30.0)],
        )],
        loop_to: None,
        balance: Default::default(),
        landing: Default::default(),
        foot_placement: Default::default(),
    };
    let ctrl = PhaseController::new(&c, &def).unwrap();
    let pair = resolve_dofs(&c, "shoulder").unwrap();
    let (l, r) = (pair[0], pair[1]);
    let target = ctrl.phase_target(0);
    assert!((target[l.0] - (10.0 * l.1).to_radians()).abs() < 1e-6);
    assert!(
        (target[r.0] - 30f32.to_radians()).abs() < 1e-6,
        "{}",
        target[r.0]
    );

    // Freeing "hip" where the pose names "l_hip" and "r_hip" would add a parameter that changes
    // nothing (the silly walks had 12 such): the task refuses it and names the keys.
    let mut task_def = scene_task("silly_walk_human").def;
    task_def.free.joints = vec!["hip".into()];
    task_def.seed.clear();
    let e = Task::new(
        "walk",
        task_def.clone(),
        c.clone(),
        Default::default(),
        1.0,
        false,
    )
    .unwrap_err();
    assert!(
        e.contains("\"hip\"") && e.contains("\"r_hip\"") && e.contains("r_swing"),
        "{e}"
    );
    // The side names are live: each changes its phase's target.
    task_def.free.joints = vec!["r_hip".into(), "l_knee".into()];
    let task = Task::new("walk", task_def, c.clone(), Default::default(), 1.0, false).unwrap();
    let x0 = vec![0.0; task.dimension()];
    for k in 0..task.dimension() {
        if let ParamKind::Pose { phase, .. } = &task.params[k] {
            let mut x = x0.clone();
            x[k] = 0.5;
            let a = PhaseController::new(&c, &task.instantiate(&x0).0).unwrap();
            let b = PhaseController::new(&c, &task.instantiate(&x).0).unwrap();
            assert_ne!(
                a.phase_target(*phase),
                b.phase_target(*phase),
                "{} changes nothing",
                task.param_label(k)
            );
        }
    }
}

#[test]
fn every_free_pose_parameter_of_every_shipped_task_moves_its_phase_target() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("scenes");
    let mut checked = 0;
    for entry in std::fs::read_dir(&dir).unwrap() {
        let path = entry.unwrap().path();
        if path.extension().is_none_or(|e| e != "ron")
            || !std::fs::read_to_string(&path)
                .unwrap()
                .contains("task: Some(")
        {
            continue;
        }
        let task = crate::scene::load_scene(&path)
            .unwrap()
            .task(false)
            .unwrap();
        let x0 = task.x0();
        let base = PhaseController::new(&task.character, &task.instantiate(&x0).0).unwrap();
        for k in 0..task.dimension() {
            if let ParamKind::Pose { phase, .. } = &task.params[k] {
                let mut x = x0.clone();
                x[k] = if x0[k] > 0.0 {
                    x0[k] - 0.5
                } else {
                    x0[k] + 0.5
                };
                let moved = PhaseController::new(&task.character, &task.instantiate(&x).0).unwrap();
                assert_ne!(
                    base.phase_target(*phase),
                    moved.phase_target(*phase),
                    "{}: {} changes nothing",
                    path.display(),
                    task.param_label(k)
                );
                checked += 1;
            }
        }
    }
    assert!(checked > 200, "only {checked} pose parameters checked");
}

fn scene_task(name: &str) -> Task {
    let path = format!("{}/scenes/{name}.ron", env!("CARGO_MANIFEST_DIR"));
    crate::scene::load_scene(Path::new(&path))
        .unwrap()
        .task(false)
        .unwrap()
}

fn backflip() -> Task {
    scene_task("backflip2d")
}

#[test]
fn jump_seed_satisfies_its_constraints_and_events_fire_on_contact_changes() {
    let task = scene_task("jump_forward2d");
    let run = evaluate_recorded(&task, &task.x0(), task.def.metric);
    let e = &run.evaluation;
    assert_eq!(e.penalty, 0.0, "seed must satisfy C = 0: {:?}", e.terms);
    // Liftoff ends "extend": the first frame of "rise" has no contacts, the frame before had.
    let contacts_at = |t: f32| -> u32 {
        run.frames
            .iter()
            .min_by(|a, b| (a.time - t).abs().total_cmp(&(b.time - t).abs()))
            .unwrap()
            .contacts
            .iter()
            .map(|&n| n as u32)
            .sum()
    };
    let dt = task.settings.dt;
    let rise = e.phases.iter().find(|p| p.name == "rise").unwrap();
    assert_eq!(contacts_at(rise.start), 0);
    assert!(contacts_at(rise.start - 2.0 * dt) > 0 || contacts_at(rise.start - dt) > 0);
    // Touchdown ends "fall": contacts appear.
    let fall = e.phases.iter().find(|p| p.name == "fall").unwrap();
    let td = fall.end.unwrap();
    assert!(!fall.timed_out);
    assert!(contacts_at(td) > 0);
    assert_eq!(contacts_at(td - 2.0 * dt), 0);
    // Apex ends "rise": the centre of mass is highest there (within two steps).
    let peak_t = run
        .frames
        .iter()
        .max_by(|a, b| a.com[1].total_cmp(&b.com[1]))
        .unwrap()
        .time;
    assert!(
        (peak_t - rise.end.unwrap()).abs() <= 2.5 * dt,
        "peak at {peak_t}, apex event at {:?}",
        rise.end
    );
    // 20 phase-normalized samples of the MD features (3 coordinates per link).
    assert_eq!(e.features.len(), 20 * 3 * task.character.bodies.len());
}

#[test]
fn backflip_seed_somersaults_into_its_box_opens_at_its_angle_and_stands() {
    let task = backflip();
    let run = evaluate_recorded(&task, &task.x0(), task.def.metric);
    let e = &run.evaluation;
    assert_eq!(e.penalty, 0.0, "the seed must satisfy C = 0: {:?}", e.terms);
    assert!(
        e.rotation >= 330.0 && e.rotation <= 390.0,
        "rotation {}",
        e.rotation
    );
    // The tuck ends on `Rotation(θ)`: the root's unwrapped pitch crosses θ in that step.
    let theta = match task
        .def
        .controller
        .phases
        .iter()
        .find(|p| p.name == "tuck")
        .unwrap()
        .end
    {
        Transition::Rotation(d) => d,
        other => panic!("tuck should end on a rotation, not {other:?}"),
    };
    let tuck_end = e
        .phases
        .iter()
        .find(|p| p.name == "tuck")
        .and_then(|p| p.end)
        .unwrap();
    let root = run.character.body_index(&run.character.root.body).unwrap();
    let (mut total, mut last, mut at_end) = (0.0f32, None::<f32>, None);
    for f in &run.frames {
        let q = f.poses[root];
        let a = 2.0 * q[5].atan2(q[6]);
        if let Some(l) = last {
            total += crate::control::phase::angle_step(l, a);
        }
        last = Some(a);
        if at_end.is_none() && f.time >= tuck_end - 1e-4 {
            at_end = Some(total.to_degrees());
        }
    }
    let at_end = at_end.unwrap();
    assert!(
        at_end >= theta - 1.0 && at_end <= theta + 15.0,
        "turned {at_end}° when the tuck ended (θ = {theta}°)"
    );
    // `stand`: the rollout runs until the last phase has been held that long, past the scene's end.
    let land = e.phases.last().unwrap();
    let stand = task.def.stand.unwrap();
    let end = run.frames.last().unwrap().time;
    assert!(
        end >= land.start + stand - 1e-3,
        "ran to {end}, last phase from {}",
        land.start
    );
}

#[test]
fn strength_scales_gains_and_torque_limits_together() {
    let mut task = scene_task("jump_forward2d");
    let normal = evaluate(&task, &task.x0(), task.def.metric);
    task.strength = 2.0;
    let strong = evaluate(&task, &task.x0(), task.def.metric);
    assert_ne!(normal.hash, strong.hash);
    assert!(
        strong.peak_height > normal.peak_height,
        "{} vs {}",
        strong.peak_height,
        normal.peak_height
    );
}

#[test]
fn jacobian_transpose_balance_recovers_from_a_push_that_topples_the_plain_pose() {
    use crate::sim::{Push, RolloutSpec, SimSettings, run_rollout};
    let c = human2d();
    let chest = c.body_index("chest").unwrap();
    let fell = |balance: bool, impulse: f32| {
        let text = format!(
            "(phases: [(name: \"stand\", end: After, duration: 10.0, balance: {balance}, pose: {{\"hip\": 20.0, \"knee\": -40.0, \"ankle\": 20.0}})])"
        );
        let def: PhaseControllerDef = crate::files::from_ron(&text).unwrap();
        let mut ctrl = PhaseController::new(&c, &def).unwrap();
        let spec = RolloutSpec {
            pushes: vec![Push {
                time: 1.0,
                body: chest,
                impulse: [-impulse, 0.0, 0.0],
                duration: 0.1,
            }],
            stop_on_fall: true,
            ..RolloutSpec::seconds(4.0)
        };
        let settings = SimSettings {
            solver_iterations: 1,
            pgs_iterations: 12,
            ..Default::default()
        };
        run_rollout(&c, settings, &mut ctrl, &spec).unwrap().fell
    };
    // Measured thresholds (backward push on the chest, with ground friction): the plain pose
    // topples from 12 N·s, the balanced one holds up to 22 N·s and falls at 25 N·s.
    assert!(
        !fell(false, 10.0),
        "10 N·s should not topple even the plain pose"
    );
    assert!(
        fell(false, 20.0),
        "20 N·s backwards should topple the crouched pose without balance"
    );
    assert!(
        !fell(true, 20.0),
        "the virtual COM force should catch a 20 N·s push"
    );
    assert!(
        fell(true, 30.0),
        "30 N·s is beyond what the balance controller can catch"
    );
}

#[test]
fn jump_onto_seed_stands_on_top_of_its_half_metre_box() {
    let task = scene_task("jump_onto2d");
    assert!(
        (task.obstacles[0].half_extents[1] * 2.0 - 0.5).abs() < 1e-6,
        "the box is 0.5 m high"
    );
    let run = evaluate_recorded(&task, &task.x0(), task.def.metric);
    assert_eq!(run.evaluation.penalty, 0.0, "{:?}", run.evaluation.terms);
    let last = run.frames.last().unwrap();
    for foot in ["l_foot", "r_foot"] {
        let y = last.poses[run.character.body_index(foot).unwrap()][1];
        assert!(y > 0.5 && y < 0.6, "{foot} at {y} m, not on the box top");
    }
}

#[test]
fn walk_fall_ramp_runs_from_50000_at_the_first_step_to_0_after_the_last() {
    use super::{WALK_STEP_SECONDS, walk_fall_penalty};
    assert_eq!(walk_fall_penalty(0, 30, 0.0), 50_000.0);
    assert!((walk_fall_penalty(15, 30, 0.0) - 25_000.0).abs() < 1e-9);
    assert_eq!(walk_fall_penalty(30, 30, 0.0), 0.0);
    assert_eq!(walk_fall_penalty(31, 30, 5.0), 0.0);
    // Linear in the steps completed: each step is worth 50,000 / 30.
    let per_step = walk_fall_penalty(9, 30, 0.0) - walk_fall_penalty(10, 30, 0.0);
    assert!((per_step - 50_000.0 / 30.0).abs() < 1e-9);
    // Within a step, surviving longer costs less, but never as little as the next step.
    let early = walk_fall_penalty(4, 30, 0.1);
    let late = walk_fall_penalty(4, 30, 10.0 * WALK_STEP_SECONDS);
    assert!(late < early && early < walk_fall_penalty(4, 30, 0.0));
    assert!(late > walk_fall_penalty(5, 30, 0.0), "{late}");
}

#[test]
fn step_window_and_upright_penalties() {
    let p = |s: Summary, c: &Constraint| constraint_penalty(c, &s).map(|t| t.1).unwrap_or(0.0);
    let window = Constraint::StepWindow {
        center: [1.0, 0.0],
        half_size: [0.5, 0.5],
    };
    // Steps of 0.5–1.5 m forward and ±0.5 m sideways are inside, the boundary included.
    let inside = Summary {
        steps: vec![[0.5, 0.2], [1.5, -0.5], [1.0, 0.0]],
        ..summary()
    };
    assert_eq!(p(inside, &window), 0.0);
    // Two steps outside: 0.1 m short and 0.2 m too far sideways, 1 + 5000·d² each.
    let outside = Summary {
        steps: vec![[0.4, 0.0], [1.0, 0.7], [1.0, 0.1]],
        ..summary()
    };
    let expected = (1.0 + 5000.0 * 0.01) + (1.0 + 5000.0 * 0.04);
    let got = p(outside, &window);
    assert!((got - expected).abs() < 1e-2, "{got}");
    let upright = Constraint::Upright {
        max_degrees: 15.0,
        bodies: vec!["pelvis".into(), "torso".into()],
    };
    assert_eq!(
        p(
            Summary {
                max_tilt: 15.0,
                ..summary()
            },
            &upright
        ),
        0.0
    );
    let tilted = p(
        Summary {
            max_tilt: 25.0,
            ..summary()
        },
        &upright,
    );
    assert!(
        (tilted - (1.0 + 5000.0 * 10f64.to_radians().powi(2))).abs() < 1e-2,
        "{tilted}"
    );
}

#[test]
fn a_walk_counts_alternating_footfalls_and_charges_the_fall_ramp_for_missing_steps() {
    let mut task = scene_task("silly_walk_human");
    // A short protocol: 8 steps, 2 to settle, so 6 evaluated steps.
    task.def.walk = Some(WalkDef {
        steps: 8,
        settle: 2,
    });
    let e = evaluate(&task, &task.x0(), task.def.metric);
    assert!(!e.fell, "{:?}", e.terms);
    assert!(
        e.terms
            .iter()
            .all(|t| !t.0.contains("fell") && !t.0.contains("only")),
        "{:?}",
        e.terms
    );
    // The swing phases end on the swing foot's strike, alternating legs.
    let strikes: Vec<&str> = e
        .phases
        .iter()
        .filter(|r| r.name.ends_with("strike") && r.end.is_some())
        .map(|r| r.name.as_str())
        .collect();
    assert!(strikes.len() >= 7, "{strikes:?}");
    assert!(strikes.windows(2).all(|w| w[0] != w[1]), "{strikes:?}");
    assert!(
        e.phases
            .iter()
            .filter(|r| r.name.ends_with("strike"))
            .all(|r| !r.timed_out),
        "a strike timed out: {:?}",
        e.phases
    );
    // Step-window violations are counted over the 6 evaluated steps only.
    if let Some(t) = e.terms.iter().find(|t| t.0.contains("step window")) {
        let n: usize = t.0.split_whitespace().next().unwrap().parse().unwrap();
        assert!(n <= 6, "{}", t.0);
    }
    // Given 1.5 s for 30 steps it completes only a few: charged as a fall after k steps.
    task.def.walk = Some(WalkDef {
        steps: 30,
        settle: 10,
    });
    task.seconds = 1.5;
    let short = evaluate(&task, &task.x0(), task.def.metric);
    let ramp = short
        .terms
        .iter()
        .find(|t| t.0.contains("only"))
        .expect("too few steps must be charged");
    let k: u32 = ramp
        .0
        .split(" after ")
        .nth(1)
        .unwrap()
        .split_whitespace()
        .next()
        .unwrap()
        .parse()
        .unwrap();
    assert!((1..6).contains(&k), "{}", ramp.0);
    assert!(
        ramp.1 <= walk_fall_penalty(k, 30, 0.0) && ramp.1 >= walk_fall_penalty(k + 1, 30, 0.0),
        "{ramp:?}"
    );
}

#[test]
fn free_world_pitch_and_foot_placement_gains_move_within_their_ranges() {
    let mut task = scene_task("silly_walk_human");
    let mut def = task.def.clone();
    def.free.world = vec!["pelvis".into(), "torso".into()];
    def.free.world_range = 8.0;
    def.free.foot_placement = Some((0.4, 0.3));
    def.seed.clear();
    task = Task::new(
        &task.name,
        def,
        task.character.clone(),
        task.settings.clone(),
        task.seconds,
        false,
    )
    .unwrap();
    let labels: Vec<String> = (0..task.dimension()).map(|k| task.param_label(k)).collect();
    let base = labels
        .iter()
        .position(|l| l == "r_swing.world.pelvis")
        .expect("world pitch parameters");
    assert_eq!(labels[base + 1], "r_swing.world.torso");
    assert_eq!(
        labels[labels.len() - 2..],
        [
            "foot_placement.cd".to_string(),
            "foot_placement.cv".to_string()
        ]
    );
    // 9 joints in 4 phases, 2 durations, 2 world pitches in 4 phases, 2 gains.
    assert_eq!(task.dimension(), 9 * 4 + 2 + 4 * 2 + 2);
    let seed_world = |phase: usize, body: &str| task.def.controller.phases[phase].world[body];
    let seed_cd = task.def.controller.foot_placement.cd;
    let seed_cv = task.def.controller.foot_placement.cv;
    let mut x = vec![0.0; task.dimension()];
    x[base] = 1.0; // r_swing pelvis: seed + 8°
    x[base + 1] = -0.5; // r_swing torso: seed − 4°
    let n = x.len();
    x[n - 2] = 1.0; // cd + 0.4
    x[n - 1] = -1.0; // cv − 0.3
    let (c, _) = task.instantiate(&x);
    assert_eq!(c.phases[0].world["pelvis"], seed_world(0, "pelvis") + 8.0);
    assert_eq!(c.phases[0].world["torso"], seed_world(0, "torso") - 4.0);
    assert_eq!(
        c.phases[1].world["pelvis"],
        seed_world(1, "pelvis"),
        "other phases keep their seed"
    );
    assert!(
        (c.foot_placement.cd - (seed_cd + 0.4)).abs() < 1e-6
            && (c.foot_placement.cv - (seed_cv - 0.3)).abs() < 1e-6,
        "{:?}",
        c.foot_placement
    );
    // A body without a world target in a free phase is an error that names it.
    let mut bad = task.def.clone();
    bad.free.world = vec!["head".into()];
    let e = Task::new(
        "bad",
        bad,
        task.character.clone(),
        task.settings.clone(),
        task.seconds,
        false,
    )
    .unwrap_err();
    assert!(e.contains("\"head\""), "{e}");
}
