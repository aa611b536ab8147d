//! The gait NLP's functions: the objective's residuals (3.14)–(3.17) and the constraint rows of
//! every block of [`GaitProblem`] (see `problem.rs` for what each block reads), its bounds and
//! its starting point.

use super::problem::{Block, KinematicRow, Term};
use super::*;

/// How far from the rest pose a lifted solve's starting springs hold their coordinates, rad
/// ([`GaitProblem::springs_holding_the_start`]). Measured on the horse's trot at 1 m/s, period
/// 0.8, seeds 0–9 (lifted, monotone barrier): no springs, median 438 iterations, costs
/// 0.78–1.06; 0.25 rad, median 283 iterations, costs 0.76–0.98; 0.15 rad, median 413 over the
/// first five seeds; 0.5 rad, two of the first seven seeds above 1.10.
const SPRING_START_STRETCH: f64 = 0.25;

impl GaitProblem {
    /// A neighbouring frame's coordinates as this frame sees them: moved by T or T⁻¹ across a
    /// transformed cycle's seam ([`Seam`]).
    pub(super) fn across<D: Scalar>(&self, q: &[D], seam: Seam) -> Vec<D> {
        match seam {
            Seam::None => q.to_vec(),
            Seam::Forward => self.cycle.apply_heading_root(q),
            Seam::Backward => self.cycle.inverse().apply_heading_root(q),
            Seam::Mirror => {
                let mut m = vec![D::zero(); q.len()];
                for (i, &(j, s)) in self.mirror.iter().enumerate() {
                    m[j] = q[i].clone() * s;
                }
                m
            }
        }
    }

    /// The effort term's residuals at one frame (3.14), r = s·t_a, or the muscle model's
    /// (3.26)–(3.33): `x` holds q_{i−1}, q_i, q_{i+1}, the passive elements and the frame's loads.
    pub(super) fn effort_residuals<D: Scalar>(
        &self,
        feet: &[usize],
        at: &[[f64; 3]],
        seams: [Seam; 2],
        x: &[D],
        morph: &Morphology<D>,
    ) -> Vec<D> {
        let sk = &self.spec.skeleton;
        let (dof, dt) = (self.layout.dof, self.spec.dt());
        let (qm, rest) = x.split_at(dof);
        let (q, rest) = rest.split_at(dof);
        let (qp, rest) = rest.split_at(dof);
        let (qm, qp) = (&self.across(qm, seams[0]), &self.across(qp, seams[1]));
        let np = self.layout.passive_dofs.len();
        let (passive, loads) = rest.split_at(3 * np);
        let qd: Vec<D> = (0..dof)
            .map(|d| (qp[d].clone() - &qm[d]) * (0.5 / dt))
            .collect();
        let qdd: Vec<D> = (0..dof)
            .map(|d| (qp[d].clone() - q[d].clone() * 2.0 + &qm[d]) * (1.0 / (dt * dt)))
            .collect();
        let id = self.effort_dynamics(feet, at, q, &qd, &qdd, loads, &morph);
        let scale = self.effort_scale();
        // Per passive coordinate: (t_a, t_p), with t_p = −k_s(q − q̄) − k_d q̇ (3.12–3.13)
        // and t_a = t − t_p.
        let torques: Vec<(D, D)> = self
            .layout
            .passive_dofs
            .iter()
            .enumerate()
            .map(|(p, &d)| {
                let (ks, rest, kd) = (&passive[3 * p], &passive[3 * p + 1], &passive[3 * p + 2]);
                let tp = -(ks.clone() * (q[d].clone() - rest) + kd.clone() * &qd[d]);
                (id.generalized_forces[d].clone() - &tp, tp)
            })
            .collect();
        if !self.spec.morphology.is_some_and(|m| m.muscle) {
            return torques.into_iter().map(|(ta, _)| ta * scale).collect();
        }
        // The muscle-aware effort (3.26)–(3.33), joint by joint.
        let mut r = Vec::new();
        for (i, limb) in sk.limbs.iter().enumerate() {
            let Some(parent) = limb.parent else { continue };
            let coords: Vec<usize> = limb
                .dofs
                .clone()
                .filter_map(|d| self.layout.passive_dofs.iter().position(|&e| e == d))
                .collect();
            if coords.is_empty() {
                continue;
            }
            let active: Vec<D> = coords.iter().map(|&p| torques[p].0.clone()).collect();
            let passive: Vec<D> = coords.iter().map(|&p| torques[p].1.clone()).collect();
            let frame = &id.kinematics.limbs[i];
            let axial = id.joint_forces[i].dot(&(&frame.end - &frame.origin));
            let arm = moment_arm(
                &morph.length[parent],
                &morph.radius[parent],
                &morph.length[i],
                &morph.radius[i],
            );
            let area = muscle_area(&morph.radius[parent], &morph.radius[i]);
            r.extend(muscle_residuals(
                &active, &passive, &axial, &arm, &area, scale,
            ));
        }
        r
    }

