//! Cicera: rules in docs/rules/cicera.md (the project's restatement of shared/rules/cicera.md).
//! Card sets are `u64` bit sets of ids `13·suit + rank` (suits S H D C, ranks A … K); captures
//! are found by subset sums over bit sets.

use crate::cards::{bit, ids, write_bits, Pack, FRENCH_CICERA};
use crate::game::{Action as ActionTrait, FirstDealer, Game, Redeal};
use crate::rng::Rng;
use crate::{config_err, parse_err, Result};
use serde::{Deserialize, Serialize};
use serde_json::{json, Value};
use std::fmt::{self, Write as _};

const PACK: &Pack = &FRENCH_CICERA;
const SEATS: usize = 4;
const SPADES: u64 = (1 << 13) - 1;
const TWO_OF_SPADES: u8 = 1;
const TEN_OF_DIAMONDS: u8 = 35;
const JACK_OF_HEARTS: u8 = 23;
/// Sums above ten never matter: masks of reachable sums keep bits 0 … 10.
const SUMS: u16 = 0x7FF;

const fn rank_of(c: u8) -> u8 {
    c % 13
}
const fn suit_of(c: u8) -> u8 {
    c / 13
}
/// Capture value of a numeral (A = 1 … 10 = 10); 0 for a court.
const fn value(c: u8) -> u8 {
    if rank_of(c) <= 9 {
        rank_of(c) + 1
    } else {
        0
    }
}

/// Every numeral card.
const NUMERALS: u64 = {
    let mut m = 0u64;
    let mut c = 0;
    while c < 52 {
        if value(c) > 0 {
            m |= 1 << c;
        }
        c += 1;
    }
    m
};

/// The cards of one rank.
const fn rank_mask(rank: u8) -> u64 {
    let mut m = 0u64;
    let mut s = 0;
    while s < 4 {
        m |= 1 << (13 * s + rank);
        s += 1;
    }
    m
}

/// Bit `s` set when some subset of the numerals in `set` adds up to `s` (s <= 10).
fn reachable_sums(set: u64) -> u16 {
    ids(set & NUMERALS).fold(1u16, |r, c| (r | (r << value(c))) & SUMS)
}

fn table_court_of(table: u64, c: u8) -> u64 {
    table & rank_mask(rank_of(c)) & !NUMERALS
}

/// Whether card `c` has at least one capture on `table`.
fn can_capture(table: u64, c: u8, sums: u16) -> bool {
    match value(c) {
        0 => table_court_of(table, c) != 0,
        v => sums >> v & 1 != 0,
    }
}

/// Every capture set of `c` on `table`, each a bit set, in canonical (lexicographic) order.
/// `single_only`: the Scopa priority (a numeral takes only single equal cards when it can).
pub fn captures(table: u64, c: u8, single_only: bool) -> Vec<u64> {
    let v = value(c);
    if v == 0 {
        return ids(table_court_of(table, c)).map(bit).collect();
    }
    if single_only {
        let singles = table & rank_mask(rank_of(c));
        if singles != 0 {
            return ids(singles).map(bit).collect();
        }
    }
    // Suffix masks of reachable sums, then a depth-first search that only enters branches that
    // can still be completed: no dead ends, output already in canonical order.
    let numerals: Vec<u8> = ids(table & NUMERALS).collect();
    let mut suffix = vec![1u16; numerals.len() + 1];
    for i in (0..numerals.len()).rev() {
        suffix[i] = (suffix[i + 1] | (suffix[i + 1] << value(numerals[i]))) & SUMS;
    }
    let mut out = Vec::new();
    if suffix[0] >> v & 1 == 0 {
        return out;
    }
    fn search(numerals: &[u8], suffix: &[u16], from: usize, rem: u8, set: u64, out: &mut Vec<u64>) {
        if rem == 0 {
            out.push(set);
            return;
        }
        for j in from..numerals.len() {
            let x = value(numerals[j]);
            if x <= rem && suffix[j + 1] >> (rem - x) & 1 != 0 {
                search(
                    numerals,
                    suffix,
                    j + 1,
                    rem - x,
                    set | bit(numerals[j]),
                    out,
                );
            }
        }
    }
    search(&numerals, &suffix, 0, v, 0, &mut out);
    out
}

// ---------------------------------------------------------------------------------------------
// Scoring.

/// End-of-hand points of one category for both teams.
#[derive(Clone, Copy, PartialEq, Eq, Debug, Default)]
pub struct HandPoints {
    pub cards: [i32; 2],
    pub spades: [i32; 2],
    pub two_of_spades: [i32; 2],
    pub napola: [i32; 2],
    pub ten_of_diamonds: [i32; 2],
    pub jack_of_hearts: [i32; 2],
    pub bonus: [i32; 2],
}

impl HandPoints {
    pub fn total(&self) -> [i32; 2] {
        let rows = [
            self.cards,
            self.spades,
            self.two_of_spades,
            self.napola,
            self.ten_of_diamonds,
            self.jack_of_hearts,
            self.bonus,
        ];
        [0, 1].map(|t| rows.iter().map(|r| r[t]).sum())
    }

    pub fn to_json(self, with_bonus: bool) -> Value {
        let mut m = serde_json::Map::new();
        m.insert("cards".into(), json!(self.cards));
        m.insert("spades".into(), json!(self.spades));
        m.insert("two_of_spades".into(), json!(self.two_of_spades));
        m.insert("napola".into(), json!(self.napola));
        m.insert("ten_of_diamonds".into(), json!(self.ten_of_diamonds));
        m.insert("jack_of_hearts".into(), json!(self.jack_of_hearts));
        if with_bonus {
            m.insert("bonus".into(), json!(self.bonus));
        }
        m.insert("total".into(), json!(self.total()));
        Value::Object(m)
    }
}

/// The scoring options of a hand.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub struct Scoring {
    pub cards_tie_one_each: bool,
    pub spades_majority_points: i32,
    pub napola_courts_extend: bool,
}

impl Default for Scoring {
    fn default() -> Self {
        Scoring {
            cards_tie_one_each: false,
            spades_majority_points: 1,
            napola_courts_extend: true,
        }
    }
}

/// The end-of-hand categories for two piles (no bonus).
pub fn score_piles(piles: [u64; 2], options: Scoring) -> HandPoints {
    let mut p = HandPoints::default();
    let count = piles.map(|x| x.count_ones());
    let spades = piles.map(|x| (x & SPADES).count_ones());
    for t in 0..2 {
        let o = 1 - t;
        if count[t] > count[o] {
            p.cards[t] = 2;
        } else if count[t] == count[o] && options.cards_tie_one_each && count[t] > 0 {
            p.cards[t] = 1;
        }
        if spades[t] > spades[o] {
            p.spades[t] = options.spades_majority_points;
        }
        let has = |c: u8| piles[t] & bit(c) != 0;
        p.two_of_spades[t] = has(TWO_OF_SPADES) as i32;
        p.ten_of_diamonds[t] = has(TEN_OF_DIAMONDS) as i32;
        p.jack_of_hearts[t] = has(JACK_OF_HEARTS) as i32;
        // The unbroken run of spades from the ace, if it reaches the three.
        let run = (!(piles[t] & SPADES)).trailing_zeros().min(13) as i32;
        let run = if options.napola_courts_extend {
            run
        } else {
            run.min(10)
        };
        p.napola[t] = if run >= 3 { run } else { 0 };
    }
    p
}

// ---------------------------------------------------------------------------------------------
// Configuration.

#[derive(Serialize, Deserialize, Clone, Copy, PartialEq, Eq, Debug)]
#[serde(rename_all = "snake_case")]
pub enum DealStyle {
    OneAtATime,
    Packets,
}

#[derive(Serialize, Deserialize, Clone, Copy, PartialEq, Eq, Debug)]
#[serde(rename_all = "snake_case")]
pub enum LeftBonusMode {
    Any,
    RankMatch,
}

