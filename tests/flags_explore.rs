//! The diversity search's and the task preparation's flags (`explore`, `summarize`,
//! `prepare`), each run at least once and checked for what it does (docs/diversity.md).
//! Runs are kept small: one or a few generations.

mod common;

use common::cli::*;
use common::{assert_success, motionlab, stderr, stdout};
use motionlab::diversity::explore::{ExploreMetric, ExploreResult, load_result};
use std::path::{Path, PathBuf};
use std::sync::OnceLock;

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
