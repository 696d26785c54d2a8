//! Cau Robat: rules in docs/rules/cau_robat.md (the project's restatement of
//! shared/rules/cau_robat.md). Cards are ids `4·rank + suit` of the Spanish 40; hands and the
//! table are bit sets, score piles ordered arrays (their tops decide robberies and payments).

use crate::cards::{bit, ids, Pack, SPANISH_40};
use crate::game::{config_options, wrap, Action as ActionTrait, FirstDealer, Game, Redeal};
use crate::rng::Rng;
use crate::{config_err, parse_err, Result};
use serde::{Deserialize, Serialize};
use serde_json::{json, Value};
use std::fmt::{self, Write as _};

const PACK: &Pack = &SPANISH_40;
pub const MAX_PLAYERS: usize = 5;
const RANKS: usize = 10;
/// The printed rank of each rank index.
pub const RANK_VALUES: [u8; RANKS] = [1, 2, 3, 4, 5, 6, 7, 10, 11, 12];

/// The number of cards in each nibble.
const SUITS: [usize; 16] = [0, 1, 1, 2, 1, 2, 2, 3, 1, 2, 2, 3, 2, 3, 3, 4];

/// `n / d` as the observation writes it (computed in f64, stored as f32), for every `n` up to
/// `N - 1`: a table instead of a division per value, with the same bits.
const fn fractions<const N: usize>(d: f64) -> [f32; N] {
    let mut t = [0.0; N];
    let mut n = 0;
    while n < N {
        t[n] = (n as f64 / d) as f32;
        n += 1;
    }
    t
}

/// Per rank, a quarter for each card of `set` of that rank: two ranks (a byte of `set`) at a
/// time, from a table.
fn quarters(set: u64, out: &mut [f32]) {
    static PAIRS: [[f32; 2]; 256] = {
        let mut t = [[0.0; 2]; 256];
        let mut x = 0;
        while x < 256 {
            t[x] = [0.25 * SUITS[x & 0xF] as f32, 0.25 * SUITS[x >> 4] as f32];
            x += 1;
        }
        t
    };
    for (i, o) in out[..RANKS].chunks_exact_mut(2).enumerate() {
        o.copy_from_slice(&PAIRS[(set >> (8 * i)) as usize & 0xFF]);
    }
}

const fn rank_of(c: u8) -> usize {
    (c / 4) as usize
}
const fn rank_cards(r: usize) -> u64 {
    0xF << (4 * r)
}
fn step(r: usize, up: bool) -> usize {
    if up {
        (r + 1) % RANKS
    } else {
        (r + RANKS - 1) % RANKS
    }
}

/// The rank indices a play of rank `r` takes from a table holding `table` (a bit set of rank
/// indices) with no piles and the default options: empty if `r` is not on the table.
pub fn table_run(table: u16, r: usize) -> u16 {
    if table & (1 << r) == 0 {
        return 0;
    }
    let mut taken = 1u16 << r;
    for up in [false, true] {
        let mut x = step(r, up);
        while taken & (1 << x) == 0 && table & (1 << x) != 0 {
            taken |= 1 << x;
            x = step(x, up);
        }
    }
    taken
}

// ---------------------------------------------------------------------------------------------
// Configuration.

config_options! {
    SequenceDirection { Both, UpOnly, DownOnly }
    RankConflict { TablePriority, Stop }
    MultiPileSameRank { All, FirstOnly }
    StackOrder { Walk, PlayedOnTop }
    ChainPenaltyPayers { ChainMembers, AllOpponents }
    LeftoverTableCards { Unclaimed, LastCapturer }
    HandTie { Void, Shared }
}

#[derive(Serialize, Deserialize, Clone, PartialEq, Debug)]
#[serde(deny_unknown_fields, default)]
pub struct Config {
    /// Also read as `num_players`, the name of rules §9 (`Game::ALIASES`).
    pub players: u32,
    pub hands_to_win: u32,
    pub first_dealer: FirstDealer,
    pub sequence_direction: SequenceDirection,
    pub rank_conflict: RankConflict,
    pub own_pile_links: bool,
    pub multi_pile_same_rank: MultiPileSameRank,
    pub direct_pile_match: bool,
    pub stack_order: StackOrder,
    pub cau_enabled: bool,
    pub chain_penalty_payers: ChainPenaltyPayers,
    pub net_bonus: bool,
    pub leftover_table_cards: LeftoverTableCards,
    pub hand_tie: HandTie,
    /// `None`: [`default_max_hands`]; `check_config` fills in the effective value.
    pub max_hands: Option<u32>,
}

impl Default for Config {
    fn default() -> Self {
        Config {
            players: 4,
            hands_to_win: 1,
            first_dealer: FirstDealer::default(),
            sequence_direction: SequenceDirection::Both,
            rank_conflict: RankConflict::TablePriority,
            own_pile_links: false,
            multi_pile_same_rank: MultiPileSameRank::All,
            direct_pile_match: false,
            stack_order: StackOrder::Walk,
            cau_enabled: true,
            chain_penalty_payers: ChainPenaltyPayers::ChainMembers,
            net_bonus: false,
            leftover_table_cards: LeftoverTableCards::Unclaimed,
            hand_tie: HandTie::Void,
            max_hands: None,
        }
    }
}

/// The largest `hands_to_win`.
pub const MAX_HANDS_TO_WIN: u32 = 1000;
/// The largest `max_hands`.
pub const MAX_MAX_HANDS: u32 = 100_000;

/// The default cap on the hands of a match: twice the most hands that can be won (each by
/// somebody) before a player reaches `hands_to_win`, so only a match with more void hands than
/// decided ones can reach it. One hand when `hands_to_win` is 1.
pub fn default_max_hands(players: u32, hands_to_win: u32) -> u32 {
    if hands_to_win == 1 {
        1
    } else {
        2 * (players * (hands_to_win - 1) + 1)
    }
}

/// The config in the compact, `Copy` form a state carries.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
struct Rules {
    n: usize,
    hands_to_win: u32,
    first_dealer: Option<u8>,
    down: bool,
    up: bool,
    stop_on_conflict: bool,
    own_pile_links: bool,
    first_pile_only: bool,
    direct_pile_match: bool,
    played_on_top: bool,
    cau_enabled: bool,
    all_opponents_pay: bool,
    net_bonus: bool,
    leftover_to_capturer: bool,
    shared_ties: bool,
    max_hands: u32,
}

impl Rules {
    fn from_config(c: &Config) -> Rules {
        Rules {
            n: c.players as usize,
            hands_to_win: c.hands_to_win,
            first_dealer: c.first_dealer.seat(),
            down: c.sequence_direction != SequenceDirection::UpOnly,
            up: c.sequence_direction != SequenceDirection::DownOnly,
            stop_on_conflict: c.rank_conflict == RankConflict::Stop,
            own_pile_links: c.own_pile_links,
            first_pile_only: c.multi_pile_same_rank == MultiPileSameRank::FirstOnly,
            direct_pile_match: c.direct_pile_match,
            played_on_top: c.stack_order == StackOrder::PlayedOnTop,
            cau_enabled: c.cau_enabled,
            all_opponents_pay: c.chain_penalty_payers == ChainPenaltyPayers::AllOpponents,
            net_bonus: c.net_bonus,
            leftover_to_capturer: c.leftover_table_cards == LeftoverTableCards::LastCapturer,
            shared_ties: c.hand_tie == HandTie::Shared,
            max_hands: match c.max_hands {
                _ if c.hands_to_win == 1 => 1,
                Some(m) => m,
                None => default_max_hands(c.players, c.hands_to_win),
            },
        }
    }

