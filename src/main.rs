//! motionlab command line: the GUI by default, headless subcommands for everything else.

use anyhow::{Context, Result};
use clap::{Parser, Subcommand};
use motionlab::analysis::robustness::{RobustnessSweep, SweepConfig, SweepState};
use motionlab::control::HoldPose;
use motionlab::model::{Character, load_character};
use motionlab::scene::{is_scene_text, load_scene};
use motionlab::sim::{PdMode, RolloutSpec, SimSettings, run_rollout};
use std::path::{Path, PathBuf};

#[path = "cli/arbs.rs"]
mod arbs_cli;
#[path = "cli/bench.rs"]
mod bench_cli;
#[path = "cli/bench_gait.rs"]
mod bench_gait_cli;
#[path = "cli/cec2006.rs"]
mod cec2006_cli;
#[path = "cli/clip.rs"]
mod clip_cli;
#[path = "cli/cluster.rs"]
mod cluster_cli;
#[path = "cli/controller.rs"]
mod controller_cli;
#[path = "cli/explore.rs"]
mod explore_cli;
#[path = "cli/flags.rs"]
mod flags;
#[path = "cli/footsteps.rs"]
mod footsteps_cli;
#[path = "cli/graph.rs"]
mod graph_cli;
#[path = "cli/graph_control.rs"]
mod graph_control;
#[path = "cli/gui.rs"]
mod gui_cli;
#[path = "cli/jobs.rs"]
mod job_cli;
#[path = "cli/pareto.rs"]
mod pareto_cli;
#[path = "cli/space.rs"]
mod space_cli;
#[path = "cli/spacetime.rs"]
mod spacetime_cli;
#[path = "cli/steer.rs"]
mod steer_cli;
#[path = "cli/task.rs"]
mod task_cli;
#[path = "cli/track.rs"]
mod track_cli;

#[derive(Parser)]
#[command(
    name = "motionlab",
    version,
    about = "Workbench for physics-based character animation: simulate articulated characters, \
             search diverse motions, solve gaits, steer through motion graphs, grow Pareto fronts",
    after_help = "Example: `motionlab gui --steer assets/graphs/human3d.ron` (no command opens the \
                  app). Each command's --help shows one; the docs are in docs/."
)]
struct Cli {
    #[command(subcommand)]
    command: Option<Command>,
}

