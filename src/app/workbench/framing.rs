//! Where the 3D view is left open: the viewport's free area between the docks, less the windows
//! that float over its middle. The camera centres what it follows there instead of in the middle
//! of the whole window, so a dock or a window (the Steering view's, say) does not cover the
//! character. Layout arithmetic only, in egui points.

use bevy_egui::egui;

/// The horizontal centre (egui points) of the widest stretch of `central` that no window in
/// `windows` covers over its middle half (the rows a followed character fills). A window counts
/// when it covers at least half of that middle: the toolbar, or a short window along the top
/// (the Library's list over the figures below it), leaves the picture where it was. When the
/// windows leave no stretch a fifth of the width or wider, the centre of `central` itself.
pub fn open_centre_x(central: egui::Rect, windows: &[egui::Rect]) -> f32 {
    let (top, bottom) = (
        central.top() + 0.25 * central.height(),
        central.bottom() - 0.25 * central.height(),
    );
    let mut covered: Vec<(f32, f32)> = windows
        .iter()
        .filter(|w| w.bottom().min(bottom) - w.top().max(top) >= 0.5 * (bottom - top))
        .map(|w| {
            (
                w.left().clamp(central.left(), central.right()),
                w.right().clamp(central.left(), central.right()),
            )
        })
        .filter(|(a, b)| b > a)
        .collect();
    covered.sort_by(|a, b| a.0.total_cmp(&b.0));
    let mut best = (0.0_f32, central.center().x);
    let mut from = central.left();
    for (a, b) in covered
        .into_iter()
        .chain(std::iter::once((central.right(), central.right())))
    {
        if a - from > best.0 {
            best = (a - from, 0.5 * (a + from));
        }
        from = from.max(b);
    }
    if best.0 >= 0.2 * central.width() {
        best.1
    } else {
        central.center().x
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rect(x0: f32, y0: f32, x1: f32, y1: f32) -> egui::Rect {
        egui::Rect::from_min_max(egui::pos2(x0, y0), egui::pos2(x1, y1))
    }

    #[test]
    fn the_open_centre_leaves_out_windows_over_the_middle() {
        let central = rect(300.0, 0.0, 1300.0, 800.0);
        // Nothing floats: the middle of the free area.
        assert_eq!(open_centre_x(central, &[]), 800.0);
        // The toolbar only crosses the top: ignored.
        let toolbar = rect(308.0, 8.0, 900.0, 36.0);
        assert_eq!(open_centre_x(central, &[toolbar]), 800.0);
        // A short window along the top covers under half of the middle: ignored.
        let list = rect(304.0, 40.0, 1000.0, 330.0);
        assert_eq!(open_centre_x(central, &[toolbar, list]), 800.0);
        // A window on the left down to the middle: the stretch to its right.
        let steering = rect(304.0, 40.0, 760.0, 500.0);
        assert_eq!(open_centre_x(central, &[toolbar, steering]), 1030.0);
        // Two windows, one each side: the gap between them.
        let other = rect(1100.0, 300.0, 1400.0, 700.0);
        assert_eq!(open_centre_x(central, &[steering, other]), 930.0);
        // Overlapping windows count once; a window hanging out of the area is clipped.
        let overlap = rect(700.0, 100.0, 900.0, 600.0);
        assert_eq!(open_centre_x(central, &[steering, overlap]), 1100.0);
        // Windows leaving under a fifth of the width open: the middle, as if none floated.
        let wide = rect(250.0, 100.0, 1250.0, 700.0);
        assert_eq!(open_centre_x(central, &[wide]), 800.0);
    }
}
