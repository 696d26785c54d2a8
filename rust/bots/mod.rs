//! The native bots (random, heuristic, IS-MCTS), written once for every game, and the duplicate
//! arena that measures them. docs/bots.md is their contract.

pub mod ismcts;
pub mod spec;

pub use spec::{IsmctsParams, Rollout, Spec};

use crate::dynamic::{DynState, Tracked};
use crate::game::{Action, Game};
use crate::rng::Rng;
use crate::{value_err, Result};
use std::sync::Arc;

/// A native bot of one game: its spec and its own random stream.
#[derive(Debug, Clone)]
pub struct Bot<G: Game> {
    spec: Spec,
    rng: Rng,
    legal: Vec<G::Action>,
}

impl<G: Game> Bot<G> {
    pub fn new(spec: Spec, seed: u64) -> Self {
        Bot {
            spec,
            rng: Rng::new(seed),
            legal: Vec::new(),
        }
    }

    /// A legal action for the seat to act in `state` (not terminal).
    pub fn choose(&mut self, state: &Tracked<G>) -> G::Action {
        self.legal.clear();
        state.state().legal_actions(&mut self.legal);
        match &self.spec {
            Spec::Random => self.legal[self.rng.below(self.legal.len() as u64) as usize],
            Spec::Heuristic => state.state().heuristic_action(&self.legal, &mut self.rng),
            Spec::Ismcts(p) => ismcts::choose(state, &self.legal, p, &mut self.rng),
        }
    }
}

/// A bot behind a trait object: it plays states of its own game only.
pub trait DynBot: Send + Sync {
    fn choose(&mut self, state: &dyn DynState) -> Result<usize>;
    /// Where its random stream is: a bot of the same spec seeded with it goes on alike.
    fn rng_state(&self) -> u64;
}

impl<G: Game> DynBot for Bot<G> {
    fn choose(&mut self, state: &dyn DynState) -> Result<usize> {
        let Some(t) = state.as_any().downcast_ref::<Tracked<G>>() else {
            return Err(value_err!(
                "this bot plays {}, not {}",
                G::NAME,
                state.game().name()
            ));
        };
        if t.is_chance_node() {
            return Err(crate::illegal_err!(
                "a chance node: a bot chooses decisions; apply one of chance_outcomes()"
            ));
        }
        if t.state().is_terminal() {
            return Err(crate::illegal_err!(
                "the game is over: there is no move to choose"
            ));
        }
        Ok(Bot::choose(self, t).index())
    }

    fn rng_state(&self) -> u64 {
        self.rng.state
    }
}

/// A bot's seed in the arena: one SplitMix64 step per part, so that every (deal, rotation,
/// entry) gets its own stream from the arena's seed.
pub fn bot_seed(seed: u64, deal: u64, rotation: u64, entry: u64) -> u64 {
    [deal, rotation, entry]
        .iter()
        .fold(seed, |h, &part| Rng::new(h ^ part).next_u64())
}

/// What the arena gives back: per deal, each entry's return (averaged over the seats it played
/// from with duplicate), and the games' lengths.
#[derive(Debug, Clone, PartialEq)]
pub struct ArenaOutcome {
    /// `deals × entries`, deal-major.
    pub values: Vec<f64>,
    /// Actions per game, in play order (`deals × rotations`).
    pub lengths: Vec<u64>,
    /// Every game's actions, when asked for: `(deal seed, rotation, actions)`.
    pub games: Option<Vec<(u64, usize, Vec<usize>)>>,
}

