//! Gait panel (specs/004.md §1.2–1.3; issue "P3 — Spacetime engine and animal gaits",
//! deliverable 9): pick a spacetime creature, set the speed, the period and each foot's contact
//! window (footfall bars dragged or typed) or let basin-CMA discover them, solve in the
//! background with a live plot, and look at the result: footfall diagram with flight and
//! double-support spans, cost, violation, the independent audit, and the gait playing in a loop
//! in a side view (treadmill or world frame) and a front view; save and load clips.
//!
//! The science stays in [`crate::spacetime`]: a solve runs this program's own `gait` command
//! (`motionlab gait CREATURE --speed V … --out FILE`) as a child process in its own process
//! group, as the discovery of the CLI does for its samples (IPOPT's linear solver is not
//! thread-safe, and a process can be cancelled). A reader thread turns its output (IPOPT's
//! iteration log, one line per discovery generation) into messages on a channel; the clip it
//! writes is read back, checked against its creature and audited with
//! [`crate::spacetime::gait::audit`].

use super::character::characters_dir;
use crate::spacetime::dynamics::forward_kinematics;
use crate::spacetime::gait::{
    FootTiming, GaitAudit, GaitClip, GaitSpec, MU, NU, audit, default_timings, parse_timings,
};
use crate::spacetime::skeleton::Skeleton;
use bevy::prelude::*;
use bevy_egui::{EguiContexts, EguiPrimaryContextPass, egui};
use crossbeam_channel::{Receiver, Sender};
use egui_plot::{Legend, Line, Plot, PlotPoints, Points, VLine};
use std::io::BufRead;
use std::path::{Path, PathBuf};
use std::time::Instant;

pub struct GaitPanelPlugin;

impl Plugin for GaitPanelPlugin {
    fn build(&self, app: &mut App) {
        app.add_systems(Startup, setup_gait)
            .add_systems(Update, (poll_gait_job, advance_playback).chain())
            .add_systems(EguiPrimaryContextPass, gait_window);
    }
}

/// One spacetime creature file of `characters/`.
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

/// The spacetime creatures of `characters/` (the Rapier character files do not parse as one).
fn spacetime_creatures() -> Vec<Creature> {
    super::panels::character_files()
        .into_iter()
        .filter(|p| {
            std::fs::read_to_string(p)
                .map(|t| t.contains("feet:"))
                .unwrap_or(false)
        })
        .filter_map(|path| {
            let skeleton = Skeleton::load(&path).ok()?;
            Some(Creature { path, skeleton })
        })
        .collect()
}

/// What the solver process reports.
enum JobMsg {
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
    /// The process ended: its clip (read back) or what went wrong.
    Done(u64, Result<GaitClip, String>),
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

/// A solve in progress.
pub struct GaitJob {
    id: u64,
    pid: u32,
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
    /// Set by the reader thread once the process has exited and been reaped.
    exited: std::sync::Arc<std::sync::Mutex<bool>>,
}

impl Drop for GaitJob {
    /// A job dropped before its process exited (cancel, a new solve, the app closing) ends the
    /// whole process group: discovery's sample solves too.
    fn drop(&mut self) {
        let reaped = self.exited.lock().unwrap_or_else(|e| e.into_inner());
        if !*reaped {
            #[cfg(unix)]
            // SAFETY: kill(2) on the process group this panel started (pgid = the child's pid,
            // not yet reaped, so not recycled: the reader thread reaps it under this lock).
            unsafe {
                libc::kill(-(self.pid as i32), libc::SIGTERM);
            }
        }
    }
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
    /// With an optimised body: the creature file's skeleton, and its limbs in the same poses
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
    pub visible: bool,
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
    /// Co-optimise the legs' lengths and radii (specs/004.md §1.5).
    pub morphology: bool,
    /// With morphology: the muscle-aware effort (3.26)–(3.33); off shows why it is needed.
    pub muscle: bool,
    pub job: Option<GaitJob>,
    pub shown: Option<ShownGait>,
    pub load_path: String,
    pub save_path: String,
    pub message: String,
    /// Playback: seconds into the loop, playing, rate, world (else treadmill) frame.
    pub time: f64,
    pub playing: bool,
    pub rate: f32,
    pub world: bool,
    next_job: u64,
    tx: Sender<JobMsg>,
    rx: Receiver<JobMsg>,
    /// The plots of the discovery whose gait is on show.
    pub last_discovery: Option<DiscoveryRecord>,
}

fn setup_gait(mut commands: Commands, options: Res<super::AppOptions>) {
    let (tx, rx) = crossbeam_channel::unbounded();
    let creatures = spacetime_creatures();
    let mut state = GaitState {
        visible: options.gait.is_some() || options.discover_gait.is_some(),
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
        job: None,
        shown: None,
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
        tx,
        rx,
        last_discovery: None,
    };
    state.creature_defaults();
    if state.creatures.is_empty() {
        state.message = format!(
            "no spacetime creature files in {}",
            characters_dir().display()
        );
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

/// Checks that `clip` fits `skeleton` (coordinates, frame and contact sizes, finite numbers), so
/// the kinematics and the audit can run on it.
fn check_clip(clip: &GaitClip, skeleton: &Skeleton) -> Result<(), String> {
    let n = clip.frames.len();
    if n == 0 {
        return Err("the clip has no frames".into());
    }
    if !(clip.period > 0.0 && clip.period.is_finite() && clip.speed.is_finite()) {
        return Err(format!(
            "bad period {} or speed {}",
            clip.period, clip.speed
        ));
    }
    if let Some((i, q)) = clip
        .frames
        .iter()
        .enumerate()
        .find(|(_, q)| q.len() != skeleton.dof() || q.iter().any(|v| !v.is_finite()))
    {
        return Err(format!(
            "frame {i} has {} coordinates (or a non-finite one); creature `{}` has {}",
            q.len(),
            skeleton.name,
            skeleton.dof()
        ));
    }
    if clip.contacts.len() != n || clip.contacts.iter().any(|c| c.len() != skeleton.feet.len()) {
        return Err(format!(
            "the contact loads do not match {n} frames × {} feet",
            skeleton.feet.len()
        ));
    }
    Ok(())
}

impl GaitState {
    fn creature(&self) -> Option<&Creature> {
        self.creatures.get(self.creature)
    }

    /// The creature's default timings and period (specs/004.md §1.2 defaults of the CLI).
    fn reset_timings(&mut self) {
        if let Some(c) = self.creature() {
            let (period, timings) = default_timings(&c.skeleton);
            self.period = period;
            self.timings = timings;
        }
    }

    /// The chosen creature's defaults: its timings and period, and its file's solver settings
    /// (`solve: (lbfgs_iterations: …, sample_iterations: …)`, e.g. the horse's longer L-BFGS
    /// stage), else the CLI's.
    fn creature_defaults(&mut self) {
        self.reset_timings();
        self.apply_solve_hints();
    }

    /// The chosen creature file's solver settings, else the CLI's defaults.
    fn apply_solve_hints(&mut self) {
        if let Some(c) = self.creature() {
            let hints = c.skeleton.solve;
            self.lbfgs_iterations = hints
                .lbfgs_iterations
                .unwrap_or(crate::spacetime::gait::STAGED_LBFGS_ITERATIONS);
            self.sample_iterations = hints
                .sample_iterations
                .unwrap_or(crate::spacetime::discovery::SAMPLE_ITERATIONS);
        }
    }

    /// The request as a validated spec (its contact flags), or why it is invalid.
    fn request_spec(&self) -> Result<GaitSpec, String> {
        let c = self.creature().ok_or("no creature")?;
        GaitSpec::new(c.skeleton.clone(), self.speed, self.period, &self.timings)
            .map_err(|e| e.to_string())
    }

    /// Loads a clip file and shows it; errors name the file.
    pub fn load(&mut self, path: &Path) {
        self.last_discovery = None;
        let result = std::fs::read_to_string(path)
            .map_err(|e| e.to_string())
            .and_then(|t| ron::from_str::<GaitClip>(&t).map_err(|e| e.to_string()))
            .and_then(|clip| self.show(clip, format!("{}", path.display())));
        match result {
            Ok(()) => {
                self.message = format!("loaded {}", path.display());
                self.save_path = path.display().to_string();
            }
            Err(e) => self.message = format!("cannot load {}: {e}", path.display()),
        }
    }

    /// Puts `clip` on show (and its creature, speed and timings in the request fields).
    fn show(&mut self, clip: GaitClip, source: String) -> Result<(), String> {
        let index = self
            .creatures
            .iter()
            .position(|c| c.skeleton.name == clip.creature)
            .ok_or_else(|| {
                format!(
                    "creature `{}` is not among the spacetime creatures of {}",
                    clip.creature,
                    characters_dir().display()
                )
            })?;
        let skeleton = clip
            .body(&self.creatures[index].skeleton)
            .map_err(|e| e.to_string())?;
        check_clip(&clip, &skeleton)?;
        // The checks above keep the kinematics' assertions true; a panic in them is still
        // reported rather than fatal.
        let file = &self.creatures[index].skeleton;
        let computed = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            let segments_of = |body: &Skeleton| -> Vec<Vec<([f64; 3], [f64; 3])>> {
                let morphology = body.morphology::<f64>();
                clip.frames
                    .iter()
                    .map(|q| {
                        forward_kinematics(body, &morphology, q)
                            .limbs
                            .iter()
                            .map(|l| (l.origin.re(), l.end.re()))
                            .collect()
                    })
                    .collect()
            };
            let file_body = clip
                .morphology
                .is_some()
                .then(|| (file.clone(), segments_of(file)));
            // μ and ν as in every gait spec.
            (
                segments_of(&skeleton),
                file_body,
                audit(&skeleton, &clip, MU, NU),
            )
        }))
        .map_err(|_| "the clip's kinematics failed".to_string())?;
        let (segments, file_body, audit) = computed;
        let mut leg = vec![None; skeleton.limbs.len()];
        for (k, &foot) in skeleton.feet.iter().enumerate() {
            // The foot's chain up to (not including) the limb where it meets another chain.
            for l in skeleton.path_to_root(foot) {
                let children = skeleton
                    .limbs
                    .iter()
                    .filter(|c| c.parent == Some(l))
                    .count();
                if skeleton.limbs[l].parent.is_none() || (l != foot && children > 1) {
                    break;
                }
                leg[l] = Some(k);
            }
        }
        let mut extent = [f64::MAX, f64::MIN, 0.0, f64::MAX, f64::MIN];
        for (a, b) in segments.iter().flatten() {
            for p in [a, b] {
                extent[0] = extent[0].min(p[0]);
                extent[1] = extent[1].max(p[0]);
                extent[2] = extent[2].max(p[1]);
                extent[3] = extent[3].min(p[2]);
                extent[4] = extent[4].max(p[2]);
            }
        }
        let contact = clip
            .contacts
            .iter()
            .map(|c| c.iter().map(|l| l.is_some()).collect())
            .collect();
        // The request fields follow the clip, so Solve re-solves what is on show.
        if self.creature != index {
            self.creature = index;
            self.apply_solve_hints();
        }
        self.speed = clip.speed;
        self.morphology = clip.morphology.is_some();
        self.period = clip.period;
        let mut timings = Vec::new();
        for name in self.creatures[index].feet() {
            match clip.timings.iter().find(|t| t.foot == name) {
                Some(t) => timings.push(t.clone()),
                None => {
                    timings.clear();
                    break;
                }
            }
        }
        if timings.is_empty() {
            self.reset_timings();
        } else {
            self.timings = timings;
        }
        self.shown = Some(ShownGait {
            clip,
            skeleton,
            source,
            audit,
            contact,
            segments,
            file_body,
            leg,
            extent,
        });
        self.time = 0.0;
        Ok(())
    }

