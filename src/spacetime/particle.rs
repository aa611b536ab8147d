//! The Spacetime Particle, the reference problem of the NLP stack (McIntosh 2011,
//! thesis §3.2.4, Table 3.1, after Witkin & Kass 1988): a 2D point mass with a jet pack under
//! gravity, taken from rest-like upward motion at the origin to the same motion at (4, 4).
//!
//! Table 3.1: h = 0.05 s, f_n = 21 frames, d_n = 2 dimensions, m = 2 kg, g = (0, −9.81) m/s²;
//! the variables are the positions q_{f,d} (m) and jet forces Q_{f,d} (N), so n = 2·21·2 = 84.
//!
//! - Dynamics (3.7), with the acceleration of (3.6): Q_{f,d} + m·g_d = m·(q_{f+1,d} − 2q_{f,d} +
//!   q_{f−1,d})/h² for 0 < f < f_n−1, both d: the d_n(f_n−2) = 38 equality constraints.
//! - Boundary conditions (3.8): q₀ = (0, 0), q₁ = (0, 0.5), q₁₉ = (4, 3.5), q₂₀ = (4, 4), as fixed
//!   variables (bounds with lower = upper: loose "keyframing" by constraints, §3.2.3).
//! - Objective (3.9): minimize Σ_{f,d} Q_{f,d}².
//!
//! Table 3.1's Q_max = 30 N is not enforced by default: the problem is infeasible with
//! it (with |Q_x| ≤ 30 N, i.e. |a_x| ≤ 15 m/s², at most 3.375 m of the required 4 m can be
//! covered). [`ParticleSpec::force_bound`] enforces |Q_{f,d}| ≤ bound on every component, as the
//! bounds −bound ≤ Q_{f,d} ≤ bound, to reproduce that.
//!
//! Oracle (the optimum of this convex QP, computed here; the thesis prints none):
//! objective ≈ 65,699.9 N², Q_x linear in f from +50.53 N (f = 1) to −50.53 N
//! (f = 19), Q_y linear from −56.17 N to +95.41 N, Q₀ = Q₂₀ = 0, peak |Q| ≈ 107.96 N.

use super::autodiff::{BlockProblem, BlockSpec, Scalar, TermSpec};

/// Number of spatial dimensions d_n.
pub const DIMENSIONS: usize = 2;

/// The constants of Table 3.1 and the boundary conditions (3.8).
#[derive(Debug, Clone, PartialEq)]
pub struct ParticleSpec {
    /// Time step h (s).
    pub h: f64,
    /// Number of frames f_n.
    pub frames: usize,
    /// Mass m (kg).
    pub mass: f64,
    /// Gravity g_d (m/s²).
    pub gravity: [f64; DIMENSIONS],
    /// Fixed positions (frame, q_f) of Eq. 3.8.
    pub boundary: Vec<(usize, [f64; DIMENSIONS])>,
    /// |Q_{f,d}| ≤ this (N) when set; Table 3.1's Q_max = 30 N makes the problem infeasible.
    pub force_bound: Option<f64>,
}

impl ParticleSpec {
    /// Table 3.1 and Eq. 3.8, without the force bound (Q_max unenforced: see the module docs).
    pub fn table_3_1() -> Self {
        Self {
            h: 0.05,
            frames: 21,
            mass: 2.0,
            gravity: [0.0, -9.81],
            boundary: vec![
                (0, [0.0, 0.0]),
                (1, [0.0, 0.5]),
                (19, [4.0, 3.5]),
                (20, [4.0, 4.0]),
            ],
            force_bound: None,
        }
    }

    /// Table 3.1's Q_max = 30 N.
    pub const Q_MAX: f64 = 30.0;

    pub fn with_force_bound(mut self, bound: Option<f64>) -> Self {
        self.force_bound = bound;
        self
    }

    /// Index of position q_{f,d} in the variable vector.
    pub fn q(&self, f: usize, d: usize) -> usize {
        f * DIMENSIONS + d
    }

    /// Index of jet force Q_{f,d} in the variable vector.
    pub fn force(&self, f: usize, d: usize) -> usize {
        self.frames * DIMENSIONS + f * DIMENSIONS + d
    }

