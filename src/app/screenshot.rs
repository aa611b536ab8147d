//! `--screenshot FILE --frames N`: render N frames, save the primary window as PNG, exit.

use super::AppOptions;
use bevy::prelude::*;
use bevy::render::view::screenshot::{Screenshot, save_to_disk};

pub struct ScreenshotPlugin;

impl Plugin for ScreenshotPlugin {
    fn build(&self, app: &mut App) {
        app.add_systems(Update, take_screenshot);
    }
}

fn take_screenshot(
    mut commands: Commands,
    options: Res<AppOptions>,
    mut frame: Local<u32>,
    mut requested_at: Local<Option<u32>>,
    mut exit: MessageWriter<AppExit>,
) {
    let Some(path) = options.screenshot.clone() else {
        return;
    };
    *frame += 1;
    if requested_at.is_none() && *frame >= options.frames.max(1) {
        let _ = std::fs::remove_file(&path);
        commands
            .spawn(Screenshot::primary_window())
            .observe(save_to_disk(path.clone()));
        *requested_at = Some(*frame);
    }
    if let Some(at) = *requested_at {
        if path.exists()
            && std::fs::metadata(&path)
                .map(|m| m.len() > 0)
                .unwrap_or(false)
        {
            // Give the writer a few frames to finish before exiting.
            if *frame > at + 3 {
                exit.write(AppExit::Success);
            }
        } else if *frame > at + 600 {
            error!("screenshot {} was not written", path.display());
            exit.write(AppExit::error());
        }
    }
}
