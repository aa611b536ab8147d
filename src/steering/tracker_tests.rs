//! Tests of the learned tracker ([`super::tracker`]) and its training
//! ([`super::tracker_training`]).

use super::balance::BalanceGains;
use super::physics::{Planning, run_tracked_planned};
use super::tracker::{EpisodeSettings, SCRIPT_RATE};
use super::tracker_training::{TrackerCheckpoint, TrainingSettings};
use super::trials::{PlayerModel, random_timeline};
use super::{Controller, Mode};
use crate::learn::ppo::{Policy, PpoSettings};
use crate::motion_graph::{LoadedGraph, MotionGraph};
use std::sync::Arc;

fn shipped_graph() -> Arc<LoadedGraph> {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("assets/graphs/human3d.ron");
    Arc::new(MotionGraph::load(&path).expect("the shipped graph"))
}

fn small_ppo() -> PpoSettings {
    PpoSettings {
        hidden: vec![16],
        minibatch: 64,
        epochs: 2,
        ..PpoSettings::default()
    }
}

/// A tracker's corrections reach the simulated body, and nothing else does: one whose network
/// puts out zeros plays a timeline exactly as the balance feedback alone (the same fall time and
/// tracking error, bit for bit), and one that bends every joint target by 0.3 rad tracks
/// differently.
#[test]
fn a_tracker_adds_its_corrections_and_nothing_else() {
    let g = shipped_graph();
    let mut checkpoint = TrackerCheckpoint::new(&g, small_ppo(), 1).unwrap();
    let script = random_timeline(5, 4.0, SCRIPT_RATE, &PlayerModel::default());
    let play = |tracker: Option<Policy>| {
        let mut controller = Controller::new(
            g.clone(),
            Controller::default_start(&g, "stand"),
            Mode::Steer,
        );
        let planning = Planning {
            tracker: tracker.map(Arc::new),
            ..Planning::default()
        };
        run_tracked_planned(
            &mut controller,
            &script,
            BalanceGains::default(),
            planning,
            |_, _| {},
        )
        .unwrap()
    };
    let alone = play(None);
    let net = &mut checkpoint.learner.policy.mean;
    let last = net.weights.len() - 1;
    net.weights[last].iter_mut().for_each(|w| *w = 0.0);
    let zero = play(Some(checkpoint.policy()));
    assert_eq!(zero.fell_at, alone.fell_at);
    assert_eq!(zero.joint_error.to_bits(), alone.joint_error.to_bits());
    let net = &mut checkpoint.learner.policy.mean;
    net.biases[last].iter_mut().for_each(|b| *b = 0.3);
    let bent = play(Some(checkpoint.policy()));
    assert!(
        (bent.joint_error - alone.joint_error).abs() > 0.05,
        "bent by 0.3 rad: joint error {} against {}",
        bent.joint_error,
        alone.joint_error
    );
}

/// A checkpoint that does not fit the character is refused by its file name, not played: one
/// trained for another number of observations, and one whose weights were cut short.
#[test]
fn a_tracker_that_does_not_fit_is_refused_by_name() {
    let g = shipped_graph();
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("other.control.ron");
    let mut other = TrackerCheckpoint::new(&g, small_ppo(), 1).unwrap();
    let actions = other.learner.policy.mean.outputs();
    other.learner = crate::learn::ppo::Learner::new(10, actions, small_ppo(), 1);
    other.save(&path).unwrap();
    let e = format!("{:#}", TrackerCheckpoint::load(&path, &g).unwrap_err());
    assert!(e.contains("other.control.ron") && e.contains("10"), "{e}");
    let mut cut = TrackerCheckpoint::new(&g, small_ppo(), 1).unwrap();
    cut.learner.policy.mean.biases[0].pop();
    cut.save(&path).unwrap();
    let e = format!("{:#}", TrackerCheckpoint::load(&path, &g).unwrap_err());
    assert!(
        e.contains("other.control.ron") && e.contains("sizes"),
        "{e}"
    );
}

/// A training stopped after one iteration, saved, read back and continued makes the same
/// learner, bit for bit, as one that ran both iterations at once, on one thread or two.
#[test]
fn training_resumes_with_the_same_bits_on_any_number_of_threads() {
    let g = shipped_graph();
    let settings = TrainingSettings {
        samples: 120,
        episode: EpisodeSettings {
            duration: 2.0,
            ..EpisodeSettings::default()
        },
    };
    let pool = |n| {
        rayon::ThreadPoolBuilder::new()
            .num_threads(n)
            .build()
            .unwrap()
    };
    let mut straight = TrackerCheckpoint::new(&g, small_ppo(), 3).unwrap();
    pool(1).install(|| {
        straight.iterate(&g, &settings).unwrap();
        straight.iterate(&g, &settings).unwrap();
    });
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("h.control.ron");
    let mut first = TrackerCheckpoint::new(&g, small_ppo(), 3).unwrap();
    pool(2).install(|| first.iterate(&g, &settings).unwrap());
    first.save(&path).unwrap();
    let mut resumed = TrackerCheckpoint::load(&path, &g).unwrap();
    assert_eq!(resumed, first, "the checkpoint reads back as written");
    pool(2).install(|| resumed.iterate(&g, &settings).unwrap());
    assert_eq!(resumed.learner, straight.learner);
    assert_eq!(resumed.history, straight.history);
    assert!(straight.learner.samples >= 240);
}
