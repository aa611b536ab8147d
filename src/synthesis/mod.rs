//! Controllers that build themselves (Wampler 2012, thesis ch. 5 and App. C): from a creature
//! and one solved cycle, grow a motion graph one physically valid clip at a time, each time
//! adding the clip that lowers the expected cost of the graph's optimal controller most, and
//! steer it by the value-function policy ([`crate::steering::mdp`]).
//!
//! Each iteration (thesis fig. 5.2):
//! 1. **Weigh templates.** For parameters σ of the template, build its initialisation M̃ (the
//!    clips it joins, blended: [`crate::spacetime::gait::connecting_start`]), measure its
//!    quality q (Eq. 5.3) and the graph's expected cost with it, cost̃(G ∪ M̃), and the chance
//!    P̃ that its solve succeeds ([`surrogate::success_probability`]); the predicted cost is
//!    c = (1 − P̃)·cost(G) + P̃·cost̃ (Eq. 5.4). The σ weighed are chosen by the exploration
//!    function ([`surrogate::next_to_weigh`]).
//! 2. **Solve** the best σ once with the gait NLP, the first two and last two frames fixed to
//!    the graph's (App. C); a valid clip (violation ≤ 1e-6) joins the graph, a failure teaches P̃.
//! 3. **Measure** cost(G) (Eq. 5.2) by samples advected by the policy.
//!
//! With `uniform`, σ is drawn uniformly instead of weighed: the thesis's baseline (fig. 5.6).
//!
//! The templates ([`surrogate::Template`]):
//! - S₁, the transition with a turn θ: from one of the base cycle's frames f_a (the task's start
//!   frames, one per step) back into the cycle `frames − 1` frames later, arriving turned by θ
//!   (the thesis's direction controller searches θ alone; starts at every step let turns chain
//!   and answer sooner). Its initialisation is the best blend of a path of the graph leaving f_a
//!   and one arriving at f_b, placed by the turn ([`transition_search`]): a turn near one solved
//!   before starts from it.
//! - S₂, a new straight cycle at speed v with a connection from the base into it and one back
//!   ([`cycle`]), for tasks that ask for a speed too. Its initialisation is searched among the
//!   graph's loops ([`cycle_search`]). Its solve is three: the cycle (started from that
//!   initialisation), then the two connections to the cycle as solved. Strafing cycles and other
//!   gaits (the thesis's S₂ has them) are not built; turns leave from the base cycle only.

pub mod cycle;
pub mod cycle_search;
pub mod graph;
pub mod job;
pub mod surrogate;
pub mod transition_search;

use crate::spacetime::gait::{Connection, GaitClip, connecting_start};
use crate::spacetime::skeleton::Skeleton;
use crate::steering::mdp::{MdpSettings, UserModel};
use anyhow::{Context, Result};
use graph::{Creature, GrownClip, Measure};
use rand::{Rng, SeedableRng};
use serde::{Deserialize, Serialize};
use std::path::PathBuf;
use surrogate::{Template, Trial};

/// A controller to synthesize (`assets/controllers/*.ron`): the task, the base cycle and the
/// template's range.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ControllerTask {
    /// What the user asks for: a direction θ_v, or a direction and a speed.
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
    /// Frames of a transition, both ends' pairs included (31: one stride of a 30-frame cycle;
    /// the simple biped's half-stride turns, ending as a foot lands, did not converge even at 2°,
    /// where its one-stride turn solved in 14 s to the walk's own cost).
    #[serde(default = "default_frames")]
    pub frames: usize,
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
}

