//! Character files that are wrong: every problem located on its line and field, syntax errors,
//! save and load, and the typed checks of numbers.

use super::tests::{builtin, builtin_path};
use super::*;
use std::path::Path;

/// A valid three-body character; one field per line so that every error has a known line.
const TINY: &str = r#"(
    name: "tiny",
    root: (body: "base", kind: Free),
    bodies: [
        (
            name: "base",
            shape: Box(half_extents: (0.1, 0.1, 0.1)),
            mass: 2.0,
            position: (0.0, 1.0, 0.0),
        ),
        (
            name: "upper",
            shape: Capsule(radius: 0.05, half_length: 0.2, axis: Y),
            mass: 1.0,
            position: (0.0, 1.4, 0.0),
        ),
        (
            name: "lower",
            shape: Ellipsoid(radii: (0.1, 0.05, 0.1)),
            mass: 1.0,
            position: (0.0, 0.6, 0.0),
        ),
    ],
    joints: [
        (
            name: "j_upper",
            parent: "base",
            child: "upper",
            anchor: (0.0, 1.15, 0.0),
            kind: Hinge(axis: (0.0, 0.0, 1.0)),
            limits: [(-30.0, 30.0)],
            kp: 10.0,
            kd: 1.0,
            torque_limit: 5.0,
        ),
        (
            name: "j_lower",
            parent: "base",
            child: "lower",
            anchor: (0.0, 0.85, 0.0),
            kind: Universal(axes: ((0.0, 0.0, 1.0), (1.0, 0.0, 0.0))),
            limits: [(-30.0, 30.0), (-20.0, 20.0)],
            kp: 10.0,
            kd: 1.0,
            torque_limit: 5.0,
        ),
    ],
    end_effectors: [
        (body: "lower", tag: Foot),
        (body: "upper", tag: Head),
    ],
)
"#;

/// Replaces `old` by `new` on line `line` (1-based) of `text`, which must contain it.
fn edit(text: &str, line: usize, old: &str, new: &str) -> String {
    let mut lines: Vec<String> = text.lines().map(str::to_owned).collect();
    assert!(
        lines[line - 1].contains(old),
        "line {line} is {:?}, expected it to contain {old:?}",
        lines[line - 1]
    );
    lines[line - 1] = lines[line - 1].replacen(old, new, 1);
    lines.join("\n") + "\n"
}

/// Removes lines `from..=to` (1-based).
fn remove_lines(text: &str, from: usize, to: usize) -> String {
    text.lines()
        .enumerate()
        .filter(|(i, _)| !(from..=to).contains(&(i + 1)))
        .map(|(_, l)| l)
        .collect::<Vec<_>>()
        .join("\n")
        + "\n"
}

fn parse_bad(text: &str) -> ModelError {
    match parse_character(text, Path::new("bad.ron")) {
        Ok(c) => panic!("expected an error, parsed {c:?}"),
        Err(e) => e,
    }
}

/// The error is `Invalid`, its first problem is on `line` and names `field`, and the message
/// shows `bad.ron:<line>:` and the field.
fn assert_invalid(e: &ModelError, line: usize, field: &str) {
    let shown = e.to_string();
    match e {
        ModelError::Invalid { path, problems } => {
            assert_eq!(path, Path::new("bad.ron"));
            assert_eq!(
                problems[0].0, line,
                "first problem {:?} in:\n{shown}",
                problems[0].1
            );
            assert_eq!(problems[0].1.field, field, "in:\n{shown}");
        }
        other => panic!("expected ModelError::Invalid, got {other:?}"),
    }
    assert_eq!(e.line(), Some(line));
    let first = shown.lines().next().unwrap();
    assert!(first.starts_with(&format!("bad.ron:{line}: ")), "{shown}");
    assert!(first.contains(&format!("`{field}`")), "{shown}");
}

