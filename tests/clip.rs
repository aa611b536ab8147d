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
        stderr(&o).contains("expected a clip file ending in .ron, .bvh, .gltf or .glb"),
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
    // The root joint (its position channel) 4 cm along x in frame 2: centimetres to metres.
    let c = motionlab::model::load_character(&character).unwrap();
    let hips = &c.bodies[c.body_index(&c.root.body).unwrap()];
    let f = &clip.frames[2].root;
    let turn = motionlab::clip::pose::quat_of(f)
        * motionlab::clip::pose::reference_orientation(hips).inverse();
    let origin = nalgebra::Vector3::new(f[0], f[1], f[2])
        - turn
            * (nalgebra::Vector3::from(hips.position)
                - nalgebra::Vector3::from(c.root.origin.unwrap()));
    assert!(
        (origin.x - 0.04).abs() < 1e-9,
        "centimetres to metres: {origin:?}"
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

/// A BVH file's joints, read independently of motionlab's reader: per node its parent, offset
/// and channels (axis, is-rotation), per node its End Site, and the motion rows.
struct MocapFile {
    parents: Vec<Option<usize>>,
    offsets: Vec<[f64; 3]>,
    channels: Vec<Vec<(usize, bool)>>,
    end_sites: Vec<Option<[f64; 3]>>,
    rows: Vec<Vec<f64>>,
}

fn read_mocap(text: &str) -> MocapFile {
    let mut f = MocapFile {
        parents: Vec::new(),
        offsets: Vec::new(),
        channels: Vec::new(),
        end_sites: Vec::new(),
        rows: Vec::new(),
    };
    let (hierarchy, motion) = text.split_once("MOTION").expect("a MOTION section");
    let words: Vec<&str> = hierarchy.split_whitespace().collect();
    let mut stack: Vec<usize> = Vec::new();
    let mut in_end_site = false;
    let mut pending_node = false;
    let mut k = 0;
    while k < words.len() {
        match words[k] {
            "ROOT" | "JOINT" => {
                f.parents.push(stack.last().copied());
                f.offsets.push([0.0; 3]);
                f.channels.push(Vec::new());
                f.end_sites.push(None);
                pending_node = true;
                k += 2;
            }
            "End" => {
                in_end_site = true;
                k += 2;
            }
            "{" => {
                if pending_node {
                    stack.push(f.parents.len() - 1);
                    pending_node = false;
                }
                k += 1;
            }
            "}" => {
                if in_end_site {
                    in_end_site = false;
                } else {
                    stack.pop();
                }
                k += 1;
            }
            "OFFSET" => {
                let v = [1, 2, 3].map(|i| words[k + i].parse::<f64>().unwrap());
                let node = *stack.last().unwrap();
                if in_end_site {
                    f.end_sites[node] = Some(v);
                } else {
                    f.offsets[node] = v;
                }
                k += 4;
            }
            "CHANNELS" => {
                let n: usize = words[k + 1].parse().unwrap();
                let node = *stack.last().unwrap();
                for c in &words[k + 2..k + 2 + n] {
                    let axis = "XYZ".find(c[..1].to_ascii_uppercase().as_str()).unwrap();
                    f.channels[node].push((axis, c.to_ascii_lowercase().ends_with("rotation")));
                }
                k += 2 + n;
            }
            _ => k += 1,
        }
    }
    for line in motion.lines().skip(3) {
        let row: Vec<f64> = line
            .split_whitespace()
            .map(|v| v.parse().unwrap())
            .collect();
        if !row.is_empty() {
            f.rows.push(row);
        }
    }
    f
}

/// Every joint's and End Site's world position in frame `frame` (file units): a node's frame is
/// its parent's times a translation (its offset, each axis with a position channel replaced by
/// the channel's value, as motion-capture tools read them) times its rotation channels in their
/// order.
fn world_positions(f: &MocapFile, frame: usize) -> Vec<nalgebra::Vector3<f64>> {
    use nalgebra::{Rotation3, Unit, Vector3};
    let mut frames: Vec<(Rotation3<f64>, Vector3<f64>)> = Vec::new();
    let mut out = Vec::new();
    let mut at = 0;
    for i in 0..f.parents.len() {
        let mut t = Vector3::from(f.offsets[i]);
        let mut r = Rotation3::identity();
        for &(axis, rotation) in &f.channels[i] {
            let v = f.rows[frame][at];
            at += 1;
            if rotation {
                let mut a = Vector3::zeros();
                a[axis] = 1.0;
                r *= Rotation3::from_axis_angle(&Unit::new_normalize(a), v.to_radians());
            } else {
                t[axis] = v;
            }
        }
        let (pr, pp) = match f.parents[i] {
            Some(p) => frames[p],
            None => (Rotation3::identity(), Vector3::zeros()),
        };
        let world = (pr * r, pp + pr * t);
        out.push(world.1);
        if let Some(e) = f.end_sites[i] {
            out.push(world.1 + world.0 * Vector3::from(e));
        }
        frames.push(world);
    }
    out
}

/// Motion capture we did not make (CMU's walk 12_01 with its zero-length hip and back joints; a
/// mocap file in `Z X Y` rotation order; a Mixamo rig with zero-length End Sites), imported with
/// `clip import` (a character derived from the file) and written back with `clip export`: the
/// written file has the original's offsets, End Sites and channels exactly, and by forward
/// kinematics of both files every joint and End Site is where the original has it in every
/// frame, within 1e-4 of the body's size.
#[test]
fn mocap_read_and_written_back_keeps_every_joint_in_place() {
    for (file, scale) in [
        ("tests/data/cmu/12_01_walk.bvh", None),
        ("tests/data/cmu/12_01_walk.bvh", Some("0.056")),
        ("tests/data/bvh/mocapbank_zxy.bvh", None),
        ("tests/data/bvh/mixamo_freebvh.bvh", None),
    ] {
        let dir = tempfile::tempdir().unwrap();
        let clip_path = dir.path().join("clip.ron");
        let mut args = vec!["clip", "import", file, "--out", s(&clip_path)];
        if let Some(sc) = scale {
            args.extend(["--scale", sc]);
        }
        let o = motionlab(&args);
        assert_success(&o, &args.join(" "));
        let back = dir.path().join("back.bvh");
        let o = motionlab(&["clip", "export", s(&clip_path), "--out", s(&back)]);
        assert_success(&o, "clip export");
        let root = Path::new(env!("CARGO_MANIFEST_DIR"));
        let original = read_mocap(&std::fs::read_to_string(root.join(file)).unwrap());
        let written = read_mocap(&std::fs::read_to_string(&back).unwrap());
        assert_eq!(written.parents, original.parents, "{file}: the tree");
        assert_eq!(
            written.offsets, original.offsets,
            "{file}: the offsets, exactly"
        );
        assert_eq!(
            written.end_sites, original.end_sites,
            "{file}: the End Sites, exactly"
        );
        assert_eq!(
            written.channels, original.channels,
            "{file}: the channels and their order"
        );
        assert_eq!(
            written.rows.len(),
            original.rows.len(),
            "{file}: the frames"
        );
        // The body's size: the extent of the first frame's joints.
        let first = world_positions(&original, 0);
        let (lo, hi) = first.iter().fold(
            (
                nalgebra::Vector3::repeat(f64::MAX),
                nalgebra::Vector3::repeat(f64::MIN),
            ),
            |(lo, hi), p| (lo.inf(p), hi.sup(p)),
        );
        let size = (hi - lo).norm();
        assert!(size > 1.0, "{file}: size {size}");
        let mut worst: f64 = 0.0;
        for frame in 0..original.rows.len() {
            let a = world_positions(&original, frame);
            let b = world_positions(&written, frame);
            for (p, q) in a.iter().zip(&b) {
                worst = worst.max((p - q).norm());
            }
        }
        assert!(
            worst <= 1e-4 * size,
            "{file}: a joint is {worst} from its place (body size {size})"
        );
    }
}

/// The glTF files `clip export` writes pass an independent reader: the Khronos glTF-Validator
/// (scripts/setup.sh installs it; scripts/gltf-validate.js runs it) reports no error for the
/// skinned, animated horse as `.glb` and as `.gltf` with its `.bin`, nor for a motion-capture
/// clip on its own character.
#[test]
fn gltf_exports_pass_the_khronos_validator() {
    let dir = tempfile::tempdir().unwrap();
    let mocap = dir.path().join("walk.ron");
    let o = motionlab(&[
        "clip",
        "import",
        "tests/data/cmu/12_01_walk.bvh",
        "--scale",
        "0.056",
        "--out",
        s(&mocap),
    ]);
    assert_success(&o, "clip import mocap");
    for (clip, name) in [
        ("assets/gaits/horse_trot_1ms.ron", "trot.glb"),
        ("assets/gaits/horse_trot_1ms.ron", "trot.gltf"),
        (s(&mocap), "walk.glb"),
    ] {
        let file = dir.path().join(name);
        let o = motionlab(&["clip", "export", clip, "--out", s(&file)]);
        assert_success(&o, "clip export");
        let o = std::process::Command::new("node")
            .arg("scripts/gltf-validate.js")
            .arg(&file)
            .current_dir(env!("CARGO_MANIFEST_DIR"))
            .output()
            .expect("node must be installed (scripts/setup.sh installs it)");
        let report = stdout(&o);
        assert!(
            o.status.success(),
            "{name}: the validator finds errors (or could not run):\n{report}\n{}",
            stderr(&o)
        );
        assert!(report.contains("\"numErrors\": 0"), "{name}: {report}");
        // It read the animation and the skin, not an empty document.
        assert!(report.contains("\"animationCount\": 1"), "{name}: {report}");
        assert!(report.contains("\"hasSkins\": true"), "{name}: {report}");
    }
}