#[derive(Serialize, Deserialize, Clone, Copy, PartialEq, Eq, Debug)]
#[serde(rename_all = "snake_case")]
pub enum CardsTie {
    None,
    OneEach,
}

#[derive(Serialize, Deserialize, Clone, Copy, PartialEq, Eq, Debug)]
#[serde(rename_all = "snake_case")]
pub enum LeftoverIfNoCapture {
    Nobody,
    DealerTeam,
}

#[derive(Serialize, Deserialize, Clone, Copy, PartialEq, Eq, Debug)]
#[serde(rename_all = "snake_case")]
pub enum GameMode {
    Match,
    SingleHand,
}

#[derive(Serialize, Deserialize, Clone, PartialEq, Debug)]
#[serde(deny_unknown_fields, default)]
pub struct Config {
    pub target_score: u32,
    pub packet_size: u32,
    pub deal_style: DealStyle,
    pub first_dealer: FirstDealer,
    pub force_single_match: bool,
    pub capture_compulsory: bool,
    pub left_bonus_mode: LeftBonusMode,
    pub sweep_on_last_play_counts: bool,
    pub bonus_sweep: bool,
    pub bonus_left: bool,
    pub bonus_single_suit: bool,
    pub bonus_three_plus: bool,
    pub cards_tie: CardsTie,
    pub spades_majority_points: u32,
    pub napola_courts_extend: bool,
    pub all_spades_wins_match: bool,
    pub leftover_if_no_capture: LeftoverIfNoCapture,
    pub game_mode: GameMode,
    pub max_hands: u32,
    pub auto_complete_unique: bool,
}

impl Default for Config {
    fn default() -> Self {
        Config {
            target_score: 51,
            packet_size: 12,
            deal_style: DealStyle::OneAtATime,
            first_dealer: FirstDealer::default(),
            force_single_match: false,
            capture_compulsory: false,
            left_bonus_mode: LeftBonusMode::Any,
            sweep_on_last_play_counts: true,
            bonus_sweep: true,
            bonus_left: true,
            bonus_single_suit: true,
            bonus_three_plus: true,
            cards_tie: CardsTie::None,
            spades_majority_points: 1,
            napola_courts_extend: true,
            all_spades_wins_match: false,
            leftover_if_no_capture: LeftoverIfNoCapture::Nobody,
            game_mode: GameMode::Match,
            max_hands: 100,
            auto_complete_unique: false,
        }
    }
}

/// The config in the compact, `Copy` form a state carries.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
struct Rules {
    target: i32,
    packet: u8,
    deal_style: DealStyle,
    first_dealer: Option<u8>,
    force_single_match: bool,
    capture_compulsory: bool,
    left_bonus_mode: LeftBonusMode,
    sweep_on_last_play_counts: bool,
    bonus: [bool; 4],
    scoring: Scoring,
    all_spades_wins_match: bool,
    leftover_to_dealer: bool,
    single_hand: bool,
    max_hands: u32,
    auto_complete_unique: bool,
}

impl Rules {
    fn from_config(c: &Config) -> Rules {
        Rules {
            target: c.target_score as i32,
            packet: c.packet_size as u8,
            deal_style: c.deal_style,
            first_dealer: c.first_dealer.seat(),
            force_single_match: c.force_single_match,
            capture_compulsory: c.capture_compulsory,
            left_bonus_mode: c.left_bonus_mode,
            sweep_on_last_play_counts: c.sweep_on_last_play_counts,
            bonus: [
                c.bonus_sweep,
                c.bonus_left,
                c.bonus_single_suit,
                c.bonus_three_plus,
            ],
            scoring: Scoring {
                cards_tie_one_each: c.cards_tie == CardsTie::OneEach,
                spades_majority_points: c.spades_majority_points as i32,
                napola_courts_extend: c.napola_courts_extend,
            },
            all_spades_wins_match: c.all_spades_wins_match,
            leftover_to_dealer: c.leftover_if_no_capture == LeftoverIfNoCapture::DealerTeam,
            single_hand: c.game_mode == GameMode::SingleHand,
            max_hands: if c.game_mode == GameMode::SingleHand {
                1
            } else {
                c.max_hands
            },
            auto_complete_unique: c.auto_complete_unique,
        }
    }
}

// ---------------------------------------------------------------------------------------------
// Actions.

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Action {
    /// Trail the card.
    Play(u8),
    /// Play the card to capture.
    Capture(u8),
    /// Add a table card to the capture being made.
    Take(u8),
}

impl fmt::Display for Action {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match *self {
            Action::Play(c) => write!(f, "play {}", PACK.name_of(c)),
            Action::Capture(c) => write!(f, "capture {}", PACK.name_of(c)),
            Action::Take(c) => write!(f, "take {}", PACK.name_of(c)),
        }
    }
}

impl ActionTrait for Action {
    const COUNT: usize = 156;

    fn index(self) -> usize {
        match self {
            Action::Play(c) => c as usize,
            Action::Capture(c) => 52 + c as usize,
            Action::Take(c) => 104 + c as usize,
        }
    }

    fn from_index(i: usize) -> Option<Self> {
        Some(match i {
            0..=51 => Action::Play(i as u8),
            52..=103 => Action::Capture(i as u8 - 52),
            104..=155 => Action::Take(i as u8 - 104),
            _ => return None,
        })
    }

    fn parse(text: &str) -> Result<Self> {
        let words: Vec<&str> = text.split_whitespace().collect();
        let bad = || {
            parse_err!("{} is not a Cicera action: expected 'play <card>', 'capture <card>' or 'take <card>'", crate::error::quoted(text))
        };
        let [verb, card] = words.as_slice() else {
            return Err(bad());
        };
        let make = match verb.to_ascii_lowercase().as_str() {
            "play" => Action::Play,
            "capture" => Action::Capture,
            "take" => Action::Take,
            _ => return Err(bad()),
        };
        Ok(make(PACK.parse(card)?))
    }
}

// ---------------------------------------------------------------------------------------------
// State.

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Phase {
    Play,
    Capture,
    Over,
}

#[derive(Clone, PartialEq, Eq, Debug)]
struct HandRecord {
    dealer: u8,
    points: HandPoints,
    scores: [i32; 2],
}

const NO_CARD: u8 = u8::MAX;
const PLAYS: usize = 48;

/// Which bonuses (sweep, left, single suit, three or more) capturing `set` with `c` on `table`
/// earns, before the `bonus_*` switches; `last_trail` is the card trailed on the turn before.
fn earned_bonuses(
    r: &Rules,
    c: u8,
    set: u64,
    table: u64,
    last_trail: u8,
    last_play: bool,
) -> [bool; 4] {
    let left = last_trail != NO_CARD
        && match r.left_bonus_mode {
            LeftBonusMode::Any => set & bit(last_trail) != 0,
            LeftBonusMode::RankMatch => set == bit(last_trail),
        };
    [
        set == table && (r.sweep_on_last_play_counts || !last_play),
        left,
        ids(set).all(|t| suit_of(t) == suit_of(c)),
        set.count_ones() >= 3,
    ]
}

#[derive(Clone, PartialEq, Debug)]
pub struct Cicera {
    rules: Rules,
    rng: Rng,
    hand: u32,
    dealer: u8,
    deck: [u8; 52],
    /// Deck positions dealt so far this hand (players and table).
    dealt_upto: u8,
    hands: [u64; SEATS],
    dealt: [u64; SEATS],
    first_table: u64,
    table: u64,
    last_trail: u8,
    pending: u8,
    taken: u64,
    piles: [u64; 2],
    bonus: [i32; 2],
    last_capturer: u8,
    /// This hand's turns: the card played and what it captured (0: a trail).
    play_cards: [u8; PLAYS],
    play_captures: [u64; PLAYS],
    plays_done: u8,
    phase: Phase,
    to_play: u8,
    scores: [i32; 2],
    winner: Option<u8>,
    past: Vec<HandRecord>,
}

