//! Spoil Five: rules in docs/rules/spoil_five.md (the project's restatement of
//! shared/rules/spoil_five.md). Hands are `u64` bit sets of card ids `13·suit + rank`.

use crate::cards::{bit, ids, write_bits, Pack, FRENCH_SPOIL_FIVE};
use crate::game::{wrap, Action as ActionTrait, FirstDealer, Game, Redeal};
use crate::rng::Rng;
use crate::{config_err, parse_err, Result};
use serde::{Deserialize, Serialize};
use serde_json::{json, Value};
use std::fmt::{self, Write as _};

pub const MAX_PLAYERS: usize = 10;
const PACK: &Pack = &FRENCH_SPOIL_FIVE;
/// The ace of hearts: always a trump.
pub const ACE_OF_HEARTS: u8 = 38;
const HEARTS: u8 = 2;
const SUITS: [&str; 4] = ["C", "D", "H", "S"];

const fn card(suit: u8, rank: u8) -> u8 {
    13 * suit + rank
}
const fn suit_of(c: u8) -> u8 {
    c / 13
}
const fn rank_of(c: u8) -> u8 {
    c % 13
}
const FIVE: u8 = 3;
const JACK: u8 = 9;
const QUEEN: u8 = 10;
const KING: u8 = 11;
const ACE: u8 = 12;

// ---------------------------------------------------------------------------------------------
// Card order, computed once at compile time.

/// Trumps of suit `t`, best first, and how many there are (13 for hearts, 14 otherwise).
const fn trump_order_ids(t: u8) -> ([u8; 14], usize) {
    let mut o = [0u8; 14];
    let mut k = 0;
    o[k] = card(t, FIVE);
    k += 1;
    o[k] = card(t, JACK);
    k += 1;
    o[k] = ACE_OF_HEARTS;
    k += 1;
    if t != HEARTS {
        o[k] = card(t, ACE);
        k += 1;
    }
    o[k] = card(t, KING);
    k += 1;
    o[k] = card(t, QUEEN);
    k += 1;
    // Below the queen: highest in red, lowest in black. Ranks 2 3 4 6 7 8 9 10 = 0 1 2 4 … 8.
    let low: [u8; 8] = [0, 1, 2, 4, 5, 6, 7, 8];
    let red = t == 1 || t == 2;
    let mut i = 0;
    while i < 8 {
        o[k] = card(t, if red { low[7 - i] } else { low[i] });
        k += 1;
        i += 1;
    }
    (o, k)
}

/// `TRUMP_STRENGTH[t][c]`: larger is better, 0 when `c` is not a trump of suit `t`.
const TRUMP_STRENGTH: [[u8; 52]; 4] = {
    let mut out = [[0u8; 52]; 4];
    let mut t = 0;
    while t < 4 {
        let (order, len) = trump_order_ids(t as u8);
        let mut i = 0;
        while i < len {
            out[t][order[i] as usize] = (len - i) as u8;
            i += 1;
        }
        t += 1;
    }
    out
};

/// Plain-suit strength (larger is better): red K … 2 A, black K Q J A 2 … 10.
const PLAIN_STRENGTH: [u8; 52] = {
    let red: [u8; 13] = [11, 10, 9, 8, 7, 6, 5, 4, 3, 2, 1, 0, 12];
    let black: [u8; 13] = [11, 10, 9, 12, 0, 1, 2, 3, 4, 5, 6, 7, 8];
    let mut out = [0u8; 52];
    let mut s = 0;
    while s < 4 {
        let order = if s == 1 || s == 2 { red } else { black };
        let mut i = 0;
        while i < 13 {
            out[card(s, order[i]) as usize] = (13 - i) as u8;
            i += 1;
        }
        s += 1;
    }
    out
};

const fn suit_mask(s: u8) -> u64 {
    ((1u64 << 13) - 1) << (13 * s)
}

/// Every trump when `t` is trumps: the suit and the ace of hearts.
pub const fn trump_mask(t: u8) -> u64 {
    suit_mask(t) | bit(ACE_OF_HEARTS)
}

const fn privileged_mask(t: u8) -> u64 {
    bit(card(t, FIVE)) | bit(card(t, JACK)) | bit(ACE_OF_HEARTS)
}

pub fn is_trump(c: u8, t: u8) -> bool {
    trump_mask(t) & bit(c) != 0
}

/// The suit a card belongs to for following: trumps for every trump.
fn effective_suit(c: u8, t: u8) -> u8 {
    if is_trump(c, t) {
        t
    } else {
        suit_of(c)
    }
}

/// The trumps of suit `t`, best first.
pub fn trump_order(t: u8) -> Vec<u8> {
    let (o, len) = trump_order_ids(t);
    o[..len].to_vec()
}

/// Index into `cards` (led first) of the card that wins the trick.
pub fn trick_winner(t: u8, cards: &[u8]) -> usize {
    let led = effective_suit(cards[0], t);
    let key = |c: u8| {
        if is_trump(c, t) {
            100 + TRUMP_STRENGTH[t as usize][c as usize]
        } else if suit_of(c) == led {
            PLAIN_STRENGTH[c as usize]
        } else {
            0
        }
    };
    (0..cards.len()).max_by_key(|&i| key(cards[i])).unwrap_or(0)
}

/// Which trump the reneging privilege is judged against.
#[derive(Serialize, Deserialize, Clone, Copy, PartialEq, Eq, Debug)]
#[serde(rename_all = "snake_case")]
pub enum RenegeReference {
    LedCard,
    HighestTrumpSoFar,
}

/// The privileged trumps a player need not play to a trick in which trumps were led.
fn exempt_trumps(t: u8, trick: &[u8], reference: RenegeReference) -> u64 {
    let strength = &TRUMP_STRENGTH[t as usize];
    let against = match reference {
        RenegeReference::LedCard => trick[0],
        RenegeReference::HighestTrumpSoFar => *trick
            .iter()
            .filter(|&&c| is_trump(c, t))
            .max_by_key(|&&c| strength[c as usize])
            .unwrap_or(&trick[0]),
    };
    ids(privileged_mask(t))
        .filter(|&c| strength[c as usize] > strength[against as usize])
        .fold(0, |m, c| m | bit(c))
}

/// The cards of `hand` that may be played to `trick` (empty: leading).
pub fn legal_plays(t: u8, hand: u64, trick: &[u8], reference: RenegeReference) -> u64 {
    let Some(&led) = trick.first() else {
        return hand;
    };
    let trumps = hand & trump_mask(t);
    if is_trump(led, t) {
        if trumps & !exempt_trumps(t, trick, reference) != 0 {
            trumps
        } else {
            hand
        }
    } else {
        let follow = hand & suit_mask(suit_of(led)) & !trump_mask(t);
        if follow != 0 {
            follow | trumps
        } else {
            hand
        }
    }
}

// ---------------------------------------------------------------------------------------------
// Configuration.

#[derive(Serialize, Deserialize, Clone, PartialEq, Debug)]
#[serde(
    untagged,
    expecting = "\"none\" or a list of teams, each a list of seats"
)]
pub enum Partnerships {
    Named(String),
    Teams(Vec<Vec<u32>>),
}

#[derive(Serialize, Deserialize, Clone, Copy, PartialEq, Eq, Debug)]
#[serde(rename_all = "snake_case")]
pub enum AnteMode {
    EveryDeal,
    ReducedAfterSpoil,
    DealerOnlyAfterSpoil,
}

#[derive(Serialize, Deserialize, Clone, Copy, PartialEq, Eq, Debug)]
#[serde(rename_all = "snake_case")]
pub enum RobPolicy {
    Enforced,
    Penalty,
    Optional,
    Disabled,
}

#[derive(Serialize, Deserialize, Clone, Copy, PartialEq, Eq, Debug)]
#[serde(rename_all = "snake_case")]
pub enum RobTiming {
    AtTurn,
    BeforeFirstLead,
}

#[derive(Serialize, Deserialize, Clone, Copy, PartialEq, Eq, Debug)]
#[serde(rename_all = "snake_case")]
pub enum JinkPayment {
    PayerStake,
    JinkerStake,
}

#[derive(Serialize, Deserialize, Clone, Copy, PartialEq, Eq, Debug)]
#[serde(rename_all = "snake_case")]
pub enum TeamRemainder {
    ToPool,
}

#[derive(Serialize, Deserialize, Clone, Copy, PartialEq, Eq, Debug)]
#[serde(rename_all = "snake_case")]
pub enum LeftoverPool {
    PlayOn,
    SplitEqually,
    Unresolved,
}

#[derive(Serialize, Deserialize, Clone, PartialEq, Debug)]
#[serde(deny_unknown_fields, default)]
pub struct Config {
    pub players: u32,
    pub partnerships: Partnerships,
    pub first_dealer: FirstDealer,
    pub deal_batches: [u32; 2],
    pub ante_mode: AnteMode,
    pub base_stake: u32,
    pub dealer_stake: u32,
    pub pool_stake: u32,
    pub spoil_stake: u32,
    pub dealer_extra: u32,
    pub rob_policy: RobPolicy,
    pub rob_timing: RobTiming,
    pub renege_reference: RenegeReference,
    pub jinking: bool,
    pub jink_payment: JinkPayment,
    pub team_remainder: TeamRemainder,
    pub early_spoil_stop: bool,
    pub num_deals: Option<u32>,
    pub leftover_pool: LeftoverPool,
    pub max_extra_deals: u32,
}

impl Default for Config {
    fn default() -> Self {
        Config {
            players: 4,
            partnerships: Partnerships::Named("none".into()),
            first_dealer: FirstDealer::default(),
            deal_batches: [2, 3],
            ante_mode: AnteMode::EveryDeal,
            base_stake: 1,
            dealer_stake: 2,
            pool_stake: 2,
            spoil_stake: 1,
            dealer_extra: 1,
            rob_policy: RobPolicy::Enforced,
            rob_timing: RobTiming::AtTurn,
            renege_reference: RenegeReference::LedCard,
            jinking: true,
            jink_payment: JinkPayment::PayerStake,
            team_remainder: TeamRemainder::ToPool,
            early_spoil_stop: false,
            num_deals: None,
            leftover_pool: LeftoverPool::PlayOn,
            max_extra_deals: 10,
        }
    }
}

