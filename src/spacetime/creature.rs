//! The gait solver's creature, built from a character: one character model (`crate::model`)
//! for both the Rapier simulation and the spacetime solver.
//!
//! Implements the creature model of Wampler 2012 (thesis §3.2 and Appendix A) on top of the ARBS of
//! Agrawal et al. 2014 (§5) and Borer et al. 2018 (§4). A character file describes its reference
//! pose: every body's centre of mass and orientation and every joint's anchor and axes in world
//! coordinates, all joint coordinates zero. The solver's limb frames are parallel to the world in
//! that pose, so the derivation is direct:
//!
//! - **Limb of a body**: it starts at the anchor p of the joint to its parent (the root: at
//!   `root.origin`, default its centre of mass c) and runs through c, so the limb's direction is
//!   (c − p)/|c − p| and its length 2|c − p| (the centre of mass at half length, as in §3.2).
//! - **Attachment**: a limb's anchor relative to its parent's start is split into `at`·(parent
//!   length) along the parent's direction plus a perpendicular offset, so a limb hanging from its
//!   parent's far end (`at` = 1) follows that end when a morphology changes its parent's length
//!   (thesis §3.4).
//! - **Inertia**: a `Cylinder` body along its limb is the thesis's solid cylinder (its radius
//!   becomes the limb's, and lengths and radii can be optimised); any other shape keeps its exact
//!   tensor Rᵦ·diag(I)·Rᵦᵀ about its centre of mass.
//! - **Joints**: hinge → one angle (A.1); universal → two Euler angles about its axes, composed
//!   parent-fixed first (the simulation's convention); ball → the exponential map (A.2); fixed →
//!   zero coordinates; a free root → exponential map then the world position of the root's
//!   origin. Limits and rest angles convert from degrees; the root's rotation is bounded by
//!   ±[`ROOT_ROTATION_LIMIT`] (the exponential map's principal ball).
//! - **Annotations**: `Foot` end effectors are the point contacts (constraints 3.3–3.5), in file
//!   order; the first `Head` effector's body is the head (terms 3.16–3.17); `separations` keep
//!   end points apart (Eq. 3.6). A body's end point is its effector's point when it has one, else
//!   its limb's far end.
//! - **Rest pose**: the joints' `rest` angles, the root unrotated above its reference position at
//!   the height where the lowest foot touches the ground.
//!
//! A planar root (the 2D characters) becomes a free root held in its plane: rotation about z
//! only, z fixed, and the solver keeps the in-plane balances ([`Skeleton::planar`]); its joints
//! must be hinges about z.

use super::dynamics::forward_kinematics;
use super::skeleton::{CreatureSpec, JointKind, LimbSpec, SeparationSpec, Skeleton};
use crate::model::{
    Character, EffectorTag, JointKind as CharacterJoint, ModelError, Problem, RootKind, Shape,
    parse_validated, read_text,
};
use std::path::Path;

/// Bound on each exponential-map coordinate of a free root (rad): just over π.
pub const ROOT_ROTATION_LIMIT: f64 = 3.2;

/// Below this distance (m) a body's centre of mass counts as at its joint: the limb has no
/// direction of its own and keeps the shape's exact inertia.
const AT_JOINT: f64 = 1e-9;

impl Skeleton {
    /// Loads a character file and builds its creature; errors name the file and line.
    pub fn load(path: impl AsRef<Path>) -> Result<Skeleton, ModelError> {
        let path = path.as_ref();
        Self::parse(&read_text(path)?, path)
    }

    /// Parses character RON text and builds its creature; `path` is only used in messages.
    pub fn parse(text: &str, path: &Path) -> Result<Skeleton, ModelError> {
        let character: Character = parse_validated(text, path, |c: &Character| {
            let problems = c.validate();
            if problems.is_empty() {
                creature_problems(c)
            } else {
                problems
            }
        })?;
        Ok(Self::from_character(&character).expect("checked by creature_problems"))
    }

    /// The creature of a character, or what keeps the character from being one.
    pub fn from_character(c: &Character) -> Result<Skeleton, Vec<Problem>> {
        let mut problems = c.validate();
        if problems.is_empty() {
            problems = creature_problems(c);
        }
        if !problems.is_empty() {
            return Err(problems);
        }
        let mut skeleton = Skeleton::build(&creature_spec(c));
        if c.root.kind == RootKind::Planar {
            // The plane holds the root: no turn about x or y, no move along z.
            let root = &mut skeleton.limbs[0];
            for k in [0, 1, 5] {
                root.lower[k] = root.rest[k];
                root.upper[k] = root.rest[k];
            }
            skeleton.planar = true;
        }
        settle_root(&mut skeleton);
        Ok(skeleton)
    }
}

