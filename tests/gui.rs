//! The workbench renders under Xvfb: `motionlab gui --screenshot FILE --frames N` writes a PNG
//! of the window, which must show the scene (not a blank or single-colour image).
#![cfg(feature = "gui")]

use std::process::Command;

fn screenshot(args: &[&str], name: &str) -> (u32, u32, Vec<u8>, png::ColorType) {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join(name);
    let bin = env!("CARGO_BIN_EXE_motionlab");
    let status = Command::new("xvfb-run")
        .args([
            "-a",
            "-s",
            "-screen 0 1600x900x24",
            bin,
            "gui",
            "--screenshot",
        ])
        .arg(&out)
        .args(args)
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .status()
        .expect("xvfb-run must be installed (scripts/setup.sh installs it)");
    assert!(status.success(), "motionlab gui exited with {status}");
    let decoder = png::Decoder::new(std::io::BufReader::new(std::fs::File::open(&out).unwrap()));
    let mut reader = decoder.read_info().unwrap();
    let mut buf = vec![0; reader.output_buffer_size().unwrap()];
    let info = reader.next_frame(&mut buf).unwrap();
    buf.truncate(info.buffer_size());
    (info.width, info.height, buf, info.color_type)
}

/// `--character FILE` shows that character, simulated, with the left dock's controls and the
/// Jobs panel docked on the right: the report names the character and counts its bones on show
/// (a character that failed to load would have been replaced by the built-in human), and its
/// skin's colours fill the middle of the viewport.
#[test]
fn screenshot_shows_character_and_panels() {
    let dir = tempfile::tempdir().unwrap();
    let (png, pixels, w, channels) = shot(
        dir.path(),
        &["--frames", "90", "--character", "characters/human2d.ron"],
        "human2d.png",
    );
    let report = shot_report(&png);
    assert_eq!(report.stage, "Live", "{report:?}");
    assert_eq!(
        report.labels.get("live.character").map(String::as_str),
        Some("human2d")
    );
    let bodies = motionlab::model::load_character(std::path::Path::new(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/characters/human2d.ron"
    )))
    .unwrap()
    .bodies
    .len();
    assert_eq!(
        report.figures.get("live"),
        Some(&bodies),
        "one bone per body: {report:?}"
    );
    assert!(report.open_panels.iter().any(|p| p == "live"), "{report:?}");
    assert_eq!(report.docked_right.as_deref(), Some("jobs"), "{report:?}");
    let px = |x: u32, y: u32| {
        let i = ((y * w + x) as usize) * channels;
        [pixels[i] as i32, pixels[i + 1] as i32, pixels[i + 2] as i32]
    };
    // The skin: its right limbs warm (tan), its left limbs cool (light blue), between the docks
    // and below the horizon (the sky is blue too; the ground is grey, the overlays green and
    // yellow). A viewport without the character has none of either.
    let (mut orange, mut blue) = (0, 0);
    for y in (300..800).step_by(2) {
        for x in (320..1120).step_by(2) {
            let [r, g, b] = px(x, y);
            if r >= 170 && r - b >= 35 && r - g >= 12 {
                orange += 1;
            }
            if b >= 160 && b - r >= 25 && b - g >= 12 {
                blue += 1;
            }
        }
    }
    assert!(
        orange > 150 && blue > 150,
        "the character's skin is not drawn ({orange} orange, {blue} blue pixels)"
    );
    // Many distinct colours overall (a blank or cleared window has one or two).
    let distinct: std::collections::HashSet<[i32; 3]> = (0..900)
        .step_by(3)
        .flat_map(|y| (0..1600).step_by(3).map(move |x| (x, y)))
        .map(|(x, y)| px(x, y))
        .collect();
    assert!(
        distinct.len() > 200,
        "only {} distinct colours",
        distinct.len()
    );
}

