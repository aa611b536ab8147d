//! Steering trials: many stick timelines played at once, to judge whether the simulated human
//! stays up under the input a player gives, not only under a hand-written script.
//!
//! - [`random_timeline`]: a seeded player: every 1–4 s a new direction (uniform) and magnitude
//!   (uniform in [0, 1], so slow walks and stops come too), Shift held 30 % of the time and the
//!   facing stick pushed 20 % of the time (each drawn per hold);
//! - [`straight_runs`]: walks and runs at full stick in evenly spread directions;
//! - [`gait_holds`]: each straight cyclic gait of the graph from its own state (the body
//!   started moving as the clip does), which says which gaits the tracking can hold at all;
//! - [`run_trials`]: every timeline through its own controller (and, with physics, its own
//!   simulation), in parallel; the outcomes come back in the timelines' order and do not depend
//!   on the number of threads.
//!
//! The control problem is the one of Liu, van de Panne and Yin (2016) and of Lee, Kim and Lee
//! (2010): a simulated biped that follows an interactively steered reference.

use super::balance::BalanceGains;
use super::mdp::SteeringMdp;
use super::physics::{Planning, run_tracked_from};
use super::script::{Sample, ScriptPush, StickKey, StickScript, run_script};
use super::spring::wrap_angle;
use super::{Controller, Mode};
use crate::motion_graph::{FrameRef, LoadedGraph};
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
            out.push((name, held((a.cos(), a.sin()), run, duration, rate)));
        }
    }
    out
}

/// The left stick held at `movement` (Shift down when `run`) from the start for `duration` s.
fn held(movement: (f64, f64), run: bool, duration: f64, rate: f64) -> StickScript {
    StickScript {
        keys: vec![StickKey {
            time: 0.0,
            movement,
            facing: None,
            run,
        }],
        duration,
        rate,
        pushes: Vec::new(),
    }
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

/// The stick magnitude of the pushed walks: with the default speed range (0.6–1.4 m/s past a
/// 0.2 dead zone) it asks for 1.0 m/s.
pub const PUSH_WALK_STICK: f64 = 0.6;
/// Seconds of walking before a push can come.
pub const PUSH_SETTLE: f64 = 5.0;
/// The span after [`PUSH_SETTLE`] a push's time is drawn from: longer than a stride of the
/// 1.0 m/s walk (1.05 s), so the pushes land at every phase of it.
pub const PUSH_WINDOW: f64 = 1.2;

/// Walks east at 1.0 m/s ([`PUSH_WALK_STICK`]), each pushed once on the pelvis by `impulse` N·s
/// horizontally: `directions` evenly spread directions of the push (0°: along the travel, then
/// anticlockwise seen from above), `per_direction` walks each, pushed at a time drawn uniformly
/// (seeded) in [`PUSH_WINDOW`] after [`PUSH_SETTLE`] s, so at random phases of the stride.
/// Named `pushJ_DEG_K` (J the impulse in N·s).
pub fn push_walks(
    impulse: f64,
    directions: usize,
    per_direction: usize,
    seed: u64,
    duration: f64,
    rate: f64,
) -> Vec<(String, StickScript)> {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let mut out = Vec::new();
    for i in 0..directions {
        let a = std::f64::consts::TAU * i as f64 / directions as f64;
        for k in 0..per_direction {
            let time = PUSH_SETTLE + rng.random_range(0.0..PUSH_WINDOW);
            out.push((
                format!(
                    "push{}_{:03}_{k}",
                    impulse.round() as i64,
                    a.to_degrees().round() as i64
                ),
                StickScript {
                    keys: vec![StickKey {
                        time: 0.0,
                        movement: (PUSH_WALK_STICK, 0.0),
                        facing: None,
                        run: false,
                    }],
                    duration,
                    rate,
                    // The ground's (east, north) is the world's (x, −z).
                    pushes: vec![ScriptPush {
                        time,
                        impulse: [impulse * a.cos(), 0.0, -impulse * a.sin()],
                    }],
                },
            ));
        }
    }
    out
}

/// How long after a change of the stick's direction the travel is judged against it (s).
pub const HEADING_DELAY: f64 = 1.5;
/// The travel judged at [`HEADING_DELAY`] is the root's over this span centred on it (s): a
/// stride of every gait ([`super::script::SPEED_WINDOW`]). Over the half second before it, the
/// pelvis's sway within a step alone put kinematic walks at 0.6–0.9 m/s, held straight for 3 s,
/// more than 10° off their command in half of the samples (median 10.5°; over a stride, 2.2°).
pub const STRIDE: f64 = super::script::SPEED_WINDOW;
/// The heading a change is obeyed within (rad: 10°).
pub const HEADING_TOLERANCE: f64 = 10.0 * std::f64::consts::PI / 180.0;
/// The speed error a held speed is obeyed within (m/s).
pub const SPEED_TOLERANCE: f64 = 0.2;
/// Seconds after a change of the asked speed before the speed is judged ("once reached").
pub const SPEED_SETTLE: f64 = 2.0;

/// How a run obeyed the stick (the travel within 10° of the command 1.5 s after a change, over
/// a stride centred there; the speed within 0.2 m/s once reached), from its samples while up.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Obedience {
    /// Changes of the asked direction (of more than 10°, while asked to move, the next change at
    /// least [`HEADING_DELAY`] later) judged, and those travelling within [`HEADING_TOLERANCE`]
    /// of it [`HEADING_DELAY`] after (over [`STRIDE`] centred there).
    pub turns: usize,
    pub turns_met: usize,
    /// Samples judged for speed (asked to move, [`SPEED_SETTLE`] after the last change of the
    /// asked speed), and those within [`SPEED_TOLERANCE`].
    pub speed_samples: usize,
    pub speed_met: usize,
}

