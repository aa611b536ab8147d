//! The editor's panel: file and history row, the standing verdict, validation and physics lint,
//! the body tree, and the selected body's fields, its joint's axis, limits and gains, its pad,
//! and the structure tools (the tools of Borer et al. 2018, §4.3, in that order).

use super::{EditorState, STAND_SECONDS, Verdict};
use crate::app::character::{LiveSim, characters_dir};
use crate::app::workbench::palette;
use crate::editor::{DeleteMode, Edit};
use crate::model::{Character, EffectorTag, JointKind, Shape};
use bevy_egui::egui;

const RED: egui::Color32 = palette::ERR;
const ORANGE: egui::Color32 = palette::WARN;
const GREEN: egui::Color32 = palette::OK;

/// The Editor panel (right side; replaces the Jobs panel while open).
pub(super) fn editor_ui(
    bevy::prelude::InMut(ui): bevy::prelude::InMut<egui::Ui>,
    mut state: bevy::prelude::ResMut<EditorState>,
    live: bevy::prelude::Res<LiveSim>,
) {
    let (state, live) = (&mut *state, &*live);
    ui.horizontal(|ui| {
        ui.heading("Character editor");
        if ui.small_button("close").clicked() {
            state.panel_request = Some(false);
        }
    });
    shortcuts(ui, state);
    file_row(ui, state, live);
    let Some(doc) = state.doc.as_ref() else {
        ui.label("Edit the live character, open a character file, or drop a skinned glTF or a BVH on the window to build one.");
        message(ui, state);
        return;
    };
    let c = doc.character().clone();
    let (undo, redo) = (doc.undo_len(), doc.redo_len());
    let modified = doc.is_modified();
    let mut mirror = doc.mirror;
    ui.horizontal(|ui| {
        if ui
            .add_enabled(undo > 0, egui::Button::new(format!("⟲ Undo ({undo})")))
            .on_hover_text("Ctrl+Z")
            .clicked()
        {
            state.undo();
        }
        if ui
            .add_enabled(redo > 0, egui::Button::new(format!("⟳ Redo ({redo})")))
            .on_hover_text("Ctrl+Shift+Z or Ctrl+Y")
            .clicked()
        {
            state.redo();
        }
        ui.checkbox(&mut mirror, "mirror edits")
            .on_hover_text("An edit on one side also applies, mirrored, to its left/right pair");
    });
    if let Some(d) = state.doc.as_mut() {
        d.mirror = mirror;
    }
    ui.label(format!(
        "{}{} · {} bodies · {} joints · {} DOF · {:.1} kg",
        c.name,
        if modified { " (modified)" } else { "" },
        c.bodies.len(),
        c.joints.len(),
        c.internal_dof(),
        c.total_mass()
    ));
    verdict(ui, state, live);
    message(ui, state);
    checks(ui, state);
    ui.separator();

    let mut edits: Vec<(Edit, bool)> = Vec::new();
    egui::ScrollArea::vertical().show(ui, |ui| {
        egui::CollapsingHeader::new("Bodies")
            .default_open(true)
            .show(ui, |ui| body_tree(ui, state, &c));
        let Some(sel) = state.selected.clone() else {
            return;
        };
        let Some(bi) = c.body_index(&sel) else {
            return;
        };
        ui.label(
            egui::RichText::new(
                "In the viewport, drag: arrows move, rings turn, white knobs resize, \
                 orange knobs set limits, the blue knob turns the joint axis.",
            )
            .small()
            .weak(),
        );
        ui.separator();
        body_fields(ui, &c, bi, &mut edits);
        if let Some(ji) = c.joints.iter().position(|j| j.child == sel) {
            ui.separator();
            joint_fields(ui, &c, ji, &mut edits);
        }
        ui.separator();
        pad_fields(ui, &c, bi, &mut edits);
        ui.separator();
        structure(ui, &c, bi, &mut edits);
        if state.import.is_some() {
            ui.separator();
            super::import::import_ui(ui, state);
        }
    });
    for (e, coalesce) in edits {
        state.edit(e, coalesce);
    }
}

