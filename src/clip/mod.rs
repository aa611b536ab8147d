//! Clips: the one motion type every result of the project becomes (gait solves and
//! discoveries, simulations, imported motion capture).
//!
//! A clip is a character (its file path and a hash of its content) and, at a fixed frame rate,
//! per frame the root body's pose and the joint coordinates (the pose vocabulary of [`pose`]),
//! per end effector and frame whether it touches the ground, joint torques and ground forces when
//! known, and whether it is cyclic. Transformed-cyclic clips (McIntosh 2011, §3.2.5) carry the rigid
//! transform T that maps the first frame's world placement onto the frame after the last: a
//! translation and a yaw about the vertical through the root; playback applies T cumulatively at
//! every wrap. Tags say where a clip came from (source, speed, turn rate, gait family, cost, seed,
//! solver status) and provenance records the command and code version that made it.
//!
//! Clips are RON files written atomically ([`Clip::save`]); [`Clip::load`] checks a clip against
//! itself (frame sizes, finite numbers) with errors naming the file.

pub mod bvh;
pub mod file;
pub mod from_gait;
pub mod gltf;
pub mod keyframes;
pub mod leg_ik;
pub mod limits;
pub mod pose;

use crate::model::Character;
use crate::model::planar::PlanarMotion;
use serde::{Deserialize, Serialize};
use std::path::Path;

pub use file::{ClipFormat, OpenOptions, Opened, open, save};
pub use pose::BodyPose;

pub use crate::model::CharacterRef;

/// One frame: the root body's pose and every joint coordinate.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ClipFrame {
    /// Root body: centre of mass (m) and orientation quaternion (x, y, z, w).
    pub root: BodyPose,
    /// Joint coordinates (rad), in the order of `Clip::coordinates`.
    pub joints: Vec<f64>,
}

/// The transform T of a transformed-cyclic clip (McIntosh 2011, §3.2.5): the frame after the last
/// is the first moved by `translation` (world) after a turn of `yaw` about the vertical through the
/// first frame's root.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct Cycle {
    pub translation: [f64; 3],
    /// rad, about +y.
    pub yaw: f64,
}

impl Cycle {
    /// T as a motion of the ground plane, for a clip whose first root is at `pivot`.
    pub fn motion(&self, pivot: [f64; 3]) -> PlanarMotion {
        let turn = PlanarMotion {
            x: 0.0,
            z: 0.0,
            yaw: self.yaw,
        };
        let turned = turn.apply_vec3(pivot);
        PlanarMotion {
            x: pivot[0] - turned[0] + self.translation[0],
            z: pivot[2] - turned[2] + self.translation[2],
            yaw: self.yaw,
        }
    }

    /// The cycle of a clip that motion `t` carries from one loop to the next, its first root
    /// at `pivot`.
    pub fn from_motion(t: &PlanarMotion, pivot: [f64; 3]) -> Self {
        let moved = t.apply_vec3(pivot);
        Cycle {
            translation: [moved[0] - pivot[0], 0.0, moved[2] - pivot[2]],
            yaw: t.yaw,
        }
    }
}

/// What a connecting clip joins (Wampler 2012, thesis App. C): its first two frames are frames
/// `from_frame` and `from_frame + 1` of clip `from` (in that clip's coordinates), its last two
/// are frames `to_frame − 1` and `to_frame` of clip `to` moved by `placement`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Joins {
    /// File stems of the joined clips (in the same folder).
    pub from: String,
    pub from_frame: usize,
    pub to: String,
    pub to_frame: usize,
    pub placement: PlanarMotion,
}

/// Where a clip came from.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Tags {
    /// `gait`, `discovery`, `simulation`, `diversity`, `bvh`, …
    pub source: String,
    /// m/s along +x, when the motion has one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub speed: Option<f64>,
    /// rad/s about +y.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub turn_rate: Option<f64>,
    /// Gait family (`walk`, `trot`, `gallop`, …) when known.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub family: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cost: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub seed: Option<u64>,
    /// How the solver that made it ended (`solved`, …).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub status: Option<String>,
}