/// The config in the compact, `Copy` form a state carries.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
struct Rules {
    n: u8,
    first_dealer: Option<u8>,
    team_of: [u8; MAX_PLAYERS],
    team_members: [u16; MAX_PLAYERS],
    teams: u8,
    batches: [u8; 2],
    ante_mode: AnteMode,
    base_stake: i64,
    dealer_stake: i64,
    pool_stake: i64,
    spoil_stake: i64,
    dealer_extra: i64,
    rob_policy: RobPolicy,
    rob_timing: RobTiming,
    renege: RenegeReference,
    jinking: bool,
    jink_payment: JinkPayment,
    early_spoil_stop: bool,
    num_deals: u32,
    leftover: LeftoverPool,
    max_extra_deals: u32,
}

impl Rules {
    fn from_config(c: &Config) -> Rules {
        let n = c.players as u8;
        let mut team_of = [0u8; MAX_PLAYERS];
        let mut team_members = [0u16; MAX_PLAYERS];
        let teams = match &c.partnerships {
            Partnerships::Teams(ts) => {
                for (i, team) in ts.iter().enumerate() {
                    for &s in team {
                        team_of[s as usize] = i as u8;
                        team_members[i] |= 1 << s;
                    }
                }
                ts.len() as u8
            }
            Partnerships::Named(_) => {
                for s in 0..n as usize {
                    team_of[s] = s as u8;
                    team_members[s] = 1 << s;
                }
                n
            }
        };
        Rules {
            n,
            first_dealer: c.first_dealer.seat(),
            team_of,
            team_members,
            teams,
            batches: [c.deal_batches[0] as u8, c.deal_batches[1] as u8],
            ante_mode: c.ante_mode,
            base_stake: c.base_stake.into(),
            dealer_stake: c.dealer_stake.into(),
            pool_stake: c.pool_stake.into(),
            spoil_stake: c.spoil_stake.into(),
            dealer_extra: c.dealer_extra.into(),
            rob_policy: c.rob_policy,
            rob_timing: c.rob_timing,
            renege: c.renege_reference,
            jinking: c.jinking,
            jink_payment: c.jink_payment,
            early_spoil_stop: c.early_spoil_stop,
            num_deals: c.num_deals.unwrap_or(c.players),
            leftover: c.leftover_pool,
            max_extra_deals: c.max_extra_deals,
        }
    }

    fn n(&self) -> usize {
        self.n as usize
    }

    /// Seat receiving deck position `k` (< 5n) of a deal by `dealer`.
    fn recipient(&self, dealer: usize, k: usize) -> usize {
        let (n, a, b) = (self.n(), self.batches[0] as usize, self.batches[1] as usize);
        let offset = if k < a * n { k / a } else { (k - a * n) / b };
        (dealer + 1 + offset) % n
    }

    /// Money scale of the observation tensor.
    fn money_scale(&self) -> f64 {
        let top = [
            1,
            self.base_stake,
            self.dealer_stake,
            self.pool_stake + self.dealer_extra,
        ];
        (self.n() as i64 * top.into_iter().max().unwrap_or(1)) as f64
    }
}

// ---------------------------------------------------------------------------------------------
// Actions.

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Action {
    Play(u8),
    Rob(u8),
    Decline,
    Stand,
    Jink,
}

impl fmt::Display for Action {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match *self {
            Action::Play(c) => write!(f, "play {}", PACK.name_of(c)),
            Action::Rob(c) => write!(f, "rob {}", PACK.name_of(c)),
            Action::Decline => f.write_str("decline"),
            Action::Stand => f.write_str("stand"),
            Action::Jink => f.write_str("jink"),
        }
    }
}

impl ActionTrait for Action {
    const COUNT: usize = 107;

    fn index(self) -> usize {
        match self {
            Action::Play(c) => c as usize,
            Action::Rob(c) => 52 + c as usize,
            Action::Decline => 104,
            Action::Stand => 105,
            Action::Jink => 106,
        }
    }

    fn from_index(i: usize) -> Option<Self> {
        Some(match i {
            0..=51 => Action::Play(i as u8),
            52..=103 => Action::Rob(i as u8 - 52),
            104 => Action::Decline,
            105 => Action::Stand,
            106 => Action::Jink,
            _ => return None,
        })
    }

    fn parse(text: &str) -> Result<Self> {
        let words: Vec<&str> = text.split_whitespace().collect();
        let lower: Vec<String> = words.iter().map(|w| w.to_ascii_lowercase()).collect();
        match (lower.iter().map(String::as_str).collect::<Vec<_>>().as_slice(), words.as_slice()) {
            (["play", _], [_, c]) => Ok(Action::Play(PACK.parse(c)?)),
            (["rob", _], [_, c]) => Ok(Action::Rob(PACK.parse(c)?)),
            (["decline"], _) => Ok(Action::Decline),
            (["stand"], _) => Ok(Action::Stand),
            (["jink"], _) => Ok(Action::Jink),
            _ => Err(parse_err!(
                "{} is not a Spoil Five action: expected 'play <card>', 'rob <card>', 'decline', 'stand' or 'jink'",
                crate::error::quoted(text)
            )),
        }
    }
}

// ---------------------------------------------------------------------------------------------
// State.

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Phase {
    DealerRob,
    Rob,
    Play,
    Jink,
    Over,
}

impl Phase {
    fn name(self) -> &'static str {
        match self {
            Phase::DealerRob => "dealer_rob",
            Phase::Rob => "rob",
            Phase::Play => "play",
            Phase::Jink => "jink",
            Phase::Over => "over",
        }
    }
}

/// Where the turn-up card is.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum TurnUp {
    Stock,
    Dealer,
    Hand,
    Played,
}

impl TurnUp {
    fn name(self) -> &'static str {
        match self {
            TurnUp::Stock => "stock",
            TurnUp::Dealer => "dealer",
            TurnUp::Hand => "hand",
            TurnUp::Played => "played",
        }
    }
}

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Outcome {
    Win,
    JinkSuccess,
    Spoil,
    JinkFailed,
    ForfeitedWin,
}

impl Outcome {
    fn name(self) -> &'static str {
        match self {
            Outcome::Win => "win",
            Outcome::JinkSuccess => "jink_success",
            Outcome::Spoil => "spoil",
            Outcome::JinkFailed => "jink_failed",
            Outcome::ForfeitedWin => "forfeited_win",
        }
    }
}

/// Where a card the viewer has not seen may be (determinisation).
#[derive(Clone, Copy, PartialEq)]
enum Place {
    Held(usize),
    PutOut(usize),
    Stock,
}

/// What a seat knows of the current deal (determinisation): the places of the cards it has not
/// seen (other hands, put-out cards, the stock), a dealer of those cards into them (the places
/// each card may be in), and the cards each seat played from its deal.
pub struct Unseen {
    places: Vec<Place>,
    dealer: crate::sampling::Dealer,
    played: [u64; MAX_PLAYERS],
}

/// A finished deal, as everybody saw it end.
#[derive(Clone, PartialEq, Eq, Debug)]
struct DealRecord {
    dealer: u8,
    outcome: Outcome,
    winner: Option<u8>,
    tricks_won: [u8; MAX_PLAYERS],
    ineligible: u16,
}

const NO_CARD: u8 = u8::MAX;

#[derive(Clone, PartialEq, Debug)]
pub struct SpoilFive {
    rules: Rules,
    rng: Rng,
    deal: u32,
    dealer: u8,
    /// The previous deal was won (or this is the first): this deal starts a fresh pool.
    fresh_pool: bool,
    deck: [u8; 52],
    hands: [u64; MAX_PLAYERS],
    dealt: [u64; MAX_PLAYERS],
    put_out: [u8; MAX_PLAYERS],
    declined: u16,
    trump: u8,
    turn_up: u8,
    turn_up_at: TurnUp,
    robber: Option<u8>,
    /// The seat entitled to rob with the ace of trumps and not yet asked.
    rob_holder: Option<u8>,
    phase: Phase,
    to_play: u8,
    leader: u8,
    trick: [u8; MAX_PLAYERS],
    trick_len: u8,
    tricks_done: u8,
    trick_cards: [[u8; MAX_PLAYERS]; 5],
    trick_leaders: [u8; 5],
    trick_winners: [u8; 5],
    tricks_won: [u8; MAX_PLAYERS],
    team_tricks: [u8; MAX_PLAYERS],
    jinker: Option<u8>,
    pool: i64,
    balances: [i64; MAX_PLAYERS],
    antes: [i64; MAX_PLAYERS],
    past: Vec<DealRecord>,
}

impl SpoilFive {
    fn n(&self) -> usize {
        self.rules.n()
    }

    fn eldest(&self) -> u8 {
        (self.dealer + 1) % self.rules.n
    }

    fn ace_of_trumps(&self) -> u8 {
        card(self.trump, ACE)
    }

    /// Seats whose side may not win this deal (declined a rob under the penalty rule).
    fn ineligible_seats(&self) -> u16 {
        if self.rules.rob_policy != RobPolicy::Penalty {
            return 0;
        }
        (0..self.n())
            .filter(|&s| self.declined & (1 << s) != 0)
            .fold(0, |m, s| {
                m | self.rules.team_members[self.rules.team_of[s] as usize]
            })
    }

    fn side_eligible(&self, team: usize) -> bool {
        self.ineligible_seats() & self.rules.team_members[team] == 0
    }

    /// What seat `q` antes this deal, and what he would on a fresh pool (his full stake).
    fn ante(&self, q: usize, fresh: bool) -> i64 {
        let r = &self.rules;
        let dealer = q == self.dealer as usize;
        match (r.ante_mode, fresh) {
            (AnteMode::ReducedAfterSpoil, true) => {
                r.pool_stake + if dealer { r.dealer_extra } else { 0 }
            }
            (AnteMode::ReducedAfterSpoil, false) => {
                r.spoil_stake + if dealer { r.dealer_extra } else { 0 }
            }
            (AnteMode::DealerOnlyAfterSpoil, false) => {
                if dealer {
                    r.dealer_stake
                } else {
                    0
                }
            }
            _ => {
                if dealer {
                    r.dealer_stake
                } else {
                    r.base_stake
                }
            }
        }
    }

