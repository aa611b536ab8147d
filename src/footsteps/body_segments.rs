//! The segments a footstep plan is played as (Agrawal 2016, thesis §5.5), and the raw pose of
//! each before the legs reach:
//! - a walking step is the walk cycle's window from the swing foot's lift-off to the other
//!   foot's, carried so that the source's stance foot lands on the planned stance foot. The
//!   swing foot's path is warped over its airborne part from the source's lift-off and
//!   touch-down onto the planned start and end (position and yaw, smoothstep-weighted), and the
//!   root takes half of the swing warp;
//! - a step of a template cut from a clip on the character ([`super::library::ClipSpan`]) is
//!   played the same way from its own span of that clip, from its lift-off to its rest (the
//!   thesis's "mocap segment tied to the step");
//! - a pivot turns the foot in place on the ground from the standing pose, and at each task the
//!   figure stands a while with both feet on their plants. A toe pivot turns about the toes
//!   ([`MotionSource::toes`] ahead of the footprint) with the heel lifted up to
//!   [`TOE_PIVOT_PITCH`] and down again; a heel pivot turns flat about the footprint.

use super::body::{BodyOptions, JOIN_TIME, TOE_PIVOT_PITCH};
use super::library::ClipSpan;
use super::plan::FootstepPlan;
use super::source::{MotionSource, SourceStep, carrying, footprint, world};
use super::step::{Foot, Footstep, Frame, StepTag, wrap};
use crate::clip::Clip;
use crate::clip::leg_ik::{Leg, relative};
use crate::clip::pose::{BodyPose, body_poses, pose_of, quat_of, reference_orientation};
use crate::model::planar::PlanarMotion;
use crate::track::target::sample;
use nalgebra::{UnitQuaternion, Vector3};
use std::f64::consts::FRAC_PI_2;

/// What one foot should do at an instant.
#[derive(Clone, Copy, Debug)]
pub(super) struct FootTarget {
    pub(super) point: Vector3<f64>,
    pub(super) orientation: UnitQuaternion<f64>,
    pub(super) down: bool,
}

/// A pose before the legs reach: root, joints and the feet's targets (left, right).
#[derive(Clone, Debug)]
pub(super) struct Raw {
    pub(super) root: BodyPose,
    pub(super) joints: Vec<f64>,
    pub(super) feet: [FootTarget; 2],
}

#[derive(Clone, Debug)]
pub(super) enum Motion {
    /// Both feet on `plants`; `pivot` turns one of them to a footstep about its point that many
    /// metres ahead of the footprint (the toes, heel up, for a toe pivot; 0 for a heel pivot).
    Stand {
        plants: [Footstep; 2],
        pivot: Option<(Footstep, f64)>,
    },
    /// A step through the air of `to.foot` from `plants`: the span `times` of the template
    /// clip named `clip`, or of the walk, played from the clip's second `start` (its lift-off,
    /// or the start of the other foot's `pivot` that it steps around).
    Swing {
        plants: [Footstep; 2],
        to: Footstep,
        clip: Option<String>,
        times: SourceStep,
        start: f64,
        pivot: Option<ClipPivot>,
    },
}

/// The other foot's pivot that a step from a clip steps around, played from the same clip.
#[derive(Clone, Debug)]
pub(super) struct ClipPivot {
    /// Where the pivot turns the foot to.
    pub(super) to: Footstep,
    /// How far ahead of the footprint the point it turns about is (the toes; 0: a heel pivot).
    pub(super) toes: f64,
    /// When in the clip the foot starts and ends turning (s).
    pub(super) turn: [f64; 2],
}

#[derive(Clone, Debug)]
pub(super) struct Segment {
    pub(super) motion: Motion,
    pub(super) duration: f64,
    /// The planned step it plays, if any.
    pub(super) step: Option<usize>,
    /// The planned pivot a step from a clip steps around, played in the same segment.
    pub(super) pivot_step: Option<usize>,
}

pub(super) fn slot(f: Foot) -> usize {
    match f {
        Foot::Left => 0,
        Foot::Right => 1,
    }
}

pub(super) fn smoothstep(x: f64) -> f64 {
    let x = x.clamp(0.0, 1.0);
    x * x * (3.0 - 2.0 * x)
}

pub(super) fn yaw_turn(a: f64) -> UnitQuaternion<f64> {
    UnitQuaternion::from_axis_angle(&Vector3::y_axis(), a)
}

/// A foot body's orientation `q` turned about the vertical so that its toes point along `yaw`:
/// a foot on the ground keeps its planned yaw whatever the source's foot does.
pub(super) fn turned_to(
    c: &crate::model::Character,
    body: usize,
    q: &UnitQuaternion<f64>,
    yaw: f64,
) -> UnitQuaternion<f64> {
    let forward = q * reference_orientation(&c.bodies[body]).inverse() * Vector3::x();
    yaw_turn(yaw - (-forward.z).atan2(forward.x)) * q
}

