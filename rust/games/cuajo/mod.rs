//! Cuajo: rules in docs/rules/cuajo.md (the project's restatement of shared/rules/cuajo.md).
//! Cards are kinds `7·suit + rank` with four copies each; every hand is a count vector and the
//! evaluator (`eval`) decides completeness by blocks and a per-rank table.

pub mod eval;
mod heuristic;
mod ready;

use crate::cards::{Pack, CUAJO_112};
use crate::game::{config_options, Action as ActionTrait, FirstDealer, Game, Redeal};
use crate::rng::Rng;
use crate::{config_err, parse_err, Result};
use eval::{is_king, kind, partitionable, rank_of, suit_of, total, Counts, Melds, KINDS, KING};
use serde::{Deserialize, Serialize};
use serde_json::{json, Value};
use std::collections::BTreeMap;
use std::fmt::{self, Write as _};
use std::sync::{Arc, Mutex};

const PACK: &Pack = &CUAJO_112;
const SEATS: usize = 4;
const DECK: usize = 112;
const SOWEE_POS: usize = 61;
const STOCK_POS: usize = 62;
const SUITS: [&str; 4] = ["O", "C", "E", "B"];

const fn next(s: usize) -> usize {
    (s + 1) % SEATS
}
const fn partner(s: usize) -> usize {
    (s + 2) % SEATS
}

/// Seat receiving deck position `i < 61` of a deal by `dealer`: rounds of 5, 5, 5 and 6 (the
/// dealer) from the dealer's right, then two rounds of five each.
fn recipient(dealer: usize, i: usize) -> usize {
    let k = if i < 21 {
        (i / 5).min(3)
    } else {
        (i - 21) % 20 / 5
    };
    (dealer + 1 + k) % SEATS
}

fn name(k: usize) -> String {
    PACK.name_of(k as u8)
}

fn cards_json(c: &Counts) -> Value {
    Value::from(
        (0..KINDS)
            .flat_map(|k| std::iter::repeat_n(name(k), c[k] as usize))
            .collect::<Vec<_>>(),
    )
}

fn add(a: &Counts, b: &Counts) -> Counts {
    std::array::from_fn(|k| a[k] + b[k])
}

// ---------------------------------------------------------------------------------------------
// Configuration.

config_options! {
    DealerAfterWash { Same, Next }
    EmptyStock { LastDiscardThenWash, ImmediateWash }
    PurroCall { Forced, Optional }
    PurroMarker { LowestType, PlayerChoice }
    ClaimPriority { DrawerThenTurnOrder }
    KingBasis { Winner, Payer }
    BonusMode { Table, Additive }
    Returns { Team, Individual }
}

#[derive(Serialize, Deserialize, Clone, PartialEq, Debug)]
#[serde(deny_unknown_fields, default)]
pub struct Config {
    pub first_dealer: FirstDealer,
    pub dealer_after_wash: DealerAfterWash,
    pub dealer_natural_win: bool,
    pub empty_stock: EmptyStock,
    pub max_turns: u32,
    pub may_rediscard_taken_card: bool,
    pub undeclared_quad_valid: bool,
    pub sowee_triple_undeclared_valid: bool,
    pub secret_payment: u32,
    pub secret_on_winning_turn: bool,
    pub secret_kind_public: bool,
    pub purro_call: PurroCall,
    pub purro_marker: PurroMarker,
    pub dead_waits_count: bool,
    pub purro_loss_penalty_turns: u32,
    pub penalty_draws_claimable: bool,
    pub claim_priority: ClaimPriority,
    pub king_basis: KingBasis,
    pub king_coins: u32,
    pub king_other: u32,
    pub special_hand: u32,
    pub special_flat: bool,
    pub bonus_full: u32,
    pub bonus_r1: u32,
    pub bonus_r2: u32,
    pub bonus_none: u32,
    pub bonus_mode: BonusMode,
    pub r2_needs_sowee_copy: bool,
    pub extra_draw: u32,
    pub returns: Returns,
    pub hands_per_match: u32,
}

impl Default for Config {
    fn default() -> Self {
        Config {
            first_dealer: FirstDealer::default(),
            dealer_after_wash: DealerAfterWash::Same,
            dealer_natural_win: true,
            empty_stock: EmptyStock::LastDiscardThenWash,
            max_turns: 300,
            may_rediscard_taken_card: true,
            undeclared_quad_valid: true,
            sowee_triple_undeclared_valid: false,
            secret_payment: 50,
            secret_on_winning_turn: true,
            secret_kind_public: false,
            purro_call: PurroCall::Forced,
            purro_marker: PurroMarker::LowestType,
            dead_waits_count: true,
            purro_loss_penalty_turns: 2,
            penalty_draws_claimable: true,
            claim_priority: ClaimPriority::DrawerThenTurnOrder,
            king_basis: KingBasis::Winner,
            king_coins: 50,
            king_other: 20,
            special_hand: 300,
            special_flat: true,
            bonus_full: 110,
            bonus_r1: 60,
            bonus_r2: 70,
            bonus_none: 20,
            bonus_mode: BonusMode::Table,
            r2_needs_sowee_copy: true,
            extra_draw: 15,
            returns: Returns::Team,
            hands_per_match: 1,
        }
    }
}

/// The config in the compact, `Copy` form a state carries.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
struct Rules {
    first_dealer: Option<u8>,
    wash_passes_deal: bool,
    natural_win: bool,
    immediate_wash: bool,
    max_turns: u32,
    may_rediscard: bool,
    quads: bool,
    sowee_triple: bool,
    secret_payment: i64,
    secret_then_win: bool,
    secret_kind_public: bool,
    optional_call: bool,
    marker_choice: bool,
    dead_waits_count: bool,
    penalty_turns: u8,
    penalty_draws_claimable: bool,
    payer_kings: bool,
    king_coins: i64,
    king_other: i64,
    special_hand: i64,
    special_flat: bool,
    bonus: [i64; 4], // full, r1, r2, none
    additive: bool,
    r2_needs_copy: bool,
    extra_draw: usize,
    team_returns: bool,
    hands: u32,
}

impl Rules {
    fn from_config(c: &Config) -> Rules {
        Rules {
            first_dealer: c.first_dealer.seat(),
            wash_passes_deal: c.dealer_after_wash == DealerAfterWash::Next,
            natural_win: c.dealer_natural_win,
            immediate_wash: c.empty_stock == EmptyStock::ImmediateWash,
            max_turns: c.max_turns,
            may_rediscard: c.may_rediscard_taken_card,
            quads: c.undeclared_quad_valid,
            sowee_triple: c.sowee_triple_undeclared_valid,
            secret_payment: c.secret_payment.into(),
            secret_then_win: c.secret_on_winning_turn,
            secret_kind_public: c.secret_kind_public,
            optional_call: c.purro_call == PurroCall::Optional,
            marker_choice: c.purro_marker == PurroMarker::PlayerChoice,
            dead_waits_count: c.dead_waits_count,
            penalty_turns: c.purro_loss_penalty_turns as u8,
            penalty_draws_claimable: c.penalty_draws_claimable,
            payer_kings: c.king_basis == KingBasis::Payer,
            king_coins: c.king_coins.into(),
            king_other: c.king_other.into(),
            special_hand: c.special_hand.into(),
            special_flat: c.special_flat,
            bonus: [c.bonus_full, c.bonus_r1, c.bonus_r2, c.bonus_none].map(i64::from),
            additive: c.bonus_mode == BonusMode::Additive,
            r2_needs_copy: c.r2_needs_sowee_copy,
            extra_draw: c.extra_draw as usize,
            team_returns: c.returns == Returns::Team,
            hands: c.hands_per_match,
        }
    }

    fn king_value(&self, k: usize) -> i64 {
        if suit_of(k) == 0 {
            self.king_coins
        } else {
            self.king_other
        }
    }
}

// ---------------------------------------------------------------------------------------------
// Actions.

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Action {
    Discard(u8),
    Secret(u8),
    SoweeSecret(u8),
    Draw,
    Take,
    Win,
    Claim,
    Pass,
    /// The suit of the king shown as the purro marker.
    Marker(u8),
    Purro,
    NoPurro,
}

impl fmt::Display for Action {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match *self {
            Action::Discard(k) => write!(f, "discard {}", name(k as usize)),
            Action::Secret(k) => write!(f, "secret {}", name(k as usize)),
            Action::SoweeSecret(k) => write!(f, "sowee-secret {}", name(k as usize)),
            Action::Draw => f.write_str("draw"),
            Action::Take => f.write_str("take"),
            Action::Win => f.write_str("win"),
            Action::Claim => f.write_str("claim"),
            Action::Pass => f.write_str("pass"),
            Action::Marker(s) => write!(f, "marker K{}", SUITS[s as usize]),
            Action::Purro => f.write_str("purro"),
            Action::NoPurro => f.write_str("no-purro"),
        }
    }
}

impl ActionTrait for Action {
    const COUNT: usize = 95;

    fn index(self) -> usize {
        match self {
            Action::Discard(k) => k as usize,
            Action::Secret(k) => 28 + k as usize,
            Action::SoweeSecret(k) => 56 + k as usize,
            Action::Draw => 84,
            Action::Take => 85,
            Action::Win => 86,
            Action::Claim => 87,
            Action::Pass => 88,
            Action::Marker(s) => 89 + s as usize,
            Action::Purro => 93,
            Action::NoPurro => 94,
        }
    }

    fn from_index(i: usize) -> Option<Self> {
        Some(match i {
            0..28 => Action::Discard(i as u8),
            28..56 => Action::Secret((i - 28) as u8),
            56..84 => Action::SoweeSecret((i - 56) as u8),
            84 => Action::Draw,
            85 => Action::Take,
            86 => Action::Win,
            87 => Action::Claim,
            88 => Action::Pass,
            89..93 => Action::Marker((i - 89) as u8),
            93 => Action::Purro,
            94 => Action::NoPurro,
            _ => return None,
        })
    }

    fn parse(text: &str) -> Result<Self> {
        // The verb in any case; a card as given, so that a message quotes it as typed.
        let mut words: Vec<&str> = text.split_whitespace().collect();
        let verb = words.first().map(|w| w.to_ascii_lowercase());
        if let (Some(w), Some(v)) = (words.first_mut(), verb.as_deref()) {
            *w = v;
        }
        let card = |c: &str| PACK.parse(c);
        match words.as_slice() {
            ["draw"] => Ok(Action::Draw),
            ["take"] => Ok(Action::Take),
            ["win"] => Ok(Action::Win),
            ["claim"] => Ok(Action::Claim),
            ["pass"] => Ok(Action::Pass),
            ["purro"] => Ok(Action::Purro),
            ["no-purro"] => Ok(Action::NoPurro),
            ["discard", c] => Ok(Action::Discard(card(c)?)),
            ["secret", c] => Ok(Action::Secret(card(c)?)),
            ["sowee-secret", c] => Ok(Action::SoweeSecret(card(c)?)),
            ["marker", c] => {
                let k = card(c)?;
                if is_king(k as usize) {
                    Ok(Action::Marker(suit_of(k as usize) as u8))
                } else {
                    Err(parse_err!(
                        "{} is not a king: the purro marker is a king",
                        crate::error::quoted(c)
                    ))
                }
            }
            _ => Err(parse_err!(
                "{} is not a Cuajo action: expected draw, take, discard <card>, \
                 secret <card>, sowee-secret <card>, win, claim, pass, marker <king>, purro \
                 or no-purro",
                crate::error::quoted(text)
            )),
        }
    }
}

// ---------------------------------------------------------------------------------------------
// State.

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Phase {
    Opening,
    Draw,
    DrawerOption,
    Claim,
    Action,
    PurroCall,
    Marker,
    Over,
}

impl Phase {
    const NAMES: [&'static str; 8] = [
        "opening",
        "draw",
        "drawer_option",
        "claim",
        "action",
        "purro_call",
        "marker",
        "over",
    ];

    fn name(self) -> &'static str {
        Self::NAMES[self as usize]
    }
}

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Source {
    Stock,
    Discard,
    Claim,
    Natural,
}

impl Source {
    fn name(self) -> &'static str {
        match self {
            Source::Stock => "stock",
            Source::Discard => "discard",
            Source::Claim => "claim",
            Source::Natural => "natural",
        }
    }
}

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Marker {
    None,
    Coin,
    King(u8),
}

/// A declared secret: `card` is the kind of a normal secret, or the extra card of a sowee one.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
struct Secret {
    sowee: bool,
    card: u8,
}

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
struct Discarded {
    seat: u8,
    card: u8,
    taken_by: Option<u8>,
}

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
struct Draw {
    seat: u8,
    card: u8,
    shown: bool,
}

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Reason {
    Win,
    EmptyStock,
    TurnLimit,
    DeadHand,
}

impl Reason {
    fn name(self) -> &'static str {
        match self {
            Reason::Win => "win",
            Reason::EmptyStock => "empty_stock",
            Reason::TurnLimit => "turn_limit",
            Reason::DeadHand => "dead_hand",
        }
    }
}

/// How the last finished hand ended.
#[derive(Clone, PartialEq, Eq, Debug)]
struct HandResult {
    winner: Option<u8>,
    source: Option<Source>,
    reason: Reason,
    card: Option<u8>,
    special: bool,
    r1: Option<bool>,
    r2: Option<bool>,
    bonus: i64,
    extra_draws: Vec<u8>,
    payments: [i64; SEATS],
    hands: [Counts; SEATS],
}

#[derive(Clone, PartialEq, Eq, Debug)]
struct PastHand {
    dealer: u8,
    winner: Option<u8>,
    source: Option<Source>,
    balances: [i64; SEATS],
    /// Cards taken from the hand's deck by its end.
    drawn: u8,
}

/// A marker decision under way, which the other seats must not see: they see the table as it
/// was `before` the action (`trigger`: the discard, or `purro`) that brought it.
#[derive(Clone, PartialEq, Debug)]
struct HiddenMarker {
    before: Cuajo,
    trigger: Action,
}

