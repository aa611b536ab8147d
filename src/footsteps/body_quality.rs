//! How good a footstep plan's full body is, measured on its clip as played (Agrawal 2016,
//! thesis §5.5; the acceptance per clip): planted feet that do not slide, joints that do
//! not jump, coordinates within their limits, and the stance the feet make at a frame.

use super::body_segments::slot;
use super::source::{MotionSource, footprint};
use super::step::{Foot, Footstep};
use crate::clip::Clip;
use crate::clip::leg_ik::relative;
use crate::clip::pose::body_poses;
use nalgebra::Vector3;

/// What the full body's quality checks measure (the acceptance, per clip).
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct BodyQuality {
    /// The most a foot's contact point travels on the ground while it stays down, m: summed
    /// frame by frame over the nearer to staying of its footprint (a heel pivot turns about it)
    /// and its toes (a toe pivot's, [`MotionSource::toes`] ahead), so a toe pivot followed by a
    /// heel pivot of the same planted foot slides by neither.
    pub slide_m: f64,
    /// The largest change of a joint coordinate between consecutive frames, rad.
    pub joint_jump_rad: f64,
    /// The largest change of the root's height between consecutive frames, m.
    pub root_jump_m: f64,
    /// The most any joint coordinate goes past its limit, rad.
    pub limit_excess_rad: f64,
    /// The joint coordinate that goes furthest past its limit.
    pub worst_limit: Option<usize>,
}

/// Measures a full body's clip as played (poses rebuilt from its coordinates).
pub fn quality(source: &MotionSource, clip: &Clip) -> BodyQuality {
    let c = &source.character;
    let mut q = BodyQuality::default();
    // Per foot: its footprint and toes at the frame before, and how far it has slid since it
    // came down.
    let mut held: [Option<([Vector3<f64>; 2], f64)>; 2] = [None, None];
    let limits = c.coordinate_limits();
    for (i, f) in clip.frames.iter().enumerate() {
        for (k, (x, l)) in f.joints.iter().zip(&limits).enumerate() {
            if let Some((lo, hi)) = l {
                let excess = (lo - x).max(x - hi);
                if excess > q.limit_excess_rad {
                    q.limit_excess_rad = excess;
                    q.worst_limit = Some(k);
                }
            }
        }
        let poses = body_poses(c, &f.root, &f.joints);
        for foot in [Foot::Left, Foot::Right] {
            let leg = source.leg(foot);
            let p = leg.foot_point(&poses);
            let toes = p + source.toes * (relative(c, &poses, leg.foot) * leg.forward).normalize();
            let k = slot(foot);
            if clip.contacts[i][leg.effector] {
                let (h, slid) = held[k].unwrap_or(([p, toes], 0.0));
                let moved = |a: &Vector3<f64>, b: &Vector3<f64>| (a.x - b.x).hypot(a.z - b.z);
                let slid = slid + moved(&p, &h[0]).min(moved(&toes, &h[1]));
                q.slide_m = q.slide_m.max(slid);
                held[k] = Some(([p, toes], slid));
            } else {
                held[k] = None;
            }
        }
        if i > 0 {
            let g = &clip.frames[i - 1];
            for (a, b) in f.joints.iter().zip(&g.joints) {
                q.joint_jump_rad = q.joint_jump_rad.max((a - b).abs());
            }
            q.root_jump_m = q.root_jump_m.max((f.root[1] - g.root[1]).abs());
        }
    }
    q
}

/// Where the feet stand at a frame of the clip, as footprints (left, right).
pub fn stance_at(source: &MotionSource, clip: &Clip, frame: usize) -> [Footstep; 2] {
    let f = &clip.frames[frame];
    let poses = body_poses(&source.character, &f.root, &f.joints);
    [Foot::Left, Foot::Right]
        .map(|foot| footprint(&source.character, &poses, source.leg(foot), foot))
}
