//! Keyframe transfer KS → ARBS by full-body inverse kinematics (Borer et al.
//! 2018, §4.3): "we transfer the target motion keyframes from the KS to the ARBS
//! representation using full body inverse kinematics".
//!
//! Per frame of the skeleton's animation, the unknowns are the clip's own pose vocabulary
//! ([`crate::clip::pose`]): the root body's pose (3 translations, and a rotation updated as
//! q ← exp(δ)·q with δ a world rotation vector) and every joint coordinate. The objective is
//!
//!   E(x) = Σₖ wₖ ‖pₖ(x) − tₖ‖²
//!
//! over every KS joint k ([`super::ArbsMap::points`]): tₖ its world position in the frame, pₖ
//! the point of its body that follows it (the joint anchor of the body made for it; a leaf's
//! point at its parent body's far end), weights wₖ = 4 for the KS root, 2 for leaves (the end
//! effectors), 1 otherwise, unless the map gives the point its own. pₖ comes from
//! [`crate::clip::pose::body_poses`], the clips' forward kinematics; its Jacobian is analytic:
//! ∂p/∂t_root = I, ∂p/∂δ = eᵢ × (p − c_root), and for a degree of freedom about world axis a
//! through anchor o above the body, a × (p − o).
//!
//! Minimisation is Levenberg–Marquardt (damping λ·diag(JᵀJ) + 10⁻⁹·I, λ ÷3 on success, ×4 on
//! failure), each step projected onto the joint limits, so every coordinate stays within its
//! limits. Frames are warm-started from the previous frame's solution; the first frame, and
//! (unless [`TransferOptions::reseed`] is off) a frame whose warm-started solution misses by
//! more than 5 cm, is (also) solved from a seed read off the skeleton's joint rotations (each
//! body turned as its KS joint, projected onto its joint's coordinates), keeping the better.

use super::ArbsError;
use super::build::ArbsMap;
use super::skeleton::Skeleton;
use crate::clip::pose::{self, BodyPose};
use crate::clip::{CharacterRef, Clip, ClipFrame};
use crate::model::{Character, JointKind};
use nalgebra::{DMatrix, DVector, Rotation3, Unit, UnitQuaternion, Vector3};
use std::path::Path;

/// Errors at most this far (m) count as matched in [`ErrorSummary::within`].
pub const MATCH_DISTANCE: f64 = 0.05;

/// Settings of [`transfer`].
#[derive(Clone, Debug, PartialEq)]
pub struct TransferOptions {
    /// The character file the clip refers to (default: `<name>.ron` with the hash of the
    /// character's RON text).
    pub character: Option<CharacterRef>,
    /// Levenberg–Marquardt iterations per frame and start.
    pub max_iterations: usize,
    /// Weight of the KS root's point.
    pub root_weight: f64,
    /// Weight of the leaves' points (end effectors).
    pub effector_weight: f64,
    /// Also solve a frame the previous frame's solution misses by more than
    /// [`MATCH_DISTANCE`] from the skeleton's rotations, keeping the better. Off, every frame
    /// after the first starts from the one before only, so the motion never jumps between two
    /// ways of fitting the same points.
    pub reseed: bool,
}

impl Default for TransferOptions {
    fn default() -> Self {
        TransferOptions {
            character: None,
            max_iterations: 100,
            root_weight: 4.0,
            effector_weight: 2.0,
            reseed: true,
        }
    }
}

/// Median, 90th percentile and maximum of per-frame errors (m), and the fraction of frames
/// within [`MATCH_DISTANCE`].
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ErrorSummary {
    pub median: f64,
    pub p90: f64,
    pub max: f64,
    pub within: f64,
}

impl ErrorSummary {
    pub fn of(errors: &[f64]) -> Self {
        let mut v = errors.to_vec();
        v.sort_by(f64::total_cmp);
        let q = |p: f64| {
            if v.is_empty() {
                return 0.0;
            }
            let x = p * (v.len() - 1) as f64;
            let (i, f) = (x.floor() as usize, x.fract());
            v[i] + f * (v[(i + 1).min(v.len() - 1)] - v[i])
        };
        ErrorSummary {
            median: q(0.5),
            p90: q(0.9),
            max: v.last().copied().unwrap_or(0.0),
            within: if v.is_empty() {
                1.0
            } else {
                v.iter().filter(|&&e| e <= MATCH_DISTANCE).count() as f64 / v.len() as f64
            },
        }
    }
}

