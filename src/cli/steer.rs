//! `motionlab steer`: a stick script or many seeded trials through a motion graph, played
//! kinematically or by the simulated character.

use anyhow::{Context, Result};
use motionlab::motion_graph::MotionGraph;
use std::path::{Path, PathBuf};

/// Steer a character through a motion graph with a scripted stick timeline; prints heading
/// error, speed error, foot slide and transitions per second.
#[derive(clap::Args, Debug)]
#[command(group = clap::ArgGroup::new("trials").args(["timelines", "straight", "pushes", "gaits"]).multiple(true))]
pub struct SteerArgs {
    pub graph: PathBuf,
    /// The stick timeline (RON: keys of time, move (east, north), run, facing).
    #[arg(long, required_unless_present_any = ["timelines", "straight", "pushes", "gaits"])]
    pub script: Option<PathBuf>,
    /// Trials: this many seeded timelines like a player's (a new direction and magnitude
    /// every 1–4 s, Shift 30 % of the time, the facing stick 20 %), played in parallel; prints
    /// one line per run and the share that stayed up (with --physics). With --script, the
    /// script is one more trial.
    #[arg(long, conflicts_with_all = ["random_walk", "out"])]
    pub timelines: Option<usize>,
    /// Trials: full-stick walks and runs in this many evenly spread directions.
    #[arg(long, conflicts_with_all = ["random_walk", "out"])]
    pub straight: Option<usize>,
    /// Trials: also walks in the --straight directions at these stick magnitudes (walkNN_DEG).
    #[arg(long, value_delimiter = ',', requires = "straight")]
    pub walk_sticks: Vec<f64>,
    /// Trials: walks east at 1.0 m/s pushed once on the pelvis by each of these impulses
    /// (N·s, horizontal) from --push-directions directions, --pushes-per-direction times
    /// each at seeded random phases of the stride 5–6.2 s in (pushJ_DEG_K).
    #[arg(long, value_delimiter = ',', conflicts_with_all = ["random_walk", "out"])]
    pub pushes: Vec<f64>,
    /// Trials: every straight cyclic gait of the graph held from its own state, from its first
    /// frame and from half way through its cycle (hold_CLIP_fFRAME): the stick held along its
    /// travel at its speed and, with --physics, the simulated body started moving as the clip
    /// does there. Which gaits the tracking can hold at all.
    #[arg(long, conflicts_with_all = ["random_walk", "out"])]
    pub gaits: bool,
    /// Trials: directions of the pushes, evenly spread (0°: along the travel).
    #[arg(long, default_value_t = 8, requires = "pushes")]
    pub push_directions: usize,
    /// Trials: pushed walks per direction and impulse.
    #[arg(long, default_value_t = 5, requires = "pushes")]
    pub pushes_per_direction: usize,
    /// Trials: the first timeline's seed (timeline i has seed + i).
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// Trials: seconds per timeline and straight run.
    #[arg(long, default_value_t = 60.0)]
    pub duration: f64,
    /// Trials: also write every run's stick timeline to this folder as NAME.ron (for --script).
    #[arg(long, requires = "trials")]
    pub save_scripts: Option<PathBuf>,
    /// Random-walk playback (the thesis's baseline) with this seed instead of steering.
    #[arg(long)]
    pub random_walk: Option<u64>,
    /// Decide by the value-function policy of the graph's MDP (asked direction and speed;
    /// Wampler 2012, §5.2), solved at start, instead of the one-second look-ahead.
    #[arg(long, conflicts_with = "random_walk")]
    pub policy: bool,
    /// With --policy: the facing is a task parameter too (a direction-and-facing controller's
    /// strafes answer the facing stick, Q/E in the app). It is on without the flag when a cycle
    /// of the graph strafes.
    #[arg(long, requires = "policy")]
    pub facing: bool,
    /// Drive the Rapier-simulated character by tracking the played motion, and report how
    /// long it stays up and how closely it tracks.
    #[arg(long)]
    pub physics: bool,
    /// With --physics: balance gains other than the defaults, `NAME=VALUE,...` (c_d, c_v,
    /// trunk, trunk_v, ankle_d, ankle_v, roll_d, roll_v, lift_knee, lift_hip, lift_toe, follow,
    /// heading_follow, feedforward, rates, torso_kp, torso_kd; see docs/steering.md; a
    /// --tracker plays with the heading_follow it was trained with).
    #[arg(long, requires = "physics")]
    pub balance: Option<String>,
    /// With --physics: predictive sampling of the balance feedback's offsets (every 0.3 s,
    /// 6 candidates played 1.5 s ahead); `NAME=VALUE,...` changes every, horizon,
    /// candidates, sigma, keep or seed.
    #[arg(long, requires = "physics", num_args = 0..=1, default_missing_value = "")]
    pub lookahead: Option<String>,
    /// With --physics: the guard over transitions: when the controller is about to take
    /// one, a copy plays it and the next two choices (or playing on) 2.5 s ahead with the
    /// stick held (and the --tracker, when given), and the future that stays up, tracks best,
    /// obeys the stick and (with a tracker) ends where its value network expects most is
    /// taken, every 0.1 s. With a tracker, when the plan falls (checked every 0.3 s while a
    /// clip plays on), 16 futures play the tracker with seeded noise of 0.2 rad on its
    /// corrections for 0.5 s, 16 more at 0.4 rad and then 16 at 0.8 rad while every one so far
    /// falls, and the best is played again exactly (the rescue); when all 48 fall, 16 more in
    /// which the stick rests for 1 s (the body stops: the brake); `NAME=VALUE,...` changes
    /// every, horizon, candidates, obey, value, rescue (0: off), watch, commit, scale, aim (per
    /// radian the heading a future ends in is off the asked direction; 0: off), escalate (the
    /// rounds of more futures; 0: none), brake (the seconds the stick rests; 0: off) or carry
    /// (0: every future played afresh instead of carrying on the one chosen; the same run).
    #[arg(long, requires = "physics", num_args = 0..=1, default_missing_value = "")]
    pub guard: Option<String>,
    /// With --physics and --script (or --gaits): search open-loop corrections of every joint's
    /// PD target, 0.1 s at a time, that keep the simulated body up through the script (SAMCON:
    /// 200 samples a segment, 20 kept), then play them; `NAME=VALUE,...` changes segment,
    /// samples, keep, sigma or seed. With --gaits, one search per gait hold. Offline: minutes
    /// for a minute of script.
    #[arg(long, requires = "physics", conflicts_with_all = ["lookahead", "guard", "timelines", "straight", "pushes"], num_args = 0..=1, default_missing_value = "")]
    pub samcon: Option<String>,
    /// With --physics: the learned tracking policy trained by `motionlab graph control` adds
    /// its corrections to every joint's PD target, decided 30 times a second from the body's
    /// state.
    #[arg(long, requires = "physics", conflicts_with = "samcon")]
    pub tracker: Option<PathBuf>,
    /// Save the run as a clip (the played motion; with --physics the simulated one, up to a
    /// fall), one frame per script step, for the Library, `clip export` (BVH, glTF) or a
    /// graph.
    #[arg(long)]
    pub out: Option<PathBuf>,
}

