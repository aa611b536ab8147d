//! Motion capture onto a character of the project (retargeting): the keyframe transfer of
//! Borer et al. 2018 (§4.3, full-body inverse kinematics) onto a character that was not built
//! from the skeleton, such as human3d's walker.
//!
//! **Matching.** The skeleton's joints are matched to the character's bodies by their generic
//! part names (`names.rs`, after §4.1's automatic naming). A limb of the character (`l_thigh`,
//! `l_shin`, `l_foot`, `l_upper_arm`, `l_forearm`, `l_hand`, and the right's) takes the
//! skeleton joint of the same part with the strongest claim (CMU's `LeftUpLeg` over
//! `LHipJoint`; the first in the skeleton on a tie); without an upper-arm joint, the one below
//! the collar bone (Biovision's `LeftCollar` → `LeftShoulder`). The head's joint takes the
//! skeleton's neck (else its head). Trunk chains (spine, chest, neck segments) are cut
//! differently by every rig and are not matched: the trunk follows the hips, shoulders and head.
//!
//! **Scaling.** The root's path and the feet (each ankle and every joint below it) are scaled
//! about the floor origin by the ratio of the legs (hip to knee to ankle, both sides): a planted
//! foot stays planted and the steps take the character's stride. Every other bone between two
//! matched joints is scaled to the character's distance between their points (`gains`), so
//! the targets are within the character's reach; the rest keep their parent's factor. The
//! skeleton is then lifted so that its ankle, where the foot stands flattest, is at the
//! character's ankle height, and a first frame far from the second (a calibration pose) is left
//! out.
//!
//! **Targets.** Each matched joint's position is an IK target ([`super::transfer`]) for the
//! point of its body that stands for it: the body's joint anchor (hip ↔ `LeftUpLeg`, knee ↔
//! `LeftLeg`, ankle ↔ `LeftFoot`, shoulder ↔ `LeftArm`, …); for the root, where the skeleton's
//! root lies from the middle of its hips, put at the middle of the character's hips. A foot also
//! follows its ball (the foot bone's far end: `LeftToeBase`, or the ankle's end site) and a
//! point beside its ankle that turns with it, placed as the capture's foot stands flat with its
//! toes turned onto +x, so the foot neither rolls nor pitches freely; the toe's own far end is
//! not a target (the toes bend as the heel lifts, the character's foot does not). The feet's
//! points weigh [`FOOT_WEIGHT`]: where the proportions differ the knees and hips give way. The
//! head also follows the skeleton's head as it stands from the neck at rest.
//!
//! **Solving.** Every frame starts from the one before only (never again from the skeleton's
//! rotations, which belong to another rest pose), so the motion never jumps between two fits;
//! the first starts from the character's reference pose turned and placed as the skeleton's
//! root. A foot is down while its ball is within [`CONTACT_HEIGHT`] of its lowest and slower
//! than [`CONTACT_SPEED`]: the foot turns about the ball as the heel lifts, when the middle of
//! its sole already rises and moves back.

use super::ArbsError;
use super::build::{ArbsMap, MappedPoint};
use super::names::part;
use super::skeleton::{JointPose, Skeleton};
use super::transfer::{Transfer, TransferOptions, transfer};
use crate::model::Character;
use nalgebra::{UnitQuaternion, Vector3};

/// The character's parts a skeleton joint is matched to (each with `l_` and `r_` but the head).
const LIMBS: [&str; 6] = ["thigh", "shin", "foot", "upper_arm", "forearm", "hand"];

/// A retargeted animation: the transfer, and what was matched.
#[derive(Clone, Debug)]
pub struct Retarget {
    pub transfer: Transfer,
    /// The factor the skeleton, as loaded, was scaled by to the character's legs.
    pub scale: f64,
    /// The character's leg, hip to knee to ankle (m, mean of both sides).
    pub leg: f64,
    /// How far it was then lifted (m) to put its ankles at the character's ankle height.
    pub lift: f64,
    /// Whether the animation's first frame was a calibration pose and left out: it turns some
    /// joint more than [`CALIBRATION_TURN`] from the next frame, which moves far less.
    pub calibration: bool,
    /// Per matched body: its name and the skeleton joint's.
    pub matched: Vec<(String, String)>,
}

