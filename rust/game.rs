//! The one trait every game implements: a few required rule methods, and provided methods that
//! enforce the invariants once (checked apply, terminal test) so games never re-implement them.

use crate::cards::Pack;
use crate::rng::Rng;
use crate::{illegal_err, Result};
use serde::{de::DeserializeOwned, Serialize};
use std::fmt::{Debug, Display};

/// A typed action with a dense index in `0..COUNT`.
pub trait Action: Copy + Eq + Debug + Display + Send + Sync + 'static {
    const COUNT: usize;
    fn index(self) -> usize;
    fn from_index(index: usize) -> Option<Self>;
    /// Parses the canonical action string (case-insensitive); `Error::Parse` otherwise.
    fn parse(text: &str) -> Result<Self>;
}

/// A proposed re-deal ([`Game::resample_deal`]): the deck, the actions, and the state they lead
/// to when the game replayed them itself, checking every action as `apply` does (else `None`,
/// and the caller replays them).
pub type Redeal<G> = (Vec<u8>, Vec<<G as Game>::Action>, Option<G>);

/// A game's state. `(config, seed, decks, actions)` determine it completely.
pub trait Game: Clone + PartialEq + Debug + Send + Sync + 'static {
    const NAME: &'static str;
    const PACK: &'static Pack;
    type Config: Serialize + DeserializeOwned + Clone + PartialEq + Debug + Send + Sync;
    type Action: Action;
    /// Named sets of options the rules define (`preset="name"`), each a JSON object: its
    /// options are the defaults of a config that names it, under the options given.
    const PRESETS: &'static [(&'static str, &'static str)] = &[];
    /// Other names an option is also read as (the rules' own), as `(alias, option)`.
    const ALIASES: &'static [(&'static str, &'static str)] = &[];

    /// Validates a config and fills in effective values (e.g. defaults that depend on players).
    fn check_config(config: &mut Self::Config) -> Result<()>;
    fn num_players(config: &Self::Config) -> usize;
    fn max_game_length(config: &Self::Config) -> usize;
    /// The least and the greatest return any seat can end a game of this config with (bounds
    /// no game can leave; each rules page says how they are computed and when they are reached).
    fn utility_bounds(config: &Self::Config) -> (f64, f64);
    fn observation_shape(config: &Self::Config) -> Vec<usize>;

    /// The initial state: draws what the config leaves to chance from `rng`, then the first deal.
    fn new(config: &Self::Config, rng: Rng) -> Self;
    /// Index of the current deal (from 0); it changes when an action starts a new deal.
    fn deal_index(&self) -> usize;
    /// The current deal's deck, top card first.
    fn deck(&self) -> &[u8];
    /// The same, to write: generic code only changes the cards below those the rules have
    /// drawn ([`Game::cards_drawn`]), which the rules have not looked at (explicit chance puts
    /// the cards it deals there).
    fn deck_mut(&mut self) -> &mut [u8];
    /// Deals the current deal again from `deck` (a checked permutation of the pack). Only called
    /// right after the deal started, before any action of it.
    fn redeal(&mut self, deck: &[u8]);
    fn rng(&self) -> Rng;
    fn set_rng(&mut self, rng: Rng);

    /// The config's `first_dealer` option: explicit chance makes a random first dealer a chance
    /// node and builds the state with the seat drawn there.
    fn first_dealer(config: &mut Self::Config) -> &mut FirstDealer;
    /// How many cards of deal `deal`'s deck (the current deal, or the one just before it) the
    /// rules have taken so far, from the top. The rules take them in order, and whether they
    /// take the next one depends only on the ones taken before: explicit chance deals exactly
    /// these cards as chance outcomes, one at a time, before the state may go on.
    fn cards_drawn(&self, deal: usize) -> usize;
    /// Whether `card` may be the next card of a deal whose first cards are `drawn` (a chance
    /// outcome is drawn uniformly among the remaining cards that may be). Every card may,
    /// unless the rules restrict it (Cau Robat's table shows distinct ranks).
    fn chance_allowed(_config: &Self::Config, _drawn: &[u8], _card: u8) -> bool {
        true
    }

    /// The seat to act, `None` when the game is over.
    fn current_player(&self) -> Option<usize>;
    /// Appends the legal actions, ascending, to `out` (empty at the end).
    fn legal_actions(&self, out: &mut Vec<Self::Action>);
    fn apply_unchecked(&mut self, action: Self::Action);
    fn returns(&self, out: &mut [f64]);

    /// The JSON-ready view of `seat` (`None`: everything). Layout: docs/rules/<game>.md.
    fn view(&self, seat: Option<usize>) -> serde_json::Value;
    /// Writes the observation tensor of `seat` into `out` (zeroed, of the observation size).
    fn observe(&self, seat: usize, out: &mut [f32]);
    /// A readable picture of the table as `seat` sees it (`None`: everything).
    fn render(&self, seat: Option<usize>) -> String;
    /// What `seat` has been dealt in the current deal, with the public table it was dealt to;
    /// the information state repeats it whenever it changes (a new deal, a new packet).
    fn deal_summary(&self, seat: usize) -> String;
    /// Everything [`Game::deal_summary`] of `seat` is made from that may change from one
    /// state of a game to the next, packed: an information state builds the summary again only
    /// after an action that changes this (building it after every action cost most of a long
    /// match's first information state).
    fn deal_summary_key(&self, seat: usize) -> u128;
    /// Writes to `out` how `seat` sees `action` taken now by the current player, a line (no
    /// newline); false (and nothing written) if it sees nothing. Written in place: a transcript
    /// replays every action of a match.
    fn action_seen_by(&self, action: Self::Action, seat: usize, out: &mut String) -> bool;
    /// What `seat` knows of a deal that every re-deal of it must keep (the cards it saw, what it
    /// inferred), worked out once for all the proposals of a determinisation: a search asks
    /// for one per iteration. (`Send + Sync`: a state keeps its last one for its next
    /// resample, and states go from thread to thread.)
    type Known: Send + Sync;
    /// What `seat` knows of the deal that started at `start` and went on with `actions`;
    /// `None` if no re-deal of it can be proposed.
    fn known(start: &Self, actions: &[Self::Action], seat: usize) -> Option<Self::Known>;
    /// Proposes a re-deal of that deal for determinisation: a deck and actions (hidden ones may
    /// change) that `seat` could not tell apart. `None` if this attempt failed; the caller
    /// checks and retries.
    fn resample_deal(
        known: &Self::Known,
        start: &Self,
        actions: &[Self::Action],
        seat: usize,
        rng: &mut Rng,
    ) -> Option<Redeal<Self>>;

    /// Whether `seat` has not been shown the last action yet and sees the state before it (the
    /// other seats during a Cuajo marker decision). A determinisation for `seat` then starts
    /// from that state: no world may hold what `seat` has not seen.
    fn hides_last_action_from(&self, _seat: usize) -> bool {
        false
    }

    /// The deck positions of that deal whose cards `seat` may not have seen, for the fallback
    /// of a determinisation in which no proposal fits (a walk swapping their cards). Empty, the
    /// default: the fallback keeps the hidden cards.
    fn hidden_positions(_known: &Self::Known) -> Vec<usize> {
        Vec::new()
    }

    /// A deal to start that walk from, drawn from what `seat` knows and never from the true
    /// deal (a walk from the truth would lean towards it): a proposal as [`Game::resample_deal`]
    /// makes, without what makes those uniform (the walk's steps do). Its deck and `mine`: the
    /// true actions with the hidden choices it made (a secret's kind). `None`: this try
    /// failed. The default has none: the walk then starts from the true deal.
    fn walk_proposal(
        _known: &Self::Known,
        _start: &Self,
        _actions: &[Self::Action],
        _seat: usize,
        _rng: &mut Rng,
    ) -> Option<(Vec<u8>, Vec<Self::Action>)> {
        None
    }

    /// A step of that walk that changes one of the hidden choices in `mine` (a Cuajo hidden
    /// secret) together with the cards at `positions` (the walk's [`Game::hidden_positions`]) it
    /// needs, or `None` (this try changes nothing).
    /// Drawn so that the step back is as likely as the step (the walk's steps are symmetric);
    /// the walk keeps it only if the replay fits. The default has none: a walk then keeps the
    /// hidden choices of its start.
    fn walk_choice(
        _known: &Self::Known,
        _positions: &[usize],
        _deck: &[u8],
        _mine: &[Self::Action],
        _rng: &mut Rng,
    ) -> Option<(Vec<u8>, Vec<Self::Action>)> {
        None
    }

    /// Whether [`Game::walk_choice`] may change anything in a walk of `known`.
    fn has_walk_choices(_known: &Self::Known) -> bool {
        false
    }

    /// That deal replayed with `deck` in place of its cards and `mine` (the true `actions` with
    /// the walk's own hidden choices), for a step of the walk: the actions (the hidden ones
    /// redone as the new cards need) and the state, if every action is legal and `seat` saw
    /// after each what it saw in the true deal (what the game's proposals check); `None`
    /// otherwise. The default replays `mine`, checked.
    fn replay_deal(
        _known: &Self::Known,
        start: &Self,
        deck: &[u8],
        _actions: &[Self::Action],
        mine: &[Self::Action],
        _seat: usize,
    ) -> Option<(Vec<Self::Action>, Self)> {
        start.redealt(deck, mine).map(|s| (mine.to_vec(), s))
    }

    /// This state (a deal's start) dealt from `deck` and played on with `actions`, each
    /// checked legal; `None` if one is not.
    fn redealt(&self, deck: &[u8], actions: &[Self::Action]) -> Option<Self> {
        let mut s = self.clone();
        s.redeal(deck);
        actions.iter().all(|&a| s.apply(a).is_ok()).then_some(s)
    }

    /// Whether `seat` sees the same in `self` and in `other` (a state of the same game and
    /// config): exactly `view(Some(seat)) == other.view(Some(seat))`, told without building the
    /// views. Determinisation asks it of every proposal, so it is on the search bots' hot path.
    fn sees_same(&self, other: &Self, seat: usize) -> bool;

    /// The game's rule-of-thumb player (the `heuristic` bot): one of `legal` (the current
    /// player's legal actions, ascending, never empty) chosen from what the current player may
    /// know, never from hidden cards; `rng` breaks ties. Deterministic given `rng`. Each rules
    /// page documents its game's rules of thumb; the default plays at random.
    fn heuristic_action(&self, legal: &[Self::Action], rng: &mut Rng) -> Self::Action {
        legal[rng.below(legal.len() as u64) as usize]
    }

    /// Each seat's expected final return estimated from a position between deals (the first
    /// state of a later deal), for searches that stop at the end of a deal (the `ismcts`
    /// bot's `horizon=deal`); `false`, with `out` unspecified, if the game has no estimate
    /// (the search then plays on to the end). Each rules page states its estimate.
    fn deal_value(&self, out: &mut [f64]) -> bool {
        let _ = out;
        false
    }

    /// Why `action` (one the current player may not take now) is illegal, in a few words
    /// addressed to that player ("you must follow suit: you hold 7D"), from what the player may
    /// know: their own cards and the public table, never another seat's hidden cards. `None`
    /// when the game has nothing more specific to say than the list of legal actions that
    /// [`Game::explain_illegal`] gives anyway. Each rules page's game refines the common cases.
    fn illegal_reason(&self, action: Self::Action) -> Option<String> {
        let _ = action;
        None
    }

    // Provided methods: never overridden by games.

    /// The message of an illegal `action`: the game's reason ([`Game::illegal_reason`]) if it
    /// has one, then the current player's legal actions. `None` when `action` is legal now.
    fn explain_illegal(&self, action: Self::Action) -> Option<String> {
        let Some(seat) = self.current_player() else {
            return Some(format!("the game is over: {action} cannot be applied"));
        };
        let mut legal = Vec::with_capacity(16);
        self.legal_actions(&mut legal);
        if legal.contains(&action) {
            return None;
        }
        let names: Vec<String> = legal.iter().map(|a| a.to_string()).collect();
        let why = self
            .illegal_reason(action)
            .map_or_else(String::new, |r| format!(": {r}"));
        Some(format!(
            "{action} is not legal now{why}; seat {seat} may play: {}",
            names.join(", ")
        ))
    }

    fn is_terminal(&self) -> bool {
        self.current_player().is_none()
    }

    fn is_legal(&self, action: Self::Action) -> bool {
        let mut legal = Vec::with_capacity(16);
        self.legal_actions(&mut legal);
        legal.contains(&action)
    }

    /// Applies a legal action; on an illegal one returns an error and leaves the state unchanged.
    fn apply(&mut self, action: Self::Action) -> Result<()> {
        if self.is_terminal() {
            return Err(illegal_err!("the game is over: no action can be applied"));
        }
        if !self.is_legal(action) {
            // Kept cheap (determinisation replays proposals through it): the explained message
            // is the tracked state's (`Tracked::apply`).
            return Err(illegal_err!(
                "{action} is not legal now (seat {} to act)",
                self.current_player().unwrap_or(0)
            ));
        }
        self.apply_unchecked(action);
        Ok(())
    }
}