fn default_speed() -> f64 {
    0.7
}
fn default_speed_weight() -> f64 {
    1.0
}
fn default_max_turn() -> f64 {
    150.0
}
fn default_frames() -> usize {
    31
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
            TaskKind::Direction => Vec::new(),
            TaskKind::DirectionSpeed => self.speeds.clone(),
        };
        Measure {
            mdp: MdpSettings {
                user,
                speeds,
                speed_weight: self.speed_weight,
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
    /// own left out).
    pub fn candidates(&self) -> Vec<Template> {
        let max = self.max_turn_deg.clamp(2.0, 180.0) as i64;
        let turns = (0..self.from_frames.len().max(1)).flat_map(|start| {
            (-max / 2..=max / 2)
                .filter(|&k| k != 0)
                .map(move |k| Template::Turn {
                    start,
                    theta: ((2 * k) as f64).to_radians(),
                })
        });
        turns.chain(self.cycle_speeds()).collect()
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
            })
            .collect()
    }
}

/// One iteration's record.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Iteration {
    pub iteration: usize,
    /// Clips in the graph after it (the base included).
    pub clips: usize,
    /// cost(G) after it (rad per frame, with the weighted effort).
    pub expected_cost: f64,
    /// The template solved: its parameters, the initialisation's quality q and P̃; none for
    /// iteration 0 (the base alone).
    pub sigma: Option<Template>,
    pub quality: f64,
    pub probability: f64,
    /// The predicted cost c (Eq. 5.4) of the template chosen (NaN with `uniform`).
    pub predicted: f64,
    pub solved: bool,
    /// How the solve ended, its largest violation and its seconds.
    pub status: String,
    pub max_violation: f64,
    pub solve_time_s: f64,
    /// The templates weighed: (σ, c).
    pub weighed: Vec<(Template, f64)>,
}

impl Iteration {
    /// The template's name ([`Template::label`]).
    pub fn template(&self) -> String {
        self.sigma.map_or_else(|| "base".into(), |t| t.label())
    }
}

/// A synthesis in progress: what the checkpoint holds.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Synthesis {
    pub task: ControllerTask,
    pub uniform: bool,
    pub seed: u64,
    /// The base cycle first, then the transitions solved.
    pub clips: Vec<GrownClip>,
    pub trials: Vec<Trial>,
    pub history: Vec<Iteration>,
}

/// The template chosen for the next solve.
#[derive(Clone, Debug)]
pub struct Proposal {
    pub sigma: Template,
    pub quality: f64,
    pub probability: f64,
    pub predicted: f64,
    pub weighed: Vec<(Template, f64)>,
    /// An S₁ template's connection (an S₂'s are known once its cycle has solved:
    /// [`Synthesis::cycle_connections`]).
    pub connection: Option<Connection>,
    /// The initialisation its first solve starts from, searched inside the graph: a turn's
    /// ([`Synthesis::turn_start`]) or an S₂ template's cycle ([`Synthesis::cycle_start`]).
    pub start: Option<GaitClip>,
    /// The name its clip gets (an S₂'s connections add `_in` and `_out`).
    pub name: String,
}

/// The base clip's name in the graph.
pub const BASE: &str = "base";

impl Synthesis {
    /// A synthesis from the base cycle (measured as iteration 0).
    pub fn new(
        task: ControllerTask,
        uniform: bool,
        seed: u64,
        base: GaitClip,
        creature: &Creature,
    ) -> Result<Self> {
        anyhow::ensure!(
            !base.closure.is_treadmill() && base.closure.is_cyclic(),
            "the base must be a cycle off the treadmill (`motionlab gait --turn-rate 0`)"
        );
        let mut s = Self {
            task,
            uniform,
            seed,
            clips: vec![GrownClip {
                name: BASE.into(),
                gait: base,
                joins: None,
                sigma: None,
            }],
            trials: Vec::new(),
            history: Vec::new(),
        };
        let m = graph::measure(creature, &s.clips, &[], None, &s.task.measure())?;
        s.history.push(Iteration {
            iteration: 0,
            clips: 1,
            expected_cost: m.cost,
            sigma: None,
            quality: 0.0,
            probability: 1.0,
            predicted: f64::NAN,
            solved: true,
            status: s.clips[0].gait.status.clone(),
            max_violation: s.clips[0].gait.max_violation,
            solve_time_s: s.clips[0].gait.solve_time_s,
            weighed: Vec::new(),
        });
        Ok(s)
    }

