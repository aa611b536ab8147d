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

/// `motionlab COMMAND… --out DIR` in one process (into `dir/one`), then under `mpirun -np 3`
/// (into `dir/three`); both must succeed. The 3-rank run's output.
fn alone_then_on_three_ranks(command: &[&str], dir: &Path) -> Output {
    let run = |out: &str, ranks: usize| {
        let mut args = command.to_vec();
        let out = dir.join(out);
        args.extend(["--threads", "1", "--out", out.to_str().unwrap()]);
        let o = if ranks == 1 {
            motionlab(&args)
        } else {
            mpirun(ranks, &args)
        };
        assert_success(&o, &format!("{} on {ranks} rank(s)", command[0]));
        o
    };
    run("one", 1);
    run("three", 3)
}

/// A short diversity search (Agrawal et al. 2014) on the 2-D jump: 2 variants, 6 generations.
#[test]
fn explore_over_three_ranks_gives_the_single_process_result() {
    let tmp = tempfile::tempdir().unwrap();
    let command = [
        "explore",
        "scenes/jump_high2d.ron",
        "--variants",
        "2",
        "--generations",
        "6",
    ];
    let o = alone_then_on_three_ranks(&command, tmp.path());
    let single = read(&tmp.path().join("one/result.ron"));
    assert!(
        single.contains("hash: \""),
        "a result with trajectory hashes"
    );
    assert_eq!(
        read(&tmp.path().join("three/result.ron")),
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

/// RMOO (Agrawal 2015) on the 2-D jump's front, 8 generations.
#[test]
fn a_pareto_run_over_three_ranks_gives_the_single_process_result() {
    let tmp = tempfile::tempdir().unwrap();
    let command = ["pareto", "scenes/pareto_jump2d.ron", "--generations", "8"];
    let o = alone_then_on_three_ranks(&command, tmp.path());
    let single = read(&tmp.path().join("one/result.ron"));
    assert!(single.contains("hypervolume"), "a Pareto result");
    assert_eq!(
        read(&tmp.path().join("three/result.ron")),
        single,
        "three ranks gave another front"
    );
    assert_eq!(stdout(&o).matches("hypervolume ").count(), 1);
}

/// Keys-to-Sim (Borer et al. 2018) on the first 0.75 s of the human's hanging jump, at small
/// settings: the result also records its wall time, so the hash and windows are compared.
#[test]
fn a_tracking_search_over_three_ranks_gives_the_single_process_trajectory() {
    let tmp = tempfile::tempdir().unwrap();
    let command = [
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
    ];
    let o = alone_then_on_three_ranks(&command, tmp.path());
    let result = |dir: &str| -> motionlab::track::TrackResult {
        motionlab::files::read_ron(&tmp.path().join(dir).join("result.ron")).unwrap()
    };
    let (single, spread) = (result("one"), result("three"));
    assert_eq!(spread.hash, single.hash, "trajectory hash");
    assert_eq!(spread.windows, single.windows, "every window's samples");
    assert_eq!(spread.threads, 3, "three ranks of one thread each");
    assert_eq!(stdout(&o).matches("hash ").count(), 1);
}

/// The motionlab processes whose parent is `pid` (from /proc): the ranks `mpirun` started.
fn ranks_of(pid: u32) -> Vec<u32> {
    let mut out = Vec::new();
    for e in std::fs::read_dir("/proc").unwrap().flatten() {
        let Ok(child) = e.file_name().to_string_lossy().parse::<u32>() else {
            continue;
        };
        let Ok(stat) = std::fs::read_to_string(e.path().join("stat")) else {
            continue;
        };
        // pid (comm) state ppid …: the command may hold spaces, so read after its ')'.
        let after = &stat[stat.rfind(')').unwrap() + 2..];
        let ppid: u32 = after.split(' ').nth(1).unwrap().parse().unwrap();
        let comm = std::fs::read_to_string(e.path().join("comm")).unwrap_or_default();
        if ppid == pid && comm.trim() == "motionlab" {
            out.push(child);
        }
    }
    out.sort();
    out
}

/// A rank killed with SIGKILL mid-run ends the whole job with MPI's error naming the signal; the
/// checkpoint of the last finished generation stays valid, and resuming it on two ranks gives
/// the uninterrupted single process's result byte for byte.
#[test]
fn a_killed_rank_ends_the_job_and_its_checkpoint_resumes_on_two_ranks() {
    let tmp = tempfile::tempdir().unwrap();
    let (whole, cut) = (tmp.path().join("whole"), tmp.path().join("cut"));
    let args = |out: &Path| -> Vec<String> {
        [
            "explore",
            "scenes/jump_high2d.ron",
            "--variants",
            "2",
            "--generations",
            "30",
            "--stall",
            "0",
            "--threads",
            "1",
            "--out",
            out.to_str().unwrap(),
        ]
        .map(String::from)
        .to_vec()
    };
    let a = args(&whole);
    assert_success(
        &motionlab(&a.iter().map(|s| s.as_str()).collect::<Vec<_>>()),
        "explore in one process",
    );

    let job = Command::new("mpirun")
        .args(["--allow-run-as-root", "--oversubscribe", "-np", "3"])
        .arg(env!("CARGO_BIN_EXE_motionlab"))
        .args(args(&cut))
        .arg("--mpi")
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .expect("mpirun");
    let checkpoint = cut.join("checkpoint.ron");
    let started = std::time::Instant::now();
    while !checkpoint.exists() {
        assert!(
            started.elapsed().as_secs() < 600,
            "no checkpoint after 10 minutes"
        );
        std::thread::sleep(std::time::Duration::from_millis(50));
    }
    let ranks = ranks_of(job.id());
    assert_eq!(ranks.len(), 3, "three rank processes under mpirun");
    let killed = Command::new("kill")
        .args(["-9", &ranks[2].to_string()])
        .status()
        .unwrap();
    assert!(killed.success());
    let o = job.wait_with_output().unwrap();
    assert!(!o.status.success(), "the job went on without a rank");
    let said = format!("{}{}", stdout(&o), stderr(&o));
    assert!(
        said.contains("signal 9"),
        "MPI names the killed rank:\n{said}"
    );
    assert!(
        !cut.join("result.ron").exists(),
        "a result written by a job that lost a rank"
    );
    let text = read(&checkpoint);
    motionlab::diversity::explore::DiversityJob::from_checkpoint(&text)
        .expect("the checkpoint left behind is valid");

    let mut a = args(&cut);
    a.push("--resume".into());
    let o = mpirun(2, &a.iter().map(|s| s.as_str()).collect::<Vec<_>>());
    assert_success(&o, "resume on two ranks");
    assert_eq!(
        read(&cut.join("result.ron")),
        read(&whole.join("result.ron")),
        "the resumed job ended elsewhere"
    );
}

/// A parameter space's points shared among 3 ranks (each claims the next point ready), then its
/// connections, then merged by rank 0: the clips and manifest of one process's solve.
#[cfg(feature = "ipopt")]
#[test]
fn a_space_over_three_ranks_gives_the_single_process_space() {
    let tmp = tempfile::tempdir().unwrap();
    let command = ["space", "generate", "tests/data/spaces/monoped_hops.ron"];
    let o = alone_then_on_three_ranks(&command, tmp.path());
    assert_eq!(stdout(&o).matches("6 points, 2 connections").count(), 1);
    assert_same_space(&tmp.path().join("one"), &tmp.path().join("three"));
}

/// A gait discovery's samples spread over 3 ranks: the same gait as one process.
#[cfg(feature = "ipopt")]
#[test]
fn a_discovery_over_three_ranks_gives_the_single_process_gait() {
    let tmp = tempfile::tempdir().unwrap();
    let args = |out: &Path| -> Vec<String> {
        [
            "gait",
            "characters/monoped.ron",
            "--speed",
            "0.7",
            "--discover",
            "--generations",
            "2",
            "--population",
            "4",
            "--sample-iterations",
            "40",
            "--max-iterations",
            "150",
            "--seed",
            "3",
            "--period-range",
            "0.4:0.8",
            "--threads",
            "1",
            "--out",
            out.to_str().unwrap(),
        ]
        .map(String::from)
        .to_vec()
    };
    let (one, three) = (tmp.path().join("one.ron"), tmp.path().join("three.ron"));
    let a = args(&one);
    let o = motionlab(&a.iter().map(String::as_str).collect::<Vec<_>>());
    assert_success(&o, "gait --discover");
    let b = args(&three);
    let o = mpirun(3, &b.iter().map(String::as_str).collect::<Vec<_>>());
    assert_success(&o, "gait --discover on 3 ranks");
    assert_eq!(
        stdout(&o).matches("\ncost ").count(),
        1,
        "rank 0 alone prints"
    );
    let without_time = |p: &Path| -> String {
        read(p)
            .lines()
            .filter(|l| !l.contains("solve_time_s"))
            .collect::<Vec<_>>()
            .join("\n")
    };
    assert_eq!(without_time(&three), without_time(&one), "the gait clip");
}
