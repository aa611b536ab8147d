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
    use motionlab::spacetime::{solve_particle, HessianMode, ParticleSpec, SolverOptions};
    if let Some(b) = args.bound_force {
        anyhow::ensure!(b.is_finite() && b >= 0.0, "--bound-force expects a force in N, >= 0; found {b}");
    }
    let spec = ParticleSpec::table_3_1().with_force_bound(args.bound_force);
    let options = SolverOptions {
        hessian: if args.lbfgs { HessianMode::LimitedMemory } else { HessianMode::Exact },
        print_level: args.print_level,
        ..Default::default()
    };
    let s = solve_particle(&spec, &options)?;
    println!("problem spacetime_particle frames {} variables {} force_bound {}", spec.frames, 2 * spec.frames * 2,
        args.bound_force.map(|b| format!("{b} N")).unwrap_or_else(|| "none".into()));
    println!("status {}", s.status);
    println!("objective {:.4}", s.objective);
    println!("iterations {}", s.iterations);
    println!("max_violation {:.3e}", s.max_violation);
    println!("dynamics_residual {:.3e}", s.dynamics_residual);
    println!("solve_time_ms {:.3}", s.solve_time.as_secs_f64() * 1e3);
    if args.trajectory {
        for (f, (q, force)) in s.positions.iter().zip(&s.forces).enumerate() {
            println!("frame {f} {:.6} {:.6} {:.4} {:.4}", q[0], q[1], force[0], force[1]);
        }
    }
    anyhow::ensure!(s.status.is_success(), "the spacetime particle was not solved: {}", s.status);
    Ok(())
}

#[cfg(not(feature = "ipopt"))]
pub fn particle(_args: ParticleArgs) -> Result<()> {
    anyhow::bail!("this build has no NLP solver (built without the `ipopt` feature)")
}