impl std::fmt::Display for ErrorSummary {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "median {:.1} cm, p90 {:.1} cm, max {:.1} cm, {:.0} % of frames <= {:.0} cm",
            100.0 * self.median,
            100.0 * self.p90,
            100.0 * self.max,
            100.0 * self.within,
            100.0 * MATCH_DISTANCE
        )
    }
}

/// A transferred animation.
#[derive(Clone, Debug)]
pub struct Transfer {
    /// The motion on the character (`tags.source = "transfer"`).
    pub clip: Clip,
    /// Per frame: distance from the KS root joint to its point on the root body (m).
    pub root_error: Vec<f64>,
    /// Per frame: the largest distance from a KS leaf standing for one of the character's end
    /// effectors ([`super::ArbsMap::end_effectors`]) to its point (m).
    pub effector_error: Vec<f64>,
    /// Per frame: the largest distance over every KS joint (m).
    pub joint_error: Vec<f64>,
    /// Per frame: Levenberg–Marquardt iterations spent.
    pub iterations: Vec<usize>,
}

impl Transfer {
    pub fn root_summary(&self) -> ErrorSummary {
        ErrorSummary::of(&self.root_error)
    }

    pub fn effector_summary(&self) -> ErrorSummary {
        ErrorSummary::of(&self.effector_error)
    }
}

/// One degree of freedom's joint, with what the Jacobian needs.
struct JointInfo {
    parent: usize,
    child: usize,
    offset: usize,
    kind: JointKind,
    anchor: Vector3<f64>,
    /// (min, max) in radians per degree of freedom; unlimited when empty.
    limits: Vec<(f64, f64)>,
}

/// The IK problem of one character.
struct Ik<'a> {
    c: &'a Character,
    root: usize,
    ref_pos: Vec<Vector3<f64>>,
    ref_rot: Vec<UnitQuaternion<f64>>,
    joints: Vec<JointInfo>,
    /// Per body: the joints from the root down to it.
    chain: Vec<Vec<usize>>,
    /// Per target: body, point in the body's reference frame, weight.
    targets: Vec<(usize, Vector3<f64>, f64)>,
    ndof: usize,
}

/// The unknowns: the root body's pose and the joint coordinates.
#[derive(Clone, Debug)]
struct State {
    root: BodyPose,
    q: Vec<f64>,
}

impl<'a> Ik<'a> {
    fn new(c: &'a Character, map: &ArbsMap, leaves: &[bool], options: &TransferOptions) -> Self {
        let ref_pos: Vec<Vector3<f64>> =
            c.bodies.iter().map(|b| Vector3::from(b.position)).collect();
        let ref_rot: Vec<UnitQuaternion<f64>> =
            c.bodies.iter().map(pose::reference_orientation).collect();
        let mut joints = Vec::new();
        let mut offset = 0;
        let mut parent_joint: Vec<Option<usize>> = vec![None; c.bodies.len()];
        for (ji, j) in c.joints.iter().enumerate() {
            let parent = c.body_index(&j.parent).expect("validated");
            let child = c.body_index(&j.child).expect("validated");
            parent_joint[child] = Some(ji);
            joints.push(JointInfo {
                parent,
                child,
                offset,
                kind: j.kind.clone(),
                anchor: Vector3::from(j.anchor),
                limits: j
                    .limits
                    .iter()
                    .map(|(lo, hi)| (lo.to_radians(), hi.to_radians()))
                    .collect(),
            });
            offset += j.kind.dof();
        }
        let chain = (0..c.bodies.len())
            .map(|b| {
                let mut out = Vec::new();
                let mut cur = b;
                while let Some(j) = parent_joint[cur] {
                    out.push(j);
                    cur = joints[j].parent;
                    if out.len() > c.joints.len() {
                        break;
                    }
                }
                out.reverse();
                out
            })
            .collect();
        let targets = map
            .points
            .iter()
            .map(|p| {
                let local = ref_rot[p.body].inverse() * (Vector3::from(p.point) - ref_pos[p.body]);
                let w = if let Some(w) = p.weight {
                    w
                } else if p.ks_joint == map.root {
                    options.root_weight
                } else if leaves[p.ks_joint] {
                    options.effector_weight
                } else {
                    1.0
                };
                (p.body, local, w)
            })
            .collect();
        Ik {
            c,
            root: c.body_index(&c.root.body).expect("validated"),
            ref_pos,
            ref_rot,
            joints,
            chain,
            targets,
            ndof: offset,
        }
    }

