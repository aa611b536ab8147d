//! Keys-to-Sim (`motionlab track`): a search killed with SIGKILL mid-run and resumed from its
//! checkpoint ends in the same trajectory as one that ran through, serially or on two threads,
//! and `replay` reproduces it; a keyframed motion opens as a clip of its character.

mod common;

use common::*;
use motionlab::track::{TrackCheckpoint, TrackResult};
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// The first 1.25 s of the human's hanging jump (four windows), at small settings.
fn track_args<'a>(out: &'a str, threads: &'a str) -> Vec<&'a str> {
    vec![
        "track",
        "assets/keyframes/human3d_hanging_jump.keys.ron",
        "--character",
        "characters/human3d.ron",
        "--out",
        out,
        "--keep",
        "3",
        "--samples",
        "6",
        "--generations",
        "10",
        "--population",
        "8",
        "--to",
        "1.25",
        "--seed",
        "7",
        "--threads",
        threads,
    ]
}

fn result(dir: &Path) -> TrackResult {
    motionlab::files::read_ron(&dir.join("result.ron")).expect("result.ron")
}

#[test]
fn killed_and_resumed_search_ends_where_an_uninterrupted_one_does() {
    let tmp = tempfile::tempdir().unwrap();
    let whole = tmp.path().join("whole");
    let cut = tmp.path().join("cut");
    let (whole_s, cut_s) = (whole.to_str().unwrap(), cut.to_str().unwrap());

    let o = motionlab(&track_args(whole_s, "2"));
    assert_success(&o, "uninterrupted track");
    let reference = result(&whole);
    assert_eq!(reference.windows.len(), 4, "four windows in 1.25 s");
    let windows = stdout(&o)
        .lines()
        .filter(|l| l.starts_with("window "))
        .count();
    assert_eq!(windows, 4, "one line per window:\n{}", stdout(&o));

    // The same search, killed once its first window is checkpointed.
    let mut child = Command::new(env!("CARGO_BIN_EXE_motionlab"))
        .args(track_args(cut_s, "1"))
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let started = Instant::now();
    let done_when_killed = loop {
        let cp = std::fs::read_to_string(cut.join("checkpoint.ron")).ok();
        let windows = cp
            .and_then(|t| motionlab::files::from_ron::<TrackCheckpoint>(&t).ok())
            .map_or(0, |c| c.windows.len());
        if windows >= 1 {
            child.kill().unwrap();
            child.wait().unwrap();
            break windows;
        }
        assert!(
            started.elapsed() < Duration::from_secs(600),
            "no checkpoint after 10 minutes"
        );
        assert!(
            child.try_wait().unwrap().is_none(),
            "the search ended before its first checkpoint could be seen"
        );
        std::thread::sleep(Duration::from_millis(10));
    };
    assert!(
        done_when_killed < 4 && !cut.join("result.ron").exists(),
        "killed after {done_when_killed} windows: the search had already finished"
    );

    let mut resume = track_args(cut_s, "1");
    resume.push("--resume");
    let o = motionlab(&resume);
    assert_success(&o, "resumed track");
    let resumed = result(&cut);
    assert_eq!(
        resumed.hash, reference.hash,
        "resumed after {done_when_killed} windows on one thread: another trajectory than \
         uninterrupted on two"
    );
    assert_eq!(resumed.chain, reference.chain);
    assert_eq!(resumed.windows, reference.windows);

    let o = motionlab(&["replay", whole.join("result.ron").to_str().unwrap()]);
    assert_success(&o, "replay");
    assert!(
        stdout(&o).contains(&reference.hash),
        "replay printed another hash than {}:\n{}",
        reference.hash,
        stdout(&o)
    );
}

/// Every shipped keyframed motion opens as a clip of the character it names, whose start is
/// its first key and whose length its last.
#[test]
fn shipped_keyframes_open_as_clips() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("assets/keyframes");
    let mut seen = 0;
    for entry in std::fs::read_dir(&dir).unwrap() {
        let path = entry.unwrap().path();
        let text = std::fs::read_to_string(&path).unwrap();
        let keys: motionlab::clip::keyframes::Keyframes =
            motionlab::files::from_ron(&text).unwrap();
        let opened = motionlab::clip::open(&path, &Default::default())
            .unwrap_or_else(|e| panic!("{}: {e:#}", path.display()));
        assert_eq!(opened.format, motionlab::clip::ClipFormat::Keyframes);
        let last = keys.keys.last().unwrap();
        assert!(
            (opened.clip.duration() - last.time).abs() < 1.5 / keys.rate,
            "{}: {} s of clip for keys up to {} s",
            path.display(),
            opened.clip.duration(),
            last.time
        );
        let first = &opened.clip.frames[0].root;
        let key = keys.keys[0].root;
        for a in 0..3 {
            assert!(
                (first[a] - key[a]).abs() < 1e-9,
                "{}: starts at {first:?}, keyed at {key:?}",
                path.display()
            );
        }
        seen += 1;
    }
    assert!(seen >= 6, "{seen} keyframe files");
}

