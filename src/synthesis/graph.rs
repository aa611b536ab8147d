//! The graph a controller grows (Wampler 2012, thesis §5.2): a base cycle G₀ and the
//! transitions added to it, each a solved connecting clip whose first two and last two frames
//! are pairs of consecutive frames of the cycle, so every edge is physically valid. The graph is
//! the motion graph `steer` and the app play ([`crate::motion_graph`], exact transitions only),
//! and its controller the value-function policy over it ([`SteeringMdp`]).
//!
//! - **cost(G)** (Eq. 5.2): the policy's expected cost per frame under its own influence, the
//!   per-frame cost being the task's plus the biomechanical term weighted against it (Eq. 5.1).
//!   A solved clip's frames carry the log of its gait objective per frame against the base
//!   cycle's ([`effort`]).
//! - **A candidate** (a template's initialisation M̃, not yet solved): added to the graph as if
//!   it were solved, it gives cost̃(G ∪ M̃); its initialisation quality q (Eq. 5.3) is the sum
//!   over its frames of the distance to the nearest graph frame. Its frames' biomechanical cost
//!   is interpolated with weights d⁻²: the thesis interpolates from the k nearest graph frames
//!   (Kovar et al.'s frame distance), which is used until a template has solved; after that the
//!   caller interpolates over the solved templates' parameters instead. The blend M̃ is near the
//!   walk's frames whatever its turn, and the frames' estimate put a sharp turn at the walk's
//!   cost (0), 50–200 times below what its solve cost: the synthesis then solved the same 80°
//!   turn three times over, each copy predicted to help.

use crate::clip::{CharacterRef, Clip, Joins};
use crate::model::Character;
use crate::model::skin::SkinPoints;
use crate::motion_graph::distance::WindowFeature;
use crate::motion_graph::{FrameRef, GraphSettings, LoadedGraph, MotionGraph};
use crate::spacetime::gait::{Connection, GaitClip, PlanarMotion};
use crate::steering::mdp::{MdpSettings, SteeringMdp};
use anyhow::{Context, Result};
use rayon::prelude::*;
use std::collections::HashMap;
use std::hash::{Hash, Hasher};
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

/// Graph frames whose biomechanical cost a candidate frame's is interpolated from.
pub const NEAREST: usize = 4;

/// A clip of the growing graph: its name (the file stem it is written as), its solved gait and,
/// for a transition, where it joins the base and the template parameters it was solved for.
#[derive(Clone, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct GrownClip {
    pub name: String,
    pub gait: GaitClip,
    pub joins: Option<Joins>,
    #[serde(default)]
    pub sigma: Option<super::surrogate::Template>,
}

/// How cost(G) is measured.
#[derive(Clone, Debug, PartialEq)]
pub struct Measure {
    pub mdp: MdpSettings,
    /// Weight of the biomechanical cost ([`effort`]: the log of a clip's objective per frame
    /// against the base cycle's) against the task's (rad); the thesis weighs it 1 to 0.1.
    pub effort_weight: f64,
    /// Samples advected by the policy, frames each, and their seed.
    pub samples: usize,
    pub frames: usize,
    pub seed: u64,
}

/// The graph, measured: its motion graph, the MDP's expected cost per frame, and what a
/// candidate's frames came out as.
pub struct Measured {
    pub graph: LoadedGraph,
    pub cost: f64,
    /// For a candidate: its quality q (Eq. 5.3, m summed over its frames).
    pub quality: Option<f64>,
}

/// The character the clips are of, with its file, and the frame features of the graph clips
/// measured so far.
pub struct Creature {
    pub character: Character,
    pub path: PathBuf,
    pub reference: CharacterRef,
    features: FeatureCache,
}

