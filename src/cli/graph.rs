//! `motionlab graph build|info` and `motionlab steer`: motion graphs and the steering controller
//! from the command line. Parsing and printing only; the work is `motionlab::motion_graph` and
//! `motionlab::steering`.

use anyhow::{Context, Result};
use motionlab::clip::Clip;
use motionlab::motion_graph::{GraphSettings, MotionGraph, WindowSettings, build, build_graph};
use motionlab::steering::tracker::EpisodeSettings;
use motionlab::steering::tracker_training::TrainingSettings;
use std::path::{Path, PathBuf};

#[derive(clap::Subcommand)]
pub enum GraphCommand {
    /// Build a motion graph from clips of one character (McIntosh 2011; Kovar et al. 2002): the skin's point
    /// cloud distance, transitions at local minima under the threshold, pruned to the largest
    /// strongly connected component. Example:
    /// `motionlab graph build assets/spaces/human3d_locomotion/clips --out assets/graphs/human3d.ron`
    Build {
        /// Clip files, or folders whose `.ron` files are all clips.
        #[arg(required = true)]
        clips: Vec<PathBuf>,
        #[arg(long)]
        out: PathBuf,
        /// The character (default: the one the first clip names).
        #[arg(long)]
        character: Option<PathBuf>,
        /// Largest distance of a transition (m, RMS over the skin's points).
        #[arg(long, default_value_t = 0.05, value_parser = crate::flags::height)]
        threshold: f64,
        /// Frames on each side of a compared frame.
        #[arg(long, default_value_t = 2)]
        window: usize,
        /// Ground speed (m/s) under which a frame is at rest: no blend joins a frame at rest
        /// with a moving one (starts and stops go through connecting clips).
        #[arg(long, default_value_t = 0.15, value_parser = crate::flags::speed)]
        rest_speed: f64,
        /// Align blended transitions by the best fit of the point clouds alone, not by the
        /// frames' travel directions.
        #[arg(long)]
        free_alignment: bool,
        /// No blends: only the exact transitions into connecting clips (the clips'
        /// `joins`), so every edge is physically valid. The connections must join every gait to
        /// the others, as a space's starts, stops, speed changes and turns do.
        #[arg(long)]
        solved_only: bool,
    },
    /// Print a graph's clips, transitions and what was pruned, with why.
    #[command(after_help = "Example: `motionlab graph info assets/graphs/human3d.ron`")]
    Info { graph: PathBuf },
    /// Replace blended transitions by physically valid connecting clips (Wampler 2012, App. C),
    /// solved with the gait NLP: the cheapest blend of each pair of clips, up to --budget. Then
    /// build the graph again with the connections' clips. Example:
    /// `motionlab graph connect assets/graphs/human3d.ron --gait-dir assets/spaces/human3d_locomotion/gait --out assets/spaces/human3d_links`
    Connect {
        graph: PathBuf,
        /// The gait clips of the graph's clips (a space's gait/ folder).
        #[arg(long)]
        gait_dir: PathBuf,
        /// Folder for the connections (gait/ and clips/).
        #[arg(long)]
        out: PathBuf,
        /// At most this many connections.
        #[arg(long, default_value_t = 40)]
        budget: usize,
        /// Frames of each connection.
        #[arg(long, default_value_t = 12)]
        frames: usize,
        #[arg(long, default_value_t = 0, value_parser = crate::flags::threads)]
        threads: usize,
        /// The parameter space the clips were solved from: each connection is solved with the
        /// objective (weights, posture, flat feet) and iteration limit of the point it leaves.
        #[arg(long, value_name = "SPACE")]
        space: Option<PathBuf>,
    },
    /// Train the graph's tracking policy for physics playback by reinforcement (PPO, as
    /// DeepMimic and DReCon): corrections to every joint's PD target, learned on seeded player
    /// stick timelines. Resumable: with an existing --out it goes on from its checkpoint.
    /// Example: `motionlab graph control assets/graphs/human3d.ron --out assets/graphs/human3d.control.ron`
    Control {
        graph: PathBuf,
        /// The tracker's checkpoint (written after every iteration; read to resume).
        #[arg(long)]
        out: PathBuf,
        /// Updates to make in this run.
        #[arg(long, default_value_t = 100)]
        iterations: u64,
        /// Decisions (at 30 Hz) per update.
        #[arg(long, default_value_t = 4096)]
        samples: usize,
        /// Seed of a new tracker's first weights.
        #[arg(long, default_value_t = 1)]
        seed: u64,
        /// The exploration noise (rad, the standard deviation of the corrections tried; a new
        /// tracker's default 0.1). Given when resuming, it changes the training's from then on.
        #[arg(long)]
        noise: Option<f32>,
        /// The policy's learning rate (Adam; a new tracker's default 5e-5). Given when
        /// resuming, it changes the training's from then on.
        #[arg(long)]
        learning_rate: Option<f32>,
        /// Stop an update's epochs once the policy has moved by 1.5 × this KL divergence
        /// (nats) from the one that drew its batch (0: never; a new tracker's default 0).
        /// Given when resuming, it changes the training's from then on.
        #[arg(long)]
        target_kl: Option<f32>,
        /// Mean seconds between random pushes (10–45 N·s, any horizontal direction) on the
        /// pelvis in training episodes; 0 for none.
        #[arg(long, default_value_t = 5.0)]
        push_interval: f64,
        /// Share of training episodes that hold each stick setting 6–20 s (long straight walks
        /// and runs) instead of a player's 1–4 s.
        #[arg(long, default_value_t = 0.25)]
        steady_share: f64,
        /// Share of the episodes' stick settings with Shift (run) down: higher, the run and its
        /// changes are trained on more often (a player's, as P12's trials).
        #[arg(long, default_value_t = motionlab::steering::trials::PlayerModel::default().run_share)]
        run_share: f64,
        /// Half-life (s) with which the reference's heading follows the simulated body's in the
        /// episodes: longer, a turn the stick asks for leads the body, and the tracker is paid
        /// for turning it (a new tracker's default 0.014, the place's). Given when resuming, it
        /// changes the training's from then on; the tracker plays with it.
        #[arg(long)]
        heading_follow: Option<f64>,
        #[arg(long, default_value_t = 0, value_parser = crate::flags::threads)]
        threads: usize,
    },
}

