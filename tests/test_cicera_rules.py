"""Acceptance tests for Cicera: the worked cases of shared/rules/cicera.md, section 10.

Every test that touches an implementation runs on both of them through the ``impl`` fixture of
``conftest.py`` (the Rust engine ``tapete`` and the pure-Python reference ``tapete.reference``).

* 10.1 (C1-C22) through ``<impl>.cicera.captures`` (exact canonical lists), a brute-force
  comparison on random tables, and the same tables as real game positions: the tree of ``take``
  actions after ``capture <c>`` must yield exactly the capture list (also with
  ``force_single_match``).
* 10.2 (P1-P17) as full games: a 52-card deck (top first) deals the hands a script needs
  (deck[i], i < 48, goes to seat (dealer + 1 + i % 4) % 4, deck[48:52] is the table) and the
  script's trails and captures build the position; the bonus is read from ``view()["bonus"]``.
* 10.3 (E1-E8) through ``<impl>.cicera.score_hand`` and, for the options, through full hands.
* 10.4 (M1-M6) as matches of scripted hands (``decks=``) with small targets.
* 10.5 action ids, the deal order of 3.1 / 3.3 and the dealer rotation of section 2.

Card strings are the canonical ones of docs/rules/cicera.md (``10D``, ``JH``); card ids are
``13 * suit + rank`` with suits ``S H D C`` (rules 1.3).  Seats are in play order, teams
{0, 2} and {1, 3}.
"""

import importlib
import itertools
import random

import pytest

import tapete

# --------------------------------------------------------------------------------------------
# cards (rules 1.2 / 1.3)

SUITS = "SHDC"
RANKS = ["A", "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K"]
PACK = [r + s for s in SUITS for r in RANKS]  # ascending card id
ID = {card: i for i, card in enumerate(PACK)}
NUMERALS = [c for c in PACK if c[:-1] not in ("J", "Q", "K")]
CATEGORIES = [
    "cards",
    "spades",
    "two_of_spades",
    "napola",
    "ten_of_diamonds",
    "jack_of_hearts",
]


def card_id(card):
    return ID[card]


def by_id(cards):
    return sorted(cards, key=card_id)


def rank(card):
    return card[:-1]


def suit(card):
    return card[-1]


def value(card):
    """Capture value: A..10 -> 1..10, courts None."""
    r = RANKS.index(rank(card))
    return r + 1 if r <= 9 else None


def suit_cards(s, ranks="all"):
    return [r + s for r in (RANKS if ranks == "all" else ranks.split())]


def test_card_ids_of_the_rules_document():
    expected = {"AS": 0, "2S": 1, "KS": 12, "AH": 13, "JH": 23, "KH": 25, "AD": 26, "2D": 27}
    expected.update({"10D": 35, "AC": 39, "5C": 43, "KC": 51, "7H": 19, "2D": 27, "KD": 38})
    assert {c: card_id(c) for c in expected} == expected
    assert [value(c) for c in ("AS", "10D", "7H")] == [1, 10, 7]
    assert [value(c) for c in ("JH", "QS", "KC")] == [None, None, None]


# --------------------------------------------------------------------------------------------
# capture sets: a brute-force oracle (rules 4.2) and the canonical order (rules 10 / 11.1)


def is_capture(cards, played):
    """Whether the set ``cards`` of table cards is a legal capture for ``played`` (rules 4.2)."""
    if not cards:
        return False
    v = value(played)
    if v is None:
        return len(cards) == 1 and rank(cards[0]) == rank(played)
    return all(value(c) is not None for c in cards) and sum(value(c) for c in cards) == v


def canonical(sets):
    """Each set ascending by id, the sets in lexicographic order of their id tuples."""
    sets = [by_id(s) for s in sets]
    return sorted(sets, key=lambda s: [card_id(c) for c in s])


def brute_captures(table, played):
    table = by_id(table)
    found = []
    for k in range(1, len(table) + 1):
        for combo in itertools.combinations(table, k):
            if is_capture(list(combo), played):
                found.append(list(combo))
    return canonical(found)


def fast_captures(table, played):
    """The same list as brute_captures, by a pruned search (for tables of any size)."""
    v = value(played)
    if v is None:
        return [[c] for c in by_id(table) if rank(c) == rank(played)]
    nums = [c for c in by_id(table) if value(c) is not None]
    found = []

    def walk(i, rem, cur):
        if rem == 0:
            found.append(cur)
            return
        for j in range(i, len(nums)):
            if value(nums[j]) <= rem:
                walk(j + 1, rem - value(nums[j]), cur + [nums[j]])

    walk(0, v, [])
    return canonical(found)


def count_captures(table, played):
    """Number of capture sets without enumerating them (rules 11.2)."""
    v = value(played)
    if v is None:
        return sum(1 for c in table if rank(c) == rank(played))
    ways = [1] + [0] * v  # subsets of table numerals by sum
    for c in table:
        x = value(c)
        if x is None:
            continue
        for s in range(v, x - 1, -1):
            ways[s] += ways[s - x]
    return ways[v]


def evaluators(impl):
    mod = getattr(impl, "cicera", None)
    if mod is None:
        mod = importlib.import_module(impl.__name__ + ".cicera")
    return mod


@pytest.fixture
def cic(impl):
    """``<impl>.cicera``: captures and score_hand, as in api.md."""
    return evaluators(impl)


# --------------------------------------------------------------------------------------------
# 10.1 capture enumeration

C_CASES = [
    # id, table (as printed in the rules), played card, legal sets (any order)
    ("C1", "7H 5C 2D KS", "7S", ["7H", "2D 5C"]),
    ("C2", "AS 3C 4D 2H 6S", "7C", ["AS 6S", "AS 2H 4D", "4D 3C"]),
    ("C3", "KH KD 5S", "KS", ["KH", "KD"]),
    ("C4", "QH 5S", "KC", []),
    ("C5", "JS QS 3H", "3D", ["3H"]),
    ("C6", "5H 5D AS", "5C", ["5H", "5D"]),
    ("C7", "5H 5D AS", "10S", ["5H 5D"]),
    ("C8", "AS AH 2C", "AD", ["AS", "AH"]),
    ("C9", "", "7D", []),
    ("C10", "JH QD KC", "9S", []),
    ("C11", "2S 2H 3D 3C", "5D", ["2S 3D", "2S 3C", "2H 3D", "2H 3C"]),
    ("C12", "AS 2S 3S 4S", "10D", ["AS 2S 3S 4S"]),
    ("C13", "9C 8D", "10H", []),
    ("C14", "6H 4H 3S 2S AC 5D", "6C", ["2S 3S AC", "2S 4H", "6H", "5D AC"]),
    ("C15", "10S JS 5H 5C KD", "JD", ["JS"]),
    (
        "C16",
        "AH 2H 3H 4H 5H 6H 7H 8H 9H",
        "10H",
        [
            "AH 2H 3H 4H",
            "AH 2H 7H",
            "AH 3H 6H",
            "AH 4H 5H",
            "AH 9H",
            "2H 3H 5H",
            "2H 8H",
            "3H 7H",
            "4H 6H",
        ],
    ),
    ("C17", "4C 5C 9D", "9C", ["9D", "4C 5C"]),
    ("C18", "2D 3D 5D 5S KH JD", "5H", ["5S", "2D 3D", "5D"]),
    ("C19", "AC 2C 3C 4C 6S KS", "7D", ["6S AC", "AC 2C 4C", "3C 4C"]),
]

# C20: the full canonical list, in the order printed by the rules (enumeration-order test)
C20_TABLE = "AS AH AD AC 2S 2H 2D 4C"
C20_SETS = [
    "AS 2S AH 2H AD 2D AC",
    "AS 2S AH 2H 4C",
    "AS 2S AH AD AC 4C",
    "AS 2S AH 2D 4C",
    "AS 2S 2H AD 4C",
    "AS 2S 2H AC 4C",
    "AS 2S AD 2D 4C",
    "AS 2S 2D AC 4C",
    "AS AH 2H AD AC 4C",
    "AS AH 2H 2D 4C",
    "AS AH AD 2D AC 4C",
    "AS 2H AD 2D 4C",
    "AS 2H 2D AC 4C",
    "2S AH 2H AD 4C",
    "2S AH 2H AC 4C",
    "2S AH AD 2D 4C",
    "2S AH 2D AC 4C",
    "2S 2H AD AC 4C",
    "2S 2H 2D 4C",
    "2S AD 2D AC 4C",
    "AH 2H AD 2D 4C",
    "AH 2H 2D AC 4C",
    "2H AD 2D AC 4C",
]

C21_TABLE = " ".join(
    suit_cards("H", "A 2 3 4 5 6 7 8 9 10") + suit_cards("D", "A 2 3 4 5 6 7 8 9 10")
)
C21_COUNTS = {"10S": 93, "9S": 66, "5S": 14, "AS": 2}
C22_COUNTS = dict(zip(suit_cards("S", "A 2 3 4 5 6 7 8 9 10"), [3, 9, 23, 50, 99, 189, 343]))
C22_COUNTS.update({"8S": 600, "9S": 1023, "10S": 1701})

# rules 10.1, force_single_match = true (played in real game positions, see below)
FORCE_SINGLE = {
    "C1": ["7H"],
    "C14": ["6H"],
    "C17": ["9D"],
    "C18": ["5S", "5D"],
}


def c_sets(case):
    return canonical([s.split() for s in case[3]])


