//! Auto-ARBS: a simulated character from a kinematic skeleton (Borer et al. 2018,
//! §4.1–4.2).
//!
//! - **Bodies**: one per KS joint with children; leaves get none (the paper's rule) unless they
//!   carry skin (below). A joint with one child gets
//!   a capsule whose two ends are the joint and the child. A joint with several children gets
//!   a capsule along the principal axis of the point set {joint, children} (PCA: the
//!   eigenvector of the largest eigenvalue of their covariance, turned to point from the joint
//!   towards the children), its ends the extreme projections of the points on that axis.
//!   Segments shorter than 2 % of the skeleton's height are lengthened to that about their
//!   middle (coincident joints are common in game rigs). A body's frame has y along its
//!   segment.
//! - **Multi-child bodies with a skin** (this project's addition): the joints alone can put a
//!   body where none of its flesh is — a game rig's root "handle" bone sticks out behind the
//!   back with every child at its tail, and a uniform density then puts the torso's mass there
//!   and the character falls over backwards. When the skin binds at least 4 vertices' worth
//!   of weight to such a joint, its capsule runs through the centre of those vertices' 5–95 %
//!   box (in their principal frame), along their principal axis when they are elongated
//!   (largest eigenvalue at least twice the next), else along the KS axis; its ends cover the
//!   children, the joint itself (except the root's, which anchors no joint) and the vertices'
//!   5–95 % range along the axis.
//! - **Leaves with a skin** (this project's addition): Blender and most game exporters bind
//!   the mesh to leaf bones too (a head, hands, a shin ending a leg), and dropping them leaves
//!   a character without its head, hands or feet. A leaf KS joint (not the root) to which the
//!   skin binds at least [`LEAF_SKIN_WEIGHT`] = 4 vertices' worth of weight gets a capsule from
//!   the joint along its bone — the direction from its parent joint through it, or its rest
//!   frame's y axis (the glTF bone axis) when it sits on its parent — as long as the weighted
//!   95th percentile of its vertices' projections on that line (at least the 2 % minimum),
//!   shortened when it points down so that the capsule ends no lower than its lowest vertex.
//!   Without a skin (BVH) the paper's rule stands. Opt-in ([`ArbsOptions::skinned_leaves`]):
//!   with it the RiggedFigure (toes and hands then get bodies) falls after 1.5 s. Such a body is a leaf body like the others:
//!   its far end can make it a foot or carry a hand or head effector; its IK point is its joint.
//! - **Radius** ([`RadiusRule`]): 10 % of the segment length (the paper's rule), or fitted to the
//!   skin: the weighted median distance from the segment of the skin vertices bound to the
//!   body's joint (weights = their skin weights for that joint), clamped to [5 %, 40 %] of the
//!   length; 10 % when the joint binds less than one vertex's worth of weight. The capsule's
//!   total length is the segment's (its tips at the joints): half_length = L/2 − r.
//! - **Mass**: one density for every body (feet pads included), scaled so that the total is
//!   [`ArbsOptions::mass`] (50 kg, the paper's dinosaur). Without a skin, a skeleton whose body
//!   names show a human gets de Leva's segment masses instead (`masses.rs`, [`MassRule`]): at
//!   one density a capture skeleton's trunk of thin spine bones weighs almost nothing.
//!   **Inertia** is left to the model (`inertia: None`), which derives it from the capsule's exact solid shape, not from the
//!   paper's enclosing box, so that an edited radius or length keeps it consistent.
//! - **Joints**: hinges only (§4.2). Axis = normalize((c_parent − p) × (c_child − p)) with p the
//!   KS joint and c the two bodies' centres of mass (§4.2). When the two directions are within
//!   3° of collinear (a straight limb), the fallback is the character's lateral axis z made
//!   perpendicular to the limb, else x. The rule is blind to how a joint moves: a pelvis
//!   wider than it is tall gives the hips a frontal axis, and a walk's swing cannot be
//!   followed. So when the skeleton has animations ([`AxisRule::Auto`]), a joint that turns
//!   takes instead the axis of its largest rotation in them (the paper lets the user fix
//!   the axis by hand), signed like the geometric axis ([`AxisRule`]);
//!   what one hinge cannot make is handed to the hinge above it when that one moves nothing
//!   else (`motion_axes`).
//!   Limits [`DEFAULT_LIMITS`] (±120°: every rest pose is inside, and no hinge folds a body
//!   back onto its parent). Gains are left to `Character::gains`.
//! - **Root**: the KS root's body, free (6 DoF). With a skin, a chain of unskinned bones at the
//!   top of the tree (a rig's control root on the ground, as the Khronos fox's `_rootJoint` →
//!   `b_Root_00`) is skipped: the root is the first joint that has skin or branches.
//! - **End effectors** on leaf bodies: by name first (foot/toe/ankle → Foot, hand/wrist/finger
//!   → Hand, head → Head, in the body's joint or its leaf children), else a leaf whose far end
//!   is within 15 % of the height above the ground is a Foot; a "hand" that low is a Foot too
//!   (a quadruped's forefoot). Feet stand on pads
//!   (`feet.rs`); Hand and Head effectors sit at the body's far end.
//! - **Names** (`names.rs`): generic part names where recognisable, else the KS name
//!   sanitised; `mirror_pairs` pair every left body with the right body of the same name.

