//! What the user asks for: stick (or keys) in, the desired motion out, smoothed by critically
//! damped springs (Holden's Motion-Matching controller: input → desired velocity and facing →
//! predicted trajectory), as the task parameters of Wampler 2012, §5.3: travel direction θ_v,
//! facing θ_r, speed s_t and gait type g_t.
//!
//! Directions on the ground: the stick's (x, y) is (east, north) = world (+x, −z); a heading is
//! the [`PlanarMotion`] yaw (0 faces +x, east; π/2 faces −z, north).

use super::spring::{follow_velocity, towards, wrap_angle};
use crate::model::planar::PlanarMotion;
use serde::{Deserialize, Serialize};

/// One sample of the controls.
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Stick {
    /// Left stick or WASD/arrows: (east, north), length at most 1.
    #[serde(rename = "move")]
    pub movement: (f64, f64),
    /// Right stick: the facing (east, north); `None` faces the way of travel.
    #[serde(default)]
    pub facing: Option<(f64, f64)>,
    /// Shift, or the gamepad's run button.
    #[serde(default)]
    pub run: bool,
}

/// The gait the user asks for (the g_t of Wampler 2012, thesis §5.3).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum Gait {
    Stand,
    Walk,
    Run,
}

impl Gait {
    /// The gait family tags of clips that are this gait.
    pub fn matches(self, family: &str) -> bool {
        match self {
            Gait::Stand => family == "stand",
            Gait::Walk => family == "walk",
            Gait::Run => family == "run",
        }
    }
}

/// Speeds the stick maps to (m/s).
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct SpeedRange {
    /// Walking speed at the smallest and the full deflection.
    pub walk: (f64, f64),
    pub run: f64,
    /// Deflections below this stand still.
    pub dead_zone: f64,
}

impl Default for SpeedRange {
    fn default() -> Self {
        Self {
            walk: (0.6, 1.4),
            run: 2.6,
            dead_zone: 0.2,
        }
    }
}

/// The desired motion at one instant.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Command {
    /// θ_v, the yaw of the desired travel direction.
    pub direction: f64,
    /// θ_r, the desired facing yaw.
    pub facing: f64,
    /// s_t (m/s).
    pub speed: f64,
    pub gait: Gait,
}

impl SpeedRange {
    /// The speeds a graph's gaits cover: the walk from its slowest to its fastest walk, the run
    /// at its fastest run; where the graph has no walk (or no run), the default's. The stick
    /// then asks for speeds the graph can play (a graph whose run is 2.0 m/s is not asked for
    /// 2.6).
    pub fn of_graph(graph: &crate::motion_graph::MotionGraph) -> Self {
        let mut range = Self::default();
        let speeds = |family: &'static str| {
            graph
                .clips
                .iter()
                .filter(move |c| c.family == family && c.joins.is_none() && c.speed > 0.0)
                .map(|c| c.speed)
        };
        let walks = speeds("walk").fold(None, |r: Option<(f64, f64)>, v| {
            Some(r.map_or((v, v), |(lo, hi)| (lo.min(v), hi.max(v))))
        });
        if let Some((lo, hi)) = walks.filter(|(lo, hi)| hi > lo) {
            range.walk = (lo, hi);
        }
        if let Some(run) = speeds("run").reduce(f64::max) {
            range.run = run;
        }
        range
    }

    /// The stick deflection that asks for a walk at `speed` ([`Self::command`]'s inverse, held
    /// to the walking range): just past the dead zone for the slowest walk, 1 for the fastest.
    pub fn walk_stick(&self, speed: f64) -> f64 {
        let s = ((speed - self.walk.0) / (self.walk.1 - self.walk.0)).clamp(0.0, 1.0);
        let past = self.dead_zone + 1e-6;
        past + s * (1.0 - past)
    }

    /// The raw command of a stick sample (no smoothing); `heading` is kept as the direction and
    /// facing when the stick is centred.
    pub fn command(&self, stick: &Stick, heading: f64) -> Command {
        let (x, y) = stick.movement;
        let m = (x * x + y * y).sqrt().min(1.0);
        let direction = if m > 1e-9 { y.atan2(x) } else { heading };
        let facing = match stick.facing {
            Some((fx, fy)) if fx * fx + fy * fy > 0.25 => fy.atan2(fx),
            _ => direction,
        };
        let (speed, gait) = if m < self.dead_zone {
            (0.0, Gait::Stand)
        } else if stick.run {
            (self.run, Gait::Run)
        } else {
            let s = (m - self.dead_zone) / (1.0 - self.dead_zone);
            (self.walk.0 + s * (self.walk.1 - self.walk.0), Gait::Walk)
        };
        Command {
            direction,
            facing,
            speed,
            gait,
        }
    }
}