/// One side's leg: the character's hip and ankle anchors, the skeleton's hip (rest) and ankle
/// joint.
struct Leg {
    c_hip: Vector3<f64>,
    ks_hip: Vector3<f64>,
    c_ankle: Vector3<f64>,
    ks_ankle: usize,
}

/// Retargets animation `animation` of `ks` onto `character` (module docs). Errors name the
/// skeleton's file and what it lacks.
pub fn retarget(
    ks: &Skeleton,
    animation: usize,
    character: &Character,
    options: &TransferOptions,
) -> Result<Retarget, ArbsError> {
    let path = ks.source.as_str();
    if ks
        .animations
        .get(animation)
        .is_none_or(|a| a.frames.is_empty())
    {
        return Err(ArbsError::build(
            path,
            format!(
                "no animation {animation} with frames: the skeleton has {} animations",
                ks.animations.len()
            ),
        ));
    }
    let joint_of = strongest_claims(ks);
    let claim = |p: &str| joint_of.iter().find(|(q, _)| q == p).map(|(_, k)| *k);
    let body_joint = |body: &str| -> Option<usize> {
        let (p, _) = part(body)?;
        let bare = p.trim_start_matches("l_").trim_start_matches("r_");
        if p == "head" {
            claim("neck").or_else(|| claim("head"))
        } else if LIMBS.contains(&bare) {
            // Biovision's `LeftCollar` → `LeftShoulder` chain: the joint below the collar bone
            // is the upper arm when no joint says so.
            claim(&p).or_else(|| {
                let side = &p[..p.len() - bare.len()];
                (bare == "upper_arm")
                    .then(|| claim(&format!("{side}clavicle")))
                    .flatten()
                    .and_then(|c| ks.children(c).first().copied())
            })
        } else {
            None
        }
    };
    let anchor = |body: &str| -> Option<Vector3<f64>> {
        character
            .joints
            .iter()
            .find(|j| j.child == body)
            .map(|j| Vector3::from(j.anchor))
    };
    // The legs: hip, knee and ankle of each side, on the skeleton and the character.
    let mut lengths = Vec::new();
    let mut legs = Vec::new();
    for side in ["l_", "r_"] {
        let names = ["thigh", "shin", "foot"].map(|p| format!("{side}{p}"));
        let ks_leg: Option<Vec<Vector3<f64>>> = names
            .iter()
            .map(|n| body_joint(n).map(|k| ks.rest_position(k)))
            .collect();
        let c_leg: Option<Vec<Vector3<f64>>> = names.iter().map(|n| anchor(n)).collect();
        let (Some(ks_leg), Some(c_leg)) = (ks_leg, c_leg) else {
            return Err(ArbsError::build(
                path,
                format!(
                    "cannot retarget onto `{}`: expected a thigh, shin and foot on each side of \
                     both (joints named like `LeftUpLeg`, `LeftLeg`, `LeftFoot`; bodies like \
                     `l_thigh`, `l_shin`, `l_foot`)",
                    character.name
                ),
            ));
        };
        let length = |p: &[Vector3<f64>]| (p[0] - p[1]).norm() + (p[1] - p[2]).norm();
        lengths.push((length(&c_leg), length(&ks_leg)));
        legs.push(Leg {
            c_hip: c_leg[0],
            ks_hip: ks_leg[0],
            c_ankle: c_leg[2],
            ks_ankle: body_joint(&names[2]).expect("found above"),
        });
    }
    let (c_length, ks_length) = lengths
        .iter()
        .fold((0.0, 0.0), |(a, b), (c, k)| (a + c, b + k));
    if !(ks_length > 1e-6) {
        return Err(ArbsError::build(path, "the skeleton's legs have no length"));
    }
    let scale = c_length / ks_length;
    let root = character
        .body_index(&character.root.body)
        .ok_or_else(|| ArbsError::build(path, "the character's root body does not exist"))?;
    // The matched joints with their bodies and points (reference pose); the root's where the
    // skeleton's root lies from the middle of its hips, and the head's anchor for the
    // skeleton's neck when it has one.
    let c_hips = (legs[0].c_hip + legs[1].c_hip) / 2.0;
    let ks_hips = (legs[0].ks_hip + legs[1].ks_hip) / 2.0;
    let mut targets = vec![(0, root, c_hips + scale * (ks.rest_position(0) - ks_hips))];
    let mut matched = vec![(character.root.body.clone(), ks.joints[0].name.clone())];
    for (b, body) in character.bodies.iter().enumerate() {
        let (Some(k), Some(at)) = (body_joint(&body.name), anchor(&body.name)) else {
            continue;
        };
        targets.push((k, b, at));
        matched.push((body.name.clone(), ks.joints[k].name.clone()));
    }
    targets.sort_by_key(|t| t.0);
    let gains = gains(ks, &targets, scale);
    // The feet keep the capture's places, scaled: a planted foot stays planted.
    let mut whole = vec![false; ks.joints.len()];
    for (j, joint) in ks.joints.iter().enumerate() {
        whole[j] = legs.iter().any(|l| l.ks_ankle == j) || joint.parent.is_some_and(|p| whole[p]);
    }
    let mut scaled = placed(ks, scale, &gains, &whole);
    let calibration = starts_with_calibration(&scaled, animation);
    if calibration {
        scaled.animations[animation].frames.remove(0);
    }
    // Each foot where it stands flat: its frame, and the turn about the vertical that brings
    // its toes onto +x (the character's reference foot).
    let flat: Vec<(usize, UnitQuaternion<f64>)> = legs
        .iter()
        .map(|l| flat_frame(&scaled, animation, l.ks_ankle, &foot_chain(ks, l.ks_ankle)))
        .collect();
    // Ankles standing flat at the character's ankle height: the soles then meet the floor.
    let frames = &scaled.animations[animation].frames;
    let lift = legs
        .iter()
        .zip(&flat)
        .map(|(l, (f, _))| l.c_ankle.y - frames[*f][l.ks_ankle].position[1])
        .sum::<f64>()
        / 2.0;
    lift_by(&mut scaled, lift);
    let mut points = Vec::new();
    let mut end_effectors = Vec::new();
    // Per foot body: its ball's point (reference pose).
    let mut balls: Vec<(usize, Vector3<f64>)> = Vec::new();
    for &(k, b, at) in &targets {
        let name = &character.bodies[b].name;
        let foot = legs.iter().zip(&flat).find(|(l, _)| l.ks_ankle == k);
        let weight = foot.map(|_| FOOT_WEIGHT);
        points.push(MappedPoint {
            ks_joint: k,
            body: b,
            point: at.into(),
            weight,
        });
        // Joints past the matched one that orient its body, where they are from it: a foot's
        // ball and a side point as the foot stands flat, the foot turned to face +x; the head
        // past the neck as in the rest pose.
        let (past, offsets): (Vec<usize>, Vec<Vector3<f64>>) = if let Some((_, (f, heading))) = foot
        {
            // The ball (the foot bone's far end) turns with the foot; a toe's far end does not.
            let ball = foot_chain(ks, k).first().copied();
            let side = with_side_point(&mut scaled, animation, k, *f, heading);
            let at_flat = &scaled.animations[animation].frames[*f];
            let past: Vec<usize> = ball.into_iter().chain([side]).collect();
            let offsets: Vec<Vector3<f64>> = past
                .iter()
                .map(|&t| heading * (at_flat[t].position() - at_flat[k].position()))
                .collect();
            if ball.is_some() {
                balls.push((b, at + offsets[0]));
            }
            (past, offsets)
        } else if b != root && part(name).is_some_and(|(p, _)| p == "head") {
            let head: Vec<usize> = claim("head").filter(|&h| h != k).into_iter().collect();
            let offsets = head
                .iter()
                .map(|&t| scaled.rest_position(t) - scaled.rest_position(k))
                .collect();
            (head, offsets)
        } else {
            (Vec::new(), Vec::new())
        };
        for (&t, from) in past.iter().zip(offsets) {
            points.push(MappedPoint {
                ks_joint: t,
                body: b,
                point: (at + from).into(),
                weight,
            });
        }
        if foot.is_some() {
            end_effectors.push(past.first().copied().unwrap_or(k));
        }
    }
    let mut bodies = vec![None; character.bodies.len()];
    bodies[root] = Some(0);
    let map = ArbsMap {
        root: 0,
        bodies,
        end_effectors,
        points,
        axes: vec![None; character.bodies.len()],
        human_masses: false,
    };
    let options = TransferOptions {
        reseed: false,
        ..options.clone()
    };
    let mut transfer = transfer(&scaled, animation, character, &map, &options)?;
    // A foot is down when its ball is (module docs).
    let mut on_balls = character.clone();
    for e in &mut on_balls.end_effectors {
        let Some(b) = character.body_index(&e.body) else {
            continue;
        };
        if let Some((_, ball)) = balls.iter().find(|(body, _)| *body == b) {
            let body = &character.bodies[b];
            let local = crate::clip::pose::reference_orientation(body).inverse()
                * (ball - Vector3::from(body.position));
            e.point = local.into();
        }
    }
    transfer
        .clip
        .estimate_contacts(&on_balls, CONTACT_HEIGHT, CONTACT_SPEED);
    Ok(Retarget {
        transfer,
        scale,
        leg: c_length / 2.0,
        lift,
        calibration,
        matched,
    })
}

