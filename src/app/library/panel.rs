//! The Library window: clip list with tag filter, selection, transport controls, scrubber,
//! display options and BVH export.

use super::Library;
use bevy::prelude::*;
use bevy_egui::egui;

pub(super) fn library_window(InMut(ui): InMut<egui::Ui>, mut library: ResMut<Library>) {
    let lib = &mut *library;
    {
        {
            ui.horizontal(|ui| {
                ui.label("filter");
                ui.add(
                    egui::TextEdit::singleline(&mut lib.filter)
                        .hint_text("words in name, character, source, family, status")
                        .desired_width(260.0),
                );
                if ui.button("rescan").clicked() {
                    lib.rescan();
                }
                ui.label(format!("{} clips", lib.entries.len()));
            });
            transport(ui, lib);
            ui.separator();
            let filter = lib.filter.clone();
            let mut toggled = None;
            let mut export = None;
            egui::ScrollArea::vertical()
                .max_height(150.0)
                .auto_shrink([false, false])
                .show(ui, |ui| {
                    egui::Grid::new("library_list")
                        .striped(true)
                        .show(ui, |ui| {
                            ui.strong("");
                            ui.strong("clip");
                            ui.strong("character");
                            ui.strong("source");
                            ui.strong("speed");
                            ui.strong("length");
                            ui.strong("");
                            ui.end_row();
                            for (i, e) in lib.entries.iter().enumerate() {
                                if !e.matches(&filter) {
                                    continue;
                                }
                                let slot = lib.selected.iter().position(|&s| s == i);
                                let mut on = slot.is_some();
                                let tag = slot.map(|k| format!("{}", k + 1)).unwrap_or_default();
                                if ui.checkbox(&mut on, tag).changed() {
                                    toggled = Some(i);
                                }
                                let name = e
                                    .path
                                    .file_name()
                                    .map(|n| n.to_string_lossy().to_string())
                                    .unwrap_or_default();
                                ui.label(name).on_hover_text(e.path.display().to_string());
                                ui.label(&e.character.name);
                                ui.label(&e.clip.tags.source);
                                ui.label(
                                    e.clip
                                        .tags
                                        .speed
                                        .map(|v| format!("{v:.2} m/s"))
                                        .unwrap_or_default(),
                                );
                                ui.label(format!(
                                    "{} fr, {:.2} s{}",
                                    e.clip.frames.len(),
                                    e.clip.duration(),
                                    if e.clip.cycle.is_some() {
                                        ", cyclic"
                                    } else {
                                        ""
                                    }
                                ));
                                if ui
                                    .small_button("BVH")
                                    .on_hover_text("export next to the clip")
                                    .clicked()
                                {
                                    export = Some(i);
                                }
                                ui.end_row();
                            }
                        });
                    for (p, why) in &lib.skipped {
                        ui.weak(format!("skipped {}: {why}", p.display()));
                    }
                });
            if let Some(i) = toggled {
                lib.toggle(i);
                lib.time = 0.0;
            }
            if let Some(i) = export {
                lib.export_bvh(i);
            }
            if !lib.message.is_empty() {
                ui.weak(&lib.message);
            }
        }
    }
}

/// Play, pause, step, half speed, loop, phase alignment, ghosts, and the scrubber.
fn transport(ui: &mut egui::Ui, lib: &mut Library) {
    let first = lib
        .selected
        .first()
        .map(|&i| (lib.entries[i].clip.rate, lib.duration()));
    ui.horizontal(|ui| {
        let (rate, duration) = first.unwrap_or((30.0, 1.0));
        if ui.button("⏮").on_hover_text("one frame back").clicked() {
            lib.playing = false;
            lib.time = (lib.time - 1.0 / rate).max(0.0);
        }
        let label = if lib.playing { "⏸ pause" } else { "▶ play" };
        if ui.button(label).clicked() {
            lib.playing = !lib.playing;
        }
        if ui.button("⏭").on_hover_text("one frame on").clicked() {
            lib.playing = false;
            lib.time += 1.0 / rate;
        }
        ui.checkbox(&mut lib.half_speed, "½ speed");
        ui.checkbox(&mut lib.looping, "loop");
        ui.checkbox(&mut lib.align_phase, "align phase")
            .on_hover_text("play every clip at the first one's phase");
        ui.checkbox(&mut lib.ghosts, "ghosts")
            .on_hover_text("overlay the clips instead of side by side");
        let _ = duration;
    });
    let duration = lib.duration();
    let mut phase = if duration > 0.0 {
        (lib.time / duration).rem_euclid(1.0)
    } else {
        0.0
    };
    let cycles = (lib.time / duration.max(1e-9)).floor();
    ui.horizontal(|ui| {
        let slider = ui.add(
            egui::Slider::new(&mut phase, 0.0..=1.0)
                .text(format!("of {duration:.2} s"))
                .custom_formatter(move |p, _| format!("{:.2} s", p * duration)),
        );
        if slider.changed() {
            lib.playing = false;
            lib.time = (cycles + phase) * duration;
        }
        if ui.button("⟲").on_hover_text("back to the start").clicked() {
            lib.time = 0.0;
        }
    });
    if lib.selected.is_empty() {
        ui.weak("Tick clips to play them on their characters in the viewport.");
    } else {
        for (k, &i) in lib.selected.iter().enumerate() {
            let e = &lib.entries[i];
            let t = &e.clip.tags;
            let mut s = format!("{}: {} on {}", k + 1, t.source, e.character.name);
            if let Some(v) = t.speed {
                s += &format!(", {v:.2} m/s");
            }
            if let Some(c) = t.cost {
                s += &format!(", cost {c:.3}");
            }
            if let Some(st) = &t.status {
                s += &format!(", {st}");
            }
            ui.label(s);
        }
    }
}
