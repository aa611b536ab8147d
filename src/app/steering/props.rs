//! Props in the Steering view: two boxes, a stack to knock over, a ramp, and balls thrown from the
//! camera at the character (B, or the gamepad's north button), in the props' own rapier world
//! ([`crate::sim::props::PropWorld`]). How they meet the character: its bodies are kinematic
//! colliders there, moved to the pose on show every frame, so props bounce off it; in physics
//! playback the impulse each body receives is applied to the simulated human (its own world, the
//! headless builder's) as a push, so a ball can knock it over.
//!
//! bevy_rapier3d, which the user named for these, pins rapier3d `=0.35.0-glamx0.2`; this project
//! uses rapier3d 0.35.3 with its own patches (vendor/rapier3d), and Cargo allows one 0.35 in a
//! build, so the props use that same rapier directly.

use super::SteeringState;
use crate::sim::props::{PropShape, PropWorld};
use bevy::prelude::*;

/// The props around the character at the start.
pub fn scene(character: &crate::model::Character) -> PropWorld {
    let mut w = PropWorld::new(character);
    w.add_box([6.0, 0.4, 4.0], [0.4, 0.4, 0.4], 0.3, false);
    w.add_box([-5.0, 0.25, 5.0], [0.6, 0.25, 0.3], -0.5, false);
    for k in 0..3 {
        w.add_box(
            [4.0, 0.15 + 0.3 * k as f32, 6.0],
            [0.15, 0.15, 0.15],
            0.0,
            true,
        );
    }
    w.add_ramp([-7.0, 0.25, -5.0], [1.5, 0.05, 1.0], 0.8, 0.2);
    w
}

/// Throws, steps the props' world with the character where it is shown, and hands the hits to
/// the simulated human.
pub(super) fn step_props(
    mut state: ResMut<SteeringState>,
    keys: Res<ButtonInput<KeyCode>>,
    gamepads: Query<&Gamepad>,
    orbit: Res<super::super::viewport::OrbitCamera>,
    time: Res<Time>,
    options: Res<super::super::AppOptions>,
) {
    if !state.active {
        return;
    }
    let throw = keys.just_pressed(KeyCode::KeyB)
        || gamepads
            .iter()
            .any(|p| p.just_pressed(GamepadButton::North))
        || std::mem::take(&mut state.throw);
    let dt = if options.screenshot.is_some() {
        1.0 / 60.0
    } else {
        time.delta_secs().clamp(1e-4, 0.05)
    };
    let Some(poses) = state.shown_poses() else {
        return;
    };
    let st = &mut *state;
    let Some(world) = st.props.as_mut() else {
        return;
    };
    if throw {
        // From beside the camera towards the character's chest, fast.
        let eye = orbit.eye();
        let target = orbit.target + Vec3::Y * 0.3;
        let v = (target - eye).normalize_or(Vec3::X) * 14.0 + Vec3::Y * 1.0;
        world.throw_ball(eye.to_array(), v.to_array(), 0.11);
    }
    world.set_character(&poses);
    let hits = world.step(dt);
    if let Some(p) = st.physics.as_mut() {
        for (body, j) in hits {
            p.sim.push(body, j, dt);
        }
    }
}

/// A prop's entity: the prop's id in the props' world.
#[derive(Component)]
pub(super) struct PropEntity(u64);

pub(super) fn show_props(
    mut commands: Commands,
    state: Res<SteeringState>,
    mut shown: Query<(Entity, &PropEntity, &mut Transform)>,
    mut meshes: ResMut<Assets<Mesh>>,
    mut materials: ResMut<Assets<StandardMaterial>>,
) {
    let props = match (&state.props, state.active) {
        (Some(w), true) => w.props(),
        _ => Vec::new(),
    };
    let mut have = vec![false; props.len()];
    for (e, p, mut t) in &mut shown {
        match props.iter().position(|s| s.id == p.0) {
            Some(k) => {
                *t = super::super::pose_to_transform(props[k].pose);
                have[k] = true;
            }
            None => commands.entity(e).despawn(),
        }
    }
    for (_, s) in props.iter().enumerate().filter(|(i, _)| !have[*i]) {
        let (mesh, colour) = match s.shape {
            PropShape::Box { half_extents: h } => (
                meshes.add(Cuboid::new(2.0 * h[0], 2.0 * h[1], 2.0 * h[2])),
                if s.dynamic {
                    Color::srgb(0.85, 0.55, 0.25)
                } else {
                    Color::srgb(0.55, 0.6, 0.68)
                },
            ),
            PropShape::Ball { radius } => (
                meshes.add(Sphere::new(radius).mesh().uv(16, 10)),
                Color::srgb(0.9, 0.2, 0.2),
            ),
        };
        commands.spawn((
            PropEntity(s.id),
            Mesh3d(mesh),
            MeshMaterial3d(materials.add(StandardMaterial {
                base_color: colour,
                perceptual_roughness: 0.7,
                ..default()
            })),
            super::super::pose_to_transform(s.pose),
        ));
    }
}