/// The window features (the frame distance's, Kovar et al.) of every grown clip measured,
/// keyed by the clip's name and content: a graph clip does not change once solved, and a
/// synthesis compares thousands of initialisations with the same graph.
#[derive(Default)]
struct FeatureCache {
    skin: std::sync::OnceLock<SkinPoints>,
    clips: Mutex<HashMap<(String, u64), Arc<Vec<WindowFeature>>>>,
}

impl Creature {
    pub fn load(path: &Path) -> Result<Self> {
        let text =
            std::fs::read_to_string(path).with_context(|| format!("reading {}", path.display()))?;
        let character = crate::model::load_character(path)
            .map_err(|e| anyhow::anyhow!("{}: {e}", path.display()))?;
        Ok(Self {
            character,
            path: path.to_path_buf(),
            reference: CharacterRef::new(path, &text),
            features: FeatureCache::default(),
        })
    }

    /// Every frame's window feature of `grown` as a loose clip (its ends as they are, no
    /// joins), with the graph's default window.
    fn window_features(&self, grown: &GrownClip) -> Result<Vec<WindowFeature>> {
        let clip = self.clip(&GrownClip {
            joins: None,
            ..grown.clone()
        })?;
        let skin = self
            .features
            .skin
            .get_or_init(|| SkinPoints::sample(&self.character));
        let clouds = crate::motion_graph::clip_clouds(&self.character, skin, &clip);
        Ok(crate::motion_graph::window_features(
            &clouds,
            clip.cycle_motion(),
            clip.rate,
            &synthesis_settings().window,
        ))
    }

    /// [`Self::window_features`] of a graph clip, computed once.
    fn graph_features(&self, grown: &GrownClip) -> Result<Arc<Vec<WindowFeature>>> {
        let mut hasher = std::hash::DefaultHasher::new();
        for v in grown.gait.frames.iter().flatten() {
            v.to_bits().hash(&mut hasher);
        }
        grown.gait.period.to_bits().hash(&mut hasher);
        let key = (grown.name.clone(), hasher.finish());
        if let Some(f) = self.lock_features().get(&key) {
            return Ok(f.clone());
        }
        let features = Arc::new(self.window_features(grown)?);
        self.lock_features().insert(key, features.clone());
        Ok(features)
    }

    fn lock_features(
        &self,
    ) -> std::sync::MutexGuard<'_, HashMap<(String, u64), Arc<Vec<WindowFeature>>>> {
        self.features
            .clips
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    /// The creature as the gait solver sees it.
    pub fn skeleton(&self) -> Result<crate::spacetime::skeleton::Skeleton> {
        crate::spacetime::skeleton::Skeleton::from_character(&self.character)
            .map_err(|p| anyhow::anyhow!("{}: not a creature: {p:?}", self.path.display()))
    }

    /// The clip of a grown clip, tagged and joined.
    pub fn clip(&self, grown: &GrownClip) -> Result<Clip> {
        let mut clip = crate::clip::from_gait::clip_of_gait(
            &grown.gait,
            &self.character,
            self.reference.clone(),
        )
        .with_context(|| format!("clip `{}`", grown.name))?;
        if grown.joins.is_some() {
            clip.tags.source = "connection".into();
            clip.tags.family = Some("transition".into());
        } else {
            // A cycle walks or runs (steering's gait vocabulary): it runs when some frame has
            // no foot down.
            let family = if grown.gait.has_flight() {
                "run"
            } else {
                "walk"
            };
            clip.tags.family = Some(family.into());
        }
        clip.joins = grown.joins.clone();
        Ok(clip)
    }
}

/// The motion graph of `clips` (the base first), each clip's file `folder/NAME.ron`, and
/// `candidate` (a template's unsolved clips) added last; exact transitions only.
pub fn motion_graph(
    creature: &Creature,
    clips: &[GrownClip],
    candidate: &[GrownClip],
    folder: &Path,
) -> Result<LoadedGraph> {
    let mut named = Vec::new();
    for g in clips.iter().chain(candidate) {
        named.push((
            g.name.clone(),
            folder.join(format!("{}.ron", g.name)),
            creature.clip(g)?,
        ));
    }
    let graph = crate::motion_graph::build_graph(
        &creature.character,
        &creature.path,
        &named,
        &synthesis_settings(),
    )?;
    LoadedGraph::new(
        graph,
        creature.character.clone(),
        creature.path.clone(),
        named.into_iter().map(|(_, _, c)| c).collect(),
    )
}

