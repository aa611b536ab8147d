//! The spacetime solver's flags (`gait`, `spacetime particle`), each run at least once and
//! checked for what it does (docs/gaits.md). IPOPT's path depends on the BLAS kernels of the
//! machine, so only echoed options, feasibility and exit codes are asserted, never iteration
//! counts or costs.

#![cfg(feature = "ipopt")]

mod common;

use common::cli::*;
use common::{assert_success, motionlab, stderr, stdout};
use std::path::Path;
use std::process::Output;

#[cfg(feature = "ipopt")]
mod spacetime {
    use super::*;
    use motionlab::spacetime::gait::GaitClip;
    use std::collections::HashMap;

    /// `gait characters/monoped.ron --speed 0.5 EXTRA`.
    pub fn gait(extra: &[&str]) -> Output {
        let mut args = vec!["gait", MONOPED, "--speed", "0.5"];
        args.extend_from_slice(extra);
        motionlab(&args)
    }

    /// The exit code follows the printed outcome: success exactly when IPOPT (or the projection
    /// of where it stopped) converged to a gait feasible to 1e-6 of finite cost.
    pub fn assert_exit_matches_validity(o: &Output) {
        let out = stdout(o);
        let ok = |s: &str| s == "solved" || s == "solved_to_acceptable_level";
        let violation: f64 = value(&out, "max_violation").parse().unwrap();
        let cost: f64 = value(&out, "cost").parse().unwrap();
        let valid = (ok(&value(&out, "status")) || ok(&value(&out, "projection_status")))
            && violation <= 1e-6
            && cost.is_finite();
        assert_eq!(o.status.success(), valid, "{out}\n{}", stderr(o));
        if !valid {
            assert!(
                stderr(o).contains("the gait was not solved"),
                "{}",
                stderr(o)
            );
        }
    }

    /// A whole number of the `creature … frames F variables V` line: the word after `key`.
    pub fn creature_count(out: &str, key: &str) -> usize {
        value(out, "creature")
            .split_whitespace()
            .skip_while(|w| *w != key)
            .nth(1)
            .unwrap()
            .parse()
            .unwrap()
    }

    /// Per IPOPT solve (with `print_user_options=yes`), its table of user-set options.
    pub fn option_blocks(out: &str) -> Vec<HashMap<String, String>> {
        out.split("List of user-set options:")
            .skip(1)
            .map(|block| {
                let mut options = HashMap::new();
                for line in block.lines() {
                    let w: Vec<&str> = line.split_whitespace().collect();
                    if w.len() >= 3 && w[1] == "=" {
                        options
                            .entry(w[0].to_string())
                            .or_insert_with(|| w[2].to_string());
                    }
                }
                options
            })
            .collect()
    }

    /// The iteration lines of the first IPOPT solve's log (`--print-level 5`).
    pub fn first_iterations(out: &str) -> Vec<String> {
        let start = out
            .find("iter    objective")
            .expect("an IPOPT iteration log");
        let end = start + out[start..].find("Number of Iterations").unwrap();
        out[start..end]
            .lines()
            .filter(|l| {
                l.split_whitespace()
                    .next()
                    .is_some_and(|w| w.parse::<usize>().is_ok())
            })
            .map(String::from)
            .collect()
    }

    /// The count IPOPT reports for `Total number of <what>` in its first solve.
    pub fn ipopt_count(out: &str, what: &str) -> usize {
        let prefix = format!("Total number of {what}");
        let line = out
            .lines()
            .find(|l| l.starts_with(&prefix))
            .unwrap_or_else(|| panic!("no {prefix:?} line in:\n{out}"));
        line.rsplit(':').next().unwrap().trim().parse().unwrap()
    }

    /// The lines `gait` prints about the solve (not IPOPT's log, not the timing).
    pub fn report(out: &str) -> Vec<&str> {
        const KEYS: [&str; 13] = [
            "stage ",
            "creature ",
            "foot ",
            "flight: ",
            "double_support: ",
            "overlap ",
            "status ",
            "projection_status ",
            "projected_from_iteration ",
            "cost ",
            "max_violation ",
            "audit_max_violation ",
            "iterations ",
        ];
        out.lines()
            .filter(|l| KEYS.iter().any(|k| l.starts_with(k)))
            .collect()
    }

    pub fn read_clip(path: &Path) -> GaitClip {
        motionlab::jobs::read_ron(path).unwrap()
    }
}

