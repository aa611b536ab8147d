//! Exact derivatives of block-structured NLPs by automatic differentiation.
//!
//! Spacetime problems (McIntosh 2011, §3.2; Wampler 2012, §3.2.4, the m×n Jacobian (3.22)) are
//! sums of many small pieces: each dynamics equation, boundary condition or objective term reads
//! a handful of variables of a few neighbouring frames. A [`BlockProblem`] states the problem
//! that way, once, generically over the number type; [`AutoDiff`] turns it into an
//! [`NlpProblem`] whose sparsity is the union of the blocks' variable lists and whose first
//! derivatives (gradient, Jacobian) and second derivatives (Hessian of the Lagrangian
//! σ∇²f + Σλᵢ∇²cᵢ) are exact, computed per block by reverse-mode differentiation on a tape
//! ([`super::tape`]: one adjoint sweep per gradient or Jacobian row, second-order adjoints for the
//! Hessian), over the block's own variables only. The solver may still be told to use L-BFGS
//! instead of the exact Hessian ([`super::HessianMode`]).

use super::tape;
use super::{EvalError, EvalResult, NlpError, NlpProblem};
use nalgebra::DVector;
use num_dual::DualNum;
use rayon::prelude::*;
use std::collections::HashMap;

/// The number type a block is evaluated with: `f64` for values, [`tape::TapeVar`] for
/// derivatives (and `num-dual`'s dual numbers, which tests compare against).
/// Write blocks with `+ - * /` between these and `f64` on the right (`x[0].clone() * 2.0`), and
/// `DualNum` methods (`powi`, `sin`, `sqrt`, …) for functions.
pub trait Scalar: DualNum<Primitive = f64> {}
impl<T: DualNum<Primitive = f64>> Scalar for T {}

/// One objective term fᵢ: the variables it reads (f = Σᵢ fᵢ, Eq. 3.2's weighted sum included).
#[derive(Debug, Clone, PartialEq)]
pub struct TermSpec {
    pub variables: Vec<usize>,
}

/// One block of constraints: the variables it reads and the bounds of each of its rows (lower =
/// upper for equalities). `linear` blocks contribute nothing to the Hessian.
#[derive(Debug, Clone, PartialEq)]
pub struct BlockSpec {
    pub variables: Vec<usize>,
    pub lower: Vec<f64>,
    pub upper: Vec<f64>,
    pub linear: bool,
    /// Positions in `variables` (sorted) with no curvature among themselves in any row:
    /// ∂²cᵣ/∂xₐ∂x_b = 0 for every a, b of them, a = b included. The exact Hessian sweeps no
    /// direction along them ([`tape::Recording::hessian_without`]); empty is always correct.
    pub flat: Vec<usize>,
    /// Positions in `variables` in which every row is linear, with no curvature against any
    /// variable: ∂²cᵣ/∂xₐ∂x_b = 0 for every b when a is one of them. The Hessian's pattern
    /// leaves their rows and columns out; empty is always correct.
    pub linear_in: Vec<usize>,
}

impl BlockSpec {
    /// Equalities c(x) = `values`.
    pub fn equal(variables: Vec<usize>, values: Vec<f64>) -> Self {
        Self {
            variables,
            lower: values.clone(),
            upper: values,
            linear: false,
            flat: Vec::new(),
            linear_in: Vec::new(),
        }
    }

    /// Declares the block's variables at positions `flat` free of curvature among themselves
    /// ([`Self::flat`]).
    pub fn with_flat(mut self, flat: Vec<usize>) -> Self {
        self.flat = flat;
        self
    }

    /// Declares the block's rows linear in its variables at positions `linear_in`
    /// ([`Self::linear_in`]).
    pub fn with_linear_in(mut self, linear_in: Vec<usize>) -> Self {
        self.linear_in = linear_in;
        self
    }

