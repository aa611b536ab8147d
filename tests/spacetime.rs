//! Spacetime solves end to end: the Spacetime Particle of McIntosh 2011 (§3.2.4) from the command
//! line (objective ≈ 65,699.9 N² at the optimum; with |Q| ≤ 30 N it is infeasible), and gait jobs
//! (Wampler 2012, §3.2–3.3) through the library's `run_gait`, the function the `gait` command
//! and the Gait panel call, with a discovery's samples solved by `motionlab gait-job`
//! processes. Gait results are read from the typed outcome and events, never from printed text.
#![cfg(feature = "ipopt")]

mod common;

use common::gait::{assert_solved, character, monoped_discovery, run};
use common::{assert_success, motionlab, stderr, stdout};
use motionlab::spacetime::gait::GaitClip;
use motionlab::spacetime::job::{GaitEvent, GaitHessian, GaitRequest};
use std::path::PathBuf;

/// The value after `key ` on the line that starts with it (exactly one such line).
fn value(out: &str, key: &str) -> String {
    let prefix = format!("{key} ");
    let lines: Vec<&str> = out.lines().filter(|l| l.starts_with(&prefix)).collect();
    assert_eq!(lines.len(), 1, "expected one `{key}` line in:\n{out}");
    lines[0][prefix.len()..].to_string()
}

#[test]
fn particle_prints_the_reference_objective() {
    let o = motionlab(&["spacetime", "particle"]);
    assert_success(&o, "spacetime particle");
    let out = stdout(&o);
    assert_eq!(value(&out, "status"), "solved", "{out}");
    let objective: f64 = value(&out, "objective").parse().unwrap();
    assert!(
        (objective - 65_699.9).abs() <= 1e-3 * 65_699.9,
        "objective {objective}\n{out}"
    );
    let iterations: usize = value(&out, "iterations").parse().unwrap();
    assert!(iterations >= 1, "{out}");
    let violation: f64 = value(&out, "max_violation").parse().unwrap();
    assert!(violation < 1e-6, "{out}");
}

/// `--repeat N` solves N times in one process: the same optimum, the median time and a line
/// with the count, the first solve's time and the range; N = 0 is refused.
#[test]
fn particle_repeated_reports_the_median_of_its_solves() {
    let o = motionlab(&["spacetime", "particle", "--repeat", "5"]);
    assert_success(&o, "spacetime particle --repeat 5");
    let out = stdout(&o);
    let objective: f64 = value(&out, "objective").parse().unwrap();
    assert!((objective - 65_699.9).abs() <= 1e-3 * 65_699.9, "{out}");
    let solves = value(&out, "solves");
    let fields: Vec<&str> = solves.split_whitespace().collect();
    assert_eq!(fields[0], "5", "{out}");
    let ms = |key: &str| -> f64 {
        let at = fields.iter().position(|f| *f == key).unwrap();
        fields[at + 1].parse().unwrap()
    };
    let median: f64 = value(&out, "solve_time_ms").parse().unwrap();
    assert!(ms("min_ms") <= median && median <= ms("max_ms"), "{out}");
    let refused = motionlab(&["spacetime", "particle", "--repeat", "0"]);
    assert!(!refused.status.success());
}

#[test]
fn particle_trajectory_keeps_its_boundary_conditions() {
    let o = motionlab(&["spacetime", "particle", "--lbfgs", "--trajectory"]);
    assert_success(&o, "spacetime particle --lbfgs --trajectory");
    let out = stdout(&o);
    let frames: Vec<Vec<f64>> = out
        .lines()
        .filter_map(|l| l.strip_prefix("frame "))
        .map(|l| l.split_whitespace().map(|v| v.parse().unwrap()).collect())
        .collect();
    assert_eq!(frames.len(), 21, "{out}");
    for (f, q) in [
        (0, [0.0, 0.0]),
        (1, [0.0, 0.5]),
        (19, [4.0, 3.5]),
        (20, [4.0, 4.0]),
    ] {
        assert_eq!(frames[f][0] as usize, f);
        assert!(
            (frames[f][1] - q[0]).abs() < 1e-6 && (frames[f][2] - q[1]).abs() < 1e-6,
            "frame {f}: {:?}",
            frames[f]
        );
    }
}

