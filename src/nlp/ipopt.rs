//! IPOPT as the solver of [`NlpProblem`]s (McIntosh 2011, thesis §3.2.1: "IPOPT out-performed every
//! commercial package"), through IPOPT's C interface `coin/IpStdCInterface.h` (Debian
//! `coinor-libipopt-dev`, IPOPT 3.11 with MUMPS; found by `build.rs` with `pkg-config` when the
//! `ipopt` feature is on, and opened at the first solve, after the BLAS kernels are pinned; or
//! the library [`LIBRARY_VARIABLE`] names, IPOPT 3.11 to 3.14).
//!
//! The declarations below are written against that header. The wrapper is safe: sizes and
//! sparsity are checked before IPOPT sees them, callbacks catch panics (a panicking problem stops
//! the solve with [`SolveStatus::CallbackPanicked`]), every outcome is an [`NlpSolution`], and
//! solves are serialized by a process-wide lock because MUMPS is not thread-safe (IPOPT's own
//! advice; parallel batches of solves need separate processes until a thread-safe linear solver
//! is available).

use super::{
    Bounds, Iterate, NlpError, NlpProblem, NlpSolution, OptionValue, SolveStatus, SolverOptions,
};
use std::cell::{Cell, RefCell};
use std::ffi::{CString, c_char, c_int, c_void};
use std::sync::Mutex;
use std::sync::atomic::Ordering;
use std::time::Instant;

type Number = f64;
type Index = c_int;
type Int = c_int;
type UserDataPtr = *mut c_void;
/// IPOPT 3.11–3.13's `Bool` (an `int`). IPOPT 3.14's is C's `bool`, passed and returned in the
/// low byte of the same register, so a `Bool` this side reads from IPOPT is tested on its low
/// byte only ([`returned_true`]); the `new_x` flags IPOPT passes in are not read.
type Bool = c_int;

/// Whether IPOPT returned true, whichever IPOPT's `Bool` is (see [`Bool`]).
fn returned_true(b: Bool) -> bool {
    b & 0xff != 0
}

#[repr(C)]
struct IpoptProblemInfo {
    _private: [u8; 0],
}
type IpoptProblem = *mut IpoptProblemInfo;

type EvalFCb = unsafe extern "C" fn(
    n: Index,
    x: *mut Number,
    new_x: Bool,
    obj_value: *mut Number,
    user_data: UserDataPtr,
) -> Bool;
type EvalGradFCb = unsafe extern "C" fn(
    n: Index,
    x: *mut Number,
    new_x: Bool,
    grad_f: *mut Number,
    user_data: UserDataPtr,
) -> Bool;
type EvalGCb = unsafe extern "C" fn(
    n: Index,
    x: *mut Number,
    new_x: Bool,
    m: Index,
    g: *mut Number,
    user_data: UserDataPtr,
) -> Bool;
type EvalJacGCb = unsafe extern "C" fn(
    n: Index,
    x: *mut Number,
    new_x: Bool,
    m: Index,
    nele_jac: Index,
    i_row: *mut Index,
    j_col: *mut Index,
    values: *mut Number,
    user_data: UserDataPtr,
) -> Bool;
type EvalHCb = unsafe extern "C" fn(
    n: Index,
    x: *mut Number,
    new_x: Bool,
    obj_factor: Number,
    m: Index,
    lambda: *mut Number,
    new_lambda: Bool,
    nele_hess: Index,
    i_row: *mut Index,
    j_col: *mut Index,
    values: *mut Number,
    user_data: UserDataPtr,
) -> Bool;
type IntermediateCb = unsafe extern "C" fn(
    alg_mod: Index,
    iter_count: Index,
    obj_value: Number,
    inf_pr: Number,
    inf_du: Number,
    mu: Number,
    d_norm: Number,
    regularization_size: Number,
    alpha_du: Number,
    alpha_pr: Number,
    ls_trials: Index,
    user_data: UserDataPtr,
) -> Bool;