    /// The local pairs (a ≥ b) the block's Hessian can be nonzero at: not two flat positions,
    /// nor one linear position.
    pub fn curved_pairs(&self) -> Vec<(usize, usize)> {
        let n = self.variables.len();
        let (mut flat, mut linear) = (vec![false; n], vec![false; n]);
        self.flat.iter().for_each(|&a| flat[a] = true);
        self.linear_in.iter().for_each(|&a| linear[a] = true);
        (0..n)
            .flat_map(|a| (0..=a).map(move |b| (a, b)))
            .filter(|&(a, b)| !(flat[a] && flat[b]) && !linear[a] && !linear[b])
            .collect()
    }

    /// Marks the block linear in its variables (its Hessian is zero).
    pub fn linear(mut self) -> Self {
        self.linear = true;
        self
    }

    pub fn rows(&self) -> usize {
        self.lower.len()
    }
}

/// An NLP written as objective terms and constraint blocks over small sets of variables.
///
/// `objective_term` and `constraint_block` receive the block's variables in the order of its
/// spec (`x[k]` is variable `spec.variables[k]`) and must compute the same function for every
/// [`Scalar`] type.
pub trait BlockProblem: Sync {
    fn num_variables(&self) -> usize;
    /// Fills `lower` and `upper` (length n); both start at ±∞.
    fn variable_bounds(&self, lower: &mut [f64], upper: &mut [f64]);
    /// Fills `x` (length n); it starts at 0.
    fn initial_point(&self, x: &mut [f64]);
    fn objective_terms(&self) -> Vec<TermSpec>;
    fn objective_term<D: Scalar>(&self, term: usize, x: &[D]) -> D;
    /// The term as a sum of squares, fᵢ = Σⱼ rⱼ², when it is one (`None`: it is not). Used by
    /// [`Curvature::GaussNewton`]; must agree with [`Self::objective_term`].
    fn objective_residuals<D: Scalar>(&self, _term: usize, _x: &[D]) -> Option<Vec<D>> {
        None
    }
    /// The exact Hessian of term `term` at its variables `x` (in its spec's order), when the
    /// problem knows a cheaper way to it than sweeping every variable (a structure the tape
    /// cannot see, such as a term linear in a combination of variables); `None`: the tape's.
    /// Must agree with [`Self::objective_term`]'s second derivatives.
    fn objective_term_hessian(&self, _term: usize, _x: &[f64]) -> Option<nalgebra::DMatrix<f64>> {
        None
    }
    /// Σᵣ wᵣ∇²cᵣ of block `block` at its variables `x`, when the problem knows a cheaper way to
    /// it than the tape's sweeps; `None`: the tape's. Must agree with
    /// [`Self::constraint_block`]'s second derivatives.
    fn constraint_block_hessian(
        &self,
        _block: usize,
        _x: &[f64],
        _weights: &[f64],
    ) -> Option<nalgebra::DMatrix<f64>> {
        None
    }
    fn constraint_blocks(&self) -> Vec<BlockSpec>;
    /// The block's rows, as many as its spec has bounds.
    fn constraint_block<D: Scalar>(&self, block: usize, x: &[D]) -> Vec<D>;
}

/// What [`AutoDiff`] reports as the Hessian of the Lagrangian σ∇²f + Σλᵢ∇²cᵢ.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Curvature {
    /// Exact second derivatives of every term and block.
    #[default]
    Exact,
    /// Generalised Gauss–Newton: a least-squares term fᵢ = ‖rᵢ‖² contributes 2JᵣᵀJᵣ (positive
    /// semi-definite; the residuals' own curvature, which makes effort terms with Coriolis and
    /// 1/dt² factors strongly indefinite, is dropped); other terms and the constraint blocks
    /// stay exact.
    GaussNewton,
    /// Gauss–Newton objective curvature only; the constraints' curvature is left out (a
    /// positive semi-definite Hessian: sequential least squares in the constraints' tangent space).
    GaussNewtonObjective,
}

