//! Keyframes typed by hand, as an animator sets them: at a few instants the root's place and
//! turn and the joints' angles, on a character; between them the motion is a Catmull–Rom spline
//! (the default curve of animation tools, through every key) or straight lines. A keyframe file
//! (`*.keys.ron`, its `keys` field names it) opens as a clip ([`super::open`]), so anything that
//! plays, exports or tracks clips takes it: the Keys-to-Sim search makes it simulated motion
//! (Borer, Guay and Sumner 2018).

use super::pose::{pose_of, reference_orientation};
use super::{CharacterRef, Clip, ClipFrame};
use crate::model::Character;
use nalgebra::{UnitQuaternion, Vector3};
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// How the motion moves between keys.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub enum Interpolation {
    /// Catmull–Rom: smooth, through every key.
    #[default]
    Smooth,
    /// Straight lines between keys.
    Linear,
}

/// One key.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Key {
    /// When (s).
    pub time: f64,
    /// The root body's centre of mass (m).
    pub root: [f64; 3],
    /// The root body's turn from its reference orientation (deg): heading about +y, then pitch
    /// about the heading's z, then roll about its x.
    #[serde(default)]
    pub turn: [f64; 3],
    /// Joint coordinates by name (deg; `Character::dof_names`: `knee`, `hip.0`, …). A coordinate
    /// a key does not name keeps the previous key's value (the reference pose's 0 at the first).
    #[serde(default)]
    pub joints: BTreeMap<String, f64>,
}

/// A keyframe file.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Keyframes {
    /// The character file, relative to the keyframe file.
    pub character: String,
    /// Frames per second of the clip the keys make.
    pub rate: f64,
    #[serde(default)]
    pub interpolation: Interpolation,
    pub keys: Vec<Key>,
    /// What the motion is, and who made it.
    #[serde(default)]
    pub description: String,
}

/// What is wrong with a keyframe file.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum KeyframeError {
    #[error("expected at least two keys in increasing time, found {0}")]
    Keys(String),
    #[error(
        "key {key} names `{name}`, which is not a joint coordinate of {character} (its are: {known})"
    )]
    UnknownCoordinate {
        key: usize,
        name: String,
        character: String,
        known: String,
    },
    #[error("expected a rate in (0, 1000] frames per second, found {0}")]
    Rate(f64),
}

/// A Catmull–Rom segment between p1 and p2 (p0 and p3 their neighbours) at s ∈ [0, 1].
fn catmull_rom(p0: f64, p1: f64, p2: f64, p3: f64, s: f64) -> f64 {
    let s2 = s * s;
    let s3 = s2 * s;
    0.5 * (2.0 * p1
        + (-p0 + p2) * s
        + (2.0 * p0 - 5.0 * p1 + 4.0 * p2 - p3) * s2
        + (-p0 + 3.0 * p1 - 3.0 * p2 + p3) * s3)
}