#[derive(Clone, PartialEq, Debug)]
pub struct Cuajo {
    rules: Rules,
    rng: Rng,
    hand: u32,
    dealer: u8,
    deck: [u8; DECK],
    sowee: u8,
    /// Deck position of the stock's top card.
    stock_at: u8,
    pub(crate) concealed: [Counts; SEATS],
    /// Cards in secrets: four of a normal secret, the three sowee copies.
    committed: [Counts; SEATS],
    extra: [Option<u8>; SEATS],
    secrets: [Vec<Secret>; SEATS],
    known: [Counts; SEATS],
    discarded: [Counts; SEATS],
    /// Discards lying in the pile (not taken), by kind.
    lying: Counts,
    discards: Vec<Discarded>,
    purro: [bool; SEATS],
    marker: [Marker; SEATS],
    penalty: [u8; SEATS],
    phase: Phase,
    /// The seat deciding now.
    current: u8,
    /// The seat whose turn it is.
    turn_of: u8,
    /// Claimants of a shown card, in order; `claim_at` indexes the one deciding.
    claimants: [u8; 3],
    n_claimants: u8,
    claim_at: u8,
    last_draw: Option<Draw>,
    turn_source: Source,
    /// Kind taken from the discard pile this turn.
    taken: Option<u8>,
    secret_this_turn: bool,
    /// The discard was taken from an empty stock: the turn can only end in a win.
    last_take: bool,
    turn: u32,
    balances: [i64; SEATS],
    totals: [i64; SEATS],
    result: Option<HandResult>,
    past: Vec<PastHand>,
    /// Set while `phase` is `Marker`.
    hidden_marker: Option<Box<HiddenMarker>>,
}

impl Cuajo {
    fn melds(&self) -> Melds {
        Melds {
            quads: self.rules.quads,
            triple: self.rules.sowee_triple.then_some(self.sowee),
        }
    }

    /// The cards `s` must still arrange: the hand and a sowee-secret extra card.
    fn pool(&self, s: usize) -> Counts {
        let mut p = self.concealed[s];
        if let Some(x) = self.extra[s] {
            p[x as usize] += 1;
        }
        p
    }

    /// Every card of `s`: hand, secrets and extra card.
    fn all_cards(&self, s: usize) -> Counts {
        add(&self.pool(s), &self.committed[s])
    }

    fn complete(&self, s: usize) -> bool {
        partitionable(&self.pool(s), self.melds())
    }

    fn completes_with(&self, s: usize, card: u8) -> bool {
        let mut p = self.pool(s);
        p[card as usize] += 1;
        partitionable(&p, self.melds())
    }

    fn stock_size(&self) -> usize {
        DECK - self.stock_at as usize
    }

    fn top_discard(&self) -> Option<u8> {
        self.discards
            .last()
            .filter(|d| d.taken_by.is_none())
            .map(|d| d.card)
    }

    fn copies_in_play(&self, k: usize) -> u8 {
        if k == self.sowee as usize {
            3
        } else {
            4
        }
    }

    /// Copies of kind `k` publicly known to be among the cards of `q`: its `known` cards, and
    /// its face-up marker king (which may be one of them, so at least one, not one more).
    fn shown_held(&self, q: usize, k: usize) -> u8 {
        let marker = matches!(self.marker[q], Marker::King(suit) if kind(suit as usize, KING) == k);
        self.known[q][k].max(marker as u8)
    }

    /// Bit set of the kinds `s` (holding 15) waits on.
    fn waits_of(&self, s: usize) -> u32 {
        let own = self.all_cards(s);
        let seen: Counts = if self.rules.dead_waits_count {
            [0; KINDS]
        } else {
            std::array::from_fn(|k| {
                self.lying[k]
                    + (0..SEATS)
                        .filter(|&q| q != s)
                        .map(|q| self.shown_held(q, k))
                        .sum::<u8>()
            })
        };
        eval::waits(
            &self.pool(s),
            &own,
            |k| self.copies_in_play(k).saturating_sub(seen[k]),
            self.melds(),
        )
    }

    fn may_win(&self, s: usize) -> bool {
        self.penalty[s] == 0
    }

    fn win_legal(&self, s: usize) -> bool {
        let natural_ok = self.phase != Phase::Opening || self.rules.natural_win;
        let secret_ok = self.rules.secret_then_win || !self.secret_this_turn;
        natural_ok && secret_ok && self.may_win(s) && self.complete(s)
    }

    fn discard_legal(&self, s: usize, k: usize) -> bool {
        !self.last_take
            && !is_king(k)
            && self.concealed[s][k] > 0
            && (self.rules.may_rediscard || self.taken != Some(k as u8))
    }

    // --- The deal ------------------------------------------------------------------------------

    fn start_hand(&mut self) {
        let mut deck = [0u8; DECK];
        for (i, c) in deck.iter_mut().enumerate() {
            *c = (i / 4) as u8;
        }
        self.rng.shuffle(&mut deck);
        self.deal_cards(&deck);
    }

    fn deal_cards(&mut self, deck: &[u8]) {
        self.deck.copy_from_slice(deck);
        let dealer = self.dealer as usize;
        self.concealed = [[0; KINDS]; SEATS];
        for (i, &c) in deck[..SOWEE_POS].iter().enumerate() {
            self.concealed[recipient(dealer, i)][c as usize] += 1;
        }
        self.sowee = deck[SOWEE_POS];
        self.stock_at = STOCK_POS as u8;
        self.committed = [[0; KINDS]; SEATS];
        self.extra = [None; SEATS];
        self.secrets = Default::default();
        self.known = [[0; KINDS]; SEATS];
        self.discarded = [[0; KINDS]; SEATS];
        self.lying = [0; KINDS];
        self.discards.clear();
        self.purro = [false; SEATS];
        self.marker = [Marker::None; SEATS];
        self.hidden_marker = None;
        self.penalty = [0; SEATS];
        self.last_draw = None;
        self.taken = None;
        self.secret_this_turn = false;
        self.last_take = false;
        self.turn = 0;
        self.balances = [0; SEATS];
        self.turn_source = Source::Natural;
        self.turn_of = self.dealer;
        self.current = self.dealer;
        self.phase = Phase::Opening;
    }

    /// After taking the last discard from an empty stock the turn ends in the win (rules §3.3:
    /// "only DECLARE_WIN, optionally preceded by secret declarations"): a secret is legal only
    /// if the hand stays complete after it, and the win stays legal after it.
    fn secret_keeps_win(&self, s: usize, secret: Secret) -> bool {
        if !self.last_take {
            return true;
        }
        let mut p = self.pool(s);
        let (k, n) = if secret.sowee {
            (self.sowee as usize, 3)
        } else {
            (secret.card as usize, 4)
        };
        p[k] -= n;
        self.rules.secret_then_win && partitionable(&p, self.melds())
    }

    fn enter_action(&mut self) {
        self.phase = Phase::Action;
        self.current = self.turn_of;
        self.end_if_dead();
    }

    /// Rules A-45: a player who can neither discard, declare a secret nor win ends the hand as
    /// a wash at once (left with kings, secrets, a sowee secret's extra card and, with
    /// `may_rediscard_taken_card = false`, the card he took). A deal is never dead: a dealer
    /// with nothing to discard holds all sixteen kings, four secrets.
    fn end_if_dead(&mut self) {
        if !self.any_play(self.current as usize) {
            self.wash(Reason::DeadHand);
        }
    }

    /// Whether `s`, at the opening or in the action phase, has a discard, a secret or a win.
    fn any_play(&self, s: usize) -> bool {
        self.plays(s).next().is_some()
    }

