//! Keyboard, gamepad and mouse actions on the live simulation, with parity between them: push
//! the trunk relative to the camera (arrow keys; the gamepad's left stick and A), push the body
//! under the cursor (click), play/pause (Space, Start), reset (R, Select) and single step (.).
//! Runs before the simulation steps ([`super::character::StepSimulation`]).

use super::character::{LiveSim, StepSimulation};
use super::viewport::{MainCamera, OrbitCamera};
use bevy::prelude::*;
use bevy::window::PrimaryWindow;
use bevy_egui::input::EguiWantsInput;

pub struct InputPlugin;

impl Plugin for InputPlugin {
    fn build(&self, app: &mut App) {
        app.add_systems(Update, push_input.before(StepSimulation));
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
    egui_input: Option<Res<EguiWantsInput>>,
    steering: Option<Res<super::steering::SteeringState>>,
) {
    // While steering, the keys and sticks steer the figure instead.
    if steering.is_some_and(|s| s.active) {
        return;
    }
    let fwd = orbit.forward_flat();
    let right = fwd.cross(Vec3::Y);
    let target = live.heaviest_body();
    let keyboard_wanted = egui_input
        .as_ref()
        .map(|e| e.wants_keyboard_input())
        .unwrap_or(false);
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
    let over_ui = egui_input
        .map(|e| e.wants_pointer_input() || e.is_pointer_over_area())
        .unwrap_or(false);
    if over_ui || !mouse.just_pressed(MouseButton::Left) {
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
    let mut best: Option<(f32, usize)> = None;
    for (i, b) in live.character.bodies.iter().enumerate() {
        let p = live.sim.body_pose(i);
        let centre = Vec3::new(p[0], p[1], p[2]);
        let radius = 0.5 * b.length().max(0.1) as f32;
        let oc = centre - ray.origin;
        let t = oc.dot(*ray.direction);
        if t <= 0.0 {
            continue;
        }
        let d2 = oc.length_squared() - t * t;
        let r = match b.shape.as_f32() {
            crate::model::Shape::Capsule { radius, .. }
            | crate::model::Shape::Cylinder { radius, .. } => radius * 1.3,
            _ => radius * 0.8,
        }
        .max(0.05);
        if d2 <= r * r && best.map(|(bt, _)| t < bt).unwrap_or(true) {
            best = Some((t, i));
        }
    }
    if let Some((_, i)) = best {
        let d = Vec3::new(ray.direction.x, 0.0, ray.direction.z);
        live.push(i, d);
    }
}