#[derive(Subcommand)]
enum Command {
    /// Open the workbench window (the default).
    #[command(after_help = "Example: `motionlab gui --steer assets/graphs/human3d.ron`")]
    Gui(gui_cli::GuiArgs),
    /// Simulate a character (or a scene) holding its reference pose and print a summary.
    #[command(after_help = "Example: `motionlab simulate characters/human3d.ron --seconds 5`")]
    Simulate {
        /// A character file, or a scene file (its ground, PD mode, pushes and duration apply).
        file: PathBuf,
        /// Simulated seconds, at most 600 (default: 10, or the scene's duration).
        #[arg(long, value_parser = flags::seconds)]
        seconds: Option<f32>,
        /// Multiplies every PD gain, 0 to 100 (0 switches actuation off).
        #[arg(long, default_value_t = 1.0, value_parser = flags::gain_scale)]
        gain_scale: f32,
        /// PD mode: implicit motors at 120 Hz, explicit torques at 4 kHz, or stable PD at 120 Hz.
        #[arg(long, value_enum)]
        pd: Option<PdArg>,
        /// Time step in seconds, at most 0.05 (default: 1/120 implicit and stable, 1/4000 explicit).
        #[arg(long, value_parser = flags::time_step)]
        dt: Option<f32>,
        /// Ground friction, 0 to 10 (default 0.8, or the scene's).
        #[arg(long, value_parser = flags::friction)]
        friction: Option<f32>,
        /// Ground restitution, 0 to 1 (default 0, or the scene's).
        #[arg(long, value_parser = flags::restitution)]
        restitution: Option<f32>,
        /// Write the recorded motion (every step) as a clip (RON; `motionlab clip info`).
        #[arg(long)]
        out: Option<PathBuf>,
    },
    /// Push the standing character in 8 directions and report the largest impulse it survives.
    #[command(
        after_help = "Example: `motionlab robustness characters/human2d.ron --out results/robustness`"
    )]
    Robustness {
        file: PathBuf,
        /// Folder for the checkpoint and result (default: results/robustness-<character>).
        #[arg(long)]
        out: Option<PathBuf>,
        /// Continue from the checkpoint in --out.
        #[arg(long)]
        resume: bool,
        #[arg(long, default_value_t = 0, value_parser = flags::threads)]
        threads: usize,
    },
    /// Build a task's seed controller: minimize its constraint penalty C alone and print the
    /// parameters for the scene's `seed:` field.
    #[command(after_help = "Example: `motionlab prepare scenes/jump_high2d.ron`")]
    Prepare {
        scene: PathBuf,
        #[arg(long, default_value_t = 200, value_parser = flags::generations)]
        generations: u64,
        #[arg(long, default_value_t = 1)]
        seed: u64,
        #[arg(long, default_value_t = 0, value_parser = flags::threads)]
        threads: usize,
        /// Raise the first obstacle's height FROM:TO in STEPS stages (e.g. 0:0.5:5).
        #[arg(long)]
        continuation: Option<String>,
        /// Extra seconds the character must keep standing while preparing (a margin).
        #[arg(long, default_value_t = 0.3, value_parser = flags::hold)]
        hold: f32,
        /// N:S — minimize C averaged over the point and N fixed perturbations of normalized
        /// scale S (e.g. 4:0.03), so the seed has room around it.
        #[arg(long)]
        robust: Option<String>,
    },
    /// Print a task's seed controller with its `seed:` parameters baked in (as RON for the
    /// scene's `controller:` field), so that a prepared seed becomes the new origin of the
    /// parameter box.
    #[command(after_help = "Example: `motionlab bake scenes/jump_high2d.ron`")]
    Bake { scene: PathBuf },
    /// Search for N diverse variants of a task's motion (round-robin CMA-ES, Agrawal, Shen & van de Panne 2014).
    #[command(
        after_help = "Example: `motionlab explore scenes/jump_high2d.ron --variants 4 --out results/jump_high`"
    )]
    Explore(explore_cli::ExploreArgs),
    /// Re-simulate one motion of an exploration result (or a tracking search's chain) and check
    /// its trajectory hash.
    #[command(
        after_help = "Example: `motionlab replay results/jump_high/result.ron --variant 1 --out results/jump_high_1.ron`"
    )]
    Replay {
        result: PathBuf,
        /// 0 is the input motion, 1..N the variants.
        #[arg(long, default_value_t = 1, value_parser = flags::variant_index)]
        variant: usize,
        /// Write the replayed rollout as a clip (a shape variant's body is written beside it
        /// as CLIP.character.ron).
        #[arg(long)]
        out: Option<PathBuf>,
    },
    /// Summarize exploration results: D over runs, and the motion and shape distance of every
    /// variant to the input (mean and standard deviation).
    #[command(after_help = "Example: `motionlab summarize results/jump_high/result.ron`")]
    Summarize { results: Vec<PathBuf> },
    /// Motion graphs (McIntosh 2011; Kovar et al. 2002): build one from clips, or describe one.
    #[command(after_help = "Example: `motionlab graph info assets/graphs/human3d.ron`")]
    Graph {
        #[command(subcommand)]
        command: graph_cli::GraphCommand,
    },
    /// Controllers that build themselves (Wampler 2012, ch. 5): grow a motion graph for a task
    /// one physically valid clip at a time.
    #[command(
        after_help = "Example: `motionlab controller synthesize characters/simple_biped.ron --task assets/controllers/biped_direction.ron --out /tmp/biped.graph.ron`"
    )]
    Controller {
        #[command(subcommand)]
        command: controller_cli::ControllerCommand,
    },
    /// Footstep planning into tasks (Agrawal 2016, ch. 5): exit, walk and enter steps.
    #[command(after_help = "Example: `motionlab footsteps plan assets/tasks/demo.ron`")]
    Footsteps {
        #[command(subcommand)]
        command: footsteps_cli::FootstepsCommand,
    },
    /// Steer a character through a motion graph with a scripted stick timeline; prints heading
    /// error, speed error, foot slide and transitions per second. Example:
    /// `motionlab steer assets/graphs/human3d.ron --script tests/data/steer_north_east.ron`
    Steer(steer_cli::SteerArgs),
    /// Parameter spaces of gaits (McIntosh 2011): list a space's points, or solve them all.
    #[command(after_help = "Example: `motionlab space points spaces/human3d_locomotion.ron`")]
    Space {
        #[command(subcommand)]
        command: space_cli::SpaceCommand,
    },
    /// Validate a character or scene file; exits non-zero with file, line and field on error.
    #[command(after_help = "Example: `motionlab check characters/human3d.ron`")]
    Check { file: PathBuf },
    /// Solve a spacetime problem as a sparse NLP with IPOPT (McIntosh 2011).
    #[command(after_help = "Example: `motionlab spacetime particle`")]
    Spacetime {
        #[command(subcommand)]
        problem: SpacetimeCommand,
    },
    /// Clips: `clip import FILE.bvh|GAIT.ron --out CLIP.ron`, `clip export CLIP.ron --out
    /// FILE.bvh`, `clip info CLIP.ron`.
    #[command(
        after_help = "Example: `motionlab clip info assets/spaces/human3d_locomotion/clips/gait=walk1.0_turn=0.ron`"
    )]
    Clip {
        #[command(subcommand)]
        command: clip_cli::ClipCommand,
    },
    /// A simulated character from a skinned skeleton (`.gltf`, `.glb`, `.bvh`; the automatic
    /// ARBS of Borer, Guay & Sumner 2018), with `--clip` one of its animations transferred onto it
    /// by full-body IK (their §3). Prints bodies, joints, DOF, mass and the transfer's errors.
    #[command(
        after_help = "Example: `motionlab arbs assets/third_party/rigged_figure/RiggedFigure.gltf --out results/figure.ron`"
    )]
    Arbs(arbs_cli::ArbsArgs),
    /// Solve a cyclic "treadmill" gait with fixed contact timings (Wampler 2012) for a
    /// character file; prints the timings, cost and violations, writes the clip as RON.
    #[command(
        after_help = "Example: `motionlab gait characters/simple_biped.ron --speed 0.7 --out results/biped_walk.ron`"
    )]
    Gait(spacetime_cli::GaitArgs),
    /// Grow a Pareto front of jump height against effort (Agrawal 2015): RMOO, BSOO or
    /// MO-CMA-ES over a scene's jump; prints the front and its hypervolume.
    #[command(
        after_help = "Example: `motionlab pareto scenes/pareto_jump2d.ron --method rmoo --out results/pareto`"
    )]
    Pareto(pareto_cli::ParetoArgs),
    /// Make an animation simulated motion: the character tracks it with PD controllers whose
    /// targets are offset by wide-band stochastic trajectory optimization (Borer, Guay & Sumner
    /// 2018), window by window; prints one line per window and the tracking errors, writes the
    /// simulated clip, its controls and the samples.
    #[command(
        after_help = "Example: `motionlab track assets/keyframes/human3d_hanging_jump.keys.ron --character characters/human3d.ron --out results/hang-jump --keep 20`"
    )]
    Track(track_cli::TrackArgs),
    /// Run the gait job of a request (RON `GaitRequest`), writing typed events (RON, one per
    /// line) on standard output: what the Gait panel and a discovery's sample processes run.
    #[command(hide = true)]
    #[command(
        after_help = "Example: `motionlab gait-job REQUEST.ron` (a file holding the request, or the request itself)"
    )]
    GaitJob {
        /// The request, in RON, or a file holding it.
        request: String,
    },
    /// Measure simulation speed for each built-in character, or `bench cma`, `diversity`,
    /// `cec2006`, `gait`, `impulse`, `steering`, `pareto`, `track`, `footsteps` or `cluster`.
    #[command(after_help = "Example: `motionlab bench steering --quick`")]
    Bench {
        /// What to measure: `sim` (default), `cma`, or `diversity` (4 variants × 500 generations
        /// of backflip2d on all cores; `--quick`: 5 generations) or `cec2006` (basin-CMA on the
        /// 24 CEC 2006 constrained problems; `--quick`: a smaller budget) or `gait` (single
        /// fixed-contact solves of the simple biped and the horse; `--quick`: 100 iterations) or
        /// `impulse` (human3d built from impulse joints instead of the multibody, standing 10 s:
        /// steps/s, foot drift, joint gap; `--quick`: 2 s) or `steering` (the steering
        /// controller's time per step on assets/graphs/human3d.ron, and the graph's build time;
        /// with `--physics`, physics playback's compute per simulated second)
        /// or `pareto` (RMOO against BSOO on scenes/pareto_jump2d.ron, 3 seeds × 12,000
        /// rollouts: hypervolume and rollouts to 90 % of the best; `--quick`: 1 seed × 300) or
        /// `track` (one window of the human's tracking search at the paper's settings: rollouts
        /// per second and core-hours per second of motion; `--quick`: a tiny window) or
        /// `footsteps` (one task's footstep plan over 100 random sequences of five tasks: median
        /// and 90th percentile, ms; `--quick`: 10 sequences) or
        /// `cluster` (the cost model of explore, pareto and track over MPI ranks: each measured
        /// on one core, predicted on 2, 8, 32 and 120 ranks, and measured under `mpirun -np 2`;
        /// `--quick`: a few generations).
        #[arg(default_value = "sim")]
        what: String,
        /// Shorter measurement (for smoke tests).
        #[arg(long)]
        quick: bool,
        /// Folder of the built-in characters.
        #[arg(long, default_value = "characters")]
        characters: PathBuf,
        /// Random seed (`bench cec2006`; the first seed of `bench pareto`).
        #[arg(long, default_value_t = 1)]
        seed: u64,
        /// `bench steering`: physics playback instead, the compute per simulated second on one
        /// core (decision included) on a full-stick walk.
        #[arg(long)]
        physics: bool,
        /// `bench gait`: only this NLP solver (`ipopt`, `ripopt`); default every one built in.
        #[arg(long)]
        solver: Option<motionlab::nlp::Backend>,
        /// `bench gait`: solve each case from this many seeded starts, one after the other,
        /// and print their spread (lowest, median and highest cost, median time).
        #[arg(long, default_value_t = 1, value_parser = flags::starts)]
        starts: usize,
        /// `bench gait`: the joint torques as variables (`variables`, solved with the exact
        /// Hessian from the rest pose on) or computed inside the effort (`computed`, the default
        /// staged solve).
        #[arg(long, value_enum, default_value_t = motionlab::spacetime::gait::Torques::Computed)]
        torques: motionlab::spacetime::gait::Torques,
        /// `bench gait`: time `motionlab gait`'s default pipeline instead (the character file's
        /// solve settings, its starts side by side in their own processes) for seeds 0 to N − 1,
        /// one line per seed, then the spread of the kept costs over the seeds.
        #[arg(long, value_name = "N", value_parser = clap::value_parser!(u32).range(1..=1000))]
        seeds: Option<u32>,
        /// `bench gait --seeds`: only the case of this character (`simple_biped` or `horse`).
        #[arg(long, value_name = "NAME", requires = "seeds")]
        case: Option<String>,
        /// `bench footsteps`: plan with this template file's templates too (see `footsteps
        /// templates`).
        #[arg(long)]
        templates: Option<PathBuf>,
        /// `bench cluster` run by itself under `mpirun -np 2`: where rank 0 writes its
        /// measurements.
        #[arg(long, hide = true)]
        report: Option<PathBuf>,
        #[command(flatten)]
        cluster: job_cli::MpiArgs,
    },
}

