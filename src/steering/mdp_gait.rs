//! The gait type as a task parameter of the steering MDP (Wampler 2012, thesis §5.3's g_t): the
//! gait of a graph frame, read from its clip's family, and whether a graph's steering asks for it.

use super::ONE_SPEED;
use crate::motion_graph::{FrameRef, LoadedGraph};
use crate::steering::index::SteeringIndex;
use crate::steering::intent::{Gait, SpeedRange};

/// The gait of a graph clip's frame `frame`: its family's (`walk`, `run`), or for a connection
/// (family `transition`) the family of the clip it leaves over its first half and of the clip it
/// enters over the second; `None` for other families (standing, mocap without a tag).
pub fn frame_gait(graph: &LoadedGraph, f: FrameRef) -> Option<Gait> {
    let clips = &graph.graph.clips;
    let family = |name: &str| clips.iter().find(|c| c.name == name).map(|c| &c.family);
    let clip = clips.get(f.clip)?;
    let family = match &clip.joins {
        Some(j) if clip.family == "transition" => family(if 2 * f.frame < clip.frames {
            &j.from
        } else {
            &j.to
        })?,
        _ => &clip.family,
    };
    [Gait::Walk, Gait::Run]
        .into_iter()
        .find(|g| g.matches(family))
}

/// The gaits a graph's steering asks for: walk and run when it has cycles of both inside its
/// strongly connected component and the speed cannot tell them apart, some run being no more
/// than [`ONE_SPEED`] faster than the stick's fastest walk (a synthesized biped's runs of
/// 1.0–1.6 m/s against the stick's 1.4 m/s walk); else none, and the speed alone tells a walk
/// from a run (`human3d.ron`'s 2.6 m/s run).
pub fn walks_and_runs(graph: &LoadedGraph) -> Vec<Gait> {
    let index = SteeringIndex::new(graph);
    // The mean ground speed of each cycle of gait g inside the component.
    let speeds = |g: Gait| -> Vec<f64> {
        graph
            .clips
            .iter()
            .enumerate()
            .filter(|(ci, _)| graph.graph.clips[*ci].joins.is_none())
            .filter_map(|(clip, c)| {
                let inside: Vec<f64> = (0..c.frames.len())
                    .map(|frame| FrameRef { clip, frame })
                    .filter(|&f| graph.inside(f) && frame_gait(graph, f) == Some(g))
                    .map(|f| index.get(f).speed)
                    .collect();
                (!inside.is_empty()).then(|| inside.iter().sum::<f64>() / inside.len() as f64)
            })
            .collect()
    };
    let fastest_walk = SpeedRange::of_graph(&graph.graph).walk.1;
    let slowest_run = speeds(Gait::Run).into_iter().fold(f64::INFINITY, f64::min);
    if !speeds(Gait::Walk).is_empty() && slowest_run <= fastest_walk + ONE_SPEED {
        vec![Gait::Walk, Gait::Run]
    } else {
        Vec::new()
    }
}
