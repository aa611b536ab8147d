use super::*;
use crate::spacetime::skeleton::{CreatureSpec, GRAVITY, LimbSpec};
use crate::spacetime::tests::creature;
use nalgebra::DVector;
use num_dual::{Dual2_64, Dual2DVec64, DualDVec64};

const G: f64 = 9.81;
const CREATURES: [&str; 5] = [
    "monoped",
    "simple_biped",
    "velociraptor",
    "horse",
    "pentaped",
];

/// A deterministic, irregular number in [−1, 1].
fn wiggle(k: usize, salt: f64) -> f64 {
    ((k as f64 * 12.9898 + salt * 78.233).sin() * 43758.5453).fract()
}

/// The rest pose, disturbed, with a turned root; and arbitrary rates.
fn state(sk: &Skeleton) -> (Vec<f64>, Vec<f64>, Vec<f64>) {
    let mut q = sk.rest_pose();
    for (k, v) in q.iter_mut().enumerate() {
        *v += 0.3 * wiggle(k, 1.0);
    }
    q[..3].copy_from_slice(&[0.2, -0.5, 0.15]);
    let qd = (0..q.len()).map(|k| 1.5 * wiggle(k, 2.0)).collect();
    let qdd = (0..q.len()).map(|k| 4.0 * wiggle(k, 3.0)).collect();
    (q, qd, qdd)
}

fn zeros(n: usize) -> Vec<f64> {
    vec![0.0; n]
}

fn close(a: &Vec3<f64>, b: &Vec3<f64>, tol: f64) -> bool {
    (0..3).all(|k| (a.re()[k] - b.re()[k]).abs() <= tol)
}

#[test]
fn static_root_residual_is_the_weight_without_foot_forces() {
    for name in CREATURES {
        let sk = creature(name);
        let n = sk.dof();
        let id = inverse_dynamics(
            &sk,
            &sk.morphology(),
            &sk.rest_pose(),
            &zeros(n),
            &zeros(n),
            GRAVITY,
            &[],
        );
        let weight = sk.total_mass() * G;
        let tol = 1e-9 * weight;
        assert!(
            close(id.root_force(), &Vec3::new(0.0, weight, 0.0), tol),
            "{name}: {:?}",
            id.root_force()
        );
        // The weight acts at the centre of mass: no moment about it; about the root origin
        // the moment is (CM − o) × (m·g up).
        let com = &id.kinematics.com;
        assert!(
            close(&id.root_moment_about(com), &Vec3::zero(), tol),
            "{name}"
        );
        let arm = com - &id.kinematics.limbs[0].origin;
        assert!(
            close(
                id.root_moment(),
                &arm.cross(&Vec3::new(0.0, weight, 0.0)),
                tol
            ),
            "{name}"
        );
        // The root's translational generalized forces are the residual force.
        assert_eq!(
            id.generalized_forces[3..6],
            [id.root_force().x, id.root_force().y, id.root_force().z]
        );
    }
}

