use super::*;
use std::collections::HashSet;
use std::path::{Path, PathBuf};

pub(super) fn builtin_path(name: &str) -> PathBuf {
    Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/characters")).join(format!("{name}.ron"))
}

pub(super) fn builtin(name: &str) -> Character {
    load_character(&builtin_path(name)).unwrap_or_else(|e| panic!("loading {name}: {e}"))
}

fn joint<'a>(c: &'a Character, name: &str) -> &'a Joint {
    c.joints
        .iter()
        .find(|j| j.name == name)
        .unwrap_or_else(|| panic!("{}: no joint {name}", c.name))
}

fn count_kind(c: &Character, label: &str) -> usize {
    c.joints.iter().filter(|j| j.kind.label() == label).count()
}

/// Joints controlled independently once left/right mirror pairs share one controller: a joint
/// whose child is in a mirror pair counts once per pair.
fn independent_joints(c: &Character) -> usize {
    let mut keys = HashSet::new();
    for j in &c.joints {
        let key = match c
            .mirror_pairs
            .iter()
            .position(|(l, r)| *l == j.child || *r == j.child)
        {
            Some(pair) => format!("pair {pair}"),
            None => format!("joint {}", j.name),
        };
        keys.insert(key);
    }
    keys.len()
}

fn assert_common_annotations(c: &Character) {
    let feet: Vec<&str> = c
        .effectors(EffectorTag::Foot)
        .map(|e| e.body.as_str())
        .collect();
    assert_eq!(feet, ["l_foot", "r_foot"], "{}: foot effectors", c.name);
    let heads: Vec<&str> = c
        .effectors(EffectorTag::Head)
        .map(|e| e.body.as_str())
        .collect();
    assert_eq!(heads, ["head"], "{}: head effector", c.name);
    for e in &c.end_effectors {
        assert!(
            c.body_index(&e.body).is_some(),
            "{}: effector on unknown body {}",
            c.name,
            e.body
        );
    }
    assert!(!c.mirror_pairs.is_empty(), "{}: no mirror pairs", c.name);
    for (l, r) in &c.mirror_pairs {
        let (li, ri) = (c.body_index(l), c.body_index(r));
        assert!(
            li.is_some() && ri.is_some(),
            "{}: mirror pair ({l}, {r}) names a missing body",
            c.name
        );
        assert!(
            l.starts_with("l_") && r.starts_with("r_") && l[2..] == r[2..],
            "{}: pair ({l}, {r})",
            c.name
        );
        let (bl, br) = (&c.bodies[li.unwrap()], &c.bodies[ri.unwrap()]);
        // Mirror images: same shape and mass, positions reflected through z = 0.
        assert_eq!(bl.shape, br.shape, "{}: pair ({l}, {r}) shapes", c.name);
        assert_eq!(bl.mass, br.mass, "{}: pair ({l}, {r}) masses", c.name);
        assert_eq!(
            [bl.position[0], bl.position[1], -bl.position[2]],
            br.position,
            "{}: pair ({l}, {r})",
            c.name
        );
        // Their joints share gains, limits and torque limits (one controller per pair).
        let (jl, jr) = (c.joint_to(l).unwrap(), c.joint_to(r).unwrap());
        assert_eq!(jl.kind, jr.kind, "{}: {} vs {}", c.name, jl.name, jr.name);
        assert_eq!(
            jl.limits, jr.limits,
            "{}: {} vs {}",
            c.name, jl.name, jr.name
        );
        assert_eq!(
            (jl.kp, jl.kd, jl.torque_limit),
            (jr.kp, jr.kd, jr.torque_limit),
            "{}: {} vs {}",
            c.name,
            jl.name,
            jr.name
        );
    }
    assert!(c.validate().is_empty(), "{}: {:?}", c.name, c.validate());
}

