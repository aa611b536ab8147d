//! The selected jumps as skinned figures: the first opaque in its regime's colour, the others
//! translucent ghosts at the same place, posed from their recorded rollouts at the panel's
//! clock; the assist as an upward arrow on the centre of mass, as long as the external force
//! (1 m per 800 N) while it acts.

use super::*;
use crate::app::workbench::figures::{FigureAssets, Look, pose_to_transform, spawn_figure};

#[derive(Component)]
pub(super) struct ParetoBone {
    slot: usize,
    body: usize,
}

#[derive(Component)]
pub(super) struct ParetoFigure;

/// The entities of the figures on show.
type FigureParts = Or<(With<ParetoBone>, With<ParetoFigure>)>;

/// (slot, point, natural) of every selected point whose rollout is at hand.
fn wanted(state: &ParetoState, stage: Stage) -> Vec<(usize, usize, bool)> {
    if stage != Stage::Panel(super::PANEL) {
        return Vec::new();
    }
    state
        .selected
        .iter()
        .enumerate()
        .filter_map(|(slot, &i)| state.recorded(i).map(|r| (slot, i, r.outcome.is_natural())))
        .collect()
}

pub(super) fn rebuild_figures(
    mut commands: Commands,
    state: Res<ParetoState>,
    stage: Res<State<Stage>>,
    mut built: Local<Vec<(usize, usize, bool)>>,
    old: Query<Entity, FigureParts>,
    mut assets: FigureAssets,
) {
    let want = wanted(&state, *stage.get());
    if *built == want {
        return;
    }
    for e in &old {
        commands.entity(e).despawn();
    }
    for &(slot, point, natural) in &want {
        let Some(rec) = state.recorded(point) else {
            continue;
        };
        let colour = regime_colour(natural);
        spawn_figure(
            &mut commands,
            &mut assets,
            &rec.run.character,
            |body| (ParetoBone { slot, body }, Transform::IDENTITY),
            ParetoFigure,
            if slot > 0 {
                Look::Ghost(colour)
            } else {
                Look::Solid(colour)
            },
        );
    }
    *built = want;
}

/// Index of the frame at the panel's clock.
fn frame_index(rec: &Recorded, t: f32) -> Option<usize> {
    let f = &rec.run.frames;
    if f.is_empty() {
        return None;
    }
    Some(f.partition_point(|x| x.time < t).min(f.len() - 1))
}

pub(super) fn pose_figures(
    state: Res<ParetoState>,
    mut bones: Query<(&ParetoBone, &mut Transform)>,
    mut orbit: ResMut<crate::app::viewport::OrbitCamera>,
    mut framed: Local<Vec<usize>>,
) {
    // Frame the whole of the highest selected jump, from the side, once per selection.
    let top = state
        .selected
        .iter()
        .filter_map(|&i| state.recorded(i))
        .map(|r| r.outcome.height as f32)
        .fold(1.6f32, f32::max);
    orbit.focus = Some(Vec3::new(0.0, 0.45 * top + 0.2, 0.0));
    if *framed != state.selected {
        *framed = state.selected.clone();
        orbit.distance = 2.0 + 1.7 * top;
        orbit.yaw = 0.35;
        orbit.pitch = 0.12;
    }
    for (bone, mut t) in &mut bones {
        let Some(rec) = state
            .selected
            .get(bone.slot)
            .and_then(|&i| state.recorded(i))
        else {
            continue;
        };
        let Some(k) = frame_index(rec, state.clock) else {
            continue;
        };
        if let Some(p) = rec.run.frames[k].poses.get(bone.body) {
            *t = pose_to_transform(*p);
        }
    }
}

/// Newtons per metre of the assist arrow.
const NEWTONS_PER_METRE: f32 = 800.0;

pub(super) fn draw_assist(state: Res<ParetoState>, mut gizmos: Gizmos) {
    for &i in &state.selected {
        let Some(rec) = state.recorded(i) else {
            continue;
        };
        let Some(k) = frame_index(rec, state.clock) else {
            continue;
        };
        let Some(g) = assisted(rec, k) else { continue };
        let mass = rec.run.character.total_mass() as f32;
        let force = crate::pareto::Assist::external_force(mass, g);
        let c = rec.run.frames[k].com;
        let from = Vec3::new(c[0], c[1], c[2]);
        let to = from + Vec3::Y * (force / NEWTONS_PER_METRE);
        gizmos.arrow(from, to, Color::srgb(1.0, 0.55, 0.1));
    }
}
