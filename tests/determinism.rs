//! Golden trajectory hashes: the same inputs give the same bits on every x86-64 machine, not only
//! run to run on one (docs/simulation.md, "Determinism across
//! machines").
//!
//! Each hash is the 128-bit xxh3 of every body pose after every step (`sim::rollout`). The values
//! were printed by a release build of the patched rapier (vendor/rapier3d, PATCHES.md: the
//! multibody's joint-space products are fixed-order multiply-adds, none goes through
//! `matrixmultiply`'s CPU-chosen kernels) on an AMD EPYC with AVX-512, and match, bit for bit,
//! runs under `qemu-x86_64 -cpu Haswell-v4` (AVX2 and FMA: glibc's FMA variants of `sinf`,
//! `expf`, …) and `-cpu Nehalem-v1` (SSE4 only: glibc's SSE2 variants, no AVX). What differs
//! between machines is not the physics (f32 in rapier, no run-time kernel dispatch) but IPOPT's
//! path (OpenBLAS picks its kernels from the CPU), which every solving process pins
//! (`motionlab::blas`), test binaries included.

mod common;

use common::{assert_success, motionlab, stdout};

/// The `hash:` line of `motionlab simulate ARGS`.
fn simulated_hash(args: &[&str]) -> String {
    let mut all = vec!["simulate"];
    all.extend_from_slice(args);
    let o = motionlab(&all);
    assert_success(&o, &all.join(" "));
    let out = stdout(&o);
    out.lines()
        .find_map(|l| l.strip_prefix("hash: "))
        .unwrap_or_else(|| panic!("no hash line:\n{out}"))
        .to_string()
}

#[test]
fn shipped_scenes_have_their_golden_trajectory_hashes() {
    for (args, golden) in [
        (
            &["scenes/stand_human3d.ron"][..],
            "469b0dd20b7f57fe263a797f7f2e23fd",
        ),
        (
            &["scenes/backflip2d.ron"][..],
            "b1e71952094f4b35db7d6a043f21fcc9",
        ),
        (
            &["scenes/silly_walk_human.ron"][..],
            "ddfed32492e09c844784ef7f36f5c5e7",
        ),
        (
            &["characters/human3d.ron", "--seconds", "10"][..],
            "b5cebbd5fb1167958d6d21d344777ee4",
        ),
    ] {
        assert_eq!(
            simulated_hash(args),
            golden,
            "`simulate {}` left its golden trajectory",
            args.join(" ")
        );
    }
}

/// A diversity search draws its samples from CMA-ES (f64 linear algebra, `exp`, normal deviates)
/// and ranks rollouts on 2 threads: its variants' trajectories are golden too.
#[test]
fn a_seeded_diversity_search_has_golden_variant_hashes() {
    let dir = tempfile::tempdir().unwrap();
    let o = motionlab(&[
        "explore",
        "scenes/backflip2d.ron",
        "--variants",
        "2",
        "--generations",
        "3",
        "--seed",
        "1",
        "--threads",
        "2",
        "--out",
        dir.path().to_str().unwrap(),
    ]);
    assert_success(&o, "explore");
    let result =
        motionlab::diversity::explore::load_result(&dir.path().join("result.ron")).unwrap();
    let hashes: Vec<&str> = result.motions.iter().map(|v| v.hash.as_str()).collect();
    assert_eq!(
        hashes,
        [
            "b1e71952094f4b35db7d6a043f21fcc9",
            "9bfa5eec77a4c09ec040240157e0c485",
            "be19dfdb349584170d53667b273ab878",
        ],
        "the input motion and the two variants of seed 1"
    );
}

/// IPOPT's BLAS kernels are pinned to OpenBLAS's Haswell family on every CPU with AVX2 and FMA
/// (`motionlab::blas`), so a spacetime solve takes the same path on an AVX2 machine and on an
/// AVX-512 one; a family the user sets is kept. OpenBLAS names the family it loaded on stderr
/// when `OPENBLAS_VERBOSE=2`.
#[cfg(all(feature = "ipopt", target_arch = "x86_64"))]
#[test]
fn the_solver_blas_kernels_are_pinned() {
    let loaded_core = |coretype: Option<&str>| -> (String, String) {
        let mut command = std::process::Command::new(env!("CARGO_BIN_EXE_motionlab"));
        command
            .args(["spacetime", "particle", "--solver", "ipopt"])
            .current_dir(env!("CARGO_MANIFEST_DIR"))
            .env("OPENBLAS_VERBOSE", "2")
            .env_remove("OPENBLAS_CORETYPE");
        if let Some(c) = coretype {
            command.env("OPENBLAS_CORETYPE", c);
        }
        let o = command.output().unwrap();
        assert_success(&o, "spacetime particle");
        let err = common::stderr(&o);
        let cores: Vec<&str> = err
            .lines()
            .filter_map(|l| l.strip_prefix("Core: "))
            .collect();
        // IPOPT, and OpenBLAS with it, is loaded once, at the first solve.
        assert_eq!(cores.len(), 1, "{err}");
        (cores[0].to_string(), err)
    };
    let avx2 =
        std::arch::is_x86_feature_detected!("avx2") && std::arch::is_x86_feature_detected!("fma");
    if avx2 {
        assert_eq!(loaded_core(None).0, "Haswell");
    }
    assert_eq!(
        loaded_core(Some("Nehalem")).0,
        "Nehalem",
        "the user's choice is kept"
    );
    // A family the CPU cannot run is replaced with a warning, not left to OpenBLAS, which
    // would stop the process with an illegal instruction; on an AVX-512 CPU it is kept.
    let (core, err) = loaded_core(Some("SkylakeX"));
    if motionlab::blas::runnable_here("SkylakeX") {
        assert_eq!(core, "SkylakeX", "the user's choice is kept");
    } else {
        assert!(
            err.contains("OPENBLAS_CORETYPE=SkylakeX names BLAS kernels this CPU cannot run"),
            "{err}"
        );
        if avx2 {
            assert_eq!(core, "Haswell", "{err}");
        }
    }
}

/// A test binary that solves in its own process is pinned as the program is: after an in-process
/// IPOPT solve, the OpenBLAS loaded in this very process runs the pinned family (or the one the
/// user set in `OPENBLAS_CORETYPE` before the tests started, when this CPU can run it).
#[cfg(all(feature = "ipopt", target_arch = "x86_64"))]
#[test]
fn a_solve_inside_a_test_binary_runs_the_pinned_blas_kernels() {
    let user_choice = std::env::var("OPENBLAS_CORETYPE").ok();
    let spec = motionlab::spacetime::particle::ParticleSpec::table_3_1();
    let s = motionlab::spacetime::particle::solve_particle(&spec, &Default::default()).unwrap();
    assert!(s.status.is_success(), "{:?}", s.status);
    let core = motionlab::blas::loaded_core().expect("OpenBLAS is loaded by the solve");
    let avx2 =
        std::arch::is_x86_feature_detected!("avx2") && std::arch::is_x86_feature_detected!("fma");
    let want = match user_choice.as_deref() {
        // A family this CPU cannot run is replaced by the pinned one (`motionlab::blas`).
        Some(c) if !motionlab::blas::runnable_here(c) => match motionlab::blas::pinned_coretype() {
            Some(pinned) => pinned.to_string(),
            None => return,
        },
        Some(c) => c.to_string(),
        None if avx2 => motionlab::blas::PINNED_CORETYPE.to_string(),
        None => return,
    };
    assert!(
        core.eq_ignore_ascii_case(&want),
        "this test binary runs OpenBLAS's {core} kernels, not {want}"
    );
}