type CreateIpoptProblemFn = unsafe extern "C" fn(
    n: Index,
    x_l: *mut Number,
    x_u: *mut Number,
    m: Index,
    g_l: *mut Number,
    g_u: *mut Number,
    nele_jac: Index,
    nele_hess: Index,
    index_style: Index,
    eval_f: Option<EvalFCb>,
    eval_g: Option<EvalGCb>,
    eval_grad_f: Option<EvalGradFCb>,
    eval_jac_g: Option<EvalJacGCb>,
    eval_h: Option<EvalHCb>,
) -> IpoptProblem;
type FreeIpoptProblemFn = unsafe extern "C" fn(ipopt_problem: IpoptProblem);
type AddIpoptStrOptionFn = unsafe extern "C" fn(
    ipopt_problem: IpoptProblem,
    keyword: *mut c_char,
    val: *mut c_char,
) -> Bool;
type AddIpoptNumOptionFn =
    unsafe extern "C" fn(ipopt_problem: IpoptProblem, keyword: *mut c_char, val: Number) -> Bool;
type AddIpoptIntOptionFn =
    unsafe extern "C" fn(ipopt_problem: IpoptProblem, keyword: *mut c_char, val: Int) -> Bool;
type SetIntermediateCallbackFn = unsafe extern "C" fn(
    ipopt_problem: IpoptProblem,
    intermediate_cb: Option<IntermediateCb>,
) -> Bool;
/// Returns `enum ApplicationReturnStatus` (an int-sized C enum).
type IpoptSolveFn = unsafe extern "C" fn(
    ipopt_problem: IpoptProblem,
    x: *mut Number,
    g: *mut Number,
    obj_val: *mut Number,
    mult_g: *mut Number,
    mult_x_l: *mut Number,
    mult_x_u: *mut Number,
    user_data: UserDataPtr,
) -> c_int;

/// IPOPT's C interface, loaded at the first solve (see [`api`]).
struct Api {
    create: CreateIpoptProblemFn,
    free: FreeIpoptProblemFn,
    add_str: AddIpoptStrOptionFn,
    add_num: AddIpoptNumOptionFn,
    add_int: AddIpoptIntOptionFn,
    set_intermediate: SetIntermediateCallbackFn,
    solve: IpoptSolveFn,
    /// Keeps the library loaded for the life of the process.
    _library: libloading::Library,
}

/// The variable that names another IPOPT library to open at run time (an IPOPT 3.12–3.14, or
/// one built with HSL's solvers for `--ipopt linear_solver=ma57`): when set, only that library
/// is tried.
pub const LIBRARY_VARIABLE: &str = "MOTIONLAB_IPOPT_LIBRARY";

/// The library the user named ([`LIBRARY_VARIABLE`]), else where `build.rs` found IPOPT
/// (pkg-config), then the names the dynamic loader searches.
fn library_candidates() -> Vec<String> {
    if let Some(path) = std::env::var_os(LIBRARY_VARIABLE) {
        return vec![format!("{}", std::path::Path::new(&path).display())];
    }
    let mut out = Vec::new();
    if let Some(path) = option_env!("MOTIONLAB_IPOPT_LIBRARY") {
        out.push(path.to_string());
    }
    out.extend(["libipopt.so.1".to_string(), "libipopt.so".to_string()]);
    out
}

/// IPOPT's C interface. The library is opened on first use, after
/// [`crate::blas::pin_kernels_in_process`] has set OpenBLAS's kernel family: OpenBLAS (under
/// IPOPT's MUMPS) reads it once, when it loads, so every process that solves (the program,
/// its child processes, test binaries) takes the same BLAS path.
fn api() -> Result<&'static Api, NlpError> {
    static API: std::sync::OnceLock<Result<Api, NlpError>> = std::sync::OnceLock::new();
    API.get_or_init(|| {
        crate::blas::pin_kernels_in_process();
        let mut errors = Vec::new();
        for name in library_candidates() {
            // SAFETY: IPOPT's shared library runs no initialisation with preconditions of ours.
            match unsafe { libloading::Library::new(&name) } {
                Ok(library) => {
                    return load_api(library)
                        .map_err(|e| NlpError::SolverUnavailable(format!("{name}: {e}")));
                }
                // The loader's message names the file when it could not be found.
                Err(e) if e.to_string().contains(&name) => errors.push(e.to_string()),
                Err(e) => errors.push(format!("{name}: {e}")),
            }
        }
        let named = match std::env::var_os(LIBRARY_VARIABLE) {
            Some(_) => format!("{LIBRARY_VARIABLE} names a library that did not open: "),
            None => String::new(),
        };
        Err(NlpError::SolverUnavailable(format!(
            "{named}{}",
            errors.join("; ")
        )))
    })
    .as_ref()
    .map_err(Clone::clone)
}

