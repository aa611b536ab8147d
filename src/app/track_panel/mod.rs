//! Keys-to-Sim panel (Borer, Guay and Sumner 2018): an animation made simulated motion. Choose
//! (or drop) a clip and a character, start a tracking search as a job (wide-band, greedy, or
//! both side by side), pause, cancel and resume it from its checkpoint, and watch it window by
//! window: the paper's Fig. 7 (each window's generated samples, the kept ones, and the chain
//! followed back from the cheapest, in a third colour). Finished searches play in the viewport,
//! each simulated character beside the next with the target as a ghost, scrubbable; a result
//! saves as a clip.
//!
//! The science stays in [`crate::track`]: the job's typed progress carries its windows
//! ([`TrackProgress`]), its result file the simulated clip ([`TrackResult`]).

use super::workbench::{
    AddPanel, Busy, ClaimStage, Clock, Dock, Jobs, PanelSpec, Stage, Workbench, claim_stage,
};
use crate::clip::Clip;
use crate::jobs::JobStatus;
use crate::model::Character;
use crate::track::{TrackConfig, TrackJob, TrackProgress, TrackResult, TrackSettings};
use bevy::prelude::*;
use bevy::window::FileDragAndDrop;
use std::path::{Path, PathBuf};
use std::sync::Arc;

mod figures;
mod panel;

/// The Keys-to-Sim panel's launch options.
#[derive(clap::Args, Resource, Clone, Debug, Default)]
#[group(skip)]
pub struct Launch {
    /// Track this clip (keyframes, a clip, BVH, glTF) at launch and show the Keys-to-Sim panel.
    #[arg(long, value_name = "CLIP")]
    pub track: Option<PathBuf>,
    /// With --track: the character that tracks it (default: the clip's own, else human3d).
    #[arg(long, requires = "track", value_name = "CHARACTER")]
    pub track_character: Option<PathBuf>,
    /// With --track: samples kept per window (1: greedy; default 20).
    #[arg(long, requires = "track", value_name = "K")]
    pub track_keep: Option<usize>,
    /// With --track: CMA-ES generations per start state (default 200).
    #[arg(long, requires = "track", value_name = "G")]
    pub track_generations: Option<usize>,
    /// With --track: also start the greedy search (k = 1) beside it.
    #[arg(long, requires = "track")]
    pub track_greedy_too: bool,
    /// Show this tracking result (`motionlab track --out DIR` writes DIR/result.ron) in the
    /// Keys-to-Sim panel; repeat to compare results side by side.
    #[arg(long, value_name = "RESULT")]
    pub track_result: Vec<PathBuf>,
}

/// The panel's id.
pub const PANEL: &str = "track";

pub struct TrackPanelPlugin(pub Launch);

impl Plugin for TrackPanelPlugin {
    fn build(&self, app: &mut App) {
        let on_stage = in_state(Stage::Panel(PANEL));
        app.insert_resource(self.0.clone())
            .add_systems(Startup, setup)
            .add_systems(Update, show_results)
            .add_systems(
                Update,
                (
                    start_on_launch,
                    dropped_files,
                    poll,
                    claim_track,
                    (advance_clock, figures::pose_figures).run_if(on_stage),
                    figures::rebuild_figures,
                )
                    .chain(),
            )
            .add_panel(
                PanelSpec {
                    id: PANEL,
                    title: "Keys-to-Sim",
                    hover: "Animations made simulated motion by wide-band stochastic trajectory \
                            optimization (Borer, Guay and Sumner 2018)",
                    dock: Dock::Right {
                        width: 560.0,
                        fallback: false,
                    },
                    order: 45,
                    open: self.0.track.is_some() || !self.0.track_result.is_empty(),
                },
                panel::track_ui,
            );
    }
}

/// A finished search, ready to play: its result, the target it tracked and the character.
pub struct Shown {
    pub result: TrackResult,
    pub target: Clip,
    pub character: Character,
}