fn team(seat: usize) -> usize {
    seat % 2
}

impl Cicera {
    fn eldest(&self) -> u8 {
        (self.dealer + 1) % 4
    }

    /// Seat receiving the `i`-th card of a packet (players' cards only).
    fn recipient(&self, i: usize) -> usize {
        let step = match self.rules.deal_style {
            DealStyle::OneAtATime => i % 4,
            DealStyle::Packets => i / self.rules.packet as usize,
        };
        (self.dealer as usize + 1 + step) % 4
    }

    /// Deals the next packet from the deck (and the table, with the first packet).
    fn deal_packet(&mut self) {
        let start = self.dealt_upto as usize;
        let size = 4 * self.rules.packet as usize;
        for i in 0..size {
            let seat = self.recipient(i);
            self.hands[seat] |= bit(self.deck[start + i]);
            self.dealt[seat] |= bit(self.deck[start + i]);
        }
        self.dealt_upto += size as u8;
        if start == 0 {
            for &c in &self.deck[size..size + 4] {
                self.table |= bit(c);
            }
            self.first_table = self.table;
            self.dealt_upto += 4;
        }
        self.to_play = self.eldest();
        self.phase = Phase::Play;
    }

    fn deal_cards(&mut self, deck: &[u8]) {
        self.deck.copy_from_slice(deck);
        self.dealt_upto = 0;
        self.hands = [0; SEATS];
        self.dealt = [0; SEATS];
        self.table = 0;
        self.last_trail = NO_CARD;
        self.pending = NO_CARD;
        self.taken = 0;
        self.piles = [0; 2];
        self.bonus = [0; 2];
        self.last_capturer = NO_CARD;
        self.plays_done = 0;
        self.deal_packet();
    }

    fn start_hand(&mut self) {
        let mut deck: [u8; 52] = std::array::from_fn(|i| i as u8);
        self.rng.shuffle(&mut deck);
        self.deal_cards(&deck);
    }

    fn record_play(&mut self, card: u8, captured: u64) {
        self.play_cards[self.plays_done as usize] = card;
        self.play_captures[self.plays_done as usize] = captured;
        self.plays_done += 1;
    }

    fn end_turn(&mut self) {
        let next = (self.to_play + 1) % 4;
        if self.hands.iter().any(|&h| h != 0) {
            self.to_play = next;
        } else if (self.dealt_upto as usize) < 52 {
            self.deal_packet();
        } else {
            self.end_hand();
        }
    }

    /// Resolves the capture of `taken` with `pending`, with its bonus points.
    fn resolve_capture(&mut self) {
        let (c, set, seat) = (self.pending, self.taken, self.to_play as usize);
        let r = self.rules;
        let last_play = self.plays_done as usize == PLAYS - 1;
        let earned = earned_bonuses(&r, c, set, self.table, self.last_trail, last_play);
        self.bonus[team(seat)] += (0..4).filter(|&i| r.bonus[i] && earned[i]).count() as i32;
        self.table &= !set;
        self.piles[team(seat)] |= set | bit(c);
        self.last_capturer = seat as u8;
        self.last_trail = NO_CARD;
        self.pending = NO_CARD;
        self.taken = 0;
        self.phase = Phase::Play;
        self.record_play(c, set);
        self.end_turn();
    }

    fn end_hand(&mut self) {
        if self.table != 0 {
            let to = match self.last_capturer {
                NO_CARD if self.rules.leftover_to_dealer => Some(team(self.dealer as usize)),
                NO_CARD => None,
                s => Some(team(s as usize)),
            };
            if let Some(t) = to {
                self.piles[t] |= std::mem::take(&mut self.table);
            }
        }
        let mut points = score_piles(self.piles, self.rules.scoring);
        points.bonus = self.bonus;
        let total = points.total();
        for (score, points) in self.scores.iter_mut().zip(total) {
            *score += points;
        }
        self.past.push(HandRecord {
            dealer: self.dealer,
            points,
            scores: self.scores,
        });
        let r = self.rules;
        // A single hand has no match, so no match winner (all the spades only score).
        let all_spades = (0..2).find(|&t| {
            !r.single_hand && r.all_spades_wins_match && self.piles[t] & SPADES == SPADES
        });
        let [a, b] = self.scores;
        if let Some(t) = all_spades {
            self.winner = Some(t as u8);
        } else if !r.single_hand && a.max(b) >= r.target && a != b {
            self.winner = Some(if a > b { 0 } else { 1 });
        }
        if self.winner.is_some() || self.past.len() as u32 >= r.max_hands {
            self.phase = Phase::Over;
            return;
        }
        self.hand += 1;
        self.dealer = (self.dealer + 1) % 4;
        self.start_hand();
    }

    /// Whether the cards `taken` make a capture with `c`.
    fn completes(c: u8, taken: u64) -> bool {
        match value(c) {
            0 => taken != 0,
            v => ids(taken).map(value).sum::<u8>() == v,
        }
    }

    /// The cards still to take when a capture with `c` that has `taken` can be completed in
    /// one way only (none otherwise). Every legal take can be completed (`takes_after` looks
    /// ahead), so the completion is unique when each of its steps has a single legal take.
    fn unique_completion(&self, c: u8, taken: u64) -> u64 {
        let mut more = taken;
        loop {
            let legal = self.takes_after(c, more);
            if legal.count_ones() != 1 {
                return 0;
            }
            more |= legal;
            if Self::completes(c, more) {
                return more & !taken;
            }
        }
    }

    /// What `auto_complete_unique` takes at once after `action`.
    fn auto_takes(&self, action: Action) -> u64 {
        match action {
            _ if !self.rules.auto_complete_unique => 0,
            Action::Capture(c) => self.unique_completion(c, 0),
            Action::Take(t) if !Self::completes(self.pending, self.taken | bit(t)) => {
                self.unique_completion(self.pending, self.taken | bit(t))
            }
            _ => 0,
        }
    }

    /// Legal `take` cards for the capture being built, as a bit set.
    fn legal_takes(&self) -> u64 {
        self.takes_after(self.pending, self.taken)
    }

    /// The legal takes of a capture with `c` once `taken` are taken.
    fn takes_after(&self, c: u8, taken: u64) -> u64 {
        let above = match taken {
            0 => u64::MAX,
            t => !((bit(63 - t.leading_zeros() as u8) << 1) - 1),
        };
        let v = value(c);
        if v == 0 {
            return if taken == 0 {
                table_court_of(self.table, c)
            } else {
                0
            };
        }
        if self.rules.force_single_match {
            let singles = self.table & rank_mask(rank_of(c));
            if singles != 0 {
                return if taken == 0 { singles } else { 0 };
            }
        }
        let rem = v - ids(taken).map(value).sum::<u8>();
        // Walk the candidates from the highest id down, with the sums reachable above each.
        let mut legal = 0u64;
        let mut suffix = 1u16;
        let mut rest = self.table & NUMERALS & above;
        while rest != 0 {
            let t = 63 - rest.leading_zeros() as u8;
            rest &= !bit(t);
            let x = value(t);
            if x <= rem && suffix >> (rem - x) & 1 != 0 {
                legal |= bit(t);
            }
            suffix = (suffix | (suffix << x)) & SUMS;
        }
        legal
    }

    fn seat_relative(seat: usize, q: usize) -> usize {
        (q + 4 - seat) % 4
    }

    fn cards_json(set: u64) -> Value {
        Value::from(ids(set).map(|c| PACK.name_of(c)).collect::<Vec<_>>())
    }

    fn card_json(c: u8) -> Value {
        if c == NO_CARD {
            Value::Null
        } else {
            PACK.name_of(c).into()
        }
    }