#[test]
fn human2d_matches_the_paper() {
    let c = builtin("human2d");
    assert_eq!(c.name, "human2d");
    assert_eq!(c.bodies.len(), 17);
    assert_eq!(
        c.root,
        Root {
            body: "pelvis".into(),
            kind: RootKind::Planar,
            origin: None
        }
    );
    assert_eq!(c.joints.len(), 16);
    assert_eq!(c.internal_dof(), 16);
    assert_eq!(count_kind(&c, "hinge"), 16);
    assert_eq!(independent_joints(&c), 10);
    assert!(
        (c.total_mass() - 80.0).abs() <= 0.01,
        "mass {}",
        c.total_mass()
    );
    assert!((c.height() - 1.60).abs() <= 0.005, "height {}", c.height());
    for j in &c.joints {
        // Planar: every hinge turns about z.
        assert_eq!(
            j.kind,
            JointKind::Hinge {
                axis: [0.0, 0.0, 1.0]
            },
            "{}",
            j.name
        );
        let expected = match j.name.as_str() {
            "l_hip" | "r_hip" | "upper_waist" => 300.0,
            "l_knee" | "r_knee" | "l_ankle" | "r_ankle" | "lower_waist" | "l_shoulder"
            | "r_shoulder" => 200.0,
            _ => 50.0,
        };
        assert_eq!(j.torque_limit, Some(expected), "torque limit of {}", j.name);
    }
    // The named 300 and 200 N·m joints all exist (the match above is not vacuous).
    for n in [
        "l_hip",
        "r_hip",
        "upper_waist",
        "lower_waist",
        "l_knee",
        "r_ankle",
        "l_shoulder",
        "r_shoulder",
    ] {
        joint(&c, n);
    }
    assert_eq!(
        c.joints
            .iter()
            .filter(|j| j.torque_limit == Some(50.0))
            .count(),
        6
    );
    assert_common_annotations(&c);
}

#[test]
fn human3d_matches_the_paper() {
    let c = builtin("human3d");
    assert_eq!(c.name, "human3d");
    assert_eq!(c.bodies.len(), 15);
    assert_eq!(c.root.kind, RootKind::Free);
    assert_eq!(c.internal_dof(), 24);
    assert_eq!(c.dof_names().len(), 24);
    assert_eq!(count_kind(&c, "universal"), 10);
    assert_eq!(count_kind(&c, "hinge"), 4);
    assert_eq!(c.joints.len(), 14);
    for n in ["l_elbow", "r_elbow", "l_knee", "r_knee"] {
        assert_eq!(joint(&c, n).kind.label(), "hinge", "{n}");
    }
    assert!(
        (c.total_mass() - 80.0).abs() <= 0.01,
        "mass {}",
        c.total_mass()
    );
    assert!((c.height() - 1.80).abs() <= 0.005, "height {}", c.height());
    let limits = [
        ("waist", 200.0),
        ("l_hip", 200.0),
        ("r_hip", 200.0),
        ("l_knee", 150.0),
        ("r_knee", 150.0),
        ("l_ankle", 150.0),
        ("r_ankle", 150.0),
        ("neck", 50.0),
        ("l_shoulder", 100.0),
        ("r_shoulder", 100.0),
        ("l_elbow", 100.0),
        ("r_elbow", 100.0),
        ("l_wrist", 100.0),
        ("r_wrist", 100.0),
    ];
    assert_eq!(limits.len(), c.joints.len());
    for (n, lim) in limits {
        assert_eq!(joint(&c, n).torque_limit, Some(lim), "torque limit of {n}");
    }
    assert_common_annotations(&c);
}

#[test]
fn bird_robot_matches_the_paper() {
    let c = builtin("bird_robot");
    assert_eq!(c.name, "bird_robot");
    assert_eq!(c.bodies.len(), 10);
    assert_eq!(c.root.kind, RootKind::Free);
    assert_eq!(c.internal_dof(), 14);
    assert!(
        (c.total_mass() - 70.0).abs() <= 0.01,
        "mass {}",
        c.total_mass()
    );
    assert!((c.height() - 2.9).abs() <= 0.005, "height {}", c.height());
    let mut hinges: Vec<&str> = c
        .joints
        .iter()
        .filter(|j| j.kind.label() == "hinge")
        .map(|j| j.name.as_str())
        .collect();
    hinges.sort();
    assert_eq!(hinges, ["l_ankle", "l_knee", "r_ankle", "r_knee"]);
    assert_eq!(count_kind(&c, "universal"), 5);
    assert_eq!(c.joints.len(), 9);
    assert_common_annotations(&c);
}