    fn table_size(&self) -> usize {
        if self.n == 5 {
            5
        } else {
            4
        }
    }

    /// Plays in a hand: every card dealt to the players.
    fn plays(&self) -> usize {
        40 - self.table_size()
    }

    /// Seat receiving hand-dealing position `i` of a deal by `dealer`.
    fn recipient(&self, dealer: usize, i: usize) -> usize {
        // From a table: two divisions by `n` per card took about 6% of a batch step.
        const OFFSETS: [[u8; 40]; MAX_PLAYERS + 1] = {
            let mut t = [[0; 40]; MAX_PLAYERS + 1];
            let mut n = 3;
            while n <= MAX_PLAYERS {
                let mut i = 0;
                while i < 40 {
                    t[n][i] = if n == 5 && i >= 30 {
                        i - 30
                    } else {
                        (i % (3 * n)) / 3
                    } as u8;
                    i += 1;
                }
                n += 1;
            }
            t
        };
        wrap(dealer + 1 + OFFSETS[self.n][i] as usize, self.n)
    }
}

// ---------------------------------------------------------------------------------------------
// Actions.

/// Play a card of rank index `0..10` (the engine picks the lowest card id of that rank).
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub struct Action(pub u8);

impl fmt::Display for Action {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "play {}", RANK_VALUES[self.0 as usize])
    }
}

impl ActionTrait for Action {
    const COUNT: usize = RANKS;

    fn index(self) -> usize {
        self.0 as usize
    }

    fn from_index(i: usize) -> Option<Self> {
        (i < RANKS).then_some(Action(i as u8))
    }

    fn parse(text: &str) -> Result<Self> {
        let words: Vec<&str> = text.split_whitespace().collect();
        match words.as_slice() {
            [verb, rank] if verb.eq_ignore_ascii_case("play") => crate::cards::decimal(rank)
                .and_then(|v| RANK_VALUES.iter().position(|&x| x as usize == v))
                .map(|r| Action(r as u8))
                .ok_or_else(|| {
                    parse_err!(
                        "{} is not a rank: expected 1-7, 10, 11 or 12",
                        crate::error::quoted(rank)
                    )
                }),
            _ => Err(parse_err!(
                "{} is not a Cau Robat action: expected 'play <rank>'",
                crate::error::quoted(text)
            )),
        }
    }
}

// ---------------------------------------------------------------------------------------------
// State.

/// What a run takes at one rank: a table card, or another player's whole pile.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Item {
    Table(u8),
    Pile(u8),
}

/// The items of one direction of a run, without allocating (at most 4 per rank).
#[derive(Clone, Copy)]
struct Items {
    buf: [Item; 4 * RANKS],
    len: usize,
}

impl Default for Items {
    fn default() -> Self {
        Items {
            buf: [Item::Table(0); 4 * RANKS],
            len: 0,
        }
    }
}

impl Items {
    fn push(&mut self, item: Item) {
        self.buf[self.len] = item;
        self.len += 1;
    }

    fn as_slice(&self) -> &[Item] {
        &self.buf[..self.len]
    }
}

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
struct LastPlay {
    seat: u8,
    card: u8,
    captured: bool,
}

#[derive(Clone, PartialEq, Eq, Debug)]
struct HandRecord {
    dealer: u8,
    pile_sizes: [u8; MAX_PLAYERS],
    winners: u8,
}

/// What a seat knows of the other players' hands (determinisation): a dealer of their held
/// cards into their hands (`others`, in order; each card into those it may be in), and every
/// hand now.
pub struct Unseen {
    others: Vec<usize>,
    dealer: crate::sampling::Dealer,
    hands: [u64; MAX_PLAYERS],
}

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
struct Pile {
    cards: [u8; 40],
    len: u8,
    /// The same cards as a set (the observation counts them by rank).
    set: u64,
}

impl Pile {
    const EMPTY: Pile = Pile {
        cards: [0; 40],
        len: 0,
        set: 0,
    };

    fn top(&self) -> Option<u8> {
        self.len.checked_sub(1).map(|i| self.cards[i as usize])
    }

    fn push(&mut self, c: u8) {
        self.cards[self.len as usize] = c;
        self.len += 1;
        self.set |= bit(c);
    }

    fn pop(&mut self) -> Option<u8> {
        let c = self.top()?;
        self.len -= 1;
        self.set &= !bit(c);
        Some(c)
    }

    fn as_slice(&self) -> &[u8] {
        &self.cards[..self.len as usize]
    }
}

#[derive(Clone, PartialEq, Debug)]
pub struct CauRobat {
    rules: Rules,
    rng: Rng,
    hand: u32,
    dealer: u8,
    deck: [u8; 40],
    hands: [u64; MAX_PLAYERS],
    table: u64,
    piles: [Pile; MAX_PLAYERS],
    chain_cards: [u8; 4],
    chain_seats: [u8; 4],
    chain_len: u8,
    last_play: Option<LastPlay>,
    last_capturer: Option<u8>,
    plays_done: u8,
    to_play: u8,
    over: bool,
    hands_won: [u32; MAX_PLAYERS],
    winners: u8,
    past: Vec<HandRecord>,
}

impl CauRobat {
    fn n(&self) -> usize {
        self.rules.n
    }

    fn table_card(&self, r: usize) -> Option<u8> {
        let t = self.table & rank_cards(r);
        (t != 0).then(|| t.trailing_zeros() as u8)
    }

    /// Per rank, the other players' piles topped by it: bit `k` for the `k`-th seat from
    /// `capturer`'s right.
    fn topped(&self, capturer: usize) -> [u8; RANKS] {
        let n = self.n();
        let mut topped = [0u8; RANKS];
        for k in 1..n {
            if let Some(c) = self.piles[wrap(capturer + k, n)].top() {
                topped[rank_of(c)] |= 1 << k;
            }
        }
        topped
    }

    /// Pushes the piles of `piles` (a [`CauRobat::topped`] entry) onto `items`, in seat order
    /// from `capturer`'s right: only the first with `first_pile_only`.
    fn push_piles(&self, mut piles: u8, capturer: usize, items: &mut Items) {
        if self.rules.first_pile_only {
            piles &= piles.wrapping_neg();
        }
        while piles != 0 {
            let q = wrap(capturer + piles.trailing_zeros() as usize, self.n());
            items.push(Item::Pile(q as u8));
            piles &= piles - 1;
        }
    }

