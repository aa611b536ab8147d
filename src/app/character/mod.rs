//! The live simulation shown in the viewport: loading (picker, dialog, hot reload), fixed-rate
//! stepping with play/pause/step/speed, and the skinned mesh driven by the simulated bodies,
//! shown while the live simulation owns the stage. Its controls (the left dock's character,
//! simulation and push sections) and the status bar are [`controls`]; the keys, buttons and
//! clicks that act on it are [`super::input`]'s.

mod controls;

use super::viewport::OrbitCamera;
use super::workbench::figures::{FigureAssets, Look, pose_to_transform, spawn_figure};
use super::workbench::{AddPanel, Clock, Dock, PanelSpec, STATUS_BAR};
use crate::model::{Character, load_character};
use crate::sim::HoldPose;
use crate::sim::{SimSettings, Simulation};
use bevy::prelude::*;
use std::path::{Path, PathBuf};
use std::time::SystemTime;

pub use super::workbench::files::characters_dir;

/// The live simulation's launch options.
#[derive(clap::Args, Resource, Clone, Debug, Default)]
#[group(skip)]
pub struct Launch {
    /// Character file to open.
    #[arg(long)]
    pub character: Option<PathBuf>,
}

pub struct CharacterPlugin(pub Launch);

/// The system that advances the live simulation; input that acts on it runs before it.
#[derive(SystemSet, Debug, Clone, PartialEq, Eq, Hash)]
pub struct StepSimulation;

impl Plugin for CharacterPlugin {
    fn build(&self, app: &mut App) {
        app.insert_resource(self.0.clone())
            .add_plugins(bevy::diagnostic::FrameTimeDiagnosticsPlugin::default())
            .add_systems(PreStartup, load_initial_character)
            .add_systems(Update, tell_camera)
            .add_panel(
                PanelSpec {
                    id: "live",
                    title: "Live simulation",
                    hover: "The character, its simulation and pushes",
                    dock: Dock::Left,
                    order: 0,
                    open: true,
                },
                controls::live_section,
            )
            .add_panel(
                PanelSpec {
                    id: STATUS_BAR,
                    title: "Status",
                    hover: "",
                    dock: Dock::Left,
                    order: -100,
                    open: true,
                },
                controls::status_bar,
            )
            .add_systems(
                Update,
                (
                    hot_reload,
                    load_requested,
                    rebuild_visual,
                    step_simulation.in_set(StepSimulation),
                    sync_bones,
                )
                    .chain(),
            );
    }
}

/// The simulation on screen and its playback controls.
#[derive(Resource)]
pub struct LiveSim {
    pub sim: Simulation,
    pub character: Character,
    pub path: Option<PathBuf>,
    pub modified: Option<SystemTime>,
    pub settings: SimSettings,
    pub controller: HoldPose,
    pub playing: bool,
    /// Simulated seconds per real second (0.1 to 4).
    pub speed: f32,
    pub accumulator: f64,
    /// Impulse of a push, N·s.
    pub push_impulse: f32,
    /// Last status message (loads, reload errors, pushes).
    pub message: String,
    /// Increases whenever the character changes, so the visual is rebuilt.
    pub generation: u64,
    pub single_step: bool,
    /// Body that was pushed last and when (for the push arrow overlay).
    pub last_push: Option<(usize, Vec3, f64)>,
}

impl LiveSim {
    pub fn new(
        character: Character,
        path: Option<PathBuf>,
        settings: SimSettings,
    ) -> anyhow::Result<Self> {
        let sim = Simulation::new(&character, settings)?;
        let modified = path.as_deref().and_then(mtime);
        Ok(LiveSim {
            sim,
            character,
            path,
            modified,
            settings,
            controller: HoldPose::reference(),
            playing: true,
            speed: 1.0,
            accumulator: 0.0,
            push_impulse: 60.0,
            message: String::new(),
            generation: 1,
            single_step: false,
            last_push: None,
        })
    }

    /// Rebuilds the simulation from the current character and settings (time back to 0).
    pub fn reset(&mut self) {
        match Simulation::new(&self.character, self.settings) {
            Ok(sim) => {
                self.sim = sim;
                self.accumulator = 0.0;
                self.last_push = None;
            }
            Err(e) => self.message = format!("reset failed: {e}"),
        }
    }

    /// Replaces the character (keeps the old one if the new one cannot be simulated).
    pub fn replace(&mut self, character: Character, path: Option<PathBuf>) {
        match Simulation::new(&character, self.settings) {
            Ok(sim) => {
                self.message = format!(
                    "loaded {}",
                    path.as_deref()
                        .map(|p| p.display().to_string())
                        .unwrap_or(character.name.clone())
                );
                self.sim = sim;
                self.character = character;
                self.modified = path.as_deref().and_then(mtime);
                self.path = path;
                self.accumulator = 0.0;
                self.generation += 1;
                self.last_push = None;
            }
            Err(e) => self.message = format!("cannot simulate {}: {e}", character.name),
        }
    }

    /// Pushes body `i` along `dir` (normalized here) with the current impulse.
    pub fn push(&mut self, body: usize, dir: Vec3) {
        let d = dir.normalize_or_zero();
        let mut d = d;
        if self.character.root.kind == crate::model::RootKind::Planar {
            d.z = 0.0;
            d = d.normalize_or(Vec3::X);
        }
        self.sim.push(body, (d * self.push_impulse).to_array(), 0.1);
        self.last_push = Some((body, d, self.sim.time()));
        self.message = format!(
            "pushed {} with {:.0} N·s",
            self.character.bodies[body].name, self.push_impulse
        );
    }

