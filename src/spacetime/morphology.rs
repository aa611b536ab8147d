//! Morphology co-optimisation: limb lengths and radii as gait variables, and the muscle model
//! that keeps them honest (Wampler 2012, thesis §3.4, Eqs 3.26–3.33).
//!
//! # Shape variables
//! - Two per limb group: a **length scale** and a **radius scale** (dimensionless, 1 = the
//!   character file), constant over the gait. Scales rather than metres keep every variable near
//!   1 whatever the creature's size.
//! - **Which limbs:** the legs, i.e. every limb on a path from a foot up to (not including) the
//!   root. The root (torso), and the neck and head, keep the file's size (§3.4.2: "I keep the torso,
//!   neck, and head size of the animals fixed"). With a minimum head height
//!   ([`MorphologyOptions::min_head_height`]) the limbs between the root and the head (the neck,
//!   not the head itself) become variable too: that is the experiment of "the lengthening of the
//!   neck (as opposed to the legs)" (§3.4.2).
//! - **Left–right symmetry:** a limb and its mirror image share their two variables. Mirror images
//!   are found from the file's geometry ([`mirror_limbs`]): the same joint kind, `at`, length,
//!   radius and mass, the offset and the direction reflected through z = 0, and a parent that is
//!   itself the mirror of the other's parent. A limb on the midline (like the pentaped's middle
//!   leg) is its own mirror. The gait itself is not made symmetric.
//! - **Constant density:** a limb's mass scales with l·r² ([`Morphology::at_constant_density`]).
//!
//! # The muscle-aware effort (3.26), replacing (3.14)
//! C₁[Σ E_f(i,j)² + Σ E_σ(i,j)²] over frames i and actuated joints j, where joint j joins a
//! parent limb 1 and a child limb 2:
//! - (3.27) muscle cross-section a_j = 0.25·π·smin(r₁, r₂)²;
//! - (3.28) smin(a, b) = (a⁻¹⁰ + b⁻¹⁰)^(−1/10);
//! - (3.29) attachment arms d_{j,1} = smin(0.2·l₁, 1.5·r₂) and d_{j,2} = smin(0.2·l₂, 1.5·r₁).
//!   The thesis prints the radius index swapped; we read it literally, the *other* limb's radius
//!   (the printed indices are ambiguous): a muscle on limb 1 wraps around limb 2's joint end;
//! - (3.30) d_j = d_{j,1}·d_{j,2}/√(d_{j,1}² + d_{j,2}²);
//! - (3.31) E_f = |t_a|/d_j, with |t_a| the norm of the joint's active torques (all its
//!   coordinates);
//! - (3.32) |f_m| = (|t_a| + |t_p| + |t_e|)/d_j, with |t_e| = 0.05·|f·v|, f the force the joint
//!   transmits (from inverse dynamics) and v the child limb's end-to-end vector;
//! - (3.33) E_σ = h(σ)·|f_m|, σ = |f_m|/a_j, h(σ) = √(3(σ/σ_max)² + 1) − 1, σ_max = 50 N/cm².
//!
//! All in SI units (N, m, Pa). The norms in (3.32) are smoothed, √(x² + ε²) with
//! ε = [`SMOOTH_TORQUE`], so the objective stays differentiable where a torque vanishes. The
//! objective keeps the normalisation of our (3.14), 1/(m·N) with m the file's mass and N the
//! frame count, so the weights C₂..C₄ keep their meaning.

use super::autodiff::Scalar;
use super::skeleton::{Morphology, Skeleton};
use serde::{Deserialize, Serialize};

