//! The gait NLP (specs/004.md §1.2, see the module docs of [`super`]): where the variables live
//! in x, the constraint blocks (dynamics, contact, friction, torque ellipsoid, cyclicity,
//! separations, head height) and the objective terms, as a [`BlockProblem`] whose exact
//! derivatives come from automatic differentiation.

use super::*;

/// Where the variables live in x.
#[derive(Debug, Clone)]
struct Layout {
    dof: usize,
    frames: usize,
    /// Non-root rotational coordinates carrying passive elements.
    passive_dofs: Vec<usize>,
    passive_start: usize,
    /// force_start[frame][foot]: the first of the 6 load variables (f/m then t/m).
    force_start: Vec<Vec<Option<usize>>>,
    /// The shape variables (length scale, radius scale per limb group), last; empty without
    /// morphology.
    shape: std::ops::Range<usize>,
    n: usize,
}

impl Layout {
    /// `shape_vars`: the number of shape variables (twice the limb groups), 0 without morphology.
    fn new(spec: &GaitSpec, shape_vars: usize) -> Self {
        let dof = spec.skeleton.dof();
        let frames = spec.frames;
        let rotational = spec.skeleton.rotational_dofs();
        let passive_dofs: Vec<usize> = (6..dof).filter(|&d| rotational[d]).collect();
        let passive_start = frames * dof;
        let mut next = passive_start + 3 * passive_dofs.len();
        let force_start = (0..frames)
            .map(|i| {
                (0..spec.skeleton.feet.len())
                    .map(|k| {
                        spec.in_contact(i, k).then(|| {
                            next += 6;
                            next - 6
                        })
                    })
                    .collect()
            })
            .collect();
        Self {
            dof,
            frames,
            passive_dofs,
            passive_start,
            force_start,
            shape: next..next + shape_vars,
            n: next + shape_vars,
        }
    }

    fn q(&self, frame: usize, d: usize) -> usize {
        frame * self.dof + d
    }

    fn q_vars(&self, frame: usize) -> impl Iterator<Item = usize> + '_ {
        (0..self.dof).map(move |d| self.q(frame, d))
    }

    /// (stiffness, rest, damping) of passive coordinate p.
    fn passive(&self, p: usize) -> [usize; 3] {
        let s = self.passive_start + 3 * p;
        [s, s + 1, s + 2]
    }

    fn next(&self, i: usize) -> usize {
        (i + 1) % self.frames
    }

    fn prev(&self, i: usize) -> usize {
        (i + self.frames - 1) % self.frames
    }

    /// Feet in contact at frame i, with their first load variable.
    fn loads(&self, i: usize) -> Vec<(usize, usize)> {
        self.force_start[i]
            .iter()
            .enumerate()
            .filter_map(|(k, s)| s.map(|s| (k, s)))
            .collect()
    }
}

/// A point whose height is bounded below (3.2).
#[derive(Debug, Clone, Copy, PartialEq)]
enum Node {
    Origin(usize),
    End(usize),
}

#[derive(Debug, Clone, PartialEq)]
enum KinematicRow {
    Clearance(Node),
    FootHeight(usize),
    Twist(usize),
    Separation(usize),
    /// The head point's height (bounded below by the minimum head height).
    HeadHeight,
}

#[derive(Debug, Clone, PartialEq)]
enum Block {
    /// One frame's (3.2), (3.3), (3.5), (3.6) rows; variables q_i.
    Kinematic { rows: Vec<KinematicRow> },
    /// (3.4) for foot k between frame i and the next; variables q_i, q_{i+1}.
    Slip { foot: usize },
    /// (3.8)–(3.9) at one frame; variables q_{i−1}, q_i, q_{i+1}, then the frame's loads.
    Momentum { feet: Vec<usize> },
    /// (3.10)–(3.11) for one contact; variables f/m, t/(m ν).
    Cones,
    /// (3.7); variables every frame's root x, then every frame's root z.
    Centring,
}

#[derive(Debug, Clone, PartialEq)]
enum Term {
    /// (3.14) at one frame; variables q_{i−1}, q_i, q_{i+1}, passive (k_s, q̄, k_d)…, loads.
    Effort { feet: Vec<usize> },
    /// (3.15)–(3.17) at one frame; variables q_i, q_{i+1}.
    Smooth,
}