fn shortcuts(ui: &mut egui::Ui, state: &mut EditorState) {
    let (undo, redo, save) = ui.input(|i| {
        let cmd = i.modifiers.command;
        (
            cmd && !i.modifiers.shift && i.key_pressed(egui::Key::Z),
            cmd && ((i.modifiers.shift && i.key_pressed(egui::Key::Z))
                || i.key_pressed(egui::Key::Y)),
            cmd && i.key_pressed(egui::Key::S),
        )
    });
    if undo {
        state.undo();
    }
    if redo {
        state.redo();
    }
    if save && let Some(p) = state.path.clone() {
        state.save(&p);
    }
}

fn file_row(ui: &mut egui::Ui, state: &mut EditorState, live: &LiveSim) {
    ui.horizontal_wrapped(|ui| {
        if ui
            .button("Edit live character")
            .on_hover_text("Open the character on screen in the editor")
            .clicked()
        {
            state.import = None;
            state.open(live.character.clone(), live.path.clone());
        }
        if ui.button("Open…").clicked()
            && let Some(p) = rfd::FileDialog::new()
                .add_filter(
                    "character, skinned glTF or BVH",
                    &["ron", "gltf", "glb", "bvh"],
                )
                .set_directory(characters_dir())
                .pick_file()
        {
            super::open_file(state, &p);
        }
        let has_doc = state.doc.is_some();
        if ui
            .add_enabled(has_doc && state.path.is_some(), egui::Button::new("Save"))
            .on_hover_text("Ctrl+S; written atomically")
            .clicked()
            && let Some(p) = state.path.clone()
        {
            state.save(&p);
        }
        if ui
            .add_enabled(has_doc, egui::Button::new("Save As…"))
            .clicked()
            && let Some(p) = rfd::FileDialog::new()
                .add_filter("character", &["ron"])
                .set_directory(characters_dir())
                .set_file_name(
                    state
                        .doc
                        .as_ref()
                        .map(|d| format!("{}.ron", d.character().name))
                        .unwrap_or_default(),
                )
                .save_file()
        {
            state.save(&p);
        }
    });
    if let Some(p) = &state.path {
        ui.small(p.display().to_string());
    } else if state.doc.is_some() {
        ui.small("not saved yet (Save As…)");
    }
}

fn message(ui: &mut egui::Ui, state: &EditorState) {
    if !state.message.is_empty() {
        let colour = if state.message.starts_with("edit refused")
            || state.message.contains(": ")
                && !state.message.starts_with("saved")
                && !state.message.starts_with("opened")
                && !state.message.starts_with("built")
        {
            ORANGE
        } else {
            ui.visuals().text_color()
        };
        ui.label(egui::RichText::new(&state.message).color(colour));
    }
}

fn verdict(ui: &mut egui::Ui, state: &EditorState, live: &LiveSim) {
    ui.horizontal_wrapped(|ui| {
        ui.label("Stands?");
        match &state.verdict {
            Some((g, v)) => {
                let stale = *g != state.generation;
                let (text, colour) = match v {
                    Verdict::Running => ("checking…".to_string(), ui.visuals().weak_text_color()),
                    Verdict::Stands { seconds } => (format!("stands {seconds:.0} s ✔"), GREEN),
                    Verdict::Falls { at } => (format!("falls at {at:.2} s ✘"), RED),
                    Verdict::Error(e) => (format!("cannot simulate: {e}"), RED),
                };
                let text = if stale { format!("{text} (previous edit)") } else { text };
                ui.label(egui::RichText::new(text).color(colour))
                    .on_hover_text(format!(
                        "A headless {STAND_SECONDS:.0} s rollout holding the reference pose with hold-pose gains, after every edit"
                    ));
            }
            None => {
                ui.weak("—");
            }
        }
        ui.separator();
        let now = if live.sim.has_fallen() { "live: fallen" } else { "live: standing" };
        ui.label(format!("{now} at t = {:.1} s", live.sim.time()));
    });
}

