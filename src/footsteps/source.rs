//! The example motion a footstep plan's full body is warped from (Agrawal 2016, thesis §5.5:
//! "the mocap segment tied to the step"). No task motion capture ships with anything we can
//! reach, so the source is one straight walk cycle and one standing pose of the character: a
//! walking step of either foot is the cycle's window from that foot's lift-off to the other
//! foot's, and standing, pivots and holds at a task start from the standing pose. A step of a
//! template cut from a clip on the character (a solved clip) is played from its own span of
//! that clip instead ([`MotionSource::with_clips`]).
//!
//! Ground and world: a footstep's (x, y) is the world's (x, −z) (+y up, z to the character's
//! right), and its yaw is the world yaw about +y (a positive yaw turns +x towards −z).

use super::step::{Foot, Footstep};
use crate::clip::leg_ik::{Leg, legs, relative};
use crate::clip::pose::{BodyPose, body_poses};
use crate::clip::{Clip, ClipError};
use crate::model::Character;
use crate::model::planar::PlanarMotion;
use nalgebra::Vector3;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// A footstep's point on the ground plane as a world point at height `h`.
pub fn world(x: f64, y: f64, h: f64) -> Vector3<f64> {
    Vector3::new(x, h, -y)
}

/// The footprint of a posed foot: its effector point on the ground and its toes' yaw.
pub fn footprint(c: &Character, poses: &[BodyPose], leg: &Leg, foot: Foot) -> Footstep {
    let p = leg.foot_point(poses);
    let forward = relative(c, poses, leg.foot) * leg.forward;
    Footstep {
        foot,
        x: p.x,
        y: -p.z,
        yaw: (-forward.z).atan2(forward.x),
    }
}

/// The ground motion that carries footprint `from` onto footprint `to`.
pub fn carrying(from: &Footstep, to: &Footstep) -> PlanarMotion {
    let turn = PlanarMotion {
        x: 0.0,
        z: 0.0,
        yaw: to.yaw - from.yaw,
    };
    let moved = turn.apply_vec3([from.x, 0.0, -from.y]);
    PlanarMotion {
        x: to.x - moved[0],
        z: -to.y - moved[2],
        yaw: to.yaw - from.yaw,
    }
}

/// A two-legged character's legs as (left, right): left is the leg on the −z side of the
/// heading `yaw` in the pose (`root`, `joints`). None unless there are exactly two legs (a foot
/// effector on a foot body, or on a toe hanging from it as motion capture has it).
pub fn sided_legs(c: &Character, root: &BodyPose, joints: &[f64], yaw: f64) -> Option<[Leg; 2]> {
    let found = legs(c);
    if found.len() != 2 {
        return None;
    }
    let poses = body_poses(c, root, joints);
    // The heading's right is (sin ψ, 0, cos ψ).
    let (s, co) = yaw.sin_cos();
    let lateral = |l: &Leg| {
        let p = l.foot_point(&poses);
        (p.x - root[0]) * s + (p.z - root[2]) * co
    };
    Some(if lateral(&found[0]) < lateral(&found[1]) {
        [found[0].clone(), found[1].clone()]
    } else {
        [found[1].clone(), found[0].clone()]
    })
}

/// One foot's step in a source clip (seconds from the clip's start): the walk cycle's, or a
/// template step's span.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct SourceStep {
    /// The foot leaves the ground.
    pub lift_off: f64,
    /// It is back down.
    pub touch_down: f64,
    /// The end of this step's window: in the walk, the other foot leaves the ground; in a
    /// template clip's span, the foot rests.
    pub end: f64,
}

