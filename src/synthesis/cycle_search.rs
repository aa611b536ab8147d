//! Template S₂'s initialisation searched inside the graph (Wampler 2012, thesis §5.2.1, the
//! cyclic template's M̃; the graph "acts as a database of valid motions"):
//! 1. every loop of the graph up to [`MAX_LOOP_SECONDS`] ([`loops`]): each cycle's own period,
//!    and every chain of transitions that comes back to the frame it left;
//! 2. a loop in which some foot has another number of contact intervals than in the target
//!    timing is left out;
//! 3. per foot, a piecewise-linear time warp T_foot takes the target's interval ends to the
//!    loop's ([`TimeWarp`]);
//! 4. per coordinate d, M̃(t)_d = Σ_foot w(foot, d)·M_c(T_foot(t))_d / Σ_foot w(foot, d), with w = 1
//!    when d lies on the path from that foot to the root and [`OFF_PATH_WEIGHT`] otherwise;
//! 5. the root is moved onto a straight path at the requested speed ([`initialisation`]).
//!
//! The loop's root is written relative to its own path (its chord, turning evenly by the loop's
//! net turn), so a turning loop and a straight cycle blend alike, and the loop is cyclic in those
//! coordinates. The caller keeps the initialisation whose quality q (Eq. 5.3) is best.

use super::graph::GrownClip;
use crate::spacetime::gait::{Closure, ContactLoad, GaitClip, PlanarMotion};
use crate::spacetime::skeleton::Skeleton;

/// The longest loop searched (s).
pub const MAX_LOOP_SECONDS: f64 = 1.5;
/// The blend's weight of a foot's warp for a coordinate off the path from that foot to the root.
pub const OFF_PATH_WEIGHT: f64 = 0.01;

/// A loop of the graph: its frames in one world (heading root), per frame and foot the load
/// when down, the seconds between frames, and the motion that takes its first frame onto the
/// frame after its last.
#[derive(Clone, Debug)]
pub struct Loop {
    /// The clips it plays, in order (`base`, or `base>turn_03>base`).
    pub label: String,
    pub frames: Vec<Vec<f64>>,
    pub contacts: Vec<Vec<Option<ContactLoad>>>,
    pub frame_time: f64,
    pub closing: PlanarMotion,
}

/// Every loop of `clips` (cycles have `joins: None`, transitions join two cycles) lasting at
/// most `max_seconds`: each cycle's own period, and each chain of distinct transitions that
/// leaves a cycle and comes back to the frame it left, playing the cycles between them (only
/// when every clip it plays has the same frame time).
pub fn loops(clips: &[GrownClip], max_seconds: f64) -> Vec<Loop> {
    let index = |name: &str| clips.iter().position(|c| c.name == name);
    let mut out: Vec<Loop> = clips
        .iter()
        .filter(|c| c.joins.is_none() && c.gait.closure.is_cyclic())
        .filter(|c| c.gait.period <= max_seconds + 1e-9)
        .map(|c| {
            let n = c.gait.frames.len() as i64;
            let feet = c.gait.contacts.first().map_or(0, Vec::len);
            Loop {
                label: c.name.clone(),
                frames: (0..n).map(|k| c.gait.frame_at(k)).collect(),
                contacts: (0..n)
                    .map(|k| (0..feet).map(|f| c.gait.load_at(k, f)).collect())
                    .collect(),
                frame_time: c.gait.frame_time(),
                closing: c.gait.motion_at(n),
            }
        })
        .collect();
    let transitions: Vec<usize> = (0..clips.len())
        .filter(|&t| {
            clips[t].joins.as_ref().is_some_and(|j| {
                [&j.from, &j.to]
                    .iter()
                    .all(|c| index(c).is_some_and(|c| clips[c].joins.is_none()))
            })
        })
        .collect();
    // Chains whose first transition has the smallest index name each loop once.
    for &first in &transitions {
        let mut chain = vec![first];
        extend(clips, &transitions, &mut chain, max_seconds, &mut out);
    }
    out
}

/// The seconds of a transition's own frames (its last frame is the next cycle's first played).
fn transition_seconds(t: &GrownClip) -> f64 {
    (t.gait.frames.len() - 1) as f64 * t.gait.frame_time()
}

/// The gait of the clip a transition joins (the caller checked it exists).
fn named<'a>(clips: &'a [GrownClip], name: &str) -> &'a GaitClip {
    &clips
        .iter()
        .find(|c| c.name == name)
        .expect("a joined clip")
        .gait
}

