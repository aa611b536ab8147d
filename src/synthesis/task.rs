//! The task a controller is synthesized for (Wampler 2012, thesis §5.3: the direction,
//! direction + speed and direction + torso demos, and the gait type g_t of its task costs): what
//! the user asks for, the base cycle G₀,
//! the templates' ranges and the weights, as read from a task file, and the templates it offers
//! to the search.

use super::cycle;
use super::graph::Measure;
use super::surrogate::Template;
use crate::spacetime::gait::FootTiming;
use crate::steering::intent::Gait;
use crate::steering::mdp::{MdpSettings, UserModel};
use serde::{Deserialize, Serialize};
use std::path::PathBuf;

/// Facings the controller's value is kept at for a facing task (each 22.5°; 32 took 2.5 times
/// as long to solve on a 300-frame graph for the same cost(G) within 1 %).
pub const FACING_BINS: usize = 16;

/// A controller to synthesize (`assets/controllers/*.ron`): the task, the base cycle and the
/// template's range.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ControllerTask {
    /// What the user asks for: a direction θ_v, a direction and a speed, or a direction and a
    /// facing.
    pub task: TaskKind,
    /// With `DirectionSpeed`: the speed levels the user asks for (m/s); new cycles are searched
    /// between the smallest and the largest.
    #[serde(default)]
    pub speeds: Vec<f64>,
    /// With `DirectionSpeed`: the task cost of 1 m/s of speed error against 1 rad of direction
    /// error.
    #[serde(default = "default_speed_weight")]
    pub speed_weight: f64,
    /// G₀: a solved cycle off the treadmill (`motionlab gait --turn-rate 0 --out`), relative to
    /// the task file. Absent: solved first, with the creature's default timing at `speed`.
    #[serde(default)]
    pub base: Option<PathBuf>,
    /// The base cycle's speed (m/s) when it is solved here.
    #[serde(default = "default_speed")]
    pub speed: f64,
    /// Turns searched: θ within ± this many degrees.
    #[serde(default = "default_max_turn")]
    pub max_turn_deg: f64,
    /// With `DirectionFacing`: strafing cycles searched, ϕ within ± this many degrees (every
    /// [`cycle::STRAFE_STEP_DEG`]).
    #[serde(default = "default_max_strafe")]
    pub max_strafe_deg: f64,
    /// With `DirectionFacing`: the task cost of 1 rad of facing error against 1 rad of direction
    /// error.
    #[serde(default = "default_facing_weight")]
    pub facing_weight: f64,
    /// Frames of a transition, both ends' pairs included (31: one stride of a 30-frame cycle;
    /// the simple biped's half-stride turns, ending as a foot lands, did not converge even at 2°,
    /// where its one-stride turn solved in 14 s to the walk's own cost).
    #[serde(default = "default_frames")]
    pub frames: usize,
    /// With `DirectionFacing`: frames of a strafing cycle's connections, both ends' pairs
    /// included (61: two strides of a 30-frame cycle; in one stride from the walk into a sideways
    /// walk, whose pelvis twists ±45°, the +90° strafe's connections swung a hip at 34–86 rad/s,
    /// where two strides solved at 14–15 rad/s and 9–12 times the walk's cost).
    #[serde(default = "default_strafe_frames")]
    pub strafe_frames: usize,
    /// The base frames f_a transitions may leave from (each arrives `frames − 1` later).
    #[serde(default = "default_from_frames")]
    pub from_frames: Vec<usize>,
    /// Weight of the biomechanical cost (the log of a clip's gait objective against the base
    /// cycle's) against the task's (rad).
    #[serde(default = "default_effort_weight")]
    pub effort_weight: f64,
    /// Templates weighed per iteration (surrogate evaluations).
    #[serde(default = "default_weighed")]
    pub weighed: usize,
    /// IPOPT's iteration limit for each solve.
    #[serde(default = "default_solver_iterations")]
    pub solver_iterations: usize,
    /// How the user moves the asked direction (rates per second).
    #[serde(default)]
    pub user: Option<UserRates>,
    /// The gait objective's weights for the solves (C₁..C₄ and the posture's); absent: the
    /// thesis's. The biomechanical cost compares each clip with the base under the weights it was
    /// solved with, so a task that sets them should use a base solved with them.
    #[serde(default)]
    pub weights: Option<crate::spacetime::gait::GaitWeights>,
    /// What the posture term holds in the solves (limbs by part of their name, coordinates with
    /// a dot: `thigh.ry`); empty: every limb.
    #[serde(default)]
    pub posture: Vec<String>,
    /// With `DirectionGait`: the gaits new cycles may take besides the base's (template S₂'s
    /// gait parameter). The base walks (no flight phase) and each of these runs (a flight phase):
    /// the gaits the user asks for are walk and run.
    #[serde(default)]
    pub gaits: Vec<TaskGait>,
    /// With `DirectionGait`: the task cost (rad) of a frame of another gait than the asked one.
    #[serde(default = "default_gait_weight")]
    pub gait_weight: f64,
}

