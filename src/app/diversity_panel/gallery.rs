//! The motions side by side in the 3D viewport: their placement, colours, lane markers, the
//! ghost (a translucent wireframe of one motion over another's lane) and their labels; the
//! camera following travelling motions. The figures themselves are skinned (`figures.rs`).

use super::*;

pub(super) fn apply_gallery_view(
    mut state: ResMut<DiversityState>,
    mut orbit: ResMut<OrbitCamera>,
) {
    if !state.view_request {
        return;
    }
    let n = state.result.as_ref().map(|r| r.motions.len()).unwrap_or(0);
    if n == 0 {
        return;
    }
    state.view_request = false;
    // Look at the row obliquely (the live character is off stage meanwhile).
    orbit.follow = false;
    let mid = (n - 1) as f32 * GALLERY_SPACING / 2.0;
    // Yaw ≈ 45°: lanes (z) spread across the screen while the sagittal (x–y) motion stays readable.
    orbit.target = Vec3::new(-0.3, 0.8, mid);
    orbit.yaw = 0.8;
    orbit.pitch = 0.2;
    orbit.distance = 4.0 + n as f32 * 1.6;
}

/// Keeps the orbit target on the mean x of the motions' centres of mass at the gallery clock
/// (the lanes' z and the user's zoom and angle are left alone).
pub(super) fn follow_gallery(state: Res<DiversityState>, mut orbit: ResMut<OrbitCamera>) {
    if !state.follow || state.entries.is_empty() {
        return;
    }
    let xs: Vec<f32> = state
        .entries
        .iter()
        .filter_map(|e| state.frame(e.index, state.clock).map(|(_, f)| f.com[0]))
        .collect();
    if xs.is_empty() {
        return;
    }
    orbit.target.x = xs.iter().sum::<f32>() / xs.len() as f32 - 0.3;
}

/// Motion `i`'s colour (M0, the input, white).
pub(super) fn motion_colour(i: usize) -> [f32; 3] {
    crate::app::workbench::palette::series_with_reference(i)
}

/// Joint centres in the world for a frame: (parent body, anchor, child body) per joint.
pub(super) fn skeleton(
    character: &Character,
    frame: &crate::sim::Frame,
) -> Vec<(Vec3, Vec3, Vec3)> {
    let pose = |i: usize| crate::app::workbench::figures::pose_to_transform(frame.poses[i]);
    character
        .joints
        .iter()
        .filter_map(|j| {
            let pi = character.body_index(&j.parent)?;
            let ci = character.body_index(&j.child)?;
            if pi >= frame.poses.len() || ci >= frame.poses.len() {
                return None;
            }
            let child = &character.bodies[ci];
            let q = child.orientation().map(|x| x as f32);
            let reference = Transform::from_translation(
                crate::app::workbench::figures::model_vec3(child.position),
            )
            .with_rotation(Quat::from_xyzw(q[0], q[1], q[2], q[3]));
            let local = reference
                .to_matrix()
                .inverse()
                .transform_point3(crate::app::workbench::figures::model_vec3(j.anchor));
            Some((
                pose(pi).translation,
                pose(ci).transform_point(local),
                pose(ci).translation,
            ))
        })
        .collect()
}

pub(super) fn draw_figure(
    gizmos: &mut Gizmos,
    character: &Character,
    frame: &crate::sim::Frame,
    offset: Vec3,
    colour: Color,
) {
    for (i, b) in character.bodies.iter().enumerate() {
        let Some(p) = frame.poses.get(i) else {
            continue;
        };
        let t = crate::app::workbench::figures::pose_to_transform(*p);
        let at = t.translation + offset;
        crate::app::overlays::draw_shape(gizmos, &b.shape.as_f32(), at, t.rotation, colour);
    }
    for (a, j, c) in skeleton(character, frame) {
        gizmos.line(a + offset, j + offset, colour);
        gizmos.line(j + offset, c + offset, colour);
        gizmos.sphere(Isometry3d::from_translation(j + offset), 0.025, colour);
    }
}

pub(super) fn draw_gallery(mut gizmos: Gizmos, state: Res<DiversityState>) {
    let u = state.clock;
    for e in &state.entries {
        let Some((character, frame)) = state.frame(e.index, u) else {
            continue;
        };
        let [r, g, b] = motion_colour(e.index);
        let offset = Vec3::new(0.0, 0.0, e.index as f32 * GALLERY_SPACING);
        // The joints over the skin, so the skeleton reads through it.
        for (_, j, _) in skeleton(character, frame) {
            gizmos.sphere(
                Isometry3d::from_translation(j + offset),
                0.025,
                Color::srgb(r * 0.6, g * 0.6, b * 0.6),
            );
        }
        // Ground marker under each lane, under the figure as it travels.
        let x = frame.com[0];
        gizmos.line(
            offset + Vec3::new(x - 1.5, 0.003, 0.0),
            offset + Vec3::new(x + 1.5, 0.003, 0.0),
            Color::srgba(r, g, b, 0.6),
        );
    }
    if state.ghost && state.ghost_a != state.ghost_b {
        if let Some((character, frame)) = state.frame(state.ghost_b, u) {
            let [r, g, b] = motion_colour(state.ghost_b);
            let offset = Vec3::new(0.0, 0.0, state.ghost_a as f32 * GALLERY_SPACING);
            draw_figure(
                &mut gizmos,
                character,
                frame,
                offset,
                Color::srgba(r, g, b, 0.35),
            );
        }
    }
}

/// Names each gallery lane (M0 = input) above the figure.
pub(super) fn gallery_labels(
    mut contexts: EguiContexts,
    state: Res<DiversityState>,
    bench: Res<Workbench>,
    camera: Query<(&Camera, &GlobalTransform), With<MainCamera>>,
) -> Result {
    if state.entries.is_empty() {
        return Ok(());
    }
    let Ok((cam, gt)) = camera.single() else {
        return Ok(());
    };
    let ctx = contexts.ctx_mut()?;
    let painter = ctx.layer_painter(egui::LayerId::new(
        egui::Order::Background,
        egui::Id::new("gallery_labels"),
    ));
    let central = bench.central().unwrap_or_else(|| ctx.viewport_rect());
    for e in &state.entries {
        let head = state
            .frame(e.index, state.clock)
            .map(|(_, f)| f.poses.iter().map(|p| p[1]).fold(0.0f32, f32::max))
            .unwrap_or(1.8);
        let x = state
            .frame(e.index, state.clock)
            .map(|(_, f)| f.com[0])
            .unwrap_or(0.0);
        let world = Vec3::new(x, head + 0.35, e.index as f32 * GALLERY_SPACING);
        let Ok(p) = cam.world_to_viewport(gt, world) else {
            continue;
        };
        let pos = egui::pos2(p.x, p.y);
        if !central.contains(pos) {
            continue;
        }
        let col = crate::app::workbench::palette::to_egui(motion_colour(e.index));
        let text = if e.index == 0 {
            "M0 (input)".to_string()
        } else {
            format!("M{}", e.index)
        };
        let rect = painter.text(
            pos,
            egui::Align2::CENTER_BOTTOM,
            &text,
            egui::FontId::proportional(16.0),
            egui::Color32::BLACK,
        );
        painter.rect_filled(rect.expand(3.0), 3.0, egui::Color32::from_black_alpha(200));
        painter.text(
            pos,
            egui::Align2::CENTER_BOTTOM,
            text,
            egui::FontId::proportional(16.0),
            col,
        );
    }
    Ok(())
}
