//! Diversity search (Agrawal, Shen & van de Panne 2014).
pub mod objective;
pub mod search;
pub use objective::*;
pub use search::*;
pub mod explore;
