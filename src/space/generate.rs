//! Solving a parameter space (McIntosh 2011, thesis §4.2.3 `generate(solver = "ipopt")`,
//! §4.2.4: one independent solve per problem): every point a transformed-cyclic gait solve in a
//! `motionlab gait-job` process of its own (IPOPT's linear solver is not thread-safe), `threads`
//! at a time, then the space's connections. A job with typed events ([`SpaceEvent`]), resumable
//! and never stopped by one point's failure.
//!
//! - **Order and warm starts.** Points are solved straight first, then by growing |turn rate|
//!   and speed. A point starts from the nearest point before it within reach (the same gait
//!   but for the turn rate, at most 67.5°/s away) once that one is solved, bent onto its own
//!   arc and solved with the exact Hessian; with none in reach, from the rest pose with the
//!   default staged solve. Solves run side by side as their sources allow. This is continuation
//!   across the space, which the thesis leaves to CMA-ES or hand-tuned timings.
//! - **A prior solve.** With [`SpaceRequest::from`], a point or connection whose valid gait clip
//!   is in that folder starts from it instead (the space solved again after a constraint was
//!   added: a start that breaks it is solved with [`crate::spacetime::gait::refit_options`]).
//! - **Mirror images.** Of two points that differ only by the sign of the turn rate, the first
//!   is solved and the second is its mirror image ([`GaitClip::mirrored`]), exactly as feasible
//!   and as costly; of two solved before, the cheaper one's image replaces the other.
//! - **Files.** `OUT/gait/STEM.ron` the solver's gait clip, `OUT/clips/STEM.ron` the library clip
//!   (tagged with speed, turn rate, family, cost), `OUT/space.ron` the manifest: every point's
//!   and connection's outcome. All written atomically.
//! - **Resume.** A point whose valid gait clip is in `OUT/gait` is not solved again; a point
//!   the manifest records as failed is retried only when asked.
//!   A library clip written before clips carried joint torques gets its gait's
//!   ([`crate::clip::from_gait`]).
//! - **Failure.** A solve that ends unconverged or with a violation over 1e-6 is recorded as
//!   failed, with its reason, and its gait clip kept as `OUT/failed/STEM.ron`; the job goes on
//!   (in the thesis "the animations are simply never solved", §4.2.3).

use super::plan::{REACH, separation};
use super::results::{Files, Unsolved, add_torques};
use super::{ParameterSpace, Point, file_stem};
use crate::model::planar::PlanarMotion;
use crate::spacetime::gait::GaitClip;
use crate::spacetime::job::{GaitRequest, PoolEvent, SolverPool};
use anyhow::{Context, Result};
use serde::{Deserialize, Serialize};
use std::path::{Path, PathBuf};

/// A space to solve.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SpaceRequest {
    pub space: PathBuf,
    pub out: PathBuf,
    /// Solves side by side (0: one per core).
    pub threads: usize,
    /// Solve again the points the manifest records as failed.
    pub retry_failed: bool,
    /// Another solve of this space (its output folder), whose gait clips start the points and
    /// connections of the same name: a space solved again after a constraint was added
    /// continues from its previous optima instead of from the rest pose and its neighbours.
    #[serde(default)]
    pub from: Option<PathBuf>,
    /// Solve only this point or connection ([`super::parts`]): one Slurm array task or MPI
    /// rank's share, recorded in `OUT/parts/`.
    #[serde(default)]
    pub only: Option<Lone>,
}

/// One point or connection of a space, solved alone.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum Lone {
    /// The point of this number in solving order (`space points` prints it); it waits for the
    /// points it starts from.
    Point(usize),
    /// The connection of this number in the space file's order; its two points must have
    /// ended.
    Connection(usize),
}

/// How one point or connection ended.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub enum Outcome {
    Solved {
        cost: f64,
        max_violation: f64,
        audit: f64,
        iterations: usize,
        seconds: f64,
        /// The point it started from, if any.
        warm_start: Option<String>,
        /// The point whose mirror image it is (not solved itself; see
        /// [`GaitClip::mirrored`]).
        #[serde(default)]
        mirror_of: Option<String>,
        /// When the solve ended above its start and the start was kept: the solve's own cost.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        start_kept: Option<f64>,
    },
    Failed {
        reason: String,
    },
}

/// One line of the manifest.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ManifestEntry {
    pub name: String,
    /// File stem of its clips.
    pub stem: String,
    pub outcome: Outcome,
}

