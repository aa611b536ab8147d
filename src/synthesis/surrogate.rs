//! The surrogates that choose where a controller's graph grows (Wampler 2012, thesis §5.2.2):
//! the distance between template parameters, the probability that a template's solve succeeds
//! (Eqs. 5.5–5.9, with the errata: similarities turned into distances and the logs made
//! positive), and the exploration function that picks the next parameters to weigh.
//!
//! The template here is the transition that turns by θ (S₁), leaving the base cycle at one of a
//! few frames f_a: its parameters are the start and the angle.

use crate::model::planar::wrap_angle;

/// A turn template's parameters σ: which of the task's start frames f_a it leaves from, and its
/// turn θ (rad, left positive).
#[derive(Clone, Copy, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct Turn {
    pub start: usize,
    pub theta: f64,
}

/// d(σ₁, σ₂)²: 1 − cos Δθ (the thesis prints the similarity cos Δθ; see the errata), plus 1 when
/// the start frames differ (the task's start frames are a step apart, which the thesis's frame
/// distance would count as far).
pub fn distance_squared(a: &Turn, b: &Turn) -> f64 {
    let frames = if a.start == b.start { 0.0 } else { 1.0 };
    1.0 - wrap_angle(a.theta - b.theta).cos() + frames
}

/// A past solve of the template: its parameters, its initialisation's quality q (Eq. 5.3) and
/// whether it gave a physically valid clip.
#[derive(Clone, Copy, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct Trial {
    pub sigma: Turn,
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
pub fn success_probability(sigma: &Turn, quality: f64, trials: &[Trial]) -> f64 {
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
pub fn next_to_weigh(evaluated: &[(Turn, f64)], candidates: &[Turn]) -> Option<Turn> {
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

    fn turn(theta: f64) -> Turn {
        Turn { start: 0, theta }
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

    /// Exploration: with nothing weighed, any candidate; after that, the first pick is away from
    /// what was weighed, and it leans towards what weighed cheap.
    #[test]
    fn the_exploration_goes_where_it_has_not_looked_near_what_was_cheap() {
        let candidates: Vec<Turn> = (0..36).map(|k| turn(-PI + k as f64 * PI / 18.0)).collect();
        assert!(next_to_weigh(&[], &candidates).is_some());
        let evaluated = [(turn(0.0), 1.0)];
        let next = next_to_weigh(&evaluated, &candidates).unwrap().theta;
        assert!(wrap_angle(next).abs() > 2.5, "{next}");
        // Cheap at +1, dear at −1: the next one is nearer the cheap side.
        let evaluated = [(turn(1.0), 0.1), (turn(-1.0), 2.0), (turn(PI), 1.0)];
        let next = next_to_weigh(&evaluated, &candidates).unwrap().theta;
        assert!(next > 0.0, "{next}");
        // Weighed candidates are not weighed again.
        let all: Vec<(Turn, f64)> = candidates.iter().map(|&c| (c, 1.0)).collect();
        assert_eq!(next_to_weigh(&all, &candidates), None);
    }
}
