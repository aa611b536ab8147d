//! The effort term (Wampler 2012, thesis §3.2, Eq. 3.14: C₁/m·Σ_j t_a,j² at one frame) and its
//! exact Hessian by the structure of the dynamics.
//!
//! The term reads three frames q_{i−1}, q_i, q_{i+1}, the springs and the frame's loads: about 90
//! variables on the simple biped. Swept direction by direction on the tape, its Hessian was the
//! largest part of an exact-Hessian iteration (two thirds of the Lagrangian's Hessian on the
//! horse). But the torques t = M(q)q̈ + h(q, q̇) − Σ J(q)ᵀF are linear in q̈ and in the loads F and
//! have no curvature between them, and the passive torque t_p = −k_s(q − q̄) − k_d q̇ is a known
//! bilinear form. So in the variables y = (q_i, q̇, q̈, springs, loads), with
//! q̇ = (q_{i+1} − q_{i−1})/2dt and q̈ = (q_{i+1} − 2q_i + q_{i−1})/dt² a linear map y = P·x of the
//! term's own variables x (the neighbours moved across a transformed cycle's seam, an affine
//! map), the term f = Σ_j r_j², r = s·(t − t_p), has
//!
//! ∇²_y f = 2 J_rᵀ J_r + 2 Σ_j r_j s ∇²_y t_j − 2 Σ_j r_j s ∇²_y t_p,j,
//!
//! where the tape sweeps only the q_i and q̇ directions of t (the q̈ and load columns are the
//! swept ones' rows), the springs' curvature is written out, and ∇²_x f = Pᵀ (∇²_y f) P.
//! On the simple biped that is 32 directions instead of 90.

use super::*;

impl GaitProblem {
    /// The effort term's weight s on the torques: r = s·t_a, s² = C₁/(m·N).
    pub(super) fn effort_scale(&self) -> f64 {
        (self.spec.weights.effort / self.mass / self.spec.frames as f64).sqrt()
    }

    /// Inverse dynamics at one frame from its coordinates, their rates and the frame's stored
    /// loads (mass-normalised, six per foot down, for `feet` at their contact points `at`).
    #[allow(clippy::too_many_arguments)]
    pub(super) fn effort_dynamics<D: Scalar>(
        &self,
        feet: &[usize],
        at: &[[f64; 3]],
        q: &[D],
        qd: &[D],
        qdd: &[D],
        loads: &[D],
        morph: &Morphology<D>,
    ) -> crate::spacetime::dynamics::InverseDynamics<D> {
        let total = morph.total_mass();
        let loads: Vec<FootLoad<D>> = feet
            .iter()
            .enumerate()
            .map(|(j, &k)| FootLoad {
                foot: k,
                force: Self::vec3(&loads[6 * j..]).scale(&total),
                torque: self.torque(&loads[6 * j + 3..]).scale(&total),
                at: at[j],
            })
            .collect();
        inverse_dynamics(&self.spec.skeleton, morph, q, qd, qdd, GRAVITY, &loads)
    }

    /// The exact Hessian of objective term `term` (an effort term of a body without variable
    /// shape or muscles) at its variables `x`, by the structure in the module docs; `None` for
    /// the other terms.
    pub(super) fn effort_hessian(&self, term: usize, x: &[f64]) -> Option<nalgebra::DMatrix<f64>> {
        let super::problem::Term::Effort { feet, at, seams } = &self.terms[term].0 else {
            return None;
        };
        if self.shapes.is_some() || self.spec.morphology.is_some_and(|m| m.muscle) {
            return None;
        }
        Some(self.effort_curvature(feet, at, *seams, x, |r| {
            (r.iter().map(|r| 2.0 * r).collect(), true)
        }))
    }

    /// Σ_p w_p ∇²(τ_p − r_p) of a lifted effort's [`super::problem::Block::Torques`] at its
    /// variables `x` (the term's, then the torques τ, which enter linearly): −Σ_p w_p ∇²r_p in
    /// the term's variables, zero in the torques'.
    pub(super) fn torques_hessian(
        &self,
        block: usize,
        x: &[f64],
        weights: &[f64],
    ) -> Option<nalgebra::DMatrix<f64>> {
        let super::problem::Block::Torques { feet, at, seams } = &self.blocks[block].0 else {
            return None;
        };
        let n = x.len() - weights.len();
        let h = self.effort_curvature(feet, at, *seams, &x[..n], |_| {
            (weights.iter().map(|w| -w).collect(), false)
        });
        let mut out = nalgebra::DMatrix::zeros(x.len(), x.len());
        out.view_mut((0, 0), (n, n)).copy_from(&h);
        Some(out)
    }