/// Runs `motionlab steer`.
pub fn run(args: SteerArgs) -> Result<()> {
    let SteerArgs {
        graph,
        script,
        timelines,
        straight,
        walk_sticks,
        pushes,
        push_directions,
        pushes_per_direction,
        gaits,
        seed,
        duration,
        save_scripts,
        random_walk,
        policy,
        facing,
        physics,
        balance,
        lookahead,
        guard,
        samcon,
        tracker,
        out,
    } = args;
    let policy = policy.then_some(facing);
    let mut planning = planning(lookahead.as_deref(), guard.as_deref())?;
    if let Some(path) = &tracker {
        let g = std::sync::Arc::new(MotionGraph::load(&graph)?);
        let checkpoint = motionlab::steering::tracker_training::TrackerCheckpoint::load(path, &g)?;
        planning.tracker = Some(std::sync::Arc::new(checkpoint.tracker()));
    }
    if let Some(settings) = samcon.as_deref().filter(|_| gaits) {
        anyhow::ensure!(
            script.is_none(),
            "--samcon searches either a --script or the --gaits holds, not both"
        );
        return samcon_holds(&graph, duration, balance.as_deref(), settings);
    }
    anyhow::ensure!(
        samcon.is_none() || script.is_some(),
        "--samcon needs a --script (or --gaits) to search"
    );
    match (timelines, straight, script) {
        (None, None, Some(script)) if pushes.is_empty() && !gaits => steer(
            &graph,
            &script,
            random_walk,
            policy,
            physics,
            balance.as_deref(),
            planning,
            samcon.as_deref(),
            out.as_deref(),
        ),
        (timelines, straight, script) => steer_trials(
            &graph,
            &TrialSet {
                timelines: timelines.unwrap_or(0),
                straight: straight.unwrap_or(0),
                walk_sticks,
                pushes,
                push_directions,
                pushes_per_direction,
                gaits,
                script,
                seed,
                duration,
                save_scripts,
            },
            policy,
            physics,
            balance.as_deref(),
            planning,
        ),
    }
}

