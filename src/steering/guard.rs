//! Transitions the simulated body survives: physics playback's guard over the steering
//! controller's choice of edge.
//!
//! The kinematic controller takes whatever transition follows the stick best, and most of a
//! captured graph's transitions are blends no body makes exactly. A simulated human tracking
//! them falls within seconds of a change of stick, while straight walks and runs hold. Control
//! graphs (Liu, van de Panne & Yin 2016) keep the simulated character on transitions that
//! control fragments were learned for; here, as in predictive sampling (Howell et al. 2022), the
//! test is made online: when the controller is about to take a transition, a copy of the
//! controller and of the simulation plays it `horizon` seconds ahead with the stick held; then
//! its clip is barred and the controller's next choice is played ahead, up to `candidates`
//! futures (the current clip playing on is one of the choices: when every transition is barred
//! it plays on). The future that stays up at least cost is taken; when every future falls, the
//! one that stays up longest. A future's cost: the look-ahead's tracking cost (squared joint
//! error, the pelvis's rotation and height off the played one) summed over the horizon, plus
//! `obey` × the horizon × the gap between the played motion's mean velocity over the horizon
//! and the asked one (speed and direction: a future that turns away from the stick pays for
//! it), plus, with a learned tracker, `value` × how far its value network's estimate at the
//! future's end falls short of the best value, 1 / (1 − γ): a learned terminal cost, as in
//! model-predictive control with a learned value (Lowrey et al. 2019, POLO), which sees a fall
//! coming a second or so past the horizon.
//!
//! With a learned tracker ([`super::tracker`]) playing, the futures play it too: it decides
//! their corrections from the body's state as it would in playback (with the corrections of the
//! moment held instead, a future tests a body that no longer answers).
//!
//! Measured with the feedback alone and the first settings (every 0.25 s, obedience to the
//! speed only, `obey` 3), on 60 player timelines of 12 s (mean seconds up; mean |speed − asked|
//! while up): without the guard 4.8 s, 0.77 m/s; taking the first future that stays up 1.5 s,
//! 5.8 s, 0.77; the same over 2.5 s, 6.5 s, 0.78; the least cost of three over 2.5 s without the
//! obedience term 7.9 s but 1.05 m/s (it stands still rather than start a walk it might fall
//! from), with `obey` 1 7.6 s, 0.93, with `obey` 3 6.8 s, 0.80. Horizons of 4 s and five
//! candidates did no better.
//!
//! The defaults are chosen with the shipped tracker, on 40 timelines of 30 s, 16 full-stick
//! walks and 16 runs, and 40 pushed 1.0 m/s walks (seed 1000, apart from the trials'): the
//! tracker alone 6.85 s up on the timelines; the first settings with futures whose corrections
//! are held, 12.1 s, but every pushed walk falls at 3.6 s, before its push (the chosen future
//! turned 80° away from the stick, stayed up its 2.5 s and fell just after); the futures playing
//! the tracker and paying for the velocity, 11.8 s and 40 of 40 pushed walks; `obey` 1, 11.8 s
//! with every straight walk and run up (3 of 32 fell at `obey` 3); decisions every 0.1 s,
//! 12.8 s; `value` 0.05, 13.6 s (5 of the 40 timelines up 30 s). A `value` of 0.3 or more lasts
//! longer (15.5 s) by not walking: the pushed walks stood, 0.98 m/s under the asked speed.
//!
//! Bars are decided every `every` seconds. Between two decisions the controller may take the
//! transitions the chosen future took in that time, and a transition into any other clip is
//! barred until the next decision, so a bad transition is never taken unchecked and what is
//! played is what was judged. (Until 2026-12-07 only the first transition of the decision's
//! best candidate was let through, also where a rescue had chosen another future, such as a
//! brake's stop, so the body could play a future nobody had judged and fall where the chosen
//! one stood. Letting the chosen future's through kept up the three of P12's 133 trials on
//! `human3d.ron` that fell with the brake: all 133 hold.)
//!
//! With a learned tracker, the plan is also checked every `watch` seconds while a clip plays on
//! with no transition to decide, and when it falls (or every future of a decision does) the
//! rescue ([`super::rescue`]) searches the tracker's corrections instead of the graph's edges.
//!
//! A future steps at the times playback will ([`later`]), so that the future chosen is the one
//! played, bit for bit; at the next check (a decision, a watch) the future under the same bars
//! is then that one carried on a few steps ([`super::carry`]), not played again.
//!
//! In physics playback the reference's heading follows the simulated pelvis within a step, so
//! the controller's root-motion warping turns nothing: the body turns only by the graph's turn
//! clips. Over the horizon a future that takes one has only begun its turn, its mean velocity
//! hardly better than playing straight on's, and the guard, which pays for that mean velocity
//! (`obey`), bars the turn when it tracks a little worse. `aim` also pays per radian the
//! heading the future ends in is off the asked direction. Measured on the validation
//! timelines (seed 1000, 40 × 30 s; changes of direction met within 10° at 1.5 s):
//! `human3d_solved.ron` 17 of 303 without, 27 at `aim` 1, 20 at 3, every timeline up each
//! time; `human3d.ron` 37 timelines up and 44 of 290 changes met without, 36 and 42 at 1. It
//! is off by default.

