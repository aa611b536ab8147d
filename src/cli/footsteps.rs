//! `motionlab footsteps plan`: footstep plans into a sequence of tasks (Agrawal 2016, thesis
//! ch. 5) from the command line. Parsing and printing only; the work is `motionlab::footsteps`.

use anyhow::{Result, anyhow};
use motionlab::footsteps::body::{BodyOptions, full_body};
use motionlab::footsteps::body_quality::quality;
use motionlab::footsteps::captured::{
    Capture, TemplateSet, clip_name, templates_from_clip, templates_from_file,
};
use motionlab::footsteps::library::{Dimensions, Side};
use motionlab::footsteps::source::MotionSource;
use motionlab::footsteps::{Effort, Library, TaskCategory, TaskSequence, plan};
use std::collections::BTreeMap;
use std::path::PathBuf;

#[derive(clap::Subcommand)]
pub enum FootstepsCommand {
    /// Plan the footsteps into each task of a task file, in order: an exit out of the task
    /// before, walk steps, the enter preparation and an entry onto the task's stance. Prints per
    /// task `task I reached_m D reached_deg A steps N plan_ms T route R`, then the full body
    /// (human3d's walker warped onto the footsteps) as `body frames F seconds S slide_m X
    /// joint_jump_rad J`. Example: `motionlab footsteps plan assets/tasks/demo.ron --out
    /// /tmp/demo.clip.ron`
    Plan {
        /// A task file (`start`, `start_facing_deg`, `tasks: [(category, location, facing_deg,
        /// effort)]`); not with --random.
        #[arg(required_unless_present = "random", conflicts_with = "random")]
        tasks: Option<PathBuf>,
        /// Plan a seeded random sequence instead (tasks 0.5 to 8 m apart at any facing).
        #[arg(long)]
        random: Option<u64>,
        /// Tasks in the random sequence.
        #[arg(long, default_value_t = 5, requires = "random")]
        count: usize,
        /// Write the full body here, as a clip of human3d's walker (RON).
        #[arg(long)]
        out: Option<PathBuf>,
        /// Write the plan (every footstep with its tag and phase, and the reports) here.
        #[arg(long)]
        plan_out: Option<PathBuf>,
        /// Print every footstep too.
        #[arg(long)]
        steps: bool,
        /// Plan with these templates too (a file `footsteps templates` writes), retrieved
        /// ahead of the geometric ones.
        #[arg(long)]
        templates: Option<PathBuf>,
        /// Plan with the --templates file's templates alone (it must hold entries and exits
        /// for every category).
        #[arg(long, requires = "templates")]
        templates_only: bool,
    },
    /// Cut step templates from a clip (thesis §5.3.1): its steps labelled exit become an exit
    /// template out of a task of --category, in the frame of the stance the clip starts from;
    /// its steps labelled enter an entry template into one, in the frame of the stance it ends
    /// on (each foot's last landing put on the category's stance). Any clip file: a solved
    /// clip, BVH motion capture, glTF, RON. Motion capture (without --character) is first
    /// retargeted onto human3d's walker, the character plans play on: its limbs matched by
    /// name, its legs scaled to the walker's, by full-body IK; with --out that clip is written
    /// beside the template file as `<capture>.human3d.clip.ron` and the steps keep spans in
    /// it. Prints per template `template NAME side S steps N key (x, y) tags [..]`. Example:
    /// `motionlab footsteps templates assets/spaces/human3d_locomotion/clips/stop_walk0.6.ron
    /// --category whiteboard --side entry --out /tmp/mine.templates.ron`, then `motionlab
    /// footsteps plan assets/tasks/demo.ron --templates /tmp/mine.templates.ron`.
    Templates {
        clip: PathBuf,
        /// The task the clip leaves or enters (every category when not given).
        #[arg(long, value_enum)]
        category: Option<CategoryArg>,
        /// The effort the templates are for (both when not given).
        #[arg(long, value_enum)]
        effort: Option<EffortArg>,
        /// Only the exit or only the entry (both by default: the clip then needs both).
        #[arg(long, value_enum)]
        side: Option<SideArg>,
        /// Take the clip's first (exit) or last (entry) N steps, whatever their phase.
        #[arg(long)]
        steps: Option<usize>,
        /// Play the motion on this character instead of retargeting it (a BVH file's nodes are
        /// matched to its bodies by name).
        #[arg(long)]
        character: Option<PathBuf>,
        /// Metres per BVH unit, with --character (guessed from the skeleton's height when not
        /// given; a retargeted capture is scaled to the walker's legs).
        #[arg(long)]
        bvh_scale: Option<f64>,
        /// Write the templates to this template file (RON).
        #[arg(long)]
        out: Option<PathBuf>,
        /// Add them to the --out file's templates instead of replacing them.
        #[arg(long, requires = "out")]
        append: bool,
    },
    /// Cut a clip into steps (thesis §5.2): when each foot lifts off or slides and lands again,
    /// the step's tag (walk, side step, turn and step, heel or toe pivot, a step forward or back
    /// at a task) and its phase (exit, locomotion, enter). Any clip file: a RON clip, a solved
    /// gait, BVH motion capture, glTF. Prints per step `step I foot F frames S-E airborne A-B
    /// tag T phase P from (x, y, yaw_deg) to (x, y, yaw_deg)` and then `steps N` with the count
    /// of each tag. Example: `motionlab footsteps segment /tmp/demo.clip.ron`
    Segment {
        clip: PathBuf,
        /// Play the motion on this character (a BVH file's nodes are matched by name).
        #[arg(long)]
        character: Option<PathBuf>,
        /// Metres per BVH unit (guessed from the skeleton's height when not given).
        #[arg(long)]
        bvh_scale: Option<f64>,
    },
}