/// Per generic part, the skeleton joint with the strongest claim (the first on a tie).
fn strongest_claims(ks: &Skeleton) -> Vec<(String, usize)> {
    let mut best: Vec<(String, usize, u8)> = Vec::new();
    for (k, j) in ks.joints.iter().enumerate() {
        let Some((p, strength)) = part(&j.name) else {
            continue;
        };
        match best.iter_mut().find(|(q, _, _)| *q == p) {
            Some(slot) if strength > slot.2 => *slot = (p, k, strength),
            Some(_) => {}
            None => best.push((p, k, strength)),
        }
    }
    best.into_iter().map(|(p, k, _)| (p, k)).collect()
}

/// The joints below foot joint `foot` along its bone and on: its first child (a toe when it has
/// one: `LeftToeBase`; else the foot's end site) and down that child's first children to the far
/// end (`LeftToeBase_end`). The first is the foot bone's far end, the ball of the foot.
fn foot_chain(ks: &Skeleton, foot: usize) -> Vec<usize> {
    let children = ks.children(foot);
    let toe = children
        .iter()
        .copied()
        .find(|&c| part(&ks.joints[c].name).is_some_and(|(p, _)| p.ends_with("toe")))
        .or_else(|| children.first().copied());
    let Some(toe) = toe else {
        return Vec::new();
    };
    let mut chain = vec![toe];
    while let Some(&next) = ks.children(*chain.last().expect("one")).first() {
        chain.push(next);
    }
    chain
}

