//! Step templates cut from clips (Agrawal 2016, thesis §5.3.1): the thesis's templates are
//! motion-capture segments of task transitions, segmented into steps (§5.2) and stored in the
//! frame of the task they leave or enter with their task-transition descriptor Γ. Any clip the
//! project opens gives them here: a solved clip of the spacetime solver, or BVH motion capture a
//! user brings.
//!
//! - An **exit** template is the clip's steps labelled exit (or its first `n`), in the frame of
//!   the stance the clip starts from.
//! - An **entry** template is the steps labelled enter (or its last `n`), in the frame of the
//!   stance the clip ends on. Each foot's last
//!   landing, and what follows it (a pivot), is put on the category's stance, so a task is
//!   reached with its category's stance whatever the capture's width; the steps before keep
//!   their captured places.
//! - Γ is where the other task lies: the clip's other stance for a clip from standing to
//!   standing somewhere else; for a turn in place, ahead of its final facing (an exit) or behind
//!   its first (an entry) at the walking distance; for a clip that starts or ends walking, along
//!   the line to its other end at the walking distance at least (it holds the other task's
//!   direction, not its place).

use super::library::{ClipSpan, Side, StepTemplate, TemplateStep, ends_on_one_foot};
use super::marker::{Effort, TaskCategory, stance};
use super::segment::{Thresholds, segment};
use super::step::{Foot, Footstep, Frame, Phase, StepRecord, wrap};
use crate::clip::{Clip, ClipFormat, Opened};
use crate::model::Character;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// The least distance of a captured template's other task, m (the geometric library's walking
/// distance).
pub const WALKING_DISTANCE: f64 = 3.0;

/// What a clip is cut into.
#[derive(Clone, Debug, PartialEq)]
pub struct Capture {
    /// The task the clip leaves (its exit) or enters (its entry).
    pub category: TaskCategory,
    pub effort: Effort,
    /// Only this side; both when `None` (the clip then needs steps of both).
    pub side: Option<Side>,
    /// Take the first (exit) or last (entry) this many steps instead of the steps the
    /// segmentation labelled with the side's phase.
    pub steps: Option<usize>,
}

/// A template file: templates from clips, to plan with alongside (or instead of) the geometric
/// library.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct TemplateSet {
    pub templates: Vec<StepTemplate>,
}

impl TemplateSet {
    /// Reads a template file; errors name the file and the line, or the template that is not
    /// usable and why.
    pub fn load(path: &Path) -> anyhow::Result<TemplateSet> {
        let set: TemplateSet = crate::files::read_ron(path)?;
        for (i, t) in set.templates.iter().enumerate() {
            check(t).map_err(|e| {
                anyhow::anyhow!("{}: template {} ({}): {e}", path.display(), i + 1, t.name)
            })?;
        }
        Ok(set)
    }

    /// Writes the file atomically.
    pub fn save(&self, path: &Path) -> std::io::Result<()> {
        crate::files::write_ron(path, self)
    }

    /// The clips the templates' steps were cut from, as the file at `path` names them, with
    /// where they are (a relative name is relative to the file's folder).
    pub fn clips(&self, path: &Path) -> BTreeMap<String, PathBuf> {
        let folder = path.parent().unwrap_or(Path::new(""));
        self.templates
            .iter()
            .flat_map(|t| &t.steps)
            .filter_map(|s| s.span.as_ref())
            .map(|span| (span.clip.clone(), folder.join(&span.clip)))
            .collect()
    }
}

/// How a template file at `file` names a clip at `clip`: relative to the file's folder.
pub fn clip_name(file: &Path, clip: &Path) -> String {
    let absolute = |p: &Path| std::path::absolute(p).unwrap_or_else(|_| p.to_path_buf());
    let folder = absolute(file)
        .parent()
        .map(Path::to_path_buf)
        .unwrap_or_default();
    let clip = absolute(clip);
    pathdiff::diff_paths(&clip, &folder)
        .unwrap_or(clip)
        .to_string_lossy()
        .replace('\\', "/")
}

