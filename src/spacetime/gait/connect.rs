//! Connecting clips (specs/004.md §1.9 "Physical validity across clips" and App. C): an open
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
}

impl Connection {
    /// Where B goes by default: its frame b's heading frame on A's frame a's, moved along the
    /// arc of the two clips' mean speed and turn rate for `duration`.
    pub fn default_placement(
        a: &GaitClip,
        b: &GaitClip,
        from_frame: usize,
        to_frame: usize,
        duration: f64,
    ) -> PlanarMotion {
        let speed = 0.5 * (a.speed + b.speed);
        let turn = 0.5 * (a.turn_rate() + b.turn_rate());
        let there = a
            .heading_at(from_frame as i64)
            .compose(&PlanarMotion::along_arc(speed, turn, duration));
        PlanarMotion::between(&b.heading_at(to_frame as i64), &there)
    }

    /// The default placement moved on the ground so that a foot down on both sides of the
    /// connection's middle (A's last frame and B's first of the contact schedule) is at one place:
    /// a foot that stays on the ground cannot move, and the arc alone put a stop's standing feet
    /// 0.4 m from the walk's planted foot (the solve ended with a violation of 3.6). Several
    /// such feet share the mean shift. `skeleton`: the creature with its heading root.
    pub fn matched_placement(
        skeleton: &Skeleton,
        a: &GaitClip,
        b: &GaitClip,
        from_frame: usize,
        to_frame: usize,
        frames: usize,
        duration: f64,
    ) -> PlanarMotion {
        let base = Self::default_placement(a, b, from_frame, to_frame, duration);
        let n = frames.max(5) as i64;
        let last_a = from_frame as i64 + n / 2 - 1;
        let first_b = to_frame as i64 - (n - 1 - n / 2);
        if a.coordinates.len() != skeleton.dof() || b.coordinates.len() != skeleton.dof() {
            return base;
        }
        let morphology = skeleton.morphology::<f64>();
        let fa = crate::spacetime::dynamics::forward_kinematics(
            skeleton,
            &morphology,
            &a.frame_at(last_a),
        );
        let fb = crate::spacetime::dynamics::forward_kinematics(
            skeleton,
            &morphology,
            &base.apply_heading_root(&b.frame_at(first_b)),
        );
        let shared: Vec<usize> = (0..skeleton.feet.len())
            .filter(|&k| a.contact_at(last_a, k).is_some() && b.contact_at(first_b, k).is_some())
            .collect();
        if shared.is_empty() {
            return base;
        }
        let m = shared.len() as f64;
        let (dx, dz) = shared.iter().fold((0.0, 0.0), |(x, z), &k| {
            let (p, q) = (fa.foot(skeleton, k), fb.foot(skeleton, k));
            (x + (p.x - q.x) / m, z + (p.z - q.z) / m)
        });
        PlanarMotion {
            x: dx,
            z: dz,
            yaw: 0.0,
        }
        .compose(&base)
    }
}