/// One search of the session: running (a job), stopped with a checkpoint, or finished.
pub struct Run {
    pub label: String,
    pub job: Option<u64>,
    /// The job's folder (checkpoint.ron, result.ron).
    pub folder: Option<PathBuf>,
    pub progress: Option<TrackProgress>,
    pub shown: Option<Arc<Shown>>,
    /// Played in the viewport.
    pub play: bool,
}

impl Run {
    /// The windows so far (live) or of the result.
    pub fn windows(&self) -> &[crate::track::WindowRecord] {
        if let Some(s) = &self.shown {
            &s.result.windows
        } else if let Some(p) = &self.progress {
            &p.windows
        } else {
            &[]
        }
    }
}

#[derive(Resource)]
pub struct TrackState {
    pub clips: Vec<PathBuf>,
    pub clip: Option<PathBuf>,
    pub characters: Vec<PathBuf>,
    /// None: the clip's own character (else human3d).
    pub character: Option<PathBuf>,
    pub settings: TrackSettings,
    pub greedy_too: bool,
    pub runs: Vec<Run>,
    /// The run whose windows the plot shows.
    pub plotted: usize,
    pub clip_dir: String,
    /// Playback time (s) and whether it advances.
    pub clock: f32,
    pub playing: bool,
    pub message: String,
    /// Bumped when what plays changes.
    pub generation: u64,
}

/// The keyframed motions shipped under `assets/keyframes/`.
fn keyframe_files() -> Vec<PathBuf> {
    super::workbench::files::ron_files(&super::workbench::files::root_path("assets/keyframes"))
}

fn setup(mut commands: Commands, options: Res<Launch>) {
    let clips = keyframe_files();
    let clip = options.track.clone().or_else(|| clips.first().cloned());
    commands.insert_resource(TrackState {
        clips,
        clip,
        characters: super::workbench::files::character_files(),
        character: options.track_character.clone(),
        settings: TrackSettings {
            keep: options.track_keep.unwrap_or(20),
            generations: options.track_generations.unwrap_or(200),
            ..TrackSettings::default()
        },
        greedy_too: options.track_greedy_too,
        runs: Vec::new(),
        plotted: 0,
        clip_dir: "results/track-clips".into(),
        clock: 0.0,
        playing: true,
        message: String::new(),
        generation: 0,
    });
}

/// The character a clip is tracked on: the one chosen, else the clip's own, else human3d.
fn character_for(state: &TrackState, clip: &Path) -> PathBuf {
    if let Some(c) = &state.character {
        return c.clone();
    }
    let own = crate::clip::open(clip, &Default::default())
        .ok()
        .filter(|o| !o.derived_character)
        .map(|o| crate::clip::file::character_path(&o.clip.character.path))
        .filter(|p| p.is_file());
    own.unwrap_or_else(|| super::workbench::files::characters_dir().join("human3d.ron"))
}

fn name_of(p: &Path) -> String {
    p.file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default()
}

impl TrackState {
    /// Starts the chosen clip's search (and the greedy one beside it when asked).
    pub fn start(&mut self, jobs: &mut Jobs) {
        let Some(clip) = self.clip.clone() else {
            self.message = "choose a clip to track".into();
            return;
        };
        let character = character_for(self, &clip);
        let mut keeps = vec![self.settings.keep];
        if self.greedy_too && self.settings.keep != 1 {
            keeps.push(1);
        }
        for keep in keeps {
            let config = TrackConfig {
                clip: clip.clone(),
                character: character.clone(),
                from: 0.0,
                to: None,
                settings: TrackSettings {
                    keep,
                    ..self.settings.clone()
                },
            };
            let label = format!(
                "{} on {} · {} · seed {}",
                name_of(&clip),
                name_of(&character),
                if keep == 1 {
                    "greedy".to_string()
                } else {
                    format!("k = {keep}")
                },
                config.settings.seed
            );
            match TrackJob::new(config) {
                Ok(job) => self.spawn(jobs, Box::new(job), None, label),
                Err(e) => {
                    self.message = format!("cannot start: {e:#}");
                    return;
                }
            }
        }
    }

