//! The full body of a footstep plan (Agrawal 2016, thesis §5.5), played as a clip.
//!
//! Each planned step is a segment of the example motion ([`super::source`]), as
//! [`super::body_segments`] says.
//!
//! Consecutive segments join by a root and joint offset that matches the incoming segment's end
//! and dies out over [`JOIN_TIME`] (the thesis's "root warp that matches the incoming root
//! trajectory", applied to every coordinate and to the feet's orientations). The legs then reach
//! their targets by the project's two-bone IK ([`crate::clip::leg_ik`]), the feet turned to their
//! planned yaw; the root is lowered where a leg could not reach. Every joint stays within its
//! limits: the pelvis turns towards a foot its hip cannot twist to, and where no turn serves both
//! legs the leg is solved within its limits and the foot turns a little from its yaw instead.
//! Hands carry no task constraint here.
//! Pivots turn about the foot's contact point, the point a footstep is planned at.

use super::body_segments::{
    FootTarget, Motion, Raw, Standing, segments, slot, smoothstep, yaw_turn,
};
use super::plan::FootstepPlan;
use super::source::MotionSource;
use super::step::{Foot, StepRecord};
use crate::clip::leg_ik::{
    hip_and_ankle, length, orient_foot, reach, reach_within_limits, twist_towards,
};
use crate::clip::pose::{
    BodyPose, body_poses, coordinates_of, pose_of, quat_of, reference_orientation,
};
use crate::clip::{Clip, ClipFrame};
use crate::model::CharacterRef;
use nalgebra::{UnitQuaternion, Vector3};

/// Seconds over which a segment's start is blended into the end of the one before.
pub const JOIN_TIME: f64 = 0.3;
/// A leg is not stretched past this fraction of its length; the root is lowered instead.
const MAX_STRETCH: f64 = 0.97;
/// Seconds over which the root's lowering comes and goes.
const DROP_EASE: f64 = 0.2;
/// Seconds over which the pelvis's turn towards a foot comes and goes.
const YAW_EASE: f64 = 0.2;
/// The most the pelvis turns towards a foot, rad.
const MAX_YAW: f64 = 1.0;
/// Turns tried each way up to [`MAX_YAW`] before the bisection.
const YAW_PROBES: usize = 10;
const YAW_BISECTIONS: usize = 12;
/// How far inside its limits a turned pelvis keeps the legs' coordinates, rad.
const LIMIT_MARGIN: f64 = 0.005;
/// How far a toe pivot pitches the foot toes-down at the middle of its turn, rad (the gait
/// NLP's toe pivots hold the box foot's heel at least 5 cm up: 11°).
pub const TOE_PIVOT_PITCH: f64 = 0.2;

/// Timing of the full body.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct BodyOptions {
    /// Frames per second of the clip.
    pub rate: f64,
    /// Seconds standing before the first step.
    pub start: f64,
    /// Seconds standing at each task once its entry is done.
    pub hold: f64,
    /// Seconds a pivot takes per quarter turn (at least half of this).
    pub pivot: f64,
}

impl Default for BodyOptions {
    fn default() -> Self {
        BodyOptions {
            rate: 60.0,
            start: 0.5,
            hold: 1.0,
            pivot: 0.5,
        }
    }
}

/// A planned sequence as a clip, and its steps as the clip's frames (Eq. 5.1's records).
#[derive(Clone, Debug)]
pub struct FullBody {
    pub clip: Clip,
    pub steps: Vec<StepRecord>,
    /// The most a foot turns or tilts from its planned orientation where its hip could not twist
    /// to it within its limits, rad.
    pub foot_turned_rad: f64,
    /// How many steps were played from the clips their templates were cut from (the rest from
    /// the walk and the standing pose).
    pub from_clips: usize,
}

/// The offset that carries a segment's start onto the end of the one before.
struct Join {
    position: Vector3<f64>,
    rotation: UnitQuaternion<f64>,
    joints: Vec<f64>,
    /// The feet's orientations and points (left, right). A foot down at both ends is where its
    /// plant is in both; a clip's step may lift its swing foot higher at lift-off than the
    /// segment before left it.
    feet: [UnitQuaternion<f64>; 2],
    points: [Vector3<f64>; 2],
}

