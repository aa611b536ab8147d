//! Diversity search (specs/002_003.md part B).
pub mod search;
pub use search::*;
pub mod explore;