#[test]
fn tiny_template_is_valid() {
    let c = parse_character(TINY, Path::new("tiny.ron")).unwrap();
    assert_eq!(c.bodies.len(), 3);
    assert_eq!(c.internal_dof(), 3);
    assert_eq!(c.total_mass(), 4.0);
    // The line numbers used below.
    let lines: Vec<&str> = TINY.lines().collect();
    assert_eq!(lines[13].trim(), "mass: 1.0,");
    assert_eq!(lines[11].trim(), "name: \"upper\",");
    assert_eq!(lines[29].trim(), "kind: Hinge(axis: (0.0, 0.0, 1.0)),");
    assert_eq!(lines[41].trim(), "limits: [(-30.0, 30.0), (-20.0, 20.0)],");
}

#[test]
fn syntax_error_reports_its_line() {
    // Missing comma between the two limit pairs of j_lower, line 42.
    let bad = edit(TINY, 42, "(-30.0, 30.0), (-20.0", "(-30.0, 30.0) (-20.0");
    let e = parse_bad(&bad);
    match &e {
        ModelError::Syntax {
            path, line, col, ..
        } => {
            assert_eq!(path, Path::new("bad.ron"));
            assert_eq!(*line, 42, "{e}");
            assert!(*col > 1, "{e}");
        }
        other => panic!("expected ModelError::Syntax, got {other:?}"),
    }
    assert!(e.to_string().starts_with("bad.ron:42:"), "{e}");
    assert_eq!(e.line(), Some(42));

    // Missing comma at the end of line 8 (`mass: 2.0`): reported where the next field starts.
    let bad = edit(TINY, 8, "mass: 2.0,", "mass: 2.0");
    let e = parse_bad(&bad);
    assert!(matches!(e, ModelError::Syntax { line: 9, .. }), "{e:?}");
    assert!(e.to_string().starts_with("bad.ron:9:"), "{e}");
}

#[test]
fn missing_field_is_a_syntax_error_naming_it() {
    let bad = remove_lines(TINY, 14, 14); // body "upper" loses `mass`
    let e = parse_bad(&bad);
    assert!(matches!(e, ModelError::Syntax { .. }), "{e:?}");
    assert!(e.to_string().contains("`mass`"), "{e}");
}

#[test]
fn negative_mass_names_line_and_field() {
    let e = parse_bad(&edit(TINY, 14, "mass: 1.0", "mass: -1.0"));
    assert_invalid(&e, 14, "mass");
    assert!(e.to_string().contains("\"upper\""), "{e}");
    assert!(e.to_string().contains("-1"), "{e}");
}

#[test]
fn non_unit_axis_names_line_and_field() {
    let e = parse_bad(&edit(TINY, 30, "(0.0, 0.0, 1.0)", "(0.0, 0.0, 2.0)"));
    assert_invalid(&e, 30, "kind");
    assert!(e.to_string().contains("\"j_upper\""), "{e}");
    assert!(e.to_string().contains("unit"), "{e}");
}

#[test]
fn inverted_limits_name_line_and_field() {
    let e = parse_bad(&edit(TINY, 31, "(-30.0, 30.0)", "(30.0, -30.0)"));
    assert_invalid(&e, 31, "limits");
    assert!(e.to_string().contains("min < max"), "{e}");
}

#[test]
fn wrong_number_of_limit_pairs_names_line_and_field() {
    let e = parse_bad(&edit(
        TINY,
        42,
        "[(-30.0, 30.0), (-20.0, 20.0)]",
        "[(-30.0, 30.0)]",
    ));
    assert_invalid(&e, 42, "limits");
    assert!(e.to_string().contains("\"j_lower\""), "{e}");
    assert!(e.to_string().contains("expected 2"), "{e}");
}

#[test]
fn child_with_two_parents_is_not_a_tree() {
    let e = parse_bad(&edit(TINY, 39, "child: \"lower\"", "child: \"upper\""));
    assert_invalid(&e, 39, "child");
    assert!(e.to_string().contains("not a tree"), "{e}");
    // `lower` is then also unreachable, reported on its own line.
    assert!(
        e.to_string()
            .contains("bad.ron:18: bodies[\"lower\"], field `name`"),
        "{e}"
    );
}