    /// Objective term `term` as weighted residuals r (the term is Σ r²): every cost of
    /// (3.14)–(3.17) is a sum of squares, so the Gauss–Newton Hessian applies
    /// ([`crate::spacetime::autodiff::Curvature`]).
    fn residuals<D: Scalar>(&self, term: usize, x: &[D]) -> Vec<D> {
        let sk = &self.spec.skeleton;
        let (dof, dt, n) = (self.layout.dof, self.spec.dt(), self.spec.frames as f64);
        let w = &self.spec.weights;
        let (x, morph) = self.shaped(x);
        match &self.terms[term].0 {
            Term::Effort { feet, at, seams } => self.effort_residuals(feet, at, *seams, x, &morph),
            // A lifted effort term: its variables are the frame's scaled active torques.
            Term::Torques => x.to_vec(),
            Term::Smooth {
                seam,
                path_step,
                path_yaw,
            } => {
                let (q, qn) = x.split_at(dof);
                let qn = &self.across(qn, *seam);
                let jv = (w.joint_velocity / n).sqrt() / dt;
                let open = !self.spec.closure.is_cyclic();
                // Off the treadmill the root travels: its x, z and yaw rates are measured against
                // the path's (a transformed cycle), or left out (an open clip).
                let mut r: Vec<D> = (0..dof)
                    .filter(|&d| !(open && [0, 3, 5].contains(&d)))
                    .map(|d| {
                        let expected = match (path_step, d) {
                            (Some(p), 0) => p.yaw,
                            (Some(p), 3) => p.x,
                            (Some(p), 5) => p.z,
                            _ => 0.0,
                        };
                        (qn[d].clone() - &q[d] - expected) * jv
                    })
                    .collect();
                if w.posture > 0.0 {
                    let wp = (w.posture / n).sqrt();
                    // A heading root's yaw (its first coordinate) is held to the path's.
                    let heading = sk.has_heading_root();
                    for &d in &self.posture {
                        let along = if heading && d == 0 { *path_yaw } else { 0.0 };
                        r.push((q[d].clone() - self.rest[d] - along) * wp);
                    }
                }
                if let Some(h) = sk.head {
                    let (k0, k1) = (
                        forward_kinematics(sk, &morph, q),
                        forward_kinematics(sk, &morph, qn),
                    );
                    let v = (&k1.limbs[h].end - &k0.limbs[h].end)
                        .scale_f((w.head_velocity / n).sqrt() / dt);
                    let ho = (w.head_orientation / n).sqrt();
                    let m = &k0.limbs[h].rotation.m;
                    if sk.has_heading_root() {
                        // Perpendicular to the heading ψ (the root's yaw): up, and sideways
                        // l = R_y(ψ)·ẑ; the head faces R_y(ψ).
                        let (s, c) = (q[0].sin(), q[0].cos());
                        r.push(v.y.clone());
                        r.push(v.x.clone() * s.clone() + v.z.clone() * c.clone());
                        let facing = [
                            [c.clone(), D::zero(), s.clone()],
                            [D::zero(), D::one(), D::zero()],
                            [-s.clone(), D::zero(), c.clone()],
                        ];
                        for (row, want) in m.iter().zip(&facing) {
                            for (e, f) in row.iter().zip(want) {
                                r.push((e.clone() - f) * ho);
                            }
                        }
                    } else {
                        r.extend([v.y, v.z]);
                        for (i, row) in m.iter().enumerate() {
                            for (j, e) in row.iter().enumerate() {
                                r.push(if i == j {
                                    (e.clone() - 1.0) * ho
                                } else {
                                    e.clone() * ho
                                });
                            }
                        }
                    }
                }
                r
            }
        }
    }
}

