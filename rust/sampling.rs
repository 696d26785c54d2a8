//! Uniform dealing of hidden cards under exclusions: the exact sampler every game's
//! determinisation is built on (docs/engine.md, Determinisation).
//!
//! A determinisation must be drawn uniformly from the deals a player cannot tell from the true
//! one. Most of what a player infers has one shape: "this card cannot be in that place" (a seat
//! that did not follow suit holds none of it; a card played from a hand was not elsewhere). So a
//! game lists the cards whose place it does not know, the places (other seats' hands, face-down
//! cards, the stock) with their sizes, and per card the places it may be in; [`deal`] draws one
//! assignment uniformly among all that respect the exclusions.

use crate::rng::Rng;
use std::collections::BTreeMap;

/// Most places a deal may have (one bit each in a card's mask).
pub const MAX_PLACES: usize = 32;

/// Uniformly shuffled tries before counting. Without exclusions the first one is kept.
const QUICK_TRIES: usize = 16;
/// Most counting states; beyond it the sampler goes back to rejection (exact too, but slower).
const MAX_STATES: usize = 100_000;
/// Rejection tries when counting is out of reach: the deal fails after them.
const SLOW_TRIES: usize = 1_000_000;

/// Deals `cards` into places of sizes `sizes` (they must sum to `cards.len()`), uniformly among
/// the deals in which every card lands in a place its mask allows (bit `p` of `allowed[i]`: card
/// `i` may go to place `p`). Cards are told apart by position, so equal values (Cuajo's copies)
/// are different cards. Returns each place's cards in random order, or `None` if no deal fits.
/// (One draw of a [`Dealer`]; a determinisation prepares the dealer once for all its draws.)
pub fn deal(cards: &[u8], allowed: &[u32], sizes: &[usize], rng: &mut Rng) -> Option<Vec<Vec<u8>>> {
    Dealer::new(cards.to_vec(), allowed, sizes.to_vec())?.deal(rng)
}

/// The draws of [`deal`] for one set of cards, masks and places, prepared once.
///
/// Uniform by construction: a few plain shuffles are tried first (each kept only if it fits,
/// which is rejection sampling); then the deals are counted by class of cards with the same
/// mask (once, kept for the next draws) and one is drawn in proportion to the counts. A mixture
/// of two uniform draws is uniform.
///
/// A plain shuffle is a uniformly random position for each card in turn, so the cards whose
/// masks restrict them are placed first and a try stops at the first that lands where it may
/// not (the tries kept are those a whole shuffle would keep); the others fill the rest.
pub struct Dealer {
    cards: Vec<u8>,
    masks: Vec<u32>,
    sizes: Vec<usize>,
    /// Card indices, the restricted ones first.
    order: Vec<usize>,
    restricted: usize,
    /// The place of every position, and the first position of every place.
    place_of: Vec<u8>,
    first: Vec<usize>,
    /// The counted deals, once shuffles have failed (`None`: too many states to count).
    counted: std::sync::OnceLock<Option<Counted>>,
}

impl Dealer {
    /// `None` if the places or masks are malformed, or some card may go nowhere.
    pub fn new(cards: Vec<u8>, allowed: &[u32], sizes: Vec<usize>) -> Option<Self> {
        let places = sizes.len();
        if places == 0 || places > MAX_PLACES || allowed.len() != cards.len() {
            return None;
        }
        // In a canonical order: the hidden cards come in the true deal's order, and a draw must
        // depend only on what the viewer knows (with them in that order, a world and its seed
        // gave back the true deal).
        let mut pairs: Vec<(u8, u32)> = cards.into_iter().zip(allowed.iter().copied()).collect();
        pairs.sort_unstable();
        let (cards, allowed): (Vec<u8>, Vec<u32>) = pairs.into_iter().unzip();
        if sizes.iter().sum::<usize>() != cards.len() {
            return None;
        }
        let all = if places == 32 {
            u32::MAX
        } else {
            (1u32 << places) - 1
        };
        let masks: Vec<u32> = allowed.into_iter().map(|m| m & all).collect();
        if masks.contains(&0) {
            return None;
        }
        let is_free = |i: &usize| masks[*i] == all;
        let mut order: Vec<usize> = (0..masks.len()).filter(|i| !is_free(i)).collect();
        let restricted = order.len();
        order.extend((0..masks.len()).filter(is_free));
        let place_of = sizes
            .iter()
            .enumerate()
            .flat_map(|(p, &size)| std::iter::repeat_n(p as u8, size))
            .collect();
        let first = sizes
            .iter()
            .scan(0, |at, &size| {
                *at += size;
                Some(*at - size)
            })
            .collect();
        Some(Dealer {
            cards,
            masks,
            sizes,
            order,
            restricted,
            place_of,
            first,
            counted: std::sync::OnceLock::new(),
        })
    }

