//! `motionlab bench sim|impulse|cma`: the simulation's and CMA-ES's own benchmarks.

use anyhow::Result;
use motionlab::sim::SimSettings;
use std::path::Path;

/// `bench sim`: steps and rollouts per second of three built-in characters.
pub fn bench(quick: bool, dir: &Path) -> Result<()> {
    let names = ["human2d", "human3d", "bird_robot"];
    let (single_seconds, batch) = if quick { (2.0, 8) } else { (20.0, 96) };
    for name in names {
        let path = dir.join(format!("{name}.ron"));
        let c = super::load(&path)?;
        let s =
            motionlab::sim::bench::steps_per_second(&c, SimSettings::default(), single_seconds)?;
        println!("steps_per_second {name} {s:.0}");
        let r = motionlab::sim::bench::rollouts_per_second(&c, SimSettings::default(), 2.0, batch)?;
        println!("rollouts_per_second {name} {r:.1}");
    }
    Ok(())
}

/// `bench impulse`: human3d built from impulse joints instead of the multibody (issue P5,
/// deliverable 1), standing 10 s (`--quick`: 2 s) with `friction_in_bias_pass` and joint warm
/// starting off and on; one line per setting: steps per second (one core), whether it fell, the
/// largest foot drift after settling and the largest gap opened in a joint.
pub fn bench_impulse(quick: bool, dir: &Path) -> Result<()> {
    let c = super::load(&dir.join("human3d.ron"))?;
    let seconds = if quick { 2.0 } else { 10.0 };
    for (bias, warm) in [(false, false), (true, false), (false, true), (true, true)] {
        let r = motionlab::sim::impulse_joints::stand(&c, seconds, bias, warm);
        println!(
            "impulse_joints human3d friction_in_bias_pass {bias} warmstart_joints {warm} steps_per_second {:.0} fell {} foot_drift_mm {:.2} joint_gap_mm {:.2}",
            r.steps_per_second,
            r.fell,
            r.foot_drift * 1e3,
            r.joint_gap * 1e3
        );
    }
    Ok(())
}

/// CMA-ES overhead per generation (ask + tell, no objective cost) and evaluations to 1e-8 on
/// pycma's reference problems (n = 10, σ0 = 0.5 from 0.1·1, median of 5 seeds).
pub fn bench_cma(quick: bool) -> Result<()> {
    use motionlab::optim::{AskTell, Cmaes, CmaesOptions};
    let n = 100;
    let gens = if quick { 50 } else { 500 };
    let mut es = Cmaes::new(&vec![0.1; n], 0.5, CmaesOptions::default());
    let t0 = std::time::Instant::now();
    for _ in 0..gens {
        es.step(|x| x.iter().map(|v| v * v).sum());
    }
    println!(
        "overhead_us_per_generation n={n} {:.1}",
        t0.elapsed().as_secs_f64() * 1e6 / gens as f64
    );
    type Problem = (&'static str, fn(&[f64]) -> f64);
    let problems: [Problem; 3] = [
        ("sphere", |x| x.iter().map(|v| v * v).sum()),
        ("ellipsoid", |x| {
            let n = x.len() as f64;
            x.iter()
                .enumerate()
                .map(|(i, v)| 10f64.powf(6.0 * i as f64 / (n - 1.0)) * v * v)
                .sum()
        }),
        ("rosenbrock", |x| {
            x.windows(2)
                .map(|w| 100.0 * (w[1] - w[0] * w[0]).powi(2) + (1.0 - w[0]).powi(2))
                .sum()
        }),
    ];
    for (name, f) in problems {
        let mut evals: Vec<u64> = (1..=5u64)
            .map(|seed| {
                let mut es = Cmaes::new(
                    &[0.1; 10],
                    0.5,
                    CmaesOptions {
                        seed,
                        ..Default::default()
                    },
                );
                while es.evaluations() < 100_000 && es.should_stop().is_none() {
                    es.step(f);
                    if es.best().map(|b| b.1 <= 1e-8).unwrap_or(false) {
                        return es.evaluations();
                    }
                }
                u64::MAX
            })
            .collect();
        evals.sort();
        println!("evaluations_to_1e-8 {name} n=10 {}", evals[2]);
    }
    Ok(())
}
