//! The object-safe layer: a tracked state (history, decks, rewards) around any [`Game`], and the
//! erased [`DynGame`]/[`DynState`] traits that the registry, the bindings and generic tests use.
//! Only this file converts between typed actions and action indices.

use crate::game::{check_seat, Action, Game};
use crate::rng::Rng;
use crate::{parse_err, Error, Result};
use serde_json::{json, Value};
use std::any::Any;
use std::fmt::Debug;
use std::sync::Arc;

/// How many times `resample_from_infostate` asks the game for a proposal before it gives up and
/// keeps the hidden cards as they are: a bound on the work at the rare positions where almost no
/// proposal fits (docs/engine.md says where that is seen).
const RESAMPLE_ATTEMPTS: usize = 1_000;

/// A game state with what the bare rules state does not keep: the seed, every deal's deck, the
/// action history, the state when the current deal started and the returns before the last action.
#[derive(Debug, Clone, PartialEq)]
pub struct Tracked<G: Game> {
    config: Arc<G::Config>,
    seed: u64,
    /// Decks of the deals started so far, then any given decks not dealt yet.
    decks: Vec<Vec<u8>>,
    history: Vec<G::Action>,
    state: G,
    /// The state right after the current deal was dealt, and how many actions came before it:
    /// determinisation re-deals from there.
    deal_start: Arc<G>,
    deal_start_at: usize,
    /// Returns before the last action; all zeros before the first, so the rewards of a whole
    /// game add up to its returns (money paid in at the deal counts towards the first action).
    returns_before: Vec<f64>,
}

impl<G: Game> Tracked<G> {
    pub fn new(config: Arc<G::Config>, seed: u64, decks: Vec<Vec<u8>>) -> Self {
        let mut state = G::new(&config, Rng::new(seed));
        let mut decks = decks;
        match decks.first() {
            Some(d) => state.redeal(d),
            None => decks.push(state.deck().to_vec()),
        }
        let returns_before = vec![0.0; G::num_players(&config)];
        Tracked {
            config,
            seed,
            decks,
            history: Vec::new(),
            deal_start: Arc::new(state.clone()),
            deal_start_at: 0,
            state,
            returns_before,
        }
    }

    pub fn state(&self) -> &G {
        &self.state
    }

    /// The bare rules state, for playouts that need no history.
    pub fn into_state(self) -> G {
        self.state
    }

    pub fn config(&self) -> &G::Config {
        &self.config
    }

    pub fn history(&self) -> &[G::Action] {
        &self.history
    }

    pub fn apply(&mut self, action: G::Action) -> Result<()> {
        if self.state.is_terminal() {
            return Err(crate::illegal_err!(
                "the game is over: {action} cannot be applied"
            ));
        }
        if let Some(why) = self.state.explain_illegal(action) {
            return Err(crate::Error::IllegalAction(why));
        }
        self.apply_legal(action);
        Ok(())
    }

    /// Applies an action the caller knows to be legal (the batch environment checks it against
    /// the legal actions it already listed).
    pub(crate) fn apply_legal(&mut self, action: G::Action) {
        if self.history.is_empty() {
            self.returns_before.fill(0.0);
        } else {
            self.state.returns(&mut self.returns_before);
        }
        self.step(action);
    }

    /// Applies a legal action and deals a new deal from its recorded deck, if there is one.
    fn step(&mut self, action: G::Action) {
        let deal = self.state.deal_index();
        self.state.apply_unchecked(action);
        self.history.push(action);
        let now = self.state.deal_index();
        if now != deal {
            match self.decks.get(now) {
                Some(d) => self.state.redeal(d),
                None => self.decks.push(self.state.deck().to_vec()),
            }
            self.deal_start = Arc::new(self.state.clone());
            self.deal_start_at = self.history.len();
        }
    }

    pub fn rewards(&self) -> Vec<f64> {
        let mut out = vec![0.0; self.returns_before.len()];
        self.rewards_into(&mut out);
        out
    }

    /// Every seat's reward for the last action (zeros before the first) into `out`.
    pub fn rewards_into(&self, out: &mut [f64]) {
        if self.history.is_empty() {
            return out.fill(0.0);
        }
        self.state.returns(out);
        for (r, before) in out.iter_mut().zip(&self.returns_before) {
            *r -= before;
        }
    }

