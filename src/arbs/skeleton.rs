//! The kinematic skeleton (KS) of Borer et al. 2018 (§4, §4.1): the joints of a skinned
//! character with their parents and rest (bind) transforms, samples of its skin (for fitting
//! radii and feet), and its animations as world transforms per frame and joint.
//!
//! Every loader brings its file into the project's frame ([`Skeleton::finish`]): a turn about
//! the vertical y that makes the file's forward axis +x ([`Forward`]; glTF characters face +z
//! by the glTF convention, BVH motion capture is assumed to as well), then a uniform scale to
//! metres: to `height` when asked (the rest pose's height: skin when there is one, else
//! joints), else ×0.01 when the rest pose is taller than 20 units (centimetres, the rule of
//! [`crate::clip::bvh::guess_scale`]), else unchanged; last a vertical shift that puts the rest
//! pose's lowest point (skin, else joints) at y = 0. Sizes are bounded ([`MAX_JOINTS`],
//! [`MAX_FRAMES`], [`MAX_FILE_BYTES`]) and every number is checked finite.

use super::ArbsError;
use nalgebra::{Rotation3, UnitQuaternion, Vector3};
use std::path::Path;

/// The most joints a skeleton may have.
pub const MAX_JOINTS: usize = 1_000;
/// The most frames an animation may have.
pub const MAX_FRAMES: usize = 1_000_000;
/// The most joint transforms all animations together may hold (memory bound: 56 bytes each).
pub const MAX_POSES: usize = 20_000_000;
/// The largest file (and external buffer) read, bytes.
pub const MAX_FILE_BYTES: u64 = 512 << 20;
/// The most skin samples kept (larger meshes are subsampled evenly).
pub const MAX_SKIN_SAMPLES: usize = 200_000;

/// A joint's world transform: position (m) and orientation quaternion (x, y, z, w).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct JointPose {
    pub position: [f64; 3],
    pub rotation: [f64; 4],
}

impl JointPose {
    pub fn position(&self) -> Vector3<f64> {
        Vector3::from(self.position)
    }

    pub fn rotation(&self) -> UnitQuaternion<f64> {
        let q = self.rotation;
        UnitQuaternion::from_quaternion(nalgebra::Quaternion::new(q[3], q[0], q[1], q[2]))
    }

    pub fn new(p: Vector3<f64>, q: &UnitQuaternion<f64>) -> Self {
        let c = q.coords;
        JointPose {
            position: [p.x, p.y, p.z],
            rotation: [c.x, c.y, c.z, c.w],
        }
    }

    fn is_finite(&self) -> bool {
        self.position
            .iter()
            .chain(&self.rotation)
            .all(|v| v.is_finite())
    }
}

/// One joint of the skeleton.
#[derive(Clone, Debug, PartialEq)]
pub struct KsJoint {
    pub name: String,
    /// Index of the parent joint; `None` for the root (joint 0 only).
    pub parent: Option<usize>,
    /// World transform in the rest (bind) pose.
    pub rest: JointPose,
}

/// A vertex of the skin in the rest pose, with up to four joint weights.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct SkinSample {
    pub position: [f64; 3],
    /// Joint indices of the skeleton (weights of joints not kept are zero).
    pub joints: [usize; 4],
    pub weights: [f64; 4],
}

impl SkinSample {
    /// The weight this vertex gives joint `j`.
    pub fn weight(&self, j: usize) -> f64 {
        (0..4)
            .filter(|&k| self.joints[k] == j)
            .map(|k| self.weights[k])
            .sum()
    }

    /// The joint with the largest weight.
    pub fn dominant(&self) -> usize {
        let k = (0..4)
            .max_by(|&a, &b| self.weights[a].total_cmp(&self.weights[b]))
            .unwrap_or(0);
        self.joints[k]
    }
}

/// An animation: per frame, every joint's world transform.
#[derive(Clone, Debug, PartialEq)]
pub struct Animation {
    pub name: String,
    /// Frames per second.
    pub rate: f64,
    /// `frames[f][j]`: joint `j` at frame `f`.
    pub frames: Vec<Vec<JointPose>>,
}

/// A kinematic skeleton in the project's frame. Joints are ordered parents first; joint 0 is
/// the root.
#[derive(Clone, Debug, PartialEq)]
pub struct Skeleton {
    /// The file's stem.
    pub name: String,
    /// The file, as given (for messages).
    pub source: String,
    pub joints: Vec<KsJoint>,
    pub skin: Vec<SkinSample>,
    /// Triangles over `skin` (indices), for drawing the skin; empty for BVH.
    pub skin_triangles: Vec<[usize; 3]>,
    pub animations: Vec<Animation>,
    /// Things the loader skipped or assumed (dropped joints, merged animations).
    pub warnings: Vec<String>,
    /// Metres per file unit applied by [`Skeleton::finish`].
    pub scale: f64,
}

/// The axis a file's character faces in its own coordinates (y up).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Forward {
    PlusX,
    MinusX,
    /// The glTF convention (and the assumption for BVH).
    #[default]
    PlusZ,
    MinusZ,
}