    /// Σ_p w_p ∇²r_p of one frame's effort residuals r = s·t_a at the term's variables `x`
    /// (q_{i−1}, q_i, q_{i+1}, springs, loads), plus the Gauss–Newton part 2 J_rᵀJ_r when asked:
    /// `weights` gives (w, whether) from the residuals' values.
    fn effort_curvature(
        &self,
        feet: &[usize],
        at: &[[f64; 3]],
        seams: [Seam; 2],
        x: &[f64],
        weights: impl FnOnce(&[f64]) -> (Vec<f64>, bool),
    ) -> nalgebra::DMatrix<f64> {
        let (dof, dt) = (self.layout.dof, self.spec.dt());
        let passive_dofs = &self.layout.passive_dofs;
        let np = passive_dofs.len();
        let n = x.len();
        let (qm, rest) = x.split_at(dof);
        let (q, rest) = rest.split_at(dof);
        let (qp, rest) = rest.split_at(dof);
        let (passive, loads) = rest.split_at(3 * np);
        debug_assert_eq!(loads.len(), 6 * feet.len());
        // The neighbours as this frame sees them, A·q + b (identity off a transformed seam).
        let (am, bm) = self.seam_map(seams[0]);
        let (ap, bp) = self.seam_map(seams[1]);
        let moved = |a: &nalgebra::DMatrix<f64>, b: &[f64], v: &[f64]| -> Vec<f64> {
            (0..dof)
                .map(|r| b[r] + (0..dof).map(|c| a[(r, c)] * v[c]).sum::<f64>())
                .collect()
        };
        let (qm, qp) = (moved(&am, &bm, qm), moved(&ap, &bp, qp));
        let qd: Vec<f64> = (0..dof).map(|d| (qp[d] - qm[d]) * (0.5 / dt)).collect();
        let qdd: Vec<f64> = (0..dof)
            .map(|d| (qp[d] - 2.0 * q[d] + qm[d]) / (dt * dt))
            .collect();

        // The tape's inputs: (q, q̇, q̈, loads); outputs: the passive coordinates' torques.
        let mut inputs = Vec::with_capacity(3 * dof + loads.len());
        inputs.extend_from_slice(q);
        inputs.extend_from_slice(&qd);
        inputs.extend_from_slice(&qdd);
        inputs.extend_from_slice(loads);
        let flat: Vec<usize> = (2 * dof..inputs.len()).collect();
        let s = self.effort_scale();
        // Per passive coordinate p (on coordinate d): t_p and r_p = s·(t − t_p).
        let spring = |p: usize| (passive[3 * p], passive[3 * p + 1], passive[3 * p + 2]);
        let passive_torque = |p: usize| {
            let (ks, rest, kd) = spring(p);
            let d = passive_dofs[p];
            -(ks * (q[d] - rest) + kd * qd[d])
        };
        let mut w = vec![0.0; np];
        let (_, jt, ht) = crate::nlp::tape::values_jacobian_hessian_without(
            &inputs,
            &flat,
            |v| {
                let (vq, rest) = v.split_at(dof);
                let (vqd, rest) = rest.split_at(dof);
                let (vqdd, vloads) = rest.split_at(dof);
                let morph = self.spec.skeleton.morphology();
                let id = self.effort_dynamics(feet, at, vq, vqd, vqdd, vloads, &morph);
                passive_dofs
                    .iter()
                    .map(|&d| id.generalized_forces[d])
                    .collect()
            },
            |t| {
                let r: Vec<f64> = (0..np).map(|p| s * (t[p] - passive_torque(p))).collect();
                let gauss_newton;
                (w, gauss_newton) = weights(&r);
                (w.iter().map(|wp| s * wp).collect(), gauss_newton)
            },
        );

        // In y = (q, q̇, q̈, springs, loads), laid out as x is.
        let y_of_input = |i: usize| if i < 3 * dof { i } else { i + 3 * np };
        let spring_var = |p: usize, k: usize| 3 * dof + 3 * p + k;
        // The Gauss–Newton part 2 J_rᵀJ_r, when `weights` asked for it.
        let mut hy = nalgebra::DMatrix::<f64>::zeros(n, n);
        if let Some(jt) = jt {
            let mut jr = nalgebra::DMatrix::<f64>::zeros(np, n);
            for p in 0..np {
                for (i, v) in jt[p].iter().enumerate() {
                    jr[(p, y_of_input(i))] = s * v;
                }
                let (ks, rest, kd) = spring(p);
                let d = passive_dofs[p];
                // −s·∂t_p: t_p = −k_s(q − q̄) − k_d q̇.
                jr[(p, d)] += s * ks;
                jr[(p, dof + d)] += s * kd;
                jr[(p, spring_var(p, 0))] += s * (q[d] - rest);
                jr[(p, spring_var(p, 1))] -= s * ks;
                jr[(p, spring_var(p, 2))] += s * qd[d];
            }
            hy = jr.tr_mul(&jr) * 2.0;
        }
        for a in 0..ht.nrows() {
            for b in 0..ht.ncols() {
                hy[(y_of_input(a), y_of_input(b))] += ht[(a, b)];
            }
        }
        for p in 0..np {
            // −w s ∇²t_p: ∂²t_p/∂k_s∂q = −1, ∂²t_p/∂k_s∂q̄ = 1, ∂²t_p/∂k_d∂q̇ = −1.
            let c = w[p] * s;
            let d = passive_dofs[p];
            for (i, j, v) in [
                (spring_var(p, 0), d, c),
                (spring_var(p, 0), spring_var(p, 1), -c),
                (spring_var(p, 2), dof + d, c),
            ] {
                hy[(i, j)] += v;
                hy[(j, i)] += v;
            }
        }

        // ∇²_x f = Pᵀ (∇²_y f) P, P sparse: (row of y, column of x, coefficient).
        let mut p_entries: Vec<(usize, usize, f64)> = Vec::with_capacity(6 * dof + n);
        for d in 0..dof {
            p_entries.push((d, dof + d, 1.0));
            p_entries.push((2 * dof + d, dof + d, -2.0 / (dt * dt)));
            for c in 0..dof {
                let (m, pl) = (am[(d, c)], ap[(d, c)]);
                if m != 0.0 {
                    p_entries.push((dof + d, c, -m * 0.5 / dt));
                    p_entries.push((2 * dof + d, c, m / (dt * dt)));
                }
                if pl != 0.0 {
                    p_entries.push((dof + d, 2 * dof + c, pl * 0.5 / dt));
                    p_entries.push((2 * dof + d, 2 * dof + c, pl / (dt * dt)));
                }
            }
        }
        p_entries.extend((3 * dof..n).map(|i| (i, i, 1.0)));
        let mut hp = nalgebra::DMatrix::<f64>::zeros(n, n);
        for &(yi, xj, c) in &p_entries {
            for a in 0..n {
                hp[(a, xj)] += c * hy[(a, yi)];
            }
        }
        let mut hx = nalgebra::DMatrix::<f64>::zeros(n, n);
        for &(yi, xj, c) in &p_entries {
            for b in 0..n {
                hx[(xj, b)] += c * hp[(yi, b)];
            }
        }
        hx
    }

