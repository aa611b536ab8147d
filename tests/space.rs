//! `motionlab space generate` end to end (issue P6 deliverable 1; McIntosh 2011, §4.2.3): a space
//! solved as a job of `gait-job` processes, its manifest, resuming, and a space solved again from
//! the optima of an earlier solve (`--from`).
#![cfg(feature = "ipopt")]

mod common;

use common::{assert_same_space, assert_success, motionlab, stderr, stdout};
use motionlab::space::generate::{Manifest, Outcome};
use std::path::Path;

/// The shipped space's standing point alone, with the shipped objective.
fn standing_space(dir: &Path) -> std::path::PathBuf {
    let character = Path::new(env!("CARGO_MANIFEST_DIR")).join("characters/human3d_walker.ron");
    let text = format!(
        r#"(
    name: "human3d_standing",
    character: "{}",
    dimensions: [
        (name: "gait", values: [
            (label: "stand", specifiers: [Family("stand"), Speed(0.0),
                Timing(period: 1.0, contacts: [("l_foot", 0.0, 1.0), ("r_foot", 0.0, 1.0)])]),
        ]),
        (name: "turn", values: [(label: "0", specifiers: [TurnRate(0.0)])]),
    ],
    common: [Posture(1.0, ["arm", "hand", "head", "torso"]), FlatFeet],
    solver: (max_iterations: 3000),
)"#,
        character.display()
    );
    let path = dir.join("standing.ron");
    std::fs::write(&path, text).unwrap();
    path
}

fn manifest(out: &Path) -> Manifest {
    ron::from_str(&std::fs::read_to_string(out.join("space.ron")).unwrap()).unwrap()
}

#[test]
fn a_space_solved_again_starts_from_the_earlier_solve_and_resumes() {
    let dir = tempfile::tempdir().unwrap();
    let space = standing_space(dir.path());
    let out = dir.path().join("out");
    let (space_arg, out_arg) = (space.to_str().unwrap(), out.to_str().unwrap());
    let prior = "assets/spaces/human3d_locomotion";
    let args = [
        "space",
        "generate",
        space_arg,
        "--out",
        out_arg,
        "--threads",
        "1",
        "--from",
        prior,
    ];
    let o = motionlab(&args);
    assert_success(&o, "space generate --from");
    assert!(
        stdout(&o).contains(&format!(
            "start gait=stand,turn=0 from gait=stand,turn=0 in {prior}"
        )),
        "{}",
        stdout(&o)
    );
    let shipped = manifest(Path::new(env!("CARGO_MANIFEST_DIR")).join(prior).as_path());
    let shipped_cost = match &shipped.entries[0].outcome {
        Outcome::Solved { cost, .. } if shipped.entries[0].name == "gait=stand,turn=0" => *cost,
        other => panic!("the shipped manifest starts with standing: {other:?}"),
    };
    let solved = manifest(&out);
    assert_eq!(solved.entries.len(), 1, "{solved:?}");
    match &solved.entries[0].outcome {
        Outcome::Solved {
            cost,
            max_violation,
            audit,
            warm_start,
            start_kept,
            ..
        } => {
            assert_eq!(
                warm_start.as_deref(),
                Some(format!("gait=stand,turn=0 in {prior}").as_str())
            );
            assert!(*max_violation <= 1e-6 && *audit <= 1e-6, "{solved:?}");
            // Standing costs about 1e-5 (the posture term): from the shipped optimum the solve
            // itself ends there or lower. (The job keeps its start when the solve ends above
            // it, so the kept cost alone would hold by construction: the solve's own is read.)
            let solve = start_kept.unwrap_or(*cost);
            assert!(
                solve <= shipped_cost * 1.005 + 1e-9,
                "the solve ended at {solve} from the shipped {shipped_cost}"
            );
        }
        other => panic!("standing was not solved: {other:?}"),
    }
    for folder in ["gait", "clips"] {
        assert!(out.join(folder).join("gait=stand_turn=0.ron").exists());
    }

    // Run again: everything is done, nothing is solved again.
    let again = motionlab(&args);
    assert_success(&again, "space generate, resumed");
    assert!(
        stdout(&again).contains("1 points, 0 connections, 1 done already")
            && !stdout(&again).contains("start "),
        "{}",
        stdout(&again)
    );
    assert_eq!(manifest(&out), solved);

    // A folder that holds no solved space is refused, by name.
    let missing = dir.path().join("nowhere");
    let refused = motionlab(&[
        "space",
        "generate",
        space_arg,
        "--out",
        out_arg,
        "--from",
        missing.to_str().unwrap(),
    ]);
    assert!(!refused.status.success());
    assert!(
        stderr(&refused).contains(&format!("{} is not a solved space", missing.display())),
        "{}",
        stderr(&refused)
    );
}

