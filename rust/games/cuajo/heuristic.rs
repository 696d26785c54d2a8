//! The rule-of-thumb player (`heuristic_action`; rules of thumb in docs/rules/cuajo.md): wins
//! and claims at once, lays secrets that cost nothing, takes a discard that brings the hand
//! closer, discards the card that leaves it closest (then the most live waits, then the card
//! that joins least and helps the next opponent least), calls purro when it can.
//!
//! It reads only what the player to act may know: his own cards, secrets and extra card, the
//! discards, the `known` cards and markers of the others, purro flags and penalties.
//!
//! The distance (`eval::distance`: 16 − the most cards shared with a complete hand) is
//! recomputed here, faster, because it runs inside search playouts: per block (aces, 3-4-5,
//! J-H-K) a *front* gives, for each number `o` of held cards covered, the least total size of
//! combinations covering them; a rank's front comes from a table over its suit counts (held,
//! and room left by the sequences), blocks are joined by min-plus convolution, and only the
//! block of a discarded card is recomputed per candidate (a hundred times faster than
//! `eval::distance`, which it equals; tested). It also measures a pool with secrets laid
//! against its own size, and counts the three sowee copies as a combination (they are one
//! once declared, and paid) while they can still all be had.

use super::eval::{self, kind, rank_of, suit_of, Counts, ACE, JACK, KING, THREE};
use super::{next, Action, Cuajo, Phase, SEATS};
use crate::rng::Rng;
use std::sync::OnceLock;

const INF: u8 = u8::MAX;

/// `ms[o]` (for `o < len`, `INF` beyond): the least total size of combinations sharing at
/// least `o` cards with the held ones; non-decreasing, no size above the limit it was built
/// for. Overlaps stop at 16, the most cards a pool has; the lanes past 16 (always `INF`) let
/// every step work on whole vectors.
#[derive(Clone, Copy, Debug)]
struct Front {
    ms: [u8; 32],
    len: u8,
}

/// A rank's front as the table stores it (compact, for the cache).
#[derive(Clone, Copy, Debug)]
struct Entry {
    ms: [u8; 17],
    len: u8,
}

impl Front {
    const EMPTY: Front = Front {
        ms: [INF; 32],
        len: 0,
    };

    fn merge(&mut self, other: &Front) {
        for o in 0..32 {
            self.ms[o] = self.ms[o].min(other.ms[o]);
        }
        self.len = self.len.max(other.len);
    }

    /// Every size raised by `by` (the sequences' cards).
    fn plus(mut self, by: u8) -> Front {
        for x in &mut self.ms {
            *x = x.saturating_add(by);
        }
        self
    }

    /// One card fewer shared by every combination.
    fn down(&self) -> Front {
        let mut ms = [INF; 32];
        ms[..31].copy_from_slice(&self.ms[1..]);
        Front {
            ms,
            len: self.len.saturating_sub(1),
        }
    }

    /// Sizes above `limit` dropped.
    fn within(mut self, limit: u8) -> Front {
        for x in &mut self.ms {
            if *x > limit {
                *x = INF;
            }
        }
        // Non-decreasing: the sizes kept are a prefix.
        self.len = self.ms[..17].iter().filter(|&&x| x != INF).count() as u8;
        self
    }

    /// A table entry with its overlaps raised by `base` (cards shared for free: the
    /// sequences' own).
    fn shifted(e: &Entry, base: usize) -> Front {
        let mut wide = [INF; 48];
        wide[..base].fill(0);
        wide[base..base + 17].copy_from_slice(&e.ms);
        let mut ms = [INF; 32];
        ms[..17].copy_from_slice(&wide[..17]);
        Front {
            ms,
            len: (e.len as usize + base).min(17) as u8,
        }
    }
}

/// `a` joined with `b` (min-plus), sizes above `limit` dropped.
fn conv(a: &Front, b: &Front, limit: u8) -> Front {
    let mut ms = [INF; 32];
    let mut len = 0;
    for i in 0..a.len as usize {
        let x = a.ms[i];
        if x > limit {
            break;
        }
        for j in 0..(b.len as usize).min(17 - i) {
            let y = x + b.ms[j].min(INF - 16);
            if y > limit {
                break;
            }
            ms[i + j] = ms[i + j].min(y);
            len = len.max(i + j + 1);
        }
    }
    Front { ms, len: len as u8 }
}

/// Index of a rank's table entry: per suit the room `cap = 4 − runs` and the held cards left
/// `h' = held − runs` (at most `cap`), 15 pairs per suit; and the held cards the runs share.
fn rank_key(held: [u8; 4], runs: [u8; 4]) -> (usize, usize) {
    let (mut idx, mut base) = (0, 0);
    for s in 0..4 {
        let (h, r) = (held[s], runs[s]);
        base += h.min(r) as usize;
        let cap = 4 - r as usize;
        idx = idx * 15 + cap * (cap + 1) / 2 + h.saturating_sub(r) as usize;
    }
    (idx, base)
}