/// A first frame turning a joint this far (rad) from the second, when the second turns every
/// joint less than a quarter of that into the third, is a calibration pose (CMU's captures start
/// with one), not motion.
pub const CALIBRATION_TURN: f64 = 0.5;

/// Whether animation `animation` starts with a calibration pose ([`CALIBRATION_TURN`]).
fn starts_with_calibration(ks: &Skeleton, animation: usize) -> bool {
    let Some(frames) = ks.animations.get(animation).map(|a| &a.frames) else {
        return false;
    };
    if frames.len() < 3 {
        return false;
    }
    let turn = |a: &[JointPose], b: &[JointPose]| {
        a.iter()
            .zip(b)
            .map(|(p, q)| p.rotation().angle_to(&q.rotation()))
            .fold(0.0, f64::max)
    };
    let first = turn(&frames[0], &frames[1]);
    first > CALIBRATION_TURN && turn(&frames[1], &frames[2]) < first / 4.0
}

/// The IK weight of a foot's points (the root's is 4, a hand's 2, others 1): the feet follow
/// the capture, and where the character's proportions differ the knees and hips give way.
pub const FOOT_WEIGHT: f64 = 20.0;

/// A foot's ball within this of its lowest (m), and slower than [`CONTACT_SPEED`], is down.
pub const CONTACT_HEIGHT: f64 = 0.05;
/// m/s; see [`CONTACT_HEIGHT`].
pub const CONTACT_SPEED: f64 = 0.4;

/// How far beside a foot's ankle its side point lies, m (across the foot, +z at rest).
pub const SIDE_POINT: f64 = 0.05;

