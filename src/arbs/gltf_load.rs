//! glTF 2.0 (`.gltf` with its buffers, or binary `.glb`) → [`Skeleton`] (Borer et al. 2018,
//! §4: "a character skinned with a Kinematic Skeleton").
//!
//! - **Joints**: the first skin's joints; a joint's parent is its nearest ancestor node that is
//!   also a joint of the skin. A skin whose joints form several trees (Blender legs parented
//!   to the armature, not to the hips) with inverse bind matrices has every smaller tree hung
//!   from the joint of the largest nearest to its root in the bind pose (a warning says so);
//!   without them it keeps the largest (a warning names what was dropped).
//! - **Rest pose**: the bind pose, `S · IBM⁻¹` per joint with `IBM` its inverse bind matrix and
//!   `S` the bind space's placement: glTF 2.0 ignores the skinned mesh node's transform, so
//!   Blender writes world-space bind matrices (`S` = identity; taking the mesh node's transform
//!   as well applied an armature's scale twice), while COLLADA2GLTF writes them in the mesh
//!   node's space and parents the skeleton like the mesh (`S` = that node's world transform).
//!   `S` is whichever of the two puts the bind pose nearest the joints' own rest transforms
//!   (sum of joint distances). Without inverse bind matrices, the node hierarchy's transforms.
//! - **Skin samples**: the skinned vertices (`POSITION`, `JOINTS_0`, `WEIGHTS_0`) placed by the
//!   same `S`, for radius and feet fitting.
//! - **Animations**: every named animation, and the unnamed ones merged into one called
//!   `animation` (COLLADA2GLTF writes one unnamed animation per joint). Translation, rotation
//!   and scale channels of every ancestor of a joint are sampled — linear (slerp for rotations),
//!   step or cubic-spline interpolation — and composed through the node hierarchy, non-joint
//!   ancestors included. The sampling instants are the keyframe times when every channel shares
//!   one regular grid of 10 to 240 fps, else 30 fps from the first keyframe to the last.
//! - **Robustness**: the JSON goes through `gltf`'s validation (every index in range); accessors
//!   are then read here, every offset, stride and count checked against its buffer view and
//!   buffer with overflow-checked arithmetic, so a malformed file is an [`ArbsError`] naming
//!   the file, the accessor and the problem. External buffers must lie beside the file (no
//!   absolute paths, no `..`); `data:` URIs are decoded (base64).

use super::ArbsError;
use super::gltf_animation::read_animations;
use super::gltf_data::{load_buffers, read_accessor};
use super::skeleton::{
    Forward, JointPose, KsJoint, LoadOptions, MAX_FILE_BYTES, MAX_JOINTS, MAX_SKIN_SAMPLES,
    Skeleton, SkinSample, rotation_of, unique,
};
use gltf::accessor::Dimensions;
use nalgebra::{Matrix3, Matrix4, UnitQuaternion, Vector3};
use std::path::Path;

/// The most nodes a file may have.
const MAX_NODES: usize = 100_000;

impl Skeleton {
    /// Reads glTF or GLB bytes; `dir` is where external buffers are looked for, `path` names
    /// the file in messages.
    pub fn from_gltf(
        bytes: &[u8],
        dir: Option<&Path>,
        path: &str,
        options: &LoadOptions,
    ) -> Result<Skeleton, ArbsError> {
        read(bytes, dir, path)?.finish(Forward::PlusZ, options)
    }
}

/// A node's local transform: translation, rotation, scale.
#[derive(Clone, Copy, Debug)]
pub(super) struct Trs {
    pub(super) t: Vector3<f64>,
    pub(super) r: UnitQuaternion<f64>,
    pub(super) s: Vector3<f64>,
}

impl Trs {
    fn matrix(&self) -> Matrix4<f64> {
        Matrix4::new_translation(&self.t)
            * self.r.to_homogeneous()
            * Matrix4::new_nonuniform_scaling(&self.s)
    }

    fn of_matrix(m: &Matrix4<f64>) -> Trs {
        let m3: Matrix3<f64> = m.fixed_view::<3, 3>(0, 0).into_owned();
        let sign = if m3.determinant() < 0.0 { -1.0 } else { 1.0 };
        Trs {
            t: Vector3::new(m[(0, 3)], m[(1, 3)], m[(2, 3)]),
            r: rotation_of(&m3),
            s: Vector3::new(
                m3.column(0).norm(),
                m3.column(1).norm(),
                sign * m3.column(2).norm(),
            ),
        }
    }
}