#[derive(Clone, Copy, clap::ValueEnum)]
pub enum CategoryArg {
    Whiteboard,
    Sit,
    Lift,
}

#[derive(Clone, Copy, clap::ValueEnum)]
pub enum EffortArg {
    High,
    Low,
}

#[derive(Clone, Copy, clap::ValueEnum)]
pub enum SideArg {
    Exit,
    Entry,
}

/// `motionlab footsteps templates`: templates cut from a clip, printed and written. Motion
/// capture opened without a character is first retargeted onto the walker plans play on; with
/// `--out`, that clip is written beside the template file and the steps keep spans in it.
fn cut_templates(
    path: &std::path::Path,
    captures: &[Capture],
    open_options: motionlab::clip::OpenOptions,
    out: Option<PathBuf>,
    append: bool,
) -> Result<()> {
    let opened = motionlab::clip::open(path, &open_options)?;
    for w in &opened.warnings {
        eprintln!("warning: {w}");
    }
    let stem = path
        .file_stem()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_else(|| "clip".into());
    let mut made = Vec::new();
    if opened.derived_character {
        let (source, character_ref) = human_source()?;
        let clip = retarget_capture(path, &source.character, character_ref)?;
        let span_clip = match &out {
            Some(out) => {
                let written = out.with_file_name(format!("{stem}.human3d.clip.ron"));
                clip.save(&written)
                    .map_err(|e| anyhow!("{}: {e}", written.display()))?;
                println!(
                    "wrote {} (the capture on human3d's walker)",
                    written.display()
                );
                Some(clip_name(out, &written))
            }
            None => None,
        };
        for capture in captures {
            made.extend(
                templates_from_clip(
                    &source.character,
                    &clip,
                    &stem,
                    capture,
                    span_clip.as_deref(),
                )
                .map_err(|e| anyhow!("{}: {e}", path.display()))?,
            );
        }
    } else {
        for capture in captures {
            made.extend(
                templates_from_file(&opened, path, capture, out.as_deref())
                    .map_err(|e| anyhow!("{}: {e}", path.display()))?,
            );
        }
    }
    for t in &made {
        let tags: Vec<String> = t.steps.iter().map(|s| format!("{:?}", s.tag)).collect();
        println!(
            "template {:?} side {:?} steps {} key ({:.3}, {:.3}) first_foot {:?} tags [{}]",
            t.name,
            t.side,
            t.steps.len(),
            t.key[0],
            t.key[1],
            t.first_foot(),
            tags.join(", ")
        );
    }
    if let Some(out) = out {
        let mut set = if append && out.exists() {
            TemplateSet::load(&out)?
        } else {
            TemplateSet::default()
        };
        set.templates.extend(made);
        set.save(&out)
            .map_err(|e| anyhow!("{}: {e}", out.display()))?;
        println!(
            "wrote {} ({} templates)",
            out.display(),
            set.templates.len()
        );
    }
    Ok(())
}

