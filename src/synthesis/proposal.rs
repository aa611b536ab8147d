//! Choosing the next template (Wampler 2012, thesis §5.2.1, Eqs. 5.4–5.9 and fig. 5.2's first
//! step): weighing templates by the surrogates (their initialisation's quality q, the graph's
//! predicted cost with it and P̃) where the exploration function points, or drawing one
//! uniformly (the thesis's baseline, fig. 5.6).

use super::graph::{self, Creature};
use super::surrogate::{self, Template};
use super::{Synthesis, TaskKind};
use crate::spacetime::gait::{Connection, GaitClip};
use anyhow::{Context, Result};
use rand::{Rng, SeedableRng};

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

impl Synthesis {
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

    /// The strafes weighed first on a facing task: the largest angle and about half of it, both
    /// ways (none on other tasks).
    fn spread_of_strafes(&self) -> Vec<Template> {
        // Evenly spaced and symmetric: the ends, and a quarter of the way in from each.
        let strafes = self.task.strafes();
        let n = strafes.len();
        let mut spread: Vec<Template> = Vec::new();
        for i in [0, n.saturating_sub(1), n / 4, n.saturating_sub(1 + n / 4)] {
            if let Some(t) = strafes.get(i).filter(|t| !spread.contains(t)) {
                spread.push(*t);
            }
        }
        spread
    }

    /// The cycles turns may leave: every cycle of the graph for a gait task (a run turns while
    /// running), the base alone otherwise.
    fn turning_cycles(&self) -> usize {
        match self.task.task {
            TaskKind::DirectionGait => self.cycles().len(),
            _ => 1,
        }
    }

