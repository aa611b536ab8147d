//! Walking to tasks in the Steering view (Agrawal 2016, "Synthesis of task-based locomotion",
//! thesis ch. 5). A click on the ground drops a task marker with the category, facing and effort
//! set in the window; dragging from the click sets the facing. The footsteps into every queued
//! task are planned (Algorithm 2 with the footstep objective of Eqs. 5.11–5.16) and drawn as
//! footprints coloured by phase: orange exits, blue locomotion, cyan enter preparation, green
//! entries. The human then walks them, its full body warped from the example walk (§5.5). The
//! science is [`crate::footsteps`]; planning runs on a thread so the view never stalls.

use crate::footsteps::body::{BodyOptions, FullBody, full_body};
use crate::footsteps::body_quality::{BodyQuality, quality};
use crate::footsteps::StepTemplate;
use crate::footsteps::captured::TemplateSet;
use crate::footsteps::source::{MotionSource, world};
use crate::footsteps::{
    Effort, FootstepPlan, Library, Phase, TaskCategory, TaskMarker, TaskSequence, plan,
};
use crate::model::CharacterRef;
use crate::model::planar::PlanarMotion;
use bevy::prelude::*;
use bevy_egui::egui;
use std::path::PathBuf;
use std::sync::Arc;
use std::thread::JoinHandle;

/// A planned sequence as shown: the plan, its full body and the body's quality.
pub struct Planned {
    /// The part's revision this was planned for.
    revision: u64,
    pub plan: FootstepPlan,
    pub body: FullBody,
    pub quality: BodyQuality,
    /// Wall time of planning and the full body, ms.
    pub ms: f64,
}

/// What the next click drops.
#[derive(Clone, Copy, Debug)]
pub struct Placing {
    pub category: TaskCategory,
    pub facing_deg: f64,
    pub effort: Effort,
}

/// A stretch of the walk planned as one sequence (entries and exits chosen together, §5.3.2).
/// A task queued once the figure is on its way to the last task starts a new part from that
/// task's stance, so what the figure has walked or is walking never changes.
pub struct Part {
    pub sequence: TaskSequence,
    /// Increases with every change of `sequence`.
    revision: u64,
    pub shown: Option<Planned>,
}

impl Part {
    fn duration(&self) -> f64 {
        self.shown.as_ref().map_or(0.0, |p| p.body.clip.duration())
    }
}

/// The task walk on show: the queued tasks in parts, their plans and the playback.
pub struct TaskWalk {
    /// Where the walk starts: the figure's place and heading when the mode was chosen.
    start: TaskSequence,
    pub parts: Vec<Part>,
    pending: Option<JoinHandle<(usize, Planned)>>,
    source: Arc<(MotionSource, CharacterRef)>,
    /// The standing pose at the start, before anything is planned, and its footprints.
    standing: Vec<[f64; 7]>,
    start_feet: [crate::footsteps::Footstep; 2],
    /// Playback time from the start of the first part, s.
    pub time: f64,
    pub playing: bool,
    pub placing: Placing,
    /// Where a drag that drops a marker started, on the ground (x, y).
    pub drag_from: Option<[f64; 2]>,
    /// A time to go to once every part is planned (`--steer-tasks-at`).
    pub seek: Option<f64>,
    pub message: String,
    /// Where "Save clip" writes the full body.
    pub clip_path: String,
    /// Templates cut from clips, retrieved ahead of the geometric library, and what they are.
    templates: Arc<Vec<StepTemplate>>,
    templates_from: Option<String>,
}

impl TaskWalk {
    /// A walk starting at `start` (the steered figure's place and heading) with no tasks.
    pub fn new(start: &PlanarMotion) -> Result<TaskWalk, String> {
        let root = super::super::workbench::files::root_dir();
        let source = MotionSource::human3d(&root).map_err(|e| format!("{e}"))?;
        let start = TaskSequence {
            // Ground (x, y) is the world's (x, −z); both yaws turn +x towards −z.
            start: (start.x, -start.z),
            start_facing_deg: start.yaw.to_degrees(),
            start_category: TaskCategory::Whiteboard,
            tasks: Vec::new(),
        };
        let mut walk = TaskWalk {
            start,
            parts: Vec::new(),
            pending: None,
            source: Arc::new(source),
            standing: Vec::new(),
            start_feet: crate::footsteps::marker::stance(0.0),
            time: 0.0,
            playing: true,
            placing: Placing {
                category: TaskCategory::Whiteboard,
                facing_deg: 0.0,
                effort: Effort::High,
            },
            drag_from: None,
            seek: None,
            message: String::new(),
            clip_path: "results/tasks.clip.ron".into(),
            templates: Arc::new(Vec::new()),
            templates_from: None,
        };
        walk.stand_at_start();
        Ok(walk)
    }

