//! Bevy-free multi-objective optimization core for RMOO (Agrawal 2015, thesis §4.4.2–4.4.3).
//!
//! Both objectives are **minimized** and a point in objective space is an [`Objectives`]
//! (`[f64; 2]`). A point with a non-finite coordinate (NaN, ±∞) is a failed evaluation: it is
//! dominated by every finite point and ranked last everywhere.
//!
//! - [`dominance`]: Pareto dominance and non-dominated sorting (levels ndom_l, Eqs 4.10–4.12).
//! - [`hypervolume`]: the 2-D hypervolume S_xref and exclusive contributions Δs (Eqs 4.13–4.15).
//! - [`selection`]: the order ≺_{s,X} of the thesis's Eq. 4.16 (rank, then contribution).
//! - [`archive`]: an unbounded archive of non-dominated (objectives, payload) entries.
//! - [`unit`]: the (1+1)-CMA-ES unit with the success rule (Igel, Suttorp & Hansen 2006).
//! - [`mocma`]: the µ×(1+1) s-MO-CMA-ES (Igel, Hansen & Roth 2007) with ask/tell, and the
//!   lower-level resample / tell-with-parents interface that RMOO (§4.4.3, Algorithm 1) needs.

pub mod archive;
pub mod dominance;
pub mod hypervolume;
pub mod mocma;
pub mod selection;
pub mod unit;

pub use archive::{ArchiveEntry, ParetoArchive};
pub use dominance::{dominates, is_feasible, non_dominated, non_dominated_sort};
pub use hypervolume::{contributions, hypervolume};
pub use mocma::{MoCmaes, MoCmaesOptions, Offspring};
pub use selection::{Selection, default_reference, select, selection_order};
pub use unit::{Individual, UnitParameters};

/// Values of the two objectives of one point, both minimized.
pub type Objectives = [f64; 2];

#[cfg(test)]
mod tests;
