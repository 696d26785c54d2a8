//! One module per game: only that game's rules.

pub mod cau_robat;
pub mod cicera;
pub mod cuajo;
pub mod spoil_five;
