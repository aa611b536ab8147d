//! The mirror image of a gait through the creature's sagittal plane z = 0: a left turn becomes
//! the right turn, the left foot's step the right foot's.
//!
//! For a mirror-symmetric creature the reflection M = diag(1, 1, −1) maps every solution of the
//! gait NLP (Wampler 2012, §3.2; McIntosh 2011, §3.2.5) onto a solution of the mirrored problem with
//! the same cost: positions p ↦ M p, forces f ↦ M f, torques (axial vectors) τ ↦ −M τ, and a
//! rotation R(a, θ) ↦ M R(a, θ) M = R(−M a, θ). A joint coordinate about axis a therefore becomes
//! its mirror limb's coordinate about b = ±(−M a), times that sign; a heading root's yaw and
//! roll change sign, its pitch does not, its z does. The transformed cycle's turn rate changes
//! sign. Mirror limbs are found by their geometry ([`super::super::morphology::mirror_limbs`]);
//! a creature that is not symmetric is an error.
//!
//! A space solves one of each pair of opposite turns and mirrors it (`space generate`): half the
//! solves, and the two turns are exactly alike. Warm-started solves of the two turns had ended at
//! costs 4.3 and 5,741 for the slow walk's ±45°/s.
//!
//! # Half a symmetric cycle
//! A treadmill gait whose second half is the mirror image of its first (a walk or a run of a
//! symmetric biped: each foot's window half a period after its mirror foot's) is a fixed point of
//! M composed with a shift by half a period. Solving only the first N/2 frames, with the frame
//! after the last read as M(frame 0) and the frame before the first as M(frame N/2 − 1)
//! ([`Seam::Mirror`]), and with each spring tied to its mirror spring (equal stiffness and
//! damping, rest angles mirrored), gives exactly the symmetric solutions of the whole cycle's NLP
//! with half its variables, at half its cost; [`GaitClip::unfold_half`] makes the whole cycle of
//! it. This is the half-stride of the usual trajectory-optimization benchmarks of walking (one
//! step and a heel-strike map that swaps the legs).

use super::problem::{Block, Layout};
use super::*;
use crate::spacetime::morphology::mirror_limbs;
use crate::spacetime::skeleton::JointKind;

/// Per coordinate of q: the index of its mirror coordinate and the sign it takes.
pub(super) fn mirror_coordinates(skeleton: &Skeleton) -> Result<Vec<(usize, f64)>, GaitError> {
    let limbs = mirror_limbs(skeleton);
    let not = |why: String| GaitError::InvalidClip(skeleton.name.clone(), why);
    let mut map = vec![(0, 0.0); skeleton.dof()];
    for (i, limb) in skeleton.limbs.iter().enumerate() {
        let partner = &skeleton.limbs[limbs[i]];
        let signs: Vec<f64> = match (&limb.joint, &partner.joint) {
            (JointKind::Fixed { .. }, _) => Vec::new(),
            // Yaw about y, pitch about z, roll about x; then x, y, z.
            (JointKind::FreeHeading, _) => vec![-1.0, 1.0, -1.0, 1.0, 1.0, -1.0],
            // Rotation vector (an axial vector), then position.
            (JointKind::Free, _) => vec![-1.0, -1.0, 1.0, 1.0, 1.0, -1.0],
            (a, b) => {
                let axes = |k: &JointKind| -> Vec<[f64; 3]> {
                    match k {
                        JointKind::Hinge { axis } => vec![*axis],
                        JointKind::Euler { axes } => axes.clone(),
                        JointKind::ExpMap => {
                            vec![[1.0, 0.0, 0.0], [0.0, 1.0, 0.0], [0.0, 0.0, 1.0]]
                        }
                        _ => Vec::new(),
                    }
                };
                let (axes_a, axes_b) = (axes(a), axes(b));
                if axes_a.len() != axes_b.len() || axes_a.len() != limb.joint.dof() {
                    return Err(not(format!(
                        "limb `{}` and its mirror `{}` have different joints",
                        limb.name, partner.name
                    )));
                }
                axes_a
                    .iter()
                    .zip(&axes_b)
                    .map(|(a, b)| {
                        // b · (−M a)
                        let s = -a[0] * b[0] - a[1] * b[1] + a[2] * b[2];
                        if (s.abs() - 1.0).abs() > 1e-9 {
                            return Err(not(format!(
                                "the axis {a:?} of `{}` has no mirror image among `{}`'s axes",
                                limb.name, partner.name
                            )));
                        }
                        Ok(s.signum())
                    })
                    .collect::<Result<_, _>>()?
            }
        };
        for (k, s) in signs.into_iter().enumerate() {
            map[limb.dofs.start + k] = (partner.dofs.start + k, s);
        }
    }
    Ok(map)
}

