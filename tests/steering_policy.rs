//! The value-function policy over the shipped human graph (Wampler 2012, thesis §5.2–5.3):
//! what it costs to solve, how much it lowers the graph's expected direction cost against
//! playing on, and that following it turns the character onto an asked direction.

use motionlab::model::planar::wrap_angle;
use motionlab::motion_graph::MotionGraph;
use motionlab::steering::Controller;
use motionlab::steering::mdp::{MdpSettings, SteeringMdp};

fn graph() -> motionlab::motion_graph::LoadedGraph {
    MotionGraph::load(std::path::Path::new("assets/graphs/human3d.ron")).unwrap()
}

/// Value iteration converges on the 1,644 frames of the default graph, and cost(G) (Eq. 5.2,
/// the mean angle between the asked and the travelled direction under the default user model)
/// is at least 3 times lower than playing every clip on (measured: 0.38 rad against 1.55).
#[test]
fn the_policy_lowers_the_graphs_expected_direction_cost() {
    let g = graph();
    let mdp = SteeringMdp::from_graph(&g, MdpSettings::default());
    assert!(mdp.residual <= 1e-6, "residual {}", mdp.residual);
    let mut on = mdp.nodes.clone();
    for n in &mut on {
        // Playing on where the clip goes on (its first edge), a transition only at a clip's end.
        n.edges.truncate(1);
    }
    let on = SteeringMdp::new(on, MdpSettings::default());
    let (policy, playing_on) = (mdp.quality(128, 1200, 1), on.quality(128, 1200, 1));
    println!("cost(G): policy {policy:.4} rad, playing on {playing_on:.4} rad");
    assert!(
        policy * 3.0 < playing_on,
        "policy {policy:.4} against playing on {playing_on:.4}"
    );
}

/// Walking, asked 90° to the left or to the right (or back): following the policy along the
/// graph's edges, the travel direction is within 10° of the asked one on average from 1.5 s to
/// 4 s (measured: within 14° at every frame, about 5° on average).
#[test]
fn following_the_policy_turns_onto_the_asked_direction() {
    let g = graph();
    let mdp = SteeringMdp::from_graph(&g, MdpSettings::default());
    let start = Controller::default_start(&g, "walk");
    for asked in [90f64, -90.0, 180.0] {
        let asked = asked.to_radians();
        let mut node = mdp
            .node_of(start)
            .expect("the walk's start is in the graph");
        let (mut heading, mut time) = (0.0, 0.0);
        let (mut sum, mut n) = (0.0, 0);
        while time < 4.0 {
            let theta = wrap_angle(asked - heading);
            if time >= 1.5 {
                let travel = mdp.nodes[node].travel.expect("a walk travels");
                sum += wrap_angle(theta - travel).abs();
                n += 1;
            }
            let e = *mdp
                .choose(node, 0, theta, 0.0)
                .expect("every frame has an edge");
            time += mdp.nodes[node].frame_time;
            heading += e.turn;
            node = e.to;
        }
        let mean = (sum / n as f64).to_degrees();
        println!(
            "asked {:.0}°: mean travel error {mean:.1}°",
            asked.to_degrees()
        );
        assert!(
            mean < 10.0,
            "asked {:.0}°: mean travel error {mean:.1}° from 1.5 s",
            asked.to_degrees()
        );
    }
}

/// The acceptance script (walk north 5 s, run east 5 s, stop) steered by the policy over the
/// stick's speeds: 1.5 s after the turn onto the run the travel direction is within 10° of the
/// stick's, and 3.5 s after the stick is let go the character has slowed below a slow walk
/// (0.6 m/s; the run's stop goes through the walks, about a stride each).
#[test]
fn the_policy_steers_the_scripted_run() {
    use motionlab::steering::{Mode, StickScript, run_script};
    let g = std::sync::Arc::new(graph());
    let mdp = SteeringMdp::from_graph(&g, MdpSettings::with_stick_speeds());
    let script =
        StickScript::load(std::path::Path::new("tests/data/steer_north_east.ron")).unwrap();
    let start = Controller::default_start(&g, "stand");
    let mut c =
        Controller::new(g.clone(), start, Mode::Steer).with_policy(std::sync::Arc::new(mdp));
    let trace = run_script(&mut c, &script, |_, _, _| {});
    let at = |t: f64| {
        trace
            .samples
            .iter()
            .find(|s| s.time >= t)
            .expect("the run lasts 14 s")
    };
    let turned = at(6.5);
    let error = wrap_angle(turned.command_direction - turned.direction)
        .abs()
        .to_degrees();
    let stopping = at(13.5).speed;
    println!("heading error 1.5 s after the turn {error:.1}°, speed at 13.5 s {stopping:.2}");
    assert!(error < 10.0, "heading error {error:.1}° at 6.5 s");
    assert!(stopping < 0.3, "speed {stopping:.2} m/s at 13.5 s");
}

/// The speed is a task parameter of the policy only on a graph that can change it: the human's
/// graph (standing to the run) and the biped's direction-and-speed controller keep the stick's
/// five levels; the biped's direction controller, whose clips all walk at one speed, keeps
/// none, and its policy solves several times faster.
#[test]
fn the_speed_is_a_task_parameter_only_where_the_graph_can_change_it() {
    use motionlab::steering::mdp::{ONE_SPEED, clip_speeds};
    let load = |p: &str| MotionGraph::load(std::path::Path::new(p)).unwrap();
    let stick = MdpSettings::with_stick_speeds().speeds;
    for (path, one_speed) in [
        ("assets/graphs/human3d.ron", false),
        ("assets/controllers/biped_direction_speed.graph.ron", false),
        ("assets/controllers/biped_direction.graph.ron", true),
    ] {
        let g = load(path);
        let (slowest, fastest) = clip_speeds(&g);
        let settings = MdpSettings::for_graph(&g, 16);
        println!(
            "{path}: clips move at {slowest:.2}–{fastest:.2} m/s, {} speed levels",
            settings.speeds.len()
        );
        assert_eq!(fastest - slowest <= ONE_SPEED, one_speed, "{path}");
        let expected = if one_speed { Vec::new() } else { stick.clone() };
        assert_eq!(settings.speeds, expected, "{path}");
        assert_eq!(settings.facing_bins, 0, "{path}: no cycle strafes");
    }
}
