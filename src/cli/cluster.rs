//! `motionlab bench cluster`: the cost model of the searches spread over MPI ranks. Measures
//! each search (a diversity exploration, a Pareto run, a Keys-to-Sim tracking search) in one
//! process on one core (evaluation time, serial part, bytes per generation), times all-gathers
//! between two ranks, predicts the wall time and efficiency on 2, 8, 32 and 120 ranks
//! ([`motionlab::cluster::cost_model`]), and runs the same searches under `mpirun -np 2` to set
//! the measured two-rank wall times beside the predictions.

use anyhow::{Context, Result};
use motionlab::cluster::Ranks;
use motionlab::cluster::cost_model::{Measured, Network};
use motionlab::jobs::{Job, StepOutcome};
use serde::{Deserialize, Serialize};
use std::path::{Path, PathBuf};

/// One search of the benchmark, measured on this process's ranks.
#[derive(Clone, Debug, Serialize, Deserialize)]
struct SearchRun {
    name: String,
    measured: Measured,
}

/// What a two-rank run of the benchmark hands back to the one that started it.
#[derive(Clone, Debug, Serialize, Deserialize)]
struct TwoRankReport {
    network: Network,
    searches: Vec<SearchRun>,
}

fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

/// The searches measured: the three a user spreads over ranks, at sizes that take tens of
/// seconds on one core (`quick`: a few generations each).
fn searches(quick: bool, ranks: Ranks) -> Result<Vec<(String, Box<dyn Job>)>> {
    use motionlab::diversity::explore::{DiversityJob, ExploreConfig};
    use motionlab::pareto::{Method, ParetoConfig, ParetoRun};
    use motionlab::track::{TrackConfig, TrackJob, TrackSettings};
    let generations = if quick { 3 } else { 30 };
    let track_generations = if quick { 2 } else { 20 };
    let explore = DiversityJob::new(ExploreConfig {
        scene: root().join("scenes/jump_high2d.ron"),
        variants: 4,
        generations,
        seed: 1,
        ..ExploreConfig::default()
    })?
    .on_ranks(ranks);
    let mut pareto = ParetoConfig::new(root().join("scenes/pareto_jump2d.ron"), Method::Rmoo);
    pareto.generations = generations;
    let pareto = ParetoRun::new(pareto)?.on_ranks(ranks);
    let track = TrackJob::new(TrackConfig {
        clip: root().join("assets/keyframes/human3d_hanging_jump.keys.ron"),
        character: root().join("characters/human3d.ron"),
        from: 0.0,
        to: Some(0.75),
        // The paper's k, n and population (20 starts × 30 samples a generation once the first
        // window has kept its 20), over 20 generations instead of 200.
        settings: TrackSettings {
            keep: 20,
            samples: 400,
            generations: track_generations,
            population: 30,
            seed: 7,
            ..TrackSettings::default()
        },
    })?
    .on_ranks(ranks);
    Ok(vec![
        (
            format!("explore jump_high2d, 4 variants, {generations} generations"),
            Box::new(explore),
        ),
        (
            format!("pareto pareto_jump2d rmoo, {generations} generations"),
            Box::new(pareto),
        ),
        (
            format!(
                "track human3d hanging jump to 0.75 s, k 20, n 400, population 30, \
                 {track_generations} generations"
            ),
            Box::new(track),
        ),
    ])
}

/// Runs every search to its end on one thread per rank, timing it.
fn run_searches(quick: bool, ranks: Ranks) -> Result<Vec<SearchRun>> {
    let pool = rayon::ThreadPoolBuilder::new().num_threads(1).build()?;
    let mut runs = Vec::new();
    for (name, mut job) in searches(quick, ranks)? {
        motionlab::cluster::tally::take();
        let started = std::time::Instant::now();
        while let StepOutcome::Running = job.step(&pool).with_context(|| name.clone())? {}
        runs.push(SearchRun {
            name,
            measured: Measured {
                wall: started.elapsed().as_secs_f64(),
                tally: motionlab::cluster::tally::take(),
            },
        });
    }
    Ok(runs)
}

/// The all-gather's latency and cost per byte between these ranks.
fn measure_network(ranks: Ranks) -> Option<Network> {
    let (small, large) = (8, 1 << 20);
    let t_small = ranks.time_gather(small, 200)?;
    let t_large = ranks.time_gather(large, 20)?;
    Some(Network::from_two_ranks((small, t_small), (large, t_large)))
}

