//! Links IPOPT (C interface `coin/IpStdCInterface.h`) when the `ipopt` feature is on, from what
//! `pkg-config --libs ipopt` reports (Debian `coinor-libipopt-dev`; scripts/setup.sh installs
//! it). Without the feature nothing is linked.
//!
//! Only IPOPT itself is linked, from pkg-config's search paths: the `.pc` file also lists the
//! libraries IPOPT was built with (LAPACK, BLAS, MUMPS, gfortran), which a static link needs but
//! whose development symlinks (`liblapack.so`, `libblas.so`) Debian does not install with
//! `coinor-libipopt-dev`. The shared `libipopt.so` records those dependencies itself.

fn main() {
    println!("cargo:rerun-if-changed=build.rs");
    println!("cargo:rerun-if-env-changed=PKG_CONFIG_PATH");
    if std::env::var_os("CARGO_FEATURE_IPOPT").is_none() {
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
}
