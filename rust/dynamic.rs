//! The object-safe layer: a tracked state (history, decks, rewards) around any [`Game`], and the
//! erased [`DynGame`]/[`DynState`] traits that the registry, the bindings and generic tests use.
//! Only this file converts between typed actions and action indices.

use crate::game::{check_seat, Action, FirstDealer, Game};
use crate::rng::Rng;
use crate::{illegal_err, parse_err, Error, Result};
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
    /// Explicit chance (docs/engine.md, "Explicit chance nodes"); `None`: seeded.
    chance: Option<Box<Explicit<G>>>,
}

/// One move of an explicit-chance history: a decision or a chance outcome.
#[derive(Debug, Clone, Copy, PartialEq)]
enum Move<A> {
    Action(A),
    /// The random first dealer's seat.
    Dealer(u8),
    /// `card` dealt to position `pos` of deal `deal`'s deck.
    Card {
        deal: u32,
        pos: u8,
        card: u8,
    },
}

impl<A: Action> Move<A> {
    fn id(self) -> usize {
        match self {
            Move::Action(a) => a.index(),
            Move::Dealer(s) => s.into(),
            Move::Card { card, .. } => card.into(),
        }
    }
}

/// Where an explicit-chance state is.
#[derive(Debug, Clone, Copy, PartialEq)]
enum Node<A> {
    /// The random first dealer is drawn, before anything else.
    Dealer,
    /// The cards that `action` calls for (`None`: the first deal) are being dealt, the next
    /// one to position `pos` of deal `deal`'s deck. Until the last of them is dealt the rules
    /// state stays as it was before `action`, which takes effect with all its cards at once.
    Deal {
        action: Option<A>,
        deal: usize,
        pos: usize,
    },
    /// A decision, or the end.
    Ready,
}

/// What explicit chance adds to a tracked state. Each deal's deck in `Tracked::decks` holds the
/// cards chance has dealt on top (`known` of them) and, below, the undealt cards in the order
/// the seed shuffled them: a placeholder that nothing shows and that no outcome depends on.
#[derive(Debug, Clone, PartialEq)]
struct Explicit<G: Game> {
    moves: Vec<Move<G::Action>>,
    /// Per deal started, how many cards of its deck chance has dealt.
    known: Vec<usize>,
    node: Node<G::Action>,
    /// The first dealer drawn at the first chance node (`None`: fixed by the config).
    dealer: Option<u8>,
    /// Whether the first deal has been dealt: before that there is no state to show.
    dealt: bool,
}