    /// The standing pose on the start's stance (the full body of a plan with no task).
    fn stand_at_start(&mut self) {
        let (source, character) = &*self.source;
        let library = Library::geometric(source.dimensions());
        let standing = plan(&library, &self.start);
        let body = full_body(source, character.clone(), &standing, &BodyOptions::default());
        self.standing = body.clip.poses_at(&source.character, 0.0, false);
        self.start_feet = standing.start;
    }

    /// The character the walk poses.
    pub fn character(&self) -> &crate::model::Character {
        &self.source.0.character
    }

    /// Every queued task, in order.
    pub fn tasks(&self) -> impl Iterator<Item = &TaskMarker> {
        self.parts.iter().flat_map(|p| p.sequence.tasks.iter())
    }

    /// The whole walk as one task file: the start and every task.
    pub fn sequence(&self) -> TaskSequence {
        TaskSequence {
            tasks: self.tasks().copied().collect(),
            ..self.start.clone()
        }
    }

    /// A task file's tasks in place of the queue (its start too), planned as one part.
    pub fn open(&mut self, path: &std::path::Path) {
        match TaskSequence::load(path) {
            Ok(s) => {
                self.start = TaskSequence {
                    tasks: Vec::new(),
                    ..s.clone()
                };
                self.stand_at_start();
                self.parts = vec![Part {
                    sequence: s,
                    revision: 1,
                    shown: None,
                }];
                self.time = 0.0;
                self.message = format!("{}", path.display());
            }
            Err(e) => self.message = format!("{e:#}"),
        }
    }

    /// Plans with a template file's templates ahead of the geometric ones (`footsteps
    /// templates` writes them): every part is planned again and the walk starts over.
    pub fn open_templates(&mut self, path: &std::path::Path) {
        match TemplateSet::load(path) {
            Ok(set) => {
                self.templates_from = Some(format!(
                    "{} ({} templates)",
                    path.file_name().unwrap_or_default().to_string_lossy(),
                    set.templates.len()
                ));
                // Their steps play from the clips they were cut from.
                let mut source = self.source.0.clone();
                source.clips.clear();
                let (source, warnings) = source.with_clips(&set.clips(path));
                self.source = Arc::new((source, self.source.1.clone()));
                self.templates = Arc::new(set.templates);
                self.message = format!("planning with {}", path.display());
                for w in warnings {
                    self.message.push_str(&format!("\n{w}"));
                }
                self.replan();
            }
            Err(e) => self.message = format!("{e:#}"),
        }
    }

    /// Back to the geometric library alone.
    pub fn geometric_only(&mut self) {
        self.templates = Arc::new(Vec::new());
        self.templates_from = None;
        let mut source = self.source.0.clone();
        source.clips.clear();
        self.source = Arc::new((source, self.source.1.clone()));
        self.message = "planning with the geometric templates".into();
        self.replan();
    }

    /// Every part planned again, the walk from its start.
    fn replan(&mut self) {
        for part in &mut self.parts {
            part.revision += 1;
        }
        self.time = 0.0;
    }

    /// Writes the queued tasks as a task file.
    pub fn save_tasks(&mut self, path: &std::path::Path) {
        self.message = match crate::files::write_ron(path, &self.sequence()) {
            Ok(()) => format!("saved {}", path.display()),
            Err(e) => format!("cannot save {}: {e}", path.display()),
        };
    }

    /// The whole walk's duration, s.
    pub fn duration(&self) -> f64 {
        self.parts.iter().map(Part::duration).sum()
    }

