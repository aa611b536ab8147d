//! The motion library: every clip (`crate::clip`) in `assets/` and `results/` (gait clips are
//! converted on the fly, glTF files written by `clip export` read back), filtered by tags, played on skinned characters in the 3D viewport,
//! several side by side or as ghosts, aligned by phase; a timeline scrubber, play, pause, half
//! speed, loop and step; BVH export.
//!
//! Playback of a transformed-cyclic clip applies its transform T cumulatively at every wrap
//! (specs/001.md §1.4), so a walk keeps walking instead of jumping back.

mod panel;

use crate::clip::{CharacterRef, Clip, from_gait::clip_of_gait};
use crate::model::{Character, load_character};
use bevy::mesh::skinning::SkinnedMeshInverseBindposes;
use bevy::prelude::*;
use bevy_egui::EguiPrimaryContextPass;
use std::path::{Path, PathBuf};

pub struct LibraryPlugin;

impl Plugin for LibraryPlugin {
    fn build(&self, app: &mut App) {
        app.add_systems(Startup, setup_library)
            .add_systems(
                Update,
                (
                    from_gait_panel,
                    from_diversity_panel,
                    advance_clock,
                    rebuild_figures,
                    pose_figures,
                )
                    .chain(),
            )
            .add_systems(EguiPrimaryContextPass, panel::library_window);
    }
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
    pub visible: bool,
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
            visible: false,
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

    /// Whether clips are on show (the live simulation is hidden meanwhile).
    pub fn showing(&self) -> bool {
        self.visible && !self.selected.is_empty()
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

    /// Writes the BVH of entry `i` next to its file.
    pub fn export_bvh(&mut self, i: usize) {
        let e = &self.entries[i];
        let out = e.path.with_extension("bvh");
        let text = crate::clip::bvh::export(&e.clip, &e.character);
        self.message = match crate::files::write_atomic(&out, text.as_bytes()) {
            Ok(()) => format!("wrote {}", out.display()),
            Err(err) => format!("cannot write {}: {err}", out.display()),
        };
    }
}

/// A path of the project's files (`assets/…`), from the working directory when it has them,
/// else from the folder the program was built from.
pub fn root_path(relative: &str) -> PathBuf {
    root_dir().join(relative)
}

/// The folder the program was built from when the working directory has no `assets/`.
fn root_dir() -> PathBuf {
    if Path::new("assets").is_dir() {
        PathBuf::new()
    } else {
        PathBuf::from(env!("CARGO_MANIFEST_DIR"))
    }
}

/// A character path as written in a clip, resolved against the working directory, then the
/// source folder.
fn resolve(path: &str) -> PathBuf {
    let p = PathBuf::from(path);
    if p.exists() { p } else { root_dir().join(p) }
}

/// Reads `path` as a clip, a gait clip (converted) or a glTF written by `clip export` (read
/// back onto the character it names). `Ok(None)`: another kind of file.
fn load_entry(path: &Path) -> Result<Option<Entry>, String> {
    let extension = path
        .extension()
        .map(|e| e.to_string_lossy().to_lowercase())
        .unwrap_or_default();
    if extension == "glb" || extension == "gltf" {
        let bytes = std::fs::read(path).map_err(|e| e.to_string())?;
        let Some(file) = crate::clip::gltf::character_of_file(&bytes) else {
            return Ok(None);
        };
        let (character, r) = character_file(&file)?;
        let name = path.display().to_string();
        let clip = if extension == "glb" {
            crate::clip::gltf::import_glb(&bytes, &character, r, &name)?
        } else {
            let bin = std::fs::read(path.with_extension("bin")).map_err(|e| e.to_string())?;
            crate::clip::gltf::import_gltf(&bytes, &bin, &character, r, &name)?
        };
        return Ok(Some(Entry {
            path: path.into(),
            clip,
            character,
        }));
    }
    let text = std::fs::read_to_string(path).map_err(|e| e.to_string())?;
    if let Ok(clip) = crate::files::from_ron::<Clip>(&text) {
        clip.check()?;
        let character =
            load_character(&resolve(&clip.character.path)).map_err(|e| e.to_string())?;
        clip.check_character(&character)?;
        return Ok(Some(Entry {
            path: path.into(),
            clip,
            character,
        }));
    }
    if let Ok(gait) = crate::files::from_ron::<crate::spacetime::gait::GaitClip>(&text) {
        return gait_entry(&gait, path.into()).map(Some);
    }
    Ok(None)
}

/// A character file named as a clip names it (resolved as [`resolve`] does), and the
/// reference to it.
fn character_file(file: &str) -> Result<(Character, CharacterRef), String> {
    let path = resolve(file);
    let text = std::fs::read_to_string(&path).map_err(|e| format!("{}: {e}", path.display()))?;
    let character = load_character(&path).map_err(|e| e.to_string())?;
    Ok((character, CharacterRef::new(Path::new(file), &text)))
}

/// A gait clip on its creature's character file (`characters/<creature>.ron`), as an entry
/// shown under `path`.
fn gait_entry(gait: &crate::spacetime::gait::GaitClip, path: PathBuf) -> Result<Entry, String> {
    let file = format!("characters/{}.ron", gait.creature.replace(' ', "_"));
    let (character, r) = character_file(&file)?;
    let clip = clip_of_gait(gait, &character, r)?;
    Ok(Entry {
        path,
        clip,
        character,
    })
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
            } else if p
                .extension()
                .is_some_and(|x| x == "ron" || x == "glb" || x == "gltf")
            {
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
            Err(e) => skipped.push((f, e)),
        }
    }
    (entries, skipped)
}

