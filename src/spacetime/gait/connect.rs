//! Connecting clips (Wampler 2012, thesis §5.2.1 and App. C): an open
//! clip whose first two frames are two consecutive frames of one clip (A, from frame a) and whose
//! last two are two consecutive frames of another (B, up to frame b), solved with the gait NLP so
//! that the motion from A through the connection into B is physically valid: the finite-
//! difference velocities and accelerations at the joins are those of A and B themselves.
//!
//! The same template makes a start (standing → walking), a stop, and a motion graph's transition
//! between two gaits. B's frames are placed in A's world by a [`PlanarMotion`]: either given (a
//! motion graph's alignment of the two frames) or, by default, the heading frame of A at a moved
//! along the arc of the mean speed and turn rate of the two clips for the connection's duration.
//!
//! The contact schedule is A's from a for the first half of the frames and B's leading into b for
//! the second; the start is the two motions blended (A's continuation fading into B's lead-in
//! with a smoothstep weight), each frame with the loads of the clip its contacts come from,
//! turned with its pose. The start has no springs: the springs (3.12–3.13) are variables of each
//! solve, and those of A hold A's poses. Against B's poses they asked for tens of thousands of
//! N·m of active torque (a turn from the 1.0 m/s walk started at an objective of 1.5e8 against
//! 2.5e3 without them), and IPOPT stopped at its iteration limit with a pelvis swinging ±1 rad
//! between frames (cost 5,217); without them the same connection solved to 42.0 in 2 min, and to
//! 31.2 with the loads turned too.

use super::*;

/// A connection to solve: from `from`'s frame a (and a + 1) to `to`'s frame b − 1 and b.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Connection {
    /// A's frame index a (frames past the end wrap through the cycle's transform).
    pub from_frame: usize,
    /// B's frame index b.
    pub to_frame: usize,
    /// Frames of the connection, both ends' pairs included (at least 5).
    pub frames: usize,
    /// Seconds from the first frame to the last.
    pub duration: f64,
    /// Where B's frames go in A's world; `None`: the arc of the mean speed and turn rate.
    pub placement: Option<PlanarMotion>,
    /// Feet lifted over part of the connection, whatever A's and B's contacts say there: the
    /// steps of a connection from standing to standing somewhere else (a side step, a turn in
    /// place), where neither end lifts a foot.
    #[serde(default)]
    pub swings: Vec<Swing>,
    /// Feet that stay down over part of the connection and turn on their contact point there
    /// (a pivot): the slip rows keep the point in place and ask for the pivot's turn.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub pivots: Vec<Pivot>,
}

/// A foot off the ground over part of a connection: from `lift` to `land`, fractions of its
/// duration (0 ≤ lift < land ≤ 1).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Swing {
    /// The foot's limb name.
    pub foot: String,
    pub lift: f64,
    pub land: f64,
}

/// A foot that stays on the ground from `from` to `to` (fractions of the connection's duration,
/// 0 ≤ from < to ≤ 1) and turns about the vertical through its contact point: a pivot
/// (Agrawal 2016, thesis §5.2's heel and toe pivots). Everywhere else a foot down keeps its
/// heading (3.5).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Pivot {
    /// The foot's limb name.
    pub foot: String,
    pub from: f64,
    pub to: f64,
    /// What the foot turns on: its foot point, flat (the default), or its toes, heel up.
    #[serde(default, skip_serializing_if = "PivotOn::is_sole")]
    pub on: PivotOn,
}

/// What a pivoting foot turns on.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub enum PivotOn {
    /// Its foot point (the sole's middle for a box foot), the sole flat on the ground: the
    /// segmentation tags it a heel pivot.
    #[default]
    Sole,
    /// Its toes ([`Skeleton::toes`]), the heel lifted [`TOE_PIVOT_HEEL`] over the middle of the
    /// window and the load there, flat on the sole at the window's ends ([`Footing`]): a toe
    /// pivot. Needs a foot with a sole.
    Toes,
}

impl PivotOn {
    fn is_sole(&self) -> bool {
        *self == PivotOn::Sole
    }
}

/// How high a toe pivot's heel is at least over the middle two fifths of its window (m): a
/// 0.26 m box foot pitched by 11°, clear of the segmentation's 6° for a heel up.
pub const TOE_PIVOT_HEEL: f64 = 0.05;

