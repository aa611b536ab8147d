//! Simulating a task's controller and scoring it: constraint penalty C (Agrawal et al. 2014, §6,
//! §7.1) and the features of the motion distance (§4.1).
//!
//! Pose metrics compare corresponding poses after aligning the whole-body centres of mass
//! (translation only). Each metric is written as a feature vector whose squared Euclidean
//! distance is the metric, so distances are cheap to recompute:
//! - HF: (x_i − c) for hands and feet;            d_HF = Σ‖x_i − x′_i‖²
//! - MD: √m_i (x_i − c) for every link;            d_MD = Σ m_i ‖x_i − x′_i‖²
//! - WJA: √w_i θ_i for every joint angle and the root (unwrapped pitch and the other two
//!   components of its rotation vector); d_WJA = Σ w_i (θ_i − θ′_i)². The weights of Wang &
//!   Bodenheimer (2003) are not given in the papers; we use uniform weights w_i = 1 (our
//!   documented substitution).
//! Landing constraints hold both where the feet first touch down (the end of the controller's
//! `Touchdown` phase) and at the end of the rollout, so a jump cannot land short and step in.
//! Walks (the walk protocol of §7.1, `walk: Some(..)`): a footfall is a foot striking the ground
//! that did not strike last; a step is the vector (x forward, z lateral) from the previous
//! footfall to this one. The rollout runs until 30 steps; the first 10 settle, and the step
//! window and posture constraints look at the other 20. Falling (or too few steps within the
//! scene's duration) costs the linear ramp of [`super::walk_fall_penalty`].
//! Motion distance: poses are sampled at normalized phase times t̂ = (k + ½)/n, k = 0…n−1, in each
//! sampled phase (jumps: the two airborne phases, n = 10; walks: the four phases of the last
//! complete stride), and the pose distances averaged over
//! the samples. MD is also divided by the total mass M (masses enter as m_i / M), so motion
//! distances are in m² (MD, HF) or rad² (WJA) per pose: a typical variation is 0.01–1, well
//! below the constraint penalties, which must dominate D once a constraint is violated
//! (§6). The papers do not state their normalization; rank-based CMA-ES is unaffected
//! by it, but the balance between D's terms is not.

use super::{Constraint, FAIL_PENALTY, Task, VIOLATION_OFFSET, VIOLATION_WEIGHT};
use crate::control::phase::{PhaseController, PhaseRecord};
use crate::model::rotation::{pitch_about_z, pose_rotation, rotation_vector};
use crate::model::{EffectorTag, shape};
use crate::sim::{Frame, Simulation, TrajectoryHasher};
use serde::{Deserialize, Serialize};

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum Metric {
    /// Hands and feet.
    Hf,
    /// Mass distance.
    Md,
    /// Weighted joint angles.
    Wja,
}

/// A name that is none of the motion metrics.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("unknown metric {0:?} (expected hf, md or wja)")]
pub struct UnknownMetric(pub String);

impl std::str::FromStr for Metric {
    type Err = UnknownMetric;
    fn from_str(s: &str) -> Result<Self, UnknownMetric> {
        match s.to_ascii_lowercase().as_str() {
            "hf" => Ok(Metric::Hf),
            "md" => Ok(Metric::Md),
            "wja" => Ok(Metric::Wja),
            _ => Err(UnknownMetric(s.to_string())),
        }
    }
}

/// The score of one parameter vector.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct Evaluation {
    /// Constraint penalty C ≥ 0 (0: all constraints hold).
    pub penalty: f64,
    /// What makes up the penalty.
    pub terms: Vec<(String, f64)>,
    /// Motion features of the task's metric (squared Euclidean distance = motion distance).
    pub features: Vec<f64>,
    /// Link lengths, m (shape distance: L1).
    pub shape: Vec<f64>,
    pub hash: u128,
    pub fell: bool,
    pub phases: Vec<PhaseRecord>,
    /// Feet centre (x, z) at the end.
    pub landing: [f32; 2],
    /// Peak centre-of-mass height above the ground, m.
    pub peak_height: f32,
    /// Total root rotation about z, degrees.
    pub rotation: f32,
    /// Walks: the evaluated steps, footfall to footfall (forward x, lateral z), m.
    #[serde(default)]
    pub steps: Vec<[f32; 2]>,
    /// Walks: the largest tilt from vertical of the `Upright` bodies over the evaluated steps,
    /// degrees.
    #[serde(default)]
    pub max_tilt: f32,
}