#[test]
fn disconnected_body_names_line_and_field() {
    let bad = remove_lines(TINY, 36, 46); // drop joint j_lower
    assert!(!bad.contains("j_lower"));
    let e = parse_bad(&bad);
    assert_invalid(&e, 18, "name");
    assert!(e.to_string().contains("not connected to the root"), "{e}");
    match &e {
        ModelError::Invalid { problems, .. } => assert_eq!(problems.len(), 1, "{e}"),
        _ => unreachable!(),
    }
}

#[test]
fn unknown_parent_names_line_and_field() {
    let e = parse_bad(&edit(TINY, 38, "parent: \"base\"", "parent: \"nobody\""));
    assert_invalid(&e, 38, "parent");
    assert!(e.to_string().contains("\"nobody\""), "{e}");
}

#[test]
fn every_problem_is_reported() {
    let bad = edit(
        &edit(TINY, 14, "mass: 1.0", "mass: -1.0"),
        31,
        "(-30.0, 30.0)",
        "(30.0, -30.0)",
    );
    let e = parse_bad(&bad);
    let shown = e.to_string();
    assert!(
        shown.contains("bad.ron:14:") && shown.contains("bad.ron:31:"),
        "{shown}"
    );
    assert_eq!(shown.lines().count(), 2, "{shown}");
}

#[test]
fn missing_file_is_an_io_error_naming_it() {
    let e = load_character(Path::new("/nonexistent/dir/none.ron")).unwrap_err();
    assert!(matches!(e, ModelError::Io { .. }), "{e:?}");
    assert!(e.to_string().contains("/nonexistent/dir/none.ron"), "{e}");
    assert_eq!(e.line(), None);
}

// ---------------------------------------------------------------------------------------------
// Saving

#[test]
fn save_then_load_round_trips() {
    let dir = tempfile::tempdir().unwrap();
    for name in ["human2d", "human3d", "bird_robot"] {
        let c = builtin(name);
        let path = dir.path().join(format!("{name}.ron"));
        save_character(&c, &path).unwrap();
        let back = load_character(&path).unwrap();
        assert_eq!(back, c, "{name}");
    }
    // A character with given inertia, rotations and an X capsule also round-trips.
    let mut c = parse_character(TINY, Path::new("tiny.ron")).unwrap();
    c.bodies[1].inertia = Some([0.01, 0.002, 0.0105]);
    c.bodies[1].rotation = [10.0, -20.5, 33.25];
    c.bodies[1].shape = Shape::Capsule {
        radius: 0.05,
        half_length: 0.2,
        axis: Axis::X,
    };
    c.mirror_pairs = vec![("upper".into(), "lower".into())];
    let path = dir.path().join("sub").join("tiny.ron");
    save_character(&c, &path).unwrap();
    assert_eq!(load_character(&path).unwrap(), c);
    let names: Vec<_> = std::fs::read_dir(dir.path().join("sub"))
        .unwrap()
        .map(|e| e.unwrap().file_name())
        .collect();
    assert_eq!(names, [std::ffi::OsString::from("tiny.ron")]);
}

// ---------------------------------------------------------------------------------------------
// Error lines in the built-in files (records on one or two lines)

fn builtin_text(name: &str) -> String {
    std::fs::read_to_string(builtin_path(name)).unwrap()
}

/// 1-based line of the only line of `text` containing `needle`.
fn line_of(text: &str, needle: &str) -> usize {
    let hits: Vec<usize> = text
        .lines()
        .enumerate()
        .filter(|(_, l)| l.contains(needle))
        .map(|(i, _)| i + 1)
        .collect();
    assert_eq!(hits.len(), 1, "{needle:?} found on lines {hits:?}");
    hits[0]
}

