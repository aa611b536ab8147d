//! The step-template library and its retrieval (Agrawal 2016, thesis §5.3): entry and exit
//! templates per task category with the footstep compositions of Table 5.1, stored with their
//! task-transition descriptors Γ in k-d trees; the k = 5 nearest by `D_exit` / `D_entry`
//! (w_d = 0.001 per cm, w_e = 0.999), and the coupled choice of an entry and the next exit
//! by stance parity (Fig. 5.8b).
//!
//! The thesis's templates are motion-capture segments. None ships with any package this project
//! can reach, so [`Library::geometric`] builds them from the human's dimensions: the same
//! compositions, approached from 12 bearings at a walking distance and at a stepping distance,
//! each ending on either foot, for both efforts. A library made from solved or captured clips
//! takes their place through [`Library::new`].

use super::marker::{Effort, TaskCategory, stance};
use super::step::{Foot, Footstep, StepTag, axes, wrap};
use kiddo::{ImmutableKdTree, SquaredEuclidean};
use serde::{Deserialize, Serialize};
use std::f64::consts::PI;
use std::num::NonZero;

/// w_d of the retrieval distances, per metre (0.001 per cm).
pub const W_DISTANCE: f64 = 0.1;
/// w_e, on the effort mismatch.
pub const W_EFFORT: f64 = 0.999;
/// Templates retrieved per side (k).
pub const K_NEAREST: usize = 5;

/// Entry into a task, or exit out of one.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum Side {
    Exit,
    Entry,
}

/// One step of a template, in the task's frame.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct TemplateStep {
    pub tag: StepTag,
    pub step: Footstep,
    /// The clip the step was cut from, and when in it, for a step the full body plays from its
    /// own motion; none for a built-in template's step (played from the walk).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub span: Option<ClipSpan>,
}

/// Where in a clip a step was cut from (thesis §5.3.1: a template is a segment of motion,
/// `q_{1:N}`; §5.5 warps each step's own segment). Seconds from the clip's start.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ClipSpan {
    /// The clip's file, relative to the template file's folder (or absolute).
    pub clip: String,
    /// The swing foot leaves the ground (a pivot's foot starts to turn).
    pub lift_off: f64,
    /// It is back down (a pivot's foot has turned).
    pub touch_down: f64,
    /// It rests: the end of the step.
    pub end: f64,
    /// A step taken while the other foot pivots (the step around a pivot): the full body plays
    /// it from the clip only together with that pivot, the step before it.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub around_pivot: bool,
}

/// A footstep template (thesis §5.3.1, `s = (q_{1:N}, Γ)`).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct StepTemplate {
    pub name: String,
    pub category: TaskCategory,
    pub side: Side,
    pub effort: Effort,
    /// The steps, in the task's frame (an entry's last two steps make the task's stance).
    pub steps: Vec<TemplateStep>,
    /// Γ's location: for an exit, the next task seen from this one (x^c_n); for an entry, the
    /// task before seen from this one (x^n_c). Metres.
    pub key: [f64; 2],
    /// An entry that ends on one foot: the next exit must start with the other foot swinging.
    pub single_stance: bool,
}

impl StepTemplate {
    /// The foot of the first step.
    pub fn first_foot(&self) -> Foot {
        self.steps[0].step.foot
    }

    fn key_point(&self) -> [f64; 3] {
        [
            W_DISTANCE * self.key[0],
            W_DISTANCE * self.key[1],
            W_EFFORT * self.effort.value(),
        ]
    }
}

/// The human's step dimensions the geometric library is built from.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Dimensions {
    /// Distance between consecutive footsteps along the walk, m (human3d's 1.0 m/s walk takes
    /// 1.05 s strides).
    pub step_length: f64,
    /// Half the lateral distance between the feet while walking, m (its hips are 0.18 m apart).
    pub half_width: f64,
    /// How far ahead of a footprint (the sole's middle) the toes are, m: what a toe pivot turns
    /// on (the front edge of human3d's 0.26 m box foot).
    pub toes: f64,
}

impl Default for Dimensions {
    fn default() -> Self {
        Dimensions {
            step_length: 0.55,
            half_width: 0.09,
            toes: 0.13,
        }
    }
}

/// Entry, or exit, templates of one category with their k-d tree.
struct Shelf {
    indices: Vec<usize>,
    tree: ImmutableKdTree<f64, 3>,
}

/// All templates, searchable per category and side.
pub struct Library {
    pub templates: Vec<StepTemplate>,
    pub dimensions: Dimensions,
    shelves: Vec<((TaskCategory, Side), Shelf)>,
}

