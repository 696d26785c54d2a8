//! Random bots and batched random playouts, written once for every game.

use crate::game::Game;
use crate::rng::Rng;

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