/// Half-lives of the intent springs (s).
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct Smoothing {
    pub velocity: f64,
    pub facing: f64,
}

impl Default for Smoothing {
    fn default() -> Self {
        Self {
            velocity: 0.2,
            facing: 0.15,
        }
    }
}

/// The smoothed intent: a desired ground velocity and facing that follow the command by
/// springs, and the trajectory they predict.
#[derive(Clone, Debug)]
pub struct Intent {
    pub speeds: SpeedRange,
    pub smoothing: Smoothing,
    /// Desired ground velocity (x, z), its rate of change.
    velocity: [f64; 2],
    acceleration: [f64; 2],
    /// Desired facing (unwrapped yaw) and its rate.
    facing: f64,
    facing_rate: f64,
    /// The latest raw command.
    pub command: Command,
}

/// Where the desired trajectory is sampled (s ahead).
pub const HORIZON: [f64; 3] = [1.0 / 3.0, 2.0 / 3.0, 1.0];

impl Intent {
    /// At rest, facing `heading`.
    pub fn new(heading: f64) -> Self {
        Self {
            speeds: SpeedRange::default(),
            smoothing: Smoothing::default(),
            velocity: [0.0; 2],
            acceleration: [0.0; 2],
            facing: heading,
            facing_rate: 0.0,
            command: Command {
                direction: heading,
                facing: heading,
                speed: 0.0,
                gait: Gait::Stand,
            },
        }
    }

    /// The same, asking for `speeds` ([`SpeedRange::of_graph`]).
    pub fn with_speeds(mut self, speeds: SpeedRange) -> Self {
        self.speeds = speeds;
        self
    }

    /// The goal velocity of a command.
    fn goal(c: &Command) -> [f64; 2] {
        let dir = PlanarMotion {
            x: 0.0,
            z: 0.0,
            yaw: c.direction,
        }
        .rotate_vec3([c.speed, 0.0, 0.0]);
        [dir[0], dir[2]]
    }

    /// The springs settled at `stick`'s command, as if it had been held for long (a trial that
    /// starts in the middle of a gait).
    pub fn settle(&mut self, stick: &Stick) {
        self.command = self.speeds.command(stick, self.facing);
        self.velocity = Self::goal(&self.command);
        self.acceleration = [0.0; 2];
        self.facing = self.command.facing;
        self.facing_rate = 0.0;
    }

    /// Advances the springs by `dt` towards the stick's command.
    pub fn update(&mut self, stick: &Stick, dt: f64) {
        self.command = self.speeds.command(stick, self.facing);
        let goal = Self::goal(&self.command);
        for k in 0..2 {
            let (mut p, mut v, mut a) = (0.0, self.velocity[k], self.acceleration[k]);
            follow_velocity(&mut p, &mut v, &mut a, goal[k], self.smoothing.velocity, dt);
            self.velocity[k] = v;
            self.acceleration[k] = a;
        }
        let target = self.facing + wrap_angle(self.command.facing - self.facing);
        towards(
            &mut self.facing,
            &mut self.facing_rate,
            target,
            self.smoothing.facing,
            dt,
        );
    }

    /// The desired ground velocity (x, z).
    pub fn velocity(&self) -> [f64; 2] {
        self.velocity
    }

    /// The desired facing yaw (unwrapped).
    pub fn facing(&self) -> f64 {
        self.facing
    }