/// σ_max (Pa): 50 N/cm², the maximum muscle stress of endurance-trained athletes (§3.4.1).
pub const SIGMA_MAX: f64 = 5.0e5;
/// Fraction of a limb's cross-section that is muscle (3.27).
pub const MUSCLE_FRACTION: f64 = 0.25;
/// Off-axis factor of the error torque (3.32).
pub const OFF_AXIS: f64 = 0.05;
/// The smooth minimum's exponent (3.28).
pub const SMIN_EXPONENT: i32 = 10;
/// Attachment arm: this fraction of the limb's length… (3.29)
pub const ARM_LENGTH: f64 = 0.2;
/// …or this multiple of the other limb's radius, whichever is smaller (3.29).
pub const ARM_RADIUS: f64 = 1.5;
/// ε (N·m) of the smoothed torque magnitudes in (3.32).
pub const SMOOTH_TORQUE: f64 = 1e-3;
/// Bounds of a limb group's length scale.
pub const LENGTH_SCALE: (f64, f64) = (0.5, 3.0);
/// Bounds of a limb group's radius scale.
pub const RADIUS_SCALE: (f64, f64) = (0.2, 3.0);

/// What `--morphology` asks of a gait solve.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct MorphologyOptions {
    /// Use the muscle-aware effort (3.26) instead of (3.14). Off only to show why it is needed.
    pub muscle: bool,
    /// Keep the head point at least this high (m) in every frame; makes the neck variable.
    pub min_head_height: Option<f64>,
}

impl Default for MorphologyOptions {
    fn default() -> Self {
        Self {
            muscle: true,
            min_head_height: None,
        }
    }
}

/// One limb's size in a solved gait clip.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct LimbShape {
    pub name: String,
    /// m.
    pub length: f64,
    /// m.
    pub radius: f64,
    /// kg.
    pub mass: f64,
}

/// smin(a, b) = (a⁻¹⁰ + b⁻¹⁰)^(−1/10) (3.28), for a, b > 0.
pub fn smin<D: Scalar>(a: &D, b: &D) -> D {
    (a.powi(-SMIN_EXPONENT) + b.powi(-SMIN_EXPONENT)).powf(-1.0 / SMIN_EXPONENT as f64)
}

/// Muscle cross-section a_j (m²) of a joint between limbs of radii `r1`, `r2` (3.27).
pub fn muscle_area<D: Scalar>(r1: &D, r2: &D) -> D {
    let r = smin(r1, r2);
    r.clone() * r * (MUSCLE_FRACTION * std::f64::consts::PI)
}

/// Force-to-torque factor d_j (m) of a joint between limb 1 (l1, r1) and limb 2 (l2, r2),
/// (3.29)–(3.30).
pub fn moment_arm<D: Scalar>(l1: &D, r1: &D, l2: &D, r2: &D) -> D {
    let d1 = smin(&(l1.clone() * ARM_LENGTH), &(r2.clone() * ARM_RADIUS));
    let d2 = smin(&(l2.clone() * ARM_LENGTH), &(r1.clone() * ARM_RADIUS));
    d1.clone() * &d2 / (d1.clone() * &d1 + d2.clone() * &d2).sqrt()
}

/// h(σ) = √(3(σ/σ_max)² + 1) − 1 (3.33): 0 for a relaxed muscle, 1 at σ_max.
pub fn stress_factor<D: Scalar>(sigma: &D) -> D {
    let s = sigma.clone() / SIGMA_MAX;
    (s.clone() * s * 3.0 + 1.0).sqrt() - 1.0
}

/// √(Σ x² + ε²): a smooth |x|.
pub fn smooth_norm<D: Scalar>(x: &[D]) -> D {
    x.iter()
        .fold(D::from(SMOOTH_TORQUE * SMOOTH_TORQUE), |acc, v| {
            acc + v.clone() * v
        })
        .sqrt()
}

