//! The headless command line: `simulate`, `check`, `robustness` and `bench`.

mod common;

use common::{assert_success, motionlab, stderr, stdout};
use std::path::Path;
use std::process::Output;

const BUILTINS: [&str; 3] = ["human3d", "human2d", "bird_robot"];

/// The value after `key: ` on the line that starts with it (exactly one such line).
fn field(out: &str, key: &str) -> String {
    let prefix = format!("{key}: ");
    let lines: Vec<&str> = out.lines().filter(|l| l.starts_with(&prefix)).collect();
    assert_eq!(lines.len(), 1, "expected one `{key}:` line in:\n{out}");
    lines[0][prefix.len()..].to_string()
}

fn simulate(character: &str, extra: &[&str]) -> String {
    simulate_for(character, "10", extra)
}

fn simulate_for(character: &str, seconds: &str, extra: &[&str]) -> String {
    let file = format!("characters/{character}.ron");
    let mut args = vec!["simulate", file.as_str(), "--seconds", seconds];
    args.extend_from_slice(extra);
    let o = motionlab(&args);
    assert_success(&o, &format!("simulate {character} {extra:?}"));
    stdout(&o)
}

fn assert_summary(out: &str, character: &str) {
    assert_eq!(field(out, "character"), character);
    let hash = field(out, "hash");
    assert_eq!(hash.len(), 32, "{out}");
    assert!(
        hash.chars()
            .all(|c| c.is_ascii_hexdigit() && !c.is_ascii_uppercase()),
        "{out}"
    );
    let com = field(out, "final_com_height");
    let h: f32 = com
        .strip_suffix(" m")
        .unwrap_or_else(|| panic!("{out}"))
        .parse()
        .unwrap();
    assert!(h.is_finite(), "{out}");
}

#[test]
fn simulate_builtins_stand_for_10_seconds() {
    for c in BUILTINS {
        let out = simulate(c, &[]);
        assert_summary(&out, c);
        assert_eq!(field(&out, "fell"), "false", "{c}:\n{out}");
        assert!(
            field(&out, "simulated").starts_with("10.000 s (1200 steps)"),
            "{c}:\n{out}"
        );
        assert!(!out.contains("failure:"), "{out}");
        let h: f32 = field(&out, "final_com_height")
            .trim_end_matches(" m")
            .parse()
            .unwrap();
        assert!(h > 0.5, "{c}: {out}");
    }
}

#[test]
fn simulate_builtins_fall_without_gains() {
    for c in BUILTINS {
        let out = simulate(c, &["--gain-scale", "0"]);
        assert_summary(&out, c);
        assert_eq!(field(&out, "fell"), "true", "{c}:\n{out}");
        let t: f32 = field(&out, "fell_at")
            .trim_end_matches(" s")
            .parse()
            .unwrap();
        assert!(t < 3.0, "{c}: {out}");
    }
}

#[test]
fn simulate_is_deterministic_across_processes() {
    let a = simulate_for("human3d", "3", &[]);
    let b = simulate_for("human3d", "3", &[]);
    assert_summary(&a, "human3d");
    assert_eq!(field(&a, "hash"), field(&b, "hash"));
    assert_eq!(a, b);
    // Other inputs, other trajectory (standing still, a lower friction may change nothing).
    let c = simulate_for("human3d", "3", &["--gain-scale", "0.9"]);
    assert_ne!(field(&a, "hash"), field(&c, "hash"));
}

#[test]
fn simulate_writes_the_trajectory() {
    let dir = tempfile::tempdir().unwrap();
    let out_file = dir.path().join("traj.ron");
    let o = motionlab(&[
        "simulate",
        "characters/human2d.ron",
        "--seconds",
        "0.5",
        "--out",
        out_file.to_str().unwrap(),
    ]);
    assert_success(&o, "simulate --out");
    // A clip of 60 frames at 120 Hz (every step of 0.5 s) on human2d, its contacts and torques.
    let clip = motionlab::clip::Clip::load(&out_file).unwrap();
    assert_eq!(clip.frames.len(), 60);
    assert_eq!(clip.rate, 120.0);
    let c = motionlab::model::load_character(Path::new("characters/human2d.ron")).unwrap();
    clip.check_character(&c).unwrap();
    assert_eq!(clip.contacts.len(), 60);
    assert!(
        clip.contacts
            .iter()
            .all(|row| row.len() == c.end_effectors.len())
    );
    assert_eq!(clip.torques.as_ref().unwrap()[0].len(), c.internal_dof());
    assert_eq!(clip.tags.source, "simulation");
    assert_eq!(
        field(&stdout(&o), "trajectory"),
        out_file.display().to_string()
    );
}

