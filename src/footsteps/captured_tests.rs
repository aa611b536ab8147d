//! Tests of step templates cut from clips: a solved stop of human3d's locomotion space makes an
//! entry onto the task's stance, keyed along its approach; a plan retrieves solved and captured
//! templates and still reaches every marker on the right foot; template files round-trip and a
//! bad one is named with its line.

use super::captured::{Capture, TemplateSet, WALKING_DISTANCE, templates_from_file};
use super::library::{Dimensions, Library, Side, StepTemplate};
use super::marker::{Effort, TaskCategory, TaskSequence, stance};
use super::step::{Foot, StepTag};
use super::tests::check_plan;
use crate::clip::{OpenOptions, open};
use std::path::Path;

/// The templates of a repository clip (a BVH file with its scale).
fn cut(rel: &str, bvh_scale: Option<f64>, capture: &Capture) -> Result<Vec<StepTemplate>, String> {
    cut_named(rel, bvh_scale, capture, None)
}

/// The shipped solved template file.
pub(super) const SHIPPED: &str = "assets/tasks/human3d_solved.templates.ron";

/// The templates of a repository clip, their steps keeping their spans in it when `file` is
/// the template file they are for.
fn cut_named(
    rel: &str,
    bvh_scale: Option<f64>,
    capture: &Capture,
    file: Option<&str>,
) -> Result<Vec<StepTemplate>, String> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let path = root.join(rel);
    let opened = open(
        &path,
        &OpenOptions {
            character: None,
            bvh_scale,
        },
    )
    .unwrap();
    templates_from_file(
        &opened,
        &path,
        capture,
        file.map(|f| root.join(f)).as_deref(),
    )
}

const STOP: &str = "assets/spaces/human3d_locomotion/clips/stop_walk0.6.ron";
const START: &str = "assets/spaces/human3d_locomotion/clips/start_walk0.6.ron";
const CMU_WALK: &str = "tests/data/cmu/12_01_walk.bvh";

fn capture(category: TaskCategory, effort: Effort, side: Side, steps: Option<usize>) -> Capture {
    Capture {
        category,
        effort,
        side: Some(side),
        steps,
    }
}

#[test]
fn a_solved_stop_makes_an_entry_onto_the_stance_keyed_along_its_approach() {
    let made = cut(
        STOP,
        None,
        &capture(TaskCategory::Lift, Effort::High, Side::Entry, None),
    )
    .unwrap();
    assert_eq!(made.len(), 1);
    let t = &made[0];
    assert_eq!((t.side, t.category), (Side::Entry, TaskCategory::Lift));
    // Each foot's last step is on the lift's stance, facing the task.
    let spots = stance(TaskCategory::Lift.stance_half_width());
    for (slot, foot) in [Foot::Left, Foot::Right].into_iter().enumerate() {
        let last = t.steps.iter().rev().find(|s| s.step.foot == foot).unwrap();
        assert!(
            (last.step.x - spots[slot].x).abs() < 1e-12
                && (last.step.y - spots[slot].y).abs() < 1e-12
                && last.step.yaw.abs() < 1e-12,
            "{t:#?}"
        );
    }
    // The solved stop walks in along +x: the task before lies behind, at the walking distance.
    let d = t.key[0].hypot(t.key[1]);
    assert!((d - WALKING_DISTANCE).abs() < 1e-9, "{t:#?}");
    assert!(t.key[0] < -0.9 * d, "{t:#?}");
    // The stop holds no exit steps, and says how to take some.
    let err = cut(
        STOP,
        None,
        &capture(TaskCategory::Lift, Effort::High, Side::Exit, None),
    )
    .unwrap_err();
    assert!(err.contains("no steps labelled exit"), "{err}");
}

#[test]
fn an_entry_that_lands_one_foot_only_is_refused() {
    let err = cut(
        CMU_WALK,
        Some(0.056),
        &capture(TaskCategory::Whiteboard, Effort::High, Side::Entry, Some(1)),
    )
    .unwrap_err();
    assert!(err.contains("land both feet"), "{err}");
}