impl GaitClip {
    /// This gait's mirror image through z = 0 on the (symmetric) creature `skeleton`: see the
    /// module docs. Mirroring twice gives back the same bits.
    pub fn mirrored(&self, skeleton: &Skeleton) -> Result<GaitClip, GaitError> {
        self.check_creature(skeleton)?;
        let invalid = |why: &str| GaitError::InvalidClip(self.creature.clone(), why.into());
        if self.morphology.is_some() {
            return Err(invalid("a clip with its own limb sizes is not mirrored"));
        }
        // The body the frames are of (a heading root off the treadmill).
        let skeleton = &self.body(skeleton)?;
        let map = mirror_coordinates(skeleton)?;
        let names = skeleton.dof_names();
        if self.coordinates != names {
            return Err(invalid("its coordinates are not its creature's"));
        }
        let pose = |q: &Vec<f64>| {
            let mut m = vec![0.0; q.len()];
            for (i, &(j, s)) in map.iter().enumerate() {
                m[j] = s * q[i];
            }
            m
        };
        let frames = self.frames.iter().map(pose).collect();
        // An open clip's fixed end frames are mirrored with the others.
        let closure = match &self.closure {
            Closure::Treadmill => Closure::Treadmill,
            Closure::Transformed { turn_rate, strafe } => Closure::Transformed {
                turn_rate: -turn_rate,
                strafe: -strafe,
            },
            Closure::Open(ends) => Closure::Open(Box::new(OpenEnds {
                first: ends.first.each_ref().map(pose),
                last: ends.last.each_ref().map(pose),
            })),
        };
        // Foot k's mirror foot, by limb.
        let limbs = mirror_limbs(skeleton);
        let limb_of = |name: &str| skeleton.limbs.iter().position(|l| l.name == name);
        let foot_mirror: Vec<usize> = self
            .timings
            .iter()
            .map(|t| {
                let m = limb_of(&t.foot).map(|l| &skeleton.limbs[limbs[l]].name);
                self.timings
                    .iter()
                    .position(|u| Some(&u.foot) == m)
                    .ok_or_else(|| invalid("a foot's mirror image has no contact window"))
            })
            .collect::<Result<_, _>>()?;
        // The mirror foot takes this foot's window.
        let mut timings = self.timings.clone();
        for (k, &m) in foot_mirror.iter().enumerate() {
            timings[m].start = self.timings[k].start;
            timings[m].duration = self.timings[k].duration;
        }
        let contacts = self
            .contacts
            .iter()
            .map(|feet| {
                let mut m = feet.clone();
                for (k, &j) in foot_mirror.iter().enumerate() {
                    m[j] = feet[k].as_ref().map(|l| ContactLoad {
                        force: [l.force[0], l.force[1], -l.force[2]],
                        torque: [-l.torque[0], -l.torque[1], l.torque[2]],
                        turn: -l.turn,
                        footing: match l.footing {
                            Footing::Toes { heel, yaw } => Footing::Toes { heel, yaw: -yaw },
                            f => f,
                        },
                    });
                }
                m
            })
            .collect();
        let passive = self
            .passive
            .iter()
            .map(|p| {
                let i = names
                    .iter()
                    .position(|n| *n == p.coordinate)
                    .ok_or_else(|| invalid("a spring on a coordinate the creature lacks"))?;
                let (j, s) = map[i];
                Ok((
                    j,
                    PassiveElement {
                        coordinate: names[j].clone(),
                        stiffness: p.stiffness,
                        rest: s * p.rest,
                        damping: p.damping,
                    },
                ))
            })
            .collect::<Result<Vec<_>, GaitError>>()?;
        // In the original's coordinate order.
        let passive = self
            .passive
            .iter()
            .map(|p| {
                passive
                    .iter()
                    .find(|(_, m)| m.coordinate == p.coordinate)
                    .map(|(_, m)| m.clone())
                    .ok_or_else(|| invalid("a spring without a mirror spring"))
            })
            .collect::<Result<_, _>>()?;
        Ok(GaitClip {
            frames,
            timings,
            contacts,
            passive,
            closure,
            ..self.clone()
        })
    }
}