/// Adds to `ks` a leaf joint beside foot joint `foot` that turns with it ([`SIDE_POINT`] across
/// the foot as it stands flat in frame `flat`, `heading` turning its toes onto +x), and returns
/// it: with the toe it fixes how the foot rolls, which a straight toe chain leaves free.
fn with_side_point(
    ks: &mut Skeleton,
    animation: usize,
    foot: usize,
    flat: usize,
    heading: &UnitQuaternion<f64>,
) -> usize {
    let offset = heading.inverse() * Vector3::new(0.0, 0.0, SIDE_POINT);
    let reference = ks.animations[animation].frames[flat][foot].rotation();
    let at = |p: &JointPose| {
        let turn = p.rotation() * reference.inverse();
        JointPose::new(p.position() + turn * offset, &p.rotation())
    };
    let rest = at(&ks.joints[foot].rest);
    ks.joints.push(super::skeleton::KsJoint {
        name: format!("{}_side", ks.joints[foot].name),
        parent: Some(foot),
        rest,
    });
    for a in &mut ks.animations {
        for frame in &mut a.frames {
            let p = at(&frame[foot]);
            frame.push(p);
        }
    }
    ks.joints.len() - 1
}

/// The frame in which foot joint `foot` stands flattest (its ankle and its toe's far end lowest
/// together; the ankle alone without a toe), and the turn about the vertical that brings its
/// toes (the foot's rest direction without a toe) onto +x there.
fn flat_frame(
    ks: &Skeleton,
    animation: usize,
    foot: usize,
    toes: &[usize],
) -> (usize, UnitQuaternion<f64>) {
    let frames = &ks.animations[animation].frames;
    let tip = toes.last().copied();
    let low = |f: &Vec<JointPose>| f[foot].position[1] + tip.map_or(0.0, |t| f[t].position[1]);
    let flat = (0..frames.len())
        .min_by(|&a, &b| low(&frames[a]).total_cmp(&low(&frames[b])))
        .unwrap_or(0);
    let f = &frames[flat];
    let along = match tip {
        Some(t) => f[t].position() - f[foot].position(),
        None => f[foot].rotation() * ks.joints[foot].rest.rotation().inverse() * Vector3::x(),
    };
    let level = Vector3::new(along.x, 0.0, along.z);
    let heading = UnitQuaternion::rotation_between(&level, &Vector3::x()).unwrap_or_else(|| {
        UnitQuaternion::from_axis_angle(&Vector3::y_axis(), std::f64::consts::PI)
    });
    (flat, heading)
}

/// Per skeleton joint, the factor its bone (from its parent) is scaled by. Up from each matched
/// joint (`targets`: skeleton joint, body, point; parents first) to the first joint above that
/// is matched or already scaled: the character's distance between the two over the skeleton's,
/// for every bone on the way (an unmatched joint stands at its scaled place from the matched
/// one above it). Any other bone takes its parent's factor (the root's children `scale`).
fn gains(ks: &Skeleton, targets: &[(usize, usize, Vector3<f64>)], scale: f64) -> Vec<f64> {
    let point = |k: usize| targets.iter().find(|t| t.0 == k).map(|t| t.2);
    let mut gain: Vec<Option<f64>> = vec![None; ks.joints.len()];
    // Where joint `j` stands on the character: its point, else its parent's place and its bone.
    fn place(
        ks: &Skeleton,
        j: usize,
        gain: &[Option<f64>],
        point: &dyn Fn(usize) -> Option<Vector3<f64>>,
    ) -> Option<Vector3<f64>> {
        if let Some(p) = point(j) {
            return Some(p);
        }
        let parent = ks.joints[j].parent?;
        let bone = ks.rest_position(j) - ks.rest_position(parent);
        Some(place(ks, parent, gain, point)? + bone * gain[j]?)
    }
    for &(k, _, at) in targets {
        let mut way = vec![k];
        let mut above = ks.joints[k].parent;
        while let Some(a) = above.filter(|&a| point(a).is_none() && gain[a].is_none()) {
            way.push(a);
            above = ks.joints[a].parent;
        }
        let Some(from) = above.and_then(|a| place(ks, a, &gain, &point)) else {
            continue;
        };
        let a = above.expect("placed");
        let ks_distance = (ks.rest_position(k) - ks.rest_position(a)).norm();
        if ks_distance > 1e-9 {
            let g = (at - from).norm() / ks_distance;
            for j in way {
                gain[j] = Some(g);
            }
        }
    }
    let mut out = vec![scale; ks.joints.len()];
    for (j, joint) in ks.joints.iter().enumerate() {
        out[j] = gain[j].unwrap_or_else(|| joint.parent.map_or(scale, |p| out[p]));
    }
    out
}