/// Clip files named on the command line, folders expanded (sorted).
fn clip_files(inputs: &[PathBuf]) -> Result<Vec<PathBuf>> {
    let mut out = Vec::new();
    for p in inputs {
        if p.is_dir() {
            let mut files: Vec<PathBuf> = std::fs::read_dir(p)
                .with_context(|| format!("reading {}", p.display()))?
                .filter_map(|e| e.ok().map(|e| e.path()))
                .filter(|f| f.extension().is_some_and(|e| e == "ron"))
                .collect();
            files.sort();
            anyhow::ensure!(!files.is_empty(), "{}: no .ron clips in it", p.display());
            out.extend(files);
        } else {
            out.push(p.clone());
        }
    }
    Ok(out)
}

pub fn run(command: GraphCommand) -> Result<()> {
    match command {
        GraphCommand::Build {
            clips,
            out,
            character,
            threshold,
            window,
            rest_speed,
            free_alignment,
            solved_only,
        } => {
            let files = clip_files(&clips)?;
            let mut loaded = Vec::with_capacity(files.len());
            for f in &files {
                let clip = Clip::load(f)?;
                let name = f
                    .file_stem()
                    .map(|s| s.to_string_lossy().to_string())
                    .unwrap_or_default();
                loaded.push((name, f.clone(), clip));
            }
            let character_path = match character {
                Some(c) => c,
                None => PathBuf::from(&loaded[0].2.character.path),
            };
            let c = motionlab::model::load_character(&character_path)
                .with_context(|| format!("the graph's character {}", character_path.display()))?;
            let settings = GraphSettings {
                threshold,
                rest_speed,
                travel_aligned: !free_alignment,
                solved_only,
                window: WindowSettings {
                    half_width: window,
                    ..Default::default()
                },
                ..Default::default()
            };
            let started = std::time::Instant::now();
            let graph = build_graph(&c, &character_path, &loaded, &settings)?;
            let seconds = started.elapsed().as_secs_f64();
            graph.save(&out)?;
            print_graph(&graph);
            println!("build_seconds {seconds:.3}");
            println!("wrote {}", out.display());
            Ok(())
        }
        GraphCommand::Connect {
            graph,
            gait_dir,
            out,
            budget,
            frames,
            threads,
            space,
        } => {
            anyhow::ensure!(
                frames >= 6,
                "--frames: a connection needs at least 6 frames"
            );
            let g = MotionGraph::load(&graph)?;
            let threads = if threads == 0 {
                std::thread::available_parallelism().map_or(1, |n| n.get())
            } else {
                threads
            };
            let mut max_iterations = 1500;
            let mut objectives = std::collections::BTreeMap::new();
            if let Some(path) = &space {
                let space = motionlab::space::ParameterSpace::load(path)?;
                max_iterations = space.solver.max_iterations;
                objectives = motionlab::motion_graph::connect::objectives_of(&space)
                    .map_err(|e| anyhow::anyhow!("{}: {e}", path.display()))?;
            }
            let options = motionlab::motion_graph::connect::ConnectOptions {
                gait_dir,
                out,
                frames,
                budget,
                threads,
                max_iterations,
                objectives,
            };
            let exe = std::env::current_exe()?;
            let outcomes = motionlab::motion_graph::connect::connect(
                &g,
                &options,
                &exe,
                &mut |o| match &o.result {
                    Ok((cost, violation)) => println!(
                        "connection {} feasible status {} cost {cost:.4} max_violation {violation:.2e} replaces blend {:.3} m",
                        o.name, o.status, o.blend_cost
                    ),
                    Err(e) => println!("connection {} failed: {e}", o.name),
                },
            )?;
            let solved: Vec<f64> = outcomes
                .iter()
                .filter_map(|o| o.result.as_ref().ok().map(|r| r.1))
                .collect();
            let optimal = outcomes
                .iter()
                .filter(|o| o.result.is_ok() && o.status == "solved")
                .count();
            println!(
                "connections {} feasible {} (optimal {optimal}) failed {} worst_violation {:.2e}",
                outcomes.len(),
                solved.len(),
                outcomes.len() - solved.len(),
                solved.iter().copied().fold(0.0, f64::max)
            );
            Ok(())
        }
        GraphCommand::Control {
            graph,
            out,
            iterations,
            samples,
            seed,
            noise,
            learning_rate,
            target_kl,
            push_interval,
            steady_share,
            run_share,
            heading_follow,
            threads,
        } => {
            anyhow::ensure!(
                push_interval >= 0.0
                    && (0.0..=1.0).contains(&steady_share)
                    && (0.0..=1.0).contains(&run_share)
                    && target_kl.is_none_or(|k| k >= 0.0)
                    && heading_follow.is_none_or(|h| h > 0.0),
                "--push-interval and --target-kl must be at least 0, --heading-follow positive and --steady-share and --run-share within 0–1"
            );
            let settings = TrainingSettings {
                samples,
                episode: EpisodeSettings {
                    push_interval,
                    steady_share,
                    player: motionlab::steering::trials::PlayerModel {
                        run_share,
                        ..Default::default()
                    },
                    ..EpisodeSettings::default()
                },
            };
            crate::graph_control::control(
                &graph,
                &out,
                iterations,
                &settings,
                seed,
                (noise, learning_rate, target_kl, heading_follow),
                threads,
            )
        }
        GraphCommand::Info { graph } => {
            let g = MotionGraph::load(&graph)?;
            print_graph(&g.graph);
            Ok(())
        }
    }
}