#[test]
fn feet_carrying_the_weight_cancel_the_root_residual() {
    for name in CREATURES {
        let sk = creature(name);
        let n = sk.dof();
        let q = sk.rest_pose();
        let k = forward_kinematics(&sk, &sk.morphology(), &q);
        let weight = sk.total_mass() * G;
        let share = Vec3::new(0.0, weight / sk.feet.len() as f64, 0.0);
        // Equal vertical forces; the first foot's free torque cancels their moment about CM.
        let moment: Vec3<f64> = (0..sk.feet.len()).fold(Vec3::zero(), |acc, f| {
            acc + (k.foot(&sk, f) - &k.com).cross(&share)
        });
        let mut loads: Vec<FootLoad<f64>> = (0..sk.feet.len())
            .map(|f| FootLoad::force(f, share.clone()))
            .collect();
        loads[0].torque = -moment;
        let id = inverse_dynamics(
            &sk,
            &sk.morphology(),
            &q,
            &zeros(n),
            &zeros(n),
            GRAVITY,
            &loads,
        );
        let tol = 1e-9 * weight;
        assert!(
            close(id.root_force(), &Vec3::zero(), tol),
            "{name}: {:?}",
            id.root_force()
        );
        assert!(
            close(id.root_moment(), &Vec3::zero(), tol),
            "{name}: {:?}",
            id.root_moment()
        );
        assert!(
            id.generalized_forces[..6].iter().all(|v| v.abs() < tol),
            "{name}"
        );
    }
    // The horse on three hooves with pure forces: fᵢ from Σfᵢ = m·g and zero moment about CM,
    // on the first triple of hooves whose triangle holds the CM (all fᵢ > 0).
    let sk = creature("horse");
    let n = sk.dof();
    let q = sk.rest_pose();
    let k = forward_kinematics(&sk, &sk.morphology(), &q);
    let weight = sk.total_mass() * G;
    let det = |m: &[[f64; 3]; 3]| {
        m[0][0] * (m[1][1] * m[2][2] - m[1][2] * m[2][1])
            - m[0][1] * (m[1][0] * m[2][2] - m[1][2] * m[2][0])
            + m[0][2] * (m[1][0] * m[2][1] - m[1][1] * m[2][0])
    };
    let triples = [[0, 1, 2], [0, 1, 3], [0, 2, 3], [1, 2, 3]];
    let (feet, f) = triples
        .iter()
        .map(|t| {
            let p: Vec<[f64; 3]> = t.iter().map(|&f| (k.foot(&sk, f) - &k.com).re()).collect();
            // Rows: Σf = W; Σ(−z·f) = 0 (x moment); Σ(x·f) = 0 (z moment). Cramer's rule.
            let a = [
                [1.0, 1.0, 1.0],
                [-p[0][2], -p[1][2], -p[2][2]],
                [p[0][0], p[1][0], p[2][0]],
            ];
            let f: Vec<f64> = (0..3)
                .map(|c| {
                    let mut m = a;
                    for (r, b) in [weight, 0.0, 0.0].iter().enumerate() {
                        m[r][c] = *b;
                    }
                    det(&m) / det(&a)
                })
                .collect();
            (*t, f)
        })
        .find(|(_, f)| f.iter().all(|v| *v > 0.0))
        .expect("the CM lies over some three hooves");
    assert!((f.iter().sum::<f64>() - weight).abs() < 1e-9 * weight);
    let loads: Vec<FootLoad<f64>> = (0..3)
        .map(|i| FootLoad::force(feet[i], Vec3::new(0.0, f[i], 0.0)))
        .collect();
    let id = inverse_dynamics(
        &sk,
        &sk.morphology(),
        &q,
        &zeros(n),
        &zeros(n),
        GRAVITY,
        &loads,
    );
    assert!(
        close(id.root_force(), &Vec3::zero(), 1e-9 * weight)
            && close(id.root_moment(), &Vec3::zero(), 1e-9 * weight)
    );
}

/// A massless pivot (the free root) and a rod of 2 kg, 0.8 m on a hinge: built directly, since a
/// character file has no massless bodies.
fn pendulum() -> Skeleton {
    let limb = |name: &str, parent: &str, joint, direction, length, radius, mass| LimbSpec {
        name: name.into(),
        parent: parent.into(),
        at: 0.0,
        offset: [0.0; 3],
        joint,
        direction,
        length,
        radius,
        mass,
        rest: Vec::new(),
        limits: Vec::new(),
        end: None,
        inertia: None,
        sole: Vec::new(),
    };
    Skeleton::build(&CreatureSpec {
        name: "pendulum".into(),
        limbs: vec![
            limb("pivot", "", JointKind::Free, [1.0, 0.0, 0.0], 0.1, 0.0, 0.0),
            limb(
                "rod",
                "pivot",
                JointKind::Hinge {
                    axis: [0.0, 0.0, 1.0],
                },
                [0.0, -1.0, 0.0],
                0.8,
                0.05,
                2.0,
            ),
        ],
        feet: vec!["rod".into()],
        head: None,
        separations: Vec::new(),
        solve: Default::default(),
    })
}