    fn save(&mut self, path: &Path) {
        let Some(shown) = &self.shown else {
            self.message = "no gait to save".into();
            return;
        };
        if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
            if let Err(e) = std::fs::create_dir_all(dir) {
                self.message = format!("cannot create {}: {e}", dir.display());
                return;
            }
        }
        self.message = match crate::jobs::write_ron(path, &shown.clip) {
            Ok(()) => format!("saved {}", path.display()),
            Err(e) => format!("cannot save {}: {e}", path.display()),
        };
    }

    /// Starts `motionlab gait …` for the request in its own process group; `refine`: from the
    /// gait on show (`--init`), with the request's timing.
    fn start(&mut self, refine: bool) {
        self.cancel();
        let Some((creature_path, creature_name)) = self
            .creature()
            .map(|c| (c.path.clone(), c.skeleton.name.clone()))
        else {
            self.message = "no creature".into();
            return;
        };
        if !self.discover {
            if let Err(e) = self.request_spec() {
                self.message = format!("cannot solve: {e}");
                return;
            }
        }
        let exe = match std::env::current_exe() {
            Ok(e) => e,
            Err(e) => {
                self.message = format!("cannot find the motionlab executable: {e}");
                return;
            }
        };
        let id = self.next_job;
        self.next_job += 1;
        let out =
            std::env::temp_dir().join(format!("motionlab-gait-{}-{id}.ron", std::process::id()));
        let _ = std::fs::remove_file(&out);
        let mut cmd = std::process::Command::new(exe);
        cmd.arg("gait")
            .arg(&creature_path)
            .args(["--speed", &self.speed.to_string()]);
        if refine {
            let Some(shown) = &self.shown else {
                self.message = "no gait on show to refine".into();
                return;
            };
            let start = std::env::temp_dir().join(format!(
                "motionlab-gait-{}-{id}-start.ron",
                std::process::id()
            ));
            if let Err(e) = crate::jobs::write_ron(&start, &shown.clip) {
                self.message = format!("cannot write {}: {e}", start.display());
                return;
            }
            cmd.arg("--init").arg(&start);
        }
        if self.discover && !refine {
            cmd.args(["--discover", "--generations", &self.generations.to_string()]);
            if self.population > 0 {
                cmd.args(["--population", &self.population.to_string()]);
            }
            let (lo, hi) = self.period_range;
            cmd.args(["--period-range", &format!("{lo}:{hi}")]);
            cmd.args(["--sample-iterations", &self.sample_iterations.to_string()]);
            // Sample clips are kept, so the same discovery started again (after closing the
            // app, say) reuses the samples already solved.
            cmd.args(["--samples-dir", DISCOVERY_SAMPLES_DIR]);
        } else {
            let contacts = self
                .timings
                .iter()
                .map(|t| format!("{}:{}:{}", t.foot, t.start, t.duration))
                .collect::<Vec<_>>()
                .join(",");
            cmd.args([
                "--period",
                &self.period.to_string(),
                "--contacts",
                &contacts,
            ]);
        }
        if self.morphology {
            cmd.arg("--morphology");
            if !self.muscle {
                cmd.arg("--no-muscle");
            }
        }
        cmd.args([
            "--max-iterations",
            &self.max_iterations.to_string(),
            "--lbfgs-iterations",
            &self.lbfgs_iterations.to_string(),
            "--print-level",
            "5",
        ])
        .arg("--out")
        .arg(&out)
        .stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped());
        #[cfg(unix)]
        std::os::unix::process::CommandExt::process_group(&mut cmd, 0);
        let mut child = match cmd.spawn() {
            Ok(c) => c,
            Err(e) => {
                self.message = format!("cannot start the solver process: {e}");
                return;
            }
        };
        let pid = child.id();
        let exited = std::sync::Arc::new(std::sync::Mutex::new(false));
        let job_exited = exited.clone();
        let tx = self.tx.clone();
        let stdout = child.stdout.take();
        let stderr = child.stderr.take();
        std::thread::spawn(move || {
            let errors = std::thread::spawn(move || {
                let mut tail: Vec<String> = Vec::new();
                if let Some(e) = stderr {
                    for line in std::io::BufReader::new(e).lines().map_while(Result::ok) {
                        tail.push(line);
                        if tail.len() > 6 {
                            tail.remove(0);
                        }
                    }
                }
                tail.join("\n")
            });
            if let Some(o) = stdout {
                for line in std::io::BufReader::new(o).lines().map_while(Result::ok) {
                    if let Some(msg) = parse_solver_line(id, &line) {
                        let _ = tx.send(msg);
                    }
                }
            }
            // Reaped under the lock, so a cancel never signals a recycled process id.
            let status = loop {
                let mut reaped = exited.lock().unwrap_or_else(|e| e.into_inner());
                match child.try_wait() {
                    Ok(Some(status)) => {
                        *reaped = true;
                        break Ok(status);
                    }
                    Ok(None) => {}
                    Err(e) => {
                        *reaped = true;
                        break Err(e);
                    }
                }
                drop(reaped);
                std::thread::sleep(std::time::Duration::from_millis(50));
            };
            let stderr_tail = errors.join().unwrap_or_default();
            let result = std::fs::read_to_string(&out)
                .map_err(|_| {
                    let how = status.map(|s| s.to_string()).unwrap_or_default();
                    format!("the solver wrote no clip ({how}) {stderr_tail}")
                })
                .and_then(|t| ron::from_str::<GaitClip>(&t).map_err(|e| e.to_string()));
            let _ = std::fs::remove_file(&out);
            let _ = tx.send(JobMsg::Done(id, result));
        });
        self.message = format!(
            "solving {} at {} m/s{} (process {pid})",
            creature_name,
            self.speed,
            if self.discover {
                ", discovering the timings"
            } else {
                ""
            }
        );
        self.job = Some(GaitJob {
            id,
            pid,
            started: Instant::now(),
            discover: self.discover && !refine,
            creature: self.creature,
            speed: self.speed,
            best_costs: Vec::new(),
            samples: Vec::new(),
            failed_samples: 0,
            best: None,
            feasible: String::new(),
            generations: 0,
            iterations: Vec::new(),
            exited: job_exited,
        });
    }

    /// Stops the running solve (dropping the job ends its processes).
    fn cancel(&mut self) {
        self.job = None;
    }
}

