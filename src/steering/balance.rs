//! The balance feedback of physics playback ([`super::physics`]): targets and torques added to
//! the played motion's so that the simulated body keeps its balance, from its deviation from the
//! played one.
//!
//! - **Balance** (after SIMBICON, Yin, Loken & van de Panne 2007), on the *deviation* of the
//!   simulated centre of mass from the played one (its offset from the planted feet, and its
//!   velocity, in the heading frame; the played motion's own offset and velocity are not
//!   errors): the hip of a leg in the air aims its flexion and abduction further by
//!   c_d·Δd + c_v·Δv, so a step lands where it catches the fall; the planted ankles pitch and
//!   roll against it; the planted hips take back the pelvis's rotation and angular velocity
//!   off the played one (SIMBICON's torso control, in all three axes).
//! - **Torso torque** (SIMBICON's torso control proper): the planted hips also put a torque on
//!   the pelvis, −k_p·(its rotation off the played one) − k_d·(its angular velocity off it),
//!   as feedforward on their coordinates (a hip turns the pelvis by −τ about its axis). The
//!   target offsets above alone let the pelvis pitch 15–30° forward in a walk and fall after
//!   about 3.5 s; with the torque every straight walk and run holds.
//! - **Clearance:** a leg in the air bends its hip and knee further and lifts its toes: the
//!   gait NLP's feet are points, and the clips' swinging soles graze the ground (their box
//!   corners dip up to 4 cm under it), which loads the swinging foot and lets the planted one
//!   spin ([`crate::spacetime::gait::GaitSpec::sole_clearance`] solves clips without it).
//!
//! The default gains come from three searches. The first two were made at the simulation's
//! default contact solve (a random search of 400 settings after the held feet moved with the
//! reference, then two local searches; docs/results.md has the figures; `trunk_v` came in
//! then). At the converged contact solve of physics playback those gains let every walk fall,
//! so with the torso torque all 16 were searched again by an elitist evolution strategy (8
//! samples a step) scored on full-stick walks and runs in 8 directions and 6 player timelines,
//! 15 s each; searches scored on other timelines, or on walks at part stick too, did no better
//! on trials they had not seen.

use crate::model::EffectorTag;
use crate::sim::Simulation;
use crate::steering::Output;

/// Gains of the balance feedback.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct BalanceGains {
    /// Swing hip: rad per m of centre-of-mass offset from the played one.
    pub c_d: f64,
    /// Swing hip: rad per m/s of centre-of-mass velocity off the played one.
    pub c_v: f64,
    /// Fraction of the pelvis's rotation off the played one that the planted hips take back.
    pub trunk: f64,
    /// The same for the pelvis's angular velocity off the played one (rad per rad/s).
    pub trunk_v: f64,
    /// Ankle strategy of the planted feet along the heading (pitch): rad per m and per m/s.
    pub ankle_d: f64,
    pub ankle_v: f64,
    /// Ankle strategy across the heading (roll): rad per m and per m/s.
    pub roll_d: f64,
    pub roll_v: f64,
    /// Swing-foot clearance: extra knee bend, hip flexion and toe lift (rad) of a leg in the air.
    pub lift_knee: f64,
    pub lift_hip: f64,
    pub lift_toe: f64,
    /// Half-life (s) with which the kinematic reference's place follows the simulated pelvis.
    pub follow: f64,
    /// Half-life (s) with which the reference's heading follows the simulated pelvis's: the
    /// longer, the further a turn the stick asks for leads the body (a learned tracker plays
    /// with the one it was trained with, [`super::tracker::Tracker::heading_follow`]).
    pub heading_follow: f64,
    /// Fraction of the played clip's joint torques applied as feedforward (0: PD and balance
    /// feedback alone).
    pub feedforward: f64,
    /// Fraction of the played joint rates the PD's damping aims at (0: it damps all motion).
    pub rates: f64,
    /// Torso control (SIMBICON's): the torque (N·m per rad, and per rad/s) the planted hips put
    /// on the pelvis against its rotation and angular velocity off the played one's.
    pub torso_kp: f64,
    pub torso_kd: f64,
}