/// The skeleton with its root's positions, and those of the joints marked `whole`, scaled by
/// `scale` about the origin, and every other bone by its gain; rotations kept.
fn placed(ks: &Skeleton, scale: f64, gains: &[f64], whole: &[bool]) -> Skeleton {
    let mut out = ks.clone();
    let place = |from: &[JointPose], to: &mut [JointPose]| {
        for (j, joint) in ks.joints.iter().enumerate() {
            let p = match joint.parent {
                Some(parent) if !whole[j] => {
                    let bone = from[j].position() - from[parent].position();
                    to[parent].position() + bone * gains[j]
                }
                _ => from[j].position() * scale,
            };
            to[j].position = p.into();
        }
    };
    let rest: Vec<JointPose> = ks.joints.iter().map(|j| j.rest).collect();
    let mut placed_rest = rest.clone();
    place(&rest, &mut placed_rest);
    for (j, p) in out.joints.iter_mut().zip(placed_rest) {
        j.rest = p;
    }
    for (a, source) in out.animations.iter_mut().zip(&ks.animations) {
        for (frame, from) in a.frames.iter_mut().zip(&source.frames) {
            place(from, frame);
        }
    }
    // The skin is not used by the transfer; it keeps the root's scale.
    for s in &mut out.skin {
        for v in &mut s.position {
            *v *= scale;
        }
    }
    out.scale *= scale;
    out
}

