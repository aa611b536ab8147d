//! The Steering view: the skinned character steered through a motion graph with the keyboard
//! (WASD or arrows: travel direction relative to the camera; Shift: run; Q/E: turn the facing)
//! or a gamepad (left stick: direction and speed; right stick: facing; right trigger or the
//! east button: run), the desired and predicted trajectories drawn on the ground, and a window
//! with the current clip, graph node and choice cost, the graph and its distance map
//! ([`panel`]). The science is [`crate::steering`] and [`crate::motion_graph`]; this plugin
//! turns input into [`Stick`] values, steps the controller once per frame and poses the figure.

mod panel;
mod props;
mod view;

use crate::motion_graph::{DistanceMap, MotionGraph};
use crate::steering::{Controller, Mode, Output, Stick, StickScript};
use bevy::mesh::skinning::SkinnedMeshInverseBindposes;
use bevy::prelude::*;
use bevy_egui::EguiPrimaryContextPass;
use std::path::PathBuf;
use std::sync::Arc;

pub use view::GraphPicture;

pub struct SteeringPlugin;

impl Plugin for SteeringPlugin {
    fn build(&self, app: &mut App) {
        app.insert_resource(SteeringState::default())
            .add_systems(Startup, open_at_launch)
            .add_systems(
                Update,
                (read_controls, step_controller, pose_figure, draw_paths)
                    .chain()
                    .before(super::character::StepSimulation),
            )
            .add_systems(EguiPrimaryContextPass, panel::steering_window);
        let screenshot_mode = app
            .world()
            .get_resource::<super::AppOptions>()
            .is_some_and(|o| o.screenshot.is_some());
        props::build(app, screenshot_mode);
    }
}

/// The graph the app ships with.
pub fn default_graph() -> PathBuf {
    super::library::root_path("assets/graphs/human3d.ron")
}

/// The Steering view's state.
#[derive(Resource, Default)]
pub struct SteeringState {
    /// The view is on: the figure is steered, the live simulation hidden.
    pub active: bool,
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
    pub physics_on: bool,
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
                self.start(g);
                self.message = format!("{}", path.display());
                self.graph_path = Some(path);
                self.active = true;
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
        // A scripted run starts facing its first direction, as `motionlab steer` does (and the
        // simulated human with it).
        if let Some(script) = &self.script {
            crate::steering::script::face_first_key(&mut controller, script);
        }
        self.physics = None;
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

    /// The distance map of the graph on show, if computed.
    pub fn distance_map(&self) -> Option<&DistanceMap> {
        self.picture.as_ref().map(|p| &p.map)
    }
}

fn open_at_launch(mut state: ResMut<SteeringState>, options: Res<super::AppOptions>) {
    if let Some(script) = &options.steer_script {
        match StickScript::load(script) {
            Ok(s) => state.script = Some(s),
            Err(e) => state.message = format!("{e:#}"),
        }
    }
    state.physics_on = options.steer_physics;
    if let Some(path) = &options.steer {
        state.open(path.clone());
    }
}

