//! glTF export of a clip as a skinned, animated mesh, and its import back into a clip
//! (in place of the Ogre3D skeleton XML that McIntosh 2011, thesis §4.2.6, exports).
//!
//! The binary file (`.glb`) holds one joint node per body, children of a `character` node, each
//! animated by a translation and a rotation channel (the body's world pose per frame, linear
//! interpolation, times i/rate); one mesh, a rigid skin (every vertex bound to its body's joint
//! with weight 1) whose inverse bind matrices are the bodies' reference poses; shapes as in the
//! character file (boxes, capsules, cylinders, ellipsoids). The JSON is written with `gltf-json`
//! and the container with `gltf::binary`; the importer reads it with `gltf` and recovers the
//! joint coordinates from the bodies' rotations ([`super::pose::coordinates_of`]).

use super::pose::{BodyPose, reference_orientation};
use super::{CharacterRef, Clip, Tags, from_body_poses};
use crate::model::{Character, Shape};
use gltf_json as json;
use json::validation::Checked::Valid;
use json::validation::USize64;
use nalgebra::{Isometry3, Translation3, Vector3};
use std::collections::BTreeMap;

/// Vertices of a body's shape in its own frame, with normals, as a triangle list.
fn shape_triangles(shape: &Shape) -> (Vec<[f32; 3]>, Vec<[f32; 3]>, Vec<u32>) {
    const SEG: usize = 16;
    const RINGS: usize = 8;
    let mut p = Vec::new();
    let mut n = Vec::new();
    let mut ix = Vec::new();
    // A surface of revolution about local y from (radius, height) profile points.
    let mut lathe = |profile: &[(f64, f64, f64, f64)], scale: [f64; 3], axis: usize| {
        let base = p.len() as u32;
        for &(r, h, nr, nh) in profile {
            for s in 0..=SEG {
                let a = std::f64::consts::TAU * s as f64 / SEG as f64;
                let (c, si) = (a.cos(), a.sin());
                let v = [r * c * scale[0], h * scale[1], r * si * scale[2]];
                let nv = [nr * c / scale[0], nh / scale[1], nr * si / scale[2]];
                let len = (nv[0] * nv[0] + nv[1] * nv[1] + nv[2] * nv[2])
                    .sqrt()
                    .max(1e-12);
                // Local y is the shape's axis: rotate y onto x or z when needed.
                let turn = |v: [f64; 3]| match axis {
                    0 => [v[1], -v[0], v[2]],
                    2 => [v[0], -v[2], v[1]],
                    _ => v,
                };
                p.push(turn(v).map(|x| x as f32));
                n.push(turn(nv.map(|x| x / len)).map(|x| x as f32));
            }
        }
        let w = (SEG + 1) as u32;
        for r in 0..profile.len() as u32 - 1 {
            for s in 0..SEG as u32 {
                let (a, b) = (base + r * w + s, base + (r + 1) * w + s);
                ix.extend([a, b, a + 1, a + 1, b, b + 1]);
            }
        }
    };
    let sphere = |radius: f64, offset: f64, top: bool| -> Vec<(f64, f64, f64, f64)> {
        (0..=RINGS)
            .map(|k| {
                let t = std::f64::consts::FRAC_PI_2 * k as f64 / RINGS as f64;
                let (ring, up) = if top {
                    (t.cos(), t.sin())
                } else {
                    (t.sin(), -t.cos())
                };
                (radius * ring, offset + radius * up, ring, up)
            })
            .collect()
    };
    match *shape {
        Shape::Box { half_extents: h } => {
            let h = h.map(|x| x as f32);
            for axis in 0..3 {
                for sign in [-1.0f32, 1.0] {
                    let (u, v) = ((axis + 1) % 3, (axis + 2) % 3);
                    let base = p.len() as u32;
                    for (a, b) in [(-1.0, -1.0), (1.0, -1.0), (1.0, 1.0), (-1.0, 1.0)] {
                        let mut q = [0.0f32; 3];
                        q[axis] = sign * h[axis];
                        q[u] = a * h[u];
                        q[v] = b * h[v];
                        p.push(q);
                        let mut nn = [0.0f32; 3];
                        nn[axis] = sign;
                        n.push(nn);
                    }
                    if sign > 0.0 {
                        ix.extend([base, base + 1, base + 2, base, base + 2, base + 3]);
                    } else {
                        ix.extend([base, base + 2, base + 1, base, base + 3, base + 2]);
                    }
                }
            }
        }
        Shape::Ellipsoid { radii } => {
            let mut profile = sphere(1.0, 0.0, false);
            profile.extend(sphere(1.0, 0.0, true).into_iter().skip(1));
            lathe(&profile, radii, 1);
        }
        Shape::Capsule {
            radius,
            half_length,
            axis,
        } => {
            let mut profile = sphere(radius, -half_length, false);
            profile.extend(sphere(radius, half_length, true));
            lathe(&profile, [1.0; 3], axis.index());
        }
        Shape::Cylinder {
            radius,
            half_length,
            axis,
        } => {
            let profile = [
                (0.0, -half_length, 0.0, -1.0),
                (radius, -half_length, 0.0, -1.0),
                (radius, -half_length, 1.0, 0.0),
                (radius, half_length, 1.0, 0.0),
                (radius, half_length, 0.0, 1.0),
                (0.0, half_length, 0.0, 1.0),
            ];
            lathe(&profile, [1.0; 3], axis.index());
        }
    }
    (p, n, ix)
}