pub(super) fn pose_of(m: &Matrix4<f64>) -> JointPose {
    let m3: Matrix3<f64> = m.fixed_view::<3, 3>(0, 0).into_owned();
    JointPose::new(
        Vector3::new(m[(0, 3)], m[(1, 3)], m[(2, 3)]),
        &rotation_of(&m3),
    )
}

fn read(bytes: &[u8], dir: Option<&Path>, path: &str) -> Result<Skeleton, ArbsError> {
    let err = |m: String| ArbsError::file(path, m);
    if bytes.len() as u64 > MAX_FILE_BYTES {
        return Err(err(format!(
            "the file has {} bytes; at most {MAX_FILE_BYTES} are read",
            bytes.len()
        )));
    }
    if bytes.starts_with(b"glTF") {
        if bytes.len() < 12 {
            return Err(err(format!(
                "truncated binary glTF (.glb): {} bytes, shorter than its 12-byte header",
                bytes.len()
            )));
        }
        let declared = u32::from_le_bytes([bytes[8], bytes[9], bytes[10], bytes[11]]) as usize;
        if declared > bytes.len() {
            return Err(err(format!(
                "truncated binary glTF (.glb): the header declares {declared} bytes, the file holds {}",
                bytes.len()
            )));
        }
    } else if bytes.iter().find(|b| !b.is_ascii_whitespace()) != Some(&b'{') {
        return Err(err(
            "not a glTF file: expected JSON text (`{`) or a binary glTF (magic `glTF`)".into(),
        ));
    }
    // gltf-json 1.4's validation indexes a primitive's POSITION accessor before checking the
    // index (a panic on a bad one), so that index is checked here first.
    let raw = gltf::Gltf::from_slice_without_validation(bytes)
        .map_err(|e| err(format!("not a valid glTF file: {e}")))?;
    let json = raw.document.as_json();
    for (mi, mesh) in json.meshes.iter().enumerate() {
        for (pi, prim) in mesh.primitives.iter().enumerate() {
            let position = gltf_json::validation::Checked::Valid(gltf::Semantic::Positions);
            if let Some(i) = prim.attributes.get(&position)
                && i.value() >= json.accessors.len()
            {
                return Err(err(format!(
                    "not a valid glTF file: mesh {mi} primitive {pi} names POSITION accessor {}, which does not exist",
                    i.value()
                )));
            }
        }
    }
    drop(raw);
    let gltf =
        gltf::Gltf::from_slice(bytes).map_err(|e| err(format!("not a valid glTF file: {e}")))?;
    let buffers = load_buffers(&gltf, dir, path)?;
    let doc = &gltf.document;

    // Nodes: parents, local transforms, and the order from the roots down.
    let nodes: Vec<gltf::Node> = doc.nodes().collect();
    if nodes.len() > MAX_NODES {
        return Err(err(format!(
            "the file has {} nodes; at most {MAX_NODES} are supported",
            nodes.len()
        )));
    }
    let mut parent: Vec<Option<usize>> = vec![None; nodes.len()];
    for n in &nodes {
        for c in n.children() {
            if parent[c.index()].is_some() || c.index() == n.index() {
                return Err(err(format!(
                    "node {} is the child of two nodes (or of itself): not a tree",
                    c.index()
                )));
            }
            parent[c.index()] = Some(n.index());
        }
    }
    let mut depth = vec![0usize; nodes.len()];
    for (i, d) in depth.iter_mut().enumerate() {
        let mut cur = i;
        while let Some(p) = parent[cur] {
            *d += 1;
            if *d > nodes.len() {
                return Err(err(format!("node {i}: the node hierarchy has a cycle")));
            }
            cur = p;
        }
    }
    let mut local = Vec::with_capacity(nodes.len());
    for n in &nodes {
        let trs = match n.transform() {
            gltf::scene::Transform::Matrix { matrix } => {
                let m = Matrix4::from_fn(|r, c| f64::from(matrix[c][r]));
                Trs::of_matrix(&m)
            }
            gltf::scene::Transform::Decomposed {
                translation: t,
                rotation: r,
                scale: s,
            } => {
                let q = nalgebra::Quaternion::new(r[3], r[0], r[1], r[2]).cast::<f64>();
                if q.norm().is_nan() || q.norm() <= 1e-6 {
                    return Err(err(format!(
                        "node {}: the rotation quaternion {r:?} has no length",
                        n.index()
                    )));
                }
                Trs {
                    t: Vector3::from(t).cast(),
                    r: UnitQuaternion::from_quaternion(q),
                    s: Vector3::from(s).cast(),
                }
            }
        };
        let m = trs.matrix();
        if !m.iter().all(|v| v.is_finite()) {
            return Err(err(format!(
                "node {} ({}): the transform is not finite (NaN or infinity)",
                n.index(),
                n.name().unwrap_or("unnamed")
            )));
        }
        local.push(trs);
    }

    // The skin and its joint tree.
    let skin = doc.skins().next().ok_or_else(|| {
        err("no skin: expected a skinned mesh whose skin lists the skeleton's joints".into())
    })?;
    let skin_nodes: Vec<usize> = skin.joints().map(|n| n.index()).collect();
    match skin_nodes.len() {
        0 => return Err(err("the skin has no joints".into())),
        1 => {
            return Err(err(
                "the skin has one joint: at least two are needed for a body".into(),
            ));
        }
        n if n > MAX_JOINTS => {
            return Err(err(format!(
                "the skin has {n} joints; at most {MAX_JOINTS} are supported"
            )));
        }
        _ => {}
    }
    let mut skin_index: Vec<Option<usize>> = vec![None; nodes.len()];
    for (i, &n) in skin_nodes.iter().enumerate() {
        if skin_index[n].is_some() {
            return Err(err(format!("the skin lists node {n} twice")));
        }
        skin_index[n] = Some(i);
    }
    let inverse_bind = match skin.inverse_bind_matrices() {
        Some(acc) => {
            let values = read_accessor(
                &acc,
                &buffers,
                path,
                "inverse bind matrices",
                &[Dimensions::Mat4],
            )?;
            if acc.count() < skin_nodes.len() {
                return Err(err(format!(
                    "accessor {} (inverse bind matrices) holds {} matrices for {} joints",
                    acc.index(),
                    acc.count(),
                    skin_nodes.len()
                )));
            }
            Some(values)
        }
        None => None,
    };
    // Nearest ancestor in the skin.
    let mut skin_parent: Vec<Option<usize>> = skin_nodes
        .iter()
        .map(|&n| {
            let mut cur = parent[n];
            while let Some(p) = cur {
                if let Some(i) = skin_index[p] {
                    return Some(i);
                }
                cur = parent[p];
            }
            None
        })
        .collect();
    let root_of = |skin_parent: &[Option<usize>], mut i: usize| {
        while let Some(p) = skin_parent[i] {
            i = p;
        }
        i
    };
    let roots: Vec<usize> = (0..skin_nodes.len())
        .filter(|&i| skin_parent[i].is_none())
        .collect();
    let size_of = |skin_parent: &[Option<usize>], r: usize| {
        (0..skin_nodes.len())
            .filter(|&i| root_of(skin_parent, i) == r)
            .count()
    };
    let root = roots
        .iter()
        .copied()
        .max_by_key(|&r| (size_of(&skin_parent, r), std::cmp::Reverse(r)))
        .expect("a finite forest has a root");
    let mut warnings = Vec::new();
    // Several trees with bind matrices (Blender puts legs that are not parented to the hips
    // directly under the armature): every other tree hangs from the joint of the largest one
    // nearest to its root in the bind pose.
    if roots.len() > 1
        && let Some(v) = &inverse_bind
    {
        let bind_at = |i: usize| {
            Matrix4::from_column_slice(&v[16 * i..16 * i + 16])
                .try_inverse()
                .map(|m| Vector3::new(m[(0, 3)], m[(1, 3)], m[(2, 3)]))
        };
        let main: Vec<usize> = (0..skin_nodes.len())
            .filter(|&i| root_of(&skin_parent, i) == root)
            .collect();
        let mut joined = Vec::new();
        for &r in roots.iter().filter(|&&r| r != root) {
            let Some(x) = bind_at(r) else { continue };
            let nearest = main
                .iter()
                .filter_map(|&m| bind_at(m).map(|y| (m, (y - x).norm())))
                .min_by(|a, b| a.1.total_cmp(&b.1));
            if let Some((m, _)) = nearest {
                skin_parent[r] = Some(m);
                joined.push(format!(
                    "node {} under node {}",
                    skin_nodes[r], skin_nodes[m]
                ));
            }
        }
        warnings.push(format!(
            "{path}: the skin's joints form {} trees; joined them at their nearest joints ({})",
            roots.len(),
            joined.join(", ")
        ));
    }
    let roots: Vec<usize> = (0..skin_nodes.len())
        .filter(|&i| skin_parent[i].is_none())
        .collect();
    if roots.len() > 1 {
        let size_of = |r: usize| size_of(&skin_parent, r);
        let kept = size_of(root);
        warnings.push(format!(
            "{path}: the skin's joints form {} trees; kept the largest ({kept} joints from node {}), dropped {} joints",
            roots.len(),
            skin_nodes[root],
            skin_nodes.len() - kept
        ));
    }
    // Depth-first order from the root, children in skin order.
    let mut order = Vec::new();
    let mut stack = vec![root];
    while let Some(i) = stack.pop() {
        order.push(i);
        let kids: Vec<usize> = (0..skin_nodes.len())
            .filter(|&c| skin_parent[c] == Some(i))
            .collect();
        stack.extend(kids.into_iter().rev());
    }
    let mut new_index: Vec<Option<usize>> = vec![None; skin_nodes.len()];
    for (k, &i) in order.iter().enumerate() {
        new_index[i] = Some(k);
    }

    // Nodes whose transforms matter: the ancestors of the joints and of the skinned meshes.
    let mesh_nodes: Vec<usize> = nodes
        .iter()
        .filter(|n| n.mesh().is_some() && n.skin().is_some_and(|s| s.index() == skin.index()))
        .map(|n| n.index())
        .collect();
    let mut needed = vec![false; nodes.len()];
    for &start in skin_nodes.iter().chain(&mesh_nodes) {
        let mut cur = Some(start);
        while let Some(c) = cur {
            if needed[c] {
                break;
            }
            needed[c] = true;
            cur = parent[c];
        }
    }
    let mut needed_order: Vec<usize> = (0..nodes.len()).filter(|&i| needed[i]).collect();
    needed_order.sort_by_key(|&i| depth[i]);
    let world_of = |locals: &[Trs]| -> Vec<Matrix4<f64>> {
        let mut world = vec![Matrix4::identity(); nodes.len()];
        for &i in &needed_order {
            let m = locals[i].matrix();
            world[i] = match parent[i] {
                Some(p) => world[p] * m,
                None => m,
            };
        }
        world
    };
    let rest_world = world_of(&local);
    // The space the bind pose and the vertices are in. glTF 2.0 ignores the skinned mesh node's
    // transform, so Blender writes bind matrices in world space; COLLADA2GLTF writes them in the
    // mesh node's space and parents the skeleton like the mesh. Of the two, the one in which the
    // bind pose agrees best with the joints' own rest transforms is taken.
    let mesh_world = mesh_nodes
        .first()
        .map(|&m| rest_world[m])
        .unwrap_or_else(Matrix4::identity);
    let bind_space = match &inverse_bind {
        Some(v) => {
            let misfit = |m: &Matrix4<f64>| -> f64 {
                (0..skin_nodes.len())
                    .filter_map(|i| {
                        let b =
                            Matrix4::from_column_slice(&v[16 * i..16 * i + 16]).try_inverse()?;
                        let x = m * b;
                        let w = rest_world[skin_nodes[i]];
                        Some(
                            ((x[(0, 3)] - w[(0, 3)]).powi(2)
                                + (x[(1, 3)] - w[(1, 3)]).powi(2)
                                + (x[(2, 3)] - w[(2, 3)]).powi(2))
                            .sqrt(),
                        )
                    })
                    .sum()
            };
            if misfit(&Matrix4::identity()) < misfit(&mesh_world) {
                Matrix4::identity()
            } else {
                mesh_world
            }
        }
        None => mesh_world,
    };

    // Rest pose: the bind pose.
    let names = unique(
        order
            .iter()
            .map(|&i| {
                nodes[skin_nodes[i]]
                    .name()
                    .filter(|n| !n.trim().is_empty())
                    .map(|n| n.trim().to_string())
                    .unwrap_or_else(|| format!("joint{}", skin_nodes[i]))
            })
            .collect(),
    );
    let mut joints = Vec::with_capacity(order.len());
    for (k, &i) in order.iter().enumerate() {
        let world = match &inverse_bind {
            Some(v) => {
                let ibm = Matrix4::from_column_slice(&v[16 * i..16 * i + 16]);
                let inv = ibm.try_inverse().ok_or_else(|| {
                    err(format!(
                        "the inverse bind matrix of joint `{}` is singular",
                        names[k]
                    ))
                })?;
                bind_space * inv
            }
            None => rest_world[skin_nodes[i]],
        };
        joints.push(KsJoint {
            name: names[k].clone(),
            parent: skin_parent[i].map(|p| new_index[p].expect("a kept joint's parent is kept")),
            rest: pose_of(&world),
        });
    }

    let (skin_samples, skin_triangles) =
        read_skin(doc, &buffers, path, &mesh_nodes, &bind_space, &new_index)?;
    let animations = read_animations(
        doc,
        &buffers,
        path,
        &local,
        &needed,
        &world_of,
        &order.iter().map(|&i| skin_nodes[i]).collect::<Vec<_>>(),
        &mut warnings,
    )?;
    let name = Path::new(path)
        .file_stem()
        .map(|s| s.to_string_lossy().to_string())
        .unwrap_or_else(|| "skeleton".into());
    Ok(Skeleton {
        name,
        source: path.into(),
        joints,
        skin: skin_samples,
        skin_triangles,
        animations,
        warnings,
        scale: 1.0,
    })
}

