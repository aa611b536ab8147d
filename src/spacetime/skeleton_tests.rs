use super::*;
use crate::spacetime::creature::ROOT_ROTATION_LIMIT;
use crate::spacetime::dynamics::forward_kinematics;
use std::path::{Path, PathBuf};

fn creature_path(file: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("characters")
        .join(file)
}

/// Wampler 2012, the creature table of thesis §3.2.5: name, DOFs, mass (kg), height (m).
const TABLE: [(&str, usize, f64, f64); 5] = [
    ("monoped.ron", 10, 3.74, 0.6),
    ("simple_biped.ron", 16, 10.6, 1.2),
    ("velociraptor.ron", 33, 19.4, 0.75),
    ("horse.ron", 29, 502.0, 1.5),
    ("pentaped.ron", 32, 109.0, 0.7),
];

#[test]
fn creature_files_match_the_thesis_table() {
    for (file, dof, mass, height) in TABLE {
        let sk = Skeleton::load(creature_path(file)).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(sk.dof(), dof, "{file}: DOFs");
        assert!(
            (sk.total_mass() - mass).abs() < 0.1,
            "{file}: mass {} vs {mass}",
            sk.total_mass()
        );
        let rest = sk.rest_pose();
        assert_eq!(rest.len(), dof);
        let k = forward_kinematics(&sk, &sk.morphology::<f64>(), &rest);
        let h = k.height();
        assert!(
            (h - height).abs() < 0.02 * height,
            "{file}: height {h} vs {height}"
        );
        // The rest pose stands: its lowest point and every foot are on the ground.
        for (f, _) in sk.feet.iter().enumerate() {
            let y = k.foot(&sk, f).y;
            assert!(y.abs() < 1e-4, "{file}: foot {f} at y = {y}");
        }
        for l in &k.limbs {
            assert!(
                l.origin.y > -1e-4 && l.end.y > -1e-4,
                "{file}: a limb end is below the ground"
            );
        }
        // The rest pose is within the joint bounds, and every foot is a limb's end.
        let (lo, hi) = sk.bounds();
        assert!(
            rest.iter()
                .zip(lo.iter().zip(&hi))
                .all(|(v, (l, u))| l <= v && v <= u),
            "{file}: rest outside bounds"
        );
        assert_eq!(sk.dof_names().len(), dof);
        assert!(sk.head.is_some(), "{file}: head");
        assert!(
            !sk.separations.is_empty() || sk.feet.len() == 1,
            "{file}: separations"
        );
    }
}

#[test]
fn coordinates_follow_file_order_with_the_root_first() {
    let sk = Skeleton::load(creature_path("simple_biped.ron")).unwrap();
    let names = sk.dof_names();
    assert_eq!(
        &names[..7],
        [
            "torso.rx",
            "torso.ry",
            "torso.rz",
            "torso.x",
            "torso.y",
            "torso.z",
            "l_thigh.rx"
        ]
    );
    assert_eq!(names[9], "l_shin.angle");
    assert_eq!(names[15], "r_foot.angle");
    let rot = sk.rotational_dofs();
    assert_eq!(
        rot.iter().filter(|r| !**r).count(),
        3,
        "only the root translation is not rotational"
    );
    assert_eq!(sk.limbs[sk.feet[1]].name, "r_foot");
    assert_eq!(sk.path_to_root(sk.feet[0]), vec![3, 2, 1, 0]);
}

#[test]
fn solid_cylinder_inertia() {
    // m = 2 kg, r = 0.1 m, l = 1 m: transverse m(3r² + l²)/12 = 0.171666…, axial mr²/2 = 0.01.
    let (t, a) = cylinder_inertia(&2.0f64, &0.1, &1.0);
    assert!((t - 2.0 * (0.03 + 1.0) / 12.0).abs() < 1e-15);
    assert!((a - 0.01).abs() < 1e-15);
}

#[test]
fn constant_density_scaling() {
    let sk = Skeleton::load(creature_path("monoped.ron")).unwrap();
    let m0 = sk.morphology::<f64>();
    let length: Vec<f64> = m0.length.iter().map(|l| 2.0 * l).collect();
    let radius: Vec<f64> = m0.radius.iter().map(|r| 0.5 * r).collect();
    let m = Morphology::at_constant_density(&sk, length, radius);
    // l × 2, r × ½: mass × 2 × ¼ = ½.
    assert!((m.total_mass() - 0.5 * 3.74).abs() < 1e-12);
}