    /// The legal actions of `s` at the opening or in the action phase, ascending: discards,
    /// secrets, sowee secrets, the win (looked at last: completeness is the dearest test).
    fn plays(&self, s: usize) -> impl Iterator<Item = Action> + '_ {
        let hand = &self.concealed[s];
        let w = self.sowee as usize;
        let secret = move |sowee: bool, k: usize| Secret {
            sowee,
            card: k as u8,
        };
        let discards = (0..KINDS)
            .filter(move |&k| self.discard_legal(s, k))
            .map(|k| Action::Discard(k as u8));
        let secrets = (0..KINDS)
            .filter(move |&k| hand[k] == 4 && self.secret_keeps_win(s, secret(false, k)))
            .map(|k| Action::Secret(k as u8));
        let sowee_secrets = (0..KINDS)
            .filter(move |&k| {
                hand[w] == 3 && k != w && hand[k] > 0 && self.secret_keeps_win(s, secret(true, k))
            })
            .map(|k| Action::SoweeSecret(k as u8));
        let win = std::iter::once(Action::Win).filter(move |_| self.win_legal(s));
        discards.chain(secrets).chain(sowee_secrets).chain(win)
    }

    // --- Transitions ---------------------------------------------------------------------------

    fn pay_secret(&mut self, s: usize) {
        let amount = self.rules.secret_payment;
        for o in [next(s), (s + 3) % SEATS] {
            self.balances[o] -= amount;
            self.totals[o] -= amount;
        }
        self.balances[s] += 2 * amount;
        self.totals[s] += 2 * amount;
    }

    fn lowest_king(&self, s: usize) -> Marker {
        (0..4)
            .map(|suit| kind(suit, KING))
            .find(|&k| self.concealed[s][k] > 0)
            .map_or(Marker::Coin, |k| Marker::King(suit_of(k) as u8))
    }

    /// How many suits the kings in the hand of `s` have.
    fn king_suits(&self, s: usize) -> usize {
        (0..4)
            .filter(|&suit| self.concealed[s][kind(suit, KING)] > 0)
            .count()
    }

    /// Places the purro marker of `s`: a decision (`true`) with `player_choice` and kings of
    /// two or more suits in hand, else at once the lowest king (there is one suit) or a coin.
    fn place_marker(&mut self, s: usize) -> bool {
        if self.rules.marker_choice && self.king_suits(s) >= 2 {
            self.phase = Phase::Marker;
            self.current = s as u8;
            true
        } else {
            self.marker[s] = self.lowest_king(s);
            false
        }
    }

    fn declare_secret(&mut self, s: usize, secret: Secret) {
        let c = secret.card as usize;
        if secret.sowee {
            let w = self.sowee as usize;
            self.concealed[s][w] -= 3;
            self.committed[s][w] += 3;
            self.concealed[s][c] -= 1;
            self.extra[s] = Some(secret.card);
        } else {
            self.concealed[s][c] -= 4;
            self.committed[s][c] += 4;
        }
        self.secrets[s].push(secret);
        self.pay_secret(s);
        self.secret_this_turn = true;
        if let Marker::King(suit) = self.marker[s] {
            if self.concealed[s][kind(suit as usize, KING)] == 0 {
                // With `player_choice` the new marker comes at the end of the turn, like a
                // marker decision (placing it now would show whether a decision is due).
                self.marker[s] = if self.rules.marker_choice {
                    Marker::None
                } else {
                    self.lowest_king(s)
                };
            }
        }
        self.end_if_dead();
    }

    fn reveal_required(&self, c: usize) -> bool {
        self.purro.iter().any(|&p| p) || self.penalty[c] > 0
    }

    fn draw(&mut self) {
        let c = self.turn_of as usize;
        let x = self.deck[self.stock_at as usize];
        self.stock_at += 1;
        self.concealed[c][x as usize] += 1;
        let shown = self.reveal_required(c);
        self.last_draw = Some(Draw {
            seat: c as u8,
            card: x,
            shown,
        });
        self.turn_source = Source::Stock;
        self.n_claimants = 0;
        self.claim_at = 0;
        if shown {
            self.known[c][x as usize] += 1;
            if self.rules.penalty_draws_claimable || self.penalty[c] == 0 {
                for q in [next(c), partner(c), (c + 3) % SEATS] {
                    if self.purro[q] && self.may_win(q) && self.completes_with(q, x) {
                        self.claimants[self.n_claimants as usize] = q as u8;
                        self.n_claimants += 1;
                    }
                }
            }
        }
        if self.n_claimants == 0 {
            self.enter_action();
        } else if self.may_win(c) && self.complete(c) {
            self.phase = Phase::DrawerOption;
            self.current = c as u8;
        } else {
            self.phase = Phase::Claim;
            self.current = self.claimants[0];
        }
    }

    fn take(&mut self) {
        let c = self.turn_of as usize;
        let d = self.discards.last_mut().expect("a discard to take");
        d.taken_by = Some(c as u8);
        let x = d.card;
        self.lying[x as usize] -= 1;
        self.concealed[c][x as usize] += 1;
        self.known[c][x as usize] += 1;
        self.taken = Some(x);
        self.turn_source = Source::Discard;
        self.last_take = self.stock_size() == 0;
        self.enter_action();
    }

    fn discard(&mut self, k: u8) {
        let s = self.turn_of as usize;
        let ku = k as usize;
        self.concealed[s][ku] -= 1;
        self.discarded[s][ku] += 1;
        self.known[s][ku] = self.known[s][ku].saturating_sub(1);
        self.lying[ku] += 1;
        self.discards.push(Discarded {
            seat: s as u8,
            card: k,
            taken_by: None,
        });
        self.end_turn();
    }

    /// The automatic end of a turn: penalty or purro, then (unless a purro decision is due)
    /// the next turn.
    fn end_turn(&mut self) {
        let s = self.turn_of as usize;
        if self.penalty[s] > 0 {
            self.penalty[s] -= 1;
        } else if self.purro[s] {
            if self.waits_of(s) == 0 {
                self.purro[s] = false;
                self.marker[s] = Marker::None;
                self.penalty[s] = self.rules.penalty_turns;
            } else if self.marker[s] == Marker::None && self.place_marker(s) {
                // The marker king went into a secret this turn: re-chosen as at the call.
                return;
            }
        } else if self.rules.optional_call {
            self.phase = Phase::PurroCall;
            self.current = s as u8;
            return;
        } else if self.waits_of(s) != 0 && self.call_purro(s) {
            return;
        }
        self.pass_turn();
    }

    /// Makes `s` purro; `true` if a marker decision is now due.
    fn call_purro(&mut self, s: usize) -> bool {
        self.purro[s] = true;
        self.place_marker(s)
    }

    fn pass_turn(&mut self) {
        self.turn += 1;
        self.taken = None;
        self.secret_this_turn = false;
        if self.turn >= self.rules.max_turns {
            self.wash(Reason::TurnLimit);
        } else if self.rules.immediate_wash && self.stock_size() == 0 {
            self.wash(Reason::EmptyStock);
        } else {
            self.turn_of = next(self.turn_of as usize) as u8;
            self.current = self.turn_of;
            self.phase = Phase::Draw;
            self.last_draw = None;
        }
    }

    fn kings_amount(&self, cards: &Counts) -> i64 {
        (0..4)
            .map(|suit| kind(suit, KING))
            .map(|k| cards[k] as i64 * self.rules.king_value(k))
            .sum()
    }

    /// The special hand: no king, or one king that a J-H-K of its suit can hold.
    fn special(&self, w: usize) -> bool {
        let all = self.all_cards(w);
        let kings: Vec<usize> = (0..4)
            .map(|suit| kind(suit, KING))
            .filter(|&k| all[k] > 0)
            .collect();
        let n: u8 = kings.iter().map(|&k| all[k]).sum();
        match n {
            0 => true,
            1 => {
                let k = kings[0];
                let mut p = self.pool(w);
                if p[k] == 0 || p[k - 1] == 0 || p[k - 2] == 0 {
                    return false;
                }
                for i in 0..3 {
                    p[k - i] -= 1;
                }
                partitionable(&p, self.melds())
            }
            _ => false,
        }
    }

    fn win(&mut self, w: usize, source: Source, card: Option<u8>) {
        let r = self.rules;
        let all = self.all_cards(w);
        let special = self.special(w);
        let mut per = [0i64; SEATS];
        let (mut r1, mut r2, mut bonus) = (None, None, 0);
        let mut extra_draws = Vec::new();
        let opponents = [next(w), (w + 3) % SEATS];
        if special {
            let king = if r.special_flat {
                0
            } else {
                self.kings_amount(&all)
            };
            for o in opponents {
                per[o] = r.special_hand + king;
            }
        } else {
            bonus = match (source, card) {
                (Source::Discard | Source::Claim, Some(f)) => {
                    let (a, b) = self.final_card(&all, f, &mut extra_draws);
                    r1 = Some(a);
                    r2 = Some(b);
                    if r.additive {
                        r.bonus[3] + r.bonus[1] * a as i64 + r.bonus[2] * b as i64
                    } else {
                        r.bonus[match (a, b) {
                            (true, true) => 0,
                            (true, false) => 1,
                            (false, true) => 2,
                            (false, false) => 3,
                        }]
                    }
                }
                _ => r.bonus[0],
            };
            for o in opponents {
                let kings = if r.payer_kings {
                    self.kings_amount(&self.all_cards(o))
                } else {
                    self.kings_amount(&all)
                };
                per[o] = kings + bonus;
            }
        }
        let mut payments = [0i64; SEATS];
        for o in opponents {
            payments[o] -= per[o];
            payments[w] += per[o];
        }
        self.finish_hand(HandResult {
            winner: Some(w as u8),
            source: Some(source),
            reason: Reason::Win,
            card,
            special,
            r1,
            r2,
            bonus,
            extra_draws,
            payments,
            hands: [[0; KINDS]; SEATS],
        });
    }

    /// Requirements 1 and 2 of the final-card payment, turning up stock cards while needed.
    fn final_card(&mut self, all: &Counts, f: u8, drawn: &mut Vec<u8>) -> (bool, bool) {
        let w = self.sowee as usize;
        let needs_copy = self.rules.r2_needs_copy;
        let check = |cards: &Counts| {
            let mut without = *cards;
            without[f as usize] -= 1;
            let r1 = companions(f as usize, &without);
            let r2 = (!needs_copy || cards[w] > 0) && companions(w, cards);
            (r1, r2)
        };
        let mut cards = *all;
        let (mut r1, mut r2) = check(&cards);
        while !(r1 && r2) && drawn.len() < self.rules.extra_draw && self.stock_size() > 0 {
            let x = self.deck[self.stock_at as usize];
            self.stock_at += 1;
            drawn.push(x);
            cards[x as usize] += 1;
            (r1, r2) = check(&cards);
        }
        (r1, r2)
    }

    fn wash(&mut self, reason: Reason) {
        self.finish_hand(HandResult {
            winner: None,
            source: None,
            reason,
            card: None,
            special: false,
            r1: None,
            r2: None,
            bonus: 0,
            extra_draws: Vec::new(),
            payments: [0; SEATS],
            hands: [[0; KINDS]; SEATS],
        });
    }

    fn finish_hand(&mut self, mut result: HandResult) {
        for s in 0..SEATS {
            self.balances[s] += result.payments[s];
            self.totals[s] += result.payments[s];
            result.hands[s] = self.all_cards(s);
        }
        self.past.push(PastHand {
            dealer: self.dealer,
            winner: result.winner,
            source: result.source,
            balances: self.balances,
            drawn: self.stock_at,
        });
        let winner = result.winner;
        self.result = Some(result);
        if self.past.len() as u32 >= self.rules.hands {
            self.phase = Phase::Over;
            return;
        }
        self.dealer = match winner {
            Some(w) => w,
            None if self.rules.wash_passes_deal => next(self.dealer as usize) as u8,
            None => self.dealer,
        };
        self.hand += 1;
        self.start_hand();
    }

    // --- Views ---------------------------------------------------------------------------------

    /// Phase and seat to play as `viewer` sees them: another seat's decision to win or claim is
    /// shown as the drawer's action phase.
    fn seen_phase(&self, viewer: Option<usize>) -> (Phase, Option<usize>) {
        match self.phase {
            Phase::Over => (Phase::Over, None),
            Phase::DrawerOption | Phase::Claim
                if viewer.is_some_and(|v| v != self.current as usize) =>
            {
                (Phase::Action, Some(self.turn_of as usize))
            }
            p => (p, Some(self.current as usize)),
        }
    }

    fn hidden_from(&self, seat: usize) -> bool {
        matches!(self.phase, Phase::DrawerOption | Phase::Claim) && self.current as usize != seat
    }

    /// During a marker decision, the state every other seat sees: the table before the action
    /// that brought the decision.
    fn masked(&self, viewer: Option<usize>) -> Option<&Self> {
        self.hidden_marker
            .as_deref()
            .filter(|_| viewer.is_some_and(|v| v != self.current as usize))
            .map(|h| &h.before)
    }

    /// Whether `action` of the current player brings a marker decision (hidden from the others).
    fn brings_marker_decision(&self, action: Action) -> bool {
        self.rules.marker_choice
            && matches!(action, Action::Discard(_) | Action::Purro)
            && self.king_suits(self.current as usize) >= 2
            && {
                let mut t = self.clone();
                t.apply_unchecked(action);
                t.phase == Phase::Marker
            }
    }

    /// How `seat` sees `action` of the current player, when it sees it.
    fn action_line(&self, action: Action, seat: usize, out: &mut String) {
        let c = self.current as usize;
        let me = c == seat;
        // (Writing to a String cannot fail.)
        let _ = match action {
            Action::Secret(_) | Action::SoweeSecret(_) if !me => {
                let what = match (self.rules.secret_kind_public, action) {
                    (true, Action::SoweeSecret(_)) => "a sowee secret",
                    _ => "a secret",
                };
                write!(out, "seat {c} declares {what}")
            }
            Action::Draw => {
                let x = self.deck[self.stock_at as usize];
                if me || self.reveal_required(c) {
                    write!(out, "seat {c} draws {}", name(x as usize))
                } else {
                    write!(out, "seat {c} draws")
                }
            }
            Action::Take => write!(
                out,
                "seat {c} takes {}",
                name(self.top_discard().unwrap_or(0) as usize)
            ),
            a => write!(out, "seat {c}: {a}"),
        };
    }

    fn marker_json(m: Marker) -> Value {
        match m {
            Marker::None => Value::Null,
            Marker::Coin => "coin".into(),
            Marker::King(s) => name(kind(s as usize, KING)).into(),
        }
    }

    fn result_json(r: &HandResult) -> Value {
        json!({
            "winner": r.winner,
            "source": r.source.map(Source::name),
            "reason": r.reason.name(),
            "card": r.card.map(|c| name(c as usize)),
            "special": r.special,
            "r1": r.r1,
            "r2": r.r2,
            "bonus": r.bonus,
            "extra_draws": r.extra_draws.iter().map(|&c| name(c as usize)).collect::<Vec<_>>(),
            "payments": r.payments,
            "hands": r.hands.iter().map(cards_json).collect::<Vec<_>>(),
        })
    }

    fn dealt(&self, seat: usize) -> Counts {
        let mut c = [0; KINDS];
        for (i, &k) in self.deck[..SOWEE_POS].iter().enumerate() {
            if recipient(self.dealer as usize, i) == seat {
                c[k as usize] += 1;
            }
        }
        c
    }

    fn cards_line(c: &Counts) -> String {
        (0..KINDS)
            .flat_map(|k| std::iter::repeat_n(name(k), c[k] as usize))
            .collect::<Vec<_>>()
            .join(" ")
    }

    /// The public status as `seat` sees it (before another seat's hidden marker decision).
    fn seen_status(&self, seat: usize) -> [u8; 3 * SEATS] {
        self.masked(Some(seat)).unwrap_or(self).public_status()
    }

    /// What every seat sees of the hidden hands' consequences: purro, markers, penalties.
    fn public_status(&self) -> [u8; 3 * SEATS] {
        std::array::from_fn(|i| {
            let q = i % SEATS;
            match i / SEATS {
                0 => self.purro[q] as u8,
                1 => match self.marker[q] {
                    Marker::None => 0,
                    Marker::Coin => 1,
                    Marker::King(s) => 2 + s,
                },
                _ => self.penalty[q],
            }
        })
    }

    /// Replays `actions` (the true ones; `mine` are those to apply, with other hidden secret
    /// kinds) from `start` dealt from `deck` for determinisation: the decisions
    /// `seat` cannot see (others' passes on a win or claim) are redone as the new deal needs.
    /// `truth` is the true state before each action and after the last ([`TrueStep`]).
    /// Returns the state, the actions, and the public status after each action `seat` saw.
    fn replay_hidden(
        start: &Self,
        deck: &[u8],
        actions: &[Action],
        mine: &[Action],
        seat: usize,
        truth: &[TrueStep],
    ) -> Option<(Self, Vec<Action>, Vec<[u8; 3 * SEATS]>)> {
        let mut s = start.clone();
        s.redeal(deck);
        let mut out = Vec::with_capacity(actions.len());
        let mut trace = Vec::with_capacity(actions.len());
        // Before the action that brought another seat's marker decision the true state is
        // waiting on: if the new deal brings none, it is the state `seat` sees.
        let mut before_marker: Option<(Self, usize)> = None;
        for ((&a, &m), steps) in actions.iter().zip(mine).zip(truth.windows(2)) {
            let (orig, next) = (&steps[0], &steps[1]);
            if (orig.hidden && a == Action::Pass)
                || (orig.hidden_marker(seat) && s.phase != Phase::Marker)
            {
                // A decision this deal does not bring: a pass, or a marker it placed at once.
                if a != Action::Pass {
                    trace.push(s.seen_status(seat));
                }
                continue;
            }
            s.skip_hidden(orig, seat, &mut out)?;
            if s.current != orig.current || !s.is_legal(m) {
                return None;
            }
            // Kept only when the true state goes on to a marker decision hidden from `seat`.
            let snapshot = next.hidden_marker(seat).then(|| (s.clone(), out.len()));
            s.apply_unchecked(m);
            out.push(m);
            trace.push(s.seen_status(seat));
            before_marker = snapshot;
        }
        if let Some((before, len)) = before_marker.filter(|_| s.phase != Phase::Marker) {
            // The true state waits on a hidden marker decision this deal does not bring.
            out.truncate(len);
            if let Some(last) = trace.last_mut() {
                *last = before.public_status();
            }
            return Some((before, out, trace));
        }
        // Where the true state is at a decision `seat` sees, the new one must be there too.
        let orig = truth.last()?;
        if !orig.hidden && !orig.hidden_marker(seat) {
            s.skip_hidden(orig, seat, &mut out)?;
            if (s.current, s.phase) != (orig.current, orig.phase) {
                return None;
            }
        }
        Some((s, out, trace))
    }

    /// Redoes the decisions `seat` cannot see that this deal brings and the true one does not
    /// at this point: passes on a win or a claim, and a marker decision, which must show the
    /// marker the true deal placed.
    fn skip_hidden(&mut self, orig: &TrueStep, seat: usize, out: &mut Vec<Action>) -> Option<()> {
        loop {
            let here = (self.current, self.phase) == (orig.current, orig.phase);
            if self.hidden_from(seat) && !here {
                self.apply_unchecked(Action::Pass);
                out.push(Action::Pass);
            } else if self.phase == Phase::Marker
                && self.current as usize != seat
                && orig.phase != Phase::Marker
            {
                let Marker::King(suit) = orig.marker[self.current as usize] else {
                    return None;
                };
                let a = Action::Marker(suit);
                if !self.is_legal(a) {
                    return None;
                }
                self.apply_unchecked(a);
                out.push(a);
            } else {
                return Some(());
            }
        }
    }
}

/// What a determinisation's replays need of the true state at one point, for `seat`.
#[derive(Clone, Copy)]
struct TrueStep {
    current: u8,
    phase: Phase,
    marker: [Marker; SEATS],
    /// The decision is hidden from `seat` (a pass on a win or a claim).
    hidden: bool,
}

impl TrueStep {
    fn of(s: &Cuajo, seat: usize) -> Self {
        TrueStep {
            current: s.current,
            phase: s.phase,
            marker: s.marker,
            hidden: s.hidden_from(seat),
        }
    }

    /// A marker decision hidden from `seat`.
    fn hidden_marker(&self, seat: usize) -> bool {
        self.phase == Phase::Marker && self.current as usize != seat
    }
}