/// The segments that play a plan.
pub(super) fn segments(
    source: &MotionSource,
    plan: &FootstepPlan,
    options: &BodyOptions,
) -> Vec<Segment> {
    let mut plants = plan.start;
    let mut out = vec![Segment {
        motion: Motion::Stand {
            plants,
            pivot: None,
        },
        duration: options.start,
        step: None,
        pivot_step: None,
    }];
    let mut steps = plan.steps.iter().enumerate().peekable();
    while let Some((i, s)) = steps.next() {
        let k = slot(s.step.foot);
        // A pivot from a clip and the step around it after it, from the same clip: one segment.
        let around = steps.peek().and_then(|&(j, n)| {
            let (p, a) = (s.span.as_ref()?, n.span.as_ref()?);
            let paired = s.tag.is_pivot()
                && a.around_pivot
                && n.task == s.task
                && n.step.foot != s.step.foot
                && a.clip == p.clip;
            paired.then_some(())?;
            let (clip, times) = clip_times(source, a)?;
            let toes = match s.tag {
                StepTag::ToePivot => source.toes,
                _ => 0.0,
            };
            let pivot = ClipPivot {
                to: s.step,
                toes,
                turn: [p.lift_off, p.touch_down],
            };
            Some((j, n, clip, times, pivot))
        });
        if let Some((j, n, clip, times, pivot)) = around {
            steps.next();
            let start = pivot.turn[0].min(times.lift_off);
            let end = pivot.turn[1].max(times.end);
            out.push(Segment {
                motion: Motion::Swing {
                    plants,
                    to: n.step,
                    clip: Some(clip),
                    times,
                    start,
                    pivot: Some(pivot),
                },
                duration: end - start,
                step: Some(j),
                pivot_step: Some(i),
            });
            plants[k] = s.step;
            plants[slot(n.step.foot)] = n.step;
            hold_after(plan, j, plants, options, &mut out);
            continue;
        }
        if s.tag.is_pivot() {
            let turn = wrap(s.step.yaw - plants[k].yaw).abs();
            let (toes, settle) = match s.tag {
                StepTag::ToePivot => (source.toes, JOIN_TIME),
                _ => (0.0, 0.0),
            };
            out.push(Segment {
                motion: Motion::Stand {
                    plants,
                    pivot: Some((s.step, toes)),
                },
                duration: settle + (options.pivot * turn / FRAC_PI_2).max(0.5 * options.pivot),
                step: Some(i),
                pivot_step: None,
            });
        } else {
            // A step around a pivot plays from its clip only with that pivot (above).
            let spanned = (s.span.as_ref())
                .filter(|span| !span.around_pivot)
                .and_then(|span| clip_times(source, span));
            let (clip, times) = match spanned {
                Some((clip, times)) => (Some(clip), times),
                None => (None, source.step(s.step.foot)),
            };
            out.push(Segment {
                motion: Motion::Swing {
                    plants,
                    to: s.step,
                    clip,
                    times,
                    start: times.lift_off,
                    pivot: None,
                },
                duration: times.end - times.lift_off,
                step: Some(i),
                pivot_step: None,
            });
        }
        plants[k] = s.step;
        hold_after(plan, i, plants, options, &mut out);
    }
    out
}

/// After a task's last step `i`, the figure stands a while on `plants`.
fn hold_after(
    plan: &FootstepPlan,
    i: usize,
    plants: [Footstep; 2],
    options: &BodyOptions,
    out: &mut Vec<Segment>,
) {
    let task = plan.steps[i].task;
    if plan.steps.get(i + 1).is_none_or(|n| n.task != task) {
        out.push(Segment {
            motion: Motion::Stand {
                plants,
                pivot: None,
            },
            duration: options.hold,
            step: None,
            pivot_step: None,
        });
    }
}

/// A template step's span of its clip (the clip's name and the step's times in it), if the
/// clip is loaded and the step ends within it.
fn clip_times(source: &MotionSource, span: &ClipSpan) -> Option<(String, SourceStep)> {
    let clip = source.clips.get(&span.clip)?;
    let last = clip.frames.len().saturating_sub(1) as f64 / clip.rate;
    (span.touch_down <= last).then(|| {
        let times = SourceStep {
            lift_off: span.lift_off,
            touch_down: span.touch_down,
            end: span.end.min(last),
        };
        (span.clip.clone(), times)
    })
}

