//! Diversity panel (specs/002_003.md B3): start and steer an exploration job, live plots of D,
//! d_min and the penalty per variant, and a gallery of the input motion M0 and its variants
//! playing side by side in the viewport with a shared phase-normalized clock, path sliders,
//! strength toggle, ghost overlay and a phase-aligned filmstrip; save and load result sets.
//!
//! The science stays in [`crate::diversity`]: while a job runs its `checkpoint.ron` is re-read
//! (off the main thread, when it changes, at most every 2 s) and turned into the current
//! incumbents with [`DiversityJob::build_result`]; motions are re-simulated with
//! [`evaluate_recorded`] on a background thread and cached by parameters and strength.

use super::jobs_panel::JobsState;
use super::overlays::Overlays;
use super::viewport::{MainCamera, OrbitCamera};
use crate::diversity::explore::{
    DiversityJob, ExploreConfig, ExploreMetric, ExploreResult, load_result, path_point,
};
use crate::jobs::{JobHandle, JobStatus};
use crate::model::{Axis, Character, Shape};
use crate::task::{Metric, Task, TaskRun, evaluate_recorded};
use bevy::prelude::*;
use bevy_egui::{EguiContexts, EguiPrimaryContextPass, egui};
use crossbeam_channel::{Receiver, Sender};
use egui_plot::{Legend, Line, Plot, PlotPoints};
use std::collections::{HashMap, HashSet};
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::{Instant, SystemTime};

pub struct DiversityPanelPlugin;

