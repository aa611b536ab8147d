//! The gait NLP (Wampler 2012, §3.2; see the module docs of [`super`]): where the variables live
//! in x, the constraint blocks (dynamics, contact, friction, torque ellipsoid, cyclicity,
//! separations, head height) and the objective terms, as a [`BlockProblem`] whose exact
//! derivatives come from automatic differentiation. The blocks' functions are in `blocks.rs`.
//!
//! Frames are linked to their neighbours as the spec's [`Closure`] says: cyclically on a
//! treadmill, cyclically through the transform T of a transformed cycle (a block reading frame 0
//! as frame N applies T, one reading frame N−1 as frame −1 applies T⁻¹), or not at all at the
//! ends of an open clip, whose first two and last two frames are fixed.

use super::*;

/// Where the variables live in x.
#[derive(Debug, Clone)]
pub(super) struct Layout {
    pub(super) dof: usize,
    pub(super) frames: usize,
    cyclic: bool,
    /// Transformed cycles apply T across the seam; treadmills and open clips do not.
    seams: bool,
    /// Half a mirror-symmetric cycle: its seam is the mirror ([`Seam::Mirror`]).
    pub(super) half: bool,
    /// Non-root rotational coordinates carrying passive elements.
    pub(super) passive_dofs: Vec<usize>,
    pub(super) passive_start: usize,
    /// force_start[frame][foot]: the first of the 6 load variables (f/m then t/m).
    pub(super) force_start: Vec<Vec<Option<usize>>>,
    /// torque_start[frame]: the first of the frame's lifted active torques (one per passive
    /// coordinate), when the effort is lifted.
    pub(super) torque_start: Vec<Option<usize>>,
    /// The shape variables (length scale, radius scale per limb group), last; empty without
    /// morphology.
    pub(super) shape: std::ops::Range<usize>,
    pub(super) n: usize,
}

impl Layout {
    /// `shape_vars`: the number of shape variables (twice the limb groups), 0 without morphology.
    fn new(spec: &GaitSpec, shape_vars: usize, lifted: bool) -> Self {
        let dof = spec.skeleton.dof();
        let frames = spec.frames;
        let cyclic = spec.closure.is_cyclic();
        let rotational = spec.skeleton.rotational_dofs();
        let passive_dofs: Vec<usize> = (6..dof).filter(|&d| rotational[d]).collect();
        let passive_start = frames * dof;
        let mut next = passive_start + 3 * passive_dofs.len();
        // Loads exist where the dynamics hold: every frame of a cycle, the interior of an open clip.
        let balanced = |i: usize| cyclic || (i > 0 && i + 1 < frames);
        let force_start = (0..frames)
            .map(|i| {
                (0..spec.skeleton.feet.len())
                    .map(|k| {
                        (balanced(i) && spec.in_contact(i, k)).then(|| {
                            next += 6;
                            next - 6
                        })
                    })
                    .collect()
            })
            .collect();
        let torque_start = (0..frames)
            .map(|i| {
                (lifted && balanced(i)).then(|| {
                    next += passive_dofs.len();
                    next - passive_dofs.len()
                })
            })
            .collect();
        Self {
            torque_start,
            dof,
            frames,
            cyclic,
            seams: matches!(spec.closure, Closure::Transformed { .. }),
            half: spec.is_half(),
            passive_dofs,
            passive_start,
            force_start,
            shape: next..next + shape_vars,
            n: next + shape_vars,
        }
    }

    pub(super) fn q(&self, frame: usize, d: usize) -> usize {
        frame * self.dof + d
    }

