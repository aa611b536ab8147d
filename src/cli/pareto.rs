//! `motionlab pareto`: grows a front of jump controllers (Agrawal 2015, ch. 4) as a job with a
//! progress bar, checkpoints and `--resume`; prints one line per front point (the columns of
//! Table 4.2 and the height) and the hypervolume. With `--mpi` under `mpirun`, every
//! generation's rollouts are spread over the ranks; rank 0 alone prints and writes.

use anyhow::Result;
use motionlab::cluster::Ranks;
use motionlab::pareto::{Method, ParetoConfig, ParetoRun, load_result};
use std::path::PathBuf;

/// Options of `pareto`.
#[derive(clap::Args)]
pub struct ParetoArgs {
    /// Scene with a jump `task` and a `pareto` section (scenes/pareto_jump2d.ron).
    pub scene: PathBuf,
    /// rmoo (re-sampled MO-CMA-ES, the default), bsoo (16 height bins of CMA-ES) or mocma (no
    /// resampling). With --resume: the run's own unless given.
    #[arg(long)]
    pub method: Option<Method>,
    /// RMOO and MO-CMA-ES: generations (default 1000); BSOO: the most per bin (default 3000).
    #[arg(long, value_parser = crate::flags::generations)]
    pub generations: Option<u64>,
    /// BSOO: generations without improvement that end a bin.
    #[arg(long, default_value_t = 300, value_parser = crate::flags::generations)]
    pub stall: u64,
    /// Stop after this many rollouts (equal-budget comparisons).
    #[arg(long, value_parser = crate::flags::generations)]
    pub evaluations: Option<u64>,
    /// The random seed (default 1). With --resume: the run's own unless given.
    #[arg(long)]
    pub seed: Option<u64>,
    /// Folder for checkpoint.ron and result.ron (default results/pareto-SCENE-METHOD-seedS).
    #[arg(long)]
    pub out: Option<PathBuf>,
    /// Continue the run in `--out` from its checkpoint.
    #[arg(long)]
    pub resume: bool,
    #[arg(long, default_value_t = 0, value_parser = crate::flags::threads)]
    pub threads: usize,
    #[command(flatten)]
    pub cluster: crate::job_cli::MpiArgs,
}

/// Refuses to resume a run of another scene than the command names, or of another method or seed
/// than it gives (the checkpoint would silently win).
fn same_run(config: &ParetoConfig, args: &ParetoArgs, folder: &std::path::Path) -> Result<()> {
    let mut differ = Vec::new();
    let same_file = |a: &std::path::Path, b: &std::path::Path| {
        a == b || matches!((a.canonicalize(), b.canonicalize()), (Ok(x), Ok(y)) if x == y)
    };
    if !same_file(&config.scene, &args.scene) {
        differ.push(format!(
            "scene {} (asked: {})",
            config.scene.display(),
            args.scene.display()
        ));
    }
    if let Some(m) = args.method
        && config.method != m
    {
        differ.push(format!("method {:?} (asked: {m:?})", config.method));
    }
    if let Some(seed) = args.seed
        && config.seed != seed
    {
        differ.push(format!("seed {} (asked: {seed})", config.seed));
    }
    if differ.is_empty() {
        return Ok(());
    }
    anyhow::bail!(
        "{} holds a run of another {}: resume with the same scene, method and seed, or give \
         another --out",
        folder.display(),
        differ.join(", ")
    )
}

pub fn run(args: ParetoArgs) -> Result<()> {
    let (ranks, _session) = args.cluster.start()?;
    run_on(args, ranks)
}

