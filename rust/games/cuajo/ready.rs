//! Exact sampling of the unseen cards of a hand that has waits, for determinisation.
//!
//! A seat that is purro was seen to hold a hand with waits: a random hand of the cards the
//! viewer has not seen has waits only once in many thousand tries, so rejection cannot find such
//! hands. This module draws the unseen part `Y` of such a hand directly, with the probability a
//! uniform deal gives it, conditioned on the hand having waits:
//!
//! * the hand is `B + Y`: `B` the cards known to be in it, `Y` drawn from the unseen cards `R`
//!   with weight `Π_k C(R_k, Y_k)` (the number of ways a shuffle deals those copies);
//! * a hand with waits is `G − t` for a complete hand `G` and a kind `t` still available, so
//!   the pairs `(G, t)` are counted: completeness is decided by blocks (aces, 3-4-5, J-H-K; see
//!   `eval`), and the valid patterns of each block are listed once, so the weights of the
//!   complete hands of each size, per block, multiply into the total;
//! * a pair is drawn in proportion to its weight, and kept with probability `1 / |waits|`
//!   (Karp–Luby): each hand is then drawn in proportion to its own weight, exactly.

use super::eval::{kind, Counts, KINDS, KING, SETS_AND_QUADS, SETS_ONLY};
use crate::rng::Rng;
use std::collections::{BTreeMap, BTreeSet};
use std::sync::OnceLock;

/// Most cards a pattern (and a hand to complete) has.
const MOST: usize = 16;
type Poly = [f64; MOST + 1];

/// The valid patterns of each block, for one rank table.
struct Patterns {
    /// Aces by suit.
    aces: Vec<[u8; 4]>,
    /// 3s, 4s and 5s by suit (`4·(rank − 1) + suit`).
    low: Vec<[u8; 12]>,
    /// Jacks and horses by suit, with the least sequence choices (per suit) that make them
    /// valid: the kings must cover one of them (kings beyond stand alone).
    high: Vec<([u8; 8], Vec<[u8; 4]>)>,
}

fn patterns(quads: bool) -> &'static Patterns {
    static WITH_QUADS: OnceLock<Patterns> = OnceLock::new();
    static SETS: OnceLock<Patterns> = OnceLock::new();
    let cell = if quads { &WITH_QUADS } else { &SETS };
    cell.get_or_init(|| build(if quads { &SETS_AND_QUADS } else { &SETS_ONLY }))
}

fn build(table: &[bool; 625]) -> Patterns {
    let mut ranks: Vec<[u8; 4]> = (0..625usize)
        .filter(|&i| table[i])
        .map(|i| {
            [
                (i / 125) as u8,
                (i / 25 % 5) as u8,
                (i / 5 % 5) as u8,
                (i % 5) as u8,
            ]
        })
        .collect();
    ranks.sort_by_key(|p| size(p));
    let runs: Vec<[u8; 4]> = (0..625usize)
        .map(|i| {
            [
                (i / 125) as u8,
                (i / 25 % 5) as u8,
                (i / 5 % 5) as u8,
                (i % 5) as u8,
            ]
        })
        .collect();
    let mut low = BTreeSet::new();
    let mut high: BTreeMap<[u8; 8], Vec<[u8; 4]>> = BTreeMap::new();
    for s in &runs {
        let seq = size(s);
        for a in ranks.iter().take_while(|a| 2 * seq + size(&a[..]) <= MOST) {
            for b in ranks
                .iter()
                .take_while(|b| 2 * seq + size(a) + size(&b[..]) <= MOST)
            {
                let (Some(j), Some(h)) = (plus(a, s), plus(b, s)) else {
                    continue;
                };
                let mut jh = [0u8; 8];
                jh[..4].copy_from_slice(&j);
                jh[4..].copy_from_slice(&h);
                high.entry(jh).or_default().push(*s);
                for c in ranks
                    .iter()
                    .take_while(|c| 3 * seq + size(a) + size(b) + size(&c[..]) <= MOST)
                {
                    if let Some(l) = plus(c, s) {
                        let mut p = [0u8; 12];
                        p[..8].copy_from_slice(&jh);
                        p[8..].copy_from_slice(&l);
                        low.insert(p);
                    }
                }
            }
        }
    }
    let high = high
        .into_iter()
        .map(|(jh, runs)| {
            let least: Vec<[u8; 4]> = runs
                .iter()
                .filter(|r| !runs.iter().any(|o| o != *r && (0..4).all(|i| o[i] <= r[i])))
                .copied()
                .collect::<BTreeSet<_>>()
                .into_iter()
                .collect();
            (jh, least)
        })
        .collect();
    Patterns {
        aces: ranks
            .iter()
            .filter(|p| size(&p[..]) <= MOST)
            .copied()
            .collect(),
        low: low.into_iter().collect(),
        high,
    }
}

