//! The Diversity panel's egui side: the run controls, the live plots of D, d_min and the
//! penalties, the filmstrip of phase-aligned frames and the result set's controls.

use super::*;

pub(super) fn history_plot(
    ui: &mut egui::Ui,
    id: &str,
    title: &str,
    series: Vec<(String, Vec<[f64; 2]>, [f32; 3])>,
) {
    ui.label(egui::RichText::new(title).small().strong());
    Plot::new(id.to_string())
        .height(95.0)
        .legend(Legend::default())
        .allow_drag(false)
        .allow_scroll(false)
        .show(ui, |plot| {
            for (name, pts, [r, g, b]) in series {
                let col = egui::Color32::from_rgb(
                    (r * 230.0) as u8,
                    (g * 230.0) as u8,
                    (b * 230.0) as u8,
                );
                plot.line(Line::new(name, PlotPoints::from(pts)).color(col).width(1.5));
            }
        });
}

/// Side-view stick figures of every motion at the phase-aligned columns A–F.
pub(super) fn filmstrip(ui: &mut egui::Ui, state: &DiversityState) {
    let rows: Vec<usize> = state.entries.iter().map(|e| e.index).collect();
    if rows.is_empty() {
        return;
    }
    let phases = state.phase_count() as f32;
    let cell = egui::vec2(
        ((ui.available_width() - 40.0) / FILM_COLUMNS as f32).max(40.0),
        62.0,
    );
    let (resp, painter) = ui.allocate_painter(
        egui::vec2(
            40.0 + cell.x * FILM_COLUMNS as f32,
            16.0 + cell.y * rows.len() as f32,
        ),
        egui::Sense::hover(),
    );
    let origin = resp.rect.min;
    let scale = cell.y / 2.6;
    for c in 0..FILM_COLUMNS {
        let label = ((b'A' + c as u8) as char).to_string();
        painter.text(
            origin + egui::vec2(40.0 + cell.x * (c as f32 + 0.5), 0.0),
            egui::Align2::CENTER_TOP,
            label,
            egui::FontId::proportional(12.0),
            ui.visuals().text_color(),
        );
    }
    for (row, &i) in rows.iter().enumerate() {
        let top = origin.y + 16.0 + cell.y * row as f32;
        let [r, g, b] = motion_colour(i);
        // M0 is white in the viewport; on the light cells it is drawn dark.
        let col = if i == 0 {
            egui::Color32::from_gray(40)
        } else {
            egui::Color32::from_rgb((r * 230.0) as u8, (g * 230.0) as u8, (b * 230.0) as u8)
        };
        let label_col = if i == 0 {
            ui.visuals().strong_text_color()
        } else {
            col
        };
        painter.text(
            egui::pos2(origin.x + 2.0, top + cell.y / 2.0),
            egui::Align2::LEFT_CENTER,
            if i == 0 {
                "M0".to_string()
            } else {
                format!("M{i}")
            },
            egui::FontId::proportional(12.0),
            label_col,
        );
        for c in 0..FILM_COLUMNS {
            let rect = egui::Rect::from_min_size(
                egui::pos2(origin.x + 40.0 + cell.x * c as f32, top),
                cell,
            )
            .shrink(1.0);
            painter.rect_filled(
                rect,
                2.0,
                egui::Color32::from_gray(if (row + c) % 2 == 0 { 235 } else { 225 }),
            );
            let u = phases * c as f32 / (FILM_COLUMNS - 1) as f32;
            let Some((character, frame)) = state.frame(i, u) else {
                continue;
            };
            let cx = frame.com[0];
            let to = |p: Vec3| {
                egui::pos2(
                    rect.center().x + (p.x - cx) * scale,
                    rect.bottom() - 3.0 - p.y * scale,
                )
            };
            for (a, j, ch) in skeleton(character, frame) {
                painter.line_segment([to(a), to(j)], egui::Stroke::new(1.4, col));
                painter.line_segment([to(j), to(ch)], egui::Stroke::new(1.4, col));
            }
            for p in &frame.poses {
                painter.circle_filled(to(Vec3::new(p[0], p[1], p[2])), 1.6, col);
            }
        }
    }
}