    /// The residual of Eq. 3.7 at frame f, dimension d:
    /// Q + m·g − m·(q_{f+1} − 2q_f + q_{f−1})/h² (zero when the dynamics hold).
    pub fn dynamics<D: Scalar>(&self, d: usize, q_prev: D, q: D, q_next: D, force: D) -> D {
        force + self.mass * self.gravity[d]
            - (q_next - q * 2.0 + q_prev) * (self.mass / (self.h * self.h))
    }

    /// The largest |residual| of Eq. 3.7 over all interior frames and dimensions.
    pub fn max_dynamics_residual(
        &self,
        positions: &[[f64; DIMENSIONS]],
        forces: &[[f64; DIMENSIONS]],
    ) -> f64 {
        let mut worst: f64 = 0.0;
        for f in 1..self.frames - 1 {
            for d in 0..DIMENSIONS {
                let r = self.dynamics(
                    d,
                    positions[f - 1][d],
                    positions[f][d],
                    positions[f + 1][d],
                    forces[f][d],
                );
                worst = worst.max(r.abs());
            }
        }
        worst
    }

    /// Splits a variable vector into positions q_f and forces Q_f per frame.
    pub fn unpack(&self, x: &[f64]) -> (Vec<[f64; DIMENSIONS]>, Vec<[f64; DIMENSIONS]>) {
        let frame = |base: fn(&Self, usize, usize) -> usize, f| {
            std::array::from_fn(|d| x[base(self, f, d)])
        };
        let positions = (0..self.frames).map(|f| frame(Self::q, f)).collect();
        let forces = (0..self.frames).map(|f| frame(Self::force, f)).collect();
        (positions, forces)
    }
}

impl BlockProblem for ParticleSpec {
    fn num_variables(&self) -> usize {
        2 * self.frames * DIMENSIONS
    }

    fn variable_bounds(&self, lower: &mut [f64], upper: &mut [f64]) {
        for &(f, q) in &self.boundary {
            for d in 0..DIMENSIONS {
                lower[self.q(f, d)] = q[d];
                upper[self.q(f, d)] = q[d];
            }
        }
        if let Some(b) = self.force_bound {
            for f in 0..self.frames {
                for d in 0..DIMENSIONS {
                    lower[self.force(f, d)] = -b;
                    upper[self.force(f, d)] = b;
                }
            }
        }
    }

    /// Positions on the straight line from the first to the last boundary position, no force.
    fn initial_point(&self, x: &mut [f64]) {
        let (Some(first), Some(last)) = (self.boundary.first(), self.boundary.last()) else {
            return;
        };
        for f in 0..self.frames {
            let s = f as f64 / (self.frames - 1).max(1) as f64;
            for d in 0..DIMENSIONS {
                x[self.q(f, d)] = first.1[d] + s * (last.1[d] - first.1[d]);
            }
        }
    }

    /// Eq. 3.9: one term Q_{f,d}² per force component.
    fn objective_terms(&self) -> Vec<TermSpec> {
        (0..self.frames)
            .flat_map(|f| (0..DIMENSIONS).map(move |d| (f, d)))
            .map(|(f, d)| TermSpec {
                variables: vec![self.force(f, d)],
            })
            .collect()
    }

    fn objective_term<D: Scalar>(&self, _term: usize, x: &[D]) -> D {
        x[0].clone() * x[0].clone()
    }

    /// Eq. 3.7: one linear equality per interior frame and dimension, over
    /// (q_{f−1,d}, q_{f,d}, q_{f+1,d}, Q_{f,d}); block k is frame 1 + k / d_n, dimension k % d_n.
    fn constraint_blocks(&self) -> Vec<BlockSpec> {
        (1..self.frames - 1)
            .flat_map(|f| (0..DIMENSIONS).map(move |d| (f, d)))
            .map(|(f, d)| {
                let vars = vec![
                    self.q(f - 1, d),
                    self.q(f, d),
                    self.q(f + 1, d),
                    self.force(f, d),
                ];
                BlockSpec::equal(vars, vec![0.0]).linear()
            })
            .collect()
    }

