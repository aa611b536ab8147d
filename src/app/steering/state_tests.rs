//! Tests of the Steering view's state, without a window.

use super::{SteeringState, default_graph};
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
