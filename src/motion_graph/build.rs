//! Building a motion graph (McIntosh 2011, §4.3.1): every frame's window of the skin's point cloud,
//! the distance map over all pairs of frames (in parallel), its local minima under the threshold
//! as transitions (never between a frame at rest and a moving one), the exact transitions of
//! connecting clips, and the pruning to the largest strongly connected component.
//!
//! A connecting clip between two gaits of one family (a turn: it `joins` two walks) is entered
//! only at its start, exactly, and left only at its end: a blend into or out of its middle would
//! make a physically valid motion a blended one. So its frames are not compared (their distances
//! are +∞), which also keeps the map the size of the gaits': 28 turns of 31 frames each would
//! have made it 5.6 times larger. Starts and stops (standing to walking and back) still take
//! blends out of and into their middles: that is how the steering leaves a start for a faster
//! walk before the start has ended, and stops from a walk other than the one the stop leaves.
//!
//! A graph of solved motions only ([`GraphSettings::solved_only`]) takes no blend: its only
//! transitions are the connecting clips' exact entries, Wampler's graph (2012, thesis App. C),
//! where every clip's first and last pairs of frames are consecutive frames of the graph.

use super::distance::WindowFeature;
use super::*;
use crate::model::planar::wrap_angle;
use crate::model::skin::SkinPoints;
use rayon::prelude::*;

/// The distance between every pair of frames (m), row-major over the frames of all clips in
/// order: what the app shows as an image.
#[derive(Clone, Debug)]
pub struct DistanceMap {
    /// First frame of each clip.
    pub offsets: Vec<usize>,
    pub size: usize,
    pub values: Vec<f32>,
}

impl DistanceMap {
    pub fn at(&self, a: FrameRef, b: FrameRef) -> f32 {
        self.values[(self.offsets[a.clip] + a.frame) * self.size + self.offsets[b.clip] + b.frame]
    }
}

/// The skin's points at frame k of a clip: for a cyclic clip any k (moved by T^⌊k/N⌋), for
/// another clamped to its frames.
fn cloud_at(clouds: &[Vec<[f64; 3]>], cycle: Option<PlanarMotion>, k: i64) -> Vec<[f64; 3]> {
    let n = clouds.len() as i64;
    match cycle {
        Some(t) => {
            let m = t.power(k.div_euclid(n));
            clouds[k.rem_euclid(n) as usize]
                .iter()
                .map(|p| m.apply_vec3(*p))
                .collect()
        }
        None => clouds[k.clamp(0, n - 1) as usize].clone(),
    }
}

/// The graph clip of a clip named `name` at `path`.
fn graph_clip(name: &str, path: &Path, clip: &Clip) -> GraphClip {
    GraphClip {
        name: name.to_string(),
        path: path.to_path_buf(),
        frames: clip.frames.len(),
        rate: clip.rate,
        cycle: clip.cycle_motion(),
        speed: clip.tags.speed.unwrap_or(0.0),
        turn_rate: clip.tags.turn_rate.unwrap_or(0.0),
        family: clip
            .tags
            .family
            .clone()
            .unwrap_or_else(|| clip.tags.source.clone()),
        joins: clip.joins.clone(),
        effort: 0.0,
    }
}

/// The skin's point cloud at every frame of `clip`.
pub fn clip_clouds(character: &Character, skin: &SkinPoints, clip: &Clip) -> Vec<Vec<[f64; 3]>> {
    (0..clip.frames.len())
        .map(|i| skin.posed(&clip.body_poses(character, i)))
        .collect()
}

/// Every frame's window feature of a clip whose point clouds are `clouds` (a cyclic clip's
/// windows wrap by its `cycle` motion, another's are clamped to its frames).
pub fn window_features(
    clouds: &[Vec<[f64; 3]>],
    cycle: Option<PlanarMotion>,
    rate: f64,
    settings: &super::distance::WindowSettings,
) -> Vec<WindowFeature> {
    let k = settings.half_width as i64;
    (0..clouds.len() as i64)
        .map(|i| {
            let window: Vec<Vec<[f64; 3]>> = (i - k..=i + k)
                .map(|j| cloud_at(clouds, cycle, j))
                .collect();
            WindowFeature::new(&window, 1.0 / rate, settings)
        })
        .collect()
}

/// Builds the graph of `clips` (name, file, clip) of `character` (whose file is
/// `character_path`) with `settings`, and the distance map it came from.
pub fn build(
    character: &Character,
    character_path: &Path,
    clips: &[(String, PathBuf, Clip)],
    settings: &GraphSettings,
) -> anyhow::Result<(MotionGraph, DistanceMap)> {
    build_with(character, character_path, clips, settings, true)
}

