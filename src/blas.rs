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
//! OpenBLAS reads `OPENBLAS_CORETYPE` once, when it loads, before `main`. So [`pin_kernels`]
//! sets it to `Haswell` on a CPU with AVX2 and FMA and starts the program again in place
//! (`execv`, same arguments); the variable is then inherited by the program's own child
//! processes (discovery samples). A value the user set is kept, and a CPU without AVX2 and FMA
//! keeps OpenBLAS's own choice.

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

/// Pins OpenBLAS's kernels (see the module docs): when `OPENBLAS_CORETYPE` is unset and the CPU
/// has AVX2 and FMA, sets it and replaces this process with a fresh start of the same program.
/// Returns (and changes nothing) when the variable is already set, the CPU has no pinned
/// family, or the program cannot be started again. Call it first thing in `main`.
pub fn pin_kernels() {
    if std::env::var_os(CORETYPE_VARIABLE).is_some() {
        return;
    }
    let Some(core) = pinned_coretype() else {
        return;
    };
    let Ok(exe) = std::env::current_exe() else {
        return;
    };
    #[cfg(unix)]
    {
        use std::os::unix::process::CommandExt;
        let mut args = std::env::args_os();
        let arg0 = args.next().unwrap_or_else(|| exe.clone().into_os_string());
        // `exec` only returns on failure; the run then goes on unpinned in this process.
        let _ = std::process::Command::new(&exe)
            .arg0(arg0)
            .args(args)
            .env(CORETYPE_VARIABLE, core)
            .exec();
    }
}
