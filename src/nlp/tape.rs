//! Reverse-mode automatic differentiation on a tape, with second-order adjoints for Hessians.
//!
//! [`super::autodiff`] differentiates each block of a spacetime NLP (Wampler 2012, thesis §3.2.4,
//! the sparse Jacobian (3.22) and the Hessian of the Lagrangian IPOPT asks for). Forward-mode dense
//! second-order dual numbers cost O(n²) work per arithmetic operation over a block's n
//! variables, and an effort term (Eq. 3.2, C₁‖τ‖²) reads about 90 variables on the simple
//! biped and 192 on the velociraptor (three frames, every passive spring and damper, the loads),
//! so its Hessian dominated a solve. Here a block is evaluated once with [`TapeVar`] numbers,
//! which record every operation with its local first and second partial derivatives on a
//! per-thread tape; then
//! - the gradient is one reverse (adjoint) sweep, a Jacobian one sweep per row;
//! - the Hessian of a weighted sum of outputs Σ wᵢ yᵢ is the second-order adjoint
//!   ("tangent-over-adjoint") model: per input direction e_j a forward tangent sweep ẋ and a
//!   reverse sweep of the adjoints' tangents give column j, ∇²(Σ wᵢ yᵢ) e_j. That is O(n)
//!   sweeps of O(ops) each, against O(n²·ops) for the duals; the directions are swept
//!   8, 16 or 32 at a time ([`lanes_for`]).
//!
//! For a node v = φ(a, b) with adjoint v̄ and adjoint tangent v̄̇ the sweeps are
//! v̇ = φₐȧ + φ_b ḃ; ā += v̄ φₐ; ā̇ += v̄̇ φₐ + v̄ (φₐₐ ȧ + φₐ_b ḃ), and the same for b.
//!
//! Results are deterministic: the sweeps visit the nodes in a fixed order.

use num_dual::{DualNum, DualStruct, Mappable};
use num_traits::{FromPrimitive, Inv, Num, One, Signed, Zero};
use std::cell::RefCell;
use std::fmt;
use std::iter::{Product, Sum};
use std::ops::{
    Add, AddAssign, Div, DivAssign, Mul, MulAssign, Neg, Rem, RemAssign, Sub, SubAssign,
};

/// How many input directions the Hessian sweeps together when `swept` of them are left (the
/// tangents are `[f64; lanes]`): groups of 32 while more than 16 are left, then one group as
/// narrow as fits the rest. Each group visits the tape's nodes once forwards and once backwards,
/// so wider groups mean fewer visits, each with more arithmetic; a group with few directions
/// would waste the lanes it leaves empty, and 64 lanes no longer fit the caches. Measured on the
/// gait NLPs' Hessians at a fixed point (one thread, median of 20, interleaved; effort terms of
/// 84 and 168 directions): 8 lanes everywhere 21.0 ms (simple biped) and 112 ms (horse); 16
/// everywhere 17.0 and 86 ms; 32 everywhere 17.2 and 80 ms; per block one width, the narrowest
/// that fits it up to 32, 15.4 and 73 ms; 64 lanes above 96 directions 116 ms on the horse.
/// The simple biped's 30 momentum blocks (36 directions) as 32 + 8 lanes instead of 32 + 32:
/// 4.4 ms against 5.5 (one thread, median of 15). The lanes are independent, so the width
/// changes no bit of the result.
pub fn lanes_for(swept: usize) -> usize {
    match swept {
        0..=8 => 8,
        9..=16 => 16,
        _ => 32,
    }
}

/// One recorded operation v = φ(a, b): parents and local partial derivatives. Node 0 is the
/// constant sink: constants and unary operations point at it with zero partials, its tangent
/// is always zero and what flows back into it is ignored.
#[derive(Debug, Clone, Copy)]
struct Node {
    a: u32,
    b: u32,
    da: f64,
    db: f64,
    daa: f64,
    dab: f64,
    dbb: f64,
}

const SINK: u32 = 0;

impl Node {
    /// A node without parents: the sink, or an input.
    const LEAF: Node = Node {
        a: SINK,
        b: SINK,
        da: 0.0,
        db: 0.0,
        daa: 0.0,
        dab: 0.0,
        dbb: 0.0,
    };
}

thread_local! {
    static TAPE: RefCell<Vec<Node>> = const { RefCell::new(Vec::new()) };
    static SCRATCH: RefCell<Scratch> = const { RefCell::new(Scratch {
        dot: Vec::new(),
        bar_dot: Vec::new(),
        moving: Vec::new(),
        reached: Vec::new(),
    }) };
}

