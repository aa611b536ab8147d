//! A BVH file as a clip: mapped onto a character by body name, or onto a character derived
//! from the file's own hierarchy.

use super::{Bvh, BvhError, Channel, Hierarchy};
use crate::clip::pose::{self, pose_of, reference_orientation};
use crate::clip::{CharacterRef, Clip, ClipFrame};
use crate::model::{
    Axis, Body, Character, EffectorTag, EndEffector, GaitHints, Joint, JointKind, Root, RootKind,
    Shape,
};
use nalgebra::{UnitQuaternion, Vector3};

/// Maps a parsed file onto `character` (nodes named after its bodies; the root node is the root
/// body, its position channels the root's origin, `Root::origin`, or its centre of mass when
/// the character names no origin). `scale` converts file units to metres. The clip
/// keeps the file's [`Hierarchy`] for writing it back.
pub fn clip_on_character(
    bvh: &Bvh,
    character: &Character,
    character_ref: CharacterRef,
    scale: f64,
    path: &str,
) -> Result<Clip, BvhError> {
    let err = |message: String| BvhError {
        path: path.into(),
        line: 1,
        message,
    };
    let node_of = |body: &str| bvh.nodes.iter().position(|n| n.name == body);
    let root = character
        .body_index(&character.root.body)
        .expect("validated");
    let root_node = node_of(&character.root.body)
        .filter(|&i| i == 0)
        .ok_or_else(|| {
            err(format!(
                "expected the root node to be `{}`, the character's root body",
                character.root.body
            ))
        })?;
    let mut joint_nodes = Vec::new();
    for j in &character.joints {
        let i = node_of(&j.child).ok_or_else(|| {
            err(format!(
                "expected a node named `{}` (a body of `{}`)",
                j.child, character.name
            ))
        })?;
        joint_nodes.push(i);
    }
    let root_body = &character.bodies[root];
    let com_ref = Vector3::from(root_body.position);
    let origin_ref = character.root.origin.map_or(com_ref, Vector3::from);
    let frames = (0..bvh.frames.len())
        .map(|f| {
            let (r, p) = bvh.node_motion(root_node, f);
            // The root joint's place (its position channels, on the axes they have, else its
            // offset); the centre of mass hangs off it as in the reference pose.
            let origin = match p {
                Some(_) => bvh.node_position(root_node, f) * scale,
                None => origin_ref,
            };
            let position = origin + r * (com_ref - origin_ref);
            let q = UnitQuaternion::from_rotation_matrix(&r) * reference_orientation(root_body);
            let mut joints = Vec::with_capacity(character.internal_dof());
            for (j, &i) in character.joints.iter().zip(&joint_nodes) {
                let (r, _) = bvh.node_motion(i, f);
                joints.extend(pose::joint_coordinates(&j.kind, &r));
            }
            ClipFrame {
                root: pose_of(position, &q),
                joints,
            }
        })
        .collect();
    let mut clip = Clip::from_key_frames(
        character,
        character_ref,
        1.0 / bvh.frame_time,
        frames,
        "bvh",
    );
    clip.bvh = Some(Hierarchy {
        nodes: bvh.nodes.clone(),
        scale,
    });
    Ok(clip)
}

/// A character built from the hierarchy (see the module docs); its reference pose is the file's
/// rest pose, scaled to metres by `scale`.
pub fn character_of(bvh: &Bvh, name: &str, scale: f64) -> Character {
    let rest = bvh.rest_positions(scale);
    let mut bodies = Vec::new();
    let mut joints = Vec::new();
    let mut end_effectors = Vec::new();
    for (i, n) in bvh.nodes.iter().enumerate() {
        let children: Vec<usize> = (0..bvh.nodes.len())
            .filter(|&c| bvh.nodes[c].parent == Some(i))
            .collect();
        // The bone runs from the node to its children's mean (or its end site).
        let tip = if !children.is_empty() {
            children.iter().map(|&c| rest[c]).sum::<Vector3<f64>>() / children.len() as f64
        } else if let Some(e) = n.end_site {
            rest[i] + Vector3::from(e) * scale
        } else {
            rest[i] + Vector3::new(0.0, -0.05, 0.0)
        };
        let mut bone = tip - rest[i];
        if bone.norm() < 0.02 {
            bone = Vector3::new(0.0, -0.02, 0.0);
        }
        let length = bone.norm();
        let d = bone / length;
        let radius = (0.15 * length).clamp(0.01, 0.08);
        let half_length = (length / 2.0 - radius).max(0.001);
        let volume =
            std::f64::consts::PI * radius * radius * (2.0 * half_length + 4.0 / 3.0 * radius);
        let centre = rest[i] + bone / 2.0;
        let round = |x: f64| (x * 1e9).round() / 1e9;
        bodies.push(Body {
            name: n.name.clone(),
            shape: Shape::Capsule {
                radius: round(radius),
                half_length: round(half_length),
                axis: Axis::Y,
            },
            mass: round((1000.0 * volume).max(0.01)),
            inertia: None,
            position: [centre.x, centre.y, centre.z].map(round),
            rotation: [
                d.z.clamp(-1.0, 1.0).asin().to_degrees(),
                0.0,
                (-d.x).atan2(d.y).to_degrees(),
            ]
            .map(round),
        });
        if let Some(p) = n.parent {
            let rotations: Vec<usize> = n
                .channels
                .iter()
                .filter_map(|c| match c {
                    Channel::Rotation(a) => Some(*a),
                    Channel::Position(_) => None,
                })
                .collect();
            let axis = |a: usize| {
                let mut v = [0.0; 3];
                v[a] = 1.0;
                v
            };
            let kind = match rotations.as_slice() {
                [] => JointKind::Fixed,
                [a] => JointKind::Hinge { axis: axis(*a) },
                [a, b] if a != b => JointKind::Universal {
                    axes: (axis(*a), axis(*b)),
                },
                _ => JointKind::Ball,
            };
            joints.push(Joint::new(
                n.name.clone(),
                bvh.nodes[p].name.clone(),
                n.name.clone(),
                [rest[i].x, rest[i].y, rest[i].z].map(round),
                kind,
            ));
        }
        if children.is_empty() {
            let lower = n.name.to_lowercase();
            let tag = if lower.contains("foot") || lower.contains("toe") {
                Some(EffectorTag::Foot)
            } else if lower.contains("hand") || lower.contains("finger") || lower.contains("thumb")
            {
                Some(EffectorTag::Hand)
            } else if lower.contains("head") {
                Some(EffectorTag::Head)
            } else {
                None
            };
            if let Some(tag) = tag {
                end_effectors.push(EndEffector {
                    body: n.name.clone(),
                    tag,
                    point: [0.0, round(length / 2.0), 0.0],
                });
            }
        }
    }
    Character {
        name: name.into(),
        description:
            "imported from a BVH hierarchy: a capsule per bone, masses at the density of water"
                .into(),
        root: Root {
            body: bvh.nodes[0].name.clone(),
            kind: RootKind::Free,
            origin: Some([rest[0].x, rest[0].y, rest[0].z]),
        },
        bodies,
        joints,
        end_effectors,
        mirror_pairs: Vec::new(),
        separations: Vec::new(),
        weight_bearing: Vec::new(),
        gait: GaitHints::default(),
    }
}
