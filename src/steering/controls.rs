//! The player's controls as the steering [`Stick`]: keys or gamepad, relative to the camera, as
//! in Holden's Motion-Matching controller (the stick's "up" walks away from the camera, "right"
//! to the right of the screen).
//!
//! One function, [`stick_intent`], maps what is held this frame to the stick, so the mapping is
//! the same for the app and for tests. Directions on the ground are yaws in the
//! [`crate::model::planar::PlanarMotion`] convention: 0 faces east (+x), π/2 north (−z); a yaw
//! increases counter-clockwise seen from above, so "right" of a heading is heading − π/2.

use super::intent::Stick;

/// Left-stick deflections below this are the stick at rest (the keys then steer).
pub const MOVE_DEAD_ZONE: f64 = 0.15;
/// Right-stick deflections below this leave the facing to the travel direction.
pub const FACING_DEAD_ZONE: f64 = 0.5;
/// The right trigger runs when pulled past this.
pub const RUN_TRIGGER: f64 = 0.5;
/// Q/E turn the facing at this rate (rad/s).
pub const TURN_RATE: f64 = 1.5;

/// The keyboard's steering keys held this frame (WASD or the arrows; Q/E; Shift).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct HeldKeys {
    /// W or ↑: away from the camera.
    pub forward: bool,
    /// S or ↓: towards the camera.
    pub back: bool,
    /// A or ←: to the left of the screen.
    pub left: bool,
    /// D or →: to the right of the screen.
    pub right: bool,
    /// Q: turn the facing counter-clockwise (to the left).
    pub turn_left: bool,
    /// E: turn the facing clockwise (to the right).
    pub turn_right: bool,
    /// Shift: run.
    pub run: bool,
}

/// One gamepad's state this frame. Stick axes are (right, up) in [−1, 1].
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct PadState {
    /// Direction and speed of travel.
    pub left_stick: (f64, f64),
    /// The facing.
    pub right_stick: (f64, f64),
    /// The right trigger's pull in [0, 1] (runs).
    pub right_trigger: f64,
    /// The east face button (B on an Xbox pad; runs).
    pub run_button: bool,
}

/// Everything [`stick_intent`] reads.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Controls {
    pub keys: HeldKeys,
    pub pads: Vec<PadState>,
    /// A text field has the keyboard: keys do not steer (gamepads still do).
    pub typing: bool,
}

/// Turns the screen-relative (right, up) into the world's (east, north) for a camera looking
/// along `camera_heading`.
fn to_world(camera_heading: f64, (right, up): (f64, f64)) -> (f64, f64) {
    let (s, c) = camera_heading.sin_cos();
    // Forward (c, s); right of it (s, −c).
    (right * s + up * c, -right * c + up * s)
}