/// Frames played along cycle `c` from frame `from` to frame `to` (forward, wrapping).
fn walk(c: &GaitClip, from: usize, to: usize) -> usize {
    let n = c.frames.len();
    (to + n - from % n) % n
}

fn extend(
    clips: &[GrownClip],
    transitions: &[usize],
    chain: &mut Vec<usize>,
    max_seconds: f64,
    out: &mut Vec<Loop>,
) {
    let joins = |t: usize| clips[t].joins.as_ref().expect("a transition");
    let cycle = |name: &str| named(clips, name);
    let seconds: f64 = chain
        .iter()
        .enumerate()
        .map(|(i, &t)| {
            let next = joins(chain[(i + 1) % chain.len()]);
            let to = cycle(&joins(t).to);
            let between = if joins(t).to == next.from {
                walk(to, joins(t).to_frame, next.from_frame)
            } else {
                0
            };
            transition_seconds(&clips[t]) + between as f64 * to.frame_time()
        })
        .sum();
    let last = joins(*chain.last().expect("non-empty"));
    let first = joins(chain[0]);
    if seconds > max_seconds + 1e-9 {
        return;
    }
    // A loop's frames are evenly spaced: every clip it plays must share the first's frame time.
    let frame_time = clips[chain[0]].gait.frame_time();
    let even = chain.iter().all(|&t| {
        [&clips[t].gait, cycle(&joins(t).to)]
            .iter()
            .all(|g| (g.frame_time() - frame_time).abs() < 1e-9)
    });
    if last.to == first.from && even {
        out.push(assemble(clips, chain));
    }
    for &t in transitions {
        if t > chain[0] && !chain.contains(&t) && joins(t).from == last.to {
            chain.push(t);
            extend(clips, transitions, chain, max_seconds, out);
            chain.pop();
        }
    }
}

/// The frames of a closed chain of transitions, in the first transition's world.
fn assemble(clips: &[GrownClip], chain: &[usize]) -> Loop {
    let by_name = |name: &str| named(clips, name);
    let mut place = PlanarMotion::IDENTITY;
    let (mut frames, mut contacts) = (Vec::new(), Vec::new());
    let mut label = Vec::new();
    let first = clips[chain[0]].joins.as_ref().expect("a transition");
    let frame_time = clips[chain[0]].gait.frame_time();
    for (i, &t) in chain.iter().enumerate() {
        let g = &clips[t].gait;
        let j = clips[t].joins.as_ref().expect("a transition");
        let feet = g.contacts.first().map_or(0, Vec::len);
        label.push(j.from.clone());
        label.push(clips[t].name.clone());
        for k in 0..g.frames.len() as i64 - 1 {
            frames.push(place.apply_heading_root(&g.frames[k as usize]));
            contacts.push(
                (0..feet)
                    .map(|f| g.contact_at(k, f).map(|l| l.turned(&place)))
                    .collect(),
            );
        }
        place = place.compose(&j.placement);
        let to = by_name(&j.to);
        let next = clips[chain[(i + 1) % chain.len()]]
            .joins
            .as_ref()
            .expect("a transition");
        let steps = walk(to, j.to_frame, next.from_frame) as i64;
        for k in 0..steps {
            let at = j.to_frame as i64 + k;
            frames.push(place.apply_heading_root(&to.frame_at(at)));
            let m = place.compose(&to.motion_at(at));
            contacts.push(
                (0..feet)
                    .map(|f| to.contact_at(at, f).map(|l| l.turned(&m)))
                    .collect(),
            );
        }
        place = place.compose(&to.motion_at(j.to_frame as i64 + steps));
    }
    label.push(first.from.clone());
    Loop {
        label: label.join(">"),
        frames,
        contacts,
        frame_time,
        closing: place,
    }
}

/// A foot's contact intervals over a cycle of `n` frames: (first frame down, frames down),
/// wrapping; empty when the foot is always down or always up.
pub fn intervals(down: &[bool]) -> Vec<(usize, usize)> {
    let n = down.len();
    let Some(start) = (0..n).find(|&i| down[i] && !down[(i + n - 1) % n]) else {
        return Vec::new();
    };
    let mut out = Vec::new();
    let mut i = start;
    loop {
        if down[i % n] && !down[(i + n - 1) % n] {
            let len = (0..n).take_while(|&k| down[(i + k) % n]).count();
            out.push((i % n, len));
        }
        i += 1;
        if i >= start + n {
            break;
        }
    }
    out
}