/// Keyboard and gamepad to a stick, camera-relative: "up" walks away from the camera.
fn read_controls(
    mut state: ResMut<SteeringState>,
    keys: Res<ButtonInput<KeyCode>>,
    gamepads: Query<&Gamepad>,
    orbit: Res<super::viewport::OrbitCamera>,
    egui_input: Option<Res<bevy_egui::input::EguiWantsInput>>,
    time: Res<Time>,
) {
    if !state.active {
        return;
    }
    let typing = egui_input.is_some_and(|e| e.wants_keyboard_input());
    // Camera axes on the ground, as (east, north) = (x, −z).
    let fwd = orbit.forward_flat();
    let forward = (fwd.x as f64, -fwd.z as f64);
    let right = (-forward.1, forward.0);
    let (mut x, mut y) = (0.0, 0.0);
    if !typing {
        let pressed = |a: KeyCode, b: KeyCode| keys.pressed(a) || keys.pressed(b);
        if pressed(KeyCode::KeyW, KeyCode::ArrowUp) {
            y += 1.0;
        }
        if pressed(KeyCode::KeyS, KeyCode::ArrowDown) {
            y -= 1.0;
        }
        if pressed(KeyCode::KeyD, KeyCode::ArrowRight) {
            x += 1.0;
        }
        if pressed(KeyCode::KeyA, KeyCode::ArrowLeft) {
            x -= 1.0;
        }
    }
    let mut run =
        !typing && (keys.pressed(KeyCode::ShiftLeft) || keys.pressed(KeyCode::ShiftRight));
    let mut facing = None;
    for pad in &gamepads {
        let l = pad.left_stick();
        if l.length() > 0.15 {
            x = l.x as f64;
            y = l.y as f64;
        }
        let r = pad.right_stick();
        if r.length() > 0.5 {
            facing = Some((r.x as f64, r.y as f64));
        }
        run |= pad.pressed(GamepadButton::East)
            || pad.get(GamepadButton::RightTrigger2).unwrap_or(0.0) > 0.5;
    }
    let len = (x * x + y * y).sqrt().max(1.0);
    let (x, y) = (x / len, y / len);
    let movement = (x * right.0 + y * forward.0, x * right.1 + y * forward.1);
    // Q/E turn the facing away from the travel direction.
    if !typing && (keys.pressed(KeyCode::KeyQ) || keys.pressed(KeyCode::KeyE)) {
        let heading = state.controller.as_ref().map_or(0.0, |c| c.intent.facing());
        let turn = if keys.pressed(KeyCode::KeyQ) {
            1.0
        } else {
            -1.0
        } * 1.5
            * time.delta_secs_f64();
        let a = heading + turn;
        facing = Some((a.cos(), a.sin()));
    }
    state.stick = Stick {
        movement,
        facing,
        run,
    };
}

fn step_controller(
    mut state: ResMut<SteeringState>,
    time: Res<Time>,
    options: Res<super::AppOptions>,
) {
    if !state.active {
        return;
    }
    // Screenshots advance a fixed amount per frame so they do not depend on the frame rate.
    let dt = if options.screenshot.is_some() {
        1.0 / 60.0
    } else {
        time.delta_secs_f64().clamp(1e-4, 0.1)
    };
    let st = &mut *state;
    st.time += dt;
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
            let follow = 1.0 - (-std::f64::consts::LN_2 * dt / physics.gains.follow).exp();
            physics.track(st.time, &out, controller, follow);
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
    mut meshes: ResMut<Assets<Mesh>>,
    mut materials: ResMut<Assets<StandardMaterial>>,
    mut bindposes: ResMut<Assets<SkinnedMeshInverseBindposes>>,
    mut orbit: ResMut<super::viewport::OrbitCamera>,
) {
    let want = if state.active { state.generation } else { 0 };
    if *built != want {
        *built = want;
        for e in &old {
            commands.entity(e).despawn();
        }
        if let (true, Some(c)) = (state.active, &state.controller) {
            // Far enough back to see the paths ahead.
            orbit.distance = orbit.distance.max(5.5);
            orbit.pitch = orbit.pitch.max(0.38);
            super::skin::spawn_skinned(
                &mut commands,
                &mut meshes,
                &mut materials,
                &mut bindposes,
                &c.graph.character,
                |body| (SteeringBone { body }, Transform::IDENTITY),
                SteeringFigure,
                StandardMaterial {
                    base_color: Color::WHITE,
                    perceptual_roughness: 0.6,
                    ..default()
                },
            );
        }
        return;
    }
    let (Some(c), Some(out)) = (&state.controller, &state.last) else {
        return;
    };
    let poses = crate::clip::pose::body_poses(&c.graph.character, &out.pose.root, &out.pose.joints);
    for (bone, mut t) in &mut bones {
        if let Some(p) = poses.get(bone.body) {
            *t = super::pose_to_transform(p.map(|v| v as f32));
        }
    }
    let root = state
        .controller
        .as_ref()
        .and_then(|c| c.graph.character.body_index(&c.graph.character.root.body))
        .unwrap_or(0);
    let p = poses[root];
    orbit.focus = Some(Vec3::new(p[0] as f32, p[1] as f32, p[2] as f32));
}

/// The desired trajectory (blue) and the one the current clip leads to (orange), on the ground.
fn draw_paths(mut gizmos: Gizmos, state: Res<SteeringState>) {
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