fn checks(ui: &mut egui::Ui, state: &mut EditorState) {
    let mut select = None;
    for p in &state.problems {
        ui.label(egui::RichText::new(format!("✘ {p}")).color(RED));
    }
    if state.lints.is_empty() && state.problems.is_empty() {
        ui.label(egui::RichText::new("✔ valid; physics lint clean").color(GREEN));
    }
    for l in &state.lints {
        if ui
            .add(
                egui::Label::new(egui::RichText::new(format!("⚠ {}", l.message)).color(ORANGE))
                    .sense(egui::Sense::click()),
            )
            .on_hover_text("click to select")
            .clicked()
        {
            select = Some(l.subject.clone());
        }
    }
    if let Some(s) = select
        && let Some(doc) = &state.doc
    {
        let c = doc.character();
        // A lint names a body or a joint; a joint selects its child body.
        if c.body_index(&s).is_some() {
            state.selected = Some(s);
        } else if let Some(j) = c.joints.iter().find(|j| j.name == s) {
            state.selected = Some(j.child.clone());
        }
    }
}

fn body_tree(ui: &mut egui::Ui, state: &mut EditorState, c: &Character) {
    fn walk(ui: &mut egui::Ui, state: &mut EditorState, c: &Character, body: &str, depth: usize) {
        let Some(i) = c.body_index(body) else {
            return;
        };
        let b = &c.bodies[i];
        ui.horizontal(|ui| {
            ui.add_space(12.0 * depth as f32);
            let selected = state.selected.as_deref() == Some(body);
            let label = format!("{} · {:.2} kg", b.name, b.mass);
            if ui.selectable_label(selected, label).clicked() {
                state.selected = Some(body.to_string());
            }
        });
        for j in c.joints.iter().filter(|j| j.parent == body) {
            walk(ui, state, c, &j.child, depth + 1);
        }
    }
    walk(ui, state, c, &c.root.body, 0);
}

/// Three drag values in a row; returns the new vector when one changed (and whether a drag is
/// going on, to coalesce it into one undo step).
fn vec3(ui: &mut egui::Ui, label: &str, v: [f64; 3], speed: f64, suffix: &str) -> Option<[f64; 3]> {
    let mut out = v;
    let mut changed = false;
    ui.horizontal(|ui| {
        ui.label(label);
        for (k, name) in ["x", "y", "z"].iter().enumerate() {
            changed |= ui
                .add(
                    egui::DragValue::new(&mut out[k])
                        .speed(speed)
                        .prefix(format!("{name} "))
                        .suffix(suffix)
                        .max_decimals(3),
                )
                .changed();
        }
    });
    changed.then_some(out)
}

