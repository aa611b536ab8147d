//! The steering controller on the shipped human graph (issue P6's acceptance): a scripted run
//! (from standing, walk north, run east, stop: back to standing) measured as a player would
//! judge it, and the graph itself.

use motionlab::motion_graph::MotionGraph;
use motionlab::steering::spring::wrap_angle;
use motionlab::steering::{Controller, Mode, StickScript, run_script};
use std::path::Path;
use std::sync::Arc;

fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

/// The largest change of a joint coordinate between two 1/60 s steps, transitions included
/// (rad): the bound the run keeps to. The solved clips themselves turn an ankle by up to
/// 0.36 rad in 1/60 s around lift-off (30 frames per stride), the stop's swinging foot by 0.36;
/// the run measures 0.35.
const JOINT_JUMP_BOUND: f64 = 0.5;

/// The largest slide of a planted foot in one step (m): issue P6's bound. The run measures
/// 1.7 cm in the first step out of the start and 0.3–0.5 cm per step while a clip plays.
const SLIDE_BOUND: f64 = 0.02;

#[test]
fn the_scripted_run_follows_the_commands_without_sliding_or_popping() {
    let graph = Arc::new(MotionGraph::load(&root().join("assets/graphs/human3d.ron")).unwrap());
    let script = StickScript::load(&root().join("tests/data/steer_north_east.ron")).unwrap();
    let start = Controller::default_start(&graph, "stand");
    let mut controller = Controller::new(graph.clone(), start, Mode::Steer);
    let trace = run_script(&mut controller, &script, |_, _, _| {});
    // It starts standing (the solved start takes it into the 0.6 m/s walk).
    assert_eq!(graph.graph.clips[start.clip].family, "stand");
    // The commands: (from, to, direction, speed); the stop at 10 s goes through the solved stop
    // into standing.
    let segments = [
        (0.0, 5.0, 90f64.to_radians(), 1.4),
        (5.0, 10.0, 0.0, 2.6),
        (10.0, 14.0, 0.0, 0.0),
    ];
    for (t0, t1, direction, speed) in segments {
        let samples: Vec<_> = trace
            .samples
            .iter()
            .filter(|s| s.time >= t0 && s.time < t1)
            .collect();
        assert!(
            samples
                .iter()
                .all(|s| (s.command_speed - speed).abs() < 1e-9)
        );
        if speed > 0.0 {
            // Within 10° of the command 1.5 s after it, and from then on.
            let mut worst: f64 = 0.0;
            for s in samples.iter().filter(|s| s.time >= t0 + 1.5) {
                let err = wrap_angle(s.direction - direction).abs().to_degrees();
                worst = worst.max(err);
                assert!(
                    err <= 10.0,
                    "at {:.2} s the heading is {err:.1}° off the command (segment from {t0} s)",
                    s.time
                );
            }
            eprintln!(
                "segment from {t0} s: heading within {worst:.1}° from {} s",
                t0 + 1.5
            );
        }
        // Within 0.2 m/s of the commanded speed once reached (within 0.1 m/s: passing through
        // 1.2 m/s while still speeding up to 1.4 has not reached it), for the rest of the
        // segment.
        let reached = samples
            .iter()
            .position(|s| (s.speed - speed).abs() <= 0.1)
            .unwrap_or_else(|| panic!("the speed never reaches {speed} m/s after {t0} s"));
        for s in &samples[reached..] {
            assert!(
                (s.speed - speed).abs() <= 0.2,
                "at {:.2} s the speed is {:.2} m/s against {speed}",
                s.time,
                s.speed
            );
        }
        eprintln!(
            "segment from {t0} s: speed {speed} reached at {:.2} s",
            samples[reached].time
        );
    }
    // And it ends standing.
    let last = trace.samples.last().unwrap();
    assert_eq!(
        graph.graph.clips[controller.current().clip].family,
        "stand",
        "at {:.2} s",
        last.time
    );
    let worst = trace.foot_slides.iter().map(|s| s.1).fold(0.0, f64::max);
    eprintln!(
        "{} steps, worst slide {worst:.4} m, largest joint jump {:.3} rad, root turn {:.3} rad, {} transitions",
        trace.foot_slides.len(),
        trace.max_joint_jump,
        trace.max_root_turn,
        trace.transitions
    );
    assert!(trace.foot_slides.len() >= 10, "the feet step");
    assert!(worst <= SLIDE_BOUND, "a planted foot slides {worst} m");
    assert!(
        trace.max_joint_jump <= JOINT_JUMP_BOUND,
        "a joint jumps {} rad between two frames",
        trace.max_joint_jump
    );
    assert!(trace.transitions >= 3, "the run changes clips");
}

