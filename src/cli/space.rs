//! `motionlab space`: parameter spaces (McIntosh 2011, thesis §3.4, §4.2.3).

use anyhow::Result;
use clap::Subcommand;
use indicatif::{ProgressBar, ProgressStyle};
use std::path::PathBuf;

#[derive(Subcommand)]
pub enum SpaceCommand {
    /// Solve every point of a parameter space (full factorial) as transformed-cyclic gaits, then
    /// its connections; resumable, a failed point recorded and skipped. Example:
    /// `motionlab space generate spaces/human3d_locomotion.ron --out assets/spaces/human3d_locomotion`
    Generate {
        space: PathBuf,
        /// Output folder (gait/, clips/, failed/, space.ron); default results/spaces/<name>.
        #[arg(long)]
        out: Option<PathBuf>,
        /// Solves side by side (default: one per core).
        #[arg(long, default_value_t = 0, value_parser = crate::flags::threads)]
        threads: usize,
        /// Solve again the points the manifest records as failed.
        #[arg(long)]
        retry_failed: bool,
        /// Another solve of this space (its output folder): each point and connection starts
        /// from its own gait clip there instead of from its neighbours or the rest pose. For a
        /// space solved again after a constraint was added (for example `SoleClearance`).
        #[arg(long, value_name = "DIR")]
        from: Option<PathBuf>,
        /// Solve only point K (its number in the solving order, which `space points` prints):
        /// one task of a Slurm job array. It waits for the points it starts from (other tasks'
        /// points, in the same folder) and records its outcome in OUT/parts/; a final
        /// `space generate` without --point merges the parts and solves the connections.
        #[arg(long, value_name = "K", conflicts_with = "connection")]
        point: Option<usize>,
        /// Solve only connection K (its number in the space file, from 0), once its two points
        /// have ended: one task of the job array that follows the points' (recorded in
        /// OUT/parts/ as well).
        #[arg(long, value_name = "K")]
        connection: Option<usize>,
        /// Under `mpirun -np N`: rank r solves points r, r+N, r+2N… (as --point does), then
        /// rank 0 merges them and solves the connections; the same clips as one process.
        #[command(flatten)]
        cluster: crate::job_cli::MpiArgs,
    },
    /// List a space's points (and connections) without solving them.
    #[command(after_help = "Example: `motionlab space points spaces/human3d_locomotion.ron`")]
    Points {
        space: PathBuf,
        /// Print only `POINTS CONNECTIONS`, the two numbers (for scripts: the sizes of the job
        /// arrays).
        #[arg(long)]
        count: bool,
    },
}

pub fn run(command: SpaceCommand) -> Result<()> {
    use motionlab::space::ParameterSpace;
    match command {
        SpaceCommand::Points { space, count } => {
            let s = ParameterSpace::load(&space)?;
            let points = s.points()?;
            if count {
                println!("{} {}", points.len(), s.connections.len());
                return Ok(());
            }
            let order = motionlab::space::parts::solving_order(&points);
            for (i, p) in points.iter().enumerate() {
                println!(
                    "point {} speed {} turn_rate {:.1} family {} order {}",
                    p.name(&s),
                    p.speed,
                    p.turn_rate.to_degrees(),
                    p.family.as_deref().unwrap_or("-"),
                    order.iter().position(|&o| o == i).unwrap_or(i)
                );
            }
            for c in &s.connections {
                println!("connection {} from {} to {}", c.name, c.from, c.to);
            }
            println!(
                "points {} connections {}",
                points.len(),
                s.connections.len()
            );
            Ok(())
        }
        SpaceCommand::Generate {
            space,
            out,
            threads,
            retry_failed,
            from,
            point,
            connection,
            cluster,
        } => {
            let (ranks, _session) = cluster.start()?;
            anyhow::ensure!(
                ranks.size() == 1 || (point.is_none() && connection.is_none()),
                "--mpi shares the points and connections among the ranks; drop --point and \
                 --connection"
            );
            let request = motionlab::space::generate::SpaceRequest {
                out: out.unwrap_or_else(|| {
                    PathBuf::from("results/spaces").join(
                        ParameterSpace::load(&space)
                            .map(|s| s.name)
                            .unwrap_or_default(),
                    )
                }),
                space,
                threads,
                retry_failed,
                from,
                only: point
                    .map(motionlab::space::generate::Lone::Point)
                    .or(connection.map(motionlab::space::generate::Lone::Connection)),
            };
            generate(request, ranks)
        }
    }
}