    /// The linear part A and offset b of a seam's map q ↦ A·q + b ([`Self::across`], affine in
    /// heading-root coordinates).
    fn seam_map(&self, seam: Seam) -> (nalgebra::DMatrix<f64>, Vec<f64>) {
        let dof = self.layout.dof;
        if seam == Seam::None {
            return (nalgebra::DMatrix::identity(dof, dof), vec![0.0; dof]);
        }
        let b = self.across(&vec![0.0; dof], seam);
        let mut a = nalgebra::DMatrix::zeros(dof, dof);
        for c in 0..dof {
            let mut e = vec![0.0; dof];
            e[c] = 1.0;
            for (r, v) in self.across(&e, seam).into_iter().enumerate() {
                a[(r, c)] = v - b[r];
            }
        }
        (a, b)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::spacetime::tests::creature;

    /// Every effort term's Hessian by the dynamics' structure equals the tape's, which sweeps
    /// every variable, at a disturbed point: the simple biped on the treadmill and turning (its
    /// neighbours moved across the seam), the horse trotting, and a turning hop.
    #[test]
    fn the_effort_hessian_by_structure_equals_the_swept_one() {
        let timing = |foot: &str, start: f64, duration: f64| FootTiming {
            foot: foot.into(),
            start,
            duration,
        };
        let biped = || {
            let sk = creature("simple_biped");
            let (period, timings) = default_timings(&sk);
            GaitSpec::new(sk, 0.7, period, &timings).unwrap()
        };
        let horse = crate::spacetime::tests::horse_trot();
        let hop = GaitSpec::new(creature("monoped"), 0.7, 0.5, &[timing("shin", 0.8, 0.5)])
            .unwrap()
            .transformed(0.6)
            .unwrap();
        for spec in [biped(), biped().transformed(-0.5).unwrap(), horse, hop] {
            let name = spec.skeleton.name.clone();
            let problem = GaitProblem::new(spec);
            let mut x = vec![0.0; problem.num_variables()];
            problem.initial_point(&mut x);
            for (k, v) in x.iter_mut().enumerate() {
                *v += 0.05 * ((k as f64 * 12.9898).sin() * 43758.5453).fract();
            }
            let mut compared = 0;
            for (k, term) in problem.objective_terms().iter().enumerate() {
                let local: Vec<f64> = term.variables.iter().map(|&v| x[v]).collect();
                let Some(fast) = problem.effort_hessian(k, &local) else {
                    continue;
                };
                let (_, swept) = crate::nlp::tape::weighted_hessian(&local, &[1.0], |v| {
                    vec![problem.objective_term(k, v)]
                });
                let scale = swept.iter().fold(0.0f64, |a, v| a.max(v.abs()));
                assert!(scale > 1.0, "{name}: term {k} has no curvature");
                let worst = (&fast - &swept).amax();
                assert!(
                    worst <= 1e-10 * scale,
                    "{name}: term {k} differs by {worst:e} (scale {scale:e})"
                );
                compared += 1;
            }
            assert_eq!(
                compared, problem.spec.frames,
                "{name}: effort terms compared"
            );
        }
    }
}
