//! tapete: fast, exact engines for four traditional card games.
//!
//! The engine is pure Rust; the PyO3 bindings live in `python/` behind the `python` feature.

pub mod batch;
pub mod bots;
pub mod cards;
pub mod chance;
pub mod crew;
pub mod dynamic;
pub mod error;
pub mod game;
pub mod games;
pub mod registry;
pub mod rng;
pub mod sampling;

#[cfg(feature = "python")]
mod python;

pub use dynamic::{DynGame, DynState, GameOf, Tracked};
pub use error::{Error, Result};
pub use game::{Action, Game};
pub use games::cau_robat::CauRobat;
pub use games::cicera::Cicera;
pub use games::cuajo::Cuajo;
pub use games::spoil_five::SpoilFive;
pub use registry::{list_games, load_game};
pub use rng::Rng;

/// Calls `$m!(Type)` for every registered game: the one place a game is registered.
#[macro_export]
macro_rules! for_each_game {
    ($m:ident) => {
        $m!($crate::games::spoil_five::SpoilFive);
        $m!($crate::games::cicera::Cicera);
        $m!($crate::games::cau_robat::CauRobat);
        $m!($crate::games::cuajo::Cuajo);
    };
}