/// A gait a new cycle may take (a `DirectionGait` task's): its timing and the speeds its cycles
/// are searched between.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TaskGait {
    /// Its period T (s).
    pub period: f64,
    /// Its contact windows, one per foot (fractions of the period, as `motionlab gait
    /// --contacts` takes them).
    pub contacts: Vec<FootTiming>,
    /// The slowest and fastest speed of its cycles (m/s), searched every
    /// [`cycle::SPEED_STEP`].
    pub speeds: (f64, f64),
    /// Frames of a turn of this gait's cycles, both ends' pairs included; absent: the task's
    /// `frames`. (The simple biped's run turns 34–44° in two of its strides, 61 frames, within
    /// the 30 rad/s bar; in one stride its hips twisted at 44–78 rad/s.)
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub turn_frames: Option<usize>,
}

/// The user model's rates (see [`UserModel`]).
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct UserRates {
    pub jumps_per_second: f64,
    pub steps_per_second: f64,
    pub step_sigma_deg: f64,
    /// With `DirectionSpeed`: jumps of the asked speed to another level per second (absent: the
    /// default user's).
    #[serde(default = "default_speed_changes")]
    pub speed_changes_per_second: f64,
}

fn default_speed_changes() -> f64 {
    UserModel::default().speed_changes_per_second
}

/// The task parameters.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum TaskKind {
    /// Direction following, θ_v.
    Direction,
    /// Direction and speed, (θ_v, s): templates S₁ and S₂.
    DirectionSpeed,
    /// Direction and facing (torso orientation), (θ_v, θ_r): templates S₁ and S₂ strafing at ϕ
    /// (the thesis's "direction + torso" demo).
    DirectionFacing,
    /// Direction and gait type, (θ_v, g_t): templates S₁ and S₂ in the task's other gaits (the
    /// thesis's gait-type task cost, a mismatch penalty).
    DirectionGait,
}

fn default_gait_weight() -> f64 {
    1.0
}
fn default_speed() -> f64 {
    0.7
}
fn default_speed_weight() -> f64 {
    1.0
}
fn default_max_strafe() -> f64 {
    90.0
}
fn default_facing_weight() -> f64 {
    1.0
}
fn default_max_turn() -> f64 {
    150.0
}
fn default_frames() -> usize {
    31
}
fn default_strafe_frames() -> usize {
    61
}
fn default_from_frames() -> Vec<usize> {
    vec![0]
}
fn default_effort_weight() -> f64 {
    0.1
}
fn default_weighed() -> usize {
    12
}
fn default_solver_iterations() -> usize {
    3000
}

impl ControllerTask {
    /// How cost(G) is measured for this task.
    pub fn measure(&self) -> Measure {
        let user = self.user.map_or_else(UserModel::default, |u| UserModel {
            jumps_per_second: u.jumps_per_second,
            steps_per_second: u.steps_per_second,
            step_sigma: u.step_sigma_deg.to_radians(),
            speed_changes_per_second: u.speed_changes_per_second,
        });
        let speeds = match self.task {
            TaskKind::Direction | TaskKind::DirectionFacing | TaskKind::DirectionGait => Vec::new(),
            TaskKind::DirectionSpeed => self.speeds.clone(),
        };
        let gaits = match self.task {
            TaskKind::DirectionGait => vec![Gait::Walk, Gait::Run],
            _ => Vec::new(),
        };
        let facing_bins = match self.task {
            TaskKind::DirectionFacing => FACING_BINS,
            _ => 0,
        };
        Measure {
            mdp: MdpSettings {
                user,
                speeds,
                speed_weight: self.speed_weight,
                gaits,
                gait_weight: self.gait_weight,
                facing_bins,
                facing_weight: self.facing_weight,
                ..MdpSettings::default()
            },
            effort_weight: self.effort_weight,
            samples: 128,
            frames: 1800,
            seed: 1,
        }
    }

    /// The templates weighed: every start frame, and every 2° of turn (straight on left out);
    /// with a speed, cycles every [`cycle::SPEED_STEP`] between the task's speeds (the base's
    /// own left out); with a facing, cycles at the base's speed strafing every
    /// [`cycle::STRAFE_STEP_DEG`] (forwards left out).
    pub fn candidates(&self) -> Vec<Template> {
        let max = self.max_turn_deg.clamp(2.0, 180.0) as i64;
        let turns = (0..self.from_frames.len().max(1)).flat_map(|start| {
            (-max / 2..=max / 2)
                .filter(|&k| k != 0)
                .map(move |k| Template::Turn {
                    start,
                    theta: ((2 * k) as f64).to_radians(),
                    cycle: 0,
                })
        });
        turns
            .chain(self.cycle_speeds())
            .chain(self.strafes())
            .chain(self.gait_cycles())
            .collect()
    }

