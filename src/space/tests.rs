use super::*;

fn value(label: &str, specifiers: Vec<Specifier>) -> Value {
    Value {
        label: label.into(),
        specifiers,
    }
}

/// McIntosh §3.4's hypothetical space: 3 characters × 3 speeds × 7 turn rates × 2 loads = 126
/// animations; with the (knight, sprint) pair excluded, 126 − 14 = 112.
#[test]
fn the_space_is_full_factorial_minus_its_exclusions() {
    let dim = |name: &str, values: Vec<Value>| Dimension {
        name: name.into(),
        values,
    };
    let mut space = ParameterSpace {
        name: "thesis".into(),
        character: Some("c.ron".into()),
        dimensions: vec![
            dim(
                "character",
                ["knight", "ogre", "dragon"]
                    .iter()
                    .map(|c| value(c, vec![Specifier::Character(format!("{c}.ron").into())]))
                    .collect(),
            ),
            dim(
                "speed",
                [("walk", 1.0), ("jog", 2.0), ("sprint", 4.0)]
                    .iter()
                    .map(|(l, v)| value(l, vec![Specifier::Speed(*v)]))
                    .collect(),
            ),
            dim(
                "turn",
                [-90, -60, -30, 0, 30, 60, 90]
                    .iter()
                    .map(|t| value(&t.to_string(), vec![Specifier::TurnRate(*t as f64)]))
                    .collect(),
            ),
            dim(
                "load",
                vec![
                    value("chest", vec![Specifier::Weights(50.0, 0.1, 25.0, 100.0)]),
                    value("nothing", vec![]),
                ],
            ),
        ],
        common: Vec::new(),
        exclude: Vec::new(),
        connections: Vec::new(),
        solver: SpaceSolver::default(),
    };
    space.check().unwrap();
    let points = space.points().unwrap();
    assert_eq!(points.len(), 126);
    // The union of the values' specifiers (Eq. 3.15), the Character specifier over the default.
    let p = &points[1];
    assert_eq!(p.labels, ["knight", "walk", "-90", "nothing"]);
    assert_eq!(p.character, PathBuf::from("knight.ron"));
    assert_eq!(p.speed, 1.0);
    assert!((p.turn_rate + 90f64.to_radians()).abs() < 1e-15);
    assert_eq!(p.weights, None);
    assert_eq!(points[0].weights.map(|w| w.effort), Some(50.0));
    assert_eq!(
        p.name(&space),
        "character=knight,speed=walk,turn=-90,load=nothing"
    );
    space.exclude = vec![vec!["knight".into(), "sprint".into()]];
    assert_eq!(space.points().unwrap().len(), 112);
    // Names of points become file stems with only safe characters.
    assert_eq!(
        file_stem("gait=walk 1.0,turn=-30"),
        "gait=walk_1.0_turn=-30"
    );
}

#[test]
fn a_setting_given_twice_or_a_bad_number_is_an_error_naming_it() {
    let space = ParameterSpace {
        name: "s".into(),
        character: Some("c.ron".into()),
        dimensions: vec![
            Dimension {
                name: "a".into(),
                values: vec![value("fast", vec![Specifier::Speed(2.0)])],
            },
            Dimension {
                name: "b".into(),
                values: vec![value("slow", vec![Specifier::Speed(0.5)])],
            },
        ],
        common: Vec::new(),
        exclude: Vec::new(),
        connections: Vec::new(),
        solver: SpaceSolver::default(),
    };
    let e = space.check().unwrap_err().to_string();
    assert!(
        e.contains("two Speed specifiers") && e.contains("fast, slow"),
        "{e}"
    );
    let mut bad = space.clone();
    bad.dimensions[1].values[0].specifiers = vec![Specifier::TurnRate(f64::NAN)];
    let e = bad.check().unwrap_err().to_string();
    assert!(e.contains("dimension `b`, value `slow`: TurnRate"), "{e}");
    let mut bad = space.clone();
    bad.dimensions.truncate(1);
    bad.exclude = vec![vec!["medium".into()]];
    assert!(bad.check().unwrap_err().to_string().contains("`medium`"));
}

#[test]
fn a_malformed_space_file_names_its_line() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("bad.ron");
    std::fs::write(
        &path,
        "(\n    name: \"x\",\n    dimensions: [ (name: 3) ],\n)\n",
    )
    .unwrap();
    let e = ParameterSpace::load(&path).unwrap_err().to_string();
    assert!(e.starts_with(&format!("{}:3:", path.display())), "{e}");
}