    fn phase_name(&self) -> &'static str {
        match self.phase {
            Phase::Play => "play",
            Phase::Capture => "capture",
            Phase::Over => "over",
        }
    }

    fn play_seat(&self, i: usize) -> usize {
        (self.eldest() as usize + i) % 4
    }
}

// ---------------------------------------------------------------------------------------------
// Why an action is illegal, told to the player to act from his hand and the public table.

const COURT_NAMES: [&str; 3] = ["jack", "queen", "king"];

fn card_names(set: u64, sep: &str) -> String {
    ids(set)
        .map(|c| PACK.name_of(c))
        .collect::<Vec<_>>()
        .join(sep)
}

impl Cicera {
    /// What is still to take for the capture under way.
    fn still_to_take(&self) -> String {
        let c = self.pending;
        match value(c) {
            0 => format!("take a {}", COURT_NAMES[(rank_of(c) - 10) as usize]),
            v => {
                let rem = v - ids(self.taken).map(value).sum::<u8>();
                if self.taken == 0 {
                    format!("take table cards summing to {v}")
                } else {
                    let taken = card_names(self.taken, " + ");
                    format!("take table cards summing to {v} ({rem} more after {taken})")
                }
            }
        }
    }

    fn why_illegal(&self, action: Action) -> Option<String> {
        let hand = self.hands[self.to_play as usize];
        let name = |c: u8| PACK.name_of(c);
        Some(match (self.phase, action) {
            (Phase::Over, _) => return None,
            (Phase::Play, Action::Play(c) | Action::Capture(c)) if hand & bit(c) == 0 => {
                format!("you do not hold {}", name(c))
            }
            (Phase::Play, Action::Play(c)) => format!(
                "capturing is compulsory (capture_compulsory = true): {} can capture, so play \
                 'capture {}'",
                name(c),
                name(c)
            ),
            (Phase::Play, Action::Capture(c)) => match value(c) {
                0 => format!(
                    "{} captures nothing: there is no {} on the table (a court takes only a \
                     court of its rank)",
                    name(c),
                    COURT_NAMES[(rank_of(c) - 10) as usize]
                ),
                v => format!(
                    "{} captures nothing: no table numerals add up to {v}",
                    name(c)
                ),
            },
            (Phase::Play, Action::Take(_)) => "no capture is under way: play 'capture <card>' \
                first, then take the table cards one by one"
                .into(),
            (Phase::Capture, Action::Play(_) | Action::Capture(_)) => format!(
                "the capture with {} is not complete: {}",
                name(self.pending),
                self.still_to_take()
            ),
            (Phase::Capture, Action::Take(t)) => {
                let c = self.pending;
                let v = value(c);
                let rem = v.saturating_sub(ids(self.taken).map(value).sum::<u8>());
                let singles = self.table & rank_mask(rank_of(c));
                if self.taken & bit(t) != 0 {
                    format!("you have taken {} already", name(t))
                } else if self.table & bit(t) == 0 {
                    format!("{} is not on the table", name(t))
                } else if v == 0 {
                    format!(
                        "a {} takes only a {}",
                        COURT_NAMES[(rank_of(c) - 10) as usize],
                        COURT_NAMES[(rank_of(c) - 10) as usize]
                    )
                } else if value(t) == 0 {
                    format!("{} is a court: a court never joins a sum", name(t))
                } else if self.rules.force_single_match && singles != 0 {
                    format!(
                        "a single card of value {v} must be taken (force_single_match = true): \
                         {}",
                        card_names(singles, " or ")
                    )
                } else if value(t) > rem {
                    format!(
                        "{} is worth {}, more than the {rem} still to take",
                        name(t),
                        value(t)
                    )
                } else if let Some(last) = ids(self.taken).last().filter(|&m| m > t) {
                    format!(
                        "the table cards are taken in table order (as listed): {} comes before \
                         {}, which you have taken",
                        name(t),
                        name(last)
                    )
                } else if let Some(first) = captures(self.table, c, self.rules.force_single_match)
                    .into_iter()
                    .find(|&set| set & self.taken == self.taken && set & bit(t) != 0)
                    .and_then(|set| ids(set & !self.taken).next())
                {
                    format!(
                        "take {} first: the cards of a capture are taken in table order (as \
                         listed)",
                        name(first)
                    )
                } else {
                    format!(
                        "with {} the capture could not be completed: no table cards after it \
                         add up to the {} still missing",
                        name(t),
                        rem - value(t)
                    )
                }
            }
        })
    }
}

// ---------------------------------------------------------------------------------------------
// The heuristic bot (docs/rules/cicera.md, "The heuristic bot"). A move is a whole turn (a
// trail, or one capture set); its score is what it takes minus (weighted) what it leaves the
// next player, always an opponent. Only the bot's own hand and public cards are used: the
// unseen cards are those in no pile, not on the table and not in its hand.

/// Worth of a card towards the cards majority while the majority is open.
const CARD_WORTH: f64 = 0.12;
/// Worth of a spade towards the spades majority (per point of it) while it is open.
const SPADE_WORTH: f64 = 0.15;
/// Worth of the A, 2 or 3 of spades while the napola is open to a team (all three are needed).
const NAPOLA_KEY_WORTH: f64 = 1.0;
/// Worth of a higher spade while a team's run from the ace could still reach it.
const RUN_WORTH: f64 = 0.2;
/// Share of a trailed card's worth counted as lost to the turns after the next one.
const TRAIL_RISK: f64 = 0.3;
/// Weight of what the next player may take against what the move takes: measured in self-play,
/// not leaving him captures matters far more than a slightly better capture (1 plays clearly
/// worse, 4 to 10 about the same).
const THREAT_WEIGHT: f64 = 4.0;

const ALL_CARDS: u64 = (1 << 52) - 1;
/// The A, 2 and 3 of spades.
const NAPOLA_KEYS: u64 = 0b111;

/// The napola of a pile (0 unless it holds the A, 2 and 3 of spades).
fn napola_of(pile: u64, courts_extend: bool) -> f64 {
    let run = (!(pile & SPADES))
        .trailing_zeros()
        .min(if courts_extend { 13 } else { 10 });
    if run >= 3 {
        f64::from(run)
    } else {
        0.0
    }
}

/// What the bot knows when it chooses, precomputed once per decision.
struct Outlook {
    /// What each card is worth to my team if it takes it, and to theirs if they do.
    mine: [f64; 52],
    theirs: [f64; 52],
    /// The cards the bot has not seen: the other hands and the stock.
    unseen: u64,
    /// Chance that the next player holds at least one of `k` unseen cards (k = 0 … 4).
    holds: [f64; 5],
    me: usize,
    /// My move is the last of the hand / the next player's move is.
    last_move: bool,
    next_last: bool,
}

impl Outlook {
    fn mine(&self, set: u64) -> f64 {
        ids(set).map(|x| self.mine[x as usize]).sum()
    }

    fn theirs(&self, set: u64) -> f64 {
        ids(set).map(|x| self.theirs[x as usize]).sum()
    }
}

impl Cicera {
    /// What card `x` adds to the team whose pile is `mine`, against the pile `theirs`.
    fn worth_to(&self, x: u8, mine: u64, theirs: u64) -> f64 {
        let s = self.rules.scoring;
        let mut w = 0.0;
        if mine.count_ones() <= 26 && theirs.count_ones() <= 26 {
            w += CARD_WORTH;
        }
        if suit_of(x) == 0 {
            if (mine & SPADES).count_ones() <= 6 && (theirs & SPADES).count_ones() <= 6 {
                w += SPADE_WORTH * f64::from(s.spades_majority_points);
            }
            // The napola is closed to a team once the other holds one of its three keys.
            if theirs & NAPOLA_KEYS == 0 {
                let ext = s.napola_courts_extend;
                let gain = napola_of(mine | bit(x), ext) - napola_of(mine, ext);
                w += if gain > 0.0 {
                    gain
                } else if rank_of(x) < 3 {
                    NAPOLA_KEY_WORTH
                } else if theirs & SPADES & (bit(x) - 1) == 0 && (ext || rank_of(x) < 10) {
                    RUN_WORTH
                } else {
                    0.0
                };
            }
        }
        if matches!(x, TWO_OF_SPADES | TEN_OF_DIAMONDS | JACK_OF_HEARTS) {
            w += 1.0;
        }
        w
    }

