//! The diversity command line: task scenes, `explore`, `replay`, `prepare` and `bench diversity`
//! (issue P2, deliverables 3 and 7).

mod common;

use common::{assert_success, motionlab, stderr, stdout};
use std::path::Path;

/// Task scenes whose seed controllers satisfy their constraints (C = 0).
const SOLVED: [&str; 9] = [
    "scenes/backflip2d.ron",
    "scenes/backwards_jump3d.ron",
    "scenes/jump_forward2d.ron",
    "scenes/jump_high2d.ron",
    "scenes/jump_onto2d.ron",
    "scenes/jump_over2d.ron",
    "scenes/robot_jump.ron",
    "scenes/silly_walk_human.ron",
    "scenes/silly_walk_robot.ron",
];

/// Every scene in scenes/ that defines a task.
fn task_scenes() -> Vec<String> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("scenes");
    let mut out: Vec<String> = std::fs::read_dir(&dir)
        .unwrap()
        .filter_map(|e| e.ok())
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|x| x == "ron"))
        .filter(|p| std::fs::read_to_string(p).unwrap().contains("task: Some("))
        .map(|p| format!("scenes/{}", p.file_name().unwrap().to_string_lossy()))
        .collect();
    out.sort();
    out
}

#[test]
fn task_scenes_check_and_solved_seeds_satisfy_their_constraints() {
    let scenes = task_scenes();
    for s in SOLVED {
        assert!(scenes.iter().any(|x| x == s), "{s} missing from {scenes:?}");
    }
    for scene in &scenes {
        let o = motionlab(&["check", scene]);
        assert_success(&o, scene);
        assert!(stdout(&o).contains("task"), "{}", stdout(&o));
    }
    for scene in SOLVED {
        let o = motionlab(&["simulate", scene]);
        assert_success(&o, scene);
        let out = stdout(&o);
        assert!(
            out.lines().any(|l| l == "penalty: 0.000"),
            "{scene}: the seed must have C = 0:\n{out}"
        );
        assert!(out.lines().any(|l| l == "fell: false"), "{scene}:\n{out}");
        if scene.contains("walk") {
            // 30 steps, the last 20 evaluated (Agrawal et al. 2014, §7.1), all in the window.
            assert!(
                out.lines()
                    .any(|l| l.starts_with("steps: 20 evaluated, forward")),
                "{scene}:\n{out}"
            );
        }
    }
}

struct Line {
    index: usize,
    penalty: f64,
    min_distance: f64,
}

/// Parses `variant <i> penalty <C> min_distance <d>` lines and the last `diversity <D>` line.
fn parse_explore(out: &str) -> (Vec<Line>, f64) {
    let mut lines = Vec::new();
    let mut diversity = None;
    for l in out.lines() {
        let w: Vec<&str> = l.split_whitespace().collect();
        match w.as_slice() {
            ["variant", i, "penalty", c, "min_distance", d] => lines.push(Line {
                index: i.parse().unwrap(),
                penalty: c.parse().unwrap(),
                min_distance: d.parse().unwrap(),
            }),
            ["diversity", d] => diversity = Some(d.parse().unwrap()),
            _ => panic!("unexpected output line {l:?} in:\n{out}"),
        }
    }
    assert_eq!(
        out.lines().last().map(|l| l.starts_with("diversity ")),
        Some(true),
        "{out}"
    );
    (lines, diversity.unwrap())
}

