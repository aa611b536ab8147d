//! A solved gait as a file: [`GaitClip`] (poses per frame, contact loads, springs, timings,
//! what produced it), its checks against its creature, and the body it belongs to.

use super::*;

/// A foot's ground reaction in SI units: force (N) at the foot point and free torque (N·m).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ContactLoad {
    pub force: [f64; 3],
    pub torque: [f64; 3],
    /// How far (rad, left positive) the foot turns on its contact point from this frame to the
    /// next: a connection's [`super::Pivot`]; absent: 0, it keeps its heading.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub turn: f64,
    /// How the foot stands: on its foot point (absent), or in a toe pivot's window turning
    /// about its toes, flat or up on them with the load there ([`Footing`]).
    #[serde(default, skip_serializing_if = "is_sole")]
    pub footing: Footing,
}

fn is_sole(f: &Footing) -> bool {
    *f == Footing::Sole
}

fn is_zero(x: &f64) -> bool {
    *x == 0.0
}

impl ContactLoad {
    /// Where on foot `k` of `skeleton` the load acts: the limb frame's offset from its foot
    /// point ([`crate::spacetime::dynamics::FootLoad::at`]).
    pub fn at(&self, skeleton: &Skeleton, k: usize) -> [f64; 3] {
        match self.footing.on_toes() {
            true => skeleton.toes(k).unwrap_or([0.0; 3]),
            false => [0.0; 3],
        }
    }
}

/// A joint coordinate's spring and damper (3.13): t_p = −stiffness·(q − rest) − damping·q̇.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PassiveElement {
    pub coordinate: String,
    /// N·m/rad.
    pub stiffness: f64,
    /// rad.
    pub rest: f64,
    /// N·m·s/rad.
    pub damping: f64,
}

/// A solved cyclic gait, as written by `motionlab gait --out`: q per frame (treadmill frame: the
/// creature stays in place and the ground moves at −speed), the contact loads, the timings and
/// what produced it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct GaitClip {
    /// The creature's name (its character file's `name`).
    pub creature: String,
    /// The character file it was solved for, as a clip names its character (absent in clips
    /// written before it was recorded: the file is then found by the creature's name).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub character: Option<crate::model::CharacterRef>,
    /// V (m/s, +x).
    pub speed: f64,
    /// T (s).
    pub period: f64,
    pub timings: Vec<FootTiming>,
    /// Names of the coordinates of q.
    pub coordinates: Vec<String>,
    /// q per frame.
    pub frames: Vec<Vec<f64>>,
    /// Per frame, per foot (order of `timings`): the load in contact, `None` in the air.
    pub contacts: Vec<Vec<Option<ContactLoad>>>,
    pub passive: Vec<PassiveElement>,
    /// The objective (3.14)–(3.17) averaged over frames.
    pub cost: f64,
    /// How the IPOPT solve of the gait NLP ended (`solved`, `maximum_iterations_exceeded`, …).
    pub status: String,
    /// How the feasibility projection ended, when the solve stopped short (see [`solve_gait`]);
    /// `feasible_as_is` when a kept iterate met a clip's bar and was taken without one.
    pub projection_status: Option<String>,
    /// IPOPT iterations, the projection's included.
    pub iterations: usize,
    /// Largest bound or constraint violation (constraints mass-normalised).
    pub max_violation: f64,
    pub seed: u64,
    pub solve_time_s: f64,
    /// Every limb's size, when the morphology was optimised with the gait (Wampler 2012, §3.4);
    /// absent: the character file's.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub morphology: Option<Vec<LimbShape>>,
    /// The iteration of the capped solve whose projection this clip is (the last one, or an
    /// earlier iterate of lower cost, see [`solve_gait`]); absent when nothing was projected.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub projected_from: Option<usize>,
    /// How the frames close ([`Closure`]); absent: a treadmill cycle. Off the treadmill the
    /// root is in heading coordinates and the frames are in the world.
    #[serde(default, skip_serializing_if = "Closure::is_treadmill")]
    pub closure: Closure,
    /// The ceiling the head stayed under (m), when there was one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_head_height: Option<f64>,
    /// When the solve ended above the clip it started from and that start was kept instead
    /// (`job::run_gait`): where the solve itself ended.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub start_kept: Option<KeptStart>,
}

/// Where a solve ended whose start was kept instead of its result.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct KeptStart {
    /// The solve's own cost.
    pub cost: f64,
    /// The solve's own largest violation.
    pub max_violation: f64,
}

impl GaitClip {
    /// Some frame has no foot on the ground (a run, a hop, a gallop's flight).
    pub fn has_flight(&self) -> bool {
        self.contacts.iter().any(|c| c.iter().all(Option::is_none))
    }

    /// A clip of `spec`'s cycle with these frames, loads and springs that no solve has measured
    /// yet (cost and violation infinite, no iterations), its status `status`.
    pub fn unsolved(
        spec: &GaitSpec,
        frames: Vec<Vec<f64>>,
        contacts: Vec<Vec<Option<ContactLoad>>>,
        passive: Vec<PassiveElement>,
        status: &str,
    ) -> GaitClip {
        GaitClip {
            creature: spec.skeleton.name.clone(),
            character: None,
            speed: spec.speed,
            period: spec.period,
            timings: spec.timings.clone(),
            coordinates: spec.skeleton.dof_names(),
            frames,
            contacts,
            passive,
            cost: f64::INFINITY,
            status: status.into(),
            projection_status: None,
            iterations: 0,
            max_violation: f64::INFINITY,
            seed: spec.seed,
            solve_time_s: 0.0,
            morphology: None,
            projected_from: None,
            closure: spec.closure.clone(),
            max_head_height: spec.max_head_height,
            start_kept: None,
        }
    }

