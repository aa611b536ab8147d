//! The Keys-to-Sim window: what to track and how, the session's searches (progress, pause,
//! cancel, resume, play, save), the paper's Fig. 7 for one of them, and the playback scrubber.

use super::*;
use crate::app::workbench::jobs::job_controls;
use crate::app::workbench::palette;
use bevy_egui::egui;
use egui_plot::{Legend, Line, MarkerShape, Plot, PlotPoints, Points};

/// The panel's content (in the right dock).
pub(super) fn track_ui(
    InMut(ui): InMut<egui::Ui>,
    mut state: ResMut<TrackState>,
    mut jobs: ResMut<Jobs>,
) {
    let (st, jobs) = (&mut *state, &mut *jobs);
    ui.heading("Keys-to-Sim");
    egui::ScrollArea::vertical()
        .auto_shrink([false, false])
        .show(ui, |ui| {
            setup_controls(ui, st, jobs);
            ui.separator();
            runs(ui, st, jobs);
            ui.separator();
            fig7(ui, st);
            ui.separator();
            scrubber(ui, st);
        });
}

fn setup_controls(ui: &mut egui::Ui, st: &mut TrackState, jobs: &mut Jobs) {
    ui.horizontal(|ui| {
        ui.label("Clip");
        egui::ComboBox::from_id_salt("track_clip")
            .width(260.0)
            .selected_text(st.clip.as_deref().map(name_of).unwrap_or_default())
            .show_ui(ui, |ui| {
                for c in st.clips.clone() {
                    let n = name_of(&c);
                    ui.selectable_value(&mut st.clip, Some(c), n);
                }
            });
        if ui
            .button("Open…")
            .on_hover_text("a clip, keyframes, BVH or glTF animation (or drop a file here)")
            .clicked()
            && let Some(p) = rfd::FileDialog::new()
                .add_filter("motion", &["ron", "bvh", "glb", "gltf"])
                .pick_file()
        {
            if !st.clips.contains(&p) {
                st.clips.push(p.clone());
            }
            st.clip = Some(p);
        }
    });
    ui.horizontal(|ui| {
        ui.label("Character");
        egui::ComboBox::from_id_salt("track_character")
            .width(200.0)
            .selected_text(
                st.character
                    .as_deref()
                    .map(name_of)
                    .unwrap_or_else(|| "the clip's own".into()),
            )
            .show_ui(ui, |ui| {
                ui.selectable_value(&mut st.character, None, "the clip's own");
                for c in st.characters.clone() {
                    let n = name_of(&c);
                    ui.selectable_value(&mut st.character, Some(c), n);
                }
            });
    });
    let s = &mut st.settings;
    ui.horizontal(|ui| {
        ui.label("k").on_hover_text("samples kept per window (1: greedy)");
        ui.add(egui::DragValue::new(&mut s.keep).range(1..=200));
        ui.label("n").on_hover_text("samples stored per window");
        ui.add(egui::DragValue::new(&mut s.samples).range(1..=10_000));
        ui.label("generations");
        ui.add(egui::DragValue::new(&mut s.generations).range(1..=10_000));
        ui.label("population");
        ui.add(egui::DragValue::new(&mut s.population).range(2..=1000));
        ui.label("seed");
        ui.add(egui::DragValue::new(&mut s.seed).range(1..=1_000_000));
    });
    ui.horizontal(|ui| {
        ui.checkbox(&mut st.greedy_too, "greedy beside it (k = 1)");
        if ui.button("Paper's settings").clicked() {
            let seed = st.settings.seed;
            st.settings = TrackSettings {
                seed,
                ..TrackSettings::default()
            };
        }
        if ui.button("Start").clicked() {
            st.start(jobs);
        }
        if ui.button("Load result…").clicked()
            && let Some(p) = rfd::FileDialog::new()
                .add_filter("tracking result", &["ron"])
                .pick_file()
        {
            st.add_result(&p);
        }
    });
    if !st.message.is_empty() {
        ui.small(st.message.clone());
    }
}