/// Every clip of the shipped set is in the graph's largest strongly connected component, or the
/// graph says why not; the graph walks forever at random without a dead end.
#[test]
fn the_shipped_graph_is_strongly_connected_and_walks_forever() {
    let graph = Arc::new(MotionGraph::load(&root().join("assets/graphs/human3d.ron")).unwrap());
    let g = &graph.graph;
    assert!(g.clips.len() >= 19, "{} clips", g.clips.len());
    for (i, c) in g.clips.iter().enumerate() {
        let pruned = g.pruned.iter().find(|p| p.name == c.name);
        let used = g
            .transitions
            .iter()
            .any(|t| t.from.clip == i || t.to.clip == i);
        match pruned {
            Some(p) => assert!(!p.reason.is_empty() && !used),
            None => assert!(used, "clip {} is kept but joined by nothing", c.name),
        }
    }
    // Every clip is kept: standing, joined to the walks only by the solved start and stop
    // (no blend joins a frame at rest with a moving one), the walks and the run.
    assert!(g.pruned.is_empty(), "{:?}", g.pruned);
    let stand = g.clips.iter().position(|c| c.family == "stand").unwrap();
    for t in g
        .transitions
        .iter()
        .filter(|t| t.from.clip == stand || t.to.clip == stand)
    {
        assert!(t.exact, "a blend joins standing: {t:?}");
    }
    for family in ["stand", "start", "stop", "walk", "run"] {
        assert!(
            g.clips
                .iter()
                .enumerate()
                .any(|(i, c)| c.family == family && graph.kept(i)),
            "no {family} clip in the graph"
        );
    }
    let mut clips = std::collections::BTreeSet::new();
    let taken = random_walk(&graph, 7, 60, |clip| {
        clips.insert(clip);
    });
    assert!(
        taken > 20 && clips.len() > 5,
        "{taken} transitions, {} clips",
        clips.len()
    );
}

