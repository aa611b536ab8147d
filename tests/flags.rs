//! Every subcommand and flag of the command line run at least once, each checked for what it
//! does (docs/, each page's "Commands and panels"). Flags other test files already exercise (`simulate
//! --seconds/--out`, `explore --variants/--generations/--seed/--threads/--out`, `gait --discover`
//! and its options, …) appear here only where a test needs them; the report of which test covers
//! which flag is in each test's doc comment.
//!
//! Runs are kept small (one or a few generations, capped IPOPT solves, fractions of a second of
//! simulation). IPOPT's path depends on the BLAS kernels of the machine, so for spacetime solves
//! only echoed options, feasibility and exit codes are asserted, never iteration counts or costs.

mod common;

use common::{assert_success, motionlab, stderr, stdout};
use motionlab::diversity::explore::{ExploreMetric, ExploreResult, load_result};
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::sync::OnceLock;
use std::time::{Duration, Instant};

const ROOT: &str = env!("CARGO_MANIFEST_DIR");
const BACKFLIP: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/scenes/backflip2d.ron");
const HUMAN2D: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/characters/human2d.ron");
const HUMAN3D: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/characters/human3d.ron");
#[cfg(feature = "ipopt")]
const MONOPED: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/characters/monoped.ron");

/// The value after `key: ` on the one line that starts with it.
fn field(out: &str, key: &str) -> String {
    let prefix = format!("{key}: ");
    let lines: Vec<&str> = out.lines().filter(|l| l.starts_with(&prefix)).collect();
    assert_eq!(lines.len(), 1, "expected one `{key}:` line in:\n{out}");
    lines[0][prefix.len()..].to_string()
}

/// The value after `key ` on the one line that starts with it.
#[cfg_attr(not(feature = "ipopt"), allow(dead_code))]
fn value(out: &str, key: &str) -> String {
    let prefix = format!("{key} ");
    let lines: Vec<&str> = out.lines().filter(|l| l.starts_with(&prefix)).collect();
    assert_eq!(lines.len(), 1, "expected one `{key}` line in:\n{out}");
    lines[0][prefix.len()..].to_string()
}

/// The command failed with `expected` in its error, and did not panic.
fn assert_fails_with(o: &Output, expected: &str) {
    let err = stderr(o);
    assert!(
        !o.status.success(),
        "expected a failure with {expected:?}, but it succeeded:\n{}",
        stdout(o)
    );
    assert!(err.contains(expected), "expected {expected:?} in:\n{err}");
    assert!(!err.contains("panicked"), "{err}");
}

fn close(a: f64, b: f64) -> bool {
    (a - b).abs() <= 1e-9 * a.abs().max(b.abs()).max(1.0)
}

/// `path` as the &str the command line takes.
fn s(path: &Path) -> &str {
    path.to_str().unwrap()
}

/// A copy of `scenes/<name>` in `dir` with its character path made absolute, for commands that
/// write beside the scene (`prepare` keeps its best seed in `<scene>.seed.txt`).
fn scene_copy(dir: &Path, name: &str) -> PathBuf {
    let text = std::fs::read_to_string(Path::new(ROOT).join("scenes").join(name))
        .unwrap()
        .replace("../characters/", &format!("{ROOT}/characters/"));
    let path = dir.join(name);
    std::fs::write(&path, text).unwrap();
    path
}

/// Runs `motionlab ARGS` as a child process until it has written `dir/checkpoint.ron` (a job
/// checkpoints after every step), then kills it. True when the kill landed mid-run: the
/// checkpoint is there to resume from and no result was written. False when the child had
/// finished first; its checkpoint and result are then removed, for the caller to write a
/// checkpoint of its own.
fn interrupt_at_first_checkpoint(args: &[&str], dir: &Path) -> bool {
    let mut child = Command::new(env!("CARGO_BIN_EXE_motionlab"))
        .args(args)
        .current_dir(ROOT)
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .expect("starting motionlab");
    let checkpoint = dir.join("checkpoint.ron");
    let start = Instant::now();
    loop {
        if checkpoint.exists() {
            child.kill().unwrap();
            break;
        }
        if let Some(status) = child.try_wait().unwrap() {
            assert!(status.success(), "{args:?} failed: {status}");
            break;
        }
        if start.elapsed() > Duration::from_secs(300) {
            child.kill().unwrap();
            child.wait().unwrap();
            panic!("{args:?} wrote no checkpoint in 300 s");
        }
        std::thread::sleep(Duration::from_millis(5));
    }
    child.wait().unwrap();
    let result = dir.join("result.ron");
    if checkpoint.exists() && !result.exists() {
        true
    } else {
        let _ = std::fs::remove_file(&checkpoint);
        let _ = std::fs::remove_file(&result);
        false
    }
}

// ---------------------------------------------------------------------------------------------
// simulate

/// `simulate --pd explicit` and `--pd implicit`: explicit PD torques step at 4 kHz, implicit
/// motors at 120 Hz, and the flag overrides a scene's own PD mode.
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

/// `bench gait --quick`: one capped L-BFGS solve each of the simple biped walking at 0.7 m/s
/// and the horse trotting at 1 m/s (period 0.8), projected onto the constraints.
#[cfg(feature = "ipopt")]
#[test]
fn bench_gait_quick_times_the_biped_and_the_horse() {
    let o = motionlab(&["bench", "gait", "--quick"]);
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
        gaits[0].starts_with("gait simple_biped speed 0.7 period 1 "),
        "{out}"
    );
    assert!(
        gaits[1].starts_with("gait horse speed 1 period 0.8 "),
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

/// An exploration of backflip2d with 2 variants: its result, the result file and its text.
struct Explored {
    result: ExploreResult,
    text: String,
    path: PathBuf,
}

/// `explore backflip2d --variants 2 --generations G EXTRA --out DIR`; checks that the printed
/// `variant` and `diversity` lines are the result's.
fn explore(dir: &Path, generations: &str, extra: &[&str]) -> Explored {
    let mut args = vec![
        "explore",
        BACKFLIP,
        "--variants",
        "2",
        "--generations",
        generations,
        "--out",
        s(dir),
    ];
    args.extend_from_slice(extra);
    let o = motionlab(&args);
    assert_success(&o, &format!("explore {extra:?}"));
    let out = stdout(&o);
    let path = dir.join("result.ron");
    let result = load_result(&path).unwrap();
    let mut expected: Vec<String> = result
        .motions
        .iter()
        .skip(1)
        .map(|m| {
            format!(
                "variant {} penalty {:.4} min_distance {:.4}",
                m.index, m.penalty, m.min_distance
            )
        })
        .collect();
    expected.push(format!("diversity {:.4}", result.diversity));
    assert_eq!(out.lines().collect::<Vec<_>>(), expected, "{extra:?}");
    assert_eq!(result.motions.len(), 3);
    Explored {
        text: std::fs::read_to_string(&path).unwrap(),
        result,
        path,
    }
}

/// The plain exploration (K = 10 inside the sum, the task's metric wja, motion mode, seed 1,
/// strength 1, round-robin, σ the task's), shared by the tests that compare against it. Its
/// folder is gone; the result text is kept.
fn baseline() -> &'static Explored {
    static BASELINE: OnceLock<Explored> = OnceLock::new();
    BASELINE.get_or_init(|| {
        let dir = tempfile::tempdir().unwrap();
        explore(dir.path(), "1", &["--seed", "1"])
    })
}

/// D of eq. (1) recomputed from a result's distances and penalties with weight `k_eff` on
/// d_min: Σ_i (−C_i + Σ_j d_ij + K_eff·min_{j≠i} d_ij).
fn diversity_of(r: &ExploreResult, k_eff: f64) -> f64 {
    r.motions
        .iter()
        .enumerate()
        .map(|(i, m)| {
            let others = m
                .distances
                .iter()
                .enumerate()
                .filter(|(j, _)| *j != i)
                .map(|(_, d)| *d);
            let sum: f64 = others.clone().sum();
            let min = others.fold(f64::INFINITY, f64::min);
            -m.penalty + sum + k_eff * min
        })
        .sum()
}