use super::carry::Carried;
use super::controller::{Barred, Output};
use super::lookahead::FALL_COST;
use super::physics::PhysicsPlayback;
use super::tracker::{Tracker, TrackerState, observe};
use super::{Controller, Stick};

/// How the guard plays transitions ahead.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct GuardSettings {
    /// Seconds between decisions.
    pub every: f64,
    /// Seconds each future is played ahead.
    pub horizon: f64,
    /// Futures played ahead per decision, at most.
    pub candidates: usize,
    /// Weight of obedience in a future's cost: per m/s the played motion's mean velocity over
    /// the horizon is off the asked one (speed and direction), per second (0: a future standing
    /// still, which tracks best, wins whenever it stays up).
    pub obey: f64,
    /// With a learned tracker: weight of the value its value network falls short of the best
    /// (1 / (1 − γ)) at a future's end, in the future's cost (0: not read).
    pub value: f64,
    /// With a learned tracker: noisy futures played when the plan falls ([`super::rescue`];
    /// 0: none), the seconds between checks of a clip played on, the seconds the noise
    /// plays and its scale (rad).
    pub rescue: usize,
    pub watch: f64,
    pub commit: f64,
    pub scale: f64,
    /// Weight per radian the heading a future ends in is off the asked direction, when the
    /// stick asks for a walk or run: the turn a future has begun, which the mean velocity over
    /// the horizon hardly sees (0: not paid; see the module docs).
    pub aim: f64,
    /// With the rescue: further rounds of as many futures, each at twice the last round's
    /// noise, played only while every future so far still falls ([`super::rescue`]; 0: none;
    /// default 2).
    pub escalate: usize,
    /// With the rescue: when every future of its rounds still falls, a last round of as many
    /// futures in which the stick rests for this many seconds (the body stops, as a person
    /// about to fall does) and then is the asked one again; the controller brakes for as long
    /// when one of them is taken ([`super::rescue`]; 0: none; default 1 s).
    pub brake: f64,
    /// Whether each check carries on the future playback follows (the last check's choice)
    /// when playback did follow it ([`super::carry`]; default 1): 0 plays every future afresh,
    /// the same run bit for bit, slower.
    pub carry: bool,
}

impl Default for GuardSettings {
    fn default() -> Self {
        Self {
            every: 0.1,
            horizon: 2.5,
            candidates: 3,
            obey: 1.0,
            value: 0.05,
            rescue: 16,
            watch: 0.3,
            commit: 0.5,
            scale: 0.2,
            aim: 0.0,
            escalate: 2,
            brake: 1.0,
            carry: true,
        }
    }
}