    fn start_deal(&mut self) {
        for q in 0..self.n() {
            let a = self.ante(q, self.fresh_pool);
            self.antes[q] = a;
            self.balances[q] -= a;
            self.pool += a;
        }
        let mut deck: [u8; 52] = std::array::from_fn(|i| i as u8);
        self.rng.shuffle(&mut deck);
        self.deal_cards(&deck);
    }

    /// Deals `deck` (top first) for the current deal and sets up its first decision.
    fn deal_cards(&mut self, deck: &[u8]) {
        let n = self.n();
        self.deck.copy_from_slice(deck);
        self.hands = [0; MAX_PLAYERS];
        // Batch by batch, seat by seat from the eldest (the rule of `Rules::recipient`).
        let mut cards = deck.iter();
        for batch in self.rules.batches {
            let mut seat = self.eldest() as usize;
            for _ in 0..n {
                for _ in 0..batch {
                    self.hands[seat] |= bit(*cards.next().unwrap_or(&0));
                }
                seat = if seat + 1 == n { 0 } else { seat + 1 };
            }
        }
        self.dealt = self.hands;
        self.turn_up = deck[5 * n];
        self.trump = suit_of(self.turn_up);
        self.turn_up_at = TurnUp::Stock;
        self.put_out = [NO_CARD; MAX_PLAYERS];
        self.declined = 0;
        self.robber = None;
        self.trick_len = 0;
        self.tricks_done = 0;
        self.trick_cards = [[NO_CARD; MAX_PLAYERS]; 5];
        self.trick_leaders = [NO_CARD; 5];
        self.trick_winners = [NO_CARD; 5];
        self.tricks_won = [0; MAX_PLAYERS];
        self.team_tricks = [0; MAX_PLAYERS];
        self.jinker = None;
        self.leader = self.eldest();
        let robbing = self.rules.rob_policy != RobPolicy::Disabled;
        let ace = self.ace_of_trumps();
        self.rob_holder = if robbing && self.turn_up != ace {
            (0..n)
                .find(|&s| self.hands[s] & bit(ace) != 0)
                .map(|s| s as u8)
        } else {
            None
        };
        if robbing && rank_of(self.turn_up) == ACE {
            self.phase = Phase::DealerRob;
            self.to_play = self.dealer;
        } else {
            self.begin_play();
        }
    }

    /// After the deal (and the dealer's rob): the holder's early rob, or the eldest's lead.
    fn begin_play(&mut self) {
        match self.rob_holder {
            Some(h) if self.rules.rob_timing == RobTiming::BeforeFirstLead => {
                self.phase = Phase::Rob;
                self.to_play = h;
            }
            _ => self.enter_turn(self.eldest()),
        }
    }

    /// Gives the turn to `seat`, with what happens at a first turn in trick 1.
    fn enter_turn(&mut self, seat: u8) {
        self.to_play = seat;
        self.phase = Phase::Play;
        if self.tricks_done == 0 {
            if self.turn_up_at == TurnUp::Dealer && seat == self.dealer {
                self.hands[seat as usize] |= bit(self.turn_up);
                self.turn_up_at = TurnUp::Hand;
            }
            if self.rob_holder == Some(seat) && self.rules.rob_timing == RobTiming::AtTurn {
                self.phase = Phase::Rob;
            }
        }
    }

    fn legal_mask(&self) -> u64 {
        let hand = self.hands[self.to_play as usize];
        legal_plays(
            self.trump,
            hand,
            &self.trick[..self.trick_len as usize],
            self.rules.renege,
        )
    }

    fn play(&mut self, c: u8) {
        let seat = self.to_play;
        self.hands[seat as usize] &= !bit(c);
        if c == self.turn_up && self.turn_up_at == TurnUp::Hand {
            self.turn_up_at = TurnUp::Played;
        }
        self.trick[self.trick_len as usize] = c;
        self.trick_len += 1;
        if (self.trick_len as usize) < self.n() {
            self.enter_turn((seat + 1) % self.rules.n);
        } else {
            self.finish_trick();
        }
    }

    fn finish_trick(&mut self) {
        let n = self.n();
        let w = ((self.leader as usize + trick_winner(self.trump, &self.trick[..n])) % n) as u8;
        let k = self.tricks_done as usize;
        self.trick_cards[k] = self.trick;
        self.trick_leaders[k] = self.leader;
        self.trick_winners[k] = w;
        self.tricks_done += 1;
        self.trick_len = 0;
        self.tricks_won[w as usize] += 1;
        let side = self.rules.team_of[w as usize] as usize;
        self.team_tricks[side] += 1;
        let done = self.tricks_done;
        if let Some(j) = self.jinker {
            if self.rules.team_of[j as usize] as usize != side {
                self.settle(Outcome::JinkFailed, Some(j));
            } else if done == 5 {
                self.settle(Outcome::JinkSuccess, Some(j));
            } else {
                self.next_trick(w);
            }
        } else if self.team_tricks[side] == 3 {
            if !self.side_eligible(side) {
                self.settle(Outcome::ForfeitedWin, Some(w));
            } else if self.rules.jinking && done == 3 {
                self.phase = Phase::Jink;
                self.to_play = w;
                self.leader = w;
            } else {
                self.settle(Outcome::Win, Some(w));
            }
        } else if done == 5 || (self.rules.early_spoil_stop && !self.anyone_can_win()) {
            self.settle(Outcome::Spoil, None);
        } else {
            self.next_trick(w);
        }
    }

    fn next_trick(&mut self, leader: u8) {
        self.leader = leader;
        self.enter_turn(leader);
    }

    /// Some eligible side can still reach three tricks.
    fn anyone_can_win(&self) -> bool {
        let left = 5 - self.tricks_done;
        (0..self.rules.teams as usize)
            .any(|t| self.side_eligible(t) && self.team_tricks[t] + left >= 3)
    }

    /// Pays `amount` to a side: equal shares, the remainder to the pool.
    fn credit(&mut self, team: usize, amount: i64) {
        let members = self.rules.team_members[team];
        let m = members.count_ones() as i64;
        for s in 0..self.n() {
            if members & (1 << s) != 0 {
                self.balances[s] += amount / m;
            }
        }
        self.pool += amount % m;
    }

    fn settle(&mut self, outcome: Outcome, winner: Option<u8>) {
        let won = matches!(outcome, Outcome::Win | Outcome::JinkSuccess);
        if let (true, Some(w)) = (won, winner) {
            let team = self.rules.team_of[w as usize] as usize;
            let pool = std::mem::take(&mut self.pool);
            self.credit(team, pool);
            if outcome == Outcome::JinkSuccess {
                let jinker_stake = self.ante(w as usize, true);
                let mut total = 0;
                for q in 0..self.n() {
                    if self.rules.team_of[q] as usize != team {
                        let amount = match self.rules.jink_payment {
                            JinkPayment::PayerStake => self.ante(q, true),
                            JinkPayment::JinkerStake => jinker_stake,
                        };
                        self.balances[q] -= amount;
                        total += amount;
                    }
                }
                self.credit(team, total);
            }
        }
        self.past.push(DealRecord {
            dealer: self.dealer,
            outcome,
            winner,
            tricks_won: self.tricks_won,
            ineligible: if self.rules.rob_policy == RobPolicy::Penalty {
                self.declined
            } else {
                0
            },
        });
        let played = self.deal + 1;
        let r = self.rules;
        let extra_allowed =
            r.leftover == LeftoverPool::PlayOn && played < r.num_deals + r.max_extra_deals;
        if played >= r.num_deals && (self.pool == 0 || won || !extra_allowed) {
            self.phase = Phase::Over;
            return;
        }
        self.fresh_pool = won;
        self.deal += 1;
        self.dealer = (self.dealer + 1) % r.n;
        self.start_deal();
    }

    /// The leftover pool each seat gets at the end of the match.
    fn leftover_share(&self) -> f64 {
        if self.phase == Phase::Over && self.rules.leftover != LeftoverPool::Unresolved {
            self.pool as f64 / self.n() as f64
        } else {
            0.0
        }
    }

    /// A pending rob that other seats must not see (it would show who holds the ace).
    fn rob_is_private(&self) -> bool {
        self.phase == Phase::Rob
            && matches!(
                self.rules.rob_policy,
                RobPolicy::Penalty | RobPolicy::Optional
            )
    }

    /// Phase and seat to act as `viewer` sees them.
    fn visible_turn(&self, viewer: Option<usize>) -> (Phase, Option<u8>) {
        match self.phase {
            Phase::Over => (Phase::Over, None),
            // Who holds the ace of trumps stays hidden until the rob is made (or forever, if
            // declined), so other seats never see a rob node.
            Phase::Rob if viewer.is_some_and(|v| v != self.to_play as usize) => {
                let next = match self.rules.rob_timing {
                    RobTiming::AtTurn => self.to_play,
                    RobTiming::BeforeFirstLead => self.leader,
                };
                (Phase::Play, Some(next))
            }
            p => (p, Some(self.to_play)),
        }
    }

    fn sees(viewer: Option<usize>, seat: usize) -> bool {
        viewer.is_none_or(|v| v == seat)
    }

    fn cards_json(set: u64) -> Value {
        Value::from(ids(set).map(|c| PACK.name_of(c)).collect::<Vec<_>>())
    }

    fn trick_plays(&self, leader: u8, cards: &[u8]) -> Value {
        let n = self.n();
        Value::from(
            cards
                .iter()
                .enumerate()
                .map(|(i, &c)| json!([(leader as usize + i) % n, PACK.name_of(c)]))
                .collect::<Vec<_>>(),
        )
    }

    fn per_seat<T: Into<Value>>(&self, f: impl Fn(usize) -> T) -> Value {
        Value::from((0..self.n()).map(|s| f(s).into()).collect::<Vec<Value>>())
    }

    /// The seat who played card `c` in trick `t`, if it was played there.
    fn in_play_order(&self, t: usize) -> impl Iterator<Item = (usize, u8)> + '_ {
        let n = self.n();
        let (leader, cards, len) = if t < self.tricks_done as usize {
            (self.trick_leaders[t], &self.trick_cards[t][..], n)
        } else {
            (self.leader, &self.trick[..], self.trick_len as usize)
        };
        cards[..len]
            .iter()
            .enumerate()
            .map(move |(i, &c)| (wrap(leader as usize + i, n), c))
    }

    fn deal_positions(&self, seat: usize) -> Vec<usize> {
        (0..5 * self.n())
            .filter(|&k| self.rules.recipient(self.dealer as usize, k) == seat)
            .collect()
    }
}

