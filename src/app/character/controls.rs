//! The workbench panels: character picker and file dialog, simulation controls (play, pause,
//! single step, reset, speed ×0.1–×4, gain multiplier, PD mode), push controls, overlay toggles,
//! and a status bar with simulated time, FPS and the last message.

use super::character::{CharacterSkin, LiveSim, LoadRequest, characters_dir};
use super::diversity_panel::{DiversityState, diversity_ui};
use super::jobs_panel::{JobsState, jobs_ui};
use super::overlays::Overlays;
use super::viewport::OrbitCamera;
use crate::sim::PdMode;
use bevy::diagnostic::{DiagnosticsStore, FrameTimeDiagnosticsPlugin};
use bevy::prelude::*;
use bevy_egui::{EguiContexts, EguiPrimaryContextPass, egui};

pub struct PanelsPlugin;

impl Plugin for PanelsPlugin {
    fn build(&self, app: &mut App) {
        app.add_plugins(FrameTimeDiagnosticsPlugin::default())
            .add_systems(EguiPrimaryContextPass, workbench_ui)
            .add_systems(Update, skin_visibility);
    }
}

/// The `.ron` files of `characters/`, sorted.
pub(crate) fn character_files() -> Vec<std::path::PathBuf> {
    let mut files: Vec<_> = std::fs::read_dir(characters_dir())
        .map(|rd| {
            rd.filter_map(|e| e.ok())
                .map(|e| e.path())
                .filter(|p| p.extension().is_some_and(|x| x == "ron"))
                .collect()
        })
        .unwrap_or_default();
    files.sort();
    files
}