/// Table 3.1's |Q| ≤ 30 N cannot be met: every solver built in (the particle's default among
/// them) fails the command with the violation left, and IPOPT says it is infeasible.
#[test]
fn particle_with_table_force_limit_reports_infeasible() {
    for solver in motionlab::nlp::Backend::built_in() {
        let o = motionlab(&[
            "spacetime",
            "particle",
            "--bound-force",
            "30",
            "--solver",
            solver.label(),
        ]);
        let out = stdout(&o);
        assert!(
            !o.status.success(),
            "an infeasible problem must fail:\n{out}"
        );
        let violation: f64 = value(&out, "max_violation").parse().unwrap();
        assert!(violation > 1e-3, "{solver:?}: {out}");
        if solver == motionlab::nlp::Backend::Ipopt {
            assert_eq!(value(&out, "status"), "infeasible", "{out}\n{}", stderr(&o));
            assert!(stderr(&o).contains("infeasible"), "{}", stderr(&o));
        }
    }
}

/// The discovery's samples and generations, in order.
fn discovery_events(events: &[GaitEvent]) -> Vec<GaitEvent> {
    events
        .iter()
        .filter(|e| matches!(e, GaitEvent::Sample { .. } | GaitEvent::Generation { .. }))
        .cloned()
        .collect()
}

/// `discover` (Wampler 2012, §3.3): basin-CMA over the monoped's period and contact window, each
/// sample projected by a capped solve in a child process; the best timing is solved again,
/// starting from the best sample's clip.
#[test]
fn gait_discovery_reports_generations_and_solves_the_best_timing() {
    let dir = tempfile::tempdir().unwrap();
    let clip_path = dir.path().join("hop.ron");
    let mut request = monoped_discovery(0.7);
    request.max_iterations = 150;
    request.seed = 3;
    request.discover.as_mut().unwrap().period_range = Some((0.4, 0.8));
    request.out = Some(clip_path.clone());
    let (outcome, events) = run(&request);
    let outcome = outcome.expect("the discovery runs");
    let mut samples = Vec::new();
    let mut generations = Vec::new();
    for e in &events {
        match e {
            GaitEvent::Sample {
                period,
                cost,
                max_violation,
                ..
            } => samples.push((*period, *cost, *max_violation)),
            GaitEvent::Generation {
                generation,
                best,
                population,
                ..
            } => {
                assert_eq!(*generation, generations.len());
                assert_eq!(*population, 4);
                generations.push(best.clone().expect("a feasible sample in generation 0"));
            }
            _ => {}
        }
    }
    assert_eq!(generations.len(), 2, "{events:?}");
    assert_eq!(samples.len(), 8, "one event per sample: {events:?}");
    // Each generation reports the cheapest feasible sample (violation ≤ 1e-6) of it and the
    // generations before it.
    for (g, best) in generations.iter().enumerate() {
        let cheapest = samples[..4 * (g + 1)]
            .iter()
            .filter(|(_, _, v)| v.is_some_and(|v| v <= 1e-6))
            .filter_map(|(_, c, _)| *c)
            .fold(f64::INFINITY, f64::min);
        assert!(
            (best.cost - cheapest).abs() <= 1e-6 * cheapest.abs(),
            "generation {g} reports {}, its cheapest feasible sample so far is {cheapest}",
            best.cost
        );
    }
    // The period stays in the range asked for (the default box reaches down to 0.25 s).
    for period in samples
        .iter()
        .map(|s| s.0)
        .chain(generations.iter().map(|b| b.period))
    {
        assert!((0.4..=0.8).contains(&period), "{period}");
    }
    // The final solve uses the best timing found, and starts from its sample's clip.
    let best = &generations[1];
    assert_eq!(outcome.spec.period, best.period);
    assert_eq!(outcome.spec.timings, best.timings);
    assert!((0.1..=0.9).contains(&outcome.spec.timings[0].duration));
    assert!(
        events.contains(&GaitEvent::Start {
            from: "the best sample".into()
        }),
        "{events:?}"
    );
    // The job keeps the start when the solve ends above it, so the clip's cost alone holds by
    // construction: the solve's own end is read, and it may not end above its start.
    let solve = outcome
        .clip
        .start_kept
        .map_or(outcome.clip.cost, |k| k.cost);
    assert!(
        solve <= best.cost * (1.0 + 1e-6),
        "the final solve ends at {solve}, above its start ({})",
        best.cost
    );
    assert_solved(&outcome);
    assert!(
        outcome.spec.has_flight(),
        "one foot down at most 0.9 of the cycle"
    );
    let written: GaitClip = motionlab::files::read_ron(&clip_path).unwrap();
    assert_eq!(written, outcome.clip, "the clip is written");
    match events.last() {
        Some(GaitEvent::Finished { out: Some(p), .. }) => {
            assert_eq!(p, clip_path.to_str().unwrap())
        }
        other => panic!("the last event is {other:?}"),
    }
}

