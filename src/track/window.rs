//! One control window of the tracking search (Borer et al. 2018, §5): per-degree-of-freedom
//! offsets added to the target's PD targets, given as knots every 0.1 s from the window's start
//! and linearly interpolated to every simulation step, and a rollout of the window from a start
//! state that sums the window cost at the cost instants.
//!
//! A rollout stops early once its cost passes a bound (the paper's own suggestion: discard bad
//! samples before simulating them through); its cost is then the partial sum scaled to the whole
//! window, which ranks it with the bad ones it is.

use super::cost::{CostTerms, CostWeights, instant};
use super::target::{Target, pose_of_bodies};
use crate::model::Character;
use crate::sim::{Frame, SimSettings, Simulation, Snapshot};
use std::sync::Mutex;

/// Where a window lies and how its control is laid out.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Layout {
    /// The window's first simulation step (time `start·dt`).
    pub start: usize,
    /// Its length in steps.
    pub steps: usize,
    /// Steps between knots (a knot at 0, `knot_steps`, … up to `steps`).
    pub knot_steps: usize,
    /// Degrees of freedom.
    pub dofs: usize,
}

impl Layout {
    /// Knots of the window, its start's included.
    pub fn knots(&self) -> usize {
        self.steps.div_ceil(self.knot_steps) + 1
    }

    /// Parameters of the window's control (knots × degrees of freedom).
    pub fn dimension(&self) -> usize {
        self.knots() * self.dofs
    }

    /// The offset of degree of freedom `dof` at step `k` of the window, from the knot values
    /// `x` (knot-major: knot j's values at `j·dofs`).
    pub fn offset(&self, x: &[f64], k: usize, dof: usize) -> f64 {
        let j = k / self.knot_steps;
        let s = (k % self.knot_steps) as f64 / self.knot_steps as f64;
        let a = x[j * self.dofs + dof];
        if s == 0.0 || j + 1 >= self.knots() {
            a
        } else {
            a + s * (x[(j + 1) * self.dofs + dof] - a)
        }
    }
}

/// What a rollout gave.
#[derive(Clone, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct Rollout {
    /// The window cost (scaled to the whole window when stopped early).
    pub cost: f64,
    pub terms: CostTerms,
    /// It ran the whole window.
    pub complete: bool,
    /// The character fell in it.
    pub fell: bool,
}

/// Simulations to run rollouts in, reused (a rollout restores its start state whole, so which
/// one runs it does not change a bit).
pub struct Simulations {
    character: Character,
    settings: SimSettings,
    idle: Mutex<Vec<Simulation>>,
}

impl Simulations {
    pub fn new(character: &Character, settings: SimSettings) -> Self {
        Simulations {
            character: character.clone(),
            settings,
            idle: Mutex::new(Vec::new()),
        }
    }

    /// Runs `f` with a simulation of the character (taken from the idle ones, or new).
    pub fn with<R>(&self, f: impl FnOnce(&mut Simulation) -> R) -> R {
        let taken = self.idle.lock().unwrap_or_else(|e| e.into_inner()).pop();
        let mut sim = match taken {
            Some(s) => s,
            None => Simulation::new(&self.character, self.settings)
                .expect("the character was simulated once already"),
        };
        let r = f(&mut sim);
        self.idle
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .push(sim);
        r
    }

    pub fn character(&self) -> &Character {
        &self.character
    }

    pub fn settings(&self) -> SimSettings {
        self.settings
    }
}

/// Steps `sim` (already at the window's start) through the first `steps` steps of window
/// `layout` with control `x`, summing the cost at the target's instants; stops once the cost
/// passes `abort_above`. With `frames`, every step's frame is recorded.
#[allow(clippy::too_many_arguments)]
pub fn run(
    sim: &mut Simulation,
    character: &Character,
    target: &Target,
    layout: &Layout,
    x: &[f64],
    steps: usize,
    weights: &CostWeights,
    abort_above: f64,
    mut frames: Option<&mut Vec<Frame>>,
) -> Rollout {
    let mut terms = CostTerms::default();
    let instants = (1..=layout.steps)
        .filter(|k| target.pose_at_step(layout.start + k).is_some())
        .count()
        .max(1);
    let mut counted = 0;
    let mut fell = false;
    let mut controls = vec![0.0f32; layout.dofs];
    for k in 0..steps {
        let goal = &target.targets[(layout.start + k).min(target.steps())];
        for (d, c) in controls.iter_mut().enumerate() {
            *c = goal[d] + layout.offset(x, k, d) as f32;
        }
        sim.set_targets(&controls);
        sim.step();
        if let Some(f) = frames.as_deref_mut() {
            f.push(sim.frame());
        }
        fell |= sim.has_fallen();
        if sim.failure().is_some() {
            return Rollout {
                cost: f64::INFINITY,
                terms,
                complete: false,
                fell: true,
            };
        }
        if let Some(want) = target.pose_at_step(layout.start + k + 1) {
            let bodies: Vec<[f64; 7]> = (0..character.bodies.len())
                .map(|i| sim.body_pose(i).map(f64::from))
                .collect();
            terms.add(&instant(want, &pose_of_bodies(character, &bodies), weights));
            counted += 1;
            if terms.total() > abort_above && k + 1 < steps {
                let scale = instants as f64 / counted as f64;
                return Rollout {
                    cost: terms.total() * scale,
                    terms,
                    complete: false,
                    fell,
                };
            }
        }
    }
    Rollout {
        cost: terms.total(),
        terms,
        complete: true,
        fell,
    }
}

/// A rollout of window `layout` with control `x` from the state `start`.
#[allow(clippy::too_many_arguments)]
pub fn rollout(
    sims: &Simulations,
    start: &Snapshot,
    target: &Target,
    layout: &Layout,
    x: &[f64],
    weights: &CostWeights,
    abort_above: f64,
) -> Rollout {
    sims.with(|sim| {
        sim.restore(start);
        run(
            sim,
            sims.character(),
            target,
            layout,
            x,
            layout.steps,
            weights,
            abort_above,
            None,
        )
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Zero knots give zero offsets; between two knots the offset is their linear blend, at a
    /// midpoint exactly their average.
    #[test]
    fn knots_interpolate_linearly() {
        let l = Layout {
            start: 0,
            steps: 60,
            knot_steps: 12,
            dofs: 2,
        };
        assert_eq!(l.knots(), 6);
        assert_eq!(l.dimension(), 12);
        let zero = vec![0.0; 12];
        assert!((0..60).all(|k| l.offset(&zero, k, 0) == 0.0 && l.offset(&zero, k, 1) == 0.0));
        let mut x = vec![0.0; 12];
        x[2] = 0.4; // knot 1, dof 0
        x[4] = -0.2; // knot 2, dof 0
        assert_eq!(l.offset(&x, 12, 0), 0.4);
        assert!(
            (l.offset(&x, 18, 0) - 0.1).abs() < 1e-15,
            "midpoint of 0.4 and −0.2"
        );
        assert!((l.offset(&x, 6, 0) - 0.2).abs() < 1e-15);
        assert_eq!(l.offset(&x, 18, 1), 0.0);
        // The last knot holds at the window's end.
        x[10] = 0.3;
        assert_eq!(l.offset(&x, 60, 0), 0.3);
    }
}