    /// Iterations done (the base's not counted).
    pub fn iterations(&self) -> usize {
        self.history.len().saturating_sub(1)
    }

    /// cost(G) now.
    pub fn cost(&self) -> f64 {
        self.history.last().map_or(f64::NAN, |h| h.expected_cost)
    }

    fn base(&self) -> &GaitClip {
        &self.clips[0].gait
    }

    /// The weighted biomechanical cost per frame of a template σ, interpolated from the solved
    /// templates' with weights d(σ, σⱼ)⁻² ([`graph`]'s docs say why not from the frames); `None`
    /// before any has solved.
    pub fn effort_estimate(&self, sigma: &Template) -> Option<f64> {
        let base = self.base().cost;
        let near: Vec<(f64, f64)> = self
            .clips
            .iter()
            .filter_map(|c| {
                let s = c.sigma?;
                // Only templates of the same kind tell: a cycle's effort is not a turn's.
                if std::mem::discriminant(&s) != std::mem::discriminant(sigma) {
                    return None;
                }
                let d = surrogate::distance_squared(sigma, &s).sqrt();
                Some((
                    d,
                    graph::effort(self.task.effort_weight, c.gait.cost / base),
                ))
            })
            .collect();
        (!near.is_empty()).then(|| graph::idw(&near))
    }

    /// The transition turning by θ from start σ.start: the walk's own continuation (the cycle
    /// played on from f_a, whose last two frames are the cycle's), turned by θ about the foot
    /// that is down across the connection's middle, so that foot stays put (about the root
    /// when none is). At θ = 0 it is the walk itself. (Placing the end by the mean speed's arc
    /// instead, as connections between gaits are, ignored the stride's sway and yaw: the 0°
    /// turn then cost 30 times the walk, and every solved turn 30–10,000 times.)
    pub fn connection(&self, skeleton: &Skeleton, start: usize, theta: f64) -> Connection {
        let base = self.base();
        let n = base.frames.len();
        let frames = self.task.frames.max(5);
        let from_frame = self.task.from_frames.get(start).copied().unwrap_or(0) % n;
        let end = (from_frame + frames - 1) as i64;
        let on = base.motion_at(end);
        let heading = skeleton.with_heading_root();
        let mid = from_frame as i64 + (frames / 2) as i64 - 1;
        let q = base.frame_at(mid);
        let pose = crate::spacetime::dynamics::forward_kinematics(
            &heading,
            &heading.morphology::<f64>(),
            &q,
        );
        let planted: Vec<usize> = (0..heading.feet.len())
            .filter(|&k| base.contact_at(mid, k).is_some() && base.contact_at(mid + 1, k).is_some())
            .collect();
        let (px, pz) = if planted.is_empty() {
            (q[3], q[5])
        } else {
            let m = planted.len() as f64;
            planted.iter().fold((0.0, 0.0), |(x, z), &k| {
                let f = pose.foot(&heading, k);
                (x + f.x / m, z + f.z / m)
            })
        };
        let about = |x: f64, z: f64| crate::spacetime::gait::PlanarMotion { x, z, yaw: 0.0 };
        let turn = about(px, pz)
            .compose(&crate::spacetime::gait::PlanarMotion {
                x: 0.0,
                z: 0.0,
                yaw: theta,
            })
            .compose(&about(-px, -pz));
        Connection {
            from_frame,
            to_frame: end.rem_euclid(n as i64) as usize,
            frames,
            duration: base.frame_time() * (frames - 1) as f64,
            placement: Some(turn.compose(&on)),
            swings: Vec::new(),
            pivots: Vec::new(),
        }
    }