/// An evaluation with its frames, for playback.
#[derive(Clone, Debug)]
pub struct TaskRun {
    pub evaluation: Evaluation,
    pub frames: Vec<Frame>,
    pub character: crate::model::Character,
}

/// A task's character has fallen when a body other than a foot touches the ground or its centre
/// of mass drops below this fraction of its standing height (a landing squat goes below one half).
pub const FALL_COM_FRACTION: f32 = 0.35;

/// Per-step record used for sampling.
pub(crate) struct Record {
    pub time: f32,
    pub positions: Vec<[f32; 3]>,
    pub com: [f32; 3],
    pub angles: Vec<f32>,
    pub root: [f32; 3],
}

pub fn evaluate(task: &Task, x: &[f64], metric: Metric) -> Evaluation {
    run(task, x, metric, false, &mut ()).evaluation
}

pub fn evaluate_recorded(task: &Task, x: &[f64], metric: Metric) -> TaskRun {
    run(task, x, metric, true, &mut ())
}

/// Watches (and may adjust the world of) a task rollout: what a search over tasks measures
/// beyond the constraints, e.g. the Pareto jump's effort and its supernatural assist
/// (Agrawal 2015, thesis §4.3.3), which changes gravity after take-off.
pub trait StepObserver {
    /// Before each step, after the previous one's checks.
    fn before_step(&mut self, _sim: &mut Simulation, _controller: &PhaseController) {}
    /// After each step that did not fail.
    fn after_step(&mut self, _sim: &Simulation) {}
}

impl StepObserver for () {}

/// [`evaluate`] (with frames when `keep_frames`) while `observer` watches every step.
pub fn evaluate_observed(
    task: &Task,
    x: &[f64],
    metric: Metric,
    keep_frames: bool,
    observer: &mut dyn StepObserver,
) -> TaskRun {
    run(task, x, metric, keep_frames, observer)
}

fn failed(task: &Task, terms: Vec<(String, f64)>, character: &crate::model::Character) -> TaskRun {
    let penalty = terms.iter().map(|t| t.1).sum();
    TaskRun {
        evaluation: Evaluation {
            penalty,
            terms,
            features: Vec::new(),
            shape: shape::link_lengths(character)
                .into_iter()
                .map(f64::from)
                .collect(),
            hash: 0,
            fell: true,
            phases: Vec::new(),
            landing: [0.0; 2],
            peak_height: 0.0,
            rotation: 0.0,
            steps: Vec::new(),
            max_tilt: 0.0,
        },
        frames: Vec::new(),
        character: task.character.clone(),
    }
}