use super::ArbsError;
use super::axes::{AxisRule, AxisSource, hinge_axis, motion_axes};
use super::feet::{self, Pad};
use super::names;
use super::skeleton::{Skeleton, unique};
use super::skin_fit::{RADIUS_FRACTION, RadiusRule, bound_vertices, fit_radii, fit_to_skin};
use crate::model::{
    Axis, Body, Character, EffectorTag, EndEffector, GaitHints, Joint, JointKind, Root, RootKind,
    Shape,
};
use nalgebra::{Matrix3, Rotation3, Vector3};

/// Default hinge limits, degrees.
pub const DEFAULT_LIMITS: (f64, f64) = (-120.0, 120.0);
/// Shortest segment, as a fraction of the skeleton's height.
pub const MIN_SEGMENT: f64 = 0.02;
/// A leaf whose far end is this fraction of the height above the ground is a foot.
pub const FOOT_BAND: f64 = 0.15;
/// A leaf joint to which the skin binds at least this many vertices' worth of weight gets a
/// body (module docs).
pub const LEAF_SKIN_WEIGHT: f64 = 4.0;

/// Settings of [`build_character`].
#[derive(Clone, Debug, PartialEq)]
pub struct ArbsOptions {
    /// Total mass, kg.
    pub mass: f64,
    pub radius: RadiusRule,
    /// Hinge limits, degrees; must contain 0 (the reference pose).
    pub limits: (f64, f64),
    pub axes: AxisRule,
    /// Weld a pad under every foot (§4.3: "end-effectors for stable ground contacts").
    pub pads: bool,
    /// The character's name (default: the skeleton's).
    pub name: Option<String>,
    /// Give leaf joints that carry skin a body (module docs; off by default until the
    /// RiggedFigure, whose toes and hands then get bodies, stands with it).
    pub skinned_leaves: bool,
    pub masses: MassRule,
}

/// How the total mass is shared between the bodies (module docs).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum MassRule {
    /// One density (the paper's rule).
    Density,
    /// de Leva's segment fractions, when the body names show a human (else one density).
    Human,
    /// `Human` for a skeleton without a skin, else one density.
    #[default]
    Auto,
}

impl Default for ArbsOptions {
    fn default() -> Self {
        ArbsOptions {
            mass: 50.0,
            radius: RadiusRule::Auto,
            limits: DEFAULT_LIMITS,
            axes: AxisRule::Auto,
            pads: true,
            name: None,
            skinned_leaves: false,
            masses: MassRule::Auto,
        }
    }
}

/// A point of a body that follows a KS joint: the body's joint anchor for the joint it was made
/// for, the body's far end for a leaf (world coordinates, reference pose).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct MappedPoint {
    pub ks_joint: usize,
    pub body: usize,
    pub point: [f64; 3],
    /// Its weight in the transfer's IK; `None`: the transfer's rule (root, leaves, others).
    pub weight: Option<f64>,
}

