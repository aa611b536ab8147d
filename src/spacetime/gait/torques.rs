//! The joint torques of a solved gait: what each joint transmits, frame by frame, found as the
//! effort term (3.14) of Wampler 2012 finds them, by recursive Newton–Euler inverse dynamics
//! (thesis §3.2.3) of the motion and its contact loads, with the NLP's own finite differences
//! (q̇ᵢ = (qᵢ₊₁ − qᵢ₋₁)/2Δt, q̈ᵢ = (qᵢ₊₁ − 2qᵢ + qᵢ₋₁)/Δt², across a transformed cycle's seam
//! through T). These are the total torques t of (3.12), passive springs included: the feedforward
//! a simulated character needs to play the motion (the PD tracking of docs/steering.md).

use super::*;

/// Per frame of `clip`, the generalized force of every coordinate (the root's six first: its
/// wrench residual, near zero for a valid solve). `skeleton` is the clip's body
/// ([`GaitClip::body`]). An open clip's two end frames, which have a neighbour on one side only,
/// take their inner neighbour's torques.
pub fn gait_torques(skeleton: &Skeleton, clip: &GaitClip) -> Vec<Vec<f64>> {
    let n = clip.frames.len();
    let cyclic = clip.closure.is_cyclic();
    if n < 3 && !cyclic {
        return vec![vec![0.0; skeleton.dof()]; n];
    }
    let dt = if cyclic {
        clip.period / n as f64
    } else {
        clip.period / (n - 1) as f64
    };
    let cycle = clip.cycle_motion();
    // Frame i's neighbour at offset ±1, moved across the seam.
    let neighbour = |i: usize, forward: bool| -> Vec<f64> {
        let (k, seam) = match (forward, i) {
            (true, i) if i + 1 == n => (0, Some(cycle)),
            (true, i) => (i + 1, None),
            (false, 0) => (n - 1, Some(cycle.inverse())),
            (false, i) => (i - 1, None),
        };
        match seam {
            Some(m) if !clip.closure.is_treadmill() => m.apply_heading_root(&clip.frames[k]),
            _ => clip.frames[k].clone(),
        }
    };
    let morph = skeleton.morphology::<f64>();
    let at = |i: usize| -> Vec<f64> {
        let (qm, q, qp) = (neighbour(i, false), &clip.frames[i], neighbour(i, true));
        let qd: Vec<f64> = (0..q.len()).map(|d| (qp[d] - qm[d]) * (0.5 / dt)).collect();
        let qdd: Vec<f64> = (0..q.len())
            .map(|d| (qp[d] - 2.0 * q[d] + qm[d]) / (dt * dt))
            .collect();
        let loads: Vec<FootLoad<f64>> = clip.contacts[i]
            .iter()
            .enumerate()
            .filter_map(|(k, l)| {
                l.as_ref().map(|l| FootLoad {
                    foot: k,
                    force: Vec3::from_f64(l.force),
                    torque: Vec3::from_f64(l.torque),
                    at: l.at(skeleton, k),
                })
            })
            .collect();
        inverse_dynamics(skeleton, &morph, q, &qd, &qdd, GRAVITY, &loads).generalized_forces
    };
    let mut out: Vec<Vec<f64>> = Vec::with_capacity(n);
    for i in 0..n {
        let inner = if cyclic { i } else { i.clamp(1, n - 2) };
        out.push(if inner == i {
            at(i)
        } else {
            out.get(inner).cloned().unwrap_or_else(|| at(inner))
        });
    }
    out
}