/// Issue P6's physically valid transitions: the shipped graph changes turn rate at every walking
/// speed and in the run through connecting clips solved with the gait NLP (feasible and audited
/// to 1e-6 in the space's manifest). Each is entered only from its own first frames, exactly,
/// and left only at its end into the gait it joins (no blend into or out of its middle).
#[test]
fn the_shipped_graph_turns_through_solved_connections() {
    use motionlab::space::generate::{Manifest, Outcome};
    let graph = Arc::new(MotionGraph::load(&root().join("assets/graphs/human3d.ron")).unwrap());
    let g = &graph.graph;
    let text =
        std::fs::read_to_string(root().join("assets/spaces/human3d_locomotion/space.ron")).unwrap();
    let manifest: Manifest = ron::from_str(&text).unwrap();
    let turns: Vec<usize> = (0..g.clips.len())
        .filter(|&i| g.clips[i].family == "turn")
        .collect();
    // 0 ↔ ±45 °/s at 0.6, 1.0 and 1.4 m/s and in the run, ±45 ↔ ±90 °/s in the walks.
    assert!(turns.len() >= 28, "{} turns", turns.len());
    for &i in &turns {
        let c = &g.clips[i];
        assert!(graph.kept(i), "{} is pruned", c.name);
        let joins = c.joins.as_ref().unwrap();
        let entry = manifest.entries.iter().find(|e| e.stem == c.name);
        match entry.map(|e| &e.outcome) {
            Some(Outcome::Solved {
                max_violation,
                audit,
                ..
            }) => assert!(
                *max_violation <= 1e-6 && *audit <= 1e-6,
                "{}: violation {max_violation:e}, audit {audit:e}",
                c.name
            ),
            other => panic!("{}: {other:?}", c.name),
        }
        let into: Vec<_> = g.transitions.iter().filter(|t| t.to.clip == i).collect();
        let from = g.clips.iter().position(|o| o.name == joins.from).unwrap();
        assert!(
            into.len() == 1 && into[0].exact && into[0].from.clip == from,
            "{}: entered by {into:?}",
            c.name
        );
        assert!(
            g.transitions.iter().all(|t| t.from.clip != i),
            "{}: left before its end",
            c.name
        );
        let end = motionlab::motion_graph::continuation(
            &g.clips,
            motionlab::motion_graph::FrameRef {
                clip: i,
                frame: c.frames - 1,
            },
        )
        .unwrap();
        assert_eq!(
            g.clips[end.0.clip].name, joins.to,
            "{} ends elsewhere",
            c.name
        );
    }
    let exact = g.transitions.iter().filter(|t| t.exact).count();
    eprintln!(
        "{} turns; {exact} of {} transitions exact",
        turns.len(),
        g.transitions.len()
    );
}

/// Issue P6's deliverable 4 in full: the graph of solved motions only
/// (`assets/graphs/human3d_solved.ron`, built with `--solved-only`) takes no blend. Every
/// transition enters a connecting clip solved with the gait NLP (feasible to 1e-6 in the space's
/// manifest) at its first frames; every clip of the set is kept, joined by the start, the stop,
/// the speed changes (0.6 ↔ 1.0 ↔ 1.4 m/s, 1.4 m/s ↔ run) and the turns; and the graph walks
/// forever at random, through the gaits.
///
/// Each connection's own physical audit: its dynamics (momentum, friction cone, torque
/// ellipsoid) hold to 1e-6 everywhere. Its kinematics (feet on the ground, not slipping, not
/// twisting) hold to 1e-6 when it joins gaits of its own frame time; a speed change samples its
/// gaits between their frames for its fixed end pairs, and a planted foot there moves by the
/// interpolation's error (measured: up to 0.019 m/s of slip between the two fixed frames, 0.5 mm
/// off the ground), which no solve can change since those frames are fixed.
const RESAMPLED_END_BOUND: f64 = 0.05;

