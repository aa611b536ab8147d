//! The app's launch flags (`gui --explore-result`, `--sweep`, `--discover-gait`, `--overlays`,
//! `--edit*`), each run at least once under Xvfb and checked for what the screenshot and its
//! report show.

#![cfg(feature = "gui")]

mod common;

use common::cli::*;
use common::{assert_success, motionlab};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// A small exploration's result (`explore backflip2d --variants 2 --generations 1 --seed 1`).
fn explored_set() -> String {
    let dir = tempfile::tempdir().unwrap();
    let o = motionlab(&[
        "explore",
        BACKFLIP,
        "--variants",
        "2",
        "--generations",
        "1",
        "--seed",
        "1",
        "--out",
        s(dir.path()),
    ]);
    assert_success(&o, "explore");
    std::fs::read_to_string(dir.path().join("result.ron")).unwrap()
}

#[cfg(feature = "gui")]
mod gui {
    use super::*;
    use std::collections::{HashMap, HashSet};

    pub struct Shot {
        width: u32,
        height: u32,
        channels: usize,
        pixels: Vec<u8>,
        /// What the app says it showed (`--screenshot FILE` writes it to FILE with `.ron`).
        pub report: motionlab::app::workbench::capture::ShotReport,
    }

    impl Shot {
        pub fn px(&self, x: u32, y: u32) -> [u8; 3] {
            let i = ((y * self.width + x) as usize) * self.channels;
            [self.pixels[i], self.pixels[i + 1], self.pixels[i + 2]]
        }

        /// Pixels of the rectangle [x0, x1) × [y0, y1) (every other one) that `pred` accepts.
        pub fn count(
            &self,
            (x0, x1): (u32, u32),
            (y0, y1): (u32, u32),
            pred: impl Fn([u8; 3]) -> bool,
        ) -> (usize, usize) {
            let mut hits = 0;
            let mut all = 0;
            for y in (y0..y1).step_by(2) {
                for x in (x0..x1).step_by(2) {
                    all += 1;
                    hits += pred(self.px(x, y)) as usize;
                }
            }
            (hits, all)
        }

        /// The left panel's checkboxes, top to bottom, checked or not: egui draws each as a
        /// 14-pixel-high box filled with (60, 60, 60) on the panel's (27, 27, 27), in a column
        /// through x = 15, with a light check mark inside when checked.
        pub fn left_checkboxes(&self) -> Vec<bool> {
            let (fill, panel) = ([60, 60, 60], [27, 27, 27]);
            let mut boxes = Vec::new();
            let mut y = 0;
            while y < self.height {
                if self.px(15, y) == fill {
                    let top = y;
                    while y < self.height && self.px(15, y) != panel {
                        y += 1;
                    }
                    if y - top == 14 {
                        let checked = (top..y)
                            .any(|yy| (9..22).any(|x| self.px(x, yy).iter().all(|c| *c > 110)));
                        boxes.push(checked);
                    }
                }
                y += 1;
            }
            boxes
        }
    }