/// `gait --contacts foot:start:duration --period T --hessian lbfgs-then-exact
/// --lbfgs-iterations K --max-iterations M --ipopt name=value (repeated) --print-level 5
/// --out FILE`: the timing is echoed and stored in the clip; IPOPT's own option table shows the
/// L-BFGS stage capped at K iterations with the extra option, then the exact Hessian for the
/// other M − K; print level 5 shows its log. Without `--hessian` and at print level 0 the solve
/// reports the same (lbfgs-then-exact is the default, the print level only prints).
#[cfg(feature = "ipopt")]
#[test]
fn gait_timing_and_staged_solve_options_reach_ipopt() {
    use spacetime::*;
    use std::collections::HashMap;
    let dir = tempfile::tempdir().unwrap();
    let clip_path = dir.path().join("hop.ron");
    let common = [
        "--contacts",
        "shin:0.1:0.4",
        "--period",
        "0.6",
        "--lbfgs-iterations",
        "10",
        "--max-iterations",
        "30",
        "--ipopt",
        "limited_memory_max_history=7",
    ];
    let mut args = common.to_vec();
    args.extend([
        "--hessian",
        "lbfgs-then-exact",
        "--print-level",
        "5",
        "--ipopt",
        "print_user_options=yes",
        "--out",
        s(&clip_path),
    ]);
    let o = gait(&args);
    assert_exit_matches_validity(&o);
    let out = stdout(&o);
    assert!(
        value(&out, "creature").starts_with("monoped speed 0.5 period 0.6 frames 30 variables "),
        "{out}"
    );
    assert_eq!(value(&out, "foot shin start"), "0.1 duration 0.4");
    assert_eq!(
        field(&out, "flight"),
        "true",
        "down 0.4 of the cycle: {out}"
    );
    let stages: Vec<&str> = out.lines().filter(|l| l.starts_with("stage ")).collect();
    assert_eq!(stages.len(), 2, "{out}");
    assert!(stages[0].starts_with("stage lbfgs ") && stages[1].starts_with("stage exact "));
    assert!(out.contains("This is Ipopt version") && out.contains("iter    objective"));
    let blocks = option_blocks(&out);
    let get = |b: &HashMap<String, String>, k: &str| b.get(k).cloned().unwrap_or_default();
    assert_eq!(get(&blocks[0], "hessian_approximation"), "limited-memory");
    assert_eq!(
        get(&blocks[0], "max_iter"),
        "10",
        "--lbfgs-iterations caps stage 1"
    );
    assert_eq!(get(&blocks[0], "limited_memory_max_history"), "7");
    assert_eq!(get(&blocks[0], "print_level"), "5");
    assert!(
        blocks
            .iter()
            .any(|b| get(b, "hessian_approximation") == "exact" && get(b, "max_iter") == "20"),
        "the exact stage gets the other 20 iterations: {blocks:?}"
    );
    let clip = read_clip(&clip_path);
    assert_eq!((clip.speed, clip.period), (0.5, 0.6));
    assert_eq!(clip.timings.len(), 1);
    let t = &clip.timings[0];
    assert_eq!((t.foot.as_str(), t.start, t.duration), ("shin", 0.1, 0.4));
    if o.status.success() {
        let audit: f64 = value(&out, "audit_max_violation").parse().unwrap();
        assert!(clip.max_violation <= 1e-6 && audit <= 1e-6, "{out}");
    }

    let quiet = gait(&common);
    assert_exit_matches_validity(&quiet);
    let quiet = stdout(&quiet);
    assert!(
        !quiet.contains("This is Ipopt version"),
        "print level 0 is silent"
    );
    assert_eq!(report(&quiet), report(&out));
}