/// For every foot (index into `skeleton.feet`), its mirror foot's index; an error when a limb
/// off the midline has no mirror image or a foot's mirror limb is not a foot.
fn mirror_feet(skeleton: &Skeleton) -> Result<Vec<usize>, GaitError> {
    let limbs = mirror_limbs(skeleton);
    let not = |why: String| GaitError::NotSymmetric(why);
    for (i, limb) in skeleton.limbs.iter().enumerate() {
        let off_midline = limb.offset[2].abs() > 1e-9 || limb.direction[2].abs() > 1e-9;
        if limbs[i] == i && limb.parent.is_some() && off_midline {
            return Err(not(format!("limb `{}` has no mirror image", limb.name)));
        }
    }
    skeleton
        .feet
        .iter()
        .map(|&l| {
            skeleton
                .feet
                .iter()
                .position(|&f| f == limbs[l])
                .ok_or_else(|| {
                    not(format!(
                        "the mirror image of foot `{}` is not a foot",
                        skeleton.limbs[l].name
                    ))
                })
        })
        .collect()
}

impl GaitSpec {
    /// The spec solved as half a mirror-symmetric cycle (see the module docs): half the
    /// variables, the same gait when the whole cycle's optimum is symmetric. Only a treadmill
    /// cycle of an even number of frames, of a symmetric creature without morphology, whose feet
    /// touch down half a period after their mirror feet; [`Self::half_cycle`] says why not.
    pub fn with_mirror_half(mut self, on: bool) -> Self {
        self.mirror_half = on;
        self
    }

    /// Whether the spec is solved as half a mirror-symmetric cycle ([`Self::with_mirror_half`]).
    pub fn is_mirror_half(&self) -> bool {
        self.mirror_half
    }

    /// Whether this spec is the half cycle of a mirror-symmetric one.
    pub(super) fn is_half(&self) -> bool {
        self.half
    }

