//! Motion graphs (McIntosh 2011, thesis §4.3, after Kovar, Gleicher & Pighin 2002, "Motion
//! Graphs"; Wampler 2012, thesis §5.2, for edges that carry their root transform).
//!
//! A graph's nodes are the frames of a set of clips of one character. Its edges are
//! - each frame's **continuation**: the next frame of its clip; across a transformed cycle's
//!   seam the first frame moved by the cycle's transform T (McIntosh 2011, §3.2.5: T is
//!   applied "cumulatively"); at the end of a connecting clip, the frame after the one it joins (its
//!   [`crate::clip::Joins`]), moved by its placement;
//! - **transitions** found by the frame distance ([`distance`]): where frame i of clip A and
//!   frame j of clip B are a local minimum of the distance map below the threshold, frame i may
//!   be followed by B's frame after j, moved by the ground motion that aligned B's frame onto
//!   A's. Playback blends these (by inertialization, `crate::steering`);
//! - **exact transitions** into connecting clips, whose first frames are another clip's own
//!   (no blending needed: a start, a stop, or a solved physically valid transition).
//!
//! Every edge carries its root displacement as a [`PlanarMotion`] from the next frame's clip
//! coordinates into the current one's. Playback keeps one motion W from the current clip's
//! coordinates to the world and composes it with each edge's.
//!
//! The graph is pruned to its largest strongly connected component (petgraph's Tarjan): every
//! transition whose ends are not both in it is dropped, and a clip none of whose frames is in it
//! is reported with the reason (cannot be reached, or has no way back).

mod build;
pub mod connect;
pub mod distance;

pub use build::{DistanceMap, build, build_graph, clip_clouds, window_features};
pub use distance::WindowSettings;

use crate::clip::{Clip, Joins};
use crate::model::Character;
use crate::model::planar::PlanarMotion;
use serde::{Deserialize, Serialize};
use std::path::{Path, PathBuf};

/// A frame of a clip of the graph.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
pub struct FrameRef {
    pub clip: usize,
    pub frame: usize,
}

/// How the graph was built.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct GraphSettings {
    pub window: WindowSettings,
    /// Largest distance of a transition (RMS over the skin's points, m).
    pub threshold: f64,
    /// Transitions within one clip must skip at least this long (s).
    pub min_skip: f64,
    /// A frame whose body (the centroid of the skin's points) moves slower than this on the
    /// ground is at rest (m/s). A blended transition joins two frames at rest or two moving
    /// ones, never one of each: starting and stopping take a solved connecting clip (Wampler
    /// 2012, App. C), not a blend that skips the acceleration (a 1 m/s walk blended into
    /// standing in 0.12 s, which the position-weighted distance alone let through).
    #[serde(default = "default_rest_speed")]
    pub rest_speed: f64,
    /// Align a blended transition's moving frames by their travel directions (the yaw that
    /// puts one's way of travel on the other's, with the best ground translation for it)
    /// rather than by the yaw that best fits the point clouds, and measure the distance there.
    /// The free alignment trades the body's facing against its legs': between separately
    /// solved gaits whose hips rotate their legs differently it turned the way of travel by up
    /// to 41° (of 560 transitions of the human's graph, 168 by more than 20°), which the
    /// controller then had to steer back or could not use.
    #[serde(default = "default_travel_aligned")]
    pub travel_aligned: bool,
    /// No blends: the only transitions are the exact ones into connecting clips, so every edge
    /// is physically valid (Wampler 2012, App. C: every clip's first and last pairs of frames are
    /// pairs of consecutive frames of the graph). The clips' connections must then join every
    /// gait to the others (a space's starts, stops, speed changes and turns).
    #[serde(default)]
    pub solved_only: bool,
}

fn default_travel_aligned() -> bool {
    true
}

fn default_rest_speed() -> f64 {
    0.15
}

impl Default for GraphSettings {
    fn default() -> Self {
        Self {
            window: WindowSettings::default(),
            threshold: 0.05,
            min_skip: 0.3,
            rest_speed: default_rest_speed(),
            travel_aligned: default_travel_aligned(),
            solved_only: false,
        }
    }
}

/// A clip of the graph: its file and what the controller needs to know of it.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct GraphClip {
    /// The clip's file stem.
    pub name: String,
    /// The clip file, relative to the graph file.
    pub path: PathBuf,
    pub frames: usize,
    /// Frames per second.
    pub rate: f64,
    /// T of a cyclic clip.
    pub cycle: Option<PlanarMotion>,
    /// Tags: speed (m/s), turn rate (rad/s), gait family.
    pub speed: f64,
    pub turn_rate: f64,
    pub family: String,
    pub joins: Option<Joins>,
    /// The clip's weighted biomechanical cost per frame (Wampler 2012, App. C: the log of its
    /// gait objective against the base cycle's, weighted against the task's cost), which the
    /// value-function policy adds to every frame; 0 but in a synthesized controller's graph.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub effort: f64,
}

