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
//!    the graph's (App. C); a valid clip (violation ≤ 1e-6, no coordinate faster than
//!    [`MAX_JOINT_SPEED`]) joins the graph, a failure teaches P̃.
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
//! - S₂, a new cycle at speed v, travelling at a strafe angle ϕ off its heading for a task with
//!   a facing, or in another gait (a run's timing) for a task with the gait type, with a
//!   connection from the base into it and one back ([`cycle`]), for tasks that ask for a speed,
//!   a facing or a gait too. Its initialisation is searched among the graph's loops, warped to
//!   its gait's timing ([`cycle_search`]). Its solve is three: the cycle (started from that
//!   initialisation), then the two connections to the cycle as solved. A gait task's turns
//!   leave any cycle of the graph (a run turns while running); other tasks' the base only.

pub mod cycle;
pub mod cycle_search;
pub mod graph;
pub mod job;
mod proposal;
pub mod surrogate;
pub mod task;
pub mod transition_search;

use crate::spacetime::gait::{Connection, GaitClip, connecting_start};
use crate::spacetime::skeleton::Skeleton;
use anyhow::{Context, Result};
use graph::{Creature, GrownClip};
pub use proposal::Proposal;
use serde::{Deserialize, Serialize};
use surrogate::{Template, Trial};
pub use task::{ControllerTask, FACING_BINS, TaskKind, UserRates};

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

/// The base clip's name in the graph.
pub const BASE: &str = "base";