#[test]
fn the_solved_only_graph_is_physically_valid_everywhere() {
    use motionlab::space::generate::{Manifest, Outcome};
    use motionlab::spacetime::gait::{GaitClip, MU, NU, audit};
    use motionlab::spacetime::skeleton::Skeleton;
    let graph =
        Arc::new(MotionGraph::load(&root().join("assets/graphs/human3d_solved.ron")).unwrap());
    let g = &graph.graph;
    assert!(g.settings.solved_only);
    let text =
        std::fs::read_to_string(root().join("assets/spaces/human3d_locomotion/space.ron")).unwrap();
    let manifest: Manifest = ron::from_str(&text).unwrap();
    assert!(g.pruned.is_empty(), "{:?}", g.pruned);
    assert!(g.clips.len() >= 19 + 36, "{} clips", g.clips.len());
    let gaits_dir = root().join("assets/spaces/human3d_locomotion/gait");
    let skeleton = Skeleton::load(&root().join("characters/human3d_walker.ron"))
        .unwrap()
        .with_heading_root();
    let gait = |stem: &str| -> GaitClip {
        let text = std::fs::read_to_string(gaits_dir.join(format!("{stem}.ron"))).unwrap();
        ron::from_str(&text).unwrap()
    };
    let mut resampled = 0;
    for t in &g.transitions {
        let c = &g.clips[t.to.clip];
        assert!(t.exact && t.to.frame == 1, "a blend: {t:?}");
        let joins = c.joins.as_ref().unwrap();
        assert_eq!(g.clips[t.from.clip].name, joins.from);
        match manifest
            .entries
            .iter()
            .find(|e| e.stem == c.name)
            .map(|e| &e.outcome)
        {
            Some(Outcome::Solved { max_violation, .. }) => assert!(
                *max_violation <= 1e-6,
                "{}: violation {max_violation:e}",
                c.name
            ),
            other => panic!("{}: {other:?}", c.name),
        }
        let clip = gait(&c.name);
        let report = audit(&clip.body(&skeleton).unwrap(), &clip, MU, NU);
        assert!(report.max_dynamics() <= 1e-6, "{}: {report:?}", c.name);
        // Standing is still (its frames agree to 1e-14): any frame time samples it exactly.
        let own_time = [&joins.from, &joins.to].iter().all(|stem| {
            let joined = gait(stem);
            joined.speed == 0.0
                || (joined.frame_time() - clip.frame_time()).abs() <= 1e-12 * clip.frame_time()
        });
        let bound = if own_time { 1e-6 } else { RESAMPLED_END_BOUND };
        resampled += usize::from(!own_time);
        assert!(report.max() <= bound, "{}: {report:?}", c.name);
    }
    assert!(resampled >= 6, "{resampled} speed changes");
    let mut gaits = std::collections::BTreeSet::new();
    let taken = random_walk(&graph, 3, 120, |clip| {
        let clip = &g.clips[clip];
        if clip.joins.is_none() {
            gaits.insert(format!("{}{}", clip.family, clip.speed));
        }
    });
    assert!(gaits.len() >= 3, "{gaits:?}");
    eprintln!(
        "{} transitions, all exact; {taken} taken in 120 s, gaits played {gaits:?}",
        g.transitions.len()
    );
}

/// Random-walk playback (the thesis's, a transition taken half the time) from the graph's
/// slowest walk for `seconds` at 60 Hz: every played frame's clip goes to `visit`, and the walk
/// never leaves the graph's component. Returns the transitions taken.
fn random_walk(
    graph: &Arc<motionlab::motion_graph::LoadedGraph>,
    seed: u64,
    seconds: usize,
    mut visit: impl FnMut(usize),
) -> usize {
    let start = Controller::default_start(graph, "walk");
    let mut c = Controller::new(
        graph.clone(),
        start,
        Mode::RandomWalk {
            seed,
            probability: 0.5,
        },
    );
    let stick = motionlab::steering::Stick::default();
    for _ in 0..seconds * 60 {
        let out = c.step(&stick, 1.0 / 60.0);
        assert!(graph.kept(out.frame.clip), "walked out of the graph");
        visit(out.frame.clip);
    }
    c.transitions_taken
}

fn run(args: &[&str]) -> String {
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_motionlab"))
        .args(args)
        .current_dir(root())
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "motionlab {args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout).into_owned()
}

