//! Futures carried on from one check of the guard to the next.
//!
//! The guard plays futures `horizon` seconds ahead at every decision, every `watch` seconds
//! while a clip plays on, and in its rescues ([`super::guard`], [`super::rescue`]), as a
//! model-predictive controller re-plans at every control step (Howell et al. 2022). Playback
//! then follows the future chosen, step for step: the same controller with the same bars, the
//! same stick, the same tracker and the same simulation, at the same times ([`later`]). So at
//! the next check, the future from now that plays under the same bars is the chosen one's
//! remainder and a few steps more: only those are played, from where it ended, as a receding
//! horizon slides.
//!
//! That playback did follow it is checked, not assumed: the stick was the same at every step,
//! and a hash of the state now (the simulation's bodies, clocks, targets and pending pushes,
//! the tracking's memory of the last step, the controller's frame and heading, the tracker's)
//! equals the future's at this step. Otherwise (a push, a rescue's noise, a clock off the
//! steps' grid) the future is played afresh. The cost is summed step by
//! step in the order a fresh future sums it, stopping where a fresh one stops, so the guard
//! judges and the run plays the same, bit for bit, with the carrying on and without (`carry=0`;
//! a test plays both).
//!
//! Measured on the validation timelines of `human3d.ron` with the character's tracker (seed
//! 1000, 40 of 30 s, where rescues are most frequent; one machine, otherwise idle): every
//! future played afresh, 684 s of one core for the 1,200 simulated seconds (0.57 s a second);
//! carrying on only the watch's futures of a clip played on, 576 s (0.48); carrying on
//! whichever future was chosen (a decision's, a watch's, a rescue's), 464 s (0.39). The runs
//! print the same each time.

use super::controller::{Barred, Output};
use super::guard::{Future, Guard, later};
use super::lookahead::{FALL_COST, loses};
use super::physics::{PhysicsPlayback, PlaybackState};
use super::tracker::{Tracker, TrackerState};
use super::{Controller, Stick};
use std::collections::VecDeque;
use std::hash::Hasher;

/// One step of a future: its share of the tracking cost, the clip a transition entered in
/// it, the controller's heading (x, z) after it and the hash of the state after it.
struct Seen {
    share: f64,
    entered: Option<usize>,
    heading: [f64; 2],
    hash: u64,
}

/// Where a future stopped: the simulation, the controller's copy, the tracker's, the last
/// step's output.
struct End {
    physics: PlaybackState,
    controller: Controller,
    tracking: Option<TrackerState>,
    last: Option<Output>,
}

/// A future played (or about to be) from `from`, under `bars` with `stick` held.
pub(super) struct Carried {
    stick: Stick,
    bars: Barred,
    dt: f64,
    /// The time the future starts at, and the controller's heading (x, z) then.
    from: f64,
    start: [f64; 2],
    /// The steps played from `from` while the body stayed up.
    seen: VecDeque<Seen>,
    /// Where the last of `seen` left it; `None` when the body fell in the step after it.
    end: Option<End>,
}

impl Carried {
    /// A future from playback's state now, not played yet.
    pub fn new(
        t: f64,
        stick: &Stick,
        dt: f64,
        bars: &Barred,
        controller: &Controller,
        tracking: Option<&TrackerState>,
        physics: &PhysicsPlayback,
    ) -> Self {
        let mut ahead = controller.clone();
        ahead.barred = bars.clone();
        let heading = controller.heading();
        Self {
            stick: *stick,
            bars: bars.clone(),
            dt,
            from: t,
            start: [heading.x, heading.z],
            seen: VecDeque::new(),
            end: Some(End {
                physics: physics.save(),
                controller: ahead,
                tracking: tracking.cloned(),
                last: None,
            }),
        }
    }

    /// Whether the future holds `stick` (playback leaves it when the stick changes).
    pub fn holds(&self, stick: &Stick) -> bool {
        self.stick == *stick
    }