/// A piecewise-linear cyclic time warp, target frame → source frame (both fractional), that
/// takes each target contact interval's start and end onto the matching source interval's.
#[derive(Clone, Debug, PartialEq)]
pub struct TimeWarp {
    /// Break points (target, source), unwrapped and increasing, the last one period on from
    /// the first.
    points: Vec<(f64, f64)>,
    target_frames: f64,
    source_frames: f64,
}

impl TimeWarp {
    /// The warp of a foot down over `target` (in `target_frames`) onto `source` (in
    /// `source_frames`): `None` when the two have different numbers of intervals. With several,
    /// the source's intervals are matched in order from the cyclic shift whose relative lengths
    /// differ least; a foot never down nor up is warped uniformly.
    pub fn new(
        target: &[(usize, usize)],
        target_frames: usize,
        source: &[(usize, usize)],
        source_frames: usize,
    ) -> Option<Self> {
        if target.len() != source.len() {
            return None;
        }
        let (nt, ns) = (target_frames as f64, source_frames as f64);
        if target.is_empty() {
            return Some(Self {
                points: vec![(0.0, 0.0), (nt, ns)],
                target_frames: nt,
                source_frames: ns,
            });
        }
        let k = target.len();
        let mismatch = |shift: usize| -> f64 {
            (0..k)
                .map(|i| (target[i].1 as f64 / nt - source[(i + shift) % k].1 as f64 / ns).abs())
                .sum()
        };
        let shift = (0..k)
            .min_by(|&a, &b| mismatch(a).total_cmp(&mismatch(b)))
            .expect("k > 0");
        let unwrap = |points: Vec<f64>, period: f64| {
            let mut out: Vec<f64> = Vec::with_capacity(points.len());
            for p in points {
                let mut p = p;
                while out.last().is_some_and(|&l| p < l) {
                    p += period;
                }
                out.push(p);
            }
            out
        };
        let ends = |iv: &[(usize, usize)], order: Vec<usize>| {
            order
                .into_iter()
                .flat_map(|i| [iv[i].0 as f64, (iv[i].0 + iv[i].1) as f64])
                .collect::<Vec<f64>>()
        };
        let t = unwrap(ends(target, (0..k).collect()), nt);
        let s = unwrap(ends(source, (0..k).map(|i| (i + shift) % k).collect()), ns);
        let mut points: Vec<(f64, f64)> = t.into_iter().zip(s).collect();
        points.push((points[0].0 + nt, points[0].1 + ns));
        Some(Self {
            points,
            target_frames: nt,
            source_frames: ns,
        })
    }

    /// The source frame (in [0, source frames)) of target frame `t`.
    pub fn at(&self, t: f64) -> f64 {
        let t0 = self.points[0].0;
        let t = t0 + (t - t0).rem_euclid(self.target_frames);
        let seg = self
            .points
            .windows(2)
            .find(|w| t <= w[1].0)
            .unwrap_or(&self.points[self.points.len() - 2..]);
        let (a, b) = (seg[0], seg[1]);
        let s = if b.0 > a.0 {
            a.1 + (t - a.0) / (b.0 - a.0) * (b.1 - a.1)
        } else {
            a.1
        };
        s.rem_euclid(self.source_frames)
    }
}

/// The heading frame of heading-root coordinates q.
fn heading(q: &[f64]) -> PlanarMotion {
    PlanarMotion {
        x: q[3],
        z: q[5],
        yaw: q[0],
    }
}

impl Loop {
    /// The loop's path at frame `i` (fractional): along the chord from the first frame's
    /// position to the frame after the last's, turning evenly by the net turn, its heading the
    /// chord's at the middle.
    fn path(&self, i: f64) -> PlanarMotion {
        let h0 = heading(&self.frames[0]);
        let end = self.closing.compose(&h0);
        let s = i / self.frames.len() as f64;
        let turn = self.closing.yaw;
        let (dx, dz) = (end.x - h0.x, end.z - h0.z);
        let chord = if dx.hypot(dz) > 1e-9 {
            (-dz).atan2(dx)
        } else {
            h0.yaw + 0.5 * turn
        };
        PlanarMotion {
            x: h0.x + s * dx,
            z: h0.z + s * dz,
            yaw: chord + (s - 0.5) * turn,
        }
    }