    fn spawn(&mut self, jobs: &mut Jobs, job: Box<TrackJob>, folder: Option<PathBuf>, label: String) {
        match jobs.spawn(job, folder.clone()) {
            Ok(id) => {
                let folder = jobs.get(id).map(|h| h.folder.clone()).or(folder);
                self.message = format!(
                    "job #{id} in {}",
                    folder.as_ref().map(|f| f.display().to_string()).unwrap_or_default()
                );
                self.runs.push(Run {
                    label,
                    job: Some(id),
                    folder,
                    progress: None,
                    shown: None,
                    play: true,
                });
                self.plotted = self.runs.len() - 1;
            }
            Err(e) => self.message = format!("cannot start: {e}"),
        }
    }

    /// Continues run `i` from its folder's checkpoint, as a new job in the same folder.
    pub fn resume(&mut self, i: usize, jobs: &mut Jobs) {
        let Some(folder) = self.runs.get(i).and_then(|r| r.folder.clone()) else {
            return;
        };
        let cp = folder.join("checkpoint.ron");
        let job = std::fs::read_to_string(&cp)
            .map_err(anyhow::Error::from)
            .and_then(|text| TrackJob::from_checkpoint(&text));
        match job {
            Ok(job) => {
                let label = self.runs.remove(i).label;
                self.spawn(jobs, Box::new(job), Some(folder), label);
            }
            Err(e) => self.message = format!("cannot resume from {}: {e:#}", cp.display()),
        }
    }

    /// Loads a finished search's result file.
    pub fn load(&mut self, path: &Path) -> Option<Arc<Shown>> {
        match load_shown(path) {
            Ok(s) => {
                self.message = format!(
                    "{}: cost {:.3}, root error median {:.3} m, {}",
                    path.display(),
                    s.result.metrics.cost,
                    s.result.metrics.root_error_median_m,
                    if s.result.metrics.fell { "fell" } else { "stayed up" }
                );
                self.generation += 1;
                Some(Arc::new(s))
            }
            Err(e) => {
                self.message = format!("{}: {e:#}", path.display());
                None
            }
        }
    }

    /// Adds a result file as a finished run.
    pub fn add_result(&mut self, path: &Path) {
        if let Some(shown) = self.load(path) {
            let s = &shown.result.config;
            let label = format!(
                "{} on {} · {} · seed {}",
                name_of(&s.clip),
                name_of(&s.character),
                if s.settings.keep == 1 {
                    "greedy".to_string()
                } else {
                    format!("k = {}", s.settings.keep)
                },
                s.settings.seed
            );
            self.runs.push(Run {
                label,
                job: None,
                folder: path.parent().map(Path::to_path_buf),
                progress: None,
                shown: Some(shown),
                play: true,
            });
            self.plotted = self.runs.len() - 1;
        }
    }

    /// The finished runs that play, in order.
    pub fn playing_runs(&self) -> Vec<&Arc<Shown>> {
        self.runs
            .iter()
            .filter(|r| r.play)
            .filter_map(|r| r.shown.as_ref())
            .collect()
    }

    /// The longest playing motion (s).
    pub fn duration(&self) -> f32 {
        self.playing_runs()
            .iter()
            .map(|s| s.result.clip.duration() as f32)
            .fold(0.0, f32::max)
    }

    /// Writes run `i`'s simulated clip into `clip_dir`.
    pub fn save_clip(&mut self, i: usize) {
        let Some(shown) = self.runs.get(i).and_then(|r| r.shown.clone()) else {
            return;
        };
        let c = &shown.result.config;
        let stem = c
            .clip
            .file_stem()
            .map(|s| s.to_string_lossy().into_owned())
            .unwrap_or_default();
        let stem = stem.trim_end_matches(".keys");
        let path = PathBuf::from(&self.clip_dir).join(format!(
            "{stem}-k{}-seed{}.ron",
            c.settings.keep, c.settings.seed
        ));
        let outcome = std::fs::create_dir_all(&self.clip_dir)
            .map_err(anyhow::Error::from)
            .and_then(|_| Ok(shown.result.clip.save(&path)?));
        self.message = match outcome {
            Ok(()) => format!("saved {}", path.display()),
            Err(e) => format!("{}: {e:#}", path.display()),
        };
    }
}

