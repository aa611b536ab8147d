//! Job folders watched from the Jobs panel: searches running elsewhere (another process, an MPI
//! job on a cluster whose filesystem this machine mounts) read through their folders alone
//! ([`crate::job_folder`]): kind, progress and the age of the last checkpoint while they run;
//! once finished, their result shown in its panel. Nothing remote is attached to.

use crate::app::workbench::{ShowResult, palette};
use crate::job_folder::{FolderView, look, stamp};
use bevy::prelude::*;
use bevy_egui::egui;
use std::path::PathBuf;
use std::time::{Duration, Instant, SystemTime};

type Stamp = (Option<SystemTime>, Option<SystemTime>);

/// One folder watched.
pub struct Watched {
    pub dir: PathBuf,
    /// The files' times when last read.
    stamp: Option<Stamp>,
    /// The last reading, or why the folder does not read.
    pub view: Option<Result<FolderView, String>>,
    /// A reading in flight (a checkpoint may take a second to load).
    reading: Option<std::thread::JoinHandle<Result<FolderView, String>>>,
    polled: Option<Instant>,
}

/// The watched folders and the path being typed.
#[derive(Resource, Default)]
pub struct JobFolders {
    pub folders: Vec<Watched>,
    pub input: String,
}

impl JobFolders {
    pub fn watch(&mut self, dir: PathBuf) {
        if self.folders.iter().any(|w| w.dir == dir) {
            return;
        }
        self.folders.push(Watched {
            dir,
            stamp: None,
            view: None,
            reading: None,
            polled: None,
        });
    }
}

/// Re-reads a folder whose checkpoint or result changed (checked every second), off the
/// frame's thread.
pub fn poll_folders(mut folders: ResMut<JobFolders>) {
    for w in &mut folders.folders {
        if w.reading.as_ref().is_some_and(|h| h.is_finished()) {
            let reading = w.reading.take().expect("checked above");
            w.view = Some(
                reading
                    .join()
                    .unwrap_or_else(|_| Err("reading the folder panicked".into())),
            );
        }
        if w.reading.is_some() || w.polled.is_some_and(|t| t.elapsed() < Duration::from_secs(1)) {
            continue;
        }
        w.polled = Some(Instant::now());
        let now = stamp(&w.dir);
        if w.stamp == Some(now) {
            continue;
        }
        w.stamp = Some(now);
        let dir = w.dir.clone();
        w.reading = Some(std::thread::spawn(move || {
            look(&dir).map_err(|e| e.to_string())
        }));
    }
}

/// "Job folders": a path field, then each folder's kind, progress, age and result.
pub fn folders_ui(ui: &mut egui::Ui, folders: &mut JobFolders, show: &mut MessageWriter<ShowResult>) {
    ui.label(egui::RichText::new("Job folders").strong())
        .on_hover_text(
            "A search running or finished elsewhere (another process, an MPI or Slurm job on a \
             shared filesystem), read from its folder: checkpoint.ron, result.ron",
        );
    ui.horizontal(|ui| {
        ui.add(
            egui::TextEdit::singleline(&mut folders.input)
                .hint_text("results/explore-…")
                .desired_width(220.0),
        );
        if ui.button("Watch").clicked() && !folders.input.trim().is_empty() {
            let dir = PathBuf::from(folders.input.trim());
            folders.input.clear();
            folders.watch(dir);
        }
    });
    let mut forget = None;
    for (i, w) in folders.folders.iter().enumerate() {
        ui.horizontal(|ui| {
            let kind = match &w.view {
                Some(Ok(v)) => v.kind.name(),
                _ => "folder",
            };
            ui.label(format!("{kind} · {}", w.dir.display()));
            if ui.small_button("forget").clicked() {
                forget = Some(i);
            }
        });
        match &w.view {
            None => {
                ui.small("reading…");
            }
            Some(Err(e)) => {
                ui.colored_label(palette::ERR, e);
            }
            Some(Ok(v)) => {
                ui.add(egui::ProgressBar::new(v.fraction).text(v.message.clone()));
                let age = v
                    .written
                    .and_then(|t| SystemTime::now().duration_since(t).ok())
                    .map_or("-".into(), |d| format!("{:.0} s ago", d.as_secs_f64()));
                match &v.result {
                    Some(path) => {
                        ui.horizontal(|ui| {
                            ui.small(format!("finished, result written {age}"));
                            if ui.button("Show").clicked() {
                                // The panel of its kind loads it and opens.
                                show.write(ShowResult {
                                    kind: v.kind,
                                    path: path.clone(),
                                });
                            }
                        });
                    }
                    None => {
                        ui.small(format!("running elsewhere; last checkpoint {age}"));
                    }
                }
            }
        }
        ui.separator();
    }
    if let Some(i) = forget {
        folders.folders.remove(i);
    }
}