    /// Frame `i`'s coordinates with the root relative to the path: cyclic over the loop.
    fn relative(&self, i: usize) -> Vec<f64> {
        let rel = self
            .path(i as f64)
            .inverse()
            .compose(&heading(&self.frames[i]));
        let mut q = self.frames[i].clone();
        (q[0], q[3], q[5]) = (rel.yaw, rel.x, rel.z);
        q
    }

    /// The path-relative coordinates at fractional frame `s`, linear between frames.
    fn relative_at(&self, s: f64) -> Vec<f64> {
        let n = self.frames.len();
        let (i, f) = (s.floor() as usize % n, s - s.floor());
        let (a, b) = (self.relative(i), self.relative((i + 1) % n));
        a.iter().zip(&b).map(|(a, b)| a + f * (b - a)).collect()
    }

    /// Per foot: whether it is down in each frame.
    fn down(&self, foot: usize) -> Vec<bool> {
        self.contacts.iter().map(|c| c[foot].is_some()).collect()
    }
}

/// Per foot and coordinate: the blend weight w(foot, d) (1 on the path from the foot's limb to
/// the root, [`OFF_PATH_WEIGHT`] elsewhere).
pub fn path_weights(skeleton: &Skeleton) -> Vec<Vec<f64>> {
    skeleton
        .feet
        .iter()
        .map(|&foot| {
            let mut w = vec![OFF_PATH_WEIGHT; skeleton.dof()];
            let mut limb = Some(foot);
            while let Some(l) = limb {
                for d in skeleton.limbs[l].dofs.clone() {
                    w[d] = 1.0;
                }
                limb = skeleton.limbs[l].parent;
            }
            w
        })
        .collect()
}

