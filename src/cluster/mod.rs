//! Where a batch of evaluations runs: in this process alone, or spread over the ranks of an MPI
//! job (`mpirun -np N motionlab … --mpi`, cargo feature `mpi`).
//!
//! Every rank runs the same search (same seed, same settings), so every rank holds the same
//! optimizer state; only the evaluations of each batch are divided. Rank r evaluates a contiguous
//! block of the batch's indices ([`Ranks::share`]); the outcomes are gathered on every rank and
//! put back in index order, never in arrival order, so the search is told exactly what a single
//! process would tell it, and the result's bits do not depend on the number of ranks. Rank 0
//! alone prints, checkpoints and writes results. The optimizer's own work per generation is
//! repeated on every rank rather than sent from a master, so no rank waits for work to be handed
//! out; its cost next to the rollouts' is for the cost model to measure.

use crate::optim::Params;
use crate::optim::scheduler::Evaluate;
use serde::{Serialize, de::DeserializeOwned};
use std::ops::Range;

pub mod cost_model;
#[cfg(feature = "mpi")]
mod mpi_ranks;
pub mod tally;

/// The ranks of this process's job.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Ranks {
    /// A single process: it evaluates every point.
    #[default]
    Alone,
    /// One rank of an MPI job (`MPI_COMM_WORLD`).
    #[cfg(feature = "mpi")]
    Mpi { rank: usize, size: usize },
}

impl Ranks {
    /// This process's rank (0 when alone).
    pub fn rank(&self) -> usize {
        match *self {
            Ranks::Alone => 0,
            #[cfg(feature = "mpi")]
            Ranks::Mpi { rank, .. } => rank,
        }
    }

    /// How many ranks share the work (1 when alone).
    pub fn size(&self) -> usize {
        match *self {
            Ranks::Alone => 1,
            #[cfg(feature = "mpi")]
            Ranks::Mpi { size, .. } => size,
        }
    }

    /// Rank 0: the one that prints, checkpoints and writes the result.
    pub fn is_root(&self) -> bool {
        self.rank() == 0
    }

    /// The block of a batch of `n` this rank evaluates (see [`share`]).
    pub fn share(&self, n: usize) -> Range<usize> {
        share(n, self.rank(), self.size())
    }

    /// Evaluates a batch of `n` points: `local` computes the outcomes of the index range it is
    /// given (in order), and the outcomes of every rank come back in index order. A rank whose
    /// block comes back short (its evaluation stopped early) ends the batch there, as a single
    /// process's would: the points after it have no outcome.
    pub fn spread<O: Serialize + DeserializeOwned>(
        &self,
        n: usize,
        mut local: impl FnMut(Range<usize>) -> Vec<O>,
    ) -> Vec<O> {
        let started = std::time::Instant::now();
        match *self {
            Ranks::Alone => {
                let (out, each) = if tally::timing_each() {
                    let mut out = Vec::with_capacity(n);
                    let mut each = Vec::with_capacity(n);
                    for i in 0..n {
                        let t = std::time::Instant::now();
                        let one = local(i..i + 1);
                        each.push(t.elapsed().as_secs_f64());
                        let stopped = one.is_empty();
                        out.extend(one);
                        if stopped {
                            break;
                        }
                    }
                    (out, each)
                } else {
                    (local(0..n), Vec::new())
                };
                #[cfg(feature = "mpi")]
                let bytes = bincode::serialized_size(&out).unwrap_or(0);
                #[cfg(not(feature = "mpi"))]
                let bytes = 0;
                tally::record(n, started.elapsed(), std::time::Duration::ZERO, bytes, each);
                out
            }
            #[cfg(feature = "mpi")]
            Ranks::Mpi { size, .. } => {
                let mine = local(self.share(n));
                let evaluated = started.elapsed();
                let (parts, bytes) = mpi_ranks::all_gather(&mine);
                tally::record(
                    n,
                    evaluated,
                    started.elapsed() - evaluated,
                    bytes,
                    Vec::new(),
                );
                let mut out = Vec::with_capacity(n);
                for (r, part) in parts.into_iter().enumerate() {
                    let complete = part.len() == share(n, r, size).len();
                    out.extend(part);
                    if !complete {
                        break;
                    }
                }
                out
            }
        }
    }

