//! BVH (Biovision hierarchy) import and export of clips (specs/001.md §1.10: BVH, inspected in
//! Blender).
//!
//! **Export** writes one BVH node per body, in a depth-first walk of the joint tree from the root:
//! the root at offset 0 with six channels (absolute centre-of-mass position, then its rotation from
//! the reference pose), every other body at its joint's anchor with three rotation channels, leaves
//! closed by an end site at the body's far end. Rotations are written `Zrotation Yrotation
//! Xrotation` (R = Rz·Ry·Rx, degrees); the rest pose is the character's reference pose, whose
//! joint frames are world-aligned, so a joint's BVH rotation is exactly the clip's relative
//! rotation ([`super::pose`]).
//!
//! **Import** reads real motion-capture files: any channel count and order per node (0 to 6),
//! positions on any node, end sites, a declared frame count that disagrees with the data (the
//! rows present are read and a warning says so), and centimetre units (`scale`). Errors name the
//! file, the line and what was expected. A file is mapped onto a given character by body name
//! (each node's rotation projected onto its joint's coordinates), or a character is derived from
//! the hierarchy itself: a capsule per bone, a ball joint per three-rotation node, a hinge or a
//! universal joint per one- or two-rotation node, masses at the density of water.

use super::pose::{self, pose_of, reference_orientation};
use super::{CharacterRef, Clip, ClipFrame};
use crate::model::{
    Axis, Body, Character, EffectorTag, EndEffector, GaitHints, Joint, JointKind, Root, RootKind,
    Shape,
};
use nalgebra::{Rotation3, UnitQuaternion, Vector3};
use std::fmt::Write;

/// The most nodes, frames and values a BVH file may hold.
pub const MAX_NODES: usize = 1_000;
pub const MAX_FRAMES: usize = 1_000_000;

/// A BVH error: the file, the line (1-based) and what was expected.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[error("{path}:{line}: {message}")]
pub struct BvhError {
    pub path: String,
    pub line: usize,
    pub message: String,
}

/// One channel of a node.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Channel {
    Position(usize),
    Rotation(usize),
}

/// A node of a BVH hierarchy.
#[derive(Clone, Debug, PartialEq)]
pub struct Node {
    pub name: String,
    pub parent: Option<usize>,
    pub offset: [f64; 3],
    pub channels: Vec<Channel>,
    /// End site offset, when the node has one.
    pub end_site: Option<[f64; 3]>,
}

/// A parsed BVH file.
#[derive(Clone, Debug, PartialEq)]
pub struct Bvh {
    pub nodes: Vec<Node>,
    pub frame_time: f64,
    /// Per frame, the channel values in node order.
    pub frames: Vec<Vec<f64>>,
    /// Problems that did not stop the reading (a frame count that disagrees with the data).
    pub warnings: Vec<String>,
}

struct Tokens<'a> {
    path: &'a str,
    items: Vec<(&'a str, usize)>,
    at: usize,
    last_line: usize,
}

impl<'a> Tokens<'a> {
    fn err(&self, line: usize, message: String) -> BvhError {
        BvhError {
            path: self.path.into(),
            line,
            message,
        }
    }

    fn next(&mut self, what: &str) -> Result<(&'a str, usize), BvhError> {
        let t = self.items.get(self.at).copied().ok_or_else(|| {
            self.err(
                self.last_line,
                format!("expected {what}, found the end of the file"),
            )
        })?;
        self.at += 1;
        Ok(t)
    }

    fn expect(&mut self, word: &str) -> Result<usize, BvhError> {
        let (t, line) = self.next(&format!("`{word}`"))?;
        if t.eq_ignore_ascii_case(word) {
            Ok(line)
        } else {
            Err(self.err(line, format!("expected `{word}`, found `{t}`")))
        }
    }

    fn number(&mut self, what: &str) -> Result<f64, BvhError> {
        let (t, line) = self.next(what)?;
        let v: f64 = t
            .parse()
            .map_err(|_| self.err(line, format!("expected {what} (a number), found `{t}`")))?;
        if !v.is_finite() || v.abs() > 1e9 {
            return Err(self.err(line, format!("expected {what} within ±1e9, found `{t}`")));
        }
        Ok(v)
    }

    fn offset(&mut self) -> Result<[f64; 3], BvhError> {
        self.expect("OFFSET")?;
        Ok([
            self.number("the offset's x")?,
            self.number("the offset's y")?,
            self.number("the offset's z")?,
        ])
    }
}

