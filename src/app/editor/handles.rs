//! Handles on the selected body, dragged with the left mouse button (Borer et al. 2018, §4.3
//! "Editing tools"; issue P7 "move, rotate and resize", "the axis dragged on a gizmo", "limits
//! drawn as arcs and edited"):
//! - three arrows along the world axes move the body (a foot pad moves with its weld);
//! - three rings about the world axes turn it;
//! - white knobs on its surface resize it (a capsule's end its length, its side its radius; a
//!   box's or ellipsoid's faces their half sizes);
//! - orange knobs at the ends of each limit arc set that limit;
//! - a blue knob at the tip of each joint axis turns the axis.
//!
//! A handle is picked in screen space (the nearest within a few pixels); a drag is measured on
//! the handle's line, plane or sphere through the cursor's ray, from the frame the handle had
//! when the button went down, and becomes one [`Edit`] applied with `apply_coalesced` (one undo
//! step per drag; the drag's end closes it). `gui --edit-drag HANDLE:DX,DY` plays one drag by
//! script, for tests and screenshots.

use super::EditorState;
use super::handle_geometry::{
    BodyFrame, body_frame, dvec, extent, line_param, plane_angle, plane_hit, quat, resized,
    ring_points, size_axes, sphere_point, to_segment, unwrap_deg,
};
use crate::app::character::LiveSim;
use crate::app::overlays::OverlayGizmos;
use crate::app::viewport::MainCamera;
use crate::editor::Edit;
use crate::model::rotation::quat_to_euler_xyz_deg;
use crate::model::{Character, JointKind, Shape};
use bevy::prelude::*;
use bevy::window::PrimaryWindow;
use crate::app::workbench::pointer::UiPointer;

/// Radius of the turn rings and of the knobs, as fractions of the handles' size (the length of
/// the move arrows and of the joint-axis arrow, [`BodyFrame::size`]).
const RING: f32 = 0.7;
const KNOB: f32 = 0.06;
/// Pick tolerance, pixels.
const PICK_PX: f32 = 9.0;
const HOVER: Color = Color::srgb(1.0, 1.0, 0.2);
const AXIS_COLORS: [Color; 3] = [
    Color::srgb(0.95, 0.2, 0.2),
    Color::srgb(0.25, 0.85, 0.25),
    Color::srgb(0.25, 0.45, 1.0),
];

/// What a handle changes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum HandleKind {
    /// Move along world axis 0, 1 or 2.
    Move(usize),
    /// Turn about world axis 0, 1 or 2.
    Turn(usize),
    /// Resize along the body's own axis 0, 1 or 2.
    Size(usize),
    /// The lower limit of the joint's degree of freedom k.
    LimitLo(usize),
    /// The upper limit of the joint's degree of freedom k.
    LimitHi(usize),
    /// The axis of the joint's degree of freedom k.
    Axis(usize),
}

impl HandleKind {
    /// `move-x`, `turn-y`, `size-z` (the body's own axes), `limit-lo`, `limit-hi-1`, `axis`,
    /// `axis-1` (degree of freedom 1 of a universal joint).
    pub fn parse(s: &str) -> Option<HandleKind> {
        let xyz = |t: &str| ["x", "y", "z"].iter().position(|a| *a == t);
        let dof = |t: Option<&str>| match t {
            None => Some(0),
            Some(n) => n.parse().ok(),
        };
        let mut parts = s.splitn(3, '-');
        let head = parts.next()?;
        match head {
            "move" => Some(HandleKind::Move(xyz(parts.next()?)?)),
            "turn" => Some(HandleKind::Turn(xyz(parts.next()?)?)),
            "size" => Some(HandleKind::Size(xyz(parts.next()?)?)),
            "axis" => Some(HandleKind::Axis(dof(parts.next())?)),
            "limit" => {
                let end = parts.next()?;
                let k = dof(parts.next())?;
                match end {
                    "lo" => Some(HandleKind::LimitLo(k)),
                    "hi" => Some(HandleKind::LimitHi(k)),
                    _ => None,
                }
            }
            _ => None,
        }
    }
}

/// How a handle looks and is picked.
#[derive(Clone, Copy, Debug)]
enum Look {
    Arrow {
        from: Vec3,
        to: Vec3,
    },
    Ring {
        center: Vec3,
        normal: Vec3,
        radius: f32,
    },
    Knob(Vec3),
}

