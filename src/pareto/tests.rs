//! The Pareto jump on the shipped scene (Agrawal 2015, thesis §4.3–4.4).

use super::*;
use std::path::Path;

fn jump() -> JumpTask {
    let path = Path::new(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/scenes/pareto_jump2d.ron"
    ));
    JumpTask::from_scene(&crate::scene::load_scene(path).unwrap()).unwrap()
}

#[test]
fn the_scene_has_34_free_parameters() {
    let j = jump();
    assert_eq!(j.dimension(), 34);
    assert_eq!(j.param_label(32), "assist.g0");
    assert!(
        j.param_label(31).starts_with("rise."),
        "{}",
        j.param_label(31)
    );
}

#[test]
fn the_seed_jumps_lands_in_the_bracket_and_stands_without_assist() {
    let j = jump();
    let (o, run, gravity) = j.run_recorded(&j.x0());
    println!("seed: {o:?}, {} frames", run.frames.len());
    assert!(o.failure.is_none(), "{:?}", o.failure);
    assert!(o.is_natural());
    assert_eq!(o.assist, Assist::NONE);
    assert!(gravity.iter().all(|g| *g == NATURAL_GRAVITY));
    // Standing head centre 1.5 m: the seed jumps.
    assert!(o.height > 1.6, "head peak {}", o.height);
    assert!(o.joint_effort > 0.0 && o.joint_effort.is_finite());
    let f = o.objectives();
    assert!(f[0].is_finite() && f[1].is_finite());
}

#[test]
fn the_assist_follows_its_profile_from_take_off() {
    let j = jump();
    let mut x = j.x0();
    let n = x.len();
    x[n - 2] = 0.5;
    x[n - 1] = -0.2; // T = 0.4 s
    let a = j.assist(&x);
    assert!((a.g0 - (NATURAL_GRAVITY + 0.5 * (5.0 - NATURAL_GRAVITY))).abs() < 1e-5);
    assert!((a.duration - 0.4).abs() < 1e-6);
    let (o, _, gravity) = j.run_recorded(&x);
    let natural = j.evaluate(&j.x0());
    let first = gravity.iter().position(|g| *g != NATURAL_GRAVITY).unwrap();
    assert_eq!(gravity[first], a.g0, "gravity jumps to g0 at take-off");
    let dt = j.task.settings.dt;
    for (k, g) in gravity[first..].iter().enumerate() {
        let expected = a.gravity_at(k as f32 * dt);
        assert!((g - expected).abs() < 1e-4, "step {k}: {g} vs {expected}");
    }
    let assisted = gravity.iter().filter(|g| **g != NATURAL_GRAVITY).count();
    let expected = (0.4 / dt).round() as usize;
    assert!(
        assisted.abs_diff(expected) <= 1,
        "{assisted} assisted steps"
    );
    assert!(o.assist_effort > 0.0);
    assert!(
        o.height > natural.height + 0.1,
        "assisted {} vs natural {}",
        o.height,
        natural.height
    );
}

fn run_config(method: Method, generations: u64) -> ParetoConfig {
    let mut c = ParetoConfig::new(
        concat!(env!("CARGO_MANIFEST_DIR"), "/scenes/pareto_jump2d.ron"),
        method,
    );
    c.generations = generations;
    c.seed = 7;
    c
}

fn pool() -> rayon::ThreadPool {
    rayon::ThreadPoolBuilder::new()
        .num_threads(2)
        .build()
        .unwrap()
}

