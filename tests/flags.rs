//! Every subcommand and flag of the command line run at least once, each checked for what it
//! does (docs/, each page's "Commands and panels"). Flags other test files already exercise (`simulate
//! --seconds/--out`, `explore --variants/--generations/--seed/--threads/--out`, `gait --discover`
//! and its options, …) appear here only where a test needs them; the report of which test covers
//! which flag is in each test's doc comment.
//!
//! Runs are kept small (one or a few generations, capped IPOPT solves, fractions of a second of
//! simulation). IPOPT's path depends on the BLAS kernels of the machine, so for spacetime solves
//! only echoed options, feasibility and exit codes are asserted, never iteration counts or costs.
//!
//! This file: `simulate`, `robustness`, `bench`, `--version` and `--help`; the searches are in
//! flags_explore.rs, the spacetime solver in flags_gait.rs, the app in flags_gui.rs.

mod common;

use common::cli::*;
use common::{assert_success, motionlab, stderr, stdout};
use std::path::Path;
use std::process::Output;

// ---------------------------------------------------------------------------------------------
// simulate

/// `simulate --pd explicit`, `--pd implicit` and `--pd stable`: explicit PD torques step at 4 kHz,
/// implicit motors and stable PD at 120 Hz, and the flag overrides a scene's own PD mode.
#[test]
fn simulate_pd_flag_selects_the_controller_and_its_time_step() {
    let o = motionlab(&["simulate", HUMAN3D, "--pd", "explicit", "--seconds", "0.3"]);
    assert_success(&o, "simulate --pd explicit");
    let out = stdout(&o);
    assert_eq!(
        field(&out, "pd"),
        "Explicit, dt: 0.000250 s, gain_scale: 1",
        "{out}"
    );
    assert_eq!(field(&out, "simulated"), "0.300 s (1200 steps)", "{out}");
    assert_eq!(field(&out, "fell"), "false", "{out}");

    // The scene asks for explicit PD; --pd implicit overrides it.
    let scene = "scenes/stand_human2d_explicit.ron";
    let own = motionlab(&["simulate", scene, "--seconds", "0.3"]);
    assert_success(&own, "simulate scene");
    let implicit = motionlab(&["simulate", scene, "--seconds", "0.3", "--pd", "implicit"]);
    assert_success(&implicit, "simulate scene --pd implicit");
    let (own, implicit) = (stdout(&own), stdout(&implicit));
    assert!(
        field(&own, "pd").starts_with("Explicit, dt: 0.000250 s"),
        "{own}"
    );
    assert!(
        field(&implicit, "pd").starts_with("Implicit, dt: 0.008333 s"),
        "{implicit}"
    );
    assert_eq!(field(&implicit, "simulated"), "0.300 s (36 steps)");
    assert_ne!(field(&own, "hash"), field(&implicit, "hash"));

    // Stable PD holds the standing human at 120 Hz, on its own path.
    let stable = motionlab(&["simulate", HUMAN3D, "--pd", "stable", "--seconds", "2"]);
    assert_success(&stable, "simulate --pd stable");
    let stable = stdout(&stable);
    assert!(
        field(&stable, "pd").starts_with("Stable, dt: 0.008333 s"),
        "{stable}"
    );
    assert_eq!(field(&stable, "fell"), "false", "{stable}");
    let implicit = stdout(&motionlab(&[
        "simulate",
        HUMAN3D,
        "--pd",
        "implicit",
        "--seconds",
        "2",
    ]));
    assert_ne!(field(&stable, "hash"), field(&implicit, "hash"));
}

/// `simulate --gain-scale 0`, `--friction`, `--restitution`, `--dt` (and `--pd implicit` on a
/// character): without actuation human3d falls, and on the ground every one of these changes
/// the trajectory; given their documented defaults explicitly they change nothing.
#[test]
fn simulate_ground_and_step_flags_change_a_fall() {
    let run = |extra: &[&str]| {
        let mut args = vec!["simulate", HUMAN3D, "--seconds", "2", "--gain-scale", "0"];
        args.extend_from_slice(extra);
        let o = motionlab(&args);
        assert_success(&o, &format!("simulate {extra:?}"));
        let out = stdout(&o);
        assert_eq!(field(&out, "fell"), "true", "{extra:?}:\n{out}");
        out
    };
    let base = run(&[]);
    assert_eq!(
        field(&base, "pd"),
        "Implicit, dt: 0.008333 s, gain_scale: 0",
        "{base}"
    );
    // The defaults (implicit PD, friction 0.8, restitution 0) spelled out: the same run.
    let defaults = run(&[
        "--pd",
        "implicit",
        "--friction",
        "0.8",
        "--restitution",
        "0",
    ]);
    assert_eq!(base, defaults);
    for extra in [
        &["--friction", "0"][..],
        &["--friction", "2"][..],
        &["--restitution", "1"][..],
    ] {
        let out = run(extra);
        assert_ne!(field(&out, "hash"), field(&base, "hash"), "{extra:?}");
    }
    let fine = run(&["--dt", "0.004"]);
    assert_eq!(
        field(&fine, "pd"),
        "Implicit, dt: 0.004000 s, gain_scale: 0"
    );
    assert_eq!(field(&fine, "simulated"), "2.000 s (500 steps)", "{fine}");
    assert_ne!(field(&fine, "hash"), field(&base, "hash"));
}

