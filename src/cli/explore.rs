//! `motionlab explore SCENE`: N diverse variants of a task's motion (Agrawal, Shen and van de
//! Panne 2014, round-robin CMA-ES) as a job with checkpoints and `--resume`; with `--mpi` under
//! `mpirun`, every generation's rollouts are spread over the ranks and rank 0 alone prints and
//! writes, to the same result bits as one process.

use anyhow::Result;
use motionlab::cluster::Ranks;
use motionlab::diversity::explore::{DiversityJob, ExploreConfig, ExploreMetric, load_result};
use std::path::PathBuf;

#[derive(Clone, Copy, clap::ValueEnum)]
pub enum PlacementArg {
    Inside,
    Outside,
}

#[derive(Clone, Copy, clap::ValueEnum)]
pub enum ModeArg {
    Motion,
    Shape,
}

/// Options of `explore`.
#[derive(clap::Args)]
pub struct ExploreArgs {
    pub scene: PathBuf,
    #[arg(long, default_value_t = 4, value_parser = crate::flags::variants)]
    pub variants: usize,
    #[arg(long, default_value_t = 500, value_parser = crate::flags::generations)]
    pub generations: u64,
    /// K of the diversity objective (eq. 1).
    #[arg(long, default_value_t = 10.0, value_parser = crate::flags::diversity_k)]
    pub k: f64,
    /// Where K·d_min sits: inside the j-sum as typeset (K·(N+1)) or outside (K).
    #[arg(long, value_enum, default_value_t = PlacementArg::Inside)]
    pub k_placement: PlacementArg,
    /// Distance: hf, md, wja or shape (default: the task's metric).
    #[arg(long)]
    pub metric: Option<String>,
    /// motion: control parameters free; shape: link lengths free as well.
    #[arg(long, value_enum, default_value_t = ModeArg::Motion)]
    pub mode: ModeArg,
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// Supernatural strength: multiplies PD gains and torque limits (1.5–3 in the paper).
    #[arg(long, default_value_t = 1.0, value_parser = crate::flags::strength)]
    pub strength: f32,
    /// Progressive addition (one variant at a time) instead of round-robin.
    #[arg(long)]
    pub progressive: bool,
    /// Stop when D improves by less than 0.1 % over this many generations (0: never).
    #[arg(long, default_value_t = 100, value_parser = crate::flags::stall)]
    pub stall: u64,
    /// Initial CMA-ES step size in normalized units (default: the task's `sigma`).
    #[arg(long, value_parser = crate::flags::sigma)]
    pub sigma: Option<f64>,
    /// Folder for checkpoint.ron and result.ron.
    #[arg(long)]
    pub out: Option<PathBuf>,
    #[arg(long)]
    pub resume: bool,
    #[arg(long, default_value_t = 0, value_parser = crate::flags::threads)]
    pub threads: usize,
    #[command(flatten)]
    pub cluster: crate::job_cli::MpiArgs,
}

impl ExploreArgs {
    fn config(&self) -> Result<ExploreConfig> {
        let metric = self
            .metric
            .as_ref()
            .map(|m| m.parse::<ExploreMetric>())
            .transpose()?;
        Ok(ExploreConfig {
            scene: self.scene.clone(),
            variants: self.variants,
            generations: self.generations,
            k: self.k,
            placement: match self.k_placement {
                PlacementArg::Inside => motionlab::diversity::KPlacement::InsideSum,
                PlacementArg::Outside => motionlab::diversity::KPlacement::OutsideSum,
            },
            metric,
            shape_mode: matches!(self.mode, ModeArg::Shape),
            seed: self.seed,
            strength: self.strength,
            strategy: if self.progressive {
                motionlab::diversity::Strategy::Progressive
            } else {
                motionlab::diversity::Strategy::RoundRobin
            },
            stall_generations: self.stall,
            sigma: self.sigma,
        })
    }
}

/// Runs the exploration as a job with a progress bar; prints one line per variant and D.
pub fn run(args: ExploreArgs) -> Result<()> {
    let (ranks, _session) = args.cluster.start()?;
    explore(args, ranks)
}

fn explore(args: ExploreArgs, ranks: Ranks) -> Result<()> {
    let config = args.config()?;
    let stem = config
        .scene
        .file_stem()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_else(|| "task".into());
    let folder = args.out.clone().unwrap_or_else(|| {
        PathBuf::from("results").join(format!("explore-{stem}-seed{}", config.seed))
    });
    let path = crate::job_cli::start_or_resume_on(
        ranks,
        folder,
        args.resume,
        args.threads,
        "exploration",
        |text| Ok(DiversityJob::from_checkpoint(text)?.on_ranks(ranks)),
        || Ok(DiversityJob::new(config)?.on_ranks(ranks)),
    )?;
    let Some(path) = path else {
        return Ok(());
    };
    let r = load_result(&path)?;
    for m in r.motions.iter().skip(1) {
        println!(
            "variant {} penalty {:.4} min_distance {:.4}",
            m.index, m.penalty, m.min_distance
        );
    }
    println!("diversity {:.4}", r.diversity);
    eprintln!(
        "result: {} ({} generations, {} rollouts, stop: {})",
        path.display(),
        r.generations,
        r.evaluations,
        r.stop
    );
    Ok(())
}
