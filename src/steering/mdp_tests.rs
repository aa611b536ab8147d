//! The steering MDP on small synthetic graphs.

use super::*;

/// Three cyclic "clips" of `len` frames at 30 Hz: straight, turning left and turning right
/// (each frame turns by ±`rate`/30 rad), travelling along their heading; with `turns`, a
/// transition at every frame between the straight clip and each turning one, both ways.
fn three_cycles(len: usize, rate: f64, turns: bool, blend: f64) -> Vec<Node> {
    let dt = 1.0 / 30.0;
    let mut nodes = Vec::new();
    for clip in 0..3 {
        let turn = [0.0, rate * dt, -rate * dt][clip];
        for i in 0..len {
            let next = clip * len + (i + 1) % len;
            let mut edges = vec![Edge {
                to: next,
                turn,
                cost: 0.0,
                transition: None,
            }];
            if turns {
                let others: &[usize] = if clip == 0 { &[1, 2] } else { &[0] };
                for &o in others {
                    edges.push(Edge {
                        to: o * len + (i + 1) % len,
                        turn: [0.0, rate * dt, -rate * dt][o],
                        cost: blend,
                        transition: Some(o),
                    });
                }
            }
            nodes.push(Node {
                frame_time: dt,
                speed: 1.0,
                travel: Some(0.0),
                gait: None,
                edges,
                effort: 0.0,
            });
        }
    }
    nodes
}

#[test]
fn the_user_kernel_is_a_distribution_that_keeps_most_mass_in_place() {
    let mdp = SteeringMdp::new(three_cycles(4, 1.0, false, 0.0), MdpSettings::default());
    let k = mdp.user_kernel(1.0 / 30.0);
    assert!((k.iter().sum::<f64>() - 1.0).abs() < 1e-12);
    assert!(k.iter().all(|w| *w >= 0.0));
    // Per frame: 1 − (0.4 + 1.0)/30 stays put, plus the Gaussian's and the jump's share.
    assert!(k[0] > 1.0 - 1.4 / 30.0, "{k:?}");
    // Symmetric: as likely to move one bin left as right.
    let b = k.len();
    assert!((k[1] - k[b - 1]).abs() < 1e-12);
}

/// The policy turns towards the asked direction: asked 90° to the left on the straight
/// clip, it transitions into the left turn; to the right, into the right turn; straight
/// ahead, it plays on. Value iteration converged, and the value grows with the angle off.
#[test]
fn the_policy_turns_towards_the_asked_direction() {
    let mdp = SteeringMdp::new(three_cycles(10, 1.5, true, 0.05), MdpSettings::default());
    assert!(mdp.residual <= 1e-6, "residual {}", mdp.residual);
    let straight = 3;
    let left = mdp.choose(straight, 0, PI / 2.0, 0.0).unwrap();
    assert_eq!(left.transition, Some(1), "{left:?}");
    let right = mdp.choose(straight, 0, -PI / 2.0, 0.0).unwrap();
    assert_eq!(right.transition, Some(2), "{right:?}");
    let ahead = mdp.choose(straight, 0, 0.0, 0.0).unwrap();
    assert_eq!(ahead.transition, None, "{ahead:?}");
    assert!(mdp.value(straight, 0, 0.0, 0.0) < mdp.value(straight, 0, PI / 4.0, 0.0));
    assert!(mdp.value(straight, 0, PI / 4.0, 0.0) < mdp.value(straight, 0, PI / 2.0, 0.0));
    // Turning left and asked straight ahead: back to the straight clip.
    let back = mdp.choose(10 + 3, 0, 0.0, 0.0).unwrap();
    assert_eq!(back.to / 10, 0, "{back:?}");
}

/// The thesis's measure of a graph: with the turns the expected cost per frame is far lower
/// than with the straight clip alone (which can never follow a change of direction); the
/// straight-only graph's cost is the mean angle off a uniformly moving direction, π/2.
#[test]
fn turns_lower_the_expected_cost_of_the_graph() {
    let alone = SteeringMdp::new(three_cycles(10, 1.5, false, 0.0), MdpSettings::default());
    let turning = SteeringMdp::new(three_cycles(10, 1.5, true, 0.05), MdpSettings::default());
    let (a, t) = (alone.quality(64, 1800, 1), turning.quality(64, 1800, 1));
    assert!((a - PI / 2.0).abs() < 0.25, "straight only: {a}");
    assert!(t < 0.5 * a, "with turns {t} against {a}");
    // Seeded: the same figure again.
    assert_eq!(t, turning.quality(64, 1800, 1));
}

