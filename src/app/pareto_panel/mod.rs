//! Pareto panel (Agrawal 2015, thesis ch. 4): start a front of jump controllers (RMOO,
//! BSOO or MO-CMA-ES) as a job and watch it fill in live: the front of head height against log
//! effort over every sample, the natural/supernatural boundary, the hypervolume per rollout of
//! every run of the session side by side, and the Table 4.2 columns. Clicking a front point
//! plays its jump in the viewport; several selected points play at once as ghosts, with the
//! supernatural assist drawn as an upward arrow on the centre of mass while it acts. Selected
//! points save as clips.
//!
//! The science stays in [`crate::pareto`]: the job's typed progress carries the live
//! [`ParetoResult`]; jumps are re-simulated with [`JumpTask::run_recorded`] on a background
//! thread and cached by their parameters.

use super::workbench::{
    AddPanel, Busy, ClaimStage, Clock, Dock, Jobs, PanelSpec, Stage, Workbench, claim_stage,
};
use crate::jobs::{JobHandle, JobStatus};
use crate::pareto::run::HypervolumePoint;
use crate::pareto::{
    JumpOutcome, JumpTask, Method, NATURAL_GRAVITY, ParetoConfig, ParetoResult, ParetoRun,
    load_result,
};
use crate::scene::SceneKind;
use crate::task::TaskRun;
use bevy::prelude::*;
use bevy_egui::egui;
use crossbeam_channel::{Receiver, Sender};
use std::collections::{HashMap, HashSet};
use std::path::{Path, PathBuf};
use std::sync::Arc;

mod figures;
mod panel;

/// The Pareto panel's launch options.
#[derive(clap::Args, Resource, Clone, Debug, Default)]
#[group(skip)]
pub struct Launch {
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
}

/// The panel's id.
pub const PANEL: &str = "pareto";

pub struct ParetoPanelPlugin(pub Launch);

impl Plugin for ParetoPanelPlugin {
    fn build(&self, app: &mut App) {
        let on_stage = in_state(Stage::Panel(PANEL));
        app.insert_resource(self.0.clone())
            .add_systems(Startup, setup)
            .add_systems(Update, show_results)
            .add_systems(
                Update,
                (
                    start_on_launch,
                    poll,
                    request_runs,
                    claim_pareto,
                    (advance_clock, figures::pose_figures, figures::draw_assist).run_if(on_stage),
                    figures::rebuild_figures,
                )
                    .chain(),
            )
            .add_panel(
                PanelSpec {
                    id: PANEL,
                    title: "Pareto",
                    hover: "Pareto fronts of jump height against effort (Agrawal 2015, ch. 4)",
                    dock: Dock::Right {
                        width: 540.0,
                        fallback: false,
                    },
                    order: 50,
                    open: self.0.pareto.is_some() || !self.0.pareto_result.is_empty(),
                },
                panel::pareto_ui,
            );
    }
}

/// The jumps own the viewport while the panel is open with a simulated point selected.
fn claim_pareto(
    state: Res<ParetoState>,
    bench: Res<Workbench>,
    mut said: Local<bool>,
    mut out: MessageWriter<ClaimStage>,
) {
    let wants = bench.is_open(PANEL) && state.showing();
    claim_stage(Stage::Panel(PANEL), wants, &mut said, &mut out);
}

/// A jump re-simulated for playback.
pub struct Recorded {
    pub outcome: JumpOutcome,
    pub run: TaskRun,
    /// Vertical gravity of every step (the assist's profile), aligned with the frames.
    pub gravity: Vec<f32>,
}

enum Msg {
    Run(u64, Arc<Recorded>),
    RunsDone,
}

#[derive(Resource)]
pub struct ParetoState {
    pub scenes: Vec<PathBuf>,
    pub scene: Option<PathBuf>,
    pub method: Method,
    pub seed: u64,
    pub generations: u64,
    pub message: String,
    /// The running or last job's id among the session's jobs.
    pub job: Option<u64>,
    pub result: Option<ParetoResult>,
    pub result_file: Option<PathBuf>,
    /// Hypervolume per rollout of every run of the session (label, history).
    pub histories: Vec<(String, Vec<HypervolumePoint>)>,
    /// Front points playing (indices into the result's front); all but the first are ghosts.
    pub selected: Vec<usize>,
    pub clip_dir: String,
    /// Playback time, s.
    pub clock: f32,
    pub half_speed: bool,
    jump: Option<(PathBuf, Arc<JumpTask>)>,
    cache: HashMap<u64, Arc<Recorded>>,
    pending: HashSet<u64>,
    in_flight: bool,
    tx: Sender<Msg>,
    rx: Receiver<Msg>,
    live_generation: Option<u64>,
}

