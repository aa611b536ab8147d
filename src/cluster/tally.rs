//! What the spread batches of this process cost: the measurements of the cluster cost model
//! ([`super::cost_model`]). Every batch that goes through [`super::Ranks::spread`] adds its
//! evaluations, the seconds this rank spent evaluating its block, the seconds spent gathering
//! (communication and waiting for the slowest rank) and the bytes of every rank's outcomes.
//! One tally per process: a search runs one batch at a time, from its job's thread.

use serde::{Deserialize, Serialize};
use std::sync::Mutex;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

/// Totals over the batches spread since the last [`take`].
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Tally {
    /// Batches (a search's generations, or its windows' generations).
    pub batches: u64,
    /// Evaluations in all batches (every rank's).
    pub evaluations: u64,
    /// The largest batch.
    pub largest_batch: u64,
    /// Seconds this rank spent evaluating its blocks.
    pub evaluate_seconds: f64,
    /// Seconds this rank spent in the all-gather (the transfer and the wait for the slowest).
    pub gather_seconds: f64,
    /// Bytes of the outcomes of all ranks, as they travel (bincode), summed over batches; zero
    /// in a build without MPI.
    pub bytes: u64,
    /// Each batch's evaluations' seconds, one by one, when [`time_each_evaluation`] is on and
    /// the process is alone (empty otherwise): what predicts how unevenly a batch divides.
    #[serde(default)]
    pub evaluation_seconds: Vec<Vec<f64>>,
}

impl Tally {
    /// Mean evaluations per batch.
    pub fn batch_size(&self) -> f64 {
        self.evaluations as f64 / self.batches.max(1) as f64
    }

    /// Mean bytes gathered per batch.
    pub fn bytes_per_batch(&self) -> f64 {
        self.bytes as f64 / self.batches.max(1) as f64
    }
}

static TALLY: Mutex<Tally> = Mutex::new(Tally {
    batches: 0,
    evaluations: 0,
    largest_batch: 0,
    evaluate_seconds: 0.0,
    gather_seconds: 0.0,
    bytes: 0,
    evaluation_seconds: Vec::new(),
});

static EACH: AtomicBool = AtomicBool::new(false);

/// Evaluates a lone process's batches one point at a time, timing each (for the cost model;
/// it serializes what threads would share, so only a one-thread measurement turns it on).
pub fn time_each_evaluation(on: bool) {
    EACH.store(on, Ordering::Relaxed);
}

pub(super) fn timing_each() -> bool {
    EACH.load(Ordering::Relaxed)
}

/// Adds one batch of `n` evaluations (`each`: their seconds one by one, if timed so).
pub(super) fn record(n: usize, evaluate: Duration, gather: Duration, bytes: u64, each: Vec<f64>) {
    let mut t = TALLY.lock().unwrap_or_else(|e| e.into_inner());
    if !each.is_empty() {
        t.evaluation_seconds.push(each);
    }
    t.batches += 1;
    t.evaluations += n as u64;
    t.largest_batch = t.largest_batch.max(n as u64);
    t.evaluate_seconds += evaluate.as_secs_f64();
    t.gather_seconds += gather.as_secs_f64();
    t.bytes += bytes;
}

/// The tally since the last call, which starts a new one.
pub fn take() -> Tally {
    std::mem::take(&mut *TALLY.lock().unwrap_or_else(|e| e.into_inner()))
}