/// The stick of this frame. `camera_heading` is the yaw of the camera's view direction on the
/// ground; `facing` the facing asked for so far (Q/E turn it); `dt` the frame's time (s).
///
/// Keys give unit directions (diagonals normalised); a gamepad's left stick outside
/// [`MOVE_DEAD_ZONE`] replaces them and keeps its deflection (speed). Both are relative to the
/// camera, and so is the right stick's facing. Shift, the right trigger or the east button run.
pub fn stick_intent(camera_heading: f64, controls: &Controls, facing: f64, dt: f64) -> Stick {
    let keys = if controls.typing {
        HeldKeys::default()
    } else {
        controls.keys
    };
    let axis = |plus: bool, minus: bool| (plus as i8 - minus as i8) as f64;
    let mut screen = (axis(keys.right, keys.left), axis(keys.forward, keys.back));
    let len = (screen.0 * screen.0 + screen.1 * screen.1).sqrt();
    if len > 1.0 {
        screen = (screen.0 / len, screen.1 / len);
    }
    let mut run = keys.run;
    let mut facing_stick = None;
    for pad in &controls.pads {
        let (x, y) = pad.left_stick;
        let m = (x * x + y * y).sqrt();
        if m > MOVE_DEAD_ZONE {
            screen = if m > 1.0 { (x / m, y / m) } else { (x, y) };
        }
        let (x, y) = pad.right_stick;
        if (x * x + y * y).sqrt() > FACING_DEAD_ZONE {
            facing_stick = Some(to_world(camera_heading, (x, y)));
        }
        run |= pad.run_button || pad.right_trigger > RUN_TRIGGER;
    }
    let turn = axis(keys.turn_left, keys.turn_right);
    let facing = if turn != 0.0 {
        let a = facing + turn * TURN_RATE * dt;
        Some((a.cos(), a.sin()))
    } else {
        facing_stick
    };
    Stick {
        movement: to_world(camera_heading, screen),
        facing,
        run,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::f64::consts::{FRAC_PI_2, PI};

    /// The camera headings tried: looking east, north, west and south-west-ish (an odd angle).
    const CAMERAS: [f64; 4] = [0.0, FRAC_PI_2, PI, -2.3];

    fn yaw((x, y): (f64, f64)) -> f64 {
        y.atan2(x)
    }

    fn same_angle(a: f64, b: f64) -> bool {
        let d = (a - b).rem_euclid(2.0 * PI);
        d.min(2.0 * PI - d) < 1e-9
    }

    fn keys(f: impl Fn(&mut HeldKeys)) -> Controls {
        let mut k = HeldKeys::default();
        f(&mut k);
        Controls {
            keys: k,
            ..Default::default()
        }
    }

    #[test]
    fn keys_walk_relative_to_the_camera() {
        for cam in CAMERAS {
            let cases: [(HeldKeys, f64); 4] = [
                (
                    HeldKeys {
                        forward: true,
                        ..Default::default()
                    },
                    cam,
                ),
                (
                    HeldKeys {
                        back: true,
                        ..Default::default()
                    },
                    cam + PI,
                ),
                // Right of the screen is clockwise of the view direction seen from above.
                (
                    HeldKeys {
                        right: true,
                        ..Default::default()
                    },
                    cam - FRAC_PI_2,
                ),
                (
                    HeldKeys {
                        left: true,
                        ..Default::default()
                    },
                    cam + FRAC_PI_2,
                ),
            ];
            for (k, want) in cases {
                let c = Controls {
                    keys: k,
                    ..Default::default()
                };
                let s = stick_intent(cam, &c, 0.0, 1.0 / 60.0);
                let (x, y) = s.movement;
                assert!(((x * x + y * y).sqrt() - 1.0).abs() < 1e-12, "{k:?}");
                assert!(
                    same_angle(yaw(s.movement), want),
                    "camera {cam}, {k:?}: {:?}",
                    s.movement
                );
                assert!(!s.run && s.facing.is_none());
            }
        }
    }

    #[test]
    fn diagonals_are_unit_and_opposite_keys_cancel() {
        for cam in CAMERAS {
            let s = stick_intent(
                cam,
                &keys(|k| (k.forward, k.right) = (true, true)),
                0.0,
                0.1,
            );
            let (x, y) = s.movement;
            assert!(((x * x + y * y).sqrt() - 1.0).abs() < 1e-12);
            assert!(same_angle(yaw(s.movement), cam - PI / 4.0));
            let s = stick_intent(cam, &keys(|k| (k.left, k.right) = (true, true)), 0.0, 0.1);
            assert_eq!(s.movement, (0.0, 0.0));
        }
    }

    #[test]
    fn typing_holds_the_keys_but_not_the_pads() {
        let mut c = keys(|k| (k.forward, k.run) = (true, true));
        c.typing = true;
        let s = stick_intent(0.3, &c, 0.0, 0.1);
        assert_eq!(s, Stick::default());
        c.pads.push(PadState {
            left_stick: (0.0, 0.8),
            ..Default::default()
        });
        let s = stick_intent(0.3, &c, 0.0, 0.1);
        assert!(same_angle(yaw(s.movement), 0.3));
    }

    #[test]
    fn the_left_stick_steers_relative_to_the_camera_with_its_deflection() {
        for cam in CAMERAS {
            for (stick, want) in [
                ((0.0, 0.6), cam),
                ((0.7, 0.0), cam - FRAC_PI_2),
                ((-0.5, 0.0), cam + FRAC_PI_2),
                ((0.0, -1.0), cam + PI),
            ] {
                let c = Controls {
                    pads: vec![PadState {
                        left_stick: stick,
                        ..Default::default()
                    }],
                    ..Default::default()
                };
                let s = stick_intent(cam, &c, 0.0, 0.1);
                let m = (s.movement.0.powi(2) + s.movement.1.powi(2)).sqrt();
                let want_m = (stick.0 * stick.0 + stick.1 * stick.1).sqrt();
                assert!(
                    (m - want_m).abs() < 1e-12,
                    "speed kept: {m} against {want_m}"
                );
                assert!(
                    same_angle(yaw(s.movement), want),
                    "camera {cam}, stick {stick:?}"
                );
            }
            // Past full deflection (a square gate's corner) the length is capped at 1.
            let c = Controls {
                pads: vec![PadState {
                    left_stick: (1.0, 1.0),
                    ..Default::default()
                }],
                ..Default::default()
            };
            let s = stick_intent(cam, &c, 0.0, 0.1);
            assert!(((s.movement.0.powi(2) + s.movement.1.powi(2)).sqrt() - 1.0).abs() < 1e-12);
        }
    }

    #[test]
    fn dead_zones_leave_the_keys_and_the_facing_alone() {
        let mut c = keys(|k| k.right = true);
        c.pads.push(PadState {
            left_stick: (0.0, 0.9 * MOVE_DEAD_ZONE),
            right_stick: (0.9 * FACING_DEAD_ZONE, 0.0),
            right_trigger: 0.9 * RUN_TRIGGER,
            run_button: false,
        });
        let s = stick_intent(FRAC_PI_2, &c, 0.0, 0.1);
        // Camera north: D walks east.
        assert!(same_angle(yaw(s.movement), 0.0), "{:?}", s.movement);
        assert_eq!(s.facing, None);
        assert!(!s.run);
        // Past the dead zone the stick wins over the keys.
        c.pads[0].left_stick = (0.0, 1.1 * MOVE_DEAD_ZONE);
        let s = stick_intent(FRAC_PI_2, &c, 0.0, 0.1);
        assert!(same_angle(yaw(s.movement), FRAC_PI_2), "{:?}", s.movement);
    }

    #[test]
    fn the_right_stick_faces_relative_to_the_camera() {
        for cam in CAMERAS {
            for (stick, want) in [((0.0, 1.0), cam), ((1.0, 0.0), cam - FRAC_PI_2)] {
                let c = Controls {
                    pads: vec![PadState {
                        right_stick: stick,
                        ..Default::default()
                    }],
                    ..Default::default()
                };
                let f = stick_intent(cam, &c, 0.0, 0.1).facing.expect("a facing");
                assert!(
                    same_angle(yaw(f), want),
                    "camera {cam}, stick {stick:?}: {f:?}"
                );
            }
        }
    }

    #[test]
    fn q_turns_left_and_e_right_at_the_turn_rate() {
        for cam in CAMERAS {
            let now = 0.4;
            let dt = 0.05;
            let q = stick_intent(cam, &keys(|k| k.turn_left = true), now, dt);
            assert!(same_angle(yaw(q.facing.unwrap()), now + TURN_RATE * dt));
            let e = stick_intent(cam, &keys(|k| k.turn_right = true), now, dt);
            assert!(same_angle(yaw(e.facing.unwrap()), now - TURN_RATE * dt));
            let both = stick_intent(
                cam,
                &keys(|k| (k.turn_left, k.turn_right) = (true, true)),
                now,
                dt,
            );
            assert_eq!(both.facing, None);
        }
    }

    #[test]
    fn shift_the_trigger_or_the_east_button_run() {
        let run = |c: &Controls| stick_intent(1.0, c, 0.0, 0.1).run;
        assert!(run(&keys(|k| k.run = true)));
        assert!(!run(&keys(|_| ())));
        for pad in [
            PadState {
                right_trigger: 1.0,
                ..Default::default()
            },
            PadState {
                run_button: true,
                ..Default::default()
            },
        ] {
            let c = Controls {
                pads: vec![pad],
                ..Default::default()
            };
            assert!(run(&c), "{pad:?}");
        }
    }
}