    /// Writes the full body of the whole walk as one clip of human3d's walker.
    pub fn save_clip(&mut self) {
        let path = PathBuf::from(self.clip_path.trim());
        let mut clips = self.parts.iter().filter_map(|p| p.shown.as_ref());
        let Some(first) = clips.next() else {
            self.message = "nothing planned yet".into();
            return;
        };
        let mut clip = first.body.clip.clone();
        for p in clips {
            clip.frames.extend(p.body.clip.frames.iter().cloned());
            clip.contacts.extend(p.body.clip.contacts.iter().cloned());
        }
        self.message = match clip.save(&path) {
            Ok(()) => format!(
                "saved {} ({} frames, {:.1} s)",
                path.display(),
                clip.frames.len(),
                clip.duration()
            ),
            Err(e) => format!("cannot save {}: {e}", path.display()),
        };
    }

    /// Queues a task: into the last part while the figure has not set off to that part's last
    /// task, else as a new part from that task's stance.
    pub fn add(&mut self, marker: TaskMarker) {
        let offset: f64 = self.parts.iter().rev().skip(1).map(Part::duration).sum();
        let extend = self.parts.last().is_some_and(|p| match &p.shown {
            None => true,
            Some(planned) => self.time - offset < last_task_departure(planned),
        });
        if extend {
            let part = self.parts.last_mut().expect("a part");
            part.sequence.tasks.push(marker);
            part.revision += 1;
            return;
        }
        let from = match self.parts.last() {
            Some(p) => {
                let last = p.sequence.tasks.last().expect("a part has tasks");
                TaskSequence {
                    start: last.location,
                    start_facing_deg: last.facing_deg,
                    start_category: last.category,
                    tasks: Vec::new(),
                }
            }
            None => self.start.clone(),
        };
        self.parts.push(Part {
            sequence: TaskSequence {
                tasks: vec![marker],
                ..from
            },
            revision: 1,
            shown: None,
        });
    }

    /// Drops the last queued task.
    pub fn undo(&mut self) {
        if let Some(part) = self.parts.last_mut() {
            part.sequence.tasks.pop();
            part.revision += 1;
            if part.sequence.tasks.is_empty() {
                self.parts.pop();
            }
        }
        self.time = self.time.min(self.duration());
    }

    /// Drops every task; the figure stands where the walk started.
    pub fn clear(&mut self) {
        self.parts.clear();
        self.time = 0.0;
    }

    /// Takes a finished plan; starts planning the first part whose plan is out of date.
    /// Returns whether planning is in flight.
    pub fn poll(&mut self) -> bool {
        if let Some(job) = self.pending.take_if(|j| j.is_finished()) {
            match job.join() {
                Ok((k, p)) => {
                    self.message = format!(
                        "planned {} footsteps in {:.0} ms",
                        p.plan.steps.len(),
                        p.ms
                    );
                    if let Some(part) = self.parts.get_mut(k)
                        && part.revision == p.revision
                    {
                        part.shown = Some(p);
                    }
                }
                Err(_) => self.message = "footstep planning failed".into(),
            }
        }
        if self.pending.is_some() {
            return true;
        }
        let Some(k) = self
            .parts
            .iter()
            .position(|p| p.shown.as_ref().is_none_or(|s| s.revision != p.revision))
        else {
            return false;
        };
        let part = &self.parts[k];
        let (sequence, revision, source, templates) = (
            part.sequence.clone(),
            part.revision,
            self.source.clone(),
            self.templates.clone(),
        );
        self.pending = Some(std::thread::spawn(move || {
            let clock = std::time::Instant::now();
            // The geometric templates fill every shelf, so this cannot be refused.
            let dimensions = source.0.dimensions();
            let library = Library::with_templates(templates.to_vec(), false, dimensions)
                .unwrap_or_else(|_| Library::geometric(dimensions));
            let plan = plan(&library, &sequence);
            let body = full_body(&source.0, source.1.clone(), &plan, &BodyOptions::default());
            let quality = quality(&source.0, &body.clip);
            (
                k,
                Planned {
                    revision,
                    plan,
                    body,
                    quality,
                    ms: clock.elapsed().as_secs_f64() * 1e3,
                },
            )
        }));
        true
    }

