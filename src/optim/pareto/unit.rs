//! The (1+1)-CMA-ES unit of the MO-CMA-ES (Agrawal 2015, thesis §4.4.2: the (1+1)-CMA-ES,
//! elitist, success-based step size instead of path-length control).
//!
//! Equations of Igel, Suttorp & Hansen (2006), "A computational efficient covariance matrix
//! update and a (1+1)-CMA for evolution strategies", as used per individual in Igel, Hansen &
//! Roth (2007), Procedures `updateStepSize` and `updateCovariance` (λ = 1):
//!
//! - constants: p_target = 1/(5 + √λ/2), d = 1 + n/(2λ), c_p = p_target·λ/(2 + p_target·λ),
//!   c_c = 2/(n + 2), c_cov = 2/(n² + 6), p_thresh = 0.44;
//! - step size: p̄_succ ← (1 − c_p)·p̄_succ + c_p·λ_succ/λ,
//!   σ ← σ·exp((p̄_succ − p_target) / (d·(1 − p_target)));
//! - covariance, with the step x_step = (x_offspring − x_parent)/σ_parent:
//!   if p̄_succ < p_thresh: p_c ← (1 − c_c)·p_c + √(c_c(2 − c_c))·x_step,
//!   C ← (1 − c_cov)·C + c_cov·p_c·p_cᵀ;
//!   else: p_c ← (1 − c_c)·p_c, C ← (1 − c_cov)·C + c_cov·(p_c·p_cᵀ + c_c(2 − c_c)·C).
//!
//! C is kept as its lower-triangular Cholesky factor A (C = A·Aᵀ, offspring x + σ·A·z): both
//! covariance updates have the form C ← α·C + β·v·vᵀ, done in O(n²) as A ← √α·A followed by a
//! rank-one Cholesky update (the cost argument of Igel et al. 2006, with a triangular factor).

use super::Objectives;
use super::dominance::is_feasible;
use nalgebra::{DMatrix, DVector};
use serde::{Deserialize, Serialize};

/// The strategy constants of a (1+1)-CMA-ES unit in dimension n.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct UnitParameters {
    pub p_target: f64,
    pub d: f64,
    pub c_p: f64,
    pub c_c: f64,
    pub c_cov: f64,
    pub p_thresh: f64,
}

impl UnitParameters {
    /// The defaults of Igel et al. (2006, 2007) for λ = 1 offspring.
    pub fn new(n: usize) -> Self {
        let nf = n as f64;
        let lambda = 1.0_f64;
        let p_target = 1.0 / (5.0 + lambda.sqrt() / 2.0);
        UnitParameters {
            p_target,
            d: 1.0 + nf / (2.0 * lambda),
            c_p: p_target * lambda / (2.0 + p_target * lambda),
            c_c: 2.0 / (nf + 2.0),
            c_cov: 2.0 / (nf * nf + 6.0),
            p_thresh: 0.44,
        }
    }
}

/// One member of the MO-CMA-ES population: a point, its objectives and its own strategy.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Individual {
    pub x: Vec<f64>,
    pub objectives: Objectives,
    /// The evaluation failed (a non-finite objective); such individuals rank last.
    pub failed: bool,
    pub sigma: f64,
    /// Smoothed success probability p̄_succ.
    pub p_succ: f64,
    /// Evolution path p_c.
    pub p_c: DVector<f64>,
    /// Lower-triangular Cholesky factor A of the covariance, C = A·Aᵀ.
    pub cholesky: DMatrix<f64>,
}

impl Individual {
    /// A fresh strategy at `x`: σ = `sigma`, p̄_succ = p_target, p_c = 0, C = I.
    pub fn new(x: Vec<f64>, objectives: Objectives, sigma: f64, params: &UnitParameters) -> Self {
        let n = x.len();
        Individual {
            x,
            objectives,
            failed: !is_feasible(objectives),
            sigma,
            p_succ: params.p_target,
            p_c: DVector::zeros(n),
            cholesky: DMatrix::identity(n, n),
        }
    }

    /// The offspring x + σ·A·z for a standard normal z (before any bound handling).
    pub fn mutate(&self, z: &DVector<f64>) -> Vec<f64> {
        let step = &self.cholesky * z * self.sigma;
        self.x.iter().zip(step.iter()).map(|(x, s)| x + s).collect()
    }

    /// The covariance C = A·Aᵀ.
    pub fn covariance(&self) -> DMatrix<f64> {
        &self.cholesky * self.cholesky.transpose()
    }

    /// `updateStepSize` with the success rate λ_succ/λ = `success` ∈ [0, 1].
    pub fn update_step_size(&mut self, success: f64, params: &UnitParameters) {
        self.p_succ = (1.0 - params.c_p) * self.p_succ + params.c_p * success;
        self.sigma *=
            ((self.p_succ - params.p_target) / (params.d * (1.0 - params.p_target))).exp();
        // A unit that keeps failing shrinks σ geometrically; keep it a positive normal number.
        self.sigma = self.sigma.max(f64::MIN_POSITIVE);
    }

