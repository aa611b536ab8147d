//! Transformed cycles (McIntosh 2011, §3.2.5) and open clips with fixed ends (Wampler 2012, App. C).

use super::*;

fn biped_walk() -> (Skeleton, f64, Vec<FootTiming>) {
    let sk = creature("simple_biped");
    let (period, timings) = default_timings(&sk);
    (sk, period, timings)
}

/// The blocks reading across the seam apply T: their derivatives (through the transform) are
/// exact, for a turning cycle of a one-legged hopper and of a biped with a ball hip.
#[test]
fn transformed_cycle_derivatives_match_differences() {
    let spec = GaitSpec::new(creature("monoped"), 0.7, 0.5, &[timing("shin", 0.8, 0.5)])
        .unwrap()
        .transformed(0.6)
        .unwrap();
    assert!(spec.skeleton.has_heading_root());
    check_derivatives(spec.clone());
    check_hessian(spec);
    let (sk, period, timings) = biped_walk();
    let mut spec = GaitSpec::new(sk, 0.7, period, &timings)
        .unwrap()
        .transformed(-0.5)
        .unwrap();
    spec.weights.posture = 0.1;
    check_derivatives(spec);
}

/// The posture term holds a heading root's yaw to the path's heading, not to the world's: on a
/// turning cycle whose root follows the path it adds nothing; turned 0.1 rad off the path at
/// every frame it adds the weight times 0.1² (the term's n frames at weight/n each).
#[test]
fn a_turning_cycle_holds_its_yaw_to_the_path() {
    let (sk, period, timings) = biped_walk();
    let mut spec = GaitSpec::new(sk, 0.7, period, &timings)
        .unwrap()
        .transformed(0.8)
        .unwrap();
    let yaw = spec.skeleton.dof_names()[0].clone();
    assert!(yaw.ends_with(".yaw"), "{yaw}");
    spec = spec.with_posture(&[yaw]).unwrap();
    let objective = |weight: f64, off: f64| {
        let mut s = spec.clone();
        s.weights.posture = weight;
        let problem = GaitProblem::new(s.clone());
        let frames: Vec<usize> = (0..s.frames)
            .map(|i| problem.layout.q_vars(i).next().unwrap())
            .collect();
        let nlp = AutoDiff::new(problem).unwrap();
        let mut x = vec![0.0; nlp.num_variables()];
        nlp.initial_point(&mut x);
        for (i, &k) in frames.iter().enumerate() {
            x[k] = s.path(i).yaw + off;
        }
        nlp.objective(&x).unwrap()
    };
    let w = 2.0;
    let on_path = objective(w, 0.0) - objective(0.0, 0.0);
    assert!(
        on_path.abs() < 1e-9 * objective(0.0, 0.0).abs().max(1.0),
        "{on_path}"
    );
    let turned = objective(w, 0.1) - objective(0.0, 0.1);
    assert!((turned - w * 0.01).abs() < 1e-9, "{turned}");
}

/// Every foot in contact at two consecutive frames (across the seam too) is at one place.
#[cfg(feature = "ipopt")]
fn planted_feet_stay(spec: &GaitSpec, clip: &GaitClip) {
    let body = clip.body(&spec.skeleton).unwrap();
    let morph = body.morphology::<f64>();
    for k in 0..clip.frames.len() as i64 {
        for f in 0..body.feet.len() {
            if clip.contact_at(k, f).is_some() && clip.contact_at(k + 1, f).is_some() {
                let p = |q: &Vec<f64>| forward_kinematics(&body, &morph, q).foot(&body, f).re();
                let (a, b) = (p(&clip.frame_at(k)), p(&clip.frame_at(k + 1)));
                let slide = ((b[0] - a[0]).powi(2) + (b[2] - a[2]).powi(2)).sqrt();
                assert!(slide < 1e-6, "foot {f} slides {slide} m from frame {k}");
            }
        }
    }
}

/// The simple biped's gait clip as a library clip.
#[cfg(feature = "ipopt")]
fn biped_library_clip(clip: &GaitClip) -> crate::clip::Clip {
    let c = crate::model::load_character(
        &std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("characters/simple_biped.ron"),
    )
    .unwrap();
    crate::clip::from_gait::clip_of_gait(
        clip,
        &c,
        crate::clip::CharacterRef {
            path: "characters/simple_biped.ron".into(),
            hash: String::new(),
        },
    )
    .unwrap()
}

