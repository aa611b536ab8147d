//! Where a space job's results go (each clip "tagged" with its parameters, McIntosh 2011, thesis
//! §3.5): a solved point's library clip, tagged with its family and turn rate, a failed one's gait
//! clip set aside, and the manifest line of each.

use super::generate::{Job, Manifest, ManifestEntry, Outcome, SpaceEvent};
use crate::clip::{CharacterRef, Clip};
use crate::spacetime::gait::GaitClip;
use crate::spacetime::job::PoolError;
use anyhow::{Context, Result};
use std::path::{Path, PathBuf};

/// The library clip of a gait clip, tagged.
pub(super) fn library_clip(
    gait: &GaitClip,
    character_path: &Path,
    family: Option<&str>,
) -> Result<Clip> {
    let text = std::fs::read_to_string(character_path)
        .with_context(|| format!("reading {}", character_path.display()))?;
    let character =
        crate::model::load_character(character_path).map_err(|e| anyhow::anyhow!("{e}"))?;
    let mut clip = crate::clip::from_gait::clip_of_gait(
        gait,
        &character,
        CharacterRef::new(character_path, &text),
    )?;
    clip.tags.source = "space".into();
    clip.tags.family = family.map(str::to_string);
    Ok(clip)
}

/// Gives the library clip at `path`, when it was written before clips carried joint torques,
/// the torques of its gait.
pub(super) fn add_torques(path: &Path, gait: &GaitClip, character: &Path) -> Result<()> {
    if !path.exists() {
        return Ok(());
    }
    let mut clip = Clip::load(path)?;
    if clip.torques.is_some() {
        return Ok(());
    }
    clip.torques = library_clip(gait, character, None)?.torques;
    clip.save(path)
        .with_context(|| format!("adding joint torques to {}", path.display()))
}

/// Why a job of the space has no gait clip.
#[derive(Debug, thiserror::Error)]
pub(super) enum Unsolved {
    #[error(transparent)]
    Pool(#[from] PoolError),
    #[error("the mirror image was not written")]
    MirrorNotWritten,
}

/// Where a job's results go.
pub(super) struct Files {
    pub(super) clips: PathBuf,
    pub(super) failed: PathBuf,
    pub(super) manifest: PathBuf,
}

impl Files {
    /// Records how `job` ended (its library clip written when it solved, its gait clip moved to
    /// the failed folder when not) and rewrites the manifest. True if it solved.
    pub(super) fn finish(
        &self,
        job: &Job,
        result: Result<GaitClip, Unsolved>,
        manifest: &mut Manifest,
        on_event: &mut dyn FnMut(SpaceEvent),
    ) -> Result<bool> {
        let outcome = match result {
            Ok(gait) if gait.is_valid() => {
                let character = job.request.creature.clone();
                let mut clip = library_clip(&gait, &character, job.family.as_deref())?;
                clip.tags.turn_rate = Some(job.turn_rate);
                clip.joins = job.joins.clone();
                clip.save(&self.clips.join(format!("{}.ron", job.stem)))
                    .with_context(|| format!("writing the clip of {}", job.name))?;
                let skeleton = crate::spacetime::skeleton::Skeleton::load(&character)?;
                let audit = crate::spacetime::gait::audit(
                    &gait.body(&skeleton)?,
                    &gait,
                    crate::spacetime::gait::MU,
                    crate::spacetime::gait::NU,
                )
                .max();
                on_event(SpaceEvent::Solved {
                    name: job.name.clone(),
                    cost: gait.cost,
                    max_violation: gait.max_violation,
                    seconds: gait.solve_time_s,
                });
                Outcome::Solved {
                    cost: gait.cost,
                    max_violation: gait.max_violation,
                    audit,
                    iterations: gait.iterations,
                    seconds: gait.solve_time_s,
                    warm_start: job.warm_start.clone(),
                    mirror_of: job.mirror_of.clone(),
                    start_kept: gait.start_kept.map(|k| k.cost),
                }
            }
            other => {
                let reason = match other {
                    Ok(gait) => {
                        let from = job.request.out.clone().expect("every job writes a clip");
                        let _ =
                            std::fs::rename(&from, self.failed.join(format!("{}.ron", job.stem)));
                        format!(
                            "the solve ended {} with violation {:.2e}",
                            gait.status, gait.max_violation
                        )
                    }
                    Err(e) => e.to_string(),
                };
                on_event(SpaceEvent::Failed {
                    name: job.name.clone(),
                    reason: reason.clone(),
                });
                Outcome::Failed { reason }
            }
        };
        let solved = matches!(outcome, Outcome::Solved { .. });
        manifest.record(ManifestEntry {
            name: job.name.clone(),
            stem: job.stem.clone(),
            outcome,
        });
        crate::files::write_ron(&self.manifest, manifest)
            .with_context(|| format!("writing {}", self.manifest.display()))?;
        Ok(solved)
    }
}