/// The library a plan retrieves from: the geometric one, with a template file's templates
/// ahead of it or alone.
struct Retrieval {
    library: Library,
    /// How many of its templates come from the file (they come first).
    given: usize,
    /// The clips the file's steps were cut from: names and files.
    clips: BTreeMap<String, PathBuf>,
}

fn library(templates: Option<PathBuf>, only: bool, dimensions: Dimensions) -> Result<Retrieval> {
    let Some(path) = templates else {
        return Ok(Retrieval {
            library: Library::geometric(dimensions),
            given: 0,
            clips: BTreeMap::new(),
        });
    };
    let set = TemplateSet::load(&path)?;
    let clips = set.clips(&path);
    let given = set.templates.len();
    let library = Library::with_templates(set.templates, only, dimensions)
        .map_err(|e| anyhow!("{}: {e}", path.display()))?;
    Ok(Retrieval {
        library,
        given,
        clips,
    })
}

/// `motionlab footsteps segment`: the steps of a clip, one line each.
fn segment_clip(
    path: &std::path::Path,
    character: Option<PathBuf>,
    bvh_scale: Option<f64>,
) -> Result<()> {
    use motionlab::clip::{OpenOptions, open};
    use motionlab::footsteps::segment::{Thresholds, segment};
    let opened = open(
        path,
        &OpenOptions {
            character,
            bvh_scale,
        },
    )?;
    for w in &opened.warnings {
        eprintln!("warning: {w}");
    }
    let steps = segment(&opened.character, &opened.clip, &Thresholds::default())
        .map_err(|e| anyhow!("{}: {e}", path.display()))?;
    let at = |s: &motionlab::footsteps::Footstep| {
        format!("({:.3}, {:.3}, {:.1})", s.x, s.y, s.yaw.to_degrees())
    };
    let mut tags = std::collections::BTreeMap::new();
    for (i, r) in steps.iter().enumerate() {
        println!(
            "step {} foot {:?} frames {}-{} airborne {}-{} tag {:?} phase {:?} from {} to {}",
            i + 1,
            r.foot,
            r.start,
            r.end,
            r.airborne_start,
            r.airborne_end,
            r.tag,
            r.phase,
            at(&r.from),
            at(&r.to)
        );
        *tags.entry(format!("{:?}", r.tag)).or_insert(0usize) += 1;
    }
    let counts: Vec<String> = tags.iter().map(|(t, n)| format!("{t} {n}")).collect();
    println!("steps {} ({})", steps.len(), counts.join(", "));
    Ok(())
}

