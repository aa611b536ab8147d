//! Numbers typed as flags, checked where they are parsed: finite and within a physically
//! meaningful range, with the range named in the error (`clap` prints it with the flag).

use motionlab::scene::{MAX_FRICTION, MAX_SECONDS};

/// A finite number in `[lo, hi]`, or in `(lo, hi]` when `open_low`.
fn bounded(text: &str, lo: f64, hi: f64, open_low: bool, unit: &str) -> Result<f64, String> {
    let v: f64 = text
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

/// [`bounded`], for the simulation's f32 settings.
fn bounded32(text: &str, lo: f64, hi: f64, open_low: bool, unit: &str) -> Result<f32, String> {
    bounded(text, lo, hi, open_low, unit).map(|v| v as f32)
}

/// Simulated seconds: (0, 600].
pub fn seconds(text: &str) -> Result<f32, String> {
    bounded32(text, 0.0, MAX_SECONDS as f64, true, " s")
}

/// A time step: (0, 0.05] s.
pub fn time_step(text: &str) -> Result<f32, String> {
    bounded32(text, 0.0, 0.05, true, " s")
}

/// A multiplier of every PD gain: [0, 100] (0 switches actuation off).
pub fn gain_scale(text: &str) -> Result<f32, String> {
    bounded32(text, 0.0, 100.0, false, "")
}

/// A ground friction coefficient: [0, 10].
pub fn friction(text: &str) -> Result<f32, String> {
    bounded32(text, 0.0, MAX_FRICTION as f64, false, "")
}

/// A coefficient of restitution: [0, 1].
pub fn restitution(text: &str) -> Result<f32, String> {
    bounded32(text, 0.0, 1.0, false, "")
}

/// A whole number in `[lo, hi]`.
fn count(text: &str, lo: u64, hi: u64) -> Result<u64, String> {
    let v: u64 = text
        .trim()
        .parse()
        .map_err(|_| format!("expected a whole number, found {text:?}"))?;
    if (lo..=hi).contains(&v) {
        Ok(v)
    } else {
        Err(format!(
            "expected a whole number in [{lo}, {hi}], found {text}"
        ))
    }
}

/// Optimizer generations: [1, 100000].
pub fn generations(text: &str) -> Result<u64, String> {
    count(text, 1, 100_000)
}

/// Gait-discovery generations: [1, 10000] (each one is hours of solves for the large creatures).
pub fn discovery_generations(text: &str) -> Result<usize, String> {
    count(text, 1, 10_000).map(|v| v as usize)
}

/// IPOPT iterations (a solve's or a stage's): [1, 100000].
pub fn iterations(text: &str) -> Result<usize, String> {
    count(text, 1, 100_000).map(|v| v as usize)
}

/// L-BFGS iterations before the exact Hessian: [0, 100000] (0: the exact Hessian from the start).
pub fn lbfgs_iterations(text: &str) -> Result<usize, String> {
    count(text, 0, 100_000).map(|v| v as usize)
}

/// Worker threads or processes: [0, 256] (0: one per core).
pub fn threads(text: &str) -> Result<usize, String> {
    count(text, 0, 256).map(|v| v as usize)
}

/// Starts of a multi-start gait solve: [1, 256].
pub fn starts(text: &str) -> Result<usize, String> {
    count(text, 1, 256).map(|v| v as usize)
}

/// Diverse variants searched at once: [1, 64].
pub fn variants(text: &str) -> Result<usize, String> {
    count(text, 1, 64).map(|v| v as usize)
}

/// Samples of a tracking search kept or stored per window, or its generations: [1, 100000].
pub fn positive_count(text: &str) -> Result<usize, String> {
    count(text, 1, 100_000).map(|v| v as usize)
}

/// A CMA-ES population: [2, 1000].
pub fn population(text: &str) -> Result<usize, String> {
    count(text, 2, 1_000).map(|v| v as usize)
}

/// Generations without progress before a search stops: [0, 100000] (0: never).
pub fn stall(text: &str) -> Result<u64, String> {
    count(text, 0, 100_000)
}

/// IPOPT's print level: [0, 12].
pub fn print_level(text: &str) -> Result<i32, String> {
    count(text, 0, 12).map(|v| v as i32)
}

/// A motion of an exploration result: [0, 64] (0 is the input).
pub fn variant_index(text: &str) -> Result<usize, String> {
    count(text, 0, 64).map(|v| v as usize)
}

/// A gait's forward speed: [-20, 20] m/s.
pub fn speed(text: &str) -> Result<f64, String> {
    bounded(text, -20.0, 20.0, false, " m/s")
}

/// A turn rate: [−720, 720] °/s.
pub fn turn_rate(text: &str) -> Result<f64, String> {
    bounded(text, -720.0, 720.0, false, " °/s")
}

/// A strafe angle: [−180, 180]°.
pub fn strafe(text: &str) -> Result<f64, String> {
    bounded(text, -180.0, 180.0, false, "°")
}

/// A gait period: (0, 10] s.
pub fn period(text: &str) -> Result<f64, String> {
    bounded(text, 0.0, 10.0, true, " s")
}

/// A height above the ground: [0, 10] m.
pub fn height(text: &str) -> Result<f64, String> {
    bounded(text, 0.0, 10.0, false, " m")
}

/// The diversity objective's K: [0, 1000000] (0 drops the d_min term).
pub fn diversity_k(text: &str) -> Result<f64, String> {
    bounded(text, 0.0, 1.0e6, false, "")
}

/// CMA-ES's initial step size in normalized units: (0, 10].
pub fn sigma(text: &str) -> Result<f64, String> {
    bounded(text, 0.0, 10.0, true, "")
}

/// Supernatural strength, a multiplier of gains and torque limits: (0, 10] (1 = normal).
pub fn strength(text: &str) -> Result<f32, String> {
    bounded32(text, 0.0, 10.0, true, "")
}

/// Extra seconds a prepared seed must keep standing: [0, 60].
pub fn hold(text: &str) -> Result<f32, String> {
    bounded32(text, 0.0, 60.0, false, " s")
}

/// A bound on a force component: (0, 1000000] N.
pub fn force_bound(text: &str) -> Result<f64, String> {
    bounded(text, 0.0, 1.0e6, true, " N")
}

/// Metres per BVH file unit: (0, 100].
pub fn bvh_scale(text: &str) -> Result<f64, String> {
    bounded(text, 0.0, 100.0, true, " m")
}

/// A character's total mass: (0, 100000] kg.
pub fn mass(text: &str) -> Result<f64, String> {
    bounded(text, 0.0, 1.0e5, true, " kg")
}

/// A character's height: (0, 1000] m.
pub fn character_height(text: &str) -> Result<f64, String> {
    bounded(text, 0.0, 1.0e3, true, " m")
}

/// The axis a skeleton file's character faces: `+z`, `-z`, `+x` or `-x`.
pub fn forward(text: &str) -> Result<motionlab::arbs::Forward, String> {
    motionlab::arbs::Forward::parse(text)
        .ok_or_else(|| format!("expected +z, -z, +x or -x, found {text:?}"))
}
