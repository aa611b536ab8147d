//! The Synthesis panel's body: the form, the runs, cost(G) per iteration, the turns tried and
//! the selected run's iterations.

use crate::synthesis::surrogate::Template;
use super::{PANEL, Run, SynthesisState};
use crate::app::workbench::jobs::job_controls;
use crate::app::workbench::{Jobs, SteerGraph, palette};
use crate::jobs::JobStatus;
use bevy::prelude::*;
use bevy_egui::egui;
use egui_plot::{Legend, Line, MarkerShape, Plot, PlotPoints, Points};
use std::path::PathBuf;

pub(super) fn synthesis_ui(
    InMut(ui): InMut<egui::Ui>,
    mut state: ResMut<SynthesisState>,
    mut jobs: ResMut<Jobs>,
    mut steer: MessageWriter<SteerGraph>,
) {
    ui.heading("Controller synthesis");
    ui.small(
        "Grows a motion graph one physically valid clip at a time, each where it lowers the \
         expected cost of the graph's optimal controller most (Wampler 2012, ch. 5).",
    );
    egui::ScrollArea::vertical().id_salt(PANEL).show(ui, |ui| {
        form(ui, &mut state, &mut jobs);
        ui.separator();
        runs(ui, &mut state, &jobs, &mut steer);
        if state.runs.is_empty() {
            return;
        }
        ui.separator();
        cost_plot(ui, &state.runs);
        let selected = state.selected.min(state.runs.len() - 1);
        turns_plot(ui, &state.runs[selected]);
        iterations(ui, &state.runs[selected]);
    });
}

fn form(ui: &mut egui::Ui, st: &mut SynthesisState, jobs: &mut Jobs) {
    egui::Grid::new("synthesis_form")
        .num_columns(2)
        .show(ui, |ui| {
            ui.label("Creature");
            ui.add(egui::TextEdit::singleline(&mut st.creature).desired_width(300.0));
            ui.end_row();
            ui.label("Task")
                .on_hover_text("A task file: the base cycle, the turns searched, the template");
            ui.add(egui::TextEdit::singleline(&mut st.task).desired_width(300.0));
            ui.end_row();
            ui.label("Graph file").on_hover_text(
                "Written after every iteration with its clips in the folder of the same name; \
                 a folder holding a synthesis of the same task resumes",
            );
            ui.add(egui::TextEdit::singleline(&mut st.out).desired_width(300.0));
            ui.end_row();
            ui.label("Stop at");
            ui.horizontal(|ui| {
                ui.add(egui::DragValue::new(&mut st.clips).range(2..=60).suffix(" clips"));
                ui.add(
                    egui::DragValue::new(&mut st.iterations)
                        .range(1..=200)
                        .suffix(" iterations"),
                );
            });
            ui.end_row();
            ui.label("Templates");
            ui.horizontal(|ui| {
                ui.checkbox(&mut st.uniform, "uniform")
                    .on_hover_text("Draw each turn uniformly instead of weighing them (the baseline)");
                ui.add(egui::DragValue::new(&mut st.seed).prefix("seed "));
            });
            ui.end_row();
        });
    ui.horizontal(|ui| {
        if ui.button("Synthesize").clicked() {
            st.start(jobs);
        }
        ui.add(
            egui::TextEdit::singleline(&mut st.show)
                .hint_text("a graph file grown elsewhere")
                .desired_width(190.0),
        );
        if ui.button("Show").clicked() && !st.show.trim().is_empty() {
            let graph = PathBuf::from(st.show.trim());
            st.show.clear();
            st.show(graph);
        }
    });
    if !st.message.is_empty() {
        ui.small(st.message.clone());
    }
}