fn body_fields(ui: &mut egui::Ui, c: &Character, bi: usize, edits: &mut Vec<(Edit, bool)>) {
    let b = &c.bodies[bi];
    let name = b.name.clone();
    ui.strong(format!("Body `{name}`"));
    if let Some(p) = vec3(ui, "position", b.position, 0.002, " m") {
        edits.push((
            Edit::SetBodyPosition {
                body: name.clone(),
                position: p,
            },
            true,
        ));
    }
    if let Some(r) = vec3(ui, "rotation", b.rotation, 0.5, "°") {
        edits.push((
            Edit::SetBodyRotation {
                body: name.clone(),
                rotation: r,
            },
            true,
        ));
    }
    let mut shape = b.shape;
    let changed = ui
        .horizontal(|ui| {
            ui.label("size");
            let mut ch = false;
            let mut dv = |ui: &mut egui::Ui, v: &mut f64, p: &str| {
                ch |= ui
                    .add(
                        egui::DragValue::new(v)
                            .speed(0.002)
                            .range(0.005..=5.0)
                            .prefix(p)
                            .suffix(" m")
                            .max_decimals(3),
                    )
                    .changed();
            };
            match &mut shape {
                Shape::Capsule {
                    radius,
                    half_length,
                    ..
                }
                | Shape::Cylinder {
                    radius,
                    half_length,
                    ..
                } => {
                    dv(ui, radius, "r ");
                    dv(ui, half_length, "½L ");
                }
                Shape::Box { half_extents: h } => {
                    for (k, p) in ["½x ", "½y ", "½z "].iter().enumerate() {
                        dv(ui, &mut h[k], p);
                    }
                }
                Shape::Ellipsoid { radii: r } => {
                    for (k, p) in ["rx ", "ry ", "rz "].iter().enumerate() {
                        dv(ui, &mut r[k], p);
                    }
                }
            }
            ch
        })
        .inner;
    if changed {
        edits.push((
            Edit::SetBodyShape {
                body: name.clone(),
                shape,
            },
            true,
        ));
    }
    ui.horizontal(|ui| {
        let mut mass = b.mass;
        if ui
            .add(
                egui::DragValue::new(&mut mass)
                    .speed(0.05)
                    .range(0.01..=1000.0)
                    .prefix("mass ")
                    .suffix(" kg")
                    .max_decimals(2),
            )
            .changed()
        {
            edits.push((
                Edit::SetBodyMass {
                    body: name.clone(),
                    mass,
                },
                true,
            ));
        }
        let volume = crate::editor::volume(&b.shape);
        let mut density = b.mass / volume;
        if ui
            .add(
                egui::DragValue::new(&mut density)
                    .speed(5.0)
                    .range(10.0..=20000.0)
                    .prefix("density ")
                    .suffix(" kg/m³")
                    .max_decimals(0),
            )
            .on_hover_text("Sets the mass from the shape's volume; the inertia follows the shape")
            .changed()
        {
            edits.push((
                Edit::SetBodyDensity {
                    body: name.clone(),
                    density,
                },
                true,
            ));
        }
    });
    let i = b.principal_inertia();
    ui.small(format!(
        "inertia {:.4} {:.4} {:.4} kg·m²{}",
        i[0],
        i[1],
        i[2],
        if b.inertia.is_some() {
            " (given)"
        } else {
            " (from the shape)"
        }
    ));
}

