//! A gait solve started from a clip (`init`, `gait --init`; Wampler 2012, §3.2–3.3): a clip is
//! refined, a wrong one refused by name, a start measured by the problem at hand, kept only when
//! the refinement ends worse and the start meets the problem's constraints, and a start that
//! breaks a new constraint solved with a wider barrier. Results are read from the typed outcome.
#![cfg(feature = "ipopt")]

mod common;

use common::gait::{character, error_of, monoped_discovery, run};
use common::{motionlab, stderr, stdout};
use motionlab::spacetime::gait::GaitClip;
use motionlab::spacetime::job::{GaitEvent, GaitHessian, GaitRequest};
use std::path::PathBuf;

#[test]
fn gait_init_refines_a_clip_and_refuses_a_wrong_one() {
    let dir = tempfile::tempdir().unwrap();
    let first = dir.path().join("hop.ron");
    let capped = GaitRequest {
        max_iterations: 60,
        ..GaitRequest::new(character("monoped.ron"), 0.5)
    };
    let (o, _) = run(&GaitRequest {
        out: Some(first.clone()),
        ..capped.clone()
    });
    let o = o.unwrap();
    assert!(o.clip.is_valid());
    let cost0 = o.clip.cost;
    // 60 iterations do not converge: the clip is the projection of one of the solve's iterates
    // (the last, or a cheaper earlier one), named in the clip.
    let from = o.clip.projected_from.expect("a projected clip");
    assert!(from <= 60, "{from}");
    let clip = std::fs::read_to_string(&first).unwrap();
    assert!(
        clip.contains(&format!("projected_from: Some({from})")),
        "{clip}"
    );
    // 60 more iterations from the clip: same timing (the clip's), a lower cost, still valid.
    let (o, events) = run(&GaitRequest {
        init: Some(first.clone()),
        ..capped.clone()
    });
    let o = o.unwrap();
    assert!(events.contains(&GaitEvent::Start {
        from: first.display().to_string()
    }));
    assert_eq!(
        (o.spec.timings[0].start, o.spec.timings[0].duration),
        (0.0, 0.5)
    );
    assert!(
        o.clip.cost < cost0,
        "refining lowers the cost: {cost0} then {}",
        o.clip.cost
    );
    assert!(o.audit_max_violation <= 1e-6, "{}", o.audit_max_violation);

    // Another creature's clip, a file that is not a clip, a missing file: clear errors.
    let err = error_of(&GaitRequest {
        init: Some(first.clone()),
        ..GaitRequest::new(character("simple_biped.ron"), 0.5)
    });
    assert!(
        err.contains("the clip is of creature `monoped`, not `simple biped`"),
        "{err}"
    );
    let bad = dir.path().join("bad.ron");
    std::fs::write(&bad, "(\n  creature: 3,\n)").unwrap();
    let err = error_of(&GaitRequest {
        init: Some(bad.clone()),
        ..capped.clone()
    });
    assert!(err.contains(&format!("{}:2:", bad.display())), "{err}");
    let err = error_of(&GaitRequest {
        init: Some(dir.path().join("none.ron")),
        ..capped.clone()
    });
    assert!(err.contains("none.ron"), "{err}");
    // A discovery's period range must be (shortest, longest), shortest first.
    let mut backwards = monoped_discovery(0.5);
    backwards.discover.as_mut().unwrap().period_range = Some((0.9, 0.4));
    let err = error_of(&backwards);
    assert!(
        err.contains("a period range needs 0 < shortest < longest"),
        "{err}"
    );
    // The command line names its flags in the same errors.
    let refused = |range: &str, want: &str| {
        let o = motionlab(&[
            "gait",
            "characters/monoped.ron",
            "--speed",
            "0.5",
            "--discover",
            "--period-range",
            range,
        ]);
        assert!(!o.status.success());
        assert!(stderr(&o).contains(want), "{}", stderr(&o));
    };
    refused(
        "0.9:0.4",
        "--period-range: a period range needs 0 < shortest < longest",
    );
    refused("0.9", "expected SHORTEST:LONGEST in seconds");
}

/// A clip edited by hand (a NaN coordinate, a frame too short) is refused as a start with the
/// file and what is wrong, before any solve starts.
#[test]
fn gait_init_refuses_a_clip_with_a_nan_or_a_short_frame() {
    let shipped = std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/assets/gaits/monoped_hop_0.5ms.ron"
    ))
    .unwrap();
    let dir = tempfile::tempdir().unwrap();
    let nan = shipped.replacen(
        "    frames: [\n        [\n            0.0,",
        "    frames: [\n        [\n            NaN,",
        1,
    );
    let short = shipped.replacen(
        "    frames: [\n        [\n            0.0,",
        "    frames: [\n        [",
        1,
    );
    assert_ne!(nan, shipped);
    assert_ne!(short, shipped);
    for (name, text, expected) in [
        (
            "nan.ron",
            nan,
            "frame 0 has a coordinate that is not a finite number",
        ),
        (
            "short.ron",
            short,
            "frame 0 has 9 coordinates, the creature 10",
        ),
    ] {
        let path = dir.path().join(name);
        std::fs::write(&path, text).unwrap();
        let err = error_of(&GaitRequest {
            max_iterations: 5,
            init: Some(path.clone()),
            ..GaitRequest::new(character("monoped.ron"), 0.5)
        });
        assert!(
            err.contains(&path.display().to_string()) && err.contains(expected),
            "{name}: expected the path and {expected:?} in:\n{err}"
        );
    }
}