impl Plugin for DiversityPanelPlugin {
    fn build(&self, app: &mut App) {
        app.add_systems(Startup, setup_diversity)
            .add_systems(
                Update,
                (
                    start_on_launch,
                    poll_diversity,
                    request_runs,
                    advance_clock,
                    apply_gallery_view,
                    follow_gallery,
                    draw_gallery,
                )
                    .chain(),
            )
            .add_systems(EguiPrimaryContextPass, gallery_labels);
    }
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
    /// Current incumbents of the running job (from its checkpoint).
    Live(Box<ExploreResult>),
    LiveFailed(String),
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
    pub visible: bool,
    /// The viewport area left free by the panels (for the gallery labels).
    pub central: Option<egui::Rect>,
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
    // The job and the result on show.
    pub job: Option<JobHandle>,
    pub result: Option<ExploreResult>,
    /// File the result came from (copied by Save set), if any.
    pub result_file: Option<PathBuf>,
    pub source: String,
    checkpoint_seen: Option<SystemTime>,
    checkpoint_read_at: Option<Instant>,
    live_loading: bool,
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

fn scenes_dir() -> PathBuf {
    let local = PathBuf::from("scenes");
    if local.is_dir() {
        local
    } else {
        PathBuf::from(concat!(env!("CARGO_MANIFEST_DIR"), "/scenes"))
    }
}

/// Scene files that define a task.
fn task_scenes() -> Vec<PathBuf> {
    let mut files: Vec<PathBuf> = std::fs::read_dir(scenes_dir())
        .map(|rd| {
            rd.filter_map(|e| e.ok())
                .map(|e| e.path())
                .filter(|p| p.extension().is_some_and(|x| x == "ron"))
                .filter(|p| {
                    std::fs::read_to_string(p)
                        .map(|t| t.contains("task:"))
                        .unwrap_or(false)
                })
                .collect()
        })
        .unwrap_or_default();
    files.sort();
    files
}

fn setup_diversity(mut commands: Commands, options: Res<super::AppOptions>) {
    let (tx, rx) = crossbeam_channel::unbounded();
    let scenes = task_scenes();
    let scene = options.explore.clone().or_else(|| scenes.first().cloned());
    commands.insert_resource(DiversityState {
        visible: options.explore.is_some() || options.explore_result.is_some(),
        central: None,
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
        checkpoint_seen: None,
        checkpoint_read_at: None,
        live_loading: false,
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

    pub fn start(&mut self, jobs: &JobsState) {
        let Some(runner) = &jobs.runner else {
            self.message = "no job pool".into();
            return;
        };
        if let Some(h) = &self.job {
            if !h.is_done() {
                h.cancel();
            }
        }
        let Some(config) = self.config() else {
            self.message = "choose a scene with a task".into();
            return;
        };
        match DiversityJob::new(config) {
            Ok(job) => {
                // The initial state (M0 and N copies) is shown until the first checkpoint.
                self.set_result(job.build_result(), None, "exploration starting".into());
                let handle = runner.spawn(Box::new(job), None);
                self.message = format!("job #{} in {}", handle.id, handle.folder.display());
                self.job = Some(handle);
                self.checkpoint_seen = None;
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
    options: Res<super::AppOptions>,
    mut done: Local<bool>,
    mut state: ResMut<DiversityState>,
    jobs: Option<Res<JobsState>>,
) {
    if *done {
        return;
    }
    let Some(jobs) = jobs else { return };
    *done = true;
    if let Some(path) = &options.explore_result {
        let p = path.clone();
        state.load(&p);
    } else if options.explore.is_some() {
        state.start(&jobs);
    }
}

fn mtime(p: &Path) -> Option<SystemTime> {
    std::fs::metadata(p).and_then(|m| m.modified()).ok()
}

fn poll_diversity(mut state: ResMut<DiversityState>) {
    let state = &mut *state;
    // Job events.
    let mut finished = None;
    if let Some(h) = &mut state.job {
        h.poll();
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
    // Live incumbents from the checkpoint.
    if let Some(h) = &state.job {
        if !h.is_done()
            && !state.live_loading
            && state
                .checkpoint_read_at
                .is_none_or(|t| t.elapsed().as_secs_f32() >= 2.0)
        {
            let cp = h.folder.join("checkpoint.ron");
            let m = mtime(&cp);
            if m.is_some() && m != state.checkpoint_seen {
                state.checkpoint_seen = m;
                state.checkpoint_read_at = Some(Instant::now());
                state.live_loading = true;
                let tx = state.tx.clone();
                std::thread::spawn(move || {
                    let msg = std::fs::read_to_string(&cp)
                        .map_err(anyhow::Error::from)
                        .and_then(|t| DiversityJob::from_checkpoint(&t))
                        .map(|j| Msg::Live(Box::new(j.build_result())))
                        .unwrap_or_else(|e| Msg::LiveFailed(format!("{e:#}")));
                    let _ = tx.send(msg);
                });
            }
        }
    }
    let msgs: Vec<Msg> = state.rx.try_iter().collect();
    for m in msgs {
        match m {
            Msg::Live(r) => {
                state.live_loading = false;
                // A finished job's result wins over a late checkpoint.
                if state.result_file.is_none() {
                    let g = r.generations;
                    state.set_result(*r, None, format!("live incumbents, generation {g}"));
                }
            }
            Msg::LiveFailed(e) => {
                state.live_loading = false;
                state.message = format!("checkpoint: {e}");
            }
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

/// Start and end time of every phase the motion went through, in the order they ran.
fn phase_spans(run: &TaskRun) -> Vec<(f32, f32)> {
    let last = run.frames.last().map(|f| f.time).unwrap_or(0.0);
    let ph = &run.evaluation.phases;
    ph.iter()
        .enumerate()
        .map(|(k, p)| {
            let end = p
                .end
                .or_else(|| ph.get(k + 1).map(|n| n.start))
                .unwrap_or(last)
                .max(p.start);
            (p.start, end)
        })
        .collect()
}

/// The motion's own time at phase clock `u` (phase ⌊u⌋, fraction u − ⌊u⌋ of it).
fn time_at(spans: &[(f32, f32)], u: f32, last: f32) -> f32 {
    if spans.is_empty() {
        return u.min(last);
    }
    let k = u.floor().max(0.0) as usize;
    if k >= spans.len() {
        return spans.last().map(|s| s.1).unwrap_or(last);
    }
    let (a, b) = spans[k];
    a + (u - k as f32).clamp(0.0, 1.0) * (b - a)
}

fn frame_at(run: &TaskRun, t: f32) -> Option<&crate::sim::Frame> {
    if run.frames.is_empty() {
        return None;
    }
    let i = run
        .frames
        .partition_point(|f| f.time < t)
        .min(run.frames.len() - 1);
    run.frames.get(i)
}

impl DiversityState {
    fn run(&self, index: usize) -> Option<&Arc<TaskRun>> {
        self.entries
            .iter()
            .find(|e| e.index == index)
            .and_then(|e| self.cache.get(&e.key))
    }
    /// Number of phases of the shared clock: the most any motion went through (a motion that
    /// fell early holds its last frame for the phases it never reached).
    fn phase_count(&self) -> usize {
        self.entries
            .iter()
            .filter_map(|e| self.cache.get(&e.key))
            .map(|r| r.evaluation.phases.len())
            .max()
            .unwrap_or(1)
            .max(1)
    }
    /// How long phase `k` lasts on screen: as in M0 when M0 reached it, else as in the first
    /// motion that did.
    fn phase_duration(&self, k: usize) -> f32 {
        self.entries
            .iter()
            .filter_map(|e| self.cache.get(&e.key))
            .find_map(|r| phase_spans(r).get(k).map(|s| s.1 - s.0))
            .unwrap_or(0.5)
            .max(0.05)
    }
    /// Name of phase `k` (from the first motion that reached it).
    fn phase_name(&self, k: usize) -> String {
        self.entries
            .iter()
            .filter_map(|e| self.cache.get(&e.key))
            .find_map(|r| r.evaluation.phases.get(k).map(|p| p.name.clone()))
            .unwrap_or_default()
    }
    /// The frame of motion `index` at phase clock `u`.
    fn frame(&self, index: usize, u: f32) -> Option<(&Character, &crate::sim::Frame)> {
        let run = self.run(index)?;
        let spans = phase_spans(run);
        let last = run.frames.last()?.time;
        let t = time_at(&spans, u, last);
        Some((&run.character, frame_at(run, t)?))
    }
}

fn advance_clock(time: Res<Time>, mut state: ResMut<DiversityState>) {
    if !state.visible || !state.gallery {
        return;
    }
    let dt = time.delta_secs().min(0.25) * if state.half_speed { 0.5 } else { 1.0 };
    let phases = state.phase_count() as f32;
    if state.hold > 0.0 {
        state.hold -= dt;
        if state.hold <= 0.0 {
            state.clock = 0.0;
        }
        return;
    }
    // The clock runs at M0's pace: one of its phases takes as long as it does in M0.
    let dur = state.phase_duration(state.clock.floor() as usize);
    state.clock += dt / dur;
    if state.clock >= phases {
        state.clock = phases;
        state.hold = 0.8;
    }
}

fn apply_gallery_view(
    mut state: ResMut<DiversityState>,
    mut orbit: ResMut<OrbitCamera>,
    mut overlays: ResMut<Overlays>,
) {
    if !state.view_request || !state.visible || !state.gallery {
        return;
    }
    let n = state.result.as_ref().map(|r| r.motions.len()).unwrap_or(0);
    if n == 0 {
        return;
    }
    state.view_request = false;
    // The live character would stand inside M0: hide it; look at the row obliquely.
    overlays.skin = false;
    overlays.com = false;
    overlays.contacts = false;
    overlays.torques = false;
    overlays.colliders = false;
    orbit.follow = false;
    let mid = (n - 1) as f32 * GALLERY_SPACING / 2.0;
    // Yaw ≈ 45°: lanes (z) spread across the screen while the sagittal (x–y) motion stays readable.
    orbit.target = Vec3::new(-0.3, 0.8, mid);
    orbit.yaw = 0.8;
    orbit.pitch = 0.2;
    orbit.distance = 4.0 + n as f32 * 1.6;
}

/// Keeps the orbit target on the mean x of the motions' centres of mass at the gallery clock
/// (the lanes' z and the user's zoom and angle are left alone).
fn follow_gallery(state: Res<DiversityState>, mut orbit: ResMut<OrbitCamera>) {
    if !state.follow || !state.visible || !state.gallery || state.entries.is_empty() {
        return;
    }
    let xs: Vec<f32> = state
        .entries
        .iter()
        .filter_map(|e| state.frame(e.index, state.clock).map(|(_, f)| f.com[0]))
        .collect();
    if xs.is_empty() {
        return;
    }
    orbit.target.x = xs.iter().sum::<f32>() / xs.len() as f32 - 0.3;
}

fn motion_colour(i: usize) -> [f32; 3] {
    const PALETTE: [[f32; 3]; 8] = [
        [0.20, 0.55, 0.95],
        [0.95, 0.45, 0.10],
        [0.15, 0.70, 0.30],
        [0.85, 0.20, 0.55],
        [0.55, 0.35, 0.85],
        [0.10, 0.70, 0.75],
        [0.80, 0.70, 0.10],
        [0.60, 0.40, 0.25],
    ];
    if i == 0 {
        [0.95, 0.95, 0.95]
    } else {
        PALETTE[(i - 1) % PALETTE.len()]
    }
}

/// Joint centres in the world for a frame: (parent body, anchor, child body) per joint.
fn skeleton(character: &Character, frame: &crate::sim::Frame) -> Vec<(Vec3, Vec3, Vec3)> {
    let pose = |i: usize| super::pose_to_transform(frame.poses[i]);
    character
        .joints
        .iter()
        .filter_map(|j| {
            let pi = character.body_index(&j.parent)?;
            let ci = character.body_index(&j.child)?;
            if pi >= frame.poses.len() || ci >= frame.poses.len() {
                return None;
            }
            let child = &character.bodies[ci];
            let q = child.orientation();
            let reference = Transform::from_translation(Vec3::from(child.position))
                .with_rotation(Quat::from_xyzw(q[0], q[1], q[2], q[3]));
            let local = reference
                .to_matrix()
                .inverse()
                .transform_point3(Vec3::from(j.anchor));
            Some((
                pose(pi).translation,
                pose(ci).transform_point(local),
                pose(ci).translation,
            ))
        })
        .collect()
}

fn draw_figure(
    gizmos: &mut Gizmos,
    character: &Character,
    frame: &crate::sim::Frame,
    offset: Vec3,
    colour: Color,
) {
    for (i, b) in character.bodies.iter().enumerate() {
        let Some(p) = frame.poses.get(i) else {
            continue;
        };
        let t = super::pose_to_transform(*p);
        let at = t.translation + offset;
        match b.shape {
            Shape::Capsule {
                radius,
                half_length,
                axis,
            } => {
                let extra = match axis {
                    Axis::X => Quat::from_rotation_z(-std::f32::consts::FRAC_PI_2),
                    Axis::Y => Quat::IDENTITY,
                    Axis::Z => Quat::from_rotation_x(std::f32::consts::FRAC_PI_2),
                };
                gizmos.primitive_3d(
                    &Capsule3d::new(radius, 2.0 * half_length),
                    Isometry3d::new(at, t.rotation * extra),
                    colour,
                );
            }
            Shape::Box { half_extents: h } => {
                gizmos.primitive_3d(
                    &Cuboid::new(2.0 * h[0], 2.0 * h[1], 2.0 * h[2]),
                    Isometry3d::new(at, t.rotation),
                    colour,
                );
            }
            Shape::Ellipsoid { radii: r } => {
                gizmos.sphere(
                    Isometry3d::from_translation(at),
                    r[0].max(r[1]).max(r[2]),
                    colour,
                );
            }
        }
    }
    for (a, j, c) in skeleton(character, frame) {
        gizmos.line(a + offset, j + offset, colour);
        gizmos.line(j + offset, c + offset, colour);
        gizmos.sphere(Isometry3d::from_translation(j + offset), 0.025, colour);
    }
}

fn draw_gallery(mut gizmos: Gizmos, state: Res<DiversityState>) {
    if !state.visible || !state.gallery {
        return;
    }
    let u = state.clock;
    for e in &state.entries {
        let Some((character, frame)) = state.frame(e.index, u) else {
            continue;
        };
        let [r, g, b] = motion_colour(e.index);
        let offset = Vec3::new(0.0, 0.0, e.index as f32 * GALLERY_SPACING);
        draw_figure(&mut gizmos, character, frame, offset, Color::srgb(r, g, b));
        // Ground marker under each lane, under the figure as it travels.
        let x = frame.com[0];
        gizmos.line(
            offset + Vec3::new(x - 1.5, 0.003, 0.0),
            offset + Vec3::new(x + 1.5, 0.003, 0.0),
            Color::srgba(r, g, b, 0.6),
        );
    }
    if state.ghost && state.ghost_a != state.ghost_b {
        if let Some((character, frame)) = state.frame(state.ghost_b, u) {
            let [r, g, b] = motion_colour(state.ghost_b);
            let offset = Vec3::new(0.0, 0.0, state.ghost_a as f32 * GALLERY_SPACING);
            draw_figure(
                &mut gizmos,
                character,
                frame,
                offset,
                Color::srgba(r, g, b, 0.35),
            );
        }
    }
}

/// Names each gallery lane (M0 = input) above the figure.
fn gallery_labels(
    mut contexts: EguiContexts,
    state: Res<DiversityState>,
    camera: Query<(&Camera, &GlobalTransform), With<MainCamera>>,
) -> Result {
    if !state.visible || !state.gallery || state.entries.is_empty() {
        return Ok(());
    }
    let Ok((cam, gt)) = camera.single() else {
        return Ok(());
    };
    let ctx = contexts.ctx_mut()?;
    let painter = ctx.layer_painter(egui::LayerId::new(
        egui::Order::Background,
        egui::Id::new("gallery_labels"),
    ));
    let central = state.central.unwrap_or_else(|| ctx.viewport_rect());
    for e in &state.entries {
        let head = state
            .frame(e.index, state.clock)
            .map(|(_, f)| f.poses.iter().map(|p| p[1]).fold(0.0f32, f32::max))
            .unwrap_or(1.8);
        let x = state
            .frame(e.index, state.clock)
            .map(|(_, f)| f.com[0])
            .unwrap_or(0.0);
        let world = Vec3::new(x, head + 0.35, e.index as f32 * GALLERY_SPACING);
        let Ok(p) = cam.world_to_viewport(gt, world) else {
            continue;
        };
        let pos = egui::pos2(p.x, p.y);
        if !central.contains(pos) {
            continue;
        }
        let [r, g, b] = motion_colour(e.index);
        let col = egui::Color32::from_rgb((r * 255.0) as u8, (g * 255.0) as u8, (b * 255.0) as u8);
        let text = if e.index == 0 {
            "M0 (input)".to_string()
        } else {
            format!("M{}", e.index)
        };
        let rect = painter.text(
            pos,
            egui::Align2::CENTER_BOTTOM,
            &text,
            egui::FontId::proportional(16.0),
            egui::Color32::BLACK,
        );
        painter.rect_filled(rect.expand(3.0), 3.0, egui::Color32::from_black_alpha(200));
        painter.text(
            pos,
            egui::Align2::CENTER_BOTTOM,
            text,
            egui::FontId::proportional(16.0),
            col,
        );
    }
    Ok(())
}

fn history_plot(
    ui: &mut egui::Ui,
    id: &str,
    title: &str,
    series: Vec<(String, Vec<[f64; 2]>, [f32; 3])>,
) {
    ui.label(egui::RichText::new(title).small().strong());
    Plot::new(id.to_string())
        .height(95.0)
        .legend(Legend::default())
        .allow_drag(false)
        .allow_scroll(false)
        .show(ui, |plot| {
            for (name, pts, [r, g, b]) in series {
                let col = egui::Color32::from_rgb(
                    (r * 230.0) as u8,
                    (g * 230.0) as u8,
                    (b * 230.0) as u8,
                );
                plot.line(Line::new(name, PlotPoints::from(pts)).color(col).width(1.5));
            }
        });
}

/// Side-view stick figures of every motion at the phase-aligned columns A–F.
fn filmstrip(ui: &mut egui::Ui, state: &DiversityState) {
    let rows: Vec<usize> = state.entries.iter().map(|e| e.index).collect();
    if rows.is_empty() {
        return;
    }
    let phases = state.phase_count() as f32;
    let cell = egui::vec2(
        ((ui.available_width() - 40.0) / FILM_COLUMNS as f32).max(40.0),
        62.0,
    );
    let (resp, painter) = ui.allocate_painter(
        egui::vec2(
            40.0 + cell.x * FILM_COLUMNS as f32,
            16.0 + cell.y * rows.len() as f32,
        ),
        egui::Sense::hover(),
    );
    let origin = resp.rect.min;
    let scale = cell.y / 2.6;
    for c in 0..FILM_COLUMNS {
        let label = ((b'A' + c as u8) as char).to_string();
        painter.text(
            origin + egui::vec2(40.0 + cell.x * (c as f32 + 0.5), 0.0),
            egui::Align2::CENTER_TOP,
            label,
            egui::FontId::proportional(12.0),
            ui.visuals().text_color(),
        );
    }
    for (row, &i) in rows.iter().enumerate() {
        let top = origin.y + 16.0 + cell.y * row as f32;
        let [r, g, b] = motion_colour(i);
        // M0 is white in the viewport; on the light cells it is drawn dark.
        let col = if i == 0 {
            egui::Color32::from_gray(40)
        } else {
            egui::Color32::from_rgb((r * 230.0) as u8, (g * 230.0) as u8, (b * 230.0) as u8)
        };
        let label_col = if i == 0 {
            ui.visuals().strong_text_color()
        } else {
            col
        };
        painter.text(
            egui::pos2(origin.x + 2.0, top + cell.y / 2.0),
            egui::Align2::LEFT_CENTER,
            if i == 0 {
                "M0".to_string()
            } else {
                format!("M{i}")
            },
            egui::FontId::proportional(12.0),
            label_col,
        );
        for c in 0..FILM_COLUMNS {
            let rect = egui::Rect::from_min_size(
                egui::pos2(origin.x + 40.0 + cell.x * c as f32, top),
                cell,
            )
            .shrink(1.0);
            painter.rect_filled(
                rect,
                2.0,
                egui::Color32::from_gray(if (row + c) % 2 == 0 { 235 } else { 225 }),
            );
            let u = phases * c as f32 / (FILM_COLUMNS - 1) as f32;
            let Some((character, frame)) = state.frame(i, u) else {
                continue;
            };
            let cx = frame.com[0];
            let to = |p: Vec3| {
                egui::pos2(
                    rect.center().x + (p.x - cx) * scale,
                    rect.bottom() - 3.0 - p.y * scale,
                )
            };
            for (a, j, ch) in skeleton(character, frame) {
                painter.line_segment([to(a), to(j)], egui::Stroke::new(1.4, col));
                painter.line_segment([to(j), to(ch)], egui::Stroke::new(1.4, col));
            }
            for p in &frame.poses {
                painter.circle_filled(to(Vec3::new(p[0], p[1], p[2])), 1.6, col);
            }
        }
    }
}

pub fn diversity_ui(ui: &mut egui::Ui, state: &mut DiversityState, jobs: &JobsState) {
    ui.heading("Diversity");
    egui::ScrollArea::vertical().show(ui, |ui| {
        // Controls.
        egui::CollapsingHeader::new("Exploration")
            .default_open(!state.launched_with_set)
            .show(ui, |ui| {
                egui::Grid::new("div_controls")
                    .num_columns(2)
                    .show(ui, |ui| {
                        ui.label("scene");
                        let name = |p: &PathBuf| {
                            p.file_name()
                                .map(|n| n.to_string_lossy().to_string())
                                .unwrap_or_default()
                        };
                        egui::ComboBox::from_id_salt("div_scene")
                            .selected_text(state.scene.as_ref().map(name).unwrap_or("—".into()))
                            .show_ui(ui, |ui| {
                                for s in state.scenes.clone() {
                                    let label = name(&s);
                                    ui.selectable_value(&mut state.scene, Some(s), label);
                                }
                            });
                        ui.end_row();
                        ui.label("N variants");
                        ui.add(egui::DragValue::new(&mut state.variants).range(1..=12));
                        ui.end_row();
                        ui.label("K");
                        ui.add(
                            egui::DragValue::new(&mut state.k)
                                .range(0.0..=1000.0)
                                .speed(0.5),
                        );
                        ui.end_row();
                        ui.label("metric");
                        egui::ComboBox::from_id_salt("div_metric")
                            .selected_text(state.metric.label())
                            .show_ui(ui, |ui| {
                                for m in [
                                    MetricChoice::TaskDefault,
                                    MetricChoice::Hf,
                                    MetricChoice::Md,
                                    MetricChoice::Wja,
                                    MetricChoice::Shape,
                                ] {
                                    ui.selectable_value(&mut state.metric, m, m.label());
                                }
                            });
                        ui.end_row();
                        ui.label("mode");
                        ui.horizontal(|ui| {
                            ui.radio_value(&mut state.shape_mode, false, "motion");
                            ui.radio_value(&mut state.shape_mode, true, "shape");
                        });
                        ui.end_row();
                        ui.label("generations");
                        ui.add(egui::DragValue::new(&mut state.generations).range(1..=100_000));
                        ui.end_row();
                        ui.label("seed");
                        ui.add(egui::DragValue::new(&mut state.seed));
                        ui.end_row();
                    });
                ui.horizontal(|ui| {
                    if ui
                        .button("Explore")
                        .on_hover_text("Start a new exploration job (cancels the running one)")
                        .clicked()
                    {
                        state.start(jobs);
                    }
                    if let Some(h) = &state.job {
                        super::jobs_panel::job_controls(ui, h);
                    }
                });
                if let Some(h) = &state.job {
                    ui.add(egui::ProgressBar::new(h.progress.fraction).show_percentage());
                    ui.small(format!("#{} {:?} · {}", h.id, h.status, h.progress.message));
                    if let Some(e) = &h.error {
                        ui.colored_label(egui::Color32::RED, e);
                    }
                }
                ui.horizontal(|ui| {
                    ui.add(
                        egui::TextEdit::singleline(&mut state.load_path)
                            .desired_width(230.0)
                            .hint_text("results/…/result.ron"),
                    );
                    if ui.button("Load set").clicked() {
                        let p = PathBuf::from(state.load_path.trim());
                        state.load(&p);
                    }
                });
                ui.horizontal(|ui| {
                    ui.add(egui::TextEdit::singleline(&mut state.save_path).desired_width(230.0));
                    if ui
                        .button("Save set")
                        .on_hover_text("Copy the result file (or write the current incumbents)")
                        .clicked()
                    {
                        let p = PathBuf::from(state.save_path.trim());
                        state.save(&p);
                    }
                });
                if !state.message.is_empty() {
                    ui.small(&state.message);
                }
            });

        let Some(result) = &state.result else {
            ui.label("No result yet: start an exploration or load a set.");
            return;
        };
        ui.separator();
        ui.label(format!(
            "{} · {} · {} generations · D = {:.3} (copies {:.3})",
            state.source,
            result.task,
            result.generations,
            result.diversity,
            result.diversity_of_copies
        ));

        // Live plots.
        egui::CollapsingHeader::new("Plots")
            .default_open(!state.launched_with_set)
            .show(ui, |ui| {
                let h = &result.history;
                let gx = |r: &crate::diversity::search::GenerationRecord| r.generation as f64;
                history_plot(
                    ui,
                    "div_D",
                    "D (objective)",
                    vec![(
                        "D".into(),
                        h.iter().map(|r| [gx(r), r.objective]).collect(),
                        [1.0, 0.85, 0.3],
                    )],
                );
                let n = h.iter().map(|r| r.d_min.len()).max().unwrap_or(0);
                let series = |f: &dyn Fn(
                    &crate::diversity::search::GenerationRecord,
                    usize,
                ) -> Option<f64>,
                              from: usize| {
                    (from..n)
                        .map(|i| {
                            (
                                format!("M{i}"),
                                h.iter()
                                    .filter_map(|r| f(r, i).map(|v| [gx(r), v]))
                                    .collect(),
                                motion_colour(i),
                            )
                        })
                        .collect::<Vec<_>>()
                };
                let dmins = series(&|r, i| r.d_min.get(i).copied().filter(|v| v.is_finite()), 1);
                history_plot(ui, "div_dmin", "d_min per variant", dmins);
                let penalty = series(
                    &|r, i| r.penalty.get(i).copied().filter(|v| v.is_finite()),
                    0,
                );
                history_plot(ui, "div_pen", "penalty C per motion", penalty);
            });

        // Gallery controls.
        egui::CollapsingHeader::new("Gallery")
            .default_open(true)
            .show(ui, |ui| {
                ui.horizontal(|ui| {
                    ui.checkbox(&mut state.gallery, "show in viewport");
                    ui.checkbox(&mut state.half_speed, "½ speed");
                    ui.checkbox(&mut state.follow, "follow")
                        .on_hover_text("Keep the camera on the row's mean centre of mass along x");
                    if ui.button("Frame view").clicked() {
                        state.view_request = true;
                    }
                });
                ui.horizontal(|ui| {
                    ui.label("strength");
                    ui.selectable_value(&mut state.strength_x2, false, "×1");
                    ui.selectable_value(&mut state.strength_x2, true, "×2");
                    let waiting = state
                        .entries
                        .iter()
                        .filter(|e| !state.cache.contains_key(&e.key))
                        .count();
                    if waiting > 0 {
                        ui.spinner();
                        ui.small(format!("simulating {waiting}"));
                    }
                });
                let phases = state.phase_count();
                let k = (state.clock.floor() as usize).min(phases.saturating_sub(1));
                ui.small(format!(
                    "phase clock {:.2} / {phases} · {}",
                    state.clock,
                    state.phase_name(k)
                ));
                let n = state.result.as_ref().map(|r| r.motions.len()).unwrap_or(0);
                ui.horizontal(|ui| {
                    ui.checkbox(&mut state.ghost, "ghost");
                    let pick = |ui: &mut egui::Ui, id: &str, v: &mut usize| {
                        egui::ComboBox::from_id_salt(id.to_string())
                            .width(50.0)
                            .selected_text(format!("M{v}"))
                            .show_ui(ui, |ui| {
                                for i in 0..n {
                                    ui.selectable_value(v, i, format!("M{i}"));
                                }
                            });
                    };
                    pick(ui, "ghost_a", &mut state.ghost_a);
                    ui.label("under");
                    pick(ui, "ghost_b", &mut state.ghost_b);
                });
                egui::Grid::new("div_variants")
                    .striped(true)
                    .num_columns(4)
                    .show(ui, |ui| {
                        ui.label("motion");
                        ui.label("C");
                        ui.label("d_min");
                        ui.label("path");
                        ui.end_row();
                        let rows: Vec<(usize, f64, f64, bool)> = state
                            .result
                            .as_ref()
                            .map(|r| {
                                r.motions
                                    .iter()
                                    .map(|m| {
                                        (m.index, m.penalty, m.min_distance, !m.path.is_empty())
                                    })
                                    .collect()
                            })
                            .unwrap_or_default();
                        for (i, c, d, has_path) in rows {
                            let [r, g, b] = motion_colour(i);
                            let col = if i == 0 {
                                ui.visuals().strong_text_color()
                            } else {
                                egui::Color32::from_rgb(
                                    (r * 230.0) as u8,
                                    (g * 230.0) as u8,
                                    (b * 230.0) as u8,
                                )
                            };
                            ui.colored_label(
                                col,
                                if i == 0 {
                                    "M0 input".to_string()
                                } else {
                                    format!("M{i}")
                                },
                            );
                            ui.label(format!("{c:.3}"));
                            ui.label(format!("{d:.3}"));
                            if i > 0 && has_path {
                                if let Some(v) = state.path_percent.get_mut(i) {
                                    ui.add(
                                        egui::Slider::new(v, 0.0..=100.0).suffix(" %").step_by(1.0),
                                    );
                                }
                            } else {
                                ui.label("—");
                            }
                            ui.end_row();
                        }
                    });
            });

        egui::CollapsingHeader::new("Filmstrip (phase-aligned A–F)")
            .default_open(true)
            .show(ui, |ui| {
                filmstrip(ui, state);
            });
    });
}