    pub fn serialize(&self) -> String {
        let pack = G::PACK;
        let decks: Vec<Vec<String>> = self
            .decks
            .iter()
            .map(|d| d.iter().map(|&c| pack.name_of(c)).collect())
            .collect();
        let history: Vec<usize> = self.history.iter().map(|a| a.index()).collect();
        json!({
            "game": G::NAME,
            "config": self.config.as_ref(),
            "seed": self.seed,
            "decks": decks,
            "rng": self.state.rng().state,
            "history": history,
        })
        .to_string()
    }

    /// Rebuilds a state by replaying its history through the checked `apply`.
    pub fn deserialize(text: &str) -> Result<Self> {
        let bad = |what: &str| parse_err!("corrupt serialized {} state: {what}", G::NAME);
        let v: Value = serde_json::from_str(text).map_err(|e| bad(&e.to_string()))?;
        if v.get("game").and_then(Value::as_str) != Some(G::NAME) {
            return Err(bad("it is not a state of this game"));
        }
        let config = GameOf::<G>::from_json(v.get("config").cloned().unwrap_or(Value::Null))
            .map_err(|e| bad(&format!("config: {e}")))?
            .config;
        let config = Arc::unwrap_or_clone(config);
        let seed = v
            .get("seed")
            .and_then(Value::as_u64)
            .ok_or_else(|| bad("no seed"))?;
        let rng = v
            .get("rng")
            .and_then(Value::as_u64)
            .ok_or_else(|| bad("no rng state"))?;
        let decks: Vec<Vec<String>> =
            serde_json::from_value(v.get("decks").cloned().unwrap_or(Value::Null))
                .map_err(|e| bad(&format!("decks: {e}")))?;
        if decks.is_empty() {
            return Err(bad("no deck"));
        }
        let decks = decks
            .iter()
            .map(|d| G::PACK.parse_deck(d))
            .collect::<Result<Vec<_>>>()
            .map_err(|e| bad(&e.to_string()))?;
        let history: Vec<usize> =
            serde_json::from_value(v.get("history").cloned().unwrap_or(Value::Null))
                .map_err(|e| bad(&format!("history: {e}")))?;
        let mut t = Tracked::<G>::new(Arc::new(config), seed, decks);
        for (i, &a) in history.iter().enumerate() {
            let action =
                G::Action::from_index(a).ok_or_else(|| bad(&format!("action {a} out of range")))?;
            t.apply(action)
                .map_err(|e| bad(&format!("action {i}: {e}")))?;
        }
        t.state.set_rng(Rng::new(rng));
        Ok(t)
    }

    /// Everything `seat` saw, in order: what it was dealt (again whenever that changes: a new
    /// deal, a new packet) and every action as it saw it. Its perfect-recall information state.
    pub fn information_state_string(&self, seat: usize) -> String {
        let mut t = Tracked::<G>::new(self.config.clone(), self.seed, self.decks.clone());
        let mut summary = t.state.deal_summary(seat);
        let mut out = summary.clone();
        for &a in &self.history {
            if let Some(line) = t.state.action_seen_by(a, seat) {
                out.push('\n');
                out.push_str(&line);
            }
            t.step(a);
            let now = t.state.deal_summary(seat);
            if now != summary {
                out.push('\n');
                out.push_str(&now);
                summary = now;
            }
        }
        out
    }

    /// A state `seat` cannot tell from this one, with the hidden cards of the current deal
    /// re-dealt and future deals drawn from `seed`. Earlier deals are kept as they were: their
    /// hidden cards can no longer change anything.
    ///
    /// The game proposes re-deals ([`Game::resample_deal`]), each deal consistent with what
    /// `seat` saw being proposed with the same probability; a proposal is kept only if `seat`
    /// sees exactly the same thing in it: the same view, and when `seat` is to act the same
    /// turn and legal actions. So the deal kept is uniform over the consistent deals.
    pub fn resample(&self, seat: usize, seed: u64) -> Self {
        self.try_resample(seat, seed).unwrap_or_else(|| {
            let mut out = self.clone();
            out.decks.truncate(self.state.deal_index() + 1);
            out.state.set_rng(Rng::new(seed));
            out
        })
    }