/// The shipped spaces load and expand: human3d's has walks at 3 speeds × 5 turn rates, a run at
/// 3 or more turn rates, standing, and a start and a stop.
#[test]
fn the_shipped_human_space_covers_the_clip_set() {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    let space = ParameterSpace::load(&root.join("spaces/human3d_locomotion.ron")).unwrap();
    let points = space.points().unwrap();
    let family = |f: &'static str| {
        points
            .iter()
            .filter(move |p| p.family.as_deref() == Some(f))
    };
    let walks: Vec<&Point> = family("walk").collect();
    let speeds: std::collections::BTreeSet<u64> =
        walks.iter().map(|p| (p.speed * 100.0) as u64).collect();
    let turns: std::collections::BTreeSet<i64> = walks
        .iter()
        .map(|p| p.turn_rate.to_degrees().round() as i64)
        .collect();
    assert!(
        speeds.len() >= 3 && turns.len() >= 5,
        "{speeds:?} {turns:?}"
    );
    let runs: Vec<&Point> = family("run").collect();
    assert!(runs.iter().all(|p| p.speed >= 2.5) && runs.len() >= 3);
    assert_eq!(family("stand").count(), 1);
    assert!(space.connections.len() >= 2);
}

/// The run solved for the simulated body (docs/steering.md, Limits) loads as one straight run
/// at 2.0 m/s with two flights a stride: each foot down less than half of it.
#[test]
fn the_held_run_space_is_one_run_with_flights() {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    let space = ParameterSpace::load(&root.join("spaces/human3d_run_held.ron")).unwrap();
    let points = space.points().unwrap();
    assert_eq!(points.len(), 1);
    let p = &points[0];
    assert_eq!(p.family.as_deref(), Some("run"));
    assert!((p.speed - 2.0).abs() < 1e-9 && p.turn_rate == 0.0, "{p:?}");
    let feet = p.contacts.as_ref().expect("the run's foot timing");
    assert_eq!(feet.len(), 2);
    assert!(feet.iter().all(|f| f.duration < 0.5), "{feet:?}");
    assert!(p.swing_clearance > 0.0 && p.flat_feet, "{p:?}");
}

/// The run family for the simulated body: its runs are the held run's (2.0 m/s at −45, 0 and
/// 45 °/s, the same timing), its walk is the shipped space's 1.4 m/s walk (the same speed and
/// timing, so that the shipped walk's gait clip stands in for it), and its six connections
/// each join the run to itself or to that walk.
#[test]
fn the_run_family_space_joins_the_held_run_to_the_shipped_walk() {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    let load = |f: &str| {
        let s = ParameterSpace::load(&root.join(f)).unwrap();
        let p = s.points().unwrap();
        (s, p)
    };
    let (family, points) = load("spaces/human3d_run_family.ron");
    let (shipped, shipped_points) = load("spaces/human3d_locomotion.ron");
    let (_, held) = load("spaces/human3d_run_held.ron");
    let timing = |p: &Point| format!("{:?} {:?} {}", p.period, p.contacts, p.speed);
    let walk = shipped_points
        .iter()
        .find(|p| p.name(&shipped) == "gait=walk1.4,turn=0")
        .unwrap();
    let runs: Vec<&Point> = points
        .iter()
        .filter(|p| p.family.as_deref() == Some("run"))
        .collect();
    let mut turns: Vec<i64> = runs
        .iter()
        .map(|p| p.turn_rate.to_degrees().round() as i64)
        .collect();
    turns.sort();
    assert_eq!(turns, [-45, 0, 45]);
    assert!(runs.iter().all(|p| timing(p) == timing(&held[0])));
    let walks: Vec<&Point> = points
        .iter()
        .filter(|p| p.family.as_deref() == Some("walk"))
        .collect();
    assert_eq!(walks.len(), 1);
    assert_eq!(walks[0].name(&family), walk.name(&shipped));
    assert_eq!(timing(walks[0]), timing(walk));
    assert_eq!(family.connections.len(), 6);
    for c in &family.connections {
        assert!(
            c.from.contains("run2.0") || c.to.contains("run2.0"),
            "{c:?}"
        );
    }
}
