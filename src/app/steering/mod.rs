//! The Steering view: the skinned character steered through a motion graph with the keyboard
//! (WASD or arrows: travel direction relative to the camera; Shift: run; Q/E: turn the facing)
//! or a gamepad (left stick: direction and speed; right stick: facing; right trigger or the
//! east button: run), the desired and predicted trajectories drawn on the ground, and a window
//! with the current clip, graph node and choice cost, the graph and its distance map
//! ([`panel`]). The science is [`crate::steering`] and [`crate::motion_graph`]; this plugin
//! turns input into [`Stick`] values, steps the controller once per frame and poses the figure.

mod controls;
mod panel;
mod props;
#[cfg(test)]
mod state_tests;
mod tasks;
mod tracker;
mod view;

use super::workbench::figures::{FigureAssets, Look, spawn_figure};
use super::workbench::{
    AddPanel, ClaimStage, Clock, Dock, OpenPanel, PanelSpec, Stage, SteerGraph, Workbench,
    claim_stage,
};
use crate::motion_graph::{DistanceMap, MotionGraph};
use crate::steering::{Controller, Mode, Output, Stick, StickScript};
use bevy::prelude::*;
use std::path::PathBuf;
use std::sync::Arc;

pub use view::GraphPicture;

/// The Steering view's launch options.
#[derive(clap::Args, Resource, Clone, Debug, Default)]
#[group(skip)]
pub struct Launch {
    /// Open the Steering view on this motion graph at launch (e.g. assets/graphs/human3d.ron).
    #[arg(long, value_name = "GRAPH")]
    pub steer: Option<PathBuf>,
    /// With --steer: drive the stick from this script (RON timeline) instead of the controls.
    #[arg(long, requires = "steer", value_name = "SCRIPT")]
    pub steer_script: Option<PathBuf>,
    /// With --steer: start in physics playback (the simulated human tracks the controller).
    #[arg(long, requires = "steer")]
    pub steer_physics: bool,
    /// With --steer-physics: with the look-ahead (predictive sampling) on.
    #[arg(long, requires = "steer_physics")]
    pub steer_lookahead: bool,
    /// With --steer-physics: with the guard over transitions on (each transition played ahead
    /// and the future that stays up taken).
    #[arg(long, requires = "steer_physics")]
    pub steer_guard: bool,
    /// The learned tracking policy of this file (`motionlab graph control`) adds its
    /// corrections to the PD targets in physics playback, instead of the shipped one
    /// (`assets/trackers/GRAPH.control.ron`, else the character's
    /// `assets/trackers/human3d.control.ron`); a tracker starts on, with the guard.
    #[arg(long, requires = "steer", value_name = "TRACKER")]
    pub steer_tracker: Option<PathBuf>,
    /// With --steer: decide by the value-function policy (Wampler 2012) instead of the
    /// one-second look-ahead; it is solved when the graph opens.
    #[arg(long, requires = "steer")]
    pub steer_policy: bool,
    /// With --steer: throw a ball from the camera at the character at this time of the run (s);
    /// repeat for several.
    #[arg(long, requires = "steer", value_name = "SECONDS")]
    pub throw_at: Vec<f64>,
    /// Open the Steering view walking to the tasks of this task file (e.g. assets/tasks/demo.ron):
    /// the footsteps into each task planned and the human walking them.
    #[arg(long, value_name = "TASKS")]
    pub steer_tasks: Option<PathBuf>,
    /// With --steer-tasks: start the walk this many seconds in.
    #[arg(long, requires = "steer_tasks", value_name = "SECONDS")]
    pub steer_tasks_at: Option<f64>,
    /// With --steer-tasks: plan with this template file's templates too (`motionlab footsteps
    /// templates` writes one from a solved clip or motion capture).
    #[arg(long, requires = "steer_tasks", value_name = "TEMPLATES")]
    pub steer_templates: Option<PathBuf>,
}

/// The panel's id.
pub const PANEL: &str = "steering";

pub struct SteeringPlugin(pub Launch);