impl Default for BalanceGains {
    fn default() -> Self {
        Self {
            c_d: 1.648,
            c_v: 0.1968,
            trunk: 0.5139,
            trunk_v: 0.01042,
            ankle_d: 1.368,
            ankle_v: 0.6559,
            roll_d: 0.4966,
            roll_v: 0.04478,
            lift_knee: 0.592,
            lift_hip: 0.1905,
            lift_toe: 0.379,
            follow: 0.01403,
            heading_follow: 0.01403,
            feedforward: 0.8223,
            rates: 0.5722,
            torso_kp: 290.3,
            torso_kd: 54.31,
        }
    }
}

impl BalanceGains {
    /// The defaults with the gains `NAME=VALUE,...` changes (the field names); an unknown name
    /// or a value that is not a finite number is an error that lists the names.
    pub fn parse(text: &str) -> anyhow::Result<Self> {
        let mut g = Self::default();
        let names = "c_d, c_v, trunk, trunk_v, ankle_d, ankle_v, roll_d, roll_v, lift_knee, lift_hip, \
                     lift_toe, follow, heading_follow, feedforward, rates, torso_kp, torso_kd";
        for (name, value) in named_values(text, names)? {
            let field = match name {
                "c_d" => &mut g.c_d,
                "c_v" => &mut g.c_v,
                "trunk" => &mut g.trunk,
                "trunk_v" => &mut g.trunk_v,
                "ankle_d" => &mut g.ankle_d,
                "ankle_v" => &mut g.ankle_v,
                "roll_d" => &mut g.roll_d,
                "roll_v" => &mut g.roll_v,
                "lift_knee" => &mut g.lift_knee,
                "lift_hip" => &mut g.lift_hip,
                "lift_toe" => &mut g.lift_toe,
                "follow" => &mut g.follow,
                "heading_follow" => &mut g.heading_follow,
                "feedforward" => &mut g.feedforward,
                "rates" => &mut g.rates,
                "torso_kp" => &mut g.torso_kp,
                "torso_kd" => &mut g.torso_kd,
                other => anyhow::bail!("unknown balance gain `{other}` (expected one of {names})"),
            };
            *field = value;
        }
        anyhow::ensure!(
            g.follow > 0.0 && g.heading_follow > 0.0,
            "follow and heading_follow are half-lives: they must be positive"
        );
        Ok(g)
    }

    /// The fractions of the simulated pelvis's offset from the reference (place, heading) that
    /// the reference takes back in a step of `dt` seconds.
    pub fn following(&self, dt: f64) -> (f64, f64) {
        let rate = 1.0 / dt;
        let fraction = |half_life: f64| 1.0 - (-std::f64::consts::LN_2 / (half_life * rate)).exp();
        (fraction(self.follow), fraction(self.heading_follow))
    }
}

/// The `NAME=VALUE` entries of a comma-separated list (blank entries skipped); an entry without
/// `=` or with a value that is not a finite number is an error (`names` lists what is expected).
pub(crate) fn named_values<'a>(text: &'a str, names: &str) -> anyhow::Result<Vec<(&'a str, f64)>> {
    let mut out = Vec::new();
    for entry in text.split(',').map(str::trim).filter(|e| !e.is_empty()) {
        let (name, value) = entry
            .split_once('=')
            .ok_or_else(|| anyhow::anyhow!("`{entry}`: expected NAME=VALUE ({names})"))?;
        let value: f64 = value
            .trim()
            .parse()
            .ok()
            .filter(|v: &f64| v.is_finite())
            .ok_or_else(|| anyhow::anyhow!("`{entry}`: the value is not a finite number"))?;
        out.push((name.trim(), value));
    }
    Ok(out)
}

