//! Footstep planning into a sequence of tasks (Agrawal 2016, thesis §5.3.3, Algorithm 2): per
//! task, an exit out of the task before, walk steps until one lies inside the next task's enter
//! radius, the enter preparation (the parity fix, two extra steps when the step into the entry
//! would be too long, the last n_r = 3 steps optimized again), and the entry; each phase
//! optimized by BFGS on Eqs. 5.11–5.16 with Table 5.2's weights. The three shortcuts: a foot
//! already inside the enter radius takes the entry alone (a side step); an exit step inside it
//! goes straight to the entry (a partial turn and step); otherwise exit, walk, enter.

use super::library::{ClipSpan, Library, Side, StepTemplate, compatible};
use super::marker::{TaskMarker, TaskSequence};
use super::objective::{CROSSING_CLEARANCE, PhaseWeights, Plant, Window};
use super::optimize::{Freedom, optimize};
use super::step::{Foot, Footstep, Frame, Phase, StepTag, axes, wrap};
use serde::{Deserialize, Serialize};
use std::time::Instant;

/// Steps re-optimized before the entry (n_r).
pub const ENTER_PREPARATION_STEPS: usize = 3;
/// A step into the entry longer than this many walking steps gets two extra steps before it.
const LONG_STEP: f64 = 1.6;
/// The most the yaw turns from one plant to the next in inserted steps (each foot then turns
/// at most twice this), rad.
const MAX_TURN_PER_PLANT: f64 = std::f64::consts::FRAC_PI_4;
/// Locomotion steps optimized together (the latest ones), so a long walk plans in constant time.
const LOCOMOTION_WINDOW: usize = 6;
/// The most walking steps between two tasks (a kilometre's worth).
const MAX_WALK_STEPS: usize = 2000;

/// A planned footstep: where, which step style, which phase, and for which task (0-based).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct PlannedStep {
    pub step: Footstep,
    pub tag: StepTag,
    pub phase: Phase,
    pub task: usize,
    /// The template step's span in its clip, for a step the full body plays from its own
    /// motion.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub span: Option<ClipSpan>,
}

/// Which of Algorithm 2's three cases a task took.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum Route {
    /// A foot already inside the enter radius: the entry alone (typically a side step).
    EntryOnly,
    /// An exit step inside the enter radius: exit, then entry (a partial turn and step).
    ExitThenEntry,
    /// Exit, walk, entry (a turn and walk).
    ExitWalkEntry,
}

/// How one task went.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct TaskReport {
    pub task: usize,
    pub route: Route,
    /// Footsteps planned for this task (exit, walk and entry).
    pub steps: usize,
    /// Distance from the final stance's midpoint to the marker, m, and its facing's error, °.
    pub reached_m: f64,
    pub reached_deg: f64,
    /// Wall time of this task's plan, ms.
    pub plan_ms: f64,
    pub exit: Option<String>,
    pub entry: String,
}

/// A planned sequence: every footstep after the starting stance, and a report per task.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct FootstepPlan {
    pub start: [Footstep; 2],
    pub steps: Vec<PlannedStep>,
    pub reports: Vec<TaskReport>,
}

/// The plants so far and what the optimizer needs to know of each.
struct Planner<'a> {
    library: &'a Library,
    steps: Vec<PlannedStep>,
    start: [Footstep; 2],
}