/// Builds the graph alone: a graph of solved motions only ([`GraphSettings::solved_only`]) takes
/// no blend, so its frames are not compared at all (the controller synthesis measures hundreds
/// of such graphs).
pub fn build_graph(
    character: &Character,
    character_path: &Path,
    clips: &[(String, PathBuf, Clip)],
    settings: &GraphSettings,
) -> anyhow::Result<MotionGraph> {
    Ok(build_with(character, character_path, clips, settings, false)?.0)
}

/// [`build`], the distance map's values computed only when `map` asks for them or blends need
/// them.
fn build_with(
    character: &Character,
    character_path: &Path,
    clips: &[(String, PathBuf, Clip)],
    settings: &GraphSettings,
    map: bool,
) -> anyhow::Result<(MotionGraph, DistanceMap)> {
    anyhow::ensure!(!clips.is_empty(), "a motion graph needs at least one clip");
    for (name, path, clip) in clips {
        clip.check_character(character)
            .map_err(|e| anyhow::anyhow!("clip `{name}` ({}): {e}", path.display()))?;
    }
    let graph_clips: Vec<GraphClip> = clips
        .iter()
        .map(|(name, path, clip)| graph_clip(name, path, clip))
        .collect();
    let compare = map || !settings.solved_only;
    // Point clouds of every frame, then the window features.
    let clouds: Vec<Vec<Vec<[f64; 3]>>> = if compare {
        let skin = SkinPoints::sample(character);
        clips
            .par_iter()
            .map(|(_, _, clip)| clip_clouds(character, &skin, clip))
            .collect()
    } else {
        Vec::new()
    };
    let motions: Vec<Vec<FrameMotion>> = clouds
        .iter()
        .zip(&graph_clips)
        .map(|(c, g)| frame_motions(c, g, settings.rest_speed))
        .collect();
    let features: Vec<Vec<WindowFeature>> = clouds
        .par_iter()
        .zip(&graph_clips)
        .map(|(c, g)| window_features(c, g.cycle, g.rate, &settings.window))
        .collect();
    let (offsets, size) = super::frame_numbers(&graph_clips);
    let flat: Vec<(FrameRef, &WindowFeature)> = features
        .iter()
        .enumerate()
        .flat_map(|(c, fs)| {
            fs.iter()
                .enumerate()
                .map(move |(frame, f)| (FrameRef { clip: c, frame }, f))
        })
        .collect();
    // Connections within a gait family: entered and left only at their ends (module docs).
    let family = |name: &str| {
        graph_clips
            .iter()
            .find(|o| o.name == name)
            .map(|o| &o.family)
    };
    let ends_only: Vec<bool> = graph_clips
        .iter()
        .map(|g| {
            g.joins
                .as_ref()
                .is_some_and(|j| family(&j.from).is_some() && family(&j.from) == family(&j.to))
        })
        .collect();
    let values: Vec<f32> = flat
        .par_iter()
        .flat_map_iter(|(fa, a)| {
            flat.iter().map(|(fb, b)| {
                if ends_only[fa.clip] || ends_only[fb.clip] {
                    f32::INFINITY
                } else {
                    a.distance_only(b)
                }
            })
        })
        .collect();
    let map = DistanceMap {
        offsets,
        size,
        values,
    };
    // Local minima under the threshold, per pair of clips (none in a graph of solved motions
    // only).
    let mut transitions = Vec::new();
    let mut candidates = 0;
    for (a, ga) in graph_clips.iter().enumerate() {
        for (b, gb) in graph_clips.iter().enumerate() {
            if ends_only[a] || ends_only[b] || settings.solved_only {
                continue;
            }
            let (na, nb) = (ga.frames as i64, gb.frames as i64);
            let at = |i: i64, j: i64| -> Option<f32> {
                let wrap = |x: i64, n: i64, cyclic: bool| {
                    if cyclic {
                        Some(x.rem_euclid(n))
                    } else {
                        (0..n).contains(&x).then_some(x)
                    }
                };
                let i = wrap(i, na, ga.cycle.is_some())?;
                let j = wrap(j, nb, gb.cycle.is_some())?;
                Some(map.at(
                    FrameRef {
                        clip: a,
                        frame: i as usize,
                    },
                    FrameRef {
                        clip: b,
                        frame: j as usize,
                    },
                ))
            };
            let skip = (settings.min_skip * ga.rate).ceil() as i64;
            for i in 0..na {
                for j in 0..nb {
                    if a == b {
                        let d = (i - j).abs();
                        let d = if ga.cycle.is_some() { d.min(na - d) } else { d };
                        if d < skip.max(1) {
                            continue;
                        }
                    }
                    let v = at(i, j).expect("in range");
                    if v as f64 > settings.threshold {
                        continue;
                    }
                    // A strict minimum against the earlier neighbours, weak against the later
                    // ones: one transition per plateau.
                    let minimum = (-1..=1).all(|di| {
                        (-1..=1).all(|dj| {
                            if (di, dj) == (0, 0) {
                                return true;
                            }
                            match at(i + di, j + dj) {
                                None => true,
                                Some(w) if (di, dj) < (0, 0) => v < w,
                                Some(w) => v <= w,
                            }
                        })
                    });
                    let (ma, mb) = (&motions[a][i as usize], &motions[b][j as usize]);
                    if !minimum || ma.at_rest != mb.at_rest {
                        continue;
                    }
                    let (fa, fb) = (&features[a][i as usize], &features[b][j as usize]);
                    let (mut distance, mut align) = (v as f64, fa.distance(fb).1);
                    if settings.travel_aligned && !ma.at_rest {
                        (distance, align) = fa.distance_at(fb, align.yaw + ma.turn_to(mb, &align));
                        if distance > settings.threshold {
                            continue;
                        }
                    }
                    candidates += 1;
                    let from = FrameRef {
                        clip: a,
                        frame: i as usize,
                    };
                    let similar = FrameRef {
                        clip: b,
                        frame: j as usize,
                    };
                    let Some((to, step)) = continuation(&graph_clips, similar) else {
                        continue;
                    };
                    if continuation(&graph_clips, from).is_some_and(|(n, _)| n == to) {
                        continue;
                    }
                    transitions.push(Transition {
                        from,
                        to,
                        motion: align.compose(&step),
                        cost: distance,
                        exact: false,
                    });
                }
            }
        }
    }
    // Entries into connecting clips: their first frame is `from`'s frame a, their second
    // `from`'s a + 1, in `from`'s coordinates.
    for (c, g) in graph_clips.iter().enumerate() {
        let Some(joins) = &g.joins else { continue };
        let Some(a) = graph_clips.iter().position(|o| o.name == joins.from) else {
            continue;
        };
        if g.frames < 2 {
            continue;
        }
        transitions.push(Transition {
            from: FrameRef {
                clip: a,
                frame: joins.from_frame % graph_clips[a].frames,
            },
            to: FrameRef { clip: c, frame: 1 },
            motion: PlanarMotion::IDENTITY,
            cost: 0.0,
            exact: true,
        });
    }
    // A blend that a connecting clip replaces (one leaving the same frame for the same clip) is
    // dropped: the connection is the physically valid way across.
    let replaced: Vec<(usize, usize, usize)> = graph_clips
        .iter()
        .filter_map(|g| {
            let j = g.joins.as_ref()?;
            let a = graph_clips.iter().position(|o| o.name == j.from)?;
            let b = graph_clips.iter().position(|o| o.name == j.to)?;
            Some((a, j.from_frame, b))
        })
        .collect();
    transitions.retain(|t| t.exact || !replaced.contains(&(t.from.clip, t.from.frame, t.to.clip)));
    // The largest strongly connected component of frames, continuations and transitions.
    let index = |f: FrameRef| map.offsets[f.clip] + f.frame;
    let inside: Vec<bool> = super::component(&graph_clips, &transitions)
        .into_iter()
        .flatten()
        .collect();
    let component_frames = inside.iter().filter(|&&b| b).count();
    let all_transitions = transitions.clone();
    let before = transitions.len();
    transitions.retain(|t| inside[index(t.from)] && inside[index(t.to)]);
    let pruned_transitions = before - transitions.len();
    // Why a clip is out: none of its frames reaches the component, or the component reaches
    // none of them (over every edge, the dropped transitions included).
    let mut edges: Vec<(usize, usize)> = Vec::new();
    for (c, gc) in graph_clips.iter().enumerate() {
        for frame in 0..gc.frames {
            let f = FrameRef { clip: c, frame };
            if let Some((n, _)) = continuation(&graph_clips, f) {
                edges.push((index(f), index(n)));
            }
        }
    }
    edges.extend(all_transitions.iter().map(|t| (index(t.from), index(t.to))));
    let reaches = |from: &[usize], reversed: bool| -> Vec<bool> {
        let mut next: Vec<Vec<usize>> = vec![Vec::new(); size];
        for &(a, b) in &edges {
            if reversed {
                next[b].push(a);
            } else {
                next[a].push(b);
            }
        }
        let mut seen = vec![false; size];
        let mut stack: Vec<usize> = from.to_vec();
        for &s in from {
            seen[s] = true;
        }
        while let Some(n) = stack.pop() {
            for &m in &next[n] {
                if !seen[m] {
                    seen[m] = true;
                    stack.push(m);
                }
            }
        }
        seen
    };
    let component: Vec<usize> = (0..size).filter(|&k| inside[k]).collect();
    let from_component = reaches(&component, false);
    let to_component = reaches(&component, true);
    let mut pruned = Vec::new();
    for (c, gc) in graph_clips.iter().enumerate() {
        let frames: Vec<usize> = (0..gc.frames).map(|f| map.offsets[c] + f).collect();
        if frames.iter().any(|&f| inside[f]) {
            continue;
        }
        let reachable = frames.iter().any(|&f| from_component[f]);
        let returns = frames.iter().any(|&f| to_component[f]);
        let reason = match (reachable, returns) {
            (false, false) => "no transition joins it to the rest (none under the threshold)",
            (true, false) => "no way back: nothing leads from it into the rest of the graph",
            (false, true) => "unreachable: nothing in the rest of the graph leads into it",
            (true, true) => "outside the largest strongly connected component",
        };
        pruned.push(PrunedClip {
            name: gc.name.clone(),
            reason: reason.into(),
        });
    }
    let graph = MotionGraph {
        character: character_path.to_path_buf(),
        settings: *settings,
        clips: graph_clips,
        transitions,
        pruned,
        stats: GraphStats {
            frames: size,
            candidates,
            pruned_transitions,
            component_frames,
        },
    };
    Ok((graph, map))
}