impl GuardSettings {
    /// The defaults with `NAME=VALUE,...` changed (the names are the fields'); an unknown name
    /// or a bad value is an error that lists the names.
    pub fn parse(text: &str) -> anyhow::Result<Self> {
        let names = "every, horizon, candidates, obey, value, rescue, watch, commit, scale, aim, escalate, brake, carry";
        let mut s = Self::default();
        for (name, value) in super::balance::named_values(text, names)? {
            anyhow::ensure!(
                value > 0.0
                    || (matches!(
                        name,
                        "obey" | "value" | "rescue" | "aim" | "escalate" | "brake" | "carry"
                    ) && value == 0.0),
                "`{name}={value}`: expected a positive number"
            );
            // A count is a whole number: `rescue=0.5` read as 0 would turn the rescue off.
            anyhow::ensure!(
                !matches!(name, "candidates" | "rescue" | "escalate") || value.fract() == 0.0,
                "`{name}={value}`: expected a whole number"
            );
            anyhow::ensure!(
                name != "carry" || value == 1.0 || value == 0.0,
                "`carry={value}`: expected 0 or 1"
            );
            match name {
                "every" => s.every = value,
                "horizon" => s.horizon = value,
                "candidates" => s.candidates = value as usize,
                "obey" => s.obey = value,
                "value" => s.value = value,
                "rescue" => s.rescue = value as usize,
                "watch" => s.watch = value,
                "commit" => s.commit = value,
                "scale" => s.scale = value,
                "aim" => s.aim = value,
                "escalate" => s.escalate = value as usize,
                "brake" => s.brake = value,
                "carry" => s.carry = value == 1.0,
                other => anyhow::bail!("unknown guard setting `{other}` (expected one of {names})"),
            }
        }
        anyhow::ensure!(s.candidates >= 1, "the guard needs at least 1 candidate");
        anyhow::ensure!(
            s.rescue <= 1024,
            "`rescue={}`: at most 1,024 futures a round",
            s.rescue
        );
        anyhow::ensure!(
            s.escalate <= 8,
            "`escalate={}`: at most 8 further rounds (each doubles the noise)",
            s.escalate
        );
        Ok(s)
    }

    /// The steps of `dt` seconds a future is played ahead (the horizon, at least one).
    pub fn steps(&self, dt: f64) -> usize {
        (self.horizon / dt).round().max(1.0) as usize
    }
}

/// The guard's state over a run.
pub struct Guard {
    pub settings: GuardSettings,
    next_decision: f64,
    /// The clips the last decision's future went into by transition before the next decision:
    /// the controller may take those transitions between decisions, no others.
    pub(super) allowed: Vec<usize>,
    /// Futures played so far, decisions that barred something, and decisions where every
    /// future fell.
    pub rollouts: usize,
    pub decisions: usize,
    pub bars: usize,
    pub hopeless: usize,
    /// The next check of a clip played on, rescues tried and rescues that found a better
    /// future ([`super::rescue`]).
    next_watch: f64,
    pub rescues: usize,
    pub rescued: usize,
    /// Rescues that stopped the body (the brake's futures).
    pub brakes: usize,
    /// Steps played ahead, by every future together.
    pub ahead_steps: usize,
    /// The future playback follows (the last check's choice), to carry on at the next
    /// ([`super::carry`]).
    pub(super) kept: Option<Carried>,
}

impl Guard {
    pub fn new(settings: GuardSettings) -> Self {
        Self {
            settings,
            next_decision: 0.0,
            allowed: Vec::new(),
            rollouts: 0,
            decisions: 0,
            bars: 0,
            hopeless: 0,
            next_watch: 0.0,
            rescues: 0,
            rescued: 0,
            brakes: 0,
            ahead_steps: 0,
            kept: None,
        }
    }

