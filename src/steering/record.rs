//! A steered run kept as a clip (the one clip type, [`crate::clip::Clip`]): the poses shown,
//! played or simulated, with the feet planted, at whatever times they came (the app's frames
//! vary), resampled to a fixed rate when saved.

use crate::clip::pose::{BodyPose, body_poses};
use crate::clip::{CharacterRef, Clip, Tags, from_body_poses};
use crate::model::Character;
use crate::sim::Simulation;
use crate::steering::Output;

/// How much of a run is kept (s): the app records as long as it steers.
pub const KEPT_SECONDS: f64 = 600.0;

/// A run's poses as they came.
#[derive(Clone, Debug, Default)]
pub struct RunRecording {
    /// Per sample: time (s), every body's pose, per end effector planted.
    samples: Vec<(f64, Vec<BodyPose>, Vec<bool>)>,
    /// Some sample was simulated.
    simulated: bool,
}

impl RunRecording {
    pub fn len(&self) -> usize {
        self.samples.len()
    }

    pub fn is_empty(&self) -> bool {
        self.samples.is_empty()
    }

    /// Seconds recorded.
    pub fn duration(&self) -> f64 {
        match (self.samples.first(), self.samples.last()) {
            (Some(a), Some(b)) => b.0 - a.0,
            _ => 0.0,
        }
    }

    pub fn clear(&mut self) {
        self.samples.clear();
        self.simulated = false;
    }

    fn push(&mut self, t: f64, poses: Vec<BodyPose>, planted: Vec<bool>) {
        if self.samples.last().is_some_and(|s| t <= s.0) {
            return;
        }
        self.samples.push((t, poses, planted));
        let oldest = t - KEPT_SECONDS;
        let drop = self.samples.iter().take_while(|s| s.0 < oldest).count();
        self.samples.drain(..drop);
    }

    /// The pose the controller played at time `t`, with its planted feet.
    pub fn push_played(&mut self, c: &Character, t: f64, out: &Output) {
        self.push(
            t,
            body_poses(c, &out.pose.root, &out.pose.joints),
            out.contacts.clone(),
        );
    }

    /// The simulated character at time `t`; an end effector is planted when its body touches
    /// the ground.
    pub fn push_simulated(&mut self, t: f64, sim: &Simulation) {
        let frame = sim.frame();
        let c = sim.character();
        let planted = c
            .end_effectors
            .iter()
            .map(|e| {
                c.body_index(&e.body)
                    .is_some_and(|b| frame.contacts.get(b).is_some_and(|&n| n > 0))
            })
            .collect();
        let poses = frame.poses.iter().map(|p| p.map(f64::from)).collect();
        self.simulated = true;
        self.push(t, poses, planted);
    }

    /// The horizontal velocity (world x and z, m/s) of the bodies' mean place over the last
    /// `over` seconds recorded, a stride or so: where the run goes, its swaying averaged out.
    /// None until half of `over` is recorded.
    pub fn travel(&self, over: f64) -> Option<[f64; 2]> {
        let last = self.samples.last()?;
        let first = self.samples.iter().find(|s| s.0 >= last.0 - over - 1e-9)?;
        let span = last.0 - first.0;
        if span < 0.5 * over {
            return None;
        }
        let centre = |poses: &[BodyPose]| {
            let n = poses.len().max(1) as f64;
            [0, 2].map(|k| poses.iter().map(|p| p[k]).sum::<f64>() / n)
        };
        let (a, b) = (centre(&first.1), centre(&last.1));
        Some([(b[0] - a[0]) / span, (b[1] - a[1]) / span])
    }