/// `--explore SCENE` opens the Diversity panel in the right dock, in place of the Jobs panel (the
/// report says which panel is docked), with its exploration running: the variants' series
/// colours (M1 blue, M2 orange) are drawn in the panel's plots and legends, which the Jobs
/// panel does not have.
#[test]
fn explore_flag_shows_the_diversity_panel() {
    let dir = tempfile::tempdir().unwrap();
    let (png, pixels, w, channels) = shot(
        dir.path(),
        &["--frames", "40", "--explore", "scenes/backflip2d.ron"],
        "explore.png",
    );
    let report = shot_report(&png);
    assert_eq!(
        report.docked_right.as_deref(),
        Some("diversity"),
        "{report:?}"
    );
    assert!(
        report.open_panels.iter().any(|p| p == "diversity"),
        "{report:?}"
    );
    let px = |x: u32, y: u32| {
        let i = ((y * w + x) as usize) * channels;
        [pixels[i] as i32, pixels[i + 1] as i32, pixels[i + 2] as i32]
    };
    let (mut orange, mut blue) = (0, 0);
    for y in 40..860 {
        for x in 1130..1595 {
            let [r, g, b] = px(x, y);
            if r > 180 && (60..150).contains(&g) && b < 90 {
                orange += 1;
            }
            if b > 170 && (90..170).contains(&g) && r < 90 {
                blue += 1;
            }
        }
    }
    assert!(
        orange > 20 && blue > 20,
        "the variants' colours are not in the right panel ({orange} orange, {blue} blue pixels)"
    );
}

#[test]
fn gait_flag_shows_the_gait_panel_with_a_playing_clip() {
    // A demo clip shipped in assets/gaits/ (a monoped hop at 0.5 m/s, solved by `motionlab gait`).
    let clip =
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("assets/gaits/monoped_hop_0.5ms.ron");
    let clip = clip.to_str().unwrap();
    let (w, h, pixels, colour) = screenshot(&["--frames", "60", "--gait", clip], "gait.png");
    assert_eq!((w, h), (1600, 900));
    let channels = if colour == png::ColorType::Rgba { 4 } else { 3 };
    let mut counts = std::collections::HashMap::<[u8; 3], usize>::new();
    for i in (0..(w * h) as usize).map(|i| i * channels) {
        *counts
            .entry([pixels[i], pixels[i + 1], pixels[i + 2]])
            .or_default() += 1;
    }
    let count = |c: [u8; 3]| counts.get(&c).copied().unwrap_or(0);
    // The side and front views of the creature have their own light backdrop (tens of
    // thousands of pixels), with the creature drawn over it.
    let backdrop = count([235, 240, 246]);
    assert!(
        backdrop > 40_000,
        "no side view drawn ({backdrop} backdrop pixels)"
    );
    // The hopper's foot colour fills its footfall bars (editor and diagram) and its leg.
    let foot = count([66, 133, 244]);
    assert!(foot > 1_500, "footfall bars not drawn ({foot} pixels)");
    // A hop has a flight phase: the diagram's phase band marks it.
    let flight = count([120, 190, 255]);
    assert!(flight > 200, "flight span not marked ({flight} pixels)");
    assert!(
        counts.len() > 300,
        "only {} distinct colours: the window looks blank",
        counts.len()
    );
}

/// `--clip A --clip B` opens the Library with two clips playing side by side on skinned
/// characters: the second figure (the horse) wears the second slot's blue tint, and the live
/// character is hidden.
#[test]
fn clip_flags_show_two_clips_side_by_side_in_the_library() {
    let (w, h, pixels, colour) = screenshot(
        &[
            "--frames",
            "60",
            "--clip",
            "assets/gaits/human3d_walk_1.2ms.ron",
            "--clip",
            "assets/gaits/horse_trot_1ms.ron",
        ],
        "library.png",
    );
    assert_eq!((w, h), (1600, 900));
    let channels = if colour == png::ColorType::Rgba { 4 } else { 3 };
    let px = |x: u32, y: u32| {
        let i = ((y * w + x) as usize) * channels;
        [pixels[i] as i32, pixels[i + 1] as i32, pixels[i + 2] as i32]
    };
    // Below the Library window, inside the viewport: blue-tinted figure pixels (the sky is
    // grey-blue with blue − red ≈ 33; the tint's is over 60).
    let mut tinted = 0;
    let mut skin = 0;
    for y in 380..880 {
        for x in 300..1230 {
            let [r, g, b] = px(x, y);
            if b > r + 60 && b > g + 15 {
                tinted += 1;
            }
            if r > b + 40 && r > 150 {
                skin += 1;
            }
        }
    }
    assert!(tinted > 5_000, "no tinted second figure ({tinted} pixels)");
    assert!(skin > 500, "no human figure ({skin} skin-coloured pixels)");
}