/// Parses BVH text; `path` is only used in messages.
pub fn parse(text: &str, path: &str) -> Result<Bvh, BvhError> {
    let lines: Vec<&str> = text.lines().collect();
    let motion_line = lines
        .iter()
        .position(|l| l.trim().eq_ignore_ascii_case("MOTION"))
        .ok_or_else(|| BvhError {
            path: path.into(),
            line: lines.len().max(1),
            message: "expected a `MOTION` section".into(),
        })?;
    let mut tokens = Tokens {
        path,
        items: lines[..motion_line]
            .iter()
            .enumerate()
            .flat_map(|(i, l)| l.split_whitespace().map(move |t| (t, i + 1)))
            .collect(),
        at: 0,
        last_line: motion_line + 1,
    };
    tokens.expect("HIERARCHY")?;
    let mut nodes: Vec<Node> = Vec::new();
    let (word, line) = tokens.next("`ROOT`")?;
    if !word.eq_ignore_ascii_case("ROOT") {
        return Err(tokens.err(line, format!("expected `ROOT`, found `{word}`")));
    }
    parse_node(&mut tokens, &mut nodes, None)?;
    if let Some((t, line)) = tokens.items.get(tokens.at) {
        return Err(tokens.err(
            *line,
            format!("expected `MOTION` after the hierarchy, found `{t}`"),
        ));
    }
    // MOTION: "Frames: n", "Frame Time: t", then one row per frame.
    let header = |i: usize, key: &str| -> Result<f64, BvhError> {
        let l = lines.get(i).map(|l| l.trim()).unwrap_or("");
        let bad = || BvhError {
            path: path.into(),
            line: i + 1,
            message: format!("expected `{key} <number>`, found `{l}`"),
        };
        let rest = l
            .strip_prefix(key)
            .or_else(|| l.strip_prefix(&key.to_lowercase()))
            .ok_or_else(bad)?;
        let v: f64 = rest.trim().parse().map_err(|_| bad())?;
        if v.is_finite() { Ok(v) } else { Err(bad()) }
    };
    let declared = header(motion_line + 1, "Frames:")?;
    let frame_time = header(motion_line + 2, "Frame Time:")?;
    if !(frame_time > 0.0 && frame_time <= 10.0) {
        return Err(BvhError {
            path: path.into(),
            line: motion_line + 3,
            message: format!("expected a frame time in (0, 10] s, found {frame_time}"),
        });
    }
    let width: usize = nodes.iter().map(|n| n.channels.len()).sum();
    let mut frames = Vec::new();
    for (i, l) in lines.iter().enumerate().skip(motion_line + 3) {
        if l.trim().is_empty() {
            continue;
        }
        let row: Result<Vec<f64>, _> = l.split_whitespace().map(str::parse::<f64>).collect();
        let row = row.map_err(|_| BvhError {
            path: path.into(),
            line: i + 1,
            message: format!(
                "expected {width} numbers (one per channel), found `{}`",
                l.trim()
            ),
        })?;
        if row.len() != width {
            return Err(BvhError {
                path: path.into(),
                line: i + 1,
                message: format!(
                    "expected {width} values (one per channel), found {}",
                    row.len()
                ),
            });
        }
        if !row.iter().all(|v| v.is_finite() && v.abs() <= 1e9) {
            return Err(BvhError {
                path: path.into(),
                line: i + 1,
                message: "expected finite values within ±1e9".into(),
            });
        }
        if frames.len() == MAX_FRAMES {
            return Err(BvhError {
                path: path.into(),
                line: i + 1,
                message: format!("expected at most {MAX_FRAMES} frames"),
            });
        }
        frames.push(row);
    }
    let mut warnings = Vec::new();
    if declared != frames.len() as f64 {
        warnings.push(format!(
            "{path}:{}: the file declares {declared} frames and holds {}; read what is there",
            motion_line + 2,
            frames.len()
        ));
    }
    if frames.is_empty() {
        return Err(BvhError {
            path: path.into(),
            line: motion_line + 3,
            message: "expected at least one frame of motion".into(),
        });
    }
    Ok(Bvh {
        nodes,
        frame_time,
        frames,
        warnings,
    })
}

