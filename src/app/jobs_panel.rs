//! Jobs panel: starts background jobs on the job runner's own pool, shows their progress with
//! pause, resume and cancel, and draws finished robustness sweeps as a polar plot.

use super::AppOptions;
use super::character::LiveSim;
use crate::analysis::robustness::{RobustnessSweep, SweepConfig, SweepState};
use crate::jobs::{JobHandle, JobRunner, JobStatus};
use bevy::prelude::*;
use bevy_egui::egui;
use egui_plot::{Line, Plot, PlotPoints, Points, Polygon, Text};

pub struct JobsPanelPlugin;

impl Plugin for JobsPanelPlugin {
    fn build(&self, app: &mut App) {
        app.add_systems(Startup, setup_jobs)
            .add_systems(Update, (poll_jobs, start_sweep_on_launch));
    }
}

pub struct JobEntry {
    pub handle: JobHandle,
    pub sweep: Option<SweepState>,
}

#[derive(Resource)]
pub struct JobsState {
    pub runner: Option<JobRunner>,
    pub entries: Vec<JobEntry>,
    pub error: Option<String>,
}

fn setup_jobs(mut commands: Commands) {
    let (runner, error) = match JobRunner::new(0, "results") {
        Ok(r) => (Some(r), None),
        Err(e) => (None, Some(format!("cannot start the job pool: {e}"))),
    };
    commands.insert_resource(JobsState {
        runner,
        entries: Vec::new(),
        error,
    });
}

fn start_sweep_on_launch(
    options: Res<AppOptions>,
    mut done: Local<bool>,
    mut jobs: ResMut<JobsState>,
    live: Res<LiveSim>,
) {
    if options.start_sweep && !*done {
        *done = true;
        start_sweep(&mut jobs, &live);
    }
}

pub fn start_sweep(jobs: &mut JobsState, live: &LiveSim) {
    let Some(runner) = &jobs.runner else { return };
    match RobustnessSweep::new(
        live.character.clone(),
        live.settings,
        SweepConfig::default(),
    ) {
        Ok(job) => {
            let handle = runner.spawn(Box::new(job), None);
            jobs.entries.push(JobEntry {
                handle,
                sweep: None,
            });
        }
        Err(e) => jobs.error = Some(format!("{e:#}")),
    }
}

fn poll_jobs(mut jobs: ResMut<JobsState>) {
    for entry in &mut jobs.entries {
        entry.handle.poll();
        if entry.handle.status == JobStatus::Finished && entry.sweep.is_none() {
            if let Some(path) = &entry.handle.result {
                entry.sweep = std::fs::read_to_string(path)
                    .ok()
                    .and_then(|t| crate::files::from_ron(&t).ok());
            }
        }
    }
}

/// Largest survived impulse per direction, drawn in the push plane.
pub fn polar_plot(
    ui: &mut egui::Ui,
    id: &str,
    labels_dirs_values: &[(String, [f32; 3], f32)],
    planar: bool,
) {
    let pts: Vec<[f64; 2]> = labels_dirs_values
        .iter()
        .map(|(_, d, v)| {
            let (x, y) = if planar { (d[0], d[1]) } else { (d[0], d[2]) };
            [(x * v) as f64, (y * v) as f64]
        })
        .collect();
    let rmax = labels_dirs_values
        .iter()
        .map(|x| x.2)
        .fold(1.0f32, f32::max) as f64;
    Plot::new(id.to_string())
        .data_aspect(1.0)
        .height(260.0)
        .show_axes([false, false])
        .allow_drag(false)
        .show(ui, |plot| {
            for k in 1..=4 {
                let r = rmax * k as f64 / 4.0;
                let circle: Vec<[f64; 2]> = (0..=64)
                    .map(|i| {
                        let a = std::f64::consts::TAU * i as f64 / 64.0;
                        [r * a.cos(), r * a.sin()]
                    })
                    .collect();
                plot.line(
                    Line::new(format!("{r:.0} N·s"), PlotPoints::from(circle))
                        .color(egui::Color32::from_gray(170))
                        .width(0.5),
                );
            }
            plot.polygon(
                Polygon::new("max survived impulse", PlotPoints::from(pts.clone()))
                    .fill_color(egui::Color32::from_rgba_unmultiplied(60, 140, 220, 60)),
            );
            plot.points(
                Points::new("directions", PlotPoints::from(pts))
                    .radius(4.0)
                    .color(egui::Color32::from_rgb(30, 90, 200)),
            );
            for (label, d, _) in labels_dirs_values {
                let (x, y) = if planar { (d[0], d[1]) } else { (d[0], d[2]) };
                let p = egui_plot::PlotPoint::new(x as f64 * rmax * 1.12, y as f64 * rmax * 1.12);
                plot.text(Text::new(label.clone(), p, label.clone()));
            }
        });
}

pub fn jobs_ui(ui: &mut egui::Ui, jobs: &mut JobsState, live: &LiveSim) {
    ui.heading("Jobs");
    if let Some(e) = &jobs.error {
        ui.colored_label(egui::Color32::RED, e);
    }
    if let Some(r) = &jobs.runner {
        ui.small(format!(
            "{} worker threads · results in {}",
            r.threads(),
            r.results_dir().display()
        ));
    }
    if ui.button("Robustness sweep").on_hover_text("Push the standing character in 8 directions; find the largest impulse it survives in each").clicked() {
        start_sweep(jobs, live);
    }
    ui.separator();
    egui::ScrollArea::vertical().show(ui, |ui| {
        for (i, entry) in jobs.entries.iter_mut().enumerate().rev() {
            let h = &entry.handle;
            ui.label(egui::RichText::new(format!("#{} {}", h.id, h.title)).strong());
            ui.add(egui::ProgressBar::new(h.progress.fraction).show_percentage());
            ui.small(format!("{:?} · {}", h.status, h.progress.message));
            if let Some(e) = &h.error {
                ui.colored_label(egui::Color32::RED, e);
            }
            ui.horizontal(|ui| job_controls(ui, h));
            // Live bounds while running, final result when done.
            let planar = live.character.root.kind == crate::model::RootKind::Planar;
            // The finished sweep's result, or the running sweep's live state.
            let live = h
                .progress
                .detail::<crate::analysis::robustness::SweepState>();
            let values: Vec<(String, [f32; 3], f32)> = match entry.sweep.as_ref().or(live) {
                Some(s) => s
                    .bounds
                    .iter()
                    .map(|b| (b.label.clone(), b.direction, b.survived))
                    .collect(),
                None => Vec::new(),
            };
            if !values.is_empty() {
                let planar = entry
                    .sweep
                    .as_ref()
                    .or(live)
                    .map(|s| s.character.root.kind == crate::model::RootKind::Planar)
                    .unwrap_or(planar);
                polar_plot(ui, &format!("polar{i}"), &values, planar);
                egui::Grid::new(format!("sweep{i}"))
                    .striped(true)
                    .show(ui, |ui| {
                        ui.label("direction");
                        ui.label("survives (N·s)");
                        ui.end_row();
                        for (l, _, v) in &values {
                            ui.label(l);
                            ui.label(format!("{v:.0}"));
                            ui.end_row();
                        }
                    });
            }
            ui.separator();
        }
    });
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