impl GaitProblem {
    /// Whether the joint torques are variables ([`Torques::Variables`]).
    pub fn lifted(&self) -> bool {
        self.layout.torque_start.iter().any(Option::is_some)
    }

    /// Sets lifted torques in `x` to what the motion, loads and springs of `x` make them: their
    /// rows then hold to rounding. Nothing to do when the torques are computed.
    pub fn consistent_torques(&self, x: &mut [f64]) {
        let np = self.layout.passive_dofs.len();
        let morph = self.spec.skeleton.morphology();
        for (block, spec) in &self.blocks {
            if let Block::Torques { feet, at, seams } = block {
                let vars = &spec.variables[..spec.variables.len() - self.layout.shape.len()];
                let (inputs, torques) = vars.split_at(vars.len() - np);
                let local: Vec<f64> = inputs.iter().map(|&v| x[v]).collect();
                let r = self.effort_residuals(feet, at, *seams, &local, &morph);
                for (&v, r) in torques.iter().zip(r) {
                    x[v] = r;
                }
            }
        }
    }

    /// A lifted solve's passive elements at its start: each a spring that holds its coordinate's
    /// torque over the cycle, on average, at the start's poses and loads, stretched by
    /// [`SPRING_START_STRETCH`] from the rest pose (q̄ = q_rest ± the stretch, k_s = t̄ / (q̄ −
    /// q_rest), within the coordinate's limits; no damper). The rest pose with no springs makes
    /// the joints carry the whole weight, an effort thousands of times the optimum's (9,744
    /// against 0.98 on the horse's trot, seed 0), and the solve spends its first hundred
    /// iterations getting rid of it ([`StartSprings`]). Nothing changes for the computed
    /// torques or a coordinate whose torque is nil or whose rest sits on its limit.
    fn springs_holding_the_start(&self, x: &mut [f64]) {
        let np = self.layout.passive_dofs.len();
        if !self.lifted() || np == 0 {
            return;
        }
        // The torque rows hold at the start, so the torque variables are s·t with no springs.
        let s = self.effort_scale();
        let mut mean = vec![0.0; np];
        let mut frames = 0.0;
        for (block, spec) in &self.blocks {
            if let Block::Torques { .. } = block {
                let vars = &spec.variables[..spec.variables.len() - self.layout.shape.len()];
                for (p, &v) in vars[vars.len() - np..].iter().enumerate() {
                    mean[p] += x[v] / s;
                }
                frames += 1.0;
            }
        }
        let (lo, hi) = self.spec.skeleton.bounds();
        let rest = self.spec.skeleton.rest_pose();
        for (p, &d) in self.layout.passive_dofs.iter().enumerate() {
            let t = mean[p] / frames;
            // The passive torque −k_s(q − q̄) at q = q_rest is k_s(q̄ − q_rest) = t.
            let target = (rest[d] + SPRING_START_STRETCH * t.signum()).clamp(lo[d], hi[d]);
            let stretch = target - rest[d];
            if t.abs() < 1e-9 || stretch.abs() < 1e-3 {
                continue;
            }
            let [ks, q_bar, _] = self.layout.passive(p);
            x[ks] = t / stretch;
            x[q_bar] = target;
        }
        self.consistent_torques(x);
    }
}

impl BlockProblem for GaitProblem {
    fn num_variables(&self) -> usize {
        self.layout.n
    }

