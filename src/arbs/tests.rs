//! Auto-ARBS and transfer on synthetic skeletons (Borer et al. 2018, §4.1–4.3).

use super::*;
use crate::model::{EffectorTag, JointKind, RootKind};
use nalgebra::{UnitQuaternion, Vector3};

/// A skeleton in the project's frame from (name, parent, rest position), rotations identity,
/// one one-frame animation of the rest pose.
pub(super) fn skeleton(joints: &[(&str, Option<usize>, [f64; 3])]) -> Skeleton {
    let joints: Vec<KsJoint> = joints
        .iter()
        .map(|(name, parent, p)| KsJoint {
            name: (*name).into(),
            parent: *parent,
            rest: JointPose::new(Vector3::from(*p), &UnitQuaternion::identity()),
        })
        .collect();
    let frame = joints.iter().map(|j| j.rest).collect();
    Skeleton {
        name: "synthetic".into(),
        source: "synthetic.gltf".into(),
        joints,
        skin: Vec::new(),
        skin_triangles: Vec::new(),
        animations: vec![Animation {
            name: "rest".into(),
            rate: 30.0,
            frames: vec![frame],
        }],
        warnings: Vec::new(),
        scale: 1.0,
    }
}

/// A Y: a straight stem of two segments, a fork, two arms with tips.
fn y_skeleton() -> Skeleton {
    skeleton(&[
        ("root", None, [0.0, 0.0, 0.0]),
        ("mid", Some(0), [0.0, 1.0, 0.0]),
        ("fork", Some(1), [0.0, 2.0, 0.0]),
        ("left", Some(2), [-0.5, 2.6, 0.0]),
        ("left_tip", Some(3), [-0.9, 3.0, 0.1]),
        ("right", Some(2), [0.5, 2.6, 0.0]),
        ("right_tip", Some(5), [0.9, 3.1, -0.1]),
    ])
}

/// A small humanoid with Mixamo-style names, arms hanging, facing +x.
pub(super) fn humanoid() -> Skeleton {
    let mut j: Vec<(String, Option<usize>, [f64; 3])> = vec![
        ("Hips".into(), None, [0.0, 1.0, 0.0]),
        ("Spine".into(), Some(0), [0.0, 1.25, 0.0]),
        ("Head".into(), Some(1), [0.0, 1.55, 0.0]),
        ("HeadTop_End".into(), Some(2), [0.0, 1.75, 0.0]),
    ];
    for (side, z) in [("Left", -1.0), ("Right", 1.0)] {
        let k = j.len();
        j.push((format!("{side}UpLeg"), Some(0), [0.0, 0.95, 0.1 * z]));
        j.push((format!("{side}Leg"), Some(k), [0.02, 0.52, 0.1 * z]));
        j.push((format!("{side}Foot"), Some(k + 1), [0.0, 0.1, 0.1 * z]));
        j.push((format!("{side}ToeBase"), Some(k + 2), [0.17, 0.02, 0.1 * z]));
        j.push((format!("{side}Arm"), Some(1), [0.0, 1.45, 0.2 * z]));
        j.push((format!("{side}ForeArm"), Some(k + 4), [0.0, 1.17, 0.22 * z]));
        j.push((format!("{side}Hand"), Some(k + 5), [0.02, 0.92, 0.22 * z]));
        j.push((
            format!("{side}Hand_End"),
            Some(k + 6),
            [0.03, 0.8, 0.22 * z],
        ));
    }
    let named: Vec<(&str, Option<usize>, [f64; 3])> =
        j.iter().map(|(n, p, x)| (n.as_str(), *p, *x)).collect();
    skeleton(&named)
}