/// A turning walk: feasible, physically valid by the independent audit (which applies T across
/// the seam), every planted foot still in the world between its contact frames, and the cycle
/// closes through T: the root's yaw grows by ω·P from frame 0 to "frame N".
#[cfg(feature = "ipopt")]
#[test]
fn a_turning_walk_is_a_valid_transformed_cycle() {
    let (sk, period, timings) = biped_walk();
    let turn = 30f64.to_radians();
    let spec = GaitSpec::new(sk, 0.7, period, &timings)
        .unwrap()
        .transformed(turn)
        .unwrap();
    let clip = solve_logged(&spec, 150);
    check_solution(&spec, &clip);
    assert_eq!(
        clip.closure,
        Closure::Transformed {
            turn_rate: turn,
            strafe: 0.0
        }
    );
    planted_feet_stay(&spec, &clip);
    let n = clip.frames.len() as i64;
    // Frame N is T(frame 0): a yaw of ω·P more, and the root went round the arc.
    let (first, after_last) = (clip.frame_at(0), clip.frame_at(n));
    assert!((after_last[0] - first[0] - turn * period).abs() < 1e-12);
    let mean_yaw_rate = (clip.frames[n as usize - 1][0] - first[0]) / (period - spec.dt());
    assert!(
        (mean_yaw_rate - turn).abs() < 0.5 * turn,
        "the root turns at {mean_yaw_rate} rad/s"
    );
    // The library clip carries T, and its bodies loop onto themselves through it.
    let lib = biped_library_clip(&clip);
    let t = lib.cycle_motion().unwrap();
    assert!((t.yaw - turn * period).abs() < 1e-12);
    assert_eq!(lib.tags.turn_rate, Some(turn));
}

/// A strafing walk (thesis §5.2.1's strafe angle ϕ): its seam's derivatives are exact; solved,
/// it is valid by the independent audit, its planted feet stay put, its heading stays on the
/// path's while its root travels at ϕ to it, and the library clip carries the strafed T.
#[cfg(feature = "ipopt")]
#[test]
fn a_strafing_walk_travels_at_its_angle_to_the_heading() {
    let (sk, period, timings) = biped_walk();
    let strafe = 30f64.to_radians();
    let spec = GaitSpec::new(sk, 0.7, period, &timings)
        .unwrap()
        .transformed(0.0)
        .unwrap()
        .strafing(strafe)
        .unwrap();
    check_derivatives(spec.clone());
    let clip = solve_logged(&spec, 400);
    check_solution(&spec, &clip);
    assert_eq!(clip.strafe(), strafe);
    planted_feet_stay(&spec, &clip);
    let n = clip.frames.len() as i64;
    // The root's own travel over the cycle's frames is at ϕ to the left of the heading, and
    // the heading does not turn on the way.
    let (first, last) = (&clip.frames[0], &clip.frames[n as usize - 1]);
    let travel = (-(last[5] - first[5])).atan2(last[3] - first[3]);
    eprintln!("travel {:.2}°", travel.to_degrees());
    assert!(
        (travel - strafe).abs() < 5f64.to_radians(),
        "the root travels at {:.1}°",
        travel.to_degrees()
    );
    let mean_yaw: f64 = clip.frames.iter().map(|q| q[0]).sum::<f64>() / n as f64;
    assert!(mean_yaw.abs() < 1e-6, "mean heading {mean_yaw}");
    let lib = biped_library_clip(&clip);
    let t = lib.cycle_motion().unwrap();
    let (step, along) = (0.7 * period, 0.7 * period * strafe.cos());
    assert!((t.x - along).abs() < 1e-9 && (t.z + step * strafe.sin()).abs() < 1e-9);
    assert_eq!(t.yaw, 0.0);
}

/// The biped's straight walk (a transformed cycle), solved, and a connection of 16 frames from
/// its frame 4 to its frame 20.
#[cfg(feature = "ipopt")]
fn straight_walk_and_connection() -> (Skeleton, GaitSpec, GaitClip, Connection) {
    let (sk, period, timings) = biped_walk();
    let straight = GaitSpec::new(sk.clone(), 0.7, period, &timings)
        .unwrap()
        .transformed(0.0)
        .unwrap();
    let a = solve_logged(&straight, 150);
    let c = Connection {
        from_frame: 4,
        to_frame: 20,
        frames: 16,
        duration: 0.5,
        placement: None,
        swings: Vec::new(),
        pivots: Vec::new(),
    };
    (sk, straight, a, c)
}