/// Motion capture we did not make (CMU trial 12_01, a straight walk; tests/data/cmu) becomes a
/// clip on its own skeleton, a graph that walks forever, and a character that turns where the
/// stick says: the clip walks straight, so the graph's transitions keep it walking and the
/// root-motion warping turns it (at most 20°/s) with its planted feet locked.
#[test]
fn motion_capture_we_did_not_make_builds_a_graph_that_can_be_steered() {
    use motionlab::steering::script::StickKey;
    let dir = tempfile::tempdir().unwrap();
    let clip = dir.path().join("walk.ron");
    let graph = dir.path().join("walk_graph.ron");
    run(&[
        "clip",
        "import",
        "tests/data/cmu/12_01_walk.bvh",
        "--out",
        clip.to_str().unwrap(),
        "--scale",
        "0.056",
    ]);
    let built = run(&[
        "graph",
        "build",
        clip.to_str().unwrap(),
        "--out",
        graph.to_str().unwrap(),
    ]);
    assert!(built.contains("transitions"), "{built}");
    let g = Arc::new(MotionGraph::load(&graph).unwrap());
    assert!(!g.graph.transitions.is_empty());
    assert!(g.graph.stats.component_frames * 10 >= g.graph.stats.frames * 9);
    let key = |time: f64, movement: (f64, f64)| StickKey {
        time,
        movement,
        facing: None,
        run: false,
    };
    let script = StickScript {
        keys: vec![key(0.0, (0.0, 0.6)), key(6.0, (0.6, 0.0))],
        duration: 20.0,
        rate: 60.0,
        pushes: Vec::new(),
    };
    let start = Controller::default_start(&g, "walk");
    let mut controller = Controller::new(g, start, Mode::Steer);
    let trace = run_script(&mut controller, &script, |_, _, _| {});
    for s in trace.samples.iter().filter(|s| s.time >= 14.0) {
        let err = wrap_angle(s.direction - s.command_direction)
            .abs()
            .to_degrees();
        assert!(
            err <= 15.0,
            "at {:.2} s the heading is {err:.1}° off",
            s.time
        );
        assert!(
            s.speed > 0.5,
            "at {:.2} s it has stopped ({:.2} m/s)",
            s.time,
            s.speed
        );
    }
    let worst = trace.foot_slides.iter().map(|s| s.1).fold(0.0, f64::max);
    assert!(
        trace.foot_slides.len() >= 10 && worst <= 0.03,
        "slides up to {worst} m"
    );
    assert!(trace.transitions > 3, "{} transitions", trace.transitions);
}

/// The controller plants a foot over the interval from a frame to the next only when the clip
/// has it down at both ends. Every such interval of every shipped clip holds the foot still
/// (what lets the foot lock hold without stretching the leg), and the intervals where a stance
/// ends are not still: the solved foot moves along the ground between a stance's last frame and
/// the first swing frame, which is why a flag at one end alone does not plant it.
#[test]
fn a_foot_down_at_both_ends_of_an_interval_is_still_in_the_shipped_clips() {
    use motionlab::clip::pose::{body_poses, quat_of};
    use motionlab::model::EffectorTag;
    let graph = MotionGraph::load(&root().join("assets/graphs/human3d.ron")).unwrap();
    let c = &graph.character;
    let feet: Vec<(usize, usize, nalgebra::Vector3<f64>)> = c
        .end_effectors
        .iter()
        .enumerate()
        .filter(|(_, e)| e.tag == EffectorTag::Foot)
        .map(|(k, e)| (k, c.body_index(&e.body).unwrap(), e.point.into()))
        .collect();
    assert_eq!(feet.len(), 2);
    let (mut planted, mut worst_planted, mut lift_offs, mut least_lift_off) =
        (0, 0.0f64, 0, f64::MAX);
    for (ci, clip) in graph.clips.iter().enumerate() {
        for f in 0..clip.frames.len() {
            let here = motionlab::motion_graph::FrameRef { clip: ci, frame: f };
            let Some((next, step)) = graph.next(here) else {
                continue;
            };
            let a = &clip.frames[f];
            let b = &graph.clips[next.clip].frames[next.frame];
            let (pa, pb) = (
                body_poses(c, &a.root, &a.joints),
                body_poses(c, &b.root, &b.joints),
            );
            for &(k, body, point) in &feet {
                let at = |p: &[[f64; 7]]| {
                    let w = quat_of(&p[body]) * point;
                    [p[body][0] + w.x, p[body][1] + w.y, p[body][2] + w.z]
                };
                let (x, y) = (at(&pa), step.apply_vec3(at(&pb)));
                let moved = ((x[0] - y[0]).powi(2) + (x[2] - y[2]).powi(2)).sqrt();
                let (down_a, down_b) = (
                    clip.contacts[f][k],
                    graph.clips[next.clip].contacts[next.frame][k],
                );
                if down_a && down_b {
                    planted += 1;
                    worst_planted = worst_planted.max(moved);
                } else if down_a {
                    lift_offs += 1;
                    least_lift_off = least_lift_off.min(moved);
                }
            }
        }
    }
    eprintln!(
        "{planted} planted intervals, the foot moves at most {worst_planted:.2e} m; {lift_offs} lift-offs, the foot moves at least {least_lift_off:.3} m"
    );
    assert!(planted > 100 && lift_offs > 20);
    assert!(
        worst_planted < 1e-3,
        "a planted foot moves {worst_planted} m in a clip"
    );
    assert!(
        least_lift_off > 0.01,
        "a lift-off moves only {least_lift_off} m"
    );
}