/// The key distance of the walking-distance templates, m.
const FAR: f64 = 3.0;
/// The key distance of the stepping-distance templates, m.
const NEAR: f64 = 0.5;
/// Bearings the templates come from or go to.
const BEARINGS: usize = 12;

impl Library {
    /// A library of given templates; every category needs entries and exits.
    pub fn new(templates: Vec<StepTemplate>, dimensions: Dimensions) -> Result<Library, String> {
        let mut shelves = Vec::new();
        for category in TaskCategory::ALL {
            for side in [Side::Exit, Side::Entry] {
                let indices: Vec<usize> = (0..templates.len())
                    .filter(|&i| templates[i].category == category && templates[i].side == side)
                    .collect();
                if indices.is_empty() {
                    return Err(format!("no {side:?} template for {category:?}"));
                }
                let points: Vec<[f64; 3]> =
                    indices.iter().map(|&i| templates[i].key_point()).collect();
                let tree = ImmutableKdTree::new_from_slice(&points)
                    .map_err(|e| format!("{category:?} {side:?}: {e:?}"))?;
                shelves.push(((category, side), Shelf { indices, tree }));
            }
        }
        Ok(Library {
            templates,
            dimensions,
            shelves,
        })
    }

    /// The geometric library for the human (see the module's documentation).
    pub fn geometric(d: Dimensions) -> Library {
        Library::new(geometric_templates(d), d).expect("every category has templates")
    }

    /// Given templates (captured or solved) ahead of the geometric ones, which fill the
    /// categories, sides and bearings they do not cover; on an equal distance the given
    /// template is retrieved first. With `only`, the given templates alone, which must then
    /// cover every category's entries and exits.
    pub fn with_templates(
        given: Vec<StepTemplate>,
        only: bool,
        d: Dimensions,
    ) -> Result<Library, String> {
        let mut templates = given;
        if !only {
            templates.extend(geometric_templates(d));
        }
        Library::new(templates, d)
    }

    /// Within this distance of a task's marker a plan takes `entry` (Algorithm 2's enter
    /// radius): where the entry's first step is, and half a step more. The thesis computes one
    /// radius per category offline; per template, a stepping-distance entry is not taken from
    /// walking distance.
    pub fn enter_radius(&self, entry: &StepTemplate) -> f64 {
        let s = entry.steps[0].step;
        s.x.hypot(s.y) + 0.5 * self.dimensions.step_length
    }

    /// The k nearest templates of a category and side to a descriptor (key location, effort),
    /// nearest first by the thesis's distance `w_d ‖Δx‖ + w_e |Δα|`.
    pub fn nearest(
        &self,
        category: TaskCategory,
        side: Side,
        key: [f64; 2],
        effort: Effort,
    ) -> Vec<(usize, f64)> {
        let shelf = &self
            .shelves
            .iter()
            .find(|(k, _)| *k == (category, side))
            .expect("a shelf per category and side")
            .1;
        let query = [
            W_DISTANCE * key[0],
            W_DISTANCE * key[1],
            W_EFFORT * effort.value(),
        ];
        let k = NonZero::new(K_NEAREST.min(shelf.indices.len())).expect("shelves are not empty");
        let mut found: Vec<(usize, f64)> = shelf
            .tree
            .query(&query)
            .nearest_n::<SquaredEuclidean<f64>>(k)
            .execute()
            .into_iter()
            .map(|r| {
                let i = shelf.indices[r.item as usize];
                let t = &self.templates[i];
                let d = W_DISTANCE * (t.key[0] - key[0]).hypot(t.key[1] - key[1])
                    + W_EFFORT * (t.effort.value() - effort.value()).abs();
                (i, d)
            })
            .collect();
        found.sort_by(|a, b| a.1.total_cmp(&b.1).then(a.0.cmp(&b.0)));
        found
    }
}

/// The geometric templates (see the module's documentation).
fn geometric_templates(d: Dimensions) -> Vec<StepTemplate> {
    let mut templates = Vec::new();
    for category in TaskCategory::ALL {
        for effort in [Effort::High, Effort::Low] {
            for b in 0..BEARINGS {
                let bearing = wrap(2.0 * PI * b as f64 / BEARINGS as f64);
                for last in [Foot::Left, Foot::Right] {
                    templates.push(far_entry(category, effort, bearing, last, d));
                    templates.push(near_entry(category, effort, bearing, last, d));
                    // An exit turns on the foot of its side first (a pivot of the
                    // right foot to turn right); straight on or back, either foot.
                    let natural = bearing.abs() < 1e-9
                        || (bearing.abs() - PI).abs() < 1e-9
                        || (bearing > 0.0) == (last == Foot::Left);
                    if natural {
                        templates.push(exit(category, effort, bearing, last, d));
                    }
                }
            }
        }
    }
    templates
}

