//! Tests of footstep planning: the objective's gradient against finite differences, and plans
//! through random task sequences that reach every marker with sane steps.

use super::library::{Dimensions, Library, Side};
use super::marker::TaskSequence;
use super::objective::{PhaseWeights, Plant, Window};
use super::optimize::{Freedom, objective_and_gradient, objective_at, optimize};
use super::plan::{Route, plan};
use super::step::{Phase, wrap};

fn window(weights: PhaseWeights, plants: &[Plant], first: usize) -> Window {
    Window {
        weights,
        first,
        frame_angle: 0.3,
        // Targets away from the plants, so every term has a slope.
        targets: (first..plants.len())
            .map(|k| [0.5 + 0.01 * k as f64, 0.2 - 0.05 * k as f64, 0.1 * k as f64])
            .collect(),
        goal_heading: 1.1,
        // Alternating feet, each named for the side it does not lie on: the crossing limit is
        // active.
        sides: (first..plants.len())
            .map(|k| if k % 2 == 0 { -1.0 } else { 1.0 })
            .collect(),
        same_foot: (first..plants.len())
            .map(|k| (k >= 2).then(|| k - 2))
            .collect(),
        goal_points: (first..plants.len())
            .map(|k| [3.0 - 0.1 * k as f64, 1.0])
            .collect(),
        line_point: [0.2, -0.1],
        line_normal: [-(0.4f64.sin()), 0.4f64.cos()],
    }
}

#[test]
fn the_gradient_matches_finite_differences_in_every_phase() {
    let plants: Vec<Plant> = (0..7)
        .map(|i| {
            let i = i as f64;
            [
                0.45 * i + 0.03 * i * i,
                0.1 * (-1f64).powi(i as i32) + 0.02 * i,
                // A 2.2 rad turn at plant 4 wakes the turn limit.
                0.2 * i - 0.3 + if i == 4.0 { 2.0 } else { 0.0 },
            ]
        })
        .collect();
    // A heel pivot on plant 2, and a toe pivot chained on it (its toes 13 cm ahead).
    let freedoms = [
        Freedom::Free,
        Freedom::Pivot { on: 2, toes: 0.0 },
        Freedom::Free,
        Freedom::Pivot { on: 3, toes: 0.13 },
        Freedom::Fixed,
    ];
    for weights in [
        PhaseWeights::EXIT,
        PhaseWeights::LOCOMOTION,
        PhaseWeights::ENTER_PREPARATION,
        PhaseWeights::ENTER,
        PhaseWeights {
            data: 1.0,
            smooth: 1.0,
            orientation: 1.0,
            goal: 1.0,
            location: 1.0,
        },
    ] {
        let w = window(weights, &plants, 2);
        let (v, f, g) = objective_and_gradient(&w, &plants, &freedoms);
        assert_eq!(v.len(), 3 + 1 + 3 + 1);
        assert!(f > 0.0);
        for k in 0..v.len() {
            let h = 1e-6;
            let mut up = v.clone();
            up[k] += h;
            let mut down = v.clone();
            down[k] -= h;
            let fd = (objective_at(&w, &plants, &freedoms, &up)
                - objective_at(&w, &plants, &freedoms, &down))
                / (2.0 * h);
            assert!(
                (fd - g[k]).abs() <= 1e-6 * (1.0 + fd.abs()),
                "{weights:?} variable {k}: analytic {} finite differences {fd}",
                g[k]
            );
        }
    }
}

#[test]
fn bfgs_reaches_the_data_prior_when_it_is_the_only_term() {
    // With only the data prior, the optimum puts every step at its template vector from the
    // plant before: cost zero, from a disturbed start.
    let truth: Vec<Plant> = (0..6)
        .map(|i| {
            [
                0.55 * i as f64,
                if i % 2 == 0 { 0.09 } else { -0.09 },
                0.05 * i as f64,
            ]
        })
        .collect();
    let targets = Window::targets_of(&truth, 2, 4, 0.0);
    let w = Window {
        targets,
        ..window(
            PhaseWeights {
                data: 1.0,
                smooth: 0.0,
                orientation: 0.0,
                goal: 0.0,
                location: 0.0,
            },
            &truth,
            2,
        )
    };
    // No crossing limit: the steps alternate sides by the template itself.
    let w = Window {
        frame_angle: 0.0,
        sides: vec![0.0; 4],
        ..w
    };
    let mut plants = truth.clone();
    for (i, p) in plants.iter_mut().enumerate().skip(2) {
        p[0] += 0.2 * i as f64;
        p[1] -= 0.15;
        p[2] += 0.4;
    }
    let out = optimize(&w, &mut plants, &[Freedom::Free; 4]);
    assert!(out.cost_before > 0.1, "{out:?}");
    assert!(out.cost_after < 1e-10, "{out:?}");
    for (p, t) in plants.iter().zip(&truth) {
        assert!(
            (p[0] - t[0]).abs() < 1e-5 && (p[1] - t[1]).abs() < 1e-5,
            "{p:?} {t:?}"
        );
        assert!(wrap(p[2] - t[2]).abs() < 1e-5);
    }
}

