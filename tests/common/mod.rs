//! Helpers shared by the command-line tests: run the binary from the source tree and read its
//! output.
#![allow(dead_code)]

use std::process::{Command, Output};

pub mod cli;
#[cfg(feature = "ipopt")]
pub mod gait;

pub fn motionlab(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_motionlab"))
        .args(args)
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .output()
        .expect("running motionlab")
}

pub fn stdout(o: &Output) -> String {
    String::from_utf8(o.stdout.clone()).unwrap()
}

pub fn stderr(o: &Output) -> String {
    String::from_utf8(o.stderr.clone()).unwrap()
}

pub fn assert_success(o: &Output, what: &str) {
    assert!(
        o.status.success(),
        "{what}: {:?}\nstdout:\n{}\nstderr:\n{}",
        o.status,
        stdout(o),
        stderr(o)
    );
}