    pub(super) fn q_vars(&self, frame: usize) -> impl Iterator<Item = usize> + '_ {
        (0..self.dof).map(move |d| self.q(frame, d))
    }

    /// (stiffness, rest, damping) of passive coordinate p.
    pub(super) fn passive(&self, p: usize) -> [usize; 3] {
        let s = self.passive_start + 3 * p;
        [s, s + 1, s + 2]
    }

    /// The frame after i and what a block reading it must apply; `None` at an open clip's end.
    fn next(&self, i: usize) -> Option<(usize, Seam)> {
        if i + 1 < self.frames {
            Some((i + 1, Seam::None))
        } else if self.cyclic {
            Some((
                0,
                if self.half {
                    Seam::Mirror
                } else if self.seams {
                    Seam::Forward
                } else {
                    Seam::None
                },
            ))
        } else {
            None
        }
    }

    /// The frame before i and what a block reading it must apply; `None` at an open clip's start.
    fn prev(&self, i: usize) -> Option<(usize, Seam)> {
        if i > 0 {
            Some((i - 1, Seam::None))
        } else if self.cyclic {
            Some((
                self.frames - 1,
                if self.half {
                    Seam::Mirror
                } else if self.seams {
                    Seam::Backward
                } else {
                    Seam::None
                },
            ))
        } else {
            None
        }
    }

    /// Whether frame i is fixed (the first two and last two frames of an open clip).
    pub(super) fn fixed(&self, i: usize) -> bool {
        !self.cyclic && (i < 2 || i + 2 >= self.frames)
    }

    /// Feet in contact at frame i that carry loads, with their first load variable.
    pub(super) fn loads(&self, i: usize) -> Vec<(usize, usize)> {
        self.force_start[i]
            .iter()
            .enumerate()
            .filter_map(|(k, s)| s.map(|s| (k, s)))
            .collect()
    }
}

/// A point whose height is bounded below (3.2).
#[derive(Debug, Clone, Copy, PartialEq)]
pub(super) enum Node {
    Origin(usize),
    End(usize),
}

#[derive(Debug, Clone, PartialEq)]
pub(super) enum KinematicRow {
    Clearance(Node),
    FootHeight(usize),
    /// A foot on its toes ([`Skeleton::toes`]): their height.
    ToesHeight(usize),
    /// A foot on its toes: the y component of its side axis (it does not roll).
    Level(usize),
    /// (3.5) on a treadmill: the foot does not turn about y at all.
    Twist(usize),
    /// A flat foot in contact: the x and z components of its up axis (two rows).
    FlatX(usize),
    FlatZ(usize),
    /// A foot in the air: the height of its sole's corner (foot, corner).
    Sole(usize, usize),
    Separation(usize),
    /// The head point's height (bounded below by the minimum head height, or above by a
    /// ceiling).
    HeadHeight,
}

#[derive(Debug, Clone, PartialEq)]
pub(super) enum Block {
    /// One frame's (3.2), (3.3), (3.5), (3.6) rows; variables q_i.
    Kinematic { rows: Vec<KinematicRow> },
    /// (3.4) for foot k between frame i and the next; variables q_i, q_{i+1}. Off the treadmill
    /// the foot stays put and does not turn about y between the two frames (3.5 as
    /// the θ(t) − θ(t−1) = 0 of McIntosh 2011, Eq. 4.8).
    /// `turn`: how far the foot turns about y between the two frames, off the treadmill in
    /// 3D (0, or a pivot's share of its turn).
    /// `at`: the point of the foot that stays (zero: the foot point; the toes when the foot
    /// turns about them at either frame, a toe pivot's window).
    Slip {
        foot: usize,
        seam: Seam,
        turn: f64,
        at: [f64; 3],
    },
    /// (3.8)–(3.9) at one frame; variables q_{i−1}, q_i, q_{i+1}, then the frame's loads, which
    /// act at the points `at` of their feet ([`FootLoad::at`]).
    Momentum {
        feet: Vec<usize>,
        at: Vec<[f64; 3]>,
        seams: [Seam; 2],
    },
    /// The lifted effort's definition at one frame: τ_i = s·t_a(q_{i−1}, q_i, q_{i+1}, springs,
    /// loads); variables as [`Term::Effort`]'s, then τ_i.
    Torques {
        feet: Vec<usize>,
        at: Vec<[f64; 3]>,
        seams: [Seam; 2],
    },
    /// (3.10)–(3.11) for one contact; variables f/m, t/(m ν). `rows`: the ellipsoid's rows on
    /// (t_x, t_z) ([`Footing::torque_rows`]).
    Cones { rows: [[f64; 2]; 2] },
    /// (3.7); variables every frame's root x, then every frame's root z (and, for a
    /// transformed cycle, every frame's yaw): their sums are the path's.
    Centring,
    /// Half a mirrored cycle: each spring equals its mirror spring (rows x_a − s·x_b over the
    /// passive elements' variables, a and b block-local).
    MirrorSprings { rows: Vec<(usize, usize, f64)> },
}