impl Connection {
    /// Where B goes by default: its frame b's heading frame on A's frame a's, moved along the
    /// arc of the two clips' mean speed, turn rate and strafe angle for `duration`.
    pub fn default_placement(
        a: &GaitClip,
        b: &GaitClip,
        from_frame: usize,
        to_frame: usize,
        duration: f64,
    ) -> PlanarMotion {
        let speed = 0.5 * (a.speed + b.speed);
        let turn = 0.5 * (a.turn_rate() + b.turn_rate());
        let strafe = 0.5 * (a.strafe() + b.strafe());
        let there = a
            .heading_at(from_frame as i64)
            .compose(&PlanarMotion::along_strafed_arc(
                speed, turn, strafe, duration,
            ));
        PlanarMotion::between(&b.heading_at(to_frame as i64), &there)
    }

    /// The default placement moved on the ground so that a foot down on both sides of the
    /// connection's middle (A's last frame and B's first of the contact schedule) is at one place:
    /// a foot that stays on the ground cannot move, and the arc alone put a stop's standing feet
    /// 0.4 m from the walk's planted foot (the solve ended with a violation of 3.6). Several
    /// such feet share the mean shift. `skeleton`: the creature with its heading root; the
    /// connection's own `placement` is not read.
    pub fn matched_placement(
        &self,
        skeleton: &Skeleton,
        a: &GaitClip,
        b: &GaitClip,
    ) -> PlanarMotion {
        let base = Self::default_placement(a, b, self.from_frame, self.to_frame, self.duration);
        if a.coordinates.len() != skeleton.dof() || b.coordinates.len() != skeleton.dof() {
            return base;
        }
        let times = Sampling::new(a, b, self);
        let (last_a, first_b) = (times.n / 2 - 1, times.n / 2);
        let morphology = skeleton.morphology::<f64>();
        let fa = crate::spacetime::dynamics::forward_kinematics(
            skeleton,
            &morphology,
            &times.frame(a, b, last_a),
        );
        let fb = crate::spacetime::dynamics::forward_kinematics(
            skeleton,
            &morphology,
            &base.apply_heading_root(&times.frame(a, b, first_b)),
        );
        let shared: Vec<usize> = (0..skeleton.feet.len())
            .filter(|&k| {
                a.contact_at(times.nearest(last_a), k).is_some()
                    && b.contact_at(times.nearest(first_b), k).is_some()
            })
            .collect();
        if shared.is_empty() {
            return base;
        }
        let shared: Vec<(usize, [f64; 3])> = shared.into_iter().map(|k| (k, [0.0; 3])).collect();
        feet_matched(skeleton, &shared, (&fa, &fb), base)
    }

    /// `placement` moved on the ground so that the feet this connection pivots on are where
    /// they were: a pivot turns a foot on its contact point, so B's frame b must put that point
    /// where A's frame a has it (several pivoting feet share the mean shift; none: `placement`
    /// as it is). `skeleton`: the creature with its heading root.
    pub fn pivots_kept(
        &self,
        skeleton: &Skeleton,
        a: &GaitClip,
        b: &GaitClip,
        placement: PlanarMotion,
    ) -> PlanarMotion {
        let feet: Vec<(usize, [f64; 3])> = self
            .pivots
            .iter()
            .filter_map(|p| {
                let k = (skeleton.feet.iter()).position(|&l| skeleton.limbs[l].name == p.foot)?;
                let at = match p.on {
                    PivotOn::Sole => [0.0; 3],
                    PivotOn::Toes => skeleton.toes(k).unwrap_or([0.0; 3]),
                };
                Some((k, at))
            })
            .collect();
        if feet.is_empty()
            || a.coordinates.len() != skeleton.dof()
            || b.coordinates.len() != skeleton.dof()
        {
            return placement;
        }
        let morphology = skeleton.morphology::<f64>();
        let fk =
            |q: &[f64]| crate::spacetime::dynamics::forward_kinematics(skeleton, &morphology, q);
        let fa = fk(&a.frame_at(self.from_frame as i64));
        let fb = fk(&placement.apply_heading_root(&b.frame_at(self.to_frame as i64)));
        feet_matched(skeleton, &feet, (&fa, &fb), placement)
    }
}

