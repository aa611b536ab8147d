//! Scripted steering: a timeline of stick values played through a controller at a fixed rate,
//! with what a player would judge measured at every step: the heading (direction of travel over
//! the last half second) against the command, the speed against the command, how far planted
//! feet slide, the largest jump of a joint coordinate between two frames, and the transitions
//! taken. `motionlab steer` prints it per second; the tests assert on it.

use super::controller::{Controller, Output};
use super::intent::Stick;
use super::spring::wrap_angle;
use crate::clip::pose::{body_poses, quat_of};
use crate::model::EffectorTag;
use serde::{Deserialize, Serialize};
use std::collections::VecDeque;

/// One key of a script: from `time` on, the controls are these (see [`Stick`]).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct StickKey {
    pub time: f64,
    /// Left stick: (east, north).
    #[serde(rename = "move")]
    pub movement: (f64, f64),
    #[serde(default)]
    pub facing: Option<(f64, f64)>,
    #[serde(default)]
    pub run: bool,
}

impl StickKey {
    pub fn stick(&self) -> Stick {
        Stick {
            movement: self.movement,
            facing: self.facing,
            run: self.run,
        }
    }
}

/// A push of the simulated character (physics playback): an impulse (N·s, world) on the root
/// body at `time`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ScriptPush {
    pub time: f64,
    pub impulse: [f64; 3],
}

/// A steering script (`tests/data/steer_north_east.ron`).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct StickScript {
    /// Keys in time order; before the first the stick is centred.
    pub keys: Vec<StickKey>,
    /// Seconds to play.
    pub duration: f64,
    /// Steps per second (default 60).
    #[serde(default = "default_rate")]
    pub rate: f64,
    #[serde(default)]
    pub pushes: Vec<ScriptPush>,
}

fn default_rate() -> f64 {
    60.0
}

impl StickScript {
    /// The pushes that land in the script step ending at `t` (one step is `1 / rate` s).
    pub fn pushes_due(&self, t: f64) -> impl Iterator<Item = &ScriptPush> {
        let step = 1.0 / self.rate;
        self.pushes
            .iter()
            .filter(move |p| p.time <= t && p.time > t - step)
    }

    /// Reads a script; errors name the file and line, or what is out of range.
    pub fn load(path: &std::path::Path) -> anyhow::Result<Self> {
        let s: StickScript = crate::files::read_ron(path)?;
        let bad = |m: String| anyhow::anyhow!("{}: {m}", path.display());
        if !(s.duration > 0.0 && s.duration <= 3600.0) {
            return Err(bad(format!(
                "duration must be in (0, 3600] s, found {}",
                s.duration
            )));
        }
        if !(s.rate >= 10.0 && s.rate <= 1000.0) {
            return Err(bad(format!(
                "rate must be in [10, 1000] steps/s, found {}",
                s.rate
            )));
        }
        for (i, k) in s.keys.iter().enumerate() {
            let (x, y) = k.movement;
            if !(k.time.is_finite() && x.is_finite() && y.is_finite())
                || i > 0 && k.time < s.keys[i - 1].time
            {
                return Err(bad(format!(
                    "key {i}: expected finite values and times in order"
                )));
            }
        }
        Ok(s)
    }

    /// The stick at time `t`.
    pub fn stick_at(&self, t: f64) -> Stick {
        self.keys
            .iter()
            .rev()
            .find(|k| k.time <= t)
            .map(StickKey::stick)
            .unwrap_or_default()
    }
}

/// Seconds over which a run's direction of travel is measured.
pub const DIRECTION_WINDOW: f64 = 0.5;

/// Seconds over which a run's speed is measured: a stride of every gait of the human (0.7 s
/// running to 1.2 s at the slowest walk). Over half a second the root's bounce within a
/// running stride alone swung the measured speed between 2.41 and 2.74 m/s.
pub const SPEED_WINDOW: f64 = 1.0;