/// The Gait panel's "Play in Library": its gait on show becomes a clip on its character,
/// selected and playing.
fn from_gait_panel(
    gait: Option<ResMut<super::gait_panel::GaitState>>,
    mut library: ResMut<Library>,
) {
    let Some(mut gait) = gait else { return };
    if !std::mem::take(&mut gait.to_library) {
        return;
    }
    let Some(shown) = &gait.shown else { return };
    let entry = gait_entry(
        &shown.clip,
        PathBuf::from(format!("gait panel: {}", shown.source)),
    );
    match entry {
        Ok(e) => play_alone(
            &mut library,
            e,
            "the Gait panel's gait, on its character".into(),
        ),
        Err(e) => library.message = format!("cannot play the gait: {e}"),
    }
}

/// Shows `entry` alone, playing from the start, with `message`.
fn play_alone(library: &mut Library, entry: Entry, message: String) {
    library.entries.push(entry);
    library.selected = vec![library.entries.len() - 1];
    library.generation += 1;
    library.time = 0.0;
    library.playing = true;
    library.visible = true;
    library.message = message;
}

/// The Diversity panel's "play in Library": the motion is replayed with its frames recorded
/// ([`crate::diversity::explore::recorded_clip`]) and plays as a clip on its skinned character
/// (a shape variant on its own body).
fn from_diversity_panel(
    diversity: Option<ResMut<super::diversity_panel::DiversityState>>,
    mut library: ResMut<Library>,
) {
    let Some(mut diversity) = diversity else {
        return;
    };
    let Some(index) = diversity.to_library.take() else {
        return;
    };
    let Some(result) = &diversity.result else {
        return;
    };
    match crate::diversity::explore::recorded_clip(result, index, None) {
        Ok((clip, character, own_body)) => {
            // The gallery's lanes would stand where the clip plays.
            diversity.gallery = false;
            let path = PathBuf::from(format!("diversity panel: {} M{index}", diversity.source));
            let body = if own_body { " on its own body" } else { "" };
            play_alone(
                &mut library,
                Entry {
                    path,
                    clip,
                    character,
                },
                format!(
                    "the Diversity panel's M{index}{body}, recorded (its gallery is hidden: tick \
                     \"show in viewport\" to see it again)"
                ),
            );
        }
        Err(e) => library.message = format!("cannot replay M{index}: {e:#}"),
    }
}

fn setup_library(mut commands: Commands, options: Res<super::AppOptions>) {
    let mut library = Library::new();
    library.rescan();
    for p in &options.clips {
        library.open(p);
    }
    library.visible = !options.clips.is_empty();
    commands.insert_resource(library);
}