/// Every feasible discovery sample so far: log₁₀ cost against period, coloured by whether the
/// feet land in pairs and filled when the gait has a flight phase, so a split between kinds of
/// gait (a run's alternating feet against a hop's paired ones) shows as it forms.
fn samples_plot(ui: &mut egui::Ui, id: &str, samples: &[SampleDot], failed: usize) {
    if samples.is_empty() && failed == 0 {
        return;
    }
    ui.label(
        egui::RichText::new("Samples: log₁₀ cost against period (s)")
            .small()
            .strong(),
    )
    .on_hover_text(
        "Every sample projection that reached a feasible gait. Orange: the feet land in pairs \
         (a hop's, a trot's diagonals: on average each foot shares at least 80% of its contact \
         with its most synchronous partner); blue: they do not (a walk, a run). Filled: the \
         gait has a flight phase; ring: none. Failed projections are counted below.",
    );
    let best = samples.iter().map(|d| d.cost).fold(f64::INFINITY, f64::min);
    Plot::new(id)
        .height(140.0)
        .allow_drag(false)
        .allow_scroll(false)
        .legend(Legend::default().position(egui_plot::Corner::RightTop))
        .show(ui, |plot| {
            for (kind, colour) in [
                ("unpaired", egui::Color32::from_rgb(70, 130, 220)),
                ("paired", egui::Color32::from_rgb(230, 140, 40)),
            ] {
                for flight in [true, false] {
                    let name = if flight {
                        format!("{kind}, flight")
                    } else {
                        kind.to_string()
                    };
                    let points: Vec<[f64; 2]> = samples
                        .iter()
                        .filter(|d| d.kind() == name)
                        .map(|d| [d.period, d.cost.max(1e-12).log10()])
                        .collect();
                    if points.is_empty() {
                        continue;
                    }
                    plot.points(
                        Points::new(name, PlotPoints::from(points))
                            .color(colour)
                            .filled(flight)
                            .radius(3.5),
                    );
                }
            }
            if let Some(d) = samples.iter().find(|d| d.cost == best) {
                plot.points(
                    Points::new("best", PlotPoints::from(vec![[d.period, d.cost.log10()]]))
                        .color(egui::Color32::RED)
                        .shape(egui_plot::MarkerShape::Diamond)
                        .filled(false)
                        .radius(6.0),
                );
            }
        });
    ui.small(format!(
        "{} feasible samples · {failed} failed · best {best:.3}",
        samples.len()
    ));
}

/// The best feasible cost of each discovery generation so far.
fn best_cost_plot(ui: &mut egui::Ui, id: &str, best_costs: &[[f64; 2]]) {
    Plot::new(id)
        .height(110.0)
        .allow_drag(false)
        .allow_scroll(false)
        .show(ui, |plot| {
            plot.line(Line::new("best cost", PlotPoints::from(best_costs.to_vec())).width(1.5));
            plot.points(
                Points::new("best cost", PlotPoints::from(best_costs.to_vec())).radius(3.0),
            );
        });
}

/// One line of `motionlab gait` output: an IPOPT iteration row or a discovery generation.
fn parse_solver_line(job: u64, line: &str) -> Option<JobMsg> {
    let words: Vec<&str> = line.split_whitespace().collect();
    let value = |key: &str| {
        words
            .iter()
            .position(|w| *w == key)
            .and_then(|i| words.get(i + 1))
    };
    if words.first() == Some(&"sample") {
        // sample G I period T cost C max_violation V contacts foot:s:d,...
        // sample G I period T failed contacts foot:s:d,...
        let period: f64 = value("period")?.parse().ok()?;
        let timings = parse_timings(value("contacts")?).ok()?;
        let cost = (|| {
            let cost: f64 = value("cost")?.parse().ok()?;
            let violation: f64 = value("max_violation")?.parse().ok()?;
            (violation <= SAMPLE_TOLERANCE && cost.is_finite()).then_some(cost)
        })();
        return Some(JobMsg::Sample {
            job,
            period,
            cost,
            timings,
        });
    }
    if words.first() == Some(&"generation") {
        // generation G feasible k/λ best_cost C period T contacts foot:s:d,...
        let generation = words.get(1)?.parse().ok()?;
        let feasible = words.get(3).unwrap_or(&"").to_string();
        let best = (|| {
            let cost: f64 = value("best_cost")?.parse().ok()?;
            let period: f64 = value("period")?.parse().ok()?;
            let timings = parse_timings(value("contacts")?).ok()?;
            Some((cost, period, timings))
        })();
        return Some(JobMsg::Generation {
            job,
            generation,
            best,
            feasible,
        });
    }
    // IPOPT: "iter objective inf_pr inf_du lg(mu) ||d|| lg(rg) alpha_du alpha_pr ls".
    if words.len() >= 9 {
        let iter = words[0].trim_end_matches('r');
        if iter.parse::<usize>().is_ok() {
            if let (Ok(objective), Ok(inf_pr)) = (words[1].parse(), words[2].parse()) {
                return Some(JobMsg::Iteration(job, objective, inf_pr));
            }
        }
    }
    None
}

fn poll_gait_job(mut state: ResMut<GaitState>) {
    let msgs: Vec<JobMsg> = state.rx.try_iter().collect();
    for msg in msgs {
        let current = state.job.as_ref().map(|j| j.id);
        match msg {
            JobMsg::Iteration(id, objective, inf_pr) if Some(id) == current => {
                if let Some(job) = &mut state.job {
                    job.iterations.push((objective, inf_pr));
                }
            }
            JobMsg::Sample {
                job: id,
                period,
                cost,
                timings,
            } if Some(id) == current => {
                let creature = state.job.as_ref().map(|j| (j.creature, j.speed));
                let skeleton =
                    creature.and_then(|(c, v)| Some((state.creatures.get(c)?.skeleton.clone(), v)));
                if let Some(job) = &mut state.job {
                    match (cost, skeleton) {
                        (Some(cost), Some((skeleton, speed))) => {
                            if let Ok(spec) = GaitSpec::new(skeleton, speed, period, &timings) {
                                job.samples.push(SampleDot::new(&spec, cost));
                            }
                        }
                        _ => job.failed_samples += 1,
                    }
                }
            }
            JobMsg::Generation {
                job: id,
                generation,
                best,
                feasible,
            } if Some(id) == current => {
                if let Some(job) = &mut state.job {
                    job.feasible = feasible;
                    job.generations = generation + 1;
                    if let Some((cost, period, timings)) = best {
                        job.best_costs.push([generation as f64, cost]);
                        job.best = Some((period, timings));
                    }
                    // Iterations so far were the sample solves' (silent); the log that follows
                    // is the final solve's.
                    job.iterations.clear();
                }
            }
            JobMsg::Done(id, result) if Some(id) == current => {
                let job = state.job.take();
                let took = job
                    .as_ref()
                    .map(|j| j.started.elapsed().as_secs_f64())
                    .unwrap_or(0.0);
                match result {
                    Ok(clip) => {
                        let note = if clip.converged() {
                            "solved".to_string()
                        } else {
                            format!("NOT converged ({})", clip.status)
                        };
                        let source = format!("{note} in the panel, {took:.0} s");
                        match state.show(clip, source) {
                            Ok(()) => {
                                state.message = format!("gait {note} in {took:.0} s");
                                state.last_discovery =
                                    job.filter(|j| j.discover).map(|j| DiscoveryRecord {
                                        best_costs: j.best_costs.clone(),
                                        samples: j.samples.clone(),
                                        failed_samples: j.failed_samples,
                                    });
                            }
                            Err(e) => state.message = format!("solver clip: {e}"),
                        }
                    }
                    Err(e) => state.message = format!("solve failed: {e}"),
                }
            }
            _ => {}
        }
    }
}