/// Fronts of one rank for every key of `rank_key`, with the runs' cards left out (the block
/// counts their size and shared cards).
fn rank_table(quads: bool) -> &'static [Entry] {
    static WITH_QUADS: OnceLock<Vec<Entry>> = OnceLock::new();
    static SETS: OnceLock<Vec<Entry>> = OnceLock::new();
    let (cell, table) = if quads {
        (&WITH_QUADS, &eval::SETS_AND_QUADS)
    } else {
        (&SETS, &eval::SETS_ONLY)
    };
    cell.get_or_init(|| {
        let patterns: Vec<([u8; 4], u8)> = (0..625)
            .filter(|&i| table[i])
            .map(|i| {
                let p = [i / 125, i / 25 % 5, i / 5 % 5, i % 5].map(|x| x as u8);
                (p, p.iter().sum())
            })
            .collect();
        let pairs: Vec<(u8, u8)> = (0..5u8)
            .flat_map(|cap| (0..=cap).map(move |h| (cap, h)))
            .collect();
        (0..15usize.pow(4))
            .map(|i| {
                let d = [i / 3375, i / 225 % 15, i / 15 % 15, i % 15].map(|x| pairs[x]);
                let mut ms = [INF; 17];
                for &(p, size) in &patterns {
                    if (0..4).any(|s| p[s] > d[s].0) {
                        continue;
                    }
                    let o: usize = (0..4).map(|s| p[s].min(d[s].1) as usize).sum();
                    ms[o] = ms[o].min(size);
                }
                for o in (0..16).rev() {
                    ms[o] = ms[o].min(ms[o + 1]);
                }
                let len = ms.iter().take_while(|&&x| x != INF).count() as u8;
                Entry { ms, len }
            })
            .collect()
    })
}

fn suits(c: &Counts, rank: usize) -> [u8; 4] {
    std::array::from_fn(|s| c[kind(s, rank)])
}

/// Which block a kind is in: 0 aces, 1 the 3-4-5s, 2 the J-H-Ks.
const fn block_of(k: usize) -> usize {
    match rank_of(k) {
        ACE => 0,
        r if r < JACK => 1,
        _ => 2,
    }
}

/// Kings standing alone: `spare` of them, past `base` shared by the sequences.
fn kings_front(kings: [u8; 4], runs: [u8; 4]) -> Front {
    let base: usize = (0..4).map(|s| kings[s].min(runs[s]) as usize).sum();
    let spare: usize = (0..4)
        .map(|s| kings[s].saturating_sub(runs[s]) as usize)
        .sum();
    let mut ms = [INF; 32];
    for (o, x) in ms.iter_mut().enumerate().take((base + spare + 1).min(17)) {
        *x = o.saturating_sub(base) as u8;
    }
    Front {
        ms,
        len: (base + spare + 1).min(17) as u8,
    }
}

/// The hand evaluator of the heuristic, for one set of meld rules.
#[derive(Clone, Copy)]
struct Evaluator {
    table: &'static [Entry],
    /// The sowee, when its three copies are planned for as a combination.
    triple: Option<usize>,
}

impl Evaluator {
    fn new(quads: bool, triple: Option<usize>) -> Self {
        Evaluator {
            table: rank_table(quads),
            triple,
        }
    }

    fn rank_term(&self, held: [u8; 4], runs: [u8; 4]) -> Front {
        let (idx, base) = rank_key(held, runs);
        Front::shifted(&self.table[idx], base)
    }

