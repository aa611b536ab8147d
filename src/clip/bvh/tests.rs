use super::*;
use crate::clip::from_gait::clip_of_gait;
use crate::clip::pose::{self, pose_of};
use crate::clip::{CharacterRef, Clip, ClipFrame, Provenance, Tags};
use crate::model::{Character, EffectorTag, load_character};
use nalgebra::UnitQuaternion;
use std::path::Path;

fn root_dir() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

fn character(name: &str) -> (Character, CharacterRef) {
    let path = root_dir().join("characters").join(format!("{name}.ron"));
    let text = std::fs::read_to_string(&path).unwrap();
    (
        load_character(&path).unwrap(),
        CharacterRef::new(&path, &text),
    )
}

fn round_trip(clip: &Clip, c: &Character, r: &CharacterRef) -> Clip {
    let text = export(clip, c);
    let bvh = parse(&text, "trip.bvh").unwrap_or_else(|e| panic!("{e}\n{text}"));
    assert!(bvh.warnings.is_empty(), "{:?}", bvh.warnings);
    clip_on_character(&bvh, c, r.clone(), 1.0, "trip.bvh").unwrap()
}

/// The horse's trot (a shipped gait: ball hips and shoulders as exponential maps, universal and
/// hinge joints) exported to BVH and read back onto the horse keeps every joint angle within
/// 1e-4 rad and the root within a micrometre.
#[test]
fn a_gait_clip_survives_a_bvh_round_trip() {
    let (horse, r) = character("horse");
    let gait = crate::files::read_ron(&root_dir().join("assets/gaits/horse_trot_1ms.ron")).unwrap();
    let clip = clip_of_gait(&gait, &horse, r.clone()).unwrap();
    clip.check().unwrap();
    clip.check_character(&horse).unwrap();
    assert_eq!(clip.frames.len(), 30);
    let back = round_trip(&clip, &horse, &r);
    let worst = clip.max_joint_difference(&back);
    assert!(worst < 1e-4, "joint angles moved by {worst} rad");
    for (a, b) in clip.frames.iter().zip(&back.frames) {
        for k in 0..3 {
            assert!((a.root[k] - b.root[k]).abs() < 1e-6);
        }
        let (qa, qb) = (pose::quat_of(&a.root), pose::quat_of(&b.root));
        assert!(qa.angle_to(&qb) < 1e-6);
    }
    assert!((back.rate - clip.rate).abs() < 1e-6);
}

/// human3d's universal joints, hinges and the free root, at angles spread over their limits.
#[test]
fn human3d_poses_survive_a_bvh_round_trip() {
    let (human, r) = character("human3d");
    let n = human.internal_dof();
    let mut limits = Vec::new();
    for j in &human.joints {
        for k in 0..j.kind.dof() {
            limits.push(j.limits.get(k).copied().unwrap_or((-90.0, 90.0)));
        }
    }
    let frames = (0..20)
        .map(|i| {
            let t = i as f64 / 19.0;
            ClipFrame {
                root: {
                    let q = UnitQuaternion::from_euler_angles(0.3 * t, -0.5 + t, 0.2);
                    pose_of(Vector3::new(t, 1.0, -0.2 * t), &q)
                },
                joints: (0..n)
                    .map(|k| {
                        let (lo, hi) = limits[k];
                        let s = (0.1 + 0.8 * ((k as f64 * 0.37 + t) % 1.0)).clamp(0.0, 1.0);
                        (lo + s * (hi - lo)).to_radians()
                    })
                    .collect(),
            }
        })
        .collect();
    let clip = Clip {
        character: r.clone(),
        rate: 60.0,
        coordinates: human.dof_names(),
        frames,
        effectors: Vec::new(),
        contacts: Vec::new(),
        torques: None,
        ground_forces: None,
        cycle: None,
        joins: None,
        bvh: None,
        tags: Tags::default(),
        provenance: Provenance::default(),
    };
    clip.check().unwrap();
    let back = round_trip(&clip, &human, &r);
    let worst = clip.max_joint_difference(&back);
    assert!(worst < 1e-4, "joint angles moved by {worst} rad");
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
      JOINT LeftFoot
      {
        OFFSET 0.0 -41.0 0.0
        CHANNELS 2 Xrotation Zrotation
        End Site
        {
          OFFSET 0.0 -5.0 12.0
        }
      }
    }
  }
  JOINT Spine
  {
    OFFSET 0.0 10.0 0.0
    CHANNELS 6 Xposition Yposition Zposition Zrotation Xrotation Yrotation
    JOINT Head
    {
      OFFSET 0.0 50.0 0.0
      CHANNELS 0
      End Site
      {
        OFFSET 0.0 20.0 0.0
      }
    }
  }
}
MOTION
Frames: 3
Frame Time: 0.0333333
0 95 0 0 0 0 10 20 30 -40 5 -5 0 10 0 1 2 3
1 95 0 5 0 0 12 22 32 -42 6 -6 0 10 0 4 5 6
";

