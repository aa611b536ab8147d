//! The workbench's colours, in one place: the series colours that tell motions, feet and
//! figures apart, the slot tints of figures shown side by side, the status colours, and their
//! conversion to egui.

use bevy_egui::egui;

/// Colours of a series (motions of a diversity set, feet of a creature), distinct at a glance.
pub const SERIES: [[f32; 3]; 8] = [
    [0.20, 0.55, 0.95],
    [0.95, 0.45, 0.10],
    [0.15, 0.70, 0.30],
    [0.85, 0.20, 0.55],
    [0.55, 0.35, 0.85],
    [0.10, 0.70, 0.75],
    [0.80, 0.70, 0.10],
    [0.60, 0.40, 0.25],
];

/// Member `i` of a series whose member 0 is the reference (white), as a diversity set's input
/// motion M0 is.
pub fn series_with_reference(i: usize) -> [f32; 3] {
    if i == 0 {
        [0.95, 0.95, 0.95]
    } else {
        SERIES[(i - 1) % SERIES.len()]
    }
}

/// Tints of figures shown side by side, by slot (the first untinted).
pub const SLOT_TINTS: [[f32; 3]; 4] = [
    [1.0, 1.0, 1.0],
    [0.55, 0.75, 1.0],
    [1.0, 0.7, 0.45],
    [0.6, 0.95, 0.6],
];

/// The tint of slot `i`.
pub fn slot_tint(i: usize) -> [f32; 3] {
    SLOT_TINTS[i % SLOT_TINTS.len()]
}

/// Something fine (standing, solved, feasible).
pub const OK: egui::Color32 = egui::Color32::from_rgb(40, 150, 60);
/// Something to look at (fallen, not converged).
pub const WARN: egui::Color32 = egui::Color32::from_rgb(220, 120, 0);
/// Something wrong (failed, refused).
pub const ERR: egui::Color32 = egui::Color32::RED;

/// An RGB colour in [0, 1] for egui.
pub fn to_egui([r, g, b]: [f32; 3]) -> egui::Color32 {
    egui::Color32::from_rgb((r * 255.0) as u8, (g * 255.0) as u8, (b * 255.0) as u8)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_reference_is_white_and_the_series_repeats() {
        assert_eq!(series_with_reference(0), [0.95, 0.95, 0.95]);
        assert_eq!(series_with_reference(1), SERIES[0]);
        assert_eq!(series_with_reference(1 + SERIES.len()), SERIES[0]);
        assert_eq!(
            to_egui([1.0, 0.0, 0.5]),
            egui::Color32::from_rgb(255, 0, 127)
        );
    }
}
