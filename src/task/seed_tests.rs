//! Tests of the shipped tasks' seeds (the jump, the backflip, jump onto, walks), balance,
//! strength and the walk penalties (Agrawal et al. 2014, §5–7).

use super::tests::{human2d, summary};
use super::*;
use crate::control::phase::{PhaseController, Transition};
use std::path::Path;

pub(super) fn scene_task(name: &str) -> Task {
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
    .unwrap_err()
    .to_string();
    assert!(e.contains("\"head\""), "{e}");
}
