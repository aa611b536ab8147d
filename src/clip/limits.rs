//! Where a clip asks a joint for more than its limits. The simulation stops every degree of
//! freedom at its character's limits (a ball joint's as Euler angles about x, y and z, the
//! order of [`super::pose::joint_coordinates`]), so physics playback cannot reach a coordinate
//! beyond them, and tracking such a clip starts off by the excess. The gait solver bounds a ball
//! joint's exponential-map coordinates instead (Wampler 2012, §3.2.1), so its clips can exceed
//! the simulated limits.

use super::Clip;
use crate::model::Character;

/// One coordinate that a clip takes beyond its limits.
#[derive(Clone, Debug, PartialEq)]
pub struct LimitExcess {
    /// The coordinate's name (`l_hip.2`).
    pub coordinate: String,
    /// The most it goes beyond a limit (rad).
    pub excess: f64,
    /// In how many frames it is beyond a limit by more than the tolerance.
    pub frames: usize,
}

/// The coordinates of `clip` that go beyond `character`'s limits by more than `tolerance` (rad)
/// in some frame, the largest excess first. Coordinates without limits are never beyond them.
pub fn beyond_limits(clip: &Clip, character: &Character, tolerance: f64) -> Vec<LimitExcess> {
    let limits = character.coordinate_limits();
    let names = character.dof_names();
    let mut out: Vec<LimitExcess> = Vec::new();
    for (name, limit) in names.iter().zip(&limits) {
        let Some((lo, hi)) = *limit else { continue };
        let Some(c) = clip.coordinates.iter().position(|n| n == name) else {
            continue;
        };
        let (mut excess, mut frames) = (0.0f64, 0);
        for f in &clip.frames {
            let Some(&q) = f.joints.get(c) else { continue };
            let e = (lo - q).max(q - hi);
            if e > tolerance {
                frames += 1;
                excess = excess.max(e);
            }
        }
        if frames > 0 {
            out.push(LimitExcess {
                coordinate: name.clone(),
                excess,
                frames,
            });
        }
    }
    out.sort_by(|a, b| b.excess.total_cmp(&a.excess));
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::clip::ClipFrame;

    /// The shipped walker's hips allow −30° to 120° of flexion (`l_hip.2`): a frame at −40° is
    /// beyond by 10° and one at 100° is not; a coordinate within its limits is not listed.
    #[test]
    fn a_coordinate_beyond_its_limit_is_listed_with_its_excess() {
        let path = std::path::Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/characters"))
            .join("human3d_walker.ron");
        let character = crate::model::load_character(&path).expect("the shipped walker");
        let names = character.dof_names();
        let hip = names.iter().position(|n| n == "l_hip.2").expect("l_hip.2");
        let mut frames = Vec::new();
        for deg in [-40.0f64, 100.0, -35.0] {
            let mut joints = vec![0.0; names.len()];
            joints[hip] = deg.to_radians();
            frames.push(ClipFrame {
                root: [0.0, 1.0, 0.0, 0.0, 0.0, 0.0, 1.0],
                joints,
            });
        }
        let reference = crate::model::CharacterRef {
            path: path.display().to_string(),
            hash: String::new(),
        };
        let clip = Clip::from_key_frames(&character, reference, 30.0, frames, "test");
        let found = beyond_limits(&clip, &character, 0.02);
        assert_eq!(found.len(), 1, "{found:?}");
        assert_eq!(found[0].coordinate, "l_hip.2");
        assert_eq!(found[0].frames, 2);
        assert!((found[0].excess - 10f64.to_radians()).abs() < 1e-12);
        assert!(beyond_limits(&clip, &character, 0.2).is_empty());
    }
}
