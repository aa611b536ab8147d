//! Diversity search (specs/002_003.md part B).
pub mod objective;
pub mod search;
pub use objective::*;
pub use search::*;
pub mod explore;