#[test]
fn builtin_problems_are_located_on_their_lines() {
    let text = builtin_text("human2d");
    // Body "chest" with a zero box size.
    let l = line_of(&text, "(name: \"chest\"");
    let bad = edit(&text, l, "(0.1, 0.11, 0.15)", "(0.1, 0.0, 0.15)");
    assert_invalid(&parse_bad(&bad), l, "shape");
    // Joint "l_knee" spans two lines; its limits are on the second.
    let l = line_of(&text, "(name: \"l_knee\"");
    let bad = edit(
        &text,
        l + 1,
        "limits: [(-160.0, 0.0)]",
        "limits: [(0.0, -160.0)]",
    );
    assert_invalid(&parse_bad(&bad), l + 1, "limits");
    let bad = edit(&text, l, "parent: \"l_thigh\"", "parent: \"thigh\"");
    assert_invalid(&parse_bad(&bad), l, "parent");
}

#[test]
fn joint_problem_is_located_in_the_joint_not_a_body_of_the_same_name() {
    // human2d has a body and a joint both named "neck".
    let text = builtin_text("human2d");
    let l = line_of(&text, "(name: \"neck\", parent") + 1;
    let bad = edit(
        &text,
        l,
        "limits: [(-30.0, 30.0)]",
        "limits: [(30.0, -30.0)]",
    );
    assert_invalid(&parse_bad(&bad), l, "limits");
}

#[test]
fn bad_end_effector_is_located_on_its_line() {
    let text = builtin_text("human2d");
    let l = line_of(&text, "(body: \"l_foot\"");
    let bad = edit(&text, l, "(body: \"l_foot\"", "(body: \"l_fot\"");
    assert_invalid(&parse_bad(&bad), l, "body");
}

#[test]
fn unknown_weight_bearing_body_is_located_on_its_line() {
    let text = builtin_text("dino");
    let l = line_of(&text, "weight_bearing:");
    let bad = edit(&text, l, "\"r_metatarsus\"", "\"r_metatarsal\"");
    let e = parse_bad(&bad);
    assert_invalid(&e, l, "weight_bearing");
    assert!(
        e.to_string().contains("no body named \"r_metatarsal\""),
        "{e}"
    );
}

/// A character built by a program (not read from a file, so the number scan never sees it):
/// the typed checks alone refuse a NaN joint anchor, a NaN axis, a NaN or 1e30 kg mass and a NaN
/// end-effector point, each naming its field (all four once reached rapier and panicked in it,
/// or would have, found by fuzzing).
#[test]
fn typed_checks_refuse_non_finite_and_absurd_numbers() {
    let fields =
        |c: &Character| -> Vec<String> { c.validate().into_iter().map(|p| p.field).collect() };
    let base = builtin("human3d");
    assert_eq!(fields(&base), Vec::<String>::new());
    let mut c = base.clone();
    c.joints[0].anchor[1] = f64::NAN;
    assert_eq!(fields(&c), ["anchor"]);
    let mut c = base.clone();
    let j = c
        .joints
        .iter_mut()
        .find(|j| matches!(j.kind, JointKind::Universal { .. }))
        .unwrap();
    if let JointKind::Universal { axes } = &mut j.kind {
        axes.0[0] = f64::NAN;
    }
    assert_eq!(fields(&c), ["kind"]);
    for mass in [f64::NAN, 1e30] {
        let mut c = base.clone();
        c.bodies[0].mass = mass;
        assert_eq!(fields(&c), ["mass"], "{mass}");
    }
    let mut c = base.clone();
    c.end_effectors[0].point[2] = f64::NAN;
    assert_eq!(fields(&c), ["point"]);
}

/// A joint anchor far from the bodies it joins (a typo such as -900 for -0.09; a fuzzed file
/// with such levers made the physics solver diverge within one step) is refused with its line.
#[test]
fn an_anchor_far_from_its_bodies_is_refused() {
    let text = builtin_text("human3d");
    let bad = text.replacen(
        "anchor: (0.0, 0.92, -0.09)",
        "anchor: (0.0, 0.92, -900.0)",
        1,
    );
    assert_ne!(bad, text);
    let e = parse_character(&bad, Path::new("far.ron"))
        .unwrap_err()
        .to_string();
    assert!(
        e.contains("field `anchor`: expected the anchor within")
            && e.contains("of its parent `pelvis`"),
        "{e}"
    );
    assert!(
        e.starts_with(&format!("far.ron:{}:", line_of(&bad, "-900.0"))),
        "{e}"
    );
}
