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

/// The lifted NLP starts from the computed one's poses and loads, with its torque rows met (the
/// torques start as the motion's own). With slack springs its objective is the computed one's;
/// with springs that hold the weight ([`StartSprings::Holding`]) it is lower (the horse's less
/// than half), and it is the computed form's objective at the same motion, loads and springs.
#[test]
fn the_lifted_effort_starts_at_the_computed_effort_or_below_it_with_holding_springs() {
    // The holding springs' start against the slack one: the horse's heavy body on its legs is
    // mostly weight, the simple biped's walk from the rest pose mostly motion.
    let horse = crate::spacetime::tests::horse_trot();
    for (spec, below) in [
        (biped().with_seed(3), 1.0),
        (biped().transformed(0.4).unwrap(), 1.0),
        (horse, 0.5),
    ] {
        let computed = AutoDiff::new(GaitProblem::new(spec.clone())).unwrap();
        let mut xc = vec![0.0; computed.num_variables()];
        computed.initial_point(&mut xc);
        let fc = computed.objective(&xc).unwrap();
        assert!(fc > 1.0, "the rest pose walks at a cost: {fc}");
        for springs in [StartSprings::Slack, StartSprings::Holding] {
            let mut spec = lifted(spec.clone());
            spec.start_springs = springs;
            let lifted = AutoDiff::new(GaitProblem::new(spec)).unwrap();
            let mut xl = vec![0.0; lifted.num_variables()];
            lifted.initial_point(&mut xl);
            assert!(lifted.num_variables() > computed.num_variables());
            let fl = lifted.objective(&xl).unwrap();
            let problem = lifted.problem();
            // The computed form at the lifted start's motion, loads and springs.
            let mut same = xc.clone();
            for p in 0..problem.layout.passive_dofs.len() {
                let (to, from) = (
                    computed.problem().layout.passive(p),
                    problem.layout.passive(p),
                );
                for k in 0..3 {
                    same[to[k]] = xl[from[k]];
                }
            }
            let fs = computed.objective(&same).unwrap();
            assert!(
                (fs - fl).abs() <= 1e-9 * fs,
                "{springs:?}: {fs} against {fl}"
            );
            match springs {
                StartSprings::Slack => assert!((fc - fl).abs() <= 1e-9 * fc, "{fc} against {fl}"),
                StartSprings::Holding => {
                    assert!(
                        fl < below * fc,
                        "springs holding the weight: {fl} against {fc}"
                    )
                }
            }
            let mut g = vec![0.0; lifted.num_constraints()];
            lifted.constraints(&xl, &mut g).unwrap();
            for (k, (block, _)) in problem.blocks.iter().enumerate() {
                if matches!(block, super::super::problem::Block::Torques { .. }) {
                    for r in lifted.block_rows(k) {
                        assert!(g[r].abs() <= 1e-9, "{springs:?}: torque row {r}: {}", g[r]);
                    }
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