fn runs(
    ui: &mut egui::Ui,
    st: &mut SynthesisState,
    jobs: &Jobs,
    steer: &mut MessageWriter<SteerGraph>,
) {
    let mut forget = None;
    for (k, run) in st.runs.iter().enumerate() {
        ui.horizontal(|ui| {
            if ui
                .selectable_label(st.selected == k, run.label())
                .on_hover_text(run.graph.display().to_string())
                .clicked()
            {
                st.selected = k;
            }
            let last = run.history.last();
            ui.label(format!(
                "{} clips · cost(G) {}",
                last.map_or(0, |h| h.clips),
                last.map_or("-".into(), |h| format!("{:.3}", h.expected_cost))
            ));
            if ui
                .add_enabled(!run.history.is_empty(), egui::Button::new("Steer"))
                .on_hover_text("Open the graph as it is now in the Steering view, by its policy")
                .clicked()
            {
                steer.write(SteerGraph {
                    graph: run.graph.clone(),
                    policy: true,
                });
            }
            if ui.small_button("forget").clicked() {
                forget = Some(k);
            }
        });
        if let Some(h) = run.job.and_then(|id| jobs.get(id)) {
            if h.is_done() {
                let (colour, said) = match h.status {
                    JobStatus::Finished => (palette::OK, "finished".to_string()),
                    JobStatus::Cancelled => (palette::WARN, "cancelled: synthesize again to resume".to_string()),
                    _ => (palette::ERR, format!("failed: {}", h.error.as_deref().unwrap_or("?"))),
                };
                ui.colored_label(colour, format!("job #{} {said}", h.id));
                continue;
            }
            ui.horizontal(|ui| {
                ui.add(
                    egui::ProgressBar::new(h.progress.fraction)
                        .text(h.progress.message.clone())
                        .desired_width(300.0),
                );
                job_controls(ui, h);
            });
        } else if run.job.is_none() {
            ui.small("read from its folder");
        }
        if let Some((template, line)) = &run.solving {
            ui.small(format!("solving {}: {line}", template.label()));
        }
        if let Some(e) = &run.error {
            ui.colored_label(palette::ERR, e);
        }
    }
    if let Some(k) = forget {
        st.runs.remove(k);
        st.selected = st.selected.min(st.runs.len().saturating_sub(1));
    }
}

/// cost(G) per iteration, every run side by side; failed solves marked.
fn cost_plot(ui: &mut egui::Ui, runs: &[Run]) {
    ui.label(egui::RichText::new("Expected cost of the optimal controller").strong())
        .on_hover_text("cost(G) (Eq. 5.2) after each iteration: the surrogates' search against uniform sampling");
    Plot::new("synthesis_cost")
        .height(170.0)
        .legend(Legend::default())
        .x_axis_label("iteration")
        .y_axis_label("cost(G)")
        .allow_drag(false)
        .allow_scroll(false)
        .show(ui, |plot| {
            for (k, run) in runs.iter().enumerate() {
                let colour = palette::to_egui(palette::SERIES[k % palette::SERIES.len()]);
                let points: Vec<[f64; 2]> = run
                    .history
                    .iter()
                    .map(|h| [h.iteration as f64, h.expected_cost])
                    .collect();
                let failed: Vec<[f64; 2]> = run
                    .history
                    .iter()
                    .filter(|h| !h.solved)
                    .map(|h| [h.iteration as f64, h.expected_cost])
                    .collect();
                plot.line(Line::new(run.label(), PlotPoints::from(points)).color(colour));
                if !failed.is_empty() {
                    plot.points(
                        Points::new(format!("{}: failed", run.label()), PlotPoints::from(failed))
                            .color(palette::ERR)
                            .shape(MarkerShape::Cross)
                            .radius(5.0),
                    );
                }
            }
        });
}

