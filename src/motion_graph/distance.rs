//! The frame distance of a motion graph (McIntosh 2011, §4.3.1, after Kovar, Gleicher & Pighin
//! 2002, "Motion Graphs"): two frames are compared by the skin's point cloud (the points of
//! [`crate::model::skin::SkinPoints`], posed by each frame's bones) over a window of frames
//! around each, positions and velocities, after the rigid motion of the ground plane (a turn
//! about the vertical and a move along the floor) that brings the second window closest to the
//! first.
//!
//! For windows p (of frame i) and p' (of frame j), with velocities v and v' weighted by τ
//! ([`WindowSettings::velocity_weight`]), the optimal turn θ and move t minimise
//! Σ‖p − (R_θ p' + t)‖² + Σ‖τv − R_θ τv'‖². With the positions' ground coordinates centred on
//! their means (x̄, z̄) and (x̄', z̄'):
//! - a = Σ (x x' + z z') over positions and velocities, b = Σ (x z' − z x');
//! - θ = atan2(b, a) (Kovar's closed form, in the project's y-up axes), t = c − R_θ c';
//! - the minimum is S + S' − 2√(a² + b²) − 2 Σ y y', S the sum of squares of one window.
//!
//! The distance reported is the root mean square over the points: √(min / points), in metres.

use crate::model::planar::PlanarMotion;

/// Window and weights of the frame distance.
#[derive(Clone, Copy, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct WindowSettings {
    /// Frames on each side of the compared frame (the window has 2k + 1).
    pub half_width: usize,
    /// τ (s): a velocity of 1 m/s weighs like a distance of τ metres.
    pub velocity_weight: f64,
}

impl Default for WindowSettings {
    fn default() -> Self {
        Self {
            half_width: 2,
            velocity_weight: 0.1,
        }
    }
}

/// One frame's window of the point cloud, ready to compare: ground coordinates centred,
/// heights and velocities as they are (f32, structure of arrays).
#[derive(Clone, Debug)]
pub struct WindowFeature {
    /// Centred x, z of the positions, then τ·v_x, τ·v_z of the velocities.
    x: Vec<f32>,
    z: Vec<f32>,
    /// y of the positions, then τ·v_y.
    y: Vec<f32>,
    /// Σ x² + z² + y² over all entries.
    squares: f64,
    /// Mean ground position of the window's points.
    centre: [f64; 2],
    /// Points in the window (for the RMS).
    count: usize,
}

impl WindowFeature {
    /// From the window's point clouds (2k + 1 frames, in order) and the frames' spacing.
    pub fn new(clouds: &[Vec<[f64; 3]>], dt: f64, settings: &WindowSettings) -> Self {
        let k = clouds.len();
        let count: usize = clouds.iter().map(|c| c.len()).sum();
        let (mut cx, mut cz) = (0.0, 0.0);
        for p in clouds.iter().flatten() {
            cx += p[0];
            cz += p[2];
        }
        let centre = [cx / count as f64, cz / count as f64];
        let mut f = WindowFeature {
            x: Vec::with_capacity(2 * count),
            z: Vec::with_capacity(2 * count),
            y: Vec::with_capacity(2 * count),
            squares: 0.0,
            centre,
            count,
        };
        for p in clouds.iter().flatten() {
            f.push(p[0] - centre[0], p[1], p[2] - centre[1]);
        }
        // Velocities by central differences inside the window (one-sided at its ends).
        let tau = settings.velocity_weight;
        for i in 0..k {
            let (a, b) = (i.saturating_sub(1), (i + 1).min(k - 1));
            let span = (b - a).max(1) as f64 * dt;
            for (pa, pb) in clouds[a].iter().zip(&clouds[b]) {
                f.push(
                    tau * (pb[0] - pa[0]) / span,
                    tau * (pb[1] - pa[1]) / span,
                    tau * (pb[2] - pa[2]) / span,
                );
            }
        }
        f
    }

    fn push(&mut self, x: f64, y: f64, z: f64) {
        self.squares += x * x + y * y + z * z;
        self.x.push(x as f32);
        self.y.push(y as f32);
        self.z.push(z as f32);
    }

    /// The aligned distance to `other` (RMS over points, m) and the motion that takes `other`'s
    /// frames onto this one's.
    pub fn distance(&self, other: &WindowFeature) -> (f64, PlanarMotion) {
        let (a, b, c) = cross_sums(self, other);
        let min = (self.squares + other.squares - 2.0 * (a * a + b * b).sqrt() - 2.0 * c).max(0.0);
        (
            (min / self.count as f64).sqrt(),
            self.motion_for(other, b.atan2(a)),
        )
    }

    /// The distance to `other` turned by yaw θ (and moved by the best ground translation for
    /// it), and that motion.
    pub fn distance_at(&self, other: &WindowFeature, theta: f64) -> (f64, PlanarMotion) {
        let (a, b, c) = cross_sums(self, other);
        let value =
            (self.squares + other.squares - 2.0 * (a * theta.cos() + b * theta.sin()) - 2.0 * c)
                .max(0.0);
        (
            (value / self.count as f64).sqrt(),
            self.motion_for(other, theta),
        )
    }

    /// The distance alone (what the distance map needs).
    pub fn distance_only(&self, other: &WindowFeature) -> f32 {
        let (a, b, c) = cross_sums(self, other);
        let min = (self.squares + other.squares - 2.0 * (a * a + b * b).sqrt() - 2.0 * c).max(0.0);
        (min / self.count as f64).sqrt() as f32
    }

