//! The surrogates that choose where a controller's graph grows (Wampler 2012, thesis §5.2.2):
//! the distance between template parameters, the probability that a template's solve succeeds
//! (Eqs. 5.5–5.9, with the errata: similarities turned into distances and the logs made
//! positive), and the exploration function that picks the next parameters to weigh.
//!
//! The templates are the transition that turns by θ (S₁), leaving the base cycle at one of a
//! few frames f_a (its parameters the start and the angle), and the new cycle at another speed
//! or strafing at an angle ϕ, with its two connections to the base (S₂, its parameters the speed
//! and the strafe angle).

use crate::model::planar::wrap_angle;

/// A template's parameters σ.
#[derive(Clone, Copy, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
pub enum Template {
    /// S₁: a transition from a cycle of the graph back into it, leaving at the task's start
    /// frame `start` (an index into its start frames) and arriving turned by θ (rad, left
    /// positive); `cycle` counts the graph's cycles in the order they joined (0: the base).
    Turn {
        start: usize,
        theta: f64,
        #[serde(default, skip_serializing_if = "is_first")]
        cycle: usize,
    },
    /// S₂: a new straight cycle at this speed (m/s), travelling at `strafe` rad to the left of
    /// its heading (thesis §5.2.1's ϕ; 0: forwards), in gait `gait` (0: the base's timing; k:
    /// the task's k-th other gait), with a connection from the base into it and one back.
    Cycle {
        speed: f64,
        #[serde(default, skip_serializing_if = "is_zero")]
        strafe: f64,
        #[serde(default, skip_serializing_if = "is_first")]
        gait: usize,
    },
}

impl Template {
    /// The turn θ of an S₁ template (0 for a cycle).
    pub fn theta(&self) -> f64 {
        match self {
            Template::Turn { theta, .. } => *theta,
            Template::Cycle { .. } => 0.0,
        }
    }

    /// The speed of an S₂ template.
    pub fn cycle_speed(&self) -> Option<f64> {
        match self {
            Template::Cycle { speed, .. } => Some(*speed),
            Template::Turn { .. } => None,
        }
    }

    /// The cycle an S₁ template leaves from and returns to (0, the base, for an S₂).
    pub fn cycle(&self) -> usize {
        match self {
            Template::Turn { cycle, .. } => *cycle,
            Template::Cycle { .. } => 0,
        }
    }

    /// The gait of an S₂ template (0, the base's, for a turn).
    pub fn gait(&self) -> usize {
        match self {
            Template::Cycle { gait, .. } => *gait,
            Template::Turn { .. } => 0,
        }
    }

    /// Its name: `turn+035@1` (degrees, left positive; start frame 1 of the task's; `turn+035@1c2`
    /// from the graph's third cycle),
    /// `cycle0.85` (m/s), `cycle0.70s+045` (strafing 45° to the left) or `cycle1.30g1` (in the
    /// task's first other gait).
    pub fn label(&self) -> String {
        match self {
            Template::Turn {
                start,
                theta,
                cycle: 0,
            } => format!("turn{:+04.0}@{start}", theta.to_degrees()),
            Template::Turn {
                start,
                theta,
                cycle,
            } => format!("turn{:+04.0}@{start}c{cycle}", theta.to_degrees()),
            Template::Cycle { speed, strafe, .. } if *strafe != 0.0 => {
                format!("cycle{speed:.2}s{:+04.0}", strafe.to_degrees())
            }
            Template::Cycle {
                speed, gait: 1.., ..
            } => format!("cycle{speed:.2}g{}", self.gait()),
            Template::Cycle { speed, .. } => format!("cycle{speed:.2}"),
        }
    }
}

fn is_zero(v: &f64) -> bool {
    *v == 0.0
}

fn is_first(k: &usize) -> bool {
    *k == 0
}

/// Speeds this far apart (m/s) are as far apart as turns 90° apart.
pub const SPEED_SCALE: f64 = 0.3;

/// d(σ₁, σ₂)²: between turns 1 − cos Δθ (the thesis prints the similarity cos Δθ; see the
/// errata), plus 1 when the start frames differ (the task's start frames are a step apart,
/// which the thesis's frame distance would count as far), plus 4 when they leave different
/// cycles; between cycles (Δv / [`SPEED_SCALE`])²
/// plus 1 − cos Δϕ of their strafe angles, plus 4 when their gaits differ; a turn and a cycle
/// are 4 apart (as far as opposite turns).
pub fn distance_squared(a: &Template, b: &Template) -> f64 {
    match (a, b) {
        (
            Template::Turn {
                start: sa,
                theta: ta,
                cycle: ca,
            },
            Template::Turn {
                start: sb,
                theta: tb,
                cycle: cb,
            },
        ) => {
            let frames = if sa == sb { 0.0 } else { 1.0 };
            let cycles = if ca == cb { 0.0 } else { 4.0 };
            1.0 - wrap_angle(ta - tb).cos() + frames + cycles
        }
        (
            Template::Cycle {
                speed: va,
                strafe: pa,
                gait: ga,
            },
            Template::Cycle {
                speed: vb,
                strafe: pb,
                gait: gb,
            },
        ) => {
            let gait = if ga == gb { 0.0 } else { 4.0 };
            let speed = ((va - vb) / SPEED_SCALE).powi(2) + gait;
            if pa == pb {
                speed
            } else {
                speed + 1.0 - wrap_angle(pa - pb).cos()
            }
        }
        _ => 4.0,
    }
}

