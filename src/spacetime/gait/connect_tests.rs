//! Tests of connections: the sampling of the two clips, the placements, swings and pivots.

use super::*;

fn clip(turn_rate: f64, frames: Vec<Vec<f64>>) -> GaitClip {
    GaitClip {
        creature: "c".into(),
        character: None,
        speed: 1.0,
        period: 1.0,
        timings: Vec::new(),
        coordinates: Vec::new(),
        contacts: vec![vec![]; frames.len()],
        frames,
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
        closure: Closure::Transformed {
            turn_rate,
            strafe: 0.0,
        },
        max_head_height: None,
        start_kept: None,
    }
}

/// A clip moving at constant velocities `v` (per second), `frames` frames over 1 s.
fn moving(frames: usize, v: [f64; 6]) -> GaitClip {
    let dt = 1.0 / frames as f64;
    let q = (0..frames)
        .map(|k| v.iter().map(|x| x * k as f64 * dt).collect())
        .collect();
    clip(0.0, q)
}

/// A connection of its clips' frame time meets them at their own frames; one of another
/// frame time samples them between frames so that its fixed end pairs move at the clips'
/// own velocities (not scaled by the ratio of the frame times).
#[test]
fn connection_frames_fall_at_the_clips_own_times() {
    let (va, vb) = (
        [0.5, 0.1, -0.2, 1.0, 0.0, 0.3],
        [-0.4, 0.2, 0.1, 2.0, 0.05, -0.6],
    );
    let (a, b) = (moving(10, va), moving(8, vb));
    // dt = 0.1 = A's frame time: A's frames as they are.
    let connection = |from_frame, to_frame, frames, duration| Connection {
        from_frame,
        to_frame,
        frames,
        duration,
        placement: None,
        swings: Vec::new(),
        pivots: Vec::new(),
    };
    let same = Sampling::new(&a, &a, &connection(2, 7, 5, 0.4));
    for i in 0..5 {
        let t = same.time(i);
        let want = if same.from_a(i) { 2 + i } else { 7 + i - 4 };
        assert_eq!(
            t,
            ClipTime {
                frame: want as i64,
                fraction: 0.0
            }
        );
        assert_eq!(same.frame(&a, &a, i), a.frames[want]);
    }
    // dt = 0.075 against 0.1 and 0.125.
    let s = Sampling::new(&a, &b, &connection(1, 6, 9, 0.6));
    let dt = 0.075;
    assert_eq!(
        s.in_a(0),
        ClipTime {
            frame: 1,
            fraction: 0.0
        }
    );
    assert_eq!(
        s.in_b(8),
        ClipTime {
            frame: 6,
            fraction: 0.0
        }
    );
    let q = |i: usize| s.frame(&a, &b, i);
    for d in 0..6 {
        assert!(((q(1)[d] - q(0)[d]) / dt - va[d]).abs() < 1e-12);
        assert!(((q(8)[d] - q(7)[d]) / dt - vb[d]).abs() < 1e-12);
    }
    // Frame 3 is A's 1 + 3·0.75 = 3.25; frame 4 is B's 6 − 4·0.6 = 3.6.
    assert_eq!(s.nearest(3), 3);
    assert_eq!(s.nearest(4), 4);
    assert!((s.in_b(4).fraction - 0.6).abs() < 1e-12);
}

/// Frames past a transformed cycle's end are the cycle's frames moved by T, T², …; before
/// its start by T⁻¹.
#[test]
fn frames_wrap_through_the_cycle_transform() {
    let frames: Vec<Vec<f64>> = (0..4)
        .map(|i| vec![0.25 * i as f64 * 0.5, 0.0, 0.0, 0.25 * i as f64, 0.9, 0.0])
        .collect();
    let c = clip(0.5, frames);
    let t = PlanarMotion::along_arc(1.0, 0.5, 1.0);
    let q5 = c.frame_at(5);
    let want = t.apply_heading_root(&c.frames[1]);
    assert_eq!(q5, want);
    let back = c.frame_at(-1);
    let want = t.inverse().apply_heading_root(&c.frames[3]);
    for (x, y) in back.iter().zip(&want) {
        assert!((x - y).abs() < 1e-12);
    }
    assert!((c.heading_at(4).yaw - 0.5).abs() < 1e-12);
}

/// The human and its solved standing pose.
fn standing() -> (crate::spacetime::skeleton::Skeleton, GaitClip) {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    let skeleton =
        crate::spacetime::skeleton::Skeleton::load(&root.join("characters/human3d_walker.ron"))
            .unwrap();
    let stand: GaitClip = crate::files::read_ron(
        &root.join("assets/spaces/human3d_locomotion/gait/gait=stand_turn=0.ron"),
    )
    .unwrap();
    (skeleton, stand)
}

