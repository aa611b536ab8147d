//! Props around a steered character: boxes, a ramp and thrown balls in a rapier world of their
//! own, with the character's bodies in it as kinematic colliders moved to the pose on show.
//! Balls and boxes bounce off the character; what they do to it is the contact impulse on each of
//! its bodies, which the caller hands to the simulated character ([`super::Simulation::push`])
//! when there is one (physics playback). The character's own simulation stays in its own world,
//! built by [`super::Simulation::new`], untouched by the props' solver.

use super::world::body_collider;
use crate::model::Character;
use rapier3d::math::{Pose, Rotation, Vector};
use rapier3d::prelude::*;

/// What a prop is.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum PropShape {
    Box { half_extents: [f32; 3] },
    Ball { radius: f32 },
}

/// A prop and where it is.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct PropState {
    /// Stays the prop's while it exists.
    pub id: u64,
    pub shape: PropShape,
    /// Position and orientation (x, y, z, qx, qy, qz, qw).
    pub pose: [f32; 7],
    pub dynamic: bool,
}

/// The props' world.
pub struct PropWorld {
    pipeline: PhysicsPipeline,
    params: IntegrationParameters,
    islands: IslandManager,
    broad_phase: DefaultBroadPhase,
    narrow_phase: NarrowPhase,
    bodies: RigidBodySet,
    colliders: ColliderSet,
    impulse_joints: ImpulseJointSet,
    multibody_joints: MultibodyJointSet,
    ccd: CCDSolver,
    /// One kinematic body per character body, and which body each collider belongs to.
    character: Vec<RigidBodyHandle>,
    props: Vec<(PropShape, RigidBodyHandle, bool)>,
}

const PROP_GROUP: Group = Group::GROUP_3;
const CHARACTER_GROUP: Group = Group::GROUP_4;

impl PropWorld {
    /// A floor at y = 0 and the character's bodies (kinematic, in the reference pose).
    pub fn new(character: &Character) -> Self {
        let mut bodies = RigidBodySet::new();
        let mut colliders = ColliderSet::new();
        let floor =
            bodies.insert(RigidBodyBuilder::fixed().translation(Vector::new(0.0, -0.5, 0.0)));
        colliders.insert_with_parent(
            ColliderBuilder::cuboid(200.0, 0.5, 200.0).friction(0.8),
            floor,
            &mut bodies,
        );
        let character = character
            .bodies
            .iter()
            .map(|b| {
                let h = bodies.insert(
                    RigidBodyBuilder::kinematic_position_based().pose(super::world::body_pose(b)),
                );
                colliders.insert_with_parent(
                    body_collider(b)
                        .collision_groups(InteractionGroups::new(
                            CHARACTER_GROUP,
                            PROP_GROUP,
                            InteractionTestMode::And,
                        ))
                        .restitution(0.3)
                        .friction(0.5),
                    h,
                    &mut bodies,
                );
                h
            })
            .collect();
        let params = IntegrationParameters {
            dt: 1.0 / 60.0,
            ..Default::default()
        };
        Self {
            pipeline: PhysicsPipeline::new(),
            params,
            islands: IslandManager::new(),
            broad_phase: DefaultBroadPhase::default(),
            narrow_phase: NarrowPhase::new(),
            bodies,
            colliders,
            impulse_joints: ImpulseJointSet::new(),
            multibody_joints: MultibodyJointSet::new(),
            ccd: CCDSolver::new(),
            character,
            props: Vec::new(),
        }
    }

    fn add(&mut self, shape: PropShape, pose: Pose, velocity: Vector, dynamic: bool) {
        let builder = if dynamic {
            RigidBodyBuilder::dynamic().ccd_enabled(true)
        } else {
            RigidBodyBuilder::fixed()
        };
        let h = self.bodies.insert(builder.pose(pose).linvel(velocity));
        let collider = match shape {
            PropShape::Box { half_extents: e } => ColliderBuilder::cuboid(e[0], e[1], e[2]),
            PropShape::Ball { radius } => ColliderBuilder::ball(radius),
        }
        .density(if dynamic { 400.0 } else { 1.0 })
        .restitution(0.4)
        .friction(0.7)
        .collision_groups(InteractionGroups::new(
            PROP_GROUP,
            Group::ALL,
            InteractionTestMode::And,
        ));
        self.colliders
            .insert_with_parent(collider, h, &mut self.bodies);
        self.props.push((shape, h, dynamic));
    }

    /// A box resting on the floor (`dynamic`: it can be knocked over).
    pub fn add_box(&mut self, centre: [f32; 3], half_extents: [f32; 3], yaw: f32, dynamic: bool) {
        self.add(
            PropShape::Box { half_extents },
            Pose::from_parts(
                Vector::new(centre[0], centre[1], centre[2]),
                Rotation::from_axis_angle(Vector::Y, yaw),
            ),
            Vector::ZERO,
            dynamic,
        );
    }

    /// A fixed ramp: a slab tilted by `slope` (rad) about the axis across its length.
    pub fn add_ramp(&mut self, centre: [f32; 3], half_extents: [f32; 3], yaw: f32, slope: f32) {
        self.add(
            PropShape::Box { half_extents },
            Pose::from_parts(
                Vector::new(centre[0], centre[1], centre[2]),
                Rotation::from_axis_angle(Vector::Y, yaw)
                    * Rotation::from_axis_angle(Vector::Z, slope),
            ),
            Vector::ZERO,
            false,
        );
    }