impl Planner<'_> {
    /// Plants as the optimizer sees them: the starting stance, then every step.
    fn plants(&self) -> Vec<Plant> {
        self.start
            .iter()
            .chain(self.steps.iter().map(|s| &s.step))
            .map(|s| [s.x, s.y, s.yaw])
            .collect()
    }

    fn plant_count(&self) -> usize {
        2 + self.steps.len()
    }

    fn footstep(&self, plant: usize) -> Footstep {
        if plant < 2 {
            self.start[plant]
        } else {
            self.steps[plant - 2].step
        }
    }

    /// The index of the latest plant of a foot before `before`.
    fn last_of(&self, foot: Foot, before: usize) -> usize {
        (0..before)
            .rev()
            .find(|&i| self.footstep(i).foot == foot)
            .expect("the starting stance has both feet")
    }

    fn last(&self) -> Footstep {
        self.footstep(self.plant_count() - 1)
    }

    /// The current plant of each foot.
    fn feet(&self) -> [Footstep; 2] {
        let n = self.plant_count();
        [Foot::Left, Foot::Right].map(|f| self.footstep(self.last_of(f, n)))
    }

    /// Optimizes the plants `first..` (all of them to the end) with one phase's weights.
    fn optimize_tail(
        &mut self,
        first: usize,
        weights: PhaseWeights,
        frame_from: [f64; 2],
        frame_to: [f64; 2],
        goal: [f64; 2],
        goal_points: Option<Vec<[f64; 2]>>,
        fixed: &[bool],
    ) {
        let mut plants = self.plants();
        let len = plants.len() - first;
        if len == 0 {
            return;
        }
        let frame_angle = angle_to(frame_from, frame_to);
        let freedoms: Vec<Freedom> = (first..plants.len())
            .map(|i| {
                let s = &self.steps[i - 2];
                if fixed.get(i - first).copied().unwrap_or(false) {
                    Freedom::Fixed
                } else if s.tag.is_pivot() {
                    Freedom::Pivot {
                        on: self.last_of(s.step.foot, i),
                        toes: self.toes_of(s.tag),
                    }
                } else {
                    Freedom::Free
                }
            })
            .collect();
        let (_, normal) = axes(angle_to(frame_from, frame_to));
        let window = Window {
            weights,
            first,
            frame_angle,
            targets: Window::targets_of(&plants, first, len, frame_angle),
            goal_heading: angle_to(frame_from, goal),
            sides: (first..plants.len())
                .map(|i| {
                    let (a, b) = (self.footstep(i).foot, self.footstep(i - 1).foot);
                    if a == b { 0.0 } else { a.side() }
                })
                .collect(),
            same_foot: (first..plants.len())
                .map(|i| {
                    let foot = self.footstep(i).foot;
                    (0..i).rev().find(|&j| self.footstep(j).foot == foot)
                })
                .collect(),
            goal_points: goal_points
                .unwrap_or_else(|| plants[first..].iter().map(|p| [p[0], p[1]]).collect()),
            line_point: frame_from,
            line_normal: normal,
        };
        optimize(&window, &mut plants, &freedoms);
        for (i, p) in plants.iter().enumerate().skip(first) {
            let s = &mut self.steps[i - 2].step;
            s.x = p[0];
            s.y = p[1];
            s.yaw = wrap(p[2]);
        }
    }

    /// How far ahead of its footprint a pivot of this tag turns the foot, m: the toes for a toe
    /// pivot, the footprint itself for a heel pivot.
    fn toes_of(&self, tag: StepTag) -> f64 {
        match tag {
            StepTag::ToePivot => self.library.dimensions.toes,
            _ => 0.0,
        }
    }

    fn push(
        &mut self,
        step: Footstep,
        tag: StepTag,
        phase: Phase,
        task: usize,
        span: Option<ClipSpan>,
    ) {
        let step = if tag.is_pivot() {
            // A pivot turns the foot where it stands (on its toes for a toe pivot).
            let at = self.footstep(self.last_of(step.foot, self.plant_count()));
            at.pivoted(step.yaw, self.toes_of(tag))
        } else {
            step
        };
        self.steps.push(PlannedStep {
            step,
            tag,
            phase,
            task,
            span,
        });
    }

    /// `count` walk steps of alternating feet spaced evenly from the last plant to `to`, along
    /// the line between them.
    fn steps_between(&mut self, to: Footstep, count: usize, task: usize) {
        let last = self.last();
        let feet: Vec<Foot> = (1..=count)
            .map(|j| {
                if j % 2 == 1 {
                    last.foot.other()
                } else {
                    last.foot
                }
            })
            .collect();
        for step in even_points(&last, &to, &feet, self.library.dimensions.half_width) {
            self.push(step, StepTag::Walk, Phase::EnterPreparation, task, None);
        }
    }

    /// A walk step of the other foot towards `target`, one step length on.
    fn walk_towards(&mut self, target: [f64; 2], phase: Phase, task: usize) {
        let last = self.last();
        let d = self.library.dimensions;
        let heading = angle_to(last.position(), target);
        let (u, v) = axes(heading);
        let foot = last.foot.other();
        // The line between the feet, then a step along it.
        let mid = [
            last.x - last.foot.side() * d.half_width * v[0],
            last.y - last.foot.side() * d.half_width * v[1],
        ];
        let remaining = (target[0] - mid[0]).hypot(target[1] - mid[1]);
        let length = d.step_length.min(remaining.max(0.5 * d.step_length));
        let step = Footstep {
            foot,
            x: mid[0] + length * u[0] + foot.side() * d.half_width * v[0],
            y: mid[1] + length * u[1] + foot.side() * d.half_width * v[1],
            yaw: heading,
        };
        self.push(step, StepTag::Walk, phase, task, None);
    }
}