    /// Runs `motionlab gui --screenshot FILE ARGS` under Xvfb in `cwd` (where the app's jobs
    /// write their `results/`), calling `watch` with xvfb-run's process id while it runs, and
    /// returns the PNG, which must be a 1600×900 window with many colours (not blank).
    pub fn screenshot(cwd: &Path, args: &[&str], mut watch: impl FnMut(u32)) -> Shot {
        let png_path = cwd.join("shot.png");
        let log = cwd.join("gui.log");
        let mut child = Command::new("xvfb-run")
            .args([
                "-a",
                "-s",
                "-screen 0 1600x900x24",
                env!("CARGO_BIN_EXE_motionlab"),
                "gui",
                "--screenshot",
            ])
            .arg(&png_path)
            .args(args)
            .current_dir(cwd)
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(std::fs::File::create(&log).unwrap())
            .spawn()
            .expect("xvfb-run must be installed (scripts/setup.sh installs it)");
        let start = Instant::now();
        let status = loop {
            if let Some(status) = child.try_wait().unwrap() {
                break status;
            }
            watch(child.id());
            if start.elapsed() > Duration::from_secs(600) {
                child.kill().unwrap();
                child.wait().unwrap();
                panic!("motionlab gui {args:?} ran for 10 minutes");
            }
            std::thread::sleep(Duration::from_millis(200));
        };
        let log = std::fs::read_to_string(&log).unwrap_or_default();
        assert!(status.success(), "motionlab gui {args:?}: {status}\n{log}");
        let decoder = png::Decoder::new(std::io::BufReader::new(
            std::fs::File::open(&png_path).unwrap(),
        ));
        let mut reader = decoder.read_info().unwrap();
        let mut pixels = vec![0; reader.output_buffer_size().unwrap()];
        let info = reader.next_frame(&mut pixels).unwrap();
        pixels.truncate(info.buffer_size());
        let channels = match info.color_type {
            png::ColorType::Rgba => 4,
            png::ColorType::Rgb => 3,
            other => panic!("unexpected colour type {other:?}"),
        };
        let report = std::fs::read_to_string(png_path.with_extension("ron"))
            .ok()
            .and_then(|t| motionlab::files::from_ron(&t).ok())
            .expect("the screenshot's report");
        let shot = Shot {
            width: info.width,
            height: info.height,
            channels,
            pixels,
            report,
        };
        assert_eq!((shot.width, shot.height), (1600, 900));
        let mut distinct = HashSet::new();
        for y in (0..shot.height).step_by(3) {
            for x in (0..shot.width).step_by(3) {
                distinct.insert(shot.px(x, y));
            }
        }
        assert!(
            distinct.len() > 200,
            "only {} distinct colours: the window looks blank",
            distinct.len()
        );
        shot
    }

    /// Parent and state of every process, from /proc.
    pub fn processes() -> HashMap<u32, (u32, char)> {
        let mut table = HashMap::new();
        for entry in std::fs::read_dir("/proc").unwrap().flatten() {
            let Ok(pid) = entry.file_name().to_string_lossy().parse::<u32>() else {
                continue;
            };
            let Ok(stat) = std::fs::read_to_string(entry.path().join("stat")) else {
                continue;
            };
            // "pid (comm) state ppid …"; comm may hold spaces and parentheses.
            let Some(rest) = stat.rfind(')').map(|k| &stat[k + 1..]) else {
                continue;
            };
            let w: Vec<&str> = rest.split_whitespace().collect();
            if let (Some(state), Some(ppid)) = (w.first(), w.get(1).and_then(|p| p.parse().ok())) {
                table.insert(pid, (ppid, state.chars().next().unwrap_or('?')));
            }
        }
        table
    }

    pub fn cmdline(pid: u32) -> Vec<String> {
        std::fs::read(format!("/proc/{pid}/cmdline"))
            .map(|b| {
                b.split(|c| *c == 0)
                    .filter(|a| !a.is_empty())
                    .map(|a| String::from_utf8_lossy(a).into_owned())
                    .collect()
            })
            .unwrap_or_default()
    }

    pub fn descends_from(pid: u32, root: u32, table: &HashMap<u32, (u32, char)>) -> bool {
        let mut p = pid;
        for _ in 0..16 {
            if p == root {
                return true;
            }
            match table.get(&p) {
                Some((parent, _)) if *parent > 1 => p = *parent,
                _ => return false,
            }
        }
        false
    }

    /// A `motionlab gait-job` process seen earlier that has not exited.
    pub fn still_running(pid: u32) -> bool {
        processes()
            .get(&pid)
            .is_some_and(|(_, state)| *state != 'Z')
            && cmdline(pid).get(1).is_some_and(|a| a == "gait-job")
    }
}