fn advance_playback(time: Res<Time>, mut state: ResMut<GaitState>) {
    if state.visible && state.playing && state.shown.is_some() {
        let dt = time.delta_secs().min(0.1) as f64 * state.rate as f64;
        state.time += dt;
    }
}

/// Foot colours (rows of the footfall diagram, legs of the figure).
fn foot_colour(k: usize) -> egui::Color32 {
    const PALETTE: [[u8; 3]; 6] = [
        [66, 133, 244],
        [234, 120, 40],
        [52, 168, 83],
        [200, 60, 150],
        [150, 100, 220],
        [20, 170, 180],
    ];
    let [r, g, b] = PALETTE[k % PALETTE.len()];
    egui::Color32::from_rgb(r, g, b)
}

const FLIGHT: egui::Color32 = egui::Color32::from_rgb(120, 190, 255);
const DOUBLE: egui::Color32 = egui::Color32::from_rgb(240, 200, 60);

/// One bar row per foot across one cycle, contact frames filled, with a band above marking
/// flight (no foot down, blue) and double support (two or more feet down, yellow) and an
/// optional play head (phase in [0, 1)).
fn footfall_diagram(
    ui: &mut egui::Ui,
    names: &[String],
    contact: &[Vec<bool>],
    playhead: Option<f64>,
) {
    let label_w = 86.0;
    let row_h = 15.0;
    let band_h = 9.0;
    let width = ui.available_width().clamp(200.0, 620.0);
    let height = band_h + 4.0 + row_h * names.len() as f32 + 14.0;
    let (resp, painter) = ui.allocate_painter(egui::vec2(width, height), egui::Sense::hover());
    let rect = resp.rect;
    let left = rect.left() + label_w;
    let span = rect.width() - label_w - 4.0;
    let n = contact.len().max(1);
    let x_at = |f: f64| left + span * f as f32;
    let text = ui.visuals().text_color();
    // Flight / double-support band.
    let band = egui::Rect::from_min_max(
        egui::pos2(left, rect.top()),
        egui::pos2(left + span, rect.top() + band_h),
    );
    painter.rect_filled(band, 0.0, ui.visuals().extreme_bg_color);
    painter.text(
        egui::pos2(rect.left() + 2.0, band.center().y),
        egui::Align2::LEFT_CENTER,
        "phases",
        egui::FontId::proportional(10.0),
        text,
    );
    for (i, c) in contact.iter().enumerate() {
        let down = c.iter().filter(|&&b| b).count();
        let colour = match down {
            0 => Some(FLIGHT),
            1 => None,
            _ => Some(DOUBLE),
        };
        if let Some(colour) = colour {
            painter.rect_filled(
                egui::Rect::from_min_max(
                    egui::pos2(x_at(i as f64 / n as f64), band.top()),
                    egui::pos2(x_at((i + 1) as f64 / n as f64), band.bottom()),
                ),
                0.0,
                colour,
            );
        }
    }
    let rows_top = band.bottom() + 4.0;
    for (k, name) in names.iter().enumerate() {
        let top = rows_top + row_h * k as f32;
        let row = egui::Rect::from_min_max(
            egui::pos2(left, top + 1.0),
            egui::pos2(left + span, top + row_h - 1.0),
        );
        painter.rect_filled(row, 1.0, ui.visuals().faint_bg_color);
        painter.text(
            egui::pos2(rect.left() + 2.0, row.center().y),
            egui::Align2::LEFT_CENTER,
            name,
            egui::FontId::proportional(11.0),
            foot_colour(k),
        );
        for (i, c) in contact.iter().enumerate() {
            if c.get(k).copied().unwrap_or(false) {
                painter.rect_filled(
                    egui::Rect::from_min_max(
                        egui::pos2(x_at(i as f64 / n as f64), row.top()),
                        egui::pos2(x_at((i + 1) as f64 / n as f64), row.bottom()),
                    ),
                    0.0,
                    foot_colour(k),
                );
            }
        }
    }
    let rows_bottom = rows_top + row_h * names.len() as f32;
    // Tick marks every tenth of the cycle.
    for t in 0..=10 {
        let x = x_at(t as f64 / 10.0);
        painter.vline(
            x,
            rows_bottom..=rows_bottom + 3.0,
            egui::Stroke::new(1.0, text),
        );
        if t % 5 == 0 {
            painter.text(
                egui::pos2(x, rows_bottom + 3.0),
                egui::Align2::CENTER_TOP,
                format!("{}", t as f64 / 10.0),
                egui::FontId::proportional(9.0),
                text,
            );
        }
    }
    if let Some(phase) = playhead {
        let x = x_at(phase.rem_euclid(1.0));
        painter.vline(
            x,
            rect.top()..=rows_bottom,
            egui::Stroke::new(2.0, egui::Color32::RED),
        );
    }
}

/// Editable footfall bars: per foot its contact window (drag the bar to move the start, its
/// right end to change the duration), with number fields below.
fn footfall_editor(ui: &mut egui::Ui, timings: &mut [FootTiming]) {
    let label_w = 86.0;
    let row_h = 18.0;
    let width = ui.available_width().clamp(200.0, 620.0);
    let (resp, painter) = ui.allocate_painter(
        egui::vec2(width, row_h * timings.len() as f32 + 2.0),
        egui::Sense::hover(),
    );
    let rect = resp.rect;
    let left = rect.left() + label_w;
    let span = rect.width() - label_w - 4.0;
    for (k, t) in timings.iter_mut().enumerate() {
        let top = rect.top() + row_h * k as f32;
        let row = egui::Rect::from_min_max(
            egui::pos2(left, top + 2.0),
            egui::pos2(left + span, top + row_h - 2.0),
        );
        painter.rect_filled(row, 2.0, ui.visuals().extreme_bg_color);
        painter.text(
            egui::pos2(rect.left() + 2.0, row.center().y),
            egui::Align2::LEFT_CENTER,
            &t.foot,
            egui::FontId::proportional(11.0),
            foot_colour(k),
        );
        let end = t.start + t.duration;
        let mut pieces = vec![(t.start, end.min(1.0))];
        if end > 1.0 {
            pieces.push((0.0, end - 1.0));
        }
        for (p, (a, b)) in pieces.iter().enumerate() {
            let bar = egui::Rect::from_min_max(
                egui::pos2(left + span * *a as f32, row.top()),
                egui::pos2(left + span * *b as f32, row.bottom()),
            );
            let id = ui.id().with(("footfall_bar", k, p));
            let drag = ui
                .interact(bar, id, egui::Sense::drag())
                .on_hover_cursor(egui::CursorIcon::Grab)
                .on_hover_text(
                    "drag to move the landing; drag the right end to change the duration",
                );
            let fill = if drag.hovered() || drag.dragged() {
                foot_colour(k).gamma_multiply(1.2)
            } else {
                foot_colour(k)
            };
            painter.rect_filled(bar, 2.0, fill);
            if drag.dragged() {
                t.start = (t.start + (drag.drag_delta().x / span) as f64).rem_euclid(1.0);
                if t.start >= 1.0 {
                    t.start = 0.0;
                }
            }
        }
        // Duration handle at the window's end.
        let x_end = left + span * if end > 1.0 { end - 1.0 } else { end } as f32;
        let handle = egui::Rect::from_center_size(
            egui::pos2(x_end, row.center().y),
            egui::vec2(8.0, row.height() + 2.0),
        );
        let h = ui
            .interact(
                handle,
                ui.id().with(("footfall_end", k)),
                egui::Sense::drag(),
            )
            .on_hover_cursor(egui::CursorIcon::ResizeHorizontal);
        painter.rect_filled(
            handle.shrink2(egui::vec2(2.0, 0.0)),
            1.0,
            ui.visuals().strong_text_color(),
        );
        if h.dragged() {
            t.duration = (t.duration + (h.drag_delta().x / span) as f64).clamp(0.05, 0.95);
        }
    }
    egui::Grid::new("gait_timings")
        .num_columns(3)
        .spacing([8.0, 2.0])
        .show(ui, |ui| {
            ui.small("foot");
            ui.small("start");
            ui.small("duration");
            ui.end_row();
            for (k, t) in timings.iter_mut().enumerate() {
                ui.colored_label(foot_colour(k), &t.foot);
                ui.add(
                    egui::DragValue::new(&mut t.start)
                        .range(0.0..=0.99)
                        .speed(0.005)
                        .fixed_decimals(3),
                );
                ui.add(
                    egui::DragValue::new(&mut t.duration)
                        .range(0.05..=0.95)
                        .speed(0.005)
                        .fixed_decimals(3),
                );
                ui.end_row();
            }
        });
}

