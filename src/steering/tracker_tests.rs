//! Tests of the learned tracker ([`super::tracker`]) and its training
//! ([`super::tracker_training`]).

use super::balance::BalanceGains;
use super::physics::{Planning, run_tracked_planned};
use super::tracker::{EpisodeSettings, SCRIPT_RATE, Tracker};
use super::tracker_training::{TrackerCheckpoint, TrainingSettings};
use super::trials::{PlayerModel, random_timeline};
use super::{Controller, Mode};
use crate::learn::ppo::PpoSettings;
use crate::motion_graph::{LoadedGraph, MotionGraph};
use std::sync::Arc;

fn shipped_graph() -> Arc<LoadedGraph> {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("assets/graphs/human3d.ron");
    Arc::new(MotionGraph::load(&path).expect("the shipped graph"))
}

fn small_ppo() -> PpoSettings {
    PpoSettings {
        hidden: vec![16],
        minibatch: 64,
        epochs: 2,
        ..PpoSettings::default()
    }
}

/// A tracker's corrections reach the simulated body, and nothing else does: one whose network
/// puts out zeros plays a timeline exactly as the balance feedback alone (the same fall time and
/// tracking error, bit for bit), and one that bends every joint target by 0.3 rad tracks
/// differently.
#[test]
fn a_tracker_adds_its_corrections_and_nothing_else() {
    let g = shipped_graph();
    let mut checkpoint = TrackerCheckpoint::new(&g, small_ppo(), 1).unwrap();
    let script = random_timeline(5, 4.0, SCRIPT_RATE, &PlayerModel::default());
    let play = |tracker: Option<Tracker>| {
        let mut controller = Controller::new(
            g.clone(),
            Controller::default_start(&g, "stand"),
            Mode::Steer,
        );
        let planning = Planning {
            tracker: tracker.map(Arc::new),
            ..Planning::default()
        };
        run_tracked_planned(
            &mut controller,
            &script,
            BalanceGains::default(),
            planning,
            |_| {},
        )
        .unwrap()
    };
    let alone = play(None);
    let net = &mut checkpoint.learner.policy.mean;
    let last = net.weights.len() - 1;
    net.weights[last].iter_mut().for_each(|w| *w = 0.0);
    let zero = play(Some(checkpoint.tracker()));
    assert_eq!(zero.fell_at, alone.fell_at);
    assert_eq!(zero.joint_error.to_bits(), alone.joint_error.to_bits());
    let net = &mut checkpoint.learner.policy.mean;
    net.biases[last].iter_mut().for_each(|b| *b = 0.3);
    let bent = play(Some(checkpoint.tracker()));
    assert!(
        (bent.joint_error - alone.joint_error).abs() > 0.05,
        "bent by 0.3 rad: joint error {} against {}",
        bent.joint_error,
        alone.joint_error
    );
    // The mean absolute error is positive and never above the RMS of the same differences.
    for r in [&alone, &bent] {
        assert!(
            r.joint_mean_error > 0.0 && r.joint_mean_error <= r.joint_error,
            "mean {} against RMS {}",
            r.joint_mean_error,
            r.joint_error
        );
    }
}

/// A checkpoint that does not fit the character is refused by its file name, not played: one
/// trained for another number of observations, and one whose weights were cut short.
#[test]
fn a_tracker_that_does_not_fit_is_refused_by_name() {
    let g = shipped_graph();
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("other.control.ron");
    let mut other = TrackerCheckpoint::new(&g, small_ppo(), 1).unwrap();
    let actions = other.learner.policy.mean.outputs();
    other.learner = crate::learn::ppo::Learner::new(10, actions, small_ppo(), 1);
    other.save(&path).unwrap();
    let e = format!("{:#}", TrackerCheckpoint::load(&path, &g).unwrap_err());
    assert!(e.contains("other.control.ron") && e.contains("10"), "{e}");
    let mut cut = TrackerCheckpoint::new(&g, small_ppo(), 1).unwrap();
    cut.learner.policy.mean.biases[0].pop();
    cut.save(&path).unwrap();
    let e = format!("{:#}", TrackerCheckpoint::load(&path, &g).unwrap_err());
    assert!(
        e.contains("other.control.ron") && e.contains("sizes"),
        "{e}"
    );
}

