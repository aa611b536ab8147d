//! Growing a controller's graph (Wampler 2012, thesis ch. 5) from the simple biped's walk: the
//! walk alone cannot follow a direction (cost(G) about π/2); weighing turn templates by the
//! surrogates predicts a graph that costs less, and every template's initialisation starts and
//! ends on pairs of the walk's own frames (App. C's condition for physical validity across
//! clips). No solve is run here.

use motionlab::spacetime::gait::GaitClip;
use motionlab::spacetime::skeleton::Skeleton;
use motionlab::synthesis::graph::Creature;
use motionlab::synthesis::{ControllerTask, Synthesis};
use std::path::Path;

fn start() -> (Synthesis, Creature) {
    let task: ControllerTask =
        motionlab::files::read_ron(Path::new("assets/controllers/biped_direction.ron")).unwrap();
    let base: GaitClip =
        motionlab::files::read_ron(Path::new("assets/gaits/biped_walk_world_0.7ms.ron")).unwrap();
    let creature = Creature::load(Path::new("characters/simple_biped.ron")).unwrap();
    let s = Synthesis::new(task, false, 1, base, &creature).unwrap();
    (s, creature)
}

#[test]
fn weighing_turns_predicts_a_cheaper_graph_than_the_walk_alone() {
    let (s, creature) = start();
    let walk = s.cost();
    println!("cost(G) of the walk alone {walk:.4}");
    assert!(
        (walk - std::f64::consts::FRAC_PI_2).abs() < 0.2,
        "walk alone {walk}"
    );
    let p = s.propose(&creature).unwrap();
    println!(
        "chosen: turn {:+.0}° from frame {}, q {:.3}, P {:.2}, predicted {:.4}; {} weighed",
        p.sigma.theta.to_degrees(),
        p.connection.from_frame,
        p.quality,
        p.probability,
        p.predicted,
        p.weighed.len()
    );
    assert_eq!(p.weighed.len(), s.task.weighed);
    assert!(
        p.predicted < walk - 0.1,
        "predicted {} against {walk}",
        p.predicted
    );
    assert!((0.0..=1.0).contains(&p.probability));
    assert!(p.sigma.theta.abs().to_degrees() <= s.task.max_turn_deg);
    // The chosen template's predicted cost is the least of those weighed.
    assert!(p.weighed.iter().all(|(_, c)| *c >= p.predicted));
}

#[test]
fn every_initialisation_starts_and_ends_on_the_walks_own_frames() {
    let (s, creature) = start();
    let skeleton = Skeleton::from_character(&creature.character).unwrap();
    let base = &s.clips[0].gait;
    for theta in [-1.2f64, -0.3, 0.4, 1.0] {
        for start in 0..s.task.from_frames.len() {
            let sigma = motionlab::synthesis::surrogate::Turn { start, theta };
            let m = s.candidate(&skeleton, &sigma).unwrap();
            let j = m.joins.as_ref().unwrap();
            let n = m.gait.frames.len();
            assert_eq!(n, s.task.frames);
            let close = |a: &[f64], b: &[f64]| a.iter().zip(b).all(|(x, y)| (x - y).abs() < 1e-9);
            for i in 0..2 {
                assert!(close(
                    &m.gait.frames[i],
                    &base.frame_at((j.from_frame + i) as i64)
                ));
                let end = j
                    .placement
                    .apply_heading_root(&base.frame_at(j.to_frame as i64 - 1 + i as i64));
                assert!(
                    close(&m.gait.frames[n - 2 + i], &end),
                    "θ {theta}, start {start}"
                );
            }
            // The end is turned by θ.
            let turned = motionlab::model::planar::wrap_angle(j.placement.yaw - theta);
            assert!(
                turned.abs() < 0.35,
                "θ {theta}: placement yaw {}",
                j.placement.yaw
            );
        }
    }
}