/// The selected run's turns: each solve by iteration and angle (solved or failed), and the
/// last iteration's weighed templates by their predicted cost (the thesis's fig. 5.7); a task
/// with a speed or a facing lists its new cycles (speed and strafe) too.
fn turns_plot(ui: &mut egui::Ui, run: &Run) {
    ui.label(egui::RichText::new(format!("Turns tried · {}", run.label())).strong());
    let by = |solved: bool| -> Vec<[f64; 2]> {
        run.history
            .iter()
            .filter(|h| h.solved == solved)
            .filter_map(|h| match h.sigma? {
                Template::Turn { theta, .. } => Some([theta.to_degrees(), h.iteration as f64]),
                Template::Cycle { .. } => None,
            })
            .collect()
    };
    let cycles: Vec<String> = run
        .history
        .iter()
        .filter_map(|h| {
            let Template::Cycle {
                speed,
                strafe,
                gait,
            } = h.sigma?
            else {
                return None;
            };
            let strafing = if strafe == 0.0 {
                String::new()
            } else {
                format!(" strafing {:+.0}°", strafe.to_degrees())
            };
            // A gait task's other gaits are runs.
            let strafing = if gait == 0 {
                strafing
            } else {
                format!("{strafing} running (gait {gait})")
            };
            Some(format!(
                "{speed:.2} m/s{strafing} at {} ({})",
                h.iteration,
                if h.solved { "solved" } else { "failed" }
            ))
        })
        .collect();
    if !cycles.is_empty() {
        ui.label(format!("New cycles: {}", cycles.join(" · ")));
    }
    Plot::new("synthesis_turns")
        .height(150.0)
        .legend(Legend::default())
        .x_axis_label("turn θ, degrees (left +)")
        .y_axis_label("iteration")
        .allow_drag(false)
        .allow_scroll(false)
        .show(ui, |plot| {
            plot.points(
                Points::new("solved", PlotPoints::from(by(true)))
                    .color(palette::OK)
                    .filled(true)
                    .radius(4.0),
            );
            plot.points(
                Points::new("failed", PlotPoints::from(by(false)))
                    .color(palette::ERR)
                    .shape(MarkerShape::Cross)
                    .radius(5.0),
            );
        });
    let Some(last) = run.history.iter().rev().find(|h| !h.weighed.is_empty()) else {
        return;
    };
    ui.label(format!(
        "Templates weighed at iteration {} (predicted cost, Eq. 5.4)",
        last.iteration
    ));
    let weighed: Vec<[f64; 2]> = last
        .weighed
        .iter()
        .filter(|(t, _)| t.cycle_speed().is_none())
        .map(|(t, c)| [t.theta().to_degrees(), *c])
        .collect();
    let chosen: Vec<[f64; 2]> = last
        .sigma
        .filter(|t| t.cycle_speed().is_none())
        .map(|t| vec![[t.theta().to_degrees(), last.predicted]])
        .unwrap_or_default();
    Plot::new("synthesis_weighed")
        .height(120.0)
        .x_axis_label("turn θ, degrees")
        .y_axis_label("c")
        .allow_drag(false)
        .allow_scroll(false)
        .show(ui, |plot| {
            plot.points(
                Points::new("weighed", PlotPoints::from(weighed))
                    .color(egui::Color32::from_gray(90))
                    .radius(3.0),
            );
            plot.points(
                Points::new("solved next", PlotPoints::from(chosen))
                    .color(egui::Color32::from_rgb(230, 40, 40))
                    .shape(MarkerShape::Circle)
                    .radius(6.0)
                    .filled(false),
            );
        });
}

/// The selected run's iterations, newest first.
fn iterations(ui: &mut egui::Ui, run: &Run) {
    ui.label(egui::RichText::new("Iterations").strong());
    egui::Grid::new("synthesis_iterations")
        .striped(true)
        .num_columns(7)
        .show(ui, |ui| {
            for head in ["#", "template", "solved", "q", "P̃", "cost(G)", "solve s"] {
                ui.label(egui::RichText::new(head).small().strong());
            }
            ui.end_row();
            for h in run.history.iter().rev() {
                ui.label(h.iteration.to_string());
                ui.label(h.template());
                if h.solved {
                    ui.colored_label(palette::OK, "yes");
                } else {
                    ui.colored_label(palette::ERR, "no").on_hover_text(h.status.clone());
                }
                ui.label(format!("{:.3}", h.quality));
                ui.label(format!("{:.2}", h.probability));
                ui.label(format!("{:.3}", h.expected_cost));
                ui.label(format!("{:.0}", h.solve_time_s));
                ui.end_row();
            }
        });
}