/// The fixed-timing gait NLP of §1.2, as a [`BlockProblem`] (wrap it in [`crate::spacetime::AutoDiff`]).
#[derive(Debug, Clone)]
pub struct GaitProblem {
    spec: GaitSpec,
    layout: Layout,
    /// The variable limb groups, with morphology.
    shapes: Option<ShapeGroups>,
    blocks: Vec<(Block, BlockSpec)>,
    terms: Vec<(Term, TermSpec)>,
    mass: f64,
}

impl GaitProblem {
    pub fn new(spec: GaitSpec) -> Self {
        let sk = &spec.skeleton;
        let shapes = spec
            .morphology
            .map(|m| ShapeGroups::new(sk, m.min_head_height.is_some()));
        let layout = Layout::new(&spec, shapes.as_ref().map_or(0, |g| 2 * g.len()));
        // Nodes: the root's origin and every limb end, plus any limb origin that is neither its
        // parent's origin (at = 0) nor its parent's end (at = 1) without offset.
        let mut nodes = vec![Node::Origin(0)];
        for (i, limb) in sk.limbs.iter().enumerate() {
            if i > 0 && limb.offset == [0.0; 3] && (limb.at == 0.0 || limb.at == 1.0) {
                // coincides with an existing node
            } else if i > 0 {
                nodes.push(Node::Origin(i));
            }
            nodes.push(Node::End(i));
        }
        let feet = sk.feet.len();
        let mut blocks = Vec::new();
        for i in 0..spec.frames {
            let mut rows = Vec::new();
            let (mut lower, mut upper) = (Vec::new(), Vec::new());
            for &node in &nodes {
                let contact_foot = match node {
                    Node::End(l) => sk
                        .feet
                        .iter()
                        .position(|&f| f == l)
                        .filter(|&k| spec.in_contact(i, k)),
                    Node::Origin(_) => None,
                };
                if contact_foot.is_none() {
                    rows.push(KinematicRow::Clearance(node));
                    lower.push(0.0);
                    upper.push(f64::INFINITY);
                }
            }
            for k in 0..feet {
                if spec.in_contact(i, k) {
                    rows.push(KinematicRow::FootHeight(k));
                    lower.push(0.0);
                    upper.push(0.0);
                    // A planar foot cannot twist about the vertical: the row would be 0 = 0.
                    if !sk.planar {
                        rows.push(KinematicRow::Twist(k));
                        lower.push(0.0);
                        upper.push(0.0);
                    }
                }
            }
            for (s, sep) in sk.separations.iter().enumerate() {
                rows.push(KinematicRow::Separation(s));
                lower.push(sep.min_distance * sep.min_distance);
                upper.push(f64::INFINITY);
            }
            if let (Some(h), Some(_)) = (spec.morphology.and_then(|m| m.min_head_height), sk.head) {
                rows.push(KinematicRow::HeadHeight);
                lower.push(h);
                upper.push(f64::INFINITY);
            }
            let variables = layout.q_vars(i).chain(layout.shape.clone()).collect();
            blocks.push((
                Block::Kinematic { rows },
                BlockSpec {
                    variables,
                    lower,
                    upper,
                    linear: false,
                },
            ));
        }
        let dx = -spec.speed * spec.dt();
        for i in 0..spec.frames {
            let j = layout.next(i);
            for k in 0..feet {
                if spec.in_contact(i, k) && spec.in_contact(j, k) && i != j {
                    let variables = layout
                        .q_vars(i)
                        .chain(layout.q_vars(j))
                        .chain(layout.shape.clone())
                        .collect();
                    let targets = if sk.planar { vec![dx] } else { vec![dx, 0.0] };
                    blocks.push((
                        Block::Slip { foot: k },
                        BlockSpec::equal(variables, targets),
                    ));
                }
            }
        }
        for i in 0..spec.frames {
            let loads = layout.loads(i);
            let mut variables: Vec<usize> = layout
                .q_vars(layout.prev(i))
                .chain(layout.q_vars(i))
                .chain(layout.q_vars(layout.next(i)))
                .collect();
            for &(_, s) in &loads {
                variables.extend(s..s + 6);
            }
            variables.extend(layout.shape.clone());
            let feet = loads.iter().map(|l| l.0).collect();
            let rows = if sk.planar { 3 } else { 6 };
            blocks.push((
                Block::Momentum { feet },
                BlockSpec::equal(variables, vec![0.0; rows]),
            ));
        }
        for i in 0..spec.frames {
            for (_, s) in layout.loads(i) {
                let spec_ = BlockSpec {
                    variables: (s..s + 6).collect(),
                    lower: vec![0.0; 2],
                    upper: vec![f64::INFINITY; 2],
                    linear: false,
                };
                blocks.push((Block::Cones, spec_));
            }
        }
        // (A planar root's z is fixed: only x is centred.)
        let centring: Vec<usize> = (0..spec.frames)
            .map(|i| layout.q(i, 3))
            .chain(
                (0..spec.frames)
                    .filter(|_| !sk.planar)
                    .map(|i| layout.q(i, 5)),
            )
            .collect();
        let rows = if sk.planar { 1 } else { 2 };
        blocks.push((
            Block::Centring,
            BlockSpec::equal(centring, vec![0.0; rows]).linear(),
        ));

        let mut terms = Vec::new();
        for i in 0..spec.frames {
            let loads = layout.loads(i);
            let mut variables: Vec<usize> = layout
                .q_vars(layout.prev(i))
                .chain(layout.q_vars(i))
                .chain(layout.q_vars(layout.next(i)))
                .collect();
            variables
                .extend(layout.passive_start..layout.passive_start + 3 * layout.passive_dofs.len());
            for &(_, s) in &loads {
                variables.extend(s..s + 6);
            }
            variables.extend(layout.shape.clone());
            terms.push((
                Term::Effort {
                    feet: loads.iter().map(|l| l.0).collect(),
                },
                TermSpec { variables },
            ));
        }
        for i in 0..spec.frames {
            let variables = layout
                .q_vars(i)
                .chain(layout.q_vars(layout.next(i)))
                .chain(layout.shape.clone())
                .collect();
            terms.push((Term::Smooth, TermSpec { variables }));
        }
        let mass = sk.total_mass();
        Self {
            spec,
            layout,
            shapes,
            blocks,
            terms,
            mass,
        }
    }