#[test]
fn pendulum_torque_is_gravity_moment_plus_inertia() {
    let sk = pendulum();
    let (m, l, r) = (2.0, 0.8, 0.05);
    let pivot_inertia = m * (3.0 * r * r + l * l) / 12.0 + m * (l / 2.0) * (l / 2.0);
    for theta in [-1.0, 0.0, 0.3, 2.0] {
        for theta_d in [0.0, 1.7] {
            for theta_dd in [0.0, -3.0, 4.0] {
                let mut q = zeros(7);
                q[4] = 1.0;
                q[6] = theta;
                let mut qd = zeros(7);
                qd[6] = theta_d;
                let mut qdd = zeros(7);
                qdd[6] = theta_dd;
                let id = inverse_dynamics(&sk, &sk.morphology(), &q, &qd, &qdd, GRAVITY, &[]);
                let tau = m * G * (l / 2.0) * theta.sin() + pivot_inertia * theta_dd;
                assert!(
                    (id.joint_torques()[0] - tau).abs() < 1e-12,
                    "θ {theta} θ̇ {theta_d} θ̈ {theta_dd}: {} vs {tau}",
                    id.joint_torques()[0]
                );
                // The pivot carries m·(a_c − g), a_c = (L/2)[θ̈(cos θ, sin θ) + θ̇²(−sin θ, cos θ)].
                let (s, c) = theta.sin_cos();
                let ac = [
                    l / 2.0 * (theta_dd * c - theta_d * theta_d * s),
                    l / 2.0 * (theta_dd * s + theta_d * theta_d * c),
                ];
                let expected = Vec3::new(m * ac[0], m * (ac[1] + G), 0.0);
                assert!(
                    close(id.root_force(), &expected, 1e-12),
                    "{:?} vs {expected:?}",
                    id.root_force()
                );
            }
        }
    }
}

#[test]
fn free_fall_needs_no_torque_and_no_residual() {
    for name in CREATURES {
        let sk = creature(name);
        let n = sk.dof();
        let (q, _, _) = state(&sk);
        let mut qdd = zeros(n);
        qdd[3..6].copy_from_slice(&GRAVITY);
        let id = inverse_dynamics(&sk, &sk.morphology(), &q, &zeros(n), &qdd, GRAVITY, &[]);
        let worst = id
            .generalized_forces
            .iter()
            .fold(0.0f64, |a, v| a.max(v.abs()));
        assert!(worst < 1e-9 * sk.total_mass(), "{name}: {worst}");
    }
}

#[test]
fn static_torques_are_the_gradient_of_potential_energy_minus_foot_forces() {
    // τ = ∂(m·g·CM_y)/∂q − Σ fᵀ ∂p_foot/∂q for a static pose (virtual work), by dual numbers on
    // forward kinematics: an independent check of every joint's projection (Sₖ·n).
    for name in CREATURES {
        let sk = creature(name);
        let n = sk.dof();
        let (q, _, _) = state(&sk);
        let forces: Vec<Vec3<f64>> = (0..sk.feet.len())
            .map(|f| {
                Vec3::new(
                    30.0 * wiggle(f, 4.0),
                    100.0 + 50.0 * wiggle(f, 5.0),
                    20.0 * wiggle(f, 6.0),
                )
            })
            .collect();
        let loads: Vec<FootLoad<f64>> = forces
            .iter()
            .enumerate()
            .map(|(f, v)| FootLoad::force(f, v.clone()))
            .collect();
        let id = inverse_dynamics(
            &sk,
            &sk.morphology(),
            &q,
            &zeros(n),
            &zeros(n),
            GRAVITY,
            &loads,
        );
        let morph = sk.morphology::<num_dual::Dual64>();
        for k in 0..n {
            let qk: Vec<num_dual::Dual64> = q
                .iter()
                .enumerate()
                .map(|(i, v)| num_dual::Dual64::new(*v, if i == k { 1.0 } else { 0.0 }))
                .collect();
            let kin = forward_kinematics(&sk, &morph, &qk);
            let mut expected = sk.total_mass() * G * kin.com.y.eps;
            for (f, force) in forces.iter().enumerate() {
                let p = kin.foot(&sk, f);
                expected -= force.x * p.x.eps + force.y * p.y.eps + force.z * p.z.eps;
            }
            let got = id.generalized_forces[k];
            assert!(
                (got - expected).abs() < 1e-9 * (1.0 + expected.abs()),
                "{name} {}: {got} vs {expected}",
                sk.dof_names()[k]
            );
        }
    }
}