/// The rules of §4.1–4.2: bodies = non-leaf joints, joints = bodies − 1, hinge axes orthogonal to
/// both directions, the collinear fallback used for the straight stem, a valid character of 50 kg.
#[test]
fn a_y_skeleton_gets_one_body_per_non_leaf_joint() {
    let ks = y_skeleton();
    let (c, map) = build_character(&ks, &ArbsOptions::default()).unwrap();
    assert!(c.validate().is_empty(), "{:?}", c.validate());
    let non_leaf = (0..ks.joints.len()).filter(|&j| !ks.is_leaf(j)).count();
    assert_eq!(non_leaf, 5);
    assert_eq!(c.bodies.len(), non_leaf, "no feet here, so no pads");
    assert_eq!(c.joints.len(), c.bodies.len() - 1);
    assert_eq!(
        map.bodies,
        vec![Some(0), Some(1), Some(2), Some(3), Some(5)]
    );
    assert_eq!(c.root.body, "root");
    assert_eq!(c.root.kind, RootKind::Free);
    assert!((c.total_mass() - 50.0).abs() < 1e-9);
    assert_eq!(c.internal_dof(), 4);
    // The stem is straight: the joint at `mid` falls back to the lateral axis z.
    assert_eq!(map.axes[0], None, "the root");
    assert_eq!(map.axes[1], Some(AxisSource::Collinear));
    let mut checked = 0;
    for j in &c.joints {
        let JointKind::Hinge { axis } = j.kind else {
            panic!("hinges only: {j:?}")
        };
        assert_eq!(j.limits, vec![DEFAULT_LIMITS]);
        let a = Vector3::from(axis);
        assert!((a.norm() - 1.0).abs() < 1e-6);
        let child = c.body_index(&j.child).unwrap();
        let parent = c.body_index(&j.parent).unwrap();
        let p = Vector3::from(j.anchor);
        let u = Vector3::from(c.bodies[parent].position) - p;
        let v = Vector3::from(c.bodies[child].position) - p;
        if map.axes[child] == Some(AxisSource::Collinear) {
            assert!(
                a.dot(&v.normalize()).abs() < 1e-6,
                "{}: {a:?} ⟂ limb",
                j.name
            );
            if j.child == "mid" {
                assert!((a - Vector3::z()).norm() < 1e-6, "the lateral axis: {a:?}");
            }
        } else {
            assert!(
                a.dot(&u).abs() < 1e-5 * u.norm(),
                "{}: {a:?} · {u:?}",
                j.name
            );
            assert!(
                a.dot(&v).abs() < 1e-5 * v.norm(),
                "{}: {a:?} · {v:?}",
                j.name
            );
            checked += 1;
        }
    }
    assert!(checked >= 2, "the arms' hinges use the cross product");
    // The fork is a PCA capsule across both arms: along x, 1 m long, radius 10 %.
    let fork = &c.bodies[c.body_index("fork").unwrap()];
    assert!((fork.length() - 1.0).abs() < 1e-6, "{}", fork.length());
    let q = fork.orientation();
    let along = crate::model::rotate(q, [0.0, 1.0, 0.0]);
    assert!(along[0].abs() > 0.999, "{along:?}");
    let crate::model::Shape::Capsule { radius, .. } = fork.shape else {
        panic!()
    };
    assert!((radius - 0.1).abs() < 1e-6);
    // Every KS joint follows a body point; leaves follow their parent's body.
    assert_eq!(map.points.len(), ks.joints.len());
    assert_eq!(map.points[4].body, c.body_index("left").unwrap());
}

#[test]
fn hinge_axes_are_orthogonal_and_collinear_limbs_fall_back() {
    let cases = [
        (Vector3::new(0.0, 1.0, 0.0), Vector3::new(0.3, -1.0, 0.1)),
        (Vector3::new(1.0, 0.2, 0.0), Vector3::new(-0.2, 0.5, 0.7)),
        (Vector3::new(-0.1, 0.0, 0.9), Vector3::new(0.4, 0.4, 0.4)),
    ];
    for (u, v) in cases {
        let (a, fallback) = hinge_axis(u, v, v);
        assert!(!fallback);
        assert!(a.dot(&u).abs() < 1e-12 && a.dot(&v).abs() < 1e-12);
    }
    // A straight vertical leg: the lateral axis z.
    let (a, fallback) = hinge_axis(Vector3::y(), -Vector3::y(), -Vector3::y());
    assert!(fallback && (a - Vector3::z()).norm() < 1e-12);
    // A T-pose arm along z: z is the limb, so x.
    let (a, fallback) = hinge_axis(-Vector3::z(), Vector3::z(), Vector3::z());
    assert!(fallback && (a - Vector3::x()).norm() < 1e-12);
    // Nearly straight (1°) still falls back, perpendicular to the limb.
    let bent = Vector3::new(0.0175, -1.0, 0.0);
    let (a, fallback) = hinge_axis(Vector3::y(), bent, bent);
    assert!(fallback && a.dot(&bent.normalize()).abs() < 1e-12);
}