impl Forward {
    /// The turn about +y (rad) that brings this axis onto +x.
    pub fn yaw(self) -> f64 {
        use std::f64::consts::{FRAC_PI_2, PI};
        match self {
            Forward::PlusX => 0.0,
            Forward::MinusX => PI,
            Forward::PlusZ => FRAC_PI_2,
            Forward::MinusZ => -FRAC_PI_2,
        }
    }

    /// Parses `+x`, `-x`, `+z`, `-z` (also without the plus sign).
    pub fn parse(text: &str) -> Option<Self> {
        match text.trim().to_ascii_lowercase().as_str() {
            "+x" | "x" => Some(Forward::PlusX),
            "-x" => Some(Forward::MinusX),
            "+z" | "z" => Some(Forward::PlusZ),
            "-z" => Some(Forward::MinusZ),
            _ => None,
        }
    }
}

/// How a file is brought into the project's frame.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct LoadOptions {
    /// The rest pose's height in metres; `None` keeps the file's units (centimetres guessed).
    pub height: Option<f64>,
    /// The axis the file's character faces; `None` assumes +z (glTF's convention).
    pub forward: Option<Forward>,
}

impl Skeleton {
    /// Reads a `.gltf`, `.glb` or `.bvh` file (by extension, else by content).
    pub fn load(path: &Path, options: &LoadOptions) -> Result<Skeleton, ArbsError> {
        let name = path.display().to_string();
        let size = std::fs::metadata(path)
            .map_err(|e| ArbsError::file(&name, format!("cannot read: {e}")))?
            .len();
        if size > MAX_FILE_BYTES {
            return Err(ArbsError::file(
                &name,
                format!("the file has {size} bytes; at most {MAX_FILE_BYTES} are read"),
            ));
        }
        let bytes =
            std::fs::read(path).map_err(|e| ArbsError::file(&name, format!("cannot read: {e}")))?;
        if super::SourceKind::of(path, &bytes) == super::SourceKind::MotionCapture {
            let text = String::from_utf8(bytes)
                .map_err(|_| ArbsError::file(&name, "not a BVH file: not UTF-8 text"))?;
            Skeleton::from_bvh(&text, &name, options)
        } else {
            Skeleton::from_gltf(&bytes, path.parent(), &name, options)
        }
    }

    /// Children of joint `j`.
    pub fn children(&self, j: usize) -> Vec<usize> {
        (0..self.joints.len())
            .filter(|&c| self.joints[c].parent == Some(j))
            .collect()
    }

    pub fn is_leaf(&self, j: usize) -> bool {
        !self.joints.iter().any(|c| c.parent == Some(j))
    }

    /// Rest position of joint `j`.
    pub fn rest_position(&self, j: usize) -> Vector3<f64> {
        self.joints[j].rest.position()
    }

    /// Lowest and highest y of the rest pose: the skin's when there is one, else the joints'.
    pub fn rest_extent(&self) -> (f64, f64) {
        let ys: Vec<f64> = if self.skin.is_empty() {
            self.joints.iter().map(|j| j.rest.position[1]).collect()
        } else {
            self.skin.iter().map(|s| s.position[1]).collect()
        };
        ys.iter()
            .fold((f64::INFINITY, f64::NEG_INFINITY), |(lo, hi), &y| {
                (lo.min(y), hi.max(y))
            })
    }

    /// Height of the rest pose ([`Self::rest_extent`]).
    pub fn rest_height(&self) -> f64 {
        let (lo, hi) = self.rest_extent();
        hi - lo
    }

    /// Index of the animation named `which`, or numbered `which` (0-based).
    pub fn animation_index(&self, which: &str) -> Option<usize> {
        self.animations
            .iter()
            .position(|a| a.name == which)
            .or_else(|| which.parse::<usize>().ok())
            .filter(|&i| i < self.animations.len())
    }

