//! `motionlab spacetime particle`: the Spacetime Particle of specs/001.md §1.3 from the command
//! line (checklist item 1: objective ≈ 65,699.9 N²; with |Q| ≤ 30 N it is infeasible).
#![cfg(feature = "ipopt")]

mod common;

use common::{assert_success, motionlab, stderr, stdout};

/// The value after `key ` on the line that starts with it (exactly one such line).
fn value(out: &str, key: &str) -> String {
    let prefix = format!("{key} ");
    let lines: Vec<&str> = out.lines().filter(|l| l.starts_with(&prefix)).collect();
    assert_eq!(lines.len(), 1, "expected one `{key}` line in:\n{out}");
    lines[0][prefix.len()..].to_string()
}

#[test]
fn particle_prints_the_reference_objective() {
    let o = motionlab(&["spacetime", "particle"]);
    assert_success(&o, "spacetime particle");
    let out = stdout(&o);
    assert_eq!(value(&out, "status"), "solved", "{out}");
    let objective: f64 = value(&out, "objective").parse().unwrap();
    assert!(
        (objective - 65_699.9).abs() <= 1e-3 * 65_699.9,
        "objective {objective}\n{out}"
    );
    let iterations: usize = value(&out, "iterations").parse().unwrap();
    assert!(iterations >= 1, "{out}");
    let violation: f64 = value(&out, "max_violation").parse().unwrap();
    assert!(violation < 1e-6, "{out}");
}

#[test]
fn particle_trajectory_keeps_its_boundary_conditions() {
    let o = motionlab(&["spacetime", "particle", "--lbfgs", "--trajectory"]);
    assert_success(&o, "spacetime particle --lbfgs --trajectory");
    let out = stdout(&o);
    let frames: Vec<Vec<f64>> = out
        .lines()
        .filter_map(|l| l.strip_prefix("frame "))
        .map(|l| l.split_whitespace().map(|v| v.parse().unwrap()).collect())
        .collect();
    assert_eq!(frames.len(), 21, "{out}");
    for (f, q) in [
        (0, [0.0, 0.0]),
        (1, [0.0, 0.5]),
        (19, [4.0, 3.5]),
        (20, [4.0, 4.0]),
    ] {
        assert_eq!(frames[f][0] as usize, f);
        assert!(
            (frames[f][1] - q[0]).abs() < 1e-6 && (frames[f][2] - q[1]).abs() < 1e-6,
            "frame {f}: {:?}",
            frames[f]
        );
    }
}

#[test]
fn particle_with_table_force_limit_reports_infeasible() {
    let o = motionlab(&["spacetime", "particle", "--bound-force", "30"]);
    assert!(
        !o.status.success(),
        "an infeasible problem must fail:\n{}",
        stdout(&o)
    );
    let out = stdout(&o);
    assert_eq!(value(&out, "status"), "infeasible", "{out}\n{}", stderr(&o));
    assert!(stderr(&o).contains("infeasible"), "{}", stderr(&o));
}

/// `gait --discover` (specs/004.md §1.3): basin-CMA over the monoped's period and contact window,
/// each sample projected by a capped solve in a child process; the best timing is solved again
/// and reported like a fixed-timing gait.
/// A small discovery of the monoped's hop: 2 generations of 4 samples, each capped at 40
/// iterations, on 2 processes.
fn monoped_discovery(speed: &str, extra: &[&str]) -> std::process::Output {
    let creature = concat!(env!("CARGO_MANIFEST_DIR"), "/characters/monoped.ron");
    let mut args = vec![
        "gait",
        creature,
        "--speed",
        speed,
        "--discover",
        "--generations",
        "2",
        "--population",
        "4",
        "--sample-iterations",
        "40",
        "--threads",
        "2",
    ];
    args.extend_from_slice(extra);
    motionlab(&args)
}