/// The fastest a clip's joint or root orientation may move (rad/s, about 1 rad between frames
/// at 30 Hz) for the clip to join the graph: the solver's constraints hold for a connection
/// that spins a hip through half a turn in a frame (strafes' connections did, up to 86 rad/s in
/// the gait's coordinates, at 7,000 times the walk's effort, which the log of the App. C
/// objective shrinks to a few tenths). The biped's walks move at most 3–9 rad/s, its solved
/// turns up to 18.
pub const MAX_JOINT_SPEED: f64 = 30.0;

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
        if task.task == TaskKind::DirectionGait {
            check_gaits(&task, &base, &creature.skeleton()?)?;
        }
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
        self.connection_in(self.base(), skeleton, start, theta, self.task.frames)
    }

    /// The graph's cycles in the order they joined (the base first).
    pub fn cycles(&self) -> Vec<&GrownClip> {
        self.clips.iter().filter(|c| c.joins.is_none()).collect()
    }

    /// The name of the graph's cycle `k` ([`Template::Turn`]'s `cycle`).
    fn cycle_name(&self, k: usize) -> Result<&str> {
        self.cycles()
            .get(k)
            .map(|c| c.name.as_str())
            .with_context(|| format!("the graph has no cycle {k}"))
    }

    /// [`Self::connection`] in cycle `cycle` of the graph instead of the base: from its frame
    /// f_a back into it, turned by θ.
    pub fn connection_from(
        &self,
        skeleton: &Skeleton,
        cycle: usize,
        start: usize,
        theta: f64,
    ) -> Result<Connection> {
        let name = self.cycle_name(cycle)?;
        let grown = self.clips.iter().find(|c| c.name == name).expect("a cycle");
        // A cycle in another gait turns over that gait's turn frames.
        let frames = match grown.sigma {
            Some(Template::Cycle { gait: g @ 1.., .. }) => self
                .task
                .gaits
                .get(g - 1)
                .and_then(|g| g.turn_frames)
                .unwrap_or(self.task.frames),
            _ => self.task.frames,
        };
        Ok(self.connection_in(&grown.gait, skeleton, start, theta, frames))
    }

    fn connection_in(
        &self,
        base: &GaitClip,
        skeleton: &Skeleton,
        start: usize,
        theta: f64,
        frames: usize,
    ) -> Connection {
        let n = base.frames.len();
        let frames = frames.max(5);
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

    /// The initialisation of a new straight cycle at `speed` in gait `gait` (0: the base's
    /// timing; k: the task's k-th other gait) searched inside the graph ([`cycle_search`]): of
    /// every loop up to 1.5 s whose feet step as the gait's, warped to its timing and moved onto
    /// a straight path at `speed`, the one of best quality q (Eq. 5.3), with the loop's label.
    pub fn cycle_start(
        &self,
        creature: &Creature,
        speed: f64,
        strafe: f64,
        gait: usize,
    ) -> Result<(GaitClip, String)> {
        let skeleton = creature.skeleton()?.with_heading_root();
        let target = match gait {
            0 => self.base().clone(),
            k => {
                let g = self
                    .task
                    .gaits
                    .get(k - 1)
                    .with_context(|| format!("the task has no gait {k}"))?;
                cycle::retimed(&skeleton, self.base(), g)?
            }
        };
        let mut best: Option<(f64, GaitClip, String)> = None;
        for source in cycle_search::loops(&self.clips, cycle_search::MAX_LOOP_SECONDS) {
            let Some(start) =
                cycle_search::initialisation(&skeleton, &target, &source, speed, strafe)
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
            .context("no loop of the graph steps as the new cycle's gait does")
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
        self.turn_start_from(creature, 0, start, theta)
    }

    /// [`Self::turn_start`] in the graph's cycle `cycle` ([`Self::connection_from`]).
    pub fn turn_start_from(
        &self,
        creature: &Creature,
        cycle: usize,
        start: usize,
        theta: f64,
    ) -> Result<(GaitClip, String)> {
        let skeleton = creature.skeleton()?;
        let c = self.connection_from(&skeleton, cycle, start, theta)?;
        transition_search::best(creature, &self.clips, self.cycle_name(cycle)?, &c)
    }

    /// The initialisation M̃ of template σ, as clips of the graph: a turn's transition (searched
    /// inside the graph: [`Self::turn_start`]), or a cycle ([`Self::cycle_start`]) and its two
    /// connections.
    pub fn candidate(&self, creature: &Creature, sigma: &Template) -> Result<Vec<GrownClip>> {
        let skeleton = creature.skeleton()?;
        let skeleton = &skeleton;
        match *sigma {
            Template::Turn {
                start,
                theta,
                cycle,
            } => {
                let c = self.connection_from(skeleton, cycle, start, theta)?;
                let (gait, _) = self.turn_start_from(creature, cycle, start, theta)?;
                let name = self.cycle_name(cycle)?;
                Ok(vec![GrownClip {
                    sigma: Some(*sigma),
                    ..GrownClip::transition("candidate", gait, name, name, &c)
                }])
            }
            Template::Cycle {
                speed,
                strafe,
                gait,
            } => {
                let (cycle, _) = self.cycle_start(creature, speed, strafe, gait)?;
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
    /// cycle's back into the base (see [`cycle::connections`]), `strafe_frames` long when the
    /// cycle strafes, `frames` otherwise.
    pub fn cycle_connections(&self, skeleton: &Skeleton, cycle: &GaitClip) -> [Connection; 2] {
        let frames = if cycle.strafe().abs() > crate::steering::mdp::STRAFING {
            self.task.strafe_frames
        } else {
            self.task.frames
        };
        cycle::connections(
            skeleton,
            self.base(),
            cycle,
            self.task.from_frames.first().copied().unwrap_or(0),
            frames.max(5),
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
                let spins = clips.iter().find_map(|g| {
                    let (name, speed) = g.fastest_coordinate()?;
                    (speed > MAX_JOINT_SPEED).then(|| {
                        format!("implausible: {name} moves at {speed:.0} rad/s (over {MAX_JOINT_SPEED:.0})")
                    })
                });
                (
                    clips.len() == expected
                        && clips.iter().all(GaitClip::is_valid)
                        && spins.is_none(),
                    spins.unwrap_or_else(|| worst.status.clone()),
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
                (Template::Turn { cycle, .. }, Some(c)) => {
                    let gait = clips.next().expect("one clip");
                    let name = self.cycle_name(cycle)?.to_string();
                    self.clips.push(GrownClip {
                        sigma: Some(proposal.sigma),
                        ..GrownClip::transition(&proposal.name, gait, &name, &name, c)
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

/// A gait task's gaits are a walk and runs: the base has no flight phase, and each of the task's
/// gaits (at least one) has one, with a window for every foot of the creature.
fn check_gaits(task: &ControllerTask, base: &GaitClip, skeleton: &Skeleton) -> Result<()> {
    anyhow::ensure!(
        !task.gaits.is_empty(),
        "a DirectionGait task lists at least one gait besides the base's (`gaits: [(period: …, contacts: […], speeds: (…, …))]`)"
    );
    anyhow::ensure!(
        !base.has_flight(),
        "a DirectionGait task grows runs from a walk: its base cycle has a flight phase"
    );
    for (k, g) in task.gaits.iter().enumerate() {
        let spec = crate::spacetime::gait::GaitSpec::new(
            skeleton.clone(),
            base.speed,
            g.period,
            &g.contacts,
        )
        .map_err(|e| anyhow::anyhow!("gait {} of the task: {e}", k + 1))?;
        anyhow::ensure!(
            spec.has_flight(),
            "gait {} of the task has no flight phase: a DirectionGait task asks for walks and runs, and its gaits are the runs",
            k + 1
        );
    }
    Ok(())
}