/// Every handle of the selected body.
fn handle_list(c: &Character, f: &BodyFrame) -> Vec<(HandleKind, Look)> {
    let b = &c.bodies[f.index];
    let mut out = Vec::new();
    for k in 0..3 {
        let d = Vec3::AXES[k];
        out.push((
            HandleKind::Move(k),
            Look::Arrow {
                from: f.center,
                to: f.center + d * f.size,
            },
        ));
        out.push((
            HandleKind::Turn(k),
            Look::Ring {
                center: f.center,
                normal: d,
                radius: RING * f.size,
            },
        ));
    }
    for k in size_axes(&b.shape) {
        let p = f.center + f.rotation * Vec3::AXES[k] * extent(&b.shape, k) as f32;
        out.push((HandleKind::Size(k), Look::Knob(p)));
    }
    if let Some(j) = &f.joint {
        let joint = &c.joints[j.index];
        for d in &j.dofs {
            if let Some(&(lo, hi)) = joint.limits.get(d.k) {
                out.push((
                    HandleKind::LimitLo(d.k),
                    Look::Knob(d.at_angle(j.anchor, lo)),
                ));
                out.push((
                    HandleKind::LimitHi(d.k),
                    Look::Knob(d.at_angle(j.anchor, hi)),
                ));
            }
            if matches!(
                joint.kind,
                JointKind::Hinge { .. } | JointKind::Universal { .. }
            ) {
                out.push((
                    HandleKind::Axis(d.k),
                    Look::Knob(j.anchor + d.axis * f.size),
                ));
            }
        }
    }
    out
}

/// The handle under `cursor` (pixels), knobs first.
fn pick(
    list: &[(HandleKind, Look)],
    cursor: Vec2,
    to_screen: impl Fn(Vec3) -> Option<Vec2>,
) -> Option<HandleKind> {
    let mut best: Option<(f32, HandleKind)> = None;
    for (kind, look) in list {
        let d = match *look {
            Look::Knob(p) => to_screen(p).map(|s| (s - cursor).length() - 4.0),
            Look::Arrow { from, to } => match (to_screen(from), to_screen(to)) {
                (Some(a), Some(b)) => Some(to_segment(cursor, a, b)),
                _ => None,
            },
            Look::Ring {
                center,
                normal,
                radius,
            } => {
                let pts: Option<Vec<Vec2>> = ring_points(center, normal, radius)
                    .into_iter()
                    .map(&to_screen)
                    .collect();
                pts.map(|p| {
                    p.windows(2)
                        .map(|w| to_segment(cursor, w[0], w[1]))
                        .fold(f32::INFINITY, f32::min)
                })
            }
        };
        if let Some(d) = d
            && d <= PICK_PX
            && best.is_none_or(|(bd, _)| d < bd)
        {
            best = Some((d, *kind));
        }
    }
    best.map(|(_, k)| k)
}

/// A drag in progress: the handle and the frame it had when the button went down.
#[derive(Clone, Debug)]
struct Drag {
    kind: HandleKind,
    body: String,
    frame: BodyFrame,
    /// The document's character when the drag began.
    start: Character,
    /// Where the drag began on the handle's line (m) or plane (degrees).
    origin: f64,
}

