//! glTF animations → per-frame joint poses of a [`super::Skeleton`] (Borer et al. 2018, §3:
//! the KS keyframes to transfer): every named animation, the unnamed ones merged into one;
//! translation, rotation and scale channels of every ancestor of a joint sampled (linear with
//! slerp, step or cubic spline) and composed through the node hierarchy; keyframe instants when
//! they share one regular grid of 10 to 240 fps, else [`SAMPLE_RATE`] fps.

use super::ArbsError;
use super::gltf_data::read_accessor;
use super::gltf_load::{Trs, pose_of};
use super::skeleton::{Animation, MAX_FRAMES, MAX_POSES, unique};
use gltf::accessor::Dimensions;
use gltf::animation::{Interpolation, Property};
use nalgebra::{Matrix4, UnitQuaternion, Vector3};

/// The most node transforms one animation's sampling may compose (frames × nodes).
const MAX_SAMPLING: usize = 100_000_000;
/// The sampling rate of irregular or sparse keyframes, fps.
pub(super) const SAMPLE_RATE: f64 = 30.0;

/// One animated property of one node.
struct Track {
    node: usize,
    property: Property,
    interpolation: Interpolation,
    times: Vec<f64>,
    /// One value (3 or 4 numbers) per key; cubic splines hold in-tangent, value, out-tangent.
    values: Vec<[f64; 4]>,
}

impl Track {
    /// The value at time `t`.
    fn sample(&self, t: f64) -> [f64; 4] {
        let n = self.times.len();
        let cubic = self.interpolation == Interpolation::CubicSpline;
        let value = |k: usize| {
            if cubic {
                self.values[3 * k + 1]
            } else {
                self.values[k]
            }
        };
        if n == 1 || t <= self.times[0] {
            return value(0);
        }
        if t >= self.times[n - 1] {
            return value(n - 1);
        }
        let k = self.times.partition_point(|&x| x <= t) - 1;
        let dt = self.times[k + 1] - self.times[k];
        let u = if dt > 0.0 {
            (t - self.times[k]) / dt
        } else {
            0.0
        };
        let rotation = self.property == Property::Rotation;
        match self.interpolation {
            Interpolation::Step => value(k),
            Interpolation::Linear => {
                let (a, b) = (value(k), value(k + 1));
                if rotation {
                    let qa = quat(a);
                    let qb = quat(b);
                    let q = qa.try_slerp(&qb, u, 1e-9).unwrap_or(qa);
                    [q.i, q.j, q.k, q.w]
                } else {
                    std::array::from_fn(|c| a[c] + u * (b[c] - a[c]))
                }
            }
            Interpolation::CubicSpline => {
                let (u2, u3) = (u * u, u * u * u);
                let (h00, h10, h01, h11) = (
                    2.0 * u3 - 3.0 * u2 + 1.0,
                    u3 - 2.0 * u2 + u,
                    -2.0 * u3 + 3.0 * u2,
                    u3 - u2,
                );
                let (v0, b0) = (self.values[3 * k + 1], self.values[3 * k + 2]);
                let (a1, v1) = (self.values[3 * k + 3], self.values[3 * k + 4]);
                let v: [f64; 4] = std::array::from_fn(|c| {
                    h00 * v0[c] + h10 * dt * b0[c] + h01 * v1[c] + h11 * dt * a1[c]
                });
                if rotation {
                    let q = quat(v);
                    [q.i, q.j, q.k, q.w]
                } else {
                    v
                }
            }
        }
    }
}

/// A unit quaternion from (x, y, z, w), the identity for a zero one.
fn quat(v: [f64; 4]) -> UnitQuaternion<f64> {
    let q = nalgebra::Quaternion::new(v[3], v[0], v[1], v[2]);
    if q.norm() > 1e-12 {
        UnitQuaternion::from_quaternion(q)
    } else {
        UnitQuaternion::identity()
    }
}

