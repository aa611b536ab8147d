//! Principal moments of inertia of the solid shapes of [`super::Shape`], for a given mass.
//! Standard closed forms: box m/3·(b²+c²); ellipsoid m/5·(b²+c²); cylinder m·r²/2 along its axis
//! and m·(3r² + l²)/12 across it; capsule as a cylinder plus two
//! hemispherical caps sharing the mass in proportion to volume.

use super::Shape;
use num_traits::Float;

/// Generic over the precision so that the simulation (f32) and the solvers (f64) each evaluate
/// the same formulas in their own arithmetic.
pub fn principal_inertia<F: Float>(shape: &Shape<F>, mass: F) -> [F; 3] {
    let lit = |x: f64| F::from(x).unwrap();
    #[allow(non_snake_case)]
    let PI = lit(std::f64::consts::PI);
    match *shape {
        Shape::Box {
            half_extents: [a, b, c],
        } => {
            let k = mass / lit(3.0);
            [
                k * (b * b + c * c),
                k * (a * a + c * c),
                k * (a * a + b * b),
            ]
        }
        Shape::Ellipsoid { radii: [a, b, c] } => {
            let k = mass / lit(5.0);
            [
                k * (b * b + c * c),
                k * (a * a + c * c),
                k * (a * a + b * b),
            ]
        }
        Shape::Cylinder {
            radius: r,
            half_length: h,
            axis,
        } => {
            // Solid cylinder: m·r²/2 along the axis, m·(3r² + l²)/12 across it.
            let len = lit(2.0) * h;
            let mut i = [mass * (lit(3.0) * r * r + len * len) / lit(12.0); 3];
            i[axis.index()] = mass * r * r / lit(2.0);
            i
        }
        Shape::Capsule {
            radius: r,
            half_length: h,
            axis,
        } => {
            let len = lit(2.0) * h;
            let v_cyl = PI * r * r * len;
            let v_caps = lit(4.0) / lit(3.0) * PI * r * r * r;
            let m_cyl = mass * v_cyl / (v_cyl + v_caps);
            let m_caps = mass - m_cyl;
            let along = m_cyl * r * r / lit(2.0) + m_caps * lit(2.0) * r * r / lit(5.0);
            let across = m_cyl * (len * len / lit(12.0) + r * r / lit(4.0))
                + m_caps
                    * (lit(2.0) * r * r / lit(5.0)
                        + len * len / lit(4.0)
                        + lit(3.0) * len * r / lit(8.0));
            let mut i = [across; 3];
            i[axis.index()] = along;
            i
        }
    }
}
