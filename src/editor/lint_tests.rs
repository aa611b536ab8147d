//! The physics lint (issue P7 deliverable 2) and the validation messages of the editor.

use super::tests::{human3d, human3d_path, saved_text};
use super::*;
use crate::model::{Character, load_character, save_character};

fn kinds(lints: &[Lint]) -> Vec<(LintKind, String)> {
    lints.iter().map(|l| (l.kind, l.subject.clone())).collect()
}

fn set_mass(c: &mut Character, body: &str, mass: f64) {
    let i = c.body_index(body).unwrap();
    c.bodies[i].mass = mass;
}

/// human3d's only warnings are its shoulders: de Leva's torso (23.44 kg here) is 10.85 times an
/// upper arm (2.16 kg), just over 10:1. The masses are anatomical; the threshold is a rule of
/// thumb for iterative solvers, and the warning stands (reported, not silenced).
#[test]
fn human3d_lints_only_its_shoulders_mass_ratio() {
    let lints = lint(&human3d());
    assert_eq!(
        kinds(&lints),
        vec![
            (LintKind::MassRatio, "l_shoulder".into()),
            (LintKind::MassRatio, "r_shoulder".into())
        ],
        "{lints:#?}"
    );
    assert!(lints[0].message.contains("10.9:1"), "{}", lints[0].message);
}

#[test]
fn a_heavy_hand_flags_the_mass_ratio_naming_both_bodies() {
    let mut c = human3d();
    set_mass(&mut c, "l_hand", 30.0);
    let lints: Vec<_> = lint(&c)
        .into_iter()
        .filter(|l| l.subject == "l_wrist")
        .collect();
    assert_eq!(lints.len(), 1, "{lints:#?}");
    let m = &lints[0].message;
    assert_eq!(lints[0].kind, LintKind::MassRatio);
    assert!(
        m.contains("`l_forearm` (1.28 kg)") && m.contains("`l_hand` (30 kg)"),
        "{m}"
    );
    assert!(m.contains("23.4:1"), "{m}");
}

#[test]
fn narrow_limits_are_flagged() {
    let mut c = human3d();
    let j = c.joints.iter().position(|j| j.name == "l_elbow").unwrap();
    c.joints[j].limits = vec![(0.0, 3.0)];
    assert!(c.validate().is_empty());
    let lints: Vec<_> = lint(&c)
        .into_iter()
        .filter(|l| l.kind == LintKind::NarrowLimits)
        .collect();
    assert_eq!(
        kinds(&lints),
        vec![(LintKind::NarrowLimits, "l_elbow".into())]
    );
    assert!(lints[0].message.contains("(0, 3)°"), "{}", lints[0].message);
    assert!(
        lints[0].message.contains("3.00° of motion"),
        "{}",
        lints[0].message
    );
}

#[test]
fn overlapping_thighs_are_flagged() {
    let mut c = human3d();
    let (l, r) = (
        c.body_index("l_thigh").unwrap(),
        c.body_index("r_thigh").unwrap(),
    );
    c.bodies[r].position = c.bodies[l].position;
    assert!(c.validate().is_empty());
    let lints: Vec<_> = lint(&c)
        .into_iter()
        .filter(|l| l.kind == LintKind::Interpenetration)
        .collect();
    assert_eq!(lints.len(), 1, "{lints:#?}");
    let m = &lints[0].message;
    assert!(m.contains("`l_thigh`") && m.contains("`r_thigh`"), "{m}");
    // Two coincident capsules of radius 0.07 m: 140 mm deep (the penetration solver's estimate
    // of a shape nudged by 0.1 mm is within a few millimetres; near 5 mm it is exact, below).
    let mm: f64 = m
        .split(" by ")
        .nth(1)
        .unwrap()
        .split(" mm")
        .next()
        .unwrap()
        .parse()
        .unwrap();
    assert!((mm - 140.0).abs() < 3.0, "{m}");
    // Touching (0.5 mm apart from the left thigh's side) is not flagged.
    c.bodies[r].position = c.bodies[l].position;
    c.bodies[r].position[2] += 0.1405;
    assert!(
        lint(&c)
            .iter()
            .all(|l| l.kind != LintKind::Interpenetration)
    );
    c.bodies[r].position[2] -= 0.0155;
    assert!(
        lint(&c)
            .iter()
            .any(|l| l.kind == LintKind::Interpenetration)
    );
}

#[test]
fn degenerate_inertia_is_flagged() {
    let mut c = human3d();
    let t = c.body_index("torso").unwrap();
    c.bodies[t].inertia = Some([1.0, 1.0, 5.0]);
    let lints: Vec<_> = lint(&c)
        .into_iter()
        .filter(|l| l.kind == LintKind::DegenerateInertia)
        .collect();
    assert_eq!(
        kinds(&lints),
        vec![(LintKind::DegenerateInertia, "torso".into())]
    );
    assert!(
        lints[0].message.contains("triangle inequality: 1 + 1 < 5"),
        "{}",
        lints[0].message
    );
    // A needle (ratio 2000) and a zero moment.
    c.bodies[t].inertia = Some([1.0, 1.0, 0.0005]);
    let m = &lint(&c)[2].message;
    assert!(m.contains("ratio of 2000"), "{m}");
    c.bodies[t].inertia = Some([1.0, 1.0, 0.0]);
    let m = &lint(&c)[2].message;
    assert!(m.contains("not positive"), "{m}");
    // At the triangle's edge (a flat plate, 1 + 1 = 2) it is fine.
    c.bodies[t].inertia = Some([1.0, 1.0, 2.0]);
    assert_eq!(lint(&c).len(), 2);
}

/// `validation` words problems exactly as `motionlab check` prints a file's: the same text as
/// loading the saved file, line numbers and all.
#[test]
fn validation_matches_the_loader() {
    let mut c = human3d();
    assert!(validation(&c, &human3d_path()).is_empty());
    set_mass(&mut c, "l_hand", -1.0);
    let i = c.joints.iter().position(|j| j.name == "neck").unwrap();
    c.joints[i].limits = vec![(10.0, -10.0), (0.0, 1.0)];
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("bad.ron");
    let lines = validation(&c, &path);
    assert_eq!(lines.len(), 2, "{lines:#?}");
    save_character(&c, &path).unwrap();
    let err = load_character(&path).unwrap_err();
    assert_eq!(lines.join("\n"), err.to_string());
    let prefix = format!("{}:", path.display());
    assert!(lines[0].starts_with(&prefix), "{}", lines[0]);
    assert!(
        lines[0].ends_with(
            r#"bodies["l_hand"], field `mass`: expected a mass in (0, 10000] kg, found -1"#
        ),
        "{}",
        lines[0]
    );
    // The line is the `mass:` line of l_hand in the saved text.
    let n: usize = lines[0][prefix.len()..]
        .split(':')
        .next()
        .unwrap()
        .parse()
        .unwrap();
    let text = saved_text(&c);
    assert!(
        text.lines().nth(n - 1).unwrap().contains("mass: -1"),
        "line {n}"
    );
    // `validation` serializes as `save_character` does.
    assert_eq!(text, std::fs::read_to_string(&path).unwrap());
}