/// The solved templates (the locomotion space's start and stop, the stepping space's side steps
/// and turns in place) and the last steps of the CMU walk, of every category and effort, ahead of
/// the geometric library: 30 random sequences reach every marker within 5 cm and 5° with the
/// category's stance, with steps of human size, entering on the template's foot, and the plans
/// do retrieve the cut templates.
#[test]
fn plans_with_solved_and_captured_templates_reach_every_marker() {
    let mut given = solved_templates();
    for category in TaskCategory::ALL {
        for effort in [Effort::High, Effort::Low] {
            given.extend(
                cut(
                    CMU_WALK,
                    Some(0.056),
                    &capture(category, effort, Side::Entry, Some(3)),
                )
                .unwrap(),
            );
        }
    }
    let lib = Library::with_templates(given.clone(), false, Dimensions::default()).unwrap();
    let mut used = std::collections::BTreeSet::new();
    let mut faults = Vec::new();
    for seed in 0..30 {
        let seq = TaskSequence::random(seed, 5);
        if let Err(e) = check_plan(&seq, &lib) {
            faults.push(format!("seed {seed}: {e}"));
        }
        for r in &super::plan::plan(&lib, &seq).reports {
            for name in r.exit.iter().chain([&r.entry]) {
                if given.iter().any(|t| &t.name == name) {
                    used.insert(name.split(' ').next().unwrap().to_owned());
                }
            }
        }
    }
    assert!(faults.is_empty(), "{faults:#?}");
    for source in [
        "stop_walk0.6",
        "start_walk0.6",
        "12_01_walk",
        "turn_left_90",
    ] {
        assert!(used.contains(source), "{source} never retrieved: {used:?}");
    }
    // The cut templates alone cover every category's entries and exits, and plan the same
    // sequences as well.
    let only = Library::with_templates(given.clone(), true, Dimensions::default()).unwrap();
    let mut used_alone = std::collections::BTreeSet::new();
    for seed in 0..30 {
        let seq = TaskSequence::random(seed, 5);
        if let Err(e) = check_plan(&seq, &only) {
            faults.push(format!("alone, seed {seed}: {e}"));
        }
        for r in &super::plan::plan(&only, &seq).reports {
            used_alone.insert(r.entry.split(' ').next().unwrap().to_owned());
        }
    }
    assert!(faults.is_empty(), "{faults:#?}");
    // Alone, the side steps enter tasks too (beside the geometric near entries they rank after
    // them: the random tasks are at least 0.5 m apart).
    for source in ["side_step_left_0.3", "side_step_right_0.3"] {
        assert!(used_alone.contains(source), "{source}: {used_alone:?}");
    }
    // Without exits, they do not, and the error says which shelf is empty.
    let entries: Vec<StepTemplate> = given
        .into_iter()
        .filter(|t| t.side == Side::Entry)
        .collect();
    let err = match Library::with_templates(entries, true, Dimensions::default()) {
        Ok(_) => panic!("a library without exits"),
        Err(e) => e,
    };
    assert!(err.contains("Exit"), "{err}");
}

#[test]
fn a_template_file_round_trips_and_a_bad_one_names_its_line() {
    let set = TemplateSet {
        templates: cut(
            STOP,
            None,
            &capture(TaskCategory::Sit, Effort::Low, Side::Entry, None),
        )
        .unwrap(),
    };
    assert!(
        set.templates[0].single_stance,
        "a seat's entry ends on one foot"
    );
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("mine.templates.ron");
    set.save(&path).unwrap();
    assert_eq!(TemplateSet::load(&path).unwrap(), set);
    // A category that does not exist.
    let text = std::fs::read_to_string(&path).unwrap();
    let mut lines: Vec<&str> = text.lines().collect();
    let at = lines
        .iter()
        .position(|l| l.trim() == "category: Sit,")
        .unwrap();
    lines[at] = "            category: Seat,";
    std::fs::write(&path, lines.join("\n")).unwrap();
    let err = TemplateSet::load(&path).unwrap_err().to_string();
    assert!(
        err.contains(&format!("mine.templates.ron:{}", at + 1)) && err.contains("Seat"),
        "{err}"
    );
    // A template that parses but cannot be planned with is named, with the reason.
    let mut bad = set.clone();
    bad.templates[0].steps.retain(|s| s.step.foot == Foot::Left);
    bad.save(&path).unwrap();
    let err = TemplateSet::load(&path).unwrap_err().to_string();
    assert!(
        err.contains("template 1") && err.contains("land both feet"),
        "{err}"
    );
}

