//! Headless rollouts: a character, settings, a controller and a duration in; a trajectory hash,
//! the fall verdict and (optionally) every frame out. Deterministic: the same inputs give a
//! bit-identical trajectory, whichever thread runs it (see docs/simulation.md).

use super::Controller;
use super::{Failure, Frame, SimError, SimSettings, Simulation};
use crate::model::Character;
use serde::{Deserialize, Serialize};
use xxhash_rust::xxh3::Xxh3;

/// An impulse on one body at a given time.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct Push {
    pub time: f32,
    pub body: usize,
    /// N·s, world frame.
    pub impulse: [f32; 3],
    /// Seconds over which the impulse is delivered.
    pub duration: f32,
}

/// What to simulate.
#[derive(Clone, Debug)]
pub struct RolloutSpec {
    pub seconds: f32,
    pub pushes: Vec<Push>,
    /// Keep every frame (for playback); the hash is computed either way.
    pub record: bool,
    /// Stop as soon as the character has fallen.
    pub stop_on_fall: bool,
}

impl RolloutSpec {
    pub fn seconds(seconds: f32) -> Self {
        RolloutSpec {
            seconds,
            pushes: Vec::new(),
            record: false,
            stop_on_fall: false,
        }
    }
}

#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct Rollout {
    /// Steps taken by this rollout.
    pub steps: u64,
    pub seconds: f32,
    /// 128-bit xxh3 of every body pose at every step.
    pub hash: u128,
    pub fell: bool,
    /// Time of the first step at which the character had fallen.
    pub fell_at: Option<f32>,
    pub final_com: [f32; 3],
    pub failure: Option<Failure>,
    pub frames: Vec<Frame>,
}

impl Rollout {
    pub fn hash_hex(&self) -> String {
        format!("{:032x}", self.hash)
    }
}

/// Streaming hash of a trajectory: the bits of every body pose after every step.
#[derive(Default)]
pub struct TrajectoryHasher(Xxh3);

impl TrajectoryHasher {
    pub fn add(&mut self, sim: &Simulation) {
        for i in 0..sim.character().bodies.len() {
            for v in sim.body_pose(i) {
                self.0.update(&v.to_bits().to_le_bytes());
            }
        }
    }

    pub fn finish(&self) -> u128 {
        self.0.digest128()
    }
}

/// Runs a controller on a fresh simulation of `character`.
pub fn run_rollout(
    character: &Character,
    settings: SimSettings,
    controller: &mut dyn Controller,
    spec: &RolloutSpec,
) -> Result<Rollout, SimError> {
    let mut sim = Simulation::new(character, settings)?;
    Ok(continue_rollout(&mut sim, controller, spec))
}

/// Runs `spec.seconds` more on an existing simulation.
pub fn continue_rollout(
    sim: &mut Simulation,
    controller: &mut dyn Controller,
    spec: &RolloutSpec,
) -> Rollout {
    let steps = (spec.seconds / sim.settings().dt).round() as u64;
    let start = sim.time() as f32;
    let start_steps = sim.steps();
    let mut hasher = TrajectoryHasher::default();
    let mut frames = Vec::new();
    let mut pushes: Vec<Push> = spec.pushes.clone();
    pushes.sort_by(|a, b| a.time.total_cmp(&b.time));
    let mut next_push = 0;
    let mut fell_at = None;
    let mut targets = sim.targets().to_vec();
    for _ in 0..steps {
        let t = sim.time() as f32 - start;
        while next_push < pushes.len() && pushes[next_push].time <= t + 1e-6 {
            let p = pushes[next_push];
            sim.push(p.body, p.impulse, p.duration);
            next_push += 1;
        }
        sim.step_controlled(controller, &mut targets);
        if sim.failure().is_some() {
            break;
        }
        hasher.add(sim);
        if spec.record {
            frames.push(sim.frame());
        }
        if fell_at.is_none() && sim.has_fallen() {
            fell_at = Some(sim.time() as f32);
            if spec.stop_on_fall {
                break;
            }
        }
    }
    let failure = sim.failure().cloned();
    Rollout {
        steps: sim.steps() - start_steps,
        seconds: sim.time() as f32 - start,
        hash: hasher.finish(),
        fell: fell_at.is_some() || failure.is_some(),
        fell_at,
        final_com: sim.com(),
        failure,
        frames,
    }
}
