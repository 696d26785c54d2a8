//! The Cuajo hand evaluator: completeness by blocks and a per-rank table, waits, one
//! arrangement, and the distance to a complete hand. Hands are count vectors over the 28 kinds
//! (`7·suit + rank`, ranks A 3 4 5 J H K).

pub const KINDS: usize = 28;
pub type Counts = [u8; KINDS];

pub const ACE: usize = 0;
pub const THREE: usize = 1;
pub const JACK: usize = 4;
pub const KING: usize = 6;

pub const fn kind(suit: usize, rank: usize) -> usize {
    7 * suit + rank
}
pub const fn rank_of(k: usize) -> usize {
    k % 7
}
pub const fn suit_of(k: usize) -> usize {
    k / 7
}
pub const fn is_king(k: usize) -> bool {
    k % 7 == KING
}

/// Weight of suit `s` in a rank pattern index (base 5, coins most significant).
const WEIGHT: [usize; 4] = [125, 25, 5, 1];

/// `table[i]`: the pattern `i = Σ count(suit)·WEIGHT(suit)` of one rank splits into sets of
/// three or four distinct suits (and quads of one suit when `quads`).
const fn rank_table(quads: bool) -> [bool; 625] {
    let mut t = [false; 625];
    t[0] = true;
    let mut i = 1;
    while i < 625 {
        let a = [i / 125, i / 25 % 5, i / 5 % 5, i % 5];
        let mut m = 0;
        while m < 16 {
            let mut bits = 0;
            let mut fits = true;
            let mut minus = 0;
            let mut s = 0;
            while s < 4 {
                if m & (1 << s) != 0 {
                    bits += 1;
                    fits = fits && a[s] > 0;
                    minus += WEIGHT[s];
                }
                s += 1;
            }
            if bits >= 3 && fits && t[i - minus] {
                t[i] = true;
            }
            m += 1;
        }
        let mut s = 0;
        while s < 4 {
            if quads && a[s] == 4 && t[i - 4 * WEIGHT[s]] {
                t[i] = true;
            }
            s += 1;
        }
        i += 1;
    }
    t
}

pub static SETS_AND_QUADS: [bool; 625] = rank_table(true);
pub static SETS_ONLY: [bool; 625] = rank_table(false);

/// The rules that change what a combination is.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub struct Melds {
    /// Four identical cards count without being declared.
    pub quads: bool,
    /// The kind whose three undeclared copies count as a combination (the sowee), if any.
    pub triple: Option<u8>,
}

impl Melds {
    pub const DEFAULT: Melds = Melds {
        quads: true,
        triple: None,
    };

    fn table(self) -> &'static [bool; 625] {
        if self.quads {
            &SETS_AND_QUADS
        } else {
            &SETS_ONLY
        }
    }
}

fn pattern(c: &Counts, rank: usize) -> usize {
    c[rank] as usize * 125
        + c[7 + rank] as usize * 25
        + c[14 + rank] as usize * 5
        + c[21 + rank] as usize
}

/// Sequences per suit for one choice: `r[s]` copies of the run starting at `first`.
fn seq_weight(r: [u8; 4]) -> usize {
    (0..4).map(|s| r[s] as usize * WEIGHT[s]).sum()
}

/// Every vector `r` with `r[s] ≤ max[s]`, in lexicographic order; stops when `f` says so.
fn each_choice(max: [u8; 4], mut f: impl FnMut([u8; 4]) -> bool) -> bool {
    for a in 0..=max[0] {
        for b in 0..=max[1] {
            for c in 0..=max[2] {
                for d in 0..=max[3] {
                    if f([a, b, c, d]) {
                        return true;
                    }
                }
            }
        }
    }
    false
}

/// How many sequences starting at rank `first` each suit could hold.
fn seq_max(c: &Counts, first: usize) -> [u8; 4] {
    std::array::from_fn(|s| {
        let k = kind(s, first);
        c[k].min(c[k + 1]).min(c[k + 2])
    })
}

