//! The watch's future, carried on from one check to the next.
//!
//! While a clip plays on with no transition to decide, the guard plays the plan `horizon`
//! seconds ahead every `watch` seconds to see a fall coming and call the rescue
//! ([`super::guard`], [`super::rescue`]), as a model-predictive controller re-plans at every
//! control step (Howell et al. 2022). Between two checks playback follows that future step for
//! step: the same controller with nothing barred, the same stick, the same tracker and the
//! same simulation at the same times. So at the next check the future from now is the last
//! one's remainder and `watch` seconds more, and only those are played, from where the last
//! one ended, as a receding horizon slides.
//!
//! That playback did follow it is checked, not assumed: the stick was the same at every step,
//! no decision or rescue came between, and a hash of the state now (the simulation's bodies,
//! clocks, targets and pending pushes, the tracking's memory of the last step, the controller's
//! frame and heading, the tracker's) equals the future's at this step. Otherwise (a push, the
//! app's clock, which is not on the steps' grid) the check plays afresh. The cost is summed
//! step by step in the order a fresh future sums it, so the guard judges and the run plays the
//! same, bit for bit, with the carrying on and without; a check costs `watch` seconds of
//! simulation instead of `horizon`.

use super::controller::{Barred, Output};
use super::guard::{Future, Guard, later};
use super::lookahead::FALL_COST;
use super::physics::{PhysicsPlayback, PlaybackState};
use super::tracker::{Tracker, TrackerState};
use super::{Controller, Stick};
use std::collections::VecDeque;
use std::hash::Hasher;

/// One step of the future: its share of the tracking cost, the controller's heading (x, z)
/// after it and the hash of the state after it.
struct Seen {
    share: f64,
    heading: [f64; 2],
    hash: u64,
}

/// Where a future stopped: the simulation, the controller's copy, the tracker's, the last
/// step's output.
struct End {
    physics: PlaybackState,
    controller: Controller,
    tracking: TrackerState,
    last: Option<Output>,
}

/// The last check's future: a window of `horizon` seconds from `from`.
pub(super) struct Watched {
    stick: Stick,
    dt: f64,
    /// The time the window starts at, and the controller's heading (x, z) then.
    from: f64,
    start: [f64; 2],
    /// The steps played from `from` while the body stayed up.
    seen: VecDeque<Seen>,
    /// Whether it fell in the step after the last of `seen`.
    fell: bool,
    /// Where the last of `seen` left it, when it stayed up.
    end: Option<End>,
}

impl Watched {
    /// Whether the future holds `stick` (playback leaves it when the stick changes).
    pub(super) fn holds(&self, stick: &Stick) -> bool {
        self.stick == *stick
    }

    /// The step after which the future stood where playback stands now (`now`: the state's
    /// hash at time `t`), if playback followed it.
    fn followed(&self, t: f64, dt: f64, stick: &Stick, now: u64) -> Option<usize> {
        if self.dt != dt || self.stick != *stick {
            return None;
        }
        let j = ((t - self.from) / dt).round();
        if j < 1.0 || j > self.seen.len() as f64 {
            return None;
        }
        let j = j as usize;
        (self.seen[j - 1].hash == now).then_some(j)
    }

    /// Plays on from where the future ended until the window holds `steps` steps again (or
    /// the body falls); the window's cost, as [`Guard::play_ahead`] gives it.
    fn fill(
        &mut self,
        steps: usize,
        guard: &mut Guard,
        tracker: &Tracker,
        physics: &mut PhysicsPlayback,
    ) -> f64 {
        if let Some(end) = self.end.take() {
            physics.restore(&end.physics);
            let mut future = Future {
                controller: end.controller,
                tracking: Some((tracker, end.tracking)),
                last: end.last,
            };
            while self.seen.len() < steps {
                let i = self.seen.len() + 1;
                guard.ahead_steps += 1;
                let Some(share) =
                    future.step(&self.stick, self.dt, later(self.from, i, self.dt), physics)
                else {
                    self.fell = true;
                    break;
                };
                let heading = future.controller.heading();
                let tracking = future.tracking.as_ref().map(|(_, s)| s);
                self.seen.push_back(Seen {
                    share,
                    heading: [heading.x, heading.z],
                    hash: hash(physics, &future.controller, tracking),
                });
            }
            if !self.fell {
                let mut cost = 0.0;
                for s in &self.seen {
                    cost += s.share;
                }
                let cost = guard.finish(cost, &future, self.start, steps as f64 * self.dt, physics);
                self.end = Some(End {
                    physics: physics.save(),
                    last: future.last,
                    tracking: future
                        .tracking
                        .map(|(_, s)| s)
                        .expect("played with the tracker"),
                    controller: future.controller,
                });
                return cost;
            }
        }
        FALL_COST + (steps - (self.seen.len() + 1)) as f64 * self.dt
    }
}

/// The hash of what playback's next steps depend on: the simulation and tracking
/// ([`PhysicsPlayback::hash_state`]), the controller's frame, transitions, heading and brake,
/// the tracker's state.
fn hash(
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

/// The cost of playing on from time `t` with nothing barred and `stick` held, `horizon`
/// seconds ahead (what [`Guard::play_ahead`] gives): the last check's future carried on when
/// playback followed it, played afresh otherwise; kept for the next check. `physics` is left
/// anywhere: the caller restores it.
#[allow(clippy::too_many_arguments)]
pub(super) fn watch(
    guard: &mut Guard,
    t: f64,
    stick: &Stick,
    dt: f64,
    tracker: &Tracker,
    state: &TrackerState,
    controller: &Controller,
    physics: &mut PhysicsPlayback,
) -> f64 {
    guard.rollouts += 1;
    let steps = guard.settings.steps(dt);
    let carried = match (guard.settings.carry, guard.watched.take()) {
        (true, Some(w)) => w
            .followed(t, dt, stick, hash(physics, controller, Some(state)))
            .map(|j| (w, j)),
        _ => None,
    };
    let mut w = match carried {
        Some((mut w, j)) => {
            w.start = w.seen[j - 1].heading;
            w.seen.drain(..j);
            w.from = t;
            w
        }
        None => {
            let mut ahead = controller.clone();
            ahead.barred = Barred::Nothing;
            let heading = controller.heading();
            Watched {
                stick: *stick,
                dt,
                from: t,
                start: [heading.x, heading.z],
                seen: VecDeque::with_capacity(steps),
                fell: false,
                end: Some(End {
                    physics: physics.save(),
                    controller: ahead,
                    tracking: state.clone(),
                    last: None,
                }),
            }
        }
    };
    let cost = w.fill(steps, guard, tracker, physics);
    guard.watched = Some(w);
    cost
}