/// The edit that dragging `d` to `ray` makes, if the ray gives one.
fn drag_edit(d: &Drag, ray: Ray3d) -> Option<Edit> {
    let c = &d.start;
    let b = &c.bodies[c.body_index(&d.body)?];
    let f = &d.frame;
    let pad = crate::editor::is_pad(c, &b.name);
    match d.kind {
        HandleKind::Move(k) => {
            let s = line_param(ray, f.center, Vec3::AXES[k])? as f64;
            let mut p = b.position;
            p[k] += s - d.origin;
            let position = p.map(|x| (x * 1e5).round() / 1e5);
            Some(if pad {
                Edit::MoveEndEffector {
                    body: b.name.clone(),
                    position,
                }
            } else {
                Edit::SetBodyPosition {
                    body: b.name.clone(),
                    position,
                }
            })
        }
        HandleKind::Turn(k) => {
            let n = Vec3::AXES[k];
            let u = n.any_orthonormal_vector();
            let a = plane_angle(plane_hit(ray, f.center, n)?, f.center, u, n.cross(u));
            let turn = unwrap_deg(a - d.origin, 0.0);
            let q = Quat::from_axis_angle(n, (turn as f32).to_radians()) * quat(b.orientation());
            let q = [q.x, q.y, q.z, q.w].map(|x| x as f64);
            Some(Edit::SetBodyRotation {
                body: b.name.clone(),
                rotation: quat_to_euler_xyz_deg(q).map(|x| (x * 1e3).round() / 1e3),
            })
        }
        HandleKind::Size(k) => {
            let dir = f.rotation * Vec3::AXES[k];
            let s = line_param(ray, f.center, dir)? as f64;
            let e = extent(&b.shape, k) + s - d.origin;
            let shape = resized(&b.shape, k, (e * 1e5).round() / 1e5);
            Some(match (pad, shape) {
                (true, Shape::Box { half_extents }) => Edit::ResizeEndEffector {
                    body: b.name.clone(),
                    half_extents,
                },
                (_, shape) => Edit::SetBodyShape {
                    body: b.name.clone(),
                    shape,
                },
            })
        }
        HandleKind::LimitLo(k) | HandleKind::LimitHi(k) => {
            let j = f.joint.as_ref()?;
            let dof = j.dofs.iter().find(|x| x.k == k)?;
            let joint = &c.joints[j.index];
            let (lo, hi) = *joint.limits.get(k)?;
            let a = plane_angle(plane_hit(ray, j.anchor, dof.axis)?, j.anchor, dof.u, dof.v);
            let mut limits = joint.limits.clone();
            limits[k] = if matches!(d.kind, HandleKind::LimitLo(_)) {
                ((unwrap_deg(a, lo).round()).min(hi - 1.0), hi)
            } else {
                (lo, (unwrap_deg(a, hi).round()).max(lo + 1.0))
            };
            Some(Edit::SetJointLimits {
                joint: joint.name.clone(),
                limits,
            })
        }
        HandleKind::Axis(k) => {
            let j = f.joint.as_ref()?;
            let joint = &c.joints[j.index];
            let live = (sphere_point(ray, j.anchor, f.size) - j.anchor).normalize_or_zero();
            let axis = dvec((j.parent_turn.inverse() * live).normalize_or_zero());
            let kind = match joint.kind {
                JointKind::Hinge { .. } => JointKind::Hinge { axis },
                JointKind::Universal { axes } if k == 0 => JointKind::Universal {
                    axes: (axis, axes.1),
                },
                JointKind::Universal { axes } => JointKind::Universal {
                    axes: (axes.0, axis),
                },
                _ => return None,
            };
            Some(Edit::SetJointKind {
                joint: joint.name.clone(),
                kind,
            })
        }
    }
}

/// Where a drag begins on its handle: the parameter `drag_edit` measures from.
fn drag_origin(kind: HandleKind, f: &BodyFrame, ray: Ray3d) -> Option<f64> {
    match kind {
        HandleKind::Move(k) => line_param(ray, f.center, Vec3::AXES[k]).map(f64::from),
        HandleKind::Size(k) => line_param(ray, f.center, f.rotation * Vec3::AXES[k]).map(f64::from),
        HandleKind::Turn(k) => {
            let n = Vec3::AXES[k];
            let u = n.any_orthonormal_vector();
            plane_hit(ray, f.center, n).map(|p| plane_angle(p, f.center, u, n.cross(u)))
        }
        HandleKind::LimitLo(_) | HandleKind::LimitHi(_) | HandleKind::Axis(_) => Some(0.0),
    }
}

/// A drag played by `gui --edit-drag HANDLE:DX,DY`: the button goes down on the handle at
/// frame [`SCRIPT_START`], the cursor moves DX, DY pixels over 20 frames, and the button
/// comes up; the document is then saved to `save_to` (`--edit-out`) when given.
#[derive(Resource, Clone, Debug)]
pub struct ScriptedDrag {
    pub kind: HandleKind,
    pub by: Vec2,
    pub save_to: Option<std::path::PathBuf>,
    frame: u32,
    from: Option<Vec2>,
}

/// Why a `--edit-drag` value is not `HANDLE:DX,DY`.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
pub enum DragError {
    #[error("expected HANDLE:DX,DY, e.g. limit-hi:0,40")]
    Syntax,
    #[error(
        "unknown handle `{0}`: expected move-x|y|z, turn-x|y|z, size-x|y|z, limit-lo[-K], limit-hi[-K] or axis[-K]"
    )]
    UnknownHandle(String),
    #[error("expected two numbers of pixels DX,DY, got `{0}`")]
    Pixels(String),
}

