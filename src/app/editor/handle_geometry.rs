//! The geometry of the editor's viewport handles (`handles`): the selected body and its joint
//! in the live pose (the frame the limit arcs are drawn in, Borer et al. 2018, §4.3 "Joints:
//! change rotation axis and limits"), a shape's extents along its own axes, and where the
//! cursor's ray meets a handle's line, plane or sphere.

use crate::app::character::LiveSim;
use crate::model::Shape;
use bevy::prelude::*;

pub(super) fn quat(q: [f64; 4]) -> Quat {
    Quat::from_xyzw(q[0] as f32, q[1] as f32, q[2] as f32, q[3] as f32).normalize()
}

pub(super) fn vec(v: [f64; 3]) -> Vec3 {
    Vec3::new(v[0] as f32, v[1] as f32, v[2] as f32)
}

pub(super) fn dvec(v: Vec3) -> [f64; 3] {
    [v.x as f64, v.y as f64, v.z as f64].map(|x| (x * 1e5).round() / 1e5)
}

/// One degree of freedom of the selected joint in the live pose: its axis and the plane its
/// limit arc is drawn in (`u` the child's direction at zero, `v = axis × u`).
#[derive(Clone, Copy, Debug)]
pub(super) struct DofFrame {
    /// Index among the joint's degrees of freedom.
    pub k: usize,
    pub axis: Vec3,
    pub u: Vec3,
    pub v: Vec3,
    pub radius: f32,
    /// The child's current direction in the arc's plane (zero when it has none).
    pub now: Vec3,
}

impl DofFrame {
    pub fn at_angle(&self, anchor: Vec3, deg: f64) -> Vec3 {
        let t = (deg as f32).to_radians();
        anchor + (self.u * t.cos() + self.v * t.sin()) * self.radius
    }
}

/// The selected body's joint to its parent in the live pose.
#[derive(Clone, Debug)]
pub(super) struct JointFrame {
    pub index: usize,
    pub anchor: Vec3,
    /// The parent's turn since the reference pose (live axes = turn × file axes).
    pub parent_turn: Quat,
    pub dofs: Vec<DofFrame>,
}

/// The selected body in the live pose, with its joint.
#[derive(Clone, Debug)]
pub(super) struct BodyFrame {
    pub index: usize,
    /// The handles' size, m: a constant size on screen (7 % of the distance to the camera).
    pub size: f32,
    pub center: Vec3,
    pub rotation: Quat,
    pub joint: Option<JointFrame>,
}

/// `eye`: the camera's position, which sets the handles' size.
pub(super) fn body_frame(live: &LiveSim, bi: usize, eye: Vec3) -> BodyFrame {
    let c = &live.character;
    let b = &c.bodies[bi];
    let pose = live.sim.body_pose(bi);
    let center = Vec3::new(pose[0], pose[1], pose[2]);
    let rotation = Quat::from_xyzw(pose[3], pose[4], pose[5], pose[6]);
    let joint = c
        .joints
        .iter()
        .position(|j| j.child == b.name)
        .and_then(|ji| {
            let joint = &c.joints[ji];
            let pi = c.body_index(&joint.parent)?;
            let anchor = Vec3::from_array(live.sim.joint_anchor_world(ji));
            let pp = live.sim.body_pose(pi);
            let parent_now = Quat::from_xyzw(pp[3], pp[4], pp[5], pp[6]);
            let parent_turn = parent_now * quat(c.bodies[pi].orientation()).inverse();
            let child_ref = vec(b.position) - vec(joint.anchor);
            let zero_dir = parent_turn * child_ref;
            let child_now = center - anchor;
            let radius = (1.2 * child_ref.length()).clamp(0.2, 0.45);
            let mut dofs = Vec::new();
            for (d, dof) in live.sim.dofs().iter().enumerate() {
                if dof.joint != ji {
                    continue;
                }
                let k = dofs.len();
                let axis = Vec3::from_array(live.sim.dof_axis_world(d)).normalize_or_zero();
                let u = (zero_dir - axis * zero_dir.dot(axis)).normalize_or_zero();
                if axis == Vec3::ZERO || u == Vec3::ZERO {
                    continue;
                }
                let now = (child_now - axis * child_now.dot(axis)).normalize_or_zero();
                dofs.push(DofFrame {
                    k,
                    axis,
                    u,
                    v: axis.cross(u),
                    radius,
                    now,
                });
            }
            Some(JointFrame {
                index: ji,
                anchor,
                parent_turn,
                dofs,
            })
        });
    BodyFrame {
        index: bi,
        size: (0.07 * eye.distance(center)).clamp(0.05, 1.0),
        center,
        rotation,
        joint,
    }
}

