//! The acceptance test of the editor (issue P7 deliverable 1; the tools of Borer et al. 2018, §4.3):
//! 1,000 random edits of every kind on human3d, each leaving a valid tree, then all undone to a
//! byte-identical file, redone and undone again.

use super::effector::is_pad;
use super::tests::{assert_tree, human3d, human3d_path, saved_text};
use super::*;
use crate::model::{Character, EffectorTag, JointKind, Shape, parse_character};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

const KINDS: usize = 16;

fn pick<'a, T>(rng: &mut ChaCha8Rng, items: &'a [T]) -> Option<&'a T> {
    (!items.is_empty()).then(|| &items[rng.random_range(0..items.len())])
}

fn jitter(rng: &mut ChaCha8Rng, v: [f64; 3], by: f64) -> [f64; 3] {
    v.map(|x| x + rng.random_range(-by..by))
}

fn unit(rng: &mut ChaCha8Rng) -> [f64; 3] {
    loop {
        let v: [f64; 3] = std::array::from_fn(|_| rng.random_range(-1.0..1.0));
        let n = (v[0] * v[0] + v[1] * v[1] + v[2] * v[2]).sqrt();
        if n > 0.1 && n <= 1.0 {
            return v.map(|x| x / n);
        }
    }
}

fn random_kind(rng: &mut ChaCha8Rng) -> JointKind {
    let a = unit(rng);
    match rng.random_range(0..4) {
        0 => JointKind::Hinge { axis: a },
        1 => {
            let b = unit(rng);
            let d = a[0] * b[0] + a[1] * b[1] + a[2] * b[2];
            let p = [b[0] - d * a[0], b[1] - d * a[1], b[2] - d * a[2]];
            let n = (p[0] * p[0] + p[1] * p[1] + p[2] * p[2]).sqrt();
            if n < 0.1 {
                return JointKind::Hinge { axis: a };
            }
            JointKind::Universal {
                axes: (a, p.map(|x| x / n)),
            }
        }
        2 => JointKind::Ball,
        _ => JointKind::Fixed,
    }
}

fn random_shape(rng: &mut ChaCha8Rng, shape: &Shape) -> Shape {
    let mut s = |x: f64| (x * rng.random_range(0.8..1.25)).clamp(0.01, 0.4);
    match *shape {
        Shape::Capsule {
            radius,
            half_length,
            axis,
        } => Shape::Capsule {
            radius: s(radius),
            half_length: s(half_length),
            axis,
        },
        Shape::Cylinder {
            radius,
            half_length,
            axis,
        } => Shape::Cylinder {
            radius: s(radius),
            half_length: s(half_length),
            axis,
        },
        Shape::Box { half_extents: h } => Shape::Box {
            half_extents: h.map(s),
        },
        Shape::Ellipsoid { radii } => Shape::Ellipsoid {
            radii: radii.map(s),
        },
    }
}

/// A random edit of tool `kind` on `c`, meant to be valid (small moves, limits around the rest
/// angles, the body count kept between 6 and 24); `None` if `c` offers no subject for it.
fn random_edit(rng: &mut ChaCha8Rng, c: &Character, kind: usize) -> Option<Edit> {
    let bodies: Vec<&str> = c.bodies.iter().map(|b| b.name.as_str()).collect();
    let body = pick(rng, &bodies)?.to_string();
    let b = &c.bodies[c.body_index(&body)?];
    let joints: Vec<&crate::model::Joint> = c.joints.iter().collect();
    let pads: Vec<&str> = bodies.iter().copied().filter(|n| is_pad(c, n)).collect();
    let n = c.bodies.len();
    Some(match kind {
        0 => Edit::SetBodyPosition {
            position: jitter(rng, b.position, 0.02),
            body,
        },
        1 => Edit::SetBodyRotation {
            rotation: jitter(rng, b.rotation, 10.0).map(|x| x.clamp(-90.0, 90.0)),
            body,
        },
        2 => Edit::SetBodyShape {
            shape: random_shape(rng, &b.shape),
            body,
        },
        3 => Edit::SetBodyMass {
            mass: (b.mass * rng.random_range(0.7..1.4)).clamp(0.05, 200.0),
            body,
        },
        4 => Edit::SetBodyDensity {
            density: rng.random_range(300.0..1500.0),
            body,
        },
        5 => Edit::SetJointKind {
            joint: pick(rng, &joints)?.name.clone(),
            kind: random_kind(rng),
        },
        6 => {
            let j = pick(rng, &joints)?;
            Edit::SetJointAnchor {
                joint: j.name.clone(),
                anchor: jitter(rng, j.anchor, 0.01),
            }
        }
        7 => {
            let j = pick(rng, &joints)?;
            let limits = if rng.random_bool(0.1) {
                Vec::new()
            } else {
                (0..j.kind.dof())
                    .map(|k| {
                        let r = j.rest.get(k).copied().unwrap_or(0.0);
                        (
                            r.min(0.0) - rng.random_range(1.0..150.0),
                            r.max(0.0) + rng.random_range(1.0..150.0),
                        )
                    })
                    .collect()
            };
            Edit::SetJointLimits {
                joint: j.name.clone(),
                limits,
            }
        }
        8 => {
            let joint = pick(rng, &joints)?.name.clone();
            let mut gain = |hi: f64| {
                let v = rng.random_range(0.0..hi);
                rng.random_bool(0.7).then_some(v)
            };
            Edit::SetJointGains {
                joint,
                kp: gain(2000.0),
                kd: gain(200.0),
                torque_limit: gain(300.0),
            }
        }
        9 => {
            let terminal: Vec<&str> = bodies
                .iter()
                .copied()
                .filter(|n| !c.joints.iter().any(|j| j.parent == *n) && !is_pad(c, n))
                .collect();
            if n >= 24 {
                return None;
            }
            Edit::AddEndEffector {
                body: pick(rng, &terminal)?.to_string(),
                tag: *pick(
                    rng,
                    &[EffectorTag::Foot, EffectorTag::Hand, EffectorTag::Head],
                )?,
                half_extents: std::array::from_fn(|_| rng.random_range(0.01..0.06)),
            }
        }
        10 => {
            let pad = pick(rng, &pads)?.to_string();
            let p = c.bodies[c.body_index(&pad)?].position;
            Edit::MoveEndEffector {
                position: jitter(rng, p, 0.01),
                body: pad,
            }
        }
        11 => Edit::ResizeEndEffector {
            body: pick(rng, &pads)?.to_string(),
            half_extents: std::array::from_fn(|_| rng.random_range(0.01..0.06)),
        },
        12 => Edit::RemoveEndEffector {
            body: pick(rng, &pads)?.to_string(),
        },
        13 => Edit::SetRoot { body },
        14 => {
            if n <= 6 {
                return None;
            }
            let small: Vec<&str> = bodies
                .iter()
                .copied()
                .filter(|b| *b != c.root.body && c.subtree(b).len() <= 3.min(n - 6))
                .collect();
            Edit::DeleteBody {
                body: pick(rng, &small)?.to_string(),
                mode: if rng.random_bool(0.5) {
                    DeleteMode::Subtree
                } else {
                    DeleteMode::MergeChildrenUp
                },
            }
        }
        _ => {
            if n <= 6 {
                return None;
            }
            let j = pick(rng, &joints)?;
            let (keep, absorb) = if rng.random_bool(0.5) {
                (j.parent.clone(), j.child.clone())
            } else {
                (j.child.clone(), j.parent.clone())
            };
            Edit::MergeBodies { keep, absorb }
        }
    })
}