impl GraphClip {
    /// The angle (rad) between a cyclic clip's travel over one cycle and its mean heading: the
    /// strafe angle ϕ of Wampler 2012, thesis §5.2.1 (positive to the left); 0 for a clip that
    /// does not cycle or stands.
    pub fn strafe(&self) -> f64 {
        match &self.cycle {
            Some(t) if t.x.hypot(t.z) > 1e-6 => {
                crate::model::planar::wrap_angle((-t.z).atan2(t.x) - 0.5 * t.yaw)
            }
            _ => 0.0,
        }
    }
}

fn is_zero(x: &f64) -> bool {
    *x == 0.0
}

/// A transition: after `from` comes `to`, moved into `from`'s clip coordinates by `motion`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Transition {
    pub from: FrameRef,
    pub to: FrameRef,
    pub motion: PlanarMotion,
    /// The frame distance (m); 0 for an exact one.
    pub cost: f64,
    /// Into a connecting clip that starts with `from`'s own frames: no blending.
    pub exact: bool,
}

/// A clip left out of the graph, and why.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct PrunedClip {
    pub name: String,
    pub reason: String,
}

/// What building the graph found.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct GraphStats {
    pub frames: usize,
    /// Local minima of the distance map under the threshold.
    pub candidates: usize,
    /// Transitions dropped with the pruning.
    pub pruned_transitions: usize,
    /// Frames in the largest strongly connected component.
    pub component_frames: usize,
}

/// A motion graph file (`motionlab graph build`).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct MotionGraph {
    /// The character file, relative to the graph file.
    pub character: PathBuf,
    pub settings: GraphSettings,
    pub clips: Vec<GraphClip>,
    pub transitions: Vec<Transition>,
    pub pruned: Vec<PrunedClip>,
    pub stats: GraphStats,
}

/// A graph with its character and clips read, and its edges indexed for playback.
#[derive(Clone, Debug)]
pub struct LoadedGraph {
    pub graph: MotionGraph,
    pub character: Character,
    pub character_path: PathBuf,
    pub clips: Vec<Clip>,
    /// Per clip, per frame: the indices of the transitions leaving it.
    branches: Vec<Vec<Vec<usize>>>,
    /// Per clip, per frame: in the largest strongly connected component (playback never
    /// leaves it: a frame outside leads to a dead end or cannot be reached).
    inside: Vec<Vec<bool>>,
}

impl MotionGraph {
    /// Writes the graph (atomically), its paths relative to the file's folder.
    pub fn save(&self, path: &Path) -> anyhow::Result<()> {
        let base = path.parent().unwrap_or(Path::new(""));
        let mut out = self.clone();
        out.character = relative_to(&self.character, base);
        for c in &mut out.clips {
            c.path = relative_to(&c.path, base);
        }
        crate::files::write_ron(path, &out)
            .map_err(|e| anyhow::anyhow!("writing {}: {e}", path.display()))
    }

    /// Reads a graph file, its character and its clips, and checks that they fit together.
    pub fn load(path: &Path) -> anyhow::Result<LoadedGraph> {
        let mut graph: MotionGraph = crate::files::read_ron(path)?;
        let base = path.parent().unwrap_or(Path::new(""));
        graph.character = base.join(&graph.character);
        let character = crate::model::load_character(&graph.character)
            .map_err(|e| anyhow::anyhow!("{}: the graph's character: {e}", path.display()))?;
        let mut clips = Vec::with_capacity(graph.clips.len());
        for c in &mut graph.clips {
            c.path = base.join(&c.path);
            let clip = Clip::load(&c.path)
                .map_err(|e| anyhow::anyhow!("{}: clip `{}`: {e}", path.display(), c.name))?;
            clip.check_character(&character)
                .map_err(|e| anyhow::anyhow!("{}: {e}", c.path.display()))?;
            anyhow::ensure!(
                clip.frames.len() == c.frames,
                "{}: clip `{}` has {} frames, the graph was built with {}",
                path.display(),
                c.name,
                clip.frames.len(),
                c.frames
            );
            clips.push(clip);
        }
        let character_path = graph.character.clone();
        LoadedGraph::new(graph, character, character_path, clips)
    }
}

fn relative_to(path: &Path, base: &Path) -> PathBuf {
    // Both as given (relative to the working directory, or absolute): strip the common prefix
    // and climb out of the rest of the base.
    let abs = |p: &Path| {
        if p.is_absolute() {
            p.to_path_buf()
        } else {
            std::env::current_dir().unwrap_or_default().join(p)
        }
    };
    let (p, b) = (abs(path), abs(base));
    let pc: Vec<_> = p.components().collect();
    let bc: Vec<_> = b.components().collect();
    let common = pc.iter().zip(&bc).take_while(|(x, y)| x == y).count();
    let mut out = PathBuf::new();
    for _ in common..bc.len() {
        out.push("..");
    }
    for c in &pc[common..] {
        out.push(c);
    }
    out
}

