//! The ripopt back end on HS071 (the problem of IPOPT's own C example): the known optimum with
//! the exact Hessian and with L-BFGS, the best iterates kept, a cancel, a panicking callback,
//! and IPOPT's option names it has no counterpart for.

use super::hs071_tests::HS071;
use super::hs071_tests::solver::{HS071_OPTIMUM, Panicking, check_hs071_with};
use super::{AutoDiff, Backend, HessianMode, NlpProblem, OptionValue, SolveStatus, SolverOptions};
use super::{NlpError, solve};
use std::sync::Arc;
use std::sync::atomic::AtomicBool;

fn ripopt() -> SolverOptions {
    SolverOptions {
        backend: Backend::Ripopt,
        ..Default::default()
    }
}

#[test]
fn hs071_reaches_the_known_optimum_with_either_hessian() {
    for hessian in [HessianMode::Exact, HessianMode::LimitedMemory] {
        // ripopt stops a little less feasible than IPOPT (2.5e-7 against below 1e-7).
        check_hs071_with(
            SolverOptions {
                hessian,
                ..ripopt()
            },
            1e-6,
        );
    }
}

/// The kept iterates are the problem's own points: their objective is f(x), their violation
/// within the level, and the feasible one is at the optimum.
#[test]
fn the_best_iterates_are_kept_in_the_problems_variables() {
    let p = AutoDiff::new(HS071).unwrap();
    let s = solve(
        &p,
        &SolverOptions {
            keep_best: vec![f64::INFINITY, 1e-6],
            ..ripopt()
        },
    )
    .unwrap();
    assert!(s.status.is_success(), "{:?}", s.status);
    for b in s.best_iterates.iter().map(|b| b.as_ref().unwrap()) {
        assert_eq!(b.x.len(), 4);
        assert_eq!(p.objective(&b.x).unwrap(), b.objective);
    }
    let feasible = s.best_iterates[1].as_ref().unwrap();
    assert!(feasible.max_violation <= 1e-6, "{feasible:?}");
    assert!(
        (feasible.objective - HS071_OPTIMUM).abs() < 1e-4,
        "{feasible:?}"
    );
}

#[test]
fn a_cancel_and_a_panic_end_the_solve_with_their_status() {
    let p = AutoDiff::new(HS071).unwrap();
    let s = solve(
        &p,
        &SolverOptions {
            cancel: Some(Arc::new(AtomicBool::new(true))),
            ..ripopt()
        },
    )
    .unwrap();
    assert_eq!(s.status, SolveStatus::UserRequestedStop);
    let s = solve(&Panicking::new(3), &ripopt()).unwrap();
    assert_eq!(s.status, SolveStatus::CallbackPanicked);
    assert_eq!(s.callback_error.as_deref(), Some("objective blew up"));
}

/// IPOPT's tuning without a ripopt counterpart is left to ripopt; a counterpart given a value
/// of the wrong kind is refused by name.
#[test]
fn ipopt_option_names_are_mapped_or_left() {
    let p = AutoDiff::new(HS071).unwrap();
    let s = solve(
        &p,
        &SolverOptions {
            extra: vec![
                ("mu_strategy".into(), OptionValue::Str("adaptive".into())),
                ("acceptable_tol".into(), OptionValue::Num(1e-4)),
                ("bound_push".into(), OptionValue::Num(1e-4)),
            ],
            ..ripopt()
        },
    )
    .unwrap();
    assert!(
        (s.objective - HS071_OPTIMUM).abs() < 1e-6,
        "{}",
        s.objective
    );
    let r = solve(
        &p,
        &SolverOptions {
            extra: vec![("mu_init".into(), OptionValue::Str("small".into()))],
            ..ripopt()
        },
    );
    assert!(
        matches!(&r, Err(NlpError::RejectedOption { name, .. }) if name == "mu_init"),
        "{r:?}"
    );
}