/// Plays deals `first .. first + deals` (deal `d` from seed `seed + d`) between `specs` (one per
/// seat): each deal once with entry `e` at seat `e`, or with `duplicate` `n` times, seat `s`
/// played in rotation `r` by entry `(s + r) mod n`. Deals are split over `threads`; the outcome
/// does not depend on it, and consecutive ranges of deals add up to the whole run.
#[allow(clippy::too_many_arguments)]
pub fn arena<G: Game>(
    config: &Arc<G::Config>,
    specs: &[Spec],
    first: u64,
    deals: u64,
    seed: u64,
    threads: usize,
    duplicate: bool,
    keep_games: bool,
) -> Result<ArenaOutcome> {
    use rayon::prelude::*;
    let n = G::num_players(config);
    if specs.len() != n {
        return Err(crate::config_err!(
            "{} needs one bot per seat: {n} bots, got {}",
            G::NAME,
            specs.len()
        ));
    }
    // The deals are the range first..first + deals, whose end must be a u64.
    let Some(end) = first.checked_add(deals) else {
        return Err(crate::config_err!(
            "deals {first} .. {first} + {deals} do not fit below 2^64"
        ));
    };
    let rotations = if duplicate { n } else { 1 };
    let play_deal = |deal: u64| {
        let mut values = vec![0.0; n];
        let mut lengths = Vec::with_capacity(rotations);
        let mut games = Vec::new();
        let game_seed = seed.wrapping_add(deal);
        let mut returns = vec![0.0; n];
        for r in 0..rotations {
            let entry_of = |seat: usize| (seat + r) % n;
            let mut bots: Vec<Bot<G>> = (0..n)
                .map(|s| {
                    let e = entry_of(s);
                    Bot::new(specs[e].clone(), bot_seed(seed, deal, r as u64, e as u64))
                })
                .collect();
            let mut t = Tracked::<G>::new(config.clone(), game_seed, Vec::new());
            while let Some(p) = t.state().current_player() {
                let a = bots[p].choose(&t);
                t.apply_legal(a);
            }
            t.state().returns(&mut returns);
            for (s, r) in returns.iter().enumerate() {
                values[entry_of(s)] += r / rotations as f64;
            }
            lengths.push(t.history().len() as u64);
            if keep_games {
                games.push((
                    game_seed,
                    r,
                    t.history().iter().map(|a| a.index()).collect(),
                ));
            }
        }
        (values, lengths, games)
    };
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(threads.max(1))
        .build()
        .map_err(|e| crate::config_err!("cannot start {threads} threads: {e}"))?;
    let per_deal: Vec<_> = pool.install(|| (first..end).into_par_iter().map(play_deal).collect());
    let mut out = ArenaOutcome {
        values: Vec::with_capacity(per_deal.len() * n),
        lengths: Vec::with_capacity(per_deal.len() * rotations),
        games: keep_games.then(Vec::new),
    };
    for (values, lengths, games) in per_deal {
        out.values.extend(values);
        out.lengths.extend(lengths);
        if let Some(all) = out.games.as_mut() {
            all.extend(games);
        }
    }
    Ok(out)
}

/// Plays one game between uniformly random bots: the state from `seed`, the bots' choices from
/// `Rng::new(!seed)`. Writes the final returns into `returns` and gives the number of actions.
pub fn random_playout<G: Game>(
    config: &G::Config,
    seed: u64,
    legal: &mut Vec<G::Action>,
    returns: &mut [f64],
) -> u64 {
    let mut state = G::new(config, Rng::new(seed));
    let mut bot = Rng::new(!seed);
    let mut actions = 0;
    loop {
        legal.clear();
        state.legal_actions(legal);
        if legal.is_empty() {
            break;
        }
        state.apply_unchecked(legal[bot.below(legal.len() as u64) as usize]);
        actions += 1;
    }
    state.returns(returns);
    actions
}

/// Random playouts of games `seed, seed + 1, …` (one seed each), split over `threads` threads.
/// Game `i`'s returns go to `returns[i * n .. (i + 1) * n]` and its length to `lengths[i]`; the
/// results do not depend on the number of threads.
pub fn random_playouts<G: Game>(
    config: &G::Config,
    seed: u64,
    threads: usize,
    returns: &mut [f64],
    lengths: &mut [u64],
) {
    let n = G::num_players(config);
    let games = lengths.len();
    assert_eq!(returns.len(), games * n);
    let chunk = games.div_ceil(threads.clamp(1, games.max(1))).max(1);
    let work = |first: usize, returns: &mut [f64], lengths: &mut [u64]| {
        let mut legal = Vec::with_capacity(64);
        for (i, (r, l)) in returns.chunks_mut(n).zip(lengths.iter_mut()).enumerate() {
            *l = random_playout::<G>(config, seed.wrapping_add((first + i) as u64), &mut legal, r);
        }
    };
    if chunk >= games {
        return work(0, returns, lengths);
    }
    std::thread::scope(|scope| {
        for (t, (r, l)) in returns
            .chunks_mut(chunk * n)
            .zip(lengths.chunks_mut(chunk))
            .enumerate()
        {
            scope.spawn(move || work(t * chunk, r, l));
        }
    });
}