fn joint_fields(ui: &mut egui::Ui, c: &Character, ji: usize, edits: &mut Vec<(Edit, bool)>) {
    let j = &c.joints[ji];
    let name = j.name.clone();
    ui.strong(format!(
        "Joint `{name}` ({}, parent `{}`)",
        j.kind.label(),
        j.parent
    ));
    if let Some(a) = vec3(ui, "anchor", j.anchor, 0.002, " m") {
        edits.push((
            Edit::SetJointAnchor {
                joint: name.clone(),
                anchor: a,
            },
            true,
        ));
    }
    let unit = |v: [f64; 3]| {
        let n = (v[0] * v[0] + v[1] * v[1] + v[2] * v[2]).sqrt();
        if n > 1e-6 {
            Some(v.map(|x| x / n))
        } else {
            None
        }
    };
    let axis_row = |ui: &mut egui::Ui, label: &str, a: [f64; 3]| -> Option<[f64; 3]> {
        let mut out = None;
        ui.horizontal(|ui| {
            if let Some(v) = vec3(ui, label, a, 0.01, "") {
                out = unit(v);
            }
            for (l, v) in [
                ("X", [1.0, 0.0, 0.0]),
                ("Y", [0.0, 1.0, 0.0]),
                ("Z", [0.0, 0.0, 1.0]),
            ] {
                if ui
                    .small_button(l)
                    .on_hover_text(format!("axis along world {l}"))
                    .clicked()
                {
                    out = Some(v);
                }
            }
            if ui
                .small_button("−")
                .on_hover_text("reverse the axis")
                .clicked()
            {
                out = Some(a.map(|x| -x));
            }
        });
        out
    };
    match &j.kind {
        JointKind::Hinge { axis } => {
            if let Some(a) = axis_row(ui, "axis", *axis) {
                edits.push((
                    Edit::SetJointKind {
                        joint: name.clone(),
                        kind: JointKind::Hinge { axis: a },
                    },
                    true,
                ));
            }
        }
        JointKind::Universal { axes } => {
            if let Some(a) = axis_row(ui, "axis 1", axes.0) {
                edits.push((
                    Edit::SetJointKind {
                        joint: name.clone(),
                        kind: JointKind::Universal { axes: (a, axes.1) },
                    },
                    true,
                ));
            }
            if let Some(a) = axis_row(ui, "axis 2", axes.1) {
                edits.push((
                    Edit::SetJointKind {
                        joint: name.clone(),
                        kind: JointKind::Universal { axes: (axes.0, a) },
                    },
                    true,
                ));
            }
        }
        JointKind::Ball | JointKind::Fixed => {}
    }
    let dof = j.kind.dof();
    if dof > 0 {
        let mut limits = j.limits.clone();
        let had = !limits.is_empty();
        if limits.is_empty() {
            limits = vec![(-180.0, 180.0); dof];
        }
        let mut changed = false;
        for (k, l) in limits.iter_mut().enumerate() {
            ui.horizontal(|ui| {
                ui.label(if dof == 1 {
                    "limits".to_string()
                } else {
                    format!("limits {k}")
                });
                changed |= ui
                    .add(
                        egui::DragValue::new(&mut l.0)
                            .speed(0.5)
                            .range(-180.0..=180.0)
                            .prefix("min ")
                            .suffix("°"),
                    )
                    .changed();
                changed |= ui
                    .add(
                        egui::DragValue::new(&mut l.1)
                            .speed(0.5)
                            .range(-180.0..=180.0)
                            .prefix("max ")
                            .suffix("°"),
                    )
                    .changed();
                ui.weak(format!("{:.0}° range", l.1 - l.0));
            });
        }
        if !had {
            ui.small("unlimited (dragging sets limits)");
        }
        if changed {
            edits.push((
                Edit::SetJointLimits {
                    joint: name.clone(),
                    limits,
                },
                true,
            ));
        }
    }
    let g = c.gains(ji);
    let mut kp = g.kp;
    let mut kd = g.kd;
    let mut tl = g.torque_limit;
    let derived = j.kp.is_none() || j.kd.is_none() || j.torque_limit.is_none();
    let mut changed = false;
    ui.horizontal(|ui| {
        changed |= ui
            .add(
                egui::DragValue::new(&mut kp)
                    .speed(5.0)
                    .range(0.0..=1e5)
                    .prefix("kp ")
                    .suffix(" N·m/rad")
                    .max_decimals(0),
            )
            .changed();
        changed |= ui
            .add(
                egui::DragValue::new(&mut kd)
                    .speed(0.5)
                    .range(0.0..=1e4)
                    .prefix("kd ")
                    .max_decimals(1),
            )
            .changed();
    });
    ui.horizontal(|ui| {
        changed |= ui
            .add(
                egui::DragValue::new(&mut tl)
                    .speed(2.0)
                    .range(0.0..=1e5)
                    .prefix("torque limit ")
                    .suffix(" N·m")
                    .max_decimals(0),
            )
            .changed();
        if derived {
            ui.weak("(derived from masses)");
        } else if ui
            .small_button("derive")
            .on_hover_text("Forget the given gains: derive them from masses and lengths")
            .clicked()
        {
            edits.push((
                Edit::SetJointGains {
                    joint: name.clone(),
                    kp: None,
                    kd: None,
                    torque_limit: None,
                },
                false,
            ));
        }
    });
    if changed {
        edits.push((
            Edit::SetJointGains {
                joint: name,
                kp: Some(kp),
                kd: Some(kd),
                torque_limit: Some(tl),
            },
            true,
        ));
    }
}

