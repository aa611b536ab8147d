//! Principal moments of inertia of the solid shapes of [`super::Shape`], for a given mass.
//! Standard closed forms: box m/3·(b²+c²); ellipsoid m/5·(b²+c²); capsule as a cylinder plus two
//! hemispherical caps sharing the mass in proportion to volume.

use super::Shape;
use std::f32::consts::PI;

pub fn principal_inertia(shape: &Shape, mass: f32) -> [f32; 3] {
    match *shape {
        Shape::Box {
            half_extents: [a, b, c],
        } => {
            let k = mass / 3.0;
            [
                k * (b * b + c * c),
                k * (a * a + c * c),
                k * (a * a + b * b),
            ]
        }
        Shape::Ellipsoid { radii: [a, b, c] } => {
            let k = mass / 5.0;
            [
                k * (b * b + c * c),
                k * (a * a + c * c),
                k * (a * a + b * b),
            ]
        }
        Shape::Capsule {
            radius: r,
            half_length: h,
            axis,
        } => {
            let len = 2.0 * h;
            let v_cyl = PI * r * r * len;
            let v_caps = 4.0 / 3.0 * PI * r * r * r;
            let m_cyl = mass * v_cyl / (v_cyl + v_caps);
            let m_caps = mass - m_cyl;
            let along = m_cyl * r * r / 2.0 + m_caps * 2.0 * r * r / 5.0;
            let across = m_cyl * (len * len / 12.0 + r * r / 4.0)
                + m_caps * (2.0 * r * r / 5.0 + len * len / 4.0 + 3.0 * len * r / 8.0);
            let mut i = [across; 3];
            i[axis.index()] = along;
            i
        }
    }
}