    /// [`Tracked::resample`], or `None` if no proposal was accepted in `RESAMPLE_ATTEMPTS`.
    pub fn try_resample(&self, seat: usize, seed: u64) -> Option<Self> {
        let deal = self.state.deal_index();
        let start = self.deal_start.as_ref();
        let acts = &self.history[self.deal_start_at..];
        let target = self.state.view(Some(seat));
        let to_act = self.state.current_player() == Some(seat);
        let mut legal = Vec::new();
        self.state.legal_actions(&mut legal);
        let mut rng = Rng::new(seed);
        let mut other = Vec::new();
        for _ in 0..RESAMPLE_ATTEMPTS {
            let Some((deck, new_acts)) = G::resample_deal(start, acts, seat, &mut rng) else {
                continue;
            };
            if G::PACK.check_deck(&deck).is_err() {
                continue;
            }
            let mut s = start.clone();
            s.redeal(&deck);
            let new_start = s.clone();
            if !new_acts.iter().all(|&a| s.apply(a).is_ok())
                || (s.current_player() == Some(seat)) != to_act
                || s.view(Some(seat)) != target
            {
                continue;
            }
            if to_act {
                other.clear();
                s.legal_actions(&mut other);
                if other != legal {
                    continue;
                }
            }
            let mut out = self.clone();
            out.decks.truncate(deal);
            out.decks.push(deck);
            out.history.truncate(self.deal_start_at);
            out.history.extend_from_slice(&new_acts);
            out.deal_start = Arc::new(new_start);
            s.set_rng(rng);
            out.state = s;
            return Some(out);
        }
        None
    }
}

/// A game with its config, behind a trait object.
pub trait DynGame: Send + Sync + Debug {
    fn name(&self) -> &'static str;
    fn num_players(&self) -> usize;
    fn num_distinct_actions(&self) -> usize;
    fn observation_shape(&self) -> Vec<usize>;
    fn max_game_length(&self) -> usize;
    /// The least and greatest return of a seat ([`Game::utility_bounds`]).
    fn utility_bounds(&self) -> (f64, f64);
    /// Every config key with its effective value.
    fn config(&self) -> Value;
    /// `decks`: given decks of the first deals (card strings), possibly none.
    fn new_state(&self, seed: u64, decks: &[Vec<String>]) -> Result<Box<dyn DynState>>;
    fn deserialize_state(&self, text: &str) -> Result<Box<dyn DynState>>;
    fn card_name(&self, id: u8) -> String;
    /// Random playouts of games `seed, seed + 1, …` on `threads` threads (`crate::bots`).
    fn random_playouts(&self, seed: u64, threads: usize, returns: &mut [f64], lengths: &mut [u64]);
    /// A native bot of this game (`crate::bots`).
    fn bot(&self, spec: &crate::bots::Spec, seed: u64) -> Box<dyn crate::bots::DynBot>;
    /// The duplicate arena of `crate::bots::arena` on this game.
    #[allow(clippy::too_many_arguments)]
    fn arena(
        &self,
        specs: &[crate::bots::Spec],
        first: u64,
        deals: u64,
        seed: u64,
        threads: usize,
        duplicate: bool,
        keep_games: bool,
    ) -> Result<crate::bots::ArenaOutcome>;
    /// A batch environment of this game (`crate::batch`).
    fn vector_env(
        &self,
        settings: crate::batch::Settings,
    ) -> Result<Box<dyn crate::batch::DynVectorEnv>>;
}

