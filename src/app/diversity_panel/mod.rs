//! Diversity panel (Agrawal et al. 2014, Fig. 5 and §7.2): start and steer an exploration job, live plots of D,
//! d_min and the penalty per variant, and a gallery of the input motion M0 and its variants
//! playing side by side in the viewport with a shared phase-normalized clock, path sliders,
//! strength toggle, ghost overlay and a phase-aligned filmstrip; save and load result sets. The
//! gallery's motions are skinned characters; "play in Library" plays one as a recorded clip.
//!
//! The science stays in [`crate::diversity`]: while a job runs its typed progress carries the
//! current incumbents ([`DiversityJob::build_result`], a `jobs::Detail`); motions are re-simulated with
//! [`evaluate_recorded`] on a background thread and cached by parameters and strength.

use super::viewport::{MainCamera, OrbitCamera};
use super::workbench::{
    AddPanel, Busy, ClaimStage, Clock, Dock, Jobs, PanelSpec, PlayClip, Stage, Workbench,
    claim_stage,
};
use crate::diversity::explore::{
    DiversityJob, ExploreConfig, ExploreMetric, ExploreResult, load_result, path_point,
};
use crate::jobs::{JobHandle, JobStatus};
use crate::model::Character;
use crate::scene::SceneKind;
use crate::task::{Metric, Task, TaskRun, evaluate_recorded};
use bevy::prelude::*;
use bevy_egui::{EguiContexts, EguiPrimaryContextPass, egui};
use crossbeam_channel::{Receiver, Sender};
use egui_plot::{Legend, Line, Plot, PlotPoints};
use std::collections::{HashMap, HashSet};
use std::path::{Path, PathBuf};
use std::sync::Arc;

mod figures;
mod gallery;
mod panel;
mod playback;

use figures::*;
use gallery::*;
use playback::*;

/// The Diversity panel's launch options.
#[derive(clap::Args, Resource, Clone, Debug, Default)]
#[group(skip)]
pub struct Launch {
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
}

/// The panel's id.
pub const PANEL: &str = "diversity";

pub struct DiversityPanelPlugin(pub Launch);

impl Plugin for DiversityPanelPlugin {
    fn build(&self, app: &mut App) {
        let on_stage = in_state(Stage::Panel(PANEL));
        app.insert_resource(self.0.clone())
            .add_systems(Startup, setup_diversity)
            .add_systems(Update, show_results)
            .add_systems(
                Update,
                (
                    start_on_launch,
                    poll_diversity,
                    request_runs,
                    claim_gallery,
                    (
                        advance_clock,
                        apply_gallery_view,
                        follow_gallery,
                        pose_gallery_figures,
                        draw_gallery,
                    )
                        .run_if(on_stage.clone()),
                    rebuild_gallery_figures,
                )
                    .chain(),
            )
            .add_systems(EguiPrimaryContextPass, gallery_labels.run_if(on_stage))
            .add_panel(
                PanelSpec {
                    id: PANEL,
                    title: "Diversity",
                    hover: "Many different versions of a skill: exploration jobs, live plots, the \
                            gallery of motions side by side (Agrawal et al. 2014)",
                    dock: Dock::Right {
                        width: 470.0,
                        fallback: false,
                    },
                    order: 40,
                    open: self.0.explore.is_some() || self.0.explore_result.is_some(),
                },
                panel::diversity_ui,
            );
    }
}

/// The gallery owns the viewport while the panel is open with a set on show and "show in
/// viewport" ticked.
fn claim_gallery(
    state: Res<DiversityState>,
    bench: Res<Workbench>,
    mut said: Local<bool>,
    mut out: MessageWriter<ClaimStage>,
) {
    let wants = bench.is_open(PANEL) && state.gallery && state.result.is_some();
    claim_stage(Stage::Panel(PANEL), wants, &mut said, &mut out);
}

/// Spacing of the gallery motions along z, m.
const GALLERY_SPACING: f32 = 2.0;
/// Columns of the filmstrip.
const FILM_COLUMNS: usize = 6;

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum MetricChoice {
    TaskDefault,
    Hf,
    Md,
    Wja,
    Shape,
}