def test_c_tables_agree_with_the_brute_force_oracle():
    # the oracle of this file reproduces every listed case (a check of the test data itself)
    for case in C_CASES:
        assert brute_captures(case[1].split(), case[2]) == c_sets(case), case[0]
    c20 = [s.split() for s in C20_SETS]
    assert brute_captures(C20_TABLE.split(), "10H") == c20
    for played, n in C21_COUNTS.items():
        assert count_captures(C21_TABLE.split(), played) == n
    for played, n in C22_COUNTS.items():
        table = [c for c in NUMERALS if c != played]
        assert len(table) == 39
        assert count_captures(table, played) == n


@pytest.mark.parametrize("case", C_CASES, ids=[c[0] for c in C_CASES])
def test_captures_c_cases(cic, case):
    _, table, played, _ = case
    got = cic.captures(table.split(), played)
    assert [list(s) for s in got] == c_sets(case)  # canonical order, canonical strings


def test_captures_with_force_single_match(cic):
    # a numeral that can take a single card of its value takes only such cards; a sum otherwise
    table = ["7H", "5C", "2D", "7C", "KS"]
    singles = [[c] for c in by_id(["7H", "7C"])]
    assert cic.captures(table, "7S", force_single_match=True) == singles
    assert len(cic.captures(table, "7S")) == 3
    assert cic.captures(["5C", "2D"], "7S", force_single_match=True) == [by_id(["5C", "2D"])]


def test_captures_c20_canonical_order(cic):
    got = cic.captures(C20_TABLE.split(), "10H")
    assert [list(s) for s in got] == [s.split() for s in C20_SETS]
    assert len(got) == 23
    assert max(got, key=len) == ["AS", "2S", "AH", "2H", "AD", "2D", "AC"]
    assert [s for s in got if len(s) == 4] == [["2S", "2H", "2D", "4C"]]


@pytest.mark.parametrize("played", sorted(C21_COUNTS, key=card_id))
def test_captures_c21_counts(cic, played):
    table = C21_TABLE.split()
    got = [list(s) for s in cic.captures(table, played)]
    assert len(got) == C21_COUNTS[played]
    assert got == canonical(got)
    assert all(is_capture(s, played) and set(s) <= set(table) for s in got)
    assert len({tuple(s) for s in got}) == len(got)


@pytest.mark.parametrize("played", sorted(C22_COUNTS, key=card_id))
def test_captures_c22_counts(cic, played):
    table = [c for c in NUMERALS if c != played]
    random.Random(card_id(played)).shuffle(table)  # the input order must not matter
    got = [list(s) for s in cic.captures(table, played)]
    assert len(got) == C22_COUNTS[played]
    assert got == canonical(got)
    assert all(is_capture(s, played) for s in got)
    assert len({tuple(s) for s in got}) == len(got)
    if played == "10S":
        assert max(len(s) for s in got) == 7  # rules 4.2: A,A,A,A,2,2,2


def test_captures_parses_any_case_and_ten_as_t(cic):
    got = cic.captures(["7h", "5c", "2D", "ks"], "7s")
    assert [list(s) for s in got] == [["7H"], ["2D", "5C"]]
    got = cic.captures(["Th", "5c", "5S"], "TD")
    assert [list(s) for s in got] == [["5S", "5C"], ["10H"]]  # ids (4, 43) < (22,)


# --------------------------------------------------------------------------------------------
# exhaustive-style check: captures vs all subsets, random tables of up to 12 cards


def random_tables(n, seed):
    rng = random.Random(seed)
    low = [c for c in PACK if rank(c) in ("A", "2", "3", "4", "5", "J", "Q", "K")]
    cases = []
    for _ in range(n):
        high = [c for c in NUMERALS if value(c) >= 5]
        played = rng.choice(high if rng.random() < 0.6 else PACK)
        pool = [c for c in (low if rng.random() < 0.6 else PACK) if c != played]
        table = rng.sample(pool, rng.randint(0, min(12, len(pool))))
        cases.append((table, played))
    return cases


RANDOM_TABLES = random_tables(400, 20240611)
RANDOM_EXPECTED = [brute_captures(t, p) for t, p in RANDOM_TABLES]


def test_fast_oracle_agrees_with_brute_force():
    for (table, played), expected in zip(RANDOM_TABLES, RANDOM_EXPECTED):
        assert fast_captures(table, played) == expected


def test_random_tables_are_interesting():
    assert sum(1 for e in RANDOM_EXPECTED if len(e) >= 5) >= 40
    assert sum(1 for e in RANDOM_EXPECTED if not e) >= 40
    assert any(max(map(len, e), default=0) >= 5 for e in RANDOM_EXPECTED)


def test_captures_match_brute_force_on_random_tables(cic):
    for (table, played), expected in zip(RANDOM_TABLES, RANDOM_EXPECTED):
        got = [list(s) for s in cic.captures(table, played)]
        assert got == expected, (table, played)


# --------------------------------------------------------------------------------------------
# decks and scripts


def deal(deck, dealer, packet=12, style="one_at_a_time"):
    """Hands (per packet) and table dealt from ``deck`` (rules 3.1 / 3.3, docs/rules/cicera.md).

    Returns ``(packets, table)``: ``packets[k][seat]`` = the cards of packet k for that seat.
    """
    packets, table = [], None
    pos = 0
    while pos < 52:
        hands = [[] for _ in range(4)]
        for j in range(4 * packet):
            step = j % 4 if style == "one_at_a_time" else j // packet
            hands[(dealer + 1 + step) % 4].append(deck[pos + j])
        packets.append(hands)
        pos += 4 * packet
        if table is None:
            table = deck[pos : pos + 4]
            pos += 4
    return packets, table


def build_deck(dealer, table0, steps, hold=None):
    """52-card deck (top first) that lets ``steps`` be played from the start of a hand.

    ``steps`` are ``(seat, card, taken)`` in play order (``taken`` None = trail); ``hold`` maps a
    seat to cards it must still hold after them.  Each seat's hand is the cards it plays, in
    order, then the held cards, then fillers in ascending card id.  deck[i] (i < 48) goes to
    seat (dealer + 1 + i % 4) % 4, deck[48:52] is the table (rules 3.1).
    """
    assert len(table0) == 4
    own = [[] for _ in range(4)]
    for k, (seat, card, _) in enumerate(steps):
        assert seat == (dealer + 1 + k) % 4, (k, seat, card)
        own[seat].append(card)
    for seat, held in (hold or {}).items():
        own[seat].extend(held)
    listed = list(table0) + [c for hand in own for c in hand]
    assert len(set(listed)) == len(listed), "a card is used twice"
    rest = iter(c for c in PACK if c not in listed)
    deck = [None] * 52
    for seat in range(4):
        assert len(own[seat]) <= 12, seat
        hand = own[seat] + [next(rest) for _ in range(12 - len(own[seat]))]
        offset = (seat - dealer - 1) % 4
        for j, card in enumerate(hand):
            deck[4 * j + offset] = card
    deck[48:52] = table0
    assert by_id(deck) == PACK
    packets, table = deal(deck, dealer)
    assert table == list(table0)
    for seat in range(4):
        assert set(own[seat]) <= set(packets[0][seat])
    return deck


class Sim:
    """A minimal model of rules 4 / 7, used only to double-check this file's scenarios."""

    def __init__(self, deck, dealer, mode="any", last_sweep=True):
        packets, table = deal(deck, dealer)
        self.hands = [set(h) for h in packets[0]]
        self.table = set(table)
        self.turn = (dealer + 1) % 4
        self.mode, self.last_sweep = mode, last_sweep
        self.piles = [set(), set()]
        self.bonus = [0, 0]
        self.last_trail = None
        self.last_capturer = None
        self.plays = 0

    def step(self, seat, card, taken):
        assert seat == self.turn and card in self.hands[seat], (seat, card)
        self.hands[seat].remove(card)
        self.plays += 1
        if taken is None:
            self.table.add(card)
            self.last_trail = card
        else:
            s = set(taken)
            assert s <= self.table and is_capture(list(s), card), (card, taken, self.table)
            b = int(s == self.table and (self.last_sweep or self.plays < 48))
            if self.mode == "any":
                b += self.last_trail in s
            else:
                b += s == {self.last_trail}
            b += all(suit(c) == suit(card) for c in s)
            b += len(s) >= 3
            self.bonus[seat % 2] += b
            self.table -= s
            self.piles[seat % 2] |= s | {card}
            self.last_capturer = seat
            self.last_trail = None
        self.turn = (seat + 1) % 4
        if self.plays == 48 and self.last_capturer is not None:
            self.piles[self.last_capturer % 2] |= self.table
            self.table = set()

    def run(self, steps):
        for step in steps:
            self.step(*step)
        return self


def expected_points(pile0, pile1, bonus=(0, 0), cards_tie="none", spades=1, courts=True):
    """End-of-hand points by category (rules 5.1), an oracle checked against E1-E7 below."""
    piles = [set(pile0), set(pile1)]
    pts = {k: [0, 0] for k in CATEGORIES}
    n = [len(p) for p in piles]
    if n[0] != n[1]:
        pts["cards"][0 if n[0] > n[1] else 1] = 2
    elif cards_tie == "one_each":
        pts["cards"] = [1, 1]
    sp = [sum(1 for c in p if suit(c) == "S") for p in piles]
    if sp[0] != sp[1]:
        pts["spades"][0 if sp[0] > sp[1] else 1] = spades
    for t in (0, 1):
        p = piles[t]
        pts["two_of_spades"][t] = int("2S" in p)
        pts["ten_of_diamonds"][t] = int("10D" in p)
        pts["jack_of_hearts"][t] = int("JH" in p)
        if {"AS", "2S", "3S"} <= p:
            run = 0
            for r in RANKS[: 13 if courts else 10]:
                if r + "S" not in p:
                    break
                run += 1
            pts["napola"][t] = run
    pts["bonus"] = list(bonus)
    pts["total"] = [sum(pts[k][t] for k in CATEGORIES) + bonus[t] for t in (0, 1)]
    return pts


