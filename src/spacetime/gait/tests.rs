use super::*;
use crate::spacetime::tests::creature;
use crate::spacetime::{AutoDiff, NlpProblem};

/// Solves `spec` (L-BFGS capped at `iterations`, then projected) and logs how it ended.
#[cfg(feature = "ipopt")]
fn solve_logged(spec: &GaitSpec, iterations: usize) -> GaitClip {
    let mut options = gait_solver_options();
    options.max_iterations = iterations;
    let clip = solve_gait(spec, &options, crate::spacetime::Curvature::Exact).unwrap();
    eprintln!(
        "{}: {} {:?} cost {} iterations {} violation {:e} time {:.2}s",
        spec.skeleton.name,
        clip.status,
        clip.projection_status,
        clip.cost,
        clip.iterations,
        clip.max_violation,
        clip.solve_time_s
    );
    clip
}

fn timing(foot: &str, start: f64, duration: f64) -> FootTiming {
    FootTiming {
        foot: foot.into(),
        start,
        duration,
    }
}

#[test]
fn contact_overlap_tells_a_hop_from_a_run() {
    let sk = creature("simple_biped");
    let feet: Vec<String> = sk.feet.iter().map(|&l| sk.limbs[l].name.clone()).collect();
    let overlap = |a: (f64, f64), b: (f64, f64)| {
        let spec = GaitSpec::new(
            sk.clone(),
            2.5,
            1.0,
            &[timing(&feet[0], a.0, a.1), timing(&feet[1], b.0, b.1)],
        )
        .unwrap();
        (spec.contact_overlap(0, 1), spec.contact_overlap(1, 0))
    };
    // Hop: both down over the same 9 frames.
    assert_eq!(overlap((0.0, 0.3), (0.0, 0.3)), (1.0, 1.0));
    // Run: alternating windows, never together.
    assert_eq!(overlap((0.0, 0.3), (0.5, 0.3)), (0.0, 0.0));
    // Walk: each foot down 0.6, half a cycle apart: frames 0–17 and 15–29 plus 0–2 share
    // frames 0–2 and 15–17, 6 of 18.
    let (ab, ba) = overlap((0.0, 0.6), (0.5, 0.6));
    assert!((ab - 6.0 / 18.0).abs() < 1e-12 && ab == ba, "{ab} {ba}");
}

#[test]
fn a_trot_has_its_diagonal_pairs_in_step() {
    // Horse feet lh, rh, lf, rf: lh + rf down 0–0.5, rh + lf down 0.5–1.
    let sk = creature("horse");
    let feet: Vec<String> = sk.feet.iter().map(|&l| sk.limbs[l].name.clone()).collect();
    let t = |k: usize, start: f64| timing(&feet[k], start, 0.5);
    let spec = GaitSpec::new(sk, 2.0, 0.6, &[t(0, 0.0), t(1, 0.5), t(2, 0.5), t(3, 0.0)]).unwrap();
    assert_eq!(
        feet_in_step(spec.contacts()),
        vec![(0, 3, 1.0), (1, 2, 1.0)]
    );
}

#[test]
fn contact_windows_wrap_around_the_cycle_end() {
    let sk = creature("simple_biped");
    let spec = GaitSpec::new(
        sk,
        0.7,
        1.0,
        &[timing("r_foot", 0.5, 0.6), timing("l_foot", 0.0, 0.6)],
    )
    .unwrap();
    // l_foot: frames 0..=17; r_foot: 15..=29 and 0..=2 (18 frames each).
    let left: Vec<usize> = (0..30).filter(|&i| spec.in_contact(i, 0)).collect();
    let right: Vec<usize> = (0..30).filter(|&i| spec.in_contact(i, 1)).collect();
    assert_eq!(left, (0..18).collect::<Vec<_>>());
    assert_eq!(
        right,
        [0, 1, 2].into_iter().chain(15..30).collect::<Vec<_>>()
    );
    assert!(spec.has_double_support() && !spec.has_flight());
    let hop = GaitSpec::new(creature("monoped"), 0.5, 0.5, &[timing("shin", 0.0, 0.5)]).unwrap();
    assert!(hop.has_flight() && !hop.has_double_support());
    assert_eq!(
        parse_timings("l_foot:0:0.6, r_foot:0.5:0.6").unwrap()[1],
        timing("r_foot", 0.5, 0.6)
    );
    assert!(matches!(
        parse_timings("l_foot:0"),
        Err(GaitError::Syntax(_))
    ));
    assert!(matches!(
        GaitSpec::new(creature("monoped"), 0.5, 0.5, &[timing("shin", 0.0, 1.0)]),
        Err(GaitError::FullContact(..))
    ));
    assert!(
        GaitSpec::new(creature("monoped"), 0.0, 0.5, &[timing("shin", 0.0, 1.0)]).is_ok(),
        "standing still"
    );
    let sk = creature("simple_biped");
    assert!(matches!(
        GaitSpec::new(sk.clone(), 0.7, 1.0, &[timing("l_foot", 0.0, 0.6)]),
        Err(GaitError::MissingFoot(_))
    ));
    assert!(matches!(
        GaitSpec::new(sk.clone(), 0.7, 1.0, &[timing("toe", 0.0, 0.6)]),
        Err(GaitError::UnknownFoot(..))
    ));
    assert!(matches!(
        GaitSpec::new(
            sk,
            0.7,
            1.0,
            &[timing("l_foot", 1.2, 0.6), timing("r_foot", 0.0, 0.5)]
        ),
        Err(GaitError::Window { .. })
    ));
}