fn size(p: &[u8]) -> usize {
    p.iter().map(|&c| c as usize).sum()
}

fn plus(a: &[u8; 4], s: &[u8; 4]) -> Option<[u8; 4]> {
    let p: [u8; 4] = std::array::from_fn(|i| a[i] + s[i]);
    p.iter().all(|&c| c <= 4).then_some(p)
}

/// The kinds of the aces, low and high blocks in pattern order.
fn ace_kinds() -> [usize; 4] {
    std::array::from_fn(|s| kind(s, 0))
}
fn low_kinds() -> [usize; 12] {
    std::array::from_fn(|i| kind(i % 4, 1 + i / 4))
}
fn jh_kinds() -> [usize; 8] {
    std::array::from_fn(|i| kind(i % 4, 4 + i / 4))
}

const fn binomial(n: u8, k: i32) -> f64 {
    const C: [[f64; 5]; 5] = [
        [1.0, 0.0, 0.0, 0.0, 0.0],
        [1.0, 1.0, 0.0, 0.0, 0.0],
        [1.0, 2.0, 1.0, 0.0, 0.0],
        [1.0, 3.0, 3.0, 1.0, 0.0],
        [1.0, 4.0, 6.0, 4.0, 1.0],
    ];
    if k < 0 || k > n as i32 || n > 4 {
        0.0
    } else {
        C[n as usize][k as usize]
    }
}

fn mul(a: &Poly, b: &Poly) -> Poly {
    let mut out = [0.0; MOST + 1];
    for (i, &x) in a.iter().enumerate().filter(|(_, &x)| x != 0.0) {
        for (j, &y) in b.iter().enumerate().take(MOST + 1 - i) {
            out[i + j] += x * y;
        }
    }
    out
}

/// An index drawn in proportion to `weights` (their sum is `total > 0`).
fn pick<I: Iterator<Item = f64>>(weights: I, total: f64, rng: &mut Rng) -> usize {
    let u = (rng.next_u64() >> 11) as f64 / (1u64 << 53) as f64 * total;
    let mut acc = 0.0;
    let mut last = 0;
    for (i, w) in weights.enumerate() {
        if w > 0.0 {
            acc += w;
            last = i;
            if u < acc {
                return i;
            }
        }
    }
    last
}

/// A hand to complete: its known cards, the unseen cards, the cards in its secrets and the
/// copies of each kind in play (for the waits that are still available).
pub struct Hand {
    pub known: Counts,
    pub unseen: Counts,
    pub committed: Counts,
    pub copies: [u8; KINDS],
    /// Cards of the hand to arrange (known and unseen): a complete hand has one more.
    pub cards: usize,
    pub quads: bool,
}

/// Per kind and count in a complete hand, its weight without the wait there (`plain`) and
/// with it (`wait`): the ways to deal the unseen copies it needs.
struct Factors {
    plain: [[f64; 5]; KINDS],
    wait: [[f64; 5]; KINDS],
}

impl Factors {
    fn of(hand: &Hand) -> Self {
        let mut f = Factors {
            plain: [[0.0; 5]; KINDS],
            wait: [[0.0; 5]; KINDS],
        };
        for k in 0..KINDS {
            for c in 0..5u8 {
                let need = i32::from(c) - i32::from(hand.known[k]);
                f.plain[k][c as usize] = binomial(hand.unseen[k], need);
                if c + hand.committed[k] <= hand.copies[k] {
                    f.wait[k][c as usize] = binomial(hand.unseen[k], need - 1);
                }
            }
        }
        f
    }

    /// A pattern's weight with no wait in it, and the sum over the waits in it.
    fn weights(&self, kinds: &[usize], p: &[u8]) -> (f64, f64) {
        let (mut w, mut zero) = (1.0, None);
        for (i, (&k, &c)) in kinds.iter().zip(p).enumerate() {
            let x = self.plain[k][c as usize];
            if x == 0.0 {
                if zero.is_some() {
                    return (0.0, 0.0);
                }
                zero = Some(i);
            } else {
                w *= x;
            }
        }
        match zero {
            Some(i) => (0.0, w * self.wait[kinds[i]][p[i] as usize]),
            None => {
                let wt = kinds
                    .iter()
                    .zip(p)
                    .map(|(&k, &c)| w / self.plain[k][c as usize] * self.wait[k][c as usize])
                    .sum();
                (w, wt)
            }
        }
    }

