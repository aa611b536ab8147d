//! What a tracking search leaves: the cheapest chain simulated from the start as a clip (source
//! `track`), the open-loop controls of every step, the windows' samples, how far the simulated
//! motion strayed from its target, and a hash of the trajectory that a replay must reproduce.

use super::job::TrackConfig;
use super::search::{Search, WindowRecord};
use super::target::{pose_of_bodies, sample};
use crate::clip::{CharacterRef, Clip};
use crate::sim::Frame;
use serde::{Deserialize, Serialize};

/// How well the simulated motion tracks its target.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct TrackMetrics {
    /// The character fell somewhere along the chain.
    pub fell: bool,
    /// The root's distance from the target's, per simulation step: median and largest (m).
    pub root_error_median_m: f64,
    pub root_error_max_m: f64,
    /// The end effectors' mean distance from the target's, per cost instant: median (m).
    pub ee_error_median_m: f64,
    /// The joints' mean rotation off the target's, over the cost instants (rad).
    pub pose_error_rad: f64,
    /// The chain's window cost, summed.
    pub cost: f64,
}

fn median(mut v: Vec<f64>) -> f64 {
    if v.is_empty() {
        return f64::NAN;
    }
    v.sort_by(f64::total_cmp);
    let n = v.len();
    if n % 2 == 1 {
        v[n / 2]
    } else {
        0.5 * (v[n / 2 - 1] + v[n / 2])
    }
}

impl TrackMetrics {
    /// The metrics of a chain's frames (one per step from the start) against the search's
    /// target.
    pub fn measure(search: &Search, frames: &[Frame], cost: f64, fell: bool) -> Self {
        let c = &search.character;
        let root = c.body_index(&c.root.body).expect("validated");
        let mut root_err = Vec::with_capacity(frames.len());
        let (mut ee, mut pose) = (Vec::new(), Vec::new());
        let every = search.target().cost_every;
        for (k, f) in frames.iter().enumerate() {
            let (target_root, _) = sample(&search.clip, k as f64 * search.dt);
            let p = f.poses[root];
            let d = ((p[0] as f64 - target_root[0]).powi(2)
                + (p[1] as f64 - target_root[1]).powi(2)
                + (p[2] as f64 - target_root[2]).powi(2))
            .sqrt();
            root_err.push(d);
            if k > 0
                && k % every == 0
                && let Some(want) = search.target().pose_at_step(k)
            {
                let bodies: Vec<[f64; 7]> = f.poses.iter().map(|p| p.map(f64::from)).collect();
                let got = pose_of_bodies(c, &bodies);
                if !want.effectors.is_empty() {
                    ee.push(
                        want.effectors
                            .iter()
                            .zip(&got.effectors)
                            .map(|(a, b)| (a - b).norm())
                            .sum::<f64>()
                            / want.effectors.len() as f64,
                    );
                }
                if !want.joints.is_empty() {
                    pose.push(
                        want.joints
                            .iter()
                            .zip(&got.joints)
                            .map(|(a, b)| (a.inverse() * b).angle())
                            .sum::<f64>()
                            / want.joints.len() as f64,
                    );
                }
            }
        }
        let pose_error = if pose.is_empty() {
            0.0
        } else {
            pose.iter().sum::<f64>() / pose.len() as f64
        };
        TrackMetrics {
            fell,
            root_error_max_m: root_err.iter().copied().fold(0.0, f64::max),
            root_error_median_m: median(root_err),
            ee_error_median_m: median(ee),
            pose_error_rad: pose_error,
            cost,
        }
    }
}

/// A tracking search's result (`result.ron`).
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct TrackResult {
    pub config: TrackConfig,
    /// The kept sample of each window along the chain.
    pub chain: Vec<usize>,
    pub windows: Vec<WindowRecord>,
    pub metrics: TrackMetrics,
    /// xxh3-128 of every body pose of every step of the simulated chain (hex).
    pub hash: String,
    /// The simulated motion (source `track`).
    pub clip: Clip,
    /// The PD targets of every step (target plus offsets): the open-loop controls.
    pub controls: Vec<Vec<f32>>,
    /// Seconds the search ran and the threads it ran on (over every MPI rank).
    pub seconds: f64,
    pub threads: usize,
    /// Rollouts simulated in all, and simulation steps.
    pub rollouts: u64,
    pub steps: u64,
}

/// The hash of a trajectory's frames.
pub fn hash_frames(frames: &[Frame]) -> String {
    let mut h = xxhash_rust::xxh3::Xxh3::new();
    for f in frames {
        for p in &f.poses {
            for v in p {
                h.update(&v.to_bits().to_le_bytes());
            }
        }
    }
    format!("{:032x}", h.digest128())
}

impl TrackResult {
    pub fn new(
        config: &TrackConfig,
        search: &Search,
        chain: Vec<usize>,
        frames: Vec<Frame>,
        controls: Vec<Vec<f32>>,
        metrics: TrackMetrics,
    ) -> Self {
        let text = std::fs::read_to_string(&config.character).unwrap_or_default();
        let mut clip = crate::clip::from_recording(
            &search.character,
            CharacterRef::new(&config.character, &text),
            search.dt as f32,
            &frames,
            "track",
        );
        clip.tags.seed = Some(config.settings.seed);
        clip.tags.cost = Some(metrics.cost);
        TrackResult {
            config: config.clone(),
            chain,
            windows: search.windows.clone(),
            metrics,
            hash: hash_frames(&frames),
            clip,
            controls,
            seconds: 0.0,
            threads: 1,
            rollouts: search.windows.iter().map(|w| w.rollouts).sum(),
            steps: search.windows.iter().map(|w| w.steps).sum(),
        }
    }

    /// Core-hours the search took per second of motion tracked.
    pub fn core_hours_per_motion_second(&self) -> f64 {
        let motion = self.clip.duration().max(1e-9);
        self.seconds * self.threads as f64 / 3600.0 / motion
    }

    /// Simulates the chain again from the settings and windows, and fails unless it gives the
    /// same trajectory hash.
    pub fn replay(&self) -> anyhow::Result<String> {
        let (character, clip) = super::job::load(&self.config)?;
        let mut search = Search::new(
            character,
            clip,
            self.config.settings.clone(),
            crate::sim::SimSettings::default(),
        )?;
        search.restore_windows(self.windows.clone())?;
        let (frames, _, _, _) = search.simulate_chain(&self.chain);
        let hash = hash_frames(&frames);
        anyhow::ensure!(
            hash == self.hash,
            "the chain replays to another trajectory (hash {hash}, stored {}): was the clip or the \
             character edited?",
            self.hash
        );
        Ok(hash)
    }
}