#[test]
fn explore_writes_a_result_that_replay_reproduces_serially_and_in_parallel() {
    let dir = tempfile::tempdir().unwrap();
    let mut results = Vec::new();
    for threads in ["1", "2"] {
        let out = dir.path().join(format!("t{threads}"));
        let o = motionlab(&[
            "explore",
            "scenes/jump_forward2d.ron",
            "--variants",
            "2",
            "--generations",
            "3",
            "--seed",
            "5",
            "--threads",
            threads,
            "--out",
            out.to_str().unwrap(),
        ]);
        assert_success(&o, "explore");
        let (lines, d) = parse_explore(&stdout(&o));
        assert_eq!(
            lines.iter().map(|l| l.index).collect::<Vec<_>>(),
            vec![1, 2]
        );
        let result = out.join("result.ron");
        let stored = motionlab::diversity::explore::load_result(&result).unwrap();
        for l in &lines {
            // The seed satisfies its constraints and samples rank feasibility first, so every
            // variant stays valid; each differs from the input and the other variant; what is
            // printed (to 4 decimals) is what the result stores.
            let m = &stored.motions[l.index];
            assert_eq!(l.penalty, 0.0, "variant {}: C = {}", l.index, l.penalty);
            assert_eq!(
                m.penalty, 0.0,
                "variant {} stored C = {}",
                l.index, m.penalty
            );
            assert!(l.min_distance > 0.0, "variant {} is a copy", l.index);
            assert!(
                (l.min_distance - m.min_distance).abs() <= 5e-5,
                "variant {}: printed d_min {} against stored {}",
                l.index,
                l.min_distance,
                m.min_distance
            );
        }
        assert!(
            (d - stored.diversity).abs() <= 5e-5 && d > stored.diversity_of_copies,
            "printed D {d}, stored {}, copies of the input {}",
            stored.diversity,
            stored.diversity_of_copies
        );
        assert!(
            !out.join("checkpoint.ron").exists(),
            "a finished job removes its checkpoint"
        );
        results.push((std::fs::read_to_string(&result).unwrap(), result));
    }
    // Serial and parallel evaluation give the same search.
    let strip = |s: &str| {
        s.lines()
            .filter(|l| !l.contains("scene:"))
            .collect::<Vec<_>>()
            .join("\n")
    };
    assert_eq!(strip(&results[0].0), strip(&results[1].0));
    // Replay re-simulates every motion (0 is the input) and checks the stored hash.
    for v in ["0", "1", "2"] {
        let o = motionlab(&["replay", results[0].1.to_str().unwrap(), "--variant", v]);
        assert_success(&o, "replay");
        let hash = stdout(&o)
            .lines()
            .find_map(|l| l.strip_prefix("hash: ").map(str::to_string))
            .unwrap();
        assert_eq!(hash.len(), 32);
        assert!(
            results[0].0.contains(&format!("hash: \"{hash}\"")),
            "{hash} not stored"
        );
    }
    // A variant replayed into a clip: its frames at the scene's step rate on the scene's
    // character, tagged as a diversity variant with the run's seed.
    let clip_path = dir.path().join("variant1.ron");
    let o = motionlab(&[
        "replay",
        results[0].1.to_str().unwrap(),
        "--variant",
        "1",
        "--out",
        clip_path.to_str().unwrap(),
    ]);
    assert_success(&o, "replay --out");
    let clip = motionlab::clip::Clip::load(&clip_path).unwrap();
    assert_eq!(clip.tags.source, "diversity");
    assert_eq!(clip.tags.cost, Some(0.0), "the variant's penalty C");
    assert!(clip.frames.len() > 60, "{} frames", clip.frames.len());
    assert!(
        clip.character.path.ends_with("characters/human2d.ron"),
        "{}",
        clip.character.path
    );
    let c = motionlab::model::load_character(std::path::Path::new(&clip.character.path)).unwrap();
    clip.check_character(&c).unwrap();
    let o = motionlab(&["replay", results[0].1.to_str().unwrap(), "--variant", "7"]);
    assert!(!o.status.success());
    assert!(stderr(&o).contains("not 7"), "{}", stderr(&o));
    // A stored hash that the motion does not reproduce (an edited or stale result) fails.
    let stored = motionlab::diversity::explore::load_result(&results[0].1).unwrap();
    let true_hash = &stored.motions[1].hash;
    let wrong = format!("{:032x}", u128::from_str_radix(true_hash, 16).unwrap() ^ 1);
    let tampered = dir.path().join("tampered.ron");
    std::fs::write(&tampered, results[0].0.replace(true_hash.as_str(), &wrong)).unwrap();
    let o = motionlab(&["replay", tampered.to_str().unwrap(), "--variant", "1"]);
    assert!(!o.status.success(), "a wrong stored hash passed replay");
    assert!(
        stderr(&o).contains(&format!("hash differs from the stored {wrong}")),
        "{}",
        stderr(&o)
    );
}