impl LoadedGraph {
    /// Indexes `graph`'s transitions; checks their frames exist.
    pub fn new(
        graph: MotionGraph,
        character: Character,
        character_path: PathBuf,
        clips: Vec<Clip>,
    ) -> anyhow::Result<Self> {
        let mut branches: Vec<Vec<Vec<usize>>> = graph
            .clips
            .iter()
            .map(|c| vec![Vec::new(); c.frames])
            .collect();
        for (k, t) in graph.transitions.iter().enumerate() {
            for f in [t.from, t.to] {
                anyhow::ensure!(
                    f.clip < graph.clips.len() && f.frame < graph.clips[f.clip].frames,
                    "transition {k} names frame {} of clip {}, which the graph does not have",
                    f.frame,
                    f.clip
                );
            }
            branches[t.from.clip][t.from.frame].push(k);
        }
        let inside = component(&graph.clips, &graph.transitions);
        Ok(Self {
            graph,
            character,
            character_path,
            clips,
            branches,
            inside,
        })
    }

    /// Whether frame `f` is in the graph's largest strongly connected component.
    pub fn inside(&self, f: FrameRef) -> bool {
        self.inside[f.clip][f.frame]
    }

    /// The frame after `f` along its clip, and the motion from that frame's clip coordinates
    /// into `f`'s ([`continuation`]); `None` at the end of a clip that leads nowhere.
    pub fn next(&self, f: FrameRef) -> Option<(FrameRef, PlanarMotion)> {
        continuation(&self.graph.clips, f)
    }

    /// The transitions leaving `f`, with their indices.
    pub fn branches(&self, f: FrameRef) -> impl Iterator<Item = (usize, &Transition)> + '_ {
        self.branches[f.clip][f.frame]
            .iter()
            .map(|&k| (k, &self.graph.transitions[k]))
    }

    /// Seconds from `f` to the next frame.
    pub fn frame_time(&self, f: FrameRef) -> f64 {
        1.0 / self.graph.clips[f.clip].rate
    }

    /// The frames of clips kept in the graph (not pruned).
    pub fn kept(&self, clip: usize) -> bool {
        !self
            .graph
            .pruned
            .iter()
            .any(|p| p.name == self.graph.clips[clip].name)
    }
}

/// The frames of `clips` numbered one after another: each clip's first number, and how many
/// frames there are in all.
pub fn frame_numbers(clips: &[GraphClip]) -> (Vec<usize>, usize) {
    let offsets = clips
        .iter()
        .scan(0, |acc, c| {
            let o = *acc;
            *acc += c.frames;
            Some(o)
        })
        .collect();
    (offsets, clips.iter().map(|c| c.frames).sum())
}

/// Per clip and frame: whether it is in the largest strongly connected component of the frames
/// joined by their continuations and `transitions`.
pub fn component(clips: &[GraphClip], transitions: &[Transition]) -> Vec<Vec<bool>> {
    let (offsets, size) = frame_numbers(clips);
    let index = |f: FrameRef| offsets[f.clip] + f.frame;
    let mut g = petgraph::graph::DiGraph::<(), ()>::with_capacity(size, size + transitions.len());
    let nodes: Vec<_> = (0..size).map(|_| g.add_node(())).collect();
    for (c, gc) in clips.iter().enumerate() {
        for frame in 0..gc.frames {
            let f = FrameRef { clip: c, frame };
            if let Some((n, _)) = continuation(clips, f) {
                g.add_edge(nodes[index(f)], nodes[index(n)], ());
            }
        }
    }
    for t in transitions {
        g.add_edge(nodes[index(t.from)], nodes[index(t.to)], ());
    }
    let largest = petgraph::algo::tarjan_scc(&g)
        .into_iter()
        .max_by_key(|c| c.len())
        .unwrap_or_default();
    let mut flat = vec![false; size];
    for n in largest {
        flat[n.index()] = true;
    }
    clips
        .iter()
        .enumerate()
        .map(|(c, gc)| flat[offsets[c]..offsets[c] + gc.frames].to_vec())
        .collect()
}

/// The next frame along `f`'s clip (see the module docs), with the motion taking its clip's
/// coordinates into `f`'s.
pub fn continuation(clips: &[GraphClip], f: FrameRef) -> Option<(FrameRef, PlanarMotion)> {
    let c = &clips[f.clip];
    if f.frame + 1 < c.frames {
        return Some((
            FrameRef {
                clip: f.clip,
                frame: f.frame + 1,
            },
            PlanarMotion::IDENTITY,
        ));
    }
    if let Some(t) = c.cycle {
        return Some((
            FrameRef {
                clip: f.clip,
                frame: 0,
            },
            t,
        ));
    }
    let joins = c.joins.as_ref()?;
    let to = clips.iter().position(|o| o.name == joins.to)?;
    // The connection's last frame is `to`'s frame `to_frame` (placed): go on from the one after.
    let (next, motion) = continuation(
        clips,
        FrameRef {
            clip: to,
            frame: joins.to_frame % clips[to].frames,
        },
    )?;
    Some((next, joins.placement.compose(&motion)))
}

#[cfg(test)]
mod tests;