    fn variable_bounds(&self, lower: &mut [f64], upper: &mut [f64]) {
        for v in self.layout.shape.clone().step_by(2) {
            (lower[v], upper[v]) = LENGTH_SCALE;
            (lower[v + 1], upper[v + 1]) = RADIUS_SCALE;
        }
        let (lo, hi) = self.spec.skeleton.bounds();
        for i in 0..self.spec.frames {
            for d in 0..self.layout.dof {
                lower[self.layout.q(i, d)] = lo[d];
                upper[self.layout.q(i, d)] = hi[d];
            }
        }
        // An open clip's ends are fixed where they are (even beyond a limit: they come from
        // clips the solver does not get to change).
        for (i, q) in self.fixed_frames() {
            for (d, v) in q.iter().enumerate() {
                lower[self.layout.q(i, d)] = *v;
                upper[self.layout.q(i, d)] = *v;
            }
        }
        for (p, &d) in self.layout.passive_dofs.iter().enumerate() {
            let [ks, rest, kd] = self.layout.passive(p);
            lower[ks] = 0.0;
            lower[kd] = 0.0;
            lower[rest] = lo[d];
            upper[rest] = hi[d];
        }
        for row in &self.layout.force_start {
            for s in row.iter().flatten() {
                lower[s + 1] = MIN_NORMAL_FORCE;
                if self.spec.skeleton.planar {
                    // In the plane: no force along z, no torque about x or y.
                    for k in [s + 2, s + 3, s + 4] {
                        (lower[k], upper[k]) = (0.0, 0.0);
                    }
                }
            }
        }
    }

    /// The rest pose in every frame (with a small seeded perturbation of the joint coordinates
    /// when the seed is not 0; on a transformed cycle the root placed along the path; an open
    /// clip interpolates between its fixed ends instead), no passive elements (k = 0, q̄ = rest;
    /// with lifted torques and [`StartSprings::Holding`], springs that hold the start,
    /// [`Self::springs_holding_the_start`]), and the weight shared equally by the feet in
    /// contact.
    fn initial_point(&self, x: &mut [f64]) {
        use rand::{Rng, SeedableRng};
        let rest = self.spec.skeleton.rest_pose();
        let (lo, hi) = self.spec.skeleton.bounds();
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(self.spec.seed);
        let n = self.spec.frames;
        let on_path = matches!(self.spec.closure, Closure::Transformed { .. });
        for i in 0..n {
            let mut q = rest.clone();
            if on_path && !self.spec.skeleton.planar {
                q = self.spec.path(i).apply_heading_root(&q);
            } else if on_path {
                q[3] += self.spec.path(i).x;
            }
            if let Closure::Open(ends) = &self.spec.closure {
                let s = (i as f64 - 1.0).clamp(0.0, (n - 3) as f64) / (n - 3) as f64;
                let (a, b) = (&ends.first[1], &ends.last[0]);
                q = a.iter().zip(b).map(|(a, b)| a + s * (b - a)).collect();
            }
            for d in 0..self.layout.dof {
                let noise = if self.spec.seed != 0 && d >= 6 {
                    rng.random_range(-0.02..0.02)
                } else {
                    0.0
                };
                x[self.layout.q(i, d)] = (q[d] + noise).clamp(lo[d], hi[d]);
            }
        }
        for (i, q) in self.fixed_frames() {
            for (d, v) in q.iter().enumerate() {
                x[self.layout.q(i, d)] = *v;
            }
        }
        for (p, &d) in self.layout.passive_dofs.iter().enumerate() {
            let [ks, r, kd] = self.layout.passive(p);
            x[ks] = 0.0;
            x[r] = rest[d];
            x[kd] = 0.0;
        }
        for i in 0..self.spec.frames {
            let loads = self.layout.loads(i);
            for &(_, s) in &loads {
                x[s + 1] = -GRAVITY[1] / loads.len() as f64;
            }
        }
        for v in self.layout.shape.clone() {
            x[v] = 1.0;
        }
        if let Some(clip) = &self.spec.warm_start {
            self.warm_start(clip, x);
            for (i, q) in self.fixed_frames() {
                for (d, v) in q.iter().enumerate() {
                    x[self.layout.q(i, d)] = *v;
                }
            }
        }
        self.consistent_torques(x);
        if self.spec.warm_start.is_none() && self.spec.start_springs == StartSprings::Holding {
            self.springs_holding_the_start(x);
        }
    }

