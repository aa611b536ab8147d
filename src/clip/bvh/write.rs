//! Writing a clip as BVH text: with the hierarchy of the file it was read from when it has one,
//! else with a hierarchy made from its character (see the module docs of [`super`]).

use super::{Channel, Hierarchy, Node, euler};
use crate::clip::Clip;
use crate::clip::pose::{self, reference_orientation};
use crate::model::{Character, JointKind};
use nalgebra::{Rotation3, Vector3};
use std::fmt::Write;

impl Hierarchy {
    /// A hierarchy for `character` in metres: one node per body in a depth-first walk of the
    /// joint tree from the root; the root at its origin with three position and three rotation
    /// channels, every other body at its joint's anchor (offset from its parent's) with three
    /// rotation channels (none for a fixed joint), leaves closed by an end site at the body's
    /// far end.
    pub fn of_character(character: &Character) -> Hierarchy {
        let root = character
            .body_index(&character.root.body)
            .expect("validated");
        let origin = character
            .root
            .origin
            .unwrap_or(character.bodies[root].position);
        let mut nodes = Vec::new();
        let zyx = [
            Channel::Rotation(2),
            Channel::Rotation(1),
            Channel::Rotation(0),
        ];
        let mut stack = vec![(root, None::<usize>, None::<usize>, origin)];
        while let Some((body, joint, parent, at)) = stack.pop() {
            let b = &character.bodies[body];
            let (own, channels) = match joint {
                None => (
                    origin,
                    [(0..3).map(Channel::Position).collect(), zyx.to_vec()].concat(),
                ),
                Some(j) => {
                    let kind = &character.joints[j].kind;
                    let channels = if matches!(kind, JointKind::Fixed) {
                        Vec::new()
                    } else {
                        zyx.to_vec()
                    };
                    (character.joints[j].anchor, channels)
                }
            };
            let kids: Vec<usize> = (0..character.joints.len())
                .filter(|&k| character.joints[k].parent == b.name)
                .collect();
            let index = nodes.len();
            nodes.push(Node {
                name: b.name.clone(),
                parent,
                offset: match joint {
                    None => origin,
                    Some(_) => [0, 1, 2].map(|k| own[k] - at[k]),
                },
                channels,
                end_site: kids
                    .is_empty()
                    .then(|| [0, 1, 2].map(|k| 2.0 * (b.position[k] - own[k]))),
            });
            // Children in joint order: pushed reversed, so the first is written first.
            for &k in kids.iter().rev() {
                let child = character
                    .body_index(&character.joints[k].child)
                    .expect("validated");
                stack.push((child, Some(k), Some(index), own));
            }
        }
        Hierarchy { nodes, scale: 1.0 }
    }

    /// The HIERARCHY section: node `i` and its children, nested.
    fn write_node(&self, out: &mut String, i: usize, depth: usize) {
        let n = &self.nodes[i];
        let pad = "\t".repeat(depth);
        let kind = if n.parent.is_none() { "ROOT" } else { "JOINT" };
        let [x, y, z] = n.offset;
        let _ = writeln!(
            out,
            "{pad}{kind} {}\n{pad}{{\n{pad}\tOFFSET {x} {y} {z}",
            n.name
        );
        let names: Vec<String> = n.channels.iter().map(channel_name).collect();
        let _ = writeln!(out, "{pad}\tCHANNELS {} {}", names.len(), names.join(" "));
        for c in (0..self.nodes.len()).filter(|&c| self.nodes[c].parent == Some(i)) {
            self.write_node(out, c, depth + 1);
        }
        if let Some([x, y, z]) = n.end_site {
            let _ = writeln!(
                out,
                "{pad}\tEnd Site\n{pad}\t{{\n{pad}\t\tOFFSET {x} {y} {z}\n{pad}\t}}"
            );
        }
        let _ = writeln!(out, "{pad}}}");
    }

