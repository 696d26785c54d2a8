"""Acceptance tests for the Cuajo hand evaluators: shared/rules/cuajo.md sections 4 and 7.1-7.4.

The target is the engine's ``tapete.cuajo`` (``is_complete``, ``arrangement``, ``waits``,
``distance``; docs/rules/cuajo.md "Evaluators").  Every test runs through the ``impl`` fixture
of ``conftest.py``: on the engine the functions must exist; on the reference model
(``tapete.reference.cuajo``) a test is skipped when the module does not expose the function.

* 7.1 (HE-01..09), 7.2 (HE-10..22) as printed; cases that need committed secrets are tested on
  their meaning for the pure API (the pool plus padding kings, or the quad as four held cards);
  the secrets themselves are played in test_cuajo_rules.py.
* 7.3: all 625 suit-count patterns of one rank (aces, padded with kings) against a brute force;
  exactly 143 are true and the 13 facts of section 4.3 hold.
* 7.4: the special-hand hands are complete (the predicate itself is paid in the rules tests).
* Random hands: ``is_complete`` / ``arrangement`` / ``waits`` against a brute-force search over
  all combinations written in this file, ``distance`` against an independent exact computation
  (maximum overlap with a complete hand, by blocks) and its properties.
* Bad input: ``ParseError`` for bad card strings, ``ValueError`` for wrong counts, five copies,
  four copies of the sowee's kind in ``waits``.

Card strings are rank then suit (``A 3 4 5 J H K`` x ``O C E B``); card id ``7 * suit + rank``.
"""

import importlib
import itertools
import random
from functools import cache

import numpy as np
import pytest

import tapete

# --------------------------------------------------------------------------------------------
# cards (rules 0.2)

SUITS = "OCEB"
RANKS = "A345JHK"
PACK = [r + s for s in SUITS for r in RANKS]  # ascending card id
ID = {card: i for i, card in enumerate(PACK)}
KING_IDS = (6, 13, 20, 27)
KINGS = [PACK[k] for k in KING_IDS]
NON_KINGS = [c for c in PACK if c[0] != "K"]


def split(text):
    return text.replace("·", " ").split()


def by_id(cards):
    return sorted(cards, key=ID.__getitem__)


def counts(cards):
    c = [0] * 28
    for card in cards:
        c[ID[card]] += 1
    return c


def from_counts(c):
    return [PACK[t] for t in range(28) for _ in range(c[t])]


def pad(cards, size=16):
    """``cards`` plus kings (KO, KC, KE, KB in turn, at most four of a kind) up to ``size``:
    kings stand alone, so the padded hand is complete iff ``cards`` can be arranged."""
    out = list(cards)
    c = counts(out)
    i = 0
    while len(out) < size:
        k = KING_IDS[i % 4]
        if c[k] < 4:
            out.append(PACK[k])
            c[k] += 1
        i += 1
        assert i < 100
    return out


def test_card_ids_of_the_rules_document():
    assert [ID[c] for c in ("AO", "KO", "AC", "KC", "AE", "KE", "AB", "3B", "KB")] == [
        0,
        6,
        7,
        13,
        14,
        20,
        21,
        22,
        27,
    ]


# --------------------------------------------------------------------------------------------
# brute force (rules 4.1): every combination of the game, every way to split a count vector


def all_combinations():
    """Every combination as a sorted tuple of card ids: 35 sets, 8 sequences, 28 quads and the
    4 single kings (75 in all)."""
    found = set()
    for r in range(7):
        for k in (3, 4):
            for suits in itertools.combinations(range(4), k):
                found.add(tuple(7 * s + r for s in suits))
    for s in range(4):
        found.add((7 * s + 1, 7 * s + 2, 7 * s + 3))  # 3-4-5
        found.add((7 * s + 4, 7 * s + 5, 7 * s + 6))  # J-H-K
    for t in range(28):
        found.add((t,) * 4)
    for k in KING_IDS:
        found.add((k,))
    return sorted(found)


COMBINATIONS = all_combinations()
VALID_GROUPS = set(COMBINATIONS)


def test_the_brute_force_knows_75_combinations():
    assert len(COMBINATIONS) == 35 + 8 + 28 + 4