/// What made a clip.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Provenance {
    /// The command line (or the panel's equivalent).
    pub command: String,
    /// `motionlab` version and solver-source hash.
    pub version: String,
}

impl Provenance {
    /// This process's command line and this build's version.
    pub fn here() -> Self {
        Provenance {
            command: std::env::args().collect::<Vec<_>>().join(" "),
            version: code_version(),
        }
    }
}

/// The package version and the hash of the solver sources this build was made from.
pub fn code_version() -> String {
    format!(
        "{} ({})",
        env!("CARGO_PKG_VERSION"),
        option_env!("MOTIONLAB_SOLVER_HASH").unwrap_or("unknown")
    )
}

/// A motion of a character at a fixed frame rate.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Clip {
    pub character: CharacterRef,
    /// Frames per second.
    pub rate: f64,
    /// Names of the joint coordinates (`Character::dof_names`).
    pub coordinates: Vec<String>,
    pub frames: Vec<ClipFrame>,
    /// Names of the end effectors whose contacts are listed (`body` or `body.tag`).
    #[serde(default)]
    pub effectors: Vec<String>,
    /// Per frame, per effector: touching the ground.
    #[serde(default)]
    pub contacts: Vec<Vec<bool>>,
    /// Per frame, per coordinate: the joint torque (N·m), when known.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub torques: Option<Vec<Vec<f64>>>,
    /// Per frame, per effector: the ground force (N, world), when known.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ground_forces: Option<Vec<Vec<[f64; 3]>>>,
    /// Present for a cyclic clip: the transform from one cycle to the next.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cycle: Option<Cycle>,
    /// A connecting clip's ends ([`Joins`]).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub joins: Option<Joins>,
    /// The hierarchy of the BVH file the clip was read from: a clip written back as BVH keeps
    /// the file's nodes, offsets, End Sites, channel orders and units ([`bvh`]).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub bvh: Option<bvh::Hierarchy>,
    pub tags: Tags,
    pub provenance: Provenance,
}

/// What makes a clip unplayable ([`Clip::check`]) or not a clip of a character
/// ([`Clip::check_character`]).
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
pub enum InvalidClip {
    #[error("expected a frame rate in (0, 10000] fps, found {0}")]
    Rate(f64),
    #[error("expected at least one frame")]
    NoFrames,
    #[error("frame {frame}: expected {expected} joint coordinates, found {found}")]
    FrameLength {
        frame: usize,
        expected: usize,
        found: usize,
    },
    #[error("frame {frame}: expected finite numbers")]
    NotFinite { frame: usize },
    #[error("frame {frame}: the root quaternion has length {norm}, expected 1")]
    RootQuaternion { frame: usize, norm: f64 },
    #[error("expected contacts for {frames} frames, found {found}")]
    ContactFrames { frames: usize, found: usize },
    #[error("expected {effectors} contacts per frame (one per effector), found {found}")]
    ContactsPerFrame { effectors: usize, found: usize },
    #[error(
        "the clip's coordinates ({clip} of them) are not those of character `{character}` ({expected})"
    )]
    Coordinates {
        clip: usize,
        character: String,
        expected: usize,
    },
}

/// Validation problems as one line: each as `motionlab check` words it, joined by "; ".
pub(crate) fn problem_list(problems: &[crate::model::Problem]) -> String {
    problems
        .iter()
        .map(|p| p.to_string())
        .collect::<Vec<_>>()
        .join("; ")
}

