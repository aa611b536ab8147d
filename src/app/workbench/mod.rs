//! The workbench: the shell every panel plugs into. It owns the layout (a bottom status bar, a
//! left dock of sections, an exclusive right dock, floating windows, and a toolbar of every
//! panel's toggle above the viewport), who owns the viewport (the [`Stage`]), and the messages
//! panels send one another ([`PlayClip`], [`SteerGraph`], [`ClaimStage`], [`OpenPanel`]). A panel registers its
//! toggle, dock and body with [`AddPanel::add_panel`] and never reads another panel's state: the
//! pattern of Bevy's own plugins (typed messages between plugins, each plugin one concern).
//!
//! The shell imports nothing else of the app; the app's core plugins (viewport, live
//! simulation, input, overlays) import only it, and each panel imports the shell and the core.

pub mod capture;
pub mod figures;
pub mod files;
pub mod framing;
pub mod jobs;
pub mod palette;
pub mod pointer;

use bevy::ecs::system::SystemId;
use bevy::prelude::*;
use bevy_egui::{EguiPrimaryContextPass, PrimaryEguiContext, egui};

pub use capture::{Busy, Clock};
pub use jobs::Jobs;

/// Who owns the 3D viewport: the live simulation (alone or under the editor's handles), or
/// one panel's figures, named by the panel's id: a new panel claims the stage without a change
/// here.
#[derive(States, Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum Stage {
    /// The live simulation (with its overlays and pushes).
    #[default]
    Live,
    /// The character editor: the live simulation with the editor's handles.
    Editor,
    /// A panel's figures (the panel's id).
    Panel(&'static str),
}

impl Stage {
    /// The live simulation is on show.
    pub fn shows_live(self) -> bool {
        matches!(self, Stage::Live | Stage::Editor)
    }

    /// The stage's name: `Live`, `Editor` or the panel's id.
    pub fn name(self) -> &'static str {
        match self {
            Stage::Live => "Live",
            Stage::Editor => "Editor",
            Stage::Panel(id) => id,
        }
    }
}

/// A panel claims the viewport (`on: true`) or lets it go. The latest claim that still holds
/// owns the stage; when none holds, the live simulation does.
#[derive(Message, Clone, Copy, Debug)]
pub struct ClaimStage {
    pub stage: Stage,
    pub on: bool,
}

/// Open (or close) the panel with this id.
#[derive(Message, Clone, Debug)]
pub struct OpenPanel {
    pub id: &'static str,
    pub open: bool,
}

/// Show this finished search's result file in the panel of its kind (a watched job folder's
/// "Show").
#[derive(Message, Clone, Debug)]
pub struct ShowResult {
    pub kind: crate::job_folder::FolderKind,
    pub path: std::path::PathBuf,
}

/// Play this clip on its character in the Library, alone, from the start ("play in Library").
#[derive(Message, Clone)]
pub struct PlayClip {
    pub clip: crate::clip::Clip,
    pub character: crate::model::Character,
    /// Where it came from, as the Library lists it.
    pub label: String,
    /// Said in the Library's message line.
    pub note: String,
}

/// Open this motion graph in the Steering view, steered by its value-function policy
/// (`policy`) or by the look-ahead (a synthesized graph's "Steer").
#[derive(Message, Clone, Debug)]
pub struct SteerGraph {
    pub graph: std::path::PathBuf,
    pub policy: bool,
}

/// Where a panel sits.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Dock {
    /// A section of the left dock (shown while the live simulation is on stage).
    Left,
    /// The right dock: one panel at a time, the last opened. A `fallback` panel shows there
    /// when no other is open.
    Right { width: f32, fallback: bool },
    /// A floating window of this default size.
    Window { width: f32, height: f32 },
}