impl Keyframes {
    /// The clip of the keys on `character`, named `character_ref`.
    pub fn clip(
        &self,
        character: &Character,
        character_ref: CharacterRef,
    ) -> Result<Clip, KeyframeError> {
        if !(self.rate > 0.0 && self.rate <= 1000.0) {
            return Err(KeyframeError::Rate(self.rate));
        }
        if self.keys.len() < 2
            || self
                .keys
                .windows(2)
                .any(|w| !(w[1].time > w[0].time) || !w[0].time.is_finite())
        {
            let times: Vec<String> = self.keys.iter().map(|k| format!("{}", k.time)).collect();
            return Err(KeyframeError::Keys(format!("times [{}]", times.join(", "))));
        }
        let names = character.dof_names();
        // Every key's full set of values: root x, y, z, heading, pitch, roll, then coordinates.
        let mut values: Vec<Vec<f64>> = Vec::with_capacity(self.keys.len());
        let mut held = vec![0.0; names.len()];
        for (i, k) in self.keys.iter().enumerate() {
            for (name, v) in &k.joints {
                let d = names.iter().position(|n| n == name).ok_or_else(|| {
                    KeyframeError::UnknownCoordinate {
                        key: i,
                        name: name.clone(),
                        character: character.name.clone(),
                        known: names.join(", "),
                    }
                })?;
                held[d] = v.to_radians();
            }
            let mut row = vec![k.root[0], k.root[1], k.root[2]];
            row.extend(k.turn.iter().map(|a| a.to_radians()));
            row.extend_from_slice(&held);
            values.push(row);
        }
        let root = character
            .body_index(&character.root.body)
            .expect("validated character");
        let reference = reference_orientation(&character.bodies[root]);
        let (t0, t1) = (self.keys[0].time, self.keys[self.keys.len() - 1].time);
        let frames = ((t1 - t0) * self.rate).round() as usize + 1;
        let at = |t: f64| -> Vec<f64> {
            let j = self
                .keys
                .windows(2)
                .position(|w| t <= w[1].time)
                .unwrap_or(self.keys.len() - 2);
            let (a, b) = (&self.keys[j], &self.keys[j + 1]);
            let s = ((t - a.time) / (b.time - a.time)).clamp(0.0, 1.0);
            let prev = j.saturating_sub(1);
            let next = (j + 2).min(self.keys.len() - 1);
            (0..values[j].len())
                .map(|c| match self.interpolation {
                    Interpolation::Linear => values[j][c] + s * (values[j + 1][c] - values[j][c]),
                    Interpolation::Smooth => catmull_rom(
                        values[prev][c],
                        values[j][c],
                        values[j + 1][c],
                        values[next][c],
                        s,
                    ),
                })
                .collect()
        };
        let frames: Vec<ClipFrame> = (0..frames)
            .map(|f| {
                let v = at(t0 + f as f64 / self.rate);
                let turn = UnitQuaternion::from_axis_angle(&Vector3::y_axis(), v[3])
                    * UnitQuaternion::from_axis_angle(&Vector3::z_axis(), v[4])
                    * UnitQuaternion::from_axis_angle(&Vector3::x_axis(), v[5]);
                ClipFrame {
                    root: pose_of(Vector3::new(v[0], v[1], v[2]), &(turn * reference)),
                    joints: v[6..].to_vec(),
                }
            })
            .collect();
        let mut clip =
            Clip::from_key_frames(character, character_ref, self.rate, frames, "keyframes");
        clip.tags.family = Some("keyframes".into());
        Ok(clip)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn keys(interpolation: Interpolation) -> Keyframes {
        Keyframes {
            character: "human3d.ron".into(),
            rate: 10.0,
            interpolation,
            description: String::new(),
            keys: vec![
                Key {
                    time: 0.0,
                    root: [0.0, 0.99, 0.0],
                    turn: [0.0; 3],
                    joints: BTreeMap::from([("l_knee".to_string(), -20.0)]),
                },
                Key {
                    time: 1.0,
                    root: [1.0, 0.79, 0.0],
                    turn: [90.0, 0.0, 0.0],
                    joints: BTreeMap::from([("l_knee".to_string(), -60.0)]),
                },
                Key {
                    time: 2.0,
                    root: [2.0, 0.99, 0.0],
                    turn: [90.0, 0.0, 0.0],
                    joints: BTreeMap::new(),
                },
            ],
        }
    }

    fn human() -> Character {
        crate::model::load_character(std::path::Path::new(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/characters/human3d.ron"
        )))
        .unwrap()
    }

    /// The curve passes through every key (root, turn, named coordinates), holds a coordinate a
    /// key does not name, and straight lines meet the keys' midpoints halfway.
    #[test]
    fn the_clip_passes_through_its_keys() {
        let c = human();
        let knee = c.dof_names().iter().position(|n| n == "l_knee").unwrap();
        for interp in [Interpolation::Smooth, Interpolation::Linear] {
            let clip = keys(interp)
                .clip(&c, CharacterRef::new("x.ron".as_ref(), ""))
                .unwrap();
            assert_eq!(clip.frames.len(), 21);
            let f = &clip.frames[10];
            assert!((f.root[0] - 1.0).abs() < 1e-12 && (f.root[1] - 0.79).abs() < 1e-12);
            assert!((f.joints[knee] + 60f64.to_radians()).abs() < 1e-12);
            // Held after its last key.
            assert!((clip.frames[20].joints[knee] + 60f64.to_radians()).abs() < 1e-12);
            // Turned 90° about +y at the second key.
            let q = crate::clip::pose::quat_of(&f.root);
            assert!((q.angle() - std::f64::consts::FRAC_PI_2).abs() < 1e-9);
        }
        let linear = keys(Interpolation::Linear)
            .clip(&c, CharacterRef::new("x.ron".as_ref(), ""))
            .unwrap();
        assert!((linear.frames[5].root[0] - 0.5).abs() < 1e-12);
    }

    #[test]
    fn a_misnamed_coordinate_or_bad_times_are_refused() {
        let c = human();
        let mut k = keys(Interpolation::Smooth);
        k.keys[1].joints.insert("tail".into(), 3.0);
        let e = k
            .clip(&c, CharacterRef::new("x.ron".as_ref(), ""))
            .unwrap_err();
        assert!(e.to_string().contains("`tail`"), "{e}");
        let mut k = keys(Interpolation::Smooth);
        k.keys[2].time = 0.5;
        assert!(matches!(
            k.clip(&c, CharacterRef::new("x.ron".as_ref(), "")),
            Err(KeyframeError::Keys(_))
        ));
    }
}