/// The creature at playback time `time` (s): limb segments interpolated between frames,
/// treadmill frame (the ground moves at −V) or world frame (the creature advances at V).
fn pose_at(shown: &ShownGait, time: f64) -> (Vec<([f64; 3], [f64; 3])>, usize, f64) {
    pose_of(&shown.segments, shown.clip.period, time)
}

/// [`pose_at`] for any per-frame limb segments of a cycle of `period` seconds.
fn pose_of(
    segments: &[Vec<([f64; 3], [f64; 3])>],
    period: f64,
    time: f64,
) -> (Vec<([f64; 3], [f64; 3])>, usize, f64) {
    let n = segments.len();
    let u = (time / period).rem_euclid(1.0) * n as f64;
    let i = (u.floor() as usize).min(n - 1);
    let j = (i + 1) % n;
    let f = u - i as f64;
    let lerp = |a: [f64; 3], b: [f64; 3]| -> [f64; 3] {
        std::array::from_fn(|c| a[c] + (b[c] - a[c]) * f)
    };
    let segs = segments[i]
        .iter()
        .zip(&segments[j])
        .map(|(a, b)| (lerp(a.0, b.0), lerp(a.1, b.1)))
        .collect();
    (segs, if f < 0.5 { i } else { j }, u / n as f64)
}

/// Side (x–y) view with ground ticks and contact forces; `world`: the creature walks across a
/// fixed ground (it goes back by whole cycles when it leaves the view), else it stays on a
/// treadmill whose belt marks run back at −V.
fn side_view(ui: &mut egui::Ui, shown: &ShownGait, time: f64, world: bool, width: f32) {
    let size = egui::vec2(width.max(200.0), 250.0);
    let (resp, painter) = ui.allocate_painter(size, egui::Sense::hover());
    let rect = resp.rect;
    painter.rect_filled(rect, 3.0, egui::Color32::from_rgb(235, 240, 246));
    let clip = &shown.clip;
    let [x0, x1, ymax, _, zmax] = shown.extent;
    let length = (x1 - x0).max(0.3);
    let height = ymax.max(0.3);
    let stride = clip.speed * clip.period;
    // World: room for the body plus a few strides; treadmill: the body with a margin.
    let (view_w, cycles) = if world && stride.abs() > 1e-6 {
        let w = (length + 3.0 * stride.abs()).max(2.5 * length);
        (w, ((0.9 * w - length) / stride.abs()).floor().max(1.0))
    } else {
        (length * 1.6, 1.0)
    };
    let view_h = height * 1.25;
    let scale = ((rect.width() - 20.0) as f64 / view_w).min((rect.height() - 24.0) as f64 / view_h);
    let ground_y = rect.bottom() - 18.0;
    // World x of the view's left edge; the creature's treadmill x is shifted by `advance`.
    let (view_left, advance) = if world && stride.abs() > 1e-6 {
        let loop_t = cycles * clip.period;
        let adv = clip.speed * time.rem_euclid(loop_t);
        let left = if clip.speed >= 0.0 {
            x0 - 0.05 * view_w
        } else {
            x1 + 0.05 * view_w - view_w
        };
        (left, adv)
    } else {
        (x0 - 0.3 * length, 0.0)
    };
    let to = |p: [f64; 3]| {
        egui::pos2(
            rect.left() + 10.0 + ((p[0] + advance - view_left) * scale) as f32,
            ground_y - (p[1] * scale) as f32,
        )
    };
    // Ground and its tick marks (every 0.1 m, longer every metre).
    let ink = egui::Color32::from_gray(70);
    painter.hline(
        rect.left()..=rect.right(),
        ground_y,
        egui::Stroke::new(2.0, ink),
    );
    let belt_shift = if world {
        0.0
    } else {
        (-clip.speed * time).rem_euclid(1.0)
    };
    let first = ((view_left - 1.0) * 10.0).floor() as i64;
    let last = ((view_left + view_w + 1.0) * 10.0).ceil() as i64;
    for k in first..=last {
        let xw = k as f64 / 10.0 + belt_shift;
        let x = rect.left() + 10.0 + ((xw - view_left) * scale) as f32;
        if x < rect.left() || x > rect.right() {
            continue;
        }
        let long = k.rem_euclid(10) == 0;
        painter.vline(
            x,
            ground_y..=ground_y + if long { 9.0 } else { 4.0 },
            egui::Stroke::new(1.0, ink),
        );
    }
    // The creature file's body in the same pose, as a ghost behind the optimised one.
    if let Some((file, ghost)) = &shown.file_body {
        let (segs, _, _) = pose_of(ghost, clip.period, time);
        let colour = egui::Color32::from_rgba_unmultiplied(80, 80, 80, 110);
        for (l, (a, b)) in segs.iter().enumerate() {
            let w = ((2.0 * file.limbs[l].radius * scale) as f32).clamp(2.0, 14.0);
            painter.line_segment([to(*a), to(*b)], egui::Stroke::new(w, colour));
        }
    }
    let (segs, frame, _) = pose_at(shown, time);
    // Far limbs (small z) first and paler; the viewer looks from +z.
    let mut order: Vec<usize> = (0..segs.len()).collect();
    order.sort_by(|&a, &b| {
        let za = segs[a].0[2] + segs[a].1[2];
        let zb = segs[b].0[2] + segs[b].1[2];
        za.total_cmp(&zb)
    });
    let zmid = 0.5 * (shown.extent[3] + zmax);
    for l in order {
        let (a, b) = segs[l];
        let far = (a[2] + b[2]) * 0.5 < zmid - 1e-3;
        let base = match shown.leg[l] {
            Some(k) => foot_colour(k),
            None => egui::Color32::from_gray(60),
        };
        let colour = if far {
            base.lerp_to_gamma(egui::Color32::WHITE, 0.45)
        } else {
            base
        };
        let radius = shown.skeleton.limbs[l].radius;
        let w = ((2.0 * radius * scale) as f32).clamp(2.0, 14.0);
        painter.line_segment([to(a), to(b)], egui::Stroke::new(w, colour));
        painter.circle_filled(to(a), w * 0.5, colour);
    }
    // Feet: a dot, and the ground reaction when in contact (length: 0.3 m per body weight).
    let weight = shown.skeleton.total_mass() * crate::model::rotation::GRAVITY_F64;
    for (k, &foot) in shown.skeleton.feet.iter().enumerate() {
        let p = segs[foot].1;
        let at = to(p);
        let load = clip
            .contacts
            .get(frame)
            .and_then(|c| c.get(k))
            .and_then(|l| l.as_ref());
        painter.circle_filled(at, 3.5, foot_colour(k));
        if let Some(load) = load {
            painter.circle_stroke(at, 5.5, egui::Stroke::new(1.5, egui::Color32::BLACK));
            let s = 0.3 / weight.max(1e-9) * scale;
            let v = egui::vec2((load.force[0] * s) as f32, -(load.force[1] * s) as f32);
            painter.arrow(
                at,
                v,
                egui::Stroke::new(1.5, egui::Color32::from_rgb(200, 30, 30)),
            );
        }
    }
    painter.text(
        rect.left_top() + egui::vec2(6.0, 4.0),
        egui::Align2::LEFT_TOP,
        format!(
            "{}{}",
            if world {
                format!("side view · world frame · {:.2} m/s", clip.speed)
            } else {
                format!("side view · treadmill (belt at {:.2} m/s)", -clip.speed)
            },
            if shown.file_body.is_some() {
                " · grey: the file's body"
            } else {
                ""
            }
        ),
        egui::FontId::proportional(11.0),
        ink,
    );
}

