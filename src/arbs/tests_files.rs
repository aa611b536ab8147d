//! Reading skeletons from real and malformed files: every error names the file and the
//! problem, nothing panics.

use super::*;
use std::path::{Path, PathBuf};

pub(super) fn rigged_figure() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("assets/third_party/rigged_figure/RiggedFigure.gltf")
}

fn cmu_walk() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/cmu/12_01_walk.bvh")
}

/// RiggedFigure as a `.glb`: the same JSON without the buffer's URI, and the buffer as the
/// binary chunk.
fn rigged_figure_glb() -> Vec<u8> {
    let path = rigged_figure();
    let text = std::fs::read_to_string(&path).unwrap();
    let mut root: gltf_json::Root = gltf_json::deserialize::from_str(&text).unwrap();
    root.buffers[0].uri = None;
    let bin = std::fs::read(path.with_file_name("RiggedFigure0.bin")).unwrap();
    let mut json = gltf_json::serialize::to_string(&root).unwrap().into_bytes();
    while !json.len().is_multiple_of(4) {
        json.push(b' ');
    }
    let mut bin = bin;
    while !bin.len().is_multiple_of(4) {
        bin.push(0);
    }
    gltf::binary::Glb {
        header: gltf::binary::Header {
            magic: *b"glTF",
            version: 2,
            length: (12 + 8 + json.len() + 8 + bin.len()) as u32,
        },
        json: std::borrow::Cow::Owned(json),
        bin: Some(std::borrow::Cow::Owned(bin)),
    }
    .to_vec()
    .unwrap()
}

/// The message of loading `bytes` as file `name` in a fresh folder (with `extra` files).
fn load_error(name: &str, bytes: &[u8], extra: &[(&str, &[u8])]) -> String {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join(name);
    std::fs::write(&path, bytes).unwrap();
    for (n, b) in extra {
        std::fs::write(dir.path().join(n), b).unwrap();
    }
    let e = Skeleton::load(&path, &LoadOptions::default())
        .expect_err("a malformed file is refused")
        .to_string();
    let shown = path.display().to_string();
    assert!(e.starts_with(&shown), "the message names the file: {e}");
    e
}

#[test]
fn rigged_figure_reads_as_a_skeleton_facing_x() {
    let ks = Skeleton::load(&rigged_figure(), &LoadOptions::default()).unwrap();
    assert_eq!(ks.joints.len(), 19);
    assert_eq!(ks.joints[0].parent, None);
    assert!(ks.skin.len() > 100, "{} skin samples", ks.skin.len());
    assert_eq!(ks.animations.len(), 1, "{:?}", ks.warnings);
    assert!(
        ks.warnings.iter().any(|w| w.contains("merged 19 unnamed")),
        "{:?}",
        ks.warnings
    );
    let a = &ks.animations[0];
    assert_eq!(
        a.rate, 30.0,
        "two keys 1.25 s apart are resampled at 30 fps"
    );
    assert_eq!(a.frames.len(), 38);
    let h = ks.rest_height();
    assert!((1.0..2.0).contains(&h), "metres: {h}");
    assert_eq!(ks.scale, 1.0);
    // Facing +x: the two lowest leaves (the toes) lie ahead of their parents (the ankles),
    // one on each side of the root.
    let mut leaves: Vec<usize> = (0..ks.joints.len()).filter(|&j| ks.is_leaf(j)).collect();
    leaves.sort_by(|a, b| ks.rest_position(*a).y.total_cmp(&ks.rest_position(*b).y));
    let root_z = ks.rest_position(0).z;
    let mut sides = Vec::new();
    for &toe in &leaves[..2] {
        let ankle = ks.joints[toe].parent.unwrap();
        let d = ks.rest_position(toe) - ks.rest_position(ankle);
        assert!(d.x > 2.0 * d.z.abs(), "toe ahead of its ankle: {d:?}");
        sides.push((ks.rest_position(toe).z - root_z).signum());
    }
    assert_eq!(sides[0] * sides[1], -1.0);
    // The bind pose from the inverse bind matrices is the pose the animation ends in (it
    // lifts the arms from the sides to it); the legs do not move.
    let (first, last) = (&a.frames[0], a.frames.last().unwrap());
    let moved = |f: &[JointPose], j: usize| (f[j].position() - ks.rest_position(j)).norm();
    let worst = (0..ks.joints.len())
        .map(|j| moved(last, j))
        .fold(0.0, f64::max);
    assert!(
        worst < 0.01,
        "the last frame within 1 cm of the bind pose: {worst}"
    );
    let most = (0..ks.joints.len())
        .map(|j| moved(first, j))
        .fold(0.0, f64::max);
    assert!(most > 0.2, "a hand starts lowered: {most}");
    assert!(moved(first, leaves[0]) < 0.01, "a toe stays");
}