impl Plugin for SteeringPlugin {
    fn build(&self, app: &mut App) {
        app.insert_resource(self.0.clone())
            .insert_resource(SteeringState::default())
            .add_systems(Startup, open_at_launch)
            .add_systems(
                Update,
                (
                    (
                        steer_graphs,
                        open_default_graph,
                        walk_launch_tasks,
                        claim_steering,
                        follow_stage,
                    ),
                    (
                        read_controls,
                        place_task,
                        step_controller,
                        pose_figure,
                        draw_paths,
                    ),
                    report_shot,
                )
                    .chain()
                    .before(super::character::StepSimulation),
            )
            .add_panel(
                PanelSpec {
                    id: PANEL,
                    title: "Steering",
                    hover: "Steer the human through its motion graph (WASD, Shift, Q/E, gamepad)",
                    dock: Dock::Window {
                        width: 430.0,
                        height: 600.0,
                    },
                    order: 30,
                    open: self.0.steer.is_some() || self.0.steer_tasks.is_some(),
                },
                panel::steering_window,
            );
        let screenshot_mode = app
            .world()
            .get_resource::<Clock>()
            .is_some_and(|c| c.fixed.is_some());
        props::build(app, screenshot_mode);
    }
}

/// The graph the app ships with.
pub fn default_graph() -> PathBuf {
    super::workbench::files::root_path("assets/graphs/human3d.ron")
}

/// The steered figure owns the viewport while the window is open with a graph loaded.
fn claim_steering(
    state: Res<SteeringState>,
    bench: Res<Workbench>,
    mut said: Local<bool>,
    mut out: MessageWriter<ClaimStage>,
) {
    let wants = bench.is_open(PANEL) && state.controller.is_some();
    claim_stage(Stage::Panel(PANEL), wants, &mut said, &mut out);
}

/// The window opened with no graph loaded opens the shipped one.
fn open_default_graph(mut state: ResMut<SteeringState>, bench: Res<Workbench>) {
    if bench.is_open(PANEL) && state.controller.is_none() && !state.tried_default {
        state.tried_default = true;
        state.open(default_graph());
    }
}

/// The view is on exactly while it owns the stage.
fn follow_stage(mut state: ResMut<SteeringState>, stage: Res<State<Stage>>) {
    let on = *stage.get() == Stage::Panel(PANEL);
    if state.active != on {
        state.active = on;
    }
}

/// The steered run in a screenshot's report: the camera's and the command's headings, and on
/// screen the figure and its desired path.
fn report_shot(
    state: Res<SteeringState>,
    orbit: Res<super::viewport::OrbitCamera>,
    camera: Query<(&Camera, &GlobalTransform), With<super::viewport::MainCamera>>,
    mut report: ResMut<super::workbench::capture::ShotReport>,
) {
    let (true, Some(c)) = (state.active, &state.controller) else {
        return;
    };
    let command = c.intent.command;
    report
        .values
        .insert("steering.camera_heading".into(), orbit.ground_heading());
    report
        .values
        .insert("steering.command_direction".into(), command.direction);
    report
        .values
        .insert("steering.command_speed".into(), command.speed);
    report.values.insert(
        "steering.policy".into(),
        f64::from(u8::from(matches!(c.mode, crate::steering::Mode::Policy))),
    );
    report
        .values
        .insert("steering.stick_x".into(), state.stick.movement.0);
    report
        .values
        .insert("steering.stick_y".into(), state.stick.movement.1);
    if let Some(walk) = &state.tasks {
        report.values.insert("tasks.time".into(), walk.time);
        report.values.insert("tasks.duration".into(), walk.duration());
        report
            .values
            .insert("tasks.queued".into(), walk.tasks().count() as f64);
    }
    let Ok((cam, gt)) = camera.single() else {
        return;
    };
    let on_screen = |p: &crate::model::planar::PlanarMotion| {
        cam.world_to_viewport(gt, Vec3::new(p.x as f32, 0.01, p.z as f32))
            .ok()
            .map(|v| [v.x, v.y])
    };
    let here = c.heading();
    report.screen_points.insert(
        "steering.figure".into(),
        on_screen(&here).into_iter().collect(),
    );
    report.screen_points.insert(
        "steering.desired_path".into(),
        c.desired().iter().filter_map(on_screen).collect(),
    );
}

