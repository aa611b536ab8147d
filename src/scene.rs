//! Scenes: a character file plus the world it is simulated in (ground, PD mode, duration,
//! scripted pushes). Tasks and their constraints (Agrawal et al. 2014, §6, §7.1) extend this format.
//! Paths inside a scene are relative to the scene file.

use crate::model::{Character, ModelError, Problem, load_character, parse_validated, read_text};
use crate::sim::{GroundSettings, PdMode, Push, SimSettings};
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Scene {
    pub name: String,
    #[serde(default)]
    pub description: String,
    /// Character file, relative to the scene file.
    pub character: String,
    #[serde(default)]
    pub ground: GroundSettings,
    #[serde(default)]
    pub pd: PdMode,
    /// Time step in seconds; the PD mode's default when absent.
    #[serde(default)]
    pub dt: Option<f32>,
    #[serde(default = "default_seconds")]
    pub seconds: f32,
    /// Solver substeps and sweeps per substep (default 1 × 8). Tasks use 1 × 12: the multibody
    /// mass matrices are rebuilt every substep, so this is 1.8 times faster while feet still hold
    /// within 3 mm over 10 s (1 × 4 lets the 2D human collapse).
    #[serde(default)]
    pub solver: Option<(usize, usize)>,
    #[serde(default)]
    pub pushes: Vec<ScenePush>,
    /// Static boxes on the ground (jump onto, jump over).
    #[serde(default)]
    pub obstacles: Vec<Obstacle>,
    /// A motion task: seed controller, free parameters, constraints, metric.
    #[serde(default)]
    pub task: Option<crate::task::TaskDef>,
    /// A Pareto jump over the task (Agrawal 2015, thesis ch. 4): head body, effort weights,
    /// assist range, height bins and hypervolume reference.
    #[serde(default)]
    pub pareto: Option<JumpDef>,
}

/// The `pareto:` section of a scene: what the jump measures and the settings of Agrawal's
/// Pareto search (2015, thesis ch. 4); resolved by `pareto::JumpTask`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct JumpDef {
    /// The body whose centre's peak height is the jump height h_p.
    pub head: String,
    /// Raw Table 4.1 weights by joint (a name without `l_`/`r_` covers both sides).
    pub effort_weights: BTreeMap<String, f64>,
    /// Largest take-off gravity g₀, m/s² (positive: the net pull points upwards; Table 4.3
    /// reaches +4.2).
    #[serde(default = "default_max_g0")]
    pub max_g0: f32,
    /// Longest assist T, s.
    #[serde(default = "default_max_duration")]
    pub max_duration: f32,
    /// Seed values of the normalized assist coordinates (v_g, v_T).
    #[serde(default = "default_seed_assist")]
    pub seed_assist: (f64, f64),
    /// w_se / w_je (5000 in all the thesis's experiments).
    #[serde(default = "default_assist_weight")]
    pub assist_weight: f64,
    /// w_p of C_h (5000).
    #[serde(default = "default_height_weight")]
    pub height_weight: f64,
    /// f_p, the constant failure penalty (100,000).
    #[serde(default = "default_failure_penalty")]
    pub failure_penalty: f64,
    /// BSOO: head heights (lowest, highest bin centre), m, split into `bins` targets h_o.
    pub heights: (f64, f64),
    #[serde(default = "default_bins")]
    pub bins: usize,
    /// Hypervolume reference point: (head height, log effort); points must be higher and
    /// cheaper to count.
    pub reference: (f64, f64),
}

fn default_max_g0() -> f32 {
    5.0
}
fn default_max_duration() -> f32 {
    1.0
}
fn default_seed_assist() -> (f64, f64) {
    (-0.05, 0.0)
}
fn default_assist_weight() -> f64 {
    5000.0
}
fn default_height_weight() -> f64 {
    5000.0
}
fn default_failure_penalty() -> f64 {
    100_000.0
}
fn default_bins() -> usize {
    16
}