    /// The S₂ templates in other gaits: for each of the task's gaits, straight cycles every
    /// [`cycle::SPEED_STEP`] m/s over its speeds (none but for a gait task).
    pub fn gait_cycles(&self) -> Vec<Template> {
        if self.task != TaskKind::DirectionGait {
            return Vec::new();
        }
        self.gaits
            .iter()
            .enumerate()
            .flat_map(|(k, g)| {
                let (lo, hi) = (g.speeds.0.min(g.speeds.1), g.speeds.0.max(g.speeds.1));
                let steps = ((hi - lo) / cycle::SPEED_STEP).round().max(0.0) as usize;
                (0..=steps).map(move |i| Template::Cycle {
                    speed: ((lo + i as f64 * cycle::SPEED_STEP) * 100.0).round() / 100.0,
                    strafe: 0.0,
                    gait: k + 1,
                })
            })
            .collect()
    }

    /// The strafing S₂ templates: cycles at the task's `speed` (the base's) every
    /// [`cycle::STRAFE_STEP_DEG`] within ± `max_strafe_deg` (none but for a facing task).
    pub fn strafes(&self) -> Vec<Template> {
        if self.task != TaskKind::DirectionFacing {
            return Vec::new();
        }
        let step = cycle::STRAFE_STEP_DEG;
        let max = (self.max_strafe_deg.clamp(0.0, 180.0) / step).floor() as i64;
        (-max..=max)
            .filter(|&k| k != 0)
            .map(|k| Template::Cycle {
                speed: self.speed,
                strafe: (k as f64 * step).to_radians(),
                gait: 0,
            })
            .collect()
    }

    /// The S₂ templates: cycles every [`cycle::SPEED_STEP`] m/s between the smallest and
    /// largest asked speed, the base's own left out (none for a direction task).
    pub fn cycle_speeds(&self) -> Vec<Template> {
        if self.task != TaskKind::DirectionSpeed || self.speeds.is_empty() {
            return Vec::new();
        }
        let lo = self.speeds.iter().copied().fold(f64::INFINITY, f64::min);
        let hi = self
            .speeds
            .iter()
            .copied()
            .fold(f64::NEG_INFINITY, f64::max);
        let steps = ((hi - lo) / cycle::SPEED_STEP).round().max(0.0) as usize;
        (0..=steps)
            .map(|k| lo + k as f64 * cycle::SPEED_STEP)
            .filter(|v| (v - self.speed).abs() > 0.5 * cycle::SPEED_STEP)
            .map(|speed| Template::Cycle {
                speed: (speed * 100.0).round() / 100.0,
                strafe: 0.0,
                gait: 0,
            })
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A task that sets the user's direction rates keeps the default user's speed changes
    /// unless it sets them too (it once turned them off, so speeds never changed in cost(G)).
    #[test]
    fn a_users_rates_keep_the_speed_changes_they_do_not_set() {
        let task = |user: &str| -> ControllerTask {
            ron::from_str(&format!(
                "(task: DirectionSpeed, speeds: [0.4, 1.0], user: Some(({user})))"
            ))
            .unwrap()
        };
        let rates = "jumps_per_second: 0.05, steps_per_second: 0.1, step_sigma_deg: 10.0";
        let user = task(rates).measure().mdp.user;
        assert_eq!(user.jumps_per_second, 0.05);
        assert_eq!(
            user.speed_changes_per_second,
            UserModel::default().speed_changes_per_second
        );
        let user = task(&format!("{rates}, speed_changes_per_second: 0.1"))
            .measure()
            .mdp
            .user;
        assert_eq!(user.speed_changes_per_second, 0.1);
    }

    /// A facing task offers strafing cycles at the base's speed every 15° within its range
    /// (forwards left out) beside the turns, and measures cost(G) with the facing as a task
    /// parameter; other tasks offer no strafe.
    #[test]
    fn a_facing_task_offers_strafes_and_measures_the_facing() {
        let task: ControllerTask =
            ron::from_str("(task: DirectionFacing, max_strafe_deg: 45.0, speed: 0.7)").unwrap();
        let strafes: Vec<f64> = task
            .candidates()
            .iter()
            .filter_map(|t| match t {
                Template::Cycle { speed, strafe, .. } => {
                    assert_eq!(*speed, 0.7);
                    Some(strafe.to_degrees().round())
                }
                Template::Turn { .. } => None,
            })
            .collect();
        assert_eq!(strafes, [-45.0, -30.0, -15.0, 15.0, 30.0, 45.0]);
        assert!(task.candidates().iter().any(|t| t.theta() != 0.0));
        let mdp = task.measure().mdp;
        assert_eq!((mdp.facing_bins, mdp.facing_weight), (FACING_BINS, 1.0));
        let direction: ControllerTask = ron::from_str("(task: Direction)").unwrap();
        assert!(direction.strafes().is_empty());
        assert_eq!(direction.measure().mdp.facing_bins, 0);
    }
}