    /// The front of block `b` of `c` within `limit` cards into `out[0]`, and into `out[1 + v]`
    /// that of `c` less one card of kind `less[v]` (a kind of the block held in `c`): every
    /// useful choice of sequences, each rank looked up (J-H-K: kings beyond the sequences
    /// stand alone, one card each). A variant shares the other ranks' joined fronts.
    fn block(&self, c: &Counts, b: usize, limit: u8, less: &[usize], out: &mut [Front]) {
        if b == 0 {
            let aces = suits(c, ACE);
            let mut one = |v: usize, held: [u8; 4]| {
                out[v] = Front::shifted(&self.table[rank_key(held, [0; 4]).0], 0).within(limit);
            };
            one(0, aces);
            for (v, &k) in less.iter().enumerate() {
                let mut h = aces;
                h[suit_of(k)] -= 1;
                one(v + 1, h);
            }
            return;
        }
        out[..=less.len()].fill(Front::EMPTY);
        let (first, looked) = if b == 1 { (THREE, 3) } else { (JACK, 2) };
        let held: [[u8; 4]; 3] = std::array::from_fn(|i| suits(c, first + i));
        // Only sequence copies sharing two cards or more are tried: one sharing none (or only
        // its king, which may stand alone) is never better than none, and one sharing a
        // single card does no better than a set of that card's rank (which the rank's table
        // has), unless two other suits of that rank are full: exact but for such hands.
        let most: [u8; 4] = std::array::from_fn(|s| {
            let [a, b, c] = [held[0][s], held[1][s], held[2][s]];
            a.max(b).min(b.max(c)).min(a.max(c))
        });
        let max_runs = limit / 3;
        let term = |h: [u8; 4], i: usize, runs: [u8; 4]| {
            if i < looked {
                self.rank_term(h, runs)
            } else {
                kings_front(h, runs)
            }
        };
        for r0 in 0..=most[0] {
            for r1 in 0..=most[1] {
                for r2 in 0..=most[2] {
                    for r3 in 0..=most[3] {
                        let runs = [r0, r1, r2, r3];
                        let n: u8 = runs.iter().sum();
                        if n > max_runs {
                            continue;
                        }
                        let lim = limit - 3 * n;
                        let t: [Front; 3] = std::array::from_fn(|i| term(held[i], i, runs));
                        let p01 = conv(&t[0], &t[1], lim);
                        let full = conv(&p01, &t[2], lim).plus(3 * n);
                        out[0].merge(&full);
                        // The other two ranks joined, made when a variant needs them.
                        let mut rest: [Option<Front>; 3] = [None, None, Some(p01)];
                        for (v, &k) in less.iter().enumerate() {
                            let (i, s) = (rank_of(k) - first, suit_of(k));
                            if held[i][s] <= runs[s] {
                                // Every copy lies in a sequence: one card fewer shared, always.
                                out[v + 1].merge(&full.down());
                                continue;
                            }
                            let mut h = held[i];
                            h[s] -= 1;
                            let others = rest[i].get_or_insert_with(|| {
                                let [a, b] = [[1, 2], [0, 2], [0, 1]][i];
                                conv(&t[a], &t[b], lim)
                            });
                            out[v + 1].merge(&conv(others, &term(h, i, runs), lim).plus(3 * n));
                        }
                    }
                }
            }
        }
    }

    /// `limit −` the most cards shared with combinations of `limit` cards in all (padded with
    /// kings not held): the distance to a complete pool of `limit` cards.
    fn joined(a: &Front, l: &Front, h: &Front, limit: u8) -> u8 {
        let al = conv(a, l, limit);
        let mut best = 0;
        // As `o` grows the room left for the J-H-K block shrinks: one pass down its front.
        let mut k = h.len as usize;
        for o in 0..al.len as usize {
            let room = limit - al.ms[o];
            while k > 1 && h.ms[k - 1] > room {
                k -= 1;
            }
            best = best.max(o + k - 1);
        }
        limit.saturating_sub(best as u8)
    }

    fn plain_distance(&self, c: &Counts, target: u8) -> u8 {
        let mut f = [Front::EMPTY; 3];
        for (b, f) in f.iter_mut().enumerate() {
            self.block(c, b, target, &[], std::slice::from_mut(f));
        }
        Self::joined(&f[0], &f[1], &f[2], target)
    }

    /// With the sowee triple as a combination: the pool without its `n ≥ 2` copies of the
    /// sowee (measured against 3 cards fewer) and the copies the triple still misses. One
    /// copy alone is left to the plain measure, like a combination sharing a single card.
    fn triple_part(&self, c: &Counts, target: u8) -> Option<(Counts, u8)> {
        let w = self.triple?;
        let n = c[w].min(3);
        (n >= 2 && target >= 3).then(|| {
            let mut e = *c;
            e[w] -= n;
            (e, 3 - n)
        })
    }

    /// `plain` (the distance of `c` without the triple) bettered by the triple, if it can be.
    fn tripled(&self, c: &Counts, target: u8, plain: u8) -> u8 {
        match self.triple_part(c, target) {
            Some((e, miss)) => plain.min(self.plain_distance(&e, target - 3) + miss),
            None => plain,
        }
    }

    /// Distance of the pool `c` to a complete pool of `target` cards: `target − |c|` more than
    /// the exchanges needed (so 0 for a complete pool, 1 for a pool one short with waits).
    fn distance(&self, c: &Counts, target: u8) -> u8 {
        self.tripled(c, target, self.plain_distance(c, target))
    }