#[derive(Subcommand)]
enum SpacetimeCommand {
    /// The Spacetime Particle (McIntosh 2011, Table 3.1): prints status, objective,
    /// iterations, max violation; exits non-zero unless solved.
    #[command(after_help = "Example: `motionlab spacetime particle --bound-force 30`")]
    Particle {
        /// Enforce |Q| <= N on every force component (Table 3.1's Q_max = 30 N is infeasible).
        #[arg(long, value_name = "N", value_parser = flags::force_bound)]
        bound_force: Option<f64>,
        /// IPOPT's L-BFGS approximation instead of the exact Hessian.
        #[arg(long)]
        lbfgs: bool,
        /// IPOPT's print level (0 silent, 5 the iteration log).
        #[arg(long, default_value_t = 0, value_parser = flags::print_level)]
        print_level: i32,
        /// Also print `frame f q_x q_y Q_x Q_y` for every frame.
        #[arg(long)]
        trajectory: bool,
        /// Solve N times in this process and report the median solve time (the first solve
        /// also pays for loading the solver's libraries), as benchmarks that time warm solves do.
        #[arg(long, value_name = "N", default_value_t = 1, value_parser = clap::value_parser!(u32).range(1..=10000))]
        repeat: u32,
        /// The NLP solver: `ipopt` or `ripopt`; default the faster one on small problems
        /// (ripopt when built in).
        #[arg(long)]
        solver: Option<motionlab::nlp::Backend>,
    },
}