/// What a panel registers.
#[derive(Clone, Debug)]
pub struct PanelSpec {
    /// Unique, stable id (messages and tests name it).
    pub id: &'static str,
    /// The heading and toggle label.
    pub title: &'static str,
    /// The toggle's hover text.
    pub hover: &'static str,
    pub dock: Dock,
    /// Place among the toggles and left sections (smaller first).
    pub order: i32,
    /// Open at launch.
    pub open: bool,
}

/// A panel body: a system that draws into the `Ui` the shell gives it.
pub type PanelBody = SystemId<InMut<'static, egui::Ui>>;

struct Registered {
    spec: PanelSpec,
    body: PanelBody,
    open: bool,
    /// When it was last opened (the right dock shows the latest).
    opened_at: u64,
}

/// The layout and the stage.
#[derive(Resource, Default)]
pub struct Workbench {
    panels: Vec<Registered>,
    /// The viewport area left free by the docks, and what floats over it, this frame.
    layout: pointer::PassLayout,
    /// Claims on the stage, oldest first.
    claims: Vec<Stage>,
    ticks: u64,
}

impl Workbench {
    /// The viewport area between the docks (from the first drawn frame on).
    pub fn central(&self) -> Option<egui::Rect> {
        self.layout.central
    }

    /// The horizontal centre of the view left open by the docks and by the windows over its
    /// middle ([`framing::open_centre_x`]), in the window's physical pixels; `None` before the
    /// first drawn frame.
    pub fn open_centre_px(&self) -> Option<f32> {
        let central = self.layout.central?;
        Some(framing::open_centre_x(central, &self.layout.floating) * self.layout.pixels_per_point)
    }

    /// The last pass's layout ([`pointer::UiPointer`]).
    fn layout(&self) -> &pointer::PassLayout {
        &self.layout
    }

    /// Whether panel `id` is open.
    pub fn is_open(&self, id: &str) -> bool {
        self.panels.iter().any(|p| p.spec.id == id && p.open)
    }

    /// The panel the right dock shows.
    pub fn docked_right(&self) -> Option<&'static str> {
        self.right().map(|k| self.panels[k].spec.id)
    }

    /// The registered panels' ids, in order.
    pub fn panel_ids(&self) -> Vec<&'static str> {
        self.panels.iter().map(|p| p.spec.id).collect()
    }

    fn set_open(&mut self, id: &str, open: bool) {
        self.ticks += 1;
        let ticks = self.ticks;
        let Some(k) = self.panels.iter().position(|p| p.spec.id == id) else {
            return;
        };
        let p = &mut self.panels[k];
        p.open = open;
        if open {
            p.opened_at = ticks;
        }
        let right = matches!(p.spec.dock, Dock::Right { .. });
        if right && open {
            // One right panel at a time.
            for (i, q) in self.panels.iter_mut().enumerate() {
                if i != k && matches!(q.spec.dock, Dock::Right { .. }) {
                    q.open = false;
                }
            }
        }
    }

    /// The right dock's panel: the last opened, else the fallback.
    fn right(&self) -> Option<usize> {
        let is_right = |p: &Registered| matches!(p.spec.dock, Dock::Right { .. });
        self.panels
            .iter()
            .enumerate()
            .filter(|(_, p)| is_right(p) && p.open)
            .max_by_key(|(_, p)| p.opened_at)
            .or_else(|| {
                self.panels
                    .iter()
                    .enumerate()
                    .find(|(_, p)| matches!(p.spec.dock, Dock::Right { fallback: true, .. }))
            })
            .map(|(i, _)| i)
    }
}

/// Registering panels on the app.
pub trait AddPanel {
    /// Registers a panel: its toggle in the toolbar (or section in the left dock), its dock and
    /// the system that draws its body.
    fn add_panel<M>(
        &mut self,
        spec: PanelSpec,
        body: impl IntoSystem<InMut<'static, egui::Ui>, (), M> + 'static,
    ) -> &mut Self;
}

