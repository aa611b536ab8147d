//! The discovery's live plots: every feasible sample (log₁₀ cost against period, coloured by
//! pairing, filled with a flight phase) and the best cost per generation.

use super::*;

/// Every feasible discovery sample so far: log₁₀ cost against period, coloured by whether the
/// feet land in pairs and filled when the gait has a flight phase, so a split between kinds of
/// gait (a run's alternating feet against a hop's paired ones) shows as it forms.
pub(super) fn samples_plot(ui: &mut egui::Ui, id: &str, samples: &[SampleDot], failed: usize) {
    if samples.is_empty() && failed == 0 {
        return;
    }
    ui.label(
        egui::RichText::new("Samples: log₁₀ cost against period (s)")
            .small()
            .strong(),
    )
    .on_hover_text(
        "Every sample projection that reached a feasible gait. Orange: the feet land in pairs \
         (a hop's, a trot's diagonals: on average each foot shares at least 80% of its contact \
         with its most synchronous partner); blue: they do not (a walk, a run). Filled: the \
         gait has a flight phase; ring: none. Failed projections are counted below.",
    );
    let best = samples.iter().map(|d| d.cost).fold(f64::INFINITY, f64::min);
    Plot::new(id)
        .height(140.0)
        .allow_drag(false)
        .allow_scroll(false)
        .legend(Legend::default().position(egui_plot::Corner::RightTop))
        .show(ui, |plot| {
            for (kind, colour) in [
                ("unpaired", egui::Color32::from_rgb(70, 130, 220)),
                ("paired", egui::Color32::from_rgb(230, 140, 40)),
            ] {
                for flight in [true, false] {
                    let name = if flight {
                        format!("{kind}, flight")
                    } else {
                        kind.to_string()
                    };
                    let points: Vec<[f64; 2]> = samples
                        .iter()
                        .filter(|d| d.kind() == name)
                        .map(|d| [d.period, d.cost.max(1e-12).log10()])
                        .collect();
                    if points.is_empty() {
                        continue;
                    }
                    plot.points(
                        Points::new(name, PlotPoints::from(points))
                            .color(colour)
                            .filled(flight)
                            .radius(3.5),
                    );
                }
            }
            if let Some(d) = samples.iter().find(|d| d.cost == best) {
                plot.points(
                    Points::new("best", PlotPoints::from(vec![[d.period, d.cost.log10()]]))
                        .color(egui::Color32::RED)
                        .shape(egui_plot::MarkerShape::Diamond)
                        .filled(false)
                        .radius(6.0),
                );
            }
        });
    ui.small(format!(
        "{} feasible samples · {failed} failed · best {best:.3}",
        samples.len()
    ));
}

/// The best feasible cost of each discovery generation so far.
pub(super) fn best_cost_plot(ui: &mut egui::Ui, id: &str, best_costs: &[[f64; 2]]) {
    Plot::new(id)
        .height(110.0)
        .allow_drag(false)
        .allow_scroll(false)
        .show(ui, |plot| {
            plot.line(Line::new("best cost", PlotPoints::from(best_costs.to_vec())).width(1.5));
            plot.points(
                Points::new("best cost", PlotPoints::from(best_costs.to_vec())).radius(3.0),
            );
        });
}