/// A past solve of the template: its parameters, its initialisation's quality q (Eq. 5.3) and
/// whether it gave a physically valid clip.
#[derive(Clone, Copy, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct Trial {
    pub sigma: Template,
    pub quality: f64,
    pub success: bool,
}

/// Below this, two parameters are the same and a quality is 0.
const SAME: f64 = 1e-12;

/// P̃(σ) (Eqs. 5.5–5.9): the chance that the template with parameters `theta`, whose
/// initialisation has quality `quality`, solves, judged from past solves. Successes with a
/// better (smaller) q count by (q_s/q)·d⁻², those with a worse q by 1/(d² + ln(q_s/q));
/// failures with a worse q by (q/q_f)·d⁻², those with a better one by 1/(d² + ln(q/q_f)).
/// It is 1 when q is 0 and when σ is a past success, 0 when σ is a past failure whose q was no
/// better. A prior of one observation worth 1/(1 + q) stands in for the solves not yet made
/// (the thesis gives none): with no history P̃ = 1/(1 + q), a good initialisation first.
pub fn success_probability(sigma: &Template, quality: f64, trials: &[Trial]) -> f64 {
    let q = quality.max(0.0);
    if q <= SAME {
        return 1.0;
    }
    if !q.is_finite() {
        return 0.0;
    }
    // The properties first: at a past solve's own parameters, its outcome.
    for t in trials {
        if distance_squared(sigma, &t.sigma) <= SAME {
            if t.success {
                return 1.0;
            }
            if q <= t.quality {
                return 0.0;
            }
        }
    }
    let (mut s, mut f) = (0.0, 0.0);
    for t in trials {
        let d2 = distance_squared(sigma, &t.sigma).max(SAME);
        let other = t.quality.max(SAME);
        if t.success {
            s += if other <= q {
                (other / q) / d2
            } else {
                1.0 / (d2 + (other / q).ln())
            };
        } else {
            f += if other >= q {
                (q / other) / d2
            } else {
                1.0 / (d2 + (q / other).ln())
            };
        }
    }
    // A prior of one observation, a success as likely as the initialisation is good: without
    // it one failure and no success made P̃ = 0 everywhere, and every template looked alike.
    let prior = 1.0 / (1.0 + q);
    (s + prior) / (s + f + 1.0)
}

