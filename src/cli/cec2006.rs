//! `motionlab bench cec2006`: basin-CMA on the 24 CEC 2006 constrained problems (Wampler 2012,
//! thesis §3.3.2, App. B).

use anyhow::Result;

/// Evaluation budget per problem (see `motionlab::spacetime::basin_cma` for what counts as an
/// evaluation): the competition's 500 000 function evaluations, or 20 000 with `--quick`.
#[cfg_attr(not(feature = "ipopt"), allow(dead_code))]
pub fn budget(quick: bool) -> u64 {
    if quick { 20_000 } else { 500_000 }
}

/// Runs basin-CMA on g01 … g24 (every variable labelled "both", from the centre of the box) until
/// the CEC success criterion |f − f*| ≤ 1e-4 at a feasible point (violation ≤ 1e-4, equalities
/// |h| ≤ 1e-4) or the budget, and prints one line per problem and `solved k/24`.
#[cfg(feature = "ipopt")]
pub fn bench_cec2006(quick: bool, seed: u64) -> Result<()> {
    use motionlab::optim::cec2006::{Cec2006, Cec2006Nlp};
    use motionlab::spacetime::AutoDiff;
    use motionlab::spacetime::basin_cma::{BasinOptions, Target, VarRole, basin_cma};
    use std::io::Write;
    let start = std::time::Instant::now();
    let mut solved = 0;
    for p in Cec2006::all() {
        let nlp = AutoDiff::new(Cec2006Nlp::new(p))?;
        let options = BasinOptions {
            seed,
            max_evaluations: budget(quick),
            target: Some(Target {
                value: p.best_known_value(),
                tolerance: 1e-4,
            }),
            ..Default::default()
        };
        let t = std::time::Instant::now();
        let r = basin_cma(&nlp, &vec![VarRole::Both; p.dimension()], &options);
        let success = r.reached_target();
        solved += success as usize;
        let (best, error) = match &r.best {
            Some(b) => (
                format!("{:.10}", b.objective),
                format!("{:.3e}", (b.objective - p.best_known_value()).abs()),
            ),
            None => ("none".to_string(), "inf".to_string()),
        };
        println!(
            "problem {} n {} best {best} target {} error {error} evaluations {} success {success}",
            p.name(),
            p.dimension(),
            p.best_known_value(),
            r.evaluations_to_target.unwrap_or(r.evaluations.total()),
        );
        eprintln!(
            "{}: {:.2} s, {} projections ({} feasible), {} restarts, evaluations {:?}",
            p.name(),
            t.elapsed().as_secs_f64(),
            r.projections,
            r.feasible_projections,
            r.restarts,
            r.evaluations
        );
        std::io::stdout().flush().ok();
    }
    println!("solved {solved}/24");
    eprintln!("total {:.1} s", start.elapsed().as_secs_f64());
    Ok(())
}

#[cfg(not(feature = "ipopt"))]
pub fn bench_cec2006(_quick: bool, _seed: u64) -> Result<()> {
    anyhow::bail!("this build has no NLP solver (built without the `ipopt` feature)")
}