#[test]
fn gait_discovery_reports_generations_and_solves_the_best_timing() {
    let dir = tempfile::tempdir().unwrap();
    let clip = dir.path().join("hop.ron");
    let o = monoped_discovery(
        "0.7",
        &[
            "--max-iterations",
            "150",
            "--seed",
            "3",
            "--period-range",
            "0.4:0.8",
            "--out",
            clip.to_str().unwrap(),
        ],
    );
    assert_success(&o, "gait --discover");
    let out = stdout(&o);
    let generations: Vec<&str> = out
        .lines()
        .filter(|l| l.starts_with("generation "))
        .collect();
    assert_eq!(generations.len(), 2, "{out}");
    let best: Vec<f64> = generations
        .iter()
        .map(|l| {
            let w: Vec<&str> = l.split_whitespace().collect();
            let k = w.iter().position(|&t| t == "best_cost").expect("best_cost") + 1;
            w[k].parse()
                .unwrap_or_else(|_| panic!("a feasible sample in generation 0: {l}"))
        })
        .collect();
    // A line per sample, 4 per generation, each with its period and outcome.
    let samples: Vec<&str> = out.lines().filter(|l| l.starts_with("sample ")).collect();
    assert_eq!(samples.len(), 8, "{out}");
    // Each generation reports the cheapest feasible sample (violation ≤ 1e-6) of it and the
    // generations before it.
    let feasible_cost = |l: &str| -> Option<f64> {
        let w: Vec<&str> = l.split_whitespace().collect();
        let at = |key: &str| w.iter().position(|&t| t == key).map(|k| w[k + 1]);
        let violation: f64 = at("max_violation")?.parse().unwrap();
        (violation <= 1e-6).then(|| at("cost").unwrap().parse().unwrap())
    };
    for (g, reported) in best.iter().enumerate() {
        let cheapest = samples[..4 * (g + 1)]
            .iter()
            .filter_map(|l| feasible_cost(l))
            .fold(f64::INFINITY, f64::min);
        assert!(
            (reported - cheapest).abs() <= 1e-6 * cheapest.abs(),
            "generation {g} reports {reported}, its cheapest feasible sample so far is \
             {cheapest}:\n{out}"
        );
    }
    assert!(
        samples
            .iter()
            .all(|l| l.contains(" period ") && (l.contains(" cost ") || l.contains(" failed"))),
        "{out}"
    );
    // The period stays in the range asked for (the default box reaches down to 0.25 s).
    for l in generations.iter().chain(&samples) {
        let w: Vec<&str> = l.split_whitespace().collect();
        let k = w.iter().position(|&t| t == "period").expect("period") + 1;
        let period: f64 = w[k].parse().unwrap();
        assert!((0.4..=0.8).contains(&period), "{l}");
    }
    // The final solve uses the best timing found: its foot window is the one of the last line.
    let last = generations[1];
    let contacts = &last[last.find("contacts ").unwrap() + 9..];
    let parts: Vec<f64> = contacts
        .split(':')
        .skip(1)
        .map(|v| v.parse().unwrap())
        .collect();
    let foot = value(&out, "foot shin start");
    let printed: Vec<f64> = foot
        .split(" duration ")
        .map(|v| v.parse().unwrap())
        .collect();
    assert!(
        (printed[0] - parts[0]).abs() < 1e-12 && (printed[1] - parts[1]).abs() < 1e-12,
        "{out}"
    );
    assert!(
        (0.1..=0.9).contains(&printed[1]),
        "duration within the search box: {out}"
    );
    // The final solve starts from the best sample's clip and goes on from it.
    assert_eq!(value(&out, "start"), "the best sample", "{out}");
    let cost: f64 = value(&out, "cost").parse().unwrap();
    assert!(
        cost <= best[1],
        "the final solve ({cost}) does not end above its start ({})",
        best[1]
    );
    let violation: f64 = value(&out, "max_violation").parse().unwrap();
    assert!(violation <= 1e-6, "{out}");
    let audit: f64 = value(&out, "audit_max_violation").parse().unwrap();
    assert!(audit <= 1e-6, "{out}");
    assert_eq!(
        value(&out, "flight:"),
        "true",
        "one foot down at most 0.9 of the cycle: {out}"
    );
    assert!(clip.exists(), "the clip is written");
}