#[test]
fn root_residual_is_the_momentum_balance_of_equations_3_8_and_3_9() {
    // Independently of the recursion: take CM accelerations, ω and α of every limb by
    // second-order dual numbers in time through forward kinematics, then
    // F = Σ mᵢ a_cᵢ − m g − Σ f and M_CM = Σ [mᵢ (cᵢ − CM) × a_cᵢ + Iᵢαᵢ + ωᵢ × Iᵢωᵢ] − Σ [(p − CM) × f + t].
    for name in CREATURES {
        let sk = creature(name);
        let (q, qd, qdd) = state(&sk);
        let loads: Vec<FootLoad<f64>> = (0..sk.feet.len())
            .map(|f| FootLoad {
                foot: f,
                force: Vec3::new(10.0 * wiggle(f, 7.0), 80.0, -5.0),
                torque: Vec3::new(1.0, -2.0 * wiggle(f, 8.0), 0.5),
                at: [0.0; 3],
            })
            .collect();
        let id = inverse_dynamics(&sk, &sk.morphology(), &q, &qd, &qdd, GRAVITY, &loads);
        let qt: Vec<Dual2_64> = (0..q.len())
            .map(|k| Dual2_64::new(q[k], qd[k], qdd[k]))
            .collect();
        let kin = forward_kinematics(&sk, &sk.morphology::<Dual2_64>(), &qt);
        let part = |v: &Vec3<Dual2_64>, which: usize| -> Vec3<f64> {
            let p = |d: &Dual2_64| [d.re, d.v1, d.v2][which];
            Vec3::new(p(&v.x), p(&v.y), p(&v.z))
        };
        let com = part(&kin.com, 0);
        let mut force = Vec3::<f64>::from_f64(GRAVITY).scale_f(-sk.total_mass());
        let mut moment = Vec3::<f64>::zero();
        for (i, limb) in sk.limbs.iter().enumerate() {
            let frame = &kin.limbs[i];
            let (c, ac) = (part(&frame.com, 0), part(&frame.com, 2));
            let mat = |which: usize| {
                Mat3::<f64>::from_fn(|a, b| {
                    [
                        frame.rotation.m[a][b].re,
                        frame.rotation.m[a][b].v1,
                        frame.rotation.m[a][b].v2,
                    ][which]
                })
            };
            let (r, rd, rdd) = (mat(0), mat(1), mat(2));
            let w = rd.mul(&r.transpose()).vee();
            let a = rdd.mul(&r.transpose()).add(&rd.mul(&rd.transpose())).vee();
            let u = r.mul_vec_f(&limb.direction);
            let (it, ia) = cylinder_inertia(&limb.mass, &limb.radius, &limb.length);
            let inertia = |v: &Vec3<f64>| v.scale_f(it) + u.scale_f(u.dot(v) * (ia - it));
            force = force + ac.scale_f(limb.mass);
            moment = moment
                + (&c - &com).cross(&ac.scale_f(limb.mass))
                + inertia(&a)
                + w.cross(&inertia(&w));
        }
        for load in &loads {
            let p = part(kin.foot(&sk, load.foot), 0);
            force = &force - &load.force;
            moment = moment - (&p - &com).cross(&load.force) - &load.torque;
        }
        let scale = 1e-9 * (1.0 + sk.total_mass());
        assert!(
            close(id.root_force(), &force, scale),
            "{name}: {:?} vs {force:?}",
            id.root_force()
        );
        assert!(
            close(&id.root_moment_about(&com), &moment, scale),
            "{name}: {:?} vs {moment:?}",
            id.root_moment_about(&com)
        );
    }
}

/// A force acting at a point of the foot other than its foot point (a foot on its toes) is the
/// same load as the force at the foot point plus the moment of the offset, (R·at) × f: the
/// generalized forces agree to rounding.
#[test]
fn a_force_off_the_foot_point_is_the_force_there_and_its_moment() {
    for name in CREATURES {
        let sk = creature(name);
        let (q, qd, qdd) = state(&sk);
        let kin = forward_kinematics(&sk, &sk.morphology::<f64>(), &q);
        let at = [0.13, -0.02, 0.01];
        let (off, moved): (Vec<FootLoad<f64>>, Vec<FootLoad<f64>>) = (0..sk.feet.len())
            .map(|f| {
                let force = Vec3::new(10.0 * wiggle(f, 7.0), 80.0, -5.0);
                let torque = Vec3::new(1.0, -2.0 * wiggle(f, 8.0), 0.5);
                let arm = &kin.contact(&sk, f, &at) - kin.foot(&sk, f);
                let there = FootLoad {
                    foot: f,
                    force: force.clone(),
                    torque: torque.clone(),
                    at,
                };
                let here = FootLoad {
                    foot: f,
                    force: force.clone(),
                    torque: torque + arm.cross(&force),
                    at: [0.0; 3],
                };
                (there, here)
            })
            .unzip();
        let a = inverse_dynamics(&sk, &sk.morphology(), &q, &qd, &qdd, GRAVITY, &off);
        let b = inverse_dynamics(&sk, &sk.morphology(), &q, &qd, &qdd, GRAVITY, &moved);
        for (x, y) in a.generalized_forces.iter().zip(&b.generalized_forces) {
            assert!((x - y).abs() < 1e-9 * (1.0 + y.abs()), "{name}: {x} vs {y}");
        }
        let arm = &kin.contact(&sk, 0, &at) - kin.foot(&sk, 0);
        assert!(
            (arm.norm() - (0.13f64.powi(2) + 0.0005).sqrt()).abs() < 1e-12,
            "{name}"
        );
    }
}

