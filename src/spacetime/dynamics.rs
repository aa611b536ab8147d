//! Forward kinematics and recursive Newton–Euler inverse dynamics of a [`Skeleton`], generic
//! over the scalar type so the gait NLP gets exact derivatives through dual numbers.
//!
//! Implements, for the creature model of specs/004.md §1.1:
//!
//! - [`forward_kinematics`]: limb frames, limb end points (the nodes of constraint 3.2, the feet
//!   of 3.3–3.5, the head of 3.16–3.17, the pairs of 3.6) and the centre of mass CM of (3.9).
//! - [`inverse_dynamics`]: the joint torques of the effort term (3.14), "found analytically from
//!   the motion and contact forces using inverse dynamics based on the recursive Newton–Euler
//!   formulation" (§3.2.3, Featherstone [18]), given q, q̇, q̈ in the joints' own coordinates
//!   (exponential-map rates for exp-map joints), gravity and the contact force f and torque t of
//!   each loaded foot (§1.2's f_{i,jc}, t_{i,jc}). Limbs are solid cylinders here (the
//!   point-mass approximation of §1.2 applies only to the Newton–Euler constraints 3.8–3.9).
//!
//! The recursion is the classical Newton–Euler one written in world coordinates: an outward pass
//! propagates angular velocity ω, angular acceleration α and the linear acceleration of each
//! joint, with gravity entered as an upward acceleration −g of the root (Featherstone's trick);
//! each limb needs F = m·a_c and N = I·α + ω × I·ω at its centre of mass; an inward pass
//! accumulates the force and moment every joint transmits. A joint's generalized force for
//! coordinate k is Sₖ·n, with Sₖ its motion subspace ([`JointKind::subspace`]) and n the moment
//! about the joint in the child's frame. The root has no actuator: what would be needed there is
//! the **root wrench residual**, zero exactly when the motion is consistent with gravity and the
//! foot loads (it equals (ṗ − m·g − Σf, L̇ − Σ(p_c − CM)×f − Σt), the left minus right sides of
//! 3.8–3.9, for cylinder limbs).

use super::autodiff::Scalar;
use super::rotation::{Mat3, Vec3};
use super::skeleton::{JointKind, Morphology, Skeleton, cylinder_inertia};

/// A limb's world frame and points.
#[derive(Clone, Debug)]
pub struct LimbFrame<D> {
    /// Limb frame → world rotation.
    pub rotation: Mat3<D>,
    /// The limb's proximal end (its joint).
    pub origin: Vec3<D>,
    /// The limb's distal end.
    pub end: Vec3<D>,
    /// The limb's centre of mass (its midpoint).
    pub com: Vec3<D>,
}

/// The result of forward kinematics.
#[derive(Clone, Debug)]
pub struct Kinematics<D> {
    pub limbs: Vec<LimbFrame<D>>,
    /// Centre of mass of the whole creature.
    pub com: Vec3<D>,
    pub mass: D,
}

impl<D: Scalar> Kinematics<D> {
    /// World position of foot `k` (an index into `skeleton.feet`).
    pub fn foot(&self, skeleton: &Skeleton, k: usize) -> &Vec3<D> {
        &self.limbs[skeleton.feet[k]].end
    }

    /// The head limb's frame, if the creature has a head.
    pub fn head<'a>(&'a self, skeleton: &Skeleton) -> Option<&'a LimbFrame<D>> {
        skeleton.head.map(|h| &self.limbs[h])
    }

    /// Vertical extent of the limb end points (m): the creature's height when its lowest point
    /// is on the ground.
    pub fn height(&self) -> f64 {
        let ys = self
            .limbs
            .iter()
            .flat_map(|l| [l.origin.y.re(), l.end.y.re()]);
        let (lo, hi) = ys.fold((f64::INFINITY, f64::NEG_INFINITY), |(lo, hi), y| {
            (lo.min(y), hi.max(y))
        });
        hi - lo
    }
}