/// A samples folder keeps the sample clips: a rerun with the same request reuses every one of
/// them and gives the same generations and gait; a changed request (here the speed) solves
/// afresh.
#[test]
fn a_discovery_resumes_from_its_samples_dir() {
    let dir = tempfile::tempdir().unwrap();
    let samples = dir.path().join("samples");
    let run_at = |speed: f64| {
        let mut request = monoped_discovery(speed);
        request.max_iterations = 60;
        request.discover.as_mut().unwrap().samples_dir = Some(samples.clone());
        let (outcome, events) = run(&request);
        (outcome.expect("the discovery runs").clip, events)
    };
    let reused = |events: &[GaitEvent]| -> Vec<(usize, usize)> {
        events
            .iter()
            .filter_map(|e| match e {
                GaitEvent::SamplesReused { reused, total, .. } => Some((*reused, *total)),
                _ => None,
            })
            .collect()
    };
    let solved_again = |events: &[GaitEvent]| {
        events
            .iter()
            .any(|e| matches!(e, GaitEvent::SolvingBestSampleAgain { .. }))
    };
    let (first, first_events) = run_at(0.7);
    assert_eq!(reused(&first_events), [(0, 4), (0, 4)]);
    let kept: Vec<PathBuf> = std::fs::read_dir(&samples)
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    let is_summary = |p: &std::path::Path| p.to_string_lossy().ends_with(".summary.ron");
    let clips: Vec<&PathBuf> = kept.iter().filter(|p| !is_summary(p)).collect();
    assert_eq!(clips.len(), 8, "a clip per sample stays: {kept:?}");
    assert_eq!(kept.len(), 16, "and a summary beside each: {kept:?}");
    let (again, again_events) = run_at(0.7);
    assert_eq!(reused(&again_events), [(4, 4), (4, 4)]);
    assert_eq!(
        discovery_events(&first_events),
        discovery_events(&again_events)
    );
    assert_eq!(first.cost, again.cost);
    assert!(!solved_again(&again_events));
    // The summaries alone resume it (what a repository keeps of a long discovery): the same
    // samples, the same ranking, and the best sample solved again to start the final solve
    // from, so the final gait is the same too.
    for clip in clips {
        std::fs::remove_file(clip).unwrap();
    }
    let (from_summaries, events) = run_at(0.7);
    assert_eq!(reused(&events), [(4, 4), (4, 4)]);
    assert_eq!(discovery_events(&first_events), discovery_events(&events));
    assert_eq!(first.cost, from_summaries.cost);
    assert!(solved_again(&events));
    let (_, other) = run_at(0.6);
    assert_eq!(reused(&other), [(0, 4), (0, 4)]);
}

/// Takes a discovery's sample requests and solves none of them.
struct SampleRecorder(Vec<GaitRequest>);

impl motionlab::spacetime::job::SampleSolver for SampleRecorder {
    fn solve(&mut self, requests: &[GaitRequest]) -> anyhow::Result<()> {
        self.0.extend_from_slice(requests);
        Ok(())
    }
}