/// A training stopped after one iteration, saved, read back and continued makes the same
/// learner, bit for bit, as one that ran both iterations at once, on one thread or two.
#[test]
fn training_resumes_with_the_same_bits_on_any_number_of_threads() {
    let g = shipped_graph();
    let settings = TrainingSettings {
        samples: 120,
        episode: EpisodeSettings {
            duration: 2.0,
            ..EpisodeSettings::default()
        },
    };
    let pool = |n| {
        rayon::ThreadPoolBuilder::new()
            .num_threads(n)
            .build()
            .unwrap()
    };
    let mut straight = TrackerCheckpoint::new(&g, small_ppo(), 3).unwrap();
    pool(1).install(|| {
        straight.iterate(&g, &settings).unwrap();
        straight.iterate(&g, &settings).unwrap();
    });
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("h.control.ron");
    let mut first = TrackerCheckpoint::new(&g, small_ppo(), 3).unwrap();
    pool(2).install(|| first.iterate(&g, &settings).unwrap());
    first.save(&path).unwrap();
    let mut resumed = TrackerCheckpoint::load(&path, &g).unwrap();
    assert_eq!(resumed, first, "the checkpoint reads back as written");
    pool(2).install(|| resumed.iterate(&g, &settings).unwrap());
    assert_eq!(resumed.learner, straight.learner);
    assert_eq!(resumed.history, straight.history);
    assert!(straight.learner.samples >= 240);
}

/// Training episodes' scripts: about a `steady_share` of them hold each stick setting 6–20 s,
/// and pushes come at `push_interval` seconds on average, none in the first second, each
/// horizontal and within the training range.
#[test]
fn training_episodes_hold_steady_walks_and_push() {
    use super::tracker::{PUSH_IMPULSE, STEADY_HOLD, episode_script};
    let settings = EpisodeSettings::default();
    let (mut steady, mut pushes) = (0, 0);
    let runs = 400;
    for seed in 0..runs {
        let s = episode_script(&settings, (1 << 32) + seed);
        let gaps: Vec<f64> = s.keys.windows(2).map(|w| w[1].time - w[0].time).collect();
        if gaps.iter().any(|&g| g > 4.0 + 1e-9) {
            assert!(gaps.iter().all(|&g| g >= STEADY_HOLD.0 - 1e-9), "{gaps:?}");
            steady += 1;
        }
        for p in &s.pushes {
            assert!(p.time >= 1.0 && p.time < settings.duration);
            let j = p.impulse[0].hypot(p.impulse[2]);
            assert!(
                p.impulse[1] == 0.0 && j >= PUSH_IMPULSE.0 - 1e-9 && j <= PUSH_IMPULSE.1 + 1e-9
            );
        }
        pushes += s.pushes.len();
    }
    let share = steady as f64 / runs as f64;
    // A steady timeline of one 20 s hold has no gap to see: the share seen is a little lower.
    assert!((0.15..=0.30).contains(&share), "steady share {share}");
    let interval = runs as f64 * (settings.duration - 1.0) / pushes as f64;
    assert!(
        (4.5..=5.5).contains(&interval),
        "mean push interval {interval}"
    );
    let calm = EpisodeSettings {
        push_interval: 0.0,
        ..EpisodeSettings::default()
    };
    assert!(episode_script(&calm, 1 << 32).pushes.is_empty());
}

/// The velocity a tracker sees and is paid to match is the played clip's own, not the pace of a
/// reference that follows the body: a 1.0 m/s walk played over a body that starts at rest shows
/// about 1.0 m/s while the reference itself, held back by the body, moves much slower.
#[test]
fn the_played_velocity_is_the_clips_own() {
    use super::physics::PhysicsPlayback;
    use super::trials::PUSH_WALK_STICK;
    let g = shipped_graph();
    let (mut controller, script) = walking(&g, (PUSH_WALK_STICK, 0.0), 1.0);
    let gains = BalanceGains::default();
    let mut physics = PhysicsPlayback::start(&mut controller, &script, gains, false).unwrap();
    let dt = 1.0 / SCRIPT_RATE;
    let (mut played, mut reference, mut n) = (0.0, 0.0, 0);
    let mut last_root: Option<[f64; 2]> = None;
    for i in 1..=30 {
        let t = i as f64 * dt;
        let out = controller.step(&script.stick_at(t), dt);
        let v = physics.played_velocity(t, &out);
        let root = [out.pose.root[0], out.pose.root[2]];
        if let Some(last) = last_root
            && i > 3
        {
            played += v[0].hypot(v[2]);
            reference += (root[0] - last[0]).hypot(root[1] - last[1]) / dt;
            n += 1;
        }
        last_root = Some(root);
        physics.track(t, &out, &mut controller, dt);
    }
    let (played, reference) = (played / n as f64, reference / n as f64);
    assert!((0.8..=1.2).contains(&played), "played {played} m/s");
    assert!(reference < 0.7, "the reference itself {reference} m/s");
}