/// A point away from the rest pose, with loads and passive elements, to test derivatives.
fn disturbed_point(nlp: &AutoDiff<GaitProblem>) -> Vec<f64> {
    let mut x = vec![0.0; nlp.num_variables()];
    nlp.initial_point(&mut x);
    for (k, v) in x.iter_mut().enumerate() {
        *v += 0.05 * ((k as f64 * 12.9898).sin() * 43758.5453).fract();
    }
    x
}

#[test]
fn derivative_blocks_match_central_differences() {
    // Monoped hop with a window crossing the cycle end (frames 24..=29 and 0..=8).
    let spec = GaitSpec::new(creature("monoped"), 0.7, 0.5, &[timing("shin", 0.8, 0.5)]).unwrap();
    check_derivatives(spec.clone());
    // With the body's shape as variables and the muscle-aware effort (3.26)–(3.33).
    let shaped = spec
        .clone()
        .with_morphology(Some(MorphologyOptions::default()));
    assert_eq!(
        GaitProblem::new(shaped.clone()).variables(),
        GaitProblem::new(spec).variables() + 4,
        "thigh and shin: a length and a radius scale each"
    );
    check_derivatives(shaped);
}

#[test]
fn a_minimum_head_height_bounds_every_frame_and_frees_the_neck() {
    let horse = creature("horse");
    let (period, timings) = default_timings(&horse);
    let spec = GaitSpec::new(horse.clone(), 1.0, period, &timings).unwrap();
    let plain = GaitProblem::new(spec.clone());
    let morph = |h: Option<f64>| {
        GaitProblem::new(spec.clone().with_morphology(Some(MorphologyOptions {
            muscle: true,
            min_head_height: h,
        })))
    };
    // 8 leg pairs, then the neck too: two scales each.
    assert_eq!(morph(None).variables(), plain.variables() + 16);
    let raised = morph(Some(1.6));
    assert_eq!(raised.variables(), plain.variables() + 18);
    let rows: Vec<(f64, f64)> = raised
        .constraint_blocks()
        .iter()
        .flat_map(|b| b.lower.iter().copied().zip(b.upper.iter().copied()))
        .collect();
    let plain_rows = plain
        .constraint_blocks()
        .iter()
        .map(|b| b.lower.len())
        .sum::<usize>();
    assert_eq!(rows.len(), plain_rows + FRAMES, "one head row per frame");
    assert_eq!(
        rows.iter().filter(|r| **r == (1.6, f64::INFINITY)).count(),
        FRAMES
    );
    // At the start (rest pose, file body) the head row reads the muzzle's height.
    let nlp = AutoDiff::new(raised).unwrap();
    let mut x = vec![0.0; nlp.num_variables()];
    nlp.initial_point(&mut x);
    let mut g = vec![0.0; nlp.num_constraints()];
    nlp.constraints(&x, &mut g).unwrap();
    let head = forward_kinematics(&horse, &horse.morphology::<f64>(), &horse.rest_pose()).limbs
        [horse.head.unwrap()]
    .end
    .y;
    assert!(head > 0.5 && head < 1.6, "rest muzzle height {head}");
    let bounds = nlp.problem().constraint_blocks();
    let mut k = 0;
    let mut found = 0;
    for b in &bounds {
        for lower in &b.lower {
            if *lower == 1.6 {
                assert!((g[k] - head).abs() < 1e-12, "{} vs {head}", g[k]);
                found += 1;
            }
            k += 1;
        }
    }
    assert_eq!(found, FRAMES);
}

