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