/// `OUT/space.ron`: what the job has done so far.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Manifest {
    pub space: String,
    pub entries: Vec<ManifestEntry>,
}

impl Manifest {
    pub(super) fn record(&mut self, entry: ManifestEntry) {
        self.entries.retain(|e| e.name != entry.name);
        self.entries.push(entry);
    }

    pub(super) fn failed(&self, name: &str) -> bool {
        self.entries
            .iter()
            .any(|e| e.name == name && matches!(e.outcome, Outcome::Failed { .. }))
    }
}

/// Progress of a space job.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub enum SpaceEvent {
    /// The work: points and connections in all, how many are done already.
    Planned {
        points: usize,
        connections: usize,
        done: usize,
    },
    /// A solve started (`from`: the point it is warm-started from).
    Started {
        name: String,
        from: Option<String>,
    },
    /// A lone point's task waits for point `name`, which it may start from, to end.
    Waiting {
        name: String,
    },
    /// A point made as the mirror image of its opposite turn (`of`), not solved.
    Mirrored {
        name: String,
        of: String,
    },
    /// An iteration of a running solve.
    Iteration {
        name: String,
        iteration: usize,
        objective: f64,
        infeasibility: f64,
    },
    Solved {
        name: String,
        cost: f64,
        max_violation: f64,
        seconds: f64,
    },
    Failed {
        name: String,
        reason: String,
    },
    /// Everything has been tried.
    Finished {
        solved: usize,
        failed: usize,
    },
}

/// A solve to run in a process: its name and request.
pub(super) struct Job {
    pub(super) name: String,
    pub(super) stem: String,
    pub(super) request: GaitRequest,
    pub(super) warm_start: Option<String>,
    pub(super) family: Option<String>,
    pub(super) turn_rate: f64,
    /// A connection's ends, recorded on its library clip.
    pub(super) joins: Option<crate::clip::Joins>,
    /// The point it is the mirror image of.
    pub(super) mirror_of: Option<String>,
}

/// Waits for a job of `pool` to end, reporting iterations meanwhile.
fn wait(
    pool: &mut SolverPool,
    jobs: &[Job],
    on_event: &mut dyn FnMut(SpaceEvent),
) -> Option<(usize, Result<GaitClip, Unsolved>)> {
    loop {
        match pool.next_event()? {
            PoolEvent::Iteration {
                job,
                iteration,
                objective,
                infeasibility,
            } => on_event(SpaceEvent::Iteration {
                name: jobs[job].name.clone(),
                iteration,
                objective,
                infeasibility,
            }),
            PoolEvent::Done { job, clip } => return Some((job, clip.map_err(Unsolved::from))),
        }
    }
}

/// Writes point `i`'s gait clip as the mirror image of point `o`'s solved one and returns its
/// job; `None` when `o` is not solved or its creature is not mirror-symmetric.
fn mirror_job(
    space: &ParameterSpace,
    points: &[Point],
    i: usize,
    o: usize,
    gait_path: &dyn Fn(&str) -> PathBuf,
    solved: &dyn Fn(&str) -> Option<GaitClip>,
) -> Result<Option<Job>> {
    let (p, q) = (&points[i], &points[o]);
    let Some(source) = solved(&q.stem(space)) else {
        return Ok(None);
    };
    let skeleton = crate::spacetime::skeleton::Skeleton::load(&p.character)?;
    let Ok(gait) = source.mirrored(&skeleton) else {
        return Ok(None);
    };
    let stem = p.stem(space);
    crate::files::write_ron(&gait_path(&stem), &gait)
        .with_context(|| format!("writing the mirror image {stem}"))?;
    Ok(Some(Job {
        name: p.name(space),
        stem: stem.clone(),
        request: p.request(&space.solver, gait_path(&stem)),
        warm_start: None,
        family: p.family.clone(),
        turn_rate: p.turn_rate,
        joins: None,
        mirror_of: Some(q.name(space)),
    }))
}