#[test]
fn mass_matrix_is_symmetric_and_gives_the_kinetic_energy() {
    // M's columns are τ(q, 0, eₖ) without gravity; ½q̇ᵀMq̇ must equal Σ ½mᵢ|v_cᵢ|² + ½ωᵢᵀIᵢωᵢ
    // computed from forward kinematics with dual numbers in time.
    for name in ["simple_biped", "velociraptor"] {
        let sk = creature(name);
        let n = sk.dof();
        let (q, qd, _) = state(&sk);
        let columns: Vec<Vec<f64>> = (0..n)
            .map(|k| {
                let mut e = zeros(n);
                e[k] = 1.0;
                inverse_dynamics(&sk, &sk.morphology(), &q, &zeros(n), &e, [0.0; 3], &[])
                    .generalized_forces
            })
            .collect();
        let largest = columns.iter().flatten().fold(0.0f64, |a, v| a.max(v.abs()));
        for (i, column) in columns.iter().enumerate() {
            for (j, other) in columns.iter().enumerate().take(i) {
                assert!(
                    (column[j] - other[i]).abs() < 1e-10 * largest,
                    "{name}: M[{i}][{j}]"
                );
            }
            assert!(column[i] > 0.0, "{name}: M[{i}][{i}]");
        }
        let qmq: f64 = (0..n)
            .map(|i| (0..n).map(|j| qd[i] * columns[j][i] * qd[j]).sum::<f64>())
            .sum();
        let qt: Vec<num_dual::Dual64> =
            (0..n).map(|k| num_dual::Dual64::new(q[k], qd[k])).collect();
        let kin = forward_kinematics(&sk, &sk.morphology::<num_dual::Dual64>(), &qt);
        let mut energy = 0.0;
        for (i, limb) in sk.limbs.iter().enumerate() {
            let f = &kin.limbs[i];
            let v = Vec3::new(f.com.x.eps, f.com.y.eps, f.com.z.eps);
            let r = Mat3::<f64>::from_fn(|a, b| f.rotation.m[a][b].re);
            let rd = Mat3::<f64>::from_fn(|a, b| f.rotation.m[a][b].eps);
            let w = rd.mul(&r.transpose()).vee();
            let u = r.mul_vec_f(&limb.direction);
            let (it, ia) = cylinder_inertia(&limb.mass, &limb.radius, &limb.length);
            let iw = w.scale_f(it) + u.scale_f(u.dot(&w) * (ia - it));
            energy += 0.5 * limb.mass * v.dot(&v) + 0.5 * w.dot(&iw);
        }
        assert!(
            (0.5 * qmq - energy).abs() < 1e-10 * energy,
            "{name}: ½q̇ᵀMq̇ = {} vs T = {energy}",
            0.5 * qmq
        );
    }
}

/// Inputs x = (q, q̇, q̈, then force and torque of every foot) → outputs (generalized forces,
/// foot positions, CM, root moment about CM).
fn outputs<D: Scalar>(sk: &Skeleton, x: &[D]) -> Vec<D> {
    let n = sk.dof();
    let (q, rest) = x.split_at(n);
    let (qd, rest) = rest.split_at(n);
    let (qdd, rest) = rest.split_at(n);
    let v = |s: &[D]| Vec3::new(s[0].clone(), s[1].clone(), s[2].clone());
    let loads: Vec<FootLoad<D>> = (0..sk.feet.len())
        .map(|f| FootLoad {
            foot: f,
            force: v(&rest[6 * f..]),
            torque: v(&rest[6 * f + 3..]),
            at: [0.0; 3],
        })
        .collect();
    let id = inverse_dynamics(sk, &sk.morphology(), q, qd, qdd, GRAVITY, &loads);
    let mut out = id.generalized_forces.clone();
    for f in 0..sk.feet.len() {
        out.extend(id.kinematics.foot(sk, f).components().map(|c| c.clone()));
    }
    out.extend(id.kinematics.com.components().map(|c| c.clone()));
    out.extend(
        id.root_moment_about(&id.kinematics.com)
            .components()
            .map(|c| c.clone()),
    );
    out
}