/// Swings lift their foot strictly inside their window and nowhere else: a side step from
/// the solved standing pose to itself lifts the left foot, then the right. A swing of a foot
/// the creature does not have, or a window that is not one, is refused by name.
#[test]
fn swings_lift_their_feet_over_their_windows_only() {
    let (skeleton, stand) = standing();
    let swing = |foot: &str, lift, land| Swing {
        foot: foot.into(),
        lift,
        land,
    };
    let mut c = Connection {
        from_frame: 0,
        to_frame: 0,
        frames: 21,
        duration: 1.0,
        placement: Some(PlanarMotion {
            x: 0.0,
            z: -0.3,
            yaw: 0.0,
        }),
        swings: vec![swing("l_foot", 0.2, 0.45), swing("r_foot", 0.55, 0.8)],
        pivots: Vec::new(),
    };
    let (spec, _) = connecting_start(&skeleton, &stand, &stand, &c).unwrap();
    let names: Vec<&str> = skeleton
        .feet
        .iter()
        .map(|&l| skeleton.limbs[l].name.as_str())
        .collect();
    for i in 0..21 {
        let s = i as f64 / 20.0;
        for (k, name) in names.iter().enumerate() {
            let up = match *name {
                "l_foot" => 0.2 < s && s < 0.45,
                "r_foot" => 0.55 < s && s < 0.8,
                _ => false,
            };
            assert_eq!(spec.in_contact(i, k), !up, "frame {i} {name}");
        }
    }
    c.swings = vec![swing("tail", 0.2, 0.4)];
    let err = connecting_start(&skeleton, &stand, &stand, &c).unwrap_err();
    assert!(
        matches!(err, GaitError::UnknownFoot(ref f, _) if f == "tail"),
        "{err}"
    );
    c.swings = vec![swing("l_foot", 0.6, 0.4)];
    let err = connecting_start(&skeleton, &stand, &stand, &c).unwrap_err();
    assert!(matches!(err, GaitError::Window { .. }), "{err}");
}

/// The standing pose to itself turned half a radian in 21 frames over a second, the right foot
/// stepping round from 0.3 to 0.7 while `pivot` turns a foot.
fn left_pivot(pivot: Pivot) -> Connection {
    Connection {
        from_frame: 0,
        to_frame: 0,
        frames: 21,
        duration: 1.0,
        placement: Some(PlanarMotion {
            x: 0.0,
            z: 0.0,
            yaw: 0.5,
        }),
        swings: vec![Swing {
            foot: "r_foot".into(),
            lift: 0.3,
            land: 0.7,
        }],
        pivots: vec![pivot],
    }
}

/// A pivot turns a foot on the ground between the frames inside its window, eased in and out,
/// by as much as the placement turns the stance (the standing pose to itself turned 0.5 rad),
/// and nowhere else: the slip block of each pair of frames asks for that share of the turn. A
/// pivot of a foot the creature does not have, a window that is not one, or one over a lifted
/// foot is refused.
#[test]
fn a_pivot_turns_a_planted_foot_over_its_window_only() {
    let (skeleton, stand) = standing();
    let pivot = |foot: &str, from, to| Pivot {
        foot: foot.into(),
        from,
        to,
        on: PivotOn::Sole,
    };
    let mut c = left_pivot(pivot("l_foot", 0.2, 0.8));
    let (spec, _) = connecting_start(&skeleton, &stand, &stand, &c).unwrap();
    let left = (skeleton.feet.iter())
        .position(|&l| skeleton.limbs[l].name == "l_foot")
        .unwrap();
    let mut total = 0.0;
    for i in 0..21 {
        let turn = spec.pivot_turn(i, left);
        // Frames 4 to 16 are the window's (s = 0.2 to 0.8).
        assert_eq!(turn != 0.0, (4..16).contains(&i), "frame {i}: {turn}");
        assert!(turn >= 0.0 && turn < 0.1, "frame {i}: {turn}");
        assert_eq!(
            spec.pivot_turn(i, 1 - left),
            0.0,
            "frame {i}: the other foot"
        );
        total += turn;
    }
    assert!((total - 0.5).abs() < 1e-9, "{total}");
    let problem = GaitProblem::new(spec.clone());
    let slips: Vec<f64> = (problem.blocks.iter())
        .filter_map(|(b, _)| match b {
            super::super::problem::Block::Slip { foot, turn, .. } if *foot == left => Some(*turn),
            _ => None,
        })
        .collect();
    // The first two frames and the last two are fixed: no slip block ties them to each other.
    let want: Vec<f64> = (1..19).map(|i| spec.pivot_turn(i, left)).collect();
    assert_eq!(slips, want);
    c.pivots = vec![pivot("tail", 0.2, 0.4)];
    let err = connecting_start(&skeleton, &stand, &stand, &c).unwrap_err();
    assert!(
        matches!(err, GaitError::UnknownFoot(ref f, _) if f == "tail"),
        "{err}"
    );
    c.pivots = vec![pivot("l_foot", 0.6, 0.4)];
    let err = connecting_start(&skeleton, &stand, &stand, &c).unwrap_err();
    assert!(matches!(err, GaitError::Window { .. }), "{err}");
    c.pivots = vec![pivot("r_foot", 0.2, 0.8)];
    let err = connecting_start(&skeleton, &stand, &stand, &c).unwrap_err();
    assert!(err.to_string().contains("lifted"), "{err}");
}