/// When point `i` and its opposite turn are both solved and one costs more (by over 0.1%),
/// the other's mirror image replaces it: two solves of mirror-image problems that ended in
/// different local optima keep the better one, on both sides.
#[allow(clippy::too_many_arguments)]
fn settle_mirrors(
    space: &ParameterSpace,
    points: &[Point],
    partners: &[Option<usize>],
    i: usize,
    gait_path: &dyn Fn(&str) -> PathBuf,
    solved: &dyn Fn(&str) -> Option<GaitClip>,
    files: &Files,
    manifest: &mut Manifest,
    on_event: &mut dyn FnMut(SpaceEvent),
) -> Result<()> {
    let Some(o) = partners[i] else { return Ok(()) };
    let (Some(a), Some(b)) = (
        solved(&points[i].stem(space)),
        solved(&points[o].stem(space)),
    ) else {
        return Ok(());
    };
    let (worse, better) = if a.cost > b.cost * 1.001 {
        (i, o)
    } else if b.cost > a.cost * 1.001 {
        (o, i)
    } else {
        return Ok(());
    };
    if let Some(job) = mirror_job(space, points, worse, better, gait_path, solved)? {
        on_event(SpaceEvent::Mirrored {
            name: job.name.clone(),
            of: points[better].name(space),
        });
        let gait = solved(&job.stem).ok_or(Unsolved::MirrorNotWritten);
        files.finish(&job, gait, manifest, on_event)?;
    }
    Ok(())
}

/// The first frame where a foot lands (down at k, not at k − 1, cyclically); 0 if none.
fn first_touchdown(clip: &GaitClip) -> usize {
    let n = clip.contacts.len();
    (0..n)
        .find(|&k| {
            let prev = (k + n - 1) % n;
            (0..clip.contacts[k].len())
                .any(|f| clip.contacts[k][f].is_some() && clip.contacts[prev][f].is_none())
        })
        .unwrap_or(0)
}

