//! Template S₂ (Wampler 2012, thesis §5.2.1 and App. C): a new cycle joins the graph with a
//! connection from the base cycle into it and one back, so that a task asking for a speed has a
//! motion at that speed to steer into. Here the new cycle is straight, at another speed or
//! strafing at an angle ϕ to its heading (for a task that asks for a facing), with the base's
//! timing, or in another gait: the timing of one of the task's gaits ([`retimed`]; a run for a
//! task that asks for the gait type).
//!
//! Its initialisation M̃, which the synthesis weighs before solving, is a loop of the graph warped
//! to the base's timing and moved onto a straight path at the new speed, the loop of best quality
//! ([`super::cycle_search`]), and the two connections blended between it and the base. The solve
//! is the cycle first (the gait NLP started from that initialisation), then the two connections
//! to the cycle as solved, each one stride long with its first two and last two frames fixed to
//! the cycles' ([`connections`]).

use super::task::TaskGait;
use crate::spacetime::gait::{Connection, ContactLoad, GaitClip, GaitSpec};
use crate::spacetime::skeleton::Skeleton;
use anyhow::Result;

/// The speeds S₂ searches are this many m/s apart.
pub const SPEED_STEP: f64 = 0.05;

/// The strafe angles S₂ searches are this many degrees apart.
pub const STRAFE_STEP_DEG: f64 = 15.0;

/// The connections of a new cycle with the base: from the base's frame `from_frame` into the
/// cycle, and from the cycle's `from_frame` back into the base, each placed by the arc of the two
/// speeds with the foot down across its middle kept in place ([`Connection::matched_placement`]).
/// A connection plays its first clip's contacts for its first half and its second's for the
/// second, so it arrives at the frame of the second clip whose phase (the fraction of its
/// period) at the handover is the first clip's there: the contacts meet in phase, in the same
/// gait (`frames − 1` frames later) or another.
pub fn connections(
    skeleton: &Skeleton,
    base: &GaitClip,
    cycle: &GaitClip,
    from_frame: usize,
    frames: usize,
) -> [Connection; 2] {
    let heading = skeleton.with_heading_root();
    let join = |a: &GaitClip, b: &GaitClip| {
        let (na, nb) = (a.frames.len().max(1), b.frames.len().max(1));
        let from = from_frame % na;
        // The handover is frame frames/2: A's frame from + frames/2, B's frames − 1 − frames/2
        // of B's own frame times before its last.
        let phase = (from + frames / 2) as f64 / na as f64;
        let rate_b = a.frame_time() / b.frame_time();
        let to = phase * nb as f64 + (frames - 1 - frames / 2) as f64 * rate_b;
        let mut c = Connection {
            from_frame: from,
            to_frame: (to.round() as i64).rem_euclid(nb as i64) as usize,
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

/// The base cycle with another gait's timing, as the target of a new cycle's initialisation
/// ([`super::cycle_search::initialisation`]): its period and contact windows, each foot down
/// where the windows say with an equal share of the weight (the initialisation takes the loads
/// of the loop it warps where that loop's foot is down).
pub fn retimed(skeleton: &Skeleton, base: &GaitClip, gait: &TaskGait) -> Result<GaitClip> {
    let spec = GaitSpec::new(skeleton.clone(), base.speed, gait.period, &gait.contacts)?;
    let weight = skeleton.total_mass() * 9.81;
    let contacts = spec
        .contacts()
        .iter()
        .map(|down| {
            let k = down.iter().filter(|&&d| d).count().max(1) as f64;
            down.iter()
                .map(|&d| {
                    d.then(|| ContactLoad {
                        force: [0.0, weight / k, 0.0],
                        torque: [0.0; 3],
                        turn: 0.0,
                        footing: Default::default(),
                    })
                })
                .collect()
        })
        .collect::<Vec<Vec<_>>>();
    anyhow::ensure!(
        contacts.len() == base.frames.len(),
        "the base cycle has {} frames, a gait's timing {}",
        base.frames.len(),
        contacts.len()
    );
    Ok(GaitClip {
        period: gait.period,
        timings: gait.contacts.clone(),
        contacts,
        ..base.clone()
    })
}