/// One step of a run.
#[derive(Clone, Debug, PartialEq)]
pub struct Sample {
    pub time: f64,
    /// The command's direction (yaw) and speed.
    pub command_direction: f64,
    pub command_speed: f64,
    /// The command's facing and the character's heading (yaw).
    pub command_facing: f64,
    pub facing: f64,
    /// Direction of travel (yaw) over the last [`DIRECTION_WINDOW`] and speed over the last
    /// [`SPEED_WINDOW`].
    pub direction: f64,
    pub speed: f64,
    /// The root's place.
    pub position: [f64; 2],
    pub transitions: usize,
}

/// What a scripted run measured.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct SteerTrace {
    pub samples: Vec<Sample>,
    /// Per completed step of a foot: when it lifted (s) and how far its point moved on the
    /// ground while down (m).
    pub foot_slides: Vec<(f64, f64)>,
    /// The largest change of one joint coordinate between two steps (rad), and of the root's
    /// orientation (rad).
    pub max_joint_jump: f64,
    pub max_root_turn: f64,
    pub transitions: usize,
}

/// The per-second lines of `motionlab steer`.
#[derive(Clone, Debug, PartialEq)]
pub struct SecondSummary {
    pub second: usize,
    /// Mean |heading − command| (degrees) over the second's samples that travel.
    pub heading_error: f64,
    /// Mean |speed − command| (m/s).
    pub speed_error: f64,
    /// Mean |heading − commanded facing| (degrees) over the second's samples.
    pub facing_error: f64,
    /// Largest slide of a foot step that ended in the second (m).
    pub foot_slide: f64,
    pub transitions: usize,
}

/// Turns the controller to face the script's first key's direction (a player pushes the stick
/// where the character already looks); a first key at rest leaves it as it is.
pub fn face_first_key(controller: &mut Controller, script: &StickScript) {
    if let Some(k) = script.keys.first() {
        let (x, y) = k.movement;
        if x * x + y * y > 0.04 {
            controller.face(y.atan2(x));
        }
    }
}