/// `placement` moved on the ground by the mean shift that takes `feet` (each with the point of
/// it that must stay, [`Kinematics::contact`](crate::spacetime::dynamics::Kinematics::contact))
/// in B's posed frame `fb` (placed by `placement`) onto where A's frame `fa` has them.
fn feet_matched(
    skeleton: &Skeleton,
    feet: &[(usize, [f64; 3])],
    (fa, fb): (
        &crate::spacetime::dynamics::Kinematics<f64>,
        &crate::spacetime::dynamics::Kinematics<f64>,
    ),
    placement: PlanarMotion,
) -> PlanarMotion {
    let m = feet.len() as f64;
    let (dx, dz) = feet.iter().fold((0.0, 0.0), |(x, z), (k, at)| {
        let (p, q) = (fa.contact(skeleton, *k, at), fb.contact(skeleton, *k, at));
        (x + (p.x - q.x) / m, z + (p.z - q.z) / m)
    });
    PlanarMotion {
        x: dx,
        z: dz,
        yaw: 0.0,
    }
    .compose(&placement)
}

/// A time in a clip, between two of its frames: frame `frame` and `fraction` (0 ≤ s < 1) of the
/// way to the next.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ClipTime {
    pub frame: i64,
    pub fraction: f64,
}

impl ClipTime {
    /// The time at frame index `index` (fractional); within 1e-9 of a frame, that frame.
    pub fn at(index: f64) -> Self {
        let k = index.round();
        if (index - k).abs() < 1e-9 {
            return Self {
                frame: k as i64,
                fraction: 0.0,
            };
        }
        let k = index.floor();
        Self {
            frame: k as i64,
            fraction: index - k,
        }
    }

    /// The nearest frame.
    pub fn nearest(&self) -> i64 {
        self.frame + i64::from(self.fraction >= 0.5)
    }

    /// The clip's coordinates at this time ([`GaitClip::frame_at`], linear between frames).
    pub fn frame(&self, clip: &GaitClip) -> Vec<f64> {
        let q = clip.frame_at(self.frame);
        if self.fraction == 0.0 {
            return q;
        }
        let s = self.fraction;
        q.iter()
            .zip(clip.frame_at(self.frame + 1))
            .map(|(x, y)| x + s * (y - x))
            .collect()
    }
}

/// Where a connection's frames fall in the clips it joins. Its frame time is dt =
/// duration/(n − 1); frame i is A's time a + i·dt for the first half of the frames and B's
/// b − (n − 1 − i)·dt for the second, in each clip's own frame time. A clip of the connection's
/// frame time (a turn: one stride of its gait) is met at its own frames, bit for bit. A clip of
/// another (a change of speed joins gaits of different strides) is sampled between its frames,
/// linearly: the fixed end pairs then move at A's and B's own velocities (to the
/// interpolation's error), where frames taken as they are would have scaled them by the ratio of
/// the frame times (Wampler 2012, App. C: the finite-difference velocities and accelerations at
/// a join are continuous).
pub(crate) struct Sampling {
    pub n: usize,
    from: f64,
    to: f64,
    rate_a: f64,
    rate_b: f64,
}

impl Sampling {
    pub fn new(a: &GaitClip, b: &GaitClip, c: &Connection) -> Self {
        let n = c.frames.max(5);
        let dt = c.duration / (n - 1) as f64;
        Self {
            n,
            from: c.from_frame as f64,
            to: c.to_frame as f64,
            rate_a: dt / a.frame_time(),
            rate_b: dt / b.frame_time(),
        }
    }

    /// Whether frame i comes from A (else from B).
    pub fn from_a(&self, i: usize) -> bool {
        i < self.n / 2
    }

    /// A's time at the connection's frame i.
    pub fn in_a(&self, i: usize) -> ClipTime {
        ClipTime::at(self.from + i as f64 * self.rate_a)
    }

    /// B's time at the connection's frame i.
    pub fn in_b(&self, i: usize) -> ClipTime {
        ClipTime::at(self.to - (self.n - 1 - i) as f64 * self.rate_b)
    }

    /// Frame i's time in the clip it comes from.
    pub fn time(&self, i: usize) -> ClipTime {
        if self.from_a(i) {
            self.in_a(i)
        } else {
            self.in_b(i)
        }
    }

    /// Frame i's coordinates in the clip it comes from (B's not yet placed in A's world).
    pub fn frame(&self, a: &GaitClip, b: &GaitClip, i: usize) -> Vec<f64> {
        self.time(i).frame(if self.from_a(i) { a } else { b })
    }

    /// The nearest frame, in the clip frame i comes from: its contacts and loads.
    pub fn nearest(&self, i: usize) -> i64 {
        self.time(i).nearest()
    }
}

