//! `motionlab arbs` (issue P7): a character from a skinned glTF (RiggedFigure, shipped under
//! assets/third_party) passes `check`, its animation transfers to a clip of the character, and
//! malformed files fail with the file and the problem named, without a panic.

mod common;

use common::{assert_success, motionlab, stderr, stdout};
use motionlab::clip::Clip;
use std::path::Path;

const FIGURE: &str = "assets/third_party/rigged_figure/RiggedFigure.gltf";

fn field(out: &str, key: &str) -> String {
    let prefix = format!("{key}: ");
    let lines: Vec<&str> = out.lines().filter(|l| l.starts_with(&prefix)).collect();
    assert_eq!(lines.len(), 1, "expected one `{key}:` line in:\n{out}");
    lines[0][prefix.len()..].to_string()
}

fn s(p: &Path) -> &str {
    p.to_str().unwrap()
}

/// The figure's 19 joints give 14 capsules and two feet pads (13 hinges, 2 welds), 50 kg
/// unless `--mass` says otherwise; the character passes `check`; `--clip` transfers the
/// figure's animation (38 frames at 30 fps) with every frame's root and end effectors within
/// 5 cm, and the clip refers to the character file.
#[test]
fn a_skinned_gltf_becomes_a_character_and_a_clip() {
    let dir = tempfile::tempdir().unwrap();
    let character = dir.path().join("figure.ron");
    let clip = dir.path().join("figure_clip.ron");
    let o = motionlab(&[
        "arbs",
        FIGURE,
        "--out",
        s(&character),
        "--mass",
        "60",
        "--clip",
        s(&clip),
        "--animation",
        "animation",
    ]);
    assert_success(&o, "arbs");
    let out = stdout(&o);
    assert_eq!(field(&out, "bodies"), "16");
    assert_eq!(field(&out, "joints"), "15");
    assert_eq!(field(&out, "dof"), "13 internal + 6 root");
    assert_eq!(field(&out, "mass"), "60.00 kg");
    assert!(field(&out, "end effectors").contains("(Foot)"), "{out}");
    assert!(
        field(&out, "root error").ends_with("100 % of frames <= 5 cm"),
        "{out}"
    );
    assert!(
        field(&out, "end-effector error").ends_with("100 % of frames <= 5 cm"),
        "{out}"
    );

    let o = motionlab(&["check", s(&character)]);
    assert_success(&o, "check");
    assert!(stdout(&o).contains("16 bodies, 15 joints, 13 internal DOF, 60.00 kg"));

    let c = Clip::load(&clip).unwrap();
    assert_eq!(c.frames.len(), 38);
    assert_eq!(c.rate, 30.0);
    assert_eq!(c.tags.source, "transfer");
    assert_eq!(c.character.path, s(&character));
    let text = std::fs::read_to_string(&character).unwrap();
    assert_eq!(
        c.character,
        motionlab::clip::CharacterRef::new(&character, &text)
    );
    let o = motionlab(&["clip", "info", s(&clip)]);
    assert_success(&o, "clip info");
    assert_eq!(field(&stdout(&o), "source"), "transfer");

    // An animation the file does not have is refused with the ones it has.
    let o = motionlab(&[
        "arbs",
        FIGURE,
        "--out",
        s(&character),
        "--clip",
        s(&clip),
        "--animation",
        "walk",
    ]);
    assert!(!o.status.success());
    let err = stderr(&o);
    assert!(
        err.contains("no animation \"walk\"") && err.contains("0 `animation`"),
        "{err}"
    );
}

/// Truncated, garbage and skinless files, and a BVH with a bad number: exit code 1, the file
/// and the problem on standard error, no panic, no character written.
#[test]
fn malformed_files_fail_cleanly() {
    let dir = tempfile::tempdir().unwrap();
    let glb = dir.path().join("cut.glb");
    let mut bytes = b"glTF".to_vec();
    bytes.extend(2u32.to_le_bytes());
    bytes.extend(5000u32.to_le_bytes());
    bytes.extend([0u8; 100]);
    std::fs::write(&glb, &bytes).unwrap();
    let garbage = dir.path().join("garbage.gltf");
    std::fs::write(&garbage, "{\"asset\": {\"version\": \"2.0\"}, \"nodes\": [").unwrap();
    let static_mesh = dir.path().join("static.gltf");
    std::fs::write(
        &static_mesh,
        r#"{"asset": {"version": "2.0"}, "nodes": [{"name": "box"}]}"#,
    )
    .unwrap();
    let bvh = dir.path().join("bad.bvh");
    std::fs::write(
        &bvh,
        "HIERARCHY\nROOT Hips\n{\n  OFFSET 0 0 0\n  CHANNELS 3 Xposition Yposition Zposition\n  \
         JOINT Head\n  {\n    OFFSET 0 x1 0\n    End Site\n    {\n      OFFSET 0 1 0\n    }\n  }\n}\n\
         MOTION\nFrames: 1\nFrame Time: 0.1\n0 0 0\n",
    )
    .unwrap();
    let cases = [
        (&glb, "truncated binary glTF".to_string()),
        (&garbage, "not a valid glTF file".to_string()),
        (&static_mesh, "no skin".to_string()),
        (
            &bvh,
            format!("{}:8: expected the offset's y", bvh.display()),
        ),
    ];
    for (file, problem) in cases {
        let out = dir.path().join("never.ron");
        let o = motionlab(&["arbs", s(file), "--out", s(&out)]);
        let err = stderr(&o);
        assert_eq!(o.status.code(), Some(1), "{}: {err}", file.display());
        assert!(!err.contains("panicked"), "{err}");
        assert!(err.contains(s(file)) && err.contains(&problem), "{err}");
        assert!(!out.exists());
    }
    let o = motionlab(&["arbs", FIGURE, "--out", "x.ron", "--mass=-3"]);
    assert!(!o.status.success());
    assert!(stderr(&o).contains("expected a value in (0, 100000] kg"));
}

/// A capture without a skin (CMU 12_01) gets a human's segment masses by default and says so;
/// `--masses density` keeps the paper's one density; the skinned RiggedFigure keeps one density
/// under `auto` and is warned about under `human` (its names show no head); a misspelt rule is
/// refused with the choices.
#[test]
fn masses_follow_the_rule_asked_for() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("c.ron");
    let cmu = "tests/data/cmu/12_01_walk.bvh";
    let run = |file: &str, rule: &str| {
        let o = motionlab(&["arbs", file, "--out", s(&out), "--masses", rule]);
        assert_success(&o, "arbs");
        (field(&stdout(&o), "masses"), stderr(&o))
    };
    assert!(run(cmu, "auto").0.starts_with("human"));
    assert!(run(cmu, "density").0.starts_with("density"));
    assert!(run(FIGURE, "auto").0.starts_with("density"));
    let (masses, err) = run(FIGURE, "human");
    assert!(masses.starts_with("density"), "{masses}");
    assert!(err.contains("the body names show no human"), "{err}");
    let o = motionlab(&["arbs", cmu, "--out", s(&out), "--masses", "heavy"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(
        stderr(&o).contains("expected density, human or auto"),
        "{}",
        stderr(&o)
    );
}
