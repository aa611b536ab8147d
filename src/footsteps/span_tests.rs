//! Tests of template steps played from their own clips (Agrawal 2016, thesis §5.5): the spans a
//! cut keeps, how a template file names and finds its clips, and full bodies whose steps play
//! from those clips with feet that stay planted and joints without jumps.

use super::body::{BodyOptions, JOIN_TIME, full_body};
use super::body_quality::quality;
use super::body_tests::human_source;
use super::captured::{TemplateSet, clip_name};
use super::captured_tests::{SHIPPED, solved_templates};
use super::library::{Dimensions, Library};
use super::marker::TaskSequence;
use super::plan::plan;
use super::segment::{Thresholds, segment};
use crate::clip::{OpenOptions, open};
use crate::track::target::sample;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

/// Every span of the solved templates is a step of its clip as segmentation finds it: a step
/// through the air from its lift-off to its rest, or a pivot while its foot turns. The step
/// around a pivot is marked so; a step already in the air at the clip's start keeps none.
#[test]
fn a_cut_keeps_each_step_with_its_span_in_the_clip() {
    let made = solved_templates();
    let (mut spans, mut pivots, mut around) = (0, 0, 0);
    for t in &made {
        for (k, s) in t.steps.iter().enumerate() {
            let Some(span) = &s.span else {
                let solved = ["side_step", "turn_", "pivot_", "toe_pivot_"];
                if solved.iter().any(|p| t.name.starts_with(p)) {
                    panic!("{}: step {k} has no span", t.name);
                }
                continue;
            };
            let path = root().join(SHIPPED).parent().unwrap().join(&span.clip);
            let opened = open(&path, &OpenOptions::default()).unwrap();
            let records = segment(&opened.character, &opened.clip, &Thresholds::default()).unwrap();
            let rate = opened.clip.rate;
            let at = |time: f64| (time * rate).round() as usize;
            let found = records.iter().find(|r| {
                r.foot == s.step.foot
                    && r.tag.is_pivot() == s.tag.is_pivot()
                    && if s.tag.is_pivot() {
                        r.start == at(span.lift_off) && r.end == at(span.touch_down)
                    } else {
                        r.airborne_start == at(span.lift_off)
                            && r.airborne_end + 1 == at(span.touch_down)
                            && r.end == at(span.end)
                    }
            });
            let r = found.unwrap_or_else(|| panic!("{}: {span:?} in {records:#?}", t.name));
            assert!(r.start > 0 || r.airborne_start > 0 || s.tag.is_pivot());
            // The step around a pivot is the one after it, while it turns.
            let after_pivot = k > 0 && t.steps[k - 1].tag.is_pivot();
            assert_eq!(span.around_pivot, after_pivot, "{}: step {k}", t.name);
            spans += 1;
            pivots += usize::from(s.tag.is_pivot());
            around += usize::from(span.around_pivot);
        }
    }
    // The stop's last step and the start's first, two per side step and turn in place, a
    // pivot and the step around it per pivot (on the heel and on the toes), over three
    // categories and two efforts.
    assert_eq!(spans, 6 * (1 + 1 + 2 * 2 + 2 * 2 * 4 + 8 * 2), "{made:#?}");
    assert_eq!((pivots, around), (6 * 8, 6 * 8));
}

/// A template file names its clips relative to itself and finds them there.
#[test]
fn a_template_file_names_its_clips_relative_to_itself() {
    let a = Path::new("/data/tasks/mine.templates.ron");
    assert_eq!(clip_name(a, Path::new("/data/tasks/x.ron")), "x.ron");
    assert_eq!(
        clip_name(a, Path::new("/data/clips/x.ron")),
        "../clips/x.ron"
    );
    let file = root().join(SHIPPED);
    let clips = TemplateSet::load(&file).unwrap().clips(&file);
    assert_eq!(clips.len(), 16, "{clips:#?}");
    for (name, path) in &clips {
        assert!(name.starts_with("../spaces/human3d_"), "{name}");
        assert!(path.is_file(), "{}", path.display());
    }
}

/// A span that is not a step through the air is refused by name, and a clip that is missing or
/// not on the source's character is left out with a warning that names it.
#[test]
fn a_bad_span_is_refused_and_an_unusable_clip_is_named() {
    let file = root().join(SHIPPED);
    let mut set = TemplateSet::load(&file).unwrap();
    let (t, k) = set
        .templates
        .iter()
        .enumerate()
        .find_map(|(i, t)| {
            t.steps
                .iter()
                .position(|s| s.span.is_some())
                .map(|k| (i, k))
        })
        .unwrap();
    let span = set.templates[t].steps[k].span.as_mut().unwrap();
    span.touch_down = span.lift_off - 0.1;
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("bad.templates.ron");
    set.save(&path).unwrap();
    let err = TemplateSet::load(&path).unwrap_err().to_string();
    assert!(
        err.contains(&format!("template {}", t + 1)) && err.contains("span"),
        "{err}"
    );

    let (source, _) = human_source();
    let clips: BTreeMap<String, PathBuf> = [
        ("gone.ron".to_owned(), dir.path().join("gone.ron")),
        (
            "walk.bvh".to_owned(),
            root().join("tests/data/cmu/12_01_walk.bvh"),
        ),
    ]
    .into();
    let (source, warnings) = source.with_clips(&clips);
    assert!(source.clips.is_empty());
    assert_eq!(warnings.len(), 2, "{warnings:#?}");
    assert!(
        warnings.iter().any(|w| w.contains("gone.ron")),
        "{warnings:#?}"
    );
    assert!(
        warnings.iter().any(|w| w.contains("12_01_walk.bvh")),
        "{warnings:#?}"
    );
}