impl ScriptedDrag {
    pub fn new(kind: HandleKind, by: Vec2, save_to: Option<std::path::PathBuf>) -> Self {
        ScriptedDrag {
            kind,
            by,
            save_to,
            frame: 0,
            from: None,
        }
    }

    /// `HANDLE:DX,DY` (see [`HandleKind::parse`]; pixels, y down).
    pub fn parse(s: &str, save_to: Option<std::path::PathBuf>) -> Result<Self, DragError> {
        let (name, by) = s.split_once(':').ok_or(DragError::Syntax)?;
        let kind =
            HandleKind::parse(name).ok_or_else(|| DragError::UnknownHandle(name.to_string()))?;
        let xy: Vec<f32> = by
            .split(',')
            .map(|t| t.trim().parse::<f32>())
            .collect::<Result<_, _>>()
            .map_err(|_| DragError::Pixels(by.to_string()))?;
        match xy[..] {
            [x, y] if x.is_finite() && y.is_finite() => {
                Ok(ScriptedDrag::new(kind, Vec2::new(x, y), save_to))
            }
            _ => Err(DragError::Pixels(by.to_string())),
        }
    }
}

const SCRIPT_START: u32 = 25;

impl ScriptedDrag {
    /// The drag has been played (and its result saved).
    pub fn done(&self) -> bool {
        self.frame > SCRIPT_START + SCRIPT_FRAMES + 1
    }
}
const SCRIPT_FRAMES: u32 = 20;

/// The pointer this frame: where it is, and whether the left button went down, is held, or
/// came up.
#[derive(Clone, Copy, Debug, Default)]
struct Pointer {
    at: Option<Vec2>,
    pressed: bool,
    held: bool,
    released: bool,
}

/// The handle under the cursor (drawn highlighted) and the drag in progress.
#[derive(Resource, Default)]
pub(super) struct Handles {
    hover: Option<HandleKind>,
    drag: Option<Drag>,
    /// The drag began this frame: the click does not select a body.
    pub took_click: bool,
}

#[allow(clippy::too_many_arguments)]
pub(super) fn drag_handles(
    mut state: ResMut<EditorState>,
    mut handles: ResMut<Handles>,
    mut script: Option<ResMut<ScriptedDrag>>,
    live: Res<LiveSim>,
    mouse: Res<ButtonInput<MouseButton>>,
    window: Query<&Window, With<PrimaryWindow>>,
    camera: Query<(&Camera, &GlobalTransform), With<MainCamera>>,
    ui: UiPointer,
) {
    handles.took_click = false;
    let (Ok(window), Ok((camera, cam_t))) = (window.single(), camera.single()) else {
        return;
    };
    let Some(bi) = state.selected_body(&live.character) else {
        handles.drag = None;
        return;
    };
    if !state.visible || state.doc.is_none() {
        return;
    }
    let frame = body_frame(&live, bi, cam_t.translation());
    let list = handle_list(&live.character, &frame);
    let to_screen = |p: Vec3| camera.world_to_viewport(cam_t, p).ok();
    let pointer = match script.as_deref_mut() {
        Some(s) => scripted_pointer(s, &list, &to_screen),
        None => {
            let over_ui = ui.over_ui();
            Pointer {
                at: window.cursor_position(),
                pressed: mouse.just_pressed(MouseButton::Left) && !over_ui,
                held: mouse.pressed(MouseButton::Left),
                released: mouse.just_released(MouseButton::Left),
            }
        }
    };
    let ray = pointer
        .at
        .and_then(|c| camera.viewport_to_world(cam_t, c).ok());
    if handles.drag.is_none() {
        handles.hover = pointer.at.and_then(|c| pick(&list, c, &to_screen));
        if pointer.pressed
            && let (Some(kind), Some(ray), Some(doc)) = (handles.hover, ray, state.doc.as_ref())
            && let Some(origin) = drag_origin(kind, &frame, ray)
        {
            handles.drag = Some(Drag {
                kind,
                body: live.character.bodies[bi].name.clone(),
                frame,
                start: doc.character().clone(),
                origin,
            });
            handles.took_click = true;
        }
        return;
    }
    if pointer.held && !pointer.released {
        // A cursor outside the window leaves the drag where it was until it comes back.
        if let (Some(ray), Some(d)) = (ray, handles.drag.as_ref())
            && let Some(edit) = drag_edit(d, ray)
        {
            state.edit(edit, true);
        }
        return;
    }
    // The button came up: the drag is one undo step.
    handles.drag = None;
    if let Some(doc) = state.doc.as_mut() {
        doc.end_drag();
    }
    if let Some(out) = script.and_then(|s| s.save_to.clone()) {
        state.save(&out);
    }
}