/// What a valid character lacks to be a gait-solver creature.
fn creature_problems(c: &Character) -> Vec<Problem> {
    let mut out = Vec::new();
    if c.root.kind == RootKind::Planar {
        for j in &c.joints {
            let planar = match &j.kind {
                CharacterJoint::Hinge { axis } => axis[0] == 0.0 && axis[1] == 0.0,
                CharacterJoint::Fixed => true,
                _ => false,
            };
            if !planar {
                out.push(Problem::named(
                    "joints",
                    &j.name,
                    "kind",
                    "a planar character's joints must be hinges about z (or fixed) for the gait solver"
                        .into(),
                ));
            }
        }
    }
    let feet: Vec<&str> = c
        .effectors(EffectorTag::Foot)
        .map(|e| e.body.as_str())
        .collect();
    if feet.is_empty() {
        out.push(Problem::new(
            None,
            "end_effectors",
            "the gait solver needs at least one `Foot` end effector".into(),
        ));
    }
    for (k, f) in feet.iter().enumerate() {
        if feet[..k].contains(f) {
            out.push(Problem::new(
                None,
                "end_effectors",
                format!(
                    "body `{f}` has two `Foot` end effectors; the gait solver takes one per body"
                ),
            ));
        }
    }
    out
}

fn sub(a: [f64; 3], b: [f64; 3]) -> [f64; 3] {
    [a[0] - b[0], a[1] - b[1], a[2] - b[2]]
}

fn dot(a: [f64; 3], b: [f64; 3]) -> f64 {
    a[0] * b[0] + a[1] * b[1] + a[2] * b[2]
}

/// Rotation matrix of a body's reference orientation: rotations about x, then y, then z
/// (degrees), R = R_z·R_y·R_x, evaluated in f64.
fn body_rotation(r: [f64; 3]) -> [[f64; 3]; 3] {
    let [a, b, g] = r.map(f64::to_radians);
    let (sa, ca, sb, cb, sg, cg) = (a.sin(), a.cos(), b.sin(), b.cos(), g.sin(), g.cos());
    [
        [cg * cb, cg * sb * sa - sg * ca, cg * sb * ca + sg * sa],
        [sg * cb, sg * sb * sa + cg * ca, sg * sb * ca - cg * sa],
        [-sb, cb * sa, cb * ca],
    ]
}

fn mat_vec(m: &[[f64; 3]; 3], v: [f64; 3]) -> [f64; 3] {
    [dot(m[0], v), dot(m[1], v), dot(m[2], v)]
}

/// Bodies in file order, parents first (a stable topological order of the joint tree).
fn limb_order(c: &Character, root: usize) -> Vec<usize> {
    let mut order = vec![root];
    while order.len() < c.bodies.len() {
        let before = order.len();
        for (i, b) in c.bodies.iter().enumerate() {
            if order.contains(&i) {
                continue;
            }
            let parent = c.joint_to(&b.name).and_then(|j| c.body_index(&j.parent));
            if parent.is_some_and(|p| order.contains(&p)) {
                order.push(i);
            }
        }
        assert!(order.len() > before, "validated characters are trees");
    }
    order
}