    /// `updateCovariance` with the normalized step x_step = (x_offspring − x_parent)/σ_parent.
    pub fn update_covariance(&mut self, step: &DVector<f64>, params: &UnitParameters) {
        let c_c = params.c_c;
        let c_cov = params.c_cov;
        let alpha = if self.p_succ < params.p_thresh {
            self.p_c = &self.p_c * (1.0 - c_c) + step * (c_c * (2.0 - c_c)).sqrt();
            1.0 - c_cov
        } else {
            self.p_c *= 1.0 - c_c;
            1.0 - c_cov + c_cov * c_c * (2.0 - c_c)
        };
        self.cholesky *= alpha.sqrt();
        cholesky_rank_one_update(&mut self.cholesky, &self.p_c, c_cov);
    }

    /// Whether every number is finite and every size fits dimension `n` (checkpoint check).
    pub fn is_consistent(&self, n: usize) -> bool {
        self.x.len() == n
            && self.x.iter().all(|v| v.is_finite())
            && self.failed != is_feasible(self.objectives)
            && self.sigma.is_finite()
            && self.sigma > 0.0
            && self.p_succ.is_finite()
            && self.p_c.len() == n
            && self.p_c.iter().all(|v| v.is_finite())
            && self.cholesky.shape() == (n, n)
            && self.cholesky.iter().all(|v| v.is_finite())
            && (0..n).all(|i| self.cholesky[(i, i)] > 0.0)
    }
}

/// L ← chol(L·Lᵀ + β·v·vᵀ) for a lower-triangular L with positive diagonal and β ≥ 0, in
/// O(n²) by Givens-like rotations (Golub & Van Loan, §6.5.4). The diagonal stays positive.
pub fn cholesky_rank_one_update(l: &mut DMatrix<f64>, v: &DVector<f64>, beta: f64) {
    let n = v.len();
    let mut w = v * beta.sqrt();
    for k in 0..n {
        let lkk = l[(k, k)];
        let r = lkk.hypot(w[k]);
        let c = r / lkk;
        let s = w[k] / lkk;
        l[(k, k)] = r;
        for i in k + 1..n {
            l[(i, k)] = (l[(i, k)] + s * w[i]) / c;
            w[i] = c * w[i] - s * l[(i, k)];
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn constants_match_the_paper() {
        let p = UnitParameters::new(10);
        assert!((p.p_target - 2.0 / 11.0).abs() < 1e-15);
        assert_eq!(p.d, 6.0);
        assert!((p.c_p - (2.0 / 11.0) / (2.0 + 2.0 / 11.0)).abs() < 1e-15);
        assert_eq!(p.c_c, 2.0 / 12.0);
        assert_eq!(p.c_cov, 2.0 / 106.0);
        assert_eq!(p.p_thresh, 0.44);
    }

    #[test]
    fn cholesky_update_matches_the_dense_update() {
        let params = UnitParameters::new(4);
        let mut ind = Individual::new(vec![0.0; 4], [0.0, 0.0], 1.0, &params);
        let steps = [
            [1.0, -2.0, 0.5, 0.0],
            [0.3, 0.3, -1.0, 2.0],
            [-1.0, 0.0, 0.0, 1.0],
        ];
        let mut dense = DMatrix::<f64>::identity(4, 4);
        let mut p_c = DVector::<f64>::zeros(4);
        for (k, s) in steps.iter().enumerate() {
            let step = DVector::from_column_slice(s);
            // Alternate between the two branches of updateCovariance.
            ind.p_succ = if k == 1 { 0.5 } else { 0.1 };
            let (c_c, c_cov) = (params.c_c, params.c_cov);
            if ind.p_succ < params.p_thresh {
                p_c = &p_c * (1.0 - c_c) + &step * (c_c * (2.0 - c_c)).sqrt();
                dense = &dense * (1.0 - c_cov) + &p_c * p_c.transpose() * c_cov;
            } else {
                p_c *= 1.0 - c_c;
                dense = &dense * (1.0 - c_cov)
                    + (&p_c * p_c.transpose() + &dense * (c_c * (2.0 - c_c))) * c_cov;
            }
            ind.update_covariance(&step, &params);
            assert!((ind.covariance() - &dense).amax() < 1e-14);
            // A stays lower triangular with a positive diagonal.
            for i in 0..4 {
                assert!(ind.cholesky[(i, i)] > 0.0);
                for j in i + 1..4 {
                    assert_eq!(ind.cholesky[(i, j)], 0.0);
                }
            }
        }
    }

    #[test]
    fn step_size_grows_on_success_and_shrinks_on_failure() {
        let params = UnitParameters::new(5);
        let mut ind = Individual::new(vec![0.0; 5], [0.0, 0.0], 1.0, &params);
        ind.update_step_size(1.0, &params);
        assert!(ind.sigma > 1.0 && ind.p_succ > params.p_target);
        let mut other = Individual::new(vec![0.0; 5], [0.0, 0.0], 1.0, &params);
        other.update_step_size(0.0, &params);
        assert!(other.sigma < 1.0 && other.p_succ < params.p_target);
    }
}