/// `explore --k` and `--k-placement inside|outside`: D weighs d_min by K·(N+1) inside the sum
/// (the default) and by K outside it, as recomputed from the result's distances; the config
/// records both. A negative K and an unknown placement are refused.
#[test]
fn explore_k_and_k_placement_weigh_the_smallest_distance() {
    use motionlab::diversity::KPlacement;
    let dir = tempfile::tempdir().unwrap();
    let base = baseline();
    let small = explore(
        &dir.path().join("k"),
        "1",
        &["--k", "2.5", "--k-placement", "inside"],
    );
    let outside = explore(&dir.path().join("out"), "1", &["--k-placement", "outside"]);
    assert_eq!(base.result.config.k, 10.0);
    assert_eq!(base.result.config.placement, KPlacement::InsideSum);
    assert_eq!(small.result.config.k, 2.5);
    assert_eq!(small.result.config.placement, KPlacement::InsideSum);
    assert_eq!(outside.result.config.k, 10.0);
    assert_eq!(outside.result.config.placement, KPlacement::OutsideSum);
    // N = 2 variants, 3 motions: inside K_eff = 3K.
    for (name, r, k_eff, other) in [
        ("K 10 inside", &base.result, 30.0, 10.0),
        ("K 2.5 inside", &small.result, 7.5, 30.0),
        ("K 10 outside", &outside.result, 10.0, 30.0),
    ] {
        assert!(
            r.motions.iter().skip(1).any(|m| m.min_distance > 0.0),
            "{name}: no variant moved"
        );
        let d = diversity_of(r, k_eff);
        assert!(
            close(r.diversity, d),
            "{name}: D {} but {d} with K_eff {k_eff}",
            r.diversity
        );
        let wrong = diversity_of(r, other);
        assert!(
            !close(r.diversity, wrong),
            "{name}: D also fits K_eff {other}"
        );
    }
    assert_ne!(outside.result.diversity, base.result.diversity);

    let o = motionlab(&[
        "explore",
        BACKFLIP,
        "--k=-1",
        "--out",
        s(&dir.path().join("neg")),
    ]);
    assert_fails_with(
        &o,
        "invalid value '-1' for '--k <K>': expected a value in [0, 1000000], found -1",
    );
    let o = motionlab(&["explore", BACKFLIP, "--k-placement", "middle"]);
    assert_fails_with(&o, "invalid value 'middle' for '--k-placement");
}

/// `explore --metric md|wja|hf`: the stored distances are those of the chosen metric's
/// features (recomputed here by simulating the motions), not those of the other two; wja is
/// backflip2d's own metric, so `--metric wja` explores exactly as the default. An unknown metric
/// is refused.
#[test]
fn explore_metric_selects_the_motion_distance() {
    use motionlab::task::{Metric, evaluate};
    let dir = tempfile::tempdir().unwrap();
    let task = motionlab::scene::load_scene(Path::new(BACKFLIP))
        .unwrap()
        .task(false)
        .unwrap();
    let metrics = [("md", Metric::Md), ("wja", Metric::Wja), ("hf", Metric::Hf)];
    let squared = |a: &[f64], b: &[f64]| -> f64 {
        assert_eq!(a.len(), b.len());
        a.iter().zip(b).map(|(x, y)| (x - y) * (x - y)).sum()
    };
    for (name, metric) in metrics {
        let e = explore(&dir.path().join(name), "1", &["--metric", name]);
        let r = &e.result;
        assert_eq!(
            r.config.metric,
            Some(ExploreMetric::Motion(metric)),
            "{name}"
        );
        // The variant furthest from the input, and the input.
        let v = r.motions[1..]
            .iter()
            .max_by(|a, b| a.distances[0].total_cmp(&b.distances[0]))
            .unwrap();
        let stored = v.distances[0];
        assert!(stored > 0.0, "{name}: no variant moved");
        assert_eq!(v.motion_distance_to_input, stored, "{name}");
        let x0 = &r.motions[0].params;
        let recomputed: Vec<(Metric, f64)> = metrics
            .iter()
            .map(|&(_, m)| {
                let a = evaluate(&task, &v.params, m).features;
                let b = evaluate(&task, x0, m).features;
                (m, squared(&a, &b))
            })
            .collect();
        for (m, d) in &recomputed {
            if *m == metric {
                assert!(close(*d, stored), "{name}: stored {stored}, recomputed {d}");
            } else {
                assert!(
                    !close(*d, stored),
                    "{name}: the {m:?} distance {d} equals the stored one"
                );
            }
        }
        if metric == Metric::Wja {
            let hashes = |r: &ExploreResult| -> Vec<String> {
                r.motions.iter().map(|m| m.hash.clone()).collect()
            };
            assert_eq!(
                hashes(r),
                hashes(&baseline().result),
                "wja is the task's metric"
            );
        }
    }
    let o = motionlab(&["explore", BACKFLIP, "--metric", "nonsense"]);
    assert_fails_with(
        &o,
        "unknown metric \"nonsense\" (expected hf, md, wja or shape)",
    );
}

/// `explore --mode shape` frees the 10 link-length groups (10 more parameters, `shape.*`) and
/// the variants change shape; `--metric shape` makes the objective the shape distance: with
/// shapes free the stored distances are shape distances, and in `--mode motion`, where link
/// lengths are fixed, every distance is 0.
#[test]
fn explore_shape_mode_frees_link_lengths_and_shape_metric_measures_them() {
    let dir = tempfile::tempdir().unwrap();
    let base = &baseline().result;
    assert!(!base.config.shape_mode);
    assert!(
        base.motions
            .iter()
            .all(|m| m.shape_distance_to_input == 0.0)
    );

    let shape = explore(&dir.path().join("shape"), "1", &["--mode", "shape"]).result;
    assert!(shape.config.shape_mode);
    let n = base.parameter_labels.len();
    assert_eq!(
        shape.parameter_labels.len(),
        n + 10,
        "{:?}",
        shape.parameter_labels
    );
    assert_eq!(shape.parameter_labels[..n], base.parameter_labels[..]);
    assert!(
        shape.parameter_labels[n..]
            .iter()
            .all(|l| l.starts_with("shape.")),
        "{:?}",
        &shape.parameter_labels[n..]
    );
    assert!(shape.motions.iter().all(|m| m.params.len() == n + 10));
    assert!(
        shape
            .motions
            .iter()
            .any(|m| m.shape_distance_to_input > 0.0),
        "no variant changed its links"
    );
    // The objective's distance is still the task's motion metric.
    for m in &shape.motions {
        assert_eq!(m.distances[0], m.motion_distance_to_input);
    }

    let both = explore(
        &dir.path().join("both"),
        "1",
        &["--mode", "shape", "--metric", "shape"],
    )
    .result;
    assert_eq!(both.config.metric, Some(ExploreMetric::Shape));
    for m in &both.motions {
        assert_eq!(m.distances[0], m.shape_distance_to_input);
    }
    assert!(both.motions.iter().any(|m| m.distances[0] > 0.0));

    let fixed = explore(
        &dir.path().join("fixed"),
        "1",
        &["--mode", "motion", "--metric", "shape"],
    )
    .result;
    assert!(!fixed.config.shape_mode);
    assert!(
        fixed
            .motions
            .iter()
            .all(|m| m.distances.iter().all(|d| *d == 0.0))
    );
    let penalties: f64 = fixed.motions.iter().map(|m| m.penalty).sum();
    assert!(close(fixed.diversity, -penalties), "D {}", fixed.diversity);
}

/// `explore --strength 2`: supernatural strength is stored with the result and simulated: the
/// same input parameters give another trajectory (its hash differs from strength 1's), which
/// `replay --variant 0` reproduces.
#[test]
fn explore_strength_changes_the_simulated_motions() {
    let dir = tempfile::tempdir().unwrap();
    let strong = explore(dir.path(), "1", &["--strength", "2"]);
    let base = &baseline().result;
    assert_eq!(strong.result.config.strength, 2.0);
    assert_eq!(base.config.strength, 1.0);
    assert_eq!(strong.result.motions[0].params, base.motions[0].params);
    assert_ne!(
        strong.result.motions[0].hash, base.motions[0].hash,
        "doubled gains and torque limits must change the input motion"
    );
    let o = motionlab(&["replay", s(&strong.path), "--variant", "0"]);
    assert_success(&o, "replay --variant 0");
    assert_eq!(field(&stdout(&o), "hash"), strong.result.motions[0].hash);
}

