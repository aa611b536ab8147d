//! The graph's construction on small made-up clips: transitions where frames match, pruning to
//! the largest strongly connected component with a reason, continuations across a cycle's seam,
//! and a playback that never walks out of the component.

use super::*;
use crate::clip::{CharacterRef, ClipFrame, Cycle, Provenance, Tags};

fn human() -> Character {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("characters/human3d.ron");
    crate::model::load_character(&path).unwrap()
}

/// A clip of the human in its reference pose swinging its knees (so frames differ) while it
/// glides along +x at `speed`; cyclic when `cyclic`.
fn glide(c: &Character, frames: usize, speed: f64, cyclic: bool, phase: f64, elbows: f64) -> Clip {
    glide_along(c, frames, speed, cyclic, phase, elbows, 0.0)
}

/// [`glide`] with the way of travel turned `sideways` (rad, towards +z) off the body's +x.
fn glide_along(
    c: &Character,
    frames: usize,
    speed: f64,
    cyclic: bool,
    phase: f64,
    elbows: f64,
    sideways: f64,
) -> Clip {
    let (vx, vz) = (speed * sideways.cos(), speed * sideways.sin());
    let root = c.body_index(&c.root.body).unwrap();
    let b = &c.bodies[root];
    let q = b.orientation();
    let names = c.dof_names();
    let rate = 30.0;
    let frames_v: Vec<ClipFrame> = (0..frames)
        .map(|i| {
            let t = i as f64 / frames as f64 * std::f64::consts::TAU + phase;
            let joints = names
                .iter()
                .map(|n| {
                    if n.contains("knee") {
                        -0.4 - 0.3 * t.sin()
                    } else if n.contains("elbow") {
                        elbows
                    } else {
                        0.0
                    }
                })
                .collect();
            ClipFrame {
                root: [
                    b.position[0] + vx * i as f64 / rate,
                    b.position[1],
                    b.position[2] + vz * i as f64 / rate,
                    q[0],
                    q[1],
                    q[2],
                    q[3],
                ],
                joints,
            }
        })
        .collect();
    Clip {
        character: CharacterRef {
            path: "characters/human3d.ron".into(),
            hash: String::new(),
        },
        rate,
        coordinates: names,
        frames: frames_v,
        effectors: Vec::new(),
        contacts: Vec::new(),
        torques: None,
        ground_forces: None,
        cycle: cyclic.then_some(Cycle {
            translation: [vx * frames as f64 / rate, 0.0, vz * frames as f64 / rate],
            yaw: 0.0,
        }),
        joins: None,
        bvh: None,
        tags: Tags {
            source: "test".into(),
            ..Default::default()
        },
        provenance: Provenance::default(),
    }
}

/// A clip as the graph builder takes it: its name, its file `NAME.ron`, the clip.
fn entry(name: &str, clip: Clip) -> (String, PathBuf, Clip) {
    (name.to_string(), PathBuf::from(format!("{name}.ron")), clip)
}

#[test]
fn matching_frames_become_transitions_and_a_dead_end_is_pruned_with_its_reason() {
    let c = human();
    let clips = vec![
        entry("a", glide(&c, 30, 1.0, true, 0.0, 0.0)),
        // The same motion half a cycle on: its frames match a's, shifted.
        entry("b", glide(&c, 30, 1.0, true, std::f64::consts::PI, 0.0)),
        // Elbows bent double: no frame of it is near the others'.
        entry("c", glide(&c, 12, 1.0, false, 0.0, 2.0)),
    ];
    let settings = GraphSettings::default();
    let (g, map) = build(&c, Path::new("characters/human3d.ron"), &clips, &settings).unwrap();
    assert_eq!(map.size, 72);
    // a's frame i is b's frame i − 15: the distance there is zero (up to rounding).
    let d = map.at(
        FrameRef { clip: 0, frame: 20 },
        FrameRef { clip: 1, frame: 5 },
    );
    assert!(d < 1e-3, "{d}");
    assert!(
        g.transitions
            .iter()
            .any(|t| t.from.clip == 0 && t.to.clip == 1)
    );
    assert!(
        g.transitions
            .iter()
            .any(|t| t.from.clip == 1 && t.to.clip == 0)
    );
    let pruned: Vec<&str> = g.pruned.iter().map(|p| p.name.as_str()).collect();
    assert_eq!(pruned, ["c"]);
    assert!(
        g.pruned[0].reason.contains("no transition joins it"),
        "{}",
        g.pruned[0].reason
    );
    assert!(
        g.transitions
            .iter()
            .all(|t| t.from.clip != 2 && t.to.clip != 2)
    );
    // Across a cycle's seam the continuation carries T: frame 29 → frame 0 moved 1 m on.
    let (next, t) = continuation(&g.clips, FrameRef { clip: 0, frame: 29 }).unwrap();
    assert_eq!(next, FrameRef { clip: 0, frame: 0 });
    assert!((t.x - 1.0).abs() < 1e-9 && t.yaw.abs() < 1e-12);
    // The whole graph is one component but for c; every kept frame can reach every other.
    let inside = component(&g.clips, &g.transitions);
    assert!(inside[0].iter().chain(&inside[1]).all(|&b| b));
    assert!(inside[2].iter().all(|&b| !b));
}

