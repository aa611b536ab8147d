//! The result column: footfalls, cost, violation, the audit, the ground reaction per frame, the
//! views and the table of changed limbs.

use super::*;

pub(super) fn yes_no(b: bool) -> &'static str {
    if b { "yes" } else { "no" }
}

pub(super) fn result_ui(ui: &mut egui::Ui, state: &mut GaitState) {
    let Some(shown) = &state.shown else {
        ui.label(if state.job.is_some() {
            "Solving: the gait will show here when the solver is done."
        } else {
            "No gait on show: solve one or load a clip (demo clips in assets/gaits/)."
        });
        return;
    };
    let clip = &shown.clip;
    let phase = (state.time / clip.period).rem_euclid(1.0);
    ui.label(
        egui::RichText::new(format!(
            "{} · {:.2} m/s · period {:.3} s · stride {:.2} m",
            clip.creature,
            clip.speed,
            clip.period,
            clip.speed * clip.period
        ))
        .strong(),
    );
    ui.small(&shown.source);
    let converged = clip.converged();
    ui.horizontal_wrapped(|ui| {
        ui.label(format!("cost {:.4}", clip.cost));
        ui.separator();
        ui.label(format!("max violation {:.1e}", clip.max_violation));
        ui.separator();
        let status = format!(
            "{}{}",
            clip.status,
            clip.projection_status
                .as_deref()
                .map(|p| format!(", projection {p}"))
                .unwrap_or_default()
        );
        if converged {
            ui.colored_label(egui::Color32::from_rgb(60, 170, 80), status);
        } else {
            ui.colored_label(egui::Color32::from_rgb(230, 80, 60), status);
        }
        ui.separator();
        ui.label(format!(
            "{} iterations · {:.0} s",
            clip.iterations, clip.solve_time_s
        ));
    });
    let names: Vec<String> = shown
        .skeleton
        .feet
        .iter()
        .map(|&l| shown.skeleton.limbs[l].name.clone())
        .collect();
    ui.label(egui::RichText::new("Footfall diagram").small().strong());
    footfall_diagram(ui, &names, &shown.contact, Some(phase));
    ui.horizontal(|ui| {
        ui.colored_label(FLIGHT, "■");
        ui.small("flight");
        ui.colored_label(DOUBLE, "■");
        ui.small("double support");
        ui.colored_label(egui::Color32::RED, "|");
        ui.small("now");
    });
    // Each foot's most synchronous partner: a hop's feet or a trot's diagonal pairs near 1.
    let in_step: Vec<String> = crate::spacetime::gait::feet_in_step(&shown.contact)
        .iter()
        .map(|&(a, b, o)| format!("{}–{} {:.2}", names[a], names[b], o))
        .collect();
    if !in_step.is_empty() {
        ui.small(format!("in step: {}", in_step.join(" · ")))
            .on_hover_text(
                "Each foot's most synchronous partner: the share of the shorter contact during \
                 which both feet are down (1: they land and lift together, 0: never down together)",
            );
    }
    // Playback.
    ui.horizontal(|ui| {
        if ui
            .button(if state.playing { "Pause" } else { "Play" })
            .clicked()
        {
            state.playing = !state.playing;
        }
        ui.add(
            egui::Slider::new(&mut state.rate, 0.1..=2.0)
                .logarithmic(true)
                .text("×"),
        );
        ui.radio_value(&mut state.world, false, "treadmill");
        ui.radio_value(&mut state.world, true, "world");
    });
    let mut p = phase;
    if ui
        .add(egui::Slider::new(&mut p, 0.0..=0.999).text("phase"))
        .changed()
    {
        state.time = p * clip.period;
        state.playing = false;
    }
    let side_width = ui.available_width() - 160.0;
    ui.horizontal_top(|ui| {
        side_view(ui, shown, state.time, state.world, side_width);
        front_view(ui, shown, state.time);
    });
    if let (Some(shapes), Some((file, _))) = (&clip.morphology, &shown.file_body) {
        body_table(ui, shapes, file);
    }
    // Audit.
    egui::CollapsingHeader::new(format!(
        "Audit (largest residual {:.1e})",
        shown.audit.max()
    ))
    .default_open(true)
    .show(ui, |ui| {
        let a = &shown.audit;
        egui::Grid::new("gait_audit")
            .num_columns(4)
            .striped(true)
            .show(ui, |ui| {
                let rows = [
                    ("linear momentum", a.linear_momentum, "m/s²"),
                    ("angular momentum", a.angular_momentum, "m²/s²"),
                    ("friction cone", a.friction, "m/s²"),
                    ("torque ellipsoid", a.torque_ellipsoid, "m/s²"),
                    ("ground", a.ground, "m"),
                    ("foot slip", a.slip, "m/s"),
                    ("foot twist", a.twist, ""),
                ];
                for (i, (name, v, unit)) in rows.iter().enumerate() {
                    ui.label(*name);
                    ui.label(format!("{v:.1e} {unit}"));
                    if i % 2 == 1 {
                        ui.end_row();
                    }
                }
            });
        // Per frame: vertical ground reaction per foot, in body weights.
        let weight = shown.skeleton.total_mass() * crate::model::rotation::GRAVITY_F64;
        ui.label(
            egui::RichText::new("Vertical ground reaction per frame (body weights)")
                .small()
                .strong(),
        );
        Plot::new("gait_loads")
            .height(110.0)
            .legend(Legend::default())
            .allow_drag(false)
            .allow_scroll(false)
            .show(ui, |plot| {
                for (k, name) in names.iter().enumerate() {
                    let pts: Vec<[f64; 2]> = clip
                        .contacts
                        .iter()
                        .enumerate()
                        .map(|(i, c)| {
                            let fy = c
                                .get(k)
                                .and_then(|l| l.as_ref())
                                .map_or(0.0, |l| l.force[1]);
                            [i as f64, fy / weight]
                        })
                        .collect();
                    plot.line(
                        Line::new(name.clone(), PlotPoints::from(pts))
                            .color(foot_colour(k))
                            .width(1.5),
                    );
                }
                plot.vline(
                    VLine::new("", phase * clip.frames.len() as f64).color(egui::Color32::RED),
                );
            });
    });
    if let Some(record) = &state.last_discovery {
        egui::CollapsingHeader::new("Discovery: best cost per generation and every sample")
            .default_open(true)
            .show(ui, |ui| {
                best_cost_plot(ui, "gait_last_discovery_cost", &record.best_costs);
                samples_plot(
                    ui,
                    "gait_last_discovery_samples",
                    &record.samples,
                    record.failed_samples,
                );
            });
    }
}