# --------------------------------------------------------------------------------------------
# full-game helpers


def load(impl, dealer=3, **config):
    return impl.load_game("cicera", first_dealer=dealer, **config)


def legal_strings(state):
    acts = state.legal_actions()
    assert list(acts) == sorted(set(acts)), "legal actions must ascend without duplicates"
    return [state.action_to_string(a) for a in acts]


def act(state, text, seat=None):
    """Apply the action named ``text``, checking the player, its legality and its string."""
    if seat is not None:
        assert state.current_player() == seat, (text, state.current_player(), seat)
    action = state.string_to_action(text)
    assert action in state.legal_actions(), (text, legal_strings(state))
    assert state.action_to_string(action) == text
    state.apply_action(action)


def do_step(state, seat, card, taken, auto=False):
    """One turn: ``play <card>`` or ``capture <card>`` then ``take`` each card, ascending
    (with ``auto_complete_unique``, only until the rest is the one way to complete it)."""
    if taken is None:
        act(state, f"play {card}", seat)
        return
    hand = state.view()["hand"]
    act(state, f"capture {card}", seat)
    taken = by_id(taken)
    for k, t in enumerate(taken):
        view = state.view()
        if auto and view["phase"] != "capture":
            break
        assert view["phase"] == "capture" and view["pending"] == card, (card, t)
        assert view["taken"] == taken[:k]
        assert view["to_play"] == seat
        act(state, f"take {t}", seat)
    view = state.view()
    assert view["pending"] is None
    if view["hand"] == hand:  # the hand goes on (or ended the match): the capture is recorded
        assert view["plays"][-1] == {"seat": seat, "card": card, "captured": taken}


def run_steps(state, steps, auto=False):
    for step in steps:
        do_step(state, *step, auto=auto)


def start(impl, dealer, table0, steps, hold=None, seed=7, **config):
    game = load(impl, dealer, **config)
    deck = build_deck(dealer, table0, steps, hold)
    state = game.new_initial_state(seed=seed, deck=deck)
    view = state.view()
    packets, table = deal(deck, dealer)
    assert view["dealer"] == dealer
    assert view["to_play"] == (dealer + 1) % 4 == state.current_player()
    assert view["table"] == by_id(table0)
    assert view["hands"] == [by_id(h) for h in packets[0]]
    return state


def trail_lowest(state):
    """Trail the lowest card in hand (the lowest legal action of the play phase)."""
    acts = state.legal_actions()
    assert acts[0] < 52, legal_strings(state)
    state.apply_action(acts[0])


def capture_tree(state, played):
    """Every capture set reachable by ``take`` actions after ``capture <played>``, in DFS order.

    Also checks that the builder never leaves the player, never dead-ends and offers only
    ``take`` actions.
    """
    seat = state.current_player()
    root = state.clone()
    act(root, f"capture {played}", seat)
    found = []

    def walk(st, taken):
        acts = st.legal_actions()
        assert acts, taken
        assert all(104 <= a < 156 for a in acts), (taken, acts)
        assert st.current_player() == seat
        for a in acts:
            nxt = st.clone()
            nxt.apply_action(a)
            now = taken + [PACK[a - 104]]
            if nxt.current_player() != seat or min(nxt.legal_actions(), default=0) < 104:
                found.append(now)  # the capture resolved
            else:
                walk(nxt, now)

    walk(root, [])
    return found


def position(impl, table, played, dealer=3, **config):
    """A game where the player to move holds ``played`` and the table is exactly ``table``.

    Four table cards are dealt; more are trailed one per turn; fewer are reached by taking
    court "pads" with courts of the same rank.
    """
    table = list(table)
    used = set(table) | {played}
    if len(table) >= 4:
        table0, extra = table[:4], [(c, None) for c in table[4:]]
    else:
        pads = [
            (p, q)
            for p, q in [("QD", "QC"), ("JD", "JC"), ("KD", "KC"), ("QH", "QS"), ("JH", "JS")]
            if p not in used and q not in used
        ][: 4 - len(table)]
        table0, extra = table + [p for p, _ in pads], [(q, [p]) for p, q in pads]
    steps = [((dealer + 1 + k) % 4, c, t) for k, (c, t) in enumerate(extra)]
    seat = (dealer + 1 + len(steps)) % 4
    state = start(impl, dealer, table0, steps, hold={seat: [played]}, **config)
    run_steps(state, steps, auto=config.get("auto_complete_unique", False))
    view = state.view()
    assert view["table"] == by_id(table)
    assert state.current_player() == seat and played in view["hands"][seat]
    return state


# --------------------------------------------------------------------------------------------
# 10.1 as game positions: PLAY_CAPTURE legality and the TAKE tree (rules 11.3, 12.2, 14.3-14.4)


@pytest.mark.parametrize("case", C_CASES, ids=[c[0] for c in C_CASES])
def test_take_tree_equals_capture_list(impl, case):
    _, table, played, _ = case
    state = position(impl, table.split(), played)
    legal = legal_strings(state)
    assert f"play {played}" in legal  # capture is never compulsory (rules 4.1)
    expected = c_sets(case)
    assert (f"capture {played}" in legal) == bool(expected)
    if expected:
        assert capture_tree(state, played) == expected


def test_take_tree_c20(impl):
    state = position(impl, C20_TABLE.split(), "10H")
    assert capture_tree(state, "10H") == [s.split() for s in C20_SETS]


@pytest.mark.parametrize("played", ["10S", "5S"])
def test_take_tree_c21(impl, played):
    table = C21_TABLE.split()
    state = position(impl, table, played)
    tree = capture_tree(state, played)
    assert len(tree) == C21_COUNTS[played]
    assert tree == canonical(tree)
    assert all(is_capture(s, played) for s in tree)
    if played == "5S":
        assert tree == fast_captures(table, played)


def test_take_tree_c22_ten(impl):
    table = [c for c in NUMERALS if c != "10S"]
    state = position(impl, table, "10S")  # 35 trails build the 39-card table
    tree = capture_tree(state, "10S")
    assert len(tree) == 1701
    assert tree == canonical(tree)
    assert all(is_capture(s, "10S") for s in tree)


@pytest.mark.parametrize("name", sorted(FORCE_SINGLE))
def test_force_single_match_in_game(impl, name):
    case = next(c for c in C_CASES if c[0] == name)
    _, table, played, _ = case
    state = position(impl, table.split(), played, force_single_match=True)
    assert f"play {played}" in legal_strings(state)
    assert capture_tree(state, played) == [[c] for c in FORCE_SINGLE[name]]
    # the default rules keep every set (no single-card priority, rules 4.2)
    state = position(impl, table.split(), played)
    assert capture_tree(state, played) == c_sets(case)


@pytest.mark.parametrize("name", ["C2", "C6", "C7", "C11", "C16"])
def test_force_single_match_without_a_single_card_changes_nothing(impl, name):
    case = next(c for c in C_CASES if c[0] == name)
    _, table, played, _ = case
    state = position(impl, table.split(), played, force_single_match=True)
    assert capture_tree(state, played) == c_sets(case)


def test_take_tree_on_random_positions(impl):
    # rules 10.5, last bullet: the TAKE sequences after PLAY_CAPTURE are the capture list
    rng = random.Random(99)
    game = load(impl, 1)
    checked = 0
    for seed in (11, 12, 13):
        state = game.new_initial_state(seed=seed)
        for turn in range(48):
            view = state.view()
            seat = state.current_player()
            if turn % 5 == 2:
                for card in view["hands"][seat]:
                    expected = fast_captures(view["table"], card)
                    legal = legal_strings(state)
                    assert f"play {card}" in legal
                    assert (f"capture {card}" in legal) == bool(expected)
                    if expected and len(expected) <= 200:
                        assert capture_tree(state, card) == expected
                        checked += 1
            acts = state.legal_actions()
            state.apply_action(rng.choice(acts))
            while state.legal_actions() and min(state.legal_actions()) >= 104:
                state.apply_action(rng.choice(state.legal_actions()))
    assert checked >= 10


# --------------------------------------------------------------------------------------------
# 10.5 action encoding (rules 12.2; docs/rules/cicera.md "Actions")


def test_action_encoding_7s(impl):
    state = start(impl, 3, ["7H", "5C", "2D", "KS"], [], hold={0: ["7S"]})
    acts = state.legal_actions()
    assert 6 in acts and 58 in acts
    assert state.action_to_string(6) == "play 7S"
    assert state.action_to_string(58) == "capture 7S"
    assert state.string_to_action("play 7S") == 6
    assert state.string_to_action("capture 7S") == 58
    assert all(a < 104 for a in acts)
    for card in state.view()["hands"][0]:  # every card of the hand may be trailed
        assert card_id(card) in acts
    two = state.clone()
    state.apply_action(58)
    view = state.view()
    assert view["phase"] == "capture" and view["pending"] == "7S" and view["taken"] == []
    assert view["table"] == by_id(["7H", "5C", "2D", "KS"])  # the played card is not on it
    assert state.current_player() == 0
    assert state.legal_actions() == [123, 131]  # take 7H, take 2D; not 5C (147)
    assert legal_strings(state) == ["take 7H", "take 2D"]
    assert state.string_to_action("take 5C") == 147
    state.apply_action(131)
    view = state.view()
    assert view["phase"] == "capture" and view["taken"] == ["2D"]
    assert state.legal_actions() == [147]
    state.apply_action(147)
    view = state.view()
    assert view["phase"] == "play" and view["pending"] is None and view["taken"] == []
    assert view["plays"] == [{"seat": 0, "card": "7S", "captured": ["2D", "5C"]}]
    assert view["table"] == by_id(["7H", "KS"])
    assert view["piles"] == [by_id(["7S", "2D", "5C"]), []]
    assert view["last_capturer"] == 0
    assert state.current_player() == 1
    # after 123 the capture {7H} resolves at once
    two.apply_action(58)
    two.apply_action(123)
    view = two.view()
    assert view["phase"] == "play" and view["to_play"] == 1
    assert view["plays"] == [{"seat": 0, "card": "7S", "captured": ["7H"]}]
    assert view["table"] == by_id(["2D", "5C", "KS"])
    assert state.history()[-3:] == [58, 131, 147]


