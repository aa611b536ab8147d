//! Rescue: predictive sampling around the learned tracker, for the moments the guard's plan
//! falls.
//!
//! The guard ([`super::guard`]) chooses among the graph's transitions; on a sparse graph a
//! body can drift, between two transitions or after a change of stick, into a state from which
//! every future the graph offers falls a second or two later. Predictive sampling (Howell et
//! al. 2022, MuJoCo MPC) searches the controls instead: here, as in MPC with a learned policy
//! as the proposal (Lowrey et al. 2019, POLO), a few futures play the tracker with seeded
//! Gaussian noise on its corrections for the first `commit` seconds (the exploration it was
//! trained with, [`super::tracker::Exploration`]) and its mean after; the one that stays up at
//! least cost is played again exactly, seed and all, when it beats the plan.
//!
//! Measured on 40 validation timelines of 30 s (seed 1000, apart from the trials'), with the
//! guard (runs up; mean seconds up): on `human3d.ron` with the character's tracker, without the
//! rescue 5, 13.6 s; 8 futures at 0.1 rad for 0.5 s, 26, 25.6 s; 16 futures, 30; 8 at 0.2 rad,
//! 33, 27.8 s; at 0.3 and 0.5 rad, 31 and 32; noise for 1.0 s, 28; checks every 0.2 s instead
//! of 0.3, 32; 16 futures at 0.2 rad, **37**, 28.8 s; 32, 36. On `human3d_solved.ron` with its
//! own tracker, 36 without, 40 with any of them. The defaults (16 futures, 0.2 rad, 0.5 s,
//! every 0.3 s) cost about 1.45 times as much as 8 futures on the first graph's timelines,
//! where rescues are frequent (8 cost about 6 times the guard alone there, 3.4 times on the
//! second graph's).
//!
//! When every future of the round still falls, a further round of as many futures at twice the
//! noise is played, up to `escalate` rounds (2 by default: 0.4 and then 0.8 rad): a near fall
//! gets a wider search, and a rescue whose first round saves the body plays exactly as without
//! them. On the validation timelines (`human3d.ron`, the character's tracker; seeds 1000 and
//! 2000) one further round kept 38 and 40 of 40 up against 37 and 34 without, at 1.07 times the
//! compute (seed 1000's); two, 38 and 40 again, at 1.2 times. On the full 60 s trials (seed 1:
//! 100 timelines, 32 straight runs, a scripted run) two rounds kept 126 of 133 up on
//! `human3d.ron` against 119 with one, and all 133 on `human3d_solved.ron` with its own tracker
//! against 132.
//!
//! When every future of every round still falls, the brake: a last round of as many futures at
//! the first round's noise in which the stick rests for `brake` seconds and is the asked one
//! after (the controller heads for standing, [`Controller::brake_left`]), as a person about to
//! fall stops; when one of them stays up (or falls last), the controller brakes as long. On
//! P12's trials (seed 1, 60 s, `human3d.ron` with the character's tracker) all seven that fell
//! with three rounds stay up with a brake of 1 s, and 130 of the 133 hold against 126 (three
//! others fall, at 20.0, 40.8 and 50.7 s: the first traced to the guard barring a transition
//! 0.23 s after a brake, see [`super::guard`]); the solved graph's 133 all hold as before,
//! and the pushed walks never brake. With the chosen future's transitions let through, all 133
//! hold on both graphs.

use super::carry::Carried;
use super::controller::Barred;
use super::guard::Guard;
use super::lookahead::FALL_COST;
use super::physics::PhysicsPlayback;
use super::tracker::{Exploration, Tracker, TrackerState};
use super::{Controller, Stick};
use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;

/// The seeded noise of the rescue's `k`-th future decided at time `t`.
fn exploration(t: f64, k: usize, until: f64, scale: f32) -> Exploration {
    let step = (t * 1e3).round() as u64;
    let seed = step.wrapping_mul(0x9E37_79B9_7F4A_7C15) ^ (k as u64 + 1);
    Exploration {
        rng: ChaCha8Rng::seed_from_u64(seed),
        until,
        scale,
    }
}

/// When the plan (these bars, the tracker's state as it is) costs `plan` (a fall when at least
/// [`FALL_COST`]): plays `guard.settings.rescue` noisy futures (and up to `escalate` more
/// rounds of them, at twice the noise each, while every one so far falls) and, when one costs
/// less, sets `state` to play its noise.
#[allow(clippy::too_many_arguments)]
pub fn rescue(
    guard: &mut Guard,
    t: f64,
    stick: &Stick,
    dt: f64,
    bars: &Barred,
    plan: f64,
    tracker: &Tracker,
    state: &mut TrackerState,
    controller: &mut Controller,
    physics: &mut PhysicsPlayback,
) {
    if plan < FALL_COST || guard.settings.rescue == 0 {
        return;
    }
    let s = guard.settings;
    let saved = physics.save();
    let mut best: Option<(f64, usize, Carried)> = None;
    // Round r plays futures r·n .. (r + 1)·n at 2^r times the noise, while every one so far
    // falls; the brake's round, after them, futures k ≥ `braking` at the first round's noise.
    let n = s.rescue;
    let rounds = n * (1 + s.escalate);
    let braking = match s.brake > 0.0 {
        true => rounds,
        false => usize::MAX,
    };
    let noise = |k: usize| {
        let doubled = match k < braking {
            true => 1u32 << (k / n).min(8),
            false => 1,
        };
        exploration(t, k, t + s.commit, (s.scale * f64::from(doubled)) as f32)
    };
    let mut stopping = controller.clone();
    stopping.brake_left = s.brake;
    for k in 0..rounds + if s.brake > 0.0 { n } else { 0 } {
        if k >= n && k % n == 0 && best.as_ref().is_some_and(|(c, _, _)| *c < FALL_COST) {
            break;
        }
        let mut noisy = state.clone();
        noisy.explore = Some(noise(k));
        let bound = best.as_ref().map_or(plan, |(c, _, _)| c.min(plan));
        // Noisy futures are played afresh: playback follows none of them yet.
        let (cost, future) = guard.play_ahead(
            t,
            stick,
            dt,
            bars,
            bound,
            Some((tracker, &noisy)),
            if k < braking { controller } else { &stopping },
            physics,
            None,
        );
        physics.restore(&saved);
        if cost < bound {
            best = Some((cost, k, future));
        }
    }
    guard.rescues += 1;
    let Some((_, k, future)) = best else { return };
    guard.rescued += 1;
    // Playback follows this future now: its transitions before the next decision, and the
    // future itself to carry on.
    guard.allowed = future.entered(s.every);
    guard.kept = Some(future);
    if k >= braking {
        guard.brakes += 1;
        controller.brake_left = s.brake;
    }
    state.explore = Some(noise(k));
}