impl Join {
    fn between(before: &Raw, start: &Raw) -> Self {
        let p = |r: &BodyPose| Vector3::new(r[0], r[1], r[2]);
        Join {
            position: p(&before.root) - p(&start.root),
            rotation: quat_of(&before.root) * quat_of(&start.root).inverse(),
            joints: before
                .joints
                .iter()
                .zip(&start.joints)
                .map(|(a, b)| a - b)
                .collect(),
            feet: [0, 1].map(|k| before.feet[k].orientation * start.feet[k].orientation.inverse()),
            points: [0, 1].map(|k| before.feet[k].point - start.feet[k].point),
        }
    }

    /// `raw` with the offset applied at weight `w` (1 at the join, 0 once it has died out).
    fn apply(&self, raw: &Raw, w: f64) -> Raw {
        let r = &raw.root;
        let position = Vector3::new(r[0], r[1], r[2]) + w * self.position;
        let q = UnitQuaternion::identity().slerp(&self.rotation, w) * quat_of(r);
        Raw {
            root: pose_of(position, &q),
            joints: raw
                .joints
                .iter()
                .zip(&self.joints)
                .map(|(a, d)| a + w * d)
                .collect(),
            feet: [0, 1].map(|k| FootTarget {
                orientation: UnitQuaternion::identity().slerp(&self.feet[k], w)
                    * raw.feet[k].orientation,
                point: raw.feet[k].point + w * self.points[k],
                ..raw.feet[k]
            }),
        }
    }
}

/// The feet turned on the raw pose.
fn placed(source: &MotionSource, raw: &Raw, root: &BodyPose) -> Vec<BodyPose> {
    let c = &source.character;
    let mut poses = body_poses(c, root, &raw.joints);
    for f in [Foot::Left, Foot::Right] {
        orient_foot(c, &mut poses, source.leg(f), &raw.feet[slot(f)].orientation);
    }
    poses
}

/// How far the root must come down for every leg to reach its target within [`MAX_STRETCH`] of
/// its length, m (0 when it need not).
fn needed_drop(source: &MotionSource, raw: &Raw) -> f64 {
    let c = &source.character;
    let poses = placed(source, raw, &raw.root);
    let mut drop: f64 = 0.0;
    for f in [Foot::Left, Foot::Right] {
        let leg = source.leg(f);
        let Some((hip, ankle)) = hip_and_ankle(c, &poses, leg) else {
            continue;
        };
        let wanted = ankle + (raw.feet[slot(f)].point - leg.foot_point(&poses));
        let most = MAX_STRETCH * length(c, &poses, leg);
        let across = (wanted.x - hip.x).hypot(wanted.z - hip.z).min(most);
        let down = hip.y - wanted.y;
        drop = drop.max(down - (most * most - across * across).sqrt());
    }
    drop
}

/// Per frame, a drop at least the needed one that changes by at most `needed[i] / frames` a
/// frame: each frame's need is spread as a tent over `frames` frames either side of it, and the
/// largest tent taken.
fn eased(needed: &[f64], frames: usize) -> Vec<f64> {
    let w = frames.max(1) as f64;
    (0..needed.len())
        .map(|i| {
            let lo = i.saturating_sub(frames);
            let hi = (i + frames).min(needed.len().saturating_sub(1));
            (lo..=hi)
                .map(|j| needed[j] * (1.0 - (i.abs_diff(j) as f64) / w))
                .fold(0.0, f64::max)
        })
        .collect()
}

/// Per frame, the eased turn of a signed need: the needs one way and the other are each spread
/// as in [`eased`] and added, so the turn changes continuously even where the two meet.
fn eased_signed(needed: &[f64], frames: usize) -> Vec<f64> {
    let part = |sign: f64| {
        let one_way: Vec<f64> = needed.iter().map(|&n| (sign * n).max(0.0)).collect();
        eased(&one_way, frames)
    };
    part(1.0)
        .iter()
        .zip(part(-1.0))
        .map(|(p, n)| p - n)
        .collect()
}

/// The raw pose with its root turned by `yaw` about the vertical through the pelvis (the feet's
/// targets stay where they are).
fn turned_root(raw: &Raw, yaw: f64) -> Raw {
    if yaw == 0.0 {
        return raw.clone();
    }
    let q = yaw_turn(yaw) * quat_of(&raw.root);
    Raw {
        root: pose_of(Vector3::new(raw.root[0], raw.root[1], raw.root[2]), &q),
        ..raw.clone()
    }
}