/// Plans footsteps through every task of a sequence.
pub fn plan(library: &Library, sequence: &TaskSequence) -> FootstepPlan {
    let start_frame = sequence.start_frame();
    let start = super::marker::stance(sequence.start_category.stance_half_width())
        .map(|s| start_frame.step_to_world(&s));
    let mut planner = Planner {
        library,
        steps: Vec::new(),
        start,
    };
    let mut reports = Vec::new();
    // The task just done: its frame, category and effort.
    let mut current = TaskMarker {
        category: sequence.start_category,
        location: sequence.start,
        facing_deg: sequence.start_facing_deg,
        effort: Default::default(),
    };
    let mut last_entry: Option<usize> = None;
    for (i, task) in sequence.tasks.iter().enumerate() {
        let clock = Instant::now();
        let before = planner.steps.len();
        let (route, exit, entry) = plan_task(
            &mut planner,
            &current,
            task,
            sequence.tasks.get(i + 1),
            last_entry,
            i,
        );
        let feet = planner.feet();
        let reached = Frame::of_stance(&feet[0], &feet[1]);
        let frame = task.frame();
        reports.push(TaskReport {
            task: i,
            route,
            steps: planner.steps.len() - before,
            reached_m: (reached.x - frame.x).hypot(reached.y - frame.y),
            reached_deg: wrap(reached.yaw - frame.yaw).abs().to_degrees(),
            plan_ms: clock.elapsed().as_secs_f64() * 1e3,
            exit: exit.map(|e| library.templates[e].name.clone()),
            entry: library.templates[entry].name.clone(),
        });
        current = *task;
        last_entry = Some(entry);
    }
    FootstepPlan {
        start,
        steps: planner.steps,
        reports,
    }
}

/// Chooses the entry into `task` (and, with the task after it known, together with the exit
/// that will leave it, by parity), then the exit out of `current` compatible with the entry
/// that brought the character there.
fn choose(
    library: &Library,
    current: &TaskMarker,
    task: &TaskMarker,
    next: Option<&TaskMarker>,
    last_entry: Option<usize>,
    feet: [Footstep; 2],
) -> (usize, usize) {
    let (cf, tf) = (current.frame(), task.frame());
    let exit_key = cf.to_local([task.location.0, task.location.1]);
    let entry_key = tf.to_local([current.location.0, current.location.1]);
    let exits = library.nearest(current.category, Side::Exit, exit_key, current.effort);
    let entries = library.nearest(task.category, Side::Entry, entry_key, task.effort);
    let t = |i: usize| -> &StepTemplate { &library.templates[i] };
    let exit = exits
        .iter()
        .find(|(e, _)| last_entry.is_none_or(|l| compatible(t(l), t(*e))))
        .unwrap_or(&exits[0])
        .0;
    // With a foot already inside an entry's enter radius the entry follows the current feet
    // directly: one whose first step would cross the other foot's line ranks last.
    let crosses = |e: usize| {
        let t = &library.templates[e];
        let first = tf.step_to_world(&t.steps[0].step);
        let reach = library.enter_radius(t);
        let near = feet
            .iter()
            .any(|f| (f.x - task.location.0).hypot(f.y - task.location.1) < reach);
        let other = feet[usize::from(first.foot == Foot::Left)];
        let frame = Frame {
            x: other.x,
            y: other.y,
            yaw: other.yaw,
        };
        near && frame.to_local(first.position())[1] * first.foot.side() < CROSSING_CLEARANCE
    };
    let entries: Vec<(usize, f64)> = {
        let mut e: Vec<(usize, f64)> = entries
            .into_iter()
            .map(|(i, d)| (i, d + if crosses(i) { 1.0 } else { 0.0 }))
            .collect();
        e.sort_by(|a, b| a.1.total_cmp(&b.1).then(a.0.cmp(&b.0)));
        e
    };
    let entry = match next {
        None => entries[0].0,
        Some(next) => {
            let key = tf.to_local([next.location.0, next.location.1]);
            let next_exits = library.nearest(task.category, Side::Exit, key, task.effort);
            let mut best = (f64::INFINITY, entries[0].0);
            for (en, de) in &entries {
                for (ex, dx) in &next_exits {
                    if compatible(t(*en), t(*ex)) && de + dx < best.0 {
                        best = (de + dx, *en);
                    }
                }
            }
            best.1
        }
    };
    (exit, entry)
}