fn check_derivatives(spec: GaitSpec) {
    let nlp = AutoDiff::new(GaitProblem::new(spec)).unwrap();
    let x = disturbed_point(&nlp);
    let (n, m) = (nlp.num_variables(), nlp.num_constraints());
    let h = 1e-6;
    let mut grad = vec![0.0; n];
    nlp.objective_gradient(&x, &mut grad).unwrap();
    let structure = nlp.jacobian_structure();
    let mut jac = vec![0.0; structure.len()];
    nlp.jacobian_values(&x, &mut jac).unwrap();
    let mut by_column: Vec<Vec<(usize, f64)>> = vec![Vec::new(); n];
    for (k, &(r, c)) in structure.iter().enumerate() {
        by_column[c].push((r, jac[k]));
    }
    let (mut gp, mut gm) = (vec![0.0; m], vec![0.0; m]);
    for c in 0..n {
        let (mut xp, mut xm) = (x.clone(), x.clone());
        xp[c] += h;
        xm[c] -= h;
        let (fp, fm) = (nlp.objective(&xp).unwrap(), nlp.objective(&xm).unwrap());
        let fd = (fp - fm) / (2.0 * h);
        // Central differences carry a rounding error of about ε·|f|/h besides O(h²).
        let rounding = 1e-15 * fp.abs().max(fm.abs()) / h;
        assert!(
            (fd - grad[c]).abs() <= 1e-5 * (1.0 + fd.abs()) + rounding,
            "∂f/∂x{c}: {} vs {fd}",
            grad[c]
        );
        nlp.constraints(&xp, &mut gp).unwrap();
        nlp.constraints(&xm, &mut gm).unwrap();
        let mut dense: Vec<f64> = gp
            .iter()
            .zip(&gm)
            .map(|(a, b)| (a - b) / (2.0 * h))
            .collect();
        for &(r, v) in &by_column[c] {
            let rounding = 1e-15 * gp[r].abs().max(gm[r].abs()) / h;
            assert!(
                (dense[r] - v).abs() <= 1e-5 * (1.0 + v.abs()) + rounding,
                "∂c{r}/∂x{c}: {v} vs {}",
                dense[r]
            );
            dense[r] = 0.0;
        }
        // Nothing outside the declared structure depends on x_c.
        let stray = dense.iter().fold(0.0f64, |a, v| a.max(v.abs()));
        assert!(
            stray < 1e-6,
            "x{c} changes a constraint outside the Jacobian structure ({stray})"
        );
    }
}

/// The exact Hessian of the Lagrangian σ∇²f + Σλᵢ∇²cᵢ (the tape's second-order adjoints) against
/// central differences of the exact Lagrangian gradient ∇f + Jᵀλ, at a disturbed point with
/// λ of both signs: the curvature `--hessian exact` hands to IPOPT is the true one.
fn check_hessian(spec: GaitSpec) {
    let nlp = AutoDiff::new(GaitProblem::new(spec)).unwrap();
    let x = disturbed_point(&nlp);
    let (n, m) = (nlp.num_variables(), nlp.num_constraints());
    let lambda: Vec<f64> = (0..m)
        .map(|k| ((k as f64 * 7.13).sin() * 1000.0).fract())
        .collect();
    let structure = nlp.jacobian_structure();
    let lagrangian_gradient = |x: &[f64]| {
        let mut g = vec![0.0; n];
        nlp.objective_gradient(x, &mut g).unwrap();
        let mut jac = vec![0.0; structure.len()];
        nlp.jacobian_values(x, &mut jac).unwrap();
        for (&(r, c), v) in structure.iter().zip(&jac) {
            g[c] += lambda[r] * v;
        }
        g
    };
    let mut dense = vec![vec![0.0; n]; n];
    let hessian = nlp.hessian_structure().unwrap();
    let mut values = vec![0.0; hessian.len()];
    nlp.hessian_values(&x, 1.0, &lambda, &mut values).unwrap();
    for (&(r, c), v) in hessian.iter().zip(&values) {
        dense[r][c] += v;
        if r != c {
            dense[c][r] += v;
        }
    }
    let h = 1e-6;
    // Every third column (each kind of variable included), to keep the debug-build test short.
    for c in (0..n).step_by(3) {
        let (mut xp, mut xm) = (x.clone(), x.clone());
        xp[c] += h;
        xm[c] -= h;
        let (gp, gm) = (lagrangian_gradient(&xp), lagrangian_gradient(&xm));
        for r in 0..n {
            let fd = (gp[r] - gm[r]) / (2.0 * h);
            let rounding = 1e-15 * gp[r].abs().max(gm[r].abs()) / h;
            assert!(
                (fd - dense[r][c]).abs() <= 1e-3 * (1.0 + fd.abs()) + rounding,
                "∂²L/∂x{r}∂x{c}: {} vs {fd}",
                dense[r][c]
            );
        }
    }
}