/// A [`BlockProblem`] with exact derivatives: an [`NlpProblem`] for any solver.
pub struct AutoDiff<P> {
    problem: P,
    curvature: Curvature,
    terms: Vec<TermSpec>,
    blocks: Vec<BlockSpec>,
    /// First constraint row of each block.
    first_row: Vec<usize>,
    m: usize,
    /// First Jacobian value of each block (its values are row-major over its variables).
    first_jacobian_value: Vec<usize>,
    jacobian: Vec<(usize, usize)>,
    hessian: Vec<(usize, usize)>,
    /// For each term / block, the Hessian value index of each local pair (a ≥ b), row by row.
    term_hessian: Vec<Vec<usize>>,
    /// For each block, its curved local pairs (a ≥ b) and their Hessian value index.
    block_hessian: Vec<Vec<(usize, usize, usize)>>,
    /// Whether terms and blocks are differentiated on all threads ([`PARALLEL_WORK`]).
    parallel: bool,
}

/// The size (variables read, summed over terms and blocks) from which derivatives are
/// evaluated in parallel: below it, waking other threads costs more than the work (the
/// spacetime particle's solve took 3.0 ms in parallel and 2.1 ms on one thread, median of 20;
/// a gait NLP reads tens of thousands).
const PARALLEL_WORK: usize = 2_000;

fn check_variables(what: &'static str, vars: &[usize], n: usize) -> Result<(), NlpError> {
    let mut seen = std::collections::HashSet::new();
    for &v in vars {
        if v >= n {
            return Err(NlpError::StructureOutOfRange {
                what,
                index: v,
                row: 0,
                col: v,
                rows: 1,
                cols: n,
            });
        }
        if !seen.insert(v) {
            return Err(NlpError::DuplicateEntry {
                what,
                row: 0,
                col: v,
            });
        }
    }
    Ok(())
}

impl<P: BlockProblem> AutoDiff<P> {
    /// Collects the problem's terms and blocks and builds the sparsity patterns. Fails if a
    /// block names a variable twice or one that does not exist.
    pub fn new(problem: P) -> Result<Self, NlpError> {
        let n = problem.num_variables();
        let terms = problem.objective_terms();
        let blocks = problem.constraint_blocks();
        let mut hessian = Vec::new();
        let mut position: HashMap<(usize, usize), usize> = HashMap::new();
        let mut local_pairs = |vars: &[usize], hessian: &mut Vec<(usize, usize)>| -> Vec<usize> {
            let mut out = Vec::with_capacity(vars.len() * (vars.len() + 1) / 2);
            for a in 0..vars.len() {
                for b in 0..=a {
                    let key = (vars[a].max(vars[b]), vars[a].min(vars[b]));
                    let next = position.len();
                    let idx = *position.entry(key).or_insert(next);
                    if idx == hessian.len() {
                        hessian.push(key);
                    }
                    out.push(idx);
                }
            }
            out
        };
        let mut term_hessian = Vec::with_capacity(terms.len());
        for t in &terms {
            check_variables("objective term", &t.variables, n)?;
            term_hessian.push(local_pairs(&t.variables, &mut hessian));
        }
        let mut block_hessian = Vec::with_capacity(blocks.len());
        let (mut first_row, mut first_jacobian_value, mut jacobian) =
            (Vec::new(), Vec::new(), Vec::new());
        let mut m = 0;
        for (k, b) in blocks.iter().enumerate() {
            check_variables("constraint block", &b.variables, n)?;
            if b.upper.len() != b.lower.len() {
                return Err(NlpError::StructureOutOfRange {
                    what: "constraint block bounds",
                    index: k,
                    row: b.lower.len(),
                    col: b.upper.len(),
                    rows: b.lower.len(),
                    cols: b.lower.len(),
                });
            }
            first_row.push(m);
            first_jacobian_value.push(jacobian.len());
            for r in 0..b.rows() {
                jacobian.extend(b.variables.iter().map(|&v| (m + r, v)));
            }
            m += b.rows();
            block_hessian.push(if b.linear {
                Vec::new()
            } else {
                b.curved_pairs()
                    .into_iter()
                    .map(|(a, c)| {
                        let key = (
                            b.variables[a].max(b.variables[c]),
                            b.variables[a].min(b.variables[c]),
                        );
                        let next = position.len();
                        let idx = *position.entry(key).or_insert(next);
                        if idx == hessian.len() {
                            hessian.push(key);
                        }
                        (a, c, idx)
                    })
                    .collect()
            });
        }
        let work: usize = terms.iter().map(|t| t.variables.len()).sum::<usize>()
            + blocks.iter().map(|b| b.variables.len()).sum::<usize>();
        Ok(Self {
            parallel: work >= PARALLEL_WORK,
            problem,
            curvature: Curvature::Exact,
            terms,
            blocks,
            first_row,
            m,
            first_jacobian_value,
            jacobian,
            hessian,
            term_hessian,
            block_hessian,
        })
    }

