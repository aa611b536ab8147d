//! What the steering search knows of each frame of a motion graph before it starts: where the
//! frame's clip goes if it is simply played on (its heading frame at each horizon time, relative
//! to its own), its speed and gait family. A decision then costs a few compositions of ground
//! motions per candidate edge (Holden's motion-matching features, restricted to the graph's
//! edges as the controller of Wampler 2012, thesis ch. 5, is).

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

/// Frames each side of a frame over which the yaw of a clip that is not a cycle is averaged.
const YAW_WINDOW: usize = 15;

/// The headings with their yaw averaged over a whole cycle around each frame (a cycle's frames
/// continue with its turn `cycle_yaw` added per lap), or over ±[`YAW_WINDOW`] frames of an open
/// clip. A walking pelvis swings its yaw through a stride (±21° in the human's 1.4 m/s walk),
/// which steering would otherwise chase: the heading is where the character goes, not where
/// its pelvis points this instant.
fn smooth_yaw(raw: &[PlanarMotion], cycle_yaw: Option<f64>) -> Vec<PlanarMotion> {
    let n = raw.len();
    if n < 2 {
        return raw.to_vec();
    }
    // Unwrapped yaw along the clip.
    let mut yaw = vec![raw[0].yaw; n];
    for i in 1..n {
        yaw[i] = yaw[i - 1] + crate::steering::spring::wrap_angle(raw[i].yaw - raw[i - 1].yaw);
    }
    let at = |j: i64| -> f64 {
        match cycle_yaw {
            Some(turn) => {
                let laps = j.div_euclid(n as i64);
                // The lap's seam: the unwrapped yaw of frame 0 of the next lap.
                let seam = crate::steering::spring::wrap_angle(raw[0].yaw + turn - yaw[n - 1])
                    + yaw[n - 1]
                    - raw[0].yaw;
                yaw[j.rem_euclid(n as i64) as usize] + laps as f64 * seam
            }
            None => yaw[j.clamp(0, n as i64 - 1) as usize],
        }
    };
    (0..n)
        .map(|i| {
            let (lo, hi) = match cycle_yaw {
                Some(_) => (
                    i as i64 - (n as i64) / 2,
                    i as i64 - (n as i64) / 2 + n as i64 - 1,
                ),
                None => (i as i64 - YAW_WINDOW as i64, i as i64 + YAW_WINDOW as i64),
            };
            let mean = (lo..=hi).map(at).sum::<f64>() / (hi - lo + 1) as f64;
            PlanarMotion {
                yaw: crate::steering::spring::wrap_angle(mean),
                ..raw[i]
            }
        })
        .collect()
}

impl SteeringIndex {
    pub fn new(graph: &LoadedGraph) -> Self {
        let forward = forward_axis(graph);
        let headings: Vec<Vec<PlanarMotion>> = graph
            .clips
            .iter()
            .map(|c| {
                let raw: Vec<PlanarMotion> = (0..c.frames.len())
                    .map(|i| c.heading_along(&graph.character, i, forward))
                    .collect();
                smooth_yaw(&raw, c.cycle.map(|k| k.yaw))
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