/// The residuals of one joint's muscle effort in one frame, scaled by `scale`: E_f's
/// components t_a,k/d_j (so their squares sum to E_f²) and then E_σ. `active` and `passive` are
/// the joint's torques per coordinate (N·m), `axial` is f·v (N·m) of (3.32).
pub fn muscle_residuals<D: Scalar>(
    active: &[D],
    passive: &[D],
    axial: &D,
    arm: &D,
    area: &D,
    scale: f64,
) -> Vec<D> {
    let inv = arm.recip();
    let mut r: Vec<D> = active.iter().map(|t| t.clone() * &inv * scale).collect();
    let error = smooth_norm(std::slice::from_ref(axial)) * OFF_AXIS;
    let tension = (smooth_norm(active) + smooth_norm(passive) + error) * &inv;
    let sigma = tension.clone() / area;
    r.push(stress_factor(&sigma) * tension * scale);
    r
}

/// For every limb, the index of its mirror image through z = 0 (itself on the midline or when
/// it has none); see the module docs.
pub fn mirror_limbs(skeleton: &Skeleton) -> Vec<usize> {
    let close = |a: f64, b: f64| (a - b).abs() <= 1e-9 * (1.0 + a.abs().max(b.abs()));
    let reflected =
        |a: &[f64; 3], b: &[f64; 3]| close(a[0], b[0]) && close(a[1], b[1]) && close(a[2], -b[2]);
    let mut mirror: Vec<usize> = (0..skeleton.limbs.len()).collect();
    for (i, a) in skeleton.limbs.iter().enumerate() {
        let Some(pa) = a.parent else { continue };
        let on_midline = mirror[pa] == pa && close(a.offset[2], 0.0) && close(a.direction[2], 0.0);
        if on_midline {
            continue;
        }
        let found = skeleton.limbs.iter().enumerate().find(|(j, b)| {
            *j != i
                && b.parent == Some(mirror[pa])
                && b.joint.dof() == a.joint.dof()
                && close(b.at, a.at)
                && close(b.length, a.length)
                && close(b.radius, a.radius)
                && close(b.mass, a.mass)
                && reflected(&a.offset, &b.offset)
                && reflected(&a.direction, &b.direction)
        });
        if let Some((j, _)) = found {
            mirror[i] = j;
        }
    }
    mirror
}

/// The variable limb groups of a creature (see the module docs), each a limb and its mirror.
#[derive(Debug, Clone, PartialEq)]
pub struct ShapeGroups {
    groups: Vec<Vec<usize>>,
    /// Number of limbs of the creature the groups were made for (checked in debug builds).
    limbs: usize,
}

impl ShapeGroups {
    /// The legs of `skeleton`, and the neck when `neck` is set.
    pub fn new(skeleton: &Skeleton, neck: bool) -> Self {
        let mut variable = vec![false; skeleton.limbs.len()];
        for &foot in &skeleton.feet {
            for l in skeleton.path_to_root(foot) {
                if skeleton.limbs[l].parent.is_some() {
                    variable[l] = true;
                }
            }
        }
        if let (true, Some(head)) = (neck, skeleton.head) {
            for l in skeleton.path_to_root(head) {
                if l != head && skeleton.limbs[l].parent.is_some() {
                    variable[l] = true;
                }
            }
        }
        let mirror = mirror_limbs(skeleton);
        let mut groups = Vec::new();
        for i in 0..skeleton.limbs.len() {
            let m = mirror[i];
            if variable[i] && m >= i {
                groups.push(if m == i { vec![i] } else { vec![i, m] });
            }
        }
        Self {
            groups,
            limbs: skeleton.limbs.len(),
        }
    }

    /// Number of groups; the shape variables are twice this (length scale, radius scale).
    pub fn len(&self) -> usize {
        self.groups.len()
    }

    pub fn is_empty(&self) -> bool {
        self.groups.is_empty()
    }

    /// The limbs of each group.
    pub fn groups(&self) -> &[Vec<usize>] {
        &self.groups
    }

    /// The group's name: its first limb's.
    pub fn name(&self, skeleton: &Skeleton, group: usize) -> String {
        let limbs = &self.groups[group];
        let names: Vec<&str> = limbs
            .iter()
            .map(|&l| skeleton.limbs[l].name.as_str())
            .collect();
        names.join("+")
    }

