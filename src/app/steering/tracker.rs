//! Which learned tracker the Steering view plays ([`crate::steering::tracker`]): the one asked
//! for at launch, else the shipped one of the graph (trained on it), else the shipped one of
//! its character.

use super::SteeringState;
use std::path::{Path, PathBuf};
use std::sync::Arc;

/// The shipped learned tracker ([`crate::steering::tracker`]) physics playback of the graph at
/// `graph` starts with (and the guard on): `assets/trackers/GRAPH.control.ron` (the graph file's
/// name), when there is one, else `assets/trackers/CHARACTER.control.ron`.
pub fn default_tracker(graph: &Path, character: &str) -> PathBuf {
    let shipped = |name: &str| {
        crate::app::workbench::files::root_path(&format!("assets/trackers/{name}.control.ron"))
    };
    graph
        .file_stem()
        .and_then(|s| s.to_str())
        .map(shipped)
        .filter(|p| p.exists())
        .unwrap_or_else(|| shipped(character))
}

impl SteeringState {
    /// Loads the tracker for the graph at `path`: the launch's `--steer-tracker` (a file that
    /// does not fit is said), else the shipped one ([`default_tracker`]) when it fits; a tracker
    /// starts on, with the guard, unless the user has chosen otherwise with their boxes. What to
    /// add to the status line.
    pub(super) fn load_tracker(
        &mut self,
        path: &Path,
        graph: &Arc<crate::motion_graph::LoadedGraph>,
    ) -> String {
        use crate::steering::tracker_training::TrackerCheckpoint;
        self.tracker = None;
        let (file, asked) = match &self.tracker_file {
            Some(f) => (f.clone(), true),
            None => (default_tracker(path, &graph.character.name), false),
        };
        if !asked && !file.exists() {
            return String::new();
        }
        match TrackerCheckpoint::load(&file, graph) {
            Ok(c) => {
                self.tracker = Some(Arc::new(c.tracker()));
                if !self.boxes_chosen {
                    self.tracker_on = true;
                    self.guard_on = true;
                }
                format!(" · tracker {}", file.display())
            }
            Err(e) if asked => format!(" · no tracker: {e:#}"),
            // The shipped tracker is another character's: physics plays without one.
            Err(_) => String::new(),
        }
    }
}