/// A connection starts from its ends' motion and loads without springs: a clip's springs hold that
/// clip's poses, and a separately solved clip's may be stiff about other rests (such springs
/// started a turn of the human's walk at an objective of 1.5e8, and IPOPT never got out). So
/// where the connection leaves from changes nothing but the poses: the same motion left from a
/// copy of the clip with stiff springs about other rests starts at the same objective, to the bit.
#[cfg(feature = "ipopt")]
#[test]
fn a_connection_starts_from_its_ends_motion_without_their_springs() {
    let (sk, _, a, c) = straight_walk_and_connection();
    assert!(!a.passive.is_empty());
    let mut stiff = a.clone();
    for e in &mut stiff.passive {
        e.stiffness = 1e4;
        e.rest += 0.3;
    }
    let start = |from: &GaitClip| -> f64 {
        let problem = GaitProblem::new(connecting_spec(&sk, from, &a, &c).unwrap());
        let mut x = vec![0.0; problem.num_variables()];
        problem.initial_point(&mut x);
        let [ks, _, _] = problem.layout.passive(0);
        assert_eq!(x[ks], 0.0, "the start has a spring");
        problem
            .objective_terms()
            .iter()
            .enumerate()
            .map(|(k, t)| {
                let xs: Vec<f64> = t.variables.iter().map(|&i| x[i]).collect();
                problem.objective_term::<f64>(k, &xs)
            })
            .sum()
    };
    let (plain, sprung) = (start(&a), start(&stiff));
    assert!(plain.is_finite() && plain > 0.0, "{plain}");
    assert_eq!(
        plain.to_bits(),
        sprung.to_bits(),
        "{plain} against {sprung}"
    );
}

/// A connecting clip keeps its first two and last two frames exactly (fixed), is feasible and
/// passes the audit, so the motion A → connection → B is physically valid across both joins.
#[cfg(feature = "ipopt")]
#[test]
fn a_connection_keeps_its_ends_and_is_valid() {
    let (sk, straight, a, c) = straight_walk_and_connection();
    check_solution(&straight, &a);
    let spec = connecting_spec(&sk, &a, &a, &c).unwrap();
    assert!(!spec.closure.is_cyclic() && spec.frames == 16);
    let clip = solve_logged(&spec, 150);
    assert!(
        clip.converged() && clip.max_violation <= 1e-6,
        "{} {}",
        clip.status,
        clip.max_violation
    );
    let audit = audit(&clip.body(&spec.skeleton).unwrap(), &clip, spec.mu, spec.nu);
    assert!(audit.max() <= 1e-6, "{audit:?}");
    let placement = Connection::default_placement(&a, &a, 4, 20, 0.5);
    let ends = [
        (0, a.frame_at(4)),
        (1, a.frame_at(5)),
        (14, placement.apply_heading_root(&a.frame_at(19))),
        (15, placement.apply_heading_root(&a.frame_at(20))),
    ];
    for (i, want) in ends {
        for (x, y) in clip.frames[i].iter().zip(&want) {
            assert_eq!(x, y, "frame {i} moved");
        }
    }
}

/// The fastest coordinate of the shipped walks (on the treadmill and off it, across the seam)
/// moves a walk's few rad/s; a joint moved 2 rad in one frame shows as that joint at 60 rad/s, its
/// translations never count.
#[test]
fn the_fastest_coordinate_finds_a_joint_that_jumps() {
    let load = |name: &str| {
        let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("assets/gaits")
            .join(name);
        crate::files::read_ron::<GaitClip>(&path).unwrap()
    };
    for name in ["biped_walk_0.7ms.ron", "biped_walk_world_0.7ms.ron"] {
        let walk = load(name);
        let (coordinate, speed) = walk.fastest_coordinate().unwrap();
        assert!(
            (1.0..12.0).contains(&speed),
            "{name}: {coordinate} at {speed} rad/s"
        );
    }
    let mut jumps = load("biped_walk_world_0.7ms.ron");
    let knee = jumps
        .coordinates
        .iter()
        .position(|c| c == "l_shin.angle")
        .unwrap();
    jumps.frames[10][knee] += 2.0;
    let (name, speed) = jumps.fastest_coordinate().unwrap();
    assert_eq!(name, "l_shin.angle");
    assert!((speed - 60.0).abs() < 5.0, "{speed} rad/s");
    // A root moved 1 m in a frame is not a spinning joint.
    let mut slides = load("biped_walk_world_0.7ms.ron");
    let x = slides
        .coordinates
        .iter()
        .position(|c| c == "torso.x")
        .unwrap();
    slides.frames[10][x] += 1.0;
    assert!(slides.fastest_coordinate().unwrap().1 < 5.0);
}
