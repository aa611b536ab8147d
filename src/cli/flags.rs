//! Numbers typed as flags, checked where they are parsed: finite and within a physically
//! meaningful range, with the range named in the error (`clap` prints it with the flag).

use motionlab::scene::{MAX_FRICTION, MAX_SECONDS};

/// A finite number in `[lo, hi]`, or in `(lo, hi]` when `open_low`.
fn bounded(text: &str, lo: f32, hi: f32, open_low: bool, unit: &str) -> Result<f32, String> {
    let v: f32 = text
        .trim()
        .parse()
        .map_err(|_| format!("expected a number, found {text:?}"))?;
    let low_ok = if open_low { v > lo } else { v >= lo };
    if low_ok && v <= hi {
        Ok(v)
    } else {
        let open = if open_low { "(" } else { "[" };
        Err(format!(
            "expected a value in {open}{lo}, {hi}]{unit}, found {text}"
        ))
    }
}

/// Simulated seconds: (0, 600].
pub fn seconds(text: &str) -> Result<f32, String> {
    bounded(text, 0.0, MAX_SECONDS, true, " s")
}

/// A time step: (0, 0.05] s.
pub fn time_step(text: &str) -> Result<f32, String> {
    bounded(text, 0.0, 0.05, true, " s")
}

/// A multiplier of every PD gain: [0, 100] (0 switches actuation off).
pub fn gain_scale(text: &str) -> Result<f32, String> {
    bounded(text, 0.0, 100.0, false, "")
}

/// A ground friction coefficient: [0, 10].
pub fn friction(text: &str) -> Result<f32, String> {
    bounded(text, 0.0, MAX_FRICTION, false, "")
}

/// A coefficient of restitution: [0, 1].
pub fn restitution(text: &str) -> Result<f32, String> {
    bounded(text, 0.0, 1.0, false, "")
}