fn load_api(library: libloading::Library) -> Result<Api, libloading::Error> {
    // SAFETY: each symbol is declared above with the signature of `coin/IpStdCInterface.h`.
    unsafe {
        Ok(Api {
            create: *library.get::<CreateIpoptProblemFn>(b"CreateIpoptProblem\0")?,
            free: *library.get::<FreeIpoptProblemFn>(b"FreeIpoptProblem\0")?,
            add_str: *library.get::<AddIpoptStrOptionFn>(b"AddIpoptStrOption\0")?,
            add_num: *library.get::<AddIpoptNumOptionFn>(b"AddIpoptNumOption\0")?,
            add_int: *library.get::<AddIpoptIntOptionFn>(b"AddIpoptIntOption\0")?,
            set_intermediate: *library
                .get::<SetIntermediateCallbackFn>(b"SetIntermediateCallback\0")?,
            solve: *library.get::<IpoptSolveFn>(b"IpoptSolve\0")?,
            _library: library,
        })
    }
}

/// MUMPS (IPOPT's linear solver here) keeps global state: one solve at a time per process.
static SOLVER_LOCK: Mutex<()> = Mutex::new(());

/// IPOPT treats |bound| ≥ 1e19 as infinite; finite stand-ins keep ∞ out of its arithmetic.
const INFINITE_BOUND: f64 = 1e20;

/// Everything the callbacks need, reached through IPOPT's `user_data` pointer.
struct CallbackState<'a> {
    problem: &'a dyn NlpProblem,
    n: usize,
    m: usize,
    jacobian: Vec<(Index, Index)>,
    /// Lower triangle (row ≥ col), as IPOPT expects for the symmetric Hessian.
    hessian: Vec<(Index, Index)>,
    iterations: Cell<usize>,
    guard: super::callbacks::Guard,
    options: &'a SolverOptions,
    bounds: &'a Bounds,
    /// The x of the last gradient evaluation: IPOPT evaluates ∇f only at accepted iterates, so at
    /// the per-iteration callback this is the current iterate.
    gradient_x: RefCell<Vec<f64>>,
    /// The best iterate within each level of `options.keep_best`.
    best: RefCell<Vec<Option<Iterate>>>,
    /// μ at the last regular iteration.
    barrier: Cell<f64>,
}

impl CallbackState<'_> {
    /// Keeps the current iterate (objective `objective`) for every `keep_best` level it is
    /// within and improves on.
    fn keep_if_best(&self, iteration: usize, objective: f64) {
        let x = self.gradient_x.borrow();
        super::callbacks::keep_if_best(
            &self.best,
            &self.options.keep_best,
            self.problem,
            self.bounds,
            iteration,
            objective,
            &x,
        );
    }

    /// Runs one callback body, timed into `which` of the callback times: false if it fails or
    /// panics, and after any earlier panic.
    fn guard(
        &self,
        which: fn(&mut super::CallbackTimes) -> &mut super::CallbackTime,
        body: impl FnOnce() -> bool,
    ) -> Bool {
        self.guard.run(which, body) as Bool
    }
}