/// The optimised body against the character file: the limbs that changed, and the total mass.
pub(super) fn body_table(
    ui: &mut egui::Ui,
    shapes: &[crate::spacetime::morphology::LimbShape],
    file: &Skeleton,
) {
    let total: f64 = shapes.iter().map(|s| s.mass).sum();
    egui::CollapsingHeader::new(format!(
        "Body: {:.2} kg (file {:.2} kg)",
        total,
        file.total_mass()
    ))
    .default_open(true)
    .show(ui, |ui| {
        egui::Grid::new("gait_body")
            .num_columns(4)
            .striped(true)
            .show(ui, |ui| {
                for h in ["limb", "length (m)", "radius (m)", "mass (kg)"] {
                    ui.label(egui::RichText::new(h).small().strong());
                }
                ui.end_row();
                for (shape, limb) in shapes.iter().zip(&file.limbs) {
                    if shape.length == limb.length && shape.radius == limb.radius {
                        continue;
                    }
                    ui.label(&shape.name);
                    ui.label(format!(
                        "{:.3} (file {:.3}, ×{:.2})",
                        shape.length,
                        limb.length,
                        shape.length / limb.length
                    ));
                    ui.label(format!(
                        "{:.3} (file {:.3}, ×{:.2})",
                        shape.radius,
                        limb.radius,
                        shape.radius / limb.radius
                    ));
                    ui.label(format!("{:.2} (file {:.2})", shape.mass, limb.mass));
                    ui.end_row();
                }
            });
    });
}
