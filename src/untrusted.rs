//! Files from other people and other tools, read end to end: parsed, validated, and then run for
//! a bounded time, as the program itself would use them. Every function here returns an error
//! for bad input and never panics or runs unbounded; the fuzz targets (`fuzz/`, one per reader)
//! feed them arbitrary bytes, and `tests/untrusted.rs` keeps the inputs that once broke them.
//!
//! "Bounded" means a few simulation steps (12, 0.1 s at 120 Hz), one task evaluation of at most
//! 0.1 s, one pass of the spacetime kinematics and dynamics, one audit of a 30-frame clip.

use crate::model::{Character, ModelError, parse_character};
use crate::scene::parse_scene;
use crate::sim::HoldPose;
use crate::sim::{SimSettings, Simulation};
use crate::spacetime::skeleton::Skeleton;
use std::path::Path;

/// Why an input was refused: its reader's own error, or what the bounded run found wrong.
#[derive(Debug, thiserror::Error)]
pub enum Refused {
    #[error(transparent)]
    Text(#[from] std::str::Utf8Error),
    #[error(transparent)]
    Ron(#[from] ron::error::SpannedError),
    #[error(transparent)]
    Model(#[from] ModelError),
    #[error(transparent)]
    Scene(#[from] crate::scene::SceneError),
    #[error(transparent)]
    Task(#[from] crate::task::TaskError),
    #[error(transparent)]
    Sim(#[from] crate::sim::SimError),
    #[error("{0}")]
    Failed(crate::sim::Failure),
    #[error(transparent)]
    Gait(#[from] crate::spacetime::gait::GaitError),
    #[error(transparent)]
    Bvh(#[from] crate::clip::bvh::BvhError),
    #[error(transparent)]
    Arbs(#[from] crate::arbs::ArbsError),
    #[error(transparent)]
    Clip(#[from] crate::clip::InvalidClip),
    /// A checkpoint that does not resume.
    #[error(transparent)]
    Checkpoint(anyhow::Error),
    #[error("the rest pose's kinematics or dynamics are not finite")]
    RestPoseNotFinite,
    #[error("not a shipped creature")]
    NotAShippedCreature,
    #[error("{0} problems in the derived character")]
    DerivedCharacter(usize),
    #[error("the export does not read back: {0}")]
    ExportUnreadable(crate::clip::bvh::BvhError),
    #[error("the first frame's body poses are not finite")]
    PosesNotFinite,
    #[error("an infeasible or failed sample (ranked last)")]
    InfeasibleSample,
}

/// Steps a bounded run takes.
const STEPS: usize = 12;

/// The longest task evaluation a fuzzed scene gets, s.
const TASK_SECONDS: f32 = 0.1;

/// The file name readers report in their errors.
const NAME: &str = "untrusted.ron";

/// The characters a scene may name, by file name (a scene names its character by path).
fn builtin_character(path: &Path) -> Result<Character, ModelError> {
    let name = path.file_name().and_then(|n| n.to_str()).unwrap_or("");
    let text = match name {
        "human3d.ron" => include_str!("../characters/human3d.ron"),
        "bird_robot.ron" => include_str!("../characters/bird_robot.ron"),
        _ => include_str!("../characters/human2d.ron"),
    };
    parse_character(text, path)
}

/// The spacetime creatures a gait clip may belong to, by creature name.
fn builtin_creature(name: &str) -> Option<Skeleton> {
    let text = match name {
        "monoped" => include_str!("../characters/monoped.ron"),
        "simple biped" => include_str!("../characters/simple_biped.ron"),
        "velociraptor" => include_str!("../characters/velociraptor.ron"),
        "horse" => include_str!("../characters/horse.ron"),
        "pentaped" => include_str!("../characters/pentaped.ron"),
        _ => return None,
    };
    Skeleton::parse(text, Path::new(NAME)).ok()
}

/// Holds the reference pose for [`STEPS`] steps (pushes first, if any).
fn run_briefly(
    character: &Character,
    settings: SimSettings,
    pushes: &[crate::sim::Push],
) -> Result<(), Refused> {
    let mut sim = Simulation::new(character, settings)?;
    for p in pushes {
        sim.push(p.body, p.impulse, p.duration);
    }
    let mut control = HoldPose::reference();
    let mut targets = sim.targets().to_vec();
    for _ in 0..STEPS {
        sim.step_controlled(&mut control, &mut targets);
    }
    match sim.failure() {
        Some(f) => Err(Refused::Failed(f.clone())),
        None => Ok(()),
    }
}

/// A character file: `check`, then a brief simulation holding the reference pose.
pub fn character(text: &str) -> Result<(), Refused> {
    let c = parse_character(text, Path::new(NAME))?;
    run_briefly(&c, SimSettings::default(), &[])
}

/// A scene file (its character one of the built-in ones): `check`, then a brief simulation with
/// its settings and pushes, or one evaluation of its task's seed of at most 0.1 s.
pub fn scene(text: &str) -> Result<(), Refused> {
    let mut loaded = parse_scene(text, Path::new(NAME), builtin_character)?;
    if loaded.scene.task.is_some() {
        loaded.scene.seconds = loaded.scene.seconds.min(TASK_SECONDS);
        let mut task = loaded.task(false)?;
        task.seconds = task.seconds.min(TASK_SECONDS);
        let metric = task.def.metric;
        let x0 = task.x0();
        let _ = crate::task::evaluate(&task, &x0, metric);
        Ok(())
    } else {
        run_briefly(&loaded.character, loaded.settings(), &loaded.pushes())
    }
}

/// A character file as a gait creature: the loader's checks, then the kinematics and inverse dynamics of
/// its rest pose.
pub fn creature(text: &str) -> Result<(), Refused> {
    use crate::spacetime::dynamics::{forward_kinematics, inverse_dynamics};
    use crate::spacetime::skeleton::GRAVITY;
    let skeleton = Skeleton::parse(text, Path::new(NAME))?;
    let morphology = skeleton.morphology::<f64>();
    let q = skeleton.rest_pose();
    let zero = vec![0.0; q.len()];
    let k = forward_kinematics(&skeleton, &morphology, &q);
    let d = inverse_dynamics(&skeleton, &morphology, &q, &zero, &zero, GRAVITY, &[]);
    if k.height().is_finite() && d.joint_torques().iter().all(|t| t.is_finite()) {
        Ok(())
    } else {
        Err(Refused::RestPoseNotFinite)
    }
}

/// A gait clip (`gait --out`) of one of the shipped creatures: its checks, then its audit.
pub fn gait_clip(text: &str) -> Result<(), Refused> {
    use crate::spacetime::gait::{GaitClip, audit};
    let clip: GaitClip = crate::files::from_ron(text)?;
    let base = builtin_creature(&clip.creature).ok_or(Refused::NotAShippedCreature)?;
    clip.check_creature(&base)?;
    let body = clip.body(&base)?;
    clip.validate(&body)?;
    let _ = audit(&body, &clip, 1.0, 0.02);
    Ok(())
}

/// A BVH file: parsed, made into a character (the hierarchy's own) and a clip on it, written
/// back as BVH and read again.
pub fn bvh(text: &str) -> Result<(), Refused> {
    use crate::clip::{CharacterRef, bvh};
    let parsed = bvh::parse(text, "untrusted.bvh")?;
    let scale = bvh::guess_scale(parsed.rest_height());
    let character = bvh::character_of(&parsed, "untrusted", scale);
    let problems = character.validate();
    if !problems.is_empty() {
        return Err(Refused::DerivedCharacter(problems.len()));
    }
    let r = CharacterRef::new(Path::new("untrusted.ron"), text);
    let clip = bvh::clip_on_character(&parsed, &character, r, scale, "untrusted.bvh")?;
    clip.check()?;
    let again = bvh::export(&clip, &character);
    bvh::parse(&again, "again.bvh").map_err(Refused::ExportUnreadable)?;
    Ok(())
}

/// A skinned skeleton (glTF or GLB bytes; BVH text when it starts with `HIERARCHY`): read, made
/// into its automatic character (`crate::arbs`), the first 3 frames of its first animation
/// transferred (20 iterations a frame), and the character held briefly.
pub fn skeleton(bytes: &[u8]) -> Result<(), Refused> {
    use crate::arbs::{self, ArbsOptions, LoadOptions, Skeleton, TransferOptions};
    let options = LoadOptions::default();
    let mut ks = if arbs::SourceKind::of_bytes(bytes) == arbs::SourceKind::MotionCapture {
        let text = std::str::from_utf8(bytes)?;
        Skeleton::from_bvh(text, "untrusted.bvh", &options)
    } else {
        Skeleton::from_gltf(bytes, None, "untrusted.glb", &options)
    }?;
    let (c, map) = arbs::build_character(&ks, &ArbsOptions::default())?;
    if let Some(a) = ks.animations.first_mut() {
        a.frames.truncate(3);
        let t = arbs::transfer(
            &ks,
            0,
            &c,
            &map,
            &TransferOptions {
                max_iterations: 20,
                ..TransferOptions::default()
            },
        )?;
        t.clip.check()?;
    }
    run_briefly(&c, SimSettings::default(), &[])
}

/// A clip file: its checks, then, on a shipped character, the body poses of its first frame.
pub fn clip(text: &str) -> Result<(), Refused> {
    let clip: crate::clip::Clip = crate::files::from_ron(text)?;
    clip.check()?;
    let c = builtin_character(Path::new(&clip.character.path))?;
    clip.check_character(&c)?;
    let poses = clip.body_poses(&c, 0);
    if poses.iter().flatten().all(|v| v.is_finite()) {
        Ok(())
    } else {
        Err(Refused::PosesNotFinite)
    }
}

/// A robustness sweep's checkpoint: resumed, its progress read, and its character simulated
/// briefly with its settings.
pub fn robustness_checkpoint(text: &str) -> Result<(), Refused> {
    use crate::jobs::Job;
    let sweep = crate::analysis::robustness::RobustnessSweep::from_checkpoint(text)
        .map_err(Refused::Checkpoint)?;
    let _ = sweep.progress();
    run_briefly(&sweep.state.character, sweep.state.settings, &[])
}

/// An exploration's checkpoint (`explore --resume`): the task it names loaded and the search
/// checked against it, then its progress read. (Its scene path is resolved against the working
/// folder, as `explore --resume` does.)
pub fn explore_checkpoint(text: &str) -> Result<(), Refused> {
    use crate::jobs::Job;
    let job = crate::diversity::explore::DiversityJob::from_checkpoint(text)
        .map_err(Refused::Checkpoint)?;
    let _ = job.progress();
    Ok(())
}

/// A discovery sample's summary (`sample-<hash>.summary.ron` in a `--samples-dir`): its cost and
/// violation, ranked as basin-CMA ranks them.
pub fn discovery_summary(text: &str) -> Result<(), Refused> {
    use crate::spacetime::discovery::{Candidate, FEASIBILITY_TOLERANCE, Projected};
    let projected: Projected = crate::files::from_ron(text)?;
    let candidate = Candidate {
        period: 1.0,
        timings: Vec::new(),
        projected: Some(projected),
    };
    if candidate.feasible(FEASIBILITY_TOLERANCE) {
        Ok(())
    } else {
        Err(Refused::InfeasibleSample)
    }
}

/// A finished exploration (`explore`'s `result.ron`), read as the Diversity panel reads it: every
/// motion's path slider at its ends and middle. (`replay` goes on to load the task the result
/// names and simulate it whole, which is not bounded.)
pub fn explore_result(text: &str) -> Result<(), Refused> {
    use crate::diversity::explore::{ExploreResult, path_point};
    let result: ExploreResult = crate::files::from_ron(text)?;
    for i in 0..result.motions.len() {
        for fraction in [0.0, 0.5, 1.0, f64::NAN] {
            let _ = path_point(&result, i, fraction);
        }
    }
    Ok(())
}