/// The sequence choice that completes a block starting at `first` (`ranks` looked up: 3 for
/// the low block, 2 for the high one whose kings may stand alone), if any.
fn block_choice(c: &Counts, table: &[bool; 625], first: usize, ranks: usize) -> Option<[u8; 4]> {
    let max = seq_max(c, first);
    let pats: [usize; 3] = std::array::from_fn(|i| pattern(c, first + i));
    let mut found = None;
    each_choice(max, |r| {
        let w = seq_weight(r);
        let ok = (0..ranks).all(|i| table[pats[i] - w]);
        if ok {
            found = Some(r);
        }
        ok
    });
    found
}

fn split_ok(c: &Counts, table: &[bool; 625]) -> bool {
    table[pattern(c, ACE)]
        && block_choice(c, table, THREE, 3).is_some()
        && block_choice(c, table, JACK, 2).is_some()
}

/// Can these cards (any number) be split entirely into combinations?
pub fn partitionable(c: &Counts, melds: Melds) -> bool {
    let table = melds.table();
    if split_ok(c, table) {
        return true;
    }
    match melds.triple {
        Some(w) if c[w as usize] >= 3 => {
            let mut d = *c;
            d[w as usize] -= 3;
            split_ok(&d, table)
        }
        _ => false,
    }
}

/// The kinds that complete `pool` (one card added), a copy being available: the player holds
/// `own[t]` of kind `t` and `copies(t)` exist in play. Bit `t` of the result.
///
/// The three blocks (aces, 3-4-5, J-H-K) split independently and a card changes only its own
/// block: a pool with two blocks that do not split has no waits, and a card can complete the
/// pool only in the block that does not split (in any block if all do).
pub fn waits(pool: &Counts, own: &Counts, copies: impl Fn(usize) -> u8, melds: Melds) -> u32 {
    let table = melds.table();
    let open = |t: usize| own[t] < copies(t);
    let mut out = block_waits(pool, table, &open);
    if let Some(w) = melds.triple.map(usize::from) {
        // The undeclared sowee triple: the pool split without three copies of it.
        if pool[w] >= 3 {
            let mut d = *pool;
            d[w] -= 3;
            out |= block_waits(&d, table, &|t| t != w && open(t));
        }
        // The card that makes the triple (or a fourth copy) itself.
        if open(w) && pool[w] >= 2 {
            let mut c = *pool;
            c[w] += 1;
            if partitionable(&c, melds) {
                out |= 1 << w;
            }
        }
    }
    out
}

/// [`waits`] for one way of splitting, among the kinds `open` allows.
fn block_waits(c: &Counts, table: &[bool; 625], open: &dyn Fn(usize) -> bool) -> u32 {
    let splits = |c: &Counts, block: usize| match block {
        0 => table[pattern(c, ACE)],
        1 => block_choice(c, table, THREE, 3).is_some(),
        _ => block_choice(c, table, JACK, 2).is_some(),
    };
    let block_of = |rank: usize| match rank {
        ACE => 0,
        r if r < JACK => 1,
        _ => 2,
    };
    // Aces and 3-4-5 split only into groups of three or four cards (kings may stand alone):
    // counted, most blocks are settled without looking for sequences.
    let count = |first: usize, ranks: usize| -> u8 {
        (0..4)
            .map(|s| (first..first + ranks).map(|r| c[kind(s, r)]).sum::<u8>())
            .sum()
    };
    let cards = [count(ACE, 1), count(THREE, 3), 0];
    let sizes_fit = |b: usize, n: u8| b == 2 || !matches!(n, 1 | 2 | 5);
    // Whether each block splits, looked at only while at most one does not.
    let mut ok = [true; 3];
    for b in 0..3 {
        ok[b] = sizes_fit(b, cards[b]) && splits(c, b);
        if !ok[b] && ok[..b].contains(&false) {
            return 0;
        }
    }
    let mut out = 0;
    let mut d = *c;
    for t in (0..KINDS).filter(|&t| open(t)) {
        let b = block_of(rank_of(t));
        if (0..3).any(|o| o != b && !ok[o]) || !sizes_fit(b, cards[b] + 1) {
            continue;
        }
        d[t] += 1;
        if splits(&d, b) {
            out |= 1 << t;
        }
        d[t] -= 1;
    }
    out
}