/// What is wrong with a clip file.
#[derive(Debug, thiserror::Error)]
pub enum ClipError {
    #[error("{path}: {error}")]
    Invalid { path: String, error: InvalidClip },
    #[error("{path}: {error}")]
    Gait {
        path: String,
        error: from_gait::FromGaitError,
    },
    #[error("{path}: {error}")]
    Gltf {
        path: String,
        error: gltf::GltfError,
    },
    #[error(
        "{path}: the hierarchy does not make a valid character: {}",
        problem_list(.problems)
    )]
    Hierarchy {
        path: String,
        problems: Vec<crate::model::Problem>,
    },
    #[error("{path}: the file does not name its character: give one")]
    UnnamedCharacter { path: String },
    #[error(transparent)]
    Read(#[from] anyhow::Error),
    #[error("{path}: {message}")]
    Io { path: String, message: String },
    /// RON that does not read as the kind its fields say (the message has the line).
    #[error("{path}: {message}")]
    Parse { path: String, message: String },
    #[error("{path}: {error}")]
    Keyframes {
        path: String,
        error: keyframes::KeyframeError,
    },
    #[error(transparent)]
    Bvh(#[from] bvh::BvhError),
    #[error(
        "{path}: not a clip: expected a clip (a `character` field), a gait clip (a `creature` \
         field) or keyframes (a `keys` field)"
    )]
    NotAClip { path: String },
    #[error("{path}: expected a clip file ending in .ron, .bvh, .gltf or .glb, not `.{found}`")]
    Format { path: String, found: String },
    #[error("{path}: the clip's character: {error}")]
    Character {
        path: String,
        error: crate::model::ModelError,
    },
}

/// The summary `motionlab clip info` prints.
#[derive(Clone, Debug, PartialEq)]
pub struct ClipInfo {
    pub character: String,
    pub frames: usize,
    pub rate: f64,
    pub duration: f64,
    pub cyclic: bool,
    /// Root displacement from the first frame to the last (m, world).
    pub root_travel: [f64; 3],
}

impl Clip {
    /// A clip of key frames in the pose vocabulary (imported motion capture, transferred
    /// animations), tagged `source`, without torques, forces or cycle. Key frames do not say
    /// when a foot is down: a foot within 5 cm of the clip's lowest foot point, moving slower
    /// than 0.4 m/s, is ([`Clip::estimate_contacts`]).
    pub fn from_key_frames(
        character: &Character,
        character_ref: CharacterRef,
        rate: f64,
        frames: Vec<ClipFrame>,
        source: &str,
    ) -> Clip {
        let mut clip = Clip {
            character: character_ref,
            rate,
            coordinates: character.dof_names(),
            frames,
            effectors: Vec::new(),
            contacts: Vec::new(),
            torques: None,
            ground_forces: None,
            cycle: None,
            joins: None,
            bvh: None,
            tags: Tags {
                source: source.into(),
                ..Tags::default()
            },
            provenance: Provenance::here(),
        };
        clip.estimate_contacts(character, 0.05, 0.4);
        clip
    }

    pub fn duration(&self) -> f64 {
        self.frames.len() as f64 / self.rate
    }

    pub fn info(&self) -> ClipInfo {
        let travel = match (self.frames.first(), self.frames.last()) {
            (Some(a), Some(b)) => [0, 1, 2].map(|k| b.root[k] - a.root[k]),
            _ => [0.0; 3],
        };
        ClipInfo {
            character: self.character.path.clone(),
            frames: self.frames.len(),
            rate: self.rate,
            duration: self.duration(),
            cyclic: self.cycle.is_some(),
            root_travel: travel,
        }
    }

    /// Everything that would make playback index out of range or divide by nothing.
    pub fn check(&self) -> Result<(), InvalidClip> {
        if !(self.rate.is_finite() && self.rate > 0.0 && self.rate <= 10_000.0) {
            return Err(InvalidClip::Rate(self.rate));
        }
        if self.frames.is_empty() {
            return Err(InvalidClip::NoFrames);
        }
        let n = self.coordinates.len();
        for (i, f) in self.frames.iter().enumerate() {
            if f.joints.len() != n {
                return Err(InvalidClip::FrameLength {
                    frame: i,
                    expected: n,
                    found: f.joints.len(),
                });
            }
            if !f.root.iter().chain(&f.joints).all(|v| v.is_finite()) {
                return Err(InvalidClip::NotFinite { frame: i });
            }
            let q = &f.root[3..];
            let norm = q.iter().map(|v| v * v).sum::<f64>().sqrt();
            if (norm - 1.0).abs() > 1e-3 {
                return Err(InvalidClip::RootQuaternion { frame: i, norm });
            }
        }
        if !self.contacts.is_empty() {
            if self.contacts.len() != self.frames.len() {
                return Err(InvalidClip::ContactFrames {
                    frames: self.frames.len(),
                    found: self.contacts.len(),
                });
            }
            if let Some(row) = self
                .contacts
                .iter()
                .find(|r| r.len() != self.effectors.len())
            {
                return Err(InvalidClip::ContactsPerFrame {
                    effectors: self.effectors.len(),
                    found: row.len(),
                });
            }
        }
        Ok(())
    }

