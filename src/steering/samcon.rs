//! Sampling-based open-loop corrections of physics playback: SAMCON (Liu, Yin, van de Panne,
//! Shao & Xu 2010, §4; Liu, Yin & van de Panne 2015), the search behind control fragments
//! (Liu, van de Panne & Yin 2016, §4).
//!
//! The steered motion is cut into segments of [`SamconSettings::segment`] seconds. A set of
//! kept states (the simulated body, the controller following it) goes into each segment; from
//! each, samples play the segment with a correction added to every joint's PD target (drawn
//! around half the correction that led to the state, [`SamconSettings::sigma`] rad apart), and
//! the [`SamconSettings::keep`] samples that track the played motion best, without falling,
//! are the next segment's states. The search ends at the script's end, or where no sample stays
//! up; the best final state's corrections, segment by segment, are the run's.

use std::sync::Arc;

use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;
use rand_distr::{Distribution, StandardNormal};
use rayon::prelude::*;

use super::balance::BalanceGains;
use super::lookahead::step_cost;
use super::physics::{PhysicsPlayback, PlaybackState};
use super::script::StickScript;
use crate::motion_graph::FrameRef;
use crate::steering::Controller;

/// How a SAMCON search samples.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct SamconSettings {
    /// Seconds per segment.
    pub segment: f64,
    /// Samples per segment (spread over the kept states).
    pub samples: usize,
    /// States kept from one segment to the next.
    pub keep: usize,
    /// Standard deviation of a correction's change per segment (rad, per coordinate).
    pub sigma: f64,
    pub seed: u64,
}

impl SamconSettings {
    /// The defaults with `NAME=VALUE,...` changed (segment, samples, keep, sigma, seed); an
    /// unknown name or a bad value is an error that lists the names.
    pub fn parse(text: &str) -> anyhow::Result<Self> {
        let names = "segment, samples, keep, sigma, seed";
        let mut s = Self::default();
        for (name, value) in super::balance::named_values(text, names)? {
            anyhow::ensure!(
                value >= 0.0,
                "`{name}={value}`: expected a non-negative number"
            );
            match name {
                "segment" => s.segment = value,
                "samples" => s.samples = value as usize,
                "keep" => s.keep = value as usize,
                "sigma" => s.sigma = value,
                "seed" => s.seed = value as u64,
                other => {
                    anyhow::bail!("unknown SAMCON setting `{other}` (expected one of {names})")
                }
            }
        }
        s.check()?;
        Ok(s)
    }

    /// Settings a search can run with.
    fn check(&self) -> anyhow::Result<()> {
        anyhow::ensure!(
            self.segment > 0.0 && self.keep >= 1 && self.samples >= self.keep,
            "SAMCON needs segment > 0, keep ≥ 1 and samples ≥ keep"
        );
        Ok(())
    }
}

impl Default for SamconSettings {
    fn default() -> Self {
        Self {
            segment: 0.1,
            samples: 200,
            keep: 20,
            sigma: 0.1,
            seed: 1,
        }
    }
}

/// One segment of a search's result: the graph frames it played and the correction it played
/// them with.
#[derive(Clone, Debug)]
pub struct Segment {
    pub frames: Vec<FrameRef>,
    pub correction: Vec<f32>,
}

/// What a search found.
#[derive(Clone, Debug)]
pub struct SamconRun {
    /// Seconds the best sample stayed up (the script's duration when it did to the end).
    pub seconds_up: f64,
    pub fell: bool,
    /// The best final state's tracking cost over the run (the look-ahead's step cost, per s).
    pub cost: f64,
    pub segments: Vec<Segment>,
    /// Script steps per segment.
    pub steps_per_segment: usize,
    /// Samples played.
    pub samples: usize,
}

impl SamconRun {
    /// The correction of the script's step `step` (0 the first), if the search reached it.
    pub fn correction_at(&self, step: usize) -> Option<&[f32]> {
        let s = self.segments.get(step / self.steps_per_segment.max(1))?;
        Some(&s.correction)
    }
}

/// A chain of segments, shared between the states that descend from it.
struct Link {
    parent: Option<Arc<Link>>,
    segment: Segment,
}

#[derive(Clone)]
struct Kept {
    state: PlaybackState,
    controller: Controller,
    cost: f64,
    history: Option<Arc<Link>>,
}

/// Searches corrections that keep the simulated body tracking `script` as steered through
/// `controller` (see the module docs); `progress` sees the seconds searched after every segment.
pub fn samcon(
    controller: &mut Controller,
    script: &StickScript,
    gains: BalanceGains,
    settings: &SamconSettings,
    progress: impl FnMut(f64),
) -> anyhow::Result<SamconRun> {
    samcon_from(controller, script, gains, settings, false, progress)
}