/// Work arrays of the Hessian sweeps, one entry per tape node: tangents, adjoint tangents (as
/// many numbers per node as the sweep has lanes), and whether each is live for the current group
/// of directions.
struct Scratch {
    dot: Vec<f64>,
    bar_dot: Vec<f64>,
    moving: Vec<bool>,
    reached: Vec<bool>,
}

impl Scratch {
    /// Room for `len` nodes of `lanes` lanes (stale entries are never read).
    fn fit(&mut self, len: usize, lanes: usize) {
        if self.dot.len() < len * lanes {
            self.dot.resize(len * lanes, 0.0);
            self.bar_dot.resize(len * lanes, 0.0);
        }
        if self.moving.len() < len {
            self.moving.resize(len, false);
            self.reached.resize(len, false);
        }
    }
}

#[inline]
fn push(node: Node) -> u32 {
    TAPE.with_borrow_mut(|t| {
        t.push(node);
        (t.len() - 1) as u32
    })
}

/// A number being recorded: its value and its node on this thread's tape (0: a constant).
#[derive(Clone, Copy)]
pub struct TapeVar {
    value: f64,
    node: u32,
}

impl TapeVar {
    pub fn constant(value: f64) -> Self {
        Self { value, node: SINK }
    }

    /// v = φ(self) with φ' = `d`, φ'' = `dd`.
    fn unary(self, value: f64, d: f64, dd: f64) -> Self {
        if self.node == SINK {
            return Self::constant(value);
        }
        let node = push(Node {
            a: self.node,
            b: SINK,
            da: d,
            db: 0.0,
            daa: dd,
            dab: 0.0,
            dbb: 0.0,
        });
        Self { value, node }
    }

    /// v = φ(self, other) with its first and second partials.
    #[allow(clippy::too_many_arguments)]
    fn binary(
        self,
        other: Self,
        value: f64,
        da: f64,
        db: f64,
        daa: f64,
        dab: f64,
        dbb: f64,
    ) -> Self {
        match (self.node, other.node) {
            (SINK, SINK) => Self::constant(value),
            (_, SINK) => self.unary(value, da, daa),
            (SINK, _) => other.unary(value, db, dbb),
            (a, b) => Self {
                value,
                node: push(Node {
                    a,
                    b,
                    da,
                    db,
                    daa,
                    dab,
                    dbb,
                }),
            },
        }
    }

    fn mul_var(self, o: Self) -> Self {
        self.binary(o, self.value * o.value, o.value, self.value, 0.0, 1.0, 0.0)
    }

    fn div_var(self, o: Self) -> Self {
        let r = 1.0 / o.value;
        let q = self.value * r;
        self.binary(o, q, r, -q * r, 0.0, -r * r, 2.0 * q * r * r)
    }
}

/// A recorded evaluation: the tape and the outputs' nodes.
pub struct Recording {
    nodes: Vec<Node>,
    inputs: usize,
}

/// Evaluates `f` at `x` on a fresh tape of this thread. Inputs are nodes 1..=n.
pub fn record<R>(x: &[f64], f: impl FnOnce(&[TapeVar]) -> R) -> (R, Recording) {
    // A recording left unfinished by a panic is discarded; recordings are never nested.
    TAPE.with_borrow_mut(|t| {
        t.clear();
        t.push(Node::LEAF);
    });
    let vars: Vec<TapeVar> = x
        .iter()
        .map(|&value| TapeVar {
            value,
            node: push(Node::LEAF),
        })
        .collect();
    let out = f(&vars);
    // Hand the tape over, leaving an empty one with the same capacity for the next recording.
    let nodes = TAPE.with_borrow_mut(|t| {
        let capacity = t.capacity();
        std::mem::replace(t, Vec::with_capacity(capacity))
    });
    (
        out,
        Recording {
            nodes,
            inputs: x.len(),
        },
    )
}

/// The portable sweeps compiled again for a CPU feature (`#[target_feature]`): the same code,
/// wider vector instructions.
macro_rules! sweeps_with {
    ($name:ident, $feature:literal) => {
        #[cfg(target_arch = "x86_64")]
        #[target_feature(enable = $feature)]
        unsafe fn $name<const L: usize>(
            &self,
            bar: &[f64],
            swept: &[usize],
            h: &mut nalgebra::DMatrix<f64>,
            scratch: &mut Scratch,
        ) {
            self.sweep_groups_portable::<L>(bar, swept, h, scratch)
        }
    };
}

