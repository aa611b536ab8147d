//! Controllers: what sets the PD targets of a simulated character each step.
//!
//! Phase-based FSM controllers (Agrawal et al. 2014, §6) implement the simulation's `Controller`
//! trait; the hold-pose controller of the P1 foundation is the simulation's own.

pub mod phase;
pub mod phase_def;

pub use phase::{PhaseController, PhaseControllerDef, PhaseDef, PhaseRecord, Transition};

/// The controller interface and the hold-pose controller live with the stepping loop that
/// drives them (`crate::sim::controller`), so the simulation does not depend on this module.
pub use crate::sim::{Controller, HoldPose};
