//! Segmenting a clip into steps (Agrawal 2016, thesis §5.2): a step begins when the swing foot
//! loses firm contact or starts to slide, and ends when firm contact is back and the foot rests;
//! its airborne part is the frames off the ground (a sliding pivot has none: Eq. 5.1 then takes
//! the whole step). Steps are tagged from what the foot did and labelled by phase: steps before
//! the first one that travels nearly along the root's heading are exit, the run of such steps is
//! locomotion, and the rest are enter; a clip without locomotion splits more than four steps
//! evenly between exit and enter, and otherwise is all enter.

use super::source::{footprint, sided_legs};
use super::step::{Foot, Footstep, Phase, StepRecord, StepTag, wrap};
use crate::clip::Clip;
use crate::clip::pose::body_poses;
use crate::model::Character;

/// The thresholds of segmentation.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Thresholds {
    /// A foot down but moving faster than this along the ground slides, m/s.
    pub slide_speed: f64,
    /// A foot down but turning faster than this pivots, rad/s.
    pub turn_speed: f64,
    /// A step at least `short` long that travels within this of the root's heading is a
    /// locomotion step, rad. The thesis compares the foot's yaw with the root's and gives no
    /// value; solved gaits toe out by as much as 37°, so the step's direction is compared.
    pub locomotion_yaw: f64,
    /// A step that turns the foot more than this is a turn and step, rad.
    pub turn: f64,
    /// A shorter step at a task is a step forward or back, m.
    pub short: f64,
    /// A slide that turns the foot less than this (rad) and moves it less than `least_slide` is
    /// a wobble of a planted foot, not a step.
    pub least_turn: f64,
    pub least_slide: f64,
}