    /// The run through rank `r` for `capturer`: the items below, then above, nearest first.
    fn collect_run(&self, r: usize, capturer: usize) -> [Items; 2] {
        // Worked out once for the whole run, not at every rank.
        let topped = self.topped(capturer);
        let own_top = self.piles[capturer].top().map(rank_of);
        let mut visited = 1u16 << r;
        let mut parts = [Items::default(); 2];
        for (up, wanted) in [(false, self.rules.down), (true, self.rules.up)] {
            if !wanted {
                continue;
            }
            let items = &mut parts[up as usize];
            let mut x = step(r, up);
            while visited & (1 << x) == 0 {
                let table = self.table_card(x);
                let piles = topped[x];
                if self.rules.stop_on_conflict && table.is_some() && piles != 0 {
                    break;
                }
                if let Some(t) = table {
                    items.push(Item::Table(t));
                } else if piles != 0 {
                    self.push_piles(piles, capturer, items);
                } else if !(self.rules.own_pile_links && own_top == Some(x)) {
                    break;
                }
                visited |= 1 << x;
                x = step(x, up);
            }
        }
        parts
    }

    /// Moves one item of a capture onto `capturer`'s pile.
    fn take(&mut self, capturer: usize, item: Item) {
        match item {
            Item::Table(c) => {
                self.table &= !bit(c);
                self.piles[capturer].push(c);
            }
            Item::Pile(q) => {
                let block = std::mem::replace(&mut self.piles[q as usize], Pile::EMPTY);
                for &c in block.as_slice() {
                    self.piles[capturer].push(c);
                }
            }
        }
    }

    /// Takes `matched` (cards already off the table, the played card last, and robbed piles
    /// standing for a table card) with the run through rank `r`, onto `capturer`'s pile.
    fn execute_capture(&mut self, r: usize, capturer: usize, matched: &[Item]) {
        let [down, up] = self.collect_run(r, capturer);
        if self.rules.played_on_top {
            down.as_slice()
                .iter()
                .rev()
                .for_each(|&i| self.take(capturer, i));
            up.as_slice().iter().for_each(|&i| self.take(capturer, i));
            matched.iter().for_each(|&i| self.take(capturer, i));
        } else {
            matched.iter().for_each(|&i| self.take(capturer, i));
            down.as_slice().iter().for_each(|&i| self.take(capturer, i));
            up.as_slice().iter().for_each(|&i| self.take(capturer, i));
        }
        self.last_capturer = Some(capturer as u8);
    }

    /// Each of `payers` (a seat bit set) pays `to` the top card of his pile, from `to`'s right.
    fn pay(&mut self, to: usize, payers: u8) {
        let n = self.n();
        for k in 1..n {
            let q = wrap(to + k, n);
            if payers & (1 << q) != 0 {
                if let Some(c) = self.piles[q].pop() {
                    self.piles[to].push(c);
                }
            }
        }
    }

    fn net_check(&mut self, capturer: usize) {
        if self.rules.net_bonus && self.table == 0 {
            let others = ((1u8 << self.n()) - 1) & !(1 << capturer);
            self.pay(capturer, others);
        }
    }

    fn settle_chain(&mut self) {
        let len = self.chain_len as usize;
        if len == 0 {
            return;
        }
        let capturer = self.chain_seats[len - 1] as usize;
        let r = rank_of(self.chain_cards[0]);
        let matched = self.chain_cards.map(Item::Table);
        self.chain_len = 0;
        self.execute_capture(r, capturer, &matched[..len]);
        let everyone = (1u8 << self.n()) - 1;
        let payers = if self.rules.all_opponents_pay {
            everyone
        } else {
            self.chain_seats[..len].iter().fold(0, |m, &s| m | 1 << s)
        } & !(1 << capturer);
        self.pay(capturer, payers);
        self.net_check(capturer);
    }

    fn play(&mut self, r: usize) {
        let seat = self.to_play as usize;
        let card = (self.hands[seat] & rank_cards(r)).trailing_zeros() as u8;
        self.hands[seat] &= !bit(card);
        let mut captured = true;
        if self.chain_len > 0 && rank_of(self.chain_cards[0]) == r {
            self.chain_cards[self.chain_len as usize] = card;
            self.chain_seats[self.chain_len as usize] = seat as u8;
            self.chain_len += 1;
            if self.chain_len == 4 {
                self.settle_chain();
            }
        } else {
            self.settle_chain();
            let on_table = self.table_card(r);
            // Piles topped by the rank, matched directly when the table has none of it.
            let direct = if self.rules.direct_pile_match && on_table.is_none() {
                self.topped(seat)[r]
            } else {
                0
            };
            match on_table {
                None if direct != 0 => {
                    // The piles stand for the table card; the played card joins the table first.
                    let mut matched = Items::default();
                    self.push_piles(direct, seat, &mut matched);
                    self.table |= bit(card);
                    matched.push(Item::Table(card));
                    self.execute_capture(r, seat, matched.as_slice());
                    self.net_check(seat);
                }
                None => {
                    self.table |= bit(card);
                    captured = false;
                }
                Some(m) => match self.last_play {
                    // A cau: the previous card captured nothing and has this rank.
                    Some(l) if self.rules.cau_enabled && !l.captured && rank_of(l.card) == r => {
                        self.table &= !bit(m);
                        self.chain_cards[..2].copy_from_slice(&[m, card]);
                        self.chain_seats[..2].copy_from_slice(&[l.seat, seat as u8]);
                        self.chain_len = 2;
                    }
                    _ => {
                        self.table |= bit(card);
                        self.execute_capture(r, seat, &[Item::Table(m), Item::Table(card)]);
                        self.net_check(seat);
                    }
                },
            }
        }
        self.last_play = Some(LastPlay {
            seat: seat as u8,
            card,
            captured,
        });
        self.plays_done += 1;
        self.to_play = wrap(seat + 1, self.n()) as u8;
        if self.plays_done as usize == self.rules.plays() {
            self.settle_chain();
            self.end_hand();
        }
    }

    fn end_hand(&mut self) {
        let n = self.n();
        if self.rules.leftover_to_capturer {
            if let Some(p) = self.last_capturer {
                for c in ids(std::mem::take(&mut self.table)) {
                    self.piles[p as usize].push(c);
                }
            }
        }
        let sizes: [u8; MAX_PLAYERS] = std::array::from_fn(|s| self.piles[s].len);
        let most = sizes[..n].iter().copied().max().unwrap_or(0);
        let best = (0..n)
            .filter(|&s| sizes[s] == most)
            .fold(0u8, |m, s| m | 1 << s);
        let winners = if best.count_ones() == 1 || self.rules.shared_ties {
            best
        } else {
            0
        };
        for s in 0..n {
            if winners & (1 << s) != 0 {
                self.hands_won[s] += 1;
            }
        }
        self.past.push(HandRecord {
            dealer: self.dealer,
            pile_sizes: sizes,
            winners,
        });
        let r = self.rules;
        let champions = (0..n)
            .filter(|&s| self.hands_won[s] >= r.hands_to_win)
            .fold(0u8, |m, s| m | 1 << s);
        if champions != 0 || self.past.len() as u32 >= r.max_hands {
            self.winners = champions;
            self.over = true;
            return;
        }
        self.hand += 1;
        self.dealer = wrap(self.dealer as usize + 1, n) as u8;
        self.start_hand();
    }