    /// One deal: each place's cards in random order, or `None` if no deal fits.
    pub fn deal(&self, rng: &mut Rng) -> Option<Vec<Vec<u8>>> {
        let mut positions: Vec<usize> = (0..self.cards.len()).collect();
        let tries = if self.restricted == 0 { 1 } else { QUICK_TRIES };
        for _ in 0..tries {
            if let Some(out) = self.try_deal(&mut positions, rng) {
                return Some(out);
            }
        }
        let counted = self
            .counted
            .get_or_init(|| Counted::new(&self.masks, &self.sizes));
        match counted {
            Some(counted) if counted.total() > 0.0 => {
                Some(counted.draw(&self.cards, &self.masks, rng))
            }
            Some(_) => None,
            None => (0..SLOW_TRIES).find_map(|_| self.try_deal(&mut positions, rng)),
        }
    }

    /// One plain shuffle (`positions` holds a permutation of the positions, which it keeps);
    /// `None` if a card lands where it may not.
    fn try_deal(&self, positions: &mut [usize], rng: &mut Rng) -> Option<Vec<Vec<u8>>> {
        let n = positions.len();
        for k in 0..n {
            positions.swap(k, k + rng.below((n - k) as u64) as usize);
            let i = self.order[k];
            if k < self.restricted && self.masks[i] & (1 << self.place_of[positions[k]]) == 0 {
                return None;
            }
        }
        let mut out: Vec<Vec<u8>> = self.sizes.iter().map(|&s| vec![0; s]).collect();
        for (&i, &at) in self.order.iter().zip(positions.iter()) {
            let p = self.place_of[at] as usize;
            out[p][at - self.first[p]] = self.cards[i];
        }
        Some(out)
    }
}

/// The number of fitting deals, by class of cards with the same mask: `count(p, r)` is the
/// number of ways to fill places `p..` from `r[j]` remaining cards of each class `j`, which is
/// the sum, over the ways `x` to fill place `p` (`x[j]` cards of class `j`), of
/// `Π C(r[j], x[j]) · count(p + 1, r − x)`. Counts are `f64`: they reach 10¹⁸⁰, and their
/// rounding error (10⁻¹⁶ relative) is far below anything a test of the draws could see.
struct Counted {
    sizes: Vec<usize>,
    class_masks: Vec<u32>,
    class_sizes: Vec<u8>,
    memo: BTreeMap<(usize, u128), f64>,
}

/// Bits per class in a packed count vector (a class has at most 127 cards).
const PACK_BITS: usize = 7;

impl Counted {
    /// Counts every state; `None` if there are too many classes or states.
    fn new(masks: &[u32], sizes: &[usize]) -> Option<Self> {
        let mut classes: BTreeMap<u32, u8> = BTreeMap::new();
        for &m in masks {
            let c = classes.entry(m).or_insert(0);
            *c = c.checked_add(1).filter(|&c| c < 1 << PACK_BITS)?;
        }
        if classes.len() * PACK_BITS > 128 {
            return None;
        }
        let mut counted = Counted {
            sizes: sizes.to_vec(),
            class_masks: classes.keys().copied().collect(),
            class_sizes: classes.values().copied().collect(),
            memo: BTreeMap::new(),
        };
        let start = counted.class_sizes.clone();
        counted.count(0, &start)?;
        Some(counted)
    }

    fn total(&self) -> f64 {
        self.memo
            .get(&(0, pack(&self.class_sizes)))
            .copied()
            .unwrap_or(0.0)
    }

    fn count(&mut self, p: usize, r: &[u8]) -> Option<f64> {
        if p == self.sizes.len() {
            return Some(if r.iter().all(|&c| c == 0) { 1.0 } else { 0.0 });
        }
        let key = (p, pack(r));
        if let Some(&v) = self.memo.get(&key) {
            return Some(v);
        }
        if self.memo.len() >= MAX_STATES {
            return None;
        }
        let mut total = 0.0;
        let mut fills = Vec::new();
        self.fills(p, r, &mut fills);
        for x in fills {
            let rest: Vec<u8> = r.iter().zip(&x).map(|(a, b)| a - b).collect();
            let ways = self.count(p + 1, &rest)?;
            total += ways * ways_to_choose(r, &x);
        }
        self.memo.insert(key, total);
        Some(total)
    }

