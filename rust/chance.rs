//! Explicit chance nodes (docs/engine.md, "Explicit chance nodes"): a [`Tracked`] state that
//! deals every random event of the rules as an OpenSpiel-style chance node, written once for
//! every game. A game only says how many cards of a deal's deck its rules have taken
//! ([`Game::cards_drawn`]), which cards a position allows ([`Game::chance_allowed`]), where its
//! first dealer option is ([`Game::first_dealer`]), and lets this module write the cards it has
//! not taken yet ([`Game::deck_mut`]). The seeded mode deals the same procedure from its shuffle:
//! its deck is the sequence of chance outcomes, drawn at once.

use crate::dynamic::{action_of, Tracked};
use crate::game::{Action, FirstDealer, Game};
use crate::rng::Rng;
use crate::{illegal_err, parse_err, Result};
use serde_json::{json, Value};
use std::sync::Arc;

/// One move of an explicit-chance history: a decision or a chance outcome.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) enum Move<A> {
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
    pub(crate) fn id(self) -> usize {
        match self {
            Move::Action(a) => a.index(),
            Move::Dealer(s) => s.into(),
            Move::Card { card, .. } => card.into(),
        }
    }
}

/// Where an explicit-chance state is.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) enum Node<A> {
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
pub(crate) struct Explicit<G: Game> {
    pub(crate) moves: Vec<Move<G::Action>>,
    /// Per deal started, how many cards of its deck chance has dealt.
    pub(crate) known: Vec<usize>,
    pub(crate) node: Node<G::Action>,
    /// The first dealer drawn at the first chance node (`None`: fixed by the config).
    pub(crate) dealer: Option<u8>,
    /// Whether the first deal has been dealt: before that there is no state to show.
    pub(crate) dealt: bool,
    /// While a new deal is dealt, the returns once the action that started it took effect
    /// (settlement, the new deal's antes): paid before the cards, in the rules' order.
    pub(crate) paid: Option<Vec<f64>>,
}

/// How many resampled worlds a resample at a chance node tries before it keeps the last one.
const CHANCE_RESAMPLE_ATTEMPTS: usize = 100;

impl<G: Game> Tracked<G> {
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
            paid: None,
        }));
        t.advance();
        t
    }

    /// The state right after the first deal was dealt: the first dealer from the config, or
    /// `dealer` drawn at the chance node (the seed's own draw of it is made all the same, so
    /// that the rest of its stream, the shuffles, is the seeded mode's), and the first deck.
    pub(crate) fn first_state(config: &G::Config, seed: u64, dealer: Option<u8>, deck: &[u8]) -> G {
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

    /// Outcome ids run below this: a card kind of the pack, or a seat as the first dealer.
    pub(crate) fn max_outcomes(config: &G::Config) -> usize {
        G::PACK.kinds().max(G::num_players(config))
    }

    /// At a chance node, why `id` is none of its outcomes now (`None`: it is one); `None`
    /// at a decision.
    pub(crate) fn illegal_outcome(&self, id: usize) -> Option<String> {
        match self.chance.as_ref()?.node {
            Node::Ready => None,
            Node::Dealer => {
                let n = G::num_players(&self.config);
                (id >= n).then(|| {
                    format!(
                        "{id} is not a first dealer: this chance node draws a seat 0..{}",
                        n - 1
                    )
                })
            }
            Node::Deal { .. } => {
                let outcomes = self.chance_outcomes();
                (!outcomes.iter().any(|&(c, _)| c == id)).then(|| {
                    format!(
                        "{} is not a possible chance outcome now; the next card may be: {}",
                        self.outcome_name(id),
                        outcomes
                            .iter()
                            .map(|&(c, _)| G::PACK.name_of(c as u8))
                            .collect::<Vec<_>>()
                            .join(" ")
                    )
                })
            }
        }
    }

    /// Applies a decision or a chance outcome (id) of the explicit mode; an illegal one
    /// changes nothing.
    pub(crate) fn apply_explicit(&mut self, id: usize) -> Result<()> {
        let node = self.chance.as_ref().map_or(Node::Ready, |x| x.node);
        let mut before = vec![0.0; self.returns_before.len()];
        if self.chance.as_ref().is_some_and(|x| !x.moves.is_empty()) {
            // (The first move's reward counts what the state held before it.)
            self.returns_into(&mut before);
        }
        if let Some(why) = self.illegal_outcome(id) {
            return Err(crate::Error::IllegalAction(why));
        }
        let mv = match node {
            Node::Ready => {
                let action = action_of::<G>(id)?;
                self.check(action)?;
                Move::Action(action)
            }
            Node::Dealer => Move::Dealer(id as u8),
            Node::Deal { deal, pos, .. } => Move::Card {
                deal: deal as u32,
                pos: pos as u8,
                card: id as u8,
            },
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
            // A new deal's money is paid before its cards: the action has then done all it
            // does before them. Otherwise (a draw, scoring draws) it takes effect with them.
            x.paid = (action.is_none() || deal > d).then(|| {
                let mut r = vec![0.0; self.returns_before.len()];
                s.returns(&mut r);
                r
            });
            if action.is_none() {
                // The first deal: there is no state before it to keep.
                self.state = s;
            }
            return;
        }
        x.paid = None;
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
    pub(crate) fn seeded_outcome(&self) -> Option<usize> {
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

    pub(crate) fn outcome_to_string(&self, id: usize) -> Result<String> {
        let most = match self.chance.as_ref().map(|x| x.node) {
            Some(Node::Dealer) => G::num_players(&self.config),
            _ => G::PACK.kinds(),
        };
        if id >= most {
            return Err(illegal_err!(
                "chance outcome {id} is out of range 0..{}",
                most - 1
            ));
        }
        Ok(self.outcome_name(id))
    }

    pub(crate) fn string_to_outcome(&self, text: &str) -> Result<usize> {
        let words: Vec<String> = text
            .split_whitespace()
            .map(str::to_ascii_lowercase)
            .collect();
        let n = G::num_players(&self.config);
        let bad = || {
            let expected = match self.chance.as_ref().map(|x| x.node) {
                Some(Node::Dealer) => format!("\"dealer <seat>\" with a seat 0..{}", n - 1),
                _ => "\"deal <card>\"".to_string(),
            };
            parse_err!(
                "{} is not a chance outcome of {} here: expected {expected}",
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
                crate::cards::decimal(seat)
                    .filter(|&s| s < n)
                    .ok_or_else(bad)
            }
            _ => Err(bad()),
        }
    }

    /// The JSON view at a chance node: which deal is being dealt and how many of its cards
    /// are out. Nothing else: the cards being dealt are seen when the last of them is.
    pub(crate) fn chance_view(&self, seat: Option<usize>) -> Value {
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

    pub(crate) fn chance_line(&self) -> String {
        match self.chance.as_ref().map(|x| x.node) {
            Some(Node::Deal { deal, pos, .. }) => {
                format!("chance: dealing deal {}, card {}", deal + 1, pos + 1)
            }
            _ => "chance: drawing the first dealer".to_string(),
        }
    }

    /// A resample at a chance node. What `seat` knows there is what it knew before the action
    /// whose cards are being dealt, that action, and how many cards are out: the state before
    /// the action is resampled among those where the action is legal, the action taken again
    /// and as many cards dealt from the new deck; kept if the new state is at the same chance
    /// node. `fallback`: keep the hidden cards when no proposal fits.
    pub(crate) fn resample_at_chance(
        &self,
        seat: usize,
        seed: u64,
        fallback: bool,
    ) -> Option<Self> {
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
}