/// Generic names, mirror pairs, effectors by name, feet pads under the feet.
#[test]
fn a_humanoid_gets_generic_names_effectors_and_pads() {
    let ks = humanoid();
    let (c, map) = build_character(&ks, &ArbsOptions::default()).unwrap();
    let names: Vec<&str> = c.bodies.iter().map(|b| b.name.as_str()).collect();
    for n in [
        "pelvis",
        "spine",
        "head",
        "l_thigh",
        "l_shin",
        "l_foot",
        "r_upper_arm",
        "r_forearm",
        "r_hand",
        "l_foot_pad",
        "r_foot_pad",
    ] {
        assert!(names.contains(&n), "{n} in {names:?}");
    }
    assert_eq!(c.bodies.len(), 15 + 2);
    assert_eq!(c.joints.len(), c.bodies.len() - 1);
    assert_eq!(
        c.internal_dof(),
        14,
        "the pads' welds have no degree of freedom"
    );
    assert!(c.joints.iter().any(|j| j.name == "l_knee"));
    assert_eq!(c.mirror_pairs.len(), 7, "{:?}", c.mirror_pairs);
    assert!(
        c.mirror_pairs
            .contains(&("l_foot_pad".to_string(), "r_foot_pad".to_string()))
    );
    let tags = |t: EffectorTag| c.effectors(t).map(|e| e.body.clone()).collect::<Vec<_>>();
    assert_eq!(tags(EffectorTag::Foot), vec!["l_foot_pad", "r_foot_pad"]);
    assert_eq!(tags(EffectorTag::Hand), vec!["l_hand", "r_hand"]);
    assert_eq!(tags(EffectorTag::Head), vec!["head"]);
    assert_eq!(map.end_effectors.len(), c.end_effectors.len());
    for (e, &k) in c.end_effectors.iter().zip(&map.end_effectors) {
        assert!(ks.is_leaf(k), "{} stands for a leaf", e.body);
    }
    // The pads are the lowest bodies; every other body clears the ground.
    let ground = c.lowest_point();
    for b in &c.bodies {
        let (lo, _) = b.vertical_extent();
        if b.name.ends_with("_pad") {
            assert!((lo - ground).abs() < 1e-6, "{}", b.name);
            assert_eq!(map.bodies[c.body_index(&b.name).unwrap()], None);
        } else {
            assert!(lo > ground + 0.005, "{} at {lo} vs ground {ground}", b.name);
        }
    }
    // A pad spans the foot from heel to toe.
    let pad = &c.bodies[c.body_index("l_foot_pad").unwrap()];
    let crate::model::Shape::Box { half_extents } = pad.shape else {
        panic!()
    };
    assert!(half_extents[0] > 0.08, "{half_extents:?}");
    assert!(matches!(
        c.joint_to("l_foot_pad").unwrap().kind,
        JointKind::Fixed
    ));
}