#[allow(clippy::too_many_arguments)]
pub(super) fn read_animations(
    doc: &gltf::Document,
    buffers: &[Vec<u8>],
    path: &str,
    rest: &[Trs],
    needed: &[bool],
    world_of: &dyn Fn(&[Trs]) -> Vec<Matrix4<f64>>,
    joint_nodes: &[usize],
    warnings: &mut Vec<String>,
) -> Result<Vec<Animation>, ArbsError> {
    let err = |m: String| ArbsError::file(path, m);
    // Named animations one by one; the unnamed ones together.
    let mut groups: Vec<(String, Vec<gltf::Animation>)> = Vec::new();
    let mut unnamed = Vec::new();
    for a in doc.animations() {
        match a.name().map(str::trim).filter(|n| !n.is_empty()) {
            Some(n) => groups.push((n.to_string(), vec![a])),
            None => unnamed.push(a),
        }
    }
    if unnamed.len() > 1 {
        warnings.push(format!(
            "{path}: merged {} unnamed animations into one called `animation`",
            unnamed.len()
        ));
    }
    if !unnamed.is_empty() {
        groups.push(("animation".into(), unnamed));
    }
    let names = unique(groups.iter().map(|g| g.0.clone()).collect());
    let mut out = Vec::new();
    let poses = &mut 0usize;
    for ((_, group), name) in groups.iter().zip(names) {
        let mut tracks = Vec::new();
        for a in group {
            // `gltf`'s validation leaves channel targets unchecked (its accessors would panic
            // on a bad node index or path), so they are read from the JSON here.
            let json = &doc.as_json().animations[a.index()];
            for (ci, ch) in json.channels.iter().enumerate() {
                let node = ch.target.node.value();
                if node >= needed.len() {
                    return Err(err(format!(
                        "animation `{name}` channel {ci} targets node {node}; the file has {}",
                        needed.len()
                    )));
                }
                let gltf_json::validation::Checked::Valid(property) = ch.target.path else {
                    return Err(err(format!(
                        "animation `{name}` channel {ci}: expected a target path of translation, rotation, scale or weights"
                    )));
                };
                if !needed[node] || property == Property::MorphTargetWeights {
                    continue;
                }
                let Some(sampler) = a.samplers().nth(ch.sampler.value()) else {
                    return Err(err(format!(
                        "animation `{name}` channel {ci} names sampler {}, which does not exist",
                        ch.sampler.value()
                    )));
                };
                let input = sampler.input();
                let what = format!("animation `{name}` keyframe times");
                let times = read_accessor(&input, buffers, path, &what, &[Dimensions::Scalar])?;
                if let Some(k) = times.windows(2).position(|w| w[1] < w[0] || w[1].is_nan()) {
                    return Err(err(format!(
                        "accessor {} ({what}): times must increase, found {} after {}",
                        input.index(),
                        times[k + 1],
                        times[k]
                    )));
                }
                if !times.iter().all(|t| t.is_finite() && t.abs() <= 1e6) {
                    return Err(err(format!(
                        "accessor {} ({what}): times must be finite, within ±1e6 s",
                        input.index()
                    )));
                }
                let output = sampler.output();
                let dims = if property == Property::Rotation {
                    Dimensions::Vec4
                } else {
                    Dimensions::Vec3
                };
                let what = format!("animation `{name}` values");
                let flat = read_accessor(&output, buffers, path, &what, &[dims])?;
                let m = dims.multiplicity();
                let values: Vec<[f64; 4]> = flat
                    .chunks(m)
                    .map(|c| std::array::from_fn(|k| c.get(k).copied().unwrap_or(0.0)))
                    .collect();
                let interpolation = sampler.interpolation();
                let per_key = if interpolation == Interpolation::CubicSpline {
                    3
                } else {
                    1
                };
                if values.len() != per_key * times.len() {
                    return Err(err(format!(
                        "accessor {} ({what}): expected {} values for {} keyframes, found {}",
                        output.index(),
                        per_key * times.len(),
                        times.len(),
                        values.len()
                    )));
                }
                tracks.push(Track {
                    node,
                    property,
                    interpolation,
                    times,
                    values,
                });
            }
        }
        if tracks.is_empty() {
            warnings.push(format!(
                "{path}: animation `{name}` moves no joint; skipped"
            ));
            continue;
        }
        let t0 = tracks
            .iter()
            .map(|t| t.times[0])
            .fold(f64::INFINITY, f64::min);
        let t1 = tracks
            .iter()
            .map(|t| t.times[t.times.len() - 1])
            .fold(f64::NEG_INFINITY, f64::max);
        let (times, rate) = sample_times(&tracks, t0, t1);
        if times.len() > MAX_FRAMES {
            return Err(err(format!(
                "animation `{name}` lasts {:.1} s: {} frames at {rate} fps, at most {MAX_FRAMES}",
                t1 - t0,
                times.len()
            )));
        }
        *poses += times.len() * joint_nodes.len();
        let work = times.len() * needed.iter().filter(|&&n| n).count();
        if work > MAX_SAMPLING {
            return Err(err(format!(
                "animation `{name}`: {} frames through {} nodes is more than {MAX_SAMPLING} node transforms to compose",
                times.len(),
                work / times.len().max(1)
            )));
        }
        if *poses > MAX_POSES {
            return Err(err(format!(
                "the animations hold {} joint transforms up to `{name}`; at most {MAX_POSES} are supported",
                *poses
            )));
        }
        let mut frames = Vec::with_capacity(times.len());
        let mut locals = rest.to_vec();
        for &t in &times {
            locals.copy_from_slice(rest);
            for tr in &tracks {
                let v = tr.sample(t);
                let l = &mut locals[tr.node];
                match tr.property {
                    Property::Translation => l.t = Vector3::new(v[0], v[1], v[2]),
                    Property::Scale => l.s = Vector3::new(v[0], v[1], v[2]),
                    Property::Rotation => l.r = quat(v),
                    Property::MorphTargetWeights => {}
                }
            }
            let world = world_of(&locals);
            frames.push(joint_nodes.iter().map(|&n| pose_of(&world[n])).collect());
        }
        out.push(Animation { name, rate, frames });
    }
    Ok(out)
}

/// The keyframe times when every track shares one regular grid of 10 to 240 fps, else a
/// 30 fps grid from `t0` to `t1`; and the rate.
fn sample_times(tracks: &[Track], t0: f64, t1: f64) -> (Vec<f64>, f64) {
    let first = &tracks[0].times;
    let shared = tracks.iter().all(|t| {
        t.times.len() == first.len()
            && t.times
                .iter()
                .zip(first)
                .all(|(a, b)| (a - b).abs() <= 1e-6)
    });
    if shared && first.len() >= 2 {
        let dt = (first[first.len() - 1] - first[0]) / (first.len() - 1) as f64;
        let regular = dt > 0.0
            && first
                .windows(2)
                .all(|w| ((w[1] - w[0]) - dt).abs() <= 1e-3 * dt);
        let rate = 1.0 / dt;
        if regular && (10.0..=240.0).contains(&rate) {
            // Single-precision times: an integer rate when it is one to 1e-3.
            let rate = if (rate - rate.round()).abs() < 1e-3 {
                rate.round()
            } else {
                rate
            };
            return (first.clone(), rate);
        }
    }
    let span = (t1 - t0).max(0.0);
    let n = (span * SAMPLE_RATE + 1e-6).floor() as usize + 1;
    let n = n.min(MAX_FRAMES + 1);
    (
        (0..n).map(|i| t0 + i as f64 / SAMPLE_RATE).collect(),
        SAMPLE_RATE,
    )
}
