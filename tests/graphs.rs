//! The shipped motion graphs are what their clips build: each graph of `assets/graphs/` rebuilt
//! from the clips it lists, with the settings it records, has the same clips, the same
//! transitions (frames, exactness, placement and cost) and the same pruning. A clip solved
//! again, a change to the frame distance or to the pruning shows here, not as a graph that
//! silently stopped matching its clips.

use motionlab::clip::Clip;
use motionlab::motion_graph::{MotionGraph, build};
use std::path::Path;

fn close(a: f64, b: f64) -> bool {
    (a - b).abs() <= 1e-9 * a.abs().max(b.abs()).max(1.0)
}

#[test]
fn the_shipped_graphs_rebuild_from_their_clips() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("assets/graphs");
    let mut graphs: Vec<_> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|x| x == "ron"))
        .collect();
    graphs.sort();
    assert!(graphs.len() >= 2, "the shipped graphs: {graphs:?}");
    for path in graphs {
        let shipped: MotionGraph =
            motionlab::files::read_ron(&path).unwrap_or_else(|e| panic!("{e:#}"));
        let base = path.parent().unwrap();
        let character_path = base.join(&shipped.character);
        let character = motionlab::model::load_character(&character_path).unwrap();
        let clips: Vec<(String, std::path::PathBuf, Clip)> = shipped
            .clips
            .iter()
            .map(|c| {
                let p = base.join(&c.path);
                (c.name.clone(), p.clone(), Clip::load(&p).unwrap())
            })
            .collect();
        // A graph records only the clips it kept; one that pruned clips cannot be rebuilt
        // from itself alone.
        assert!(
            shipped.pruned.is_empty(),
            "{}: pruned clips",
            path.display()
        );
        let (rebuilt, _) = build(&character, &character_path, &clips, &shipped.settings).unwrap();
        let name = path.display();
        let names = |g: &MotionGraph| g.clips.iter().map(|c| c.name.clone()).collect::<Vec<_>>();
        assert_eq!(names(&rebuilt), names(&shipped), "{name}: the clips");
        assert_eq!(rebuilt.pruned, shipped.pruned, "{name}: the pruned clips");
        assert_eq!(rebuilt.stats, shipped.stats, "{name}: the statistics");
        assert_eq!(
            rebuilt.transitions.len(),
            shipped.transitions.len(),
            "{name}: the number of transitions"
        );
        for (k, (a, b)) in rebuilt
            .transitions
            .iter()
            .zip(&shipped.transitions)
            .enumerate()
        {
            assert_eq!(
                (&a.from, &a.to, a.exact),
                (&b.from, &b.to, b.exact),
                "{name}: transition {k}"
            );
            assert!(
                close(a.cost, b.cost)
                    && close(a.motion.x, b.motion.x)
                    && close(a.motion.z, b.motion.z)
                    && close(a.motion.yaw, b.motion.yaw),
                "{name}: transition {k} rebuilt as {a:?}, shipped as {b:?}"
            );
        }
    }
}