/// Front (z–y) view of the creature at `time`, looking back along −x.
fn front_view(ui: &mut egui::Ui, shown: &ShownGait, time: f64) {
    let size = egui::vec2(150.0, 250.0);
    let (resp, painter) = ui.allocate_painter(size, egui::Sense::hover());
    let rect = resp.rect;
    painter.rect_filled(rect, 3.0, egui::Color32::from_rgb(235, 240, 246));
    let [_, _, ymax, z0, z1] = shown.extent;
    let zc = 0.5 * (z0 + z1);
    let view = ((z1 - z0) * 1.6).max(ymax * 0.7).max(0.3);
    let scale =
        ((rect.width() - 12.0) as f64 / view).min((rect.height() - 30.0) as f64 / (ymax * 1.2));
    let ground_y = rect.bottom() - 18.0;
    let to = |p: [f64; 3]| {
        egui::pos2(
            rect.center().x + ((p[2] - zc) * scale) as f32,
            ground_y - (p[1] * scale) as f32,
        )
    };
    let ink = egui::Color32::from_gray(70);
    painter.hline(
        rect.left() + 4.0..=rect.right() - 4.0,
        ground_y,
        egui::Stroke::new(2.0, ink),
    );
    let (segs, _, _) = pose_at(shown, time);
    // Back limbs (small x) first.
    let mut order: Vec<usize> = (0..segs.len()).collect();
    order.sort_by(|&a, &b| (segs[a].0[0] + segs[a].1[0]).total_cmp(&(segs[b].0[0] + segs[b].1[0])));
    for l in order {
        let (a, b) = segs[l];
        let colour = match shown.leg[l] {
            Some(k) => foot_colour(k),
            None => egui::Color32::from_gray(60),
        };
        let w = ((2.0 * shown.skeleton.limbs[l].radius * scale) as f32).clamp(2.0, 12.0);
        painter.line_segment([to(a), to(b)], egui::Stroke::new(w, colour));
    }
    painter.text(
        rect.left_top() + egui::vec2(6.0, 4.0),
        egui::Align2::LEFT_TOP,
        "front view",
        egui::FontId::proportional(11.0),
        ink,
    );
}

fn controls_ui(ui: &mut egui::Ui, state: &mut GaitState) {
    let running = state.job.is_some();
    ui.add_enabled_ui(!running, |ui| {
        egui::Grid::new("gait_request")
            .num_columns(2)
            .show(ui, |ui| {
                ui.label("creature");
                let before = state.creature;
                let name = state
                    .creature()
                    .map(|c| c.skeleton.name.clone())
                    .unwrap_or("—".into());
                egui::ComboBox::from_id_salt("gait_creature")
                    .selected_text(name)
                    .show_ui(ui, |ui| {
                        for i in 0..state.creatures.len() {
                            let c = &state.creatures[i];
                            let label = format!(
                                "{} ({} feet, {} DOF)",
                                c.skeleton.name,
                                c.skeleton.feet.len(),
                                c.skeleton.dof()
                            );
                            ui.selectable_value(&mut state.creature, i, label);
                        }
                    });
                if state.creature != before {
                    state.creature_defaults();
                }
                ui.end_row();
                ui.label("speed");
                ui.add(
                    egui::DragValue::new(&mut state.speed)
                        .range(0.0..=10.0)
                        .speed(0.01)
                        .suffix(" m/s"),
                );
                ui.end_row();
                ui.label("period");
                ui.add_enabled(
                    !state.discover,
                    egui::DragValue::new(&mut state.period)
                        .range(0.25..=1.5)
                        .speed(0.005)
                        .suffix(" s"),
                );
                ui.end_row();
                ui.label("iterations");
                ui.horizontal(|ui| {
                    ui.add(egui::DragValue::new(&mut state.max_iterations).range(10..=5000))
                        .on_hover_text(
                            "IPOPT iteration limit of the gait solve, both stages together (a \
                             solve stopped by it is projected onto the constraints)",
                        );
                    ui.label("L-BFGS");
                    ui.add(egui::DragValue::new(&mut state.lbfgs_iterations).range(0..=5000))
                        .on_hover_text(
                            "iterations with IPOPT's L-BFGS Hessian before the exact Hessian \
                             takes over (the creature file's `solve` setting when picked: the \
                             horse needs about 1,500; the other creatures 300)",
                        );
                });
                ui.end_row();
            });
        ui.horizontal(|ui| {
            ui.checkbox(&mut state.discover, "Discover timings")
                .on_hover_text(format!(
                    "basin-CMA over the period and the footfalls (specs/004.md §1.3); sample \
                     clips are kept in {DISCOVERY_SAMPLES_DIR}, so the same discovery started \
                     again resumes"
                ));
            ui.checkbox(&mut state.morphology, "Morphology").on_hover_text(
                "Co-optimise the body (specs/004.md §1.5): a length and a radius per left–right \
                 pair of leg limbs, mass at constant density; torso, neck and head fixed",
            );
            if state.morphology {
                ui.checkbox(&mut state.muscle, "muscles").on_hover_text(
                    "The muscle-aware effort (3.26)–(3.33), σ_max = 50 N/cm². Without it the \
                     legs grow long and slender",
                );
            }
        });
        if state.discover {
            ui.horizontal(|ui| {
                ui.label("generations");
                ui.add(egui::DragValue::new(&mut state.generations).range(1..=200));
                ui.label("population");
                ui.add(egui::DragValue::new(&mut state.population).range(0..=64))
                    .on_hover_text("samples per generation (0: 4 + ⌊3 ln n⌋)");
                ui.label("sample iterations");
                ui.add(egui::DragValue::new(&mut state.sample_iterations).range(10..=5000))
                    .on_hover_text(
                        "IPOPT iteration limit of each sample's projection (with the L-BFGS \
                         stage above); converged samples rank gaits reliably, capped ones do not",
                    );
            });
            ui.horizontal(|ui| {
                ui.label("periods searched");
                let (lo, hi) = &mut state.period_range;
                ui.add(
                    egui::DragValue::new(lo)
                        .range(0.1..=*hi - 0.05)
                        .speed(0.01)
                        .suffix(" s"),
                );
                ui.label("to");
                ui.add(
                    egui::DragValue::new(hi)
                        .range(*lo + 0.05..=3.0)
                        .speed(0.01)
                        .suffix(" s"),
                )
                .on_hover_text(
                    "the periods the discovery searches; narrow it to restrict the search \
                     (specs/004.md §1.3)",
                );
            });
        } else {
            ui.horizontal(|ui| {
                ui.label(egui::RichText::new("Footfalls (fractions of the cycle)").strong());
                if ui.small_button("defaults").clicked() {
                    state.reset_timings();
                }
            });
            footfall_editor(ui, &mut state.timings);
            match state.request_spec() {
                Ok(spec) => {
                    let names: Vec<String> = spec.timings.iter().map(|t| t.foot.clone()).collect();
                    footfall_diagram(ui, &names, spec.contacts(), None);
                    ui.small(format!(
                        "{} frames · flight: {} · double support: {}",
                        spec.frames,
                        yes_no(spec.has_flight()),
                        yes_no(spec.has_double_support())
                    ));
                }
                Err(e) => {
                    ui.colored_label(egui::Color32::from_rgb(230, 80, 60), e);
                }
            }
        }
    });
    ui.horizontal(|ui| {
        if ui
            .add_enabled(!running, egui::Button::new("Solve"))
            .on_hover_text("Solve the gait in a background process")
            .clicked()
        {
            state.start(false);
        }
        let refinable = state
            .shown
            .as_ref()
            .zip(state.creature())
            .is_some_and(|(s, c)| s.clip.creature == c.skeleton.name);
        if ui
            .add_enabled(
                !running && refinable && !state.discover,
                egui::Button::new("Refine"),
            )
            .on_hover_text(
                "Go on from the gait on show: another `iterations` IPOPT iterations from it, with \
                 the timing above (kept if the solve ends no better)",
            )
            .clicked()
        {
            state.start(true);
        }
        if running && ui.button("Cancel").clicked() {
            state.cancel();
            state.message = "solve cancelled".into();
        }
    });
    if let Some(job) = &state.job {
        ui.horizontal(|ui| {
            ui.spinner();
            let phase = if job.discover && job.iterations.is_empty() {
                format!("discovering · {} generations done", job.generations)
            } else {
                format!("IPOPT iteration {}", job.iterations.len())
            };
            ui.label(format!(
                "{:.0} s · {phase}",
                job.started.elapsed().as_secs_f64()
            ));
        });
        if job.discover {
            ui.label(
                egui::RichText::new("Best cost per generation")
                    .small()
                    .strong(),
            );
            best_cost_plot(ui, "gait_discovery_cost", &job.best_costs);
            if !job.feasible.is_empty() {
                ui.small(format!("last generation: {} feasible", job.feasible));
            }
            samples_plot(
                ui,
                "gait_discovery_samples",
                &job.samples,
                job.failed_samples,
            );
            if let (Some((period, timings)), Some(c)) =
                (&job.best, state.creatures.get(job.creature))
            {
                if let Ok(spec) = GaitSpec::new(c.skeleton.clone(), job.speed, *period, timings) {
                    ui.small(format!("current best: period {period:.3} s"));
                    let names: Vec<String> = spec.timings.iter().map(|t| t.foot.clone()).collect();
                    footfall_diagram(ui, &names, spec.contacts(), None);
                }
            }
        }
        if !job.iterations.is_empty() {
            ui.label(
                egui::RichText::new("IPOPT: log₁₀ objective and infeasibility")
                    .small()
                    .strong(),
            );
            let obj: Vec<[f64; 2]> = job
                .iterations
                .iter()
                .enumerate()
                .map(|(i, (o, _))| [i as f64, o.abs().max(1e-12).log10()])
                .collect();
            let inf: Vec<[f64; 2]> = job
                .iterations
                .iter()
                .enumerate()
                .map(|(i, (_, p))| [i as f64, p.abs().max(1e-16).log10()])
                .collect();
            Plot::new("gait_ipopt_log")
                .height(100.0)
                .legend(Legend::default())
                .allow_drag(false)
                .allow_scroll(false)
                .show(ui, |plot| {
                    plot.line(Line::new("objective", PlotPoints::from(obj)).width(1.5));
                    plot.line(Line::new("inf_pr", PlotPoints::from(inf)).width(1.5));
                });
        }
    }
    ui.separator();
    ui.horizontal(|ui| {
        ui.add(
            egui::TextEdit::singleline(&mut state.load_path)
                .desired_width(200.0)
                .hint_text("results/gaits/….ron"),
        );
        if ui.button("Load clip").clicked() {
            let p = PathBuf::from(state.load_path.trim());
            state.load(&p);
        }
        if ui.button("…").on_hover_text("Choose a clip file").clicked() {
            if let Some(p) = rfd::FileDialog::new()
                .add_filter("gait clip", &["ron"])
                .pick_file()
            {
                state.load_path = p.display().to_string();
                state.load(&p);
            }
        }
    });
    ui.horizontal(|ui| {
        ui.add(egui::TextEdit::singleline(&mut state.save_path).desired_width(200.0));
        if ui
            .add_enabled(state.shown.is_some(), egui::Button::new("Save clip"))
            .on_hover_text("Write the gait on show as RON (atomically)")
            .clicked()
        {
            let p = PathBuf::from(state.save_path.trim());
            state.save(&p);
        }
    });
    if !state.message.is_empty() {
        ui.add(egui::Label::new(egui::RichText::new(&state.message).small()).wrap());
    }
}