/// `gait --hessian exact|gauss-newton|gauss-newton-objective`: a single IPOPT solve (no stages)
/// given the exact-Hessian interface; from the same start (identical iteration 0) the three
/// curvatures take different steps. An unknown mode is refused with the list.
#[cfg(feature = "ipopt")]
#[test]
fn gait_hessian_modes_give_ipopt_their_curvature() {
    use spacetime::*;
    let mut logs = Vec::new();
    for mode in ["exact", "gauss-newton", "gauss-newton-objective"] {
        let o = gait(&[
            "--hessian",
            mode,
            "--max-iterations",
            "15",
            "--print-level",
            "5",
            "--ipopt",
            "print_user_options=yes",
        ]);
        assert_exit_matches_validity(&o);
        let out = stdout(&o);
        assert!(
            !out.lines().any(|l| l.starts_with("stage ")),
            "{mode}: {out}"
        );
        let blocks = option_blocks(&out);
        assert_eq!(blocks[0]["hessian_approximation"], "exact", "{mode}");
        assert_eq!(blocks[0]["max_iter"], "15", "{mode}");
        let iterations = first_iterations(&out);
        assert!(iterations.len() > 2, "{mode}: {out}");
        logs.push((mode, iterations));
    }
    for (mode, log) in &logs[1..] {
        assert_eq!(log[0], logs[0].1[0], "{mode}: another start than exact's");
        assert_ne!(log, &logs[0].1, "{mode} steps like exact");
    }
    assert_ne!(
        logs[1].1, logs[2].1,
        "gauss-newton and gauss-newton-objective step alike"
    );
    let o = gait(&["--hessian", "newton"]);
    assert_fails_with(&o, "invalid value 'newton' for '--hessian <HESSIAN>'");
    assert!(
        stderr(&o).contains("gauss-newton-objective"),
        "{}",
        stderr(&o)
    );
}

/// `gait --torques variables`: the torques as variables, solved with the exact Hessian from the
/// rest pose unless --hessian says otherwise (one IPOPT solve given the exact-Hessian interface,
/// no stages); `--hessian lbfgs-then-exact` stages it again, L-BFGS first.
#[cfg(feature = "ipopt")]
#[test]
fn gait_torques_variables_solves_with_the_exact_hessian_by_default() {
    use spacetime::*;
    let run = |extra: &[&str]| {
        let mut args = vec![
            "--torques",
            "variables",
            "--max-iterations",
            "20",
            "--print-level",
            "5",
            "--ipopt",
            "print_user_options=yes",
        ];
        args.extend_from_slice(extra);
        gait(&args)
    };
    let o = run(&[]);
    assert_exit_matches_validity(&o);
    let out = stdout(&o);
    assert!(!out.lines().any(|l| l.starts_with("stage ")), "{out}");
    assert_eq!(option_blocks(&out)[0]["hessian_approximation"], "exact");
    let o = run(&["--hessian", "lbfgs-then-exact", "--lbfgs-iterations", "10"]);
    assert_exit_matches_validity(&o);
    let out = stdout(&o);
    let stages: Vec<&str> = out.lines().filter(|l| l.starts_with("stage ")).collect();
    assert!(stages[0].starts_with("stage lbfgs "), "{out}");
    assert_eq!(
        option_blocks(&out)[0]["hessian_approximation"],
        "limited-memory"
    );
}

/// A character file's `gait: (torques: …, starts: …, mirror_half: …)` are `gait`'s defaults for a
/// solve from the rest pose: the simple biped's walk is solved with its torques as variables (one
/// more variable per joint coordinate and frame) from a pair of starts, one perturbation with both
/// barriers, as half a mirrored cycle. The flags win over the file.
#[cfg(feature = "ipopt")]
#[test]
fn the_character_file_gives_the_torques_and_starts_of_a_solve_from_rest() {
    use spacetime::*;
    let biped = concat!(env!("CARGO_MANIFEST_DIR"), "/characters/simple_biped.ron");
    let run = |extra: &[&str]| {
        let mut args = vec!["gait", biped, "--speed", "0.7", "--max-iterations", "15"];
        args.extend_from_slice(extra);
        motionlab(&args)
    };
    let hinted = run(&[]);
    assert_exit_matches_validity(&hinted);
    let hinted = stdout(&hinted);
    assert_eq!(
        value(&hinted, "starts"),
        "2 seeds 0,0 barriers adaptive,monotone"
    );
    let plain = run(&[
        "--torques",
        "computed",
        "--starts",
        "1",
        "--mirror-half",
        "false",
    ]);
    assert_exit_matches_validity(&plain);
    let plain = stdout(&plain);
    assert!(!plain.lines().any(|l| l.starts_with("starts ")), "{plain}");
    assert_eq!(value(&hinted, "creature").split(' ').last(), Some("true"));
    assert_eq!(value(&plain, "creature").split(' ').last(), Some("false"));
    // The file's half cycle only where the timing allows: feet 0.4 of a period apart are solved
    // whole.
    let skewed = run(&["--contacts", "l_foot:0:0.6,r_foot:0.4:0.6"]);
    assert_exit_matches_validity(&skewed);
    assert_eq!(
        value(&stdout(&skewed), "creature").split(' ').last(),
        Some("false")
    );
    // Half the cycle with the simple biped's 10 active joint coordinates in each of its
    // frames; the 30 spring variables (3 per active coordinate) are not halved.
    assert_eq!(
        2 * creature_count(&hinted, "variables"),
        creature_count(&plain, "variables") + 10 * creature_count(&plain, "frames") + 30
    );
}