/// Solves the space of `request` with `gait-job` processes of `exe`, reporting to `on_event`.
/// Returns the manifest (also written to `OUT/space.ron`).
pub fn generate(
    request: &SpaceRequest,
    exe: &Path,
    on_event: &mut dyn FnMut(SpaceEvent),
) -> Result<Manifest> {
    let plan = super::plan::Plan::new(request)?;
    let super::plan::Plan {
        space,
        points,
        order,
        rank,
        partners,
        priors,
        ..
    } = &plan;
    let (space, points) = (space, points.as_slice());
    let dirs = ["gait", "clips", "failed"].map(|d| request.out.join(d));
    for d in &dirs {
        std::fs::create_dir_all(d).with_context(|| format!("creating {}", d.display()))?;
    }
    let [_, clip_dir, failed_dir] = dirs;
    let manifest_path = request.out.join("space.ron");
    let mut manifest = plan.manifest()?;
    if let Some(Lone::Point(k)) = request.only {
        anyhow::ensure!(
            k < points.len(),
            "point {k}: {} has {} points, numbered 0 to {} in solving order (`motionlab space \
             points` lists them)",
            request.space.display(),
            points.len(),
            points.len().saturating_sub(1)
        );
    } else if let Some(Lone::Connection(k)) = request.only {
        anyhow::ensure!(
            k < space.connections.len(),
            "connection {k}: {} has {} connections, numbered from 0 in file order",
            request.space.display(),
            space.connections.len()
        );
    } else {
        // The outcomes of lone points' tasks join the manifest, which is written before their
        // parts go (so that an interrupted merge loses nothing, and a part never overrides a
        // later outcome).
        let parts = super::parts::merge(&request.out, &mut manifest)?;
        super::parts::clear_claims(&request.out);
        if !parts.is_empty() {
            crate::files::write_ron(&manifest_path, &manifest)
                .with_context(|| format!("writing {}", manifest_path.display()))?;
            for part in parts {
                let _ = std::fs::remove_file(part);
            }
        }
    }
    let gait_path = |stem: &str| plan.gait_path(stem);
    let solved = |stem: &str| plan.solved(stem);
    let prior = |stem: &str| super::plan::prior(request.from.as_deref(), stem);
    let prior_name = |name: &str| {
        let dir = request
            .from
            .as_ref()
            .expect("a prior clip comes from a folder");
        format!("{name} in {}", dir.display())
    };
    let skip = |name: &str, stem: &str, manifest: &Manifest| {
        solved(stem).is_some() || (!request.retry_failed && manifest.failed(name))
    };
    // A lone point (its index) or a lone connection (its index), or neither.
    let lone = match request.only {
        Some(Lone::Point(k)) => Some(order[k]),
        _ => None,
    };
    let lone_connection = match request.only {
        Some(Lone::Connection(k)) => Some(k),
        _ => None,
    };
    let alone = request.only.is_some();
    let counted_point = |i: usize| (!alone || lone == Some(i)) as usize;
    let counted_connection = |k: usize| (!alone || lone_connection == Some(k)) as usize;
    let done = points
        .iter()
        .enumerate()
        .filter(|(i, p)| counted_point(*i) == 1 && skip(&p.name(space), &p.stem(space), &manifest))
        .count()
        + space
            .connections
            .iter()
            .enumerate()
            .filter(|(k, c)| {
                counted_connection(*k) == 1 && skip(&c.name, &file_stem(&c.name), &manifest)
            })
            .count();
    on_event(SpaceEvent::Planned {
        points: (0..points.len()).map(counted_point).sum(),
        connections: (0..space.connections.len()).map(counted_connection).sum(),
        done,
    });
    let (mut n_solved, mut n_failed) = (0, 0);
    let threads = if request.threads == 0 {
        std::thread::available_parallelism().map_or(1, |n| n.get())
    } else {
        request.threads
    };
    let mut solvers = SolverPool::new(exe, threads);
    let waits_for = |i: usize, o: usize| plan.waits_for(i, o);
    if let Some(i) = lone {
        // A lone point: wait for the points it may start from to end (their tasks run
        // elsewhere), then record it in a part of its own.
        let needed: Vec<usize> = (0..points.len()).filter(|&o| waits_for(i, o)).collect();
        for o in needed {
            let mut said = false;
            while !plan.ended_on_disk(o, &manifest) {
                if !said {
                    on_event(SpaceEvent::Waiting {
                        name: points[o].name(space),
                    });
                    said = true;
                }
                std::thread::sleep(std::time::Duration::from_secs(1));
            }
        }
    }
    let lone_skipped =
        lone.is_some_and(|i| skip(&points[i].name(space), &points[i].stem(space), &manifest));
    // A lone connection is skipped as points are, by its clip or a recorded failure.
    let lone_connection_skipped = lone_connection.is_some_and(|k| {
        let c = &space.connections[k];
        skip(&c.name, &file_stem(&c.name), &manifest)
    });
    if alone {
        manifest = Manifest {
            space: space.name.clone(),
            entries: Vec::new(),
        };
    }
    let files = Files {
        clips: clip_dir,
        failed: failed_dir,
        manifest: match (lone, lone_connection) {
            (Some(i), _) => super::parts::part_path(&request.out, &points[i].stem(space))?,
            (_, Some(k)) => {
                super::parts::part_path(&request.out, &file_stem(&space.connections[k].name))?
            }
            _ => manifest_path.clone(),
        },
    };
    // Points solved before (or by hand) whose library clip or manifest line is missing get them.
    for p in points.iter().filter(|_| !alone) {
        let (name, stem) = (p.name(space), p.stem(space));
        let listed = manifest.entries.iter().any(|e| e.name == name);
        if let Some(gait) = solved(&stem)
            && (!listed || !files.clips.join(format!("{stem}.ron")).exists())
        {
            let job = Job {
                name,
                stem: stem.clone(),
                request: p.request(&space.solver, gait_path(&stem)),
                warm_start: None,
                family: p.family.clone(),
                turn_rate: p.turn_rate,
                joins: None,
                mirror_of: None,
            };
            files.finish(&job, Ok(gait), &mut manifest, &mut |_| {})?;
        }
    }
    // Library clips written before clips carried their joint torques get them.
    let connection_clips = space.connections.iter().filter_map(|c| {
        let from = points.iter().find(|p| p.name(space) == c.from)?;
        Some((file_stem(&c.name), from.character.clone()))
    });
    for (stem, character) in points
        .iter()
        .map(|p| (p.stem(space), p.character.clone()))
        .chain(connection_clips)
        .filter(|_| !alone)
    {
        if let Some(gait) = solved(&stem) {
            add_torques(&files.clips.join(format!("{stem}.ron")), &gait, &character)?;
        }
    }
    // Of two opposite turns solved before, the cheaper one's mirror image replaces the other.
    for i in (0..points.len()).filter(|_| !alone) {
        settle_mirrors(
            space,
            points,
            partners,
            i,
            &gait_path,
            &solved,
            &files,
            &mut manifest,
            on_event,
        )?;
    }
    // Points in the order of the continuation ([`super::parts::solving_order`]). Each starts
    // from the nearest point before it within reach, once that one has ended (solved: its clip;
    // failed: the next nearest, or the rest pose). A lone point's sources have ended already.
    let mut pending: Vec<usize> = match lone {
        Some(i) if !lone_skipped => vec![i],
        _ if alone => Vec::new(),
        _ => order
            .iter()
            .copied()
            .filter(|&i| !skip(&points[i].name(space), &points[i].stem(space), &manifest))
            .collect(),
    };
    let mut ended: Vec<bool> = (0..points.len()).map(|i| !pending.contains(&i)).collect();
    let mut jobs: Vec<Job> = Vec::new();
    let mut job_point: Vec<usize> = Vec::new();
    loop {
        // Start what can start.
        while solvers.busy() < threads {
            // Every nearer earlier candidate, and an earlier mirror image, must have ended; a
            // point with a prior clip waits only for its mirror image.
            let ready = pending
                .iter()
                .position(|&i| (0..points.len()).all(|o| ended[o] || !waits_for(i, o)));
            let Some(k) = ready else { break };
            let i = pending.remove(k);
            let p = &points[i];
            let stem = p.stem(&space);
            // The mirror image of a solved opposite turn instead of a solve.
            if let Some(o) = partners[i].filter(|&o| rank[o] < rank[i])
                && let Some(job) = mirror_job(&space, &points, i, o, &gait_path, &solved)?
            {
                ended[i] = true;
                on_event(SpaceEvent::Mirrored {
                    name: job.name.clone(),
                    of: points[o].name(&space),
                });
                let gait = solved(&job.stem).ok_or(Unsolved::MirrorNotWritten);
                if files.finish(&job, gait, &mut manifest, on_event)? {
                    n_solved += 1;
                } else {
                    n_failed += 1;
                }
                continue;
            }
            let mut request = p.request(&space.solver, gait_path(&stem));
            let own_start = priors[i].clone();
            let source = points
                .iter()
                .enumerate()
                .filter(|(o, q)| {
                    rank[*o] < rank[i]
                        && q.character == p.character
                        && q.ceiling == p.ceiling
                        && separation(p, q) <= REACH
                })
                .filter(|(_, q)| solved(&q.stem(&space)).is_some())
                .min_by(|(_, a), (_, b)| separation(p, a).total_cmp(&separation(p, b)))
                .map(|(_, q)| q)
                .filter(|_| own_start.is_none());
            let warm_start = if let Some(path) = own_start {
                request.init = Some(path);
                Some(prior_name(&p.name(&space)))
            } else {
                source.map(|o| {
                    request.init = Some(gait_path(&o.stem(&space)));
                    o.name(&space)
                })
            };
            if warm_start.is_some() {
                // From a solved neighbour, or the same point solved before, the exact Hessian
                // converges directly.
                request.hessian = crate::spacetime::job::GaitHessian::Exact;
            }
            let job = Job {
                name: p.name(&space),
                stem,
                request,
                warm_start,
                family: p.family.clone(),
                turn_rate: p.turn_rate,
                joins: None,
                mirror_of: None,
            };
            on_event(SpaceEvent::Started {
                name: job.name.clone(),
                from: job.warm_start.clone(),
            });
            let index = jobs.len();
            let started = solvers.start(index, &job.request);
            jobs.push(job);
            job_point.push(i);
            if let Err(e) = started {
                ended[i] = true;
                if files.finish(&jobs[index], Err(e.into()), &mut manifest, on_event)? {
                    n_solved += 1;
                } else {
                    n_failed += 1;
                }
            }
        }
        let Some((index, result)) = wait(&mut solvers, &jobs, on_event) else {
            break;
        };
        ended[job_point[index]] = true;
        if files.finish(&jobs[index], result, &mut manifest, on_event)? {
            n_solved += 1;
            if lone.is_some() {
                // Its opposite turn, if solved, is the merge's to settle.
                continue;
            }
            settle_mirrors(
                &space,
                &points,
                &partners,
                job_point[index],
                &gait_path,
                &solved,
                &files,
                &mut manifest,
                on_event,
            )?;
        } else {
            n_failed += 1;
        }
    }
    if lone.is_some() || lone_connection_skipped {
        if manifest.entries.is_empty() {
            // Solved or failed before: nothing new, but the part says it has ended.
            crate::files::write_ron(&files.manifest, &manifest)
                .with_context(|| format!("writing {}", files.manifest.display()))?;
        }
        on_event(SpaceEvent::Finished {
            solved: n_solved,
            failed: n_failed,
        });
        return Ok(manifest);
    }
    // Connections, between solved points.
    let by_name = |name: &str| points.iter().find(|p| p.name(&space) == name);
    let mut connection_jobs = Vec::new();
    for (_, c) in space
        .connections
        .iter()
        .enumerate()
        .filter(|(k, _)| lone_connection.is_none_or(|l| l == *k))
    {
        let stem = file_stem(&c.name);
        if skip(&c.name, &stem, &manifest) {
            continue;
        }
        let (Some(a), Some(b)) = (by_name(&c.from), by_name(&c.to)) else {
            continue;
        };
        let (Some(ga), Some(gb)) = (solved(&a.stem(&space)), solved(&b.stem(&space))) else {
            let reason = format!("`{}` or `{}` is not solved", c.from, c.to);
            on_event(SpaceEvent::Failed {
                name: c.name.clone(),
                reason: reason.clone(),
            });
            n_failed += 1;
            manifest.record(ManifestEntry {
                name: c.name.clone(),
                stem,
                outcome: Outcome::Failed { reason },
            });
            continue;
        };
        let (from_frame, to_frame) = (
            c.from_frame.unwrap_or_else(|| first_touchdown(&ga)),
            c.to_frame.unwrap_or_else(|| first_touchdown(&gb)),
        );
        let skeleton = crate::spacetime::skeleton::Skeleton::load(&a.character)?;
        // The connection as the solve will see it, before its placement is chosen.
        let joined = crate::spacetime::gait::Connection {
            from_frame,
            to_frame,
            frames: c.frames,
            duration: c.duration,
            placement: None,
            swings: c.swings.clone(),
            pivots: c.pivots.clone(),
        };
        let heading_root = skeleton.with_heading_root();
        let placement = match c.offset {
            // B's heading frame on A's, moved by the offset (left is −z: a left turn is +yaw).
            Some((forward, left, turn_deg)) => {
                let there = ga.heading_at(from_frame as i64).compose(&PlanarMotion {
                    x: forward,
                    z: -left,
                    yaw: turn_deg.to_radians(),
                });
                let placement = PlanarMotion::between(&gb.heading_at(to_frame as i64), &there);
                // A pivoting foot stays where it is: the offset's turn stands, its place moves.
                joined.pivots_kept(&heading_root, &ga, &gb, placement)
            }
            None => joined.matched_placement(&heading_root, &ga, &gb),
        };
        let mut request = space.connection_request(
            c,
            a.character.clone(),
            gait_path(&a.stem(&space)),
            gait_path(&b.stem(&space)),
            from_frame,
            to_frame,
            placement,
            gait_path(&stem),
        );
        // The same objective as the points it joins.
        request.weights = a.weights;
        request.posture_limbs = a.posture_limbs.clone();
        request.flat_feet = a.flat_feet;
        request.sole_clearance = a.sole_clearance;
        request.swing_clearance = a.swing_clearance;
        // The connection solved before starts it instead of the two ends' blend.
        let warm_start = prior(&stem).map(|path| {
            request.init = Some(path);
            prior_name(&c.name)
        });
        connection_jobs.push(Job {
            name: c.name.clone(),
            stem,
            request,
            warm_start,
            family: c.family.clone(),
            turn_rate: 0.0,
            mirror_of: None,
            joins: Some(crate::clip::Joins {
                from: a.stem(&space),
                from_frame,
                to: b.stem(&space),
                to_frame,
                placement,
            }),
        });
    }
    let mut next = 0;
    loop {
        while solvers.busy() < threads && next < connection_jobs.len() {
            let job = &connection_jobs[next];
            on_event(SpaceEvent::Started {
                name: job.name.clone(),
                from: job.warm_start.clone(),
            });
            if let Err(e) = solvers.start(next, &job.request) {
                if files.finish(job, Err(e.into()), &mut manifest, on_event)? {
                    n_solved += 1;
                } else {
                    n_failed += 1;
                }
            }
            next += 1;
        }
        let Some((index, result)) = wait(&mut solvers, &connection_jobs, on_event) else {
            break;
        };
        if files.finish(&connection_jobs[index], result, &mut manifest, on_event)? {
            n_solved += 1;
        } else {
            n_failed += 1;
        }
    }
    crate::files::write_ron(&files.manifest, &manifest)
        .with_context(|| format!("writing {}", files.manifest.display()))?;
    on_event(SpaceEvent::Finished {
        solved: n_solved,
        failed: n_failed,
    });
    Ok(manifest)
}
