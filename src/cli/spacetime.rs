//! `motionlab spacetime …`: spacetime problems solved as sparse NLPs (McIntosh 2011, thesis §3.2).

/// A line of the human-readable report: on standard output, or on standard error when standard
/// output carries the typed events of `--events`.
#[cfg(feature = "ipopt")]
macro_rules! say {
    ($events:expr, $($t:tt)*) => {
        if $events { eprintln!($($t)*) } else { println!($($t)*) }
    };
}

use anyhow::Result;
use std::path::PathBuf;

/// Options of `spacetime particle`.
#[cfg_attr(not(feature = "ipopt"), allow(dead_code))]
pub struct ParticleArgs {
    pub bound_force: Option<f64>,
    pub lbfgs: bool,
    pub print_level: i32,
    pub trajectory: bool,
    /// Solves in this process; the reported time is their median.
    pub repeat: usize,
    pub solver: motionlab::nlp::Backend,
}

/// Solves the Spacetime Particle (Table 3.1) and prints `key value` lines: status, objective,
/// iterations, max_violation, dynamics_residual, solve_time_ms (and with `trajectory` one
/// `frame f q_x q_y Q_x Q_y` line per frame). Fails (non-zero exit) unless the solve succeeded.
#[cfg(feature = "ipopt")]
pub fn particle(args: ParticleArgs) -> Result<()> {
    use motionlab::spacetime::{HessianMode, ParticleSpec, SolverOptions, solve_particle};
    if let Some(b) = args.bound_force {
        anyhow::ensure!(
            b.is_finite() && b >= 0.0,
            "--bound-force expects a force in N, >= 0; found {b}"
        );
    }
    let spec = ParticleSpec::table_3_1().with_force_bound(args.bound_force);
    let options = SolverOptions {
        hessian: if args.lbfgs {
            HessianMode::LimitedMemory
        } else {
            HessianMode::Exact
        },
        print_level: args.print_level,
        backend: args.solver,
        ..Default::default()
    };
    let mut times = Vec::with_capacity(args.repeat);
    let mut s = solve_particle(&spec, &options)?;
    times.push(s.solve_time);
    for _ in 1..args.repeat {
        s = solve_particle(&spec, &options)?;
        times.push(s.solve_time);
    }
    let first = times[0];
    times.sort();
    let median = times[times.len() / 2];
    println!(
        "problem spacetime_particle solver {} frames {} variables {} force_bound {}",
        args.solver.label(),
        spec.frames,
        2 * spec.frames * 2,
        args.bound_force
            .map(|b| format!("{b} N"))
            .unwrap_or_else(|| "none".into())
    );
    println!("status {}", s.status);
    println!("objective {:.4}", s.objective);
    println!("iterations {}", s.iterations);
    println!("max_violation {:.3e}", s.max_violation);
    println!("dynamics_residual {:.3e}", s.dynamics_residual);
    println!("solve_time_ms {:.3}", median.as_secs_f64() * 1e3);
    if args.repeat > 1 {
        println!(
            "solves {} first_ms {:.3} min_ms {:.3} max_ms {:.3}",
            args.repeat,
            first.as_secs_f64() * 1e3,
            times[0].as_secs_f64() * 1e3,
            times[times.len() - 1].as_secs_f64() * 1e3
        );
    }
    if args.trajectory {
        for (f, (q, force)) in s.positions.iter().zip(&s.forces).enumerate() {
            println!(
                "frame {f} {:.6} {:.6} {:.4} {:.4}",
                q[0], q[1], force[0], force[1]
            );
        }
    }
    anyhow::ensure!(
        s.status.is_success(),
        "the spacetime particle was not solved: {}",
        s.status
    );
    Ok(())
}

#[cfg(not(feature = "ipopt"))]
pub fn particle(_args: ParticleArgs) -> Result<()> {
    anyhow::bail!("this build has no NLP solver (built without the `ipopt` feature)")
}

pub use motionlab::spacetime::job::GaitHessian;