/// Requirement companions of card `y` among `cards`: aces of two other suits for an ace, else
/// the two other cards of its sequence in its suit.
fn companions(y: usize, cards: &Counts) -> bool {
    let (suit, rank) = (suit_of(y), rank_of(y));
    if rank == eval::ACE {
        (0..4)
            .filter(|&s| s != suit && cards[kind(s, eval::ACE)] > 0)
            .count()
            >= 2
    } else {
        let first = if rank < eval::JACK {
            eval::THREE
        } else {
            eval::JACK
        };
        (first..first + 3)
            .filter(|&r| r != rank)
            .all(|r| cards[kind(suit, r)] > 0)
    }
}

impl Game for Cuajo {
    const NAME: &'static str = "cuajo";
    const PACK: &'static Pack = PACK;
    type Config = Config;
    type Action = Action;

    fn check_config(c: &mut Config) -> Result<()> {
        c.first_dealer.check(Self::NAME, 4)?;
        let amounts = [
            ("secret_payment", c.secret_payment),
            ("king_coins", c.king_coins),
            ("king_other", c.king_other),
            ("special_hand", c.special_hand),
            ("bonus_full", c.bonus_full),
            ("bonus_r1", c.bonus_r1),
            ("bonus_r2", c.bonus_r2),
            ("bonus_none", c.bonus_none),
        ];
        let ranges = [
            ("max_turns", c.max_turns, 1, 10_000),
            (
                "purro_loss_penalty_turns",
                c.purro_loss_penalty_turns,
                0,
                100,
            ),
            ("extra_draw", c.extra_draw, 0, 50),
            ("hands_per_match", c.hands_per_match, 1, 1000),
        ];
        for (key, v, lo, hi) in amounts
            .iter()
            .map(|&(k, v)| (k, v, 0, 100_000))
            .chain(ranges)
        {
            if !(lo..=hi).contains(&v) {
                return Err(config_err!("cuajo: {key} must be {lo} to {hi}, got {v}"));
            }
        }
        Ok(())
    }

    fn num_players(_: &Config) -> usize {
        SEATS
    }

    fn max_game_length(c: &Config) -> usize {
        c.hands_per_match as usize * (12 * c.max_turns as usize + 12)
    }

    fn utility_bounds(c: &Config) -> (f64, f64) {
        // Per hand: a seat declares at most four secrets (16 cards), each paid by both
        // opponents; a win is paid by both opponents at most the special hand or every king
        // of the pack (4 of coins, 12 others) with the largest final-card bonus.
        let kings = 4 * c.king_coins + 12 * c.king_other;
        let bonus = match c.bonus_mode {
            BonusMode::Table => c
                .bonus_full
                .max(c.bonus_r1)
                .max(c.bonus_r2)
                .max(c.bonus_none),
            BonusMode::Additive => c.bonus_full.max(c.bonus_none + c.bonus_r1 + c.bonus_r2),
        };
        let special = c.special_hand + if c.special_flat { 0 } else { kings };
        let win = f64::from(special.max(kings + bonus));
        let secret = f64::from(c.secret_payment);
        let (most, least) = match c.returns {
            Returns::Team => (16.0 * secret + 2.0 * win, 16.0 * secret + 2.0 * win),
            Returns::Individual => (8.0 * secret + 2.0 * win, 8.0 * secret + win),
        };
        let hands = f64::from(c.hands_per_match);
        // 0.0 - x, not -x: nothing at stake is a range of 0.0 to 0.0, not -0.0.
        (0.0 - least * hands, most * hands)
    }

    fn observation_shape(_: &Config) -> Vec<usize> {
        vec![1443]
    }

    fn new(config: &Config, mut rng: Rng) -> Self {
        let rules = Rules::from_config(config);
        let dealer = rules
            .first_dealer
            .unwrap_or_else(|| rng.below(SEATS as u64) as u8);
        let mut s = Cuajo {
            rules,
            rng,
            hand: 0,
            dealer,
            deck: [0; DECK],
            sowee: 0,
            stock_at: STOCK_POS as u8,
            concealed: [[0; KINDS]; SEATS],
            committed: [[0; KINDS]; SEATS],
            extra: [None; SEATS],
            secrets: Default::default(),
            known: [[0; KINDS]; SEATS],
            discarded: [[0; KINDS]; SEATS],
            lying: [0; KINDS],
            discards: Vec::with_capacity(64),
            purro: [false; SEATS],
            marker: [Marker::None; SEATS],
            penalty: [0; SEATS],
            phase: Phase::Opening,
            current: dealer,
            turn_of: dealer,
            claimants: [0; 3],
            n_claimants: 0,
            claim_at: 0,
            last_draw: None,
            turn_source: Source::Natural,
            taken: None,
            secret_this_turn: false,
            last_take: false,
            turn: 0,
            balances: [0; SEATS],
            totals: [0; SEATS],
            result: None,
            past: Vec::new(),
            hidden_marker: None,
        };
        s.start_hand();
        s
    }

    fn deal_index(&self) -> usize {
        self.hand as usize
    }

    fn deck(&self) -> &[u8] {
        &self.deck
    }

    fn deck_mut(&mut self) -> &mut [u8] {
        &mut self.deck
    }

    fn redeal(&mut self, deck: &[u8]) {
        self.deal_cards(deck);
    }

    fn rng(&self) -> Rng {
        self.rng
    }

    fn set_rng(&mut self, rng: Rng) {
        self.rng = rng;
    }

    fn first_dealer(config: &mut Config) -> &mut FirstDealer {
        &mut config.first_dealer
    }

    fn cards_drawn(&self, deal: usize) -> usize {
        // The dealt cards and the sowee, then the stock draws and the scoring draws.
        self.past
            .get(deal)
            .map_or(self.stock_at as usize, |h| h.drawn as usize)
    }

    fn current_player(&self) -> Option<usize> {
        (self.phase != Phase::Over).then_some(self.current as usize)
    }

    fn legal_actions(&self, out: &mut Vec<Action>) {
        let s = self.current as usize;
        match self.phase {
            Phase::Opening | Phase::Action => out.extend(self.plays(s)),
            Phase::Draw => {
                if self.stock_size() > 0 {
                    out.extend([Action::Draw, Action::Take]);
                } else {
                    let top = self.top_discard().expect("a discard to take");
                    if self.may_win(s) && self.completes_with(s, top) {
                        out.push(Action::Take);
                    }
                    out.push(Action::Pass);
                }
            }
            Phase::DrawerOption => out.extend([Action::Win, Action::Pass]),
            Phase::Claim => out.extend([Action::Claim, Action::Pass]),
            Phase::PurroCall => {
                if self.waits_of(s) != 0 {
                    out.push(Action::Purro);
                }
                out.push(Action::NoPurro);
            }
            Phase::Marker => out.extend(
                (0..4)
                    .filter(|&suit| self.concealed[s][kind(suit, KING)] > 0)
                    .map(|suit| Action::Marker(suit as u8)),
            ),
            Phase::Over => {}
        }
    }

    fn apply_unchecked(&mut self, action: Action) {
        let s = self.current as usize;
        // The table before an action that may bring a (hidden) marker decision: a discard or a
        // purro call of a player with kings of two or more suits.
        let before = (self.rules.marker_choice
            && matches!(action, Action::Discard(_) | Action::Purro)
            && self.king_suits(s) >= 2)
            .then(|| self.clone());
        match (self.phase, action) {
            (_, Action::Discard(k)) => self.discard(k),
            (_, Action::Secret(k)) => self.declare_secret(
                s,
                Secret {
                    sowee: false,
                    card: k,
                },
            ),
            (_, Action::SoweeSecret(k)) => self.declare_secret(
                s,
                Secret {
                    sowee: true,
                    card: k,
                },
            ),
            (_, Action::Draw) => self.draw(),
            (_, Action::Take) => self.take(),
            (Phase::Opening, Action::Win) => self.win(s, Source::Natural, None),
            (_, Action::Win) => {
                let card = match self.turn_source {
                    Source::Discard => self.taken,
                    _ => self.last_draw.map(|d| d.card),
                };
                self.win(s, self.turn_source, card);
            }
            (_, Action::Claim) => {
                let c = self.turn_of as usize;
                let x = self.last_draw.expect("a shown draw").card;
                self.concealed[c][x as usize] -= 1;
                self.concealed[s][x as usize] += 1;
                self.win(s, Source::Claim, Some(x));
            }
            (Phase::Draw, Action::Pass) => self.wash(Reason::EmptyStock),
            (Phase::DrawerOption, Action::Pass) => {
                self.phase = Phase::Claim;
                self.current = self.claimants[0];
            }
            (_, Action::Pass) => {
                self.claim_at += 1;
                if self.claim_at < self.n_claimants {
                    self.current = self.claimants[self.claim_at as usize];
                } else {
                    self.enter_action();
                }
            }
            (_, Action::Purro) => {
                if !self.call_purro(s) {
                    self.pass_turn();
                }
            }
            (_, Action::NoPurro) => self.pass_turn(),
            (_, Action::Marker(suit)) => {
                self.hidden_marker = None;
                self.marker[s] = Marker::King(suit);
                self.pass_turn();
            }
        }
        // Not matched as a pair: moving `before` into one copies the whole state every action.
        if let Some(before) = before {
            if self.phase == Phase::Marker {
                self.hidden_marker = Some(Box::new(HiddenMarker {
                    before,
                    trigger: action,
                }));
            }
        }
    }

    fn returns(&self, out: &mut [f64]) {
        for (s, r) in out.iter_mut().enumerate() {
            let team = if self.rules.team_returns {
                self.totals[partner(s)]
            } else {
                0
            };
            *r = (self.totals[s] + team) as f64;
        }
    }

    fn view(&self, viewer: Option<usize>) -> Value {
        if let Some(before) = self.masked(viewer) {
            return before.view(viewer);
        }
        let over = self.phase == Phase::Over;
        let sees = |s: usize| over || viewer.is_none_or(|v| v == s);
        let (phase, to_play) = self.seen_phase(viewer);
        let per_seat =
            |f: &dyn Fn(usize) -> Value| Value::from((0..SEATS).map(f).collect::<Vec<_>>());
        let secrets = |s: usize| {
            Value::from(
                self.secrets[s]
                    .iter()
                    .map(|sec| {
                        let kind_name = if sec.sowee { "sowee" } else { "normal" };
                        if sees(s) {
                            let cards = if sec.sowee {
                                vec![name(self.sowee as usize); 3]
                            } else {
                                vec![name(sec.card as usize); 4]
                            };
                            json!({
                                "kind": kind_name,
                                "cards": cards,
                                "extra": sec.sowee.then(|| name(sec.card as usize)),
                            })
                        } else {
                            json!({
                                "kind": self.rules.secret_kind_public.then_some(kind_name),
                                "cards": null,
                                "extra": null,
                            })
                        }
                    })
                    .collect::<Vec<_>>(),
            )
        };
        json!({
            "game": "cuajo",
            "viewer": viewer,
            "hand": self.hand,
            "dealer": self.dealer,
            "phase": phase.name(),
            "to_play": to_play,
            "sowee": name(self.sowee as usize),
            "stock_size": self.stock_size(),
            "discards": self.discards.iter().map(|d| json!({
                "seat": d.seat,
                "card": name(d.card as usize),
                "taken_by": d.taken_by,
            })).collect::<Vec<_>>(),
            "top_discard": self.top_discard().map(|c| name(c as usize)),
            "concealed": per_seat(&|s| if sees(s) { cards_json(&self.concealed[s]) } else { Value::Null }),
            "secrets": per_seat(&secrets),
            "known": per_seat(&|s| cards_json(&self.known[s])),
            "hand_sizes": per_seat(&|s| (total(&self.concealed[s]) + 4 * self.secrets[s].len()).into()),
            "purro": self.purro,
            "marker": per_seat(&|s| Self::marker_json(self.marker[s])),
            "penalty": self.penalty,
            "last_draw": self.last_draw.map(|d| json!({
                "seat": d.seat,
                "card": (d.shown || sees(d.seat as usize)).then(|| name(d.card as usize)),
                "shown": d.shown,
            })),
            "turn": self.turn,
            "balances": self.balances,
            "totals": self.totals,
            "result": self.result.as_ref().map(Self::result_json),
            "past_hands": self.past.iter().map(|h| json!({
                "dealer": h.dealer,
                "winner": h.winner,
                "source": h.source.map(Source::name),
                "balances": h.balances,
            })).collect::<Vec<_>>(),
        })
    }