#[test]
fn check_accepts_the_builtins() {
    for c in BUILTINS {
        let file = format!("characters/{c}.ron");
        let o = motionlab(&["check", &file]);
        assert_success(&o, &file);
        let out = stdout(&o);
        assert!(out.starts_with(&format!("ok: {file} ({c})")), "{out}");
    }
}

/// human2d.ron with `old` replaced by `new` on the line containing `anchor` (which must be
/// unique); returns the text and that line's number (1-based).
fn edited_human2d(anchor: &str, old: &str, new: &str) -> (String, usize) {
    let text = std::fs::read_to_string(
        Path::new(env!("CARGO_MANIFEST_DIR")).join("characters/human2d.ron"),
    )
    .unwrap();
    let hits: Vec<usize> = text
        .lines()
        .enumerate()
        .filter(|(_, l)| l.contains(anchor))
        .map(|(i, _)| i)
        .collect();
    assert_eq!(hits.len(), 1, "{anchor:?} found on lines {hits:?}");
    let mut lines: Vec<String> = text.lines().map(str::to_owned).collect();
    assert!(lines[hits[0]].contains(old));
    lines[hits[0]] = lines[hits[0]].replacen(old, new, 1);
    (lines.join("\n") + "\n", hits[0] + 1)
}

fn check_fails(text: &str, line: usize, must_contain: &[&str]) {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("broken.ron");
    std::fs::write(&path, text).unwrap();
    let o = motionlab(&["check", path.to_str().unwrap()]);
    let err = stderr(&o);
    assert!(
        !o.status.success(),
        "check accepted a broken file:\n{}",
        stdout(&o)
    );
    assert!(
        err.contains(&format!("{}:{line}:", path.display())),
        "expected {}:{line}: in:\n{err}",
        path.display()
    );
    for s in must_contain {
        assert!(err.contains(s), "expected {s:?} in:\n{err}");
    }
    assert!(!err.contains("panicked"), "{err}");
}

#[test]
fn check_rejects_a_syntax_error_with_file_and_line() {
    // Missing comma between two fields of the pelvis record.
    let (text, line) = edited_human2d(
        "(name: \"pelvis\"",
        "mass: 11.36, position",
        "mass: 11.36 position",
    );
    check_fails(&text, line, &[]);
}

#[test]
fn check_rejects_an_invalid_character_with_file_line_and_field() {
    let (text, line) = edited_human2d("(name: \"l_shin\"", "mass: 3.44", "mass: -3.44");
    check_fails(&text, line, &["`mass`", "\"l_shin\""]);
    let (text, line) = edited_human2d(
        "name: \"l_knee\"",
        "parent: \"l_thigh\"",
        "parent: \"l_thig\"",
    );
    check_fails(&text, line, &["`parent`", "\"l_thig\""]);
}

#[test]
fn check_rejects_a_missing_file() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("nothing_here.ron");
    let o = motionlab(&["check", path.to_str().unwrap()]);
    assert!(!o.status.success());
    let err = stderr(&o);
    assert!(err.contains(&path.display().to_string()), "{err}");
    assert!(!err.contains("panicked"), "{err}");
}

#[test]
fn robustness_sweeps_eight_directions() {
    let dir = tempfile::tempdir().unwrap();
    let out_dir = dir.path().join("sweep");
    let o = motionlab(&[
        "robustness",
        "characters/human2d.ron",
        "--out",
        out_dir.to_str().unwrap(),
    ]);
    assert_success(&o, "robustness");
    let out = stdout(&o);
    let lines: Vec<&str> = out
        .lines()
        .filter(|l| l.starts_with("direction "))
        .collect();
    assert_eq!(lines.len(), 8, "{out}");
    for l in &lines {
        let words: Vec<&str> = l.split_whitespace().collect();
        let i = words
            .iter()
            .position(|w| *w == "max_survived")
            .unwrap_or_else(|| panic!("{l}"));
        let survived: f32 = words[i + 1].parse().unwrap();
        assert!(survived > 0.0, "{l}");
    }
    assert!(out_dir.join("result.ron").is_file());
    assert!(!out_dir.join("checkpoint.ron").exists());
    assert_eq!(
        field(&out, "result"),
        out_dir.join("result.ron").display().to_string()
    );
}