#[cfg(feature = "ipopt")]
fn generate(
    request: motionlab::space::generate::SpaceRequest,
    ranks: motionlab::cluster::Ranks,
) -> Result<()> {
    use motionlab::space::generate::{SpaceEvent, generate};
    if ranks.size() > 1 {
        // The points shared among the ranks, each a lone point; then rank 0 merges.
        let rank = ranks.rank();
        motionlab::space::parts::spread_points(
            &request,
            &std::env::current_exe()?,
            ranks,
            &mut |e| match e {
                SpaceEvent::Started { name, from } => println!(
                    "rank {rank}: start {name}{}",
                    from.map(|f| format!(" from {f}")).unwrap_or_default()
                ),
                SpaceEvent::Mirrored { name, of } => {
                    println!("rank {rank}: mirror {name} from {of}")
                }
                SpaceEvent::Solved { name, cost, .. } => {
                    println!("rank {rank}: point {name} solved cost {cost:.6}")
                }
                SpaceEvent::Failed { name, reason } => {
                    println!("rank {rank}: point {name} failed {reason}")
                }
                _ => {}
            },
        )?;
        if !ranks.is_root() {
            return Ok(());
        }
    }
    let out = request.out.clone();
    let name = motionlab::space::ParameterSpace::load(&request.space)?.name;
    let exe = std::env::current_exe()?;
    let bar = ProgressBar::new(1);
    bar.set_style(ProgressStyle::with_template(
        "{spinner} [{elapsed_precise}] {bar:30} {pos}/{len} {msg}",
    )?);
    let manifest = generate(&request, &exe, &mut |e| match e {
        SpaceEvent::Planned {
            points,
            connections,
            done,
        } => {
            bar.set_length((points + connections) as u64);
            bar.set_position(done as u64);
            bar.suspend(|| {
                println!(
                    "space {name}: {points} points, {connections} connections, {done} done already"
                )
            });
        }
        SpaceEvent::Started { name, from } => bar.suspend(|| {
            println!(
                "start {name}{}",
                from.map(|f| format!(" from {f}")).unwrap_or_default()
            )
        }),
        SpaceEvent::Mirrored { name, of } => bar.suspend(|| println!("mirror {name} from {of}")),
        SpaceEvent::Waiting { name } => {
            bar.suspend(|| println!("waiting for {name} (another task's point) to end"))
        }
        SpaceEvent::Iteration {
            name,
            iteration,
            objective,
            infeasibility,
        } => bar.set_message(format!(
            "{name}: iteration {iteration} cost {objective:.4} violation {infeasibility:.1e}"
        )),
        SpaceEvent::Solved {
            name,
            cost,
            max_violation,
            seconds,
        } => {
            bar.inc(1);
            bar.suspend(|| println!(
                "point {name} solved cost {cost:.6} max_violation {max_violation:.2e} seconds {seconds:.1}"
            ));
        }
        SpaceEvent::Failed { name, reason } => {
            bar.inc(1);
            bar.suspend(|| println!("point {name} failed {reason}"));
        }
        SpaceEvent::Finished { solved, failed } => {
            bar.finish_and_clear();
            let record = match request.only {
                Some(_) => out.join("parts"),
                None => out.join("space.ron"),
            };
            println!(
                "solved {solved} failed {failed} (this run); manifest {}",
                record.display()
            );
        }
    })?;
    let failed = manifest
        .entries
        .iter()
        .filter(|e| {
            matches!(
                e.outcome,
                motionlab::space::generate::Outcome::Failed { .. }
            )
        })
        .count();
    println!(
        "space {}: {} entries, {} failed",
        manifest.space,
        manifest.entries.len(),
        failed
    );
    Ok(())
}

#[cfg(not(feature = "ipopt"))]
fn generate(
    _: motionlab::space::generate::SpaceRequest,
    _: motionlab::cluster::Ranks,
) -> Result<()> {
    anyhow::bail!("this build has no NLP solver (built without the `ipopt` feature)")
}