    /// The distances of `c` and of `c` with one more `k`: only the block of `k` is redone.
    fn distance_and_with(&self, c: &Counts, target: u8, k: usize) -> (u8, u8) {
        let mut with = *c;
        with[k] += 1;
        let mut f = [Front::EMPTY; 3];
        for (b, f) in f.iter_mut().enumerate() {
            self.block(c, b, target, &[], std::slice::from_mut(f));
        }
        let now = Self::joined(&f[0], &f[1], &f[2], target);
        let b = block_of(k);
        self.block(&with, b, target, &[], std::slice::from_mut(&mut f[b]));
        let then = Self::joined(&f[0], &f[1], &f[2], target);
        (
            self.tripled(c, target, now),
            self.tripled(&with, target, then),
        )
    }

    /// `out[k]`: the distance of `c` less one card of kind `k`, for each `k` of `kinds` (held
    /// in `c`).
    fn distances_without(&self, c: &Counts, target: u8, kinds: &[usize], out: &mut [u8; 28]) {
        self.plain_without(c, target, kinds, out);
        let Some((e, miss)) = self.triple_part(c, target) else {
            return;
        };
        let w = self.triple.unwrap_or(0);
        let mut others = [0usize; 28];
        let mut n = 0;
        for &k in kinds {
            if k == w {
                let mut less = *c;
                less[w] -= 1;
                out[w] = self.distance(&less, target);
            } else {
                others[n] = k;
                n += 1;
            }
        }
        let mut t = [0; 28];
        self.plain_without(&e, target - 3, &others[..n], &mut t);
        for &k in &others[..n] {
            out[k] = out[k].min(t[k] + miss);
        }
    }

    /// `distances_without` without the triple: each block is computed once, with its
    /// candidates as variants.
    fn plain_without(&self, c: &Counts, target: u8, kinds: &[usize], out: &mut [u8; 28]) {
        let mut fronts = [[Front::EMPTY; 13]; 3];
        let mut mine = [[0usize; 12]; 3];
        let mut n = [0usize; 3];
        for &k in kinds {
            let b = block_of(k);
            mine[b][n[b]] = k;
            n[b] += 1;
        }
        for b in 0..3 {
            self.block(c, b, target, &mine[b][..n[b]], &mut fronts[b][..=n[b]]);
        }
        for b in 0..3 {
            for v in 0..n[b] {
                let mut f = [fronts[0][0], fronts[1][0], fronts[2][0]];
                f[b] = fronts[b][v + 1];
                out[mine[b][v]] = Self::joined(&f[0], &f[1], &f[2], target);
            }
        }
    }
}

/// The extra cards of the legal sowee secrets, kings left out.
fn sowee_extras(legal: &[Action]) -> Vec<usize> {
    legal
        .iter()
        .filter_map(|&a| match a {
            Action::SoweeSecret(x) if !eval::is_king(x as usize) => Some(x as usize),
            _ => None,
        })
        .collect()
}

/// The kinds that share a combination with `k`: the same rank in other suits, the rest of its
/// sequence in its suit.
fn partners(k: usize) -> impl Iterator<Item = usize> {
    let (s, r) = (suit_of(k), rank_of(k));
    let sets = (0..4).filter(move |&t| t != s).map(move |t| kind(t, r));
    let first = if r < JACK { THREE } else { JACK };
    let runs = (first..first + 3)
        .filter(move |&q| r != ACE && q != r)
        .map(move |q| kind(s, q));
    sets.chain(runs)
}

impl Cuajo {
    /// The heuristic bot's choice among `legal` (see the module comment).
    pub(super) fn rule_of_thumb(&self, legal: &[Action], rng: &mut Rng) -> Action {
        if legal.len() == 1 {
            return legal[0];
        }
        let s = self.current as usize;
        let has = |a: Action| legal.contains(&a);
        match self.phase {
            // A win now beats any chance of one later.
            Phase::DrawerOption if has(Action::Win) => Action::Win,
            Phase::Claim if has(Action::Claim) => Action::Claim,
            Phase::PurroCall if has(Action::Purro) => Action::Purro,
            Phase::Marker => self.choose_marker(s, legal),
            Phase::Draw => self.choose_draw(s, legal),
            Phase::Opening | Phase::Action => self.choose_play(s, legal, rng),
            _ => legal[rng.below(legal.len() as u64) as usize],
        }
    }

    /// The evaluator `s` plans with. The three copies of the sowee make a combination once
    /// declared as a secret (which is paid too), so they are planned for as one while no copy
    /// is seen out of his reach (or always, when undeclared ones count).
    fn evaluator(&self, s: usize) -> Evaluator {
        let w = self.sowee as usize;
        let mut lying = self.lying[w];
        if self.top_discard() == Some(w as u8) {
            lying -= 1;
        }
        let reachable = self.rules.sowee_triple
            || (self.committed[s][w] == 0
                && lying == 0
                && (0..SEATS).all(|q| q == s || self.shown_held(q, w) == 0));
        Evaluator::new(self.rules.quads, reachable.then_some(w))
    }

