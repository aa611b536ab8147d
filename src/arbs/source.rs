//! One entry for a character's source file: a character file (RON) as it is, or a skinned
//! skeleton (glTF, GLB) or a motion-capture hierarchy (BVH) made a character by the automatic
//! articulated rigid body system (Borer, Guay and Sumner 2018, §3.1), its skeleton kept for the
//! transfer of its animations. The editor, `motionlab arbs` and the fuzzed readers all open
//! character sources here, so the format is decided in one place.

use super::{ArbsError, ArbsMap, ArbsOptions, LoadOptions, Skeleton, build_character};
use crate::model::Character;
use std::path::Path;

/// What a character source file is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SourceKind {
    /// A character file (`.ron`).
    Character,
    /// A skinned skeleton (`.gltf`, `.glb`).
    Skinned,
    /// A BVH hierarchy.
    MotionCapture,
}

impl SourceKind {
    /// By the extension; a file with another one by its first bytes (`HIERARCHY`: BVH; else
    /// glTF).
    pub fn of(path: &Path, head: &[u8]) -> SourceKind {
        let extension = path
            .extension()
            .map(|e| e.to_string_lossy().to_ascii_lowercase())
            .unwrap_or_default();
        match extension.as_str() {
            "ron" => SourceKind::Character,
            "bvh" => SourceKind::MotionCapture,
            "gltf" | "glb" => SourceKind::Skinned,
            _ => Self::of_bytes(head),
        }
    }

    /// By the first bytes alone: BVH text starts with `HIERARCHY`, a character with `(` or a
    /// comment; anything else is read as glTF.
    pub fn of_bytes(head: &[u8]) -> SourceKind {
        let text = String::from_utf8_lossy(&head[..head.len().min(64)]);
        let t = text.trim_start();
        if t.to_ascii_uppercase().starts_with("HIERARCHY") {
            SourceKind::MotionCapture
        } else if t.starts_with('(') || t.starts_with("//") {
            SourceKind::Character
        } else {
            SourceKind::Skinned
        }
    }
}

/// A character opened from its source, and for a built one the skeleton it was built from
/// and the map between them.
#[derive(Clone, Debug)]
pub struct OpenedCharacter {
    pub character: Character,
    pub kind: SourceKind,
    pub built: Option<(Skeleton, ArbsMap)>,
}

/// Opens the character source at `path` (see the module docs).
pub fn open_character(
    path: &Path,
    load: &LoadOptions,
    arbs: &ArbsOptions,
) -> Result<OpenedCharacter, ArbsError> {
    let name = path.display().to_string();
    let head = std::fs::read(path)
        .map(|b| b[..b.len().min(64)].to_vec())
        .map_err(|e| ArbsError::file(&name, format!("cannot read: {e}")))?;
    let kind = SourceKind::of(path, &head);
    if kind == SourceKind::Character {
        let character = crate::model::load_character(path)
            .map_err(|e| ArbsError::file(&name, e.to_string()))?;
        return Ok(OpenedCharacter {
            character,
            kind,
            built: None,
        });
    }
    let skeleton = Skeleton::load(path, load)?;
    let (character, map) = build_character(&skeleton, arbs)?;
    Ok(OpenedCharacter {
        character,
        kind,
        built: Some((skeleton, map)),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sources_are_told_apart_by_extension_then_by_content() {
        let kind = |p: &str, head: &str| SourceKind::of(Path::new(p), head.as_bytes());
        assert_eq!(kind("a.ron", ""), SourceKind::Character);
        assert_eq!(kind("a.BVH", ""), SourceKind::MotionCapture);
        assert_eq!(kind("a.glb", "glTF"), SourceKind::Skinned);
        assert_eq!(
            kind("mocap.txt", "  HIERARCHY\nROOT"),
            SourceKind::MotionCapture
        );
        assert_eq!(kind("noext", "// a character\n("), SourceKind::Character);
        assert_eq!(kind("noext", "glTF\u{2}"), SourceKind::Skinned);
    }

    #[test]
    fn every_kind_opens() {
        let root = Path::new(env!("CARGO_MANIFEST_DIR"));
        let open = |p: &str| {
            open_character(&root.join(p), &Default::default(), &Default::default()).unwrap()
        };
        let c = open("characters/human3d.ron");
        assert_eq!((c.kind, c.built.is_none()), (SourceKind::Character, true));
        let m = open("tests/data/cmu/12_01_walk.bvh");
        assert_eq!(m.kind, SourceKind::MotionCapture);
        assert!(m.built.is_some() && m.character.bodies.len() > 5);
        let s = open("fuzz/seeds/skeleton/biped.glb");
        assert_eq!(s.kind, SourceKind::Skinned);
        assert!(s.built.is_some());
    }
}