def test_action_encoding_kings(impl):
    # table {KH, KD, 5S}: a queen pad QD is taken first by seat 0 with QC
    state = start(impl, 3, ["KH", "KD", "5S", "QD"], [(0, "QC", ["QD"])], hold={1: ["KS"]})
    run_steps(state, [(0, "QC", ["QD"])])
    assert state.view()["table"] == by_id(["KH", "KD", "5S"])
    act(state, "capture KS", 1)
    assert state.history()[-1] == 64
    assert state.legal_actions() == [129, 142]
    assert legal_strings(state) == ["take KH", "take KD"]
    state.apply_action(142)
    view = state.view()
    assert view["plays"][-1] == {"seat": 1, "card": "KS", "captured": ["KD"]}
    assert view["table"] == by_id(["KH", "5S"])


def test_capture_compulsory_option(impl):
    # rules 7: with capture_compulsory a card that can capture cannot be trailed
    state = position(impl, ["7H", "5C", "2D", "KS"], "7S", capture_compulsory=True)
    seat = state.current_player()
    legal = legal_strings(state)
    for card in state.view()["hands"][seat]:
        can = bool(fast_captures(["7H", "5C", "2D", "KS"], card))
        assert (f"play {card}" in legal) == (not can), card
        assert (f"capture {card}" in legal) == can, card


def test_auto_complete_unique_option(impl):
    # rules 12.2: with auto_complete_unique a capture that can be completed in one way only is
    # made at once; where there is a choice the takes are asked; by default every take is.
    table = ["7H", "5C", "2D", "KS"]
    plain = position(impl, table, "KH")
    plain.apply_action(52 + card_id("KH"))
    assert legal_strings(plain) == ["take KS"]
    state = position(impl, table, "KH", auto_complete_unique=True)
    seat = state.current_player()
    state.apply_action(52 + card_id("KH"))
    assert state.view()["plays"][-1] == {"seat": seat, "card": "KH", "captured": ["KS"]}
    assert state.current_player() == (seat + 1) % 4
    assert all(a < 104 for a in state.legal_actions())
    # 7S takes 7H or 5C + 2D: asked; once the lower of 5C and 2D is taken, the other follows
    state = position(impl, table, "7S", auto_complete_unique=True)
    seat = state.current_player()
    state.apply_action(52 + card_id("7S"))
    first = by_id(["5C", "2D"])[0]  # a set is taken in ascending id
    assert legal_strings(state) == ["take " + c for c in by_id(["7H", first])]
    state.apply_action(104 + card_id(first))
    assert state.view()["plays"][-1] == {
        "seat": seat,
        "card": "7S",
        "captured": by_id(["5C", "2D"]),
    }
    assert state.view()["table"] == by_id(["7H", "KS"])
    assert state.current_player() == (seat + 1) % 4
    # the history holds the decisions only, and a saved state replays to the same state
    assert state.history()[-2:] == [52 + card_id("7S"), 104 + card_id(first)]
    game = load(impl, 3, auto_complete_unique=True)
    assert game.deserialize_state(state.serialize()) == state


def test_auto_complete_unique_with_a_choice_of_courts_and_single_matches(impl):
    # two kings on the table: KS still asks which; with force_single_match 7S takes 7H at once
    state = position(impl, ["KH", "KD", "5S"], "KS", auto_complete_unique=True)
    state.apply_action(52 + card_id("KS"))
    assert legal_strings(state) == ["take " + c for c in by_id(["KH", "KD"])]
    table = ["7H", "5C", "2D", "KS"]
    state = position(impl, table, "7S", auto_complete_unique=True, force_single_match=True)
    seat = state.current_player()
    state.apply_action(52 + card_id("7S"))
    assert state.view()["plays"][-1] == {"seat": seat, "card": "7S", "captured": ["7H"]}


def test_auto_complete_unique_in_the_information_state():
    # the engine's transcript line of the capture tells the cards taken with it
    state = position(tapete, ["7H", "5C", "2D", "KS"], "KH", auto_complete_unique=True)
    seat = state.current_player()
    state.apply_action(52 + card_id("KH"))
    for viewer in range(4):
        lines = state.information_state_string(viewer).splitlines()
        assert lines[-1] == f"seat {seat}: capture KH, take KS"


def test_no_capture_action_without_a_capture(impl):
    # C4: table {QH, 5S}, KC has no capture; it can still be trailed
    state = position(impl, ["QH", "5S"], "KC")
    acts = state.legal_actions()
    assert card_id("KC") in acts and 52 + card_id("KC") not in acts
    assert all(a < 104 for a in acts)


# --------------------------------------------------------------------------------------------
# 10.2 in-play bonuses

# id, dealer-3 script (first four table cards, steps before the checked one), checked step,
# T and last_trail just before it, bonus of the capturing team in mode any / rank_match
P_CASES = [
    (
        "P1",
        ["3H", "4C", "2S", "6D"],
        [(0, "8S", ["2S", "6D"])],
        (1, "7D", ["3H", "4C"]),
        ("3H 4C", None),
        (1, 1),
    ),
    (
        "P2",
        ["4S", "5S", "KH", "QD"],
        [(0, "QC", ["QD"])],
        (1, "9S", ["4S", "5S"]),
        ("4S 5S KH", None),
        (1, 1),
    ),
    (
        "P3",
        ["2C", "3D", "4H", "8S"],
        [],
        (0, "9C", ["2C", "3D", "4H"]),
        ("2C 3D 4H 8S", None),
        (1, 1),
    ),
    (
        "P4",
        ["2H", "3H", "QD", "JD"],
        [(0, "QC", ["QD"]), (1, "JC", ["JD"]), (2, "4H", None)],
        (3, "9H", ["2H", "3H", "4H"]),
        ("2H 3H 4H", "4H"),
        (4, 3),
    ),
    (
        "P5",
        ["9C", "QD", "JD", "KD"],
        [(0, "QC", ["QD"]), (1, "JC", ["JD"]), (2, "KC", ["KD"]), (3, "6D", None)],
        (0, "6S", ["6D"]),
        ("9C 6D", "6D"),
        (1, 1),
    ),
    (
        "P6a",
        ["6H", "9C", "QD", "JD"],
        [(0, "QC", ["QD"]), (1, "JC", ["JD"]), (2, "6D", None)],
        (3, "6S", ["6H"]),
        ("6H 6D 9C", "6D"),
        (0, 0),
    ),
    (
        "P6b",
        ["6H", "9C", "QD", "JD"],
        [(0, "QC", ["QD"]), (1, "JC", ["JD"]), (2, "6D", None)],
        (3, "6S", ["6D"]),
        ("6H 6D 9C", "6D"),
        (1, 1),
    ),
    (
        "P7",
        ["4D", "KS", "QD", "JD"],
        [(0, "QC", ["QD"]), (1, "JC", ["JD"]), (2, "3C", None)],
        (3, "7S", ["3C", "4D"]),
        ("3C 4D KS", "3C"),
        (1, 0),
    ),
    (
        "P8",  # the table is emptied first (10H sweeps it: a bonus of 3 for team 0 before)
        ["AH", "2H", "3H", "4H"],
        [(0, "10H", ["AH", "2H", "3H", "4H"]), (1, "QD", None)],
        (2, "QS", ["QD"]),
        ("QD", "QD"),
        (2, 2),
    ),
    (
        "P9",
        ["4S", "5S", "QD", "JD"],
        [(0, "QC", ["QD"]), (1, "JC", ["JD"])],
        (2, "9H", ["4S", "5S"]),
        ("4S 5S", None),
        (1, 1),
    ),
    (
        "P10",
        ["AS", "2S", "3S", "4S"],
        [],
        (0, "10S", ["AS", "2S", "3S", "4S"]),
        ("AS 2S 3S 4S", None),
        (3, 3),
    ),
    (
        "P11",
        ["AD", "2D", "3D", "4D"],
        [(0, "KC", None)],
        (1, "10D", ["AD", "2D", "3D", "4D"]),
        ("AD 2D 3D 4D KC", "KC"),
        (2, 2),
    ),
    ("P12", ["5C", "2C", "3C", "AH"], [], (0, "5H", ["2C", "3C"]), ("5C 2C 3C AH", None), (0, 0)),
]

MODES = {
    "any": ({}, 0),
    "rank_match": ({"left_bonus_mode": "rank_match"}, 1),
    "any-no-last-sweep": ({"sweep_on_last_play_counts": False}, 0),  # not the last play
    "rank_match-no-last-sweep": (
        {"left_bonus_mode": "rank_match", "sweep_on_last_play_counts": False},
        1,
    ),
}