impl MetricChoice {
    fn label(self) -> &'static str {
        match self {
            MetricChoice::TaskDefault => "task default",
            MetricChoice::Hf => "hf (hands, feet)",
            MetricChoice::Md => "md (mass)",
            MetricChoice::Wja => "wja (joint angles)",
            MetricChoice::Shape => "shape",
        }
    }
    fn metric(self) -> Option<ExploreMetric> {
        match self {
            MetricChoice::TaskDefault => None,
            MetricChoice::Hf => Some(ExploreMetric::Motion(Metric::Hf)),
            MetricChoice::Md => Some(ExploreMetric::Motion(Metric::Md)),
            MetricChoice::Wja => Some(ExploreMetric::Motion(Metric::Wja)),
            MetricChoice::Shape => Some(ExploreMetric::Shape),
        }
    }
}

enum Msg {
    Run(u64, Arc<TaskRun>),
    RunsDone,
}

/// One motion of the gallery as shown now.
pub struct GalleryEntry {
    pub index: usize,
    pub key: u64,
}

#[derive(Resource)]
pub struct DiversityState {
    /// Started with `--explore-result`: the panel opens on the gallery.
    pub launched_with_set: bool,
    // Controls.
    pub scenes: Vec<PathBuf>,
    pub scene: Option<PathBuf>,
    pub variants: usize,
    pub k: f64,
    pub metric: MetricChoice,
    pub shape_mode: bool,
    pub generations: u64,
    pub seed: u64,
    pub load_path: String,
    pub save_path: String,
    pub message: String,
    // The job (its id among the session's jobs) and the result on show.
    pub job: Option<u64>,
    pub result: Option<ExploreResult>,
    /// File the result came from (copied by Save set), if any.
    pub result_file: Option<PathBuf>,
    pub source: String,
    /// The generation of the live incumbents on show.
    live_generation: Option<u64>,
    // Gallery.
    pub gallery: bool,
    pub half_speed: bool,
    /// The camera follows the row along x (the mean centre of mass of the motions on show), so
    /// walks and long jumps stay in view.
    pub follow: bool,
    pub strength_x2: bool,
    pub ghost: bool,
    pub ghost_a: usize,
    pub ghost_b: usize,
    /// Path position per motion, percent (index 0 unused).
    pub path_percent: Vec<f32>,
    /// Phase-normalized clock: phase k at u ∈ [k, k+1).
    pub clock: f32,
    hold: f32,
    task: Option<(String, Arc<Task>, Metric)>,
    cache: HashMap<u64, Arc<TaskRun>>,
    entries: Vec<GalleryEntry>,
    in_flight: bool,
    pending: HashSet<u64>,
    view_request: bool,
    tx: Sender<Msg>,
    rx: Receiver<Msg>,
}

fn setup_diversity(mut commands: Commands, options: Res<Launch>) {
    let (tx, rx) = crossbeam_channel::unbounded();
    let scenes = super::workbench::files::scene_files(SceneKind::Task);
    let scene = options.explore.clone().or_else(|| scenes.first().cloned());
    commands.insert_resource(DiversityState {
        launched_with_set: options.explore_result.is_some(),
        scenes,
        scene,
        variants: 4,
        k: 10.0,
        metric: MetricChoice::TaskDefault,
        shape_mode: false,
        generations: 300,
        seed: 1,
        load_path: options
            .explore_result
            .as_ref()
            .map(|p| p.display().to_string())
            .unwrap_or_default(),
        save_path: "results/diversity-set.ron".into(),
        message: String::new(),
        job: None,
        result: None,
        result_file: None,
        source: String::new(),
        live_generation: None,
        gallery: true,
        half_speed: false,
        follow: true,
        strength_x2: false,
        ghost: false,
        ghost_a: 1,
        ghost_b: 2,
        path_percent: Vec::new(),
        clock: 0.0,
        hold: 0.0,
        task: None,
        cache: HashMap::new(),
        entries: Vec::new(),
        in_flight: false,
        pending: HashSet::new(),
        view_request: false,
        tx,
        rx,
    });
}

impl DiversityState {
    fn config(&self) -> Option<ExploreConfig> {
        Some(ExploreConfig {
            scene: self.scene.clone()?,
            variants: self.variants,
            generations: self.generations,
            k: self.k,
            metric: self.metric.metric(),
            shape_mode: self.shape_mode,
            seed: self.seed,
            ..ExploreConfig::default()
        })
    }

