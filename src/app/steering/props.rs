//! Props in the Steering view: two boxes, a stack to knock over, a ramp, and balls thrown from the
//! camera at the character (B, the gamepad's north button, or the window's button). They are
//! bevy_rapier3d entities (`RigidBody`, `Collider`, ...) in the app's rapier world, stepped by
//! `RapierPhysicsPlugin` after `Update`.
//!
//! How props and the character meet. The character's simulation stays the headless builder's
//! ([`crate::sim::Simulation`], its own rapier world, stepped by the steering controller), so the
//! character is in the props' world as proxies: one kinematic body per character body, with the
//! same collider ([`crate::sim::world::body_collider`]), moved every frame to the pose on show.
//! Props bounce off the proxies. In physics playback, the contact impulse each proxy received in
//! the props' last step is handed to the simulated human as a push on that body
//! ([`crate::sim::Simulation::push`]), so a ball can knock it over; in kinematic playback the
//! motion is the clip's and nothing is handed on.
//!
//! bevy_rapier3d 0.36 asks for the pre-release rapier3d `=0.35.0-glamx0.2`; this build has one
//! rapier, 0.35.3 with the patches in vendor/rapier3d, built on the same glam as Bevy. The copy in
//! vendor/bevy_rapier3d differs from the release only in asking for that rapier (its PATCHES.md).

use super::SteeringState;
use crate::model::Character;
use bevy::prelude::*;
use bevy_rapier3d::prelude::*;

/// What a prop is, for its mesh.
#[derive(Component, Clone, Copy, Debug, PartialEq)]
pub(crate) enum Prop {
    Box {
        half_extents: Vec3,
        dynamic: bool,
    },
    Ball {
        radius: f32,
    },
    /// The ground's collider (the view draws its own ground).
    Floor,
}

/// One of the character's bodies in the props' world (its index in the model).
#[derive(Component, Clone, Copy, Debug)]
pub(crate) struct CharacterProxy(pub usize);

/// A thrown ball's order of throwing (old balls go).
#[derive(Component)]
struct Thrown(u64);

/// The props' collision groups: the character's proxies meet props only (not the floor, and
/// not each other).
const PROP_GROUP: Group = Group::GROUP_3;
const CHARACTER_GROUP: Group = Group::GROUP_4;
/// At most this many balls at once.
const MAX_BALLS: usize = 24;

/// Adds the props' physics (the rapier plugin, its time step) and systems.
pub(super) fn build(app: &mut App, screenshot_mode: bool) {
    app.add_plugins(RapierPhysicsPlugin::<NoUserData>::default())
        // Screenshots step a fixed 1/60 s per frame, like the controller, so they are repeatable.
        .insert_resource(if screenshot_mode {
            TimestepMode::Fixed {
                dt: 1.0 / 60.0,
                substeps: 1,
            }
        } else {
            TimestepMode::Variable {
                max_dt: 1.0 / 20.0,
                time_scale: 1.0,
                substeps: 1,
            }
        })
        .init_resource::<PropsScene>()
        .add_systems(
            Update,
            (respawn_props, dress_props, run_or_pause, hand_hits_on)
                .chain()
                .after(super::step_controller),
        );
}

/// Which controller start the props were laid out for.
#[derive(Resource, Default)]
struct PropsScene {
    generation: Option<u64>,
    thrown: u64,
    /// The run's time at the last frame (for `--throw-at`).
    last_time: f64,
}

