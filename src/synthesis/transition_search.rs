//! Template S₁'s initialisation searched inside the graph (Wampler 2012, thesis §5.2.1, the
//! transition template's M̃; the graph "acts as a database of valid motions"):
//! 1. the paths leaving f_a ([`paths_from`]): the cycle played on, and every transition that
//!    leaves the cycle at f_a, then the cycle it arrives in played on;
//! 2. the paths arriving at f_b ([`paths_into`]): the cycle played up to f_b, and every
//!    transition that arrives at f_b, after the cycle it leaves;
//! 3. every pair blended ([`blend`]), the arriving path placed where the new transition must
//!    end, so the blend is warped to the requested turn θ (with the weights of a connection's
//!    start, [`crate::spacetime::gait::connecting_start`]);
//! 4. the pair whose blend has the best quality q (Eq. 5.3) wins ([`best`]).
//!
//! Every path here is `frames` long and plays clips of one frame time, so frames pair one to
//! one: the thesis's registration curves (step 4 of its transition search) have nothing to
//! align. A path holds at most one transition (a transition is as long as the path).

use super::graph::{Creature, GrownClip};
use crate::spacetime::gait::{Closure, Connection, ContactLoad, GaitClip, OpenEnds};
use anyhow::{Context, Result};

/// A path through the graph, as an open clip of `frames` frames in one world: the world of
/// the cycle it leaves, with its first frame that cycle's at f_a ([`paths_from`]), or the
/// world of the cycle it arrives in, with its last frame that cycle's stored frame f_b
/// ([`paths_into`]).
#[derive(Clone, Debug)]
pub struct Path {
    /// The clips it plays (`base`, or `turn_03>base`).
    pub label: String,
    pub clip: GaitClip,
}

/// The clip named `name` (a cycle when `joins` is none).
fn named<'a>(clips: &'a [GrownClip], name: &str) -> Option<&'a GrownClip> {
    clips.iter().find(|c| c.name == name)
}

/// Whether two frame times are one.
fn same_time(a: &GaitClip, b: &GaitClip) -> bool {
    (a.frame_time() - b.frame_time()).abs() < 1e-9
}

/// An open clip of `cycle`'s creature holding `frames` and their loads.
fn open_clip(
    cycle: &GaitClip,
    frames: Vec<Vec<f64>>,
    contacts: Vec<Vec<Option<ContactLoad>>>,
) -> GaitClip {
    let n = frames.len();
    GaitClip {
        period: cycle.frame_time() * (n.max(2) - 1) as f64,
        closure: Closure::Open(Box::new(OpenEnds {
            first: [frames[0].clone(), frames[1.min(n - 1)].clone()],
            last: [frames[n.saturating_sub(2)].clone(), frames[n - 1].clone()],
        })),
        frames,
        contacts,
        status: "path".into(),
        ..cycle.clone()
    }
}

/// Frames `from..from + count` of `cycle` (a cycle's frames wrap by its motion) moved by
/// `place`, with their loads.
fn played(
    cycle: &GaitClip,
    from: i64,
    count: usize,
    place: &crate::model::planar::PlanarMotion,
) -> (Vec<Vec<f64>>, Vec<Vec<Option<ContactLoad>>>) {
    let feet = cycle.contacts.first().map_or(0, Vec::len);
    (0..count as i64)
        .map(|k| {
            (
                place.apply_heading_root(&cycle.frame_at(from + k)),
                (0..feet)
                    .map(|f| cycle.load_at(from + k, f).map(|l| l.turned(place)))
                    .collect(),
            )
        })
        .unzip()
}

/// The transitions of `clips` joining two cycles of one frame time with `cycle`, at most
/// `frames` long.
fn transitions<'a>(
    clips: &'a [GrownClip],
    cycle: &'a GaitClip,
    frames: usize,
) -> impl Iterator<Item = &'a GrownClip> {
    clips.iter().filter(move |t| {
        t.joins.as_ref().is_some_and(|j| {
            t.gait.frames.len() <= frames
                && same_time(&t.gait, cycle)
                && [&j.from, &j.to].iter().all(|c| {
                    named(clips, c).is_some_and(|c| c.joins.is_none() && same_time(&c.gait, cycle))
                })
        })
    })
}