fn yes_no(b: bool) -> &'static str {
    if b { "yes" } else { "no" }
}

fn result_ui(ui: &mut egui::Ui, state: &mut GaitState) {
    let Some(shown) = &state.shown else {
        ui.label(if state.job.is_some() {
            "Solving: the gait will show here when the solver is done."
        } else {
            "No gait on show: solve one or load a clip (demo clips in assets/gaits/)."
        });
        return;
    };
    let clip = &shown.clip;
    let phase = (state.time / clip.period).rem_euclid(1.0);
    ui.label(
        egui::RichText::new(format!(
            "{} · {:.2} m/s · period {:.3} s · stride {:.2} m",
            clip.creature,
            clip.speed,
            clip.period,
            clip.speed * clip.period
        ))
        .strong(),
    );
    ui.small(&shown.source);
    let converged = clip.converged();
    ui.horizontal_wrapped(|ui| {
        ui.label(format!("cost {:.4}", clip.cost));
        ui.separator();
        ui.label(format!("max violation {:.1e}", clip.max_violation));
        ui.separator();
        let status = format!(
            "{}{}",
            clip.status,
            clip.projection_status
                .as_deref()
                .map(|p| format!(", projection {p}"))
                .unwrap_or_default()
        );
        if converged {
            ui.colored_label(egui::Color32::from_rgb(60, 170, 80), status);
        } else {
            ui.colored_label(egui::Color32::from_rgb(230, 80, 60), status);
        }
        ui.separator();
        ui.label(format!(
            "{} iterations · {:.0} s",
            clip.iterations, clip.solve_time_s
        ));
    });
    let names: Vec<String> = shown
        .skeleton
        .feet
        .iter()
        .map(|&l| shown.skeleton.limbs[l].name.clone())
        .collect();
    ui.label(egui::RichText::new("Footfall diagram").small().strong());
    footfall_diagram(ui, &names, &shown.contact, Some(phase));
    ui.horizontal(|ui| {
        ui.colored_label(FLIGHT, "■");
        ui.small("flight");
        ui.colored_label(DOUBLE, "■");
        ui.small("double support");
        ui.colored_label(egui::Color32::RED, "|");
        ui.small("now");
    });
    // Each foot's most synchronous partner: a hop's feet or a trot's diagonal pairs near 1.
    let in_step: Vec<String> = crate::spacetime::gait::feet_in_step(&shown.contact)
        .iter()
        .map(|&(a, b, o)| format!("{}–{} {:.2}", names[a], names[b], o))
        .collect();
    if !in_step.is_empty() {
        ui.small(format!("in step: {}", in_step.join(" · ")))
            .on_hover_text(
                "Each foot's most synchronous partner: the share of the shorter contact during \
                 which both feet are down (1: they land and lift together, 0: never down together)",
            );
    }
    // Playback.
    ui.horizontal(|ui| {
        if ui
            .button(if state.playing { "Pause" } else { "Play" })
            .clicked()
        {
            state.playing = !state.playing;
        }
        ui.add(
            egui::Slider::new(&mut state.rate, 0.1..=2.0)
                .logarithmic(true)
                .text("×"),
        );
        ui.radio_value(&mut state.world, false, "treadmill");
        ui.radio_value(&mut state.world, true, "world");
    });
    let mut p = phase;
    if ui
        .add(egui::Slider::new(&mut p, 0.0..=0.999).text("phase"))
        .changed()
    {
        state.time = p * clip.period;
        state.playing = false;
    }
    let side_width = ui.available_width() - 160.0;
    ui.horizontal_top(|ui| {
        side_view(ui, shown, state.time, state.world, side_width);
        front_view(ui, shown, state.time);
    });
    if let (Some(shapes), Some((file, _))) = (&clip.morphology, &shown.file_body) {
        body_table(ui, shapes, file);
    }
    // Audit.
    egui::CollapsingHeader::new(format!(
        "Audit (largest residual {:.1e})",
        shown.audit.max()
    ))
    .default_open(true)
    .show(ui, |ui| {
        let a = &shown.audit;
        egui::Grid::new("gait_audit")
            .num_columns(4)
            .striped(true)
            .show(ui, |ui| {
                let rows = [
                    ("linear momentum", a.linear_momentum, "m/s²"),
                    ("angular momentum", a.angular_momentum, "m²/s²"),
                    ("friction cone", a.friction, "m/s²"),
                    ("torque ellipsoid", a.torque_ellipsoid, "m/s²"),
                    ("ground", a.ground, "m"),
                    ("foot slip", a.slip, "m/s"),
                    ("foot twist", a.twist, ""),
                ];
                for (i, (name, v, unit)) in rows.iter().enumerate() {
                    ui.label(*name);
                    ui.label(format!("{v:.1e} {unit}"));
                    if i % 2 == 1 {
                        ui.end_row();
                    }
                }
            });
        // Per frame: vertical ground reaction per foot, in body weights.
        let weight = shown.skeleton.total_mass() * crate::model::rotation::GRAVITY_F64;
        ui.label(
            egui::RichText::new("Vertical ground reaction per frame (body weights)")
                .small()
                .strong(),
        );
        Plot::new("gait_loads")
            .height(110.0)
            .legend(Legend::default())
            .allow_drag(false)
            .allow_scroll(false)
            .show(ui, |plot| {
                for (k, name) in names.iter().enumerate() {
                    let pts: Vec<[f64; 2]> = clip
                        .contacts
                        .iter()
                        .enumerate()
                        .map(|(i, c)| {
                            let fy = c
                                .get(k)
                                .and_then(|l| l.as_ref())
                                .map_or(0.0, |l| l.force[1]);
                            [i as f64, fy / weight]
                        })
                        .collect();
                    plot.line(
                        Line::new(name.clone(), PlotPoints::from(pts))
                            .color(foot_colour(k))
                            .width(1.5),
                    );
                }
                plot.vline(
                    VLine::new("", phase * clip.frames.len() as f64).color(egui::Color32::RED),
                );
            });
    });
    if let Some(record) = &state.last_discovery {
        egui::CollapsingHeader::new("Discovery: best cost per generation and every sample")
            .default_open(true)
            .show(ui, |ui| {
                best_cost_plot(ui, "gait_last_discovery_cost", &record.best_costs);
                samples_plot(
                    ui,
                    "gait_last_discovery_samples",
                    &record.samples,
                    record.failed_samples,
                );
            });
    }
}

