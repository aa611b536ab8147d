//! `motionlab graph build|info` and `motionlab steer`: motion graphs and the steering controller
//! from the command line. Parsing and printing only; the work is `motionlab::motion_graph` and
//! `motionlab::steering`.

use anyhow::{Context, Result};
use motionlab::clip::Clip;
use motionlab::motion_graph::{GraphSettings, MotionGraph, WindowSettings, build};
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
            let (graph, _) = build(&c, &character_path, &loaded, &settings)?;
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

/// `motionlab steer GRAPH --script S [--random-walk SEED] [--physics] [--out CLIP]`: plays the
/// script and prints a line per second; with `out`, saves the run as a clip.
pub fn steer(
    graph: &Path,
    script: &Path,
    random_walk: Option<u64>,
    policy: bool,
    physics: bool,
    balance: Option<&str>,
    planning: motionlab::steering::physics::Planning,
    out: Option<&Path>,
) -> Result<()> {
    use motionlab::clip::CharacterRef;
    use motionlab::steering::record::RunRecording;
    use motionlab::steering::{Controller, Mode, StickScript, run_script};
    let g = std::sync::Arc::new(MotionGraph::load(graph)?);
    let script = StickScript::load(script)?;
    let mode = match random_walk {
        Some(seed) => Mode::RandomWalk {
            seed,
            probability: 0.5,
        },
        None => Mode::Steer,
    };
    let start = Controller::default_start(&g, "stand");
    let mut controller = Controller::new(g.clone(), start, mode);
    if policy {
        controller = controller.with_policy(solve_policy(&g));
    }
    let mut recording = RunRecording::default();
    if physics {
        let report = motionlab::steering::physics::run_tracked_planned(
            &mut controller,
            &script,
            motionlab::steering::balance::BalanceGains::parse(balance.unwrap_or(""))?,
            planning,
            |t, p| {
                if out.is_some() && p.fell_at.is_none() {
                    recording.push_simulated(t, &p.sim);
                }
            },
        )?;
        print_trace(&report.trace, script.rate);
        match report.fell_at {
            Some(t) => println!("physics fell at {t:.2} s"),
            None => println!("physics stayed up for {:.2} s", script.duration),
        }
        println!(
            "tracking_error_rad {:.3} root_error_m {:.3}",
            report.joint_error, report.root_error
        );
    } else {
        let character = g.character.clone();
        let trace = run_script(&mut controller, &script, |t, o, _| {
            if out.is_some() {
                recording.push_played(&character, t, o);
            }
        });
        print_trace(&trace, script.rate);
    }
    let Some(out) = out else { return Ok(()) };
    let text = std::fs::read_to_string(&g.character_path)
        .with_context(|| format!("reading {}", g.character_path.display()))?;
    let clip = recording
        .clip(
            &g.character,
            CharacterRef::new(&g.character_path, &text),
            script.rate,
        )
        .context("the run recorded nothing")?;
    clip.save(out)
        .with_context(|| format!("writing {}", out.display()))?;
    println!("clip: {} ({} frames)", out.display(), clip.frames.len());
    Ok(())
}

/// The graph's MDP over the stick's speeds, solved, with a line of what it took and its
/// controller quality cost(G) (Wampler 2012, Eq. 5.2).
fn solve_policy(
    g: &motionlab::motion_graph::LoadedGraph,
) -> std::sync::Arc<motionlab::steering::mdp::SteeringMdp> {
    use motionlab::steering::mdp::{MdpSettings, SteeringMdp};
    let started = std::time::Instant::now();
    let mdp = SteeringMdp::from_graph(g, MdpSettings::with_stick_speeds());
    println!(
        "policy frames {} speed_levels {} direction_bins {} sweeps {} residual {:.1e} solve_s {:.2} expected_cost {:.4}",
        mdp.nodes.len(),
        mdp.levels(),
        mdp.settings.bins,
        mdp.sweeps,
        mdp.residual,
        started.elapsed().as_secs_f64(),
        mdp.quality(256, 1200, 1)
    );
    std::sync::Arc::new(mdp)
}

