//! The full body of footstep plans: feet that stay where they are planted, joints without
//! jumps, and the stance of every task where the plan put it.

use super::body::{BodyOptions, FullBody, full_body};
use super::body_quality::{quality, stance_at};
use super::library::{Dimensions, Library};
use super::marker::TaskSequence;
use super::plan::{FootstepPlan, plan};
use super::segment::{Thresholds, segment};
use super::source::MotionSource;
use super::step::{Foot, Phase, StepTag, wrap};
use crate::model::CharacterRef;
use std::f64::consts::FRAC_PI_2;
use std::path::Path;

/// human3d's walker with its 1.0 m/s straight walk and its standing pose.
pub(super) fn human_source() -> (MotionSource, CharacterRef) {
    MotionSource::human3d(Path::new(env!("CARGO_MANIFEST_DIR"))).unwrap()
}

/// The clip's stance at the end of every task's hold against the plan's plants: the largest
/// distance (m) and yaw difference (rad).
fn stance_error(source: &MotionSource, p: &FootstepPlan, body: &FullBody) -> (f64, f64) {
    let mut plants = p.start;
    let (mut d, mut a) = (0.0f64, 0.0f64);
    for (i, s) in p.steps.iter().enumerate() {
        plants[match s.step.foot {
            Foot::Left => 0,
            Foot::Right => 1,
        }] = s.step;
        let last_of_task = p.steps.get(i + 1).is_none_or(|n| n.task != s.task);
        if !last_of_task {
            continue;
        }
        // The last frame of the hold: before the next step's record starts, or the clip's end.
        let frame = body
            .steps
            .get(i + 1)
            .map(|r| r.start - 1)
            .unwrap_or(body.clip.frames.len() - 1);
        let got = stance_at(source, &body.clip, frame);
        for (g, w) in got.iter().zip(&plants) {
            d = d.max(g.distance(w));
            a = a.max(wrap(g.yaw - w.yaw).abs());
        }
    }
    (d, a)
}

#[test]
fn the_full_body_keeps_planted_feet_and_ends_on_every_stance() {
    let (source, character) = human_source();
    let lib = Library::geometric(Dimensions::default());
    let mut worst = (0.0f64, 0.0f64, 0.0f64, 0.0f64);
    let mut past_limit = 0.0f64;
    for seed in 0..20 {
        let p = plan(&lib, &TaskSequence::random(seed, 5));
        let body = full_body(&source, character.clone(), &p, &BodyOptions::default());
        body.clip.check().unwrap();
        assert_eq!(
            body.steps.len(),
            p.steps.len(),
            "seed {seed}: a record per step"
        );
        let q = quality(&source, &body.clip);
        let (d, a) = stance_error(&source, &p, &body);
        eprintln!(
            "seed {seed}: slide {:.4} m, joint jump {:.3} rad, root jump {:.4} m, past limit {:.3} rad, stance {:.4} m {:.2}°",
            q.slide_m,
            q.joint_jump_rad,
            q.root_jump_m,
            q.limit_excess_rad,
            d,
            a.to_degrees()
        );
        past_limit = past_limit.max(q.limit_excess_rad);
        worst = (
            worst.0.max(q.slide_m),
            worst.1.max(q.joint_jump_rad),
            worst.2.max(d),
            worst.3.max(a),
        );
    }
    assert!(worst.0 <= 0.02, "a planted foot slid {:.4} m", worst.0);
    assert!(
        past_limit <= 1e-6,
        "a joint coordinate went {past_limit:.4} rad past its limit"
    );
    assert!(
        worst.1 <= 0.5,
        "a joint jumped {:.3} rad in a frame",
        worst.1
    );
    assert!(
        worst.2 <= 0.02,
        "a stance is {:.4} m off its plants",
        worst.2
    );
    assert!(
        worst.3.to_degrees() <= 5.0,
        "a stance is {:.2}° off its plants",
        worst.3.to_degrees()
    );
}