    /// Lengths, radii and masses (constant density) for `scales` = (length scale, radius scale)
    /// per group.
    pub fn morphology<D: Scalar>(&self, skeleton: &Skeleton, scales: &[D]) -> Morphology<D> {
        debug_assert_eq!(self.limbs, skeleton.limbs.len());
        let mut length: Vec<D> = skeleton.limbs.iter().map(|l| D::from(l.length)).collect();
        let mut radius: Vec<D> = skeleton.limbs.iter().map(|l| D::from(l.radius)).collect();
        for (g, limbs) in self.groups.iter().enumerate() {
            for &l in limbs {
                length[l] = scales[2 * g].clone() * skeleton.limbs[l].length;
                radius[l] = scales[2 * g + 1].clone() * skeleton.limbs[l].radius;
            }
        }
        Morphology::at_constant_density(skeleton, length, radius)
    }
}

/// Every limb's size under `morphology`.
pub fn limb_shapes(skeleton: &Skeleton, morphology: &Morphology<f64>) -> Vec<LimbShape> {
    skeleton
        .limbs
        .iter()
        .enumerate()
        .map(|(i, l)| LimbShape {
            name: l.name.clone(),
            length: morphology.length[i],
            radius: morphology.radius[i],
            mass: morphology.mass[i],
        })
        .collect()
}

/// A limb name the skeleton lacks (displayed as the name).
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub struct UnknownLimb(pub String);