impl AddPanel for App {
    fn add_panel<M>(
        &mut self,
        spec: PanelSpec,
        body: impl IntoSystem<InMut<'static, egui::Ui>, (), M> + 'static,
    ) -> &mut Self {
        let id = self.world_mut().register_system(body);
        let mut bench = self.world_mut().resource_mut::<Workbench>();
        assert!(
            bench.panels.iter().all(|p| p.spec.id != spec.id),
            "panel {} registered twice",
            spec.id
        );
        let open = spec.open;
        bench.panels.push(Registered {
            spec,
            body: id,
            open: false,
            opened_at: 0,
        });
        bench.panels.sort_by_key(|p| p.spec.order);
        if open {
            let id = bench
                .panels
                .iter()
                .find(|p| p.body == id)
                .map(|p| p.spec.id);
            if let Some(id) = id {
                bench.set_open(id, true);
            }
        }
        self
    }
}

/// The shell: layout, stage, messages, the shared job list, the clock and screenshots.
pub struct WorkbenchPlugin {
    pub capture: capture::Capture,
}

impl Plugin for WorkbenchPlugin {
    fn build(&self, app: &mut App) {
        app.init_resource::<Workbench>()
            .init_state::<Stage>()
            .add_message::<ClaimStage>()
            .add_message::<OpenPanel>()
            .add_message::<ShowResult>()
            .add_message::<PlayClip>()
            .add_message::<SteerGraph>()
            .add_plugins(jobs::JobsPlugin)
            .add_plugins(capture::CapturePlugin(self.capture.clone()))
            .add_systems(PreUpdate, (open_panels, arbitrate_stage))
            .add_systems(EguiPrimaryContextPass, shell);
    }
}

fn open_panels(mut bench: ResMut<Workbench>, mut requests: MessageReader<OpenPanel>) {
    for r in requests.read() {
        bench.set_open(r.id, r.open);
    }
}

fn arbitrate_stage(
    mut bench: ResMut<Workbench>,
    mut claims: MessageReader<ClaimStage>,
    current: Res<State<Stage>>,
    mut next: ResMut<NextState<Stage>>,
) {
    let mut changed = false;
    for c in claims.read() {
        bench.claims.retain(|&s| s != c.stage);
        if c.on {
            bench.claims.push(c.stage);
        }
        changed = true;
    }
    if changed {
        let want = bench.claims.last().copied().unwrap_or(Stage::Live);
        if want != *current.get() {
            next.set(want);
        }
    }
}

/// Sends a [`ClaimStage`] when `wants` changes from what was last said (`said`).
pub fn claim_stage(
    stage: Stage,
    wants: bool,
    said: &mut bool,
    out: &mut MessageWriter<ClaimStage>,
) {
    if wants != *said {
        *said = wants;
        out.write(ClaimStage { stage, on: wants });
    }
}