/// A motion no rollout can follow (keyed to start at thousands of metres per second) ends the
/// search with an error that says where and why, not a panic, and nothing is written as a
/// result.
#[test]
fn a_window_where_every_rollout_diverges_is_a_clear_error() {
    let tmp = tempfile::tempdir().unwrap();
    let keys = tmp.path().join("teleport.keys.ron");
    let human = Path::new(env!("CARGO_MANIFEST_DIR")).join("characters/human3d.ron");
    std::fs::write(
        &keys,
        format!(
            "(character: {:?}, rate: 60.0, interpolation: Linear, keys: [\
             (time: 0.0, root: (0.0, 0.977, 0.0), joints: {{}}),\
             (time: 0.02, root: (60.0, 0.977, 0.0), joints: {{}}),\
             (time: 0.6, root: (60.0, 0.977, 0.0), joints: {{}})])",
            human.to_str().unwrap()
        ),
    )
    .unwrap();
    let out = tmp.path().join("out");
    let o = motionlab(&[
        "track",
        keys.to_str().unwrap(),
        "--character",
        "characters/human3d.ron",
        "--out",
        out.to_str().unwrap(),
        "--keep",
        "2",
        "--samples",
        "2",
        "--generations",
        "2",
        "--population",
        "4",
    ]);
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
    let err = stderr(&o);
    assert!(
        err.contains("window 0 (from 0.00 s): all 8 rollouts made the simulation diverge"),
        "{err}"
    );
    assert!(!out.join("result.ron").exists());
}

/// Plays the open-loop controls of a paper-settings search (`tests/data/track/`) on the dinosaur
/// from the hanging jump's keyed start: its frames, whether it fell, the lowest centre of mass as
/// a fraction of the standing one and the pelvis's travel over the ground (m).
fn play_dino_jump(controls: &str) -> (String, bool, f32, f32) {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let config = motionlab::track::TrackConfig {
        clip: root.join("assets/keyframes/dino_hanging_jump.keys.ron"),
        character: root.join("characters/dino.ron"),
        from: 0.0,
        to: None,
        settings: Default::default(),
    };
    let job = motionlab::track::TrackJob::new(config).unwrap();
    let controls: Vec<Vec<f32>> =
        motionlab::files::read_ron(&root.join("tests/data/track").join(controls)).unwrap();
    let (frames, fell) = job.search().play_controls(&controls).unwrap();
    assert_eq!(frames.len(), controls.len() + 1);
    let standing = frames[0].com[1];
    let lowest = frames
        .iter()
        .map(|f| f.com[1])
        .fold(f32::INFINITY, f32::min)
        / standing;
    let (a, b) = (frames[0].poses[0], frames.last().unwrap().poses[0]);
    let travel = ((b[0] - a[0]).powi(2) + (b[2] - a[2]).powi(2)).sqrt();
    let hash = motionlab::track::result::hash_frames(&frames);
    (hash, fell, lowest, travel)
}

/// Keys-to-Sim's contrast (Borer et al. 2018, §6, Fig. 7) on the dinosaur's hanging jump at the
/// paper's settings, seed 1: the wide-band chain (k 20) jumps, lands 0.6 m ahead as keyed and
/// stays up (its metatarsi touch down in the landing crouch, as a theropod's do); the greedy
/// chain (k 1) falls: its centre of mass drops below half its height and its head, arm and tail
/// hit the ground. The controls replay to the searches' trajectory hashes on every machine.
#[test]
fn the_wide_band_dinosaur_jump_lands_and_stays_up_where_the_greedy_one_falls() {
    let (hash, fell, lowest, travel) = play_dino_jump("dino_hanging_jump_wide.controls.ron");
    assert_eq!(
        hash, "1f1789f0deaf6895554c78dbf1eba3ec",
        "wide-band chain's hash"
    );
    assert!(!fell, "the wide-band jump fell");
    assert!(lowest > 0.7, "lowest centre of mass {lowest} of standing");
    assert!(
        (travel - 0.6).abs() < 0.15,
        "landed {travel} m ahead, keyed 0.6 m"
    );

    let (hash, fell, lowest, _) = play_dino_jump("dino_hanging_jump_greedy.controls.ron");
    assert_eq!(
        hash, "3c8c83751df4876c94606cc4064e999e",
        "greedy chain's hash"
    );
    assert!(fell, "the greedy jump stayed up");
    assert!(
        lowest < 0.5,
        "greedy's lowest centre of mass {lowest} of standing"
    );
}