    /// The weight of a pattern with the wait on its `i`-th kind.
    fn with_wait_at(&self, kinds: &[usize], p: &[u8], i: usize) -> f64 {
        kinds
            .iter()
            .zip(p)
            .enumerate()
            .map(|(j, (&k, &c))| {
                if j == i {
                    self.wait[k][c as usize]
                } else {
                    self.plain[k][c as usize]
                }
            })
            .product()
    }
}

fn one() -> Poly {
    let mut p = [0.0; MOST + 1];
    p[0] = 1.0;
    p
}

/// The kings: per suit and lower bound, the weights by number of kings of that suit; and for
/// every lower bound by suit (index `Σ b_s·5^(3−s)`) the weights by number of kings of the
/// king counts at or above it. Variant `[0]` has no wait among the kings, `[1 + s]` the wait on
/// the king of suit `s`.
struct Kings {
    suit: [[[Poly; 5]; 4]; 5],
    /// Filled on first use: most bounds never come up.
    covering: Vec<std::sync::OnceLock<Poly>>,
}

impl Kings {
    fn of(f: &Factors) -> Self {
        let mut suit = [[[[0.0; MOST + 1]; 5]; 4]; 5];
        for (v, by_suit) in suit.iter_mut().enumerate() {
            for (s, by_bound) in by_suit.iter_mut().enumerate() {
                let k = kind(s, KING);
                for (b, poly) in by_bound.iter_mut().enumerate() {
                    for (n, cell) in poly.iter_mut().enumerate().take(5).skip(b) {
                        *cell = if v == 1 + s {
                            f.wait[k][n]
                        } else {
                            f.plain[k][n]
                        };
                    }
                }
            }
        }
        let covering = (0..625 * 5).map(|_| std::sync::OnceLock::new()).collect();
        Kings { suit, covering }
    }

    fn covering(&self, low: [u8; 4], v: usize) -> &Poly {
        self.covering[index(low) * 5 + v].get_or_init(|| {
            (0..4).fold(one(), |acc, s| mul(&acc, &self.suit[v][s][low[s] as usize]))
        })
    }

    /// Weights by number of kings of the king counts covering one of `least` (inclusion and
    /// exclusion over them), with wait variant `v`.
    fn sum(&self, least: &[[u8; 4]], v: usize) -> Poly {
        let mut out = [0.0; MOST + 1];
        let n = least.len();
        for mask in 1..(1usize << n) {
            let low: [u8; 4] = std::array::from_fn(|i| {
                (0..n)
                    .filter(|&j| mask & (1 << j) != 0)
                    .map(|j| least[j][i])
                    .max()
                    .unwrap_or(0)
            });
            let sign = if mask.count_ones() % 2 == 1 {
                1.0
            } else {
                -1.0
            };
            for (o, c) in out.iter_mut().zip(self.covering(low, v)) {
                *o += sign * c;
            }
        }
        out
    }

    /// King counts covering one of `least`, `total` in all, drawn in proportion to their
    /// weights: a bound drawn in proportion to what it covers, then the suits one by one, kept
    /// with probability 1 / (bounds covered) (Karp–Luby).
    fn draw(&self, least: &[[u8; 4]], v: usize, total: usize, rng: &mut Rng) -> Option<[u8; 4]> {
        let per: Vec<f64> = least
            .iter()
            .map(|&low| self.covering(low, v)[total])
            .collect();
        let sum: f64 = per.iter().sum();
        if sum <= 0.0 {
            return None;
        }
        for _ in 0..1000 {
            let low = least[pick(per.iter().copied(), sum, rng)];
            let mut kings = [0u8; 4];
            let mut left = total;
            for s in 0..4 {
                let rest =
                    (s + 1..4).fold(one(), |acc, r| mul(&acc, &self.suit[v][r][low[r] as usize]));
                let poly = &self.suit[v][s][low[s] as usize];
                let weights: Vec<f64> = (0..5)
                    .map(|n| {
                        if n <= left {
                            poly[n] * rest[left - n]
                        } else {
                            0.0
                        }
                    })
                    .collect();
                let w: f64 = weights.iter().sum();
                if w <= 0.0 {
                    return None;
                }
                let n = pick(weights.iter().copied(), w, rng);
                kings[s] = n as u8;
                left -= n;
            }
            let covered = least
                .iter()
                .filter(|l| (0..4).all(|i| kings[i] >= l[i]))
                .count() as u64;
            if rng.below(covered.max(1)) == 0 {
                return Some(kings);
            }
        }
        None
    }
}

