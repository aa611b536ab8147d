
use super::*;
use crate::spacetime::dynamics::forward_kinematics;
use std::path::PathBuf;

fn creature_path(file: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("characters")
        .join(file)
}

/// specs/004.md §1.2, creature table (§3.2.5): name, DOFs, mass (kg), height (m).
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
fn fixed_joint_applies_its_constant_rotation() {
    // A 0-DOF tip on the stick's leg, turned 90° about z: it points along +x when the leg
    // hangs straight down; a matrix that is not a rotation is refused.
    let tip = "    ],\n    feet: [\"leg\"],";
    let with_tip = |rotation: &str| {
        GOOD.replace(tip, &format!("        (name: \"tip\", parent: \"leg\", joint: Fixed(rotation: {rotation}), direction: (0.0, -1.0, 0.0), length: 0.2, radius: 0.01, mass: 0.1),\n{tip}"))
    };
    let sk = Skeleton::parse(
        &with_tip("((0.0, -1.0, 0.0), (1.0, 0.0, 0.0), (0.0, 0.0, 1.0))"),
        Path::new("tip.ron"),
    )
    .unwrap();
    assert_eq!(sk.dof(), 7, "a fixed joint adds no coordinates");
    let q = vec![0.0; 7];
    let k = forward_kinematics(&sk, &sk.morphology::<f64>(), &q);
    let tip_vector = (&k.limbs[2].end - &k.limbs[2].origin).re();
    assert!(
        (tip_vector[0] - 0.2).abs() < 1e-15
            && tip_vector[1].abs() < 1e-15
            && tip_vector[2].abs() < 1e-15,
        "{tip_vector:?}"
    );
    assert_eq!(k.limbs[2].origin.re(), [0.0, -0.5, 0.0]);
    let e = parse_err(&with_tip(
        "((1.0, 0.0, 0.0), (0.0, 1.0, 0.0), (0.0, 0.0, 2.0))",
    ));
    assert!(e.contains("expected a rotation matrix"), "{e}");
}

fn parse_err(text: &str) -> String {
    Skeleton::parse(text, Path::new("characters/bad.ron"))
        .unwrap_err()
        .to_string()
}

const GOOD: &str = r#"(
    name: "stick",
    limbs: [
        (
            name: "base",
            joint: Free,
            direction: (0.0, 1.0, 0.0),
            length: 0.5,
            radius: 0.05,
            mass: 1.0,
        ),
        (
            name: "leg",
            parent: "base",
            at: 0.0,
            joint: Hinge(axis: (0.0, 0.0, 2.0)),
            direction: (0.0, -1.0, 0.0),
            length: 0.5,
            radius: 0.05,
            mass: 1.0,
            rest: [0.1],
            limits: [(-1.0, 1.0)],
        ),
    ],
    feet: ["leg"],
)"#;

#[test]
fn file_errors_name_the_file_the_line_and_what_was_expected() {
    let sk = Skeleton::parse(GOOD, Path::new("good.ron")).unwrap();
    assert_eq!(sk.dof(), 7);
    assert_eq!(
        sk.limbs[1].joint,
        JointKind::Hinge {
            axis: [0.0, 0.0, 1.0]
        },
        "axes are normalised"
    );
    assert_eq!(
        sk.bounds().0[0],
        f64::NEG_INFINITY,
        "omitted limits are unbounded"
    );

    let e = parse_err(&GOOD.replace("parent: \"base\"", "parent: \"bsae\""));
    assert!(e.starts_with("characters/bad.ron:14:"), "{e}");
    assert!(
        e.contains("expected a limb listed before this one, found `bsae`"),
        "{e}"
    );

    let e = parse_err(&GOOD.replace("rest: [0.1]", "rest: [0.1, 0.2]"));
    assert!(
        e.starts_with("characters/bad.ron:21:") && e.contains("expected 1 values"),
        "{e}"
    );

    let e = parse_err(&GOOD.replace("rest: [0.1]", "rest: [1.5]"));
    assert!(
        e.contains("expected a rest value within (-1, 1), found 1.5"),
        "{e}"
    );

    let e = parse_err(&GOOD.replace("Hinge(axis: (0.0, 0.0, 2.0))", "Free"));
    assert!(e.contains("only allowed on the root"), "{e}");

    let e = parse_err(&GOOD.replace("feet: [\"leg\"]", "feet: [\"foot\"]"));
    assert!(e.contains("`foot` is not a limb"), "{e}");

    let e = parse_err(&GOOD.replace(
        "length: 0.5,\n            radius: 0.05,\n            mass: 1.0,\n            rest",
        "length: -0.5,\n            radius: 0.05,\n            mass: 1.0,\n            rest",
    ));
    assert!(
        e.contains("expected a length in (0, 100] metres, found -0.5"),
        "{e}"
    );

    // Syntax: a missing field and an unknown field, located by line.
    let e = parse_err(&GOOD.replace(
        "            mass: 1.0,\n        ),\n        (",
        "        ),\n        (",
    ));
    assert!(
        e.starts_with("characters/bad.ron:") && e.contains("expected field `mass`"),
        "{e}"
    );
    let e = parse_err(&GOOD.replace(
        "radius: 0.05,\n            mass: 1.0,\n        ),",
        "radius: 0.05,\n            mass: 1.0,\n            colour: 3,\n        ),",
    ));
    assert!(e.starts_with("characters/bad.ron:11:"), "{e}");

    let e = Skeleton::load("characters/no_such_creature.ron")
        .unwrap_err()
        .to_string();
    assert!(
        e.starts_with("characters/no_such_creature.ron: cannot read"),
        "{e}"
    );
}