impl Recording {
    /// Adjoints of every node for the seeds Σ wᵢ yᵢ. The nodes are in the order they were
    /// computed, so none after the last seed feeds the outputs: the sweep starts there (a
    /// Jacobian takes one sweep per row, and a block's rows are computed one after another).
    fn adjoints(&self, seeds: &[(TapeVar, f64)]) -> Vec<f64> {
        let mut bar = vec![0.0; self.nodes.len()];
        self.adjoints_into(seeds, &mut bar);
        bar
    }

    /// The sweep of [`Self::adjoints`] into `bar`, zero below the sweep's top on entry; returns
    /// that top: the sweep writes only below it.
    fn adjoints_into(&self, seeds: &[(TapeVar, f64)], bar: &mut [f64]) -> usize {
        let top = seeds
            .iter()
            .fold(self.inputs + 1, |top, (y, _)| top.max(y.node as usize + 1));
        for &(y, w) in seeds {
            bar[y.node as usize] += w;
        }
        for v in (self.inputs + 1..top).rev() {
            let w = bar[v];
            if w != 0.0 {
                let n = &self.nodes[v];
                bar[n.a as usize] += w * n.da;
                bar[n.b as usize] += w * n.db;
            }
        }
        top
    }

    /// The rows ∇yᵣ of a Jacobian, one adjoint sweep each, all in one work array: after a row
    /// only the part its sweep wrote is cleared (rows computed early sweep a short tape), where a
    /// fresh array per row would cost the whole tape's length every time.
    pub fn jacobian_rows(&self, outputs: &[TapeVar]) -> Vec<Vec<f64>> {
        let mut bar = vec![0.0; self.nodes.len()];
        outputs
            .iter()
            .map(|&y| {
                let top = self.adjoints_into(&[(y, 1.0)], &mut bar);
                let row = bar[1..=self.inputs].to_vec();
                bar[..top].fill(0.0);
                row
            })
            .collect()
    }

    /// ∇(Σ wᵢ yᵢ) with respect to the inputs.
    pub fn gradient(&self, seeds: &[(TapeVar, f64)]) -> Vec<f64> {
        self.adjoints(seeds)[1..=self.inputs].to_vec()
    }

    /// ∇²(Σ wᵢ yᵢ) with respect to the inputs (n × n, column-major as nalgebra's).
    ///
    /// Per group of directions, a node whose parents do not depend on those inputs has a zero
    /// tangent, and a node that nothing has flowed back into has a zero adjoint tangent: the
    /// sweeps skip a node when both hold, or when it has neither an adjoint (it does not feed
    /// the outputs) nor an adjoint tangent (its contributions would be exact zeros), so a group
    /// costs the part of the tape that depends on or feeds its inputs, not the whole tape. The
    /// values are those of the full sweeps.
    pub fn hessian(&self, seeds: &[(TapeVar, f64)]) -> nalgebra::DMatrix<f64> {
        self.hessian_without(seeds, &[])
    }

    /// [`Self::hessian`] for a function with no curvature among the inputs `flat` (sorted,
    /// distinct): ∂²/∂xₐ∂x_b = 0 for every a, b in `flat`, a = b included (loads, which enter
    /// the dynamics linearly and only multiply the coordinates). No direction of `flat` is swept:
    /// their columns are the swept columns' rows (the Hessian is symmetric) and zero among
    /// themselves, so the work is that of the other inputs alone.
    pub fn hessian_without(
        &self,
        seeds: &[(TapeVar, f64)],
        flat: &[usize],
    ) -> nalgebra::DMatrix<f64> {
        let n = self.inputs;
        let swept: Vec<usize> = (0..n).filter(|i| flat.binary_search(i).is_err()).collect();
        let mut h = self.hessian_columns(seeds, &swept);
        for &j in flat {
            for &i in &swept {
                h[(i, j)] = h[(j, i)];
            }
        }
        h
    }

    /// The Hessian's columns `swept` (rows: every input); the other columns are left zero.
    fn hessian_columns(&self, seeds: &[(TapeVar, f64)], swept: &[usize]) -> nalgebra::DMatrix<f64> {
        let n = self.inputs;
        let bar = self.adjoints(seeds);
        let mut h = nalgebra::DMatrix::zeros(n, n);
        // The sweeps' work arrays live on the thread and keep their capacity between calls (a
        // solve takes thousands of Hessians of the same blocks); stale entries are never read.
        SCRATCH.with_borrow_mut(|scratch| self.sweep_groups(&bar, swept, &mut h, scratch));
        h
    }

