//! Keyboard, gamepad and mouse actions on the live simulation, with parity between them: push
//! the trunk relative to the camera (arrow keys; the gamepad's left stick and A), push the body
//! under the cursor (click), play/pause (Space, Start), reset (R, Select) and single step (.).
//! Runs before the simulation steps ([`super::character::StepSimulation`]).

use super::character::{LiveSim, StepSimulation};
use super::viewport::{MainCamera, OrbitCamera};
use super::workbench::Stage;
use super::workbench::pointer::UiPointer;
use bevy::prelude::*;
use bevy::window::PrimaryWindow;

pub struct InputPlugin;

impl Plugin for InputPlugin {
    fn build(&self, app: &mut App) {
        // Only while the live simulation is on stage: otherwise the keys and sticks are the
        // stage owner's (the steered figure's, the editor's).
        app.add_systems(
            Update,
            push_input
                .before(StepSimulation)
                .run_if(super::overlays::shows_live),
        );
    }
}

#[allow(clippy::too_many_arguments)]
fn push_input(
    mut live: ResMut<LiveSim>,
    keys: Res<ButtonInput<KeyCode>>,
    mouse: Res<ButtonInput<MouseButton>>,
    orbit: Res<OrbitCamera>,
    window: Query<&Window, With<PrimaryWindow>>,
    camera: Query<(&Camera, &GlobalTransform), With<MainCamera>>,
    gamepads: Query<&Gamepad>,
    ui: UiPointer,
    stage: Res<State<Stage>>,
) {
    let fwd = orbit.forward_flat();
    let right = fwd.cross(Vec3::Y);
    let target = live.heaviest_body();
    let keyboard_wanted = ui.typing();
    if !keyboard_wanted {
        for (key, dir) in [
            (KeyCode::ArrowUp, fwd),
            (KeyCode::ArrowDown, -fwd),
            (KeyCode::ArrowRight, right),
            (KeyCode::ArrowLeft, -right),
        ] {
            if keys.just_pressed(key) {
                live.push(target, dir);
            }
        }
        if keys.just_pressed(KeyCode::Space) {
            live.playing = !live.playing;
        }
        if keys.just_pressed(KeyCode::KeyR) {
            live.reset();
        }
        if keys.just_pressed(KeyCode::Period) {
            live.single_step = true;
        }
    }
    for pad in &gamepads {
        let s = pad.left_stick();
        if pad.just_pressed(GamepadButton::South) {
            let dir = if s.length() > 0.3 {
                fwd * s.y + right * s.x
            } else {
                fwd
            };
            live.push(target, dir);
        }
        if pad.just_pressed(GamepadButton::Start) {
            live.playing = !live.playing;
        }
        if pad.just_pressed(GamepadButton::Select) {
            live.reset();
        }
    }
    // Click a body: push it away from the camera.
    let over_ui = ui.over_ui();
    // In the editor a click selects instead.
    let editing = *stage.get() == Stage::Editor;
    if over_ui || editing || !mouse.just_pressed(MouseButton::Left) {
        return;
    }
    let (Ok(window), Ok((camera, cam_t))) = (window.single(), camera.single()) else {
        return;
    };
    let Some(cursor) = window.cursor_position() else {
        return;
    };
    let Ok(ray) = camera.viewport_to_world(cam_t, cursor) else {
        return;
    };
    if let Some(i) = body_under_cursor(&live, ray) {
        let d = Vec3::new(ray.direction.x, 0.0, ray.direction.z);
        live.push(i, d);
    }
}

/// The body of the live simulation nearest the camera along `ray`: what a click pushes, or
/// selects in the editor. Each body is taken as a capsule around its main axis (boxes and
/// ellipsoids by their longest axis and the larger of the other two sizes), 1 cm more generous.
pub fn body_under_cursor(live: &LiveSim, ray: Ray3d) -> Option<usize> {
    use crate::model::Shape;
    let mut best: Option<(f32, usize)> = None;
    for (i, b) in live.character.bodies.iter().enumerate() {
        let pose = live.sim.body_pose(i);
        let at = Vec3::new(pose[0], pose[1], pose[2]);
        let q = Quat::from_xyzw(pose[3], pose[4], pose[5], pose[6]);
        let (axis, half, radius) = match b.shape.as_f32() {
            Shape::Capsule {
                radius,
                half_length,
                axis,
            }
            | Shape::Cylinder {
                radius,
                half_length,
                axis,
            } => (axis.index(), half_length, radius),
            Shape::Box { half_extents: h } | Shape::Ellipsoid { radii: h } => {
                let k = (0..3).max_by(|&a, &c| h[a].total_cmp(&h[c])).unwrap_or(0);
                let r = (0..3)
                    .filter(|&m| m != k)
                    .map(|m| h[m])
                    .fold(0.0f32, f32::max);
                (k, (h[k] - r).max(0.0), r)
            }
        };
        let mut dir = Vec3::ZERO;
        dir[axis] = 1.0;
        let dir = q * dir;
        let (t, d) = ray_segment(ray, at - dir * half, at + dir * half);
        if t > 0.0 && d <= radius + 0.01 && best.map(|(bt, _)| t < bt).unwrap_or(true) {
            best = Some((t, i));
        }
    }
    best.map(|(_, i)| i)
}

/// Distance along `ray` of its closest approach to the segment a–b, and that distance.
fn ray_segment(ray: Ray3d, a: Vec3, b: Vec3) -> (f32, f32) {
    let d = *ray.direction;
    let e = b - a;
    let w = ray.origin - a;
    let (dd, de, ee) = (d.dot(d), d.dot(e), e.dot(e));
    let (dw, ew) = (d.dot(w), e.dot(w));
    let den = dd * ee - de * de;
    let mut s = if den > 1e-9 {
        ((dd * ew - de * dw) / den).clamp(0.0, 1.0)
    } else {
        0.0
    };
    let mut t = (de * s - dw) / dd;
    if t < 0.0 {
        t = 0.0;
        s = if ee > 1e-9 {
            (-ew / ee).clamp(0.0, 1.0)
        } else {
            0.0
        };
    }
    let p = ray.origin + d * t;
    let q = a + e * s;
    (t, (p - q).length())
}