fn plan_task(
    p: &mut Planner,
    current: &TaskMarker,
    task: &TaskMarker,
    next: Option<&TaskMarker>,
    last_entry: Option<usize>,
    index: usize,
) -> (Route, Option<usize>, usize) {
    let library = p.library;
    let (exit, entry) = choose(library, current, task, next, last_entry, p.feet());
    let tf = task.frame();
    let target = [task.location.0, task.location.1];
    let radius = library.enter_radius(&library.templates[entry]);
    let inside = |s: &Footstep| (s.x - target[0]).hypot(s.y - target[1]) < radius;
    let mut entry_steps: Vec<(StepTag, Footstep)> = library.templates[entry]
        .steps
        .iter()
        .map(|s| (s.tag, tf.step_to_world(&s.step)))
        .collect();
    settle_toe_pivots(&mut entry_steps, library.dimensions.toes);
    let entry_point = entry_steps[0].1.position();

    // Shortcut 1: a foot is already inside the enter radius.
    let route = if p.feet().iter().any(inside) {
        Route::EntryOnly
    } else {
        // The exit, instantiated at the task just done and optimized.
        let cf = current.frame();
        let first = p.plant_count();
        let exit_steps: Vec<(StepTag, Footstep)> = library.templates[exit]
            .steps
            .iter()
            .map(|s| (s.tag, cf.step_to_world(&s.step)))
            .collect();
        for ((tag, s), t) in exit_steps.iter().zip(&library.templates[exit].steps) {
            p.push(*s, *tag, Phase::Exit, index, t.span.clone());
        }
        let from = exit_steps[0].1.position();
        let to = exit_steps.last().expect("steps").1.position();
        p.optimize_tail(first, PhaseWeights::EXIT, from, to, target, None, &[]);
        // Shortcut 2: an exit step inside the enter radius goes straight to the entry.
        if let Some(k) = (first..p.plant_count()).find(|&k| inside(&p.footstep(k))) {
            p.steps.truncate(k - 2 + 1);
            Route::ExitThenEntry
        } else {
            // Locomotion until a step lies inside the enter radius.
            let loco_first = p.plant_count();
            let origin = p.last().position();
            for _ in 0..MAX_WALK_STEPS {
                p.walk_towards(entry_point, Phase::Locomotion, index);
                let n = p.plant_count();
                let window = n.saturating_sub(LOCOMOTION_WINDOW).max(loco_first);
                p.optimize_tail(
                    window,
                    PhaseWeights::LOCOMOTION,
                    origin,
                    entry_point,
                    entry_point,
                    None,
                    &[],
                );
                if inside(&p.last()) {
                    break;
                }
            }
            Route::ExitWalkEntry
        }
    };

    // Enter preparation: the parity fix (one step more when the last step was the entry's first
    // foot; not from rest, where either foot may lead, as in shortcut 1), two extra steps as
    // long as the step into the entry would be too long, spaced evenly up to the entry; then the
    // last n_r steps optimized again.
    let entry_first = entry_steps[0].1;
    let mut extra = usize::from(
        route != Route::EntryOnly
            && !entry_steps[0].0.is_pivot()
            && p.last().foot == entry_first.foot,
    );
    let gap = p.last().distance(&entry_first);
    let turn = wrap(entry_first.yaw - p.last().yaw).abs();
    while gap / (extra + 1) as f64 > LONG_STEP * library.dimensions.step_length
        || turn / (extra + 1) as f64 > MAX_TURN_PER_PLANT
    {
        extra += 2;
    }
    p.steps_between(entry_first, extra, index);
    let n = p.plant_count();
    let prep_first = (n.saturating_sub(ENTER_PREPARATION_STEPS)).max(2);
    let prep_first = (prep_first..n)
        .find(|&k| p.steps[k - 2].task == index)
        .unwrap_or(n);
    for k in prep_first..n {
        if p.steps[k - 2].phase == Phase::Locomotion {
            p.steps[k - 2].phase = Phase::EnterPreparation;
        }
    }
    // The entry, in the task's frame: each foot's landing on the stance and what follows it
    // are pinned by the task. The prepared steps are optimized again with the entry behind
    // them (all of it pinned for now), then the entry's own free steps.
    let first = p.plant_count();
    for ((tag, s), t) in entry_steps.iter().zip(&library.templates[entry].steps) {
        p.push(*s, *tag, Phase::Enter, index, t.span.clone());
    }
    let from = p.footstep(prep_first.saturating_sub(1).max(1)).position();
    let feet: Vec<Foot> = (prep_first..n).map(|k| p.footstep(k).foot).collect();
    let mut goals: Vec<[f64; 2]> = even_points(
        &p.footstep(prep_first - 1),
        &entry_first,
        &feet,
        library.dimensions.half_width,
    )
    .into_iter()
    .map(|s| s.position())
    .collect();
    goals.extend(entry_steps.iter().map(|(_, s)| s.position()));
    let mut pinned = vec![false; n - prep_first];
    pinned.extend(std::iter::repeat_n(true, entry_steps.len()));
    p.optimize_tail(
        prep_first,
        PhaseWeights::ENTER_PREPARATION,
        from,
        entry_point,
        entry_point,
        Some(goals),
        &pinned,
    );

    let landing = |f: Foot| {
        (0..entry_steps.len())
            .rev()
            .find(|&k| entry_steps[k].1.foot == f && !entry_steps[k].0.is_pivot())
    };
    let fixed: Vec<bool> = (0..entry_steps.len())
        .map(|k| landing(entry_steps[k].1.foot).is_some_and(|l| k >= l))
        .collect();
    let from = entry_steps[0].1.position();
    let to = entry_steps.last().expect("steps").1.position();
    p.optimize_tail(first, PhaseWeights::ENTER, from, to, target, None, &fixed);
    let exit = (route != Route::EntryOnly).then_some(exit);
    (route, exit, entry)
}