/// The ground motion that moves foot `foot` of `motion` (carried by `a` from the clip onto the
/// plan), pivoting in it, so that at clip second `time` it turns as the plan's pivot `p` from
/// `plant` does: its pivot point (the toes, or the footprint for a heel pivot) on the planned
/// one and its heading on the planned heading, as far through the planned turn as the clip's
/// foot is through its own. Identity where the two agree.
fn pivot_correction(
    source: &MotionSource,
    motion: &Clip,
    foot: Foot,
    a: &PlanarMotion,
    plant: Footstep,
    p: &ClipPivot,
    time: f64,
) -> PlanarMotion {
    let c = &source.character;
    let leg = source.leg(foot);
    // The carried clip's pivot point and the foot's heading at a second of the clip.
    let at = |time: f64| {
        let (root, joints) = sample(motion, time);
        let poses = body_poses(c, &root, &joints);
        let forward = (relative(c, &poses, leg.foot) * leg.forward).normalize();
        let point = a.apply_vec3((leg.foot_point(&poses) + p.toes * forward).into());
        let yaw = footprint(c, &poses, leg, foot).yaw + a.yaw;
        (point[0], -point[2], yaw)
    };
    let (x, y, yaw) = at(time);
    let (y0, y1) = (at(p.turn[0]).2, at(p.turn[1]).2);
    let clip_turn = wrap(y1 - y0);
    let progress = if clip_turn.abs() > 1e-3 {
        (wrap(yaw - y0) / clip_turn).clamp(0.0, 1.0)
    } else {
        smoothstep((time - p.turn[0]) / (p.turn[1] - p.turn[0]))
    };
    let ([fx, fy], [tx, ty]) = (plant.ahead(p.toes), p.to.ahead(p.toes));
    carrying(
        &Footstep { foot, x, y, yaw },
        &Footstep {
            foot,
            x: fx + progress * (tx - fx),
            y: fy + progress * (ty - fy),
            yaw: plant.yaw + progress * wrap(p.to.yaw - plant.yaw),
        },
    )
}

/// The source's standing stance: its footprints and their frame.
pub(super) struct Standing {
    pub(super) poses: Vec<BodyPose>,
    pub(super) feet: [Footstep; 2],
    pub(super) frame: Frame,
}

impl Standing {
    pub(super) fn new(source: &MotionSource) -> Self {
        let poses = source.stand_poses();
        let c = &source.character;
        let feet = [
            footprint(c, &poses, source.leg(Foot::Left), Foot::Left),
            footprint(c, &poses, source.leg(Foot::Right), Foot::Right),
        ];
        let frame = Frame::of_stance(&feet[0], &feet[1]);
        Standing { poses, feet, frame }
    }
}

fn frame_step(f: &Frame) -> Footstep {
    Footstep {
        foot: Foot::Left,
        x: f.x,
        y: f.y,
        yaw: f.yaw,
    }
}