/// `explore --progressive`: variants are added one at a time, each optimized for its own
/// generations (2 variants × 1 generation), with the round-robin rollout budget; the history
/// shows the active set growing from M0 + M1 to all three motions.
#[test]
fn explore_progressive_adds_one_variant_at_a_time() {
    use motionlab::diversity::Strategy;
    let dir = tempfile::tempdir().unwrap();
    let p = explore(dir.path(), "1", &["--progressive"]).result;
    let base = &baseline().result;
    assert_eq!(p.config.strategy, Strategy::Progressive);
    assert_eq!(base.config.strategy, Strategy::RoundRobin);
    assert_eq!(p.generations, 2, "one generation per variant");
    assert_eq!(p.evaluations, base.evaluations, "same rollout budget");
    let active = |r: &ExploreResult| r.history.iter().map(|h| h.active).collect::<Vec<_>>();
    assert_eq!(active(&p), [2, 2, 3]);
    assert_eq!(active(base), [3, 3]);
    assert_eq!(p.stop, "Some(MaxGenerations)");
}

/// `explore --stall 1`: the search stops as soon as D improves by at most 0.1 % over one
/// generation, before its 10 generations, and not earlier.
#[test]
fn explore_stall_stops_when_d_stops_improving() {
    let dir = tempfile::tempdir().unwrap();
    let r = explore(dir.path(), "10", &["--stall", "1", "--seed", "4"]).result;
    assert_eq!(r.config.stall_generations, 1);
    assert_eq!(r.stop, "Some(Stalled)");
    assert!(r.generations < 10, "{} generations", r.generations);
    let h = &r.history;
    assert_eq!(h.len() as u64, r.generations + 1);
    let stalled = |g: usize| {
        h[g].objective - h[g - 1].objective
            <= 1e-3 * h[g - 1].objective.abs().max(h[g].objective.abs())
    };
    let last = h.len() - 1;
    assert!(stalled(last));
    for g in 2..last {
        assert!(!stalled(g), "generation {g} had stalled already: {h:?}");
    }
    assert_eq!(
        baseline().result.config.stall_generations,
        100,
        "the default"
    );
}

/// `explore --sigma`: the initial CMA-ES step. With σ = 1e-4 the first generation's samples stay
/// within 1e-2 (100 σ) of the input in every coordinate, where the task's σ = 0.05 moves them
/// further. σ = 0 is refused.
#[test]
fn explore_sigma_sets_the_initial_step() {
    let dir = tempfile::tempdir().unwrap();
    let tiny = explore(&dir.path().join("tiny"), "1", &["--sigma", "0.0001"]).result;
    assert_eq!(tiny.config.sigma, Some(1e-4));
    let spread = |r: &ExploreResult| -> f64 {
        let x0 = &r.motions[0].params;
        r.motions[1..]
            .iter()
            .flat_map(|m| m.params.iter().zip(x0).map(|(a, b)| (a - b).abs()))
            .fold(0.0, f64::max)
    };
    let base = &baseline().result;
    assert_eq!(base.config.sigma, None);
    assert!(
        spread(&tiny) < 1e-2,
        "σ 1e-4 moved a parameter by {}",
        spread(&tiny)
    );
    assert!(
        spread(base) > 1e-2,
        "the task's σ moved no parameter past 1e-2"
    );
    let o = motionlab(&[
        "explore",
        BACKFLIP,
        "--sigma",
        "0",
        "--out",
        s(&dir.path().join("zero")),
    ]);
    assert_fails_with(
        &o,
        "invalid value '0' for '--sigma <SIGMA>': expected a value in (0, 10], found 0",
    );
}

/// `explore --resume` (and `--threads`): a search killed after its first checkpoint (running on
/// 1 thread) and resumed on 2 ends bit for bit where an uninterrupted run on 2 threads does:
/// same motions (hashes, parameters), same D, same result file. Resuming without a checkpoint
/// names the missing file.
#[test]
fn explore_resumes_an_interrupted_search_bit_for_bit() {
    use motionlab::diversity::explore::{DiversityJob, ExploreConfig};
    use motionlab::jobs::Job;
    const GENERATIONS: u64 = 5;
    let dir = tempfile::tempdir().unwrap();
    let (cut, straight) = (dir.path().join("cut"), dir.path().join("straight"));
    let g = GENERATIONS.to_string();
    let args = |out: &Path, extra: &[&str]| -> Vec<String> {
        let mut a: Vec<String> = [
            "explore",
            BACKFLIP,
            "--variants",
            "2",
            "--generations",
            g.as_str(),
            "--seed",
            "3",
            "--out",
            s(out),
        ]
        .iter()
        .map(|a| a.to_string())
        .collect();
        a.extend(extra.iter().map(|a| a.to_string()));
        a
    };
    fn refs(a: &[String]) -> Vec<&str> {
        a.iter().map(String::as_str).collect()
    }
    if !interrupt_at_first_checkpoint(&refs(&args(&cut, &["--threads", "1"])), &cut) {
        eprintln!("the search finished before it was killed; resuming from a written checkpoint");
        let mut job = DiversityJob::new(ExploreConfig {
            scene: BACKFLIP.into(),
            variants: 2,
            generations: GENERATIONS,
            seed: 3,
            ..Default::default()
        })
        .unwrap();
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(1)
            .build()
            .unwrap();
        job.step(&pool).unwrap();
        std::fs::write(cut.join("checkpoint.ron"), job.checkpoint().unwrap()).unwrap();
    }
    let checkpoint = std::fs::read_to_string(cut.join("checkpoint.ron")).unwrap();
    let done = DiversityJob::from_checkpoint(&checkpoint)
        .unwrap()
        .search()
        .generations();
    assert!(
        (1..GENERATIONS).contains(&done),
        "resuming after generation {done} of {GENERATIONS}"
    );

    let resumed = motionlab(&refs(&args(&cut, &["--resume", "--threads", "2"])));
    assert_success(&resumed, "explore --resume");
    let whole = motionlab(&refs(&args(&straight, &["--threads", "2"])));
    assert_success(&whole, "explore");
    assert_eq!(stdout(&resumed), stdout(&whole));
    assert!(!cut.join("checkpoint.ron").exists());
    let (a, b) = (
        load_result(&cut.join("result.ron")).unwrap(),
        load_result(&straight.join("result.ron")).unwrap(),
    );
    assert_eq!(a.generations, GENERATIONS);
    assert_eq!(a.diversity, b.diversity);
    for (x, y) in a.motions.iter().zip(&b.motions) {
        assert_eq!(x.hash, y.hash, "motion {}", x.index);
        assert_eq!(x.params, y.params, "motion {}", x.index);
    }
    let text = |d: &Path| std::fs::read_to_string(d.join("result.ron")).unwrap();
    assert_eq!(text(&cut), text(&straight));
    // Resuming the finished run reports its result again, without running or rewriting it.
    let again = motionlab(&refs(&args(&cut, &["--resume"])));
    assert_success(&again, "explore --resume on a finished run");
    assert_eq!(stdout(&again), stdout(&whole));
    assert!(
        stderr(&again).contains("holds a finished exploration"),
        "{}",
        stderr(&again)
    );
    assert_eq!(text(&cut), text(&straight));

    let empty = dir.path().join("empty");
    let o = motionlab(&refs(&args(&empty, &["--resume"])));
    assert_fails_with(
        &o,
        &format!(
            "reading checkpoint {}",
            empty.join("checkpoint.ron").display()
        ),
    );
}

