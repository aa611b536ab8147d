//! The footstep objective of Agrawal (2016, thesis §5.4, Eqs. 5.11–5.16) and its analytic
//! gradient: `f = w_d f_d + w_s f_s + w_o f_o + w_dg f_dg + w_l f_l` over the steps of one phase,
//! with the phase weights of Table 5.2.
//!
//! - Data prior (5.12): each step's vector from the plant before it and its yaw, in the
//!   template's frame, against the template's: `(x − x^d)² + w_a (y − y^d)² + w_θ (θ − θ^d)²`,
//!   w_a = 2, w_θ = 0.4.
//! - Smooth step (5.13): `Σ (L_i − L_{i−1})²`, L the distance between consecutive plants.
//! - Heading orientation (5.14): `Σ α^{n−i} (θ_i − θ_g)²`, α = 0.9, later steps weigh more.
//! - Distance from goal (5.15): `Σ α_dg^{n−i} d_i²`, α_dg = 0.9. The thesis's d is the distance
//!   to the entry's first footstep; that pulls every prepared step onto the one spot and stretches
//!   the step before them, so here d is the distance to the step's own place on the way there:
//!   the prepared steps spaced evenly up to the entry's first footstep, the entry's steps at
//!   their template places in the task's frame.
//! - Average location (5.16): `Σ d_i²`, d the distance from the heading line.
//! - Added here, not in the thesis: a turn limit, `W_LIMIT · max(0, |θ_i − θ_j| − 90°)²` for j
//!   the plant before and the same foot's plant before, so no step turns a foot, or splays the
//!   feet, past what a person does (the thesis's data prior came from motion capture, where that
//!   never happened).
//! - Added here too: a crossing limit, `W_LIMIT · max(0, c − l)²` with l the step's distance to
//!   its own side of the other foot's line (the plant before, facing its yaw) and c = 6 cm, so a
//!   left foot never lands right of the right foot.
//!
//! Angles are wrapped before they are squared; the gradient is the derivative away from the
//! wrap's seam.

use super::step::wrap;

/// The lateral weight of the data prior (w_a).
pub const W_LATERAL: f64 = 2.0;
/// The yaw weight of the data prior (w_θ).
pub const W_YAW: f64 = 0.4;
/// The decay of the heading term over earlier steps (α).
pub const ALPHA_HEADING: f64 = 0.9;
/// The decay of the goal term over earlier steps (α_dg).
pub const ALPHA_GOAL: f64 = 0.9;

/// The weight of the turn limit.
pub const W_LIMIT: f64 = 10.0;
/// The largest yaw between consecutive plants the turn limit leaves alone, rad.
pub const TURN_LIMIT: f64 = std::f64::consts::FRAC_PI_2;

/// The least distance a foot lands on its own side of the other foot's line, m.
pub const CROSSING_CLEARANCE: f64 = 0.06;

/// The weights of the five terms (Table 5.2's columns).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct PhaseWeights {
    pub data: f64,
    pub smooth: f64,
    pub orientation: f64,
    pub goal: f64,
    pub location: f64,
}

impl PhaseWeights {
    /// Table 5.2, the same for every task category.
    pub const EXIT: PhaseWeights = PhaseWeights {
        data: 0.4,
        smooth: 0.1,
        orientation: 0.4,
        goal: 0.0,
        location: 0.1,
    };
    pub const LOCOMOTION: PhaseWeights = PhaseWeights {
        data: 0.4,
        smooth: 0.2,
        orientation: 0.2,
        goal: 0.0,
        location: 0.2,
    };
    pub const ENTER_PREPARATION: PhaseWeights = PhaseWeights {
        data: 0.4,
        smooth: 0.1,
        orientation: 0.1,
        goal: 0.3,
        location: 0.1,
    };
    pub const ENTER: PhaseWeights = PhaseWeights {
        data: 0.4,
        smooth: 0.1,
        orientation: 0.0,
        goal: 0.5,
        location: 0.0,
    };
}

/// A plant as the optimizer sees it: ground position and yaw.
pub type Plant = [f64; 3];

/// One phase's objective over the plants `first..first + targets.len()` of a plan; the plants
/// before are fixed context (at least one: the step vector of the first plant needs the one
/// before it).
#[derive(Clone, Debug)]
pub struct Window {
    pub weights: PhaseWeights,
    pub first: usize,
    /// The direction of the template frame's x axis (first footstep to last, or to the goal).
    pub frame_angle: f64,
    /// Per step of the window: the template's step vector (x, y) in the template frame and its
    /// yaw relative to the frame.
    pub targets: Vec<[f64; 3]>,
    /// The heading to the next task (θ_g).
    pub goal_heading: f64,
    /// Per step of the window, the index of the same foot's plant before it (the turn limit).
    pub same_foot: Vec<Option<usize>>,
    /// Per step of the window, +1 for a left foot and −1 for a right one; 0 when the plant
    /// before is the same foot (no crossing limit).
    pub sides: Vec<f64>,
    /// Per step of the window, its place on the way into the entry (f_dg).
    pub goal_points: Vec<[f64; 2]>,
    /// The heading line (f_l): a point on it and its unit normal.
    pub line_point: [f64; 2],
    pub line_normal: [f64; 2],
}

impl Window {
    /// The data prior's targets that make `plants` (as they are) cost nothing in f_d.
    pub fn targets_of(
        plants: &[Plant],
        first: usize,
        len: usize,
        frame_angle: f64,
    ) -> Vec<[f64; 3]> {
        (first..first + len)
            .map(|i| {
                let (x, y) = frame_components(plants[i], plants[i - 1], frame_angle);
                [x, y, wrap(plants[i][2] - frame_angle)]
            })
            .collect()
    }