/// Options of `gait`.
#[derive(clap::Args)]
#[cfg_attr(not(feature = "ipopt"), allow(dead_code))]
pub struct GaitArgs {
    /// Character file with a free root and `Foot` end effectors (characters/monoped.ron,
    /// simple_biped.ron, human3d.ron, horse.ron, …).
    pub creature: PathBuf,
    /// Gait speed V (m/s, along +x).
    #[arg(long, value_parser = crate::flags::speed)]
    pub speed: f64,
    /// Period T (s); default 0.5 for one foot, 1.0 otherwise.
    #[arg(long, value_parser = crate::flags::period)]
    pub period: Option<f64>,
    /// Contact windows `foot:start:duration,...` (fractions of the period); default: one foot
    /// hops half the cycle, otherwise foot k lands at k/n and stays down 0.6 of the cycle.
    #[arg(long)]
    pub contacts: Option<String>,
    /// Perturbs the rest-pose initialisation (0: none); with --discover it is also CMA-ES's
    /// seed (0 counts as 1, so seeds 0 and 1 discover the same gait).
    #[arg(long, default_value_t = 0)]
    pub seed: u64,
    /// Write the gait clip (RON) here, atomically. A discovery with --samples-dir writes it to
    /// `discovered.ron` in that folder when this is not given.
    #[arg(long)]
    pub out: Option<PathBuf>,
    /// Discover the timings by basin-CMA (Wampler 2012): CMA-ES over the period and
    /// each foot's start and duration, every sample projected by a capped gait solve (run
    /// as parallel processes); the best timing is then solved with --max-iterations.
    #[arg(long)]
    pub discover: bool,
    /// Discovery: CMA-ES generations.
    #[arg(long, default_value_t = 8, value_parser = crate::flags::discovery_generations)]
    pub generations: usize,
    /// Discovery: samples per generation (default 4 + ⌊3 ln n⌋, n = 2 × feet).
    #[arg(long, value_parser = crate::flags::population)]
    pub population: Option<usize>,
    /// Discovery: IPOPT iteration limit of each sample's projection (the default solve: the
    /// first --lbfgs-iterations with L-BFGS, the rest with the exact Hessian). Default: the
    /// character file's `gait: (sample_iterations: …)`, else 600.
    #[arg(long, value_parser = crate::flags::iterations)]
    pub sample_iterations: Option<usize>,
    /// Discovery: parallel solver processes (0: one per core).
    #[arg(long, default_value_t = 0, value_parser = crate::flags::threads)]
    pub threads: usize,
    /// Discovery: keep every sample's clip in this directory. A rerun with the same directory
    /// reuses the clips of the samples it has already solved (same build of this program,
    /// character file, speed, timing and solver options), so an interrupted discovery resumes
    /// where it stopped.
    #[arg(long, requires = "discover")]
    pub samples_dir: Option<PathBuf>,
    /// Discovery: the periods searched, `SHORTEST:LONGEST` in seconds (default 0.25:1.5).
    /// Narrowing it restricts the search to a subspace of timings (Wampler 2012).
    #[arg(long, value_parser = parse_period_range, requires = "discover")]
    pub period_range: Option<(f64, f64)>,
    /// IPOPT's print level (0 silent, 5 the iteration log).
    #[arg(long, default_value_t = 0, value_parser = crate::flags::print_level)]
    pub print_level: i32,
    /// With --discover under `mpirun -np N`: every generation's samples are spread over the
    /// ranks (each solving its share, --threads at a time) and every sample's clip reaches every
    /// rank; rank 0 prints and writes --out; the same gait as one process.
    #[command(flatten)]
    pub cluster: crate::job_cli::MpiArgs,
    /// Write typed progress on standard output, one RON `GaitEvent` per line (iterations,
    /// stages, discovery samples and generations, the end), for a program that watches the
    /// solve; the human-readable report then goes to standard error.
    #[arg(long)]
    pub events: bool,
    /// IPOPT iteration limit of the gait solve, both stages together (a solve stopped by it is
    /// projected onto the constraints).
    #[arg(long, default_value_t = 3000, value_parser = crate::flags::iterations)]
    pub max_iterations: usize,
    /// Second derivatives given to IPOPT: `lbfgs-then-exact` (L-BFGS for
    /// --lbfgs-iterations, then the exact Hessian from the clip reached, to the tolerance or
    /// the iteration limit), `lbfgs` (IPOPT's limited-memory approximation throughout), `exact`
    /// (reverse-mode second-order adjoints from the rest pose on), `gauss-newton` (the
    /// least-squares objective's Gauss–Newton part plus the exact constraint curvature),
    /// `gauss-newton-objective` (without the constraint curvature) or `gauss-newton-then-exact`
    /// (as `lbfgs-then-exact` with a Gauss–Newton first stage; experimental).
    /// Default: `exact` with `--torques variables`, else `lbfgs-then-exact`.
    #[arg(long, value_enum)]
    pub hessian: Option<GaitHessian>,
    /// `--hessian lbfgs-then-exact` (or `gauss-newton-then-exact`): the first stage's iterations
    /// before the exact Hessian takes over.
    /// Default: the character file's `gait: (lbfgs_iterations: …)`, else 300.
    #[arg(long, value_parser = crate::flags::lbfgs_iterations)]
    pub lbfgs_iterations: Option<usize>,
    /// Extra IPOPT option `name=value` (repeatable), e.g. `--ipopt limited_memory_max_history=20`.
    #[arg(long)]
    pub ipopt: Vec<String>,
    /// Co-optimise the body (Wampler 2012): a length and a radius scale per left–right
    /// pair of leg limbs (torso, neck and head fixed; mass at constant density), with the
    /// muscle-aware effort (3.26)–(3.33), σ_max = 50 N/cm².
    #[arg(long)]
    pub morphology: bool,
    /// Morphology without the muscle terms (plain torque effort 3.14): shows why they are
    /// needed (the legs grow long and slender).
    #[arg(long, requires = "morphology")]
    pub no_muscle: bool,
    /// Morphology: keep the head point at least this high (m) in every frame; the neck becomes
    /// variable too.
    #[arg(long, requires = "morphology", value_parser = crate::flags::height)]
    pub min_head_height: Option<f64>,
    /// Start from this clip (of the same creature) instead of the rest pose: refines a capped
    /// solve, or re-solves it with another timing. A discovery's final solve starts from its
    /// best sample's clip by itself.
    #[arg(long)]
    pub init: Option<PathBuf>,
    /// Solve a transformed cycle (McIntosh 2011) turning at this many degrees per second
    /// (positive: left; 0: straight) with the feet fixed in the world, instead of the
    /// treadmill cycle.
    #[arg(long, value_parser = crate::flags::turn_rate, allow_hyphen_values = true)]
    pub turn_rate: Option<f64>,
    /// Travel at this many degrees to the left of the heading (negative: right; 90: sideways),
    /// the strafe angle of Wampler's cyclic template. Needs --turn-rate (0 for straight).
    #[arg(long, value_parser = crate::flags::strafe, allow_hyphen_values = true, requires = "turn_rate")]
    pub strafe: Option<f64>,
    /// Keep the head under this height (m) in every frame: a crouching gait.
    #[arg(long, value_parser = crate::flags::height)]
    pub ceiling: Option<f64>,
    /// Feet in contact are flat (their up axis vertical), for feet with soles.
    #[arg(long)]
    pub flat_feet: bool,
    /// Feet in the air keep the corners of their soles above the ground (box feet; the gait
    /// NLP's feet are points, which otherwise graze the ground and tip their toes under it).
    #[arg(long)]
    pub sole_clearance: bool,
    /// Feet in the air lift their soles' corners at least this high (m) half way through their
    /// time in the air, along a half sine from lift-off to touch-down (implies
    /// --sole-clearance): the NLP's optimum otherwise swings a straight leg with its sole
    /// skimming the ground, which a simulated body scuffs
    #[arg(long, value_name = "METRES")]
    pub swing_clearance: Option<f64>,
    /// The NLP solver: `ipopt` or `ripopt`.
    #[arg(long, default_value = "ipopt")]
    pub solver: motionlab::nlp::Backend,
    /// The joint torques of the effort term: `computed` inside it by inverse dynamics (the
    /// thesis's form), or `variables`, one per joint coordinate and frame defined by equality
    /// rows (the same optimum; solved with the exact Hessian from the rest pose unless --hessian
    /// says otherwise, the simple biped's walk in about a third of the time, see docs/gaits.md).
    /// Without --morphology only. Default: the character file's `gait: (torques: …)` for a solve
    /// from the rest pose and a discovery's samples (not --init or --morphology), else
    /// `computed`.
    #[arg(long, value_enum)]
    pub torques: Option<motionlab::spacetime::gait::Torques>,
    /// Solve from this many starts side by side (--threads at a time, or spread over the ranks
    /// with --mpi) and keep the best valid clip. Start 0 is --seed's own solve, start 1 the same
    /// perturbed rest pose with the other barrier (see --barrier), then the next seed's pair, and
    /// so on (unless --ipopt names mu_strategy). A solve from a clip (--init, a discovery's best
    /// sample) is one start. Default: the character file's `gait: (starts: …)` for a solve from
    /// the rest pose, else 1.
    #[arg(long, value_parser = crate::flags::starts)]
    pub starts: Option<usize>,
    /// How the solve lowers IPOPT's barrier parameter: `adaptive` or `monotone` (with --starts,
    /// the first start's; the second takes the other). Default: the character file's
    /// `gait: (barrier: …)` for a solve from the rest pose and a discovery's samples, else
    /// `adaptive`. Not with --ipopt
    /// mu_strategy=…. A solve from a clip (--init) keeps its warm start's monotone barrier.
    #[arg(long, value_enum)]
    pub barrier: Option<motionlab::spacetime::job::starts::Barrier>,
    /// The passive springs a solve with --torques variables starts from: `slack` (none: the
    /// joints carry the weight) or `holding` (each spring holds its joint's mean torque at the
    /// start, a quarter radian from the rest pose; the horse's trot in about two thirds of the
    /// iterations, see docs/gaits.md). Default: the character file's `gait: (springs: …)` for a
    /// solve from the rest pose and a discovery's samples, else `slack`. A solve from a clip
    /// starts from its springs.
    #[arg(long, value_enum)]
    pub springs: Option<motionlab::model::StartSprings>,
    /// Solve half the cycle, its other half the mirror image with the legs swapped (`true`), or
    /// the whole cycle (`false`): half the variables, for a treadmill cycle of a symmetric
    /// creature whose feet touch down half a period after their mirror feet (`true` refuses any
    /// other timing). Default: the character file's `gait: (mirror_half: …)` for a solve from the
    /// rest pose (not a discovery), which halves only a timing that allows it, else `false`.
    #[arg(long, value_name = "BOOL")]
    pub mirror_half: Option<bool>,
}

