//! The BLAS kernels under the spacetime solver's IPOPT, pinned so that a solve takes the same
//! path on every x86-64 machine with AVX2 and FMA.
//!
//! IPOPT factorizes its KKT systems with MUMPS, whose dense blocks go through the system BLAS
//! (Debian's serial OpenBLAS, scripts/setup.sh). OpenBLAS picks its kernels from the CPU when it
//! loads: Haswell kernels on an AVX2 machine or an AMD EPYC with AVX-512, SkylakeX kernels on an
//! Intel one with AVX-512. The kernels round differently, so IPOPT's iterates drift apart and a
//! long solve ends elsewhere: the monoped hop at 0.5 m/s (`gait characters/monoped.ron --speed
//! 0.5`) costs 7.906 with the Haswell kernels and 8.073 with the SkylakeX ones, after different
//! iteration counts (measured on one machine with `OPENBLAS_CORETYPE`).
//!
//! OpenBLAS reads `OPENBLAS_CORETYPE` once, when it loads. IPOPT (and with it MUMPS and
//! OpenBLAS) is therefore opened at the first solve, not linked at start
//! (`crate::nlp::solve`), and [`pin_kernels_in_process`] sets the variable just before: every
//! process that solves is pinned the same way, the program, its child processes (which inherit
//! the variable) and test binaries alike. A value the user set is kept when the CPU can run
//! it, and a CPU without AVX2 and FMA keeps OpenBLAS's own choice. A forced family the CPU
//! cannot run (`SkylakeX` on a CPU without AVX-512) is replaced, with a warning, by the family
//! the CPU would be pinned to: Debian's OpenBLAS does not check a forced family against the CPU
//! and stops the process with an illegal instruction at its first kernel call
//! ([`runnable_here`]). [`loaded_core`] asks the loaded OpenBLAS which family it runs.

/// The variable OpenBLAS reads to override its CPU detection.
pub const CORETYPE_VARIABLE: &str = "OPENBLAS_CORETYPE";

/// The kernel family every AVX2 + FMA machine uses.
pub const PINNED_CORETYPE: &str = "Haswell";

/// The kernel family to pin on this CPU, if any.
pub fn pinned_coretype() -> Option<&'static str> {
    #[cfg(target_arch = "x86_64")]
    {
        if std::arch::is_x86_feature_detected!("avx2") && std::arch::is_x86_feature_detected!("fma")
        {
            return Some(PINNED_CORETYPE);
        }
    }
    None
}

/// Whether this CPU has the instructions OpenBLAS's kernel family `core` needs (names as
/// `OPENBLAS_CORETYPE` takes them, any case). The AVX-512 families need AVX-512 F, CD, BW, DQ
/// and VL (Cooper Lake and Sapphire Rapids BF16 too), Haswell and Zen need AVX2 and FMA, Sandy
/// Bridge AVX; the older families run on any x86-64. A name OpenBLAS does not know is left to
/// OpenBLAS (it ignores it and detects the CPU).
pub fn runnable_here(core: &str) -> bool {
    #[cfg(target_arch = "x86_64")]
    {
        use std::arch::is_x86_feature_detected as has;
        let avx512 = || {
            has!("avx512f")
                && has!("avx512cd")
                && has!("avx512bw")
                && has!("avx512dq")
                && has!("avx512vl")
        };
        match core.to_ascii_lowercase().as_str() {
            "skylakex" => avx512(),
            "cooperlake" | "sapphirerapids" => avx512() && has!("avx512bf16"),
            "haswell" | "zen" => has!("avx2") && has!("fma"),
            "sandybridge" => has!("avx"),
            _ => true,
        }
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        let _ = core;
        true
    }
}

/// Pins OpenBLAS's kernels (see the module docs): when `OPENBLAS_CORETYPE` is unset and the CPU
/// has AVX2 and FMA, sets it to [`PINNED_CORETYPE`]; when it names a family this CPU cannot
/// run, replaces it (by the pinned family, or by OpenBLAS's own detection without AVX2) and says
/// so on stderr. It must run before OpenBLAS loads; the solver calls it before opening IPOPT,
/// and `main` first thing so that child processes inherit it.
pub fn pin_kernels_in_process() {
    static PINNED: std::sync::Once = std::sync::Once::new();
    PINNED.call_once(|| {
        let forced = std::env::var_os(CORETYPE_VARIABLE).map(|v| v.to_string_lossy().into_owned());
        let core = match forced {
            Some(forced) if runnable_here(&forced) => return,
            Some(forced) => {
                let instead = pinned_coretype();
                eprintln!(
                    "warning: {CORETYPE_VARIABLE}={forced} names BLAS kernels this CPU cannot \
                     run (OpenBLAS would stop at an illegal instruction); using {}",
                    instead.unwrap_or("the kernels OpenBLAS detects")
                );
                instead
            }
            None => match pinned_coretype() {
                Some(core) => Some(core),
                None => return,
            },
        };
        // SAFETY: the standard library serialises its own reads and writes of the environment;
        // no C code of this process reads it concurrently (OpenBLAS, the one reader of this
        // variable, is not loaded yet: it loads with IPOPT, after this).
        unsafe {
            match core {
                Some(core) => std::env::set_var(CORETYPE_VARIABLE, core),
                None => std::env::remove_var(CORETYPE_VARIABLE),
            }
        }
    });
}

/// The kernel family the OpenBLAS loaded in this process runs (`openblas_get_corename`), or
/// `None` when no OpenBLAS is loaded (no solve yet, or another BLAS).
pub fn loaded_core() -> Option<String> {
    #[cfg(unix)]
    {
        use libloading::os::unix::{Library, RTLD_NOW};
        // Only a library already loaded is looked at (RTLD_NOLOAD): this never loads OpenBLAS.
        const RTLD_NOLOAD: std::ffi::c_int = 0x4;
        for name in ["libblas.so.3", "libopenblas.so.0"] {
            // SAFETY: with RTLD_NOLOAD nothing new is loaded or initialised.
            let Ok(lib) = (unsafe { Library::open(Some(name), RTLD_NOW | RTLD_NOLOAD) }) else {
                continue;
            };
            // SAFETY: `char *openblas_get_corename(void)` returns a static C string.
            let name = unsafe {
                let Ok(f) = lib.get::<unsafe extern "C" fn() -> *const std::ffi::c_char>(
                    b"openblas_get_corename\0",
                ) else {
                    continue;
                };
                let p = f();
                if p.is_null() {
                    continue;
                }
                std::ffi::CStr::from_ptr(p).to_string_lossy().into_owned()
            };
            return Some(name);
        }
    }
    None
}