/// IPOPT is no descent method, so a refinement keeps its start when it ends worse. Made to end
/// worse on every machine: IPOPT is told to maximize (`obj_scaling_factor=-1`) from the shipped,
/// converged hop; the job reports `KeptStart` and the clip is the start's (its cost measured by
/// the problem at hand).
#[test]
fn gait_init_keeps_a_valid_start_when_the_refinement_ends_worse() {
    let hop = PathBuf::from(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/assets/gaits/monoped_hop_0.5ms.ron"
    ));
    let start: GaitClip = motionlab::files::read_ron(&hop).unwrap();
    let (o, events) = run(&GaitRequest {
        init: Some(hop),
        hessian: GaitHessian::Lbfgs,
        max_iterations: 20,
        ipopt: vec![(
            "obj_scaling_factor".into(),
            motionlab::spacetime::OptionValue::Num(-1.0),
        )],
        ..GaitRequest::new(character("monoped.ron"), 0.5)
    });
    let o = o.unwrap();
    assert!(o.kept_start);
    assert!(
        events
            .iter()
            .any(|e| matches!(e, GaitEvent::KeptStart { .. }))
    );
    // The start's motion, its cost measured again by this problem (to rounding).
    assert_eq!(o.clip.frames, start.frames);
    assert!((o.clip.cost - start.cost).abs() <= 1e-9 * start.cost);
    assert!(o.clip.max_violation <= 1e-6);
}

/// A start clip is measured by the problem at hand, not by its own figures: the shipped
/// 1.0 m/s walk is feasible for the objective and constraints it was solved with, and its box
/// feet's sole corners dip under the ground in the air (0.9–3.9 cm, issue P6's physics
/// playback), so with `sole_clearance` it is no valid point, and a solve that ends above it can
/// no longer keep it.
#[test]
fn a_start_is_measured_by_the_problem_at_hand() {
    use motionlab::spacetime::gait::{GaitSpec, GaitWeights, measure};
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    let clip: GaitClip = motionlab::files::read_ron(
        &root.join("assets/spaces/human3d_locomotion/gait/gait=walk1.0_turn=0.ron"),
    )
    .unwrap();
    let skeleton =
        motionlab::spacetime::skeleton::Skeleton::load(&root.join("characters/human3d_walker.ron"))
            .unwrap();
    let posture: Vec<String> = ["arm", "hand", "head", "torso"].map(String::from).to_vec();
    let spec = |sole_clearance: bool| {
        let mut spec = GaitSpec::new(skeleton.clone(), clip.speed, clip.period, &clip.timings)
            .unwrap()
            .transformed(0.0)
            .unwrap()
            .with_posture(&posture)
            .unwrap();
        // The shipped space's objective: `Posture(1.0, …)` with the thesis's weights.
        spec.weights = GaitWeights {
            posture: 1.0,
            ..GaitWeights::THESIS
        };
        spec.flat_feet = true;
        spec.sole_clearance = sole_clearance;
        spec
    };
    let (cost, violation) = measure(&spec(false), &clip).unwrap();
    assert!(
        (cost - clip.cost).abs() <= 1e-6 * clip.cost,
        "{cost} vs the clip's own {}",
        clip.cost
    );
    assert!(violation <= 1e-6, "{violation}");
    let (cost, violation) = measure(&spec(true), &clip).unwrap();
    assert!((cost - clip.cost).abs() <= 1e-6 * clip.cost);
    assert!(
        (0.005..0.05).contains(&violation),
        "the lowest sole corner is 0.9–3.9 cm under the ground: {violation}"
    );
}

/// `gait --init`: a start clip that meets the problem's constraints is continued with a small
/// barrier ([`warm_start_options`]); one that breaks a constraint added since it was solved (the
/// shipped walk's soles under the ground, `--sole-clearance`) gets IPOPT's adaptive barrier and
/// wider bound pushes ([`refit_options`]), and is never kept in place of the solve's result.
#[test]
fn a_start_that_breaks_a_constraint_is_solved_with_a_wider_barrier_and_never_kept() {
    let run = |extra: &[&str]| {
        let mut args = vec![
            "gait",
            "characters/human3d_walker.ron",
            "--speed",
            "1.0",
            "--turn-rate",
            "0",
            "--flat-feet",
            "--init",
            "assets/spaces/human3d_locomotion/gait/gait=walk1.0_turn=0.ron",
            "--hessian",
            "exact",
            "--max-iterations",
            "1",
            "--print-level",
            "5",
            "--ipopt",
            "print_user_options=yes",
        ];
        args.extend_from_slice(extra);
        let o = motionlab(&args);
        assert!(o.status.code().is_some(), "{}", stderr(&o));
        stdout(&o)
    };
    let option = |out: &str, name: &str| {
        out.lines()
            .map(|l| l.split_whitespace().collect::<Vec<_>>())
            .find(|w| w.len() >= 3 && w[0] == name && w[1] == "=")
            .map(|w| w[2].to_string())
            .unwrap_or_else(|| panic!("no `{name}` among the user options:\n{out}"))
    };
    let fits = run(&[]);
    assert_eq!(option(&fits, "mu_strategy"), "monotone", "{fits}");
    assert_eq!(option(&fits, "bound_push"), "1e-10");
    let breaks = run(&["--sole-clearance"]);
    assert_eq!(option(&breaks, "mu_strategy"), "adaptive", "{breaks}");
    assert_eq!(option(&breaks, "bound_push"), "0.001");
    assert!(!breaks.contains("kept_start true"), "{breaks}");
}