fn scripted_pointer(
    s: &mut ScriptedDrag,
    list: &[(HandleKind, Look)],
    to_screen: &impl Fn(Vec3) -> Option<Vec2>,
) -> Pointer {
    s.frame += 1;
    if s.frame < SCRIPT_START {
        return Pointer::default();
    }
    if s.from.is_none() {
        s.from = list
            .iter()
            .find(|(k, _)| *k == s.kind)
            .and_then(|(_, look)| match *look {
                Look::Knob(p) => to_screen(p),
                Look::Arrow { from, to } => to_screen(from.lerp(to, 0.8)),
                Look::Ring {
                    center,
                    normal,
                    radius,
                } => to_screen(ring_points(center, normal, radius)[6]),
            });
    }
    let Some(from) = s.from else {
        return Pointer::default();
    };
    let i = s.frame - SCRIPT_START;
    let t = (i as f32 / SCRIPT_FRAMES as f32).min(1.0);
    Pointer {
        at: Some(from + s.by * t),
        pressed: i == 0,
        held: i > 0 && i <= SCRIPT_FRAMES,
        released: i == SCRIPT_FRAMES + 1,
    }
}

/// Draws the handles of the selected body, the hovered or dragged one highlighted.
pub(super) fn draw_handles(
    state: Res<EditorState>,
    handles: Res<Handles>,
    live: Res<LiveSim>,
    camera: Query<&GlobalTransform, With<MainCamera>>,
    mut gizmos: Gizmos<OverlayGizmos>,
) {
    if !state.visible || state.doc.is_none() {
        return;
    }
    let Ok(cam_t) = camera.single() else {
        return;
    };
    let Some(bi) = state.selected_body(&live.character) else {
        return;
    };
    let frame = body_frame(&live, bi, cam_t.translation());
    let active = handles.drag.as_ref().map(|d| d.kind).or(handles.hover);
    for (kind, look) in handle_list(&live.character, &frame) {
        let base = match kind {
            HandleKind::Move(k) => AXIS_COLORS[k],
            HandleKind::Turn(k) => AXIS_COLORS[k].with_alpha(0.6),
            HandleKind::Size(_) => Color::WHITE,
            HandleKind::LimitLo(_) | HandleKind::LimitHi(_) => Color::srgb(1.0, 0.35, 0.1),
            HandleKind::Axis(_) => Color::srgb(0.2, 0.45, 1.0),
        };
        let color = if active == Some(kind) { HOVER } else { base };
        match look {
            Look::Arrow { from, to } => {
                gizmos.arrow(from, to, color);
            }
            Look::Ring {
                center,
                normal,
                radius,
            } => {
                gizmos.linestrip(ring_points(center, normal, radius), color);
            }
            Look::Knob(p) => {
                gizmos.sphere(Isometry3d::from_translation(p), KNOB * frame.size, color);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn handle_names_parse() {
        assert_eq!(HandleKind::parse("move-y"), Some(HandleKind::Move(1)));
        assert_eq!(HandleKind::parse("turn-z"), Some(HandleKind::Turn(2)));
        assert_eq!(HandleKind::parse("size-x"), Some(HandleKind::Size(0)));
        assert_eq!(HandleKind::parse("limit-hi"), Some(HandleKind::LimitHi(0)));
        assert_eq!(
            HandleKind::parse("limit-lo-1"),
            Some(HandleKind::LimitLo(1))
        );
        assert_eq!(HandleKind::parse("axis-1"), Some(HandleKind::Axis(1)));
        for bad in ["move", "move-w", "limit-mid", "axis-one", "spin-x", ""] {
            assert_eq!(HandleKind::parse(bad), None, "{bad}");
        }
    }
}
