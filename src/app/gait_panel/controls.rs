//! The request column: creature, speed, period, contacts or discovery, solver settings,
//! morphology, and the Solve, Refine and Cancel buttons.

use super::*;

pub(super) fn controls_ui(ui: &mut egui::Ui, state: &mut GaitState) {
    let running = state.job.is_some();
    ui.add_enabled_ui(!running, |ui| {
        egui::Grid::new("gait_request")
            .num_columns(2)
            .show(ui, |ui| {
                ui.label("creature");
                let before = state.creature;
                let name = state
                    .creature()
                    .map(|c| c.skeleton.name.clone())
                    .unwrap_or("—".into());
                egui::ComboBox::from_id_salt("gait_creature")
                    .selected_text(name)
                    .show_ui(ui, |ui| {
                        for i in 0..state.creatures.len() {
                            let c = &state.creatures[i];
                            let label = format!(
                                "{} ({} feet, {} DOF)",
                                c.skeleton.name,
                                c.skeleton.feet.len(),
                                c.skeleton.dof()
                            );
                            ui.selectable_value(&mut state.creature, i, label);
                        }
                    });
                if state.creature != before {
                    state.creature_defaults();
                }
                ui.end_row();
                ui.label("speed");
                ui.add(
                    egui::DragValue::new(&mut state.speed)
                        .range(0.0..=10.0)
                        .speed(0.01)
                        .suffix(" m/s"),
                );
                ui.end_row();
                ui.label("period");
                ui.add_enabled(
                    !state.discover,
                    egui::DragValue::new(&mut state.period)
                        .range(0.25..=1.5)
                        .speed(0.005)
                        .suffix(" s"),
                );
                ui.end_row();
                ui.label("iterations");
                ui.horizontal(|ui| {
                    ui.add(egui::DragValue::new(&mut state.max_iterations).range(10..=5000))
                        .on_hover_text(
                            "IPOPT iteration limit of the gait solve, both stages together (a \
                             solve stopped by it is projected onto the constraints)",
                        );
                    ui.label("L-BFGS");
                    ui.add(egui::DragValue::new(&mut state.lbfgs_iterations).range(0..=5000))
                        .on_hover_text(
                            "iterations with IPOPT's L-BFGS Hessian before the exact Hessian \
                             takes over (the character file's `gait` setting when picked: the \
                             horse needs about 1,500; the other creatures 300)",
                        );
                });
                ui.end_row();
                ui.label("solver");
                ui.horizontal(|ui| {
                    egui::ComboBox::from_id_salt("gait_solver")
                        .selected_text(state.solver.label())
                        .show_ui(ui, |ui| {
                            for b in crate::nlp::Backend::built_in() {
                                ui.selectable_value(&mut state.solver, b, b.label());
                            }
                        })
                        .response
                        .on_hover_text(
                            "IPOPT (on MUMPS) is the faster on gaits; ripopt is an interior point \
                             in Rust",
                        );
                    ui.label("starts");
                    ui.add_enabled_ui(!state.discover, |ui| {
                        ui.add(egui::DragValue::new(&mut state.starts).range(1..=16))
                            .on_hover_text(
                                "solve from this many starts side by side (one process per core \
                                 at a time) and keep the lowest-cost valid gait: pairs of one \
                                 perturbed rest pose solved with the adaptive and the monotone \
                                 barrier; the gait NLP is not convex, and one start can end far \
                                 above another",
                            )
                            .on_disabled_hover_text(
                                "a discovery's final solve starts from its best sample: one \
                                 start",
                            );
                    });
                    ui.label("torques");
                    ui.add_enabled_ui(!state.morphology, |ui| {
                        egui::ComboBox::from_id_salt("gait_torques")
                            .selected_text(state.torques.name())
                            .show_ui(ui, |ui| {
                                for t in [
                                    crate::spacetime::gait::Torques::Computed,
                                    crate::spacetime::gait::Torques::Variables,
                                ] {
                                    ui.selectable_value(&mut state.torques, t, t.name());
                                }
                            })
                            .response
                            .on_hover_text(
                                "computed: inside the effort by inverse dynamics (the thesis's \
                                 form, L-BFGS then the exact Hessian); variables: one per joint \
                                 and frame, solved with the exact Hessian (the simple biped's \
                                 walk in about a third of the time). The character file's \
                                 `gait` setting when picked, for a discovery's samples too; a \
                                 morphology computes them",
                            );
                    });
                    ui.label("springs");
                    let lifted = state.torques == crate::spacetime::gait::Torques::Variables;
                    ui.add_enabled_ui(lifted && !state.morphology, |ui| {
                        egui::ComboBox::from_id_salt("gait_springs")
                            .selected_text(state.springs.name())
                            .show_ui(ui, |ui| {
                                for s in [
                                    crate::model::StartSprings::Slack,
                                    crate::model::StartSprings::Holding,
                                ] {
                                    ui.selectable_value(&mut state.springs, s, s.name());
                                }
                            })
                            .response
                            .on_hover_text(
                                "the passive springs a solve with the torques as variables \
                                 starts from: slack (none, the joints carry the weight) or \
                                 holding (each holds its joint's mean torque at the start; the \
                                 horse's trot in about two thirds of the iterations). The \
                                 character file's `gait` setting when picked",
                            );
                    });
                    ui.label("barrier");
                    egui::ComboBox::from_id_salt("gait_barrier")
                        .selected_text(state.barrier.name())
                        .show_ui(ui, |ui| {
                            for b in [
                                crate::spacetime::job::starts::Barrier::Adaptive,
                                crate::spacetime::job::starts::Barrier::Monotone,
                            ] {
                                ui.selectable_value(&mut state.barrier, b, b.name());
                            }
                        })
                        .response
                        .on_hover_text(
                            "how IPOPT lowers its barrier parameter (the first start's; a \
                             second start takes the other). The two end in different optima \
                             about as often as two perturbations; the character file's `gait` \
                             setting when picked",
                        );
                    ui.add_enabled_ui(!state.morphology && !state.discover, |ui| {
                        ui.checkbox(&mut state.mirror_half, "mirror half")
                            .on_hover_text(
                                "solve half the cycle, its other half the mirror image with the \
                                 legs swapped: half the variables, about 2.5 times faster on the \
                                 simple biped's walk. Only when the timing allows (a treadmill \
                                 cycle whose feet touch down half a period after their mirror \
                                 feet), else the whole cycle; the character file's `gait` setting \
                                 when picked",
                            );
                    });
                });
                ui.end_row();
            });
        ui.horizontal(|ui| {
            ui.checkbox(&mut state.discover, "Discover timings")
                .on_hover_text(format!(
                    "basin-CMA over the period and the footfalls (Wampler 2012, thesis §3.3); sample \
                     clips are kept in {DISCOVERY_SAMPLES_DIR}, so the same discovery started \
                     again resumes"
                ));
            ui.checkbox(&mut state.morphology, "Morphology").on_hover_text(
                "Co-optimise the body (Wampler 2012, thesis §3.4): a length and a radius per left–right \
                 pair of leg limbs, mass at constant density; torso, neck and head fixed",
            );
            if state.morphology {
                ui.checkbox(&mut state.muscle, "muscles").on_hover_text(
                    "The muscle-aware effort (3.26)–(3.33), σ_max = 50 N/cm². Without it the \
                     legs grow long and slender",
                );
            }
        });
        if state.discover {
            ui.horizontal(|ui| {
                ui.label("generations");
                ui.add(egui::DragValue::new(&mut state.generations).range(1..=200));
                ui.label("population");
                ui.add(egui::DragValue::new(&mut state.population).range(0..=64))
                    .on_hover_text("samples per generation (0: 4 + ⌊3 ln n⌋)");
                ui.label("sample iterations");
                ui.add(egui::DragValue::new(&mut state.sample_iterations).range(10..=5000))
                    .on_hover_text(
                        "IPOPT iteration limit of each sample's projection (with the L-BFGS \
                         stage above); converged samples rank gaits reliably, capped ones do not",
                    );
            });
            ui.horizontal(|ui| {
                ui.label("periods searched");
                let (lo, hi) = &mut state.period_range;
                ui.add(
                    egui::DragValue::new(lo)
                        .range(0.1..=*hi - 0.05)
                        .speed(0.01)
                        .suffix(" s"),
                );
                ui.label("to");
                ui.add(
                    egui::DragValue::new(hi)
                        .range(*lo + 0.05..=3.0)
                        .speed(0.01)
                        .suffix(" s"),
                )
                .on_hover_text(
                    "the periods the discovery searches; narrow it to restrict the search \
                     (Wampler 2012, thesis §3.3)",
                );
            });
        } else {
            ui.horizontal(|ui| {
                ui.label(egui::RichText::new("Footfalls (fractions of the cycle)").strong());
                if ui.small_button("defaults").clicked() {
                    state.reset_timings();
                }
            });
            footfall_editor(ui, &mut state.timings);
            match state.request_spec() {
                Ok(spec) => {
                    let names: Vec<String> = spec.timings.iter().map(|t| t.foot.clone()).collect();
                    footfall_diagram(ui, &names, spec.contacts(), None);
                    ui.small(format!(
                        "{} frames · flight: {} · double support: {}",
                        spec.frames,
                        yes_no(spec.has_flight()),
                        yes_no(spec.has_double_support())
                    ));
                }
                Err(e) => {
                    ui.colored_label(egui::Color32::from_rgb(230, 80, 60), e.to_string());
                }
            }
        }
    });
    ui.horizontal(|ui| {
        if ui
            .add_enabled(!running, egui::Button::new("Solve"))
            .on_hover_text("Solve the gait in a background process")
            .clicked()
        {
            state.start(false);
        }
        let refinable = state
            .shown
            .as_ref()
            .zip(state.creature())
            .is_some_and(|(s, c)| s.clip.creature == c.skeleton.name);
        if ui
            .add_enabled(
                !running && refinable && !state.discover,
                egui::Button::new("Refine"),
            )
            .on_hover_text(
                "Go on from the gait on show: another `iterations` IPOPT iterations from it, with \
                 the timing above (kept if the solve ends no better)",
            )
            .clicked()
        {
            state.start(true);
        }
        if running && ui.button("Cancel").clicked() {
            state.cancel();
            state.message = "solve cancelled".into();
        }
    });
    if let Some(job) = &state.job {
        ui.horizontal(|ui| {
            ui.spinner();
            let phase = if job.discover && job.iterations.is_empty() {
                format!("discovering · {} generations done", job.generations)
            } else if job.starts > 1 {
                let best = crate::spacetime::job::starts::best_start(&job.starts_ended)
                    .map(|s| format!(" · best cost {:.4}", s.cost))
                    .unwrap_or_default();
                format!(
                    "{} starts side by side · {} ended{best}",
                    job.starts,
                    job.starts_ended.len()
                )
            } else {
                format!("IPOPT iteration {}", job.iterations.len())
            };
            ui.label(format!(
                "{:.0} s · {phase}",
                job.started.elapsed().as_secs_f64()
            ));
        });
        if job.discover {
            ui.label(
                egui::RichText::new("Best cost per generation")
                    .small()
                    .strong(),
            );
            best_cost_plot(ui, "gait_discovery_cost", &job.best_costs);
            if !job.feasible.is_empty() {
                ui.small(format!("last generation: {} feasible", job.feasible));
            }
            samples_plot(
                ui,
                "gait_discovery_samples",
                &job.samples,
                job.failed_samples,
            );
            if let (Some((period, timings)), Some(c)) =
                (&job.best, state.creatures.get(job.creature))
            {
                if let Ok(spec) = GaitSpec::new(c.skeleton.clone(), job.speed, *period, timings) {
                    ui.small(format!("current best: period {period:.3} s"));
                    let names: Vec<String> = spec.timings.iter().map(|t| t.foot.clone()).collect();
                    footfall_diagram(ui, &names, spec.contacts(), None);
                }
            }
        }
        if !job.iterations.is_empty() {
            ui.label(
                egui::RichText::new("IPOPT: log₁₀ objective and infeasibility")
                    .small()
                    .strong(),
            );
            let obj: Vec<[f64; 2]> = job
                .iterations
                .iter()
                .enumerate()
                .map(|(i, (o, _))| [i as f64, o.abs().max(1e-12).log10()])
                .collect();
            let inf: Vec<[f64; 2]> = job
                .iterations
                .iter()
                .enumerate()
                .map(|(i, (_, p))| [i as f64, p.abs().max(1e-16).log10()])
                .collect();
            Plot::new("gait_ipopt_log")
                .height(100.0)
                .legend(Legend::default())
                .allow_drag(false)
                .allow_scroll(false)
                .show(ui, |plot| {
                    plot.line(Line::new("objective", PlotPoints::from(obj)).width(1.5));
                    plot.line(Line::new("inf_pr", PlotPoints::from(inf)).width(1.5));
                });
        }
    }
    ui.separator();
    ui.horizontal(|ui| {
        ui.add(
            egui::TextEdit::singleline(&mut state.load_path)
                .desired_width(200.0)
                .hint_text("results/gaits/….ron"),
        );
        if ui.button("Load clip").clicked() {
            let p = PathBuf::from(state.load_path.trim());
            state.load(&p);
        }
        if ui.button("…").on_hover_text("Choose a clip file").clicked() {
            if let Some(p) = rfd::FileDialog::new()
                .add_filter("gait clip", &["ron"])
                .pick_file()
            {
                state.load_path = p.display().to_string();
                state.load(&p);
            }
        }
    });
    ui.horizontal(|ui| {
        ui.add(egui::TextEdit::singleline(&mut state.save_path).desired_width(200.0));
        if ui
            .add_enabled(state.shown.is_some(), egui::Button::new("Save clip"))
            .on_hover_text("Write the gait on show as RON (atomically)")
            .clicked()
        {
            let p = PathBuf::from(state.save_path.trim());
            state.save(&p);
        }
    });
    let playable = state
        .shown
        .as_ref()
        .is_some_and(|s| s.clip.morphology.is_none());
    if ui
        .add_enabled(playable, egui::Button::new("Play in Library"))
        .on_hover_text("Play the gait on show on its skinned character in the 3D viewport")
        .clicked()
    {
        state.to_library = true;
    }
    if !state.message.is_empty() {
        ui.add(egui::Label::new(egui::RichText::new(&state.message).small()).wrap());
    }
}