    /// Cards of a complete pool: 16 less those laid in secrets.
    fn target(&self, s: usize) -> u8 {
        16 - eval::total(&self.committed[s]) as u8
    }

    /// Take the top discard when it brings the hand closer (or completes it), else draw.
    fn choose_draw(&self, s: usize, legal: &[Action]) -> Action {
        let top = self.top_discard();
        let (Some(top), true) = (top, legal.contains(&Action::Take)) else {
            return if legal.contains(&Action::Draw) {
                Action::Draw
            } else {
                legal[0]
            };
        };
        if !legal.contains(&Action::Draw) {
            // The stock is empty: `take` is offered only when it wins.
            return Action::Take;
        }
        let ev = self.evaluator(s);
        let (pool, target) = (self.pool(s), self.target(s));
        let (now, with) = ev.distance_and_with(&pool, target, top as usize);
        if with < now {
            Action::Take
        } else {
            Action::Draw
        }
    }

    /// Opening or action phase: secrets that cost nothing, a win, else the best discard.
    fn choose_play(&self, s: usize, legal: &[Action], rng: &mut Rng) -> Action {
        let ev = self.evaluator(s);
        let pool = self.pool(s);
        let target = self.target(s);
        let win = legal.contains(&Action::Win);
        // Nothing to discard and no win: only secrets.
        let dead = !win && !legal.iter().any(|a| matches!(a, Action::Discard(_)));
        let w = self.sowee as usize;
        // A secret is paid at once; lay it when it keeps the win (the rules allowing a win
        // after it) or does not lengthen the way to one. Without a discard or a win, all.
        let worth = |cards: usize, n: u8| {
            let mut rest = pool;
            rest[cards] -= n;
            if dead {
                true
            } else if win {
                self.rules.secret_then_win && eval::partitionable(&rest, self.melds())
            } else {
                ev.distance(&rest, target - n) <= ev.distance(&pool, target)
            }
        };
        for &a in legal {
            if let Action::Secret(k) = a {
                if worth(k as usize, 4) {
                    return a;
                }
            }
        }
        if legal.iter().any(|a| matches!(a, Action::SoweeSecret(_))) && worth(w, 3) {
            return self.sowee_extra(s, legal, &ev);
        }
        if win {
            return Action::Win;
        }
        self.choose_discard(s, legal, rng, &ev).unwrap_or(legal[0])
    }

    /// The extra card of a sowee secret can never be discarded: a king (never discardable
    /// anyway) if there is one, else the card whose loss would hurt the hand most.
    fn sowee_extra(&self, s: usize, legal: &[Action], ev: &Evaluator) -> Action {
        let mut pool = self.pool(s);
        pool[self.sowee as usize] -= 3;
        let target = self.target(s) - 3;
        let kinds = sowee_extras(legal);
        let mut without = [0; 28];
        ev.distances_without(&pool, target, &kinds, &mut without);
        let mut best = None;
        let mut best_key = (0, 0);
        for &a in legal {
            let Action::SoweeSecret(x) = a else { continue };
            let x = x as usize;
            let key = if eval::is_king(x) {
                (u8::MAX, 0)
            } else {
                (without[x], 4 - pool[x])
            };
            if best.is_none() || key > best_key {
                (best, best_key) = (Some(a), key);
            }
        }
        best.unwrap_or(legal[0])
    }

    /// Copies of `k` that `s` has not seen: not his, not lying in the pile, not publicly held.
    fn unseen(&self, s: usize, own: &Counts, lying: &Counts, k: usize) -> u8 {
        let shown: u8 = (0..SEATS)
            .filter(|&q| q != s)
            .map(|q| self.shown_held(q, k))
            .sum();
        self.copies_in_play(k)
            .saturating_sub(own[k] + lying[k] + shown)
    }