#[derive(Debug, Clone, PartialEq)]
pub(super) enum Term {
    /// (3.14) at one frame; variables q_{i−1}, q_i, q_{i+1}, passive (k_s, q̄, k_d)…, loads.
    Effort {
        feet: Vec<usize>,
        at: Vec<[f64; 3]>,
        seams: [Seam; 2],
    },
    /// (3.14) lifted: Σ τ² over one frame's torque variables (defined by [`Block::Torques`]).
    Torques,
    /// (3.15)–(3.17) at one frame; variables q_i, q_{i+1}. `path_step`: the root's expected
    /// (Δx, Δz, Δyaw) between the two frames on a transformed cycle, which the joint-velocity
    /// term measures the root against (an open clip leaves the root's x, z and yaw out);
    /// `path_yaw`: the path's heading at q_i, which the posture term holds a heading root's yaw
    /// to (0 off a transformed cycle).
    Smooth {
        seam: Seam,
        path_step: Option<PlanarMotion>,
        path_yaw: f64,
    },
}

/// The fixed-timing gait NLP of §3.2, as a [`BlockProblem`] (wrap it in [`crate::spacetime::AutoDiff`]).
#[derive(Debug, Clone)]
pub struct GaitProblem {
    pub(super) spec: GaitSpec,
    pub(super) layout: Layout,
    /// The variable limb groups, with morphology.
    pub(super) shapes: Option<ShapeGroups>,
    pub(super) blocks: Vec<(Block, BlockSpec)>,
    pub(super) terms: Vec<(Term, TermSpec)>,
    pub(super) mass: f64,
    /// T of a transformed cycle (identity otherwise).
    pub(super) cycle: PlanarMotion,
    /// The rest pose (the posture term's preferred angles) and the coordinates it holds.
    pub(super) rest: Vec<f64>,
    pub(super) posture: Vec<usize>,
    /// On half a mirrored cycle, per coordinate its mirror coordinate and sign (M); empty
    /// otherwise.
    pub(super) mirror: Vec<(usize, f64)>,
}