/// Where limb `i` attaches, in its parent's frame: `at`·(parent length)·(parent direction) plus
/// the constant offset.
fn attachment<D: Scalar>(
    skeleton: &Skeleton,
    morphology: &Morphology<D>,
    i: usize,
    parent: usize,
) -> Vec3<D> {
    let limb = &skeleton.limbs[i];
    let along = morphology.length[parent].clone() * limb.at;
    Vec3::<D>::from_f64(skeleton.limbs[parent].direction).scale(&along)
        + Vec3::from_f64(limb.offset)
}

fn root_position<D: Scalar>(q: &[D]) -> Vec3<D> {
    Vec3::new(q[3].clone(), q[4].clone(), q[5].clone())
}

fn check_root(skeleton: &Skeleton) {
    assert!(
        skeleton
            .limbs
            .first()
            .is_some_and(|l| l.joint == JointKind::Free && l.dofs.start == 0),
        "skeleton `{}`: the first limb must be the free root",
        skeleton.name
    );
}

/// Limb frames, end points and centre of mass for coordinates `q` (length `skeleton.dof()`).
pub fn forward_kinematics<D: Scalar>(
    skeleton: &Skeleton,
    morphology: &Morphology<D>,
    q: &[D],
) -> Kinematics<D> {
    check_root(skeleton);
    assert_eq!(
        q.len(),
        skeleton.dof(),
        "forward_kinematics: q has the wrong length"
    );
    let mut limbs: Vec<LimbFrame<D>> = Vec::with_capacity(skeleton.limbs.len());
    for (i, limb) in skeleton.limbs.iter().enumerate() {
        let relative = limb.joint.rotation(&q[limb.dofs.clone()]);
        let (rotation, origin) = match limb.parent {
            None => (relative, root_position(q)),
            Some(p) => {
                let parent = &limbs[p];
                let origin = &parent.origin
                    + parent
                        .rotation
                        .mul_vec(&attachment(skeleton, morphology, i, p));
                (parent.rotation.mul(&relative), origin)
            }
        };
        let axis = rotation.mul_vec_f(&limb.direction);
        let end = &origin + axis.scale(&morphology.length[i]);
        let com = &origin + axis.scale(&(morphology.length[i].clone() * 0.5));
        limbs.push(LimbFrame {
            rotation,
            origin,
            end,
            com,
        });
    }
    let mass = morphology.total_mass();
    let weighted = limbs
        .iter()
        .zip(&morphology.mass)
        .fold(Vec3::zero(), |acc, (l, m)| acc + l.com.scale(m));
    let com = weighted.scale(&(D::one() / &mass));
    Kinematics { limbs, com, mass }
}

/// A contact load on a foot, in world coordinates: a force applied at the foot point and a free
/// torque (the f_{i,jc} and t_{i,jc} of specs/004.md §1.2, here in N and N·m, not mass-normalised).
#[derive(Clone, Debug)]
pub struct FootLoad<D> {
    /// Index into `skeleton.feet`.
    pub foot: usize,
    pub force: Vec3<D>,
    pub torque: Vec3<D>,
}

impl<D: Scalar> FootLoad<D> {
    pub fn force(foot: usize, force: Vec3<D>) -> Self {
        Self {
            foot,
            force,
            torque: Vec3::zero(),
        }
    }
}

/// The result of inverse dynamics.
#[derive(Clone, Debug)]
pub struct InverseDynamics<D> {
    /// One generalized force per coordinate. For limb joints these are the joint torques
    /// (N·m per radian of the coordinate); for the root they are the root wrench residual in the
    /// root's coordinates (the rotation's three, then the world force).
    pub generalized_forces: Vec<D>,
    /// Per limb: the force its parent exerts on it across the joint, world frame (N). For the
    /// root: the residual force.
    pub joint_forces: Vec<Vec3<D>>,
    /// Per limb: the moment about the joint its parent exerts on it, world frame (N·m). For the
    /// root: the residual moment about the root's origin.
    pub joint_moments: Vec<Vec3<D>>,
    pub kinematics: Kinematics<D>,
}

