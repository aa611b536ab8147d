//! Characters from skinned skeletons in the editor: a glTF, GLB or BVH dropped on the window (or
//! opened) becomes a character by [`crate::arbs::build_character`] (Borer et al. 2018, §4.1),
//! shown with its skeleton and its skin over the bodies; its animations transfer to clips by
//! full-body IK (Borer et al. 2018, §4.3) on a background thread, with the root and end-effector errors reported,
//! and the clip lands in `results/clips/`, where the Library finds it.

use super::EditorState;
use crate::arbs::{ArbsMap, ErrorSummary, Skeleton, TransferOptions, transfer};
use crate::clip::CharacterRef;
use crate::model::Character;
use bevy::asset::RenderAssetUsages;
use bevy::mesh::{Indices, PrimitiveTopology};
use bevy::prelude::*;
use bevy_egui::egui;
use crossbeam_channel::Receiver;
use std::path::{Path, PathBuf};

/// A skeleton read from a file and the character built from it.
pub struct Imported {
    pub skeleton: Skeleton,
    pub map: ArbsMap,
    /// The character as built (the map's body indices refer to it).
    pub built: Character,
    /// Animation picked for transfer.
    pub animation: usize,
    /// Increases when a new skeleton is imported (the skin mesh follows).
    pub generation: u64,
}

/// A finished transfer.
#[derive(Clone, Debug)]
pub struct TransferDone {
    pub animation: String,
    pub clip: PathBuf,
    pub frames: usize,
    pub root: ErrorSummary,
    pub effector: ErrorSummary,
}