/// How far past their limits the hips' and knees' coordinates go when the legs reach from `raw`
/// with its root turned by `yaw`, rad (the most of any; negative when all are inside by that
/// much). The ankles are held at their limits by [`solve_two_bone`].
fn leg_excess(source: &MotionSource, limits: &[Option<(f64, f64)>], raw: &Raw, yaw: f64) -> f64 {
    let turned = turned_root(raw, yaw);
    let frame = solve_two_bone(source, &turned, needed_drop(source, &turned));
    [Foot::Left, Foot::Right]
        .map(|f| hip_and_knee_excess(source, limits, &frame.joints, f))
        .into_iter()
        .fold(f64::NEG_INFINITY, f64::max)
}

/// The smallest turn of the root about the vertical (rad, either way, at most [`MAX_YAW`]) that
/// keeps the hips' and knees' coordinates [`LIMIT_MARGIN`] inside their limits: 0 where none is
/// past; where no turn does, the one that leaves the least excess. A hip that only twists so far
/// cannot turn a foot further from the pelvis's heading; the pelvis turns with it instead.
fn needed_yaw(source: &MotionSource, limits: &[Option<(f64, f64)>], raw: &Raw) -> f64 {
    let excess = |yaw: f64| leg_excess(source, limits, raw, yaw);
    if excess(0.0) <= 0.0 {
        return 0.0;
    }
    let inside = |yaw: f64| excess(yaw) <= -LIMIT_MARGIN;
    let mut best = (excess(0.0), 0.0);
    for k in 1..=YAW_PROBES {
        let magnitude = MAX_YAW * k as f64 / YAW_PROBES as f64;
        for yaw in [magnitude, -magnitude] {
            let e = excess(yaw);
            if e <= -LIMIT_MARGIN {
                // Bisect between the last probe short of it and this one.
                let (mut lo, mut hi) = (yaw * (k - 1) as f64 / k as f64, yaw);
                for _ in 0..YAW_BISECTIONS {
                    let mid = 0.5 * (lo + hi);
                    if inside(mid) {
                        hi = mid;
                    } else {
                        lo = mid;
                    }
                }
                return hi;
            }
            if e < best.0 {
                best = (e, yaw);
            }
        }
    }
    best.1
}

/// Lowers the root by `drop`, turns the feet and bends the legs, every coordinate within its
/// limits: the frame's coordinates, and how far a foot turned or tilted from its orientation to
/// keep its leg within its limits, rad (0 when neither leg needed it).
fn solve(
    source: &MotionSource,
    limits: &[Option<(f64, f64)>],
    raw: &Raw,
    drop: f64,
) -> (ClipFrame, f64) {
    let c = &source.character;
    let ClipFrame { root, mut joints } = solve_two_bone(source, raw, drop);
    // A hip the two-bone solve twists past its limit: the leg is solved again within its limits,
    // the foot turning or tilting a little from its orientation rather than leaving its point.
    // The foot keeps the orientation the two-bone solve gave it (its heel up where its ankle
    // was at a limit).
    let poses = body_poses(c, &root, &joints);
    let mut turned: f64 = 0.0;
    for f in [Foot::Left, Foot::Right] {
        let leg = source.leg(f);
        if hip_and_knee_excess(source, limits, &joints, f) > 0.0 {
            let wanted = quat_of(&poses[leg.foot]);
            reach_within_limits(
                c,
                &root,
                &mut joints,
                leg,
                limits,
                raw.feet[slot(f)].point,
                &wanted,
            );
            let got = quat_of(&body_poses(c, &root, &joints)[leg.foot]);
            turned = turned.max(got.angle_to(&wanted));
        }
    }
    (ClipFrame { root, joints }, turned)
}

/// How far the hip's and knee's coordinates of the leg of `foot` go past their limits, rad (the
/// most of any; negative when all are inside by that much).
fn hip_and_knee_excess(
    source: &MotionSource,
    limits: &[Option<(f64, f64)>],
    joints: &[f64],
    foot: Foot,
) -> f64 {
    let leg = source.leg(foot);
    let ankle: Vec<usize> = leg
        .ankle_limits(&source.character)
        .iter()
        .map(|a| a.0)
        .collect();
    leg.coordinates
        .iter()
        .filter(|i| !ankle.contains(i))
        .filter_map(|&i| limits[i].map(|(lo, hi)| (lo - joints[i]).max(joints[i] - hi)))
        .fold(f64::NEG_INFINITY, f64::max)
}