/// Whether an entry into a task of this category and effort ends on one foot (a seat, and a
/// whiteboard at low effort), so that the next exit must swing the other foot first.
pub fn ends_on_one_foot(category: TaskCategory, effort: Effort) -> bool {
    category == TaskCategory::Sit || (category == TaskCategory::Whiteboard && effort == Effort::Low)
}

/// Whether an exit may follow an entry: after an entry that ends on one foot, the exit's first
/// step swings the other foot (thesis §5.3.2, coupled selection).
pub fn compatible(entry: &StepTemplate, exit: &StepTemplate) -> bool {
    !entry.single_stance || exit.first_foot() != entry.steps.last().expect("steps").step.foot
}

/// Table 5.1's entry compositions.
fn entry_composition(category: TaskCategory) -> &'static [StepTag] {
    use StepTag::*;
    match category {
        TaskCategory::Whiteboard => &[Walk, Walk, TurnAndStep, ToePivot],
        TaskCategory::Sit => &[Walk, Walk, Walk, TurnAndStep, ToePivot, ToePivot],
        TaskCategory::Lift => &[Walk, Walk, Walk, TurnAndStep, TurnAndStep],
    }
}

/// Table 5.1's exit compositions.
fn exit_composition(category: TaskCategory) -> &'static [StepTag] {
    use StepTag::*;
    match category {
        TaskCategory::Lift => &[HeelPivot, TurnAndStep, Walk, Walk],
        _ => &[HeelPivot, TurnAndStep, Walk],
    }
}

/// An entry from `bearing` at walking distance: walk steps along the approach line to the
/// stance; each foot's last non-pivot step lands on its stance spot, and each foot turns from
/// the approach heading to the task's facing evenly over its steps.
fn far_entry(
    category: TaskCategory,
    effort: Effort,
    bearing: f64,
    last: Foot,
    d: Dimensions,
) -> StepTemplate {
    let tags = entry_composition(category);
    let n = tags.len();
    let feet: Vec<Foot> = (0..n)
        .map(|k| {
            if (n - 1 - k) % 2 == 0 {
                last
            } else {
                last.other()
            }
        })
        .collect();
    let spots = stance(category.stance_half_width());
    let spot = |f: Foot| spots[if f == Foot::Left { 0 } else { 1 }];
    let heading = wrap(bearing + PI);
    let length = d.step_length * if effort == Effort::Low { 0.8 } else { 1.0 };
    // Each foot's last step that is not a pivot lands on its spot.
    let landing = |f: Foot| {
        (0..n)
            .rev()
            .find(|&k| feet[k] == f && !tags[k].is_pivot())
            .expect("each foot steps")
    };
    let first_landing = landing(Foot::Left).min(landing(Foot::Right));
    // Each foot turns from the approach heading to the facing over its steps, evenly.
    let yaws: Vec<f64> = (0..n)
        .map(|k| {
            let mine: Vec<usize> = (0..n).filter(|&j| feet[j] == feet[k]).collect();
            let j = mine.iter().position(|&j| j == k).expect("k is one of them") + 1;
            wrap(heading + wrap(-heading) * j as f64 / mine.len() as f64)
        })
        .collect();
    // From the stance back: a step before the first landing is a step length behind the next
    // plant (the other foot's) along its own yaw, on its own side.
    let mut at = vec![[0.0; 2]; n];
    for k in (0..n).rev() {
        let f = feet[k];
        at[k] = if k >= first_landing {
            let s = spot(f);
            [s.x, s.y]
        } else {
            let (u, v) = axes(yaws[k]);
            let next = at[k + 1];
            [
                next[0] - length * u[0] + f.side() * 2.0 * d.half_width * v[0],
                next[1] - length * u[1] + f.side() * 2.0 * d.half_width * v[1],
            ]
        };
    }
    // A foot turns on its toes when it turns away from the other foot: its heel swings in
    // behind it, and the step before lands outside the stance. Turning towards the other foot it
    // turns on its heel, which would otherwise have to land across the other foot's line.
    let tag = |k: usize| {
        let before = (0..k).rev().find(|&j| feet[j] == feet[k]);
        match (tags[k], before) {
            (StepTag::ToePivot, Some(j)) if wrap(yaws[k] - yaws[j]) * feet[k].side() < 0.0 => {
                StepTag::HeelPivot
            }
            (t, _) => t,
        }
    };
    let steps = (0..n)
        .map(|k| TemplateStep {
            tag: tag(k),
            step: Footstep {
                foot: feet[k],
                x: at[k][0],
                y: at[k][1],
                yaw: yaws[k],
            },
            span: None,
        })
        .collect();
    StepTemplate {
        name: format!(
            "{category:?} entry from {:.0}° ({effort:?}, ends {last:?})",
            bearing.to_degrees()
        ),
        category,
        side: Side::Entry,
        effort,
        steps,
        key: [FAR * bearing.cos(), FAR * bearing.sin()],
        single_stance: ends_on_one_foot(category, effort),
    }
}

