//! A task the character walks to (Agrawal 2016, thesis §5.3): where it stands, which way it
//! faces, what it does there (its category) and with how much effort; and a file of them.

use super::step::{Foot, Footstep, Frame};
use serde::{Deserialize, Serialize};
use std::path::Path;

/// What the character does at a task; each has its stance and its entry and exit templates
/// (Table 5.1).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum TaskCategory {
    /// Stand facing a whiteboard.
    Whiteboard,
    /// Turn around and stand with the back to a seat.
    Sit,
    /// Stand square to a box, feet apart.
    Lift,
}

impl TaskCategory {
    pub const ALL: [TaskCategory; 3] = [
        TaskCategory::Whiteboard,
        TaskCategory::Sit,
        TaskCategory::Lift,
    ];

    /// Half the distance between the feet at the task, m (the human's hips are 0.18 m apart;
    /// a lift stands wider).
    pub fn stance_half_width(self) -> f64 {
        match self {
            TaskCategory::Lift => 0.15,
            _ => 0.09,
        }
    }
}

fn whiteboard() -> TaskCategory {
    TaskCategory::Whiteboard
}

/// Effort at a task (α of the thesis: 0 low, 1 high), assigned by the user.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize, Default)]
pub enum Effort {
    Low,
    #[default]
    High,
}

impl Effort {
    pub fn value(self) -> f64 {
        match self {
            Effort::Low => 0.0,
            Effort::High => 1.0,
        }
    }
}

/// A task marker: the point between the feet when the task is reached, the direction the
/// character then faces (degrees from +x towards +y), its category and effort.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct TaskMarker {
    pub category: TaskCategory,
    pub location: (f64, f64),
    pub facing_deg: f64,
    #[serde(default)]
    pub effort: Effort,
}

impl TaskMarker {
    /// The task's frame: origin at the marker, x axis along the facing.
    pub fn frame(&self) -> Frame {
        Frame {
            x: self.location.0,
            y: self.location.1,
            yaw: self.facing_deg.to_radians(),
        }
    }

    /// The two feet when the task is reached, in the task's frame.
    pub fn stance(&self) -> [Footstep; 2] {
        stance(self.category.stance_half_width())
    }
}

/// Two feet side by side, facing +x, `half_width` either side of the origin (left first).
pub fn stance(half_width: f64) -> [Footstep; 2] {
    [Foot::Left, Foot::Right].map(|foot| Footstep {
        foot,
        x: 0.0,
        y: foot.side() * half_width,
        yaw: 0.0,
    })
}

/// A file of tasks: where the character starts standing and the tasks in order.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct TaskSequence {
    /// The starting stance: the point between the feet and the facing, degrees.
    pub start: (f64, f64),
    pub start_facing_deg: f64,
    /// The task the character stands at when it starts (its stance and exits); a whiteboard's
    /// when not given.
    #[serde(default = "whiteboard")]
    pub start_category: TaskCategory,
    pub tasks: Vec<TaskMarker>,
}

impl TaskSequence {
    /// Reads a task file; errors name the file and the line, or what is out of range.
    pub fn load(path: &Path) -> anyhow::Result<TaskSequence> {
        let s: TaskSequence = crate::files::read_ron(path)?;
        s.check()
            .map_err(|e| anyhow::anyhow!("{}: {e}", path.display()))?;
        Ok(s)
    }

    /// Finite coordinates, at least one task.
    pub fn check(&self) -> Result<(), String> {
        if self.tasks.is_empty() {
            return Err("expected at least one task in `tasks`".into());
        }
        let finite = |v: f64| v.is_finite() && v.abs() < 1e4;
        if !finite(self.start.0) || !finite(self.start.1) || !finite(self.start_facing_deg) {
            return Err(
                "expected a finite `start` and `start_facing_deg` (metres, degrees)".into(),
            );
        }
        for (i, t) in self.tasks.iter().enumerate() {
            if !finite(t.location.0) || !finite(t.location.1) || !finite(t.facing_deg) {
                return Err(format!(
                    "task {}: expected a finite `location` (metres, under 10 km) and `facing_deg`",
                    i + 1
                ));
            }
        }
        Ok(())
    }

    /// A seeded random sequence: `tasks` tasks, each 0.5 to 8 m from the one before in any
    /// direction, at any facing, of any category and effort; starting at the origin facing +x.
    pub fn random(seed: u64, tasks: usize) -> TaskSequence {
        use rand::{Rng, SeedableRng};
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(seed);
        let mut at = (0.0, 0.0);
        let tasks = (0..tasks)
            .map(|_| {
                let distance = rng.random_range(0.5..8.0);
                let direction: f64 = rng.random_range(-180.0f64..180.0).to_radians();
                at = (
                    at.0 + distance * direction.cos(),
                    at.1 + distance * direction.sin(),
                );
                TaskMarker {
                    category: TaskCategory::ALL[rng.random_range(0..3)],
                    location: at,
                    facing_deg: rng.random_range(-180.0..180.0),
                    effort: if rng.random_bool(0.5) {
                        Effort::High
                    } else {
                        Effort::Low
                    },
                }
            })
            .collect();
        TaskSequence {
            start: (0.0, 0.0),
            start_facing_deg: 0.0,
            start_category: TaskCategory::Whiteboard,
            tasks,
        }
    }

    /// The starting frame.
    pub fn start_frame(&self) -> Frame {
        Frame {
            x: self.start.0,
            y: self.start.1,
            yaw: self.start_facing_deg.to_radians(),
        }
    }
}