/// The Steering view's state.
#[derive(Resource, Default)]
pub struct SteeringState {
    /// The view owns the stage: the figure is steered, the live simulation hidden.
    pub active: bool,
    /// The shipped graph was opened (or tried) when the window first opened.
    tried_default: bool,
    pub graph_path: Option<PathBuf>,
    pub controller: Option<Controller>,
    pub picture: Option<GraphPicture>,
    /// The controls this frame.
    pub stick: Stick,
    /// Random-walk playback instead of steering.
    pub random_walk: bool,
    /// A script driving the stick instead of the controls (`--steer-script`).
    pub script: Option<StickScript>,
    pub time: f64,
    pub last: Option<Output>,
    /// The last transitions taken (graph indices), newest last.
    pub recent: Vec<usize>,
    /// Time of the last decision (µs).
    pub decision_us: f64,
    pub message: String,
    /// Physics playback: the simulated human tracking the controller (when on).
    pub physics: Option<crate::steering::physics::PhysicsPlayback>,
    /// Frame time physics playback has not stepped yet (less than one step, s).
    step_debt: f64,
    pub physics_on: bool,
    /// Physics playback with predictive sampling ([`crate::steering::lookahead`]).
    pub lookahead_on: bool,
    pub lookahead: Option<crate::steering::lookahead::Lookahead>,
    /// Physics playback with the guard over transitions ([`crate::steering::guard`]).
    pub guard_on: bool,
    pub guard: Option<crate::steering::guard::Guard>,
    /// Physics playback with a learned tracker's corrections ([`crate::steering::tracker`]),
    /// when one is loaded.
    pub tracker_on: bool,
    pub tracker: Option<Arc<crate::steering::tracker::Tracker>>,
    /// The user has ticked or unticked the *tracker* or *guard* box: a graph opened later keeps
    /// their choice instead of turning both on with its tracker.
    pub boxes_chosen: bool,
    tracker_state: crate::steering::tracker::TrackerState,
    /// The tracker asked for at launch (`--steer-tracker`), instead of the shipped one
    /// ([`tracker::default_tracker`]).
    tracker_file: Option<PathBuf>,
    /// Decide by the value-function policy when it is solved (the window's *policy* box).
    pub policy_on: bool,
    /// The graph's solved policy, and the solve in flight.
    pub policy: Option<Arc<crate::steering::mdp::SteeringMdp>>,
    policy_job: Option<std::thread::JoinHandle<Arc<crate::steering::mdp::SteeringMdp>>>,
    /// Walking to tasks (footstep planning) instead of steering, when set.
    pub tasks: Option<tasks::TaskWalk>,
    /// A task file to walk once the graph is open, and the time to start at.
    tasks_at_launch: Option<(PathBuf, Option<f64>, Option<PathBuf>)>,
    /// A ball to throw this frame.
    pub throw: bool,
    /// The run since the last (re)start, as shown (played or simulated), to save as a clip.
    pub recording: crate::steering::record::RunRecording,
    /// Where "Save run" writes the clip.
    pub save_path: String,
    /// Increases when the figure must be rebuilt.
    generation: u64,
}

impl SteeringState {
    /// Loads a graph (and its clips), builds its distance map for the view and starts the
    /// controller on its standing clip.
    pub fn open(&mut self, path: PathBuf) {
        if self.save_path.is_empty() {
            self.save_path = "results/steered-run.ron".into();
        }
        match MotionGraph::load(&path) {
            Ok(g) => {
                let g = Arc::new(g);
                self.picture = Some(GraphPicture::new(&g));
                self.policy = None;
                self.policy_job = None;
                let tracker = self.load_tracker(&path, &g);
                self.start(g);
                self.message = format!("{}{tracker}", path.display());
                self.graph_path = Some(path);
            }
            Err(e) => self.message = format!("cannot open {}: {e:#}", path.display()),
        }
    }

