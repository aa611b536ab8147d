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
    },
    /// List a space's points (and connections) without solving them.
    #[command(after_help = "Example: `motionlab space points spaces/human3d_locomotion.ron`")]
    Points { space: PathBuf },
}

pub fn run(command: SpaceCommand) -> Result<()> {
    use motionlab::space::ParameterSpace;
    match command {
        SpaceCommand::Points { space } => {
            let s = ParameterSpace::load(&space)?;
            let points = s.points()?;
            for p in &points {
                println!(
                    "point {} speed {} turn_rate {:.1} family {}",
                    p.name(&s),
                    p.speed,
                    p.turn_rate.to_degrees(),
                    p.family.as_deref().unwrap_or("-")
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
        } => generate(space, out, threads, retry_failed, from),
    }
}

#[cfg(feature = "ipopt")]
fn generate(
    space: PathBuf,
    out: Option<PathBuf>,
    threads: usize,
    retry_failed: bool,
    from: Option<PathBuf>,
) -> Result<()> {
    use motionlab::space::ParameterSpace;
    use motionlab::space::generate::{SpaceEvent, SpaceRequest, generate};
    let name = ParameterSpace::load(&space)?.name;
    let out = out.unwrap_or_else(|| PathBuf::from("results/spaces").join(&name));
    let request = SpaceRequest {
        space,
        out: out.clone(),
        threads,
        retry_failed,
        from,
    };
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
            println!(
                "solved {solved} failed {failed} (this run); manifest {}",
                out.join("space.ron").display()
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
fn generate(_: PathBuf, _: Option<PathBuf>, _: usize, _: bool, _: Option<PathBuf>) -> Result<()> {
    anyhow::bail!("this build has no NLP solver (built without the `ipopt` feature)")
}
