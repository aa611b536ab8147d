//! Gait panel (Wampler 2012, thesis §3.2–3.3; issue "P3 — Spacetime engine and animal gaits",
//! deliverable 9): pick a spacetime creature, set the speed, the period and each foot's contact
//! window (footfall bars dragged or typed) or let basin-CMA discover them, solve in the
//! background with a live plot, and look at the result: footfall diagram with flight and
//! double-support spans, cost, violation, the independent audit, and the gait playing in a loop
//! in a side view (treadmill or world frame) and a front view; save and load clips.
//!
//! The science stays in [`crate::spacetime`]: a solve is the library's gait job
//! ([`crate::spacetime::job::run_gait`]) run by this program's own `gait-job` command in a child
//! process of its own process group, the typed request (RON) on its standard input (IPOPT's
//! linear solver is not thread-safe, and a process can be cancelled). A reader thread turns its
//! typed events (IPOPT iterations, discovery samples and generations) into messages on a
//! channel; the clip it writes is read back, checked against its creature and audited with
//! [`crate::spacetime::gait::audit`].

use super::workbench::files::{character_files, characters_dir};
use super::workbench::{AddPanel, Clock, Dock, Jobs, PanelSpec, PlayClip, Workbench};
use crate::spacetime::dynamics::forward_kinematics;
use crate::spacetime::gait::{
    FootTiming, GaitAudit, GaitClip, GaitError, GaitSpec, MU, NU, audit, default_timings,
};
use crate::spacetime::job::events::GaitEvent;
use crate::spacetime::skeleton::Skeleton;
use bevy::prelude::*;
use bevy_egui::egui;
use egui_plot::{Legend, Line, Plot, PlotPoints, Points, VLine};
use std::path::{Path, PathBuf};
use std::time::Instant;

mod controls;
mod figures;
mod footfalls;
mod plots;
mod result;
mod solver_process;
mod state;
#[cfg(test)]
mod tests;

use controls::*;
use figures::*;
use footfalls::*;
use plots::*;
use result::*;
use solver_process::*;

/// The Gait panel's launch options.
#[derive(clap::Args, Resource, Clone, Debug, Default)]
#[group(skip)]
pub struct Launch {
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
}

/// The panel's id.
pub const PANEL: &str = "gait";

pub struct GaitPanelPlugin(pub Launch);

impl Plugin for GaitPanelPlugin {
    fn build(&self, app: &mut App) {
        app.insert_resource(self.0.clone())
            .add_systems(Startup, setup_gait)
            .add_systems(
                Update,
                (state::act, poll_gait_job, advance_playback, hand_to_library).chain(),
            )
            .add_panel(
                PanelSpec {
                    id: PANEL,
                    title: "Gait",
                    hover: "Gait panel: spacetime gaits of any creature (Wampler 2012)",
                    dock: Dock::Window {
                        width: 960.0,
                        height: 820.0,
                    },
                    order: 10,
                    open: self.0.gait.is_some() || self.0.discover_gait.is_some(),
                },
                gait_window,
            );
    }
}

/// "Play in Library": the gait on show, on its creature's character, to the Library.
fn hand_to_library(mut state: ResMut<GaitState>, mut play: MessageWriter<PlayClip>) {
    if !std::mem::take(&mut state.to_library) {
        return;
    }
    let Some(shown) = &state.shown else { return };
    let file = state
        .creatures
        .iter()
        .find(|c| c.skeleton.name == shown.clip.creature)
        .map(|c| c.path.clone());
    let outcome = file
        .ok_or_else(|| PlayError::NoCharacterFile(shown.clip.creature.clone()))
        .and_then(|path| {
            let text = std::fs::read_to_string(&path).map_err(|error| PlayError::Read {
                path: path.clone(),
                error,
            })?;
            let character = crate::model::load_character(&path)?;
            let r = crate::clip::CharacterRef::new(&path, &text);
            let clip = crate::clip::from_gait::clip_of_gait(&shown.clip, &character, r)?;
            Ok((clip, character))
        });
    match outcome {
        Ok((clip, character)) => {
            play.write(PlayClip {
                clip,
                character,
                label: format!("gait panel: {}", shown.source),
                note: "the Gait panel's gait, on its character".into(),
            });
        }
        Err(e) => state.message = format!("cannot play the gait in the Library: {e}"),
    }
}

/// One character file of `characters/`.
pub struct Creature {
    pub path: PathBuf,
    pub skeleton: Skeleton,
}

