//! Training a graph's tracking policy ([`super::tracker`]) by PPO, resumably: a checkpoint
//! holds the learner (both networks, their optimizers, the observation statistics), the next
//! episode's seed and every iteration's figures, and is written atomically after each iteration,
//! so an interrupted training goes on from its last iteration with the same bits as one that
//! was never stopped.
//!
//! Each iteration plays episodes in waves of [`WAVE`] (in parallel, each from its own seed:
//! the episodes and so the update do not depend on the number of threads) until it has
//! [`TrainingSettings::samples`] decisions, then makes one PPO update.

use super::tracker::{EpisodeSettings, Tracker, new_learner, run_episode, sizes};
use crate::learn::ppo::{Episode, Learner, PpoSettings};
use crate::motion_graph::LoadedGraph;
use rayon::prelude::*;
use serde::{Deserialize, Serialize};
use std::path::Path;
use std::sync::Arc;

/// Episodes played side by side.
pub const WAVE: u64 = 8;

/// Training episodes' timelines are drawn from seeds at and above this one, apart from the
/// trials' (which start at 1).
pub const FIRST_EPISODE_SEED: u64 = 1 << 32;

/// Settings of a training.
#[derive(Clone, Debug, PartialEq)]
pub struct TrainingSettings {
    /// Decisions per update.
    pub samples: usize,
    pub episode: EpisodeSettings,
}

impl Default for TrainingSettings {
    fn default() -> Self {
        Self {
            samples: 4096,
            episode: EpisodeSettings::default(),
        }
    }
}

/// One iteration's figures.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
pub struct IterationRecord {
    pub iteration: u64,
    /// Decisions learned from so far.
    pub samples: u64,
    pub episodes: usize,
    /// Mean reward per decision (at most 1) and mean seconds an episode lasted.
    pub reward: f64,
    pub seconds: f64,
    /// Share of the episodes that ended in a fall.
    pub falls: f64,
    pub value_error: f64,
    pub clipped: f64,
    /// The policy's KL divergence from the batch's at the update's last minibatch (nats), and
    /// the epochs the update ran (fewer when the target KL stopped it).
    #[serde(default)]
    pub kl: f64,
    #[serde(default)]
    pub epochs: f64,
}

/// A training in progress (or done): what `motionlab graph control` writes.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
pub struct TrackerCheckpoint {
    /// The character's name (a tracker plays any graph of its character).
    pub character: String,
    pub learner: Learner,
    /// The seed of the next episode's timeline.
    pub next_episode: u64,
    pub history: Vec<IterationRecord>,
    /// The half-life (s) of the reference's heading following the body's in the episodes
    /// ([`crate::steering::balance::BalanceGains::heading_follow`]; older checkpoints: the
    /// place's).
    #[serde(default = "default_heading_follow")]
    pub heading_follow: f64,
}

fn default_heading_follow() -> f64 {
    crate::steering::balance::BalanceGains::default().follow
}

impl TrackerCheckpoint {
    /// A new training of `graph`'s tracker.
    pub fn new(graph: &Arc<LoadedGraph>, ppo: PpoSettings, seed: u64) -> anyhow::Result<Self> {
        Ok(Self {
            character: graph.character.name.clone(),
            learner: new_learner(graph, ppo, seed)?,
            next_episode: FIRST_EPISODE_SEED,
            history: Vec::new(),
            heading_follow: default_heading_follow(),
        })
    }

    /// Reads a checkpoint, checking that it was trained for `graph`'s character and that its
    /// networks fit that character's observation and joint coordinates.
    pub fn load(path: &Path, graph: &Arc<LoadedGraph>) -> anyhow::Result<Self> {
        let c: Self = crate::files::read_ron(path)?;
        anyhow::ensure!(
            c.character == graph.character.name,
            "{}: a tracker of the character `{}`, not of `{}`",
            path.display(),
            c.character,
            graph.character.name
        );
        let (observations, actions) = sizes(graph)?;
        c.learner
            .check_shapes(observations, actions)
            .map_err(|e| anyhow::anyhow!("{}: {e}", path.display()))?;
        Ok(c)
    }

    /// Writes the checkpoint atomically, as RON with every sequence on one line (the weights
    /// are most of it: about a third of the pretty form's size).
    pub fn save(&self, path: &Path) -> anyhow::Result<()> {
        let config = ron::ser::PrettyConfig::default().compact_arrays(true);
        let text = ron::ser::to_string_pretty(self, config)?;
        crate::files::write_atomic(path, text.as_bytes())
            .map_err(|e| anyhow::anyhow!("writing {}: {e}", path.display()))
    }

    /// The tracker to play: the policy and its value network.
    pub fn tracker(&self) -> Tracker {
        Tracker {
            policy: self.learner.policy.clone(),
            value: self.learner.value.clone(),
            gamma: self.learner.settings.gamma,
            heading_follow: self.heading_follow,
        }
    }

    /// One iteration: episodes until `settings.samples` decisions, then one update.
    pub fn iterate(
        &mut self,
        graph: &Arc<LoadedGraph>,
        settings: &TrainingSettings,
    ) -> anyhow::Result<IterationRecord> {
        let mut episode = settings.episode.clone();
        episode.gains.heading_follow = self.heading_follow;
        let mut episodes: Vec<Episode> = Vec::new();
        let mut decisions = 0;
        while decisions < settings.samples {
            let seeds: Vec<u64> = (self.next_episode..self.next_episode + WAVE).collect();
            let policy = &self.learner.policy;
            let wave: Vec<Episode> = seeds
                .par_iter()
                .map(|&s| run_episode(graph, policy, &episode, s, true))
                .collect::<anyhow::Result<_>>()?;
            self.next_episode += WAVE;
            decisions += wave.iter().map(|e| e.steps.len()).sum::<usize>();
            episodes.extend(wave);
        }
        let seed = self.learner.iterations;
        let stats = self.learner.update(&episodes, seed);
        let per_second = super::tracker::DECISION_RATE;
        let record = IterationRecord {
            iteration: self.learner.iterations,
            samples: self.learner.samples,
            episodes: stats.episodes,
            reward: stats.mean_return / stats.mean_length.max(1.0),
            seconds: stats.mean_length / per_second,
            falls: stats.failures,
            value_error: stats.value_error,
            clipped: stats.clipped,
            kl: stats.kl,
            epochs: stats.epochs,
        };
        self.history.push(record.clone());
        Ok(record)
    }
}
