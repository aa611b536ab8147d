//! Debug overlays drawn with gizmos: collider wireframes, the centre of mass with its ground
//! projection and the support polygon (convex hull of the ground contacts), contact points, and
//! a sphere at each joint coloured from green (idle) to red (torque at its limit).

use super::character::{CharacterSkin, LiveSim};
use super::viewport::OrbitCamera;
use super::workbench::figures::{axis_rotation, model_vec3, pose_to_transform};
use super::workbench::{AddPanel, Dock, PanelSpec, Stage};
use crate::model::{Shape, ShapeF32};
use bevy::prelude::*;
use bevy_egui::egui;

/// The overlays' launch options.
#[derive(clap::Args, Clone, Debug, Default)]
#[group(skip)]
pub struct Launch {
    /// Overlays shown at start, comma-separated: skin, colliders, com, contacts, torques
    /// (default: skin,com,contacts,torques).
    #[arg(long, value_delimiter = ',', value_parser = overlay_name)]
    pub overlays: Option<Vec<String>>,
}

pub struct OverlayPlugin(pub Launch);

impl Plugin for OverlayPlugin {
    fn build(&self, app: &mut App) {
        let overlays = match &self.0.overlays {
            // The names were checked when the options were read (`overlay_name`).
            Some(names) => Overlays::from_names(names).unwrap_or_default(),
            None => Overlays::default(),
        };
        app.insert_resource(overlays)
            .init_gizmo_group::<OverlayGizmos>()
            .add_systems(Startup, configure_overlay_gizmos)
            .add_systems(Update, (draw_overlays.run_if(shows_live), skin_visibility))
            .add_panel(
                PanelSpec {
                    id: "overlays",
                    title: "Overlays",
                    hover: "What is drawn over the live simulation",
                    dock: Dock::Left,
                    order: 100,
                    open: true,
                },
                overlay_section,
            );
    }
}

/// The skin shows while the live simulation owns the stage and the skin overlay is on.
fn skin_visibility(
    overlays: Res<Overlays>,
    stage: Res<State<Stage>>,
    mut skins: Query<&mut Visibility, With<CharacterSkin>>,
) {
    let want = if overlays.skin && stage.get().shows_live() {
        Visibility::Inherited
    } else {
        Visibility::Hidden
    };
    for mut v in &mut skins {
        if *v != want {
            *v = want;
        }
    }
}

/// The live simulation owns the stage.
pub fn shows_live(stage: Res<State<Stage>>) -> bool {
    stage.get().shows_live()
}

/// One name of `--overlays`, checked as the options are read.
pub fn overlay_name(name: &str) -> Result<String, UnknownOverlay> {
    Overlays::from_names(&[name.to_string()]).map(|_| name.trim().to_string())
}

/// The left dock's overlay toggles.
fn overlay_section(
    InMut(ui): InMut<egui::Ui>,
    mut overlays: ResMut<Overlays>,
    mut orbit: ResMut<OrbitCamera>,
) {
    ui.heading("Overlays");
    ui.checkbox(&mut overlays.skin, "skinned mesh");
    ui.checkbox(&mut overlays.colliders, "colliders");
    ui.checkbox(&mut overlays.com, "centre of mass and support polygon");
    ui.checkbox(&mut overlays.contacts, "contacts");
    ui.checkbox(&mut overlays.torques, "torque saturation");
    ui.checkbox(&mut orbit.follow, "camera follows (F)");
    ui.small("Right-drag orbits, middle-drag pans, wheel zooms; gamepad right stick and triggers.");
}

/// Overlay lines are drawn on top of the character (negative depth bias), unlike the grid.
#[derive(Default, Reflect, GizmoConfigGroup)]
pub struct OverlayGizmos;

fn configure_overlay_gizmos(mut store: ResMut<GizmoConfigStore>) {
    let (config, _) = store.config_mut::<OverlayGizmos>();
    config.depth_bias = -1.0;
    config.line.width = 2.5;
}