/// `summarize`: one line per result (task, D, D of copies, generations, rollouts), then D over
/// the runs and the mean and standard deviation of every variant's motion and shape distance to
/// the input, as computed here from the two result files. No file, or a missing one, is an
/// error.
#[test]
fn summarize_reports_d_and_distances_over_runs() {
    let dir = tempfile::tempdir().unwrap();
    let first = dir.path().join("first.ron");
    std::fs::write(&first, &baseline().text).unwrap();
    let second = explore(&dir.path().join("second"), "1", &["--seed", "2"]).path;
    let o = motionlab(&["summarize", s(&first), s(&second)]);
    assert_success(&o, "summarize");
    let out = stdout(&o);
    let results: Vec<ExploreResult> = [&first, &second]
        .iter()
        .map(|p| load_result(p).unwrap())
        .collect();
    let mut expected = Vec::new();
    for (p, r) in [&first, &second].iter().zip(&results) {
        assert_eq!(r.task, "backflip2d");
        expected.push(format!(
            "result {} task {} D {:.3} copies {:.3} generations {} rollouts {}",
            p.display(),
            r.task,
            r.diversity,
            r.diversity_of_copies,
            r.generations,
            r.evaluations
        ));
    }
    let stats = |v: &[f64]| {
        let n = v.len() as f64;
        let mean = v.iter().sum::<f64>() / n;
        let sd = (v.iter().map(|x| (x - mean).powi(2)).sum::<f64>() / (n - 1.0).max(1.0)).sqrt();
        (mean, sd)
    };
    let ds: Vec<f64> = results.iter().map(|r| r.diversity).collect();
    let variants = || results.iter().flat_map(|r| r.motions.iter().skip(1));
    let motion: Vec<f64> = variants().map(|m| m.motion_distance_to_input).collect();
    let shape: Vec<f64> = variants().map(|m| m.shape_distance_to_input).collect();
    let zero = variants().filter(|m| m.penalty == 0.0).count();
    expected.push(format!(
        "diversity min {:.3} mean {:.3} max {:.3} over 2 runs",
        ds[0].min(ds[1]),
        stats(&ds).0,
        ds[0].max(ds[1])
    ));
    let (mm, ms) = stats(&motion);
    expected.push(format!(
        "motion_distance_to_input mean {mm:.3} sd {ms:.3} over 4 variants"
    ));
    let (sm, ss) = stats(&shape);
    expected.push(format!("shape_distance_to_input mean {sm:.3} sd {ss:.3}"));
    expected.push(format!("variants_with_zero_penalty {zero}/4"));
    assert_eq!(out.lines().collect::<Vec<_>>(), expected);
    assert!(mm > 0.0, "{out}");

    assert_fails_with(
        &motionlab(&["summarize"]),
        "give one or more result.ron files",
    );
    let missing = dir.path().join("none.ron");
    assert_fails_with(
        &motionlab(&["summarize", s(&first), s(&missing)]),
        &missing.display().to_string(),
    );
}

// ---------------------------------------------------------------------------------------------
// prepare

/// `prepare --continuation FROM:TO:STEPS`: the obstacle's height goes from FROM to TO in STEPS
/// stages; jump_onto2d's seed clears its 0.5 m box (stage 0, nothing to do), but one generation
/// cannot adapt it to 0.4 m, so the continuation stops there and keeps the 0.5 m stage: the
/// scene's own motion. A malformed value, or a scene without an obstacle, is refused.
#[test]
fn prepare_continuation_keeps_the_last_feasible_stage() {
    let dir = tempfile::tempdir().unwrap();
    let scene = scene_copy(dir.path(), "jump_onto2d.ron");
    let o = motionlab(&[
        "prepare",
        s(&scene),
        "--continuation",
        "0.5:0.3:2",
        "--generations",
        "1",
        "--hold",
        "0",
    ]);
    assert_success(&o, "prepare --continuation");
    let out = stdout(&o);
    let stages: Vec<&str> = out.lines().filter(|l| l.starts_with("stage ")).collect();
    assert_eq!(stages.len(), 3, "{out}");
    assert_eq!(stages[0], "stage 0: obstacle height 0.500 m");
    assert_eq!(stages[1], "stage 1: obstacle height 0.400 m");
    assert!(
        stages[2].starts_with("stage 1 not solved (best penalty ")
            && stages[2].ends_with("); keeping the last feasible stage"),
        "{out}"
    );
    let starts: Vec<f64> = out
        .lines()
        .filter_map(|l| {
            l.split_once("start penalty ")
                .map(|(_, v)| v.parse().unwrap())
        })
        .collect();
    assert_eq!(starts.len(), 2, "{out}");
    assert_eq!(starts[0], 0.0, "the seed clears the 0.5 m box");
    assert!(starts[1] > 0.0, "{out}");
    assert!(out.lines().any(|l| l == "obstacle height 0.500 m"), "{out}");
    assert_eq!(field(&out, "penalty"), "0.000", "{out}");
    assert!(out.lines().any(|l| l.starts_with("seed: [")), "{out}");
    // The kept seed is the scene's: the same trajectory as simulating the scene.
    let sim = motionlab(&["simulate", "scenes/jump_onto2d.ron"]);
    assert_success(&sim, "simulate jump_onto2d");
    assert_eq!(field(&out, "hash"), field(&stdout(&sim), "hash"));

    let o = motionlab(&["prepare", s(&scene), "--continuation", "0:0.5"]);
    assert_fails_with(
        &o,
        "--continuation expects FROM:TO:STEPS (e.g. 0:0.5:5), found \"0:0.5\"",
    );
    let flat = scene_copy(dir.path(), "jump_forward2d.ron");
    let o = motionlab(&[
        "prepare",
        s(&flat),
        "--continuation",
        "0:0.5:2",
        "--generations",
        "1",
    ]);
    assert_fails_with(&o, "continuation needs an obstacle in the scene");
}

/// `prepare --robust N:S`, `--seed`, `--threads`: with 4 perturbations of scale 0.2 the start
/// penalty is an average over perturbed seeds (0 without them), the perturbations follow the
/// seed, and 1 or 2 threads give the same run.
#[test]
fn prepare_robust_averages_over_seeded_perturbations() {
    let dir = tempfile::tempdir().unwrap();
    let scene = scene_copy(dir.path(), "jump_forward2d.ron");
    let run = |extra: &[&str]| {
        let mut args = vec!["prepare", s(&scene), "--generations", "1", "--hold", "0"];
        args.extend_from_slice(extra);
        let o = motionlab(&args);
        assert_success(&o, &format!("prepare {extra:?}"));
        let out = stdout(&o);
        let start: f64 = out
            .lines()
            .find_map(|l| l.split_once("start penalty "))
            .unwrap_or_else(|| panic!("{out}"))
            .1
            .parse()
            .unwrap();
        (start, out)
    };
    let (plain, _) = run(&[]);
    assert_eq!(plain, 0.0);
    let (seed1, _) = run(&["--robust", "4:0.2", "--threads", "1"]);
    let (seed2, serial) = run(&["--robust", "4:0.2", "--seed", "2", "--threads", "1"]);
    let (_, parallel) = run(&["--robust", "4:0.2", "--seed", "2", "--threads", "2"]);
    assert!(
        seed1 > 0.0 && seed2 > 0.0,
        "perturbed seeds violate: {seed1}, {seed2}"
    );
    assert_ne!(seed1, seed2, "the perturbations depend on --seed");
    assert_eq!(serial, parallel);
}

// ---------------------------------------------------------------------------------------------
// gait and spacetime (IPOPT)

#[cfg(feature = "ipopt")]
mod spacetime {
    use super::*;
    use motionlab::spacetime::gait::GaitClip;
    use std::collections::HashMap;

    /// `gait characters/monoped.ron --speed 0.5 EXTRA`.
    pub fn gait(extra: &[&str]) -> Output {
        let mut args = vec!["gait", MONOPED, "--speed", "0.5"];
        args.extend_from_slice(extra);
        motionlab(&args)
    }

    /// The exit code follows the printed outcome: success exactly when IPOPT (or the projection
    /// of where it stopped) converged to a gait feasible to 1e-6 of finite cost.
    pub fn assert_exit_matches_validity(o: &Output) {
        let out = stdout(o);
        let ok = |s: &str| s == "solved" || s == "solved_to_acceptable_level";
        let violation: f64 = value(&out, "max_violation").parse().unwrap();
        let cost: f64 = value(&out, "cost").parse().unwrap();
        let valid = (ok(&value(&out, "status")) || ok(&value(&out, "projection_status")))
            && violation <= 1e-6
            && cost.is_finite();
        assert_eq!(o.status.success(), valid, "{out}\n{}", stderr(o));
        if !valid {
            assert!(
                stderr(o).contains("the gait was not solved"),
                "{}",
                stderr(o)
            );
        }
    }

    /// Per IPOPT solve (with `print_user_options=yes`), its table of user-set options.
    pub fn option_blocks(out: &str) -> Vec<HashMap<String, String>> {
        out.split("List of user-set options:")
            .skip(1)
            .map(|block| {
                let mut options = HashMap::new();
                for line in block.lines() {
                    let w: Vec<&str> = line.split_whitespace().collect();
                    if w.len() >= 3 && w[1] == "=" {
                        options
                            .entry(w[0].to_string())
                            .or_insert_with(|| w[2].to_string());
                    }
                }
                options
            })
            .collect()
    }