/// A state behind a trait object; actions are indices.
pub trait DynState: Send + Sync + Debug {
    fn game(&self) -> Box<dyn DynGame>;
    fn clone_box(&self) -> Box<dyn DynState>;
    fn as_any(&self) -> &dyn Any;
    fn eq_dyn(&self, other: &dyn DynState) -> bool;
    fn num_players(&self) -> usize;
    fn current_player(&self) -> Option<usize>;
    fn legal_actions(&self, out: &mut Vec<usize>);
    fn apply(&mut self, action: usize) -> Result<()>;
    /// Why `action` is illegal now ([`Game::explain_illegal`]), `None` if it is legal.
    fn explain_illegal(&self, action: usize) -> Result<Option<String>>;
    fn action_to_string(&self, action: usize) -> Result<String>;
    fn string_to_action(&self, text: &str) -> Result<usize>;
    fn returns(&self) -> Vec<f64>;
    fn rewards(&self) -> Vec<f64>;
    fn observation_len(&self) -> usize;
    fn observe(&self, seat: usize, out: &mut [f32]) -> Result<()>;
    fn observation_string(&self, seat: usize) -> Result<String>;
    fn information_state_string(&self, seat: usize) -> Result<String>;
    fn view(&self, seat: Option<usize>) -> Result<Value>;
    fn history(&self) -> Vec<usize>;
    fn serialize(&self) -> String;
    fn resample(&self, seat: usize, seed: u64) -> Result<Box<dyn DynState>>;
    /// `resample`, or `None` where it would have kept the hidden cards (no proposal accepted).
    fn try_resample(&self, seat: usize, seed: u64) -> Result<Option<Box<dyn DynState>>>;
    fn render(&self) -> String;
}

/// A game type with its checked config.
#[derive(Debug, Clone)]
pub struct GameOf<G: Game> {
    config: Arc<G::Config>,
}

impl<G: Game> GameOf<G> {
    pub fn from_json(config: Value) -> Result<Self> {
        // serde would also read a struct from an array of positional values: only names count.
        if !config.is_object() {
            return Err(crate::config_err!(
                "a {} config is an object of named options, got {}",
                G::NAME,
                crate::error::quoted(&config.to_string())
            ));
        }
        let mut config: G::Config = serde_path_to_error::deserialize(config).map_err(|e| {
            crate::config_err!("bad {} config: option {}: {}", G::NAME, e.path(), e.inner())
        })?;
        G::check_config(&mut config)?;
        Ok(GameOf {
            config: Arc::new(config),
        })
    }

    pub(crate) fn from_config(config: Arc<G::Config>) -> Self {
        GameOf { config }
    }

    pub fn config_ref(&self) -> &Arc<G::Config> {
        &self.config
    }
}

impl<G: Game> DynGame for GameOf<G> {
    fn name(&self) -> &'static str {
        G::NAME
    }
    fn num_players(&self) -> usize {
        G::num_players(&self.config)
    }
    fn num_distinct_actions(&self) -> usize {
        G::Action::COUNT
    }
    fn observation_shape(&self) -> Vec<usize> {
        G::observation_shape(&self.config)
    }
    fn max_game_length(&self) -> usize {
        G::max_game_length(&self.config)
    }
    fn utility_bounds(&self) -> (f64, f64) {
        G::utility_bounds(&self.config)
    }
    fn config(&self) -> Value {
        serde_json::to_value(self.config.as_ref()).unwrap_or(Value::Null)
    }
    fn new_state(&self, seed: u64, decks: &[Vec<String>]) -> Result<Box<dyn DynState>> {
        let decks = decks
            .iter()
            .map(|d| G::PACK.parse_deck(d))
            .collect::<Result<Vec<_>>>()?;
        Ok(Box::new(Tracked::<G>::new(
            self.config.clone(),
            seed,
            decks,
        )))
    }
    fn deserialize_state(&self, text: &str) -> Result<Box<dyn DynState>> {
        Ok(Box::new(Tracked::<G>::deserialize(text)?))
    }
    fn card_name(&self, id: u8) -> String {
        G::PACK.name_of(id)
    }
    fn random_playouts(&self, seed: u64, threads: usize, returns: &mut [f64], lengths: &mut [u64]) {
        crate::bots::random_playouts::<G>(&self.config, seed, threads, returns, lengths)
    }
    fn bot(&self, spec: &crate::bots::Spec, seed: u64) -> Box<dyn crate::bots::DynBot> {
        Box::new(crate::bots::Bot::<G>::new(spec.clone(), seed))
    }
    #[allow(clippy::too_many_arguments)]
    fn arena(
        &self,
        specs: &[crate::bots::Spec],
        first: u64,
        deals: u64,
        seed: u64,
        threads: usize,
        duplicate: bool,
        keep_games: bool,
    ) -> Result<crate::bots::ArenaOutcome> {
        crate::bots::arena::<G>(
            &self.config,
            specs,
            first,
            deals,
            seed,
            threads,
            duplicate,
            keep_games,
        )
    }
    fn vector_env(
        &self,
        settings: crate::batch::Settings,
    ) -> Result<Box<dyn crate::batch::DynVectorEnv>> {
        Ok(Box::new(crate::batch::VectorEnv::<G>::new(
            self.config.clone(),
            settings,
        )?))
    }
}

