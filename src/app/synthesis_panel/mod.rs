//! Synthesis panel (Wampler 2012, thesis ch. 5): grow a controller's motion graph as a
//! background job and watch it grow: cost(G) per iteration of every run side by side (the
//! surrogates' search against uniform sampling, the thesis's fig. 5.6), the turns solved and
//! failed and the last iteration's weighed templates (fig. 5.7), the graph's clips; steer the
//! graph at any moment in the Steering view by its value-function policy. Runs finished, or
//! running elsewhere (`motionlab controller synthesize`), show from their graph folder's
//! `synthesis.ron`.
//!
//! The science and the job are [`crate::synthesis`]; the job's typed progress carries the
//! history ([`SynthesisProgress`]).

mod panel;

use super::workbench::{AddPanel, Dock, Jobs, OpenPanel, PanelSpec};
use crate::jobs::JobStatus;
use crate::synthesis::job::{SynthesisJob, SynthesisProgress, SynthesisRequest, checkpoint_of};
use crate::synthesis::surrogate::Template;
use crate::synthesis::{Iteration, Synthesis};
use bevy::prelude::*;
use std::path::PathBuf;
use std::time::{Duration, Instant, SystemTime};

/// The Synthesis panel's launch options.
#[derive(clap::Args, Resource, Clone, Debug, Default)]
#[group(skip)]
pub struct Launch {
    /// Grow a controller for this task file at launch (e.g.
    /// assets/controllers/biped_direction.ron) with the panel's defaults (the simple biped, 10
    /// clips, the graph in results/) and show the Synthesis panel.
    #[arg(long, value_name = "TASK")]
    pub synthesize: Option<PathBuf>,
    /// Show the synthesis of this graph file (its folder's synthesis.ron: finished, or running
    /// elsewhere) in the Synthesis panel; repeat to compare runs.
    #[arg(long, value_name = "GRAPH")]
    pub synthesis: Vec<PathBuf>,
}

/// The panel's id.
pub const PANEL: &str = "synthesis";

pub struct SynthesisPanelPlugin(pub Launch);

impl Plugin for SynthesisPanelPlugin {
    fn build(&self, app: &mut App) {
        app.insert_resource(self.0.clone())
            .insert_resource(SynthesisState::default())
            .add_systems(Update, (start_at_launch, poll_runs).chain())
            .add_panel(
                PanelSpec {
                    id: PANEL,
                    title: "Synthesis",
                    hover: "Grow a controller's motion graph one solved clip at a time (Wampler 2012) and steer it",
                    dock: Dock::Right {
                        width: 440.0,
                        fallback: false,
                    },
                    order: 35,
                    open: self.0.synthesize.is_some() || !self.0.synthesis.is_empty(),
                },
                panel::synthesis_ui,
            );
    }
}

/// One synthesis on show: a job of this session, or a graph folder read from disk.
pub struct Run {
    pub graph: PathBuf,
    /// The job growing it in this session.
    pub job: Option<u64>,
    pub uniform: bool,
    pub history: Vec<Iteration>,
    /// The template being solved and the solver's progress.
    pub solving: Option<(Template, String)>,
    pub error: Option<String>,
    /// The checkpoint's time when last read, and when it was last looked at.
    read: Option<SystemTime>,
    polled: Option<Instant>,
}

impl Run {
    fn new(graph: PathBuf, job: Option<u64>) -> Self {
        Run {
            graph,
            job,
            uniform: false,
            history: Vec::new(),
            solving: None,
            error: None,
            read: None,
            polled: None,
        }
    }

    /// Its name in legends: the graph file's folder and stem (two runs of one task differ by
    /// where they grow) and how it samples.
    pub fn label(&self) -> String {
        let stem = self
            .graph
            .file_stem()
            .map(|s| s.to_string_lossy().trim_end_matches(".graph").to_string())
            .unwrap_or_default();
        let folder = self
            .graph
            .parent()
            .and_then(|p| p.file_name())
            .map(|p| format!("{}/", p.to_string_lossy()))
            .unwrap_or_default();
        format!(
            "{folder}{stem} ({})",
            if self.uniform { "uniform" } else { "surrogates" }
        )
    }
}

/// The form and the runs on show.
#[derive(Resource)]
pub struct SynthesisState {
    pub creature: String,
    pub task: String,
    pub out: String,
    pub clips: usize,
    pub iterations: usize,
    pub uniform: bool,
    pub seed: u64,
    /// A graph file typed to show.
    pub show: String,
    pub runs: Vec<Run>,
    /// The run whose turns and clips are shown.
    pub selected: usize,
    pub message: String,
}