/// `SHORTEST:LONGEST` periods in seconds (checked by `TimingSpace::with_period_range`).
fn parse_period_range(text: &str) -> Result<(f64, f64), String> {
    let expected = || format!("expected SHORTEST:LONGEST in seconds, e.g. 0.4:1.2, got `{text}`");
    let (lo, hi) = text.split_once(':').ok_or_else(expected)?;
    let lo: f64 = lo.trim().parse().map_err(|_| expected())?;
    let hi: f64 = hi.trim().parse().map_err(|_| expected())?;
    Ok((lo, hi))
}

#[cfg_attr(not(feature = "ipopt"), allow(dead_code))]
impl GaitArgs {
    /// The gait job these arguments ask for.
    fn request(&self) -> Result<motionlab::spacetime::job::GaitRequest> {
        use anyhow::Context;
        use motionlab::spacetime::OptionValue;
        use motionlab::spacetime::job::{DiscoverRequest, GaitRequest};
        let mut ipopt = Vec::new();
        for item in &self.ipopt {
            let (name, value) = item
                .split_once('=')
                .with_context(|| format!("--ipopt expects name=value, found {item:?}"))?;
            let value = if let Ok(i) = value.parse::<i32>() {
                OptionValue::Int(i)
            } else if let Ok(v) = value.parse::<f64>() {
                OptionValue::Num(v)
            } else {
                OptionValue::Str(value.to_string())
            };
            ipopt.push((name.to_string(), value));
        }
        if self.discover {
            anyhow::ensure!(
                self.contacts.is_none() && self.period.is_none(),
                "--discover searches the period and contacts itself; drop --contacts and --period"
            );
        }
        anyhow::ensure!(
            !(self.morphology
                && self.torques == Some(motionlab::spacetime::gait::Torques::Variables)),
            "--torques variables does not go with --morphology: its effort is not the torques' squares"
        );
        // The character file's own defaults for a solve from the rest pose, a discovery's
        // samples included (each is one).
        let from_rest = !(self.morphology || self.init.is_some());
        anyhow::ensure!(
            self.barrier.is_none() || motionlab::spacetime::job::starts::alternates_barrier(&ipopt),
            "--barrier and --ipopt mu_strategy=… both set the barrier; give one"
        );
        let file = if from_rest {
            motionlab::spacetime::skeleton::Skeleton::load(&self.creature)?.solve
        } else {
            Default::default()
        };
        anyhow::ensure!(
            !(self.discover && self.mirror_half == Some(true)),
            "--mirror-half true does not go with --discover: the timings it samples are not symmetric"
        );
        let chosen = motionlab::model::GaitHints {
            torques: self.torques,
            starts: self.starts,
            barrier: self.barrier,
            springs: self.springs,
            mirror_half: self.mirror_half,
            ..Default::default()
        };
        if let Some(h) = self.min_head_height {
            anyhow::ensure!(
                h.is_finite(),
                "--min-head-height: expected metres, found {h}"
            );
        }
        if let Some((lo, hi)) = self.period_range {
            // The same check the discovery makes, named by its flag.
            motionlab::spacetime::discovery::check_period_range(lo, hi)
                .map_err(|e| anyhow::anyhow!("--period-range: {e}"))?;
        }
        let request = GaitRequest {
            creature: self.creature.clone(),
            speed: self.speed,
            period: self.period,
            contacts: match &self.contacts {
                Some(text) => Some(motionlab::spacetime::gait::parse_timings(text)?),
                None => None,
            },
            seed: self.seed,
            init: self.init.clone(),
            discover: self.discover.then(|| DiscoverRequest {
                generations: self.generations,
                population: self.population,
                sample_iterations: self.sample_iterations,
                threads: self.threads,
                samples_dir: self.samples_dir.clone(),
                period_range: self.period_range,
            }),
            max_iterations: self.max_iterations,
            hessian: GaitHessian::default(),
            lbfgs_iterations: self.lbfgs_iterations,
            ipopt,
            morphology: self.morphology.then_some(
                motionlab::spacetime::morphology::MorphologyOptions {
                    muscle: !self.no_muscle,
                    min_head_height: self.min_head_height,
                },
            ),
            print_level: self.print_level,
            out: self.out.clone().or_else(|| {
                self.samples_dir
                    .as_ref()
                    .filter(|_| self.discover)
                    .map(|d| d.join("discovered.ron"))
            }),
            turn_rate: self.turn_rate.map(f64::to_radians),
            strafe: self.strafe.map_or(0.0, f64::to_radians),
            ceiling: self.ceiling,
            weights: None,
            posture_limbs: Vec::new(),
            flat_feet: self.flat_feet,
            sole_clearance: self.sole_clearance,
            swing_clearance: self.swing_clearance.unwrap_or(0.0),
            connect: None,
            solver: self.solver,
            ..GaitRequest::new(&self.creature, self.speed)
        }
        .with_solve_settings(file, chosen, self.hessian);
        use motionlab::model::StartSprings;
        anyhow::ensure!(
            !(self.springs == Some(StartSprings::Holding)
                && request.torques == motionlab::spacetime::gait::Torques::Computed),
            "--springs holding needs --torques variables: the springs are sized from the torque variables at the start"
        );
        Ok(request)
    }
}