/// A motion-capture file with 6-, 3-, 2-, 1- and 0-channel nodes, positions on a joint, end
/// sites and centimetres becomes a valid character (ball, universal, hinge and fixed joints) and
/// a clip on it; the declared frame count (3, with 2 rows) is a warning, not a failure.
#[test]
fn mocap_with_mixed_channels_becomes_a_character_and_a_clip() {
    let bvh = parse(MOCAP, "walk.bvh").unwrap();
    assert_eq!(bvh.nodes.len(), 6);
    assert_eq!(bvh.frames.len(), 2);
    assert_eq!(bvh.warnings.len(), 1, "{:?}", bvh.warnings);
    assert!(bvh.warnings[0].contains("declares 3 frames and holds 2"));
    let scale = guess_scale(bvh.rest_height());
    assert_eq!(scale, 0.01, "a 2 m hierarchy in centimetres");
    let c = character_of(&bvh, "walker", scale);
    assert!(c.validate().is_empty(), "{:?}", c.validate());
    let kinds: Vec<&str> = c.joints.iter().map(|j| j.kind.label()).collect();
    assert_eq!(kinds, ["ball", "hinge", "universal", "ball", "fixed"]);
    assert!(c.effectors(EffectorTag::Foot).any(|e| e.body == "LeftFoot"));
    let text = crate::files::to_ron_string(&c);
    let r = CharacterRef::new(Path::new("walker.ron"), &text);
    let clip = clip_on_character(&bvh, &c, r, scale, "walk.bvh").unwrap();
    clip.check().unwrap();
    clip.check_character(&c).unwrap();
    assert!((clip.rate - 30.0).abs() < 1e-3);
    // The knee (1 channel, x) at −40° then −42°; the root joint (not its body's centre of
    // mass) 1 cm along x in frame 1, at the height its channel gives.
    let knee = c.dof_names().iter().position(|n| n == "LeftLeg").unwrap();
    assert!((clip.frames[0].joints[knee] + 40f64.to_radians()).abs() < 1e-12);
    assert!((clip.frames[1].joints[knee] + 42f64.to_radians()).abs() < 1e-12);
    let hips = &c.bodies[c.body_index("Hips").unwrap()];
    let f = &clip.frames[1].root;
    let turn = pose::quat_of(f) * pose::reference_orientation(hips).inverse();
    let origin = nalgebra::Vector3::new(f[0], f[1], f[2])
        - turn
            * (nalgebra::Vector3::from(hips.position)
                - nalgebra::Vector3::from(c.root.origin.unwrap()));
    assert!(
        (origin.x - 0.01).abs() < 1e-12 && (origin.y - 0.95).abs() < 1e-12,
        "{origin:?}"
    );
}

fn error_of(text: &str) -> String {
    parse(text, "bad.bvh").unwrap_err().to_string()
}

#[test]
fn malformed_files_get_their_line_and_what_was_expected() {
    let e = error_of(&MOCAP.replace("1 95 0 5 0 0 12 22 32 -42 6 -6 0 10 0 4 5 6", "1 95 0 5"));
    assert_eq!(
        e,
        "bad.bvh:44: expected 18 values (one per channel), found 4"
    );
    let e = error_of(&MOCAP.replace("CHANNELS 1 Xrotation", "CHANNELS 1 Xrotaton"));
    assert!(
        e.starts_with("bad.bvh:13:") && e.contains("`Xrotaton`"),
        "{e}"
    );
    let e = error_of(&MOCAP.replace("OFFSET 0.0 -42.0 0.0", "OFFSET 0.0 -42.0"));
    assert!(
        e.starts_with("bad.bvh:13:") && e.contains("the offset's z"),
        "{e}"
    );
    let e = error_of(&MOCAP.replace("Frame Time: 0.0333333", "Frame Time: fast"));
    assert!(
        e.starts_with("bad.bvh:42:") && e.contains("Frame Time:"),
        "{e}"
    );
    let e = error_of(&MOCAP.replace("0 95 0 0 0 0 10", "0 95 0 0 0 0 nan"));
    assert!(e.starts_with("bad.bvh:43:"), "{e}");
    let e = error_of(&MOCAP.replace("MOTION", "MOTIONS"));
    assert!(e.contains("expected a `MOTION` section"), "{e}");
    let e = error_of(&MOCAP.replacen("}\nMOTION", "MOTION", 1));
    assert!(
        e.contains("expected `JOINT`, `End Site`, `CHANNELS` or `}`"),
        "{e}"
    );
    let e = error_of(&MOCAP.replace("JOINT Head", "JOINT LeftLeg"));
    assert!(
        e.starts_with("bad.bvh:29:") && e.contains("used twice"),
        "{e}"
    );
    let e = error_of("HIERARCHY\nMOTION\nFrames: 0\nFrame Time: 0.1\n");
    assert!(e.contains("expected `ROOT`"), "{e}");
}

/// Reading any text never panics (a small deterministic fuzz over truncations and byte flips of
/// a valid file; `cargo fuzz run bvh` runs the same reader at scale).
#[test]
fn truncated_and_corrupted_files_never_panic() {
    let bytes = MOCAP.as_bytes();
    for cut in 0..bytes.len() {
        let _ = parse(&String::from_utf8_lossy(&bytes[..cut]), "cut.bvh");
    }
    let mut state = 12345u64;
    for _ in 0..2000 {
        let mut b = bytes.to_vec();
        for _ in 0..3 {
            state = state
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            let i = (state >> 33) as usize % b.len();
            b[i] = (state >> 20) as u8;
        }
        if let Ok(bvh) = parse(&String::from_utf8_lossy(&b), "flip.bvh") {
            let c = character_of(&bvh, "x", 0.01);
            let r = CharacterRef::new(Path::new("x.ron"), "");
            if c.validate().is_empty() {
                let _ = clip_on_character(&bvh, &c, r, 0.01, "flip.bvh");
            }
        }
    }
}