/// The extent of a shape along its own axis `k` (centre to surface), m.
pub(super) fn extent(shape: &Shape, k: usize) -> f64 {
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
            // A capsule's hemispherical cap adds its radius to the length.
            let cap = if matches!(shape, Shape::Capsule { .. }) {
                radius
            } else {
                0.0
            };
            if k == axis.index() {
                half_length + cap
            } else {
                radius
            }
        }
        Shape::Box { half_extents: h } | Shape::Ellipsoid { radii: h } => h[k],
    }
}

/// The size handles a shape has: its length and one radius for capsules and cylinders, three
/// half sizes for boxes and ellipsoids.
pub(super) fn size_axes(shape: &Shape) -> Vec<usize> {
    match *shape {
        Shape::Capsule { axis, .. } | Shape::Cylinder { axis, .. } => {
            let a = axis.index();
            vec![a, (a + 1) % 3]
        }
        _ => vec![0, 1, 2],
    }
}

/// `shape` with its extent along own axis `k` set to `e` (at least 5 mm; a capsule's radius
/// and length stay positive).
pub(super) fn resized(shape: &Shape, k: usize, e: f64) -> Shape {
    let e = e.max(0.005);
    let current = extent(shape, k);
    let mut out = *shape;
    match &mut out {
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
            if k == axis.index() {
                // Keep what the cap adds (the radius for a capsule, nothing for a cylinder).
                *half_length = (e - (current - *half_length)).max(0.001);
            } else {
                *radius = e;
            }
        }
        Shape::Box { half_extents: h } | Shape::Ellipsoid { radii: h } => h[k] = e,
    }
    out
}

/// Distance in pixels from `p` to the segment a–b.
pub(super) fn to_segment(p: Vec2, a: Vec2, b: Vec2) -> f32 {
    let e = b - a;
    let t = if e.length_squared() > 1e-6 {
        ((p - a).dot(e) / e.length_squared()).clamp(0.0, 1.0)
    } else {
        0.0
    };
    (a + e * t - p).length()
}

pub(super) fn ring_points(center: Vec3, normal: Vec3, radius: f32) -> Vec<Vec3> {
    let u = normal.any_orthonormal_vector();
    let v = normal.cross(u);
    (0..=48)
        .map(|i| {
            let t = i as f32 / 48.0 * std::f32::consts::TAU;
            center + (u * t.cos() + v * t.sin()) * radius
        })
        .collect()
}

/// The point of `ray` on the line through `p` along unit `a`, as the parameter along the
/// line; `None` when the ray runs along the line.
pub(super) fn line_param(ray: Ray3d, p: Vec3, a: Vec3) -> Option<f32> {
    let d = *ray.direction;
    let w = ray.origin - p;
    let da = d.dot(a);
    let den = 1.0 - da * da;
    (den > 1e-4).then(|| (w.dot(a) - da * w.dot(d)) / den)
}

/// Where `ray` meets the plane through `c` with normal `n` (`None` when it runs along it).
pub(super) fn plane_hit(ray: Ray3d, c: Vec3, n: Vec3) -> Option<Vec3> {
    let d = *ray.direction;
    let dn = d.dot(n);
    if dn.abs() < 1e-3 {
        return None;
    }
    let t = (c - ray.origin).dot(n) / dn;
    (t > 0.0).then(|| ray.origin + d * t)
}

/// The angle (degrees) of `p` about `c` in the plane spanned by u and v.
pub(super) fn plane_angle(p: Vec3, c: Vec3, u: Vec3, v: Vec3) -> f64 {
    let w = p - c;
    (w.dot(v).atan2(w.dot(u)) as f64).to_degrees()
}

/// Where `ray` meets the sphere about `c` of radius `r`, or the sphere's point nearest the ray
/// when it misses.
pub(super) fn sphere_point(ray: Ray3d, c: Vec3, r: f32) -> Vec3 {
    let d = *ray.direction;
    let w = ray.origin - c;
    let b = w.dot(d);
    let disc = b * b - (w.length_squared() - r * r);
    let t = if disc >= 0.0 { -b - disc.sqrt() } else { -b };
    let p = ray.origin + d * t.max(0.0);
    c + (p - c).normalize_or(Vec3::Y) * r
}

