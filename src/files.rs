//! Result and checkpoint files: written atomically (a temporary file in the same folder, then a
//! rename), so a crash never leaves half a file, and read back as RON with errors that name the
//! file and the line (docs/jobs-and-files.md, "Atomic writes"). Used by the jobs, the model's
//! character files and every command that saves a result.

use serde::Serialize;
use std::path::Path;
use std::sync::atomic::{AtomicU64, Ordering};

/// Writes `bytes` to `path` atomically: a temporary file in the same folder, flushed, then
/// renamed over the destination. Readers see the old file or the new one, never a mix.
pub fn write_atomic(path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    use std::io::Write;
    let dir = path
        .parent()
        .filter(|p| !p.as_os_str().is_empty())
        .unwrap_or(Path::new("."));
    std::fs::create_dir_all(dir)?;
    static COUNTER: AtomicU64 = AtomicU64::new(0);
    let name = path.file_name().and_then(|n| n.to_str()).unwrap_or("out");
    let tmp = dir.join(format!(
        ".{name}.{}.{}.tmp",
        std::process::id(),
        COUNTER.fetch_add(1, Ordering::Relaxed)
    ));
    let result = (|| {
        let mut f = std::fs::File::create(&tmp)?;
        f.write_all(bytes)?;
        f.sync_all()?;
        std::fs::rename(&tmp, path)
    })();
    if result.is_err() {
        let _ = std::fs::remove_file(&tmp);
    }
    result
}

/// Serializes `value` as pretty RON and writes it atomically.
pub fn write_ron<T: Serialize>(path: &Path, value: &T) -> std::io::Result<()> {
    let text = ron::ser::to_string_pretty(value, ron::ser::PrettyConfig::default())
        .map_err(std::io::Error::other)?;
    write_atomic(path, text.as_bytes())
}

/// The RON text [`write_ron`] writes.
pub fn to_ron_string<T: Serialize>(value: &T) -> String {
    ron::ser::to_string_pretty(value, ron::ser::PrettyConfig::default())
        .expect("plain data serialises")
}

/// Reads a RON file written by [`write_ron`]; errors name the file, and the line of bad RON.
pub fn read_ron<T: serde::de::DeserializeOwned>(path: &Path) -> anyhow::Result<T> {
    let text =
        std::fs::read_to_string(path).map_err(|e| anyhow::anyhow!("{}: {e}", path.display()))?;
    from_ron(&text)
        .map_err(|e| anyhow::anyhow!("{}:{}: {}", path.display(), e.span.start.line, e.code))
}

/// Parses RON text the way every reader of the project does: optional fields may be written
/// bare (`kp: 1000.0` for `kp: Some(1000.0)`), as in the character files.
pub fn from_ron<T: serde::de::DeserializeOwned>(text: &str) -> ron::error::SpannedResult<T> {
    ron::Options::default()
        .with_default_extension(ron::extensions::Extensions::IMPLICIT_SOME)
        .from_str(text)
}