    /// Every target's point for `s`, and the body poses.
    fn points(&self, s: &State) -> (Vec<Vector3<f64>>, Vec<BodyPose>) {
        let poses = pose::body_poses(self.c, &s.root, &s.q);
        let pts = self
            .targets
            .iter()
            .map(|(b, local, _)| {
                let p = &poses[*b];
                Vector3::new(p[0], p[1], p[2]) + pose::quat_of(p) * local
            })
            .collect();
        (pts, poses)
    }

    fn cost(&self, s: &State, goal: &[Vector3<f64>]) -> f64 {
        let (pts, _) = self.points(s);
        pts.iter()
            .zip(goal)
            .zip(&self.targets)
            .map(|((p, g), t)| t.2 * (p - g).norm_squared())
            .sum()
    }

    /// Weighted residuals and their Jacobian (module docs).
    fn linearize(&self, s: &State, goal: &[Vector3<f64>]) -> (DVector<f64>, DMatrix<f64>) {
        let (pts, poses) = self.points(s);
        let n = 6 + self.ndof;
        let m = 3 * pts.len();
        let mut r = DVector::zeros(m);
        let mut jac = DMatrix::zeros(m, n);
        let pos = |b: usize| Vector3::new(poses[b][0], poses[b][1], poses[b][2]);
        let rel = |b: usize| pose::quat_of(&poses[b]) * self.ref_rot[b].inverse();
        // Per joint: world anchor and the world axis of each degree of freedom.
        let frames: Vec<(Vector3<f64>, Vec<Vector3<f64>>)> = self
            .joints
            .iter()
            .map(|j| {
                let rp = rel(j.parent);
                let o = pos(j.parent) + rp * (j.anchor - self.ref_pos[j.parent]);
                let mut acc = rp.to_rotation_matrix();
                let axes = j
                    .kind
                    .axes()
                    .iter()
                    .zip(&s.q[j.offset..j.offset + j.kind.dof()])
                    .map(|(a, angle)| {
                        let a = Unit::new_normalize(Vector3::from(*a));
                        let world = acc * a.into_inner();
                        acc *= Rotation3::from_axis_angle(&a, *angle);
                        world
                    })
                    .collect();
                (o, axes)
            })
            .collect();
        let c_root = pos(self.root);
        for (t, ((b, _, w), (p, g))) in self.targets.iter().zip(pts.iter().zip(goal)).enumerate() {
            let sw = w.sqrt();
            let row = 3 * t;
            let d = (p - g) * sw;
            r.fixed_rows_mut::<3>(row).copy_from(&d);
            for k in 0..3 {
                jac[(row + k, k)] = sw;
                let mut e = Vector3::zeros();
                e[k] = 1.0;
                let col = e.cross(&(p - c_root)) * sw;
                jac.fixed_view_mut::<3, 1>(row, 3 + k).copy_from(&col);
            }
            for &ji in &self.chain[*b] {
                let (o, axes) = &frames[ji];
                for (k, a) in axes.iter().enumerate() {
                    let col = a.cross(&(p - o)) * sw;
                    jac.fixed_view_mut::<3, 1>(row, 6 + self.joints[ji].offset + k)
                        .copy_from(&col);
                }
            }
        }
        (r, jac)
    }

    /// `s` moved by `step`, projected onto the joint limits.
    fn moved(&self, s: &State, step: &DVector<f64>) -> State {
        let mut out = self.moved_free(s, step);
        self.project(&mut out.q);
        out
    }

    /// `s` moved by `step`, limits ignored.
    fn moved_free(&self, s: &State, step: &DVector<f64>) -> State {
        let q0 = pose::quat_of(&s.root);
        let turn = UnitQuaternion::from_scaled_axis(Vector3::new(step[3], step[4], step[5]));
        let p = Vector3::new(
            s.root[0] + step[0],
            s.root[1] + step[1],
            s.root[2] + step[2],
        );
        let mut q: Vec<f64> =
            s.q.iter()
                .zip(step.iter().skip(6))
                .map(|(a, d)| a + d)
                .collect();
        self.project(&mut q);
        State {
            root: pose::pose_of(p, &(turn * q0)),
            q,
        }
    }

    fn project(&self, q: &mut [f64]) {
        for j in &self.joints {
            for (k, (lo, hi)) in j.limits.iter().enumerate() {
                let v = &mut q[j.offset + k];
                *v = v.clamp(*lo, *hi);
            }
        }
    }

