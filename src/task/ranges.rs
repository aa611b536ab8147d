//! The physical ranges of a task's numbers, checked where the scene file is read (issue P4a):
//! phase durations and timeouts, pose angles, gain multipliers, balance and foot-placement gains,
//! the free-parameter box, constraint sizes and the walk protocol. Each problem names the
//! section, the record and the field, which the loader turns into a line
//! (`crate::model::Problem`). The file-wide scan (`crate::model::numbers`) has already refused
//! every NaN and every magnitude over 10⁹.

use super::{Constraint, TaskDef};
use crate::model::{MAX_GAIN, Problem};

/// The longest a phase may last or wait for its event, s.
pub const MAX_PHASE_SECONDS: f32 = 600.0;
/// The largest per-phase gain multiplier.
pub const MAX_GAIN_MULTIPLIER: f32 = 100.0;
/// The largest distance a constraint may name, m.
pub const MAX_DISTANCE: f32 = 1_000.0;

impl TaskDef {
    /// Every number of the task outside its range.
    pub fn range_problems(&self) -> Vec<Problem> {
        let mut out = Vec::new();
        let within = |v: f32, lo: f32, hi: f32| v >= lo && v <= hi;
        for p in &self.controller.phases {
            let mut at = |field: &str, message: String| {
                out.push(Problem::named("phases", &p.name, field, message))
            };
            if !within(p.duration, 0.0, MAX_PHASE_SECONDS) {
                at(
                    "duration",
                    format!(
                        "expected a duration in [0, {MAX_PHASE_SECONDS}] s, found {}",
                        p.duration
                    ),
                );
            }
            if !within(p.timeout, 0.0, MAX_PHASE_SECONDS) {
                at(
                    "timeout",
                    format!(
                        "expected a timeout in [0, {MAX_PHASE_SECONDS}] s, found {}",
                        p.timeout
                    ),
                );
            }
            for (key, angle) in p.pose.iter().chain(&p.world) {
                if !within(*angle, -360.0, 360.0) {
                    at(
                        key,
                        format!("expected an angle within ±360°, found {angle}"),
                    );
                }
            }
            for (key, (kp, kd)) in &p.gains {
                if !(within(*kp, 0.0, MAX_GAIN_MULTIPLIER) && within(*kd, 0.0, MAX_GAIN_MULTIPLIER))
                {
                    at(
                        key,
                        format!(
                            "expected gain multipliers in [0, {MAX_GAIN_MULTIPLIER}], found ({kp}, {kd})"
                        ),
                    );
                }
            }
        }
        for (key, angle) in &self.controller.start_pose {
            if !within(*angle, -360.0, 360.0) {
                out.push(Problem::new(
                    Some("start_pose"),
                    key,
                    format!("expected an angle within ±360°, found {angle}"),
                ));
            }
        }
        let b = &self.controller.balance;
        for (field, v) in [
            ("kp", b.kp),
            ("kd", b.kd),
            ("kp_y", b.kp_y),
            ("kd_y", b.kd_y),
        ] {
            if !within(v, 0.0, MAX_GAIN as f32) {
                out.push(Problem::new(
                    Some("balance"),
                    field,
                    format!("expected a gain in [0, {MAX_GAIN}], found {v}"),
                ));
            }
        }
        if !within(b.max_offset, 0.0, 360.0) {
            out.push(Problem::new(
                Some("balance"),
                "max_offset",
                format!("expected an offset in [0, 360]°, found {}", b.max_offset),
            ));
        }
        let free = &self.free;
        for (field, v, lo, hi) in [
            ("range", free.range, 0.0, 360.0),
            ("duration_factor", free.duration_factor, 1.0, 100.0),
            ("gain_factor", free.gain_factor, 1.0, 100.0),
            ("world_range", free.world_range, 0.0, 360.0),
        ] {
            if !within(v, lo, hi) {
                out.push(Problem::new(
                    Some("free"),
                    field,
                    format!("expected a value in [{lo}, {hi}], found {v}"),
                ));
            }
        }
        for c in &self.constraints {
            let (name, sizes): (&str, Vec<f32>) = match c {
                Constraint::LandingBox { half_size, .. } => ("half_size", half_size.to_vec()),
                Constraint::StepWindow { half_size, .. } => ("half_size", half_size.to_vec()),
                Constraint::LandingCircle { radius, .. } => ("radius", vec![*radius]),
                Constraint::EndBalanced { max_offset } => ("max_offset", vec![*max_offset]),
                Constraint::PeakHeight { min } => ("min", vec![*min]),
                _ => continue,
            };
            if !sizes.iter().all(|v| within(*v, 0.0, MAX_DISTANCE)) {
                out.push(Problem::new(
                    Some("constraints"),
                    name,
                    format!("expected sizes in [0, {MAX_DISTANCE}] m, found {sizes:?}"),
                ));
            }
        }
        if !(self.sigma > 0.0 && self.sigma <= 10.0) {
            out.push(Problem::new(
                None,
                "sigma",
                format!("expected a step size in (0, 10], found {}", self.sigma),
            ));
        }
        if !(1..=1_000).contains(&self.samples_per_phase) {
            out.push(Problem::new(
                None,
                "samples_per_phase",
                format!(
                    "expected 1 to 1000 samples, found {}",
                    self.samples_per_phase
                ),
            ));
        }
        if let Some(s) = self.stand {
            if !within(s, 0.0, MAX_PHASE_SECONDS) {
                out.push(Problem::new(
                    None,
                    "stand",
                    format!("expected [0, {MAX_PHASE_SECONDS}] s, found {s}"),
                ));
            }
        }
        if let Some(w) = self.walk {
            if !(w.steps >= 1 && w.steps <= 1_000 && w.settle < w.steps) {
                out.push(Problem::new(
                    None,
                    "walk",
                    format!(
                        "expected 1 to 1000 steps and fewer to settle, found ({}, {})",
                        w.steps, w.settle
                    ),
                ));
            }
        }
        out
    }
}