    pub fn problem(&self) -> &P {
        &self.problem
    }

    /// Chooses the Hessian the solver is given (exact by default).
    pub fn with_curvature(mut self, curvature: Curvature) -> Self {
        self.curvature = curvature;
        self
    }

    /// Number of constraint rows.
    pub fn rows(&self) -> usize {
        self.m
    }

    /// The rows of block `k` within c(x).
    pub fn block_rows(&self, k: usize) -> std::ops::Range<usize> {
        self.first_row[k]..self.first_row[k] + self.blocks[k].rows()
    }

    fn gather(vars: &[usize], x: &[f64]) -> Vec<f64> {
        vars.iter().map(|&i| x[i]).collect()
    }

    fn block_len_check(&self, k: usize, got: usize) -> EvalResult {
        let want = self.blocks[k].rows();
        if got == want {
            Ok(())
        } else {
            Err(EvalError(format!(
                "constraint block {k} returned {got} rows, its spec has {want}"
            )))
        }
    }
}

impl<P: BlockProblem> AutoDiff<P> {
    /// `f(k, item)` for every term or block, in parallel when the problem is large enough to
    /// pay for handing work to other threads (a small one, the spacetime particle's, is faster
    /// on the calling thread); in item order either way, so sums over them keep their bits.
    fn each<I: Sync, T: Send>(&self, items: &[I], f: impl Fn(usize, &I) -> T + Sync) -> Vec<T> {
        if self.parallel {
            items.par_iter().enumerate().map(|(k, i)| f(k, i)).collect()
        } else {
            items.iter().enumerate().map(|(k, i)| f(k, i)).collect()
        }
    }
}

impl<P: BlockProblem> NlpProblem for AutoDiff<P> {
    fn num_variables(&self) -> usize {
        self.problem.num_variables()
    }

    fn num_constraints(&self) -> usize {
        self.m
    }

    fn variable_bounds(&self, lower: &mut [f64], upper: &mut [f64]) {
        lower.fill(f64::NEG_INFINITY);
        upper.fill(f64::INFINITY);
        self.problem.variable_bounds(lower, upper);
    }

    fn constraint_bounds(&self, lower: &mut [f64], upper: &mut [f64]) {
        for (k, b) in self.blocks.iter().enumerate() {
            let rows = self.block_rows(k);
            lower[rows.clone()].copy_from_slice(&b.lower);
            upper[rows].copy_from_slice(&b.upper);
        }
    }

    fn initial_point(&self, x: &mut [f64]) {
        x.fill(0.0);
        self.problem.initial_point(x);
    }

    fn objective(&self, x: &[f64]) -> Result<f64, EvalError> {
        Ok(self
            .terms
            .iter()
            .enumerate()
            .map(|(k, t)| {
                self.problem
                    .objective_term::<f64>(k, &Self::gather(&t.variables, x))
            })
            .sum())
    }

