//! What solving a space involves before any solve starts (McIntosh 2011, thesis §4.2.3, and
//! the continuation across the space this program adds): its points in solving order, each
//! point's mirror image and prior start, which points a point waits for, and where clips go.
//! Shared by the whole space's job ([`super::generate`]) and by lone points solved elsewhere
//! ([`super::parts`]).

use super::generate::{Manifest, SpaceRequest};
use super::{ParameterSpace, Point};
use crate::spacetime::gait::GaitClip;
use anyhow::Result;
use std::path::{Path, PathBuf};

/// A warm start farther than this starts from the rest pose instead.
pub(super) const REACH: f64 = 1.5;

/// A space about to be solved into a folder.
pub struct Plan {
    pub space: ParameterSpace,
    pub points: Vec<Point>,
    /// Point indices in solving order ([`super::parts::solving_order`]).
    pub order: Vec<usize>,
    /// Each point's place in `order`.
    pub rank: Vec<usize>,
    /// Each point's opposite turn, if the space has it.
    pub partners: Vec<Option<usize>>,
    /// Each point's own start from the prior solve (`SpaceRequest::from`), if asked and valid.
    pub priors: Vec<Option<PathBuf>>,
    out: PathBuf,
    retry_failed: bool,
}

impl Plan {
    /// Reads the space of `request` and checks its prior solve's folder.
    pub fn new(request: &SpaceRequest) -> Result<Self> {
        let space = ParameterSpace::load(&request.space)?;
        let points = space.points()?;
        if let Some(from) = &request.from {
            anyhow::ensure!(
                from.join("gait").is_dir(),
                "{} is not a solved space: expected its gait clips in {}",
                from.display(),
                from.join("gait").display()
            );
        }
        let order = super::parts::solving_order(&points);
        let mut rank = vec![0; points.len()];
        for (k, &i) in order.iter().enumerate() {
            rank[i] = k;
        }
        let partners = (0..points.len())
            .map(|i| (0..points.len()).find(|&o| mirror_images(&points[i], &points[o])))
            .collect();
        let priors = points
            .iter()
            .map(|p| prior(request.from.as_deref(), &p.stem(&space)))
            .collect();
        Ok(Self {
            space,
            points,
            order,
            rank,
            partners,
            priors,
            out: request.out.clone(),
            retry_failed: request.retry_failed,
        })
    }

    /// Where point or connection `stem`'s gait clip goes.
    pub fn gait_path(&self, stem: &str) -> PathBuf {
        self.out.join("gait").join(format!("{stem}.ron"))
    }

    /// The valid gait clip of `stem` in the folder, if solved.
    pub fn solved(&self, stem: &str) -> Option<GaitClip> {
        crate::files::read_ron::<GaitClip>(&self.gait_path(stem))
            .ok()
            .filter(|c| c.is_valid())
    }

    /// Whether point `o` must have ended before point `i` starts: a nearer earlier candidate to
    /// start from or an earlier mirror image (only the mirror image, with a start of its own).
    pub fn waits_for(&self, i: usize, o: usize) -> bool {
        let (p, q) = (&self.points[i], &self.points[o]);
        self.rank[o] < self.rank[i]
            && if self.priors[i].is_some() {
                self.partners[i] == Some(o)
            } else {
                q.character == p.character
                    && (separation(p, q) <= REACH || self.partners[i] == Some(o))
            }
    }

    /// Whether point `o` has ended as the folder shows it (solved, recorded by a lone point's
    /// task, or failed before and not to be retried per `manifest`).
    pub fn ended_on_disk(&self, o: usize, manifest: &Manifest) -> bool {
        let stem = self.points[o].stem(&self.space);
        self.solved(&stem).is_some()
            || super::parts::recorded(&self.out, &stem)
            || (!self.retry_failed && manifest.failed(&self.points[o].name(&self.space)))
    }

    /// Whether every point that point `i` waits for has ended, as the folder shows it.
    pub fn ready_on_disk(&self, i: usize, manifest: &Manifest) -> bool {
        (0..self.points.len()).all(|o| !self.waits_for(i, o) || self.ended_on_disk(o, manifest))
    }

    /// The folder's manifest, or an empty one.
    pub fn manifest(&self) -> Result<Manifest> {
        let path = self.out.join("space.ron");
        Ok(if path.exists() {
            crate::files::read_ron(&path)?
        } else {
            Manifest {
                space: self.space.name.clone(),
                entries: Vec::new(),
            }
        })
    }
}

/// The same point's or connection's valid gait clip in the space solved before, if any.
pub(super) fn prior(from: Option<&Path>, stem: &str) -> Option<PathBuf> {
    let path = from?.join("gait").join(format!("{stem}.ron"));
    crate::files::read_ron::<GaitClip>(&path)
        .ok()
        .filter(|c| c.is_valid())
        .map(|_| path)
}

/// How far apart two points are for a warm start: their turn rates in units of 45°/s.
///
/// Only the turn rate is continued: a walk at 1.0 m/s started from the solved 0.6 m/s walk (same
/// family, another period and stride) converged to a cost of 6,100 against 10.2 from the rest
/// pose, so points of other speeds or timings are out of reach.
pub(super) fn separation(a: &Point, b: &Point) -> f64 {
    if (a.speed - b.speed).abs() > 1e-9 || a.family != b.family || !same_timing(a, b) {
        return f64::INFINITY;
    }
    (a.turn_rate - b.turn_rate).abs() / 45f64.to_radians()
}

fn same_timing(a: &Point, b: &Point) -> bool {
    let windows = |p: &Point| {
        p.contacts.as_ref().map(|c| {
            c.iter()
                .map(|t| (t.foot.clone(), t.start, t.duration))
                .collect::<Vec<_>>()
        })
    };
    a.period == b.period && windows(a) == windows(b)
}

/// Whether `a` and `b` are the same point but for opposite, non-zero turn rates.
fn mirror_images(a: &Point, b: &Point) -> bool {
    let straight = |p: &Point| Point {
        labels: Vec::new(),
        turn_rate: 0.0,
        ..p.clone()
    };
    a.turn_rate != 0.0 && b.turn_rate == -a.turn_rate && straight(a) == straight(b)
}