/// M̃ for a new straight cycle at `speed` with `target`'s timing (frames, period and contact
/// schedule), from `source`: `None` when some foot's number of contact intervals differs. The
/// root follows a straight line at `speed`, along +x turned by `strafe` to the left (the heading
/// still +x: the cycle strafes), the first frame's ground position the target's; a foot down in the target takes its load from the loop where the loop has it down
/// too, else the target's.
pub fn initialisation(
    skeleton: &Skeleton,
    target: &GaitClip,
    source: &Loop,
    speed: f64,
    strafe: f64,
) -> Option<GaitClip> {
    let n = target.frames.len();
    let feet = skeleton.feet.len();
    let target_down = |f: usize| -> Vec<bool> {
        (0..n)
            .map(|i| target.contact_at(i as i64, f).is_some())
            .collect()
    };
    let warps: Vec<TimeWarp> = (0..feet)
        .map(|f| {
            // A foot always down (or always up) matches only a foot that is so too.
            let (t, s) = (target_down(f), source.down(f));
            if intervals(&t).is_empty() && (t.first() != s.first() || !intervals(&s).is_empty()) {
                return None;
            }
            TimeWarp::new(&intervals(&t), n, &intervals(&s), source.frames.len())
        })
        .collect::<Option<_>>()?;
    let weights = path_weights(skeleton);
    let dt = target.frame_time();
    let blended: Vec<Vec<f64>> = (0..n)
        .map(|i| {
            let sampled: Vec<Vec<f64>> = warps
                .iter()
                .map(|w| source.relative_at(w.at(i as f64)))
                .collect();
            (0..skeleton.dof())
                .map(|d| {
                    let (num, den) = (0..feet).fold((0.0, 0.0), |(num, den), f| {
                        (num + weights[f][d] * sampled[f][d], den + weights[f][d])
                    });
                    num / den
                })
                .collect()
        })
        .collect();
    let start = heading(&target.frames[0]);
    let first = heading(&blended[0]);
    let origin = PlanarMotion {
        x: start.x - first.x,
        z: start.z - first.z,
        yaw: 0.0,
    };
    let frames = blended
        .into_iter()
        .enumerate()
        .map(|(i, q)| {
            let ahead = speed * dt * i as f64;
            let (x, z) = if strafe == 0.0 {
                (ahead, 0.0)
            } else {
                let turn = PlanarMotion {
                    yaw: strafe,
                    ..PlanarMotion::IDENTITY
                };
                turn.apply_point(&ahead, &0.0)
            };
            let path = origin.compose(&PlanarMotion { x, z, yaw: 0.0 });
            path.apply_heading_root(&q)
        })
        .collect();
    let contacts = (0..n)
        .map(|i| {
            (0..feet)
                .map(|f| {
                    let own = target.contact_at(i as i64, f)?;
                    let s = warps[f].at(i as f64);
                    let k = s.round() as usize % source.frames.len();
                    let turn = PlanarMotion {
                        yaw: -source.path(k as f64).yaw,
                        ..PlanarMotion::IDENTITY
                    };
                    Some(
                        source.contacts[k][f]
                            .as_ref()
                            .map_or_else(|| own.clone(), |l| l.turned(&turn)),
                    )
                })
                .collect()
        })
        .collect();
    Some(GaitClip {
        speed,
        closure: Closure::Transformed {
            turn_rate: 0.0,
            strafe,
        },
        frames,
        contacts,
        cost: f64::INFINITY,
        status: "start".into(),
        ..target.clone()
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn walk() -> GaitClip {
        crate::files::read_ron(std::path::Path::new(
            "assets/gaits/biped_walk_world_0.7ms.ron",
        ))
        .unwrap()
    }

    fn biped() -> Skeleton {
        let character =
            crate::model::load_character(std::path::Path::new("characters/simple_biped.ron"))
                .unwrap();
        Skeleton::from_character(&character)
            .unwrap()
            .with_heading_root()
    }

    #[test]
    fn contact_intervals_wrap_around_the_cycle() {
        let down = |s: &str| s.chars().map(|c| c == '#').collect::<Vec<bool>>();
        assert_eq!(intervals(&down("..###...")), vec![(2, 3)]);
        assert_eq!(intervals(&down("##....##")), vec![(6, 4)]);
        assert_eq!(intervals(&down("#.#..##.")), vec![(0, 1), (2, 1), (5, 2)]);
        assert!(intervals(&down("####")).is_empty());
        assert!(intervals(&down("....")).is_empty());
    }

    /// The warp takes each target interval's start and end onto the source's, whatever the
    /// two cycles' lengths, is linear between, and is the identity between equal schedules.
    #[test]
    fn a_time_warp_takes_interval_ends_onto_the_sources() {
        let w = TimeWarp::new(&[(0, 18)], 30, &[(5, 12)], 24).unwrap();
        assert!((w.at(0.0) - 5.0).abs() < 1e-12);
        assert!((w.at(18.0) - 17.0).abs() < 1e-12);
        assert!((w.at(9.0) - 11.0).abs() < 1e-12);
        // The flight part: 12 target frames onto 12 source frames, wrapping past 24.
        assert!((w.at(24.0) - 23.0).abs() < 1e-12);
        assert!((w.at(29.0) - 4.0).abs() < 1e-12);
        let same = TimeWarp::new(&[(15, 18)], 30, &[(15, 18)], 30).unwrap();
        for t in 0..30 {
            assert!((same.at(t as f64) - t as f64).abs() < 1e-12, "{t}");
        }
        assert!(TimeWarp::new(&[(0, 5)], 30, &[(0, 5), (10, 5)], 30).is_none());
    }

    /// The walk as its own loop, at its own speed, is the walk again: frames, loads and
    /// placement; at another speed the root moves on by v·dt a frame and the pose is the walk's.
    #[test]
    fn the_walk_searched_at_its_own_speed_is_the_walk() {
        let (walk, skeleton) = (walk(), biped());
        let clips = [GrownClip {
            name: "base".into(),
            gait: walk.clone(),
            joins: None,
            sigma: None,
        }];
        let found = loops(&clips, MAX_LOOP_SECONDS);
        assert_eq!(found.len(), 1);
        let same = initialisation(&skeleton, &walk, &found[0], walk.speed, 0.0).unwrap();
        for (a, b) in same.frames.iter().zip(&walk.frames) {
            assert!(
                a.iter().zip(b).all(|(x, y)| (x - y).abs() < 1e-9),
                "{a:?} {b:?}"
            );
        }
        assert_eq!(same.contacts, walk.contacts);
        let fast = initialisation(&skeleton, &walk, &found[0], 1.0, 0.0).unwrap();
        let dt = walk.frame_time();
        for (i, (a, b)) in fast.frames.iter().zip(&walk.frames).enumerate() {
            let ahead = (1.0 - walk.speed) * dt * i as f64;
            assert!((a[3] - b[3] - ahead).abs() < 1e-9, "frame {i}");
            assert!(
                a[6..]
                    .iter()
                    .zip(&b[6..])
                    .all(|(x, y)| (x - y).abs() < 1e-12)
            );
        }
    }
}
