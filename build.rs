//! Finds IPOPT (C interface `coin/IpStdCInterface.h`) when the `ipopt` feature is on, with
//! `pkg-config` (Debian `coinor-libipopt-dev`; scripts/setup.sh installs it), and hands its
//! path to the program (`MOTIONLAB_IPOPT_LIBRARY`), which opens it at the first solve: OpenBLAS,
//! under IPOPT's MUMPS, chooses its kernels when it loads, and the program pins them first
//! (`src/blas.rs`). Nothing is linked. The shared `libipopt.so` records its own dependencies
//! (MUMPS, LAPACK, BLAS).
//!
//! It also sets `MOTIONLAB_SOLVER_HASH` (see [`solver_hash`]).

#[path = "build/source_code.rs"]
mod source_code;

/// Where a gait solve's sources start: the spacetime problems, the NLP layer and its IPOPT back
/// end, the character model, the BLAS pinning. Every `.rs` file under them is hashed, and so is
/// every top-level module they name (`crate::X`), transitively, so a new file or a new import
/// is covered without editing this list.
const SOLVER_ROOTS: &[&str] = &["src/spacetime", "src/nlp", "src/model", "src/blas.rs"];

/// Left out of the hash: test sources (file names containing `test`), which are compiled into
/// test binaries only and cannot change a solve's result.
fn excluded(path: &std::path::Path) -> bool {
    path.file_name()
        .is_some_and(|n| n.to_string_lossy().contains("test"))
}

/// The `.rs` files of a module root (a folder, recursively, or one file), sorted.
fn module_files(root: &std::path::Path, out: &mut Vec<std::path::PathBuf>) {
    if root.is_dir() {
        let mut entries: Vec<_> = std::fs::read_dir(root)
            .unwrap_or_else(|e| panic!("reading {}: {e}", root.display()))
            .map(|e| e.expect("a directory entry").path())
            .collect();
        entries.sort();
        for e in entries {
            module_files(&e, out);
        }
    } else if root.extension().is_some_and(|x| x == "rs") && !excluded(root) {
        out.push(root.to_path_buf());
    }
}

/// The solver's sources: [`SOLVER_ROOTS`] and the modules they name, transitively, minus
/// [`excluded`] files; paths relative to the package, sorted.
fn solver_sources() -> Vec<String> {
    use std::path::{Path, PathBuf};
    let mut roots: Vec<PathBuf> = SOLVER_ROOTS.iter().map(PathBuf::from).collect();
    let mut files: Vec<PathBuf> = Vec::new();
    let mut i = 0;
    while i < roots.len() {
        let mut found = Vec::new();
        module_files(&roots[i], &mut found);
        i += 1;
        for f in found {
            let text = std::fs::read_to_string(&f)
                .unwrap_or_else(|e| panic!("reading {}: {e}", f.display()));
            for m in source_code::names_after(&source_code::code_of(&text), "crate::") {
                let dir = Path::new("src").join(&m);
                let file = Path::new("src").join(format!("{m}.rs"));
                for root in [dir, file] {
                    if root.exists() && !roots.contains(&root) {
                        roots.push(root);
                    }
                }
            }
            if !files.contains(&f) {
                files.push(f);
            }
        }
    }
    for root in &roots {
        println!("cargo:rerun-if-changed={}", root.display());
    }
    println!("cargo:rerun-if-changed=build/source_code.rs");
    let mut names: Vec<String> = files
        .iter()
        .map(|f| f.to_string_lossy().replace('\\', "/"))
        .collect();
    names.sort();
    names
}

/// `MOTIONLAB_SOLVER_HASH`: an xxh3-128 of `Cargo.lock`, the [`solver_sources`], the compiler's
/// version and the IPOPT version. Discovery sample clips are named by it (with the character
/// file and the solve's arguments), so a build of the same solver source, on this machine or a
/// fresh one, reuses them, and any change to the solver solves afresh. The files hashed are
/// listed in `MOTIONLAB_SOLVER_SOURCES` (separated by `;`) for the test that checks them.
fn solver_hash(ipopt_version: &str) -> String {
    let mut h = xxhash_rust::xxh3::Xxh3::new();
    let sources = solver_sources();
    println!("cargo:rerun-if-changed=Cargo.lock");
    for file in std::iter::once("Cargo.lock").chain(sources.iter().map(String::as_str)) {
        let bytes = std::fs::read(file).unwrap_or_else(|e| panic!("reading {file}: {e}"));
        h.update(file.as_bytes());
        h.update(&(bytes.len() as u64).to_le_bytes());
        h.update(&bytes);
    }
    println!(
        "cargo:rustc-env=MOTIONLAB_SOLVER_SOURCES={}",
        sources.join(";")
    );
    let rustc = std::env::var("RUSTC").unwrap_or_else(|_| "rustc".into());
    let version = std::process::Command::new(rustc)
        .arg("-V")
        .output()
        .map(|o| o.stdout)
        .unwrap_or_default();
    h.update(&version);
    h.update(ipopt_version.as_bytes());
    format!("{:032x}", h.digest128())
}

fn main() {
    println!("cargo:rerun-if-changed=build.rs");
    println!("cargo:rerun-if-env-changed=PKG_CONFIG_PATH");
    if std::env::var_os("CARGO_FEATURE_IPOPT").is_none() {
        println!(
            "cargo:rustc-env=MOTIONLAB_SOLVER_HASH={}",
            solver_hash("none")
        );
        return;
    }
    let lib = pkg_config::Config::new().cargo_metadata(false).probe("ipopt").unwrap_or_else(|e| {
        panic!(
            "the `ipopt` feature needs IPOPT's development files, found by pkg-config as `ipopt`: \
             install them with `apt-get install coinor-libipopt-dev` (scripts/setup.sh does), or \
             build without the feature (--no-default-features --features gui).\n{e}"
        )
    });
    // IPOPT is opened at run time (`nlp::ipopt`), after the BLAS kernels are pinned; the path
    // pkg-config reports is tried first.
    if let Some(path) = lib
        .link_paths
        .iter()
        .map(|p| p.join("libipopt.so"))
        .find(|p| p.exists())
    {
        println!("cargo:rustc-env=MOTIONLAB_IPOPT_LIBRARY={}", path.display());
    }
    println!(
        "cargo:rustc-env=MOTIONLAB_SOLVER_HASH={}",
        solver_hash(&lib.version)
    );
}
