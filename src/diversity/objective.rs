//! The diversity objective of Agrawal et al. 2014 (§3, Eq. 1), maximized:
//! D = Σ_{i=0..N} ( −C(M_i) + Σ_{j=0..N} d(M_i, M_j) + K_eff·d_min(M_i) ),
//! with M_0 the fixed input motion and d_min(M_i) = min_{j≠i} d(M_i, M_j) (self excluded, else the
//! term is 0); the motion and shape distances between outcomes, where K goes ([`KPlacement`], Eq. 1
//! is ambiguous) and the feasibility-first ranking the penalty of §6 calls for. The search that
//! maximises it is [`super::search`].

use crate::optim::Bounds;
use crate::optim::scheduler::Verdict;
use serde::{Deserialize, Serialize};

/// Result of simulating one parameter vector (computed once, cached; distances are recomputed
/// cheaply).
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct Outcome {
    /// Constraint penalty C ≥ 0 (0 = feasible).
    pub penalty: f64,
    /// Motion features with the metric weights baked in; motion distance = sum of squared
    /// differences.
    pub features: Vec<f64>,
    /// Link lengths (m); shape distance = Σ |L − L'| (L1, weights 1, §4.2).
    pub shape: Vec<f64>,
    /// Trajectory hash (opaque here).
    pub hash: u128,
}

/// Which pairwise distance d drives the objective (Agrawal et al. 2014, §4).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum DistanceKind {
    Motion,
    Shape,
}

/// d(a, b). Vectors of different lengths (a broken evaluation) give NaN, which ranks last.
pub fn distance(kind: DistanceKind, a: &Outcome, b: &Outcome) -> f64 {
    match kind {
        DistanceKind::Motion => {
            if a.features.len() != b.features.len() {
                return f64::NAN;
            }
            a.features
                .iter()
                .zip(&b.features)
                .map(|(x, y)| (x - y) * (x - y))
                .sum()
        }
        DistanceKind::Shape => {
            if a.shape.len() != b.shape.len() {
                return f64::NAN;
            }
            a.shape
                .iter()
                .zip(&b.shape)
                .map(|(x, y)| (x - y).abs())
                .sum()
        }
    }
}

/// Evaluates parameter vectors (in the optimizer's coordinates). Must be deterministic.
pub trait Evaluator: Sync {
    fn dimension(&self) -> usize;
    /// Box for CMA (the caller's normalized coordinates).
    fn bounds(&self) -> Bounds;
    fn evaluate(&self, params: &[f64]) -> Outcome;
}

/// Where the K·d_min term of eq. (1) sits (its typesetting is ambiguous).
///
/// **Default: [`KPlacement::InsideSum`]** (the literal typesetting), chosen on the Fig. 2 toy
/// (`search_tests.rs`, `fig2_*`): [0,1]², squared Euclidean distance, N = 4 round-robin from the
/// reference M_0 = (0.1, 0.1) near a corner, 16 samples × 300 generations, σ0 = 0.1, seeds 1–8.
/// "Cluster": two variants within 0.05; "at corners": all four within 0.05 of a corner.
///
/// | placement, K (K_eff) | clustered | all at corners | mean corner dist. | min pair |
/// |---|---|---|---|---|
/// | either, K = 0 | 7/8 | 8/8 | 0.000 | 0.000 |
/// | InsideSum, K = 10 (50) | 0/8 | 5/8 | 0.046 | 0.141 |
/// | InsideSum, K = 100 (500) | 0/8 | 0/8 | 0.134 | 0.105 |
/// | OutsideSum, K = 10 (10) | 6/8 | 8/8 | 0.000 | 0.000 |
/// | OutsideSum, K = 100 (100) | 0/8 | 2/8 | 0.105 | 0.110 |
///
/// Only InsideSum gives the paper's picture: K = 0 clusters at extremal points, K = 10 spreads
/// (no cluster; the smallest distance is |M_0 − corner| = √0.02 ≈ 0.141, that of the global
/// optimum) and mostly reaches the corners, K = 100 "fails to find extremal points". With
/// OutsideSum, K = 10 still clusters like K = 0. The global optimum is the four corners for every
/// K > 0; the under-spreading is a local optimum: the d_min term of the variant at the far corner
/// (1, 1) rewards its neighbours for staying away from it, trapping them part-way along the edges
/// near M_0 (e.g. (0.21, 0), D = 184.7 against 290.6 for the corners at K_eff = 100). From the
/// centre (0.5, 0.5) every K > 0, either placement, reaches the four corners in 5/5 seeds, so the
/// toy needs an off-centre reference.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum KPlacement {
    /// Literal typesetting: K inside the j-sum, so K_eff = K·(N+1).
    InsideSum,
    /// K_eff = K.
    OutsideSum,
}

impl Default for KPlacement {
    /// [`KPlacement::InsideSum`]: it reproduces Fig. 2 on the toy, see the type's docs.
    fn default() -> Self {
        KPlacement::InsideSum
    }
}

impl KPlacement {
    /// K_eff for a set of `motions` motions (M_0 included, i.e. N+1).
    pub fn k_eff(self, k: f64, motions: usize) -> f64 {
        match self {
            KPlacement::InsideSum => k * motions as f64,
            KPlacement::OutsideSum => k,
        }
    }
}

/// Symmetric matrix of pairwise distances over motions 0..len (zero diagonal).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct DistanceMatrix {
    pub(super) len: usize,
    pub(super) d: Vec<f64>,
}

