//! Links IPOPT (C interface `coin/IpStdCInterface.h`) when the `ipopt` feature is on, from what
//! `pkg-config --libs ipopt` reports (Debian `coinor-libipopt-dev`; scripts/setup.sh installs
//! it). Without the feature nothing is linked.
//!
//! Only IPOPT itself is linked, from pkg-config's search paths: the `.pc` file also lists the
//! libraries IPOPT was built with (LAPACK, BLAS, MUMPS, gfortran), which a static link needs but
//! whose development symlinks (`liblapack.so`, `libblas.so`) Debian does not install with
//! `coinor-libipopt-dev`. The shared `libipopt.so` records those dependencies itself.
//!
//! It also sets `MOTIONLAB_SOLVER_HASH` (see [`solver_hash`]).

/// The sources a gait solve's result depends on (the NLP, its derivatives, the creature model,
/// the IPOPT back end and the gait job that sets the solver's options).
const SOLVER_SOURCES: &[&str] = &[
    "Cargo.lock",
    "src/spacetime/mod.rs",
    "src/spacetime/gait/mod.rs",
    "src/spacetime/gait/problem.rs",
    "src/spacetime/gait/clip.rs",
    "src/spacetime/gait/solve.rs",
    "src/spacetime/gait/audit.rs",
    "src/spacetime/dynamics.rs",
    "src/spacetime/skeleton.rs",
    "src/spacetime/creature.rs",
    "src/model/mod.rs",
    "src/model/load.rs",
    "src/spacetime/rotation.rs",
    "src/spacetime/morphology.rs",
    "src/nlp/autodiff.rs",
    "src/nlp/tape.rs",
    "src/nlp/mod.rs",
    "src/nlp/ipopt.rs",
    "src/spacetime/job/mod.rs",
    "src/spacetime/job/run.rs",
];

/// `MOTIONLAB_SOLVER_HASH`: an xxh3-128 of [`SOLVER_SOURCES`], the compiler's version and the
/// IPOPT version. Discovery sample clips are named by it (with the character file and the solve's
/// arguments), so a build of the same solver source, on this machine or a fresh one, reuses
/// them, and any change to the solver solves afresh.
fn solver_hash(ipopt_version: &str) -> String {
    let mut h = xxhash_rust::xxh3::Xxh3::new();
    for file in SOLVER_SOURCES {
        println!("cargo:rerun-if-changed={file}");
        let bytes = std::fs::read(file).unwrap_or_else(|e| panic!("reading {file}: {e}"));
        h.update(file.as_bytes());
        h.update(&(bytes.len() as u64).to_le_bytes());
        h.update(&bytes);
    }
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
    for path in &lib.link_paths {
        println!("cargo:rustc-link-search=native={}", path.display());
    }
    let name = lib
        .libs
        .iter()
        .find(|l| l.as_str() == "ipopt")
        .map(String::as_str)
        .unwrap_or("ipopt");
    println!("cargo:rustc-link-lib=dylib={name}");
    println!(
        "cargo:rustc-env=MOTIONLAB_SOLVER_HASH={}",
        solver_hash(&lib.version)
    );
}