/// Per frame of each of `candidate`'s clips (a template's unsolved clips): every frame of
/// `clips` as (distance, clip index), nearest first (the motion graph's frame distance, Kovar
/// et al.; connections compared at every frame, the graph's own map enters them at their ends
/// only). The graph clips' features are computed once per clip ([`Creature`]'s cache).
fn candidate_distances(
    creature: &Creature,
    clips: &[GrownClip],
    candidate: &[GrownClip],
) -> Result<Vec<Vec<Vec<(f64, usize)>>>> {
    if candidate.is_empty() {
        return Ok(Vec::new());
    }
    let graph: Vec<Arc<Vec<WindowFeature>>> = clips
        .iter()
        .map(|g| creature.graph_features(g))
        .collect::<Result<_>>()?;
    candidate
        .iter()
        .map(|k| {
            let features = creature.window_features(k)?;
            Ok(features
                .par_iter()
                .map(|at| {
                    let mut near: Vec<(f64, usize)> = graph
                        .iter()
                        .enumerate()
                        .flat_map(|(c, fs)| fs.iter().map(move |g| (at.distance_only(g) as f64, c)))
                        .collect();
                    near.sort_by(|a, b| a.0.total_cmp(&b.0));
                    near
                })
                .collect())
        })
        .collect()
}

/// The initialisation quality q (Eq. 5.3) of a template's unsolved `candidate` clips against
/// the graph of `clips`: over their frames, the sum of the distances to the nearest graph frame.
pub fn quality(creature: &Creature, clips: &[GrownClip], candidate: &[GrownClip]) -> Result<f64> {
    Ok(candidate_distances(creature, clips, candidate)?
        .iter()
        .flatten()
        .map(|near| near.first().map_or(0.0, |n| n.0))
        .sum())
}

/// Measures the graph of `clips` (with the template's unsolved `candidate` clips): cost(G) and
/// the candidate's q (summed over its clips). The candidate's frames cost `candidate_effort`
/// each when given, else what their nearest graph frames cost.
pub fn measure(
    creature: &Creature,
    clips: &[GrownClip],
    candidate: &[GrownClip],
    candidate_effort: Option<f64>,
    measure: &Measure,
) -> Result<Measured> {
    let graph = motion_graph(creature, clips, candidate, Path::new(""))?;
    let base_cost = clips
        .first()
        .map(|c| c.gait.cost)
        .filter(|c| c.is_finite() && *c > 0.0)
        .unwrap_or(1.0);
    let solved: Vec<f64> = clips
        .iter()
        .map(|c| effort(measure.effort_weight, c.gait.cost / base_cost))
        .collect();
    let is_candidate = |clip: usize| clip >= clips.len();
    // Per frame of the candidate: the distances to every solved frame, nearest first.
    let distances = candidate_distances(creature, clips, candidate)?;
    let quality = (!candidate.is_empty()).then(|| {
        distances
            .iter()
            .flatten()
            .map(|near| near.first().map_or(0.0, |n| n.0))
            .sum()
    });
    let interpolated: Vec<Vec<f64>> = distances
        .iter()
        .map(|clip| {
            clip.iter()
                .map(|near| {
                    let near: Vec<(f64, f64)> = near
                        .iter()
                        .take(NEAREST)
                        .map(|&(d, c)| (d, solved[c]))
                        .collect();
                    idw(&near)
                })
                .collect()
        })
        .collect();
    let effort = |f: FrameRef| {
        if is_candidate(f.clip) {
            candidate_effort.unwrap_or(interpolated[f.clip - clips.len()][f.frame])
        } else {
            solved[f.clip]
        }
    };
    let mdp = SteeringMdp::with_effort(&graph, measure.mdp.clone(), &effort);
    let cost = mdp.quality(measure.samples, measure.frames, measure.seed);
    Ok(Measured {
        graph,
        cost,
        quality,
    })
}