/// Where a built character came from.
#[derive(Clone, Debug, PartialEq)]
pub struct ArbsMap {
    /// The KS joint the character's root body stands for (the skeleton's root, or the first
    /// joint below a chain of unskinned control bones).
    pub root: usize,
    /// Per character body: the KS joint it was made for (`None` for a foot pad).
    pub bodies: Vec<Option<usize>>,
    /// Per character end effector: the KS leaf joint it stands for.
    pub end_effectors: Vec<usize>,
    /// Every KS joint, with the body point that follows it (IK targets, §4.3).
    pub points: Vec<MappedPoint>,
    /// Per body: where the axis of the hinge above it came from (`None`: the root, pads).
    pub axes: Vec<Option<AxisSource>>,
    /// Whether the masses are de Leva's human segments ([`MassRule`]), else one density.
    pub human_masses: bool,
}

/// A body's segment before it becomes a capsule.
#[derive(Clone, Copy, Debug)]
pub(super) struct Segment {
    pub joint: usize,
    /// From the joint's end to the far end.
    pub a: Vector3<f64>,
    pub b: Vector3<f64>,
    pub dir: Vector3<f64>,
    pub length: f64,
    pub radius: f64,
}

impl Segment {
    pub fn center(&self) -> Vector3<f64> {
        (self.a + self.b) / 2.0
    }

    /// Lowest y of the capsule.
    pub fn bottom(&self) -> f64 {
        self.a.y.min(self.b.y) - self.radius
    }

    pub fn volume(&self) -> f64 {
        let h = (self.length - 2.0 * self.radius).max(0.0);
        std::f64::consts::PI * self.radius.powi(2) * (h + 4.0 / 3.0 * self.radius)
    }
}

fn round(x: f64) -> f64 {
    (x * 1e7).round() / 1e7
}

fn v3(v: Vector3<f64>) -> [f64; 3] {
    [round(v.x), round(v.y), round(v.z)]
}

/// Euler angles (degrees about x, then y, then z: `crate::model::Body::rotation`) of a frame.
pub(super) fn euler_deg(r: &Rotation3<f64>) -> [f64; 3] {
    let (x, y, z) = r.euler_angles();
    [x, y, z].map(|a| round(a.to_degrees()))
}

/// The frame whose y axis is `dir` and whose x axis is as close to world x as it can be.
fn frame_along(dir: Vector3<f64>) -> Rotation3<f64> {
    let y = dir.normalize();
    let mut x = Vector3::x() - y * y.x;
    if x.norm() < 0.3 {
        x = Vector3::z() - y * y.z;
    }
    let x = x.normalize();
    let z = x.cross(&y);
    Rotation3::from_basis_unchecked(&[x, y, z])
}

/// The segment of joint `j` with children `kids` (module docs).
fn segment(ks: &Skeleton, j: usize, kids: &[usize], min_len: f64) -> Segment {
    let p = ks.rest_position(j);
    let (mut a, mut b) = if kids.len() == 1 {
        (p, ks.rest_position(kids[0]))
    } else {
        let pts: Vec<Vector3<f64>> = std::iter::once(p)
            .chain(kids.iter().map(|&k| ks.rest_position(k)))
            .collect();
        let mean = pts.iter().sum::<Vector3<f64>>() / pts.len() as f64;
        let cov = pts
            .iter()
            .map(|x| (x - mean) * (x - mean).transpose())
            .sum::<Matrix3<f64>>();
        let eig = cov.symmetric_eigen();
        let i = eig.eigenvalues.imax();
        let mut d: Vector3<f64> = eig.eigenvectors.column(i).into_owned();
        let kids_mean = pts[1..].iter().sum::<Vector3<f64>>() / kids.len() as f64;
        if d.dot(&(kids_mean - p)) < 0.0 {
            d = -d;
        }
        let s: Vec<f64> = pts.iter().map(|x| (x - mean).dot(&d)).collect();
        let lo = s.iter().copied().fold(f64::INFINITY, f64::min);
        let hi = s.iter().copied().fold(f64::NEG_INFINITY, f64::max);
        (mean + d * lo, mean + d * hi)
    };
    let mut length = (b - a).norm();
    let dir = if length > 1e-9 {
        (b - a) / length
    } else {
        ks.joints[j]
            .parent
            .map(|pj| p - ks.rest_position(pj))
            .filter(|d| d.norm() > 1e-9)
            .map(|d| d.normalize())
            .unwrap_or_else(Vector3::y)
    };
    if length < min_len {
        let c = (a + b) / 2.0;
        a = c - dir * (min_len / 2.0);
        b = c + dir * (min_len / 2.0);
        length = min_len;
    }
    Segment {
        joint: j,
        a,
        b,
        dir,
        length,
        radius: RADIUS_FRACTION * length,
    }
}