    /// After the step at time `t`: sets which transitions `controller` may take in its next
    /// step (with `stick`, `dt` seconds on). `physics` is left as it was.
    pub fn check(
        &mut self,
        t: f64,
        stick: &Stick,
        dt: f64,
        tracker: Option<(&Tracker, &mut TrackerState)>,
        controller: &mut Controller,
        physics: &mut PhysicsPlayback,
    ) {
        if physics.fell_at.is_some() {
            return;
        }
        if self.kept.as_ref().is_some_and(|k| !k.holds(stick)) {
            self.kept = None;
        }
        if t + 1e-9 < self.next_decision {
            // Between decisions: a transition the chosen future did not take waits.
            if let Some(clip) = transition_into(controller, &controller.barred, stick, dt)
                && !self.allowed.contains(&clip)
            {
                let mut barred = match &controller.barred {
                    Barred::Into(c) => c.clone(),
                    _ => Vec::new(),
                };
                barred.push(clip);
                controller.barred = Barred::Into(barred);
            }
            return;
        }
        let Some(first) = transition_into(controller, &Barred::Nothing, stick, dt) else {
            // Nothing to decide: the controller plays on, checked now and then.
            controller.barred = Barred::Nothing;
            self.allowed.clear();
            if let Some((tracker, state)) = tracker
                && self.settings.rescue > 0
                && t + 1e-9 >= self.next_watch
            {
                self.next_watch = t + self.settings.watch;
                let saved = physics.save();
                let now = self.now(physics, controller, Some(&*state));
                let on = Barred::Nothing;
                let ahead = Some((tracker, &*state));
                let (cost, future) = self.play_ahead(
                    t,
                    stick,
                    dt,
                    &on,
                    f64::INFINITY,
                    ahead,
                    controller,
                    physics,
                    now,
                );
                physics.restore(&saved);
                self.kept = Some(future);
                super::rescue::rescue(
                    self, t, stick, dt, &on, cost, tracker, state, controller, physics,
                );
            }
            return;
        };
        self.next_decision = t + self.settings.every;
        self.decisions += 1;
        let saved = physics.save();
        let (tracker, mut state) = match tracker {
            Some((p, s)) => (Some(p), Some(s)),
            None => (None, None),
        };
        let now = self.now(physics, controller, state.as_deref());
        let ahead = tracker.zip(state.as_deref());
        let mut barred: Vec<usize> = Vec::new();
        let mut into = Some(first);
        // (cost, bars, its future)
        let mut best: Option<(f64, Vec<usize>, Carried)> = None;
        for _ in 0..self.settings.candidates.max(1) {
            let bars = Barred::Into(barred.clone());
            let bound = best.as_ref().map_or(f64::INFINITY, |(b, _, _)| *b);
            let (cost, future) =
                self.play_ahead(t, stick, dt, &bars, bound, ahead, controller, physics, now);
            physics.restore(&saved);
            if best.as_ref().is_none_or(|(b, _, _)| cost < *b) {
                best = Some((cost, barred.clone(), future));
            }
            let Some(clip) = into else { break };
            barred.push(clip);
            into = transition_into(controller, &Barred::Into(barred.clone()), stick, dt);
        }
        let (cost, bars, future) = best.expect("at least one candidate");
        // Between decisions the controller may take the transitions its future took then.
        self.allowed = future.entered(self.settings.every);
        self.kept = Some(future);
        if cost >= FALL_COST {
            self.hopeless += 1;
            if let (Some(tracker), Some(state)) = (tracker, state.as_deref_mut()) {
                let plan = match bars.is_empty() {
                    true => Barred::Nothing,
                    false => Barred::Into(bars.clone()),
                };
                super::rescue::rescue(
                    self, t, stick, dt, &plan, cost, tracker, state, controller, physics,
                );
            }
        }
        if !bars.is_empty() {
            self.bars += 1;
        }
        controller.barred = match bars.is_empty() {
            true => Barred::Nothing,
            false => Barred::Into(bars),
        };
    }