#[test]
fn a_task_naming_an_unknown_joint_is_rejected_with_the_scene_path() {
    let dir = tempfile::tempdir().unwrap();
    let text = std::fs::read_to_string(
        Path::new(env!("CARGO_MANIFEST_DIR")).join("scenes/jump_forward2d.ron"),
    )
    .unwrap()
    .replace(
        "../characters/human2d.ron",
        concat!(env!("CARGO_MANIFEST_DIR"), "/characters/human2d.ron"),
    )
    .replace(
        "joints: [\"lower_waist\"",
        "joints: [\"tail\", \"lower_waist\"",
    );
    let path = dir.path().join("bad_task.ron");
    std::fs::write(&path, text).unwrap();
    let o = motionlab(&["check", path.to_str().unwrap()]);
    assert!(!o.status.success());
    let err = stderr(&o);
    assert!(
        err.contains("bad_task.ron") && err.contains("\"tail\""),
        "{err}"
    );
    assert!(!err.contains("panicked"), "{err}");
}

#[test]
fn prepare_keeps_a_seed_that_already_satisfies_its_constraints() {
    let dir = tempfile::tempdir().unwrap();
    let text = std::fs::read_to_string(
        Path::new(env!("CARGO_MANIFEST_DIR")).join("scenes/jump_forward2d.ron"),
    )
    .unwrap()
    .replace(
        "../characters/human2d.ron",
        concat!(env!("CARGO_MANIFEST_DIR"), "/characters/human2d.ron"),
    );
    let path = dir.path().join("jf.ron");
    std::fs::write(&path, text).unwrap();
    // --hold 0: judge the seed over the task's own duration (the default adds a 0.3 s margin).
    let o = motionlab(&[
        "prepare",
        path.to_str().unwrap(),
        "--generations",
        "2",
        "--hold",
        "0",
    ]);
    assert_success(&o, "prepare");
    let out = stdout(&o);
    assert!(out.contains("start penalty 0.000"), "{out}");
    assert!(out.lines().any(|l| l == "penalty: 0.000"), "{out}");
    assert!(out.lines().any(|l| l.starts_with("seed: [")), "{out}");
}

#[test]
fn bench_diversity_quick_reports_rollouts_per_second() {
    let o = motionlab(&["bench", "diversity", "--quick"]);
    assert_success(&o, "bench diversity");
    let out = stdout(&o);
    let value = |k: &str| -> f64 {
        out.lines()
            .find_map(|l| l.strip_prefix(&format!("{k} ")))
            .unwrap_or_else(|| panic!("{k} in\n{out}"))
            .parse()
            .unwrap()
    };
    // 4 variants × 5 generations × 16 samples.
    assert_eq!(value("rollouts"), 4.0 * 5.0 * 16.0);
    assert!(value("rollouts_per_second") > 0.0 && value("wall_seconds") > 0.0);
}

#[test]
fn bake_applies_the_seed_so_the_baked_scene_replays_the_same_motion() {
    let dir = tempfile::tempdir().unwrap();
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let text = std::fs::read_to_string(root.join("scenes/jump_forward2d.ron"))
        .unwrap()
        .replace(
            "../characters/human2d.ron",
            concat!(env!("CARGO_MANIFEST_DIR"), "/characters/human2d.ron"),
        );
    assert!(
        !text.contains("seed: [],"),
        "jump_forward2d keeps a normalized seed"
    );
    let original = dir.path().join("jf.ron");
    std::fs::write(&original, &text).unwrap();
    let o = motionlab(&["bake", original.to_str().unwrap()]);
    assert_success(&o, "bake");
    let controller = stdout(&o);
    // The baked scene: the printed controller, and an empty (all-zero) seed.
    let start = text.find("controller: (").unwrap();
    let end = text.find("free: (").unwrap();
    let seed_start = text.find("seed: [").unwrap();
    let seed_end = seed_start + text[seed_start..].find("],").unwrap() + 2;
    let baked = format!(
        "{}controller: {},\n        {}seed: [],{}",
        &text[..start],
        controller.trim(),
        &text[end..seed_start],
        &text[seed_end..]
    );
    let baked_path = dir.path().join("baked.ron");
    std::fs::write(&baked_path, baked).unwrap();
    let hash = |p: &Path| {
        let o = motionlab(&["simulate", p.to_str().unwrap()]);
        assert_success(&o, "simulate");
        stdout(&o)
            .lines()
            .find_map(|l| l.strip_prefix("hash: ").map(str::to_string))
            .unwrap()
    };
    assert_eq!(hash(&original), hash(&baked_path));
    // A malformed --robust is refused with what was expected.
    let o = motionlab(&["prepare", original.to_str().unwrap(), "--robust", "four"]);
    assert!(!o.status.success());
    assert!(
        stderr(&o).contains("--robust expects N:S"),
        "{}",
        stderr(&o)
    );
}