impl ContactLoad {
    /// The load with its force and torque turned by `m`'s yaw (world directions).
    pub fn turned(&self, m: &PlanarMotion) -> ContactLoad {
        ContactLoad {
            force: m.rotate_vec3(self.force),
            torque: m.rotate_vec3(self.torque),
            turn: self.turn,
            footing: self.footing,
        }
    }
}

impl GaitClip {
    /// Seconds between frames.
    pub fn frame_time(&self) -> f64 {
        if self.closure.is_cyclic() {
            self.period / self.frames.len() as f64
        } else {
            self.period / (self.frames.len().max(2) - 1) as f64
        }
    }

    /// Frame k of a clip in heading coordinates, for any k of a transformed cycle (frame
    /// k + N = T(frame k)); an open clip's index is clamped to its frames.
    pub fn frame_at(&self, k: i64) -> Vec<f64> {
        let n = self.frames.len() as i64;
        match &self.closure {
            Closure::Transformed { .. } => self
                .motion_at(k)
                .apply_heading_root(&self.frames[k.rem_euclid(n) as usize]),
            _ => self.frames[k.clamp(0, n - 1) as usize].clone(),
        }
    }

    /// The motion that takes frame k's coordinates from those of the frame stored for it: T^m for
    /// a transformed cycle's frame k + m·N, the identity otherwise.
    pub fn motion_at(&self, k: i64) -> PlanarMotion {
        self.cycle_motion()
            .power(k.div_euclid(self.frames.len() as i64))
    }

    /// Foot `foot`'s load at frame k in the world of frame k (turned by [`Self::motion_at`]),
    /// when it is down.
    pub fn load_at(&self, k: i64, foot: usize) -> Option<ContactLoad> {
        let m = self.motion_at(k);
        self.contact_at(k, foot).map(|l| l.turned(&m))
    }

    /// Whether foot `foot` is down at frame k (wrapping like [`Self::frame_at`]).
    pub fn contact_at(&self, k: i64, foot: usize) -> Option<&ContactLoad> {
        let n = self.contacts.len() as i64;
        let i = if self.closure.is_cyclic() {
            k.rem_euclid(n)
        } else {
            k.clamp(0, n - 1)
        };
        self.contacts[i as usize][foot].as_ref()
    }

    /// The heading frame of frame k: the root's ground position and yaw.
    pub fn heading_at(&self, k: i64) -> PlanarMotion {
        let q = self.frame_at(k);
        PlanarMotion {
            x: q[3],
            z: q[5],
            yaw: q[0],
        }
    }

    /// The turn rate of a transformed cycle (0 for other clips).
    pub fn turn_rate(&self) -> f64 {
        self.closure.turn_rate()
    }

    /// The strafe angle of a transformed cycle (0 for other clips).
    pub fn strafe(&self) -> f64 {
        self.closure.strafe()
    }

    /// The transform T of a transformed cycle (frame k + N = T(frame k)); the identity for
    /// other clips.
    pub fn cycle_motion(&self) -> PlanarMotion {
        self.closure.cycle_motion(self.speed, self.period)
    }
}

/// The open gait problem connecting `a` to `b` as `c` asks, with its blended start. Both clips
/// must be transformed cycles or open clips of `skeleton`'s creature (heading coordinates).
pub fn connecting_spec(
    skeleton: &Skeleton,
    a: &GaitClip,
    b: &GaitClip,
    c: &Connection,
) -> Result<GaitSpec, GaitError> {
    let (spec, start) = connecting_start(skeleton, a, b, c)?;
    spec.with_warm_start(start)
}

/// Each swing's foot off the ground over the frames strictly inside its window.
fn lift_swings(
    skeleton: &Skeleton,
    swings: &[Swing],
    contact: &mut [Vec<bool>],
) -> Result<(), GaitError> {
    let n = contact.len();
    for w in swings {
        let k = foot_window(skeleton, &w.foot, w.lift, w.land)?;
        for (i, frame) in contact.iter_mut().enumerate() {
            let s = i as f64 / (n - 1) as f64;
            if w.lift < s && s < w.land {
                frame[k] = false;
            }
        }
    }
    Ok(())
}

