//! How far each frame of a motion graph is from each gait the graph can play: the value
//! function of Wampler's graph controller (2012, thesis §5.2.1) restricted to its speed and gait-type
//! terms. The steering cost looks one second ahead; a command the graph can only reach through
//! an intermediate clip (1.4 m/s from the 0.6 m/s walk, a run from a walk) is never chosen by
//! that horizon alone when the intermediate clip scores worse than playing on. The route term
//! adds, for an edge into frame g, the time from g to the nearest frame of the clips that match
//! the command: the controller then walks the graph towards the commanded gait.
//!
//! A gait is a (family, speed) pair of the graph's kept cyclic clips. Times are shortest paths
//! (Dijkstra, petgraph) over the graph's frames, each edge costing its frame's duration, from
//! every frame towards the gait's frames (searched on the reversed graph from all of them).

use crate::motion_graph::{FrameRef, LoadedGraph, frame_numbers};
use petgraph::graph::{DiGraph, NodeIndex};

/// One gait of the graph and every frame's time to reach it.
#[derive(Clone, Debug)]
pub struct GaitRoute {
    pub family: String,
    pub speed: f64,
    /// Per clip, per frame: seconds to reach a frame of this gait (∞: never).
    time: Vec<Vec<f64>>,
}

/// The routes to every gait of a graph.
#[derive(Clone, Debug, Default)]
pub struct RouteTable {
    pub gaits: Vec<GaitRoute>,
}

impl RouteTable {
    pub fn new(graph: &LoadedGraph) -> Self {
        let clips = &graph.graph.clips;
        let mut gaits: Vec<(String, f64)> = Vec::new();
        for (c, clip) in clips.iter().enumerate() {
            if !graph.kept(c) || clip.joins.is_some() {
                continue;
            }
            let known = gaits
                .iter()
                .any(|(f, s)| *f == clip.family && (s - clip.speed).abs() < 1e-6);
            if !known {
                gaits.push((clip.family.clone(), clip.speed));
            }
        }
        // Frames as nodes, the last node a source joined to every frame of the gait.
        let (first, frames) = frame_numbers(clips);
        let node = |f: FrameRef| NodeIndex::new(first[f.clip] + f.frame);
        let mut reversed = DiGraph::<(), f64>::with_capacity(frames + 1, frames * 2);
        for _ in 0..=frames {
            reversed.add_node(());
        }
        for (c, clip) in clips.iter().enumerate() {
            for frame in 0..clip.frames {
                let f = FrameRef { clip: c, frame };
                if !graph.inside(f) {
                    continue;
                }
                let dt = graph.frame_time(f);
                let onward = graph.next(f).map(|(n, _)| n).into_iter();
                let jumps = graph.branches(f).map(|(_, t)| t.to);
                for to in onward.chain(jumps).filter(|&t| graph.inside(t)) {
                    reversed.add_edge(node(to), node(f), dt);
                }
            }
        }
        let source = NodeIndex::new(frames);
        let gaits = gaits
            .into_iter()
            .map(|(family, speed)| {
                let mut g = reversed.clone();
                for (c, clip) in clips.iter().enumerate() {
                    if clip.family == family && (clip.speed - speed).abs() < 1e-6 {
                        for frame in 0..clip.frames {
                            g.add_edge(source, node(FrameRef { clip: c, frame }), 0.0);
                        }
                    }
                }
                let reach = petgraph::algo::dijkstra(&g, source, None, |e| *e.weight());
                let time = clips
                    .iter()
                    .enumerate()
                    .map(|(c, clip)| {
                        (0..clip.frames)
                            .map(|frame| {
                                let n = node(FrameRef { clip: c, frame });
                                reach.get(&n).copied().unwrap_or(f64::INFINITY)
                            })
                            .collect()
                    })
                    .collect();
                GaitRoute {
                    family,
                    speed,
                    time,
                }
            })
            .collect();
        Self { gaits }
    }

    /// The gait closest to a command, by the steering cost's own speed and gait-type terms.
    pub fn closest(&self, speed: f64, family_cost: impl Fn(&str) -> f64) -> Option<&GaitRoute> {
        self.gaits.iter().min_by(|a, b| {
            let cost = |g: &GaitRoute| (g.speed - speed).abs() + family_cost(&g.family);
            cost(a).total_cmp(&cost(b))
        })
    }
}

impl GaitRoute {
    /// Seconds from frame `f` to this gait along the graph (∞: it cannot get there).
    pub fn time(&self, f: FrameRef) -> f64 {
        self.time[f.clip][f.frame]
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::motion_graph::MotionGraph;

    /// On the shipped human graph (strongly connected) every frame reaches every gait; a gait's
    /// own frames are 0 s from it; a frame is never farther than its continuation plus its own
    /// duration (Bellman's inequality), and at least one frame of another gait is strictly
    /// positive.
    #[test]
    fn every_frame_of_the_shipped_graph_reaches_every_gait() {
        let path =
            std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("assets/graphs/human3d.ron");
        let graph = MotionGraph::load(&path).unwrap();
        let routes = RouteTable::new(&graph);
        let names: Vec<String> = routes
            .gaits
            .iter()
            .map(|g| format!("{}{}", g.family, g.speed))
            .collect();
        assert!(routes.gaits.len() >= 4, "{names:?}");
        for g in &routes.gaits {
            let mut longest: f64 = 0.0;
            for (c, clip) in graph.graph.clips.iter().enumerate() {
                for frame in 0..clip.frames {
                    let f = FrameRef { clip: c, frame };
                    if !graph.inside(f) {
                        continue;
                    }
                    let t = g.time(f);
                    assert!(
                        t.is_finite(),
                        "{:?} cannot reach {}{}",
                        f,
                        g.family,
                        g.speed
                    );
                    let own = clip.family == g.family && (clip.speed - g.speed).abs() < 1e-6;
                    assert_eq!(own, t == 0.0, "{:?} {}{}", f, g.family, g.speed);
                    if let Some((n, _)) = graph.next(f) {
                        assert!(t <= g.time(n) + graph.frame_time(f) + 1e-12);
                    }
                    longest = longest.max(t);
                }
            }
            eprintln!(
                "{}{}: the farthest frame is {longest:.2} s away",
                g.family, g.speed
            );
            assert!(longest > 0.0);
        }
    }
}