/// A discovery's samples are solves from the rest pose, so they take the character file's form
/// too: the simple biped's torques as variables (solved with the exact Hessian); with
/// `--torques computed`, the thesis's staged solve. The line before the samples says which.
#[cfg(feature = "ipopt")]
#[test]
fn a_discoverys_samples_take_the_character_files_form() {
    let biped = concat!(env!("CARGO_MANIFEST_DIR"), "/characters/simple_biped.ron");
    let run = |extra: &[&str]| {
        let mut args = vec![
            "gait",
            biped,
            "--speed",
            "0.7",
            "--discover",
            "--generations",
            "1",
            "--population",
            "4",
            "--sample-iterations",
            "3",
            "--max-iterations",
            "3",
        ];
        args.extend_from_slice(extra);
        stdout(&motionlab(&args))
    };
    assert_eq!(
        value(&run(&[]), "discovery"),
        "samples torques variables hessian exact barrier adaptive springs slack"
    );
    assert_eq!(
        value(&run(&["--torques", "computed"]), "discovery"),
        "samples torques computed hessian lbfgs-then-exact barrier adaptive springs slack"
    );
}

/// `gait --discover --samples-dir DIR` without `--out` writes the discovered gait to
/// `DIR/discovered.ron` (and says so); with `--out` it writes there and not in the folder.
#[cfg(feature = "ipopt")]
#[test]
fn a_discovery_writes_its_gait_into_its_samples_folder() {
    use motionlab::spacetime::gait::GaitClip;
    let dir = tempfile::tempdir().unwrap();
    let discover = |samples: &Path, extra: &[&str]| {
        let mut args = vec![
            "gait",
            MONOPED,
            "--speed",
            "0.5",
            "--discover",
            "--generations",
            "1",
            "--population",
            "2",
            "--sample-iterations",
            "30",
            "--max-iterations",
            "30",
            "--samples-dir",
            samples.to_str().unwrap(),
        ];
        args.extend_from_slice(extra);
        motionlab(&args)
    };
    let samples = dir.path().join("samples");
    let o = discover(&samples, &[]);
    let written = samples.join("discovered.ron");
    assert!(
        stdout(&o).contains(&format!("wrote {}", written.display())),
        "{}",
        stdout(&o)
    );
    let clip: GaitClip = motionlab::files::read_ron(&written).unwrap();
    assert_eq!(clip.frames.len(), motionlab::spacetime::gait::FRAMES);
    let elsewhere = dir.path().join("elsewhere.ron");
    let other = dir.path().join("other");
    discover(&other, &["--out", elsewhere.to_str().unwrap()]);
    assert!(elsewhere.exists() && !other.join("discovered.ron").exists());
}

/// `gait --seed`: a non-zero seed perturbs the rest-pose initialisation (IPOPT's iteration 0
/// differs from seed 0's) and is stored in the clip.
#[cfg(feature = "ipopt")]
#[test]
fn gait_seed_perturbs_the_starting_pose() {
    use spacetime::*;
    let dir = tempfile::tempdir().unwrap();
    let mut starts = Vec::new();
    for seed in ["0", "7"] {
        let clip = dir.path().join(format!("seed{seed}.ron"));
        let o = gait(&[
            "--seed",
            seed,
            "--hessian",
            "lbfgs",
            "--max-iterations",
            "3",
            "--print-level",
            "5",
            "--out",
            s(&clip),
        ]);
        assert_exit_matches_validity(&o);
        starts.push(first_iterations(&stdout(&o))[0].clone());
        assert_eq!(read_clip(&clip).seed, seed.parse::<u64>().unwrap());
    }
    assert_ne!(starts[0], starts[1], "seed 7 starts where seed 0 does");
}