/// A clip cut mid-stride: the step already in the air at its first frame counts from where it
/// lands, the step still in the air at its last frame is left out, and Γ lies at the walking
/// distance along the clip's travel.
#[test]
fn steps_cut_off_by_the_clip_are_not_taken_as_plants() {
    use super::captured::templates_from_steps;
    use super::step::{Footstep, Phase, StepRecord};
    let at = |foot: Foot, x: f64, y: f64| Footstep {
        foot,
        x,
        y,
        yaw: 0.0,
    };
    let record = |foot, span: [usize; 4], from, to| StepRecord {
        foot,
        start: span[0],
        airborne_start: span[1],
        airborne_end: span[2],
        end: span[3],
        tag: StepTag::Walk,
        phase: Phase::Locomotion,
        from,
        to,
    };
    let records = [
        // In the air at frame 0: it started somewhere before the clip.
        record(
            Foot::Right,
            [0, 0, 3, 4],
            at(Foot::Right, 0.1, -0.3),
            at(Foot::Right, 0.5, -0.1),
        ),
        record(
            Foot::Left,
            [5, 6, 10, 12],
            at(Foot::Left, 0.0, 0.1),
            at(Foot::Left, 1.0, 0.1),
        ),
        // Still in the air at the last frame (20).
        record(
            Foot::Right,
            [13, 14, 20, 20],
            at(Foot::Right, 0.5, -0.1),
            at(Foot::Right, 1.3, -0.1),
        ),
    ];
    let made = templates_from_steps(
        &records,
        21,
        "cut",
        &capture(TaskCategory::Whiteboard, Effort::High, Side::Exit, Some(3)),
        None,
    )
    .unwrap();
    let t = &made[0];
    // The stance it starts from: the right foot where it landed (0.5, −0.1), the left at
    // (0, 0.1); its midpoint (0.25, 0) facing +x.
    let places: Vec<[f64; 2]> = t.steps.iter().map(|s| s.step.position()).collect();
    assert_eq!(places.len(), 2, "{t:#?}");
    for (got, want) in places.iter().zip([[0.25, -0.1], [0.75, 0.1]]) {
        assert!(
            (got[0] - want[0]).abs() < 1e-12 && (got[1] - want[1]).abs() < 1e-12,
            "{t:#?}"
        );
    }
    assert!(
        (t.key[0] - WALKING_DISTANCE).abs() < 1e-9 && t.key[1].abs() < 1e-9,
        "{t:#?}"
    );
}

/// The solved stepping repertoire: standing to standing somewhere else.
const STEPPING: [&str; 6] = [
    "side_step_left_0.3",
    "side_step_right_0.3",
    "turn_left_45",
    "turn_right_45",
    "turn_left_90",
    "turn_right_90",
];

/// The solved pivots: the inside foot turns on the ground (flat on its footprint, or up on its
/// toes), the other steps around it.
const PIVOTS: [(&str, f64, StepTag); 8] = [
    ("pivot_left_45", 45.0, StepTag::HeelPivot),
    ("pivot_right_45", -45.0, StepTag::HeelPivot),
    ("pivot_left_90", 90.0, StepTag::HeelPivot),
    ("pivot_right_90", -90.0, StepTag::HeelPivot),
    ("toe_pivot_left_45", 45.0, StepTag::ToePivot),
    ("toe_pivot_right_45", -45.0, StepTag::ToePivot),
    ("toe_pivot_left_90", 90.0, StepTag::ToePivot),
    ("toe_pivot_right_90", -90.0, StepTag::ToePivot),
];

fn stepping(name: &str) -> String {
    format!("assets/spaces/human3d_stepping/clips/{name}.ron")
}

/// Every template `scripts/solved-templates.sh` cuts, in its order, with their steps' spans.
pub(super) fn solved_templates() -> Vec<StepTemplate> {
    let mut made = Vec::new();
    let all = |clip: &str, side: Option<Side>, steps: Option<usize>, made: &mut Vec<_>| {
        for category in TaskCategory::ALL {
            for effort in [Effort::High, Effort::Low] {
                let c = Capture {
                    category,
                    effort,
                    side,
                    steps,
                };
                made.extend(cut_named(clip, None, &c, Some(SHIPPED)).unwrap());
            }
        }
    };
    all(STOP, Some(Side::Entry), None, &mut made);
    all(START, Some(Side::Exit), Some(1), &mut made);
    for name in &STEPPING[..2] {
        all(&stepping(name), Some(Side::Entry), Some(2), &mut made);
    }
    for name in &STEPPING[2..] {
        all(&stepping(name), None, Some(2), &mut made);
    }
    for (name, _, _) in PIVOTS {
        all(&stepping(name), Some(Side::Exit), Some(2), &mut made);
    }
    made
}

/// The solved steps segment as what they were solved to be, and their templates say where the
/// other task lies: a side step's beside it, a turn in place's ahead of its final facing at the walking distance.
#[test]
fn the_solved_stepping_repertoire_makes_templates_keyed_by_what_each_step_does() {
    use super::step::StepTag;
    let whiteboard = |name: &str| {
        cut(
            &stepping(name),
            None,
            &capture(TaskCategory::Whiteboard, Effort::High, Side::Exit, Some(2)),
        )
        .unwrap()
        .remove(0)
    };
    let near = |t: &StepTemplate, want: [f64; 2]| {
        assert!(
            (t.key[0] - want[0]).abs() < 0.03 && (t.key[1] - want[1]).abs() < 0.03,
            "{t:#?}"
        );
    };
    let left = whiteboard("side_step_left_0.3");
    assert!(
        left.steps.iter().all(|s| s.tag == StepTag::SideStep),
        "{left:#?}"
    );
    assert_eq!(left.first_foot(), Foot::Left);
    near(&left, [0.0, 0.3]);
    near(&whiteboard("side_step_right_0.3"), [0.0, -0.3]);
    for (name, deg) in [
        ("turn_left_45", 45.0f64),
        ("turn_right_45", -45.0),
        ("turn_left_90", 90.0),
        ("turn_right_90", -90.0),
    ] {
        let t = whiteboard(name);
        let a = deg.to_radians();
        near(&t, [WALKING_DISTANCE * a.cos(), WALKING_DISTANCE * a.sin()]);
        // The foot on the side it turns to steps first, turned towards it.
        assert_eq!(
            t.first_foot(),
            if deg > 0.0 { Foot::Left } else { Foot::Right }
        );
        assert!(t.steps[0].step.yaw * deg > 0.0, "{t:#?}");
    }
}

