//! Gait solves and discoveries as clips: a [`GaitClip`] (the solver's coordinates, in the treadmill
//! frame of Wampler 2012, thesis §3.2) on the character it was solved for becomes a world-frame,
//! transformed-cyclic [`Clip`] (McIntosh 2011, thesis §3.2.5: T is the translation V·T along +x).
//!
//! The solver's coordinates map onto the clip's pose vocabulary joint by joint
//! (`crate::spacetime::creature`): hinge and universal angles are the same numbers; a ball's
//! exponential map becomes its x-y-z angles; the free root's exponential map and origin become the
//! root body's orientation and centre of mass.

use super::pose::{self, pose_of, reference_orientation};
use super::{CharacterRef, Clip, ClipFrame, Cycle, Provenance, Tags};
use crate::model::{Character, EffectorTag, JointKind, Problem};
use crate::spacetime::gait::{Closure as ClosureKind, GaitClip, GaitError, gait_torques};
use crate::spacetime::skeleton::Skeleton;
use nalgebra::{Rotation3, Unit, UnitQuaternion, Vector3};

fn exp_map(r: &[f64]) -> Rotation3<f64> {
    Rotation3::new(Vector3::new(r[0], r[1], r[2]))
}

/// Why a gait is not a motion of a character.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
pub enum FromGaitError {
    #[error(
        "this gait was solved with its body's proportions optimised: it is not a motion of the character file's body"
    )]
    Morphology,
    #[error("`{character}` is not a gait creature: {}", super::problem_list(.problems))]
    NotACreature {
        character: String,
        problems: Vec<Problem>,
    },
    #[error(transparent)]
    Gait(#[from] GaitError),
    #[error("the gait's coordinates are not those of the character's creature")]
    Coordinates,
}

/// The clip of gait `gait` of `character` (whose file is `character_ref`). Fails for a gait of a
/// changed body (a morphology solve), which is not the character's.
pub fn clip_of_gait(
    gait: &GaitClip,
    character: &Character,
    character_ref: CharacterRef,
) -> Result<Clip, FromGaitError> {
    if gait.morphology.is_some() {
        return Err(FromGaitError::Morphology);
    }
    let skeleton =
        Skeleton::from_character(character).map_err(|problems| FromGaitError::NotACreature {
            character: character.name.clone(),
            problems,
        })?;
    gait.check_creature(&skeleton)?;
    let skeleton = gait.body(&skeleton)?;
    if gait.coordinates != skeleton.dof_names() {
        return Err(FromGaitError::Coordinates);
    }
    let root = character
        .body_index(&character.root.body)
        .expect("validated");
    let root_body = &character.bodies[root];
    let com_ref = Vector3::from(root_body.position);
    let origin_ref = character.root.origin.map(Vector3::from).unwrap_or(com_ref);
    let n = gait.frames.len();
    let treadmill = gait.closure.is_treadmill();
    let dt = gait.period / n as f64;
    let frames: Vec<ClipFrame> = gait
        .frames
        .iter()
        .enumerate()
        .map(|(i, q)| {
            let (r, origin) = if treadmill {
                // Treadmill → world: the ground moved at −V, so the creature moves at +V.
                (
                    exp_map(&q[0..3]),
                    Vector3::new(q[3] + gait.speed * dt * i as f64, q[4], q[5]),
                )
            } else {
                // Heading coordinates, already in the world.
                let axis = |v: Vector3<f64>, a: f64| {
                    Rotation3::from_axis_angle(&Unit::new_normalize(v), a)
                };
                (
                    axis(Vector3::y(), q[0]) * axis(Vector3::z(), q[1]) * axis(Vector3::x(), q[2]),
                    Vector3::new(q[3], q[4], q[5]),
                )
            };
            let com = origin + r * (com_ref - origin_ref);
            let orientation =
                UnitQuaternion::from_rotation_matrix(&r) * reference_orientation(root_body);
            let mut joints = Vec::with_capacity(character.internal_dof());
            for j in &character.joints {
                let limb = skeleton.limb_index(&j.child).expect("one limb per body");
                let dofs = skeleton.limbs[limb].dofs.clone();
                let coords = &q[dofs];
                match j.kind {
                    JointKind::Ball => {
                        joints.extend(pose::joint_coordinates(&j.kind, &exp_map(coords)))
                    }
                    _ => joints.extend_from_slice(coords),
                }
            }
            ClipFrame {
                root: pose_of(com, &orientation),
                joints,
            }
        })
        .collect();
    let effectors: Vec<String> = character
        .end_effectors
        .iter()
        .map(|e| format!("{}.{:?}", e.body, e.tag).to_lowercase())
        .collect();
    // The gait's feet (timings order) among the character's effectors.
    let foot_of_effector: Vec<Option<usize>> = character
        .end_effectors
        .iter()
        .map(|e| {
            (e.tag == EffectorTag::Foot)
                .then(|| gait.timings.iter().position(|t| t.foot == e.body))
                .flatten()
        })
        .collect();
    let contacts = gait
        .contacts
        .iter()
        .map(|row| {
            foot_of_effector
                .iter()
                .map(|f| f.is_some_and(|k| row[k].is_some()))
                .collect()
        })
        .collect();
    let ground_forces = gait
        .contacts
        .iter()
        .map(|row| {
            foot_of_effector
                .iter()
                .map(|f| {
                    f.and_then(|k| row[k].as_ref())
                        .map(|load| load.force)
                        .unwrap_or([0.0; 3])
                })
                .collect()
        })
        .collect();
    Ok(Clip {
        character: character_ref,
        rate: if treadmill || gait.closure.is_cyclic() {
            n as f64 / gait.period
        } else {
            (n - 1) as f64 / gait.period
        },
        coordinates: character.dof_names(),
        effectors,
        contacts,
        torques: Some(clip_torques(gait, &skeleton, character, &frames)),
        ground_forces: Some(ground_forces),
        cycle: match &gait.closure {
            ClosureKind::Treadmill => Some(Cycle {
                translation: [gait.speed * gait.period, 0.0, 0.0],
                yaw: 0.0,
            }),
            ClosureKind::Transformed { .. } => {
                let t = gait.cycle_motion();
                let r = frames[0].root;
                Some(Cycle::from_motion(&t, [r[0], r[1], r[2]]))
            }
            ClosureKind::Open(_) => None,
        },
        joins: None,
        bvh: None,
        frames,
        tags: Tags {
            source: "gait".into(),
            speed: Some(gait.speed),
            turn_rate: Some(gait.closure.turn_rate()),
            family: None,
            cost: Some(gait.cost),
            seed: Some(gait.seed),
            status: Some(gait.status.clone()),
        },
        provenance: Provenance::here(),
    })
}

