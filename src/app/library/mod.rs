//! The motion library: every clip (`crate::clip`) in `assets/` and `results/` (gait clips are
//! converted on the fly, glTF files written by `clip export` read back), filtered by tags, played on skinned characters in the 3D viewport,
//! several side by side or as ghosts, aligned by phase; a timeline scrubber, play, pause, half
//! speed, loop and step; BVH export.
//!
//! Playback of a transformed-cyclic clip applies its transform T cumulatively at every wrap
//! (McIntosh 2011, thesis §3.2.5), so a walk keeps walking instead of jumping back.

mod panel;

use super::workbench::figures::{FigureAssets, Look, spawn_figure};
use super::workbench::files::root_dir;
use super::workbench::{
    AddPanel, ClaimStage, Clock, Dock, OpenPanel, PanelSpec, PlayClip, Stage, Workbench,
    claim_stage, palette,
};
use crate::clip::Clip;
use crate::model::Character;
use bevy::prelude::*;
use std::path::{Path, PathBuf};

/// The Library's launch options.
#[derive(clap::Args, Resource, Clone, Debug, Default)]
#[group(skip)]
pub struct Launch {
    /// Play this clip (or gait clip) in the Library panel at launch; repeat to show several side
    /// by side.
    #[arg(long)]
    pub clip: Vec<PathBuf>,
}

/// The panel's id.
pub const PANEL: &str = "library";

pub struct LibraryPlugin(pub Launch);

impl Plugin for LibraryPlugin {
    fn build(&self, app: &mut App) {
        app.insert_resource(self.0.clone())
            .add_systems(Startup, setup_library)
            .add_systems(
                Update,
                (
                    play_clips,
                    claim_library,
                    advance_clock.run_if(in_state(Stage::Panel(PANEL))),
                    rebuild_figures,
                    pose_figures.run_if(in_state(Stage::Panel(PANEL))),
                )
                    .chain(),
            )
            .add_panel(
                PanelSpec {
                    id: PANEL,
                    title: "Library",
                    hover: "Library: every clip in assets/ and results/",
                    dock: Dock::Window {
                        width: 540.0,
                        height: 260.0,
                    },
                    order: 20,
                    open: !self.0.clip.is_empty(),
                },
                panel::library_window,
            );
    }
}

/// The Library owns the viewport while its window is open with clips selected.
fn claim_library(
    library: Res<Library>,
    bench: Res<Workbench>,
    mut said: Local<bool>,
    mut out: MessageWriter<ClaimStage>,
) {
    let wants = bench.is_open(PANEL) && !library.selected.is_empty();
    claim_stage(Stage::Panel(PANEL), wants, &mut said, &mut out);
}

/// A clip of the library, with the character it plays on.
pub struct Entry {
    pub path: PathBuf,
    pub clip: Clip,
    pub character: Character,
}

impl Entry {
    /// The words the filter matches: file name, character, source, family, status.
    fn haystack(&self) -> String {
        let t = &self.clip.tags;
        format!(
            "{} {} {} {} {}",
            self.path.display(),
            self.character.name,
            t.source,
            t.family.as_deref().unwrap_or(""),
            t.status.as_deref().unwrap_or("")
        )
        .to_lowercase()
    }

    pub fn matches(&self, filter: &str) -> bool {
        let h = self.haystack();
        filter
            .to_lowercase()
            .split_whitespace()
            .all(|w| h.contains(w))
    }
}

/// The library's clips, selection and playback clock.
#[derive(Resource)]
pub struct Library {
    pub entries: Vec<Entry>,
    /// Files that look like clips but did not load, with the reason.
    pub skipped: Vec<(PathBuf, String)>,
    pub filter: String,
    /// Entries shown, in order (the first sets the timeline).
    pub selected: Vec<usize>,
    /// Seconds of playback since the start.
    pub time: f64,
    pub playing: bool,
    pub half_speed: bool,
    pub looping: bool,
    /// Play every clip at the first one's phase instead of at its own time.
    pub align_phase: bool,
    /// Overlay the clips as ghosts instead of side by side.
    pub ghosts: bool,
    pub message: String,
    /// Increases when the selection changes, so the figures are rebuilt.
    generation: u64,
}

impl Library {
    fn new() -> Self {
        Library {
            entries: Vec::new(),
            skipped: Vec::new(),
            filter: String::new(),
            selected: Vec::new(),
            time: 0.0,
            playing: true,
            half_speed: false,
            looping: true,
            align_phase: true,
            ghosts: false,
            message: String::new(),
            generation: 0,
        }
    }

    pub fn toggle(&mut self, i: usize) {
        if let Some(k) = self.selected.iter().position(|&s| s == i) {
            self.selected.remove(k);
        } else {
            self.selected.push(i);
        }
        self.generation += 1;
    }

