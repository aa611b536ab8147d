//! The character editor (Borer et al. 2018, §4.3, editing tools; issue P7): bodies
//! selected by clicking them and moved, turned, resized and weighed; joints' axes, limits (drawn
//! as arcs), gains and torque limits; foot and hand pads on terminal bodies; a new root, deleting
//! and merging bodies; mirrored edits; undo and redo of every edit; atomic Save and Save As.
//!
//! Every edit goes through [`crate::editor::Editor`] (the science side: validation, undo,
//! mirror, lint) and then rebuilds the live simulation, so the viewport shows at once whether the
//! edited character still stands with its hold-pose gains; a headless 10 s rollout on a
//! background thread gives the verdict in figures. A skinned glTF or a BVH dropped on the window
//! (or given as `gui --edit FILE`) becomes a character through [`crate::arbs`] (Borer et al. 2018, §4.1), drawn
//! with its skeleton and skin over the bodies.

use super::character::LiveSim;
use super::workbench::{
    AddPanel, Busy, ClaimStage, Dock, OpenPanel, PanelSpec, Stage, Workbench, claim_stage,
};
use crate::editor::{Edit, Editor, Lint};
use crate::model::Character;
use crate::sim::{HoldPose, RolloutSpec, SimSettings, run_rollout};
use bevy::prelude::*;
use bevy::window::FileDragAndDrop;
use crossbeam_channel::{Receiver, Sender};
use std::path::{Path, PathBuf};

mod handle_geometry;
mod handles;
mod import;
mod panel;
mod viewport;

pub use handles::{DragError, HandleKind, ScriptedDrag};

/// The editor's launch options.
#[derive(clap::Args, Resource, Clone, Debug, Default)]
#[group(skip)]
pub struct Launch {
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
    #[arg(long, requires = "edit_select", value_name = "HANDLE:DX,DY", value_parser = parse_drag)]
    pub edit_drag: Option<ScriptedDrag>,
    /// With --edit-drag: save the edited character here when the drag ends (atomic).
    #[arg(long, requires = "edit_drag", value_name = "FILE")]
    pub edit_out: Option<PathBuf>,
}

fn parse_drag(s: &str) -> Result<ScriptedDrag, DragError> {
    ScriptedDrag::parse(s, None)
}

/// The panel's id.
pub const PANEL: &str = "editor";

pub struct EditorPlugin(pub Launch);

impl Plugin for EditorPlugin {
    fn build(&self, app: &mut App) {
        app.init_resource::<handles::Handles>()
            .insert_resource(self.0.clone())
            .add_panel(
                PanelSpec {
                    id: PANEL,
                    title: "Editor",
                    hover: "The character editor: bodies, joints, limits, pads, mirror, undo \
                            (Borer et al. 2018)",
                    dock: Dock::Right {
                        width: 430.0,
                        fallback: false,
                    },
                    order: 60,
                    open: self.0.edit.is_some(),
                },
                panel::editor_ui,
            );
        app.add_systems(Startup, setup).add_systems(
            Update,
            (
                open_on_launch,
                (claim_editor, follow_stage, open_requested),
                dropped_files,
                import::poll_transfer,
                sync_live,
                poll_verdict,
                handles::drag_handles,
                viewport::pick_body,
                viewport::draw_editor,
                handles::draw_handles,
                import::rebuild_skin_mesh,
            )
                .chain()
                .before(super::character::StepSimulation),
        );
    }
}

/// Whether the edited character stands: a headless rollout of 10 s holding the reference pose
/// with its hold-pose gains (the same as `motionlab simulate`).
#[derive(Clone, Debug, PartialEq)]
pub enum Verdict {
    Running,
    Stands { seconds: f64 },
    Falls { at: f64 },
    Error(String),
}

/// Seconds of the headless standing check after every edit.
pub const STAND_SECONDS: f32 = 10.0;

#[derive(Resource)]
pub struct EditorState {
    /// The editor owns the stage (its panel is open).
    pub visible: bool,
    /// Open (true) or close the panel on the next frame (a file was dropped; "close").
    pub panel_request: Option<bool>,
    /// The open document; `None` until a character is opened or the live one is edited.
    pub doc: Option<Editor>,
    pub path: Option<PathBuf>,
    /// Selected body (its joint to the parent is the selected joint).
    pub selected: Option<String>,
    pub message: String,
    pub lints: Vec<Lint>,
    pub problems: Vec<String>,
    /// Increases with every change of the document; the live simulation follows it.
    pub generation: u64,
    shown: u64,
    pub verdict: Option<(u64, Verdict)>,
    checking: bool,
    tx: Sender<(u64, Verdict)>,
    rx: Receiver<(u64, Verdict)>,
    /// The imported skeleton drawn over the bodies (glTF or BVH), with its skin.
    pub import: Option<import::Imported>,
    pub transfer: import::TransferState,
    /// Draw the imported skeleton and skin.
    pub show_skeleton: bool,
    pub show_skin: bool,
    /// Frame the camera on the next rebuild (a character was opened).
    frame_camera: bool,
}