    /// Checks that the clip fits `character` (its coordinates are the character's).
    pub fn check_character(&self, character: &Character) -> Result<(), InvalidClip> {
        let names = character.dof_names();
        if names != self.coordinates {
            return Err(InvalidClip::Coordinates {
                clip: self.coordinates.len(),
                character: character.name.clone(),
                expected: names.len(),
            });
        }
        Ok(())
    }

    /// Reads and checks a clip file.
    pub fn load(path: &Path) -> Result<Clip, ClipError> {
        let clip: Clip = crate::files::read_ron(path)?;
        clip.check().map_err(|error| ClipError::Invalid {
            path: path.display().to_string(),
            error,
        })?;
        Ok(clip)
    }

    /// Writes the clip atomically.
    pub fn save(&self, path: &Path) -> std::io::Result<()> {
        crate::files::write_ron(path, self)
    }

    /// The largest difference of one joint coordinate between two clips of the same character,
    /// frame by frame (rad): how far a round trip through a file moved the motion.
    pub fn max_joint_difference(&self, other: &Clip) -> f64 {
        self.frames
            .iter()
            .zip(&other.frames)
            .flat_map(|(a, b)| a.joints.iter().zip(&b.joints).map(|(p, q)| (p - q).abs()))
            .fold(0.0, f64::max)
    }

    /// Every body's world pose at frame `i` on `character`.
    pub fn body_poses(&self, character: &Character, i: usize) -> Vec<BodyPose> {
        let f = &self.frames[i];
        pose::body_poses(character, &f.root, &f.joints)
    }

    /// Marks each foot effector down where its point is within `height` (m) of the lowest any
    /// foot point gets in the clip and moves slower than `speed` (m/s) along the ground, for a
    /// motion that does not say (motion capture); sets the effector names. Other effectors are
    /// never down.
    pub fn estimate_contacts(&mut self, character: &Character, height: f64, speed: f64) {
        use crate::model::EffectorTag;
        self.effectors = character
            .end_effectors
            .iter()
            .map(|e| format!("{}.{:?}", e.body, e.tag).to_lowercase())
            .collect();
        let n = self.frames.len();
        let points: Vec<Vec<Option<[f64; 3]>>> = (0..n)
            .map(|i| {
                let poses = self.body_poses(character, i);
                character
                    .end_effectors
                    .iter()
                    .map(|e| {
                        if e.tag != EffectorTag::Foot {
                            return None;
                        }
                        let b = character.body_index(&e.body)?;
                        let p = poses[b];
                        let w = pose::quat_of(&p) * nalgebra::Vector3::from(e.point);
                        Some([p[0] + w.x, p[1] + w.y, p[2] + w.z])
                    })
                    .collect()
            })
            .collect();
        let ground = points
            .iter()
            .flatten()
            .flatten()
            .map(|p| p[1])
            .fold(f64::INFINITY, f64::min);
        let dt = 1.0 / self.rate;
        self.contacts = (0..n)
            .map(|i| {
                let (a, b) = (i.saturating_sub(1), (i + 1).min(n - 1));
                points[i]
                    .iter()
                    .enumerate()
                    .map(|(k, p)| {
                        let (Some(p), Some(pa), Some(pb)) = (p, points[a][k], points[b][k]) else {
                            return false;
                        };
                        let v = ((pb[0] - pa[0]).powi(2) + (pb[2] - pa[2]).powi(2)).sqrt()
                            / (((b - a).max(1)) as f64 * dt);
                        p[1] - ground < height && v < speed
                    })
                    .collect()
            })
            .collect();
    }

