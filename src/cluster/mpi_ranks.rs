//! The MPI side of [`super::Ranks`] (rsmpi over the system's MPI, Open MPI on Debian): start,
//! and the all-gather of a batch's outcomes in rank order. Outcomes travel as bincode (exact
//! bits of every f64).

use super::Ranks;
use mpi::Count;
use mpi::datatype::PartitionMut;
use mpi::topology::SimpleCommunicator;
use mpi::traits::*;
use serde::{Serialize, de::DeserializeOwned};

/// Keeps MPI initialized; MPI is finalized when it is dropped.
pub struct Guard {
    _universe: mpi::environment::Universe,
}

pub(super) fn start() -> anyhow::Result<(Ranks, Guard)> {
    let (universe, threading) = mpi::initialize_with_threading(mpi::Threading::Serialized)
        .ok_or_else(|| anyhow::anyhow!("MPI was already initialized in this process"))?;
    anyhow::ensure!(
        threading >= mpi::Threading::Serialized,
        "the MPI library gives threading level {threading:?}; motionlab calls MPI from its job \
         thread and needs Serialized"
    );
    let world = universe.world();
    let ranks = Ranks::Mpi {
        rank: world.rank() as usize,
        size: world.size() as usize,
    };
    Ok((
        ranks,
        Guard {
            _universe: universe,
        },
    ))
}

/// Every rank's `mine`, in rank order, on every rank; and the bytes gathered (all ranks').
pub(super) fn all_gather<O: Serialize + DeserializeOwned>(mine: &[O]) -> (Vec<Vec<O>>, u64) {
    let world = SimpleCommunicator::world();
    let size = world.size() as usize;
    let bytes = bincode::serialize(mine).expect("outcomes serialize to bincode");
    let len = Count::try_from(bytes.len()).expect("a rank's outcomes fit in 2 GiB");
    let mut lens = vec![0 as Count; size];
    world.all_gather_into(&len, &mut lens[..]);
    let displs: Vec<Count> = lens
        .iter()
        .scan(0 as Count, |at, &l| {
            let d = *at;
            *at += l;
            Some(d)
        })
        .collect();
    let total: usize = lens.iter().map(|&l| l as usize).sum();
    let mut all = vec![0u8; total];
    {
        let mut partition = PartitionMut::new(&mut all[..], &lens[..], &displs[..]);
        world.all_gather_varcount_into(&bytes[..], &mut partition);
    }
    let parts = (0..size)
        .map(|r| {
            let (at, l) = (displs[r] as usize, lens[r] as usize);
            bincode::deserialize(&all[at..at + l])
                .unwrap_or_else(|e| panic!("rank {r}'s outcomes do not decode: {e}"))
        })
        .collect();
    (parts, total as u64)
}

/// The median seconds of `repeats` all-gathers of `bytes` from every rank (after a barrier, so
/// that no rank's lateness is counted).
pub(super) fn time_gather(bytes: usize, repeats: usize) -> f64 {
    let world = SimpleCommunicator::world();
    let mine = vec![0u8; bytes];
    let mut all = vec![0u8; bytes * world.size() as usize];
    let mut times: Vec<f64> = (0..repeats.max(1))
        .map(|_| {
            world.barrier();
            let t = std::time::Instant::now();
            world.all_gather_into(&mine[..], &mut all[..]);
            t.elapsed().as_secs_f64()
        })
        .collect();
    times.sort_by(f64::total_cmp);
    times[times.len() / 2]
}

/// `MPI_Barrier` on the world.
pub(super) fn barrier() {
    SimpleCommunicator::world().barrier();
}
