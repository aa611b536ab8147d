//! Characters on screen: one skinned mesh generated from a character model (every body's shape
//! tessellated in its reference pose, bound to a bone per body, with weights blended near each
//! joint so the skin bends smoothly instead of showing separate primitives), spawned solid or as
//! a tinted ghost ([`Look`]), and the conversions from the science's poses to Bevy transforms.
//! Every panel that shows figures spawns them here.

use crate::model::{Axis, Character, Shape, ShapeF32};
use bevy::asset::RenderAssetUsages;
use bevy::mesh::{Indices, PrimitiveTopology, VertexAttributeValues};
use bevy::prelude::*;

fn body_colour(name: &str) -> [f32; 4] {
    if name.starts_with("l_") {
        [0.42, 0.55, 0.78, 1.0]
    } else if name.starts_with("r_") {
        [0.86, 0.58, 0.38, 1.0]
    } else if name.contains("head") {
        [0.93, 0.80, 0.68, 1.0]
    } else {
        [0.72, 0.72, 0.70, 1.0]
    }
}

/// The rotation taking a shape's local y (Bevy's primitives' axis) onto its `axis`.
pub fn axis_rotation(axis: Axis) -> Quat {
    match axis {
        Axis::X => Quat::from_rotation_z(-std::f32::consts::FRAC_PI_2),
        Axis::Y => Quat::IDENTITY,
        Axis::Z => Quat::from_rotation_x(std::f32::consts::FRAC_PI_2),
    }
}

fn shape_mesh(shape: &ShapeF32) -> Mesh {
    match *shape {
        Shape::Capsule {
            radius,
            half_length,
            axis,
        } => {
            // Drawn a little longer than the collider so that limbs meet at their joints.
            let m = Capsule3d::new(radius, 2.0 * half_length + 0.6 * radius)
                .mesh()
                .rings(6)
                .latitudes(14)
                .longitudes(20)
                .build();
            m.rotated_by(axis_rotation(axis))
        }
        Shape::Cylinder {
            radius,
            half_length,
            axis,
        } => {
            let m = Cylinder::new(radius, 2.0 * half_length)
                .mesh()
                .resolution(20)
                .build();
            m.rotated_by(axis_rotation(axis))
        }
        Shape::Box { half_extents: h } => Cuboid::new(2.0 * h[0], 2.0 * h[1], 2.0 * h[2])
            .mesh()
            .build(),
        Shape::Ellipsoid { radii: r } => Sphere::new(1.0)
            .mesh()
            .uv(24, 16)
            .scaled_by(Vec3::new(r[0], r[1], r[2])),
    }
}

/// A science-side pose [x, y, z, qx, qy, qz, qw] as a Bevy transform.
pub fn pose_to_transform(p: [f32; 7]) -> Transform {
    Transform::from_translation(Vec3::new(p[0], p[1], p[2]))
        .with_rotation(Quat::from_xyzw(p[3], p[4], p[5], p[6]))
}

/// A clip's f64 pose as a Bevy transform.
pub fn pose64_to_transform(p: &[f64; 7]) -> Transform {
    pose_to_transform(p.map(|v| v as f32))
}

/// A character-file vector (f64) in the viewport's f32.
pub fn model_vec3(v: [f64; 3]) -> Vec3 {
    Vec3::new(v[0] as f32, v[1] as f32, v[2] as f32)
}

/// How a figure looks: solid in a tint, or a translucent ghost of it.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Look {
    Solid([f32; 3]),
    Ghost([f32; 3]),
}

/// The opacity of a ghost figure.
pub const GHOST_ALPHA: f32 = 0.4;

impl Look {
    /// The figure's material: the skin's vertex colours under the tint.
    pub fn material(self) -> StandardMaterial {
        let (base_color, alpha_mode) = match self {
            Look::Solid([r, g, b]) => (Color::srgb(r, g, b), AlphaMode::Opaque),
            Look::Ghost([r, g, b]) => (Color::srgba(r, g, b, GHOST_ALPHA), AlphaMode::Blend),
        };
        StandardMaterial {
            base_color,
            alpha_mode,
            perceptual_roughness: 0.6,
            ..default()
        }
    }
}

/// The assets a figure is made of.
#[derive(bevy::ecs::system::SystemParam)]
pub struct FigureAssets<'w> {
    pub meshes: ResMut<'w, Assets<Mesh>>,
    pub materials: ResMut<'w, Assets<StandardMaterial>>,
    pub bindposes: ResMut<'w, Assets<bevy::mesh::skinning::SkinnedMeshInverseBindposes>>,
}