/// A fox-like quadruped with the Khronos fox's joint names, facing +x; with `control_root`,
/// hung like the fox from `_rootJoint` → `b_Root_00` on the ground under its hips, and skinned
/// everywhere but those two.
fn quadruped(control_root: bool) -> Skeleton {
    let o = if control_root { 2 } else { 0 };
    let top = |p: usize| if control_root { Some(p) } else { None };
    let mut j: Vec<(String, Option<usize>, [f64; 3])> = Vec::new();
    if control_root {
        j.push(("_rootJoint".into(), None, [0.0, 0.0, 0.0]));
        j.push(("b_Root_00".into(), Some(0), [-0.2, 0.0, 0.0]));
    }
    j.extend([
        ("b_Hip_01".into(), top(1), [-0.2, 0.42, 0.0]),
        ("b_Spine01_02".into(), Some(o), [0.0, 0.44, 0.0]),
        ("b_Spine02_03".into(), Some(o + 1), [0.2, 0.45, 0.0]),
        ("b_Neck_04".into(), Some(o + 2), [0.3, 0.52, 0.0]),
        ("b_Head_05".into(), Some(o + 3), [0.38, 0.6, 0.0]),
        ("b_Head_end".into(), Some(o + 4), [0.5, 0.58, 0.0]),
        ("b_Tail01_012".into(), Some(o), [-0.3, 0.42, 0.0]),
        ("b_Tail02_013".into(), Some(o + 6), [-0.45, 0.38, 0.0]),
    ]);
    for (side, z) in [("Left", -1.0), ("Right", 1.0)] {
        let k = j.len();
        j.push((
            format!("b_{side}UpperArm"),
            Some(o + 2),
            [0.22, 0.4, 0.07 * z],
        ));
        j.push((format!("b_{side}ForeArm"), Some(k), [0.2, 0.22, 0.07 * z]));
        j.push((format!("b_{side}Hand"), Some(k + 1), [0.21, 0.04, 0.07 * z]));
        j.push((
            format!("b_{side}Hand_end"),
            Some(k + 2),
            [0.25, 0.0, 0.07 * z],
        ));
        j.push((format!("b_{side}Leg01"), Some(o), [-0.22, 0.38, 0.07 * z]));
        j.push((
            format!("b_{side}Leg02"),
            Some(k + 4),
            [-0.18, 0.2, 0.07 * z],
        ));
        j.push((
            format!("b_{side}Foot01"),
            Some(k + 5),
            [-0.24, 0.05, 0.07 * z],
        ));
        j.push((
            format!("b_{side}Foot_end"),
            Some(k + 6),
            [-0.2, 0.0, 0.07 * z],
        ));
    }
    let named: Vec<(&str, Option<usize>, [f64; 3])> =
        j.iter().map(|(n, p, x)| (n.as_str(), *p, *x)).collect();
    let mut ks = skeleton(&named);
    if control_root {
        for k in o..ks.joints.len() {
            let p = ks.rest_position(k);
            bind(&mut ks, k, 2, |i| [p.x, p.y + 0.01 * i as f64, p.z]);
        }
    }
    ks
}

/// The forelimbs end in "hands" that stand on the ground, so they are feet and get pads like
/// the hind feet; the quadruped stands 10 s. An unskinned control root chain under the hips
/// (the fox's `_rootJoint` → `b_Root_00`) gets no body: the character is the same, rooted at
/// the hips.
#[test]
fn a_quadrupeds_forefeet_named_hands_are_feet() {
    let options = ArbsOptions {
        mass: 12.0,
        ..ArbsOptions::default()
    };
    let (c, map) = build_character(&quadruped(false), &options).unwrap();
    assert!(c.validate().is_empty(), "{:?}", c.validate());
    let feet: Vec<String> = c
        .effectors(EffectorTag::Foot)
        .map(|e| e.body.clone())
        .collect();
    assert_eq!(feet.len(), 4, "{feet:?}");
    assert!(feet.iter().all(|f| f.ends_with("_pad")), "{feet:?}");
    assert_eq!(c.effectors(EffectorTag::Hand).count(), 0);
    assert_eq!(map.root, 0);
    let r = crate::sim::run_rollout(
        &c,
        crate::sim::SimSettings::default(),
        &mut crate::sim::HoldPose::reference(),
        &crate::sim::RolloutSpec::seconds(10.0),
    )
    .unwrap();
    assert!(!r.fell, "fell at {:?}", r.fell_at);

    let ks = quadruped(true);
    let (rooted, map) = build_character(&ks, &options).unwrap();
    assert_eq!(ks.joints[map.root].name, "b_Hip_01");
    assert_eq!(rooted.root.body, c.root.body);
    let names = |c: &crate::model::Character| -> Vec<String> {
        c.bodies.iter().map(|b| b.name.clone()).collect()
    };
    assert_eq!(names(&rooted), names(&c));
    assert!(!map.bodies.contains(&Some(0)) && !map.bodies.contains(&Some(1)));
    assert!(map.points.iter().all(|p| p.ks_joint >= 2));
}