/// `--samples-dir` keeps the sample clips: a rerun with the same options reuses every one of
/// them and reports the same generations and gait; a changed option (here the speed) solves
/// afresh.
#[test]
fn a_discovery_resumes_from_its_samples_dir() {
    let dir = tempfile::tempdir().unwrap();
    let samples = dir.path().join("samples");
    let run = |speed: &str| {
        let o = monoped_discovery(
            speed,
            &[
                "--max-iterations",
                "60",
                "--samples-dir",
                samples.to_str().unwrap(),
            ],
        );
        assert_success(&o, "gait --discover --samples-dir");
        stdout(&o)
    };
    let reused = |out: &str| -> Vec<String> {
        out.lines()
            .filter(|l| l.starts_with("reused "))
            .map(|l| l.split_whitespace().nth(1).unwrap().to_string())
            .collect()
    };
    let results = |out: &str| -> Vec<String> {
        out.lines()
            .filter(|l| {
                l.starts_with("sample ") || l.starts_with("generation ") || l.starts_with("cost ")
            })
            .map(String::from)
            .collect()
    };
    let first = run("0.7");
    assert_eq!(reused(&first), ["0/4", "0/4"], "{first}");
    let kept: Vec<std::path::PathBuf> = std::fs::read_dir(&samples)
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    let is_summary = |p: &std::path::Path| p.to_string_lossy().ends_with(".summary.ron");
    let clips: Vec<&std::path::PathBuf> = kept.iter().filter(|p| !is_summary(p)).collect();
    assert_eq!(clips.len(), 8, "a clip per sample stays: {kept:?}");
    assert_eq!(kept.len(), 16, "and a summary beside each: {kept:?}");
    let again = run("0.7");
    assert_eq!(reused(&again), ["4/4", "4/4"], "{again}");
    assert_eq!(results(&first), results(&again));
    assert!(!again.contains("solving the best sample again"), "{again}");
    // The summaries alone resume it (what a repository keeps of a long discovery): the same
    // samples, the same ranking, and the best sample solved again to start the final solve
    // from, so the final gait is the same too.
    for clip in clips {
        std::fs::remove_file(clip).unwrap();
    }
    let from_summaries = run("0.7");
    assert_eq!(reused(&from_summaries), ["4/4", "4/4"], "{from_summaries}");
    assert_eq!(results(&first), results(&from_summaries));
    assert!(
        from_summaries.contains("solving the best sample again"),
        "{from_summaries}"
    );
    let other = run("0.6");
    assert_eq!(reused(&other), ["0/4", "0/4"], "{other}");
}

/// The default solve (`--hessian lbfgs-then-exact`): 300 L-BFGS iterations, then the exact
/// Hessian (reverse-mode second-order adjoints) from the clip reached. On the monoped hop at
/// 0.5 m/s it ends feasible at a cost far below what L-BFGS alone reaches in its 300 iterations.
///
/// Only what holds on every machine is asserted: IPOPT's path (iteration counts, whether the
/// last iterate needed a projection, a stage's status) follows the BLAS kernels OpenBLAS picks
/// for the CPU. Measured with `OPENBLAS_CORETYPE` set to each kernel family on one machine:
/// cost 7.906 (Haswell, projected), 8.073 (SkylakeX, Sandybridge), 8.085 (Nehalem, projected);
/// L-BFGS alone 26.8–27.7. The reference is 8.0 within 10 %.
#[test]
fn the_default_solve_converges_where_lbfgs_alone_stalls() {
    let monoped = concat!(env!("CARGO_MANIFEST_DIR"), "/characters/monoped.ron");
    let solve = |extra: &[&str]| {
        let mut args = vec!["gait", monoped, "--speed", "0.5"];
        args.extend_from_slice(extra);
        let o = motionlab(&args);
        assert_success(&o, "gait");
        let out = stdout(&o);
        let violation: f64 = value(&out, "max_violation").parse().unwrap();
        let audit: f64 = value(&out, "audit_max_violation").parse().unwrap();
        assert!(violation <= 1e-6 && audit <= 1e-6, "{out}");
        let cost: f64 = value(&out, "cost").parse().unwrap();
        (cost, out)
    };
    let (staged, out) = solve(&["--max-iterations", "3000"]);
    // One line per stage, L-BFGS first, then the exact Hessian from where it stopped.
    let stages: Vec<&str> = out.lines().filter(|l| l.starts_with("stage ")).collect();
    assert_eq!(stages.len(), 2, "{out}");
    assert!(stages[0].starts_with("stage lbfgs "), "{out}");
    assert!(stages[1].starts_with("stage exact "), "{out}");
    assert!(
        (staged - 8.0).abs() <= 0.1 * 8.0,
        "the default solve reaches the hop's reference cost 8.0 within 10 %: {staged}\n{out}"
    );
    // The gait's family: the monoped hops (a flight phase in every cycle).
    assert_eq!(value(&out, "flight:"), "true", "{out}");
    let (lbfgs, lbfgs_out) = solve(&["--hessian", "lbfgs", "--max-iterations", "300"]);
    assert!(
        lbfgs > 2.0 * staged,
        "converged {staged} against L-BFGS {lbfgs}:\n{out}\n{lbfgs_out}"
    );
}