    fn constraint_block<D: Scalar>(&self, block: usize, x: &[D]) -> Vec<D> {
        let d = block % DIMENSIONS;
        vec![self.dynamics(d, x[0].clone(), x[1].clone(), x[2].clone(), x[3].clone())]
    }
}

/// A solved (or failed) particle problem.
#[cfg(feature = "ipopt")]
#[derive(Debug, Clone)]
pub struct ParticleSolution {
    pub status: super::SolveStatus,
    pub iterations: usize,
    /// Σ Q² (N²), Eq. 3.9.
    pub objective: f64,
    /// q_f (m) per frame: the animation.
    pub positions: Vec<[f64; DIMENSIONS]>,
    /// Q_f (N) per frame: metadata, e.g. for a jet particle effect.
    pub forces: Vec<[f64; DIMENSIONS]>,
    /// Largest violation of any bound or constraint at the solution.
    pub max_violation: f64,
    /// Largest |residual| of Eq. 3.7, recomputed from q and Q.
    pub dynamics_residual: f64,
    pub solve_time: std::time::Duration,
}

/// Builds the particle NLP of `spec` and solves it with IPOPT.
#[cfg(feature = "ipopt")]
pub fn solve_particle(
    spec: &ParticleSpec,
    options: &super::SolverOptions,
) -> Result<ParticleSolution, super::NlpError> {
    let nlp = super::AutoDiff::new(spec.clone())?;
    let s = super::solve(&nlp, options)?;
    let (positions, forces) = spec.unpack(&s.x);
    Ok(ParticleSolution {
        status: s.status,
        iterations: s.iterations,
        objective: s.objective,
        dynamics_residual: spec.max_dynamics_residual(&positions, &forces),
        positions,
        forces,
        max_violation: s.max_violation,
        solve_time: s.solve_time,
    })
}

#[cfg(all(test, feature = "ipopt"))]
#[allow(clippy::needless_range_loop)] // frames and dimensions index several arrays at once
mod tests {
    use super::*;
    use crate::spacetime::{HessianMode, SolverOptions};

    /// The oracle of the module docs.
    const OBJECTIVE: f64 = 65_699.9;

    fn solve(spec: &ParticleSpec, hessian: HessianMode) -> ParticleSolution {
        solve_particle(
            spec,
            &SolverOptions {
                hessian,
                ..Default::default()
            },
        )
        .expect("a well-formed problem")
    }

    #[test]
    fn particle_reaches_the_reference_optimum() {
        let spec = ParticleSpec::table_3_1();
        let s = solve(&spec, HessianMode::Exact);
        assert!(s.status.is_success(), "{:?}", s.status);
        assert!(
            (s.objective - OBJECTIVE).abs() <= 1e-3 * OBJECTIVE,
            "objective {}",
            s.objective
        );
        // Σ Q² recomputed from the returned forces agrees with the solver's objective.
        let sum: f64 = s.forces.iter().flatten().map(|v| v * v).sum();
        assert!(
            (sum - s.objective).abs() <= 1e-6 * OBJECTIVE,
            "{sum} vs {}",
            s.objective
        );
        assert!(s.max_violation < 1e-6, "violation {}", s.max_violation);
    }

    #[test]
    fn particle_endpoints_are_exact_and_dynamics_hold() {
        let s = solve(&ParticleSpec::table_3_1(), HessianMode::Exact);
        assert_eq!(s.positions.len(), 21);
        for (f, want) in [
            (0, [0.0, 0.0]),
            (1, [0.0, 0.5]),
            (19, [4.0, 3.5]),
            (20, [4.0, 4.0]),
        ] {
            for d in 0..2 {
                assert!(
                    (s.positions[f][d] - want[d]).abs() <= 1e-9,
                    "q{f}[{d}] = {}",
                    s.positions[f][d]
                );
            }
        }
        // Eq. 3.7 written out here, independently of the problem's own residual.
        let (h, m, g) = (0.05, 2.0, [0.0, -9.81]);
        for f in 1..20 {
            for d in 0..2 {
                let acc = (s.positions[f + 1][d] - 2.0 * s.positions[f][d] + s.positions[f - 1][d])
                    / (h * h);
                let r = s.forces[f][d] + m * g[d] - m * acc;
                assert!(r.abs() < 1e-6, "frame {f} dim {d}: residual {r}");
            }
        }
        assert!(s.dynamics_residual < 1e-6);
    }