#[test]
fn exact_hessian_matches_differences_of_the_lagrangian_gradient() {
    let spec = GaitSpec::new(creature("monoped"), 0.5, 0.5, &[timing("shin", 0.0, 0.5)]).unwrap();
    check_hessian(spec);
}

/// The simple biped's walk NLP (0.7 m/s, default timing) and a disturbed point of it.
fn disturbed_biped_walk() -> (AutoDiff<GaitProblem>, Vec<f64>) {
    let spec = GaitSpec::new(
        creature("simple_biped"),
        0.7,
        1.0,
        &[timing("l_foot", 0.0, 0.6), timing("r_foot", 0.5, 0.6)],
    )
    .unwrap();
    let nlp = AutoDiff::new(GaitProblem::new(spec)).unwrap();
    let x = disturbed_point(&nlp);
    (nlp, x)
}

/// Gradient, Jacobian and Hessian are evaluated block by block in parallel and summed in a
/// fixed order: one thread and four give the same bits, so solves stay reproducible.
#[test]
fn derivatives_do_not_depend_on_the_thread_count() {
    let (nlp, x) = disturbed_biped_walk();
    let lambda: Vec<f64> = (0..nlp.num_constraints())
        .map(|k| ((k as f64 * 3.71).sin() * 100.0).fract())
        .collect();
    let evaluate = |threads: usize| {
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(threads)
            .build()
            .unwrap();
        pool.install(|| {
            let mut g = vec![0.0; nlp.num_variables()];
            nlp.objective_gradient(&x, &mut g).unwrap();
            let mut j = vec![0.0; nlp.jacobian_structure().len()];
            nlp.jacobian_values(&x, &mut j).unwrap();
            let mut h = vec![0.0; nlp.hessian_structure().unwrap().len()];
            nlp.hessian_values(&x, 0.7, &lambda, &mut h).unwrap();
            [g, j, h].map(|v| v.iter().map(|e| e.to_bits()).collect::<Vec<u64>>())
        })
    };
    let (one, four) = (evaluate(1), evaluate(4));
    for (what, (a, b)) in ["gradient", "jacobian", "hessian"]
        .iter()
        .zip(one.iter().zip(&four))
    {
        assert!(a.iter().any(|&v| v != 0), "{what} is all zeros");
        assert_eq!(a, b, "{what} differs between 1 and 4 threads");
    }
}