    /// The desired trajectory from `from` (a heading frame in the world): positions and facings
    /// at each [`HORIZON`] time, from the springs run forward with the command held.
    pub fn predict(&self, from: &PlanarMotion) -> [PlanarMotion; 3] {
        let goal = Self::goal(&self.command);
        let target = self.facing + wrap_angle(self.command.facing - self.facing);
        let mut out = [PlanarMotion::IDENTITY; 3];
        let mut t0 = 0.0;
        let (mut pos, mut vel, mut acc) = ([from.x, from.z], self.velocity, self.acceleration);
        let (mut yaw, mut rate) = (self.facing, self.facing_rate);
        for (k, &t) in HORIZON.iter().enumerate() {
            let dt = t - t0;
            for c in 0..2 {
                follow_velocity(
                    &mut pos[c],
                    &mut vel[c],
                    &mut acc[c],
                    goal[c],
                    self.smoothing.velocity,
                    dt,
                );
            }
            towards(&mut yaw, &mut rate, target, self.smoothing.facing, dt);
            out[k] = PlanarMotion {
                x: pos[0],
                z: pos[1],
                yaw,
            };
            t0 = t;
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The stick asks for the speeds the graph's gaits cover: the shipped graph's walks
    /// 0.6–1.4 m/s and run 2.6 m/s; the same graph with its runs at 2.0 m/s asks for 2.0.
    #[test]
    fn the_stick_asks_for_the_graphs_speeds() {
        let path =
            std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("assets/graphs/human3d.ron");
        let mut graph: crate::motion_graph::MotionGraph = crate::files::read_ron(&path).unwrap();
        let shipped = SpeedRange::of_graph(&graph);
        assert_eq!((shipped.walk, shipped.run), ((0.6, 1.4), 2.6));
        let mut runs = 0;
        for c in graph.clips.iter_mut().filter(|c| c.family == "run") {
            c.speed = 2.0;
            runs += 1;
        }
        assert!(runs > 0);
        let slower = SpeedRange::of_graph(&graph);
        assert_eq!((slower.walk, slower.run), ((0.6, 1.4), 2.0));
        let run = slower.command(
            &Stick {
                movement: (1.0, 0.0),
                facing: None,
                run: true,
            },
            0.0,
        );
        assert_eq!((run.speed, run.gait), (2.0, Gait::Run));
        graph
            .clips
            .retain(|c| c.family != "walk" && c.family != "run");
        assert_eq!(SpeedRange::of_graph(&graph), SpeedRange::default());
    }

    /// A walk's stick asks for that walk's speed, across the walking range.
    #[test]
    fn the_walk_stick_asks_for_its_speed() {
        let s = SpeedRange::default();
        for v in [0.6, 0.8, 1.0, 1.4] {
            let stick = Stick {
                movement: (s.walk_stick(v), 0.0),
                facing: None,
                run: false,
            };
            let c = s.command(&stick, 0.0);
            assert_eq!(c.gait, Gait::Walk, "{v}");
            assert!((c.speed - v).abs() < 1e-4, "{v}: asks for {}", c.speed);
        }
    }

    #[test]
    fn the_stick_maps_to_directions_speeds_and_gaits() {
        let s = SpeedRange::default();
        let north = s.command(
            &Stick {
                movement: (0.0, 1.0),
                ..Default::default()
            },
            0.0,
        );
        assert!((north.direction - std::f64::consts::FRAC_PI_2).abs() < 1e-12);
        assert_eq!((north.speed, north.gait), (1.4, Gait::Walk));
        let run_east = s.command(
            &Stick {
                movement: (1.0, 0.0),
                run: true,
                ..Default::default()
            },
            1.0,
        );
        assert_eq!(
            (run_east.direction, run_east.speed, run_east.gait),
            (0.0, 2.6, Gait::Run)
        );
        let idle = s.command(&Stick::default(), 0.7);
        assert_eq!(
            (idle.speed, idle.gait, idle.direction),
            (0.0, Gait::Stand, 0.7)
        );
        // North is −z in the world.
        let v = Intent::goal(&north);
        assert!(v[0].abs() < 1e-12 && (v[1] + 1.4).abs() < 1e-12);
    }

    /// The smoothed velocity reaches the command and the prediction runs ahead along it.
    #[test]
    fn the_intent_follows_the_stick_and_predicts_ahead() {
        let mut intent = Intent::new(0.0);
        let stick = Stick {
            movement: (0.0, 1.0),
            ..Default::default()
        };
        for _ in 0..120 {
            intent.update(&stick, 1.0 / 60.0);
        }
        let v = intent.velocity();
        assert!(v[0].abs() < 0.01 && (v[1] + 1.4).abs() < 0.01, "{v:?}");
        assert!((intent.facing() - std::f64::consts::FRAC_PI_2).abs() < 0.01);
        let path = intent.predict(&PlanarMotion::IDENTITY);
        assert!(
            (path[2].z + 1.4).abs() < 0.02 && path[2].x.abs() < 0.01,
            "{path:?}"
        );
    }
}