/// One split of a partitionable multiset into combinations (each ascending, groups sorted), or
/// `None`.
pub fn arrangement(c: &Counts, melds: Melds) -> Option<Vec<Vec<u8>>> {
    let (groups, left) = best_arrangement(c, melds);
    (total(&left) == 0).then_some(groups)
}

/// The suit counts of a rank pattern index.
fn digits(i: usize) -> [u8; 4] {
    [i / 125, i / 25 % 5, i / 5 % 5, i % 5].map(|x| x as u8)
}

/// For every rank pattern, its largest sub-pattern (suit by suit no more) the table accepts.
fn largest_accepted(table: &'static [bool; 625]) -> &'static [u16; 625] {
    static WITH_QUADS: std::sync::OnceLock<[u16; 625]> = std::sync::OnceLock::new();
    static SETS: std::sync::OnceLock<[u16; 625]> = std::sync::OnceLock::new();
    let cell = if std::ptr::eq(table, &SETS_AND_QUADS) {
        &WITH_QUADS
    } else {
        &SETS
    };
    cell.get_or_init(|| {
        let size = |i: usize| digits(i).iter().map(|&x| x as usize).sum::<usize>();
        std::array::from_fn(|i| {
            let a = digits(i);
            (0..625)
                .filter(|&j| table[j] && (0..4).all(|s| digits(j)[s] <= a[s]))
                .max_by_key(|&j| (size(j), std::cmp::Reverse(j)))
                .unwrap_or(0) as u16
        })
    })
}

/// A split of as many of the cards as possible into combinations: the groups (as
/// [`arrangement`] orders them) and the cards left over. Nothing is left over exactly when the
/// cards are partitionable.
pub fn best_arrangement(c: &Counts, melds: Melds) -> (Vec<Vec<u8>>, Counts) {
    let mut best = best_without_triple(c, melds.table());
    if let Some(w) = melds.triple.filter(|&w| c[w as usize] >= 3) {
        let mut d = *c;
        d[w as usize] -= 3;
        let (mut groups, left) = best_without_triple(&d, melds.table());
        if total(&left) < total(&best.1) {
            groups.push(vec![w; 3]);
            groups.sort();
            best = (groups, left);
        }
    }
    best
}

/// Cards in a multiset.
pub fn total(c: &Counts) -> usize {
    c.iter().map(|&x| x as usize).sum()
}

fn best_without_triple(c: &Counts, table: &'static [bool; 625]) -> (Vec<Vec<u8>>, Counts) {
    let largest = largest_accepted(table);
    let size = |i: u16| {
        digits(i as usize)
            .iter()
            .map(|&x| x as usize)
            .sum::<usize>()
    };
    let mut left = *c;
    let mut groups = Vec::new();
    // The sequences of each block that leave the most cards in sets.
    for (first, ranks) in [(THREE, 3), (JACK, 2)] {
        let pats: [usize; 3] = std::array::from_fn(|i| pattern(c, first + i));
        let (mut best, mut choice) = (0, [0; 4]);
        each_choice(seq_max(c, first), |r| {
            let w = seq_weight(r);
            // Cards of the looked-up ranks covered (kings are covered either way).
            let n: usize = r.iter().map(|&x| ranks * x as usize).sum::<usize>()
                + (0..ranks)
                    .map(|i| size(largest[pats[i] - w]))
                    .sum::<usize>();
            if n > best {
                (best, choice) = (n, r);
            }
            false
        });
        for (s, &n) in choice.iter().enumerate() {
            let k = kind(s, first);
            for _ in 0..n {
                groups.push(vec![k as u8, k as u8 + 1, k as u8 + 2]);
                (0..3).for_each(|i| left[k + i] -= 1);
            }
        }
    }
    for rank in [ACE, THREE, THREE + 1, THREE + 2, JACK, JACK + 1] {
        let mut a = digits(largest[pattern(&left, rank)] as usize);
        for s in 0..4 {
            left[kind(s, rank)] -= a[s];
        }
        split_rank(&mut a, rank, table, &mut groups);
    }
    for s in 0..4 {
        let k = kind(s, KING);
        groups.extend((0..left[k]).map(|_| vec![k as u8]));
        left[k] = 0;
    }
    groups.sort();
    (groups, left)
}

/// Splits one rank's suit counts (a pattern the table accepts) into sets and quads.
fn split_rank(a: &mut [u8; 4], rank: usize, table: &[bool; 625], out: &mut Vec<Vec<u8>>) {
    while let Some(s) = (0..4).find(|&s| a[s] > 0) {
        let idx = |a: &[u8; 4]| (0..4).map(|s| a[s] as usize * WEIGHT[s]).sum::<usize>();
        let mut done = false;
        if a[s] == 4 {
            let mut b = *a;
            b[s] = 0;
            if table[idx(&b)] && std::ptr::eq(table, &SETS_AND_QUADS) {
                out.push(vec![kind(s, rank) as u8; 4]);
                *a = b;
                done = true;
            }
        }
        if !done {
            for m in 1u8..16 {
                if m & (1 << s) == 0 || m.count_ones() < 3 {
                    continue;
                }
                if (0..4).any(|t| m & (1 << t) != 0 && a[t] == 0) {
                    continue;
                }
                let mut b = *a;
                (0..4).filter(|t| m & (1 << t) != 0).for_each(|t| b[t] -= 1);
                if table[idx(&b)] {
                    out.push(
                        (0..4)
                            .filter(|t| m & (1 << t) != 0)
                            .map(|t| kind(t, rank) as u8)
                            .collect(),
                    );
                    *a = b;
                    done = true;
                    break;
                }
            }
        }
        debug_assert!(done, "split_rank called on a pattern the table refuses");
        if !done {
            return;
        }
    }
}

// ---------------------------------------------------------------------------------------------
// Distance: 16 − the most cards a hand shares with a complete 16-card hand.

const NONE: i16 = i16::MIN / 4;
type Frontier = [i16; 17];

/// Accepted rank patterns (default melds) as suit counts with their size.
fn accepted_patterns() -> &'static [([u8; 4], u8)] {
    static LIST: std::sync::OnceLock<Vec<([u8; 4], u8)>> = std::sync::OnceLock::new();
    LIST.get_or_init(|| {
        (0..625)
            .filter(|&i| SETS_AND_QUADS[i])
            .map(|i| {
                let a = [i / 125, i / 25 % 5, i / 5 % 5, i % 5].map(|x| x as u8);
                (a, a.iter().sum())
            })
            .collect()
    })
}

