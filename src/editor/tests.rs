//! Every editing tool on human3d (Borer et al. 2018, §4.3; each operation keeps the
//! structure a tree, updates joint count and DoF count, and is undoable), the mirror mode, the
//! rejection of invalid edits and the undo bookkeeping.

use super::*;
use crate::model::{
    Character, EffectorTag, JointKind, Shape, load_character, parse_character, save_character,
};
use std::path::{Path, PathBuf};

pub(super) fn human3d_path() -> PathBuf {
    Path::new(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/characters/human3d.ron"
    ))
    .to_path_buf()
}

pub(super) fn human3d() -> Character {
    load_character(&human3d_path()).unwrap()
}

/// The text `save_character` writes for `c`.
pub(super) fn saved_text(c: &Character) -> String {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("c.ron");
    save_character(c, &path).unwrap();
    std::fs::read_to_string(path).unwrap()
}

/// Valid, a tree (one joint fewer than bodies, every joint's parent already reached from the
/// root when it is listed), and every reference resolved.
pub(super) fn assert_tree(c: &Character) {
    assert_eq!(c.validate(), vec![], "{}", c.name);
    assert_eq!(c.joints.len() + 1, c.bodies.len());
    let mut reached = vec![c.root.body.as_str()];
    for j in &c.joints {
        assert!(
            reached.contains(&j.parent.as_str()),
            "joint {} listed before its parent's joint",
            j.name
        );
        assert!(!reached.contains(&j.child.as_str()));
        reached.push(&j.child);
    }
}

pub(super) fn body<'a>(c: &'a Character, name: &str) -> &'a crate::model::Body {
    &c.bodies[c.body_index(name).unwrap()]
}

pub(super) fn joint<'a>(c: &'a Character, name: &str) -> &'a crate::model::Joint {
    c.joints.iter().find(|j| j.name == name).unwrap()
}

pub(super) fn close(a: [f64; 3], b: [f64; 3]) -> bool {
    (0..3).all(|k| (a[k] - b[k]).abs() < 1e-9)
}

/// Applies `edit` (must be accepted), checks the tree and the counts, undoes it and checks that
/// the original is back; returns the edited character.
fn check_op(edit: Edit, bodies: usize, joints: usize, dof: usize) -> Character {
    let original = human3d();
    let mut ed = Editor::new(original.clone());
    ed.apply(edit.clone())
        .unwrap_or_else(|e| panic!("{edit:?}: {e}"));
    let after = ed.character().clone();
    assert_tree(&after);
    assert_eq!(
        (after.bodies.len(), after.joints.len(), after.internal_dof()),
        (bodies, joints, dof),
        "{edit:?}"
    );
    assert_eq!(ed.undo_len(), 1);
    assert!(ed.is_modified());
    assert!(ed.undo());
    assert_eq!(ed.character(), &original);
    assert!(!ed.is_modified());
    assert!(ed.redo());
    assert_eq!(ed.character(), &after);
    after
}

#[test]
fn body_tools_edit_one_body_and_undo() {
    let moved = check_op(
        Edit::SetBodyPosition {
            body: "head".into(),
            position: [0.02, 1.7, 0.0],
        },
        15,
        14,
        24,
    );
    assert_eq!(body(&moved, "head").position, [0.02, 1.7, 0.0]);
    let turned = check_op(
        Edit::SetBodyRotation {
            body: "l_foot".into(),
            rotation: [0.0, 10.0, 0.0],
        },
        15,
        14,
        24,
    );
    assert_eq!(body(&turned, "l_foot").rotation, [0.0, 10.0, 0.0]);
    let shape = Shape::Box {
        half_extents: [0.1, 0.2, 0.1],
    };
    let resized = check_op(
        Edit::SetBodyShape {
            body: "torso".into(),
            shape,
        },
        15,
        14,
        24,
    );
    assert_eq!(body(&resized, "torso").shape, shape);
    assert_eq!(body(&resized, "torso").mass, 23.44);
    let dense = check_op(
        Edit::SetBodyDensity {
            body: "torso".into(),
            density: 1000.0,
        },
        15,
        14,
        24,
    );
    // 0.22 × 0.40 × 0.34 m = 0.02992 m³.
    assert!((body(&dense, "torso").mass - 29.92).abs() < 1e-9);

    // An explicit inertia scales with the mass and is dropped by a shape or density edit.
    let mut c = human3d();
    let t = c.body_index("torso").unwrap();
    c.bodies[t].inertia = Some([1.0, 1.5, 2.0]);
    let mut ed = Editor::new(c);
    let mass = |mass| Edit::SetBodyMass {
        body: "torso".into(),
        mass,
    };
    ed.apply(mass(2.0 * 23.44)).unwrap();
    assert_eq!(ed.character().bodies[t].inertia, Some([2.0, 3.0, 4.0]));
    ed.apply(Edit::SetBodyDensity {
        body: "torso".into(),
        density: 900.0,
    })
    .unwrap();
    assert_eq!(ed.character().bodies[t].inertia, None);
    assert_eq!(ed.undo_len(), 2);
}