/// An overlay name that is none of `skin`, `colliders`, `com`, `contacts`, `torques`.
#[derive(Debug, thiserror::Error)]
#[error("unknown overlay {0:?}: expected skin, colliders, com, contacts or torques")]
pub struct UnknownOverlay(pub String);

#[derive(Resource)]
pub struct Overlays {
    pub colliders: bool,
    pub com: bool,
    pub contacts: bool,
    pub torques: bool,
    pub skin: bool,
}

impl Overlays {
    /// Overlays from names: `skin`, `colliders`, `com`, `contacts`, `torques`.
    pub fn from_names(names: &[String]) -> Result<Self, UnknownOverlay> {
        let mut o = Overlays {
            colliders: false,
            com: false,
            contacts: false,
            torques: false,
            skin: false,
        };
        for n in names {
            match n.trim() {
                "skin" => o.skin = true,
                "colliders" => o.colliders = true,
                "com" => o.com = true,
                "contacts" => o.contacts = true,
                "torques" => o.torques = true,
                "" => {}
                other => return Err(UnknownOverlay(other.to_string())),
            }
        }
        Ok(o)
    }
}

impl Default for Overlays {
    fn default() -> Self {
        Overlays {
            colliders: false,
            com: true,
            contacts: true,
            torques: true,
            skin: true,
        }
    }
}

/// Andrew's monotone chain on (x, z): the support polygon of the contact points.
pub fn convex_hull_xz(points: &[Vec2]) -> Vec<Vec2> {
    let mut p: Vec<Vec2> = points.to_vec();
    p.sort_by(|a, b| a.x.total_cmp(&b.x).then(a.y.total_cmp(&b.y)));
    p.dedup_by(|a, b| a.distance(*b) < 1e-4);
    if p.len() < 3 {
        return p;
    }
    let cross = |o: Vec2, a: Vec2, b: Vec2| (a - o).perp_dot(b - o);
    let mut hull: Vec<Vec2> = Vec::with_capacity(2 * p.len());
    for pass in 0..2 {
        let start = hull.len();
        let iter: Box<dyn Iterator<Item = &Vec2>> = if pass == 0 {
            Box::new(p.iter())
        } else {
            Box::new(p.iter().rev())
        };
        for &q in iter {
            while hull.len() >= start + 2
                && cross(hull[hull.len() - 2], hull[hull.len() - 1], q) <= 0.0
            {
                hull.pop();
            }
            hull.push(q);
        }
        hull.pop();
    }
    hull
}

fn saturation_colour(s: f32) -> Color {
    let s = s.clamp(0.0, 1.0);
    Color::srgb(0.15 + 0.85 * s, 0.8 * (1.0 - s) + 0.1, 0.15)
}