    /// Levenberg–Marquardt from `s`; returns the final cost and the iterations.
    fn solve(&self, s: &mut State, goal: &[Vector3<f64>], max_iterations: usize) -> (f64, usize) {
        let n = 6 + self.ndof;
        let mut lambda = 1e-3;
        let mut cost = self.cost(s, goal);
        let mut it = 0;
        while it < max_iterations {
            it += 1;
            let (r, jac) = self.linearize(s, goal);
            let a = jac.transpose() * &jac;
            let g = jac.transpose() * r;
            let mut accepted = None;
            while lambda < 1e10 {
                let mut h = a.clone();
                for k in 0..n {
                    h[(k, k)] += lambda * a[(k, k)] + 1e-9;
                }
                let Some(chol) = h.cholesky() else {
                    lambda *= 4.0;
                    continue;
                };
                let step = -chol.solve(&g);
                let trial = self.moved(s, &step);
                let c = self.cost(&trial, goal);
                if c < cost {
                    accepted = Some((trial, c, step.norm()));
                    lambda = (lambda / 3.0).max(1e-12);
                    break;
                }
                lambda *= 4.0;
            }
            let Some((trial, c, step)) = accepted else {
                break;
            };
            let gain = cost - c;
            *s = trial;
            cost = c;
            if step < 1e-10 || gain < 1e-14 * (1.0 + cost) {
                break;
            }
        }
        (cost, it)
    }
}

/// Transfers animation `animation` of `ks` onto `character` (built from it: `map`) by
/// full-body IK (module docs). Errors name the skeleton's file.
pub fn transfer(
    ks: &Skeleton,
    animation: usize,
    character: &Character,
    map: &ArbsMap,
    options: &TransferOptions,
) -> Result<Transfer, ArbsError> {
    let path = ks.source.as_str();
    let anim = ks.animations.get(animation).ok_or_else(|| {
        ArbsError::build(
            path,
            format!(
                "no animation {animation}: the skeleton has {}",
                ks.animations.len()
            ),
        )
    })?;
    let problems = character.validate();
    if !problems.is_empty() {
        return Err(ArbsError::build(
            path,
            format!("the character is invalid: {}", problems[0]),
        ));
    }
    if map.bodies.len() != character.bodies.len()
        || map
            .points
            .iter()
            .any(|p| p.ks_joint >= ks.joints.len() || p.body >= character.bodies.len())
    {
        return Err(ArbsError::build(
            path,
            format!(
                "the map does not fit: {} bodies mapped for a character of {}, joints up to {}",
                map.bodies.len(),
                character.bodies.len(),
                ks.joints.len()
            ),
        ));
    }
    if anim.frames.is_empty() {
        return Err(ArbsError::build(
            path,
            format!("animation `{}` has no frames", anim.name),
        ));
    }
    let leaves: Vec<bool> = (0..ks.joints.len()).map(|j| ks.is_leaf(j)).collect();
    let ik = Ik::new(character, map, &leaves, options);
    // The end-effector error is measured at the leaves that stand for the character's end
    // effectors (feet, hands, head), not at every leaf (a tail tip or an ear is not one); a
    // character without end effectors is measured at every leaf.
    let measured: Vec<bool> = if map.end_effectors.is_empty() {
        leaves.clone()
    } else {
        (0..ks.joints.len())
            .map(|j| map.end_effectors.contains(&j))
            .collect()
    };
    let mut frames = Vec::with_capacity(anim.frames.len());
    let (mut root_error, mut effector_error, mut joint_error, mut iterations) =
        (Vec::new(), Vec::new(), Vec::new(), Vec::new());
    let mut previous: Option<State> = None;
    for frame in &anim.frames {
        let goal: Vec<Vector3<f64>> = map
            .points
            .iter()
            .map(|p| frame[p.ks_joint].position())
            .collect();
        let errors = |s: &State| -> (f64, f64, f64) {
            let (pts, _) = ik.points(s);
            let mut out = (0.0f64, 0.0f64, 0.0f64);
            for ((p, g), mp) in pts.iter().zip(&goal).zip(&map.points) {
                let d = (p - g).norm();
                if mp.ks_joint == map.root {
                    out.0 = d;
                }
                if measured[mp.ks_joint] {
                    out.1 = out.1.max(d);
                }
                out.2 = out.2.max(d);
            }
            out
        };
        let mut spent = 0;
        let mut best = match &previous {
            Some(prev) => {
                let mut s = prev.clone();
                let (cost, it) = ik.solve(&mut s, &goal, options.max_iterations);
                spent += it;
                (s, cost)
            }
            None => (seed(&ik, ks, map, frame), f64::INFINITY),
        };
        let (r, e, _) = errors(&best.0);
        if previous.is_none() || (options.reseed && r.max(e) > MATCH_DISTANCE) {
            let mut s = seed(&ik, ks, map, frame);
            let (cost, it) = ik.solve(&mut s, &goal, options.max_iterations);
            spent += it;
            if cost < best.1 {
                best = (s, cost);
            }
        }
        let (r, e, j) = errors(&best.0);
        root_error.push(r);
        effector_error.push(e);
        joint_error.push(j);
        iterations.push(spent);
        frames.push(ClipFrame {
            root: best.0.root,
            joints: best.0.q.clone(),
        });
        previous = Some(best.0);
    }
    let character_ref = options.character.clone().unwrap_or_else(|| {
        CharacterRef::new(
            Path::new(&format!("{}.ron", character.name)),
            &crate::files::to_ron_string(character),
        )
    });
    let clip = Clip::from_key_frames(character, character_ref, anim.rate, frames, "transfer");
    clip.check()
        .map_err(|m| ArbsError::build(path, format!("the transferred clip is invalid: {m}")))?;
    Ok(Transfer {
        clip,
        root_error,
        effector_error,
        joint_error,
        iterations,
    })
}