fn parse_node(
    t: &mut Tokens,
    nodes: &mut Vec<Node>,
    parent: Option<usize>,
) -> Result<(), BvhError> {
    let (name, line) = t.next("a node name")?;
    if nodes.len() == MAX_NODES {
        return Err(t.err(line, format!("expected at most {MAX_NODES} nodes")));
    }
    if nodes.iter().any(|n| n.name == name) {
        return Err(t.err(line, format!("node name `{name}` used twice")));
    }
    t.expect("{")?;
    let offset = t.offset()?;
    let index = nodes.len();
    nodes.push(Node {
        name: name.into(),
        parent,
        offset,
        channels: Vec::new(),
        end_site: None,
    });
    loop {
        let (word, line) = t.next("`JOINT`, `End Site`, `CHANNELS` or `}`")?;
        match word.to_ascii_uppercase().as_str() {
            "CHANNELS" => {
                let n = t.number("the channel count")?;
                if !(0.0..=6.0).contains(&n) || n.fract() != 0.0 {
                    return Err(t.err(line, format!("expected 0 to 6 channels, found {n}")));
                }
                let mut channels = Vec::new();
                for _ in 0..n as usize {
                    let (c, line) = t.next("a channel name")?;
                    let axis = match c.as_bytes().first().map(u8::to_ascii_uppercase) {
                        Some(b'X') => 0,
                        Some(b'Y') => 1,
                        Some(b'Z') => 2,
                        _ => 3,
                    };
                    let lower = c.to_ascii_lowercase();
                    let channel = if axis < 3 && lower.ends_with("position") {
                        Channel::Position(axis)
                    } else if axis < 3 && lower.ends_with("rotation") {
                        Channel::Rotation(axis)
                    } else {
                        return Err(t.err(
                            line,
                            format!(
                                "expected a channel such as `Xposition` or `Zrotation`, found `{c}`"
                            ),
                        ));
                    };
                    channels.push(channel);
                }
                nodes[index].channels = channels;
            }
            "JOINT" => parse_node(t, nodes, Some(index))?,
            "END" => {
                t.expect("Site")?;
                t.expect("{")?;
                let end = t.offset()?;
                t.expect("}")?;
                nodes[index].end_site = Some(end);
            }
            "}" => return Ok(()),
            _ => {
                return Err(t.err(
                    line,
                    format!("expected `JOINT`, `End Site`, `CHANNELS` or `}}`, found `{word}`"),
                ));
            }
        }
    }
}

fn axis_vector(k: usize) -> Vector3<f64> {
    let mut v = Vector3::zeros();
    v[k] = 1.0;
    v
}

impl Bvh {
    /// Node `i`'s local rotation and position channels at frame `f` (position: None when the node
    /// has no position channel).
    fn node_motion(&self, i: usize, f: usize) -> (Rotation3<f64>, Option<Vector3<f64>>) {
        let start: usize = self.nodes[..i].iter().map(|n| n.channels.len()).sum();
        let mut r = Rotation3::identity();
        let mut p: Option<Vector3<f64>> = None;
        for (k, c) in self.nodes[i].channels.iter().enumerate() {
            let v = self.frames[f][start + k];
            match *c {
                Channel::Rotation(a) => {
                    r *= Rotation3::from_axis_angle(
                        &nalgebra::Unit::new_normalize(axis_vector(a)),
                        v.to_radians(),
                    )
                }
                Channel::Position(a) => p.get_or_insert_with(Vector3::zeros)[a] = v,
            }
        }
        (r, p)
    }

    /// World positions of every node in the rest pose (offsets accumulated), scaled.
    fn rest_positions(&self, scale: f64) -> Vec<Vector3<f64>> {
        let mut out: Vec<Vector3<f64>> = Vec::with_capacity(self.nodes.len());
        for n in &self.nodes {
            let own = Vector3::from(n.offset) * scale;
            out.push(match n.parent {
                Some(p) => out[p] + own,
                None => own,
            });
        }
        out
    }

    /// The hierarchy's rest height (y extent of the nodes and end sites), in file units.
    pub fn rest_height(&self) -> f64 {
        let p = self.rest_positions(1.0);
        let ys = p.iter().map(|v| v.y).chain(
            self.nodes
                .iter()
                .zip(&p)
                .filter_map(|(n, v)| n.end_site.map(|e| v.y + e[1])),
        );
        let (lo, hi) = ys.fold((f64::INFINITY, f64::NEG_INFINITY), |(l, h), y| {
            (l.min(y), h.max(y))
        });
        hi - lo
    }
}

/// The scale that brings a hierarchy of height `h` (file units) to metres: files of a human's
/// height in centimetres (over 20 units) are divided by 100.
pub fn guess_scale(height: f64) -> f64 {
    if height > 20.0 { 0.01 } else { 1.0 }
}

