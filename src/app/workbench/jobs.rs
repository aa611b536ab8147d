//! Every long-running job of the session, whoever started it: the one job runner (its own
//! thread pool, results under `results/`), the handles of the jobs it runs, polled once a frame.
//! Panels start jobs here and keep their ids; the Jobs panel lists them all with pause, resume
//! and cancel. Closing the app cancels what still runs (a job's child processes with it).

use super::Busy;
use crate::jobs::{Job, JobHandle, JobRunner, JobStatus};
use bevy::prelude::*;
use bevy_egui::egui;
use std::path::PathBuf;

/// Why a job cannot start: the job pool did not start (its reason, when known).
#[derive(Clone, Debug, thiserror::Error)]
#[error("{}", .reason.as_deref().unwrap_or("no job pool"))]
pub struct NoJobPool {
    pub reason: Option<String>,
}

/// The session's jobs.
#[derive(Resource)]
pub struct Jobs {
    runner: Option<JobRunner>,
    handles: Vec<JobHandle>,
    /// Why the runner could not start, if it could not.
    pub error: Option<String>,
}

impl Jobs {
    fn new() -> Self {
        match JobRunner::new(0, "results") {
            Ok(r) => Jobs {
                runner: Some(r),
                handles: Vec::new(),
                error: None,
            },
            Err(e) => Jobs {
                runner: None,
                handles: Vec::new(),
                error: Some(format!("cannot start the job pool: {e}")),
            },
        }
    }

    /// Starts `job` (in `folder`, or a new folder under `results/`); its id.
    pub fn spawn(&mut self, job: Box<dyn Job>, folder: Option<PathBuf>) -> Result<u64, NoJobPool> {
        let runner = self.runner.as_ref().ok_or_else(|| NoJobPool {
            reason: self.error.clone(),
        })?;
        let handle = runner.spawn(job, folder);
        let id = handle.id;
        self.handles.push(handle);
        Ok(id)
    }

    /// The job with this id.
    pub fn get(&self, id: u64) -> Option<&JobHandle> {
        self.handles.iter().find(|h| h.id == id)
    }

    /// Every job of the session, oldest first.
    pub fn all(&self) -> &[JobHandle] {
        &self.handles
    }

    /// Cancels job `id` if it still runs.
    pub fn cancel(&self, id: u64) {
        if let Some(h) = self.get(id)
            && !h.is_done()
        {
            h.cancel();
        }
    }

    /// Worker threads and results folder, for the Jobs panel.
    pub fn runner_info(&self) -> Option<(usize, PathBuf)> {
        self.runner
            .as_ref()
            .map(|r| (r.threads(), r.results_dir().to_path_buf()))
    }
}

impl Drop for Jobs {
    /// Cancels the jobs that still run and gives each a moment to stop (a job stops between
    /// steps; one that runs child processes ends them as it stops).
    fn drop(&mut self) {
        for h in &self.handles {
            if !h.is_done() {
                h.cancel();
            }
        }
        let until = std::time::Instant::now() + std::time::Duration::from_secs(3);
        for h in &mut self.handles {
            while !h.is_done() && std::time::Instant::now() < until {
                h.poll();
                std::thread::sleep(std::time::Duration::from_millis(10));
            }
        }
    }
}

pub(super) struct JobsPlugin;

impl Plugin for JobsPlugin {
    fn build(&self, app: &mut App) {
        app.insert_resource(Jobs::new())
            .add_systems(PreUpdate, poll_jobs);
    }
}

/// Polls every job; a running job that has not reported its first step yet is work in flight.
fn poll_jobs(mut jobs: ResMut<Jobs>, mut busy: ResMut<Busy>) {
    for h in &mut jobs.handles {
        h.poll();
        if h.status == JobStatus::Running && h.steps == 0 {
            busy.add(
                "jobs",
                format!("#{} {} has not reported yet", h.id, h.title),
            );
        }
    }
}

/// Pause/Resume and Cancel buttons for a running job (nothing once it is done).
pub fn job_controls(ui: &mut egui::Ui, h: &JobHandle) {
    if h.is_done() {
        return;
    }
    if h.status == JobStatus::Paused {
        if ui.button("Resume").clicked() {
            h.resume();
        }
    } else if ui.button("Pause").clicked() {
        h.pause();
    }
    if ui.button("Cancel").clicked() {
        h.cancel();
    }
}