/// Lowers the root by `drop`, turns the feet and bends the legs by the two-bone IK, the ankles
/// held within their limits; the frame's coordinates.
fn solve_two_bone(source: &MotionSource, raw: &Raw, drop: f64) -> ClipFrame {
    let c = &source.character;
    let mut root = raw.root;
    root[1] -= drop.max(0.0);
    let mut poses = placed(source, raw, &root);
    let forward = |f: Foot| {
        let leg = source.leg(f);
        raw.feet[slot(f)].orientation
            * reference_orientation(&c.bodies[leg.foot]).inverse()
            * Vector3::x()
    };
    for f in [Foot::Left, Foot::Right] {
        let leg = source.leg(f);
        let here = leg.foot_point(&poses);
        reach(c, &mut poses, leg, here, raw.feet[slot(f)].point);
        twist_towards(c, &mut poses, leg, forward(f));
    }
    let mut joints = raw.joints.clone();
    read_legs(source, &poses, &mut joints);
    // The ankles may have fewer degrees of freedom than the solved bodies (human3d's are
    // universal joints): the legs are solved again from the pose their coordinates make, the
    // feet as they can be turned, until the points are where they should be.
    for _ in 0..REFINE {
        // An ankle past its limit is brought back to it (a heel comes up rather than the shin
        // bending past what the foot allows); the leg then reaches with the foot as it is.
        let before = joints.clone();
        for f in [Foot::Left, Foot::Right] {
            for (i, lo, hi) in source.leg(f).ankle_limits(c) {
                joints[i] = joints[i].clamp(lo, hi);
            }
        }
        let clamped = joints != before;
        let mut poses = body_poses(c, &root, &joints);
        let mut worst: f64 = 0.0;
        for f in [Foot::Left, Foot::Right] {
            let leg = source.leg(f);
            let here = leg.foot_point(&poses);
            worst = worst.max((here - raw.feet[slot(f)].point).norm());
            reach(c, &mut poses, leg, here, raw.feet[slot(f)].point);
            twist_towards(c, &mut poses, leg, forward(f));
        }
        if worst < 1e-3 && !clamped {
            break;
        }
        read_legs(source, &poses, &mut joints);
    }
    // Read back from the poses, an ankle held at its limit can sit 1e-5 rad past it.
    for f in [Foot::Left, Foot::Right] {
        for (i, lo, hi) in source.leg(f).ankle_limits(c) {
            joints[i] = joints[i].clamp(lo, hi);
        }
    }
    ClipFrame { root, joints }
}

/// Solves of the legs from the pose their coordinates make (see [`solve`]).
const REFINE: usize = 6;

/// The legs' joint coordinates read back from body poses into `joints`.
fn read_legs(source: &MotionSource, poses: &[BodyPose], joints: &mut [f64]) {
    let read = coordinates_of(&source.character, poses);
    for f in [Foot::Left, Foot::Right] {
        for &i in &source.leg(f).coordinates {
            if read[i].is_finite() {
                joints[i] = read[i];
            }
        }
    }
}

