//! The window cost of Borer, Guay and Sumner 2018 (§5.3), summed over the cost instants of a
//! window (every 0.05 s): E = E_root + E_pose + E_ee, with E_root = w_h·Δh² + w_p·‖Δp‖² +
//! w_q·angle(q_t⁻¹q_s)² for the root's height, position and orientation, E_pose = w_pose times
//! the mean over the joints of the squared angle between the target's and the simulation's
//! relative rotations, and E_ee = w_ee times the mean over the end effectors (feet, hands, head,
//! tail) of their squared distance. No effort or smoothness term: the paper found they hurt.

use super::target::Pose;
use serde::{Deserialize, Serialize};

/// The weights of the window cost (the paper's: 25, 15, 15, 10, 50).
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct CostWeights {
    pub height: f64,
    pub position: f64,
    pub orientation: f64,
    pub pose: f64,
    pub effectors: f64,
}

impl Default for CostWeights {
    fn default() -> Self {
        CostWeights {
            height: 25.0,
            position: 15.0,
            orientation: 15.0,
            pose: 10.0,
            effectors: 50.0,
        }
    }
}

/// The cost's terms at one instant, or summed over a window.
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct CostTerms {
    pub root: f64,
    pub pose: f64,
    pub effectors: f64,
}

impl CostTerms {
    pub fn total(&self) -> f64 {
        self.root + self.pose + self.effectors
    }

    pub fn add(&mut self, o: &CostTerms) {
        self.root += o.root;
        self.pose += o.pose;
        self.effectors += o.effectors;
    }
}

/// The terms at one instant: the target's pose against the simulation's.
pub fn instant(target: &Pose, sim: &Pose, w: &CostWeights) -> CostTerms {
    let dh = target.root_position.y - sim.root_position.y;
    let dp = (target.root_position - sim.root_position).norm_squared();
    let dq = (target.root_orientation.inverse() * sim.root_orientation).angle();
    let root = w.height * dh * dh + w.position * dp + w.orientation * dq * dq;
    let pose = weighted_mean(
        w.pose,
        target
            .joints
            .iter()
            .zip(&sim.joints)
            .map(|(a, b)| (a.inverse() * b).angle().powi(2)),
    );
    let effectors = weighted_mean(
        w.effectors,
        target
            .effectors
            .iter()
            .zip(&sim.effectors)
            .map(|(a, b)| (a - b).norm_squared()),
    );
    CostTerms {
        root,
        pose,
        effectors,
    }
}

/// `weight` times the mean of the values, 0 for none.
fn weighted_mean(weight: f64, values: impl ExactSizeIterator<Item = f64>) -> f64 {
    let n = values.len();
    if n == 0 {
        0.0
    } else {
        weight * values.sum::<f64>() / n as f64
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use nalgebra::{Rotation3, UnitQuaternion, Vector3};

    fn pose() -> Pose {
        Pose {
            root_position: Vector3::new(0.0, 1.0, 0.0),
            root_orientation: UnitQuaternion::identity(),
            joints: vec![Rotation3::identity(); 4],
            effectors: vec![Vector3::zeros(); 2],
        }
    }

    /// The paper's terms on synthetic offsets: the root shifted 1 m sideways costs w_p = 15, a
    /// hinge of four off by 0.1 rad costs w_pose·0.01/4, one foot of two 0.2 m off costs
    /// w_ee·0.04/2, the root 0.1 m lower costs w_h·0.01 + w_p·0.01.
    #[test]
    fn each_term_costs_what_the_paper_says() {
        let w = CostWeights::default();
        let t = pose();
        let mut s = pose();
        s.root_position.x += 1.0;
        assert!((instant(&t, &s, &w).total() - 15.0).abs() < 1e-12);
        let mut s = pose();
        s.joints[2] = Rotation3::from_axis_angle(&Vector3::z_axis(), 0.1);
        assert!((instant(&t, &s, &w).pose - 10.0 * 0.01 / 4.0).abs() < 1e-12);
        let mut s = pose();
        s.effectors[1].z = 0.2;
        assert!((instant(&t, &s, &w).effectors - 50.0 * 0.04 / 2.0).abs() < 1e-12);
        let mut s = pose();
        s.root_position.y -= 0.1;
        assert!((instant(&t, &s, &w).root - (25.0 * 0.01 + 15.0 * 0.01)).abs() < 1e-12);
        let mut s = pose();
        s.root_orientation = UnitQuaternion::from_axis_angle(&Vector3::y_axis(), 0.3);
        assert!((instant(&t, &s, &w).root - 15.0 * 0.09).abs() < 1e-12);
        assert_eq!(instant(&t, &t, &w).total(), 0.0);
    }
}