/// What went wrong reading a motion source.
#[derive(Debug, thiserror::Error)]
pub enum SourceError {
    #[error(transparent)]
    Clip(#[from] ClipError),
    #[error("{path}: {what}")]
    Unusable { path: String, what: String },
}

/// The walk and the standing pose, on their character.
#[derive(Clone, Debug)]
pub struct MotionSource {
    pub character: Character,
    /// The walk cycle unrolled over two cycles, so a step's window never wraps.
    pub walk: Clip,
    /// Per foot (left, right): its step in the walk.
    pub steps: [SourceStep; 2],
    /// The standing pose: root and joint coordinates.
    pub stand: (BodyPose, Vec<f64>),
    /// Per foot (left, right): the leg.
    pub legs: [Leg; 2],
    /// How far ahead of its footprint a foot's toes are, m: the front of a box foot from its
    /// effector point along the toes (what a toe pivot turns on); 0 for a foot of another
    /// shape (it pivots on its footprint).
    pub toes: f64,
    /// Clips on this character that template steps were cut from, by the name the template file
    /// gives them ([`super::library::ClipSpan::clip`]): a step with a span in one of them is
    /// played from it.
    pub clips: BTreeMap<String, Clip>,
}

fn index(f: Foot) -> usize {
    match f {
        Foot::Left => 0,
        Foot::Right => 1,
    }
}

impl MotionSource {
    /// The leg of a foot.
    pub fn leg(&self, f: Foot) -> &Leg {
        &self.legs[index(f)]
    }

    /// The step of a foot in the walk.
    pub fn step(&self, f: Foot) -> SourceStep {
        self.steps[index(f)]
    }

    /// A source from a cyclic walk clip and a standing clip (its first frame) of `character`.
    pub fn new(
        character: Character,
        walk: &Clip,
        walk_path: &Path,
        stand: &Clip,
        stand_path: &Path,
    ) -> Result<Self, SourceError> {
        let unusable = |path: &Path, what: &str| SourceError::Unusable {
            path: path.display().to_string(),
            what: what.into(),
        };
        walk.check_character(&character)
            .map_err(|e| unusable(walk_path, &e.to_string()))?;
        stand
            .check_character(&character)
            .map_err(|e| unusable(stand_path, &e.to_string()))?;
        let first = stand
            .frames
            .first()
            .ok_or_else(|| unusable(stand_path, "the standing clip has no frames"))?;
        let legs = sided_legs(
            &character,
            &first.root,
            &first.joints,
            stand.heading(&character, 0).yaw,
        )
        .filter(|legs| legs.iter().all(|l| l.effector_body == l.foot))
        .ok_or_else(|| {
            unusable(
                walk_path,
                "the character needs two legs ending in feet (a foot effector on each foot body)",
            )
        })?;
        let cycle = walk
            .cycle
            .ok_or_else(|| unusable(walk_path, "the walk is not a cyclic clip"))?;
        if walk.contacts.len() != walk.frames.len() {
            return Err(unusable(
                walk_path,
                "the walk does not say when its feet are down",
            ));
        }
        let unrolled = unroll(walk, &cycle);
        let period = walk.duration();
        let step_of = |leg: &Leg, other: &Leg| -> Option<SourceStep> {
            let n = walk.frames.len();
            let down = |i: usize, l: &Leg| walk.contacts[i % n][l.effector];
            let lift = (0..n).find(|&i| down(i, leg) && !down(i + 1, leg))? + 1;
            let touch = (lift..lift + n).find(|&i| !down(i, leg) && down(i + 1, leg))? + 1;
            let other_lift =
                (touch..touch + n).find(|&i| down(i, other) && !down(i + 1, other))? + 1;
            let t = |i: usize| i as f64 / walk.rate;
            (t(other_lift) - t(lift) <= period + 1e-9).then(|| SourceStep {
                lift_off: t(lift),
                touch_down: t(touch),
                end: t(other_lift),
            })
        };
        let steps = [step_of(&legs[0], &legs[1]), step_of(&legs[1], &legs[0])];
        let [Some(l), Some(r)] = steps else {
            return Err(unusable(
                walk_path,
                "the walk has no alternating lift-off and touch-down of both feet",
            ));
        };
        let toes = toes_ahead(&character, &legs[0]);
        Ok(MotionSource {
            character,
            walk: unrolled,
            steps: [l, r],
            stand: (first.root, first.joints.clone()),
            legs,
            toes,
            clips: BTreeMap::new(),
        })
    }