fn setup(mut commands: Commands, options: Res<Launch>) {
    let (tx, rx) = crossbeam_channel::unbounded();
    let scenes = super::workbench::files::scene_files(SceneKind::Pareto);
    let scene = options.pareto.clone().or_else(|| scenes.first().cloned());
    commands.insert_resource(ParetoState {
        scenes,
        scene,
        method: Method::Rmoo,
        seed: 1,
        generations: 300,
        message: String::new(),
        job: None,
        result: None,
        result_file: None,
        histories: Vec::new(),
        selected: options.pareto_point.clone(),
        clip_dir: "results/pareto-clips".into(),
        clock: 0.0,
        half_speed: false,
        jump: None,
        cache: HashMap::new(),
        pending: HashSet::new(),
        in_flight: false,
        tx,
        rx,
        live_generation: None,
    });
}

/// Colour of a front point: brown when natural, blue when assisted (Fig. 4.5's regimes).
pub fn regime_colour(natural: bool) -> [f32; 3] {
    if natural {
        [0.55, 0.33, 0.16]
    } else {
        [0.20, 0.42, 0.85]
    }
}

fn method_label(m: Method) -> &'static str {
    match m {
        Method::Rmoo => "RMOO",
        Method::Bsoo => "BSOO",
        Method::Mocma => "MO-CMA-ES",
    }
}