/// Best overlap with `held` for each size of an accepted pattern added on top of `base`
/// (the rank's cards already used by sequences; they count towards the overlap here).
fn rank_frontier(held: [u8; 4], base: [u8; 4]) -> Frontier {
    let mut f = [NONE; 17];
    for &(p, size) in accepted_patterns() {
        if size > 16 || (0..4).any(|s| p[s] + base[s] > 4) {
            continue;
        }
        let overlap: i16 = (0..4).map(|s| (p[s] + base[s]).min(held[s]) as i16).sum();
        let z = size as usize;
        f[z] = f[z].max(overlap);
    }
    f
}

fn combine(a: &Frontier, b: &Frontier) -> Frontier {
    let mut out = [NONE; 17];
    for i in 0..17 {
        if a[i] == NONE {
            continue;
        }
        for j in 0..17 - i {
            if b[j] != NONE {
                out[i + j] = out[i + j].max(a[i] + b[j]);
            }
        }
    }
    out
}

fn shift(f: &Frontier, by: usize) -> Frontier {
    let mut out = [NONE; 17];
    if by < 17 {
        out[by..].copy_from_slice(&f[..17 - by]);
    }
    out
}

fn max_frontier(a: &mut Frontier, b: &Frontier) {
    for i in 0..17 {
        a[i] = a[i].max(b[i]);
    }
}

fn suits_of(c: &Counts, rank: usize) -> [u8; 4] {
    std::array::from_fn(|s| c[kind(s, rank)])
}