/// Whether a template can be planned with: steps, finite numbers, and an entry that lands each
/// foot.
pub fn check(t: &StepTemplate) -> Result<(), String> {
    if t.steps.is_empty() {
        return Err("expected at least one step".into());
    }
    let finite = |v: f64| v.is_finite() && v.abs() < 1e3;
    if !finite(t.key[0]) || !finite(t.key[1]) {
        return Err("expected a finite `key` (metres)".into());
    }
    for (k, s) in t.steps.iter().enumerate() {
        if !finite(s.step.x) || !finite(s.step.y) || !finite(s.step.yaw) {
            return Err(format!(
                "step {}: expected finite `x`, `y` (metres) and `yaw` (radians)",
                k + 1
            ));
        }
        if let Some(span) = &s.span {
            let times = [span.lift_off, span.touch_down, span.end];
            if !times.iter().all(|v| v.is_finite() && *v >= 0.0)
                || span.lift_off >= span.touch_down
                || span.touch_down > span.end
            {
                return Err(format!(
                    "step {}: expected a `span` in seconds with lift_off < touch_down <= end",
                    k + 1
                ));
            }
            let after_pivot = k > 0 && t.steps[k - 1].tag.is_pivot();
            if span.around_pivot && (s.tag.is_pivot() || !after_pivot) {
                return Err(format!(
                    "step {}: `around_pivot` is for a step through the air after a pivot",
                    k + 1
                ));
            }
        }
    }
    if t.side == Side::Entry {
        for foot in [Foot::Left, Foot::Right] {
            if !t
                .steps
                .iter()
                .any(|s| s.step.foot == foot && !s.tag.is_pivot())
            {
                return Err(format!(
                    "an entry must land both feet; the {foot:?} foot does not step (take more \
                     steps)"
                ));
            }
        }
    }
    Ok(())
}

/// The templates of the clip file at `path` (opened as `opened`), named after its stem and cut
/// as [`templates_from_clip`] does. `template_file`: where they will be written. A clip on a
/// character of the project (a RON clip, a solved gait) then keeps its steps' spans, named
/// relative to that file, so the full body plays them from it; motion capture keeps none (its
/// skeleton is not the human's) and plays from the walk.
pub fn templates_from_file(
    opened: &Opened,
    path: &Path,
    capture: &Capture,
    template_file: Option<&Path>,
) -> Result<Vec<StepTemplate>, String> {
    let name = path
        .file_stem()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_else(|| "clip".into());
    let own = matches!(opened.format, ClipFormat::Clip | ClipFormat::GaitClip);
    let named = template_file
        .filter(|_| own)
        .map(|file| clip_name(file, path));
    templates_from_clip(
        &opened.character,
        &opened.clip,
        &name,
        capture,
        named.as_deref(),
    )
}

/// The clip templates are cut from, as a template file names it.
#[derive(Clone, Debug, PartialEq)]
pub struct ClipOrigin {
    /// Its path, relative to the template file's folder (or absolute).
    pub path: String,
    /// Its frames per second.
    pub rate: f64,
}

/// The templates of a clip on its character: segmented into steps (thesis §5.2) with the
/// default thresholds, then cut as [`templates_from_steps`] says. With `path` (the clip as the
/// template file names it), each step the full body can play from the clip keeps its span.
pub fn templates_from_clip(
    c: &Character,
    clip: &Clip,
    name: &str,
    capture: &Capture,
    path: Option<&str>,
) -> Result<Vec<StepTemplate>, String> {
    let records = segment(c, clip, &Thresholds::default())?;
    let origin = path.map(|path| ClipOrigin {
        path: path.into(),
        rate: clip.rate,
    });
    templates_from_steps(&records, clip.frames.len(), name, capture, origin.as_ref())
}