/// Why a transfer wrote no clip.
#[derive(Debug, thiserror::Error)]
pub enum TransferError {
    #[error("{}: {error}", path.display())]
    ReadCharacter {
        path: PathBuf,
        error: std::io::Error,
    },
    #[error(transparent)]
    Transfer(#[from] crate::arbs::ArbsError),
    #[error("cannot write {}: {error}", path.display())]
    WriteClip {
        path: PathBuf,
        error: std::io::Error,
    },
}

#[derive(Default)]
pub struct TransferState {
    pub(super) running: Option<(String, Receiver<Result<TransferDone, TransferError>>)>,
    pub last: Option<TransferDone>,
    pub error: Option<String>,
}

static IMPORTS: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(1);

/// Opens (unsaved) in the editor a character built from a skinned glTF/GLB or a BVH, with the
/// skeleton it was built from.
pub(super) fn opened(
    state: &mut EditorState,
    path: &Path,
    skeleton: Skeleton,
    character: Character,
    map: ArbsMap,
) {
    let message = format!(
        "built {} bodies, {} joints, {:.1} kg from {} ({} skeleton joints, {} animations){}",
        character.bodies.len(),
        character.joints.len(),
        character.total_mass(),
        path.display(),
        skeleton.joints.len(),
        skeleton.animations.len(),
        if skeleton.warnings.is_empty() {
            String::new()
        } else {
            format!("; {}", skeleton.warnings.join("; "))
        }
    );
    state.import = Some(Imported {
        skeleton,
        map,
        built: character.clone(),
        animation: 0,
        generation: IMPORTS.fetch_add(1, std::sync::atomic::Ordering::Relaxed),
    });
    state.transfer = TransferState::default();
    state.open(character, None);
    state.message = message;
}

/// The map of the built character carried over to the edited one by body name: bodies deleted
/// since the import lose their points, the others keep them.
fn remap(map: &ArbsMap, built: &Character, edited: &Character) -> ArbsMap {
    let index = |i: usize| edited.body_index(&built.bodies[i].name);
    let mut bodies = vec![None; edited.bodies.len()];
    for (i, ks) in map.bodies.iter().enumerate() {
        if let Some(k) = index(i) {
            bodies[k] = *ks;
        }
    }
    let mut axes = vec![None; edited.bodies.len()];
    for (i, a) in map.axes.iter().enumerate() {
        if let Some(k) = index(i) {
            axes[k] = *a;
        }
    }
    let points = map
        .points
        .iter()
        .filter_map(|p| index(p.body).map(|body| crate::arbs::MappedPoint { body, ..*p }))
        .collect();
    // End effectors are matched by body name and tag, in the edited character's order.
    let end_effectors = edited
        .end_effectors
        .iter()
        .map(|e| {
            built
                .end_effectors
                .iter()
                .position(|b| b.body == e.body && b.tag == e.tag)
                .and_then(|k| map.end_effectors.get(k).copied())
                .unwrap_or(0)
        })
        .collect();
    ArbsMap {
        root: map.root,
        bodies,
        end_effectors,
        points,
        axes,
        human_masses: map.human_masses,
    }
}

pub(super) fn import_ui(ui: &mut egui::Ui, state: &mut EditorState) {
    let Some(import) = state.import.as_mut() else {
        return;
    };
    let s = &import.skeleton;
    ui.strong("Imported skeleton");
    ui.label(format!(
        "{}: {} joints, {} skin samples, scale {:.3}",
        s.source,
        s.joints.len(),
        s.skin.len(),
        s.scale
    ));
    ui.horizontal(|ui| {
        ui.checkbox(&mut state.show_skeleton, "skeleton");
        ui.checkbox(&mut state.show_skin, "skin");
    });
    if s.animations.is_empty() {
        ui.weak("No animation to transfer.");
        return;
    }
    let current = s
        .animations
        .get(import.animation)
        .map(|a| format!("{} ({} frames, {:.0} Hz)", a.name, a.frames.len(), a.rate))
        .unwrap_or_default();
    egui::ComboBox::from_id_salt("editor_animation")
        .selected_text(current)
        .show_ui(ui, |ui| {
            for (i, a) in s.animations.iter().enumerate() {
                ui.selectable_value(
                    &mut import.animation,
                    i,
                    format!("{} ({} frames)", a.name, a.frames.len()),
                );
            }
        });
    let running = state.transfer.running.as_ref().map(|r| r.0.clone());
    let modified = state.doc.as_ref().is_some_and(|d| d.is_modified());
    // The clip refers to the character's file: an unsaved import is saved into
    // `results/characters/` first; a modified file must be saved by the user.
    let ready = running.is_none() && !(modified && state.path.is_some());
    ui.horizontal_wrapped(|ui| {
        let button = ui
            .add_enabled(ready, egui::Button::new("Transfer to clip"))
            .on_hover_text("Full-body IK per frame onto the character (Borer et al. 2018, §4.3)");
        if let Some(name) = &running {
            ui.spinner();
            ui.label(format!("transferring {name}…"));
        } else if modified && state.path.is_some() {
            ui.weak("save the character first: the clip refers to its file");
        } else if state.path.is_none() {
            ui.weak("saves the character into results/characters/ first");
        }
        if button.clicked() {
            start_transfer(state);
        }
    });
    if let Some(e) = &state.transfer.error {
        ui.label(egui::RichText::new(e).color(egui::Color32::from_rgb(200, 40, 40)));
    }
    if let Some(d) = &state.transfer.last {
        ui.label(format!(
            "{}: {} frames → {}",
            d.animation,
            d.frames,
            d.clip.display()
        ));
        for (what, s) in [("root", &d.root), ("end effectors", &d.effector)] {
            ui.small(format!(
                "{what} error: median {:.1} cm, p90 {:.1} cm, max {:.1} cm; ≤ 5 cm in {:.0} % of frames",
                100.0 * s.median,
                100.0 * s.p90,
                100.0 * s.max,
                100.0 * s.within
            ));
        }
    }
}

/// Starts the transfer of the picked animation onto the document's character (saved first into
/// `results/characters/` when it has no file yet).
pub(super) fn start_transfer(state: &mut EditorState) {
    if state.path.is_none()
        && let Some(doc) = state.doc.as_ref()
    {
        let name = sanitize(&doc.character().name);
        let path = PathBuf::from("results")
            .join("characters")
            .join(format!("{name}.ron"));
        state.save(&path);
        if state.path.is_none() {
            return;
        }
    }
    let (Some(path), Some(doc), Some(import)) = (
        state.path.clone(),
        state.doc.as_ref(),
        state.import.as_ref(),
    ) else {
        return;
    };
    let edited = doc.character().clone();
    let map = remap(&import.map, &import.built, &edited);
    let ks = import.skeleton.clone();
    let animation = import.animation;
    let Some(name) = ks.animations.get(animation).map(|a| a.name.clone()) else {
        return;
    };
    let (tx, rx) = crossbeam_channel::bounded(1);
    state.transfer.running = Some((name.clone(), rx));
    state.transfer.error = None;
    std::thread::spawn(move || {
        let _ = tx.send(run_transfer(&ks, animation, &edited, &map, &path, &name));
    });
}

fn run_transfer(
    ks: &Skeleton,
    animation: usize,
    character: &Character,
    map: &ArbsMap,
    character_path: &Path,
    name: &str,
) -> Result<TransferDone, TransferError> {
    let text =
        std::fs::read_to_string(character_path).map_err(|error| TransferError::ReadCharacter {
            path: character_path.to_path_buf(),
            error,
        })?;
    let options = TransferOptions {
        character: Some(CharacterRef::new(character_path, &text)),
        ..TransferOptions::default()
    };
    let t = transfer(ks, animation, character, map, &options)?;
    let file = sanitize(&format!("{}-{name}", character.name));
    let clip = PathBuf::from("results")
        .join("clips")
        .join(format!("{file}.clip.ron"));
    t.clip
        .save(&clip)
        .map_err(|error| TransferError::WriteClip {
            path: clip.clone(),
            error,
        })?;
    Ok(TransferDone {
        animation: name.to_string(),
        clip,
        frames: t.clip.frames.len(),
        root: t.root_summary(),
        effector: t.effector_summary(),
    })
}

fn sanitize(s: &str) -> String {
    s.chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '-' || c == '_' {
                c
            } else {
                '_'
            }
        })
        .collect()
}

