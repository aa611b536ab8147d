//! Swing-foot clearance: how high a foot in the air keeps its sole at each frame.
//!
//! The gait NLP's foot is a point (Wampler 2012, thesis §3.2, Eq. 3.5 holds only the feet on the
//! ground), so an optimal gait swings its feet as low as the rows let it: a straight leg, the
//! sole skimming the ground. A simulated body with box feet tracking such a clip scuffs its
//! toes at the least error. Trajectory optimization for legged robots asks for a swing height
//! instead (a floor under the swinging foot that rises from lift-off to a peak mid-swing and
//! falls to touch-down); here the floor is a half sine over the foot's time in the air, on
//! every corner of its sole.

use super::{Closure, GaitSpec};

impl GaitSpec {
    /// The least height (m) of foot `foot`'s sole corners at `frame`: 0 on the ground, without
    /// [`GaitSpec::swing_clearance`], or when the frame's time in the air has no end in the
    /// clip; otherwise `swing_clearance · sin(π a / (a + b))`, where the foot left the ground
    /// `a` frames before and touches it `b` frames after (counted around the cycle of a cyclic
    /// gait).
    pub fn swing_floor(&self, frame: usize, foot: usize) -> f64 {
        let n = self.contact.len();
        if self.swing_clearance <= 0.0 || frame >= n || self.contact[frame][foot] {
            return 0.0;
        }
        let cyclic = !matches!(self.closure, Closure::Open(_));
        let frames_to_ground = |dir: isize| -> Option<usize> {
            let mut j = frame as isize;
            for d in 1..n {
                j += dir;
                if !(0..n as isize).contains(&j) {
                    if !cyclic {
                        return None;
                    }
                    j = j.rem_euclid(n as isize);
                }
                if self.contact[j as usize][foot] {
                    return Some(d);
                }
            }
            None
        };
        match (frames_to_ground(-1), frames_to_ground(1)) {
            (Some(a), Some(b)) => {
                self.swing_clearance * (std::f64::consts::PI * a as f64 / (a + b) as f64).sin()
            }
            _ => 0.0,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The floor is zero on the ground, rises to the clearance half way through the time in
    /// the air, and wraps around a cycle's seam.
    #[test]
    fn the_swing_floor_is_a_half_sine_over_the_time_in_the_air() {
        let shin = super::super::FootTiming {
            foot: "shin".into(),
            start: 0.0,
            duration: 0.5,
        };
        let mut spec = GaitSpec::new(
            crate::spacetime::tests::creature("monoped"),
            0.5,
            0.5,
            &[shin],
        )
        .unwrap();
        let n = spec.contact.len();
        // The foot down over the first four frames, then in the air to the end.
        spec.contact = (0..n).map(|i| vec![i < 4]).collect();
        assert_eq!(spec.swing_floor(5, 0), 0.0, "no clearance asked");
        spec.swing_clearance = 0.05;
        assert_eq!(spec.swing_floor(2, 0), 0.0, "on the ground");
        let air = n - 4;
        // Frame 4 left the ground 1 frame ago and touches it (frame 0 of the next cycle)
        // air frames later.
        let first = spec.swing_floor(4, 0);
        let expected = 0.05 * (std::f64::consts::PI / (air + 1) as f64).sin();
        assert!((first - expected).abs() < 1e-12, "{first} {expected}");
        let peak = (4..n).map(|i| spec.swing_floor(i, 0)).fold(0.0, f64::max);
        assert!(peak > 0.049 && peak <= 0.05, "{peak}");
        // Symmetric about the middle of the time in the air.
        assert!((spec.swing_floor(4, 0) - spec.swing_floor(n - 1, 0)).abs() < 1e-12);
    }
}