/// `gui --explore-result DIR/result.ron` and `--sweep` (with `--screenshot`, `--frames`): the
/// Diversity panel opens on the set, docked on the right (the filmstrip's light frames fill it),
/// and its gallery owns the viewport, showing the variants in their colours (M1 blue, M2 orange);
/// the robustness sweep job starts and checkpoints into `results/` of the working directory.
#[cfg(feature = "gui")]
#[test]
fn gui_explore_result_shows_the_set_and_sweep_starts_the_job() {
    use gui::*;
    let dir = tempfile::tempdir().unwrap();
    let set = dir.path().join("set.ron");
    std::fs::write(&set, explored_set()).unwrap();
    let cwd = dir.path().join("cwd");
    std::fs::create_dir(&cwd).unwrap();
    let shot = screenshot(
        &cwd,
        &["--frames", "30", "--explore-result", s(&set), "--sweep"],
        |_| {},
    );
    // The Diversity panel is docked on the right, and its gallery owns the viewport.
    assert_eq!(
        shot.report.docked_right.as_deref(),
        Some("diversity"),
        "{:?}",
        shot.report
    );
    assert_eq!(shot.report.stage, "diversity", "{:?}", shot.report);
    assert_eq!(
        shot.report.figures.get("gallery"),
        Some(&3),
        "M0 and two variants: {:?}",
        shot.report
    );
    let (light, all) = shot.count((1195, 1595), (300, 530), |p| p.iter().all(|c| *c > 200));
    assert!(
        light > all / 5,
        "no filmstrip in the right panel ({light} of {all} light)"
    );
    let viewport = ((290, 1125), (250, 700));
    let (blue, _) = shot.count(viewport.0, viewport.1, |p| p[2] > 180 && p[0] < 120);
    let (orange, _) = shot.count(viewport.0, viewport.1, |p| {
        p[0] > 200 && (60..170).contains(&p[1]) && p[2] < 100
    });
    assert!(
        blue > 200 && orange > 200,
        "gallery not drawn: {blue} blue, {orange} orange"
    );

    let sweeps: Vec<PathBuf> = std::fs::read_dir(cwd.join("results"))
        .expect("the sweep job writes into results/")
        .flatten()
        .map(|e| e.path())
        .filter(|p| {
            p.file_name()
                .unwrap()
                .to_string_lossy()
                .starts_with("robustness-")
        })
        .collect();
    assert_eq!(sweeps.len(), 1, "{sweeps:?}");
    assert!(
        sweeps[0].join("checkpoint.ron").exists() || sweeps[0].join("result.ron").exists(),
        "the sweep wrote neither a checkpoint nor a result"
    );
}

/// `gui --discover-gait CREATURE --gait-speed V --overlays LIST`: the Gait window opens over the
/// viewport and its discovery runs as `motionlab gait-job REQUEST` worker processes (the
/// discovery's request file and its samples', all at speed V, read back as typed requests), which
/// end with the app; the left panel's overlay
/// checkboxes are exactly the ones asked for. An unknown overlay is refused before any window.
#[cfg(feature = "gui")]
#[test]
fn gui_discover_gait_runs_at_the_given_speed_with_the_given_overlays() {
    use gui::*;
    use std::collections::HashMap;
    let o = motionlab(&["gui", "--overlays", "colliders,bogus"]);
    assert_fails_with(
        &o,
        "unknown overlay \"bogus\": expected skin, colliders, com, contacts or torques",
    );

    let dir = tempfile::tempdir().unwrap();
    let mut seen: HashMap<u32, Vec<String>> = HashMap::new();
    let shot = screenshot(
        dir.path(),
        &[
            "--frames",
            "20",
            "--discover-gait",
            "characters/monoped.ron",
            "--gait-speed",
            "0.6",
            "--overlays",
            "colliders",
        ],
        |root| {
            let table = processes();
            for pid in table.keys() {
                if !seen.contains_key(pid) && descends_from(*pid, root, &table) {
                    let args = cmdline(*pid);
                    if args.get(1).is_some_and(|a| a == "gait-job") {
                        // The worker's request is a file (read while the worker runs).
                        let request = args
                            .get(2)
                            .and_then(|f| std::fs::read_to_string(f).ok())
                            .unwrap_or_default();
                        seen.insert(*pid, vec![args[0].clone(), args[1].clone(), request]);
                    }
                }
            }
        },
    );
    // The discovery's processes end with the app.
    let deadline = Instant::now() + Duration::from_secs(60);
    let mut left: Vec<u32> = seen.keys().copied().collect();
    while !left.is_empty() && Instant::now() < deadline {
        std::thread::sleep(Duration::from_millis(200));
        left.retain(|pid| still_running(*pid));
    }
    for pid in &left {
        // SAFETY: kill(2) on a process this test started (through the app) and saw running.
        unsafe {
            libc::kill(*pid as i32, libc::SIGKILL);
        }
    }
    assert!(left.is_empty(), "gait processes outlived the app: {left:?}");

    let requests: Vec<motionlab::spacetime::job::GaitRequest> = seen
        .values()
        .filter(|args| !args[2].is_empty())
        .map(|args| {
            motionlab::files::from_ron(&args[2])
                .unwrap_or_else(|e| panic!("not a gait request: {args:?}: {e}"))
        })
        .collect();
    assert!(!requests.is_empty(), "no gait-job worker was seen");
    // One discovery (a sample process caught between its fork and its exec still shows the
    // discovery's command line, so the same request may be seen twice).
    let mut discovery = Vec::new();
    for r in requests.iter().filter(|r| r.discover.is_some()) {
        if !discovery.contains(&r) {
            discovery.push(r);
        }
    }
    assert_eq!(discovery.len(), 1, "one discovery: {requests:?}");
    assert!(
        discovery[0].creature.ends_with("characters/monoped.ron"),
        "{discovery:?}"
    );
    assert!(
        requests.iter().all(|r| r.speed == 0.6),
        "every solve at --gait-speed 0.6: {requests:?}"
    );

    let boxes = shot.left_checkboxes();
    assert!(boxes.len() >= 6, "checkboxes {boxes:?}");
    let overlays = &boxes[boxes.len() - 6..boxes.len() - 1];
    assert_eq!(
        overlays,
        [false, true, false, false, false],
        "skin, colliders, com, contacts, torques"
    );
    // The Gait window covers the middle of the viewport with its dark panel.
    let (dark, all) = shot.count((700, 900), (250, 750), |p| p.iter().all(|c| *c < 70));
    assert!(
        dark > all / 2,
        "no Gait window over the viewport ({dark} of {all} dark)"
    );
}

