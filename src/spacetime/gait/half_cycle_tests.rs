//! Half a mirror-symmetric cycle ([`GaitSpec::with_mirror_half`]): the same NLP as the whole
//! cycle's on its symmetric points, with half the variables.

use super::*;
use crate::spacetime::{AutoDiff, NlpProblem};

fn biped() -> GaitSpec {
    let sk = creature("simple_biped");
    let (period, timings) = default_timings(&sk);
    let mut spec = GaitSpec::new(sk, 0.7, period, &timings).unwrap();
    spec.torques = Torques::Variables;
    spec.with_mirror_half(true)
}

/// The clip of the point `x` of `problem` (a spec's half or whole NLP).
fn clip_at(problem: &GaitProblem, x: &[f64]) -> GaitClip {
    let (frames, loads, springs) = (problem.poses(x), problem.loads(x), problem.passive(x));
    GaitClip::unsolved(problem.spec(), frames, loads, springs, "test")
}

/// (objective, largest violation) of `spec`'s NLP at the point its warm start gives.
fn at_start(spec: &GaitSpec) -> (f64, f64) {
    let problem = GaitProblem::new(spec.clone());
    let nlp = AutoDiff::new(problem).unwrap();
    let mut x = vec![0.0; nlp.num_variables()];
    nlp.initial_point(&mut x);
    let bounds = crate::nlp::Bounds::of(&nlp).unwrap();
    let violation = crate::nlp::evaluate_violation(&nlp, &bounds, &x).1;
    (nlp.objective(&x).unwrap(), violation)
}

/// On a symmetric point (a disturbed half cycle, its springs their own mirror images, unfolded)
/// the half NLP and the whole cycle's NLP have the same objective and the same largest
/// violation: every row of the whole is a row of the half or its mirror image. The half has
/// half the frames and about half the variables.
#[test]
fn half_a_symmetric_cycle_is_the_whole_cycle_on_its_symmetric_points() {
    let whole_spec = biped();
    let half_spec = whole_spec
        .half_cycle()
        .unwrap()
        .expect("the biped's walk mirrors");
    assert_eq!((half_spec.frames, whole_spec.frames), (15, 30));
    let (half, whole) = (
        GaitProblem::new(half_spec.clone()),
        GaitProblem::new(whole_spec.clone()),
    );
    assert!(
        2 * half.variables() < whole.variables() + 60,
        "{} half variables against {}",
        half.variables(),
        whole.variables()
    );
    let nlp = AutoDiff::new(half.clone()).unwrap();
    let mut x = vec![0.0; nlp.num_variables()];
    nlp.initial_point(&mut x);
    // Disturb the motion and the loads (not the springs, which start slack and so tied).
    let springs =
        half.layout.passive_start..half.layout.passive_start + 3 * half.layout.passive_dofs.len();
    for (k, v) in x.iter_mut().enumerate() {
        if !springs.contains(&k) {
            *v += 0.05 * ((k as f64 * 12.9898).sin() * 43758.5453).fract();
        }
    }
    let unfolded = clip_at(&half, &x).unfold_half(&whole_spec).unwrap();
    assert_eq!(unfolded.frames.len(), 30);
    // The whole cycle started from the unfolded clip, and its half (the clip's first half).
    let started = whole_spec.clone().with_warm_start(unfolded).unwrap();
    let (cost_half, violation_half) = at_start(&started.half_cycle().unwrap().unwrap());
    let (cost_whole, violation_whole) = at_start(&started);
    assert!(violation_half > 1e-3, "the disturbed point is not feasible");
    assert!(
        (cost_half - cost_whole).abs() <= 1e-12 * cost_whole,
        "objective {cost_half} against {cost_whole}"
    );
    assert!(
        (violation_half - violation_whole).abs() <= 1e-9 * violation_whole,
        "violation {violation_half:e} against {violation_whole:e}"
    );
}

