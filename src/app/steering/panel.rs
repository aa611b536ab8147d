//! The Steering window: the graph on show and its controls, what the controller is playing and
//! why (clip, frame, the last choice's cost against playing on), the graph's frames on a ring
//! with the current frame and the last transitions lit, and the distance map with its
//! transitions.

use super::SteeringState;
use super::view::clip_colour;
use bevy::prelude::*;
use bevy_egui::egui;

pub(super) fn steering_window(InMut(ui): InMut<egui::Ui>, mut state: ResMut<SteeringState>) {
    let st = &mut *state;
    {
        ui.horizontal_wrapped(|ui| {
            if ui.button("Open graph…").clicked()
                && let Some(p) = rfd::FileDialog::new()
                    .add_filter("motion graph", &["ron"])
                    .pick_file()
            {
                st.open(p);
            }
            if ui.button("Restart").clicked()
                && let Some(g) = st.controller.as_ref().map(|c| c.graph.clone())
            {
                st.start(g);
            }
            let before = st.random_walk;
            ui.checkbox(&mut st.random_walk, "random walk")
                .on_hover_text("The thesis's playback: transitions taken at random");
            let policy = st.policy_on;
            ui.add_enabled(
                !st.random_walk,
                egui::Checkbox::new(&mut st.policy_on, "policy"),
            )
            .on_hover_text(
                "Decide by the value-function policy (Wampler 2012: the graph as a Markov decision process over the asked direction and speed, and the facing when a cycle of the graph strafes, solved by value iteration) instead of the one-second look-ahead",
            );
            if policy != st.policy_on
                && st.policy.is_some()
                && let Some(g) = st.controller.as_ref().map(|c| c.graph.clone())
            {
                st.start(g);
            }
            let physics = st.physics_on;
            ui.checkbox(&mut st.physics_on, "physics").on_hover_text(
                "The Rapier-simulated human tracks the played motion (off: kinematic playback)",
            );
            let lookahead = st.lookahead_on;
            ui.add_enabled(
                st.physics_on,
                egui::Checkbox::new(&mut st.lookahead_on, "look-ahead"),
            )
            .on_hover_text(
                "Predictive sampling: every 0.3 s, 6 candidate corrections of the balance feedback are simulated 1.5 s ahead and the best is used (about 20× the compute of physics alone)",
            );
            let guard = st.guard_on;
            ui.add_enabled(
                st.physics_on,
                egui::Checkbox::new(&mut st.guard_on, "guard"),
            )
            .on_hover_text(
                "Before taking a transition, the human plays it and the next two choices 2.5 s ahead in a copy of the simulation (with the tracker, when on) and takes the future that stays up, tracks best and goes where the stick asks (every 0.1 s)",
            );
            let tracker = st.tracker_on;
            if st.tracker.is_some() {
                ui.add_enabled(
                    st.physics_on,
                    egui::Checkbox::new(&mut st.tracker_on, "tracker"),
                )
                .on_hover_text(
                    "The learned tracking policy (motionlab graph control) adds corrections to every joint's PD target, 30 times a second, from the body's state",
                );
            }
            if guard != st.guard_on || tracker != st.tracker_on {
                st.boxes_chosen = true;
            }
            if (before != st.random_walk
                || physics != st.physics_on
                || lookahead != st.lookahead_on
                || guard != st.guard_on
                || tracker != st.tracker_on)
                && let Some(g) = st.controller.as_ref().map(|c| c.graph.clone())
            {
                st.start(g);
            }
            let mut walking = st.tasks.is_some();
            if ui
                .checkbox(&mut walking, "walk to tasks")
                .on_hover_text("Drop task markers with a click; the human plans its footsteps into each task and walks them (Agrawal 2016)")
                .changed()
            {
                st.walk_to_tasks(walking);
            }
            if ui
                .button("Throw ball")
                .on_hover_text("B, or the gamepad's north button")
                .clicked()
            {
                st.throw = true;
            }
        });
        if let Some(p) = &st.physics {
            let (rms, root) = p.errors();
            let mean = p.joint_mean_error();
            let text = match p.fell_at {
                Some(t) => format!(
                    "physics: fell at {t:.1} s, {} (Restart to stand up again)",
                    st.controller
                        .as_ref()
                        .and_then(|c| p.fall_description(&c.graph.character))
                        .unwrap_or_default()
                ),
                None => format!(
                    "physics{}{}: up {:.1} s · joint error {mean:.3} rad mean ({rms:.3} RMS), pelvis {root:.3} m off{}",
                    if st.lookahead.is_some() { " with look-ahead" } else { "" },
                    if st.tracker_on && st.tracker.is_some() { " with tracker" } else { "" },
                    st.time,
                    match &st.guard {
                        Some(g) => format!(
                            " · guard barred {} of {} transitions, rescued {} (stopped {})",
                            g.bars, g.decisions, g.rescued, g.brakes
                        ),
                        None => String::new(),
                    },
                ),
            };
            ui.colored_label(
                if p.fell_at.is_some() {
                    egui::Color32::from_rgb(230, 120, 40)
                } else {
                    egui::Color32::from_rgb(60, 170, 80)
                },
                text,
            );
        }
        ui.horizontal(|ui| {
                let can = !st.recording.is_empty();
                if ui
                    .add_enabled(can, egui::Button::new("Save run"))
                    .on_hover_text("The run since the last start (what is shown: played, or simulated up to a fall) as a clip at 60 fps, for the Library, clip export (BVH, glTF) or a graph")
                    .clicked()
                {
                    st.save_run();
                }
                ui.add(egui::TextEdit::singleline(&mut st.save_path).desired_width(200.0));
                ui.small(format!("{:.1} s recorded", st.recording.duration()));
            });
        if !st.message.is_empty() {
            ui.small(&st.message);
        }
        if let Some(walk) = st.tasks.as_mut() {
            ui.separator();
            super::tasks::window(ui, walk);
            return;
        }
        ui.small("WASD/arrows: direction (camera-relative) · Shift: run · Q/E: facing · B: throw a ball · gamepad: sticks, B/RT run, Y throw");
        let Some(c) = &st.controller else {
            return;
        };
        let g = &c.graph.graph;
        ui.label(format!(
            "{} clips · {} frames · {} transitions ({} exact) · {} pruned",
            g.clips.len(),
            g.stats.frames,
            g.transitions.len(),
            g.transitions.iter().filter(|t| t.exact).count(),
            g.pruned.len()
        ));
        ui.separator();
        let f = c.current();
        let clip = &g.clips[f.clip];
        egui::Grid::new("steering_now")
            .num_columns(2)
            .show(ui, |ui| {
                ui.label("clip");
                ui.colored_label(clip_colour(f.clip, g.clips.len()), &clip.name);
                ui.end_row();
                ui.label("node");
                ui.label(format!(
                    "frame {} of {} ({}, {:.1} m/s, {:.0}°/s)",
                    f.frame,
                    clip.frames,
                    clip.family,
                    clip.speed,
                    clip.turn_rate.to_degrees()
                ));
                ui.end_row();
                let cmd = c.intent.command;
                ui.label("command");
                ui.label(format!(
                    "{} at {:.1} m/s, heading {:.0}°, facing {:.0}°",
                    crate::steering::controller::gait_name(cmd.gait),
                    cmd.speed,
                    cmd.direction.to_degrees(),
                    cmd.facing.to_degrees()
                ));
                ui.end_row();
                if let Some([vx, vz]) = st.recording.travel(1.0) {
                    let speed = vx.hypot(vz);
                    // A heading θ points along (cos θ, −sin θ) in x and z; shown in the
                    // command's range so that the two compare at a glance.
                    let off = (-vz).atan2(vx) - cmd.direction;
                    let off = off.sin().atan2(off.cos());
                    ui.label("goes")
                        .on_hover_text("Where the shown figure (played, or simulated) went over the last second");
                    ui.label(match speed < 0.1 {
                        true => format!("{speed:.1} m/s (standing)"),
                        false => format!(
                            "{speed:.1} m/s, heading {:.0}° ({:.0}° off the command)",
                            (cmd.direction + off).to_degrees(),
                            off.to_degrees().abs()
                        ),
                    });
                    ui.end_row();
                }
                ui.label("choice");
                match &c.last_decision {
                    Some(d) => ui.label(format!(
                        "cost {:.2} (playing on {:.2}) of {} edges{}",
                        d.cost,
                        d.continue_cost,
                        d.candidates,
                        d.transition
                            .map(|t| format!(" → transition {t}"))
                            .unwrap_or_default()
                    )),
                    None => ui.label("—"),
                };
                ui.end_row();
                ui.label("taken");
                ui.label(format!(
                    "{} transitions · step {:.0} µs",
                    c.transitions_taken, st.decision_us
                ));
                ui.end_row();
            });
        ui.separator();
        let Some(picture) = st.picture.as_mut() else {
            return;
        };
        ui.horizontal(|ui| {
            ui.vertical(|ui| {
                ui.small("graph: frames by clip, transitions");
                let (rect, _) =
                    ui.allocate_exact_size(egui::vec2(200.0, 200.0), egui::Sense::hover());
                let painter = ui.painter_at(rect);
                painter.rect_filled(rect, 4.0, egui::Color32::from_gray(24));
                for (k, t) in g.transitions.iter().enumerate() {
                    let lit = st.recent.contains(&k);
                    let colour = if lit {
                        egui::Color32::YELLOW
                    } else if t.exact {
                        egui::Color32::from_rgba_unmultiplied(60, 220, 90, 70)
                    } else {
                        egui::Color32::from_rgba_unmultiplied(200, 200, 200, 28)
                    };
                    let w = if lit { 2.5 } else { 1.0 };
                    painter.line_segment(
                        [
                            picture.ring_position(t.from, rect),
                            picture.ring_position(t.to, rect),
                        ],
                        egui::Stroke::new(w, colour),
                    );
                }
                for (ci, gc) in g.clips.iter().enumerate() {
                    let colour = if c.graph.kept(ci) {
                        clip_colour(ci, g.clips.len())
                    } else {
                        egui::Color32::from_gray(90)
                    };
                    for frame in 0..gc.frames {
                        let p = picture
                            .ring_position(crate::motion_graph::FrameRef { clip: ci, frame }, rect);
                        painter.circle_filled(p, 1.8, colour);
                    }
                }
                let here = picture.ring_position(f, rect);
                painter.circle_stroke(here, 6.0, egui::Stroke::new(2.0, egui::Color32::WHITE));
            });
            ui.vertical(|ui| {
                ui.small(format!(
                    "distance map (0–{:.2} m; red: blend, green: exact; turns and \
                         walk speed changes not compared)",
                    picture.scale
                ));
                let size = picture.shown_size;
                let offset = picture.picture_index(f);
                let starts: Vec<usize> = picture.shown.iter().flatten().copied().collect();
                if let Some(tex) = picture.texture(ui.ctx()) {
                    let r = ui
                        .add(egui::Image::new((tex.id(), egui::vec2(200.0, 200.0))))
                        .rect;
                    let painter = ui.painter_at(r);
                    if let Some(offset) = offset {
                        let s = offset as f32 / size.max(1) as f32;
                        let stroke = egui::Stroke::new(1.0, egui::Color32::from_rgb(80, 160, 255));
                        let y = r.top() + s * r.height();
                        painter.line_segment(
                            [egui::pos2(r.left(), y), egui::pos2(r.right(), y)],
                            stroke,
                        );
                    }
                    // Clip boundaries.
                    for o in starts {
                        let x = r.left() + o as f32 / size.max(1) as f32 * r.width();
                        painter.line_segment(
                            [egui::pos2(x, r.top()), egui::pos2(x, r.bottom())],
                            egui::Stroke::new(
                                0.5,
                                egui::Color32::from_rgba_unmultiplied(255, 255, 255, 40),
                            ),
                        );
                    }
                }
            });
        });
        if !g.pruned.is_empty() {
            ui.collapsing(format!("pruned clips ({})", g.pruned.len()), |ui| {
                for p in &g.pruned {
                    ui.small(format!("{}: {}", p.name, p.reason));
                }
            });
        }
    }
}
