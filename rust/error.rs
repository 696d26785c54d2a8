//! The engine's error type. The Python bindings map each kind onto a class of `tapete.errors`.

use std::fmt;

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Error {
    /// Unknown game or config key, bad value, seed or deck.
    Config(String),
    /// An action out of range, not legal now, or applied to a finished game.
    IllegalAction(String),
    /// A malformed card, action string or serialized state.
    Parse(String),
    /// Any other bad argument (a seat out of range, a wrong number of cards).
    Value(String),
    /// A request whose memory could not be had (Python's MemoryError).
    Memory(String),
}

pub type Result<T> = std::result::Result<T, Error>;

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Error::Config(m)
            | Error::IllegalAction(m)
            | Error::Parse(m)
            | Error::Value(m)
            | Error::Memory(m) => f.write_str(m),
        }
    }
}

impl std::error::Error for Error {}

/// `text` quoted for an error message, cut after 40 characters, so that a message names the
/// bad input without copying a huge one.
pub fn quoted(text: &str) -> String {
    const MOST: usize = 40;
    let n = text.chars().count();
    if n <= MOST {
        format!("{text:?}")
    } else {
        let head: String = text.chars().take(MOST).collect();
        format!("{head:?}… ({n} characters)")
    }
}

/// Shorthands that format their message like `format!`.
#[macro_export]
macro_rules! config_err { ($($t:tt)*) => { $crate::Error::Config(format!($($t)*)) } }
#[macro_export]
macro_rules! parse_err { ($($t:tt)*) => { $crate::Error::Parse(format!($($t)*)) } }
#[macro_export]
macro_rules! value_err { ($($t:tt)*) => { $crate::Error::Value(format!($($t)*)) } }
#[macro_export]
macro_rules! illegal_err { ($($t:tt)*) => { $crate::Error::IllegalAction(format!($($t)*)) } }