/// The limb description of every body (assumes a valid creature).
fn creature_spec(c: &Character) -> CreatureSpec {
    let root = c.body_index(&c.root.body).expect("validated");
    let order = limb_order(c, root);
    // Per body: the limb's start (world, reference pose), direction and length.
    let mut start = vec![[0.0; 3]; c.bodies.len()];
    let mut direction = vec![[0.0, 1.0, 0.0]; c.bodies.len()];
    let mut length = vec![0.0; c.bodies.len()];
    let mut limbs = Vec::with_capacity(order.len());
    for &i in &order {
        let b = &c.bodies[i];
        let com = b.position;
        let joint = c.joint_to(&b.name);
        let p = match joint {
            Some(j) => j.anchor,
            None => c.root.origin.unwrap_or(com),
        };
        start[i] = p;
        let reach = sub(com, p);
        let half = dot(reach, reach).sqrt();
        if half > AT_JOINT {
            direction[i] = reach.map(|x| x / half);
            length[i] = 2.0 * half;
        }
        let d = direction[i];
        let rot = body_rotation(b.rotation);
        let principal = b.principal_inertia();
        let mass = b.mass;
        // A cylinder along its limb (and centred on it) is the thesis's limb; anything else
        // keeps its exact tensor.
        let cylinder = match b.shape {
            Shape::Cylinder {
                radius,
                half_length,
                axis,
            } if length[i] > 0.0 => {
                let mut a = [0.0; 3];
                a[axis.index()] = 1.0;
                let a = mat_vec(&rot, a);
                let aligned = dot(a, d).abs() > 1.0 - 1e-6;
                let centred = (2.0 * half_length - length[i]).abs() <= 1e-5 * length[i].max(1.0);
                (aligned && centred).then_some(radius)
            }
            _ => None,
        };
        let tensor: [[f64; 3]; 3] = std::array::from_fn(|r| {
            std::array::from_fn(|s| (0..3).map(|k| rot[r][k] * principal[k] * rot[s][k]).sum())
        });
        let radius = cylinder.unwrap_or_else(|| {
            let axial = dot(d, mat_vec(&tensor, d));
            (2.0 * axial / mass).sqrt()
        });
        // The end point: the effector's (foot first, then head), else the far end.
        let effector = c
            .effectors(EffectorTag::Foot)
            .chain(c.effectors(EffectorTag::Head))
            .find(|e| e.body == b.name);
        let end = effector.and_then(|e| {
            let world = {
                let r = mat_vec(&rot, e.point);
                [com[0] + r[0], com[1] + r[1], com[2] + r[2]]
            };
            let local = sub(world, p);
            let far = d.map(|x| x * length[i]);
            let off = sub(local, far);
            (dot(off, off).sqrt() > 1e-6).then_some(local)
        });
        let (parent, at, offset) = match joint {
            None => (String::new(), 1.0, [0.0; 3]),
            Some(j) => {
                let pi = c.body_index(&j.parent).expect("validated");
                let rel = sub(p, start[pi]);
                let (pd, pl) = (direction[pi], length[pi]);
                let mut at = if pl > 0.0 { dot(rel, pd) / pl } else { 0.0 };
                // Snap what single-precision files cannot say exactly: a limb at its parent's
                // end or start, with no offset.
                for whole in [0.0, 1.0] {
                    if (at - whole).abs() < 1e-6 {
                        at = whole;
                    }
                }
                let offset =
                    sub(rel, pd.map(|x| x * at * pl)).map(|x| if x.abs() < 1e-7 { 0.0 } else { x });
                (j.parent.clone(), at, offset)
            }
        };
        let (kind, rest, limits) = match joint {
            None => (
                JointKind::Free,
                vec![0.0, 0.0, 0.0, p[0], p[1], p[2]],
                [(-ROOT_ROTATION_LIMIT, ROOT_ROTATION_LIMIT); 3]
                    .into_iter()
                    .chain([(f64::NEG_INFINITY, f64::INFINITY); 3])
                    .collect(),
            ),
            Some(j) => {
                let kind = match &j.kind {
                    CharacterJoint::Hinge { axis } => JointKind::Hinge { axis: (*axis) },
                    CharacterJoint::Universal { axes } => JointKind::Euler {
                        axes: vec![(axes.0), (axes.1)],
                    },
                    CharacterJoint::Ball => JointKind::ExpMap,
                    CharacterJoint::Fixed => JointKind::Fixed {
                        rotation: [[1.0, 0.0, 0.0], [0.0, 1.0, 0.0], [0.0, 0.0, 1.0]],
                    },
                };
                let radians = |v: &f64| v.to_radians();
                (
                    kind,
                    j.rest.iter().map(radians).collect(),
                    j.limits
                        .iter()
                        .map(|(lo, hi)| (radians(lo), radians(hi)))
                        .collect(),
                )
            }
        };
        // A box foot's sole: its four lowest corners (the box's −y face in the reference pose).
        let sole = match b.shape {
            Shape::Box { half_extents: h }
                if c.effectors(EffectorTag::Foot).any(|e| e.body == b.name) =>
            {
                [(-1.0, -1.0), (-1.0, 1.0), (1.0, -1.0), (1.0, 1.0)]
                    .map(|(sx, sz)| {
                        let r = mat_vec(&rot, [sx * h[0], -h[1], sz * h[2]]);
                        sub([com[0] + r[0], com[1] + r[1], com[2] + r[2]], p)
                    })
                    .to_vec()
            }
            _ => Vec::new(),
        };
        limbs.push(LimbSpec {
            name: b.name.clone(),
            parent,
            at,
            offset,
            joint: kind,
            direction: d,
            length: length[i],
            radius,
            mass,
            rest,
            limits,
            end,
            inertia: if cylinder.is_some() {
                None
            } else {
                Some(tensor)
            },
            sole,
        });
    }
    CreatureSpec {
        name: c.name.clone(),
        limbs,
        feet: c
            .effectors(EffectorTag::Foot)
            .map(|e| e.body.clone())
            .collect(),
        head: c
            .effectors(EffectorTag::Head)
            .next()
            .map(|e| e.body.clone()),
        separations: c
            .separations
            .iter()
            .map(|s| SeparationSpec {
                a: s.a.clone(),
                b: s.b.clone(),
                min_distance: s.min_distance,
            })
            .collect(),
        solve: c.gait,
    }
}

