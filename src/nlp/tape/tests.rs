//! The tape's derivatives against forward dual numbers, and bit-for-bit agreement of its
//! vector kernels.

use super::*;
use num_dual::{Dual2DVec64, DualDVec64};

/// A function exercising every kind of node: products of a variable with itself, quotients,
/// unary functions, atan2, constants mixed in and a branch on a value.
fn f<D: DualNum<Primitive = f64>>(x: &[D]) -> Vec<D> {
    let a = x[0].clone() * x[1].clone() / (x[2].clone() * x[2].clone() + 1.0);
    let b = x[3].sin() * x[0].exp() - x[1].clone().powi(3) * 0.5 + x[2].sqrt();
    let c = x[1].atan2(x[3].clone()) * x[0].tanh() + x[2].ln() * x[3].cos();
    let d = if x[0].re() > 0.0 {
        x[0].clone() * x[0].clone() * x[3].clone()
    } else {
        x[3].clone()
    };
    let e = (x[1].clone() - x[2].clone()).powf(2.5) / x[0].recip() + D::from(2.0).sqrt();
    vec![a, b, c, d, e, D::from(3.0)]
}

#[test]
fn tape_derivatives_equal_forward_dual_derivatives() {
    let x = [0.7, 1.9, 0.4, -1.3];
    let w = [0.3, -1.2, 2.0, 0.5, -0.7, 4.0];
    let xv = nalgebra::DVector::from_row_slice(&x);
    // Jacobian.
    let (values, jac) = jacobian(&x, |v| f(v));
    let (want_values, want_jac) = num_dual::jacobian(
        |v: nalgebra::DVector<DualDVec64>| nalgebra::DVector::from_vec(f(v.as_slice())),
        &xv,
    );
    for r in 0..6 {
        assert!((values[r] - want_values[r]).abs() <= 1e-14 * want_values[r].abs().max(1.0));
        for a in 0..4 {
            let (got, want) = (jac[r][a], want_jac[(r, a)]);
            assert!(
                (got - want).abs() <= 1e-12 * want.abs().max(1.0),
                "J[{r},{a}] {got} vs {want}"
            );
        }
    }
    // The rows share one work array, cleared after each: every row is its own sweep's
    // gradient, bit for bit, in the outputs' order and in reverse (long sweeps before short).
    let (y, tape) = record(&x, |v| f(v));
    let own: Vec<Vec<f64>> = y.iter().map(|&r| tape.gradient(&[(r, 1.0)])).collect();
    assert_eq!(jac, own);
    let (_, reversed) = jacobian(&x, |v| f(v).into_iter().rev().collect());
    assert_eq!(reversed, own.into_iter().rev().collect::<Vec<_>>());
    // Hessian of the weighted sum.
    let (rows, h) = weighted_hessian(&x, &w, |v| f(v));
    assert_eq!(rows, 6);
    let (_, _, want_h) = num_dual::hessian(
        |v: nalgebra::DVector<Dual2DVec64>| {
            f(v.as_slice())
                .into_iter()
                .zip(w)
                .fold(Dual2DVec64::from(0.0), |acc, (y, wi)| acc + y * wi)
        },
        &xv,
    );
    let mut largest: f64 = 0.0;
    for i in 0..4 {
        for j in 0..4 {
            let (got, want) = (h[(i, j)], want_h[(i, j)]);
            largest = largest.max(want.abs());
            assert!(
                (got - want).abs() <= 1e-11 * want.abs().max(1.0),
                "H[{i},{j}] {got} vs {want}"
            );
        }
    }
    assert!(largest > 1.0, "the test function has real curvature");
}

/// Inputs 1, 3 and 4 have no curvature among themselves (each multiplies x₀ or x₂ only):
/// skipping their directions gives the full Hessian, the mixed entries by symmetry.
#[test]
fn flat_inputs_take_their_columns_from_the_symmetric_rows() {
    let x = [0.7, -1.3, 0.4, 2.1, -0.6];
    let g = |v: &[TapeVar]| {
        vec![
            v[0].sin() * v[1] + v[2] * v[2] * v[3] - v[4] * v[0].exp(),
            v[2].cos() * (v[1] + v[3] * 2.0) + v[0] * v[0] * v[2],
        ]
    };
    let w = [1.7, -0.4];
    let (_, full) = weighted_hessian(&x, &w, g);
    let (_, lean) = weighted_hessian_without(&x, &w, &[1, 3, 4], g);
    for i in 0..5 {
        for j in 0..5 {
            assert!(
                (full[(i, j)] - lean[(i, j)]).abs() <= 1e-14 * full[(i, j)].abs().max(1.0),
                "H[{i},{j}] {} vs {}",
                lean[(i, j)],
                full[(i, j)]
            );
        }
    }
    assert!(full[(1, 0)].abs() > 0.1 && full[(3, 2)].abs() > 0.1 && full[(4, 0)].abs() > 0.1);
}