/// Spawns the floor, the boxes, the stack and the ramp (physics only: [`dress_props`] gives them
/// meshes).
pub(crate) fn spawn_scene(commands: &mut Commands) {
    commands.spawn((
        Prop::Floor,
        RigidBody::Fixed,
        Collider::cuboid(200.0, 0.5, 200.0),
        Friction::coefficient(0.8),
        Transform::from_xyz(0.0, -0.5, 0.0),
    ));
    let mut block = |centre: Vec3, half: Vec3, rotation: Quat, dynamic: bool| {
        commands.spawn((
            Prop::Box {
                half_extents: half,
                dynamic,
            },
            if dynamic {
                RigidBody::Dynamic
            } else {
                RigidBody::Fixed
            },
            Collider::cuboid(half.x, half.y, half.z),
            prop_material(dynamic),
            Transform::from_translation(centre).with_rotation(rotation),
        ));
    };
    block(
        Vec3::new(6.0, 0.4, 4.0),
        Vec3::splat(0.4),
        Quat::from_rotation_y(0.3),
        false,
    );
    block(
        Vec3::new(-5.0, 0.25, 5.0),
        Vec3::new(0.6, 0.25, 0.3),
        Quat::from_rotation_y(-0.5),
        false,
    );
    for k in 0..3 {
        block(
            Vec3::new(4.0, 0.15 + 0.3 * k as f32, 6.0),
            Vec3::splat(0.15),
            Quat::IDENTITY,
            true,
        );
    }
    // The ramp: a slab tilted by 0.2 rad about the axis across its length.
    block(
        Vec3::new(-7.0, 0.25, -5.0),
        Vec3::new(1.5, 0.05, 1.0),
        Quat::from_rotation_y(0.8) * Quat::from_rotation_z(0.2),
        false,
    );
}

/// The material of a prop: light dynamic props, heavier fixed ones (density only matters for
/// dynamic bodies).
fn prop_material(dynamic: bool) -> impl Bundle {
    (
        ColliderMassProperties::Density(if dynamic { 400.0 } else { 1.0 }),
        Restitution::coefficient(0.4),
        Friction::coefficient(0.7),
        CollisionGroups::new(PROP_GROUP, Group::ALL),
    )
}

/// Spawns one kinematic proxy per body of `character`, in its reference pose.
pub(crate) fn spawn_character_proxies(commands: &mut Commands, character: &Character) {
    for (i, b) in character.bodies.iter().enumerate() {
        let collider = crate::sim::world::body_collider(b);
        let shape = Collider::from(collider.shape.clone());
        let offset = collider.position;
        let shape = if offset.translation == Vec3::ZERO && offset.rotation == Quat::IDENTITY {
            shape
        } else {
            Collider::compound(vec![(offset.translation, offset.rotation, shape)])
        };
        let (p, q) = (b.position, b.orientation());
        let pose = [p[0], p[1], p[2], q[0], q[1], q[2], q[3]].map(|v| v as f32);
        commands.spawn((
            CharacterProxy(i),
            RigidBody::KinematicPositionBased,
            shape,
            CollisionGroups::new(CHARACTER_GROUP, PROP_GROUP),
            Restitution::coefficient(0.3),
            Friction::coefficient(0.5),
            crate::app::workbench::figures::pose_to_transform(pose),
        ));
    }
}

/// Throws a ball from `from` with `velocity` (m/s).
pub(crate) fn throw_ball(
    commands: &mut Commands,
    from: Vec3,
    velocity: Vec3,
    radius: f32,
) -> Entity {
    commands
        .spawn((
            Prop::Ball { radius },
            RigidBody::Dynamic,
            Collider::ball(radius),
            Ccd::enabled(),
            Velocity::linear(velocity),
            prop_material(true),
            Transform::from_translation(from),
        ))
        .id()
}

/// The impulse (N·s, world) the props put on each character body in the last physics step:
/// (body index, impulse) for each body something touched. A contact's normal points from its
/// first collider to its second, so the impulse on the character is along it when the character
/// is the second.
pub(crate) fn hits_on_character(
    context: &RapierContext,
    proxies: impl Iterator<Item = (Entity, usize)>,
) -> Vec<(usize, Vec3)> {
    let mut out = Vec::new();
    for (entity, body) in proxies {
        let mut j = Vec3::ZERO;
        for pair in context.contact_pairs_with(entity) {
            let sign = if pair.collider2() == Some(entity) {
                1.0
            } else {
                -1.0
            };
            for m in &pair.raw.manifolds {
                for p in &m.points {
                    j += m.data.normal * (p.data.impulse * sign);
                }
            }
        }
        if j.length() > 1e-6 {
            out.push((body, j));
        }
    }
    out
}