    /// A seeded deal (docs/rules/cau_robat.md, "The deal"): the pack is shuffled and the table is
    /// its first cards of distinct ranks; if a card was passed over, the cards not on the table
    /// are shuffled once more (the reshuffle after a duplicate went back). The deal's deck is the
    /// effective order: the table cards as met, then the hand cards in dealing order.
    fn start_hand(&mut self) {
        let mut shuffled: [u8; 40] = std::array::from_fn(|i| i as u8);
        self.rng.shuffle(&mut shuffled);
        let size = self.rules.table_size();
        let mut deck = [0u8; 40];
        let (mut t, mut rest) = (0, size);
        let mut ranks = 0u16;
        for &c in &shuffled {
            if t < size && ranks & (1 << rank_of(c)) == 0 {
                ranks |= 1 << rank_of(c);
                deck[t] = c;
                t += 1;
            } else {
                deck[rest] = c;
                rest += 1;
            }
        }
        if deck[..size] != shuffled[..size] {
            self.rng.shuffle(&mut deck[size..]);
        }
        self.deal_cards(&deck);
    }

    /// The table: the first cards of distinct ranks from the top; the hands: the rest in order.
    fn deal_cards(&mut self, deck: &[u8]) {
        self.deck.copy_from_slice(deck);
        self.table = 0;
        self.hands = [0; MAX_PLAYERS];
        self.piles = [Pile::EMPTY; MAX_PLAYERS];
        self.chain_len = 0;
        self.last_play = None;
        self.last_capturer = None;
        self.plays_done = 0;
        let (size, dealer) = (self.rules.table_size(), self.dealer as usize);
        let mut ranks = 0u16;
        let mut i = 0;
        for &c in deck {
            if (ranks.count_ones() as usize) < size && ranks & (1 << rank_of(c)) == 0 {
                ranks |= 1 << rank_of(c);
                self.table |= bit(c);
            } else {
                self.hands[self.rules.recipient(dealer, i)] |= bit(c);
                i += 1;
            }
        }
        self.to_play = wrap(dealer + 1, self.n()) as u8;
    }

    fn rank_json(c: u8) -> Value {
        PACK.name_of(c).into()
    }

    fn cards_json(cards: impl Iterator<Item = u8>) -> Value {
        Value::from(cards.map(|c| PACK.name_of(c)).collect::<Vec<_>>())
    }
}

// ---------------------------------------------------------------------------------------------
// The heuristic bot (docs/rules/cau_robat.md, "The heuristic bot").

/// How much the biggest rival pile counts against ours (the rest: the mean rival pile). Only
/// the most cards wins, but robbing anybody narrows the gap.
const VS_LEADER: f64 = 0.5;
/// Weight of "the next player makes his best reply" against "he plays any rank he holds".
const GREEDY_REPLY: f64 = 0.5;
/// What holding a rank that lies on the table is worth, in cards: a capture still to make
/// (tuned against random players, 4 players: 2 did better than 0, 1, 3 or 6).
const KEEP_CAPTURE: f64 = 2.0;

const ALL_CARDS: u64 = (1 << 40) - 1;

/// The chance that a hand of `h` cards drawn from `total` unseen ones holds one of `copies`.
fn holds_chance(total: usize, h: usize, copies: usize) -> f64 {
    let miss: f64 = (0..copies)
        .map(|i| total.saturating_sub(h + i) as f64 / (total - i) as f64)
        .product();
    1.0 - miss
}

impl CauRobat {
    /// A copy with only what `seat` may know: the other hands emptied (their sizes are public
    /// and passed separately), the deck and the generator cleared.
    fn public_copy(&self, seat: usize) -> CauRobat {
        let mut s = self.clone();
        for q in 0..self.n() {
            if q != seat {
                s.hands[q] = 0;
            }
        }
        s.deck = [0; 40];
        s.rng = Rng::new(0);
        s
    }

    /// The cards in sight in a public copy: the one hand it holds, the table, piles, chain.
    fn placed(&self) -> u64 {
        let mut m = self.table | self.hands.iter().fold(0, |m, h| m | h);
        for p in &self.piles[..self.n()] {
            m |= p.as_slice().iter().fold(0, |m, &c| m | bit(c));
        }
        self.chain_cards[..self.chain_len as usize]
            .iter()
            .fold(m, |m, &c| m | bit(c))
    }

    /// Plays rank `r` for the seat to act (which must hold one) without ending the hand: the
    /// last play settles the chain and the leftover cards here, so the piles stay to be read.
    fn sim_play(&mut self, r: usize) {
        let plays = self.rules.plays();
        let last = self.plays_done as usize + 1 >= plays;
        if last {
            self.plays_done = 0;
        }
        self.play(r);
        if last {
            self.settle_chain();
            if self.rules.leftover_to_capturer {
                if let Some(p) = self.last_capturer {
                    for c in ids(std::mem::take(&mut self.table)) {
                        self.piles[p as usize].push(c);
                    }
                }
            }
            self.plays_done = plays as u8;
        }
    }

    /// How well `seat` stands: his pile against the rivals' (the leader's and the mean), a
    /// pending chain counted as settled now (its last member is the likeliest taker).
    fn standing(&self, seat: usize) -> f64 {
        let settled;
        let s = if self.chain_len > 0 {
            let mut c = self.clone();
            c.settle_chain();
            settled = c;
            &settled
        } else {
            self
        };
        let n = self.n();
        let (mut most, mut sum) = (0u8, 0u32);
        for q in (0..n).filter(|&q| q != seat) {
            most = most.max(s.piles[q].len);
            sum += s.piles[q].len as u32;
        }
        let mean = sum as f64 / (n - 1) as f64;
        s.piles[seat].len as f64 - VS_LEADER * most as f64 - (1.0 - VS_LEADER) * mean
    }

    /// The expected standing of `me` after playing rank `r` and the next player's reply,
    /// guessed from the unseen cards (`sizes`: the public hand sizes before the play).
    fn value_of_play(&self, me: usize, r: usize, sizes: &[usize; MAX_PLAYERS]) -> f64 {
        let mut after = self.clone();
        after.sim_play(r);
        // Ranks still held that can capture a table card later are worth keeping.
        let keep = KEEP_CAPTURE
            * (0..RANKS)
                .filter(|&x| {
                    after.table & rank_cards(x) != 0 && after.hands[me] & rank_cards(x) != 0
                })
                .count() as f64;
        let q = after.to_play as usize;
        if after.plays_done as usize >= self.rules.plays() || sizes[q] == 0 {
            return after.standing(me) + keep;
        }
        // The unseen cards are all in the other hands: the chance that q holds a rank is
        // hypergeometric in its unseen copies.
        let unseen = ALL_CARDS & !after.placed();
        let total = unseen.count_ones() as usize;
        let h = sizes[q].min(total);
        let mut replies: Vec<(f64, f64, f64)> = Vec::with_capacity(RANKS);
        for x in 0..RANKS {
            let copies = unseen & rank_cards(x);
            let c = copies.count_ones() as usize;
            if c == 0 {
                continue;
            }
            let mut b = after.clone();
            b.hands[q] = bit(copies.trailing_zeros() as u8);
            b.sim_play(x);
            replies.push((holds_chance(total, h, c), b.standing(me), b.standing(q)));
        }
        // A player who plays any rank he holds: each rank in proportion to its chance.
        let mass: f64 = replies.iter().map(|r| r.0).sum();
        let uniform = replies.iter().map(|r| r.0 * r.1).sum::<f64>() / mass;
        // A player who makes his best reply: the best rank he holds.
        replies.sort_by(|a, b| b.2.total_cmp(&a.2));
        let (mut none_better, mut greedy, mut norm) = (1.0, 0.0, 0.0);
        for &(p, v, _) in &replies {
            greedy += none_better * p * v;
            norm += none_better * p;
            none_better *= 1.0 - p;
        }
        let greedy = greedy / norm;
        GREEDY_REPLY * greedy + (1.0 - GREEDY_REPLY) * uniform + keep
    }