    fn observe(&self, seat: usize, out: &mut [f32]) {
        if let Some(before) = self.masked(Some(seat)) {
            return before.observe(seat, out);
        }
        let rel = |q: usize| (q + SEATS - seat) % SEATS;
        let mut at = 0usize;
        let mut block = |size: usize| {
            let start = at;
            at += size;
            start
        };
        // Each kind's four cells copied whole from a table: a loop of 0 to 4 writes per kind
        // mispredicted its end so often that it took most of the observation's time.
        const THERMO: [[f32; 4]; 5] = [
            [0.0, 0.0, 0.0, 0.0],
            [1.0, 0.0, 0.0, 0.0],
            [1.0, 1.0, 0.0, 0.0],
            [1.0, 1.0, 1.0, 0.0],
            [1.0, 1.0, 1.0, 1.0],
        ];
        let thermo = |out: &mut [f32], b: usize, c: &Counts| {
            for (cells, &n) in out[b..b + 4 * KINDS].chunks_exact_mut(4).zip(c) {
                cells.copy_from_slice(&THERMO[(n as usize).min(4)]);
            }
        };
        let (phase, to_play) = self.seen_phase(Some(seat));
        let b = block(8);
        out[b + phase as usize] = 1.0;
        let b = block(4);
        if let Some(p) = to_play {
            out[b + rel(p)] = 1.0;
        }
        let b = block(4);
        out[b + rel(self.dealer as usize)] = 1.0;
        let b = block(112);
        thermo(out, b, &self.concealed[seat]);
        let b = block(112);
        thermo(out, b, &self.committed[seat]);
        let b = block(28);
        if let Some(x) = self.extra[seat] {
            out[b + x as usize] = 1.0;
        }
        let b = block(28);
        out[b + self.sowee as usize] = 1.0;
        let b = block(29);
        out[b + self.top_discard().map_or(KINDS, |c| c as usize)] = 1.0;
        let b = block(29);
        let seen_draw = self
            .last_draw
            .filter(|d| d.shown || d.seat as usize == seat || self.phase == Phase::Over);
        out[b + seen_draw.map_or(KINDS, |d| d.card as usize)] = 1.0;
        let b = block(448);
        for q in 0..SEATS {
            thermo(out, b + 112 * rel(q), &self.discarded[q]);
        }
        let b = block(448);
        for q in 0..SEATS {
            thermo(out, b + 112 * rel(q), &self.known[q]);
        }
        let b = block(112);
        let mut seen = self.all_cards(seat);
        seen[self.sowee as usize] += 1;
        seen = add(&seen, &self.lying);
        for q in (0..SEATS).filter(|&q| q != seat) {
            seen = add(&seen, &self.known[q]);
        }
        thermo(out, b, &seen);
        let b = block(60);
        for q in 0..SEATS {
            let o = b + 15 * rel(q);
            out[o + self.secrets[q].len().min(4)] = 1.0;
            out[o + 5] = self.purro[q] as u8 as f32;
            out[o
                + 6
                + match self.marker[q] {
                    Marker::None => 0,
                    Marker::Coin => 1,
                    Marker::King(s) => 2 + s as usize,
                }] = 1.0;
            out[o + 12 + (self.penalty[q] as usize).min(2)] = 1.0;
        }
        let b = block(11);
        let stock = self.stock_size();
        for k in 1..=10 {
            out[b + k - 1] = (stock >= 5 * k) as u8 as f32;
        }
        out[b + 10] = (stock as f64 / 50.0) as f32;
        let b = block(4);
        for q in 0..SEATS {
            out[b + rel(q)] = (self.balances[q] as f64 / 1000.0) as f32;
        }
        let b = block(1);
        out[b] = (self.turn as f64 / self.rules.max_turns as f64) as f32;
        let b = block(1);
        out[b] = (self.hand as f64 / self.rules.hands as f64) as f32;
        let b = block(4);
        for q in 0..SEATS {
            out[b + rel(q)] = (self.totals[q] as f64 / 1000.0) as f32;
        }
        debug_assert_eq!(at, 1443);
    }

    fn render(&self, viewer: Option<usize>) -> String {
        use std::fmt::Write;
        if let Some(before) = self.masked(viewer) {
            return before.render(viewer);
        }
        let over = self.phase == Phase::Over;
        let (phase, to_play) = self.seen_phase(viewer);
        let mut s = String::new();
        let _ = writeln!(
            s,
            "Cuajo, hand {}, dealer seat {}, turn {}; sowee {}, stock {}",
            self.hand + 1,
            self.dealer,
            self.turn,
            name(self.sowee as usize),
            self.stock_size()
        );
        let pile: Vec<String> = self
            .discards
            .iter()
            .rev()
            .take(8)
            .map(|d| {
                let taken = d
                    .taken_by
                    .map_or(String::new(), |q| format!("(taken by {q})"));
                format!("{}{}", name(d.card as usize), taken)
            })
            .collect();
        let _ = writeln!(s, "discards (latest first): {}", pile.join(" "));
        for q in 0..SEATS {
            let mark = if to_play == Some(q) { ">" } else { " " };
            let cards = if over || viewer.is_none_or(|v| v == q) {
                Self::cards_line(&self.concealed[q])
            } else {
                format!("{} cards", total(&self.concealed[q]))
            };
            let mut flags = String::new();
            if !self.secrets[q].is_empty() {
                let _ = write!(flags, " secrets {}", self.secrets[q].len());
            }
            if self.purro[q] {
                let m = match self.marker[q] {
                    Marker::King(suit) => name(kind(suit as usize, KING)),
                    Marker::Coin => "coin".into(),
                    Marker::None => "no marker yet".into(),
                };
                let _ = write!(flags, " PURRO ({m})");
            }
            if self.penalty[q] > 0 {
                let _ = write!(flags, " penalty {}", self.penalty[q]);
            }
            let _ = writeln!(
                s,
                "{mark} seat {q} (team {}): {cards}{flags}; balance {}",
                q % 2,
                self.totals[q]
            );
        }
        if let Some(d) = self.last_draw {
            let card = if d.shown || over || viewer.is_none_or(|v| v == d.seat as usize) {
                name(d.card as usize)
            } else {
                "?".into()
            };
            let _ = writeln!(
                s,
                "drawn by seat {}: {card}{}",
                d.seat,
                if d.shown { " (shown)" } else { "" }
            );
        }
        let _ = write!(s, "phase {}", phase.name());
        if let Some(r) = &self.result {
            let _ = write!(
                s,
                "\nlast hand: {} ({}), payments {:?}",
                r.winner
                    .map_or("no winner".into(), |w| format!("seat {w} won")),
                r.source.map_or(r.reason.name(), Source::name),
                r.payments
            );
        }
        s
    }

    fn deal_summary(&self, seat: usize) -> String {
        if let Some(before) = self.masked(Some(seat)) {
            return before.deal_summary(seat);
        }
        let mut s = format!(
            "hand {} dealer {} sowee {} dealt {}",
            self.hand + 1,
            self.dealer,
            name(self.sowee as usize),
            Self::cards_line(&self.dealt(seat))
        );
        // Public consequences of hidden hands: purro calls and losses, the end of a hand.
        for q in 0..SEATS {
            if self.purro[q] || self.penalty[q] > 0 {
                s.push_str(&format!(
                    "; seat {q} purro {} marker {} penalty {}",
                    self.purro[q],
                    Self::marker_json(self.marker[q]),
                    self.penalty[q]
                ));
            }
        }
        if let Some(r) = &self.result {
            s.push_str(&format!("; last hand {}", Self::result_json(r)));
        }
        s
    }

    /// The hands started and finished (a hand's dealer, deck and sowee are set when it starts,
    /// the last hand's result when it ends; the match's last hand ends without a next one),
    /// every seat's purro call, marker and penalty, and whether the seat sees the table as it
    /// was before a marker decision (then that table's key).
    fn deal_summary_key(&self, seat: usize) -> u128 {
        if let Some(before) = self.masked(Some(seat)) {
            return before.deal_summary_key(seat) | 1 << 127;
        }
        let hands = u128::from(self.hand) + self.past.len() as u128;
        let mut key = hands << 72;
        for q in 0..SEATS {
            let marker = match self.marker[q] {
                Marker::None => 0,
                Marker::Coin => 1,
                Marker::King(s) => 2 + u128::from(s),
            };
            let status =
                u128::from(self.purro[q]) << 16 | marker << 8 | u128::from(self.penalty[q]);
            key |= status << (18 * q);
        }
        key
    }

    fn action_seen_by(&self, action: Action, seat: usize, out: &mut String) -> bool {
        if self.hidden_from(seat) && action == Action::Pass {
            return false;
        }
        if self.current as usize != seat {
            // A marker decision is hidden: the others see the action that brought it only
            // with the chosen marker, as if the marker had been placed at once.
            if let (Action::Marker(_), Some(h)) = (action, &self.hidden_marker) {
                h.before.action_line(h.trigger, seat, out);
                return true;
            }
            if self.brings_marker_decision(action) {
                return false;
            }
        }
        self.action_line(action, seat, out);
        true
    }

    /// `view(Some(seat))` field by field, in its order (the fields fixed by the config left
    /// out); during a marker decision hidden from `seat`, its table before the decision.
    fn sees_same(&self, o: &Self, seat: usize) -> bool {
        // A state at a marker decision hidden from `seat` shows its table before it, which an
        // unmasked state (a re-deal that brings no such decision) may show as well.
        let (a, b) = (self.masked(Some(seat)), o.masked(Some(seat)));
        if a.is_some() || b.is_some() {
            return a.unwrap_or(self).sees_same(b.unwrap_or(o), seat);
        }
        let over = self.phase == Phase::Over;
        let sees = |s: usize| over || s == seat;
        let secrets_alike = |s: usize| {
            self.secrets[s].len() == o.secrets[s].len()
                && self.secrets[s].iter().zip(&o.secrets[s]).all(|(x, y)| {
                    if sees(s) {
                        (x.sowee, x.card) == (y.sowee, y.card)
                    } else {
                        !self.rules.secret_kind_public || x.sowee == y.sowee
                    }
                })
        };
        let draw_seen = |d: &Option<Draw>| {
            d.map(|d| {
                (
                    d.seat,
                    (d.shown || sees(d.seat as usize)).then_some(d.card),
                    d.shown,
                )
            })
        };
        let past_seen = |p: &PastHand| (p.dealer, p.winner, p.source, p.balances);
        let size = |c: &Self, s: usize| total(&c.concealed[s]) + 4 * c.secrets[s].len();
        (
            self.hand,
            self.dealer,
            self.seen_phase(Some(seat)),
            self.sowee,
        ) == (o.hand, o.dealer, o.seen_phase(Some(seat)), o.sowee)
            && self.stock_size() == o.stock_size()
            && self.discards == o.discards
            && (0..SEATS).all(|s| !sees(s) || self.concealed[s] == o.concealed[s])
            && (0..SEATS).all(secrets_alike)
            && self.known == o.known
            && (0..SEATS).all(|s| size(self, s) == size(o, s))
            && (self.purro, self.marker, self.penalty) == (o.purro, o.marker, o.penalty)
            && draw_seen(&self.last_draw) == draw_seen(&o.last_draw)
            && (self.turn, self.balances, self.totals) == (o.turn, o.balances, o.totals)
            && self.result == o.result
            && self
                .past
                .iter()
                .map(past_seen)
                .eq(o.past.iter().map(past_seen))
    }

    /// Between hands: the balances so far (each hand's payments are final).
    fn deal_value(&self, out: &mut [f64]) -> bool {
        self.returns(out);
        true
    }

    fn heuristic_action(&self, legal: &[Action], rng: &mut Rng) -> Action {
        self.rule_of_thumb(legal, rng)
    }

    /// `legal_actions` contains `action`, without the list (replays check every action).
    fn is_legal(&self, action: Action) -> bool {
        let s = self.current as usize;
        let hand = &self.concealed[s];
        let w = self.sowee as usize;
        let secret = |sowee: bool, k: u8| Secret { sowee, card: k };
        match (self.phase, action) {
            (Phase::Opening | Phase::Action, a) => match a {
                Action::Discard(k) => (k as usize) < KINDS && self.discard_legal(s, k as usize),
                Action::Secret(k) => {
                    (k as usize) < KINDS
                        && hand[k as usize] == 4
                        && self.secret_keeps_win(s, secret(false, k))
                }
                Action::SoweeSecret(k) => {
                    (k as usize) < KINDS
                        && hand[w] == 3
                        && k as usize != w
                        && hand[k as usize] > 0
                        && self.secret_keeps_win(s, secret(true, k))
                }
                Action::Win => self.win_legal(s),
                _ => false,
            },
            (Phase::Draw, Action::Draw) => self.stock_size() > 0,
            (Phase::Draw, Action::Take) => {
                self.stock_size() > 0
                    || self
                        .top_discard()
                        .is_some_and(|top| self.may_win(s) && self.completes_with(s, top))
            }
            (Phase::Draw, Action::Pass) => self.stock_size() == 0,
            (Phase::DrawerOption, Action::Win | Action::Pass)
            | (Phase::Claim, Action::Claim | Action::Pass)
            | (Phase::PurroCall, Action::NoPurro) => true,
            (Phase::PurroCall, Action::Purro) => self.waits_of(s) != 0,
            (Phase::Marker, Action::Marker(suit)) => {
                suit < 4 && self.concealed[s][kind(suit as usize, KING)] > 0
            }
            _ => false,
        }
    }

    fn illegal_reason(&self, action: Action) -> Option<String> {
        self.why_illegal(action)
    }

    type Known = Unseen;

    fn known(start: &Self, actions: &[Action], seat: usize) -> Option<Unseen> {
        Unseen::of(start, actions, seat)
    }

    /// The positions other seats received unseen and those still in the stock.
    fn hides_last_action_from(&self, seat: usize) -> bool {
        self.masked(Some(seat)).is_some()
    }

    fn hidden_positions(known: &Unseen) -> Vec<usize> {
        let slots = known.slots.iter().flatten();
        slots.chain(&known.stock).map(|&p| p as usize).collect()
    }

    /// The public status after every action must be what `seat` saw, as for a proposal: the
    /// final view alone does not show a purro called and lost, or a marker since moved.
    fn replay_deal(
        known: &Unseen,
        start: &Self,
        deck: &[u8],
        actions: &[Action],
        mine: &[Action],
        seat: usize,
    ) -> Option<(Vec<Action>, Self)> {
        let (state, acts, trace) =
            Cuajo::replay_hidden(start, deck, actions, mine, seat, &known.truth)?;
        (trace == known.trace).then_some((acts, state))
    }