fn run(
    task: &Task,
    x: &[f64],
    metric: Metric,
    keep_frames: bool,
    observer: &mut dyn StepObserver,
) -> TaskRun {
    let (def, character) = task.instantiate(x);
    let mut settings = task.settings;
    settings.gain_scale *= task.strength;
    settings.strength_scale *= task.strength;
    let mut sim = match Simulation::new(&character, settings) {
        Ok(s) => s,
        Err(e) => {
            return failed(
                task,
                vec![(format!("invalid character: {e}"), 2.0 * FAIL_PENALTY)],
                &character,
            );
        }
    };
    for o in &task.obstacles {
        sim.add_obstacle(o.center, o.half_extents);
    }
    let mut ctrl = match PhaseController::new(&character, &def) {
        Ok(c) => c,
        Err(e) => {
            return failed(
                task,
                vec![(format!("invalid controller: {e}"), 2.0 * FAIL_PENALTY)],
                &character,
            );
        }
    };
    let steps = (task.seconds / settings.dt).round() as usize;
    // With `stand`, run on until the last phase has been held that long (bounded).
    let stand = task.def.stand.filter(|s| *s > 0.0);
    let last_phase = def.phases.len().saturating_sub(1);
    let max_steps = match stand {
        Some(s) => ((2.0 * task.seconds + s) / settings.dt).round() as usize,
        None => steps,
    };
    let mut hasher = TrajectoryHasher::default();
    let mut targets = sim.targets().to_vec();
    let mut records: Vec<Record> = Vec::with_capacity(steps);
    let mut frames = Vec::new();
    let root = character.body_index(&character.root.body).unwrap_or(0);
    let pitch0 = { pitch_about_z(pose_rotation(sim.body_pose(root))) };
    let mut pitch = pitch0;
    let mut unwrapped = 0.0f32;
    let mut max_pitch_dev = 0.0f32;
    let mut peak = f32::MIN;
    let mut fell = false;
    let mut obstacle_contact = 0.0f32;
    let ground = sim.ground_height();
    // Walks: footfalls (alternating feet), the evaluated step vectors and the posture.
    let walk = task.def.walk;
    let foot_bodies: Vec<usize> = character
        .effectors(EffectorTag::Foot)
        .filter_map(|e| character.body_index(&e.body))
        .collect();
    let upright_bodies: Vec<usize> = task
        .def
        .constraints
        .iter()
        .filter_map(|c| match c {
            Constraint::Upright { bodies, .. } => Some(
                bodies
                    .iter()
                    .filter_map(|b| character.body_index(b))
                    .collect::<Vec<_>>(),
            ),
            _ => None,
        })
        .flatten()
        .collect();
    let mut in_contact: Vec<bool> = foot_bodies.iter().map(|_| true).collect();
    let mut footfalls: Vec<(usize, [f32; 2])> = Vec::new();
    let mut footfall_times: Vec<f32> = Vec::new();
    let mut walk_steps: Vec<[f32; 2]> = Vec::new();
    let mut max_tilt = 0.0f32;
    let fall_fraction = if walk.is_some() {
        0.5
    } else {
        FALL_COM_FRACTION
    };

    for step in 0..max_steps {
        if step >= steps {
            let done = match stand {
                None => true,
                Some(s) => ctrl
                    .log
                    .iter()
                    .find(|r| r.index == last_phase)
                    .is_some_and(|r| sim.time() as f32 - r.start >= s),
            };
            if done {
                break;
            }
        }
        observer.before_step(&mut sim, &ctrl);
        sim.step_controlled(&mut ctrl, &mut targets);
        if sim.failure().is_some() {
            fell = true;
            break;
        }
        observer.after_step(&sim);
        hasher.add(&sim);
        if !task.obstacles.is_empty() && sim.touches_obstacle() {
            obstacle_contact += settings.dt;
        }
        if let Some(w) = walk {
            let contacts = sim.contacts();
            for (k, &f) in foot_bodies.iter().enumerate() {
                let now = contacts[f] > 0;
                // A footfall: a foot strikes the ground, and it is not the foot that struck last
                // (a bounce or a shuffle of the same foot is not a step).
                if now && !in_contact[k] && footfalls.last().is_none_or(|l| l.0 != k) {
                    let q = sim.body_pose(f);
                    let p = [q[0], q[2]];
                    if let Some(prev) = footfalls.last() {
                        if footfalls.len() as u32 > w.settle {
                            walk_steps.push([p[0] - prev.1[0], p[1] - prev.1[1]]);
                        }
                    }
                    footfalls.push((k, p));
                    footfall_times.push(sim.time() as f32);
                }
                in_contact[k] = now;
            }
            if footfalls.len() as u32 > w.settle {
                for &b in &upright_bodies {
                    let q = sim.body_pose(b);
                    let up_y = 1.0 - 2.0 * (q[3] * q[3] + q[5] * q[5]);
                    max_tilt = max_tilt.max(up_y.clamp(-1.0, 1.0).acos());
                }
            }
        }
        let p = sim.body_pose(root);
        let a = pitch_about_z(pose_rotation(p));
        unwrapped += crate::control::phase::angle_step(pitch, a);
        pitch = a;
        max_pitch_dev = max_pitch_dev.max(unwrapped.abs());
        let com = sim.com();
        peak = peak.max(com[1] - ground);
        let rv = rotation_vector(pose_rotation(p));
        records.push(Record {
            time: sim.time() as f32,
            positions: (0..character.bodies.len())
                .map(|i| {
                    let q = sim.body_pose(i);
                    [q[0], q[1], q[2]]
                })
                .collect(),
            com,
            angles: sim.dof_state().0,
            root: [pitch0 + unwrapped, rv[0], rv[1]],
        });
        if keep_frames {
            frames.push(sim.frame());
        }
        if sim.has_fallen_below(fall_fraction) {
            fell = true;
            break;
        }
        if walk.is_some_and(|w| footfalls.len() as u32 > w.steps) {
            break;
        }
    }
    let mut terms: Vec<(String, f64)> = Vec::new();
    if let Some(f) = sim.failure() {
        terms.push((format!("simulation failed: {f}"), 2.0 * FAIL_PENALTY));
    } else if let Some(w) = walk {
        // Footfalls after the first (the first foot leaving and striking) complete steps.
        let completed = footfalls.len().saturating_sub(1) as u32;
        if fell || completed < w.steps {
            let t_end = records.last().map(|r| r.time).unwrap_or(0.0);
            let what = if fell {
                format!("fell at {t_end:.2} s")
            } else {
                format!("only {completed} steps in {t_end:.1} s")
            };
            let since = t_end - footfall_times.last().copied().unwrap_or(0.0);
            terms.push((
                format!("{what} after {completed} of {} steps", w.steps),
                super::walk_fall_penalty(completed, w.steps, since),
            ));
        }
    } else if fell {
        // A large constant that shrinks with the progress made before the fall (as the walk
        // ramp of §7.1), so that preparing a seed has a gradient: 1000 at t = 0 down to
        // 500. Progress is the time fraction; with `stand` it is the phases reached (first
        // half) and then the time the last phase was held (second half), so that delaying a
        // motion earns nothing.
        let t_fall = records.last().map(|r| r.time).unwrap_or(0.0);
        let progress = match stand {
            None => t_fall / task.seconds.max(1e-3),
            Some(s) => match ctrl.log.iter().find(|r| r.index == last_phase) {
                Some(r) => 0.5 + 0.5 * (t_fall - r.start) / s,
                None => {
                    0.5 * ctrl.log.last().map(|r| r.index).unwrap_or(0) as f32
                        / last_phase.max(1) as f32
                }
            },
        };
        terms.push((
            format!("fell at {t_fall:.2} s"),
            FAIL_PENALTY * (1.0 - 0.5 * progress.clamp(0.0, 1.0) as f64),
        ));
    }
    if stand.is_some()
        && !fell
        && sim.failure().is_none()
        && !ctrl.log.iter().any(|r| r.index == last_phase)
    {
        let name = def.phases.last().map(|p| p.name.as_str()).unwrap_or("");
        terms.push((format!("last phase {name:?} never started"), FAIL_PENALTY));
    }
    // Feet centre at the end, and where the controller's `Touchdown` phase ended.
    let feet = &foot_bodies;
    let feet_centre = |r: &Record| {
        let (mut x, mut z) = (0.0, 0.0);
        for &f in feet {
            x += r.positions[f][0];
            z += r.positions[f][2];
        }
        [x / feet.len() as f32, z / feet.len() as f32]
    };
    let landing = match records.last() {
        Some(r) if !feet.is_empty() => feet_centre(r),
        _ => [0.0, 0.0],
    };
    let rotation = unwrapped.to_degrees();
    let end_offset = records
        .last()
        .map(|r| (r.com[0] - landing[0]).hypot(r.com[2] - landing[1]))
        .unwrap_or(f32::INFINITY);
    let touchdown = ctrl
        .log
        .iter()
        .find(|r| {
            def.phases
                .get(r.index)
                .is_some_and(|p| p.end == crate::control::phase::Transition::Touchdown)
                && r.end.is_some()
                && !r.timed_out
        })
        .and_then(|r| {
            records
                .iter()
                .find(|rec| rec.time >= r.end.unwrap_or(f32::MAX))
        })
        .filter(|_| !feet.is_empty())
        .map(feet_centre);
    let summary = Summary {
        landing,
        touchdown,
        rotation,
        max_pitch_deviation: max_pitch_dev.to_degrees(),
        peak_height: peak,
        end_offset,
        obstacle_contact,
        steps: walk_steps,
        max_tilt: max_tilt.to_degrees(),
    };
    for c in &task.def.constraints {
        if let Some(t) = constraint_penalty(c, &summary) {
            terms.push(t);
        }
    }
    // Phase-normalized samples.
    let log = ctrl.log.clone();
    let mut sample_times = Vec::new();
    let n = task.def.samples_per_phase;
    for name in &task.def.sampled_phases {
        // Jumps: the phase's (only) occurrence; walks: its last complete occurrence, one
        // representative stride of the evaluated steps (the paper's §4.1 leaves this open).
        let complete = |r: &&PhaseRecord| r.name == *name && r.end.is_some() && !r.timed_out;
        let found = if walk.is_some() {
            log.iter().rev().find(complete)
        } else {
            log.iter().find(complete)
        };
        match found {
            Some(r) => {
                let (s, e) = (r.start, r.end.unwrap());
                for k in 0..n {
                    sample_times.push(s + (k as f32 + 0.5) / n as f32 * (e - s));
                }
            }
            None => {
                terms.push((format!("phase {name:?} did not happen"), FAIL_PENALTY));
                let t = records.last().map(|r| r.time).unwrap_or(0.0);
                sample_times.extend(std::iter::repeat_n(t, n));
            }
        }
    }
    let features = features(&character, metric, &records, &sample_times);
    // `+ 0.0` turns the empty sum (−0.0) into 0.
    let penalty = terms.iter().map(|t| t.1).sum::<f64>() + 0.0;
    TaskRun {
        evaluation: Evaluation {
            penalty,
            terms,
            features,
            shape: shape::link_lengths(&character)
                .into_iter()
                .map(f64::from)
                .collect(),
            hash: hasher.finish(),
            fell,
            phases: log,
            landing,
            peak_height: if peak.is_finite() { peak } else { 0.0 },
            rotation,
            steps: summary.steps,
            max_tilt: summary.max_tilt,
        },
        frames,
        character,
    }
}