fn inputs(sk: &Skeleton, zero_root_rotation: bool) -> Vec<f64> {
    let (mut q, qd, qdd) = state(sk);
    if zero_root_rotation {
        q[..3].fill(0.0);
    }
    let loads = (0..6 * sk.feet.len()).map(|k| 40.0 * wiggle(k, 9.0));
    q.into_iter().chain(qd).chain(qdd).chain(loads).collect()
}

#[test]
fn dual_number_derivatives_match_central_differences() {
    // Jacobian of everything inverse dynamics returns with respect to q, q̇, q̈ and the foot
    // loads, through DualDVec64 (the type the NLP layer uses), against central differences;
    // at a turned root and at a root rotation of exactly 0 (the exp map's series branch).
    for name in ["velociraptor", "horse"] {
        let sk = creature(name);
        for zero_root in [false, true] {
            let x0 = inputs(&sk, zero_root);
            let (values, jac) = num_dual::jacobian(
                |x: DVector<DualDVec64>| DVector::from_vec(outputs(&sk, x.as_slice())),
                &DVector::from_vec(x0.clone()),
            );
            let plain = outputs(&sk, &x0);
            assert!(
                values
                    .iter()
                    .zip(&plain)
                    .all(|(a, b)| (a - b).abs() <= 1e-12 * (1.0 + b.abs()))
            );
            let h = 1e-6;
            for k in 0..x0.len() {
                let (mut xp, mut xm) = (x0.clone(), x0.clone());
                xp[k] += h;
                xm[k] -= h;
                let (fp, fm) = (outputs(&sk, &xp), outputs(&sk, &xm));
                for r in 0..plain.len() {
                    let fd = (fp[r] - fm[r]) / (2.0 * h);
                    let ad = jac[(r, k)];
                    assert!(
                        (fd - ad).abs() <= 1e-6 * (1.0 + ad.abs()),
                        "{name} (zero root {zero_root}): ∂out[{r}]/∂x[{k}] = {ad} vs {fd}"
                    );
                }
            }
        }
    }
}

#[test]
fn second_derivatives_match_differences_of_first_derivatives() {
    // The Hessian of the effort term Σ τ² (Eq. 3.14's shape) over a few coordinates, through
    // Dual2DVec64 (nested inside the joints' own time duals), against central differences of
    // the exact gradient.
    let sk = creature("simple_biped");
    let x0 = inputs(&sk, true);
    let chosen: Vec<usize> = vec![0, 1, 2, 4, 6, 7, 9, 10, 16, 17, 19, 34];
    let effort = |sub: &[Dual2DVec64]| -> Dual2DVec64 {
        let mut x: Vec<Dual2DVec64> = x0.iter().map(|v| Dual2DVec64::from_re(*v)).collect();
        for (i, &k) in chosen.iter().enumerate() {
            x[k] = sub[i].clone();
        }
        outputs(&sk, &x)[..sk.dof()]
            .iter()
            .map(|t| t.clone() * t)
            .sum()
    };
    let sub0 = DVector::from_iterator(chosen.len(), chosen.iter().map(|&k| x0[k]));
    let (_, _, hess) = num_dual::hessian(|v: DVector<Dual2DVec64>| effort(v.as_slice()), &sub0);
    let gradient = |sub: &DVector<f64>| {
        num_dual::gradient(
            |v: DVector<DualDVec64>| {
                let mut x: Vec<DualDVec64> = x0.iter().map(|c| DualDVec64::from_re(*c)).collect();
                for (i, &k) in chosen.iter().enumerate() {
                    x[k] = v[i].clone();
                }
                outputs(&sk, &x)[..sk.dof()]
                    .iter()
                    .map(|t| t.clone() * t)
                    .sum::<DualDVec64>()
            },
            sub,
        )
        .1
    };
    let h = 1e-6;
    for j in 0..chosen.len() {
        let (mut p, mut m) = (sub0.clone(), sub0.clone());
        p[j] += h;
        m[j] -= h;
        let (gp, gm) = (gradient(&p), gradient(&m));
        for i in 0..chosen.len() {
            let fd = (gp[i] - gm[i]) / (2.0 * h);
            assert!(
                (fd - hess[(i, j)]).abs() <= 1e-6 * (1.0 + hess[(i, j)].abs()),
                "H[{i}][{j}] = {} vs {fd}",
                hess[(i, j)]
            );
        }
    }
}