#[allow(clippy::too_many_arguments)]
fn workbench_ui(
    mut contexts: EguiContexts,
    mut live: ResMut<LiveSim>,
    mut request: ResMut<LoadRequest>,
    mut overlays: ResMut<Overlays>,
    mut orbit: ResMut<OrbitCamera>,
    mut jobs: ResMut<JobsState>,
    mut diversity: ResMut<DiversityState>,
    diagnostics: Res<DiagnosticsStore>,
    steering: Res<super::steering::SteeringState>,
    mut pareto: ResMut<super::pareto_panel::ParetoState>,
    mut editor: ResMut<super::editor::EditorState>,
) -> Result {
    let ctx = contexts.ctx_mut()?;
    let mut root = egui::Ui::new(
        ctx.clone(),
        "workbench".into(),
        egui::UiBuilder::new()
            .layer_id(egui::LayerId::background())
            .max_rect(ctx.viewport_rect()),
    );
    let fps = diagnostics
        .get(&FrameTimeDiagnosticsPlugin::FPS)
        .and_then(|d| d.smoothed())
        .unwrap_or(0.0);

    egui::Panel::bottom("status").show(&mut root, |ui| {
        ui.horizontal(|ui| {
            let live = &*live;
            ui.label(format!("t = {:.2} s", live.sim.time()));
            ui.separator();
            ui.label(format!("{:.0} FPS", fps));
            ui.separator();
            ui.label(format!(
                "{} · {} DOF · {:.1} kg",
                live.character.name,
                live.character.internal_dof(),
                live.character.total_mass()
            ));
            ui.separator();
            let state = if let Some(f) = live.sim.failure() {
                egui::RichText::new(format!("failed: {f}")).color(egui::Color32::RED)
            } else if live.sim.has_fallen() {
                egui::RichText::new("fallen").color(egui::Color32::from_rgb(220, 120, 0))
            } else {
                egui::RichText::new("standing").color(egui::Color32::from_rgb(40, 150, 60))
            };
            ui.label(state);
            ui.separator();
            ui.label(if live.playing {
                format!("playing ×{:.1}", live.speed)
            } else {
                "paused".into()
            });
            if !live.message.is_empty() {
                ui.separator();
                ui.label(&live.message);
            }
        });
    });

    // While steering, the live simulation's controls make way for the view.
    if !steering.active {
        egui::Panel::left("workbench_left").default_size(290.0).resizable(true).show(&mut root, |ui| {
        egui::ScrollArea::vertical().show(ui, |ui| {
            ui.heading("Character");
            let current = live.path.clone();
            egui::ComboBox::from_id_salt("character_picker")
                .selected_text(current.as_ref().and_then(|p| p.file_name()).map(|n| n.to_string_lossy().to_string()).unwrap_or(live.character.name.clone()))
                .width(200.0)
                .show_ui(ui, |ui| {
                    for f in character_files() {
                        let name = f.file_name().map(|n| n.to_string_lossy().to_string()).unwrap_or_default();
                        if ui.selectable_label(current.as_ref() == Some(&f), name).clicked() {
                            request.0 = Some(f);
                        }
                    }
                });
            if ui.button("Open file…").clicked() {
                if let Some(p) = rfd::FileDialog::new().add_filter("character", &["ron"]).set_directory(characters_dir()).pick_file() {
                    request.0 = Some(p);
                }
            }
            let c = &live.character;
            ui.label(format!(
                "{} bodies · {} joints · {} DOF\n{:.1} kg · {:.2} m · root {:?}",
                c.bodies.len(),
                c.joints.len(),
                c.internal_dof(),
                c.total_mass(),
                c.height(),
                c.root.kind
            ));
            ui.small("Edits to the file reload automatically.");

            ui.separator();
            ui.heading("Simulation");
            ui.horizontal(|ui| {
                let label = if live.playing { "Pause" } else { "Play" };
                if ui.button(label).on_hover_text("Space").clicked() {
                    live.playing = !live.playing;
                }
                if ui.button("Step").on_hover_text(". (period)").clicked() {
                    live.playing = false;
                    live.single_step = true;
                }
                if ui.button("Reset").on_hover_text("R").clicked() {
                    live.reset();
                }
            });
            let mut speed = live.speed;
            if ui.add(egui::Slider::new(&mut speed, 0.1..=4.0).logarithmic(true).text("speed ×")).changed() {
                live.speed = speed;
            }
            let mut gain = live.settings.gain_scale;
            if ui.add(egui::Slider::new(&mut gain, 0.0..=3.0).text("gain ×")).changed() {
                live.settings.gain_scale = gain;
                let s = live.settings.strength_scale;
                live.sim.set_scales(gain, s);
            }
            let mut strength = live.settings.strength_scale;
            if ui.add(egui::Slider::new(&mut strength, 0.5..=3.0).text("strength ×")).on_hover_text("Multiplies every torque limit").changed() {
                live.settings.strength_scale = strength;
                let g = live.settings.gain_scale;
                live.sim.set_scales(g, strength);
            }
            ui.horizontal(|ui| {
                ui.label("PD:");
                let mut mode = live.settings.pd;
                ui.radio_value(&mut mode, PdMode::Implicit, "implicit 120 Hz");
                ui.radio_value(&mut mode, PdMode::Explicit, "explicit 4 kHz");
                if mode != live.settings.pd {
                    let keep = live.settings;
                    live.settings = crate::sim::SimSettings { gain_scale: keep.gain_scale, strength_scale: keep.strength_scale, ground: keep.ground, ..crate::sim::SimSettings::for_mode(mode) };
                    live.reset();
                }
            });
            let mut friction = live.settings.ground.friction;
            let mut restitution = live.settings.ground.restitution;
            let f = ui.add(egui::Slider::new(&mut friction, 0.05..=2.0).text("ground friction")).drag_stopped();
            let r = ui.add(egui::Slider::new(&mut restitution, 0.0..=0.9).text("restitution")).drag_stopped();
            if (friction, restitution) != (live.settings.ground.friction, live.settings.ground.restitution) {
                live.settings.ground.friction = friction;
                live.settings.ground.restitution = restitution;
                if f || r {
                    live.reset();
                }
            }

            ui.separator();
            ui.heading("Push");
            let mut impulse = live.push_impulse;
            if ui.add(egui::Slider::new(&mut impulse, 5.0..=400.0).logarithmic(true).text("N·s")).changed() {
                live.push_impulse = impulse;
            }
            let fwd = orbit.forward_flat();
            let right = fwd.cross(Vec3::Y);
            let target = live.heaviest_body();
            ui.horizontal(|ui| {
                if ui.button("Left").clicked() {
                    live.push(target, -right);
                }
                if ui.button("Away").clicked() {
                    live.push(target, fwd);
                }
                if ui.button("Toward").clicked() {
                    live.push(target, -fwd);
                }
                if ui.button("Right").clicked() {
                    live.push(target, right);
                }
            });
            ui.small("Click a body to push it; arrow keys push the trunk (camera-relative); gamepad: left stick + A.");

            ui.separator();
            ui.heading("Panels");
            ui.checkbox(&mut diversity.visible, "Diversity panel (replaces Jobs)");
            ui.checkbox(&mut pareto.visible, "Pareto panel (replaces Jobs)");
            if ui.checkbox(&mut editor.visible, "Character editor (replaces Jobs)").changed() && editor.visible && editor.doc.is_none() {
                let (c, p) = (live.character.clone(), live.path.clone());
                editor.open(c, p);
            }

            ui.separator();
            ui.heading("Overlays");
            ui.checkbox(&mut overlays.skin, "skinned mesh");
            ui.checkbox(&mut overlays.colliders, "colliders");
            ui.checkbox(&mut overlays.com, "centre of mass and support polygon");
            ui.checkbox(&mut overlays.contacts, "contacts");
            ui.checkbox(&mut overlays.torques, "torque saturation");
            ui.checkbox(&mut orbit.follow, "camera follows (F)");
            ui.small("Right-drag orbits, middle-drag pans, wheel zooms; gamepad right stick and triggers.");
        });
    });
    }

    if editor.visible {
        egui::Panel::right("workbench_editor")
            .default_size(430.0)
            .resizable(true)
            .show(&mut root, |ui| {
                super::editor::editor_ui(ui, &mut editor, &live);
            });
    } else if pareto.visible {
        egui::Panel::right("workbench_pareto")
            .default_size(540.0)
            .resizable(true)
            .show(&mut root, |ui| {
                super::pareto_panel::pareto_ui(ui, &mut pareto, &jobs);
            });
    } else if diversity.visible {
        egui::Panel::right("workbench_diversity")
            .default_size(470.0)
            .resizable(true)
            .show(&mut root, |ui| {
                diversity_ui(ui, &mut diversity, &jobs);
            });
    } else {
        egui::Panel::right("workbench_jobs")
            .default_size(360.0)
            .resizable(true)
            .show(&mut root, |ui| {
                jobs_ui(ui, &mut jobs, &live);
            });
    }
    diversity.central = Some(root.available_rect_before_wrap());
    Ok(())
}

fn skin_visibility(
    overlays: Res<Overlays>,
    library: Option<Res<super::library::Library>>,
    steering: Option<Res<super::steering::SteeringState>>,
    pareto: Option<Res<super::pareto_panel::ParetoState>>,
    mut skins: Query<&mut Visibility, With<CharacterSkin>>,
) {
    // The Library's figures, the steered one or the Pareto jumps replace the live character
    // while they play.
    let library = library.is_some_and(|l| l.showing())
        || steering.is_some_and(|s| s.active)
        || pareto.is_some_and(|p| p.showing());
    for mut v in &mut skins {
        let want = if overlays.skin && !library {
            Visibility::Inherited
        } else {
            Visibility::Hidden
        };
        if *v != want {
            *v = want;
        }
    }
}
