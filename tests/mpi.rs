//! Searches spread over MPI ranks (cargo feature `mpi`): the same seed gives the same result
//! under `mpirun -np 3` as in one process (a diversity search and a Pareto run byte for byte,
//! a Keys-to-Sim search to the same trajectory hash and windows), and only rank 0 prints.
#![cfg(feature = "mpi")]

mod common;

use common::*;
use std::path::Path;
use std::process::{Command, Output};

/// `motionlab ARGS --mpi` under `mpirun -np RANKS` (as root, more ranks than cores allowed).
fn mpirun(ranks: usize, args: &[&str]) -> Output {
    Command::new("mpirun")
        .args(["--allow-run-as-root", "--oversubscribe", "-np"])
        .arg(ranks.to_string())
        .arg(env!("CARGO_BIN_EXE_motionlab"))
        .args(args)
        .arg("--mpi")
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .output()
        .expect("mpirun (Debian openmpi-bin, installed by scripts/setup.sh)")
}

fn read(path: &Path) -> String {
    std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// A short diversity search (Agrawal et al. 2014) on the 2-D jump: 2 variants, 6 generations.
fn explore_args(out: &str) -> Vec<&str> {
    vec![
        "explore",
        "scenes/jump_high2d.ron",
        "--variants",
        "2",
        "--generations",
        "6",
        "--threads",
        "1",
        "--out",
        out,
    ]
}

#[test]
fn explore_over_three_ranks_gives_the_single_process_result() {
    let tmp = tempfile::tempdir().unwrap();
    let (one, three) = (tmp.path().join("one"), tmp.path().join("three"));
    let o = motionlab(&explore_args(one.to_str().unwrap()));
    assert_success(&o, "explore in one process");
    let o = mpirun(3, &explore_args(three.to_str().unwrap()));
    assert_success(&o, "explore on three ranks");
    let single = read(&one.join("result.ron"));
    assert!(
        single.contains("hash: \""),
        "a result with trajectory hashes"
    );
    assert_eq!(
        read(&three.join("result.ron")),
        single,
        "three ranks gave another result"
    );
    let lines = stdout(&o);
    assert_eq!(
        lines.matches("diversity ").count(),
        1,
        "rank 0 alone prints:\n{lines}"
    );
}

#[test]
fn a_pareto_run_over_three_ranks_gives_the_single_process_result() {
    let tmp = tempfile::tempdir().unwrap();
    let args = |out: &std::path::PathBuf| -> Vec<String> {
        [
            "pareto",
            "scenes/pareto_jump2d.ron",
            "--generations",
            "8",
            "--threads",
            "1",
            "--out",
            out.to_str().unwrap(),
        ]
        .map(String::from)
        .to_vec()
    };
    let (one, three) = (tmp.path().join("one"), tmp.path().join("three"));
    let a = args(&one);
    let o = motionlab(&a.iter().map(|s| s.as_str()).collect::<Vec<_>>());
    assert_success(&o, "pareto in one process");
    let a = args(&three);
    let o = mpirun(3, &a.iter().map(|s| s.as_str()).collect::<Vec<_>>());
    assert_success(&o, "pareto on three ranks");
    let single = read(&one.join("result.ron"));
    assert!(single.contains("hypervolume"), "a Pareto result");
    assert_eq!(
        read(&three.join("result.ron")),
        single,
        "three ranks gave another front"
    );
    assert_eq!(stdout(&o).matches("hypervolume ").count(), 1);
}

#[test]
fn a_tracking_search_over_three_ranks_gives_the_single_process_trajectory() {
    let tmp = tempfile::tempdir().unwrap();
    let (one, three) = (tmp.path().join("one"), tmp.path().join("three"));
    let args = |out: &std::path::PathBuf| -> Vec<String> {
        [
            "track",
            "assets/keyframes/human3d_hanging_jump.keys.ron",
            "--character",
            "characters/human3d.ron",
            "--keep",
            "3",
            "--samples",
            "6",
            "--generations",
            "10",
            "--population",
            "8",
            "--to",
            "0.75",
            "--seed",
            "7",
            "--threads",
            "1",
            "--out",
            out.to_str().unwrap(),
        ]
        .map(String::from)
        .to_vec()
    };
    let a = args(&one);
    let o = motionlab(&a.iter().map(|s| s.as_str()).collect::<Vec<_>>());
    assert_success(&o, "track in one process");
    let a = args(&three);
    let o = mpirun(3, &a.iter().map(|s| s.as_str()).collect::<Vec<_>>());
    assert_success(&o, "track on three ranks");
    let result = |dir: &Path| -> motionlab::track::TrackResult {
        motionlab::files::read_ron(&dir.join("result.ron")).unwrap()
    };
    let (single, spread) = (result(&one), result(&three));
    assert_eq!(spread.hash, single.hash, "trajectory hash");
    assert_eq!(spread.windows, single.windows, "every window's samples");
    assert_eq!(spread.threads, 3, "three ranks of one thread each");
    assert_eq!(stdout(&o).matches("hash ").count(), 1);
}