    /// (Re)starts the controller on `graph`.
    pub fn start(&mut self, graph: Arc<crate::motion_graph::LoadedGraph>) {
        let mode = if self.random_walk {
            Mode::RandomWalk {
                seed: 1,
                probability: 0.5,
            }
        } else {
            Mode::Steer
        };
        let start = Controller::default_start(&graph, "stand");
        let mut controller = Controller::new(graph, start, mode);
        if let (true, false, Some(p)) = (self.policy_on, self.random_walk, &self.policy) {
            controller = controller.with_policy(p.clone());
        }
        // A scripted run starts facing its first direction, as `motionlab steer` does (and the
        // simulated human with it).
        if let Some(script) = &self.script {
            crate::steering::script::face_first_key(&mut controller, script);
        }
        self.physics = None;
        self.step_debt = 0.0;
        self.lookahead = (self.physics_on && self.lookahead_on).then(|| {
            crate::steering::lookahead::Lookahead::new(Default::default())
        });
        self.guard = (self.physics_on && self.guard_on)
            .then(|| crate::steering::guard::Guard::new(Default::default()));
        self.tracker_state = Default::default();
        if self.physics_on {
            match crate::steering::physics::PhysicsPlayback::new(
                &mut controller,
                Default::default(),
            ) {
                Ok(p) => self.physics = Some(p),
                Err(e) => self.message = format!("no physics playback: {e}"),
            }
        }
        self.controller = Some(controller);
        self.time = 0.0;
        self.recent.clear();
        self.recording.clear();
        self.last = None;
        self.generation += 1;
    }

    /// The body poses on show: the simulated human's in physics playback, else the played
    /// pose's.
    pub fn shown_poses(&self) -> Option<Vec<[f64; 7]>> {
        if let Some(walk) = &self.tasks {
            return Some(walk.poses());
        }
        if let Some(p) = &self.physics {
            let n = p.sim.character().bodies.len();
            return Some(
                (0..n)
                    .map(|i| p.sim.body_pose(i).map(|v| v as f64))
                    .collect(),
            );
        }
        let (c, out) = (self.controller.as_ref()?, self.last.as_ref()?);
        Some(crate::clip::pose::body_poses(
            &c.graph.character,
            &out.pose.root,
            &out.pose.joints,
        ))
    }

    /// Writes the recorded run as a clip at 60 frames per second to `save_path` and says so in
    /// the message line.
    pub fn save_run(&mut self) {
        let path = PathBuf::from(self.save_path.trim());
        let Some(c) = self.controller.as_ref() else {
            return;
        };
        let g = &c.graph;
        self.message = match std::fs::read_to_string(&g.character_path) {
            Err(e) => format!("cannot read {}: {e}", g.character_path.display()),
            Ok(text) => {
                let r = crate::clip::CharacterRef::new(&g.character_path, &text);
                match self.recording.clip(&g.character, r, 60.0) {
                    None => "nothing recorded yet".into(),
                    Some(clip) => match clip.save(&path) {
                        Ok(()) => format!(
                            "saved {} ({} frames, {:.1} s)",
                            path.display(),
                            clip.frames.len(),
                            self.recording.duration()
                        ),
                        Err(e) => format!("cannot save {}: {e}", path.display()),
                    },
                }
            }
        };
    }

    /// Solves the graph's policy on a thread when it is asked for and not solved; restarts the
    /// controller with it once solved. Returns whether a solve is in flight.
    pub fn poll_policy(&mut self) -> bool {
        if let Some(job) = self.policy_job.take_if(|j| j.is_finished()) {
            match job.join() {
                Ok(p) => {
                    let facings = match p.settings.facing_bins {
                        0 => String::new(),
                        f => format!(" × {f} facings"),
                    };
                    let speeds = match p.settings.speeds.len() {
                        0 => String::new(),
                        n => format!(" × {n} speeds"),
                    };
                    // Walk and run asked apart (Shift) where the speed cannot tell them.
                    let gaits = match p.settings.gaits.len() {
                        0 => String::new(),
                        n => format!(" × {n} gaits"),
                    };
                    self.message = format!(
                        "policy solved: {} frames{speeds}{gaits} × {} directions{facings}, {} sweeps",
                        p.nodes.len(),
                        p.settings.bins,
                        p.sweeps
                    );
                    self.policy = Some(p);
                    if let Some(g) = self.controller.as_ref().map(|c| c.graph.clone()) {
                        self.start(g);
                    }
                }
                Err(_) => {
                    self.policy_on = false;
                    self.message = "the policy's solve failed".into();
                }
            }
        }
        if self.policy_job.is_some() {
            return true;
        }
        if !self.policy_on || self.policy.is_some() {
            return false;
        }
        let Some(g) = self.controller.as_ref().map(|c| c.graph.clone()) else {
            return false;
        };
        self.message = "solving the value-function policy…".into();
        self.policy_job = Some(std::thread::spawn(move || {
            use crate::steering::mdp::{MdpSettings, SteeringMdp};
            // A graph with strafing cycles answers the facing stick too.
            let settings = MdpSettings::for_graph(&g, crate::synthesis::FACING_BINS);
            Arc::new(SteeringMdp::from_graph(&g, settings))
        }));
        true
    }