/// The tape's reverse-mode derivatives (autodiff's engine) equal forward-mode dual numbers
/// on the real problem: every objective term of the simple biped (effort terms with their
/// inverse dynamics included) and every third constraint block, gradient, Jacobian and the
/// weighted Hessian, at a disturbed point.
#[test]
fn tape_derivatives_equal_dual_number_derivatives_on_the_biped() {
    use crate::spacetime::autodiff::BlockProblem;
    use crate::spacetime::tape;
    use nalgebra::DVector;
    use num_dual::{Dual2DVec64, DualDVec64};
    let (nlp, x) = disturbed_biped_walk();
    let p = nlp.problem();
    let close = |got: f64, want: f64, scale: f64, what: &str| {
        assert!(
            (got - want).abs() <= 1e-9 * scale.max(1.0),
            "{what}: tape {got} vs duals {want} (scale {scale})"
        );
    };
    let max_abs = |m: &nalgebra::DMatrix<f64>| m.iter().fold(0.0f64, |a, v| a.max(v.abs()));
    // Compares the lower triangles; returns the largest |entry| of `want`.
    let lower_triangles_agree =
        |h: &nalgebra::DMatrix<f64>, want: &nalgebra::DMatrix<f64>, what: &str| -> f64 {
            let scale = max_abs(want);
            for a in 0..want.nrows() {
                for b in 0..=a {
                    close(
                        h[(a, b)],
                        want[(a, b)],
                        scale,
                        &format!("{what} H[{a},{b}]"),
                    );
                }
            }
            scale
        };
    let (mut largest_term, mut largest_variables) = (0.0f64, 0);
    for (k, t) in p.objective_terms().iter().enumerate() {
        let local: Vec<f64> = t.variables.iter().map(|&i| x[i]).collect();
        let (_, g) = tape::gradient(&local, |v| p.objective_term(k, v));
        let (_, want_g) = num_dual::gradient(
            |v: DVector<DualDVec64>| p.objective_term(k, v.as_slice()),
            &DVector::from_vec(local.clone()),
        );
        let g_scale = want_g.amax();
        for a in 0..local.len() {
            close(g[a], want_g[a], g_scale, &format!("term {k} gradient {a}"));
        }
        let (_, h) = tape::weighted_hessian(&local, &[1.0], |v| vec![p.objective_term(k, v)]);
        let (_, _, want_h) = num_dual::hessian(
            |v: DVector<Dual2DVec64>| p.objective_term(k, v.as_slice()),
            &DVector::from_vec(local.clone()),
        );
        let h_scale = lower_triangles_agree(&h, &want_h, &format!("term {k}"));
        if h_scale > largest_term {
            (largest_term, largest_variables) = (h_scale, local.len());
        }
    }
    assert!(
        largest_term > 1.0 && largest_variables > 50,
        "an effort term with real curvature was compared ({largest_term}, {largest_variables} variables)"
    );
    let blocks = p.constraint_blocks();
    for (k, b) in blocks.iter().enumerate().step_by(3) {
        let local: Vec<f64> = b.variables.iter().map(|&i| x[i]).collect();
        let weights: Vec<f64> = (0..b.rows()).map(|r| 1.0 - 0.37 * r as f64).collect();
        let (_, jac) = tape::jacobian(&local, |v| p.constraint_block(k, v));
        let (_, want_jac) = num_dual::jacobian(
            |v: DVector<DualDVec64>| DVector::from_vec(p.constraint_block(k, v.as_slice())),
            &DVector::from_vec(local.clone()),
        );
        let j_scale = max_abs(&want_jac);
        for r in 0..b.rows() {
            for a in 0..local.len() {
                close(
                    jac[r][a],
                    want_jac[(r, a)],
                    j_scale,
                    &format!("block {k} J[{r},{a}]"),
                );
            }
        }
        let (_, h) = tape::weighted_hessian(&local, &weights, |v| p.constraint_block(k, v));
        let (_, _, want_h) = num_dual::hessian(
            |v: DVector<Dual2DVec64>| {
                p.constraint_block(k, v.as_slice())
                    .into_iter()
                    .zip(&weights)
                    .fold(Dual2DVec64::from(0.0), |acc, (c, &w)| acc + c * w)
            },
            &DVector::from_vec(local.clone()),
        );
        lower_triangles_agree(&h, &want_h, &format!("block {k}"));
    }
}