/// An entry from `bearing` at stepping distance: two steps onto the stance, tagged by the
/// direction they go (a side step, a step forward or back, or a turn and step).
fn near_entry(
    category: TaskCategory,
    effort: Effort,
    bearing: f64,
    last: Foot,
    _d: Dimensions,
) -> StepTemplate {
    let travel = wrap(bearing + PI);
    let tag = if (travel.abs() - PI / 2.0).abs() <= PI / 4.0 {
        StepTag::SideStep
    } else if travel.abs() < PI / 4.0 {
        StepTag::ForwardStepDuringTask
    } else {
        StepTag::BackwardStepDuringTask
    };
    let spots = stance(category.stance_half_width());
    let spot = |f: Foot| spots[if f == Foot::Left { 0 } else { 1 }];
    let steps = [last.other(), last]
        .iter()
        .map(|&f| TemplateStep {
            tag,
            step: spot(f),
            span: None,
        })
        .collect();
    StepTemplate {
        name: format!(
            "{category:?} near entry from {:.0}° ({effort:?}, ends {last:?})",
            bearing.to_degrees()
        ),
        category,
        side: Side::Entry,
        effort,
        steps,
        key: [NEAR * bearing.cos(), NEAR * bearing.sin()],
        single_stance: false,
    }
}

/// An exit towards `bearing`: a heel pivot of `first` half way, a turn and step of the other
/// foot onto the leaving line, then walk steps; each foot turns at most 90° a step.
fn exit(
    category: TaskCategory,
    effort: Effort,
    bearing: f64,
    first: Foot,
    d: Dimensions,
) -> StepTemplate {
    let tags = exit_composition(category);
    let spots = stance(category.stance_half_width());
    let spot = |f: Foot| spots[if f == Foot::Left { 0 } else { 1 }];
    let length = d.step_length * if effort == Effort::Low { 0.8 } else { 1.0 };
    let mut steps = Vec::with_capacity(tags.len());
    // Each foot turns at most 90° a step; a step lands ahead of the other foot along its own
    // yaw (half a step for a turn and step), on its own side.
    let mut f = first;
    let mut current = [spot(Foot::Left), spot(Foot::Right)];
    let slot = |f: Foot| usize::from(f == Foot::Right);
    for &tag in tags {
        let aim = if tag.is_pivot() {
            0.5 * bearing
        } else {
            bearing
        };
        let mine = current[slot(f)];
        let yaw = wrap(mine.yaw + wrap(aim - mine.yaw).clamp(-PI / 2.0, PI / 2.0));
        let step = if tag.is_pivot() {
            Footstep { yaw, ..mine }
        } else {
            let other = current[slot(f.other())];
            let ahead = if tag == StepTag::TurnAndStep {
                0.5 * length
            } else {
                length
            };
            let (u, v) = axes(yaw);
            Footstep {
                foot: f,
                x: other.x + ahead * u[0] + f.side() * 2.0 * d.half_width * v[0],
                y: other.y + ahead * u[1] + f.side() * 2.0 * d.half_width * v[1],
                yaw,
            }
        };
        current[slot(f)] = step;
        steps.push(TemplateStep {
            tag,
            step,
            span: None,
        });
        f = f.other();
    }
    StepTemplate {
        name: format!(
            "{category:?} exit to {:.0}° ({effort:?}, starts {first:?})",
            bearing.to_degrees()
        ),
        category,
        side: Side::Exit,
        effort,
        steps,
        key: [FAR * bearing.cos(), FAR * bearing.sin()],
        single_stance: false,
    }
}