    /// Index of the heaviest body (the trunk), the default push target.
    pub fn heaviest_body(&self) -> usize {
        self.character
            .bodies
            .iter()
            .enumerate()
            .max_by(|a, b| a.1.mass.total_cmp(&b.1.mass))
            .map(|x| x.0)
            .unwrap_or(0)
    }
}

fn mtime(p: &Path) -> Option<SystemTime> {
    std::fs::metadata(p).and_then(|m| m.modified()).ok()
}

/// A load asked for by the panels (picker or file dialog).
#[derive(Resource, Default)]
pub struct LoadRequest(pub Option<PathBuf>);

fn load_initial_character(mut commands: Commands, options: Res<Launch>) {
    let requested = options.character.clone();
    let default = characters_dir().join("human3d.ron");
    let path = requested.clone().unwrap_or(default);
    let (character, path, message) = match load_character(&path) {
        Ok(c) => (c, Some(path), String::new()),
        Err(e) => {
            // Fall back to the built-in human so the window still opens; say why.
            let fallback = characters_dir().join("human3d.ron");
            match load_character(&fallback) {
                Ok(c) => (c, Some(fallback), format!("{e}")),
                Err(e2) => {
                    error!("no character could be loaded: {e}; {e2}");
                    (minimal_character(), None, format!("{e}"))
                }
            }
        }
    };
    let mut live = match LiveSim::new(character, path, SimSettings::default()) {
        Ok(live) => live,
        Err(e) => {
            let mut live = LiveSim::new(minimal_character(), None, SimSettings::default())
                .expect("the one-box character simulates");
            live.message = format!("cannot simulate the character: {e}");
            live
        }
    };
    if !message.is_empty() {
        live.message = message;
    }
    commands.insert_resource(live);
    commands.init_resource::<LoadRequest>();
}

/// A single box, used only when no character file can be read at all.
fn minimal_character() -> Character {
    crate::files::from_ron(
        r#"(name: "box", root: (body: "pelvis", kind: Free),
            bodies: [(name: "pelvis", shape: Box(half_extents: (0.2, 0.2, 0.2)), mass: 10.0, position: (0.0, 0.2, 0.0))])"#,
    )
    .expect("valid literal")
}

fn hot_reload(mut live: ResMut<LiveSim>, time: Res<Time>, mut last_check: Local<f32>) {
    *last_check += time.delta_secs();
    if *last_check < 0.5 {
        return;
    }
    *last_check = 0.0;
    let Some(path) = live.path.clone() else {
        return;
    };
    let now = mtime(&path);
    if now.is_some() && now != live.modified {
        live.modified = now;
        match load_character(&path) {
            Ok(c) => {
                live.replace(c, Some(path.clone()));
                live.message = format!("reloaded {}", path.display());
            }
            Err(e) => live.message = format!("reload failed, keeping the previous character: {e}"),
        }
    }
}

fn load_requested(mut live: ResMut<LiveSim>, mut request: ResMut<LoadRequest>) {
    if let Some(path) = request.0.take() {
        match load_character(&path) {
            Ok(c) => live.replace(c, Some(path)),
            Err(e) => live.message = format!("{e}"),
        }
    }
}

#[derive(Component)]
pub struct Bone(pub usize);

#[derive(Component)]
pub struct CharacterSkin;

fn rebuild_visual(
    mut commands: Commands,
    live: Res<LiveSim>,
    mut built: Local<u64>,
    old: Query<Entity, Or<(With<Bone>, With<CharacterSkin>)>>,
    mut assets: FigureAssets,
) {
    if *built == live.generation {
        return;
    }
    *built = live.generation;
    for e in &old {
        commands.entity(e).despawn();
    }
    spawn_figure(
        &mut commands,
        &mut assets,
        &live.character,
        |i| (Bone(i), pose_to_transform(live.sim.body_pose(i))),
        CharacterSkin,
        Look::Solid([1.0, 1.0, 1.0]),
    );
}

/// The camera follows the live character's centre of mass, over its ground; a screenshot's
/// report names the live character and counts its bones on show.
fn tell_camera(
    live: Res<LiveSim>,
    mut orbit: ResMut<OrbitCamera>,
    bones: Query<&Bone>,
    mut report: ResMut<super::workbench::capture::ShotReport>,
) {
    let c = live.sim.com();
    orbit.live = Some(Vec3::new(c[0], c[1], c[2]));
    orbit.ground = live.sim.ground_height();
    report.figures.insert("live".into(), bones.iter().count());
    report
        .labels
        .insert("live.character".into(), live.character.name.clone());
    if let Some(p) = &live.path {
        report
            .labels
            .insert("live.file".into(), p.display().to_string());
    }
}

fn step_simulation(mut live: ResMut<LiveSim>, time: Res<Time>, clock: Res<Clock>) {
    let live = &mut *live;
    let dt = live.settings.dt as f64;
    let mut steps = 0usize;
    if live.single_step {
        live.single_step = false;
        steps = 1;
    } else if live.playing {
        live.accumulator += clock.dt(&time, 0.1) * live.speed as f64;
        steps = (live.accumulator / dt).floor() as usize;
        live.accumulator -= steps as f64 * dt;
        steps = steps.min(64);
    }
    let mut targets = live.sim.targets().to_vec();
    let live = &mut *live;
    for _ in 0..steps {
        live.sim.step_controlled(&mut live.controller, &mut targets);
    }
}

fn sync_bones(live: Res<LiveSim>, mut bones: Query<(&Bone, &mut Transform)>) {
    for (b, mut t) in &mut bones {
        if b.0 < live.character.bodies.len() {
            *t = pose_to_transform(live.sim.body_pose(b.0));
        }
    }
}