/// Segmenting the full body of a plan finds its steps again: every airborne step on its foot
/// and landing where it was planned, every pivot of 10° or more as the pivot it is (on the heel,
/// flat, or on the toes, heel up), nothing else.
#[test]
fn segmenting_a_full_body_finds_the_planned_steps() {
    let (source, character) = human_source();
    let lib = Library::geometric(Dimensions::default());
    for seed in 0..5 {
        let p = plan(&lib, &TaskSequence::random(seed, 5));
        let body = full_body(&source, character.clone(), &p, &BodyOptions::default());
        let found = segment(&source.character, &body.clip, &Thresholds::default()).unwrap();
        let mut matched = vec![false; found.len()];
        for (i, (s, r)) in p.steps.iter().zip(&body.steps).enumerate() {
            let visible =
                !s.tag.is_pivot() || wrap(r.to.yaw - r.from.yaw).abs() >= 10f64.to_radians();
            let hit = found.iter().position(|f| {
                f.foot == s.step.foot
                    && (if s.tag.is_pivot() {
                        f.tag == s.tag
                    } else {
                        !f.tag.is_pivot()
                    })
                    && f.to.distance(&s.step) < 0.01
                    && f.start <= r.end
                    && r.start <= f.end
            });
            match hit {
                Some(k) => matched[k] = true,
                None => assert!(!visible, "seed {seed}: step {i} ({:?}) not found", s.tag),
            }
        }
        let extra: Vec<_> = found.iter().zip(&matched).filter(|(_, m)| !**m).collect();
        assert!(
            extra.is_empty(),
            "seed {seed}: steps not in the plan: {extra:#?}"
        );
    }
}

/// The source walk is a run of alternating walking steps, all locomotion.
#[test]
fn a_straight_walk_segments_into_alternating_walking_steps() {
    let (source, _) = human_source();
    let found = segment(&source.character, &source.walk, &Thresholds::default()).unwrap();
    assert!(found.len() >= 3, "{} steps in two cycles", found.len());
    for w in found.windows(2) {
        assert_ne!(w[0].foot, w[1].foot, "feet alternate");
    }
    for s in &found {
        assert_eq!(s.tag, StepTag::Walk, "{s:?}");
        assert_eq!(s.phase, Phase::Locomotion, "{s:?}");
        assert!(
            s.airborne_start > s.start && s.airborne_end <= s.end,
            "{s:?}"
        );
        let length = s.from.distance(&s.to);
        assert!(
            (0.8..1.3).contains(&length),
            "a stride of {length:.3} m at 1.0 m/s"
        );
    }
}

/// Motion capture a user brings: the CMU walk (a BVH skeleton whose legs end in toes, facing
/// where it was captured) segments into walking steps along its travel, each foot on its own
/// side. Contacts come from the import's estimate (a foot near the clip's lowest foot point
/// and slow), which misses a stance on this capture's uneven floor, so not every stride is
/// found: the test asks for most of them.
#[test]
fn a_captured_walk_segments_into_walking_steps_on_their_sides() {
    use crate::clip::{OpenOptions, open};
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/cmu/12_01_walk.bvh");
    let opened = open(
        &path,
        &OpenOptions {
            character: None,
            bvh_scale: Some(0.056),
        },
    )
    .unwrap();
    let found = segment(&opened.character, &opened.clip, &Thresholds::default()).unwrap();
    let walks: Vec<_> = found
        .iter()
        .filter(|s| s.tag == StepTag::Walk && s.phase == Phase::Locomotion)
        .collect();
    assert!(walks.len() >= 5, "{found:#?}");
    // The walk goes along −y on the ground (the capture's +z), 3.8 m.
    for s in &walks {
        let (dx, dy) = (s.to.x - s.from.x, s.to.y - s.from.y);
        assert!(dy < -0.5 && dx.abs() < 0.2 * dy.abs(), "{s:?}");
        assert!(
            wrap(s.to.yaw + FRAC_PI_2).abs() < 0.35,
            "toes along the walk: {s:?}"
        );
    }
    // Walking towards −y, the left foot is on +x.
    let side = |f: Foot| {
        let xs: Vec<f64> = walks
            .iter()
            .filter(|s| s.foot == f)
            .map(|s| s.to.x)
            .collect();
        xs.iter().sum::<f64>() / xs.len().max(1) as f64
    };
    assert!(side(Foot::Left) > side(Foot::Right) + 0.05, "{walks:#?}");
}
