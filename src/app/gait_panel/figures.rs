//! The gait drawn as a stick figure: poses at a time of the cycle, the side view (treadmill or
//! world frame, with ground reactions) and the front view.

use super::*;

/// The creature at playback time `time` (s): limb segments interpolated between frames,
/// treadmill frame (the ground moves at −V) or world frame (the creature advances at V).
pub(super) fn pose_at(shown: &ShownGait, time: f64) -> (Vec<([f64; 3], [f64; 3])>, usize, f64) {
    pose_of(&shown.segments, shown.clip.period, time)
}

/// [`pose_at`] for any per-frame limb segments of a cycle of `period` seconds.
pub(super) fn pose_of(
    segments: &[Vec<([f64; 3], [f64; 3])>],
    period: f64,
    time: f64,
) -> (Vec<([f64; 3], [f64; 3])>, usize, f64) {
    let n = segments.len();
    let u = (time / period).rem_euclid(1.0) * n as f64;
    let i = (u.floor() as usize).min(n - 1);
    let j = (i + 1) % n;
    let f = u - i as f64;
    let lerp = |a: [f64; 3], b: [f64; 3]| -> [f64; 3] {
        std::array::from_fn(|c| a[c] + (b[c] - a[c]) * f)
    };
    let segs = segments[i]
        .iter()
        .zip(&segments[j])
        .map(|(a, b)| (lerp(a.0, b.0), lerp(a.1, b.1)))
        .collect();
    (segs, if f < 0.5 { i } else { j }, u / n as f64)
}

/// Side (x–y) view with ground ticks and contact forces; `world`: the creature walks across a
/// fixed ground (it goes back by whole cycles when it leaves the view), else it stays on a
/// treadmill whose belt marks run back at −V.
pub(super) fn side_view(ui: &mut egui::Ui, shown: &ShownGait, time: f64, world: bool, width: f32) {
    let size = egui::vec2(width.max(200.0), 250.0);
    let (resp, painter) = ui.allocate_painter(size, egui::Sense::hover());
    let rect = resp.rect;
    painter.rect_filled(rect, 3.0, egui::Color32::from_rgb(235, 240, 246));
    let clip = &shown.clip;
    let [x0, x1, ymax, _, zmax] = shown.extent;
    let length = (x1 - x0).max(0.3);
    let height = ymax.max(0.3);
    let stride = clip.speed * clip.period;
    // World: room for the body plus a few strides; treadmill: the body with a margin.
    let (view_w, cycles) = if world && stride.abs() > 1e-6 {
        let w = (length + 3.0 * stride.abs()).max(2.5 * length);
        (w, ((0.9 * w - length) / stride.abs()).floor().max(1.0))
    } else {
        (length * 1.6, 1.0)
    };
    let view_h = height * 1.25;
    let scale = ((rect.width() - 20.0) as f64 / view_w).min((rect.height() - 24.0) as f64 / view_h);
    let ground_y = rect.bottom() - 18.0;
    // World x of the view's left edge; the creature's treadmill x is shifted by `advance`.
    let (view_left, advance) = if world && stride.abs() > 1e-6 {
        let loop_t = cycles * clip.period;
        let adv = clip.speed * time.rem_euclid(loop_t);
        let left = if clip.speed >= 0.0 {
            x0 - 0.05 * view_w
        } else {
            x1 + 0.05 * view_w - view_w
        };
        (left, adv)
    } else {
        (x0 - 0.3 * length, 0.0)
    };
    let to = |p: [f64; 3]| {
        egui::pos2(
            rect.left() + 10.0 + ((p[0] + advance - view_left) * scale) as f32,
            ground_y - (p[1] * scale) as f32,
        )
    };
    // Ground and its tick marks (every 0.1 m, longer every metre).
    let ink = egui::Color32::from_gray(70);
    painter.hline(
        rect.left()..=rect.right(),
        ground_y,
        egui::Stroke::new(2.0, ink),
    );
    let belt_shift = if world {
        0.0
    } else {
        (-clip.speed * time).rem_euclid(1.0)
    };
    let first = ((view_left - 1.0) * 10.0).floor() as i64;
    let last = ((view_left + view_w + 1.0) * 10.0).ceil() as i64;
    for k in first..=last {
        let xw = k as f64 / 10.0 + belt_shift;
        let x = rect.left() + 10.0 + ((xw - view_left) * scale) as f32;
        if x < rect.left() || x > rect.right() {
            continue;
        }
        let long = k.rem_euclid(10) == 0;
        painter.vline(
            x,
            ground_y..=ground_y + if long { 9.0 } else { 4.0 },
            egui::Stroke::new(1.0, ink),
        );
    }
    // The character file's body in the same pose, as a ghost behind the optimised one.
    if let Some((file, ghost)) = &shown.file_body {
        let (segs, _, _) = pose_of(ghost, clip.period, time);
        let colour = egui::Color32::from_rgba_unmultiplied(80, 80, 80, 110);
        for (l, (a, b)) in segs.iter().enumerate() {
            let w = ((2.0 * file.limbs[l].radius * scale) as f32).clamp(2.0, 14.0);
            painter.line_segment([to(*a), to(*b)], egui::Stroke::new(w, colour));
        }
    }
    let (segs, frame, _) = pose_at(shown, time);
    // Far limbs (small z) first and paler; the viewer looks from +z.
    let mut order: Vec<usize> = (0..segs.len()).collect();
    order.sort_by(|&a, &b| {
        let za = segs[a].0[2] + segs[a].1[2];
        let zb = segs[b].0[2] + segs[b].1[2];
        za.total_cmp(&zb)
    });
    let zmid = 0.5 * (shown.extent[3] + zmax);
    for l in order {
        let (a, b) = segs[l];
        let far = (a[2] + b[2]) * 0.5 < zmid - 1e-3;
        let base = match shown.leg[l] {
            Some(k) => foot_colour(k),
            None => egui::Color32::from_gray(60),
        };
        let colour = if far {
            base.lerp_to_gamma(egui::Color32::WHITE, 0.45)
        } else {
            base
        };
        let radius = shown.skeleton.limbs[l].radius;
        let w = ((2.0 * radius * scale) as f32).clamp(2.0, 14.0);
        painter.line_segment([to(a), to(b)], egui::Stroke::new(w, colour));
        painter.circle_filled(to(a), w * 0.5, colour);
    }
    // Feet: a dot, and the ground reaction when in contact (length: 0.3 m per body weight).
    let weight = shown.skeleton.total_mass() * crate::model::rotation::GRAVITY_F64;
    for (k, &foot) in shown.skeleton.feet.iter().enumerate() {
        let p = segs[foot].1;
        let at = to(p);
        let load = clip
            .contacts
            .get(frame)
            .and_then(|c| c.get(k))
            .and_then(|l| l.as_ref());
        painter.circle_filled(at, 3.5, foot_colour(k));
        if let Some(load) = load {
            painter.circle_stroke(at, 5.5, egui::Stroke::new(1.5, egui::Color32::BLACK));
            let s = 0.3 / weight.max(1e-9) * scale;
            let v = egui::vec2((load.force[0] * s) as f32, -(load.force[1] * s) as f32);
            painter.arrow(
                at,
                v,
                egui::Stroke::new(1.5, egui::Color32::from_rgb(200, 30, 30)),
            );
        }
    }
    painter.text(
        rect.left_top() + egui::vec2(6.0, 4.0),
        egui::Align2::LEFT_TOP,
        format!(
            "{}{}",
            if world {
                format!("side view · world frame · {:.2} m/s", clip.speed)
            } else {
                format!("side view · treadmill (belt at {:.2} m/s)", -clip.speed)
            },
            if shown.file_body.is_some() {
                " · grey: the file's body"
            } else {
                ""
            }
        ),
        egui::FontId::proportional(11.0),
        ink,
    );
}

