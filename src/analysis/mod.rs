//! Analyses built on rollouts (headless, Bevy-free).

pub mod robustness;