/// A pivot's connection is placed so that the pivoting foot's point is where it was: the
/// standing pose turned half a radian about its pelvis moves its left foot, and `pivots_kept`
/// moves it back (to a micrometre) without changing the turn. A toe pivot keeps the toes, not
/// the sole's middle, which then moves by the turn of the 13 cm between them.
#[test]
fn a_pivot_keeps_its_foot_where_it_was() {
    let (skeleton, stand) = standing();
    let skeleton = skeleton.with_heading_root();
    let turned = PlanarMotion {
        x: 0.0,
        z: 0.0,
        yaw: 0.5,
    };
    let left = (skeleton.feet.iter())
        .position(|&l| skeleton.limbs[l].name == "l_foot")
        .unwrap();
    let toes = skeleton.toes(left).unwrap();
    let morphology = skeleton.morphology::<f64>();
    let point = |m: &PlanarMotion, at: &[f64; 3]| {
        let q = m.apply_heading_root(&stand.frame_at(0));
        let k = crate::spacetime::dynamics::forward_kinematics(&skeleton, &morphology, &q);
        let p = k.contact(&skeleton, left, at);
        (p.x, p.z)
    };
    let apart = |a: (f64, f64), b: (f64, f64)| (a.0 - b.0).hypot(a.1 - b.1);
    for (on, at) in [(PivotOn::Sole, [0.0; 3]), (PivotOn::Toes, toes)] {
        let c = Connection {
            from_frame: 0,
            to_frame: 0,
            frames: 21,
            duration: 1.0,
            placement: None,
            swings: Vec::new(),
            pivots: vec![Pivot {
                foot: "l_foot".into(),
                from: 0.0,
                to: 1.0,
                on,
            }],
        };
        let kept = c.pivots_kept(&skeleton, &stand, &stand, turned);
        assert!((kept.yaw - 0.5).abs() < 1e-12);
        let start = point(&PlanarMotion::IDENTITY, &at);
        let (moved, back) = (point(&turned, &at), point(&kept, &at));
        assert!(apart(start, moved) > 0.02, "{on:?}: {start:?} {moved:?}");
        assert!(apart(start, back) < 1e-6, "{on:?}: {start:?} {back:?}");
        if on == PivotOn::Toes {
            // The sole's middle swings round the toes: 2·0.13·sin(0.25) = 6.4 cm.
            let middle = apart(
                point(&PlanarMotion::IDENTITY, &[0.0; 3]),
                point(&kept, &[0.0; 3]),
            );
            assert!((middle - 0.0643).abs() < 0.005, "{middle}");
        }
    }
}

/// The standing human's connection to itself turned 0.5 rad left with the left foot on its
/// toes over 0.2 to 0.8 of it: the skeleton, the left foot's index and the connection's spec.
fn left_toe_pivot() -> (crate::spacetime::skeleton::Skeleton, usize, GaitSpec) {
    let (skeleton, stand) = standing();
    let left = (skeleton.feet.iter())
        .position(|&l| skeleton.limbs[l].name == "l_foot")
        .unwrap();
    let c = left_pivot(Pivot {
        foot: "l_foot".into(),
        from: 0.2,
        to: 0.8,
        on: PivotOn::Toes,
    });
    let (spec, _) = connecting_start(&skeleton, &stand, &stand, &c).unwrap();
    (skeleton, left, spec)
}

