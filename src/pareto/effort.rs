//! Weighted joint effort of the Pareto jumps (Agrawal 2015, thesis §4.3.2, Eq. 4.4, Table 4.1):
//! e_je = Σ_t Σ_i w_i τ_i² dt, with the Table 4.1 weights (hips 2.5, knees 2, ankles 1,
//! shoulders 1, elbows 0.5, wrists 0.25, head 1, neck 1, back 2.5, abs 3) normalized so that
//! Σ w_i = n over the character's degrees of freedom. The thesis's unit (N²m²) leaves open
//! whether torques are summed over time; we integrate over the rollout (N²m²s), so the figure
//! does not depend on the time step. Unweighted effort makes jumps that the hips and knees
//! power instead of the ankles (the thesis's reason for the weights).

use crate::model::Character;
use std::collections::BTreeMap;

/// Why raw effort weights do not fit a character.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
pub enum EffortError {
    #[error("effort weights name no weight for joint {joint:?} (expected {joint:?} or {base:?})")]
    Missing { joint: String, base: String },
    #[error("effort weight of {joint:?} is {weight}, expected ≥ 0")]
    Negative { joint: String, weight: f64 },
    #[error("effort weights are all zero")]
    AllZero,
    #[error("effort weights name unknown joint {joint:?}")]
    UnknownJoint { joint: String },
}

/// Per degree of freedom: the normalized weight w_i.
#[derive(Clone, Debug, PartialEq)]
pub struct EffortWeights {
    pub weights: Vec<f64>,
}

impl EffortWeights {
    /// Weights for every degree of freedom of `c` from raw weights by joint name, where a name
    /// without `l_`/`r_` covers both sides (`hip` for `l_hip` and `r_hip`). Every joint must be
    /// named: a forgotten joint would silently cost nothing.
    pub fn new(c: &Character, raw: &BTreeMap<String, f64>) -> Result<Self, EffortError> {
        let mut weights = Vec::new();
        for j in &c.joints {
            let base = j
                .name
                .strip_prefix("l_")
                .or_else(|| j.name.strip_prefix("r_"))
                .unwrap_or(&j.name);
            let w = raw
                .get(&j.name)
                .or_else(|| raw.get(base))
                .copied()
                .ok_or_else(|| EffortError::Missing {
                    joint: j.name.clone(),
                    base: base.to_string(),
                })?;
            if !(w >= 0.0 && w.is_finite()) {
                return Err(EffortError::Negative {
                    joint: j.name.clone(),
                    weight: w,
                });
            }
            weights.extend(std::iter::repeat_n(w, j.kind.dof()));
        }
        let sum: f64 = weights.iter().sum();
        if sum <= 0.0 {
            return Err(EffortError::AllZero);
        }
        let n = weights.len() as f64;
        for w in &mut weights {
            *w *= n / sum;
        }
        for k in raw.keys() {
            let known = c
                .joints
                .iter()
                .any(|j| j.name == *k || j.name == format!("l_{k}") || j.name == format!("r_{k}"));
            if !known {
                return Err(EffortError::UnknownJoint { joint: k.clone() });
            }
        }
        Ok(EffortWeights { weights })
    }

    /// Σ_i w_i τ_i² for one set of joint torques (N²m²).
    pub fn rate(&self, torques: &[f32]) -> f64 {
        self.weights
            .iter()
            .zip(torques)
            .map(|(w, t)| w * (*t as f64) * (*t as f64))
            .sum()
    }
}

/// The Table 4.1 weights by joint name for the 2D human (`back` is the upper waist, `abs` the
/// lower waist).
pub fn table_4_1_human2d() -> BTreeMap<String, f64> {
    [
        ("hip", 2.5),
        ("knee", 2.0),
        ("ankle", 1.0),
        ("shoulder", 1.0),
        ("elbow", 0.5),
        ("wrist", 0.25),
        ("head", 1.0),
        ("neck", 1.0),
        ("upper_waist", 2.5),
        ("lower_waist", 3.0),
    ]
    .into_iter()
    .map(|(k, v)| (k.to_string(), v))
    .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn human2d() -> Character {
        crate::model::load_character(std::path::Path::new(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/characters/human2d.ron"
        )))
        .unwrap()
    }

    #[test]
    fn weights_are_normalized_to_the_number_of_joints() {
        let c = human2d();
        let w = EffortWeights::new(&c, &table_4_1_human2d()).unwrap();
        let n = c.dof_names().len();
        assert_eq!(w.weights.len(), n);
        let sum: f64 = w.weights.iter().sum();
        assert!((sum - n as f64).abs() < 1e-9, "{sum} vs {n}");
        // Raw sum: 2·(2.5 + 2 + 1 + 1 + 0.5 + 0.25) + 1 + 1 + 2.5 + 3 = 22.0 over 16 joints.
        let names = c.dof_names();
        let hip = names.iter().position(|d| d == "l_hip").unwrap();
        assert!((w.weights[hip] - 2.5 * 16.0 / 22.0).abs() < 1e-12);
    }

    #[test]
    fn a_known_torque_trace_gives_its_weighted_sum() {
        let c = human2d();
        let w = EffortWeights::new(&c, &table_4_1_human2d()).unwrap();
        let names = c.dof_names();
        let mut tau = vec![0.0f32; names.len()];
        tau[names.iter().position(|d| d == "r_knee").unwrap()] = 100.0;
        tau[names.iter().position(|d| d == "lower_waist").unwrap()] = -10.0;
        // 2·(16/22)·100² + 3·(16/22)·10²
        let expected = (2.0 * 10_000.0 + 3.0 * 100.0) * 16.0 / 22.0;
        assert!((w.rate(&tau) - expected).abs() < 1e-6);
    }

    #[test]
    fn a_missing_or_unknown_joint_is_an_error() {
        let c = human2d();
        let mut raw = table_4_1_human2d();
        raw.remove("wrist");
        let e = EffortWeights::new(&c, &raw).unwrap_err().to_string();
        assert!(e.contains("l_wrist"), "{e}");
        let mut raw = table_4_1_human2d();
        raw.insert("tail".into(), 1.0);
        assert!(
            EffortWeights::new(&c, &raw)
                .unwrap_err()
                .to_string()
                .contains("tail")
        );
    }
}