    /// The running or finished job's handle.
    pub fn job<'a>(&self, jobs: &'a Jobs) -> Option<&'a JobHandle> {
        jobs.get(self.job?)
    }

    pub fn start(&mut self, jobs: &mut Jobs) {
        if let Some(id) = self.job {
            jobs.cancel(id);
        }
        let Some(config) = self.config() else {
            self.message = "choose a scene with a task".into();
            return;
        };
        match DiversityJob::new(config) {
            Ok(job) => {
                // The initial state (M0 and N copies) is shown until the first checkpoint.
                self.set_result(job.build_result(), None, "exploration starting".into());
                match jobs.spawn(Box::new(job), None) {
                    Ok(id) => {
                        let folder = jobs.get(id).map(|h| h.folder.display().to_string());
                        self.message = format!("job #{id} in {}", folder.unwrap_or_default());
                        self.job = Some(id);
                        self.live_generation = None;
                    }
                    Err(e) => self.message = format!("cannot start: {e}"),
                }
            }
            Err(e) => self.message = format!("cannot start: {e:#}"),
        }
    }

    fn set_result(&mut self, result: ExploreResult, file: Option<PathBuf>, source: String) {
        let n = result.motions.len();
        self.path_percent
            .resize(n.max(self.path_percent.len()), 100.0);
        if self.ghost_a >= n {
            self.ghost_a = n.saturating_sub(1).min(1);
        }
        if self.ghost_b >= n {
            self.ghost_b = n.saturating_sub(1);
        }
        if self.result.is_none() {
            self.view_request = true;
        }
        self.result = Some(result);
        self.result_file = file;
        self.source = source;
    }

    pub fn load(&mut self, path: &Path) {
        match load_result(path) {
            Ok(r) => {
                self.message = format!(
                    "loaded {} ({} motions, D = {:.3})",
                    path.display(),
                    r.motions.len(),
                    r.diversity
                );
                self.set_result(
                    r,
                    Some(path.to_path_buf()),
                    format!("set {}", path.display()),
                );
                self.view_request = true;
            }
            Err(e) => self.message = format!("{e:#}"),
        }
    }

    fn save(&mut self, path: &Path) {
        let outcome = match (&self.result_file, &self.result) {
            (Some(src), _) => std::fs::copy(src, path).map(|_| ()),
            (None, Some(r)) => crate::jobs::write_ron(path, r),
            (None, None) => {
                self.message = "nothing to save".into();
                return;
            }
        };
        self.message = match outcome {
            Ok(()) => format!("saved {}", path.display()),
            Err(e) => format!("cannot save {}: {e}", path.display()),
        };
    }
}

fn start_on_launch(
    options: Res<Launch>,
    mut done: Local<bool>,
    mut state: ResMut<DiversityState>,
    mut jobs: ResMut<Jobs>,
    mut play: MessageWriter<PlayClip>,
) {
    if *done {
        return;
    }
    *done = true;
    if let Some(path) = &options.explore_result {
        let p = path.clone();
        state.load(&p);
        if let Some(i) = options.play_motion {
            state.play_in_library(i, &mut play);
        }
    } else if options.explore.is_some() {
        state.start(&mut jobs);
    }
}

impl DiversityState {
    /// "Play in Library": motion `index` replayed with its frames recorded
    /// ([`crate::diversity::explore::recorded_clip`]), sent to the Library as a clip on its
    /// skinned character (a shape variant on its own body).
    pub fn play_in_library(&mut self, index: usize, play: &mut MessageWriter<PlayClip>) {
        let Some(result) = &self.result else {
            return;
        };
        match crate::diversity::explore::recorded_clip(result, index, None) {
            Ok((clip, character, own_body)) => {
                let body = if own_body { " on its own body" } else { "" };
                play.write(PlayClip {
                    clip,
                    character,
                    label: format!("diversity panel: {} M{index}", self.source),
                    note: format!("the Diversity panel's M{index}{body}, recorded"),
                });
            }
            Err(e) => self.message = format!("cannot replay M{index}: {e:#}"),
        }
    }
}