#[test]
fn bad_options_are_refused_with_the_file_named() {
    let ks = y_skeleton();
    for o in [
        ArbsOptions {
            mass: 0.0,
            ..ArbsOptions::default()
        },
        ArbsOptions {
            limits: (10.0, 20.0),
            ..ArbsOptions::default()
        },
        ArbsOptions {
            radius: RadiusRule::Fraction(f64::NAN),
            ..ArbsOptions::default()
        },
    ] {
        let e = build_character(&ks, &o).unwrap_err().to_string();
        assert!(e.starts_with("synthetic.gltf: expected"), "{e}");
    }
}

/// The IK transfer (§4.3): poses the character can make are recovered exactly (root and end
/// effectors within 0.1 mm), and targets beyond the joint limits leave every coordinate within
/// them.
#[test]
fn transfer_recovers_reachable_poses_and_respects_limits() {
    let ks = humanoid();
    let (c, map) = build_character(&ks, &ArbsOptions::default()).unwrap();
    // Targets from the character's own forward kinematics: a walk-like sweep of the hinges.
    let n = c.internal_dof();
    let root_body = &c.bodies[c.body_index(&c.root.body).unwrap()];
    let (p0, q0) = (
        Vector3::from(root_body.position),
        crate::clip::pose::reference_orientation(root_body),
    );
    let mut anim = Vec::new();
    let mut truth = Vec::new();
    for f in 0..20 {
        let t = f as f64 / 20.0;
        let q: Vec<f64> = (0..n)
            .map(|k| 0.6 * (std::f64::consts::TAU * t + k as f64).sin())
            .collect();
        let turn = UnitQuaternion::from_euler_angles(0.1 * t, 0.8 * t, 0.05);
        let root =
            crate::clip::pose::pose_of(p0 + Vector3::new(0.5 * t, -0.02, 0.1 * t), &(turn * q0));
        let poses = crate::clip::pose::body_poses(&c, &root, &q);
        let frame: Vec<JointPose> = (0..ks.joints.len())
            .map(|k| {
                let mp = map.points[k];
                let b = &c.bodies[mp.body];
                let local = crate::clip::pose::reference_orientation(b).inverse()
                    * (Vector3::from(mp.point) - Vector3::from(b.position));
                let pose = &poses[mp.body];
                let x = Vector3::new(pose[0], pose[1], pose[2])
                    + crate::clip::pose::quat_of(pose) * local;
                JointPose::new(x, &UnitQuaternion::identity())
            })
            .collect();
        anim.push(frame);
        truth.push(q);
    }
    let mut ks = ks;
    ks.animations = vec![Animation {
        name: "sweep".into(),
        rate: 30.0,
        frames: anim,
    }];
    let t = transfer(&ks, 0, &c, &map, &TransferOptions::default()).unwrap();
    assert_eq!(t.clip.frames.len(), 20);
    assert_eq!(t.clip.tags.source, "transfer");
    assert_eq!(t.clip.coordinates, c.dof_names());
    t.clip.check().unwrap();
    t.clip.check_character(&c).unwrap();
    let worst = |v: &[f64]| v.iter().copied().fold(0.0f64, f64::max);
    assert!(worst(&t.root_error) < 1e-4, "{:?}", t.root_error);
    assert!(worst(&t.effector_error) < 1e-4, "{:?}", t.effector_error);
    assert!(worst(&t.joint_error) < 1e-4, "{:?}", t.joint_error);
    assert_eq!(t.effector_summary().within, 1.0);

    // Beyond the limits: the sweep reaches ±34°, the limits are ±30°.
    let mut tight = c.clone();
    for j in &mut tight.joints {
        if !j.limits.is_empty() {
            j.limits = vec![(-30.0, 30.0)];
        }
    }
    let t = transfer(&ks, 0, &tight, &map, &TransferOptions::default()).unwrap();
    let limit = 30f64.to_radians() + 1e-12;
    for f in &t.clip.frames {
        for (k, q) in f.joints.iter().enumerate() {
            assert!(q.abs() <= limit, "coordinate {k} = {q} beyond ±30°");
        }
    }
    assert!(worst(&t.effector_error) > 1e-3, "the limits cost accuracy");
}

