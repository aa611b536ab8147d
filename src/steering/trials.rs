//! Steering trials: many stick timelines played at once, to judge whether the simulated human
//! stays up under the input a player gives, not only under a hand-written script.
//!
//! - [`random_timeline`]: a seeded player: every 1–4 s a new direction (uniform) and magnitude
//!   (uniform in [0, 1], so slow walks and stops come too), Shift held 30 % of the time and the
//!   facing stick pushed 20 % of the time (each drawn per hold);
//! - [`straight_runs`]: walks and runs at full stick in evenly spread directions;
//! - [`run_trials`]: every timeline through its own controller (and, with physics, its own
//!   simulation), in parallel; the outcomes come back in the timelines' order and do not depend
//!   on the number of threads.
//!
//! The control problem is the one of Liu, van de Panne and Yin (2016) and of Lee, Kim and Lee
//! (2010): a simulated biped that follows an interactively steered reference.

use super::balance::BalanceGains;
use super::mdp::SteeringMdp;
use super::physics::{Planning, run_tracked_planned};
use super::script::{StickKey, StickScript, run_script};
use super::{Controller, Mode};
use crate::motion_graph::LoadedGraph;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use rayon::prelude::*;
use std::sync::Arc;

/// How a seeded player moves the sticks.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct PlayerModel {
    /// Seconds a stick setting is held: uniform in this range.
    pub hold: (f64, f64),
    /// Share of the holds with Shift (run) down.
    pub run_share: f64,
    /// Share of the holds with the facing stick pushed (in its own uniform direction).
    pub facing_share: f64,
}

impl Default for PlayerModel {
    fn default() -> Self {
        Self {
            hold: (1.0, 4.0),
            run_share: 0.3,
            facing_share: 0.2,
        }
    }
}

/// A timeline of `duration` seconds at `rate` steps per second drawn by `player` with `seed`.
pub fn random_timeline(seed: u64, duration: f64, rate: f64, player: &PlayerModel) -> StickScript {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let mut keys = Vec::new();
    let mut t = 0.0;
    while t < duration {
        let direction = rng.random_range(0.0..std::f64::consts::TAU);
        let magnitude: f64 = rng.random_range(0.0..=1.0);
        let run = rng.random_bool(player.run_share);
        let facing = rng.random_bool(player.facing_share).then(|| {
            let a = rng.random_range(0.0..std::f64::consts::TAU);
            (a.cos(), a.sin())
        });
        keys.push(StickKey {
            time: t,
            movement: (magnitude * direction.cos(), magnitude * direction.sin()),
            facing,
            run,
        });
        t += rng.random_range(player.hold.0..=player.hold.1);
    }
    StickScript {
        keys,
        duration,
        rate,
        pushes: Vec::new(),
    }
}

/// Full-stick walks and runs in `directions` evenly spread directions (east first, then
/// anticlockwise), named `walk_DEG` and `run_DEG`.
pub fn straight_runs(directions: usize, duration: f64, rate: f64) -> Vec<(String, StickScript)> {
    let mut out = Vec::new();
    for run in [false, true] {
        for i in 0..directions {
            let a = std::f64::consts::TAU * i as f64 / directions as f64;
            let name = format!(
                "{}_{:03}",
                if run { "run" } else { "walk" },
                (a.to_degrees()).round() as i64
            );
            out.push((
                name,
                StickScript {
                    keys: vec![StickKey {
                        time: 0.0,
                        movement: (a.cos(), a.sin()),
                        facing: None,
                        run,
                    }],
                    duration,
                    rate,
                    pushes: Vec::new(),
                },
            ));
        }
    }
    out
}

/// Walks at part stick in `directions` evenly spread directions, one set per stick magnitude
/// (in (0, 1]), named `walkNN_DEG` with NN the magnitude in hundredths: slow and middle walks,
/// which [`straight_runs`] at full stick does not play.
pub fn part_stick_walks(
    directions: usize,
    magnitudes: &[f64],
    duration: f64,
    rate: f64,
) -> Vec<(String, StickScript)> {
    let mut out = Vec::new();
    for &m in magnitudes {
        for (name, mut script) in straight_runs(directions, duration, rate)
            .into_iter()
            .take(directions)
        {
            let (x, y) = script.keys[0].movement;
            script.keys[0].movement = (m * x, m * y);
            let name = name.replacen("walk", &format!("walk{:02}", (m * 100.0).round() as i64), 1);
            out.push((name, script));
        }
    }
    out
}

/// What one trial did.
#[derive(Clone, Debug, PartialEq)]
pub struct TrialOutcome {
    pub name: String,
    /// The timeline's length (s).
    pub duration: f64,
    /// When the simulated human fell (physics only).
    pub fell_at: Option<f64>,
    /// RMS joint error (rad) and mean pelvis distance (m) from the played motion while up
    /// (physics only; zero when played kinematically).
    pub joint_error: f64,
    pub root_error: f64,
    /// Mean |speed − asked speed| (m/s) of the played motion while up: how well the stick is
    /// obeyed (a character kept standing stays up but does not obey).
    pub speed_error: f64,
}

impl TrialOutcome {
    /// Seconds it stayed up (the whole timeline if it did not fall).
    pub fn seconds_up(&self) -> f64 {
        self.fell_at.unwrap_or(self.duration)
    }
}

/// The figures a set of trials is judged by.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct TrialSummary {
    pub runs: usize,
    /// Runs that stayed up to their end.
    pub up: usize,
    pub mean_seconds_up: f64,
    /// The runs' mean [`TrialOutcome::speed_error`] (m/s).
    pub mean_speed_error: f64,
}