    /// T of a cyclic clip as a motion of the ground plane (frame N = T(frame 0)).
    pub fn cycle_motion(&self) -> Option<PlanarMotion> {
        let r = self.frames.first()?.root;
        self.cycle.map(|c| c.motion([r[0], r[1], r[2]]))
    }

    /// The heading frame of frame `i`: the root's ground position and the yaw of its forward
    /// axis (+x of the reference pose, the model's convention) on `character`.
    pub fn heading(&self, character: &Character, i: usize) -> PlanarMotion {
        self.heading_along(character, i, [1.0, 0.0, 0.0])
    }

    /// [`Self::heading`] for a character whose forward axis in the reference pose is
    /// `forward` (motion capture skeletons face where their capture did).
    pub fn heading_along(
        &self,
        character: &Character,
        i: usize,
        forward: [f64; 3],
    ) -> PlanarMotion {
        let f = &self.frames[i].root;
        let forward = self.root_turn(character, i) * nalgebra::Vector3::from(forward);
        PlanarMotion {
            x: f[0],
            z: f[2],
            yaw: (-forward.z).atan2(forward.x),
        }
    }

    /// The root body's rotation at frame `i` relative to its reference pose.
    pub fn root_turn(&self, character: &Character, i: usize) -> nalgebra::UnitQuaternion<f64> {
        let root = character
            .body_index(&character.root.body)
            .expect("validated character");
        pose::quat_of(&self.frames[i].root)
            * pose::reference_orientation(&character.bodies[root]).inverse()
    }
}

/// A clip from body poses per frame (a simulation's recording): the root body's pose and the
/// joint coordinates read from the bodies' relative rotations.
pub fn from_body_poses(
    character: &Character,
    character_ref: CharacterRef,
    rate: f64,
    poses: &[Vec<BodyPose>],
    contacts: Option<Vec<Vec<bool>>>,
    tags: Tags,
) -> Clip {
    let root = character
        .body_index(&character.root.body)
        .expect("validated character");
    let effectors: Vec<String> = character
        .end_effectors
        .iter()
        .map(|e| format!("{}.{:?}", e.body, e.tag).to_lowercase())
        .collect();
    Clip {
        character: character_ref,
        rate,
        coordinates: character.dof_names(),
        frames: poses
            .iter()
            .map(|p| ClipFrame {
                root: p[root],
                joints: pose::coordinates_of(character, p),
            })
            .collect(),
        contacts: contacts.unwrap_or_default(),
        effectors: if poses.is_empty() {
            Vec::new()
        } else {
            effectors
        },
        torques: None,
        ground_forces: None,
        cycle: None,
        joins: None,
        bvh: None,
        tags,
        provenance: Provenance::here(),
    }
}

/// The clip of a simulation's recording (one frame per step of `dt` seconds): the body poses in
/// the pose vocabulary of clips, contacts per end effector, the PD torques.
pub fn from_recording(
    character: &Character,
    character_ref: CharacterRef,
    dt: f32,
    frames: &[crate::sim::Frame],
    source: &str,
) -> Clip {
    let poses: Vec<Vec<BodyPose>> = frames
        .iter()
        .map(|f| f.poses.iter().map(|p| p.map(f64::from)).collect())
        .collect();
    let contacts = frames
        .iter()
        .map(|f| {
            character
                .end_effectors
                .iter()
                .map(|e| {
                    character
                        .body_index(&e.body)
                        .is_some_and(|b| f.contacts.get(b).is_some_and(|&n| n > 0))
                })
                .collect()
        })
        .collect();
    // Steps are single precision: the rate to 1e-4 fps.
    let rate = (1e4 / f64::from(dt)).round() / 1e4;
    let mut clip = from_body_poses(
        character,
        character_ref,
        rate,
        &poses,
        Some(contacts),
        Tags {
            source: source.into(),
            ..Tags::default()
        },
    );
    clip.torques = Some(
        frames
            .iter()
            .map(|f| f.torques.iter().map(|&t| f64::from(t)).collect())
            .collect(),
    );
    clip
}
