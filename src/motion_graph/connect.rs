//! Physically valid transitions (Wampler 2012, thesis §5.2.1 and App. C):
//! where a graph blends from frame i of clip A into clip B, solve instead a connecting clip with
//! the gait NLP whose first two frames are A's frames i and i + 1 and whose last two are B's
//! frames (placed by the transition's alignment) L − 2 and L − 1 frames on, so that A →
//! connection → B is one physically valid motion. Rebuilt with the connections, the graph
//! enters each through an exact transition and drops the blend it replaces
//! ([`super::build`]).
//!
//! The connections chosen are the cheapest blended transition of each ordered pair of cyclic clips,
//! cheapest first, up to a budget; each is a `gait-job` process ([`SolverPool`]). The clips
//! need their solver-side gait clips (a space's `gait/` folder) for loads and springs.

use super::{FrameRef, LoadedGraph};
use crate::clip::{CharacterRef, Joins};
use crate::spacetime::gait::{Connection, GaitClip};
use crate::spacetime::job::{ConnectRequest, GaitRequest, PoolError, PoolEvent, SolverPool};
use anyhow::{Context, Result};
use std::path::{Path, PathBuf};

/// What to connect and where the results go.
#[derive(Clone, Debug)]
pub struct ConnectOptions {
    /// The gait clips of the graph's clips, by the same file stems.
    pub gait_dir: PathBuf,
    /// `OUT/gait/` and `OUT/clips/` receive the connections.
    pub out: PathBuf,
    /// Frames of each connection (both ends' pairs included).
    pub frames: usize,
    /// At most this many connections (the cheapest transitions first).
    pub budget: usize,
    pub threads: usize,
    pub max_iterations: usize,
    /// The objective each clip was solved with, by clip file stem (a parameter space's points:
    /// `graph connect --space`). A connection is solved with the objective of the clip it leaves,
    /// as `space generate` solves a space's own connections; without one, the gait NLP's default
    /// (no posture term, point feet free to tilt), which the shipped clips were not solved with.
    pub objectives: std::collections::BTreeMap<String, ClipObjective>,
}

/// The objective terms a clip's gait was solved with.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct ClipObjective {
    pub weights: Option<crate::spacetime::gait::GaitWeights>,
    pub posture_limbs: Vec<String>,
    pub flat_feet: bool,
}

/// The objective of every point of a parameter space, by its clips' file stem.
pub fn objectives_of(
    space: &crate::space::ParameterSpace,
) -> Result<std::collections::BTreeMap<String, ClipObjective>, crate::space::SpaceProblem> {
    Ok(space
        .points()?
        .into_iter()
        .map(|p| {
            (
                p.stem(space),
                ClipObjective {
                    weights: p.weights,
                    posture_limbs: p.posture_limbs.clone(),
                    flat_feet: p.flat_feet,
                },
            )
        })
        .collect())
}