/// What a scene's `pareto` section gets wrong on its own or against its character.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
pub enum JumpDefError {
    #[error("pareto.head names unknown body {head:?}")]
    UnknownHead { head: String },
    #[error("pareto.max_duration is {max_duration}, expected > 0")]
    MaxDuration { max_duration: f32 },
    #[error("pareto.heights {heights:?} with {bins} bins: expected lowest < highest and bins ≥ 1")]
    Heights { heights: (f64, f64), bins: usize },
}

impl JumpDef {
    /// What the section gets wrong on its own or against `character` (the head body, the
    /// assist's duration, the height bins); the effort weights and the take-off phase are
    /// checked when the jump is resolved.
    pub fn check(&self, character: &Character) -> Result<(), JumpDefError> {
        if character.body_index(&self.head).is_none() {
            return Err(JumpDefError::UnknownHead {
                head: self.head.clone(),
            });
        }
        if !(self.max_duration > 0.0 && self.max_duration.is_finite()) {
            return Err(JumpDefError::MaxDuration {
                max_duration: self.max_duration,
            });
        }
        if self.bins == 0
            || self.heights.0.partial_cmp(&self.heights.1) != Some(std::cmp::Ordering::Less)
        {
            return Err(JumpDefError::Heights {
                heights: self.heights,
                bins: self.bins,
            });
        }
        Ok(())
    }
}

fn default_seconds() -> f32 {
    10.0
}

/// The longest simulation a scene may ask for, s (72,000 steps at 120 Hz), so that no typo runs
/// forever.
pub const MAX_SECONDS: f32 = 600.0;

/// The largest ground friction coefficient accepted (rubber on concrete is about 1).
pub const MAX_FRICTION: f32 = 10.0;

/// The largest scripted push, N·s: the momentum of a 500 kg horse at 20 m/s.
pub const MAX_IMPULSE: f32 = 10_000.0;

/// The longest a push may be spread over, s.
pub const MAX_PUSH_SECONDS: f32 = 10.0;

/// Static boxes on the ground are part of the simulated world.
pub use crate::sim::Obstacle;

/// A scripted push: body by name, impulse in N·s (world frame).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ScenePush {
    pub time: f32,
    pub body: String,
    pub impulse: [f32; 3],
    #[serde(default = "default_push_duration")]
    pub duration: f32,
}

fn default_push_duration() -> f32 {
    0.1
}

/// A scene with its character loaded.
#[derive(Clone, Debug)]
pub struct LoadedScene {
    pub scene: Scene,
    pub path: PathBuf,
    pub character: Character,
    pub character_path: PathBuf,
}

impl LoadedScene {
    pub fn settings(&self) -> SimSettings {
        let mut s = SimSettings::for_mode(self.scene.pd);
        if let Some(dt) = self.scene.dt {
            s.dt = dt;
        }
        s.ground = self.scene.ground;
        if let Some((substeps, sweeps)) = self.scene.solver {
            s.solver_iterations = substeps;
            s.pgs_iterations = sweeps;
        }
        s
    }

    /// Pushes with body names resolved to indices (validated on load).
    pub fn pushes(&self) -> Vec<Push> {
        self.scene
            .pushes
            .iter()
            .map(|p| Push {
                time: p.time,
                body: self.character.body_index(&p.body).unwrap_or(0),
                impulse: p.impulse,
                duration: p.duration,
            })
            .collect()
    }
}

