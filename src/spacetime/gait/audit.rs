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
    /// max(0, √(‖t_xz/ν_b‖² + (t_y/ν_t)²) − f_y)/m (m/s²), the exact ellipsoid (3.11), in the
    /// foot's frame for a foot on its toes ([`super::Footing::torque_rows`]).
    pub torque_ellipsoid: f64,
    /// Largest depth of a node below the ground, or height of a contact foot above it (m).
    pub ground: f64,
    /// Largest |foot velocity + V x̂| between consecutive contact frames (m/s).
    pub slip: f64,
    /// Largest twist |R_xz − R_zx| of a contact foot whose twist the NLP holds
    /// ([`crate::spacetime::skeleton::Skeleton::held_twists`]).
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
/// sizes, when it has some (and its root in heading coordinates off the treadmill). A
/// transformed cycle is checked across its seam through T; an open clip's momentum at its
/// interior frames only (its end frames have no neighbour on one side).
pub fn audit(skeleton: &Skeleton, clip: &GaitClip, mu: f64, nu: f64) -> GaitAudit {
    let n = clip.frames.len();
    let cyclic = clip.closure.is_cyclic();
    let dt = if cyclic {
        clip.period / n as f64
    } else {
        clip.period / (n.max(2) - 1) as f64
    };
    let m = skeleton.total_mass();
    let morph = skeleton.morphology::<f64>();
    let fk = |q: &[f64]| forward_kinematics(skeleton, &morph, q);
    // Frames −1 ..= N of a cycle (the seam's neighbours moved by T⁻¹ and T), 0 .. N−1 of an
    // open clip: ext[i + 1] is frame i.
    let cycle = clip.cycle_motion();
    let seam = |q: &[f64], motion: PlanarMotion| {
        if clip.closure.is_treadmill() {
            q.to_vec()
        } else {
            motion.apply_heading_root(q)
        }
    };
    let mut ext = Vec::with_capacity(n + 2);
    if cyclic {
        ext.push(fk(&seam(&clip.frames[n - 1], cycle.inverse())));
    }
    ext.extend(clip.frames.iter().map(|q| fk(q)));
    if cyclic {
        ext.push(fk(&seam(&clip.frames[0], cycle)));
    }
    let offset = usize::from(cyclic);
    let kin = |i: usize| &ext[i + offset];
    let com = |e: usize, l: usize| ext[e].limbs[l].com.re();
    let cm = |e: usize| ext[e].com.re();
    let sub = |a: [f64; 3], b: [f64; 3]| [a[0] - b[0], a[1] - b[1], a[2] - b[2]];
    let cross = |a: [f64; 3], b: [f64; 3]| {
        [
            a[1] * b[2] - a[2] * b[1],
            a[2] * b[0] - a[0] * b[2],
            a[0] * b[1] - a[1] * b[0],
        ]
    };
    let norm = |a: [f64; 3]| (a[0] * a[0] + a[1] * a[1] + a[2] * a[2]).sqrt();
    // Momenta between extended frames e and e+1: P = Σ m_k Δc_k/dt, L = Σ m_k (c̄_k − C̄M) × Δc_k/dt.
    let half: Vec<([f64; 3], [f64; 3])> = (0..ext.len() - 1)
        .map(|e| {
            let f = e + 1;
            let mid_cm = cm(e)
                .iter()
                .zip(cm(f))
                .map(|(a, b)| 0.5 * (a + b))
                .collect::<Vec<_>>();
            let (mut p, mut l) = ([0.0; 3], [0.0; 3]);
            for (k, limb) in skeleton.limbs.iter().enumerate() {
                let v: [f64; 3] = std::array::from_fn(|c| (com(f, k)[c] - com(e, k)[c]) / dt);
                let r: [f64; 3] =
                    std::array::from_fn(|c| 0.5 * (com(e, k)[c] + com(f, k)[c]) - mid_cm[c]);
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
        let e = i + offset;
        let mut force = [0.0; 3];
        let mut moment = [0.0; 3];
        for (k, load) in clip.contacts[i].iter().enumerate() {
            let Some(load) = load else { continue };
            let p = kin(i).contact(skeleton, k, &load.at(skeleton, k)).re();
            let mc = cross(sub(p, cm(e)), load.force);
            for c in 0..3 {
                force[c] += load.force[c];
                moment[c] += mc[c] + load.torque[c];
            }
            let [fx, fy, fz] = load.force;
            let ty = load.torque[1];
            let rows = load.footing.torque_rows(skeleton.toe_half_width(k), nu);
            let [tx, tz] = rows.map(|[a, b]| a * load.torque[0] + b * load.torque[2]);
            out.friction = out
                .friction
                .max(((fx * fx + fz * fz).sqrt() - mu * fy).max(0.0) / m);
            out.torque_ellipsoid = out
                .torque_ellipsoid
                .max((((tx * tx + tz * tz) + ty * ty).sqrt() / nu - fy).max(0.0) / m);
        }
        if e >= 1 && e + 1 < ext.len() {
            let pdot: [f64; 3] = std::array::from_fn(|c| (half[e].0[c] - half[e - 1].0[c]) / dt);
            let ldot: [f64; 3] = std::array::from_fn(|c| (half[e].1[c] - half[e - 1].1[c]) / dt);
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
        }
        // Ground: every limb end and origin above y = 0; contact feet on it, not sliding (at −V
        // on a treadmill).
        for l in &kin(i).limbs {
            out.ground = out.ground.max(-l.origin.y).max(-l.end.y);
        }
        let in_contact = |frame: usize, k: usize| clip.contacts[frame][k].is_some();
        let held_twists = skeleton.held_twists(|k| in_contact(i, k));
        for k in 0..skeleton.feet.len() {
            if !in_contact(i, k) {
                continue;
            }
            // The point the foot stands on (its toes when up on them); a slip is measured at the
            // toes when the foot turns about them at either frame (a toe pivot's window).
            let here = clip.contacts[i][k]
                .as_ref()
                .map_or([0.0; 3], |l| l.at(skeleton, k));
            let p = kin(i).contact(skeleton, k, &here).re();
            let about_toes = |frame: usize| {
                (clip.contacts[frame][k].as_ref()).is_some_and(|l| l.footing.about_toes())
            };
            out.ground = out.ground.max(p[1].abs());
            let r = &kin(i).limbs[skeleton.feet[k]].rotation.m;
            if clip.closure.is_treadmill() && held_twists[k] {
                out.twist = out.twist.max((r[0][2] - r[2][0]).abs());
            }
            let j = (i + 1) % n;
            if (cyclic || i + 1 < n) && in_contact(j, k) && j != i {
                let next = &ext[e + 1];
                let on = match about_toes(i) || about_toes(j) {
                    true => skeleton.toes(k).unwrap_or([0.0; 3]),
                    false => [0.0; 3],
                };
                let v = sub(
                    next.contact(skeleton, k, &on).re(),
                    kin(i).contact(skeleton, k, &on).re(),
                );
                let drift = if clip.closure.is_treadmill() {
                    clip.speed
                } else {
                    0.0
                };
                out.slip = out
                    .slip
                    .max(norm([v[0] / dt + drift, v[1] / dt, v[2] / dt]));
                if !clip.closure.is_treadmill() && !skeleton.planar {
                    // The turn to the next frame is the pivot's, 0 for a foot that holds it.
                    let turn = clip.contacts[i][k].as_ref().map_or(0.0, |l| l.turn);
                    let rn = &next.limbs[skeleton.feet[k]].rotation.m;
                    let cross = r[2][0] * rn[0][0] - r[0][0] * rn[2][0];
                    let dot = r[0][0] * rn[0][0] + r[2][0] * rn[2][0];
                    out.twist = out.twist.max((turn.cos() * cross - turn.sin() * dot).abs());
                }
            }
        }
    }
    out
}
