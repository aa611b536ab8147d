//! `--screenshot FILE --frames N`: render at least N frames, wait until no panel has work in
//! flight ([`Busy`]: jobs, rollouts, transfers, verdicts), save the primary window as a PNG and a
//! typed report of what was on show ([`ShotReport`], `FILE` with `.ron`), and exit. `--hold KEY`
//! holds a key from the first frames on, through Bevy's keyboard input (the messages winit's
//! key events become), so a screenshot can show what a held key does.
//!
//! In screenshot mode every clock advances a fixed 1/60 s per frame ([`Clock`]), so a picture
//! does not depend on the machine's speed.

use super::{Stage, Workbench};
use bevy::input::ButtonState;
use bevy::input::keyboard::{Key, KeyboardInput};
use bevy::prelude::*;
use bevy::render::view::screenshot::{Screenshot, save_to_disk};
use bevy::window::PrimaryWindow;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::path::PathBuf;

/// The screenshot's launch options.
#[derive(clap::Args, Resource, Clone, Debug, Default)]
#[group(skip)]
pub struct Capture {
    /// Render, save a PNG screenshot to this file (and what was on show to FILE with `.ron`)
    /// and exit.
    #[arg(long)]
    pub screenshot: Option<PathBuf>,
    /// Frames to render before the screenshot; it then waits for work in flight (jobs,
    /// rollouts, transfers) to finish.
    #[arg(long, default_value_t = 60)]
    pub frames: u32,
    /// With --screenshot: hold this key from the start (W, A, S, D, Q, E, Up, Down, Left,
    /// Right, Shift, Space); repeat for several.
    #[arg(long, requires = "screenshot", value_name = "KEY")]
    pub hold: Vec<String>,
}

/// Frames a screenshot waits for work in flight before it gives up (and fails).
const MAX_WAIT_FRAMES: u32 = 20_000;

/// The frame clock of every panel: real time, or a fixed 1/60 s per frame in screenshot mode.
#[derive(Resource, Clone, Copy, Debug, Default)]
pub struct Clock {
    pub fixed: Option<f64>,
}

impl Clock {
    /// This frame's time step (s), at most `cap`.
    pub fn dt(&self, time: &Time, cap: f64) -> f64 {
        self.fixed.unwrap_or_else(|| time.delta_secs_f64()).min(cap)
    }
}