/// Spawns `character`'s skinned mesh looking `look`, with `figure` on it and one bone entity
/// per body made by `bone(body index)`.
pub fn spawn_figure<B: Bundle>(
    commands: &mut Commands,
    assets: &mut FigureAssets,
    character: &Character,
    bone: impl Fn(usize) -> B,
    figure: impl Bundle,
    look: Look,
) {
    spawn_skinned(
        commands,
        &mut assets.meshes,
        &mut assets.materials,
        &mut assets.bindposes,
        character,
        bone,
        figure,
        look.material(),
    );
}

/// Spawns `character`'s skinned mesh with `figure` on it and one bone entity per body made by
/// `bone(body index)`.
#[allow(clippy::too_many_arguments)]
fn spawn_skinned<B: Bundle>(
    commands: &mut Commands,
    meshes: &mut Assets<Mesh>,
    materials: &mut Assets<StandardMaterial>,
    bindposes: &mut Assets<bevy::mesh::skinning::SkinnedMeshInverseBindposes>,
    character: &Character,
    bone: impl Fn(usize) -> B,
    figure: impl Bundle,
    material: StandardMaterial,
) {
    let (mesh, inverse) = build_skin(character);
    let joints: Vec<Entity> = (0..character.bodies.len())
        .map(|i| commands.spawn(bone(i)).id())
        .collect();
    commands.spawn((
        figure,
        Mesh3d(meshes.add(mesh)),
        MeshMaterial3d(materials.add(material)),
        bevy::mesh::skinning::SkinnedMesh {
            inverse_bindposes: bindposes.add(
                bevy::mesh::skinning::SkinnedMeshInverseBindposes::from(inverse),
            ),
            joints,
        },
        Transform::IDENTITY,
        // Its bounds are the bind pose's at the origin: once the figure walks away, frustum
        // culling hid it (its shadow stayed).
        bevy::camera::visibility::NoFrustumCulling,
    ));
}

/// The skin mesh and the inverse bind poses (one bone per body, in model order).
pub fn build_skin(c: &Character) -> (Mesh, Vec<Mat4>) {
    let mut positions: Vec<[f32; 3]> = Vec::new();
    let mut normals: Vec<[f32; 3]> = Vec::new();
    let mut colours: Vec<[f32; 4]> = Vec::new();
    let mut joints: Vec<[u16; 4]> = Vec::new();
    let mut weights: Vec<[f32; 4]> = Vec::new();
    let mut indices: Vec<u32> = Vec::new();
    let mut inverse_bind = Vec::new();

    for (bi, b) in c.bodies.iter().enumerate() {
        let q = b.orientation().map(|x| x as f32);
        let pose = Transform::from_translation(model_vec3(b.position))
            .with_rotation(Quat::from_xyzw(q[0], q[1], q[2], q[3]));
        inverse_bind.push(pose.to_matrix().inverse());
        let m = shape_mesh(&b.shape.as_f32());
        let Some(VertexAttributeValues::Float32x3(p)) = m.attribute(Mesh::ATTRIBUTE_POSITION)
        else {
            continue;
        };
        let n = match m.attribute(Mesh::ATTRIBUTE_NORMAL) {
            Some(VertexAttributeValues::Float32x3(n)) => n.clone(),
            _ => vec![[0.0, 1.0, 0.0]; p.len()],
        };
        let base = positions.len() as u32;
        let colour = body_colour(&b.name);
        for (v, nv) in p.iter().zip(&n) {
            let w = pose.transform_point(Vec3::from(*v));
            positions.push(w.to_array());
            normals.push(
                (pose.rotation * Vec3::from(*nv))
                    .normalize_or(Vec3::Y)
                    .to_array(),
            );
            colours.push(colour);
            let (ji, jw) = crate::model::skin::influence(c, bi, w.as_dvec3().to_array());
            joints.push(ji);
            weights.push(jw);
        }
        if let Some(ix) = m.indices() {
            indices.extend(ix.iter().map(|i| base + i as u32));
        }
    }
    let mut mesh = Mesh::new(
        PrimitiveTopology::TriangleList,
        RenderAssetUsages::default(),
    );
    mesh.insert_attribute(Mesh::ATTRIBUTE_POSITION, positions);
    mesh.insert_attribute(Mesh::ATTRIBUTE_NORMAL, normals);
    mesh.insert_attribute(Mesh::ATTRIBUTE_COLOR, colours);
    mesh.insert_attribute(
        Mesh::ATTRIBUTE_JOINT_INDEX,
        VertexAttributeValues::Uint16x4(joints),
    );
    mesh.insert_attribute(Mesh::ATTRIBUTE_JOINT_WEIGHT, weights);
    mesh.insert_indices(Indices::U32(indices));
    (mesh, inverse_bind)
}
