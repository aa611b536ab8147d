//! The footstep vocabulary of Agrawal (2016, thesis §5.2): the seven step tags, the three phases
//! of a task transition, a planted footstep on the ground plane, and the step record of Eq. 5.1
//! that ties a step to the frames of a clip.

use serde::{Deserialize, Serialize};
use std::f64::consts::PI;

/// Which foot.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum Foot {
    Left,
    Right,
}

impl Foot {
    /// The other foot.
    pub fn other(self) -> Foot {
        match self {
            Foot::Left => Foot::Right,
            Foot::Right => Foot::Left,
        }
    }

    /// +1 for the left foot, −1 for the right: the side of the body's centre line it is on.
    pub fn side(self) -> f64 {
        match self {
            Foot::Left => 1.0,
            Foot::Right => -1.0,
        }
    }
}

/// The seven footstep styles (thesis §5.2).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum StepTag {
    /// The foot turns on its heel and slides; it does not leave the ground.
    HeelPivot,
    /// The foot turns on its toes and slides; it does not leave the ground.
    ToePivot,
    /// A step to the side, the body's heading kept.
    SideStep,
    /// A step that lands turned from the one before.
    TurnAndStep,
    /// A locomotion step.
    Walk,
    /// A short step forward at a task.
    ForwardStepDuringTask,
    /// A short step back at a task.
    BackwardStepDuringTask,
}

impl StepTag {
    /// Every tag, in the thesis's order.
    pub const ALL: [StepTag; 7] = [
        StepTag::HeelPivot,
        StepTag::ToePivot,
        StepTag::SideStep,
        StepTag::TurnAndStep,
        StepTag::Walk,
        StepTag::ForwardStepDuringTask,
        StepTag::BackwardStepDuringTask,
    ];

    /// A sliding pivot: the foot stays where it is and only turns.
    pub fn is_pivot(self) -> bool {
        matches!(self, StepTag::HeelPivot | StepTag::ToePivot)
    }
}

/// The phase of a task transition a step belongs to (thesis §5.2, "phase labelling").
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum Phase {
    /// Steps out of the task just done.
    Exit,
    /// Walking between tasks.
    Locomotion,
    /// The last locomotion steps, re-optimized to lead into the entry (Algorithm 2).
    EnterPreparation,
    /// Steps into the next task.
    Enter,
}

/// A foot planted on the ground plane: where (metres; x and y span the ground) and its yaw (the
/// toes' direction, radians from +x towards +y).
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct Footstep {
    pub foot: Foot,
    pub x: f64,
    pub y: f64,
    pub yaw: f64,
}

impl Footstep {
    pub fn position(&self) -> [f64; 2] {
        [self.x, self.y]
    }

    /// Distance on the ground to another footstep.
    pub fn distance(&self, other: &Footstep) -> f64 {
        (self.x - other.x).hypot(self.y - other.y)
    }

    /// The point `ahead` metres along the toes' direction: what a pivot turns the foot about
    /// (0: the footprint, a heel pivot; the toes, a toe pivot).
    pub fn ahead(&self, ahead: f64) -> [f64; 2] {
        [
            self.x + ahead * self.yaw.cos(),
            self.y + ahead * self.yaw.sin(),
        ]
    }

    /// The footstep turned to `yaw` about its point `ahead` metres along its toes (a pivot).
    pub fn pivoted(&self, yaw: f64, ahead: f64) -> Footstep {
        let [x, y] = self.ahead(ahead);
        Footstep {
            x: x - ahead * yaw.cos(),
            y: y - ahead * yaw.sin(),
            yaw,
            ..*self
        }
    }
}

/// A step of a clip (Eq. 5.1, `q = (n_s, n_e, n_sa, n_ea, tag, phase)`): it begins when the swing
/// foot loses firm contact or starts to slide and ends when firm contact is back or the sliding
/// foot rests; `airborne` is the part off the ground (for a sliding pivot, the whole step).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct StepRecord {
    pub foot: Foot,
    /// First and last frame of the step (`n_s`, `n_e`).
    pub start: usize,
    pub end: usize,
    /// First and last frame off the ground (`n_sa`, `n_ea`); `start` and `end` for a pivot.
    pub airborne_start: usize,
    pub airborne_end: usize,
    pub tag: StepTag,
    pub phase: Phase,
    /// Where the foot was planted before the step and where it is planted after it.
    pub from: Footstep,
    pub to: Footstep,
}

/// An angle wrapped into (−π, π].
pub fn wrap(a: f64) -> f64 {
    let mut a = a.rem_euclid(2.0 * PI);
    if a > PI {
        a -= 2.0 * PI;
    }
    a
}

/// A point of the plane turned by `angle` about the origin.
pub fn rotate(p: [f64; 2], angle: f64) -> [f64; 2] {
    let (s, c) = angle.sin_cos();
    [c * p[0] - s * p[1], s * p[0] + c * p[1]]
}

/// The unit vector along `angle`, and its left normal.
pub fn axes(angle: f64) -> ([f64; 2], [f64; 2]) {
    let u = rotate([1.0, 0.0], angle);
    (u, [-u[1], u[0]])
}

/// A planar frame: an origin and the direction of its x axis.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct Frame {
    pub x: f64,
    pub y: f64,
    pub yaw: f64,
}

impl Frame {
    /// A point given in this frame, in the world.
    pub fn to_world(&self, p: [f64; 2]) -> [f64; 2] {
        let r = rotate(p, self.yaw);
        [self.x + r[0], self.y + r[1]]
    }

    /// A world point, in this frame.
    pub fn to_local(&self, p: [f64; 2]) -> [f64; 2] {
        rotate([p[0] - self.x, p[1] - self.y], -self.yaw)
    }

    /// A footstep given in this frame, in the world.
    pub fn step_to_world(&self, s: &Footstep) -> Footstep {
        let [x, y] = self.to_world([s.x, s.y]);
        Footstep {
            foot: s.foot,
            x,
            y,
            yaw: wrap(s.yaw + self.yaw),
        }
    }

    /// A footstep in the world, in this frame.
    pub fn step_to_local(&self, s: &Footstep) -> Footstep {
        let [x, y] = self.to_local([s.x, s.y]);
        Footstep {
            foot: s.foot,
            x,
            y,
            yaw: wrap(s.yaw - self.yaw),
        }
    }

    /// The frame of a stance: the midpoint of the two feet, facing their mean yaw.
    pub fn of_stance(a: &Footstep, b: &Footstep) -> Frame {
        Frame {
            x: 0.5 * (a.x + b.x),
            y: 0.5 * (a.y + b.y),
            yaw: wrap(a.yaw + 0.5 * wrap(b.yaw - a.yaw)),
        }
    }
}