impl EditorState {
    /// Opens `character` as the document (`path` is where Save writes; None asks on Save).
    pub fn open(&mut self, character: Character, path: Option<PathBuf>) {
        let mirror = self.doc.as_ref().map(|d| d.mirror).unwrap_or(true);
        let mut doc = Editor::new(character);
        doc.mirror = mirror;
        self.selected = doc.character().bodies.first().map(|b| b.name.clone());
        self.doc = Some(doc);
        self.path = path;
        self.panel_request = Some(true);
        self.frame_camera = true;
        self.changed();
    }

    /// The selected body's index in `c` (the live character), if it has one.
    pub fn selected_body(&self, c: &Character) -> Option<usize> {
        self.selected.as_deref().and_then(|s| c.body_index(s))
    }

    /// Applies an edit (a slider being dragged coalesces into one undo step).
    pub fn edit(&mut self, edit: Edit, coalesce: bool) {
        let Some(doc) = self.doc.as_mut() else {
            return;
        };
        let result = if coalesce {
            doc.apply_coalesced(edit)
        } else {
            doc.apply(edit)
        };
        match result {
            Ok(()) => {
                self.message.clear();
                self.changed();
            }
            Err(e) => self.message = format!("edit refused: {e}"),
        }
    }

    pub fn undo(&mut self) {
        if self.doc.as_mut().is_some_and(|d| d.undo()) {
            self.changed();
        }
    }

    pub fn redo(&mut self) {
        if self.doc.as_mut().is_some_and(|d| d.redo()) {
            self.changed();
        }
    }

    /// Saves to `path` (atomic), which becomes the document's path.
    pub fn save(&mut self, path: &Path) {
        let Some(doc) = self.doc.as_mut() else {
            return;
        };
        match doc.save(path) {
            Ok(()) => {
                self.message = format!("saved {}", path.display());
                self.path = Some(path.to_path_buf());
            }
            Err(e) => self.message = format!("cannot save {}: {e}", path.display()),
        }
    }

    /// After any change of the document: lint and validation again, selection kept valid.
    fn changed(&mut self) {
        self.generation += 1;
        let Some(doc) = self.doc.as_ref() else {
            return;
        };
        let c = doc.character();
        self.lints = crate::editor::lint(c);
        let path = self
            .path
            .clone()
            .unwrap_or_else(|| PathBuf::from("(unsaved character)"));
        self.problems = crate::editor::validation(c, &path);
        if let Some(s) = &self.selected
            && c.body_index(s).is_none()
        {
            self.selected = c.bodies.first().map(|b| b.name.clone());
        }
    }
}

fn setup(mut commands: Commands) {
    let (tx, rx) = crossbeam_channel::unbounded();
    commands.insert_resource(EditorState {
        visible: false,
        panel_request: None,
        doc: None,
        path: None,
        selected: None,
        message: String::new(),
        lints: Vec::new(),
        problems: Vec::new(),
        generation: 0,
        shown: 0,
        verdict: None,
        checking: false,
        tx,
        rx,
        import: None,
        transfer: import::TransferState::default(),
        show_skeleton: true,
        show_skin: true,
        frame_camera: false,
    });
}

/// `gui --edit FILE [--edit-select BODY] [--edit-script EDITS.ron]`.
fn open_on_launch(
    mut commands: Commands,
    mut done: Local<bool>,
    options: Res<Launch>,
    mut state: ResMut<EditorState>,
) {
    if *done {
        return;
    }
    *done = true;
    let Some(path) = options.edit.clone() else {
        return;
    };
    open_file(&mut state, &path);
    if let Some(script) = &options.edit_script {
        match std::fs::read_to_string(script)
            .map_err(anyhow::Error::from)
            .and_then(|t| Ok(crate::files::from_ron::<Vec<Edit>>(&t)?))
        {
            Ok(edits) => {
                for e in edits {
                    state.edit(e, false);
                }
            }
            Err(e) => state.message = format!("{}: {e}", script.display()),
        }
    }
    if let Some(s) = &options.edit_select {
        state.selected = Some(s.clone());
    }
    if let Some(d) = &options.edit_drag {
        let mut d = d.clone();
        d.save_to = options.edit_out.clone();
        commands.insert_resource(d);
    }
    if let Some(which) = &options.edit_transfer {
        let index = state.import.as_ref().map(|i| {
            i.skeleton
                .animation_index(which)
                .ok_or_else(|| format!("{}: no animation `{which}`", i.skeleton.source))
        });
        match index {
            Some(Ok(k)) => {
                if let Some(i) = state.import.as_mut() {
                    i.animation = k;
                }
                import::start_transfer(&mut state);
            }
            Some(Err(e)) => state.message = e,
            None => state.message = "--edit-transfer needs a skinned glTF or a BVH".into(),
        }
    }
}