#[test]
fn joint_motion_matches_finite_differences() {
    // ω from `motion` against vee(Rᵀ·dR/dt) by central differences, α against dω/dt, and the
    // subspace against ω for unit rates; for Euler and exp-map joints, near and away from 0.
    let joints = [
        JointKind::Euler {
            axes: vec![[0.0, 0.0, 1.0], [1.0, 0.0, 0.0], [0.0, 1.0, 0.0]],
        },
        JointKind::ExpMap,
        JointKind::Free,
    ];
    let h = 1e-5;
    for joint in &joints {
        for (q, qd, qdd) in [
            ([0.3, -0.7, 1.1], [0.9, 0.4, -1.3], [2.0, -0.5, 0.7]),
            ([0.0, 0.0, 0.0], [0.9, 0.4, -1.3], [2.0, -0.5, 0.7]),
            ([2e-4, -1e-4, 3e-4], [-0.2, 1.0, 0.5], [0.1, 0.3, -1.0]),
        ] {
            let at = |t: f64| -> [f64; 3] {
                std::array::from_fn(|k| q[k] + qd[k] * t + 0.5 * qdd[k] * t * t)
            };
            let rate = |t: f64| -> [f64; 3] { std::array::from_fn(|k| qd[k] + qdd[k] * t) };
            let m = joint.motion(&q, &qd, &qdd);
            let (rp, rm) = (joint.rotation(&at(h)), joint.rotation(&at(-h)));
            let rdot = Mat3::<f64>::from_fn(|i, j| (rp.m[i][j] - rm.m[i][j]) / (2.0 * h));
            let w_fd = m.rotation.tr_mul(&rdot).vee();
            let wp = joint.motion(&at(h), &rate(h), &qdd).angular_velocity;
            let wm = joint.motion(&at(-h), &rate(-h), &qdd).angular_velocity;
            let a_fd = (&wp - &wm).scale_f(0.5 / h);
            let s = joint.subspace(&q);
            let w_s = s
                .iter()
                .zip(qd)
                .fold(Vec3::zero(), |acc, (c, r)| acc + c.scale_f(r));
            for k in 0..3 {
                assert!(
                    (m.angular_velocity.re()[k] - w_fd.re()[k]).abs() < 1e-8,
                    "{joint:?} ω at {q:?}"
                );
                assert!(
                    (m.angular_acceleration.re()[k] - a_fd.re()[k]).abs() < 1e-7,
                    "{joint:?} α at {q:?}"
                );
                assert!(
                    (m.angular_velocity.re()[k] - w_s.re()[k]).abs() < 1e-12,
                    "{joint:?} S at {q:?}"
                );
            }
        }
    }
}

#[test]
fn fixed_joint_adds_no_coordinates_and_carries_its_body() {
    // A welded tip at the stick's foot, pointing along +x in the reference pose: it follows the
    // leg rigidly, so with the leg swung by θ about z the tip turns by θ too.
    let with_tip = STICK
        .replace(
            "    ],\n    joints: [",
            "        (name: \"tip\", shape: Cylinder(radius: 0.01, half_length: 0.1, axis: X), mass: 0.1, position: (0.1, 0.0, 0.0)),\n    ],\n    joints: [",
        )
        .replace(
            "    ],\n    end_effectors:",
            "        (name: \"weld\", parent: \"leg\", child: \"tip\", anchor: (0.0, 0.0, 0.0), kind: Fixed),\n    ],\n    end_effectors:",
        );
    let sk = Skeleton::parse(&with_tip, Path::new("tip.ron")).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(sk.dof(), 7, "a fixed joint adds no coordinates");
    let mut q = vec![0.0; 7];
    q[4] = 0.5;
    q[6] = 0.3;
    let k = forward_kinematics(&sk, &sk.morphology::<f64>(), &q);
    let tip = (&k.limbs[2].end - &k.limbs[2].origin).re();
    let want = [0.2 * 0.3f64.cos(), 0.2 * 0.3f64.sin(), 0.0];
    assert!(
        (0..3).all(|i| (tip[i] - want[i]).abs() < 1e-12),
        "{tip:?} vs {want:?}"
    );
    let foot = k.limbs[1].end.re();
    assert!((k.limbs[2].origin.re()[0] - foot[0]).abs() < 1e-12);
}

fn parse_err(text: &str) -> String {
    Skeleton::parse(text, Path::new("characters/bad.ron"))
        .unwrap_err()
        .to_string()
}

