//! The Pareto window: run controls, the live front over every sample with the regime boundary,
//! the hypervolume of every run per rollout, and the front as a table (Table 4.2's columns and
//! the height), whose rows and plot points select the jumps that play.

use super::*;
use egui_plot::{Legend, Line, LineStyle, MarkerShape, Plot, PlotPoints, Points, VLine};

fn colour32(rgb: [f32; 3]) -> egui::Color32 {
    crate::app::workbench::palette::to_egui(rgb)
}

/// Most samples drawn in the scatter (evenly strided over the run).
const MAX_SAMPLES_DRAWN: usize = 4000;

/// The panel's content (shown in the workbench's right panel, in place of the Jobs panel).
pub(super) fn pareto_ui(
    InMut(ui): InMut<egui::Ui>,
    mut state: ResMut<ParetoState>,
    mut jobs: ResMut<Jobs>,
) {
    let (st, jobs) = (&mut *state, &mut *jobs);
    ui.heading("Pareto front");
    egui::ScrollArea::vertical()
        .auto_shrink([false, false])
        .show(ui, |ui| {
            controls(ui, st, jobs);
            ui.separator();
            front_plot(ui, st);
            hypervolume_plot(ui, st);
            ui.separator();
            table(ui, st);
        });
}

fn controls(ui: &mut egui::Ui, st: &mut ParetoState, jobs: &mut Jobs) {
    ui.horizontal(|ui| {
        ui.label("Scene");
        let name = |p: &PathBuf| {
            p.file_name()
                .map(|n| n.to_string_lossy().into_owned())
                .unwrap_or_default()
        };
        egui::ComboBox::from_id_salt("pareto_scene")
            .selected_text(st.scene.as_ref().map(name).unwrap_or_default())
            .show_ui(ui, |ui| {
                for s in st.scenes.clone() {
                    let n = name(&s);
                    ui.selectable_value(&mut st.scene, Some(s), n);
                }
            });
        for m in [Method::Rmoo, Method::Bsoo, Method::Mocma] {
            ui.radio_value(&mut st.method, m, method_label(m));
        }
    });
    ui.horizontal(|ui| {
        ui.label("seed");
        ui.add(egui::DragValue::new(&mut st.seed).range(1..=9999));
        ui.label(if st.method == Method::Bsoo {
            "generations per bin"
        } else {
            "generations"
        });
        ui.add(egui::DragValue::new(&mut st.generations).range(1..=100_000));
        let running = st.job(jobs).is_some_and(|h| !h.is_done());
        if running {
            if ui.button("Cancel").clicked()
                && let Some(id) = st.job
            {
                jobs.cancel(id);
            }
        } else if ui.button("Start").clicked() {
            st.start(jobs);
        }
        if ui.button("Load result…").clicked()
            && let Some(p) = rfd::FileDialog::new()
                .add_filter("Pareto result", &["ron"])
                .pick_file()
        {
            st.load(&p);
        }
    });
    if let Some(h) = st.job(jobs) {
        ui.add(egui::ProgressBar::new(h.progress.fraction).text(h.progress.message.clone()));
    }
    if let Some(r) = &st.result {
        let natural = r.front.iter().filter(|p| p.outcome.is_natural()).count();
        let top = r
            .front
            .iter()
            .filter(|p| p.outcome.is_natural())
            .map(|p| p.outcome.height)
            .fold(f64::NAN, f64::max);
        ui.label(format!(
            "{} · generation {} · {} rollouts · {} front points ({natural} natural, highest natural head {:.2} m) · hypervolume {:.3}",
            method_label(r.config.method),
            r.generations,
            r.evaluations,
            r.front.len(),
            top,
            r.hypervolume
        ));
    }
    if !st.message.is_empty() {
        ui.small(st.message.clone());
    }
}

