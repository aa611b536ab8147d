//! The gallery's motions as skinned characters: one skinned figure per motion on show (each on
//! its own body, so a shape variant shows its own limbs), tinted in the motion's colour and
//! posed every frame from its recorded rollout at the gallery clock.

use super::*;
use crate::app::workbench::figures::{FigureAssets, Look, pose_to_transform, spawn_figure};

/// A bone of a gallery figure: the motion and the body it follows.
#[derive(Component)]
pub(super) struct GalleryBone {
    motion: usize,
    body: usize,
}

#[derive(Component)]
pub(super) struct GalleryFigure;

/// (motion, cache key) of every motion whose rollout is at hand, when the gallery shows.
fn wanted(state: &DiversityState, stage: Stage) -> Vec<(usize, u64)> {
    if stage != Stage::Panel(super::PANEL) {
        return Vec::new();
    }
    state
        .entries
        .iter()
        .filter(|e| state.cache.contains_key(&e.key))
        .map(|e| (e.index, e.key))
        .collect()
}

/// Spawns a skinned figure per motion on show, again whenever the motions or their rollouts
/// change.
pub(super) fn rebuild_gallery_figures(
    mut commands: Commands,
    state: Res<DiversityState>,
    stage: Res<State<Stage>>,
    mut built: Local<Vec<(usize, u64)>>,
    old: Query<Entity, Or<(With<GalleryBone>, With<GalleryFigure>)>>,
    mut assets: FigureAssets,
    mut report: ResMut<crate::app::workbench::capture::ShotReport>,
) {
    let want = wanted(&state, *stage.get());
    if *built == want {
        return;
    }
    report.figures.insert("gallery".into(), want.len());
    for e in &old {
        commands.entity(e).despawn();
    }
    for &(motion, _) in &want {
        let Some(run) = state.run(motion) else {
            continue;
        };
        spawn_figure(
            &mut commands,
            &mut assets,
            &run.character,
            |body| (GalleryBone { motion, body }, Transform::IDENTITY),
            GalleryFigure,
            Look::Solid(motion_colour(motion)),
        );
    }
    *built = want;
}

/// Poses every gallery bone from its motion's frame at the gallery clock, in its lane.
pub(super) fn pose_gallery_figures(
    state: Res<DiversityState>,
    mut bones: Query<(&GalleryBone, &mut Transform)>,
) {
    for (bone, mut t) in &mut bones {
        let pose = state
            .frame(bone.motion, state.clock)
            .and_then(|(_, f)| f.poses.get(bone.body).copied());
        if let Some(p) = pose {
            *t = pose_to_transform(p);
            t.translation.z += bone.motion as f32 * GALLERY_SPACING;
        }
    }
}
