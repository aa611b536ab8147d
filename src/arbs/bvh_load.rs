//! BVH (Biovision hierarchy) → [`Skeleton`] (the KS of Borer et al. 2018, §4), through the
//! project's one BVH parser ([`crate::clip::bvh::parse`], whose errors name the file and the line).
//!
//! Every node is a joint and every `End Site` a leaf joint named `<node>_end`, so that the last
//! bone of a chain (a head, a toe) has both of its ends. The rest pose is the hierarchy's
//! offsets with every rotation zero. The one animation is the MOTION section: a node's local
//! transform is a translation — its offset, with the components given by position channels
//! replacing the offset's — then its rotation channels in file order (R = R₁·R₂·R₃);
//! world transforms compose from the root. Motion capture is assumed to face +z (the CMU
//! convention), like glTF; [`super::LoadOptions::forward`] overrides it.
//!
//! The root's position channels are where the capture put the hips, in the capture's own
//! floor, which the rest pose (offsets from a root at the origin) does not know: CMU's 12_01
//! has its hips 31 units up against a 24-unit rest pose, and shifted with the rest pose onto
//! the ground its feet would walk 1.2 m in the air. So after the rest pose is put on the
//! ground, the animation is too, on its own: its lowest joint over all frames at y = 0.

use super::ArbsError;
use super::skeleton::{
    Animation, Forward, JointPose, KsJoint, LoadOptions, MAX_JOINTS, MAX_POSES, Skeleton, unique,
};
use crate::clip::bvh::{self, Channel};
use nalgebra::{Unit, UnitQuaternion, Vector3};
use std::path::Path;

impl Skeleton {
    /// Reads BVH text; `path` names the file in messages.
    pub fn from_bvh(text: &str, path: &str, options: &LoadOptions) -> Result<Skeleton, ArbsError> {
        let parsed = bvh::parse(text, path)?;
        let n = parsed.nodes.len();
        // Joints: the nodes, each followed by its end site if it has one (parents stay first).
        let mut names = Vec::new();
        let mut parents = Vec::new();
        let mut offsets = Vec::new();
        let mut index_of_node = vec![0usize; n];
        let mut end_of_node = vec![None; n];
        for (i, node) in parsed.nodes.iter().enumerate() {
            index_of_node[i] = names.len();
            names.push(node.name.clone());
            parents.push(node.parent.map(|p| index_of_node[p]));
            offsets.push(Vector3::from(node.offset));
            if let Some(e) = node.end_site {
                end_of_node[i] = Some(names.len());
                names.push(format!("{}_end", node.name));
                parents.push(Some(index_of_node[i]));
                offsets.push(Vector3::from(e));
            }
        }
        // Node order in a BVH file is depth-first, so every parent precedes its children; the
        // end sites were inserted right after their node, which keeps that true.
        let names = unique(names);
        let mut rest = Vec::with_capacity(names.len());
        for (k, off) in offsets.iter().enumerate() {
            let p = match parents[k] {
                Some(p) => rest[p] + off,
                None => *off,
            };
            rest.push(p);
        }
        let joints: Vec<KsJoint> = (0..names.len())
            .map(|k| KsJoint {
                name: names[k].clone(),
                parent: parents[k],
                rest: JointPose::new(rest[k], &UnitQuaternion::identity()),
            })
            .collect();
        // Motion.
        let starts: Vec<usize> = parsed
            .nodes
            .iter()
            .scan(0, |acc, node| {
                let s = *acc;
                *acc += node.channels.len();
                Some(s)
            })
            .collect();
        let poses = parsed.frames.len().saturating_mul(joints.len());
        if joints.len() > MAX_JOINTS || poses > MAX_POSES {
            return Err(ArbsError::file(
                path,
                format!(
                    "{} joints (end sites included) over {} frames: at most {MAX_JOINTS} joints and {MAX_POSES} joint transforms are supported",
                    joints.len(),
                    parsed.frames.len()
                ),
            ));
        }
        let frames = parsed
            .frames
            .iter()
            .map(|row| {
                let mut world: Vec<(Vector3<f64>, UnitQuaternion<f64>)> =
                    Vec::with_capacity(joints.len());
                world.resize(joints.len(), (Vector3::zeros(), UnitQuaternion::identity()));
                for (i, node) in parsed.nodes.iter().enumerate() {
                    let mut t = Vector3::from(node.offset);
                    let mut r = UnitQuaternion::identity();
                    for (c, ch) in node.channels.iter().enumerate() {
                        let v = row[starts[i] + c];
                        match *ch {
                            Channel::Position(a) => t[a] = v,
                            Channel::Rotation(a) => {
                                let mut axis = Vector3::zeros();
                                axis[a] = 1.0;
                                r *= UnitQuaternion::from_axis_angle(
                                    &Unit::new_unchecked(axis),
                                    v.to_radians(),
                                );
                            }
                        }
                    }
                    let k = index_of_node[i];
                    world[k] = match node.parent {
                        Some(p) => {
                            let (pp, pq) = world[index_of_node[p]];
                            (pp + pq * t, pq * r)
                        }
                        None => (t, r),
                    };
                    if let Some(e) = end_of_node[i] {
                        let (p, q) = world[k];
                        world[e] = (p + q * offsets[e], q);
                    }
                }
                world
                    .iter()
                    .map(|(p, q)| JointPose::new(*p, q))
                    .collect::<Vec<_>>()
            })
            .collect();
        let name = Path::new(path)
            .file_stem()
            .map(|s| s.to_string_lossy().to_string())
            .unwrap_or_else(|| "skeleton".into());
        Skeleton {
            name: name.clone(),
            source: path.into(),
            joints,
            skin: Vec::new(),
            skin_triangles: Vec::new(),
            animations: vec![Animation {
                name,
                rate: 1.0 / parsed.frame_time,
                frames,
            }],
            warnings: parsed.warnings,
            scale: 1.0,
        }
        .finish(Forward::PlusZ, options)
        .map(Skeleton::ground_animations)
    }

    /// Puts every animation's lowest joint, over all its frames, at y = 0 (module docs).
    fn ground_animations(mut self) -> Skeleton {
        for a in &mut self.animations {
            let low = a
                .frames
                .iter()
                .flatten()
                .map(|p| p.position[1])
                .fold(f64::INFINITY, f64::min);
            if low.is_finite() {
                for p in a.frames.iter_mut().flatten() {
                    p.position[1] -= low;
                }
            }
        }
        self
    }
}