def test_p_scripts_build_the_documented_positions():
    for name, table0, pre, (seat, card, taken), (t, last), expected in P_CASES:
        deck = build_deck(3, table0, pre + [(seat, card, taken)])
        for mode, index in (("any", 0), ("rank_match", 1)):
            sim = Sim(deck, 3, mode).run(pre)
            assert sim.table == set(t.split()) and sim.last_trail == last, name
            before = list(sim.bonus)
            sim.step(seat, card, taken)
            gain = [a - b for a, b in zip(sim.bonus, before)]
            assert gain[seat % 2] == expected[index] and gain[1 - seat % 2] == 0, name


@pytest.mark.parametrize("mode", sorted(MODES))
@pytest.mark.parametrize("case", P_CASES, ids=[c[0] for c in P_CASES])
def test_in_play_bonus(impl, case, mode):
    name, table0, pre, (seat, card, taken), (t, last), expected = case
    config, index = MODES[mode]
    state = start(impl, 3, table0, pre + [(seat, card, taken)], **config)
    run_steps(state, pre)
    view = state.view()
    assert view["table"] == by_id(t.split())
    assert view["last_trail"] == last
    assert state.current_player() == seat
    before = view["bonus"]
    do_step(state, seat, card, taken)
    view = state.view()
    gain = [a - b for a, b in zip(view["bonus"], before)]
    team = seat % 2
    assert gain[team] == expected[index], (name, mode, view["bonus"], before)
    assert gain[1 - team] == 0
    remaining = set(t.split()) - set(taken)
    assert view["table"] == by_id(remaining)
    assert view["last_trail"] is None
    assert view["last_capturer"] == seat
    assert view["scores"] == [0, 0]  # bonuses reach the match score only at the hand's end


def test_p8_set_up_sweep(impl):
    # P8's set-up sweep is itself case P4-like: 10H takes AH 2H 3H 4H = sweep + suit + 3+ = 3
    state = start(impl, 3, ["AH", "2H", "3H", "4H"], [(0, "10H", ["AH", "2H", "3H", "4H"])])
    do_step(state, 0, "10H", ["AH", "2H", "3H", "4H"])
    assert state.view()["bonus"] == [3, 0]
    assert state.view()["table"] == []


@pytest.mark.parametrize(
    "flag, expected",
    [
        (None, 4),
        ("bonus_sweep", 3),
        ("bonus_left", 3),
        ("bonus_single_suit", 3),
        ("bonus_three_plus", 3),
    ],
)
def test_p4_bonus_switches(impl, flag, expected):
    name, table0, pre, (seat, card, taken), _, _ = P_CASES[3]
    assert name == "P4"
    config = {flag: False} if flag else {}
    state = start(impl, 3, table0, pre + [(seat, card, taken)], **config)
    run_steps(state, pre)
    before = state.view()["bonus"]
    do_step(state, seat, card, taken)
    assert state.view()["bonus"][1] - before[1] == expected


@pytest.mark.parametrize("mode", sorted(MODES))
def test_p13_trailing_never_scores(impl, mode):
    config, _ = MODES[mode]
    pre = [(0, "QC", ["QD"]), (1, "JC", ["JD"]), (2, "KC", ["KD"])]
    state = start(impl, 3, ["5C", "QD", "JD", "KD"], pre + [(3, "5H", None)], **config)
    run_steps(state, pre)
    view = state.view()
    assert view["table"] == ["5C"] and view["last_trail"] is None
    before = view["bonus"]
    legal = legal_strings(state)
    assert "play 5H" in legal and "capture 5H" in legal  # the equal card may be trailed
    do_step(state, 3, "5H", None)
    view = state.view()
    assert view["bonus"] == before
    assert view["table"] == ["5H", "5C"]
    assert view["last_trail"] == "5H"
    assert view["plays"][-1] == {"seat": 3, "card": "5H", "captured": None}


# P14 / P15: the set-up round (seats 0-3) leaves the documented table with last_trail none;
# seat 3's set-up capture takes a card trailed by seat 2 (a left bonus for team 1 there).
P14_TABLE0 = ["KD", "QD", "JD", "2H"]
P14_SETUP = [(0, "QC", ["QD"]), (1, "JC", ["JD"]), (2, "3S", None), (3, "5C", ["2H", "3S"])]
P14_PLAY = [(0, "5H", None), (1, "8C", None), (2, "5S", ["5H"])]
P15_TABLE0 = ["7C", "2H", "QD", "JD"]
P15_SETUP = [(0, "QC", ["QD"]), (1, "JC", ["JD"]), (2, "3S", None), (3, "3H", ["3S"])]
P15_PLAY = [(0, "7D", ["7C"]), (1, "2S", ["2H"])]


def test_p14_p15_scripts():
    sim = Sim(build_deck(3, P14_TABLE0, P14_SETUP + P14_PLAY), 3).run(P14_SETUP)
    assert sim.table == {"KD"} and sim.last_trail is None
    sim = Sim(build_deck(3, P15_TABLE0, P15_SETUP + P15_PLAY), 3).run(P15_SETUP)
    assert sim.table == {"7C", "2H"} and sim.last_trail is None


@pytest.mark.parametrize("mode", sorted(MODES))
def test_p14_partners_card_does_not_qualify(impl, mode):
    config, _ = MODES[mode]
    state = start(impl, 3, P14_TABLE0, P14_SETUP + P14_PLAY, **config)
    run_steps(state, P14_SETUP)
    view = state.view()
    assert view["table"] == ["KD"] and view["last_trail"] is None
    before = view["bonus"]
    run_steps(state, P14_PLAY[:2])
    assert state.view()["last_trail"] == "8C"
    assert capture_tree(state, "5S") == [["5H"]]
    run_steps(state, P14_PLAY[2:])
    view = state.view()
    assert view["bonus"] == before  # total 0
    assert view["table"] == ["KD", "8C"]


@pytest.mark.parametrize("mode", sorted(MODES))
def test_p15_preceding_capture_clears_last_trail(impl, mode):
    config, _ = MODES[mode]
    state = start(impl, 3, P15_TABLE0, P15_SETUP + P15_PLAY, **config)
    run_steps(state, P15_SETUP)
    view = state.view()
    assert view["table"] == ["2H", "7C"] and view["last_trail"] is None
    b0 = view["bonus"]
    assert capture_tree(state, "7D") == [["7C"]]  # only option
    do_step(state, *P15_PLAY[0])
    view = state.view()
    assert view["bonus"] == b0  # 0 points: 2H stays
    assert view["last_trail"] is None
    do_step(state, *P15_PLAY[1])
    view = state.view()
    assert view["bonus"] == [b0[0], b0[1] + 1]  # sweep only
    assert view["table"] == []


# --------------------------------------------------------------------------------------------
# P16 / P17 / E8: the last four plays of a hand, after 44 scripted plays without any bonus.
#
# The script is built from rounds of four plays (dealer 3, so seats 0, 1, 2, 3): seat 0 trails
# x, seat 1 trails y, seat 2 takes x with the other card of its pair (last_trail is y), seat 3
# takes y (last_trail none).  A card that must stay on the table (the "ballast") keeps every
# capture from being a sweep; sets never have 3 cards or one suit.  A few cards that cannot be
# paired by rank are taken in explicit rounds as two-card sums.
#
# P16 as printed (table {5H, 9C, KD}, hands 4S / 5C / QH / 8D) cannot arise in a real hand: the
# 45 captured cards would hold three queens and three kings (courts are only ever captured in
# pairs) and numerals of odd total value (every capture takes an even total: 2 x its card).  The
# table before play 45 therefore also holds QS, KS and 9S, which changes none of P16's points:
# 5C still has {5H} as its only capture, 8D still has none, and s2 trails QH (by choice now).


def pair_rounds(cards):
    """Rounds of two rank pairs each, from cards whose ranks all come an even number of times."""
    groups = {}
    for c in by_id(cards):
        groups.setdefault(RANKS.index(rank(c)), []).append(c)
    pairs = []
    for r in sorted(groups):
        g = groups[r]
        assert len(g) % 2 == 0, (RANKS[r], g)
        pairs += [(g[i], g[i + 1]) for i in range(0, len(g), 2)]
    assert len(pairs) % 2 == 0
    steps = []
    for (x, x2), (y, y2) in zip(pairs[0::2], pairs[1::2]):
        steps += [(0, x, None), (1, y, None), (2, x2, [x]), (3, y2, [y])]
    return steps


def end_script(table0, first_rounds, last_four):
    used = set(table0) | {c for _, c, _ in first_rounds + last_four}
    used |= {t for _, _, taken in first_rounds for t in (taken or [])}
    steps = first_rounds + pair_rounds([c for c in PACK if c not in used]) + last_four
    assert len(steps) == 48
    return steps


P16_TABLE0 = ["5H", "9C", "9S", "KD"]
P16_FIRST = [
    (0, "4H", None),
    (1, "4D", None),
    (2, "QS", None),  # stays to the end
    (3, "8S", ["4H", "4D"]),
    (0, "2S", None),
    (1, "2H", None),
    (2, "KS", None),  # stays to the end
    (3, "4C", ["2S", "2H"]),
]
P16_LAST = [(0, "4S", None), (1, "5C", ["5H"]), (2, "QH", None), (3, "8D", None)]
P16 = end_script(P16_TABLE0, P16_FIRST, P16_LAST)
P16_TABLE_45 = ["5H", "9C", "9S", "KD", "QS", "KS"]
P16_LEFTOVERS = ["9C", "9S", "KD", "QS", "KS", "4S", "QH", "8D"]