impl Default for Thresholds {
    fn default() -> Self {
        Thresholds {
            slide_speed: 0.15,
            turn_speed: 0.3,
            locomotion_yaw: 20f64.to_radians(),
            turn: 30f64.to_radians(),
            short: 0.3,
            least_turn: 5f64.to_radians(),
            least_slide: 0.02,
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Support {
    Still,
    Sliding,
    Air,
}

/// The steps of `clip` on `c`, in the order they start. The clip's contacts say when a foot is
/// down (estimated as for key frames when it has none).
pub fn segment(c: &Character, clip: &Clip, th: &Thresholds) -> Result<Vec<StepRecord>, String> {
    let n = clip.frames.len();
    if n < 2 {
        return Err("a clip of at least two frames is needed".into());
    }
    let first = &clip.frames[0];
    // The heading along the toes of the reference pose (+x for the model's characters; motion
    // capture faces wherever it was captured).
    let forward = crate::clip::leg_ik::toes_forward(c, &crate::clip::leg_ik::legs(c));
    let legs = sided_legs(
        c,
        &first.root,
        &first.joints,
        clip.heading_along(c, 0, forward).yaw,
    )
    .ok_or("the character needs two legs ending in feet")?;
    let mut clip_contacts = clip.contacts.clone();
    if clip_contacts.len() != n {
        let mut estimated = clip.clone();
        estimated.estimate_contacts(c, 0.05, 0.4);
        clip_contacts = estimated.contacts;
    }
    let feet = [Foot::Left, Foot::Right];
    let prints: Vec<[Footstep; 2]> = clip
        .frames
        .iter()
        .map(|f| {
            let poses = body_poses(c, &f.root, &f.joints);
            [0, 1].map(|k| footprint(c, &poses, &legs[k], feet[k]))
        })
        .collect();
    let heading: Vec<f64> = (0..n)
        .map(|i| clip.heading_along(c, i, forward).yaw)
        .collect();
    let dt = 1.0 / clip.rate;
    let mut steps = Vec::new();
    for k in 0..2 {
        let support: Vec<Support> = (0..n)
            .map(|i| {
                if !clip_contacts[i]
                    .get(legs[k].effector)
                    .copied()
                    .unwrap_or(false)
                {
                    return Support::Air;
                }
                let (a, b) = (i.saturating_sub(1), (i + 1).min(n - 1));
                let span = (b - a) as f64 * dt;
                let (p, q) = (&prints[a][k], &prints[b][k]);
                let moving = p.distance(q) / span > th.slide_speed
                    || wrap(q.yaw - p.yaw).abs() / span > th.turn_speed;
                if moving {
                    Support::Sliding
                } else {
                    Support::Still
                }
            })
            .collect();
        let mut i = 0;
        while i < n {
            if support[i] == Support::Still {
                i += 1;
                continue;
            }
            let run_start = i;
            while i < n && support[i] != Support::Still {
                i += 1;
            }
            let (start, end) = (run_start.saturating_sub(1), i.min(n - 1));
            let air: Vec<usize> = (run_start..i)
                .filter(|&j| support[j] == Support::Air)
                .collect();
            let (from, to) = (prints[start][k], prints[end][k]);
            let (airborne_start, airborne_end, tag) = match (air.first(), air.last()) {
                (Some(&a), Some(&b)) => (a, b, airborne_tag(&from, &to, heading[end], th)),
                _ if wrap(to.yaw - from.yaw).abs() < th.least_turn
                    && from.distance(&to) < th.least_slide =>
                {
                    continue;
                }
                _ => (start, end, pivot_tag(c, clip, &legs[k], start, end)),
            };
            steps.push(StepRecord {
                foot: feet[k],
                start,
                end,
                airborne_start,
                airborne_end,
                tag,
                phase: Phase::Locomotion,
                from,
                to,
            });
        }
    }
    steps.sort_by_key(|s| (s.start, s.end));
    label_phases(&mut steps, &heading, th);
    Ok(steps)
}

/// The tag of a step that leaves the ground.
fn airborne_tag(from: &Footstep, to: &Footstep, heading: f64, th: &Thresholds) -> StepTag {
    if wrap(to.yaw - from.yaw).abs() > th.turn {
        return StepTag::TurnAndStep;
    }
    let (d, (s, c)) = ([to.x - from.x, to.y - from.y], heading.sin_cos());
    let (forward, left) = (d[0] * c + d[1] * s, -d[0] * s + d[1] * c);
    if left.abs() > forward.abs() {
        StepTag::SideStep
    } else if forward.hypot(left) < th.short {
        if forward >= 0.0 {
            StepTag::ForwardStepDuringTask
        } else {
            StepTag::BackwardStepDuringTask
        }
    } else {
        StepTag::Walk
    }
}

/// A sliding step turns on the toes when the heel is up during it, else on the heel.
fn pivot_tag(
    c: &Character,
    clip: &Clip,
    leg: &crate::clip::leg_ik::Leg,
    start: usize,
    end: usize,
) -> StepTag {
    let heel_up = (start..=end).any(|i| {
        let f = &clip.frames[i];
        let poses = body_poses(c, &f.root, &f.joints);
        let forward = crate::clip::leg_ik::relative(c, &poses, leg.foot) * nalgebra::Vector3::x();
        // The foot pitched toes-down by more than 6°: its heel is up.
        forward.y < -0.1
    });
    if heel_up {
        StepTag::ToePivot
    } else {
        StepTag::HeelPivot
    }
}

/// Labels exit, locomotion and enter (see the module docs).
fn label_phases(steps: &mut [StepRecord], heading: &[f64], th: &Thresholds) {
    let along = |s: &StepRecord| {
        let d = [s.to.x - s.from.x, s.to.y - s.from.y];
        !s.tag.is_pivot()
            && d[0].hypot(d[1]) >= th.short
            && wrap(d[1].atan2(d[0]) - heading[s.end]).abs() < th.locomotion_yaw
    };
    let first = steps.iter().position(along);
    match first {
        Some(a) => {
            let b = (a..steps.len())
                .take_while(|&i| along(&steps[i]))
                .last()
                .unwrap_or(a);
            for (i, s) in steps.iter_mut().enumerate() {
                s.phase = if i < a {
                    Phase::Exit
                } else if i <= b {
                    Phase::Locomotion
                } else {
                    Phase::Enter
                };
            }
        }
        None => {
            let n = steps.len();
            for (i, s) in steps.iter_mut().enumerate() {
                s.phase = if n > 4 && i < n / 2 {
                    Phase::Exit
                } else {
                    Phase::Enter
                };
            }
        }
    }
}