impl Game for SpoilFive {
    const NAME: &'static str = "spoil_five";
    const PACK: &'static Pack = PACK;
    type Config = Config;
    type Action = Action;

    fn check_config(c: &mut Config) -> Result<()> {
        if !(2..=10).contains(&c.players) {
            return Err(config_err!(
                "spoil_five: players must be 2 to 10, got {}",
                c.players
            ));
        }
        let n = c.players;
        match &c.partnerships {
            Partnerships::Named(s) if s == "none" => {}
            Partnerships::Named(s) => {
                return Err(config_err!(
                    "spoil_five: partnerships must be \"none\" or a list of teams, got {}",
                    crate::error::quoted(s)
                ))
            }
            Partnerships::Teams(teams) => {
                let mut seen = 0u32;
                for team in teams {
                    for &s in team {
                        if s >= n || seen & (1 << s) != 0 {
                            return Err(config_err!(
                                "spoil_five: partnerships must cover every seat 0..{} exactly once, got {}",
                                n - 1,
                                crate::error::quoted(&format!("{teams:?}"))
                            ));
                        }
                        seen |= 1 << s;
                    }
                }
                if seen != (1 << n) - 1 || teams.len() < 2 || teams.iter().any(|t| t.is_empty()) {
                    return Err(config_err!(
                        "spoil_five: partnerships must be at least two non-empty teams covering seats 0..{}, got {}",
                        n - 1,
                        crate::error::quoted(&format!("{teams:?}"))
                    ));
                }
            }
        }
        c.first_dealer.check(Self::NAME, n)?;
        if c.deal_batches != [2, 3] && c.deal_batches != [3, 2] {
            return Err(config_err!(
                "spoil_five: deal_batches must be [2, 3] or [3, 2], got {:?}",
                c.deal_batches
            ));
        }
        for (name, v) in [
            ("base_stake", c.base_stake),
            ("dealer_stake", c.dealer_stake),
            ("pool_stake", c.pool_stake),
            ("spoil_stake", c.spoil_stake),
            ("dealer_extra", c.dealer_extra),
            ("max_extra_deals", c.max_extra_deals),
        ] {
            if v > 1000 {
                return Err(config_err!("spoil_five: {name} must be 0 to 1000, got {v}"));
            }
        }
        let deals = c.num_deals.unwrap_or(n);
        if !(1..=1000).contains(&deals) {
            return Err(config_err!(
                "spoil_five: num_deals must be 1 to 1000, got {deals}"
            ));
        }
        c.num_deals = Some(deals);
        Ok(())
    }

    fn num_players(c: &Config) -> usize {
        c.players as usize
    }

    fn max_game_length(c: &Config) -> usize {
        let extra = if c.leftover_pool == LeftoverPool::PlayOn {
            c.max_extra_deals
        } else {
            0
        };
        (c.num_deals.unwrap_or(c.players) + extra) as usize * (5 * c.players as usize + 2)
    }

    fn observation_shape(c: &Config) -> Vec<usize> {
        vec![277 * c.players as usize + 181]
    }

    fn utility_bounds(c: &Config) -> (f64, f64) {
        // Per deal a seat pays at most its largest ante and one jink payment; it can win at most
        // what every other seat pays in, over every deal the match can have.
        let deals = (Self::max_game_length(c) / (5 * c.players as usize + 2)) as f64;
        let fresh = c.base_stake.max(c.dealer_stake);
        let ante = match c.ante_mode {
            AnteMode::EveryDeal | AnteMode::DealerOnlyAfterSpoil => fresh,
            AnteMode::ReducedAfterSpoil => c.pool_stake.max(c.spoil_stake) + c.dealer_extra,
        };
        let jink = match (c.jinking, c.ante_mode) {
            (false, _) => 0,
            (true, AnteMode::ReducedAfterSpoil) => c.pool_stake + c.dealer_extra,
            (true, _) => fresh,
        };
        let per_deal = f64::from(ante + jink);
        let others = f64::from(c.players - 1);
        // 0.0 - x, not -x: no stake at all is a range of 0.0 to 0.0, not -0.0.
        (0.0 - deals * per_deal, others * deals * per_deal)
    }

    fn new(config: &Config, mut rng: Rng) -> Self {
        let rules = Rules::from_config(config);
        let dealer = rules
            .first_dealer
            .unwrap_or_else(|| rng.below(rules.n as u64) as u8);
        let mut s = SpoilFive {
            rules,
            rng,
            deal: 0,
            dealer,
            fresh_pool: true,
            deck: [0; 52],
            hands: [0; MAX_PLAYERS],
            dealt: [0; MAX_PLAYERS],
            put_out: [NO_CARD; MAX_PLAYERS],
            declined: 0,
            trump: 0,
            turn_up: 0,
            turn_up_at: TurnUp::Stock,
            robber: None,
            rob_holder: None,
            phase: Phase::Play,
            to_play: 0,
            leader: 0,
            trick: [NO_CARD; MAX_PLAYERS],
            trick_len: 0,
            tricks_done: 0,
            trick_cards: [[NO_CARD; MAX_PLAYERS]; 5],
            trick_leaders: [NO_CARD; 5],
            trick_winners: [NO_CARD; 5],
            tricks_won: [0; MAX_PLAYERS],
            team_tricks: [0; MAX_PLAYERS],
            jinker: None,
            pool: 0,
            balances: [0; MAX_PLAYERS],
            antes: [0; MAX_PLAYERS],
            past: Vec::new(),
        };
        s.start_deal();
        s
    }

