//! Tests of tasks, metrics, constraints, phase controllers and shape scaling
//! (Agrawal et al. 2014, §4–7).

use super::eval::{Record, features};
use super::seed_tests::scene_task;
use super::*;
use crate::control::phase::{
    PhaseController, PhaseControllerDef, PhaseDef, Transition, resolve_dofs,
};
use crate::model::{load_character, shape};
use std::path::Path;

pub(super) fn human2d() -> Character {
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

pub(super) fn summary() -> Summary {
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
    let e = PhaseController::new(&c, &def).unwrap_err().to_string();
    assert!(e.contains("phase 0") && e.contains("wing"), "{e}");
    def.phases[0] = phase("a", Transition::After, -1.0, &[]);
    assert!(
        PhaseController::new(&c, &def)
            .unwrap_err()
            .to_string()
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
    .unwrap_err()
    .to_string();
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