/// `gait --starts 3 --seed 5 --out FILE`: three starts (start 0 is seed 5's own solve, start 1
/// the same perturbation with the monotone barrier, start 2 another seed's) solved side by side;
/// the start kept is the lowest-cost valid one, its clip is the one written (with its seed), and
/// the spread line gives the valid starts' range. `--starts 0` is refused.
#[cfg(feature = "ipopt")]
#[test]
fn gait_starts_keep_the_best_valid_start() {
    use motionlab::spacetime::job::starts::{Barrier, start_plan, start_seed};
    use spacetime::*;
    let dir = tempfile::tempdir().unwrap();
    let clip = dir.path().join("best.ron");
    let o = gait(&[
        "--starts",
        "3",
        "--seed",
        "5",
        "--max-iterations",
        "40",
        "--out",
        s(&clip),
    ]);
    assert_exit_matches_validity(&o);
    let out = stdout(&o);
    let seeds: Vec<u64> = (0..3)
        .map(|k| start_plan(5, k, true, Barrier::Adaptive).0)
        .collect();
    assert_eq!(
        value(&out, "starts"),
        format!(
            "3 seeds {},{},{} barriers adaptive,monotone,adaptive",
            seeds[0], seeds[1], seeds[2]
        )
    );
    assert_eq!(seeds, [5, 5, start_seed(5, 1)]);
    // `start_solve K seed S valid V status … cost C …`, in order.
    let starts: Vec<Vec<&str>> = out
        .lines()
        .filter_map(|l| l.strip_prefix("start_solve "))
        .map(|l| l.split_whitespace().collect())
        .collect();
    assert_eq!(starts.len(), 3, "{out}");
    let field = |w: &Vec<&str>, key: &str| -> String {
        let at = w.iter().position(|f| *f == key).unwrap();
        w[at + 1].to_string()
    };
    let mut valid_costs = Vec::new();
    for (k, w) in starts.iter().enumerate() {
        assert_eq!(w[0], k.to_string());
        assert_eq!(field(w, "seed"), seeds[k].to_string());
        let barrier = if k == 1 { "monotone" } else { "adaptive" };
        assert_eq!(field(w, "barrier"), barrier, "{out}");
        if field(w, "valid") == "true" {
            valid_costs.push((field(w, "cost").parse::<f64>().unwrap(), k));
        }
    }
    // The twin's option reached its solver: from the same perturbation, another path.
    assert_ne!(
        (field(&starts[0], "iterations"), field(&starts[0], "cost")),
        (field(&starts[1], "iterations"), field(&starts[1], "cost")),
        "{out}"
    );
    let best = valid_costs
        .iter()
        .copied()
        .min_by(|a, b| a.0.total_cmp(&b.0))
        .expect("a valid start: 40 iterations projected");
    let kept: Vec<String> = value(&out, "best_start")
        .split_whitespace()
        .map(String::from)
        .collect();
    assert_eq!(kept[0], best.1.to_string(), "{out}");
    assert_eq!(kept[2], seeds[best.1].to_string());
    assert_eq!(value(&out, "cost").parse::<f64>().unwrap(), best.0);
    let written = read_clip(&clip);
    assert_eq!(written.seed, seeds[best.1]);
    assert!(written.is_valid());
    let spread = value(&out, "spread");
    assert!(
        spread.starts_with(&format!(
            "starts 3 valid {} cost_min {:.6}",
            valid_costs.len(),
            best.0
        )),
        "{spread}"
    );
    // `--barrier monotone` puts the monotone barrier first in each pair.
    let o = gait(&[
        "--starts",
        "2",
        "--barrier",
        "monotone",
        "--max-iterations",
        "10",
    ]);
    assert_exit_matches_validity(&o);
    assert_eq!(
        value(&stdout(&o), "starts"),
        "2 seeds 0,0 barriers monotone,adaptive"
    );
    let o = gait(&["--starts", "0"]);
    assert!(!o.status.success());
    assert!(
        stderr(&o).contains("expected a whole number in [1, 256]"),
        "{}",
        stderr(&o)
    );
}