/// The full body of `plan` on the source's character.
pub fn full_body(
    source: &MotionSource,
    character: CharacterRef,
    plan: &FootstepPlan,
    options: &BodyOptions,
) -> FullBody {
    let c = &source.character;
    let standing = Standing::new(source);
    let segments = segments(source, plan, options);
    let dt = 1.0 / options.rate;
    let mut contacts = Vec::new();
    let mut records = Vec::new();
    let mut before: Option<Raw> = None;
    let mut clock = 0.0;
    let mut raws: Vec<Raw> = Vec::new();
    for seg in &segments {
        let start = seg.raw(source, &standing, 0.0);
        let join = before.as_ref().map(|b| Join::between(b, &start));
        let blend = JOIN_TIME.min(seg.duration);
        let at = |t: f64| {
            let raw = seg.raw(source, &standing, t);
            match &join {
                Some(j) => j.apply(&raw, 1.0 - smoothstep(t / blend)),
                None => raw,
            }
        };
        let first = raws.len();
        let mut airborne: Vec<usize> = Vec::new();
        // Frames whose time falls in [clock, clock + duration).
        let end = clock + seg.duration;
        while (raws.len() as f64) * dt < end - 1e-9 {
            let t = raws.len() as f64 * dt - clock;
            let raw = at(t);
            let mut down = vec![false; c.end_effectors.len()];
            for f in [Foot::Left, Foot::Right] {
                down[source.leg(f).effector] = raw.feet[slot(f)].down;
            }
            if let Motion::Swing { to, .. } = &seg.motion
                && !raw.feet[slot(to.foot)].down
            {
                airborne.push(raws.len());
            }
            raws.push(raw);
            contacts.push(down);
        }
        let plants = match &seg.motion {
            Motion::Stand { plants, .. } | Motion::Swing { plants, .. } => *plants,
        };
        let last = raws.len().max(first + 1) - 1;
        // A pivot played with the step around it: from the segment's start until it has turned.
        if let (
            Some(i),
            Motion::Swing {
                start,
                pivot: Some(p),
                ..
            },
        ) = (seg.pivot_step, &seg.motion)
        {
            let s = &plan.steps[i];
            let turned = first + ((p.turn[1] - start) * options.rate).round() as usize;
            let turned = turned.clamp(first, last);
            records.push(StepRecord {
                foot: s.step.foot,
                start: first,
                end: turned,
                airborne_start: first,
                airborne_end: turned,
                tag: s.tag,
                phase: s.phase,
                from: plants[slot(s.step.foot)],
                to: s.step,
            });
        }
        if let Some(i) = seg.step {
            let s = &plan.steps[i];
            let from = plants[slot(s.step.foot)];
            let (a0, a1) = match (airborne.first(), airborne.last()) {
                (Some(&a), Some(&b)) => (a, b),
                _ => (first, last),
            };
            // A step around a pivot starts as its foot lifts, not with the segment.
            let begin = match seg.pivot_step {
                Some(_) => a0.saturating_sub(1).max(first),
                None => first,
            };
            records.push(StepRecord {
                foot: s.step.foot,
                start: begin,
                end: last,
                airborne_start: a0,
                airborne_end: a1,
                tag: s.tag,
                phase: s.phase,
                from,
                to: s.step,
            });
        }
        before = Some(at(seg.duration));
        clock = end;
    }
    // The pelvis turns towards a foot whose yaw its hip cannot twist to, eased in and out over
    // YAW_EASE, and the coordinates the legs do not set are kept within their limits.
    let limits = c.coordinate_limits();
    let needed: Vec<f64> = raws
        .iter()
        .map(|r| needed_yaw(source, &limits, r))
        .collect();
    let yaws = eased_signed(&needed, (YAW_EASE * options.rate).round() as usize);
    for (raw, &yaw) in raws.iter_mut().zip(&yaws) {
        *raw = turned_root(raw, yaw);
        for (x, l) in raw.joints.iter_mut().zip(&limits) {
            if let Some((lo, hi)) = l {
                *x = x.clamp(*lo, *hi);
            }
        }
    }
    // The root comes down where a leg would stretch too far, eased in and out over DROP_EASE.
    let needed: Vec<f64> = raws.iter().map(|r| needed_drop(source, r)).collect();
    let drops = eased(&needed, (DROP_EASE * options.rate).round() as usize);
    let mut foot_turned_rad: f64 = 0.0;
    let frames: Vec<ClipFrame> = raws
        .iter()
        .zip(&drops)
        .map(|(raw, &d)| {
            let (frame, turned) = solve(source, &limits, raw, d);
            foot_turned_rad = foot_turned_rad.max(turned);
            frame
        })
        .collect();
    let mut clip = Clip::from_key_frames(c, character, options.rate, frames, "footsteps");
    // The feet are down where the plan put them, not where a height test would guess.
    clip.contacts = contacts;
    let from_clips = segments
        .iter()
        .filter(|s| matches!(&s.motion, Motion::Swing { clip: Some(_), .. }))
        .map(|s| 1 + usize::from(s.pivot_step.is_some()))
        .sum();
    FullBody {
        clip,
        steps: records,
        foot_turned_rad,
        from_clips,
    }
}
