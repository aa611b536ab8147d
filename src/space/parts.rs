//! One point of a space solved on its own: a Slurm array task or an MPI rank
//! (`space generate … --point K`), and the step that merges their outcomes.
//!
//! - **Order.** Points are numbered in the order the space is solved in (straight first, then by
//!   |turn rate|, speed and file order: [`solving_order`]), so every point a point starts from
//!   (its nearest solved neighbour within reach, its mirror image) has a smaller number.
//! - **Waiting.** Point K waits (polling the output folder, which tasks share) until every point
//!   the continuation would have it wait for has ended, then starts from the same neighbour as
//!   the whole space solved in one process would, so the space's clips do not depend on how
//!   it was spread. Tasks started in their numbers' order never wait for each other in a circle.
//! - **Outcomes.** A task records its point in `OUT/parts/STEM.ron` (a manifest of one line)
//!   rather than in `OUT/space.ron`, which tasks running at once would overwrite. The merge
//!   (`space generate` without `--point`, after the tasks) records every part in the manifest,
//!   removes the parts, then solves what is left and the connections.
//! - **Connections** (`--connection K`) run after every point has ended (a second job array, or
//!   the ranks once their points are done), each recorded in a part of its own as well.
//! - **MPI.** The ranks of an MPI job share the points by claiming them ([`spread_points`]):
//!   the first unclaimed point whose sources have ended goes to the first rank free, as a job
//!   array's tasks would, so a rank never idles behind a chain of warm starts another rank could
//!   not start either; then the connections.

use super::Point;
use super::generate::{Lone, Manifest, SpaceEvent, SpaceRequest};
use super::plan::Plan;
use crate::cluster::Ranks;
use anyhow::{Context, Result};
use std::path::{Path, PathBuf};

/// The order the points are solved in: straight first, then by |turn rate|, speed and file
/// order (indices into `points`).
pub fn solving_order(points: &[Point]) -> Vec<usize> {
    let mut order: Vec<usize> = (0..points.len()).collect();
    order.sort_by(|&a, &b| {
        let key = |p: &Point| (p.turn_rate.abs(), p.speed);
        key(&points[a])
            .partial_cmp(&key(&points[b]))
            .unwrap_or(std::cmp::Ordering::Equal)
            .then(a.cmp(&b))
    });
    order
}

fn parts_dir(out: &Path) -> PathBuf {
    out.join("parts")
}

/// Where the task of point `stem` records its outcome.
pub(super) fn part_path(out: &Path, stem: &str) -> Result<PathBuf> {
    let dir = parts_dir(out);
    std::fs::create_dir_all(&dir).with_context(|| format!("creating {}", dir.display()))?;
    Ok(dir.join(format!("{stem}.ron")))
}

/// True once the task of point `stem` has recorded its outcome.
pub(super) fn recorded(out: &Path, stem: &str) -> bool {
    parts_dir(out).join(format!("{stem}.ron")).exists()
}

/// Records every part in `manifest` (in file-name order) and returns the part files read.
pub(super) fn merge(out: &Path, manifest: &mut Manifest) -> Result<Vec<PathBuf>> {
    let dir = parts_dir(out);
    let Ok(entries) = std::fs::read_dir(&dir) else {
        return Ok(Vec::new());
    };
    let mut files: Vec<PathBuf> = entries
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|x| x == "ron"))
        .collect();
    files.sort();
    for path in &files {
        let part: Manifest = crate::files::read_ron(path)?;
        for entry in part.entries {
            manifest.record(entry);
        }
    }
    Ok(files)
}

/// The claim file of point `stem`: the rank that creates it solves the point.
fn claim_path(out: &Path, stem: &str) -> PathBuf {
    parts_dir(out).join(format!("{stem}.claim"))
}

/// Claims point `stem` for this rank: true if no rank had (the file's creation is atomic,
/// on a shared filesystem too).
fn claim(out: &Path, stem: &str) -> Result<bool> {
    let path = claim_path(out, stem);
    match std::fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .open(&path)
    {
        Ok(_) => Ok(true),
        Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => Ok(false),
        Err(e) => Err(anyhow::anyhow!("claiming a point: {}: {e}", path.display())),
    }
}

/// Removes every claim (of an interrupted run, or of a finished one at its merge).
pub(super) fn clear_claims(out: &Path) {
    let Ok(entries) = std::fs::read_dir(parts_dir(out)) else {
        return;
    };
    for path in entries.flatten().map(|e| e.path()) {
        if path.extension().is_some_and(|x| x == "claim") {
            let _ = std::fs::remove_file(path);
        }
    }
}

/// The points of `request`'s space shared among the ranks of an MPI job: each rank in turn
/// claims the first point in solving order that no rank has claimed and whose sources have
/// ended, and solves it as a lone point; a rank with nothing ready waits. Once every point has
/// ended, the connections are claimed and solved the same way. Returns when every connection
/// has ended, on every rank; the merge (`generate` without `only`, on rank 0) follows.
pub fn spread_points(
    request: &SpaceRequest,
    exe: &Path,
    ranks: Ranks,
    on_event: &mut dyn FnMut(SpaceEvent),
) -> Result<()> {
    let plan = Plan::new(request)?;
    if ranks.is_root() {
        std::fs::create_dir_all(parts_dir(&request.out))
            .with_context(|| format!("creating {}", parts_dir(&request.out).display()))?;
        clear_claims(&request.out);
    }
    ranks.barrier();
    let manifest = plan.manifest()?;
    let stem = |i: usize| plan.points[i].stem(&plan.space);
    loop {
        let unclaimed: Vec<usize> = (0..plan.order.len())
            .filter(|&k| !claim_path(&request.out, &stem(plan.order[k])).exists())
            .collect();
        if unclaimed.is_empty() {
            break;
        }
        let ready = unclaimed
            .into_iter()
            .find(|&k| plan.ready_on_disk(plan.order[k], &manifest));
        match ready {
            Some(k) => {
                if claim(&request.out, &stem(plan.order[k]))? {
                    let lone = SpaceRequest {
                        only: Some(Lone::Point(k)),
                        ..request.clone()
                    };
                    super::generate::generate(&lone, exe, on_event)?;
                }
            }
            None => std::thread::sleep(std::time::Duration::from_millis(500)),
        }
    }
    // Claimed is not ended: wait for the last points of other ranks.
    ranks.barrier();
    // The connections: each between two points that have ended.
    for (k, c) in plan.space.connections.iter().enumerate() {
        if claim(&request.out, &super::file_stem(&c.name))? {
            let lone = SpaceRequest {
                only: Some(Lone::Connection(k)),
                ..request.clone()
            };
            super::generate::generate(&lone, exe, on_event)?;
        }
    }
    ranks.barrier();
    Ok(())
}
