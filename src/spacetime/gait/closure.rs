//! How a clip's last frame leads on to its first: the treadmill cycle of Wampler 2012 (§3.2),
//! the transformed cycle of McIntosh 2011 (§3.2.5, Eq. 3.11) that turns and travels, and open
//! clips with fixed end frames (Wampler 2012, App. C: connecting clips, starts and stops).
//!
//! # Transformed cycles
//! The frame after the last is T(frame 0) and the frame before the first is T⁻¹(frame N−1), with
//! T a rigid motion of the ground plane: a turn by α = ω·P about the vertical through the centre
//! c = (0, 0, −V/ω) of the circle the creature travels at speed V and turn rate ω, i.e.
//! T(p) = R_y(α)·p + t with t = (V sin α/ω, 0, −V(1 − cos α)/ω) (the straight limit t = (V·P, 0, 0)
//! at ω = 0). A positive ω turns left (towards −z; +y is up and z the creature's right). Feet in
//! contact stay where they are in the world (no treadmill), so a turning gait leans into its
//! turn by its own momentum (McIntosh's §3.2.5 reason to prefer this over a treadmill).
//!
//! A strafing cycle (Wampler 2012, thesis §5.2.1, template S₂'s strafe angle ϕ) travels at ϕ to
//! the left of its heading: its t is the one above turned by ϕ about the start, R_y(ϕ)·t, which
//! is the arc conjugated by a turn of ϕ, so its frames still follow one rigid motion per period.
//!
//! The creature's root is in heading coordinates ([`super::Skeleton::with_heading_root`]: yaw,
//! pitch, roll, x, y, z), where T acts linearly: the yaw grows by α and (x, z) turn by α and
//! move by t. The path p(t) = T_t(0), the root's place and heading at time t if it moved
//! exactly along the circle, pins the cycle in the world: the root's mean offset from the path
//! (x, z and yaw) is zero.
//!
//! # Open clips
//! No wrap: the first two and the last two frames are fixed (bounds with lower = upper), so the
//! finite-difference velocities and accelerations at either end equal those of the clips the
//! ends were taken from (App. C), and the dynamics hold at every interior frame.

pub use crate::model::planar::PlanarMotion;
use serde::{Deserialize, Serialize};

/// How the frames of a gait NLP close (see the module docs).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Default)]
pub enum Closure {
    /// Cyclic in place, the ground moving at −V under the feet (Wampler 2012, §3.2).
    #[default]
    Treadmill,
    /// Transformed cyclic (McIntosh 2011, §3.2.5) at the spec's speed and this turn rate (rad/s
    /// about +y, positive to the left), travelling at `strafe` rad to the left of the heading
    /// (Wampler 2012, thesis §5.2.1's strafe angle ϕ; 0: forwards).
    Transformed {
        turn_rate: f64,
        #[serde(default, skip_serializing_if = "is_zero")]
        strafe: f64,
    },
    /// Not cyclic: the first two and last two frames are the given coordinates (heading root).
    Open(Box<OpenEnds>),
}

/// The fixed frames of an open clip, in heading-root coordinates.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct OpenEnds {
    pub first: [Vec<f64>; 2],
    pub last: [Vec<f64>; 2],
}

impl Closure {
    /// Whether frame `N−1` is followed by frame 0.
    pub fn is_cyclic(&self) -> bool {
        !matches!(self, Closure::Open(_))
    }

    /// Whether the creature stays in place on a moving ground.
    pub fn is_treadmill(&self) -> bool {
        matches!(self, Closure::Treadmill)
    }

    /// Turn rate (rad/s) of a transformed cycle; 0 otherwise.
    pub fn turn_rate(&self) -> f64 {
        match self {
            Closure::Transformed { turn_rate, .. } => *turn_rate,
            _ => 0.0,
        }
    }

    /// Strafe angle ϕ (rad, positive to the left) of a transformed cycle; 0 otherwise.
    pub fn strafe(&self) -> f64 {
        match self {
            Closure::Transformed { strafe, .. } => *strafe,
            _ => 0.0,
        }
    }

    /// Where the root is after `time` seconds at `speed` moving exactly along the path (the
    /// module docs' p(t)); T of a transformed cycle is its value at the period.
    pub fn path(&self, speed: f64, time: f64) -> PlanarMotion {
        PlanarMotion::along_strafed_arc(speed, self.turn_rate(), self.strafe(), time)
    }

    /// The transform T of a transformed cycle of this speed and period (frame N = T(frame 0));
    /// the identity otherwise.
    pub fn cycle_motion(&self, speed: f64, period: f64) -> PlanarMotion {
        match self {
            Closure::Transformed { .. } => self.path(speed, period),
            _ => PlanarMotion::IDENTITY,
        }
    }
}

fn is_zero(v: &f64) -> bool {
    *v == 0.0
}

impl super::GaitSpec {
    /// A transformed cycle (McIntosh 2011, §3.2.5) turning at `turn_rate` rad/s instead of the
    /// treadmill: the root in heading coordinates, feet in contact fixed in the world.
    pub fn transformed(mut self, turn_rate: f64) -> Result<Self, super::GaitError> {
        if !turn_rate.is_finite() || (self.skeleton.planar && turn_rate != 0.0) {
            return Err(super::GaitError::TurnRate(turn_rate));
        }
        self.skeleton = self.skeleton.with_heading_root();
        self.closure = Closure::Transformed {
            turn_rate,
            strafe: 0.0,
        };
        self.check_contacts()?;
        Ok(self)
    }

    /// The transformed cycle travelling at `strafe` rad to the left of its heading (thesis
    /// §5.2.1's strafe angle ϕ); call after [`Self::transformed`].
    pub fn strafing(mut self, strafe: f64) -> Result<Self, super::GaitError> {
        let Closure::Transformed { turn_rate, .. } = self.closure else {
            return Err(super::GaitError::Strafe(strafe));
        };
        if !strafe.is_finite() || strafe.abs() > std::f64::consts::PI {
            return Err(super::GaitError::Strafe(strafe));
        }
        self.closure = Closure::Transformed { turn_rate, strafe };
        Ok(self)
    }
}

/// Which transform a block applies to a neighbouring frame it reads across the cycle's seam.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Seam {
    /// The neighbour is a frame of the same cycle.
    None,
    /// The neighbour is frame 0 standing for frame N: apply T.
    Forward,
    /// The neighbour is frame N−1 standing for frame −1: apply T⁻¹.
    Backward,
    /// On half a mirror-symmetric treadmill cycle ([`super::GaitSpec::with_mirror_half`]): the
    /// neighbour is frame 0 standing for frame N/2, or frame N/2 − 1 standing for frame −1, and
    /// either is the mirror image M of the frame read (M is its own inverse).
    Mirror,
}