/// Work in flight this frame, by who and what; cleared every frame, filled by each plugin's
/// systems. A screenshot waits until it stays empty.
#[derive(Resource, Default, Debug)]
pub struct Busy(pub Vec<(&'static str, String)>);

impl Busy {
    pub fn add(&mut self, who: &'static str, what: impl Into<String>) {
        self.0.push((who, what.into()));
    }
}

/// What a screenshot showed, written beside it as RON.
#[derive(Resource, Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct ShotReport {
    /// The [`Stage`] on show.
    pub stage: String,
    /// The open panels' ids.
    pub open_panels: Vec<String>,
    /// The panel in the right dock.
    pub docked_right: Option<String>,
    /// What plugins name on show (e.g. `live.character`: the live character's file).
    pub labels: BTreeMap<String, String>,
    /// Figures drawn (skinned characters), by who drew them.
    pub figures: BTreeMap<String, usize>,
    /// Measured values plugins report (e.g. `steering.command_heading`).
    pub values: BTreeMap<String, f64>,
    /// Points in window pixels plugins report (e.g. the steered character and its path).
    pub screen_points: BTreeMap<String, Vec<[f32; 2]>>,
    /// Frames rendered before the capture.
    pub frames: u32,
}

pub(super) struct CapturePlugin(pub Capture);

impl Plugin for CapturePlugin {
    fn build(&self, app: &mut App) {
        let fixed = self.0.screenshot.is_some().then_some(1.0 / 60.0);
        app.insert_resource(Clock { fixed })
            .init_resource::<Busy>()
            .init_resource::<ShotReport>()
            .add_systems(First, |mut busy: ResMut<Busy>| busy.0.clear());
        if self.0.screenshot.is_some() {
            app.insert_resource(self.0.clone())
                .add_systems(PreUpdate, hold_keys.before(bevy::input::InputSystems))
                .add_systems(Last, take_screenshot);
        }
    }
}

/// A key name of `--hold` as Bevy's key code and logical key.
pub fn key_named(name: &str) -> Option<(KeyCode, Key)> {
    let n = name.trim().to_ascii_lowercase();
    let letter = |c: char, code| Some((code, Key::Character(c.to_string().into())));
    match n.as_str() {
        "w" => letter('w', KeyCode::KeyW),
        "a" => letter('a', KeyCode::KeyA),
        "s" => letter('s', KeyCode::KeyS),
        "d" => letter('d', KeyCode::KeyD),
        "q" => letter('q', KeyCode::KeyQ),
        "e" => letter('e', KeyCode::KeyE),
        "up" => Some((KeyCode::ArrowUp, Key::ArrowUp)),
        "down" => Some((KeyCode::ArrowDown, Key::ArrowDown)),
        "left" => Some((KeyCode::ArrowLeft, Key::ArrowLeft)),
        "right" => Some((KeyCode::ArrowRight, Key::ArrowRight)),
        "shift" => Some((KeyCode::ShiftLeft, Key::Shift)),
        "space" => Some((KeyCode::Space, Key::Space)),
        _ => None,
    }
}

/// Presses the `--hold` keys once the window exists, as key-down messages (what winit's key
/// events become), and never releases them.
fn hold_keys(
    capture: Res<Capture>,
    window: Query<Entity, With<PrimaryWindow>>,
    mut keys: MessageWriter<KeyboardInput>,
    mut frame: Local<u32>,
) {
    *frame += 1;
    // Pressed again every 30 frames, as a held key repeats, in case the window's focus came
    // and went in between.
    if *frame < 3 || (*frame - 3) % 30 != 0 {
        return;
    }
    let Ok(window) = window.single() else { return };
    for name in &capture.hold {
        if let Some((key_code, logical_key)) = key_named(name) {
            keys.write(KeyboardInput {
                key_code,
                logical_key,
                state: ButtonState::Pressed,
                text: None,
                repeat: *frame > 3,
                window,
            });
        }
    }
}

#[allow(clippy::too_many_arguments)]
fn take_screenshot(
    mut commands: Commands,
    capture: Res<Capture>,
    busy: Res<Busy>,
    bench: Res<Workbench>,
    stage: Res<State<Stage>>,
    mut report: ResMut<ShotReport>,
    mut frame: Local<u32>,
    mut idle: Local<u32>,
    mut requested_at: Local<Option<u32>>,
    mut exit: MessageWriter<AppExit>,
) {
    let Some(path) = capture.screenshot.clone() else {
        return;
    };
    *frame += 1;
    *idle = if busy.0.is_empty() { *idle + 1 } else { 0 };
    if requested_at.is_none() && *frame >= capture.frames.max(1) {
        let waited = *frame - capture.frames.max(1);
        if *idle < 3 && waited < MAX_WAIT_FRAMES {
            return;
        }
        if waited >= MAX_WAIT_FRAMES {
            error!(
                "screenshot {}: still busy after {waited} frames: {:?}",
                path.display(),
                busy.0
            );
            exit.write(AppExit::error());
            return;
        }
        let _ = std::fs::remove_file(&path);
        report.stage = stage.get().name().to_string();
        report.open_panels = bench
            .panel_ids()
            .into_iter()
            .filter(|id| bench.is_open(id))
            .map(str::to_string)
            .collect();
        report.docked_right = bench.docked_right().map(str::to_string);
        report.frames = *frame;
        let report_path = path.with_extension("ron");
        if let Err(e) = crate::files::write_ron(&report_path, &*report) {
            error!("cannot write {}: {e}", report_path.display());
        }
        commands
            .spawn(Screenshot::primary_window())
            .observe(save_to_disk(path.clone()));
        *requested_at = Some(*frame);
    }
    if let Some(at) = *requested_at {
        if std::fs::metadata(&path)
            .map(|m| m.len() > 0)
            .unwrap_or(false)
        {
            // Give the writer a few frames to finish before exiting.
            if *frame > at + 3 {
                exit.write(AppExit::Success);
            }
        } else if *frame > at + 600 {
            error!("screenshot {} was not written", path.display());
            exit.write(AppExit::error());
        }
    }
}
