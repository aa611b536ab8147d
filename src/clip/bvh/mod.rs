//! BVH (Biovision hierarchy) import and export of clips (McIntosh 2011, thesis §4: clips
//! exchanged as BVH and inspected in Blender).
//!
//! **Import** ([`parse`], [`character::clip_on_character`]) reads real motion-capture files: any
//! channel count and order per node (0 to 6), positions on any node, end sites, a declared frame
//! count that disagrees with the data (the rows present are read and a warning says so), and
//! centimetre units (`scale`). Errors name the file, the line and what was expected. A file is
//! mapped onto a given character by body name (each node's rotation projected onto its joint's
//! coordinates), or a character is derived from the hierarchy itself
//! ([`character::character_of`]): a capsule per bone, a ball joint per three-rotation node, a
//! hinge or a universal joint per one- or two-rotation node, masses at the density of water.
//! The root's position channels place the root joint (the character's root origin). The clip
//! keeps the file's [`Hierarchy`].
//!
//! **Export** ([`write::export`]) writes a clip that came from a BVH file with that file's own
//! hierarchy: its node names, offsets, End Sites, channels in their order and its units, each
//! rotation decomposed in its node's channel order ([`euler`]), so a file read and written back
//! has every joint where the original has it. A clip from elsewhere is written from its
//! character: one node per body in a depth-first walk of the joint tree, the root at its origin
//! with six channels, every other body at its joint's anchor with three rotation channels
//! (`Zrotation Yrotation Xrotation`, R = Rz·Ry·Rx, degrees), leaves closed by an end site at the
//! body's far end. The rest pose is the character's reference pose, whose joint frames are
//! world-aligned, so a joint's BVH rotation is exactly the clip's relative rotation
//! ([`super::pose`]).

pub mod character;
pub mod euler;
mod read;
pub mod write;

pub use character::{character_of, clip_on_character};
pub use read::parse;
pub use write::export;

use nalgebra::{Rotation3, Vector3};
use serde::{Deserialize, Serialize};

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

/// One channel of a node: a position or a rotation about axis 0, 1 or 2 (x, y, z).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum Channel {
    Position(usize),
    Rotation(usize),
}

/// A node of a BVH hierarchy; offsets in the file's units.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Node {
    pub name: String,
    pub parent: Option<usize>,
    pub offset: [f64; 3],
    pub channels: Vec<Channel>,
    /// End site offset, when the node has one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub end_site: Option<[f64; 3]>,
}

/// A BVH file's skeleton as it was read, kept with a clip imported from it so that the clip is
/// written back with the file's own nodes, offsets, End Sites, channel orders and units.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Hierarchy {
    pub nodes: Vec<Node>,
    /// Metres per file unit (0.01 for a file in centimetres).
    pub scale: f64,
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

pub(crate) fn axis_vector(k: usize) -> Vector3<f64> {
    let mut v = Vector3::zeros();
    v[k] = 1.0;
    v
}

impl Bvh {
    /// Node `i`'s local rotation and position channels at frame `f` (position: None when the node
    /// has no position channel).
    pub(crate) fn node_motion(&self, i: usize, f: usize) -> (Rotation3<f64>, Option<Vector3<f64>>) {
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

    /// Node `i`'s position in its parent's frame at frame `f`, in file units: its position
    /// channels on the axes they have (they hold the position, as motion-capture tools write
    /// them), its offset on the others.
    pub(crate) fn node_position(&self, i: usize, f: usize) -> Vector3<f64> {
        let start: usize = self.nodes[..i].iter().map(|n| n.channels.len()).sum();
        let mut p = Vector3::from(self.nodes[i].offset);
        for (k, c) in self.nodes[i].channels.iter().enumerate() {
            if let Channel::Position(a) = *c {
                p[a] = self.frames[f][start + k];
            }
        }
        p
    }

    /// World positions of every node in the rest pose (offsets accumulated), scaled.
    pub(crate) fn rest_positions(&self, scale: f64) -> Vec<Vector3<f64>> {
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

#[cfg(test)]
mod tests;
