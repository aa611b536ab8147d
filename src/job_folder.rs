//! A job's folder read from the outside: what a search started elsewhere (another process, an
//! MPI job on a cluster whose filesystem this machine mounts, a Slurm job) has done so far. The
//! folder is the whole interface: `checkpoint.ron` while the job runs, `result.ron` once it has
//! finished (docs/jobs-and-files.md); nothing remote is attached to. A folder is read the same
//! way whether it is local or shared.

use crate::jobs::Job;
use std::path::{Path, PathBuf};
use std::time::SystemTime;

/// The searches whose folders can be read.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FolderKind {
    /// `motionlab explore`: diverse variants (the Diversity panel).
    Explore,
    /// `motionlab pareto`: a Pareto front (the Pareto panel).
    Pareto,
    /// `motionlab track`: Keys-to-Sim tracking (the Keys-to-Sim panel).
    Track,
}

impl FolderKind {
    pub fn name(self) -> &'static str {
        match self {
            FolderKind::Explore => "exploration",
            FolderKind::Pareto => "Pareto run",
            FolderKind::Track => "tracking search",
        }
    }
}

/// What a job's folder shows.
#[derive(Clone, Debug, PartialEq)]
pub struct FolderView {
    pub kind: FolderKind,
    /// The finished result (`result.ron`), or `None` while the job runs.
    pub result: Option<PathBuf>,
    /// Done fraction in [0, 1] (1 once finished) and the job's own progress message.
    pub fraction: f32,
    pub message: String,
    /// When the file read was last written (the checkpoint of a running job: a job whose last
    /// checkpoint is old may have stopped).
    pub written: Option<SystemTime>,
}

/// Why a folder cannot be read as a job's.
#[derive(Debug, thiserror::Error)]
pub enum FolderError {
    #[error("{0} holds neither checkpoint.ron nor result.ron: not a job's folder")]
    NotAJob(PathBuf),
    #[error(
        "{path}: not the checkpoint or result of an exploration, a Pareto run or a tracking search \
         ({why}); the files a checkpoint names are read from this program's working directory, \
         as `--resume` reads them: start it in the folder the job was started from"
    )]
    Unknown { path: PathBuf, why: String },
}

/// The files that tell whether `dir` changed since last read: the checkpoint's and the
/// result's modification times.
pub fn stamp(dir: &Path) -> (Option<SystemTime>, Option<SystemTime>) {
    let modified = |f: &str| {
        std::fs::metadata(dir.join(f))
            .and_then(|m| m.modified())
            .ok()
    };
    (modified("checkpoint.ron"), modified("result.ron"))
}

/// Reads the job folder `dir`: its finished result if it has one, else its checkpoint.
pub fn look(dir: &Path) -> Result<FolderView, FolderError> {
    let (checkpoint, result) = (dir.join("checkpoint.ron"), dir.join("result.ron"));
    let (cp_time, result_time) = stamp(dir);
    // A job's checkpoint goes once its result is written; a checkpoint newer than a result is
    // a run resumed into the same folder.
    let finished = result_time.is_some() && cp_time.is_none_or(|c| Some(c) <= result_time);
    if finished {
        let kind = result_kind(&result)?;
        return Ok(FolderView {
            kind,
            result: Some(result),
            fraction: 1.0,
            message: "finished".into(),
            written: result_time,
        });
    }
    if cp_time.is_none() {
        return Err(FolderError::NotAJob(dir.to_path_buf()));
    }
    let text = std::fs::read_to_string(&checkpoint).map_err(|e| FolderError::Unknown {
        path: checkpoint.clone(),
        why: e.to_string(),
    })?;
    let mut why = Vec::new();
    let mut job = |kind: FolderKind, j: anyhow::Result<Box<dyn Job>>| match j {
        Ok(j) => Some((kind, j)),
        Err(e) => {
            why.push(format!("as {}: {e:#}", kind.name()));
            None
        }
    };
    let found = job(
        FolderKind::Explore,
        crate::diversity::explore::DiversityJob::from_checkpoint(&text)
            .map(|j| Box::new(j) as Box<dyn Job>),
    )
    .or_else(|| {
        job(
            FolderKind::Pareto,
            crate::pareto::ParetoRun::from_checkpoint(&text).map(|j| Box::new(j) as Box<dyn Job>),
        )
    })
    .or_else(|| {
        job(
            FolderKind::Track,
            crate::track::TrackJob::from_checkpoint(&text).map(|j| Box::new(j) as Box<dyn Job>),
        )
    });
    let Some((kind, job)) = found else {
        return Err(FolderError::Unknown {
            path: checkpoint,
            why: why.join("; "),
        });
    };
    let progress = job.progress();
    Ok(FolderView {
        kind,
        result: None,
        fraction: progress.fraction,
        message: progress.message,
        written: cp_time,
    })
}

/// Which search wrote the result file `path`.
fn result_kind(path: &Path) -> Result<FolderKind, FolderError> {
    let mut why = Vec::new();
    let mut note = |kind: FolderKind, r: anyhow::Result<()>| match r {
        Ok(()) => Some(kind),
        Err(e) => {
            why.push(format!("as {}: {e:#}", kind.name()));
            None
        }
    };
    note(
        FolderKind::Explore,
        crate::diversity::explore::load_result(path).map(|_| ()),
    )
    .or_else(|| {
        note(
            FolderKind::Pareto,
            crate::pareto::load_result(path).map(|_| ()),
        )
    })
    .or_else(|| {
        note(
            FolderKind::Track,
            crate::files::read_ron::<crate::track::TrackResult>(path).map(|_| ()),
        )
    })
    .ok_or_else(|| FolderError::Unknown {
        path: path.to_path_buf(),
        why: why.join("; "),
    })
}