    /// The initialisation of a new straight cycle at `speed` searched inside the graph
    /// ([`cycle_search`]): of every loop up to 1.5 s whose feet step as the base's, warped to the
    /// base's timing and moved onto a straight path at `speed`, the one of best quality q
    /// (Eq. 5.3), with the loop's label.
    pub fn cycle_start(&self, creature: &Creature, speed: f64) -> Result<(GaitClip, String)> {
        let skeleton = creature.skeleton()?.with_heading_root();
        let mut best: Option<(f64, GaitClip, String)> = None;
        for source in cycle_search::loops(&self.clips, cycle_search::MAX_LOOP_SECONDS) {
            let Some(start) = cycle_search::initialisation(&skeleton, self.base(), &source, speed)
            else {
                continue;
            };
            let probe = GrownClip {
                name: "candidate".into(),
                gait: start,
                joins: None,
                sigma: None,
            };
            let q = graph::quality(creature, &self.clips, std::slice::from_ref(&probe))?;
            if best.as_ref().is_none_or(|b| q < b.0) {
                best = Some((q, probe.gait, source.label));
            }
        }
        best.map(|(_, g, label)| (g, label))
            .context("no loop of the graph steps as the base cycle does")
    }

    /// The initialisation of turn θ from start `start` searched inside the graph
    /// ([`transition_search`]): of every pair of a path leaving f_a and a path arriving at f_b,
    /// blended and placed where the turn ends, the one of best quality q (Eq. 5.3), with the
    /// pair's label. With the base alone it is the walk's own continuation turned.
    pub fn turn_start(
        &self,
        creature: &Creature,
        start: usize,
        theta: f64,
    ) -> Result<(GaitClip, String)> {
        let skeleton = creature.skeleton()?;
        let c = self.connection(&skeleton, start, theta);
        transition_search::best(creature, &self.clips, BASE, &c)
    }

    /// The initialisation M̃ of template σ, as clips of the graph: a turn's transition (searched
    /// inside the graph: [`Self::turn_start`]), or a cycle ([`Self::cycle_start`]) and its two
    /// connections.
    pub fn candidate(&self, creature: &Creature, sigma: &Template) -> Result<Vec<GrownClip>> {
        let skeleton = creature.skeleton()?;
        let skeleton = &skeleton;
        match *sigma {
            Template::Turn { start, theta } => {
                let c = self.connection(skeleton, start, theta);
                let (gait, _) = self.turn_start(creature, start, theta)?;
                Ok(vec![GrownClip {
                    sigma: Some(*sigma),
                    ..GrownClip::transition("candidate", gait, BASE, BASE, &c)
                }])
            }
            Template::Cycle { speed } => {
                let (cycle, _) = self.cycle_start(creature, speed)?;
                let clips = self.cycle_clips("candidate", skeleton, &cycle, |c| {
                    let (a, b) = if c.0 {
                        (self.base(), &cycle)
                    } else {
                        (&cycle, self.base())
                    };
                    blended(skeleton, a, b, c.1)
                })?;
                Ok(clips
                    .into_iter()
                    .map(|mut g| {
                        g.sigma = g.joins.is_none().then_some(*sigma);
                        g
                    })
                    .collect())
            }
        }
    }

    /// The connections of a new cycle: from the base's first start frame into it, and from the
    /// cycle's back into the base (see [`cycle::connections`]).
    pub fn cycle_connections(&self, skeleton: &Skeleton, cycle: &GaitClip) -> [Connection; 2] {
        cycle::connections(
            skeleton,
            self.base(),
            cycle,
            self.task.from_frames.first().copied().unwrap_or(0),
            self.task.frames.max(5),
        )
    }

    /// A new cycle named `name` and its connections `name_in` and `name_out` as graph clips,
    /// each connection's gait given by `gait` ((into the cycle?, the connection)).
    fn cycle_clips(
        &self,
        name: &str,
        skeleton: &Skeleton,
        cycle: &GaitClip,
        mut gait: impl FnMut((bool, &Connection)) -> Result<GaitClip>,
    ) -> Result<Vec<GrownClip>> {
        let [into, back] = self.cycle_connections(skeleton, cycle);
        Ok(vec![
            GrownClip {
                name: name.to_string(),
                gait: cycle.clone(),
                joins: None,
                sigma: None,
            },
            GrownClip::transition(
                format!("{name}_in"),
                gait((true, &into))?,
                BASE,
                name,
                &into,
            ),
            GrownClip::transition(
                format!("{name}_out"),
                gait((false, &back))?,
                name,
                BASE,
                &back,
            ),
        ])
    }