impl Scene {
    pub fn validate(&self) -> Vec<Problem> {
        let mut out = Vec::new();
        let mut push = |field: &str, message: String| out.push(Problem::new(None, field, message));
        if !(self.seconds > 0.0 && self.seconds <= MAX_SECONDS) {
            push(
                "seconds",
                format!(
                    "expected a duration in (0, {MAX_SECONDS}] s, found {}",
                    self.seconds
                ),
            );
        }
        if let Some((a, b)) = self.solver {
            if !(1..=16).contains(&a) || !(1..=64).contains(&b) {
                push(
                    "solver",
                    format!("expected (substeps 1..=16, sweeps 1..=64), found ({a}, {b})"),
                );
            }
        }
        if let Some(dt) = self.dt {
            if !(dt > 0.0 && dt <= 0.05) {
                push(
                    "dt",
                    format!("expected a time step in (0, 0.05] s, found {dt}"),
                );
            }
        }
        if !(0.0..=MAX_FRICTION).contains(&self.ground.friction) {
            push(
                "friction",
                format!(
                    "expected a friction in [0, {MAX_FRICTION}], found {}",
                    self.ground.friction
                ),
            );
        }
        if !(0.0..=1.0).contains(&self.ground.restitution) {
            push(
                "restitution",
                format!(
                    "expected a restitution in [0, 1], found {}",
                    self.ground.restitution
                ),
            );
        }
        for (i, o) in self.obstacles.iter().enumerate() {
            if !o.half_extents.iter().all(|h| *h > 0.0 && h.is_finite())
                || !o.center.iter().all(|c| c.is_finite())
            {
                push(
                    "obstacles",
                    format!("obstacle {i}: expected a finite centre and positive half extents"),
                );
            }
        }
        if let Some(task) = &self.task {
            out.extend(task.range_problems());
        }
        for (i, p) in self.pushes.iter().enumerate() {
            if !(p.time >= 0.0 && p.time.is_finite()) {
                out.push(Problem::indexed(
                    "pushes",
                    i,
                    "time",
                    format!(
                        "push on {:?}: expected a finite time >= 0 s, found {}",
                        p.body, p.time
                    ),
                ));
            }
            if !(p.duration > 0.0 && p.duration <= MAX_PUSH_SECONDS) {
                out.push(Problem::indexed(
                    "pushes",
                    i,
                    "duration",
                    format!(
                        "push on {:?}: expected a duration in (0, {MAX_PUSH_SECONDS}] s, found {}",
                        p.body, p.duration
                    ),
                ));
            }
            let magnitude = p.impulse.iter().map(|c| c * c).sum::<f32>().sqrt();
            if !(magnitude <= MAX_IMPULSE) {
                out.push(Problem::indexed(
                    "pushes",
                    i,
                    "impulse",
                    format!(
                        "push on {:?}: expected a finite impulse of at most {MAX_IMPULSE} N·s, \
                         found {:?}",
                        p.body, p.impulse
                    ),
                ));
            }
        }
        out
    }
}

#[derive(Debug, thiserror::Error)]
pub enum SceneError {
    #[error(transparent)]
    Scene(#[from] ModelError),
    #[error("{}: character {character:?}: {error}", scene.display())]
    Character {
        scene: PathBuf,
        character: String,
        error: ModelError,
    },
    #[error("{}: task: {error}", scene.display())]
    Task {
        scene: PathBuf,
        error: crate::task::TaskError,
    },
    #[error("{}: task: {error}", scene.display())]
    Jump { scene: PathBuf, error: JumpDefError },
    #[error("{}: push names body {body:?}, which {character:?} does not have", scene.display())]
    UnknownBody {
        scene: PathBuf,
        body: String,
        character: String,
    },
}

pub fn load_scene(path: &Path) -> Result<LoadedScene, SceneError> {
    let text = read_text(path)?;
    parse_scene(&text, path, load_character)
}

/// [`load_scene`] on text already read from `path`; `load_character` reads the character file
/// the scene names (resolved against the scene's folder).
pub fn parse_scene(
    text: &str,
    path: &Path,
    load_character: impl FnOnce(&Path) -> Result<Character, ModelError>,
) -> Result<LoadedScene, SceneError> {
    let scene: Scene = parse_validated(text, path, Scene::validate)?;
    let character_path = path
        .parent()
        .unwrap_or(Path::new("."))
        .join(&scene.character);
    let character = load_character(&character_path).map_err(|error| SceneError::Character {
        scene: path.into(),
        character: scene.character.clone(),
        error,
    })?;
    for p in &scene.pushes {
        if character.body_index(&p.body).is_none() {
            return Err(SceneError::UnknownBody {
                scene: path.into(),
                body: p.body.clone(),
                character: character.name.clone(),
            });
        }
    }
    let loaded = LoadedScene {
        scene,
        path: path.into(),
        character,
        character_path,
    };
    if loaded.scene.task.is_some() {
        loaded.task(false).map_err(|error| SceneError::Task {
            scene: path.into(),
            error,
        })?;
    }
    if let Some(jump) = &loaded.scene.pareto {
        jump.check(&loaded.character)
            .map_err(|error| SceneError::Jump {
                scene: path.into(),
                error,
            })?;
    }
    Ok(loaded)
}

impl LoadedScene {
    /// The scene's task resolved against its character (`shape_mode`: link lengths also free).
    pub fn task(&self, shape_mode: bool) -> Result<crate::task::Task, crate::task::TaskError> {
        let def = self
            .scene
            .task
            .clone()
            .ok_or_else(|| crate::task::TaskError::NoTask {
                scene: self.scene.name.clone(),
            })?;
        let mut task = crate::task::Task::new(
            &self.scene.name,
            def,
            self.character.clone(),
            self.settings(),
            self.scene.seconds,
            shape_mode,
        )?;
        task.obstacles = self.scene.obstacles.clone();
        Ok(task)
    }
}

/// What a scene asks for beyond a simulation, read from its fields.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SceneKind {
    /// Every scene: a character in a world, simulated.
    Simulation,
    /// A motion task (`task:`), explored by the diversity search.
    Task,
    /// A Pareto jump (`pareto:`).
    Pareto,
}