impl ContactLoad {
    /// The load with its force and torque turned by `m`'s yaw (world directions).
    pub fn turned(&self, m: &PlanarMotion) -> ContactLoad {
        ContactLoad {
            force: m.rotate_vec3(self.force),
            torque: m.rotate_vec3(self.torque),
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
        match &self.closure {
            Closure::Transformed { turn_rate } => {
                PlanarMotion::along_arc(self.speed, *turn_rate, self.period)
                    .power(k.div_euclid(self.frames.len() as i64))
            }
            _ => PlanarMotion::IDENTITY,
        }
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
}

/// The open gait problem connecting `a` to `b` as `c` asks, with its blended start. Both clips
/// must be transformed cycles or open clips of `skeleton`'s creature (heading coordinates).
pub fn connecting_spec(
    skeleton: &Skeleton,
    a: &GaitClip,
    b: &GaitClip,
    c: &Connection,
) -> Result<GaitSpec, GaitError> {
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
    let n = c.frames.max(5);
    let (ia, ib) = (c.from_frame as i64, c.to_frame as i64);
    let placement = c.placement.unwrap_or_else(|| {
        Connection::default_placement(a, b, c.from_frame, c.to_frame, c.duration)
    });
    let b_at = |k: i64| placement.apply_heading_root(&b.frame_at(k));
    let feet = skeleton.feet.len();
    // Frame i of the connection: A's frame a + i for the first half, B's frame b − (n − 1 − i)
    // for the second.
    let from_a = |i: usize| i < n / 2;
    let contact: Vec<Vec<bool>> = (0..n)
        .map(|i| {
            (0..feet)
                .map(|k| {
                    if from_a(i) {
                        a.contact_at(ia + i as i64, k).is_some()
                    } else {
                        b.contact_at(ib - (n - 1 - i) as i64, k).is_some()
                    }
                })
                .collect()
        })
        .collect();
    let ends = OpenEnds {
        first: [a.frame_at(ia), a.frame_at(ia + 1)],
        last: [b_at(ib - 1), b_at(ib)],
    };
    let spec = GaitSpec::open(
        skeleton.clone(),
        0.5 * (a.speed + b.speed),
        c.duration,
        contact.clone(),
        ends,
    )?;
    // The blended start, with the loads of the clip each frame's contacts come from (turned with
    // its poses) and no springs (see the module docs).
    let frames: Vec<Vec<f64>> = (0..n)
        .map(|i| {
            let s = i as f64 / (n - 1) as f64;
            let w = s * s * (3.0 - 2.0 * s);
            let qa = a.frame_at(ia + i as i64);
            let qb = b_at(ib - (n - 1 - i) as i64);
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
                    let load = if from_a(i) {
                        a.load_at(ia + i as i64, k)
                    } else {
                        let j = ib - (n - 1 - i) as i64;
                        b.load_at(j, k).map(|l| l.turned(&placement))
                    };
                    load.filter(|_| contact[i][k])
                })
                .collect()
        })
        .collect();
    let start = GaitClip {
        creature: skeleton.name.clone(),
        speed: spec.speed,
        period: c.duration,
        timings: spec.timings.clone(),
        coordinates: spec.skeleton.dof_names(),
        frames,
        contacts,
        passive: Vec::new(),
        cost: f64::INFINITY,
        status: "start".into(),
        projection_status: None,
        iterations: 0,
        max_violation: f64::INFINITY,
        seed: 0,
        solve_time_s: 0.0,
        morphology: None,
        projected_from: None,
        closure: spec.closure.clone(),
        max_head_height: None,
    };
    spec.with_warm_start(start)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn clip(turn_rate: f64, frames: Vec<Vec<f64>>) -> GaitClip {
        GaitClip {
            creature: "c".into(),
            speed: 1.0,
            period: 1.0,
            timings: Vec::new(),
            coordinates: Vec::new(),
            contacts: vec![vec![]; frames.len()],
            frames,
            passive: Vec::new(),
            cost: 0.0,
            status: "solved".into(),
            projection_status: None,
            iterations: 0,
            max_violation: 0.0,
            seed: 0,
            solve_time_s: 0.0,
            morphology: None,
            projected_from: None,
            closure: Closure::Transformed { turn_rate },
            max_head_height: None,
        }
    }

    /// Frames past a transformed cycle's end are the cycle's frames moved by T, T², …; before
    /// its start by T⁻¹.
    #[test]
    fn frames_wrap_through_the_cycle_transform() {
        let frames: Vec<Vec<f64>> = (0..4)
            .map(|i| vec![0.25 * i as f64 * 0.5, 0.0, 0.0, 0.25 * i as f64, 0.9, 0.0])
            .collect();
        let c = clip(0.5, frames);
        let t = PlanarMotion::along_arc(1.0, 0.5, 1.0);
        let q5 = c.frame_at(5);
        let want = t.apply_heading_root(&c.frames[1]);
        assert_eq!(q5, want);
        let back = c.frame_at(-1);
        let want = t.inverse().apply_heading_root(&c.frames[3]);
        for (x, y) in back.iter().zip(&want) {
            assert!((x - y).abs() < 1e-12);
        }
        assert!((c.heading_at(4).yaw - 0.5).abs() < 1e-12);
    }
}