#[test]
fn retrieval_prefers_the_matching_effort_then_the_nearest_location() {
    let lib = Library::geometric(Dimensions::default());
    for category in super::marker::TaskCategory::ALL {
        for side in [Side::Entry, Side::Exit] {
            let found = lib.nearest(category, side, [0.0, 2.9], super::Effort::Low);
            assert_eq!(found.len(), 5);
            let t = &lib.templates[found[0].0];
            assert_eq!(
                (t.category, t.side, t.effort),
                (category, side, super::Effort::Low)
            );
            // The nearest key to (0, 2.9) is the 90° template at 3 m.
            assert!(
                (t.key[0] - 0.0).abs() < 1e-9 && (t.key[1] - 3.0).abs() < 1e-9,
                "{t:?}"
            );
            assert!(found.windows(2).all(|w| w[0].1 <= w[1].1));
        }
    }
}

/// The most a foot turns in one step, degrees.
const MAX_TURN_DEG: f64 = 135.0;
/// The most a foot may land across the other foot's line, m.
const MAX_CROSS: f64 = 0.05;
/// The most the feet's yaws differ after a step, degrees.
const MAX_SPLAY_DEG: f64 = 120.0;

fn other_of(plants: &[super::step::Footstep], i: usize) -> super::step::Footstep {
    *plants[..i]
        .iter()
        .rev()
        .find(|q| q.foot != plants[i].foot)
        .unwrap()
}

/// Checks one plan: every marker reached with its category's stance, steps of human size,
/// entries stepped into on the template's foot. The first fault found, if any.
pub(super) fn check_plan(
    seq: &TaskSequence,
    lib: &Library,
) -> Result<(Vec<Route>, Option<String>), String> {
    // Strides and crossings: the first, if any (counted, not fatal: see the test).
    let mut geometry: Option<String> = None;
    let p = plan(lib, seq);
    assert_eq!(p.reports.len(), seq.tasks.len());
    for r in &p.reports {
        if r.reached_m > 0.05 || r.reached_deg > 5.0 {
            return Err(format!("not reached: {r:?}"));
        }
    }
    let mut plants = p.start.to_vec();
    plants.extend(p.steps.iter().map(|s| s.step));
    for (k, s) in p.steps.iter().enumerate() {
        let i = k + 2;
        let prev_same = (0..i)
            .rev()
            .find(|&j| plants[j].foot == s.step.foot)
            .unwrap();
        let stride = plants[i].distance(&plants[prev_same]);
        if stride > 1.3 && geometry.is_none() {
            geometry = Some(format!("step {k} {s:?}: a stride of {stride:.2} m"));
        }
        let turn = wrap(plants[i].yaw - plants[prev_same].yaw)
            .abs()
            .to_degrees();
        if turn > MAX_TURN_DEG {
            return Err(format!("step {k} {s:?}: the foot turns {turn:.0}°"));
        }
        let splay = wrap(plants[i].yaw - other_of(&plants, i).yaw)
            .abs()
            .to_degrees();
        if splay > MAX_SPLAY_DEG {
            return Err(format!("step {k} {s:?}: {splay:.0}° from the other foot"));
        }
        // A pivot turns about its footprint (a heel pivot) or its toes (a toe pivot): that
        // point stays.
        let about = match s.tag {
            super::StepTag::ToePivot => lib.dimensions.toes,
            _ => 0.0,
        };
        let (a, b) = (plants[i].ahead(about), plants[prev_same].ahead(about));
        let slid = (a[0] - b[0]).hypot(a[1] - b[1]);
        if s.tag.is_pivot() && slid > 1e-9 {
            return Err(format!("step {k}: a pivot slid {slid} m"));
        }
        let other = plants[..i]
            .iter()
            .rev()
            .find(|q| q.foot != s.step.foot)
            .unwrap();
        // No crossed feet: a left foot lands to the left of the right foot's line, and the
        // reverse (a few cm of overlap allowed).
        let frame = super::step::Frame {
            x: other.x,
            y: other.y,
            yaw: other.yaw,
        };
        let side = frame.to_local(plants[i].position())[1] * s.step.foot.side();
        if side < -MAX_CROSS && geometry.is_none() {
            geometry = Some(format!(
                "step {k} {s:?}: crosses the other foot's line by {:.2} m",
                -side
            ));
        }
        let apart = plants[i].distance(other);
        if apart > 1.0 {
            return Err(format!("step {k} {s:?}: {apart:.2} m from the other foot"));
        }
        if !(s.step.x.is_finite() && s.step.y.is_finite() && s.step.yaw.is_finite()) {
            return Err(format!("step {k} not finite"));
        }
    }
    // Parity: the step before an entry's first (non-pivot) step is the other foot's, unless the
    // entry starts from rest (shortcut 1), where either foot may lead.
    for (k, s) in p.steps.iter().enumerate() {
        let starts_entry = s.phase == Phase::Enter
            && (k == 0 || p.steps[k - 1].phase != Phase::Enter || p.steps[k - 1].task != s.task);
        let from_rest = p.reports[s.task].route == Route::EntryOnly
            && (k == 0 || p.steps[k - 1].task != s.task);
        if starts_entry && !from_rest && !s.tag.is_pivot() && plants[k + 1].foot == s.step.foot {
            return Err(format!("entry of task {} on the wrong foot", s.task + 1));
        }
    }
    Ok((p.reports.iter().map(|r| r.route).collect(), geometry))
}