/// Plays `script` through `controller` and measures it. `on_step` sees every output and may
/// adjust the controller (the physics playback tracks it and re-anchors it).
pub fn run_script(
    controller: &mut Controller,
    script: &StickScript,
    mut on_step: impl FnMut(f64, &Output, &mut Controller),
) -> SteerTrace {
    let dt = 1.0 / script.rate;
    let steps = (script.duration * script.rate).round() as usize;
    let character = controller.graph.character.clone();
    let feet: Vec<(usize, usize, [f64; 3])> = character
        .end_effectors
        .iter()
        .enumerate()
        .filter(|(_, e)| e.tag == EffectorTag::Foot)
        .filter_map(|(k, e)| Some((k, character.body_index(&e.body)?, e.point)))
        .collect();
    face_first_key(controller, script);
    let mut trace = SteerTrace::default();
    let mut history: VecDeque<(f64, [f64; 2])> = VecDeque::new();
    let mut planted: Vec<Option<([f64; 3], f64)>> = vec![None; feet.len()];
    let mut last: Option<Output> = None;
    for i in 0..steps {
        let t = (i + 1) as f64 * dt;
        let stick = script.stick_at(t);
        let out = controller.step(&stick, dt);
        on_step(t, &out, controller);
        let pos = [out.pose.root[0], out.pose.root[2]];
        history.push_back((t, pos));
        while history
            .front()
            .is_some_and(|(t0, _)| t - t0 > SPEED_WINDOW + 1e-9)
        {
            history.pop_front();
        }
        let (t0, p0) = history.front().copied().unwrap_or((t, pos));
        let span = (t - t0).max(1e-9);
        let speed = ((pos[0] - p0[0]).powi(2) + (pos[1] - p0[1]).powi(2)).sqrt() / span;
        let (_, p1) = history
            .iter()
            .find(|(t1, _)| t - t1 <= DIRECTION_WINDOW + 1e-9)
            .copied()
            .unwrap_or((t, pos));
        let (dx, dz) = (pos[0] - p1[0], pos[1] - p1[1]);
        let c = controller.intent.command;
        trace.samples.push(Sample {
            time: t,
            command_direction: c.direction,
            command_speed: c.speed,
            command_facing: c.facing,
            facing: controller.heading().yaw,
            direction: (-dz).atan2(dx),
            speed: if span >= SPEED_WINDOW - 1e-9 {
                speed
            } else {
                f64::NAN
            },
            position: pos,
            transitions: controller.transitions_taken,
        });
        // Feet: where each was when it went down, and how far it has gone since.
        let poses = body_poses(&character, &out.pose.root, &out.pose.joints);
        for (k, &(effector, body, point)) in feet.iter().enumerate() {
            let down = out.contacts.get(effector).copied().unwrap_or(false);
            let p = poses[body];
            let q = quat_of(&p);
            let w = q * nalgebra::Vector3::from(point);
            let here = [p[0] + w.x, p[1] + w.y, p[2] + w.z];
            match (down, &mut planted[k]) {
                (true, None) => planted[k] = Some((here, 0.0)),
                (true, Some((at, worst))) => {
                    let d = ((here[0] - at[0]).powi(2) + (here[2] - at[2]).powi(2)).sqrt();
                    *worst = worst.max(d);
                }
                (false, Some((_, worst))) => {
                    trace.foot_slides.push((t, *worst));
                    planted[k] = None;
                }
                (false, None) => {}
            }
        }
        if let Some(prev) = &last {
            for (a, b) in prev.pose.joints.iter().zip(&out.pose.joints) {
                trace.max_joint_jump = trace.max_joint_jump.max((a - b).abs());
            }
            let turn = quat_of(&prev.pose.root).angle_to(&quat_of(&out.pose.root));
            trace.max_root_turn = trace.max_root_turn.max(turn);
        }
        last = Some(out);
    }
    trace.transitions = controller.transitions_taken;
    trace
}

impl SteerTrace {
    /// One summary per whole second of the run.
    pub fn per_second(&self, rate: f64) -> Vec<SecondSummary> {
        let per = rate.round().max(1.0) as usize;
        let mut out = Vec::new();
        let mut before = 0;
        for (second, chunk) in self.samples.chunks(per).enumerate() {
            let moving: Vec<&Sample> = chunk
                .iter()
                .filter(|s| s.command_speed > 0.0 && s.speed > 0.2)
                .collect();
            let heading_error = if moving.is_empty() {
                0.0
            } else {
                moving
                    .iter()
                    .map(|s| {
                        wrap_angle(s.direction - s.command_direction)
                            .abs()
                            .to_degrees()
                    })
                    .sum::<f64>()
                    / moving.len() as f64
            };
            let speeds: Vec<f64> = chunk
                .iter()
                .filter(|s| s.speed.is_finite())
                .map(|s| (s.speed - s.command_speed).abs())
                .collect();
            let speed_error = if speeds.is_empty() {
                0.0
            } else {
                speeds.iter().sum::<f64>() / speeds.len() as f64
            };
            let facing_error = chunk
                .iter()
                .map(|s| wrap_angle(s.facing - s.command_facing).abs().to_degrees())
                .sum::<f64>()
                / chunk.len().max(1) as f64;
            let taken = chunk.last().map_or(before, |s| s.transitions);
            let (t0, t1) = (
                chunk.first().map_or(0.0, |s| s.time),
                chunk.last().map_or(0.0, |s| s.time),
            );
            let foot_slide = self
                .foot_slides
                .iter()
                .filter(|(t, _)| (t0..=t1).contains(t))
                .map(|s| s.1)
                .fold(0.0, f64::max);
            out.push(SecondSummary {
                second,
                heading_error,
                speed_error,
                facing_error,
                foot_slide,
                transitions: taken - before,
            });
            before = taken;
        }
        out
    }
}