#[test]
fn error_summaries() {
    let s = ErrorSummary::of(&[0.01, 0.02, 0.03, 0.04, 0.10]);
    assert!((s.median - 0.03).abs() < 1e-12);
    assert!((s.max - 0.10).abs() < 1e-12);
    assert!((s.p90 - 0.076).abs() < 1e-12);
    assert!((s.within - 0.8).abs() < 1e-12);
    assert_eq!(
        s.to_string(),
        "median 3.0 cm, p90 7.6 cm, max 10.0 cm, 80 % of frames <= 5 cm"
    );
}

/// A skeleton animated by world rotations `turn(f, j)` about its rest joints: every joint's
/// position follows its parent's rotation.
fn animate(
    ks: &Skeleton,
    frames: usize,
    turn: impl Fn(usize, usize) -> UnitQuaternion<f64>,
) -> Vec<Vec<JointPose>> {
    (0..frames)
        .map(|f| {
            let mut out: Vec<JointPose> = Vec::with_capacity(ks.joints.len());
            for (j, joint) in ks.joints.iter().enumerate() {
                let q = turn(f, j);
                let p = match joint.parent {
                    None => ks.rest_position(j),
                    Some(p) => {
                        let qp = turn(f, p);
                        out[p].position() + qp * (ks.rest_position(j) - ks.rest_position(p))
                    }
                };
                out.push(JointPose::new(p, &q));
            }
            out
        })
        .collect()
}

/// Our axis remedy (the paper's §4.2 only guesses): a joint that turns about x in the animation
/// gets x, not the cross product; the motion transfers exactly. With `AxisRule::Geometry` the cross
/// product stays.
#[test]
fn a_turning_joint_takes_its_axis_of_motion() {
    let mut ks = y_skeleton();
    let angle = |f: usize| 0.5 * (std::f64::consts::TAU * f as f64 / 20.0).sin();
    ks.animations[0].frames = animate(&ks, 20, |f, j| {
        if j == 3 || j == 4 {
            UnitQuaternion::from_axis_angle(&Vector3::x_axis(), angle(f))
        } else {
            UnitQuaternion::identity()
        }
    });
    let (c, map) = build_character(&ks, &ArbsOptions::default()).unwrap();
    let left = c.body_index("left").unwrap();
    assert_eq!(map.axes[left], Some(AxisSource::Motion));
    let JointKind::Hinge { axis } = c.joint_to("left").unwrap().kind else {
        panic!()
    };
    assert!(axis[0].abs() > 0.999, "{axis:?}");
    assert_eq!(
        map.axes[c.body_index("right").unwrap()],
        Some(AxisSource::CrossProduct)
    );
    let t = transfer(&ks, 0, &c, &map, &TransferOptions::default()).unwrap();
    assert!(t.effector_summary().max < 1e-4, "{}", t.effector_summary());
    let geometric = ArbsOptions {
        axes: AxisRule::Geometry,
        ..ArbsOptions::default()
    };
    let (c, map) = build_character(&ks, &geometric).unwrap();
    assert_eq!(map.axes[left], Some(AxisSource::CrossProduct));
    let t = transfer(&ks, 0, &c, &map, &TransferOptions::default()).unwrap();
    assert!(t.effector_summary().max > 0.01, "{}", t.effector_summary());
}