// ---------------------------------------------------------------------------------------------
// robustness

/// `robustness --resume` and `--threads`: a sweep killed after its first checkpoint and resumed
/// (on all cores) ends with the same result, byte for byte, as one run straight through on 2
/// threads; the interrupted run used 1. Resuming a folder without a checkpoint names the file.
#[test]
fn robustness_resumes_an_interrupted_sweep_to_the_same_result() {
    use motionlab::analysis::robustness::{RobustnessSweep, SweepConfig, SweepState};
    use motionlab::jobs::Job;
    let dir = tempfile::tempdir().unwrap();
    let (cut, straight) = (dir.path().join("cut"), dir.path().join("straight"));
    let run = |out: &Path, extra: &[&str]| {
        let mut args = vec!["robustness", HUMAN2D, "--out", s(out)];
        args.extend_from_slice(extra);
        args.iter().map(|a| a.to_string()).collect::<Vec<_>>()
    };
    let args = run(&cut, &["--threads", "1"]);
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    if !interrupt_at_first_checkpoint(&args, &cut) {
        // The sweep finished before the kill: checkpoint it after one round ourselves.
        eprintln!("the sweep finished before it was killed; resuming from a written checkpoint");
        let character = motionlab::model::load_character(Path::new(HUMAN2D)).unwrap();
        let mut job = RobustnessSweep::new(
            character,
            motionlab::sim::SimSettings::default(),
            SweepConfig::default(),
        )
        .unwrap();
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(1)
            .build()
            .unwrap();
        job.step(&pool).unwrap();
        std::fs::write(cut.join("checkpoint.ron"), job.checkpoint().unwrap()).unwrap();
    }
    let checkpoint: SweepState =
        motionlab::files::from_ron(&std::fs::read_to_string(cut.join("checkpoint.ron")).unwrap())
            .unwrap();

    let args = run(&cut, &["--resume"]);
    let resumed = motionlab(&args.iter().map(String::as_str).collect::<Vec<_>>());
    assert_success(&resumed, "robustness --resume");
    let args = run(&straight, &["--threads", "2"]);
    let whole = motionlab(&args.iter().map(String::as_str).collect::<Vec<_>>());
    assert_success(&whole, "robustness --threads 2");

    let text = |d: &Path| std::fs::read_to_string(d.join("result.ron")).unwrap();
    assert_eq!(
        text(&cut),
        text(&straight),
        "resumed and uninterrupted sweeps differ"
    );
    assert!(
        !cut.join("checkpoint.ron").exists(),
        "a finished sweep removes its checkpoint"
    );
    let result: SweepState = motionlab::files::from_ron(&text(&straight)).unwrap();
    assert!(
        checkpoint.rounds >= 1 && checkpoint.rounds < result.rounds,
        "the sweep was resumed after round {} of {}",
        checkpoint.rounds,
        result.rounds
    );
    let report = |o: &Output| -> Vec<String> {
        stdout(o)
            .lines()
            .filter(|l| !l.starts_with("result: "))
            .map(String::from)
            .collect()
    };
    assert_eq!(report(&resumed), report(&whole));
    assert_eq!(
        report(&whole)
            .iter()
            .filter(|l| l.starts_with("direction "))
            .count(),
        8
    );
    // Resuming the finished sweep reports its result again.
    let again = motionlab(&["robustness", HUMAN2D, "--out", s(&cut), "--resume"]);
    assert_success(&again, "robustness --resume on a finished sweep");
    assert_eq!(report(&again), report(&whole));
    assert!(
        stderr(&again).contains("holds a finished robustness sweep"),
        "{}",
        stderr(&again)
    );

    let empty = dir.path().join("empty");
    let o = motionlab(&["robustness", HUMAN2D, "--out", s(&empty), "--resume"]);
    assert_fails_with(
        &o,
        &format!(
            "reading checkpoint {}",
            empty.join("checkpoint.ron").display()
        ),
    );
}

// ---------------------------------------------------------------------------------------------
// bench

/// `bench sim --quick --characters DIR`: the characters are read from DIR, in order; a folder
/// holding only human2d measures it and then names the missing human3d.ron.
#[test]
fn bench_reads_the_characters_from_the_given_folder() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::copy(HUMAN2D, dir.path().join("human2d.ron")).unwrap();
    let o = motionlab(&["bench", "sim", "--quick", "--characters", s(dir.path())]);
    assert_fails_with(&o, &dir.path().join("human3d.ron").display().to_string());
    let out = stdout(&o);
    let lines: Vec<&str> = out.lines().collect();
    assert_eq!(lines.len(), 2, "{out}");
    for (line, metric) in lines
        .iter()
        .zip(["steps_per_second", "rollouts_per_second"])
    {
        let v: f64 = line
            .strip_prefix(&format!("{metric} human2d "))
            .unwrap_or_else(|| panic!("{metric} human2d in:\n{out}"))
            .parse()
            .unwrap();
        assert!(v > 0.0, "{line}");
    }
}