/// Lays the props out again, with the character's proxies, whenever the controller (re)starts.
fn respawn_props(
    mut commands: Commands,
    state: Res<SteeringState>,
    mut scene: ResMut<PropsScene>,
    old: Query<Entity, Or<(With<Prop>, With<CharacterProxy>)>>,
) {
    let Some(controller) = state.controller.as_ref() else {
        return;
    };
    if scene.generation == Some(state.generation) {
        return;
    }
    scene.generation = Some(state.generation);
    scene.last_time = f64::NEG_INFINITY;
    for e in &old {
        commands.entity(e).despawn();
    }
    spawn_scene(&mut commands);
    spawn_character_proxies(&mut commands, &controller.graph.character);
}

/// Gives new props their meshes.
fn dress_props(
    mut commands: Commands,
    new: Query<(Entity, &Prop), Without<Mesh3d>>,
    mut meshes: ResMut<Assets<Mesh>>,
    mut materials: ResMut<Assets<StandardMaterial>>,
) {
    for (e, prop) in &new {
        let (mesh, colour) = match *prop {
            Prop::Floor => continue,
            Prop::Box {
                half_extents: h,
                dynamic,
            } => (
                meshes.add(Cuboid::new(2.0 * h.x, 2.0 * h.y, 2.0 * h.z)),
                if dynamic {
                    Color::srgb(0.85, 0.55, 0.25)
                } else {
                    Color::srgb(0.55, 0.6, 0.68)
                },
            ),
            Prop::Ball { radius } => (
                meshes.add(Sphere::new(radius).mesh().uv(16, 10)),
                Color::srgb(0.9, 0.2, 0.2),
            ),
        };
        commands.entity(e).insert((
            Mesh3d(mesh),
            MeshMaterial3d(materials.add(StandardMaterial {
                base_color: colour,
                perceptual_roughness: 0.7,
                ..default()
            })),
        ));
    }
}

/// Runs the props' world while the view is on (and hides it when off); throws; moves the
/// proxies to the pose on show.
#[allow(clippy::too_many_arguments)]
fn run_or_pause(
    mut commands: Commands,
    mut state: ResMut<SteeringState>,
    mut scene: ResMut<PropsScene>,
    keys: Res<ButtonInput<KeyCode>>,
    gamepads: Query<&Gamepad>,
    orbit: Res<super::super::viewport::OrbitCamera>,
    mut config: Query<&mut RapierConfiguration>,
    mut props: Query<&mut Visibility, With<Prop>>,
    mut proxies: Query<(&CharacterProxy, &mut Transform)>,
    balls: Query<(Entity, &Thrown)>,
    options: Res<super::Launch>,
) {
    for mut c in &mut config {
        if c.physics_pipeline_active != state.active {
            c.physics_pipeline_active = state.active;
        }
    }
    let shown = if state.active {
        Visibility::Inherited
    } else {
        Visibility::Hidden
    };
    for mut v in &mut props {
        v.set_if_neq(shown);
    }
    if !state.active {
        return;
    }
    let throw = keys.just_pressed(KeyCode::KeyB)
        || gamepads
            .iter()
            .any(|p| p.just_pressed(GamepadButton::North))
        || std::mem::take(&mut state.throw)
        || options
            .throw_at
            .iter()
            .any(|t| scene.last_time < *t && *t <= state.time);
    scene.last_time = state.time;
    if throw {
        // From beside the camera towards the character's chest, fast.
        let eye = orbit.eye();
        let target = orbit.target + Vec3::Y * 0.3;
        let v = (target - eye).normalize_or(Vec3::X) * 14.0 + Vec3::Y * 1.0;
        let e = throw_ball(&mut commands, eye, v, 0.11);
        scene.thrown += 1;
        commands.entity(e).insert(Thrown(scene.thrown));
        let mut old: Vec<(Entity, u64)> = balls.iter().map(|(e, t)| (e, t.0)).collect();
        if old.len() + 1 > MAX_BALLS {
            old.sort_by_key(|b| b.1);
            for (e, _) in &old[..old.len() + 1 - MAX_BALLS] {
                commands.entity(*e).despawn();
            }
        }
    }
    let Some(poses) = state.shown_poses() else {
        return;
    };
    for (proxy, mut t) in &mut proxies {
        if let Some(p) = poses.get(proxy.0) {
            *t = crate::app::workbench::figures::pose64_to_transform(p);
        }
    }
}

