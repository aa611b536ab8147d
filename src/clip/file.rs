//! One way into clip files and out of them, for the command line, the Library and the editor:
//! [`open`] decides the format once ([`ClipFormat`]: a RON clip, a gait clip, BVH motion
//! capture, a glTF or GLB animation) and finds the character the motion plays on; [`save`]
//! writes a clip in the format its file name asks for. Errors name the file and what was
//! expected.

use super::keyframes::Keyframes;
use super::{CharacterRef, Clip, ClipError, bvh, from_gait, gltf};
use crate::model::{Character, load_character};
use crate::spacetime::gait::GaitClip;
use std::path::{Path, PathBuf};

/// What a clip file holds.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ClipFormat {
    /// A [`Clip`] written as RON (`clip import`, a simulation, a steered run, a library save).
    Clip,
    /// A solved gait ([`GaitClip`], `gait --out`), made a clip on its character.
    GaitClip,
    /// A BVH motion-capture file.
    Bvh,
    /// A glTF animation (`.gltf` with its `.bin`).
    Gltf,
    /// A binary glTF animation.
    Glb,
    /// Keys typed by hand ([`Keyframes`]: a `keys` field), made a clip by interpolation.
    Keyframes,
}

/// The extensions of the files [`open`] reads.
pub const EXTENSIONS: [&str; 4] = ["ron", "bvh", "gltf", "glb"];

impl ClipFormat {
    /// The format of the file at `path`: by its extension, and for `.ron` by its top-level
    /// fields (a gait clip's `creature`, keyframes' `keys`, a clip's `character`).
    pub fn of(path: &Path) -> Result<ClipFormat, ClipError> {
        let extension = path
            .extension()
            .map(|e| e.to_string_lossy().to_ascii_lowercase())
            .unwrap_or_default();
        match extension.as_str() {
            "bvh" => Ok(ClipFormat::Bvh),
            "gltf" => Ok(ClipFormat::Gltf),
            "glb" => Ok(ClipFormat::Glb),
            "ron" => {
                let text = read_text(path)?;
                ron_kind(&text).ok_or_else(|| ClipError::NotAClip {
                    path: path.display().to_string(),
                })
            }
            _ => Err(ClipError::Format {
                path: path.display().to_string(),
                found: extension,
            }),
        }
    }
}

/// A RON file's kind from its first top-level field (files the program writes put the
/// distinguishing field first), else from all its fields. Keyframes name their character by a
/// string (`character: "human3d.ron"`), a clip by a reference (`character: (path: …)`).
fn ron_kind(text: &str) -> Option<ClipFormat> {
    let kind_of = |field: &str| match field {
        "creature" => Some(ClipFormat::GaitClip),
        "keys" => Some(ClipFormat::Keyframes),
        "character" => Some(ClipFormat::Clip),
        _ => None,
    };
    // Past comments and an optional struct name, the first field's name.
    let mut rest = text;
    loop {
        rest = rest.trim_start();
        if let Some(r) = rest.strip_prefix("//") {
            rest = r.split_once('\n').map_or("", |(_, r)| r);
        } else if let Some(r) = rest.strip_prefix("/*") {
            rest = r.split_once("*/").map_or("", |(_, r)| r);
        } else {
            break;
        }
    }
    let rest = rest.trim_start_matches(|c: char| c.is_alphanumeric() || c == '_');
    let field: String = rest
        .trim_start()
        .strip_prefix('(')
        .unwrap_or("")
        .trim_start()
        .chars()
        .take_while(|c| c.is_alphanumeric() || *c == '_')
        .collect();
    let value_is_string = || {
        rest.trim_start()
            .strip_prefix('(')
            .and_then(|r| r.trim_start().strip_prefix(field.as_str()))
            .and_then(|r| r.trim_start().strip_prefix(':'))
            .is_some_and(|r| r.trim_start().starts_with('"'))
    };
    match kind_of(&field) {
        Some(ClipFormat::Clip) if value_is_string() => return Some(ClipFormat::Keyframes),
        Some(k) => return Some(k),
        None => {}
    }
    match crate::files::from_ron::<ron::Value>(text) {
        Ok(ron::Value::Map(m)) => {
            let named = |name: &str| m.keys().any(|k| *k == ron::Value::String(name.into()));
            if named("keys") {
                Some(ClipFormat::Keyframes)
            } else if named("creature") {
                Some(ClipFormat::GaitClip)
            } else if named("character") {
                Some(ClipFormat::Clip)
            } else {
                None
            }
        }
        _ => None,
    }
}

fn read_text(path: &Path) -> Result<String, ClipError> {
    std::fs::read_to_string(path).map_err(|e| ClipError::Io {
        path: path.display().to_string(),
        message: e.to_string(),
    })
}

fn read_bytes(path: &Path) -> Result<Vec<u8>, ClipError> {
    std::fs::read(path).map_err(|e| ClipError::Io {
        path: path.display().to_string(),
        message: e.to_string(),
    })
}