/// The gait's joint torques ([`gait_torques`]) as generalized forces of the clip's coordinates.
/// Hinge and universal angles are the solver's own coordinates; a ball's x-y-z angles c are not
/// its exponential map r(c), and equal power (τ_c·ċ = τ_r·ṙ) gives τ_c = (∂r/∂c)ᵀ τ_r, the
/// Jacobian by central differences of r(c) = log R(c).
fn clip_torques(
    gait: &GaitClip,
    skeleton: &Skeleton,
    character: &Character,
    frames: &[ClipFrame],
) -> Vec<Vec<f64>> {
    let solved = gait_torques(skeleton, gait);
    solved
        .iter()
        .zip(frames)
        .map(|(g, frame)| {
            let mut out = Vec::with_capacity(frame.joints.len());
            for j in &character.joints {
                let limb = skeleton.limb_index(&j.child).expect("one limb per body");
                let tau = &g[skeleton.limbs[limb].dofs.clone()];
                match j.kind {
                    JointKind::Ball => {
                        let c = &frame.joints[out.len()..out.len() + 3];
                        out.extend(ball_torques(&j.kind, c, tau));
                    }
                    _ => out.extend_from_slice(tau),
                }
            }
            out
        })
        .collect()
}

/// τ_c = (∂r/∂c)ᵀ τ_r for a ball joint at angles `c` (see [`clip_torques`]).
fn ball_torques(kind: &JointKind, c: &[f64], tau_r: &[f64]) -> [f64; 3] {
    let log = |c: &[f64]| pose::joint_rotation(kind, c).scaled_axis();
    let h = 1e-6;
    std::array::from_fn(|k| {
        let (mut up, mut down) = (c.to_vec(), c.to_vec());
        up[k] += h;
        down[k] -= h;
        let dr = (log(&up) - log(&down)) / (2.0 * h);
        (0..3).map(|i| dr[i] * tau_r[i]).sum()
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::spacetime::dynamics::forward_kinematics;
    use std::path::Path;

    /// The clip of a gait puts every body where the solver's own kinematics put its limb: the
    /// centres of mass of the human walk (universal, hinge and free joints) and of the horse trot
    /// (ball joints as exponential maps) agree to 1e-9 m in every frame, treadmill shift included.
    #[test]
    fn clip_bodies_are_where_the_solver_put_its_limbs() {
        let root = Path::new(env!("CARGO_MANIFEST_DIR"));
        for (gait_file, character_file) in [
            (
                "assets/gaits/human3d_walk_1.2ms.ron",
                "characters/human3d.ron",
            ),
            ("assets/gaits/horse_trot_1ms.ron", "characters/horse.ron"),
        ] {
            let gait: GaitClip = crate::files::read_ron(&root.join(gait_file)).unwrap();
            let path = root.join(character_file);
            let text = std::fs::read_to_string(&path).unwrap();
            let c = crate::model::load_character(&path).unwrap();
            let clip = clip_of_gait(&gait, &c, CharacterRef::new(&path, &text)).unwrap();
            let sk = Skeleton::from_character(&c).unwrap();
            let morph = sk.morphology::<f64>();
            let dt = gait.period / gait.frames.len() as f64;
            let mut worst = 0.0f64;
            for (i, q) in gait.frames.iter().enumerate() {
                let k = forward_kinematics(&sk, &morph, q);
                let poses = clip.body_poses(&c, i);
                for (b, body) in c.bodies.iter().enumerate() {
                    let l = sk.limb_index(&body.name).unwrap();
                    let com = k.limbs[l].com.re();
                    let shifted = [com[0] + gait.speed * dt * i as f64, com[1], com[2]];
                    for a in 0..3 {
                        worst = worst.max((poses[b][a] - shifted[a]).abs());
                    }
                }
            }
            assert!(worst < 1e-9, "{gait_file}: bodies off by {worst} m");
        }
    }

    /// A clip's joint torques are the gait's in the clip's coordinates: on the shipped turning
    /// walk of human3d_walker (ball hips, whose x-y-z angles are not the solver's exponential
    /// map), every frame's joint power Σ τ·q̇ is the same in both (q̇ by central differences
    /// over the cycle, so they agree to O(Δt²)), and the knees and ankles carry the body: the
    /// stance ankle's torque is tens of N·m.
    #[test]
    fn clip_torques_do_the_gaits_work() {
        let root = Path::new(env!("CARGO_MANIFEST_DIR"));
        let gait: GaitClip = crate::files::read_ron(
            &root.join("assets/spaces/human3d_locomotion/gait/gait=walk1.4_turn=45.ron"),
        )
        .unwrap();
        let path = root.join("characters/human3d_walker.ron");
        let text = std::fs::read_to_string(&path).unwrap();
        let c = crate::model::load_character(&path).unwrap();
        let clip = clip_of_gait(&gait, &c, CharacterRef::new(&path, &text)).unwrap();
        let torques = clip.torques.as_ref().unwrap();
        let sk = gait.body(&Skeleton::from_character(&c).unwrap()).unwrap();
        let solved = gait_torques(&sk, &gait);
        let n = gait.frames.len();
        let rate = |rows: &dyn Fn(usize) -> Vec<f64>, i: usize| -> Vec<f64> {
            let (a, b) = (rows((i + n - 1) % n), rows((i + 1) % n));
            a.iter().zip(&b).map(|(x, y)| y - x).collect()
        };
        let (mut worst, mut scale) = (0.0f64, 0.0f64);
        for i in 0..n {
            let dc = rate(&|k| clip.frames[k].joints.clone(), i);
            let dq = rate(&|k| gait.frames[k][6..].to_vec(), i);
            let p_clip: f64 = torques[i].iter().zip(&dc).map(|(t, d)| t * d).sum();
            let p_gait: f64 = solved[i][6..].iter().zip(&dq).map(|(t, d)| t * d).sum();
            worst = worst.max((p_clip - p_gait).abs());
            scale = scale.max(p_gait.abs());
        }
        assert!(
            worst < 0.02 * scale,
            "joint power differs by {worst:.3} (largest {scale:.3}, per 2 frames)"
        );
        let ankle = clip
            .coordinates
            .iter()
            .position(|n| n == "l_ankle.0")
            .unwrap();
        let peak = torques.iter().map(|t| t[ankle].abs()).fold(0.0, f64::max);
        assert!(
            (20.0..200.0).contains(&peak),
            "left ankle's largest torque {peak:.1} N·m"
        );
    }
}
