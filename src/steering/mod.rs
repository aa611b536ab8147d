//! Steering a character through a motion graph with keyboard or gamepad (beyond the random walks of
//! McIntosh 2011, §4.3.1; tasks of Wampler 2012, §5.3): the per-frame pipeline input → desired
//! motion → trajectory → choice of edge → inertialization → foot locking, after Holden's
//! Motion-Matching controller.
//!
//! - [`spring`]: critically damped springs (intent smoothing, prediction, offset decay);
//! - [`controls`]: keys and gamepads to the stick, relative to the camera;
//! - [`intent`]: stick to the task parameters (direction, facing, speed, gait) and the desired
//!   trajectory;
//! - [`index`]: each graph frame's future trajectory, precomputed;
//! - [`route`]: each frame's time to every gait of the graph (the value function's gait terms);
//! - [`controller`]: random-walk playback and steering by task cost;
//! - [`inertialize`]: transitions without pose pops;
//! - [`foot_lock`]: planted feet held by two-bone IK;
//! - [`script`]: scripted stick timelines and what they measure;
//! - [`balance`]: the balance feedback's targets and torques in physics playback;
//! - [`physics`]: the same controller driving the Rapier-simulated character (physics playback);
//! - [`lookahead`]: predictive sampling of the balance feedback's offsets in physics playback;
//! - [`guard`]: transitions played ahead in physics playback, and barred when the body falls;
//! - [`samcon`]: sampled open-loop corrections that keep the simulated body up through a script;
//! - [`record`]: a steered run kept as a clip;
//! - [`trials`]: many seeded stick timelines at once, and whether the simulated human stays up.

pub mod balance;
mod carry;
pub mod controller;
pub mod controls;
pub mod foot_lock;
pub mod guard;
pub mod index;
pub mod inertialize;
pub mod intent;
pub mod lookahead;
pub mod mdp;
pub mod physics;
pub mod record;
pub mod rescue;
pub mod route;
pub mod samcon;
pub mod script;
pub mod spring;
pub mod tracker;
#[cfg(test)]
mod tracker_tests;
pub mod tracker_training;
pub mod trials;

pub use controller::{Controller, Mode, Output};
pub use intent::{Gait, Stick};
pub use script::{SteerTrace, StickScript, run_script};
