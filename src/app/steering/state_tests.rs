//! Tests of the Steering view's state, without a window.

use super::{SteeringState, default_graph, step_once};
use crate::app::workbench::files::root_path;

/// Physics playback of the default graph starts with the shipped learned tracker and the guard
/// on, and says so in the status line, unless the user's boxes said otherwise; a tracker asked
/// for at launch that cannot be read is said there by its file's name, and physics plays without
/// one.
#[test]
fn physics_starts_with_the_shipped_tracker_and_the_guard() {
    let mut state = SteeringState {
        physics_on: true,
        ..Default::default()
    };
    state.open(default_graph());
    assert!(
        state.tracker.is_some() && state.tracker_on && state.guard_on && state.guard.is_some(),
        "{}",
        state.message
    );
    assert!(state.physics.is_some(), "{}", state.message);
    assert!(state.message.contains("human3d.control.ron"), "{}", state.message);

    // The user unticks the guard: opening a graph again keeps their choice.
    state.guard_on = false;
    state.boxes_chosen = true;
    state.open(default_graph());
    assert!(state.tracker.is_some() && state.tracker_on, "{}", state.message);
    assert!(!state.guard_on && state.guard.is_none(), "{}", state.message);

    let mut missing = SteeringState {
        physics_on: true,
        tracker_file: Some("no/such/tracker.ron".into()),
        ..Default::default()
    };
    missing.open(default_graph());
    assert!(missing.tracker.is_none() && !missing.tracker_on && missing.guard.is_none());
    assert!(
        missing.message.contains("no tracker") && missing.message.contains("no/such/tracker.ron"),
        "{}",
        missing.message
    );
}

/// A graph with a tracker of its own (`assets/trackers/GRAPH.control.ron`, trained on it) plays
/// with that one; another graph of the character with the character's.
#[test]
fn each_graph_plays_its_own_tracker_when_it_has_one() {
    use super::tracker::default_tracker;
    let solved = root_path("assets/graphs/human3d_solved.ron");
    assert_eq!(
        default_tracker(&solved, "human3d"),
        root_path("assets/trackers/human3d_solved.control.ron")
    );
    assert_eq!(
        default_tracker(&root_path("assets/graphs/elsewhere.ron"), "human3d"),
        root_path("assets/trackers/human3d.control.ron")
    );
    let mut state = SteeringState {
        physics_on: true,
        ..Default::default()
    };
    state.open(solved);
    assert!(state.tracker.is_some() && state.guard.is_some(), "{}", state.message);
    assert!(
        state.message.contains("human3d_solved.control.ron"),
        "{}",
        state.message
    );
}

/// Physics in the app steps on the grid of its step, as a script does: a stick script loaded
/// in the app plays bit for bit as `motionlab steer --script --physics` plays it with the
/// shipped tracker and the guard, and the guard carries its chosen futures on there too (as
/// many steps played ahead). Until 2026-12-07 the app's clock summed its steps, which drift off
/// the grid, and every future was played afresh.
#[test]
fn physics_in_the_app_plays_a_script_as_steer_does() {
    use crate::steering::physics::{Planning, run_tracked_planned};
    use crate::steering::script::{StickKey, StickScript};
    use crate::steering::{Controller, Mode};
    let script = StickScript {
        keys: vec![StickKey {
            time: 0.0,
            movement: (0.6, 0.8),
            facing: None,
            run: false,
        }],
        duration: 4.0,
        rate: crate::steering::tracker::SCRIPT_RATE,
        pushes: Vec::new(),
    };
    let mut state = SteeringState {
        physics_on: true,
        script: Some(script.clone()),
        ..Default::default()
    };
    state.open(default_graph());
    assert!(state.guard.is_some() && state.tracker.is_some(), "{}", state.message);
    let h = 1.0 / script.rate;
    let steps = (script.duration * script.rate).round() as usize;
    for _ in 0..steps {
        step_once(&mut state, h);
    }
    assert_eq!(state.time, steps as f64 * h, "on the grid");

    let graph = state.controller.as_ref().unwrap().graph.clone();
    let start = Controller::default_start(&graph, "stand");
    let mut controller = Controller::new(graph, start, Mode::Steer);
    let planning = Planning {
        guard: Some(Default::default()),
        tracker: state.tracker.clone(),
        ..Default::default()
    };
    let mut pelvis = None;
    let report = run_tracked_planned(
        &mut controller,
        &script,
        Default::default(),
        planning,
        |s| pelvis = Some(s.physics.sim.body_pose(s.physics.root_body())),
    )
    .unwrap();
    let app = state.physics.as_ref().unwrap();
    assert!(report.fell_at.is_none() && app.fell_at.is_none());
    assert_eq!(Some(app.sim.body_pose(app.root_body())), pelvis, "the same pelvis");
    let guard = state.guard.as_ref().unwrap();
    assert!(guard.ahead_steps > 0);
    assert_eq!(guard.ahead_steps, report.ahead_steps, "as many steps played ahead");
}