/// The shipped tracker holds P12's pushed walks: the 1.0 m/s walk east pushed once on the pelvis
/// by 20 N·s from 8 directions, at 5 seeded phases of the stride each, stays up (at least 95 %
/// of the 40, the acceptance bar), where the balance feedback alone holds none (its walk falls
/// by itself).
#[test]
fn the_shipped_tracker_holds_pushed_walks() {
    use super::trials::{push_walks, run_trials};
    let g = shipped_graph();
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("assets/trackers/human3d.control.ron");
    let tracker = TrackerCheckpoint::load(&path, &g).expect("the shipped tracker");
    let walks = push_walks(20.0, 8, 5, 1, 12.0, SCRIPT_RATE);
    let up = |planning: Planning| {
        run_trials(&g, &walks, Some(BalanceGains::default()), planning, None)
            .unwrap()
            .iter()
            .filter(|o| o.fell_at.is_none())
            .count()
    };
    let tracked = up(Planning {
        tracker: Some(Arc::new(tracker.tracker())),
        ..Planning::default()
    });
    let alone = up(Planning::default());
    assert!(
        tracked >= 38,
        "{tracked} of 40 pushed walks up with the tracker"
    );
    assert!(alone <= 4, "{alone} of 40 up with the feedback alone");
}

/// The guard's futures play the tracker and read its value network, and leave the run as they
/// found it: with a single candidate (the controller's own choice, nothing barred) decided at
/// every step, a guarded
/// timeline is the unguarded one bit for bit, the futures' tracker decisions and all. With the
/// defaults, the guard keeps player timelines up longer than the shipped tracker alone (10
/// timelines of 20 s: 11.5 s against 7.1 s on 2026-12-05) without giving up the stick to do it
/// (the played motion's speed no further from the asked one).
#[test]
fn the_guard_plays_the_tracker_ahead_and_keeps_timelines_up_longer() {
    use super::guard::GuardSettings;
    use super::trials::run_trials;
    let g = shipped_graph();
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("assets/trackers/human3d.control.ron");
    let tracker = Arc::new(TrackerCheckpoint::load(&path, &g).unwrap().tracker());
    let timelines: Vec<_> = (1000..1010)
        .map(|seed| {
            let script = random_timeline(seed, 20.0, SCRIPT_RATE, &PlayerModel::default());
            (format!("timeline_{seed}"), script)
        })
        .collect();
    let run = |guard: Option<GuardSettings>, timelines: &[(String, _)]| {
        let planning = Planning {
            tracker: Some(tracker.clone()),
            guard,
            ..Planning::default()
        };
        run_trials(&g, timelines, Some(BalanceGains::default()), planning, None).unwrap()
    };
    let alone = run(None, &timelines);
    // Deciding at every step: no transition waits for a decision.
    let single = GuardSettings {
        candidates: 1,
        every: 0.001,
        rescue: 0,
        ..GuardSettings::default()
    };
    let same = run(Some(single), &timelines[..2]);
    for (a, b) in alone.iter().zip(&same) {
        assert_eq!(a.fell_at, b.fell_at, "{}", a.name);
        assert_eq!(
            a.joint_error.to_bits(),
            b.joint_error.to_bits(),
            "{}",
            a.name
        );
    }
    let guarded = run(Some(GuardSettings::default()), &timelines);
    let mean = |o: &[super::trials::TrialOutcome], f: fn(&super::trials::TrialOutcome) -> f64| {
        o.iter().map(f).sum::<f64>() / o.len() as f64
    };
    let (up_alone, up_guarded) = (
        mean(&alone, |o| o.seconds_up()),
        mean(&guarded, |o| o.seconds_up()),
    );
    assert!(
        up_guarded >= up_alone + 2.5,
        "mean seconds up: {up_guarded:.2} with the guard, {up_alone:.2} without"
    );
    let (obey_alone, obey_guarded) = (
        mean(&alone, |o| o.speed_error),
        mean(&guarded, |o| o.speed_error),
    );
    assert!(
        obey_guarded <= obey_alone + 0.1,
        "mean |speed − asked|: {obey_guarded:.2} m/s with the guard, {obey_alone:.2} without"
    );
}