/// The human-readable line of a gait job's event, if it has one.
#[cfg(feature = "ipopt")]
fn event_line(e: &motionlab::spacetime::job::GaitEvent) -> Option<String> {
    use motionlab::spacetime::job::GaitEvent;
    Some(match e {
        GaitEvent::Iteration { .. } | GaitEvent::Finished { .. } => return None,
        GaitEvent::Stage {
            name,
            status,
            cost,
            max_violation,
            iterations,
        } => format!(
            "stage {name} status {status} cost {cost:.6} max_violation {max_violation:.3e} iterations {iterations}"
        ),
        GaitEvent::Sample {
            generation,
            index,
            period,
            timings,
            cost,
            max_violation,
        } => {
            let outcome = match (cost, max_violation) {
                (Some(c), Some(v)) => format!("cost {c:.6} max_violation {v:.3e}"),
                _ => "failed".to_string(),
            };
            format!(
                "sample {generation} {index} period {period:.4} {outcome} contacts {}",
                contacts_text(timings)
            )
        }
        GaitEvent::Generation {
            generation,
            feasible,
            population,
            best,
        } => match best {
            Some(b) => format!(
                "generation {generation} feasible {feasible}/{population} best_cost {:.6} period {:.4} contacts {}",
                b.cost,
                b.period,
                contacts_text(&b.timings)
            ),
            None => format!("generation {generation} feasible 0/{population} best_cost none"),
        },
        GaitEvent::Start { from } => format!("start {from}"),
        GaitEvent::SamplesReused {
            reused,
            total,
            folder,
        } => format!("reused {reused}/{total} sample clips from {folder}"),
        GaitEvent::SolvingBestSampleAgain { clip } => {
            format!("solving the best sample again for its clip ({clip})")
        }
        GaitEvent::Starts { seeds, barriers } => format!(
            "starts {} seeds {} barriers {}",
            seeds.len(),
            seeds
                .iter()
                .map(u64::to_string)
                .collect::<Vec<_>>()
                .join(","),
            barriers
                .iter()
                .map(|b| b.name())
                .collect::<Vec<_>>()
                .join(",")
        ),
        GaitEvent::StartEnded(s) => motionlab::spacetime::job::starts::start_line(s),
        GaitEvent::BestStart { start, seed, cost } => {
            format!("best_start {start} seed {seed} cost {cost:.6}")
        }
        GaitEvent::KeptStart {
            cost,
            max_violation,
        } => format!(
            "kept_start true (the solve ended at cost {cost:.6}, violation {max_violation:.1e}: no better than the start)"
        ),
    })
}