/// Per changed limb: (name, length scale, radius scale) from the `limb …` lines.
fn limb_scales(out: &str) -> Vec<(String, f64, f64)> {
    out.lines()
        .filter(|l| l.starts_with("limb "))
        .map(|l| {
            let w: Vec<&str> = l.split_whitespace().collect();
            let at = |key: &str| -> f64 {
                let k = w.iter().position(|&t| t == key).expect(key) + 1;
                w[k].parse().unwrap()
            };
            (w[1].to_string(), at("length_scale"), at("radius_scale"))
        })
        .collect()
}

#[test]
fn morphology_without_muscles_grows_long_slender_legs_and_with_them_does_not() {
    // specs/004.md §1.5: with limb lengths and radii free, the plain torque effort (3.14) makes
    // "impossibly long and slender" legs; the muscle-aware effort (3.26)–(3.33) does not.
    let creature = concat!(env!("CARGO_MANIFEST_DIR"), "/characters/monoped.ron");
    let dir = tempfile::tempdir().unwrap();
    let mut slenderness = Vec::new();
    for muscle in [false, true] {
        let clip = dir.path().join(format!("hop_{muscle}.ron"));
        let mut args = vec![
            "gait",
            creature,
            "--speed",
            "0.5",
            "--morphology",
            // 300 L-BFGS iterations and 700 with the exact Hessian (the default solve).
            "--max-iterations",
            "1000",
            "--out",
            clip.to_str().unwrap(),
        ];
        if !muscle {
            args.push("--no-muscle");
        }
        let o = motionlab(&args);
        assert_success(&o, "gait --morphology");
        let out = stdout(&o);
        let violation: f64 = value(&out, "max_violation").parse().unwrap();
        let audit: f64 = value(&out, "audit_max_violation").parse().unwrap();
        assert!(violation <= 1e-6 && audit <= 1e-6, "{out}");
        let limbs = limb_scales(&out);
        let names: Vec<&str> = limbs.iter().map(|l| l.0.as_str()).collect();
        assert_eq!(names, ["thigh", "shin"], "only the leg changes: {out}");
        // Slenderness (length/radius) relative to the file's, per leg limb.
        let ratios: Vec<f64> = limbs.iter().map(|l| l.1 / l.2).collect();
        let mass: f64 = value(&out, "mass").parse().unwrap();
        assert!(
            mass > 2.0,
            "the body keeps its 2 kg, the legs add to it: {out}"
        );
        let saved = std::fs::read_to_string(&clip).unwrap();
        assert!(saved.contains("morphology:"), "the clip keeps the body");
        slenderness.push((muscle, ratios, out));
    }
    let (_, plain, out) = &slenderness[0];
    assert!(
        plain.iter().all(|&r| r > 5.0),
        "without muscles every leg limb is over 5× as slender as in the file: {out}"
    );
    let (_, muscled, out) = &slenderness[1];
    assert!(
        muscled.iter().all(|&r| r < 1.5),
        "with muscles no leg limb gets much more slender: {out}"
    );
}