    /// Fails unless the clip is of creature `skeleton` (by name).
    pub fn check_creature(&self, skeleton: &Skeleton) -> Result<(), GaitError> {
        if self.creature == skeleton.name {
            Ok(())
        } else {
            Err(GaitError::WarmStart(format!(
                "the clip is of creature `{}`, not `{}`",
                self.creature, skeleton.name
            )))
        }
    }

    /// The creature `base` (its file) with this clip's limb sizes: the body the clip's motion
    /// belongs to. Fails when the clip names a limb the creature lacks.
    pub fn body(&self, base: &Skeleton) -> Result<Skeleton, GaitError> {
        let base = if self.closure.is_treadmill() {
            base.clone()
        } else {
            base.with_heading_root()
        };
        match &self.morphology {
            None => Ok(base),
            Some(shapes) => reshaped(&base, shapes)
                .map_err(|limb| GaitError::UnknownLimb(limb.0, base.name.clone())),
        }
    }

    /// Checks what the solver and the audit index and divide by: a finite speed, a positive
    /// period, one frame of `body.dof()` finite coordinates per frame (at least one), contacts
    /// for every frame and foot with finite loads, a window in [0, 1] per foot and finite
    /// springs. `body` is [`Self::body`] of the clip's creature.
    pub fn validate(&self, body: &Skeleton) -> Result<(), GaitError> {
        let fail = |what: String| Err(GaitError::InvalidClip(body.name.clone(), what));
        let finite = |v: &[f64]| v.iter().all(|x| x.is_finite());
        if !self.speed.is_finite() {
            return fail(format!("expected a finite speed, found {}", self.speed));
        }
        if !(self.period > 0.0 && self.period.is_finite()) {
            return fail(format!("expected a positive period, found {}", self.period));
        }
        if self.frames.is_empty() {
            return fail("expected at least one frame".into());
        }
        for (i, q) in self.frames.iter().enumerate() {
            if q.len() != body.dof() {
                return fail(format!(
                    "frame {i} has {} coordinates, the creature {}",
                    q.len(),
                    body.dof()
                ));
            }
            if !finite(q) {
                return fail(format!(
                    "frame {i} has a coordinate that is not a finite number"
                ));
            }
        }
        let feet = body.feet.len();
        if self.timings.len() != feet {
            return fail(format!(
                "expected a contact window for each of the {feet} feet, found {}",
                self.timings.len()
            ));
        }
        for t in &self.timings {
            if !((0.0..=1.0).contains(&t.start) && (0.0..=1.0).contains(&t.duration)) {
                return fail(format!(
                    "foot `{}`: expected start and duration in [0, 1], found {} and {}",
                    t.foot, t.start, t.duration
                ));
            }
        }
        if self.contacts.len() != self.frames.len() {
            return fail(format!(
                "expected contacts for each of the {} frames, found {}",
                self.frames.len(),
                self.contacts.len()
            ));
        }
        for (i, c) in self.contacts.iter().enumerate() {
            if c.len() != feet {
                return fail(format!(
                    "frame {i}: expected {feet} feet's contacts, found {}",
                    c.len()
                ));
            }
            if !c
                .iter()
                .flatten()
                .all(|l| finite(&l.force) && finite(&l.torque))
            {
                return fail(format!("frame {i}: a contact load is not finite"));
            }
        }
        if !self
            .passive
            .iter()
            .all(|p| p.stiffness.is_finite() && p.rest.is_finite() && p.damping.is_finite())
        {
            return fail("a spring or damper is not finite".into());
        }
        Ok(())
    }

    /// IPOPT succeeded on the gait NLP, or on the feasibility projection of where it stopped, or
    /// the fallback took a kept iterate that already met a clip's bar as it is
    /// ([`super::solve::FEASIBLE_AS_IS`]).
    pub fn converged(&self) -> bool {
        let ok = |s: &str| {
            s == "solved" || s == "solved_to_acceptable_level" || s == super::solve::FEASIBLE_AS_IS
        };
        ok(&self.status) || self.projection_status.as_deref().is_some_and(ok)
    }

    /// A usable gait: [`Self::converged`], feasible to 1e-6 (mass-normalised, issue 4's bar) and
    /// of finite cost.
    pub fn is_valid(&self) -> bool {
        self.converged() && self.max_violation <= 1e-6 && self.cost.is_finite()
    }

    /// The angular coordinate (a joint's, or the root's orientation) that moves fastest between
    /// two frames, and how fast (rad/s): across a cycle's seam too (frame N is frame 0 moved by
    /// T). A feasible clip can still spin a limb through half a turn in a frame, which no body
    /// does; the simple biped's walks move at most 3–9 rad/s, its solved turns 18.
    pub fn fastest_coordinate(&self) -> Option<(&str, f64)> {
        let n = self.frames.len();
        if n < 2 {
            return None;
        }
        let translation = |name: &str| [".x", ".y", ".z"].iter().any(|s| name.ends_with(s));
        let last = if self.closure.is_cyclic() { n } else { n - 1 };
        let dt = self.frame_time();
        let mut fastest: Option<(&str, f64)> = None;
        for k in 0..last {
            let a = &self.frames[k];
            let b = match self.closure {
                Closure::Transformed { .. } => self.frame_at(k as i64 + 1),
                _ => self.frames[(k + 1) % n].clone(),
            };
            for (i, name) in self.coordinates.iter().enumerate() {
                // Angles by the shorter way: a yaw stored wrapped does not jump by a turn.
                let speed = crate::model::planar::wrap_angle(b[i] - a[i]).abs() / dt;
                if !translation(name) && fastest.is_none_or(|(_, w)| speed > w) {
                    fastest = Some((name, speed));
                }
            }
        }
        fastest
    }
}