/// The Hessian that skips the directions declared flat (the loads of the balance rows) equals
/// the one sweeping every direction, on the biped walk at a disturbed point with λ of both
/// signs.
#[test]
fn skipping_flat_directions_leaves_the_hessian_unchanged() {
    use crate::spacetime::autodiff::{BlockProblem, BlockSpec, Scalar, TermSpec};
    /// The problem with every `flat` list emptied.
    struct Unflattened<'a>(&'a GaitProblem);
    impl BlockProblem for Unflattened<'_> {
        fn num_variables(&self) -> usize {
            self.0.num_variables()
        }
        fn variable_bounds(&self, lower: &mut [f64], upper: &mut [f64]) {
            self.0.variable_bounds(lower, upper)
        }
        fn initial_point(&self, x: &mut [f64]) {
            self.0.initial_point(x)
        }
        fn objective_terms(&self) -> Vec<TermSpec> {
            self.0.objective_terms()
        }
        fn objective_term<D: Scalar>(&self, term: usize, x: &[D]) -> D {
            self.0.objective_term(term, x)
        }
        fn objective_residuals<D: Scalar>(&self, term: usize, x: &[D]) -> Option<Vec<D>> {
            self.0.objective_residuals(term, x)
        }
        fn constraint_blocks(&self) -> Vec<BlockSpec> {
            let blocks = self.0.constraint_blocks();
            assert!(blocks.iter().any(|b| !b.flat.is_empty()));
            blocks
                .into_iter()
                .map(|b| b.with_flat(Vec::new()))
                .collect()
        }
        fn constraint_block<D: Scalar>(&self, block: usize, x: &[D]) -> Vec<D> {
            self.0.constraint_block(block, x)
        }
    }
    let (nlp, x) = disturbed_biped_walk();
    let plain = AutoDiff::new(Unflattened(nlp.problem())).unwrap();
    let lambda: Vec<f64> = (0..nlp.num_constraints())
        .map(|k| ((k as f64 * 5.17).sin() * 100.0).fract())
        .collect();
    let hessian = |p: &dyn NlpProblem| {
        assert_eq!(p.hessian_structure(), nlp.hessian_structure());
        let mut h = vec![0.0; nlp.hessian_structure().unwrap().len()];
        p.hessian_values(&x, 0.7, &lambda, &mut h).unwrap();
        h
    };
    let (lean, full) = (hessian(&nlp), hessian(&plain));
    let scale = full.iter().fold(0.0f64, |a, v| a.max(v.abs()));
    assert!(scale > 1.0);
    for (k, (a, b)) in lean.iter().zip(&full).enumerate() {
        assert!(
            (a - b).abs() <= 1e-11 * scale,
            "H value {k} ({:?}): lean {a} vs full {b}",
            nlp.hessian_structure().unwrap()[k]
        );
    }
}

/// Every demo clip shipped in assets/gaits/ loads, names a creature of characters/, and is
/// physically valid by the independent audit (with its own body, for morphology clips).
#[test]
fn every_shipped_gait_clip_passes_the_audit() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("assets/gaits");
    let mut checked = 0;
    for entry in std::fs::read_dir(&dir).unwrap() {
        let path = entry.unwrap().path();
        if path.extension().and_then(|e| e.to_str()) != Some("ron") {
            continue;
        }
        let clip: GaitClip = crate::jobs::read_ron(&path).unwrap();
        let sk = creature(&clip.creature.replace(' ', "_"));
        clip.check_creature(&sk).unwrap();
        let body = clip.body(&sk).unwrap();
        clip.validate(&body).unwrap();
        let report = audit(&body, &clip, MU, NU);
        assert!(
            clip.max_violation <= 1e-6 && report.max() <= 1e-6,
            "{}: violation {:e}, audit {:e}",
            path.display(),
            clip.max_violation,
            report.max()
        );
        assert_eq!(clip.frames.len(), FRAMES, "{}", path.display());
        checked += 1;
    }
    assert!(checked >= 10, "only {checked} clips in {}", dir.display());
}

/// The audit is not blind: a shipped gait with one joint angle of one frame moved by
/// 0.05 rad, or one contact force scaled by 1.1, breaks the momentum balance it checks by far
/// more than its 1e-6 bar.
#[test]
fn the_audit_rejects_a_perturbed_gait() {
    let path =
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("assets/gaits/biped_walk_0.7ms.ron");
    let clip: GaitClip = crate::jobs::read_ron(&path).unwrap();
    let body = clip.body(&creature("simple_biped")).unwrap();
    assert!(audit(&body, &clip, MU, NU).max() <= 1e-6);
    let mut moved = clip.clone();
    moved.frames[7][9] += 0.05; // l_shin.angle, the left knee
    let a = audit(&body, &moved, MU, NU);
    assert!(a.max_dynamics() > 1e-3, "a moved knee passes: {a:?}");
    let mut pushed = clip.clone();
    let (i, k) = (0..pushed.contacts.len())
        .flat_map(|i| (0..pushed.contacts[i].len()).map(move |k| (i, k)))
        .find(|&(i, k)| clip.contacts[i][k].is_some())
        .expect("a frame in contact");
    let load = pushed.contacts[i][k].as_mut().unwrap();
    load.force = load.force.map(|f| f * 1.1);
    let a = audit(&body, &pushed, MU, NU);
    assert!(
        a.max_dynamics() > 1e-3,
        "a scaled contact force passes: {a:?}"
    );
}