fn poll_diversity(mut state: ResMut<DiversityState>, jobs: Res<Jobs>, mut busy: ResMut<Busy>) {
    let state = &mut *state;
    if state.in_flight {
        busy.add(PANEL, "gallery rollouts");
    }
    // Job events.
    let mut finished = None;
    if let Some(h) = state.job.and_then(|id| jobs.get(id)) {
        if h.status == JobStatus::Finished {
            if let Some(p) = h.result.clone() {
                if state.result_file.as_ref() != Some(&p) {
                    finished = Some(p);
                }
            }
        }
    }
    if let Some(p) = finished {
        match load_result(&p) {
            Ok(r) => state.set_result(
                r,
                Some(p.clone()),
                format!("finished job ({})", p.display()),
            ),
            Err(e) => state.message = format!("{e:#}"),
        }
    }
    // Live incumbents, as the job reports them (typed progress, not its checkpoint on disk).
    let live = state.job.and_then(|id| jobs.get(id)).and_then(|h| {
        let r = h.progress.detail::<ExploreResult>()?;
        (!h.is_done() && Some(r.generations) != state.live_generation).then(|| r.clone())
    });
    if let Some(r) = live
        && state.result_file.is_none()
    {
        let g = r.generations;
        state.live_generation = Some(g);
        state.set_result(r, None, format!("live incumbents, generation {g}"));
    }
    let msgs: Vec<Msg> = state.rx.try_iter().collect();
    for m in msgs {
        match m {
            Msg::Run(key, run) => {
                state.pending.remove(&key);
                state.cache.insert(key, run);
            }
            Msg::RunsDone => {
                state.in_flight = false;
                state.pending.clear();
            }
        }
    }
}

fn params_key(params: &[f64], strength: f32, task: &str) -> u64 {
    use std::hash::{Hash, Hasher};
    let mut h = std::collections::hash_map::DefaultHasher::new();
    task.hash(&mut h);
    strength.to_bits().hash(&mut h);
    for p in params {
        p.to_bits().hash(&mut h);
    }
    h.finish()
}

/// Works out which simulations the gallery needs and starts the missing ones in the background.
fn request_runs(mut state: ResMut<DiversityState>) {
    let state = &mut *state;
    let Some(result) = &state.result else {
        state.entries.clear();
        return;
    };
    let mult = if state.strength_x2 { 2.0 } else { 1.0 };
    let task_id = format!(
        "{}|{}|{}",
        result.config.scene.display(),
        result.config.shape_mode,
        result.config.strength * mult
    );
    if state.task.as_ref().is_none_or(|t| t.0 != task_id) {
        match result.config.load_task() {
            Ok(mut task) => {
                task.strength = result.config.strength * mult;
                let metric = match result.config.metric {
                    Some(ExploreMetric::Motion(m)) => m,
                    _ => task.def.metric,
                };
                state.task = Some((task_id.clone(), Arc::new(task), metric));
            }
            Err(e) => {
                state.message = format!("cannot load the task: {e:#}");
                state.entries.clear();
                return;
            }
        }
    }
    let Some((_, task, metric)) = state.task.clone() else {
        return;
    };
    let mut entries = Vec::new();
    let mut missing = Vec::new();
    for i in 0..result.motions.len() {
        let frac = state.path_percent.get(i).copied().unwrap_or(100.0) as f64 / 100.0;
        let Some(params) = path_point(result, i, frac) else {
            continue;
        };
        if params.len() != task.dimension() {
            continue;
        }
        let key = params_key(&params, mult, &task_id);
        if !state.cache.contains_key(&key) && !state.pending.contains(&key) {
            missing.push((key, params));
        }
        entries.push(GalleryEntry { index: i, key });
    }
    state.entries = entries;
    if !missing.is_empty() && !state.in_flight {
        if state.cache.len() > 300 {
            state.cache.clear();
        }
        state.in_flight = true;
        state.pending = missing.iter().map(|m| m.0).collect();
        let tx = state.tx.clone();
        std::thread::spawn(move || {
            for (key, params) in missing {
                let run = evaluate_recorded(&task, &params, metric);
                let _ = tx.send(Msg::Run(key, Arc::new(run)));
            }
            let _ = tx.send(Msg::RunsDone);
        });
    }
}

/// A watched job folder's finished result (the Jobs panel's "Show"), shown here.
fn show_results(
    mut shows: MessageReader<super::workbench::ShowResult>,
    mut state: ResMut<DiversityState>,
    mut open: MessageWriter<super::workbench::OpenPanel>,
) {
    for s in shows.read() {
        if s.kind == crate::job_folder::FolderKind::Explore {
            state.load(&s.path);
            open.write(super::workbench::OpenPanel {
                id: PANEL,
                open: true,
            });
        }
    }
}
