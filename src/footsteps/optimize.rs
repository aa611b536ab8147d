//! Footstep optimization (Agrawal 2016, thesis §5.4): BFGS with the analytic gradient of
//! [`Window::evaluate`] over the planar positions and yaws of one phase's steps. A sliding pivot
//! turns its foot where it stands, so only its yaw is free and its position follows the foot's
//! plant before it (a toe pivot keeps the toes, ahead of the footprint, where they were); a step
//! pinned by the task (an entry's final stance) is not free at all.

use super::objective::{Plant, Window};
use argmin::core::{CostFunction, Executor, Gradient};
use argmin::solver::linesearch::MoreThuenteLineSearch;
use argmin::solver::quasinewton::BFGS;

/// What the optimizer may move of one step of the window.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Freedom {
    /// Position and yaw.
    Free,
    /// Only the yaw: the foot turns about the point `toes` metres ahead of its footprint (0: the
    /// footprint itself, a heel pivot), which stays where the plant `on` (the same foot's last)
    /// has it.
    Pivot { on: usize, toes: f64 },
    /// Nothing: the task pins it.
    Fixed,
}

/// What one optimization did.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Outcome {
    pub cost_before: f64,
    pub cost_after: f64,
    pub iterations: u64,
}

/// The iterations BFGS may take (a phase has at most a dozen steps: 36 variables).
const MAX_ITERATIONS: u64 = 200;

struct Problem<'a> {
    window: &'a Window,
    base: &'a [Plant],
    freedoms: &'a [Freedom],
}

impl Problem<'_> {
    fn plants(&self, v: &[f64]) -> Vec<Plant> {
        let mut plants = self.base.to_vec();
        let mut k = 0;
        for (j, f) in self.freedoms.iter().enumerate() {
            let i = self.window.first + j;
            match *f {
                Freedom::Free => {
                    plants[i] = [v[k], v[k + 1], v[k + 2]];
                    k += 3;
                }
                Freedom::Pivot { on, toes } => {
                    let (a, b) = (plants[on][2], v[k]);
                    plants[i] = [
                        plants[on][0] + toes * (a.cos() - b.cos()),
                        plants[on][1] + toes * (a.sin() - b.sin()),
                        b,
                    ];
                    k += 1;
                }
                Freedom::Fixed => {}
            }
        }
        plants
    }

    fn variables(&self) -> Vec<f64> {
        let mut v = Vec::new();
        for (j, f) in self.freedoms.iter().enumerate() {
            let p = self.base[self.window.first + j];
            match f {
                Freedom::Free => v.extend_from_slice(&p),
                Freedom::Pivot { .. } => v.push(p[2]),
                Freedom::Fixed => {}
            }
        }
        v
    }

    /// The gradient with respect to the variables, from the one with respect to every plant:
    /// a pivot's position gradient flows to the plant it stands on, and through the toes' lever
    /// to that plant's yaw and its own (latest first, so chains of pivots add up).
    fn variable_gradient(&self, plants: &[Plant], mut g: Vec<Plant>) -> Vec<f64> {
        for (j, f) in self.freedoms.iter().enumerate().rev() {
            if let Freedom::Pivot { on, toes } = *f {
                let i = self.window.first + j;
                let (a, b) = (plants[on][2], plants[i][2]);
                let [gx, gy, _] = g[i];
                g[on][0] += gx;
                g[on][1] += gy;
                g[on][2] += toes * (-a.sin() * gx + a.cos() * gy);
                g[i][2] -= toes * (-b.sin() * gx + b.cos() * gy);
            }
        }
        let mut out = Vec::new();
        for (j, f) in self.freedoms.iter().enumerate() {
            let gi = g[self.window.first + j];
            match f {
                Freedom::Free => out.extend_from_slice(&gi),
                Freedom::Pivot { .. } => out.push(gi[2]),
                Freedom::Fixed => {}
            }
        }
        out
    }

    fn value_and_gradient(&self, v: &[f64]) -> (f64, Vec<f64>) {
        let plants = self.plants(v);
        let mut g = vec![[0.0; 3]; plants.len()];
        let f = self.window.evaluate(&plants, Some(&mut g));
        (f, self.variable_gradient(&plants, g))
    }
}

impl CostFunction for Problem<'_> {
    type Param = Vec<f64>;
    type Output = f64;
    fn cost(&self, v: &Self::Param) -> Result<f64, argmin::core::Error> {
        Ok(self.window.evaluate(&self.plants(v), None))
    }
}

impl Gradient for Problem<'_> {
    type Param = Vec<f64>;
    type Gradient = Vec<f64>;
    fn gradient(&self, v: &Self::Param) -> Result<Vec<f64>, argmin::core::Error> {
        Ok(self.value_and_gradient(v).1)
    }
}

/// The objective and its gradient with respect to the free variables, in the order
/// [`optimize`] uses (for checks against finite differences).
pub fn objective_and_gradient(
    window: &Window,
    plants: &[Plant],
    freedoms: &[Freedom],
) -> (Vec<f64>, f64, Vec<f64>) {
    let p = Problem {
        window,
        base: plants,
        freedoms,
    };
    let v = p.variables();
    let (f, g) = p.value_and_gradient(&v);
    (v, f, g)
}

/// The objective at given free variables (the counterpart of [`objective_and_gradient`]).
pub fn objective_at(window: &Window, plants: &[Plant], freedoms: &[Freedom], v: &[f64]) -> f64 {
    let p = Problem {
        window,
        base: plants,
        freedoms,
    };
    window.evaluate(&p.plants(v), None)
}

/// Minimizes the window's objective over its free steps by BFGS, in place.
pub fn optimize(window: &Window, plants: &mut [Plant], freedoms: &[Freedom]) -> Outcome {
    assert_eq!(freedoms.len(), window.targets.len());
    let cost_before = window.evaluate(plants, None);
    let problem = Problem {
        window,
        base: plants,
        freedoms,
    };
    let x0 = problem.variables();
    if x0.is_empty() {
        return Outcome {
            cost_before,
            cost_after: cost_before,
            iterations: 0,
        };
    }
    let n = x0.len();
    let identity: Vec<Vec<f64>> = (0..n)
        .map(|i| (0..n).map(|j| if i == j { 1.0 } else { 0.0 }).collect())
        .collect();
    let solver = BFGS::new(MoreThuenteLineSearch::new())
        .with_tolerance_grad(1e-7)
        .and_then(|s| s.with_tolerance_cost(1e-12))
        .expect("positive tolerances");
    let result = Executor::new(problem, solver)
        .configure(|state| {
            state
                .param(x0)
                .inv_hessian(identity)
                .max_iters(MAX_ITERATIONS)
        })
        .timer(false)
        .run();
    let (best, iterations) = match result {
        Ok(mut r) => {
            let iterations = r.state.iter;
            (r.state.take_best_param(), iterations)
        }
        // A line search that cannot go on keeps the plants as they were.
        Err(_) => (None, 0),
    };
    let problem = Problem {
        window,
        base: plants,
        freedoms,
    };
    let Some(best) = best else {
        return Outcome {
            cost_before,
            cost_after: cost_before,
            iterations,
        };
    };
    let moved = problem.plants(&best);
    let cost_after = window.evaluate(&moved, None);
    if cost_after.is_finite() && cost_after <= cost_before {
        plants.copy_from_slice(&moved);
        Outcome {
            cost_before,
            cost_after,
            iterations,
        }
    } else {
        Outcome {
            cost_before,
            cost_after: cost_before,
            iterations,
        }
    }
}
