//! Names for an automatic ARBS (Borer et al. 2018, §4.1; the generic part names of
//! `crate::model`, which let one task drive several characters).
//!
//! A skeleton joint's name is split into lowercase words — at separators (`_`, `.`, `:`, space,
//! `-`), at lower→upper case changes and between letters and digits — after dropping a
//! namespace prefix (`mixamorig:`). A word `l`/`left` or `r`/`right` gives the side. The other
//! words give the part, strongest rule first:
//!
//! | words | part |
//! |---|---|
//! | `upleg`, `upperleg`, `thigh`, `femur`, `leg 1` | `thigh` |
//! | `lowerleg`, `calf`, `shin`, `knee`, `leg 2` | `shin` |
//! | `forearm`, `lowerarm`, `elbow`, `arm 2` | `forearm` |
//! | `upperarm`, `uparm`, `humerus`, `shldr`, `arm 1` | `upper_arm` |
//! | `foot`, `ankle` | `foot`; `toe` → `toe` |
//! | `hand`, `wrist` | `hand`; `collar`, `clavicle` → `clavicle` |
//! | `hips`, `pelvis` | `pelvis`; `spine`, `back`, `abdomen` → `spine`; `chest`, `torso` → `chest` |
//! | `neck` → `neck`; `head` → `head` |
//! | weaker: `leg` → `shin`, `arm` → `upper_arm`, `shoulder` → `clavicle`, `hip` with a side → `thigh` |
//!
//! Sided parts are prefixed `l_`/`r_`. A generic name goes to the strongest claim (then the
//! first joint in the skeleton); equally strong claims on a trunk part are numbered in
//! skeleton order (`spine`, `spine_2`, …), other losers keep their own name, sanitised
//! (lowercase, runs of other characters replaced by `_`).

/// Left or right.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Side {
    Left,
    Right,
}

/// The words of a name (see the module docs).
pub fn words(name: &str) -> Vec<String> {
    let name = name.rsplit(':').next().unwrap_or(name);
    let mut out = Vec::new();
    let mut cur = String::new();
    let chars: Vec<char> = name.chars().collect();
    for (k, &c) in chars.iter().enumerate() {
        if !c.is_alphanumeric() {
            if !cur.is_empty() {
                out.push(std::mem::take(&mut cur));
            }
            continue;
        }
        if let Some(&prev) = cur.chars().last().as_ref() {
            let next = chars.get(k + 1).copied();
            let split = (prev.is_lowercase() && c.is_uppercase())
                || (prev.is_alphabetic() != c.is_alphabetic())
                || (prev.is_uppercase()
                    && c.is_uppercase()
                    && next.is_some_and(|n| n.is_lowercase()));
            if split {
                out.push(std::mem::take(&mut cur));
            }
        }
        cur.extend(c.to_lowercase());
    }
    if !cur.is_empty() {
        out.push(cur);
    }
    out
}

/// The side a name says, if any.
pub fn side(name: &str) -> Option<Side> {
    let w = words(name);
    if w.iter().any(|x| x == "l" || x == "left") {
        Some(Side::Left)
    } else if w.iter().any(|x| x == "r" || x == "right") {
        Some(Side::Right)
    } else {
        None
    }
}

/// The name without its side words: what a left and a right part share.
pub fn side_free(name: &str) -> String {
    words(name)
        .into_iter()
        .filter(|x| !matches!(x.as_str(), "l" | "left" | "r" | "right"))
        .collect::<Vec<_>>()
        .join("_")
}

/// Lowercase, runs of non-alphanumerics replaced by one `_`, trimmed; `joint` when empty.
pub fn sanitize(name: &str) -> String {
    let mut out = String::new();
    for c in name.chars() {
        if c.is_alphanumeric() {
            out.extend(c.to_lowercase());
        } else if !out.ends_with('_') {
            out.push('_');
        }
    }
    let t = out.trim_matches('_');
    if t.is_empty() {
        "joint".into()
    } else {
        t.into()
    }
}