/// A space solved as job arrays would (`--point K` for every point, all started at once, each
/// waiting for the points it starts from; then `--connection K` for every connection; then a
/// merge) gives the clips and manifest of the space solved in one process.
#[test]
fn a_space_solved_point_by_point_then_merged_equals_the_whole_solve() {
    let dir = tempfile::tempdir().unwrap();
    let space = "tests/data/spaces/monoped_hops.ron";
    let whole = dir.path().join("whole");
    let o = motionlab(&[
        "space",
        "generate",
        space,
        "--out",
        whole.to_str().unwrap(),
        "--threads",
        "2",
    ]);
    assert_success(&o, "space generate");
    let tasks = dir.path().join("tasks");
    let counted = motionlab(&["space", "points", space, "--count"]);
    assert_success(&counted, "space points --count");
    assert_eq!(stdout(&counted).trim(), "6 2");
    // One array's tasks, all started at once.
    let array = |kind: &str, n: usize| -> Vec<String> {
        let children: Vec<std::process::Child> = (0..n)
            .rev()
            .map(|k| {
                std::process::Command::new(env!("CARGO_BIN_EXE_motionlab"))
                    .args(["space", "generate", space, "--threads", "1", "--out"])
                    .arg(&tasks)
                    .args([&format!("--{kind}"), &k.to_string()])
                    .current_dir(env!("CARGO_MANIFEST_DIR"))
                    .stdout(std::process::Stdio::piped())
                    .stderr(std::process::Stdio::piped())
                    .spawn()
                    .unwrap()
            })
            .collect();
        children
            .into_iter()
            .map(|c| {
                let o = c.wait_with_output().unwrap();
                assert_success(&o, &format!("space generate --{kind}"));
                stdout(&o)
            })
            .collect()
    };
    // The points in reverse order: the later ones wait for the earlier ones' points.
    let outputs = array("point", 6);
    assert!(
        outputs.iter().any(|o| o.contains("waiting for ")),
        "a task waits for the point it starts from"
    );
    array("connection", 2);
    assert!(
        !tasks.join("space.ron").exists(),
        "tasks write parts, not the manifest"
    );
    let merged = motionlab(&["space", "generate", space, "--out", tasks.to_str().unwrap()]);
    assert_success(&merged, "the merge");
    assert!(
        stdout(&merged).contains("6 points, 2 connections, 8 done already"),
        "{}",
        stdout(&merged)
    );
    assert_same_space(&whole, &tasks);
    assert_eq!(
        std::fs::read_dir(tasks.join("parts")).unwrap().count(),
        0,
        "the merge removes the parts"
    );
    // A point number past the space's last is refused, by the space and its count.
    let refused = motionlab(&["space", "generate", space, "--point", "6"]);
    assert!(!refused.status.success());
    assert!(
        stderr(&refused).contains("point 6: tests/data/spaces/monoped_hops.ron has 6 points"),
        "{}",
        stderr(&refused)
    );
    let refused = motionlab(&["space", "generate", space, "--connection", "2"]);
    assert!(!refused.status.success());
    assert!(
        stderr(&refused)
            .contains("connection 2: tests/data/spaces/monoped_hops.ron has 2 connections"),
        "{}",
        stderr(&refused)
    );
}