    /// A hidden secret changed to another of its options: the secret drawn uniformly, then
    /// its new option uniformly. A secret of kind `k` (the sowee's kind for a sowee secret)
    /// that becomes one of kind `k2` exchanges `m` unseen copies of `k` with `m` of `k2`: `m`
    /// drawn uniformly from 0 to the fewer of their unseen copies, then the copies of each,
    /// uniformly. The unseen cards stay the same as a whole, and the step back (the same
    /// secret, its old option, the same `m`, the moved copies) is exactly as likely. Copies
    /// some seat showed or discarded may thus stay where they were, so that every option of
    /// the secret is within reach: a normal secret and a sowee secret (three copies of the
    /// sowee and an extra card) are steps of one another, and a sowee secret's extra card
    /// changes without moving a card.
    fn walk_choice(
        known: &Unseen,
        positions: &[usize],
        deck: &[u8],
        mine: &[Action],
        rng: &mut Rng,
    ) -> Option<(Vec<u8>, Vec<Action>)> {
        if known.secrets.is_empty() {
            return None;
        }
        let x = &known.secrets[rng.below(known.secrets.len() as u64) as usize];
        let to = x.options[rng.below(x.options.len() as u64) as usize];
        if mine[x.at] == to {
            return None;
        }
        let kind = |a: Action| match a {
            Action::Secret(k) => Some(k),
            Action::SoweeSecret(_) => Some(deck[SOWEE_POS]),
            _ => None,
        };
        let (k, k2) = (kind(mine[x.at])?, kind(to)?);
        let mut deck = deck.to_vec();
        if k != k2 {
            let at = |kind: u8| -> Vec<usize> {
                positions
                    .iter()
                    .copied()
                    .filter(|&p| deck[p] == kind)
                    .collect()
            };
            let (mut from, mut into) = (at(k), at(k2));
            let m = rng.below(from.len().min(into.len()) as u64 + 1) as usize;
            // The first m of each, a uniformly drawn set (a partial shuffle).
            for copies in [&mut from, &mut into] {
                for i in 0..m {
                    let j = i + rng.below((copies.len() - i) as u64) as usize;
                    copies.swap(i, j);
                }
            }
            for (&p, &q) in from[..m].iter().zip(&into[..m]) {
                deck.swap(p, q);
            }
        }
        let mut mine = mine.to_vec();
        mine[x.at] = to;
        Some((deck, mine))
    }

    /// Some hidden secret has two options.
    fn has_walk_choices(known: &Unseen) -> bool {
        known.secrets.iter().any(|x| x.options.len() > 1)
    }

    /// A proposal without its `1 / w` step: one in 500 to 2,500 passed at four positions
    /// where the exact ones fail (docs/rules/cuajo.md, "Determinisation").
    fn walk_proposal(
        known: &Unseen,
        start: &Self,
        actions: &[Action],
        seat: usize,
        rng: &mut Rng,
    ) -> Option<(Vec<u8>, Vec<Action>)> {
        known.deal(start, actions, seat, rng, false)
    }

    fn resample_deal(
        known: &Unseen,
        start: &Self,
        actions: &[Action],
        seat: usize,
        rng: &mut Rng,
    ) -> Option<Redeal<Self>> {
        (0..PROPOSALS).find_map(|_| known.propose(start, actions, seat, rng))
    }
}

// ---------------------------------------------------------------------------------------------
// Why an action is illegal, told to the player to act from what he may know: his own cards and
// the public table (never who else could claim, nor any other hidden card).

impl Cuajo {
    fn start_of_turn(&self) -> String {
        match self.top_discard() {
            _ if self.stock_size() == 0 => "the stock is empty: 'take' the top discard (only if \
                it completes your hand) or 'pass' (the hand is a wash)"
                .into(),
            Some(d) => format!(
                "start your turn with 'draw' (the top stock card) or 'take' (the last discard, \
                 {})",
                name(d as usize)
            ),
            None => "start your turn with 'draw'".into(),
        }
    }

    fn not_in_hand(&self, s: usize, k: usize) -> String {
        if self.extra[s] == Some(k as u8) {
            format!(
                "{} is the extra card of your sowee secret: it can never be discarded",
                name(k)
            )
        } else if self.committed[s][k] > 0 {
            format!(
                "your {} are in a secret: secrets are never discarded",
                name(k)
            )
        } else {
            format!("you do not hold {}", name(k))
        }
    }

    fn why_illegal(&self, action: Action) -> Option<String> {
        let s = self.current as usize;
        let hand = &self.concealed[s];
        let w = self.sowee as usize;
        let penalised = || {
            let n = self.penalty[s];
            format!(
                "you lost purro and are penalised for {n} more turn{}: you cannot win",
                if n == 1 { "" } else { "s" }
            )
        };
        let empty_take = "you took the last discard from an empty stock: you cannot discard, \
                          only win";
        Some(match (self.phase, action) {
            (Phase::Over, _) => return None,
            (Phase::Draw, Action::Take) if !self.may_win(s) => format!(
                "{}; with the stock empty the last discard is taken only to win",
                penalised()
            ),
            (Phase::Draw, Action::Take) => format!(
                "the stock is empty and the top discard {} does not complete your hand: it may \
                 be taken only to win",
                self.top_discard()
                    .map_or_else(String::new, |d| name(d as usize))
            ),
            (Phase::Draw, Action::Pass) => {
                "you may pass only when the stock is empty: 'draw' or 'take'".into()
            }
            (Phase::Draw, _) => self.start_of_turn(),
            (Phase::DrawerOption, _) => format!(
                "the card you drew ({}) completes your hand: first decide, 'win' or 'pass'",
                self.last_draw
                    .map_or_else(String::new, |d| name(d.card as usize))
            ),
            (Phase::Claim, _) => {
                let drawer = self.turn_of;
                let card = self
                    .last_draw
                    .map_or_else(String::new, |d| name(d.card as usize));
                format!("{card}, shown by seat {drawer}, completes your hand: 'claim' it or 'pass'")
            }
            (Phase::PurroCall, Action::Purro) => {
                "your hand has no waits (no card would complete it): you cannot call purro".into()
            }
            (Phase::PurroCall, _) => "your turn is over: decide 'purro' or 'no-purro'".into(),
            (Phase::Marker, Action::Marker(suit)) => format!(
                "you hold no K{}: the purro marker is one of your kings",
                SUITS[suit as usize]
            ),
            (Phase::Marker, _) => {
                "first choose your purro marker: 'marker <king>', one of your kings".into()
            }
            // The opening and the action phase: the player holds 16.
            (_, Action::Discard(_)) if self.last_take => empty_take.into(),
            (_, Action::Discard(k)) if is_king(k as usize) => {
                format!("{} is a king: kings are never discarded", name(k as usize))
            }
            (_, Action::Discard(k)) if hand[k as usize] == 0 => self.not_in_hand(s, k as usize),
            (_, Action::Discard(k)) => format!(
                "you took {} from the discard pile this turn: it may not be discarded again \
                 (may_rediscard_taken_card = false)",
                name(k as usize)
            ),
            (_, Action::Secret(k)) if k as usize == w => format!(
                "only three copies of the sowee {} are in play: declare them as a sowee secret \
                 ('sowee-secret <card>')",
                name(w)
            ),
            (_, Action::Secret(k)) if hand[k as usize] < 4 => format!(
                "a secret is four identical cards in hand: you hold {} {}",
                hand[k as usize],
                name(k as usize)
            ),
            (_, Action::SoweeSecret(_)) if hand[w] < 3 => format!(
                "a sowee secret needs the three copies of the sowee {} in hand: you hold {} of them",
                name(w),
                hand[w]
            ),
            (_, Action::SoweeSecret(k)) if k as usize == w => format!(
                "the extra card of a sowee secret is of another kind than the sowee {}",
                name(w)
            ),
            (_, Action::SoweeSecret(k)) if hand[k as usize] == 0 => {
                format!("you do not hold {}", name(k as usize))
            }
            (_, Action::Secret(_) | Action::SoweeSecret(_)) if !self.rules.secret_then_win => {
                format!(
                    "{empty_take}, and no secret may be declared on a winning turn \
                     (secret_on_winning_turn = false)"
                )
            }
            (_, Action::Secret(_) | Action::SoweeSecret(_)) => {
                format!("{empty_take}: only a secret that keeps your hand complete")
            }
            (Phase::Opening, Action::Draw | Action::Take) => {
                "the dealer does not draw at the opening: declare a secret, win or discard".into()
            }
            (_, Action::Draw | Action::Take) => {
                "you have drawn already this turn: declare a secret, win or discard".into()
            }
            (Phase::Opening, Action::Win) if !self.rules.natural_win => {
                "no natural win at the opening in this game (dealer_natural_win = false)".into()
            }
            (_, Action::Win) if !self.may_win(s) => penalised(),
            (_, Action::Win) if self.secret_this_turn && !self.rules.secret_then_win => {
                "you declared a secret this turn: no win in the same turn \
                 (secret_on_winning_turn = false)"
                    .into()
            }
            (_, Action::Win) => "your hand is not complete".into(),
            (_, Action::Claim) => "there is no shown card to claim now".into(),
            (_, Action::Pass) if self.last_take => empty_take.into(),
            (_, Action::Pass) => "there is nothing to pass: declare a secret, win or discard".into(),
            (_, Action::Marker(_)) => "there is no purro marker to choose now".into(),
            (_, Action::Purro | Action::NoPurro) if !self.rules.optional_call => {
                "purro is called automatically at the end of a turn (purro_call = \"forced\")"
                    .into()
            }
            (_, Action::Purro | Action::NoPurro) => {
                "purro is decided at the end of your turn, after your discard".into()
            }
        })
    }
}

// ---------------------------------------------------------------------------------------------
// Determinisation.

/// Runs of equal needs `(kind, by)` as `(kind, by, copies)`.
fn group(needs: &[(u8, usize)]) -> Vec<Group> {
    let mut out: Vec<Group> = Vec::new();
    for &(k, by) in needs {
        match out.last_mut() {
            Some(last) if (last.0, last.1) == (k, by) => last.2 += 1,
            _ => out.push((k, by, 1)),
        }
    }
    out
}

fn choose(n: usize, k: usize) -> u64 {
    (0..k).fold(1u64, |acc, i| acc * (n - i) as u64 / (i as u64 + 1))
}

/// Proposals one `resample_deal` call tries before the generic layer calls it again.
const PROPOSALS: usize = 800;

/// Per seat, the cards it must have held, each with the number of its hidden positions
/// received by then.
type Needs = [Vec<(u8, usize)>; SEATS];

/// An event of another seat's hand, as the viewer knows it.
#[derive(Clone, Copy, PartialEq, Debug)]
enum Event {
    /// The seat receives its next hidden card (dealt, or drawn unseen).
    Hidden,
    /// It receives a card everybody saw (a taken discard, a shown draw).
    Shown(u8),
    Discard(u8),
    /// It lays the secret of `secrets[i]`, whose kind the viewer may not know.
    Secret(usize),
    /// After a discard its 15 cards had waits (`true`) or had none.
    Waits(bool),
    /// Its purro marker became this.
    Marker(Marker),
}

/// Another seat's secret: where it is in the actions, and the secrets it may have been.
#[derive(Clone, Debug)]
struct UnseenSecret {
    at: usize,
    options: Vec<Action>,
}

/// What `seat` has not seen of the current deal, and what it knows of it: for determinisation.
pub struct Unseen {
    /// Per seat, the hidden deck positions it received, in order.
    slots: [Vec<u8>; SEATS],
    events: [Vec<Event>; SEATS],
    /// Hidden positions still in the stock.
    stock: Vec<u8>,
    /// The kinds of every hidden position.
    pool: Counts,
    secrets: Vec<UnseenSecret>,
    /// The public status after each action, as `seat` saw it.
    trace: Vec<[u8; 3 * SEATS]>,
    /// The true state before each action and after the last.
    truth: Vec<TrueStep>,
    /// The match is over: every hand is shown, only the stock left is unseen.
    over: bool,
    /// A seat seen to hold a hand with waits after its last unseen card, with its hand's
    /// complete hands counted: its unseen cards are drawn among those giving waits.
    /// (Boxed: a `Ready` is about 21 kB, and an `Unseen` is moved whole.)
    ready: Option<(usize, Box<ready::Ready>)>,
    /// The other seats in the order their cards are placed: the purro seat of `ready` first,
    /// then those seen with waits, whose constraints are the rarest, so that most rejections
    /// come early.
    order: Vec<usize>,
    /// The seats seen with waits: few hands fit, so a proposal checks theirs first.
    waited: [bool; SEATS],
    /// How the hidden secrets' kinds are drawn, with the needs of every proposal; `None` if no
    /// deal fits what the seats were seen to do.
    law: Option<SecretLaw>,
    /// [`Unseen::ready_seats`] per choice of the hidden secrets' kinds (their action ids),
    /// made when a fallback walk first needs them.
    walk_ready: Mutex<BTreeMap<Vec<usize>, Arc<WalkReady>>>,
}

/// Draws of a seat's cards among the hands with waits that a fallback walk's proposal tries
/// before it fails.
const WALK_READY_TRIES: usize = 50;

/// The seats a fallback walk's proposal draws among the hands with waits, each with its draw.
type WalkReady = Vec<(usize, ready::Ready)>;

/// Needed copies taken together: `(kind, by, copies)`.
type Group = (u8, usize, usize);

/// Per seat, its needs in runs of equal `(kind, by)`. Copies needed together (a secret) take a
/// set of positions, not a sequence.
type Groups = [Vec<Group>; SEATS];

/// Per seat, its needs grouped, borrowed.
type SeatGroups<'a> = [&'a [Group]; SEATS];

/// The ways the needed copies (`groups`, in order of `by`) could have been placed among the
/// seat's hidden positions holding `kinds`: the copies of each kind among the first `by`
/// positions, counted on as `by` grows. `None` if they do not fit.
fn placed_ways(groups: &[Group], kinds: &[u8]) -> Option<u64> {
    let mut ways = 1u64;
    let (mut used, mut here, mut upto) = ([0usize; KINDS], [0usize; KINDS], 0);
    for &(k, by, m) in groups {
        for &x in &kinds[upto..by] {
            here[x as usize] += 1;
        }
        upto = by;
        let free_here = here[k as usize]
            .checked_sub(used[k as usize])
            .filter(|&x| x >= m)?;
        ways *= choose(free_here, m);
        used[k as usize] += m;
    }
    Some(ways)
}

/// The ways to place grouped needs: `None` if they do not fit.
fn placements(groups: &[Group]) -> Option<f64> {
    let mut taken = 0;
    let mut ways = 1.0;
    for &(_, by, m) in groups {
        if by < taken + m {
            return None;
        }
        ways *= choose(by - taken, m) as f64;
        taken += m;
    }
    Some(ways)
}

/// `n (n - 1) ... (n - k + 1)`, 0 if `k > n`.
fn falling(n: usize, k: usize) -> f64 {
    if k > n {
        return 0.0;
    }
    (0..k).map(|i| (n - i) as f64).product()
}