/// Plans with the shipped solved templates: each step cut from a solved clip is played from its
/// span there (past the join, the arms, waist and neck are the clip's; a pivot and the step
/// around it together, from the pivot's start), and the bodies keep the
/// bars of every full body: planted feet within 2 cm, no joint jump over 0.5 rad, no joint past
/// its limit.
#[test]
fn template_steps_play_from_the_clips_they_were_cut_from() {
    let file = root().join(SHIPPED);
    let set = TemplateSet::load(&file).unwrap();
    let (source, character) = human_source();
    let (source, warnings) = source.with_clips(&set.clips(&file));
    assert!(warnings.is_empty(), "{warnings:#?}");
    let lib = Library::with_templates(set.templates, false, Dimensions::default()).unwrap();
    let options = BodyOptions::default();
    let dt = 1.0 / options.rate;
    let upper: Vec<usize> = source
        .character
        .dof_names()
        .iter()
        .enumerate()
        .filter(|(_, n)| {
            [
                "waist",
                "neck",
                "l_shoulder",
                "r_shoulder",
                "l_elbow",
                "r_elbow",
            ]
            .iter()
            .any(|p| n.starts_with(p))
        })
        .map(|(j, _)| j)
        .collect();
    assert_eq!(upper.len(), 10);
    let (mut played, mut pivots) = (0, 0);
    let (mut slide, mut jump, mut past) = (0.0f64, 0.0f64, 0.0f64);
    for seed in 0..20 {
        let p = plan(&lib, &TaskSequence::random(seed, 5));
        let body = full_body(&source, character.clone(), &p, &options);
        // A pivot from a clip plays with the step around it that follows; alone, neither does.
        let paired = |i: usize| {
            let (s, n) = (&p.steps[i], p.steps.get(i + 1)?);
            let (a, b) = (s.span.as_ref()?, n.span.as_ref()?);
            (s.tag.is_pivot() && b.around_pivot && a.clip == b.clip && s.task == n.task)
                .then_some(a.lift_off)
        };
        // Per step played from its clip: the clip's second and the frame its segment starts at.
        let mut origins: Vec<Option<(f64, usize)>> = vec![None; p.steps.len()];
        for (i, (s, r)) in p.steps.iter().zip(&body.steps).enumerate() {
            let Some(span) = &s.span else { continue };
            if let Some(start) = paired(i) {
                origins[i] = Some((start, r.start));
                origins[i + 1] = Some((start, r.start));
                pivots += 1;
            } else if !s.tag.is_pivot() && !span.around_pivot {
                origins[i] = Some((span.lift_off, r.start));
            }
        }
        assert_eq!(
            body.from_clips,
            origins.iter().flatten().count(),
            "seed {seed}: every step with a span is played from its clip"
        );
        let q = quality(&source, &body.clip);
        slide = slide.max(q.slide_m);
        jump = jump.max(q.joint_jump_rad);
        past = past.max(q.limit_excess_rad);
        for ((s, r), origin) in p.steps.iter().zip(&body.steps).zip(&origins) {
            let (Some(span), Some((from, first))) = (&s.span, *origin) else {
                continue;
            };
            let clip = &source.clips[&span.clip];
            // The segment starts between frames first − 1 and first, so frame i plays the clip
            // δ ∈ [0, dt) later than (i − first)·dt past its start: δ is found once for the
            // step, then every frame past the join must match.
            let frames: Vec<usize> = (r.start..=r.end)
                .filter(|&i| (i - first) as f64 * dt > JOIN_TIME + dt)
                .collect();
            if frames.len() < 2 {
                // A step shorter than the join: still blending out of the one before.
                continue;
            }
            let miss = |delta: f64| -> f64 {
                frames
                    .iter()
                    .map(|&i| {
                        let (_, joints) = sample(clip, from + (i - first) as f64 * dt + delta);
                        upper
                            .iter()
                            .map(|&j| (body.clip.frames[i].joints[j] - joints[j]).abs())
                            .fold(0.0, f64::max)
                    })
                    .fold(0.0, f64::max)
            };
            let best = (0..=100)
                .map(|k| miss(k as f64 * dt / 100.0))
                .fold(f64::INFINITY, f64::min);
            assert!(
                best < 2e-3,
                "seed {seed}: step {:?} of {} is {best:.4} rad off its clip",
                s.tag,
                span.clip
            );
            played += 1;
        }
    }
    eprintln!("{pivots} pivots played from their clips with the step around them");
    assert!(pivots >= 3, "{pivots} pivots played from their clips");
    eprintln!(
        "{played} steps played from their clips; slide {slide:.4} m, joint jump {jump:.3} rad"
    );
    assert!(played >= 20, "{played} steps played from their clips");
    assert!(slide <= 0.02, "a planted foot slid {slide:.4} m");
    assert!(jump <= 0.5, "a joint jumped {jump:.3} rad in a frame");
    assert!(past <= 1e-6, "a joint went {past:.4} rad past its limit");
}