/// The generic part name of a joint's body and how strong the claim is (2 strong, 1 weak).
pub fn part(name: &str) -> Option<(String, u8)> {
    let w = words(name);
    let s = side(name);
    let rest: Vec<&str> = w
        .iter()
        .map(String::as_str)
        .filter(|x| !matches!(*x, "l" | "left" | "r" | "right"))
        .collect();
    let joined = rest.join("");
    let has = |k: &str| joined.contains(k);
    let word = |k: &str| rest.contains(&k);
    let number = rest.iter().find_map(|x| x.parse::<u32>().ok());
    let (part, strength, sided) = if has("upleg") || has("upperleg") || has("thigh") || has("femur")
    {
        ("thigh", 2, true)
    } else if has("lowerleg") || has("calf") || has("shin") || has("knee") {
        ("shin", 2, true)
    } else if has("forearm") || has("lowerarm") || has("elbow") {
        ("forearm", 2, true)
    } else if has("upperarm") || has("uparm") || has("humerus") || has("shldr") {
        ("upper_arm", 2, true)
    } else if has("toe") {
        ("toe", 2, true)
    } else if has("foot") || has("ankle") {
        ("foot", 2, true)
    } else if has("hand") || has("wrist") {
        ("hand", 2, true)
    } else if has("collar") || has("clavicle") {
        ("clavicle", 2, true)
    } else if word("leg") && number == Some(1) {
        ("thigh", 2, true)
    } else if word("leg") && number == Some(2) {
        ("shin", 2, true)
    } else if word("arm") && number == Some(1) {
        ("upper_arm", 2, true)
    } else if word("arm") && number == Some(2) {
        ("forearm", 2, true)
    } else if has("neck") {
        ("neck", 2, false)
    } else if has("head") && !has("end") {
        ("head", 2, false)
    } else if s.is_none() && (word("hips") || word("hip") || has("pelvis")) {
        ("pelvis", 2, false)
    } else if has("spine") || word("back") || has("abdomen") {
        ("spine", 2, false)
    } else if has("chest") || has("torso") {
        ("chest", 2, false)
    } else if word("leg") {
        ("shin", 1, true)
    } else if word("arm") {
        ("upper_arm", 1, true)
    } else if has("shoulder") {
        ("clavicle", 1, true)
    } else if word("hip") && s.is_some() {
        ("thigh", 1, true)
    } else {
        return None;
    };
    let name = match (sided, s) {
        (true, Some(Side::Left)) => format!("l_{part}"),
        (true, Some(Side::Right)) => format!("r_{part}"),
        (true, None) => return None,
        (false, _) => part.to_string(),
    };
    Some((name, strength))
}

/// Parts that come in chains (several spine or neck segments), numbered `spine`, `spine_2`, …
pub fn is_trunk(part: &str) -> bool {
    matches!(part, "spine" | "chest" | "neck")
}

/// The anatomical name of the joint that moves a generic part (`l_shin` → `l_knee`), if any.
pub fn joint_name(body: &str) -> Option<String> {
    let (prefix, part) = match body.split_once('_') {
        Some((p @ ("l" | "r"), rest)) => (format!("{p}_"), rest),
        _ => (String::new(), body),
    };
    let joint = match part {
        "thigh" => "hip",
        "shin" => "knee",
        "foot" => "ankle",
        "toe" => "toe",
        "clavicle" => "clavicle",
        "upper_arm" => "shoulder",
        "forearm" => "elbow",
        "hand" => "wrist",
        "neck" => "neck",
        "head" => "head",
        "spine" => "waist",
        "chest" => "chest",
        _ => return None,
    };
    Some(format!("{prefix}{joint}"))
}

/// What a leaf's name says it is: foot, hand or head (`crate::model::EffectorTag`).
pub fn effector_tag(name: &str) -> Option<crate::model::EffectorTag> {
    use crate::model::EffectorTag;
    let joined = words(name).join("");
    if ["foot", "toe", "ankle", "hoof", "paw"]
        .iter()
        .any(|k| joined.contains(k))
    {
        Some(EffectorTag::Foot)
    } else if ["hand", "wrist", "finger", "thumb"]
        .iter()
        .any(|k| joined.contains(k))
    {
        Some(EffectorTag::Hand)
    } else if joined.contains("head") {
        Some(EffectorTag::Head)
    } else {
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn common_rig_names_become_generic_parts() {
        let cases = [
            ("Hips", Some("pelvis")),
            ("mixamorig:Hips", Some("pelvis")),
            ("Spine", Some("spine")),
            ("Spine1", Some("spine")),
            ("Chest", Some("chest")),
            ("Neck", Some("neck")),
            ("Head", Some("head")),
            ("LeftUpLeg", Some("l_thigh")),
            ("mixamorig:LeftUpLeg", Some("l_thigh")),
            ("RightLeg", Some("r_shin")),
            ("L_thigh", Some("l_thigh")),
            ("leg_L", Some("l_shin")),
            ("Leg1.L", Some("l_thigh")),
            ("Leg2.R", Some("r_shin")),
            ("Arm1.R", Some("r_upper_arm")),
            ("Arm2.L", Some("l_forearm")),
            ("mixamorig:LeftArm", Some("l_upper_arm")),
            ("LeftForeArm", Some("l_forearm")),
            ("RightHand", Some("r_hand")),
            ("LeftFoot", Some("l_foot")),
            ("Foot.L", Some("l_foot")),
            ("lThigh", Some("l_thigh")),
            ("rShldr", Some("r_upper_arm")),
            ("LeftShoulder", Some("l_clavicle")),
            ("LHipJoint", Some("l_thigh")),
            ("Corpse", None),
            ("joint12", None),
        ];
        for (name, want) in cases {
            assert_eq!(
                part(name).map(|p| p.0).as_deref(),
                want,
                "{name}: words {:?}",
                words(name)
            );
        }
        assert_eq!(part("LHipJoint").unwrap().1, 1, "a weak claim");
        assert_eq!(part("LeftUpLeg").unwrap().1, 2);
        assert_eq!(side("Corpse_L"), Some(Side::Left));
        assert_eq!(side_free("Corpse_L"), side_free("Corpse_R"));
        assert_eq!(sanitize("mixamorig:Left Arm.001"), "mixamorig_left_arm_001");
        assert_eq!(joint_name("l_shin").as_deref(), Some("l_knee"));
        assert_eq!(joint_name("corpse"), None);
    }
}