/// Offsets (rad) a look-ahead adds to the balance feedback's targets
/// ([`super::lookahead`]): where the swinging leg reaches, how the planted ankles lean, and how
/// the planted hips hold the pelvis.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct LegOffsets {
    /// A leg in the air: hip flexion (forward) and abduction (left).
    pub swing_flexion: f64,
    pub swing_abduction: f64,
    /// The planted feet: ankle pitch and roll.
    pub ankle_pitch: f64,
    pub ankle_roll: f64,
    /// The planted hips: flexion and abduction (shared between them), tilting the pelvis.
    pub trunk_pitch: f64,
    pub trunk_roll: f64,
}

impl LegOffsets {
    pub const DIMENSION: usize = 6;

    pub fn from_array(a: [f64; 6]) -> Self {
        Self {
            swing_flexion: a[0],
            swing_abduction: a[1],
            ankle_pitch: a[2],
            ankle_roll: a[3],
            trunk_pitch: a[4],
            trunk_roll: a[5],
        }
    }
}

/// The legs: per foot effector, its index, the foot body and the hip's flexion (z) and
/// abduction (x) coordinates.
pub(super) struct Leg {
    effector: usize,
    foot: usize,
    flexion: Option<usize>,
    abduction: Option<usize>,
    /// The ankle's pitch coordinate (about z).
    ankle: Option<usize>,
    /// The ankle's roll coordinate (about x).
    ankle_roll: Option<usize>,
    /// The knee's flexion coordinate (about z, bent negative).
    knee: Option<usize>,
    /// The hip's twist coordinate (about y), for a ball hip.
    twist: Option<usize>,
}

pub(super) fn legs(c: &crate::model::Character) -> Vec<Leg> {
    let names = c.dof_names();
    c.end_effectors
        .iter()
        .enumerate()
        .filter(|(_, e)| e.tag == EffectorTag::Foot)
        .filter_map(|(k, e)| {
            // foot ← ankle ← shin ← knee ← thigh ← hip (a toe's parent is the foot).
            let up = |body: usize| c.joints.iter().position(|j| j.child == c.bodies[body].name);
            let mut foot = c.body_index(&e.body)?;
            if e.body.to_lowercase().contains("toe") {
                foot = c.body_index(&c.joints[up(foot)?].parent)?;
            }
            let shin = c.body_index(&c.joints[up(foot)?].parent)?;
            let thigh = c.body_index(&c.joints[up(shin)?].parent)?;
            let hip = &c.joints[up(thigh)?];
            let ankle = &c.joints[up(foot)?];
            let knee = &c.joints[up(shin)?];
            let coordinate = |joint: &crate::model::Joint, axis: [f64; 3]| {
                let axes = joint.kind.axes();
                let k = axes.iter().position(|a| a == &axis)?;
                let name = if axes.len() == 1 {
                    joint.name.clone()
                } else {
                    format!("{}.{k}", joint.name)
                };
                names.iter().position(|n| *n == name)
            };
            Some(Leg {
                effector: k,
                foot,
                flexion: coordinate(hip, [0.0, 0.0, 1.0]),
                abduction: coordinate(hip, [1.0, 0.0, 0.0]),
                ankle: coordinate(ankle, [0.0, 0.0, 1.0]),
                ankle_roll: coordinate(ankle, [1.0, 0.0, 0.0]),
                knee: coordinate(knee, [0.0, 0.0, 1.0]),
                twist: coordinate(hip, [0.0, 1.0, 0.0]),
            })
        })
        .collect()
}

/// The played motion's centre of mass, its velocity and its bodies, for feedback on deviations.
pub(super) struct Reference {
    pub(super) com: [f64; 3],
    pub(super) velocity: [f64; 3],
    /// The played pelvis's angular velocity (world).
    pub(super) spin: nalgebra::Vector3<f64>,
    pub(super) bodies: Vec<crate::clip::pose::BodyPose>,
}

/// One step's balance feedback: the simulation, the legs, the played output and its reference.
pub(super) struct Feedback<'a> {
    pub(super) sim: &'a Simulation,
    pub(super) legs: &'a [Leg],
    pub(super) out: &'a Output,
    pub(super) gains: &'a BalanceGains,
    /// The pelvis's body index.
    pub(super) root: usize,
    pub(super) reference: &'a Reference,
}