/// `steer --out` saves the run as a clip a user can keep: one frame per script step (14 s at
/// 60 Hz), the played root travelling as commanded (about 7 m north at 1.4 m/s for 5 s, then
/// about 13 m east at 2.6 m/s, then standing), both feet planted at the end, and `clip export`
/// writes it as glTF. With `--physics` it holds the simulated character's frames up to its fall.
#[test]
fn a_steered_run_is_saved_as_a_clip() {
    use motionlab::clip::Clip;
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("run.ron");
    let out_s = out.to_str().unwrap();
    let graph = "assets/graphs/human3d.ron";
    let script = "tests/data/steer_north_east.ron";
    run(&["steer", graph, "--script", script, "--out", out_s]);
    let clip = Clip::load(&out).unwrap();
    clip.check().unwrap();
    assert_eq!(clip.frames.len(), 840);
    assert_eq!(clip.rate, 60.0);
    assert_eq!(clip.tags.source, "steer");
    let (first, last) = (clip.frames[0].root, clip.frames[839].root);
    let (east, north) = (last[0] - first[0], -(last[2] - first[2]));
    assert!((10.0..20.0).contains(&east), "travelled {east:.2} m east");
    assert!((5.0..9.0).contains(&north), "travelled {north:.2} m north");
    let feet: Vec<usize> = (0..clip.effectors.len())
        .filter(|&k| clip.effectors[k].ends_with(".foot"))
        .collect();
    assert_eq!(feet.len(), 2, "{:?}", clip.effectors);
    assert!(
        feet.iter().all(|&k| clip.contacts[839][k]),
        "standing at the end"
    );
    let glb = dir.path().join("run.glb");
    run(&["clip", "export", out_s, "--out", glb.to_str().unwrap()]);
    assert!(std::fs::metadata(&glb).unwrap().len() > 10_000);

    let simulated = dir.path().join("physics.ron");
    run(&[
        "steer",
        graph,
        "--script",
        script,
        "--physics",
        "--out",
        simulated.to_str().unwrap(),
    ]);
    let clip = Clip::load(&simulated).unwrap();
    clip.check().unwrap();
    assert_eq!(clip.tags.source, "steer-physics");
    let lasted = clip.frames.len() as f64 / clip.rate;
    assert!((1.0..=14.0).contains(&lasted), "{lasted} s of frames");
    assert!(
        feet.iter().all(|&k| clip.contacts[0][k]),
        "standing at the start"
    );
}

