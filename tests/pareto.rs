//! The Pareto command line (issue P8, deliverable 5 and the resume acceptance point):
//! `motionlab pareto SCENE --method rmoo|bsoo|mocma` prints one line per front point and the
//! hypervolume; a run killed mid-way and resumed from its checkpoint gives the same front, bit
//! for bit, as one that ran through.

mod common;

use common::{assert_success, motionlab, stderr, stdout};
use std::process::{Command, Stdio};
use std::time::Duration;

const SCENE: &str = "scenes/pareto_jump2d.ron";

fn front_lines(out: &str) -> Vec<String> {
    out.lines()
        .filter(|l| l.starts_with("point ") || l.starts_with("hypervolume "))
        .map(String::from)
        .collect()
}

#[test]
fn pareto_prints_the_front_and_its_hypervolume() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("run");
    let o = motionlab(&[
        "pareto",
        SCENE,
        "--method",
        "mocma",
        "--generations",
        "2",
        "--seed",
        "3",
        "--out",
        out.to_str().unwrap(),
    ]);
    assert_success(&o, "pareto");
    let text = stdout(&o);
    let lines = front_lines(&text);
    let points: Vec<&String> = lines.iter().filter(|l| l.starts_with("point ")).collect();
    assert!(!points.is_empty(), "{text}");
    // The seed is natural: the lowest point of an early front uses no assist.
    assert!(points[0].ends_with(" natural"), "{text}");
    let hv: f64 = lines
        .last()
        .and_then(|l| l.strip_prefix("hypervolume "))
        .and_then(|v| v.parse().ok())
        .unwrap_or_else(|| panic!("no hypervolume line:\n{text}"));
    assert!(hv > 0.0, "{text}");
    assert!(out.join("result.ron").exists());
    // `--resume` on a finished run reports its result again.
    let again = motionlab(&["pareto", SCENE, "--resume", "--out", out.to_str().unwrap()]);
    assert_success(&again, "pareto --resume (finished)");
    assert_eq!(front_lines(&stdout(&again)), lines);
}

#[test]
fn a_killed_run_resumes_to_the_same_front() {
    let dir = tempfile::tempdir().unwrap();
    let args = |out: &std::path::Path| {
        vec![
            "pareto".to_string(),
            SCENE.into(),
            "--method".into(),
            "rmoo".into(),
            "--generations".into(),
            "6".into(),
            "--seed".into(),
            "5".into(),
            "--out".into(),
            out.display().to_string(),
        ]
    };
    let straight = dir.path().join("straight");
    let a: Vec<String> = args(&straight);
    let o = motionlab(&a.iter().map(String::as_str).collect::<Vec<_>>());
    assert_success(&o, "uninterrupted run");
    let expected = front_lines(&stdout(&o));
    assert!(expected.len() > 1, "{}", stdout(&o));

    // The same run, killed once its first checkpoint is on disk.
    let killed = dir.path().join("killed");
    let b: Vec<String> = args(&killed);
    let mut child = Command::new(env!("CARGO_BIN_EXE_motionlab"))
        .args(&b)
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let checkpoint = killed.join("checkpoint.ron");
    while !checkpoint.exists() && child.try_wait().unwrap().is_none() {
        std::thread::sleep(Duration::from_millis(20));
    }
    let finished_first = child.try_wait().unwrap().is_some();
    child.kill().ok();
    child.wait().unwrap();
    assert!(
        !finished_first,
        "the run finished before a checkpoint could be interrupted"
    );
    assert!(checkpoint.exists());
    let o = motionlab(&[
        "pareto",
        SCENE,
        "--resume",
        "--out",
        killed.to_str().unwrap(),
    ]);
    assert_success(&o, "resumed run");
    assert_eq!(front_lines(&stdout(&o)), expected);
}

#[test]
fn a_scene_without_a_pareto_section_is_a_clear_error() {
    let o = motionlab(&["pareto", "scenes/jump_high2d.ron", "--generations", "1"]);
    assert!(!o.status.success());
    let err = stderr(&o);
    assert!(
        err.contains("jump_high2d.ron") && err.contains("no `pareto` section"),
        "{err}"
    );
}

/// `pareto --resume` refuses a folder holding a run of another scene, method or seed, with a
/// message that names what differs (the checkpoint would otherwise win silently).
#[test]
fn resume_refuses_a_run_of_another_scene_method_or_seed() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("run");
    let out = out.to_str().unwrap();
    let base = [
        "pareto",
        "scenes/pareto_jump2d.ron",
        "--generations",
        "1",
        "--evaluations",
        "40",
        "--out",
        out,
    ];
    let o = common::motionlab(&base);
    common::assert_success(&o, "pareto");
    for (extra, names) in [
        (vec!["--seed", "2"], "seed 1 (asked: 2)"),
        (vec!["--method", "bsoo"], "method Rmoo (asked: Bsoo)"),
    ] {
        let mut args = base.to_vec();
        args.push("--resume");
        args.extend(extra.iter().copied());
        let o = common::motionlab(&args);
        assert!(!o.status.success(), "{args:?} was accepted");
        let err = common::stderr(&o);
        assert!(
            err.contains(names) && err.contains("another --out"),
            "{err}"
        );
    }
    let mut args = base.to_vec();
    args[1] = "scenes/jump_high2d.ron";
    args.push("--resume");
    let o = common::motionlab(&args);
    assert!(!o.status.success());
    assert!(
        common::stderr(&o).contains("scene scenes/pareto_jump2d.ron"),
        "{}",
        common::stderr(&o)
    );
    // The same options resume (here: report the finished run).
    let mut args = base.to_vec();
    args.push("--resume");
    common::assert_success(&common::motionlab(&args), "pareto --resume, same run");
}