fn run_on(args: ParetoArgs, ranks: Ranks) -> Result<()> {
    let method = args.method.unwrap_or(Method::Rmoo);
    let seed = args.seed.unwrap_or(1);
    let stem = args
        .scene
        .file_stem()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_else(|| "scene".into());
    let folder = args.out.clone().unwrap_or_else(|| {
        PathBuf::from("results").join(format!(
            "pareto-{stem}-{}-seed{}",
            format!("{:?}", method).to_lowercase(),
            seed
        ))
    });
    // A finished run in the folder must be the one asked for, as a checkpoint must.
    let finished = folder.join("result.ron");
    if args.resume && !folder.join("checkpoint.ron").exists() && finished.exists() {
        same_run(&load_result(&finished)?.config, &args, &folder)?;
    }
    let path = crate::job_cli::start_or_resume_on(
        ranks,
        folder.clone(),
        args.resume,
        args.threads,
        "Pareto run",
        |text| {
            let run = ParetoRun::from_checkpoint(text)?;
            same_run(run.config(), &args, &folder)?;
            Ok(run.on_ranks(ranks))
        },
        || {
            let mut config = ParetoConfig::new(&args.scene, method);
            config.seed = seed;
            if let Some(g) = args.generations {
                config.generations = g;
            }
            config.stall_generations = args.stall;
            config.max_evaluations = args.evaluations;
            Ok(ParetoRun::new(config)?.on_ranks(ranks))
        },
    )?;
    let Some(path) = path else {
        return Ok(());
    };
    let r = load_result(&path)?;
    for (k, p) in r.front.iter().enumerate() {
        let o = &p.outcome;
        println!(
            "point {k} height {:.4} log_effort {:.4} joint_effort {:.1} assist_effort {:.1} g0 {:.3} T {:.3}{}",
            o.height,
            o.log_effort,
            o.joint_effort,
            o.assist_effort,
            o.assist.g0,
            o.assist.duration,
            if o.is_natural() { " natural" } else { "" }
        );
    }
    println!("hypervolume {:.6}", r.hypervolume);
    eprintln!(
        "result: {} ({} generations, {} rollouts)",
        path.display(),
        r.generations,
        r.evaluations
    );
    Ok(())
}

/// `bench pareto`: RMOO against BSOO on scenes/pareto_jump2d.ron at equal rollout budgets over
/// 3 seeds (Agrawal 2015, thesis §4.5: RMOO about 2× faster). Prints, per seed and
/// method, the hypervolume at the budget and the rollouts each needed to reach 90 % of the
/// best hypervolume either reached; `--quick`: one seed, 300 rollouts.
pub fn bench_pareto(quick: bool, first_seed: u64) -> Result<()> {
    use motionlab::pareto::run::HypervolumePoint;
    let (seeds, budget) = if quick { (1, 300) } else { (3, 12_000) };
    let pool = rayon::ThreadPoolBuilder::new().build()?;
    println!(
        "pareto_bench scene=scenes/pareto_jump2d.ron budget={budget} seeds={seeds} threads={}",
        pool.current_num_threads()
    );
    // Hypervolume after `e` rollouts: the last recorded value at or before e.
    let at = |h: &[HypervolumePoint], e: u64| {
        h.iter()
            .take_while(|p| p.evaluations <= e)
            .last()
            .map(|p| p.hypervolume)
            .unwrap_or(0.0)
    };
    let mut wins = 0;
    for seed in first_seed..first_seed + seeds {
        let mut histories = Vec::new();
        for method in [Method::Rmoo, Method::Bsoo] {
            let mut config = ParetoConfig::new("scenes/pareto_jump2d.ron", method);
            config.seed = seed;
            config.max_evaluations = Some(budget);
            config.generations = u64::MAX / 2;
            let t0 = std::time::Instant::now();
            let mut run = ParetoRun::new(config)?;
            while !run.is_finished() {
                run.generation(&pool);
            }
            let r = run.result();
            let natural = r.front.iter().filter(|p| p.outcome.is_natural()).count();
            let top_natural = r
                .front
                .iter()
                .filter(|p| p.outcome.is_natural())
                .map(|p| p.outcome.height)
                .fold(f64::NAN, f64::max);
            eprintln!(
                "seed {seed} {method:?}: {:.0} s, {} rollouts",
                t0.elapsed().as_secs_f64(),
                r.evaluations
            );
            histories.push((
                method,
                r.history.clone(),
                r.front.len(),
                natural,
                top_natural,
            ));
        }
        let best = histories
            .iter()
            .map(|h| at(&h.1, budget))
            .fold(0.0, f64::max);
        for (method, history, points, natural, top) in &histories {
            let reach = history
                .iter()
                .find(|p| p.hypervolume >= 0.9 * best)
                .map(|p| p.evaluations.to_string())
                .unwrap_or_else(|| "never".into());
            println!(
                "seed {seed} {:<5} hypervolume {:.4} rollouts_to_90% {reach} front {points} natural {natural} highest_natural {top:.3}",
                format!("{method:?}").to_lowercase(),
                at(history, budget)
            );
        }
        // At every shared budget point, RMOO's hypervolume against BSOO's.
        let (r, b) = (&histories[0].1, &histories[1].1);
        let checkpoints: Vec<u64> = (1..=10).map(|k| budget * k / 10).collect();
        let ahead = checkpoints
            .iter()
            .filter(|&&e| at(r, e) >= at(b, e))
            .count();
        println!(
            "seed {seed} rmoo_at_least_bsoo {ahead}/{} budget checkpoints",
            checkpoints.len()
        );
        if at(r, budget) >= at(b, budget) {
            wins += 1;
        }
    }
    println!("rmoo_wins {wins}/{seeds}");
    Ok(())
}