/// The index of the foot `foot` names, for a window from `from` to `to` (fractions of a
/// connection, 0 ≤ from < to ≤ 1); an unknown foot or a window that is not one is an error.
fn foot_window(skeleton: &Skeleton, foot: &str, from: f64, to: f64) -> Result<usize, GaitError> {
    let names: Vec<String> = skeleton
        .feet
        .iter()
        .map(|&l| skeleton.limbs[l].name.clone())
        .collect();
    let k = names
        .iter()
        .position(|f| f == foot)
        .ok_or_else(|| GaitError::UnknownFoot(foot.to_string(), names.join(", ")))?;
    if !(0.0 <= from && from < to && to <= 1.0) {
        return Err(GaitError::Window {
            foot: foot.to_string(),
            start: from,
            duration: to - from,
        });
    }
    Ok(k)
}

/// A foot's heading (rad, left positive) in a pose of the heading-root `skeleton`.
fn foot_heading(skeleton: &Skeleton, q: &[f64], foot: usize) -> f64 {
    let morphology = skeleton.morphology::<f64>();
    let k = crate::spacetime::dynamics::forward_kinematics(skeleton, &morphology, q);
    let r = &k.limbs[skeleton.feet[foot]].rotation.m;
    (-r[2][0]).atan2(r[0][0])
}

/// Per frame and foot, how far the foot turns on its contact point from that frame to the next
/// (rad, left positive): over a pivot's window the foot turns from its heading in the first
/// free frame to its heading in the last (the one nearest the placement's turn), eased in and
/// out by a smoothstep; elsewhere 0. A pivot of a foot the creature does not have, a window that is
/// not one, or a foot lifted inside its window is refused.
///
/// Also per frame and foot, how it stands ([`Footing`]): a toe pivot's foot turns about its
/// toes over its window, up on them over the window's middle three fifths (the heel's least
/// height ramps from 0 to [`TOE_PIVOT_HEEL`] over the first and last tenth of the window and
/// holds it between), flat on its sole elsewhere.
fn pivot_turns(
    skeleton: &Skeleton,
    pivots: &[Pivot],
    contact: &[Vec<bool>],
    (first, last): (&[f64], &[f64]),
    placement: &PlanarMotion,
) -> Result<PivotFrames, GaitError> {
    let heading = skeleton.with_heading_root();
    let n = contact.len();
    let mut turns = vec![vec![0.0; skeleton.feet.len()]; n];
    let mut footing = vec![vec![Footing::Sole; skeleton.feet.len()]; n];
    let s = |i: usize| i as f64 / (n - 1) as f64;
    for p in pivots {
        let k = foot_window(skeleton, &p.foot, p.from, p.to)?;
        let inside: Vec<usize> = (0..n).filter(|&i| p.from <= s(i) && s(i) <= p.to).collect();
        if inside.len() < 2 {
            return Err(GaitError::Pivot(format!(
                "the pivot of `{}` from {} to {} spans fewer than two of the {n} frames",
                p.foot, p.from, p.to
            )));
        }
        if let Some(&i) = inside.iter().find(|&&i| !contact[i][k]) {
            return Err(GaitError::Pivot(format!(
                "the pivot of `{}` from {} to {}: the foot is lifted at frame {i} (a pivot turns a foot on the ground)",
                p.foot, p.from, p.to
            )));
        }
        let total = placement.yaw
            + crate::model::planar::wrap_angle(
                foot_heading(&heading, last, k) - foot_heading(&heading, first, k) - placement.yaw,
            );
        // The turn happens between the window's frames that are not the clip's fixed end pairs
        // (frames 0, 1 and n − 2, n − 1 are A's and B's own).
        let (lo, hi) = (inside[0].max(1), inside[inside.len() - 1].min(n - 2));
        if hi <= lo {
            return Err(GaitError::Pivot(format!(
                "the pivot of `{}` from {} to {} lies within the fixed end frames",
                p.foot, p.from, p.to
            )));
        }
        let eased = |i: usize| {
            let x = ((i as f64 - lo as f64) / (hi - lo) as f64).clamp(0.0, 1.0);
            x * x * (3.0 - 2.0 * x)
        };
        for &i in &inside[..inside.len() - 1] {
            turns[i][k] += total * (eased(i + 1) - eased(i));
        }
        if p.on == PivotOn::Toes {
            if skeleton.toes(k).is_none() {
                return Err(GaitError::Pivot(format!(
                    "the pivot of `{}` on its toes: the foot is a point, without a sole",
                    p.foot
                )));
            }
            let start = foot_heading(&heading, first, k);
            for &i in &inside {
                let x = (i as f64 - lo as f64) / (hi - lo) as f64;
                let up = ((0.3 - (x - 0.5).abs()) / 0.1).clamp(0.0, 1.0);
                footing[i][k] = if up > 0.0 {
                    Footing::Toes {
                        heel: TOE_PIVOT_HEEL * up,
                        yaw: start + (1..i).map(|j| turns[j][k]).sum::<f64>(),
                    }
                } else {
                    Footing::SoleAboutToes
                };
            }
        }
    }
    Ok((turns, footing))
}