    /// Advances the playback; it stops at the end of the last task's hold, or where planning
    /// has not caught up.
    pub fn advance(&mut self, dt: f64) {
        let mut end = 0.0;
        for p in &self.parts {
            if p.shown.is_none() {
                break;
            }
            end += p.duration();
        }
        let planned = self.parts.iter().all(|p| p.shown.is_some());
        if let (Some(at), true) = (self.seek, planned) {
            self.time = at.clamp(0.0, end);
            self.seek = None;
        } else if self.playing && self.seek.is_none() {
            self.time = (self.time + dt).min(end);
        }
    }

    /// The part on show at the playback time and the time within it.
    fn at(&self) -> Option<(&Planned, f64)> {
        let mut t = self.time;
        let mut last = None;
        for p in &self.parts {
            let Some(s) = &p.shown else { break };
            let d = s.body.clip.duration();
            if t <= d {
                return Some((s, t));
            }
            t -= d;
            last = Some((s, d));
        }
        last
    }

    /// The body poses on show: the full body at the playback time, else the standing pose at
    /// the start.
    pub fn poses(&self) -> Vec<[f64; 7]> {
        match self.at() {
            Some((p, t)) => p.body.clip.poses_at(self.character(), t, false),
            None => self.standing.clone(),
        }
    }

    /// The marker a click at `at` (ground x, y) released at `to` drops: facing along the drag
    /// when it is longer than 25 cm, else the window's facing.
    pub fn marker(&self, at: [f64; 2], to: [f64; 2]) -> TaskMarker {
        let (dx, dy) = (to[0] - at[0], to[1] - at[1]);
        let facing_deg = if dx.hypot(dy) > 0.25 {
            dy.atan2(dx).to_degrees()
        } else {
            self.placing.facing_deg
        };
        TaskMarker {
            category: self.placing.category,
            location: (at[0], at[1]),
            facing_deg,
            effort: self.placing.effort,
        }
    }
}

/// When, in a planned part, the figure sets off to its last task: the start of the first step
/// planned for that task, s (the part's end when it has none).
fn last_task_departure(p: &Planned) -> f64 {
    let last = p.plan.reports.len().saturating_sub(1);
    let first = p.plan.steps.iter().position(|s| s.task == last);
    match first.and_then(|i| p.body.steps.get(i)) {
        Some(r) => r.start as f64 / p.body.clip.rate,
        None => p.body.clip.duration(),
    }
}

/// Colour of a footprint's phase.
pub fn phase_colour(phase: Phase) -> Color {
    match phase {
        Phase::Exit => Color::srgb(0.95, 0.55, 0.12),
        Phase::Locomotion => Color::srgb(0.2, 0.45, 0.95),
        Phase::EnterPreparation => Color::srgb(0.1, 0.75, 0.85),
        Phase::Enter => Color::srgb(0.15, 0.75, 0.3),
    }
}