/// A discovery's samples are solved in the form the request asks for: the thesis's computed
/// torques and adaptive barrier from slack springs by default, and with `--torques variables
/// --barrier monotone --springs holding` the lifted torques, the monotone barrier and springs
/// that hold the start, one start each (the lifted form solves the horse's trot about eight
/// times as fast as the staged one).
#[test]
fn a_discoverys_samples_are_solved_in_the_requests_form() {
    use motionlab::model::{Barrier, StartSprings, Torques};
    let samples_of = |request: &GaitRequest| {
        let mut recorder = SampleRecorder(Vec::new());
        let outcome = motionlab::spacetime::job::run_gait(request, &mut recorder, &mut |_| {});
        assert!(
            outcome.is_err(),
            "no sample was solved, so no gait is feasible"
        );
        recorder.0
    };
    let mut request = monoped_discovery(0.7);
    request.discover.as_mut().unwrap().generations = 1;
    let thesis = samples_of(&request);
    assert_eq!(thesis.len(), 4, "one generation of four samples");
    for s in &thesis {
        assert_eq!(
            (s.torques, s.barrier, s.springs, s.starts),
            (Torques::Computed, Barrier::Adaptive, StartSprings::Slack, 1)
        );
    }
    request.torques = Torques::Variables;
    request.barrier = Barrier::Monotone;
    request.springs = StartSprings::Holding;
    request.hessian = GaitHessian::Exact;
    request.starts = 2;
    let lifted = samples_of(&request);
    assert_eq!(lifted.len(), 4);
    for (s, t) in lifted.iter().zip(&thesis) {
        assert_eq!(
            (s.torques, s.barrier, s.springs, s.hessian, s.starts),
            (
                Torques::Variables,
                Barrier::Monotone,
                StartSprings::Holding,
                GaitHessian::Exact,
                1
            )
        );
        assert!(s.discover.is_none() && s.init.is_none());
        assert_eq!(
            (s.period, &s.contacts),
            (t.period, &t.contacts),
            "the same timings"
        );
    }
}

/// The default solve (`GaitHessian::LbfgsThenExact`): 300 L-BFGS iterations, then the exact
/// Hessian (reverse-mode second-order adjoints) from the clip reached. On the monoped hop at
/// 0.5 m/s it ends feasible at a cost far below what L-BFGS alone reaches in its 300 iterations.
///
/// Only what holds on every machine is asserted: IPOPT's path (iteration counts, whether the
/// last iterate needed a projection, a stage's status) follows the BLAS kernels OpenBLAS picks
/// for the CPU. Measured with `OPENBLAS_CORETYPE` set to each kernel family on one machine:
/// cost 7.906 (Haswell, projected), 8.073 (SkylakeX, Sandybridge), 8.085 (Nehalem, projected);
/// L-BFGS alone 26.8–27.7. The reference is 8.0 within 10 %.
#[test]
fn the_default_solve_converges_where_lbfgs_alone_stalls() {
    let request = GaitRequest::new(character("monoped.ron"), 0.5);
    let (staged, _) = run(&request);
    let staged = staged.unwrap();
    assert_solved(&staged);
    // The L-BFGS stage, then the exact Hessian from where it stopped.
    let names: Vec<&str> = staged.stages.iter().map(|s| s.hessian).collect();
    assert_eq!(names, ["lbfgs", "exact"]);
    let cost = staged.clip.cost;
    assert!(
        (cost - 8.0).abs() <= 0.1 * 8.0,
        "the default solve reaches the hop's reference cost 8.0 within 10 %: {cost}"
    );
    // The gait's family: the monoped hops (a flight phase in every cycle).
    assert!(staged.spec.has_flight());
    let (lbfgs, _) = run(&GaitRequest {
        hessian: GaitHessian::Lbfgs,
        max_iterations: 300,
        ..request
    });
    let lbfgs = lbfgs.unwrap();
    assert_solved(&lbfgs);
    assert!(
        lbfgs.clip.cost > 2.0 * cost,
        "converged {cost} against L-BFGS {}",
        lbfgs.clip.cost
    );
}