/// What the constraints look at, from one rollout.
#[derive(Clone, Debug, PartialEq)]
pub struct Summary {
    /// Feet centre (x, z) at the end, m.
    pub landing: [f32; 2],
    /// Feet centre (x, z) when the character first touches the ground after a flight, m.
    /// Landing constraints hold at touchdown and at the end: a jump must land in its region
    /// and stay there (not land short and walk in).
    pub touchdown: Option<[f32; 2]>,
    /// Total root rotation about z, degrees.
    pub rotation: f32,
    /// Largest |root pitch − start pitch|, degrees.
    pub max_pitch_deviation: f32,
    /// Peak centre-of-mass height above the ground, m.
    pub peak_height: f32,
    /// Horizontal distance of the centre of mass from the feet's centre at the end, m.
    pub end_offset: f32,
    /// Time any body spent touching an obstacle, s.
    pub obstacle_contact: f32,
    /// Walks: the evaluated steps (forward x, lateral z), m.
    pub steps: Vec<[f32; 2]>,
    /// Walks: the largest tilt from vertical of the `Upright` bodies over the evaluated steps,
    /// degrees.
    pub max_tilt: f32,
}

/// Penalty of one constraint (Agrawal et al. 2014, §7.1): 0 inside, K‖d‖² outside with K = 5000 and
/// d the Euclidean violation (angles in radians), plus [`VIOLATION_OFFSET`] so that any violation,
/// however small, outweighs what diversity can gain (the round-robin search then ends with
/// penalties of exactly 0); a missed rotation adds the large constant. Returns a description and
/// the value when violated.
pub fn constraint_penalty(c: &Constraint, s: &Summary) -> Option<(String, f64)> {
    match c {
        Constraint::LandingBox { center, half_size } => {
            let d2 = |p: [f32; 2]| {
                let dx = ((p[0] - center[0]).abs() - half_size[0]).max(0.0) as f64;
                let dz = ((p[1] - center[1]).abs() - half_size[1]).max(0.0) as f64;
                dx * dx + dz * dz
            };
            landing_term("box", s, |p| d2(p).sqrt())
        }
        Constraint::LandingCircle { center, radius } => landing_term("circle", s, |p| {
            ((p[0] - center[0]).hypot(p[1] - center[1]) - radius).max(0.0) as f64
        }),
        Constraint::Rotation { min_degrees } => {
            let deficit = (min_degrees - s.rotation).max(0.0) as f64;
            // A large constant (§7.1) plus a quadratic term, so preparing a seed has a
            // gradient towards the full turn.
            (deficit > 0.0).then(|| {
                let r = deficit.to_radians();
                (
                    format!("rotation {:.0}° short of {min_degrees}°", deficit),
                    FAIL_PENALTY + VIOLATION_WEIGHT * r * r,
                )
            })
        }
        Constraint::PitchLimit { max_degrees } => {
            let excess = (s.max_pitch_deviation - max_degrees).max(0.0) as f64;
            (excess > 0.0).then(|| {
                let r = excess.to_radians();
                (
                    format!("pitch {excess:.0}° over the limit"),
                    VIOLATION_OFFSET + VIOLATION_WEIGHT * r * r,
                )
            })
        }
        Constraint::PeakHeight { min } => {
            let d = (min - s.peak_height).max(0.0) as f64;
            (d > 0.0).then(|| {
                (
                    format!("peak {d:.3} m too low"),
                    VIOLATION_OFFSET + VIOLATION_WEIGHT * d * d,
                )
            })
        }
        Constraint::EndBalanced { max_offset } => {
            let d = (s.end_offset - max_offset).max(0.0) as f64;
            (d > 0.0).then(|| {
                (
                    format!("centre of mass {d:.3} m too far from the feet at the end"),
                    VIOLATION_OFFSET + VIOLATION_WEIGHT * d * d,
                )
            })
        }
        Constraint::StepWindow { center, half_size } => {
            let mut total = 0.0;
            let mut worst = 0.0f64;
            let mut count = 0;
            for st in &s.steps {
                let dx = ((st[0] - center[0]).abs() - half_size[0]).max(0.0) as f64;
                let dz = ((st[1] - center[1]).abs() - half_size[1]).max(0.0) as f64;
                let d2 = dx * dx + dz * dz;
                if d2 > 0.0 {
                    total += VIOLATION_OFFSET + VIOLATION_WEIGHT * d2;
                    worst = worst.max(d2.sqrt());
                    count += 1;
                }
            }
            (count > 0).then(|| {
                (
                    format!("{count} steps outside the step window (worst by {worst:.3} m)"),
                    total,
                )
            })
        }
        Constraint::Upright { max_degrees, .. } => {
            let excess = (s.max_tilt - max_degrees).max(0.0) as f64;
            (excess > 0.0).then(|| {
                let r = excess.to_radians();
                (
                    format!("tilted {excess:.1}° past upright"),
                    VIOLATION_OFFSET + VIOLATION_WEIGHT * r * r,
                )
            })
        }
        Constraint::ClearObstacles => {
            let t = s.obstacle_contact as f64;
            (t > 0.0).then(|| {
                (
                    format!("touched an obstacle for {t:.3} s"),
                    VIOLATION_OFFSET + VIOLATION_WEIGHT * t * t,
                )
            })
        }
    }
}