/// Springs that are not their mirrors' break the half cycle's tie rows, which the whole cycle
/// does not have: a spring on the left knee alone is a violation of the half.
#[test]
fn the_half_cycle_ties_each_spring_to_its_mirror() {
    let whole_spec = biped();
    let half_spec = whole_spec.half_cycle().unwrap().unwrap();
    let half = GaitProblem::new(half_spec.clone());
    let nlp = AutoDiff::new(half.clone()).unwrap();
    let mut x = vec![0.0; nlp.num_variables()];
    nlp.initial_point(&mut x);
    let names = half.spec().skeleton.dof_names();
    let knee = half
        .layout
        .passive_dofs
        .iter()
        .position(|&d| names[d].starts_with("l_shin"))
        .unwrap();
    let bounds = crate::nlp::Bounds::of(&nlp).unwrap();
    let before = crate::nlp::evaluate_violation(&nlp, &bounds, &x).1;
    x[half.layout.passive(knee)[0]] = 5.0;
    let after = crate::nlp::evaluate_violation(&nlp, &bounds, &x).1;
    assert!(after >= 5.0 && before < 5.0, "{before} then {after}");
}

/// Only a symmetric request is halved, and the reason is named: a timing whose feet are not
/// half a period apart, a turning cycle, a creature without mirror limbs.
#[test]
fn only_a_symmetric_cycle_is_halved() {
    let spec = biped();
    let sk = spec.skeleton.clone();
    let skewed = GaitSpec::new(
        sk.clone(),
        0.7,
        1.0,
        &[timing("l_foot", 0.0, 0.6), timing("r_foot", 0.4, 0.6)],
    )
    .unwrap()
    .with_mirror_half(true);
    let e = skewed.half_cycle().unwrap_err().to_string();
    assert!(e.contains("half a period after its"), "{e}");
    let turning = biped().transformed(0.3).unwrap();
    let e = turning.half_cycle().unwrap_err().to_string();
    assert!(e.contains("only a treadmill cycle"), "{e}");
    let monoped = GaitSpec::new(creature("monoped"), 0.7, 0.5, &[timing("shin", 0.0, 0.5)])
        .unwrap()
        .with_mirror_half(true);
    assert!(monoped.half_cycle().is_err());
    // The horse's trot: diagonal pairs half a period apart, but of two hooves down only the
    // first holds its twist, and the first of a pair is not the mirror of the other pair's.
    let horse = crate::spacetime::tests::horse_trot().with_mirror_half(true);
    let e = horse.half_cycle().unwrap_err().to_string();
    assert!(e.contains("twist are not symmetric"), "{e}");
    assert!(
        biped()
            .with_mirror_half(false)
            .half_cycle()
            .unwrap()
            .is_none()
    );
}

/// A half cycle solved and unfolded is a whole gait: 30 frames, valid as a point of the whole
/// cycle's NLP, by the audit too, its second half the first's mirror image with the feet
/// swapped.
#[cfg(feature = "ipopt")]
#[test]
fn a_solved_half_cycle_unfolds_into_a_valid_whole_gait() {
    let spec = biped();
    let mut options = gait_solver_options();
    options.extra.retain(|(name, _)| name != "mu_strategy");
    options.extra.push((
        "mu_strategy".into(),
        crate::spacetime::OptionValue::Str("monotone".into()),
    ));
    let (clip, _) = solve_gait_exact(&spec, &options).unwrap();
    assert_eq!((clip.frames.len(), clip.contacts.len()), (30, 30));
    assert!(
        clip.is_valid(),
        "{} violation {:e}",
        clip.status,
        clip.max_violation
    );
    let audit = audit(&clip.body(&spec.skeleton).unwrap(), &clip, spec.mu, spec.nu).max();
    assert!(audit <= 1e-6, "audit {audit:e}");
    let (cost, violation) = measure(&spec, &clip).unwrap();
    assert_eq!((cost, violation), (clip.cost, clip.max_violation));
    let left = |i: usize| clip.contacts[i][0].is_some();
    let right = |i: usize| clip.contacts[i][1].is_some();
    assert!((0..15).all(|i| left(i) == right(i + 15)));
    let mirrored = clip.mirrored(&spec.skeleton).unwrap();
    for i in 0..15 {
        assert_eq!(mirrored.frames[i], clip.frames[i + 15]);
    }
}