#[test]
fn more_inputs_than_lanes_and_repeated_recordings() {
    // f = Σᵢ<ⱼ (i + 1)(j + 2) xᵢ xⱼ: H[i][j] = H[j][i] = (i + 1)(j + 2) for i < j, a zero
    // diagonal, exact in floating point. 19 inputs: 32 lanes (`lanes_for`), one group with
    // 13 lanes empty; 43: a group of 32, then one of 16 with 5 lanes empty.
    for n in [19, 43] {
        more_inputs_than_lanes(n);
    }
}

fn more_inputs_than_lanes(n: usize) {
    let x: Vec<f64> = (0..n).map(|i| 0.1 * i as f64 - 0.5).collect();
    for _ in 0..2 {
        let (_, h) = weighted_hessian(&x, &[1.0], |v| {
            let mut s = TapeVar::zero();
            for i in 0..n {
                for j in i + 1..n {
                    s += v[i] * v[j] * ((i + 1) * (j + 2)) as f64;
                }
            }
            vec![s]
        });
        for i in 0..n {
            assert_eq!(h[(i, i)], 0.0);
            for j in i + 1..n {
                let want = ((i + 1) * (j + 2)) as f64;
                assert_eq!(h[(i, j)], want, "H[{i},{j}]");
                assert_eq!(h[(j, i)], want, "H[{j},{i}]");
            }
        }
    }
}

/// A vector function with curvature everywhere (of 19 inputs: three groups of 8 lanes, two of
/// 16 or one of 32, the last partial).
fn wide<D: DualNum<Primitive = f64>>(x: &[D]) -> Vec<D> {
    (0..x.len())
        .map(|i| {
            let (a, b, c) = (&x[i], &x[(i + 1) % x.len()], &x[(i + 5) % x.len()]);
            (a.clone() * b.clone()).sin() + c.exp() / (a.clone() * a.clone() + 1.0)
                - b.clone().powi(3) * c.clone()
        })
        .collect()
}

fn wide_point() -> Vec<f64> {
    (0..19).map(|i| 0.37 * (i as f64 * 1.7).sin()).collect()
}

/// The sweeps run on the widest vector instructions of the CPU (AVX-512, AVX2) or on the
/// portable code, 8, 16 or 32 directions at a time: the lanes are independent and nothing is
/// fused, so the Hessians are the same to the last bit, and gait solves stay the same on every
/// machine. Every kernel this CPU can run, at every width, is compared with the portable one
/// at 8 lanes (19 directions: three groups of 8 with the last one partial, two of 16, or one
/// of 32 with 13 lanes empty).
#[test]
fn vector_instructions_and_lane_widths_change_no_bit_of_the_hessian() {
    let x = wide_point();
    let (y, tape) = record(&x, wide);
    let seeds: Vec<(TapeVar, f64)> = y
        .iter()
        .enumerate()
        .map(|(i, &r)| (r, 1.0 - 0.23 * i as f64))
        .collect();
    let portable = tape.hessian_by(&seeds, Recording::sweep_groups_portable::<8>);
    assert!(portable.iter().filter(|v| **v != 0.0).count() > 19 * 3);
    let same = |h: &nalgebra::DMatrix<f64>, what: &str| {
        for (a, b) in h.iter().zip(portable.iter()) {
            assert_eq!(a.to_bits(), b.to_bits(), "{what}: {a} vs portable {b}");
        }
    };
    same(&tape.hessian(&seeds), "the CPU's choice");
    type Sweeps = fn(&Recording, &[f64], &[usize], &mut nalgebra::DMatrix<f64>, &mut Scratch);
    let mut kernels: Vec<(&str, Sweeps)> = vec![
        ("portable, 16 lanes", Recording::sweep_groups_portable::<16>),
        ("portable, 32 lanes", Recording::sweep_groups_portable::<32>),
    ];
    // SAFETY (every kernel below): added only when the CPU has its instructions.
    #[cfg(target_arch = "x86_64")]
    {
        if std::arch::is_x86_feature_detected!("avx2") {
            kernels.extend([
                (
                    "AVX2, 8",
                    (|t, b, s, h, w| unsafe { t.sweep_groups_avx2::<8>(b, s, h, w) }) as Sweeps,
                ),
                ("AVX2, 16", |t, b, s, h, w| unsafe {
                    t.sweep_groups_avx2::<16>(b, s, h, w)
                }),
                ("AVX2, 32", |t, b, s, h, w| unsafe {
                    t.sweep_groups_avx2::<32>(b, s, h, w)
                }),
            ]);
        }
        if std::arch::is_x86_feature_detected!("avx512f") {
            kernels.extend([
                (
                    "AVX-512, 8",
                    (|t, b, s, h, w| unsafe { t.sweep_groups_avx512::<8>(b, s, h, w) }) as Sweeps,
                ),
                ("AVX-512, 16", |t, b, s, h, w| unsafe {
                    t.sweep_groups_avx512::<16>(b, s, h, w)
                }),
                ("AVX-512, 32", |t, b, s, h, w| unsafe {
                    t.sweep_groups_avx512::<32>(b, s, h, w)
                }),
            ]);
        }
    }
    for (what, sweeps) in kernels {
        same(&tape.hessian_by(&seeds, sweeps), what);
    }
}
