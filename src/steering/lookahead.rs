//! Predictive sampling for physics playback (after MuJoCo MPC's predictive sampling, Howell et
//! al. 2022, and the sampling of SAMCON, Liu et al. 2010): every `every` seconds, a few
//! candidate [`LegOffsets`] (the last plan, none, and Gaussian perturbations of the last plan)
//! are each played `horizon` seconds ahead in a copy of the controller and of the simulation,
//! with the stick held as it is; the one whose future stays up and tracks the played motion best
//! is applied until the next plan.
//!
//! The future's cost per step: the joint coordinates' squared error, the pelvis's rotation off
//! the played one, and its height off the played one; a fall costs [`FALL_COST`] plus the
//! seconds of horizon it leaves unplayed. The candidates are drawn from a generator seeded by
//! the settings' seed, so a run is reproducible. A candidate whose cost so far already reaches
//! the best one's is stopped there ([`loses`]): the choice is the same, for less compute.

use super::balance::LegOffsets;
use super::physics::PhysicsPlayback;
use super::{Controller, Output, Stick};
use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;
use rand_distr::{Distribution, StandardNormal};

/// Cost of a candidate whose future falls (a fall always loses to a future that stays up).
pub const FALL_COST: f64 = 1000.0;

/// How the look-ahead samples.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct LookaheadSettings {
    /// Seconds between plans.
    pub every: f64,
    /// Seconds each candidate is played ahead.
    pub horizon: f64,
    /// Candidates per plan (the last plan and no offsets among them).
    pub candidates: usize,
    /// Standard deviation of the perturbations (rad).
    pub sigma: f64,
    /// Fraction of the last plan kept as the next plan's centre.
    pub keep: f64,
    pub seed: u64,
}

impl Default for LookaheadSettings {
    fn default() -> Self {
        Self {
            every: 0.3,
            horizon: 1.5,
            candidates: 6,
            sigma: 0.08,
            keep: 0.7,
            seed: 1,
        }
    }
}

impl LookaheadSettings {
    /// The defaults with `NAME=VALUE,...` changed (every, horizon, candidates, sigma, keep,
    /// seed); an unknown name or a bad value is an error that lists the names.
    pub fn parse(text: &str) -> anyhow::Result<Self> {
        let names = "every, horizon, candidates, sigma, keep, seed";
        let mut s = Self::default();
        for (name, value) in super::balance::named_values(text, names)? {
            anyhow::ensure!(
                value >= 0.0,
                "`{name}={value}`: expected a non-negative number"
            );
            match name {
                "every" => s.every = value,
                "horizon" => s.horizon = value,
                "candidates" => s.candidates = value as usize,
                "sigma" => s.sigma = value,
                "keep" => s.keep = value,
                "seed" => s.seed = value as u64,
                other => {
                    anyhow::bail!("unknown look-ahead setting `{other}` (expected one of {names})")
                }
            }
        }
        anyhow::ensure!(
            s.every > 0.0 && s.horizon > 0.0 && s.candidates >= 2,
            "the look-ahead needs every > 0, horizon > 0 and at least 2 candidates"
        );
        Ok(s)
    }
}

/// The planner's state over a run.
pub struct Lookahead {
    pub settings: LookaheadSettings,
    rng: ChaCha8Rng,
    plan: [f64; LegOffsets::DIMENSION],
    next_plan: f64,
    /// Candidates played so far, and how many of the plans found every candidate falling.
    pub rollouts: usize,
    pub plans: usize,
    pub hopeless: usize,
}

impl Lookahead {
    pub fn new(settings: LookaheadSettings) -> Self {
        Self {
            rng: ChaCha8Rng::seed_from_u64(settings.seed),
            settings,
            plan: [0.0; LegOffsets::DIMENSION],
            next_plan: 0.0,
            rollouts: 0,
            plans: 0,
            hopeless: 0,
        }
    }