#[test]
fn joint_tools_edit_one_joint_and_undo() {
    // A knee made universal: one DoF more, its (one-pair) limits and rest angle cleared.
    let kind = JointKind::Universal {
        axes: ([0.0, 0.0, 1.0], [1.0, 0.0, 0.0]),
    };
    let c = check_op(
        Edit::SetJointKind {
            joint: "l_knee".into(),
            kind: kind.clone(),
        },
        15,
        14,
        25,
    );
    let knee = joint(&c, "l_knee");
    assert_eq!(
        (&knee.kind, knee.limits.len(), knee.rest.len()),
        (&kind, 0, 0)
    );
    // The same number of DoF keeps the limits.
    let tilted = JointKind::Hinge {
        axis: [0.0, 0.6, 0.8],
    };
    let c = check_op(
        Edit::SetJointKind {
            joint: "l_knee".into(),
            kind: tilted.clone(),
        },
        15,
        14,
        24,
    );
    assert_eq!(joint(&c, "l_knee").kind, tilted);
    assert_eq!(joint(&c, "l_knee").limits, vec![(-150.0, 0.0)]);
    let c = check_op(
        Edit::SetJointKind {
            joint: "neck".into(),
            kind: JointKind::Fixed,
        },
        15,
        14,
        22,
    );
    assert!(joint(&c, "neck").limits.is_empty());
    let c = check_op(
        Edit::SetJointAnchor {
            joint: "neck".into(),
            anchor: [0.0, 1.52, 0.0],
        },
        15,
        14,
        24,
    );
    assert_eq!(joint(&c, "neck").anchor, [0.0, 1.52, 0.0]);
    let c = check_op(
        Edit::SetJointLimits {
            joint: "neck".into(),
            limits: vec![(-30.0, 30.0), (-20.0, 10.0)],
        },
        15,
        14,
        24,
    );
    assert_eq!(joint(&c, "neck").limits, vec![(-30.0, 30.0), (-20.0, 10.0)]);
    let c = check_op(
        Edit::SetJointGains {
            joint: "neck".into(),
            kp: Some(200.0),
            kd: None,
            torque_limit: Some(60.0),
        },
        15,
        14,
        24,
    );
    let neck = joint(&c, "neck");
    assert_eq!(
        (neck.kp, neck.kd, neck.torque_limit),
        (Some(200.0), None, Some(60.0))
    );
}