    fn outlook(&self) -> Outlook {
        let me = self.to_play as usize;
        // Worth to the taker only: adding what the other team misses played no better.
        let (ours, other) = (self.piles[team(me)], self.piles[1 - team(me)]);
        let mine = std::array::from_fn(|x| self.worth_to(x as u8, ours, other));
        let theirs = std::array::from_fn(|x| self.worth_to(x as u8, other, ours));
        let mut known = self.hands[me] | self.table | self.piles[0] | self.piles[1];
        if self.pending != NO_CARD {
            known |= bit(self.pending);
        }
        let unseen = ALL_CARDS & !known;
        // Hand sizes (public) once my card has left my hand.
        let mut sizes = self.hands.map(|h| h.count_ones());
        if self.phase == Phase::Play {
            sizes[me] -= 1;
        }
        let in_hands: u32 = sizes.iter().sum();
        let stock = 52 - u32::from(self.dealt_upto);
        let next = (me + 1) % SEATS;
        let next_cards = if in_hands == 0 {
            u32::from(self.rules.packet)
        } else {
            sizes[next]
        };
        // His hand is a uniform draw from the unseen cards (all I know): the chance that it
        // misses all k unseen cards of a rank.
        let n = f64::from(unseen.count_ones());
        let holds = std::array::from_fn(|k| {
            let none: f64 = (0..next_cards)
                .map(|i| {
                    let left = n - f64::from(i);
                    if left <= 0.0 {
                        0.0
                    } else {
                        ((left - k as f64) / left).max(0.0)
                    }
                })
                .product();
            1.0 - none
        });
        Outlook {
            mine,
            theirs,
            unseen,
            holds,
            me,
            last_move: in_hands == 0 && stock == 0,
            next_last: stock == 0 && in_hands == 1 && sizes[next] == 1,
        }
    }

    /// The bonus points the rules give for capturing `set` with `c` on `table`.
    fn bonus_points(&self, c: u8, set: u64, table: u64, last_trail: u8, last_play: bool) -> f64 {
        let e = earned_bonuses(&self.rules, c, set, table, last_trail, last_play);
        (0..4).filter(|&i| self.rules.bonus[i] && e[i]).count() as f64
    }

    /// The team that would take the leftovers now, if any.
    fn leftover_team(&self, capturer: u8) -> Option<usize> {
        match capturer {
            NO_CARD if self.rules.leftover_to_dealer => Some(team(self.dealer as usize)),
            NO_CARD => None,
            s => Some(team(s as usize)),
        }
    }

    /// The score of playing `c` to capture `set` (0: a trail).
    fn move_score(&self, o: &Outlook, c: u8, set: u64) -> f64 {
        let last_play = self.plays_done as usize == PLAYS - 1;
        let (after, trail, mut score) = if set == 0 {
            let risk = if o.last_move {
                0.0
            } else {
                TRAIL_RISK * o.mine[c as usize]
            };
            (self.table | bit(c), c, -risk)
        } else {
            let bonus = self.bonus_points(c, set, self.table, self.last_trail, last_play);
            (self.table & !set, NO_CARD, o.mine(set | bit(c)) + bonus)
        };
        let capturer = if set != 0 {
            o.me as u8
        } else {
            self.last_capturer
        };
        let holder = self.leftover_team(capturer);
        if o.last_move {
            // The table goes to the last capturer's team.
            score += match holder {
                Some(t) if t == team(o.me) => o.mine(after),
                Some(_) => -o.theirs(after),
                None => 0.0,
            };
        } else {
            score -= THREAT_WEIGHT * self.threat(o, after, trail, holder);
        }
        score
    }

    /// The expected best capture of the next player (an opponent) on `table`, by the ranks he
    /// may hold among the unseen cards. `holder`: who takes the leftovers if he does not capture.
    fn threat(&self, o: &Outlook, table: u64, last_trail: u8, holder: Option<usize>) -> f64 {
        let them = 1 - team(o.me);
        let last_play = self.plays_done as usize + 1 == PLAYS - 1;
        let r = &self.rules;
        let mut threats: Vec<(f64, f64)> = Vec::with_capacity(13);
        for rank in 0..13u8 {
            let held = o.unseen & rank_mask(rank);
            if held == 0 {
                continue;
            }
            // Any card of the rank stands for his (captures depend on the rank only).
            let mut best = 0.0f64;
            for set in captures(table, rank, r.force_single_match) {
                let e = earned_bonuses(r, rank, set, table, last_trail, last_play);
                // On the last play of the hand a capture also takes the leftovers.
                let mut v = if !o.next_last {
                    o.theirs(set)
                } else if holder == Some(them) {
                    0.0
                } else {
                    o.theirs(table)
                };
                v += [0, 1, 3].iter().filter(|&&i| r.bonus[i] && e[i]).count() as f64;
                // Single suit: only if his card is of the set's suit.
                let suit = suit_of(set.trailing_zeros() as u8);
                if r.bonus[2]
                    && set.count_ones() >= 2
                    && ids(set).all(|t| suit_of(t) == suit)
                    && held & bit(13 * suit + rank) != 0
                {
                    v += 1.0 / f64::from(held.count_ones());
                }
                best = best.max(v);
            }
            if best > 0.0 {
                threats.push((best, o.holds[held.count_ones() as usize]));
            }
        }
        // He plays his best capture: the expected maximum, taking the ranks as independent.
        threats.sort_by(|a, b| b.0.total_cmp(&a.0));
        let mut miss = 1.0;
        let mut expected = 0.0;
        for (v, p) in threats {
            expected += miss * p * v;
            miss *= 1.0 - p;
        }
        expected
    }

    /// The heuristic's choice: every whole move reachable from `legal` is scored, the best
    /// played (its first action, or its next `take` while a capture is being built).
    fn heuristic_choice(&self, legal: &[Action], rng: &mut Rng) -> Action {
        let o = self.outlook();
        let mut scored: Vec<(Action, f64)> = Vec::with_capacity(legal.len());
        match self.phase {
            Phase::Play => {
                for &a in legal {
                    let score = match a {
                        Action::Play(c) => self.move_score(&o, c, 0),
                        Action::Capture(c) => {
                            captures(self.table, c, self.rules.force_single_match)
                                .into_iter()
                                .map(|set| self.move_score(&o, c, set))
                                .fold(f64::NEG_INFINITY, f64::max)
                        }
                        Action::Take(_) => continue,
                    };
                    scored.push((a, score));
                }
            }
            Phase::Capture => {
                // The sets still open given the cards taken so far (taken in ascending order).
                let c = self.pending;
                let taken = self.taken;
                let floor = if taken == 0 {
                    0
                } else {
                    64 - taken.leading_zeros()
                };
                for set in captures(self.table, c, self.rules.force_single_match) {
                    let rest = set & !taken;
                    if set & taken != taken || rest == 0 || rest.trailing_zeros() < floor {
                        continue;
                    }
                    let a = Action::Take(rest.trailing_zeros() as u8);
                    if legal.contains(&a) {
                        scored.push((a, self.move_score(&o, c, set)));
                    }
                }
            }
            Phase::Over => {}
        }
        let best = scored.iter().map(|s| s.1).fold(f64::NEG_INFINITY, f64::max);
        let mut ties: Vec<Action> = Vec::new();
        for &(a, score) in &scored {
            if score >= best - 1e-9 && !ties.contains(&a) {
                ties.push(a);
            }
        }
        match ties.len() {
            0 => legal[rng.below(legal.len() as u64) as usize],
            1 => ties[0],
            n => ties[rng.below(n as u64) as usize],
        }
    }
}