pub(super) fn poll_transfer(mut state: ResMut<EditorState>) {
    let Some((_, rx)) = state.transfer.running.as_ref() else {
        return;
    };
    if let Ok(r) = rx.try_recv() {
        state.transfer.running = None;
        match r {
            Ok(d) => {
                state.message = format!("transferred {} to {}", d.animation, d.clip.display());
                state.transfer.last = Some(d);
            }
            Err(e) => state.transfer.error = Some(e.to_string()),
        }
    }
}

/// The imported skin, translucent over the bodies, in the rest pose the character was built in.
#[derive(Component)]
pub struct ImportedSkin;

pub(super) fn rebuild_skin_mesh(
    mut commands: Commands,
    state: Res<EditorState>,
    mut built: Local<u64>,
    old: Query<(Entity, &mut Visibility), With<ImportedSkin>>,
    mut meshes: ResMut<Assets<Mesh>>,
    mut materials: ResMut<Assets<StandardMaterial>>,
) {
    let want = state
        .import
        .as_ref()
        .filter(|_| state.visible)
        .map(|i| i.generation)
        .unwrap_or(0);
    let mut old = old;
    if want == *built {
        let show = state.visible && state.show_skin;
        for (_, mut v) in &mut old {
            let target = if show {
                Visibility::Inherited
            } else {
                Visibility::Hidden
            };
            if *v != target {
                *v = target;
            }
        }
        return;
    }
    *built = want;
    for (e, _) in &old {
        commands.entity(e).despawn();
    }
    let Some(import) = state.import.as_ref().filter(|_| state.visible) else {
        return;
    };
    let s = &import.skeleton;
    if s.skin.is_empty() || s.skin_triangles.is_empty() {
        return;
    }
    let positions: Vec<[f32; 3]> = s
        .skin
        .iter()
        .map(|v| v.position.map(|x| x as f32))
        .collect();
    let indices: Vec<u32> = s
        .skin_triangles
        .iter()
        .flat_map(|t| t.map(|i| i as u32))
        .collect();
    let mut mesh = Mesh::new(
        PrimitiveTopology::TriangleList,
        RenderAssetUsages::default(),
    )
    .with_inserted_attribute(Mesh::ATTRIBUTE_POSITION, positions)
    .with_inserted_indices(Indices::U32(indices));
    mesh.compute_smooth_normals();
    commands.spawn((
        Mesh3d(meshes.add(mesh)),
        MeshMaterial3d(materials.add(StandardMaterial {
            base_color: Color::srgba(0.35, 0.75, 0.95, 0.35),
            alpha_mode: AlphaMode::Blend,
            double_sided: true,
            cull_mode: None,
            perceptual_roughness: 0.8,
            ..default()
        })),
        Transform::IDENTITY,
        ImportedSkin,
    ));
}