impl Feedback<'_> {
    /// The legs whose feet the played motion has on the ground.
    fn planted(&self) -> Vec<&Leg> {
        self.legs
            .iter()
            .filter(|l| self.out.contacts.get(l.effector).copied().unwrap_or(false))
            .collect()
    }

    /// The simulated pelvis's orientation, its rotation off the played one's (world, as a
    /// scaled axis) and its angular velocity off the played one's.
    fn pelvis_off(
        &self,
    ) -> (
        nalgebra::UnitQuaternion<f64>,
        nalgebra::Vector3<f64>,
        nalgebra::Vector3<f64>,
    ) {
        let pelvis = crate::clip::pose::quat_of(&self.sim.body_pose(self.root).map(|x| x as f64));
        let error =
            pelvis * crate::clip::pose::quat_of(&self.reference.bodies[self.root]).inverse();
        let (_, w) = self.sim.body_velocity(self.root);
        let spin =
            nalgebra::Vector3::new(w[0] as f64, w[1] as f64, w[2] as f64) - self.reference.spin;
        (pelvis, error.scaled_axis(), spin)
    }

    /// The torso control's hip torques, added to `torques` (see the module docs): the torque
    /// the pelvis should feel, −k_p·(rotation off the played one) − k_d·(angular velocity off
    /// it), shared between the planted hips; a hip's coordinate about world axis a turns the
    /// thigh by +τa and the pelvis by −τa, so it adds −share·(torque · a).
    pub(super) fn torso_torques(&self, torques: &mut [f32]) {
        let gains = self.gains;
        if gains.torso_kp == 0.0 && gains.torso_kd == 0.0 {
            return;
        }
        let planted = self.planted();
        if planted.is_empty() {
            return;
        }
        let (_, error, spin) = self.pelvis_off();
        let wanted = -gains.torso_kp * error - gains.torso_kd * spin;
        let share = 1.0 / planted.len() as f64;
        for l in &planted {
            for k in [l.abduction, l.twist, l.flexion].into_iter().flatten() {
                let a = self.sim.dof_axis_world(k);
                let a = nalgebra::Vector3::new(a[0] as f64, a[1] as f64, a[2] as f64);
                torques[k] -= (share * wanted.dot(&a)) as f32;
            }
        }
    }

    /// The played pose's coordinates with the balance feedback added (see the module docs).
    pub(super) fn targets(&self, offsets: &LegOffsets) -> Vec<f32> {
        let (sim, legs, out, gains, reference) =
            (self.sim, self.legs, self.out, self.gains, self.reference);
        let mut q: Vec<f64> = out.pose.joints.clone();
        let com = sim.com();
        let v = sim.com_velocity();
        let heading = out.heading;
        // Forward and left of the heading, on the ground.
        let (fwd, left) = (
            [heading.yaw.cos(), -heading.yaw.sin()],
            [-heading.yaw.sin(), -heading.yaw.cos()],
        );
        let planted = self.planted();
        if planted.is_empty() {
            return q.into_iter().map(|x| x as f32).collect();
        }
        // The centre of mass relative to the planted feet (their mean), along and across the heading,
        // less the played motion's own offset and velocity.
        let mut support = [0.0, 0.0];
        let mut played = [0.0, 0.0];
        for l in &planted {
            let f = sim.body_pose(l.foot);
            support[0] += f[0] as f64 / planted.len() as f64;
            support[1] += f[2] as f64 / planted.len() as f64;
            let g = reference.bodies[l.foot];
            played[0] += g[0] / planted.len() as f64;
            played[1] += g[2] / planted.len() as f64;
        }
        let d = [
            com[0] as f64 - support[0] - (reference.com[0] - played[0]),
            com[2] as f64 - support[1] - (reference.com[2] - played[1]),
        ];
        let v = [
            v[0] as f64 - reference.velocity[0],
            v[2] as f64 - reference.velocity[2],
        ];
        let (d_fwd, d_left) = (
            d[0] * fwd[0] + d[1] * fwd[1],
            d[0] * left[0] + d[1] * left[1],
        );
        let (v_fwd, v_left) = (
            v[0] * fwd[0] + v[1] * fwd[1],
            v[0] * left[0] + v[1] * left[1],
        );
        // Planted ankles push the centre of mass back over the feet (a larger ankle angle tips the
        // shin forward; a larger roll tips it to the left, so a smaller one pushes the centre of mass
        // back to the right).
        for l in &planted {
            if let Some(k) = l.ankle {
                q[k] -= gains.ankle_d * d_fwd + gains.ankle_v * v_fwd - offsets.ankle_pitch;
            }
            if let Some(k) = l.ankle_roll {
                q[k] -= gains.roll_d * d_left + gains.roll_v * v_left - offsets.ankle_roll;
            }
            let share = 1.0 / planted.len() as f64;
            if let Some(k) = l.flexion {
                q[k] += share * offsets.trunk_pitch;
            }
            if let Some(k) = l.abduction {
                q[k] += share * offsets.trunk_roll;
            }
        }
        // A leg in the air aims its step where it catches the fall (SIMBICON): further forward when
        // the centre of mass runs ahead, further left when it drifts left (abduction about +x
        // swings a hanging leg towards −z, the character's left).
        for l in legs
            .iter()
            .filter(|l| !out.contacts.get(l.effector).copied().unwrap_or(false))
        {
            if let Some(k) = l.flexion {
                q[k] +=
                    gains.c_d * d_fwd + gains.c_v * v_fwd + gains.lift_hip + offsets.swing_flexion;
            }
            if let Some(k) = l.knee {
                q[k] -= gains.lift_knee;
            }
            if let Some(k) = l.ankle {
                q[k] += gains.lift_toe;
            }
            if let Some(k) = l.abduction {
                q[k] += gains.c_d * d_left + gains.c_v * v_left + offsets.swing_abduction;
            }
        }
        // The pelvis's orientation in the world (SIMBICON's torso control): its rotation and
        // angular velocity off the played one's, in the pelvis's frame, are taken back by the
        // planted hips, shared between them (a hip's coordinates turn its thigh about the pelvis's
        // axes).
        if gains.trunk != 0.0 || gains.trunk_v != 0.0 {
            let (pelvis, error, spin) = self.pelvis_off();
            let local = pelvis.inverse() * (gains.trunk * error + gains.trunk_v * spin);
            let share = 1.0 / planted.len() as f64;
            for l in &planted {
                for (k, e) in [
                    (l.abduction, local.x),
                    (l.twist, local.y),
                    (l.flexion, local.z),
                ] {
                    if let Some(k) = k {
                        q[k] += share * e;
                    }
                }
            }
        }
        q.into_iter().map(|x| x as f32).collect()
    }
}

#[cfg(test)]
mod tests {
    use super::BalanceGains;

    /// `steer --balance` changes the gains it names and keeps the others; a wrong name or value
    /// is an error that says what was expected.
    #[test]
    fn balance_gains_are_parsed_by_name() {
        let g = BalanceGains::parse("c_d=2, trunk=0,lift_knee=0.4").unwrap();
        assert_eq!((g.c_d, g.trunk, g.lift_knee), (2.0, 0.0, 0.4));
        let d = BalanceGains::default();
        assert_eq!((g.c_v, g.follow, g.rates), (d.c_v, d.follow, d.rates));
        assert_eq!(BalanceGains::parse("").unwrap(), d);
        let e = BalanceGains::parse("cd=1").unwrap_err().to_string();
        assert!(e.contains("`cd`") && e.contains("c_d, c_v"), "{e}");
        for bad in ["c_d=nan", "c_d=x", "c_d", "follow=0", "heading_follow=-1"] {
            assert!(BalanceGains::parse(bad).is_err(), "{bad}");
        }
    }
}