/// A two-body stick in the character format: a base (the free root, whose coordinates follow
/// its lower end) and a leg on a hinge, its sole a foot.
pub(crate) const STICK: &str = r#"(
    name: "stick",
    root: (body: "base", kind: Free, origin: Some((0.0, 0.5, 0.0))),
    bodies: [
        (name: "base", shape: Cylinder(radius: 0.05, half_length: 0.25, axis: Y), mass: 1.0, position: (0.0, 0.75, 0.0)),
        (name: "leg", shape: Cylinder(radius: 0.05, half_length: 0.25, axis: Y), mass: 1.0, position: (0.0, 0.25, 0.0)),
    ],
    joints: [
        (name: "hip", parent: "base", child: "leg", anchor: (0.0, 0.5, 0.0), kind: Hinge(axis: (0.0, 0.0, 1.0)), limits: [(-57.29577951308232, 57.29577951308232)], rest: [5.729577951308232]),
    ],
    end_effectors: [
        (body: "leg", tag: Foot, point: (0.0, -0.25, 0.0)),
    ],
    gait: (lbfgs_iterations: Some(1500), sample_iterations: Some(3000)),
)"#;

#[test]
fn a_character_becomes_a_creature_of_cylinder_limbs() {
    let sk = Skeleton::parse(STICK, Path::new("stick.ron")).unwrap();
    assert_eq!(sk.dof(), 7);
    assert_eq!(sk.dof_names()[6], "leg.angle");
    let leg = &sk.limbs[1];
    assert_eq!(
        leg.joint,
        JointKind::Hinge {
            axis: [0.0, 0.0, 1.0]
        }
    );
    assert_eq!(
        (leg.at, leg.offset),
        (0.0, [0.0; 3]),
        "the hip is at the base's start"
    );
    assert_eq!(leg.direction, [0.0, -1.0, 0.0]);
    assert!((leg.length - 0.5).abs() < 1e-15 && leg.radius == 0.05 && leg.mass == 1.0);
    assert!(
        leg.inertia.is_none() && leg.end.is_none(),
        "a cylinder limb, foot at its end"
    );
    assert_eq!(sk.feet, vec![1]);
    let (lo, hi) = sk.bounds();
    assert!(
        (lo[6] + 1.0).abs() < 1e-15 && (hi[6] - 1.0).abs() < 1e-15,
        "degrees → radians"
    );
    assert_eq!((lo[0], hi[0]), (-ROOT_ROTATION_LIMIT, ROOT_ROTATION_LIMIT));
    assert_eq!(lo[4], f64::NEG_INFINITY);
    // Rest: the hinge at 0.1 rad, the root raised until the sole touches the ground.
    let rest = sk.rest_pose();
    assert!((rest[6] - 0.1).abs() < 1e-15);
    assert!((rest[4] - 0.5 * 0.1f64.cos()).abs() < 1e-12, "{rest:?}");
    assert_eq!(sk.solve.lbfgs_iterations, Some(1500));
}

#[test]
fn a_box_foot_keeps_its_own_inertia_and_sole() {
    let boxed = STICK
        .replace(
            "(name: \"leg\", shape: Cylinder(radius: 0.05, half_length: 0.25, axis: Y)",
            "(name: \"leg\", shape: Box(half_extents: (0.1, 0.25, 0.05))",
        )
        .replace("point: (0.0, -0.25, 0.0)", "point: (0.1, -0.25, 0.0)");
    let sk = Skeleton::parse(&boxed, Path::new("box.ron")).unwrap();
    let leg = &sk.limbs[1];
    let i = leg.inertia.expect("a box is not a cylinder limb");
    let m = 1.0 / 3.0;
    let want = [
        m * (0.25f64.powi(2) + 0.05f64.powi(2)),
        m * (0.1f64.powi(2) + 0.05f64.powi(2)),
        m * (0.1f64.powi(2) + 0.25f64.powi(2)),
    ];
    for k in 0..3 {
        assert!((i[k][k] - want[k]).abs() < 1e-15, "{i:?}");
    }
    assert_eq!(leg.end, Some([0.1, -0.5, 0.0]), "the sole, from the hip");
    // Standing still on the sole, gravity alone: the ankle-free stick needs the hip torque that
    // holds the leg's weight at its centre of mass, which is under the hip (zero) here.
    let mut q = vec![0.0; 7];
    q[4] = 0.5;
    let k = forward_kinematics(&sk, &sk.morphology::<f64>(), &q);
    assert!((k.limbs[1].end.re()[0] - 0.1).abs() < 1e-15);
}

