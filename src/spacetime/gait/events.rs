//! Typed progress of a gait solve or discovery (specs/004.md §1.2–1.3), for whoever watches it:
//! the Gait panel (which runs the solve in a child process, since IPOPT is not thread-safe
//! across concurrent solves in one process), the command line and the tests. A child process
//! writes one RON-serialised [`GaitEvent`] per line on its standard output
//! (`motionlab gait --events`); [`GaitEvent::decode`] reads one back. Nothing here is a log line
//! for people: the human-readable report goes to standard error in that mode.

use super::FootTiming;
use serde::{Deserialize, Serialize};

/// The best timing of a discovery generation.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct BestTiming {
    pub cost: f64,
    pub period: f64,
    pub timings: Vec<FootTiming>,
}

/// One step of progress.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub enum GaitEvent {
    /// An IPOPT iteration of the solve (not of a discovery sample's projection).
    Iteration {
        iteration: usize,
        objective: f64,
        /// Largest constraint violation (IPOPT's inf_pr).
        infeasibility: f64,
        /// In IPOPT's restoration phase (the objective is then the violation's).
        restoration: bool,
    },
    /// A solve stage ended (`lbfgs`, `exact`).
    Stage {
        name: String,
        status: String,
        cost: f64,
        max_violation: f64,
        iterations: usize,
    },
    /// A discovery sample's projection: its timing and, when it converged, its cost.
    Sample {
        generation: usize,
        index: usize,
        period: f64,
        timings: Vec<FootTiming>,
        cost: Option<f64>,
        max_violation: Option<f64>,
    },
    /// A discovery generation: how many samples were feasible, and the best so far.
    Generation {
        generation: usize,
        feasible: usize,
        population: usize,
        best: Option<BestTiming>,
    },
    /// The solve ended; the clip was written to `out` (when one was asked for).
    Finished {
        status: String,
        cost: f64,
        max_violation: f64,
        audit_max_violation: f64,
        out: Option<String>,
    },
}

impl GaitEvent {
    /// One line of RON.
    pub fn encode(&self) -> String {
        ron::to_string(self).expect("plain data serialises")
    }

    /// The event of a line written by [`Self::encode`], or `None` for anything else.
    pub fn decode(line: &str) -> Option<GaitEvent> {
        crate::files::from_ron(line.trim()).ok()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn events_survive_a_line_each() {
        let events = [
            GaitEvent::Iteration {
                iteration: 3,
                objective: 1.5e3,
                infeasibility: 2e-7,
                restoration: false,
            },
            GaitEvent::Sample {
                generation: 0,
                index: 2,
                period: 0.8,
                timings: vec![FootTiming {
                    foot: "shin".into(),
                    start: 0.0,
                    duration: 0.5,
                }],
                cost: None,
                max_violation: Some(0.3),
            },
            GaitEvent::Generation {
                generation: 1,
                feasible: 3,
                population: 8,
                best: Some(BestTiming {
                    cost: 8.0,
                    period: 0.5,
                    timings: Vec::new(),
                }),
            },
        ];
        for e in events {
            let line = e.encode();
            assert!(!line.contains('\n'), "{line}");
            assert_eq!(GaitEvent::decode(&line), Some(e));
        }
        assert_eq!(GaitEvent::decode("  12 1.0e3 2.0e-1 …"), None);
    }
}
