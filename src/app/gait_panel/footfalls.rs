//! Footfall diagrams: the result's contact bars with flight and double support, and the editor
//! of the request's contact windows.

use super::*;

/// Foot colours (rows of the footfall diagram, legs of the figure).
pub(super) fn foot_colour(k: usize) -> egui::Color32 {
    const PALETTE: [[u8; 3]; 6] = [
        [66, 133, 244],
        [234, 120, 40],
        [52, 168, 83],
        [200, 60, 150],
        [150, 100, 220],
        [20, 170, 180],
    ];
    let [r, g, b] = PALETTE[k % PALETTE.len()];
    egui::Color32::from_rgb(r, g, b)
}

pub(super) const FLIGHT: egui::Color32 = egui::Color32::from_rgb(120, 190, 255);

pub(super) const DOUBLE: egui::Color32 = egui::Color32::from_rgb(240, 200, 60);

/// One bar row per foot across one cycle, contact frames filled, with a band above marking
/// flight (no foot down, blue) and double support (two or more feet down, yellow) and an
/// optional play head (phase in [0, 1)).
pub(super) fn footfall_diagram(
    ui: &mut egui::Ui,
    names: &[String],
    contact: &[Vec<bool>],
    playhead: Option<f64>,
) {
    let label_w = 86.0;
    let row_h = 15.0;
    let band_h = 9.0;
    let width = ui.available_width().clamp(200.0, 620.0);
    let height = band_h + 4.0 + row_h * names.len() as f32 + 14.0;
    let (resp, painter) = ui.allocate_painter(egui::vec2(width, height), egui::Sense::hover());
    let rect = resp.rect;
    let left = rect.left() + label_w;
    let span = rect.width() - label_w - 4.0;
    let n = contact.len().max(1);
    let x_at = |f: f64| left + span * f as f32;
    let text = ui.visuals().text_color();
    // Flight / double-support band.
    let band = egui::Rect::from_min_max(
        egui::pos2(left, rect.top()),
        egui::pos2(left + span, rect.top() + band_h),
    );
    painter.rect_filled(band, 0.0, ui.visuals().extreme_bg_color);
    painter.text(
        egui::pos2(rect.left() + 2.0, band.center().y),
        egui::Align2::LEFT_CENTER,
        "phases",
        egui::FontId::proportional(10.0),
        text,
    );
    for (i, c) in contact.iter().enumerate() {
        let down = c.iter().filter(|&&b| b).count();
        let colour = match down {
            0 => Some(FLIGHT),
            1 => None,
            _ => Some(DOUBLE),
        };
        if let Some(colour) = colour {
            painter.rect_filled(
                egui::Rect::from_min_max(
                    egui::pos2(x_at(i as f64 / n as f64), band.top()),
                    egui::pos2(x_at((i + 1) as f64 / n as f64), band.bottom()),
                ),
                0.0,
                colour,
            );
        }
    }
    let rows_top = band.bottom() + 4.0;
    for (k, name) in names.iter().enumerate() {
        let top = rows_top + row_h * k as f32;
        let row = egui::Rect::from_min_max(
            egui::pos2(left, top + 1.0),
            egui::pos2(left + span, top + row_h - 1.0),
        );
        painter.rect_filled(row, 1.0, ui.visuals().faint_bg_color);
        painter.text(
            egui::pos2(rect.left() + 2.0, row.center().y),
            egui::Align2::LEFT_CENTER,
            name,
            egui::FontId::proportional(11.0),
            foot_colour(k),
        );
        for (i, c) in contact.iter().enumerate() {
            if c.get(k).copied().unwrap_or(false) {
                painter.rect_filled(
                    egui::Rect::from_min_max(
                        egui::pos2(x_at(i as f64 / n as f64), row.top()),
                        egui::pos2(x_at((i + 1) as f64 / n as f64), row.bottom()),
                    ),
                    0.0,
                    foot_colour(k),
                );
            }
        }
    }
    let rows_bottom = rows_top + row_h * names.len() as f32;
    // Tick marks every tenth of the cycle.
    for t in 0..=10 {
        let x = x_at(t as f64 / 10.0);
        painter.vline(
            x,
            rows_bottom..=rows_bottom + 3.0,
            egui::Stroke::new(1.0, text),
        );
        if t % 5 == 0 {
            painter.text(
                egui::pos2(x, rows_bottom + 3.0),
                egui::Align2::CENTER_TOP,
                format!("{}", t as f64 / 10.0),
                egui::FontId::proportional(9.0),
                text,
            );
        }
    }
    if let Some(phase) = playhead {
        let x = x_at(phase.rem_euclid(1.0));
        painter.vline(
            x,
            rect.top()..=rows_bottom,
            egui::Stroke::new(2.0, egui::Color32::RED),
        );
    }
}