/// Solves the fixed-timing cyclic gait of Wampler 2012 (or discovers its timing first,
/// §3.3) through the library's gait job, and prints the report: the job's progress as it comes
/// (discovery samples and generations, stages), then the creature, `foot <name> start <s>
/// duration <d>` per foot, `flight`, `double_support`, `status`, `cost`, `max_violation`,
/// `audit_max_violation`, `iterations`, `solve_time_s`. `--events` prints the typed events
/// instead (RON, one per line) and the report on standard error. Fails (non-zero exit) unless the
/// gait was solved.
#[cfg(feature = "ipopt")]
pub fn gait(args: GaitArgs) -> Result<()> {
    use motionlab::spacetime::job::{ProcessPool, SpreadSamples, run_gait};
    let events = args.events;
    let mut request = args.request()?;
    let (ranks, _session) = args.cluster.start()?;
    anyhow::ensure!(
        ranks.size() == 1 || request.discover.is_some() || request.starts > 1,
        "--mpi spreads a discovery's samples or the starts over the ranks: add --discover or \
         --starts N (a single solve runs in one process)"
    );
    if !ranks.is_root() {
        // Every rank runs the same discovery and final solve; rank 0 alone writes.
        request.out = None;
    }
    let mut pool = SpreadSamples {
        ranks,
        inner: ProcessPool::this_program(args.threads)?,
    };
    if request.discover.is_some() && ranks.is_root() {
        use clap::ValueEnum;
        let hessian = request
            .hessian
            .to_possible_value()
            .map(|v| v.get_name().to_string())
            .unwrap_or_default();
        say!(
            events,
            "discovery samples torques {} hessian {} barrier {} springs {}",
            request.torques.name(),
            hessian,
            request.barrier.name(),
            request.springs.name()
        );
    }
    let outcome = run_gait(&request, &mut pool, &mut |e| {
        if !ranks.is_root() {
        } else if events {
            println!("{}", e.encode());
        } else if let Some(line) = event_line(&e) {
            println!("{line}");
        }
    })?;
    if !ranks.is_root() {
        return Ok(());
    }
    let (spec, clip) = (&outcome.spec, &outcome.clip);
    say!(
        events,
        "creature {} speed {} period {} frames {} variables {} mirror_half {}",
        spec.skeleton.name,
        spec.speed,
        spec.period,
        spec.frames,
        outcome.variables,
        spec.is_mirror_half()
    );
    for t in &spec.timings {
        say!(
            events,
            "foot {} start {} duration {}",
            t.foot,
            t.start,
            t.duration
        );
    }
    say!(events, "flight: {}", spec.has_flight());
    say!(events, "double_support: {}", spec.has_double_support());
    let feet = &spec.skeleton.feet;
    for a in 0..feet.len() {
        for b in a + 1..feet.len() {
            say!(
                events,
                "overlap {} {} {:.3}",
                spec.skeleton.limbs[feet[a]].name,
                spec.skeleton.limbs[feet[b]].name,
                spec.contact_overlap(a, b)
            );
        }
    }
    say!(events, "status {}", clip.status);
    say!(
        events,
        "projection_status {}",
        clip.projection_status.as_deref().unwrap_or("none")
    );
    if let Some(k) = clip.projected_from {
        say!(events, "projected_from_iteration {k}");
    }
    say!(events, "cost {:.6}", clip.cost);
    say!(events, "max_violation {:.3e}", clip.max_violation);
    say!(
        events,
        "audit_max_violation {:.3e}",
        outcome.audit_max_violation
    );
    say!(events, "iterations {}", clip.iterations);
    say!(events, "solve_time_s {:.3}", clip.solve_time_s);
    if let Some((lo, median, hi, valid)) =
        motionlab::spacetime::job::starts::spread(&outcome.starts)
    {
        say!(
            events,
            "spread starts {} valid {valid} cost_min {lo:.6} cost_median {median:.6} cost_max {hi:.6}",
            outcome.starts.len()
        );
    }
    if let Some(shapes) = &clip.morphology {
        for (shape, limb) in shapes.iter().zip(&spec.skeleton.limbs) {
            if shape.length != limb.length || shape.radius != limb.radius {
                say!(
                    events,
                    "limb {} length {:.4} radius {:.4} mass {:.3} length_scale {:.3} radius_scale {:.3}",
                    shape.name,
                    shape.length,
                    shape.radius,
                    shape.mass,
                    shape.length / limb.length,
                    shape.radius / limb.radius
                );
            }
        }
        say!(
            events,
            "mass {:.3}",
            clip.body(&spec.skeleton)?.total_mass()
        );
    }
    if let Some(out) = &request.out {
        say!(events, "wrote {}", out.display());
    }
    anyhow::ensure!(
        clip.is_valid(),
        "the gait was not solved: {} (projection {:?}, max violation {:.3e})",
        clip.status,
        clip.projection_status,
        clip.max_violation
    );
    Ok(())
}