/// Why a connection is not a physically valid one.
#[derive(Clone, Debug, thiserror::Error)]
pub enum ConnectionFailure {
    #[error("the solve ended {status} with violation {max_violation:.2e}")]
    Infeasible { status: String, max_violation: f64 },
    #[error(transparent)]
    Pool(#[from] PoolError),
}

/// How one connection ended.
#[derive(Clone, Debug)]
pub struct ConnectionOutcome {
    pub name: String,
    pub from: FrameRef,
    pub to: FrameRef,
    /// The blend it replaces (m).
    pub blend_cost: f64,
    /// Feasible: the gait cost and largest violation; failed: why.
    pub result: Result<(f64, f64), ConnectionFailure>,
    /// How the solver ended (IPOPT's status): a feasible iterate at the iteration limit is a
    /// physically valid connection but not an optimal one.
    pub status: String,
}

/// The blended transitions to replace: the cheapest of each ordered pair of cyclic clips.
pub fn choose(graph: &LoadedGraph, budget: usize) -> Vec<usize> {
    let mut best: std::collections::BTreeMap<(usize, usize), usize> = Default::default();
    for (k, t) in graph.graph.transitions.iter().enumerate() {
        // Open clips (starts, stops, connections) are joined exactly at their ends already; a
        // blend into or out of their middles is not a gait change worth a solve.
        let open = |c: usize| graph.graph.clips[c].cycle.is_none();
        if t.exact || open(t.from.clip) || open(t.to.clip) {
            continue;
        }
        let key = (t.from.clip, t.to.clip);
        let better = best
            .get(&key)
            .is_none_or(|&b| t.cost < graph.graph.transitions[b].cost);
        if better {
            best.insert(key, k);
        }
    }
    let mut chosen: Vec<usize> = best.into_values().collect();
    chosen.sort_by(|&a, &b| {
        graph.graph.transitions[a]
            .cost
            .total_cmp(&graph.graph.transitions[b].cost)
    });
    chosen.truncate(budget);
    chosen
}

/// One connection to solve: its file stem, the transition it replaces, the gait job's request
/// and where it joins the graph.
#[derive(Clone, Debug)]
pub struct ConnectionJob {
    pub name: String,
    pub transition: usize,
    pub request: GaitRequest,
    pub joins: Joins,
}

/// The gait jobs of the connections for the chosen transitions of `graph` (solved into
/// `OUT/gait/`).
pub fn jobs(graph: &LoadedGraph, options: &ConnectOptions) -> Result<Vec<ConnectionJob>> {
    let gait_out = options.out.join("gait");
    let g = &graph.graph;
    let read_gait = |name: &str| -> Result<GaitClip> {
        crate::files::read_ron(&options.gait_dir.join(format!("{name}.ron")))
    };
    let mut jobs = Vec::new();
    for k in choose(graph, options.budget) {
        let t = &g.transitions[k];
        let (ca, cb) = (&g.clips[t.from.clip], &g.clips[t.to.clip]);
        let (a, b) = (read_gait(&ca.name)?, read_gait(&cb.name)?);
        // The transition plays B's frame `to` after A's `from`; B's frame before it was aligned
        // with A's `from`. The connection ends L − 1 frames after that one, B moved the same way.
        let n_b = cb.frames as i64;
        let similar = t.to.frame as i64 - 1;
        let (similar, align) = if similar < 0 {
            // `to` is frame 0 after a wrap: the similar frame is N − 1 of the previous loop.
            (
                n_b - 1,
                t.motion.compose(&cb.cycle.unwrap_or_default().inverse()),
            )
        } else {
            (similar, t.motion)
        };
        let end = similar + options.frames as i64 - 1;
        let loops = end.div_euclid(n_b);
        let placement = align.compose(&cb.cycle.unwrap_or_default().power(loops));
        let to_frame = end.rem_euclid(n_b) as usize;
        let dt = 0.5 * (a.frame_time() + b.frame_time());
        let name = format!(
            "link_{}_{}_to_{}_{}",
            ca.name, t.from.frame, cb.name, to_frame
        );
        let stem = crate::space::file_stem(&name);
        let request = GaitRequest {
            max_iterations: options.max_iterations,
            out: Some(gait_out.join(format!("{stem}.ron"))),
            connect: Some(ConnectRequest {
                from: options.gait_dir.join(format!("{}.ron", ca.name)),
                to: options.gait_dir.join(format!("{}.ron", cb.name)),
                connection: Connection {
                    from_frame: t.from.frame,
                    to_frame,
                    frames: options.frames,
                    duration: dt * (options.frames - 1) as f64,
                    placement: Some(placement),
                    swings: Vec::new(),
                    pivots: Vec::new(),
                },
            }),
            ..GaitRequest::new(graph.character_path.clone(), 0.5 * (ca.speed + cb.speed))
        };
        let mut request = request;
        if let Some(o) = options.objectives.get(&ca.name) {
            request.weights = o.weights;
            request.posture_limbs = o.posture_limbs.clone();
            request.flat_feet = o.flat_feet;
        }
        jobs.push(ConnectionJob {
            name: stem,
            transition: k,
            request,
            joins: Joins {
                from: ca.name.clone(),
                from_frame: t.from.frame,
                to: cb.name.clone(),
                to_frame,
                placement,
            },
        });
    }
    Ok(jobs)
}

/// Solves connections for the chosen transitions of `graph`, `exe gait-job` processes, reporting
/// each as it ends.
pub fn connect(
    graph: &LoadedGraph,
    options: &ConnectOptions,
    exe: &Path,
    on_done: &mut dyn FnMut(&ConnectionOutcome),
) -> Result<Vec<ConnectionOutcome>> {
    let (gait_out, clip_out) = (options.out.join("gait"), options.out.join("clips"));
    for d in [&gait_out, &clip_out] {
        std::fs::create_dir_all(d).with_context(|| format!("creating {}", d.display()))?;
    }
    let jobs = jobs(graph, options)?;
    let g = &graph.graph;
    let text = std::fs::read_to_string(&graph.character_path)
        .with_context(|| format!("reading {}", graph.character_path.display()))?;
    let character_ref = CharacterRef::new(&graph.character_path, &text);
    let mut pool = SolverPool::new(exe, options.threads.max(1));
    let mut outcomes = Vec::new();
    let mut next = 0;
    loop {
        while pool.busy() < options.threads.max(1) && next < jobs.len() {
            pool.start(next, &jobs[next].request)?;
            next += 1;
        }
        let Some(event) = pool.next_event() else {
            break;
        };
        let PoolEvent::Done { job, clip } = event else {
            continue;
        };
        let j = &jobs[job];
        let t = &g.transitions[j.transition];
        let status = clip
            .as_ref()
            .map_or_else(|_| "no result".to_string(), |g| g.status.clone());
        let result = match clip {
            Ok(gait) if gait.is_valid() => {
                let mut clip = crate::clip::from_gait::clip_of_gait(
                    &gait,
                    &graph.character,
                    character_ref.clone(),
                )?;
                clip.tags.source = "connection".into();
                clip.tags.family = Some("transition".into());
                clip.joins = Some(j.joins.clone());
                clip.save(&clip_out.join(format!("{}.ron", j.name)))?;
                Ok((gait.cost, gait.max_violation))
            }
            Ok(gait) => Err(ConnectionFailure::Infeasible {
                status: gait.status,
                max_violation: gait.max_violation,
            }),
            Err(e) => Err(e.into()),
        };
        let outcome = ConnectionOutcome {
            name: j.name.clone(),
            from: t.from,
            to: t.to,
            blend_cost: t.cost,
            result,
            status,
        };
        on_done(&outcome);
        outcomes.push(outcome);
    }
    Ok(outcomes)
}