/// The session's searches, one row each.
fn runs(ui: &mut egui::Ui, st: &mut TrackState, jobs: &mut Jobs) {
    if st.runs.is_empty() {
        ui.label("Start a search or load a result (motionlab track --out DIR writes DIR/result.ron).");
        return;
    }
    let mut resume = None;
    let mut save = None;
    let mut changed = false;
    let mut slot = 0;
    for (i, run) in st.runs.iter_mut().enumerate() {
        ui.horizontal(|ui| {
            ui.radio_value(&mut st.plotted, i, "")
                .on_hover_text("plot its windows");
            if run.play && run.shown.is_some() {
                ui.colored_label(palette::to_egui(palette::slot_tint(slot)), run.label.clone());
                slot += 1;
            } else {
                ui.label(run.label.clone());
            }
        });
        ui.horizontal(|ui| {
            let handle = run.job.and_then(|id| jobs.get(id));
            if let Some(h) = handle {
                ui.add(
                    egui::ProgressBar::new(h.progress.fraction)
                        .desired_width(220.0)
                        .text(h.progress.message.clone()),
                );
                job_controls(ui, h);
                let stopped = matches!(h.status, JobStatus::Cancelled | JobStatus::Failed);
                if stopped
                    && run
                        .folder
                        .as_ref()
                        .is_some_and(|f| f.join("checkpoint.ron").is_file())
                    && ui.button("Resume").on_hover_text("from its checkpoint").clicked()
                {
                    resume = Some(i);
                }
                if let Some(e) = &h.error {
                    ui.colored_label(palette::ERR, e.clone());
                }
            }
            if let Some(s) = &run.shown {
                let m = &s.result.metrics;
                if ui.checkbox(&mut run.play, "play").changed() {
                    changed = true;
                }
                ui.colored_label(
                    if m.fell { palette::ERR } else { palette::OK },
                    if m.fell { "fell" } else { "stayed up" },
                );
                ui.label(format!(
                    "cost {:.3} · root {:.3} m · end effectors {:.3} m",
                    m.cost, m.root_error_median_m, m.ee_error_median_m
                ));
                if ui.button("Save clip").clicked() {
                    save = Some(i);
                }
            }
        });
    }
    if changed {
        st.generation += 1;
        st.clock = 0.0;
    }
    if let Some(i) = resume {
        st.resume(i, jobs);
    }
    if let Some(i) = save {
        st.save_clip(i);
    }
    ui.horizontal(|ui| {
        ui.label("clips to");
        ui.text_edit_singleline(&mut st.clip_dir);
    });
}

/// Grey: every generated sample; blue: the kept ones; orange: the chain followed back from
/// the cheapest (Borer et al. 2018, Fig. 7), cost against the window's start.
fn fig7(ui: &mut egui::Ui, st: &TrackState) {
    let Some(run) = st.runs.get(st.plotted) else {
        return;
    };
    let windows = run.windows();
    ui.label(
        egui::RichText::new(format!(
            "Samples per window ({}): generated, kept, and the final chain",
            run.label
        ))
        .small()
        .strong(),
    );
    let log = |c: f64| c.max(1e-9).log10();
    let generated: Vec<[f64; 2]> = windows
        .iter()
        .flat_map(|w| w.generated.iter().map(move |&c| [w.start, log(c)]))
        .collect();
    let kept: Vec<[f64; 2]> = windows
        .iter()
        .flat_map(|w| w.kept_samples.iter().map(move |k| [w.start, log(k.sample.cost)]))
        .collect();
    let chain: Vec<[f64; 2]> = crate::track::best_chain(windows)
        .iter()
        .zip(windows)
        .map(|(&k, w)| [w.start, log(w.kept_samples[k].sample.cost)])
        .collect();
    let (blue, orange) = (palette::SERIES[0], palette::SERIES[1]);
    Plot::new("track_fig7")
        .height(220.0)
        .legend(Legend::default())
        .x_axis_label("window start (s)")
        .y_axis_label("log10 window cost")
        .show(ui, |p| {
            p.points(
                Points::new("generated", PlotPoints::from(generated))
                    .radius(1.5)
                    .color(egui::Color32::from_gray(150)),
            );
            p.points(
                Points::new("kept", PlotPoints::from(kept))
                    .radius(3.0)
                    .shape(MarkerShape::Circle)
                    .color(palette::to_egui(blue)),
            );
            p.line(
                Line::new("final chain", PlotPoints::from(chain.clone()))
                    .color(palette::to_egui(orange))
                    .width(2.0),
            );
            p.points(
                Points::new("final chain", PlotPoints::from(chain))
                    .radius(4.0)
                    .shape(MarkerShape::Diamond)
                    .color(palette::to_egui(orange)),
            );
        });
    if let Some(w) = windows.last() {
        ui.small(format!(
            "{} windows · last: {} rollouts, {:.0} % stopped early",
            windows.len(),
            w.rollouts,
            100.0 * w.stopped_early as f64 / w.rollouts.max(1) as f64
        ));
    }
}

fn scrubber(ui: &mut egui::Ui, st: &mut TrackState) {
    let d = st.duration();
    if d <= 0.0 {
        return;
    }
    ui.horizontal(|ui| {
        if ui
            .button(if st.playing { "Pause" } else { "Play" })
            .clicked()
        {
            st.playing = !st.playing;
        }
        ui.add(egui::Slider::new(&mut st.clock, 0.0..=d).text("s"));
    });
    ui.small("Grey ghost: the target; solid: the simulated characters, in the rows' colours.");
}