/// The next parameters to weigh (thesis §5.2.2): among `candidates`, the one that minimises
/// Σⱼ wⱼ·costⱼ/(wⱼ + 1), wⱼ = d(σ, σⱼ)⁻², over the weighed ones (σⱼ, costⱼ); it is about costⱼ
/// at σⱼ and falls away from them, so the search goes where it has not looked, near what looked
/// cheap. Already weighed candidates are skipped; `None` when all are.
pub fn next_to_weigh(evaluated: &[(Template, f64)], candidates: &[Template]) -> Option<Template> {
    candidates
        .iter()
        .copied()
        .filter(|&c| {
            evaluated
                .iter()
                .all(|(s, _)| distance_squared(&c, s) > SAME)
        })
        .map(|c| {
            let score: f64 = evaluated
                .iter()
                .map(|(s, cost)| {
                    let w = 1.0 / distance_squared(&c, s);
                    w * cost / (w + 1.0)
                })
                .sum();
            (c, score)
        })
        .min_by(|a, b| a.1.total_cmp(&b.1))
        .map(|(c, _)| c)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::f64::consts::PI;

    fn turn(theta: f64) -> Template {
        Template::Turn {
            start: 0,
            theta,
            cycle: 0,
        }
    }

    fn trial(theta: f64, quality: f64, success: bool) -> Trial {
        Trial {
            sigma: turn(theta),
            quality,
            success,
        }
    }

    /// The thesis's three properties, and a probability in [0, 1] everywhere else.
    #[test]
    fn success_probability_has_the_three_properties() {
        let trials = [
            trial(0.5, 0.2, true),
            trial(-1.0, 0.8, false),
            trial(2.0, 0.4, false),
        ];
        // q = 0: near-certain convergence.
        assert_eq!(success_probability(&turn(2.0), 0.0, &trials), 1.0);
        // At a past success.
        assert_eq!(success_probability(&turn(0.5), 0.3, &trials), 1.0);
        // At a past failure with q ≤ q_f.
        assert_eq!(success_probability(&turn(-1.0), 0.8, &trials), 0.0);
        assert_eq!(success_probability(&turn(2.0), 0.3, &trials), 0.0);
        for k in 0..64 {
            let theta = -PI + k as f64 * PI / 32.0;
            for q in [0.01, 0.2, 0.5, 1.0, 3.0] {
                let p = success_probability(&turn(theta), q, &trials);
                assert!((0.0..=1.0).contains(&p), "{theta} {q} {p}");
            }
        }
        // Near the success it is likelier than near the failures.
        let near_success = success_probability(&turn(0.6), 0.3, &trials);
        let near_failure = success_probability(&turn(-0.9), 0.3, &trials);
        assert!(near_success > 0.8, "{near_success}");
        assert!(near_failure < 0.3, "{near_failure}");
        // The same place with a worse initialisation is less likely to solve.
        assert!(
            success_probability(&turn(1.2), 0.1, &trials)
                > success_probability(&turn(1.2), 2.0, &trials)
        );
        // No history: the prior, a good initialisation likelier.
        assert_eq!(success_probability(&turn(1.0), 0.5, &[]), 1.0 / 1.5);
        // One failure alone does not condemn the templates far from it.
        let failed = [trial(1.5, 1.1, false)];
        assert!(success_probability(&turn(-1.5), 1.1, &failed) > 0.2);
        assert!(success_probability(&turn(1.4), 1.1, &failed) < 0.2);
    }

    /// Cycles are near cycles of near speeds and far from every turn, so what a cycle's solve
    /// taught speaks for cycles of near speeds, not for turns.
    #[test]
    fn cycles_are_near_cycles_of_near_speeds_and_far_from_turns() {
        let cycle = |speed| Template::Cycle {
            speed,
            strafe: 0.0,
            gait: 0,
        };
        assert!((distance_squared(&cycle(0.7), &cycle(1.0)) - 1.0).abs() < 1e-12);
        assert_eq!(distance_squared(&cycle(0.7), &turn(0.0)), 4.0);
        assert_eq!(distance_squared(&turn(PI), &cycle(0.4)), 4.0);
        let failed = [Trial {
            sigma: cycle(1.0),
            quality: 0.5,
            success: false,
        }];
        let near = success_probability(&cycle(0.95), 0.5, &failed);
        let far = success_probability(&cycle(0.7), 0.5, &failed);
        let turned = success_probability(&turn(0.5), 0.5, &failed);
        assert!(near < far && far < turned, "{near} {far} {turned}");
        assert_eq!(cycle(0.85).label(), "cycle0.85");
        // Strafes are near strafes of near angles, as turns are.
        let strafe = |strafe: f64| Template::Cycle {
            speed: 0.7,
            strafe,
            gait: 0,
        };
        assert!((distance_squared(&strafe(PI / 2.0), &cycle(0.7)) - 1.0).abs() < 1e-12);
        assert!(distance_squared(&strafe(0.3), &strafe(0.5)) < 0.03);
        assert_eq!(strafe(-PI / 4.0).label(), "cycle0.70s-045");
        assert_eq!(turn(-0.5).label(), "turn-029@0");
        // A cycle in another gait is as far from the base's gait as from a turn, whatever the
        // speed, and near a cycle of its own gait at a near speed.
        let run = |speed| Template::Cycle {
            speed,
            strafe: 0.0,
            gait: 1,
        };
        assert_eq!(distance_squared(&run(1.0), &cycle(1.0)), 4.0);
        assert!((distance_squared(&run(1.0), &run(1.3)) - 1.0).abs() < 1e-12);
        assert_eq!(run(1.3).label(), "cycle1.30g1");
        assert_eq!(
            (run(1.3).gait(), cycle(1.3).gait(), turn(0.2).gait()),
            (1, 0, 0)
        );
        // A turn of another cycle is 4 further from the base's turns, and says which cycle.
        let running = Template::Turn {
            start: 0,
            theta: 0.5,
            cycle: 2,
        };
        assert!((distance_squared(&running, &turn(0.5)) - 4.0).abs() < 1e-12);
        assert_eq!(
            (running.label(), running.cycle()),
            ("turn+029@0c2".to_string(), 2)
        );
    }

    /// Exploration: with nothing weighed, any candidate; after that, the first pick is away from
    /// what was weighed, and it leans towards what weighed cheap.
    #[test]
    fn the_exploration_goes_where_it_has_not_looked_near_what_was_cheap() {
        let candidates: Vec<Template> = (0..36).map(|k| turn(-PI + k as f64 * PI / 18.0)).collect();
        assert!(next_to_weigh(&[], &candidates).is_some());
        let evaluated = [(turn(0.0), 1.0)];
        let next = next_to_weigh(&evaluated, &candidates).unwrap().theta();
        assert!(wrap_angle(next).abs() > 2.5, "{next}");
        // Cheap at +1, dear at −1: the next one is nearer the cheap side.
        let evaluated = [(turn(1.0), 0.1), (turn(-1.0), 2.0), (turn(PI), 1.0)];
        let next = next_to_weigh(&evaluated, &candidates).unwrap().theta();
        assert!(next > 0.0, "{next}");
        // Weighed candidates are not weighed again.
        let all: Vec<(Template, f64)> = candidates.iter().map(|&c| (c, 1.0)).collect();
        assert_eq!(next_to_weigh(&all, &candidates), None);
    }
}