#[cfg(feature = "ipopt")]
fn check_solution(spec: &GaitSpec, clip: &GaitClip) {
    assert!(
        clip.converged(),
        "status {} projection {:?}",
        clip.status,
        clip.projection_status
    );
    assert!(
        clip.max_violation <= 1e-6,
        "max violation {}",
        clip.max_violation
    );
    let a = audit(&clip.body(&spec.skeleton).unwrap(), clip, spec.mu, spec.nu);
    assert!(a.max() <= 1e-6, "audit {a:?}");
    assert!(clip.cost.is_finite() && clip.cost > 0.0);
    // The clip's contacts follow the timings; feet in the air carry nothing.
    for (i, row) in clip.contacts.iter().enumerate() {
        for (k, c) in row.iter().enumerate() {
            assert_eq!(c.is_some(), spec.in_contact(i, k));
        }
    }
}

#[cfg(feature = "ipopt")]
#[test]
fn monoped_hop_converges_with_a_clean_audit() {
    // The contact window crosses the cycle end: frames 24..=29 and 0..=8.
    let spec = GaitSpec::new(creature("monoped"), 0.7, 0.5, &[timing("shin", 0.8, 0.5)]).unwrap();
    assert!(spec.in_contact(29, 0) && spec.in_contact(0, 0) && spec.has_flight());
    let clip = solve_logged(&spec, 300);
    check_solution(&spec, &clip);
    // The foot slides back across the wrap at −V: frame 29 → 0.
    let k = |q: &Vec<f64>| {
        forward_kinematics(&spec.skeleton, &spec.skeleton.morphology::<f64>(), q)
            .foot(&spec.skeleton, 0)
            .re()
    };
    let (a, b) = (k(&clip.frames[29]), k(&clip.frames[0]));
    assert!(
        ((b[0] - a[0]) / spec.dt() + 0.7).abs() < 1e-6,
        "{a:?} → {b:?}"
    );
    // In flight (frame 15) no force acts: the centre of mass falls freely.
    assert!(clip.contacts[15][0].is_none());
}

#[cfg(feature = "ipopt")]
#[test]
fn simple_biped_walk_is_physically_valid() {
    // Walk at 0.7 m/s (the biped walk of Wampler's §3.3.4): each foot down 0.6 of a 1 s cycle, half
    // a cycle apart; the right foot's window crosses the cycle end. A short solve (100 iterations,
    // then the feasibility projection) keeps the test fast; `motionlab gait` runs it fully.
    let sk = creature("simple_biped");
    let (period, timings) = default_timings(&sk);
    assert_eq!(
        timings,
        vec![timing("l_foot", 0.0, 0.6), timing("r_foot", 0.5, 0.6)]
    );
    let spec = GaitSpec::new(sk, 0.7, period, &timings).unwrap();
    assert!(spec.has_double_support() && !spec.has_flight());
    let clip = solve_logged(&spec, 100);
    check_solution(&spec, &clip);
    // The clip round-trips through RON.
    let text = ron::ser::to_string(&clip).unwrap();
    assert_eq!(crate::files::from_ron::<GaitClip>(&text).unwrap(), clip);
}

#[path = "closure_tests.rs"]
mod closure_tests;

#[path = "lifted_tests.rs"]
mod lifted_tests;

#[path = "half_cycle_tests.rs"]
mod half_cycle_tests;

/// The posture term holds whole limbs by parts of their names, and single coordinates by
/// dotted entries: `thigh.ry` holds both hips' rotation about the thigh and neither hip's
/// flexion nor abduction; the root's rotation is held only by a dotted entry that names it.
#[test]
fn posture_entries_name_limbs_or_single_coordinates() {
    let path =
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("characters/human3d_walker.ron");
    let sk = crate::spacetime::skeleton::Skeleton::load(&path).unwrap();
    let mut spec = GaitSpec::new(
        sk,
        1.0,
        1.0,
        &[timing("l_foot", 0.0, 0.6), timing("r_foot", 0.5, 0.6)],
    )
    .unwrap();
    spec.posture_limbs = vec!["arm".into(), "thigh.ry".into()];
    let names = spec.skeleton.dof_names();
    let held: Vec<&str> = spec
        .posture_coordinates()
        .into_iter()
        .map(|d| names[d].as_str())
        .collect();
    for want in [
        "l_thigh.ry",
        "r_thigh.ry",
        "l_upper_arm.angle0",
        "r_forearm.angle",
    ] {
        assert!(held.contains(&want), "{want} not in {held:?}");
    }
    for not in [
        "l_thigh.rx",
        "r_thigh.rz",
        "l_shin.angle",
        "pelvis.yaw",
        "torso.angle0",
    ] {
        assert!(!held.contains(&not), "{not} in {held:?}");
    }
    spec.posture_limbs.clear();
    assert!(spec.posture_coordinates().len() > held.len());
    // The root limb comes first, its rotation first: held by name only.
    assert!(!spec.posture_coordinates().contains(&2));
    let roll = names[2].clone();
    let level = spec.clone().with_posture(&[roll.clone()]).unwrap();
    assert_eq!(level.posture_coordinates(), vec![2], "{roll}");
    assert!(spec.clone().with_posture(&["pelvis".into()]).is_err());
    // An entry naming nothing is an error that says what there is.
    let e = spec
        .clone()
        .with_posture(&["tail".into()])
        .unwrap_err()
        .to_string();
    assert!(e.contains("`tail`") && e.contains("l_thigh"), "{e}");
    assert!(spec.clone().with_posture(&["thigh.rw".into()]).is_err());
    assert!(
        spec.with_posture(&["thigh.ry".into(), "arm".into()])
            .is_ok()
    );
}