fn isometry(pose: &BodyPose) -> Isometry3<f64> {
    Isometry3::from_parts(
        Translation3::new(pose[0], pose[1], pose[2]),
        super::pose::quat_of(pose),
    )
}

/// The reference pose of every body.
fn reference_poses(c: &Character) -> Vec<BodyPose> {
    c.bodies
        .iter()
        .map(|b| super::pose::pose_of(Vector3::from(b.position), &reference_orientation(b)))
        .collect()
}

/// Bytes of a little-endian f32/u32/u16 array.
fn bytes<T: Copy, const N: usize>(v: &[[T; N]], each: impl Fn(T) -> [u8; 4]) -> Vec<u8> {
    v.iter()
        .flat_map(|a| a.iter().flat_map(|x| each(*x)))
        .collect()
}

/// The clip as a binary glTF (`.glb`).
pub fn export_glb(clip: &Clip, character: &Character) -> Vec<u8> {
    let (root, blob) = document(clip, character);
    let json_text = json::serialize::to_string(&root).expect("glTF JSON serialises");
    let mut json_bytes = json_text.into_bytes();
    while !json_bytes.len().is_multiple_of(4) {
        json_bytes.push(b' ');
    }
    let glb = gltf::binary::Glb {
        header: gltf::binary::Header {
            magic: *b"glTF",
            version: 2,
            length: (12 + 8 + json_bytes.len() + 8 + blob.len()) as u32,
        },
        json: std::borrow::Cow::Owned(json_bytes),
        bin: Some(std::borrow::Cow::Owned(blob)),
    };
    glb.to_vec().expect("glb container")
}

/// The clip as a text glTF (`.gltf`) whose buffer is the file `bin_name` beside it: the JSON
/// text and the buffer's bytes.
pub fn export_gltf(clip: &Clip, character: &Character, bin_name: &str) -> (String, Vec<u8>) {
    let (mut root, blob) = document(clip, character);
    root.buffers[0].uri = Some(bin_name.into());
    let text = json::serialize::to_string_pretty(&root).expect("glTF JSON serialises");
    (text, blob)
}