#[derive(Clone, Copy, clap::ValueEnum)]
enum PdArg {
    Implicit,
    Explicit,
    Stable,
}

fn main() {
    // Before any thread starts: IPOPT's BLAS kernels are chosen when the library loads, and
    // child processes inherit the choice (see `blas`).
    #[cfg(feature = "ipopt")]
    motionlab::blas::pin_kernels_in_process();
    // Output piped into `head` and closed early ends the program quietly, as in other command
    // line tools, instead of a panic on the broken pipe.
    #[cfg(unix)]
    // SAFETY: restoring the default disposition of SIGPIPE before any thread starts.
    unsafe {
        libc::signal(libc::SIGPIPE, libc::SIG_DFL);
    }
    let cli = Cli::parse();
    let result = match cli.command {
        None => gui_cli::gui(gui_cli::GuiArgs::default()),
        Some(Command::Gui(args)) => gui_cli::gui(args),
        Some(Command::Simulate {
            file,
            seconds,
            gain_scale,
            pd,
            dt,
            friction,
            restitution,
            out,
        }) => simulate(
            &file,
            seconds,
            gain_scale,
            pd,
            dt,
            friction,
            restitution,
            out.as_deref(),
        ),
        Some(Command::Robustness {
            file,
            out,
            resume,
            threads,
        }) => robustness(&file, out, resume, threads),
        Some(Command::Check { file }) => check(&file),
        Some(Command::Explore(args)) => explore_cli::run(args),
        Some(Command::Bake { scene }) => task_cli::bake(&scene),
        Some(Command::Replay {
            result,
            variant,
            out,
        }) => match motionlab::files::read_ron::<motionlab::track::TrackResult>(&result) {
            Ok(r) => track_cli::replay(&r),
            Err(_) => task_cli::replay(&result, variant, out.as_deref()),
        },
        Some(Command::Summarize { results }) => task_cli::summarize(&results),
        Some(Command::Prepare {
            scene,
            generations,
            seed,
            threads,
            continuation,
            hold,
            robust,
        }) => (|| -> Result<()> {
            let robust = match robust {
                None => None,
                Some(r) => {
                    let bad = || anyhow::anyhow!("--robust expects N:S (e.g. 4:0.03), found {r:?}");
                    let (n, sc) = r.split_once(':').ok_or_else(bad)?;
                    Some((
                        n.parse().map_err(|_| bad())?,
                        sc.parse().map_err(|_| bad())?,
                    ))
                }
            };
            let cont = match continuation {
                None => None,
                Some(c) => {
                    let parts: Vec<&str> = c.split(':').collect();
                    let bad = || {
                        anyhow::anyhow!(
                            "--continuation expects FROM:TO:STEPS (e.g. 0:0.5:5), found {c:?}"
                        )
                    };
                    if parts.len() != 3 {
                        return Err(bad());
                    }
                    Some((
                        parts[0].parse().map_err(|_| bad())?,
                        parts[1].parse().map_err(|_| bad())?,
                        parts[2].parse().map_err(|_| bad())?,
                    ))
                }
            };
            task_cli::prepare(&scene, generations, seed, threads, cont, hold, robust)
        })(),
        Some(Command::Spacetime {
            problem:
                SpacetimeCommand::Particle {
                    bound_force,
                    lbfgs,
                    print_level,
                    trajectory,
                    repeat,
                    solver,
                },
        }) => spacetime_cli::particle(spacetime_cli::ParticleArgs {
            bound_force,
            lbfgs,
            print_level,
            trajectory,
            repeat: repeat as usize,
            solver: solver.unwrap_or_else(motionlab::nlp::Backend::for_small_problems),
        }),
        Some(Command::Gait(args)) => spacetime_cli::gait(args),
        Some(Command::Pareto(args)) => pareto_cli::run(args),
        Some(Command::Track(args)) => track_cli::run(args),
        Some(Command::GaitJob { request }) => spacetime_cli::gait_job(&request),
        Some(Command::Clip { command }) => clip_cli::run(command),
        Some(Command::Arbs(args)) => arbs_cli::run(args),
        Some(Command::Space { command }) => space_cli::run(command),
        Some(Command::Graph { command }) => graph_cli::run(command),
        Some(Command::Footsteps { command }) => footsteps_cli::run(command),
        Some(Command::Controller { command }) => controller_cli::run(command),
        Some(Command::Steer(args)) => steer_cli::run(args),
        Some(Command::Bench {
            what,
            quick,
            characters,
            seed,
            physics,
            solver,
            starts,
            torques,
            seeds,
            case,
            templates,
            report,
            cluster,
        }) => match what.as_str() {
            other if templates.is_some() && other != "footsteps" => Err(anyhow::anyhow!(
                "--templates is a choice of `bench footsteps`, not of `bench {other}`"
            )),
            other if physics && other != "steering" => Err(anyhow::anyhow!(
                "--physics is a choice of `bench steering`, not of `bench {other}`"
            )),
            other
                if (solver.is_some()
                    || starts > 1
                    || torques != motionlab::spacetime::gait::Torques::Computed
                    || seeds.is_some())
                    && other != "gait" =>
            {
                Err(anyhow::anyhow!(
                    "--solver, --starts, --torques and --seeds are choices of `bench gait`, not of `bench {other}`"
                ))
            }
            "gait"
                if seeds.is_some()
                    && (starts > 1 || torques != motionlab::spacetime::gait::Torques::Computed) =>
            {
                Err(anyhow::anyhow!(
                    "--seeds times the character files' own solve settings; --starts and --torques are for the single solves of `bench gait` without it"
                ))
            }
            "gait" if seeds.is_some() => bench_gait_cli::bench_gait_seeds(
                quick,
                &characters,
                solver,
                seeds.map_or(1, |n| n as usize),
                case.as_deref(),
                0,
            ),
            "sim" => bench_cli::bench(quick, &characters),
            "cma" => bench_cli::bench_cma(quick),
            "diversity" => {
                if quick {
                    task_cli::bench_diversity(Path::new("scenes/backflip2d.ron"), 4, 5)
                } else {
                    task_cli::bench_diversity(Path::new("scenes/backflip2d.ron"), 4, 500)
                }
            }
            "cec2006" => cec2006_cli::bench_cec2006(quick, seed),
            "gait" => bench_gait_cli::bench_gait(quick, &characters, solver, starts, torques),
            "impulse" => bench_cli::bench_impulse(quick, &characters),
            "steering" if physics => graph_cli::bench_steering_physics(quick),
            "steering" => graph_cli::bench_steering(quick, None),
            "pareto" => pareto_cli::bench_pareto(quick, seed),
            "track" => track_cli::bench(quick),
            "footsteps" => footsteps_cli::bench(quick, seed, templates),
            "cluster" => cluster
                .start()
                .and_then(|(ranks, _session)| cluster_cli::bench(quick, ranks, report)),
            other => Err(anyhow::anyhow!(
                "unknown benchmark {other:?}: expected sim, cma, diversity, cec2006, gait, impulse, steering, pareto, track, footsteps or cluster"
            )),
        },
    };
    if let Err(e) = result {
        eprintln!("error: {e:#}");
        std::process::exit(1);
    }
}