#[test]
fn dof_names_follow_joint_order() {
    let c = builtin("human3d");
    let names = c.dof_names();
    assert_eq!(&names[..3], ["waist.0", "waist.1", "neck.0"]);
    assert!(names.contains(&"l_knee".to_string()));
    assert!(!names.contains(&"l_knee.0".to_string()));
}

// ---------------------------------------------------------------------------------------------
// Inertia

fn close(a: f64, b: f64, rel: f64) -> bool {
    (a - b).abs() <= rel * a.abs().max(b.abs())
}

/// Principal moments of a uniform solid of mass `m` given by its indicator function, by midpoint
/// integration over the box [-e, e] (n³ cells).
fn numeric_inertia(inside: impl Fn([f64; 3]) -> bool, e: [f64; 3], m: f64, n: usize) -> [f64; 3] {
    let h = [
        2.0 * e[0] / n as f64,
        2.0 * e[1] / n as f64,
        2.0 * e[2] / n as f64,
    ];
    let (mut count, mut s) = (0u64, [0.0f64; 3]);
    for i in 0..n {
        let x = -e[0] + (i as f64 + 0.5) * h[0];
        for j in 0..n {
            let y = -e[1] + (j as f64 + 0.5) * h[1];
            for k in 0..n {
                let z = -e[2] + (k as f64 + 0.5) * h[2];
                if inside([x, y, z]) {
                    count += 1;
                    s[0] += y * y + z * z;
                    s[1] += x * x + z * z;
                    s[2] += x * x + y * y;
                }
            }
        }
    }
    s.map(|v| (m * v / count as f64) as f64)
}

#[test]
fn box_inertia_matches_closed_form() {
    let (m, [a, b, c]) = (3.0f64, [0.1f64, 0.25, 0.4]);
    let i = principal_inertia(
        &Shape::Box {
            half_extents: [a, b, c],
        },
        m,
    );
    // m/12 (w² + h²) with full widths.
    let full = |p: f64, q: f64| m / 12.0 * ((2.0 * p).powi(2) + (2.0 * q).powi(2));
    let expected = [full(b, c), full(a, c), full(a, b)];
    for k in 0..3 {
        assert!(
            close(i[k], expected[k], 1e-5),
            "axis {k}: {} vs {}",
            i[k],
            expected[k]
        );
    }
    assert!(close(i[0], 3.0 * (0.0625 + 0.16) / 3.0, 1e-5), "{}", i[0]);
    let num = numeric_inertia(|_| true, [0.1, 0.25, 0.4], 3.0, 60);
    for k in 0..3 {
        assert!(
            close(i[k], num[k], 2e-3),
            "axis {k}: {} vs numeric {}",
            i[k],
            num[k]
        );
    }
}

#[test]
fn ellipsoid_inertia_matches_closed_form() {
    let m = 4.0f64;
    let r = 0.3f64;
    let sphere = principal_inertia(&Shape::Ellipsoid { radii: [r, r, r] }, m);
    for k in 0..3 {
        assert!(
            close(sphere[k], 0.4 * m * r * r, 1e-6),
            "axis {k}: {}",
            sphere[k]
        );
    }
    let (a, b, c) = (0.1f64, 0.2f64, 0.35f64);
    let i = principal_inertia(&Shape::Ellipsoid { radii: [a, b, c] }, m);
    let expected = [
        m / 5.0 * (b * b + c * c),
        m / 5.0 * (a * a + c * c),
        m / 5.0 * (a * a + b * b),
    ];
    for k in 0..3 {
        assert!(
            close(i[k], expected[k], 1e-6),
            "axis {k}: {} vs {}",
            i[k],
            expected[k]
        );
    }
    let (ad, bd, cd) = (0.1f64, 0.2f64, 0.35f64);
    let inside =
        |p: [f64; 3]| (p[0] / ad).powi(2) + (p[1] / bd).powi(2) + (p[2] / cd).powi(2) <= 1.0;
    let num = numeric_inertia(inside, [ad, bd, cd], 4.0, 120);
    for k in 0..3 {
        assert!(
            close(i[k], num[k], 5e-3),
            "axis {k}: {} vs numeric {}",
            i[k],
            num[k]
        );
    }
}