    /// The half cycle to solve when the spec asks for one: its first N/2 frames over half the
    /// period, its seam the mirror ([`Seam::Mirror`]), the whole cycle's contact table and
    /// start; `None` when it does not ask; an error naming what is not symmetric.
    pub fn half_cycle(&self) -> Result<Option<GaitSpec>, GaitError> {
        if !self.mirror_half {
            return Ok(None);
        }
        let not = |why: &str| Err(GaitError::NotSymmetric(why.into()));
        if !self.closure.is_treadmill() {
            return not(
                "only a treadmill cycle is mirrored (not a turning, strafing or open clip)",
            );
        }
        if self.morphology.is_some() {
            return not("the body's shape is optimised");
        }
        if self.frames % 2 != 0 || self.frames < 4 {
            return not("the cycle needs an even number of frames, at least 4");
        }
        if self.pivoting.iter().flatten().any(|&t| t != 0.0)
            || self.footing.iter().flatten().any(|&f| f != Footing::Sole)
        {
            return not("a foot pivots or stands on its toes");
        }
        mirror_coordinates(&self.skeleton)?;
        let feet = mirror_feet(&self.skeleton)?;
        let half = self.frames / 2;
        for i in 0..half {
            for (k, &m) in feet.iter().enumerate() {
                if self.contact[i + half][m] != self.contact[i][k] {
                    let foot = &self.timings[k].foot;
                    return Err(GaitError::NotSymmetric(format!(
                        "foot `{foot}` is down at frame {i} and its mirror foot at frame {} \
                         differently: each foot's window must start half a period after its \
                         mirror foot's, with the same length",
                        i + half
                    )));
                }
            }
        }
        // The rows that hold a planted foot's twist must be each other's mirrors too: of feet
        // whose legs cannot turn them, only the first down holds its twist
        // ([`Skeleton::held_twists`]), and which is first does not mirror (the horse's).
        let held = |i: usize| self.skeleton.held_twists(|k| self.contact[i][k]);
        for i in 0..half {
            let (a, b) = (held(i), held(i + half));
            if feet.iter().enumerate().any(|(k, &m)| a[k] != b[m]) {
                return not(
                    "the rows holding planted feet's twist are not symmetric (of the feet whose \
                     legs cannot turn them, only the first down holds its twist)",
                );
            }
        }
        let mut spec = self.clone();
        spec.frames = half;
        spec.period = self.period / 2.0;
        spec.mirror_half = false;
        spec.half = true;
        Ok(Some(spec))
    }
}

impl GaitProblem {
    /// The variables of the NLP a solve of `spec` solves: its half cycle's when it asks for one
    /// ([`GaitSpec::with_mirror_half`]), else its own.
    pub fn solved_variables(spec: &GaitSpec) -> Result<usize, GaitError> {
        let half = spec.half_cycle()?;
        Ok(GaitProblem::new(half.unwrap_or_else(|| spec.clone())).variables())
    }

    /// The rows tying each passive element of half a mirrored cycle to its mirror's: equal
    /// stiffness and damping, rest angle times the mirror's sign (a coordinate that is its own
    /// mirror with sign −1 rests at 0).
    pub(super) fn mirror_springs(layout: &Layout, mirror: &[(usize, f64)]) -> (Block, BlockSpec) {
        let start = layout.passive_start;
        let mut rows = Vec::new();
        for (p, &d) in layout.passive_dofs.iter().enumerate() {
            let (e, s) = mirror[d];
            let m = layout
                .passive_dofs
                .iter()
                .position(|&x| x == e)
                .expect("a passive coordinate's mirror is passive");
            let ([ks, rest, kd], [mks, mrest, mkd]) = (layout.passive(p), layout.passive(m));
            if p < m {
                rows.extend([
                    (ks - start, mks - start, 1.0),
                    (kd - start, mkd - start, 1.0),
                ]);
            }
            if p < m || (p == m && s < 0.0) {
                rows.push((rest - start, mrest - start, s));
            }
        }
        let variables = (start..start + 3 * layout.passive_dofs.len()).collect();
        let n = rows.len();
        (
            Block::MirrorSprings { rows },
            BlockSpec::equal(variables, vec![0.0; n]).linear(),
        )
    }
}

