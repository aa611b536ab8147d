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

/// A clip's yaw unwrapped along its frames and read at any frame index: a cycle's frames go on
/// lap after lap with its turn added each lap, an open clip's hold its end frames.
struct UnwrappedYaw {
    yaw: Vec<f64>,
    /// What a lap adds (a cycle's), or `None` for an open clip.
    lap: Option<f64>,
}

impl UnwrappedYaw {
    fn new(raw: &[PlanarMotion], cycle_yaw: Option<f64>) -> Self {
        let n = raw.len();
        let mut yaw = vec![raw.first().map_or(0.0, |r| r.yaw); n];
        for i in 1..n {
            yaw[i] = yaw[i - 1] + crate::steering::spring::wrap_angle(raw[i].yaw - raw[i - 1].yaw);
        }
        // The lap's seam: the unwrapped yaw of frame 0 of the next lap, less frame 0's.
        let lap = cycle_yaw.filter(|_| n > 0).map(|turn| {
            crate::steering::spring::wrap_angle(raw[0].yaw + turn - yaw[n - 1]) + yaw[n - 1]
                - raw[0].yaw
        });
        Self { yaw, lap }
    }

    fn at(&self, j: i64) -> f64 {
        let n = self.yaw.len() as i64;
        match self.lap {
            Some(lap) => self.yaw[j.rem_euclid(n) as usize] + j.div_euclid(n) as f64 * lap,
            None => self.yaw[j.clamp(0, n - 1) as usize],
        }
    }
}

/// Where a connecting clip's window reads past its ends: the clip it leaves (from the frame
/// its first frame is) and the one it enters (from the frame its last frame is).
struct JoinedEnds<'a> {
    from: (&'a UnwrappedYaw, usize),
    to: (&'a UnwrappedYaw, usize),
}

/// The headings with their yaw averaged over a whole cycle around each frame (a cycle's frames
/// continue with its turn added per lap), or over ±[`YAW_WINDOW`] frames of an open clip. A
/// walking pelvis swings its yaw through a stride (±21° in the human's 1.4 m/s walk; a strafing
/// biped's twists ±45°), which steering would otherwise chase: the heading is where the
/// character goes, not where its pelvis points this instant. A connecting clip's window reads
/// on into the clips it joins (their yaw's change from the joined frame), so its headings meet
/// theirs where it is entered and left; a window held at the clip's end frames would give the
/// entry and the exit the pelvis's swing of that instant as a turn.
fn smooth_yaw(
    raw: &[PlanarMotion],
    own: &UnwrappedYaw,
    joined: Option<JoinedEnds>,
) -> Vec<PlanarMotion> {
    let n = raw.len();
    if n < 2 {
        return raw.to_vec();
    }
    let last = n as i64 - 1;
    let at = |j: i64| -> f64 {
        match &joined {
            Some(ends) if own.lap.is_none() && j < 0 => {
                let (from, a) = (ends.from.0, ends.from.1 as i64);
                own.at(0) + from.at(a + j) - from.at(a)
            }
            Some(ends) if own.lap.is_none() && j > last => {
                let (to, b) = (ends.to.0, ends.to.1 as i64);
                own.at(last) + to.at(b + j - last) - to.at(b)
            }
            _ => own.at(j),
        }
    };
    (0..n)
        .map(|i| {
            let (lo, hi) = match own.lap {
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
        let raw: Vec<Vec<PlanarMotion>> = graph
            .clips
            .iter()
            .map(|c| {
                (0..c.frames.len())
                    .map(|i| c.heading_along(&graph.character, i, forward))
                    .collect()
            })
            .collect();
        let unwrapped: Vec<UnwrappedYaw> = graph
            .clips
            .iter()
            .zip(&raw)
            .map(|(c, r)| UnwrappedYaw::new(r, c.cycle.map(|k| k.yaw)))
            .collect();
        let clip_named = |name: &str| graph.graph.clips.iter().position(|o| o.name == name);
        let headings: Vec<Vec<PlanarMotion>> = graph
            .graph
            .clips
            .iter()
            .enumerate()
            .map(|(ci, gc)| {
                let joined = gc.joins.as_ref().and_then(|j| {
                    Some(JoinedEnds {
                        from: (&unwrapped[clip_named(&j.from)?], j.from_frame),
                        to: (&unwrapped[clip_named(&j.to)?], j.to_frame),
                    })
                });
                smooth_yaw(&raw[ci], &unwrapped[ci], joined)
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

#[cfg(test)]
mod tests {
    use super::*;

    /// A connecting clip that is a straight walk's own stride (its frames a..a+30 of a 30-frame
    /// cycle whose pelvis swings ±20°) gets the walk's headings at every frame, its ends too,
    /// when its window reads on into the clips it joins; held at its end frames it leans ±10°
    /// towards the swing of that instant.
    #[test]
    fn a_connection_reads_its_heading_on_into_the_clips_it_joins() {
        let n = 30;
        let swing = 20f64.to_radians();
        let pose = |i: usize| PlanarMotion {
            x: 0.05 * i as f64,
            z: 0.0,
            yaw: swing * (std::f64::consts::TAU * i as f64 / n as f64).sin(),
        };
        let cycle: Vec<PlanarMotion> = (0..n).map(pose).collect();
        let walk = UnwrappedYaw::new(&cycle, Some(0.0));
        let walk_headings = smooth_yaw(&cycle, &walk, None);
        for a in [0, 7, 15, 22] {
            let stride: Vec<PlanarMotion> = (a..=a + n).map(pose).collect();
            let own = UnwrappedYaw::new(&stride, None);
            let joined = JoinedEnds {
                from: (&walk, a),
                to: (&walk, a % n),
            };
            let read_on = smooth_yaw(&stride, &own, Some(joined));
            let held = smooth_yaw(&stride, &own, None);
            let off = |h: &[PlanarMotion]| {
                (0..=n)
                    .map(|i| {
                        (h[i].yaw - walk_headings[(a + i) % n].yaw)
                            .abs()
                            .to_degrees()
                    })
                    .fold(0.0, f64::max)
            };
            // The stride's window is 31 frames, the cycle's 30: one frame of swing apart.
            assert!(off(&read_on) < 1.0, "from frame {a}: {}°", off(&read_on));
            if a % 15 != 0 {
                assert!(off(&held) > 5.0, "from frame {a}: {}°", off(&held));
            }
        }
    }
}