fn print_graph(g: &MotionGraph) {
    for (i, c) in g.clips.iter().enumerate() {
        let out = g.transitions.iter().filter(|t| t.from.clip == i).count();
        let into = g.transitions.iter().filter(|t| t.to.clip == i).count();
        println!(
            "clip {} frames {} family {} speed {:.2} turn_rate {:.1} transitions_out {out} in {into}",
            c.name,
            c.frames,
            c.family,
            c.speed,
            c.turn_rate.to_degrees()
        );
    }
    for p in &g.pruned {
        println!("pruned {}: {}", p.name, p.reason);
    }
    let exact = g.transitions.iter().filter(|t| t.exact).count();
    println!(
        "frames {} component_frames {} candidates {} transitions {} exact {} pruned_transitions {} clips {} pruned_clips {}",
        g.stats.frames,
        g.stats.component_frames,
        g.stats.candidates,
        g.transitions.len(),
        exact,
        g.stats.pruned_transitions,
        g.clips.len(),
        g.pruned.len()
    );
}

/// `motionlab bench steering`: the controller's time per 1/60 s step on the human graph
/// playing the acceptance script (steps that cross a frame boundary decide an edge), median and
/// 99th percentile over `repeats` runs, and the graph's build time.
pub fn bench_steering(quick: bool, graph: Option<&Path>) -> Result<()> {
    use motionlab::steering::{Controller, Mode, StickScript};
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let graph_path = graph
        .map(Path::to_path_buf)
        .unwrap_or_else(|| root.join("assets/graphs/human3d.ron"));
    let g = std::sync::Arc::new(MotionGraph::load(&graph_path)?);
    let script = StickScript::load(&root.join("tests/data/steer_north_east.ron"))?;
    let repeats = if quick { 1 } else { 5 };
    let mut times = Vec::new();
    for _ in 0..repeats {
        let mut c = Controller::new(
            g.clone(),
            Controller::default_start(&g, "stand"),
            Mode::Steer,
        );
        let dt = 1.0 / script.rate;
        let steps = (script.duration * script.rate) as usize;
        for i in 0..steps {
            let stick = script.stick_at((i + 1) as f64 * dt);
            let started = std::time::Instant::now();
            std::hint::black_box(c.step(&stick, dt));
            times.push(started.elapsed().as_secs_f64() * 1e6);
        }
    }
    times.sort_by(f64::total_cmp);
    let at = |q: f64| times[((times.len() - 1) as f64 * q) as usize];
    println!(
        "steering_step_us median {:.1} p99 {:.1} max {:.1} (steps {})",
        at(0.5),
        at(0.99),
        at(1.0),
        times.len()
    );
    // The graph's build time from its clips (median of 3).
    let clips: Vec<(String, PathBuf, Clip)> = g
        .graph
        .clips
        .iter()
        .zip(&g.clips)
        .map(|(gc, c)| (gc.name.clone(), gc.path.clone(), c.clone()))
        .collect();
    let mut builds = Vec::new();
    for _ in 0..if quick { 1 } else { 3 } {
        let started = std::time::Instant::now();
        build(&g.character, &g.character_path, &clips, &g.graph.settings)?;
        builds.push(started.elapsed().as_secs_f64());
    }
    builds.sort_by(f64::total_cmp);
    println!(
        "graph_build_seconds {:.3} (clips {}, frames {})",
        builds[builds.len() / 2],
        clips.len(),
        g.graph.stats.frames
    );
    Ok(())
}