/// An open clip that a transition enters but that leads nowhere: the component leaves it out,
/// and a random walk started in the graph never plays it.
#[test]
fn playback_never_enters_a_dead_end() {
    let c = human();
    let clips = vec![
        entry("a", glide(&c, 30, 1.0, true, 0.0, 0.0)),
        entry("b", glide(&c, 30, 1.0, true, std::f64::consts::PI, 0.0)),
        entry("c", glide(&c, 40, 1.0, false, 0.0, 0.0)),
    ];
    let (g, _) = build(
        &c,
        Path::new("characters/human3d.ron"),
        &clips,
        &GraphSettings::default(),
    )
    .unwrap();
    let loaded = LoadedGraph::new(
        g,
        c,
        PathBuf::from("characters/human3d.ron"),
        clips.into_iter().map(|x| x.2).collect(),
    )
    .unwrap();
    // c's last frames lead nowhere.
    assert!(!loaded.inside(FrameRef { clip: 2, frame: 39 }));
    let graph = std::sync::Arc::new(loaded);
    let mut walk = crate::steering::Controller::new(
        graph.clone(),
        FrameRef { clip: 0, frame: 0 },
        crate::steering::Mode::RandomWalk {
            seed: 3,
            probability: 0.5,
        },
    );
    for _ in 0..1200 {
        let out = walk.step(&crate::steering::Stick::default(), 1.0 / 60.0);
        assert!(
            graph.inside(out.frame),
            "played {:?}, outside the component",
            out.frame
        );
    }
    assert!(walk.transitions_taken > 10);
}

/// A blend never joins a frame at rest with a moving one (the same knee swing standing and
/// gliding at 1 m/s are near in the point-cloud distance, which weighs velocities by 0.1):
/// starting and stopping need a connecting clip. With the rule off the blends are there.
#[test]
fn no_blend_joins_a_frame_at_rest_with_a_moving_one() {
    let c = human();
    let clips = vec![
        entry("moving", glide(&c, 30, 1.0, true, 0.0, 0.0)),
        entry("still", glide(&c, 30, 0.0, true, std::f64::consts::PI, 0.0)),
    ];
    let path = Path::new("characters/human3d.ron");
    let across = |g: &MotionGraph| {
        g.transitions
            .iter()
            .filter(|t| !t.exact && t.from.clip != t.to.clip)
            .count()
    };
    let settings = GraphSettings {
        threshold: 0.15,
        ..Default::default()
    };
    let (g, _) = build(&c, path, &clips, &settings).unwrap();
    assert_eq!(across(&g), 0, "{:?}", g.transitions);
    let (g, _) = build(
        &c,
        path,
        &clips,
        &GraphSettings {
            rest_speed: 0.0,
            ..settings
        },
    )
    .unwrap();
    assert!(across(&g) >= 2, "{:?}", g.transitions);
}

/// A transition between moving frames keeps the way of travel: between a glide along the
/// body's +x and one travelling 20° off its body, the travel-aligned transition turns the
/// second clip by those 20° (its way of travel onto the first's); the free alignment mostly
/// keeps the bodies together and turns the way of travel.
#[test]
fn a_transition_keeps_the_way_of_travel() {
    let c = human();
    let sideways = 20f64.to_radians();
    let clips = vec![
        entry("ahead", glide(&c, 30, 1.0, true, 0.0, 0.0)),
        entry(
            "crab",
            glide_along(&c, 30, 1.0, true, std::f64::consts::PI, 0.0, sideways),
        ),
    ];
    let path = Path::new("characters/human3d.ron");
    let yaws = |travel_aligned: bool| {
        let settings = GraphSettings {
            threshold: 0.5,
            travel_aligned,
            ..Default::default()
        };
        let (g, _) = build(&c, path, &clips, &settings).unwrap();
        let yaws: Vec<f64> = g
            .transitions
            .iter()
            .filter(|t| t.from.clip == 0 && t.to.clip == 1)
            .map(|t| t.motion.yaw)
            .collect();
        assert!(!yaws.is_empty(), "no transition ahead → crab");
        yaws
    };
    // A PlanarMotion turn by θ lowers a direction's angle atan2(z, x) by θ: the crab's travel
    // at +20° comes onto +x with θ = 20°.
    for yaw in yaws(true) {
        assert!(
            (yaw - sideways).abs() < 0.5f64.to_radians(),
            "{}",
            yaw.to_degrees()
        );
    }
    // Free, the bodies' points outweigh the velocities (weighted 0.1): the way of travel turns
    // by more than half the 20° (by 14.8° here).
    for yaw in yaws(false) {
        assert!(
            (sideways - yaw) > 10f64.to_radians(),
            "{}",
            yaw.to_degrees()
        );
    }
}