/// `motionlab gait-job REQUEST`: runs the gait job whose request (RON, `GaitRequest`) is the
/// argument or the file it names, writing its typed events on standard output, one RON
/// `GaitEvent` per line (what the Gait panel and a discovery's sample processes run). Fails on
/// bad input; an unsolved gait is an outcome, reported by its `Finished` event and its clip.
#[cfg(feature = "ipopt")]
pub fn gait_job(request: &str) -> Result<()> {
    use motionlab::spacetime::job::{GaitRequest, ProcessPool, run_gait};
    // A file's name, or the request itself (a RON request starts with '(').
    let (text, source) = if request.trim_start().starts_with('(') {
        (request.to_string(), "the argument".to_string())
    } else {
        let text = std::fs::read_to_string(request)
            .map_err(|e| anyhow::anyhow!("the gait request {request}: {e}"))?;
        (text, request.to_string())
    };
    let request: GaitRequest = motionlab::files::from_ron(text.trim()).map_err(|e| {
        anyhow::anyhow!(
            "the gait request ({source}): line {} column {}: {}; expected a GaitRequest",
            e.span.start.line,
            e.span.start.col,
            e.code
        )
    })?;
    let threads = request.discover.as_ref().map_or(0, |d| d.threads);
    let mut pool = ProcessPool::this_program(threads)?;
    run_gait(&request, &mut pool, &mut |e| println!("{}", e.encode()))?;
    Ok(())
}