    /// The discard that leaves the pool closest to complete. Among those: when that means
    /// waits, the most live copies of the waits (a wait no copy is left of does not keep
    /// purro, so it counts as one step further); then the card joining the fewest others in
    /// hand and least likely to help the next seat (an opponent) take and use it; then `rng`.
    fn choose_discard(
        &self,
        s: usize,
        legal: &[Action],
        rng: &mut Rng,
        ev: &Evaluator,
    ) -> Option<Action> {
        let pool = self.pool(s);
        let target = self.target(s);
        let kinds: Vec<usize> = legal
            .iter()
            .filter_map(|&a| match a {
                Action::Discard(k) => Some(k as usize),
                _ => None,
            })
            .collect();
        let mut without = [0; 28];
        ev.distances_without(&pool, target, &kinds, &mut without);
        let own = self.all_cards(s);
        let opp = next(s);
        // (distance, minus the live cards that bring it down, keep score, action)
        let mut cands: Vec<(u8, i32, i32, Action)> = Vec::with_capacity(16);
        for &a in legal {
            let Action::Discard(k) = a else { continue };
            let k = k as usize;
            let mut d = without[k];
            let mut outs = 0i32;
            if d == 1 {
                let (rest, own_after, lying) = self.after_discard(&pool, &own, k);
                let waits = self.waits_after(s, &rest, &own_after, &lying);
                outs = (0..eval::KINDS)
                    .filter(|&t| waits & (1 << t) != 0)
                    .map(|t| self.unseen(s, &own_after, &lying, t) as i32)
                    .sum();
                if waits == 0 {
                    d = 2;
                }
            }
            cands.push((d, -outs, self.keep_score(s, opp, &pool, &own, k), a));
        }
        let mut best: Option<Action> = None;
        let mut best_key = (u8::MAX, 0i32, 0i32);
        let mut ties = 0;
        for &(d, outs, keep, a) in &cands {
            let key = (d, outs, keep);
            if best.is_none() || key < best_key {
                (best, best_key, ties) = (Some(a), key, 1);
            } else if key == best_key {
                // Uniform among equals, one draw per tie.
                ties += 1;
                if rng.below(ties) == 0 {
                    best = Some(a);
                }
            }
        }
        best
    }

    /// The pool, all cards and the lying discards after discarding `k`.
    fn after_discard(&self, pool: &Counts, own: &Counts, k: usize) -> (Counts, Counts, Counts) {
        let (mut rest, mut own_after, mut lying) = (*pool, *own, self.lying);
        rest[k] -= 1;
        own_after[k] -= 1;
        lying[k] += 1;
        (rest, own_after, lying)
    }

    /// Waits of `s` with `pool`, as the rules count them at the end of his turn.
    fn waits_after(&self, s: usize, pool: &Counts, own: &Counts, lying: &Counts) -> u32 {
        let seen: Counts = if self.rules.dead_waits_count {
            [0; eval::KINDS]
        } else {
            std::array::from_fn(|k| {
                lying[k]
                    + (0..SEATS)
                        .filter(|&q| q != s)
                        .map(|q| self.shown_held(q, k))
                        .sum::<u8>()
            })
        };
        eval::waits(
            pool,
            own,
            |k| self.copies_in_play(k).saturating_sub(seen[k]),
            self.melds(),
        )
    }

    /// How much keeping one `k` is worth beyond the distance (lower: discard it first): the
    /// partners it has in hand (split among its copies), plus the danger of handing it to
    /// `opp`, the only seat that can take it: partners publicly in his hand make it more
    /// dangerous (doubly so when he is purro), a kind he threw away himself or partners with
    /// no copy left unseen make it safer.
    fn keep_score(&self, s: usize, opp: usize, pool: &Counts, own: &Counts, k: usize) -> i32 {
        let linked = partners(k).filter(|&j| pool[j] > 0).count() as i32;
        let mut keep = 6 * linked / pool[k] as i32;
        let mut danger = 0;
        for j in partners(k) {
            danger += 3 * self.known[opp][j] as i32;
            if self.unseen(s, own, &self.lying, j) == 0 {
                danger -= 1;
            }
        }
        if self.discarded[opp][k] > 0 {
            danger -= 2;
        }
        if self.purro[opp] && self.may_win(opp) {
            danger *= 2;
        }
        keep += danger;
        keep
    }