/// `motionlab steer GRAPH --script S [--random-walk SEED] [--physics] [--out CLIP]`: plays the
/// script and prints a line per second; with `out`, saves the run as a clip.
pub fn steer(
    graph: &Path,
    script: &Path,
    random_walk: Option<u64>,
    policy: Option<bool>,
    physics: bool,
    balance: Option<&str>,
    mut planning: motionlab::steering::physics::Planning,
    samcon: Option<&str>,
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
    if let Some(facing) = policy {
        controller = controller.with_policy(solve_policy(&g, facing));
    }
    let mut recording = RunRecording::default();
    if physics {
        let gains = motionlab::steering::balance::BalanceGains::parse(balance.unwrap_or(""))?;
        if let Some(settings) = samcon {
            let settings =
                motionlab::steering::samcon::SamconSettings::parse(settings).context("--samcon")?;
            let run = search_corrections(&controller, &script, gains, &settings, false)?;
            planning.corrections = Some(std::sync::Arc::new(run));
        }
        let report = motionlab::steering::physics::run_tracked_planned(
            &mut controller,
            &script,
            gains,
            planning,
            |s| {
                if out.is_some() && s.physics.fell_at.is_none() {
                    recording.push_simulated(s.time, &s.physics.sim);
                }
            },
        )?;
        print_trace(&report.trace, script.rate);
        match report.fell_at {
            Some(t) => println!(
                "physics fell at {t:.2} s ({})",
                report.fell_by.as_deref().unwrap_or("fell")
            ),
            None => println!("physics stayed up for {:.2} s", script.duration),
        }
        println!(
            "tracking_error_rad {:.3} joint_mean_error_rad {:.3} root_error_m {:.3} rescues {} brakes {} steps_played_ahead {}",
            report.joint_error,
            report.joint_mean_error,
            report.root_error,
            report.rescues,
            report.brakes,
            report.ahead_steps
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

/// `steer GRAPH --gaits --physics --samcon [SETTINGS]`: a SAMCON search per gait hold, each
/// from the gait's own state, with a line per hold of what it found.
fn samcon_holds(graph: &Path, duration: f64, balance: Option<&str>, settings: &str) -> Result<()> {
    use motionlab::steering::{Controller, Mode};
    let settings =
        motionlab::steering::samcon::SamconSettings::parse(settings).context("--samcon")?;
    let gains = motionlab::steering::balance::BalanceGains::parse(balance.unwrap_or(""))?;
    let g = std::sync::Arc::new(MotionGraph::load(graph)?);
    for hold in motionlab::steering::trials::gait_holds(&g, duration, 60.0) {
        let controller = Controller::new(g.clone(), hold.start, Mode::Steer);
        print!("{} ", hold.name);
        search_corrections(&controller, &hold.script, gains, &settings, true)?;
    }
    Ok(())
}

/// `steer --samcon`: the SAMCON search over `script` from `controller`'s start (with `moving`,
/// the body starts moving as the played motion does there), with a progress bar and a line of
/// what it found.
fn search_corrections(
    controller: &motionlab::steering::Controller,
    script: &motionlab::steering::StickScript,
    gains: motionlab::steering::balance::BalanceGains,
    settings: &motionlab::steering::samcon::SamconSettings,
    moving: bool,
) -> Result<motionlab::steering::samcon::SamconRun> {
    let bar = indicatif::ProgressBar::new((script.duration * 10.0).round() as u64);
    bar.set_style(
        indicatif::ProgressStyle::with_template(
            "samcon {bar:30} {msg} simulated s, {elapsed} (eta {eta})",
        )
        .expect("valid template"),
    );
    let started = std::time::Instant::now();
    let run = motionlab::steering::samcon::samcon_from(
        &mut controller.clone(),
        script,
        gains,
        settings,
        moving,
        |t| {
            bar.set_position((t * 10.0).round() as u64);
            bar.set_message(format!("{t:.1}/{:.1}", script.duration));
        },
    )?;
    bar.finish_and_clear();
    println!(
        "samcon seconds_up {:.2} stayed_up {} samples {} cost {:.3} search_s {:.1}",
        run.seconds_up,
        !run.fell,
        run.samples,
        run.cost,
        started.elapsed().as_secs_f64()
    );
    Ok(run)
}

/// The graph's MDP over the stick's speeds, and the facing when a cycle strafes or `facing`
/// asks for it ([`motionlab::synthesis::FACING_BINS`] angles), solved, with a line of what it
/// took and its controller quality cost(G) (Wampler 2012, Eq. 5.2).
fn solve_policy(
    g: &motionlab::motion_graph::LoadedGraph,
    facing: bool,
) -> std::sync::Arc<motionlab::steering::mdp::SteeringMdp> {
    use motionlab::steering::mdp::{MdpSettings, SteeringMdp};
    use motionlab::synthesis::FACING_BINS;
    let mut settings = MdpSettings::for_graph(g, FACING_BINS);
    if facing {
        settings.facing_bins = FACING_BINS;
    }
    let started = std::time::Instant::now();
    let mdp = SteeringMdp::from_graph(g, settings);
    println!(
        "policy frames {} speed_levels {} gaits {} direction_bins {} facing_bins {} sweeps {} residual {:.1e} solve_s {:.2} expected_cost {:.4}",
        mdp.nodes.len(),
        mdp.settings.speeds.len().max(1),
        mdp.settings.gaits.len().max(1),
        mdp.settings.bins,
        mdp.settings.facing_bins,
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
        corrections: None,
        tracker: None,
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
    /// Each straight cyclic gait held from its own state.
    pub gaits: bool,
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
    policy: Option<bool>,
    physics: bool,
    balance: Option<&str>,
    planning: motionlab::steering::physics::Planning,
) -> Result<()> {
    use motionlab::steering::balance::BalanceGains;
    use motionlab::steering::trials::{
        PUSH_SETTLE, PUSH_WINDOW, PlayerModel, TrialSummary, gait_holds, part_stick_walks,
        push_walks, random_timeline, run_gait_holds, run_trials, straight_runs,
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
    let policy = policy.map(|facing| solve_policy(&g, facing));
    let started = std::time::Instant::now();
    let holds = match set.gaits {
        true => gait_holds(&g, set.duration, rate),
        false => Vec::new(),
    };
    if let Some(dir) = &set.save_scripts {
        for h in &holds {
            let path = dir.join(format!("{}.ron", h.name));
            motionlab::files::write_ron(&path, &h.script)
                .with_context(|| format!("writing {}", path.display()))?;
        }
    }
    let mut outcomes = run_trials(&g, &runs, gains, planning.clone(), policy.as_ref())?;
    outcomes.extend(run_gait_holds(
        &g,
        &holds,
        gains,
        planning,
        policy.as_ref(),
    )?);
    for o in &outcomes {
        match physics {
            true => println!(
                "run {} up {} seconds_up {:.2} joint_error_rad {:.3} joint_mean_error_rad {:.3} root_error_m {:.3} speed_error_ms {:.2} rescues {} brakes {}{}",
                o.name,
                o.fell_at.is_none(),
                o.seconds_up(),
                o.joint_error,
                o.joint_mean_error,
                o.root_error,
                o.speed_error,
                o.rescues,
                o.brakes,
                o.fell_by
                    .as_ref()
                    .map(|f| format!(" fell_by \"{f}\""))
                    .unwrap_or_default()
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
        // pushJ, hold, the script's), then all of them.
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
                "{} {} up {} fraction_up {:.3} mean_seconds_up {:.2} mean_speed_error_ms {:.2} joint_error_rad {:.3} joint_mean_error_rad {:.3} root_error_m {:.3} turns_within_10deg_at_1.5s {}/{} speed_within_0.2ms {:.3}",
                kind.map_or("runs".to_string(), |k| format!("kind {k} runs")),
                s.runs,
                s.up,
                s.fraction_up(),
                s.mean_seconds_up,
                s.mean_speed_error,
                s.mean_joint_error,
                s.mean_joint_mean_error,
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
            "second {} heading_error_deg {:.1} speed_error {:.2} foot_slide_m {:.3} transitions {} facing_error_deg {:.1}",
            s.second, s.heading_error, s.speed_error, s.foot_slide, s.transitions, s.facing_error
        );
    }
    let worst_slide = trace.foot_slides.iter().map(|s| s.1).fold(0.0, f64::max);
    println!(
        "transitions {} max_joint_jump_rad {:.3} max_root_turn_rad {:.3} max_foot_slide_m {:.3}",
        trace.transitions, trace.max_joint_jump, trace.max_root_turn, worst_slide
    );
}
