//! Helpers of the gait-job tests: run a gait job as the `gait` command does and read its typed
//! outcome.

use motionlab::spacetime::job::{
    DiscoverRequest, GaitEvent, GaitOutcome, GaitRequest, ProcessPool, run_gait,
};
use std::path::PathBuf;

/// A built-in character's file.
pub fn character(name: &str) -> PathBuf {
    PathBuf::from(concat!(env!("CARGO_MANIFEST_DIR"), "/characters")).join(name)
}

/// Runs a gait job as the `gait` command does, its discovery samples solved by 2 `motionlab
/// gait-job` processes; returns the outcome and every event.
pub fn run(request: &GaitRequest) -> (anyhow::Result<GaitOutcome>, Vec<GaitEvent>) {
    let mut pool = ProcessPool {
        exe: env!("CARGO_BIN_EXE_motionlab").into(),
        threads: 2,
    };
    let mut events = Vec::new();
    let outcome = run_gait(request, &mut pool, &mut |e| events.push(e));
    (outcome, events)
}

/// A solved gait: feasible to 1e-6 by the solver and by the independent audit.
pub fn assert_solved(o: &GaitOutcome) {
    assert!(
        o.clip.max_violation <= 1e-6 && o.audit_max_violation <= 1e-6,
        "violation {:.3e}, audit {:.3e}, status {}",
        o.clip.max_violation,
        o.audit_max_violation,
        o.clip.status
    );
}

/// The error of a gait job, with its causes.
pub fn error_of(request: &GaitRequest) -> String {
    match run(request).0 {
        Ok(o) => panic!("accepted, solved to {}", o.clip.cost),
        Err(e) => format!("{e:#}"),
    }
}

/// A small discovery of the monoped's hop: 2 generations of 4 samples, each capped at 40
/// iterations.
pub fn monoped_discovery(speed: f64) -> GaitRequest {
    GaitRequest {
        discover: Some(DiscoverRequest {
            generations: 2,
            population: Some(4),
            sample_iterations: Some(40),
            threads: 2,
            ..Default::default()
        }),
        ..GaitRequest::new(character("monoped.ron"), speed)
    }
}