#[test]
fn gait_init_refines_a_clip_and_refuses_a_wrong_one() {
    let dir = tempfile::tempdir().unwrap();
    let first = dir.path().join("hop.ron");
    let monoped = concat!(env!("CARGO_MANIFEST_DIR"), "/characters/monoped.ron");
    let solve = |extra: &[&str]| {
        let mut args = vec!["gait", monoped, "--speed", "0.5", "--max-iterations", "60"];
        args.extend_from_slice(extra);
        motionlab(&args)
    };
    let o = solve(&["--out", first.to_str().unwrap()]);
    assert_success(&o, "gait");
    let cost0: f64 = value(&stdout(&o), "cost").parse().unwrap();
    // 60 iterations do not converge: the clip is the projection of one of the solve's iterates
    // (the last, or a cheaper earlier one), named in the output and in the clip.
    let from: usize = value(&stdout(&o), "projected_from_iteration")
        .parse()
        .unwrap();
    assert!(from <= 60, "{}", stdout(&o));
    let clip = std::fs::read_to_string(&first).unwrap();
    assert!(
        clip.contains(&format!("projected_from: Some({from})")),
        "{clip}"
    );
    // 60 more iterations from the clip: same timing (the clip's), a lower cost, still valid.
    let o = solve(&["--init", first.to_str().unwrap()]);
    assert_success(&o, "gait --init");
    let out = stdout(&o);
    assert_eq!(value(&out, "start"), first.display().to_string());
    assert_eq!(value(&out, "foot shin start"), "0 duration 0.5", "{out}");
    let cost1: f64 = value(&out, "cost").parse().unwrap();
    assert!(
        cost1 < cost0,
        "refining lowers the cost: {cost0} then {cost1}"
    );
    let audit: f64 = value(&out, "audit_max_violation").parse().unwrap();
    assert!(audit <= 1e-6, "{out}");

    // Another creature's clip, a file that is not a clip, a missing file: clear errors.
    let biped = concat!(env!("CARGO_MANIFEST_DIR"), "/characters/simple_biped.ron");
    let o = motionlab(&[
        "gait",
        biped,
        "--speed",
        "0.5",
        "--init",
        first.to_str().unwrap(),
    ]);
    assert!(!o.status.success());
    assert!(
        stderr(&o).contains("the clip is of creature `monoped`, not `simple biped`"),
        "{}",
        stderr(&o)
    );
    let bad = dir.path().join("bad.ron");
    std::fs::write(&bad, "(\n  creature: 3,\n)").unwrap();
    let o = solve(&["--init", bad.to_str().unwrap()]);
    assert!(!o.status.success());
    let err = stderr(&o);
    assert!(err.contains(&format!("{}:2:", bad.display())), "{err}");
    let o = solve(&["--init", dir.path().join("none.ron").to_str().unwrap()]);
    assert!(!o.status.success());
    assert!(stderr(&o).contains("none.ron"), "{}", stderr(&o));
    // A discovery's period range must be SHORTEST:LONGEST, shortest first.
    let o = solve(&["--discover", "--period-range", "0.9:0.4"]);
    assert!(!o.status.success());
    assert!(
        stderr(&o).contains("--period-range: a period range needs 0 < shortest < longest"),
        "{}",
        stderr(&o)
    );
    let o = solve(&["--discover", "--period-range", "0.9"]);
    assert!(!o.status.success());
    assert!(
        stderr(&o).contains("expected SHORTEST:LONGEST in seconds"),
        "{}",
        stderr(&o)
    );
}

/// A clip edited by hand (a NaN coordinate, a frame too short) is refused by `gait --init` with
/// the file and what is wrong, before any solve starts.
#[test]
fn gait_init_refuses_a_clip_with_a_nan_or_a_short_frame() {
    let monoped = concat!(env!("CARGO_MANIFEST_DIR"), "/characters/monoped.ron");
    let shipped = std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/assets/gaits/monoped_hop_0.5ms.ron"
    ))
    .unwrap();
    let dir = tempfile::tempdir().unwrap();
    let nan = shipped.replacen(
        "    frames: [\n        [\n            0.0,",
        "    frames: [\n        [\n            NaN,",
        1,
    );
    let short = shipped.replacen(
        "    frames: [\n        [\n            0.0,",
        "    frames: [\n        [",
        1,
    );
    assert_ne!(nan, shipped);
    assert_ne!(short, shipped);
    for (name, text, expected) in [
        (
            "nan.ron",
            nan,
            "frame 0 has a coordinate that is not a finite number",
        ),
        (
            "short.ron",
            short,
            "frame 0 has 9 coordinates, the creature 10",
        ),
    ] {
        let path = dir.path().join(name);
        std::fs::write(&path, text).unwrap();
        let o = motionlab(&[
            "gait",
            monoped,
            "--speed",
            "0.5",
            "--max-iterations",
            "5",
            "--init",
            path.to_str().unwrap(),
        ]);
        let err = stderr(&o);
        assert!(!o.status.success(), "{name} accepted");
        assert!(
            err.contains(&path.display().to_string()) && err.contains(expected),
            "{name}: expected the path and {expected:?} in:\n{err}"
        );
        assert!(!err.contains("panicked"), "{err}");
    }
}

/// IPOPT is no descent method, so `gait --init` keeps its start when the refinement ends worse.
/// Made to end worse on every machine: IPOPT is told to maximize (`obj_scaling_factor=-1`) from
/// the shipped, converged hop; the run reports `kept_start true` and the start's own cost.
#[test]
fn gait_init_keeps_a_valid_start_when_the_refinement_ends_worse() {
    let monoped = concat!(env!("CARGO_MANIFEST_DIR"), "/characters/monoped.ron");
    let hop = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/assets/gaits/monoped_hop_0.5ms.ron"
    );
    let start: motionlab::spacetime::gait::GaitClip =
        motionlab::jobs::read_ron(std::path::Path::new(hop)).unwrap();
    let o = motionlab(&[
        "gait",
        monoped,
        "--speed",
        "0.5",
        "--init",
        hop,
        "--hessian",
        "lbfgs",
        "--max-iterations",
        "20",
        "--ipopt",
        "obj_scaling_factor=-1",
    ]);
    assert_success(&o, "gait --init, maximizing");
    let out = stdout(&o);
    assert!(
        out.lines().any(|l| l.starts_with("kept_start true")),
        "{out}"
    );
    let cost: f64 = value(&out, "cost").parse().unwrap();
    assert!(
        (cost - start.cost).abs() <= 1e-6 * start.cost,
        "the start's cost {} is kept, found {cost}",
        start.cost
    );
    let violation: f64 = value(&out, "max_violation").parse().unwrap();
    assert!(violation <= 1e-6, "{out}");
}