    /// Every way to fill place `p` from the remaining counts `r`.
    fn fills(&self, p: usize, r: &[u8], out: &mut Vec<Vec<u8>>) {
        fn go(
            j: usize,
            need: usize,
            r: &[u8],
            open: &[bool],
            x: &mut Vec<u8>,
            out: &mut Vec<Vec<u8>>,
        ) {
            if j == r.len() {
                if need == 0 {
                    out.push(x.clone());
                }
                return;
            }
            let most = if open[j] { need.min(r[j] as usize) } else { 0 };
            // Cards that must go somewhere later: the later classes must be able to take the rest.
            let later: usize = (j + 1..r.len())
                .filter(|&k| open[k])
                .map(|k| r[k] as usize)
                .sum();
            for take in need.saturating_sub(later)..=most {
                x.push(take as u8);
                go(j + 1, need - take, r, open, x, out);
                x.pop();
            }
        }
        let open: Vec<bool> = self
            .class_masks
            .iter()
            .map(|&m| m & (1 << p) != 0)
            .collect();
        go(0, self.sizes[p], r, &open, &mut Vec::new(), out);
    }

    /// A counted state's count (every state a draw passes through was counted with the total).
    fn counted(&self, p: usize, r: &[u8]) -> f64 {
        if p == self.sizes.len() {
            return if r.iter().all(|&c| c == 0) { 1.0 } else { 0.0 };
        }
        self.memo.get(&(p, pack(r))).copied().unwrap_or(0.0)
    }

    /// Draws the class counts of each place in proportion to the counts, then the cards.
    fn draw(&self, cards: &[u8], masks: &[u32], rng: &mut Rng) -> Vec<Vec<u8>> {
        let places = self.sizes.len();
        let mut r = self.class_sizes.clone();
        let mut take: Vec<Vec<u8>> = Vec::with_capacity(places);
        for p in 0..places {
            let mut fills = Vec::new();
            self.fills(p, &r, &mut fills);
            let weights: Vec<f64> = fills
                .iter()
                .map(|x| {
                    let rest: Vec<u8> = r.iter().zip(x).map(|(a, b)| a - b).collect();
                    self.counted(p + 1, &rest) * ways_to_choose(&r, x)
                })
                .collect();
            let x = fills.swap_remove(pick(&weights, rng));
            r.iter_mut().zip(&x).for_each(|(a, b)| *a -= b);
            take.push(x);
        }
        // Within a class every split of its cards is equally likely: shuffle, then cut.
        let mut out: Vec<Vec<u8>> = self.sizes.iter().map(|&s| Vec::with_capacity(s)).collect();
        for (j, &m) in self.class_masks.iter().enumerate() {
            let mut members: Vec<u8> = (0..cards.len())
                .filter(|&i| masks[i] == m)
                .map(|i| cards[i])
                .collect();
            rng.shuffle(&mut members);
            let mut at = 0;
            for (p, x) in take.iter().enumerate() {
                let k = x[j] as usize;
                out[p].extend_from_slice(&members[at..at + k]);
                at += k;
            }
        }
        out.iter_mut().for_each(|place| rng.shuffle(place));
        out
    }
}

fn pack(r: &[u8]) -> u128 {
    r.iter()
        .fold(0u128, |acc, &c| (acc << PACK_BITS) | u128::from(c))
}

/// `Π C(r[j], x[j])`: the ways to choose which cards of each class fill the place.
fn ways_to_choose(r: &[u8], x: &[u8]) -> f64 {
    r.iter()
        .zip(x)
        .map(|(&n, &k)| binomial(n as u32, k as u32))
        .product()
}

fn binomial(n: u32, k: u32) -> f64 {
    let k = k.min(n - k);
    (0..k).fold(1.0, |acc, i| acc * f64::from(n - i) / f64::from(i + 1))
}