#[test]
fn foot_pad_is_added_moved_resized_and_removed() {
    let original = human3d();
    let mut ed = Editor::new(original.clone());
    ed.apply(Edit::AddEndEffector {
        body: "l_foot".into(),
        tag: EffectorTag::Foot,
        half_extents: [0.13, 0.01, 0.05],
    })
    .unwrap();
    let c = ed.character().clone();
    assert_tree(&c);
    assert_eq!(
        (c.bodies.len(), c.joints.len(), c.internal_dof()),
        (16, 15, 24)
    );
    // Under the sole (the foot's bottom is at y = 0), welded at the centre of its top face.
    let pad = body(&c, "l_foot_pad");
    assert!(close(pad.position, [0.05, -0.01, -0.09]));
    let weld = joint(&c, "l_foot_pad_weld");
    assert_eq!(
        (weld.parent.as_str(), &weld.kind),
        ("l_foot", &JointKind::Fixed)
    );
    assert!(close(weld.anchor, [0.05, 0.0, -0.09]));
    // Same density as the foot: 1.12 kg / 2.08e-3 m³ × 5.2e-4 m³.
    assert!((pad.mass - 0.28).abs() < 1e-9, "{}", pad.mass);
    // Still two feet: the foot's end effector moved to the pad's sole.
    let feet: Vec<_> = c.effectors(EffectorTag::Foot).collect();
    assert_eq!(feet.len(), 2);
    assert!(
        feet.iter()
            .any(|e| e.body == "l_foot_pad" && e.point == [0.0, -0.01, 0.0])
    );
    assert!(feet.iter().all(|e| e.body != "l_foot"));

    ed.apply(Edit::MoveEndEffector {
        body: "l_foot_pad".into(),
        position: [0.06, -0.01, -0.09],
    })
    .unwrap();
    assert!(close(
        joint(ed.character(), "l_foot_pad_weld").anchor,
        [0.06, 0.0, -0.09]
    ));
    ed.apply(Edit::ResizeEndEffector {
        body: "l_foot_pad".into(),
        half_extents: [0.13, 0.02, 0.05],
    })
    .unwrap();
    let c = ed.character().clone();
    assert_tree(&c);
    let pad = body(&c, "l_foot_pad");
    assert!(
        (pad.vertical_extent().1).abs() < 1e-12,
        "top face stays at y = 0"
    );
    assert!((pad.mass - 0.56).abs() < 1e-9);
    assert!(
        c.end_effectors
            .iter()
            .any(|e| e.body == "l_foot_pad" && close(e.point, [0.0, -0.02, 0.0]))
    );

    ed.apply(Edit::RemoveEndEffector {
        body: "l_foot_pad".into(),
    })
    .unwrap();
    let c = ed.character().clone();
    assert_tree(&c);
    assert_eq!((c.bodies.len(), c.joints.len()), (15, 14));
    // The sole point (0.06, -0.04, -0.09) is back on the foot, in its frame.
    let e = c.end_effectors.iter().find(|e| e.body == "l_foot").unwrap();
    assert_eq!(e.tag, EffectorTag::Foot);
    assert!(close(e.point, [0.01, -0.08, 0.0]), "{:?}", e.point);

    assert_eq!(ed.undo_len(), 4);
    while ed.undo() {}
    assert_eq!(ed.character(), &original);
}

#[test]
fn hand_pad_hangs_from_the_fingertips_and_only_terminal_bodies_take_one() {
    let mut ed = Editor::new(human3d());
    ed.apply(Edit::AddEndEffector {
        body: "l_hand".into(),
        tag: EffectorTag::Hand,
        half_extents: [0.04, 0.01, 0.02],
    })
    .unwrap();
    let c = ed.character();
    // The wrist is above the hand: the far end is the hand's bottom, y = 0.83 − 0.07.
    assert!(close(
        joint(c, "l_hand_pad_weld").anchor,
        [0.0, 0.76, -0.25]
    ));
    assert!(close(body(c, "l_hand_pad").position, [0.0, 0.75, -0.25]));
    // A second pad on the same hand gets a new name; the first pad itself takes none.
    let again = Edit::AddEndEffector {
        body: "l_hand_pad".into(),
        tag: EffectorTag::Hand,
        half_extents: [0.02, 0.01, 0.02],
    };
    let err = ed.apply(again).unwrap_err();
    assert!(
        err.to_string().contains("already an end-effector pad"),
        "{err}"
    );
    let err = ed
        .apply(Edit::AddEndEffector {
            body: "l_thigh".into(),
            tag: EffectorTag::Foot,
            half_extents: [0.05, 0.01, 0.05],
        })
        .unwrap_err();
    assert!(err.to_string().contains("not a terminal body"), "{err}");
    assert!(err.to_string().contains("l_knee"), "{err}");
    let err = ed
        .apply(Edit::MoveEndEffector {
            body: "l_hand".into(),
            position: [0.0; 3],
        })
        .unwrap_err();
    assert!(err.to_string().contains("not an end-effector pad"), "{err}");
}