    /// Walking to tasks on (from where the steered figure stands) or off.
    pub fn walk_to_tasks(&mut self, on: bool) {
        self.tasks = None;
        if on && let Some(c) = &self.controller {
            match tasks::TaskWalk::new(&c.heading()) {
                Ok(w) => self.tasks = Some(w),
                Err(e) => self.message = format!("cannot walk to tasks: {e}"),
            }
        }
        self.generation += 1;
    }

    /// The character on show and its bodies' poses.
    fn figure(&self) -> Option<(&crate::model::Character, Vec<[f64; 7]>)> {
        if let Some(walk) = &self.tasks {
            return Some((walk.character(), walk.poses()));
        }
        let (c, out) = (self.controller.as_ref()?, self.last.as_ref()?);
        let poses = crate::clip::pose::body_poses(&c.graph.character, &out.pose.root, &out.pose.joints);
        Some((&c.graph.character, poses))
    }

    /// The distance map of the graph on show, if computed.
    pub fn distance_map(&self) -> Option<&DistanceMap> {
        self.picture.as_ref().map(|p| &p.map)
    }
}

fn open_at_launch(mut state: ResMut<SteeringState>, options: Res<Launch>) {
    if let Some(script) = &options.steer_script {
        match StickScript::load(script) {
            Ok(s) => state.script = Some(s),
            Err(e) => state.message = format!("{e:#}"),
        }
    }
    state.physics_on = options.steer_physics;
    state.policy_on = options.steer_policy;
    state.lookahead_on = options.steer_lookahead;
    state.guard_on = options.steer_guard;
    state.tracker_file = options.steer_tracker.clone();
    if let Some(path) = &options.steer {
        state.open(path.clone());
    }
    if let Some(path) = &options.steer_tasks {
        state.tasks_at_launch = Some((
            path.clone(),
            options.steer_tasks_at,
            options.steer_templates.clone(),
        ));
    }
}

/// "Steer" from another panel (a synthesized graph): the graph opened in the view, by its
/// policy or by the look-ahead, the window open.
fn steer_graphs(
    mut requests: MessageReader<SteerGraph>,
    mut state: ResMut<SteeringState>,
    mut open: MessageWriter<OpenPanel>,
) {
    for r in requests.read() {
        state.policy_on = r.policy;
        state.open(r.graph.clone());
        open.write(OpenPanel {
            id: PANEL,
            open: true,
        });
    }
}

/// The task file given at launch, walked once the shipped graph is open.
fn walk_launch_tasks(mut state: ResMut<SteeringState>) {
    if state.controller.is_none() {
        return;
    }
    let Some((path, at, templates)) = state.tasks_at_launch.take() else {
        return;
    };
    state.walk_to_tasks(true);
    if let Some(walk) = state.tasks.as_mut() {
        walk.open(&path);
        if let Some(templates) = &templates {
            walk.open_templates(templates);
        }
        walk.seek = at;
    }
}

/// In the task walk, a click on the ground drops a task marker; a drag from the click sets its
/// facing.
fn place_task(
    mut state: ResMut<SteeringState>,
    mouse: Res<ButtonInput<MouseButton>>,
    window: Query<&Window, With<bevy::window::PrimaryWindow>>,
    camera: Query<(&Camera, &GlobalTransform), With<super::viewport::MainCamera>>,
    ui: super::workbench::pointer::UiPointer,
) {
    let (true, Some(walk)) = (state.active, state.tasks.as_mut()) else {
        return;
    };
    let over_ui = ui.over_ui();
    let ground = || {
        let (window, (camera, cam_t)) = (window.single().ok()?, camera.single().ok()?);
        let ray = camera
            .viewport_to_world(cam_t, window.cursor_position()?)
            .ok()?;
        (ray.direction.y < -1e-3).then(|| {
            let p = ray.origin + *ray.direction * (-ray.origin.y / ray.direction.y);
            // The ground's (x, y) is the world's (x, −z).
            [p.x as f64, -p.z as f64]
        })
    };
    if mouse.just_pressed(MouseButton::Left) && !over_ui {
        walk.drag_from = ground();
    }
    if mouse.just_released(MouseButton::Left)
        && let Some(from) = walk.drag_from.take()
    {
        let to = ground().unwrap_or(from);
        let marker = walk.marker(from, to);
        walk.add(marker);
    }
}