    pub fn spec(&self) -> &GaitSpec {
        &self.spec
    }

    /// Number of variables (for messages).
    pub fn variables(&self) -> usize {
        self.layout.n
    }

    /// q of every frame.
    pub fn poses(&self, x: &[f64]) -> Vec<Vec<f64>> {
        (0..self.spec.frames)
            .map(|i| self.layout.q_vars(i).map(|v| x[v]).collect())
            .collect()
    }

    /// The limbs' sizes at x, with morphology.
    pub fn limb_shapes(&self, x: &[f64]) -> Option<Vec<LimbShape>> {
        let groups = self.shapes.as_ref()?;
        let sk = &self.spec.skeleton;
        let morph = groups.morphology(sk, &x[self.layout.shape.clone()]);
        Some(limb_shapes(sk, &morph))
    }

    /// Overwrites the rest-pose start `x` with what `clip` has (see [`GaitSpec::with_warm_start`],
    /// which checked its sizes), clamped to the bounds.
    fn warm_start(&self, clip: &GaitClip, x: &mut [f64]) {
        let sk = &self.spec.skeleton;
        let (lo, hi) = sk.bounds();
        for (i, q) in clip.frames.iter().enumerate() {
            for (d, v) in q.iter().enumerate() {
                x[self.layout.q(i, d)] = v.clamp(lo[d], hi[d]);
            }
        }
        let names = sk.dof_names();
        for (p, &d) in self.layout.passive_dofs.iter().enumerate() {
            if let Some(e) = clip.passive.iter().find(|e| e.coordinate == names[d]) {
                let [ks, rest, kd] = self.layout.passive(p);
                x[ks] = e.stiffness.max(0.0);
                x[rest] = e.rest.clamp(lo[d], hi[d]);
                x[kd] = e.damping.max(0.0);
            }
        }
        let mass = clip.body(sk).map_or(self.mass, |b| b.total_mass());
        for (i, row) in self.layout.force_start.iter().enumerate() {
            for (k, s) in row.iter().enumerate() {
                if let (Some(s), Some(load)) = (s, &clip.contacts[i][k]) {
                    for c in 0..3 {
                        x[s + c] = load.force[c] / mass;
                        x[s + 3 + c] = load.torque[c] / (mass * self.torque_scale(c));
                    }
                    x[s + 1] = x[s + 1].max(MIN_NORMAL_FORCE);
                }
            }
        }
        if let (Some(groups), Some(shapes)) = (&self.shapes, &clip.morphology) {
            for (g, limbs) in groups.groups().iter().enumerate() {
                let limb = &sk.limbs[limbs[0]];
                if let Some(shape) = shapes.iter().find(|s| s.name == limb.name) {
                    let v = self.layout.shape.start + 2 * g;
                    x[v] = (shape.length / limb.length).clamp(LENGTH_SCALE.0, LENGTH_SCALE.1);
                    x[v + 1] = (shape.radius / limb.radius).clamp(RADIUS_SCALE.0, RADIUS_SCALE.1);
                }
            }
        }
    }