/// Lifts the root's rest height so that the lowest foot touches the ground (y = 0) in the rest
/// pose.
fn settle_root(skeleton: &mut Skeleton) {
    let q = skeleton.rest_pose();
    let k = forward_kinematics(skeleton, &skeleton.morphology::<f64>(), &q);
    let lowest = skeleton
        .feet
        .iter()
        .map(|&f| k.limbs[f].end.y)
        .fold(f64::INFINITY, f64::min);
    skeleton.limbs[0].rest[4] -= lowest;
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::load_character;

    /// Every shipped character is one model for both engines: it loads and it is a gait
    /// creature (human2d a planar one, held in its plane).
    #[test]
    fn every_shipped_character_is_one_model() {
        let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("characters");
        let mut creatures = Vec::new();
        for entry in std::fs::read_dir(&dir).unwrap() {
            let path = entry.unwrap().path();
            let c = load_character(&path).unwrap_or_else(|e| panic!("{e}"));
            match Skeleton::load(&path) {
                Ok(sk) => {
                    assert_eq!(sk.limbs.len(), c.bodies.len(), "{}", c.name);
                    assert_eq!(sk.dof(), 6 + c.internal_dof(), "{}", c.name);
                    assert!(
                        (sk.total_mass() - c.total_mass()).abs() < 1e-9,
                        "{}",
                        c.name
                    );
                    creatures.push(c.name.clone());
                }
                Err(e) => {
                    assert_eq!(c.name, "human2d", "{e}");
                    assert!(e.to_string().contains("needs a `Free` root"), "{e}");
                }
            }
        }
        creatures.sort();
        assert_eq!(
            creatures,
            [
                "bird_robot",
                "dino",
                "horse",
                "human2d",
                "human3d",
                "human3d_walker",
                "monoped",
                "pentaped",
                "simple biped",
                "velociraptor"
            ]
        );
    }

    /// human3d's feet are its soles and its pelvis (the root) has no limb of its own: its
    /// tensor, its joints at offsets from the centre of mass, its soles on the ground at rest.
    #[test]
    fn human3d_keeps_its_shapes_and_soles() {
        let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("characters/human3d.ron");
        let sk = Skeleton::load(&path).unwrap();
        let pelvis = &sk.limbs[0];
        assert_eq!(pelvis.length, 0.0);
        assert!(pelvis.inertia.is_some());
        let names: Vec<&str> = sk.feet.iter().map(|&f| sk.limbs[f].name.as_str()).collect();
        assert_eq!(names, ["l_foot", "r_foot"]);
        let foot = &sk.limbs[sk.feet[0]];
        // Sole (0.05, 0.0) from the ankle at (0.0, 0.08): (0.05, −0.08, 0).
        let end = foot.end.unwrap();
        assert!((end[0] - 0.05).abs() < 1e-12 && (end[1] + 0.08).abs() < 1e-12);
        let q = sk.rest_pose();
        let k = forward_kinematics(&sk, &sk.morphology::<f64>(), &q);
        for &f in &sk.feet {
            assert!(
                k.limbs[f].end.y.abs() < 1e-9,
                "the soles touch the ground at rest"
            );
        }
        assert_eq!(sk.separations.len(), 2);
        assert!(sk.head.is_some());
    }
}