impl DistanceMatrix {
    pub fn new(kind: DistanceKind, outcomes: &[Outcome]) -> Self {
        let len = outcomes.len();
        let mut m = DistanceMatrix {
            len,
            d: vec![0.0; len * len],
        };
        for i in 0..len {
            for j in i + 1..len {
                let v = distance(kind, &outcomes[i], &outcomes[j]);
                m.d[i * len + j] = v;
                m.d[j * len + i] = v;
            }
        }
        m
    }
    pub fn len(&self) -> usize {
        self.len
    }
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }
    pub fn get(&self, i: usize, j: usize) -> f64 {
        self.d[i * self.len + j]
    }
    /// Replaces row and column `i` by `row` (`row[i]` is ignored; the diagonal stays 0).
    pub fn set_row(&mut self, i: usize, row: &[f64]) {
        for j in 0..self.len {
            let v = if j == i { 0.0 } else { row[j] };
            self.d[i * self.len + j] = v;
            self.d[j * self.len + i] = v;
        }
    }
}

/// D of eq. (1) and its per-motion parts.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Objective {
    /// D (maximized).
    pub value: f64,
    /// d_min(M_i) = min_{j≠i} d(M_i, M_j); 0 for a set of one motion.
    pub d_min: Vec<f64>,
}

/// NaN-propagating minimum.
fn nan_min(a: f64, b: f64) -> f64 {
    if a.is_nan() || b.is_nan() {
        f64::NAN
    } else {
        a.min(b)
    }
}

/// D over motions 0..m, with the distance and penalty of each motion given by closures.
fn objective_with(
    m: usize,
    d: impl Fn(usize, usize) -> f64,
    penalty: impl Fn(usize) -> f64,
    k_eff: f64,
) -> Objective {
    let mut value = 0.0;
    let mut d_min = Vec::with_capacity(m);
    for i in 0..m {
        let mut sum = 0.0;
        let mut min = f64::INFINITY;
        for j in 0..m {
            if j == i {
                continue; // d(M_i, M_i) = 0 adds nothing to the sum and must not be the minimum.
            }
            let v = d(i, j);
            sum += v;
            min = nan_min(min, v);
        }
        if m == 1 {
            min = 0.0;
        }
        value += -penalty(i) + sum + k_eff * min;
        d_min.push(min);
    }
    Objective { value, d_min }
}

/// D of eq. (1) over `outcomes` (index 0 = M_0), computing all pairwise distances.
pub fn objective(
    outcomes: &[Outcome],
    kind: DistanceKind,
    k: f64,
    placement: KPlacement,
) -> Objective {
    let matrix = DistanceMatrix::new(kind, outcomes);
    let penalties: Vec<f64> = outcomes.iter().map(|o| o.penalty).collect();
    objective_from_matrix(&matrix, &penalties, placement.k_eff(k, outcomes.len()))
}

/// D over the first `penalties.len()` motions of `matrix` (a prefix, so progressive addition
/// can score the motions added so far).
pub fn objective_from_matrix(matrix: &DistanceMatrix, penalties: &[f64], k_eff: f64) -> Objective {
    let m = penalties.len().min(matrix.len());
    objective_with(m, |i, j| matrix.get(i, j), |i| penalties[i], k_eff)
}

/// D with motion `slot` replaced by a candidate whose distances to motions 0..m are `row` and
/// whose penalty is `penalty`; the other motions keep their cached distances. Needs only the m
/// distances in `row` (O(N) distance evaluations), plus O(N²) arithmetic on cached numbers.
pub fn score_replacement(
    matrix: &DistanceMatrix,
    penalties: &[f64],
    slot: usize,
    row: &[f64],
    penalty: f64,
    k_eff: f64,
) -> f64 {
    let m = penalties.len().min(matrix.len());
    if slot >= m || row.len() < m {
        return f64::NAN;
    }
    let d = |i: usize, j: usize| {
        if i == slot {
            row[j]
        } else if j == slot {
            row[i]
        } else {
            matrix.get(i, j)
        }
    };
    let p = |i: usize| if i == slot { penalty } else { penalties[i] };
    objective_with(m, d, p, k_eff).value
}

/// The verdict on a candidate of distance objective `d` with constraint penalty `penalty` (the
/// one rule of every search, [`Verdict`]): CMA-ES minimises −D, feasible candidates first;
/// infeasible ones (penalty > 0, Agrawal et al. 2014's penalty that "rapidly dominates") still
/// rank among themselves by D, so a search that starts infeasible is pulled towards C = 0; a
/// failed rollout (NaN) ranks last. D itself keeps −C (eq. 1), but with K·d_min weighted
/// K·(N+1) = 50 a small violation (C ≈ 1.7 on backflip2d) can buy more distance than it costs,
/// so that alone let a variant end infeasible.
pub fn verdict(d: f64, penalty: f64) -> Verdict {
    let feasible = !(penalty > 0.0 || penalty.is_nan());
    Verdict::of(-d, feasible)
}

/// The rank incumbents are compared by (higher is better): D, less
/// [`crate::optim::scheduler::INFEASIBLE_OFFSET`] when infeasible; NaN for a failure.
pub fn rank_of(v: Verdict) -> f64 {
    match v {
        Verdict::Failed => f64::NAN,
        other => -other.fitness(),
    }
}

/// The rank of a candidate ([`rank_of`] its [`verdict`]).
pub fn feasibility_rank(d: f64, penalty: f64) -> f64 {
    rank_of(verdict(d, penalty))
}