    fn deal_index(&self) -> usize {
        self.deal as usize
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

    fn cards_drawn(&self, _deal: usize) -> usize {
        // The hands and the turn-up; the rest of the stock is never used.
        5 * self.n() + 1
    }

    fn current_player(&self) -> Option<usize> {
        (self.phase != Phase::Over).then_some(self.to_play as usize)
    }

    fn legal_actions(&self, out: &mut Vec<Action>) {
        let seat = self.to_play as usize;
        match self.phase {
            Phase::DealerRob | Phase::Rob => {
                out.extend(ids(self.hands[seat]).map(Action::Rob));
                if matches!(
                    self.rules.rob_policy,
                    RobPolicy::Penalty | RobPolicy::Optional
                ) {
                    out.push(Action::Decline);
                }
            }
            Phase::Play => out.extend(ids(self.legal_mask()).map(Action::Play)),
            Phase::Jink => out.extend([Action::Stand, Action::Jink]),
            Phase::Over => {}
        }
    }

    fn illegal_reason(&self, action: Action) -> Option<String> {
        self.why_illegal(action)
    }

    /// `view(Some(seat))` field by field, in its order (the fields fixed by the config left out).
    fn sees_same(&self, o: &Self, seat: usize) -> bool {
        let n = self.n();
        let (phase, to_play) = self.visible_turn(Some(seat));
        let done = self.tricks_done as usize;
        let current = self.trick_len as usize;
        let bit = |set: u16| set >> seat & 1;
        (phase, to_play) == o.visible_turn(Some(seat))
            && (
                self.deal,
                self.dealer,
                self.trump,
                self.turn_up,
                self.turn_up_at,
            ) == (o.deal, o.dealer, o.trump, o.turn_up, o.turn_up_at)
            && self.robber == o.robber
            && self.hands[seat] == o.hands[seat]
            && (0..n).all(|s| self.hands[s].count_ones() == o.hands[s].count_ones())
            && self.put_out[seat] == o.put_out[seat]
            && bit(self.declined) == bit(o.declined)
            && done == o.tricks_done as usize
            && self.trick_leaders[..done] == o.trick_leaders[..done]
            && self.trick_winners[..done] == o.trick_winners[..done]
            && (0..done).all(|t| self.trick_cards[t][..n] == o.trick_cards[t][..n])
            && (matches!(phase, Phase::Jink | Phase::Over)
                || (self.leader == o.leader
                    && self.trick[..current] == o.trick[..o.trick_len as usize]))
            && self.tricks_won[..n] == o.tricks_won[..n]
            && (self.jinker, self.pool) == (o.jinker, o.pool)
            && self.balances[..n] == o.balances[..n]
            && self.antes[..n] == o.antes[..n]
            && self.past == o.past
    }

    fn is_legal(&self, action: Action) -> bool {
        let hand = self.hands[self.to_play as usize];
        let offer = matches!(
            self.rules.rob_policy,
            RobPolicy::Penalty | RobPolicy::Optional
        );
        match (self.phase, action) {
            (Phase::DealerRob | Phase::Rob, Action::Rob(c)) => hand & bit(c) != 0,
            (Phase::DealerRob | Phase::Rob, Action::Decline) => offer,
            (Phase::Play, Action::Play(c)) => self.legal_mask() & bit(c) != 0,
            (Phase::Jink, Action::Stand | Action::Jink) => true,
            _ => false,
        }
    }

    fn apply_unchecked(&mut self, action: Action) {
        let seat = self.to_play as usize;
        match (self.phase, action) {
            (Phase::Play, Action::Play(c)) => self.play(c),
            (Phase::DealerRob, Action::Rob(c)) => {
                self.hands[seat] &= !bit(c);
                self.put_out[seat] = c;
                self.robber = Some(seat as u8);
                self.turn_up_at = TurnUp::Dealer;
                self.begin_play();
            }
            (Phase::DealerRob, _) => {
                self.declined |= 1 << seat;
                self.begin_play();
            }
            (Phase::Rob, a) => {
                if let Action::Rob(c) = a {
                    self.hands[seat] = (self.hands[seat] & !bit(c)) | bit(self.turn_up);
                    self.put_out[seat] = c;
                    self.robber = Some(seat as u8);
                    self.turn_up_at = TurnUp::Hand;
                } else {
                    self.declined |= 1 << seat;
                }
                self.rob_holder = None;
                match self.rules.rob_timing {
                    RobTiming::AtTurn => self.phase = Phase::Play,
                    RobTiming::BeforeFirstLead => self.enter_turn(self.eldest()),
                }
            }
            (Phase::Jink, Action::Stand) => self.settle(Outcome::Win, Some(seat as u8)),
            (Phase::Jink, _) => {
                self.jinker = Some(seat as u8);
                self.next_trick(seat as u8);
            }
            _ => unreachable!("apply_unchecked of an illegal action {action}"),
        }
    }

    fn returns(&self, out: &mut [f64]) {
        let share = self.leftover_share();
        for (s, r) in out.iter_mut().enumerate() {
            *r = self.balances[s] as f64 + share;
        }
    }

    fn view(&self, viewer: Option<usize>) -> Value {
        let n = self.n();
        let (phase, to_play) = self.visible_turn(viewer);
        let teams: Vec<Vec<usize>> = (0..self.rules.teams as usize)
            .map(|t| {
                (0..n)
                    .filter(|&s| self.rules.team_members[t] & (1 << s) != 0)
                    .collect()
            })
            .collect();
        let tricks: Vec<Value> = (0..self.tricks_done as usize)
            .map(|t| {
                json!({
                    "leader": self.trick_leaders[t],
                    "plays": self.trick_plays(self.trick_leaders[t], &self.trick_cards[t][..n]),
                    "winner": self.trick_winners[t],
                })
            })
            .collect();
        let current_trick = match phase {
            Phase::Jink | Phase::Over => Value::Null,
            _ => json!({
                "leader": self.leader,
                "plays": self.trick_plays(self.leader, &self.trick[..self.trick_len as usize]),
            }),
        };
        let past: Vec<Value> = self
            .past
            .iter()
            .map(|d| {
                json!({
                    "dealer": d.dealer,
                    "outcome": d.outcome.name(),
                    "winner": d.winner,
                    "tricks_won": &d.tricks_won[..n],
                    "ineligible": (0..n).map(|s| d.ineligible & (1 << s) != 0).collect::<Vec<_>>(),
                })
            })
            .collect();
        let mut m = serde_json::Map::new();
        let mut put = |k: &str, v: Value| {
            m.insert(k.to_string(), v);
        };
        put("game", Self::NAME.into());
        put("viewer", viewer.into());
        put("players", n.into());
        put("teams", json!(teams));
        put("deal", self.deal.into());
        put("dealer", self.dealer.into());
        put("phase", phase.name().into());
        put("to_play", to_play.into());
        put("trump", SUITS[self.trump as usize].into());
        put("turn_up", PACK.name_of(self.turn_up).into());
        put("turn_up_at", self.turn_up_at.name().into());
        put("robber", self.robber.into());
        put(
            "hands",
            self.per_seat(|s| {
                if Self::sees(viewer, s) {
                    Self::cards_json(self.hands[s])
                } else {
                    Value::Null
                }
            }),
        );
        put("hand_sizes", self.per_seat(|s| self.hands[s].count_ones()));
        put(
            "put_out",
            self.per_seat(|s| match self.put_out[s] {
                c if c != NO_CARD && Self::sees(viewer, s) => Value::from(PACK.name_of(c)),
                _ => Value::Null,
            }),
        );
        put(
            "declined",
            self.per_seat(|s| {
                if Self::sees(viewer, s) {
                    Value::from(self.declined & (1 << s) != 0)
                } else {
                    Value::Null
                }
            }),
        );
        put("tricks", tricks.into());
        put("current_trick", current_trick);
        put("tricks_won", self.per_seat(|s| self.tricks_won[s]));
        put("jinker", self.jinker.into());
        put("pool", self.pool.into());
        put("balances", self.per_seat(|s| self.balances[s]));
        put("antes", self.per_seat(|s| self.antes[s]));
        put("past_deals", past.into());
        Value::Object(m)
    }

    fn observe(&self, seat: usize, out: &mut [f32]) {
        let n = self.n();
        // Seats counted from the viewer (q and seat are both below n: no division needed).
        let rel = |q: usize| if q >= seat { q - seat } else { q + n - seat };
        let mut at = 0usize;
        let mut block = |size: usize| {
            let start = at;
            at += size;
            start
        };
        let (phase, to_play) = self.visible_turn(Some(seat));
        let b = block(5);
        out[b + phase as usize] = 1.0;
        let b = block(n);
        if let Some(p) = to_play {
            out[b + rel(p as usize)] = 1.0;
        }
        let b = block(n);
        out[b + rel(self.dealer as usize)] = 1.0;
        let b = block(4);
        out[b + self.trump as usize] = 1.0;
        let b = block(52);
        out[b + self.turn_up as usize] = 1.0;
        let b = block(4);
        out[b + self.turn_up_at as usize] = 1.0;
        let b = block(n + 1);
        out[b + self.robber.map_or(n, |r| rel(r as usize))] = 1.0;
        let b = block(52);
        write_bits(self.hands[seat], &mut out[b..b + 52]);
        let b = block(52);
        if self.put_out[seat] != NO_CARD {
            out[b + self.put_out[seat] as usize] = 1.0;
        }
        let b = block(260 * n);
        for t in 0..(self.tricks_done as usize + 1).min(5) {
            for (q, c) in self.in_play_order(t) {
                out[b + (t * n + rel(q)) * 52 + c as usize] = 1.0;
            }
        }
        let b = block(5 * (n + 1));
        for t in 0..5 {
            let leader = if t < self.tricks_done as usize {
                Some(self.trick_leaders[t])
            } else if t == self.tricks_done as usize && !matches!(phase, Phase::Jink | Phase::Over)
            {
                Some(self.leader)
            } else {
                None
            };
            out[b + t * (n + 1) + leader.map_or(n, |l| rel(l as usize))] = 1.0;
        }
        let b = block(6 * n);
        for q in 0..n {
            out[b + rel(q) * 6 + self.tricks_won[q] as usize] = 1.0;
        }
        let b = block(3);
        out[b + if self.jinker.is_some() {
            2
        } else if phase == Phase::Jink {
            1
        } else {
            0
        }] = 1.0;
        let b = block(n);
        if self.declined & (1 << seat) != 0 {
            out[b] = 1.0;
        }
        let scale = self.rules.money_scale();
        let deals = self.rules.num_deals as f64;
        let b = block(3);
        out[b] = (self.pool as f64 / scale) as f32;
        out[b + 1] = (self.deal as f64 / deals) as f32;
        out[b + 2] = ((self.rules.num_deals as f64 - self.deal as f64).max(0.0) / deals) as f32;
        let b = block(n);
        for q in 0..n {
            out[b + rel(q)] = (self.balances[q] as f64 / scale) as f32;
        }
        let b = block(n);
        for q in 0..n {
            out[b + rel(q)] = (self.antes[q] as f64 / scale) as f32;
        }
        debug_assert_eq!(at, out.len());
    }

    fn render(&self, viewer: Option<usize>) -> String {
        use std::fmt::Write;
        let n = self.n();
        let (phase, to_play) = self.visible_turn(viewer);
        let mut s = String::new();
        let _ = writeln!(
            s,
            "Spoil Five, deal {} of {}, dealer seat {}; trumps {} (turn-up {}, {})",
            self.deal + 1,
            self.rules.num_deals,
            self.dealer,
            SUITS[self.trump as usize],
            PACK.name_of(self.turn_up),
            self.turn_up_at.name()
        );
        let _ = writeln!(s, "pool {}", self.pool);
        for q in 0..n {
            let hand = if Self::sees(viewer, q) {
                ids(self.hands[q])
                    .map(|c| PACK.name_of(c))
                    .collect::<Vec<_>>()
                    .join(" ")
            } else {
                format!("{} cards", self.hands[q].count_ones())
            };
            let mark = if to_play == Some(q as u8) { ">" } else { " " };
            // Who robbed is public, the card put out only to him.
            let robbed = match self.put_out[q] {
                _ if self.robber != Some(q as u8) => String::new(),
                c if c != NO_CARD && Self::sees(viewer, q) => {
                    format!("  robbed, put out {}", PACK.name_of(c))
                }
                _ => "  robbed".to_string(),
            };
            let _ = writeln!(
                s,
                "{mark} seat {q}: balance {:>4}  tricks {}  hand {hand}{robbed}",
                self.balances[q], self.tricks_won[q]
            );
        }
        for t in 0..5 {
            let plays: Vec<String> = self
                .in_play_order(t)
                .map(|(q, c)| format!("{q}:{}", PACK.name_of(c)))
                .collect();
            if t < self.tricks_done as usize {
                let _ = writeln!(
                    s,
                    "trick {}: {} -> seat {}",
                    t + 1,
                    plays.join(" "),
                    self.trick_winners[t]
                );
            } else if t == self.tricks_done as usize && !plays.is_empty() {
                let _ = writeln!(s, "trick {}: {}", t + 1, plays.join(" "));
            }
        }
        match phase {
            Phase::Over => {
                let _ = write!(s, "match over");
            }
            p => {
                let _ = write!(
                    s,
                    "phase {}, seat {} to act",
                    p.name(),
                    to_play.unwrap_or(0)
                );
            }
        }
        s
    }

    fn deal_summary(&self, seat: usize) -> String {
        format!(
            "deal {} dealer {} turn-up {} antes {:?} hand {}",
            self.deal + 1,
            self.dealer,
            PACK.name_of(self.turn_up),
            &self.antes[..self.n()],
            ids(self.dealt[seat])
                .map(|c| PACK.name_of(c))
                .collect::<Vec<_>>()
                .join(" ")
        )
    }

    /// The deal's number and the seat's cards: a deal's dealer, turn-up and antes are set
    /// when it is dealt.
    fn deal_summary_key(&self, seat: usize) -> u128 {
        u128::from(self.deal) << 64 | u128::from(self.dealt[seat])
    }

    fn action_seen_by(&self, action: Action, seat: usize, out: &mut String) -> bool {
        let actor = self.to_play as usize;
        match action {
            Action::Rob(_) if actor != seat => write!(out, "seat {actor}: rob").is_ok(),
            Action::Decline if actor != seat && self.rob_is_private() => false,
            a => write!(out, "seat {actor}: {a}").is_ok(),
        }
    }

    type Known = Unseen;

    fn known(start: &Self, actions: &[Action], seat: usize) -> Option<Unseen> {
        let n = start.n();
        let t = start.trump;
        let ace = start.ace_of_trumps();
        // What the viewer learnt of every other seat: the cards it played from its deal, whether
        // it put a card out (and if it robbed as the holder, that it was dealt the ace of trumps),
        // and the cards its hand cannot hold now (it did not follow suit, or did not trump when
        // it had to).
        let mut played = [0u64; MAX_PLAYERS];
        let mut forbidden = [0u64; MAX_PLAYERS];
        let mut put_out = [false; MAX_PLAYERS];
        let mut held_ace = [false; MAX_PLAYERS];
        let mut s = start.clone();
        for &a in actions {
            let q = s.to_play as usize;
            if q != seat {
                match a {
                    Action::Play(c) => {
                        if c != s.turn_up {
                            played[q] |= bit(c);
                        }
                        if let Some(&led) = s.trick[..s.trick_len as usize].first() {
                            if is_trump(led, t) && !is_trump(c, t) {
                                let trick = &s.trick[..s.trick_len as usize];
                                forbidden[q] |=
                                    trump_mask(t) & !exempt_trumps(t, trick, s.rules.renege);
                            } else if !is_trump(led, t)
                                && !is_trump(c, t)
                                && suit_of(c) != suit_of(led)
                            {
                                forbidden[q] |= suit_mask(suit_of(led)) & !trump_mask(t);
                            }
                        }
                    }
                    Action::Rob(_) => {
                        put_out[q] = true;
                        held_ace[q] = s.phase == Phase::Rob;
                    }
                    _ => {}
                }
            }
            s.apply_unchecked(a);
        }
        // Under the enforced rule the holder of the ace of trumps robs when asked, in public:
        // once a seat's chance has passed without a rob, it was not dealt the ace.
        if start.rules.rob_policy == RobPolicy::Enforced && ace != start.turn_up {
            let asked_at_deal = start.rules.rob_timing == RobTiming::BeforeFirstLead;
            for q in (0..n).filter(|&q| q != seat && !put_out[q]) {
                let turn_passed = if asked_at_deal {
                    s.phase != Phase::Rob
                } else {
                    s.tricks_done > 0 || s.in_play_order(0).any(|(p, _)| p == q)
                };
                if turn_passed {
                    forbidden[q] |= bit(ace);
                }
            }
        }
        // The places of the cards the viewer has not seen, and where each card may be.
        let mut places: Vec<Place> = Vec::with_capacity(2 * n);
        let mut sizes: Vec<usize> = Vec::with_capacity(2 * n);
        for q in (0..n).filter(|&q| q != seat) {
            let turn_up_held = s.robber == Some(q as u8) && s.turn_up_at == TurnUp::Hand;
            places.push(Place::Held(q));
            sizes.push(s.hands[q].count_ones() as usize - usize::from(turn_up_held));
            if put_out[q] {
                places.push(Place::PutOut(q));
                sizes.push(1);
            }
        }
        places.push(Place::Stock);
        sizes.push(52 - 5 * n - 1);
        let mut seen = start.dealt[seat] | bit(start.turn_up);
        played.iter().for_each(|&p| seen |= p);
        let hidden: Vec<u8> = ids(!seen & ((1u64 << 52) - 1)).collect();
        // A holder who robbed was dealt the ace: it is in his hand or is the card he put out.
        let holder = (0..n).find(|&q| held_ace[q]);
        let fits = |c: u8, place: Place| match (place, holder) {
            (Place::Held(q), Some(h)) if c == ace => q == h && forbidden[q] & bit(c) == 0,
            (Place::PutOut(q), Some(h)) if c == ace => q == h,
            (Place::Stock, Some(_)) if c == ace => false,
            (Place::Held(q), _) => forbidden[q] & bit(c) == 0,
            _ => true,
        };
        let allowed: Vec<u32> = hidden
            .iter()
            .map(|&c| {
                (0..places.len())
                    .filter(|&p| fits(c, places[p]))
                    .fold(0u32, |m, p| m | (1 << p))
            })
            .collect();
        Some(Unseen {
            places,
            dealer: crate::sampling::Dealer::new(hidden, &allowed, sizes)?,
            played,
        })
    }

    fn resample_deal(
        known: &Unseen,
        start: &Self,
        actions: &[Action],
        seat: usize,
        rng: &mut Rng,
    ) -> Option<Redeal<Self>> {
        let n = start.n();
        let Unseen {
            places,
            dealer,
            played,
        } = known;
        let dealt = dealer.deal(rng)?;
        // Lay the deck out: the viewer's cards and the turn-up where they were, every other
        // seat's new deal in its positions, the stock after the turn-up.
        let mut deck = start.deck.to_vec();
        let mut new_dealt = *played;
        let mut new_put_out = [NO_CARD; MAX_PLAYERS];
        let mut stock = 5 * n + 1;
        for (place, cards) in places.iter().zip(&dealt) {
            for &c in cards {
                match *place {
                    Place::Held(q) => new_dealt[q] |= bit(c),
                    Place::PutOut(q) => {
                        new_dealt[q] |= bit(c);
                        new_put_out[q] = c;
                    }
                    Place::Stock => {
                        deck[stock] = c;
                        stock += 1;
                    }
                }
            }
        }
        for q in (0..n).filter(|&q| q != seat) {
            let mut cards = ids(new_dealt[q]);
            for k in start.deal_positions(q) {
                deck[k] = cards.next()?;
            }
        }
        // The same visible actions; the hidden ones follow the new cards: another robber puts
        // out its new card, and a seat that now holds the ace of trumps where the rob is private
        // declines it unseen (a true decline the viewer did not see is dropped).
        let mut s = start.clone();
        s.redeal(&deck);
        let hidden_rob = |s: &Self| s.rob_is_private() && s.to_play as usize != seat;
        let mut out = Vec::with_capacity(actions.len() + 2);
        let mut orig = start.clone();
        for &a in actions {
            let q = orig.to_play as usize;
            let skip = hidden_rob(&orig) && a == Action::Decline;
            orig.apply_unchecked(a);
            if skip {
                continue;
            }
            let a = match a {
                Action::Rob(_) if q != seat => Action::Rob(new_put_out[q]),
                a => a,
            };
            while hidden_rob(&s) && !matches!(a, Action::Rob(_)) {
                s.apply(Action::Decline).ok()?;
                out.push(Action::Decline);
            }
            s.apply(a).ok()?;
            out.push(a);
        }
        // Where the true state is not at a decision the viewer cannot see, neither is this one.
        if !hidden_rob(&orig) {
            while hidden_rob(&s) {
                s.apply(Action::Decline).ok()?;
                out.push(Action::Decline);
            }
        }
        Some((deck, out, None))
    }

    /// The rule-of-thumb player: docs/rules/spoil_five.md, "The heuristic bot".
    /// Between deals: each balance plus an equal share of the pool, which some later deal
    /// pays out.
    fn deal_value(&self, out: &mut [f64]) -> bool {
        let share = self.pool as f64 / self.n() as f64;
        for (s, v) in out.iter_mut().enumerate() {
            *v = self.balances[s] as f64 + share;
        }
        true
    }

    fn heuristic_action(&self, legal: &[Action], rng: &mut Rng) -> Action {
        heuristic::choose(self, legal, rng)
    }
}

// ---------------------------------------------------------------------------------------------
// Why an action is illegal, told to the player to act from his hand and the public table.

const SUIT_NAMES: [&str; 4] = ["clubs", "diamonds", "hearts", "spades"];

fn card_list(set: u64) -> String {
    ids(set)
        .map(|c| PACK.name_of(c))
        .collect::<Vec<_>>()
        .join(" ")
}

impl SpoilFive {
    fn rob_first(&self) -> String {
        let decline = if matches!(
            self.rules.rob_policy,
            RobPolicy::Penalty | RobPolicy::Optional
        ) {
            " or decline"
        } else {
            ""
        };
        let turn_up = PACK.name_of(self.turn_up);
        if self.phase == Phase::DealerRob {
            format!("you turned up an ace ({turn_up}): first put a card of your hand face down (rob <card>){decline}")
        } else {
            format!(
                "you hold the ace of trumps: first rob the turn-up {turn_up}, putting a card of your hand face down (rob <card>){decline}"
            )
        }
    }

