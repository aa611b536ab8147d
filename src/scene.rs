//! Scenes: a character file plus the world it is simulated in (ground, PD mode, duration,
//! scripted pushes). Tasks and their constraints (specs/002_003.md B1.8) extend this format.
//! Paths inside a scene are relative to the scene file.

use crate::model::{Character, ModelError, Problem, load_character, parse_validated, read_text};
use crate::sim::{GroundSettings, PdMode, Push, SimSettings};
use serde::{Deserialize, Serialize};
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
    /// A Pareto jump over the task (specs/000.md §1.6): head body, effort weights, assist range,
    /// height bins and hypervolume reference.
    #[serde(default)]
    pub pareto: Option<crate::pareto::JumpDef>,
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
    #[error("{}: task: {message}", scene.display())]
    Task { scene: PathBuf, message: String },
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
        loaded.task(false).map_err(|message| SceneError::Task {
            scene: path.into(),
            message,
        })?;
    }
    if loaded.scene.pareto.is_some() {
        loaded.jump().map_err(|message| SceneError::Task {
            scene: path.into(),
            message,
        })?;
    }
    Ok(loaded)
}

impl LoadedScene {
    /// The scene's task resolved against its character (`shape_mode`: link lengths also free).
    pub fn task(&self, shape_mode: bool) -> Result<crate::task::Task, String> {
        let def = self
            .scene
            .task
            .clone()
            .ok_or_else(|| format!("scene {:?} has no `task`", self.scene.name))?;
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

impl LoadedScene {
    /// The scene's Pareto jump (its `task` with the `pareto` section).
    pub fn jump(&self) -> Result<crate::pareto::JumpTask, String> {
        let def = self
            .scene
            .pareto
            .clone()
            .ok_or_else(|| format!("scene {:?} has no `pareto` section", self.scene.name))?;
        crate::pareto::JumpTask::new(self.task(false)?, def)
    }
}

/// Whether a RON file is a scene (it has a `character:` field naming a character file) rather
/// than a character (which has no such field).
pub fn is_scene_text(text: &str) -> bool {
    text.lines()
        .filter(|l| !l.trim_start().starts_with("//"))
        .any(|l| l.contains("character:"))
}
