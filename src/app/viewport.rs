//! Viewport: orbit camera (mouse and gamepad), sun with shadows, ground plane and grid.

use super::workbench::Workbench;
use super::workbench::pointer::UiPointer;
use bevy::camera::SubCameraView;
use bevy::input::mouse::{AccumulatedMouseMotion, AccumulatedMouseScroll};
use bevy::prelude::*;
use bevy::window::PrimaryWindow;

pub struct ViewportPlugin;

impl Plugin for ViewportPlugin {
    fn build(&self, app: &mut App) {
        app.init_resource::<OrbitCamera>()
            .add_systems(Startup, setup_scene)
            .add_systems(
                Update,
                (
                    release_focus.run_if(state_changed::<super::workbench::Stage>),
                    orbit_input,
                    follow_character,
                    apply_orbit,
                    frame_open_view,
                )
                    .chain(),
            )
            .add_systems(Update, (follow_ground, draw_grid));
    }
}

/// A new owner of the stage frames its own figures: the last owner's focus goes.
fn release_focus(mut orbit: ResMut<OrbitCamera>) {
    orbit.focus = None;
}

/// Orbit-camera state: looks at `target` from `distance`, at `yaw` and `pitch` (radians).
#[derive(Resource)]
pub struct OrbitCamera {
    pub target: Vec3,
    pub yaw: f32,
    pub pitch: f32,
    pub distance: f32,
    /// Keep the target on the character's centre of mass.
    pub follow: bool,
    /// What to follow instead of the live character (the stage owner's figures), when set.
    pub focus: Option<Vec3>,
    /// The live simulation's centre of mass (set by the live simulation each frame).
    pub live: Option<Vec3>,
    /// The height of the ground the grid is drawn on (m).
    pub ground: f32,
}

impl Default for OrbitCamera {
    fn default() -> Self {
        OrbitCamera {
            target: Vec3::new(0.0, 0.9, 0.0),
            yaw: 0.55,
            pitch: 0.22,
            distance: 4.2,
            follow: true,
            focus: None,
            live: None,
            ground: 0.0,
        }
    }
}

impl OrbitCamera {
    pub fn eye(&self) -> Vec3 {
        let dir = Vec3::new(
            self.yaw.cos() * self.pitch.cos(),
            self.pitch.sin(),
            self.yaw.sin() * self.pitch.cos(),
        );
        self.target + dir * self.distance
    }
    /// Horizontal direction from the camera towards the target.
    pub fn forward_flat(&self) -> Vec3 {
        let d = self.target - self.eye();
        Vec3::new(d.x, 0.0, d.z).normalize_or(Vec3::X)
    }
    /// The yaw of [`Self::forward_flat`] on the ground (0 looks east, +x; π/2 north, −z), as
    /// the steering controls take it.
    pub fn ground_heading(&self) -> f64 {
        let f = self.forward_flat();
        (-f.z as f64).atan2(f.x as f64)
    }
}

#[derive(Component)]
pub struct MainCamera;

fn setup_scene(
    mut commands: Commands,
    mut meshes: ResMut<Assets<Mesh>>,
    mut materials: ResMut<Assets<StandardMaterial>>,
) {
    commands.spawn((
        Camera3d::default(),
        MainCamera,
        Transform::from_xyz(3.0, 2.0, 3.0).looking_at(Vec3::new(0.0, 0.9, 0.0), Vec3::Y),
        AmbientLight {
            color: Color::WHITE,
            brightness: 400.0,
            ..default()
        },
    ));
    commands.spawn((
        DirectionalLight {
            illuminance: 9000.0,
            shadow_maps_enabled: true,
            ..default()
        },
        Transform::from_xyz(4.0, 8.0, 3.0).looking_at(Vec3::ZERO, Vec3::Y),
    ));
    commands.spawn((
        Mesh3d(meshes.add(Plane3d::default().mesh().size(60.0, 60.0))),
        MeshMaterial3d(materials.add(StandardMaterial {
            base_color: Color::srgb(0.78, 0.80, 0.76),
            perceptual_roughness: 0.95,
            ..default()
        })),
        Transform::IDENTITY,
        GroundPlane,
    ));
}

/// The visible ground; it moves with the camera (in whole grid cells) so that walks and gaits
/// never leave it.
#[derive(Component)]
struct GroundPlane;

/// The ground's and grid's centre: the orbit target on the ground, snapped to 1 m (twice the
/// grid's cell) so the grid lines stay put in the world while it follows.
fn ground_centre(orbit: &OrbitCamera) -> Vec3 {
    Vec3::new(orbit.target.x.round(), 0.0, orbit.target.z.round())
}

fn follow_ground(orbit: Res<OrbitCamera>, mut ground: Query<&mut Transform, With<GroundPlane>>) {
    let c = ground_centre(&orbit);
    for mut t in &mut ground {
        t.translation.x = c.x;
        t.translation.z = c.z;
    }
}

