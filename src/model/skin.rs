//! The skin's binding, without a renderer: which bones move a point of a character's surface
//! and by how much. The viewport's skinned mesh (`app::workbench::figures`) and the motion graph's point cloud
//! (McIntosh 2011, thesis §4.3.1: frames compared by the mesh's vertices, moved by the bones) both
//! use it, so the graph compares what the user sees.
//!
//! A point on body b is bound to b, and to each body on the other side of a joint of b whose
//! anchor is within [`BLEND_RADIUS`] of it, with weight ½s²(3 − 2s), s = 1 − distance/radius (at
//! most three such, the strongest), b keeping at least 0.1; weights sum to 1. Posing is linear
//! blend skinning: p = Σ w_k · P_k · B_k⁻¹ · p_ref, with B_k the body's reference pose and P_k
//! its current pose.

use super::{Axis, Character, Shape};
use nalgebra::{Isometry3, Point3, Translation3, UnitQuaternion, Vector3};

/// Distance from a joint centre within which a point is shared with the neighbouring bone (m).
pub const BLEND_RADIUS: f64 = 0.09;

/// Up to four bones and their weights.
pub type Influence = ([u16; 4], [f32; 4]);

/// The bones and weights of a point at `point` (world, reference pose) on body `body`.
pub fn influence(c: &Character, body: usize, point: [f64; 3]) -> Influence {
    let name = &c.bodies[body].name;
    let p = Vector3::from(point);
    let mut infl: Vec<(usize, f32)> = c
        .joints
        .iter()
        .filter_map(|j| {
            let other = if &j.child == name {
                &j.parent
            } else if &j.parent == name {
                &j.child
            } else {
                return None;
            };
            let d = (p - Vector3::from(j.anchor)).norm() / BLEND_RADIUS;
            if d >= 1.0 {
                return None;
            }
            let s = (1.0 - d) as f32;
            Some((c.body_index(other)?, 0.5 * s * s * (3.0 - 2.0 * s)))
        })
        .collect();
    infl.sort_by(|a, b| b.1.total_cmp(&a.1));
    infl.truncate(3);
    let other: f32 = infl.iter().map(|x| x.1).sum();
    let mut bones = [body as u16, 0, 0, 0];
    let mut weights = [1.0 - other.min(0.9), 0.0, 0.0, 0.0];
    for (k, (o, w)) in infl.iter().enumerate() {
        bones[k + 1] = *o as u16;
        weights[k + 1] = *w;
    }
    let sum: f32 = weights.iter().sum();
    (bones, weights.map(|x| x / sum))
}

/// A body's reference pose as an isometry.
fn reference_pose(c: &Character, body: usize) -> Isometry3<f64> {
    let b = &c.bodies[body];
    let q = b.orientation();
    Isometry3::from_parts(
        Translation3::from(Vector3::from(b.position)),
        UnitQuaternion::from_quaternion(nalgebra::Quaternion::new(q[3], q[0], q[1], q[2])),
    )
}

/// A few points on a shape's surface, in the body's own frame: a box's corners and face
/// centres, a capsule's or cylinder's end points and two rings of six, an ellipsoid's six
/// poles and eight octant points (14 each).
pub fn surface_samples(shape: &Shape) -> Vec<[f64; 3]> {
    let along = |axis: Axis, a: f64, u: f64, v: f64| -> [f64; 3] {
        let mut p = [0.0; 3];
        let k = axis.index();
        p[k] = a;
        p[(k + 1) % 3] = u;
        p[(k + 2) % 3] = v;
        p
    };
    match *shape {
        Shape::Capsule {
            radius,
            half_length,
            axis,
        }
        | Shape::Cylinder {
            radius,
            half_length,
            axis,
        } => {
            let cap = if matches!(shape, Shape::Capsule { .. }) {
                radius
            } else {
                0.0
            };
            let mut out = vec![
                along(axis, half_length + cap, 0.0, 0.0),
                along(axis, -half_length - cap, 0.0, 0.0),
            ];
            for end in [-1.0, 1.0] {
                for k in 0..6 {
                    let t = k as f64 * std::f64::consts::PI / 3.0;
                    out.push(along(
                        axis,
                        end * half_length,
                        radius * t.cos(),
                        radius * t.sin(),
                    ));
                }
            }
            out
        }
        Shape::Box { half_extents: h } => {
            let mut out = Vec::with_capacity(14);
            for sx in [-1.0, 1.0] {
                for sy in [-1.0, 1.0] {
                    for sz in [-1.0, 1.0] {
                        out.push([sx * h[0], sy * h[1], sz * h[2]]);
                    }
                }
            }
            for k in 0..3 {
                for s in [-1.0, 1.0] {
                    let mut p = [0.0; 3];
                    p[k] = s * h[k];
                    out.push(p);
                }
            }
            out
        }
        Shape::Ellipsoid { radii: r } => {
            let mut out = Vec::with_capacity(14);
            for k in 0..3 {
                for s in [-1.0, 1.0] {
                    let mut p = [0.0; 3];
                    p[k] = s * r[k];
                    out.push(p);
                }
            }
            let c = 1.0 / 3f64.sqrt();
            for sx in [-1.0, 1.0] {
                for sy in [-1.0, 1.0] {
                    for sz in [-1.0, 1.0] {
                        out.push([sx * c * r[0], sy * c * r[1], sz * c * r[2]]);
                    }
                }
            }
            out
        }
    }
}

