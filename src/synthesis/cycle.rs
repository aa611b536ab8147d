//! Template S₂ (Wampler 2012, thesis §5.2.1 and App. C): a new cycle joins the graph with a
//! connection from the base cycle into it and one back, so that a task asking for a speed has a
//! motion at that speed to steer into. Here the new cycle is straight, at another speed, with the
//! base's timing (the thesis's S₂ also varies strafe and gait).
//!
//! Its initialisation M̃, which the synthesis weighs before solving, is the base cycle stretched
//! along its travel to the new speed ([`stretched`]) and the two connections blended between it
//! and the base. The solve is the cycle first (the gait NLP started from the base cycle), then the
//! two connections to the cycle as solved, each one stride long with its first two and last two
//! frames fixed to the cycles' ([`connections`]).

use crate::spacetime::gait::{Connection, GaitClip};
use crate::spacetime::skeleton::Skeleton;

/// The speeds S₂ searches are this many m/s apart.
pub const SPEED_STEP: f64 = 0.05;

/// The base cycle (straight, along +x) as if walked at `speed`: each frame's root moved along x
/// from frame 0's by the ratio of the speeds, the cycle's advance `speed`·T. The poses and the
/// timing are the base's. The initialisation of an S₂ cycle, not a solved motion (the feet slide).
pub fn stretched(base: &GaitClip, speed: f64) -> GaitClip {
    let ratio = if base.speed.abs() > 1e-9 {
        speed / base.speed
    } else {
        1.0
    };
    let x0 = base.frames.first().map_or(0.0, |q| q[3]);
    let frames = base
        .frames
        .iter()
        .map(|q| {
            let mut q = q.clone();
            q[3] = x0 + (q[3] - x0) * ratio;
            q
        })
        .collect();
    GaitClip {
        speed,
        frames,
        cost: f64::INFINITY,
        status: "start".into(),
        ..base.clone()
    }
}

/// The connections of a new cycle with the base: from the base's frame `from_frame` into the
/// cycle `frames − 1` frames later, and from the cycle's `from_frame` back into the base's, each
/// placed by the arc of the two speeds with the foot down across its middle kept in place
/// ([`Connection::matched_placement`]). Both cycles have the base's timing, so the contacts
/// meet in phase.
pub fn connections(
    skeleton: &Skeleton,
    base: &GaitClip,
    cycle: &GaitClip,
    from_frame: usize,
    frames: usize,
) -> [Connection; 2] {
    let heading = skeleton.with_heading_root();
    let join = |a: &GaitClip, b: &GaitClip| {
        let n = a.frames.len().max(1);
        let from = from_frame % n;
        let mut c = Connection {
            from_frame: from,
            to_frame: (from + frames - 1) % b.frames.len().max(1),
            frames,
            duration: a.frame_time() * (frames - 1) as f64,
            placement: None,
            swings: Vec::new(),
            pivots: Vec::new(),
        };
        c.placement = Some(c.matched_placement(&heading, a, b));
        c
    };
    [join(base, cycle), join(cycle, base)]
}