    fn heuristic(&self, legal: &[Action], rng: &mut Rng) -> Action {
        if legal.len() == 1 {
            return legal[0];
        }
        let me = self.to_play as usize;
        let sizes: [usize; MAX_PLAYERS] =
            std::array::from_fn(|q| self.hands[q].count_ones() as usize);
        let public = self.public_copy(me);
        let values: Vec<f64> = legal
            .iter()
            .map(|a| public.value_of_play(me, a.0 as usize, &sizes))
            .collect();
        let best = values.iter().copied().fold(f64::NEG_INFINITY, f64::max);
        let ties: Vec<usize> = (0..legal.len())
            .filter(|&i| values[i] >= best - 1e-9)
            .collect();
        legal[ties[rng.below(ties.len() as u64) as usize]]
    }
}

impl Game for CauRobat {
    const NAME: &'static str = "cau_robat";
    // Rules §9: `seed` is the defaults; pagat's known differences (best effort).
    const PRESETS: &'static [(&'static str, &'static str)] = &[
        ("seed", "{}"),
        ("pagat", r#"{"net_bonus": true, "hands_to_win": 1}"#),
    ];
    const ALIASES: &'static [(&'static str, &'static str)] = &[("num_players", "players")];
    const PACK: &'static Pack = PACK;
    type Config = Config;
    type Action = Action;

    fn check_config(c: &mut Config) -> Result<()> {
        if !(3..=5).contains(&c.players) {
            return Err(config_err!(
                "cau_robat: players must be 3, 4 or 5, got {}",
                c.players
            ));
        }
        c.first_dealer.check(Self::NAME, c.players)?;
        if !(1..=MAX_HANDS_TO_WIN).contains(&c.hands_to_win) {
            return Err(config_err!(
                "cau_robat: hands_to_win must be 1 to {MAX_HANDS_TO_WIN}, got {}",
                c.hands_to_win
            ));
        }
        let h = c.hands_to_win;
        let cap = c
            .max_hands
            .unwrap_or_else(|| default_max_hands(c.players, h));
        if !(1..=MAX_MAX_HANDS).contains(&cap) {
            return Err(config_err!(
                "cau_robat: max_hands must be 1 to {MAX_MAX_HANDS}, got {cap}"
            ));
        }
        if cap < h {
            return Err(config_err!(
                "cau_robat: max_hands must be at least hands_to_win ({h}), or nobody could win the match; got {cap}"
            ));
        }
        // One hand is the whole match when hands_to_win is 1.
        c.max_hands = Some(if h == 1 { 1 } else { cap });
        Ok(())
    }

    fn num_players(c: &Config) -> usize {
        c.players as usize
    }

    fn max_game_length(c: &Config) -> usize {
        let r = Rules::from_config(c);
        r.plays() * r.max_hands as usize
    }

    fn observation_shape(_: &Config) -> Vec<usize> {
        vec![243]
    }

    fn utility_bounds(c: &Config) -> (f64, f64) {
        // A single winner takes +1; a loser pays 1/(n - 1), or up to all of it when n - 1
        // players share a win (only with shared ties).
        match c.hand_tie {
            HandTie::Void => (-1.0 / f64::from(c.players - 1), 1.0),
            HandTie::Shared => (-1.0, 1.0),
        }
    }