fn index(b: [u8; 4]) -> usize {
    b.iter().fold(0, |acc, &x| acc * 5 + x as usize)
}

/// A block pattern with weight: its index in the block's list, its size, its weight without
/// the wait and with it.
#[derive(Clone, Copy)]
struct Weighted {
    i: usize,
    size: usize,
    plain: f64,
    wait: f64,
}

fn weighted<'a>(
    f: &Factors,
    kinds: &[usize],
    list: impl Iterator<Item = &'a [u8]>,
) -> Vec<Weighted> {
    list.enumerate()
        .filter_map(|(i, q)| {
            let (plain, wait) = f.weights(kinds, q);
            (plain > 0.0 || wait > 0.0).then(|| Weighted {
                i,
                size: size(q),
                plain,
                wait,
            })
        })
        .collect()
}

/// A hand's complete hands counted once, to draw its unseen cards from many times.
pub struct Ready {
    hand: Hand,
    p: &'static Patterns,
    f: Factors,
    kings: Kings,
    aces: Vec<Weighted>,
    low: Vec<Weighted>,
    /// High-block J-H patterns with their kings' weights by number: with no wait among the
    /// kings, then with the wait on the king of each suit.
    high: Vec<(Weighted, [Poly; 5])>,
    /// Block sizes (aces, low, high), the block holding the wait, and the weight.
    splits: Vec<([usize; 3], usize, f64)>,
    all: f64,
    /// Per block, without and with the wait, per size: the pattern choices.
    tables: [[[std::sync::OnceLock<Table>; MOST + 2]; 2]; 3],
}

impl Ready {
    /// `None` if the hand cannot have waits.
    pub fn new(hand: Hand) -> Option<Self> {
        let p = patterns(hand.quads);
        let g = hand.cards + 1;
        if g > MOST || total(&hand.known) > hand.cards {
            return None;
        }
        let f = Factors::of(&hand);
        let kings = Kings::of(&f);
        let aces = weighted(&f, &ace_kinds(), p.aces.iter().map(|q| &q[..]));
        let low = weighted(&f, &low_kinds(), p.low.iter().map(|q| &q[..]));
        let high: Vec<(Weighted, [Poly; 5])> =
            weighted(&f, &jh_kinds(), p.high.iter().map(|(q, _)| &q[..]))
                .into_iter()
                .map(|x| {
                    let least = &p.high[x.i].1;
                    (x, std::array::from_fn(|v| kings.sum(least, v)))
                })
                .collect();
        let mut plain = [[0.0; MOST + 1]; 3];
        let mut wait = [[0.0; MOST + 1]; 3];
        for (b, list) in [&aces, &low].into_iter().enumerate() {
            for x in list {
                plain[b][x.size] += x.plain;
                wait[b][x.size] += x.wait;
            }
        }
        for (x, polys) in &high {
            for j in 0..=MOST - x.size {
                let in_kings: f64 = polys[1..].iter().map(|k| k[j]).sum();
                plain[2][x.size + j] += x.plain * polys[0][j];
                wait[2][x.size + j] += x.wait * polys[0][j] + x.plain * in_kings;
            }
        }
        let mut splits = Vec::new();
        for a in 0..=g {
            for l in 0..=g - a {
                let h = g - a - l;
                let terms = [
                    wait[0][a] * plain[1][l] * plain[2][h],
                    plain[0][a] * wait[1][l] * plain[2][h],
                    plain[0][a] * plain[1][l] * wait[2][h],
                ];
                for (b, term) in terms.into_iter().enumerate().filter(|t| t.1 > 0.0) {
                    splits.push(([a, l, h], b, term));
                }
            }
        }
        let all: f64 = splits.iter().map(|s| s.2).sum();
        (all > 0.0).then_some(Ready {
            hand,
            p,
            f,
            kings,
            aces,
            low,
            high,
            splits,
            all,
            tables: Default::default(),
        })
    }