/// The landing penalty: the larger of the end's and the touchdown's distance d outside the
/// region, 1 + 5000·d² (Agrawal et al. 2014, §7.1).
fn landing_term(
    region: &str,
    s: &Summary,
    outside: impl Fn([f32; 2]) -> f64,
) -> Option<(String, f64)> {
    let end = outside(s.landing);
    let first = s.touchdown.map(&outside).unwrap_or(0.0);
    let d = end.max(first);
    (d > 0.0).then(|| {
        let when = if first > end { "touchdown" } else { "landing" };
        (
            format!("{when} {d:.3} m outside the {region}"),
            VIOLATION_OFFSET + VIOLATION_WEIGHT * d * d,
        )
    })
}

/// Per-step pose data for the motion features (public for tests and tools).
pub(crate) fn features(
    c: &crate::model::Character,
    metric: Metric,
    records: &[Record],
    times: &[f32],
) -> Vec<f64> {
    let mut out = Vec::new();
    if records.is_empty() {
        return out;
    }
    let hf: Vec<usize> = c
        .end_effectors
        .iter()
        .filter(|e| matches!(e.tag, EffectorTag::Hand | EffectorTag::Foot))
        .filter_map(|e| c.body_index(&e.body))
        .collect();
    let total_mass: f64 = c.bodies.iter().map(|b| b.mass as f64).sum();
    let per_sample = 1.0 / (times.len().max(1) as f64).sqrt();
    for &t in times {
        // Linear interpolation between the recorded steps around t.
        let k = records
            .partition_point(|r| r.time < t)
            .min(records.len() - 1);
        let (a, b, w) = if k == 0 {
            (&records[0], &records[0], 0.0)
        } else {
            let (a, b) = (&records[k - 1], &records[k]);
            let w = if b.time > a.time {
                ((t - a.time) / (b.time - a.time)).clamp(0.0, 1.0)
            } else {
                0.0
            };
            (a, b, w)
        };
        let lerp = |x: f32, y: f32| (x + (y - x) * w) as f64 * per_sample;
        let com = [
            lerp(a.com[0], b.com[0]),
            lerp(a.com[1], b.com[1]),
            lerp(a.com[2], b.com[2]),
        ];
        match metric {
            Metric::Md => {
                for (i, body) in c.bodies.iter().enumerate() {
                    let s = (body.mass as f64 / total_mass).sqrt();
                    for d in 0..3 {
                        out.push(s * (lerp(a.positions[i][d], b.positions[i][d]) - com[d]));
                    }
                }
            }
            Metric::Hf => {
                for &i in &hf {
                    for d in 0..3 {
                        out.push(lerp(a.positions[i][d], b.positions[i][d]) - com[d]);
                    }
                }
            }
            Metric::Wja => {
                for (x, y) in a.angles.iter().zip(&b.angles) {
                    out.push(lerp(*x, *y));
                }
                for d in 0..3 {
                    out.push(lerp(a.root[d], b.root[d]));
                }
            }
        }
    }
    out
}