/// Every joint of `ks`, at rest and in every frame, raised by `lift` (m).
fn lift_by(ks: &mut Skeleton, lift: f64) {
    let raise = |p: &mut JointPose| p.position[1] += lift;
    ks.joints.iter_mut().for_each(|j| raise(&mut j.rest));
    for a in &mut ks.animations {
        a.frames.iter_mut().flatten().for_each(raise);
    }
    for s in &mut ks.skin {
        s.position[1] += lift;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::arbs::LoadOptions;
    use crate::clip::pose::{body_poses, quat_of};
    use std::path::Path;

    fn root() -> &'static Path {
        Path::new(env!("CARGO_MANIFEST_DIR"))
    }

    fn walker() -> Character {
        crate::model::load_character(&root().join("characters/human3d_walker.ron")).unwrap()
    }

    fn retargeted(file: &str) -> Retarget {
        let ks = Skeleton::load(&root().join(file), &LoadOptions::default()).unwrap();
        retarget(&ks, 0, &walker(), &TransferOptions::default()).unwrap()
    }

    /// Each body matched to its skeleton joint.
    fn assert_matched(r: &Retarget, pairs: &[(&str, &str)]) {
        for (body, joint) in pairs {
            assert!(
                r.matched.iter().any(|(b, j)| b == body && j == joint),
                "{body} ↔ {joint}: {:?}",
                r.matched
            );
        }
    }

    /// The largest change of one joint coordinate between two frames (rad).
    fn largest_jump(r: &Retarget) -> f64 {
        r.transfer
            .clip
            .frames
            .windows(2)
            .flat_map(|w| {
                w[0].joints
                    .iter()
                    .zip(&w[1].joints)
                    .map(|(a, b)| (a - b).abs())
            })
            .fold(0.0, f64::max)
    }

    /// Per foot (left, right), the lowest its sole's middle comes over the clip (m).
    fn lowest_soles(r: &Retarget) -> [f64; 2] {
        let c = walker();
        ["l_foot", "r_foot"].map(|name| {
            let b = c.body_index(name).unwrap();
            let e = c.end_effectors.iter().find(|e| e.body == name).unwrap();
            r.transfer
                .clip
                .frames
                .iter()
                .map(|f| {
                    let p = body_poses(&c, &f.root, &f.joints)[b];
                    p[1] + (quat_of(&p) * Vector3::from(e.point)).y
                })
                .fold(f64::INFINITY, f64::min)
        })
    }

    /// CMU's walk onto human3d's walker: the limbs matched by name (the upper leg over the hip
    /// joint, the neck for the head's joint), the calibration pose left out, the feet followed
    /// within a centimetre and standing on the floor, no joint jumping between frames (120 fps).
    #[test]
    fn a_captured_walk_retargets_onto_human3d() {
        let r = retargeted("tests/data/cmu/12_01_walk.bvh");
        assert_matched(
            &r,
            &[
                ("pelvis", "Hips"),
                ("l_thigh", "LeftUpLeg"),
                ("r_shin", "RightLeg"),
                ("l_foot", "LeftFoot"),
                ("r_upper_arm", "RightArm"),
                ("l_hand", "LeftHand"),
                ("head", "Neck"),
            ],
        );
        assert!(r.calibration);
        assert_eq!(r.transfer.clip.frames.len(), 523);
        // 0.84 m of walker leg against the file's 0.14 units.
        assert!((5.5..6.5).contains(&r.scale), "{}", r.scale);
        let feet = r.transfer.effector_summary();
        assert!(feet.median < 0.01 && feet.max < 0.03, "{feet}");
        assert!(r.transfer.root_summary().max < 0.05);
        for sole in lowest_soles(&r) {
            assert!(sole.abs() < 0.02, "a sole's lowest {sole:.3} m");
        }
        let jump = largest_jump(&r);
        assert!(jump < 0.2, "a joint jumps {jump:.3} rad in one frame");
        // A foot is down while its ball is: each stays down through most of a stance.
        let down = |k: usize| {
            r.transfer.clip.contacts.iter().filter(|c| c[k]).count() as f64
                / r.transfer.clip.frames.len() as f64
        };
        let c = walker();
        for name in ["l_foot", "r_foot"] {
            let k = c.end_effectors.iter().position(|e| e.body == name).unwrap();
            assert!((0.3..0.8).contains(&down(k)), "{name} down {:.2}", down(k));
        }
    }

    /// Biovision names (`LeftCollar` → `LeftShoulder` → `LeftElbow`, `LeftHip`, `LeftAnkle` with
    /// no toe) retarget too: the joint below the collar is the upper arm, the ankle's end site
    /// the ball, and the motion does not jump (30 fps).
    #[test]
    fn biovision_names_retarget_onto_human3d() {
        let r = retargeted("tests/data/bvh/mocapbank_zxy.bvh");
        assert_matched(
            &r,
            &[
                ("l_upper_arm", "LeftShoulder"),
                ("r_forearm", "RightElbow"),
                ("l_thigh", "LeftHip"),
                ("r_foot", "RightAnkle"),
            ],
        );
        assert!(!r.calibration);
        let feet = r.transfer.effector_summary();
        assert!(feet.median < 0.01 && feet.max < 0.05, "{feet}");
        let jump = largest_jump(&r);
        assert!(jump < 0.3, "a joint jumps {jump:.3} rad in one frame");
    }

    /// A skeleton without legs cannot be retargeted: the error names the file and what is
    /// missing.
    #[test]
    fn a_skeleton_without_legs_is_refused_by_name() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("arm.bvh");
        std::fs::write(
            &path,
            "HIERARCHY\nROOT Hips\n{\n OFFSET 0 0 0\n CHANNELS 6 Xposition Yposition Zposition \
             Zrotation Xrotation Yrotation\n JOINT LeftArm\n {\n  OFFSET 0 10 0\n  CHANNELS 3 \
             Zrotation Xrotation Yrotation\n  End Site\n  {\n   OFFSET 0 20 0\n  }\n }\n}\n\
             MOTION\nFrames: 2\nFrame Time: 0.0333\n0 90 0 0 0 0 0 0 0\n0 90 0 0 0 0 10 0 0\n",
        )
        .unwrap();
        let ks = Skeleton::load(&path, &LoadOptions::default()).unwrap();
        let err = retarget(&ks, 0, &walker(), &TransferOptions::default())
            .unwrap_err()
            .to_string();
        assert!(
            err.contains("arm.bvh") && err.contains("thigh, shin and foot"),
            "{err}"
        );
    }
}