    /// The timeline's length: the first selected clip's duration.
    pub fn duration(&self) -> f64 {
        self.selected
            .first()
            .map(|&i| self.entries[i].clip.duration())
            .unwrap_or(1.0)
    }

    /// Rescans `assets/` and `results/`.
    pub fn rescan(&mut self) {
        let keep: Vec<PathBuf> = self
            .selected
            .iter()
            .map(|&i| self.entries[i].path.clone())
            .collect();
        let (entries, skipped) = scan(&[root_dir().join("assets"), PathBuf::from("results")]);
        self.entries = entries;
        self.skipped = skipped;
        self.selected = keep
            .iter()
            .filter_map(|p| self.entries.iter().position(|e| &e.path == p))
            .collect();
        self.generation += 1;
        self.message = format!("{} clips", self.entries.len());
    }

    /// Adds (or finds) the clip at `path` and selects it.
    pub fn open(&mut self, path: &Path) {
        let found = self.entries.iter().position(|e| e.path == path);
        let index = match found {
            Some(i) => Some(i),
            None => match load_entry(path) {
                Ok(Some(e)) => {
                    self.entries.push(e);
                    Some(self.entries.len() - 1)
                }
                Ok(None) => {
                    self.message = format!("{}: not a clip", path.display());
                    None
                }
                Err(e) => {
                    self.message = format!("{}: {e}", path.display());
                    None
                }
            },
        };
        if let Some(i) = index
            && !self.selected.contains(&i)
        {
            self.selected.push(i);
            self.generation += 1;
        }
    }

    /// Writes the BVH of entry `i` next to its file (never over it: a BVH entry's is
    /// `NAME.export.bvh`).
    pub fn export_bvh(&mut self, i: usize) {
        let e = &self.entries[i];
        let out = if e
            .path
            .extension()
            .is_some_and(|x| x.eq_ignore_ascii_case("bvh"))
        {
            e.path.with_extension("export.bvh")
        } else {
            e.path.with_extension("bvh")
        };
        self.message = match crate::clip::save(&e.clip, &e.character, &out) {
            Ok(_) => format!("wrote {}", out.display()),
            Err(err) => err.to_string(),
        };
    }
}

/// Reads `path` as any clip file ([`crate::clip::open`]). `Ok(None)`: another kind of file (a
/// character, a graph, a manifest).
fn load_entry(path: &Path) -> Result<Option<Entry>, crate::clip::ClipError> {
    match crate::clip::open(path, &Default::default()) {
        Ok(o) => Ok(Some(Entry {
            path: path.into(),
            clip: o.clip,
            character: o.character,
        })),
        Err(crate::clip::ClipError::NotAClip { .. }) => Ok(None),
        Err(e) => Err(e),
    }
}

/// Every clip under `dirs` (recursively), sorted by path.
fn scan(dirs: &[PathBuf]) -> (Vec<Entry>, Vec<(PathBuf, String)>) {
    let mut files = Vec::new();
    let mut stack: Vec<PathBuf> = dirs.to_vec();
    while let Some(d) = stack.pop() {
        let Ok(rd) = std::fs::read_dir(&d) else {
            continue;
        };
        for e in rd.flatten() {
            let p = e.path();
            if p.is_dir() {
                stack.push(p);
            } else if p.extension().is_some_and(|x| {
                crate::clip::file::EXTENSIONS.contains(&x.to_string_lossy().as_ref())
            }) {
                files.push(p);
            }
        }
    }
    files.sort();
    let mut entries = Vec::new();
    let mut skipped = Vec::new();
    for f in files {
        match load_entry(&f) {
            Ok(Some(e)) => entries.push(e),
            Ok(None) => {}
            Err(e) => skipped.push((f, e.to_string())),
        }
    }
    (entries, skipped)
}

/// Shows `entry` alone, playing from the start, with `message`.
fn play_alone(library: &mut Library, entry: Entry, message: String) {
    library.entries.push(entry);
    library.selected = vec![library.entries.len() - 1];
    library.generation += 1;
    library.time = 0.0;
    library.playing = true;
    library.message = message;
}

/// "Play in Library" from another panel: the clip alone, playing from the start, the window
/// open.
fn play_clips(
    mut requests: MessageReader<PlayClip>,
    mut library: ResMut<Library>,
    mut open: MessageWriter<OpenPanel>,
) {
    for r in requests.read() {
        let entry = Entry {
            path: PathBuf::from(&r.label),
            clip: r.clip.clone(),
            character: r.character.clone(),
        };
        play_alone(&mut library, entry, r.note.clone());
        open.write(OpenPanel {
            id: PANEL,
            open: true,
        });
    }
}

fn setup_library(mut commands: Commands, options: Res<Launch>) {
    let mut library = Library::new();
    library.rescan();
    for p in &options.clip {
        library.open(p);
    }
    commands.insert_resource(library);
}