fn front_plot(ui: &mut egui::Ui, st: &mut ParetoState) {
    let Some(r) = &st.result else {
        ui.label("Start a run or load a result to see its front.");
        return;
    };
    ui.label(
        egui::RichText::new("Front: head height against log effort (click a point to play it; shift-click adds a ghost)")
            .small()
            .strong(),
    );
    let stride = (r.samples.len() / MAX_SAMPLES_DRAWN).max(1);
    let samples: Vec<[f64; 2]> = r
        .samples
        .iter()
        .step_by(stride)
        .filter(|s| !s.failed && s.log_effort.is_finite())
        .map(|s| [s.height, s.log_effort])
        .collect();
    let natural: Vec<[f64; 2]> = r
        .front
        .iter()
        .filter(|p| p.outcome.is_natural())
        .map(|p| [p.outcome.height, p.outcome.log_effort])
        .collect();
    let assisted: Vec<[f64; 2]> = r
        .front
        .iter()
        .filter(|p| !p.outcome.is_natural())
        .map(|p| [p.outcome.height, p.outcome.log_effort])
        .collect();
    let chosen: Vec<[f64; 2]> = st
        .selected
        .iter()
        .filter_map(|&i| r.front.get(i))
        .map(|p| [p.outcome.height, p.outcome.log_effort])
        .collect();
    let boundary = natural.iter().map(|p| p[0]).fold(f64::NAN, f64::max);
    let front_line: Vec<[f64; 2]> = r
        .front
        .iter()
        .map(|p| [p.outcome.height, p.outcome.log_effort])
        .collect();
    let resp = Plot::new("pareto_front")
        .height(260.0)
        .legend(Legend::default())
        .x_axis_label("head height at the peak, m")
        .y_axis_label("log(e_je + 5000 e_se)")
        .allow_drag(false)
        .allow_scroll(false)
        .show(ui, |plot| {
            plot.points(
                Points::new("samples", PlotPoints::from(samples))
                    .color(egui::Color32::from_gray(40))
                    .radius(1.0),
            );
            plot.line(
                Line::new("front", PlotPoints::from(front_line))
                    .color(egui::Color32::from_gray(120))
                    .width(1.0),
            );
            plot.points(
                Points::new("natural", PlotPoints::from(natural))
                    .color(colour32(regime_colour(true)))
                    .radius(4.5)
                    .filled(true),
            );
            plot.points(
                Points::new("supernatural", PlotPoints::from(assisted))
                    .color(colour32(regime_colour(false)))
                    .radius(4.5)
                    .filled(true),
            );
            if boundary.is_finite() {
                plot.vline(
                    VLine::new("natural | supernatural", boundary)
                        .color(egui::Color32::from_rgb(200, 120, 40))
                        .style(LineStyle::dashed_loose()),
                );
            }
            plot.points(
                Points::new("playing", PlotPoints::from(chosen))
                    .color(egui::Color32::from_rgb(230, 40, 40))
                    .shape(MarkerShape::Circle)
                    .radius(8.0)
                    .filled(false),
            );
            plot.pointer_coordinate()
        });
    if resp.response.clicked()
        && let Some(p) = resp.inner
    {
        // The nearest front point on screen.
        let to_screen = |x: f64, y: f64| {
            resp.transform
                .position_from_point(&egui_plot::PlotPoint::new(x, y))
        };
        let click = to_screen(p.x, p.y);
        let nearest = r
            .front
            .iter()
            .enumerate()
            .map(|(i, q)| {
                (
                    i,
                    to_screen(q.outcome.height, q.outcome.log_effort).distance(click),
                )
            })
            .min_by(|a, b| a.1.total_cmp(&b.1));
        if let Some((i, d)) = nearest
            && d < 20.0
        {
            let shift = ui.input(|i| i.modifiers.shift);
            st.select(i, !shift);
        }
    }
}

fn hypervolume_plot(ui: &mut egui::Ui, st: &ParetoState) {
    if st.histories.is_empty() {
        return;
    }
    ui.label(
        egui::RichText::new("Hypervolume per rollout (every run of this session)")
            .small()
            .strong(),
    );
    let palette = [
        [0.85, 0.25, 0.2],
        [0.2, 0.45, 0.85],
        [0.2, 0.65, 0.3],
        [0.6, 0.3, 0.7],
        [0.85, 0.6, 0.1],
    ];
    Plot::new("pareto_hypervolume")
        .height(140.0)
        .legend(Legend::default())
        .x_axis_label("rollouts")
        .allow_drag(false)
        .allow_scroll(false)
        .show(ui, |plot| {
            for (k, (label, h)) in st.histories.iter().enumerate() {
                let pts: Vec<[f64; 2]> = h
                    .iter()
                    .map(|p| [p.evaluations as f64, p.hypervolume])
                    .collect();
                plot.line(
                    Line::new(label.clone(), PlotPoints::from(pts))
                        .color(colour32(palette[k % palette.len()]))
                        .width(1.5),
                );
            }
        });
}

fn table(ui: &mut egui::Ui, st: &mut ParetoState) {
    let Some(r) = st.result.clone() else { return };
    ui.horizontal(|ui| {
        ui.checkbox(&mut st.half_speed, "half speed");
        if ui.button("Clear selection").clicked() {
            st.selected.clear();
        }
        ui.label("clips to");
        ui.add(egui::TextEdit::singleline(&mut st.clip_dir).desired_width(160.0));
        if ui.button("Save selected as clips").clicked() {
            st.save_clips();
        }
    });
    egui::Grid::new("pareto_table")
        .striped(true)
        .num_columns(7)
        .show(ui, |ui| {
            for h in [
                "play",
                "#",
                "head m",
                "e_je N²m²s",
                "g₀ m/s²",
                "T s",
                "regime",
            ] {
                ui.label(egui::RichText::new(h).small().strong());
            }
            ui.end_row();
            for (i, p) in r.front.iter().enumerate() {
                let o = &p.outcome;
                let mut on = st.selected.contains(&i);
                if ui.checkbox(&mut on, "").changed() {
                    st.select(i, false);
                }
                ui.label(i.to_string());
                ui.label(format!("{:.3}", o.height));
                ui.label(format!("{:.0}", o.joint_effort));
                ui.label(format!("{:.3}", o.assist.g0));
                ui.label(format!("{:.3}", o.assist.duration));
                ui.colored_label(
                    colour32(regime_colour(o.is_natural())),
                    if o.is_natural() {
                        "natural"
                    } else {
                        "supernatural"
                    },
                );
                ui.end_row();
            }
        });
}