impl Game for Cicera {
    const NAME: &'static str = "cicera";
    const PACK: &'static Pack = PACK;
    type Config = Config;
    type Action = Action;

    fn check_config(c: &mut Config) -> Result<()> {
        if !(1..=1000).contains(&c.target_score) {
            return Err(config_err!(
                "cicera: target_score must be 1 to 1000, got {}",
                c.target_score
            ));
        }
        if ![12, 6, 4].contains(&c.packet_size) {
            return Err(config_err!(
                "cicera: packet_size must be 12, 6 or 4, got {}",
                c.packet_size
            ));
        }
        c.first_dealer.check(Self::NAME, 4)?;
        if c.spades_majority_points > 10 {
            return Err(config_err!(
                "cicera: spades_majority_points must be 0 to 10, got {}",
                c.spades_majority_points
            ));
        }
        if !(1..=1000).contains(&c.max_hands) {
            return Err(config_err!(
                "cicera: max_hands must be 1 to 1000, got {}",
                c.max_hands
            ));
        }
        Ok(())
    }

    fn num_players(_: &Config) -> usize {
        SEATS
    }

    fn max_game_length(c: &Config) -> usize {
        100 * Rules::from_config(c).max_hands as usize
    }

    fn observation_shape(_: &Config) -> Vec<usize> {
        vec![677]
    }

    fn utility_bounds(c: &Config) -> (f64, f64) {
        if c.game_mode == GameMode::Match {
            return (-1.0, 1.0);
        }
        // One hand: every category to one team, and every bonus on each of its 24 plays.
        let bonuses = [
            c.bonus_sweep,
            c.bonus_left,
            c.bonus_single_suit,
            c.bonus_three_plus,
        ]
        .iter()
        .filter(|&&b| b)
        .count() as u32;
        let napola = if c.napola_courts_extend { 13 } else { 10 };
        let most = f64::from(2 + c.spades_majority_points + 1 + napola + 1 + 1 + 24 * bonuses);
        (-most, most)
    }

