//! Whether the pointer is over the workbench's panels *now*, for the viewport's clicks, drags and
//! scrolls. egui's own answer ([`EguiWantsInput`]) comes from its last pass, that is, from where
//! the pointer was a frame ago: a click that lands on a panel in the same frame the pointer
//! moved there (a fast flick on a slow frame) went through to the ground below. The shell
//! records the layout of each pass (the free viewport between the docks, and the toolbar's and
//! the windows' rectangles, [`super::Workbench`]); layouts hardly move between frames, so the
//! pointer's current position is tested against them, and egui's answer is kept for what the
//! layout does not know (open menus and pop-ups, a drag that started on a panel).

use bevy::ecs::system::SystemParam;
use bevy::prelude::*;
use bevy::window::PrimaryWindow;
use bevy_egui::egui;
use bevy_egui::input::EguiWantsInput;

use super::Workbench;

/// The layout the pointer is tested against, recorded by the shell at each pass.
#[derive(Debug, Clone, Default)]
pub(super) struct PassLayout {
    /// The viewport area left free by the docks (egui points).
    pub central: Option<egui::Rect>,
    /// The toolbar's and the open windows' rectangles, over the free area (egui points).
    pub floating: Vec<egui::Rect>,
    /// egui points to the window's physical pixels.
    pub pixels_per_point: f32,
}

impl PassLayout {
    /// Whether a panel, the toolbar or a window covers `pos` (egui points). Before the first
    /// pass nothing does.
    pub fn covers(&self, pos: egui::Pos2) -> bool {
        let Some(central) = self.central else {
            return false;
        };
        !central.contains(pos) || self.floating.iter().any(|r| r.contains(pos))
    }
}

/// The pointer against the workbench's panels: a system parameter for the viewport's input.
#[derive(SystemParam)]
pub struct UiPointer<'w, 's> {
    egui: Option<Res<'w, EguiWantsInput>>,
    bench: Option<Res<'w, Workbench>>,
    window: Query<'w, 's, &'static Window, With<PrimaryWindow>>,
}

impl UiPointer<'_, '_> {
    /// Whether the pointer is over a panel, the toolbar or a window (where it is now, or where
    /// egui last saw it), or egui holds it (a drag on a slider, an open menu): the viewport
    /// then leaves clicks, drags and scrolls alone.
    pub fn over_ui(&self) -> bool {
        let held = self
            .egui
            .as_ref()
            .is_some_and(|e| e.wants_pointer_input() || e.is_pointer_over_area());
        held || self.covered_now()
    }

    /// Whether egui is taking typed keys (a text field has focus).
    pub fn typing(&self) -> bool {
        self.egui.as_ref().is_some_and(|e| e.wants_keyboard_input())
    }

    fn covered_now(&self) -> bool {
        let (Some(bench), Ok(window)) = (self.bench.as_ref(), self.window.single()) else {
            return false;
        };
        let Some(cursor) = window.cursor_position() else {
            return false;
        };
        let layout = bench.layout();
        let scale = window.scale_factor() / layout.pixels_per_point.max(1e-3);
        layout.covers(egui::pos2(cursor.x * scale, cursor.y * scale))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn layout() -> PassLayout {
        PassLayout {
            central: Some(egui::Rect::from_min_max(
                egui::pos2(300.0, 0.0),
                egui::pos2(1200.0, 870.0),
            )),
            floating: vec![egui::Rect::from_min_size(
                egui::pos2(308.0, 8.0),
                egui::vec2(400.0, 24.0),
            )],
            pixels_per_point: 1.0,
        }
    }

    #[test]
    fn the_docks_and_the_toolbar_cover_the_pointer_and_the_free_viewport_does_not() {
        let l = layout();
        assert!(l.covers(egui::pos2(100.0, 400.0)), "left dock");
        assert!(l.covers(egui::pos2(1300.0, 400.0)), "right dock");
        assert!(l.covers(egui::pos2(600.0, 890.0)), "status bar");
        assert!(l.covers(egui::pos2(350.0, 20.0)), "toolbar");
        assert!(!l.covers(egui::pos2(700.0, 500.0)), "free viewport");
        assert!(!l.covers(egui::pos2(800.0, 20.0)), "beside the toolbar");
    }

    #[test]
    fn before_the_first_pass_nothing_covers_the_pointer() {
        assert!(!PassLayout::default().covers(egui::pos2(10.0, 10.0)));
    }
}
