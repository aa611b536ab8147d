//! Helpers of the command-line flag tests (`tests/flags*.rs`): the source tree's files, fields
//! of a command's output, failures, and a job interrupted at its first checkpoint.

use super::{stderr, stdout};
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

pub const ROOT: &str = env!("CARGO_MANIFEST_DIR");
pub const BACKFLIP: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/scenes/backflip2d.ron");
pub const HUMAN2D: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/characters/human2d.ron");
pub const HUMAN3D: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/characters/human3d.ron");
pub const MONOPED: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/characters/monoped.ron");

/// The value after `key: ` on the one line that starts with it.
pub fn field(out: &str, key: &str) -> String {
    let prefix = format!("{key}: ");
    let lines: Vec<&str> = out.lines().filter(|l| l.starts_with(&prefix)).collect();
    assert_eq!(lines.len(), 1, "expected one `{key}:` line in:\n{out}");
    lines[0][prefix.len()..].to_string()
}

/// The value after `key ` on the one line that starts with it.
pub fn value(out: &str, key: &str) -> String {
    let prefix = format!("{key} ");
    let lines: Vec<&str> = out.lines().filter(|l| l.starts_with(&prefix)).collect();
    assert_eq!(lines.len(), 1, "expected one `{key}` line in:\n{out}");
    lines[0][prefix.len()..].to_string()
}

/// The command failed with `expected` in its error, and did not panic.
pub fn assert_fails_with(o: &Output, expected: &str) {
    let err = stderr(o);
    assert!(
        !o.status.success(),
        "expected a failure with {expected:?}, but it succeeded:\n{}",
        stdout(o)
    );
    assert!(err.contains(expected), "expected {expected:?} in:\n{err}");
    assert!(!err.contains("panicked"), "{err}");
}

pub fn close(a: f64, b: f64) -> bool {
    (a - b).abs() <= 1e-9 * a.abs().max(b.abs()).max(1.0)
}

/// `path` as the &str the command line takes.
pub fn s(path: &Path) -> &str {
    path.to_str().unwrap()
}

/// A copy of `scenes/<name>` in `dir` with its character path made absolute, for commands that
/// write beside the scene (`prepare` keeps its best seed in `<scene>.seed.txt`).
pub fn scene_copy(dir: &Path, name: &str) -> PathBuf {
    let text = std::fs::read_to_string(Path::new(ROOT).join("scenes").join(name))
        .unwrap()
        .replace("../characters/", &format!("{ROOT}/characters/"));
    let path = dir.join(name);
    std::fs::write(&path, text).unwrap();
    path
}

/// Runs `motionlab ARGS` as a child process until it has written `dir/checkpoint.ron` (a job
/// checkpoints after every step), then kills it. True when the kill landed mid-run: the
/// checkpoint is there to resume from and no result was written. False when the child had
/// finished first; its checkpoint and result are then removed, for the caller to write a
/// checkpoint of its own.
pub fn interrupt_at_first_checkpoint(args: &[&str], dir: &Path) -> bool {
    let mut child = Command::new(env!("CARGO_BIN_EXE_motionlab"))
        .args(args)
        .current_dir(ROOT)
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .expect("starting motionlab");
    let checkpoint = dir.join("checkpoint.ron");
    let start = Instant::now();
    loop {
        if checkpoint.exists() {
            child.kill().unwrap();
            break;
        }
        if let Some(status) = child.try_wait().unwrap() {
            assert!(status.success(), "{args:?} failed: {status}");
            break;
        }
        if start.elapsed() > Duration::from_secs(300) {
            child.kill().unwrap();
            child.wait().unwrap();
            panic!("{args:?} wrote no checkpoint in 300 s");
        }
        std::thread::sleep(Duration::from_millis(5));
    }
    child.wait().unwrap();
    let result = dir.join("result.ron");
    if checkpoint.exists() && !result.exists() {
        true
    } else {
        let _ = std::fs::remove_file(&checkpoint);
        let _ = std::fs::remove_file(&result);
        false
    }
}