@cache
def brute_splits(c, limit=1):
    """Up to ``limit`` splits of the count tuple ``c`` into combinations (each a list of
    id tuples); a split is found by trying, for the lowest card present, every combination
    that contains it and fits."""
    t = next((i for i, n in enumerate(c) if n), None)
    if t is None:
        return ((),)
    out = []
    for combo in COMBINATIONS:
        if t not in combo or min(combo) != t:
            continue
        d = list(c)
        for u in combo:
            d[u] -= 1
        if min(d) < 0:
            continue
        for rest in brute_splits(tuple(d), limit):
            out.append((combo,) + rest)
            if len(out) >= limit:
                return tuple(out)
    return tuple(out)


def brute_complete(cards):
    return len(cards) == 16 and bool(brute_splits(tuple(counts(cards))))


def brute_waits(cards, sowee=None):
    c = counts(cards)
    out = []
    for t in range(28):
        available = 3 if sowee is not None and ID[sowee] == t else 4
        if c[t] < available:
            d = list(c)
            d[t] += 1
            if brute_splits(tuple(d)):
                out.append(PACK[t])
    return out


# one rank: quads and sets of 3-4 distinct suits (rules 4.3 SETS_OK)


@cache
def brute_sets_ok(a, quads=True):
    if not any(a):
        return True
    moves = []
    if quads:
        moves += [tuple(4 if i == s else 0 for i in range(4)) for s in range(4)]
    for k in (3, 4):
        for suits in itertools.combinations(range(4), k):
            moves.append(tuple(1 if i in suits else 0 for i in range(4)))
    for m in moves:
        rest = tuple(x - y for x, y in zip(a, m))
        if min(rest) >= 0 and brute_sets_ok(rest, quads):
            return True
    return False


PATTERNS = list(itertools.product(range(5), repeat=4))
SETS_OK = {a: brute_sets_ok(a) for a in PATTERNS}

SETS_OK_FACTS = {
    (0, 0, 0, 0): True,
    (1, 1, 1, 0): True,
    (1, 1, 1, 1): True,
    (2, 1, 1, 0): False,
    (2, 1, 1, 1): False,
    (3, 1, 1, 1): False,
    (2, 2, 1, 1): True,
    (2, 2, 2, 0): True,
    (3, 0, 0, 0): False,
    (4, 0, 0, 0): True,
    (4, 1, 1, 1): True,
    (3, 2, 2, 2): True,
    (4, 4, 4, 4): True,
}


def test_brute_force_sets_ok_table():
    assert sum(SETS_OK.values()) == 143
    for a, expected in SETS_OK_FACTS.items():
        assert SETS_OK[a] is expected, a


# --------------------------------------------------------------------------------------------
# an independent distance: 16 - the largest overlap with a complete 16-card hand
#
# A complete hand is a multiset C of combinations, at most four copies of a kind, 16 cards;
# padding with kings (each stands alone) completes any smaller such C, and never lowers the
# overlap sum_t min(hand[t], C[t]).  No combination mixes aces, low cards (3 4 5) and high
# cards (J H K), so C is the union of an ace part (one SETS_OK pattern), a low part and a high
# part (sequences per suit, then one pattern per rank; kings need no pattern).  For each part
# the best overlap is tabulated by the number of cards it uses, and the parts are convolved
# under the limit of 16 cards.

VALID_PATTERNS = [a for a in PATTERNS if SETS_OK[a]]


def rank_table(h, used, kings):
    """best[size] = most cards of ``h`` (this rank's counts per suit) covered by a pattern X
    (valid for sets and quads, or anything for kings) added to the ``used`` sequence cards;
    -1 where no pattern has that size.  Suits are interchangeable: the pairs are sorted."""
    return _rank_table(tuple(sorted(zip(h, used))), kings)


@cache
def _rank_table(pairs, kings):
    h = [p[0] for p in pairs]
    used = [p[1] for p in pairs]
    if kings:  # kings stand alone: each suit independently holds used..4 kings
        best = [0] + [-1] * 16
        for hs, us in zip(h, used):
            suit = [-1] * 17
            for y in range(us, 5):
                suit[y] = min(hs, y)
            best = convolve(best, suit)
        return best
    best = [-1] * 17
    for x in VALID_PATTERNS:
        y = [u + v for u, v in zip(used, x)]
        if max(y) > 4:
            continue
        size = sum(y)
        if size > 16:
            continue
        got = min(h[0], y[0]) + min(h[1], y[1]) + min(h[2], y[2]) + min(h[3], y[3])
        if got > best[size]:
            best[size] = got
    return best


def convolve(a, b):
    out = [-1] * 17
    for i, x in enumerate(a):
        if x < 0:
            continue
        for j, y in enumerate(b[: 17 - i]):
            if y >= 0 and x + y > out[i + j]:
                out[i + j] = x + y
    return out