/// An index drawn with probability proportional to `weights` (not all zero).
fn pick(weights: &[f64], rng: &mut Rng) -> usize {
    let total: f64 = weights.iter().sum();
    let u = (rng.next_u64() >> 11) as f64 / (1u64 << 53) as f64 * total;
    let mut acc = 0.0;
    for (i, &w) in weights.iter().enumerate() {
        acc += w;
        if u < acc {
            return i;
        }
    }
    // Rounding can leave `u` at the very top: the last place with weight.
    weights.iter().rposition(|&w| w > 0.0).unwrap_or(0)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every fitting deal, by brute force over orders (small cases only).
    fn all_deals(cards: &[u8], masks: &[u32], sizes: &[usize]) -> BTreeMap<Vec<Vec<u8>>, u64> {
        fn perms(items: &mut Vec<usize>, k: usize, out: &mut Vec<Vec<usize>>) {
            if k == items.len() {
                out.push(items.clone());
                return;
            }
            for i in k..items.len() {
                items.swap(k, i);
                perms(items, k + 1, out);
                items.swap(k, i);
            }
        }
        let mut orders = Vec::new();
        perms(&mut (0..cards.len()).collect(), 0, &mut orders);
        let mut out = BTreeMap::new();
        for order in orders {
            let mut at = 0;
            let mut deal = Vec::new();
            let mut fits = true;
            for (p, &s) in sizes.iter().enumerate() {
                let chunk = &order[at..at + s];
                fits &= chunk.iter().all(|&i| masks[i] & (1 << p) != 0);
                let mut place: Vec<u8> = chunk.iter().map(|&i| cards[i]).collect();
                place.sort();
                deal.push(place);
                at += s;
            }
            if fits {
                *out.entry(deal).or_insert(0) += 1;
            }
        }
        out
    }

    /// Draws many deals and checks each fitting deal comes up as often as it should (a
    /// chi-square test against the exact frequencies), for the quick and the counting path.
    fn check_uniform(cards: &[u8], masks: &[u32], sizes: &[usize], draws: usize) {
        let exact = all_deals(cards, masks, sizes);
        let total: u64 = exact.values().sum();
        // Counting alone; a fresh dealer per draw; one dealer for every draw (its counts kept).
        let dealer = Dealer::new(cards.to_vec(), masks, sizes.to_vec()).unwrap();
        for way in ["counting", "fresh", "kept"] {
            let mut rng = Rng::new(7);
            let mut seen: BTreeMap<Vec<Vec<u8>>, usize> = BTreeMap::new();
            for _ in 0..draws {
                let got = match way {
                    "counting" => Counted::new(masks, sizes)
                        .unwrap()
                        .draw(cards, masks, &mut rng),
                    "fresh" => deal(cards, masks, sizes, &mut rng).unwrap(),
                    _ => dealer.deal(&mut rng).unwrap(),
                };
                let got: Vec<Vec<u8>> = got
                    .into_iter()
                    .map(|mut p| {
                        p.sort();
                        p
                    })
                    .collect();
                assert!(
                    exact.contains_key(&got),
                    "a deal that does not fit: {got:?}"
                );
                *seen.entry(got).or_insert(0) += 1;
            }
            let chi2: f64 = exact
                .iter()
                .map(|(d, &w)| {
                    let e = draws as f64 * w as f64 / total as f64;
                    let o = *seen.get(d).unwrap_or(&0) as f64;
                    (o - e).powi(2) / e
                })
                .sum();
            // The 99.9% point of chi-square with k - 1 degrees of freedom is below
            // k + 4·sqrt(2k) + 10 for the sizes here.
            let k = exact.len() as f64;
            assert!(
                chi2 < k + 4.0 * (2.0 * k).sqrt() + 10.0,
                "chi2 {chi2} with {k} deals ({way})"
            );
        }
    }

    #[test]
    fn free_deals_are_uniform() {
        check_uniform(&[0, 1, 2, 3, 4, 5], &[0b111; 6], &[2, 2, 2], 30_000);
    }

    #[test]
    fn excluded_deals_are_uniform() {
        // Card 0 only in place 0; cards 1, 2 not in place 1; card 3 not in place 2.
        let masks = [0b001, 0b101, 0b101, 0b011, 0b111, 0b111, 0b111];
        check_uniform(&[0, 1, 2, 3, 4, 5, 6], &masks, &[2, 3, 2], 40_000);
    }

    #[test]
    fn copies_are_different_cards() {
        // Two copies of kind 9: deals are counted card by card, as a physical shuffle would.
        let masks = [0b01, 0b11, 0b11, 0b10, 0b11];
        check_uniform(&[9, 9, 1, 2, 3], &masks, &[2, 3], 30_000);
    }

    #[test]
    fn impossible_deals_are_none() {
        let mut rng = Rng::new(1);
        assert!(deal(&[1, 2], &[0b01, 0b01], &[1, 1], &mut rng).is_none());
        assert!(deal(&[1, 2], &[0b11, 0b00], &[1, 1], &mut rng).is_none());
        assert!(deal(&[1, 2], &[0b11, 0b11], &[1, 2], &mut rng).is_none());
    }

    #[test]
    fn large_deals_with_exclusions() {
        // 47 cards, 4 hands of 4 and a stock; the first two hands void in the first 26 cards.
        let cards: Vec<u8> = (0..47).collect();
        let masks: Vec<u32> = (0..47)
            .map(|c| if c < 26 { 0b11100 } else { 0b11111 })
            .collect();
        let mut rng = Rng::new(3);
        for _ in 0..200 {
            let out = deal(&cards, &masks, &[4, 4, 4, 4, 31], &mut rng).unwrap();
            assert!(out[0].iter().chain(&out[1]).all(|&c| c >= 26));
            let mut all: Vec<u8> = out.concat();
            all.sort();
            assert_eq!(all, cards);
        }
    }
}