/// Physics playback of the scripted run: the simulated human starts at rest in the played pose,
/// facing the script's first direction (north) like the played one, and tracks the walk out of
/// the start. Until this was fixed it started in its reference pose facing east, 90° off the
/// pose it tracked. It still falls in the faster walks (docs/steering.md); the bound is below the
/// 5.80 s it lasts.
#[test]
fn physics_playback_starts_in_the_played_pose_and_walks_out_of_the_start() {
    use motionlab::steering::balance::BalanceGains;
    use motionlab::steering::physics::{PhysicsPlayback, run_tracked};
    let graph = Arc::new(MotionGraph::load(&root().join("assets/graphs/human3d.ron")).unwrap());
    let script = StickScript::load(&root().join("tests/data/steer_north_east.ron")).unwrap();
    let start = Controller::default_start(&graph, "stand");
    let mut controller = Controller::new(graph.clone(), start, Mode::Steer);
    controller.face(90f64.to_radians());
    let played = controller.pose();
    let physics = PhysicsPlayback::new(&mut controller, BalanceGains::default()).unwrap();
    let root = graph
        .character
        .body_index(&graph.character.root.body)
        .unwrap();
    let simulated = physics.sim.body_pose(root).map(|x| x as f64);
    let (a, b) = (
        motionlab::clip::pose::quat_of(&simulated),
        motionlab::clip::pose::quat_of(&played.root),
    );
    assert!(a.angle_to(&b) < 1e-4, "pelvis {} rad off", a.angle_to(&b));
    for k in 0..3 {
        assert!((simulated[k] - played.root[k]).abs() < 1e-4);
    }
    let (q, _) = physics.sim.dof_state();
    for (s, p) in q.iter().zip(&played.joints) {
        assert!((*s as f64 - p).abs() < 1e-4);
    }

    let mut controller = Controller::new(graph.clone(), start, Mode::Steer);
    let report = run_tracked(&mut controller, &script).unwrap();
    let lasted = report.fell_at.unwrap_or(script.duration);
    assert!(lasted >= 3.0, "fell at {lasted} s");
    assert!(
        report.joint_error < 0.25,
        "tracking error {}",
        report.joint_error
    );
}

/// Physics playback moves the reference onto the simulated body ([`Controller::follow`]). That
/// is a re-placement of the whole played motion, so the feet it holds on the ground move with
/// it: the next pose is the same motion, turned and moved, with its legs bent as before. Held
/// where they were, the IK bent the legs back towards the old place, the simulated body tracked
/// that lean, the reference followed it further, and standing fell at 10 s.
#[test]
fn following_the_simulated_body_carries_the_held_feet() {
    use motionlab::model::planar::PlanarMotion;
    let graph = Arc::new(MotionGraph::load(&root().join("assets/graphs/human3d.ron")).unwrap());
    // A walk played on and on (no transition, no warping), so both play the same frames.
    let start = Controller::default_start(&graph, "walk");
    let mode = Mode::RandomWalk {
        seed: 1,
        probability: 0.0,
    };
    let stick = motionlab::steering::Stick::default();
    let (mut a, mut b) = (
        Controller::new(graph.clone(), start, mode),
        Controller::new(graph.clone(), start, mode),
    );
    for _ in 0..20 {
        a.step(&stick, 1.0 / 60.0);
        b.step(&stick, 1.0 / 60.0);
    }
    assert!(a.locks.held_centre().is_some(), "no foot held");
    let followed = a.follow(
        &PlanarMotion {
            x: 0.08,
            z: -0.05,
            yaw: 0.0,
        },
        0.1,
    );
    let moved = a.world().compose(&b.world().inverse());
    assert!((followed.x - moved.x).abs() + (followed.z - moved.z).abs() < 1e-12);
    assert!((followed.yaw - moved.yaw).abs() < 1e-12);
    let (pa, pb) = (a.step(&stick, 1.0 / 60.0), b.step(&stick, 1.0 / 60.0));
    assert_eq!(pa.frame, pb.frame);
    for (i, (x, y)) in pa.pose.joints.iter().zip(&pb.pose.joints).enumerate() {
        assert!((x - y).abs() < 1e-6, "coordinate {i}: {x} against {y}");
    }
    let root_b = moved.apply_vec3([pb.pose.root[0], pb.pose.root[1], pb.pose.root[2]]);
    for k in 0..3 {
        assert!((pa.pose.root[k] - root_b[k]).abs() < 1e-9);
    }
}