def block_table(c, ranks, kings_last):
    """Best overlap by size for the block of ``ranks`` (3 ranks with sequences per suit)."""
    hs = [tuple(c[7 * s + r] for s in range(4)) for r in ranks]
    best = [-1] * 17
    # a sequence that covers no card of the hand never helps: at most as many per suit as the
    # most cards of one of its ranks held in that suit
    limits = [max(h[s] for h in hs) for s in range(4)]
    for q in itertools.product(*(range(min(4, m) + 1) for m in limits)):
        if 3 * sum(q) > 16:
            continue
        acc = None
        for i, h in enumerate(hs):
            t = rank_table(h, q, kings_last and i == 2)
            acc = t if acc is None else convolve(acc, t)
        best = [max(u, v) for u, v in zip(best, acc)]
    return best


def oracle_distance(cards):
    c = counts(cards)
    aces = rank_table(tuple(c[7 * s] for s in range(4)), (0, 0, 0, 0), False)
    low = block_table(c, (1, 2, 3), False)
    high = block_table(c, (4, 5, 6), True)
    return 16 - max(convolve(convolve(aces, low), high))


# --------------------------------------------------------------------------------------------
# random hands


def random_complete(rng):
    """A random complete 16-card hand built from random combinations."""
    while True:
        c = [0] * 28
        size = 0
        tries = 0
        while size < 16 and tries < 200:
            tries += 1
            combo = rng.choice(COMBINATIONS)
            if size + len(combo) > 16:
                continue
            if any(c[u] + combo.count(u) > 4 for u in set(combo)):
                continue
            for u in combo:
                c[u] += 1
            size += len(combo)
        if size == 16:
            cards = from_counts(c)
            rng.shuffle(cards)
            return cards


def perturb(rng, cards, k):
    """Replace ``k`` random cards by random kinds (at most four copies of a kind)."""
    cards = list(cards)
    for _ in range(k):
        i = rng.randrange(len(cards))
        c = counts(cards)
        c[ID[cards[i]]] -= 1
        cards[i] = rng.choice([PACK[t] for t in range(28) if c[t] < 4])
    return cards


def random_pack_hand(rng, n):
    return rng.sample([c for c in PACK for _ in range(4)], n)


def random_hands16(n, seed):
    rng = random.Random(seed)
    out = []
    for i in range(n):
        if i % 5 == 4:
            out.append(random_pack_hand(rng, 16))
        else:
            out.append(perturb(rng, random_complete(rng), rng.choice((0, 0, 1, 2))))
    return out


def random_hands15(n, seed):
    rng = random.Random(seed)
    out = []
    for i in range(n):
        if i % 5 == 4:
            out.append(random_pack_hand(rng, 15))
        else:
            hand = random_complete(rng)
            del hand[rng.randrange(16)]
            out.append(perturb(rng, hand, rng.choice((0, 0, 1))))
    return out


HANDS16 = random_hands16(5000, 1)
HANDS15 = random_hands15(1000, 2)


def test_random_hands_are_interesting():
    complete = sum(brute_complete(h) for h in HANDS16)
    assert 1500 < complete < 4000, complete
    waiting = sum(bool(brute_waits(h)) for h in HANDS15)
    assert 300 < waiting < 900, waiting


# --------------------------------------------------------------------------------------------
# the implementation under test


@pytest.fixture
def cj(impl):
    """``<impl>.cuajo``: the engine's must exist; the reference's is optional."""
    if impl is tapete:
        return tapete.cuajo
    try:
        return importlib.import_module(impl.__name__ + ".cuajo")
    except ImportError:
        pytest.skip("the reference model has no cuajo module")


def fn(cj, name):
    f = getattr(cj, name, None)
    if f is None:
        if cj.__name__.startswith("tapete.reference"):
            pytest.skip(f"the reference model exposes no cuajo.{name}")
        raise AssertionError(f"{cj.__name__}.{name} is missing")
    return f


def check_arrangement(groups, cards):
    """``groups`` is a valid split of ``cards``, in the canonical order of the rules page."""
    assert isinstance(groups, list)
    ids = [[ID[c] for c in g] for g in groups]
    for g in ids:
        assert g == sorted(g), groups
        assert tuple(g) in VALID_GROUPS, (g, groups)
    assert ids == sorted(ids), groups
    assert by_id([c for g in groups for c in g]) == by_id(cards)


# --------------------------------------------------------------------------------------------
# 7.1 completeness