    /// The run as a clip of `character` (its file `character_ref`) at `rate` frames per second
    /// from the first sample: each frame the latest sample at or before its time. Tagged
    /// `steer`, or `steer-physics` when simulated. None when nothing was recorded.
    pub fn clip(
        &self,
        character: &Character,
        character_ref: CharacterRef,
        rate: f64,
    ) -> Option<Clip> {
        let start = self.samples.first()?.0;
        let n = (self.duration() * rate + 1e-9).floor() as usize + 1;
        let mut at = 0;
        let (mut poses, mut planted) = (Vec::with_capacity(n), Vec::with_capacity(n));
        for k in 0..n {
            let t = start + k as f64 / rate;
            while at + 1 < self.samples.len() && self.samples[at + 1].0 <= t + 1e-9 {
                at += 1;
            }
            poses.push(self.samples[at].1.clone());
            planted.push(self.samples[at].2.clone());
        }
        let tags = Tags {
            source: if self.simulated {
                "steer-physics"
            } else {
                "steer"
            }
            .into(),
            ..Tags::default()
        };
        Some(from_body_poses(
            character,
            character_ref,
            rate,
            &poses,
            Some(planted),
            tags,
        ))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::motion_graph::MotionGraph;
    use crate::steering::{Controller, Mode, Stick};
    use std::sync::Arc;

    /// Samples that come every 1/50 or 1/70 s (an app's uneven frames) make a clip at 60 fps:
    /// one frame per 1/60 s of the run, each the pose played at the latest sample before it
    /// (the root where the controller had it), with its planted feet.
    #[test]
    fn uneven_samples_make_a_clip_at_a_fixed_rate() {
        let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
        let path = root.join("assets/graphs/human3d.ron");
        let g = Arc::new(MotionGraph::load(&path).unwrap());
        let mut controller = Controller::new(
            g.clone(),
            Controller::default_start(&g, "stand"),
            Mode::Steer,
        );
        let stick = Stick {
            movement: (0.0, 1.0),
            ..Stick::default()
        };
        let mut rec = RunRecording::default();
        let (mut t, mut played) = (0.0, Vec::new());
        for i in 0..200 {
            let dt = if i % 2 == 0 { 1.0 / 50.0 } else { 1.0 / 70.0 };
            t += dt;
            let out = controller.step(&stick, dt);
            rec.push_played(&g.character, t, &out);
            played.push((t, out.pose.root));
        }
        let text = std::fs::read_to_string(&g.character_path).unwrap();
        let clip = rec
            .clip(
                &g.character,
                CharacterRef::new(&g.character_path, &text),
                60.0,
            )
            .unwrap();
        clip.check().unwrap();
        let duration = played.last().unwrap().0 - played[0].0;
        assert_eq!(clip.frames.len(), (duration * 60.0).floor() as usize + 1);
        assert_eq!(clip.tags.source, "steer");
        for (k, frame) in clip.frames.iter().enumerate() {
            let time = played[0].0 + k as f64 / 60.0;
            let (_, want) = played
                .iter()
                .rev()
                .find(|(s, _)| *s <= time + 1e-9)
                .unwrap();
            for a in 0..3 {
                assert!((frame.root[a] - want[a]).abs() < 1e-9, "frame {k}");
            }
        }
        let (a, b) = (clip.frames[0].root, clip.frames.last().unwrap().root);
        let travelled = ((b[0] - a[0]).powi(2) + (b[2] - a[2]).powi(2)).sqrt();
        assert!(travelled > 1.0, "walked {travelled:.2} m");
    }

    /// The travel over the last second: nothing before half a second is recorded; a figure
    /// whose every body moves 1.2 m/s along x and −0.5 m/s along z, swaying ±0.1 m across,
    /// goes at (1.2, −0.5) m/s measured over a whole sway.
    #[test]
    fn travel_is_the_mean_place_over_the_last_second() {
        let mut rec = RunRecording::default();
        let pose = |t: f64| {
            let sway = 0.1 * (std::f64::consts::TAU * t).sin();
            vec![
                [1.2 * t + sway, 1.0, -0.5 * t, 0.0, 0.0, 0.0, 1.0],
                [1.2 * t + sway, 0.5, -0.5 * t + 0.2, 0.0, 0.0, 0.0, 1.0],
            ]
        };
        for k in 0..=180 {
            let t = k as f64 / 60.0;
            if k == 20 {
                assert_eq!(rec.travel(1.0), None, "a third of a second recorded");
            }
            rec.push(t, pose(t), vec![false, false]);
        }
        let [vx, vz] = rec.travel(1.0).unwrap();
        assert!(
            (vx - 1.2).abs() < 1e-9 && (vz + 0.5).abs() < 1e-9,
            "{vx} {vz}"
        );
    }
}