/// `gui --edit CHARACTER --edit-select BODY` opens the character editor (it replaces the Jobs
/// panel) with the body's joint limits drawn as orange arcs (fans) at the shoulder; with
/// `--edit-script` applying bad edits (a 30 kg hand, a 3° elbow, a slack knee; mirrored to the
/// right side) the physics lint's orange lines in the panel multiply and the standing verdict
/// turns red (the edited character falls in its headless 10 s rollout).
#[cfg(feature = "gui")]
#[test]
fn gui_editor_draws_limit_arcs_and_lints_bad_edits() {
    use gui::*;
    let dir = tempfile::tempdir().unwrap();
    let args = ["--edit", HUMAN3D, "--edit-select", "l_upper_arm"];
    let clean = screenshot(
        dir.path(),
        &[&["--frames", "60"][..], &args].concat(),
        |_| {},
    );
    let script = dir.path().join("bad.ron");
    std::fs::write(
        &script,
        r#"[
            SetBodyMass(body: "l_hand", mass: 30.0),
            SetJointLimits(joint: "l_elbow", limits: [(0.0, 3.0)]),
            SetJointGains(joint: "l_knee", kp: Some(40.0), kd: Some(4.0), torque_limit: Some(20.0)),
        ]"#,
    )
    .unwrap();
    let bad = screenshot(
        dir.path(),
        &[&["--frames", "90", "--edit-script", s(&script)][..], &args].concat(),
        |_| {},
    );
    let viewport = ((300, 1160), (30, 860));
    let arc = |p: [u8; 3]| p[0] > 200 && (40..150).contains(&p[1]) && p[2] < 90;
    // (`count` samples every other pixel in x and y.)
    let (arcs, _) = clean.count(viewport.0, viewport.1, arc);
    assert!(arcs > 60, "no limit arcs drawn: {arcs} orange pixels");
    let panel = ((1180, 1595), (90, 420));
    let lint = |p: [u8; 3]| p[0] > 180 && (90..150).contains(&p[1]) && p[2] < 40;
    let (clean_lint, _) = clean.count(panel.0, panel.1, lint);
    let (bad_lint, _) = bad.count(panel.0, panel.1, lint);
    assert!(
        clean_lint > 25 && bad_lint > 2 * clean_lint,
        "lint lines: {clean_lint} orange pixels clean, {bad_lint} after the bad edits"
    );
    let verdict = ((1180, 1595), (95, 125));
    let red = |p: [u8; 3]| p[0] > 170 && p[1] < 70 && p[2] < 70;
    let (clean_red, _) = clean.count(verdict.0, verdict.1, red);
    let (bad_red, _) = bad.count(verdict.0, verdict.1, red);
    assert!(
        clean_red < 3 && bad_red > 8,
        "verdict: {clean_red} red pixels clean, {bad_red} after the bad edits"
    );
}