/// Per frame and foot: a pivot's turn to the next frame, and the heel's least height of a foot
/// on its toes ([`pivot_turns`]).
type PivotFrames = (Vec<Vec<f64>>, Vec<Vec<Footing>>);

/// The connection's spec (without its start) and its start: the two clips blended, as
/// [`connecting_spec`] warm-starts from. The start is the transition template's initialisation M̃
/// (Wampler 2012, thesis §5.2.1), which the synthesis of a controller weighs before solving.
pub fn connecting_start(
    skeleton: &Skeleton,
    a: &GaitClip,
    b: &GaitClip,
    c: &Connection,
) -> Result<(GaitSpec, GaitClip), GaitError> {
    for clip in [a, b] {
        clip.check_creature(skeleton)?;
        if clip.closure.is_treadmill() {
            return Err(GaitError::WarmStart(
                "a connection joins clips in the world: treadmill gaits cannot be connected".into(),
            ));
        }
        if clip.morphology.is_some() {
            return Err(GaitError::WarmStart(
                "a connection joins clips of the character file's body".into(),
            ));
        }
    }
    if !(c.duration > 0.0 && c.duration.is_finite()) {
        return Err(GaitError::Period(c.duration));
    }
    let times = Sampling::new(a, b, c);
    let n = times.n;
    let placement = c.placement.unwrap_or_else(|| {
        Connection::default_placement(a, b, c.from_frame, c.to_frame, c.duration)
    });
    // Frame i of the connection: A at a + i·dt for the first half, B at b − (n − 1 − i)·dt for
    // the second, B's moved by the placement.
    let at = |i: usize| {
        let q = times.frame(a, b, i);
        if times.from_a(i) {
            q
        } else {
            placement.apply_heading_root(&q)
        }
    };
    let feet = skeleton.feet.len();
    let mut contact: Vec<Vec<bool>> = (0..n)
        .map(|i| {
            let k = times.nearest(i);
            (0..feet)
                .map(|foot| {
                    if times.from_a(i) {
                        a.contact_at(k, foot).is_some()
                    } else {
                        b.contact_at(k, foot).is_some()
                    }
                })
                .collect()
        })
        .collect();
    lift_swings(skeleton, &c.swings, &mut contact)?;
    let ends = OpenEnds {
        first: [at(0), at(1)],
        last: [at(n - 2), at(n - 1)],
    };
    let (pivoting, footing) = pivot_turns(
        skeleton,
        &c.pivots,
        &contact,
        (&ends.first[1], &ends.last[0]),
        &placement,
    )?;
    let spec = GaitSpec::open(
        skeleton.clone(),
        0.5 * (a.speed + b.speed),
        c.duration,
        contact.clone(),
        ends,
    )?
    .with_pivots(pivoting)
    .with_footing(footing);
    // The blended start, with the loads of the clip each frame's contacts come from (turned with
    // its poses) and no springs (see the module docs).
    let frames: Vec<Vec<f64>> = (0..n)
        .map(|i| {
            let s = i as f64 / (n - 1) as f64;
            let w = s * s * (3.0 - 2.0 * s);
            let qa = times.in_a(i).frame(a);
            let qb = placement.apply_heading_root(&times.in_b(i).frame(b));
            qa.iter()
                .zip(&qb)
                .map(|(x, y)| (1.0 - w) * x + w * y)
                .collect()
        })
        .collect();
    let contacts = (0..n)
        .map(|i| {
            (0..feet)
                .map(|k| {
                    let j = times.nearest(i);
                    let load = if times.from_a(i) {
                        a.load_at(j, k)
                    } else {
                        b.load_at(j, k).map(|l| l.turned(&placement))
                    };
                    load.filter(|_| contact[i][k])
                })
                .collect()
        })
        .collect();
    let start = GaitClip {
        creature: skeleton.name.clone(),
        period: c.duration,
        seed: 0,
        max_head_height: None,
        ..GaitClip::unsolved(&spec, frames, contacts, Vec::new(), "start")
    };
    Ok((spec, start))
}

#[cfg(test)]
#[path = "connect_tests.rs"]
mod tests;
