//! The Gait panel's state changes: picking a creature, building the `gait` request, starting,
//! cancelling and finishing a solve or a discovery, loading and saving clips.

use super::*;

impl GaitState {
    pub(super) fn creature(&self) -> Option<&Creature> {
        self.creatures.get(self.creature)
    }

    /// The creature's default timings and period (the command line's defaults, Wampler 2012, thesis §3.2).
    pub(super) fn reset_timings(&mut self) {
        if let Some(c) = self.creature() {
            let (period, timings) = default_timings(&c.skeleton);
            self.period = period;
            self.timings = timings;
        }
    }

    /// The chosen creature's defaults: its timings and period, and its file's solver settings
    /// (`gait: (lbfgs_iterations: …, sample_iterations: …, torques: …, starts: …, barrier: …,
    /// springs: …, mirror_half: …)`, e.g. the horse's longer L-BFGS stage, the simple biped's lifted pair of
    /// starts), else the CLI's.
    pub(super) fn creature_defaults(&mut self) {
        self.reset_timings();
        self.apply_solve_hints();
    }

    /// The chosen character file's solver settings, else the CLI's defaults.
    pub(super) fn apply_solve_hints(&mut self) {
        if let Some(c) = self.creature() {
            let hints = c.skeleton.solve;
            self.lbfgs_iterations = hints
                .lbfgs_iterations
                .unwrap_or(crate::spacetime::gait::STAGED_LBFGS_ITERATIONS);
            self.sample_iterations = hints
                .sample_iterations
                .unwrap_or(crate::spacetime::discovery::SAMPLE_ITERATIONS);
            self.torques = hints.torques.unwrap_or_default();
            self.starts = hints.starts.unwrap_or(1);
            self.barrier = hints.barrier.unwrap_or_default();
            self.springs = hints.springs.unwrap_or_default();
            self.mirror_half = hints.mirror_half.unwrap_or(false);
        }
    }

    /// The request as a validated spec (its contact flags), or why it is invalid.
    pub(super) fn request_spec(&self) -> Result<GaitSpec, RequestError> {
        let c = self.creature().ok_or(RequestError::NoCreature)?;
        Ok(GaitSpec::new(
            c.skeleton.clone(),
            self.speed,
            self.period,
            &self.timings,
        )?)
    }

    /// Loads a clip file and shows it; errors name the file.
    pub fn load(&mut self, path: &Path) {
        self.last_discovery = None;
        let result = std::fs::read_to_string(path)
            .map_err(ShowError::from)
            .and_then(|t| Ok(crate::files::from_ron::<GaitClip>(&t)?))
            .and_then(|clip| self.show(clip, format!("{}", path.display())));
        match result {
            Ok(()) => {
                self.message = format!("loaded {}", path.display());
                self.save_path = path.display().to_string();
            }
            Err(e) => self.message = format!("cannot load {}: {e}", path.display()),
        }
    }