    /// The iteration lines of the first IPOPT solve's log (`--print-level 5`).
    pub fn first_iterations(out: &str) -> Vec<String> {
        let start = out
            .find("iter    objective")
            .expect("an IPOPT iteration log");
        let end = start + out[start..].find("Number of Iterations").unwrap();
        out[start..end]
            .lines()
            .filter(|l| {
                l.split_whitespace()
                    .next()
                    .is_some_and(|w| w.parse::<usize>().is_ok())
            })
            .map(String::from)
            .collect()
    }

    /// The count IPOPT reports for `Total number of <what>` in its first solve.
    pub fn ipopt_count(out: &str, what: &str) -> usize {
        let prefix = format!("Total number of {what}");
        let line = out
            .lines()
            .find(|l| l.starts_with(&prefix))
            .unwrap_or_else(|| panic!("no {prefix:?} line in:\n{out}"));
        line.rsplit(':').next().unwrap().trim().parse().unwrap()
    }

    /// The lines `gait` prints about the solve (not IPOPT's log, not the timing).
    pub fn report(out: &str) -> Vec<&str> {
        const KEYS: [&str; 13] = [
            "stage ",
            "creature ",
            "foot ",
            "flight: ",
            "double_support: ",
            "overlap ",
            "status ",
            "projection_status ",
            "projected_from_iteration ",
            "cost ",
            "max_violation ",
            "audit_max_violation ",
            "iterations ",
        ];
        out.lines()
            .filter(|l| KEYS.iter().any(|k| l.starts_with(k)))
            .collect()
    }

    pub fn read_clip(path: &Path) -> GaitClip {
        motionlab::jobs::read_ron(path).unwrap()
    }
}

/// `gait --contacts foot:start:duration --period T --hessian lbfgs-then-exact
/// --lbfgs-iterations K --max-iterations M --ipopt name=value (repeated) --print-level 5
/// --out FILE`: the timing is echoed and stored in the clip; IPOPT's own option table shows the
/// L-BFGS stage capped at K iterations with the extra option, then the exact Hessian for the
/// other M − K; print level 5 shows its log. Without `--hessian` and at print level 0 the solve
/// reports the same (lbfgs-then-exact is the default, the print level only prints).
#[cfg(feature = "ipopt")]
#[test]
fn gait_timing_and_staged_solve_options_reach_ipopt() {
    use spacetime::*;
    use std::collections::HashMap;
    let dir = tempfile::tempdir().unwrap();
    let clip_path = dir.path().join("hop.ron");
    let common = [
        "--contacts",
        "shin:0.1:0.4",
        "--period",
        "0.6",
        "--lbfgs-iterations",
        "10",
        "--max-iterations",
        "30",
        "--ipopt",
        "limited_memory_max_history=7",
    ];
    let mut args = common.to_vec();
    args.extend([
        "--hessian",
        "lbfgs-then-exact",
        "--print-level",
        "5",
        "--ipopt",
        "print_user_options=yes",
        "--out",
        s(&clip_path),
    ]);
    let o = gait(&args);
    assert_exit_matches_validity(&o);
    let out = stdout(&o);
    assert!(
        value(&out, "creature").starts_with("monoped speed 0.5 period 0.6 frames 30 variables "),
        "{out}"
    );
    assert_eq!(value(&out, "foot shin start"), "0.1 duration 0.4");
    assert_eq!(
        field(&out, "flight"),
        "true",
        "down 0.4 of the cycle: {out}"
    );
    let stages: Vec<&str> = out.lines().filter(|l| l.starts_with("stage ")).collect();
    assert_eq!(stages.len(), 2, "{out}");
    assert!(stages[0].starts_with("stage lbfgs ") && stages[1].starts_with("stage exact "));
    assert!(out.contains("This is Ipopt version") && out.contains("iter    objective"));
    let blocks = option_blocks(&out);
    let get = |b: &HashMap<String, String>, k: &str| b.get(k).cloned().unwrap_or_default();
    assert_eq!(get(&blocks[0], "hessian_approximation"), "limited-memory");
    assert_eq!(
        get(&blocks[0], "max_iter"),
        "10",
        "--lbfgs-iterations caps stage 1"
    );
    assert_eq!(get(&blocks[0], "limited_memory_max_history"), "7");
    assert_eq!(get(&blocks[0], "print_level"), "5");
    assert!(
        blocks
            .iter()
            .any(|b| get(b, "hessian_approximation") == "exact" && get(b, "max_iter") == "20"),
        "the exact stage gets the other 20 iterations: {blocks:?}"
    );
    let clip = read_clip(&clip_path);
    assert_eq!((clip.speed, clip.period), (0.5, 0.6));
    assert_eq!(clip.timings.len(), 1);
    let t = &clip.timings[0];
    assert_eq!((t.foot.as_str(), t.start, t.duration), ("shin", 0.1, 0.4));
    if o.status.success() {
        let audit: f64 = value(&out, "audit_max_violation").parse().unwrap();
        assert!(clip.max_violation <= 1e-6 && audit <= 1e-6, "{out}");
    }

    let quiet = gait(&common);
    assert_exit_matches_validity(&quiet);
    let quiet = stdout(&quiet);
    assert!(
        !quiet.contains("This is Ipopt version"),
        "print level 0 is silent"
    );
    assert_eq!(report(&quiet), report(&out));
}

/// `gait --hessian exact|gauss-newton|gauss-newton-objective`: a single IPOPT solve (no stages)
/// given the exact-Hessian interface; from the same start (identical iteration 0) the three
/// curvatures take different steps. An unknown mode is refused with the list.
#[cfg(feature = "ipopt")]
#[test]
fn gait_hessian_modes_give_ipopt_their_curvature() {
    use spacetime::*;
    let mut logs = Vec::new();
    for mode in ["exact", "gauss-newton", "gauss-newton-objective"] {
        let o = gait(&[
            "--hessian",
            mode,
            "--max-iterations",
            "15",
            "--print-level",
            "5",
            "--ipopt",
            "print_user_options=yes",
        ]);
        assert_exit_matches_validity(&o);
        let out = stdout(&o);
        assert!(
            !out.lines().any(|l| l.starts_with("stage ")),
            "{mode}: {out}"
        );
        let blocks = option_blocks(&out);
        assert_eq!(blocks[0]["hessian_approximation"], "exact", "{mode}");
        assert_eq!(blocks[0]["max_iter"], "15", "{mode}");
        let iterations = first_iterations(&out);
        assert!(iterations.len() > 2, "{mode}: {out}");
        logs.push((mode, iterations));
    }
    for (mode, log) in &logs[1..] {
        assert_eq!(log[0], logs[0].1[0], "{mode}: another start than exact's");
        assert_ne!(log, &logs[0].1, "{mode} steps like exact");
    }
    assert_ne!(
        logs[1].1, logs[2].1,
        "gauss-newton and gauss-newton-objective step alike"
    );
    let o = gait(&["--hessian", "newton"]);
    assert_fails_with(&o, "invalid value 'newton' for '--hessian <HESSIAN>'");
    assert!(
        stderr(&o).contains("gauss-newton-objective"),
        "{}",
        stderr(&o)
    );
}

/// `gait --seed`: a non-zero seed perturbs the rest-pose initialisation (IPOPT's iteration 0
/// differs from seed 0's) and is stored in the clip.
#[cfg(feature = "ipopt")]
#[test]
fn gait_seed_perturbs_the_starting_pose() {
    use spacetime::*;
    let dir = tempfile::tempdir().unwrap();
    let mut starts = Vec::new();
    for seed in ["0", "7"] {
        let clip = dir.path().join(format!("seed{seed}.ron"));
        let o = gait(&[
            "--seed",
            seed,
            "--hessian",
            "lbfgs",
            "--max-iterations",
            "3",
            "--print-level",
            "5",
            "--out",
            s(&clip),
        ]);
        assert_exit_matches_validity(&o);
        starts.push(first_iterations(&stdout(&o))[0].clone());
        assert_eq!(read_clip(&clip).seed, seed.parse::<u64>().unwrap());
    }
    assert_ne!(starts[0], starts[1], "seed 7 starts where seed 0 does");
}

