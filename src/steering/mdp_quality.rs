//! Controller quality cost(G) (Wampler 2012, thesis Eq. 5.2) of a solved steering MDP: states
//! advected by its greedy policy and the Markov user model.

use super::SteeringMdp;
use crate::model::planar::wrap_angle;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use rand_distr::{Distribution, StandardNormal};
use std::f64::consts::{PI, TAU};

impl SteeringMdp {
    /// Controller quality cost(G) (thesis Eq. 5.2): `samples` states spread evenly over the
    /// nodes, speed levels, directions and facings, each advected `frames` frames by the policy
    /// and by draws of the user model (seeded); the mean cost per frame over the second half.
    pub fn quality(&self, samples: usize, frames: usize, seed: u64) -> f64 {
        let n = self.nodes.len();
        if n == 0 || samples == 0 {
            return 0.0;
        }
        let levels = self.levels();
        let with_facing = self.settings.facing_bins > 0;
        let u = self.settings.user;
        let mut rng = ChaCha8Rng::seed_from_u64(seed);
        // The user moves an asked angle over one frame of `dt` s.
        let user_moves = |angle: f64, dt: f64, rng: &mut ChaCha8Rng| {
            let r: f64 = rng.random();
            let jump = u.jumps_per_second * dt;
            if r < jump {
                rng.random_range(-PI..PI)
            } else if r < jump + u.steps_per_second * dt {
                let z: f64 = StandardNormal.sample(rng);
                wrap_angle(angle + u.step_sigma * z)
            } else {
                angle
            }
        };
        let (mut total, mut count) = (0.0, 0usize);
        for s in 0..samples {
            let mut node = s * n / samples;
            let mut level = s % levels;
            // The asked direction and facing seen from the heading: θ = θ_v − ψ, φ = θ_r − ψ.
            let mut theta = (s as f64 * 0.618_033_988_75 * TAU).rem_euclid(TAU);
            let mut facing = if with_facing {
                (s as f64 * 0.754_877_666_25 * TAU).rem_euclid(TAU)
            } else {
                0.0
            };
            for k in 0..frames {
                let edge = self.choose(node, level, theta, facing).copied();
                if k >= frames / 2 {
                    total +=
                        self.task_cost(node, level, theta, facing) + edge.map_or(0.0, |e| e.cost);
                    count += 1;
                }
                let Some(e) = edge else { break };
                let dt = self.nodes[node].frame_time;
                theta = wrap_angle(theta - e.turn);
                node = e.to;
                // The user moves the asked direction, facing and speed.
                theta = user_moves(theta, dt, &mut rng);
                if with_facing {
                    facing = user_moves(wrap_angle(facing - e.turn), dt, &mut rng);
                }
                if levels > 1 && rng.random::<f64>() < u.speed_changes_per_second * dt {
                    level = rng.random_range(0..levels);
                }
            }
        }
        total / count.max(1) as f64
    }
}
