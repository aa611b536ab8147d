//! A job's folder read from outside the job (`motionlab::job_folder`): what the app shows of a
//! search that runs in another process or on a cluster whose filesystem it mounts.

mod common;

use common::{assert_success, motionlab};
use motionlab::job_folder::{FolderError, FolderKind, look};
use motionlab::jobs::{Job, StepOutcome};

/// A running exploration's checkpoint: its kind and how far it is; once finished, its result.
#[test]
fn a_running_then_finished_exploration_reads_from_its_folder() {
    let dir = tempfile::tempdir().unwrap();
    let folder = dir.path().join("explore");
    std::fs::create_dir_all(&folder).unwrap();
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    let config = motionlab::diversity::explore::ExploreConfig {
        scene: root.join("scenes/jump_high2d.ron"),
        variants: 2,
        generations: 4,
        ..Default::default()
    };
    let mut job = motionlab::diversity::explore::DiversityJob::new(config).unwrap();
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(1)
        .build()
        .unwrap();
    for _ in 0..2 {
        assert!(matches!(job.step(&pool).unwrap(), StepOutcome::Running));
    }
    motionlab::files::write_atomic(
        &folder.join("checkpoint.ron"),
        job.checkpoint().unwrap().as_bytes(),
    )
    .unwrap();
    let view = look(&folder).unwrap();
    assert_eq!(view.kind, FolderKind::Explore);
    assert_eq!(view.result, None, "running: no result yet");
    assert!(
        (view.fraction - 0.5).abs() < 1e-6,
        "2 of 4 generations: {view:?}"
    );
    assert!(view.written.is_some());

    // Finished by the command line into the same folder: the result, complete.
    let o = motionlab(&[
        "explore",
        "scenes/jump_high2d.ron",
        "--variants",
        "2",
        "--generations",
        "4",
        "--threads",
        "1",
        "--resume",
        "--out",
        folder.to_str().unwrap(),
    ]);
    assert_success(&o, "explore --resume");
    let view = look(&folder).unwrap();
    assert_eq!(view.kind, FolderKind::Explore);
    assert_eq!(view.result, Some(folder.join("result.ron")));
    assert_eq!(view.fraction, 1.0);
}

/// A Pareto run's checkpoint and a tracking search's result are told apart by what they hold.
#[test]
fn pareto_and_track_folders_are_recognised() {
    let dir = tempfile::tempdir().unwrap();
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    let pareto = dir.path().join("pareto");
    std::fs::create_dir_all(&pareto).unwrap();
    let mut config = motionlab::pareto::ParetoConfig::new(
        root.join("scenes/pareto_jump2d.ron"),
        motionlab::pareto::Method::Rmoo,
    );
    config.generations = 5;
    let mut run = motionlab::pareto::ParetoRun::new(config).unwrap();
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(1)
        .build()
        .unwrap();
    run.step(&pool).unwrap();
    motionlab::files::write_atomic(
        &pareto.join("checkpoint.ron"),
        run.checkpoint().unwrap().as_bytes(),
    )
    .unwrap();
    let view = look(&pareto).unwrap();
    assert_eq!(view.kind, FolderKind::Pareto);
    assert!(view.result.is_none() && view.fraction < 1.0, "{view:?}");

    let track = dir.path().join("track");
    let o = motionlab(&[
        "track",
        "assets/keyframes/human3d_hanging_jump.keys.ron",
        "--character",
        "characters/human3d.ron",
        "--keep",
        "2",
        "--samples",
        "2",
        "--generations",
        "2",
        "--population",
        "4",
        "--to",
        "0.5",
        "--threads",
        "1",
        "--out",
        track.to_str().unwrap(),
    ]);
    assert_success(&o, "track");
    let view = look(&track).unwrap();
    assert_eq!(view.kind, FolderKind::Track);
    assert_eq!(view.result, Some(track.join("result.ron")));
}

/// A folder that is no job's, and a checkpoint of nothing known, are refused by name.
#[test]
fn folders_that_are_not_jobs_are_refused_by_name() {
    let dir = tempfile::tempdir().unwrap();
    let err = look(dir.path()).unwrap_err();
    assert!(matches!(err, FolderError::NotAJob(_)));
    assert!(
        err.to_string()
            .contains("holds neither checkpoint.ron nor result.ron"),
        "{err}"
    );
    std::fs::write(dir.path().join("checkpoint.ron"), "(generation: 3)").unwrap();
    let err = look(dir.path()).unwrap_err().to_string();
    assert!(
        err.contains("checkpoint.ron: not the checkpoint or result of an exploration"),
        "{err}"
    );
}