/// Motion capture a user brings plays from itself: the CMU walk, retargeted onto the human
/// (its legs scaled to the walker's), segments into human-sized walking steps; its last steps
/// cut into an entry keep their spans in that clip, and a plan that walks straight into a
/// whiteboard takes the entry and plays its steps from the capture, with the bars of every full
/// body (the task reached, planted feet within 2 cm, no joint jump over 0.5 rad, no joint past
/// its limit).
#[test]
fn captured_steps_play_from_the_capture_retargeted_onto_the_human() {
    use super::captured::{Capture, templates_from_clip};
    use super::library::Side;
    use super::marker::{Effort, TaskCategory, TaskMarker};
    use super::step::{Phase, StepTag};
    use crate::arbs::{LoadOptions, Skeleton, TransferOptions, retarget};
    let (source, character) = human_source();
    let ks = Skeleton::load(
        &root().join("tests/data/cmu/12_01_walk.bvh"),
        &LoadOptions::default(),
    )
    .unwrap();
    let options = TransferOptions {
        character: Some(character.clone()),
        ..TransferOptions::default()
    };
    let clip = retarget(&ks, 0, &source.character, &options)
        .unwrap()
        .transfer
        .clip;
    let dir = tempfile::tempdir().unwrap();
    let clip_path = dir.path().join("walk.human3d.clip.ron");
    clip.save(&clip_path).unwrap();
    let file = dir.path().join("walk.templates.ron");
    let name = clip_name(&file, &clip_path);
    assert_eq!(name, "walk.human3d.clip.ron");

    let records = segment(&source.character, &clip, &Thresholds::default()).unwrap();
    let walks: Vec<_> = records
        .iter()
        .filter(|r| r.tag == StepTag::Walk && r.phase == Phase::Locomotion)
        .collect();
    assert!(walks.len() >= 6, "{records:#?}");
    // A step already in the air at the first frame starts mid-stride.
    for r in walks.iter().filter(|r| r.airborne_start > 0) {
        let stride = r.from.distance(&r.to);
        assert!(
            (0.9..1.5).contains(&stride),
            "a stride of {stride:.3} m: {r:?}"
        );
    }

    let capture = Capture {
        category: TaskCategory::Whiteboard,
        effort: Effort::High,
        side: Some(Side::Entry),
        steps: Some(2),
    };
    let templates =
        templates_from_clip(&source.character, &clip, "walk", &capture, Some(&name)).unwrap();
    assert!(
        templates[0].steps.iter().any(|s| s.span.is_some()),
        "{templates:#?}"
    );
    let (source, warnings) = source.with_clips(
        &TemplateSet {
            templates: templates.clone(),
        }
        .clips(&file),
    );
    assert!(warnings.is_empty(), "{warnings:#?}");
    let lib = Library::with_templates(templates, false, source.dimensions()).unwrap();
    let sequence = TaskSequence {
        start: (0.0, 0.0),
        start_facing_deg: 0.0,
        start_category: TaskCategory::Whiteboard,
        tasks: vec![TaskMarker {
            category: TaskCategory::Whiteboard,
            location: (6.0, 0.0),
            facing_deg: 0.0,
            effort: Effort::High,
        }],
    };
    let p = plan(&lib, &sequence);
    let report = &p.reports[0];
    assert_eq!(report.entry, "walk entry (Whiteboard, High)");
    assert!(
        report.reached_m <= 0.05 && report.reached_deg <= 5.0,
        "{report:?}"
    );
    let body = full_body(&source, character, &p, &BodyOptions::default());
    assert!(body.from_clips >= 1, "no step played from the capture");
    let q = quality(&source, &body.clip);
    assert!(q.slide_m <= 0.02, "a planted foot slid {:.4} m", q.slide_m);
    assert!(
        q.joint_jump_rad <= 0.5,
        "a joint jumped {:.3} rad",
        q.joint_jump_rad
    );
    assert!(
        q.limit_excess_rad <= 1e-6,
        "{:.4} rad past a limit",
        q.limit_excess_rad
    );
}