/// A solved pivot segments as a pivot of the foot on the side it turns to, on the heel (the foot
/// stays flat) or on the toes (heel up) as it was solved, turned by the pivot's angle on its own
/// spot (its footprint, or its toes), then a turn and step of the other foot; as an exit it says
/// the next task lies ahead of the final facing.
#[test]
fn a_solved_pivot_turns_the_inside_foot_on_its_spot_and_steps_the_other_around() {
    let toes = Dimensions::default().toes;
    for (name, deg, tag) in PIVOTS {
        let t = cut(
            &stepping(name),
            None,
            &capture(TaskCategory::Lift, Effort::High, Side::Exit, Some(2)),
        )
        .unwrap()
        .remove(0);
        let inside = if deg > 0.0 { Foot::Left } else { Foot::Right };
        let (pivot, step) = (&t.steps[0], &t.steps[1]);
        assert_eq!((pivot.tag, pivot.step.foot), (tag, inside), "{t:#?}");
        assert_eq!(step.tag, StepTag::TurnAndStep, "{t:#?}");
        assert_ne!(step.step.foot, inside);
        let a = deg.to_radians();
        // In the frame of the first stance: the inside foot half a stance aside, turned by the
        // pivot's angle (to 3°); the other foot lands turned the same way.
        assert!(
            (pivot.step.yaw - a).abs() < 3f64.to_radians(),
            "{name}: {t:#?}"
        );
        // The point it turns on stays put: the footprint, or the toes ahead of it.
        let ahead = if tag == StepTag::ToePivot { toes } else { 0.0 };
        let turned_on = pivot.step.x + ahead * pivot.step.yaw.cos();
        assert!((turned_on - ahead).abs() < 0.02, "{name}: {t:#?}");
        assert!(step.step.yaw * a > 0.0, "{name}: {t:#?}");
        let along = [WALKING_DISTANCE * a.cos(), WALKING_DISTANCE * a.sin()];
        assert!(
            (t.key[0] - along[0]).abs() < 0.2 && (t.key[1] - along[1]).abs() < 0.2,
            "{name}: {t:#?}"
        );
    }
}

/// The shipped solved templates are what `scripts/solved-templates.sh` cuts from the shipped
/// clips today (to a micrometre and a microradian).
#[test]
fn the_shipped_solved_templates_are_cut_from_the_shipped_clips() {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join(SHIPPED);
    let shipped = TemplateSet::load(&path).unwrap();
    let made = solved_templates();
    assert_eq!(shipped.templates.len(), made.len());
    for (a, b) in shipped.templates.iter().zip(&made) {
        assert_eq!(
            (
                &a.name,
                a.category,
                a.side,
                a.effort,
                a.single_stance,
                a.steps.len()
            ),
            (
                &b.name,
                b.category,
                b.side,
                b.effort,
                b.single_stance,
                b.steps.len()
            )
        );
        for (s, t) in a.steps.iter().zip(&b.steps) {
            assert_eq!((s.tag, s.step.foot), (t.tag, t.step.foot));
            match (&s.span, &t.span) {
                (None, None) => {}
                (Some(x), Some(y)) => assert!(
                    x.clip == y.clip
                        && (x.lift_off - y.lift_off).abs() < 1e-9
                        && (x.touch_down - y.touch_down).abs() < 1e-9
                        && (x.end - y.end).abs() < 1e-9,
                    "{} {x:?} {y:?}",
                    a.name
                ),
                (x, y) => panic!("{}: span {x:?} shipped, {y:?} cut", a.name),
            }
            assert!(
                (s.step.x - t.step.x).abs() < 1e-6
                    && (s.step.y - t.step.y).abs() < 1e-6
                    && (s.step.yaw - t.step.yaw).abs() < 1e-6,
                "{} {s:?} {t:?}",
                a.name
            );
        }
        assert!((a.key[0] - b.key[0]).abs() < 1e-6 && (a.key[1] - b.key[1]).abs() < 1e-6);
    }
}