fn pad_fields(ui: &mut egui::Ui, c: &Character, bi: usize, edits: &mut Vec<(Edit, bool)>) {
    let b = &c.bodies[bi];
    let terminal = !c.joints.iter().any(|j| j.parent == b.name);
    let effector = c.end_effectors.iter().find(|e| e.body == b.name);
    let is_pad = effector.is_some()
        && c.joint_to(&b.name)
            .is_some_and(|j| matches!(j.kind, JointKind::Fixed))
        && terminal;
    ui.strong("End effector");
    if is_pad {
        let tag = effector.map(|e| e.tag);
        ui.label(format!(
            "pad `{}` ({:?})",
            b.name,
            tag.unwrap_or(EffectorTag::Foot)
        ));
        if let Shape::Box { half_extents } = b.shape {
            if let Some(h) = vec3(ui, "half size", half_extents, 0.002, " m") {
                edits.push((
                    Edit::ResizeEndEffector {
                        body: b.name.clone(),
                        half_extents: h.map(|x| x.max(0.005)),
                    },
                    true,
                ));
            }
        }
        if let Some(p) = vec3(ui, "position", b.position, 0.002, " m") {
            edits.push((
                Edit::MoveEndEffector {
                    body: b.name.clone(),
                    position: p,
                },
                true,
            ));
        }
        if ui.button("Remove pad").clicked() {
            edits.push((
                Edit::RemoveEndEffector {
                    body: b.name.clone(),
                },
                false,
            ));
        }
    } else if terminal {
        if let Some(e) = effector {
            ui.label(format!(
                "{:?} point at ({:.3}, {:.3}, {:.3}) in the body frame",
                e.tag, e.point[0], e.point[1], e.point[2]
            ));
        }
        ui.horizontal(|ui| {
            for (label, tag, h) in [
                ("Add foot pad", EffectorTag::Foot, [0.09, 0.015, 0.05]),
                ("Add hand pad", EffectorTag::Hand, [0.04, 0.015, 0.04]),
            ] {
                if ui
                    .button(label)
                    .on_hover_text(
                        "A box welded under the body's far end, for stable ground contact",
                    )
                    .clicked()
                {
                    edits.push((
                        Edit::AddEndEffector {
                            body: b.name.clone(),
                            tag,
                            half_extents: h,
                        },
                        false,
                    ));
                }
            }
        });
    } else {
        ui.weak("Only terminal bodies take a pad.");
    }
}

fn structure(ui: &mut egui::Ui, c: &Character, bi: usize, edits: &mut Vec<(Edit, bool)>) {
    let name = c.bodies[bi].name.clone();
    let is_root = c.root.body == name;
    ui.strong("Structure");
    ui.horizontal_wrapped(|ui| {
        if ui
            .add_enabled(!is_root, egui::Button::new("Make root"))
            .clicked()
        {
            edits.push((Edit::SetRoot { body: name.clone() }, false));
        }
        if ui
            .add_enabled(!is_root, egui::Button::new("Delete with subtree"))
            .clicked()
        {
            edits.push((
                Edit::DeleteBody {
                    body: name.clone(),
                    mode: DeleteMode::Subtree,
                },
                false,
            ));
        }
        if ui
            .add_enabled(!is_root, egui::Button::new("Delete, children move up"))
            .on_hover_text("The body's children hang from its parent")
            .clicked()
        {
            edits.push((
                Edit::DeleteBody {
                    body: name.clone(),
                    mode: DeleteMode::MergeChildrenUp,
                },
                false,
            ));
        }
        if let Some(parent) = c.joint_to(&name).map(|j| j.parent.clone())
            && ui
                .button(format!("Merge into `{parent}`"))
                .on_hover_text("One body covering both; masses add up")
                .clicked()
        {
            edits.push((
                Edit::MergeBodies {
                    keep: parent,
                    absorb: name.clone(),
                },
                false,
            ));
        }
    });
}
