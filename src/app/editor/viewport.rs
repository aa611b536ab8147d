//! The editor in the viewport: clicking a body selects it; the selected body is outlined, its
//! joint's axes drawn as arrows from the anchor, each axis's limits as an arc from the lower to
//! the upper limit (the child's direction at zero turned about the axis, Borer et al. 2018, §4.3
//! "Joints: change rotation axis and limits") with the current angle as a spoke, and the
//! imported skeleton (the kinematic skeleton, Borer et al. 2018, §4) as lines over the bodies. The drag handles are in
//! `handles`.

use super::EditorState;
use crate::app::character::LiveSim;
use crate::app::overlays::{OverlayGizmos, draw_shape};
use crate::app::viewport::MainCamera;
use crate::model::JointKind;
use bevy::prelude::*;
use bevy::window::PrimaryWindow;
use crate::app::workbench::pointer::UiPointer;

const SELECTED: Color = Color::srgb(1.0, 0.85, 0.1);
const AXIS: Color = Color::srgb(0.2, 0.45, 1.0);
const ARC: Color = Color::srgb(1.0, 0.35, 0.1);
const SKELETON: Color = Color::srgb(0.85, 0.1, 0.85);

pub(super) fn pick_body(
    mut state: ResMut<EditorState>,
    handles: Res<super::handles::Handles>,
    live: Res<LiveSim>,
    mouse: Res<ButtonInput<MouseButton>>,
    window: Query<&Window, With<PrimaryWindow>>,
    camera: Query<(&Camera, &GlobalTransform), With<MainCamera>>,
    ui: UiPointer,
) {
    if !state.visible || handles.took_click || !mouse.just_pressed(MouseButton::Left) {
        return;
    }
    if ui.over_ui() {
        return;
    }
    let (Ok(window), Ok((camera, cam_t))) = (window.single(), camera.single()) else {
        return;
    };
    let Some(ray) = window
        .cursor_position()
        .and_then(|c| camera.viewport_to_world(cam_t, c).ok())
    else {
        return;
    };
    if let Some(i) = crate::app::input::body_under_cursor(&live, ray) {
        state.selected = Some(live.character.bodies[i].name.clone());
    }
}

fn vec(v: [f64; 3]) -> Vec3 {
    Vec3::new(v[0] as f32, v[1] as f32, v[2] as f32)
}

pub(super) fn draw_editor(
    state: Res<EditorState>,
    live: Res<LiveSim>,
    camera: Query<&GlobalTransform, With<MainCamera>>,
    mut gizmos: Gizmos<OverlayGizmos>,
) {
    if !state.visible {
        return;
    }
    if state.show_skeleton
        && let Some(import) = &state.import
    {
        let s = &import.skeleton;
        let at = |k: usize| {
            let p = s.rest_position(k);
            Vec3::new(p.x as f32, p.y as f32, p.z as f32)
        };
        for (k, j) in s.joints.iter().enumerate() {
            gizmos.sphere(Isometry3d::from_translation(at(k)), 0.012, SKELETON);
            if let Some(parent) = j.parent {
                gizmos.line(at(parent), at(k), SKELETON);
            }
        }
    }
    let c = &live.character;
    let Some(bi) = state.selected_body(c) else {
        return;
    };
    let b = &c.bodies[bi];
    let pose = live.sim.body_pose(bi);
    let at = Vec3::new(pose[0], pose[1], pose[2]);
    let rot = Quat::from_xyzw(pose[3], pose[4], pose[5], pose[6]);
    draw_shape(&mut gizmos, &b.shape.as_f32(), at, rot, SELECTED);
    for e in c.end_effectors.iter().filter(|e| e.body == b.name) {
        gizmos.sphere(
            Isometry3d::from_translation(at + rot * vec(e.point)),
            0.02,
            SELECTED,
        );
    }
    let eye = camera
        .single()
        .map(|t| t.translation())
        .unwrap_or(Vec3::new(3.0, 2.0, 3.0));
    let frame = super::handle_geometry::body_frame(&live, bi, eye);
    let Some(j) = frame.joint else {
        return;
    };
    let joint = &c.joints[j.index];
    let anchor = j.anchor;
    gizmos.sphere(Isometry3d::from_translation(anchor), 0.025, AXIS);
    for d in &j.dofs {
        gizmos.arrow(anchor, anchor + d.axis * frame.size, AXIS);
        if let Some(&(lo, hi)) = joint.limits.get(d.k) {
            let n = (((hi - lo).abs() / 4.0).ceil() as usize).clamp(2, 90);
            let points: Vec<Vec3> = (0..=n)
                .map(|i| d.at_angle(anchor, lo + (hi - lo) * i as f64 / n as f64))
                .collect();
            gizmos.linestrip(points, ARC);
            gizmos.line(anchor, d.at_angle(anchor, lo), ARC);
            gizmos.line(anchor, d.at_angle(anchor, hi), ARC);
            // A fan of spokes every 15° fills the allowed range.
            let mut a = (lo / 15.0).ceil() * 15.0;
            while a < hi {
                gizmos.line(anchor, d.at_angle(anchor, a), ARC.with_alpha(0.35));
                a += 15.0;
            }
        }
        // The current angle: the child's direction in the same plane.
        if d.now != Vec3::ZERO && !matches!(joint.kind, JointKind::Fixed) {
            gizmos.line(anchor, anchor + d.now * d.radius * 1.15, Color::WHITE);
        }
    }
}