pub fn run(command: FootstepsCommand) -> Result<()> {
    match command {
        FootstepsCommand::Segment {
            clip,
            character,
            bvh_scale,
        } => segment_clip(&clip, character, bvh_scale),
        FootstepsCommand::Templates {
            clip,
            category,
            effort,
            side,
            steps,
            character,
            bvh_scale,
            out,
            append,
        } => {
            let categories = match category {
                None => TaskCategory::ALL.to_vec(),
                Some(CategoryArg::Whiteboard) => vec![TaskCategory::Whiteboard],
                Some(CategoryArg::Sit) => vec![TaskCategory::Sit],
                Some(CategoryArg::Lift) => vec![TaskCategory::Lift],
            };
            let efforts = match effort {
                None => vec![Effort::High, Effort::Low],
                Some(EffortArg::High) => vec![Effort::High],
                Some(EffortArg::Low) => vec![Effort::Low],
            };
            let side = side.map(|s| match s {
                SideArg::Exit => Side::Exit,
                SideArg::Entry => Side::Entry,
            });
            let captures: Vec<Capture> = categories
                .iter()
                .flat_map(|&category| {
                    efforts.iter().map(move |&effort| Capture {
                        category,
                        effort,
                        side,
                        steps,
                    })
                })
                .collect();
            let options = motionlab::clip::OpenOptions {
                character,
                bvh_scale,
            };
            cut_templates(&clip, &captures, options, out, append)
        }
        FootstepsCommand::Plan {
            tasks,
            random,
            count,
            out,
            plan_out,
            steps,
            templates,
            templates_only,
        } => {
            let sequence = match (tasks, random) {
                (Some(path), _) => TaskSequence::load(&path)?,
                (None, Some(seed)) => TaskSequence::random(seed, count.max(1)),
                (None, None) => return Err(anyhow!("give a task file or --random SEED")),
            };
            let (source, character) = human_source()?;
            let Retrieval { library, clips, .. } =
                library(templates, templates_only, source.dimensions())?;
            let plan = plan(&library, &sequence);
            if steps {
                for s in &plan.steps {
                    println!(
                        "step task {} {:?} {:?} {:?} x {:.3} y {:.3} yaw_deg {:.1}",
                        s.task + 1,
                        s.phase,
                        s.tag,
                        s.step.foot,
                        s.step.x,
                        s.step.y,
                        s.step.yaw.to_degrees()
                    );
                }
            }
            for r in &plan.reports {
                println!(
                    "task {} reached_m {:.4} reached_deg {:.2} steps {} plan_ms {:.3} route {:?}",
                    r.task + 1,
                    r.reached_m,
                    r.reached_deg,
                    r.steps,
                    r.plan_ms,
                    r.route
                );
                println!(
                    "task_templates {} exit {:?} entry {:?}",
                    r.task + 1,
                    r.exit.as_deref().unwrap_or("none"),
                    r.entry
                );
            }
            if let Some(path) = plan_out {
                motionlab::files::write_ron(&path, &plan)
                    .map_err(|e| anyhow!("{}: {e}", path.display()))?;
                println!("wrote {}", path.display());
            }
            let source = with_clips(source, &clips);
            let body = full_body(&source, character, &plan, &BodyOptions::default());
            let q = quality(&source, &body.clip);
            println!(
                "body frames {} seconds {:.2} slide_m {:.4} joint_jump_rad {:.3} past_limit_rad {:.3}{} foot_turned_rad {:.3} from_clips {}",
                body.clip.frames.len(),
                body.clip.duration(),
                q.slide_m,
                q.joint_jump_rad,
                q.limit_excess_rad,
                q.worst_limit
                    .map(|k| format!(" ({})", body.clip.coordinates[k]))
                    .unwrap_or_default(),
                body.foot_turned_rad,
                body.from_clips
            );
            if let Some(path) = out {
                body.clip
                    .save(&path)
                    .map_err(|e| anyhow!("{}: {e}", path.display()))?;
                println!("wrote {}", path.display());
            }
            Ok(())
        }
    }
}

