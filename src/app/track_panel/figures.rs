//! The finished searches that play, side by side across the view (1.4 m apart), each simulated
//! character solid in its slot's tint, and the target of the first as a grey ghost beside them,
//! all posed at the panel's clock.

use super::*;
use crate::app::workbench::capture::ShotReport;
use crate::app::workbench::figures::{FigureAssets, Look, pose64_to_transform, spawn_figure};
use crate::app::workbench::palette;

/// Metres between figures, across the direction of travel (z).
const SPACING: f32 = 1.4;

/// The target's ghost colour.
const TARGET_GREY: [f32; 3] = [0.75, 0.75, 0.78];

/// What a bone follows: slot `slot`'s simulated motion, or (with `target`) what it tracked.
#[derive(Component)]
pub(super) struct TrackBone {
    slot: usize,
    body: usize,
    target: bool,
}

#[derive(Component)]
pub(super) struct TrackFigure;

type FigureParts = Or<(With<TrackBone>, With<TrackFigure>)>;

/// The lateral offset of slot `slot` (to the screen's left, +z, from the front); the target's
/// ghost stands left of the last.
fn offset(slot: usize) -> Vec3 {
    Vec3::new(0.0, 0.0, SPACING * slot as f32)
}

pub(super) fn rebuild_figures(
    mut commands: Commands,
    state: Res<TrackState>,
    stage: Res<State<Stage>>,
    mut built: Local<(u64, usize, bool)>,
    old: Query<Entity, FigureParts>,
    mut assets: FigureAssets,
    mut report: ResMut<ShotReport>,
) {
    let showing = *stage.get() == Stage::Panel(PANEL);
    let runs = state.playing_runs();
    let want = (state.generation, runs.len(), showing);
    if *built == want {
        return;
    }
    *built = want;
    for e in &old {
        commands.entity(e).despawn();
    }
    let count = if showing { runs.len() } else { 0 };
    report.figures.insert("track".into(), count);
    if !showing {
        return;
    }
    for (slot, shown) in runs.iter().enumerate() {
        spawn_figure(
            &mut commands,
            &mut assets,
            &shown.character,
            |body| {
                (
                    TrackBone {
                        slot,
                        body,
                        target: false,
                    },
                    Transform::IDENTITY,
                )
            },
            TrackFigure,
            Look::Solid(palette::slot_tint(slot)),
        );
    }
    if let Some(first) = runs.first() {
        spawn_figure(
            &mut commands,
            &mut assets,
            &first.character,
            |body| {
                (
                    TrackBone {
                        slot: 0,
                        body,
                        target: true,
                    },
                    Transform::IDENTITY,
                )
            },
            TrackFigure,
            Look::Ghost(TARGET_GREY),
        );
    }
}

pub(super) fn pose_figures(
    state: Res<TrackState>,
    mut bones: Query<(&TrackBone, &mut Transform)>,
    mut orbit: ResMut<crate::app::viewport::OrbitCamera>,
    mut framed: Local<u64>,
) {
    let runs = state.playing_runs();
    let Some(first) = runs.first() else {
        return;
    };
    let t = state.clock as f64;
    let poses: Vec<Vec<[f64; 7]>> = runs
        .iter()
        .map(|s| s.result.clip.poses_at(&s.character, t, false))
        .collect();
    let target = first.target.poses_at(&first.character, t, false);
    let root = first
        .character
        .body_index(&first.character.root.body)
        .unwrap_or(0);
    // Follow the first simulated character along its travel; the row spans the slots.
    let p = poses[0][root];
    // The middle of the row (the ghost included), a little to its right: the right dock
    // covers the right of the window.
    let middle = 0.5 * runs.len() as f32 * SPACING - 0.6;
    orbit.focus = Some(Vec3::new(p[0] as f32, 0.9, middle));
    if *framed != state.generation {
        *framed = state.generation;
        orbit.distance = 3.5 + SPACING * runs.len() as f32;
        orbit.yaw = 0.0;
        orbit.pitch = 0.15;
    }
    for (bone, mut tf) in &mut bones {
        let (pose, slot) = if bone.target {
            (target.get(bone.body), runs.len())
        } else {
            (
                poses.get(bone.slot).and_then(|p| p.get(bone.body)),
                bone.slot,
            )
        };
        if let Some(p) = pose {
            let mut x = pose64_to_transform(p);
            x.translation += offset(slot);
            *tf = x;
        }
    }
}
