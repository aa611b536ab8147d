//! What drives a simulation: the controller interface and the one stepping loop that every
//! caller (rollouts, task evaluations, benchmarks, the app) goes through (one stepping
//! loop: controller → targets → step).
//!
//! A controller sets the PD targets (radians, one per degree of freedom) and, optionally,
//! per-DOF gain multipliers (phase-specific gains, Agrawal et al. 2014, §6) before each step.
//! [`Simulation::step_controlled`] applies both, in that order, then steps; no caller sets
//! targets or multipliers by hand.

use super::Simulation;

/// Sets PD targets (radians, one per degree of freedom) before each step.
pub trait Controller: Send {
    fn update(&mut self, sim: &Simulation, targets: &mut [f32]);

    /// Per-DOF multipliers of kp and kd for the coming step (phase-specific gains), if any.
    fn gain_multipliers(&self) -> Option<(&[f32], &[f32])> {
        None
    }
}

/// Holds a fixed pose: by default the reference pose (every joint angle 0), which is how a
/// character stands (it holds for 10 s at the 120 Hz of Agrawal et al. 2014, §7).
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

impl Simulation {
    /// One step of the stepping loop: `controller` sets the targets (kept in `targets`, one per
    /// degree of freedom, so a controller may read its previous ones) and the gain multipliers,
    /// then the world advances by one time step.
    pub fn step_controlled(&mut self, controller: &mut dyn Controller, targets: &mut Vec<f32>) {
        targets.resize(self.dofs().len(), 0.0);
        controller.update(self, targets);
        self.set_targets(targets);
        if let Some((kp, kd)) = controller.gain_multipliers() {
            self.set_gain_multipliers(kp, kd);
        }
        self.step();
    }
}