    /// [`Self::hessian`] by the given sweeps (portable, AVX2 or AVX-512), whatever the CPU
    /// would pick (tests compare their bits).
    #[cfg(test)]
    fn hessian_by(
        &self,
        seeds: &[(TapeVar, f64)],
        sweeps: impl Fn(&Self, &[f64], &[usize], &mut nalgebra::DMatrix<f64>, &mut Scratch),
    ) -> nalgebra::DMatrix<f64> {
        let n = self.inputs;
        let len = self.nodes.len();
        let bar = self.adjoints(seeds);
        let mut h = nalgebra::DMatrix::zeros(n, n);
        let swept: Vec<usize> = (0..n).collect();
        let mut scratch = Scratch {
            dot: Vec::new(),
            bar_dot: Vec::new(),
            moving: Vec::new(),
            reached: Vec::new(),
        };
        scratch.fit(len, 32);
        sweeps(self, &bar, &swept, &mut h, &mut scratch);
        h
    }

    /// The tangent and adjoint-tangent sweeps of [`Self::hessian_columns`], group by group of
    /// [`lanes_for`] the directions left, with the widest vector instructions the CPU has: the lanes are
    /// independent and no product is fused into an add, so every instruction set and every
    /// width gives the same bits.
    fn sweep_groups(
        &self,
        bar: &[f64],
        swept: &[usize],
        h: &mut nalgebra::DMatrix<f64>,
        scratch: &mut Scratch,
    ) {
        scratch.fit(self.nodes.len(), 32);
        let mut rest = swept;
        while !rest.is_empty() {
            let lanes = lanes_for(rest.len());
            let (group, after) = rest.split_at(lanes.min(rest.len()));
            match lanes {
                8 => self.sweep_groups_fastest::<8>(bar, group, h, scratch),
                16 => self.sweep_groups_fastest::<16>(bar, group, h, scratch),
                _ => self.sweep_groups_fastest::<32>(bar, group, h, scratch),
            }
            rest = after;
        }
    }

    fn sweep_groups_fastest<const L: usize>(
        &self,
        bar: &[f64],
        swept: &[usize],
        h: &mut nalgebra::DMatrix<f64>,
        scratch: &mut Scratch,
    ) {
        #[cfg(target_arch = "x86_64")]
        {
            if std::arch::is_x86_feature_detected!("avx512f") {
                // SAFETY: the CPU has AVX-512F.
                return unsafe { self.sweep_groups_avx512::<L>(bar, swept, h, scratch) };
            }
            if std::arch::is_x86_feature_detected!("avx2") {
                // SAFETY: the CPU has AVX2.
                return unsafe { self.sweep_groups_avx2::<L>(bar, swept, h, scratch) };
            }
        }
        self.sweep_groups_portable::<L>(bar, swept, h, scratch)
    }

    sweeps_with!(sweep_groups_avx512, "avx512f");
    sweeps_with!(sweep_groups_avx2, "avx2");

    #[inline(always)]
    fn sweep_groups_portable<const L: usize>(
        &self,
        bar: &[f64],
        swept: &[usize],
        h: &mut nalgebra::DMatrix<f64>,
        scratch: &mut Scratch,
    ) {
        let Scratch {
            dot,
            bar_dot,
            moving,
            reached,
        } = scratch;
        let n = self.inputs;
        let len = self.nodes.len();
        let (moving, reached) = (&mut moving[..len], &mut reached[..len]);
        let dot = &mut dot.as_chunks_mut::<L>().0[..len];
        let bar_dot = &mut bar_dot.as_chunks_mut::<L>().0[..len];
        // For the current group: the node's tangent may be non-zero (`moving`, else `dot` is
        // stale and not read); something flowed into its adjoint tangent (`reached`, else
        // `bar_dot` is stale and not read). The sink (node 0) is neither.
        let zero = [0.0; L];
        for group in swept.chunks(L) {
            moving.fill(false);
            reached.fill(false);
            for (l, &j) in group.iter().enumerate() {
                dot[1 + j] = zero;
                dot[1 + j][l] = 1.0;
                moving[1 + j] = true;
            }
            for v in n + 1..len {
                let node = &self.nodes[v];
                let (a, b) = (node.a as usize, node.b as usize);
                if !(moving[a] || moving[b]) {
                    continue;
                }
                let ta = if moving[a] { dot[a] } else { zero };
                let tb = if moving[b] { dot[b] } else { zero };
                let mut t = [0.0; L];
                for l in 0..L {
                    t[l] = node.da * ta[l] + node.db * tb[l];
                }
                dot[v] = t;
                moving[v] = true;
            }
            for v in (n + 1..len).rev() {
                let node = &self.nodes[v];
                let (a, b) = (node.a as usize, node.b as usize);
                let w = bar[v];
                // Without an adjoint or an adjoint tangent a node passes back exact zeros.
                if !reached[v] && (w == 0.0 || !(moving[a] || moving[b])) {
                    continue;
                }
                let wd = if reached[v] { bar_dot[v] } else { zero };
                let ta = if moving[a] { dot[a] } else { zero };
                let tb = if moving[b] { dot[b] } else { zero };
                let (mut ga, mut gb) = ([0.0; L], [0.0; L]);
                for l in 0..L {
                    ga[l] = wd[l] * node.da + w * (node.daa * ta[l] + node.dab * tb[l]);
                    gb[l] = wd[l] * node.db + w * (node.dab * ta[l] + node.dbb * tb[l]);
                }
                for (p, g) in [(a, ga), (b, gb)] {
                    if p == SINK as usize {
                        continue;
                    }
                    if reached[p] {
                        let acc = &mut bar_dot[p];
                        for l in 0..L {
                            acc[l] += g[l];
                        }
                    } else {
                        let mut acc = zero;
                        for l in 0..L {
                            acc[l] += g[l];
                        }
                        bar_dot[p] = acc;
                        reached[p] = true;
                    }
                }
            }
            for (l, &j) in group.iter().enumerate() {
                for i in 0..n {
                    h[(i, j)] = if reached[1 + i] {
                        bar_dot[1 + i][l]
                    } else {
                        0.0
                    };
                }
            }
        }
    }
}