/// The experimental `gauss-newton-then-exact` solve: the first stage uses the Gauss–Newton
/// curvature of the least-squares effort (exact Hessian mode) instead of L-BFGS, then the exact
/// Hessian goes on from the clip reached. On the monoped hop it ends feasible far below what
/// L-BFGS alone reaches (26.8–27.7), though above the default solve's 8.0: measured 10.70–10.77
/// with OpenBLAS's Haswell, SkylakeX, Sandybridge and Nehalem kernels (on the simple biped's
/// walk it ends lower than the default, 0.899 against 1.090).
#[test]
fn a_gauss_newton_first_stage_then_the_exact_hessian_converges() {
    let (outcome, _) = run(&GaitRequest {
        hessian: GaitHessian::GaussNewtonThenExact,
        ..GaitRequest::new(character("monoped.ron"), 0.5)
    });
    let outcome = outcome.unwrap();
    assert_solved(&outcome);
    let names: Vec<&str> = outcome.stages.iter().map(|s| s.hessian).collect();
    assert_eq!(names, ["gauss-newton", "exact"]);
    let cost = outcome.clip.cost;
    assert!(cost < 13.4, "half of L-BFGS alone's 26.8 at most: {cost}");
    assert!(outcome.spec.has_flight());
}

#[test]
fn morphology_without_muscles_grows_long_slender_legs_and_with_them_does_not() {
    // Wampler 2012, §3.4: with limb lengths and radii free, the plain torque effort (3.14) makes
    // "impossibly long and slender" legs; the muscle-aware effort (3.26)–(3.33) does not.
    let dir = tempfile::tempdir().unwrap();
    for muscle in [false, true] {
        let clip_path = dir.path().join(format!("hop_{muscle}.ron"));
        let request = GaitRequest {
            morphology: Some(motionlab::spacetime::morphology::MorphologyOptions {
                muscle,
                min_head_height: None,
            }),
            // 300 L-BFGS iterations and 700 with the exact Hessian (the default solve).
            max_iterations: 1000,
            out: Some(clip_path.clone()),
            ..GaitRequest::new(character("monoped.ron"), 0.5)
        };
        let (outcome, _) = run(&request);
        let outcome = outcome.unwrap();
        assert_solved(&outcome);
        let limbs = &outcome.spec.skeleton.limbs;
        let shapes = outcome
            .clip
            .morphology
            .as_ref()
            .expect("the clip keeps the body");
        // Slenderness (length/radius) relative to the file's, per changed limb.
        let changed: Vec<(&str, f64)> = shapes
            .iter()
            .zip(limbs)
            .filter(|(s, l)| s.length != l.length || s.radius != l.radius)
            .map(|(s, l)| {
                (
                    s.name.as_str(),
                    (s.length / l.length) / (s.radius / l.radius),
                )
            })
            .collect();
        let names: Vec<&str> = changed.iter().map(|c| c.0).collect();
        assert_eq!(names, ["thigh", "shin"], "only the leg changes");
        let mass = outcome
            .clip
            .body(&outcome.spec.skeleton)
            .unwrap()
            .total_mass();
        assert!(
            mass > 2.0,
            "the body keeps its 2 kg, the legs add to it: {mass}"
        );
        let saved = std::fs::read_to_string(&clip_path).unwrap();
        assert!(
            saved.contains("morphology:"),
            "the clip file keeps the body"
        );
        if muscle {
            assert!(
                changed.iter().all(|c| c.1 < 1.5),
                "with muscles no leg limb gets much more slender: {changed:?}"
            );
        } else {
            assert!(
                changed.iter().all(|c| c.1 > 5.0),
                "without muscles every leg limb is over 5× as slender as in the file: {changed:?}"
            );
        }
    }
}