/// The segment of a leaf joint `j` to which the skin binds `bound` (module docs): none when the
/// weight is under [`LEAF_SKIN_WEIGHT`] or the joint is the root; else from the joint along its
/// bone (from its parent through it; its rest frame's y axis, the glTF bone axis, when it sits
/// on its parent) to the weighted 95th percentile of its vertices' projections on that line.
pub(super) fn leaf_segment(
    ks: &Skeleton,
    j: usize,
    bound: &[(Vector3<f64>, f64)],
    min_len: f64,
) -> Option<Segment> {
    let parent = ks.joints[j].parent?;
    let total: f64 = bound.iter().map(|x| x.1).sum();
    if !(total >= LEAF_SKIN_WEIGHT) {
        return None;
    }
    let p = ks.rest_position(j);
    let bone = p - ks.rest_position(parent);
    let dir = if bone.norm() > 1e-6 * min_len.max(1e-9) {
        bone.normalize()
    } else {
        ks.joints[j].rest.rotation() * Vector3::y()
    };
    let mut proj: Vec<(f64, f64)> = bound.iter().map(|(x, w)| ((x - p).dot(&dir), *w)).collect();
    proj.sort_by(|a, b| a.0.total_cmp(&b.0));
    let mut acc = 0.0;
    let mut reach = 0.0;
    for (t, w) in &proj {
        acc += w;
        reach = *t;
        if acc >= 0.95 * total {
            break;
        }
    }
    let length = reach.max(min_len);
    Some(Segment {
        joint: j,
        a: p,
        b: p + dir * length,
        dir,
        length,
        radius: RADIUS_FRACTION * length,
    })
}