/// A frame's weighted biomechanical cost: `weight`·ln(cost_b / cost_b of the base cycle), at
/// least 0. The log is the thesis's (App. C, Eq. C.1): it keeps expensive motions (a sharp turn
/// cost the simple biped 100–220 times its walk per frame) usable by the controller.
pub fn effort(weight: f64, relative_cost: f64) -> f64 {
    if relative_cost.is_finite() && relative_cost > 1.0 {
        weight * relative_cost.ln()
    } else {
        0.0
    }
}

/// Inverse-distance-squared interpolation of (distance, value) pairs; a pair at distance 0 is
/// its value.
pub fn idw(near: &[(f64, f64)]) -> f64 {
    if let Some(&(_, v)) = near.iter().find(|(d, _)| *d <= 1e-12) {
        return v;
    }
    let (num, den) = near.iter().fold((0.0, 0.0), |(n, w), &(d, v)| {
        let wi = 1.0 / (d * d);
        (n + wi * v, w + wi)
    });
    if den > 0.0 { num / den } else { 0.0 }
}

/// Writes the graph of `clips` as `graph_path`, its clip files in `folder` (and each clip's gait
/// in `folder/gait/`), atomically; each graph clip carries its [`effort`] with `effort_weight`,
/// so that the policy steering the graph is the one cost(G) measured.
pub fn write(
    creature: &Creature,
    clips: &[GrownClip],
    effort_weight: f64,
    graph_path: &Path,
    folder: &Path,
) -> Result<MotionGraph> {
    let gait_folder = folder.join("gait");
    std::fs::create_dir_all(&gait_folder)
        .with_context(|| format!("creating {}", gait_folder.display()))?;
    for g in clips {
        creature
            .clip(g)?
            .save(&folder.join(format!("{}.ron", g.name)))?;
        crate::files::write_ron(&gait_folder.join(format!("{}.ron", g.name)), &g.gait)
            .map_err(|e| anyhow::anyhow!("writing the gait of `{}`: {e}", g.name))?;
    }
    let mut graph = motion_graph(creature, clips, &[], folder)?;
    let base = clips.first().map_or(1.0, |c| c.gait.cost);
    for (g, c) in graph.graph.clips.iter_mut().zip(clips) {
        g.effort = effort(effort_weight, c.gait.cost / base);
    }
    graph.graph.save(graph_path)?;
    Ok(graph.graph)
}

impl GrownClip {
    /// A transition named `name` whose gait is `gait`, from clip `from` to clip `to` where and as
    /// `connection` joins them (its placement given).
    pub fn transition(
        name: impl Into<String>,
        gait: GaitClip,
        from: &str,
        to: &str,
        connection: &Connection,
    ) -> Self {
        Self {
            name: name.into(),
            gait,
            joins: Some(Joins {
                from: from.to_string(),
                from_frame: connection.from_frame,
                to: to.to_string(),
                to_frame: connection.to_frame,
                placement: connection.placement.unwrap_or(PlanarMotion::IDENTITY),
            }),
            sigma: None,
        }
    }
}

/// The motion-graph settings of a synthesized graph: the defaults' frame window (the one its
/// clips' window features are cached with, [`Creature::window_features`]) over solved motions
/// only, which take no blends (Wampler 2012, §5.2: every clip of the graph is physically valid).
fn synthesis_settings() -> GraphSettings {
    GraphSettings {
        solved_only: true,
        ..GraphSettings::default()
    }
}