impl Obedience {
    /// Judges `samples` up to `until` (a fall's time, or the end).
    pub fn of(samples: &[Sample], until: f64) -> Self {
        let mut o = Obedience::default();
        let up: Vec<&Sample> = samples.iter().filter(|s| s.time <= until).collect();
        let mut turns = Vec::new();
        let mut speed_changed = 0.0;
        for w in up.windows(2) {
            let (a, b) = (w[0], w[1]);
            if b.command_speed > 0.0
                && wrap_angle(b.command_direction - a.command_direction).abs() > HEADING_TOLERANCE
            {
                turns.push(b.time);
            }
            if (b.command_speed - a.command_speed).abs() > 1e-9 {
                speed_changed = b.time;
            }
            if b.time - speed_changed >= SPEED_SETTLE
                && b.command_speed > 0.0
                && b.speed.is_finite()
            {
                o.speed_samples += 1;
                o.speed_met += ((b.speed - b.command_speed).abs() <= SPEED_TOLERANCE) as usize;
            }
        }
        for (i, &t) in turns.iter().enumerate() {
            let judged_at = t + HEADING_DELAY;
            let next = turns.get(i + 1).copied().unwrap_or(f64::INFINITY);
            if next < judged_at || judged_at > until {
                continue;
            }
            let Some(s) = up.iter().find(|s| s.time >= judged_at - 1e-9) else {
                continue;
            };
            if s.command_speed <= 0.0 {
                continue;
            }
            // The travel over a stride centred on the judging time, cut at the next change and
            // at the end of the samples.
            let (from, to) = (
                judged_at - 0.5 * STRIDE,
                (judged_at + 0.5 * STRIDE).min(next).min(until),
            );
            let (Some(a), Some(b)) = (
                up.iter().find(|s| s.time >= from - 1e-9),
                up.iter().rev().find(|s| s.time <= to + 1e-9),
            ) else {
                continue;
            };
            let travel = (a.position[1] - b.position[1]).atan2(b.position[0] - a.position[0]);
            o.turns += 1;
            o.turns_met +=
                (wrap_angle(travel - s.command_direction).abs() <= HEADING_TOLERANCE) as usize;
        }
        o
    }

    /// Adds another run's counts.
    pub fn add(&mut self, other: &Obedience) {
        self.turns += other.turns;
        self.turns_met += other.turns_met;
        self.speed_samples += other.speed_samples;
        self.speed_met += other.speed_met;
    }

    /// The share of judged turns met (NaN when none was judged).
    pub fn turn_share(&self) -> f64 {
        self.turns_met as f64 / self.turns as f64
    }

    /// The share of judged speed samples met (NaN when none was judged).
    pub fn speed_share(&self) -> f64 {
        self.speed_met as f64 / self.speed_samples as f64
    }
}