    fn why_illegal(&self, action: Action) -> Option<String> {
        let seat = self.to_play as usize;
        let hand = self.hands[seat];
        let not_held = |c: u8| {
            if self.put_out[seat] == c {
                format!(
                    "you put {} face down when you robbed: it is out of play",
                    PACK.name_of(c)
                )
            } else {
                format!("you do not hold {}", PACK.name_of(c))
            }
        };
        Some(match (self.phase, action) {
            (Phase::Over, _) => return None,
            (Phase::Jink, _) => "you won the first three tricks: first decide to stand (take \
                the pool now) or jink (play on for all five tricks)"
                .into(),
            (Phase::DealerRob | Phase::Rob, Action::Rob(c) | Action::Play(c))
                if hand & bit(c) == 0 =>
            {
                not_held(c)
            }
            (Phase::DealerRob | Phase::Rob, Action::Decline) => {
                "robbing is compulsory here (rob_policy = \"enforced\"): put a card face down"
                    .into()
            }
            (Phase::DealerRob | Phase::Rob, _) => self.rob_first(),
            (Phase::Play, Action::Play(c)) if hand & bit(c) == 0 => not_held(c),
            (Phase::Play, Action::Play(_)) => {
                let &led = self.trick[..self.trick_len as usize].first()?;
                let t = self.trump;
                let trumps = hand & trump_mask(t);
                if is_trump(led, t) {
                    format!(
                        "trumps were led ({}): you must play a trump, and you hold {}",
                        PACK.name_of(led),
                        card_list(trumps)
                    )
                } else {
                    let suit = suit_of(led);
                    let follow = hand & suit_mask(suit) & !trump_mask(t);
                    let also = if trumps != 0 {
                        "; you may also play a trump"
                    } else {
                        ""
                    };
                    format!(
                        "you must follow suit: {} were led ({}) and you hold {}{also}",
                        SUIT_NAMES[suit as usize],
                        PACK.name_of(led),
                        card_list(follow)
                    )
                }
            }
            (Phase::Play, Action::Stand | Action::Jink) if !self.rules.jinking => {
                "jinking is off in this game (jinking = false)".into()
            }
            (Phase::Play, Action::Stand | Action::Jink) => "stand and jink are decided by the \
                winner of trick 3 when his side has won the first three tricks"
                .into(),
            (Phase::Play, Action::Decline) => "there is no rob to decline now".into(),
            (Phase::Play, Action::Rob(_)) => {
                if self.robber == Some(seat as u8) {
                    "you have robbed already: one rob a deal".into()
                } else if self.declined & (1 << seat) != 0 {
                    "you declined the rob this deal".into()
                } else if self.rules.rob_policy == RobPolicy::Disabled {
                    "robbing is off in this game (rob_policy = \"disabled\")".into()
                } else if self.robber.is_some() {
                    "the turn-up has been robbed already: one rob a deal".into()
                } else {
                    "only the holder of the ace of trumps robs (at his first turn in trick 1), \
                     or the dealer who turns up an ace"
                        .into()
                }
            }
        })
    }
}

// ---------------------------------------------------------------------------------------------
// The rule-of-thumb player (docs/rules/spoil_five.md, "The heuristic bot"). It reads only what
// the seat to act may know: its own hand and put-out card, the cards played, the turn-up and
// where it lies, who robbed, the public hand sizes, the tricks won, the pool and the stakes.

mod heuristic {
    use super::*;