/// `motionlab bench steering --physics`: physics playback of a full-stick walk east on the
/// shipped graph, on one thread: seconds of compute per simulated second, the controller's
/// decisions included, with the balance feedback alone, with the look-ahead, the guard, a
/// learned tracker (a new one: its forward pass costs what a trained one's does) and the
/// tracker with the guard, and the
/// decisions alone (the same walk played kinematically). Medians of
/// 3 repeats (`--quick`: one short one).
pub fn bench_steering_physics(quick: bool) -> Result<()> {
    use motionlab::steering::balance::BalanceGains;
    use motionlab::steering::lookahead::LookaheadSettings;
    use motionlab::steering::physics::run_tracked_planned;
    use motionlab::steering::trials::straight_runs;
    use motionlab::steering::{Controller, Mode, run_script};
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let g = std::sync::Arc::new(MotionGraph::load(&root.join("assets/graphs/human3d.ron"))?);
    let (duration, repeats) = if quick { (2.0, 1) } else { (20.0, 3) };
    let (_, script) = straight_runs(1, duration, 60.0).remove(0);
    let fresh = || {
        Controller::new(
            g.clone(),
            Controller::default_start(&g, "stand"),
            Mode::Steer,
        )
    };
    let median = |v: &mut Vec<f64>| {
        v.sort_by(f64::total_cmp);
        v[v.len() / 2]
    };
    let mut decision = Vec::new();
    for _ in 0..repeats {
        let mut c = fresh();
        let started = std::time::Instant::now();
        std::hint::black_box(run_script(&mut c, &script, |_, _, _| {}));
        decision.push(started.elapsed().as_secs_f64() / duration);
    }
    println!(
        "decision_per_simulated_second {:.4} (walk east at full stick, played, median of {repeats})",
        median(&mut decision)
    );
    use motionlab::steering::guard::GuardSettings;
    use motionlab::steering::physics::Planning;
    // A tracker costs one forward pass a decision whatever its weights: a new one's stand in.
    let tracker = motionlab::steering::tracker_training::TrackerCheckpoint::new(
        &g,
        motionlab::learn::ppo::PpoSettings::default(),
        1,
    )?
    .tracker();
    let tracker = std::sync::Arc::new(tracker);
    for (label, planning) in [
        ("feedback", Planning::default()),
        (
            "lookahead",
            Planning {
                lookahead: Some(LookaheadSettings::default()),
                ..Planning::default()
            },
        ),
        (
            "guard",
            Planning {
                guard: Some(GuardSettings::default()),
                ..Planning::default()
            },
        ),
        (
            "tracker",
            Planning {
                tracker: Some(tracker.clone()),
                ..Planning::default()
            },
        ),
        (
            "tracker+guard",
            Planning {
                tracker: Some(tracker),
                guard: Some(GuardSettings::default()),
                ..Planning::default()
            },
        ),
    ] {
        let (mut total, mut up) = (Vec::new(), 0.0);
        for _ in 0..repeats {
            let mut c = fresh();
            let started = std::time::Instant::now();
            let report = run_tracked_planned(
                &mut c,
                &script,
                BalanceGains::default(),
                planning.clone(),
                |_| {},
            )?;
            up = report.fell_at.unwrap_or(duration);
            total.push(started.elapsed().as_secs_f64() / up);
        }
        println!(
            "physics_compute_per_simulated_second {label} {:.4} ({up:.1} s up of {duration} s, decisions included, median of {repeats})",
            median(&mut total)
        );
    }
    Ok(())
}