fn draw_overlays(mut gizmos: Gizmos<OverlayGizmos>, live: Res<LiveSim>, overlays: Res<Overlays>) {
    let sim = &live.sim;
    let c = &live.character;
    let ground = sim.ground_height();
    let pose = |i: usize| pose_to_transform(sim.body_pose(i));

    if overlays.colliders {
        for (i, b) in c.bodies.iter().enumerate() {
            let t = pose(i);
            let col = Color::srgb(0.1, 0.2, 0.9);
            draw_shape(
                &mut gizmos,
                &b.shape.as_f32(),
                t.translation,
                t.rotation,
                col,
            );
        }
    }

    if overlays.contacts || overlays.com {
        let contacts = sim.contact_points();
        if overlays.contacts {
            for (_, p) in &contacts {
                gizmos.sphere(
                    Isometry3d::from_translation(Vec3::from(*p)),
                    0.015,
                    Color::srgb(1.0, 0.9, 0.0),
                );
            }
        }
        if overlays.com {
            let com = Vec3::from(sim.com());
            let foot = Vec3::new(com.x, ground + 0.004, com.z);
            let hull = convex_hull_xz(
                &contacts
                    .iter()
                    .map(|(_, p)| Vec2::new(p[0], p[2]))
                    .collect::<Vec<_>>(),
            );
            let inside = hull.len() >= 3
                && hull
                    .iter()
                    .zip(hull.iter().cycle().skip(1))
                    .all(|(a, b)| (*b - *a).perp_dot(Vec2::new(com.x, com.z) - *a) >= 0.0);
            let com_col = if inside {
                Color::srgb(0.1, 0.75, 0.2)
            } else {
                Color::srgb(0.9, 0.2, 0.1)
            };
            gizmos.sphere(Isometry3d::from_translation(com), 0.035, com_col);
            gizmos.line(com, foot, com_col);
            gizmos.circle(
                Isometry3d::new(foot, Quat::from_rotation_x(std::f32::consts::FRAC_PI_2)),
                0.03,
                com_col,
            );
            for (a, b) in hull.iter().zip(hull.iter().cycle().skip(1)) {
                gizmos.line(
                    Vec3::new(a.x, ground + 0.004, a.y),
                    Vec3::new(b.x, ground + 0.004, b.y),
                    Color::srgb(0.05, 0.5, 0.1),
                );
            }
        }
    }

    if overlays.torques {
        let sat = sim.saturation();
        for (ji, j) in c.joints.iter().enumerate() {
            let Some(ci) = c.body_index(&j.child) else {
                continue;
            };
            let s = sim
                .dofs()
                .iter()
                .zip(&sat)
                .filter(|(d, _)| d.joint == ji)
                .map(|(_, s)| *s)
                .fold(0.0f32, f32::max);
            let child = &c.bodies[ci];
            let q = child.orientation().map(|x| x as f32);
            let reference = Transform::from_translation(model_vec3(child.position))
                .with_rotation(Quat::from_xyzw(q[0], q[1], q[2], q[3]));
            let local = reference
                .to_matrix()
                .inverse()
                .transform_point3(model_vec3(j.anchor));
            let world = pose(ci).transform_point(local);
            gizmos.sphere(
                Isometry3d::from_translation(world),
                0.03 + 0.02 * s,
                saturation_colour(s),
            );
        }
    }

    if let Some((body, dir, t)) = live.last_push {
        if sim.time() - t < 0.6 {
            let p = pose(body).translation;
            gizmos.arrow(p - dir * 0.6, p, Color::srgb(0.95, 0.1, 0.6));
        }
    }
}

/// A body's shape as a wireframe at `at`, turned by `rotation` (the collider overlay, the
/// Diversity gallery's figures).
pub fn draw_shape<T: GizmoConfigGroup>(
    gizmos: &mut Gizmos<T>,
    shape: &ShapeF32,
    at: Vec3,
    rotation: Quat,
    colour: Color,
) {
    match *shape {
        Shape::Capsule {
            radius,
            half_length,
            axis,
        } => {
            gizmos.primitive_3d(
                &Capsule3d::new(radius, 2.0 * half_length),
                Isometry3d::new(at, rotation * axis_rotation(axis)),
                colour,
            );
        }
        Shape::Cylinder {
            radius,
            half_length,
            axis,
        } => {
            gizmos.primitive_3d(
                &Cylinder::new(radius, 2.0 * half_length),
                Isometry3d::new(at, rotation * axis_rotation(axis)),
                colour,
            );
        }
        Shape::Box { half_extents: h } => {
            gizmos.primitive_3d(
                &Cuboid::new(2.0 * h[0], 2.0 * h[1], 2.0 * h[2]),
                Isometry3d::new(at, rotation),
                colour,
            );
        }
        Shape::Ellipsoid { radii: r } => {
            let rx = Quat::from_rotation_y(std::f32::consts::FRAC_PI_2);
            let ry = Quat::from_rotation_x(std::f32::consts::FRAC_PI_2);
            gizmos.ellipse(Isometry3d::new(at, rotation), Vec2::new(r[0], r[1]), colour);
            gizmos.ellipse(
                Isometry3d::new(at, rotation * rx),
                Vec2::new(r[2], r[1]),
                colour,
            );
            gizmos.ellipse(
                Isometry3d::new(at, rotation * ry),
                Vec2::new(r[0], r[2]),
                colour,
            );
        }
    }
}