fn advance_clock(mut library: ResMut<Library>, time: Res<Time>, clock: Res<Clock>) {
    if !library.playing || library.selected.is_empty() {
        return;
    }
    let dt = clock.dt(&time, 0.1);
    let rate = if library.half_speed { 0.5 } else { 1.0 };
    library.time += dt * rate;
    let d = library.duration();
    if !library.looping && library.time > d {
        library.time = d;
        library.playing = false;
    }
}

/// A bone of a library figure: slot (selection order) and body.
#[derive(Component)]
struct LibraryBone {
    slot: usize,
    body: usize,
}

#[derive(Component)]
struct LibraryFigure;

fn rebuild_figures(
    mut commands: Commands,
    library: Res<Library>,
    stage: Res<State<Stage>>,
    mut built: Local<(u64, bool, bool)>,
    old: Query<Entity, Or<(With<LibraryBone>, With<LibraryFigure>)>>,
    mut assets: FigureAssets,
    mut report: ResMut<super::workbench::capture::ShotReport>,
) {
    let showing = *stage.get() == Stage::Panel(PANEL);
    let want = (library.generation, showing, showing && library.ghosts);
    if *built == want {
        return;
    }
    report.figures.insert(
        "library".into(),
        if showing { library.selected.len() } else { 0 },
    );
    *built = want;
    for e in &old {
        commands.entity(e).despawn();
    }
    if !showing {
        return;
    }
    for (slot, &i) in library.selected.iter().enumerate() {
        let character = &library.entries[i].character;
        let tint = palette::slot_tint(slot);
        spawn_figure(
            &mut commands,
            &mut assets,
            character,
            |body| (LibraryBone { slot, body }, Transform::IDENTITY),
            LibraryFigure,
            if library.ghosts && slot > 0 {
                Look::Ghost(tint)
            } else {
                Look::Solid(tint)
            },
        );
    }
}

/// The largest horizontal distance between two body centres of the reference pose, plus a
/// margin for the shapes (m).
fn horizontal_extent(c: &Character) -> f64 {
    let mut extent: f64 = 0.0;
    for a in &c.bodies {
        for b in &c.bodies {
            let d = ((a.position[0] - b.position[0]).powi(2)
                + (a.position[2] - b.position[2]).powi(2))
            .sqrt();
            extent = extent.max(d + 0.5 * (a.length() + b.length()) * 0.5);
        }
    }
    extent
}

fn pose_figures(
    library: Res<Library>,
    mut bones: Query<(&LibraryBone, &mut Transform)>,
    mut orbit: ResMut<super::viewport::OrbitCamera>,
    mut framed: Local<u64>,
) {
    if library.selected.is_empty() {
        return;
    }
    let m = library.selected.len();
    if *framed != library.generation {
        // A new selection: step back far enough to see every figure, from the side.
        *framed = library.generation;
        orbit.distance = orbit.distance.max(3.5 + 1.6 * m as f32);
        orbit.yaw = 0.5;
        orbit.pitch = 0.3;
    }
    // Side by side across the direction of travel, as far apart as the longest figure.
    let spacing = library
        .selected
        .iter()
        .map(|&i| horizontal_extent(&library.entries[i].character))
        .fold(0.8, f64::max)
        + 0.6;
    let d0 = library.duration();
    let poses: Vec<Vec<[f64; 7]>> = library
        .selected
        .iter()
        .map(|&i| {
            let e = &library.entries[i];
            let t = if library.align_phase {
                library.time / d0 * e.clip.duration()
            } else {
                library.time
            };
            e.clip.poses_at(&e.character, t, library.looping)
        })
        .collect();
    let offset = |slot: usize| {
        if library.ghosts {
            0.0
        } else {
            (slot as f64 - (m as f64 - 1.0) / 2.0) * spacing
        }
    };
    for (b, mut t) in &mut bones {
        if let Some(p) = poses.get(b.slot).and_then(|p| p.get(b.body)) {
            *t = Transform::from_translation(Vec3::new(
                p[0] as f32,
                p[1] as f32,
                (p[2] + offset(b.slot)) as f32,
            ))
            .with_rotation(Quat::from_xyzw(
                p[3] as f32,
                p[4] as f32,
                p[5] as f32,
                p[6] as f32,
            ));
        }
    }
    // The camera follows the figures' mean root.
    let roots: Vec<Vec3> = library
        .selected
        .iter()
        .zip(&poses)
        .enumerate()
        .map(|(slot, (&i, p))| {
            let e = &library.entries[i];
            let r = e.character.body_index(&e.character.root.body).unwrap_or(0);
            Vec3::new(
                p[r][0] as f32,
                p[r][1] as f32,
                (p[r][2] + offset(slot)) as f32,
            )
        })
        .collect();
    orbit.focus = Some(roots.iter().copied().sum::<Vec3>() / roots.len() as f32);
}