# E8: P16 with 10D instead of 8D in seat 3's last hand (10D has no capture there either)
E8_FIRST = [
    (0, "5S", None),
    (1, "5D", None),
    (2, "QS", None),
    (3, "10S", ["5S", "5D"]),
] + P16_FIRST[4:]
E8_LAST = P16_LAST[:3] + [(3, "10D", None)]
E8 = end_script(P16_TABLE0, E8_FIRST, E8_LAST)
E8_LEFTOVERS = ["9C", "9S", "KD", "QS", "KS", "4S", "QH", "10D"]

P17_TABLE0 = ["2C", "2S", "3H", "QS"]
P17_FIRST = [(0, "KD", None), (1, "QH", ["QS"]), (2, "KC", ["KD"]), (3, "5H", ["2S", "3H"])]
P17_LAST = [(0, "3D", None), (1, "5S", ["2C", "3D"]), (2, "4H", None), (3, "4C", ["4H"])]
P17 = end_script(P17_TABLE0, P17_FIRST, P17_LAST)


@pytest.mark.parametrize(
    "steps, table0, table45, hands45",
    [
        (P16, P16_TABLE0, P16_TABLE_45, ["4S", "5C", "QH", "8D"]),
        (E8, P16_TABLE0, P16_TABLE_45, ["4S", "5C", "QH", "10D"]),
        (P17, P17_TABLE0, ["2C"], ["3D", "5S", "4H", "4C"]),
    ],
    ids=["P16", "E8", "P17"],
)
def test_end_of_hand_scripts(steps, table0, table45, hands45):
    deck = build_deck(3, table0, steps)
    for mode in ("any", "rank_match"):
        sim = Sim(deck, 3, mode).run(steps[:44])
        assert sim.table == set(table45)
        assert [sorted(h) for h in sim.hands] == [[c] for c in hands45]
        assert sim.bonus == [0, 0]  # the 44 set-up plays earn nothing
        assert all(n == 1 for n in map(len, sim.hands))


def test_p16_as_printed_cannot_arise():
    # before play 45 the piles would hold every card but table {5H, 9C, KD} and the hands
    # 4S / 5C / QH / 8D; captures put courts into piles in same-rank pairs and numerals with an
    # even total value (the played card's value twice), so such piles are impossible.
    captured = [c for c in PACK if c not in {"5H", "9C", "KD", "4S", "5C", "QH", "8D"}]
    assert sum(1 for c in captured if rank(c) == "Q") == 3
    assert sum(1 for c in captured if rank(c) == "K") == 3
    assert sum(value(c) for c in captured if value(c) is not None) % 2 == 1
    # the table used here (plus QS, KS, 9S) is consistent
    captured = [c for c in captured if c not in {"QS", "KS", "9S"}]
    assert all(sum(1 for c in captured if rank(c) == r) % 2 == 0 for r in ("J", "Q", "K"))
    assert sum(value(c) for c in captured if value(c) is not None) % 2 == 0


def run_to_play_45(impl, steps, table0, table45, hands45, **config):
    state = start(impl, 3, table0, steps, game_mode="single_hand", **config)
    run_steps(state, steps[:44])
    view = state.view()
    assert view["table"] == by_id(table45)
    assert view["hands"] == [[c] for c in hands45]
    assert view["hand_sizes"] == [1, 1, 1, 1]
    assert view["bonus"] == [0, 0]
    assert state.current_player() == 0
    assert len(view["plays"]) == 44
    return state


def final_checks(impl, state, piles, bonus, cic, **options):
    assert state.is_terminal()
    view = state.view()
    assert view["phase"] == "over" and view["to_play"] is None
    assert view["table"] == []
    assert view["piles"] == [by_id(p) for p in piles]
    assert view["bonus"] == list(bonus)
    assert len(view["past_hands"]) == 1
    record = view["past_hands"][0]
    assert record["dealer"] == 3
    points = expected_points(piles[0], piles[1], bonus, **options)
    assert record["points"] == points
    assert record["scores"] == points["total"]
    assert view["scores"] == points["total"]
    if not options:
        got = dict(cic.score_hand(by_id(piles[0]), by_id(piles[1])))
        assert {k: got[k] for k in CATEGORIES} == {k: points[k] for k in CATEGORIES}
        assert got["total"] == [points["total"][t] - bonus[t] for t in (0, 1)]
    d = points["total"][0] - points["total"][1]
    assert state.returns() == pytest.approx([d, -d, d, -d])
    assert view["winner"] is None  # single hand
    return points


@pytest.mark.parametrize("mode", ["any", "rank_match"])
def test_p16_leftovers_go_to_the_last_capturer(impl, cic, mode):
    state = run_to_play_45(
        impl, P16, P16_TABLE0, P16_TABLE_45, ["4S", "5C", "QH", "8D"], left_bonus_mode=mode
    )
    piles = [set(p) for p in state.view()["piles"]]
    do_step(state, *P16_LAST[0])
    assert state.view()["last_trail"] == "4S"
    assert capture_tree(state, "5C") == [["5H"]]  # the only option
    do_step(state, *P16_LAST[1])
    view = state.view()
    assert view["bonus"] == [0, 0]  # 4S, the just-trailed card, was not taken
    assert view["table"] == by_id(["9C", "9S", "KD", "QS", "KS", "4S"])
    assert view["last_capturer"] == 1
    do_step(state, *P16_LAST[2])  # s2 trails QH
    assert "capture 8D" not in legal_strings(state)  # 8D has no capture
    do_step(state, *P16_LAST[3])
    piles[1] |= {"5C", "5H"} | set(P16_LEFTOVERS)
    assert len(piles[0]) + len(piles[1]) == 52
    points = final_checks(impl, state, piles, (0, 0), cic)
    assert points["bonus"] == [0, 0]  # the leftover sweep-up is not a sweep


def test_e8_leftovers_score_for_the_last_capturer(impl, cic):
    state = run_to_play_45(impl, E8, P16_TABLE0, P16_TABLE_45, ["4S", "5C", "QH", "10D"])
    piles = [set(p) for p in state.view()["piles"]]
    assert "10D" not in piles[0] | piles[1]
    run_steps(state, E8_LAST[:3])
    assert "capture 10D" not in legal_strings(state)
    do_step(state, *E8_LAST[3])
    piles[1] |= {"5C", "5H"} | set(E8_LEFTOVERS)
    points = final_checks(impl, state, piles, (0, 0), cic)
    assert points["ten_of_diamonds"] == [0, 1]
    assert points["bonus"] == [0, 0]


P17_EXPECTED = {
    # (left_bonus_mode, sweep_on_last_play_counts): bonus of s1's capture, of s3's, team 1 total
    ("any", True): (2, 2, 4),
    ("rank_match", True): (1, 2, 3),
    ("any", False): (2, 1, 3),
    ("rank_match", False): (1, 1, 2),
}


@pytest.mark.parametrize("mode, last_sweep", sorted(P17_EXPECTED))
def test_p17_sweeps_at_the_end_of_the_hand(impl, cic, mode, last_sweep):
    config = {"left_bonus_mode": mode, "sweep_on_last_play_counts": last_sweep}
    state = run_to_play_45(impl, P17, P17_TABLE0, ["2C"], ["3D", "5S", "4H", "4C"], **config)
    first, last, total = P17_EXPECTED[(mode, last_sweep)]
    piles = [set(p) for p in state.view()["piles"]]
    do_step(state, *P17_LAST[0])
    do_step(state, *P17_LAST[1])
    view = state.view()
    assert view["bonus"] == [0, first]
    assert view["table"] == []
    do_step(state, *P17_LAST[2])
    assert state.view()["table"] == ["4H"]
    do_step(state, *P17_LAST[3])
    piles[1] |= {"5S", "2C", "3D", "4C", "4H"}
    final_checks(impl, state, piles, (0, total), cic)
    assert first + last == total


def test_p17_last_sweep_counts_only_on_the_48th_play(impl):
    # sweep_on_last_play_counts = false does not touch s1's sweep on play 46
    state = run_to_play_45(
        impl, P17, P17_TABLE0, ["2C"], ["3D", "5S", "4H", "4C"], sweep_on_last_play_counts=False
    )
    run_steps(state, P17_LAST[:2])
    assert state.view()["bonus"] == [0, 2]


# --------------------------------------------------------------------------------------------
# 10.3 end-of-hand scoring through score_hand


def pile(**suits):
    """pile(S="A 2 3", H="all") -> card list."""
    return [c for s, ranks in suits.items() for c in suit_cards(s, ranks)]


def points(cards, spades, two, napola, ten, jack, total):
    return {
        "cards": cards,
        "spades": spades,
        "two_of_spades": two,
        "napola": napola,
        "ten_of_diamonds": ten,
        "jack_of_hearts": jack,
        "total": total,
    }


