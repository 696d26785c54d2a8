//! Games by name, built from the one registration list in `for_each_game!`.

use crate::dynamic::{DynGame, GameOf};
use crate::game::Game;
use crate::{config_err, Result};
use serde_json::Value;

type Loader = fn(Value) -> Result<Box<dyn DynGame>>;

fn loader<G: Game>(config: Value) -> Result<Box<dyn DynGame>> {
    Ok(Box::new(GameOf::<G>::from_json(config)?))
}

fn games() -> Vec<(&'static str, Loader)> {
    let mut out: Vec<(&'static str, Loader)> = Vec::new();
    macro_rules! register {
        ($g:ty) => {
            out.push((<$g as Game>::NAME, loader::<$g>));
        };
    }
    crate::for_each_game!(register);
    out
}

/// The registered games' names, in registration order.
pub fn list_games() -> Vec<&'static str> {
    games().into_iter().map(|(name, _)| name).collect()
}

/// A game by name with a JSON object of config values (`{}` or null for the defaults).
pub fn load_game(name: &str, config: Value) -> Result<Box<dyn DynGame>> {
    let config = if config.is_null() {
        Value::Object(Default::default())
    } else {
        config
    };
    match games().into_iter().find(|(n, _)| *n == name) {
        Some((_, load)) => load(config),
        None => Err(config_err!(
            "unknown game {}; the games are: {}",
            crate::error::quoted(name),
            list_games().join(", ")
        )),
    }
}