H1 = "3O 4O 5O · JC HC KC · AO AC AE · 5C 5E 5B · 3C 3E 3B · KB"

COMPLETE_CASES = [
    ("HE-01", H1, True),
    ("HE-02", "3O 4O 5O · JC HC KC · AO AC AE · 5C 5E 5B · 3C 3E 3B · 4B", False),
    ("HE-03", "3O 4O 5O · JC HC KC · AO AC AE · 5C 5E 5B · 4E 4E 4E · KB", False),
    ("HE-04", "3O 4O 5O · JC HC KC · AO AC AE · 5C 5E 5B · 4E 4E 4E 4E", True),
    # HE-05: the 12-card pool with the secret's four HE held: an undeclared quad is valid
    ("HE-05", "3O 4O 5O · JC HC KC · AO AC AE · 5C 5E 5B · HE HE HE HE", True),
    ("HE-08", "KO KO KC KE KB KB KE · JO HO · 3C 4C 5C · AO AC AE AB", True),
    ("SP-1", "3O 4O 5O · 3C 4C 5C · 3E 4E 5E · AO AC AE AB · JO JC JE", True),
    ("SP-2", "JO HO KO · 3C 4C 5C · 3E 4E 5E · AO AC AE AB · HC HE HB", True),
    ("SP-3", "JO JC JE · 3C 4C 5C · 3E 4E 5E · AO AC AE · HC HE HB · KB", True),
    ("SP-4", "JO HO KO · JC JE JB · 3E 4E 5E · AO AC AE AB · HC HE HB", True),
    # HE-06 / HE-07 on the pool's meaning: the 13 pool cards (the extra JE included) padded
    # with kings; the sowee secret itself is played in test_cuajo_rules.py
    ("HE-06 pool", "JE JO JC · 3O 4O 5O · AO AC AE · 5C 5E 5B · KB", True),
    ("HE-07 pool", "JE JO 4O · 3O 4O 5O · AO AC AE · 5C 5E 5B · KB", False),
    # HE-06 with the three sowee copies held, undeclared: three identical cards are nothing
    ("HE-06 undeclared", "JE JO JC · 3O 4O 5O · AO AC AE · 5C 5E 5B · KB · HE HE HE", False),
    # HE-09: single groups as stand-alone multisets (padded with kings)
    ("HE-09 AO 3O 4O", "AO 3O 4O", False),
    ("HE-09 4O 5O JO", "4O 5O JO", False),
    ("HE-09 3O 4C 5E", "3O 4C 5E", False),
    ("HE-09 5O 5O 5C", "5O 5O 5C", False),
    ("HE-09 AO", "AO", False),
    ("HE-09 KC KC", "KC KC", True),
    ("HE-09 JE HE KE", "JE HE KE", True),
    ("HE-09 3B 4B 5B", "3B 4B 5B", True),
]


def case_cards(text):
    cards = split(text)
    return pad(cards) if len(cards) < 16 else cards


def test_completeness_cases_agree_with_the_brute_force():
    for name, text, expected in COMPLETE_CASES:
        assert brute_complete(case_cards(text)) is expected, name


@pytest.mark.parametrize("case", COMPLETE_CASES, ids=[c[0] for c in COMPLETE_CASES])
def test_is_complete_cases(cj, case):
    name, text, expected = case
    cards = case_cards(text)
    assert fn(cj, "is_complete")(cards) is expected


@pytest.mark.parametrize("case", COMPLETE_CASES, ids=[c[0] for c in COMPLETE_CASES])
def test_arrangement_cases(cj, case):
    name, text, expected = case
    cards = case_cards(text)
    groups = fn(cj, "arrangement")(cards)
    if expected:
        check_arrangement(groups, cards)
    else:
        assert groups is None


def test_he08_arrangement_uses_one_coin_king_in_the_sequence(cj):
    groups = fn(cj, "arrangement")(split(COMPLETE_CASES[5][1]))
    assert ["JO", "HO", "KO"] in groups
    assert groups.count(["KO"]) == 1 and groups.count(["KB"]) == 2


def test_he01_arrangement_is_the_only_one(cj):
    groups = fn(cj, "arrangement")(split(H1))
    assert groups == [
        ["AO", "AC", "AE"],
        ["3O", "4O", "5O"],
        ["3C", "3E", "3B"],
        ["5C", "5E", "5B"],
        ["JC", "HC", "KC"],
        ["KB"],
    ]