/// Editable footfall bars: per foot its contact window (drag the bar to move the start, its
/// right end to change the duration), with number fields below.
pub(super) fn footfall_editor(ui: &mut egui::Ui, timings: &mut [FootTiming]) {
    let label_w = 86.0;
    let row_h = 18.0;
    let width = ui.available_width().clamp(200.0, 620.0);
    let (resp, painter) = ui.allocate_painter(
        egui::vec2(width, row_h * timings.len() as f32 + 2.0),
        egui::Sense::hover(),
    );
    let rect = resp.rect;
    let left = rect.left() + label_w;
    let span = rect.width() - label_w - 4.0;
    for (k, t) in timings.iter_mut().enumerate() {
        let top = rect.top() + row_h * k as f32;
        let row = egui::Rect::from_min_max(
            egui::pos2(left, top + 2.0),
            egui::pos2(left + span, top + row_h - 2.0),
        );
        painter.rect_filled(row, 2.0, ui.visuals().extreme_bg_color);
        painter.text(
            egui::pos2(rect.left() + 2.0, row.center().y),
            egui::Align2::LEFT_CENTER,
            &t.foot,
            egui::FontId::proportional(11.0),
            foot_colour(k),
        );
        let end = t.start + t.duration;
        let mut pieces = vec![(t.start, end.min(1.0))];
        if end > 1.0 {
            pieces.push((0.0, end - 1.0));
        }
        for (p, (a, b)) in pieces.iter().enumerate() {
            let bar = egui::Rect::from_min_max(
                egui::pos2(left + span * *a as f32, row.top()),
                egui::pos2(left + span * *b as f32, row.bottom()),
            );
            let id = ui.id().with(("footfall_bar", k, p));
            let drag = ui
                .interact(bar, id, egui::Sense::drag())
                .on_hover_cursor(egui::CursorIcon::Grab)
                .on_hover_text(
                    "drag to move the landing; drag the right end to change the duration",
                );
            let fill = if drag.hovered() || drag.dragged() {
                foot_colour(k).gamma_multiply(1.2)
            } else {
                foot_colour(k)
            };
            painter.rect_filled(bar, 2.0, fill);
            if drag.dragged() {
                t.start = (t.start + (drag.drag_delta().x / span) as f64).rem_euclid(1.0);
                if t.start >= 1.0 {
                    t.start = 0.0;
                }
            }
        }
        // Duration handle at the window's end.
        let x_end = left + span * if end > 1.0 { end - 1.0 } else { end } as f32;
        let handle = egui::Rect::from_center_size(
            egui::pos2(x_end, row.center().y),
            egui::vec2(8.0, row.height() + 2.0),
        );
        let h = ui
            .interact(
                handle,
                ui.id().with(("footfall_end", k)),
                egui::Sense::drag(),
            )
            .on_hover_cursor(egui::CursorIcon::ResizeHorizontal);
        painter.rect_filled(
            handle.shrink2(egui::vec2(2.0, 0.0)),
            1.0,
            ui.visuals().strong_text_color(),
        );
        if h.dragged() {
            t.duration = (t.duration + (h.drag_delta().x / span) as f64).clamp(0.05, 0.95);
        }
    }
    egui::Grid::new("gait_timings")
        .num_columns(3)
        .spacing([8.0, 2.0])
        .show(ui, |ui| {
            ui.small("foot");
            ui.small("start");
            ui.small("duration");
            ui.end_row();
            for (k, t) in timings.iter_mut().enumerate() {
                ui.colored_label(foot_colour(k), &t.foot);
                ui.add(
                    egui::DragValue::new(&mut t.start)
                        .range(0.0..=0.99)
                        .speed(0.005)
                        .fixed_decimals(3),
                );
                ui.add(
                    egui::DragValue::new(&mut t.duration)
                        .range(0.05..=0.95)
                        .speed(0.005)
                        .fixed_decimals(3),
                );
                ui.end_row();
            }
        });
}