#[test]
fn bench_quick_reports_every_builtin() {
    let o = motionlab(&["bench", "--quick"]);
    assert_success(&o, "bench --quick");
    let out = stdout(&o);
    for metric in ["steps_per_second", "rollouts_per_second"] {
        for c in BUILTINS {
            let values: Vec<f64> = out
                .lines()
                .filter_map(|l| l.strip_prefix(&format!("{metric} {c} ")))
                .map(|v| {
                    v.parse()
                        .unwrap_or_else(|e| panic!("{metric} {c}: {v:?}: {e}"))
                })
                .collect();
            assert_eq!(values.len(), 1, "{metric} {c} in:\n{out}");
            assert!(values[0] > 0.0, "{metric} {c}: {}", values[0]);
        }
        assert_eq!(
            out.lines()
                .filter(|l| l.starts_with(&format!("{metric} ")))
                .count(),
            3,
            "{out}"
        );
    }
}

#[test]
fn bench_cma_reports_overhead_and_reference_evaluation_counts() {
    let o = motionlab(&["bench", "cma", "--quick"]);
    assert_success(&o, "bench cma --quick");
    let out = stdout(&o);
    let value = |prefix: &str| -> f64 {
        out.lines()
            .find_map(|l| l.strip_prefix(prefix))
            .unwrap_or_else(|| panic!("no line {prefix:?} in:\n{out}"))
            .trim()
            .parse()
            .unwrap()
    };
    assert!(value("overhead_us_per_generation n=100 ") > 0.0);
    // pycma 4.5 medians: sphere 1150, ellipsoid 3920, Rosenbrock 4780; within 15 %.
    for (name, pycma) in [
        ("sphere", 1150.0),
        ("ellipsoid", 3920.0),
        ("rosenbrock", 4780.0),
    ] {
        let e = value(&format!("evaluations_to_1e-8 {name} n=10 "));
        assert!(e <= pycma * 1.15, "{name}: {e} evaluations");
    }
    let bad = motionlab(&["bench", "nonsense"]);
    assert!(!bad.status.success());
    assert!(
        stderr(&bad)
            .contains("expected sim, cma, diversity, cec2006, gait, impulse, steering, pareto, track, footsteps or cluster"),
        "{}",
        stderr(&bad)
    );
}

#[test]
fn shipped_scenes_check_and_simulate_as_described() {
    for scene in [
        "scenes/stand_human3d.ron",
        "scenes/stand_human2d_explicit.ron",
    ] {
        let o = motionlab(&["check", scene]);
        assert_success(&o, scene);
        assert!(
            stdout(&o).starts_with(&format!("ok: {scene} (scene ")),
            "{}",
            stdout(&o)
        );
        // Both scenes are pushed within what the character survives.
        let o = motionlab(&["simulate", scene]);
        assert_success(&o, scene);
        assert!(
            stdout(&o).lines().any(|l| l == "fell: false"),
            "{scene}:\n{}",
            stdout(&o)
        );
    }
    // The 3D scene's 20 N·s forward push is felt: without it the trajectory differs.
    let pushed = motionlab(&["simulate", "scenes/stand_human3d.ron", "--seconds", "3"]);
    let plain = motionlab(&["simulate", "characters/human3d.ron", "--seconds", "3"]);
    let hash = |o: &Output| {
        stdout(o)
            .lines()
            .find(|l| l.starts_with("hash: "))
            .unwrap()
            .to_string()
    };
    assert_ne!(hash(&pushed), hash(&plain));
}

#[test]
fn scene_naming_an_unknown_body_is_rejected_with_the_scene_path() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("bad_scene.ron");
    let character = concat!(env!("CARGO_MANIFEST_DIR"), "/characters/human3d.ron");
    std::fs::write(
        &path,
        format!("(\n    name: \"bad\",\n    character: {character:?},\n    pushes: [(time: 1.0, body: \"tail\", impulse: (1.0, 0.0, 0.0))],\n)\n"),
    )
    .unwrap();
    let o = motionlab(&["check", path.to_str().unwrap()]);
    assert!(!o.status.success());
    let err = stderr(&o);
    assert!(
        err.contains("bad_scene.ron") && err.contains("\"tail\""),
        "{err}"
    );
    assert!(!err.contains("panicked"), "{err}");
}