/// How to open a clip.
#[derive(Clone, Debug, Default)]
pub struct OpenOptions {
    /// Play the motion on this character instead of the one the file names (a BVH file's
    /// nodes are matched to its bodies by name).
    pub character: Option<PathBuf>,
    /// Metres per BVH unit (guessed from the hierarchy's height when absent).
    pub bvh_scale: Option<f64>,
}

/// A clip read from a file, with the character it plays on.
#[derive(Clone, Debug)]
pub struct Opened {
    pub clip: Clip,
    pub character: Character,
    pub format: ClipFormat,
    /// A BVH file read without a character: the character was derived from its hierarchy
    /// (the clip names the BVH file as its character's source until the character is saved).
    pub derived_character: bool,
    /// Problems that did not stop the reading.
    pub warnings: Vec<String>,
}

/// A character file as a clip names it: the path as written when it exists (relative to the
/// working directory), else the same path under the source folder (the shipped assets).
pub fn character_path(recorded: &str) -> PathBuf {
    let p = PathBuf::from(recorded);
    if p.exists() {
        p
    } else {
        Path::new(env!("CARGO_MANIFEST_DIR")).join(p)
    }
}

/// The character at `path` and a reference to it (one read of the file).
pub fn character_with_ref(path: &Path) -> Result<(Character, CharacterRef), ClipError> {
    let text = read_text(path)?;
    let character =
        crate::model::parse_character(&text, path).map_err(|error| ClipError::Character {
            path: path.display().to_string(),
            error,
        })?;
    Ok((character, CharacterRef::new(path, &text)))
}

/// The character a gait clip was solved for: the file it names, else the shipped
/// `characters/<creature>.ron`.
fn gait_character(gait: &GaitClip) -> PathBuf {
    match &gait.character {
        Some(r) => character_path(&r.path),
        None => character_path(&format!(
            "characters/{}.ron",
            gait.creature.replace(' ', "_")
        )),
    }
}

/// Reads the clip at `path` (see the module docs) and the character it plays on: the one the
/// options give, else the one the file names, else (BVH) one derived from its hierarchy.
pub fn open(path: &Path, options: &OpenOptions) -> Result<Opened, ClipError> {
    let format = ClipFormat::of(path)?;
    let name = path.display().to_string();
    let given = options
        .character
        .as_deref()
        .map(character_with_ref)
        .transpose()?;
    let mut warnings = Vec::new();
    let mut derived_character = false;
    let (clip, character) = match format {
        ClipFormat::Clip => {
            let clip = Clip::load(path)?;
            let (character, _) = match given {
                Some(g) => g,
                None => character_with_ref(&character_path(&clip.character.path))?,
            };
            (clip, character)
        }
        ClipFormat::GaitClip => {
            let gait: GaitClip = crate::files::read_ron(path)?;
            let (character, r) = match given {
                Some(g) => g,
                None => character_with_ref(&gait_character(&gait))?,
            };
            let clip =
                from_gait::clip_of_gait(&gait, &character, r).map_err(|error| ClipError::Gait {
                    path: name.clone(),
                    error,
                })?;
            (clip, character)
        }
        ClipFormat::Bvh => {
            let text = read_text(path)?;
            let parsed = bvh::parse(&text, &name)?;
            warnings.extend(parsed.warnings.iter().cloned());
            let scale = options
                .bvh_scale
                .unwrap_or_else(|| bvh::guess_scale(parsed.rest_height()));
            let (character, r) = match given {
                Some(g) => g,
                None => {
                    derived_character = true;
                    let stem = path
                        .file_stem()
                        .map_or("imported".into(), |s| s.to_string_lossy().to_string());
                    let c = bvh::character_of(&parsed, &stem, scale);
                    let problems = c.validate();
                    if !problems.is_empty() {
                        return Err(ClipError::Hierarchy {
                            path: name,
                            problems,
                        });
                    }
                    (c, CharacterRef::new(path, &text))
                }
            };
            let clip = bvh::clip_on_character(&parsed, &character, r, scale, &name)?;
            (clip, character)
        }
        ClipFormat::Keyframes => {
            let text = read_text(path)?;
            let keys: Keyframes = crate::files::from_ron(&text).map_err(|e| ClipError::Parse {
                path: name.clone(),
                message: e.to_string(),
            })?;
            // The character path is relative to the keyframe file.
            let (character, r) = match given {
                Some(g) => g,
                None => {
                    let beside = path.parent().unwrap_or(Path::new("")).join(&keys.character);
                    character_with_ref(&beside)?
                }
            };
            let clip = keys
                .clip(&character, r)
                .map_err(|error| ClipError::Keyframes {
                    path: name.clone(),
                    error,
                })?;
            (clip, character)
        }
        ClipFormat::Gltf | ClipFormat::Glb => {
            let bytes = read_bytes(path)?;
            let (character, r) = match given {
                Some(g) => g,
                None => {
                    let named = gltf::character_of_file(&bytes)
                        .ok_or_else(|| ClipError::UnnamedCharacter { path: name.clone() })?;
                    character_with_ref(&character_path(&named))?
                }
            };
            let clip = if format == ClipFormat::Glb {
                gltf::import_glb(&bytes, &character, r, &name)
            } else {
                let bin =
                    gltf::buffer_path(&bytes, path).unwrap_or_else(|| path.with_extension("bin"));
                gltf::import_gltf(&bytes, &read_bytes(&bin)?, &character, r, &name)
            }
            .map_err(|error| ClipError::Gltf {
                path: name.clone(),
                error,
            })?;
            (clip, character)
        }
    };
    clip.check_character(&character)
        .map_err(|error| ClipError::Invalid { path: name, error })?;
    Ok(Opened {
        clip,
        character,
        format,
        derived_character,
        warnings,
    })
}