/// Front (z–y) view of the creature at `time`, looking back along −x.
pub(super) fn front_view(ui: &mut egui::Ui, shown: &ShownGait, time: f64) {
    let size = egui::vec2(150.0, 250.0);
    let (resp, painter) = ui.allocate_painter(size, egui::Sense::hover());
    let rect = resp.rect;
    painter.rect_filled(rect, 3.0, egui::Color32::from_rgb(235, 240, 246));
    let [_, _, ymax, z0, z1] = shown.extent;
    let zc = 0.5 * (z0 + z1);
    let view = ((z1 - z0) * 1.6).max(ymax * 0.7).max(0.3);
    let scale =
        ((rect.width() - 12.0) as f64 / view).min((rect.height() - 30.0) as f64 / (ymax * 1.2));
    let ground_y = rect.bottom() - 18.0;
    let to = |p: [f64; 3]| {
        egui::pos2(
            rect.center().x + ((p[2] - zc) * scale) as f32,
            ground_y - (p[1] * scale) as f32,
        )
    };
    let ink = egui::Color32::from_gray(70);
    painter.hline(
        rect.left() + 4.0..=rect.right() - 4.0,
        ground_y,
        egui::Stroke::new(2.0, ink),
    );
    let (segs, _, _) = pose_at(shown, time);
    // Back limbs (small x) first.
    let mut order: Vec<usize> = (0..segs.len()).collect();
    order.sort_by(|&a, &b| (segs[a].0[0] + segs[a].1[0]).total_cmp(&(segs[b].0[0] + segs[b].1[0])));
    for l in order {
        let (a, b) = segs[l];
        let colour = match shown.leg[l] {
            Some(k) => foot_colour(k),
            None => egui::Color32::from_gray(60),
        };
        let w = ((2.0 * shown.skeleton.limbs[l].radius * scale) as f32).clamp(2.0, 12.0);
        painter.line_segment([to(a), to(b)], egui::Stroke::new(w, colour));
    }
    painter.text(
        rect.left_top() + egui::vec2(6.0, 4.0),
        egui::Align2::LEFT_TOP,
        "front view",
        egui::FontId::proportional(11.0),
        ink,
    );
}
