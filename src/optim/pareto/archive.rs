//! An unbounded archive of mutually non-dominated points (Agrawal 2015, thesis §4.4.2–4.4.3).
//!
//! It keeps ndom(X) of everything inserted, X being all (objectives, payload) pairs seen, with
//! the dominance x ≺ x′ ⇔ ∀i f_i(x) ≤ f_i(x′) ∧ ∃j f_j(x) < f_j(x′). A point equal to an
//! entry is rejected (the first one is kept), so entries have distinct objectives, and failed
//! (non-finite) points are never accepted. Entries are kept sorted by increasing f1 (hence
//! strictly decreasing f2), which makes the dominance test a binary search.

use super::Objectives;
use super::dominance::is_feasible;
use super::hypervolume::hypervolume;
use serde::{Deserialize, Serialize};

/// One archived point.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ArchiveEntry<T> {
    pub objectives: Objectives,
    pub payload: T,
}

/// Non-dominated (objectives, payload) entries, sorted by increasing f1.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ParetoArchive<T> {
    entries: Vec<ArchiveEntry<T>>,
}

impl<T> Default for ParetoArchive<T> {
    fn default() -> Self {
        ParetoArchive {
            entries: Vec::new(),
        }
    }
}

impl<T> ParetoArchive<T> {
    pub fn new() -> Self {
        Self::default()
    }

    /// Whether `objectives` would be accepted: finite and not weakly dominated (dominated or
    /// equalled) by an entry.
    pub fn would_accept(&self, objectives: Objectives) -> bool {
        if !is_feasible(objectives) {
            return false;
        }
        // The entry with the largest f1 ≤ objectives[0] has the least f2 of all such entries.
        let after = self
            .entries
            .partition_point(|e| e.objectives[0] <= objectives[0]);
        after == 0 || self.entries[after - 1].objectives[1] > objectives[1]
    }

    /// Inserts the point if [`would_accept`](Self::would_accept) holds, removing the entries
    /// it dominates. Returns whether it was accepted.
    pub fn insert(&mut self, objectives: Objectives, payload: T) -> bool {
        if !self.would_accept(objectives) {
            return false;
        }
        // Entries with f1 ≥ objectives[0] come from here on; the dominated ones (f2 ≥
        // objectives[1]) are the leading run of them because f2 decreases.
        let start = self
            .entries
            .partition_point(|e| e.objectives[0] < objectives[0]);
        let end = start
            + self.entries[start..]
                .iter()
                .take_while(|e| e.objectives[1] >= objectives[1])
                .count();
        self.entries.splice(
            start..end,
            [ArchiveEntry {
                objectives,
                payload,
            }],
        );
        true
    }

    pub fn len(&self) -> usize {
        self.entries.len()
    }

    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    /// The entries, by increasing f1.
    pub fn entries(&self) -> &[ArchiveEntry<T>] {
        &self.entries
    }

    pub fn iter(&self) -> std::slice::Iter<'_, ArchiveEntry<T>> {
        self.entries.iter()
    }

    pub fn into_entries(self) -> Vec<ArchiveEntry<T>> {
        self.entries
    }

    /// The objectives of the entries, by increasing f1.
    pub fn objectives(&self) -> Vec<Objectives> {
        self.entries.iter().map(|e| e.objectives).collect()
    }

    /// Hypervolume of the archive w.r.t. `reference`.
    pub fn hypervolume(&self, reference: Objectives) -> f64 {
        hypervolume(&self.objectives(), reference)
    }

    pub fn clear(&mut self) {
        self.entries.clear();
    }
}

impl<T> Extend<(Objectives, T)> for ParetoArchive<T> {
    fn extend<I: IntoIterator<Item = (Objectives, T)>>(&mut self, iter: I) {
        for (objectives, payload) in iter {
            self.insert(objectives, payload);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::dominance::{dominates, non_dominated};
    use super::*;
    use rand::{Rng, SeedableRng};
    use rand_chacha::ChaCha8Rng;

    #[test]
    fn keeps_only_non_dominated_points() {
        let mut a = ParetoArchive::new();
        assert!(a.insert([2.0, 2.0], "b"));
        assert!(a.insert([1.0, 3.0], "a"));
        assert!(a.insert([3.0, 1.0], "c"));
        assert!(!a.insert([2.5, 2.5], "dominated"));
        assert!(!a.insert([2.0, 2.0], "equal"));
        assert!(!a.insert([f64::NAN, 0.0], "failed"));
        assert!(!a.insert([f64::NEG_INFINITY, 0.0], "failed"));
        assert!(!a.insert([2.0, 2.5], "weakly dominated"));
        assert_eq!(a.len(), 3);
        // Dominates b and c.
        assert!(a.insert([1.5, 1.0], "d"));
        let payloads: Vec<&str> = a.iter().map(|e| e.payload).collect();
        assert_eq!(payloads, vec!["a", "d"]);
        assert_eq!(a.objectives(), vec![[1.0, 3.0], [1.5, 1.0]]);
        // Same f1, better f2: replaces "a".
        assert!(a.insert([1.0, 2.0], "e"));
        assert_eq!(a.objectives(), vec![[1.0, 2.0], [1.5, 1.0]]);
        assert_eq!(a.hypervolume([2.0, 3.0]), 1.0 * 1.0 + 0.5 * 1.0);
        let text = ron::to_string(&a).unwrap();
        let back: ParetoArchive<String> = crate::files::from_ron(&text).unwrap();
        assert_eq!(back.objectives(), a.objectives());
        assert_eq!(back.entries()[0].payload, "e");
    }

    #[test]
    fn matches_the_non_dominated_set_of_random_streams() {
        let mut rng = ChaCha8Rng::seed_from_u64(5);
        for case in 0..200 {
            let n = rng.random_range(1..60);
            let points: Vec<Objectives> = (0..n)
                .map(|_| {
                    if case % 2 == 0 {
                        [
                            rng.random_range(0..10) as f64,
                            rng.random_range(0..10) as f64,
                        ]
                    } else {
                        [rng.random(), rng.random()]
                    }
                })
                .collect();
            let mut a = ParetoArchive::new();
            for (i, p) in points.iter().enumerate() {
                let accepted = a.insert(*p, i);
                let earlier = &points[..i];
                let expected = !earlier.iter().any(|q| dominates(*q, *p) || q == p);
                assert_eq!(accepted, expected);
            }
            let mut expected: Vec<Objectives> =
                non_dominated(&points).iter().map(|&i| points[i]).collect();
            expected.sort_by(|a, b| a[0].total_cmp(&b[0]));
            expected.dedup();
            assert_eq!(a.objectives(), expected);
            // Payload = index of the first occurrence.
            for e in a.iter() {
                assert_eq!(
                    points.iter().position(|p| *p == e.objectives),
                    Some(e.payload)
                );
            }
        }
    }
}