/// The solved graph's own tracker (`assets/trackers/human3d_solved.control.ron`, trained on it)
/// walks at the asked pace where the character's (trained on `human3d.ron`) lags: full-stick
/// walks in 8 directions, 20 s each, with the guard, all stay up with either, and the played
/// motion's speed is closer to the asked 1.4 m/s with the graph's own (2026-12-06: mean
/// |speed − asked| 0.34 m/s against 0.78). The trackers are compared under the guard's single
/// round of rescue futures: its further rounds (`escalate`) also save some of the character's
/// tracker's stumbles, which then keep nearer the pace (0.51 m/s with one further round).
#[test]
fn the_solved_graphs_tracker_walks_at_the_asked_pace() {
    use super::guard::GuardSettings;
    use super::trials::{run_trials, straight_runs};
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    let g = Arc::new(MotionGraph::load(&root.join("assets/graphs/human3d_solved.ron")).unwrap());
    let walks: Vec<_> = straight_runs(8, 20.0, SCRIPT_RATE)
        .into_iter()
        .filter(|(name, _)| name.starts_with("walk"))
        .collect();
    let run = |file: &str| {
        let tracker = TrackerCheckpoint::load(&root.join(file), &g)
            .unwrap()
            .tracker();
        let planning = Planning {
            tracker: Some(Arc::new(tracker)),
            guard: Some(GuardSettings {
                escalate: 0,
                ..GuardSettings::default()
            }),
            ..Planning::default()
        };
        let outcomes =
            run_trials(&g, &walks, Some(BalanceGains::default()), planning, None).unwrap();
        let fell: Vec<_> = outcomes.iter().filter(|o| o.fell_at.is_some()).collect();
        assert!(fell.is_empty(), "{file}: {fell:?}");
        outcomes.iter().map(|o| o.speed_error).sum::<f64>() / outcomes.len() as f64
    };
    let own = run("assets/trackers/human3d_solved.control.ron");
    let character = run("assets/trackers/human3d.control.ron");
    assert!(
        own <= 0.5 && own <= character - 0.2,
        "mean |speed − asked|: {own:.2} m/s with the graph's tracker, {character:.2} with the character's"
    );
}

/// 20 s of P12's player timelines of these seeds played on `graph` (a file of assets/graphs)
/// with `tracker` (one of assets/trackers) and the default guard: each run's outcome.
fn guarded_timelines(
    graph: &str,
    tracker: &str,
    seeds: &[u64],
) -> Vec<super::trials::TrialOutcome> {
    use super::guard::GuardSettings;
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    let g = Arc::new(MotionGraph::load(&root.join("assets/graphs").join(graph)).unwrap());
    let path = root.join("assets/trackers").join(tracker);
    let tracker = Arc::new(TrackerCheckpoint::load(&path, &g).unwrap().tracker());
    let timelines: Vec<_> = seeds
        .iter()
        .map(|&seed| {
            let script = random_timeline(seed, 20.0, SCRIPT_RATE, &PlayerModel::default());
            (format!("timeline_{seed}"), script)
        })
        .collect();
    let planning = Planning {
        tracker: Some(tracker),
        guard: Some(GuardSettings::default()),
        ..Planning::default()
    };
    super::trials::run_trials(
        &g,
        &timelines,
        Some(BalanceGains::default()),
        planning,
        None,
    )
    .unwrap()
}

/// The runs of `outcomes` that fell, and when.
fn falls(outcomes: &[super::trials::TrialOutcome]) -> Vec<(&str, f64)> {
    outcomes
        .iter()
        .filter_map(|o| o.fell_at.map(|t| (o.name.as_str(), t)))
        .collect()
}