impl Creature {
    fn feet(&self) -> Vec<String> {
        self.skeleton
            .feet
            .iter()
            .map(|&l| self.skeleton.limbs[l].name.clone())
            .collect()
    }
}

/// The characters of `characters/` the gait solver can build a creature from (a free root and
/// at least one foot: `Skeleton::from_character`).
fn spacetime_creatures() -> Vec<Creature> {
    character_files()
        .into_iter()
        .filter_map(|path| {
            let skeleton = Skeleton::load(&path).ok()?;
            Some(Creature { path, skeleton })
        })
        .collect()
}

/// Why the panel's request is not a gait spec.
#[derive(Debug, thiserror::Error)]
pub(super) enum RequestError {
    #[error("no creature")]
    NoCreature,
    #[error(transparent)]
    Gait(#[from] GaitError),
}

/// Why the gait on show cannot be played in the Library.
#[derive(Debug, thiserror::Error)]
enum PlayError {
    #[error("no character file for {0}")]
    NoCharacterFile(String),
    #[error("{}: {error}", .path.display())]
    Read {
        path: PathBuf,
        error: std::io::Error,
    },
    #[error(transparent)]
    Character(#[from] crate::model::ModelError),
    #[error(transparent)]
    Clip(#[from] crate::clip::from_gait::FromGaitError),
}

/// Why a gait clip cannot be shown.
#[derive(Debug, thiserror::Error)]
pub(super) enum ShowError {
    #[error(transparent)]
    Read(#[from] std::io::Error),
    #[error(transparent)]
    Ron(#[from] ron::error::SpannedError),
    #[error("creature `{creature}` is not among the spacetime creatures of {}", .dir.display())]
    UnknownCreature { creature: String, dir: PathBuf },
    #[error(transparent)]
    Gait(#[from] GaitError),
    #[error("the clip's kinematics failed")]
    KinematicsFailed,
}

/// Why a solve gave no clip.
#[derive(Debug, thiserror::Error)]
pub(super) enum SolveError {
    #[error("the job wrote no result")]
    NoResult,
    #[error(transparent)]
    Unreadable(anyhow::Error),
    /// The job failed: its message ("failed" when it left none).
    #[error("{0}")]
    Failed(String),
}

/// What the solver process reports.
pub(super) enum JobMsg {
    /// An IPOPT iteration: (iteration, objective, primal infeasibility).
    Iteration(u64, f64, f64),
    /// A discovery generation: best feasible cost and timings so far, "feasible k/λ".
    Generation {
        job: u64,
        generation: usize,
        best: Option<(f64, f64, Vec<FootTiming>)>,
        feasible: String,
    },
    /// A discovery sample's projection: its timing and its cost if the projection is feasible.
    Sample {
        job: u64,
        period: f64,
        cost: Option<f64>,
        timings: Vec<FootTiming>,
    },
    /// One start of a multi-start solve ended.
    StartEnded(u64, crate::spacetime::job::StartSummary),
    /// The process ended: its clip (read back) or what went wrong.
    Done(u64, Result<GaitClip, SolveError>),
}

/// A discovery sample as the panel plots it: period against cost, marked by its footfall kind.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct SampleDot {
    pub period: f64,
    pub cost: f64,
    /// Some frame has no foot down.
    pub flight: bool,
    /// Mean over the feet of the best partner's overlap
    /// ([`crate::spacetime::gait::contact_overlap`]): 0 for feet that alternate (a run's), 1 for
    /// feet that land in pairs (a hop's, a trot's diagonals).
    pub pairing: f64,
}

impl SampleDot {
    fn new(spec: &GaitSpec, cost: f64) -> Self {
        let contact = spec.contacts();
        let feet = contact.first().map_or(0, |c| c.len());
        let best_partner = |a: usize| {
            (0..feet)
                .filter(|&b| b != a)
                .map(|b| crate::spacetime::gait::contact_overlap(contact, a, b))
                .fold(0.0, f64::max)
        };
        let pairing = if feet < 2 {
            0.0
        } else {
            (0..feet).map(best_partner).sum::<f64>() / feet as f64
        };
        Self {
            period: spec.period,
            cost,
            flight: spec.has_flight(),
            pairing,
        }
    }

    /// The footfall kind shown in the legend: "paired" when the feet land in pairs
    /// (pairing ≥ [`PAIRED`]: a hop, a trot) or "unpaired" (a walk, a run), and "flight" when
    /// some frame has no foot down.
    fn kind(&self) -> &'static str {
        match (self.pairing >= PAIRED, self.flight) {
            (true, true) => "paired, flight",
            (true, false) => "paired",
            (false, true) => "unpaired, flight",
            (false, false) => "unpaired",
        }
    }
}

/// What a finished discovery leaves on show beside its gait: its progress plots.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct DiscoveryRecord {
    /// Best feasible cost per generation.
    pub best_costs: Vec<[f64; 2]>,
    /// Every feasible sample.
    pub samples: Vec<SampleDot>,
    /// Samples whose projection failed.
    pub failed_samples: usize,
}

/// Smallest [`SampleDot::pairing`] plotted as "paired" feet.
const PAIRED: f64 = 0.8;

/// A sample line's projection counts as feasible up to this violation (discovery's own default).
const SAMPLE_TOLERANCE: f64 = crate::spacetime::discovery::FEASIBILITY_TOLERANCE;

/// A solve in progress: a job of the session ([`crate::spacetime::job::GaitWorkerJob`]).
pub struct GaitJob {
    /// Its id among the session's jobs.
    id: u64,
    /// Events of its log already taken in.
    seen: usize,
    started: Instant,
    discover: bool,
    creature: usize,
    speed: f64,
    /// Best feasible cost per generation (discovery).
    pub best_costs: Vec<[f64; 2]>,
    /// Every feasible sample projected so far (discovery).
    pub samples: Vec<SampleDot>,
    /// Samples whose projection failed (not feasible) so far.
    pub failed_samples: usize,
    /// Best timing so far (discovery): period, timings.
    pub best: Option<(f64, Vec<FootTiming>)>,
    pub feasible: String,
    /// Discovery generations reported so far.
    pub generations: usize,
    /// IPOPT log: objective and primal infeasibility per iteration (counted across solves).
    pub iterations: Vec<(f64, f64)>,
    /// Starts asked for (a multi-start solve when above 1) and the ones ended so far.
    pub starts: usize,
    pub starts_ended: Vec<crate::spacetime::job::StartSummary>,
}

/// A gait on show: the clip, its creature, audit and limb segments per frame.
pub struct ShownGait {
    pub clip: GaitClip,
    pub skeleton: Skeleton,
    pub source: String,
    pub audit: GaitAudit,
    /// contact[frame][foot] from the clip's loads.
    pub contact: Vec<Vec<bool>>,
    /// Per frame, per limb: proximal and distal end (treadmill frame).
    pub segments: Vec<Vec<([f64; 3], [f64; 3])>>,
    /// With an optimised body: the character file's skeleton, and its limbs in the same poses
    /// (drawn as a ghost, so the body change shows).
    pub file_body: Option<(Skeleton, Vec<Vec<([f64; 3], [f64; 3])>>)>,
    /// Colour index per limb: the foot whose leg it belongs to, if any.
    pub leg: Vec<Option<usize>>,
    /// Treadmill-frame bounding box over the cycle: x min, x max, y max, z min, z max.
    pub extent: [f64; 5],
}

/// Where the panel's discoveries keep their sample clips (`gait --samples-dir`).
const DISCOVERY_SAMPLES_DIR: &str = "results/gaits/discovery-samples";

#[derive(Resource)]
pub struct GaitState {
    pub creatures: Vec<Creature>,
    pub creature: usize,
    pub speed: f64,
    pub period: f64,
    /// One window per foot of the chosen creature, in its order.
    pub timings: Vec<FootTiming>,
    pub discover: bool,
    pub generations: usize,
    /// λ (0: the default 4 + ⌊3 ln n⌋).
    pub population: usize,
    /// Discovery: shortest and longest period searched (s).
    pub period_range: (f64, f64),
    /// Discovery: IPOPT iteration limit of each sample's projection (`--sample-iterations`).
    pub sample_iterations: usize,
    pub max_iterations: usize,
    /// L-BFGS iterations before the exact Hessian takes over (`--lbfgs-iterations`).
    pub lbfgs_iterations: usize,
    /// Co-optimise the legs' lengths and radii (Wampler 2012, thesis §3.4).
    pub morphology: bool,
    /// With morphology: the muscle-aware effort (3.26)–(3.33); off shows why it is needed.
    pub muscle: bool,
    /// The NLP solver (`--solver`).
    pub solver: crate::nlp::Backend,
    /// Starts solved side by side, the best kept (`--starts`).
    pub starts: usize,
    /// How a solve (not a discovery or a morphology) holds the joint torques (`--torques`).
    pub torques: crate::spacetime::gait::Torques,
    /// The first start's barrier strategy (`--barrier`).
    pub barrier: crate::spacetime::job::starts::Barrier,
    /// The springs a solve with lifted torques starts from (`--springs`).
    pub springs: crate::model::StartSprings,
    /// Solve half the cycle and mirror it (`--mirror-half`; not a discovery or a morphology).
    pub mirror_half: bool,
    pub job: Option<GaitJob>,
    /// What the buttons asked for ([`state::act`]).
    action: Option<state::Action>,
    pub shown: Option<ShownGait>,
    /// Asked to hand the gait on show to the Library.
    pub to_library: bool,
    pub load_path: String,
    pub save_path: String,
    pub message: String,
    /// Playback: seconds into the loop, playing, rate, world (else treadmill) frame.
    pub time: f64,
    pub playing: bool,
    pub rate: f32,
    pub world: bool,
    next_job: u64,
    /// The plots of the discovery whose gait is on show.
    pub last_discovery: Option<DiscoveryRecord>,
}

fn setup_gait(mut commands: Commands, options: Res<Launch>) {
    let creatures = spacetime_creatures();
    let mut state = GaitState {
        creature: creatures
            .iter()
            .position(|c| c.skeleton.name == "simple biped")
            .unwrap_or(0),
        creatures,
        speed: 0.7,
        period: 1.0,
        timings: Vec::new(),
        discover: false,
        generations: 8,
        population: 0,
        period_range: crate::spacetime::discovery::PERIOD_RANGE,
        sample_iterations: crate::spacetime::discovery::SAMPLE_ITERATIONS,
        max_iterations: 3000,
        lbfgs_iterations: crate::spacetime::gait::STAGED_LBFGS_ITERATIONS,
        morphology: false,
        muscle: true,
        solver: crate::nlp::Backend::default(),
        starts: 1,
        torques: Default::default(),
        barrier: Default::default(),
        springs: Default::default(),
        mirror_half: false,
        job: None,
        action: None,
        shown: None,
        to_library: false,
        load_path: options
            .gait
            .as_ref()
            .map(|p| p.display().to_string())
            .unwrap_or_else(|| "assets/gaits/".into()),
        save_path: "results/gaits/gait.ron".into(),
        message: String::new(),
        time: 0.0,
        playing: true,
        rate: 1.0,
        world: false,
        next_job: 1,
        last_discovery: None,
    };
    state.creature_defaults();
    if state.creatures.is_empty() {
        state.message = format!("no gait creatures in {}", characters_dir().display());
    }
    if let Some(path) = &options.gait {
        state.load(path);
    }
    if let Some(path) = &options.discover_gait {
        // The creature of that file among the panel's (same file name in characters/).
        let name = path.file_name();
        match state
            .creatures
            .iter()
            .position(|c| c.path.file_name() == name)
        {
            Some(index) => {
                state.creature = index;
                state.creature_defaults();
                state.speed = options.gait_speed;
                state.discover = true;
                state.start(false);
            }
            None => {
                state.message = format!(
                    "--discover-gait {}: not a spacetime creature of {}",
                    path.display(),
                    characters_dir().display()
                )
            }
        }
    }
    commands.insert_resource(state);
}

fn advance_playback(
    time: Res<Time>,
    clock: Res<Clock>,
    bench: Res<Workbench>,
    mut state: ResMut<GaitState>,
) {
    if bench.is_open(PANEL) && state.playing && state.shown.is_some() {
        let dt = clock.dt(&time, 0.1) * state.rate as f64;
        state.time += dt;
    }
}

/// Width of the request column of the Gait window (px).
const CONTROLS_WIDTH: f32 = 330.0;

fn gait_window(InMut(ui): InMut<egui::Ui>, mut state: ResMut<GaitState>) {
    let state = &mut *state;
    {
        let height = ui.available_height();
        let result_w = (ui.available_width() - CONTROLS_WIDTH - 16.0).clamp(300.0, 640.0);
        let column = egui::Layout::top_down(egui::Align::Min);
        ui.horizontal_top(|ui| {
            ui.allocate_ui_with_layout(egui::vec2(CONTROLS_WIDTH, height), column, |ui| {
                ui.set_width(CONTROLS_WIDTH);
                egui::ScrollArea::vertical()
                    .id_salt("gait_controls")
                    .auto_shrink([false, false])
                    .show(ui, |ui| controls_ui(ui, state));
            });
            ui.separator();
            ui.allocate_ui_with_layout(egui::vec2(result_w, height), column, |ui| {
                ui.set_width(result_w);
                egui::ScrollArea::vertical()
                    .id_salt("gait_result")
                    .auto_shrink([false, false])
                    .show(ui, |ui| result_ui(ui, state));
            });
        });
    }
}