/// The look-ahead and the guard of physics playback from `steer --lookahead/--guard`'s
/// settings (`NAME=VALUE,...`, empty for the defaults).
pub fn planning(
    lookahead: Option<&str>,
    guard: Option<&str>,
) -> Result<motionlab::steering::physics::Planning> {
    Ok(motionlab::steering::physics::Planning {
        lookahead: lookahead
            .map(motionlab::steering::lookahead::LookaheadSettings::parse)
            .transpose()
            .context("--lookahead")?,
        guard: guard
            .map(motionlab::steering::guard::GuardSettings::parse)
            .transpose()
            .context("--guard")?,
    })
}

/// Which trials `motionlab steer --timelines/--straight` plays.
pub struct TrialSet {
    pub timelines: usize,
    pub straight: usize,
    /// Stick magnitudes of extra walks in the `straight` directions.
    pub walk_sticks: Vec<f64>,
    /// Impulses (N·s) of pushed walks, the push directions and the walks per direction.
    pub pushes: Vec<f64>,
    pub push_directions: usize,
    pub pushes_per_direction: usize,
    pub script: Option<PathBuf>,
    pub seed: u64,
    pub duration: f64,
    /// A folder for every run's stick timeline (NAME.ron).
    pub save_scripts: Option<PathBuf>,
}