    /// A ball thrown from `from` with `velocity` (m/s).
    pub fn throw_ball(&mut self, from: [f32; 3], velocity: [f32; 3], radius: f32) {
        self.add(
            PropShape::Ball { radius },
            Pose::from_translation(Vector::new(from[0], from[1], from[2])),
            Vector::new(velocity[0], velocity[1], velocity[2]),
            true,
        );
        // Old balls go (a few dozen at most).
        let balls: Vec<usize> = self
            .props
            .iter()
            .enumerate()
            .filter(|(_, p)| matches!(p.0, PropShape::Ball { .. }))
            .map(|(i, _)| i)
            .collect();
        if balls.len() > 24 {
            let (_, h, _) = self.props.remove(balls[0]);
            self.bodies.remove(
                h,
                &mut self.islands,
                &mut self.colliders,
                &mut self.impulse_joints,
                &mut self.multibody_joints,
                true,
            );
        }
    }

    /// Moves the character's bodies to `poses` (model order) over the coming step.
    pub fn set_character(&mut self, poses: &[[f64; 7]]) {
        for (h, p) in self.character.iter().zip(poses) {
            if let Some(b) = self.bodies.get_mut(*h) {
                let q = Rotation::from_xyzw(p[3] as f32, p[4] as f32, p[5] as f32, p[6] as f32)
                    .normalize();
                b.set_next_kinematic_position(Pose::from_parts(
                    Vector::new(p[0] as f32, p[1] as f32, p[2] as f32),
                    q,
                ));
            }
        }
    }

    /// Advances `dt` seconds; returns the impulse (N·s, world) the props put on each character
    /// body that something hit (body index, impulse).
    pub fn step(&mut self, dt: f32) -> Vec<(usize, [f32; 3])> {
        self.params.dt = dt.clamp(1e-4, 0.05);
        self.pipeline.step(
            Vector::new(0.0, -crate::model::rotation::GRAVITY, 0.0),
            &self.params,
            &mut self.islands,
            &mut self.broad_phase,
            &mut self.narrow_phase,
            &mut self.bodies,
            &mut self.colliders,
            &mut self.impulse_joints,
            &mut self.multibody_joints,
            &mut self.ccd,
            &(),
            &(),
        );
        let mut out: Vec<(usize, [f32; 3])> = Vec::new();
        for pair in self.narrow_phase.contact_pairs() {
            let parents = [pair.collider1, pair.collider2]
                .map(|c| self.colliders.get(c).and_then(|c| c.parent()));
            for (k, parent) in parents.iter().enumerate() {
                let Some(body) = parent.and_then(|h| self.character.iter().position(|c| *c == h))
                else {
                    continue;
                };
                // The contact normal points from collider 1 to collider 2; the impulse on the
                // character is along it when the character is collider 2.
                let sign = if k == 1 { 1.0 } else { -1.0 };
                let mut j = Vector::ZERO;
                for m in &pair.manifolds {
                    for p in &m.points {
                        j += m.data.normal * (p.data.impulse * sign);
                    }
                }
                if j.length() > 1e-6 {
                    out.push((body, [j.x, j.y, j.z]));
                }
            }
        }
        out
    }

    /// Every prop and its pose.
    pub fn props(&self) -> Vec<PropState> {
        self.props
            .iter()
            .filter_map(|(shape, h, dynamic)| {
                let b = self.bodies.get(*h)?;
                let t = b.translation();
                let r = b.rotation();
                let (index, generation) = h.into_raw_parts();
                Some(PropState {
                    id: ((generation as u64) << 32) | index as u64,
                    shape: *shape,
                    pose: [t.x, t.y, t.z, r.x, r.y, r.z, r.w],
                    dynamic: *dynamic,
                })
            })
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A ball thrown at a standing character bounces off it and pushes it: the impulse on the
    /// character points the way the ball flew.
    #[test]
    fn a_thrown_ball_hits_the_character_and_pushes_it() {
        let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("characters/human3d.ron");
        let c = crate::model::load_character(&path).unwrap();
        let mut w = PropWorld::new(&c);
        let poses: Vec<[f64; 7]> = c
            .bodies
            .iter()
            .map(|b| {
                let q = b.orientation();
                [
                    b.position[0],
                    b.position[1],
                    b.position[2],
                    q[0],
                    q[1],
                    q[2],
                    q[3],
                ]
            })
            .collect();
        w.throw_ball([-3.0, 1.2, 0.0], [12.0, 0.0, 0.0], 0.11);
        let mut total = [0.0f32; 3];
        for _ in 0..60 {
            w.set_character(&poses);
            for (_, j) in w.step(1.0 / 60.0) {
                for k in 0..3 {
                    total[k] += j[k];
                }
            }
        }
        assert!(
            total[0] > 0.5,
            "the ball pushed the character by {total:?} N·s"
        );
        let ball = w.props().into_iter().find(|p| p.dynamic).unwrap();
        assert!(
            ball.pose[0] < 0.0,
            "the ball bounced back (x = {})",
            ball.pose[0]
        );
    }
}
