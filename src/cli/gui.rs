//! `motionlab gui`: the workbench window's command-line options, handed to the app.

use anyhow::Result;
use std::path::PathBuf;

#[derive(clap::Args, Default)]
pub struct GuiArgs {
    /// Character file to open.
    #[arg(long)]
    pub character: Option<PathBuf>,
    /// Render, save a PNG screenshot to this file and exit.
    #[arg(long)]
    pub screenshot: Option<PathBuf>,
    /// Number of frames to render before the screenshot.
    #[arg(long, default_value_t = 60)]
    pub frames: u32,
    /// Start the robustness sweep job immediately (shows the Jobs panel at work).
    #[arg(long)]
    pub sweep: bool,
    /// Overlays shown at start, comma-separated: skin, colliders, com, contacts, torques
    /// (default: skin,com,contacts,torques).
    #[arg(long, value_delimiter = ',')]
    pub overlays: Option<Vec<String>>,
    /// Explore this scene's task at launch (N = 4, 300 generations) and show the Diversity panel.
    #[arg(long)]
    pub explore: Option<PathBuf>,
    /// Show this exploration result set in the Diversity panel's gallery at launch.
    #[arg(long)]
    pub explore_result: Option<PathBuf>,
    /// With --explore-result: play this motion of the set (0 the input, 1.. the variants) in the
    /// Library panel at launch, recorded on its skinned character.
    #[arg(long, requires = "explore_result", value_name = "I")]
    pub play_motion: Option<usize>,
    /// Show this gait clip (`motionlab gait --out`) playing in the Gait panel at launch.
    #[arg(long)]
    pub gait: Option<PathBuf>,
    /// Start a gait discovery for this character file at launch (shows the Gait panel at work:
    /// the samples' scatter and the best cost per generation fill in as it runs).
    #[arg(long, value_name = "CREATURE")]
    pub discover_gait: Option<PathBuf>,
    /// Speed (m/s) of the `--discover-gait` discovery.
    #[arg(long, default_value_t = 0.7)]
    pub gait_speed: f64,
    /// Play this clip (or gait clip) in the Library panel at launch; repeat to show several side
    /// by side.
    #[arg(long)]
    pub clip: Vec<PathBuf>,
    /// Open the Steering view on this motion graph at launch (e.g. assets/graphs/human3d.ron).
    #[arg(long, value_name = "GRAPH")]
    pub steer: Option<PathBuf>,
    /// With --steer: drive the stick from this script (RON timeline) instead of the controls.
    #[arg(long, requires = "steer", value_name = "SCRIPT")]
    pub steer_script: Option<PathBuf>,
    /// With --steer: start in physics playback (the simulated human tracks the controller).
    #[arg(long, requires = "steer")]
    pub steer_physics: bool,
    /// With --steer: throw a ball from the camera at the character at this time of the run (s);
    /// repeat for several.
    #[arg(long, requires = "steer", value_name = "SECONDS")]
    pub throw_at: Vec<f64>,
    /// Grow the Pareto front of this scene at launch (RMOO, 300 generations) and show the
    /// Pareto panel.
    #[arg(long, value_name = "SCENE")]
    pub pareto: Option<PathBuf>,
    /// Show this Pareto result (`motionlab pareto --out DIR` writes DIR/result.ron) in the
    /// Pareto panel at launch; repeat to plot several runs' hypervolumes side by side (the last
    /// one's front is shown).
    #[arg(long, value_name = "RESULT")]
    pub pareto_result: Vec<PathBuf>,
    /// With --pareto-result: play this front point at launch; repeat to add ghosts.
    #[arg(long, requires = "pareto_result", value_name = "I")]
    pub pareto_point: Vec<usize>,
    /// Open the character editor at launch on this file: a character (.ron), or a skinned glTF
    /// (.gltf, .glb) or a BVH, from which a character is built (as when dropped on the window).
    #[arg(long, value_name = "FILE")]
    pub edit: Option<PathBuf>,
    /// With --edit: select this body (its joint's limits are drawn as arcs).
    #[arg(long, requires = "edit", value_name = "BODY")]
    pub edit_select: Option<String>,
    /// With --edit: apply these edits at launch (RON list of editor `Edit`s), each undoable.
    #[arg(long, requires = "edit", value_name = "EDITS")]
    pub edit_script: Option<PathBuf>,
    /// With --edit SKIN.gltf|MOCAP.bvh: transfer this animation (name or index) to a clip at
    /// launch (the character is saved into results/characters/, the clip into results/clips/).
    #[arg(long, requires = "edit", value_name = "ANIMATION")]
    pub edit_transfer: Option<String>,
    /// With --edit and --edit-select: drag one of the selected body's handles by DX, DY pixels
    /// at launch (HANDLE: move-x|y|z, turn-x|y|z, size-x|y|z, limit-lo[-K], limit-hi[-K],
    /// axis[-K]), as the mouse would; one undo step.
    #[arg(long, requires = "edit_select", value_name = "HANDLE:DX,DY")]
    pub edit_drag: Option<String>,
    /// With --edit-drag: save the edited character here when the drag ends (atomic).
    #[arg(long, requires = "edit_drag", value_name = "FILE")]
    pub edit_out: Option<PathBuf>,
}

#[cfg(feature = "gui")]
pub fn gui(args: GuiArgs) -> Result<()> {
    motionlab::app::run(motionlab::app::AppOptions {
        character: args.character,
        screenshot: args.screenshot,
        frames: args.frames,
        start_sweep: args.sweep,
        overlays: args.overlays,
        explore: args.explore,
        explore_result: args.explore_result,
        play_motion: args.play_motion,
        gait: args.gait,
        discover_gait: args.discover_gait,
        gait_speed: args.gait_speed,
        clips: args.clip,
        steer: args.steer,
        steer_script: args.steer_script,
        steer_physics: args.steer_physics,
        throw_at: args.throw_at,
        pareto: args.pareto,
        pareto_result: args.pareto_result,
        pareto_points: args.pareto_point,
        edit: args.edit,
        edit_select: args.edit_select,
        edit_script: args.edit_script,
        edit_transfer: args.edit_transfer,
        edit_drag: match &args.edit_drag {
            Some(d) => Some(
                motionlab::app::editor::ScriptedDrag::parse(d, args.edit_out.clone())
                    .map_err(|e| anyhow::anyhow!("--edit-drag {d:?}: {e}"))?,
            ),
            None => None,
        },
    })
}

#[cfg(not(feature = "gui"))]
pub fn gui(_args: GuiArgs) -> Result<()> {
    anyhow::bail!(
        "this build has no GUI (built without the `gui` feature); use a subcommand, see --help"
    )
}