    /// This future from time `t` on, as a fresh one from playback's state now (`now`: its
    /// hash, [`hash`]) would play under `bars` with `stick`, if playback followed it there.
    pub fn carried_to(&mut self, t: f64, dt: f64, stick: &Stick, bars: &Barred, now: u64) -> bool {
        if self.dt != dt || self.stick != *stick || !same_bars(&self.bars, bars) {
            return false;
        }
        let j = ((t - self.from) / dt).round();
        if j < 1.0 || j > self.seen.len() as f64 || self.seen[j as usize - 1].hash != now {
            return false;
        }
        let j = j as usize;
        self.start = self.seen[j - 1].heading;
        self.seen.drain(..j);
        self.from = t;
        true
    }

    /// The future's cost over `steps` steps, as [`Guard::play_ahead`] gives it: the steps
    /// already seen summed again, then played on from where it ended; stopped early (at a cost
    /// of at least `bound`) where a fresh future stops ([`loses`]).
    pub fn play(
        &mut self,
        steps: usize,
        bound: f64,
        guard: &mut Guard,
        tracker: Option<&Tracker>,
        physics: &mut PhysicsPlayback,
    ) -> f64 {
        guard.rollouts += 1;
        let dt = self.dt;
        let mut cost = 0.0;
        for s in self.seen.iter().take(steps) {
            cost += s.share;
            if loses(cost, bound) {
                return cost;
            }
        }
        let Some(end) = self.end.take() else {
            return FALL_COST + (steps - (self.seen.len() + 1)) as f64 * dt;
        };
        physics.restore(&end.physics);
        let mut future = Future {
            controller: end.controller,
            tracking: tracker.zip(end.tracking),
            last: end.last,
        };
        while self.seen.len() < steps {
            let i = self.seen.len() + 1;
            let taken = future.controller.transitions_taken;
            guard.ahead_steps += 1;
            let Some(share) = future.step(&self.stick, dt, later(self.from, i, dt), physics) else {
                return FALL_COST + (steps - i) as f64 * dt;
            };
            let heading = future.controller.heading();
            let tracking = future.tracking.as_ref().map(|(_, s)| s);
            self.seen.push_back(Seen {
                share,
                entered: (future.controller.transitions_taken > taken)
                    .then(|| future.controller.current().clip),
                heading: [heading.x, heading.z],
                hash: hash(physics, &future.controller, tracking),
            });
            cost += share;
            if loses(cost, bound) {
                self.keep(future, physics);
                return cost;
            }
        }
        let cost = guard.finish(cost, &future, self.start, steps as f64 * dt, physics);
        self.keep(future, physics);
        cost
    }

    /// Notes where the future stopped, to play on from there.
    fn keep(&mut self, future: Future, physics: &PhysicsPlayback) {
        self.end = Some(End {
            physics: physics.save(),
            last: future.last,
            tracking: future.tracking.map(|(_, s)| s),
            controller: future.controller,
        });
    }

    /// The clips the future went into by transition in its steps before `every` seconds.
    pub fn entered(&self, every: f64) -> Vec<usize> {
        self.seen
            .iter()
            .enumerate()
            .filter(|(k, _)| (*k as f64) * self.dt < every - 1e-9)
            .filter_map(|(_, s)| s.entered)
            .collect()
    }
}

/// Whether two sets of bars bar the same transitions.
fn same_bars(a: &Barred, b: &Barred) -> bool {
    let clips = |x: &Barred| match x {
        Barred::Nothing => Some(Vec::new()),
        Barred::Into(c) => {
            let mut c = c.clone();
            c.sort_unstable();
            c.dedup();
            Some(c)
        }
        Barred::All => None,
    };
    clips(a) == clips(b)
}

/// The hash of what playback's next steps depend on: the simulation and tracking
/// ([`PhysicsPlayback::hash_state`]), the controller's frame, transitions, heading and brake,
/// the tracker's state.
pub(super) fn hash(
    physics: &PhysicsPlayback,
    controller: &Controller,
    tracking: Option<&TrackerState>,
) -> u64 {
    let mut h = std::collections::hash_map::DefaultHasher::new();
    physics.hash_state(&mut h);
    let f = controller.current();
    h.write_usize(f.clip);
    h.write_usize(f.frame);
    h.write_usize(controller.transitions_taken);
    let p = controller.heading();
    for x in [p.x, p.z, p.yaw, controller.brake_left] {
        h.write_u64(x.to_bits());
    }
    if let Some(s) = tracking {
        s.hash_state(&mut h);
    }
    h.finish()
}