#[test]
fn file_errors_name_the_file_the_line_and_what_was_expected() {
    // A planar character's joints turn about z.
    let e = parse_err(&STICK.replace("kind: Free", "kind: Planar").replace(
        "Hinge(axis: (0.0, 0.0, 1.0))",
        "Hinge(axis: (1.0, 0.0, 0.0))",
    ));
    assert!(
        e.starts_with("characters/bad.ron:9:") && e.contains("hinges about z"),
        "{e}"
    );
    let planar = Skeleton::parse(
        &STICK.replace("kind: Free", "kind: Planar"),
        Path::new("p.ron"),
    );
    assert!(planar.unwrap().planar);
    let e = parse_err(&STICK.replace("tag: Foot", "tag: Hand"));
    assert!(e.contains("at least one `Foot` end effector"), "{e}");
    let e = parse_err(&STICK.replace("parent: \"base\"", "parent: \"bsae\""));
    assert!(
        e.starts_with("characters/bad.ron:9:") && e.contains("no body named \"bsae\""),
        "{e}"
    );
    let e = parse_err(&STICK.replace("rest: [5.729577951308232]", "rest: [80.0]"));
    assert!(
        e.starts_with("characters/bad.ron:9:") && e.contains("rest angle"),
        "{e}"
    );
    let e = parse_err(&STICK.replace("Some(3000)", "Some(0)"));
    assert!(e.contains("at least 1 IPOPT iteration"), "{e}");
    let e = parse_err(&STICK.replace(
        "position: (0.0, 0.75, 0.0))",
        "position: (0.0, 0.75, 0.0), colour: 3)",
    ));
    assert!(e.starts_with("characters/bad.ron:5:"), "{e}");

    let e = Skeleton::load("characters/no_such_creature.ron")
        .unwrap_err()
        .to_string();
    assert!(
        e.starts_with("characters/no_such_creature.ron: cannot read"),
        "{e}"
    );
}

/// The cosine of the angle between the no-twist rows (3.5) of feet `a` and `b` at `q`.
fn twist_row_cosine(sk: &Skeleton, q: &[f64], a: usize, b: usize) -> f64 {
    let (_, rows) = crate::nlp::tape::jacobian(q, |q| {
        let k = forward_kinematics(sk, &sk.morphology(), q);
        [a, b]
            .iter()
            .map(|&f| {
                let r = &k.limbs[sk.feet[f]].rotation.m;
                r[0][2].clone() - &r[2][0]
            })
            .collect()
    });
    let dot = |u: &[f64], v: &[f64]| u.iter().zip(v).map(|(x, y)| x * y).sum::<f64>();
    dot(&rows[0], &rows[1]) / (dot(&rows[0], &rows[0]) * dot(&rows[1], &rows[1])).sqrt()
}

/// The horse's legs have no joint about the vertical (2-DOF hips and shoulders, hinges below),
/// so the no-twist rows of two of its hooves are nearly parallel (at the rest pose, and exactly
/// so with upright legs) and the gait NLP holds one of them per frame. The velociraptor's ball
/// hips turn its feet: every foot down keeps its row, and two of them are far from parallel.
#[test]
fn only_feet_whose_legs_can_turn_them_each_keep_a_twist_row() {
    let horse = Skeleton::load(creature_path("horse.ron")).unwrap();
    assert!((0..4).all(|k| !horse.foot_can_turn(k)));
    assert_eq!(horse.held_twists(|_| true), [true, false, false, false]);
    assert_eq!(
        horse.held_twists(|k| k == 1 || k == 2),
        [false, true, false, false]
    );
    assert_eq!(horse.held_twists(|_| false), [false; 4]);
    let rest = horse.rest_pose();
    let at_rest = twist_row_cosine(&horse, &rest, 0, 3);
    let upright = twist_row_cosine(&horse, &vec![0.0; horse.dof()], 0, 3);
    assert!(at_rest > 0.95 && upright > 1.0 - 1e-12);

    let raptor = Skeleton::load(creature_path("velociraptor.ron")).unwrap();
    assert!((0..raptor.feet.len()).all(|k| raptor.foot_can_turn(k)));
    assert_eq!(raptor.held_twists(|_| true), [true, true]);
    assert_eq!(raptor.held_twists(|k| k == 1), [false, true]);
    let cosine = twist_row_cosine(&raptor, &raptor.rest_pose(), 0, 1);
    assert!(cosine.abs() < 0.9);
}