    /// What taking the trick now is worth, against 1 for keeping a card sure to take one
    /// later. An ordinary trick is worth a little less, so the top trumps are kept for the
    /// tricks that matter and the lead is the weakest card (measured better against random
    /// seats than leading strong or spending sure winners at once) ...
    const ORDINARY: f64 = 0.8;
    /// ... and a trick that decides the pool (the side's third, an opponent's third denied,
    /// any trick of a jink) much more, so it is fought for with the best chance.
    const DECISIVE: f64 = 3.0;

    const ALL: u64 = (1 << 52) - 1;

    /// A card's raw strength, for ties: every trump above every plain card.
    fn strength(c: u8, t: u8) -> u32 {
        if is_trump(c, t) {
            100 + u32::from(TRUMP_STRENGTH[t as usize][c as usize])
        } else {
            u32::from(PLAIN_STRENGTH[c as usize])
        }
    }

    /// The cards that beat `best` in a trick led in (effective) suit `led`.
    fn beaters(t: u8, led: u8, best: u8) -> u64 {
        let trumps = trump_mask(t);
        if is_trump(best, t) {
            let s = &TRUMP_STRENGTH[t as usize];
            ids(trumps)
                .filter(|&c| s[c as usize] > s[best as usize])
                .fold(0, |m, c| m | bit(c))
        } else if suit_of(best) != led {
            // Not asked for (`best` is always a trick's winning card): an off-suit card loses.
            ALL
        } else {
            ids(suit_mask(led) & !trumps)
                .filter(|&c| PLAIN_STRENGTH[c as usize] > PLAIN_STRENGTH[best as usize])
                .fold(trumps, |m, c| m | bit(c))
        }
    }

    /// Where the seat to act knows the cards to be.
    struct Seen<'a> {
        g: &'a SpoilFive,
        me: usize,
        t: u8,
        hand: u64,
        /// Cards that may be in another seat's hand (or in the stock, or put out unseen).
        unknown: u64,
        /// Per seat: how many of its cards are unknown ...
        slots: [u32; MAX_PLAYERS],
        /// ... and the card known to be in it (the turn-up a robber took or the dealer will
        /// take), or `NO_CARD`.
        known: [u8; MAX_PLAYERS],
    }

    impl<'a> Seen<'a> {
        fn new(g: &'a SpoilFive) -> Self {
            let me = g.to_play as usize;
            let n = g.n();
            let hand = g.hands[me];
            let mut gone = hand | bit(g.turn_up);
            for k in 0..g.tricks_done as usize {
                gone |= g.trick_cards[k][..n].iter().fold(0, |m, &c| m | bit(c));
            }
            gone |= g.trick[..g.trick_len as usize]
                .iter()
                .fold(0, |m, &c| m | bit(c));
            if g.put_out[me] != NO_CARD {
                gone |= bit(g.put_out[me]);
            }
            // Under the enforced rule the holder of the ace of trumps robs when asked, in
            // public: once every chance has passed without a rob, the ace is in the stock.
            let ace = g.ace_of_trumps();
            if g.rules.rob_policy == RobPolicy::Enforced && g.robber.is_none() && ace != g.turn_up {
                let passed = match g.rules.rob_timing {
                    RobTiming::AtTurn => g.tricks_done > 0,
                    RobTiming::BeforeFirstLead => g.phase != Phase::Rob,
                };
                if passed {
                    gone |= bit(ace);
                }
            }
            let mut slots = [0u32; MAX_PLAYERS];
            let mut known = [NO_CARD; MAX_PLAYERS];
            for q in (0..n).filter(|&q| q != me) {
                // The number of cards a seat holds is public (`hand_sizes`).
                slots[q] = g.hands[q].count_ones();
            }
            match (g.turn_up_at, g.robber) {
                (TurnUp::Dealer, _) if g.dealer as usize != me => {
                    known[g.dealer as usize] = g.turn_up;
                }
                (TurnUp::Hand, Some(r)) if r as usize != me => {
                    known[r as usize] = g.turn_up;
                    slots[r as usize] -= 1;
                }
                _ => {}
            }
            Seen {
                g,
                me,
                t: g.trump,
                hand,
                unknown: ALL & !gone,
                slots,
                known,
            }
        }

        fn team(&self, q: usize) -> u8 {
            self.g.rules.team_of[q]
        }

        fn opponents(&self) -> impl Iterator<Item = usize> + '_ {
            let mine = self.team(self.me);
            (0..self.g.n()).filter(move |&q| self.team(q) != mine)
        }

        /// The chance that none of `seats` holds a card of `cards`: nil if one is known to be
        /// there, else as if their unknown cards were dealt at random from the unknown ones.
        fn none_holds(&self, cards: u64, seats: impl Iterator<Item = usize>) -> f64 {
            let mut h = 0i64;
            for q in seats {
                if self.known[q] != NO_CARD && cards & bit(self.known[q]) != 0 {
                    return 0.0;
                }
                h += i64::from(self.slots[q]);
            }
            let u = i64::from(self.unknown.count_ones());
            let k = i64::from((cards & self.unknown).count_ones());
            let mut p = 1.0;
            for i in 0..h {
                if u - k - i <= 0 {
                    return 0.0;
                }
                p *= (u - k - i) as f64 / (u - i) as f64;
            }
            p
        }

        /// The chance that `c`, led now, wins the trick: no opponent holds a better card.
        fn lead_win(&self, c: u8) -> f64 {
            self.none_holds(
                beaters(self.t, effective_suit(c, self.t), c),
                self.opponents(),
            )
        }

        /// The chance that the seat's side takes the current trick if it plays `c` to it.
        fn side_wins(&self, c: u8) -> f64 {
            let g = self.g;
            let n = g.n();
            let len = g.trick_len as usize;
            if len == 0 {
                return self.lead_win(c);
            }
            let mut cards = [0u8; MAX_PLAYERS];
            cards[..len].copy_from_slice(&g.trick[..len]);
            cards[len] = c;
            let w = trick_winner(self.t, &cards[..=len]);
            let winner = (g.leader as usize + w) % n;
            if self.team(winner) != self.team(self.me) {
                return 0.0;
            }
            // Partners who play later only help; the opponents who play later must not beat it.
            let mine = self.team(self.me);
            let later = (len + 1..n)
                .map(|i| (g.leader as usize + i) % n)
                .filter(|&q| self.team(q) != mine);
            self.none_holds(
                beaters(self.t, effective_suit(cards[0], self.t), cards[w]),
                later,
            )
        }

