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
#[test]
fn gait_discovery_reports_generations_and_solves_the_best_timing() {
    let dir = tempfile::tempdir().unwrap();
    let clip = dir.path().join("hop.ron");
    let creature = concat!(env!("CARGO_MANIFEST_DIR"), "/characters/monoped.ron");
    let o = motionlab(&[
        "gait",
        creature,
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
        "--threads",
        "2",
        "--seed",
        "3",
        "--out",
        clip.to_str().unwrap(),
    ]);
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
    assert!(best[1] <= best[0], "the best cost never rises: {best:?}");
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