/// The `first_dealer` option of every game: `"random"` (drawn from the seed) or a fixed seat.
#[derive(Serialize, serde::Deserialize, Clone, PartialEq, Debug)]
#[serde(untagged, expecting = "\"random\" or a seat number")]
pub enum FirstDealer {
    Named(String),
    Seat(u32),
}

impl Default for FirstDealer {
    fn default() -> Self {
        FirstDealer::Named("random".into())
    }
}

impl FirstDealer {
    /// The fixed seat, `None` for a random first dealer.
    pub fn seat(&self) -> Option<u8> {
        match *self {
            FirstDealer::Seat(s) => Some(s as u8),
            FirstDealer::Named(_) => None,
        }
    }

    pub fn check(&self, game: &str, players: u32) -> Result<()> {
        match self {
            FirstDealer::Named(s) if s == "random" => Ok(()),
            FirstDealer::Seat(s) if *s < players => Ok(()),
            other => Err(crate::config_err!(
                "{game}: first_dealer must be \"random\" or a seat 0..{}, got {}",
                players - 1,
                serde_json::to_string(other).unwrap_or_default()
            )),
        }
    }
}

/// Declares the enum options of a game's config, spelt in snake case in JSON.
macro_rules! config_options {
    ($($name:ident { $($variant:ident),* })*) => {$(
        #[derive(serde::Serialize, serde::Deserialize, Clone, Copy, PartialEq, Eq, Debug)]
        #[serde(rename_all = "snake_case")]
        pub enum $name { $($variant),* }
    )*};
}
pub(crate) use config_options;

/// `q mod n` for `q < 2n`: a seat counted on from another, without a division (it runs for
/// every rank a Cau Robat capture's run walks through, and every card of a Spoil Five trick).
pub const fn wrap(q: usize, n: usize) -> usize {
    if q >= n {
        q - n
    } else {
        q
    }
}

/// Seat check shared by every per-seat accessor.
pub fn check_seat(seat: usize, players: usize) -> Result<()> {
    if seat < players {
        Ok(())
    } else {
        Err(crate::value_err!(
            "seat {seat} is out of range: this game has seats 0..{}",
            players - 1
        ))
    }
}