#[test]
fn a_hundred_random_sequences_of_five_tasks_reach_every_marker() {
    let lib = Library::geometric(Dimensions::default());
    let mut routes = Vec::new();
    let mut faults = Vec::new();
    let mut awkward = Vec::new();
    for seed in 0..100 {
        match check_plan(&TaskSequence::random(seed, 5), &lib) {
            Ok((r, geometry)) => {
                routes.extend(r);
                awkward.extend(geometry.map(|g| format!("seed {seed}: {g}")));
            }
            Err(e) => faults.push(format!("seed {seed}: {e}")),
        }
    }
    // A stride over 1.3 m or a foot landing across the other's line: 7 of these 100 sequences
    // have one somewhere (enter preparations and entries after a sharp turn); the plan is still
    // walkable, but not yet what a person would step.
    assert!(
        awkward.len() <= 10,
        "{} of 100 sequences: {:#?}",
        awkward.len(),
        &awkward[..awkward.len().min(8)]
    );
    assert!(
        faults.is_empty(),
        "{} of 100 sequences: {:#?}",
        faults.len(),
        &faults[..faults.len().min(8)]
    );
    // All three of Algorithm 2's cases occur over these sequences.
    for r in [Route::EntryOnly, Route::ExitThenEntry, Route::ExitWalkEntry] {
        assert!(routes.contains(&r), "{r:?} never taken");
    }
}

/// The shipped sequence of Algorithm 2's three cases takes each case in turn, and the side step
/// from rest leads with the foot on the side it moves to, with no step before it.
#[test]
fn the_shortcut_sequence_takes_each_case_and_side_steps_from_rest() {
    let lib = Library::geometric(Dimensions::default());
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("assets/tasks/shortcuts.ron");
    let seq = TaskSequence::load(&path).unwrap();
    let (routes, geometry) = check_plan(&seq, &lib).unwrap();
    assert_eq!(
        routes,
        [Route::EntryOnly, Route::ExitThenEntry, Route::ExitWalkEntry]
    );
    assert_eq!(geometry, None);
    let p = plan(&lib, &seq);
    let side: Vec<_> = p.steps.iter().filter(|s| s.task == 0).collect();
    // The marker is 45 cm to the right: the right foot goes first, then the left joins it.
    assert_eq!(side.len(), 2, "{side:#?}");
    assert!(side.iter().all(|s| s.tag == super::StepTag::SideStep));
    assert_eq!(side[0].step.foot, super::Foot::Right);
    assert_eq!(side[1].step.foot, super::Foot::Left);
}

/// A sequence that starts at a task stands in that task's stance and leaves by its exits.
#[test]
fn a_sequence_starting_at_a_task_starts_in_its_stance() {
    use super::marker::{TaskCategory, TaskMarker};
    let lib = Library::geometric(Dimensions::default());
    for category in TaskCategory::ALL {
        let seq = TaskSequence {
            start: (0.0, 0.0),
            start_facing_deg: 30.0,
            start_category: category,
            tasks: vec![TaskMarker {
                category: TaskCategory::Whiteboard,
                location: (3.0, 1.0),
                facing_deg: 0.0,
                effort: super::Effort::High,
            }],
        };
        let p = plan(&lib, &seq);
        let apart = p.start[0].distance(&p.start[1]);
        assert!(
            (apart - 2.0 * category.stance_half_width()).abs() < 1e-9,
            "{category:?}: feet {apart} m apart"
        );
        check_plan(&seq, &lib).unwrap();
        let exit = p.reports[0].exit.as_ref().expect("a 3 m walk has an exit");
        let t = lib.templates.iter().find(|t| &t.name == exit).unwrap();
        assert_eq!((t.category, t.side), (category, Side::Exit), "{exit}");
    }
}