/// `bench cluster`: alone, the whole comparison; under `mpirun -np 2 … --mpi --report FILE`,
/// the two-rank half, written to FILE by rank 0.
pub fn bench(quick: bool, ranks: Ranks, report: Option<PathBuf>) -> Result<()> {
    if ranks.size() > 1 {
        anyhow::ensure!(
            ranks.size() == 2,
            "bench cluster measures two ranks (mpirun -np 2), not {}",
            ranks.size()
        );
        let network = measure_network(ranks).expect("two ranks have a network");
        let searches = run_searches(quick, ranks)?;
        if ranks.is_root() {
            let path = report.context("a two-rank bench cluster writes its --report FILE")?;
            motionlab::files::write_ron(&path, &TwoRankReport { network, searches })
                .with_context(|| format!("writing {}", path.display()))?;
        }
        return Ok(());
    }
    eprintln!("measuring each search in one process on one core, each evaluation timed…");
    motionlab::cluster::tally::time_each_evaluation(true);
    let alone = run_searches(quick, ranks)?;
    motionlab::cluster::tally::time_each_evaluation(false);
    eprintln!("measuring the same searches under mpirun -np 2…");
    let two = two_ranks(quick)?;
    print(&alone, &two);
    Ok(())
}

/// This program's `bench cluster` under `mpirun -np 2`, its report read back.
fn two_ranks(quick: bool) -> Result<TwoRankReport> {
    let path = std::env::temp_dir().join(format!(
        "motionlab-bench-cluster-{}.ron",
        std::process::id()
    ));
    let mut mpirun = std::process::Command::new("mpirun");
    // Open MPI refuses to run as root unless told (the owner of /proc/self is this process's
    // user).
    if std::fs::metadata("/proc/self").is_ok_and(|m| {
        use std::os::unix::fs::MetadataExt;
        m.uid() == 0
    }) {
        mpirun.arg("--allow-run-as-root");
    }
    mpirun
        .args(["-np", "2"])
        .arg(std::env::current_exe()?)
        .args(["bench", "cluster", "--mpi", "--report"])
        .arg(&path);
    if quick {
        mpirun.arg("--quick");
    }
    let status = mpirun
        .status()
        .context("running mpirun (Debian's openmpi-bin, installed by scripts/setup.sh)")?;
    anyhow::ensure!(status.success(), "mpirun -np 2 … bench cluster: {status}");
    let report = motionlab::files::read_ron(&path);
    let _ = std::fs::remove_file(&path);
    report
}

fn print(alone: &[SearchRun], two: &TwoRankReport) {
    let net = &two.network;
    println!(
        "network: all-gather between two ranks here: latency {:.1} us per round, {:.2} GB/s",
        net.latency * 1e6,
        1e-9 / net.per_byte.max(1e-18)
    );
    for run in alone {
        let m = &run.measured;
        let t = &m.tally;
        println!("search: {}", run.name);
        println!(
            "  generations {} evaluations_per_generation {:.1} evaluation_ms {:.3} serial_s {:.3} \
             serial_fraction {:.4} bytes_per_generation {:.0}",
            t.batches,
            t.batch_size(),
            m.evaluation() * 1e3,
            m.serial(),
            m.serial_fraction(),
            t.bytes_per_batch()
        );
        let measured_two = two.searches.iter().find(|s| s.name == run.name);
        for ranks in [1usize, 2, 8, 32, 120] {
            let measured = match ranks {
                1 => Some(m.wall),
                2 => measured_two.map(|s| s.measured.wall),
                _ => None,
            };
            println!(
                "  ranks {ranks:>3} predicted_s {:>8.2} measured_s {:>8} efficiency {:.3}",
                m.predict(ranks, net),
                measured.map_or("-".into(), |w| format!("{w:.2}")),
                m.efficiency(ranks, net)
            );
        }
        if let Some(s) = measured_two {
            println!(
                "  two ranks: gather {:.3} s in all ({:.2} ms per generation, waiting included)",
                s.measured.tally.gather_seconds,
                1e3 * s.measured.tally.gather_seconds / s.measured.tally.batches.max(1) as f64
            );
        }
    }
}