impl GaitClip {
    /// The whole cycle of a half cycle solved for `spec` ([`GaitSpec::half_cycle`]): its frames
    /// and loads, then their mirror images; the springs are already their own mirror images. Its
    /// cost and largest violation are measured as a point of `spec`'s whole NLP (the caller's).
    pub(super) fn unfold_half(&self, spec: &GaitSpec) -> Result<GaitClip, GaitError> {
        let half = GaitClip {
            timings: spec.timings.clone(),
            period: spec.period,
            ..self.clone()
        };
        let mirror = half.mirrored(&spec.skeleton)?;
        let mut whole = half;
        whole.frames.extend(mirror.frames);
        whole.contacts.extend(mirror.contacts);
        Ok(whole)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::path::Path;

    /// The walker, a shipped gait clip of it (`path` in the repository), its mirror image, and
    /// the audits' largest violations of the two.
    fn mirror_shipped(path: &str) -> (Skeleton, GaitClip, GaitClip, [f64; 2]) {
        let root = Path::new(env!("CARGO_MANIFEST_DIR"));
        let skeleton = Skeleton::load(&root.join("characters/human3d_walker.ron")).unwrap();
        let clip: GaitClip = crate::files::read_ron(&root.join(path)).unwrap();
        let body = clip.body(&skeleton).unwrap();
        let m = clip.mirrored(&skeleton).unwrap();
        let audits = [&clip, &m].map(|c| audit(&body, c, MU, NU).max());
        (skeleton, clip, m, audits)
    }

    /// The shipped slow walk turning right, mirrored, is a left turn as feasible as the original
    /// (the audit recomputes every constraint), and mirrored back it is the same bits.
    #[test]
    fn a_mirrored_turn_is_as_feasible_and_mirrors_back_to_the_same_bits() {
        let (skeleton, clip, m, [before, after]) =
            mirror_shipped("assets/spaces/human3d_locomotion/gait/gait=walk0.6_turn=-45.ron");
        assert!(after <= 1e-6, "the mirror image violates {after:e}");
        assert!(
            (after - before).abs() <= 1e-9,
            "audit {before:e} against {after:e}"
        );
        let Closure::Transformed { turn_rate, .. } = m.closure else {
            panic!("{:?}", m.closure)
        };
        assert_eq!(turn_rate, 45f64.to_radians());
        // The mirror image moves to the other side: the pelvis ends on the other side of the
        // path and the left foot takes the right foot's window.
        let z = |c: &GaitClip| c.frames.last().unwrap()[5];
        assert!(z(&clip) * z(&m) < 0.0 && (z(&clip) + z(&m)).abs() < 1e-12);
        let window =
            |c: &GaitClip, foot: &str| c.timings.iter().find(|t| t.foot == foot).unwrap().start;
        assert_eq!(window(&m, "l_foot"), window(&clip, "r_foot"));
        assert_eq!(m.mirrored(&skeleton).unwrap(), clip);
    }

    /// An open clip mirrors with its fixed end frames: the shipped right toe pivot becomes a left
    /// one on the left foot's toes, as feasible by the audit (the toes' edge turned with the
    /// foot), turning the other way, and mirrored back it is the same bits.
    #[test]
    fn a_mirrored_toe_pivot_pivots_the_other_foot_the_other_way() {
        let (skeleton, clip, m, [_, after]) =
            mirror_shipped("assets/spaces/human3d_stepping/gait/toe_pivot_right_45.ron");
        assert!(after <= 1e-6, "the mirror image violates {after:e}");
        let turned = |c: &GaitClip, k: usize| -> f64 {
            c.contacts
                .iter()
                .filter_map(|f| f[k].as_ref())
                .map(|l| l.turn)
                .sum()
        };
        let foot = |name: &str| {
            (skeleton.feet.iter())
                .position(|&l| skeleton.limbs[l].name == name)
                .unwrap()
        };
        let (left, right) = (foot("l_foot"), foot("r_foot"));
        assert!((turned(&clip, right) + 45f64.to_radians()).abs() < 1e-9);
        assert!((turned(&m, left) - 45f64.to_radians()).abs() < 1e-9);
        let Closure::Open(ends) = &m.closure else {
            panic!("{:?}", m.closure)
        };
        // The last fixed frame's yaw (a heading root's first coordinate) turns left.
        assert!(
            (ends.last[1][0] - 45f64.to_radians()).abs() < 0.01,
            "{:?}",
            ends.last[1]
        );
        assert_eq!(m.mirrored(&skeleton).unwrap(), clip);
    }
}