/// A uniform draw in `[0, 1)`: the top 53 bits of one draw (exact, the same everywhere).
fn unit(rng: &mut Rng) -> f64 {
    (rng.next_u64() >> 11) as f64 / (1u64 << 53) as f64
}

/// The law of the other seats' hidden secrets' kinds. A proposal with secrets `c` yields each
/// deal consistent with `c` with probability `1 / K(c)`, `K(c)` the number of its placements
/// of the needed cards times the arrangements of the other hidden cards; so `c` must be drawn
/// in proportion to `K(c)` for every (deal, secrets) pair to be equally likely.
///
/// Up to a constant, `K(c) = ∏_seats placements × ∏_k falling(pool_k, D_k) / falling(P, D)`,
/// with `D_k` the hidden copies of kind `k` that all needs take, `D` their sum and `P` the
/// hidden cards. Taking the seats in turn, the falling factorials split into one factor per
/// seat, `∏_k falling(pool_k - before_k, d_k) / falling(P - before, |d|)`, where `before` is
/// what the seats before it took. A seat's needs depend on its own secrets only, so its
/// choices are listed once, each weighted by its placements and that factor with `before` at
/// its bound (the least copies of each kind, the most cards, the seats before can take); a
/// draw takes one choice per seat by these weights and is kept with the ratio of `K(c)` to the
/// product, at most 1. Only a choice touching a kind that an earlier seat's secret may take is
/// ever refused, so nearly every draw is kept. With no hidden secret it is only the needs,
/// worked out once.
struct SecretLaw {
    seats: Vec<SeatSecrets>,
    /// The hidden cards the seats without hidden secrets need, and their needs grouped.
    base: Counts,
    base_groups: Groups,
    pool: Counts,
}

/// One seat's choices of its hidden secrets.
struct SeatSecrets {
    seat: usize,
    /// The secrets' indices in [`Unseen::secrets`].
    secrets: Vec<usize>,
    /// Per choice, the secrets' kinds, the kinds of all the seat's needs and the needs grouped.
    choices: Vec<(Vec<Action>, Counts, Vec<Group>)>,
    cumulative: Vec<f64>,
    /// The bounds of `before`: per kind the least copies, and the most cards, as hidden cards
    /// left (`pool - before`).
    kinds_left: Counts,
    cards_left: usize,
}

/// `∏_k falling(left_k, d_k) / falling(cards, |d|)`: the share of one seat's needs `d`.
fn share(left: &Counts, cards: usize, d: &Counts) -> f64 {
    let kinds: f64 = (0..KINDS)
        .map(|k| falling(left[k] as usize, d[k] as usize))
        .product();
    kinds / falling(cards, total(d))
}

impl SecretLaw {
    fn new(u: &Unseen, start: &Cuajo, seat: usize) -> Option<Self> {
        let mut chosen = vec![Action::Pass; u.secrets.len()];
        let counts = |needs: &[(u8, usize)]| {
            let mut d = [0u8; KINDS];
            for &(k, _) in needs {
                d[k as usize] += 1;
            }
            d
        };
        let (mut base, mut base_groups, mut seats) = ([0u8; KINDS], Groups::default(), Vec::new());
        // Per seat with hidden secrets, its choices' placements.
        let mut ways: Vec<Vec<f64>> = Vec::new();
        for q in (0..SEATS).filter(|&q| q != seat) {
            let secrets: Vec<usize> = u.events[q]
                .iter()
                .filter_map(|e| match *e {
                    Event::Secret(i) => Some(i),
                    _ => None,
                })
                .collect();
            if secrets.is_empty() {
                let needs = u.seat_needs(start, q, &chosen);
                base = add(&base, &counts(&needs));
                base_groups[q] = group(&needs);
                continue;
            }
            let (mut choices, mut seat_ways) = (Vec::new(), Vec::new());
            // Every combination of the seat's secrets' options, by a mixed-radix counter.
            let sizes: Vec<usize> = secrets
                .iter()
                .map(|&i| u.secrets[i].options.len())
                .collect();
            if sizes.contains(&0) {
                // A secret no kind fits (never with a legal history).
                return None;
            }
            let mut digits = vec![0usize; sizes.len()];
            'all: loop {
                for (&i, &d) in secrets.iter().zip(&digits) {
                    chosen[i] = u.secrets[i].options[d];
                }
                let needs = u.seat_needs(start, q, &chosen);
                let groups = group(&needs);
                if let Some(w) = placements(&groups) {
                    let choice = secrets.iter().map(|&i| chosen[i]).collect();
                    choices.push((choice, counts(&needs), groups));
                    seat_ways.push(w);
                }
                for (digit, &size) in digits.iter_mut().zip(&sizes) {
                    *digit += 1;
                    if *digit < size {
                        continue 'all;
                    }
                    *digit = 0;
                }
                break;
            }
            seats.push(SeatSecrets {
                seat: q,
                secrets,
                choices,
                cumulative: Vec::new(),
                kinds_left: [0; KINDS],
                cards_left: 0,
            });
            ways.push(seat_ways);
        }
        let mut kinds_left: Counts = std::array::from_fn(|k| u.pool[k].saturating_sub(base[k]));
        let mut cards_left = total(&u.pool).checked_sub(total(&base))?;
        for (s, ways) in seats.iter_mut().zip(ways) {
            (s.kinds_left, s.cards_left) = (kinds_left, cards_left);
            let mut sum = 0.0;
            for ((_, d, _), w) in s.choices.iter().zip(ways) {
                // A seat's needs fit its hidden positions (else `placements` fails), so the
                // cards left cover them: `share` never divides by zero.
                sum += w * share(&kinds_left, cards_left, d);
                s.cumulative.push(sum);
            }
            if sum <= 0.0 {
                return None;
            }
            for k in 0..KINDS {
                let least = s.choices.iter().map(|(_, d, _)| d[k]).min().unwrap_or(0);
                kinds_left[k] = kinds_left[k].saturating_sub(least);
            }
            let most = s
                .choices
                .iter()
                .map(|(_, d, _)| total(d))
                .max()
                .unwrap_or(0);
            cards_left = cards_left.saturating_sub(most);
        }
        Some(SecretLaw {
            seats,
            base,
            base_groups,
            pool: u.pool,
        })
    }

    /// The kinds of the `n` hidden secrets, with every seat's needs grouped and the hidden
    /// cards left for the rest; `None` if this draw is not kept.
    fn draw(&self, n: usize, rng: &mut Rng) -> Option<(Vec<Action>, SeatGroups<'_>, Counts)> {
        let mut chosen = vec![Action::Pass; n];
        let mut groups: SeatGroups = std::array::from_fn(|q| self.base_groups[q].as_slice());
        let mut before = self.base;
        // The ratio of `K(c)` to the product of the weights drawn by, seat by seat.
        let mut ratio = 1.0;
        for s in &self.seats {
            let x = unit(rng) * s.cumulative.last()?;
            let at = s
                .cumulative
                .partition_point(|&c| c <= x)
                .min(s.choices.len() - 1);
            let (choice, d, seat_groups) = &s.choices[at];
            for (&i, &a) in s.secrets.iter().zip(choice) {
                chosen[i] = a;
            }
            groups[s.seat] = seat_groups;
            let mut left = [0u8; KINDS];
            for k in 0..KINDS {
                left[k] = self.pool[k].checked_sub(before[k])?;
            }
            let cards = total(&self.pool).checked_sub(total(&before))?;
            ratio *= share(&left, cards, d) / share(&s.kinds_left, s.cards_left, d);
            before = add(&before, d);
        }
        debug_assert!(
            ratio <= 1.0 + 1e-9,
            "the drawing weights bound the exact ones"
        );
        let mut rest = [0u8; KINDS];
        for k in 0..KINDS {
            rest[k] = self.pool[k].checked_sub(before[k])?;
        }
        // A ratio of 1 (no hidden secret, or none sharing a kind) needs no draw.
        (ratio >= 1.0 || unit(rng) < ratio).then_some((chosen, groups, rest))
    }
}

impl Unseen {
    fn of(start: &Cuajo, actions: &[Action], seat: usize) -> Option<Self> {
        let mut u = Unseen {
            slots: Default::default(),
            events: Default::default(),
            stock: Vec::new(),
            pool: [0; KINDS],
            secrets: Vec::new(),
            trace: Vec::with_capacity(actions.len()),
            truth: Vec::with_capacity(actions.len() + 1),
            over: false,
            ready: None,
            order: Vec::new(),
            waited: [false; SEATS],
            law: None,
            walk_ready: Mutex::default(),
        };
        let dealer = start.dealer as usize;
        for i in 0..SOWEE_POS {
            let q = recipient(dealer, i);
            if q != seat {
                u.slots[q].push(i as u8);
                u.events[q].push(Event::Hidden);
            }
        }
        let exact_no_waits = start.rules.dead_waits_count;
        let mut s = start.clone();
        for (at, &a) in actions.iter().enumerate() {
            u.truth.push(TrueStep::of(&s, seat));
            let c = s.current as usize;
            let (purro, penalty, markers) = (s.purro[c], s.penalty[c], s.marker);
            if c != seat {
                match a {
                    Action::Draw if !s.reveal_required(c) => {
                        u.slots[c].push(s.stock_at);
                        u.events[c].push(Event::Hidden);
                    }
                    Action::Draw => u.events[c].push(Event::Shown(s.deck[s.stock_at as usize])),
                    Action::Take => u.events[c].push(Event::Shown(s.top_discard()?)),
                    Action::Discard(k) => u.events[c].push(Event::Discard(k)),
                    Action::Secret(_) | Action::SoweeSecret(_) => {
                        u.events[c].push(Event::Secret(u.secrets.len()));
                        u.secrets.push(UnseenSecret {
                            at,
                            options: Self::secret_options(start, a),
                        });
                    }
                    _ => {}
                }
            }
            let hidden_pass = s.hidden_from(seat) && a == Action::Pass;
            s.apply_unchecked(a);
            // What `seat` saw after the action (what a replay of a proposal must show too).
            if !hidden_pass {
                u.trace.push(s.seen_status(seat));
            }
            if c != seat {
                // What the end of the turn showed of the 15 cards left.
                let waits = match a {
                    Action::Discard(_) if penalty > 0 => None,
                    Action::Discard(_) if purro => Some(s.purro[c]),
                    Action::Discard(_) if !s.rules.optional_call => Some(s.purro[c]),
                    Action::Purro => Some(true),
                    _ => None,
                };
                if let Some(w) = waits.filter(|&w| w || exact_no_waits) {
                    u.events[c].push(Event::Waits(w));
                }
            }
            for q in (0..SEATS).filter(|&q| q != seat) {
                if s.marker[q] != markers[q] && s.marker[q] != Marker::None {
                    u.events[q].push(Event::Marker(s.marker[q]));
                }
            }
        }
        u.truth.push(TrueStep::of(&s, seat));
        let end = match (&s.result, s.phase) {
            (Some(r), Phase::Over) => s.stock_at as usize - r.extra_draws.len(),
            _ => s.stock_at as usize,
        };
        u.stock = (end..DECK).map(|p| p as u8).collect();
        u.over = s.phase == Phase::Over;
        for &p in u.slots.iter().flatten().chain(&u.stock) {
            u.pool[start.deck[p as usize] as usize] += 1;
        }
        // A secret could only be of kinds the seat could have held four (three) copies of.
        let w = start.sowee as usize;
        for (q, events) in u.events.iter().enumerate() {
            let mut could = u.pool;
            for e in events {
                if let Event::Shown(k) = *e {
                    could[k as usize] += 1;
                }
            }
            for e in events {
                if let Event::Secret(i) = *e {
                    u.secrets[i].options.retain(|&a| match a {
                        Action::Secret(k) => could[k as usize] >= 4,
                        Action::SoweeSecret(x) => could[w] >= 3 && could[x as usize] >= 1,
                        _ => false,
                    });
                    debug_assert!(q != seat);
                }
            }
        }
        u.ready = u.ready_seat(start, seat);
        let first = u.ready.as_ref().map(|(q, _)| *q);
        u.waited = std::array::from_fn(|q| u.events[q].contains(&Event::Waits(true)));
        u.order = (0..SEATS).filter(|&q| q != seat).collect();
        u.order.sort_by_key(|&q| (Some(q) != first, !u.waited[q]));
        u.law = SecretLaw::new(&u, start, seat);
        Some(u)
    }

    /// The secrets another seat's secret may have been: any normal secret, and any sowee
    /// secret, unless the kind is public.
    fn secret_options(start: &Cuajo, a: Action) -> Vec<Action> {
        let w = start.sowee;
        let normal = (0..KINDS as u8).filter(|&k| k != w).map(Action::Secret);
        let sowee = (0..KINDS as u8)
            .filter(|&k| k != w)
            .map(Action::SoweeSecret);
        match (start.rules.secret_kind_public, a) {
            (true, Action::Secret(_)) => normal.collect(),
            (true, _) => sowee.collect(),
            (false, _) => normal.chain(sowee).collect(),
        }
    }

    /// One proposal: a deck and the actions with the hidden secrets chosen, or `None` if this
    /// try is rejected. Every deal consistent with what the viewer saw (with a choice of each
    /// hidden secret) is returned with the same probability:
    ///
    /// * the hidden secrets' kinds are drawn in proportion to the proposals each choice allows
    ///   ([`SecretLaw`]);
    /// * every card a seat must have held for a discard or a secret, beyond the copies it was
    ///   publicly seen to receive, goes to one of its hidden positions received before
    ///   (uniformly among those still free); the other hidden positions get the other hidden
    ///   cards, shuffled;
    /// * a deal so built can come from `w` such choices of positions; it is kept with
    ///   probability `1 / w`, which makes every deal equally likely;
    /// * a deal in which a hand is seen to have (or not have) waits or a marker it does not
    ///   is rejected before its replay (a seat seen with waits as soon as its hand is drawn,
    ///   the others once every seat has passed its `1 / w` draw); the rest is checked by
    ///   replaying the deal.
    fn propose(
        &self,
        start: &Cuajo,
        actions: &[Action],
        seat: usize,
        rng: &mut Rng,
    ) -> Option<Redeal<Cuajo>> {
        let (deck, mine) = self.deal(start, actions, seat, rng, true)?;
        if self.over {
            return Some((deck, mine, None));
        }
        // Every action of the replay was checked legal (the passes it redoes always are).
        let (acts, state) = Cuajo::replay_deal(self, start, &deck, actions, &mine, seat)?;
        Some((deck, acts, Some(state)))
    }