    fn objective_terms(&self) -> Vec<TermSpec> {
        self.terms.iter().map(|t| t.1.clone()).collect()
    }

    fn objective_term<D: Scalar>(&self, term: usize, x: &[D]) -> D {
        let r = self.residuals(term, x);
        r.into_iter().fold(D::zero(), |acc, v| acc + v.clone() * v)
    }

    fn objective_residuals<D: Scalar>(&self, term: usize, x: &[D]) -> Option<Vec<D>> {
        Some(self.residuals(term, x))
    }

    fn objective_term_hessian(&self, term: usize, x: &[f64]) -> Option<nalgebra::DMatrix<f64>> {
        self.effort_hessian(term, x)
    }

    fn constraint_block_hessian(
        &self,
        block: usize,
        x: &[f64],
        weights: &[f64],
    ) -> Option<nalgebra::DMatrix<f64>> {
        self.torques_hessian(block, x, weights)
    }

    fn constraint_blocks(&self) -> Vec<BlockSpec> {
        self.blocks.iter().map(|b| b.1.clone()).collect()
    }

    fn constraint_block<D: Scalar>(&self, block: usize, x: &[D]) -> Vec<D> {
        let sk = &self.spec.skeleton;
        let dof = self.layout.dof;
        let block = &self.blocks[block].0;
        // Only the blocks with kinematics read the shape variables.
        let (x, morph) = match block {
            Block::Cones { .. } | Block::Centring | Block::MirrorSprings { .. } => (x, None),
            _ => {
                let (x, morph) = self.shaped(x);
                (x, Some(morph))
            }
        };
        let morph = || morph.as_ref().expect("kinematic blocks have a morphology");
        match block {
            Block::Kinematic { rows } => {
                let k = forward_kinematics(sk, morph(), x);
                rows.iter()
                    .map(|row| match row {
                        KinematicRow::Clearance(node) => Self::node(&k, *node).y,
                        KinematicRow::FootHeight(f) => k.foot(sk, *f).y.clone(),
                        KinematicRow::ToesHeight(f) => {
                            k.contact(sk, *f, &sk.toes(*f).unwrap_or([0.0; 3])).y
                        }
                        KinematicRow::Level(f) => k.limbs[sk.feet[*f]].rotation.m[1][2].clone(),
                        KinematicRow::Twist(f) => {
                            let r = &k.limbs[sk.feet[*f]].rotation.m;
                            r[0][2].clone() - &r[2][0]
                        }
                        KinematicRow::FlatX(f) => k.limbs[sk.feet[*f]].rotation.m[0][1].clone(),
                        KinematicRow::FlatZ(f) => k.limbs[sk.feet[*f]].rotation.m[2][1].clone(),
                        KinematicRow::Sole(f, c) => {
                            // The corner relative to the foot's end point, turned into the world
                            // (its height only).
                            let o = sk.sole_corner(*f, *c);
                            let frame = &k.limbs[sk.feet[*f]];
                            let m = &frame.rotation.m;
                            frame.end.y.clone()
                                + m[1][0].clone() * o[0]
                                + m[1][1].clone() * o[1]
                                + m[1][2].clone() * o[2]
                        }
                        KinematicRow::Separation(s) => {
                            let sep = &sk.separations[*s];
                            (&k.limbs[sep.a].end - &k.limbs[sep.b].end).norm_squared()
                        }
                        KinematicRow::HeadHeight => k.limbs
                            [sk.head.expect("a head-height row needs a head")]
                        .end
                        .y
                        .clone(),
                    })
                    .collect()
            }
            Block::Slip {
                foot,
                seam,
                turn,
                at,
            } => {
                let (a, b) = x.split_at(dof);
                let b = &self.across(b, *seam);
                let (ka, kb) = (
                    forward_kinematics(sk, morph(), a),
                    forward_kinematics(sk, morph(), b),
                );
                let d = kb.contact(sk, *foot, at) - ka.contact(sk, *foot, at);
                if sk.planar {
                    vec![d.x]
                } else if self.spec.closure.is_treadmill() {
                    vec![d.x, d.z]
                } else {
                    // The foot's forward axis keeps its direction in the ground plane: the
                    // vertical component of (R_a x̂) × (R_b x̂), |a||b| sin θ for the turn θ
                    // (left positive) from a to b, is zero. A pivot turns it by δ:
                    // cos δ · (a × b)_y − sin δ · (a · b) = |a||b| sin(θ − δ) = 0.
                    let (ra, rb) = (
                        &ka.limbs[sk.feet[*foot]].rotation.m,
                        &kb.limbs[sk.feet[*foot]].rotation.m,
                    );
                    let cross = ra[2][0].clone() * &rb[0][0] - ra[0][0].clone() * &rb[2][0];
                    let row = if *turn == 0.0 {
                        cross
                    } else {
                        let dot = ra[0][0].clone() * &rb[0][0] + ra[2][0].clone() * &rb[2][0];
                        cross * turn.cos() - dot * turn.sin()
                    };
                    vec![d.x, d.z, row]
                }
            }
            Block::Momentum { feet, at, seams } => {
                let (qm, rest) = x.split_at(dof);
                let (q, rest) = rest.split_at(dof);
                let (qp, loads) = rest.split_at(dof);
                let (qm, qp) = (&self.across(qm, seams[0]), &self.across(qp, seams[1]));
                let (km, k, kp) = (
                    forward_kinematics(sk, morph(), qm),
                    forward_kinematics(sk, morph(), q),
                    forward_kinematics(sk, morph(), qp),
                );
                let dt = self.spec.dt();
                let total = morph().total_mass();
                let mut linear = Vec3::<D>::from_f64(GRAVITY).scale(&-total.clone());
                let mut angular = Vec3::<D>::zero();
                for (l, mass) in morph().mass.iter().enumerate() {
                    let a = (&kp.limbs[l].com - k.limbs[l].com.scale_f(2.0) + &km.limbs[l].com)
                        .scale(&(mass.clone() * (1.0 / (dt * dt))));
                    angular = angular + (&k.limbs[l].com - &k.com).cross(&a);
                    linear = linear + a;
                }
                let inv = total.recip();
                let mut out_l = linear.scale(&inv);
                let mut out_a = angular.scale(&inv);
                for (j, &f) in feet.iter().enumerate() {
                    let force = Self::vec3(&loads[6 * j..]);
                    let torque = self.torque(&loads[6 * j + 3..]);
                    out_a = out_a - (k.contact(sk, f, &at[j]) - &k.com).cross(&force) - torque;
                    out_l = out_l - force;
                }
                if sk.planar {
                    vec![out_l.x, out_l.y, out_a.z]
                } else {
                    vec![out_l.x, out_l.y, out_l.z, out_a.x, out_a.y, out_a.z]
                }
            }
            Block::Torques { feet, at, seams } => {
                // τ − r(q_{i−1}, q_i, q_{i+1}, springs, loads) = 0: the lifted effort's torques
                // are the frame's (scaled) active joint torques.
                let np = self.layout.passive_dofs.len();
                let (inputs, torques) = x.split_at(x.len() - np);
                let r = self.effort_residuals(feet, at, *seams, inputs, morph());
                torques.iter().zip(r).map(|(t, r)| t.clone() - r).collect()
            }
            Block::Cones { rows } => {
                let (fx, fy, fz) = (&x[0], &x[1], &x[2]);
                let ty = &x[4];
                let [tx, tz] = rows.map(|[a, b]| x[3].clone() * a + x[5].clone() * b);
                let normal = fy.clone() * fy;
                let friction = normal.clone() * (self.spec.mu * self.spec.mu)
                    - fx.clone() * fx
                    - fz.clone() * fz;
                vec![
                    friction,
                    normal - tx.clone() * tx - ty.clone() * ty - tz.clone() * tz,
                ]
            }
            Block::Centring => x
                .chunks(self.spec.frames)
                .map(|c| c.iter().cloned().sum())
                .collect(),
            Block::MirrorSprings { rows } => rows
                .iter()
                .map(|&(a, b, s)| x[a].clone() - x[b].clone() * s)
                .collect(),
        }
    }
}
