use super::*;

#[test]
fn solver_output_lines_become_progress() {
    match parse_solver_line(
        3,
        "generation 2 feasible 5/8 best_cost 13.467872 period 1.4370 contacts l_foot:0:0.88,r_foot:0.22:0.84",
    ) {
        Some(JobMsg::Generation {
            job: 3,
            generation: 2,
            best: Some((cost, period, timings)),
            feasible,
        }) => {
            assert!((cost - 13.467872).abs() < 1e-9 && (period - 1.437).abs() < 1e-9);
            assert_eq!(timings.len(), 2);
            assert_eq!(feasible, "5/8");
        }
        _ => panic!("generation line not parsed"),
    }
    assert!(matches!(
        parse_solver_line(1, "generation 0 feasible 0/8 best_cost none"),
        Some(JobMsg::Generation { best: None, .. })
    ));
    assert!(matches!(
        parse_solver_line(
            1,
            "  12r 1.2345678e+01 3.45e-02 1.00e+00  -1.0 2.00e-01    -  1.00e+00 1.00e+00h  1"
        ),
        Some(JobMsg::Iteration(1, _, _))
    ));
    assert!(parse_solver_line(1, "status solved").is_none());
}

#[test]
fn sample_lines_become_dots_with_their_footfall_kind() {
    let sample = |line: &str| match parse_solver_line(7, line) {
        Some(JobMsg::Sample {
            job: 7,
            period,
            cost,
            timings,
        }) => (period, cost, timings),
        _ => panic!("sample line not parsed: {line}"),
    };
    let (period, cost, run) = sample(
        "sample 1 7 period 0.3470 cost 7.900000 max_violation 6.000e-9 contacts l_foot:0:0.44,r_foot:0.5:0.36",
    );
    assert_eq!((period, cost), (0.347, Some(7.9)));
    // Not converged (the CLI reports violation ≥ 1) or failed: no cost to plot.
    let (_, cost, _) = sample(
        "sample 0 2 period 0.5000 cost 312.000000 max_violation 1.000e0 contacts l_foot:0:0.5,r_foot:0.5:0.5",
    );
    assert_eq!(cost, None);
    let (_, cost, hop) =
        sample("sample 0 3 period 0.6000 failed contacts l_foot:0:0.4,r_foot:0.02:0.4");
    assert_eq!(cost, None);
    let biped = Skeleton::load(characters_dir().join("simple_biped.ron")).unwrap();
    let dot = |period: f64, timings: &[FootTiming]| {
        SampleDot::new(
            &GaitSpec::new(biped.clone(), 2.5, period, timings).unwrap(),
            1.0,
        )
    };
    // A run: the feet alternate with flight between.
    let run = dot(0.347, &run);
    assert_eq!((run.kind(), run.pairing), ("unpaired, flight", 0.0));
    // A hop: the feet land nearly together (11 of 12 frames shared).
    let hop = dot(0.6, &hop);
    assert_eq!(hop.kind(), "paired, flight");
    assert!((hop.pairing - 11.0 / 12.0).abs() < 1e-12, "{}", hop.pairing);
    // A walk: double support, no flight, the feet alternate.
    let walk = dot(1.0, &parse_timings("l_foot:0:0.6,r_foot:0.5:0.6").unwrap());
    assert_eq!(walk.kind(), "unpaired");
    assert!(
        (walk.pairing - 6.0 / 18.0).abs() < 1e-12,
        "{}",
        walk.pairing
    );
}

#[test]
fn a_clip_of_the_wrong_creature_is_refused() {
    let sk = Skeleton::load(characters_dir().join("monoped.ron")).unwrap();
    let clip = GaitClip {
        creature: sk.name.clone(),
        speed: 0.5,
        period: 0.5,
        timings: Vec::new(),
        coordinates: Vec::new(),
        frames: vec![vec![0.0; sk.dof() + 1]; 30],
        contacts: vec![vec![None; sk.feet.len()]; 30],
        passive: Vec::new(),
        cost: 0.0,
        status: "solved".into(),
        projection_status: None,
        iterations: 0,
        max_violation: 0.0,
        seed: 0,
        solve_time_s: 0.0,
        morphology: None,
        projected_from: None,
    };
    assert!(
        clip.validate(&sk)
            .unwrap_err()
            .to_string()
            .contains("coordinates")
    );
}