impl GaitProblem {
    pub fn new(spec: GaitSpec) -> Self {
        let sk = &spec.skeleton;
        let shapes = spec
            .morphology
            .map(|m| ShapeGroups::new(sk, m.min_head_height.is_some()));
        let lifted = spec.morphology.is_none() && spec.torques == Torques::Variables;
        let layout = Layout::new(&spec, shapes.as_ref().map_or(0, |g| 2 * g.len()), lifted);
        let treadmill = spec.closure.is_treadmill();
        let mirror = match layout.half {
            true => super::mirror::mirror_coordinates(sk).expect("a half cycle's creature mirrors"),
            false => Vec::new(),
        };
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
        for i in (0..spec.frames).filter(|&i| !layout.fixed(i)) {
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
            if spec.sole_clearance || spec.swing_clearance > 0.0 {
                for k in (0..feet).filter(|&k| !spec.in_contact(i, k)) {
                    for c in 0..sk.limbs[sk.feet[k]].sole.len() {
                        rows.push(KinematicRow::Sole(k, c));
                        lower.push(spec.swing_floor(i, k));
                        upper.push(f64::INFINITY);
                    }
                }
            }
            let held_twists = sk.held_twists(|k| spec.in_contact(i, k));
            for k in 0..feet {
                if let (true, Footing::Toes { heel, .. }) =
                    (spec.in_contact(i, k), spec.footing(i, k))
                {
                    // On the toes: they touch the ground, the foot stays level across, and the
                    // heel is up (or at least not under the ground).
                    rows.extend([KinematicRow::ToesHeight(k), KinematicRow::Level(k)]);
                    lower.extend([0.0; 2]);
                    upper.extend([0.0; 2]);
                    for c in sk.heel_corners(k) {
                        rows.push(KinematicRow::Sole(k, c));
                        lower.push(heel);
                        upper.push(f64::INFINITY);
                    }
                } else if spec.in_contact(i, k) {
                    rows.push(KinematicRow::FootHeight(k));
                    lower.push(0.0);
                    upper.push(0.0);
                    // A planar foot cannot twist about the vertical: the row would be 0 = 0.
                    // Off the treadmill the twist is a rate, held by the slip block.
                    // One row for the feet whose legs cannot turn them ([`Skeleton::held_twists`]).
                    if !sk.planar && treadmill && held_twists[k] {
                        rows.push(KinematicRow::Twist(k));
                        lower.push(0.0);
                        upper.push(0.0);
                    }
                    if spec.flat_feet {
                        rows.push(KinematicRow::FlatZ(k));
                        lower.push(0.0);
                        upper.push(0.0);
                        if !sk.planar {
                            rows.push(KinematicRow::FlatX(k));
                            lower.push(0.0);
                            upper.push(0.0);
                        }
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
            if let (Some(h), Some(_)) = (spec.max_head_height, sk.head) {
                rows.push(KinematicRow::HeadHeight);
                lower.push(f64::NEG_INFINITY);
                upper.push(h);
            }
            let variables = layout.q_vars(i).chain(layout.shape.clone()).collect();
            blocks.push((
                Block::Kinematic { rows },
                BlockSpec {
                    variables,
                    lower,
                    upper,
                    linear: false,
                    flat: Vec::new(),
                    linear_in: Vec::new(),
                },
            ));
        }
        let dx = -spec.speed * spec.dt();
        for i in 0..spec.frames {
            let Some((j, seam)) = layout.next(i) else {
                continue;
            };
            if layout.fixed(i) && layout.fixed(j) {
                continue;
            }
            // On half a mirrored cycle the frame after the last is frame N/2 of the whole
            // cycle's contact table (its mirror image of frame 0).
            let j_contact = if layout.half { i + 1 } else { j };
            for k in 0..feet {
                if spec.in_contact(i, k) && spec.in_contact(j_contact, k) && i != j {
                    let variables = layout
                        .q_vars(i)
                        .chain(layout.q_vars(j))
                        .chain(layout.shape.clone())
                        .collect();
                    let turn = spec.pivot_turn(i, k);
                    let at = spec.slip_offset(i, j_contact, k);
                    let targets = match (sk.planar, treadmill) {
                        (true, true) => vec![dx],
                        (false, true) => vec![dx, 0.0],
                        (true, false) => vec![0.0],
                        (false, false) => vec![0.0; 3],
                    };
                    blocks.push((
                        Block::Slip {
                            foot: k,
                            seam,
                            turn,
                            at,
                        },
                        BlockSpec::equal(variables, targets),
                    ));
                }
            }
        }
        for i in 0..spec.frames {
            let (Some((before, seam_before)), Some((after, seam_after))) =
                (layout.prev(i), layout.next(i))
            else {
                continue;
            };
            let loads = layout.loads(i);
            let mut variables: Vec<usize> = layout
                .q_vars(before)
                .chain(layout.q_vars(i))
                .chain(layout.q_vars(after))
                .collect();
            for &(_, s) in &loads {
                variables.extend(s..s + 6);
            }
            variables.extend(layout.shape.clone());
            let feet = loads.iter().map(|l| l.0).collect();
            let at = loads.iter().map(|l| spec.contact_offset(i, l.0)).collect();
            let rows = if sk.planar { 3 } else { 6 };
            // The loads enter the balance linearly (times the coordinates' lever arms).
            let flat = (3 * layout.dof..3 * layout.dof + 6 * loads.len()).collect();
            blocks.push((
                Block::Momentum {
                    feet,
                    at,
                    seams: [seam_before, seam_after],
                },
                BlockSpec::equal(variables, vec![0.0; rows]).with_flat(flat),
            ));
        }
        for i in 0..spec.frames {
            for (k, s) in layout.loads(i) {
                let rows = spec
                    .footing(i, k)
                    .torque_rows(spec.skeleton.toe_half_width(k), spec.nu);
                let spec_ = BlockSpec {
                    variables: (s..s + 6).collect(),
                    lower: vec![0.0; 2],
                    upper: vec![f64::INFINITY; 2],
                    linear: false,
                    flat: Vec::new(),
                    linear_in: Vec::new(),
                };
                blocks.push((Block::Cones { rows }, spec_));
            }
        }
        if spec.closure.is_cyclic() {
            // (A planar root's z is fixed: only x is centred.) On a transformed cycle the sums
            // follow the path, and the yaw is centred too.
            let frames = 0..spec.frames;
            let mut centring: Vec<usize> = frames.clone().map(|i| layout.q(i, 3)).collect();
            let (mut targets, mut yaw) = (vec![0.0], Vec::new());
            // Half a mirrored cycle: z is mirrored, so the whole cycle's sum of z is zero.
            if !sk.planar && !layout.half {
                centring.extend(frames.clone().map(|i| layout.q(i, 5)));
                targets.push(0.0);
            }
            if !treadmill {
                let path: Vec<PlanarMotion> = frames.clone().map(|i| spec.path(i)).collect();
                targets[0] = path.iter().map(|p| p.x).sum();
                if !sk.planar {
                    targets[1] = path.iter().map(|p| p.z).sum();
                    yaw = frames.map(|i| layout.q(i, 0)).collect();
                    targets.push(path.iter().map(|p| p.yaw).sum());
                }
            }
            centring.extend(yaw);
            blocks.push((
                Block::Centring,
                BlockSpec::equal(centring, targets).linear(),
            ));
        }

        if layout.half {
            blocks.push(Self::mirror_springs(&layout, &mirror));
        }

        let mut terms = Vec::new();
        for i in 0..spec.frames {
            let (Some((before, seam_before)), Some((after, seam_after))) =
                (layout.prev(i), layout.next(i))
            else {
                continue;
            };
            let loads = layout.loads(i);
            let mut variables: Vec<usize> = layout
                .q_vars(before)
                .chain(layout.q_vars(i))
                .chain(layout.q_vars(after))
                .collect();
            variables
                .extend(layout.passive_start..layout.passive_start + 3 * layout.passive_dofs.len());
            for &(_, s) in &loads {
                variables.extend(s..s + 6);
            }
            let feet: Vec<usize> = loads.iter().map(|l| l.0).collect();
            let at: Vec<[f64; 3]> = loads.iter().map(|l| spec.contact_offset(i, l.0)).collect();
            let seams = [seam_before, seam_after];
            if let Some(t) = layout.torque_start[i] {
                let torques: Vec<usize> = (t..t + layout.passive_dofs.len()).collect();
                // The loads and the torques enter linearly (the loads times lever arms).
                let linear: Vec<usize> =
                    (variables.len()..variables.len() + torques.len()).collect();
                let flat = (3 * layout.dof + 3 * layout.passive_dofs.len()..variables.len())
                    .chain(linear.iter().copied())
                    .collect();
                variables.extend(&torques);
                variables.extend(layout.shape.clone());
                let rows = torques.len();
                blocks.push((
                    Block::Torques { feet, at, seams },
                    BlockSpec::equal(variables, vec![0.0; rows])
                        .with_flat(flat)
                        .with_linear_in(linear),
                ));
                terms.push((Term::Torques, TermSpec { variables: torques }));
                continue;
            }
            variables.extend(layout.shape.clone());
            terms.push((
                Term::Effort { feet, at, seams },
                TermSpec {
                    variables: variables,
                },
            ));
        }
        for i in 0..spec.frames {
            let Some((j, seam)) = layout.next(i) else {
                continue;
            };
            if layout.fixed(i) && layout.fixed(j) {
                continue;
            }
            let variables = layout
                .q_vars(i)
                .chain(layout.q_vars(j))
                .chain(layout.shape.clone())
                .collect();
            let path_step = matches!(spec.closure, Closure::Transformed { .. }).then(|| {
                let (a, b) = (spec.path(i), spec.path(i + 1));
                PlanarMotion {
                    x: b.x - a.x,
                    z: b.z - a.z,
                    yaw: b.yaw - a.yaw,
                }
            });
            let path_yaw = path_step.map_or(0.0, |_| spec.path(i).yaw);
            terms.push((
                Term::Smooth {
                    seam,
                    path_step,
                    path_yaw,
                },
                TermSpec {
                    variables: variables,
                },
            ));
        }
        let mass = sk.total_mass();
        let cycle = spec.cycle_motion();
        let rest = sk.rest_pose();
        // A connection's yaw, which its fixed ends turn, is not held (a heading root's first
        // coordinate); a transformed cycle's is held to its path ([`Term::Smooth`]).
        let mut posture = spec.posture_coordinates();
        if sk.has_heading_root() && !spec.closure.is_cyclic() {
            posture.retain(|&d| d != 0);
        }
        Self {
            rest,
            posture,
            mirror,
            spec,
            layout,
            shapes,
            blocks,
            terms,
            mass,
            cycle,
        }
    }

    /// The fixed frames of an open clip with their coordinates (none for a cycle).
    pub(super) fn fixed_frames(&self) -> Vec<(usize, &Vec<f64>)> {
        match &self.spec.closure {
            Closure::Open(ends) => {
                let n = self.spec.frames;
                vec![
                    (0, &ends.first[0]),
                    (1, &ends.first[1]),
                    (n - 2, &ends.last[0]),
                    (n - 1, &ends.last[1]),
                ]
            }
            _ => Vec::new(),
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
    /// A transformed cycle started from another one (of any speed and turn rate) bends it onto
    /// its own path: each frame's root moves from where the clip's path had it to where this
    /// path has it.
    pub(super) fn warm_start(&self, clip: &GaitClip, x: &mut [f64]) {
        let sk = &self.spec.skeleton;
        let (lo, hi) = sk.bounds();
        // Half a mirrored cycle starts from the clip's first half.
        for (i, q) in clip.frames.iter().enumerate().take(self.layout.frames) {
            let q = match (&self.spec.closure, &clip.closure) {
                (to @ Closure::Transformed { .. }, from @ Closure::Transformed { .. })
                    if !sk.planar =>
                {
                    let dt = clip.period / clip.frames.len() as f64;
                    let from = from.path(clip.speed, i as f64 * dt);
                    let to = to.path(self.spec.speed, i as f64 * self.spec.dt());
                    to.compose(&from.inverse()).apply_heading_root(q)
                }
                _ => q.clone(),
            };
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
    pub(super) fn shaped<'a, D: Scalar>(&self, x: &'a [D]) -> (&'a [D], Morphology<D>) {
        let (x, scales) = x.split_at(x.len() - self.layout.shape.len());
        let sk = &self.spec.skeleton;
        let morph = match &self.shapes {
            Some(groups) => groups.morphology(sk, scales),
            None => sk.morphology(),
        };
        (x, morph)
    }

    /// SI loads (force N, torque N·m) per frame and foot, `None` out of contact.
    /// An open clip's end frames have no loads of their own (their dynamics are those of the
    /// clips they come from): a foot down there shows a zero load.
    pub fn loads(&self, x: &[f64]) -> Vec<Vec<Option<ContactLoad>>> {
        let mass = self.shaped(&x[self.layout.shape.clone()]).1.total_mass();
        self.layout
            .force_start
            .iter()
            .enumerate()
            .map(|(i, row)| {
                row.iter()
                    .enumerate()
                    .map(|(k, s)| match s {
                        Some(s) => Some(ContactLoad {
                            force: std::array::from_fn(|c| x[s + c] * mass),
                            torque: std::array::from_fn(|c| {
                                x[s + 3 + c] * mass * self.torque_scale(c)
                            }),
                            turn: self.spec.pivot_turn(i, k),
                            footing: self.spec.footing(i, k),
                        }),
                        None => self.spec.in_contact(i, k).then_some(ContactLoad {
                            force: [0.0; 3],
                            torque: [0.0; 3],
                            turn: self.spec.pivot_turn(i, k),
                            footing: self.spec.footing(i, k),
                        }),
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
    pub(super) fn torque<D: Scalar>(&self, x: &[D]) -> Vec3<D> {
        Vec3::new(
            x[0].clone() * self.torque_scale(0),
            x[1].clone() * self.torque_scale(1),
            x[2].clone() * self.torque_scale(2),
        )
    }

    pub(super) fn vec3<D: Scalar>(x: &[D]) -> Vec3<D> {
        Vec3::new(x[0].clone(), x[1].clone(), x[2].clone())
    }

    pub(super) fn node<D: Scalar>(
        k: &crate::spacetime::dynamics::Kinematics<D>,
        node: Node,
    ) -> Vec3<D> {
        match node {
            Node::Origin(l) => k.limbs[l].origin.clone(),
            Node::End(l) => k.limbs[l].end.clone(),
        }
    }
}
