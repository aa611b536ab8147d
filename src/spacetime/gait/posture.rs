//! The posture term's coordinates (McIntosh 2011, thesis §3.2.3: "preferred angles"): a pull of
//! chosen joint coordinates towards the rest pose, by whole limbs or single coordinates, the
//! root's rotation included when an entry names it.

use super::{GaitError, GaitSpec};

impl GaitSpec {
    /// The spec with its posture term holding `entries` ([`Self::posture_limbs`]); an entry
    /// that names nothing is an error, not a term that silently holds nothing.
    pub fn with_posture(mut self, entries: &[String]) -> Result<Self, GaitError> {
        let candidates = self.posture_candidates();
        for e in entries {
            if !candidates.iter().any(|(_, limb, dof, root)| {
                posture_names(e, limb, dof) && (!root || e.contains('.'))
            }) {
                let limbs: Vec<&str> = self
                    .skeleton
                    .limbs
                    .iter()
                    .map(|l| l.name.as_str())
                    .collect();
                return Err(GaitError::UnknownPosture(
                    e.clone(),
                    self.skeleton.name.clone(),
                    limbs.join(", "),
                ));
            }
        }
        self.posture_limbs = entries.to_vec();
        Ok(self)
    }

    /// The coordinates the posture term holds: every non-root rotational coordinate of the
    /// limbs named by [`Self::posture_limbs`] (all when it is empty), and the coordinates its
    /// dotted entries name (the root's rotation among them).
    pub fn posture_coordinates(&self) -> Vec<usize> {
        let candidates = self.posture_candidates();
        let (coordinates, limbs): (Vec<&String>, Vec<&String>) =
            self.posture_limbs.iter().partition(|p| p.contains('.'));
        let held_by = |entries: &[&String], limb: &str, dof: &str| {
            entries.iter().any(|e| posture_names(e, limb, dof))
        };
        let mut held: Vec<usize> = candidates
            .iter()
            .filter(|(_, limb, dof, root)| {
                !root && (self.posture_limbs.is_empty() || held_by(&limbs, limb, dof))
            })
            .map(|(d, ..)| *d)
            .collect();
        for (d, limb, dof, _) in &candidates {
            if !held.contains(d) && held_by(&coordinates, limb, dof) {
                held.push(*d);
            }
        }
        held
    }

    /// The coordinates a posture entry can name: every rotational coordinate, with its limb's
    /// and its own name and whether it is the root's, in limb order. The root's rotation is held
    /// only when a dotted entry names it (`pelvis.rx`: a pelvis that does not roll).
    fn posture_candidates(&self) -> Vec<(usize, &str, String, bool)> {
        let rotational = self.skeleton.rotational_dofs();
        let names = self.skeleton.dof_names();
        self.skeleton
            .limbs
            .iter()
            .flat_map(|l| {
                l.dofs
                    .clone()
                    .map(move |d| (d, l.name.as_str(), l.parent.is_none()))
            })
            .filter(|&(d, _, _)| rotational[d])
            .map(|(d, limb, root)| (d, limb, names[d].clone(), root))
            .collect()
    }
}

/// Whether posture entry `entry` names coordinate `dof` of limb `limb`: an entry with a dot
/// names coordinates (`thigh.ry`: both hips' rotation about the thigh), a plain one limbs.
fn posture_names(entry: &str, limb: &str, dof: &str) -> bool {
    if entry.contains('.') {
        dof.contains(entry)
    } else {
        limb.contains(entry)
    }
}