fn action_of<G: Game>(index: usize) -> Result<G::Action> {
    G::Action::from_index(index).ok_or_else(|| {
        Error::IllegalAction(format!(
            "action id {index} is out of range 0..{}",
            G::Action::COUNT
        ))
    })
}

impl<G: Game> DynState for Tracked<G> {
    fn game(&self) -> Box<dyn DynGame> {
        Box::new(GameOf::<G> {
            config: self.config.clone(),
        })
    }
    fn clone_box(&self) -> Box<dyn DynState> {
        Box::new(self.clone())
    }
    fn as_any(&self) -> &dyn Any {
        self
    }
    fn eq_dyn(&self, other: &dyn DynState) -> bool {
        other.as_any().downcast_ref::<Self>().is_some_and(|o| {
            o.config == self.config && o.state == self.state && o.history == self.history
        })
    }
    fn num_players(&self) -> usize {
        G::num_players(&self.config)
    }
    fn current_player(&self) -> Option<usize> {
        self.state.current_player()
    }
    fn legal_actions(&self, out: &mut Vec<usize>) {
        let mut legal = Vec::with_capacity(16);
        self.state.legal_actions(&mut legal);
        out.extend(legal.iter().map(|a| a.index()));
    }
    fn apply(&mut self, action: usize) -> Result<()> {
        Tracked::apply(self, action_of::<G>(action)?)
    }
    fn explain_illegal(&self, action: usize) -> Result<Option<String>> {
        Ok(self.state.explain_illegal(action_of::<G>(action)?))
    }
    fn action_to_string(&self, action: usize) -> Result<String> {
        Ok(action_of::<G>(action)?.to_string())
    }
    fn string_to_action(&self, text: &str) -> Result<usize> {
        Ok(G::Action::parse(text)?.index())
    }
    fn returns(&self) -> Vec<f64> {
        let mut out = vec![0.0; G::num_players(&self.config)];
        self.state.returns(&mut out);
        out
    }
    fn rewards(&self) -> Vec<f64> {
        Tracked::rewards(self)
    }
    fn observation_len(&self) -> usize {
        G::observation_shape(&self.config).iter().product()
    }
    fn observe(&self, seat: usize, out: &mut [f32]) -> Result<()> {
        check_seat(seat, self.num_players())?;
        self.state.observe(seat, out);
        Ok(())
    }
    fn observation_string(&self, seat: usize) -> Result<String> {
        check_seat(seat, self.num_players())?;
        Ok(self.state.render(Some(seat)))
    }
    fn information_state_string(&self, seat: usize) -> Result<String> {
        check_seat(seat, self.num_players())?;
        Ok(Tracked::information_state_string(self, seat))
    }
    fn view(&self, seat: Option<usize>) -> Result<Value> {
        if let Some(s) = seat {
            check_seat(s, self.num_players())?;
        }
        Ok(self.state.view(seat))
    }
    fn history(&self) -> Vec<usize> {
        self.history.iter().map(|a| a.index()).collect()
    }
    fn serialize(&self) -> String {
        Tracked::serialize(self)
    }
    fn resample(&self, seat: usize, seed: u64) -> Result<Box<dyn DynState>> {
        check_seat(seat, self.num_players())?;
        Ok(Box::new(Tracked::resample(self, seat, seed)))
    }
    fn try_resample(&self, seat: usize, seed: u64) -> Result<Option<Box<dyn DynState>>> {
        check_seat(seat, self.num_players())?;
        Ok(Tracked::try_resample(self, seat, seed).map(|t| Box::new(t) as Box<dyn DynState>))
    }
    fn render(&self) -> String {
        self.state.render(None)
    }
}
