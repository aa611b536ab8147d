//! The definitions of phase-based controllers as written in scene files (Agrawal et al.
//! 2014, §6): phases and what ends them, balance, landing and foot-placement gains, and the
//! resolution of degree-of-freedom names (`joint`, `joint.axis`, and `hip` for both `l_hip` and
//! `r_hip`, mirrored). The running controller is [`super::phase`].

use crate::model::Character;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// What ends a phase.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize, Default)]
pub enum Transition {
    #[default]
    After,
    Liftoff,
    Apex,
    Touchdown,
    /// The root's accumulated pitch about z since the start (degrees, + backwards) reaches
    /// this value (or falls to it, when negative).
    Rotation(f32),
    /// Walks: the swing foot (the right foot in unswapped phases, the left in `swap_sides`
    /// phases) touches the ground, at least 50 ms into the phase.
    FootContact,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct PhaseDef {
    pub name: String,
    #[serde(default)]
    pub end: Transition,
    /// Timed phases: Δt_i. Event phases: the expected duration used for interpolation when no
    /// prediction applies (`Liftoff`).
    #[serde(default = "default_duration")]
    pub duration: f32,
    /// Event phases end at the latest after this many seconds.
    #[serde(default = "default_timeout")]
    pub timeout: f32,
    /// Target angles (degrees); degrees of freedom not named keep the previous phase's target.
    #[serde(default)]
    pub pose: BTreeMap<String, f32>,
    /// World pitch targets (degrees about the world z axis) for bodies, e.g. pelvis, chest, feet.
    #[serde(default)]
    pub world: BTreeMap<String, f32>,
    /// Jump straight to the target instead of interpolating (the extend phase).
    #[serde(default)]
    pub step: bool,
    /// Gain multipliers (kp, kd) for joints in this phase (joint names or symmetric names).
    #[serde(default)]
    pub gains: BTreeMap<String, (f32, f32)>,
    #[serde(default)]
    pub balance: bool,
    /// With `balance`: also hold the centre of mass at this fraction of its standing height with
    /// a vertical virtual force m·g + kp_y (h* − h) − kd_y ḣ (landing: a spring-damper that
    /// neither sinks nor rebounds).
    #[serde(default)]
    pub support: Option<f32>,
    #[serde(default)]
    pub landing: bool,
    /// Mirror the pose left ↔ right (walks: the second half of the stride).
    #[serde(default)]
    pub swap_sides: bool,
    /// Apply SIMBICON foot placement to the swing leg in this phase.
    #[serde(default)]
    pub foot_placement: bool,
    /// Interpolate from the measured joint angles at the phase's start instead of the previous
    /// phase's target. A landing's absorb phase needs this: touchdown comes while the legs are
    /// still moving towards the falling phase's target, and starting from that target would
    /// throw the body back into the air.
    #[serde(default)]
    pub from_current: bool,
}

fn default_duration() -> f32 {
    0.3
}
fn default_timeout() -> f32 {
    2.0
}

#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct BalanceDef {
    /// N/m and N·s/m of the virtual COM force.
    pub kp: f32,
    pub kd: f32,
    /// N/m and N·s/m of the vertical support force (phases with `support`).
    #[serde(default = "default_kp_y")]
    pub kp_y: f32,
    #[serde(default = "default_kd_y")]
    pub kd_y: f32,
    /// Largest target offset a balance torque may add, degrees.
    #[serde(default = "default_max_offset")]
    pub max_offset: f32,
}

fn default_max_offset() -> f32 {
    20.0
}
fn default_kp_y() -> f32 {
    2000.0
}
fn default_kd_y() -> f32 {
    400.0
}

impl Default for BalanceDef {
    fn default() -> Self {
        BalanceDef {
            kp: 600.0,
            kd: 120.0,
            kp_y: 2000.0,
            kd_y: 400.0,
            max_offset: 20.0,
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize, Default)]
pub struct LandingDef {
    /// Metres ahead of the centre of mass.
    pub offset: f32,
    /// Seconds: extra offset per m/s of horizontal velocity.
    pub velocity_gain: f32,
}

#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct FootPlacementDef {
    /// Radians per metre and per m/s (SIMBICON c_d, c_v).
    pub cd: f32,
    pub cv: f32,
    /// Sideways (coronal) c_d and c_v when they differ from the sagittal ones.
    #[serde(default)]
    pub lateral: Option<(f32, f32)>,
}