fn advance_clock(mut library: ResMut<Library>, time: Res<Time>, options: Res<super::AppOptions>) {
    if !library.playing || !library.showing() {
        return;
    }
    // Screenshots advance a fixed amount per frame so they do not depend on the frame rate.
    let dt = if options.screenshot.is_some() {
        1.0 / 60.0
    } else {
        time.delta_secs_f64().min(0.1)
    };
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

/// Tints of the figures, by slot.
const TINTS: [[f32; 3]; 4] = [
    [1.0, 1.0, 1.0],
    [0.55, 0.75, 1.0],
    [1.0, 0.7, 0.45],
    [0.6, 0.95, 0.6],
];

fn rebuild_figures(
    mut commands: Commands,
    library: Res<Library>,
    mut built: Local<(u64, bool)>,
    old: Query<Entity, Or<(With<LibraryBone>, With<LibraryFigure>)>>,
    mut meshes: ResMut<Assets<Mesh>>,
    mut materials: ResMut<Assets<StandardMaterial>>,
    mut bindposes: ResMut<Assets<SkinnedMeshInverseBindposes>>,
) {
    let want = (library.generation, library.showing() && library.ghosts);
    if *built == want && !(library.showing() && old.is_empty()) {
        return;
    }
    *built = want;
    for e in &old {
        commands.entity(e).despawn();
    }
    if !library.showing() {
        return;
    }
    for (slot, &i) in library.selected.iter().enumerate() {
        let character = &library.entries[i].character;
        let t = TINTS[slot % TINTS.len()];
        let ghost = library.ghosts && slot > 0;
        super::skin::spawn_skinned(
            &mut commands,
            &mut meshes,
            &mut materials,
            &mut bindposes,
            character,
            |body| (LibraryBone { slot, body }, Transform::IDENTITY),
            LibraryFigure,
            StandardMaterial {
                base_color: if ghost {
                    Color::srgba(t[0], t[1], t[2], 0.4)
                } else {
                    Color::srgb(t[0], t[1], t[2])
                },
                alpha_mode: if ghost {
                    AlphaMode::Blend
                } else {
                    AlphaMode::Opaque
                },
                perceptual_roughness: 0.6,
                ..default()
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

/// The world pose of every body of `clip` at `t` seconds: frames interpolated (positions
/// linearly, orientations by slerp), cycles applied cumulatively when looping a cyclic clip.
pub fn poses_at(clip: &Clip, character: &Character, t: f64, looping: bool) -> Vec<[f64; 7]> {
    let n = clip.frames.len();
    let f = (t.max(0.0) * clip.rate).max(0.0);
    let (cycle, within) = if looping {
        let c = (f / n as f64).floor();
        (c, f - c * n as f64)
    } else {
        (0.0, f.min((n - 1) as f64))
    };
    let i0 = (within.floor() as usize).min(n - 1);
    let s = within - i0 as f64;
    let (i1, wrap) = if i0 + 1 < n {
        (i0 + 1, 0.0)
    } else if looping {
        (0, 1.0)
    } else {
        (i0, 0.0)
    };
    let a = clip.body_poses(character, i0);
    let b = clip.body_poses(character, i1);
    let first_root = clip.frames[0].root;
    // Loop k is the clip moved by T^k (composed, so turning clips keep turning).
    let place = |p: [f64; 7], cycles: f64| -> [f64; 7] {
        match (&clip.cycle, cycles > 0.0) {
            (Some(c), true) => {
                let t = c
                    .motion([first_root[0], first_root[1], first_root[2]])
                    .power(cycles as i64);
                let pos = t.apply_vec3([p[0], p[1], p[2]]);
                let yaw =
                    nalgebra::UnitQuaternion::from_axis_angle(&nalgebra::Vector3::y_axis(), t.yaw);
                let q = yaw * crate::clip::pose::quat_of(&p);
                crate::clip::pose::pose_of(nalgebra::Vector3::from(pos), &q)
            }
            _ => p,
        }
    };
    a.iter()
        .zip(&b)
        .map(|(pa, pb)| {
            let pa = place(*pa, cycle);
            let pb = place(*pb, cycle + wrap);
            let qa = crate::clip::pose::quat_of(&pa);
            let qb = crate::clip::pose::quat_of(&pb);
            let q = qa.slerp(&qb, s);
            let pos = nalgebra::Vector3::new(
                pa[0] + s * (pb[0] - pa[0]),
                pa[1] + s * (pb[1] - pa[1]),
                pa[2] + s * (pb[2] - pa[2]),
            );
            crate::clip::pose::pose_of(pos, &q)
        })
        .collect()
}

fn pose_figures(
    library: Res<Library>,
    mut bones: Query<(&LibraryBone, &mut Transform)>,
    mut orbit: ResMut<super::viewport::OrbitCamera>,
    mut framed: Local<u64>,
    mut focused: Local<bool>,
) {
    if !library.showing() {
        // Let go of the camera once (another view may be steering it).
        if std::mem::take(&mut *focused) {
            orbit.focus = None;
        }
        return;
    }
    *focused = true;
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
            poses_at(&e.clip, &e.character, t, library.looping)
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