/// The footprints of the plan (faded once stepped on), the start stance, and every marker with
/// an outline of its prop: a whiteboard in front, a seat behind, a box at the feet.
pub fn draw(gizmos: &mut Gizmos, walk: &TaskWalk) {
    let at = |x: f64, y: f64, h: f64| {
        let p = world(x, y, h);
        Vec3::new(p.x as f32, p.y as f32, p.z as f32)
    };
    let dir = |yaw: f64| Vec3::new(yaw.cos() as f32, 0.0, -yaw.sin() as f32);
    let foot = |gizmos: &mut Gizmos, s: &crate::footsteps::Footstep, colour: Color| {
        let (f, side) = (dir(s.yaw), dir(s.yaw + std::f64::consts::FRAC_PI_2));
        let c = at(s.x, s.y, 0.006) + f * 0.05;
        let (l, w) = (0.13, 0.05);
        let corners = [
            c + f * l + side * w,
            c + f * l - side * w,
            c - f * l - side * w * 0.8,
            c - f * l + side * w * 0.8,
        ];
        gizmos.linestrip(
            corners.iter().chain(std::iter::once(&corners[0])).copied(),
            colour,
        );
    };
    for s in &walk.start_feet {
        foot(gizmos, s, Color::srgb(0.5, 0.5, 0.5));
    }
    let mut offset = 0.0;
    for part in &walk.parts {
        let Some(p) = &part.shown else { break };
        let frame = ((walk.time - offset) * p.body.clip.rate).floor();
        for r in &p.body.steps {
            let colour = phase_colour(r.phase);
            let colour = if (r.end as f64) <= frame {
                colour.with_alpha(0.3)
            } else {
                colour
            };
            foot(gizmos, &r.to, colour);
        }
        offset += p.body.clip.duration();
    }
    let planned: Vec<bool> = walk
        .parts
        .iter()
        .flat_map(|p| p.sequence.tasks.iter().map(|_| p.shown.is_some()))
        .collect();
    for (t, planned) in walk.tasks().zip(planned) {
        let colour = if planned {
            Color::srgb(0.85, 0.2, 0.75)
        } else {
            Color::srgb(0.6, 0.6, 0.6)
        };
        let yaw = t.facing_deg.to_radians();
        let f = dir(yaw);
        let o = at(t.location.0, t.location.1, 0.01);
        gizmos.circle(
            Isometry3d::new(o, Quat::from_rotation_x(std::f32::consts::FRAC_PI_2)),
            0.3,
            colour,
        );
        gizmos.arrow(o, o + f * 0.45, colour);
        let rotation = Quat::from_rotation_y(yaw as f32);
        match t.category {
            TaskCategory::Whiteboard => {
                let c = o + f * 0.6 + Vec3::Y * 1.4;
                gizmos.cube(
                    Transform::from_translation(c)
                        .with_rotation(rotation)
                        .with_scale(Vec3::new(0.03, 0.9, 1.4)),
                    colour,
                );
            }
            TaskCategory::Sit => {
                let c = o - f * 0.35 + Vec3::Y * 0.22;
                gizmos.cube(
                    Transform::from_translation(c)
                        .with_rotation(rotation)
                        .with_scale(Vec3::splat(0.44)),
                    colour,
                );
                // The backrest.
                let b = o - f * 0.57 + Vec3::Y * 0.66;
                gizmos.cube(
                    Transform::from_translation(b)
                        .with_rotation(rotation)
                        .with_scale(Vec3::new(0.04, 0.44, 0.44)),
                    colour,
                );
            }
            TaskCategory::Lift => {
                let c = o + f * 0.32 + Vec3::Y * 0.15;
                gizmos.cube(
                    Transform::from_translation(c)
                        .with_rotation(rotation)
                        .with_scale(Vec3::splat(0.3)),
                    colour,
                );
            }
        }
    }
    if let Some(from) = walk.drag_from {
        let o = at(from[0], from[1], 0.01);
        gizmos.circle(
            Isometry3d::new(o, Quat::from_rotation_x(std::f32::consts::FRAC_PI_2)),
            0.3,
            Color::WHITE,
        );
    }
}