/// The guard's rescue (predictive sampling around the tracker, [`super::rescue`]) keeps up the
/// player timelines the guard alone lets fall: on the solved graph with its own tracker, six
/// timelines of 20 s whose bodies fell under the guard without the rescue at 9.9–18.7 s
/// (2026-12-06: seeds 9, 11, 25, 30, 36 and 74 of P12's trials) stay up with it, each rescued
/// where its plan fell (a chaotic run may take another path on another machine's arithmetic:
/// one fall of six is allowed, and at least one rescue).
#[test]
fn the_rescue_keeps_up_what_the_guard_alone_lets_fall() {
    use super::guard::GuardSettings;
    assert!(
        GuardSettings::default().rescue > 0,
        "the rescue is on by default"
    );
    let outcomes = guarded_timelines(
        "human3d_solved.ron",
        "human3d_solved.control.ron",
        &[9, 11, 25, 30, 36, 74],
    );
    let fell = falls(&outcomes);
    let rescues: usize = outcomes.iter().map(|o| o.rescues).sum();
    assert!(fell.len() <= 1, "fell with the rescue: {fell:?}");
    assert!(rescues >= 1, "no rescue was played");
}

/// The guard's brake: where every future of the rescue's three rounds falls, a last round
/// stops the body (the stick at rest for a second) and plays the one that stays up. On the
/// default graph with the character's tracker, P12's timelines 11 and 14 (seed 1) reach such
/// moments twice each in their first 20 s (2026-12-07); with the brake both stay up, stopped
/// at least once (a chaotic run may take another path on another machine's arithmetic: one
/// fall of the two is allowed, and at least one stop). (Timelines 5 and 74, which fell at
/// 16.1 s with the three rounds, are no longer stopped in their first 20 s since the guard
/// plays the chosen future's transitions between decisions.)
#[test]
fn the_brake_keeps_up_what_every_rescue_future_lets_fall() {
    use super::guard::GuardSettings;
    assert!(
        GuardSettings::default().brake > 0.0,
        "the brake is on by default"
    );
    let outcomes = guarded_timelines("human3d.ron", "human3d.control.ron", &[11, 14]);
    let fell = falls(&outcomes);
    let brakes: usize = outcomes.iter().map(|o| o.brakes).sum();
    let rescues: usize = outcomes.iter().map(|o| o.rescues).sum();
    assert!(fell.len() <= 1, "fell with the brake: {fell:?}");
    assert!(brakes >= 1, "the brake never stopped the body");
    assert!(brakes <= rescues, "{brakes} stops of {rescues} rescues");
}

/// The reference's heading follows the body's with its own half-life: at the place's (the
/// default) a turn the stick asks for is taken back into the body's heading within a step or
/// two, so a tracker never sees it; with a slow one it leads the body by the turn still to
/// make, which a tracker trained with it is paid to close. Walking east, the stick held north
/// for 0.5 s with the balance feedback alone: the played pelvis's yaw off the simulated one's.
#[test]
fn a_slow_heading_follow_lets_the_asked_turn_lead_the_body() {
    use super::physics::PhysicsPlayback;
    use super::trials::PUSH_WALK_STICK;
    let g = shipped_graph();
    let lead = |heading_follow: f64| {
        let (mut controller, script) = walking(&g, (0.0, PUSH_WALK_STICK), 0.5);
        let gains = BalanceGains {
            heading_follow,
            ..BalanceGains::default()
        };
        let mut physics = PhysicsPlayback::start(&mut controller, &script, gains, true).unwrap();
        let yaw = |p: [f64; 7]| {
            let f = crate::clip::pose::quat_of(&p) * nalgebra::Vector3::x();
            (-f.z).atan2(f.x)
        };
        let dt = 1.0 / SCRIPT_RATE;
        let mut gap = 0.0;
        for i in 1..=30 {
            let t = i as f64 * dt;
            let out = controller.step(&script.stick_at(t), dt);
            physics.track(t, &out, &mut controller, dt);
            let body = physics.sim.body_pose(physics.root_body()).map(|v| v as f64);
            let d = yaw(out.pose.root) - yaw(body);
            gap = f64::max(gap, d.sin().atan2(d.cos()).to_degrees().abs());
        }
        assert!(physics.fell_at.is_none());
        gap
    };
    let fast = lead(BalanceGains::default().follow);
    let slow = lead(0.3);
    println!("largest lead at the place's half-life {fast:.2}°, at 0.3 s {slow:.2}°");
    assert!(fast < 4.0, "{fast}°");
    // Measured here 2.4° and 9.1°: the bar leaves room for other machines' arithmetic.
    assert!(slow > fast + 4.0, "{slow}° against {fast}°");
}

