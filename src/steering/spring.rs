//! Critically damped springs, solved exactly over a time step (after Holden, "Spring-It-On: The
//! Game Developer's Spring-Roll-Call", 2021, and his Motion-Matching `spring.h`): what smooths the
//! stick's intent, predicts the desired trajectory, and fades a transition's offsets
//! (inertialization). A spring's half-life is the time it takes to close half the gap.

/// The damping of a critically damped spring with half-life `halflife` (s): 4 ln 2 / h.
pub fn damping(halflife: f64) -> f64 {
    4.0 * std::f64::consts::LN_2 / halflife.max(1e-6)
}

/// Moves `x` (with velocity `v`) towards `goal` for `dt` seconds; exact for any dt.
pub fn towards(x: &mut f64, v: &mut f64, goal: f64, halflife: f64, dt: f64) {
    let y = damping(halflife) / 2.0;
    let j0 = *x - goal;
    let j1 = *v + j0 * y;
    let e = (-y * dt).exp();
    *x = e * (j0 + j1 * dt) + goal;
    *v = e * (*v - j1 * y * dt);
}

/// Lets an offset `x` (velocity `v`) decay to zero for `dt` seconds: `towards` with goal 0.
pub fn decay(x: &mut f64, v: &mut f64, halflife: f64, dt: f64) {
    towards(x, v, 0.0, halflife, dt);
}

/// A position whose velocity follows a goal velocity by a spring: the position, velocity and
/// acceleration after `dt` (Holden's `spring_character_update`), exact for any dt.
pub fn follow_velocity(x: &mut f64, v: &mut f64, a: &mut f64, v_goal: f64, halflife: f64, dt: f64) {
    let y = damping(halflife) / 2.0;
    let j0 = *v - v_goal;
    let j1 = *a + j0 * y;
    let e = (-y * dt).exp();
    *x = e * (((-j1) / (y * y)) + ((-j0 - j1 * dt) / y))
        + (j1 / (y * y))
        + j0 / y
        + v_goal * dt
        + *x;
    *v = e * (j0 + j1 * dt) + v_goal;
    *a = e * (*a - j1 * y * dt);
}

pub use crate::model::planar::wrap_angle;

#[cfg(test)]
mod tests {
    use super::*;

    /// One step equals many small ones, a decayed offset tends to zero, and a position following
    /// a goal velocity reaches that velocity.
    #[test]
    fn springs_are_exact_over_any_step() {
        let (mut x, mut v) = (1.0, 0.0);
        towards(&mut x, &mut v, 0.0, 0.2, 0.5);
        let (mut y, mut w) = (1.0, 0.0);
        for _ in 0..500 {
            towards(&mut y, &mut w, 0.0, 0.2, 0.001);
        }
        assert!((x - y).abs() < 1e-12 && (v - w).abs() < 1e-12);
        let (mut o, mut ov) = (0.3, -2.0);
        decay(&mut o, &mut ov, 0.1, 2.0);
        assert!(o.abs() < 1e-6);
        // Following a goal velocity: the velocity converges to it, the position moves on.
        let (mut p, mut pv, mut pa) = (0.0, 0.0, 0.0);
        follow_velocity(&mut p, &mut pv, &mut pa, 1.5, 0.2, 3.0);
        assert!((pv - 1.5).abs() < 1e-6 && p > 3.0 && p < 4.5);
        let (mut q, mut qv, mut qa) = (0.0, 0.0, 0.0);
        for _ in 0..3000 {
            follow_velocity(&mut q, &mut qv, &mut qa, 1.5, 0.2, 0.001);
        }
        assert!((p - q).abs() < 1e-9, "{p} vs {q}");
        assert!((wrap_angle(3.5) - (3.5 - std::f64::consts::TAU)).abs() < 1e-12);
        assert_eq!(wrap_angle(-std::f64::consts::PI), std::f64::consts::PI);
    }
}