/// A toe pivot turns the foot about its toes (the middle of the box foot's front edge, 13 cm
/// ahead of its sole's middle) over its window, and stands it on them over the window's middle:
/// there the NLP holds the toes on the ground, the foot level across and the heel up (at least
/// 5 cm, ramped at the ends), and the load acts at the toes; at the window's ends the foot is
/// flat with its load at its foot point. The slip rows keep the toes where they are over the
/// whole window. Outside it nothing changes. A toe pivot of a point foot is refused.
#[test]
fn a_toe_pivot_stands_its_foot_on_the_toes_with_the_heel_up() {
    use super::super::problem::{Block, KinematicRow};
    let (skeleton, left, spec) = left_toe_pivot();
    let toes = skeleton.toes(left).unwrap();
    assert!(
        (toes[0] - 0.13).abs() < 1e-9 && toes[2].abs() < 1e-9,
        "{toes:?}"
    );
    assert_eq!(skeleton.heel_corners(left).len(), 2);
    for i in 0..21 {
        // The window is frames 4 to 16; its middle three fifths, 7 to 13, stand on the toes,
        // the heel half up at 7 and 13 and all the way between; the rest turns flat about them.
        let heel = match spec.footing(i, left) {
            Footing::Toes { heel, .. } => Some(heel / TOE_PIVOT_HEEL),
            Footing::SoleAboutToes => Some(0.0),
            Footing::Sole => None,
        };
        let want = match i {
            8..=12 => Some(1.0),
            7 | 13 => Some(0.5),
            4..=16 => Some(0.0),
            _ => None,
        };
        assert_eq!(heel.is_some(), want.is_some(), "frame {i}: {heel:?}");
        if let (Some(h), Some(w)) = (heel, want) {
            assert!((h - w).abs() < 1e-9, "frame {i}: {h} against {w}");
        }
        assert_eq!(
            spec.footing(i, 1 - left),
            Footing::Sole,
            "frame {i}: the other foot"
        );
        // The load acts at the toes only where the foot is up on them.
        let want_at = if (7..=13).contains(&i) {
            toes
        } else {
            [0.0; 3]
        };
        assert_eq!(spec.contact_offset(i, left), want_at, "frame {i}");
    }
    let mut spec = spec;
    spec.flat_feet = true;
    let problem = GaitProblem::new(spec.clone());
    // Free frames 2..=18 each have one kinematic block, in order.
    let kinematic: Vec<&Vec<KinematicRow>> = (problem.blocks.iter())
        .filter_map(|(b, _)| match b {
            Block::Kinematic { rows } => Some(rows),
            _ => None,
        })
        .collect();
    assert_eq!(kinematic.len(), 17);
    for (rows, i) in kinematic.iter().zip(2..) {
        let on_toes = (7..=13).contains(&i);
        let has = |r: KinematicRow| rows.contains(&r);
        assert_eq!(has(KinematicRow::ToesHeight(left)), on_toes, "frame {i}");
        assert_eq!(has(KinematicRow::Level(left)), on_toes, "frame {i}");
        assert_eq!(has(KinematicRow::FootHeight(left)), !on_toes, "frame {i}");
        assert_eq!(has(KinematicRow::FlatZ(left)), !on_toes, "frame {i}");
        for corner in skeleton.heel_corners(left) {
            assert_eq!(has(KinematicRow::Sole(left, corner)), on_toes, "frame {i}");
        }
    }
    // A slip pair with a frame on the toes keeps the toes; the others keep the sole's middle.
    let slips: Vec<[f64; 3]> = (problem.blocks.iter())
        .filter_map(|(b, _)| match b {
            Block::Slip { foot, at, .. } if *foot == left => Some(*at),
            _ => None,
        })
        .collect();
    let want: Vec<[f64; 3]> = (1..19)
        .map(|i| {
            if (3..=16).contains(&i) {
                toes
            } else {
                [0.0; 3]
            }
        })
        .collect();
    assert_eq!(slips, want);
    let point = crate::spacetime::skeleton::Skeleton::load(
        &std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("characters/simple_biped.ron"),
    )
    .unwrap();
    assert_eq!(point.toes(0), None);
}