def test_input_order_and_aliases_do_not_matter(cj):
    cards = split(H1)
    aliases = {"A": "1", "J": "10", "H": "11", "K": "12"}
    spelled = [aliases.get(c[0], c[0]) + c[1].lower() for c in cards]
    assert fn(cj, "is_complete")(list(reversed(spelled))) is True
    assert fn(cj, "arrangement")(spelled) == fn(cj, "arrangement")(cards)
    assert fn(cj, "waits")([c.lower() for c in cards[:-1]], "hb") == ["3O", "5O"] + [
        "KO",
        "KC",
        "KE",
        "AB",
        "KB",
    ]
    assert fn(cj, "distance")(spelled) == 0
    assert fn(cj, "is_complete")(tuple(cards)) is True


# --------------------------------------------------------------------------------------------
# 7.2 waits

WAIT_CASES = [
    ("HE-10", "3O 4O 5O · JC HC KC · AO AC AE · 5C 5E 5B · 3C 3E 3B", "HB",
     "3O 5O KO KC KE AB KB"),
    ("HE-11", "3O 4O 5O · JC HC KC · 5C 5E 5B · 3C 3E 3B · AO AC · KB", "HB", "AE AB"),
    ("HE-12", "3O 4O 5O · JC HC KC · AO AC AE · 5C 5E 5B · 4E 4E 4E", "HB", "4E"),
    ("HE-13", "3O 4O 5O · JC HC KC · AO AC AE · 5C 5E 5B · 4E 4E 4E", "4E", ""),
    # HE-14 on the pool's meaning: the 12 pool cards (JE the extra) padded with KO KC KE; the
    # three HE of the sowee secret are out of the pool and use up the sowee's kind
    ("HE-14 pool", "JE JO · 3O 4O 5O · AO AC AE · 5C 5E 5B · KB · KO KC KE", "HE", "JC JB"),
    ("HE-15", "JO JO HO HO KO · 3C 4C 5C · AO AC AE · 5O 5E 5B · KB", "AB", "KO"),
    ("HE-16", "3O 4O 5O 5O 5C · JE HE KE · AB AC AE · 3B 4B 5B · KO", "JB", "5E 5B"),
    ("HE-17", "3O 4O 5O 3O 4O 5O · 3C 4C 5C · 3E 4E · AB AC AE · KB", "5E", "5E 5B"),
    ("HE-18", "JO JC JE JB · HO HC HE · KO KC · 3B 4B 5B · AB AC AE", "5E",
     "AO HO KO HC KC KE HB KB"),
    ("HE-19", "3O 3O 4O 4O 5O 5O · 3C 4C 5C · JE HE KE · AB AC AE", "KB", "AO KO KC KE KB"),
    ("HE-20", "3O 3O 3O 3O · 4O 4O 4O · 5O 5O 5O · AB AC AE · KB KB", "5E", ""),
    ("HE-21", "3O 4O 5O · JC HC KC · AO AC · 5C 5E 5B · 3C 3E 3B · 4B", "KB", ""),
    ("HE-22", "3O 3O 3O · 4O 4O 4O · 5O 5O 5O · AB AC AE · JE HE KB", "5E", "KE"),
]  # fmt: skip


def test_wait_cases_agree_with_the_brute_force():
    for name, text, sowee, expected in WAIT_CASES:
        cards = split(text)
        assert len(cards) == 15, name
        assert brute_waits(cards, sowee) == split(expected), name


@pytest.mark.parametrize("case", WAIT_CASES, ids=[c[0] for c in WAIT_CASES])
def test_waits_cases(cj, case):
    name, text, sowee, expected = case
    assert fn(cj, "waits")(split(text), sowee) == split(expected)


def test_waits_without_sowee_count_four_copies(cj):
    # HE-13 without a sowee: the fourth 4E exists
    cards = split(WAIT_CASES[3][1])
    assert fn(cj, "waits")(cards) == ["4E"]
    assert fn(cj, "waits")(cards, None) == ["4E"]
    # HE-10 with the sowee AB: only three AB exist, the hand holds none, AB still waits
    assert fn(cj, "waits")(split(WAIT_CASES[0][1]), "AB") == split("3O 5O KO KC KE AB KB")
    # a hand holding the three copies of its sowee cannot wait on it (KB as sowee, three held)
    cards = split("3O 4O 5O · JC HC KC · AO AC AE · 5C 5E 5B · KB KB KB")
    assert fn(cj, "waits")(cards, "KB") == brute_waits(cards, "KB") == split("5O KO KC KE AB")
    assert "KB" in fn(cj, "waits")(cards)


