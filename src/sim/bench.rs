//! Throughput measurements for `motionlab bench` (the figures are in docs/results.md).
//! Wall-clock timing lives here, never in tests.

use super::HoldPose;
use super::{RolloutSpec, SimError, SimSettings, Simulation, run_rollout};
use crate::model::Character;
use rayon::prelude::*;
use std::time::Instant;

/// Physics steps per second of one standing character on one core (median of 3 runs of
/// `seconds` of simulated time).
pub fn steps_per_second(
    c: &Character,
    settings: SimSettings,
    seconds: f32,
) -> Result<f64, SimError> {
    let steps = (seconds / settings.dt) as usize;
    let mut rates = Vec::new();
    for _ in 0..3 {
        let mut sim = Simulation::new(c, settings)?;
        let mut ctl = HoldPose::reference();
        let mut targets = vec![0.0; sim.dofs().len()];
        let t0 = Instant::now();
        for _ in 0..steps {
            sim.step_controlled(&mut ctl, &mut targets);
        }
        rates.push(steps as f64 / t0.elapsed().as_secs_f64());
    }
    rates.sort_by(f64::total_cmp);
    Ok(rates[1])
}

/// Independent rollouts of `seconds` per second of wall time, on every core (rayon).
pub fn rollouts_per_second(
    c: &Character,
    settings: SimSettings,
    seconds: f32,
    count: usize,
) -> Result<f64, SimError> {
    let t0 = Instant::now();
    let results: Result<Vec<_>, SimError> = (0..count)
        .into_par_iter()
        .map(|_| {
            run_rollout(
                c,
                settings,
                &mut HoldPose::reference(),
                &RolloutSpec::seconds(seconds),
            )
        })
        .collect();
    results?;
    Ok(count as f64 / t0.elapsed().as_secs_f64())
}