    /// The deck of [`Unseen::propose`] and the true actions with the hidden secrets chosen,
    /// before the replay's check; `exact: false` skips the `1 / w` step (the deals then come in
    /// proportion to `w`: a fallback walk's start).
    fn deal(
        &self,
        start: &Cuajo,
        actions: &[Action],
        seat: usize,
        rng: &mut Rng,
        exact: bool,
    ) -> Option<(Vec<u8>, Vec<Action>)> {
        if self.over {
            let mut deck = start.deck.to_vec();
            let mut stock: Vec<u8> = self.stock.iter().map(|&p| deck[p as usize]).collect();
            rng.shuffle(&mut stock);
            for (&p, k) in self.stock.iter().zip(stock) {
                deck[p as usize] = k;
            }
            return Some((deck, actions.to_vec()));
        }
        let (chosen, groups, rest) = self.law.as_ref()?.draw(self.secrets.len(), rng)?;
        // The seats whose unseen cards are drawn among those giving waits.
        let walk_ready = (!exact).then(|| self.walk_ready(start, seat, &chosen));
        let ready_of = |q: usize| match &walk_ready {
            Some(seats) => seats.iter().find(|(r, _)| *r == q).map(|(_, x)| x),
            None => self
                .ready
                .as_ref()
                .filter(|(r, _)| *r == q)
                .map(|(_, x)| &**x),
        };
        let mut free: Vec<u8> = Vec::with_capacity(self.stock.len() + DECK / 2);
        for k in 0..KINDS as u8 {
            free.extend(std::iter::repeat_n(k, rest[k as usize] as usize));
        }
        let mut deck = start.deck.to_vec();
        let mut hands = Vec::new();
        for &q in &self.order {
            let slots = &self.slots[q];
            let mut kinds = vec![u8::MAX; slots.len()];
            let groups = groups[q];
            let mut taken = 0;
            for &(k, by, m) in groups {
                // Every earlier pick lies below `by` (the needs come in order): `by - taken`
                // positions are open, each picked with the same chance by drawing until open.
                if by < taken + m {
                    return None;
                }
                for _ in 0..m {
                    loop {
                        let at = rng.below(by as u64) as usize;
                        if kinds[at] == u8::MAX {
                            kinds[at] = k;
                            break;
                        }
                    }
                }
                taken += m;
            }
            // A walk's proposal draws a seat drawn among the hands with waits again until its
            // other checks pass too (it need not be uniform): at its checks after its last
            // unseen card, the hand follows from the draw; otherwise one try.
            let again = (!exact && ready_of(q).is_some()).then(|| (kinds.clone(), free.clone()));
            let mut tries = if again.is_some() { WALK_READY_TRIES } else { 1 };
            let check_now = !exact || self.waited[q];
            loop {
                let mut fill: Vec<u8> = match ready_of(q) {
                    // Drawn from the remaining cards, but only among the draws giving waits.
                    Some(ready) => {
                        let drawn = ready.draw(rng)?;
                        let fill: Vec<u8> = (0..KINDS as u8)
                            .flat_map(|k| std::iter::repeat_n(k, drawn[k as usize] as usize))
                            .collect();
                        for &k in &fill {
                            let at = free.iter().position(|&x| x == k)?;
                            free.swap_remove(at);
                        }
                        fill
                    }
                    None => Vec::new(),
                };
                rng.shuffle(&mut fill);
                for cell in kinds.iter_mut().filter(|k| **k == u8::MAX) {
                    *cell = match fill.pop() {
                        Some(k) => k,
                        None => free.swap_remove(rng.below(free.len() as u64) as usize),
                    };
                }
                debug_assert!(
                    fill.is_empty(),
                    "the drawn cards fill the seat's free positions"
                );
                // Kept with probability 1/w, w the number of ways to place the needed cards
                // (a walk's proposal skips it). Most proposals fail there, so an exact one
                // checks at once only a hand seen with waits (which few hands fit), and the
                // others once every seat has passed: the same test in a cheaper order.
                if exact && rng.below(placed_ways(groups, &kinds)?) != 0
                    || check_now && !self.hand_fits(start, q, &kinds, &chosen)
                {
                    tries -= 1;
                    match &again {
                        Some((k, f)) if tries > 0 => {
                            kinds.clone_from(k);
                            free.clone_from(f);
                            continue;
                        }
                        _ => return None,
                    }
                }
                break;
            }
            for (&p, &k) in slots.iter().zip(&kinds) {
                deck[p as usize] = k;
            }
            if !check_now {
                hands.push((q, kinds));
            }
        }
        if !hands
            .iter()
            .all(|(q, kinds)| self.hand_fits(start, *q, kinds, &chosen))
        {
            return None;
        }
        debug_assert_eq!(
            free.len(),
            self.stock.len(),
            "every hidden card placed once"
        );
        rng.shuffle(&mut free);
        for (&p, k) in self.stock.iter().zip(free) {
            deck[p as usize] = k;
        }
        let mut mine = actions.to_vec();
        for (x, &a) in self.secrets.iter().zip(&chosen) {
            mine[x.at] = a;
        }
        Some((deck, mine))
    }

    /// The cards each seat must have held for its discards and secrets (`chosen`), beyond the
    /// copies it was seen to receive (used first), each with the number of the seat's hidden
    /// positions received by then; and the hidden cards left for the rest.
    fn needs(&self, start: &Cuajo, seat: usize, chosen: &[Action]) -> Option<(Needs, Counts)> {
        let mut needs: Needs = Default::default();
        let mut rest = self.pool;
        for q in (0..SEATS).filter(|&q| q != seat) {
            needs[q] = self.seat_needs(start, q, chosen);
            for &(k, _) in &needs[q] {
                rest[k as usize] = rest[k as usize].checked_sub(1)?;
            }
        }
        Some((needs, rest))
    }

    /// [`Unseen::needs`] of seat `q` alone (its secrets' entries of `chosen` only are read).
    fn seat_needs(&self, start: &Cuajo, q: usize, chosen: &[Action]) -> Vec<(u8, usize)> {
        let w = start.sowee as usize;
        let mut needs = Vec::new();
        let mut shown = [0u8; KINDS];
        let mut received = 0;
        for e in &self.events[q] {
            let wanted: &[(usize, u8)] = match *e {
                Event::Hidden => {
                    received += 1;
                    &[]
                }
                Event::Shown(k) => {
                    shown[k as usize] += 1;
                    &[]
                }
                Event::Discard(k) => &[(k as usize, 1)],
                Event::Secret(i) => match chosen[i] {
                    Action::Secret(k) => &[(k as usize, 4)],
                    Action::SoweeSecret(x) => &[(w, 3), (x as usize, 1)],
                    _ => &[],
                },
                _ => &[],
            };
            for &(k, n) in wanted {
                let from_shown = shown[k].min(n);
                shown[k] -= from_shown;
                needs.extend(std::iter::repeat_n(
                    (k as u8, received),
                    (n - from_shown) as usize,
                ));
            }
        }
        needs
    }

    /// The seat whose unseen cards can be drawn among those giving waits: one seen to hold a
    /// hand with waits after it received its last unseen card, in a deal with no hidden secret
    /// (whose choice would change the cards left) and no sowee triple. With several such
    /// seats, the one with the most cards to draw; the others are left to rejection.
    fn ready_seat(&self, start: &Cuajo, seat: usize) -> Option<(usize, Box<ready::Ready>)> {
        if !self.secrets.is_empty() || start.rules.sowee_triple {
            return None;
        }
        let (needs, rest) = self.needs(start, seat, &[])?;
        let mut best: Option<(usize, usize, Box<ready::Ready>)> = None;
        for q in (0..SEATS).filter(|&q| q != seat) {
            let Some((fill, hand)) = self.ready_hand(start, q, &needs[q], &rest) else {
                continue;
            };
            if best.as_ref().is_some_and(|b| b.1 >= fill) {
                continue;
            }
            if let Some(r) = ready::Ready::new(hand) {
                best = Some((q, fill, Box::new(r)));
            }
        }
        best.map(|(q, _, r)| (q, r))
    }

    /// For a fallback walk's proposals, which need not be uniform: every such seat, with the
    /// hidden secrets' kinds `chosen` (no sowee triple), each drawn on its own from the cards
    /// the others' needs leave (a draw that takes a card another drew fails).
    fn ready_seats(&self, start: &Cuajo, seat: usize, chosen: &[Action]) -> WalkReady {
        let Some((needs, rest)) = self.needs(start, seat, chosen) else {
            return Vec::new();
        };
        if start.rules.sowee_triple {
            return Vec::new();
        }
        (0..SEATS)
            .filter(|&q| q != seat)
            .filter_map(|q| {
                let (_, hand) = self.ready_hand(start, q, &needs[q], &rest)?;
                Some((q, ready::Ready::new(hand)?))
            })
            .collect()
    }

    /// [`Unseen::ready_seats`] for `chosen`, made once.
    fn walk_ready(&self, start: &Cuajo, seat: usize, chosen: &[Action]) -> Arc<WalkReady> {
        let key = chosen.iter().map(|a| a.index()).collect();
        let mut made = self.walk_ready.lock().unwrap_or_else(|e| e.into_inner());
        made.entry(key)
            .or_insert_with(|| Arc::new(self.ready_seats(start, seat, chosen)))
            .clone()
    }

    /// Seat `q`'s hand at its last check with waits after all its unseen cards came, as a
    /// draw of its unseen cards (how many: the first) from `rest`, given its `needs`; `None`
    /// if it had no such check.
    fn ready_hand(
        &self,
        start: &Cuajo,
        q: usize,
        needs: &[(u8, usize)],
        rest: &Counts,
    ) -> Option<(usize, ready::Hand)> {
        // Its hand at that check (of a seat with no secret): the cards it must have held and
        // was seen to receive, less those that left.
        let slots = self.slots[q].len();
        let mut known: Counts = [0; KINDS];
        for &(k, _) in needs {
            known[k as usize] += 1;
        }
        let (mut received, mut at_check) = (0, None);
        // Kings the hand cannot hold, from a marker placed after its last unseen card
        // (kings are never discarded): none for a coin, none below the marker's suit when the
        // marker is the lowest king.
        let mut no_kings = 0u8;
        for e in &self.events[q] {
            match *e {
                Event::Hidden => received += 1,
                Event::Shown(k) => known[k as usize] += 1,
                Event::Discard(k) => known[k as usize] = known[k as usize].checked_sub(1)?,
                // Left to rejection: the draw counts no cards set aside in a secret.
                Event::Secret(_) => return None,
                Event::Waits(true) if received == slots => at_check = Some(known),
                Event::Marker(Marker::Coin) if received == slots => no_kings = 0b1111,
                Event::Marker(Marker::King(s))
                    if received == slots && !start.rules.marker_choice =>
                {
                    no_kings |= (1 << s) - 1;
                }
                _ => {}
            }
        }
        let known = at_check?;
        let mut unseen = *rest;
        for suit in (0..4).filter(|&s| no_kings & (1 << s) != 0) {
            unseen[kind(suit, KING)] = 0;
        }
        let fill = slots - needs.len();
        (total(&known) + fill == 15).then_some((
            fill,
            ready::Hand {
                known,
                unseen,
                committed: [0; KINDS],
                copies: std::array::from_fn(|k| start.copies_in_play(k)),
                cards: 15,
                quads: start.rules.quads,
            },
        ))
    }

    /// Whether seat `q`'s hand, given the kinds of its hidden positions, shows the waits and
    /// markers the viewer saw (a quick test before the deal is replayed).
    fn hand_fits(&self, start: &Cuajo, q: usize, kinds: &[u8], chosen: &[Action]) -> bool {
        let melds = start.melds();
        let w = start.sowee as usize;
        let (mut hand, mut committed, mut extra) = ([0u8; KINDS], [0u8; KINDS], None);
        let mut next = kinds.iter();
        for e in &self.events[q] {
            match *e {
                Event::Hidden => match next.next() {
                    Some(&k) => hand[k as usize] += 1,
                    None => return false,
                },
                Event::Shown(k) => hand[k as usize] += 1,
                Event::Discard(k) => match hand[k as usize].checked_sub(1) {
                    Some(n) => hand[k as usize] = n,
                    None => return false,
                },
                Event::Secret(i) => {
                    let (k, n, x) = match chosen[i] {
                        Action::Secret(k) => (k as usize, 4, None),
                        Action::SoweeSecret(x) => (w, 3, Some(x as usize)),
                        _ => return false,
                    };
                    if hand[k] < n || x.is_some_and(|x| hand[x] == 0) {
                        return false;
                    }
                    hand[k] -= n;
                    committed[k] += n;
                    if let Some(x) = x {
                        hand[x] -= 1;
                        extra = Some(x);
                    }
                }
                Event::Waits(expected) => {
                    let mut pool = hand;
                    if let Some(x) = extra {
                        pool[x] += 1;
                    }
                    let own = add(&pool, &committed);
                    let copies = |k: usize| if k == w { 3 } else { 4 };
                    if (eval::waits(&pool, &own, copies, melds) != 0) != expected {
                        return false;
                    }
                }
                Event::Marker(m) => {
                    let king = |suit: usize| hand[kind(suit, KING)] > 0;
                    let fits = match m {
                        Marker::None => true,
                        Marker::Coin => !(0..4).any(king),
                        Marker::King(suit) => {
                            let suit = suit as usize;
                            king(suit) && (start.rules.marker_choice || !(0..suit).any(king))
                        }
                    };
                    if !fits {
                        return false;
                    }
                }
            }
        }
        true
    }
}