# --------------------------------------------------------------------------------------------
# 7.3 the per-rank table through the public API


def pattern_hand(a):
    """a[s] aces of suit s, padded with kings to 16 cards."""
    return pad([RANKS[0] + SUITS[s] for s in range(4) for _ in range(a[s])])


def test_every_per_rank_pattern(cj):
    is_complete = fn(cj, "is_complete")
    got = {a: is_complete(pattern_hand(a)) for a in PATTERNS}
    wrong = {a: v for a, v in got.items() if v is not SETS_OK[a]}
    assert not wrong, f"{len(wrong)} patterns differ, e.g. {sorted(wrong.items())[:5]}"
    assert sum(got.values()) == 143
    for a, expected in SETS_OK_FACTS.items():
        assert got[a] is expected, a


def test_per_rank_patterns_of_other_ranks(cj):
    """The same table holds for the sets of 3s, jacks and kings (padded likewise)."""
    is_complete = fn(cj, "is_complete")
    for a in PATTERNS:
        for r in "3J":
            cards = pad([r + SUITS[s] for s in range(4) for _ in range(a[s])])
            assert is_complete(cards) is SETS_OK[a], (r, a)


def test_per_rank_patterns_arrangement(cj):
    arrangement = fn(cj, "arrangement")
    for a in PATTERNS:
        cards = pattern_hand(a)
        groups = arrangement(cards)
        if SETS_OK[a]:
            check_arrangement(groups, cards)
        else:
            assert groups is None, a


# --------------------------------------------------------------------------------------------
# random hands against the brute force


def test_is_complete_matches_the_brute_force(cj):
    is_complete = fn(cj, "is_complete")
    for hand in HANDS16:
        assert is_complete(hand) is brute_complete(hand), by_id(hand)


def test_arrangement_matches_the_brute_force(cj):
    arrangement = fn(cj, "arrangement")
    for hand in HANDS16[:2000]:
        groups = arrangement(hand)
        if brute_complete(hand):
            check_arrangement(groups, hand)
        else:
            assert groups is None, by_id(hand)


def test_waits_match_the_brute_force(cj):
    waits = fn(cj, "waits")
    rng = random.Random(3)
    for hand in HANDS15:
        assert waits(hand) == brute_waits(hand), by_id(hand)
        c = counts(hand)
        sowee = rng.choice([PACK[t] for t in range(28) if c[t] <= 3])
        assert waits(hand, sowee) == brute_waits(hand, sowee), (by_id(hand), sowee)


def test_waits_of_complete_hands_minus_one_card(cj):
    """Removing any card of a complete hand leaves a hand that waits at least on it (if a copy
    remains available)."""
    waits = fn(cj, "waits")
    rng = random.Random(4)
    for _ in range(200):
        hand = random_complete(rng)
        i = rng.randrange(16)
        removed, rest = hand[i], hand[:i] + hand[i + 1 :]
        got = waits(rest)
        assert removed in got and got == brute_waits(rest), (by_id(rest), removed)


# --------------------------------------------------------------------------------------------
# distance


def test_oracle_distance_properties():
    """Self-check of this file's distance: 0 iff complete, 1 iff waits (15 cards)."""
    for hand in HANDS16[:300]:
        assert (oracle_distance(hand) == 0) is brute_complete(hand), by_id(hand)
    for hand in HANDS15[:300]:
        assert (oracle_distance(hand) == 1) is bool(brute_waits(hand)), by_id(hand)
    # one hand of known distance: 16 cards, none of which can share a combination with two
    # others except the three aces -> keep AO AC AE (1 set), 3O 3C + 3E (1 more) ...
    assert oracle_distance(split(H1)) == 0
    assert oracle_distance(split("3O 4O 5O · JC HC KC · AO AC AE · 5C 5E 5B · 3C 3E 3B · 4B")) == 1


def all_exchanges(hand):
    """Every distinct hand one exchange away from ``hand``."""
    c = counts(hand)
    seen = set()
    for i, card in enumerate(hand):
        for t in range(28):
            if t == ID[card] or c[t] >= 4:
                continue
            other = hand[:i] + [PACK[t]] + hand[i + 1 :]
            key = tuple(by_id(other))
            if key not in seen:
                seen.add(key)
                yield other


