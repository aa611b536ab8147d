//! Forward kinematics and recursive Newton–Euler inverse dynamics of a [`Skeleton`], generic
//! over the scalar type so the gait NLP gets exact derivatives through dual numbers.
//!
//! Implements, for the creature model of Wampler 2012 (thesis §3.2, App. A):
//!
//! - [`forward_kinematics`]: limb frames, limb end points (the nodes of constraint 3.2, the feet
//!   of 3.3–3.5, the head of 3.16–3.17, the pairs of 3.6) and the centre of mass CM of (3.9).
//! - [`inverse_dynamics`]: the joint torques of the effort term (3.14), "found analytically from
//!   the motion and contact forces using inverse dynamics based on the recursive Newton–Euler
//!   formulation" (§3.2.3, Featherstone [18]), given q, q̇, q̈ in the joints' own coordinates
//!   (exponential-map rates for exp-map joints), gravity and the contact force f and torque t of
//!   each loaded foot (the f_{i,jc}, t_{i,jc} of §3.2.1). Limbs are solid cylinders here (the
//!   point-mass approximation of §3.2.1 applies only to the Newton–Euler constraints 3.8–3.9).
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

impl<D: Scalar> LimbFrame<D> {
    /// World position of the point `at` (in the limb's frame, relative to its distal end; zero:
    /// the end itself).
    pub fn point(&self, at: &[f64; 3]) -> Vec3<D> {
        if *at == [0.0; 3] {
            self.end.clone()
        } else {
            &self.end + self.rotation.mul_vec_f(at)
        }
    }
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

    /// World position of the point `at` of foot `k` (its limb frame, relative to the foot point;
    /// zero: the foot point itself), as a foot on its toes stands on
    /// ([`Skeleton::toes`]).
    pub fn contact(&self, skeleton: &Skeleton, k: usize, at: &[f64; 3]) -> Vec3<D> {
        self.limbs[skeleton.feet[k]].point(at)
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
        skeleton.limbs.first().is_some_and(|l| {
            matches!(l.joint, JointKind::Free | JointKind::FreeHeading) && l.dofs.start == 0
        }),
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
        let end = match &limb.end {
            Some(e) => &origin + rotation.mul_vec_f(e),
            None => &origin + axis.scale(&morphology.length[i]),
        };
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
/// torque (the f_{i,jc} and t_{i,jc} of Wampler's §3.2.1, here in N and N·m, not mass-normalised).
#[derive(Clone, Debug)]
pub struct FootLoad<D> {
    /// Index into `skeleton.feet`.
    pub foot: usize,
    pub force: Vec3<D>,
    pub torque: Vec3<D>,
    /// Where on the foot the force acts: the limb frame's offset from the foot point (zero: the
    /// foot point; the toes for a foot on them, [`Skeleton::toes`]).
    pub at: [f64; 3],
}

impl<D: Scalar> FootLoad<D> {
    pub fn force(foot: usize, force: Vec3<D>) -> Self {
        Self {
            foot,
            force,
            torque: Vec3::zero(),
            at: [0.0; 3],
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
        let end = match &limb.end {
            Some(e) => &origin + rotation.mul_vec_f(e),
            None => &origin + axis.scale(&morphology.length[i]),
        };
        let com = &origin + &half;
        let acc_com = &acc + a.cross(&half) + w.cross(&w.cross(&half));
        let m = &morphology.mass[i];
        let force = acc_com.scale(m);
        let moment = match &limb.inertia {
            None => {
                let (it, ia) = cylinder_inertia(m, &morphology.radius[i], &morphology.length[i]);
                let excess = ia - &it;
                let inertia = |v: &Vec3<D>| v.scale(&it) + axis.scale(&(axis.dot(v) * &excess));
                inertia(&a) + w.cross(&inertia(&w)) + half.cross(&force)
            }
            Some(tensor) => {
                // I_world·v = R·(T·(Rᵀ·v))·(m / m₀): the file's tensor at the current mass.
                let body = Mat3::<D>::from_f64(*tensor);
                let ratio = m.clone() / limb.mass;
                let inertia = |v: &Vec3<D>| {
                    rotation
                        .mul_vec(&body.mul_vec(&rotation.tr_mul_vec(v)))
                        .scale(&ratio)
                };
                inertia(&a) + w.cross(&inertia(&w)) + half.cross(&force)
            }
        };
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
        let point = frames[j].point(&load.at);
        let arm = &point - &frames[j].origin;
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
#[path = "dynamics_tests.rs"]
mod tests;