/// Opens a character source: a character file, or one built from a skinned glTF or a BVH
/// (Borer et al. 2018, §3.1; [`crate::arbs::open_character`]).
pub fn open_file(state: &mut EditorState, path: &Path) {
    match crate::arbs::open_character(path, &Default::default(), &Default::default()) {
        Ok(o) => match o.built {
            None => {
                state.import = None;
                state.open(o.character, Some(path.to_path_buf()));
                state.message = format!("opened {}", path.display());
            }
            Some((skeleton, map)) => import::opened(state, path, skeleton, o.character, map),
        },
        Err(e) => state.message = format!("{e}"),
    }
}

/// The editor owns the viewport while its panel is open.
fn claim_editor(bench: Res<Workbench>, mut said: Local<bool>, mut out: MessageWriter<ClaimStage>) {
    claim_stage(Stage::Editor, bench.is_open(PANEL), &mut said, &mut out);
}

/// The editor is on exactly while it owns the stage; opened empty, it edits the live character.
fn follow_stage(mut state: ResMut<EditorState>, stage: Res<State<Stage>>, live: Res<LiveSim>) {
    let on = *stage.get() == Stage::Editor;
    if state.visible != on {
        state.visible = on;
        if on && state.doc.is_none() {
            let (c, p) = (live.character.clone(), live.path.clone());
            state.open(c, p);
            state.panel_request = None;
        }
    }
}

/// Opens or closes the panel as the editor asked.
fn open_requested(
    mut state: ResMut<EditorState>,
    mut out: MessageWriter<OpenPanel>,
    mut busy: ResMut<Busy>,
    drag: Option<Res<ScriptedDrag>>,
) {
    if drag.is_some_and(|d| !d.done()) {
        busy.add(PANEL, "scripted drag");
    }
    if let Some(open) = state.panel_request.take() {
        out.write(OpenPanel { id: PANEL, open });
    }
    if state.checking {
        busy.add(PANEL, "standing check");
    }
    if state.transfer.running.is_some() {
        busy.add(PANEL, "animation transfer");
    }
}

fn dropped_files(mut drops: MessageReader<FileDragAndDrop>, mut state: ResMut<EditorState>) {
    for d in drops.read() {
        if let FileDragAndDrop::DroppedFile { path_buf, .. } = d {
            open_file(&mut state, path_buf);
        }
    }
}

/// The live simulation follows the document: every change rebuilds it (time back to 0) and
/// starts the headless standing check.
fn sync_live(
    mut state: ResMut<EditorState>,
    mut live: ResMut<LiveSim>,
    mut orbit: ResMut<super::viewport::OrbitCamera>,
) {
    if !state.visible || state.shown == state.generation {
        return;
    }
    let Some(doc) = state.doc.as_ref() else {
        return;
    };
    let c = doc.character().clone();
    state.shown = state.generation;
    if std::mem::take(&mut state.frame_camera) {
        // A newly opened character fills the view, a fox as well as a giraffe.
        let h = c.height() as f32;
        orbit.distance = (2.6 * h).clamp(1.2, 40.0);
    }
    if state.problems.is_empty() {
        // The live view does not watch the document's file: the editor owns it now.
        live.replace(c, None);
        live.playing = true;
        start_check(&mut state);
    }
}

fn start_check(state: &mut EditorState) {
    if state.checking {
        return;
    }
    let Some(doc) = state.doc.as_ref() else {
        return;
    };
    let c = doc.character().clone();
    let generation = state.generation;
    let tx = state.tx.clone();
    state.checking = true;
    state.verdict = Some((generation, Verdict::Running));
    std::thread::spawn(move || {
        let spec = RolloutSpec::seconds(STAND_SECONDS);
        let v = match run_rollout(
            &c,
            SimSettings::default(),
            &mut HoldPose::reference(),
            &spec,
        ) {
            Ok(r) if r.fell => Verdict::Falls {
                at: r.fell_at.unwrap_or(r.seconds) as f64,
            },
            Ok(r) => Verdict::Stands {
                seconds: r.seconds as f64,
            },
            Err(e) => Verdict::Error(format!("{e}")),
        };
        let _ = tx.send((generation, v));
    });
}

fn poll_verdict(mut state: ResMut<EditorState>) {
    while let Ok((g, v)) = state.rx.try_recv() {
        state.checking = false;
        state.verdict = Some((g, v));
    }
    // An edit arrived while the last check ran: check the newest document.
    if !state.checking
        && state.visible
        && state.problems.is_empty()
        && state.doc.is_some()
        && state
            .verdict
            .as_ref()
            .is_some_and(|(g, _)| *g != state.generation)
    {
        start_check(&mut state);
    }
}
