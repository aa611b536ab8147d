//! What the steering search knows of each frame of a motion graph before it starts: where the
//! frame's clip goes if it is simply played on (its heading frame at each horizon time, relative
//! to its own), its speed and gait family. A decision then costs a few compositions of ground
//! motions per candidate edge (Holden's motion-matching features, restricted to the graph's
//! edges as specs/004.md §1.9's controller is).

use super::intent::HORIZON;
use crate::model::planar::PlanarMotion;
use crate::motion_graph::{FrameRef, LoadedGraph};

/// One frame's features.
#[derive(Clone, Debug)]
pub struct FrameFeatures {
    /// The frame's heading frame in its clip's coordinates.
    pub heading: PlanarMotion,
    /// The heading frames at the [`HORIZON`] times, relative to this frame's own.
    pub future: [PlanarMotion; 3],
    /// Ground speed over the first horizon step (m/s).
    pub speed: f64,
}

/// Features of every frame of a graph.
#[derive(Clone, Debug)]
pub struct SteeringIndex {
    frames: Vec<Vec<FrameFeatures>>,
    /// The character's forward axis in its reference pose.
    pub forward: [f64; 3],
}

/// The axis the character travels along, in its reference pose: the mean of the root's ground
/// velocity seen from the root, over every frame of every clip (the model's +x when the clips
/// hardly travel). Motion capture skeletons face wherever their capture did.
pub fn forward_axis(graph: &LoadedGraph) -> [f64; 3] {
    let mut sum = nalgebra::Vector3::zeros();
    let mut travel = 0.0;
    for c in &graph.clips {
        for i in 0..c.frames.len().saturating_sub(1) {
            let (a, b) = (&c.frames[i].root, &c.frames[i + 1].root);
            let v = nalgebra::Vector3::new(b[0] - a[0], 0.0, b[2] - a[2]);
            travel += v.norm();
            let local = c.root_turn(&graph.character, i).inverse() * v;
            sum += nalgebra::Vector3::new(local.x, 0.0, local.z);
        }
    }
    if travel > 0.0 && sum.norm() > 0.3 * travel {
        let n = sum.normalize();
        [n.x, 0.0, n.z]
    } else {
        [1.0, 0.0, 0.0]
    }
}

impl SteeringIndex {
    pub fn new(graph: &LoadedGraph) -> Self {
        let forward = forward_axis(graph);
        let headings: Vec<Vec<PlanarMotion>> = graph
            .clips
            .iter()
            .map(|c| {
                (0..c.frames.len())
                    .map(|i| c.heading_along(&graph.character, i, forward))
                    .collect()
            })
            .collect();
        let frames = graph
            .clips
            .iter()
            .enumerate()
            .map(|(ci, c)| {
                (0..c.frames.len())
                    .map(|frame| {
                        let f = FrameRef { clip: ci, frame };
                        let here = headings[ci][frame];
                        let to_local = here.inverse();
                        let mut future = [PlanarMotion::IDENTITY; 3];
                        // Walk the continuation: `acc` takes the walked frame's clip coordinates
                        // into f's.
                        let (mut at, mut acc, mut time) = (f, PlanarMotion::IDENTITY, 0.0);
                        let mut k = 0;
                        while k < HORIZON.len() {
                            let step = graph.frame_time(at);
                            let Some((next, m)) = graph.next(at) else {
                                // A dead end: hold the last place.
                                let last =
                                    to_local.compose(&acc.compose(&headings[at.clip][at.frame]));
                                future[k..].fill(last);
                                break;
                            };
                            let (prev_place, prev_time) =
                                (acc.compose(&headings[at.clip][at.frame]), time);
                            acc = acc.compose(&m);
                            time += step;
                            at = next;
                            let place = acc.compose(&headings[at.clip][at.frame]);
                            while k < HORIZON.len() && time >= HORIZON[k] {
                                // Linear between the two frames around the horizon time.
                                let s = (HORIZON[k] - prev_time) / (time - prev_time);
                                let p = lerp(&prev_place, &place, s);
                                future[k] = to_local.compose(&p);
                                k += 1;
                            }
                        }
                        let first = future[0];
                        FrameFeatures {
                            heading: here,
                            future,
                            speed: (first.x * first.x + first.z * first.z).sqrt() / HORIZON[0],
                        }
                    })
                    .collect()
            })
            .collect();
        Self { frames, forward }
    }

    pub fn get(&self, f: FrameRef) -> &FrameFeatures {
        &self.frames[f.clip][f.frame]
    }
}

/// Between two ground frames (the yaw by the shorter way).
pub fn lerp(a: &PlanarMotion, b: &PlanarMotion, s: f64) -> PlanarMotion {
    PlanarMotion {
        x: a.x + s * (b.x - a.x),
        z: a.z + s * (b.z - a.z),
        yaw: a.yaw + s * super::spring::wrap_angle(b.yaw - a.yaw),
    }
}