/// RMOO keeps at most 3 failures per generation after resampling, its front is non-dominated,
/// and its natural points use exactly no external force (Agrawal 2015, thesis §4.4.3, §4.5).
#[test]
fn rmoo_generations_keep_the_success_criterion_and_a_clean_front() {
    let pool = pool();
    let mut run = ParetoRun::new(run_config(Method::Rmoo, 6)).unwrap();
    while !run.is_finished() {
        run.generation(&pool);
    }
    let r = run.result();
    assert_eq!(r.generations, 6);
    assert_eq!(r.failures.len(), 6);
    assert!(r.failures.iter().all(|&f| f <= 3), "{:?}", r.failures);
    // Every rollout is counted: the seed, µ children per generation and the resamples.
    assert_eq!(r.samples.len() as u64, r.evaluations);
    assert!(r.evaluations > 6 * 16);
    assert!(!r.front.is_empty());
    for (i, a) in r.front.iter().enumerate() {
        assert!(a.outcome.failure.is_none());
        if a.outcome.assist.is_natural() {
            assert_eq!(a.outcome.assist_effort, 0.0);
        }
        for b in &r.front[i + 1..] {
            let (fa, fb) = (a.outcome.objectives(), b.outcome.objectives());
            assert!(!crate::optim::pareto::dominates(fa, fb));
            assert!(!crate::optim::pareto::dominates(fb, fa));
        }
    }
    // The front has grown beyond the seed alone.
    let (first, last) = (
        r.history[0].hypervolume,
        r.history.last().unwrap().hypervolume,
    );
    assert!(last > first, "hypervolume {first} -> {last}");
    // A front point replays to the same trajectory (bit for bit).
    let p = &r.front[r.front.len() / 2];
    assert_eq!(run.jump().evaluate(&p.x).hash, p.outcome.hash);
}

/// Killing a run and resuming it from its checkpoint gives a bit-identical front.
#[test]
fn a_resumed_run_is_bit_identical() {
    use crate::jobs::Job;
    let pool = pool();
    for method in [Method::Rmoo, Method::Bsoo] {
        let mut config = run_config(method, 4);
        config.stall_generations = 2;
        let mut straight = ParetoRun::new(config.clone()).unwrap();
        for _ in 0..4 {
            straight.generation(&pool);
        }
        let mut first = ParetoRun::new(config).unwrap();
        for _ in 0..2 {
            first.generation(&pool);
        }
        let text = first.checkpoint().unwrap();
        drop(first);
        let mut resumed = ParetoRun::from_checkpoint(&text).unwrap();
        for _ in 0..2 {
            resumed.generation(&pool);
        }
        let (a, b) = (straight.result(), resumed.result());
        assert_eq!(a.front, b.front, "{method:?}");
        assert_eq!(a.history, b.history, "{method:?}");
        assert_eq!(a.samples, b.samples, "{method:?}");
    }
}

/// BSOO moves to the next height bin after a stall, warm-started from the bin's optimum, and
/// its front is made of bin optima.
#[test]
fn bsoo_walks_the_bins_from_the_lowest() {
    let pool = pool();
    let mut config = run_config(Method::Bsoo, 3);
    config.stall_generations = 2;
    let mut run = ParetoRun::new(config).unwrap();
    for _ in 0..6 {
        run.generation(&pool);
    }
    let run::Search::Bsoo(b) = run.search_state() else {
        panic!("not BSOO")
    };
    assert!(b.bin() >= 2, "bin {}", b.bin());
    let (t0, bracket) = search::Bsoo::target(&run.jump().def, 0);
    let (t1, _) = search::Bsoo::target(&run.jump().def, 1);
    assert!((t0 - 1.7).abs() < 1e-12 && (t1 - t0 - 2.0 * bracket).abs() < 1e-12);
    assert!(b.bests[0].is_some() && b.bests[1].is_some());
    assert_eq!(run.evaluations(), 6 * 16);
}

/// A front point saves as a clip of its replayed jump (the panel's "Save selected as clips").
#[test]
fn a_front_point_becomes_a_clip() {
    let pool = pool();
    let mut run = ParetoRun::new(run_config(Method::Mocma, 1)).unwrap();
    run.generation(&pool);
    let r = run.result();
    let clip = run::front_clip(&r, 0).unwrap();
    assert_eq!(clip.tags.source, "pareto");
    assert_eq!(clip.tags.cost, Some(r.front[0].outcome.log_effort));
    assert!(clip.duration() > 2.0, "{} s", clip.duration());
    // A point that does not exist is an error, not a panic.
    assert!(run::front_clip(&r, r.front.len()).is_err());
}
