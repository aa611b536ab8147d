//! `motionlab graph control` (training the learned tracker, resumably) and `steer --physics
//! --tracker` (playing with it), from the command line.

mod common;

use common::{assert_success, motionlab, stdout};

/// `graph control GRAPH --out FILE --iterations 1 --samples 100` makes one update from at least
/// 100 decisions and writes the checkpoint; run again it resumes from it (one iteration, at
/// least 100 decisions learned from) and makes the second. `steer --script S --physics --tracker
/// FILE` plays with it and reports the physics run; a missing tracker file is refused by name.
#[test]
fn graph_control_trains_resumes_and_steer_plays_the_tracker() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("human3d.control.ron");
    let file_arg = file.to_str().unwrap();
    let train = || {
        motionlab(&[
            "graph",
            "control",
            "assets/graphs/human3d.ron",
            "--out",
            file_arg,
            "--iterations",
            "1",
            "--samples",
            "100",
            "--threads",
            "2",
        ])
    };
    let o = train();
    assert_success(&o, "graph control");
    let out = stdout(&o);
    let line = out
        .lines()
        .find(|l| l.starts_with("iteration 1 "))
        .unwrap_or_else(|| panic!("{out}"));
    let samples: u64 = line.split_whitespace().nth(3).unwrap().parse().unwrap();
    assert!(samples >= 100, "{line}");
    assert!(file.exists());

    let o = train();
    assert_success(&o, "graph control, resumed");
    let out = stdout(&o);
    assert!(out.contains("resuming"), "{out}");
    assert!(out.contains(": 1 iterations"), "{out}");
    assert!(out.lines().any(|l| l.starts_with("iteration 2 ")), "{out}");

    let steer = |tracker: &str| {
        motionlab(&[
            "steer",
            "assets/graphs/human3d.ron",
            "--script",
            "tests/data/steer_north_east.ron",
            "--physics",
            "--tracker",
            tracker,
        ])
    };
    let o = steer(file_arg);
    assert_success(&o, "steer --physics --tracker");
    let out = stdout(&o);
    assert!(
        out.lines()
            .any(|l| l.starts_with("physics fell at ") || l.starts_with("physics stayed up")),
        "{out}"
    );
    assert!(out.contains("tracking_error_rad "), "{out}");

    let o = steer("no/such/tracker.ron");
    assert!(!o.status.success());
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(err.contains("no/such/tracker.ron"), "{err}");

    let o = motionlab(&[
        "graph",
        "control",
        "assets/graphs/human3d.ron",
        "--out",
        file_arg,
        "--steady-share",
        "1.5",
    ]);
    assert!(!o.status.success());
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(err.contains("--steady-share"), "{err}");
}
