//! The cost model of a search spread over P ranks: Amdahl's law with the serial part, the
//! evaluations and the communication measured on this machine.
//!
//! A search is a sequence of batches (generations) of n evaluations. Every rank repeats the
//! search's own work (sampling, ranking, updating: the serial part S, measured as the one-rank
//! run's wall time less its evaluations), evaluates ⌈n/P⌉ of each batch (t_e each, measured on
//! one core), then all ranks gather the batch's B bytes of outcomes. An all-gather by recursive
//! doubling takes ⌈log₂ P⌉ rounds of latency α and moves (P−1)/P of the B bytes into every rank
//! at β seconds per byte (α and β measured by timing all-gathers between two ranks):
//!
//!   T(P) = S + G·(⌈n/P⌉·t_e + ⌈log₂ P⌉·α + β·B·(P−1)/P),    efficiency E(P) = T(1) / (P·T(P)).
//!
//! The ⌈n/P⌉ term is the granularity limit: past P = n ranks, more ranks wait. When each
//! evaluation of the one-rank run was timed ([`super::tally::time_each_evaluation`]), the
//! evaluation term is exact instead: per batch, the slowest rank's block (the blocks of
//! [`super::share`]) of the measured times, so rollouts that stop early and leave one rank
//! waiting are predicted too.

use super::tally::Tally;
use serde::{Deserialize, Serialize};

/// The cost of one all-gather: α + β·bytes received per rank.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct Network {
    /// Seconds per round (the time of a gather of a few bytes between two ranks).
    pub latency: f64,
    /// Seconds per byte received.
    pub per_byte: f64,
}

impl Network {
    /// From the times of two-rank all-gathers of `small` and `large` bytes per rank (each rank
    /// receives the other's: one round).
    pub fn from_two_ranks(small: (usize, f64), large: (usize, f64)) -> Self {
        let per_byte = ((large.1 - small.1) / (large.0 - small.0).max(1) as f64).max(0.0);
        Self {
            latency: (small.1 - per_byte * small.0 as f64).max(0.0),
            per_byte,
        }
    }

    /// Seconds of an all-gather of `bytes` in all over `ranks` ranks.
    pub fn gather(&self, ranks: usize, bytes: f64) -> f64 {
        if ranks <= 1 {
            return 0.0;
        }
        let rounds = (ranks as f64).log2().ceil();
        rounds * self.latency + self.per_byte * bytes * (ranks - 1) as f64 / ranks as f64
    }
}

/// A search measured in one process on one core.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Measured {
    /// Wall seconds of the whole search.
    pub wall: f64,
    /// Its batches.
    pub tally: Tally,
}

impl Measured {
    /// Seconds per evaluation on one core.
    pub fn evaluation(&self) -> f64 {
        self.tally.evaluate_seconds / self.tally.evaluations.max(1) as f64
    }

    /// The serial part: what is not evaluation (seconds, the whole search).
    pub fn serial(&self) -> f64 {
        (self.wall - self.tally.evaluate_seconds).max(0.0)
    }

    /// The serial fraction of the one-rank run.
    pub fn serial_fraction(&self) -> f64 {
        self.serial() / self.wall.max(f64::MIN_POSITIVE)
    }

    /// Predicted wall seconds on `ranks` ranks of one core each.
    pub fn predict(&self, ranks: usize, network: &Network) -> f64 {
        if ranks <= 1 {
            return self.wall;
        }
        let t = &self.tally;
        let evaluations = if t.evaluation_seconds.is_empty() {
            t.batches as f64 * (t.batch_size() / ranks as f64).ceil() * self.evaluation()
        } else {
            t.evaluation_seconds
                .iter()
                .map(|each| {
                    (0..ranks)
                        .map(|r| each[super::share(each.len(), r, ranks)].iter().sum::<f64>())
                        .fold(0.0, f64::max)
                })
                .sum()
        };
        self.serial() + evaluations + t.batches as f64 * network.gather(ranks, t.bytes_per_batch())
    }

