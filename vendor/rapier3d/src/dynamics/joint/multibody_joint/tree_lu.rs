//! A factorization of a multibody's joint-space matrices that follows the tree's sparsity.
//!
//! With the degrees of freedom numbered parent-first (as `assembly_id`s are), entry (a, b) of
//! the joint-space mass matrix, and of its Coriolis- and gyroscope-augmented variant, can be
//! non-zero only when one of a, b is an ancestor of (or equal to) the other: "branch-induced
//! sparsity" (Featherstone, *Efficient Factorization of the Joint-Space Inertia Matrix for
//! Branched Kinematic Trees*, IJRR 2005). Gaussian elimination in the order n−1, …, 0 (leaves
//! first) then creates no fill-in: eliminating k updates only entries (i, j) with i and j both
//! ancestors of k. Factoring costs Σₖ dₖ² and a solve 2 Σₖ dₖ (dₖ the depth of k) instead of
//! n³/3 and n².
//!
//! The augmented matrix is not symmetric, so this is an LU (no pivoting: the matrices are the
//! symmetric positive-definite mass matrix plus small `dt`-scaled terms), not Featherstone's
//! LTDL. Every product is a plain multiply then add in a fixed order, so the result does not
//! depend on the CPU's vector extensions.

use crate::alloc_prelude::*;
use crate::math::Real;
use na::{DMatrix, Dyn, StorageMut};

/// The parent of a degree of freedom that has none (a root's first one).
pub(crate) const NO_PARENT: usize = usize::MAX;

/// A matrix with branch-induced sparsity, factored (see the module docs).
#[derive(Clone, Debug, Default)]
pub(crate) struct TreeLu {
    /// Per degree of freedom k, its pivot `a_kk`.
    pivots: Vec<Real>,
    /// Per degree of freedom k, `ancestors[start[k]..start[k + 1]]`: its ancestors i (nearest
    /// first) with the multiplier `a_ik / a_kk` and the updated `a_ki`.
    ancestors: Vec<(usize, Real, Real)>,
    start: Vec<usize>,
    /// No pivot was zero or non-finite.
    ok: bool,
}

impl TreeLu {
    /// Factors `matrix` (n × n, entries outside the tree pattern are ignored) for the tree whose
    /// degree of freedom k has parent `parents[k]` (always < k, or [`NO_PARENT`]).
    pub(crate) fn factor(matrix: DMatrix<Real>, parents: &[usize]) -> Self {
        let n = matrix.nrows();
        debug_assert_eq!(parents.len(), n);
        let mut a = matrix;
        // Column-major: entry (i, j) at i + j·n.
        let data = a.as_mut_slice();
        let mut ok = true;
        for k in (0..n).rev() {
            let pivot = data[k + k * n];
            if pivot == 0.0 || !pivot.is_finite() {
                ok = false;
                continue;
            }
            // Column multipliers a_ik / a_kk for the ancestors i of k.
            let mut i = parents[k];
            while i != NO_PARENT {
                data[i + k * n] /= pivot;
                i = parents[i];
            }
            // Schur complement on the ancestors: a_ij -= (a_ik / a_kk) · a_kj.
            let mut j = parents[k];
            while j != NO_PARENT {
                let akj = data[k + j * n];
                let mut i = parents[k];
                while i != NO_PARENT {
                    data[i + j * n] -= data[i + k * n] * akj;
                    i = parents[i];
                }
                j = parents[j];
            }
        }
        let mut pivots = Vec::with_capacity(n);
        let mut start = Vec::with_capacity(n + 1);
        let mut ancestors = Vec::new();
        for k in 0..n {
            pivots.push(data[k + k * n]);
            start.push(ancestors.len());
            let mut i = parents[k];
            while i != NO_PARENT {
                ancestors.push((i, data[i + k * n], data[k + i * n]));
                i = parents[i];
            }
        }
        start.push(ancestors.len());
        Self {
            pivots,
            ancestors,
            start,
            ok,
        }
    }

    /// The factored matrix's size.
    pub(crate) fn dim(&self) -> usize {
        self.pivots.len()
    }

    /// Whether every pivot was non-zero and finite (the solve is then meaningful).
    pub(crate) fn is_ok(&self) -> bool {
        self.ok
    }

    /// Solves `A x = b` in place for every column of `b`.
    pub(crate) fn solve_mut<C: na::Dim, S: StorageMut<Real, Dyn, C>>(
        &self,
        b: &mut na::Matrix<Real, Dyn, C, S>,
    ) {
        let n = self.dim();
        let mut stack = [0.0 as Real; 64];
        let mut heap = Vec::new();
        let x: &mut [Real] = if n <= stack.len() {
            &mut stack[..n]
        } else {
            heap.resize(n, 0.0);
            &mut heap
        };
        for c in 0..b.ncols() {
            for (k, v) in x.iter_mut().enumerate() {
                *v = b[(k, c)];
            }
            self.solve_slice(x);
            for (k, v) in x.iter().enumerate() {
                b[(k, c)] = *v;
            }
        }
    }

    fn solve_slice(&self, x: &mut [Real]) {
        let n = self.dim();
        // Forward: eliminate the leaves first, as in the factorization.
        for k in (0..n).rev() {
            let xk = x[k];
            if xk != 0.0 {
                for &(i, l, _) in &self.ancestors[self.start[k]..self.start[k + 1]] {
                    x[i] -= l * xk;
                }
            }
        }
        // Back substitution from the root.
        for k in 0..n {
            let mut v = x[k];
            for &(j, _, u) in &self.ancestors[self.start[k]..self.start[k + 1]] {
                v -= u * x[j];
            }
            x[k] = v / self.pivots[k];
        }
    }
}

#[cfg(test)]
mod test {
    use super::*;

    /// A tree: 0 ← 1 ← 2, 1 ← 3 ← 4, 0 ← 5.
    const PARENTS: [usize; 6] = [NO_PARENT, 0, 1, 1, 3, 0];

    fn ancestor_or_self(mut a: usize, b: usize) -> bool {
        while a != NO_PARENT {
            if a == b {
                return true;
            }
            a = PARENTS[a];
        }
        false
    }

    /// A non-symmetric, diagonally heavy matrix with the tree's pattern.
    fn matrix() -> DMatrix<Real> {
        DMatrix::from_fn(6, 6, |i, j| {
            if ancestor_or_self(i, j) || ancestor_or_self(j, i) {
                if i == j {
                    10.0 + i as Real
                } else {
                    0.3 * (i as Real + 1.0) - 0.7 * (j as Real) / 3.0
                }
            } else {
                0.0
            }
        })
    }

    #[test]
    fn tree_lu_solves_like_a_dense_lu() {
        let m = matrix();
        let lu = TreeLu::factor(m.clone(), &PARENTS);
        assert!(lu.is_ok());
        let b = na::DMatrix::from_fn(6, 2, |i, c| (i as Real - 2.5) * (c as Real + 1.0));
        let mut x = b.clone();
        lu.solve_mut(&mut x);
        let residual = &m * &x - &b;
        assert!(residual.amax() < 1.0e-5, "{residual}");
        let dense = m.clone().lu().solve(&b).unwrap();
        assert!((x - dense).amax() < 1.0e-5);
    }

    #[test]
    fn a_zero_pivot_is_reported() {
        let mut m = matrix();
        m[(4, 4)] = 0.0;
        assert!(!TreeLu::factor(m, &PARENTS).is_ok());
    }
}