#[test]
fn set_root_reverses_the_path_and_back() {
    let original = human3d();
    let c = check_op(
        Edit::SetRoot {
            body: "l_foot".into(),
        },
        15,
        14,
        24,
    );
    assert_eq!(c.root.body, "l_foot");
    let (ankle, knee, hip) = (
        joint(&c, "l_ankle"),
        joint(&c, "l_knee"),
        joint(&c, "l_hip"),
    );
    assert_eq!(
        (ankle.parent.as_str(), ankle.child.as_str()),
        ("l_foot", "l_shin")
    );
    assert_eq!(
        (knee.parent.as_str(), knee.child.as_str()),
        ("l_shin", "l_thigh")
    );
    assert_eq!(
        (hip.parent.as_str(), hip.child.as_str()),
        ("l_thigh", "pelvis")
    );
    assert_eq!(knee.kind, joint(&original, "l_knee").kind);
    assert_eq!(
        (knee.limits.clone(), knee.rest.clone()),
        (vec![(0.0, 150.0)], vec![20.0])
    );
    // A universal joint's inverse turns about its second axis first.
    assert_eq!(
        hip.kind,
        JointKind::Universal {
            axes: ([1.0, 0.0, 0.0], [0.0, 0.0, 1.0])
        }
    );
    assert_eq!(hip.limits, vec![(-45.0, 45.0), (-120.0, 30.0)]);
    assert_eq!(hip.rest, vec![0.0, -10.0]);
    assert_eq!(ankle.limits, vec![(-30.0, 30.0), (-30.0, 45.0)]);
    assert_eq!(
        joint(&c, "waist"),
        joint(&original, "waist"),
        "off the path: unchanged"
    );

    // Back to the pelvis: every joint as it was (turning round twice is exact).
    let mut ed = Editor::new(c);
    ed.apply(Edit::SetRoot {
        body: "pelvis".into(),
    })
    .unwrap();
    let back = ed.character();
    assert_tree(back);
    for j in &original.joints {
        assert_eq!(joint(back, &j.name), j);
    }
}

#[test]
fn delete_subtree_and_merge_children_up() {
    let c = check_op(
        Edit::DeleteBody {
            body: "l_upper_arm".into(),
            mode: DeleteMode::Subtree,
        },
        12,
        11,
        19,
    );
    for gone in ["l_upper_arm", "l_forearm", "l_hand"] {
        assert!(c.body_index(gone).is_none());
    }
    assert_eq!(
        c.end_effectors.len(),
        4,
        "the left hand's effector went with it"
    );
    assert_eq!(
        c.mirror_pairs.len(),
        3,
        "the arm's three pairs went with it"
    );

    let c = check_op(
        Edit::DeleteBody {
            body: "l_shin".into(),
            mode: DeleteMode::MergeChildrenUp,
        },
        14,
        13,
        23,
    );
    let ankle = joint(&c, "l_ankle");
    assert_eq!(
        (ankle.parent.as_str(), ankle.child.as_str()),
        ("l_thigh", "l_foot")
    );
    assert!(c.joints.iter().all(|j| j.name != "l_knee"));
    assert!(!c.mirror_pairs.iter().any(|(l, _)| l == "l_shin"));
}

/// The dinosaur's weight-bearing metatarsi follow the structure tools: a merged one is named by
/// the body that absorbed it, a deleted one is dropped.
#[test]
fn weight_bearing_bodies_follow_merges_and_deletes() {
    let dino =
        load_character(&Path::new(env!("CARGO_MANIFEST_DIR")).join("characters/dino.ron")).unwrap();
    assert_eq!(dino.weight_bearing, ["l_metatarsus", "r_metatarsus"]);
    let mut ed = Editor::new(dino);
    ed.apply(Edit::MergeBodies {
        keep: "l_shin".into(),
        absorb: "l_metatarsus".into(),
    })
    .unwrap();
    assert_eq!(ed.character().weight_bearing, ["l_shin", "r_metatarsus"]);
    ed.apply(Edit::DeleteBody {
        body: "r_metatarsus".into(),
        mode: DeleteMode::Subtree,
    })
    .unwrap();
    assert_eq!(ed.character().weight_bearing, ["l_shin"]);
    assert_tree(ed.character());
}