#[test]
fn a_thousand_random_edits_undo_to_the_same_file() {
    let original = human3d();
    let original_text = saved_text(&original);
    // `original_text` is the file's load/save round trip, and it loads back unchanged.
    assert_eq!(
        parse_character(&original_text, &human3d_path()).unwrap(),
        original
    );
    let mut rng = ChaCha8Rng::seed_from_u64(7);
    let mut ed = Editor::new(original.clone());
    let (mut accepted, mut rejected) = ([0usize; KINDS], [0usize; KINDS]);
    let mut attempts = 0;
    while accepted.iter().sum::<usize>() < 1000 {
        attempts += 1;
        assert!(
            attempts < 5000,
            "accepted {accepted:?}, rejected {rejected:?}"
        );
        // Pads are the only tool that adds bodies: offered more often, they keep the body count
        // up for the deletes and merges.
        let kind = if rng.random_bool(0.1) {
            9
        } else {
            rng.random_range(0..KINDS)
        };
        let Some(edit) = random_edit(&mut rng, ed.character(), kind) else {
            continue;
        };
        ed.mirror = rng.random_bool(0.3);
        let before = ed.character().clone();
        let result = if rng.random_bool(0.2) {
            ed.apply_coalesced(edit.clone())
        } else {
            ed.apply(edit.clone())
        };
        match result {
            Ok(()) => {
                accepted[kind] += 1;
                assert_tree(ed.character());
            }
            Err(e) => {
                rejected[kind] += 1;
                eprintln!("rejected {edit:?} (mirror {}): {e}", ed.mirror);
                assert!(!e.messages().is_empty());
                assert_eq!(
                    ed.character(),
                    &before,
                    "{edit:?} rejected ({e}) but changed"
                );
            }
        }
    }
    let total: usize = accepted.iter().sum();
    eprintln!(
        "{total} accepted {accepted:?}, {} rejected {rejected:?}, {} undo steps, final {} bodies",
        rejected.iter().sum::<usize>(),
        ed.undo_len(),
        ed.character().bodies.len()
    );
    assert!(total >= 1000);
    assert!(
        accepted.iter().all(|&k| k >= 10),
        "every tool, several times: {accepted:?}"
    );
    assert!(
        rejected.iter().sum::<usize>() * 5 < total,
        "the generator makes mostly valid edits: {rejected:?}"
    );
    let edited = ed.character().clone();
    assert_ne!(edited, original);
    let steps = ed.undo_len();
    assert!(steps > 500, "{steps} undo steps");

    let undo_all = |ed: &mut Editor| {
        let mut n = 0;
        while ed.undo() {
            n += 1;
        }
        n
    };
    assert_eq!(undo_all(&mut ed), steps);
    assert_eq!(ed.character(), &original);
    assert!(!ed.is_modified());
    assert_eq!(saved_text(ed.character()), original_text);
    assert_eq!(ed.redo_len(), steps);

    let mut redone = 0;
    while ed.redo() {
        redone += 1;
    }
    assert_eq!(redone, steps);
    assert_eq!(ed.character(), &edited);
    assert_eq!(undo_all(&mut ed), steps);
    assert_eq!(saved_text(ed.character()), original_text);
}