impl Segment {
    /// The raw pose `t` seconds into the segment.
    pub(super) fn raw(&self, source: &MotionSource, standing: &Standing, t: f64) -> Raw {
        let c = &source.character;
        match &self.motion {
            Motion::Stand { plants, pivot } => {
                let mut now = *plants;
                // The pivoting foot's pitch, toes down (a toe pivot's heel up).
                let mut pitch = [0.0; 2];
                if let Some((p, toes)) = pivot {
                    let k = slot(p.foot);
                    // A toe pivot first stands for the join's time: the landing's blend
                    // settles the foot flat about its footprint before it turns on its toes.
                    let settle = if *toes > 0.0 { JOIN_TIME } else { 0.0 };
                    let x = (t - settle) / (self.duration - settle).max(1e-9);
                    let s = smoothstep(x);
                    let (from, to) = (plants[k].ahead(*toes), p.ahead(*toes));
                    let yaw = plants[k].yaw + s * wrap(p.yaw - plants[k].yaw);
                    // The point turned about moves only as far as the plan moved it; the
                    // footprint stays `toes` behind it, shortened by the pitch.
                    let bump = 16.0 * (x * (1.0 - x)).clamp(0.0, 0.25).powi(2);
                    pitch[k] = if *toes > 0.0 {
                        TOE_PIVOT_PITCH * bump
                    } else {
                        0.0
                    };
                    let back = toes * pitch[k].cos();
                    now[k] = Footstep {
                        foot: p.foot,
                        x: from[0] + s * (to[0] - from[0]) - back * yaw.cos(),
                        y: from[1] + s * (to[1] - from[1]) - back * yaw.sin(),
                        yaw,
                    };
                }
                let frame = Frame::of_stance(&now[0], &now[1]);
                let a = carrying(&frame_step(&standing.frame), &frame_step(&frame));
                let root = &source.stand.0;
                let position = a.apply_vec3([root[0], root[1], root[2]]);
                let q = yaw_turn(a.yaw) * quat_of(root);
                let feet = [Foot::Left, Foot::Right].map(|f| {
                    let k = slot(f);
                    let leg = source.leg(f);
                    let h = leg.foot_point(&standing.poses).y;
                    // A toe pivot's foot: pitched toes down about the foot's right (its yaw's +z
                    // turned), by −pitch, its effector lifted so the toes stay on the ground.
                    let lift = pivot.map_or(0.0, |(_, toes)| toes * pitch[k].sin());
                    let right = yaw_turn(now[k].yaw) * Vector3::z_axis();
                    FootTarget {
                        point: world(now[k].x, now[k].y, h + lift),
                        orientation: UnitQuaternion::from_axis_angle(&right, -pitch[k])
                            * yaw_turn(now[k].yaw - standing.feet[k].yaw)
                            * quat_of(&standing.poses[leg.foot]),
                        down: true,
                    }
                });
                Raw {
                    root: pose_of(Vector3::from(position), &q),
                    joints: source.stand.1.clone(),
                    feet,
                }
            }
            Motion::Swing {
                plants,
                to,
                clip,
                times,
                start,
                pivot,
            } => {
                let (f, g) = (to.foot, to.foot.other());
                let w = times;
                let tau = start + t;
                let motion = clip
                    .as_ref()
                    .map_or(&source.walk, |name| &source.clips[name]);
                let poses_at = |time: f64| {
                    let (root, joints) = sample(motion, time);
                    (root, joints.clone(), body_poses(c, &root, &joints))
                };
                let (stance_leg, swing_leg) = (source.leg(g), source.leg(f));
                let (_, _, first) = poses_at(*start);
                // The clip carried so that its stance foot at the start stands on its plant.
                let a = carrying(&footprint(c, &first, stance_leg, g), &plants[slot(g)]);
                // Then, when the stance foot pivots, moved so that it turns as planned.
                let placed = |time: f64| match pivot {
                    Some(p) => pivot_correction(source, motion, g, &a, plants[slot(g)], p, time)
                        .compose(&a),
                    None => a,
                };
                let moved = |m: &PlanarMotion, s: Footstep| {
                    let p = m.apply_vec3([s.x, 0.0, -s.y]);
                    (p[0], -p[2], s.yaw + m.yaw)
                };
                let (_, _, lift) = poses_at(w.lift_off);
                let (_, _, touch) = poses_at(w.touch_down);
                let (root, joints, now) = poses_at(tau);
                let s0 = moved(&placed(w.lift_off), footprint(c, &lift, swing_leg, f));
                let s1 = moved(&placed(w.touch_down), footprint(c, &touch, swing_leg, f));
                let m = placed(tau);
                let from = plants[slot(f)];
                let b = smoothstep((tau - w.lift_off) / (w.touch_down - w.lift_off));
                let warp = [
                    (1.0 - b) * (from.x - s0.0) + b * (to.x - s1.0),
                    (1.0 - b) * (from.y - s0.1) + b * (to.y - s1.1),
                ];
                let warp_yaw = (1.0 - b) * wrap(from.yaw - s0.2) + b * wrap(to.yaw - s1.2);
                let p = Vector3::from(m.apply_vec3(swing_leg.foot_point(&now).into()));
                // A foot down on footstep `s`, at the clip's height of its foot point.
                let planted = |leg: &Leg, s: &Footstep| FootTarget {
                    point: world(s.x, s.y, leg.foot_point(&now).y),
                    orientation: turned_to(c, leg.foot, &quat_of(&now[leg.foot]), s.yaw),
                    down: true,
                };
                let swing = if tau >= w.touch_down {
                    planted(swing_leg, to)
                } else if tau < w.lift_off {
                    // Still down, while the other foot starts its pivot.
                    planted(swing_leg, &from)
                } else {
                    FootTarget {
                        point: p + world(warp[0], warp[1], 0.0),
                        orientation: yaw_turn(m.yaw + warp_yaw) * quat_of(&now[swing_leg.foot]),
                        down: false,
                    }
                };
                let stance = match pivot {
                    // The pivoting foot as the clip has it (heel up on a toe pivot), turned.
                    Some(_) => FootTarget {
                        point: Vector3::from(m.apply_vec3(stance_leg.foot_point(&now).into())),
                        orientation: yaw_turn(m.yaw) * quat_of(&now[stance_leg.foot]),
                        down: true,
                    },
                    None => planted(stance_leg, &plants[slot(g)]),
                };
                let mut feet = [stance; 2];
                feet[slot(f)] = swing;
                let position = Vector3::from(m.apply_vec3([root[0], root[1], root[2]]))
                    + 0.5 * world(warp[0], warp[1], 0.0);
                let q = yaw_turn(m.yaw + 0.5 * warp_yaw) * quat_of(&root);
                Raw {
                    root: pose_of(position, &q),
                    joints,
                    feet,
                }
            }
        }
    }
}