    #[test]
    fn particle_forces_are_linear_in_time() {
        let s = solve(&ParticleSpec::table_3_1(), HessianMode::Exact);
        let q = &s.forces;
        for d in 0..2 {
            for f in 2..19 {
                let second = q[f + 1][d] - 2.0 * q[f][d] + q[f - 1][d];
                assert!(
                    second.abs() < 1e-5,
                    "Q[{d}] not linear at frame {f}: second difference {second}"
                );
            }
        }
        let near = |a: f64, b: f64| (a - b).abs() < 0.01;
        assert!(
            near(q[1][0], 50.53) && near(q[19][0], -50.53),
            "Q_x from {} to {}",
            q[1][0],
            q[19][0]
        );
        assert!(
            near(q[1][1], -56.17) && near(q[19][1], 95.41),
            "Q_y from {} to {}",
            q[1][1],
            q[19][1]
        );
        for f in [0, 20] {
            assert!(
                q[f][0].abs() < 1e-6 && q[f][1].abs() < 1e-6,
                "Q{f} = {:?}",
                q[f]
            );
        }
        let peak = q.iter().map(|v| v[0].hypot(v[1])).fold(0.0, f64::max);
        assert!(near(peak, 107.96), "peak |Q| = {peak}");
    }

    #[test]
    fn particle_with_l_bfgs_reaches_the_same_optimum() {
        let s = solve(&ParticleSpec::table_3_1(), HessianMode::LimitedMemory);
        assert!(s.status.is_success(), "{:?}", s.status);
        assert!(
            (s.objective - OBJECTIVE).abs() <= 1e-3 * OBJECTIVE,
            "objective {}",
            s.objective
        );
    }

    #[test]
    fn particle_with_table_force_limit_is_infeasible() {
        let spec = ParticleSpec::table_3_1().with_force_bound(Some(ParticleSpec::Q_MAX));
        let s = solve(&spec, HessianMode::Exact);
        assert_eq!(s.status, crate::spacetime::SolveStatus::Infeasible);
        assert!(!s.status.is_success());
        assert!(
            s.max_violation > 1e-3,
            "an infeasible end point violates something: {}",
            s.max_violation
        );
    }

    #[test]
    fn a_loose_force_limit_changes_nothing() {
        // |Q| ≤ 120 N is above the unconstrained peak of ≈108 N.
        let s = solve(
            &ParticleSpec::table_3_1().with_force_bound(Some(120.0)),
            HessianMode::Exact,
        );
        assert!(s.status.is_success(), "{:?}", s.status);
        assert!(
            (s.objective - OBJECTIVE).abs() <= 1e-3 * OBJECTIVE,
            "objective {}",
            s.objective
        );
    }

    /// The ripopt back end reaches the same optimum (65,699.9 N²) and finds Table 3.1's force
    /// limit infeasible too.
    #[cfg(feature = "ripopt")]
    #[test]
    fn particle_with_ripopt_reaches_the_same_optimum() {
        let options = SolverOptions {
            hessian: HessianMode::Exact,
            backend: crate::nlp::Backend::Ripopt,
            ..Default::default()
        };
        let s = solve_particle(&ParticleSpec::table_3_1(), &options).unwrap();
        assert!(s.status.is_success(), "{:?}", s.status);
        assert!(
            (s.objective - OBJECTIVE).abs() <= 1e-3 * OBJECTIVE,
            "objective {}",
            s.objective
        );
        assert!(s.max_violation < 1e-6, "violation {}", s.max_violation);
        let limited = ParticleSpec::table_3_1().with_force_bound(Some(ParticleSpec::Q_MAX));
        let s = solve_particle(&limited, &options).unwrap();
        assert!(!s.status.is_success(), "{:?}", s.status);
        assert!(s.max_violation > 1e-3, "{}", s.max_violation);
    }
}