/// A block's frontier: every choice of sequences (starting at `first`, at most 5 in all), the
/// ranks above looked up in the table; in the high block kings beyond the sequences may stand
/// alone, each one held adding one card and one shared card.
fn block_frontier(c: &Counts, first: usize, kings_free: bool) -> Frontier {
    let mut best = [NONE; 17];
    each_choice([4; 4], |r| {
        let n: usize = r.iter().map(|&x| x as usize).sum();
        if n > 5 {
            return false;
        }
        let mut f = [NONE; 17];
        f[0] = 0;
        let looked = if kings_free { 2 } else { 3 };
        for i in 0..looked {
            f = combine(&f, &rank_frontier(suits_of(c, first + i), r));
        }
        if kings_free {
            let held = suits_of(c, KING);
            let base: i16 = (0..4).map(|s| r[s].min(held[s]) as i16).sum();
            let spare: usize = (0..4).map(|s| held[s].saturating_sub(r[s]) as usize).sum();
            let mut k = [NONE; 17];
            for (z, cell) in k.iter_mut().enumerate().take(spare.min(16) + 1) {
                *cell = base + z as i16;
            }
            f = combine(&f, &k);
        }
        max_frontier(&mut best, &shift(&f, 3 * n));
        false
    });
    best
}

/// `16 −` the most cards `c` shares with a complete 16-card hand (default melds): the fewest
/// exchanges to complete 16 cards, or one more than the fewest to give 15 cards waits.
pub fn distance(c: &Counts) -> u8 {
    let aces = rank_frontier(suits_of(c, ACE), [0; 4]);
    let all = combine(
        &combine(&aces, &block_frontier(c, THREE, false)),
        &block_frontier(c, JACK, true),
    );
    // Fewer than 16 cards are padded with kings not held, which share nothing.
    let best = all.iter().copied().max().unwrap_or(0).max(0);
    16 - best.min(16) as u8
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rng::Rng;

    /// Brute force: every combination holding the lowest card, recursively (no table).
    fn brute(c: &mut Counts) -> bool {
        let Some(t) = (0..KINDS).find(|&k| c[k] > 0) else {
            return true;
        };
        let (s, r) = (suit_of(t), rank_of(t));
        let try_remove = |c: &mut Counts, ks: &[usize]| {
            if ks.iter().all(|&k| c[k] > 0) && (ks.len() < 4 || ks[0] != ks[1] || c[ks[0]] >= 4) {
                ks.iter().for_each(|&k| c[k] -= 1);
                let ok = brute(c);
                ks.iter().for_each(|&k| c[k] += 1);
                ok
            } else {
                false
            }
        };
        if r == KING && try_remove(c, &[t]) {
            return true;
        }
        if try_remove(c, &[t; 4]) {
            return true;
        }
        // Sets: t with two or three cards of the same rank in other (higher) suits.
        for m in 0u8..8 {
            let others: Vec<usize> = (s + 1..4)
                .filter(|&x| m & (1 << (x - s - 1)) != 0)
                .map(|x| kind(x, r))
                .collect();
            if others.len() >= 2 && others.iter().all(|&k| k < KINDS) {
                let mut ks = vec![t];
                ks.extend(others);
                if try_remove(c, &ks) {
                    return true;
                }
            }
        }
        (r == THREE || r == JACK) && try_remove(c, &[t, t + 1, t + 2])
    }

    /// A random hand of `n` cards: mostly built from combinations, sometimes perturbed.
    fn random_hand(rng: &mut Rng, n: usize) -> Counts {
        let mut c = [0u8; KINDS];
        let mut size = 0;
        let put = |c: &mut Counts, k: usize, size: &mut usize| {
            if c[k] < 4 && *size < n {
                c[k] += 1;
                *size += 1;
            }
        };
        let from_combos = rng.below(4) != 0;
        while size < n {
            if from_combos {
                let s = rng.below(4) as usize;
                match rng.below(5) {
                    0 => put(&mut c, kind(s, KING), &mut size),
                    1 => {
                        let first = if rng.below(2) == 0 { THREE } else { JACK };
                        for i in 0..3 {
                            put(&mut c, kind(s, first + i), &mut size);
                        }
                    }
                    2 => {
                        let k = kind(s, rng.below(7) as usize);
                        for _ in 0..4 {
                            put(&mut c, k, &mut size);
                        }
                    }
                    _ => {
                        let r = rng.below(7) as usize;
                        let skip = rng.below(5) as usize;
                        for x in (0..4).filter(|&x| x != skip) {
                            put(&mut c, kind(x, r), &mut size);
                        }
                    }
                }
            } else {
                put(&mut c, rng.below(KINDS as u64) as usize, &mut size);
            }
        }
        for _ in 0..rng.below(3) {
            let held: Vec<usize> = (0..KINDS).filter(|&k| c[k] > 0).collect();
            let from = held[rng.below(held.len() as u64) as usize];
            let to = rng.below(KINDS as u64) as usize;
            if c[to] < 4 {
                c[from] -= 1;
                c[to] += 1;
            }
        }
        c
    }

    #[test]
    fn completeness_matches_brute_force_on_100000_hands() {
        let mut rng = Rng::new(7);
        let mut complete = 0;
        for _ in 0..100_000 {
            let mut c = random_hand(&mut rng, 16);
            let want = brute(&mut c);
            assert_eq!(partitionable(&c, Melds::DEFAULT), want, "{c:?}");
            complete += want as usize;
            if let Some(groups) = arrangement(&c, Melds::DEFAULT) {
                let mut back = [0u8; KINDS];
                groups.iter().flatten().for_each(|&k| back[k as usize] += 1);
                assert_eq!(back, c);
                for g in &groups {
                    let mut gc = [0u8; KINDS];
                    g.iter().for_each(|&k| gc[k as usize] += 1);
                    assert!(brute(&mut gc), "{g:?} is not a combination");
                }
            } else {
                assert!(!want);
            }
        }
        assert!(
            complete > 10_000,
            "too few complete hands ({complete}) to test anything"
        );
    }

    #[test]
    fn best_arrangement_leaves_the_fewest_cards() {
        let mut rng = Rng::new(10);
        for _ in 0..3000 {
            let n = 1 + rng.below(16) as usize;
            let c = random_hand(&mut rng, n);
            let (groups, left) = best_arrangement(&c, Melds::DEFAULT);
            let mut back = left;
            groups.iter().flatten().for_each(|&k| back[k as usize] += 1);
            assert_eq!(back, c);
            for g in &groups {
                let mut gc = [0u8; KINDS];
                g.iter().for_each(|&k| gc[k as usize] += 1);
                assert!(brute(&mut gc), "{g:?} is not a combination");
            }
            assert_eq!(
                total(&left) == 0,
                brute(&mut c.clone()),
                "{c:?} {groups:?} {left:?}"
            );
            if n <= 9 {
                let fewest = fewest_left(&c);
                assert_eq!(total(&left), fewest, "{c:?}");
            }
        }
    }

    /// Brute force: the fewest cards left when the rest is split into combinations.
    fn fewest_left(c: &Counts) -> usize {
        let mut best = total(c);
        let kinds: Vec<usize> = (0..KINDS).filter(|&k| c[k] > 0).collect();
        let mut keep = [0u8; KINDS];
        fn walk(i: usize, kinds: &[usize], c: &Counts, keep: &mut Counts, best: &mut usize) {
            if i == kinds.len() {
                let mut k = *keep;
                if brute(&mut k) {
                    *best = (*best).min(total(c) - total(keep));
                }
                return;
            }
            for n in 0..=c[kinds[i]] {
                keep[kinds[i]] = n;
                walk(i + 1, kinds, c, keep, best);
            }
            keep[kinds[i]] = 0;
        }
        walk(0, &kinds, c, &mut keep, &mut best);
        best
    }

    #[test]
    fn waits_match_brute_force() {
        let mut rng = Rng::new(8);
        for _ in 0..20_000 {
            let c = random_hand(&mut rng, 15);
            let w = waits(&c, &c, |_| 4, Melds::DEFAULT);
            for t in 0..KINDS {
                let mut d = c;
                d[t] += 1;
                let want = c[t] < 4 && brute(&mut d);
                assert_eq!(w & (1 << t) != 0, want, "{c:?} + {t}");
            }
        }
    }

    /// `waits` by blocks is one `partitionable` per candidate card, on hands one card from
    /// complete or not, with quads, the sowee triple and limited copies.
    #[test]
    fn waits_by_blocks_match_one_check_per_card() {
        let mut rng = Rng::new(11);
        let settings = [
            Melds::DEFAULT,
            Melds {
                quads: false,
                triple: None,
            },
            Melds {
                quads: true,
                triple: Some(9),
            },
            Melds {
                quads: false,
                triple: Some(22),
            },
        ];
        let mut positive = 0;
        for i in 0..40_000 {
            let melds = settings[i % settings.len()];
            // Mostly built from combinations: often one card from complete.
            let mut c = random_hand(&mut rng, 16);
            let held: Vec<usize> = (0..KINDS).filter(|&k| c[k] > 0).collect();
            c[held[rng.below(held.len() as u64) as usize]] -= 1;
            let own: Counts = std::array::from_fn(|k| c[k] + (rng.below(3) == 0) as u8);
            let copies = |k: usize| if k % 5 == 0 { 3 } else { 4 };
            let got = waits(&c, &own, copies, melds);
            let mut want = 0;
            for t in (0..KINDS).filter(|&t| own[t] < copies(t)) {
                let mut d = c;
                d[t] += 1;
                if partitionable(&d, melds) {
                    want |= 1 << t;
                }
            }
            assert_eq!(got, want, "{c:?} {melds:?}");
            positive += (want != 0) as usize;
        }
        assert!(positive > 5_000, "{positive} hands with waits");
    }

    #[test]
    fn every_table_entry_matches_brute_force() {
        for (i, &ok) in SETS_AND_QUADS.iter().enumerate() {
            let mut c = [0u8; KINDS];
            for (s, w) in WEIGHT.iter().enumerate() {
                c[kind(s, ACE)] = (i / w % 5) as u8;
            }
            assert_eq!(ok, brute(&mut c), "pattern {i}");
        }
    }

    /// The distance is exact iff it is 0 exactly on complete (or waiting) hands, one exchange
    /// changes it by at most one, and a positive distance always has a neighbour one lower.
    #[test]
    fn distance_is_the_exchange_distance() {
        let mut rng = Rng::new(9);
        for n in [16, 15] {
            for _ in 0..150 {
                let c = random_hand(&mut rng, n);
                let d = distance(&c);
                let base = if n == 16 {
                    partitionable(&c, Melds::DEFAULT)
                } else {
                    waits(&c, &c, |_| 4, Melds::DEFAULT) != 0
                };
                assert_eq!(d == 16 - n as u8, base, "{c:?}");
                let mut lower = false;
                for out in (0..KINDS).filter(|&k| c[k] > 0) {
                    for inn in (0..KINDS).filter(|&k| k != out && c[k] < 4) {
                        let mut e = c;
                        e[out] -= 1;
                        e[inn] += 1;
                        let de = distance(&e);
                        assert!(de + 1 >= d && de <= d + 1, "{c:?} -> {e:?}");
                        lower |= de + 1 == d;
                    }
                }
                assert!(d == 16 - n as u8 || lower, "{c:?} has no better neighbour");
            }
        }
    }

    #[test]
    fn table_has_the_documented_entries() {
        assert_eq!(SETS_AND_QUADS.iter().filter(|&&x| x).count(), 143);
        assert_eq!(SETS_ONLY.iter().filter(|&&x| x).count(), 125);
        let at = |a: [usize; 4]| SETS_AND_QUADS[a[0] * 125 + a[1] * 25 + a[2] * 5 + a[3]];
        for (a, want) in [
            ([0, 0, 0, 0], true),
            ([1, 1, 1, 0], true),
            ([1, 1, 1, 1], true),
            ([2, 1, 1, 0], false),
            ([2, 1, 1, 1], false),
            ([3, 1, 1, 1], false),
            ([2, 2, 1, 1], true),
            ([2, 2, 2, 0], true),
            ([3, 0, 0, 0], false),
            ([4, 0, 0, 0], true),
            ([4, 1, 1, 1], true),
            ([3, 2, 2, 2], true),
            ([4, 4, 4, 4], true),
        ] {
            assert_eq!(at(a), want, "{a:?}");
        }
    }
}
