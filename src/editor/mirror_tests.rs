//! The mirror mode of the editor (on the tools of Borer et al. 2018, §4.3): edits on one side
//! reflected across z = 0 onto the partner, in the partner's own sign conventions.

use super::tests::{assert_tree, body, close, human3d, joint};
use super::*;
use crate::model::{EffectorTag, JointKind};

#[test]
fn mirror_mode_reflects_edits_onto_the_partner() {
    let original = human3d();
    let mut ed = Editor::new(original.clone());
    ed.mirror = true;
    ed.apply(Edit::SetJointLimits {
        joint: "l_knee".into(),
        limits: vec![(-140.0, 0.0)],
    })
    .unwrap();
    let c = ed.character();
    assert_eq!(joint(c, "r_knee").limits, vec![(-140.0, 0.0)]);
    assert_eq!(joint(c, "r_knee").kind, joint(&original, "r_knee").kind);
    assert_eq!(ed.undo_len(), 1, "both knees in one step");

    ed.apply(Edit::SetBodyPosition {
        body: "l_thigh".into(),
        position: [0.0, 0.71, -0.09 + 0.02],
    })
    .unwrap();
    let r = body(ed.character(), "r_thigh").position;
    assert!(close(r, [0.0, 0.71, 0.09 - 0.02]), "{r:?}");

    // The hips' second axis is (1, 0, 0) on both sides: its reflection is (−1, 0, 0), so the
    // right hip keeps its sign and takes the limits reflected.
    ed.apply(Edit::SetJointLimits {
        joint: "l_hip".into(),
        limits: vec![(-20.0, 100.0), (-30.0, 40.0)],
    })
    .unwrap();
    assert_eq!(
        joint(ed.character(), "r_hip").limits,
        vec![(-20.0, 100.0), (-40.0, 30.0)]
    );
    // A tilted knee axis reflects as an axial vector, signed like the partner's.
    ed.apply(Edit::SetJointKind {
        joint: "l_knee".into(),
        kind: JointKind::Hinge {
            axis: [0.6, 0.0, 0.8],
        },
    })
    .unwrap();
    assert_eq!(
        joint(ed.character(), "r_knee").kind,
        JointKind::Hinge {
            axis: [-0.6, 0.0, 0.8]
        }
    );
    ed.apply(Edit::SetBodyRotation {
        body: "r_foot".into(),
        rotation: [10.0, 20.0, 30.0],
    })
    .unwrap();
    assert_eq!(
        body(ed.character(), "l_foot").rotation,
        [-10.0, -20.0, 30.0]
    );
    // Midline bodies are edited once.
    ed.apply(Edit::SetBodyMass {
        body: "head".into(),
        mass: 5.0,
    })
    .unwrap();
    assert_eq!(ed.undo_len(), 6);

    // Pads added in mirror mode are partners: moving one moves the other, reflected.
    ed.apply(Edit::AddEndEffector {
        body: "l_foot".into(),
        tag: EffectorTag::Foot,
        half_extents: [0.13, 0.01, 0.05],
    })
    .unwrap();
    let c = ed.character().clone();
    assert_tree(&c);
    assert_eq!(c.bodies.len(), 17);
    assert!(
        c.mirror_pairs
            .contains(&("l_foot_pad".into(), "r_foot_pad".into()))
    );
    let l = body(&c, "l_foot_pad").position;
    ed.apply(Edit::MoveEndEffector {
        body: "l_foot_pad".into(),
        position: [l[0] + 0.01, l[1], l[2] - 0.01],
    })
    .unwrap();
    let (l, r) = (
        body(ed.character(), "l_foot_pad").position,
        body(ed.character(), "r_foot_pad").position,
    );
    assert!(close(r, [l[0], l[1], -l[2]]), "{l:?} {r:?}");

    // Structure: deleting the left forearm deletes the right one too.
    ed.apply(Edit::DeleteBody {
        body: "l_forearm".into(),
        mode: DeleteMode::Subtree,
    })
    .unwrap();
    assert_eq!(ed.character().bodies.len(), 17 - 4);
    assert_tree(ed.character());
    while ed.undo() {}
    assert_eq!(ed.character(), &original);

    // Without mirror mode only the subject changes.
    ed.mirror = false;
    ed.apply(Edit::SetJointLimits {
        joint: "l_knee".into(),
        limits: vec![(-140.0, 0.0)],
    })
    .unwrap();
    assert_eq!(joint(ed.character(), "r_knee").limits, vec![(-150.0, 0.0)]);
}
