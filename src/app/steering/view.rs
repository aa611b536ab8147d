//! Pictures of a motion graph for the Steering window: its distance map as an image (darker:
//! more alike; transitions marked; McIntosh 2011, Fig. 4.3) and its frames on a ring, coloured by
//! clip, with the transitions as chords (Fig. 4.1).

use crate::motion_graph::{DistanceMap, FrameRef, LoadedGraph, build};
use bevy_egui::egui;

/// What the window draws of a graph.
pub struct GraphPicture {
    pub map: DistanceMap,
    /// Per clip, where its frames start in the picture: `None` for a clip whose frames were not
    /// compared (a turn's are +∞), which the picture leaves out.
    pub shown: Vec<Option<usize>>,
    /// Frames in the picture.
    pub shown_size: usize,
    /// The picture as RGBA pixels, `shown_size`² of them.
    pixels: Vec<egui::Color32>,
    texture: Option<egui::TextureHandle>,
    /// Largest value shown (the map's 95th percentile).
    pub scale: f32,
}

/// A colour per clip, by hue.
pub fn clip_colour(clip: usize, clips: usize) -> egui::Color32 {
    let h = clip as f32 / clips.max(1) as f32;
    let (r, g, b) = hsv(h, 0.65, 0.9);
    egui::Color32::from_rgb(r, g, b)
}

fn hsv(h: f32, s: f32, v: f32) -> (u8, u8, u8) {
    let i = (h * 6.0).floor();
    let f = h * 6.0 - i;
    let (p, q, t) = (v * (1.0 - s), v * (1.0 - f * s), v * (1.0 - (1.0 - f) * s));
    let (r, g, b) = match i as i32 % 6 {
        0 => (v, t, p),
        1 => (q, v, p),
        2 => (p, v, t),
        3 => (p, q, v),
        4 => (t, p, v),
        _ => (v, p, q),
    };
    ((r * 255.0) as u8, (g * 255.0) as u8, (b * 255.0) as u8)
}

impl GraphPicture {
    /// Computes the graph's distance map (the same settings it was built with).
    pub fn new(graph: &LoadedGraph) -> Self {
        let clips: Vec<(String, std::path::PathBuf, crate::clip::Clip)> = graph
            .graph
            .clips
            .iter()
            .zip(&graph.clips)
            .map(|(g, c)| (g.name.clone(), g.path.clone(), c.clone()))
            .collect();
        let map = match build(
            &graph.character,
            &graph.character_path,
            &clips,
            &graph.graph.settings,
        ) {
            Ok((_, map)) => map,
            Err(_) => DistanceMap {
                offsets: vec![0; clips.len()],
                size: 0,
                values: Vec::new(),
            },
        };
        // The frames of connections within a gait family are not compared (+∞): left out.
        let mut shown = Vec::with_capacity(clips.len());
        let mut shown_size = 0;
        for (c, g) in graph.graph.clips.iter().enumerate() {
            let first = FrameRef { clip: c, frame: 0 };
            let compared = map.size > 0 && g.frames > 0 && map.at(first, first).is_finite();
            shown.push(compared.then_some(shown_size));
            if compared {
                shown_size += g.frames;
            }
        }
        let frames: Vec<usize> = graph
            .graph
            .clips
            .iter()
            .enumerate()
            .filter(|(c, _)| shown[*c].is_some())
            .flat_map(|(c, g)| {
                let first = map.offsets[c];
                (0..g.frames).map(move |k| first + k)
            })
            .collect();
        let mut sorted: Vec<f32> = map
            .values
            .iter()
            .copied()
            .filter(|v| v.is_finite())
            .collect();
        sorted.sort_by(f32::total_cmp);
        let scale = sorted
            .get(sorted.len() * 95 / 100)
            .copied()
            .unwrap_or(1.0)
            .max(1e-6);
        let pixels = frames
            .iter()
            .flat_map(|&a| frames.iter().map(move |&b| (a, b)))
            .map(|(a, b)| {
                let v = map.values[a * map.size + b];
                let g = ((v / scale).clamp(0.0, 1.0) * 255.0) as u8;
                egui::Color32::from_gray(g)
            })
            .collect();
        let mut picture = Self {
            map,
            shown,
            shown_size,
            pixels,
            texture: None,
            scale,
        };
        picture.mark_transitions(graph);
        picture
    }

    /// Where frame `f` is in the picture, if its clip is shown.
    pub fn picture_index(&self, f: FrameRef) -> Option<usize> {
        Some(self.shown.get(f.clip).copied().flatten()? + f.frame)
    }

    /// Transitions between shown frames as bright dots: exact ones green, blended ones red.
    fn mark_transitions(&mut self, graph: &LoadedGraph) {
        let n = self.shown_size;
        for t in &graph.graph.transitions {
            let (Some(a), Some(b)) = (self.picture_index(t.from), self.picture_index(t.to)) else {
                continue;
            };
            let colour = if t.exact {
                egui::Color32::from_rgb(40, 230, 90)
            } else {
                egui::Color32::from_rgb(255, 60, 40)
            };
            for (da, db) in [(0, 0), (1, 0), (0, 1), (1, 1)] {
                let (x, y) = ((a + da).min(n - 1), (b + db).min(n - 1));
                self.pixels[x * n + y] = colour;
            }
        }
    }

    /// The map's texture (made on first use).
    pub fn texture(&mut self, ctx: &egui::Context) -> Option<&egui::TextureHandle> {
        let n = self.shown_size;
        if n == 0 {
            return None;
        }
        if self.texture.is_none() {
            let image = egui::ColorImage::new([n, n], self.pixels.clone());
            self.texture = Some(ctx.load_texture(
                "steering_distance_map",
                image,
                egui::TextureOptions::NEAREST,
            ));
        }
        self.texture.as_ref()
    }

    /// Where frame `f` sits on the ring of `rect`.
    pub fn ring_position(&self, f: FrameRef, rect: egui::Rect) -> egui::Pos2 {
        let k = self.map.offsets[f.clip] + f.frame;
        let a = k as f32 / self.map.size.max(1) as f32 * std::f32::consts::TAU;
        let r = 0.44 * rect.width().min(rect.height());
        rect.center() + egui::vec2(a.cos(), a.sin()) * r
    }
}