/// Two speeds: a standing cycle and a walking one, a transition between them at every
/// frame. Asked to stand, the walk transitions to the stand; asked to walk, the stand to the
/// walk; the levels are the nearest ones.
#[test]
fn the_policy_answers_the_asked_speed() {
    let dt = 1.0 / 30.0;
    let len = 10;
    let mut nodes = Vec::new();
    for clip in 0..2 {
        for i in 0..len {
            let other = (1 - clip) * len + (i + 1) % len;
            nodes.push(Node {
                frame_time: dt,
                speed: [0.0, 1.0][clip],
                travel: [None, Some(0.0)][clip],
                gait: None,
                edges: vec![
                    Edge {
                        to: clip * len + (i + 1) % len,
                        turn: 0.0,
                        cost: 0.0,
                        transition: None,
                    },
                    Edge {
                        to: other,
                        turn: 0.0,
                        cost: 0.05,
                        transition: Some(1 - clip),
                    },
                ],
                effort: 0.0,
            });
        }
    }
    let settings = MdpSettings {
        speeds: vec![0.0, 1.0],
        ..MdpSettings::default()
    };
    let mdp = SteeringMdp::new(nodes, settings);
    assert!(mdp.residual <= 1e-6);
    assert_eq!(
        (mdp.level_of(0.2, Gait::Walk), mdp.level_of(0.9, Gait::Walk)),
        (0, 1)
    );
    let (walking, standing) = (len + 2, 2);
    assert_eq!(
        mdp.choose(walking, 0, 0.0, 0.0).unwrap().transition,
        Some(0)
    );
    assert_eq!(mdp.choose(walking, 1, 0.0, 0.0).unwrap().transition, None);
    assert_eq!(
        mdp.choose(standing, 1, 0.0, 0.0).unwrap().transition,
        Some(1)
    );
    assert_eq!(mdp.choose(standing, 0, 0.0, 0.0).unwrap().transition, None);
}

/// A walk and a run (both travelling, at the same speed), a transition at every frame each way:
/// with the gait a task parameter the policy takes the run when a run is asked and the walk when
/// a walk is, whatever the speed level; without it, every frame of either gait costs the same and
/// the policy plays on. A stop asks for a walk.
#[test]
fn the_policy_answers_the_asked_gait() {
    let dt = 1.0 / 30.0;
    let len = 10;
    let gaits = [Gait::Walk, Gait::Run];
    let nodes = |effort: f64| {
        let mut nodes = Vec::new();
        for clip in 0..2 {
            for i in 0..len {
                let edge = |to: usize, cost: f64, transition| Edge {
                    to: to * len + (i + 1) % len,
                    turn: 0.0,
                    cost,
                    transition,
                };
                nodes.push(Node {
                    frame_time: dt,
                    speed: 1.0,
                    travel: Some(0.0),
                    gait: Some(gaits[clip]),
                    edges: vec![edge(clip, 0.0, None), edge(1 - clip, 0.05, Some(1 - clip))],
                    effort,
                });
            }
        }
        nodes
    };
    let settings = MdpSettings {
        speeds: vec![0.0, 1.0],
        gaits: gaits.to_vec(),
        gait_weight: 1.0,
        ..MdpSettings::default()
    };
    let mdp = SteeringMdp::new(nodes(0.0), settings.clone());
    assert!(mdp.residual <= 1e-6);
    assert_eq!(mdp.levels(), 4);
    let (walk, run) = (mdp.level_of(0.9, Gait::Walk), mdp.level_of(0.9, Gait::Run));
    assert_eq!((walk, run), (2, 3));
    assert_eq!(mdp.level_of(0.0, Gait::Stand), 0);
    let (walking, running) = (2, len + 2);
    assert_eq!(
        mdp.choose(walking, run, 0.0, 0.0).unwrap().transition,
        Some(1)
    );
    assert_eq!(
        mdp.choose(walking, walk, 0.0, 0.0).unwrap().transition,
        None
    );
    assert_eq!(
        mdp.choose(running, walk, 0.0, 0.0).unwrap().transition,
        Some(0)
    );
    assert_eq!(mdp.choose(running, run, 0.0, 0.0).unwrap().transition, None);
    // The mismatch costs gait_weight per frame: a run frame asked to walk costs 1 rad more.
    let (at_walk, at_run) = (
        mdp.task_cost(running, walk, 0.0, 0.0),
        mdp.task_cost(running, run, 0.0, 0.0),
    );
    assert!((at_walk - at_run - 1.0).abs() < 1e-12, "{at_walk} {at_run}");
    // Without the gait as a parameter both gaits are as good and nothing is worth a transition.
    let blind = SteeringMdp::new(
        nodes(0.0),
        MdpSettings {
            gaits: Vec::new(),
            ..settings
        },
    );
    assert_eq!(blind.levels(), 2);
    assert_eq!(blind.level_of(0.9, Gait::Run), 1);
    assert_eq!(blind.choose(walking, 1, 0.0, 0.0).unwrap().transition, None);
}