/// `gait --morphology --min-head-height H`: one more inequality per frame (IPOPT's count), and
/// in the solved clip the head (the monoped's body top, 0.6 m at rest) stays at least 0.65 m
/// high in every frame.
#[cfg(feature = "ipopt")]
#[test]
fn gait_min_head_height_keeps_the_head_up() {
    use motionlab::spacetime::dynamics::forward_kinematics;
    use motionlab::spacetime::skeleton::Skeleton;
    use spacetime::*;
    let dir = tempfile::tempdir().unwrap();
    let plain = gait(&[
        "--morphology",
        "--max-iterations",
        "1",
        "--print-level",
        "5",
    ]);
    let plain = ipopt_count(&stdout(&plain), "inequality constraints");
    let clip_path = dir.path().join("tall.ron");
    let o = gait(&[
        "--morphology",
        "--min-head-height",
        "0.65",
        "--max-iterations",
        "150",
        "--print-level",
        "5",
        "--out",
        s(&clip_path),
    ]);
    assert_success(&o, "gait --morphology --min-head-height");
    let out = stdout(&o);
    let frames = creature_count(&out, "frames");
    assert_eq!(ipopt_count(&out, "inequality constraints"), plain + frames);
    let violation: f64 = value(&out, "max_violation").parse().unwrap();
    assert!(violation <= 1e-6, "{out}");

    let skeleton = Skeleton::load(MONOPED).unwrap();
    let head = skeleton.head.expect("the monoped names its head");
    let rest = forward_kinematics(
        &skeleton,
        &skeleton.morphology::<f64>(),
        &skeleton.rest_pose(),
    )
    .limbs[head]
        .end
        .y;
    assert!(
        rest < 0.65,
        "the bound must bite: the head is at {rest} m at rest"
    );
    let clip = read_clip(&clip_path);
    assert!(clip.morphology.is_some(), "the clip keeps the body");
    let body = clip.body(&skeleton).unwrap();
    let shape = body.morphology::<f64>();
    assert_eq!(clip.frames.len(), frames);
    for (i, q) in clip.frames.iter().enumerate() {
        let y = forward_kinematics(&body, &shape, q).limbs[head].end.y;
        assert!(y >= 0.65 - 1e-5, "frame {i}: head at {y} m");
    }
}

/// Malformed `gait` input is refused before solving, with what was expected: `--contacts`
/// syntax, an unknown foot, a window outside the cycle, `--period 0`, `--ipopt` without `=`,
/// `--min-head-height` without `--morphology` or not a number, two settings of the barrier,
/// holding springs without torque variables to size them from.
#[cfg(feature = "ipopt")]
#[test]
fn gait_refuses_malformed_timings_and_options() {
    use spacetime::*;
    for (args, expected) in [
        (
            &["--contacts", "shin:0.1"][..],
            "contacts: expected `foot:start:duration` items separated by commas, found \"shin:0.1\"",
        ),
        (
            &["--contacts", "knee:0:0.5"][..],
            "`knee` is not a foot of this creature (feet: shin)",
        ),
        (
            &["--contacts", "shin:0.2:1.5"][..],
            "foot `shin`: expected start in [0, 1) and duration in (0, 1], found start 0.2, duration 1.5",
        ),
        (
            &["--period", "0"][..],
            "invalid value '0' for '--period <PERIOD>': expected a value in (0, 10] s, found 0",
        ),
        (
            &["--ipopt", "print_level"][..],
            "--ipopt expects name=value, found \"print_level\"",
        ),
        (
            &["--min-head-height", "0.5"][..],
            "the following required arguments were not provided",
        ),
        (
            &["--morphology", "--min-head-height", "NaN"][..],
            "invalid value 'NaN' for '--min-head-height <MIN_HEAD_HEIGHT>': expected a value in [0, 10] m",
        ),
        (
            &["--barrier", "monotone", "--ipopt", "mu_strategy=adaptive"][..],
            "--barrier and --ipopt mu_strategy=… both set the barrier; give one",
        ),
        (
            &["--torques", "computed", "--springs", "holding"][..],
            "--springs holding needs --torques variables: the springs are sized from the torque variables at the start",
        ),
        (
            &["--mirror-half", "true"][..],
            "cannot solve half the cycle and mirror it: foot `shin` is down at frame 0 and its mirror foot at frame 15 differently",
        ),
        (
            &["--mirror-half", "true", "--discover"][..],
            "--mirror-half true does not go with --discover",
        ),
    ] {
        let o = gait(args);
        assert_fails_with(&o, expected);
        // Refused before any solve: nothing of a solve's report is printed.
        assert!(
            !stdout(&o)
                .lines()
                .any(|l| l.starts_with("cost ") || l.starts_with("stage ")),
            "{args:?} ran a solve:\n{}",
            stdout(&o)
        );
    }
}