/// Hands the impulses of the props' last step to the simulated human.
fn hand_hits_on(
    mut state: ResMut<SteeringState>,
    context: ReadRapierContext,
    proxies: Query<(Entity, &CharacterProxy)>,
    mode: Res<TimestepMode>,
    time: Res<Time>,
) {
    let Some(p) = state.physics.as_mut() else {
        return;
    };
    let Ok(context) = context.single() else {
        return;
    };
    let dt = match *mode {
        TimestepMode::Fixed { dt, .. } | TimestepMode::Interpolated { dt, .. } => dt,
        TimestepMode::Variable {
            max_dt, time_scale, ..
        } => (time.delta_secs() * time_scale).min(max_dt),
    };
    for (body, j) in hits_on_character(&context, proxies.iter().map(|(e, b)| (e, b.0))) {
        p.sim.push(body, j.to_array(), dt.max(1e-4));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A ball thrown at the standing human in a headless Bevy app with the rapier plugin bounces
    /// off its proxies and pushes it: the impulse on the character is the ball's momentum times one
    /// plus the restitution, the way the ball flew, and the ball comes back.
    #[test]
    fn a_thrown_ball_hits_the_character_and_pushes_it() {
        let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("characters/human3d.ron");
        let character = crate::model::load_character(&path).unwrap();
        let mut app = App::new();
        app.add_plugins((
            MinimalPlugins,
            TransformPlugin,
            RapierPhysicsPlugin::<NoUserData>::default(),
        ))
        .insert_resource(TimestepMode::Fixed {
            dt: 1.0 / 60.0,
            substeps: 1,
        });
        app.update();
        let ball = {
            let world = app.world_mut();
            let mut queue = bevy::ecs::world::CommandQueue::default();
            let mut commands = Commands::new(&mut queue, world);
            spawn_scene(&mut commands);
            spawn_character_proxies(&mut commands, &character);
            let ball = throw_ball(
                &mut commands,
                Vec3::new(-3.0, 1.2, 0.0),
                Vec3::new(12.0, 0.0, 0.0),
                0.11,
            );
            queue.apply(world);
            ball
        };
        let mut total = Vec3::ZERO;
        for _ in 0..60 {
            app.update();
            let world = app.world_mut();
            let mut state = bevy::ecs::system::SystemState::<(
                ReadRapierContext,
                Query<(Entity, &CharacterProxy)>,
            )>::new(world);
            let (context, proxies) = state.get(world).unwrap();
            let context = context.single().unwrap();
            for (_, j) in hits_on_character(&context, proxies.iter().map(|(e, b)| (e, b.0))) {
                total += j;
            }
        }
        // A head-on bounce: the ball's momentum times one plus the restitution (rapier averages
        // the ball's 0.4 and the proxy's 0.3).
        let mass = 400.0 * 4.0 / 3.0 * std::f32::consts::PI * 0.11f32.powi(3);
        let expected = mass * 12.0 * (1.0 + 0.35);
        assert!(
            (total.x - expected).abs() < 0.1 * expected
                && total.y.abs() + total.z.abs() < 0.1 * expected,
            "the ball pushed the character by {total:?} N·s, expected ({expected}, 0, 0) within 10 %"
        );
        let x = app.world().get::<Transform>(ball).unwrap().translation.x;
        assert!(x < 0.0, "the ball bounced back (x = {x})");
    }
}