/// A scene edited by hand with a NaN push or a 1e30 s duration: `check` and `simulate` both name
/// the file and the line, and nothing panics or runs forever.
#[test]
fn scenes_with_impossible_numbers_get_file_and_line_errors() {
    let character = concat!(env!("CARGO_MANIFEST_DIR"), "/characters/human3d.ron");
    let scene = |seconds: &str, impulse: &str| {
        format!(
            "(\n    name: \"edited\",\n    character: {character:?},\n    seconds: {seconds},\n    pushes: [\n        (time: 1.0, body: \"torso\", impulse: ({impulse}, 0.0, 0.0)),\n    ],\n)\n"
        )
    };
    for (text, line, expected) in [
        // Any NaN or absurd magnitude, whatever the field, before the file is parsed.
        (
            scene("2.0", "NaN"),
            6,
            "field `impulse`: expected a number, found NaN",
        ),
        (
            scene("1e30", "20.0"),
            4,
            "field `seconds`: expected a number of magnitude at most 1e9, found 1e30",
        ),
        // Then each field's physical range.
        (
            scene("2.0", "2e4"),
            6,
            "expected a finite impulse of at most 10000 N·s",
        ),
        (scene("1e5", "20.0"), 4, "expected a duration in (0, 600] s"),
        (
            scene("-1.0", "20.0"),
            4,
            "expected a duration in (0, 600] s",
        ),
    ] {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("edited.ron");
        std::fs::write(&path, &text).unwrap();
        for command in ["check", "simulate"] {
            let o = motionlab(&[command, path.to_str().unwrap()]);
            let err = stderr(&o);
            assert!(!o.status.success(), "{command} accepted:\n{text}");
            assert!(
                err.contains(&format!("{}:{line}:", path.display())) && err.contains(expected),
                "{command}: expected {}:{line}: and {expected:?} in:\n{err}",
                path.display()
            );
            assert!(!err.contains("panicked"), "{err}");
        }
    }
}

/// Numbers typed as `simulate` flags are checked the same way, the range named in the error.
#[test]
fn simulate_flags_out_of_range_are_refused() {
    for (flag, value, expected) in [
        ("--seconds", "1e30", "expected a value in (0, 600] s"),
        ("--seconds", "NaN", "expected a value in (0, 600] s"),
        ("--dt", "0", "expected a value in (0, 0.05] s"),
        ("--gain-scale", "-1", "expected a value in [0, 100]"),
        ("--friction", "inf", "expected a value in [0, 10]"),
        ("--restitution", "2", "expected a value in [0, 1]"),
    ] {
        let o = motionlab(&[
            "simulate",
            "characters/human3d.ron",
            &format!("{flag}={value}"),
        ]);
        let err = stderr(&o);
        assert!(!o.status.success(), "{flag} {value} accepted");
        assert!(
            err.contains(flag) && err.contains(expected),
            "{flag} {value}:\n{err}"
        );
    }
}

/// A shipped task edited by hand: `check` refuses each out-of-range task number with its line
/// and field (phase duration, balance gain, free range, constraint size).
#[test]
fn check_refuses_out_of_range_task_numbers_with_their_line() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let text = std::fs::read_to_string(root.join("scenes/backflip2d.ron"))
        .unwrap()
        .replace(
            "../characters/",
            concat!(env!("CARGO_MANIFEST_DIR"), "/characters/"),
        );
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("edited.ron");
    let line_of = |needle: &str| text.lines().position(|l| l.contains(needle)).unwrap() + 1;
    std::fs::write(&path, &text).unwrap();
    assert_success(&motionlab(&["check", path.to_str().unwrap()]), "check");
    for (old, new, field) in [
        ("duration: 1.5833262", "duration: 1.0e5", "`duration`"),
        ("kp: 600.0", "kp: -5.0", "`kp`"),
        ("range: 60.0", "range: 1000.0", "`range`"),
        ("max_offset: 0.15", "max_offset: -0.15", "`max_offset`"),
    ] {
        std::fs::write(&path, text.replacen(old, new, 1)).unwrap();
        let o = motionlab(&["check", path.to_str().unwrap()]);
        let err = stderr(&o);
        let expected = format!("{}:{}:", path.display(), line_of(old));
        assert!(!o.status.success(), "{old} -> {new} accepted");
        assert!(
            err.contains(&expected) && err.contains(field),
            "{old} -> {new}: expected {expected} and {field} in {err}"
        );
    }
}