/// A checkpoint written before the heading had its own half-life reads with the place's, and a
/// tracker plays with the one it was trained with whatever the playback's gains say.
#[test]
fn a_tracker_plays_with_the_heading_follow_it_was_trained_with() {
    use super::physics::PhysicsPlayback;
    let g = shipped_graph();
    let mut checkpoint = TrackerCheckpoint::new(&g, small_ppo(), 1).unwrap();
    assert_eq!(checkpoint.heading_follow, BalanceGains::default().follow);
    checkpoint.heading_follow = 0.2;
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("t.control.ron");
    checkpoint.save(&path).unwrap();
    let text = std::fs::read_to_string(&path).unwrap();
    assert!(text.contains("heading_follow: 0.2"), "written");
    let older: Vec<&str> = text
        .lines()
        .filter(|l| !l.trim_start().starts_with("heading_follow:"))
        .collect();
    std::fs::write(&path, older.join("\n")).unwrap();
    let read = TrackerCheckpoint::load(&path, &g).unwrap();
    assert_eq!(read.heading_follow, BalanceGains::default().follow);
    let tracker = checkpoint.tracker();
    let (mut controller, script) = walking(&g, (0.0, 0.0), 0.1);
    let mut physics =
        PhysicsPlayback::start(&mut controller, &script, BalanceGains::default(), false).unwrap();
    let out = controller.step(&script.stick_at(1.0 / SCRIPT_RATE), 1.0 / SCRIPT_RATE);
    super::tracker::TrackerState::default().play(&tracker, 1.0 / SCRIPT_RATE, &out, &mut physics);
    assert_eq!(physics.gains.heading_follow, 0.2);
}

/// A controller at the first frame of the shipped graph's 1.0 m/s walk, and a script holding
/// the stick at `movement` for `duration` seconds.
fn walking(
    g: &Arc<LoadedGraph>,
    movement: (f64, f64),
    duration: f64,
) -> (Controller, super::script::StickScript) {
    use super::script::{StickKey, StickScript};
    use crate::motion_graph::FrameRef;
    let clip = g
        .graph
        .clips
        .iter()
        .position(|c| c.name == "gait=walk1.0_turn=0")
        .expect("the shipped graph's 1.0 m/s walk");
    let controller = Controller::new(g.clone(), FrameRef { clip, frame: 0 }, Mode::Steer);
    let script = StickScript {
        keys: vec![StickKey {
            time: 0.0,
            movement,
            facing: None,
            run: false,
        }],
        duration,
        rate: SCRIPT_RATE,
        pushes: Vec::new(),
    };
    (controller, script)
}

/// What the guard judged is what is played: between two decisions the controller takes the
/// transitions the chosen future took, and no others (the guard once let through only the
/// first transition of the decision's best candidate, also when a rescue had chosen another
/// future, such as a brake's stop). `timeline_11` and `timeline_14` of `human3d.ron` (each
/// stopped twice by the brake in its first 20 s), 20 s with the tracker and the default
/// guard: over every window between decisions with the stick held, the clips entered are the
/// chosen future's.
#[test]
fn between_decisions_the_body_plays_the_future_the_guard_chose() {
    let compared: usize = [11, 14].into_iter().map(windows_played_as_chosen).sum();
    assert!(compared >= 20, "{compared} windows compared");
}