fn draw_grid(mut gizmos: Gizmos, orbit: Res<OrbitCamera>) {
    let y = orbit.ground + 0.002;
    let c = ground_centre(&orbit);
    gizmos.grid(
        Isometry3d::new(
            Vec3::new(c.x, y, c.z),
            Quat::from_rotation_x(std::f32::consts::FRAC_PI_2),
        ),
        UVec2::splat(40),
        Vec2::splat(0.5),
        Color::srgba(0.25, 0.27, 0.3, 0.45),
    );
}

fn orbit_input(
    mut orbit: ResMut<OrbitCamera>,
    buttons: Res<ButtonInput<MouseButton>>,
    motion: Res<AccumulatedMouseMotion>,
    scroll: Res<AccumulatedMouseScroll>,
    keys: Res<ButtonInput<KeyCode>>,
    gamepads: Query<&Gamepad>,
    ui: UiPointer,
    time: Res<Time>,
) {
    let over_ui = ui.over_ui();
    if !over_ui {
        if buttons.pressed(MouseButton::Right) {
            orbit.yaw += motion.delta.x * 0.006;
            orbit.pitch = (orbit.pitch + motion.delta.y * 0.006).clamp(-0.2, 1.45);
        }
        if buttons.pressed(MouseButton::Middle) {
            let right = orbit.forward_flat().cross(Vec3::Y);
            let k = orbit.distance * 0.0015;
            orbit.target += -right * motion.delta.x * k + Vec3::Y * motion.delta.y * k;
            orbit.follow = false;
        }
        if scroll.delta.y != 0.0 {
            orbit.distance = (orbit.distance * (1.0 - scroll.delta.y * 0.1)).clamp(0.8, 40.0);
        }
    }
    if keys.just_pressed(KeyCode::KeyF) {
        orbit.follow = !orbit.follow;
    }
    let dt = time.delta_secs();
    for pad in &gamepads {
        let s = pad.right_stick();
        if s.length() > 0.15 {
            orbit.yaw += s.x * 2.0 * dt;
            orbit.pitch = (orbit.pitch - s.y * 1.5 * dt).clamp(-0.2, 1.45);
        }
        let zoom = pad.get(GamepadButton::RightTrigger2).unwrap_or(0.0)
            - pad.get(GamepadButton::LeftTrigger2).unwrap_or(0.0);
        if zoom.abs() > 0.05 {
            orbit.distance = (orbit.distance * (1.0 - zoom * 1.5 * dt)).clamp(0.8, 40.0);
        }
    }
}

fn follow_character(mut orbit: ResMut<OrbitCamera>, time: Res<Time>) {
    if !orbit.follow {
        return;
    }
    let goal = match (orbit.focus, orbit.live) {
        (Some(f), _) => Vec3::new(f.x, f.y.max(0.5), f.z),
        (None, Some(c)) => Vec3::new(c.x, c.y.max(orbit.ground + 0.25), c.z),
        (None, None) => return,
    };
    let k = 1.0 - (-6.0 * time.delta_secs()).exp();
    orbit.target = orbit.target.lerp(goal, k.clamp(0.0, 1.0));
}

fn apply_orbit(orbit: Res<OrbitCamera>, mut camera: Query<&mut Transform, With<MainCamera>>) {
    for mut t in &mut camera {
        *t = Transform::from_translation(orbit.eye()).looking_at(orbit.target, Vec3::Y);
    }
}

/// Centres the picture on the part of the viewport the docks and windows leave open
/// ([`Workbench::open_centre_px`]) rather than on the middle of the whole window: a sideways
/// shift of the lens (the window shows part of a wider image whose middle is there), eased so
/// that moving a window glides the picture. The camera still looks at what it follows, and
/// picking through the camera's projection stays exact.
fn frame_open_view(
    bench: Option<Res<Workbench>>,
    window: Query<&Window, With<PrimaryWindow>>,
    mut camera: Query<&mut Camera, With<MainCamera>>,
    mut shift: Local<f32>,
    time: Res<Time>,
) {
    let (Some(bench), Ok(window)) = (bench, window.single()) else {
        return;
    };
    let Some(centre) = bench.open_centre_px() else {
        return;
    };
    let (w, h) = (window.physical_width(), window.physical_height());
    if w == 0 || h == 0 {
        return;
    }
    let goal = centre - 0.5 * w as f32;
    let k = (1.0 - (-8.0 * time.delta_secs()).exp()).clamp(0.0, 1.0);
    *shift += (goal - *shift) * k;
    let s = shift.round();
    let view = (s != 0.0).then(|| SubCameraView {
        full_size: UVec2::new(w + 2 * s.abs() as u32, h),
        offset: Vec2::new(s.abs() - s, 0.0),
        size: UVec2::new(w, h),
    });
    for mut camera in &mut camera {
        if camera.sub_camera_view != view {
            camera.sub_camera_view = view;
        }
    }
}
