//! The Bevy application: a thin layer of plugins over the science modules (DESIGN.md "App").
//!
//! The ECS holds view state only (camera, meshes, panel toggles); the simulation itself is a
//! [`crate::sim::Simulation`] in a resource, stepped at its own fixed rate, and long work runs as
//! [`crate::jobs`] on their own pool. Plugins, one per concern:
//! - [`viewport::ViewportPlugin`]: orbit camera (mouse and gamepad), lights, shadows, ground grid;
//! - [`character::CharacterPlugin`]: the live simulation, its skinned mesh, hot reload;
//! - [`input::InputPlugin`]: keys, gamepad and clicks: pushes, play/pause, reset, step;
//! - [`overlays::OverlayPlugin`]: colliders, centre of mass and support polygon, contacts,
//!   torque saturation;
//! - [`panels::PanelsPlugin`]: character picker, simulation controls, push, status bar;
//! - [`jobs_panel::JobsPanelPlugin`]: background jobs with progress, cancel and the polar plot;
//! - [`diversity_panel::DiversityPanelPlugin`]: exploration jobs, live plots, the gallery of
//!   motions side by side, filmstrip, save and load sets;
//! - [`gait_panel::GaitPanelPlugin`]: spacetime gaits (specs/004.md §1.2–1.3): creature, speed,
//!   footfall bars or discovery, background solve with live plots, footfall diagram, audit, the
//!   gait playing in side and front views, save and load clips;
//! - [`library::LibraryPlugin`]: every clip of `assets/` and `results/`, played on skinned
//!   characters side by side or as ghosts, with a timeline and BVH export;
//! - [`steering::SteeringPlugin`]: the human steered through its motion graph with keyboard or
//!   gamepad, its trajectories, the graph and its distance map;
//! - [`pareto_panel::ParetoPanelPlugin`]: Pareto fronts of jump height against effort (RMOO,
//!   BSOO), live front and hypervolume, the Table 4.2 columns, jumps played as ghosts with the
//!   assist drawn;
//! - [`editor::EditorPlugin`]: the character editor (bodies, joints with their limit arcs, pads,
//!   structure, mirror, undo/redo, save), live re-simulation with a standing verdict and the
//!   physics lint, and characters built from dropped skinned glTF or BVH files;
//! - [`screenshot::ScreenshotPlugin`]: `--screenshot FILE --frames N`.

pub mod character;
pub mod diversity_panel;
pub mod editor;
pub mod gait_panel;
pub mod input;
pub mod jobs_panel;
pub mod library;
pub mod overlays;
pub mod panels;
pub mod pareto_panel;
pub mod screenshot;
pub mod skin;
pub mod steering;
pub mod viewport;

use bevy::prelude::*;
use std::path::PathBuf;

/// Command-line options of the GUI.
#[derive(Clone, Debug, Default, Resource)]
pub struct AppOptions {
    pub character: Option<PathBuf>,
    pub screenshot: Option<PathBuf>,
    pub frames: u32,
    pub start_sweep: bool,
    /// Overlays to show at start (names as in [`overlays::Overlays::from_names`]).
    pub overlays: Option<Vec<String>>,
    /// Scene whose task is explored at launch (shows the Diversity panel).
    pub explore: Option<PathBuf>,
    /// Result set shown in the Diversity panel at launch.
    pub explore_result: Option<PathBuf>,
    /// Motion of `explore_result` played in the Library at launch (its "play in Library").
    pub play_motion: Option<usize>,
    /// Gait clip shown (playing) in the Gait panel at launch.
    pub gait: Option<PathBuf>,
    /// Character file whose gait discovery starts in the Gait panel at launch, at `gait_speed`.
    pub discover_gait: Option<PathBuf>,
    pub gait_speed: f64,
    /// Clips selected in the Library panel at launch (shown side by side).
    pub clips: Vec<PathBuf>,
    /// Motion graph steered in the Steering view at launch.
    pub steer: Option<PathBuf>,
    /// Stick timeline that drives the Steering view instead of the controls.
    pub steer_script: Option<PathBuf>,
    /// Start the Steering view in physics playback.
    pub steer_physics: bool,
    /// Times of the steered run (s) at which a ball is thrown at the character.
    pub throw_at: Vec<f64>,
    /// Scene whose Pareto front is grown at launch (shows the Pareto panel).
    pub pareto: Option<PathBuf>,
    /// Pareto results opened in the Pareto panel at launch: every one's hypervolume is plotted
    /// (RMOO against BSOO side by side), the last one's front is shown.
    pub pareto_result: Vec<PathBuf>,
    /// Front points of `pareto_result` playing at launch (the first opaque, the rest ghosts).
    pub pareto_points: Vec<usize>,
    /// File opened in the character editor at launch (character, skinned glTF or BVH).
    pub edit: Option<PathBuf>,
    /// Body selected in the editor at launch.
    pub edit_select: Option<String>,
    /// Edits applied in the editor at launch (RON list).
    pub edit_script: Option<PathBuf>,
    /// Animation of the imported skeleton transferred to a clip at launch.
    pub edit_transfer: Option<String>,
    /// A handle of the selected body dragged by script at launch.
    pub edit_drag: Option<editor::ScriptedDrag>,
}

