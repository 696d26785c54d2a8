//! One module per game: only that game's rules.

pub mod spoil_five;
