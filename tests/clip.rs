//! `motionlab clip import|export|info` (docs/clips.md): a gait solve becomes a clip, a clip
//! goes out as BVH or glTF and comes back with its joint angles within 1e-4 rad, a motion-capture file
//! brings its own character, and bad files get file:line errors.

mod common;

use common::{assert_success, motionlab, stderr, stdout};
use motionlab::clip::Clip;
use std::path::Path;

fn field(out: &str, key: &str) -> String {
    let prefix = format!("{key}: ");
    let lines: Vec<&str> = out.lines().filter(|l| l.starts_with(&prefix)).collect();
    assert_eq!(lines.len(), 1, "expected one `{key}:` line in:\n{out}");
    lines[0][prefix.len()..].to_string()
}

fn s(p: &Path) -> &str {
    p.to_str().unwrap()
}

/// `clip import` of the shipped horse trot (a gait clip), `clip info` of the result, `clip
/// export --out X.bvh`, and `clip import X.bvh --character characters/horse.ron` back: the joint
/// angles agree within 1e-4 rad, the root within a micrometre.
#[test]
fn a_gait_becomes_a_clip_and_survives_bvh() {
    let dir = tempfile::tempdir().unwrap();
    let clip_path = dir.path().join("trot.ron");
    let o = motionlab(&[
        "clip",
        "import",
        "assets/gaits/horse_trot_1ms.ron",
        "--out",
        s(&clip_path),
    ]);
    assert_success(&o, "clip import gait");
    assert_eq!(field(&stdout(&o), "frames"), "30");

    let o = motionlab(&["clip", "info", s(&clip_path)]);
    assert_success(&o, "clip info");
    let out = stdout(&o);
    assert_eq!(field(&out, "character"), "characters/horse.ron");
    assert_eq!(field(&out, "frames"), "30");
    assert_eq!(field(&out, "rate"), "37.5 fps");
    assert_eq!(field(&out, "duration"), "0.8000 s");
    assert_eq!(field(&out, "cyclic"), "true");
    assert_eq!(field(&out, "source"), "gait");
    assert_eq!(field(&out, "speed"), "1 m/s");
    assert!(field(&out, "cycle").starts_with("translation (0.8000, 0.0000, 0.0000) m"));
    // The root travels V·T less one frame over the cycle's 30 frames, give or take its sway.
    let travel = field(&out, "root_travel");
    let x: f64 = travel[1..travel.find(',').unwrap()].parse().unwrap();
    assert!((x - 0.8 * 29.0 / 30.0).abs() < 0.05, "{travel}");

    let bvh = dir.path().join("trot.bvh");
    let o = motionlab(&["clip", "export", s(&clip_path), "--out", s(&bvh)]);
    assert_success(&o, "clip export");
    let back_path = dir.path().join("back.ron");
    let o = motionlab(&[
        "clip",
        "import",
        s(&bvh),
        "--character",
        "characters/horse.ron",
        "--scale",
        "1",
        "--out",
        s(&back_path),
    ]);
    assert_success(&o, "clip import bvh");
    let (a, b) = (
        Clip::load(&clip_path).unwrap(),
        Clip::load(&back_path).unwrap(),
    );
    assert_eq!(a.coordinates, b.coordinates);
    let worst = a.max_joint_difference(&b);
    assert!(worst < 1e-4, "joint angles moved by {worst} rad");
    for (x, y) in a.frames.iter().zip(&b.frames) {
        assert!((0..3).all(|k| (x.root[k] - y.root[k]).abs() < 1e-6));
    }

    // glTF, binary and text: a skinned, animated horse that reads back onto the horse it names.
    for name in ["trot.glb", "trot.gltf"] {
        let file = dir.path().join(name);
        let o = motionlab(&["clip", "export", s(&clip_path), "--out", s(&file)]);
        assert_success(&o, "clip export gltf");
        let back_path = dir.path().join(format!("{name}.ron"));
        let o = motionlab(&["clip", "import", s(&file), "--out", s(&back_path)]);
        assert_success(&o, "clip import gltf");
        let b = Clip::load(&back_path).unwrap();
        assert_eq!(
            b.character.path, a.character.path,
            "the file names its character"
        );
        assert_eq!(b.rate, 37.5);
        let worst = a.max_joint_difference(&b);
        assert!(worst < 1e-4, "{name}: joint angles moved by {worst} rad");
    }
    assert!(
        dir.path().join("trot.bin").exists(),
        "a .gltf keeps its buffer beside it"
    );

    let o = motionlab(&["clip", "export", s(&clip_path), "--out", "trot.fbx"]);
    assert!(!o.status.success());
    assert!(
        stderr(&o).contains("expected --out ending in .bvh"),
        "{}",
        stderr(&o)
    );
}

const MOCAP: &str = "HIERARCHY
ROOT Hips
{
  OFFSET 0.0 95.0 0.0
  CHANNELS 6 Xposition Yposition Zposition Zrotation Xrotation Yrotation
  JOINT LeftUpLeg
  {
    OFFSET 9.0 -5.0 0.0
    CHANNELS 3 Zrotation Xrotation Yrotation
    JOINT LeftLeg
    {
      OFFSET 0.0 -42.0 0.0
      CHANNELS 1 Xrotation
      End Site
      {
        OFFSET 0.0 -45.0 0.0
      }
    }
  }
  JOINT Chest
  {
    OFFSET 0.0 40.0 0.0
    CHANNELS 3 Zrotation Xrotation Yrotation
    End Site
    {
      OFFSET 0.0 30.0 0.0
    }
  }
}
MOTION
Frames: 3
Frame Time: 0.01
0 95 0 0 0 0 10 20 30 -40 1 2 3
2 95 0 0 0 0 10 20 30 -41 1 2 3
4 95 0 0 0 0 10 20 30 -42 1 2 3
";

/// A motion-capture file in centimetres brings its own character (written beside the clip and
/// loadable by `check`); a row with a missing value is refused with its line.
#[test]
fn motion_capture_brings_its_own_character_and_bad_rows_their_line() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("walk.bvh");
    std::fs::write(&file, MOCAP).unwrap();
    let out = dir.path().join("walk.ron");
    let o = motionlab(&["clip", "import", s(&file), "--out", s(&out)]);
    assert_success(&o, "clip import mocap");
    let text = stdout(&o);
    assert_eq!(field(&text, "scale"), "0.01 m per unit");
    let character = dir.path().join("walk.character.ron");
    assert_eq!(field(&text, "character"), s(&character));
    let o = motionlab(&["check", s(&character)]);
    assert_success(&o, "check the imported character");
    let clip = Clip::load(&out).unwrap();
    assert_eq!(clip.frames.len(), 3);
    assert!((clip.rate - 100.0).abs() < 1e-9);
    assert!(
        (clip.frames[2].root[0] - 0.04).abs() < 1e-12,
        "centimetres to metres"
    );

    let bad = dir.path().join("bad.bvh");
    std::fs::write(
        &bad,
        MOCAP.replace("4 95 0 0 0 0 10 20 30 -42 1 2 3", "4 95 0 0"),
    )
    .unwrap();
    let o = motionlab(&[
        "clip",
        "import",
        s(&bad),
        "--out",
        s(&dir.path().join("x.ron")),
    ]);
    assert!(!o.status.success());
    let err = stderr(&o);
    assert!(
        err.contains(&format!(
            "{}:35: expected 13 values (one per channel), found 4",
            s(&bad)
        )),
        "{err}"
    );
    assert!(!err.contains("panicked"), "{err}");
    assert!(
        !dir.path().join("x.ron").exists(),
        "nothing written on error"
    );
}