/// Where in its clip step `r` of `records` plays from. A pivot: from when its foot starts to
/// turn until it has turned. A step through the air, begun in the clip: from its lift-off to
/// its rest, while the other foot stands still or pivots (then it is played with that pivot).
/// None for a step already in the air at the clip's start or one while the other foot steps
/// (played from the walk and the standing pose instead).
fn span_of(records: &[StepRecord], r: &StepRecord, origin: &ClipOrigin) -> Option<ClipSpan> {
    let t = |i: usize| i as f64 / origin.rate;
    if r.tag.is_pivot() {
        return (r.end > r.start).then(|| ClipSpan {
            clip: origin.path.clone(),
            lift_off: t(r.start),
            touch_down: t(r.end),
            end: t(r.end),
            around_pivot: false,
        });
    }
    if r.airborne_end < r.airborne_start || begun_before(r) {
        return None;
    }
    let overlapping =
        |o: &&StepRecord| o.foot != r.foot && o.start < r.end && o.end > r.airborne_start;
    let others: Vec<&StepRecord> = records.iter().filter(overlapping).collect();
    if others.iter().any(|o| !o.tag.is_pivot()) {
        return None;
    }
    let touch_down = t(r.airborne_end + 1);
    Some(ClipSpan {
        clip: origin.path.clone(),
        lift_off: t(r.airborne_start),
        touch_down,
        end: t(r.end).max(touch_down),
        around_pivot: !others.is_empty(),
    })
}

/// A step already in the air at the clip's first frame: where it started is not a plant.
fn begun_before(r: &StepRecord) -> bool {
    r.start == 0 && r.airborne_start == 0
}

/// A step still under way at the clip's last frame: where it ends is not a plant.
fn unfinished(r: &StepRecord, frames: usize) -> bool {
    r.end + 1 >= frames
}

/// Each foot's first and last planted footstep over the steps of a clip: where its first step
/// started (landed, for a step begun before the clip), and where its last finished step landed.
fn stances(
    records: &[StepRecord],
    frames: usize,
) -> Result<([Footstep; 2], [Footstep; 2]), String> {
    let mut first = [None, None];
    let mut last = [None, None];
    for r in records {
        let slot = usize::from(r.foot == Foot::Right);
        first[slot].get_or_insert(if begun_before(r) { r.to } else { r.from });
        if !unfinished(r, frames) {
            last[slot] = Some(r.to);
        }
    }
    match first {
        [Some(fl), Some(fr)] => Ok(([fl, fr], [last[0].unwrap_or(fl), last[1].unwrap_or(fr)])),
        _ => Err("a template needs a clip in which both feet step".into()),
    }
}

/// The templates of one clip's steps (`records`, as [`super::segment::segment`] gives them, of
/// a clip of `frames` frames). A step still under way at the clip's end is left out. `name`
/// names the source in the templates' names; with the clip's `origin`, steps keep their spans
/// in it.
pub fn templates_from_steps(
    records: &[StepRecord],
    frames: usize,
    name: &str,
    capture: &Capture,
    origin: Option<&ClipOrigin>,
) -> Result<Vec<StepTemplate>, String> {
    let (begin, end) = stances(records, frames)?;
    let all = records;
    let records: Vec<StepRecord> = records
        .iter()
        .filter(|r| !unfinished(r, frames))
        .cloned()
        .collect();
    // Standing at both ends: no step was under way as the clip began or ended.
    let at_rest = !all.iter().any(|r| begun_before(r) || unfinished(r, frames));
    let start_frame = Frame::of_stance(&begin[0], &begin[1]);
    let end_frame = Frame::of_stance(&end[0], &end[1]);
    let sides = match capture.side {
        Some(side) => vec![side],
        None => vec![Side::Exit, Side::Entry],
    };
    let mut out = Vec::new();
    for side in sides {
        let taken: Vec<&StepRecord> = match (side, capture.steps) {
            (Side::Exit, Some(n)) => records.iter().take(n).collect(),
            (Side::Entry, Some(n)) => records[records.len().saturating_sub(n)..].iter().collect(),
            (Side::Exit, None) => records.iter().filter(|r| r.phase == Phase::Exit).collect(),
            (Side::Entry, None) => records.iter().filter(|r| r.phase == Phase::Enter).collect(),
        };
        if taken.is_empty() {
            return Err(format!(
                "no steps labelled {} in the clip (its phases: {}); give the number of steps \
                 to take",
                match side {
                    Side::Exit => "exit",
                    Side::Entry => "enter",
                },
                phases(all)
            ));
        }
        let (frame, other_end) = match side {
            Side::Exit => (start_frame, end_frame),
            Side::Entry => (end_frame, start_frame),
        };
        let mut steps: Vec<TemplateStep> = taken
            .iter()
            .map(|r| TemplateStep {
                tag: r.tag,
                step: frame.step_to_local(&r.to),
                span: origin.and_then(|o| span_of(all, r, o)),
            })
            .collect();
        if side == Side::Entry {
            onto_stance(&mut steps, capture.category);
        }
        let key = descriptor(side, &frame, &other_end, at_rest);
        let template = StepTemplate {
            name: format!(
                "{name} {} ({:?}, {:?})",
                match side {
                    Side::Exit => "exit",
                    Side::Entry => "entry",
                },
                capture.category,
                capture.effort
            ),
            category: capture.category,
            side,
            effort: capture.effort,
            steps,
            key,
            single_stance: side == Side::Entry
                && ends_on_one_foot(capture.category, capture.effort),
        };
        check(&template)?;
        out.push(template);
    }
    Ok(out)
}