/// The skinned vertices of every mesh node that uses the skin, in world coordinates, and the
/// triangles over them (for drawing; none when the vertices had to be thinned out), placed
/// by `bind_space` (the bind pose's space, module docs).
fn read_skin(
    doc: &gltf::Document,
    buffers: &[Vec<u8>],
    path: &str,
    mesh_nodes: &[usize],
    bind_space: &Matrix4<f64>,
    new_index: &[Option<usize>],
) -> Result<(Vec<SkinSample>, Vec<[usize; 3]>), ArbsError> {
    let mut out = Vec::new();
    let mut triangles = Vec::new();
    for &n in mesh_nodes {
        let Some(mesh) = doc.nodes().nth(n).and_then(|n| n.mesh()) else {
            continue;
        };
        for (pi, prim) in mesh.primitives().enumerate() {
            use gltf::mesh::Semantic;
            let (Some(pos), Some(jts), Some(wts)) = (
                prim.get(&Semantic::Positions),
                prim.get(&Semantic::Joints(0)),
                prim.get(&Semantic::Weights(0)),
            ) else {
                continue;
            };
            let p = read_accessor(&pos, buffers, path, "POSITION", &[Dimensions::Vec3])?;
            let j = read_accessor(&jts, buffers, path, "JOINTS_0", &[Dimensions::Vec4])?;
            let w = read_accessor(&wts, buffers, path, "WEIGHTS_0", &[Dimensions::Vec4])?;
            let count = pos.count();
            let base = out.len();
            if prim.mode() == gltf::mesh::Mode::Triangles {
                let corners: Vec<usize> = match prim.indices() {
                    Some(ix) => {
                        read_accessor(&ix, buffers, path, "indices", &[Dimensions::Scalar])?
                            .into_iter()
                            .map(|i| i as usize)
                            .collect()
                    }
                    None => (0..count).collect(),
                };
                if let Some(bad) = corners.iter().find(|&&i| i >= count) {
                    return Err(ArbsError::file(
                        path,
                        format!(
                            "mesh {} primitive {pi}: index {bad} past its {count} vertices",
                            mesh.index()
                        ),
                    ));
                }
                triangles.extend(
                    corners
                        .chunks_exact(3)
                        .map(|t| [base + t[0], base + t[1], base + t[2]]),
                );
            }
            if jts.count() != count || wts.count() != count {
                return Err(ArbsError::file(
                    path,
                    format!(
                        "mesh {} primitive {pi}: {count} positions but {} JOINTS_0 and {} WEIGHTS_0",
                        mesh.index(),
                        jts.count(),
                        wts.count()
                    ),
                ));
            }
            for v in 0..count {
                let x = bind_space.transform_point(&nalgebra::Point3::new(
                    p[3 * v],
                    p[3 * v + 1],
                    p[3 * v + 2],
                ));
                let mut joints = [0usize; 4];
                let mut weights = [0.0; 4];
                for k in 0..4 {
                    let ji = j[4 * v + k];
                    if !(ji >= 0.0 && (ji as usize) < new_index.len() && ji.fract() == 0.0) {
                        return Err(ArbsError::file(
                            path,
                            format!(
                                "accessor {} (JOINTS_0) names joint {ji}; the skin has {}",
                                jts.index(),
                                new_index.len()
                            ),
                        ));
                    }
                    if let Some(kept) = new_index[ji as usize] {
                        joints[k] = kept;
                        weights[k] = w[4 * v + k];
                    }
                }
                out.push(SkinSample {
                    position: [x.x, x.y, x.z],
                    joints,
                    weights,
                });
            }
        }
    }
    if out.len() > MAX_SKIN_SAMPLES {
        let step = out.len().div_ceil(MAX_SKIN_SAMPLES);
        out = out.into_iter().step_by(step).collect();
        triangles.clear();
    }
    Ok((out, triangles))
}