/// Every path of `frames` frames leaving cycle `name` at its frame `from`, in that cycle's
/// world: the cycle itself first, then each transition leaving there and the cycle it arrives
/// in played on.
pub fn paths_from(clips: &[GrownClip], name: &str, from: usize, frames: usize) -> Vec<Path> {
    let Some(cycle) = named(clips, name).filter(|c| c.joins.is_none()) else {
        return Vec::new();
    };
    let cycle = &cycle.gait;
    let n = cycle.frames.len();
    let identity = crate::model::planar::PlanarMotion::IDENTITY;
    let (f, c) = played(cycle, from as i64, frames, &identity);
    let mut out = vec![Path {
        label: name.to_string(),
        clip: open_clip(cycle, f, c),
    }];
    for t in transitions(clips, cycle, frames) {
        let j = t.joins.as_ref().expect("a transition");
        if j.from != name || j.from_frame % n != from % n {
            continue;
        }
        let to = &named(clips, &j.to).expect("checked").gait;
        let own = t.gait.frames.len();
        let (mut f, mut c) = played(&t.gait, 0, own, &identity);
        // The transition's last frame is the arrival cycle's at its join: play on after it.
        let (rest_f, rest_c) = played(to, j.to_frame as i64 + 1, frames - own, &j.placement);
        f.extend(rest_f);
        c.extend(rest_c);
        out.push(Path {
            label: format!("{}>{}", t.name, j.to),
            clip: open_clip(cycle, f, c),
        });
    }
    out
}

/// Every path of `frames` frames arriving at cycle `name`'s stored frame `to`, in that cycle's
/// world: the cycle itself first, then each transition arriving there after the cycle it
/// leaves.
pub fn paths_into(clips: &[GrownClip], name: &str, to: usize, frames: usize) -> Vec<Path> {
    let Some(cycle) = named(clips, name).filter(|c| c.joins.is_none()) else {
        return Vec::new();
    };
    let cycle = &cycle.gait;
    let n = cycle.frames.len();
    let to = to % n;
    let identity = crate::model::planar::PlanarMotion::IDENTITY;
    let (f, c) = played(cycle, to as i64 + 1 - frames as i64, frames, &identity);
    let mut out = vec![Path {
        label: name.to_string(),
        clip: open_clip(cycle, f, c),
    }];
    for t in transitions(clips, cycle, frames) {
        let j = t.joins.as_ref().expect("a transition");
        if j.to != name || j.to_frame % n != to {
            continue;
        }
        let from = &named(clips, &j.from).expect("checked").gait;
        let own = t.gait.frames.len();
        // The transition's world onto the arrival cycle's: its last frame on the stored frame.
        let back = j.placement.inverse();
        let before = frames - own;
        let (mut f, mut c) = played(from, j.from_frame as i64 - before as i64, before, &back);
        let (own_f, own_c) = played(&t.gait, 0, own, &back);
        f.extend(own_f);
        c.extend(own_c);
        out.push(Path {
            label: format!("{}>{}", j.from, t.name),
            clip: open_clip(cycle, f, c),
        });
    }
    out
}

/// The connection `c` (from a cycle's frame f_a into a cycle's frame f_b, placed) between a
/// path leaving f_a and a path arriving at f_b, each `frames` long: from the first path's first
/// frame into the second's last, which `c`'s placement puts where the new transition ends.
/// Blended by the connection's start, the pair is an initialisation of `c`.
pub fn between_paths(c: &Connection, frames: usize) -> Connection {
    Connection {
        from_frame: 0,
        to_frame: frames - 1,
        frames,
        ..c.clone()
    }
}

/// The initialisation of transition `c` from cycle `cycle` back into it: of every pair of a path
/// leaving `c`'s first frame and one arriving at its last, blended ([`between_paths`]), the one
/// whose frames are nearest the graph's (quality q, Eq. 5.3), with the pair's label
/// (`leaving+arriving`). With no transition in the graph it is the cycle blended into itself.
pub fn best(
    creature: &Creature,
    clips: &[GrownClip],
    cycle: &str,
    c: &Connection,
) -> Result<(GaitClip, String)> {
    let skeleton = creature.skeleton()?;
    let frames = c.frames;
    let from = paths_from(clips, cycle, c.from_frame, frames);
    let into = paths_into(clips, cycle, c.to_frame, frames);
    let between = between_paths(c, frames);
    let mut best: Option<(f64, GaitClip, String)> = None;
    for a in &from {
        for b in &into {
            let gait = super::blended(&skeleton, &a.clip, &b.clip, &between)?;
            let label = format!("{}+{}", a.label, b.label);
            if from.len() * into.len() == 1 {
                return Ok((gait, label));
            }
            let probe = GrownClip::transition("candidate", gait, cycle, cycle, c);
            let q = super::graph::quality(creature, clips, std::slice::from_ref(&probe))?;
            if best.as_ref().is_none_or(|b| q < b.0) {
                best = Some((q, probe.gait, label));
            }
        }
    }
    best.map(|(_, g, label)| (g, label))
        .with_context(|| format!("no path of `{cycle}` leaves or reaches the transition's frames"))
}
