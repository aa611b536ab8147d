use super::*;
use crate::spacetime::gait::parse_timings;

#[test]
fn solver_events_become_progress() {
    use crate::spacetime::job::events::BestTiming;
    let timings = parse_timings("l_foot:0:0.88,r_foot:0.22:0.84").unwrap();
    let line = GaitEvent::Generation {
        generation: 2,
        feasible: 5,
        population: 8,
        best: Some(BestTiming {
            cost: 13.467872,
            period: 1.437,
            timings: timings.clone(),
        }),
    };
    match solver_message(3, &line) {
        Some(JobMsg::Generation {
            job: 3,
            generation: 2,
            best: Some((cost, period, best)),
            feasible,
        }) => {
            assert_eq!((cost, period), (13.467872, 1.437));
            assert_eq!(best, timings);
            assert_eq!(feasible, "5/8");
        }
        _ => panic!("generation event not read: {line:?}"),
    }
    let line = GaitEvent::Iteration {
        iteration: 12,
        objective: 12.3,
        infeasibility: 0.0345,
        restoration: true,
    };
    assert!(matches!(
        solver_message(1, &line),
        Some(JobMsg::Iteration(1, o, i)) if o == 12.3 && i == 0.0345
    ));
    // Where a solve starts from is said in the message line, not plotted.
    assert!(
        solver_message(
            1,
            &GaitEvent::Start {
                from: "a clip".into()
            }
        )
        .is_none()
    );
}

#[test]
fn sample_events_become_dots_with_their_footfall_kind() {
    let sample = |cost: Option<f64>, violation: Option<f64>, period: f64, timings: &str| {
        let line = GaitEvent::Sample {
            generation: 0,
            index: 1,
            period,
            timings: parse_timings(timings).unwrap(),
            cost,
            max_violation: violation,
        };
        match solver_message(7, &line) {
            Some(JobMsg::Sample {
                job: 7,
                period,
                cost,
                timings,
            }) => (period, cost, timings),
            _ => panic!("sample event not read: {line:?}"),
        }
    };
    let (period, cost, run) = sample(
        Some(7.9),
        Some(6e-9),
        0.347,
        "l_foot:0:0.44,r_foot:0.5:0.36",
    );
    assert_eq!((period, cost), (0.347, Some(7.9)));
    // Not converged, or failed: no cost to plot.
    let (_, cost, _) = sample(Some(312.0), Some(1.0), 0.5, "l_foot:0:0.5,r_foot:0.5:0.5");
    assert_eq!(cost, None);
    let (_, cost, hop) = sample(None, None, 0.6, "l_foot:0:0.4,r_foot:0.02:0.4");
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
        character: None,
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
        closure: Default::default(),
        max_head_height: None,
        start_kept: None,
        projected_from: None,
    };
    assert!(
        clip.validate(&sk)
            .unwrap_err()
            .to_string()
            .contains("coordinates")
    );
}
