//! Bevy's keyboard and gamepads read into the device-neutral controls of
//! [`crate::steering::controls`], which maps them to the stick.

pub use crate::steering::controls::{Controls, HeldKeys, PadState};
use bevy::prelude::*;

/// The steering keys held: WASD or the arrows, Q/E, either Shift.
pub fn held_keys(keys: &ButtonInput<KeyCode>) -> HeldKeys {
    let any = |k: &[KeyCode]| keys.any_pressed(k.iter().copied());
    HeldKeys {
        forward: any(&[KeyCode::KeyW, KeyCode::ArrowUp]),
        back: any(&[KeyCode::KeyS, KeyCode::ArrowDown]),
        left: any(&[KeyCode::KeyA, KeyCode::ArrowLeft]),
        right: any(&[KeyCode::KeyD, KeyCode::ArrowRight]),
        turn_left: keys.pressed(KeyCode::KeyQ),
        turn_right: keys.pressed(KeyCode::KeyE),
        run: any(&[KeyCode::ShiftLeft, KeyCode::ShiftRight]),
    }
}

/// A gamepad's sticks, right trigger and east button.
pub fn pad_state(pad: &Gamepad) -> PadState {
    let v = |s: Vec2| (s.x as f64, s.y as f64);
    PadState {
        left_stick: v(pad.left_stick()),
        right_stick: v(pad.right_stick()),
        right_trigger: pad.get(GamepadButton::RightTrigger2).unwrap_or(0.0) as f64,
        run_button: pad.pressed(GamepadButton::East),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::steering::controls::stick_intent;
    use std::f64::consts::{FRAC_PI_2, PI};

    fn held(codes: &[KeyCode]) -> HeldKeys {
        let mut keys = ButtonInput::<KeyCode>::default();
        for &k in codes {
            keys.press(k);
        }
        held_keys(&keys)
    }

    /// WASD and the arrows walk the same ways at four camera headings: W away from the camera,
    /// S towards it, D to the right of the screen (clockwise of the view), A to the left.
    #[test]
    fn wasd_and_arrows_walk_relative_to_the_camera() {
        for cam in [0.0, FRAC_PI_2, PI, -2.3] {
            for (codes, want) in [
                ([KeyCode::KeyW, KeyCode::ArrowUp], cam),
                ([KeyCode::KeyS, KeyCode::ArrowDown], cam + PI),
                ([KeyCode::KeyD, KeyCode::ArrowRight], cam - FRAC_PI_2),
                ([KeyCode::KeyA, KeyCode::ArrowLeft], cam + FRAC_PI_2),
            ] {
                for code in codes {
                    let c = Controls {
                        keys: held(&[code]),
                        ..Default::default()
                    };
                    let (x, y) = stick_intent(cam, &c, 0.0, 0.1).movement;
                    let d = (y.atan2(x) - want).rem_euclid(2.0 * PI);
                    assert!(
                        d.min(2.0 * PI - d) < 1e-9,
                        "camera {cam}: {code:?} walks {x}, {y}"
                    );
                }
            }
        }
    }

    #[test]
    fn q_e_and_shift_are_read() {
        assert!(held(&[KeyCode::KeyQ]).turn_left);
        assert!(held(&[KeyCode::KeyE]).turn_right);
        assert!(held(&[KeyCode::ShiftLeft]).run && held(&[KeyCode::ShiftRight]).run);
        assert_eq!(held(&[KeyCode::KeyX]), HeldKeys::default());
    }
}