    /// Splits a block's variables into the others and the trailing shape variables, and returns
    /// the morphology those give (the file's, without morphology).
    fn shaped<'a, D: Scalar>(&self, x: &'a [D]) -> (&'a [D], Morphology<D>) {
        let (x, scales) = x.split_at(x.len() - self.layout.shape.len());
        let sk = &self.spec.skeleton;
        let morph = match &self.shapes {
            Some(groups) => groups.morphology(sk, scales),
            None => sk.morphology(),
        };
        (x, morph)
    }

    /// SI loads (force N, torque N·m) per frame and foot, `None` out of contact.
    pub fn loads(&self, x: &[f64]) -> Vec<Vec<Option<ContactLoad>>> {
        let mass = self.shaped(&x[self.layout.shape.clone()]).1.total_mass();
        self.layout
            .force_start
            .iter()
            .map(|row| {
                row.iter()
                    .map(|s| {
                        s.map(|s| ContactLoad {
                            force: std::array::from_fn(|c| x[s + c] * mass),
                            torque: std::array::from_fn(|c| {
                                x[s + 3 + c] * mass * self.torque_scale(c)
                            }),
                        })
                    })
                    .collect()
            })
            .collect()
    }

    /// The passive elements (3.13) at x.
    pub fn passive(&self, x: &[f64]) -> Vec<PassiveElement> {
        let names = self.spec.skeleton.dof_names();
        self.layout
            .passive_dofs
            .iter()
            .enumerate()
            .map(|(p, &d)| {
                let [ks, rest, kd] = self.layout.passive(p);
                PassiveElement {
                    coordinate: names[d].clone(),
                    stiffness: x[ks],
                    rest: x[rest],
                    damping: x[kd],
                }
            })
            .collect()
    }

    /// t/m = torque_scale(c)·x for torque component c: ν_b for x and z, ν_t for y.
    fn torque_scale(&self, _component: usize) -> f64 {
        self.spec.nu
    }

    /// A foot's torque t/m from its three stored variables.
    fn torque<D: Scalar>(&self, x: &[D]) -> Vec3<D> {
        Vec3::new(
            x[0].clone() * self.torque_scale(0),
            x[1].clone() * self.torque_scale(1),
            x[2].clone() * self.torque_scale(2),
        )
    }

    fn vec3<D: Scalar>(x: &[D]) -> Vec3<D> {
        Vec3::new(x[0].clone(), x[1].clone(), x[2].clone())
    }

    fn node<D: Scalar>(k: &crate::spacetime::dynamics::Kinematics<D>, node: Node) -> Vec3<D> {
        match node {
            Node::Origin(l) => k.limbs[l].origin.clone(),
            Node::End(l) => k.limbs[l].end.clone(),
        }
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
            Term::Effort { feet } => {
                let (qm, rest) = x.split_at(dof);
                let (q, rest) = rest.split_at(dof);
                let (qp, rest) = rest.split_at(dof);
                let np = self.layout.passive_dofs.len();
                let (passive, loads) = rest.split_at(3 * np);
                let qd: Vec<D> = (0..dof)
                    .map(|d| (qp[d].clone() - &qm[d]) * (0.5 / dt))
                    .collect();
                let qdd: Vec<D> = (0..dof)
                    .map(|d| (qp[d].clone() - q[d].clone() * 2.0 + &qm[d]) * (1.0 / (dt * dt)))
                    .collect();
                let total = morph.total_mass();
                let loads: Vec<FootLoad<D>> = feet
                    .iter()
                    .enumerate()
                    .map(|(j, &k)| FootLoad {
                        foot: k,
                        force: Self::vec3(&loads[6 * j..]).scale(&total),
                        torque: self.torque(&loads[6 * j + 3..]).scale(&total),
                    })
                    .collect();
                let id = inverse_dynamics(sk, &morph, q, &qd, &qdd, GRAVITY, &loads);
                let scale = (w.effort / self.mass / n).sqrt();
                // Per passive coordinate: (t_a, t_p), with t_p = −k_s(q − q̄) − k_d q̇ (3.12–3.13)
                // and t_a = t − t_p.
                let torques: Vec<(D, D)> = self
                    .layout
                    .passive_dofs
                    .iter()
                    .enumerate()
                    .map(|(p, &d)| {
                        let (ks, rest, kd) =
                            (&passive[3 * p], &passive[3 * p + 1], &passive[3 * p + 2]);
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
            Term::Smooth => {
                let (q, qn) = x.split_at(dof);
                let jv = (w.joint_velocity / n).sqrt() / dt;
                let mut r: Vec<D> = (0..dof).map(|d| (qn[d].clone() - &q[d]) * jv).collect();
                if let Some(h) = sk.head {
                    let (k0, k1) = (
                        forward_kinematics(sk, &morph, q),
                        forward_kinematics(sk, &morph, qn),
                    );
                    let v = (&k1.limbs[h].end - &k0.limbs[h].end)
                        .scale_f((w.head_velocity / n).sqrt() / dt);
                    r.extend([v.y, v.z]);
                    let ho = (w.head_orientation / n).sqrt();
                    let m = &k0.limbs[h].rotation.m;
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
                r
            }
        }
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
    /// when the seed is not 0), no passive elements (k = 0, q̄ = rest), and the weight shared
    /// equally by the feet in contact.
    fn initial_point(&self, x: &mut [f64]) {
        use rand::{Rng, SeedableRng};
        let rest = self.spec.skeleton.rest_pose();
        let (lo, hi) = self.spec.skeleton.bounds();
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(self.spec.seed);
        for i in 0..self.spec.frames {
            for d in 0..self.layout.dof {
                let noise = if self.spec.seed != 0 && d >= 6 {
                    rng.random_range(-0.02..0.02)
                } else {
                    0.0
                };
                x[self.layout.q(i, d)] = (rest[d] + noise).clamp(lo[d], hi[d]);
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

    fn constraint_blocks(&self) -> Vec<BlockSpec> {
        self.blocks.iter().map(|b| b.1.clone()).collect()
    }

    fn constraint_block<D: Scalar>(&self, block: usize, x: &[D]) -> Vec<D> {
        let sk = &self.spec.skeleton;
        let dof = self.layout.dof;
        let block = &self.blocks[block].0;
        // Only the blocks with kinematics read the shape variables.
        let (x, morph) = match block {
            Block::Cones | Block::Centring => (x, None),
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
                        KinematicRow::Twist(f) => {
                            let r = &k.limbs[sk.feet[*f]].rotation.m;
                            r[0][2].clone() - &r[2][0]
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
            Block::Slip { foot } => {
                let (a, b) = x.split_at(dof);
                let (ka, kb) = (
                    forward_kinematics(sk, morph(), a),
                    forward_kinematics(sk, morph(), b),
                );
                let d = kb.foot(sk, *foot) - ka.foot(sk, *foot);
                if sk.planar { vec![d.x] } else { vec![d.x, d.z] }
            }
            Block::Momentum { feet } => {
                let (qm, rest) = x.split_at(dof);
                let (q, rest) = rest.split_at(dof);
                let (qp, loads) = rest.split_at(dof);
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
                    out_a = out_a - (k.foot(sk, f) - &k.com).cross(&force) - torque;
                    out_l = out_l - force;
                }
                if sk.planar {
                    vec![out_l.x, out_l.y, out_a.z]
                } else {
                    vec![out_l.x, out_l.y, out_l.z, out_a.x, out_a.y, out_a.z]
                }
            }
            Block::Cones => {
                let (fx, fy, fz) = (&x[0], &x[1], &x[2]);
                let (tx, ty, tz) = (&x[3], &x[4], &x[5]);
                let normal = fy.clone() * fy;
                let friction = normal.clone() * (self.spec.mu * self.spec.mu)
                    - fx.clone() * fx
                    - fz.clone() * fz;
                vec![
                    friction,
                    normal - tx.clone() * tx - ty.clone() * ty - tz.clone() * tz,
                ]
            }
            Block::Centring => {
                let n = self.spec.frames;
                if sk.planar {
                    vec![x[..n].iter().cloned().sum()]
                } else {
                    vec![x[..n].iter().cloned().sum(), x[n..].iter().cloned().sum()]
                }
            }
        }
    }
}
