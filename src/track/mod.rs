//! Keys-to-Sim: an animation made simulated motion by wide-band stochastic trajectory
//! optimization (Borer, Guay and Sumner 2018, "Keys-to-Sim: Transferring Hand-Crafted Key-framed
//! Animations to Simulated Figures using Wide Band Stochastic Trajectory Optimization", §5).
//!
//! The simulated character tracks the target's poses with its PD controllers; open-loop
//! offsets on their targets, knots every 0.1 s of 0.5 s windows that advance by 0.25 s, are
//! searched window by window by many CMA-ES runs from many start states, and the samples that
//! live on are chosen as SAMCON chooses them (Liu et al. 2010). Parts:
//!
//! - [`target`]: the clip as PD targets per step and poses per cost instant;
//! - [`cost`]: the window cost (§5.3);
//! - [`window`]: a window's control (offset knots) and a rollout of it;
//! - [`select`]: the samples that live on (§5.4);
//! - [`search`]: the wide-band search, window by window, and its backtracking;
//! - [`job`]: the search as a background job (checkpoint after every window, resume);
//! - [`result`]: the simulated clip, its controls, its metrics and its hash.

pub mod cost;
pub mod job;
pub mod result;
pub mod search;
pub mod select;
pub mod target;
pub mod window;

pub use cost::{CostTerms, CostWeights};
pub use job::{TrackCheckpoint, TrackConfig, TrackJob, TrackProgress};
pub use result::{TrackMetrics, TrackResult};
pub use search::{Kept, Sample, Search, TrackError, TrackSettings, WindowRecord, best_chain};