/// Draws the layout: status bar, left dock, right dock, toolbar and windows, each panel's body
/// run as its registered system.
fn shell(world: &mut World) {
    let Ok(ctx) = world
        .query_filtered::<&mut bevy_egui::EguiContext, With<PrimaryEguiContext>>()
        .single_mut(world)
        .map(|mut c| c.get_mut().clone())
    else {
        return;
    };
    let stage = *world.resource::<State<Stage>>().get();
    // The panels' specs and state, read before their bodies run (a body may open a panel).
    let (panels, right): (Vec<(PanelSpec, PanelBody, bool)>, Option<usize>) = {
        let bench = world.resource::<Workbench>();
        (
            bench
                .panels
                .iter()
                .map(|p| (p.spec.clone(), p.body, p.open))
                .collect(),
            bench.right(),
        )
    };
    let mut root = egui::Ui::new(
        ctx.clone(),
        "workbench".into(),
        egui::UiBuilder::new()
            .layer_id(egui::LayerId::background())
            .max_rect(ctx.viewport_rect()),
    );
    let mut toggled: Vec<(&'static str, bool)> = Vec::new();
    // The status bar is the live simulation's left section's companion: the first Left panel
    // draws it through the `status` id, if registered.
    if let Some((_, body, _)) = panels.iter().find(|(s, _, _)| s.id == STATUS_BAR) {
        let body = *body;
        egui::Panel::bottom("status").show(&mut root, |ui| {
            ui.horizontal(|ui| run_body(world, body, ui));
        });
    }
    if stage.shows_live() {
        let left: Vec<&(PanelSpec, PanelBody, bool)> = panels
            .iter()
            .filter(|(s, _, _)| s.dock == Dock::Left && s.id != STATUS_BAR)
            .collect();
        if !left.is_empty() {
            egui::Panel::left("workbench_left")
                .default_size(290.0)
                .resizable(true)
                .show(&mut root, |ui| {
                    egui::ScrollArea::vertical().show(ui, |ui| {
                        for (i, (_, body, _)) in left.iter().enumerate() {
                            if i > 0 {
                                ui.separator();
                            }
                            run_body(world, *body, ui);
                        }
                    });
                });
        }
    }
    if let Some(k) = right {
        let (spec, body, _) = &panels[k];
        let width = match spec.dock {
            Dock::Right { width, .. } => width,
            _ => 360.0,
        };
        egui::Panel::right(egui::Id::new(("workbench_right", spec.id)))
            .default_size(width)
            .resizable(true)
            .show(&mut root, |ui| run_body(world, *body, ui));
    }
    let central = root.available_rect_before_wrap();
    world.resource_mut::<Workbench>().layout.central = Some(central);
    let mut floating = Vec::new();
    // The toolbar: every panel's toggle, in order.
    let toolbar = egui::Area::new(egui::Id::new("workbench_toolbar"))
        .fixed_pos(central.left_top() + egui::vec2(8.0, 8.0))
        .show(&ctx, |ui| {
            ui.horizontal(|ui| {
                for (spec, _, open) in &panels {
                    if spec.dock == Dock::Left {
                        continue;
                    }
                    let label = if *open {
                        format!("{} ✔", spec.title)
                    } else {
                        format!("{}…", spec.title)
                    };
                    if ui.button(label).on_hover_text(spec.hover).clicked() {
                        toggled.push((spec.id, !open));
                    }
                }
            });
        });
    floating.push(toolbar.response.rect);
    // Windows, cascading from the toolbar.
    let mut k = 0.0;
    for (spec, body, open) in &panels {
        let Dock::Window { width, height } = spec.dock else {
            continue;
        };
        if !open {
            continue;
        }
        let mut still_open = true;
        // A window has a place per stage: it opens below the toolbar of the stage it shows
        // in (a panel that claims the stage opens its window in the frame before its stage,
        // whose left dock would otherwise leave the window in the middle of the view).
        let shown = egui::Window::new(spec.title)
            .id(egui::Id::new(("workbench_window", spec.id, stage)))
            .open(&mut still_open)
            .default_pos(central.left_top() + egui::vec2(4.0 + 24.0 * k, 40.0 + 24.0 * k))
            .default_size(egui::vec2(
                width.min(central.width() - 10.0).max(300.0),
                height.min(central.height() - 50.0).max(200.0),
            ))
            .resizable(true)
            .show(&ctx, |ui| run_body(world, *body, ui));
        floating.extend(shown.map(|w| w.response.rect));
        if !still_open {
            toggled.push((spec.id, false));
        }
        k += 1.0;
    }
    let mut bench = world.resource_mut::<Workbench>();
    bench.layout.floating = floating;
    bench.layout.pixels_per_point = ctx.pixels_per_point();
    if !toggled.is_empty() {
        for (id, open) in toggled {
            bench.set_open(id, open);
        }
    }
}

/// The id of the status bar's body (a [`Dock::Left`] registration drawn at the bottom).
pub const STATUS_BAR: &str = "status";

fn run_body(world: &mut World, body: PanelBody, ui: &mut egui::Ui) {
    if let Err(e) = world.run_system_with(body, ui) {
        ui.colored_label(egui::Color32::RED, format!("panel failed: {e}"));
    }
}