/// `gait --events`: standard output carries only typed events (what the Gait panel reads), one
/// RON `GaitEvent` per line: every discovery sample and generation, the final solve's IPOPT
/// iterations and stages, and the end with the clip written; the human report moves to stderr.
#[test]
fn gait_events_are_typed_and_complete() {
    use motionlab::spacetime::gait::events::GaitEvent;
    let dir = tempfile::tempdir().unwrap();
    let clip = dir.path().join("hop.ron");
    let o = motionlab(&[
        "gait",
        concat!(env!("CARGO_MANIFEST_DIR"), "/characters/monoped.ron"),
        "--speed",
        "0.7",
        "--discover",
        "--generations",
        "1",
        "--population",
        "4",
        "--sample-iterations",
        "40",
        "--threads",
        "2",
        "--max-iterations",
        "60",
        "--lbfgs-iterations",
        "30",
        "--events",
        "--out",
        clip.to_str().unwrap(),
    ]);
    let out = stdout(&o);
    let events: Vec<GaitEvent> = out
        .lines()
        .map(|l| GaitEvent::decode(l).unwrap_or_else(|| panic!("not an event: {l:?}")))
        .collect();
    let count = |f: &dyn Fn(&GaitEvent) -> bool| events.iter().filter(|e| f(e)).count();
    assert_eq!(
        count(&|e| matches!(e, GaitEvent::Sample { .. })),
        4,
        "one per sample"
    );
    assert_eq!(count(&|e| matches!(e, GaitEvent::Generation { .. })), 1);
    // At least the start's iteration (how many follow is the solver's path, machine-dependent).
    assert!(count(&|e| matches!(e, GaitEvent::Iteration { .. })) >= 1);
    assert!(count(&|e| matches!(e, GaitEvent::Stage { .. })) >= 1);
    match events.last() {
        Some(GaitEvent::Finished {
            out: Some(path), ..
        }) => {
            assert_eq!(path, clip.to_str().unwrap());
        }
        other => panic!("the last event is {other:?}"),
    }
    // The report people read is on standard error.
    assert!(stderr(&o).contains("creature monoped"), "{}", stderr(&o));
}

/// human2d (a planar character: root held in its plane, hinges about z) solves a planar walk at
/// 1 m/s with the default solve: feasible to 1e-6 by the solver and the audit, in the plane in
/// every frame, at a cost near the reference 3.41 (this machine's; ±25 % for other BLAS kernels).
#[test]
fn human2d_solves_a_planar_walk() {
    let dir = tempfile::tempdir().unwrap();
    let clip_path = dir.path().join("walk.ron");
    let o = motionlab(&[
        "gait",
        concat!(env!("CARGO_MANIFEST_DIR"), "/characters/human2d.ron"),
        "--speed",
        "1.0",
        "--out",
        clip_path.to_str().unwrap(),
    ]);
    assert_success(&o, "gait human2d");
    let out = stdout(&o);
    let violation: f64 = value(&out, "max_violation").parse().unwrap();
    let audit: f64 = value(&out, "audit_max_violation").parse().unwrap();
    let cost: f64 = value(&out, "cost").parse().unwrap();
    assert!(violation <= 1e-6 && audit <= 1e-6, "{violation} {audit}");
    assert!((cost - 3.41).abs() < 0.25 * 3.41, "cost {cost}");
    let clip: motionlab::spacetime::gait::GaitClip =
        motionlab::files::read_ron(&clip_path).unwrap();
    for q in &clip.frames {
        assert_eq!(
            (q[0], q[1], q[5]),
            (0.0, 0.0, 0.0),
            "out of the plane: {q:?}"
        );
    }
    for row in &clip.contacts {
        for load in row.iter().flatten() {
            assert_eq!(load.force[2], 0.0);
            assert_eq!((load.torque[0], load.torque[1]), (0.0, 0.0));
        }
    }
}