/// # Safety
/// `user_data` is the `CallbackState` passed to `IpoptSolve`, alive for the whole solve.
unsafe fn state<'a>(user_data: UserDataPtr) -> &'a CallbackState<'a> {
    unsafe { &*(user_data as *const CallbackState<'a>) }
}

/// # Safety
/// `p` points to `len` valid values (or `len` is 0).
unsafe fn slice<'a>(p: *const Number, len: usize) -> &'a [Number] {
    if len == 0 {
        &[]
    } else {
        unsafe { std::slice::from_raw_parts(p, len) }
    }
}

/// # Safety
/// As [`slice`], writable.
unsafe fn slice_mut<'a>(p: *mut Number, len: usize) -> &'a mut [Number] {
    if len == 0 {
        &mut []
    } else {
        unsafe { std::slice::from_raw_parts_mut(p, len) }
    }
}

unsafe extern "C" fn eval_f(
    _n: Index,
    x: *mut Number,
    _new_x: Bool,
    obj: *mut Number,
    user_data: UserDataPtr,
) -> Bool {
    let s = unsafe { state(user_data) };
    let x = unsafe { slice(x, s.n) };
    s.guard(
        |t| &mut t.objective,
        || match s.problem.objective(x) {
            Ok(v) if v.is_finite() => {
                unsafe { *obj = v };
                true
            }
            _ => false,
        },
    )
}

unsafe extern "C" fn eval_grad_f(
    _n: Index,
    x: *mut Number,
    _new_x: Bool,
    grad: *mut Number,
    user_data: UserDataPtr,
) -> Bool {
    let s = unsafe { state(user_data) };
    let (x, grad) = unsafe { (slice(x, s.n), slice_mut(grad, s.n)) };
    if !s.options.keep_best.is_empty() {
        s.gradient_x.borrow_mut().copy_from_slice(x);
    }
    s.guard(
        |t| &mut t.gradient,
        || s.problem.objective_gradient(x, grad).is_ok() && grad.iter().all(|v| v.is_finite()),
    )
}

unsafe extern "C" fn eval_g(
    _n: Index,
    x: *mut Number,
    _new_x: Bool,
    _m: Index,
    g: *mut Number,
    user_data: UserDataPtr,
) -> Bool {
    let s = unsafe { state(user_data) };
    let (x, g) = unsafe { (slice(x, s.n), slice_mut(g, s.m)) };
    s.guard(
        |t| &mut t.constraints,
        || s.problem.constraints(x, g).is_ok() && g.iter().all(|v| v.is_finite()),
    )
}

unsafe extern "C" fn eval_jac_g(
    _n: Index,
    x: *mut Number,
    _new_x: Bool,
    _m: Index,
    nele_jac: Index,
    i_row: *mut Index,
    j_col: *mut Index,
    values: *mut Number,
    user_data: UserDataPtr,
) -> Bool {
    let s = unsafe { state(user_data) };
    let nnz = nele_jac as usize;
    if values.is_null() {
        // Structure request.
        return unsafe { write_structure(&s.jacobian, nnz, i_row, j_col) };
    }
    let (x, values) = unsafe { (slice(x, s.n), slice_mut(values, nnz)) };
    s.guard(
        |t| &mut t.jacobian,
        || s.problem.jacobian_values(x, values).is_ok() && values.iter().all(|v| v.is_finite()),
    )
}

/// Answers IPOPT's sparsity-structure request: the (row, column) pattern into `i_row`/`j_col`.
///
/// # Safety
/// `i_row` and `j_col`, when not null, must point to `nnz` writable entries (IPOPT's contract).
unsafe fn write_structure(
    pattern: &[(Index, Index)],
    nnz: usize,
    i_row: *mut Index,
    j_col: *mut Index,
) -> Bool {
    if nnz != pattern.len() || i_row.is_null() || j_col.is_null() {
        return 0;
    }
    for (k, &(r, c)) in pattern.iter().enumerate() {
        unsafe {
            *i_row.add(k) = r;
            *j_col.add(k) = c;
        }
    }
    1
}

unsafe extern "C" fn eval_h(
    _n: Index,
    x: *mut Number,
    _new_x: Bool,
    obj_factor: Number,
    _m: Index,
    lambda: *mut Number,
    _new_lambda: Bool,
    nele_hess: Index,
    i_row: *mut Index,
    j_col: *mut Index,
    values: *mut Number,
    user_data: UserDataPtr,
) -> Bool {
    let s = unsafe { state(user_data) };
    let nnz = nele_hess as usize;
    if values.is_null() {
        // Structure request.
        return unsafe { write_structure(&s.hessian, nnz, i_row, j_col) };
    }
    let (x, lambda, values) =
        unsafe { (slice(x, s.n), slice(lambda, s.m), slice_mut(values, nnz)) };
    s.guard(
        |t| &mut t.hessian,
        || {
            s.problem
                .hessian_values(x, obj_factor, lambda, values)
                .is_ok()
                && values.iter().all(|v| v.is_finite())
        },
    )
}

unsafe extern "C" fn intermediate(
    alg_mod: Index,
    iter_count: Index,
    obj_value: Number,
    inf_pr: Number,
    _inf_du: Number,
    mu: Number,
    _d_norm: Number,
    _regularization_size: Number,
    _alpha_du: Number,
    _alpha_pr: Number,
    _ls_trials: Index,
    user_data: UserDataPtr,
) -> Bool {
    let s = unsafe { state(user_data) };
    s.iterations
        .set(s.iterations.get().max(iter_count.max(0) as usize));
    // alg_mod 0: the regular algorithm (1 is the restoration phase, whose iterates minimise the
    // violation, not f).
    if alg_mod == 0 && obj_value.is_finite() {
        s.keep_if_best(iter_count.max(0) as usize, obj_value);
    }
    if alg_mod == 0 {
        s.barrier.set(mu);
    }
    if let Some(sink) = &s.options.progress {
        let report = super::IterationReport {
            iteration: iter_count.max(0) as usize,
            objective: obj_value,
            infeasibility: inf_pr,
            restoration: alg_mod == 1,
        };
        // A panicking sink must not unwind into IPOPT.
        let _ = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| (sink.0)(&report)));
    }
    let cancelled = s
        .options
        .cancel
        .as_ref()
        .is_some_and(|c| c.load(Ordering::Relaxed));
    (!s.guard.panicked() && !cancelled) as Bool
}

