//! `motionlab spacetime …`: spacetime problems solved as sparse NLPs (specs/001.md §1.2–1.3).

use anyhow::Result;

/// Options of `spacetime particle`.
#[cfg_attr(not(feature = "ipopt"), allow(dead_code))]
pub struct ParticleArgs {
    pub bound_force: Option<f64>,
    pub lbfgs: bool,
    pub print_level: i32,
    pub trajectory: bool,
}

/// Solves the Spacetime Particle (Table 3.1) and prints `key value` lines: status, objective,
/// iterations, max_violation, dynamics_residual, solve_time_ms (and with `trajectory` one
/// `frame f q_x q_y Q_x Q_y` line per frame). Fails (non-zero exit) unless the solve succeeded.
#[cfg(feature = "ipopt")]
pub fn particle(args: ParticleArgs) -> Result<()> {
    use motionlab::spacetime::{HessianMode, ParticleSpec, SolverOptions, solve_particle};
    if let Some(b) = args.bound_force {
        anyhow::ensure!(
            b.is_finite() && b >= 0.0,
            "--bound-force expects a force in N, >= 0; found {b}"
        );
    }
    let spec = ParticleSpec::table_3_1().with_force_bound(args.bound_force);
    let options = SolverOptions {
        hessian: if args.lbfgs {
            HessianMode::LimitedMemory
        } else {
            HessianMode::Exact
        },
        print_level: args.print_level,
        ..Default::default()
    };
    let s = solve_particle(&spec, &options)?;
    println!(
        "problem spacetime_particle frames {} variables {} force_bound {}",
        spec.frames,
        2 * spec.frames * 2,
        args.bound_force
            .map(|b| format!("{b} N"))
            .unwrap_or_else(|| "none".into())
    );
    println!("status {}", s.status);
    println!("objective {:.4}", s.objective);
    println!("iterations {}", s.iterations);
    println!("max_violation {:.3e}", s.max_violation);
    println!("dynamics_residual {:.3e}", s.dynamics_residual);
    println!("solve_time_ms {:.3}", s.solve_time.as_secs_f64() * 1e3);
    if args.trajectory {
        for (f, (q, force)) in s.positions.iter().zip(&s.forces).enumerate() {
            println!(
                "frame {f} {:.6} {:.6} {:.4} {:.4}",
                q[0], q[1], force[0], force[1]
            );
        }
    }
    anyhow::ensure!(
        s.status.is_success(),
        "the spacetime particle was not solved: {}",
        s.status
    );
    Ok(())
}

#[cfg(not(feature = "ipopt"))]
pub fn particle(_args: ParticleArgs) -> Result<()> {
    anyhow::bail!("this build has no NLP solver (built without the `ipopt` feature)")
}

/// Options of `gait`.
#[cfg_attr(not(feature = "ipopt"), allow(dead_code))]
pub struct GaitArgs {
    pub creature: std::path::PathBuf,
    pub speed: f64,
    pub period: Option<f64>,
    pub contacts: Option<String>,
    pub seed: u64,
    pub out: Option<std::path::PathBuf>,
    pub discover: bool,
    pub print_level: i32,
    pub max_iterations: usize,
    pub exact_hessian: bool,
    /// Extra IPOPT options `name=value` (numbers, integers or strings).
    pub ipopt: Vec<String>,
}

/// Solves the fixed-timing cyclic gait of specs/004.md §1.2 and prints `foot <name> start <s>
/// duration <d>` per foot, `flight`, `double_support`, `status`, `cost`, `max_violation`,
/// `audit_max_violation`, `iterations`, `variables`, `solve_time_s`; writes the clip as RON
/// atomically to `out`. Fails (non-zero exit) unless the solve succeeded.
#[cfg(feature = "ipopt")]
pub fn gait(args: GaitArgs) -> Result<()> {
    use anyhow::Context;
    use motionlab::spacetime::HessianMode;
    use motionlab::spacetime::gait::{
        GaitProblem, GaitSpec, audit, default_timings, gait_solver_options, parse_timings,
        solve_gait,
    };
    use motionlab::spacetime::skeleton::Skeleton;
    anyhow::ensure!(
        !args.discover,
        "--discover (gait discovery by basin-CMA, specs/004.md §1.3) is not yet implemented; give --contacts or use the defaults"
    );
    let skeleton = Skeleton::load(&args.creature)?;
    let (default_period, default_contacts) = default_timings(&skeleton);
    let timings = match &args.contacts {
        Some(text) => parse_timings(text)?,
        None => default_contacts,
    };
    let period = args.period.unwrap_or(default_period);
    let spec = GaitSpec::new(skeleton, args.speed, period, &timings)?.with_seed(args.seed);
    let mut options = gait_solver_options();
    options.print_level = args.print_level;
    options.max_iterations = args.max_iterations;
    if args.exact_hessian {
        options.hessian = HessianMode::Exact;
    }
    for item in &args.ipopt {
        use motionlab::spacetime::OptionValue;
        let (name, value) = item
            .split_once('=')
            .with_context(|| format!("--ipopt expects name=value, found {item:?}"))?;
        let value = if let Ok(i) = value.parse::<i32>() {
            OptionValue::Int(i)
        } else if let Ok(v) = value.parse::<f64>() {
            OptionValue::Num(v)
        } else {
            OptionValue::Str(value.to_string())
        };
        options.extra.push((name.to_string(), value));
    }
    let variables = GaitProblem::new(spec.clone()).variables();
    let clip = solve_gait(&spec, &options)?;
    let report = audit(&spec.skeleton, &clip, spec.mu, spec.nu);
    println!(
        "creature {} speed {} period {} frames {} variables {}",
        spec.skeleton.name, spec.speed, spec.period, spec.frames, variables
    );
    for t in &spec.timings {
        println!("foot {} start {} duration {}", t.foot, t.start, t.duration);
    }
    println!("flight: {}", spec.has_flight());
    println!("double_support: {}", spec.has_double_support());
    println!("status {}", clip.status);
    println!(
        "projection_status {}",
        clip.projection_status.as_deref().unwrap_or("none")
    );
    println!("cost {:.6}", clip.cost);
    println!("max_violation {:.3e}", clip.max_violation);
    println!("audit_max_violation {:.3e}", report.max());
    println!("iterations {}", clip.iterations);
    println!("solve_time_s {:.3}", clip.solve_time_s);
    if let Some(out) = &args.out {
        motionlab::jobs::write_ron(out, &clip)
            .with_context(|| format!("writing {}", out.display()))?;
        println!("wrote {}", out.display());
    }
    anyhow::ensure!(
        clip.converged() && clip.max_violation <= 1e-6,
        "the gait was not solved: {} (projection {:?}, max violation {:.3e})",
        clip.status,
        clip.projection_status,
        clip.max_violation
    );
    Ok(())
}

#[cfg(not(feature = "ipopt"))]
pub fn gait(_args: GaitArgs) -> Result<()> {
    anyhow::bail!("this build has no NLP solver (built without the `ipopt` feature)")
}