/// The step of a foot before each of its toe pivots lands where turning on the toes brings the
/// foot onto the pivot's footstep: the pivot's footstep turned back to that step's yaw about its
/// toes, `toes` metres ahead (latest first, so two pivots of one foot chain). A template puts
/// the pivot on the task's stance, as it does a heel pivot, and the foot then ends there.
fn settle_toe_pivots(steps: &mut [(StepTag, Footstep)], toes: f64) {
    for k in (0..steps.len()).rev() {
        if steps[k].0 != StepTag::ToePivot {
            continue;
        }
        let foot = steps[k].1.foot;
        if let Some(j) = (0..k).rev().find(|&j| steps[j].1.foot == foot) {
            steps[j].1 = steps[k].1.pivoted(steps[j].1.yaw, toes);
        }
    }
}

/// Footsteps of the given feet spaced evenly between two footsteps (exclusive): along the
/// line between the feet's centre line points, each foot `half_width` to its side, the yaw
/// turning evenly.
fn even_points(from: &Footstep, to: &Footstep, feet: &[Foot], half_width: f64) -> Vec<Footstep> {
    let heading = angle_to(from.position(), to.position());
    let (_, v) = axes(heading);
    let centre = |s: &Footstep| {
        [
            s.x - s.foot.side() * half_width * v[0],
            s.y - s.foot.side() * half_width * v[1],
        ]
    };
    let (a, b) = (centre(from), centre(to));
    let count = feet.len();
    feet.iter()
        .enumerate()
        .map(|(j, &foot)| {
            let t = (j + 1) as f64 / (count + 1) as f64;
            Footstep {
                foot,
                x: a[0] + t * (b[0] - a[0]) + foot.side() * half_width * v[0],
                y: a[1] + t * (b[1] - a[1]) + foot.side() * half_width * v[1],
                yaw: wrap(from.yaw + t * wrap(to.yaw - from.yaw)),
            }
        })
        .collect()
}

/// The direction from `a` to `b`.
fn angle_to(a: [f64; 2], b: [f64; 2]) -> f64 {
    (b[1] - a[1]).atan2(b[0] - a[0])
}