    /// The ground motion turning `other` by yaw θ and moving its centre onto this one's.
    /// (Σ q·(R q') for R q' = (x' cos θ + z' sin θ, −x' sin θ + z' cos θ), [`PlanarMotion`]'s
    /// turn by θ, is a cos θ + b sin θ: largest at θ = atan2(b, a).)
    fn motion_for(&self, other: &WindowFeature, theta: f64) -> PlanarMotion {
        let turn = PlanarMotion {
            x: 0.0,
            z: 0.0,
            yaw: theta,
        };
        let moved = turn.apply_vec3([other.centre[0], 0.0, other.centre[1]]);
        PlanarMotion {
            x: self.centre[0] - moved[0],
            z: self.centre[1] - moved[2],
            yaw: theta,
        }
    }
}

/// (a, b, Σ y y') of two windows of the same size.
fn cross_sums(p: &WindowFeature, q: &WindowFeature) -> (f64, f64, f64) {
    debug_assert_eq!(p.x.len(), q.x.len());
    // Accumulated in f32 lanes of 8, then summed in f64: vectorised and precise enough for
    // a distance (the sums have a few thousand terms).
    const L: usize = 8;
    let n = p.x.len();
    let (mut a, mut b, mut c) = ([0f32; L], [0f32; L], [0f32; L]);
    let chunks = n / L;
    for k in 0..chunks {
        let r = k * L..k * L + L;
        let (px, pz, py) = (&p.x[r.clone()], &p.z[r.clone()], &p.y[r.clone()]);
        let (qx, qz, qy) = (&q.x[r.clone()], &q.z[r.clone()], &q.y[r]);
        for l in 0..L {
            a[l] += px[l] * qx[l] + pz[l] * qz[l];
            b[l] += px[l] * qz[l] - pz[l] * qx[l];
            c[l] += py[l] * qy[l];
        }
    }
    let (mut sa, mut sb, mut sc) = (0.0f64, 0.0f64, 0.0f64);
    for l in 0..L {
        sa += a[l] as f64;
        sb += b[l] as f64;
        sc += c[l] as f64;
    }
    for i in chunks * L..n {
        sa += (p.x[i] * q.x[i] + p.z[i] * q.z[i]) as f64;
        sb += (p.x[i] * q.z[i] - p.z[i] * q.x[i]) as f64;
        sc += (p.y[i] * q.y[i]) as f64;
    }
    (sa, sb, sc)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cloud(seed: u64, n: usize) -> Vec<[f64; 3]> {
        use rand::{Rng, SeedableRng};
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(seed);
        (0..n)
            .map(|_| {
                [
                    rng.random_range(-0.5..0.5),
                    rng.random_range(0.0..1.8),
                    rng.random_range(-0.3..0.3),
                ]
            })
            .collect()
    }

    /// A window moved by any turn about the vertical and move along the ground is at distance
    /// 0 from itself, and the motion found is the inverse of the one applied; an unrelated
    /// window is far.
    #[test]
    fn the_distance_ignores_ground_motions_and_finds_them() {
        let s = WindowSettings::default();
        let frames: Vec<Vec<[f64; 3]>> = (0..5).map(|k| cloud(k, 40)).collect();
        let moved = PlanarMotion {
            x: 3.0,
            z: -1.5,
            yaw: 2.2,
        };
        let shifted: Vec<Vec<[f64; 3]>> = frames
            .iter()
            .map(|c| c.iter().map(|p| moved.apply_vec3(*p)).collect())
            .collect();
        let a = WindowFeature::new(&frames, 1.0 / 30.0, &s);
        let b = WindowFeature::new(&shifted, 1.0 / 30.0, &s);
        let (d, m) = a.distance(&b);
        assert!(d < 1e-5, "distance {d}");
        // m takes b onto a: m ∘ moved is the identity.
        let back = m.compose(&moved);
        assert!(back.x.abs() < 1e-4 && back.z.abs() < 1e-4, "{back:?}");
        assert!(
            (back.yaw.sin()).abs() < 1e-5 && back.yaw.cos() > 0.0,
            "{back:?}"
        );
        assert!((a.distance_only(&b) as f64) < 1e-5);
        let other: Vec<Vec<[f64; 3]>> = (10..15).map(|k| cloud(k, 40)).collect();
        let c = WindowFeature::new(&other, 1.0 / 30.0, &s);
        assert!(a.distance(&c).0 > 0.1);
    }

    /// The closed form is the minimum: no other turn does better.
    #[test]
    fn no_other_turn_is_closer() {
        let s = WindowSettings::default();
        let a_frames: Vec<Vec<[f64; 3]>> = (0..5).map(|k| cloud(k, 30)).collect();
        let b_frames: Vec<Vec<[f64; 3]>> = (5..10).map(|k| cloud(k, 30)).collect();
        let a = WindowFeature::new(&a_frames, 0.05, &s);
        let b = WindowFeature::new(&b_frames, 0.05, &s);
        let best = a.distance(&b).0;
        for k in 0..72 {
            let yaw = k as f64 * 5f64.to_radians();
            let turned: Vec<Vec<[f64; 3]>> = b_frames
                .iter()
                .map(|c| {
                    c.iter()
                        .map(|p| {
                            PlanarMotion {
                                x: 0.0,
                                z: 0.0,
                                yaw,
                            }
                            .apply_vec3(*p)
                        })
                        .collect()
                })
                .collect();
            let d = a.distance(&WindowFeature::new(&turned, 0.05, &s)).0;
            assert!(d >= best - 1e-6, "yaw {yaw}: {d} < {best}");
        }
    }
}