/// `gui --explore-result SET --play-motion I`: the Diversity panel's "play in Library" for motion
/// I. The motion is replayed, recorded and played in the Library as a clip on its skinned
/// character (skin-coloured pixels in the viewport), and the gallery's coloured lanes give way
/// to it; without the flag the gallery shows its motions as skinned figures in their colours.
#[test]
fn play_motion_plays_a_diversity_variant_in_the_library() {
    let dir = tempfile::tempdir().unwrap();
    let o = Command::new(env!("CARGO_BIN_EXE_motionlab"))
        .args([
            "explore",
            "scenes/backflip2d.ron",
            "--variants",
            "2",
            "--generations",
            "2",
        ])
        .arg("--out")
        .arg(dir.path())
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let set = dir.path().join("result.ron");
    let count = |extra: &[&str], name: &str| {
        let mut args = vec!["--frames", "90", "--explore-result", set.to_str().unwrap()];
        args.extend_from_slice(extra);
        let (w, _, pixels, colour) = screenshot(&args, name);
        let channels = if colour == png::ColorType::Rgba { 4 } else { 3 };
        let (mut skin, mut orange) = (0, 0);
        // The viewport below the Library window.
        for y in 380..880 {
            for x in 300..1120 {
                let i = ((y * w + x) as usize) * channels;
                let [r, g, b] = [pixels[i] as i32, pixels[i + 1] as i32, pixels[i + 2] as i32];
                // The skin's beige (r > g > b, light) and M2's orange (r high, b low).
                if r > 170 && g > 120 && b > 90 && r > b + 40 && r - g < 60 {
                    skin += 1;
                }
                if r > 200 && (60..170).contains(&g) && b < 100 {
                    orange += 1;
                }
            }
        }
        (skin, orange)
    };
    let (_, gallery_orange) = count(&[], "gallery.png");
    assert!(
        gallery_orange > 500,
        "the gallery shows M2 as an orange figure ({gallery_orange} pixels)"
    );
    let (skin, orange) = count(&["--play-motion", "2"], "played.png");
    assert!(skin > 500, "no skinned figure playing ({skin} skin pixels)");
    assert!(
        orange < gallery_orange / 5,
        "the gallery still shows ({orange} orange pixels against {gallery_orange})"
    );
}

/// What a screenshot showed (the app writes it beside the PNG, `--screenshot FILE` → `FILE`
/// with `.ron`): `motionlab::app::workbench::capture::ShotReport`.
fn shot_report(png: &std::path::Path) -> motionlab::app::workbench::capture::ShotReport {
    let text = std::fs::read_to_string(png.with_extension("ron")).expect("the shot's report");
    motionlab::files::from_ron(&text).expect("a ShotReport")
}

/// A screenshot into `dir`, keeping the PNG (for [`shot_report`]).
fn shot(
    dir: &std::path::Path,
    args: &[&str],
    name: &str,
) -> (std::path::PathBuf, Vec<u8>, u32, usize) {
    let out = dir.join(name);
    let status = Command::new("xvfb-run")
        .args([
            "-a",
            "-s",
            "-screen 0 1600x900x24",
            env!("CARGO_BIN_EXE_motionlab"),
            "gui",
            "--screenshot",
        ])
        .arg(&out)
        .args(args)
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .status()
        .expect("xvfb-run must be installed (scripts/setup.sh installs it)");
    assert!(status.success(), "motionlab gui exited with {status}");
    let decoder = png::Decoder::new(std::io::BufReader::new(std::fs::File::open(&out).unwrap()));
    let mut reader = decoder.read_info().unwrap();
    let mut buf = vec![0; reader.output_buffer_size().unwrap()];
    let info = reader.next_frame(&mut buf).unwrap();
    let channels = if info.color_type == png::ColorType::Rgba {
        4
    } else {
        3
    };
    (out, buf, info.width, channels)
}

