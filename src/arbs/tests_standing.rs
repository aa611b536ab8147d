//! Acceptance of issue P7 on real skinned characters: the automatic character stands 10 s in
//! Rapier holding its reference pose, and its animation transfers with root and end-effector
//! errors within 5 cm in most frames.

use super::tests_files::rigged_figure;
use super::*;
use crate::sim::{HoldPose, RolloutSpec, SimSettings, run_rollout};
use std::path::Path;

/// Builds, stands for 10 s and transfers animation `which`; returns the transfer.
fn stand_and_transfer(path: &Path, which: usize) -> (Character, Transfer) {
    let ks = Skeleton::load(path, &LoadOptions::default()).unwrap();
    let (c, map) = build_character(&ks, &ArbsOptions::default()).unwrap();
    assert!(c.validate().is_empty());
    let r = run_rollout(
        &c,
        SimSettings::default(),
        &mut HoldPose::reference(),
        &RolloutSpec::seconds(10.0),
    )
    .unwrap();
    assert!(
        !r.fell,
        "{}: fell at {:?} ({:?}), com {:?}",
        c.name, r.fell_at, r.failure, r.final_com
    );
    let t = transfer(&ks, which, &c, &map, &TransferOptions::default()).unwrap();
    eprintln!(
        "{} `{}`: {} bodies, {} DOF, {:.3} m; {} frames\n  root: {}\n  end effectors: {}",
        c.name,
        ks.animations[which].name,
        c.bodies.len(),
        c.internal_dof(),
        c.height(),
        t.clip.frames.len(),
        t.root_summary(),
        t.effector_summary()
    );
    // Every coordinate within its limits.
    let limits: Vec<(f64, f64)> = c
        .joints
        .iter()
        .flat_map(|j| {
            j.limits
                .iter()
                .map(|(a, b)| (a.to_radians(), b.to_radians()))
        })
        .collect();
    for f in &t.clip.frames {
        for (q, (lo, hi)) in f.joints.iter().zip(&limits) {
            assert!(*q >= lo - 1e-12 && *q <= hi + 1e-12);
        }
    }
    (c, t)
}

use crate::model::Character;

#[test]
fn rigged_figure_stands_and_its_animation_transfers() {
    let (c, t) = stand_and_transfer(&rigged_figure(), 0);
    assert_eq!(
        c.bodies.len(),
        14 + 2,
        "14 non-leaf joints and two feet pads"
    );
    let (root, ee) = (t.root_summary(), t.effector_summary());
    assert!(root.within >= 0.9, "root: {root}");
    assert!(ee.within >= 0.8, "end effectors: {ee}");
}

/// The Castle Game Engine avatar (a third-party skinned humanoid, LGPL-2+,
/// `assets/third_party/castle_avatar/`): it stands, and its walk and run transfer.
#[test]
fn avatar_stands_and_walks_and_runs() {
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/assets/third_party/castle_avatar/avatar.gltf"
    );
    let ks = Skeleton::load(Path::new(&path), &LoadOptions::default()).unwrap();
    for name in ["walk", "run"] {
        let which = ks.animation_index(name).unwrap();
        let (_, t) = stand_and_transfer(Path::new(&path), which);
        let (root, ee) = (t.root_summary(), t.effector_summary());
        assert!(root.within >= 0.9, "{name} root: {root}");
        assert!(ee.within >= 0.8, "{name} end effectors: {ee}");
    }
}

/// Motion capture without a skin (CMU trial 12_01, tests/data/cmu): 10 % radii, pads under
/// the toes, numbered spine segments; at the paper's one density it stands, and the walk
/// transfers; by default its masses are a human's (de Leva's trunk is 43.46 % of the body, not
/// the few spine capsules' share of the volume), and the walk is on the ground, not where the
/// capture's floor put it (its lowest toe over the clip at y = 0, the hips about a leg's length
/// up).
#[test]
fn a_bvh_walk_stands_and_transfers() {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/cmu/12_01_walk.bvh");
    let ks = Skeleton::load(
        &path,
        &LoadOptions {
            height: Some(1.7),
            forward: None,
        },
    )
    .unwrap();
    let (human, human_map) = build_character(&ks, &ArbsOptions::default()).unwrap();
    assert!(human_map.human_masses);
    let trunk: f64 = [
        "pelvis",
        "lhipjoint",
        "rhipjoint",
        "spine",
        "spine_2",
        "spine_3",
        "l_clavicle",
        "r_clavicle",
    ]
    .iter()
    .map(|n| human.bodies[human.body_index(n).expect(n)].mass)
    .sum();
    assert!(
        (trunk / human.total_mass() - 0.4346).abs() < 1e-9,
        "trunk {trunk} kg of {}",
        human.total_mass()
    );
    let density = ArbsOptions {
        masses: crate::arbs::MassRule::Density,
        ..ArbsOptions::default()
    };
    let (c, map) = build_character(&ks, &density).unwrap();
    assert!(!map.human_masses);
    for n in [
        "pelvis", "spine", "spine_2", "spine_3", "neck", "neck_2", "head", "l_thigh",
    ] {
        assert!(c.body_index(n).is_some(), "{n}");
    }
    assert_eq!(c.mirror_pairs.len(), 9, "{:?}", c.mirror_pairs);
    let r = run_rollout(
        &c,
        SimSettings::default(),
        &mut HoldPose::reference(),
        &RolloutSpec::seconds(10.0),
    )
    .unwrap();
    assert!(!r.fell, "fell at {:?}", r.fell_at);
    let t = transfer(&ks, 0, &c, &map, &TransferOptions::default()).unwrap();
    assert_eq!(t.clip.frames.len(), 524);
    let lowest = ks.animations[0]
        .frames
        .iter()
        .flatten()
        .map(|p| p.position[1])
        .fold(f64::INFINITY, f64::min);
    assert!(
        lowest.abs() < 1e-9,
        "the capture's lowest joint is at {lowest} m"
    );
    let hips: Vec<f64> = t.clip.frames.iter().map(|f| f.root[1]).collect();
    let mean = hips.iter().sum::<f64>() / hips.len() as f64;
    assert!((0.8..1.3).contains(&mean), "the hips walk {mean} m up");
    let (root, ee) = (t.root_summary(), t.effector_summary());
    eprintln!("CMU 12_01: root {root}\n  end effectors {ee}");
    assert!(root.within >= 0.9 && ee.within >= 0.9, "{root}; {ee}");
}