fn load(file: &Path) -> Result<Character> {
    Ok(load_character(file)?)
}

#[allow(clippy::too_many_arguments)]
fn simulate(
    file: &Path,
    seconds: Option<f32>,
    gain_scale: f32,
    pd: Option<PdArg>,
    dt: Option<f32>,
    friction: Option<f32>,
    restitution: Option<f32>,
    out: Option<&Path>,
) -> Result<()> {
    let text = motionlab::model::read_text(file)?;
    if is_scene_text(&text) && load_scene(file)?.scene.task.is_some() {
        return task_cli::simulate_task(file, out.is_some());
    }
    let (character, character_path, mut settings, pushes, scene_seconds) = if is_scene_text(&text) {
        let s = load_scene(file)?;
        (
            s.character.clone(),
            s.character_path.clone(),
            s.settings(),
            s.pushes(),
            Some(s.scene.seconds),
        )
    } else {
        (
            load(file)?,
            file.to_path_buf(),
            SimSettings::default(),
            Vec::new(),
            None,
        )
    };
    if let Some(pd) = pd {
        let mode = match pd {
            PdArg::Implicit => PdMode::Implicit,
            PdArg::Explicit => PdMode::Explicit,
            PdArg::Stable => PdMode::Stable,
        };
        settings = SimSettings {
            ground: settings.ground,
            ..SimSettings::for_mode(mode)
        };
    }
    if let Some(dt) = dt {
        settings.dt = dt;
    }
    settings.gain_scale = gain_scale;
    if let Some(f) = friction {
        settings.ground.friction = f;
    }
    if let Some(r) = restitution {
        settings.ground.restitution = r;
    }
    let seconds = seconds.or(scene_seconds).unwrap_or(10.0);
    let spec = RolloutSpec {
        record: out.is_some(),
        pushes,
        ..RolloutSpec::seconds(seconds)
    };
    let r = run_rollout(&character, settings, &mut HoldPose::reference(), &spec)?;
    println!("character: {}", character.name);
    println!(
        "pd: {:?}, dt: {:.6} s, gain_scale: {gain_scale}",
        settings.pd, settings.dt
    );
    println!("simulated: {:.3} s ({} steps)", r.seconds, r.steps);
    println!("fell: {}", r.fell);
    if let Some(t) = r.fell_at {
        println!("fell_at: {t:.3} s");
    }
    if let Some(f) = &r.failure {
        println!("failure: {f}");
    }
    println!("final_com_height: {:.4} m", r.final_com[1]);
    println!("hash: {}", r.hash_hex());
    if let Some(out) = out {
        let character_text = motionlab::model::read_text(&character_path)?;
        let clip = motionlab::clip::from_recording(
            &character,
            motionlab::clip::CharacterRef::new(&character_path, &character_text),
            settings.dt,
            &r.frames,
            "simulation",
        );
        clip.save(out)
            .with_context(|| format!("writing {}", out.display()))?;
        println!("trajectory: {}", out.display());
    }
    Ok(())
}