    /// Weighs one template: (q, P̃, c).
    fn weigh(&self, creature: &Creature, sigma: &Template) -> Result<(f64, f64, f64)> {
        let candidate = self.candidate(creature, sigma)?;
        let m = graph::measure(
            creature,
            &self.clips,
            &candidate,
            self.effort_estimate(sigma),
            &self.task.measure(),
        )?;
        let q = m.quality.unwrap_or(0.0);
        let p = surrogate::success_probability(sigma, q, &self.trials);
        Ok((q, p, (1.0 - p) * self.cost() + p * m.cost))
    }

    /// The next template to solve: weighed by the surrogates, or drawn uniformly.
    pub fn propose(&self, creature: &Creature) -> Result<Proposal> {
        let skeleton = creature.skeleton()?;
        let iteration = self.iterations() + 1;
        let max = self.task.max_turn_deg.clamp(2.0, 180.0).to_radians();
        let starts = self.task.from_frames.len().max(1);
        let (sigma, quality, probability, predicted, weighed) = if self.uniform {
            let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(
                self.seed.wrapping_mul(1_000_003) + iteration as u64,
            );
            let cycles = self.task.cycle_speeds();
            // With a speed, a cycle or a turn as likely; the cycle's speed drawn in the range.
            let sigma = if !cycles.is_empty() && rng.random_bool(0.5) {
                let speeds = cycles.iter().filter_map(Template::cycle_speed);
                let lo = speeds.clone().fold(f64::INFINITY, f64::min);
                let hi = speeds.fold(f64::NEG_INFINITY, f64::max);
                Template::Cycle {
                    speed: rng.random_range(lo..=hi),
                }
            } else {
                Template::Turn {
                    start: rng.random_range(0..starts),
                    theta: rng.random_range(-max..=max),
                }
            };
            let (q, p, _) = self.weigh(creature, &sigma)?;
            (sigma, q, p, f64::NAN, Vec::new())
        } else {
            // A template solved before adds nothing new.
            let fresh = |t: &Template| {
                self.clips
                    .iter()
                    .filter_map(|c| c.sigma)
                    .all(|s| surrogate::distance_squared(t, &s) > 1e-12)
            };
            let candidates: Vec<Template> =
                self.task.candidates().into_iter().filter(fresh).collect();
            let mut weighed: Vec<(Template, f64)> = Vec::new();
            let mut best: Option<(Template, f64, f64, f64)> = None;
            // A spread of turns from every start (and the slowest and fastest cycles) first,
            // then where the exploration function points.
            let cycles = self.task.cycle_speeds();
            let spread: Vec<Template> = (0..starts)
                .flat_map(|start| {
                    [-0.75, -0.25, 0.25, 0.75].map(|s| Template::Turn {
                        start,
                        theta: s * max,
                    })
                })
                .chain(cycles.first().copied())
                .chain(cycles.last().copied().filter(|_| cycles.len() > 1))
                .collect();
            for k in 0..self.task.weighed.max(spread.len()) {
                let sigma = match spread.get(k) {
                    Some(t) if !fresh(t) => continue,
                    Some(&t) => t,
                    None => match surrogate::next_to_weigh(&weighed, &candidates) {
                        Some(t) => t,
                        None => break,
                    },
                };
                let (q, p, c) = self.weigh(creature, &sigma)?;
                weighed.push((sigma, c));
                if best.is_none_or(|b| c < b.3) {
                    best = Some((sigma, q, p, c));
                }
            }
            let (sigma, q, p, c) = best.context("no template to weigh")?;
            (sigma, q, p, c, weighed)
        };
        let start = match sigma {
            Template::Cycle { speed } => Some(self.cycle_start(creature, speed)?.0),
            Template::Turn { start, theta } => Some(self.turn_start(creature, start, theta)?.0),
        };
        let (connection, name) = match sigma {
            Template::Turn { start, theta } => {
                let connection = self.connection(&skeleton, start, theta);
                let side = if theta >= 0.0 { "left" } else { "right" };
                let name = format!(
                    "turn_{iteration:02}_{side}_{:03.0}_from_{}",
                    theta.to_degrees().abs(),
                    connection.from_frame
                );
                (Some(connection), name)
            }
            Template::Cycle { speed } => (None, format!("cycle_{iteration:02}_{speed:.2}ms")),
        };
        Ok(Proposal {
            sigma,
            quality,
            probability,
            predicted,
            weighed,
            name,
            connection,
            start,
        })
    }