/// Keyboard and gamepad to a stick, camera-relative: "up" walks away from the camera, "right"
/// to the right of the screen ([`crate::steering::controls::stick_intent`]).
fn read_controls(
    mut state: ResMut<SteeringState>,
    keys: Res<ButtonInput<KeyCode>>,
    gamepads: Query<&Gamepad>,
    orbit: Res<super::viewport::OrbitCamera>,
    ui: super::workbench::pointer::UiPointer,
    time: Res<Time>,
) {
    if !state.active {
        return;
    }
    let controls = controls::Controls {
        keys: controls::held_keys(&keys),
        pads: gamepads.iter().map(controls::pad_state).collect(),
        typing: ui.typing(),
    };
    let facing = state.controller.as_ref().map_or(0.0, |c| c.intent.facing());
    state.stick = crate::steering::controls::stick_intent(
        orbit.ground_heading(),
        &controls,
        facing,
        time.delta_secs_f64(),
    );
}

fn step_controller(
    mut state: ResMut<SteeringState>,
    time: Res<Time>,
    clock: Res<Clock>,
    mut busy: ResMut<super::workbench::capture::Busy>,
) {
    if !state.active {
        return;
    }
    let dt = clock.dt(&time, 0.1).max(1e-4);
    let st = &mut *state;
    if st.poll_policy() {
        busy.add(PANEL, "solving the policy");
    }
    if let Some(walk) = st.tasks.as_mut() {
        if walk.poll() {
            busy.add(PANEL, "planning footsteps");
        }
        walk.advance(dt);
        return;
    }
    // Physics plays in steps of exactly 1/60 s whatever the frame rate (the frame's time carried
    // over from frame to frame; several steps a slow frame): the balance feedback, the
    // look-ahead and a learned tracker were all tuned or trained at 60 steps a second, a
    // tracker's policy held for a whole slow frame (0.1 s under a software renderer) let the
    // standing human fall, and with the same steps a held stick plays as `steer --script` does.
    if st.physics.is_none() {
        step_once(st, dt);
        return;
    }
    let h = 1.0 / crate::steering::tracker::SCRIPT_RATE;
    st.step_debt += dt;
    let steps = ((st.step_debt + 1e-9) / h).floor() as usize;
    st.step_debt = (st.step_debt - steps as f64 * h).max(0.0);
    for _ in 0..steps {
        step_once(st, h);
    }
}

/// One step of `dt` seconds: the controller, and the simulated human when physics is on.
fn step_once(st: &mut SteeringState, dt: f64) {
    // Physics steps land on their grid, n·dt, as a script's steps do (the sum of the steps
    // drifts off it in the last bits): the guard's futures then step at the times playback
    // will, and the one it chose is carried on instead of played again
    // ([`crate::steering::carry`]), and a stick script plays as `motionlab steer` plays it.
    st.time = match st.physics.is_some() {
        true => ((st.time / dt).round() + 1.0) * dt,
        false => st.time + dt,
    };
    let stick = match &st.script {
        Some(s) => s.stick_at(st.time),
        None => st.stick,
    };
    let Some(controller) = st.controller.as_mut() else {
        return;
    };
    let before = controller.transitions_taken;
    let started = std::time::Instant::now();
    let out = controller.step(&stick, dt);
    st.decision_us = started.elapsed().as_secs_f64() * 1e6;
    match st.physics.as_mut() {
        Some(physics) => {
            if let Some(planner) = st.lookahead.as_mut() {
                planner.plan(st.time, &out, &stick, dt, controller, physics);
            }
            let tracker = st.tracker.as_deref().filter(|_| st.tracker_on);
            match tracker {
                Some(tracker) => st.tracker_state.play(tracker, st.time, &out, physics),
                // Ticked off, the reference's heading follows as the feedback alone has it.
                None => {
                    physics.gains.heading_follow =
                        crate::steering::balance::BalanceGains::default().heading_follow
                }
            }
            physics.track(st.time, &out, controller, dt);
            if let Some(guard) = st.guard.as_mut() {
                // The stick as it is now for the next frame, which is about as long as this one.
                let tracker = tracker.map(|p| (p, &mut st.tracker_state));
                guard.check(st.time, &stick, dt, tracker, controller, physics);
            }
            if physics.fell_at.is_none() {
                st.recording.push_simulated(st.time, &physics.sim);
            }
        }
        None => st
            .recording
            .push_played(&controller.graph.character, st.time, &out),
    }
    if controller.transitions_taken > before
        && let Some(t) = controller.last_decision.as_ref().and_then(|d| d.transition)
    {
        st.recent.push(t);
        if st.recent.len() > 8 {
            st.recent.remove(0);
        }
    }
    st.last = Some(out);
}