/// What one trial did.
#[derive(Clone, Debug, PartialEq)]
pub struct TrialOutcome {
    pub name: String,
    /// The timeline's length (s).
    pub duration: f64,
    /// When the simulated human fell (physics only).
    pub fell_at: Option<f64>,
    /// What ended it, in words, when it fell ([`super::physics::TrackingReport::fell_by`]).
    pub fell_by: Option<String>,
    /// Times the guard rescued the run from a plan that fell ([`super::rescue`]), and of
    /// those the times it stopped the body (its brake).
    pub rescues: usize,
    pub brakes: usize,
    /// RMS joint error (rad) and mean pelvis distance (m) from the played motion while up
    /// (physics only; zero when played kinematically).
    pub joint_error: f64,
    pub root_error: f64,
    /// Mean absolute joint error (rad) while up (physics only).
    pub joint_mean_error: f64,
    /// Mean |speed − asked speed| (m/s) of the played motion while up: how well the stick is
    /// obeyed (a character kept standing stays up but does not obey).
    pub speed_error: f64,
    /// How the run obeyed the stick while up.
    pub obedience: Obedience,
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
    /// The runs' obedience, summed.
    pub obedience: Obedience,
    /// Mean [`TrialOutcome::joint_error`] (rad) and [`TrialOutcome::root_error`] (m).
    pub mean_joint_error: f64,
    pub mean_root_error: f64,
    /// Mean [`TrialOutcome::joint_mean_error`] (rad).
    pub mean_joint_mean_error: f64,
}

impl TrialSummary {
    pub fn of(outcomes: &[TrialOutcome]) -> Self {
        let runs = outcomes.len();
        let mean =
            |f: fn(&TrialOutcome) -> f64| outcomes.iter().map(f).sum::<f64>() / runs.max(1) as f64;
        Self {
            runs,
            up: outcomes.iter().filter(|o| o.fell_at.is_none()).count(),
            mean_seconds_up: mean(TrialOutcome::seconds_up),
            mean_speed_error: mean(|o| o.speed_error),
            obedience: outcomes.iter().fold(Obedience::default(), |mut a, o| {
                a.add(&o.obedience);
                a
            }),
            mean_joint_error: mean(|o| o.joint_error),
            mean_root_error: mean(|o| o.root_error),
            mean_joint_mean_error: mean(|o| o.joint_mean_error),
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
            run_trial(graph, name, script, None, physics, planning.clone(), policy)
        })
        .collect()
}

/// The straight cyclic gaits of a graph, each held from its own state: for every kept cyclic
/// clip that does not turn (standing aside), from its first frame and from half way through its
/// cycle, the stick held along its travel at the magnitude that asks for its speed (Shift for a
/// run). Named `hold_CLIP_fFRAME`. With physics the simulated body starts with the clip's
/// velocities ([`super::physics::PhysicsPlayback::start_moving`]): a gait the tracking cannot
/// hold from its own motion cannot be held after any transition either.
pub fn gait_holds(graph: &Arc<LoadedGraph>, duration: f64, rate: f64) -> Vec<GaitHold> {
    let speeds = super::intent::SpeedRange::of_graph(&graph.graph);
    let mut out = Vec::new();
    for (c, clip) in graph.graph.clips.iter().enumerate() {
        let cyclic = clip.joins.is_none() && clip.cycle.is_some() && graph.kept(c);
        if !cyclic || clip.turn_rate.abs() > 1e-6 || clip.speed < 0.1 {
            continue;
        }
        let run = clip.family == "run";
        let magnitude = if run {
            1.0
        } else {
            speeds.walk_stick(clip.speed)
        };
        for frame in [0, clip.frames / 2] {
            let start = FrameRef { clip: c, frame };
            let heading = Controller::new(graph.clone(), start, Mode::Steer)
                .heading()
                .yaw;
            let movement = (magnitude * heading.cos(), magnitude * heading.sin());
            out.push(GaitHold {
                name: format!("hold_{}_f{frame}", clip.name),
                start,
                script: held(movement, run, duration, rate),
            });
        }
    }
    out
}