/// Builds the automatic ARBS of `ks` (module docs) and the map back to the skeleton.
pub fn build_character(
    ks: &Skeleton,
    options: &ArbsOptions,
) -> Result<(Character, ArbsMap), ArbsError> {
    let path = ks.source.as_str();
    let bad = |m: String| Err(ArbsError::build(path, m));
    if !(options.mass.is_finite() && options.mass > 0.0 && options.mass <= 1e5) {
        return bad(format!(
            "expected a total mass in (0, 100000] kg, found {}",
            options.mass
        ));
    }
    let (lo, hi) = options.limits;
    if !(lo < hi && lo <= 0.0 && hi >= 0.0 && lo >= -360.0 && hi <= 360.0) {
        return bad(format!(
            "expected hinge limits with -360 <= min <= 0 <= max <= 360 degrees, found ({lo}, {hi})"
        ));
    }
    if let RadiusRule::Fraction(f) = options.radius
        && !(f > 0.0 && f <= 1.0)
    {
        return bad(format!("expected a radius fraction in (0, 1], found {f}"));
    }
    let n = ks.joints.len();
    if n < 2 {
        return bad("the skeleton needs at least two joints".into());
    }
    let children: Vec<Vec<usize>> = (0..n).map(|j| ks.children(j)).collect();
    let height = ks.rest_height();
    let (ground, _) = ks.rest_extent();

    // Segments: one per non-leaf joint, and per leaf with a skin, parents first.
    let by_joint = bound_vertices(ks, &(0..n).map(Some).collect::<Vec<_>>(), n);
    // Bones above the skinned body with no skin of their own, in a chain (the Khronos fox's
    // `_rootJoint` → `b_Root_00` on the ground under its hips: a rig's control root), are not
    // part of the body: the character starts at the first joint that has skin or branches.
    let mut start = (0..n).find(|&j| ks.joints[j].parent.is_none()).unwrap_or(0);
    while !ks.skin.is_empty()
        && by_joint[start].is_empty()
        && let [only] = children[start][..]
        && !children[only].is_empty()
    {
        start = only;
    }
    let kept: Vec<bool> = (0..n)
        .map(|j| {
            let mut k = Some(j);
            while let Some(i) = k {
                if i == start {
                    return true;
                }
                k = ks.joints[i].parent;
            }
            false
        })
        .collect();
    let mut segs: Vec<Segment> = (0..n)
        .filter(|&j| kept[j])
        .filter_map(|j| {
            if !children[j].is_empty() {
                Some(segment(ks, j, &children[j], MIN_SEGMENT * height))
            } else if options.skinned_leaves {
                leaf_segment(ks, j, &by_joint[j], MIN_SEGMENT * height)
            } else {
                None
            }
        })
        .collect();
    let mut body_of: Vec<Option<usize>> = vec![None; n];
    for (b, s) in segs.iter().enumerate() {
        body_of[s.joint] = Some(b);
    }
    let bound = bound_vertices(ks, &body_of, segs.len());
    for (s, v) in segs.iter_mut().zip(&bound) {
        if children[s.joint].len() > 1 {
            fit_to_skin(ks, s, &children[s.joint], v, MIN_SEGMENT * height);
        }
    }
    fit_radii(ks, options.radius, &mut segs, &bound);
    // A skinned leaf pointing down ends where its skin does: its capsule no lower than its
    // lowest vertex (a toe running on past the sole would lift the foot off its pad).
    for s in segs.iter_mut().filter(|s| children[s.joint].is_empty()) {
        let low = by_joint[s.joint]
            .iter()
            .map(|(x, _)| x.y)
            .fold(f64::INFINITY, f64::min);
        if s.dir.y < -1e-9 && low.is_finite() && s.bottom() < low {
            let length = ((s.a.y - s.radius - low) / -s.dir.y).max(MIN_SEGMENT * height);
            if length < s.length {
                s.length = length;
                s.b = s.a + s.dir * length;
                s.radius = s.radius.min(0.5 * length);
            }
        }
    }
    let parent_body: Vec<Option<usize>> = segs
        .iter()
        .map(|s| ks.joints[s.joint].parent.and_then(|p| body_of[p]))
        .collect();

    // Names.
    let mut generic: Vec<Option<String>> = vec![None; segs.len()];
    let mut claims: Vec<(u8, usize, String)> = segs
        .iter()
        .enumerate()
        .filter_map(|(b, s)| names::part(&ks.joints[s.joint].name).map(|(g, w)| (w, b, g)))
        .collect();
    claims.sort_by_key(|c| (std::cmp::Reverse(c.0), c.1));
    let mut taken = std::collections::HashMap::new();
    for (w, b, g) in claims {
        match taken.get(&g) {
            None => {
                taken.insert(g.clone(), w);
                generic[b] = Some(g);
            }
            // A chain of trunk segments: spine, spine_2, … (unique() numbers them).
            Some(&first) if first == w && names::is_trunk(&g) => generic[b] = Some(g),
            Some(_) => {}
        }
    }
    let mut body_names = unique(
        segs.iter()
            .zip(&generic)
            .map(|(s, g)| {
                g.clone()
                    .unwrap_or_else(|| names::sanitize(&ks.joints[s.joint].name))
            })
            .collect(),
    );

    // End effectors on leaf bodies.
    let is_leaf_body = |b: usize| {
        children[segs[b].joint]
            .iter()
            .all(|&c| body_of[c].is_none())
    };
    let mut tags: Vec<(usize, EffectorTag)> = Vec::new();
    for (b, seg) in segs.iter().enumerate() {
        if !is_leaf_body(b) {
            continue;
        }
        let j = seg.joint;
        let named = std::iter::once(j)
            .chain(children[j].iter().copied())
            .find_map(|k| names::effector_tag(&ks.joints[k].name));
        let far = if children[j].is_empty() {
            seg.b.y
        } else {
            children[j]
                .iter()
                .map(|&c| ks.rest_position(c).y)
                .fold(f64::INFINITY, f64::min)
        };
        // A limb end on the ground is a foot whatever its name: a quadruped's forefeet are
        // "hands" in most rigs (the Khronos fox's `b_RightHand_08`).
        let on_ground = far - ground <= FOOT_BAND * height;
        let tag = match named {
            Some(EffectorTag::Hand) if on_ground => Some(EffectorTag::Foot),
            Some(t) => Some(t),
            None => on_ground.then_some(EffectorTag::Foot),
        };
        if let Some(t) = tag {
            tags.push((b, t));
        }
    }
    let pads: Vec<Pad> = if options.pads {
        let feet: Vec<usize> = tags
            .iter()
            .filter(|t| t.1 == EffectorTag::Foot)
            .map(|t| t.0)
            .collect();
        feet::plan(ks, &segs, &parent_body, &children, &feet, height)
    } else {
        Vec::new()
    };

    // Masses: one density, or a human's segments (module docs); segments, then pads.
    let volumes: Vec<f64> = segs
        .iter()
        .map(Segment::volume)
        .chain(pads.iter().map(Pad::volume))
        .collect();
    let volume: f64 = volumes.iter().sum();
    let density = options.mass / volume;
    if !(density.is_finite() && density > 0.0) {
        return bad(format!("the bodies have no volume ({volume} m³)"));
    }
    let human = match options.masses {
        MassRule::Density => None,
        MassRule::Auto if !ks.skin.is_empty() => None,
        MassRule::Human | MassRule::Auto => {
            let names: Vec<String> = body_names
                .iter()
                .cloned()
                .chain(pads.iter().map(|_| String::new()))
                .collect();
            let parents: Vec<Option<usize>> = parent_body
                .iter()
                .copied()
                .chain(pads.iter().map(|p| Some(p.foot)))
                .collect();
            super::masses::human(&names, &parents, &volumes, options.mass)
        }
    };
    let human_masses = human.is_some();
    let masses: Vec<f64> = human.unwrap_or_else(|| volumes.iter().map(|v| density * v).collect());

    let mut bodies: Vec<Body> = segs
        .iter()
        .zip(&body_names)
        .enumerate()
        .map(|(b, (s, name))| Body {
            name: name.clone(),
            shape: Shape::Capsule {
                radius: round(s.radius),
                half_length: round((s.length / 2.0 - s.radius).max(1e-6)),
                axis: Axis::Y,
            },
            mass: masses[b],
            inertia: None,
            position: v3(s.center()),
            rotation: euler_deg(&frame_along(s.dir)),
        })
        .collect();

    // Hinges.
    let mut joint_names = Vec::new();
    let mut joints = Vec::new();
    let mut axis_sources: Vec<Option<AxisSource>> = vec![None; segs.len()];
    let use_motion = match options.axes {
        AxisRule::Auto => ks.animations.iter().any(|a| a.frames.len() > 1),
        AxisRule::Geometry => false,
        AxisRule::Motion => true,
    };
    let motion = if use_motion {
        motion_axes(ks, &segs, &parent_body)
    } else {
        vec![None; segs.len()]
    };
    for (b, s) in segs.iter().enumerate() {
        let Some(pb) = parent_body[b] else { continue };
        let p = ks.rest_position(s.joint);
        let (geometric, fallback) = hinge_axis(
            segs[pb].center() - p,
            s.center() - p,
            if (s.center() - p).norm() > 1e-9 {
                s.center() - p
            } else {
                s.dir
            },
        );
        let moving = motion[b];
        let (axis, source) = match moving {
            Some(a) => (
                if a.dot(&geometric) < 0.0 { -a } else { a },
                AxisSource::Motion,
            ),
            None if fallback => (geometric, AxisSource::Collinear),
            None => (geometric, AxisSource::CrossProduct),
        };
        axis_sources[b] = Some(source);
        joint_names.push(
            generic[b]
                .as_deref()
                .and_then(names::joint_name)
                .unwrap_or_else(|| names::sanitize(&ks.joints[s.joint].name)),
        );
        joints.push(Joint {
            name: String::new(),
            parent: body_names[pb].clone(),
            child: body_names[b].clone(),
            anchor: v3(p),
            kind: JointKind::Hinge {
                axis: v3(axis.normalize()),
            },
            limits: vec![options.limits],
            kp: None,
            kd: None,
            torque_limit: None,
            armature: None,
            rest: Vec::new(),
        });
    }

    // End effectors, pads.
    let mut map_bodies: Vec<Option<usize>> = segs.iter().map(|s| Some(s.joint)).collect();
    let mut end_effectors = Vec::new();
    let mut effector_joints = Vec::new();
    let leaf_of = |b: usize| {
        children[segs[b].joint]
            .first()
            .copied()
            .unwrap_or(segs[b].joint)
    };
    for &(b, tag) in &tags {
        if tag == EffectorTag::Foot && options.pads {
            continue;
        }
        end_effectors.push(EndEffector {
            body: body_names[b].clone(),
            tag,
            point: [0.0, round(segs[b].length / 2.0), 0.0],
        });
        effector_joints.push(leaf_of(b));
    }
    for (k, pad) in pads.iter().enumerate() {
        let name = format!("{}_pad", body_names[pad.foot]);
        let name = unique(body_names.iter().cloned().chain([name]).collect())
            .pop()
            .expect("one more name");
        body_names.push(name.clone());
        bodies.push(Body {
            name: name.clone(),
            shape: Shape::Box {
                half_extents: pad.half.map(round),
            },
            mass: masses[segs.len() + k],
            inertia: None,
            position: v3(pad.center),
            rotation: euler_deg(&pad.rotation),
        });
        map_bodies.push(None);
        joint_names.push(format!("{name}_weld"));
        joints.push(Joint::new(
            String::new(),
            body_names[pad.foot].clone(),
            name.clone(),
            v3(pad.center + pad.rotation * Vector3::new(0.0, pad.half[1], 0.0)),
            JointKind::Fixed,
        ));
        end_effectors.push(EndEffector {
            body: name,
            tag: EffectorTag::Foot,
            point: [0.0, -round(pad.half[1]), 0.0],
        });
        effector_joints.push(leaf_of(pad.foot));
    }
    for (j, name) in joints.iter_mut().zip(unique(joint_names)) {
        j.name = name;
    }

    // Mirror pairs: a left and a right body whose names agree once the side is dropped.
    let mut mirror_pairs = Vec::new();
    let mut used = vec![false; body_names.len()];
    for l in 0..body_names.len() {
        if names::side(&body_names[l]) != Some(names::Side::Left) {
            continue;
        }
        let key = names::side_free(&body_names[l]);
        if let Some(r) = (0..body_names.len()).find(|&r| {
            !used[r]
                && names::side(&body_names[r]) == Some(names::Side::Right)
                && names::side_free(&body_names[r]) == key
        }) {
            used[r] = true;
            mirror_pairs.push((body_names[l].clone(), body_names[r].clone()));
        }
    }

    let points = (0..n)
        .filter(|&k| kept[k])
        .map(|k| {
            let body = body_of[k]
                .or_else(|| ks.joints[k].parent.and_then(|p| body_of[p]))
                .expect("a leaf's parent has a body");
            MappedPoint {
                ks_joint: k,
                body,
                point: v3(ks.rest_position(k)),
                weight: None,
            }
        })
        .collect();
    let root = body_of[start].expect("the root has children");
    let character = Character {
        name: options
            .name
            .clone()
            .unwrap_or_else(|| names::sanitize(&ks.name)),
        description: format!(
            "automatic ARBS (Borer et al. 2018, §4.1) of {}: one capsule per non-leaf or skinned leaf joint of its {n}-joint skeleton ({} bodies), hinge joints, {} kg {}, radii {}, {} feet pads",
            ks.source,
            segs.len(),
            options.mass,
            if human_masses {
                "shared by de Leva's segment fractions"
            } else {
                "at one density"
            },
            match (options.radius, ks.skin.is_empty()) {
                (RadiusRule::Fraction(f), _) => format!("{:.0} % of the length", f * 100.0),
                (RadiusRule::Auto, true) => "10 % of the length".into(),
                _ => "fitted to the skin".into(),
            },
            pads.len()
        ),
        root: Root {
            body: body_names[root].clone(),
            kind: RootKind::Free,
            origin: None,
        },
        bodies,
        joints,
        end_effectors,
        mirror_pairs,
        separations: Vec::new(),
        weight_bearing: Vec::new(),
        gait: GaitHints::default(),
    };
    let problems = character.validate();
    if !problems.is_empty() {
        return bad(format!(
            "the automatic character is invalid: {}",
            problems
                .iter()
                .map(|p| p.to_string())
                .collect::<Vec<_>>()
                .join("; ")
        ));
    }
    let map = ArbsMap {
        root: start,
        bodies: map_bodies,
        end_effectors: effector_joints,
        points,
        axes: axis_sources,
        human_masses,
    };
    Ok((character, map))
}