/// The glTF document of a clip and its one buffer.
fn document(clip: &Clip, character: &Character) -> (json::Root, Vec<u8>) {
    let mut root = json::Root::default();
    let mut blob: Vec<u8> = Vec::new();
    let buffer = root.push(json::Buffer {
        byte_length: USize64(0),
        extensions: Default::default(),
        extras: Default::default(),
        name: None,
        uri: None,
    });
    let mut view = |root: &mut json::Root, data: Vec<u8>, target: Option<json::buffer::Target>| {
        while !blob.len().is_multiple_of(4) {
            blob.push(0);
        }
        let offset = blob.len();
        let len = data.len();
        blob.extend(data);
        root.push(json::buffer::View {
            buffer,
            byte_length: USize64::from(len),
            byte_offset: Some(USize64::from(offset)),
            byte_stride: None,
            extensions: Default::default(),
            extras: Default::default(),
            name: None,
            target: target.map(Valid),
        })
    };
    let accessor = |root: &mut json::Root,
                    view: json::Index<json::buffer::View>,
                    count: usize,
                    component: json::accessor::ComponentType,
                    type_: json::accessor::Type,
                    bounds: Option<(Vec<f32>, Vec<f32>)>| {
        root.push(json::Accessor {
            buffer_view: Some(view),
            byte_offset: Some(USize64(0)),
            count: USize64::from(count),
            component_type: Valid(json::accessor::GenericComponentType(component)),
            extensions: Default::default(),
            extras: Default::default(),
            type_: Valid(type_),
            min: bounds.as_ref().map(|b| json::Value::from(b.0.clone())),
            max: bounds.map(|b| json::Value::from(b.1)),
            name: None,
            normalized: false,
            sparse: None,
        })
    };
    use json::accessor::{ComponentType as C, Type as T};
    let f32le = |x: f32| x.to_le_bytes();

    // Mesh: every body's shape at its reference pose, bound rigidly to its joint.
    let reference = reference_poses(character);
    let (mut positions, mut normals, mut joints, mut indices) = (vec![], vec![], vec![], vec![]);
    for (bi, b) in character.bodies.iter().enumerate() {
        let (p, n, ix) = shape_triangles(&b.shape);
        let iso = isometry(&reference[bi]);
        let base = positions.len() as u32;
        for (v, nv) in p.iter().zip(&n) {
            let w = iso * nalgebra::Point3::new(v[0] as f64, v[1] as f64, v[2] as f64);
            positions.push([w.x as f32, w.y as f32, w.z as f32]);
            let wn = iso.rotation * Vector3::new(nv[0] as f64, nv[1] as f64, nv[2] as f64);
            normals.push([wn.x as f32, wn.y as f32, wn.z as f32]);
            joints.push([bi as u16, 0, 0, 0]);
        }
        indices.extend(ix.iter().map(|i| [base + i]));
    }
    let lo = (0..3)
        .map(|k| positions.iter().map(|p| p[k]).fold(f32::INFINITY, f32::min))
        .collect();
    let hi = (0..3)
        .map(|k| {
            positions
                .iter()
                .map(|p| p[k])
                .fold(f32::NEG_INFINITY, f32::max)
        })
        .collect();
    let target = Some(json::buffer::Target::ArrayBuffer);
    let v = view(&mut root, bytes(&positions, f32le), target);
    let pos_acc = accessor(
        &mut root,
        v,
        positions.len(),
        C::F32,
        T::Vec3,
        Some((lo, hi)),
    );
    let v = view(&mut root, bytes(&normals, f32le), target);
    let norm_acc = accessor(&mut root, v, normals.len(), C::F32, T::Vec3, None);
    let joint_bytes: Vec<u8> = joints
        .iter()
        .flat_map(|j| j.iter().flat_map(|x| x.to_le_bytes()))
        .collect();
    let v = view(&mut root, joint_bytes, target);
    let joint_acc = accessor(&mut root, v, joints.len(), C::U16, T::Vec4, None);
    let weights: Vec<[f32; 4]> = vec![[1.0, 0.0, 0.0, 0.0]; joints.len()];
    let v = view(&mut root, bytes(&weights, f32le), target);
    let weight_acc = accessor(&mut root, v, weights.len(), C::F32, T::Vec4, None);
    let v = view(
        &mut root,
        bytes(&indices, |x: u32| x.to_le_bytes()),
        Some(json::buffer::Target::ElementArrayBuffer),
    );
    let index_acc = accessor(&mut root, v, indices.len(), C::U32, T::Scalar, None);
    let mut attributes = BTreeMap::new();
    attributes.insert(Valid(json::mesh::Semantic::Positions), pos_acc);
    attributes.insert(Valid(json::mesh::Semantic::Normals), norm_acc);
    attributes.insert(Valid(json::mesh::Semantic::Joints(0)), joint_acc);
    attributes.insert(Valid(json::mesh::Semantic::Weights(0)), weight_acc);
    let mesh = root.push(json::Mesh {
        extensions: Default::default(),
        extras: Default::default(),
        name: Some(character.name.clone()),
        primitives: vec![json::mesh::Primitive {
            attributes,
            extensions: Default::default(),
            extras: Default::default(),
            indices: Some(index_acc),
            material: None,
            mode: Valid(json::mesh::Mode::Triangles),
            targets: None,
        }],
        weights: None,
    });

    // Joints: one node per body at its reference pose.
    let node = |name: &str, pose: Option<&BodyPose>| json::Node {
        name: Some(name.into()),
        translation: pose.map(|p| [p[0] as f32, p[1] as f32, p[2] as f32]),
        rotation: pose.map(|p| {
            json::scene::UnitQuaternion([p[3] as f32, p[4] as f32, p[5] as f32, p[6] as f32])
        }),
        ..Default::default()
    };
    let body_nodes: Vec<json::Index<json::Node>> = character
        .bodies
        .iter()
        .zip(&reference)
        .map(|(b, p)| root.push(node(&b.name, Some(p))))
        .collect();
    let mut skeleton = node("character", None);
    skeleton.children = Some(body_nodes.clone());
    let skeleton = root.push(skeleton);
    let inverse: Vec<[f32; 16]> = reference
        .iter()
        .map(|p| {
            let m = isometry(p).inverse().to_homogeneous();
            std::array::from_fn(|k| m[(k % 4, k / 4)] as f32)
        })
        .collect();
    let v = view(&mut root, bytes(&inverse, f32le), None);
    let inverse_acc = accessor(&mut root, v, inverse.len(), C::F32, T::Mat4, None);
    let skin = root.push(json::Skin {
        extensions: Default::default(),
        extras: Default::default(),
        inverse_bind_matrices: Some(inverse_acc),
        joints: body_nodes.clone(),
        name: Some(character.name.clone()),
        skeleton: Some(skeleton),
    });
    let mut figure = node(&format!("{} skin", character.name), None);
    figure.mesh = Some(mesh);
    figure.skin = Some(skin);
    let figure = root.push(figure);

    // Animation: every body's world pose per frame.
    let n = clip.frames.len();
    let times: Vec<[f32; 1]> = (0..n).map(|i| [(i as f64 / clip.rate) as f32]).collect();
    let v = view(&mut root, bytes(&times, f32le), None);
    let last = times.last().map(|t| t[0]).unwrap_or(0.0);
    let time_acc = accessor(
        &mut root,
        v,
        n,
        C::F32,
        T::Scalar,
        Some((vec![0.0], vec![last])),
    );
    let poses: Vec<Vec<BodyPose>> = (0..n).map(|i| clip.body_poses(character, i)).collect();
    let mut samplers = Vec::new();
    let mut channels = Vec::new();
    for (bi, &target_node) in body_nodes.iter().enumerate() {
        let t: Vec<[f32; 3]> = poses
            .iter()
            .map(|p| [p[bi][0] as f32, p[bi][1] as f32, p[bi][2] as f32])
            .collect();
        let r: Vec<[f32; 4]> = poses
            .iter()
            .map(|p| {
                [
                    p[bi][3] as f32,
                    p[bi][4] as f32,
                    p[bi][5] as f32,
                    p[bi][6] as f32,
                ]
            })
            .collect();
        for (path, data, type_) in [
            (
                json::animation::Property::Translation,
                bytes(&t, f32le),
                T::Vec3,
            ),
            (
                json::animation::Property::Rotation,
                bytes(&r, f32le),
                T::Vec4,
            ),
        ] {
            let v = view(&mut root, data, None);
            let out = accessor(&mut root, v, n, C::F32, type_, None);
            samplers.push(json::animation::Sampler {
                extensions: Default::default(),
                extras: Default::default(),
                input: time_acc,
                interpolation: Valid(json::animation::Interpolation::Linear),
                output: out,
            });
            channels.push(json::animation::Channel {
                sampler: json::Index::new(samplers.len() as u32 - 1),
                target: json::animation::Target {
                    extensions: Default::default(),
                    extras: Default::default(),
                    node: target_node,
                    path: Valid(path),
                },
                extensions: Default::default(),
                extras: Default::default(),
            });
        }
    }
    root.push(json::Animation {
        extensions: Default::default(),
        extras: Default::default(),
        channels,
        name: Some(clip.tags.source.clone()),
        samplers,
    });
    let scene = root.push(json::Scene {
        extensions: Default::default(),
        extras: Default::default(),
        name: Some(character.name.clone()),
        nodes: vec![skeleton, figure],
    });
    root.scene = Some(scene);
    while !blob.len().is_multiple_of(4) {
        blob.push(0);
    }
    root.buffers[0].byte_length = USize64::from(blob.len());
    // Which character the file animates, so that the app can load it back on its own.
    let tag = format!(
        "{{\"motionlab\":{{\"character\":{},\"hash\":{}}}}}",
        json::Value::from(clip.character.path.clone()),
        json::Value::from(clip.character.hash.clone())
    );
    root.asset.extras = json::extras::RawValue::from_string(tag).ok();
    (root, blob)
}