    /// The nodes in the order their channels appear in a motion row (the HIERARCHY's
    /// depth-first order).
    fn row_order(&self) -> Vec<usize> {
        let mut order = Vec::with_capacity(self.nodes.len());
        let mut stack: Vec<usize> = (0..self.nodes.len())
            .filter(|&i| self.nodes[i].parent.is_none())
            .rev()
            .collect();
        while let Some(i) = stack.pop() {
            order.push(i);
            let kids: Vec<usize> = (0..self.nodes.len())
                .filter(|&c| self.nodes[c].parent == Some(i))
                .collect();
            stack.extend(kids.into_iter().rev());
        }
        order
    }
}

fn channel_name(c: &Channel) -> String {
    let (axis, what) = match *c {
        Channel::Position(a) => (a, "position"),
        Channel::Rotation(a) => (a, "rotation"),
    };
    format!("{}{what}", ["X", "Y", "Z"][axis.min(2)])
}

/// Writes `clip` of `character` as BVH text: with the clip's own hierarchy (a clip read from a
/// BVH file), else with [`Hierarchy::of_character`].
pub fn export(clip: &Clip, character: &Character) -> String {
    let made;
    let hierarchy = match &clip.bvh {
        Some(h) => h,
        None => {
            made = Hierarchy::of_character(character);
            &made
        }
    };
    let mut out = String::from("HIERARCHY\n");
    for root in (0..hierarchy.nodes.len()).filter(|&i| hierarchy.nodes[i].parent.is_none()) {
        hierarchy.write_node(&mut out, root, 0);
    }
    let _ = writeln!(
        out,
        "MOTION\nFrames: {}\nFrame Time: {:.9}",
        clip.frames.len(),
        1.0 / clip.rate
    );
    let root = character
        .body_index(&character.root.body)
        .expect("validated");
    let com_ref = Vector3::from(character.bodies[root].position);
    let origin_ref = character.root.origin.map_or(com_ref, Vector3::from);
    let root_ref = reference_orientation(&character.bodies[root]);
    let mut offsets = Vec::with_capacity(character.joints.len());
    let mut k = 0;
    for j in &character.joints {
        offsets.push(k);
        k += j.kind.dof();
    }
    // Per node: the joint that moves its body (None for the root or a node with no body).
    let joint_of: Vec<Option<usize>> = hierarchy
        .nodes
        .iter()
        .map(|n| character.joints.iter().position(|j| j.child == n.name))
        .collect();
    let order = hierarchy.row_order();
    let scale = hierarchy.scale;
    for f in &clip.frames {
        let r_root = (pose::quat_of(&f.root) * root_ref.inverse()).to_rotation_matrix();
        let com = Vector3::new(f.root[0], f.root[1], f.root[2]);
        let origin = com - r_root * (com_ref - origin_ref);
        let mut row: Vec<f64> = Vec::new();
        for &i in &order {
            let n = &hierarchy.nodes[i];
            let r = match (n.parent, joint_of[i]) {
                (None, _) => r_root,
                (Some(_), Some(j)) => {
                    let joint = &character.joints[j];
                    pose::joint_rotation(
                        &joint.kind,
                        &f.joints[offsets[j]..offsets[j] + joint.kind.dof()],
                    )
                }
                (Some(_), None) => Rotation3::identity(),
            };
            let axes: Vec<usize> = n
                .channels
                .iter()
                .filter_map(|c| match c {
                    Channel::Rotation(a) => Some(*a),
                    Channel::Position(_) => None,
                })
                .collect();
            let mut turns = euler::angles(&r, &axes).into_iter();
            for c in &n.channels {
                row.push(match *c {
                    // The root's position channels hold its place; other nodes' hold their
                    // offset (their motion is not a joint's).
                    Channel::Position(a) if n.parent.is_none() => origin[a] / scale,
                    Channel::Position(a) => n.offset[a],
                    Channel::Rotation(_) => turns.next().unwrap_or(0.0).to_degrees(),
                });
            }
        }
        let line: Vec<String> = row.iter().map(|v| format!("{v:.9}")).collect();
        let _ = writeln!(out, "{}", line.join(" "));
    }
    out
}