/// `gait --morphology --min-head-height H`: one more inequality per frame (IPOPT's count), and
/// in the solved clip the head (the monoped's body top, 0.6 m at rest) stays at least 0.65 m
/// high in every frame.
#[cfg(feature = "ipopt")]
#[test]
fn gait_min_head_height_keeps_the_head_up() {
    use motionlab::spacetime::dynamics::forward_kinematics;
    use motionlab::spacetime::skeleton::Skeleton;
    use spacetime::*;
    let dir = tempfile::tempdir().unwrap();
    let plain = gait(&[
        "--morphology",
        "--max-iterations",
        "1",
        "--print-level",
        "5",
    ]);
    let plain = ipopt_count(&stdout(&plain), "inequality constraints");
    let clip_path = dir.path().join("tall.ron");
    let o = gait(&[
        "--morphology",
        "--min-head-height",
        "0.65",
        "--max-iterations",
        "150",
        "--print-level",
        "5",
        "--out",
        s(&clip_path),
    ]);
    assert_success(&o, "gait --morphology --min-head-height");
    let out = stdout(&o);
    let frames: usize = value(&out, "creature")
        .split_whitespace()
        .skip_while(|w| *w != "frames")
        .nth(1)
        .unwrap()
        .parse()
        .unwrap();
    assert_eq!(ipopt_count(&out, "inequality constraints"), plain + frames);
    let violation: f64 = value(&out, "max_violation").parse().unwrap();
    assert!(violation <= 1e-6, "{out}");

    let skeleton = Skeleton::load(MONOPED).unwrap();
    let head = skeleton.head.expect("the monoped names its head");
    let rest = forward_kinematics(
        &skeleton,
        &skeleton.morphology::<f64>(),
        &skeleton.rest_pose(),
    )
    .limbs[head]
        .end
        .y;
    assert!(
        rest < 0.65,
        "the bound must bite: the head is at {rest} m at rest"
    );
    let clip = read_clip(&clip_path);
    assert!(clip.morphology.is_some(), "the clip keeps the body");
    let body = clip.body(&skeleton).unwrap();
    let shape = body.morphology::<f64>();
    assert_eq!(clip.frames.len(), frames);
    for (i, q) in clip.frames.iter().enumerate() {
        let y = forward_kinematics(&body, &shape, q).limbs[head].end.y;
        assert!(y >= 0.65 - 1e-5, "frame {i}: head at {y} m");
    }
}

/// Malformed `gait` input is refused before solving, with what was expected: `--contacts`
/// syntax, an unknown foot, a window outside the cycle, `--period 0`, `--ipopt` without `=`,
/// `--min-head-height` without `--morphology` or not a number.
#[cfg(feature = "ipopt")]
#[test]
fn gait_refuses_malformed_timings_and_options() {
    use spacetime::*;
    for (args, expected) in [
        (
            &["--contacts", "shin:0.1"][..],
            "contacts: expected `foot:start:duration` items separated by commas, found \"shin:0.1\"",
        ),
        (
            &["--contacts", "knee:0:0.5"][..],
            "`knee` is not a foot of this creature (feet: shin)",
        ),
        (
            &["--contacts", "shin:0.2:1.5"][..],
            "foot `shin`: expected start in [0, 1) and duration in (0, 1], found start 0.2, duration 1.5",
        ),
        (
            &["--period", "0"][..],
            "invalid value '0' for '--period <PERIOD>': expected a value in (0, 10] s, found 0",
        ),
        (
            &["--ipopt", "print_level"][..],
            "--ipopt expects name=value, found \"print_level\"",
        ),
        (
            &["--min-head-height", "0.5"][..],
            "the following required arguments were not provided",
        ),
        (
            &["--morphology", "--min-head-height", "NaN"][..],
            "invalid value 'NaN' for '--min-head-height <MIN_HEAD_HEIGHT>': expected a value in [0, 10] m",
        ),
    ] {
        let o = gait(args);
        assert_fails_with(&o, expected);
        // Refused before any solve: nothing of a solve's report is printed.
        assert!(
            !stdout(&o)
                .lines()
                .any(|l| l.starts_with("cost ") || l.starts_with("stage ")),
            "{args:?} ran a solve:\n{}",
            stdout(&o)
        );
    }
}

/// `spacetime particle --print-level 5`: IPOPT's banner, iteration log and exit message, around
/// the same solution as the silent default.
#[cfg(feature = "ipopt")]
#[test]
fn particle_print_level_shows_the_ipopt_log() {
    let quiet = motionlab(&["spacetime", "particle"]);
    assert_success(&quiet, "spacetime particle");
    let loud = motionlab(&["spacetime", "particle", "--print-level", "5"]);
    assert_success(&loud, "spacetime particle --print-level 5");
    let (quiet, loud) = (stdout(&quiet), stdout(&loud));
    for text in [
        "This is Ipopt version",
        "iter    objective",
        "EXIT: Optimal Solution Found.",
    ] {
        assert!(loud.contains(text), "{text:?} missing:\n{loud}");
        assert!(!quiet.contains(text), "{text:?} at print level 0:\n{quiet}");
    }
    assert_eq!(value(&loud, "status"), "solved");
    assert_eq!(value(&loud, "objective"), value(&quiet, "objective"));
}

// ---------------------------------------------------------------------------------------------
// top level

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

#[cfg(feature = "gui")]
mod gui {
    use super::*;
    use std::collections::{HashMap, HashSet};

    pub struct Shot {
        width: u32,
        height: u32,
        channels: usize,
        pixels: Vec<u8>,
    }

    impl Shot {
        pub fn px(&self, x: u32, y: u32) -> [u8; 3] {
            let i = ((y * self.width + x) as usize) * self.channels;
            [self.pixels[i], self.pixels[i + 1], self.pixels[i + 2]]
        }

        /// Pixels of the rectangle [x0, x1) × [y0, y1) (every other one) that `pred` accepts.
        pub fn count(
            &self,
            (x0, x1): (u32, u32),
            (y0, y1): (u32, u32),
            pred: impl Fn([u8; 3]) -> bool,
        ) -> (usize, usize) {
            let mut hits = 0;
            let mut all = 0;
            for y in (y0..y1).step_by(2) {
                for x in (x0..x1).step_by(2) {
                    all += 1;
                    hits += pred(self.px(x, y)) as usize;
                }
            }
            (hits, all)
        }

        /// The left panel's checkboxes, top to bottom, checked or not: egui draws each as a
        /// 14-pixel-high box filled with (60, 60, 60) on the panel's (27, 27, 27), in a column
        /// through x = 15, with a light check mark inside when checked.
        pub fn left_checkboxes(&self) -> Vec<bool> {
            let (fill, panel) = ([60, 60, 60], [27, 27, 27]);
            let mut boxes = Vec::new();
            let mut y = 0;
            while y < self.height {
                if self.px(15, y) == fill {
                    let top = y;
                    while y < self.height && self.px(15, y) != panel {
                        y += 1;
                    }
                    if y - top == 14 {
                        let checked = (top..y)
                            .any(|yy| (9..22).any(|x| self.px(x, yy).iter().all(|c| *c > 110)));
                        boxes.push(checked);
                    }
                }
                y += 1;
            }
            boxes
        }
    }