pub(super) fn diversity_ui(
    InMut(ui): InMut<egui::Ui>,
    mut state: ResMut<DiversityState>,
    mut jobs: ResMut<Jobs>,
    mut play: MessageWriter<PlayClip>,
) {
    let state = &mut *state;
    ui.heading("Diversity");
    egui::ScrollArea::vertical().show(ui, |ui| {
        // Controls.
        egui::CollapsingHeader::new("Exploration")
            .default_open(!state.launched_with_set)
            .show(ui, |ui| {
                egui::Grid::new("div_controls")
                    .num_columns(2)
                    .show(ui, |ui| {
                        ui.label("scene");
                        let name = |p: &PathBuf| {
                            p.file_name()
                                .map(|n| n.to_string_lossy().to_string())
                                .unwrap_or_default()
                        };
                        egui::ComboBox::from_id_salt("div_scene")
                            .selected_text(state.scene.as_ref().map(name).unwrap_or("—".into()))
                            .show_ui(ui, |ui| {
                                for s in state.scenes.clone() {
                                    let label = name(&s);
                                    ui.selectable_value(&mut state.scene, Some(s), label);
                                }
                            });
                        ui.end_row();
                        ui.label("N variants");
                        ui.add(egui::DragValue::new(&mut state.variants).range(1..=12));
                        ui.end_row();
                        ui.label("K");
                        ui.add(
                            egui::DragValue::new(&mut state.k)
                                .range(0.0..=1000.0)
                                .speed(0.5),
                        );
                        ui.end_row();
                        ui.label("metric");
                        egui::ComboBox::from_id_salt("div_metric")
                            .selected_text(state.metric.label())
                            .show_ui(ui, |ui| {
                                for m in [
                                    MetricChoice::TaskDefault,
                                    MetricChoice::Hf,
                                    MetricChoice::Md,
                                    MetricChoice::Wja,
                                    MetricChoice::Shape,
                                ] {
                                    ui.selectable_value(&mut state.metric, m, m.label());
                                }
                            });
                        ui.end_row();
                        ui.label("mode");
                        ui.horizontal(|ui| {
                            ui.radio_value(&mut state.shape_mode, false, "motion");
                            ui.radio_value(&mut state.shape_mode, true, "shape");
                        });
                        ui.end_row();
                        ui.label("generations");
                        ui.add(egui::DragValue::new(&mut state.generations).range(1..=100_000));
                        ui.end_row();
                        ui.label("seed");
                        ui.add(egui::DragValue::new(&mut state.seed));
                        ui.end_row();
                    });
                ui.horizontal(|ui| {
                    if ui
                        .button("Explore")
                        .on_hover_text("Start a new exploration job (cancels the running one)")
                        .clicked()
                    {
                        state.start(&mut jobs);
                    }
                    if let Some(h) = state.job(&jobs) {
                        crate::app::workbench::jobs::job_controls(ui, h);
                    }
                });
                if let Some(h) = state.job(&jobs) {
                    ui.add(egui::ProgressBar::new(h.progress.fraction).show_percentage());
                    ui.small(format!("#{} {:?} · {}", h.id, h.status, h.progress.message));
                    if let Some(e) = &h.error {
                        ui.colored_label(egui::Color32::RED, e);
                    }
                }
                ui.horizontal(|ui| {
                    ui.add(
                        egui::TextEdit::singleline(&mut state.load_path)
                            .desired_width(230.0)
                            .hint_text("results/…/result.ron"),
                    );
                    if ui.button("Load set").clicked() {
                        let p = PathBuf::from(state.load_path.trim());
                        state.load(&p);
                    }
                });
                ui.horizontal(|ui| {
                    ui.add(egui::TextEdit::singleline(&mut state.save_path).desired_width(230.0));
                    if ui
                        .button("Save set")
                        .on_hover_text("Copy the result file (or write the current incumbents)")
                        .clicked()
                    {
                        let p = PathBuf::from(state.save_path.trim());
                        state.save(&p);
                    }
                });
                if !state.message.is_empty() {
                    ui.small(&state.message);
                }
            });

        let Some(result) = &state.result else {
            ui.label("No result yet: start an exploration or load a set.");
            return;
        };
        ui.separator();
        ui.label(format!(
            "{} · {} · {} generations · D = {:.3} (copies {:.3})",
            state.source,
            result.task,
            result.generations,
            result.diversity,
            result.diversity_of_copies
        ));

        // Live plots.
        egui::CollapsingHeader::new("Plots")
            .default_open(!state.launched_with_set)
            .show(ui, |ui| {
                let h = &result.history;
                let gx = |r: &crate::diversity::search::GenerationRecord| r.generation as f64;
                history_plot(
                    ui,
                    "div_D",
                    "D (objective)",
                    vec![(
                        "D".into(),
                        h.iter().map(|r| [gx(r), r.objective]).collect(),
                        [1.0, 0.85, 0.3],
                    )],
                );
                let n = h.iter().map(|r| r.d_min.len()).max().unwrap_or(0);
                let series = |f: &dyn Fn(
                    &crate::diversity::search::GenerationRecord,
                    usize,
                ) -> Option<f64>,
                              from: usize| {
                    (from..n)
                        .map(|i| {
                            (
                                format!("M{i}"),
                                h.iter()
                                    .filter_map(|r| f(r, i).map(|v| [gx(r), v]))
                                    .collect(),
                                motion_colour(i),
                            )
                        })
                        .collect::<Vec<_>>()
                };
                let dmins = series(&|r, i| r.d_min.get(i).copied().filter(|v| v.is_finite()), 1);
                history_plot(ui, "div_dmin", "d_min per variant", dmins);
                let penalty = series(
                    &|r, i| r.penalty.get(i).copied().filter(|v| v.is_finite()),
                    0,
                );
                history_plot(ui, "div_pen", "penalty C per motion", penalty);
            });

        // Gallery controls.
        egui::CollapsingHeader::new("Gallery")
            .default_open(true)
            .show(ui, |ui| {
                ui.horizontal(|ui| {
                    ui.checkbox(&mut state.gallery, "show in viewport");
                    ui.checkbox(&mut state.half_speed, "½ speed");
                    ui.checkbox(&mut state.follow, "follow")
                        .on_hover_text("Keep the camera on the row's mean centre of mass along x");
                    if ui.button("Frame view").clicked() {
                        state.view_request = true;
                    }
                });
                ui.horizontal(|ui| {
                    ui.label("strength");
                    ui.selectable_value(&mut state.strength_x2, false, "×1");
                    ui.selectable_value(&mut state.strength_x2, true, "×2");
                    let waiting = state
                        .entries
                        .iter()
                        .filter(|e| !state.cache.contains_key(&e.key))
                        .count();
                    if waiting > 0 {
                        ui.spinner();
                        ui.small(format!("simulating {waiting}"));
                    }
                });
                let phases = state.phase_count();
                let k = (state.clock.floor() as usize).min(phases.saturating_sub(1));
                ui.small(format!(
                    "phase clock {:.2} / {phases} · {}",
                    state.clock,
                    state.phase_name(k)
                ));
                let n = state.result.as_ref().map(|r| r.motions.len()).unwrap_or(0);
                ui.horizontal_wrapped(|ui| {
                    ui.label("play in Library:").on_hover_text(
                        "Replay a motion with its frames recorded and play it as a clip on \
                             its skinned character in the Library",
                    );
                    for i in 0..n {
                        let [r, g, b] = motion_colour(i).map(|c| (c * 255.0) as u8);
                        if ui
                            .add(egui::Button::new(
                                egui::RichText::new(format!("M{i}"))
                                    .color(egui::Color32::from_rgb(r, g, b)),
                            ))
                            .clicked()
                        {
                            state.play_in_library(i, &mut play);
                        }
                    }
                });
                ui.horizontal(|ui| {
                    ui.checkbox(&mut state.ghost, "ghost");
                    let pick = |ui: &mut egui::Ui, id: &str, v: &mut usize| {
                        egui::ComboBox::from_id_salt(id.to_string())
                            .width(50.0)
                            .selected_text(format!("M{v}"))
                            .show_ui(ui, |ui| {
                                for i in 0..n {
                                    ui.selectable_value(v, i, format!("M{i}"));
                                }
                            });
                    };
                    pick(ui, "ghost_a", &mut state.ghost_a);
                    ui.label("under");
                    pick(ui, "ghost_b", &mut state.ghost_b);
                });
                egui::Grid::new("div_variants")
                    .striped(true)
                    .num_columns(4)
                    .show(ui, |ui| {
                        ui.label("motion");
                        ui.label("C");
                        ui.label("d_min");
                        ui.label("path");
                        ui.end_row();
                        let rows: Vec<(usize, f64, f64, bool)> = state
                            .result
                            .as_ref()
                            .map(|r| {
                                r.motions
                                    .iter()
                                    .map(|m| {
                                        (m.index, m.penalty, m.min_distance, !m.path.is_empty())
                                    })
                                    .collect()
                            })
                            .unwrap_or_default();
                        for (i, c, d, has_path) in rows {
                            let [r, g, b] = motion_colour(i);
                            let col = if i == 0 {
                                ui.visuals().strong_text_color()
                            } else {
                                egui::Color32::from_rgb(
                                    (r * 230.0) as u8,
                                    (g * 230.0) as u8,
                                    (b * 230.0) as u8,
                                )
                            };
                            ui.colored_label(
                                col,
                                if i == 0 {
                                    "M0 input".to_string()
                                } else {
                                    format!("M{i}")
                                },
                            );
                            ui.label(format!("{c:.3}"));
                            ui.label(format!("{d:.3}"));
                            if i > 0 && has_path {
                                if let Some(v) = state.path_percent.get_mut(i) {
                                    ui.add(
                                        egui::Slider::new(v, 0.0..=100.0).suffix(" %").step_by(1.0),
                                    );
                                }
                            } else {
                                ui.label("—");
                            }
                            ui.end_row();
                        }
                    });
            });

        egui::CollapsingHeader::new("Filmstrip (phase-aligned A–F)")
            .default_open(true)
            .show(ui, |ui| {
                filmstrip(ui, state);
            });
    });
}