    /// The turns weighed from the graph's other cycles ([`Self::turning_cycles`]): the task's
    /// turns (every start frame, every 2°) from each.
    fn turns_from_other_cycles(&self) -> Vec<Template> {
        let base: Vec<Template> = self
            .task
            .candidates()
            .into_iter()
            .filter(|t| matches!(t, Template::Turn { .. }))
            .collect();
        (1..self.turning_cycles())
            .flat_map(|cycle| {
                base.iter().map(move |t| match *t {
                    Template::Turn { start, theta, .. } => Template::Turn {
                        start,
                        theta,
                        cycle,
                    },
                    other => other,
                })
            })
            .collect()
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
            let strafing = !self.task.strafes().is_empty();
            let gaits = !self.task.gait_cycles().is_empty();
            // With a speed, a cycle or a turn as likely; the cycle's speed drawn in the range.
            // With a facing, a strafe or a turn as likely; the strafe angle drawn in the range.
            // With a gait, a cycle in another gait or a turn as likely; the gait drawn, then
            // the speed in its range.
            let sigma = if !cycles.is_empty() && rng.random_bool(0.5) {
                let speeds = cycles.iter().filter_map(Template::cycle_speed);
                let lo = speeds.clone().fold(f64::INFINITY, f64::min);
                let hi = speeds.fold(f64::NEG_INFINITY, f64::max);
                Template::Cycle {
                    speed: rng.random_range(lo..=hi),
                    strafe: 0.0,
                    gait: 0,
                }
            } else if strafing && rng.random_bool(0.5) {
                let max = self.task.max_strafe_deg.clamp(0.0, 180.0).to_radians();
                Template::Cycle {
                    speed: self.task.speed,
                    strafe: rng.random_range(-max..=max),
                    gait: 0,
                }
            } else if gaits && rng.random_bool(0.5) {
                let k = rng.random_range(0..self.task.gaits.len());
                let (a, b) = self.task.gaits[k].speeds;
                Template::Cycle {
                    speed: rng.random_range(a.min(b)..=a.max(b)),
                    strafe: 0.0,
                    gait: k + 1,
                }
            } else {
                let start = rng.random_range(0..starts);
                let theta = rng.random_range(-max..=max);
                // A gait task's turns leave any of its cycles (the draw only there, so other
                // tasks draw as they did).
                let cycle = match self.turning_cycles() {
                    1 => 0,
                    n => rng.random_range(0..n),
                };
                Template::Turn {
                    start,
                    theta,
                    cycle,
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
            let candidates: Vec<Template> = self
                .task
                .candidates()
                .into_iter()
                .chain(self.turns_from_other_cycles())
                .filter(fresh)
                .collect();
            let mut weighed: Vec<(Template, f64)> = Vec::new();
            let mut best: Option<(Template, f64, f64, f64)> = None;
            // A spread of turns from every start (and the slowest and fastest cycles) first,
            // then where the exploration function points.
            let cycles = self.task.cycle_speeds();
            // Each other gait's slowest and fastest cycle.
            let gait_ends: Vec<Template> = (1..=self.task.gaits.len())
                .flat_map(|k| {
                    let of_gait: Vec<Template> = self
                        .task
                        .gait_cycles()
                        .into_iter()
                        .filter(|t| t.gait() == k)
                        .collect();
                    let mut ends: Vec<Template> = of_gait.first().copied().into_iter().collect();
                    ends.extend(of_gait.last().copied().filter(|_| of_gait.len() > 1));
                    ends
                })
                .collect();
            // Each other cycle's turns, where a gait task turns them: a mild and a sharp one
            // each way from its first start frame.
            let other_turns: Vec<Template> = (1..self.turning_cycles())
                .flat_map(|cycle| {
                    [-0.25, 0.25, -0.75, 0.75].map(|s| Template::Turn {
                        start: 0,
                        theta: s * max,
                        cycle,
                    })
                })
                .collect();
            let spread: Vec<Template> = (0..starts)
                .flat_map(|start| {
                    [-0.75, -0.25, 0.25, 0.75].map(|s| Template::Turn {
                        start,
                        theta: s * max,
                        cycle: 0,
                    })
                })
                .chain(cycles.first().copied())
                .chain(cycles.last().copied().filter(|_| cycles.len() > 1))
                .chain(self.spread_of_strafes())
                .chain(gait_ends)
                .chain(other_turns)
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
                // A template P̃ rates sure to fail (a past failure from an initialisation no
                // better) is not solved again: the solve is deterministic.
                if p > 0.0 && best.is_none_or(|b| c < b.3) {
                    best = Some((sigma, q, p, c));
                }
            }
            let (sigma, q, p, c) = best.context(
                "every template weighed failed before from as good an initialisation: nothing left to solve",
            )?;
            (sigma, q, p, c, weighed)
        };
        let start = match sigma {
            Template::Cycle {
                speed,
                strafe,
                gait,
            } => Some(self.cycle_start(creature, speed, strafe, gait)?.0),
            Template::Turn {
                start,
                theta,
                cycle,
            } => Some(self.turn_start_from(creature, cycle, start, theta)?.0),
        };
        let (connection, name) = match sigma {
            Template::Turn {
                start,
                theta,
                cycle,
            } => {
                let connection = self.connection_from(&skeleton, cycle, start, theta)?;
                let side = if theta >= 0.0 { "left" } else { "right" };
                // A turn in another cycle than the base names it.
                let of = match cycle {
                    0 => String::new(),
                    k => format!("_of_{}", self.cycle_name(k)?),
                };
                let name = format!(
                    "turn_{iteration:02}_{side}_{:03.0}_from_{}{of}",
                    theta.to_degrees().abs(),
                    connection.from_frame
                );
                (Some(connection), name)
            }
            Template::Cycle { speed, strafe, .. } if strafe != 0.0 => (
                None,
                format!(
                    "cycle_{iteration:02}_{speed:.2}ms_strafe_{:+04.0}",
                    strafe.to_degrees()
                ),
            ),
            Template::Cycle {
                speed, gait: 1.., ..
            } => (
                None,
                format!("cycle_{iteration:02}_{speed:.2}ms_gait_{}", sigma.gait()),
            ),
            Template::Cycle { speed, .. } => (None, format!("cycle_{iteration:02}_{speed:.2}ms")),
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
}