/// Maps a parsed file onto `character` (nodes named after its bodies; the root node is the root
/// body, its position channels its centre of mass). `scale` converts file units to metres.
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
    let frames = (0..bvh.frames.len())
        .map(|f| {
            let (r, p) = bvh.node_motion(root_node, f);
            let position = p
                .map(|p| p * scale)
                .unwrap_or_else(|| Vector3::from(root_body.position));
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
    Ok(Clip::from_key_frames(
        character,
        character_ref,
        1.0 / bvh.frame_time,
        frames,
        "bvh",
    ))
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
        gait: GaitHints::default(),
    }
}

/// The HIERARCHY section being written, and the depth-first order of the joints written (the
/// order of the motion rows).
struct Hierarchy<'a> {
    out: String,
    character: &'a Character,
    order: Vec<usize>,
}

impl Hierarchy<'_> {
    /// Body `body` as a BVH node at `depth`: the root (`joint` None) or the child of joint
    /// `joint`, whose parent node sits at `origin`; then its children, or an end site.
    fn node(&mut self, body: usize, origin: [f64; 3], depth: usize, joint: Option<usize>) {
        let c = self.character;
        let pad = "  ".repeat(depth);
        let b = &c.bodies[body];
        let (own, offset) = match joint {
            None => (b.position, [0.0; 3]),
            Some(j) => {
                let a = c.joints[j].anchor;
                (a, [a[0] - origin[0], a[1] - origin[1], a[2] - origin[2]])
            }
        };
        let out = &mut self.out;
        let _ = writeln!(
            out,
            "{pad}{} {}\n{pad}{{\n{pad}  OFFSET {:.9} {:.9} {:.9}",
            if joint.is_none() { "ROOT" } else { "JOINT" },
            b.name,
            offset[0],
            offset[1],
            offset[2]
        );
        if joint.is_none() {
            let _ = writeln!(
                out,
                "{pad}  CHANNELS 6 Xposition Yposition Zposition Zrotation Yrotation Xrotation"
            );
        } else {
            let _ = writeln!(out, "{pad}  CHANNELS 3 Zrotation Yrotation Xrotation");
        }
        let kids: Vec<usize> = (0..c.joints.len())
            .filter(|&k| c.joints[k].parent == b.name)
            .collect();
        for &k in &kids {
            self.order.push(k);
            let child = c.body_index(&c.joints[k].child).expect("validated");
            self.node(child, own, depth + 1, Some(k));
        }
        let out = &mut self.out;
        if kids.is_empty() {
            let far = [0, 1, 2].map(|k| 2.0 * (b.position[k] - own[k]));
            let _ = writeln!(
                out,
                "{pad}  End Site\n{pad}  {{\n{pad}    OFFSET {:.9} {:.9} {:.9}\n{pad}  }}",
                far[0], far[1], far[2]
            );
        }
        let _ = writeln!(out, "{pad}}}");
    }
}

/// Writes `clip` of `character` as BVH text (see the module docs).
pub fn export(clip: &Clip, character: &Character) -> String {
    let root = character
        .body_index(&character.root.body)
        .expect("validated");
    let mut hierarchy = Hierarchy {
        out: String::from("HIERARCHY\n"),
        character,
        order: Vec::new(),
    };
    hierarchy.node(root, [0.0; 3], 0, None);
    let Hierarchy { mut out, order, .. } = hierarchy;
    let _ = writeln!(
        out,
        "MOTION\nFrames: {}\nFrame Time: {:.9}",
        clip.frames.len(),
        1.0 / clip.rate
    );
    let mut offsets = Vec::with_capacity(character.joints.len());
    let mut k = 0;
    for j in &character.joints {
        offsets.push(k);
        k += j.kind.dof();
    }
    let zyx = |r: &Rotation3<f64>| {
        let (x, y, z) = r.euler_angles();
        [z, y, x].map(f64::to_degrees)
    };
    let root_ref = reference_orientation(&character.bodies[root]);
    for f in &clip.frames {
        let q = pose::quat_of(&f.root);
        let r = (q * root_ref.inverse()).to_rotation_matrix();
        let mut row: Vec<f64> = f.root[..3].to_vec();
        row.extend(zyx(&r));
        for &j in &order {
            let joint = &character.joints[j];
            let coords = &f.joints[offsets[j]..offsets[j] + joint.kind.dof()];
            row.extend(zyx(&pose::joint_rotation(&joint.kind, coords)));
        }
        let line: Vec<String> = row.iter().map(|v| format!("{v:.9}")).collect();
        let _ = writeln!(out, "{}", line.join(" "));
    }
    out
}

#[cfg(test)]
#[path = "bvh_tests.rs"]
mod tests;