/// `footsteps plan` on the shipped demo: five tasks, each reached with its stance, the
/// thesis's per-task line printed.
#[test]
fn footsteps_plan_reaches_the_demo_tasks() {
    let dir = tempfile::tempdir().unwrap();
    let clip_path = dir.path().join("demo.clip.ron");
    let text = motionlab_ok(&[
        "footsteps".as_ref(),
        "plan".as_ref(),
        "assets/tasks/demo.ron".as_ref(),
        "--out".as_ref(),
        clip_path.as_os_str(),
    ]);
    let lines: Vec<&str> = text.lines().filter(|l| l.starts_with("task ")).collect();
    assert_eq!(lines.len(), 5, "{text}");
    for l in lines {
        let w: Vec<&str> = l.split_whitespace().collect();
        let reached_m: f64 = w[3].parse().unwrap();
        let reached_deg: f64 = w[5].parse().unwrap();
        let steps: usize = w[7].parse().unwrap();
        assert!(reached_m <= 0.05 && reached_deg <= 5.0 && steps >= 2, "{l}");
    }
    // The full body: planted feet that stay put, no joint jump over 0.5 rad, a clip that loads.
    let body = text.lines().find(|l| l.starts_with("body ")).expect(&text);
    let w: Vec<&str> = body.split_whitespace().collect();
    let slide: f64 = w[6].parse().unwrap();
    let jump: f64 = w[8].parse().unwrap();
    assert!(slide <= 0.02 && jump <= 0.5, "{body}");
    let clip = motionlab::clip::Clip::load(&clip_path).unwrap();
    assert_eq!(clip.frames.len(), w[2].parse::<usize>().unwrap());
}

/// A task file with an unknown category is refused with its file, its line and the choices.
#[test]
fn footsteps_plan_names_the_bad_line() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("tasks.ron");
    std::fs::write(
        &path,
        "(start: (0.0, 0.0), start_facing_deg: 0.0,\n tasks: [(category: Chair, location: (1.0, 0.0), facing_deg: 0.0)])",
    )
    .unwrap();
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_motionlab"))
        .args(["footsteps", "plan"])
        .arg(&path)
        .output()
        .expect("runs");
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("tasks.ron:2") && err.contains("Whiteboard"),
        "{err}"
    );
}

/// Runs the program in the project folder; its standard output, once it has succeeded.
fn motionlab_ok(args: &[&std::ffi::OsStr]) -> String {
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_motionlab"))
        .args(args)
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .output()
        .expect("runs");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout).into_owned()
}

/// `footsteps segment` cuts the full body of the shortcut tasks into the steps that were planned:
/// as many, with the side steps of the first task among them.
#[test]
fn footsteps_segment_finds_the_planned_steps_of_a_clip() {
    let dir = tempfile::tempdir().unwrap();
    let clip_path = dir.path().join("shortcuts.clip.ron");
    let run = motionlab_ok;
    let planned = run(&[
        "footsteps".as_ref(),
        "plan".as_ref(),
        "assets/tasks/shortcuts.ron".as_ref(),
        "--steps".as_ref(),
        "--out".as_ref(),
        clip_path.as_os_str(),
    ]);
    let planned = planned.lines().filter(|l| l.starts_with("step ")).count();
    let found = run(&[
        "footsteps".as_ref(),
        "segment".as_ref(),
        clip_path.as_os_str(),
    ]);
    let steps: Vec<&str> = found.lines().filter(|l| l.starts_with("step ")).collect();
    assert_eq!(steps.len(), planned, "{found}");
    assert!(
        steps[..2].iter().all(|l| l.contains("tag SideStep")),
        "{found}"
    );
    let total = found
        .lines()
        .find(|l| l.starts_with("steps "))
        .expect(&found);
    assert!(total.starts_with(&format!("steps {planned} (")), "{total}");
}

