//! A hash of a simulation's state, for checking that two runs stand at the same state (the
//! steering guard's futures carried on, checked against playback).

use super::Simulation;

impl Simulation {
    /// Feeds `h` what the next steps depend on that a step changes: every rigid body's pose and
    /// velocity, the clocks, the targets, torques, rates and gains, the pending pushes. Two
    /// simulations of one character that hash alike continue alike, as far as a hash can tell
    /// (a look-ahead checks with it that playback followed its future).
    pub fn hash_state(&self, h: &mut impl std::hash::Hasher) {
        let mut bits = |v: &[f32]| v.iter().for_each(|x| h.write_u32(x.to_bits()));
        for (_, b) in self.state.bodies.iter() {
            let (p, r) = (b.position().translation, b.position().rotation);
            bits(&[p.x, p.y, p.z, r.x, r.y, r.z, r.w]);
            bits(&[b.linvel().to_array(), b.angvel().to_array()].concat());
        }
        for v in [
            &self.targets,
            &self.torques,
            &self.feedforward,
            &self.target_rates,
        ] {
            bits(v);
        }
        for (kp, kd) in &self.gain_multipliers {
            bits(&[*kp, *kd]);
        }
        for (body, force, left) in &self.pushes {
            bits(&[*body as f32, *left as f32]);
            bits(&force.to_array());
        }
        bits(&[self.gravity, self.failure.is_some() as u8 as f32]);
        h.write_u64(self.time.to_bits());
        h.write_u64(self.steps);
    }
}