    /// Draws the unseen cards `Y` of the hand (`hand.cards − |known|` of them) in proportion to
    /// `Π_k C(unseen_k, Y_k)`, among those with which the hand has waits. `None`, vanishingly
    /// rarely, if every try failed.
    pub fn draw(&self, rng: &mut Rng) -> Option<Counts> {
        (0..10_000).find_map(|_| self.try_draw(rng))
    }

    /// The choices of a block's pattern at one size, with their cumulative weights: built on
    /// first use (`variant` 1: the wait in the block).
    fn table(&self, block: usize, size_of: usize, variant: usize) -> &Table {
        self.tables[block][variant][size_of].get_or_init(|| {
            let mut t = Table::default();
            if block < 2 {
                let list = if block == 0 { &self.aces } else { &self.low };
                for x in list.iter().filter(|x| x.size == size_of) {
                    t.push((x.i, None, 0), if variant == 1 { x.wait } else { x.plain });
                }
                return t;
            }
            let hk = jh_kinds();
            for (x, polys) in self.high.iter().filter(|(x, _)| x.size <= size_of) {
                let j = size_of - x.size;
                if variant == 0 {
                    t.push((x.i, None, 0), x.plain * polys[0][j]);
                    continue;
                }
                let q = &self.p.high[x.i].0;
                if x.wait > 0.0 {
                    for i in 0..8 {
                        t.push(
                            (x.i, Some(i), 0),
                            self.f.with_wait_at(&hk, q, i) * polys[0][j],
                        );
                    }
                }
                for (v, poly) in polys.iter().enumerate().skip(1) {
                    t.push((x.i, None, v), x.plain * poly[j]);
                }
            }
            t
        })
    }

    fn try_draw(&self, rng: &mut Rng) -> Option<Counts> {
        let (hand, p, f) = (&self.hand, self.p, &self.f);
        let (ak, lk, hk) = (ace_kinds(), low_kinds(), jh_kinds());
        let (sizes, block, _) = self.splits[pick(self.splits.iter().map(|s| s.2), self.all, rng)];
        let mut complete = [0u8; KINDS];
        let mut t = None;
        for (b, kinds) in [&ak[..], &lk[..]].into_iter().enumerate() {
            let with_wait = block == b;
            let (i, _, _) = self.table(b, sizes[b], usize::from(with_wait)).draw(rng)?;
            let q: &[u8] = if b == 0 { &p.aces[i] } else { &p.low[i] };
            if with_wait {
                let per: Vec<f64> = (0..kinds.len())
                    .map(|j| f.with_wait_at(kinds, q, j))
                    .collect();
                let sum = per.iter().sum();
                t = Some(kinds[pick(per.into_iter(), sum, rng)]);
            }
            for (&k, &c) in kinds.iter().zip(q) {
                complete[k] = c;
            }
        }
        // The high block: a J-H pattern and its kings; the wait on a jack, a horse or a king.
        let h = sizes[2];
        let (i, jh_wait, v) = self.table(2, h, usize::from(block == 2)).draw(rng)?;
        let (q, least) = &p.high[i];
        let kc = self.kings.draw(least, v, h - size(q), rng)?;
        for (&k, &c) in hk.iter().zip(q) {
            complete[k] = c;
        }
        for (s, &c) in kc.iter().enumerate() {
            complete[kind(s, KING)] = c;
        }
        if let Some(x) = jh_wait {
            t = Some(hk[x]);
        }
        if v > 0 {
            t = Some(kind(v - 1, KING));
        }
        let t = t?;
        let mut unseen = [0u8; KINDS];
        for k in 0..KINDS {
            let extra = i32::from(complete[k]) - i32::from(hand.known[k]) - i32::from(k == t);
            unseen[k] = u8::try_from(extra).ok().filter(|&e| e <= hand.unseen[k])?;
        }
        // Kept with probability 1/|waits| of the hand drawn.
        let held: Counts = std::array::from_fn(|k| hand.known[k] + unseen[k]);
        let own: Counts = std::array::from_fn(|k| held[k] + hand.committed[k]);
        let melds = super::eval::Melds {
            quads: hand.quads,
            triple: None,
        };
        let waits = super::eval::waits(&held, &own, |k| hand.copies[k], melds);
        debug_assert!(waits & (1 << t) != 0, "the drawn wait is a wait");
        (rng.below(u64::from(waits.count_ones().max(1))) == 0).then_some(unseen)
    }
}