    /// The purro marker shows a king of that suit is held: show the one that says least (no
    /// jack or horse of its suit with it) and is least likely to go into a secret (fewest
    /// copies), so it need not be chosen again.
    fn choose_marker(&self, s: usize, legal: &[Action]) -> Action {
        let hand = &self.concealed[s];
        legal
            .iter()
            .copied()
            .filter_map(|a| match a {
                Action::Marker(suit) => {
                    let suit = suit as usize;
                    let k = kind(suit, KING);
                    let runs = (hand[k - 1] > 0) as u8 + (hand[k - 2] > 0) as u8;
                    Some(((runs, hand[k], suit), a))
                }
                _ => None,
            })
            .min_by_key(|&(key, _)| key)
            .map_or(legal[0], |(_, a)| a)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::game::Game;
    use eval::Melds;
    use serde_json::json;

    fn random_pool(rng: &mut Rng, n: usize) -> Counts {
        let mut c = [0u8; eval::KINDS];
        let mut left = n;
        while left > 0 {
            // Half the time a whole combination, so that near-complete hands come up.
            let s = rng.below(4) as usize;
            if rng.below(2) == 0 && left >= 3 {
                let r = rng.below(7) as usize;
                let cards: Vec<usize> = if rng.below(2) == 0 && r != ACE && r != KING {
                    let first = if r < JACK { THREE } else { JACK };
                    (first..first + 3).map(|q| kind(s, q)).collect()
                } else {
                    (0..4).filter(|&t| t != s).map(|t| kind(t, r)).collect()
                };
                if cards.iter().all(|&k| c[k] < 4) {
                    cards.iter().for_each(|&k| c[k] += 1);
                    left -= 3;
                }
            } else {
                let k = rng.below(eval::KINDS as u64) as usize;
                if c[k] < 4 {
                    c[k] += 1;
                    left -= 1;
                }
            }
        }
        c
    }

    #[test]
    fn distance_matches_the_evaluator() {
        let mut rng = Rng::new(11);
        for quads in [true, false] {
            let ev = Evaluator::new(quads, None);
            for i in 0..1200 {
                let n = 15 + (i % 2);
                let c = random_pool(&mut rng, n);
                let d = ev.distance(&c, 16);
                if quads {
                    assert_eq!(d, eval::distance(&c), "{c:?}");
                }
                if n == 16 {
                    assert_eq!(
                        d == 0,
                        eval::partitionable(
                            &c,
                            Melds {
                                quads,
                                triple: None
                            }
                        )
                    );
                    let kinds: Vec<usize> = (0..eval::KINDS).filter(|&k| c[k] > 0).collect();
                    let mut without = [0; 28];
                    ev.distances_without(&c, 16, &kinds, &mut without);
                    for &k in &kinds {
                        let mut e = c;
                        e[k] -= 1;
                        assert_eq!(without[k], ev.distance(&e, 16), "{c:?} - {k}");
                        if quads && i % 16 == 1 {
                            assert_eq!(without[k], eval::distance(&e), "{c:?} - {k}");
                        }
                    }
                } else {
                    let w = eval::waits(
                        &c,
                        &c,
                        |_| 4,
                        Melds {
                            quads,
                            triple: None,
                        },
                    );
                    assert_eq!(d == 1, w != 0, "{c:?}");
                    let k = (i / 2 * 7) % eval::KINDS;
                    if c[k] < 4 {
                        let mut e = c;
                        e[k] += 1;
                        let want = (d, ev.distance(&e, 16));
                        assert_eq!(ev.distance_and_with(&c, 16, k), want, "{c:?} + {k}");
                    }
                }
            }
        }
    }

    #[test]
    fn the_sowee_triple_counts_when_planned_for() {
        let mut rng = Rng::new(13);
        for i in 0..3000 {
            let w = (i * 5) % eval::KINDS;
            let ev = Evaluator::new(true, Some(w));
            let melds = Melds {
                quads: true,
                triple: Some(w as u8),
            };
            let mut c = random_pool(&mut rng, 13);
            // Two or three copies of the sowee, the rest of 16 at random.
            let want = 2 + (i % 2) as u8;
            while c[w] > want {
                c[w] -= 1;
            }
            while c[w] < want {
                c[w] += 1;
            }
            while eval::total(&c) < 16 {
                let k = rng.below(eval::KINDS as u64) as usize;
                if k != w && c[k] < 4 {
                    c[k] += 1;
                }
            }
            while eval::total(&c) > 16 {
                let k = rng.below(eval::KINDS as u64) as usize;
                if k != w && c[k] > 0 {
                    c[k] -= 1;
                }
            }
            let d = ev.distance(&c, 16);
            assert_eq!(d == 0, eval::partitionable(&c, melds), "{c:?} sowee {w}");
            assert!(d <= Evaluator::new(true, None).distance(&c, 16));
            let kinds: Vec<usize> = (0..eval::KINDS).filter(|&k| c[k] > 0).collect();
            let mut without = [0; 28];
            ev.distances_without(&c, 16, &kinds, &mut without);
            for &k in &kinds {
                let mut e = c;
                e[k] -= 1;
                assert_eq!(without[k], ev.distance(&e, 16), "{c:?} - {k}");
                // The distance counts four copies of every kind (a fourth sowee too).
                let waits = eval::waits(&e, &e, |_| 4, melds);
                if c[w] == 3 && k != w {
                    assert_eq!(without[k] == 1, waits != 0, "{e:?} sowee {w}");
                }
            }
        }
    }

    #[test]
    fn smaller_pools_are_measured_against_their_own_size() {
        let ev = Evaluator::new(true, None);
        let mut rng = Rng::new(12);
        for _ in 0..2000 {
            let c = random_pool(&mut rng, 12);
            let complete = eval::partitionable(&c, Melds::DEFAULT);
            assert_eq!(ev.distance(&c, 12) == 0, complete, "{c:?}");
        }
    }

    fn config(extra: serde_json::Value) -> super::super::Config {
        let mut v = json!({"hands_per_match": 1});
        for (k, x) in extra.as_object().unwrap() {
            v[k] = x.clone();
        }
        let mut c: super::super::Config = serde_json::from_value(v).unwrap();
        Cuajo::check_config(&mut c).unwrap();
        c
    }

    /// One hand, team `heur` (seats `heur`, `heur + 2`) heuristic, the other random: the
    /// heuristic team's return, with the number of heuristic decisions and their time.
    #[allow(clippy::disallowed_methods)] // the clock only times the test's own calls
    fn play(
        config: &super::super::Config,
        seed: u64,
        heur: usize,
        timing: &mut (u64, std::time::Duration),
    ) -> f64 {
        let mut g = Cuajo::new(config, Rng::new(seed));
        let mut bot = Rng::new(seed.wrapping_mul(0x9E37_79B9) ^ 0xC0FFEE);
        let mut legal = Vec::with_capacity(32);
        while let Some(p) = g.current_player() {
            legal.clear();
            g.legal_actions(&mut legal);
            let a = if p % 2 == heur {
                let t = std::time::Instant::now();
                let a = g.heuristic_action(&legal, &mut bot);
                timing.1 += t.elapsed();
                timing.0 += 1;
                a
            } else {
                legal[bot.below(legal.len() as u64) as usize]
            };
            g.apply_unchecked(a);
        }
        let mut out = [0.0; 4];
        g.returns(&mut out);
        out[heur]
    }

    /// Duplicate match over `seeds`: each deal played twice, the heuristic team swapped.
    /// The mean of the per-seed means and its 95% half-width.
    fn duplicate(seeds: u64) -> (f64, f64) {
        let config = config(json!({}));
        // Build the tables before the clock starts.
        rank_table(true);
        let mut timing = (0, std::time::Duration::ZERO);
        let means: Vec<f64> = (0..seeds)
            .map(|seed| {
                let a = play(&config, seed, 0, &mut timing);
                let b = play(&config, seed, 1, &mut timing);
                (a + b) / 2.0
            })
            .collect();
        let n = means.len() as f64;
        let mean = means.iter().sum::<f64>() / n;
        let var = means.iter().map(|x| (x - mean).powi(2)).sum::<f64>() / (n - 1.0);
        let half = 1.96 * var.sqrt() / n.sqrt();
        println!(
            "cuajo heuristic vs random, {seeds} deals x 2 seatings: mean team return \
             {mean:.1} ± {half:.1} cents; {:.2} µs per heuristic decision ({} decisions)",
            timing.1.as_secs_f64() * 1e6 / timing.0 as f64,
            timing.0
        );
        (mean, half)
    }

    #[test]
    #[ignore]
    fn heuristic_beats_random() {
        let (mean, half) = duplicate(1000);
        assert!(mean - half > 0.0, "{mean} ± {half}");
    }

    #[test]
    fn heuristic_beats_random_quickly() {
        let (mean, _) = duplicate(100);
        assert!(mean > 0.0, "{mean}");
    }

    /// Over games of several rule sets, every heuristic choice is legal and the same for the
    /// same rng.
    #[test]
    fn heuristic_is_legal_and_deterministic() {
        let configs = [
            json!({}),
            json!({"purro_call": "optional", "purro_marker": "player_choice",
                   "dead_waits_count": false, "may_rediscard_taken_card": false}),
            json!({"undeclared_quad_valid": false, "sowee_triple_undeclared_valid": true,
                   "secret_on_winning_turn": false, "empty_stock": "immediate_wash"}),
        ];
        let mut legal = Vec::new();
        for (i, extra) in configs.into_iter().enumerate() {
            let config = config(extra);
            for seed in 0..40 {
                let mut g = Cuajo::new(&config, Rng::new(seed));
                let mut bot = Rng::new(seed ^ 77);
                let mut steps = 0;
                while g.current_player().is_some() {
                    legal.clear();
                    g.legal_actions(&mut legal);
                    let mut r = Rng::new(seed * 1000 + steps);
                    let mut again = r;
                    let a = g.heuristic_action(&legal, &mut r);
                    assert!(legal.contains(&a), "config {i} seed {seed}: {a} not legal");
                    assert_eq!(a, g.heuristic_action(&legal, &mut again));
                    assert_eq!(r, again);
                    // Mostly the heuristic, sometimes random, to reach odd positions.
                    let a = if bot.below(5) == 0 {
                        legal[bot.below(legal.len() as u64) as usize]
                    } else {
                        a
                    };
                    g.apply_unchecked(a);
                    steps += 1;
                }
            }
        }
    }
}