#[test]
fn capsule_inertia_matches_closed_form() {
    let m = 2.5f64;
    let r = 0.12f64;
    // No cylinder: a sphere, whatever the axis.
    for axis in [Axis::X, Axis::Y, Axis::Z] {
        let i = principal_inertia(
            &Shape::Capsule {
                radius: r,
                half_length: 0.0,
                axis,
            },
            m,
        );
        for k in 0..3 {
            assert!(
                close(i[k], 0.4 * m * r * r, 1e-6),
                "{axis:?} axis {k}: {}",
                i[k]
            );
        }
    }
    let h = 0.3f64;
    for axis in [Axis::X, Axis::Y, Axis::Z] {
        let i = principal_inertia(
            &Shape::Capsule {
                radius: r,
                half_length: h,
                axis,
            },
            m,
        );
        let a = axis.index();
        for k in 0..3 {
            if k != a {
                assert!(
                    i[a] < i[k],
                    "{axis:?}: long-axis moment {} not below cross moment {}",
                    i[a],
                    i[k]
                );
                assert_eq!(
                    i[k],
                    i[(a + 1) % 3].max(i[(a + 2) % 3]),
                    "{axis:?}: cross moments differ"
                );
            }
        }
    }
    // Numerically integrated capsule along y: |y| <= h cylinder plus two half-balls.
    let i = principal_inertia(
        &Shape::Capsule {
            radius: r,
            half_length: h,
            axis: Axis::Y,
        },
        m,
    );
    let (rd, hd) = (r as f64, h as f64);
    let inside = |p: [f64; 3]| {
        let dy = (p[1].abs() - hd).max(0.0);
        p[0] * p[0] + p[2] * p[2] + dy * dy <= rd * rd
    };
    let num = numeric_inertia(inside, [rd, hd + rd, rd], m as f64, 120);
    for k in 0..3 {
        assert!(
            close(i[k], num[k], 5e-3),
            "axis {k}: {} vs numeric {}",
            i[k],
            num[k]
        );
    }
    // Closed form along the axis: cylinder m r²/2 plus caps 2/5 m r².
    let (vc, vs) = (
        std::f64::consts::PI * r * r * 2.0 * h,
        4.0 / 3.0 * std::f64::consts::PI * r.powi(3),
    );
    let (mc, ms) = (m * vc / (vc + vs), m * vs / (vc + vs));
    assert!(
        close(i[1], mc * r * r / 2.0 + 0.4 * ms * r * r, 1e-5),
        "{}",
        i[1]
    );
}

#[test]
fn body_inertia_is_given_or_derived() {
    let mut b = Body {
        name: "b".into(),
        shape: Shape::Box {
            half_extents: [0.1, 0.2, 0.3],
        },
        mass: 6.0,
        inertia: None,
        position: [0.0; 3],
        rotation: [0.0; 3],
    };
    assert_eq!(b.principal_inertia(), principal_inertia(&b.shape, 6.0));
    b.inertia = Some([1.0, 2.0, 2.5]);
    assert_eq!(b.principal_inertia(), [1.0, 2.0, 2.5]);
}

#[test]
fn vertical_extent_follows_rotation() {
    // A 1 m long capsule along y, laid flat by 90° about z, spans only its diameter.
    let mut b = Body {
        name: "b".into(),
        shape: Shape::Capsule {
            radius: 0.1,
            half_length: 0.4,
            axis: Axis::Y,
        },
        mass: 1.0,
        inertia: None,
        position: [0.0, 1.0, 0.0],
        rotation: [0.0; 3],
    };
    let (lo, hi) = b.vertical_extent();
    assert!(
        (lo - 0.5).abs() < 1e-6 && (hi - 1.5).abs() < 1e-6,
        "{lo} {hi}"
    );
    b.rotation = [0.0, 0.0, 90.0];
    let (lo, hi) = b.vertical_extent();
    assert!(
        (lo - 0.9).abs() < 1e-5 && (hi - 1.1).abs() < 1e-5,
        "{lo} {hi}"
    );
}

// ---------------------------------------------------------------------------------------------
// Validation errors with file and line
