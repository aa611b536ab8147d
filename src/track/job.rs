//! A tracking search as a background job: one window per step, a checkpoint after every window
//! (its settings and the windows done: the next window's start states are simulated again from
//! them on a resume), the result when the last window is done: the cheapest chain simulated from
//! the start, as a clip, with its controls and how far it strayed from the target.

use super::result::{TrackMetrics, TrackResult};
use super::search::{Search, TrackError, TrackSettings, WindowRecord};
use crate::clip::{Clip, OpenOptions};
use crate::jobs::{Detail, Job, Progress, StepOutcome};
use crate::model::Character;
use crate::sim::SimSettings;
use serde::{Deserialize, Serialize};
use std::path::PathBuf;

/// What a tracking job tracks, on what, how.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct TrackConfig {
    /// The motion: anything `clip::open` reads.
    pub clip: PathBuf,
    /// The character that tracks it (a clip of another character is mapped by body names: a
    /// BVH's nodes).
    pub character: PathBuf,
    /// The part of the motion tracked (s).
    pub from: f64,
    pub to: Option<f64>,
    pub settings: TrackSettings,
}

/// The clip's motion from `from` to `to` (s), as its own clip starting at 0.
fn part(mut clip: Clip, from: f64, to: Option<f64>) -> Result<Clip, TrackError> {
    let n = clip.frames.len();
    let first = ((from * clip.rate).round() as usize).min(n.saturating_sub(1));
    let last = to.map_or(n, |t| ((t * clip.rate).round() as usize + 1).min(n));
    if last <= first + 1 {
        return Err(TrackError::Clip(format!(
            "from {from} s to {} s leaves fewer than two frames",
            to.map_or("the end".to_string(), |t| format!("{t}"))
        )));
    }
    clip.frames = clip.frames[first..last].to_vec();
    if !clip.contacts.is_empty() {
        clip.contacts = clip.contacts[first..last.min(clip.contacts.len())].to_vec();
    }
    clip.torques = None;
    clip.ground_forces = None;
    clip.cycle = None;
    Ok(clip)
}

/// The target clip and the character of a config.
pub fn load(config: &TrackConfig) -> anyhow::Result<(Character, Clip)> {
    let opened = crate::clip::open(
        &config.clip,
        &OpenOptions {
            character: Some(config.character.clone()),
            bvh_scale: None,
        },
    )?;
    Ok((opened.character, part(opened.clip, config.from, config.to)?))
}

/// The live state a tracking job reports.
#[derive(Clone, Debug, PartialEq)]
pub struct TrackProgress {
    pub windows: Vec<WindowRecord>,
    pub window_count: usize,
}

/// The checkpoint: the config and the windows done.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct TrackCheckpoint {
    pub config: TrackConfig,
    pub windows: Vec<WindowRecord>,
}

/// A tracking search as a job.
pub struct TrackJob {
    pub config: TrackConfig,
    search: Search,
    /// Seconds the job has stepped.
    seconds: f64,
    result: Option<TrackResult>,
}

impl TrackJob {
    pub fn new(config: TrackConfig) -> anyhow::Result<Self> {
        let (character, clip) = load(&config)?;
        let search = Search::new(
            character,
            clip,
            config.settings.clone(),
            SimSettings::default(),
        )?;
        Ok(TrackJob {
            config,
            search,
            seconds: 0.0,
            result: None,
        })
    }

    /// Resumes from a checkpoint's text.
    pub fn from_checkpoint(text: &str) -> anyhow::Result<Self> {
        let cp: TrackCheckpoint = crate::files::from_ron(text)
            .map_err(|e| anyhow::anyhow!("line {}: {}", e.span.start.line, e.code))?;
        let mut job = TrackJob::new(cp.config)?;
        job.search.restore_windows(cp.windows)?;
        Ok(job)
    }

    /// The job with its rollouts spread over `ranks` (every rank runs the same search; the
    /// result does not depend on how many there are).
    pub fn on_ranks(mut self, ranks: crate::cluster::Ranks) -> Self {
        self.search.ranks = ranks;
        self
    }

    pub fn search(&self) -> &Search {
        &self.search
    }

    /// The result, once the last window is done.
    pub fn finish(&self) -> TrackResult {
        let chain = self.search.best_chain();
        let (frames, controls, terms, fell) = self.search.simulate_chain(&chain);
        let metrics = TrackMetrics::measure(&self.search, &frames, terms.total(), fell);
        TrackResult::new(&self.config, &self.search, chain, frames, controls, metrics)
    }
}

impl Search {
    /// Takes the windows of a checkpoint as done and simulates the next window's start states
    /// along their chains.
    pub(super) fn restore_windows(&mut self, windows: Vec<WindowRecord>) -> Result<(), TrackError> {
        for (w, r) in windows.iter().enumerate() {
            let n = self.layout(w).dimension();
            let earlier = if w == 0 {
                1
            } else {
                windows[w - 1].kept_samples.len()
            };
            if r.kept_samples
                .iter()
                .any(|k| k.sample.x.len() != n || k.sample.start >= earlier)
            {
                return Err(TrackError::Checkpoint(format!(
                    "window {w}'s samples do not fit its {n} parameters"
                )));
            }
        }
        if windows.len() > self.window_count() {
            return Err(TrackError::Checkpoint(format!(
                "{} windows, the motion has {}",
                windows.len(),
                self.window_count()
            )));
        }
        self.windows = windows;
        self.rebuild_starts();
        Ok(())
    }
}

impl Job for TrackJob {
    fn kind(&self) -> &'static str {
        "track"
    }

    fn title(&self) -> String {
        format!(
            "{} tracking {} (k = {})",
            self.search.character.name,
            self.config.clip.display(),
            self.config.settings.keep
        )
    }

    fn step(&mut self, pool: &rayon::ThreadPool) -> anyhow::Result<StepOutcome> {
        let t = std::time::Instant::now();
        self.search.step(Some(pool))?;
        self.seconds += t.elapsed().as_secs_f64();
        if self.search.is_finished() {
            let mut r = self.finish();
            r.seconds = self.seconds;
            r.threads = pool.current_num_threads() * self.search.ranks.size();
            self.result = Some(r);
            Ok(StepOutcome::Done)
        } else {
            Ok(StepOutcome::Running)
        }
    }

    fn progress(&self) -> Progress {
        let done = self.search.windows.len();
        let total = self.search.window_count();
        Progress {
            fraction: done as f32 / total.max(1) as f32,
            message: format!(
                "window {done} of {total}{}",
                self.search
                    .windows
                    .last()
                    .map(|w| format!(", best {:.3}", w.best()))
                    .unwrap_or_default()
            ),
            detail: Some(Detail::new(TrackProgress {
                windows: self.search.windows.clone(),
                window_count: total,
            })),
        }
    }

    fn checkpoint(&self) -> anyhow::Result<String> {
        Ok(crate::files::to_ron_string(&TrackCheckpoint {
            config: self.config.clone(),
            windows: self.search.windows.clone(),
        }))
    }

    fn result(&self) -> anyhow::Result<String> {
        let r = self
            .result
            .as_ref()
            .ok_or_else(|| anyhow::anyhow!("the tracking search has not finished"))?;
        Ok(crate::files::to_ron_string(r))
    }
}