    /// At a plan's time, chooses the offsets `physics` tracks `out` (the pose at time `t`) with
    /// from now on; between plans, does nothing. `physics` is left as it was, with the chosen
    /// offsets.
    #[allow(clippy::too_many_arguments)]
    pub fn plan(
        &mut self,
        t: f64,
        out: &Output,
        stick: &Stick,
        dt: f64,
        controller: &Controller,
        physics: &mut PhysicsPlayback,
    ) {
        if t + 1e-9 < self.next_plan || physics.fell_at.is_some() {
            return;
        }
        self.next_plan = t + self.settings.every;
        self.plans += 1;
        let centre = self.plan.map(|x| self.settings.keep * x);
        let mut candidates = vec![centre, [0.0; LegOffsets::DIMENSION]];
        while candidates.len() < self.settings.candidates.max(2) {
            candidates.push(centre.map(|c| {
                let z: f64 = StandardNormal.sample(&mut self.rng);
                c + self.settings.sigma * z
            }));
        }
        let saved = physics.save();
        let steps = (self.settings.horizon / dt).round().max(1.0) as usize;
        let mut best: Option<(f64, [f64; LegOffsets::DIMENSION])> = None;
        for candidate in candidates {
            physics.restore(&saved);
            physics.offsets = LegOffsets::from_array(candidate);
            let mut ahead = controller.clone();
            let mut cost = 0.0;
            let mut o = out.clone();
            let bound = best.map_or(f64::INFINITY, |(b, _)| b);
            for i in 0..=steps {
                if i > 0 {
                    o = ahead.step(stick, dt);
                }
                physics.track(t + i as f64 * dt, &o, &mut ahead, dt);
                if physics.fell_at.is_some() {
                    cost += FALL_COST + (steps - i) as f64 * dt;
                    break;
                }
                cost += dt * step_cost(physics, &o);
                if loses(cost, bound) {
                    break;
                }
            }
            self.rollouts += 1;
            if best.is_none_or(|(b, _)| cost < b) {
                best = Some((cost, candidate));
            }
        }
        physics.restore(&saved);
        let (cost, chosen) = best.expect("at least two candidates");
        if cost >= FALL_COST {
            self.hopeless += 1;
        }
        self.plan = chosen;
        physics.offsets = LegOffsets::from_array(chosen);
    }
}

/// Whether a future whose cost so far is `cost` can no longer beat `bound`, the least cost of
/// a future played before: the step costs are never negative, so a future that stays up ends at
/// `cost` or more, and one that falls at [`FALL_COST`] or more, which loses to a `bound` that
/// stayed up. Stopping such a future early changes no choice (the best future is the first of
/// least cost either way) and saves its remaining steps.
pub(crate) fn loses(cost: f64, bound: f64) -> bool {
    bound < FALL_COST && cost >= bound
}

/// One step's tracking cost: squared joint error (rad²), the pelvis's rotation off the played
/// one (rad) and its height off the played one (×10 per m).
pub(crate) fn step_cost(physics: &PhysicsPlayback, out: &Output) -> f64 {
    let (q, _) = physics.sim.dof_state();
    let joints: f64 = q
        .iter()
        .zip(&out.pose.joints)
        .map(|(a, b)| (*a as f64 - b).powi(2))
        .sum();
    let p = physics.sim.body_pose(physics.root_body()).map(|x| x as f64);
    let turn = crate::clip::pose::quat_of(&p).angle_to(&crate::clip::pose::quat_of(&out.pose.root));
    joints + turn + 10.0 * (p[1] - out.pose.root[1]).abs()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn look_ahead_settings_are_parsed_by_name() {
        let s = LookaheadSettings::parse("horizon=1.0, candidates=4").unwrap();
        assert_eq!((s.horizon, s.candidates), (1.0, 4));
        assert_eq!(s.every, LookaheadSettings::default().every);
        assert_eq!(
            LookaheadSettings::parse("").unwrap(),
            LookaheadSettings::default()
        );
        let e = LookaheadSettings::parse("horizn=1")
            .unwrap_err()
            .to_string();
        assert!(
            e.contains("`horizn`") && e.contains("every, horizon"),
            "{e}"
        );
        for bad in ["horizon=-1", "every=0", "candidates=1", "sigma=x", "keep"] {
            assert!(LookaheadSettings::parse(bad).is_err(), "{bad}");
        }
    }
}
