//! The Bevy application: a thin layer of plugins over the science modules.
//!
//! The ECS holds view state only (camera, meshes, panel toggles); the simulation itself is a
//! [`crate::sim::Simulation`] in a resource, stepped at its own fixed rate, and long work runs as
//! [`crate::jobs`] on their own pool. The parts, each a plugin:
//! - [`workbench`]: the shell: layout, docks and toggles, who owns the viewport, the messages
//!   panels send one another, the session's jobs, figures and palettes, screenshots;
//! - the core the panels share: [`viewport`] (orbit camera, lights, ground), [`character`] (the
//!   live simulation, its skinned mesh, hot reload, its controls and status), [`input`] (keys,
//!   gamepad and clicks: pushes, play/pause, reset, step) and [`overlays`] (colliders, centre of
//!   mass and support polygon, contacts, torque saturation);
//! - the panels, one folder each, registered in one list ([`panels!`]); each panel's module
//!   docs say what it does (the Jobs panel, Diversity, Gait, Library, Steering, Pareto, the
//!   character editor, Keys-to-Sim).
//!
//! A panel imports the workbench and the core, never another panel: hand-offs are messages
//! ([`workbench::PlayClip`], [`workbench::ClaimStage`], [`workbench::OpenPanel`]).

pub mod character;
pub mod input;
pub mod overlays;
pub mod viewport;
pub mod workbench;

use bevy::prelude::*;

/// The workbench's panels, one line each: the launch options' field, the panel's module (declared
/// here) and its plugin (which takes the module's `Launch` options). Adding a panel is its folder
/// and a line here.
macro_rules! panels {
    ($($field:ident: $module:ident::$plugin:ident),* $(,)?) => {
        $( pub mod $module; )*

        /// Every panel's launch options.
        #[derive(clap::Args, Clone, Debug, Default)]
#[group(skip)]
        pub struct PanelOptions {
            $(
                #[command(flatten)]
                pub $field: $module::Launch,
            )*
        }

        fn add_panels(app: &mut App, options: &PanelOptions) {
            $( app.add_plugins($module::$plugin(options.$field.clone())); )*
        }
    };
}

panels! {
    jobs: jobs_panel::JobsPanelPlugin,
    diversity: diversity_panel::DiversityPanelPlugin,
    gait: gait_panel::GaitPanelPlugin,
    library: library::LibraryPlugin,
    steering: steering::SteeringPlugin,
    pareto: pareto_panel::ParetoPanelPlugin,
    editor: editor::EditorPlugin,
    track: track_panel::TrackPanelPlugin,
    synthesis: synthesis_panel::SynthesisPanelPlugin,
}

/// `motionlab gui`'s options: the screenshot's, the live simulation's and every panel's.
#[derive(clap::Args, Clone, Debug, Default)]
#[group(skip)]
pub struct LaunchOptions {
    #[command(flatten)]
    pub capture: workbench::capture::Capture,
    #[command(flatten)]
    pub live: character::Launch,
    #[command(flatten)]
    pub overlays: overlays::Launch,
    #[command(flatten)]
    pub panels: PanelOptions,
}

pub fn run(options: LaunchOptions) -> anyhow::Result<()> {
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
    .insert_resource(ClearColor(Color::srgb(0.62, 0.68, 0.75)))
    .add_plugins(workbench::WorkbenchPlugin {
        capture: options.capture.clone(),
    })
    .add_plugins((
        viewport::ViewportPlugin,
        character::CharacterPlugin(options.live.clone()),
        input::InputPlugin,
        overlays::OverlayPlugin(options.overlays.clone()),
    ));
    add_panels(&mut app, &options.panels);
    match app.run() {
        AppExit::Success => Ok(()),
        AppExit::Error(code) => anyhow::bail!("the app exited with code {code}"),
    }
}