    /// Runs `motionlab gui --screenshot FILE ARGS` under Xvfb in `cwd` (where the app's jobs
    /// write their `results/`), calling `watch` with xvfb-run's process id while it runs, and
    /// returns the PNG, which must be a 1600×900 window with many colours (not blank).
    pub fn screenshot(cwd: &Path, args: &[&str], mut watch: impl FnMut(u32)) -> Shot {
        let png_path = cwd.join("shot.png");
        let log = cwd.join("gui.log");
        let mut child = Command::new("xvfb-run")
            .args([
                "-a",
                "-s",
                "-screen 0 1600x900x24",
                env!("CARGO_BIN_EXE_motionlab"),
                "gui",
                "--screenshot",
            ])
            .arg(&png_path)
            .args(args)
            .current_dir(cwd)
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(std::fs::File::create(&log).unwrap())
            .spawn()
            .expect("xvfb-run must be installed (scripts/setup.sh installs it)");
        let start = Instant::now();
        let status = loop {
            if let Some(status) = child.try_wait().unwrap() {
                break status;
            }
            watch(child.id());
            if start.elapsed() > Duration::from_secs(600) {
                child.kill().unwrap();
                child.wait().unwrap();
                panic!("motionlab gui {args:?} ran for 10 minutes");
            }
            std::thread::sleep(Duration::from_millis(200));
        };
        let log = std::fs::read_to_string(&log).unwrap_or_default();
        assert!(status.success(), "motionlab gui {args:?}: {status}\n{log}");
        let decoder = png::Decoder::new(std::io::BufReader::new(
            std::fs::File::open(&png_path).unwrap(),
        ));
        let mut reader = decoder.read_info().unwrap();
        let mut pixels = vec![0; reader.output_buffer_size().unwrap()];
        let info = reader.next_frame(&mut pixels).unwrap();
        pixels.truncate(info.buffer_size());
        let channels = match info.color_type {
            png::ColorType::Rgba => 4,
            png::ColorType::Rgb => 3,
            other => panic!("unexpected colour type {other:?}"),
        };
        let shot = Shot {
            width: info.width,
            height: info.height,
            channels,
            pixels,
        };
        assert_eq!((shot.width, shot.height), (1600, 900));
        let mut distinct = HashSet::new();
        for y in (0..shot.height).step_by(3) {
            for x in (0..shot.width).step_by(3) {
                distinct.insert(shot.px(x, y));
            }
        }
        assert!(
            distinct.len() > 200,
            "only {} distinct colours: the window looks blank",
            distinct.len()
        );
        shot
    }

    /// Parent and state of every process, from /proc.
    pub fn processes() -> HashMap<u32, (u32, char)> {
        let mut table = HashMap::new();
        for entry in std::fs::read_dir("/proc").unwrap().flatten() {
            let Ok(pid) = entry.file_name().to_string_lossy().parse::<u32>() else {
                continue;
            };
            let Ok(stat) = std::fs::read_to_string(entry.path().join("stat")) else {
                continue;
            };
            // "pid (comm) state ppid …"; comm may hold spaces and parentheses.
            let Some(rest) = stat.rfind(')').map(|k| &stat[k + 1..]) else {
                continue;
            };
            let w: Vec<&str> = rest.split_whitespace().collect();
            if let (Some(state), Some(ppid)) = (w.first(), w.get(1).and_then(|p| p.parse().ok())) {
                table.insert(pid, (ppid, state.chars().next().unwrap_or('?')));
            }
        }
        table
    }

    pub fn cmdline(pid: u32) -> Vec<String> {
        std::fs::read(format!("/proc/{pid}/cmdline"))
            .map(|b| {
                b.split(|c| *c == 0)
                    .filter(|a| !a.is_empty())
                    .map(|a| String::from_utf8_lossy(a).into_owned())
                    .collect()
            })
            .unwrap_or_default()
    }

    pub fn descends_from(pid: u32, root: u32, table: &HashMap<u32, (u32, char)>) -> bool {
        let mut p = pid;
        for _ in 0..16 {
            if p == root {
                return true;
            }
            match table.get(&p) {
                Some((parent, _)) if *parent > 1 => p = *parent,
                _ => return false,
            }
        }
        false
    }

    /// A `motionlab gait-job` process seen earlier that has not exited.
    pub fn still_running(pid: u32) -> bool {
        processes()
            .get(&pid)
            .is_some_and(|(_, state)| *state != 'Z')
            && cmdline(pid).get(1).is_some_and(|a| a == "gait-job")
    }
}

/// `gui --explore-result DIR/result.ron` and `--sweep` (with `--screenshot`, `--frames`): the
/// Diversity panel opens on the set (its checkbox is ticked, the filmstrip's light frames fill
/// the right panel) and the gallery shows the variants in their colours (M1 blue, M2 orange);
/// the robustness sweep job starts and checkpoints into `results/` of the working directory.
#[cfg(feature = "gui")]
#[test]
fn gui_explore_result_shows_the_set_and_sweep_starts_the_job() {
    use gui::*;
    let dir = tempfile::tempdir().unwrap();
    let set = dir.path().join("set.ron");
    std::fs::write(&set, &baseline().text).unwrap();
    let cwd = dir.path().join("cwd");
    std::fs::create_dir(&cwd).unwrap();
    let shot = screenshot(
        &cwd,
        &["--frames", "30", "--explore-result", s(&set), "--sweep"],
        |_| {},
    );
    let boxes = shot.left_checkboxes();
    // Panels (Diversity, Pareto, Editor), then the six overlay boxes.
    assert!(boxes.len() >= 9, "checkboxes {boxes:?}");
    assert!(
        boxes[boxes.len() - 9],
        "the Diversity panel checkbox is not ticked: {boxes:?}"
    );
    assert!(
        !boxes[boxes.len() - 8] && !boxes[boxes.len() - 7],
        "the Pareto or Editor panel checkbox is ticked: {boxes:?}"
    );
    let (light, all) = shot.count((1195, 1595), (300, 530), |p| p.iter().all(|c| *c > 200));
    assert!(
        light > all / 5,
        "no filmstrip in the right panel ({light} of {all} light)"
    );
    let viewport = ((290, 1125), (250, 700));
    let (blue, _) = shot.count(viewport.0, viewport.1, |p| p[2] > 180 && p[0] < 120);
    let (orange, _) = shot.count(viewport.0, viewport.1, |p| {
        p[0] > 200 && (60..170).contains(&p[1]) && p[2] < 100
    });
    assert!(
        blue > 200 && orange > 200,
        "gallery not drawn: {blue} blue, {orange} orange"
    );

    let sweeps: Vec<PathBuf> = std::fs::read_dir(cwd.join("results"))
        .expect("the sweep job writes into results/")
        .flatten()
        .map(|e| e.path())
        .filter(|p| {
            p.file_name()
                .unwrap()
                .to_string_lossy()
                .starts_with("robustness-")
        })
        .collect();
    assert_eq!(sweeps.len(), 1, "{sweeps:?}");
    assert!(
        sweeps[0].join("checkpoint.ron").exists() || sweeps[0].join("result.ron").exists(),
        "the sweep wrote neither a checkpoint nor a result"
    );
}

/// `gui --discover-gait CREATURE --gait-speed V --overlays LIST`: the Gait window opens over the
/// viewport and its discovery runs as `motionlab gait-job REQUEST` child processes (the
/// discovery's request and its samples', all at speed V, read back as typed requests), which end
/// with the app; the left panel's overlay
/// checkboxes are exactly the ones asked for. An unknown overlay is refused before any window.
#[cfg(feature = "gui")]
#[test]
fn gui_discover_gait_runs_at_the_given_speed_with_the_given_overlays() {
    use gui::*;
    use std::collections::HashMap;
    let o = motionlab(&["gui", "--overlays", "colliders,bogus"]);
    assert_fails_with(
        &o,
        "unknown overlay \"bogus\": expected skin, colliders, com, contacts or torques",
    );

    let dir = tempfile::tempdir().unwrap();
    let mut seen: HashMap<u32, Vec<String>> = HashMap::new();
    let shot = screenshot(
        dir.path(),
        &[
            "--frames",
            "20",
            "--discover-gait",
            "characters/monoped.ron",
            "--gait-speed",
            "0.6",
            "--overlays",
            "colliders",
        ],
        |root| {
            let table = processes();
            for pid in table.keys() {
                if !seen.contains_key(pid) && descends_from(*pid, root, &table) {
                    let args = cmdline(*pid);
                    if args.get(1).is_some_and(|a| a == "gait-job") {
                        seen.insert(*pid, args);
                    }
                }
            }
        },
    );
    // The discovery's processes end with the app.
    let deadline = Instant::now() + Duration::from_secs(60);
    let mut left: Vec<u32> = seen.keys().copied().collect();
    while !left.is_empty() && Instant::now() < deadline {
        std::thread::sleep(Duration::from_millis(200));
        left.retain(|pid| still_running(*pid));
    }
    for pid in &left {
        // SAFETY: kill(2) on a process this test started (through the app) and saw running.
        unsafe {
            libc::kill(*pid as i32, libc::SIGKILL);
        }
    }
    assert!(left.is_empty(), "gait processes outlived the app: {left:?}");

    let requests: Vec<motionlab::spacetime::job::GaitRequest> = seen
        .values()
        .map(|args| {
            motionlab::files::from_ron(args.get(2).expect("a request"))
                .unwrap_or_else(|e| panic!("not a gait request: {args:?}: {e}"))
        })
        .collect();
    // One discovery (a sample process caught between its fork and its exec still shows the
    // discovery's command line, so the same request may be seen twice).
    let mut discovery = Vec::new();
    for r in requests.iter().filter(|r| r.discover.is_some()) {
        if !discovery.contains(&r) {
            discovery.push(r);
        }
    }
    assert_eq!(discovery.len(), 1, "one discovery: {requests:?}");
    assert!(
        discovery[0].creature.ends_with("characters/monoped.ron"),
        "{discovery:?}"
    );
    assert!(
        requests.iter().all(|r| r.speed == 0.6),
        "every solve at --gait-speed 0.6: {requests:?}"
    );

    let boxes = shot.left_checkboxes();
    assert!(boxes.len() >= 6, "checkboxes {boxes:?}");
    let overlays = &boxes[boxes.len() - 6..boxes.len() - 1];
    assert_eq!(
        overlays,
        [false, true, false, false, false],
        "skin, colliders, com, contacts, torques"
    );
    // The Gait window covers the middle of the viewport with its dark panel.
    let (dark, all) = shot.count((700, 900), (250, 750), |p| p.iter().all(|c| *c < 70));
    assert!(
        dark > all / 2,
        "no Gait window over the viewport ({dark} of {all} dark)"
    );
}