/// Cyclic "clips" of `len` frames at 30 Hz, each (turn rate rad/s, travel direction seen from
/// the heading), a transition at every frame from the first to each other and back.
fn cycles(len: usize, kinds: &[(f64, f64)]) -> Vec<Node> {
    let dt = 1.0 / 30.0;
    let mut nodes = Vec::new();
    for (clip, &(_, travel)) in kinds.iter().enumerate() {
        for i in 0..len {
            let edge = |to: usize, transition: Option<usize>| Edge {
                to: to * len + (i + 1) % len,
                turn: kinds[to].0 * dt,
                cost: if transition.is_some() { 0.05 } else { 0.0 },
                transition,
            };
            let mut edges = vec![edge(clip, None)];
            if clip == 0 {
                edges.extend((1..kinds.len()).map(|o| edge(o, Some(o))));
            } else {
                edges.push(edge(0, Some(0)));
            }
            nodes.push(Node {
                frame_time: dt,
                speed: 1.0,
                travel: Some(travel),
                gait: None,
                edges,
                effort: 0.0,
            });
        }
    }
    nodes
}

/// The walk, turns both ways (90° in half a second), and strafes both ways (travelling 90° off
/// the heading).
fn with_strafes() -> Vec<(f64, f64)> {
    vec![
        (0.0, 0.0),
        (PI, 0.0),
        (-PI, 0.0),
        (0.0, PI / 2.0),
        (0.0, -PI / 2.0),
    ]
}

fn facing_settings() -> MdpSettings {
    MdpSettings {
        bins: 16,
        facing_bins: 16,
        ..MdpSettings::default()
    }
}

/// Thesis §5.3's torso-orientation task: asked to travel 90° to the left while facing ahead,
/// the walk strafes left (turning would leave the facing); asked to travel and face left, it
/// turns; asked to travel right facing ahead, it strafes right; asked ahead, it plays on.
#[test]
fn the_policy_strafes_to_travel_one_way_and_face_another() {
    let mdp = SteeringMdp::new(cycles(10, &with_strafes()), facing_settings());
    assert!(mdp.residual <= 1e-6, "residual {}", mdp.residual);
    let walk = 3;
    let pick = |theta: f64, facing: f64| mdp.choose(walk, 0, theta, facing).unwrap().transition;
    assert_eq!(pick(PI / 2.0, 0.0), Some(3));
    assert_eq!(pick(PI / 2.0, PI / 2.0), Some(1));
    assert_eq!(pick(-PI / 2.0, 0.0), Some(4));
    assert_eq!(pick(-PI / 2.0, -PI / 2.0), Some(2));
    assert_eq!(pick(0.0, 0.0), None);
    // Facing away costs: the same direction with the facing off is dearer.
    assert!(mdp.value(walk, 0, 0.0, 0.0) < mdp.value(walk, 0, 0.0, PI / 2.0));
    // Strafing left with the direction and facing met: back to the walk when asked ahead.
    let strafing = 3 * 10 + 4;
    assert_eq!(
        mdp.choose(strafing, 0, 0.0, 0.0).unwrap().transition,
        Some(0)
    );
}

/// With the facing a task parameter, strafes lower cost(G): a graph of turns alone must trade
/// the direction against the facing. Seeded: the same figure again.
#[test]
fn strafes_lower_the_expected_cost_of_a_facing_task() {
    let turns = &with_strafes()[..3];
    let cost = |kinds: &[(f64, f64)], settings: MdpSettings| {
        SteeringMdp::new(cycles(10, kinds), settings).quality(64, 1800, 1)
    };
    let (alone, strafing) = (
        cost(turns, facing_settings()),
        cost(&with_strafes(), facing_settings()),
    );
    eprintln!("facing: turns {alone:.3} with strafes {strafing:.3}");
    assert!(
        strafing < 0.8 * alone,
        "with strafes {strafing} against {alone}"
    );
    assert_eq!(strafing, cost(&with_strafes(), facing_settings()));
}