/// [`between_decisions_the_body_plays_the_future_the_guard_chose`] on the timeline of this
/// seed: asserts each window and returns how many were compared.
fn windows_played_as_chosen(seed: u64) -> usize {
    let g = shipped_graph();
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    let path = root.join("assets/trackers/human3d.control.ron");
    let tracker = TrackerCheckpoint::load(&path, &g).unwrap().tracker();
    let script = random_timeline(seed, 20.0, SCRIPT_RATE, &PlayerModel::default());
    let mut controller = Controller::new(
        g.clone(),
        Controller::default_start(&g, "stand"),
        Mode::Steer,
    );
    let planning = Planning {
        tracker: Some(Arc::new(tracker)),
        guard: Some(Default::default()),
        ..Planning::default()
    };
    let dt = 1.0 / SCRIPT_RATE;
    // The window open since the last decision: its stick, the chosen future's clips, the
    // clips entered so far.
    let mut window: Option<(super::Stick, Vec<usize>, Vec<usize>)> = None;
    let (mut compared, mut taken, mut decisions) = (0, 0, 0);
    let on_step = |s: &super::physics::Step<'_>| {
        let guard = s.guard.expect("a guard plays");
        if s.physics.fell_at.is_some() {
            return;
        }
        if s.controller.transitions_taken > taken
            && let Some((_, _, entered)) = &mut window
        {
            entered.push(s.controller.current().clip);
        }
        taken = s.controller.transitions_taken;
        let stick = script.stick_at(s.time + dt);
        if guard.decisions > decisions {
            if let Some((held, planned, entered)) = window.take()
                && held == stick
            {
                assert_eq!(
                    entered, planned,
                    "at {:.2} s: the clips entered since the last decision",
                    s.time
                );
                compared += 1;
            }
            window = Some((stick, guard.allowed.clone(), Vec::new()));
        }
        decisions = guard.decisions;
    };
    run_tracked_planned(
        &mut controller,
        &script,
        BalanceGains::default(),
        planning,
        on_step,
    )
    .unwrap();
    compared
}

/// Carrying the chosen future on from one check of the guard to the next ([`super::carry`])
/// changes the compute and nothing else: a timeline of `human3d.ron` with the character's
/// tracker, the guard, its decisions, watch and rescue plays the same, bit for bit (the
/// simulated pelvis at every step, the rescues, the brakes, the tracking errors), with fewer
/// steps played ahead.
#[test]
fn carrying_the_chosen_future_on_plays_the_same_run_with_fewer_steps_ahead() {
    use super::guard::GuardSettings;
    let g = shipped_graph();
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    let path = root.join("assets/trackers/human3d.control.ron");
    let tracker = Arc::new(TrackerCheckpoint::load(&path, &g).unwrap().tracker());
    let script = random_timeline(11, 20.0, SCRIPT_RATE, &PlayerModel::default());
    let run = |carry: bool| {
        let mut controller = Controller::new(
            g.clone(),
            Controller::default_start(&g, "stand"),
            Mode::Steer,
        );
        let planning = Planning {
            tracker: Some(tracker.clone()),
            guard: Some(GuardSettings {
                carry,
                ..GuardSettings::default()
            }),
            ..Planning::default()
        };
        let mut pelvis: Vec<[u32; 7]> = Vec::new();
        let report = run_tracked_planned(
            &mut controller,
            &script,
            BalanceGains::default(),
            planning,
            |s| {
                let p = s.physics;
                pelvis.push(p.sim.body_pose(p.root_body()).map(f32::to_bits))
            },
        )
        .unwrap();
        (report, pelvis)
    };
    let (carried, carried_pelvis) = run(true);
    let (afresh, afresh_pelvis) = run(false);
    assert_eq!(carried_pelvis.len(), afresh_pelvis.len());
    let first_apart = carried_pelvis
        .iter()
        .zip(&afresh_pelvis)
        .position(|(a, b)| a != b);
    assert_eq!(first_apart, None, "the pelvis apart from this step on");
    let facts = |r: &super::physics::TrackingReport| {
        (
            r.fell_at.map(f64::to_bits),
            r.rescues,
            r.brakes,
            r.rollouts,
            r.joint_error.to_bits(),
            r.root_error.to_bits(),
        )
    };
    assert_eq!(facts(&carried), facts(&afresh));
    assert!(carried.rescues >= 1, "no rescue to compare");
    assert!(
        carried.ahead_steps < afresh.ahead_steps,
        "{} steps played ahead carrying on, {} afresh",
        carried.ahead_steps,
        afresh.ahead_steps
    );
}