    fn objective_gradient(&self, x: &[f64], grad: &mut [f64]) -> EvalResult {
        grad.fill(0.0);
        let parts: Vec<Vec<f64>> = self.each(&self.terms, |k, t| {
            tape::gradient(&Self::gather(&t.variables, x), |v| {
                self.problem.objective_term(k, v)
            })
            .1
        });
        // Summed in term order whatever the thread count: bit-identical results.
        for (t, g) in self.terms.iter().zip(&parts) {
            for (a, &var) in t.variables.iter().enumerate() {
                grad[var] += g[a];
            }
        }
        Ok(())
    }

    fn constraints(&self, x: &[f64], g: &mut [f64]) -> EvalResult {
        for (k, b) in self.blocks.iter().enumerate() {
            let c = self
                .problem
                .constraint_block::<f64>(k, &Self::gather(&b.variables, x));
            self.block_len_check(k, c.len())?;
            g[self.block_rows(k)].copy_from_slice(&c);
        }
        Ok(())
    }

    fn jacobian_structure(&self) -> Vec<(usize, usize)> {
        self.jacobian.clone()
    }

    fn jacobian_values(&self, x: &[f64], values: &mut [f64]) -> EvalResult {
        let parts: Vec<Vec<Vec<f64>>> = self.each(&self.blocks, |k, b| {
            tape::jacobian(&Self::gather(&b.variables, x), |v| {
                self.problem.constraint_block(k, v)
            })
            .1
        });
        for (k, (b, jac)) in self.blocks.iter().zip(parts).enumerate() {
            self.block_len_check(k, jac.len())?;
            let nv = b.variables.len();
            let start = self.first_jacobian_value[k];
            for r in 0..b.rows() {
                for a in 0..nv {
                    values[start + r * nv + a] = jac[r][a];
                }
            }
        }
        Ok(())
    }

    fn hessian_structure(&self) -> Option<Vec<(usize, usize)>> {
        Some(self.hessian.clone())
    }

    fn hessian_values(
        &self,
        x: &[f64],
        objective_factor: f64,
        lambda: &[f64],
        values: &mut [f64],
    ) -> EvalResult {
        values.fill(0.0);
        // Every term's and block's local Hessian is computed in parallel, then added in a fixed
        // order, so the result does not depend on the thread count.
        let terms: Vec<Option<(nalgebra::DMatrix<f64>, f64)>> = self.each(&self.terms, |k, t| {
            if objective_factor == 0.0 {
                return None;
            }
            let local = DVector::from_vec(Self::gather(&t.variables, x));
            if self.curvature != Curvature::Exact
                && self
                    .problem
                    .objective_residuals::<f64>(k, local.as_slice())
                    .is_some()
            {
                let (_, rows) = tape::jacobian(local.as_slice(), |v| {
                    self.problem.objective_residuals(k, v).unwrap_or_default()
                });
                let j = nalgebra::DMatrix::from_fn(rows.len(), local.len(), |r, a| rows[r][a]);
                return Some((j.transpose() * &j, 2.0 * objective_factor));
            }
            if let Some(h) = self.problem.objective_term_hessian(k, local.as_slice()) {
                return Some((h, objective_factor));
            }
            let (_, h) = tape::weighted_hessian(local.as_slice(), &[1.0], |v| {
                vec![self.problem.objective_term(k, v)]
            });
            Some((h, objective_factor))
        });
        let blocks: Vec<Option<(usize, nalgebra::DMatrix<f64>)>> =
            self.each(&self.blocks, |k, b| {
                let weights = &lambda[self.block_rows(k)];
                if b.linear
                    || self.curvature == Curvature::GaussNewtonObjective
                    || weights.iter().all(|&w| w == 0.0)
                {
                    return None;
                }
                let local = Self::gather(&b.variables, x);
                if let Some(h) = self.problem.constraint_block_hessian(k, &local, weights) {
                    return Some((b.rows(), h));
                }
                Some(tape::weighted_hessian_without(
                    &local,
                    weights,
                    &b.flat,
                    |v| self.problem.constraint_block(k, v),
                ))
            });
        let mut add = |vars: &[usize], index: &[usize], h: &nalgebra::DMatrix<f64>, scale: f64| {
            let mut p = 0;
            for a in 0..vars.len() {
                for b in 0..=a {
                    values[index[p]] += scale * h[(a, b)];
                    p += 1;
                }
            }
        };
        for (k, part) in terms.iter().enumerate() {
            if let Some((h, scale)) = part {
                add(&self.terms[k].variables, &self.term_hessian[k], h, *scale);
            }
        }
        for (k, part) in blocks.iter().enumerate() {
            if let Some((rows, h)) = part {
                self.block_len_check(k, *rows)?;
                for &(a, b, idx) in &self.block_hessian[k] {
                    values[idx] += h[(a, b)];
                }
            }
        }
        Ok(())
    }
}