    /// Plays the controller (with these bars held) and the simulation the horizon ahead from
    /// time `t`, carrying on the future playback follows when it plays under the same bars and
    /// playback followed it (`now`: the hash of playback's state, [`super::carry::hash`];
    /// `None`: played afresh); the future's cost and the future. Its cost when it stays up: the
    /// tracking cost summed over the horizon plus the obedience term (see the module docs);
    /// when it falls, [`FALL_COST`] plus the seconds it left unplayed. A future that can no
    /// longer beat `bound` (the least cost so far) is stopped early
    /// ([`super::lookahead::loses`]): it returns a cost of at least `bound`.
    #[allow(clippy::too_many_arguments)]
    pub(super) fn play_ahead(
        &mut self,
        t: f64,
        stick: &Stick,
        dt: f64,
        bars: &Barred,
        bound: f64,
        tracker: Option<(&Tracker, &TrackerState)>,
        controller: &Controller,
        physics: &mut PhysicsPlayback,
        now: Option<u64>,
    ) -> (f64, Carried) {
        let mut kept = self.kept.take();
        let carried = match (now, kept.as_mut()) {
            (Some(now), Some(k)) => k.carried_to(t, dt, stick, bars, now),
            _ => false,
        };
        let mut future = match (carried, kept) {
            (true, Some(k)) => k,
            (_, kept) => {
                // Not this future: the kept one stays for the next candidate.
                self.kept = kept;
                let state = tracker.map(|(_, s)| s);
                Carried::new(t, stick, dt, bars, controller, state, physics)
            }
        };
        let steps = self.settings.steps(dt);
        let cost = future.play(steps, bound, self, tracker.map(|(p, _)| p), physics);
        (cost, future)
    }

    /// The hash of playback's state now, when a future is kept to carry on (see
    /// [`super::carry`]).
    fn now(
        &self,
        physics: &PhysicsPlayback,
        controller: &Controller,
        tracking: Option<&TrackerState>,
    ) -> Option<u64> {
        (self.settings.carry && self.kept.is_some())
            .then(|| super::carry::hash(physics, controller, tracking))
    }

    /// The cost of a future that stayed up over `span` seconds from the heading `start` (x, z),
    /// its tracking cost summed so far: plus what the tracker's value network expects from
    /// where it ends (`physics` there) and the obedience terms (see the module docs).
    pub(super) fn finish(
        &self,
        mut cost: f64,
        future: &Future,
        start: [f64; 2],
        span: f64,
        physics: &PhysicsPlayback,
    ) -> f64 {
        // What the tracker's value network expects from the state the future ends in.
        if let (Some((tracker, state)), Some(o)) = (&future.tracking, &future.last)
            && self.settings.value > 0.0
        {
            let seen = observe(physics, o, state);
            let short = (tracker.best_value() - tracker.value(&seen)).max(0.0);
            cost += self.settings.value * short as f64;
        }
        // Obedience: the played motion's mean velocity over the horizon against the asked one
        // (a yaw θ points along (cos θ, −sin θ) in x and z).
        let ahead = &future.controller;
        let end = ahead.heading();
        let asked = ahead.intent.command;
        let (dx, dz) = (
            (end.x - start[0]) / span - asked.speed * asked.direction.cos(),
            (end.z - start[1]) / span + asked.speed * asked.direction.sin(),
        );
        let aim = match asked.speed > 0.1 {
            true => crate::model::planar::wrap_angle(asked.direction - end.yaw).abs(),
            false => 0.0,
        };
        cost + self.settings.obey * span * (dx * dx + dz * dz).sqrt() + self.settings.aim * aim
    }
}

/// A future in play: a copy of the controller (with the bars it plays under) and of the
/// tracker's state, and the output of its last step.
pub(super) struct Future<'a> {
    pub controller: Controller,
    pub tracking: Option<(&'a Tracker, TrackerState)>,
    pub last: Option<Output>,
}