#[test]
fn merge_two_bodies() {
    let c = check_op(
        Edit::MergeBodies {
            keep: "l_shin".into(),
            absorb: "l_foot".into(),
        },
        14,
        13,
        22,
    );
    let shin = body(&c, "l_shin");
    assert!((shin.mass - 4.56).abs() < 1e-12);
    let com = [
        1.12 * 0.05 / 4.56,
        (3.44 * 0.29 + 1.12 * 0.04) / 4.56,
        -0.09,
    ];
    assert!(close(shin.position, com));
    // A box on the combined centre of mass covering the shin (y up to 0.50) and the foot
    // (x from −0.08 to 0.18, y down to 0).
    let Shape::Box { half_extents: h } = shin.shape else {
        panic!("{:?}", shin.shape)
    };
    let want = [0.18 - com[0], 0.5 - com[1], 0.05];
    assert!(close(h, want), "{h:?} vs {want:?}");
    assert_eq!(shin.inertia, None);
    // The foot's end effector keeps its world point (0.05, 0, −0.09); the separation of the feet
    // now names the shin; the feet's mirror pair is gone.
    let e = c
        .effectors(EffectorTag::Foot)
        .find(|e| e.body == "l_shin")
        .unwrap();
    assert!(close(e.point, [0.05 - com[0], -com[1], 0.0]));
    assert_eq!(
        (c.separations[0].a.as_str(), c.separations[0].b.as_str()),
        ("l_shin", "r_foot")
    );
    assert!(!c.mirror_pairs.iter().any(|(l, _)| l == "l_foot"));

    // Absorbing the parent, here the root: the child takes over the root and its joints.
    let c = check_op(
        Edit::MergeBodies {
            keep: "l_thigh".into(),
            absorb: "pelvis".into(),
        },
        14,
        13,
        22,
    );
    assert_eq!(c.root.body, "l_thigh");
    assert_eq!(joint(&c, "r_hip").parent, "l_thigh");
    assert_eq!(joint(&c, "waist").parent, "l_thigh");

    let mut ed = Editor::new(human3d());
    let err = ed
        .apply(Edit::MergeBodies {
            keep: "l_hand".into(),
            absorb: "r_hand".into(),
        })
        .unwrap_err();
    assert!(err.to_string().contains("not joined by a joint"), "{err}");
}

#[test]
fn invalid_edits_are_rejected_and_change_nothing() {
    let mut ed = Editor::new(human3d());
    ed.apply(Edit::SetBodyMass {
        body: "head".into(),
        mass: 6.0,
    })
    .unwrap();
    assert!(ed.undo());
    let before = ed.character().clone();
    let cases = [
        (
            Edit::SetBodyMass {
                body: "l_hand".into(),
                mass: -1.0,
            },
            "bodies[\"l_hand\"], field `mass`: expected a mass in (0, 10000] kg, found -1",
        ),
        (
            Edit::SetJointLimits {
                joint: "l_elbow".into(),
                limits: vec![(90.0, 10.0)],
            },
            "expected -360 <= min < max <= 360 degrees, found (90, 10)",
        ),
        (
            Edit::DeleteBody {
                body: "pelvis".into(),
                mode: DeleteMode::Subtree,
            },
            "`pelvis` is the root",
        ),
        (
            Edit::SetBodyPosition {
                body: "nose".into(),
                position: [0.0; 3],
            },
            "no body named `nose`",
        ),
        (
            Edit::SetBodyDensity {
                body: "torso".into(),
                density: f64::NAN,
            },
            "field `mass`",
        ),
    ];
    for mirror in [false, true] {
        ed.mirror = mirror;
        for (edit, want) in &cases {
            let err = ed.apply(edit.clone()).unwrap_err();
            assert!(
                err.messages().iter().any(|m| m.contains(want)),
                "{edit:?}: {err}"
            );
            assert_eq!(ed.character(), &before);
            assert_eq!(
                (ed.undo_len(), ed.redo_len()),
                (0, 1),
                "redo survives a rejection"
            );
            assert!(!ed.is_modified());
        }
    }
    assert!(ed.redo());
    assert_eq!(body(ed.character(), "head").mass, 6.0);
}