#[cfg(test)]
#[allow(clippy::needless_range_loop)] // variable indices address several arrays at once
mod tests {
    use super::*;
    use crate::nlp::hs071_tests::HS071;

    fn finite_difference(f: impl Fn(&[f64]) -> f64, x: &[f64], i: usize) -> f64 {
        let h = 1e-6;
        let (mut a, mut b) = (x.to_vec(), x.to_vec());
        a[i] += h;
        b[i] -= h;
        (f(&a) - f(&b)) / (2.0 * h)
    }

    #[test]
    fn derivatives_match_finite_differences() {
        let p = AutoDiff::new(HS071).unwrap();
        let x = [1.3, 4.2, 3.7, 1.9];
        let mut grad = [0.0; 4];
        p.objective_gradient(&x, &mut grad).unwrap();
        for i in 0..4 {
            let fd = finite_difference(|x| p.objective(x).unwrap(), &x, i);
            assert!((grad[i] - fd).abs() < 1e-6, "∂f/∂x{i}: {} vs {fd}", grad[i]);
        }
        let structure = p.jacobian_structure();
        let mut jac = vec![0.0; structure.len()];
        p.jacobian_values(&x, &mut jac).unwrap();
        for (k, &(r, c)) in structure.iter().enumerate() {
            let fd = finite_difference(
                |x| {
                    let mut g = [0.0; 2];
                    p.constraints(x, &mut g).unwrap();
                    g[r]
                },
                &x,
                c,
            );
            assert!(
                (jac[k] - fd).abs() < 1e-5,
                "∂c{r}/∂x{c}: {} vs {fd}",
                jac[k]
            );
        }
        // Hessian of the Lagrangian σf + λ·c against differences of its gradient.
        let (sigma, lambda) = (0.7, [0.3, -1.1]);
        let hs = p.hessian_structure().unwrap();
        let mut h = vec![0.0; hs.len()];
        p.hessian_values(&x, sigma, &lambda, &mut h).unwrap();
        let lagrangian_gradient = |x: &[f64]| {
            let mut g = [0.0; 4];
            p.objective_gradient(x, &mut g).unwrap();
            let mut j = vec![0.0; structure.len()];
            p.jacobian_values(x, &mut j).unwrap();
            let mut out = [0.0; 4];
            for i in 0..4 {
                out[i] = sigma * g[i];
            }
            for (k, &(r, c)) in structure.iter().enumerate() {
                out[c] += lambda[r] * j[k];
            }
            out
        };
        for (k, &(r, c)) in hs.iter().enumerate() {
            let fd = finite_difference(|x| lagrangian_gradient(x)[r], &x, c);
            assert!((h[k] - fd).abs() < 1e-5, "H[{r},{c}]: {} vs {fd}", h[k]);
        }
        assert_eq!(
            hs.len(),
            10,
            "dense lower triangle of 4 variables, shared by all pieces"
        );
    }

