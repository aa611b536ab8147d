//! Test helpers of the spacetime solver (the shipped creatures) and the characters' solver hints.

use super::skeleton::Skeleton;

/// A creature of `characters/` by name (monoped, simple_biped, velociraptor, horse, pentaped).
pub(crate) fn creature(name: &str) -> Skeleton {
    Skeleton::load(
        std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("characters")
            .join(format!("{name}.ron")),
    )
    .unwrap()
}

/// The horse's trot at 1 m/s (period 0.8 s, the diagonal pairs down 0.6 of the cycle).
pub(crate) fn horse_trot() -> super::gait::GaitSpec {
    let timing = |foot: &str, start: f64| super::gait::FootTiming {
        foot: foot.into(),
        start,
        duration: 0.6,
    };
    let feet = [
        timing("lh_pastern", 0.0),
        timing("rf_pastern", 0.0),
        timing("rh_pastern", 0.5),
        timing("lf_pastern", 0.5),
    ];
    super::gait::GaitSpec::new(creature("horse"), 1.0, 0.8, &feet).unwrap()
}

/// A character file's own solver settings (`gait:`), the defaults of `gait` for that creature.
mod solve_hints {
    use crate::spacetime::skeleton::{Skeleton, SolveHints};
    use std::path::Path;

    use crate::spacetime::skeleton::tests::STICK;

    fn parse(text: &str) -> Result<Skeleton, crate::model::ModelError> {
        Skeleton::parse(text, Path::new("characters/stick.ron"))
    }

    #[test]
    fn hints_are_read_checked_and_optional() {
        assert_eq!(
            parse(STICK).unwrap().solve,
            SolveHints {
                lbfgs_iterations: Some(1500),
                sample_iterations: Some(3000),
                ..Default::default()
            }
        );
        let without = STICK.replace(
            "    gait: (lbfgs_iterations: Some(1500), sample_iterations: Some(3000)),\n",
            "",
        );
        assert_eq!(parse(&without).unwrap().solve, SolveHints::default());
        let partial = STICK.replace(", sample_iterations: Some(3000)", "");
        assert_eq!(
            parse(&partial).unwrap().solve,
            SolveHints {
                lbfgs_iterations: Some(1500),
                sample_iterations: None,
                ..Default::default()
            }
        );

        let e = parse(&STICK.replace("Some(3000)", "Some(0)"))
            .unwrap_err()
            .to_string();
        assert!(
            e.starts_with("characters/stick.ron") && e.contains("at least 1 IPOPT iteration"),
            "{e}"
        );
        let e = parse(&STICK.replace(
            "sample_iterations: Some(3000)",
            "sample_iterations: Some(3000), starts: Some(0)",
        ))
        .unwrap_err()
        .to_string();
        assert!(
            e.starts_with("characters/stick.ron") && e.contains("starts: expected a whole number"),
            "{e}"
        );
        let lifted = parse(&STICK.replace(
            "sample_iterations: Some(3000)",
            "sample_iterations: Some(3000), torques: Some(Variables), starts: Some(2), barrier: Some(Monotone)",
        ))
        .unwrap()
        .solve;
        assert_eq!(lifted.torques, Some(crate::model::Torques::Variables));
        assert_eq!(lifted.starts, Some(2));
        assert_eq!(lifted.barrier, Some(crate::model::Barrier::Monotone));
        // An unknown key is named with its line (the `gait` line is the file's 14th).
        let e = parse(&STICK.replace("sample_iterations", "samples"))
            .unwrap_err()
            .to_string();
        assert!(
            e.starts_with("characters/stick.ron:14:") && e.contains("samples"),
            "{e}"
        );
    }

    /// The horse's longer L-BFGS stage and its lifted monotone solve from holding springs, the
    /// sample budgets that converge (docs/results.md), and the simple biped's lifted pair of
    /// starts (docs/gaits.md).
    #[test]
    fn the_horse_and_the_velociraptor_carry_their_solver_settings() {
        let horse = super::creature("horse").solve;
        assert_eq!(horse.lbfgs_iterations, Some(1500));
        assert_eq!(horse.sample_iterations, Some(3000));
        assert_eq!(horse.torques, Some(crate::model::Torques::Variables));
        assert_eq!(horse.barrier, Some(crate::model::Barrier::Monotone));
        assert_eq!(horse.springs, Some(crate::model::StartSprings::Holding));
        assert_eq!(horse.starts, None);
        let raptor = super::creature("velociraptor").solve;
        assert_eq!(raptor.lbfgs_iterations, None);
        assert_eq!(raptor.sample_iterations, Some(3000));
        assert_eq!(raptor.torques, Some(crate::model::Torques::Variables));
        assert_eq!(raptor.barrier, Some(crate::model::Barrier::Monotone));
        assert_eq!(raptor.springs, Some(crate::model::StartSprings::Holding));
        // The simple biped's walk: the torques as variables, a pair of starts, half a mirrored
        // cycle; the horse's trot cannot be halved (its held twists do not mirror).
        let biped = super::creature("simple_biped").solve;
        assert_eq!(biped.lbfgs_iterations, None);
        assert_eq!(biped.torques, Some(crate::model::Torques::Variables));
        assert_eq!(biped.starts, Some(2));
        assert_eq!(biped.mirror_half, Some(true));
        assert_eq!(horse.mirror_half, None);
    }
}