impl TrialSummary {
    pub fn of(outcomes: &[TrialOutcome]) -> Self {
        let runs = outcomes.len();
        Self {
            runs,
            up: outcomes.iter().filter(|o| o.fell_at.is_none()).count(),
            mean_seconds_up: outcomes.iter().map(TrialOutcome::seconds_up).sum::<f64>()
                / runs.max(1) as f64,
            mean_speed_error: outcomes.iter().map(|o| o.speed_error).sum::<f64>()
                / runs.max(1) as f64,
        }
    }

    pub fn fraction_up(&self) -> f64 {
        self.up as f64 / self.runs.max(1) as f64
    }
}

/// Plays every timeline from the graph's standing start, each through its own controller (the
/// look-ahead's decisions, or `policy`'s when given); with `physics`, the simulated human tracks
/// it with these gains (and the look-ahead and the guard of `planning`, when given). In parallel; the outcomes are in the
/// order of `timelines`.
pub fn run_trials(
    graph: &Arc<LoadedGraph>,
    timelines: &[(String, StickScript)],
    physics: Option<BalanceGains>,
    planning: Planning,
    policy: Option<&Arc<SteeringMdp>>,
) -> anyhow::Result<Vec<TrialOutcome>> {
    timelines
        .par_iter()
        .map(|(name, script)| {
            let start = Controller::default_start(graph, "stand");
            let mut controller = Controller::new(graph.clone(), start, Mode::Steer);
            if let Some(p) = policy {
                controller = controller.with_policy(p.clone());
            }
            let (fell_at, joint_error, root_error, trace) = match physics {
                Some(gains) => {
                    let r =
                        run_tracked_planned(&mut controller, script, gains, planning, |_, _| {})?;
                    (r.fell_at, r.joint_error, r.root_error, r.trace)
                }
                None => {
                    let trace = run_script(&mut controller, script, |_, _, _| {});
                    (None, 0.0, 0.0, trace)
                }
            };
            let up_to = fell_at.unwrap_or(f64::INFINITY);
            let errors: Vec<f64> = trace
                .samples
                .iter()
                .filter(|s| s.time <= up_to && s.speed.is_finite())
                .map(|s| (s.speed - s.command_speed).abs())
                .collect();
            let speed_error = errors.iter().sum::<f64>() / errors.len().max(1) as f64;
            Ok(TrialOutcome {
                name: name.clone(),
                duration: script.duration,
                fell_at,
                joint_error,
                root_error,
                speed_error,
            })
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The seeded player holds each setting 1–4 s, runs and faces about as often as asked, and
    /// the same seed draws the same timeline.
    #[test]
    fn a_seeded_player_moves_the_sticks_as_modelled() {
        let player = PlayerModel::default();
        let mut holds = Vec::new();
        let (mut runs, mut facings, mut keys) = (0, 0, 0);
        for seed in 0..200 {
            let s = random_timeline(seed, 60.0, 60.0, &player);
            assert_eq!(s, random_timeline(seed, 60.0, 60.0, &player));
            assert_eq!(s.keys[0].time, 0.0);
            for w in s.keys.windows(2) {
                holds.push(w[1].time - w[0].time);
            }
            for k in &s.keys {
                let (x, y) = k.movement;
                assert!(x * x + y * y <= 1.0 + 1e-12);
                runs += k.run as usize;
                facings += k.facing.is_some() as usize;
                keys += 1;
            }
        }
        assert!(holds.iter().all(|h| (1.0..=4.0).contains(h)));
        let mean_hold = holds.iter().sum::<f64>() / holds.len() as f64;
        assert!((mean_hold - 2.5).abs() < 0.1, "mean hold {mean_hold}");
        let run_share = runs as f64 / keys as f64;
        let facing_share = facings as f64 / keys as f64;
        assert!((run_share - 0.3).abs() < 0.03, "run share {run_share}");
        assert!(
            (facing_share - 0.2).abs() < 0.03,
            "facing share {facing_share}"
        );
        assert_ne!(
            random_timeline(1, 60.0, 60.0, &player),
            random_timeline(2, 60.0, 60.0, &player)
        );
    }

    #[test]
    fn straight_runs_spread_evenly_at_full_stick() {
        let r = straight_runs(16, 10.0, 60.0);
        assert_eq!(r.len(), 32);
        assert_eq!(r[4].0, "walk_090");
        assert_eq!(r[20].0, "run_090");
        let (x, y) = r[4].1.keys[0].movement;
        assert!(x.abs() < 1e-12 && (y - 1.0).abs() < 1e-12);
        assert!(r[20].1.keys[0].run && !r[4].1.keys[0].run);
    }

    #[test]
    fn part_stick_walks_scale_the_stick_and_name_the_magnitude() {
        let r = part_stick_walks(4, &[0.3, 0.5], 10.0, 60.0);
        assert_eq!(r.len(), 8);
        assert_eq!(r[1].0, "walk30_090");
        assert_eq!(r[4].0, "walk50_000");
        let (x, y) = r[1].1.keys[0].movement;
        assert!(x.abs() < 1e-12 && (y - 0.3).abs() < 1e-12);
        assert!(!r[5].1.keys[0].run);
    }

    #[test]
    fn the_summary_counts_runs_that_stayed_up() {
        let o = |fell_at| TrialOutcome {
            name: String::new(),
            duration: 60.0,
            fell_at,
            joint_error: 0.0,
            root_error: 0.0,
            speed_error: 0.0,
        };
        let s = TrialSummary::of(&[o(None), o(Some(6.0)), o(None), o(Some(12.0))]);
        assert_eq!((s.runs, s.up), (4, 2));
        assert_eq!(s.fraction_up(), 0.5);
        assert_eq!(s.mean_seconds_up, (60.0 + 6.0 + 60.0 + 12.0) / 4.0);
    }
}