impl Default for FootPlacementDef {
    fn default() -> Self {
        FootPlacementDef {
            cd: 0.5,
            cv: 0.2,
            lateral: None,
        }
    }
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct PhaseControllerDef {
    /// Target before the first phase (and its interpolation start), degrees.
    #[serde(default)]
    pub start_pose: BTreeMap<String, f32>,
    pub phases: Vec<PhaseDef>,
    /// After the last phase, continue at this phase (walks); otherwise hold the last target.
    #[serde(default)]
    pub loop_to: Option<usize>,
    #[serde(default)]
    pub balance: BalanceDef,
    #[serde(default)]
    pub landing: LandingDef,
    #[serde(default)]
    pub foot_placement: FootPlacementDef,
}

/// A pose key that names no degree of freedom of the character.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum DofError {
    #[error("joint {joint:?} has no axis {axis}")]
    NoAxis { joint: String, axis: usize },
    #[error(
        "{key:?} names no degree of freedom (expected a joint, joint.axis, or a name with l_ and r_ joints)"
    )]
    Unknown { key: String },
}

/// A selector resolved to degrees of freedom with the sign its value takes on each.
pub fn resolve_dofs(c: &Character, key: &str) -> Result<Vec<(usize, f32)>, DofError> {
    let names = c.dof_names();
    let (joint, axis) = match key.rsplit_once('.') {
        Some((j, a)) if a.parse::<usize>().is_ok() => (j, a.parse::<usize>().unwrap()),
        _ => (key, 0),
    };
    let dof_of = |jname: &str| -> Option<usize> {
        let j = c.joints.iter().find(|j| j.name == jname)?;
        let n = j.kind.dof();
        if axis >= n {
            return None;
        }
        let full = if n == 1 {
            jname.to_string()
        } else {
            format!("{jname}.{axis}")
        };
        names.iter().position(|d| *d == full)
    };
    if c.joints.iter().any(|j| j.name == joint) {
        return dof_of(joint)
            .map(|i| vec![(i, 1.0)])
            .ok_or_else(|| DofError::NoAxis {
                joint: joint.to_string(),
                axis,
            });
    }
    let (l, r) = (format!("l_{joint}"), format!("r_{joint}"));
    match (dof_of(&l), dof_of(&r)) {
        (Some(a), Some(b)) => {
            // A rotation axis is a pseudo-vector: mirrored through the sagittal plane (z → −z)
            // it becomes −S a, so the right side takes sign(a_z² − a_x² − a_y²).
            let j = c.joints.iter().find(|j| j.name == l).unwrap();
            let ax = j.kind.axes()[axis];
            let s = if ax[2] * ax[2] >= ax[0] * ax[0] + ax[1] * ax[1] {
                1.0
            } else {
                -1.0
            };
            Ok(vec![(a, 1.0), (b, s)])
        }
        _ => Err(DofError::Unknown {
            key: key.to_string(),
        }),
    }
}

/// Whether a pose key names a pair of joints (`hip` for `l_hip` and `r_hip`) rather than one
/// joint or axis; a pose applies pair names before single ones.
pub fn is_pair_name(c: &Character, key: &str) -> bool {
    let joint = match key.rsplit_once('.') {
        Some((j, a)) if a.parse::<usize>().is_ok() => j,
        _ => key,
    };
    !c.joints.iter().any(|j| j.name == joint)
}

/// Maps a DOF index to the mirrored DOF (l_ ↔ r_) with its sign; itself for centre joints.
pub(super) fn mirror_map(c: &Character) -> Vec<(usize, f32)> {
    let names = c.dof_names();
    let mut out: Vec<(usize, f32)> = (0..names.len()).map(|i| (i, 1.0)).collect();
    for (i, n) in names.iter().enumerate() {
        let other = if let Some(rest) = n.strip_prefix("l_") {
            format!("r_{rest}")
        } else if let Some(rest) = n.strip_prefix("r_") {
            format!("l_{rest}")
        } else {
            continue;
        };
        if let Some(k) = names.iter().position(|d| *d == other) {
            let base = rest_of(n);
            let sign = resolve_dofs(c, &base)
                .ok()
                .and_then(|v| v.get(1).map(|x| x.1))
                .unwrap_or(1.0);
            out[i] = (k, sign);
        }
    }
    out
}

fn rest_of(dof_name: &str) -> String {
    dof_name[2..].to_string()
}