    /// Brings a skeleton read in file coordinates into the project's frame (see the module
    /// docs), and checks it: a tree ordered parents first, at most [`MAX_JOINTS`] joints, at
    /// least two, finite numbers, unit quaternions, frames of the right size.
    pub(crate) fn finish(
        mut self,
        file_forward: Forward,
        options: &LoadOptions,
    ) -> Result<Skeleton, ArbsError> {
        let path = self.source.clone();
        let err = |m: String| ArbsError::file(&path, m);
        let n = self.joints.len();
        if n == 0 {
            return Err(err("the skeleton has no joints".into()));
        }
        if n == 1 {
            return Err(err(format!(
                "the skeleton has one joint (`{}`): at least two are needed for a body",
                self.joints[0].name
            )));
        }
        if n > MAX_JOINTS {
            return Err(err(format!(
                "the skeleton has {n} joints; at most {MAX_JOINTS} are supported"
            )));
        }
        for (i, j) in self.joints.iter().enumerate() {
            let ok = match j.parent {
                None => i == 0,
                Some(p) => p < i,
            };
            if !ok {
                return Err(err(format!(
                    "joint `{}`: expected one root (joint 0) and parents before children",
                    j.name
                )));
            }
            if !j.rest.is_finite() {
                return Err(err(format!(
                    "joint `{}`: the rest transform is not finite (NaN or infinity)",
                    j.name
                )));
            }
        }
        let total: usize = self.animations.iter().map(|a| a.frames.len() * n).sum();
        if total > MAX_POSES {
            return Err(err(format!(
                "the animations hold {total} joint transforms; at most {MAX_POSES} are supported"
            )));
        }
        for a in &self.animations {
            if a.frames.len() > MAX_FRAMES {
                return Err(err(format!(
                    "animation `{}` has {} frames; at most {MAX_FRAMES} are supported",
                    a.name,
                    a.frames.len()
                )));
            }
            if !(a.rate.is_finite() && a.rate > 0.0 && a.rate <= 10_000.0) {
                return Err(err(format!(
                    "animation `{}`: expected a frame rate in (0, 10000] fps, found {}",
                    a.name, a.rate
                )));
            }
            for (f, frame) in a.frames.iter().enumerate() {
                if frame.len() != n {
                    return Err(err(format!(
                        "animation `{}` frame {f}: expected {n} joints, found {}",
                        a.name,
                        frame.len()
                    )));
                }
                if let Some(j) = frame.iter().position(|p| !p.is_finite()) {
                    return Err(err(format!(
                        "animation `{}` frame {f}: joint `{}` has a transform that is not finite (NaN or infinity)",
                        a.name, self.joints[j].name
                    )));
                }
            }
        }
        if self
            .skin
            .iter()
            .any(|s| !s.position.iter().chain(&s.weights).all(|v| v.is_finite()))
        {
            return Err(err("a skin vertex or weight is not finite".into()));
        }
        // Turn about y so that the file's forward axis becomes +x.
        let forward = options.forward.unwrap_or(file_forward);
        let turn = UnitQuaternion::from_axis_angle(&Vector3::y_axis(), forward.yaw());
        let r = turn.to_rotation_matrix();
        let rest_height = self.rest_height();
        if !(rest_height.is_finite() && rest_height > 0.0) {
            return Err(err(format!(
                "the rest pose has no height (found {rest_height}): every joint at one level"
            )));
        }
        let scale = match options.height {
            Some(h) => h / rest_height,
            None => crate::clip::bvh::guess_scale(rest_height),
        };
        if !(scale.is_finite() && scale > 0.0) {
            return Err(err(format!("cannot scale the skeleton by {scale}")));
        }
        let map = |p: &mut JointPose| {
            let v = r * p.position() * scale;
            let q = turn * p.rotation();
            *p = JointPose::new(v, &q);
        };
        for j in &mut self.joints {
            map(&mut j.rest);
        }
        for a in &mut self.animations {
            for frame in &mut a.frames {
                frame.iter_mut().for_each(map);
            }
        }
        for s in &mut self.skin {
            let v = r * Vector3::from(s.position) * scale;
            s.position = [v.x, v.y, v.z];
        }
        self.scale *= scale;
        // The rest pose stands on y = 0.
        let (ground, _) = self.rest_extent();
        let lift = |p: &mut JointPose| p.position[1] -= ground;
        for j in &mut self.joints {
            lift(&mut j.rest);
        }
        for a in &mut self.animations {
            for frame in &mut a.frames {
                frame.iter_mut().for_each(lift);
            }
        }
        for s in &mut self.skin {
            s.position[1] -= ground;
        }
        let height = self.rest_height();
        if !(height.is_finite() && height > 1e-3 && height < 1e3) {
            return Err(err(format!(
                "the rest pose is {height} m tall after scaling by {scale}; expected 1 mm to 1 km (give a height)"
            )));
        }
        Ok(self)
    }
}

/// The nearest rotation to a 3×3 matrix that may hold a scale (columns normalised first).
pub(crate) fn rotation_of(m: &nalgebra::Matrix3<f64>) -> UnitQuaternion<f64> {
    let mut n = *m;
    for mut c in n.column_iter_mut() {
        let len = c.norm();
        if len > 1e-12 {
            c /= len;
        }
    }
    if n.determinant() < 0.0 {
        // A mirroring scale: keep the rotation of the unmirrored frame.
        n.column_mut(2).neg_mut();
    }
    let r = Rotation3::from_matrix_eps(&n, 1e-12, 100, Rotation3::identity());
    UnitQuaternion::from_rotation_matrix(&r)
}

/// Unique names: a repeated name gets `_2`, `_3`, … appended.
pub(crate) fn unique(names: Vec<String>) -> Vec<String> {
    let mut seen = std::collections::HashSet::new();
    names
        .into_iter()
        .map(|n| {
            let mut candidate = n.clone();
            let mut k = 2;
            while !seen.insert(candidate.clone()) {
                candidate = format!("{n}_{k}");
                k += 1;
            }
            candidate
        })
        .collect()
}