    /// Records the solves of `proposal` (a turn's connection; a cycle, then its connection in
    /// and its connection out, as far as they got): a template whose clips are all valid joins
    /// the graph; either way the outcome teaches P̃ and cost(G) is measured again.
    pub fn record(
        &mut self,
        creature: &Creature,
        proposal: &Proposal,
        solved: std::result::Result<Vec<GaitClip>, String>,
    ) -> Result<&Iteration> {
        let expected = match proposal.sigma {
            Template::Turn { .. } => 1,
            Template::Cycle { .. } => 3,
        };
        let (valid, status, violation, time) = match &solved {
            Ok(clips) => {
                let worst = clips
                    .iter()
                    .find(|g| !g.is_valid())
                    .or(clips.last())
                    .context("no clip solved")?;
                (
                    clips.len() == expected && clips.iter().all(GaitClip::is_valid),
                    worst.status.clone(),
                    clips.iter().map(|g| g.max_violation).fold(0.0, f64::max),
                    clips.iter().map(|g| g.solve_time_s).sum(),
                )
            }
            Err(e) => (false, e.clone(), f64::INFINITY, 0.0),
        };
        self.trials.push(Trial {
            sigma: proposal.sigma,
            quality: proposal.quality,
            success: valid,
        });
        if valid {
            let mut clips = solved.expect("valid").into_iter();
            match (proposal.sigma, &proposal.connection) {
                (Template::Turn { .. }, Some(c)) => {
                    let gait = clips.next().expect("one clip");
                    self.clips.push(GrownClip {
                        sigma: Some(proposal.sigma),
                        ..GrownClip::transition(&proposal.name, gait, BASE, BASE, c)
                    });
                }
                _ => {
                    let cycle = clips.next().expect("the cycle");
                    let skeleton = creature.skeleton()?;
                    let mut connections = clips;
                    let mut grown = self.cycle_clips(&proposal.name, &skeleton, &cycle, |_| {
                        Ok(connections.next().expect("a connection"))
                    })?;
                    grown[0].sigma = Some(proposal.sigma);
                    self.clips.extend(grown);
                }
            }
        }
        let cost = if valid {
            graph::measure(creature, &self.clips, &[], None, &self.task.measure())?.cost
        } else {
            self.cost()
        };
        self.history.push(Iteration {
            iteration: self.iterations() + 1,
            clips: self.clips.len(),
            expected_cost: cost,
            sigma: Some(proposal.sigma),
            quality: proposal.quality,
            probability: proposal.probability,
            predicted: proposal.predicted,
            solved: valid,
            status,
            max_violation: violation,
            solve_time_s: time,
            weighed: proposal.weighed.clone(),
        });
        Ok(self.history.last().expect("pushed"))
    }
}

/// A connection's blended start M̃ with its two end pairs at the graph's frames (the solve holds
/// them there; the blend only nears them).
pub(super) fn blended(
    skeleton: &Skeleton,
    a: &GaitClip,
    b: &GaitClip,
    c: &Connection,
) -> Result<GaitClip> {
    let (spec, mut start) = connecting_start(skeleton, a, b, c)?;
    if let crate::spacetime::gait::Closure::Open(ends) = &spec.closure {
        let n = start.frames.len();
        start.frames[..2].clone_from_slice(&ends.first);
        start.frames[n - 2..].clone_from_slice(&ends.last);
    }
    Ok(start)
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
}
