//! Games by name, built from the one registration list in `for_each_game!`.

use crate::dynamic::{DynGame, DynState, GameOf, Tracked};
use crate::game::Game;
use crate::{config_err, Result};
use serde_json::Value;

/// A registered game: its name, how to load it from a config, how to read a saved state.
struct Entry {
    name: &'static str,
    load: fn(Value) -> Result<Box<dyn DynGame>>,
    read: fn(&str) -> Result<Box<dyn DynState>>,
}

fn load<G: Game>(config: Value) -> Result<Box<dyn DynGame>> {
    Ok(Box::new(GameOf::<G>::from_json(config)?))
}

fn read<G: Game>(text: &str) -> Result<Box<dyn DynState>> {
    Ok(Box::new(Tracked::<G>::deserialize(text)?))
}

fn games() -> Vec<Entry> {
    let mut out = Vec::new();
    macro_rules! register {
        ($g:ty) => {
            out.push(Entry {
                name: <$g as Game>::NAME,
                load: load::<$g>,
                read: read::<$g>,
            });
        };
    }
    crate::for_each_game!(register);
    out
}

/// The registered game of that name, or the error that lists the games.
fn entry(name: &str) -> Result<Entry> {
    games().into_iter().find(|e| e.name == name).ok_or_else(|| {
        config_err!(
            "unknown game {}; the games are: {}",
            crate::error::quoted(name),
            list_games().join(", ")
        )
    })
}

/// The registered games' names, in registration order.
pub fn list_games() -> Vec<&'static str> {
    games().into_iter().map(|e| e.name).collect()
}

/// A saved state ([`DynState::serialize`]) of any game, read once: the game named in it, its
/// config and history. ParseError for anything else.
pub fn read_state(text: &str) -> Result<Box<dyn DynState>> {
    #[derive(serde::Deserialize)]
    struct Head<'a> {
        #[serde(borrow)]
        game: std::borrow::Cow<'a, str>,
    }
    // As `serialize` writes it, the game's name comes first: read without scanning the rest
    // (which the game's reader reads anyway).
    let written = text
        .strip_prefix("{\"game\":\"")
        .and_then(|rest| rest.split_once('"'))
        .and_then(|(name, _)| entry(name).ok());
    if let Some(e) = written {
        return (e.read)(text);
    }
    let head: Head<'_> = serde_json::from_str(text)
        .map_err(|e| crate::parse_err!("corrupt serialized state: {e}"))?;
    let e = entry(&head.game).map_err(|e| crate::parse_err!("corrupt serialized state: {e}"))?;
    (e.read)(text)
}

/// A game by name with a JSON object of config values (`{}` or null for the defaults).
pub fn load_game(name: &str, config: Value) -> Result<Box<dyn DynGame>> {
    let config = if config.is_null() {
        Value::Object(Default::default())
    } else {
        config
    };
    (entry(name)?.load)(config)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A saved state is read by its game's reader, whether its name is found by the quick
    /// look at the text's start or by serde (a space before it); anything else is refused.
    #[test]
    fn read_state_finds_the_game() {
        for game in list_games() {
            let state = load_game(game, Value::Null)
                .unwrap()
                .new_state(3, &[])
                .unwrap();
            let text = state.serialize();
            let spaced = text.replacen('{', "{ ", 1);
            for t in [&text, &spaced] {
                assert!(read_state(t).unwrap().eq_dyn(state.as_ref()), "{game}");
            }
            let other = text.replacen(game, "hearts", 1);
            assert!(matches!(read_state(&other), Err(crate::Error::Parse(_))));
        }
    }
}