/// `graph connect --space`: on the shipped graph, every connection is asked of the gait NLP with
/// the objective of the space point it leaves (arms, hands, head and torso held near their rest
/// pose, flat feet), the space's iteration limit, and joins between two cyclic clips only;
/// without the space, the NLP's defaults.
#[test]
fn connections_are_solved_with_the_objective_of_the_clip_they_leave() {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    let graph = MotionGraph::load(&root.join("assets/graphs/human3d.ron")).unwrap();
    let space =
        crate::space::ParameterSpace::load(&root.join("spaces/human3d_locomotion.ron")).unwrap();
    let objectives = super::connect::objectives_of(&space).unwrap();
    let walk = &objectives["gait=walk1.0_turn=0"];
    assert!(walk.flat_feet && walk.posture_limbs.iter().any(|l| l == "arm"));
    let options = |objectives| super::connect::ConnectOptions {
        gait_dir: root.join("assets/spaces/human3d_locomotion/gait"),
        out: std::env::temp_dir().join("motionlab-connect-test"),
        frames: 20,
        budget: 6,
        threads: 1,
        max_iterations: space.solver.max_iterations,
        objectives,
    };
    let jobs = super::connect::jobs(&graph, &options(objectives.clone())).unwrap();
    assert_eq!(jobs.len(), 6);
    for j in &jobs {
        let from = &graph.graph.clips[graph.graph.transitions[j.transition].from.clip];
        let to = &graph.graph.clips[graph.graph.transitions[j.transition].to.clip];
        assert!(from.cycle.is_some() && to.cycle.is_some(), "{}", j.name);
        let want = &objectives[&j.joins.from];
        assert_eq!(j.request.posture_limbs, want.posture_limbs, "{}", j.name);
        assert_eq!(j.request.flat_feet, want.flat_feet, "{}", j.name);
        assert_eq!(j.request.weights, want.weights, "{}", j.name);
        assert_eq!(j.request.max_iterations, space.solver.max_iterations);
    }
    let plain = super::connect::jobs(&graph, &options(Default::default())).unwrap();
    assert!(
        plain
            .iter()
            .all(|j| j.request.posture_limbs.is_empty() && !j.request.flat_feet)
    );
}

/// A graph of solved motions only takes no blend: two gaits joined both ways by connecting
/// clips keep every clip, and every transition is a connection's exact entry; without the
/// connections nothing joins the gaits and one of them is pruned with its reason.
#[test]
fn a_graph_of_solved_motions_only_takes_no_blend() {
    let c = human();
    let joining = |from: &str, to: &str| {
        let mut clip = glide(&c, 12, 1.0, false, 0.0, 0.0);
        clip.joins = Some(crate::clip::Joins {
            from: from.into(),
            from_frame: 5,
            to: to.into(),
            to_frame: 3,
            placement: PlanarMotion::IDENTITY,
        });
        clip
    };
    let gaits = vec![
        entry("a", glide(&c, 30, 1.0, true, 0.0, 0.0)),
        entry("b", glide(&c, 30, 1.0, true, std::f64::consts::PI, 0.0)),
    ];
    let mut clips = gaits.clone();
    clips.push(entry("ab", joining("a", "b")));
    clips.push(entry("ba", joining("b", "a")));
    let path = Path::new("characters/human3d.ron");
    let settings = GraphSettings {
        solved_only: true,
        ..Default::default()
    };
    let (blended, _) = build(&c, path, &clips, &GraphSettings::default()).unwrap();
    assert!(blended.transitions.iter().any(|t| !t.exact));
    let (g, _) = build(&c, path, &clips, &settings).unwrap();
    assert!(g.pruned.is_empty(), "{:?}", g.pruned);
    assert_eq!(g.transitions.len(), 2, "{:?}", g.transitions);
    assert!(g.transitions.iter().all(|t| t.exact && t.to.frame == 1));
    let (alone, _) = build(&c, path, &gaits, &settings).unwrap();
    assert!(alone.transitions.is_empty());
    assert_eq!(alone.pruned.len(), 1, "{:?}", alone.pruned);
}

#[test]
fn a_graph_clip_reads_its_strafe_off_its_cycle() {
    use crate::model::planar::PlanarMotion;
    let clip = |cycle: Option<PlanarMotion>| GraphClip {
        name: "c".into(),
        path: "c.ron".into(),
        frames: 30,
        rate: 30.0,
        cycle,
        speed: 0.7,
        turn_rate: 0.0,
        family: "gait".into(),
        joins: None,
        effort: 0.0,
    };
    // Straight, turning and standing cycles do not strafe; a clip without a cycle neither.
    for (turn_rate, strafe_deg) in [
        (0.0, 0.0f64),
        (0.6, 0.0),
        (-0.6, 0.0),
        (0.0, 30.0),
        (0.5, -75.0),
        (-0.4, 120.0),
    ] {
        let t = PlanarMotion::along_strafed_arc(0.7, turn_rate, strafe_deg.to_radians(), 1.0);
        let got = clip(Some(t)).strafe().to_degrees();
        assert!(
            (got - strafe_deg).abs() < 1e-9,
            "turn {turn_rate}: {got}° for {strafe_deg}°"
        );
    }
    assert_eq!(clip(Some(PlanarMotion::IDENTITY)).strafe(), 0.0);
    assert_eq!(clip(None).strafe(), 0.0);
}
