//! Masses of an automatic ARBS built from a skeleton without a skin (a motion-capture BVH).
//!
//! Borer et al. 2018 (§4.1) give every body one density. With a skin the capsules follow the
//! flesh and that works; without one every radius is 10 % of its bone, so a capture skeleton's
//! trunk, a chain of short spine bones, weighs next to nothing while its long shins carry a
//! third of the body (CMU's 12_01: a 3.5 g pelvis, 15.8 kg shins), and the character cannot
//! follow a walk. For a skeleton whose body names show a human (a head, thighs, shins and
//! upper arms, the generic part names of `names.rs`), the masses are instead the
//! segment fractions of de Leva (1996, "Adjustments to Zatsiorsky–Seluyanov's segment inertia
//! parameters", J. Biomech. 29(9), Table 4, males), of the total mass:
//!
//! | segment | % | bodies |
//! |---|---|---|
//! | head and neck | 6.94 | `head`, `neck…` |
//! | trunk | 43.46 | `pelvis`, `spine…`, `chest…`, `clavicle`s |
//! | upper arm | 2.71 | `upper_arm` |
//! | forearm | 1.62 | `forearm` |
//! | hand | 0.61 | `hand` (and its fingers) |
//! | thigh | 14.16 | `thigh` |
//! | shank | 4.33 | `shin` |
//! | foot | 1.37 | `foot`, `toe` (and its pad) |
//!
//! A body whose name is none of these belongs to the segment of its nearest named ancestor
//! (fingers to the hand, a pad to its foot, CMU's `lhipjoint` to the pelvis), the root to the
//! trunk. Within a segment the mass is shared by volume (one density per segment). The shapes
//! do not change; inertias follow from the shapes at these masses.

/// de Leva's fraction of the total mass for a generic part name (`l_`/`r_` and a trailing
/// `_2`, `_3`… dropped), or `None` for a name that is no segment.
fn segment_of(name: &str) -> Option<Segment> {
    let part = name
        .strip_prefix("l_")
        .or_else(|| name.strip_prefix("r_"))
        .unwrap_or(name);
    let part = match part.rsplit_once('_') {
        Some((stem, n)) if !n.is_empty() && n.chars().all(|c| c.is_ascii_digit()) => stem,
        _ => part,
    };
    Some(match part {
        "head" | "neck" => Segment::HeadNeck,
        "pelvis" | "spine" | "chest" | "clavicle" => Segment::Trunk,
        "upper_arm" => Segment::UpperArm(side(name)),
        "forearm" => Segment::Forearm(side(name)),
        "hand" => Segment::Hand(side(name)),
        "thigh" => Segment::Thigh(side(name)),
        "shin" => Segment::Shank(side(name)),
        "foot" | "toe" => Segment::Foot(side(name)),
        _ => return None,
    })
}

fn side(name: &str) -> bool {
    name.starts_with("l_")
}

/// One of de Leva's segments (a sided one with its side: `true` for left).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Segment {
    HeadNeck,
    Trunk,
    UpperArm(bool),
    Forearm(bool),
    Hand(bool),
    Thigh(bool),
    Shank(bool),
    Foot(bool),
}

impl Segment {
    /// Fraction of the total mass (de Leva 1996, Table 4, males).
    fn fraction(self) -> f64 {
        match self {
            Segment::HeadNeck => 0.0694,
            Segment::Trunk => 0.4346,
            Segment::UpperArm(_) => 0.0271,
            Segment::Forearm(_) => 0.0162,
            Segment::Hand(_) => 0.0061,
            Segment::Thigh(_) => 0.1416,
            Segment::Shank(_) => 0.0433,
            Segment::Foot(_) => 0.0137,
        }
    }
}