/// `skeleton` with the sizes of `shapes` (by limb name), or the first name it lacks.
pub fn reshaped(skeleton: &Skeleton, shapes: &[LimbShape]) -> Result<Skeleton, UnknownLimb> {
    let mut out = skeleton.clone();
    for s in shapes {
        let l = skeleton
            .limb_index(&s.name)
            .ok_or_else(|| UnknownLimb(s.name.clone()))?;
        let limb = &mut out.limbs[l];
        limb.length = s.length;
        limb.radius = s.radius;
        limb.mass = s.mass;
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::spacetime::tests::creature;

    #[test]
    fn smooth_minimum_is_below_and_close_to_the_minimum() {
        let (a, b) = (0.05_f64, 0.08_f64);
        let s = smin(&a, &b);
        // (1 + (5/8)^10)^(-1/10) = 0.99909…
        assert!(s < a && s > 0.999 * a, "smin {s}");
        // Equal arguments: 2^(-1/10) of either.
        assert!((smin(&a, &a) - a * 2f64.powf(-0.1)).abs() < 1e-15);
    }

    #[test]
    fn muscle_geometry_of_a_biped_knee() {
        // Thigh l 0.4 r 0.05 and shin l 0.4 r 0.04.
        let (l1, r1, l2, r2) = (0.4, 0.05, 0.4, 0.04);
        let a = muscle_area(&r1, &r2);
        let r = smin(&r1, &r2);
        assert!((a - 0.25 * std::f64::consts::PI * r * r).abs() < 1e-15);
        // d1 = smin(0.08, 0.06) and d2 = smin(0.08, 0.075).
        let d1: f64 = smin(&0.08, &0.06);
        let d2: f64 = smin(&0.08, &0.075);
        let d = moment_arm(&l1, &r1, &l2, &r2);
        assert!((d - d1 * d2 / (d1 * d1 + d2 * d2).sqrt()).abs() < 1e-15);
        assert!(d > 0.03 && d < 0.05, "d {d}");
    }

    #[test]
    fn stress_factor_is_zero_relaxed_and_one_at_the_maximum_stress() {
        assert_eq!(stress_factor(&0.0), 0.0);
        assert!((stress_factor(&SIGMA_MAX) - 1.0).abs() < 1e-15);
        // Quadratic at small stress: h ≈ 1.5 (σ/σmax)².
        let h = stress_factor(&(0.01 * SIGMA_MAX));
        assert!((h / 1.5e-4 - 1.0).abs() < 1e-3, "h {h}");
    }

    #[test]
    fn muscle_residuals_square_to_the_thesis_terms() {
        let active = [3.0, -4.0];
        let passive = [1.0, 0.0];
        let (axial, arm, area) = (20.0, 0.04, 2e-4);
        let r = muscle_residuals(&active, &passive, &axial, &arm, &area, 1.0);
        let ef2 = r[0] * r[0] + r[1] * r[1];
        assert!((ef2 - (5.0f64 / 0.04).powi(2)).abs() < 1e-9);
        let fm = (5.0 + 1.0 + 0.05 * 20.0) / 0.04; // smoothing adds < 1e-6 N·m
        let e_sigma = stress_factor(&(fm / area)) * fm;
        assert!(
            (r[2] - e_sigma).abs() < 1e-3 * e_sigma,
            "{} vs {e_sigma}",
            r[2]
        );
    }

    #[test]
    fn mirror_images_pair_left_and_right_legs() {
        let biped = creature("simple_biped");
        let m = mirror_limbs(&biped);
        let name = |i: usize| biped.limbs[i].name.as_str();
        let pairs: Vec<(&str, &str)> = (0..biped.limbs.len())
            .map(|i| (name(i), name(m[i])))
            .collect();
        assert!(pairs.contains(&("l_thigh", "r_thigh")));
        assert!(pairs.contains(&("r_shin", "l_shin")));
        assert!(pairs.contains(&("l_foot", "r_foot")));
        let groups = ShapeGroups::new(&biped, false);
        assert_eq!(groups.len(), 3, "thigh, shin, foot pairs");
        assert!(groups.groups().iter().all(|g| g.len() == 2));

        // The pentaped's middle leg is its own mirror: 3 pairs + 3 midline limbs.
        let pentaped = creature("pentaped");
        let groups = ShapeGroups::new(&pentaped, false);
        let singles = groups.groups().iter().filter(|g| g.len() == 1).count();
        assert_eq!((groups.len(), singles), (9, 3), "{groups:?}");

        // The horse: 4 segments × 2 leg pairs; the neck joins only with a head-height bound.
        let horse = creature("horse");
        assert_eq!(ShapeGroups::new(&horse, false).len(), 8);
        let with_neck = ShapeGroups::new(&horse, true);
        assert_eq!(with_neck.len(), 9);
        assert!((0..9).any(|g| with_neck.name(&horse, g) == "neck"));
    }

    #[test]
    fn scales_change_lengths_radii_and_masses_at_constant_density() {
        let biped = creature("simple_biped");
        let groups = ShapeGroups::new(&biped, false);
        let mut scales = vec![1.0; 2 * groups.len()];
        scales[0] = 1.5; // thigh length
        scales[1] = 0.5; // thigh radius
        let m = groups.morphology(&biped, &scales);
        for &l in &groups.groups()[0] {
            let limb = &biped.limbs[l];
            assert!((m.length[l] - 1.5 * limb.length).abs() < 1e-12);
            assert!((m.radius[l] - 0.5 * limb.radius).abs() < 1e-12);
            assert!((m.mass[l] - 1.5 * 0.25 * limb.mass).abs() < 1e-12);
        }
        assert_eq!(m.mass[0], biped.limbs[0].mass, "the torso is fixed");
        let shaped = reshaped(&biped, &limb_shapes(&biped, &m)).unwrap();
        assert!((shaped.total_mass() - m.total_mass()).abs() < 1e-12);
        assert_eq!(
            reshaped(
                &biped,
                &[LimbShape {
                    name: "tail".into(),
                    length: 1.0,
                    radius: 0.1,
                    mass: 1.0
                }]
            ),
            Err(UnknownLimb("tail".to_string()))
        );
    }
}