        /// What this trick is worth to the seat's side: its third trick (or a trick of a jink)
        /// decides the pool, and so does a trick an opposing side on two tricks may still take
        /// (spoil it); any other trick is ordinary.
        fn worth(&self) -> f64 {
            let g = self.g;
            let n = g.n();
            let mine = self.team(self.me);
            if g.jinker.is_some() || g.team_tricks[mine as usize] == 2 {
                return DECISIVE;
            }
            let len = g.trick_len as usize;
            let danger =
                |q: usize| self.team(q) != mine && g.team_tricks[self.team(q) as usize] == 2;
            let at_stake = if len == 0 {
                (0..n).any(danger)
            } else {
                // Opponents still to play, or the one winning the trick so far.
                let winning = (g.leader as usize + trick_winner(self.t, &g.trick[..len])) % n;
                danger(winning) || (len + 1..n).any(|i| danger((g.leader as usize + i) % n))
            };
            if at_stake {
                DECISIVE
            } else {
                ORDINARY
            }
        }
    }

    /// Picks among `cands` the one with the greatest `key`, then the weakest card, then at
    /// random.
    fn pick(cands: &[u8], t: u8, rng: &mut Rng, key: impl Fn(u8) -> f64) -> u8 {
        let scored: Vec<(f64, u32, u8)> =
            cands.iter().map(|&c| (key(c), strength(c, t), c)).collect();
        let best = scored.iter().map(|&(k, s, _)| (k, s)).fold(
            (f64::NEG_INFINITY, u32::MAX),
            |(bk, bs), (k, s)| {
                if k > bk || (k == bk && s < bs) {
                    (k, s)
                } else {
                    (bk, bs)
                }
            },
        );
        let ties: Vec<u8> = scored
            .iter()
            .filter(|&&(k, s, _)| (k, s) == best)
            .map(|&(_, _, c)| c)
            .collect();
        ties[rng.below(ties.len() as u64) as usize]
    }

    pub(super) fn choose(g: &SpoilFive, legal: &[Action], rng: &mut Rng) -> Action {
        let seen = Seen::new(g);
        match g.phase {
            Phase::DealerRob | Phase::Rob => rob(&seen, legal, rng),
            Phase::Jink => jink(&seen),
            Phase::Play => {
                let cards: Vec<u8> = legal
                    .iter()
                    .filter_map(|a| match *a {
                        Action::Play(c) => Some(c),
                        _ => None,
                    })
                    .collect();
                Action::Play(play(&seen, &cards, rng))
            }
            Phase::Over => legal[0],
        }
    }

    /// Rob whenever allowed: the turn-up is a trump (the dealer's, the ace), worth more than the
    /// weakest card, which is the one put out. Only under the optional rule, where declining
    /// costs nothing, decline if the turn-up would itself be the weakest card.
    fn rob(seen: &Seen, legal: &[Action], rng: &mut Rng) -> Action {
        let t = seen.t;
        let hand: Vec<u8> = ids(seen.hand).collect();
        // The weakest card: the least likely to win a trick, then the lowest.
        let out = pick(&hand, t, rng, |c| -seen.lead_win(c));
        let turn_up = seen.g.turn_up;
        let worse =
            |a: u8, b: u8| (seen.lead_win(a), strength(a, t)) < (seen.lead_win(b), strength(b, t));
        if legal.contains(&Action::Decline)
            && seen.g.rules.rob_policy == RobPolicy::Optional
            && worse(turn_up, out)
        {
            return Action::Decline;
        }
        Action::Rob(out)
    }

    /// Jink only when the two cards left are likely to take both tricks: the pool and the jink
    /// payments, times the chance that no opponent holds a card beating either, must beat the
    /// pool taken now.
    fn jink(seen: &Seen) -> Action {
        let g = seen.g;
        let t = seen.t;
        let threat = ids(seen.hand).fold(0, |m, c| m | beaters(t, effective_suit(c, t), c));
        let p = seen.none_holds(threat & !seen.hand, seen.opponents());
        let me = seen.me;
        let stakes: i64 = seen
            .opponents()
            .map(|q| match g.rules.jink_payment {
                JinkPayment::PayerStake => g.ante(q, true),
                JinkPayment::JinkerStake => g.ante(me, true),
            })
            .sum();
        let pool = g.pool as f64;
        if p * (pool + stakes as f64) > pool {
            Action::Jink
        } else {
            Action::Stand
        }
    }

    /// Every card is scored by the chance that it takes the trick for the side, times what the
    /// trick is worth, less what the card is worth kept (its chance to take a trick when led).
    /// Following, that plays the cheapest card likely to win (or, last to play, the lowest that
    /// wins), keeps the top trumps unless the trick decides the pool, reneges on a trump lead
    /// (keeps a privileged trump back) rather than waste it, and throws the least useful card
    /// when nothing can win. Leading
    /// an ordinary trick it plays the weakest card; a deciding one, the likeliest winner.
    fn play(seen: &Seen, cards: &[u8], rng: &mut Rng) -> u8 {
        let v = seen.worth();
        pick(cards, seen.t, rng, |c| {
            v * seen.side_wins(c) - seen.lead_win(c)
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn c(s: &str) -> u8 {
        PACK.parse(s).unwrap()
    }

    #[test]
    fn trump_orders_match_the_rules() {
        let names = |t: u8| {
            trump_order(t)
                .iter()
                .map(|&x| PACK.name_of(x))
                .collect::<Vec<_>>()
                .join(" ")
        };
        assert_eq!(names(2), "5H JH AH KH QH 10H 9H 8H 7H 6H 4H 3H 2H");
        assert_eq!(names(1), "5D JD AH AD KD QD 10D 9D 8D 7D 6D 4D 3D 2D");
        assert_eq!(names(0), "5C JC AH AC KC QC 2C 3C 4C 6C 7C 8C 9C 10C");
        assert_eq!(names(3), "5S JS AH AS KS QS 2S 3S 4S 6S 7S 8S 9S 10S");
    }

    const ALL_CARDS: u64 = (1 << 52) - 1;

    #[test]
    fn trumps_and_plain_suits_partition_the_pack() {
        for t in 0..4 {
            let trumps = trump_mask(t);
            let mut all = trumps;
            for s in (0..4).filter(|&s| s != t) {
                let plain = suit_mask(s) & !trumps;
                assert_eq!(all & plain, 0);
                all |= plain;
            }
            assert_eq!(all, ALL_CARDS);
        }
    }

    #[test]
    fn a_few_tricks() {
        assert_eq!(trick_winner(3, &[c("2D"), c("10D"), c("AD"), c("5D")]), 1);
        assert_eq!(trick_winner(0, &[c("KH"), c("AH"), c("QH")]), 1);
        assert_eq!(trick_winner(1, &[c("AH"), c("JD"), c("5D"), c("AD")]), 2);
    }

    #[test]
    fn reneging() {
        let hand = |cs: &[&str]| cs.iter().fold(0, |m, s| m | bit(c(s)));
        // LM-06: J♦ exempt against A♥ led, 3♦ is not.
        let legal = legal_plays(
            1,
            hand(&["JD", "3D", "KS"]),
            &[c("AH")],
            RenegeReference::LedCard,
        );
        assert_eq!(legal, hand(&["JD", "3D"]));
        // LM-17 both ways.
        let h = hand(&["JD", "KH", "QC"]);
        assert_eq!(
            legal_plays(1, h, &[c("6D"), c("5D")], RenegeReference::LedCard),
            h
        );
        assert_eq!(
            legal_plays(
                1,
                h,
                &[c("6D"), c("5D")],
                RenegeReference::HighestTrumpSoFar
            ),
            hand(&["JD"])
        );
    }

    #[test]
    fn action_strings_round_trip() {
        for i in 0..Action::COUNT {
            let a = Action::from_index(i).unwrap();
            assert_eq!(Action::parse(&a.to_string()).unwrap(), a);
            assert_eq!(Action::parse(&a.to_string().to_uppercase()).unwrap(), a);
        }
        for bad in [
            "",
            "play",
            "play 1S",
            "rob",
            "stand now",
            "jinks",
            "play AH AH",
        ] {
            assert!(Action::parse(bad).is_err(), "{bad}");
        }
    }

    // The heuristic bot.

    fn config(extra: Value) -> Config {
        let mut c: Config = serde_json::from_value(extra).unwrap();
        SpoilFive::check_config(&mut c).unwrap();
        c
    }

    /// Seat `hero`'s return from match `seed` in which it plays the heuristic and every other
    /// seat plays uniformly at random.
    fn match_return(c: &Config, seed: u64, hero: usize) -> f64 {
        let mut g = SpoilFive::new(c, Rng::new(seed));
        let mut random = Rng::new(!seed);
        let mut mine = Rng::new(seed ^ 0x5EED_5EED);
        let mut legal = Vec::with_capacity(16);
        while let Some(p) = g.current_player() {
            legal.clear();
            g.legal_actions(&mut legal);
            let a = if p == hero {
                g.heuristic_action(&legal, &mut mine)
            } else {
                legal[random.below(legal.len() as u64) as usize]
            };
            g.apply_unchecked(a);
        }
        let mut out = vec![0.0; c.players as usize];
        g.returns(&mut out);
        out[hero]
    }

    /// Duplicate play against random seats: every seed is played once with the heuristic in
    /// each seat; its mean return over the seats, per seed.
    fn per_seed(c: &Config, games: u64) -> Vec<f64> {
        let n = c.players as usize;
        (0..games)
            .map(|seed| (0..n).map(|h| match_return(c, seed, h)).sum::<f64>() / n as f64)
            .collect()
    }

    /// The heuristic's mean return per match against random seats, and the half-width of its
    /// 95% interval (1.96 standard errors of the per-seed means).
    fn versus_random(c: &Config, games: u64) -> (f64, f64) {
        let x = per_seed(c, games);
        let k = x.len() as f64;
        let mean = x.iter().sum::<f64>() / k;
        let var = x.iter().map(|v| (v - mean).powi(2)).sum::<f64>() / (k - 1.0);
        (mean, 1.96 * (var / k).sqrt())
    }

    #[test]
    fn heuristic_is_legal_deterministic_and_blind_to_hidden_cards() {
        use crate::dynamic::Tracked;
        use std::sync::Arc;
        let configs = [
            json!({}),
            json!({"players": 3, "rob_policy": "optional", "rob_timing": "before_first_lead"}),
            json!({"players": 5, "rob_policy": "penalty", "jinking": true}),
            json!({"players": 4, "partnerships": [[0, 2], [1, 3]], "renege_reference": "highest_trump_so_far"}),
            json!({"players": 2, "deal_batches": [3, 2], "jink_payment": "jinker_stake"}),
        ];
        let mut legal = Vec::new();
        let mut decisions = 0;
        for extra in configs {
            let c = Arc::new(config(extra));
            for seed in 0..20u64 {
                let mut t = Tracked::<SpoilFive>::new(c.clone(), seed, Vec::new());
                let mut random = Rng::new(seed + 1000);
                let mut step = 0u64;
                while let Some(p) = t.state().current_player() {
                    legal.clear();
                    t.state().legal_actions(&mut legal);
                    let rng = Rng::new(seed * 7919 + step);
                    let a = t.state().heuristic_action(&legal, &mut rng.clone());
                    assert!(legal.contains(&a), "{a} not legal in {:?}", legal);
                    assert_eq!(t.state().heuristic_action(&legal, &mut rng.clone()), a);
                    // Another deal the seat cannot tell from this one: the same choice.
                    if step % 3 == 0 {
                        let other = t.resample(p, seed ^ step);
                        assert_eq!(other.state().heuristic_action(&legal, &mut rng.clone()), a);
                    }
                    decisions += 1;
                    // Seat 0 plays the heuristic, the others at random.
                    let a = if p == 0 {
                        a
                    } else {
                        legal[random.below(legal.len() as u64) as usize]
                    };
                    t.apply(a).unwrap();
                    step += 1;
                }
            }
        }
        assert!(decisions > 1000);
    }

    #[test]
    fn heuristic_beats_random_quick() {
        let (mean, ci) = versus_random(&config(json!({})), 200);
        println!("spoil_five heuristic vs random, 4 players, 200 games: {mean:+.3} ± {ci:.3}");
        assert!(mean > 0.0);
    }

    #[test]
    #[ignore]
    fn heuristic_beats_random() {
        let games = 2000;
        for extra in [
            json!({}),
            json!({"players": 3}),
            json!({"players": 5}),
            json!({"rob_timing": "before_first_lead", "jinking": true}),
        ] {
            let (mean, ci) = versus_random(&config(extra.clone()), games);
            println!(
                "spoil_five heuristic vs random, {extra}, {games} games: {mean:+.3} ± {ci:.3} \
                 [{:+.3}, {:+.3}]",
                mean - ci,
                mean + ci
            );
            assert!(mean - ci > 0.0, "{extra}");
        }
    }
}
