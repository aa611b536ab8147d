//! The readers of user files under the inputs that fuzzing gave them (`fuzz/`, issue P4a): every
//! seed of the fuzz targets (the shipped files) reads and runs, and every input that once made a
//! reader panic or hang (`fuzz/regressions/<target>/`) now gets an error or runs, bounded.

use std::path::{Path, PathBuf};

fn files(dir: &str) -> Vec<PathBuf> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join(dir);
    let Ok(entries) = std::fs::read_dir(&dir) else {
        return Vec::new();
    };
    let mut out: Vec<PathBuf> = entries.filter_map(|e| e.ok()).map(|e| e.path()).collect();
    out.sort();
    out
}

/// Runs a fuzz target's function as the target does (bytes → UTF-8 → reader); the refusal's
/// message.
fn run(target: &str, bytes: &[u8]) -> Result<(), String> {
    use motionlab::untrusted as u;
    let result = match target {
        "skeleton" => u::skeleton(bytes),
        "records" => {
            let Some((&kind, rest)) = bytes.split_first() else {
                return Err("empty".into());
            };
            let text = std::str::from_utf8(rest).map_err(|e| e.to_string())?;
            match kind % 6 {
                0 => u::gait_clip(text),
                1 => u::robustness_checkpoint(text),
                2 => u::explore_result(text),
                3 => u::explore_checkpoint(text),
                4 => u::discovery_summary(text),
                _ => u::clip(text),
            }
        }
        _ => {
            let text = std::str::from_utf8(bytes).map_err(|e| e.to_string())?;
            match target {
                "character" => u::character(text),
                "scene" => u::scene(text),
                "creature" => u::creature(text),
                "bvh" => u::bvh(text),
                other => panic!("no fuzz target {other}"),
            }
        }
    };
    result.map_err(|e| e.to_string())
}

/// The fuzz targets' seeds: the shipped files of each format.
fn seeds(target: &str) -> Vec<PathBuf> {
    let creatures = [
        "monoped",
        "simple_biped",
        "velociraptor",
        "horse",
        "pentaped",
    ];
    let in_characters = |want_creature: bool| {
        files("characters")
            .into_iter()
            .filter(|p| {
                let stem = p.file_stem().unwrap().to_string_lossy().to_string();
                creatures.contains(&stem.as_str()) == want_creature
            })
            .collect()
    };
    match target {
        "character" => in_characters(false),
        "creature" => in_characters(true),
        "scene" => files("scenes"),
        "bvh" => files("fuzz/seeds/bvh"),
        "skeleton" => files("fuzz/seeds/skeleton"),
        _ => files("fuzz/seeds/records"),
    }
}

#[test]
fn every_fuzz_seed_reads_and_runs() {
    for target in [
        "character",
        "scene",
        "creature",
        "bvh",
        "records",
        "skeleton",
    ] {
        let seeds = seeds(target);
        assert!(seeds.len() >= 3, "{target}: only {} seeds", seeds.len());
        for seed in seeds {
            let bytes = std::fs::read(&seed).unwrap();
            if let Err(e) = run(target, &bytes) {
                panic!("{target}: {} does not read and run: {e}", seed.display());
            }
        }
    }
}

/// Every input kept under `fuzz/regressions/<target>/` (inputs that once made a reader panic,
/// hang or run away, and hand-made ones for each guard) gets an error that says what is wrong,
/// without a panic. Every target has such inputs, so the loop cannot pass on nothing.
#[test]
fn inputs_that_broke_a_reader_get_errors_not_panics() {
    for target in [
        "character",
        "scene",
        "creature",
        "bvh",
        "records",
        "skeleton",
    ] {
        let inputs = files(&format!("fuzz/regressions/{target}"));
        assert!(
            !inputs.is_empty(),
            "fuzz/regressions/{target} holds no inputs"
        );
        for input in inputs {
            let bytes = std::fs::read(&input).unwrap();
            match run(target, &bytes) {
                Err(e) => assert!(
                    e.trim().len() > 5,
                    "{target}: {} is refused without a reason: {e:?}",
                    input.display()
                ),
                Ok(()) => panic!("{target}: {} was accepted", input.display()),
            }
        }
    }
}

/// A checkpoint that no longer fits what it resumes is refused with the reason, instead of
/// indexing out of bounds once the job steps: an exploration resumed against a scene with another
/// parameter count, a robustness sweep with a direction more than its bounds.
#[test]
fn checkpoints_that_do_not_fit_their_job_are_refused() {
    use motionlab::diversity::explore::{DiversityJob, ExploreConfig};
    use motionlab::jobs::Job;
    let config = ExploreConfig {
        scene: "scenes/backflip2d.ron".into(),
        variants: 2,
        generations: 3,
        ..Default::default()
    };
    let text = DiversityJob::new(config).unwrap().checkpoint().unwrap();
    std::env::set_current_dir(env!("CARGO_MANIFEST_DIR")).unwrap();
    motionlab::untrusted::explore_checkpoint(&text).unwrap();
    let other = text.replacen("scenes/backflip2d.ron", "scenes/jump_forward2d.ron", 1);
    let e = motionlab::untrusted::explore_checkpoint(&other)
        .unwrap_err()
        .to_string();
    assert!(e.contains("parameters, the task"), "{e}");

    let seed = std::fs::read(
        Path::new(env!("CARGO_MANIFEST_DIR")).join("fuzz/seeds/records/robustness_checkpoint.ron"),
    )
    .unwrap();
    let text = std::str::from_utf8(&seed[1..]).unwrap();
    motionlab::untrusted::robustness_checkpoint(text).unwrap();
    let more = text.replacen("directions: 8", "directions: 9", 1);
    assert_ne!(more, text);
    let e = motionlab::untrusted::robustness_checkpoint(&more)
        .unwrap_err()
        .to_string();
    assert!(e.contains("not those of a sweep"), "{e}");
}