/// How a frame moves on the ground: whether it is at rest, and its travel chord.
struct FrameMotion {
    at_rest: bool,
    /// The centroid of the skin's points half a cycle before and after the frame (an open
    /// clip's: clamped to its frames): on a circular arc the chord is parallel to the tangent,
    /// so its direction is the frame's travel direction with a stride's sway averaged out.
    chord: ([f64; 3], [f64; 3]),
}

impl FrameMotion {
    /// The turn (rad) of the travel direction when `other`'s frames are moved by `align` onto
    /// this one's (a [`PlanarMotion`] turn by θ lowers a direction's angle atan2(z, x) by θ, so
    /// the yaw `align.yaw + turn` puts the two directions on one another).
    fn turn_to(&self, other: &FrameMotion, align: &PlanarMotion) -> f64 {
        let (p, q) = (
            align.apply_vec3(other.chord.0),
            align.apply_vec3(other.chord.1),
        );
        let here = (self.chord.1[2] - self.chord.0[2]).atan2(self.chord.1[0] - self.chord.0[0]);
        let there = (q[2] - p[2]).atan2(q[0] - p[0]);
        wrap_angle(there - here)
    }
}

/// The [`FrameMotion`] of every frame of a clip, from its frames' point clouds. A frame is at
/// rest when its centroid's ground speed (central differences, one-sided at an open clip's
/// ends) is under `rest_speed`.
fn frame_motions(clouds: &[Vec<[f64; 3]>], g: &GraphClip, rest_speed: f64) -> Vec<FrameMotion> {
    let n = clouds.len() as i64;
    let cyclic = g.cycle.is_some();
    let centroid = |k: i64| {
        let points = cloud_at(clouds, g.cycle, k);
        let m = points.len().max(1) as f64;
        points.iter().fold([0.0; 3], |s, p| {
            [s[0] + p[0] / m, s[1] + p[1] / m, s[2] + p[2] / m]
        })
    };
    let around = |i: i64, h: i64| {
        if cyclic {
            (i - h, i + h)
        } else {
            ((i - h).max(0), (i + h).min(n - 1))
        }
    };
    (0..n)
        .map(|i| {
            let (lo, hi) = around(i, 1);
            let (a, b) = (centroid(lo), centroid(hi));
            let speed = if hi > lo {
                (b[0] - a[0]).hypot(b[2] - a[2]) * g.rate / (hi - lo) as f64
            } else {
                0.0
            };
            let (lo, hi) = around(i, (n / 2).max(1));
            FrameMotion {
                at_rest: speed < rest_speed,
                chord: (centroid(lo), centroid(hi)),
            }
        })
        .collect()
}