def test_oracle_distance_one_is_one_exchange():
    """Self-check by exchanges: distance 1 iff not complete and one exchange completes."""
    for hand in HANDS16[:120]:
        d = oracle_distance(hand)
        if brute_complete(hand):
            assert d == 0
        elif any(brute_complete(h) for h in all_exchanges(hand)):
            assert d == 1, by_id(hand)
        else:
            assert d >= 2, by_id(hand)


def exchange_neighbours(rng, hand, k):
    """``k`` random hands one exchange (a card out, another kind in) away from ``hand``."""
    out = []
    c = counts(hand)
    while len(out) < k:
        i = rng.randrange(len(hand))
        kinds = [t for t in range(28) if c[t] < 4 and t != ID[hand[i]]]
        out.append(hand[:i] + [PACK[rng.choice(kinds)]] + hand[i + 1 :])
    return out


def distance_sample(seed, n16, n15):
    rng = random.Random(seed)
    hands = random_hands16(n16, seed + 10) + random_hands15(n15, seed + 20)
    # a few far hands: pure random deals and scattered cards
    hands += [random_pack_hand(rng, 16) for _ in range(20)]
    hands += [random_pack_hand(rng, 15) for _ in range(20)]
    return hands


def test_distance_matches_the_independent_computation(cj):
    distance = fn(cj, "distance")
    for hand in distance_sample(5, 200, 150):
        assert distance(hand) == oracle_distance(hand), by_id(hand)


def test_distance_cases(cj):
    distance = fn(cj, "distance")
    for name, text, expected in COMPLETE_CASES:
        cards = case_cards(text)
        assert distance(cards) == oracle_distance(cards), name
        assert (distance(cards) == 0) is expected, name
    for name, text, _sowee, _waits in WAIT_CASES:
        cards = split(text)
        assert distance(cards) == oracle_distance(cards), name
    # far hands
    scattered = split("AO AO 3C 3C 4E 4E 5B 5B JO JO HC HC 4O 5E JB JB")
    assert distance(scattered) == oracle_distance(scattered)
    assert distance(scattered) >= 4


def test_distance_properties(cj):
    distance = fn(cj, "distance")
    is_complete = fn(cj, "is_complete")
    waits = fn(cj, "waits")
    rng = random.Random(6)
    for hand in HANDS16[:1000]:
        d = distance(hand)
        assert (d == 0) is is_complete(hand), by_id(hand)
        assert 0 <= d <= 16
        for other in exchange_neighbours(rng, hand, 2):
            assert abs(distance(other) - d) <= 1, (by_id(hand), by_id(other))
    for hand in HANDS15[:500]:
        d = distance(hand)
        assert d >= 1
        assert (d == 1) is bool(waits(hand)), by_id(hand)
        for other in exchange_neighbours(rng, hand, 2):
            assert abs(distance(other) - d) <= 1, (by_id(hand), by_id(other))


def test_distance_of_sixteen_and_fifteen_cards_agree(cj):
    """Removing a card of a 16-card hand never lowers the distance (the shared part can only
    shrink by the removed card, and one card fewer is needed), and a hand with waits plus a
    waited card is complete."""
    distance = fn(cj, "distance")
    rng = random.Random(7)
    for hand in HANDS16[:300]:
        d = distance(hand)
        rest = list(hand)
        del rest[rng.randrange(16)]
        assert d <= distance(rest) <= d + 1, by_id(hand)


# --------------------------------------------------------------------------------------------
# bad input

GOOD16 = split(H1)
GOOD15 = GOOD16[:-1]


@pytest.mark.parametrize("bad", ["XX", "2O", "6C", "QO", "KZ", "K", "", " ", "13O", "0O", "AOO"])
def test_bad_card_strings_are_parse_errors(cj, bad):
    for name, args in (
        ("is_complete", (GOOD15 + [bad],)),
        ("arrangement", (GOOD15 + [bad],)),
        ("waits", (GOOD15[:-1] + [bad],)),
        ("distance", (GOOD15 + [bad],)),
        ("distance", (GOOD15[:-1] + [bad],)),
    ):
        with pytest.raises(tapete.ParseError):
            fn(cj, name)(*args)
    with pytest.raises(tapete.ParseError):
        fn(cj, "waits")(GOOD15, bad)


def value_error(f, *args):
    """``f(*args)`` raises a ValueError that is not a ParseError (docs/engine.md: bad
    evaluator input that is not a parse error)."""
    with pytest.raises(ValueError) as info:
        f(*args)
    assert not isinstance(info.value, tapete.ParseError), info.value