    /// Puts `clip` on show (and its creature, speed and timings in the request fields).
    pub(super) fn show(&mut self, clip: GaitClip, source: String) -> Result<(), ShowError> {
        let index = self
            .creatures
            .iter()
            .position(|c| c.skeleton.name == clip.creature)
            .ok_or_else(|| ShowError::UnknownCreature {
                creature: clip.creature.clone(),
                dir: characters_dir(),
            })?;
        let skeleton = clip.body(&self.creatures[index].skeleton)?;
        clip.validate(&skeleton)?;
        // The checks above keep the kinematics' assertions true; a panic in them is still
        // reported rather than fatal.
        let file = &self.creatures[index].skeleton;
        let computed = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            let segments_of = |body: &Skeleton| -> Vec<Vec<([f64; 3], [f64; 3])>> {
                let morphology = body.morphology::<f64>();
                clip.frames
                    .iter()
                    .map(|q| {
                        forward_kinematics(body, &morphology, q)
                            .limbs
                            .iter()
                            .map(|l| (l.origin.re(), l.end.re()))
                            .collect()
                    })
                    .collect()
            };
            let file_body = clip
                .morphology
                .is_some()
                .then(|| (file.clone(), segments_of(file)));
            // μ and ν as in every gait spec.
            (
                segments_of(&skeleton),
                file_body,
                audit(&skeleton, &clip, MU, NU),
            )
        }))
        .map_err(|_| ShowError::KinematicsFailed)?;
        let (segments, file_body, audit) = computed;
        let mut leg = vec![None; skeleton.limbs.len()];
        for (k, &foot) in skeleton.feet.iter().enumerate() {
            // The foot's chain up to (not including) the limb where it meets another chain.
            for l in skeleton.path_to_root(foot) {
                let children = skeleton
                    .limbs
                    .iter()
                    .filter(|c| c.parent == Some(l))
                    .count();
                if skeleton.limbs[l].parent.is_none() || (l != foot && children > 1) {
                    break;
                }
                leg[l] = Some(k);
            }
        }
        let mut extent = [f64::MAX, f64::MIN, 0.0, f64::MAX, f64::MIN];
        for (a, b) in segments.iter().flatten() {
            for p in [a, b] {
                extent[0] = extent[0].min(p[0]);
                extent[1] = extent[1].max(p[0]);
                extent[2] = extent[2].max(p[1]);
                extent[3] = extent[3].min(p[2]);
                extent[4] = extent[4].max(p[2]);
            }
        }
        let contact = clip
            .contacts
            .iter()
            .map(|c| c.iter().map(|l| l.is_some()).collect())
            .collect();
        // The request fields follow the clip, so Solve re-solves what is on show.
        if self.creature != index {
            self.creature = index;
            self.apply_solve_hints();
        }
        self.speed = clip.speed;
        self.morphology = clip.morphology.is_some();
        self.period = clip.period;
        let mut timings = Vec::new();
        for name in self.creatures[index].feet() {
            match clip.timings.iter().find(|t| t.foot == name) {
                Some(t) => timings.push(t.clone()),
                None => {
                    timings.clear();
                    break;
                }
            }
        }
        if timings.is_empty() {
            self.reset_timings();
        } else {
            self.timings = timings;
        }
        self.shown = Some(ShownGait {
            clip,
            skeleton,
            source,
            audit,
            contact,
            segments,
            file_body,
            leg,
            extent,
        });
        self.time = 0.0;
        Ok(())
    }

    pub(super) fn save(&mut self, path: &Path) {
        let Some(shown) = &self.shown else {
            self.message = "no gait to save".into();
            return;
        };
        if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
            if let Err(e) = std::fs::create_dir_all(dir) {
                self.message = format!("cannot create {}: {e}", dir.display());
                return;
            }
        }
        self.message = match crate::jobs::write_ron(path, &shown.clip) {
            Ok(()) => format!("saved {}", path.display()),
            Err(e) => format!("cannot save {}: {e}", path.display()),
        };
    }

    /// Asks for the gait job of the panel's settings (run by [`act`]); `refine`: from the gait
    /// on show, with the panel's timing.
    pub(super) fn start(&mut self, refine: bool) {
        self.action = Some(Action::Start { refine });
    }

    /// Asks to stop the running solve.
    pub(super) fn cancel(&mut self) {
        self.action = Some(Action::Cancel);
    }

    /// Starts the gait job of the panel's settings among the session's jobs: a worker process
    /// (`motionlab gait-job`) of its own process group.
    fn launch(&mut self, refine: bool, jobs: &mut Jobs) {
        self.stop(jobs);
        let Some((creature_path, creature_name)) = self
            .creature()
            .map(|c| (c.path.clone(), c.skeleton.name.clone()))
        else {
            self.message = "no creature".into();
            return;
        };
        if !self.discover {
            if let Err(e) = self.request_spec() {
                self.message = format!("cannot solve: {e}");
                return;
            }
        }
        let exe = match std::env::current_exe() {
            Ok(e) => e,
            Err(e) => {
                self.message = format!("cannot find the motionlab executable: {e}");
                return;
            }
        };
        let tag = self.next_job;
        self.next_job += 1;
        // As `gait` does: a morphology holds the torques as the thesis does; a discovery's
        // samples are solves from the rest pose in the panel's form (the creature file's).
        let torques = if self.morphology {
            crate::spacetime::gait::Torques::Computed
        } else {
            self.torques
        };
        let mut request = crate::spacetime::job::GaitRequest {
            max_iterations: self.max_iterations,
            lbfgs_iterations: Some(self.lbfgs_iterations),
            torques,
            hessian: crate::spacetime::job::GaitHessian::default_for(torques),
            barrier: self.barrier,
            springs: self.springs.for_torques(torques),
            morphology: self.morphology.then_some(
                crate::spacetime::morphology::MorphologyOptions {
                    muscle: self.muscle,
                    min_head_height: None,
                },
            ),
            solver: self.solver,
            starts: self.starts,
            // As `gait` does: a discovery's timings and a morphology's body are not mirrored.
            mirror_half: if self.mirror_half && !self.morphology && !(self.discover && !refine) {
                crate::spacetime::job::MirrorHalf::WhenSymmetric
            } else {
                crate::spacetime::job::MirrorHalf::Whole
            },
            ..crate::spacetime::job::GaitRequest::new(creature_path, self.speed)
        };
        if refine {
            let Some(shown) = &self.shown else {
                self.message = "no gait on show to refine".into();
                return;
            };
            let start = std::env::temp_dir().join(format!(
                "motionlab-gait-{}-{tag}-start.ron",
                std::process::id()
            ));
            if let Err(e) = crate::jobs::write_ron(&start, &shown.clip) {
                self.message = format!("cannot write {}: {e}", start.display());
                return;
            }
            request.init = Some(start);
        }
        if self.discover && !refine {
            request.discover = Some(crate::spacetime::job::DiscoverRequest {
                generations: self.generations,
                population: (self.population > 0).then_some(self.population),
                sample_iterations: Some(self.sample_iterations),
                threads: 0,
                // Sample clips are kept, so the same discovery started again (after closing
                // the app, say) reuses the samples already solved.
                samples_dir: Some(DISCOVERY_SAMPLES_DIR.into()),
                period_range: Some(self.period_range),
            });
        } else {
            request.period = Some(self.period);
            request.contacts = Some(self.timings.clone());
        }
        let job = crate::spacetime::job::GaitWorkerJob::new(request, exe);
        let id = match jobs.spawn(Box::new(job), None) {
            Ok(id) => id,
            Err(e) => {
                self.message = format!("cannot start the solve: {e}");
                return;
            }
        };
        self.message = format!(
            "solving {} at {} m/s{} (job #{id})",
            creature_name,
            self.speed,
            if self.discover {
                ", discovering the timings"
            } else {
                ""
            }
        );
        self.job = Some(GaitJob {
            id,
            seen: 0,
            started: Instant::now(),
            discover: self.discover && !refine,
            creature: self.creature,
            speed: self.speed,
            best_costs: Vec::new(),
            samples: Vec::new(),
            failed_samples: 0,
            best: None,
            feasible: String::new(),
            generations: 0,
            iterations: Vec::new(),
            starts: if refine { 1 } else { self.starts },
            starts_ended: Vec::new(),
        });
    }

    /// Cancels the running solve (its worker's process group ends with it).
    fn stop(&mut self, jobs: &Jobs) {
        if let Some(job) = self.job.take() {
            jobs.cancel(job.id);
        }
    }
}

/// What the panel's buttons asked for, done with the session's jobs at hand.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(super) enum Action {
    Start { refine: bool },
    Cancel,
}

/// Carries out the panel's asked-for action.
pub(super) fn act(mut state: ResMut<GaitState>, mut jobs: ResMut<Jobs>) {
    match state.action.take() {
        Some(Action::Start { refine }) => state.launch(refine, &mut jobs),
        Some(Action::Cancel) => state.stop(&jobs),
        None => {}
    }
}