/// `spacetime particle --print-level 5`: IPOPT's banner, iteration log and exit message, around
/// the same solution as the silent default.
#[cfg(feature = "ipopt")]
#[test]
fn particle_print_level_shows_the_ipopt_log() {
    let quiet = motionlab(&["spacetime", "particle", "--solver", "ipopt"]);
    assert_success(&quiet, "spacetime particle");
    let loud = motionlab(&[
        "spacetime",
        "particle",
        "--solver",
        "ipopt",
        "--print-level",
        "5",
    ]);
    assert_success(&loud, "spacetime particle --print-level 5");
    let (quiet, loud) = (stdout(&quiet), stdout(&loud));
    for text in [
        "This is Ipopt version",
        "iter    objective",
        "EXIT: Optimal Solution Found.",
    ] {
        assert!(loud.contains(text), "{text:?} missing:\n{loud}");
        assert!(!quiet.contains(text), "{text:?} at print level 0:\n{quiet}");
    }
    assert_eq!(value(&loud, "status"), "solved");
    assert_eq!(value(&loud, "objective"), value(&quiet, "objective"));
}

/// `spacetime particle --solver ripopt`: the Rust interior point reaches the same optimum
/// (65,699.9085 N²) and is the particle's default (the faster on small problems); an unknown
/// solver is refused with the ones there are; `--solver` is a choice of `bench gait` only.
#[cfg(all(feature = "ipopt", feature = "ripopt"))]
#[test]
fn particle_solves_with_either_solver() {
    for solver in ["ipopt", "ripopt"] {
        let o = motionlab(&["spacetime", "particle", "--solver", solver]);
        assert_success(&o, "spacetime particle --solver");
        let out = stdout(&o);
        assert!(
            out.starts_with(&format!("problem spacetime_particle solver {solver} ")),
            "{out}"
        );
        assert_eq!(value(&out, "status"), "solved");
        let f: f64 = value(&out, "objective").parse().unwrap();
        assert!((f - 65_699.9085).abs() < 0.01, "{solver}: {f}");
    }
    let o = motionlab(&["spacetime", "particle"]);
    assert!(
        stdout(&o).starts_with("problem spacetime_particle solver ripopt "),
        "{}",
        stdout(&o)
    );
    let o = motionlab(&["spacetime", "particle", "--solver", "knitro"]);
    assert!(!o.status.success());
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(err.contains("expected ipopt or ripopt"), "{err}");
    for choice in [
        ["--solver", "ripopt"],
        ["--torques", "variables"],
        ["--seeds", "2"],
    ] {
        let o = motionlab(&["bench", "sim", choice[0], choice[1]]);
        assert!(!o.status.success());
        let err = String::from_utf8_lossy(&o.stderr);
        assert!(
            err.contains("--solver, --starts, --torques and --seeds are choices of `bench gait`"),
            "{err}"
        );
    }
}

/// `MOTIONLAB_IPOPT_LIBRARY` chooses the IPOPT library at run time: the one the build found
/// solves the particle to its optimum through it, and a library that does not open is an error
/// that names the variable and the path, with no fallback to another IPOPT.
#[cfg(feature = "ipopt")]
#[test]
fn the_ipopt_library_can_be_named_at_run_time() {
    let particle = |library: &str| {
        std::process::Command::new(env!("CARGO_BIN_EXE_motionlab"))
            .args(["spacetime", "particle", "--solver", "ipopt"])
            .env("MOTIONLAB_IPOPT_LIBRARY", library)
            .current_dir(env!("CARGO_MANIFEST_DIR"))
            .output()
            .expect("running motionlab")
    };
    // Where the build found IPOPT, else the name the dynamic loader searches.
    let found = option_env!("MOTIONLAB_IPOPT_LIBRARY").unwrap_or("libipopt.so.1");
    let o = particle(found);
    assert_success(&o, "spacetime particle with the built IPOPT named");
    let f: f64 = value(&stdout(&o), "objective").parse().unwrap();
    assert!((f - 65_699.9085).abs() < 0.01, "{f}");
    let missing = "/nonexistent/libipopt.so.3";
    let o = particle(missing);
    assert!(!o.status.success(), "{}", stdout(&o));
    let err = stderr(&o);
    assert!(
        err.contains("MOTIONLAB_IPOPT_LIBRARY names a library that did not open")
            && err.contains(missing),
        "{err}"
    );
}

// ---------------------------------------------------------------------------------------------
// top level