    fn new(config: &Config, mut rng: Rng) -> Self {
        let rules = Rules::from_config(config);
        let dealer = rules
            .first_dealer
            .unwrap_or_else(|| rng.below(rules.n as u64) as u8);
        let mut s = CauRobat {
            rules,
            rng,
            hand: 0,
            dealer,
            deck: [0; 40],
            hands: [0; MAX_PLAYERS],
            table: 0,
            piles: [Pile::EMPTY; MAX_PLAYERS],
            chain_cards: [0; 4],
            chain_seats: [0; 4],
            chain_len: 0,
            last_play: None,
            last_capturer: None,
            plays_done: 0,
            to_play: 0,
            over: false,
            hands_won: [0; MAX_PLAYERS],
            winners: 0,
            past: Vec::new(),
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

    fn cards_drawn(&self, _deal: usize) -> usize {
        40
    }

    /// The table is dealt first, and only ranks not yet on it (docs/rules/cau_robat.md).
    fn chance_allowed(config: &Config, drawn: &[u8], card: u8) -> bool {
        let table = if config.players == 5 { 5 } else { 4 };
        drawn.len() >= table || drawn.iter().all(|&c| rank_of(c) != rank_of(card))
    }

    fn current_player(&self) -> Option<usize> {
        (!self.over).then_some(self.to_play as usize)
    }

    fn legal_actions(&self, out: &mut Vec<Action>) {
        if self.over {
            return;
        }
        // The lowest bit of a rank's nibble set if any card of it is held: one bit per rank
        // held, walked without a branch per rank.
        let hand = self.hands[self.to_play as usize];
        let mut held = (hand | hand >> 1 | hand >> 2 | hand >> 3) & 0x11_1111_1111;
        out.reserve(RANKS);
        while held != 0 {
            out.push(Action((held.trailing_zeros() / 4) as u8));
            held &= held - 1;
        }
    }

    fn is_legal(&self, action: Action) -> bool {
        !self.over && self.hands[self.to_play as usize] & rank_cards(action.0 as usize) != 0
    }

    /// `view(Some(seat))` field by field, in its order (the fields fixed by the config left out).
    fn sees_same(&self, o: &Self, seat: usize) -> bool {
        let n = self.n();
        let chain = self.chain_len as usize;
        (self.hand, self.dealer, self.over, self.current_player())
            == (o.hand, o.dealer, o.over, o.current_player())
            && self.hands[seat] == o.hands[seat]
            && (0..n).all(|s| self.hands[s].count_ones() == o.hands[s].count_ones())
            && self.table == o.table
            && (0..n).all(|s| self.piles[s].as_slice() == o.piles[s].as_slice())
            && chain == o.chain_len as usize
            && self.chain_cards[..chain] == o.chain_cards[..chain]
            && self.chain_seats[..chain] == o.chain_seats[..chain]
            && (self.last_play, self.last_capturer) == (o.last_play, o.last_capturer)
            && self.hands_won[..n] == o.hands_won[..n]
            && self.past == o.past
            && (!self.over || self.winners == o.winners)
    }

    fn illegal_reason(&self, action: Action) -> Option<String> {
        if self.over {
            return None;
        }
        let hand = self.hands[self.to_play as usize];
        let held: Vec<String> = (0..RANKS)
            .filter(|&r| hand & rank_cards(r) != 0)
            .map(|r| RANK_VALUES[r].to_string())
            .collect();
        Some(format!(
            "you hold no card of rank {}; your ranks: {}",
            RANK_VALUES[action.0 as usize],
            held.join(" ")
        ))
    }

    fn apply_unchecked(&mut self, action: Action) {
        self.play(action.0 as usize);
    }

    fn returns(&self, out: &mut [f64]) {
        out.fill(0.0);
        let (n, k) = (self.n(), self.winners.count_ones() as usize);
        if !self.over || k == 0 || k == n {
            return;
        }
        for (s, r) in out.iter_mut().enumerate() {
            *r = if self.winners & (1 << s) != 0 {
                1.0 / k as f64
            } else {
                -1.0 / (n - k) as f64
            };
        }
    }

    fn view(&self, viewer: Option<usize>) -> Value {
        let n = self.n();
        let seats = |f: &dyn Fn(usize) -> Value| Value::from((0..n).map(f).collect::<Vec<_>>());
        let chain = if self.chain_len == 0 {
            Value::Null
        } else {
            let len = self.chain_len as usize;
            json!({
                "rank": RANK_VALUES[rank_of(self.chain_cards[0])],
                "cards": Self::cards_json(self.chain_cards[..len].iter().copied()),
                "seats": &self.chain_seats[..len],
            })
        };
        let past: Vec<Value> = self
            .past
            .iter()
            .map(|h| {
                json!({
                    "dealer": h.dealer,
                    "pile_sizes": &h.pile_sizes[..n],
                    "winners": (0..n).filter(|&s| h.winners & (1 << s) != 0).collect::<Vec<_>>(),
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
        put("hand", self.hand.into());
        put("dealer", self.dealer.into());
        put("phase", if self.over { "over" } else { "play" }.into());
        put("to_play", self.current_player().into());
        put(
            "hands",
            seats(&|s| {
                if viewer.is_none_or(|v| v == s) {
                    Self::cards_json(ids(self.hands[s]))
                } else {
                    Value::Null
                }
            }),
        );
        put("hand_sizes", seats(&|s| self.hands[s].count_ones().into()));
        put("table", Self::cards_json(ids(self.table)));
        put(
            "piles",
            seats(&|s| Self::cards_json(self.piles[s].as_slice().iter().copied())),
        );
        put("chain", chain);
        put(
            "last_play",
            self.last_play.map_or(Value::Null, |l| {
                json!({"seat": l.seat, "card": Self::rank_json(l.card), "captured": l.captured})
            }),
        );
        put("last_capturer", self.last_capturer.into());
        put("hands_won", seats(&|s| self.hands_won[s].into()));
        put("past_hands", past.into());
        put(
            "winners",
            if self.over {
                json!((0..n)
                    .filter(|&s| self.winners & (1 << s) != 0)
                    .collect::<Vec<_>>())
            } else {
                Value::Null
            },
        );
        Value::Object(m)
    }

    fn observe(&self, seat: usize, out: &mut [f32]) {
        const PER_40: [f32; 41] = fractions(40.0);
        const PER_12: [f32; 41] = fractions(12.0);
        const PER_36: [f32; 41] = fractions(36.0);
        // Where each block starts (docs/rules/cau_robat.md, "Observation tensor").
        const PHASE: usize = 0;
        const TO_PLAY: usize = PHASE + 2;
        const HAND: usize = TO_PLAY + 5;
        const TABLE: usize = HAND + 50;
        const PILES: usize = TABLE + 10;
        const HAND_SIZES: usize = PILES + 110;
        const CHAIN: usize = HAND_SIZES + 5;
        const LAST_PLAY: usize = CHAIN + 23;
        const DEALER: usize = LAST_PLAY + 16;
        const WON: usize = DEALER + 6;
        const UNSEEN: usize = WON + 6;
        let out: &mut [f32; UNSEEN + RANKS] = out.try_into().expect("243 floats");
        let n = self.n();
        // Seats counted from the viewer (q and seat are both below n: no division needed).
        let rel = |q: usize| wrap(q + n - seat, n);
        out[PHASE + self.over as usize] = 1.0;
        if let Some(p) = self.current_player() {
            out[TO_PLAY + rel(p)] = 1.0;
        }
        let hand = self.hands[seat];
        // Two ranks (a byte of the hand) at a time, from a table of their two one-hot counts.
        static COUNTS: [[f32; 10]; 256] = {
            let mut t = [[0.0; 10]; 256];
            let mut x = 0;
            while x < 256 {
                t[x][SUITS[x & 0xF]] = 1.0;
                t[x][5 + SUITS[x >> 4]] = 1.0;
                x += 1;
            }
            t
        };
        for (i, o) in out[HAND..HAND + 5 * RANKS].chunks_exact_mut(10).enumerate() {
            o.copy_from_slice(&COUNTS[(hand >> (8 * i)) as usize & 0xFF]);
        }
        for c in ids(self.table) {
            out[TABLE + rank_of(c)] = 1.0;
        }
        // Every seat's blocks in one pass; `won / hands_to_win` to f32 (a unit test checks the
        // product gives the quotient's bits).
        let per_win = 1.0 / self.rules.hands_to_win as f64;
        // Selects rather than branches: which piles are empty and where the viewer sits vary
        // from one env to the next (a batch step took about 3% less).
        let mut held = 0;
        for q in 0..n {
            let r = rel(q);
            let pile = &self.piles[q];
            let o = PILES + r * 22;
            let len = pile.len as usize;
            out[o] = PER_40[len];
            let top = rank_of(pile.cards[len.saturating_sub(1)]);
            out[o + 1 + if len == 0 { RANKS } else { top }] = 1.0;
            quarters(pile.set, &mut out[o + 12..o + 22]);
            out[HAND_SIZES + r] = PER_12[self.hands[q].count_ones() as usize];
            out[WON + r] = (self.hands_won[q] as f64 * per_win) as f32;
            held |= self.hands[q];
        }
        // The only cards the viewer cannot see anywhere: the other hands.
        let unseen = held & !hand;
        if self.chain_len > 0 {
            let len = self.chain_len as usize;
            out[CHAIN] = 1.0;
            out[CHAIN + 1 + rank_of(self.chain_cards[0])] = 1.0;
            out[CHAIN + 11 + (len - 2)] = 1.0;
            for &s in &self.chain_seats[..len] {
                out[CHAIN + 13 + rel(s as usize)] = 1.0;
            }
            out[CHAIN + 18 + rel(self.chain_seats[len - 1] as usize)] = 1.0;
        }
        if let Some(l) = self.last_play {
            out[LAST_PLAY + rel(l.seat as usize)] = 1.0;
            out[LAST_PLAY + 5 + rank_of(l.card)] = 1.0;
            out[LAST_PLAY + 15] = l.captured as u8 as f32;
        }
        out[DEALER + rel(self.dealer as usize)] = 1.0;
        out[DEALER + 5] = PER_36[self.plays_done as usize];
        out[WON + 5] = (self.rules.hands_to_win as f64 / 100.0) as f32;
        quarters(unseen, &mut out[UNSEEN..]);
    }

    fn render(&self, viewer: Option<usize>) -> String {
        use std::fmt::Write;
        let names = |cards: &mut dyn Iterator<Item = u8>| {
            cards.map(|c| PACK.name_of(c)).collect::<Vec<_>>().join(" ")
        };
        let mut s = String::new();
        let _ = writeln!(
            s,
            "Cau Robat, hand {}, dealer seat {}",
            self.hand + 1,
            self.dealer
        );
        let _ = writeln!(s, "table: {}", names(&mut ids(self.table)));
        if self.chain_len > 0 {
            let len = self.chain_len as usize;
            let _ = writeln!(
                s,
                "chain of {}: {} by seats {:?}",
                RANK_VALUES[rank_of(self.chain_cards[0])],
                names(&mut self.chain_cards[..len].iter().copied()),
                &self.chain_seats[..len]
            );
        }
        for q in 0..self.n() {
            let mark = if self.current_player() == Some(q) {
                ">"
            } else {
                " "
            };
            let hand = if viewer.is_none_or(|v| v == q) {
                names(&mut ids(self.hands[q]))
            } else {
                format!("{} cards", self.hands[q].count_ones())
            };
            let top = self.piles[q]
                .top()
                .map_or("-".to_string(), |c| PACK.name_of(c));
            let _ = writeln!(
                s,
                "{mark} seat {q}: pile {} (top {top}), hands won {}, hand {hand}",
                self.piles[q].len, self.hands_won[q]
            );
        }
        let _ = write!(s, "{}", if self.over { "match over" } else { "play" });
        s
    }

    fn deal_summary(&self, seat: usize) -> String {
        let mut dealt: Vec<u8> = Vec::new();
        let mut i = 0;
        let size = self.rules.table_size();
        let mut ranks = 0u16;
        for &c in &self.deck {
            if (ranks.count_ones() as usize) < size && ranks & (1 << rank_of(c)) == 0 {
                ranks |= 1 << rank_of(c);
            } else {
                if self.rules.recipient(self.dealer as usize, i) == seat {
                    dealt.push(c);
                }
                i += 1;
            }
        }
        dealt.sort_unstable();
        let names = |cards: &mut dyn Iterator<Item = u8>| {
            cards.map(|c| PACK.name_of(c)).collect::<Vec<_>>().join(" ")
        };
        // The table as dealt, face up: the first cards of distinct ranks of the deck.
        let table = self.deck.iter().fold((0u64, 0u16), |(t, r), &c| {
            if (r.count_ones() as usize) < size && r & (1 << rank_of(c)) == 0 {
                (t | bit(c), r | 1 << rank_of(c))
            } else {
                (t, r)
            }
        });
        format!(
            "hand {} dealer {} table {} dealt {}",
            self.hand + 1,
            self.dealer,
            names(&mut ids(table.0)),
            names(&mut dealt.iter().copied())
        )
    }

    /// The hand's number: its dealer and deck are set when it starts.
    fn deal_summary_key(&self, _seat: usize) -> u128 {
        u128::from(self.hand)
    }

    fn action_seen_by(&self, action: Action, _seat: usize, out: &mut String) -> bool {
        let card = (self.hands[self.to_play as usize] & rank_cards(action.0 as usize))
            .trailing_zeros() as u8;
        write!(out, "seat {}: play {}", self.to_play, PACK.name_of(card)).is_ok()
    }

    /// Between hands: the hands won above the seats' mean, over `hands_to_win`.
    fn deal_value(&self, out: &mut [f64]) -> bool {
        let n = self.n();
        let mean = self.hands_won[..n].iter().sum::<u32>() as f64 / n as f64;
        for (s, v) in out.iter_mut().enumerate() {
            *v = (self.hands_won[s] as f64 - mean) / self.rules.hands_to_win as f64;
        }
        true
    }

    fn heuristic_action(&self, legal: &[Action], rng: &mut Rng) -> Action {
        self.heuristic(legal, rng)
    }

    type Known = Unseen;

    fn known(start: &Self, actions: &[Action], seat: usize) -> Option<Unseen> {
        let n = start.n();
        // A player who played a card of some rank held no lower card id of that rank then.
        let mut forbidden = [0u64; MAX_PLAYERS];
        let mut s = start.clone();
        for &a in actions {
            let q = s.to_play as usize;
            let r = a.0 as usize;
            let card = (s.hands[q] & rank_cards(r)).trailing_zeros() as u8;
            forbidden[q] |= rank_cards(r) & (bit(card) - 1);
            s.apply_unchecked(a);
        }
        // The other players' held cards, and the hands each may be in.
        let others: Vec<usize> = (0..n).filter(|&q| q != seat).collect();
        let cards: Vec<u8> = others.iter().flat_map(|&q| ids(s.hands[q])).collect();
        let allowed: Vec<u32> = cards
            .iter()
            .map(|&c| {
                (0..others.len())
                    .filter(|&p| forbidden[others[p]] & bit(c) == 0)
                    .fold(0, |m, p| m | (1 << p))
            })
            .collect();
        let sizes: Vec<usize> = others
            .iter()
            .map(|&q| s.hands[q].count_ones() as usize)
            .collect();
        Some(Unseen {
            others,
            dealer: crate::sampling::Dealer::new(cards, &allowed, sizes)?,
            hands: s.hands,
        })
    }

    fn resample_deal(
        known: &Unseen,
        start: &Self,
        actions: &[Action],
        seat: usize,
        rng: &mut Rng,
    ) -> Option<Redeal<Self>> {
        let Unseen {
            others,
            dealer,
            hands,
        } = known;
        // Deal the other players' held cards again, uniformly among the deals that keep every
        // card out of the hands it cannot be in.
        let dealt = dealer.deal(rng)?;
        // The deck in canonical form: the table first, then the hand-dealing sequence, where
        // each held card of another seat takes the place of one that seat still holds.
        let mut new_cards: [Vec<u8>; MAX_PLAYERS] = Default::default();
        for (&q, hand) in others.iter().zip(dealt) {
            new_cards[q] = hand;
        }
        let mut deck: Vec<u8> = ids(start.table).collect();
        let size = start.rules.table_size();
        let mut ranks = 0u16;
        let mut i = 0;
        for &c in &start.deck {
            if (ranks.count_ones() as usize) < size && ranks & (1 << rank_of(c)) == 0 {
                ranks |= 1 << rank_of(c);
                continue;
            }
            let q = start.rules.recipient(start.dealer as usize, i);
            i += 1;
            deck.push(if q != seat && hands[q] & bit(c) != 0 {
                new_cards[q].pop()?
            } else {
                c
            });
        }
        Some((deck, actions.to_vec(), None))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ranks(values: &[u8]) -> u16 {
        values.iter().fold(0, |m, v| {
            m | 1 << RANK_VALUES.iter().position(|x| x == v).unwrap()
        })
    }

    /// The observation's fraction of hands won, `(won as f64 * (1 / h)) as f32`, is the
    /// quotient's `(won as f64 / h) as f32` for every `hands_to_win` and every count.
    #[test]
    fn won_fractions_are_quotients() {
        for h in 1..=MAX_HANDS_TO_WIN {
            let per = 1.0 / h as f64;
            for won in 0..=h {
                assert_eq!((won as f64 * per) as f32, (won as f64 / h as f64) as f32);
            }
        }
    }

    #[test]
    fn table_runs() {
        // C3: table 3 4 6 7 10 11, play 11 -> 11 10 7 6.
        assert_eq!(
            table_run(ranks(&[3, 4, 6, 7, 10, 11]), 8),
            ranks(&[6, 7, 10, 11])
        );
        // C4: play 5 -> nothing (no 5 on the table).
        assert_eq!(table_run(ranks(&[3, 4, 6, 7, 10, 11]), 4), 0);
        // C15: every rank -> everything.
        assert_eq!(table_run(0x3FF, 4), 0x3FF);
        // C9: 1 2 6 12, play 1 -> 12 1 2.
        assert_eq!(table_run(ranks(&[1, 2, 6, 12]), 0), ranks(&[1, 2, 12]));
    }

    #[test]
    fn max_hands_defaults_and_limits() {
        let checked = |players, hands_to_win, max_hands| {
            let mut c = Config {
                players,
                hands_to_win,
                max_hands,
                ..Config::default()
            };
            CauRobat::check_config(&mut c).map(|_| c.max_hands)
        };
        assert_eq!(checked(4, 1, None).unwrap(), Some(1));
        assert_eq!(checked(4, 1, Some(9)).unwrap(), Some(1));
        assert_eq!(checked(4, 30, None).unwrap(), Some(234));
        assert_eq!(checked(5, 1000, None).unwrap(), Some(9992));
        assert_eq!(checked(3, 5, Some(5)).unwrap(), Some(5));
        assert!(checked(4, 5, Some(4)).is_err());
        assert!(checked(4, 1001, None).is_err());
        assert!(checked(4, 2, Some(MAX_MAX_HANDS + 1)).is_err());
    }

    #[test]
    fn seeded_deal_records_its_effective_deck() {
        for players in 3..=5 {
            let config = Config {
                players,
                ..Config::default()
            };
            let size = Rules::from_config(&config).table_size();
            for seed in 0..50 {
                let s = CauRobat::new(&config, Rng::new(seed));
                let table: Vec<u8> = ids(s.table).collect();
                let mut top = s.deck[..size].to_vec();
                top.sort_unstable();
                assert_eq!(top, table, "the table first");
                let mut again = s.clone();
                again.redeal(&s.deck.clone());
                assert_eq!(again, s);
                assert!(s.deal_summary(0).contains(&format!(
                    "table {}",
                    table
                        .iter()
                        .map(|&c| PACK.name_of(c))
                        .collect::<Vec<_>>()
                        .join(" ")
                )));
            }
        }
    }

    #[test]
    fn action_strings_round_trip() {
        for i in 0..Action::COUNT {
            let a = Action::from_index(i).unwrap();
            assert_eq!(Action::parse(&a.to_string()).unwrap(), a);
        }
        for bad in [
            "", "play", "play 8", "play 0", "play 13", "play 7o", "take 7",
        ] {
            assert!(Action::parse(bad).is_err(), "{bad}");
        }
    }

    /// Plays one game from `seed` with the heuristic (knobs `k`) at `hero` and uniform random
    /// players elsewhere; the hero's return.
    fn heuristic_game(config: &Config, seed: u64, hero: usize) -> f64 {
        let mut s = CauRobat::new(config, Rng::new(seed));
        let mut rng = Rng::new(seed ^ 0x5EED_CAFE);
        let mut legal = Vec::new();
        while let Some(p) = s.current_player() {
            legal.clear();
            s.legal_actions(&mut legal);
            let a = if p == hero {
                s.heuristic_action(&legal, &mut rng)
            } else {
                legal[rng.below(legal.len() as u64) as usize]
            };
            s.apply_unchecked(a);
        }
        let mut out = vec![0.0; config.players as usize];
        s.returns(&mut out);
        out[hero]
    }

    /// The heuristic's mean return over `seeds` deals, each played with the heuristic at every
    /// seat in turn (duplicate), and the 95% half-width over the per-deal means.
    fn duplicate_mean(config: &Config, seeds: u64) -> (f64, f64) {
        let n = config.players as usize;
        let means: Vec<f64> = (0..seeds)
            .map(|seed| (0..n).map(|h| heuristic_game(config, seed, h)).sum::<f64>() / n as f64)
            .collect();
        let m = means.iter().sum::<f64>() / seeds as f64;
        let var = means.iter().map(|x| (x - m).powi(2)).sum::<f64>() / (seeds - 1) as f64;
        (m, 1.96 * var.sqrt() / (seeds as f64).sqrt())
    }

    fn config_from(value: Value) -> Config {
        let mut c: Config = serde_json::from_value(value).unwrap();
        CauRobat::check_config(&mut c).unwrap();
        c
    }

    fn config_for(players: u32) -> Config {
        config_from(json!({ "players": players }))
    }

    #[test]
    fn heuristic_beats_random_quickly() {
        let (m, ci) = duplicate_mean(&config_for(4), 50);
        println!("cau_robat heuristic vs random, 4 players, 200 games: {m:.3} ± {ci:.3}");
        assert!(m > 0.0, "mean {m}");
    }

    #[test]
    #[ignore]
    fn heuristic_beats_random() {
        let seeds = 2000;
        for players in [4, 3, 5] {
            let (m, ci) = duplicate_mean(&config_for(players), seeds);
            println!(
                "cau_robat heuristic vs random, {players} players, {seeds} deals x {players} seats: \
                 mean {m:.3} ± {ci:.3} [{:.3}, {:.3}]",
                m - ci,
                m + ci
            );
            assert!(m - ci > 0.0, "{players} players: {m} ± {ci}");
        }
    }

    #[test]
    fn heuristic_is_legal_deterministic_and_blind() {
        let configs = [
            json!({"players": 3}),
            json!({"players": 4}),
            json!({"players": 5}),
            json!({"players": 4, "hands_to_win": 2, "net_bonus": true,
                   "leftover_table_cards": "last_capturer"}),
            json!({"players": 3, "direct_pile_match": true, "multi_pile_same_rank": "first_only",
                   "own_pile_links": true, "stack_order": "played_on_top"}),
            json!({"players": 5, "cau_enabled": false, "sequence_direction": "up_only",
                   "chain_penalty_payers": "all_opponents", "rank_conflict": "stop"}),
        ];
        for config in configs.map(config_from) {
            for seed in 0..10 {
                let mut s = CauRobat::new(&config, Rng::new(seed));
                let mut rng = Rng::new(seed + 1000);
                let mut legal = Vec::new();
                while let Some(p) = s.current_player() {
                    legal.clear();
                    s.legal_actions(&mut legal);
                    let mut r1 = Rng::new(seed * 77 + s.plays_done as u64);
                    let mut r2 = r1;
                    let a = s.heuristic_action(&legal, &mut r1);
                    assert!(legal.contains(&a));
                    assert_eq!(a, s.heuristic_action(&legal, &mut r2));
                    assert_eq!(r1, r2);
                    // The other hands dealt again among their seats (same sizes): same choice.
                    let mut other = s.clone();
                    let mut held: Vec<u8> = (0..s.n())
                        .filter(|&q| q != p)
                        .flat_map(|q| ids(s.hands[q]))
                        .collect();
                    rng.shuffle(&mut held);
                    for q in (0..s.n()).filter(|&q| q != p) {
                        let size = s.hands[q].count_ones() as usize;
                        other.hands[q] = held.drain(..size).fold(0, |m, c| m | bit(c));
                    }
                    let mut r3 = Rng::new(seed * 77 + s.plays_done as u64);
                    assert_eq!(a, other.heuristic_action(&legal, &mut r3));
                    let b = if rng.below(2) == 0 {
                        a
                    } else {
                        legal[rng.below(legal.len() as u64) as usize]
                    };
                    s.apply_unchecked(b);
                }
            }
        }
    }
}