    /// The source with the clips a template file's steps were cut from (`clips`: names and
    /// files, as [`super::captured::TemplateSet::clips`] gives them). A clip that cannot be
    /// read, or is not on this character, is left out and a warning says why: its steps are
    /// then played from the walk.
    pub fn with_clips(mut self, clips: &BTreeMap<String, PathBuf>) -> (Self, Vec<String>) {
        let mut warnings = Vec::new();
        for (name, path) in clips {
            let opened = crate::clip::open(path, &crate::clip::OpenOptions::default())
                .map_err(|e| e.to_string())
                .and_then(|o| {
                    o.clip
                        .check_character(&self.character)
                        .map(|()| o.clip)
                        .map_err(|e| e.to_string())
                });
            match opened {
                Ok(clip) => {
                    self.clips.insert(name.clone(), clip);
                }
                Err(e) => warnings.push(format!(
                    "{}: its template steps are played from the walk: {e}",
                    path.display()
                )),
            }
        }
        (self, warnings)
    }

    /// A source from files: the character, a cyclic walk clip and a standing clip; with the
    /// reference to the character that clips made from it carry.
    pub fn load(
        character: &Path,
        walk: &Path,
        stand: &Path,
    ) -> Result<(Self, crate::model::CharacterRef), SourceError> {
        let text = std::fs::read_to_string(character).map_err(|e| SourceError::Unusable {
            path: character.display().to_string(),
            what: e.to_string(),
        })?;
        let c = crate::model::load_character(character).map_err(|e| SourceError::Unusable {
            path: character.display().to_string(),
            what: e.to_string(),
        })?;
        let source = MotionSource::new(c, &Clip::load(walk)?, walk, &Clip::load(stand)?, stand)?;
        Ok((source, crate::model::CharacterRef::new(character, &text)))
    }

    /// human3d's walker with its solved 1.0 m/s straight walk and its standing pose (from the
    /// locomotion space), read from the project folder `root`.
    pub fn human3d(root: &Path) -> Result<(Self, crate::model::CharacterRef), SourceError> {
        let clips = root.join("assets/spaces/human3d_locomotion/clips");
        MotionSource::load(
            &root.join("characters/human3d_walker.ron"),
            &clips.join("gait=walk1.0_turn=0.ron"),
            &clips.join("gait=stand_turn=0.ron"),
        )
    }

    /// The step dimensions a plan for this source's character uses: the defaults (human3d's
    /// walk), with the toes this character's feet turn on in a toe pivot.
    pub fn dimensions(&self) -> super::library::Dimensions {
        super::library::Dimensions {
            toes: self.toes,
            ..Default::default()
        }
    }

    /// Every body's pose of the standing pose.
    pub fn stand_poses(&self) -> Vec<BodyPose> {
        body_poses(&self.character, &self.stand.0, &self.stand.1)
    }
}

/// How far the front of `leg`'s foot is ahead of its effector point along the toes, m: the box's
/// support along the toes' direction less the point's; 0 for a foot that is not a box.
fn toes_ahead(c: &Character, leg: &Leg) -> f64 {
    let crate::model::Shape::Box { half_extents } = c.bodies[leg.foot].shape else {
        return 0.0;
    };
    let f = leg.forward.normalize();
    let support: f64 = (0..3).map(|j| half_extents[j] * f[j].abs()).sum();
    (support - leg.point.dot(&f)).max(0.0)
}

/// A cyclic clip's frames over two cycles, the second moved by the cycle's transform.
fn unroll(walk: &Clip, cycle: &crate::clip::Cycle) -> Clip {
    let mut out = walk.clone();
    let first = walk.frames[0].root;
    let t = cycle.motion([first[0], first[1], first[2]]);
    let turn = nalgebra::UnitQuaternion::from_axis_angle(&Vector3::y_axis(), t.yaw);
    for f in &walk.frames {
        let mut g = f.clone();
        let p = t.apply_vec3([f.root[0], f.root[1], f.root[2]]);
        let q = turn * crate::clip::pose::quat_of(&f.root);
        g.root = crate::clip::pose::pose_of(Vector3::from(p), &q);
        out.frames.push(g);
    }
    out.contacts.extend(walk.contacts.iter().cloned());
    out.cycle = None;
    out
}