/// `bench gait --seeds N` times `motionlab gait`'s own pipeline: the simple biped's file asks
/// for a pair of starts on half a mirror-symmetric cycle (528 variables against the whole
/// cycle's 1,026), so each seed's line names two starts and the half cycle, and the spread line
/// counts the seeds; a case that does not exist and the single solves' flags are refused.
#[cfg(feature = "ipopt")]
#[test]
fn bench_gait_seeds_times_the_character_files_pipeline() {
    let o = motionlab(&[
        "bench",
        "gait",
        "--seeds",
        "1",
        "--case",
        "simple_biped",
        "--quick",
        "--solver",
        "ipopt",
    ]);
    assert_success(&o, "bench gait --seeds 1");
    let out = stdout(&o);
    let lines: Vec<&str> = out.lines().filter(|l| l.starts_with("pipeline ")).collect();
    assert_eq!(lines.len(), 1, "{out}");
    assert!(
        lines[0].starts_with(
            "pipeline gait simple_biped solver ipopt seed 0 starts 2 mirror_half true variables 528 "
        ),
        "{out}"
    );
    let starts = lines[0].split_whitespace().last().unwrap();
    assert_eq!(starts.split(',').count(), 2, "{out}");
    assert!(
        out.lines()
            .any(|l| l.starts_with("pipeline_spread gait simple_biped solver ipopt seeds 1 ")),
        "{out}"
    );
    assert!(
        !out.contains("horse"),
        "--case keeps the biped only:\n{out}"
    );
    let o = motionlab(&["bench", "gait", "--seeds", "1", "--case", "dog"]);
    assert!(!o.status.success());
    assert!(
        String::from_utf8_lossy(&o.stderr).contains("--case \"dog\" names no case"),
        "{}",
        String::from_utf8_lossy(&o.stderr)
    );
    let o = motionlab(&["bench", "gait", "--seeds", "1", "--starts", "3"]);
    assert!(!o.status.success());
    assert!(
        String::from_utf8_lossy(&o.stderr).contains("--seeds times the character files' own"),
        "{}",
        String::from_utf8_lossy(&o.stderr)
    );
}

/// `bench gait --quick --solver ipopt`: one capped L-BFGS solve each of the simple biped walking
/// at 0.7 m/s and the horse trotting at 1 m/s (period 0.8), projected onto the constraints.
#[cfg(feature = "ipopt")]
#[test]
fn bench_gait_quick_times_the_biped_and_the_horse() {
    let o = motionlab(&["bench", "gait", "--quick", "--solver", "ipopt"]);
    assert_success(&o, "bench gait --quick");
    let out = stdout(&o);
    let stages: Vec<&str> = out.lines().filter(|l| l.starts_with("stage ")).collect();
    assert_eq!(stages.len(), 2, "{out}");
    assert!(
        stages.iter().all(|l| l.starts_with("stage lbfgs ")),
        "--quick stops within the L-BFGS stage:\n{out}"
    );
    let gaits: Vec<&str> = out.lines().filter(|l| l.starts_with("gait ")).collect();
    assert_eq!(gaits.len(), 2, "{out}");
    assert!(
        gaits[0].starts_with(
            "gait simple_biped solver ipopt seed 0 barrier adaptive speed 0.7 period 1 "
        ),
        "{out}"
    );
    assert!(
        gaits[1].starts_with("gait horse solver ipopt seed 0 barrier adaptive speed 1 period 0.8 "),
        "{out}"
    );
    for line in gaits {
        let w: Vec<&str> = line.split_whitespace().collect();
        let at = |key: &str| -> f64 {
            let k = w
                .iter()
                .position(|t| *t == key)
                .unwrap_or_else(|| panic!("{key}: {line}"));
            w[k + 1].parse().unwrap()
        };
        assert!(at("wall_s") > 0.0 && at("iterations") > 0.0, "{line}");
        assert!(at("cost").is_finite(), "{line}");
        assert!(at("max_violation") <= 1e-6 && at("audit") <= 1e-6, "{line}");
    }
}

// ---------------------------------------------------------------------------------------------
// explore, replay, summarize

/// `--version` and `help SUBCOMMAND`.
#[test]
fn version_and_help() {
    let o = motionlab(&["--version"]);
    assert_success(&o, "--version");
    assert_eq!(
        stdout(&o).trim(),
        format!("motionlab {}", env!("CARGO_PKG_VERSION"))
    );
    let o = motionlab(&["help", "explore"]);
    assert_success(&o, "help explore");
    assert!(
        stdout(&o).contains("--k-placement <K_PLACEMENT>"),
        "{}",
        stdout(&o)
    );
}

// ---------------------------------------------------------------------------------------------
// gui (under Xvfb, as in tests/gui.rs)