/// `motionlab gait-job REQUEST` (what the Gait panel and a discovery's samples run): the request
/// as RON; standard output carries only typed events, one RON `GaitEvent` per line:
/// every discovery sample and generation, the final solve's IPOPT iterations and stages, and the
/// end with the clip written.
#[test]
fn the_gait_job_process_reads_a_request_and_writes_typed_events() {
    let dir = tempfile::tempdir().unwrap();
    let clip_path = dir.path().join("hop.ron");
    let mut request = monoped_discovery(0.7);
    request.discover.as_mut().unwrap().generations = 1;
    request.max_iterations = 60;
    request.lbfgs_iterations = Some(30);
    request.out = Some(clip_path.clone());
    let o = motionlab(&["gait-job", &request.encode()]);
    assert_success(&o, "gait-job");
    let events: Vec<GaitEvent> = stdout(&o)
        .lines()
        .map(|l| GaitEvent::decode(l).unwrap_or_else(|| panic!("not an event: {l:?}")))
        .collect();
    let count = |f: &dyn Fn(&GaitEvent) -> bool| events.iter().filter(|e| f(e)).count();
    assert_eq!(
        count(&|e| matches!(e, GaitEvent::Sample { .. })),
        4,
        "one per sample"
    );
    assert_eq!(count(&|e| matches!(e, GaitEvent::Generation { .. })), 1);
    // At least the start's iteration (how many follow is the solver's path, machine-dependent).
    assert!(count(&|e| matches!(e, GaitEvent::Iteration { .. })) >= 1);
    assert!(count(&|e| matches!(e, GaitEvent::Stage { .. })) >= 1);
    match events.last() {
        Some(GaitEvent::Finished { out: Some(p), .. }) => {
            assert_eq!(p, clip_path.to_str().unwrap())
        }
        other => panic!("the last event is {other:?}"),
    }
    let _: GaitClip = motionlab::files::read_ron(&clip_path).unwrap();
    // A request that is not one: the error names what was expected.
    let o = motionlab(&["gait-job", "(creature: 3)"]);
    assert!(!o.status.success());
    assert!(
        stderr(&o).contains("the gait request (the argument): line 1 column"),
        "{}",
        stderr(&o)
    );
    // A file holding the request: its errors name the file, and a missing one is named.
    let file = dir.path().join("request.ron");
    std::fs::write(&file, "(creature: 3)").unwrap();
    let o = motionlab(&["gait-job", file.to_str().unwrap()]);
    assert!(!o.status.success());
    let want = format!("the gait request ({}): line 1 column", file.display());
    assert!(stderr(&o).contains(&want), "{}", stderr(&o));
    let missing = dir.path().join("missing.ron");
    let o = motionlab(&["gait-job", missing.to_str().unwrap()]);
    assert!(!o.status.success());
    assert!(
        stderr(&o).contains(&format!("the gait request {}", missing.display())),
        "{}",
        stderr(&o)
    );
}

/// `motionlab gait` runs the same job and writes the clip; it exits non-zero unless solved.
#[test]
fn the_gait_command_writes_the_jobs_clip() {
    let dir = tempfile::tempdir().unwrap();
    let clip_path = dir.path().join("hop.ron");
    let o = motionlab(&[
        "gait",
        "characters/monoped.ron",
        "--speed",
        "0.5",
        "--max-iterations",
        "60",
        "--out",
        clip_path.to_str().unwrap(),
    ]);
    assert_success(&o, "gait");
    let clip: GaitClip = motionlab::files::read_ron(&clip_path).unwrap();
    assert!(clip.is_valid() && clip.speed == 0.5, "{clip:?}");
}

/// human2d (a planar character: root held in its plane, hinges about z) solves a planar walk at
/// 1 m/s with the default solve: feasible to 1e-6 by the solver and the audit, in the plane in
/// every frame, at a cost near the reference 3.41 (this machine's; ±25 % for other BLAS kernels).
#[test]
fn human2d_solves_a_planar_walk() {
    let (o, _) = run(&GaitRequest::new(character("human2d.ron"), 1.0));
    let o = o.unwrap();
    assert_solved(&o);
    let cost = o.clip.cost;
    assert!((cost - 3.41).abs() < 0.25 * 3.41, "cost {cost}");
    for q in &o.clip.frames {
        assert_eq!(
            (q[0], q[1], q[5]),
            (0.0, 0.0, 0.0),
            "out of the plane: {q:?}"
        );
    }
    for row in &o.clip.contacts {
        for load in row.iter().flatten() {
            assert_eq!(load.force[2], 0.0);
            assert_eq!((load.torque[0], load.torque[1]), (0.0, 0.0));
        }
    }
}
