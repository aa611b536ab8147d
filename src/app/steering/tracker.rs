//! Which learned tracker the Steering view plays ([`crate::steering::tracker`]): the one asked
//! for at launch, else the shipped one when it fits the graph's character.

use super::SteeringState;
use std::path::PathBuf;
use std::sync::Arc;

/// The shipped learned tracker ([`crate::steering::tracker`]): physics playback of a graph of
/// its character starts with it (and the guard) on.
pub fn default_tracker() -> PathBuf {
    crate::app::workbench::files::root_path("assets/trackers/human3d.control.ron")
}

impl SteeringState {
    /// Loads the tracker for `graph`'s character: the launch's `--steer-tracker` (a file that
    /// does not fit is said), else the shipped one when it fits; a tracker starts on, with the
    /// guard, unless the user has chosen otherwise with their boxes. What to add to the status
    /// line.
    pub(super) fn load_tracker(&mut self, graph: &Arc<crate::motion_graph::LoadedGraph>) -> String {
        use crate::steering::tracker_training::TrackerCheckpoint;
        self.tracker = None;
        let (file, asked) = match &self.tracker_file {
            Some(f) => (f.clone(), true),
            None => (default_tracker(), false),
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
