//! Jobs panel: starts background jobs on the job runner's own pool, shows their progress with
//! pause, resume and cancel, draws finished robustness sweeps as a polar plot, and watches the
//! folders of jobs that run elsewhere ([`folders`]).

mod folders;

use super::character::LiveSim;
use super::workbench::jobs::job_controls;
use super::workbench::{AddPanel, Busy, Dock, Jobs, OpenPanel, PanelSpec, ShowResult, palette};
use folders::JobFolders;
use crate::analysis::robustness::{RobustnessSweep, SweepConfig, SweepState};
use crate::jobs::JobStatus;
use bevy::prelude::*;
use bevy_egui::egui;
use egui_plot::{Line, Plot, PlotPoints, Points, Polygon, Text};
use std::collections::BTreeMap;

/// The Jobs panel's launch options.
#[derive(clap::Args, Resource, Clone, Debug, Default)]
#[group(skip)]
pub struct Launch {
    /// Start the robustness sweep job immediately (shows the Jobs panel at work).
    #[arg(long)]
    pub sweep: bool,
    /// Watch this job's folder in the Jobs panel: a search running or finished elsewhere (an
    /// MPI or Slurm job on a shared filesystem); repeat for several.
    #[arg(long, value_name = "DIR")]
    pub watch: Vec<std::path::PathBuf>,
}

pub struct JobsPanelPlugin(pub Launch);

impl Plugin for JobsPanelPlugin {
    fn build(&self, app: &mut App) {
        app.insert_resource(self.0.clone())
            .init_resource::<Sweeps>()
            .init_resource::<JobFolders>()
            .add_systems(
                Update,
                (
                    read_sweeps,
                    start_sweep_on_launch,
                    watch_on_launch,
                    folders::poll_folders,
                ),
            )
            .add_panel(
                PanelSpec {
                    id: "jobs",
                    title: "Jobs",
                    hover: "Every background job of the session, with pause, resume and cancel",
                    dock: Dock::Right {
                        width: 360.0,
                        fallback: true,
                    },
                    order: 90,
                    open: false,
                },
                jobs_ui,
            );
    }
}

/// Finished robustness sweeps' results, by job id.
#[derive(Resource, Default)]
struct Sweeps(BTreeMap<u64, SweepState>);

fn start_sweep_on_launch(
    options: Res<Launch>,
    mut done: Local<bool>,
    mut jobs: ResMut<Jobs>,
    mut sweeps: ResMut<Sweeps>,
    live: Res<LiveSim>,
) {
    if options.sweep && !*done {
        *done = true;
        start_sweep(&mut jobs, &mut sweeps, &live);
    }
}

/// `--watch DIR…`: the folders watched and the panel open.
fn watch_on_launch(
    options: Res<Launch>,
    mut done: Local<bool>,
    mut folders: ResMut<JobFolders>,
    mut open: MessageWriter<OpenPanel>,
) {
    if *done {
        return;
    }
    *done = true;
    for dir in &options.watch {
        folders.watch(dir.clone());
    }
    if !options.watch.is_empty() {
        open.write(OpenPanel {
            id: "jobs",
            open: true,
        });
    }
}

fn start_sweep(jobs: &mut Jobs, sweeps: &mut Sweeps, live: &LiveSim) {
    match RobustnessSweep::new(
        live.character.clone(),
        live.settings,
        SweepConfig::default(),
    ) {
        Ok(job) => match jobs.spawn(Box::new(job), None) {
            Ok(id) => {
                sweeps.0.remove(&id);
            }
            Err(e) => jobs.error = Some(e.to_string()),
        },
        Err(e) => jobs.error = Some(format!("{e:#}")),
    }
}

/// Reads each finished sweep's result once; a sweep that has not written its first checkpoint
/// is work in flight.
fn read_sweeps(jobs: Res<Jobs>, mut sweeps: ResMut<Sweeps>, mut busy: ResMut<Busy>) {
    for h in jobs.all().iter().filter(|h| h.kind == "robustness") {
        if h.status == JobStatus::Running && h.checkpoints == 0 {
            busy.add("jobs", format!("sweep #{} has no checkpoint yet", h.id));
        }
        if h.status == JobStatus::Finished
            && !sweeps.0.contains_key(&h.id)
            && let Some(path) = &h.result
            && let Some(s) = std::fs::read_to_string(path)
                .ok()
                .and_then(|t| crate::files::from_ron(&t).ok())
        {
            sweeps.0.insert(h.id, s);
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

fn jobs_ui(
    InMut(ui): InMut<egui::Ui>,
    mut jobs: ResMut<Jobs>,
    mut sweeps: ResMut<Sweeps>,
    live: Res<LiveSim>,
    mut folders: ResMut<JobFolders>,
    mut show: MessageWriter<ShowResult>,
) {
    ui.heading("Jobs");
    if let Some(e) = &jobs.error {
        ui.colored_label(palette::ERR, e);
    }
    if let Some((threads, dir)) = jobs.runner_info() {
        ui.small(format!(
            "{threads} worker threads · results in {}",
            dir.display()
        ));
    }
    if ui.button("Robustness sweep").on_hover_text("Push the standing character in 8 directions; find the largest impulse it survives in each").clicked() {
        start_sweep(&mut jobs, &mut sweeps, &live);
    }
    ui.separator();
    egui::ScrollArea::vertical().show(ui, |ui| {
        folders::folders_ui(ui, &mut folders, &mut show);
        for (i, h) in jobs.all().iter().enumerate().rev() {
            ui.label(egui::RichText::new(format!("#{} {} · {}", h.id, h.kind, h.title)).strong());
            ui.add(egui::ProgressBar::new(h.progress.fraction).show_percentage());
            ui.small(format!("{:?} · {}", h.status, h.progress.message));
            if let Some(e) = &h.error {
                ui.colored_label(palette::ERR, e);
            }
            ui.horizontal(|ui| job_controls(ui, h));
            // The finished sweep's result, or the running sweep's live state.
            let state = sweeps.0.get(&h.id).or(h.progress.detail::<SweepState>());
            if let Some(s) = state {
                let values: Vec<(String, [f32; 3], f32)> = s
                    .bounds
                    .iter()
                    .map(|b| (b.label.clone(), b.direction, b.survived))
                    .collect();
                let planar = s.character.root.kind == crate::model::RootKind::Planar;
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
