//! The lifted effort ([`Torques::Variables`]): the same objective as the thesis's computed
//! torques (Wampler 2012, Eq. 3.14), exact derivatives, and solves whose cost is the clip's
//! effort.

use super::*;
use crate::spacetime::NlpProblem;

fn lifted(mut spec: GaitSpec) -> GaitSpec {
    spec.torques = Torques::Variables;
    spec
}

fn biped() -> GaitSpec {
    let sk = creature("simple_biped");
    let (period, timings) = default_timings(&sk);
    GaitSpec::new(sk, 0.7, period, &timings).unwrap()
}

/// Every torque block's Hessian by the dynamics' structure equals the tape's, which sweeps every
/// variable, at a disturbed point and with arbitrary multipliers: the simple biped on the
/// treadmill and turning (its neighbours moved across the seam), the horse trotting.
#[test]
fn the_torque_rows_hessian_by_structure_equals_the_swept_one() {
    let horse = crate::spacetime::tests::horse_trot();
    for spec in [biped(), biped().transformed(-0.5).unwrap(), horse] {
        let name = spec.skeleton.name.clone();
        let problem = GaitProblem::new(lifted(spec));
        let nlp = AutoDiff::new(problem.clone()).unwrap();
        let x = disturbed_point(&nlp);
        let mut compared = 0;
        for (k, block) in problem.constraint_blocks().iter().enumerate() {
            let local: Vec<f64> = block.variables.iter().map(|&v| x[v]).collect();
            let weights: Vec<f64> = (0..block.rows())
                .map(|r| ((r as f64 * 7.13 + k as f64).sin() * 1000.0).fract())
                .collect();
            let Some(fast) = problem.constraint_block_hessian(k, &local, &weights) else {
                continue;
            };
            let (_, swept) = crate::nlp::tape::weighted_hessian(&local, &weights, |v| {
                problem.constraint_block(k, v)
            });
            let scale = swept.iter().fold(0.0f64, |a, v| a.max(v.abs()));
            assert!(scale > 1.0, "{name}: block {k} has no curvature");
            let worst = (&fast - &swept).amax();
            assert!(
                worst <= 1e-10 * scale,
                "{name}: block {k} differs by {worst:e} (scale {scale:e})"
            );
            compared += 1;
        }
        assert_eq!(compared, problem.spec.frames, "{name}: torque blocks");
    }
}

/// The lifted NLP's Hessian of the Lagrangian (torque rows included) matches differences of its
/// gradient, as the computed form's does.
#[test]
fn the_lifted_hessian_matches_differences_of_the_lagrangian_gradient() {
    let spec = GaitSpec::new(creature("monoped"), 0.5, 0.5, &[timing("shin", 0.0, 0.5)]).unwrap();
    check_hessian(lifted(spec));
}

/// From the same start the lifted NLP has the computed one's objective, with its torque rows
/// met: the torques start as the motion's own.
#[test]
fn the_lifted_effort_starts_at_the_computed_effort() {
    for spec in [biped().with_seed(3), biped().transformed(0.4).unwrap()] {
        let computed = AutoDiff::new(GaitProblem::new(spec.clone())).unwrap();
        let lifted = AutoDiff::new(GaitProblem::new(lifted(spec))).unwrap();
        let (mut xc, mut xl) = (
            vec![0.0; computed.num_variables()],
            vec![0.0; lifted.num_variables()],
        );
        computed.initial_point(&mut xc);
        lifted.initial_point(&mut xl);
        assert!(lifted.num_variables() > computed.num_variables());
        let (fc, fl) = (
            computed.objective(&xc).unwrap(),
            lifted.objective(&xl).unwrap(),
        );
        assert!(fc > 1.0, "the rest pose walks at a cost: {fc}");
        assert!((fc - fl).abs() <= 1e-9 * fc, "{fc} against {fl}");
        let mut g = vec![0.0; lifted.num_constraints()];
        lifted.constraints(&xl, &mut g).unwrap();
        let problem = lifted.problem();
        for (k, (block, _)) in problem.blocks.iter().enumerate() {
            if matches!(block, super::super::problem::Block::Torques { .. }) {
                for r in lifted.block_rows(k) {
                    assert!(g[r].abs() <= 1e-9, "torque row {r}: {}", g[r]);
                }
            }
        }
    }
}

/// A lifted solve of the monoped's hop is valid, and its cost is its clip's effort: measured
/// by the computed form's objective from the clip's motion, loads and springs alone.
#[cfg(feature = "ipopt")]
#[test]
fn a_lifted_solve_costs_what_its_clip_costs() {
    let spec = GaitSpec::new(creature("monoped"), 0.7, 0.5, &[timing("shin", 0.8, 0.5)]).unwrap();
    let clip = solve_logged(&lifted(spec.clone()), 300);
    check_solution(&spec, &clip);
    let (cost, violation) = measure(&spec, &clip).unwrap();
    assert!(violation <= 1e-6, "violation {violation:e}");
    assert!(
        (cost - clip.cost).abs() <= 1e-6 * cost,
        "{cost} measured against {} reported",
        clip.cost
    );
}