impl Default for SynthesisState {
    fn default() -> Self {
        let root = |p: &str| {
            super::workbench::files::root_path(p)
                .to_string_lossy()
                .into_owned()
        };
        SynthesisState {
            creature: root("characters/simple_biped.ron"),
            task: root("assets/controllers/biped_direction.ron"),
            out: "results/biped_direction.graph.ron".into(),
            clips: 10,
            iterations: 20,
            uniform: false,
            seed: 1,
            show: String::new(),
            runs: Vec::new(),
            selected: 0,
            message: String::new(),
        }
    }
}

impl SynthesisState {
    /// Starts the form's synthesis as a job (resuming its graph folder's checkpoint if any).
    pub fn start(&mut self, jobs: &mut Jobs) {
        let request = SynthesisRequest {
            creature: PathBuf::from(self.creature.trim()),
            task: PathBuf::from(self.task.trim()),
            clips: self.clips,
            iterations: self.iterations,
            uniform: self.uniform,
            seed: self.seed,
            out: PathBuf::from(self.out.trim()),
        };
        if self
            .runs
            .iter()
            .any(|r| r.graph == request.out && r.job.is_some_and(|id| jobs.get(id).is_some_and(|h| !h.is_done())))
        {
            self.message = format!("{} is growing already", request.out.display());
            return;
        }
        let program = match std::env::current_exe() {
            Ok(p) => p,
            Err(e) => {
                self.message = format!("cannot locate this program (the solver worker): {e}");
                return;
            }
        };
        let folder = request.folder();
        let graph = request.out.clone();
        match SynthesisJob::open(request, program)
            .map_err(|e| format!("{e:#}"))
            .and_then(|job| jobs.spawn(Box::new(job), Some(folder)).map_err(|e| e.to_string()))
        {
            Ok(id) => {
                self.runs.retain(|r| r.graph != graph);
                self.runs.push(Run::new(graph.clone(), Some(id)));
                self.selected = self.runs.len() - 1;
                self.message = format!("growing {} (job #{id})", graph.display());
            }
            Err(e) => self.message = e,
        }
    }

    /// Shows a graph's synthesis from its folder.
    pub fn show(&mut self, graph: PathBuf) {
        if let Some(k) = self.runs.iter().position(|r| r.graph == graph) {
            self.selected = k;
            return;
        }
        self.runs.push(Run::new(graph, None));
        self.selected = self.runs.len() - 1;
    }
}

fn start_at_launch(
    options: Res<Launch>,
    mut done: Local<bool>,
    mut state: ResMut<SynthesisState>,
    mut jobs: ResMut<Jobs>,
    mut open: MessageWriter<OpenPanel>,
) {
    if *done {
        return;
    }
    *done = true;
    for graph in &options.synthesis {
        state.show(graph.clone());
    }
    if let Some(task) = &options.synthesize {
        state.task = task.to_string_lossy().into_owned();
        state.start(&mut jobs);
    }
    if options.synthesize.is_some() || !options.synthesis.is_empty() {
        open.write(OpenPanel {
            id: PANEL,
            open: true,
        });
    }
}

/// A job's run reads its typed progress every frame; a folder's, its checkpoint when it changed
/// (looked at every two seconds).
fn poll_runs(mut state: ResMut<SynthesisState>, jobs: Res<Jobs>) {
    for run in &mut state.runs {
        if let Some(h) = run.job.and_then(|id| jobs.get(id)) {
            if let Some(p) = h.progress.detail::<SynthesisProgress>() {
                run.history.clone_from(&p.history);
                run.solving = p.solving.clone();
                run.uniform = p.uniform;
            }
            if h.is_done() {
                run.solving = None;
            }
            if h.status == JobStatus::Failed {
                run.error = h.error.clone();
            }
            continue;
        }
        if run.polled.is_some_and(|t| t.elapsed() < Duration::from_secs(2)) {
            continue;
        }
        run.polled = Some(Instant::now());
        let path = checkpoint_of(&run.graph);
        let modified = std::fs::metadata(&path).and_then(|m| m.modified()).ok();
        if modified.is_some() && modified == run.read {
            continue;
        }
        match crate::files::read_ron::<Synthesis>(&path) {
            Ok(s) => {
                run.history = s.history;
                run.uniform = s.uniform;
                run.read = modified;
                run.error = None;
            }
            Err(e) => run.error = Some(format!("{e:#}")),
        }
    }
}