/// The kinds one scene file is (every scene is a simulation).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct SceneKinds {
    pub task: bool,
    pub pareto: bool,
}

impl SceneKinds {
    pub fn contains(self, kind: SceneKind) -> bool {
        match kind {
            SceneKind::Simulation => true,
            SceneKind::Task => self.task,
            SceneKind::Pareto => self.pareto,
        }
    }

    /// The kinds of a parsed scene.
    pub fn of(scene: &Scene) -> Self {
        SceneKinds {
            task: scene.task.is_some(),
            pareto: scene.pareto.is_some(),
        }
    }
}

/// Reads `path` as a scene (parsed and validated, its character not loaded) and says what it
/// asks for.
pub fn scene_kind(path: &Path) -> Result<SceneKinds, SceneError> {
    let text = read_text(path)?;
    let scene: Scene = parse_validated(&text, path, Scene::validate)?;
    Ok(SceneKinds::of(&scene))
}

/// Whether RON text is a scene rather than a character: its top-level fields name a
/// `character` file (a character's do not). Comments and strings cannot fool it, since the text
/// is parsed; text that is not RON is neither.
pub fn is_scene_text(text: &str) -> bool {
    matches!(
        crate::files::from_ron::<ron::Value>(text),
        Ok(ron::Value::Map(m)) if m.keys().any(|k| *k == ron::Value::String("character".into()))
    )
}

#[cfg(test)]
mod kind_tests {
    use super::*;

    #[test]
    fn a_scene_is_told_from_a_character_by_its_fields_not_its_text() {
        assert!(is_scene_text(
            r#"(name: "s", character: "../characters/human2d.ron")"#
        ));
        // A character whose description mentions `character:` is still a character.
        assert!(!is_scene_text(
            r#"(name: "c", description: "not a character: file", root: (body: "b", kind: Free))"#
        ));
        assert!(!is_scene_text("// character: x\n(name: \"c\")"));
        assert!(!is_scene_text("not ron at all character:"));
    }

    #[test]
    fn shipped_scenes_have_their_kinds() {
        let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("scenes");
        let kind = |f: &str| scene_kind(&dir.join(f)).unwrap();
        assert_eq!(
            kind("pareto_jump2d.ron"),
            SceneKinds {
                task: true,
                pareto: true
            }
        );
        assert_eq!(
            kind("backflip2d.ron"),
            SceneKinds {
                task: true,
                pareto: false
            }
        );
        assert!(kind("backflip2d.ron").contains(SceneKind::Simulation));
        assert!(!kind("backflip2d.ron").contains(SceneKind::Pareto));
    }
}
