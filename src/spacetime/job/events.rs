//! Typed progress of a gait job ([`super::run_gait`]: a solve or a discovery, Wampler 2012,
//! §3.2–3.3), for whoever watches it: the command line prints it, the tests and the Gait panel read
//! it. A job run in a child process (`motionlab gait-job`: IPOPT's solves do not run side by side
//! in one process) writes one RON-serialised [`GaitEvent`] per line on its standard output;
//! [`GaitEvent::decode`] reads one back. Nothing here is a log line for people.

use crate::spacetime::gait::FootTiming;
use serde::{Deserialize, Serialize};

/// The best timing of a discovery generation.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct BestTiming {
    pub cost: f64,
    pub period: f64,
    pub timings: Vec<FootTiming>,
}

/// How one start of a multi-start solve ended ([`super::starts`]).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct StartSummary {
    /// Its place among the starts (0 first).
    pub start: usize,
    /// The seed of its start's perturbation.
    pub seed: u64,
    /// Its barrier strategy.
    #[serde(default)]
    pub barrier: super::starts::Barrier,
    /// How its solve ended (its clip's status), or why it has no clip.
    pub status: String,
    pub cost: f64,
    pub max_violation: f64,
    pub iterations: usize,
    pub solve_time_s: f64,
    /// Its clip is usable: converged, feasible to 1e-6, of finite cost.
    pub valid: bool,
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
    /// A multi-start solve begins: one solve per seed, side by side.
    Starts {
        seeds: Vec<u64>,
        /// Each start's barrier strategy, in the same order.
        #[serde(default)]
        barriers: Vec<super::starts::Barrier>,
    },
    /// One start of a multi-start solve ended.
    StartEnded(StartSummary),
    /// The multi-start solve keeps this start's clip (the lowest cost among the valid ones).
    BestStart { start: usize, seed: u64, cost: f64 },
    /// The solve starts from a clip (`from`: the start clip's file, or "the best sample").
    Start { from: String },
    /// A discovery generation's samples found solved in the samples folder.
    SamplesReused {
        reused: usize,
        total: usize,
        folder: String,
    },
    /// Only the best sample's summary was kept: its solve runs again for the clip to start from.
    SolvingBestSampleAgain { clip: String },
    /// The refinement ended no better than its valid start, which is kept.
    KeptStart {
        /// Where the refinement ended.
        cost: f64,
        max_violation: f64,
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
            GaitEvent::Starts {
                seeds: vec![0, u64::MAX],
                barriers: vec![
                    super::super::starts::Barrier::Adaptive,
                    super::super::starts::Barrier::Monotone,
                ],
            },
            GaitEvent::StartEnded(StartSummary {
                start: 1,
                seed: 11_400_714_819_323_198_485,
                barrier: super::super::starts::Barrier::Monotone,
                status: "no clip: the file is empty".into(),
                cost: 1.25,
                max_violation: 3e-9,
                iterations: 633,
                solve_time_s: 25.7,
                valid: true,
            }),
        ];
        for e in events {
            let line = e.encode();
            assert!(!line.contains('\n'), "{line}");
            assert_eq!(GaitEvent::decode(&line), Some(e));
        }
        assert_eq!(GaitEvent::decode("  12 1.0e3 2.0e-1 …"), None);
    }
}
