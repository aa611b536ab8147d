//! Controllers: what sets the PD targets of a simulated character each step.
//!
//! This module starts with the hold-pose controller of the P1 foundation (specs/000.md §5 A.3:
//! "a standing pose holds for 10 s at 120 Hz"). Phase-based FSM controllers (specs/002_003.md
//! B1.6) implement the same trait.

pub mod phase;

pub use phase::{PhaseController, PhaseControllerDef, PhaseDef, PhaseRecord, Transition};

use crate::sim::Simulation;

/// Sets PD targets (radians, one per degree of freedom) before each step.
pub trait Controller: Send {
    fn update(&mut self, sim: &Simulation, targets: &mut [f32]);

    /// Per-DOF multipliers of kp and kd for the coming step (phase-specific gains), if any.
    fn gain_multipliers(&self) -> Option<(&[f32], &[f32])> {
        None
    }
}

/// Holds a fixed pose: by default the reference pose (every joint angle 0).
#[derive(Clone, Debug, Default)]
pub struct HoldPose {
    pub pose: Vec<f32>,
}

impl HoldPose {
    pub fn reference() -> Self {
        HoldPose { pose: Vec::new() }
    }
}

impl Controller for HoldPose {
    fn update(&mut self, _sim: &Simulation, targets: &mut [f32]) {
        for (i, t) in targets.iter_mut().enumerate() {
            *t = self.pose.get(i).copied().unwrap_or(0.0);
        }
    }
}