/// A box foot's sole (its four lowest corners) is carried by its limb: in the reference pose
/// (every joint coordinate zero) the NLP's corners are the simulation's box corners, in the
/// plane of the foot point; and `sole_clearance` bounds them below by 0 in every frame a foot is in the air,
/// four rows per foot and frame.
#[test]
fn a_box_foot_keeps_its_sole_above_the_ground_in_the_air() {
    use super::problem::{Block, KinematicRow};
    let path =
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("characters/human3d_walker.ron");
    let c = crate::model::load_character(&path).unwrap();
    let sk = crate::spacetime::skeleton::Skeleton::load(&path).unwrap();
    let mut q = vec![0.0; sk.dof()];
    q[..6].copy_from_slice(&sk.limbs[0].rest);
    let k = crate::spacetime::dynamics::forward_kinematics(&sk, &sk.morphology::<f64>(), &q);
    for &f in &sk.feet {
        let limb = &sk.limbs[f];
        assert_eq!(limb.sole.len(), 4, "{}", limb.name);
        let body = &c.bodies[c.body_index(&limb.name).unwrap()];
        let crate::model::Shape::Box { half_extents: h } = body.shape else {
            panic!("a box foot")
        };
        let frame = &k.limbs[f];
        let end = limb.end.unwrap();
        for corner in &limb.sole {
            // World corner = end point + R·(corner − end).
            let o: [f64; 3] = std::array::from_fn(|j| corner[j] - end[j]);
            let m = &frame.rotation.m;
            let world = [
                frame.end.x + m[0][0] * o[0] + m[0][1] * o[1] + m[0][2] * o[2],
                frame.end.y + m[1][0] * o[0] + m[1][1] * o[1] + m[1][2] * o[2],
                frame.end.z + m[2][0] * o[0] + m[2][1] * o[1] + m[2][2] * o[2],
            ];
            // The foot point is the sole's centre: the corners lie in its plane, half the box's
            // length and width away.
            assert!(
                (world[1] - frame.end.y).abs() < 1e-9,
                "{}: {world:?}",
                limb.name
            );
            for (j, half, centre) in [(0, h[0], frame.end.x), (2, h[2], frame.end.z)] {
                let off = (world[j] - centre).abs();
                assert!(
                    (off - half).abs() < 1e-9,
                    "{}: {off} against {half}",
                    limb.name
                );
                assert!((centre - body.position[j]).abs() < 1e-9);
            }
        }
    }
    let spec = GaitSpec::new(
        sk,
        1.0,
        1.05,
        &[timing("l_foot", 0.0, 0.6), timing("r_foot", 0.5, 0.6)],
    )
    .unwrap();
    let rows = |spec: &GaitSpec| -> usize {
        GaitProblem::new(spec.clone())
            .blocks
            .iter()
            .map(|(b, _)| match b {
                Block::Kinematic { rows } => rows
                    .iter()
                    .filter(|r| matches!(r, KinematicRow::Sole(..)))
                    .count(),
                _ => 0,
            })
            .sum()
    };
    assert_eq!(rows(&spec), 0, "off by default");
    let mut with = spec.clone();
    with.sole_clearance = true;
    let airborne: usize = (0..spec.frames)
        .map(|i| (0..2).filter(|&f| !spec.in_contact(i, f)).count())
        .sum();
    assert!(airborne > 0);
    assert_eq!(rows(&with), 4 * airborne);
}