/// The window's section for the task walk: what the next click drops, the queue with each
/// task's report, the playback and the files.
pub fn window(ui: &mut egui::Ui, walk: &mut TaskWalk) {
    ui.small("Click the ground to drop a task; drag from the click to set its facing.");
    ui.horizontal(|ui| {
        for c in TaskCategory::ALL {
            ui.selectable_value(&mut walk.placing.category, c, format!("{c:?}"));
        }
        ui.separator();
        ui.selectable_value(&mut walk.placing.effort, Effort::High, "high effort");
        ui.selectable_value(&mut walk.placing.effort, Effort::Low, "low effort");
    });
    ui.horizontal(|ui| {
        ui.label("facing");
        ui.add(
            egui::DragValue::new(&mut walk.placing.facing_deg)
                .range(-180.0..=180.0)
                .suffix("°"),
        )
        .on_hover_text("The facing of a marker dropped with a click (0°: +x, 90°: away from +z)");
        if ui.button("Undo").on_hover_text("Drop the last task").clicked() {
            walk.undo();
        }
        if ui.button("Clear").clicked() {
            walk.clear();
        }
        if ui.button("Open tasks…").clicked()
            && let Some(p) = rfd::FileDialog::new()
                .add_filter("tasks", &["ron"])
                .pick_file()
        {
            walk.open(&p);
        }
        if ui.button("Save tasks…").clicked()
            && let Some(p) = rfd::FileDialog::new()
                .add_filter("tasks", &["ron"])
                .save_file()
        {
            walk.save_tasks(&p);
        }
    });
    ui.horizontal(|ui| {
        ui.label("templates:");
        ui.label(walk.templates_from.as_deref().unwrap_or("geometric"));
        if ui
            .button("Open templates…")
            .on_hover_text(
                "Step templates cut from clips (`motionlab footsteps templates`): a solved \
                 clip or motion capture; retrieved ahead of the geometric ones",
            )
            .clicked()
            && let Some(p) = rfd::FileDialog::new()
                .add_filter("templates", &["ron"])
                .pick_file()
        {
            walk.open_templates(&p);
        }
        if walk.templates_from.is_some() && ui.button("Geometric only").clicked() {
            walk.geometric_only();
        }
    });
    let planned: Vec<&Planned> = walk.parts.iter().filter_map(|p| p.shown.as_ref()).collect();
    let any = !planned.is_empty();
    let fold = |f: fn(&BodyQuality) -> f64| planned.iter().map(|p| f(&p.quality)).fold(0.0, f64::max);
    let duration = walk.duration();
    let summary = format!(
        "{} footsteps ({} played from their clips) · {} frames ({:.1} s) · slide {:.1} mm · joint jump {:.2} rad · past a limit {:.2} rad · a foot off its plan {:.1}° at a hip's limit",
        planned.iter().map(|p| p.plan.steps.len()).sum::<usize>(),
        planned.iter().map(|p| p.body.from_clips).sum::<usize>(),
        planned.iter().map(|p| p.body.clip.frames.len()).sum::<usize>(),
        duration,
        fold(|q| q.slide_m) * 1e3,
        fold(|q| q.joint_jump_rad),
        fold(|q| q.limit_excess_rad),
        planned
            .iter()
            .map(|p| p.body.foot_turned_rad)
            .fold(0.0, f64::max)
            .to_degrees(),
    );
    if any {
        ui.horizontal(|ui| {
            let label = if walk.playing { "Pause" } else { "Play" };
            if ui.button(label).clicked() {
                if !walk.playing && walk.time >= duration {
                    walk.time = 0.0;
                }
                walk.playing = !walk.playing;
            }
            ui.add(egui::Slider::new(&mut walk.time, 0.0..=duration).suffix(" s"));
        });
        ui.small(summary);
    }
    egui::Grid::new("task_walk_tasks")
        .num_columns(6)
        .striped(true)
        .show(ui, |ui| {
            for h in ["task", "where", "route", "steps", "reached", "plan"] {
                ui.strong(h);
            }
            ui.end_row();
            let mut i = 0;
            for part in &walk.parts {
                for (k, t) in part.sequence.tasks.iter().enumerate() {
                    i += 1;
                    ui.label(format!("{i} {:?}", t.category));
                    ui.label(format!(
                        "({:.1}, {:.1}) {:.0}°",
                        t.location.0, t.location.1, t.facing_deg
                    ));
                    match part
                        .shown
                        .as_ref()
                        .filter(|p| p.revision == part.revision)
                        .and_then(|p| p.plan.reports.get(k))
                    {
                        Some(r) => {
                            ui.label(route_name(r.route)).on_hover_text(format!(
                                "exit: {}\nentry: {}",
                                r.exit.as_deref().unwrap_or("none (from rest)"),
                                r.entry
                            ));
                            ui.label(format!("{}", r.steps));
                            ui.label(format!(
                                "{:.1} cm {:.1}°",
                                r.reached_m * 100.0,
                                r.reached_deg
                            ));
                            ui.label(format!("{:.1} ms", r.plan_ms));
                        }
                        None => {
                            ui.label("planning…");
                        }
                    }
                    ui.end_row();
                }
            }
        });
    ui.horizontal(|ui| {
        if ui
            .add_enabled(any, egui::Button::new("Save clip"))
            .on_hover_text("The full body as a clip of human3d's walker at 60 fps")
            .clicked()
        {
            walk.save_clip();
        }
        ui.add(egui::TextEdit::singleline(&mut walk.clip_path).desired_width(200.0));
    });
    if !walk.message.is_empty() {
        ui.small(&walk.message);
    }
}

/// Algorithm 2's case, as the window names it.
fn route_name(r: crate::footsteps::Route) -> &'static str {
    use crate::footsteps::Route;
    match r {
        Route::EntryOnly => "side step",
        Route::ExitThenEntry => "turn and step",
        Route::ExitWalkEntry => "turn and walk",
    }
}