/// The optimised body against the creature file: the limbs that changed, and the total mass.
fn body_table(
    ui: &mut egui::Ui,
    shapes: &[crate::spacetime::morphology::LimbShape],
    file: &Skeleton,
) {
    let total: f64 = shapes.iter().map(|s| s.mass).sum();
    egui::CollapsingHeader::new(format!(
        "Body: {:.2} kg (file {:.2} kg)",
        total,
        file.total_mass()
    ))
    .default_open(true)
    .show(ui, |ui| {
        egui::Grid::new("gait_body")
            .num_columns(4)
            .striped(true)
            .show(ui, |ui| {
                for h in ["limb", "length (m)", "radius (m)", "mass (kg)"] {
                    ui.label(egui::RichText::new(h).small().strong());
                }
                ui.end_row();
                for (shape, limb) in shapes.iter().zip(&file.limbs) {
                    if shape.length == limb.length && shape.radius == limb.radius {
                        continue;
                    }
                    ui.label(&shape.name);
                    ui.label(format!(
                        "{:.3} (file {:.3}, ×{:.2})",
                        shape.length,
                        limb.length,
                        shape.length / limb.length
                    ));
                    ui.label(format!(
                        "{:.3} (file {:.3}, ×{:.2})",
                        shape.radius,
                        limb.radius,
                        shape.radius / limb.radius
                    ));
                    ui.label(format!("{:.2} (file {:.2})", shape.mass, limb.mass));
                    ui.end_row();
                }
            });
    });
}

/// Width of the request column of the Gait window (px).
const CONTROLS_WIDTH: f32 = 330.0;

fn gait_window(
    mut contexts: EguiContexts,
    mut state: ResMut<GaitState>,
    diversity: Option<Res<super::diversity_panel::DiversityState>>,
) -> Result {
    let ctx = contexts.ctx_mut()?;
    let state = &mut *state;
    // The viewport area between the workbench panels (last frame's).
    // (Known from the second frame on; the window waits for it to open in the right place.)
    let Some(central) = diversity.and_then(|d| d.central) else {
        return Ok(());
    };
    egui::Area::new(egui::Id::new("gait_toggle"))
        .fixed_pos(central.left_top() + egui::vec2(8.0, 8.0))
        .show(ctx, |ui| {
            let label = if state.visible { "Gait ✔" } else { "Gait…" };
            if ui
                .button(label)
                .on_hover_text("Gait panel: spacetime gaits (specs/004.md)")
                .clicked()
            {
                state.visible = !state.visible;
            }
        });
    if !state.visible {
        return Ok(());
    }
    let mut open = true;
    egui::Window::new("Gait")
        .id(egui::Id::new("gait_window"))
        .open(&mut open)
        .default_pos(central.left_top() + egui::vec2(4.0, 40.0))
        .default_size(egui::vec2(
            (central.width() - 10.0).clamp(600.0, 960.0),
            (central.height() - 50.0).clamp(400.0, 820.0),
        ))
        .resizable(true)
        .show(ctx, |ui| {
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
        });
    if !open {
        state.visible = false;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn solver_output_lines_become_progress() {
        match parse_solver_line(
            3,
            "generation 2 feasible 5/8 best_cost 13.467872 period 1.4370 contacts l_foot:0:0.88,r_foot:0.22:0.84",
        ) {
            Some(JobMsg::Generation {
                job: 3,
                generation: 2,
                best: Some((cost, period, timings)),
                feasible,
            }) => {
                assert!((cost - 13.467872).abs() < 1e-9 && (period - 1.437).abs() < 1e-9);
                assert_eq!(timings.len(), 2);
                assert_eq!(feasible, "5/8");
            }
            _ => panic!("generation line not parsed"),
        }
        assert!(matches!(
            parse_solver_line(1, "generation 0 feasible 0/8 best_cost none"),
            Some(JobMsg::Generation { best: None, .. })
        ));
        assert!(matches!(
            parse_solver_line(
                1,
                "  12r 1.2345678e+01 3.45e-02 1.00e+00  -1.0 2.00e-01    -  1.00e+00 1.00e+00h  1"
            ),
            Some(JobMsg::Iteration(1, _, _))
        ));
        assert!(parse_solver_line(1, "status solved").is_none());
    }

    #[test]
    fn sample_lines_become_dots_with_their_footfall_kind() {
        let sample = |line: &str| match parse_solver_line(7, line) {
            Some(JobMsg::Sample {
                job: 7,
                period,
                cost,
                timings,
            }) => (period, cost, timings),
            _ => panic!("sample line not parsed: {line}"),
        };
        let (period, cost, run) = sample(
            "sample 1 7 period 0.3470 cost 7.900000 max_violation 6.000e-9 contacts l_foot:0:0.44,r_foot:0.5:0.36",
        );
        assert_eq!((period, cost), (0.347, Some(7.9)));
        // Not converged (the CLI reports violation ≥ 1) or failed: no cost to plot.
        let (_, cost, _) = sample(
            "sample 0 2 period 0.5000 cost 312.000000 max_violation 1.000e0 contacts l_foot:0:0.5,r_foot:0.5:0.5",
        );
        assert_eq!(cost, None);
        let (_, cost, hop) =
            sample("sample 0 3 period 0.6000 failed contacts l_foot:0:0.4,r_foot:0.02:0.4");
        assert_eq!(cost, None);
        let biped = Skeleton::load(characters_dir().join("simple_biped.ron")).unwrap();
        let dot = |period: f64, timings: &[FootTiming]| {
            SampleDot::new(
                &GaitSpec::new(biped.clone(), 2.5, period, timings).unwrap(),
                1.0,
            )
        };
        // A run: the feet alternate with flight between.
        let run = dot(0.347, &run);
        assert_eq!((run.kind(), run.pairing), ("unpaired, flight", 0.0));
        // A hop: the feet land nearly together (11 of 12 frames shared).
        let hop = dot(0.6, &hop);
        assert_eq!(hop.kind(), "paired, flight");
        assert!((hop.pairing - 11.0 / 12.0).abs() < 1e-12, "{}", hop.pairing);
        // A walk: double support, no flight, the feet alternate.
        let walk = dot(1.0, &parse_timings("l_foot:0:0.6,r_foot:0.5:0.6").unwrap());
        assert_eq!(walk.kind(), "unpaired");
        assert!(
            (walk.pairing - 6.0 / 18.0).abs() < 1e-12,
            "{}",
            walk.pairing
        );
    }

    #[test]
    fn a_clip_of_the_wrong_creature_is_refused() {
        let sk = Skeleton::load(characters_dir().join("monoped.ron")).unwrap();
        let clip = GaitClip {
            creature: sk.name.clone(),
            speed: 0.5,
            period: 0.5,
            timings: Vec::new(),
            coordinates: Vec::new(),
            frames: vec![vec![0.0; sk.dof() + 1]; 30],
            contacts: vec![vec![None; sk.feet.len()]; 30],
            passive: Vec::new(),
            cost: 0.0,
            status: "solved".into(),
            projection_status: None,
            iterations: 0,
            max_violation: 0.0,
            seed: 0,
            solve_time_s: 0.0,
            morphology: None,
            projected_from: None,
        };
        assert!(check_clip(&clip, &sk).unwrap_err().contains("coordinates"));
    }
}