    /// f = r₀² + r₁² with r = (x₀² − x₁, 3x₁ − 1), one equality c = x₀x₁ − 2.
    struct LeastSquares;
    impl BlockProblem for LeastSquares {
        fn num_variables(&self) -> usize {
            2
        }
        fn variable_bounds(&self, _: &mut [f64], _: &mut [f64]) {}
        fn initial_point(&self, _: &mut [f64]) {}
        fn objective_terms(&self) -> Vec<TermSpec> {
            vec![TermSpec {
                variables: vec![0, 1],
            }]
        }
        fn objective_term<D: Scalar>(&self, k: usize, x: &[D]) -> D {
            self.objective_residuals(k, x)
                .unwrap()
                .into_iter()
                .fold(D::zero(), |a, r| a + r.clone() * r)
        }
        fn objective_residuals<D: Scalar>(&self, _: usize, x: &[D]) -> Option<Vec<D>> {
            Some(vec![
                x[0].clone() * x[0].clone() - &x[1],
                x[1].clone() * 3.0 - 1.0,
            ])
        }
        fn constraint_blocks(&self) -> Vec<BlockSpec> {
            vec![BlockSpec::equal(vec![0, 1], vec![2.0])]
        }
        fn constraint_block<D: Scalar>(&self, _: usize, x: &[D]) -> Vec<D> {
            vec![x[0].clone() * x[1].clone()]
        }
    }

    #[test]
    fn gauss_newton_curvature_is_two_jt_j_plus_the_exact_constraint_curvature() {
        let x = [1.5, -0.5];
        let (sigma, lambda) = (0.5, [2.0]);
        // J = [[2x₀, −1], [0, 3]]; 2JᵀJ = 2·[[4x₀², −2x₀], [−2x₀, 10]]; λ∇²(x₀x₁) = [[0, λ], [λ, 0]].
        let jtj = [
            [2.0 * 4.0 * x[0] * x[0], 2.0 * -2.0 * x[0]],
            [2.0 * -2.0 * x[0], 2.0 * 10.0],
        ];
        let exact_objective = [
            [2.0 * (6.0 * x[0] * x[0] - 2.0 * x[1]), -4.0 * x[0]],
            [-4.0 * x[0], 20.0],
        ];
        let check = |curvature: Curvature, objective: [[f64; 2]; 2], constraint: f64| {
            let p = AutoDiff::new(LeastSquares)
                .unwrap()
                .with_curvature(curvature);
            let hs = p.hessian_structure().unwrap();
            let mut h = vec![0.0; hs.len()];
            p.hessian_values(&x, sigma, &lambda, &mut h).unwrap();
            for (k, &(r, c)) in hs.iter().enumerate() {
                let want = sigma * objective[r][c] + if r != c { constraint } else { 0.0 };
                assert!(
                    (h[k] - want).abs() < 1e-12,
                    "{curvature:?} H[{r},{c}] = {} want {want}",
                    h[k]
                );
            }
        };
        check(Curvature::Exact, exact_objective, lambda[0]);
        check(Curvature::GaussNewton, jtj, lambda[0]);
        check(Curvature::GaussNewtonObjective, jtj, 0.0);
        // The exact and Gauss–Newton objective curvatures differ (r₀ ≠ 0 here), so the check bites.
        assert!((exact_objective[0][0] - jtj[0][0]).abs() > 1.0);
    }

    #[test]
    fn blocks_naming_a_variable_twice_are_rejected() {
        struct Bad;
        impl BlockProblem for Bad {
            fn num_variables(&self) -> usize {
                2
            }
            fn variable_bounds(&self, _: &mut [f64], _: &mut [f64]) {}
            fn initial_point(&self, _: &mut [f64]) {}
            fn objective_terms(&self) -> Vec<TermSpec> {
                vec![]
            }
            fn objective_term<D: Scalar>(&self, _: usize, x: &[D]) -> D {
                x[0].clone()
            }
            fn constraint_blocks(&self) -> Vec<BlockSpec> {
                vec![BlockSpec::equal(vec![1, 1], vec![0.0])]
            }
            fn constraint_block<D: Scalar>(&self, _: usize, x: &[D]) -> Vec<D> {
                vec![x[0].clone()]
            }
        }
        assert!(matches!(
            AutoDiff::new(Bad),
            Err(NlpError::DuplicateEntry { .. })
        ));
    }
}