#[test]
fn a_glb_reads_like_its_gltf_and_a_height_rescales() {
    let from_gltf = Skeleton::load(&rigged_figure(), &LoadOptions::default()).unwrap();
    let glb = rigged_figure_glb();
    let from_glb = Skeleton::from_gltf(&glb, None, "figure.glb", &LoadOptions::default()).unwrap();
    assert_eq!(from_glb.joints, from_gltf.joints);
    assert_eq!(from_glb.animations, from_gltf.animations);
    let tall = Skeleton::from_gltf(
        &glb,
        None,
        "figure.glb",
        &LoadOptions {
            height: Some(3.0),
            forward: None,
        },
    )
    .unwrap();
    assert!((tall.rest_height() - 3.0).abs() < 1e-9);
    let back = Skeleton::from_gltf(
        &glb,
        None,
        "figure.glb",
        &LoadOptions {
            height: None,
            forward: Some(Forward::MinusZ),
        },
    )
    .unwrap();
    let (p, q) = (from_glb.rest_position(5), back.rest_position(5));
    assert!(
        (p.x + q.x).abs() < 1e-9 && (p.z + q.z).abs() < 1e-9,
        "{p:?} {q:?}"
    );
}

#[test]
fn malformed_gltf_files_are_refused_with_the_problem_named() {
    let glb = rigged_figure_glb();
    let e = load_error("cut.glb", &glb[..glb.len() / 2], &[]);
    assert!(e.contains("truncated binary glTF"), "{e}");
    let e = load_error("tiny.glb", &glb[..7], &[]);
    assert!(e.contains("truncated binary glTF"), "{e}");
    let e = load_error("garbage.gltf", b"{ \"asset\": [1, 2,", &[]);
    assert!(e.contains("not a valid glTF file"), "{e}");
    let e = load_error("text.gltf", b"hello, world", &[]);
    assert!(e.contains("not a glTF file"), "{e}");
    let no_skin = br#"{"asset": {"version": "2.0"}, "nodes": [{"name": "a", "children": [1]}, {"name": "b"}]}"#;
    let e = load_error("static.gltf", no_skin, &[]);
    assert!(e.contains("no skin"), "{e}");
    let one =
        br#"{"asset": {"version": "2.0"}, "nodes": [{"name": "a"}], "skins": [{"joints": [0]}]}"#;
    let e = load_error("one.gltf", one, &[]);
    assert!(e.contains("one joint"), "{e}");
    let bad_index = br#"{"asset": {"version": "2.0"}, "nodes": [{"name": "a"}], "skins": [{"joints": [0, 7]}]}"#;
    let e = load_error("index.gltf", bad_index, &[]);
    assert!(e.contains("not a valid glTF file"), "{e}");

    // The real figure with its buffer cut short, declared short, or holding a NaN.
    let text = std::fs::read_to_string(rigged_figure()).unwrap();
    let bin = std::fs::read(rigged_figure().with_file_name("RiggedFigure0.bin")).unwrap();
    let e = load_error(
        "figure.gltf",
        text.as_bytes(),
        &[("RiggedFigure0.bin", &bin[..1000])],
    );
    assert!(e.contains("buffer 0") && e.contains("truncated"), "{e}");
    let short = text.replace("\"byteLength\": 22184", "\"byteLength\": 1000");
    assert_ne!(short, text);
    let e = load_error(
        "figure.gltf",
        short.as_bytes(),
        &[("RiggedFigure0.bin", &bin)],
    );
    assert!(e.contains("out of range"), "{e}");
    let e = load_error("figure.gltf", text.as_bytes(), &[]);
    assert!(e.contains("buffer 0: cannot read"), "{e}");
    let escape = text.replace("\"RiggedFigure0.bin\"", "\"../RiggedFigure0.bin\"");
    let e = load_error("figure.gltf", escape.as_bytes(), &[]);
    assert!(e.contains("expected a file beside the glTF"), "{e}");
    // A NaN in the first inverse bind matrix.
    let doc = gltf::Gltf::from_slice(text.as_bytes()).unwrap();
    let ibm = doc.skins().next().unwrap().inverse_bind_matrices().unwrap();
    let at = ibm.view().unwrap().offset() + ibm.offset();
    let mut nan = bin.clone();
    nan[at..at + 4].copy_from_slice(&f32::NAN.to_le_bytes());
    let e = load_error(
        "figure.gltf",
        text.as_bytes(),
        &[("RiggedFigure0.bin", &nan)],
    );
    assert!(
        e.contains("inverse bind matrices") && e.contains("not finite"),
        "{e}"
    );
    let e = Skeleton::load(Path::new("/nonexistent/x.glb"), &LoadOptions::default())
        .unwrap_err()
        .to_string();
    assert!(e.starts_with("/nonexistent/x.glb: cannot read"), "{e}");
}