/// How many proposals a resample at a chance node may try before it keeps the first one.
const CHANCE_RESAMPLE_ATTEMPTS: usize = 100;

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
            chance: None,
        }
    }

    /// A state of the explicit-chance mode: every random event is a chance node. `decks` (from
    /// a serialized state) give the undealt cards' order of the first deals; none are given by
    /// users, whose cards come from chance outcomes.
    pub fn new_explicit(config: Arc<G::Config>, seed: u64, decks: Vec<Vec<u8>>) -> Self {
        let mut fixed = config.as_ref().clone();
        let random = G::first_dealer(&mut fixed).seat().is_none();
        // Until the first dealer is drawn this is the seeded state; nothing of it is shown.
        let mut t = Tracked::new(config, seed, decks);
        t.chance = Some(Box::new(Explicit {
            moves: Vec::new(),
            known: vec![0],
            node: if random {
                Node::Dealer
            } else {
                Node::Deal {
                    action: None,
                    deal: 0,
                    pos: 0,
                }
            },
            dealer: None,
            dealt: false,
        }));
        t.advance();
        t
    }

    /// The state right after the first deal was dealt: the first dealer from the config, or
    /// `dealer` drawn at the chance node (the seed's own draw of it is made all the same, so
    /// that the rest of its stream, the shuffles, is the seeded mode's), and the first deck.
    fn first_state(config: &G::Config, seed: u64, dealer: Option<u8>, deck: &[u8]) -> G {
        let mut state = match dealer {
            None => G::new(config, Rng::new(seed)),
            Some(d) => {
                let mut rng = Rng::new(seed);
                rng.below(G::num_players(config) as u64);
                let mut fixed = config.clone();
                *G::first_dealer(&mut fixed) = FirstDealer::Seat(d.into());
                G::new(&fixed, rng)
            }
        };
        state.redeal(deck);
        state
    }

    pub fn is_explicit(&self) -> bool {
        self.chance.is_some()
    }

    pub fn is_chance_node(&self) -> bool {
        self.chance.as_ref().is_some_and(|x| x.node != Node::Ready)
    }

    /// The seat to act: `None` at the end and at a chance node.
    pub fn current_player(&self) -> Option<usize> {
        if self.is_chance_node() {
            None
        } else {
            self.state.current_player()
        }
    }

    pub fn is_terminal(&self) -> bool {
        !self.is_chance_node() && self.state.is_terminal()
    }

    /// The returns as shown now: at a chance node, those before the action whose cards are
    /// being dealt (zeros before the first deal is dealt).
    fn returns_into(&self, out: &mut [f64]) {
        match &self.chance {
            Some(x) if !x.dealt => out.fill(0.0),
            _ => self.state.returns(out),
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
        if self.chance.is_some() {
            return self.apply_explicit(action.index());
        }
        self.check(action)?;
        self.apply_legal(action);
        Ok(())
    }

    /// Refuses an action that is not legal at this decision.
    fn check(&self, action: G::Action) -> Result<()> {
        if self.state.is_terminal() {
            return Err(crate::illegal_err!(
                "the game is over: {action} cannot be applied"
            ));
        }
        if let Some(why) = self.state.explain_illegal(action) {
            return Err(crate::Error::IllegalAction(why));
        }
        Ok(())
    }

    /// Applies an action the caller knows to be legal (the batch environment checks it against
    /// the legal actions it already listed).
    pub(crate) fn apply_legal(&mut self, action: G::Action) {
        debug_assert!(self.chance.is_none(), "apply_legal is for seeded states");
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

    /// Applies a decision or a chance outcome (id) of the explicit mode; an illegal one
    /// changes nothing.
    fn apply_explicit(&mut self, id: usize) -> Result<()> {
        let node = self.chance.as_ref().map_or(Node::Ready, |x| x.node);
        let before = {
            let mut r = vec![0.0; self.returns_before.len()];
            self.returns_into(&mut r);
            r
        };
        let mv = match node {
            Node::Ready => {
                let action = action_of::<G>(id)?;
                self.check(action)?;
                Move::Action(action)
            }
            Node::Dealer => {
                let n = G::num_players(&self.config);
                if id >= n {
                    return Err(illegal_err!(
                        "{id} is not a first dealer: this chance node draws a seat 0..{}",
                        n - 1
                    ));
                }
                Move::Dealer(id as u8)
            }
            Node::Deal { deal, pos, .. } => {
                if !self.chance_outcomes().iter().any(|&(c, _)| c == id) {
                    return Err(illegal_err!(
                        "{} is not a possible chance outcome now; the next card may be: {}",
                        self.outcome_name(id),
                        self.chance_outcomes()
                            .iter()
                            .map(|&(c, _)| G::PACK.name_of(c as u8))
                            .collect::<Vec<_>>()
                            .join(" ")
                    ));
                }
                Move::Card {
                    deal: deal as u32,
                    pos: pos as u8,
                    card: id as u8,
                }
            }
        };
        self.returns_before = before;
        self.play(mv);
        Ok(())
    }

    /// Applies a move known to be legal (explicit mode).
    fn play(&mut self, mv: Move<G::Action>) {
        let Some(x) = self.chance.as_mut() else {
            return;
        };
        x.moves.push(mv);
        match mv {
            Move::Action(action) => {
                // Most decisions call for no card: they take effect at once.
                let deal = self.state.deal_index();
                let mut s = self.state.clone();
                s.apply_unchecked(action);
                if s.deal_index() == deal && s.cards_drawn(deal) <= x.known[deal] {
                    self.history.push(action);
                    self.state = s;
                    return;
                }
                x.node = Node::Deal {
                    action: Some(action),
                    deal,
                    pos: x.known[deal],
                };
            }
            Move::Dealer(d) => {
                x.dealer = Some(d);
                let deal_start =
                    Self::first_state(&self.config, self.seed, Some(d), &self.decks[0]);
                self.state = deal_start.clone();
                self.deal_start = Arc::new(deal_start);
                x.node = Node::Deal {
                    action: None,
                    deal: 0,
                    pos: 0,
                };
            }
            Move::Card { deal, pos, card } => {
                let deck = &mut self.decks[deal as usize];
                let pos = pos as usize;
                if let Some(q) = (pos..deck.len()).find(|&q| deck[q] == card) {
                    deck.swap(pos, q);
                }
                x.known[deal as usize] = pos + 1;
            }
        }
        self.advance();
    }

    /// While cards are being dealt: works out the state with the cards dealt so far, and either
    /// asks for the next card it takes (a chance node) or, when it takes no more, lets the
    /// action (and its cards) take effect.
    fn advance(&mut self) {
        let Some(x) = self.chance.as_mut() else {
            return;
        };
        let Node::Deal { action, .. } = x.node else {
            return;
        };
        let d = self.state.deal_index();
        // The cards dealt so far go below those the state has drawn: it has not seen them.
        self.state.deck_mut().copy_from_slice(&self.decks[d]);
        let mut s = match action {
            Some(a) => {
                let mut s = self.state.clone();
                s.apply_unchecked(a);
                s
            }
            None => {
                let mut s = (*self.deal_start).clone();
                s.redeal(&self.decks[d]);
                s
            }
        };
        let started = s.deal_index() != d;
        if started {
            match self.decks.get(d + 1) {
                Some(deck) => s.redeal(deck),
                None => self.decks.push(s.deck().to_vec()),
            }
            if x.known.len() < d + 2 {
                x.known.push(0);
            }
        }
        let mut wanted = vec![(d, s.cards_drawn(d))];
        if started {
            wanted.push((d + 1, s.cards_drawn(d + 1)));
        }
        if let Some(&(deal, _)) = wanted.iter().find(|&&(deal, n)| x.known[deal] < n) {
            x.node = Node::Deal {
                action,
                deal,
                pos: x.known[deal],
            };
            if action.is_none() {
                // The first deal: there is no state before it to keep.
                self.state = s;
            }
            return;
        }
        if let Some(a) = action {
            self.history.push(a);
        }
        if started || action.is_none() {
            self.deal_start = Arc::new(s.clone());
            self.deal_start_at = self.history.len();
        } else {
            // Determinisation re-deals from the deal's start: with the cards dealt since.
            Arc::make_mut(&mut self.deal_start)
                .deck_mut()
                .copy_from_slice(&self.decks[d]);
        }
        self.state = s;
        x.node = Node::Ready;
        x.dealt = true;
    }

    /// The chance outcomes here with their probabilities, ascending (empty at a decision): a
    /// seat for the first dealer, uniformly; a card, each remaining card equally likely among
    /// those the rules allow ([`Game::chance_allowed`]), so a kind's probability is its share.
    pub fn chance_outcomes(&self) -> Vec<(usize, f64)> {
        match self.chance.as_ref().map(|x| x.node) {
            Some(Node::Dealer) => {
                let n = G::num_players(&self.config);
                (0..n).map(|s| (s, 1.0 / n as f64)).collect()
            }
            Some(Node::Deal { deal, pos, .. }) => {
                let (drawn, rest) = self.decks[deal].split_at(pos);
                let mut count = vec![0u32; G::PACK.kinds()];
                for &c in rest {
                    count[c as usize] += 1;
                }
                for (c, k) in count.iter_mut().enumerate() {
                    if !G::chance_allowed(&self.config, drawn, c as u8) {
                        *k = 0;
                    }
                }
                let total: u32 = count.iter().sum();
                count
                    .iter()
                    .enumerate()
                    .filter(|&(_, &k)| k > 0)
                    .map(|(c, &k)| (c, f64::from(k) / f64::from(total)))
                    .collect()
            }
            _ => Vec::new(),
        }
    }

    /// The outcome the seed gives at this chance node: the card the seeded shuffle put at this
    /// position (or the first allowed card below it), or the seed's first dealer.
    fn seeded_outcome(&self) -> Option<usize> {
        match self.chance.as_ref()?.node {
            Node::Dealer => {
                Some(Rng::new(self.seed).below(G::num_players(&self.config) as u64) as usize)
            }
            Node::Deal { deal, pos, .. } => {
                let (drawn, rest) = self.decks[deal].split_at(pos);
                rest.iter()
                    .find(|&&c| G::chance_allowed(&self.config, drawn, c))
                    .map(|&c| c.into())
            }
            Node::Ready => None,
        }
    }

    /// Deals chance nodes from the seed until the next decision (or the end).
    pub fn deal_from_seed(&mut self) {
        while let Some(id) = self.seeded_outcome() {
            if self.apply_explicit(id).is_err() {
                return;
            }
        }
    }

    /// How an outcome id reads at this chance node: `deal 7H`, `dealer 2`.
    fn outcome_name(&self, id: usize) -> String {
        match self.chance.as_ref().map(|x| x.node) {
            Some(Node::Dealer) => format!("dealer {id}"),
            _ => match u8::try_from(id) {
                Ok(c) if (c as usize) < G::PACK.kinds() => format!("deal {}", G::PACK.name_of(c)),
                _ => format!("outcome {id}"),
            },
        }
    }

    fn outcome_to_string(&self, id: usize) -> Result<String> {
        let most = match self.chance.as_ref().map(|x| x.node) {
            Some(Node::Dealer) => G::num_players(&self.config),
            _ => G::PACK.kinds(),
        };
        if id >= most {
            return Err(illegal_err!(
                "chance outcome {id} is out of range 0..{most}"
            ));
        }
        Ok(self.outcome_name(id))
    }

    fn string_to_outcome(&self, text: &str) -> Result<usize> {
        let words: Vec<String> = text
            .split_whitespace()
            .map(str::to_ascii_lowercase)
            .collect();
        let bad = || {
            parse_err!(
                "{} is not a chance outcome of {}: expected \"deal <card>\" or \"dealer <seat>\"",
                crate::error::quoted(text),
                G::NAME
            )
        };
        match words.as_slice() {
            [w, card]
                if w == "deal"
                    && matches!(
                        self.chance.as_ref().map(|x| x.node),
                        Some(Node::Deal { .. })
                    ) =>
            {
                Ok(G::PACK.parse(card)?.into())
            }
            [w, seat]
                if w == "dealer"
                    && matches!(self.chance.as_ref().map(|x| x.node), Some(Node::Dealer)) =>
            {
                seat.parse::<usize>()
                    .ok()
                    .filter(|&s| s < G::num_players(&self.config))
                    .ok_or_else(bad)
            }
            _ => Err(bad()),
        }
    }

    /// The JSON view at a chance node: which deal is being dealt and how many of its cards
    /// are out. Nothing else: the cards being dealt are seen when the last of them is.
    fn chance_view(&self, seat: Option<usize>) -> Value {
        let (deal, dealt) = match self.chance.as_ref().map(|x| x.node) {
            Some(Node::Deal { deal, pos, .. }) => (Value::from(deal), pos),
            _ => (Value::Null, 0),
        };
        json!({
            "game": G::NAME,
            "viewer": seat,
            "phase": "chance",
            "deal": deal,
            "cards_dealt": dealt,
        })
    }

    fn chance_line(&self) -> String {
        match self.chance.as_ref().map(|x| x.node) {
            Some(Node::Deal { deal, pos, .. }) => {
                format!("chance: dealing deal {}, card {}", deal + 1, pos + 1)
            }
            _ => "chance: drawing the first dealer".to_string(),
        }
    }

    pub fn rewards(&self) -> Vec<f64> {
        let mut out = vec![0.0; self.returns_before.len()];
        self.rewards_into(&mut out);
        out
    }

    /// Every seat's reward for the last action (zeros before the first) into `out`.
    pub fn rewards_into(&self, out: &mut [f64]) {
        let moved = match &self.chance {
            Some(x) => !x.moves.is_empty(),
            None => !self.history.is_empty(),
        };
        if !moved {
            return out.fill(0.0);
        }
        self.returns_into(out);
        for (r, before) in out.iter_mut().zip(&self.returns_before) {
            *r -= before;
        }
    }

    /// The config as serialized: `explicit_chance` only when on, so that a seeded state's
    /// text is what it was before the option existed.
    fn config_json(&self) -> Value {
        let mut v = config_json::<G>(&self.config, self.chance.is_some());
        if self.chance.is_none() {
            if let Some(m) = v.as_object_mut() {
                m.remove("explicit_chance");
            }
        }
        v
    }

    pub fn serialize(&self) -> String {
        let pack = G::PACK;
        let decks: Vec<Vec<String>> = self
            .decks
            .iter()
            .map(|d| d.iter().map(|&c| pack.name_of(c)).collect())
            .collect();
        let history: Vec<usize> = match &self.chance {
            Some(x) => x.moves.iter().map(|m| m.id()).collect(),
            None => self.history.iter().map(|a| a.index()).collect(),
        };
        json!({
            "game": G::NAME,
            "config": self.config_json(),
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
        let game = GameOf::<G>::from_json(v.get("config").cloned().unwrap_or(Value::Null))
            .map_err(|e| bad(&format!("config: {e}")))?;
        let config = Arc::unwrap_or_clone(game.config);
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
        let mut t = if game.explicit {
            Tracked::<G>::new_explicit(Arc::new(config), seed, decks)
        } else {
            Tracked::<G>::new(Arc::new(config), seed, decks)
        };
        for (i, &a) in history.iter().enumerate() {
            let applied = if t.chance.is_some() {
                t.apply_explicit(a)
            } else {
                let action = G::Action::from_index(a)
                    .ok_or_else(|| bad(&format!("action {a} out of range")))?;
                t.apply(action)
            };
            applied.map_err(|e| bad(&format!("action {i}: {e}")))?;
        }
        t.state.set_rng(Rng::new(rng));
        Ok(t)
    }

    /// A seeded-mode copy at the start of the first deal, with this state's decks (and first
    /// dealer): replaying the decisions on it gives the states this one went through.
    fn replay_start(&self) -> Self {
        let dealer = self.chance.as_ref().and_then(|x| x.dealer);
        let mut t = Tracked::<G>::new(self.config.clone(), self.seed, self.decks.clone());
        if dealer.is_some() {
            t.state = Self::first_state(&self.config, self.seed, dealer, &self.decks[0]);
        }
        t
    }

    /// Everything `seat` saw, in order: what it was dealt (again whenever that changes: a new
    /// deal, a new packet) and every action as it saw it. Its perfect-recall information state.
    /// In the explicit mode the chance outcomes show the same way (in what it was dealt, in a
    /// draw it sees); at a chance node a last line says that cards are being dealt.
    pub fn information_state_string(&self, seat: usize) -> String {
        if self.chance.as_ref().is_some_and(|x| !x.dealt) {
            return self.chance_line();
        }
        let mut t = self.replay_start();
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
        if self.is_chance_node() {
            out.push('\n');
            out.push_str(&self.chance_line());
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
        if self.is_chance_node() {
            return self
                .resample_at_chance(seat, seed, true)
                .unwrap_or_else(|| self.clone());
        }
        self.resample_deal(seat, seed, None)
            .unwrap_or_else(|| self.kept(seed))
    }

    /// The fallback of a failed resample: the hidden cards as they are, a new RNG.
    fn kept(&self, seed: u64) -> Self {
        let mut out = self.clone();
        out.decks.truncate(self.state.deal_index() + 1);
        out.state.set_rng(Rng::new(seed));
        out
    }

    /// [`Tracked::resample`], or `None` if no proposal was accepted in `RESAMPLE_ATTEMPTS`.
    pub fn try_resample(&self, seat: usize, seed: u64) -> Option<Self> {
        if self.is_chance_node() {
            return self.resample_at_chance(seat, seed, false);
        }
        self.resample_deal(seat, seed, None)
    }

    /// A resample at a chance node. What `seat` knows there is what it knew before the action
    /// whose cards are being dealt, that action, and how many cards are out: the state before
    /// the action is resampled among those where the action is legal, the action taken again
    /// and as many cards dealt from the new deck; kept if the new state is at the same chance
    /// node. `fallback`: keep the hidden cards when no proposal fits.
    fn resample_at_chance(&self, seat: usize, seed: u64, fallback: bool) -> Option<Self> {
        let x = self.chance.as_ref()?;
        let Node::Deal { action, deal, pos } = x.node else {
            // The first dealer is drawn before anything is hidden.
            return Some(self.clone());
        };
        let dealt = x
            .moves
            .iter()
            .rev()
            .take_while(|m| matches!(m, Move::Card { .. }))
            .count();
        let before = self.before_action();
        let mut rng = Rng::new(seed);
        for attempt in 0..CHANCE_RESAMPLE_ATTEMPTS {
            let seed = rng.next_u64();
            let mut out = match action {
                // The first deal: nothing is hidden yet but the cards being dealt.
                None => {
                    let mut t = Tracked::<G>::new_explicit(self.config.clone(), seed, Vec::new());
                    if let Some(d) = x.dealer {
                        t.apply_explicit(d.into()).ok()?;
                    }
                    t
                }
                Some(a) => {
                    let mut t = match before.resample_deal(seat, seed, Some(a)) {
                        Some(t) => t,
                        None if fallback => before.kept(seed),
                        None => return None,
                    };
                    t.apply_explicit(a.index()).ok()?;
                    t
                }
            };
            for _ in 0..dealt {
                match out.seeded_outcome() {
                    Some(id) => out.apply_explicit(id).ok()?,
                    None => break,
                }
            }
            let same = matches!(out.chance.as_ref().map(|y| y.node),
                Some(Node::Deal { deal: d, pos: p, .. }) if d == deal && p == pos);
            if same || (fallback && attempt + 1 == CHANCE_RESAMPLE_ATTEMPTS) {
                return Some(out);
            }
        }
        None
    }

    /// At a chance node of the explicit mode, the state before the action whose cards are
    /// being dealt, as it was at that decision.
    fn before_action(&self) -> Self {
        let mut out = self.clone();
        let Some(x) = out.chance.as_mut() else {
            return out;
        };
        let last = x
            .moves
            .iter()
            .rposition(|m| matches!(m, Move::Action(_)))
            .unwrap_or(0);
        x.moves.truncate(last);
        let d = self.state.deal_index();
        x.known.truncate(d + 1);
        for (deal, k) in x.known.iter_mut().enumerate() {
            *k = x
                .moves
                .iter()
                .filter(|m| matches!(m, Move::Card { deal: e, .. } if *e as usize == deal))
                .count();
        }
        x.node = Node::Ready;
        out.decks.truncate(d + 1);
        out.decks[d] = self.state.deck().to_vec();
        out
    }

    /// The determinisation of the current deal: proposals until one fits (`then`: an action
    /// that must be legal in it), or `None`.
    fn resample_deal(&self, seat: usize, seed: u64, then: Option<G::Action>) -> Option<Self> {
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
                || then.is_some_and(|a| !s.is_legal(a))
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
            if let Some(x) = out.chance.as_mut() {
                // The explicit history says the same with the new cards and decisions.
                let mut i = 0;
                for m in &mut x.moves {
                    match m {
                        Move::Action(a) => {
                            *a = out.history[i];
                            i += 1;
                        }
                        Move::Card { deal: e, pos, card } if *e as usize == deal => {
                            *card = out.decks[deal][*pos as usize];
                        }
                        _ => {}
                    }
                }
            }
            return Some(out);
        }
        None
    }
}

/// A config as JSON with the generic `explicit_chance` key.
fn config_json<G: Game>(config: &G::Config, explicit: bool) -> Value {
    let mut v = serde_json::to_value(config).unwrap_or(Value::Null);
    if let Some(m) = v.as_object_mut() {
        m.insert("explicit_chance".into(), Value::Bool(explicit));
    }
    v
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
    /// Every config key with its effective value (`explicit_chance` included).
    fn config(&self) -> Value;
    /// Whether states expose chance nodes (`explicit_chance`).
    fn is_explicit(&self) -> bool;
    /// Chance outcome ids are `0..max_chance_outcomes()`: card ids, or first dealer seats.
    fn max_chance_outcomes(&self) -> usize;
    /// `decks`: given decks of the first deals (card strings), possibly none.
    fn new_state(&self, seed: u64, decks: &[Vec<String>]) -> Result<Box<dyn DynState>>;
    fn deserialize_state(&self, text: &str) -> Result<Box<dyn DynState>>;
    fn card_name(&self, id: u8) -> String;
    /// Random playouts of games `seed, seed + 1, …` on `threads` threads (`crate::bots`).
    /// (Seeded games only.)
    fn random_playouts(
        &self,
        seed: u64,
        threads: usize,
        returns: &mut [f64],
        lengths: &mut [u64],
    ) -> Result<()>;
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
    /// The seat to act; `None` at the end and at a chance node.
    fn current_player(&self) -> Option<usize>;
    fn is_chance_node(&self) -> bool;
    fn is_terminal(&self) -> bool;
    /// At a chance node, its outcomes with their probabilities, ascending; empty elsewhere.
    fn chance_outcomes(&self) -> Vec<(usize, f64)>;
    /// The legal actions, or at a chance node the outcomes.
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
    /// `explicit_chance`: states expose every random event as a chance node.
    explicit: bool,
}

impl<G: Game> GameOf<G> {
    pub fn from_json(mut config: Value) -> Result<Self> {
        // serde would also read a struct from an array of positional values: only names count.
        let Some(options) = config.as_object_mut() else {
            return Err(crate::config_err!(
                "a {} config is an object of named options, got {}",
                G::NAME,
                crate::error::quoted(&config.to_string())
            ));
        };
        // The one generic option; the game's own config does not know it.
        let explicit = match options.remove("explicit_chance") {
            None => false,
            Some(Value::Bool(b)) => b,
            Some(other) => {
                return Err(crate::config_err!(
                    "bad {} config: option explicit_chance: expected true or false, got {}",
                    G::NAME,
                    crate::error::quoted(&other.to_string())
                ))
            }
        };
        let mut config: G::Config = serde_path_to_error::deserialize(config).map_err(|e| {
            crate::config_err!("bad {} config: option {}: {}", G::NAME, e.path(), e.inner())
        })?;
        G::check_config(&mut config)?;
        Ok(GameOf {
            config: Arc::new(config),
            explicit,
        })
    }

    pub(crate) fn from_config(config: Arc<G::Config>) -> Self {
        GameOf {
            config,
            explicit: false,
        }
    }

    /// Refuses the explicit mode where a generic layer plays seeded games only.
    fn seeded_only(&self, what: &str) -> Result<()> {
        if self.explicit {
            return Err(crate::config_err!(
                "{what} plays seeded games only: load {} without explicit_chance (its chance \
                 outcomes come from the seed, the same cards the seeded mode deals)",
                G::NAME
            ));
        }
        Ok(())
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
        config_json::<G>(&self.config, self.explicit)
    }
    fn is_explicit(&self) -> bool {
        self.explicit
    }
    fn max_chance_outcomes(&self) -> usize {
        G::PACK.kinds().max(G::num_players(&self.config))
    }
    fn new_state(&self, seed: u64, decks: &[Vec<String>]) -> Result<Box<dyn DynState>> {
        let decks = decks
            .iter()
            .map(|d| G::PACK.parse_deck(d))
            .collect::<Result<Vec<_>>>()?;
        if self.explicit {
            if !decks.is_empty() {
                return Err(crate::config_err!(
                    "{} with explicit_chance deals its cards as chance outcomes: a deck cannot \
                     be given",
                    G::NAME
                ));
            }
            return Ok(Box::new(Tracked::<G>::new_explicit(
                self.config.clone(),
                seed,
                decks,
            )));
        }
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
    fn random_playouts(
        &self,
        seed: u64,
        threads: usize,
        returns: &mut [f64],
        lengths: &mut [u64],
    ) -> Result<()> {
        self.seeded_only("play_random")?;
        crate::bots::random_playouts::<G>(&self.config, seed, threads, returns, lengths);
        Ok(())
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
        self.seeded_only("the arena")?;
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
        self.seeded_only("VectorEnv")?;
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
            explicit: self.chance.is_some(),
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
            o.config == self.config
                && o.state == self.state
                && o.history == self.history
                && o.chance == self.chance
        })
    }
    fn num_players(&self) -> usize {
        G::num_players(&self.config)
    }
    fn current_player(&self) -> Option<usize> {
        Tracked::current_player(self)
    }
    fn is_chance_node(&self) -> bool {
        Tracked::is_chance_node(self)
    }
    fn is_terminal(&self) -> bool {
        Tracked::is_terminal(self)
    }
    fn chance_outcomes(&self) -> Vec<(usize, f64)> {
        Tracked::chance_outcomes(self)
    }
    fn legal_actions(&self, out: &mut Vec<usize>) {
        if self.is_chance_node() {
            out.extend(self.chance_outcomes().iter().map(|&(c, _)| c));
            return;
        }
        let mut legal = Vec::with_capacity(16);
        self.state.legal_actions(&mut legal);
        out.extend(legal.iter().map(|a| a.index()));
    }
    fn apply(&mut self, action: usize) -> Result<()> {
        if self.chance.is_some() {
            return self.apply_explicit(action);
        }
        Tracked::apply(self, action_of::<G>(action)?)
    }
    fn explain_illegal(&self, action: usize) -> Result<Option<String>> {
        Ok(self.state.explain_illegal(action_of::<G>(action)?))
    }
    fn action_to_string(&self, action: usize) -> Result<String> {
        if self.is_chance_node() {
            return self.outcome_to_string(action);
        }
        Ok(action_of::<G>(action)?.to_string())
    }
    fn string_to_action(&self, text: &str) -> Result<usize> {
        if self.is_chance_node() {
            return self.string_to_outcome(text);
        }
        Ok(G::Action::parse(text)?.index())
    }
    fn returns(&self) -> Vec<f64> {
        let mut out = vec![0.0; G::num_players(&self.config)];
        self.returns_into(&mut out);
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
        if self.is_chance_node() {
            // Nothing is seen while cards are being dealt (docs/engine.md).
            out.fill(0.0);
        } else {
            self.state.observe(seat, out);
        }
        Ok(())
    }
    fn observation_string(&self, seat: usize) -> Result<String> {
        check_seat(seat, self.num_players())?;
        if self.is_chance_node() {
            return Ok(self.chance_line());
        }
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
        if self.is_chance_node() {
            return Ok(self.chance_view(seat));
        }
        Ok(self.state.view(seat))
    }
    fn history(&self) -> Vec<usize> {
        match &self.chance {
            Some(x) => x.moves.iter().map(|m| m.id()).collect(),
            None => self.history.iter().map(|a| a.index()).collect(),
        }
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
        if self.is_chance_node() {
            return self.chance_line();
        }
        self.state.render(None)
    }
}