/// One trial of [`gait_holds`]: a stick held from a frame of a gait.
#[derive(Clone, Debug)]
pub struct GaitHold {
    pub name: String,
    pub start: FrameRef,
    pub script: StickScript,
}

/// Plays every hold from its own frame (in parallel), as [`run_trials`] plays timelines.
pub fn run_gait_holds(
    graph: &Arc<LoadedGraph>,
    holds: &[GaitHold],
    physics: Option<BalanceGains>,
    planning: Planning,
    policy: Option<&Arc<SteeringMdp>>,
) -> anyhow::Result<Vec<TrialOutcome>> {
    holds
        .par_iter()
        .map(|h| {
            run_trial(
                graph,
                &h.name,
                &h.script,
                Some(h.start),
                physics,
                planning.clone(),
                policy,
            )
        })
        .collect()
}

/// One trial: from the graph's standing start, or from `start` with the body moving as the
/// clip does there.
fn run_trial(
    graph: &Arc<LoadedGraph>,
    name: &str,
    script: &StickScript,
    start: Option<FrameRef>,
    physics: Option<BalanceGains>,
    planning: Planning,
    policy: Option<&Arc<SteeringMdp>>,
) -> anyhow::Result<TrialOutcome> {
    let from = start.unwrap_or_else(|| Controller::default_start(graph, "stand"));
    let mut controller = Controller::new(graph.clone(), from, Mode::Steer);
    if let Some(p) = policy {
        controller = controller.with_policy(p.clone());
    }
    // The joint error's RMS and mean absolute value.
    let (fell_at, fell_by, (rescues, brakes), joints, root_error, trace) = match physics {
        Some(gains) => {
            let r = run_tracked_from(
                &mut controller,
                script,
                gains,
                planning,
                start.is_some(),
                |_| {},
            )?;
            let (e, p) = ((r.joint_error, r.joint_mean_error), r.root_error);
            (r.fell_at, r.fell_by, (r.rescues, r.brakes), e, p, r.trace)
        }
        None => {
            // (Physics playback settles the intent itself, after facing the script.)
            if start.is_some() {
                controller.settle_intent(&script.stick_at(0.0));
            }
            let trace = run_script(&mut controller, script, |_, _, _| {});
            (None, None, (0, 0), (0.0, 0.0), 0.0, trace)
        }
    };
    let up_to = fell_at.unwrap_or(f64::INFINITY);
    let errors: Vec<f64> = trace
        .samples
        .iter()
        .filter(|s| s.time <= up_to && s.speed.is_finite())
        .map(|s| (s.speed - s.command_speed).abs())
        .collect();
    let speed_error = errors.iter().fold(0.0, |a, e| a + e) / errors.len().max(1) as f64;
    let obedience = Obedience::of(&trace.samples, up_to);
    Ok(TrialOutcome {
        name: name.to_string(),
        duration: script.duration,
        fell_at,
        fell_by,
        rescues,
        brakes,
        joint_error: joints.0,
        joint_mean_error: joints.1,
        root_error,
        speed_error,
        obedience,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::steering::intent::SpeedRange;

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
    fn pushed_walks_come_from_every_direction_at_seeded_phases() {
        let r = push_walks(20.0, 8, 3, 7, 12.0, 60.0);
        assert_eq!(r.len(), 24);
        assert_eq!(r[6].0, "push20_090_0");
        assert_eq!(r, push_walks(20.0, 8, 3, 7, 12.0, 60.0));
        let times: Vec<f64> = r.iter().map(|(_, s)| s.pushes[0].time).collect();
        assert!(
            times
                .iter()
                .all(|t| (PUSH_SETTLE..PUSH_SETTLE + PUSH_WINDOW).contains(t))
        );
        let other: Vec<f64> = push_walks(20.0, 8, 3, 8, 12.0, 60.0)
            .iter()
            .map(|(_, s)| s.pushes[0].time)
            .collect();
        assert_ne!(times, other);
        for (name, s) in &r {
            let [x, y, z] = s.pushes[0].impulse;
            assert!(
                ((x * x + z * z).sqrt() - 20.0).abs() < 1e-9 && y == 0.0,
                "{name}"
            );
            assert_eq!(s.keys[0].movement, (PUSH_WALK_STICK, 0.0));
        }
        // 90°: from the travel (east) anticlockwise, so towards the north, the world's −z.
        let [x, _, z] = r[6].1.pushes[0].impulse;
        assert!(x.abs() < 1e-9 && (z + 20.0).abs() < 1e-9);
        let asked = SpeedRange::default().command(&r[0].1.stick_at(1.0), 0.0);
        assert!((asked.speed - 1.0).abs() < 1e-9, "{asked:?}");
    }

    /// A sample every 0.1 s asked to travel at `asked` (yaw, m/s) and travelling at `went`.
    fn samples(asked: impl Fn(f64) -> (f64, f64), went: impl Fn(f64) -> (f64, f64)) -> Vec<Sample> {
        let mut position = [0.0; 2];
        (1..=100)
            .map(|i| {
                let time = i as f64 * 0.1;
                let ((command_direction, command_speed), (direction, speed)) =
                    (asked(time), went(time));
                // Yaw 0 travels east (+x), π/2 north (−z).
                position[0] += 0.1 * speed * direction.cos();
                position[1] -= 0.1 * speed * direction.sin();
                Sample {
                    time,
                    command_direction,
                    command_speed,
                    command_facing: 0.0,
                    facing: 0.0,
                    direction,
                    speed,
                    position,
                    transitions: 0,
                }
            })
            .collect()
    }

    #[test]
    fn obedience_judges_the_heading_after_each_change_and_the_speed_once_reached() {
        // Asked east, then north at 2 s and west at 6 s; the travel follows 1 s late.
        let asked = |t: f64| {
            (
                if t < 2.0 {
                    0.0
                } else if t < 6.0 {
                    1.57
                } else {
                    3.14
                },
                1.0,
            )
        };
        let late = |t: f64| (asked(t - 1.0).0, 0.9);
        let o = Obedience::of(&samples(asked, late), 10.0);
        assert_eq!((o.turns, o.turns_met), (2, 2));
        // The speed is judged from 2 s after the start (the last change of speed).
        assert_eq!(o.speed_samples, o.speed_met);
        assert!((80..=81).contains(&o.speed_samples), "{o:?}");
        // Two seconds late, and 0.3 m/s slow: every turn and every speed sample missed.
        let later = |t: f64| (asked(t - 2.0).0, 0.7);
        let o = Obedience::of(&samples(asked, later), 10.0);
        assert_eq!((o.turns, o.turns_met, o.speed_met), (2, 0, 0));
        // A fall at 5 s: only the first turn is judged.
        let o = Obedience::of(&samples(asked, late), 5.0);
        assert_eq!((o.turns, o.turns_met), (1, 1));
        // A change 1 s before the next is not judged.
        let quick = |t: f64| {
            (
                if t < 2.0 {
                    0.0
                } else if t < 3.0 {
                    1.57
                } else {
                    3.14
                },
                1.0,
            )
        };
        let o = Obedience::of(&samples(quick, late), 10.0);
        assert_eq!(o.turns, 1);
        // Weaving ±20° within each 1 s stride, on time: the stride's travel is judged, not the
        // sway.
        let weaving = |t: f64| {
            (
                asked(t - 1.0).0 + 0.35 * (std::f64::consts::TAU * t).sin(),
                1.0,
            )
        };
        let o = Obedience::of(&samples(asked, weaving), 10.0);
        assert_eq!((o.turns, o.turns_met), (2, 2));
    }

    #[test]
    fn the_summary_counts_runs_that_stayed_up() {
        let o = |fell_at| TrialOutcome {
            name: String::new(),
            duration: 60.0,
            fell_at,
            fell_by: None,
            rescues: 0,
            brakes: 0,
            joint_error: 0.0,
            joint_mean_error: fell_at.map_or(0.04, |_| 0.08),
            root_error: 0.0,
            speed_error: 0.0,
            obedience: Obedience::default(),
        };
        let s = TrialSummary::of(&[o(None), o(Some(6.0)), o(None), o(Some(12.0))]);
        assert_eq!((s.runs, s.up), (4, 2));
        assert_eq!(s.fraction_up(), 0.5);
        assert_eq!(s.mean_seconds_up, (60.0 + 6.0 + 60.0 + 12.0) / 4.0);
        assert_eq!(s.mean_joint_mean_error, (0.04 + 0.08 + 0.04 + 0.08) / 4.0);
    }
}