    /// Waits until every rank has come here (nothing when alone).
    pub fn barrier(&self) {
        #[cfg(feature = "mpi")]
        if let Ranks::Mpi { .. } = self {
            mpi_ranks::barrier();
        }
    }

    /// The seconds of one all-gather in which every rank sends `bytes` (the median of
    /// `repeats`), measured now on these ranks: the communication term of the cost model.
    /// `None` when alone (nothing to send).
    pub fn time_gather(&self, bytes: usize, repeats: usize) -> Option<f64> {
        match *self {
            Ranks::Alone => {
                let _ = (bytes, repeats);
                None
            }
            #[cfg(feature = "mpi")]
            Ranks::Mpi { .. } => Some(mpi_ranks::time_gather(bytes, repeats)),
        }
    }
}

/// An evaluator whose batches are spread over `ranks`, each rank running its block through
/// `inner` (threads): the scheduler's seam ([`Evaluate`]) over MPI.
pub struct Spread<E> {
    pub ranks: Ranks,
    pub inner: E,
}

impl<O: Serialize + DeserializeOwned, E: Evaluate<O>> Evaluate<O> for Spread<E> {
    fn evaluate(&mut self, points: &[Params]) -> Vec<O> {
        let inner = &mut self.inner;
        self.ranks
            .spread(points.len(), |block| inner.evaluate(&points[block]))
    }
}

/// Rank `rank` of `size` evaluates indices `rank·n/size .. (rank+1)·n/size`: contiguous blocks
/// whose sizes differ by at most one, covering `0..n` in rank order.
pub fn share(n: usize, rank: usize, size: usize) -> Range<usize> {
    let size = size.max(1);
    (rank * n / size)..((rank + 1) * n / size)
}

/// Keeps MPI initialized while a job runs (MPI ends when it is dropped, after the job is done);
/// nothing when alone.
pub struct Session {
    #[cfg(feature = "mpi")]
    _guard: Option<mpi_ranks::Guard>,
}

/// This process's ranks: with `mpi`, the ranks of the MPI job it is part of (MPI started so that
/// the job's thread may call it, one call at a time); else alone.
pub fn start(mpi: bool) -> anyhow::Result<(Ranks, Session)> {
    #[cfg(feature = "mpi")]
    if mpi {
        let (ranks, guard) = mpi_ranks::start()?;
        return Ok((
            ranks,
            Session {
                _guard: Some(guard),
            },
        ));
    }
    #[cfg(not(feature = "mpi"))]
    anyhow::ensure!(
        !mpi,
        "--mpi: this motionlab was built without the cargo feature `mpi`"
    );
    Ok((
        Ranks::Alone,
        Session {
            #[cfg(feature = "mpi")]
            _guard: None,
        },
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The blocks of every rank cover the batch once, in rank order, and differ in size by at
    /// most one, for batch sizes below, at and above the number of ranks.
    #[test]
    fn shares_cover_a_batch_once_in_rank_order() {
        for size in 1..=5 {
            for n in 0..=23 {
                let blocks: Vec<Range<usize>> = (0..size).map(|r| share(n, r, size)).collect();
                let flat: Vec<usize> = blocks.iter().flat_map(|b| b.clone()).collect();
                assert_eq!(flat, (0..n).collect::<Vec<_>>(), "n {n} size {size}");
                let lens: Vec<usize> = blocks.iter().map(|b| b.len()).collect();
                let (lo, hi) = (lens.iter().min().unwrap(), lens.iter().max().unwrap());
                assert!(hi - lo <= 1, "n {n} size {size}: {lens:?}");
            }
        }
    }

    #[test]
    fn alone_evaluates_the_whole_batch() {
        let out = Ranks::Alone.spread(5, |r| r.map(|i| i * i).collect::<Vec<usize>>());
        assert_eq!(out, [0, 1, 4, 9, 16]);
    }
}
