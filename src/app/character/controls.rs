//! The live simulation's controls in the left dock (character picker and file dialog,
//! simulation controls: play, pause, single step, reset, speed ×0.1–×4, gain and strength
//! multipliers, PD mode, ground; push controls) and the status bar (simulated time, FPS, the
//! character, standing or fallen, the last message).

use super::{LiveSim, LoadRequest};
use crate::app::viewport::OrbitCamera;
use crate::app::workbench::Stage;
use crate::app::workbench::files::{character_files, characters_dir};
use crate::app::workbench::palette;
use crate::sim::PdMode;
use bevy::diagnostic::{DiagnosticsStore, FrameTimeDiagnosticsPlugin};
use bevy::prelude::*;
use bevy_egui::egui;

/// The status bar's line: the live simulation's state while it is on stage; while a panel's
/// figures own the viewport (a steered graph's character, a gait), that panel's name, since the
/// live character is not the one on show.
pub(super) fn status_bar(
    InMut(ui): InMut<egui::Ui>,
    live: Res<LiveSim>,
    diagnostics: Res<DiagnosticsStore>,
    stage: Res<State<Stage>>,
) {
    let fps = diagnostics
        .get(&FrameTimeDiagnosticsPlugin::FPS)
        .and_then(|d| d.smoothed())
        .unwrap_or(0.0);
    let live = &*live;
    if !stage.shows_live() {
        ui.label(format!("{:.0} FPS", fps));
        ui.separator();
        ui.label(format!("on show: {}", stage.name()));
        return;
    }
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
        egui::RichText::new(format!("failed: {f}")).color(palette::ERR)
    } else if live.sim.has_fallen() {
        egui::RichText::new("fallen").color(palette::WARN)
    } else {
        egui::RichText::new("standing").color(palette::OK)
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
}

/// The left dock's character, simulation and push sections.
pub(super) fn live_section(
    InMut(ui): InMut<egui::Ui>,
    mut live: ResMut<LiveSim>,
    mut request: ResMut<LoadRequest>,
    orbit: Res<OrbitCamera>,
) {
    ui.heading("Character");
    let current = live.path.clone();
    egui::ComboBox::from_id_salt("character_picker")
        .selected_text(
            current
                .as_ref()
                .and_then(|p| p.file_name())
                .map(|n| n.to_string_lossy().to_string())
                .unwrap_or(live.character.name.clone()),
        )
        .width(200.0)
        .show_ui(ui, |ui| {
            for f in character_files() {
                let name = f
                    .file_name()
                    .map(|n| n.to_string_lossy().to_string())
                    .unwrap_or_default();
                if ui
                    .selectable_label(current.as_ref() == Some(&f), name)
                    .clicked()
                {
                    request.0 = Some(f);
                }
            }
        });
    if ui.button("Open file…").clicked() {
        if let Some(p) = rfd::FileDialog::new()
            .add_filter("character", &["ron"])
            .set_directory(characters_dir())
            .pick_file()
        {
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
    if ui
        .add(
            egui::Slider::new(&mut speed, 0.1..=4.0)
                .logarithmic(true)
                .text("speed ×"),
        )
        .changed()
    {
        live.speed = speed;
    }
    let mut gain = live.settings.gain_scale;
    if ui
        .add(egui::Slider::new(&mut gain, 0.0..=3.0).text("gain ×"))
        .changed()
    {
        live.settings.gain_scale = gain;
        let s = live.settings.strength_scale;
        live.sim.set_scales(gain, s);
    }
    let mut strength = live.settings.strength_scale;
    if ui
        .add(egui::Slider::new(&mut strength, 0.5..=3.0).text("strength ×"))
        .on_hover_text("Multiplies every torque limit")
        .changed()
    {
        live.settings.strength_scale = strength;
        let g = live.settings.gain_scale;
        live.sim.set_scales(g, strength);
    }
    ui.horizontal(|ui| {
        ui.label("PD:");
        let mut mode = live.settings.pd;
        ui.radio_value(&mut mode, PdMode::Implicit, "implicit 120 Hz");
        ui.radio_value(&mut mode, PdMode::Explicit, "explicit 4 kHz");
        ui.radio_value(&mut mode, PdMode::Stable, "stable PD 120 Hz");
        if mode != live.settings.pd {
            let keep = live.settings;
            live.settings = crate::sim::SimSettings {
                gain_scale: keep.gain_scale,
                strength_scale: keep.strength_scale,
                ground: keep.ground,
                ..crate::sim::SimSettings::for_mode(mode)
            };
            live.reset();
        }
    });
    let mut friction = live.settings.ground.friction;
    let mut restitution = live.settings.ground.restitution;
    let f = ui
        .add(egui::Slider::new(&mut friction, 0.05..=2.0).text("ground friction"))
        .drag_stopped();
    let r = ui
        .add(egui::Slider::new(&mut restitution, 0.0..=0.9).text("restitution"))
        .drag_stopped();
    if (friction, restitution)
        != (
            live.settings.ground.friction,
            live.settings.ground.restitution,
        )
    {
        live.settings.ground.friction = friction;
        live.settings.ground.restitution = restitution;
        if f || r {
            live.reset();
        }
    }

    ui.separator();
    ui.heading("Push");
    let mut impulse = live.push_impulse;
    if ui
        .add(
            egui::Slider::new(&mut impulse, 5.0..=400.0)
                .logarithmic(true)
                .text("N·s"),
        )
        .changed()
    {
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
}