/// A result file with the target it tracked and its character.
fn load_shown(path: &Path) -> anyhow::Result<Shown> {
    let result: TrackResult = crate::files::read_ron(path)?;
    let (character, target) = crate::track::job::load(&result.config)?;
    Ok(Shown {
        result,
        target,
        character,
    })
}

fn start_on_launch(
    options: Res<Launch>,
    mut state: ResMut<TrackState>,
    mut jobs: ResMut<Jobs>,
    mut done: Local<bool>,
) {
    if *done {
        return;
    }
    *done = true;
    for p in &options.track_result {
        state.add_result(p);
    }
    if options.track.is_some() {
        state.start(&mut jobs);
    }
}

/// A file dropped on the window while the panel is open becomes the clip to track (a character
/// file, the character).
fn dropped_files(
    mut drops: MessageReader<FileDragAndDrop>,
    mut state: ResMut<TrackState>,
    bench: Res<Workbench>,
) {
    for d in drops.read() {
        let FileDragAndDrop::DroppedFile { path_buf, .. } = d else {
            continue;
        };
        if !bench.is_open(PANEL) {
            continue;
        }
        if crate::model::load_character(path_buf).is_ok() {
            state.character = Some(path_buf.clone());
        } else {
            if !state.clips.contains(path_buf) {
                state.clips.push(path_buf.clone());
            }
            state.clip = Some(path_buf.clone());
        }
        state.message = format!("dropped {}", path_buf.display());
    }
}

/// Takes each job's windows as they come and its result when it finishes.
fn poll(mut state: ResMut<TrackState>, jobs: Res<Jobs>, mut busy: ResMut<Busy>) {
    let state = &mut *state;
    let mut finished = Vec::new();
    for (i, run) in state.runs.iter_mut().enumerate() {
        let Some(h) = run.job.and_then(|id| jobs.get(id)) else {
            continue;
        };
        if let Some(p) = h.progress.detail::<TrackProgress>()
            && run.progress.as_ref().map(|q| q.windows.len()) != Some(p.windows.len())
        {
            run.progress = Some(p.clone());
        }
        if h.status == JobStatus::Finished && run.shown.is_none() {
            match h.result.clone() {
                Some(p) => finished.push((i, p)),
                None => busy.add(PANEL, "a finished search's result"),
            }
        }
    }
    for (i, p) in finished {
        let shown = state.load(&p);
        let run = &mut state.runs[i];
        run.shown = shown;
        if run.shown.is_none() {
            // Not loadable: stop asking.
            run.job = None;
        }
    }
}

/// The results own the viewport while the panel is open with one to play.
fn claim_track(
    state: Res<TrackState>,
    bench: Res<Workbench>,
    mut said: Local<bool>,
    mut out: MessageWriter<ClaimStage>,
) {
    let wants = bench.is_open(PANEL) && !state.playing_runs().is_empty();
    claim_stage(Stage::Panel(PANEL), wants, &mut said, &mut out);
}

fn advance_clock(mut state: ResMut<TrackState>, time: Res<Time>, clock: Res<Clock>) {
    if !state.playing {
        return;
    }
    let d = state.duration();
    let t = state.clock + clock.dt(&time, 0.1) as f32;
    state.clock = if d > 0.0 && t > d + 0.5 { 0.0 } else { t };
}

/// A watched job folder's finished result (the Jobs panel's "Show"), shown here.
fn show_results(
    mut shows: MessageReader<super::workbench::ShowResult>,
    mut state: ResMut<TrackState>,
    mut open: MessageWriter<super::workbench::OpenPanel>,
) {
    for s in shows.read() {
        if s.kind == crate::job_folder::FolderKind::Track {
            state.add_result(&s.path);
            open.write(super::workbench::OpenPanel {
                id: PANEL,
                open: true,
            });
        }
    }
}