/// Holding D in the Steering view (a key-down message into Bevy's keyboard input, as winit's
/// key events arrive) walks the human to the right of the screen, and A to the left: the
/// commanded direction is the camera's heading turned clockwise (counter-clockwise) by 90°, and
/// the desired trajectory drawn on the ground runs from the figure to the right (left) on the
/// screen, its blue drawn there.
#[test]
fn held_keys_steer_the_human_relative_to_the_screen() {
    let dir = tempfile::tempdir().unwrap();
    for (key, side) in [("D", 1.0f32), ("A", -1.0)] {
        let (png, pixels, w, channels) = shot(
            dir.path(),
            &[
                "--frames",
                "90",
                "--steer",
                "assets/graphs/human3d.ron",
                "--hold",
                key,
            ],
            &format!("hold-{key}.png"),
        );
        let report = shot_report(&png);
        assert_eq!(report.stage, "steering", "{report:?}");
        let value = |k: &str| {
            *report
                .values
                .get(k)
                .unwrap_or_else(|| panic!("no {k}: {report:?}"))
        };
        let camera = value("steering.camera_heading");
        let command = value("steering.command_direction");
        let want = camera - side as f64 * std::f64::consts::FRAC_PI_2;
        let off = (command - want).rem_euclid(std::f64::consts::TAU);
        assert!(
            off.min(std::f64::consts::TAU - off) < 1e-3,
            "{key}: commanded heading {command:.3} rad with the camera looking along {camera:.3}"
        );
        assert!(
            value("steering.command_speed") > 0.5,
            "{key}: the human walks"
        );
        // On screen: the desired path leaves the figure to that side.
        let figure = report.screen_points["steering.figure"][0];
        let path = &report.screen_points["steering.desired_path"];
        let far = path.last().expect("a desired path");
        assert!(
            (far[0] - figure[0]) * side > 80.0,
            "{key}: the path ends at x = {} px, the figure stands at x = {} px",
            far[0],
            figure[0]
        );
        // And its blue is drawn there: near the path's points on that side, the trajectory's
        // colour (0.15, 0.35, 0.95).
        let blue = |x: i32, y: i32| {
            let i = ((y.clamp(0, 899) as u32 * w + x.clamp(0, 1599) as u32) as usize) * channels;
            let [r, g, b] = [pixels[i] as i32, pixels[i + 1] as i32, pixels[i + 2] as i32];
            b > 150 && b > r + 80 && b > g + 40
        };
        let mut near_blue = 0;
        for p in path.iter().filter(|p| (p[0] - figure[0]) * side > 40.0) {
            let (x, y) = (p[0] as i32, p[1] as i32);
            if (-6..=6).any(|dx| (-6..=6).any(|dy| blue(x + dx, y + dy))) {
                near_blue += 1;
            }
        }
        assert!(
            near_blue >= 3,
            "{key}: the desired trajectory is not drawn where it runs ({near_blue} points)"
        );
    }
}

/// `--track-result` opens the Keys-to-Sim panel in the right dock with the search's simulated
/// character on stage (its figure counted in the report) and the paper's Fig. 7 plotted: the
/// final chain's orange in the panel, which no other right panel draws with these settings.
#[test]
fn track_result_plays_in_the_keys_to_sim_panel() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("search");
    let o = Command::new(env!("CARGO_BIN_EXE_motionlab"))
        .args([
            "track",
            "assets/keyframes/human3d_hanging_jump.keys.ron",
            "--character",
            "characters/human3d.ron",
            "--keep",
            "2",
            "--samples",
            "4",
            "--generations",
            "3",
            "--population",
            "6",
            "--to",
            "1.0",
            "--out",
        ])
        .arg(&out)
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let result = out.join("result.ron");
    let (png, pixels, w, channels) = shot(
        dir.path(),
        &["--frames", "30", "--track-result", result.to_str().unwrap()],
        "track.png",
    );
    let report = shot_report(&png);
    assert_eq!(report.stage, "track", "{report:?}");
    assert_eq!(report.docked_right.as_deref(), Some("track"), "{report:?}");
    assert_eq!(report.figures.get("track"), Some(&1), "{report:?}");
    let px = |x: u32, y: u32| {
        let i = ((y * w + x) as usize) * channels;
        [pixels[i] as i32, pixels[i + 1] as i32, pixels[i + 2] as i32]
    };
    let mut orange = 0;
    for y in 150..700 {
        for x in 1050..1595 {
            let [r, g, b] = px(x, y);
            if r > 180 && (60..150).contains(&g) && b < 90 {
                orange += 1;
            }
        }
    }
    assert!(
        orange > 30,
        "no final chain drawn in the panel ({orange} orange pixels)"
    );
}