/// A bone of the steered figure.
#[derive(Component)]
struct SteeringBone {
    body: usize,
}

#[derive(Component)]
struct SteeringFigure;

#[allow(clippy::too_many_arguments)]
fn pose_figure(
    mut commands: Commands,
    state: Res<SteeringState>,
    mut built: Local<u64>,
    old: Query<Entity, Or<(With<SteeringBone>, With<SteeringFigure>)>>,
    mut bones: Query<(&SteeringBone, &mut Transform)>,
    mut assets: FigureAssets,
    mut orbit: ResMut<super::viewport::OrbitCamera>,
) {
    let want = if state.active { state.generation } else { 0 };
    if *built != want {
        *built = want;
        for e in &old {
            commands.entity(e).despawn();
        }
        if let (true, Some((character, _))) = (state.active, state.figure()) {
            // Far enough back to see the paths ahead.
            orbit.distance = orbit.distance.max(5.5);
            orbit.pitch = orbit.pitch.max(0.38);
            spawn_figure(
                &mut commands,
                &mut assets,
                character,
                |body| (SteeringBone { body }, Transform::IDENTITY),
                SteeringFigure,
                Look::Solid([1.0, 1.0, 1.0]),
            );
        }
        return;
    }
    let Some((character, poses)) = state.figure() else {
        return;
    };
    for (bone, mut t) in &mut bones {
        if let Some(p) = poses.get(bone.body) {
            *t = super::workbench::figures::pose64_to_transform(p);
        }
    }
    let root = character.body_index(&character.root.body).unwrap_or(0);
    let p = poses[root];
    orbit.focus = Some(Vec3::new(p[0] as f32, p[1] as f32, p[2] as f32));
}

/// The desired trajectory (blue) and the one the current clip leads to (orange), on the ground.
fn draw_paths(mut gizmos: Gizmos, state: Res<SteeringState>) {
    if let (true, Some(walk)) = (state.active, &state.tasks) {
        tasks::draw(&mut gizmos, walk);
        return;
    }
    let (true, Some(c)) = (state.active, &state.controller) else {
        return;
    };
    let at = |p: &crate::model::planar::PlanarMotion| Vec3::new(p.x as f32, 0.01, p.z as f32);
    let here = c.heading();
    for (path, colour) in [
        (c.desired(), Color::srgb(0.15, 0.35, 0.95)),
        (c.predicted(), Color::srgb(0.95, 0.5, 0.1)),
    ] {
        let mut prev = at(&here);
        for p in &path {
            let q = at(p);
            gizmos.line(prev, q, colour);
            gizmos.sphere(Isometry3d::from_translation(q), 0.05, colour);
            // The facing at each sample.
            let dir = Vec3::new(p.yaw.cos() as f32, 0.0, -p.yaw.sin() as f32) * 0.25;
            gizmos.arrow(q, q + dir, colour);
            prev = q;
        }
    }
    // The command's direction at the character.
    let cmd = c.intent.command;
    if cmd.speed > 0.0 {
        let o = at(&here);
        let d = Vec3::new(cmd.direction.cos() as f32, 0.0, -cmd.direction.sin() as f32);
        gizmos.arrow(o, o + d * 0.6, Color::srgb(0.1, 0.7, 0.3));
    }
}