/// The masses of bodies `names` (children after their parents, `parents[b]` the body `b` hangs
/// from) of volumes `volumes`, for a total of `total` kg, by de Leva's fractions (module docs);
/// `None` unless the names show a human: a head and both thighs, shins and upper arms. Segments
/// the skeleton lacks (a hand with no body) leave their share to the others in proportion.
pub fn human(
    names: &[String],
    parents: &[Option<usize>],
    volumes: &[f64],
    total: f64,
) -> Option<Vec<f64>> {
    let mut segment: Vec<Segment> = Vec::with_capacity(names.len());
    for (b, name) in names.iter().enumerate() {
        let own = segment_of(name);
        let inherited = parents[b].filter(|&p| p < b).map(|p| segment[p]);
        segment.push(own.or(inherited).unwrap_or(Segment::Trunk));
    }
    let has = |s: Segment| segment.contains(&s);
    let needed = [
        Segment::HeadNeck,
        Segment::Thigh(true),
        Segment::Thigh(false),
        Segment::Shank(true),
        Segment::Shank(false),
        Segment::UpperArm(true),
        Segment::UpperArm(false),
    ];
    if !needed.into_iter().all(has) {
        return None;
    }
    let mut seen: Vec<Segment> = Vec::new();
    for s in &segment {
        if !seen.contains(s) {
            seen.push(*s);
        }
    }
    let covered: f64 = seen.iter().map(|s| s.fraction()).sum();
    let volume_of = |s: Segment| -> f64 {
        segment
            .iter()
            .zip(volumes)
            .filter(|(x, _)| **x == s)
            .map(|(_, v)| v)
            .sum()
    };
    let masses: Vec<f64> = segment
        .iter()
        .zip(volumes)
        .map(|(s, v)| total * s.fraction() / covered * v / volume_of(*s))
        .collect();
    masses
        .iter()
        .all(|m| m.is_finite() && *m > 0.0)
        .then_some(masses)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn names(list: &[&str]) -> Vec<String> {
        list.iter().map(|s| s.to_string()).collect()
    }

    /// A capture-like skeleton: every segment gets de Leva's share (its bodies split it by
    /// volume), unnamed bodies join their ancestor's segment, the whole is the total mass.
    #[test]
    fn a_human_skeleton_gets_de_levas_fractions() {
        let n = names(&[
            "pelvis",
            "lhipjoint",
            "l_thigh",
            "l_shin",
            "l_foot",
            "l_foot_pad",
            "r_thigh",
            "r_shin",
            "r_foot",
            "spine",
            "spine_2",
            "neck",
            "head",
            "l_upper_arm",
            "l_forearm",
            "l_hand",
            "finger",
            "r_upper_arm",
            "r_forearm",
            "r_hand",
        ]);
        let parents = [
            None,
            Some(0),
            Some(1),
            Some(2),
            Some(3),
            Some(4),
            Some(0),
            Some(6),
            Some(7),
            Some(0),
            Some(9),
            Some(10),
            Some(11),
            Some(10),
            Some(13),
            Some(14),
            Some(15),
            Some(10),
            Some(17),
            Some(18),
        ];
        let volumes: Vec<f64> = (0..n.len()).map(|i| 1.0 + i as f64).collect();
        let m = human(&n, &parents, &volumes, 70.0).expect("a human");
        assert!((m.iter().sum::<f64>() - 70.0).abs() < 1e-9);
        assert!(
            (m[2] - 0.1416 * 70.0).abs() < 1e-9,
            "a thigh is its own segment"
        );
        // The trunk: pelvis, lhipjoint (unnamed, under the pelvis), spine, spine_2.
        let trunk = m[0] + m[1] + m[9] + m[10];
        assert!((trunk - 0.4346 * 70.0).abs() < 1e-9);
        assert!((m[1] / m[0] - 2.0).abs() < 1e-9, "shared by volume");
        // The left foot and its pad share the foot's 1.37 %.
        assert!((m[4] + m[5] - 0.0137 * 70.0).abs() < 1e-9);
        // The left hand and its finger share the hand's 0.61 %.
        assert!((m[15] + m[16] - 0.0061 * 70.0).abs() < 1e-9);
    }

    /// Without a head, or a leg's shin, the names are not a human's: the paper's density stays.
    #[test]
    fn other_skeletons_are_left_to_one_density() {
        let n = names(&["pelvis", "l_thigh", "r_thigh", "tail", "tail_2"]);
        let parents = [None, Some(0), Some(0), Some(0), Some(3)];
        assert!(human(&n, &parents, &[1.0; 5], 50.0).is_none());
    }
}