/// A starting pose read off the skeleton's rotations in `frame` (module docs).
fn seed(ik: &Ik, ks: &Skeleton, map: &ArbsMap, frame: &[super::JointPose]) -> State {
    let turn = |k: usize| frame[k].rotation() * ks.joints[k].rest.rotation().inverse();
    let root_joint = map.bodies[ik.root].unwrap_or(0);
    let tr = turn(root_joint);
    let c =
        frame[root_joint].position() + tr * (ik.ref_pos[ik.root] - ks.rest_position(root_joint));
    let root = pose::pose_of(c, &(tr * ik.ref_rot[ik.root]));
    let mut q = vec![0.0; ik.ndof];
    for j in &ik.joints {
        let (Some(kp), Some(kc)) = (map.bodies[j.parent], map.bodies[j.child]) else {
            continue;
        };
        let rel = (turn(kp).inverse() * turn(kc)).to_rotation_matrix();
        let coords = pose::joint_coordinates(&j.kind, &rel);
        q[j.offset..j.offset + coords.len()].copy_from_slice(&coords);
    }
    ik.project(&mut q);
    State { root, q }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::arbs::{ArbsOptions, build_character};

    /// The analytic Jacobian agrees with central differences through `pose::body_poses`.
    #[test]
    fn the_jacobian_matches_finite_differences() {
        let ks = crate::arbs::tests::humanoid();
        let (c, map) = build_character(&ks, &ArbsOptions::default()).unwrap();
        let leaves: Vec<bool> = (0..ks.joints.len()).map(|j| ks.is_leaf(j)).collect();
        let ik = Ik::new(&c, &map, &leaves, &TransferOptions::default());
        let mut s = seed(&ik, &ks, &map, &ks.animations[0].frames[0]);
        for (k, q) in s.q.iter_mut().enumerate() {
            *q = 0.3 * (k as f64 + 1.0).sin();
        }
        s.root = pose::pose_of(
            Vector3::new(0.1, 1.0, -0.2),
            &(UnitQuaternion::from_euler_angles(0.2, -0.4, 0.3) * pose::quat_of(&s.root)),
        );
        let goal = vec![Vector3::zeros(); ik.targets.len()];
        let (r0, jac) = ik.linearize(&s, &goal);
        let h = 1e-6;
        for col in 0..6 + ik.ndof {
            let mut step = DVector::zeros(6 + ik.ndof);
            step[col] = h;
            let (rp, _) = ik.linearize(&ik.moved_free(&s, &step), &goal);
            step[col] = -h;
            let (rm, _) = ik.linearize(&ik.moved_free(&s, &step), &goal);
            let fd = (rp - rm) / (2.0 * h);
            let err = (fd - jac.column(col)).norm();
            assert!(err < 1e-6 * (1.0 + r0.norm()), "column {col}: {err}");
        }
    }
}