/// Up on its toes a foot's load may act anywhere along their edge across the foot (the box
/// foot's 5 cm either side of its middle) but only within ν = 2 cm along the foot; flat on the
/// sole, within ν every way (3.11). The edge lies across the foot's heading at that frame, which
/// turns with the pivot, and the NLP's ellipsoid rows are the footing's.
#[test]
fn a_foot_on_its_toes_takes_its_load_anywhere_along_their_edge() {
    use super::super::problem::Block;
    let (skeleton, left, spec) = left_toe_pivot();
    assert!((skeleton.toe_half_width(left) - 0.05).abs() < 1e-9);
    let yaw = |i: usize| match spec.footing(i, left) {
        Footing::Toes { yaw, .. } => yaw,
        other => panic!("frame {i}: {other:?}"),
    };
    // The window's turn (0.5 rad) is eased over frames 4 to 16: frame 10 is halfway.
    let ease = |x: f64| x * x * (3.0 - 2.0 * x);
    assert!((yaw(10) - yaw(7) - 0.5 * (0.5 - ease(0.25))).abs() < 1e-9);
    assert!((yaw(13) - yaw(7) - 0.5 * (ease(0.75) - ease(0.25))).abs() < 1e-9);
    // Whether a load of weight w acting `along` and `across` the foot (m) from its contact
    // point is inside the footing's ellipsoid.
    let inside = |footing: Footing, heading: f64, along: f64, across: f64| {
        let (s, c) = heading.sin_cos();
        let d = [along * c + across * s, along * -s + across * c];
        // t = d × (0, w, 0) for w = 1.
        let t = [-d[1], d[0]];
        let rows = footing.torque_rows(skeleton.toe_half_width(left), spec.nu);
        let [a, b] = rows.map(|[p, q]| p * t[0] + q * t[1]);
        a.hypot(b) <= spec.nu
    };
    for i in [7, 10, 13] {
        let (f, h) = (spec.footing(i, left), yaw(i));
        assert!(
            inside(f, h, 0.0, 0.045) && inside(f, h, 0.0, -0.045),
            "frame {i}"
        );
        assert!(!inside(f, h, 0.0, 0.055), "frame {i}");
        assert!(
            inside(f, h, 0.015, 0.0) && !inside(f, h, 0.025, 0.0),
            "frame {i}"
        );
        assert!(!inside(f, h, -0.025, 0.0), "frame {i}");
    }
    assert!(inside(Footing::Sole, 0.3, 0.0, 0.015));
    assert!(!inside(Footing::Sole, 0.3, 0.0, 0.025));
    // The NLP's cones carry those rows: the seven frames on the toes turn theirs.
    let problem = GaitProblem::new(spec.clone());
    let identity = [[1.0, 0.0], [0.0, 1.0]];
    let turned = (problem.blocks.iter())
        .filter(|(b, _)| matches!(b, Block::Cones { rows } if *rows != identity))
        .count();
    assert_eq!(turned, 7);
}

/// The shipped pivots of the stepping repertoire, on the heel and on the toes, are physically
/// valid by the audit, which holds each pivoting foot to its share of the turn: the foot turns by
/// the pivot's angle in all, and the point it turns on (its footprint, or its toes) does not
/// slip. Only the toe pivots stand on their toes.
#[test]
fn the_shipped_pivots_turn_their_foot_in_place_and_pass_the_audit() {
    use crate::spacetime::skeleton::Skeleton;
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    let skeleton = Skeleton::load(&root.join("characters/human3d_walker.ron"))
        .unwrap()
        .with_heading_root();
    for (name, foot, deg) in [
        ("pivot_left_45", "l_foot", 45.0f64),
        ("pivot_right_45", "r_foot", -45.0),
        ("pivot_left_90", "l_foot", 90.0),
        ("pivot_right_90", "r_foot", -90.0),
        ("toe_pivot_left_45", "l_foot", 45.0),
        ("toe_pivot_right_45", "r_foot", -45.0),
        ("toe_pivot_left_90", "l_foot", 90.0),
        ("toe_pivot_right_90", "r_foot", -90.0),
    ] {
        let path = root.join(format!("assets/spaces/human3d_stepping/gait/{name}.ron"));
        let clip: GaitClip = crate::files::read_ron(&path).unwrap();
        let a = audit(&skeleton, &clip, MU, NU);
        assert!(a.max() < 1e-6, "{name}: {a:?}");
        assert!(a.slip < 1e-6 && a.twist < 1e-6, "{name}: {a:?}");
        let k = (skeleton.feet.iter())
            .position(|&l| skeleton.limbs[l].name == foot)
            .unwrap();
        assert!(clip.contacts.iter().all(|c| c[k].is_some()), "{name}");
        let on_toes = (clip.contacts.iter()).any(|c| c[k].as_ref().unwrap().footing.on_toes());
        assert_eq!(on_toes, name.starts_with("toe_"), "{name}");
        let turned: f64 = clip
            .contacts
            .iter()
            .map(|c| c[k].as_ref().unwrap().turn)
            .sum();
        assert!((turned - deg.to_radians()).abs() < 1e-9, "{name}: {turned}");
    }
}