    fn new(config: &Config, mut rng: Rng) -> Self {
        let rules = Rules::from_config(config);
        let dealer = rules.first_dealer.unwrap_or_else(|| rng.below(4) as u8);
        let mut s = Cicera {
            rules,
            rng,
            hand: 0,
            dealer,
            deck: [0; 52],
            dealt_upto: 0,
            hands: [0; SEATS],
            dealt: [0; SEATS],
            first_table: 0,
            table: 0,
            last_trail: NO_CARD,
            pending: NO_CARD,
            taken: 0,
            piles: [0; 2],
            bonus: [0; 2],
            last_capturer: NO_CARD,
            play_cards: [NO_CARD; PLAYS],
            play_captures: [0; PLAYS],
            plays_done: 0,
            phase: Phase::Play,
            to_play: 0,
            scores: [0; 2],
            winner: None,
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

    fn cards_drawn(&self, deal: usize) -> usize {
        // A hand ends only when every packet has been dealt and played.
        if deal == self.hand as usize {
            self.dealt_upto as usize
        } else {
            52
        }
    }

    fn current_player(&self) -> Option<usize> {
        (self.phase != Phase::Over).then_some(self.to_play as usize)
    }

    fn legal_actions(&self, out: &mut Vec<Action>) {
        match self.phase {
            Phase::Play => {
                let hand = self.hands[self.to_play as usize];
                let sums = reachable_sums(self.table);
                let capturing = ids(hand)
                    .filter(|&c| can_capture(self.table, c, sums))
                    .fold(0, |m, c| m | bit(c));
                let trails = if self.rules.capture_compulsory {
                    hand & !capturing
                } else {
                    hand
                };
                out.extend(ids(trails).map(Action::Play));
                out.extend(ids(capturing).map(Action::Capture));
            }
            Phase::Capture => out.extend(ids(self.legal_takes()).map(Action::Take)),
            Phase::Over => {}
        }
    }

    fn is_legal(&self, action: Action) -> bool {
        let hand = self.hands[self.to_play as usize];
        match (self.phase, action) {
            (Phase::Play, Action::Play(c)) => {
                hand & bit(c) != 0
                    && !(self.rules.capture_compulsory
                        && can_capture(self.table, c, reachable_sums(self.table)))
            }
            (Phase::Play, Action::Capture(c)) => {
                hand & bit(c) != 0 && can_capture(self.table, c, reachable_sums(self.table))
            }
            (Phase::Capture, Action::Take(t)) => self.legal_takes() & bit(t) != 0,
            _ => false,
        }
    }

    fn apply_unchecked(&mut self, action: Action) {
        let seat = self.to_play as usize;
        match action {
            Action::Play(c) => {
                self.hands[seat] &= !bit(c);
                self.table |= bit(c);
                self.last_trail = c;
                self.record_play(c, 0);
                self.end_turn();
            }
            Action::Capture(c) => {
                // With `auto_complete_unique` (the rules' optional shortcut; off by default, so
                // that every take is a decision) a capture that can be completed in one way
                // only is made at once.
                let rest = self.auto_takes(action);
                self.hands[seat] &= !bit(c);
                self.pending = c;
                self.taken = rest;
                self.phase = Phase::Capture;
                if rest != 0 {
                    self.resolve_capture();
                }
            }
            Action::Take(t) => {
                let rest = self.auto_takes(action);
                self.taken |= bit(t) | rest;
                if Self::completes(self.pending, self.taken) {
                    self.resolve_capture();
                }
            }
        }
    }

    fn returns(&self, out: &mut [f64]) {
        out.fill(0.0);
        if self.phase != Phase::Over {
            return;
        }
        for (s, r) in out.iter_mut().enumerate() {
            let (me, them) = (team(s), 1 - team(s));
            *r = if self.rules.single_hand {
                let total = self.past.last().map_or([0, 0], |h| h.points.total());
                (total[me] - total[them]) as f64
            } else {
                match self.winner {
                    Some(w) if w as usize == me => 1.0,
                    Some(_) => -1.0,
                    None => 0.0,
                }
            };
        }
    }

    fn view(&self, viewer: Option<usize>) -> Value {
        let sees = |s: usize| viewer.is_none_or(|v| v == s);
        let plays: Vec<Value> = (0..self.plays_done as usize)
            .map(|i| {
                let captured = self.play_captures[i];
                json!({
                    "seat": self.play_seat(i),
                    "card": PACK.name_of(self.play_cards[i]),
                    "captured": if captured == 0 { Value::Null } else { Self::cards_json(captured) },
                })
            })
            .collect();
        let past: Vec<Value> = self
            .past
            .iter()
            .map(|h| json!({"dealer": h.dealer, "points": h.points.to_json(true), "scores": h.scores}))
            .collect();
        let mut m = serde_json::Map::new();
        let mut put = |k: &str, v: Value| {
            m.insert(k.to_string(), v);
        };
        put("game", Self::NAME.into());
        put("viewer", viewer.into());
        put("players", SEATS.into());
        put("teams", json!([[0, 2], [1, 3]]));
        put("hand", self.hand.into());
        put("dealer", self.dealer.into());
        put("phase", self.phase_name().into());
        put("to_play", self.current_player().into());
        put(
            "hands",
            Value::from(
                (0..SEATS)
                    .map(|s| {
                        if sees(s) {
                            Self::cards_json(self.hands[s])
                        } else {
                            Value::Null
                        }
                    })
                    .collect::<Vec<_>>(),
            ),
        );
        put("hand_sizes", json!(self.hands.map(|h| h.count_ones())));
        put("stock_size", (52 - self.dealt_upto as u32).into());
        put("table", Self::cards_json(self.table));
        put("last_trail", Self::card_json(self.last_trail));
        put("pending", Self::card_json(self.pending));
        put("taken", Self::cards_json(self.taken));
        put("plays", plays.into());
        put(
            "piles",
            Value::from(
                self.piles
                    .iter()
                    .map(|&p| Self::cards_json(p))
                    .collect::<Vec<_>>(),
            ),
        );
        put("bonus", json!(self.bonus));
        put(
            "last_capturer",
            if self.last_capturer == NO_CARD {
                Value::Null
            } else {
                self.last_capturer.into()
            },
        );
        put("scores", json!(self.scores));
        put("past_hands", past.into());
        put("winner", self.winner.into());
        Value::Object(m)
    }

    fn observe(&self, seat: usize, out: &mut [f32]) {
        let rel = |q: usize| Self::seat_relative(seat, q);
        let mut at = 0usize;
        let mut block = |size: usize| {
            let start = at;
            at += size;
            start
        };
        let set = |out: &mut [f32], b: usize, cards: u64| write_bits(cards, &mut out[b..b + 52]);
        let b = block(3);
        out[b + self.phase as usize] = 1.0;
        let b = block(4);
        out[b + rel(self.dealer as usize)] = 1.0;
        let b = block(4);
        if let Some(p) = self.current_player() {
            out[b + rel(p)] = 1.0;
        }
        let b = block(52);
        set(out, b, self.hands[seat]);
        let b = block(52);
        set(out, b, self.table);
        let b = block(52);
        if self.pending != NO_CARD {
            out[b + self.pending as usize] = 1.0;
        }
        let b = block(52);
        set(out, b, self.taken);
        let b = block(52);
        if self.last_trail != NO_CARD {
            out[b + self.last_trail as usize] = 1.0;
        }
        let b = block(104);
        set(out, b, self.piles[team(seat)]);
        set(out, b + 52, self.piles[1 - team(seat)]);
        let b = block(208);
        for i in 0..self.plays_done as usize {
            out[b + rel(self.play_seat(i)) * 52 + self.play_cards[i] as usize] = 1.0;
        }
        let b = block(5);
        out[b + if self.last_capturer == NO_CARD {
            4
        } else {
            rel(self.last_capturer as usize)
        }] = 1.0;
        let b = block(52);
        for q in 0..SEATS {
            out[b + rel(q) * 13 + self.hands[q].count_ones() as usize] = 1.0;
        }
        let b = block(33);
        out[b + 52 - self.dealt_upto as usize] = 1.0;
        let b = block(4);
        let (me, them) = (team(seat), 1 - team(seat));
        out[b] = (self.bonus[me] as f64 / 10.0) as f32;
        out[b + 1] = (self.bonus[them] as f64 / 10.0) as f32;
        out[b + 2] = (self.scores[me] as f64 / self.rules.target as f64) as f32;
        out[b + 3] = (self.scores[them] as f64 / self.rules.target as f64) as f32;
        debug_assert_eq!(at, out.len());
    }

    fn render(&self, viewer: Option<usize>) -> String {
        use std::fmt::Write;
        let names = |set: u64| {
            ids(set)
                .map(|c| PACK.name_of(c))
                .collect::<Vec<_>>()
                .join(" ")
        };
        let mut s = String::new();
        let _ = writeln!(
            s,
            "Cicera, hand {}, dealer seat {}; scores {} - {} (target {})",
            self.hand + 1,
            self.dealer,
            self.scores[0],
            self.scores[1],
            self.rules.target
        );
        let _ = writeln!(s, "table: {}", names(self.table));
        if self.pending != NO_CARD {
            let _ = writeln!(
                s,
                "capturing with {}: taken {}",
                PACK.name_of(self.pending),
                names(self.taken)
            );
        }
        for q in 0..SEATS {
            let mark = if self.current_player() == Some(q) {
                ">"
            } else {
                " "
            };
            let hand = if viewer.is_none_or(|v| v == q) {
                names(self.hands[q])
            } else {
                format!("{} cards", self.hands[q].count_ones())
            };
            let _ = writeln!(s, "{mark} seat {q} (team {}): {hand}", team(q));
        }
        for t in 0..2 {
            let _ = writeln!(
                s,
                "team {t}: pile {} cards, bonus {}",
                self.piles[t].count_ones(),
                self.bonus[t]
            );
        }
        let _ = write!(s, "phase {}", self.phase_name());
        s
    }

    fn deal_summary(&self, seat: usize) -> String {
        let names = |set: u64| {
            ids(set)
                .map(|c| PACK.name_of(c))
                .collect::<Vec<_>>()
                .join(" ")
        };
        format!(
            "hand {} dealer {} table {} dealt {}",
            self.hand + 1,
            self.dealer,
            names(self.first_table),
            names(self.dealt[seat])
        )
    }

    /// The hand's number and the seat's cards so far: a hand's dealer is set when it starts,
    /// and its first table with its first packet.
    fn deal_summary_key(&self, seat: usize) -> u128 {
        u128::from(self.hand) << 64 | u128::from(self.dealt[seat])
    }

    fn action_seen_by(&self, action: Action, _seat: usize, out: &mut String) -> bool {
        let _ = write!(out, "seat {}: {action}", self.to_play);
        for t in ids(self.auto_takes(action)) {
            let _ = write!(out, ", take {}", PACK.name_of(t));
        }
        true
    }

    /// Between hands of a match: the team's lead in match points over the target, within
    /// ±1 (a lead of the whole target counts as a win).
    fn deal_value(&self, out: &mut [f64]) -> bool {
        for (s, v) in out.iter_mut().enumerate() {
            let lead = self.scores[team(s)] - self.scores[1 - team(s)];
            *v = (lead as f64 / self.rules.target as f64).clamp(-1.0, 1.0);
        }
        true
    }

    fn heuristic_action(&self, legal: &[Action], rng: &mut Rng) -> Action {
        self.heuristic_choice(legal, rng)
    }

    fn illegal_reason(&self, action: Action) -> Option<String> {
        self.why_illegal(action)
    }

    /// `view(Some(seat))` field by field, in its order (the fields fixed by the config left out).
    fn sees_same(&self, o: &Self, seat: usize) -> bool {
        let plays = self.plays_done as usize;
        (self.hand, self.dealer, self.phase, self.current_player())
            == (o.hand, o.dealer, o.phase, o.current_player())
            && self.hands[seat] == o.hands[seat]
            && (0..SEATS).all(|s| self.hands[s].count_ones() == o.hands[s].count_ones())
            && (
                self.dealt_upto,
                self.table,
                self.last_trail,
                self.pending,
                self.taken,
            ) == (o.dealt_upto, o.table, o.last_trail, o.pending, o.taken)
            && plays == o.plays_done as usize
            && self.play_cards[..plays] == o.play_cards[..plays]
            && self.play_captures[..plays] == o.play_captures[..plays]
            && (self.piles, self.bonus, self.last_capturer, self.scores)
                == (o.piles, o.bonus, o.last_capturer, o.scores)
            && self.past == o.past
            && self.winner == o.winner
    }

    /// The deck positions of the cards the viewer has not seen, and those cards in ascending
    /// id: a world must depend only on what the viewer knows (shuffled in the true deal's
    /// order, a world and its seed gave back the true deal).
    type Known = (Vec<usize>, Vec<u8>);

    fn known(start: &Self, actions: &[Action], seat: usize) -> Option<Self::Known> {
        // Everything the viewer saw stays where it is: its own cards dealt so far, the table
        // dealt, and every card another seat played. Every other card is dealt again.
        let mut s = start.clone();
        let mut played = 0u64;
        for &a in actions {
            if let Action::Play(c) | Action::Capture(c) = a {
                played |= bit(c);
            }
            s.apply_unchecked(a);
        }
        let seen = s.dealt[seat] | start.first_table | played;
        let positions = (0..52)
            .filter(|&k| seen & bit(start.deck[k]) == 0)
            .collect();
        Some((positions, ids(!seen & ((1 << 52) - 1)).collect()))
    }

    fn resample_deal(
        (unknown, cards): &Self::Known,
        start: &Self,
        actions: &[Action],
        _seat: usize,
        rng: &mut Rng,
    ) -> Option<Redeal<Self>> {
        let mut cards = cards.clone();
        rng.shuffle(&mut cards);
        let mut deck = start.deck.to_vec();
        for (&k, &c) in unknown.iter().zip(&cards) {
            deck[k] = c;
        }
        Some((deck, actions.to_vec(), None))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn set(cards: &str) -> u64 {
        cards
            .split_whitespace()
            .fold(0, |m, c| m | bit(PACK.parse(c).unwrap()))
    }

    fn c(s: &str) -> u8 {
        PACK.parse(s).unwrap()
    }

    #[test]
    fn capture_cases_of_the_rules() {
        let count = |table: &str, card: &str| captures(set(table), c(card), false).len();
        assert_eq!(
            captures(set("7H 5C 2D KS"), c("7S"), false),
            vec![set("7H"), set("2D 5C")]
        );
        assert_eq!(count("AS 3C 4D 2H 6S", "7C"), 3);
        assert_eq!(count("KH KD 5S", "KS"), 2);
        assert_eq!(count("QH 5S", "KC"), 0);
        assert_eq!(count("5H 5D AS", "10S"), 1);
        assert_eq!(count("AS AH AD AC 2S 2H 2D 4C", "10H"), 23);
        assert_eq!(count("AH 2H 3H 4H 5H 6H 7H 8H 9H", "10H"), 9);
        assert_eq!(captures(set("7H 5C 2D KS"), c("7S"), true), vec![set("7H")]);
    }

    #[test]
    fn capture_counts_with_every_other_numeral() {
        // Rules C22: all 39 other numerals on the table.
        let expected = [3, 9, 23, 50, 99, 189, 343, 600, 1023, 1701];
        for (r, want) in expected.iter().enumerate() {
            let card = r as u8; // xS
            assert_eq!(
                captures(NUMERALS & !bit(card), card, false).len(),
                *want,
                "rank {}",
                r + 1
            );
        }
    }

    #[test]
    fn napola_and_scoring() {
        // Rules E1 (the seed's example).
        let a = set(
            "AS 2S 3S 4S 5S 8S 10S AH 2H 3H 4H 5H 6H 7H 8H 9H 10H QH KH AD 2D 3D 4D 5D 6D 7D 10D",
        );
        let p = score_piles([a, !a & ((1 << 52) - 1)], Scoring::default());
        assert_eq!(p.total(), [10, 1]);
        assert_eq!(p.napola, [5, 0]);
    }

    fn config(extra: Value) -> Config {
        let mut c: Config = serde_json::from_value(extra).unwrap();
        Cicera::check_config(&mut c).unwrap();
        c
    }

    /// One game from `seed`: the heuristic plays both seats of team `heuristic`, random the
    /// other two. The heuristic team's return.
    fn heuristic_game(config: &Config, seed: u64, heuristic: usize) -> f64 {
        let mut g = Cicera::new(config, Rng::new(seed));
        let mut bots = Rng::new(seed ^ 0x5DEE_CE66_D1CE_CAFE);
        let mut legal = Vec::new();
        while let Some(p) = g.current_player() {
            legal.clear();
            g.legal_actions(&mut legal);
            let a = if team(p) == heuristic {
                g.heuristic_action(&legal, &mut bots)
            } else {
                legal[bots.below(legal.len() as u64) as usize]
            };
            g.apply_unchecked(a);
        }
        let mut out = [0.0; SEATS];
        g.returns(&mut out);
        out[heuristic]
    }

    /// Duplicate play over `seeds`: each seed's deal played with the heuristic as team 0, then
    /// as team 1. The mean of the per-seed means and its 95% half-width.
    fn duplicate(config: &Config, seeds: std::ops::Range<u64>) -> (f64, f64) {
        let means: Vec<f64> = seeds
            .map(|s| (heuristic_game(config, s, 0) + heuristic_game(config, s, 1)) / 2.0)
            .collect();
        let n = means.len() as f64;
        let mean = means.iter().sum::<f64>() / n;
        let var = means.iter().map(|m| (m - mean).powi(2)).sum::<f64>() / (n - 1.0);
        (mean, 1.96 * (var / n).sqrt())
    }

    #[test]
    fn heuristic_is_legal_deterministic_and_blind() {
        let configs = [
            json!({"game_mode": "single_hand"}),
            json!({"game_mode": "single_hand", "packet_size": 4, "force_single_match": true,
                   "left_bonus_mode": "rank_match", "deal_style": "packets"}),
            json!({"game_mode": "single_hand", "capture_compulsory": true,
                   "leftover_if_no_capture": "dealer_team", "napola_courts_extend": false,
                   "sweep_on_last_play_counts": false, "bonus_left": false}),
        ];
        for (i, extra) in configs.into_iter().enumerate() {
            let cfg = config(extra);
            for seed in 0..20u64 {
                let mut g = Cicera::new(&cfg, Rng::new(seed));
                let mut bots = Rng::new(seed + 1000 * i as u64);
                let mut legal = Vec::new();
                while g.current_player().is_some() {
                    legal.clear();
                    g.legal_actions(&mut legal);
                    let r = bots;
                    let a = g.heuristic_action(&legal, &mut r.clone());
                    assert!(legal.contains(&a), "{a} not legal in\n{}", g.render(None));
                    assert_eq!(g.heuristic_action(&legal, &mut r.clone()), a);
                    // The other hands dealt again among the other seats: the same choice.
                    let me = g.to_play as usize;
                    let mut other = g.clone();
                    let mut cards: Vec<u8> = (0..SEATS)
                        .filter(|&q| q != me)
                        .flat_map(|q| ids(g.hands[q]))
                        .collect();
                    bots.clone().shuffle(&mut cards);
                    for q in (0..SEATS).filter(|&q| q != me) {
                        let n = g.hands[q].count_ones() as usize;
                        other.hands[q] = cards.drain(..n).fold(0, |m, c| m | bit(c));
                    }
                    assert_eq!(other.heuristic_action(&legal, &mut r.clone()), a);
                    // Half the moves random, so that odd positions are visited too.
                    let a = if bots.below(2) == 0 {
                        a
                    } else {
                        legal[bots.below(legal.len() as u64) as usize]
                    };
                    g.apply(a).unwrap();
                }
            }
        }
    }

    #[test]
    fn heuristic_beats_random_quickly() {
        let (mean, half) = duplicate(&config(json!({"game_mode": "single_hand"})), 0..100);
        println!("cicera heuristic vs random, 200 single hands: {mean:.2} ± {half:.2}");
        assert!(mean > 0.0);
    }

    #[test]
    #[ignore]
    fn heuristic_beats_random() {
        let (mean, half) = duplicate(&config(json!({"game_mode": "single_hand"})), 0..2000);
        println!(
            "cicera heuristic vs random, single hands, 2000 deals x 2 seatings: {mean:.3} ± {half:.3}"
        );
        assert!(mean - half > 0.0);
        let (mean, half) = duplicate(&config(json!({})), 0..500);
        println!(
            "cicera heuristic vs random, matches, 500 deals x 2 seatings: {mean:.3} ± {half:.3}"
        );
        assert!(mean - half > 0.0);
    }

    #[test]
    fn action_strings_round_trip() {
        for i in 0..Action::COUNT {
            let a = Action::from_index(i).unwrap();
            assert_eq!(Action::parse(&a.to_string()).unwrap(), a);
        }
        for bad in ["", "play", "take 11S", "grab AS", "play AS AS"] {
            assert!(Action::parse(bad).is_err(), "{bad}");
        }
    }
}
