//! Physics playback does not depend on which way the human walks: the contact solve it runs is
//! converged enough that the order of the contact constraints (which follows where the bodies
//! are in the world) no longer decides a walk, and a straight walk or run holds in every
//! direction.

mod common;

use common::{assert_success, motionlab, stdout};
use motionlab::sim::Simulation;
use motionlab::steering::physics::playback_settings;
use std::path::Path;

/// The standing human placed facing east, north, west and south under physics playback's
/// settings: after one step and over two seconds its joints agree within 0.01 rad (the
/// simulation's default 8 sweeps differ by 0.026 rad facing west after one step).
#[test]
fn physics_playback_contacts_do_not_depend_on_the_facing() {
    let path = Path::new(common::cli::ROOT).join("characters/human3d_walker.ron");
    let character = motionlab::model::load_character(&path).unwrap();
    let run = |yaw: f32| {
        let mut sim = Simulation::new(&character, playback_settings()).unwrap();
        let mut q = vec![0.0f32; sim.dofs().len()];
        for (i, d) in sim.dofs().iter().enumerate() {
            q[i] = match d.name.as_str() {
                n if n.ends_with("knee") => -0.2,
                n if n.ends_with("ankle.0") || n.ends_with("hip.2") => 0.1,
                _ => 0.0,
            };
        }
        let h = 0.5 * yaw;
        sim.set_configuration([0.0, 0.97, 0.0, 0.0, h.sin(), 0.0, h.cos()], &q);
        sim.set_targets(&q);
        (0..240)
            .map(|_| {
                sim.step();
                sim.dof_state().0
            })
            .collect::<Vec<_>>()
    };
    let east = run(0.0);
    for quarter in 1..4 {
        let other = run(quarter as f32 * std::f32::consts::FRAC_PI_2);
        let worst = east
            .iter()
            .zip(&other)
            .flat_map(|(a, b)| a.iter().zip(b).map(|(x, y)| (x - y).abs()))
            .fold(0.0f32, f32::max);
        assert!(
            worst < 0.01,
            "turned by {quarter} quarter(s): joints differ by {worst} rad"
        );
    }
}

/// Full-stick walks and runs in eight directions, 15 s each from the stand on the shipped graph:
/// every one stays up (with the simulation's default contact solve, the walks in the five
/// directions around west fell after 5–16 s).
#[test]
fn physics_playback_walks_and_runs_in_every_direction() {
    let o = motionlab(&[
        "steer",
        "assets/graphs/human3d.ron",
        "--straight",
        "8",
        "--duration",
        "15",
        "--physics",
    ]);
    assert_success(&o, "steer --straight 8 --physics");
    let out = stdout(&o);
    let runs: Vec<&str> = out.lines().filter(|l| l.starts_with("run ")).collect();
    assert_eq!(runs.len(), 16, "{out}");
    for l in &runs {
        assert!(l.contains(" up true "), "{l}");
    }
    assert!(out.contains("runs 16 up 16 "), "{out}");
}