/// Owns an `IpoptProblem` handle and frees it on drop.
struct Handle(IpoptProblem, &'static Api);

impl Drop for Handle {
    fn drop(&mut self) {
        unsafe { (self.1.free)(self.0) }
    }
}

impl Handle {
    fn set(&self, name: &str, value: &OptionValue) -> Result<(), NlpError> {
        let rejected = || NlpError::RejectedOption {
            name: name.to_string(),
            value: format!("{value:?}"),
        };
        let key = CString::new(name).map_err(|_| rejected())?;
        let ok = match value {
            OptionValue::Str(v) => {
                let v = CString::new(v.as_str()).map_err(|_| rejected())?;
                // IPOPT copies both strings; it takes `char*` but does not write through them.
                unsafe {
                    (self.1.add_str)(
                        self.0,
                        key.as_ptr() as *mut c_char,
                        v.as_ptr() as *mut c_char,
                    )
                }
            }
            OptionValue::Num(v) => unsafe {
                (self.1.add_num)(self.0, key.as_ptr() as *mut c_char, *v)
            },
            // An integer written for a real-valued option (`limited_memory_init_val=100`) is
            // that real number.
            OptionValue::Int(v) => unsafe {
                let as_int = (self.1.add_int)(self.0, key.as_ptr() as *mut c_char, *v);
                if returned_true(as_int) {
                    as_int
                } else {
                    (self.1.add_num)(self.0, key.as_ptr() as *mut c_char, *v as Number)
                }
            },
        };
        if returned_true(ok) {
            Ok(())
        } else {
            Err(rejected())
        }
    }
}

fn index(v: usize, what: &'static str) -> Result<Index, NlpError> {
    Index::try_from(v).map_err(|_| NlpError::TooLarge(what))
}

/// Solves `problem` with IPOPT. `Err` only when the problem is inconsistent (sizes, sparsity,
/// bounds) or an option is refused; every solver outcome, failures included, is an `Ok` with
/// its [`SolveStatus`].
pub fn solve(problem: &dyn NlpProblem, options: &SolverOptions) -> Result<NlpSolution, NlpError> {
    let (n, m) = (problem.num_variables(), problem.num_constraints());
    let super::callbacks::Checked {
        bounds,
        jacobian,
        hessian,
    } = super::callbacks::check(problem, options)?;
    let to_pairs = |entries: &[(usize, usize)],
                    what,
                    lower_triangle: bool|
     -> Result<Vec<(Index, Index)>, NlpError> {
        entries
            .iter()
            .map(|&(r, c)| {
                let (r, c) = if lower_triangle {
                    (r.max(c), r.min(c))
                } else {
                    (r, c)
                };
                Ok((index(r, what)?, index(c, what)?))
            })
            .collect()
    };
    let state = CallbackState {
        problem,
        n,
        m,
        jacobian: to_pairs(&jacobian, "Jacobian", false)?,
        hessian: match &hessian {
            Some(h) => to_pairs(h, "Hessian", true)?,
            None => Vec::new(),
        },
        iterations: Cell::new(0),
        guard: Default::default(),
        options,
        bounds: &bounds,
        gradient_x: RefCell::new(vec![0.0; n]),
        best: RefCell::new(vec![None; options.keep_best.len()]),
        barrier: Cell::new(f64::NAN),
    };
    let clamp = |v: &[f64]| -> Vec<f64> {
        v.iter()
            .map(|b| b.clamp(-INFINITE_BOUND, INFINITE_BOUND))
            .collect()
    };
    let (mut x_l, mut x_u, mut g_l, mut g_u) = (
        clamp(&bounds.x_lower),
        clamp(&bounds.x_upper),
        clamp(&bounds.g_lower),
        clamp(&bounds.g_upper),
    );
    let mut x = vec![0.0; n];
    problem.initial_point(&mut x);

    let api = api()?;
    let _lock = SOLVER_LOCK
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner());
    let start = Instant::now();
    let raw = unsafe {
        (api.create)(
            index(n, "variables")?,
            x_l.as_mut_ptr(),
            x_u.as_mut_ptr(),
            index(m, "constraints")?,
            g_l.as_mut_ptr(),
            g_u.as_mut_ptr(),
            index(state.jacobian.len(), "Jacobian entries")?,
            index(state.hessian.len(), "Hessian entries")?,
            0,
            Some(eval_f),
            Some(eval_g),
            Some(eval_grad_f),
            Some(eval_jac_g),
            Some(eval_h),
        )
    };
    if raw.is_null() {
        return Err(NlpError::CreateFailed);
    }
    let handle = Handle(raw, api);
    let hessian_approximation = if hessian.is_some() {
        "exact"
    } else {
        "limited-memory"
    };
    // "sb" (suppress banner) silences IPOPT's copyright banner, which ignores print_level.
    let mut all = vec![
        ("sb".to_string(), OptionValue::Str("yes".into())),
        (
            "print_level".to_string(),
            OptionValue::Int(options.print_level),
        ),
        ("tol".to_string(), OptionValue::Num(options.tolerance)),
        (
            "max_iter".to_string(),
            OptionValue::Int(options.max_iterations.min(i32::MAX as usize) as i32),
        ),
        (
            "hessian_approximation".to_string(),
            OptionValue::Str(hessian_approximation.into()),
        ),
    ];
    let warm = options
        .initial_multipliers
        .as_ref()
        .filter(|w| w.constraints.len() == m && w.lower.len() == n && w.upper.len() == n);
    if warm.is_some() {
        all.push((
            "warm_start_init_point".to_string(),
            OptionValue::Str("yes".into()),
        ));
    }
    all.extend(options.extra.iter().cloned());
    for (name, value) in &all {
        handle.set(name, value)?;
    }
    unsafe { (api.set_intermediate)(handle.0, Some(intermediate)) };

    let mut g = vec![0.0; m];
    let mut objective = f64::NAN;
    let (mut mult_g, mut mult_x_l, mut mult_x_u) = match warm {
        Some(w) => (w.constraints.clone(), w.lower.clone(), w.upper.clone()),
        None => (vec![0.0; m], vec![0.0; n], vec![0.0; n]),
    };
    let code = unsafe {
        (api.solve)(
            handle.0,
            x.as_mut_ptr(),
            g.as_mut_ptr(),
            &mut objective,
            mult_g.as_mut_ptr(),
            mult_x_l.as_mut_ptr(),
            mult_x_u.as_mut_ptr(),
            &state as *const CallbackState as UserDataPtr,
        )
    };
    drop(handle);
    let solve_time = start.elapsed();
    drop(_lock);

    let callback_error = state.guard.panic.borrow().clone();
    let status = if callback_error.is_some() {
        SolveStatus::CallbackPanicked
    } else {
        SolveStatus::from_ipopt_code(code)
    };
    let (constraints, max_violation) = super::evaluate_violation(problem, &bounds, &x);
    Ok(NlpSolution {
        status,
        iterations: state.iterations.get(),
        objective,
        x,
        constraints,
        constraint_multipliers: mult_g,
        lower_bound_multipliers: mult_x_l,
        upper_bound_multipliers: mult_x_u,
        max_violation,
        solve_time,
        callback_error,
        best_iterates: state.best.into_inner(),
        callback_times: state.guard.times.get(),
        final_barrier: state.barrier.get(),
    })
}