/// A clavicle that never turns above a shoulder that lowers (about x) and swings (about z):
/// the shoulder keeps the larger motion, the clavicle takes the swing it cannot make, and the
/// pair follows the arm exactly.
#[test]
fn two_hinges_in_a_row_share_a_two_axis_motion() {
    let mut ks = skeleton(&[
        ("root", None, [0.0, 1.0, 0.0]),
        ("clav", Some(0), [0.0, 1.5, 0.0]),
        ("shoulder", Some(1), [0.0, 1.5, -0.2]),
        ("elbow", Some(2), [0.0, 1.5, -0.5]),
        ("wrist", Some(3), [0.0, 1.5, -0.8]),
        ("leg", Some(0), [0.0, 0.5, 0.0]),
        ("leg_tip", Some(5), [0.0, 0.0, 0.0]),
    ]);
    let phase = |f: usize| std::f64::consts::TAU * f as f64 / 24.0;
    ks.animations[0].frames = animate(&ks, 24, |f, j| {
        if (2..=4).contains(&j) {
            UnitQuaternion::from_axis_angle(&Vector3::z_axis(), 0.5 * phase(f).sin())
                * UnitQuaternion::from_axis_angle(
                    &Vector3::x_axis(),
                    -1.2 * (0.5 + 0.5 * phase(f).cos()),
                )
        } else {
            UnitQuaternion::identity()
        }
    });
    let (c, map) = build_character(&ks, &ArbsOptions::default()).unwrap();
    let axis = |body: &str| match c.joint_to(body).unwrap().kind {
        JointKind::Hinge { axis } => Vector3::from(axis),
        _ => panic!(),
    };
    assert!(axis("shoulder").x.abs() > 0.999, "{:?}", axis("shoulder"));
    assert!(axis("clav").z.abs() > 0.999, "{:?}", axis("clav"));
    let t = transfer(&ks, 0, &c, &map, &TransferOptions::default()).unwrap();
    assert!(t.effector_summary().max < 1e-3, "{}", t.effector_summary());
}

/// Skin `count` vertices, one weight each, to joint `j` at the points `at(i)`.
fn bind(ks: &mut Skeleton, j: usize, count: usize, at: impl Fn(usize) -> [f64; 3]) {
    for i in 0..count {
        ks.skin.push(SkinSample {
            position: at(i),
            joints: [j, 0, 0, 0],
            weights: [1.0, 0.0, 0.0, 0.0],
        });
    }
}