/// `gui --edit CHARACTER --edit-select BODY` opens the character editor (it replaces the Jobs
/// panel) with the body's joint limits drawn as orange arcs (fans) at the shoulder; with
/// `--edit-script` applying bad edits (a 30 kg hand, a 3° elbow, a slack knee; mirrored to the
/// right side) the physics lint's orange lines in the panel multiply and the standing verdict
/// turns red (the edited character falls in its headless 10 s rollout).
#[cfg(feature = "gui")]
#[test]
fn gui_editor_draws_limit_arcs_and_lints_bad_edits() {
    use gui::*;
    let dir = tempfile::tempdir().unwrap();
    let args = ["--edit", HUMAN3D, "--edit-select", "l_upper_arm"];
    let clean = screenshot(
        dir.path(),
        &[&["--frames", "60"][..], &args].concat(),
        |_| {},
    );
    let script = dir.path().join("bad.ron");
    std::fs::write(
        &script,
        r#"[
            SetBodyMass(body: "l_hand", mass: 30.0),
            SetJointLimits(joint: "l_elbow", limits: [(0.0, 3.0)]),
            SetJointGains(joint: "l_knee", kp: Some(40.0), kd: Some(4.0), torque_limit: Some(20.0)),
        ]"#,
    )
    .unwrap();
    let bad = screenshot(
        dir.path(),
        &[&["--frames", "90", "--edit-script", s(&script)][..], &args].concat(),
        |_| {},
    );
    let viewport = ((300, 1160), (30, 860));
    let arc = |p: [u8; 3]| p[0] > 200 && (40..150).contains(&p[1]) && p[2] < 90;
    // (`count` samples every other pixel in x and y.)
    let (arcs, _) = clean.count(viewport.0, viewport.1, arc);
    assert!(arcs > 60, "no limit arcs drawn: {arcs} orange pixels");
    let panel = ((1180, 1595), (90, 420));
    let lint = |p: [u8; 3]| p[0] > 180 && (90..150).contains(&p[1]) && p[2] < 40;
    let (clean_lint, _) = clean.count(panel.0, panel.1, lint);
    let (bad_lint, _) = bad.count(panel.0, panel.1, lint);
    assert!(
        clean_lint > 25 && bad_lint > 2 * clean_lint,
        "lint lines: {clean_lint} orange pixels clean, {bad_lint} after the bad edits"
    );
    let verdict = ((1180, 1595), (95, 125));
    let red = |p: [u8; 3]| p[0] > 170 && p[1] < 70 && p[2] < 70;
    let (clean_red, _) = clean.count(verdict.0, verdict.1, red);
    let (bad_red, _) = bad.count(verdict.0, verdict.1, red);
    assert!(
        clean_red < 3 && bad_red > 8,
        "verdict: {clean_red} red pixels clean, {bad_red} after the bad edits"
    );
}

/// `gui --edit human3d --edit-select l_forearm --edit-drag HANDLE:DX,DY --edit-out OUT`: a
/// mouse drag on a viewport handle edits through the editor, with mirror mode on (the default):
/// dragging the elbow's upper-limit knob changes that limit of both elbows and nothing else;
/// dragging the up arrow raises both forearms and moves nothing else.
#[cfg(feature = "gui")]
#[test]
fn gui_editor_handles_drag_limits_and_bodies() {
    use gui::*;
    use motionlab::model::load_character;
    let dir = tempfile::tempdir().unwrap();
    let before = load_character(Path::new(HUMAN3D)).unwrap();
    let drag = |handle: &str| {
        let out = dir
            .path()
            .join(format!("{}.ron", handle.replace([':', ','], "_")));
        screenshot(
            dir.path(),
            &[
                "--frames",
                "60",
                "--edit",
                HUMAN3D,
                "--edit-select",
                "l_forearm",
                "--edit-drag",
                handle,
                "--edit-out",
                s(&out),
            ],
            |_| {},
        );
        load_character(&out).unwrap_or_else(|e| panic!("{handle}: nothing saved: {e}"))
    };
    let limited = drag("limit-hi:-40,0");
    for (a, b) in before.joints.iter().zip(&limited.joints) {
        if a.name.ends_with("_elbow") {
            let ((lo0, hi0), (lo, hi)) = (a.limits[0], b.limits[0]);
            assert_eq!(lo, lo0, "{}", a.name);
            assert!(
                (hi - hi0).abs() >= 3.0 && hi > lo,
                "{}: {hi0} -> {hi}",
                a.name
            );
        } else {
            assert_eq!(a, b, "only the elbows change");
        }
    }
    assert_eq!(
        limited.joint_to("l_forearm").unwrap().limits,
        limited.joint_to("r_forearm").unwrap().limits,
        "mirrored"
    );
    assert_eq!(before.bodies, limited.bodies);
    let moved = drag("move-y:0,-50");
    for (a, b) in before.bodies.iter().zip(&moved.bodies) {
        if a.name.ends_with("_forearm") {
            assert!(
                b.position[1] > a.position[1] + 0.01,
                "{}: {:?} -> {:?}",
                a.name,
                a.position,
                b.position
            );
            assert_eq!(
                (a.position[0], a.position[2]),
                (b.position[0], b.position[2])
            );
        } else {
            assert_eq!(a, b, "only the forearms move");
        }
    }
    assert_eq!(before.joints, moved.joints);
}

/// `gui --edit SKIN.gltf --edit-transfer walk`: the third-party avatar becomes a character, is
/// saved into `results/characters/` of the working directory, and its walk is transferred on a
/// background thread into `results/clips/`, a clip that loads, refers to that character file and
/// has the animation's frames.
#[cfg(feature = "gui")]
#[test]
fn gui_editor_transfers_an_imported_animation_to_a_clip() {
    use gui::*;
    let dir = tempfile::tempdir().unwrap();
    let avatar = format!("{ROOT}/assets/third_party/castle_avatar/avatar.gltf");
    screenshot(
        dir.path(),
        &[
            "--frames",
            "90",
            "--edit",
            &avatar,
            "--edit-transfer",
            "walk",
        ],
        |_| {},
    );
    let character = dir.path().join("results/characters/avatar.ron");
    let c = motionlab::model::load_character(&character)
        .unwrap_or_else(|e| panic!("the imported character was not saved: {e}"));
    let clip_path = dir.path().join("results/clips/avatar-walk.clip.ron");
    let clip = motionlab::clip::Clip::load(&clip_path)
        .unwrap_or_else(|e| panic!("no transferred clip: {e}"));
    assert_eq!(clip.tags.source, "transfer");
    assert!(clip.frames.len() > 10, "{} frames", clip.frames.len());
    assert!(
        clip.character
            .path
            .ends_with("results/characters/avatar.ron"),
        "{:?}",
        clip.character.path
    );
    clip.check_character(&c).unwrap();
}