/// `gui --edit human3d --edit-select l_forearm --edit-drag HANDLE:DX,DY --edit-out OUT`: a
/// mouse drag on a viewport handle edits through the editor, with mirror mode on (the default):
/// dragging the elbow's upper-limit knob changes that limit of both elbows and nothing else;
/// dragging the up arrow raises both forearms and moves nothing else.
#[cfg(feature = "gui")]
#[test]
fn gui_editor_handles_drag_limits_and_bodies() {
    use gui::*;
    use motionlab::model::load_character;
    let dir = tempfile::tempdir().unwrap();
    let before = load_character(Path::new(HUMAN3D)).unwrap();
    let drag = |handle: &str| {
        let out = dir
            .path()
            .join(format!("{}.ron", handle.replace([':', ','], "_")));
        screenshot(
            dir.path(),
            &[
                "--frames",
                "60",
                "--edit",
                HUMAN3D,
                "--edit-select",
                "l_forearm",
                "--edit-drag",
                handle,
                "--edit-out",
                s(&out),
            ],
            |_| {},
        );
        load_character(&out).unwrap_or_else(|e| panic!("{handle}: nothing saved: {e}"))
    };
    let limited = drag("limit-hi:-40,0");
    for (a, b) in before.joints.iter().zip(&limited.joints) {
        if a.name.ends_with("_elbow") {
            let ((lo0, hi0), (lo, hi)) = (a.limits[0], b.limits[0]);
            assert_eq!(lo, lo0, "{}", a.name);
            assert!(
                (hi - hi0).abs() >= 3.0 && hi > lo,
                "{}: {hi0} -> {hi}",
                a.name
            );
        } else {
            assert_eq!(a, b, "only the elbows change");
        }
    }
    assert_eq!(
        limited.joint_to("l_forearm").unwrap().limits,
        limited.joint_to("r_forearm").unwrap().limits,
        "mirrored"
    );
    assert_eq!(before.bodies, limited.bodies);
    let moved = drag("move-y:0,-50");
    for (a, b) in before.bodies.iter().zip(&moved.bodies) {
        if a.name.ends_with("_forearm") {
            assert!(
                b.position[1] > a.position[1] + 0.01,
                "{}: {:?} -> {:?}",
                a.name,
                a.position,
                b.position
            );
            assert_eq!(
                (a.position[0], a.position[2]),
                (b.position[0], b.position[2])
            );
        } else {
            assert_eq!(a, b, "only the forearms move");
        }
    }
    assert_eq!(before.joints, moved.joints);
}

/// `gui --edit SKIN.gltf --edit-transfer walk`: the third-party avatar becomes a character, is
/// saved into `results/characters/` of the working directory, and its walk is transferred on a
/// background thread into `results/clips/`, a clip that loads, refers to that character file and
/// has the animation's frames.
#[cfg(feature = "gui")]
#[test]
fn gui_editor_transfers_an_imported_animation_to_a_clip() {
    use gui::*;
    let dir = tempfile::tempdir().unwrap();
    let avatar = format!("{ROOT}/assets/third_party/castle_avatar/avatar.gltf");
    screenshot(
        dir.path(),
        &[
            "--frames",
            "90",
            "--edit",
            &avatar,
            "--edit-transfer",
            "walk",
        ],
        |_| {},
    );
    let character = dir.path().join("results/characters/avatar.ron");
    let c = motionlab::model::load_character(&character)
        .unwrap_or_else(|e| panic!("the imported character was not saved: {e}"));
    let clip_path = dir.path().join("results/clips/avatar-walk.clip.ron");
    let clip = motionlab::clip::Clip::load(&clip_path)
        .unwrap_or_else(|e| panic!("no transferred clip: {e}"));
    assert_eq!(clip.tags.source, "transfer");
    assert!(clip.frames.len() > 10, "{} frames", clip.frames.len());
    assert!(
        clip.character
            .path
            .ends_with("results/characters/avatar.ron"),
        "{:?}",
        clip.character.path
    );
    clip.check_character(&c).unwrap();
}