#[test]
fn a_bvh_reads_with_end_sites_as_leaves() {
    let ks = Skeleton::load(
        &cmu_walk(),
        &LoadOptions {
            height: Some(1.7),
            forward: None,
        },
    )
    .unwrap();
    let parsed = crate::clip::bvh::parse(
        &std::fs::read_to_string(cmu_walk()).unwrap(),
        "12_01_walk.bvh",
    )
    .unwrap();
    let ends = parsed.nodes.iter().filter(|n| n.end_site.is_some()).count();
    assert_eq!(ks.joints.len(), parsed.nodes.len() + ends);
    assert!(ks.joints.iter().any(|j| j.name == "Head_end"));
    assert!((ks.rest_height() - 1.7).abs() < 1e-9);
    let a = &ks.animations[0];
    assert_eq!(a.frames.len(), parsed.frames.len());
    assert!((a.rate - 120.0).abs() < 1e-2, "{}", a.rate);
    // Facing +x with the left at z < 0.
    let index = |n: &str| ks.joints.iter().position(|j| j.name == n).unwrap();
    let (toe, foot) = (index("LeftToeBase"), index("LeftFoot"));
    assert!(ks.rest_position(toe).x > ks.rest_position(foot).x);
    assert!(ks.rest_position(index("LeftUpLeg")).z < 0.0);
    assert!(ks.rest_position(index("RightUpLeg")).z > 0.0);
    // The walk goes forward: the root travels along +x.
    let travel = a.frames.last().unwrap()[0].position() - a.frames[0][0].position();
    assert!(
        travel.x > 1.0 && travel.x > 3.0 * travel.z.abs(),
        "{travel:?}"
    );
}

#[test]
fn a_bad_bvh_number_is_reported_at_its_line() {
    let text = std::fs::read_to_string(cmu_walk()).unwrap();
    let lines: Vec<&str> = text.lines().collect();
    let motion = lines.iter().position(|l| l.trim() == "MOTION").unwrap();
    // The fifth frame's row, line motion + 8 (1-based).
    let mut bad: Vec<String> = lines.iter().map(|l| l.to_string()).collect();
    bad[motion + 7] = bad[motion + 7].replacen(' ', " 1.2.3 ", 1);
    let e = load_error("walk.bvh", bad.join("\n").as_bytes(), &[]);
    let at = format!("walk.bvh:{}:", motion + 8);
    assert!(e.contains(&at) && e.contains("1.2.3"), "{e}");
    let e = load_error(
        "broken.bvh",
        b"HIERARCHY\nROOT Hips\n{\n OFFSET 0 zero 0\n",
        &[],
    );
    assert!(e.contains("broken.bvh:"), "{e}");
    let e = load_error(
        "one.bvh",
        b"HIERARCHY\nROOT Hips\n{\n OFFSET 0 0 0\n CHANNELS 1 Xrotation\n}\nMOTION\nFrames: 1\nFrame Time: 0.1\n0\n",
        &[],
    );
    assert!(e.contains("one joint"), "{e}");
}

/// A small file that would expand to tens of millions of joint transforms (a chain of 300
/// joints without channels, 100,000 one-number frames) is refused before they are made.
#[test]
fn oversized_motion_is_refused_before_allocating() {
    let mut text = String::from("HIERARCHY\nROOT j0\n{\n OFFSET 0 0 0\n CHANNELS 1 Xrotation\n");
    for i in 1..300 {
        text += &format!("JOINT j{i}\n{{\n OFFSET 0 0.01 0\n CHANNELS 0\n");
    }
    text += "End Site\n{\n OFFSET 0 0.01 0\n}\n";
    text += &"}\n".repeat(300);
    text += "MOTION\nFrames: 100000\nFrame Time: 0.01\n";
    text += &"0\n".repeat(100_000);
    let e = load_error("long.bvh", text.as_bytes(), &[]);
    assert!(e.contains("joint transforms are supported"), "{e}");
}