/// A script that leaves the stick centred for `duration` seconds, with these pushes.
fn standing_still(
    duration: f64,
    pushes: Vec<motionlab::steering::script::ScriptPush>,
) -> StickScript {
    StickScript {
        keys: vec![motionlab::steering::script::StickKey {
            time: 0.0,
            movement: (0.0, 0.0),
            facing: None,
            run: false,
        }],
        duration,
        rate: 60.0,
        pushes,
    }
}

/// Physics playback holds standing: 20 s from the shipped graph's stand, tracked to 0.002 rad
/// (RMS over the joints). (Walks at part stick fall at the playback's converged contact solve:
/// docs/steering.md, Limits; the full-stick walks and runs are tests/steering_physics.rs.)
#[test]
fn physics_playback_stands_without_falling() {
    use motionlab::steering::physics::run_tracked;
    let graph = Arc::new(MotionGraph::load(&root().join("assets/graphs/human3d.ron")).unwrap());
    let script = standing_still(20.0, Vec::new());
    let start = Controller::default_start(&graph, "stand");
    let mut controller = Controller::new(graph.clone(), start, Mode::Steer);
    let report = run_tracked(&mut controller, &script).unwrap();
    assert_eq!(report.fell_at, None, "fell standing");
    assert!(
        report.joint_error < 0.02,
        "tracking error {}",
        report.joint_error
    );
}

/// Physics playback keeps its balance when pushed: standing, a push of 20 N·s on the pelvis
/// (0.25 m/s for the 80 kg human) from the front, back, left or right, 6 s in, does not
/// topple it. It measures up to 30 N·s in every direction; 40 N·s from behind fells it.
#[test]
fn physics_playback_standing_takes_a_push_from_any_side() {
    use motionlab::steering::physics::run_tracked;
    use motionlab::steering::script::ScriptPush;
    let graph = Arc::new(MotionGraph::load(&root().join("assets/graphs/human3d.ron")).unwrap());
    for impulse in [
        [20.0, 0.0, 0.0],
        [-20.0, 0.0, 0.0],
        [0.0, 0.0, 20.0],
        [0.0, 0.0, -20.0],
    ] {
        let script = standing_still(12.0, vec![ScriptPush { time: 6.0, impulse }]);
        let start = Controller::default_start(&graph, "stand");
        let mut controller = Controller::new(graph.clone(), start, Mode::Steer);
        let report = run_tracked(&mut controller, &script).unwrap();
        assert_eq!(report.fell_at, None, "pushed with {impulse:?} N·s: fell");
    }
}

/// A push it cannot take is reported as a fall: 60 N·s from the front or the side knocks the
/// standing human over (it takes 30 N·s from every side), and the report says when, after the
/// push.
#[test]
fn physics_playback_reports_the_fall_a_hard_push_causes() {
    use motionlab::steering::physics::run_tracked;
    use motionlab::steering::script::ScriptPush;
    let graph = Arc::new(MotionGraph::load(&root().join("assets/graphs/human3d.ron")).unwrap());
    for impulse in [[60.0, 0.0, 0.0], [0.0, 0.0, 60.0]] {
        let script = standing_still(12.0, vec![ScriptPush { time: 6.0, impulse }]);
        let start = Controller::default_start(&graph, "stand");
        let mut controller = Controller::new(graph.clone(), start, Mode::Steer);
        let report = run_tracked(&mut controller, &script).unwrap();
        let fell = report
            .fell_at
            .unwrap_or_else(|| panic!("pushed with {impulse:?} N·s: no fall reported"));
        assert!(
            (6.0..12.0).contains(&fell),
            "pushed with {impulse:?} N·s at 6 s: the fall is reported at {fell} s"
        );
    }
}