def test_wrong_numbers_of_cards(cj):
    for n in (0, 1, 14, 15, 17, 20):
        cards = (GOOD16 * 2)[:n]
        value_error(fn(cj, "is_complete"), cards)
        value_error(fn(cj, "arrangement"), cards)
    for n in (0, 14, 16, 17):
        value_error(fn(cj, "waits"), (GOOD16 * 2)[:n])
    for n in (0, 1, 14, 17, 20):
        value_error(fn(cj, "distance"), (GOOD16 * 2)[:n])


def test_five_copies_of_a_kind(cj):
    five16 = ["AO"] * 5 + GOOD16[5:]
    five15 = ["3B"] * 5 + GOOD16[5:15]
    assert len(five16) == 16 and len(five15) == 15
    value_error(fn(cj, "is_complete"), five16)
    value_error(fn(cj, "arrangement"), five16)
    value_error(fn(cj, "distance"), five16)
    value_error(fn(cj, "waits"), five15)
    value_error(fn(cj, "distance"), five15)
    kings = ["KO"] * 5 + ["KC"] * 4 + ["KE"] * 4 + ["KB"] * 3
    value_error(fn(cj, "is_complete"), kings)


def test_four_copies_of_the_sowee_kind_in_waits(cj):
    cards = split("3O 4O 5O · JC HC KC · AO AC AE · 5C 5E 5B · 4E 4E 4E")
    assert fn(cj, "waits")(cards, "4E") == []  # three: fine
    four = split("3O 4O 5O · JC HC KC · AO AC · 5C 5E 5B · 4E 4E 4E 4E")
    assert fn(cj, "waits")(four) == brute_waits(four)  # no sowee: fine
    value_error(fn(cj, "waits"), four, "4E")
    value_error(fn(cj, "waits"), four, "4e")


@pytest.mark.parametrize(
    "item", [1, None, 3.5, b"AO", ("A", "O"), ["AO"]], ids=lambda x: type(x).__name__
)
def test_non_string_items(cj, item):
    for name, size in (("is_complete", 16), ("arrangement", 16), ("waits", 15), ("distance", 16)):
        cards = GOOD16[: size - 1] + [item]
        with pytest.raises(ValueError):
            fn(cj, name)(cards)
    with pytest.raises(ValueError):
        fn(cj, "waits")(GOOD15, item if item is not None else 7)


def test_evaluators_do_not_change_their_argument(cj):
    cards = list(GOOD16)
    fn(cj, "is_complete")(cards)
    fn(cj, "arrangement")(cards)
    fn(cj, "distance")(cards)
    assert cards == GOOD16


def test_best_arrangement_with_the_options():
    """``best_arrangement`` takes any number of cards and the two options that change what a
    combination is; nothing is left over exactly when the cards split."""
    best = tapete.cuajo.best_arrangement
    assert best([]) == ([], [])
    assert best(["KB"]) == ([["KB"]], [])
    assert best(["4E"] * 4 + ["3O"]) == ([["4E"] * 4], ["3O"])
    assert best(["4E"] * 4 + ["3O"], undeclared_quad_valid=False) == (
        [],
        ["3O", "4E", "4E", "4E", "4E"],
    )
    assert best(["4E"] * 3 + ["3O"]) == ([], ["3O", "4E", "4E", "4E"])
    assert best(["4E"] * 3 + ["3O"], sowee_triple="4E") == ([["4E"] * 3], ["3O"])
    # HE-06's pool without the declared sowee secret: the jack set holds the extra card JE
    pool = split("JE JO JC 3O 4O 5O AO AC AE 5C 5E 5B KB")
    assert best(pool)[1] == []
    rng = random.Random(11)
    pack = [c for c in PACK for _ in range(4)]
    for _ in range(300):
        cards = rng.sample(pack, rng.randrange(1, 17))
        groups, left = best(cards)
        assert sorted([*left, *(c for g in groups for c in g)], key=PACK.index) == sorted(
            cards, key=PACK.index
        )
        if len(cards) == 16:
            assert (not left) == tapete.cuajo.is_complete(cards)
            assert (tapete.cuajo.arrangement(cards) == groups) if not left else True
    with pytest.raises(tapete.ParseError):
        best(["KB"], sowee_triple="XX")
    with pytest.raises(TypeError, match="undeclared_quad_valid must be a bool, got 3"):
        best(["KB"], undeclared_quad_valid=3)  # type: ignore[arg-type]
    assert best(["4E"] * 4, undeclared_quad_valid=np.False_) == ([], ["4E"] * 4)
    with pytest.raises(ValueError):
        best(["KB"] * 5)