/// Writes `clip` of `character` at `path` in the format its extension names (`.ron`, `.bvh`,
/// `.glb`, or `.gltf` with its `.bin` beside it), atomically; the files written.
pub fn save(clip: &Clip, character: &Character, path: &Path) -> Result<Vec<PathBuf>, ClipError> {
    let write = |p: &Path, bytes: &[u8]| {
        crate::files::write_atomic(p, bytes).map_err(|e| ClipError::Io {
            path: p.display().to_string(),
            message: e.to_string(),
        })
    };
    let extension = path
        .extension()
        .map(|e| e.to_string_lossy().to_ascii_lowercase())
        .unwrap_or_default();
    match extension.as_str() {
        "ron" => write(path, crate::files::to_ron_string(clip).as_bytes())?,
        "bvh" => write(path, bvh::export(clip, character).as_bytes())?,
        "glb" => write(path, &gltf::export_glb(clip, character))?,
        "gltf" => {
            let bin = path.with_extension("bin");
            let bin_name = bin
                .file_name()
                .map(|n| n.to_string_lossy().to_string())
                .unwrap_or_default();
            let (text, bytes) = gltf::export_gltf(clip, character, &bin_name);
            write(&bin, &bytes)?;
            write(path, text.as_bytes())?;
            return Ok(vec![bin, path.to_path_buf()]);
        }
        _ => {
            return Err(ClipError::Format {
                path: path.display().to_string(),
                found: extension,
            });
        }
    }
    Ok(vec![path.to_path_buf()])
}

/// Loads a character file, as [`open`] does (for callers that have a path and want the same
/// errors).
pub fn load_named_character(recorded: &str) -> Result<Character, ClipError> {
    let path = character_path(recorded);
    load_character(&path).map_err(|error| ClipError::Character {
        path: path.display().to_string(),
        error,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ron_files_are_told_apart_by_their_fields() {
        assert_eq!(
            ron_kind("(creature: \"monoped\", speed: 1.0)"),
            Some(ClipFormat::GaitClip)
        );
        assert_eq!(
            ron_kind("// a clip\n(\n  character: (path: \"c.ron\", hash: \"0\"),\n)"),
            Some(ClipFormat::Clip)
        );
        // A field order of someone else's: all fields are looked at.
        assert_eq!(
            ron_kind("(rate: 30.0, character: (path: \"c\", hash: \"h\"))"),
            Some(ClipFormat::Clip)
        );
        assert_eq!(ron_kind("(name: \"human\", bodies: [])"), None);
        assert_eq!(ron_kind("not ron"), None);
    }

    #[test]
    fn every_shipped_format_opens_on_its_character() {
        let root = Path::new(env!("CARGO_MANIFEST_DIR"));
        let gait = open(
            &root.join("assets/gaits/horse_trot_1ms.ron"),
            &Default::default(),
        )
        .unwrap();
        assert_eq!(gait.format, ClipFormat::GaitClip);
        assert_eq!(gait.character.name, "horse");
        assert_eq!(gait.clip.frames.len(), 30);
        let mocap = open(
            &root.join("tests/data/cmu/12_01_walk.bvh"),
            &OpenOptions {
                bvh_scale: Some(0.056),
                ..Default::default()
            },
        )
        .unwrap();
        assert_eq!(mocap.format, ClipFormat::Bvh);
        assert!(mocap.derived_character);
        assert_eq!(mocap.clip.frames.len(), 524);
        let dir = tempfile::tempdir().unwrap();
        for ext in ["ron", "bvh", "glb", "gltf"] {
            let out = dir.path().join(format!("trot.{ext}"));
            save(&gait.clip, &gait.character, &out).unwrap();
            assert!(out.exists(), "{ext}");
        }
        assert_eq!(
            ClipFormat::of(&dir.path().join("trot.ron")).unwrap(),
            ClipFormat::Clip
        );
        assert!(matches!(
            save(&gait.clip, &gait.character, &dir.path().join("trot.txt")),
            Err(ClipError::Format { .. })
        ));
    }
}