#[test]
fn a_drag_is_one_undo_step() {
    let original = human3d();
    let mut ed = Editor::new(original.clone());
    let mass = |body: &str, mass| Edit::SetBodyMass {
        body: body.into(),
        mass,
    };
    for m in [0.5, 0.6, 0.7] {
        ed.apply_coalesced(mass("l_hand", m)).unwrap();
    }
    assert_eq!(ed.undo_len(), 1);
    assert_eq!(body(ed.character(), "l_hand").mass, 0.7);
    // Another subject, then another variant, each start a step.
    ed.apply_coalesced(mass("r_hand", 0.5)).unwrap();
    ed.apply_coalesced(Edit::SetBodyDensity {
        body: "r_hand".into(),
        density: 1000.0,
    })
    .unwrap();
    assert_eq!(ed.undo_len(), 3);
    // A plain edit, or the end of a drag, ends it.
    ed.apply(mass("head", 5.0)).unwrap();
    ed.apply_coalesced(mass("head", 5.1)).unwrap();
    ed.end_drag();
    ed.apply_coalesced(mass("head", 5.2)).unwrap();
    assert_eq!(ed.undo_len(), 6);
    // A drag back to where it started leaves no step.
    ed.apply_coalesced(mass("head", 5.3)).unwrap();
    ed.apply_coalesced(mass("head", 5.1)).unwrap();
    assert_eq!(ed.undo_len(), 5);
    assert_eq!(body(ed.character(), "head").mass, 5.1);
    // After an undo the next drag step is new.
    assert!(ed.undo());
    ed.apply_coalesced(mass("head", 5.0)).unwrap();
    assert_eq!(
        (ed.undo_len(), ed.redo_len()),
        (4, 1),
        "5.0 again after the undo: a no-op adds no step and keeps the redo"
    );
    ed.apply_coalesced(mass("head", 4.9)).unwrap();
    assert_eq!((ed.undo_len(), ed.redo_len()), (5, 0));
    while ed.undo() {}
    assert_eq!(ed.character(), &original);
}

#[test]
fn undo_redo_modified_and_save() {
    let original = human3d();
    let mut ed = Editor::new(original.clone());
    assert!(!ed.can_undo() && !ed.can_redo() && !ed.undo() && !ed.redo());
    let edit = |mass| Edit::SetBodyMass {
        body: "head".into(),
        mass,
    };
    ed.apply(edit(5.0)).unwrap();
    ed.apply(edit(5.5)).unwrap();
    assert!(ed.is_modified() && ed.can_undo());
    assert!(ed.undo());
    assert_eq!((ed.undo_len(), ed.redo_len()), (1, 1));
    ed.apply(edit(6.0)).unwrap();
    assert_eq!(
        (ed.undo_len(), ed.redo_len()),
        (2, 0),
        "a new edit clears redo"
    );

    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("edited.ron");
    ed.save(&path).unwrap();
    assert!(!ed.is_modified());
    let text = std::fs::read_to_string(&path).unwrap();
    let loaded = parse_character(&text, &path).unwrap();
    assert_eq!(&loaded, ed.character());
    assert!(ed.undo());
    assert!(ed.is_modified(), "the saved state is the edited one");
    assert_eq!(body(ed.character(), "head").mass, 5.0);
    assert!(ed.redo());
    assert!(!ed.is_modified());
    ed.apply(edit(6.5)).unwrap();
    ed.mark_saved();
    assert!(!ed.is_modified());
    // Edits serialize (a session could be logged or replayed).
    let e = Edit::DeleteBody {
        body: "l_hand".into(),
        mode: DeleteMode::MergeChildrenUp,
    };
    let text = ron::to_string(&e).unwrap();
    assert_eq!(ron::from_str::<Edit>(&text).unwrap(), e);
}
