//! The independent physical audit of a [`GaitClip`]: momentum balance from finite differences
//! of the limbs' centres of mass, the friction cone, the torque ellipsoid, ground contact, slip
//! and twist, each as its largest residual over the cycle.

use super::*;

/// An independent physical check of a [`GaitClip`] (see the module docs): the largest residual of
/// each kind over all frames, the wrap from the last frame to the first included.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct GaitAudit {
    /// |ṗ − m·g − Σf|/m (m/s²), with ṗ from differences of the linear momentum between frames.
    pub linear_momentum: f64,
    /// |L̇ − Σ[(p − CM) × f + t]|/m (m²/s²), with L̇ from differences of the angular momentum about
    /// the centre of mass between frames (point-mass limbs).
    pub angular_momentum: f64,
    /// max(0, ‖f_xz‖ − μ f_y)/m (m/s²), the exact cone (3.10).
    pub friction: f64,
    /// max(0, √(‖t_xz/ν_b‖² + (t_y/ν_t)²) − f_y)/m (m/s²), the exact ellipsoid (3.11).
    pub torque_ellipsoid: f64,
    /// Largest depth of a node below the ground, or height of a contact foot above it (m).
    pub ground: f64,
    /// Largest |foot velocity + V x̂| between consecutive contact frames (m/s).
    pub slip: f64,
    /// Largest twist |R_xz − R_zx| of a contact foot.
    pub twist: f64,
}

impl GaitAudit {
    /// The largest mass-normalised dynamic violation (momentum, friction, ellipsoid).
    pub fn max_dynamics(&self) -> f64 {
        self.linear_momentum
            .max(self.angular_momentum)
            .max(self.friction)
            .max(self.torque_ellipsoid)
    }

    /// The largest violation of any kind.
    pub fn max(&self) -> f64 {
        self.max_dynamics()
            .max(self.ground)
            .max(self.slip)
            .max(self.twist)
    }
}

/// Audits `clip` for `skeleton` with friction μ and ellipsoid radius ν (see [`GaitAudit`]).
/// `skeleton` is the clip's body ([`GaitClip::body`]): the character file with the clip's limb
/// sizes, when it has some.
pub fn audit(skeleton: &Skeleton, clip: &GaitClip, mu: f64, nu: f64) -> GaitAudit {
    let n = clip.frames.len();
    let dt = clip.period / n as f64;
    let m = skeleton.total_mass();
    let morph = skeleton.morphology::<f64>();
    let kin: Vec<_> = clip
        .frames
        .iter()
        .map(|q| forward_kinematics(skeleton, &morph, q))
        .collect();
    let com = |i: usize, l: usize| kin[i].limbs[l].com.re();
    let cm = |i: usize| kin[i].com.re();
    let sub = |a: [f64; 3], b: [f64; 3]| [a[0] - b[0], a[1] - b[1], a[2] - b[2]];
    let cross = |a: [f64; 3], b: [f64; 3]| {
        [
            a[1] * b[2] - a[2] * b[1],
            a[2] * b[0] - a[0] * b[2],
            a[0] * b[1] - a[1] * b[0],
        ]
    };
    let norm = |a: [f64; 3]| (a[0] * a[0] + a[1] * a[1] + a[2] * a[2]).sqrt();
    // Momenta between frame i and i+1 (cyclic): P = Σ m_k Δc_k/dt, L = Σ m_k (c̄_k − C̄M) × Δc_k/dt.
    let half: Vec<([f64; 3], [f64; 3])> = (0..n)
        .map(|i| {
            let j = (i + 1) % n;
            let mid_cm = cm(i)
                .iter()
                .zip(cm(j))
                .map(|(a, b)| 0.5 * (a + b))
                .collect::<Vec<_>>();
            let (mut p, mut l) = ([0.0; 3], [0.0; 3]);
            for (k, limb) in skeleton.limbs.iter().enumerate() {
                let v: [f64; 3] = std::array::from_fn(|c| (com(j, k)[c] - com(i, k)[c]) / dt);
                let r: [f64; 3] =
                    std::array::from_fn(|c| 0.5 * (com(i, k)[c] + com(j, k)[c]) - mid_cm[c]);
                let rv = cross(r, v);
                for c in 0..3 {
                    p[c] += limb.mass * v[c];
                    l[c] += limb.mass * rv[c];
                }
            }
            (p, l)
        })
        .collect();
    let mut out = GaitAudit {
        linear_momentum: 0.0,
        angular_momentum: 0.0,
        friction: 0.0,
        torque_ellipsoid: 0.0,
        ground: 0.0,
        slip: 0.0,
        twist: 0.0,
    };
    for i in 0..n {
        let before = (i + n - 1) % n;
        let mut force = [0.0; 3];
        let mut moment = [0.0; 3];
        for (k, load) in clip.contacts[i].iter().enumerate() {
            let Some(load) = load else { continue };
            let p = kin[i].foot(skeleton, k).re();
            let mc = cross(sub(p, cm(i)), load.force);
            for c in 0..3 {
                force[c] += load.force[c];
                moment[c] += mc[c] + load.torque[c];
            }
            let [fx, fy, fz] = load.force;
            let [tx, ty, tz] = load.torque;
            out.friction = out
                .friction
                .max(((fx * fx + fz * fz).sqrt() - mu * fy).max(0.0) / m);
            out.torque_ellipsoid = out
                .torque_ellipsoid
                .max((((tx * tx + tz * tz) + ty * ty).sqrt() / nu - fy).max(0.0) / m);
        }
        let pdot: [f64; 3] = std::array::from_fn(|c| (half[i].0[c] - half[before].0[c]) / dt);
        let ldot: [f64; 3] = std::array::from_fn(|c| (half[i].1[c] - half[before].1[c]) / dt);
        let mut lin: [f64; 3] = std::array::from_fn(|c| pdot[c] - m * GRAVITY[c] - force[c]);
        let mut ang = sub(ldot, moment);
        if skeleton.planar {
            // The plane takes the out-of-plane force and moments.
            lin[2] = 0.0;
            ang[0] = 0.0;
            ang[1] = 0.0;
        }
        out.linear_momentum = out.linear_momentum.max(norm(lin) / m);
        out.angular_momentum = out.angular_momentum.max(norm(ang) / m);
        // Ground: every limb end and origin above y = 0; contact feet on it, sliding at −V.
        for l in &kin[i].limbs {
            out.ground = out.ground.max(-l.origin.y).max(-l.end.y);
        }
        for (k, load) in clip.contacts[i].iter().enumerate() {
            if load.is_none() {
                continue;
            }
            let p = kin[i].foot(skeleton, k).re();
            out.ground = out.ground.max(p[1].abs());
            let r = &kin[i].limbs[skeleton.feet[k]].rotation.m;
            out.twist = out.twist.max((r[0][2] - r[2][0]).abs());
            let j = (i + 1) % n;
            if clip.contacts[j][k].is_some() && j != i {
                let v = sub(kin[j].foot(skeleton, k).re(), p);
                out.slip = out
                    .slip
                    .max(norm([v[0] / dt + clip.speed, v[1] / dt, v[2] / dt]));
            }
        }
    }
    out
}