/// [`samcon`]; with `moving`, the body starts moving as the played motion does at the
/// controller's frame (a gait hold, [`super::trials::gait_holds`]) instead of at rest.
pub fn samcon_from(
    controller: &mut Controller,
    script: &StickScript,
    gains: BalanceGains,
    settings: &SamconSettings,
    moving: bool,
    mut progress: impl FnMut(f64),
) -> anyhow::Result<SamconRun> {
    settings.check()?;
    let physics = PhysicsPlayback::start(controller, script, gains, moving)?;
    let dofs = physics.sim.dofs().len();
    let dt = 1.0 / script.rate;
    let per_segment = (settings.segment * script.rate).round().max(1.0) as usize;
    let total = (script.duration * script.rate).round() as usize;
    let mut rng = ChaCha8Rng::seed_from_u64(settings.seed);
    let mut kept = vec![Kept {
        state: physics.save(),
        controller: controller.clone(),
        cost: 0.0,
        history: None,
    }];
    let template = controller.clone();
    let mut played = 0;
    let mut step = 0;
    while step < total {
        let n = per_segment.min(total - step);
        // The samples: per kept state, its share, the first at the centre.
        let share = settings.samples / kept.len();
        let mut jobs: Vec<(usize, Vec<f32>)> = Vec::new();
        for (k, s) in kept.iter().enumerate() {
            let last = s.history.as_ref().map(|l| &l.segment.correction);
            let centre: Vec<f32> = match last {
                Some(c) => c.iter().map(|x| 0.5 * x).collect(),
                None => vec![0.0; dofs],
            };
            for j in 0..share.max(1) {
                let c = if j == 0 {
                    centre.clone()
                } else {
                    centre
                        .iter()
                        .map(|x| {
                            let z: f64 = StandardNormal.sample(&mut rng);
                            x + (settings.sigma * z) as f32
                        })
                        .collect()
                };
                jobs.push((k, c));
            }
        }
        played += jobs.len();
        let results: Vec<Option<(f64, Kept)>> = jobs
            .into_par_iter()
            .map_init(
                || PhysicsPlayback::new(&mut template.clone(), gains).ok(),
                |physics, (k, correction)| {
                    let physics = physics.as_mut()?;
                    let from = &kept[k];
                    physics.restore(&from.state);
                    physics.corrections = correction.clone();
                    let mut ctl = from.controller.clone();
                    let mut cost = 0.0;
                    let mut frames = Vec::with_capacity(n);
                    for s in 0..n {
                        let t = (step + s + 1) as f64 * dt;
                        let out = ctl.step(&script.stick_at(t), dt);
                        for p in script
                            .pushes
                            .iter()
                            .filter(|p| p.time <= t && p.time > t - dt)
                        {
                            physics.push(p.impulse);
                        }
                        physics.track(t, &out, &mut ctl, dt);
                        if physics.fell_at.is_some() {
                            return None;
                        }
                        frames.push(out.frame);
                        cost += dt * step_cost(physics, &out);
                    }
                    Some((
                        cost,
                        Kept {
                            state: physics.save(),
                            controller: ctl,
                            cost: from.cost + cost,
                            history: Some(Arc::new(Link {
                                parent: from.history.clone(),
                                segment: Segment { frames, correction },
                            })),
                        },
                    ))
                },
            )
            .collect();
        let mut next: Vec<(f64, Kept)> = results.into_iter().flatten().collect();
        if next.is_empty() {
            return Ok(finish(&kept, step as f64 * dt, true, played, per_segment));
        }
        // Ranked by this segment's tracking, ties by order.
        next.sort_by(|a, b| a.0.total_cmp(&b.0));
        kept = next
            .into_iter()
            .take(settings.keep)
            .map(|(_, s)| s)
            .collect();
        step += n;
        progress(step as f64 * dt);
    }
    Ok(finish(&kept, script.duration, false, played, per_segment))
}

fn finish(
    kept: &[Kept],
    seconds_up: f64,
    fell: bool,
    samples: usize,
    steps_per_segment: usize,
) -> SamconRun {
    let best = kept
        .iter()
        .min_by(|a, b| a.cost.total_cmp(&b.cost))
        .expect("at least one kept state");
    let mut segments = Vec::new();
    let mut link = best.history.clone();
    while let Some(l) = link {
        segments.push(l.segment.clone());
        link = l.parent.clone();
    }
    segments.reverse();
    SamconRun {
        seconds_up,
        fell,
        cost: best.cost,
        segments,
        steps_per_segment,
        samples,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn samcon_settings_are_parsed_by_name_and_refused_when_unusable() {
        let s = SamconSettings::parse("samples=1000, keep=50").unwrap();
        assert_eq!((s.samples, s.keep), (1000, 50));
        assert_eq!(s.segment, SamconSettings::default().segment);
        assert_eq!(
            SamconSettings::parse("").unwrap(),
            SamconSettings::default()
        );
        let e = SamconSettings::parse("sampels=10").unwrap_err().to_string();
        assert!(
            e.contains("`sampels`") && e.contains("segment, samples"),
            "{e}"
        );
        for bad in [
            "segment=0",
            "keep=0",
            "samples=5,keep=10",
            "sigma=-1",
            "seed=x",
            "keep",
        ] {
            assert!(SamconSettings::parse(bad).is_err(), "{bad}");
        }
    }
}