fn robustness(file: &Path, out: Option<PathBuf>, resume: bool, threads: usize) -> Result<()> {
    let character = load(file)?;
    let folder = out
        .unwrap_or_else(|| PathBuf::from("results").join(format!("robustness-{}", character.name)));
    let path = job_cli::start_or_resume(
        folder,
        resume,
        threads,
        "robustness sweep",
        |text| Ok(RobustnessSweep::from_checkpoint(text)?),
        || {
            Ok(RobustnessSweep::new(
                character,
                SimSettings::default(),
                SweepConfig::default(),
            )?)
        },
    )?;
    let state: SweepState = motionlab::files::from_ron(&std::fs::read_to_string(&path)?)?;
    println!(
        "character: {} (pushed body: {})",
        state.character.name, state.pushed_body
    );
    for b in &state.bounds {
        let fell = b
            .fell
            .map(|f| format!("{f:.1}"))
            .unwrap_or_else(|| "none".into());
        println!(
            "direction {:<14} ({:+.2}, {:+.2}, {:+.2}) max_survived {:>7.1} N*s  first_fall {:>7} N*s  trials {}",
            b.label, b.direction[0], b.direction[1], b.direction[2], b.survived, fell, b.trials
        );
    }
    println!("result: {}", path.display());
    Ok(())
}

fn check(file: &Path) -> Result<()> {
    let text = motionlab::model::read_text(file)?;
    if is_scene_text(&text) {
        let s = load_scene(file)?;
        println!(
            "ok: {} (scene {}): character {} ({}), {:.1} s, {} pushes, {:?} PD",
            file.display(),
            s.scene.name,
            s.character.name,
            s.character_path.display(),
            s.scene.seconds,
            s.scene.pushes.len(),
            s.scene.pd
        );
        if s.scene.task.is_some() {
            let t = s.task(false)?;
            println!(
                "task: {} phases, {} free parameters, {} constraints, metric {:?}",
                t.def.controller.phases.len(),
                t.dimension(),
                t.def.constraints.len(),
                t.def.metric
            );
        }
        return Ok(());
    }
    let c = load(file)?;
    println!(
        "ok: {} ({}): {} bodies, {} joints, {} internal DOF, {:.2} kg, {:.3} m tall",
        file.display(),
        c.name,
        c.bodies.len(),
        c.joints.len(),
        c.internal_dof(),
        c.total_mass(),
        c.height()
    );
    Ok(())
}