/// Gradient of a scalar function: (value, ∇f).
pub fn gradient(x: &[f64], f: impl FnOnce(&[TapeVar]) -> TapeVar) -> (f64, Vec<f64>) {
    let (y, tape) = record(x, f);
    (y.value, tape.gradient(&[(y, 1.0)]))
}

/// Jacobian of a vector function, row-major: (values, J) with J[r][a] = ∂yᵣ/∂xₐ.
pub fn jacobian(
    x: &[f64],
    f: impl FnOnce(&[TapeVar]) -> Vec<TapeVar>,
) -> (Vec<f64>, Vec<Vec<f64>>) {
    let (y, tape) = record(x, f);
    let rows = tape.jacobian_rows(&y);
    (y.iter().map(|r| r.value).collect(), rows)
}

/// Hessian of Σ wᵢ fᵢ(x) for a vector function f and weights w (as many as f's outputs).
pub fn weighted_hessian(
    x: &[f64],
    weights: &[f64],
    f: impl FnOnce(&[TapeVar]) -> Vec<TapeVar>,
) -> (usize, nalgebra::DMatrix<f64>) {
    weighted_hessian_without(x, weights, &[], f)
}

/// [`weighted_hessian`] of a function with no curvature among the inputs `flat`
/// ([`Recording::hessian_without`]).
pub fn weighted_hessian_without(
    x: &[f64],
    weights: &[f64],
    flat: &[usize],
    f: impl FnOnce(&[TapeVar]) -> Vec<TapeVar>,
) -> (usize, nalgebra::DMatrix<f64>) {
    let (y, tape) = record(x, f);
    let seeds: Vec<(TapeVar, f64)> = y.iter().copied().zip(weights.iter().copied()).collect();
    (y.len(), tape.hessian_without(&seeds, flat))
}

/// One recording of a vector function f, differentiated twice: its values, its Jacobian (rows,
/// J[r][a] = ∂yᵣ/∂xₐ) when asked, and ∇²(Σ wᵢ fᵢ), no direction of `flat` swept
/// ([`Recording::hessian_without`]). `weights` chooses, from the values, the weights and whether
/// the Jacobian is wanted. For a term built on f, such as a sum of squares of residuals made
/// from f, whose curvature needs both; a weighted sum of f's outputs alone (a lifted effort's
/// rows) skips the Jacobian's sweeps.
pub fn values_jacobian_hessian_without(
    x: &[f64],
    flat: &[usize],
    f: impl FnOnce(&[TapeVar]) -> Vec<TapeVar>,
    weights: impl FnOnce(&[f64]) -> (Vec<f64>, bool),
) -> (Vec<f64>, Option<Vec<Vec<f64>>>, nalgebra::DMatrix<f64>) {
    let (y, tape) = record(x, f);
    let values: Vec<f64> = y.iter().map(|v| v.value).collect();
    let (weights, jacobian) = weights(&values);
    let rows = jacobian.then(|| tape.jacobian_rows(&y));
    let seeds: Vec<(TapeVar, f64)> = y.iter().copied().zip(weights).collect();
    let h = tape.hessian_without(&seeds, flat);
    (values, rows, h)
}

mod arithmetic;

#[cfg(test)]
mod tests;