impl ParetoState {
    /// The running or last job's handle.
    pub fn job<'a>(&self, jobs: &'a Jobs) -> Option<&'a JobHandle> {
        jobs.get(self.job?)
    }

    pub fn start(&mut self, jobs: &mut Jobs) {
        if let Some(id) = self.job {
            jobs.cancel(id);
        }
        let Some(scene) = self.scene.clone() else {
            self.message = "choose a scene with a `pareto` section".into();
            return;
        };
        let mut config = ParetoConfig::new(scene, self.method);
        config.seed = self.seed;
        config.generations = self.generations;
        match ParetoRun::new(config) {
            Ok(run) => {
                self.set_result(run.result(), None);
                self.histories.push((
                    format!("{} seed {}", method_label(self.method), self.seed),
                    Vec::new(),
                ));
                match jobs.spawn(Box::new(run), None) {
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

    fn set_result(&mut self, result: ParetoResult, file: Option<PathBuf>) {
        let n = result.front.len();
        self.selected.retain(|&i| i < n);
        self.result = Some(result);
        self.result_file = file;
    }

    pub fn load(&mut self, path: &Path) {
        match load_result(path) {
            Ok(r) => {
                self.message = format!(
                    "loaded {} ({} front points, hypervolume {:.3})",
                    path.display(),
                    r.front.len(),
                    r.hypervolume
                );
                self.histories.push((
                    format!(
                        "{} seed {} (file)",
                        method_label(r.config.method),
                        r.config.seed
                    ),
                    r.history.clone(),
                ));
                self.set_result(r, Some(path.to_path_buf()));
            }
            Err(e) => self.message = format!("{e:#}"),
        }
    }

    /// Toggles point `i` in the selection; `alone` makes it the only one.
    pub fn select(&mut self, i: usize, alone: bool) {
        if alone {
            self.selected = vec![i];
        } else if let Some(k) = self.selected.iter().position(|&s| s == i) {
            self.selected.remove(k);
        } else {
            self.selected.push(i);
        }
        self.clock = 0.0;
    }

    /// Whether a selected jump has been simulated and can play.
    pub fn showing(&self) -> bool {
        self.selected.iter().any(|&i| self.recorded(i).is_some())
    }

    /// The recorded jump of front point `i`, once simulated.
    pub fn recorded(&self, i: usize) -> Option<&Arc<Recorded>> {
        let p = self.result.as_ref()?.front.get(i)?;
        self.cache.get(&key(&p.x))
    }

    /// Writes every selected point as a clip into `clip_dir`.
    pub fn save_clips(&mut self) {
        let Some(r) = &self.result else {
            self.message = "nothing to save".into();
            return;
        };
        let dir = PathBuf::from(&self.clip_dir);
        let mut saved = Vec::new();
        for &i in &self.selected {
            let path = dir.join(format!(
                "{}-{}-seed{}-point{i}.ron",
                r.config
                    .scene
                    .file_stem()
                    .map(|s| s.to_string_lossy().into_owned())
                    .unwrap_or_default(),
                method_label(r.config.method).to_lowercase(),
                r.config.seed
            ));
            let outcome = std::fs::create_dir_all(&dir)
                .map_err(anyhow::Error::from)
                .and_then(|_| crate::pareto::run::front_clip(r, i))
                .and_then(|c| Ok(c.save(&path)?));
            match outcome {
                Ok(()) => saved.push(path.display().to_string()),
                Err(e) => {
                    self.message = format!("point {i}: {e:#}");
                    return;
                }
            }
        }
        self.message = if saved.is_empty() {
            "select front points to save".into()
        } else {
            format!("saved {}", saved.join(", "))
        };
    }
}

fn key(x: &[f64]) -> u64 {
    use std::hash::{Hash, Hasher};
    let mut h = std::collections::hash_map::DefaultHasher::new();
    for v in x {
        v.to_bits().hash(&mut h);
    }
    h.finish()
}

fn start_on_launch(
    options: Res<Launch>,
    mut done: Local<bool>,
    mut state: ResMut<ParetoState>,
    mut jobs: ResMut<Jobs>,
) {
    if *done {
        return;
    }
    *done = true;
    if !options.pareto_result.is_empty() {
        for p in &options.pareto_result {
            state.load(p);
        }
        state.selected = options.pareto_point.clone();
        if let Some(n) = state.result.as_ref().map(|r| r.front.len()) {
            state.selected.retain(|&i| i < n);
        }
    } else if options.pareto.is_some() {
        state.start(&mut jobs);
    }
}

fn poll(mut state: ResMut<ParetoState>, jobs: Res<Jobs>, mut busy: ResMut<Busy>) {
    let state = &mut *state;
    if state.in_flight {
        busy.add(PANEL, "jump rollouts");
    }
    let mut finished = None;
    if let Some(h) = state.job.and_then(|id| jobs.get(id)) {
        if h.status == JobStatus::Finished
            && let Some(p) = h.result.clone()
            && state.result_file.as_ref() != Some(&p)
        {
            finished = Some(p);
        }
    }
    if let Some(p) = finished {
        match load_result(&p) {
            Ok(r) => {
                if let Some(last) = state.histories.last_mut() {
                    last.1 = r.history.clone();
                }
                state.message = format!("finished: {}", p.display());
                state.set_result(r, Some(p));
            }
            Err(e) => state.message = format!("{e:#}"),
        }
    }
    let live = state.job.and_then(|id| jobs.get(id)).and_then(|h| {
        let r = h.progress.detail::<ParetoResult>()?;
        (!h.is_done() && Some(r.generations) != state.live_generation).then(|| r.clone())
    });
    if let Some(r) = live {
        state.live_generation = Some(r.generations);
        if let Some(last) = state.histories.last_mut() {
            last.1 = r.history.clone();
        }
        state.set_result(r, None);
    }
    let msgs: Vec<Msg> = state.rx.try_iter().collect();
    for m in msgs {
        match m {
            Msg::Run(k, r) => {
                state.pending.remove(&k);
                state.cache.insert(k, r);
            }
            Msg::RunsDone => {
                state.in_flight = false;
                state.pending.clear();
            }
        }
    }
}

/// Simulates the selected points that are not cached yet, on a background thread.
fn request_runs(mut state: ResMut<ParetoState>) {
    let state = &mut *state;
    let Some(result) = &state.result else { return };
    if state
        .jump
        .as_ref()
        .is_none_or(|j| j.0 != result.config.scene)
    {
        match result.config.load_jump() {
            Ok(j) => state.jump = Some((result.config.scene.clone(), Arc::new(j))),
            Err(e) => {
                state.message = format!("{e:#}");
                return;
            }
        }
    }
    let Some((_, jump)) = state.jump.clone() else {
        return;
    };
    let missing: Vec<(u64, Vec<f64>)> = state
        .selected
        .iter()
        .filter_map(|&i| result.front.get(i))
        .map(|p| (key(&p.x), p.x.clone()))
        .filter(|(k, _)| !state.cache.contains_key(k) && !state.pending.contains(k))
        .collect();
    if missing.is_empty() || state.in_flight {
        return;
    }
    if state.cache.len() > 64 {
        state.cache.clear();
    }
    state.in_flight = true;
    state.pending = missing.iter().map(|m| m.0).collect();
    let tx = state.tx.clone();
    std::thread::spawn(move || {
        for (k, x) in missing {
            let (outcome, run, gravity) = jump.run_recorded(&x);
            let _ = tx.send(Msg::Run(
                k,
                Arc::new(Recorded {
                    outcome,
                    run,
                    gravity,
                }),
            ));
        }
        let _ = tx.send(Msg::RunsDone);
    });
}

fn advance_clock(time: Res<Time>, clock: Res<Clock>, mut state: ResMut<ParetoState>) {
    let longest = state
        .selected
        .iter()
        .filter_map(|&i| state.recorded(i))
        .filter_map(|r| r.run.frames.last().map(|f| f.time))
        .fold(0.0f32, f32::max);
    if longest <= 0.0 {
        return;
    }
    let dt = clock.dt(&time, 0.25) as f32 * if state.half_speed { 0.5 } else { 1.0 };
    state.clock += dt;
    // A short hold on the last frame, then again from the start.
    if state.clock > longest + 0.8 {
        state.clock = 0.0;
    }
}

/// Whether gravity is assisted at frame `k` of a recorded jump.
pub fn assisted(r: &Recorded, k: usize) -> Option<f32> {
    let g = *r.gravity.get(k)?;
    (g != NATURAL_GRAVITY).then_some(g)
}

/// A watched job folder's finished result (the Jobs panel's "Show"), shown here.
fn show_results(
    mut shows: MessageReader<super::workbench::ShowResult>,
    mut state: ResMut<ParetoState>,
    mut open: MessageWriter<super::workbench::OpenPanel>,
) {
    for s in shows.read() {
        if s.kind == crate::job_folder::FolderKind::Pareto {
            state.load(&s.path);
            open.write(super::workbench::OpenPanel {
                id: PANEL,
                open: true,
            });
        }
    }
}