E_CASES = [
    (
        "E1",
        pile(S="A 2 3 4 5 8 10", H="A 2 3 4 5 6 7 8 9 10 Q K", D="A 2 3 4 5 6 7 10"),
        pile(S="6 7 9 J Q K", H="J", D="8 9 J Q K", C="all"),
        points([2, 0], [1, 0], [1, 0], [5, 0], [1, 0], [0, 1], [10, 1]),
    ),
    (
        "E2",
        pile(S="A 2 4 5 6 7 8", H="all", D="A 2 3 4 5 6"),
        pile(S="3 9 10 J Q K", D="7 8 9 10 J Q K", C="all"),
        points([0, 0], [1, 0], [1, 0], [0, 0], [0, 1], [1, 0], [3, 1]),
    ),
    (
        "E3",
        pile(S="A 2 3 5 6 7 8 9 10", C="all", D="10"),
        pile(S="4 J Q K", H="all", D="A 2 3 4 5 6 7 8 9 J Q K"),
        points([0, 2], [1, 0], [1, 0], [3, 0], [1, 0], [0, 1], [6, 3]),
    ),
    (
        "E4",
        pile(S="2 3 4 5 6 7 8 9 10 J Q K", D="all", H="A 2"),
        pile(S="A", H="3 4 5 6 7 8 9 10 J Q K", C="all"),
        points([2, 0], [1, 0], [1, 0], [0, 0], [1, 0], [0, 1], [5, 1]),
    ),
    (
        "E5",
        pile(S="all", H="2 3 4 5 6 7 8 9 10 Q K"),
        pile(H="A J", D="all", C="all"),
        points([0, 2], [1, 0], [1, 0], [13, 0], [0, 1], [0, 1], [15, 4]),
    ),
    (
        "E6",  # the rules' totals 16 / 8 include the in-play bonuses 2 / 5; score_hand has none
        pile(S="A 2 3 4 5 6 7 8 9 10 J", C="all", H="J"),
        pile(S="Q K", H="A 2 3 4 5 6 7 8 9 10 Q K", D="all"),
        points([0, 2], [1, 0], [1, 0], [11, 0], [0, 1], [1, 0], [14, 3]),
    ),
    ("E7-nobody", [], [], points(*[[0, 0]] * 7)),
    (
        "E7-dealer-team",
        list(PACK),
        [],
        points([2, 0], [1, 0], [1, 0], [13, 0], [1, 0], [1, 0], [19, 0]),
    ),
]


def test_e_piles_as_printed():
    sizes = {"E1": (27, 25), "E2": (26, 26), "E3": (23, 29), "E4": (27, 25), "E5": (24, 28)}
    sizes["E6"] = (25, 27)
    for name, a, b, expected in E_CASES:
        assert len(set(a)) == len(a) and not set(a) & set(b), name
        if name in sizes:
            assert (len(a), len(b)) == sizes[name], name
            assert by_id(a + b) == PACK, name
        pts = expected_points(a, b)  # the oracle of this file agrees with the rules
        assert {k: pts[k] for k in expected} == expected, name
    e6 = expected_points(E_CASES[5][1], E_CASES[5][2], bonus=(2, 5))
    assert e6["total"] == [16, 8]
    assert expected_points(E_CASES[5][1], E_CASES[5][2], courts=False)["total"] == [13, 3]
    assert expected_points(E_CASES[4][1], E_CASES[4][2], courts=False)["total"] == [12, 4]
    assert expected_points(E_CASES[1][1], E_CASES[1][2], cards_tie="one_each")["total"] == [4, 2]


@pytest.mark.parametrize("case", E_CASES, ids=[c[0] for c in E_CASES])
def test_score_hand(cic, case):
    _, a, b, expected = case
    rng = random.Random(len(a))
    a, b = list(a), list(b)
    rng.shuffle(a)
    rng.shuffle(b)
    got = cic.score_hand(a, b)
    assert dict(got) == expected
    swapped = dict(cic.score_hand(b, a))
    assert swapped == {k: v[::-1] for k, v in expected.items()}


# --------------------------------------------------------------------------------------------
# full hands for the options of 10.3 and the match of 10.4
#
# pair_hand(dealer): the eldest's team takes every spade and heart (26 cards), the other team
# every diamond and club, with no bonus at all.  Table KS QS KD QD.  Rounds 1-11 (ranks A..J):
# eldest trails rS, next trails rD, eldest's partner takes rS with rH (last_trail rD), the
# fourth takes rD with rC.  Round 12: KH takes KS; QC is trailed; QH takes QS; KC takes KD
# (the last capture), so QD and QC are left over for the diamonds-and-clubs team (26-26).
# With plus=True round 12 is KH/KS, KC/KD, QH/QS, then QC trailed: the spades-and-hearts team
# made the last capture and gets QD QC (28-24).
#
# Eldest's team: cards 0, spades 1, 2S 1, napola 13, JH 1 = 16 (plus: cards 2 -> 18);
# the other team: 10D 1.


def pair_hand(dealer, plus=False):
    e = [(dealer + 1 + i) % 4 for i in range(4)]
    table0 = ["KS", "QS", "KD", "QD"]
    steps = []
    for r in RANKS[:11]:
        steps += [(e[0], r + "S", None), (e[1], r + "D", None)]
        steps += [(e[2], r + "H", [r + "S"]), (e[3], r + "C", [r + "D"])]
    if plus:
        steps += [(e[0], "KH", ["KS"]), (e[1], "KC", ["KD"]), (e[2], "QH", ["QS"])]
        steps += [(e[3], "QC", None)]
    else:
        steps += [(e[0], "KH", ["KS"]), (e[1], "QC", None), (e[2], "QH", ["QS"])]
        steps += [(e[3], "KC", ["KD"])]
    return table0, steps


def pair_hand_points(eldest_team, plus=False, **options):
    sh = pile(S="all", H="all") + (["QD", "QC"] if plus else [])
    dc = [c for c in PACK if c not in sh]
    piles = [sh, dc] if eldest_team == 0 else [dc, sh]
    return expected_points(piles[0], piles[1], **options), piles


@pytest.mark.parametrize("plus", [False, True])
@pytest.mark.parametrize("dealer", range(4))
def test_pair_hand_scripts(dealer, plus):
    table0, steps = pair_hand(dealer, plus)
    sim = Sim(build_deck(dealer, table0, steps), dealer).run(steps)
    team = (dealer + 1) % 2
    pts, piles = pair_hand_points(team, plus)
    assert sim.bonus == [0, 0]
    assert [by_id(p) for p in sim.piles] == [by_id(p) for p in piles]
    assert pts["total"][team] == (18 if plus else 16) and pts["total"][1 - team] == 1


def play_pair_hand(state, dealer, plus=False):
    _, steps = pair_hand(dealer, plus)
    view = state.view()
    assert view["dealer"] == dealer and state.current_player() == (dealer + 1) % 4
    run_steps(state, steps)


def pair_decks(dealers, plus=()):
    return [build_deck(d, *pair_hand(d, i in plus)) for i, d in enumerate(dealers)]


OPTION_CASES = {
    # config: expected totals (eldest's team 0: dealer 3)
    "defaults": ({}, {}),
    "cards_tie=one_each": ({"cards_tie": "one_each"}, {"cards_tie": "one_each"}),
    "napola_courts_extend=false": ({"napola_courts_extend": False}, {"courts": False}),
    "spades_majority_points=2": ({"spades_majority_points": 2}, {"spades": 2}),
}


@pytest.mark.parametrize("name", sorted(OPTION_CASES))
def test_scoring_options_in_a_full_hand(impl, cic, name):
    config, options = OPTION_CASES[name]
    state = load(impl, 3, game_mode="single_hand", **config).new_initial_state(
        seed=5, decks=pair_decks([3])
    )
    play_pair_hand(state, 3)
    pts, piles = pair_hand_points(0, **options)
    final_checks(impl, state, piles, (0, 0), cic, **options)
    expected_totals = {
        "defaults": [16, 1],
        "cards_tie=one_each": [17, 2],
        "napola_courts_extend=false": [13, 1],
        "spades_majority_points=2": [17, 1],
    }
    assert state.view()["past_hands"][0]["points"]["total"] == expected_totals[name]


@pytest.mark.parametrize("dealer", range(4))
@pytest.mark.parametrize("leftover", ["nobody", "dealer_team"])
def test_e7_nobody_captures(impl, dealer, leftover):
    game = load(impl, dealer, game_mode="single_hand", leftover_if_no_capture=leftover)
    state = game.new_initial_state(seed=100 + dealer)
    for _ in range(48):
        assert not state.is_terminal()
        trail_lowest(state)
    assert state.is_terminal()
    view = state.view()
    rec = view["past_hands"][0]
    team = dealer % 2
    if leftover == "nobody":
        assert rec["points"] == {k: [0, 0] for k in CATEGORIES + ["bonus", "total"]}
        assert view["piles"] == [[], []]
        assert state.returns() == pytest.approx([0, 0, 0, 0])
    else:
        expected = {k: [0, 0] for k in CATEGORIES + ["bonus", "total"]}
        for k, v in zip(CATEGORIES + ["total"], [2, 1, 1, 13, 1, 1, 19]):
            expected[k][team] = v
        assert rec["points"] == expected
        assert view["piles"][team] == PACK and view["piles"][1 - team] == []
        d = 19 if team == 0 else -19
        assert state.returns() == pytest.approx([d, -d, d, -d])
    assert view["bonus"] == [0, 0]
    assert view["last_capturer"] is None


# --------------------------------------------------------------------------------------------
# 10.4 the match (rules 6): decided only at the end of a hand


def assert_going_on(state, scores, hand, dealer):
    assert not state.is_terminal()
    view = state.view()
    assert view["winner"] is None
    assert view["scores"] == scores
    assert view["hand"] == hand
    assert view["dealer"] == dealer
    assert state.current_player() == (dealer + 1) % 4
    assert state.returns() == pytest.approx([0, 0, 0, 0])


def assert_won(state, team, scores):
    assert state.is_terminal()
    view = state.view()
    assert view["winner"] == team
    assert view["scores"] == scores
    assert view["past_hands"][-1]["scores"] == scores
    r = [1, -1, 1, -1] if team == 0 else [-1, 1, -1, 1]
    assert state.returns() == pytest.approx(r)
    assert state.current_player() == -4


