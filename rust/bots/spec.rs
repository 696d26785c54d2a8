//! Bot specs: `random`, `heuristic`, `ismcts[:name=value,...]`, parsed once for every game.

use crate::{config_err, Result};

/// What a native bot is: its kind and parameters.
#[derive(Debug, Clone, PartialEq)]
pub enum Spec {
    Random,
    Heuristic,
    Ismcts(IsmctsParams),
}

/// How an IS-MCTS playout picks its actions past the tree.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Rollout {
    Random,
    Heuristic,
}

/// Where an IS-MCTS playout stops.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Horizon {
    /// At the end of the current deal, valued by the game's estimate between deals
    /// ([`crate::game::Game::deal_value`]); at the end of the game when it has none.
    Deal,
    /// At the end of the game, valued by its returns.
    Game,
}

#[derive(Debug, Clone, PartialEq)]
pub struct IsmctsParams {
    /// Iterations per decision (each a determinisation, a descent and a playout).
    pub iterations: u32,
    /// UCB exploration constant, on returns scaled to [-1, 1] by the largest seen.
    pub c: f64,
    pub rollout: Rollout,
    pub horizon: Horizon,
    /// Root-parallel trees, `iterations / threads` each (deterministic for a given value).
    pub threads: u32,
}

impl Default for IsmctsParams {
    fn default() -> Self {
        IsmctsParams {
            iterations: 1000,
            c: 0.7,
            rollout: Rollout::Random,
            horizon: Horizon::Deal,
            threads: 1,
        }
    }
}

/// The native bots' names.
pub const NAMES: [&str; 3] = ["random", "heuristic", "ismcts"];
const ISMCTS_PARAMETERS: &str =
    "iterations (int 1..=10000000), c (number >= 0), rollout (random or heuristic), horizon (deal or game), threads (int 1..=64)";

impl Spec {
    pub fn parse(text: &str) -> Result<Spec> {
        let (kind, params) = match text.split_once(':') {
            Some((k, p)) => (k.trim(), Some(p)),
            None => (text.trim(), None),
        };
        let spec = match kind {
            "random" => Spec::Random,
            "heuristic" => Spec::Heuristic,
            "ismcts" => Spec::Ismcts(IsmctsParams::default()),
            _ => {
                return Err(config_err!(
                    "unknown bot {}; the bots are: {}",
                    crate::error::quoted(kind),
                    NAMES.join(", ")
                ))
            }
        };
        let Some(params) = params else {
            return Ok(spec);
        };
        let Spec::Ismcts(mut p) = spec else {
            return Err(config_err!(
                "bot {kind} takes no parameters, got {}",
                crate::error::quoted(params)
            ));
        };
        let mut given: Vec<&str> = Vec::new();
        for item in params.split(',') {
            let Some((name, value)) = item.split_once('=') else {
                return Err(config_err!(
                    "ismcts parameter {} is not name=value; the parameters are: {ISMCTS_PARAMETERS}",
                    crate::error::quoted(item)
                ));
            };
            let (name, value) = (name.trim(), value.trim());
            if given.contains(&name) {
                return Err(config_err!(
                    "ismcts parameter {} is given twice; the parameters are: {ISMCTS_PARAMETERS}",
                    crate::error::quoted(name)
                ));
            }
            given.push(name);
            let bad = || {
                config_err!(
                    "ismcts parameter {name} cannot be {}; the parameters are: {ISMCTS_PARAMETERS}",
                    crate::error::quoted(value)
                )
            };
            match name {
                "iterations" => {
                    p.iterations = value
                        .parse()
                        .ok()
                        .filter(|i| (1..=10_000_000).contains(i))
                        .ok_or_else(bad)?
                }
                "c" => {
                    p.c = value
                        .parse()
                        .ok()
                        .filter(|c: &f64| c.is_finite() && *c >= 0.0)
                        .ok_or_else(bad)?
                }
                "rollout" => {
                    p.rollout = match value {
                        "random" => Rollout::Random,
                        "heuristic" => Rollout::Heuristic,
                        _ => return Err(bad()),
                    }
                }
                "horizon" => {
                    p.horizon = match value {
                        "deal" => Horizon::Deal,
                        "game" => Horizon::Game,
                        _ => return Err(bad()),
                    }
                }
                "threads" => {
                    p.threads = value
                        .parse()
                        .ok()
                        .filter(|t| (1..=64).contains(t))
                        .ok_or_else(bad)?
                }
                _ => {
                    return Err(config_err!(
                        "unknown ismcts parameter {}; the parameters are: {ISMCTS_PARAMETERS}",
                        crate::error::quoted(name)
                    ))
                }
            }
        }
        Ok(Spec::Ismcts(p))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn specs_parse_and_bad_ones_say_what_is_valid() {
        assert_eq!(Spec::parse("random").unwrap(), Spec::Random);
        assert_eq!(Spec::parse("heuristic").unwrap(), Spec::Heuristic);
        let Spec::Ismcts(p) =
            Spec::parse("ismcts:iterations=300,c=1.5,rollout=heuristic,horizon=game").unwrap()
        else {
            panic!()
        };
        assert_eq!(
            (p.iterations, p.c, p.rollout, p.horizon, p.threads),
            (300, 1.5, Rollout::Heuristic, Horizon::Game, 1)
        );
        for bad in [
            "alphazero",
            "random:x=1",
            "ismcts:iterations=0",
            "ismcts:iterations=-3",
            "ismcts:iterations=ten",
            "ismcts:c=-1",
            "ismcts:c=nan",
            "ismcts:rollout=smart",
            "ismcts:horizon=hand",
            "ismcts:threads=0",
            "ismcts:depth=3",
            "ismcts:iterations",
        ] {
            let e = Spec::parse(bad).unwrap_err().to_string();
            assert!(
                e.contains("the bots are")
                    || e.contains("the parameters are")
                    || e.contains("takes no"),
                "{bad}: {e}"
            );
        }
        let twice = Spec::parse("ismcts:iterations=10,c=1,iterations=20").unwrap_err();
        assert!(twice.to_string().contains("given twice"), "{twice}");
    }
}