/// Γ of a template in `frame` (its task's), the clip's other end being the stance `other`:
/// - a clip from standing to standing somewhere else holds both tasks: Γ is that stance (a side
///   step, a step forward or back);
/// - one that turns in place (its ends less than `NEAR_KEY` apart, or from standing to
///   standing turned more than `TURNED_KEY`: a pivot moves the stance's middle by half a
///   stance) says where the other task lies by its facing: ahead of the final stance for an
///   exit, behind the first for an entry, at the walking distance;
/// - one that starts or ends walking holds the other task's direction, not its place: along the
///   line to its other end, at the walking distance at least.
fn descriptor(side: Side, frame: &Frame, other: &Frame, at_rest: bool) -> [f64; 2] {
    let toward = frame.to_local([other.x, other.y]);
    let d = toward[0].hypot(toward[1]);
    let facing = wrap(other.yaw - frame.yaw);
    let in_place = d < NEAR_KEY || (at_rest && facing.abs() > TURNED_KEY);
    if at_rest && !in_place {
        return toward;
    }
    if in_place {
        let along = match side {
            Side::Exit => facing,
            Side::Entry => wrap(facing + std::f64::consts::PI),
        };
        return [
            WALKING_DISTANCE * along.cos(),
            WALKING_DISTANCE * along.sin(),
        ];
    }
    let far = d.max(WALKING_DISTANCE);
    [toward[0] / d * far, toward[1] / d * far]
}

/// Ends of a clip closer than this turn in place, m.
pub const NEAR_KEY: f64 = 0.15;

/// A clip from standing to standing that turns further than this (rad, 30°) turns in place.
pub const TURNED_KEY: f64 = std::f64::consts::FRAC_PI_6;

/// Each foot's last landing and the pivots after it, on the category's stance; the foot's last
/// step faces the task.
fn onto_stance(steps: &mut [TemplateStep], category: TaskCategory) {
    let spots = stance(category.stance_half_width());
    for (slot, foot) in [Foot::Left, Foot::Right].into_iter().enumerate() {
        let Some(landing) = steps
            .iter()
            .rposition(|s| s.step.foot == foot && !s.tag.is_pivot())
        else {
            continue;
        };
        let last = steps
            .iter()
            .rposition(|s| s.step.foot == foot)
            .expect("the landing is one");
        for (k, s) in steps.iter_mut().enumerate().skip(landing) {
            if s.step.foot == foot {
                s.step.x = spots[slot].x;
                s.step.y = spots[slot].y;
                if k == last {
                    s.step.yaw = spots[slot].yaw;
                }
            }
        }
    }
}

fn phases(records: &[StepRecord]) -> String {
    let names: Vec<String> = records.iter().map(|r| format!("{:?}", r.phase)).collect();
    if names.is_empty() {
        "no steps".into()
    } else {
        names.join(", ")
    }
}
