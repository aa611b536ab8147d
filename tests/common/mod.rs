//! Helpers shared by the command-line tests: run the binary from the source tree and read its
//! output.
#![allow(dead_code)]

use std::process::{Command, Output};

pub mod cli;
#[cfg(feature = "ipopt")]
pub mod gait;

pub fn motionlab(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_motionlab"))
        .args(args)
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .output()
        .expect("running motionlab")
}

pub fn stdout(o: &Output) -> String {
    String::from_utf8(o.stdout.clone()).unwrap()
}

pub fn stderr(o: &Output) -> String {
    String::from_utf8(o.stderr.clone()).unwrap()
}

pub fn assert_success(o: &Output, what: &str) {
    assert!(
        o.status.success(),
        "{what}: {:?}\nstdout:\n{}\nstderr:\n{}",
        o.status,
        stdout(o),
        stderr(o)
    );
}

/// Asserts that two solves of the same space (`space generate` folders) hold the same gait clips,
/// bit for bit but for their solve times, and the same manifest lines (names and costs).
pub fn assert_same_space(reference: &std::path::Path, other: &std::path::Path) {
    use motionlab::space::generate::{Manifest, Outcome};
    let without_times = |p: &std::path::Path| -> String {
        std::fs::read_to_string(p)
            .unwrap_or_else(|e| panic!("{}: {e}", p.display()))
            .lines()
            .filter(|l| !l.contains("solve_time_s"))
            .collect::<Vec<_>>()
            .join("\n")
    };
    let mut clips = 0;
    for e in std::fs::read_dir(reference.join("gait")).unwrap().flatten() {
        let name = e.file_name();
        assert_eq!(
            without_times(&e.path()),
            without_times(&other.join("gait").join(&name)),
            "gait clip {name:?}"
        );
        clips += 1;
    }
    assert!(clips > 0, "no gait clips in {}", reference.display());
    let lines = |dir: &std::path::Path| -> Vec<(String, Option<f64>)> {
        let m: Manifest = motionlab::files::read_ron(&dir.join("space.ron")).unwrap();
        let mut v: Vec<(String, Option<f64>)> = m
            .entries
            .iter()
            .map(|e| {
                let cost = match e.outcome {
                    Outcome::Solved { cost, .. } => Some(cost),
                    Outcome::Failed { .. } => None,
                };
                (e.name.clone(), cost)
            })
            .collect();
        v.sort_by(|a, b| a.0.cmp(&b.0));
        v
    };
    assert_eq!(lines(reference), lines(other), "manifest lines");
}