/// `x` plus a multiple of 360 nearest `near`.
pub(super) fn unwrap_deg(x: f64, near: f64) -> f64 {
    x + ((near - x) / 360.0).round() * 360.0
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ray(origin: Vec3, towards: Vec3) -> Ray3d {
        Ray3d::new(origin, Dir3::new(towards - origin).unwrap())
    }

    /// A ray through a point of a line gives that point's parameter, wherever it comes from.
    #[test]
    fn a_ray_through_a_line_gives_the_point_it_passes() {
        let p = Vec3::new(0.3, 1.0, -0.2);
        let a = Vec3::new(1.0, 2.0, 0.5).normalize();
        for (s, eye) in [
            (0.25, Vec3::new(3.0, 2.0, 4.0)),
            (-0.4, Vec3::new(-2.0, 0.5, 3.0)),
        ] {
            let r = ray(eye, p + a * s);
            assert!((line_param(r, p, a).unwrap() - s).abs() < 1e-4);
        }
        // Looking along the line gives nothing.
        assert!(line_param(ray(p - a, p + a), p, a).is_none());
    }

    /// The plane angle and sphere point read back the points the rays were aimed at.
    #[test]
    fn plane_angles_and_sphere_points_read_back() {
        let c = Vec3::new(0.0, 1.0, 0.0);
        let (u, n) = (Vec3::X, Vec3::Y);
        let v = n.cross(u);
        for deg in [-150.0f64, -30.0, 0.0, 45.0, 170.0] {
            let t = (deg as f32).to_radians();
            let target = c + (u * t.cos() + v * t.sin()) * 0.3;
            let r = ray(Vec3::new(0.5, 3.0, 0.7), target);
            let hit = plane_hit(r, c, n).unwrap();
            assert!((hit - target).length() < 1e-4);
            let a = plane_angle(hit, c, u, v);
            assert!((unwrap_deg(a, deg) - deg).abs() < 0.01, "{a} vs {deg}");
            let on_sphere = c + Vec3::new(t.cos(), 0.4, t.sin()).normalize() * 0.2;
            let eye = Vec3::new(2.0, 2.5, 1.5);
            let p = sphere_point(ray(eye, on_sphere), c, 0.2);
            assert!(((p - c).length() - 0.2).abs() < 1e-4);
            // On the side facing the eye the ray's first hit is the point aimed at.
            if (on_sphere - c).dot(eye - on_sphere) > 0.0 {
                assert!((p - on_sphere).length() < 1e-4, "{p} vs {on_sphere}");
            }
        }
        assert_eq!(unwrap_deg(350.0, 0.0), -10.0);
        assert_eq!(unwrap_deg(-170.0, 120.0), 190.0);
    }

    /// Resizing keeps every shape valid: capsule length is centre to tip, its radius the side.
    #[test]
    fn resizing_sets_the_extent_dragged() {
        let cap = Shape::Capsule {
            radius: 0.05,
            half_length: 0.1,
            axis: crate::model::Axis::Y,
        };
        assert!((extent(&cap, 1) - 0.15).abs() < 1e-12);
        let longer = resized(&cap, 1, 0.2);
        assert!((extent(&longer, 1) - 0.2).abs() < 1e-12);
        assert!((extent(&resized(&cap, 2, 0.07), 2) - 0.07).abs() < 1e-12);
        assert_eq!(size_axes(&cap), vec![1, 2]);
        let cyl = Shape::Cylinder {
            radius: 0.05,
            half_length: 0.1,
            axis: crate::model::Axis::X,
        };
        assert!((extent(&cyl, 0) - 0.1).abs() < 1e-12);
        assert!((extent(&resized(&cyl, 0, 0.3), 0) - 0.3).abs() < 1e-12);
        assert!((extent(&resized(&cyl, 1, 0.02), 2) - 0.02).abs() < 1e-12);
        let b = Shape::Box {
            half_extents: [0.1, 0.02, 0.05],
        };
        assert!((extent(&resized(&b, 0, -1.0), 0) - 0.005).abs() < 1e-12);
        assert_eq!(size_axes(&b), vec![0, 1, 2]);
    }
}