    /// Predicted parallel efficiency on `ranks` ranks: T(1) / (P·T(P)).
    pub fn efficiency(&self, ranks: usize, network: &Network) -> f64 {
        self.wall / (ranks as f64 * self.predict(ranks, network))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn search(batches: u64, n: u64, t_e: f64, serial: f64, bytes: u64) -> Measured {
        Measured {
            wall: serial + (batches * n) as f64 * t_e,
            tally: Tally {
                batches,
                evaluations: batches * n,
                largest_batch: n,
                evaluate_seconds: (batches * n) as f64 * t_e,
                gather_seconds: 0.0,
                bytes: batches * bytes,
                evaluation_seconds: Vec::new(),
            },
        }
    }

    const FREE: Network = Network {
        latency: 0.0,
        per_byte: 0.0,
    };

    /// No serial part and free messages: perfect while P divides n, then ⌈n/P⌉ rules: 64
    /// evaluations on 120 ranks keep 64 busy.
    #[test]
    fn granularity_limits_a_search_without_serial_part() {
        let s = search(30, 64, 0.02, 0.0, 0);
        assert!((s.efficiency(8, &FREE) - 1.0).abs() < 1e-12);
        assert!((s.efficiency(32, &FREE) - 1.0).abs() < 1e-12);
        assert!((s.efficiency(120, &FREE) - 64.0 / 120.0).abs() < 1e-12);
        // 30 evaluations on 8 ranks: 4 rounds of work for 3.75 rounds' worth.
        let s = search(10, 30, 0.02, 0.0, 0);
        assert!((s.efficiency(8, &FREE) - 30.0 / 32.0).abs() < 1e-12);
    }

    /// Amdahl: a 10 % serial part caps the speed-up below 10.
    #[test]
    fn a_serial_part_caps_the_speed_up() {
        let s = search(100, 1200, 0.001, 120.0 / 9.0, 0);
        assert!((s.serial_fraction() - 0.1).abs() < 1e-12);
        let speed_up = s.wall / s.predict(120, &FREE);
        let amdahl = 1.0 / (0.1 + 0.9 / 120.0);
        assert!(
            (speed_up - amdahl).abs() < 1e-9,
            "{speed_up} against {amdahl}"
        );
    }

    /// Timed one by one, a batch whose slow evaluations sit together divides unevenly: 4 fast
    /// and 4 slow on 2 ranks take as long as the 4 slow.
    #[test]
    fn timed_evaluations_predict_the_slowest_block() {
        let mut s = search(1, 8, 0.0, 0.0, 0);
        let each = vec![0.01, 0.01, 0.01, 0.01, 0.03, 0.03, 0.03, 0.03];
        s.tally.evaluate_seconds = each.iter().sum();
        s.wall = s.tally.evaluate_seconds;
        s.tally.evaluation_seconds = vec![each];
        assert!((s.predict(2, &FREE) - 0.12).abs() < 1e-12);
        assert!((s.efficiency(2, &FREE) - 0.16 / 0.24).abs() < 1e-12);
        assert!((s.predict(8, &FREE) - 0.03).abs() < 1e-12);
    }

    /// The network's two parameters come back from two timings, and an all-gather over 8 ranks
    /// takes 3 rounds and 7/8 of the bytes.
    #[test]
    fn network_from_two_timings() {
        let net =
            Network::from_two_ranks((8, 2e-6 + 8e-9), (1 << 20, 2e-6 + (1 << 20) as f64 * 1e-9));
        assert!((net.latency - 2e-6).abs() < 1e-12, "{net:?}");
        assert!((net.per_byte - 1e-9).abs() < 1e-15, "{net:?}");
        let t = net.gather(8, 8000.0);
        assert!((t - (3.0 * 2e-6 + 7000.0 * 1e-9)).abs() < 1e-12, "{t}");
        assert_eq!(net.gather(1, 8000.0), 0.0);
    }
}