    /// The objective at `plants`; with `grad`, adds its gradient with respect to every plant's
    /// coordinates (context plants included) to `grad`.
    pub fn evaluate(&self, plants: &[Plant], mut grad: Option<&mut [Plant]>) -> f64 {
        let w = &self.weights;
        let n = self.targets.len();
        let (s, c) = self.frame_angle.sin_cos();
        let mut f = 0.0;
        for k in 0..n {
            let i = self.first + k;
            let p = plants[i];
            let q = plants[i - 1];
            let later = (n - 1 - k) as i32;
            // Data prior.
            if w.data != 0.0 {
                let t = self.targets[k];
                let (x, y) = frame_components(p, q, self.frame_angle);
                let (ex, ey, et) = (x - t[0], y - t[1], wrap(p[2] - self.frame_angle - t[2]));
                f += w.data * (ex * ex + W_LATERAL * ey * ey + W_YAW * et * et);
                if let Some(g) = grad.as_deref_mut() {
                    let gx = w.data * (2.0 * ex * c - 2.0 * W_LATERAL * ey * s);
                    let gy = w.data * (2.0 * ex * s + 2.0 * W_LATERAL * ey * c);
                    add(g, i, [gx, gy, w.data * 2.0 * W_YAW * et]);
                    add(g, i - 1, [-gx, -gy, 0.0]);
                }
            }
            // Turn limit.
            let before = self.same_foot[k].filter(|&j| j != i - 1);
            for j in std::iter::once(i - 1).chain(before) {
                let turn = wrap(p[2] - plants[j][2]);
                let over = turn.abs() - TURN_LIMIT;
                if over > 0.0 {
                    f += W_LIMIT * over * over;
                    if let Some(g) = grad.as_deref_mut() {
                        let a = 2.0 * W_LIMIT * over * turn.signum();
                        add(g, i, [0.0, 0.0, a]);
                        add(g, j, [0.0, 0.0, -a]);
                    }
                }
            }
            // Crossing limit: l = (p − q)·v(θ_q), v the left normal of the other foot's yaw.
            if self.sides[k] != 0.0 {
                let (sq, cq) = q[2].sin_cos();
                let (dx, dy) = (p[0] - q[0], p[1] - q[1]);
                let l = self.sides[k] * (-sq * dx + cq * dy);
                let short = CROSSING_CLEARANCE - l;
                if short > 0.0 {
                    f += W_LIMIT * short * short;
                    if let Some(g) = grad.as_deref_mut() {
                        let a = -2.0 * W_LIMIT * short * self.sides[k];
                        add(g, i, [-a * sq, a * cq, 0.0]);
                        add(g, i - 1, [a * sq, -a * cq, a * (-cq * dx - sq * dy)]);
                    }
                }
            }
            // Smooth step.
            if w.smooth != 0.0 && i >= 2 {
                let (l1, d1) = length(p, q);
                let (l0, d0) = length(q, plants[i - 2]);
                let e = l1 - l0;
                f += w.smooth * e * e;
                if let Some(g) = grad.as_deref_mut() {
                    let a = 2.0 * w.smooth * e;
                    add(g, i, [a * d1[0], a * d1[1], 0.0]);
                    add(
                        g,
                        i - 1,
                        [-a * d1[0] - a * d0[0], -a * d1[1] - a * d0[1], 0.0],
                    );
                    add(g, i - 2, [a * d0[0], a * d0[1], 0.0]);
                }
            }
            // Heading orientation.
            if w.orientation != 0.0 {
                let a = ALPHA_HEADING.powi(later);
                let e = wrap(p[2] - self.goal_heading);
                f += w.orientation * a * e * e;
                if let Some(g) = grad.as_deref_mut() {
                    add(g, i, [0.0, 0.0, 2.0 * w.orientation * a * e]);
                }
            }
            // Distance from goal.
            if w.goal != 0.0 {
                let a = ALPHA_GOAL.powi(later);
                let e = self.goal_points[k];
                let (dx, dy) = (p[0] - e[0], p[1] - e[1]);
                f += w.goal * a * (dx * dx + dy * dy);
                if let Some(g) = grad.as_deref_mut() {
                    add(g, i, [2.0 * w.goal * a * dx, 2.0 * w.goal * a * dy, 0.0]);
                }
            }
            // Average location.
            if w.location != 0.0 {
                let nrm = self.line_normal;
                let d = (p[0] - self.line_point[0]) * nrm[0] + (p[1] - self.line_point[1]) * nrm[1];
                f += w.location * d * d;
                if let Some(g) = grad.as_deref_mut() {
                    let a = 2.0 * w.location * d;
                    add(g, i, [a * nrm[0], a * nrm[1], 0.0]);
                }
            }
        }
        f
    }
}

/// The step vector `p − q` in the frame whose x axis points along `angle`.
fn frame_components(p: Plant, q: Plant, angle: f64) -> (f64, f64) {
    let (s, c) = angle.sin_cos();
    let (dx, dy) = (p[0] - q[0], p[1] - q[1]);
    (c * dx + s * dy, -s * dx + c * dy)
}

/// The distance from `q` to `p` and its derivative with respect to `p` (zero at coincidence).
fn length(p: Plant, q: Plant) -> (f64, [f64; 2]) {
    let (dx, dy) = (p[0] - q[0], p[1] - q[1]);
    let l = dx.hypot(dy);
    if l < 1e-12 {
        (0.0, [0.0, 0.0])
    } else {
        (l, [dx / l, dy / l])
    }
}

fn add(g: &mut [Plant], i: usize, v: [f64; 3]) {
    for (a, b) in g[i].iter_mut().zip(v) {
        *a += b;
    }
}