/// `footsteps templates` cuts an entry from the CMU walk, retargeted onto the walker, into a
/// template file; the shipped solved templates alone plan the demo, every task reached, the
/// solved steps taken; a template file without exits is refused with `--templates-only`,
/// naming the missing shelf.
#[test]
fn footsteps_templates_are_cut_from_clips_and_planned_with() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("walk.templates.ron");
    let cut = motionlab_ok(&[
        "footsteps".as_ref(),
        "templates".as_ref(),
        "tests/data/cmu/12_01_walk.bvh".as_ref(),
        "--bvh-scale".as_ref(),
        "0.056".as_ref(),
        "--category".as_ref(),
        "lift".as_ref(),
        "--effort".as_ref(),
        "high".as_ref(),
        "--side".as_ref(),
        "entry".as_ref(),
        "--steps".as_ref(),
        "3".as_ref(),
        "--out".as_ref(),
        file.as_os_str(),
    ]);
    assert!(
        cut.contains("side Entry steps 3") && cut.contains("(1 templates)"),
        "{cut}"
    );
    // The capture is retargeted onto the walker, written beside the template file, and its
    // last step keeps a span in that clip.
    assert!(
        cut.contains("retargeted tests/data/cmu/12_01_walk.bvh onto human3d_walker"),
        "{cut}"
    );
    assert!(
        dir.path().join("12_01_walk.human3d.clip.ron").exists(),
        "{cut}"
    );
    let written = std::fs::read_to_string(&file).unwrap();
    assert!(
        written.contains("clip: \"12_01_walk.human3d.clip.ron\""),
        "{written}"
    );
    let planned = motionlab_ok(&[
        "footsteps".as_ref(),
        "plan".as_ref(),
        "assets/tasks/demo.ron".as_ref(),
        "--templates".as_ref(),
        "assets/tasks/human3d_solved.templates.ron".as_ref(),
        "--templates-only".as_ref(),
    ]);
    let reached: Vec<&str> = planned.lines().filter(|l| l.starts_with("task ")).collect();
    assert_eq!(reached.len(), 5, "{planned}");
    for l in reached {
        let w: Vec<&str> = l.split_whitespace().collect();
        let (m, deg): (f64, f64) = (w[3].parse().unwrap(), w[5].parse().unwrap());
        assert!(m <= 0.05 && deg <= 5.0, "{l}");
    }
    // The solved stepping repertoire's turns in place and side steps enter some of them.
    assert!(
        planned.contains("entry \"turn_") || planned.contains("entry \"side_step_"),
        "{planned}"
    );
    // Their steps play from the solved clips they were cut from, and the body keeps its bars.
    let body = planned
        .lines()
        .find(|l| l.starts_with("body "))
        .expect(&planned);
    let w: Vec<&str> = body.split_whitespace().collect();
    let after = |key: &str| -> f64 {
        let k = w.iter().position(|x| *x == key).expect(body);
        w[k + 1].parse().unwrap()
    };
    assert!(after("from_clips") >= 1.0, "{body}");
    assert!(
        after("slide_m") <= 0.02 && after("joint_jump_rad") <= 0.5,
        "{body}"
    );
    // A solved clip cut into a template file elsewhere: the file names the clip relative to
    // itself, and a plan with it finds the clip and plays its steps from it.
    let side = dir.path().join("side.templates.ron");
    motionlab_ok(&[
        "footsteps".as_ref(),
        "templates".as_ref(),
        "assets/spaces/human3d_stepping/clips/side_step_left_0.3.ron".as_ref(),
        "--side".as_ref(),
        "entry".as_ref(),
        "--steps".as_ref(),
        "2".as_ref(),
        "--out".as_ref(),
        side.as_os_str(),
    ]);
    let written = std::fs::read_to_string(&side).unwrap();
    assert!(
        written.contains("side_step_left_0.3.ron\"") && written.contains("lift_off"),
        "{written}"
    );
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_motionlab"))
        .args(["footsteps", "plan", "--random", "3", "--templates"])
        .arg(&side)
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .output()
        .expect("runs");
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{err}");
    assert!(!err.contains("played from the walk"), "{err}");
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_motionlab"))
        .args([
            "footsteps",
            "plan",
            "assets/tasks/demo.ron",
            "--templates-only",
            "--templates",
        ])
        .arg(&file)
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .output()
        .expect("runs");
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("walk.templates.ron") && err.contains("no Exit template"),
        "{err}"
    );
}
