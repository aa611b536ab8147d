//! The supernatural assist of the Pareto jumps (Agrawal 2015,
//! thesis §4.3.3): at take-off gravity jumps to g₀, returns linearly to the natural −9.81 m/s²
//! over T seconds and stays there. It equals an external upward force on the centre of mass,
//! F_ext(t) = m·(g(t) + 9.81) (positive g₀ makes the net pull point upwards), and its effort is
//! e_se = ∫ ‖F_ext‖² dt over the time it acts. The thesis sums ‖F_ext‖² over time steps; we
//! integrate (multiply by dt) so the number does not depend on the time step, as for e_je.

use crate::model::rotation::GRAVITY;
use serde::{Deserialize, Serialize};

/// Natural vertical gravity, m/s².
pub const NATURAL_GRAVITY: f32 = -GRAVITY;

/// The two assist parameters (g₀, T).
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct Assist {
    /// Vertical gravity at take-off, m/s² (−9.81: none; positive: the pull points upwards).
    pub g0: f32,
    /// Seconds over which gravity returns linearly to −9.81 (0: no assist).
    pub duration: f32,
}

impl Assist {
    pub const NONE: Assist = Assist {
        g0: NATURAL_GRAVITY,
        duration: 0.0,
    };

    /// Whether this assist never changes gravity (a natural jump).
    pub fn is_natural(&self) -> bool {
        self.g0 == NATURAL_GRAVITY || self.duration <= 0.0
    }

    /// Vertical gravity `since` seconds after take-off (natural before take-off, `since < 0`).
    pub fn gravity_at(&self, since: f32) -> f32 {
        if self.is_natural() || since.is_nan() || since < 0.0 || since >= self.duration {
            return NATURAL_GRAVITY;
        }
        self.g0 + (NATURAL_GRAVITY - self.g0) * (since / self.duration)
    }

    /// The equivalent external upward force on a body of `mass` kg under gravity `g`, N.
    pub fn external_force(mass: f32, g: f32) -> f32 {
        mass * (g - NATURAL_GRAVITY)
    }
}

/// Accumulates e_se = Σ ‖F_ext‖² dt over a rollout.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct AssistEffort {
    pub total: f64,
}

impl AssistEffort {
    /// One step of `dt` seconds under gravity `g` for a character of `mass` kg.
    pub fn add(&mut self, mass: f32, g: f32, dt: f32) {
        let f = Assist::external_force(mass, g) as f64;
        self.total += f * f * dt as f64;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn gravity_profile_jumps_to_g0_and_returns_linearly() {
        let a = Assist {
            g0: -4.0,
            duration: 0.5,
        };
        assert_eq!(a.gravity_at(-0.1), NATURAL_GRAVITY);
        assert_eq!(a.gravity_at(0.0), -4.0);
        let mid = a.gravity_at(0.25);
        assert!((mid - (-4.0 + NATURAL_GRAVITY) / 2.0).abs() < 1e-6, "{mid}");
        assert_eq!(a.gravity_at(0.5), NATURAL_GRAVITY);
        assert_eq!(a.gravity_at(3.0), NATURAL_GRAVITY);
    }

    #[test]
    fn natural_jumps_have_zero_assist_effort() {
        for a in [
            Assist::NONE,
            Assist {
                g0: 2.0,
                duration: 0.0,
            },
            Assist {
                g0: NATURAL_GRAVITY,
                duration: 0.7,
            },
        ] {
            let mut e = AssistEffort::default();
            for k in 0..240 {
                e.add(80.0, a.gravity_at(k as f32 / 120.0), 1.0 / 120.0);
            }
            assert_eq!(e.total, 0.0, "{a:?}");
        }
    }

    #[test]
    fn assist_effort_integrates_the_squared_force() {
        // g0 = +0.19 (net upward pull 10 m/s² stronger than gravity) returning over 1 s: F(t) =
        // 80·10·(1 − t), so ∫ F² dt = 640000 / 3.
        let a = Assist {
            g0: NATURAL_GRAVITY + 10.0,
            duration: 1.0,
        };
        let mut e = AssistEffort::default();
        let n = 12_000;
        for k in 0..n {
            e.add(
                80.0,
                a.gravity_at((k as f32 + 0.5) / n as f32),
                1.0 / n as f32,
            );
        }
        let exact = 640_000.0 / 3.0;
        assert!(
            (e.total - exact).abs() / exact < 1e-3,
            "{} vs {exact}",
            e.total
        );
    }
}