/// Weighted choices (a pattern, where the wait is), drawn by binary search on the cumulative
/// weights.
#[derive(Default)]
struct Table {
    items: Vec<(usize, Option<usize>, usize)>,
    cumulative: Vec<f64>,
}

impl Table {
    fn push(&mut self, item: (usize, Option<usize>, usize), weight: f64) {
        if weight > 0.0 {
            let last = self.cumulative.last().copied().unwrap_or(0.0);
            self.items.push(item);
            self.cumulative.push(last + weight);
        }
    }

    fn draw(&self, rng: &mut Rng) -> Option<(usize, Option<usize>, usize)> {
        let total = *self.cumulative.last()?;
        let u = (rng.next_u64() >> 11) as f64 / (1u64 << 53) as f64 * total;
        let at = self.cumulative.partition_point(|&c| c <= u);
        self.items.get(at.min(self.items.len() - 1)).copied()
    }
}

fn total(c: &Counts) -> usize {
    c.iter().map(|&x| x as usize).sum()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::games::cuajo::eval::{partitionable, Melds};

    #[test]
    fn pattern_lists_match_the_evaluator() {
        let p = patterns(true);
        assert_eq!(p.aces.len(), 143);
        assert_eq!(p.low.len(), 64715);
        assert_eq!(p.high.len(), 21979);
        // Every listed low pattern is complete by the evaluator, alone.
        let mut rng = Rng::new(1);
        for _ in 0..2000 {
            let q = p.low[rng.below(p.low.len() as u64) as usize];
            let mut c = [0u8; KINDS];
            for (&k, &n) in low_kinds().iter().zip(&q) {
                c[k] = n;
            }
            assert!(partitionable(&c, Melds::DEFAULT), "{q:?}");
        }
    }

    /// The hands drawn with few unseen cards, against every hand enumerated.
    #[test]
    fn draws_match_enumeration() {
        // Known: 13 cards; unseen: a few kinds; two cards to draw.
        let names = "3O 4O 5O 3C 4C 5C JE HE KE AO AC AE KB";
        let mut known = [0u8; KINDS];
        for n in names.split_whitespace() {
            known[crate::cards::CUAJO_112.parse(n).unwrap() as usize] += 1;
        }
        let mut unseen = [0u8; KINDS];
        for n in "AB AB 3E 4E 5E JB HB KO KC 5B 5B".split_whitespace() {
            unseen[crate::cards::CUAJO_112.parse(n).unwrap() as usize] += 1;
        }
        let hand = Hand {
            known,
            unseen,
            committed: [0; KINDS],
            copies: [4; KINDS],
            cards: 15,
            quads: true,
        };
        // Exact: every 2-card choice of the unseen cards, weighted by the copies.
        let mut exact: BTreeMap<Counts, f64> = BTreeMap::new();
        for a in 0..KINDS {
            for b in a..KINDS {
                let mut y = [0u8; KINDS];
                y[a] += 1;
                y[b] += 1;
                if (0..KINDS).any(|k| y[k] > unseen[k]) {
                    continue;
                }
                let held: Counts = std::array::from_fn(|k| known[k] + y[k]);
                if super::super::eval::waits(&held, &held, |_| 4, Melds::DEFAULT) == 0 {
                    continue;
                }
                let w: f64 = (0..KINDS)
                    .map(|k| binomial(unseen[k], y[k] as i32))
                    .product();
                exact.insert(y, w);
            }
        }
        assert!(exact.len() >= 3, "{}", exact.len());
        let total: f64 = exact.values().sum();
        let mut rng = Rng::new(9);
        let ready = Ready::new(hand).expect("hands with waits");
        let n = 20_000;
        let mut seen: BTreeMap<Counts, usize> = BTreeMap::new();
        for _ in 0..n {
            let y = ready.draw(&mut rng).expect("a hand");
            assert!(exact.contains_key(&y));
            *seen.entry(y).or_insert(0) += 1;
        }
        let chi2: f64 = exact
            .iter()
            .map(|(y, w)| {
                let e = n as f64 * w / total;
                let o = *seen.get(y).unwrap_or(&0) as f64;
                (o - e).powi(2) / e
            })
            .sum();
        let k = exact.len() as f64;
        assert!(
            chi2 < k + 4.0 * (2.0 * k).sqrt() + 10.0,
            "chi2 {chi2} over {k}"
        );
    }
}