/// Blender-style skins bind the mesh to leaf bones: a leaf with at least 4 vertices' worth of
/// weight gets a body along its bone, as long as its vertices reach; a leaf with too little
/// skin, and every leaf without one, keeps the paper's rule (no body).
#[test]
fn a_leaf_with_skin_gets_a_body_along_its_bone() {
    // Two legs ending in leaf shins, a torso ending in a leaf head, a tip with 2 vertices.
    let mut ks = skeleton(&[
        ("hips", None, [0.0, 1.0, 0.0]),
        ("l_thigh", Some(0), [0.0, 1.0, -0.1]),
        ("l_shin", Some(1), [0.0, 0.5, -0.1]),
        ("r_thigh", Some(0), [0.0, 1.0, 0.1]),
        ("r_shin", Some(3), [0.0, 0.5, 0.1]),
        ("chest", Some(0), [0.0, 1.4, 0.0]),
        ("head", Some(5), [0.0, 1.6, 0.0]),
        ("tail", Some(0), [-0.2, 1.0, 0.0]),
    ]);
    for (j, z) in [(2, -0.1), (4, 0.1)] {
        // The shin's vertices run 0.5 m down from the knee to the ground.
        bind(&mut ks, j, 21, |i| [0.03, 0.5 - 0.025 * i as f64, z]);
    }
    bind(&mut ks, 6, 11, |i| [0.0, 1.6 + 0.02 * i as f64, 0.05]);
    bind(&mut ks, 7, 2, |_| [-0.25, 1.0, 0.0]);
    bind(&mut ks, 0, 8, |i| [0.0, 1.0 + 0.05 * i as f64, 0.0]);
    let options = ArbsOptions {
        skinned_leaves: true,
        ..ArbsOptions::default()
    };
    let (c, map) = build_character(&ks, &options).unwrap();
    let made: Vec<usize> = map.bodies.iter().flatten().copied().collect();
    for j in [2, 4, 6] {
        assert!(
            made.contains(&j),
            "leaf {} with skin gets a body",
            ks.joints[j].name
        );
    }
    assert!(
        !made.contains(&7),
        "a leaf with 2 vertices' worth gets none"
    );
    // The shin runs from the knee straight down, as far as its skin (95th percentile).
    let b = map.bodies.iter().position(|&j| j == Some(2)).unwrap();
    let body = &c.bodies[b];
    let crate::model::Shape::Capsule {
        radius,
        half_length,
        ..
    } = body.shape
    else {
        panic!("a capsule")
    };
    let length = 2.0 * (half_length + radius);
    assert!((length - 0.475).abs() < 0.03, "shin length {length}");
    assert!((body.position[1] - (0.5 - length / 2.0)).abs() < 1e-6);
    // The shins end near the ground: they are the feet and stand on pads.
    assert_eq!(
        c.end_effectors
            .iter()
            .filter(|e| e.tag == EffectorTag::Foot)
            .count(),
        2
    );
    assert_eq!(c.bodies.len(), made.len() + 2, "two pads");
    // The head's body is tagged by name.
    assert!(c.end_effectors.iter().any(|e| e.tag == EffectorTag::Head));
    // Without a skin the paper's rule stands: no leaf gets a body.
    let (_, map) = build_character(&ks, &ArbsOptions::default()).unwrap();
    assert!(
        map.bodies.iter().flatten().all(|&j| !ks.is_leaf(j)),
        "off by default"
    );
    ks.skin.clear();
    let (_, map) = build_character(&ks, &options).unwrap();
    assert!(map.bodies.iter().flatten().all(|&j| !ks.is_leaf(j)));
}

/// The end-effector error is measured at the character's end effectors: a tail swinging about
/// two axes (which its one hinge cannot follow) misses by centimetres at its tip, a leaf that
/// is no end effector, while the feet and the head, at rest, are matched within 1 cm (the
/// root gives a little to the tail).
#[test]
fn the_effector_error_is_measured_at_end_effectors_only() {
    let mut ks = quadruped(false);
    let tail: Vec<usize> = ["b_Tail01_012", "b_Tail02_013"]
        .iter()
        .map(|n| ks.joints.iter().position(|j| j.name == *n).unwrap())
        .collect();
    let frames = animate(&ks, 4, |f, j| {
        if !tail.contains(&j) {
            return UnitQuaternion::identity();
        }
        let axis = if f % 2 == 0 {
            Vector3::y_axis()
        } else {
            Vector3::z_axis()
        };
        UnitQuaternion::from_axis_angle(&axis, 0.6)
    });
    ks.animations.push(Animation {
        name: "wag".into(),
        rate: 30.0,
        frames,
    });
    let options = ArbsOptions {
        mass: 12.0,
        ..ArbsOptions::default()
    };
    let (c, map) = build_character(&ks, &options).unwrap();
    let t = transfer(&ks, 1, &c, &map, &TransferOptions::default()).unwrap();
    let worst = |v: &[f64]| v.iter().copied().fold(0.0f64, f64::max);
    assert!(
        worst(&t.joint_error) > 0.02,
        "the tail tip is missed: {:?}",
        t.joint_error
    );
    assert!(
        worst(&t.effector_error) < 0.01,
        "feet and head are matched within 1 cm: {:?}",
        t.effector_error
    );
}