#[cfg(not(feature = "ipopt"))]
pub fn gait_job(_request: &str) -> Result<()> {
    anyhow::bail!("this build has no NLP solver (built without the `ipopt` feature)")
}

/// One `stage <hessian> status <s> projection <p> cost <c> max_violation <v> iterations <k>`
/// line per stage of a solve.
#[cfg(feature = "ipopt")]
pub(crate) fn print_stages(stages: &[motionlab::spacetime::gait::StageSummary]) {
    for s in stages {
        println!(
            "stage {} status {} projection {} cost {:.6} max_violation {:.3e} iterations {}",
            s.hessian,
            s.status,
            s.projection_status.as_deref().unwrap_or("none"),
            s.cost,
            s.max_violation,
            s.iterations
        );
    }
}

/// `foot:start:duration,...` with every number in its shortest exact form.
#[cfg(feature = "ipopt")]
pub(crate) fn contacts_text(timings: &[motionlab::spacetime::gait::FootTiming]) -> String {
    timings
        .iter()
        .map(|t| format!("{}:{}:{}", t.foot, t.start, t.duration))
        .collect::<Vec<_>>()
        .join(",")
}

#[cfg(not(feature = "ipopt"))]
pub fn gait(_args: GaitArgs) -> Result<()> {
    anyhow::bail!("this build has no NLP solver (built without the `ipopt` feature)")
}