impl<D: Scalar> InverseDynamics<D> {
    /// The residual force at the root (world, N): zero when the motion is physically valid.
    pub fn root_force(&self) -> &Vec3<D> {
        &self.joint_forces[0]
    }

    /// The residual moment about the root's origin (world, N·m).
    pub fn root_moment(&self) -> &Vec3<D> {
        &self.joint_moments[0]
    }

    /// The residual moment about point `p` (world): M_p = M_o + (o − p) × F.
    pub fn root_moment_about(&self, p: &Vec3<D>) -> Vec3<D> {
        let o = &self.kinematics.limbs[0].origin;
        self.root_moment() + (o - p).cross(self.root_force())
    }

    /// Torques of the actuated (non-root) coordinates, in coordinate order after the root's six.
    pub fn joint_torques(&self) -> &[D] {
        &self.generalized_forces[6..]
    }
}

/// Recursive Newton–Euler inverse dynamics (see the module docs).
///
/// `q`, `qd`, `qdd` have length `skeleton.dof()`; `gravity` is the gravitational acceleration
/// (e.g. [`super::skeleton::GRAVITY`]); `loads` are the contact loads on feet (any subset).
///
/// # Panics
/// If the slices have the wrong length, the root is not a free joint, or a load names a foot
/// that does not exist: programming errors, not data errors (the loader checks files).
pub fn inverse_dynamics<D: Scalar>(
    skeleton: &Skeleton,
    morphology: &Morphology<D>,
    q: &[D],
    qd: &[D],
    qdd: &[D],
    gravity: [f64; 3],
    loads: &[FootLoad<D>],
) -> InverseDynamics<D> {
    check_root(skeleton);
    let n_dof = skeleton.dof();
    assert!(
        q.len() == n_dof && qd.len() == n_dof && qdd.len() == n_dof,
        "inverse_dynamics: q, q̇, q̈ need {n_dof} values each"
    );
    let n = skeleton.limbs.len();
    let mut frames: Vec<LimbFrame<D>> = Vec::with_capacity(n);
    let mut omega: Vec<Vec3<D>> = Vec::with_capacity(n);
    let mut alpha: Vec<Vec3<D>> = Vec::with_capacity(n);
    let mut accel: Vec<Vec3<D>> = Vec::with_capacity(n);
    let mut forces: Vec<Vec3<D>> = Vec::with_capacity(n);
    let mut moments: Vec<Vec3<D>> = Vec::with_capacity(n);
    let minus_g = Vec3::<D>::from_f64([-gravity[0], -gravity[1], -gravity[2]]);

    // Outward pass: kinematics, then each limb's own inertial force and moment (about its joint).
    for (i, limb) in skeleton.limbs.iter().enumerate() {
        let dofs = limb.dofs.clone();
        let motion = limb
            .joint
            .motion(&q[dofs.clone()], &qd[dofs.clone()], &qdd[dofs]);
        let (rotation, origin, w, a, acc) = match limb.parent {
            None => {
                let r = motion.rotation;
                let w = r.mul_vec(&motion.angular_velocity);
                let a = r.mul_vec(&motion.angular_acceleration);
                let acc = Vec3::new(qdd[3].clone(), qdd[4].clone(), qdd[5].clone()) + &minus_g;
                (r, root_position(q), w, a, acc)
            }
            Some(p) => {
                let lever = frames[p]
                    .rotation
                    .mul_vec(&attachment(skeleton, morphology, i, p));
                let origin = &frames[p].origin + &lever;
                let r = frames[p].rotation.mul(&motion.rotation);
                let w_rel = r.mul_vec(&motion.angular_velocity);
                let w = &omega[p] + &w_rel;
                let a =
                    &alpha[p] + r.mul_vec(&motion.angular_acceleration) + omega[p].cross(&w_rel);
                let acc =
                    &accel[p] + alpha[p].cross(&lever) + omega[p].cross(&omega[p].cross(&lever));
                (r, origin, w, a, acc)
            }
        };
        let axis = rotation.mul_vec_f(&limb.direction);
        let half = axis.scale(&(morphology.length[i].clone() * 0.5));
        let end = &origin + axis.scale(&morphology.length[i]);
        let com = &origin + &half;
        let acc_com = &acc + a.cross(&half) + w.cross(&w.cross(&half));
        let m = &morphology.mass[i];
        let force = acc_com.scale(m);
        let (it, ia) = cylinder_inertia(m, &morphology.radius[i], &morphology.length[i]);
        let excess = ia - &it;
        let inertia = |v: &Vec3<D>| v.scale(&it) + axis.scale(&(axis.dot(v) * &excess));
        let moment = inertia(&a) + w.cross(&inertia(&w)) + half.cross(&force);
        forces.push(force);
        moments.push(moment);
        frames.push(LimbFrame {
            rotation,
            origin,
            end,
            com,
        });
        omega.push(w);
        alpha.push(a);
        accel.push(acc);
    }

    // Contact loads act on the foot limbs.
    for load in loads {
        let j = skeleton.feet[load.foot];
        let arm = &frames[j].end - &frames[j].origin;
        forces[j] = &forces[j] - &load.force;
        moments[j] = &moments[j] - (arm.cross(&load.force) + &load.torque);
    }

    // Inward pass: each joint carries its subtree.
    for i in (1..n).rev() {
        let p = skeleton.limbs[i]
            .parent
            .expect("non-root limbs have parents");
        let arm = &frames[i].origin - &frames[p].origin;
        let carried = moments[i].clone() + arm.cross(&forces[i]);
        moments[p] = &moments[p] + carried;
        forces[p] = &forces[p] + &forces[i];
    }

    // Generalized forces: Sₖ · (moment in the child's frame); the root's translation takes the force.
    let mut generalized_forces = Vec::with_capacity(n_dof);
    for (i, limb) in skeleton.limbs.iter().enumerate() {
        let dofs = limb.dofs.clone();
        let local = frames[i].rotation.tr_mul_vec(&moments[i]);
        generalized_forces.extend(limb.joint.subspace(&q[dofs]).iter().map(|s| s.dot(&local)));
        if limb.parent.is_none() {
            generalized_forces.extend([
                forces[i].x.clone(),
                forces[i].y.clone(),
                forces[i].z.clone(),
            ]);
        }
    }

    let mass = morphology.total_mass();
    let weighted = frames
        .iter()
        .zip(&morphology.mass)
        .fold(Vec3::zero(), |acc, (l, m)| acc + l.com.scale(m));
    let com = weighted.scale(&(D::one() / &mass));
    InverseDynamics {
        generalized_forces,
        joint_forces: forces,
        joint_moments: moments,
        kinematics: Kinematics {
            limbs: frames,
            com,
            mass,
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::spacetime::skeleton::GRAVITY;
    use crate::spacetime::tests::creature;
    use nalgebra::DVector;
    use num_dual::{Dual2_64, Dual2DVec64, DualDVec64};
    use std::path::Path;

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

    const PENDULUM: &str = r#"(
    name: "pendulum",
    limbs: [
        (name: "pivot", joint: Free, direction: (1.0, 0.0, 0.0), length: 0.1, radius: 0.0, mass: 0.0),
        (name: "rod", parent: "pivot", at: 0.0, joint: Hinge(axis: (0.0, 0.0, 1.0)),
         direction: (0.0, -1.0, 0.0), length: 0.8, radius: 0.05, mass: 2.0),
    ],
    feet: ["rod"],
)"#;

    #[test]
    fn pendulum_torque_is_gravity_moment_plus_inertia() {
        let sk = Skeleton::parse(PENDULUM, Path::new("pendulum.ron")).unwrap();
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
                    let mut x: Vec<DualDVec64> =
                        x0.iter().map(|c| DualDVec64::from_re(*c)).collect();
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
}