/// The file the first buffer of a `.gltf` at `path` names (its `uri`, beside the file), or
/// `None` for an embedded buffer or none.
pub fn buffer_path(text: &[u8], path: &std::path::Path) -> Option<std::path::PathBuf> {
    let g = gltf::Gltf::from_slice(text).ok()?;
    let buffer = g.document.buffers().next()?;
    match buffer.source() {
        gltf::buffer::Source::Uri(uri) if !uri.starts_with("data:") => {
            Some(path.parent().unwrap_or(std::path::Path::new(".")).join(uri))
        }
        _ => None,
    }
}

/// The character path a file written by [`export_glb`] or [`export_gltf`] names (`None` for
/// other glTF files).
pub fn character_of_file(bytes: &[u8]) -> Option<String> {
    let gltf = gltf::Gltf::from_slice(bytes).ok()?;
    let extras = gltf.document.as_json().asset.extras.as_ref()?;
    let v: json::Value = json::deserialize::from_str(extras.get()).ok()?;
    v.get("motionlab")?
        .get("character")?
        .as_str()
        .map(String::from)
}

/// Why a glTF file does not read back into a clip. Every message names the file.
#[derive(Debug, thiserror::Error)]
pub enum GltfError {
    #[error("{path}: not a glTF file: {error}")]
    NotGltf { path: String, error: gltf::Error },
    #[error("{path}: expected an animation")]
    NoAnimation { path: String },
    #[error("{path}: the animation has no keyframe times")]
    NoKeyframeTimes { path: String },
    #[error("{path}: the animation has no keyframes")]
    NoKeyframes { path: String },
    #[error("{path}: expected {keys} translation and rotation keys for node `{node}`")]
    MissingKeys {
        path: String,
        keys: usize,
        node: String,
    },
    #[error("{path}: keyframe times do not increase")]
    TimesNotIncreasing { path: String },
    #[error(transparent)]
    Invalid(#[from] super::InvalidClip),
}

/// Reads a binary glTF written by [`export_glb`] (or any glTF whose first animation moves nodes
/// named after `character`'s bodies) back into a clip on `character`.
pub fn import_glb(
    bytes: &[u8],
    character: &Character,
    character_ref: CharacterRef,
    path: &str,
) -> Result<Clip, GltfError> {
    import(bytes, None, character, character_ref, path)
}

/// [`import_glb`] for a text `.gltf` whose buffer is `bin`.
pub fn import_gltf(
    text: &[u8],
    bin: &[u8],
    character: &Character,
    character_ref: CharacterRef,
    path: &str,
) -> Result<Clip, GltfError> {
    import(text, Some(bin), character, character_ref, path)
}

fn import(
    bytes: &[u8],
    external: Option<&[u8]>,
    character: &Character,
    character_ref: CharacterRef,
    path: &str,
) -> Result<Clip, GltfError> {
    let gltf = gltf::Gltf::from_slice(bytes).map_err(|error| GltfError::NotGltf {
        path: path.to_string(),
        error,
    })?;
    let blob = gltf.blob.as_deref();
    let animation = gltf
        .animations()
        .next()
        .ok_or_else(|| GltfError::NoAnimation { path: path.into() })?;
    let nbodies = character.bodies.len();
    let mut translations: Vec<Option<Vec<[f32; 3]>>> = vec![None; nbodies];
    let mut rotations: Vec<Option<Vec<[f32; 4]>>> = vec![None; nbodies];
    let mut times: Option<Vec<f32>> = None;
    for channel in animation.channels() {
        let node = channel.target().node();
        let Some(b) = node.name().and_then(|n| character.body_index(n)) else {
            continue;
        };
        let reader = channel.reader(|buffer| match buffer.source() {
            gltf::buffer::Source::Bin => blob,
            gltf::buffer::Source::Uri(_) => external,
        });
        if times.is_none() {
            times = reader.read_inputs().map(|t| t.collect());
        }
        match reader.read_outputs() {
            Some(gltf::animation::util::ReadOutputs::Translations(t)) => {
                translations[b] = Some(t.collect())
            }
            Some(gltf::animation::util::ReadOutputs::Rotations(r)) => {
                rotations[b] = Some(r.into_f32().collect())
            }
            _ => {}
        }
    }
    let times = times.ok_or_else(|| GltfError::NoKeyframeTimes { path: path.into() })?;
    let n = times.len();
    if n == 0 {
        return Err(GltfError::NoKeyframes { path: path.into() });
    }
    for (b, body) in character.bodies.iter().enumerate() {
        let ok = translations[b].as_ref().is_some_and(|t| t.len() == n)
            && rotations[b].as_ref().is_some_and(|r| r.len() == n);
        if !ok {
            return Err(GltfError::MissingKeys {
                path: path.into(),
                keys: n,
                node: body.name.clone(),
            });
        }
    }
    let rate = if n > 1 {
        // Keyframe times are single precision: the rate to 5 significant digits.
        let r = (n - 1) as f64 / f64::from(times[n - 1] - times[0]);
        let digits = 10f64.powi(4 - r.abs().log10().floor() as i32);
        (r * digits).round() / digits
    } else {
        30.0
    };
    if !(rate.is_finite() && rate > 0.0) {
        return Err(GltfError::TimesNotIncreasing { path: path.into() });
    }
    let poses: Vec<Vec<BodyPose>> = (0..n)
        .map(|i| {
            (0..nbodies)
                .map(|b| {
                    let t = translations[b].as_ref().expect("checked")[i];
                    let r = rotations[b].as_ref().expect("checked")[i];
                    [t[0], t[1], t[2], r[0], r[1], r[2], r[3]].map(f64::from)
                })
                .collect()
        })
        .collect();
    let clip = from_body_poses(
        character,
        character_ref,
        rate,
        &poses,
        None,
        Tags {
            source: "gltf".into(),
            ..Tags::default()
        },
    );
    clip.check()?;
    Ok(clip)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::clip::from_gait::clip_of_gait;
    use std::path::Path;

    /// The horse trot exported as glTF is a valid file (read by the `gltf` crate: one skin of 19
    /// joints, one animation of 38 channels over 30 keyframes) and imports back onto the horse
    /// with every joint angle within 1e-4 rad (single-precision keys).
    #[test]
    fn a_clip_survives_a_gltf_round_trip() {
        let root = Path::new(env!("CARGO_MANIFEST_DIR"));
        let path = root.join("characters/horse.ron");
        let text = std::fs::read_to_string(&path).unwrap();
        let horse = crate::model::load_character(&path).unwrap();
        let r = CharacterRef::new(&path, &text);
        let gait = crate::files::read_ron(&root.join("assets/gaits/horse_trot_1ms.ron")).unwrap();
        let clip = clip_of_gait(&gait, &horse, r.clone()).unwrap();
        let glb = export_glb(&clip, &horse);
        let doc = gltf::Gltf::from_slice(&glb).unwrap();
        assert_eq!(doc.skins().count(), 1);
        assert_eq!(doc.skins().next().unwrap().joints().count(), 19);
        let anim = doc.animations().next().unwrap();
        assert_eq!(anim.channels().count(), 38);
        let back = import_glb(&glb, &horse, r, "trot.glb").unwrap();
        assert_eq!(back.frames.len(), 30);
        assert!(
            (back.rate - clip.rate).abs() < 1e-3,
            "{} vs {}",
            back.rate,
            clip.rate
        );
        let worst = clip.max_joint_difference(&back);
        assert!(worst < 1e-4, "joint angles moved by {worst} rad");
        assert_eq!(
            character_of_file(&glb).as_deref(),
            Some(path.display().to_string().as_str())
        );
        let (text, bin) = export_gltf(&clip, &horse, "trot.bin");
        let again = import_gltf(
            text.as_bytes(),
            &bin,
            &horse,
            back.character.clone(),
            "trot.gltf",
        );
        assert_eq!(
            again.unwrap().frames,
            back.frames,
            "the .gltf form carries the same keys"
        );
        let e = import_glb(&glb[..100], &horse, CharacterRef::new(&path, ""), "cut.glb");
        assert!(
            e.unwrap_err()
                .to_string()
                .starts_with("cut.glb: not a glTF file")
        );
    }
}
