//! Where the workbench finds the project's files: `assets/`, `characters/` and `scenes/` in the
//! working directory when it has them, else next to the sources the program was built from (so
//! the app opens on its examples wherever it is started).

use std::path::{Path, PathBuf};

/// The folder the project's files are read from: the working directory when it has `assets/`,
/// else the source folder.
pub fn root_dir() -> PathBuf {
    if Path::new("assets").is_dir() {
        PathBuf::new()
    } else {
        PathBuf::from(env!("CARGO_MANIFEST_DIR"))
    }
}

/// A path of the project's files (`assets/…`), under [`root_dir`].
pub fn root_path(relative: &str) -> PathBuf {
    root_dir().join(relative)
}

/// A path written in a file (a clip's character), resolved against the working directory,
/// then [`root_dir`].
pub fn resolve(path: &str) -> PathBuf {
    let p = PathBuf::from(path);
    if p.exists() { p } else { root_dir().join(p) }
}

/// Folder of the built-in characters.
pub fn characters_dir() -> PathBuf {
    let local = PathBuf::from("characters");
    if local.is_dir() {
        local
    } else {
        PathBuf::from(concat!(env!("CARGO_MANIFEST_DIR"), "/characters"))
    }
}

/// The `.ron` files of `dir`, sorted.
pub fn ron_files(dir: &Path) -> Vec<PathBuf> {
    let mut files: Vec<_> = std::fs::read_dir(dir)
        .map(|rd| {
            rd.filter_map(|e| e.ok())
                .map(|e| e.path())
                .filter(|p| p.extension().is_some_and(|x| x == "ron"))
                .collect()
        })
        .unwrap_or_default();
    files.sort();
    files
}

/// The character files of [`characters_dir`], sorted.
pub fn character_files() -> Vec<PathBuf> {
    ron_files(&characters_dir())
}

/// The scene files of `scenes/` of this kind (read by [`crate::scene::scene_kind`]), sorted.
pub fn scene_files(kind: crate::scene::SceneKind) -> Vec<PathBuf> {
    let local = PathBuf::from("scenes");
    let dir = if local.is_dir() {
        local
    } else {
        PathBuf::from(concat!(env!("CARGO_MANIFEST_DIR"), "/scenes"))
    };
    ron_files(&dir)
        .into_iter()
        .filter(|p| crate::scene::scene_kind(p).is_ok_and(|k| k.contains(kind)))
        .collect()
}