def test_m1_reaching_the_target_wins(impl):
    # M1: A reaches the target exactly (16 >= 16), B does not
    state = load(impl, 3, target_score=16).new_initial_state(seed=1, decks=pair_decks([3]))
    play_pair_hand(state, 3)
    assert_won(state, 0, [16, 1])
    assert state.view()["past_hands"][0]["dealer"] == 3


def test_m4_nobody_at_target_plays_on(impl):
    # M4: 16-1 with target 17: another hand, dealt by the next player
    state = load(impl, 3, target_score=17).new_initial_state(seed=1, decks=pair_decks([3]))
    play_pair_hand(state, 3)
    assert_going_on(state, [16, 1], 1, 0)
    view = state.view()
    assert view["past_hands"] == [
        {"dealer": 3, "points": pair_hand_points(0)[0], "scores": [16, 1]}
    ]
    assert view["bonus"] == [0, 0] and view["piles"] == [[], []]
    assert view["hand_sizes"] == [12, 12, 12, 12] and len(view["table"]) == 4


def test_m2_equal_scores_at_target_play_on(impl):
    # M2: 16-1, then 1-16 -> 17-17 at target 17: another hand; then 18-1 -> 35-18, A wins
    game = load(impl, 3, target_score=17)
    state = game.new_initial_state(seed=2, decks=pair_decks([3, 0, 1], plus=(2,)))
    play_pair_hand(state, 3)
    assert_going_on(state, [16, 1], 1, 0)
    play_pair_hand(state, 0)
    assert_going_on(state, [17, 17], 2, 1)
    play_pair_hand(state, 1, plus=True)
    assert_won(state, 0, [35, 18])
    assert [h["dealer"] for h in state.view()["past_hands"]] == [3, 0, 1]


def test_m3_both_pass_the_target_higher_wins(impl):
    # M3: 16-1, then B 18 / A 1 -> 17-19: both at or over 17 in the same hand, B wins
    game = load(impl, 3, target_score=17)
    state = game.new_initial_state(seed=3, decks=pair_decks([3, 0], plus=(1,)))
    play_pair_hand(state, 3)
    assert_going_on(state, [16, 1], 1, 0)
    play_pair_hand(state, 0, plus=True)
    assert_won(state, 1, [17, 19])


def test_max_hands_draw(impl):
    # engine safeguard (rules 6.4): after max_hands hands without a winner, a draw
    game = load(impl, 3, target_score=17, max_hands=2)
    state = game.new_initial_state(seed=2, decks=pair_decks([3, 0]))
    play_pair_hand(state, 3)
    play_pair_hand(state, 0)
    assert state.is_terminal()
    view = state.view()
    assert view["winner"] is None and view["scores"] == [17, 17]
    assert state.returns() == pytest.approx([0, 0, 0, 0])


M5_TABLE0 = ["AS", "2S", "3S", "4S"]
M5_FIRST = [(0, "10S", ["AS", "2S", "3S", "4S"])]


def test_m5_no_win_in_mid_hand(impl):
    # M5: team 0 earns 3 bonus points on the first play, over target 2; nothing is decided
    # until the hand ends (then team 0 has every card: 19 + 3 = 22)
    state = start(impl, 3, M5_TABLE0, M5_FIRST, target_score=2)
    do_step(state, *M5_FIRST[0])
    assert state.view()["bonus"] == [3, 0]
    for _ in range(47):
        assert not state.is_terminal()
        view = state.view()
        assert view["winner"] is None and view["scores"] == [0, 0] and view["hand"] == 0
        assert state.returns() == pytest.approx([0, 0, 0, 0])
        trail_lowest(state)
    view = state.view()
    assert view["past_hands"][0]["points"]["bonus"] == [3, 0]
    assert view["past_hands"][0]["points"]["total"] == [22, 0]
    assert_won(state, 0, [22, 0])


@pytest.mark.parametrize("napoleon", [False, True])
def test_m6_all_spades_wins_the_match(impl, napoleon):
    game = load(impl, 3, all_spades_wins_match=napoleon)
    state = game.new_initial_state(seed=4, decks=pair_decks([3]))
    play_pair_hand(state, 3)
    if napoleon:
        assert_won(state, 0, [16, 1])  # far under the target of 51
    else:
        assert_going_on(state, [16, 1], 1, 0)


def test_all_spades_in_a_single_hand_names_no_match_winner(impl):
    # a single hand has no match: all the spades only score their points (docs: "winner" is
    # None for a single hand)
    game = load(impl, 3, all_spades_wins_match=True, game_mode="single_hand")
    state = game.new_initial_state(seed=4, decks=pair_decks([3]))
    play_pair_hand(state, 3)
    assert state.is_terminal()
    view = state.view()
    assert view["winner"] is None
    assert view["scores"] == [16, 1]
    assert state.returns() == pytest.approx([15, -15, 15, -15])


# --------------------------------------------------------------------------------------------
# the deal (rules 3.1 / 3.3), dealer rotation and eldest (rules 2)


def shuffled(seed):
    deck = list(PACK)
    random.Random(seed).shuffle(deck)
    return deck


@pytest.mark.parametrize("style", ["one_at_a_time", "packets"])
@pytest.mark.parametrize("dealer", range(4))
def test_deal_order(impl, dealer, style):
    deck = shuffled(dealer)
    state = load(impl, dealer, deal_style=style).new_initial_state(seed=3, deck=deck)
    view = state.view()
    for i in range(48):  # deck[i] goes to seat (dealer + 1 + i % 4) % 4 (packets: i // 12)
        seat = (dealer + 1 + (i % 4 if style == "one_at_a_time" else i // 12)) % 4
        assert deck[i] in view["hands"][seat], (i, deck[i], seat)
    assert view["table"] == by_id(deck[48:])
    assert view["hands"] == [by_id(h) for h in deal(deck, dealer, 12, style)[0][0]]
    assert view["hand_sizes"] == [12, 12, 12, 12]
    assert view["stock_size"] == 0
    assert view["dealer"] == dealer and view["hand"] == 0
    assert view["to_play"] == (dealer + 1) % 4 == state.current_player()  # the eldest
    assert view["phase"] == "play" and view["last_trail"] is None and view["plays"] == []
    for seat in range(4):  # a seat sees its own hand only, the partner's hand included
        mine = state.view(seat)
        assert mine["hands"][seat] == view["hands"][seat]
        assert all(mine["hands"][q] is None for q in range(4) if q != seat)
        assert mine["table"] == view["table"]


@pytest.mark.parametrize("style", ["one_at_a_time", "packets"])
@pytest.mark.parametrize("packet", [6, 4])
def test_packet_deal(impl, packet, style):
    # packet k (k >= 1) is dealt from deck[4p + 4 + 4p(k-1):] when all four hands are empty,
    # by the same dealer, with no table cards; the eldest plays on.  The first play captures
    # 7H with 7S: the table is not swept up between packets, only at the end of the hand.
    dealer = 1
    eldest = 2
    deck = shuffled(40 + packet)
    for card, pos in (("7S", 0), ("7H", 4 * packet)):
        i = deck.index(card)
        deck[i], deck[pos] = deck[pos], deck[i]
    game = load(impl, dealer, packet_size=packet, deal_style=style, game_mode="single_hand")
    state = game.new_initial_state(seed=5, deck=deck)
    packets, table = deal(deck, dealer, packet, style)
    assert len(packets) == 12 // packet and table == deck[4 * packet : 4 * packet + 4]
    assert "7S" in packets[0][eldest] and "7H" in table
    assert state.view()["table"] == by_id(table)
    plays = 0
    for k, hands in enumerate(packets):
        view = state.view()
        assert view["hands"] == [by_id(h) for h in hands], k
        assert view["hand_sizes"] == [packet] * 4
        assert view["stock_size"] == 52 - 4 - 4 * packet * (k + 1)
        assert state.current_player() == eldest
        assert view["dealer"] == dealer and view["hand"] == 0
        for _ in range(4 * packet):
            if plays == 0:
                do_step(state, eldest, "7S", ["7H"])
            else:
                trail_lowest(state)
            plays += 1
        if k + 1 < len(packets):
            view = state.view()
            assert view["piles"] == [by_id(["7S", "7H"]), []]  # no sweep-up between packets
            assert len(view["table"]) == 3 + 4 * packet * (k + 1) - 1
            assert view["last_capturer"] == eldest
    assert plays == 48
    assert state.is_terminal()
    view = state.view()
    assert view["piles"] == [list(PACK), []]  # the leftovers go to the last capturer's team
    assert view["past_hands"][0]["points"]["total"] == [19, 0]


def test_dealer_rotation_and_eldest(impl):
    decks = [shuffled(1), shuffled(2)]
    game = load(impl, 2, max_hands=3)
    state = game.new_initial_state(seed=8, decks=decks)
    for h, dealer in enumerate([2, 3, 0]):
        view = state.view()
        assert view["hand"] == h and view["dealer"] == dealer
        assert state.current_player() == view["to_play"] == (dealer + 1) % 4
        assert view["hand_sizes"] == [12, 12, 12, 12] and len(view["table"]) == 4
        if h < len(decks):
            assert view["hands"] == [by_id(x) for x in deal(decks[h], dealer)[0][0]]
            assert view["table"] == by_id(decks[h][48:])
        for _ in range(48):
            assert not state.is_terminal()
            trail_lowest(state)
    assert state.is_terminal()
    view = state.view()
    assert [r["dealer"] for r in view["past_hands"]] == [2, 3, 0]
    assert view["winner"] is None  # nobody captured: 0-0 three times, then max_hands: a draw
    assert view["scores"] == [0, 0]
    assert state.returns() == pytest.approx([0, 0, 0, 0])