/// Points of a character's skin, bound to its bones.
#[derive(Clone, Debug)]
pub struct SkinPoints {
    /// Each point as seen from each of its bones: B_k⁻¹·p_ref, with the weight.
    bound: Vec<[(u16, f32, [f64; 3]); 4]>,
}

impl SkinPoints {
    /// [`surface_samples`] of every body, bound by [`influence`].
    pub fn sample(c: &Character) -> Self {
        let inverse: Vec<Isometry3<f64>> = (0..c.bodies.len())
            .map(|b| reference_pose(c, b).inverse())
            .collect();
        let mut bound = Vec::new();
        for (b, body) in c.bodies.iter().enumerate() {
            let pose = reference_pose(c, b);
            for local in surface_samples(&body.shape) {
                let world = pose * Point3::from(local);
                let (bones, weights) = influence(c, b, world.coords.into());
                bound.push(std::array::from_fn(|k| {
                    let bone = bones[k];
                    let seen = inverse[bone as usize] * world;
                    (bone, weights[k], seen.coords.into())
                }));
            }
        }
        Self { bound }
    }

    pub fn len(&self) -> usize {
        self.bound.len()
    }

    pub fn is_empty(&self) -> bool {
        self.bound.is_empty()
    }

    /// The points for bodies at `poses` ([x, y, z, qx, qy, qz, qw] per body, model order).
    pub fn posed(&self, poses: &[[f64; 7]]) -> Vec<[f64; 3]> {
        let iso: Vec<Isometry3<f64>> = poses
            .iter()
            .map(|p| {
                Isometry3::from_parts(
                    Translation3::new(p[0], p[1], p[2]),
                    UnitQuaternion::from_quaternion(nalgebra::Quaternion::new(
                        p[6], p[3], p[4], p[5],
                    )),
                )
            })
            .collect();
        self.bound
            .iter()
            .map(|b| {
                let mut out = Vector3::zeros();
                for &(bone, w, local) in b {
                    if w > 0.0 {
                        out += (iso[bone as usize] * Point3::from(local)).coords * w as f64;
                    }
                }
                out.into()
            })
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// In the reference pose the skin is where it was sampled; a point near the knee follows
    /// both the thigh and the shin.
    #[test]
    fn the_reference_pose_gives_the_sampled_points_and_weights_sum_to_one() {
        let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("characters/human3d.ron");
        let c = crate::model::load_character(&path).unwrap();
        let skin = SkinPoints::sample(&c);
        assert_eq!(skin.len(), 14 * c.bodies.len());
        let reference: Vec<[f64; 7]> = (0..c.bodies.len())
            .map(|b| {
                let q = c.bodies[b].orientation();
                let p = c.bodies[b].position;
                [p[0], p[1], p[2], q[0], q[1], q[2], q[3]]
            })
            .collect();
        let posed = skin.posed(&reference);
        let mut k = 0;
        for (b, body) in c.bodies.iter().enumerate() {
            let pose = reference_pose(&c, b);
            for local in surface_samples(&body.shape) {
                let want = pose * Point3::from(local);
                let got = Vector3::from(posed[k]);
                // The weights are f32 (as the GPU takes them): 1e-7 of a metre or so.
                assert!((got - want.coords).norm() < 1e-5);
                k += 1;
            }
        }
        for b in &skin.bound {
            let sum: f32 = b.iter().map(|x| x.1).sum();
            assert!((sum - 1.0).abs() < 1e-5);
        }
        let knee = c.joints.iter().find(|j| j.name == "l_knee").unwrap();
        let (bones, weights) = influence(&c, c.body_index("l_shin").unwrap(), knee.anchor);
        assert_eq!(bones[0] as usize, c.body_index("l_shin").unwrap());
        assert_eq!(bones[1] as usize, c.body_index("l_thigh").unwrap());
        assert!(weights[1] > 0.3, "{weights:?}");
    }
}