impl Future<'_> {
    /// Plays the controller with `stick` and the simulation one step of `dt` on, to time `at`
    /// (as playback does: the tracker decides, then the body tracks); the step's share of the
    /// tracking cost, `None` when the body fell.
    pub fn step(
        &mut self,
        stick: &Stick,
        dt: f64,
        at: f64,
        physics: &mut PhysicsPlayback,
    ) -> Option<f64> {
        let o = self.controller.step(stick, dt);
        if let Some((tracker, state)) = &mut self.tracking {
            state.play(tracker, at, &o, physics);
        }
        physics.track(at, &o, &mut self.controller, dt);
        if physics.fell_at.is_some() {
            return None;
        }
        let share = dt * super::lookahead::step_cost(physics, &o);
        self.last = Some(o);
        Some(share)
    }
}

/// The time of a future's `i`-th step from `t`: on the grid of `dt` when `t` is (a script's
/// steps, and the app's in physics playback, are at `n·dt`), so that a future and the
/// playback that follows it step at the same times bit for bit ([`super::carry`]);
/// `t + i·dt` otherwise.
pub(super) fn later(t: f64, i: usize, dt: f64) -> f64 {
    let n = (t / dt).round();
    match n * dt == t {
        true => (n + i as f64) * dt,
        false => t + i as f64 * dt,
    }
}

/// The clip a copy of `controller` with these bars goes into by a transition in its next
/// step, if it takes one.
fn transition_into(
    controller: &Controller,
    bars: &Barred,
    stick: &Stick,
    dt: f64,
) -> Option<usize> {
    let mut probe = controller.clone();
    probe.barred = bars.clone();
    let before = probe.transitions_taken;
    probe.step(stick, dt);
    (probe.transitions_taken > before).then(|| probe.current().clip)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn guard_settings_are_parsed_by_name() {
        let s = GuardSettings::parse("horizon=1.0, candidates=4").unwrap();
        assert_eq!((s.horizon, s.candidates), (1.0, 4));
        assert_eq!(s.every, GuardSettings::default().every);
        assert_eq!(GuardSettings::parse("obey=0").unwrap().obey, 0.0);
        assert_eq!(GuardSettings::parse("value=0.2").unwrap().value, 0.2);
        assert_eq!(GuardSettings::parse("value=0").unwrap().value, 0.0);
        let r = GuardSettings::parse("rescue=4,watch=0.5,commit=0.3,scale=0.2").unwrap();
        assert_eq!((r.rescue, r.watch, r.commit, r.scale), (4, 0.5, 0.3, 0.2));
        assert_eq!(GuardSettings::parse("rescue=0").unwrap().rescue, 0);
        assert_eq!(GuardSettings::parse("aim=1.5").unwrap().aim, 1.5);
        assert_eq!(GuardSettings::parse("escalate=2").unwrap().escalate, 2);
        assert_eq!(GuardSettings::parse("escalate=0").unwrap().escalate, 0);
        assert_eq!(GuardSettings::parse("brake=1.5").unwrap().brake, 1.5);
        assert_eq!(GuardSettings::parse("brake=0").unwrap().brake, 0.0);
        assert!(GuardSettings::default().carry);
        assert!(!GuardSettings::parse("carry=0").unwrap().carry);
        let e = GuardSettings::parse("horizn=1").unwrap_err().to_string();
        assert!(
            e.contains("`horizn`") && e.contains("every, horizon"),
            "{e}"
        );
        for bad in [
            "horizon=-1",
            "every=0",
            "candidates=x",
            "every",
            "obey=-1",
            "value=-1",
            "watch=0",
            "scale=-0.1",
            "aim=-1",
            "escalate=-1",
            "escalate=9",
            "rescue=1e20",
            "rescue=0.5",
            "escalate=1.5",
            "brake=-1",
            "candidates=2.5",
            "carry=2",
            "carry=0.5",
        ] {
            assert!(GuardSettings::parse(bad).is_err(), "{bad}");
        }
    }
}