/// The scene files (`scenes/`, or the source tree's when run elsewhere) whose text contains
/// `marker` (`task:` for tasks, `pareto:` for Pareto jumps), sorted.
pub fn scene_files_with(marker: &str) -> Vec<PathBuf> {
    let local = PathBuf::from("scenes");
    let dir = if local.is_dir() {
        local
    } else {
        PathBuf::from(concat!(env!("CARGO_MANIFEST_DIR"), "/scenes"))
    };
    let mut files: Vec<PathBuf> = std::fs::read_dir(dir)
        .map(|rd| {
            rd.filter_map(|e| e.ok())
                .map(|e| e.path())
                .filter(|p| p.extension().is_some_and(|x| x == "ron"))
                .filter(|p| {
                    std::fs::read_to_string(p)
                        .map(|t| t.contains(marker))
                        .unwrap_or(false)
                })
                .collect()
        })
        .unwrap_or_default();
    files.sort();
    files
}

/// Converts a science-side pose [x, y, z, qx, qy, qz, qw] to a Bevy transform.
/// A character-file vector (f64) in the viewport's f32.
pub fn model_vec3(v: [f64; 3]) -> Vec3 {
    Vec3::new(v[0] as f32, v[1] as f32, v[2] as f32)
}

pub fn pose_to_transform(p: [f32; 7]) -> Transform {
    Transform::from_translation(Vec3::new(p[0], p[1], p[2]))
        .with_rotation(Quat::from_xyzw(p[3], p[4], p[5], p[6]))
}

pub fn run(options: AppOptions) -> anyhow::Result<()> {
    let screenshot_mode = options.screenshot.is_some();
    let overlays = match &options.overlays {
        Some(names) => overlays::Overlays::from_names(names)?,
        None => overlays::Overlays::default(),
    };
    let mut app = App::new();
    app.add_plugins(
        DefaultPlugins
            .set(WindowPlugin {
                primary_window: Some(Window {
                    title: "motionlab".into(),
                    resolution: (1600u32, 900u32).into(),
                    ..default()
                }),
                ..default()
            })
            .set(bevy::log::LogPlugin {
                level: bevy::log::Level::WARN,
                ..default()
            }),
    )
    .add_plugins(bevy_egui::EguiPlugin::default())
    .insert_resource(options)
    .insert_resource(overlays)
    .insert_resource(ClearColor(Color::srgb(0.62, 0.68, 0.75)))
    .add_plugins((
        viewport::ViewportPlugin,
        character::CharacterPlugin,
        input::InputPlugin,
        overlays::OverlayPlugin,
        panels::PanelsPlugin,
        jobs_panel::JobsPanelPlugin,
        diversity_panel::DiversityPanelPlugin,
        gait_panel::GaitPanelPlugin,
        library::LibraryPlugin,
        steering::SteeringPlugin,
        pareto_panel::ParetoPanelPlugin,
        editor::EditorPlugin,
    ));
    if screenshot_mode {
        app.add_plugins(screenshot::ScreenshotPlugin);
    }
    let exit = app.run();
    match exit {
        AppExit::Success => Ok(()),
        AppExit::Error(code) => anyhow::bail!("the app exited with code {code}"),
    }
}