/// `motionlab steer GRAPH --timelines N --straight D [--script S] [--physics]`: plays every trial
/// (in parallel), prints a line per run and, with physics, how many stayed up.
pub fn steer_trials(
    graph: &Path,
    set: &TrialSet,
    policy: bool,
    physics: bool,
    balance: Option<&str>,
    planning: motionlab::steering::physics::Planning,
) -> Result<()> {
    use motionlab::steering::balance::BalanceGains;
    use motionlab::steering::trials::{
        PUSH_SETTLE, PUSH_WINDOW, PlayerModel, TrialSummary, part_stick_walks, push_walks,
        random_timeline, run_trials, straight_runs,
    };
    anyhow::ensure!(
        set.duration > 0.0 && set.duration <= 3600.0,
        "--duration must be in (0, 3600] s, found {}",
        set.duration
    );
    let g = std::sync::Arc::new(MotionGraph::load(graph)?);
    let rate = 60.0;
    let player = PlayerModel::default();
    let mut runs: Vec<(String, motionlab::steering::StickScript)> = (0..set.timelines)
        .map(|i| {
            let seed = set.seed + i as u64;
            (
                format!("timeline_{seed}"),
                random_timeline(seed, set.duration, rate, &player),
            )
        })
        .collect();
    anyhow::ensure!(
        set.walk_sticks.iter().all(|m| *m > 0.0 && *m <= 1.0),
        "--walk-sticks are stick magnitudes in (0, 1], found {:?}",
        set.walk_sticks
    );
    anyhow::ensure!(
        set.walk_sticks.is_empty() || set.straight > 0,
        "--walk-sticks walks in the --straight directions: give --straight too"
    );
    runs.extend(straight_runs(set.straight, set.duration, rate));
    runs.extend(part_stick_walks(
        set.straight,
        &set.walk_sticks,
        set.duration,
        rate,
    ));
    anyhow::ensure!(
        set.pushes.iter().all(|j| j.is_finite() && *j > 0.0),
        "--pushes are impulses in N·s, above 0, found {:?}",
        set.pushes
    );
    anyhow::ensure!(
        set.pushes.is_empty() || set.duration > PUSH_SETTLE + PUSH_WINDOW,
        "--pushes come {PUSH_SETTLE}–{} s into a walk: give a --duration past that, found {}",
        PUSH_SETTLE + PUSH_WINDOW,
        set.duration
    );
    for (i, &impulse) in set.pushes.iter().enumerate() {
        runs.extend(push_walks(
            impulse,
            set.push_directions,
            set.pushes_per_direction,
            set.seed.wrapping_add(i as u64),
            set.duration,
            rate,
        ));
    }
    if let Some(path) = &set.script {
        let name = path
            .file_stem()
            .map_or("script".into(), |s| s.to_string_lossy().into_owned());
        runs.push((name, motionlab::steering::StickScript::load(path)?));
    }
    if let Some(dir) = &set.save_scripts {
        std::fs::create_dir_all(dir).with_context(|| format!("creating {}", dir.display()))?;
        for (name, script) in &runs {
            let path = dir.join(format!("{name}.ron"));
            motionlab::files::write_ron(&path, script)
                .with_context(|| format!("writing {}", path.display()))?;
        }
    }
    let gains = match physics {
        true => Some(BalanceGains::parse(balance.unwrap_or(""))?),
        false => None,
    };
    let policy = policy.then(|| solve_policy(&g));
    let started = std::time::Instant::now();
    let outcomes = run_trials(&g, &runs, gains, planning, policy.as_ref())?;
    for o in &outcomes {
        match physics {
            true => println!(
                "run {} up {} seconds_up {:.2} joint_error_rad {:.3} root_error_m {:.3} speed_error_ms {:.2}",
                o.name,
                o.fell_at.is_none(),
                o.seconds_up(),
                o.joint_error,
                o.root_error,
                o.speed_error
            ),
            false => println!(
                "run {} seconds {:.2} speed_error_ms {:.2}",
                o.name, o.duration, o.speed_error
            ),
        }
    }
    let s = TrialSummary::of(&outcomes);
    if physics {
        // One line per kind of run (the name up to its first `_`: timeline, walk, run, walkNN,
        // pushJ, the script's), then all of them.
        let mut kinds: Vec<&str> = Vec::new();
        for o in &outcomes {
            let kind = o.name.split('_').next().unwrap_or("");
            if !kinds.contains(&kind) {
                kinds.push(kind);
            }
        }
        let kinds_of = |kind: Option<&str>| -> Vec<motionlab::steering::trials::TrialOutcome> {
            outcomes
                .iter()
                .filter(|o| kind.is_none_or(|k| o.name.split('_').next() == Some(k)))
                .cloned()
                .collect()
        };
        for kind in kinds.iter().map(|k| Some(*k)).chain([None]) {
            let s = TrialSummary::of(&kinds_of(kind));
            println!(
                "{} {} up {} fraction_up {:.3} mean_seconds_up {:.2} mean_speed_error_ms {:.2} joint_error_rad {:.3} root_error_m {:.3} turns_within_10deg_at_1.5s {}/{} speed_within_0.2ms {:.3}",
                kind.map_or("runs".to_string(), |k| format!("kind {k} runs")),
                s.runs,
                s.up,
                s.fraction_up(),
                s.mean_seconds_up,
                s.mean_speed_error,
                s.mean_joint_error,
                s.mean_root_error,
                s.obedience.turns_met,
                s.obedience.turns,
                s.obedience.speed_share()
            );
        }
    } else {
        println!(
            "runs {} (played; --physics to simulate them) mean_speed_error_ms {:.2} turns_within_10deg_at_1.5s {}/{} speed_within_0.2ms {:.3}",
            s.runs,
            s.mean_speed_error,
            s.obedience.turns_met,
            s.obedience.turns,
            s.obedience.speed_share()
        );
    }
    println!("wall_seconds {:.1}", started.elapsed().as_secs_f64());
    Ok(())
}

fn print_trace(trace: &motionlab::steering::SteerTrace, rate: f64) {
    for s in trace.per_second(rate) {
        println!(
            "second {} heading_error_deg {:.1} speed_error {:.2} foot_slide_m {:.3} transitions {}",
            s.second, s.heading_error, s.speed_error, s.foot_slide, s.transitions
        );
    }
    let worst_slide = trace.foot_slides.iter().map(|s| s.1).fold(0.0, f64::max);
    println!(
        "transitions {} max_joint_jump_rad {:.3} max_root_turn_rad {:.3} max_foot_slide_m {:.3}",
        trace.transitions, trace.max_joint_jump, trace.max_root_turn, worst_slide
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
/// decisions included, with the balance feedback alone and with the look-ahead, and the
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
    for (label, planning) in [
        ("feedback", Planning::default()),
        (
            "lookahead",
            Planning {
                lookahead: Some(LookaheadSettings::default()),
                guard: None,
            },
        ),
        (
            "guard",
            Planning {
                lookahead: None,
                guard: Some(GuardSettings::default()),
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
                planning,
                |_, _| {},
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