/// `motionlab bench footsteps`: plans random sequences of five tasks (100, or 10 with --quick)
/// and prints the median and 90th percentile of one task's plan time, and the steps per task;
/// then the full body's time per second of motion made, and its worst slide and joint jump.
pub fn bench(quick: bool, seed: u64, templates: Option<PathBuf>) -> Result<()> {
    let (source, character) = human_source()?;
    let Retrieval {
        library,
        given,
        clips,
    } = library(templates, false, source.dimensions())?;
    let given: std::collections::HashSet<&str> = library.templates[..given]
        .iter()
        .map(|t| t.name.as_str())
        .collect();
    let mut retrieved = 0;
    let (mut reached_m, mut reached_deg) = (0.0f64, 0.0f64);
    let source = with_clips(source, &clips);
    let sequences = if quick { 10 } else { 100 };
    let mut ms = Vec::new();
    let mut steps = Vec::new();
    let mut body_ms_per_s = Vec::new();
    let (mut slide, mut jump, mut past, mut turned) = (0.0f64, 0.0f64, 0.0f64, 0.0f64);
    let mut from_clips = 0;
    for s in 0..sequences {
        let plan = plan(&library, &TaskSequence::random(seed + s, 5));
        for r in &plan.reports {
            if r.exit
                .iter()
                .chain([&r.entry])
                .any(|n| given.contains(n.as_str()))
            {
                retrieved += 1;
            }
            reached_m = reached_m.max(r.reached_m);
            reached_deg = reached_deg.max(r.reached_deg);
            ms.push(r.plan_ms);
            steps.push(r.steps as f64);
        }
        let clock = std::time::Instant::now();
        let body = full_body(&source, character.clone(), &plan, &BodyOptions::default());
        body_ms_per_s.push(clock.elapsed().as_secs_f64() * 1e3 / body.clip.duration());
        let q = quality(&source, &body.clip);
        slide = slide.max(q.slide_m);
        jump = jump.max(q.joint_jump_rad);
        past = past.max(q.limit_excess_rad);
        turned = turned.max(body.foot_turned_rad);
        from_clips += body.from_clips;
    }
    ms.sort_by(f64::total_cmp);
    body_ms_per_s.sort_by(f64::total_cmp);
    let at = |v: &[f64], q: f64| v[((v.len() - 1) as f64 * q).round() as usize];
    println!(
        "footsteps_plan_ms median {:.3} p90 {:.3} max {:.3} (tasks {}, steps per task {:.1}, worst reached_m {:.4}, worst reached_deg {:.2})",
        at(&ms, 0.5),
        at(&ms, 0.9),
        ms[ms.len() - 1],
        ms.len(),
        steps.iter().sum::<f64>() / steps.len() as f64,
        reached_m,
        reached_deg
    );
    println!(
        "footsteps_body_ms_per_motion_s median {:.3} p90 {:.3} (sequences {}, worst slide_m {:.4}, worst joint_jump_rad {:.3}, worst past_limit_rad {:.3}, worst foot_turned_rad {:.3}, steps from their clips {})",
        at(&body_ms_per_s, 0.5),
        at(&body_ms_per_s, 0.9),
        body_ms_per_s.len(),
        slide,
        jump,
        past,
        turned,
        from_clips
    );
    if !given.is_empty() {
        println!(
            "footsteps_given_templates {} retrieved_in {} of {} tasks",
            given.len(),
            retrieved,
            ms.len()
        );
    }
    Ok(())
}

/// human3d's walker with its 1.0 m/s straight walk and its standing pose, from the repository.
fn human_source() -> Result<(MotionSource, motionlab::model::CharacterRef)> {
    Ok(MotionSource::human3d(std::path::Path::new(env!(
        "CARGO_MANIFEST_DIR"
    )))?)
}

/// The motion capture at `path` on `character` (file `character_ref`), retargeted by full-body
/// IK; prints how closely it follows the capture.
fn retarget_capture(
    path: &std::path::Path,
    character: &motionlab::model::Character,
    character_ref: motionlab::model::CharacterRef,
) -> Result<motionlab::clip::Clip> {
    use motionlab::arbs::{LoadOptions, Skeleton, TransferOptions, retarget};
    let ks = Skeleton::load(path, &LoadOptions::default())?;
    let options = TransferOptions {
        character: Some(character_ref),
        ..TransferOptions::default()
    };
    let r = retarget(&ks, 0, character, &options)?;
    println!(
        "retargeted {} onto {}: legs scaled to its {:.2} m (x{:.3} the file's){}; feet {}; root {}",
        path.display(),
        character.name,
        r.leg,
        r.scale,
        if r.calibration {
            ", its first frame (a calibration pose) left out"
        } else {
            ""
        },
        r.transfer.effector_summary(),
        r.transfer.root_summary()
    );
    Ok(r.transfer.clip)
}

/// The source with the template clips among `clips` that are on its character (a warning
/// names each one that is not).
fn with_clips(source: MotionSource, clips: &BTreeMap<String, PathBuf>) -> MotionSource {
    let (source, warnings) = source.with_clips(clips);
    for w in warnings {
        eprintln!("warning: {w}");
    }
    source
}
