"""Acceptance tests for Cuajo: the cases of shared/rules/cuajo.md section 7 played as real hands.

Every test runs on both implementations through the ``impl`` fixture of ``conftest.py`` (the
Rust engine ``tapete`` and the pure-Python reference ``tapete.reference``).

* The public API cannot set hands directly, so every case starts from a 112-card deck (top
  first) dealt as docs/rules/cuajo.md "The deal" says: ``p1 = dealer + 1`` gets positions 0-4,
  ``p2`` 5-9, ``p3`` 10-14, the dealer 15-20, then twice five each in the same order (21-40,
  41-60); position 61 is the sowee and 62 the top of the stock.  ``Deal`` builds such a deck
  from the hands the case needs; the other seats get "idle" hands (no waits, and kept as dealt:
  an idle seat always discards the card it has just drawn, so it never becomes purro), the
  stock starts with the cards the case draws, then the rest of the pack in a fixed order
  (non-kings first).
* 7.5 (PO-01..17) checks the payment of every case through ``view()["result"]``,
  ``returns()`` (cents; ``returns="individual"`` gives per-seat balances, the default
  ``"team"`` own + partner) and the balances of the ledger cases; 7.4 (SP-1..4) is paid
  through real wins.  7.6 (FL-01..10) checks the flow: legal action strings, ``view()`` fields,
  the hidden drawer-option and claim decisions.
* Every non-default option of the configuration table of docs/rules/cuajo.md has at least one
  test with an exact expectation.
* Where a position of section 7 cannot be reached exactly by legal play, the comment of the
  case says what differs.

The scripts are checked against a small model of the hands (``oracle_*`` below: complete
hands and waits by brute force) by the tests marked "scenario data", which need no
implementation.

Card strings: rank then suit (``A 3 4 5 J H K`` x ``O C E B``), card id ``7 * suit + rank``.
Seats in play order: ``s + 1`` plays after ``s``; teams {0, 2} and {1, 3}.
"""

import itertools
from functools import lru_cache

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
FULL_PACK = [c for c in PACK for _ in range(4)]


def split(text):
    return text.replace("·", " ").split() if text else []


def by_id(cards):
    return sorted(cards, key=ID.__getitem__)


def is_king(card):
    return card[0] == "K"


def counts(cards):
    c = [0] * 28
    for card in cards:
        c[ID[card]] += 1
    return c


def minus(cards, *removed):
    out = list(cards)
    for card in removed:
        out.remove(card)
    return out


# --------------------------------------------------------------------------------------------
# a brute-force model of rules 4 (only used to check this file's scenario data)


def _combinations():
    found = set()
    for r in range(7):
        for k in (3, 4):
            for suits in itertools.combinations(range(4), k):
                found.add(tuple(7 * s + r for s in suits))
    for s in range(4):
        found.add((7 * s + 1, 7 * s + 2, 7 * s + 3))
        found.add((7 * s + 4, 7 * s + 5, 7 * s + 6))
    for t in range(28):
        found.add((t,) * 4)
    for k in KING_IDS:
        found.add((k,))
    return sorted(found)


COMBINATIONS = _combinations()


@lru_cache(maxsize=None)
def _splits(c, quads=True):
    t = next((i for i, n in enumerate(c) if n), None)
    if t is None:
        return True
    for combo in COMBINATIONS:
        if min(combo) != t or (not quads and len(combo) == 4 and len(set(combo)) == 1):
            continue
        d = list(c)
        for u in combo:
            d[u] -= 1
        if min(d) >= 0 and _splits(tuple(d), quads):
            return True
    return False


def oracle_partitionable(cards, quads=True):
    return _splits(tuple(counts(cards)), quads)


def oracle_waits(cards, sowee=None, held=()):
    """Waits of a 15-card state: ``cards`` the pool, ``held`` the committed secret cards."""
    c = counts(list(cards) + list(held))
    out = []
    for t in range(28):
        if c[t] < (3 if sowee is not None and ID[sowee] == t else 4):
            if oracle_partitionable(list(cards) + [PACK[t]]):
                out.append(PACK[t])
    return out


def companions(card, cards):
    """Rules 5.5 / Appendix A ``has_companions``."""
    c = counts(cards)
    s, r = SUITS.index(card[1]), RANKS.index(card[0])
    if r == 0:
        return sum(1 for u in range(4) if u != s and c[7 * u] > 0) >= 2
    group = (1, 2, 3) if r in (1, 2, 3) else (4, 5, 6)
    return all(c[7 * s + g] > 0 for g in group if g != r)


def oracle_special(final):
    kings = [c for c in final if is_king(c)]
    if not kings:
        return True
    if len(kings) > 1:
        return False
    k = kings[0]
    jack, horse = "J" + k[1], "H" + k[1]
    if jack not in final or horse not in final:
        return False
    return oracle_partitionable(minus(final, jack, horse, k))


# --------------------------------------------------------------------------------------------
# building decks (docs/rules/cuajo.md "The deal")


def deal_seats(dealer):
    """The seat of each of the 61 dealt positions."""
    p = [(dealer + k) % 4 for k in (1, 2, 3)]
    seats = []
    for rnd in range(3):
        for s in p:
            seats += [s] * 5
        seats += [dealer] * (6 if rnd == 0 else 5)
    return seats


def deck_from(dealer, hands, sowee, stock):
    slots = deal_seats(dealer)
    its = [iter(h) for h in hands]
    deck = [next(its[s]) for s in slots] + [sowee] + list(stock)
    assert sorted(deck, key=ID.__getitem__) == FULL_PACK, "not a permutation of the pack"
    return deck


# idle hands: pairs of kinds, at most two suits of a rank, no 3-4-5 or J-H of one suit
IDLE_ORDER = split(
    "AO AC 3O 3C 4O 4C 5E 5B JO JC HE HB AE AB 3E 3B 4E 4B 5O 5C JE JB HO HC"
)  # fmt: skip


def _idle_ok(hand):
    non_kings = [c for c in hand if not is_king(c)]
    for r in "A345JH":
        if len({c[1] for c in non_kings if c[0] == r}) > 2:
            return False
    for s in SUITS:
        ranks = {c[0] for c in non_kings if c[1] == s}
        if {"3", "4", "5"} <= ranks or {"J", "H"} <= ranks:
            return False
    return True


class Deal:
    """A deck for one case.

    ``hands``: ``{seat: cards}`` of the seats the case needs (15 cards; 16 for the dealer);
    the other seats are idle: they get ``hold[seat]`` (cards they must hold), then, with
    ``kings_in_hands``, every king not placed elsewhere (so that the stock holds none), then
    pairs of kinds in ``IDLE_ORDER``; an idle dealer also gets ``opening``, the card he
    discards at the opening.  ``head``: the first stock cards, ``tail``: the last ones; the
    rest of the stock is every remaining card, non-kings first, in ascending id.
    """

    def __init__(
        self,
        dealer,
        hands,
        sowee,
        head="",
        tail="",
        opening=None,
        hold=None,
        kings_in_hands=False,
        stock_middle=None,
    ):
        self.dealer = dealer
        self.sowee = sowee
        given = {s: split(h) if isinstance(h, str) else list(h) for s, h in hands.items()}
        hold = {s: split(h) if isinstance(h, str) else list(h) for s, h in (hold or {}).items()}
        head, tail = split(head), split(tail)
        left = counts(FULL_PACK)
        used = [sowee] + head + tail + [c for h in given.values() for c in h]
        used += [c for h in hold.values() for c in h]
        if opening is not None:
            used.append(opening)
        for card in used:
            left[ID[card]] -= 1
            assert left[ID[card]] >= 0, f"more than four {card}"
        idle = [s for s in range(4) if s not in given]
        hands = {s: list(given[s]) for s in given}
        for s in idle:
            hands[s] = list(hold.get(s, []))
        if kings_in_hands:
            i = 0
            for k in KING_IDS:
                while left[k]:
                    s = idle[i % len(idle)]
                    i += 1
                    if len(hands[s]) < 15:
                        hands[s].append(PACK[k])
                        left[k] -= 1
        for s in idle:
            for card in IDLE_ORDER:
                for _ in range(2):
                    if len(hands[s]) < 15 and left[ID[card]] and _idle_ok(hands[s] + [card]):
                        hands[s].append(card)
                        left[ID[card]] -= 1
            assert len(hands[s]) == 15, (s, hands[s])
            assert not oracle_waits(hands[s], sowee), ("idle hand waits", s, hands[s])
        self.idle = {s: list(hands[s]) for s in idle}
        if dealer in idle:
            assert opening is not None, "an idle dealer needs an opening discard"
            hands[dealer].append(opening)
        else:
            assert opening is None
        for s in range(4):
            assert len(hands[s]) == (16 if s == dealer else 15), (s, len(hands[s]))
        middle = [PACK[t] for t in range(28) if t not in KING_IDS for _ in range(left[t])]
        middle += [PACK[t] for t in KING_IDS for _ in range(left[t])]
        if stock_middle is not None:
            middle = stock_middle(middle)
        self.stock = head + middle + tail
        assert len(self.stock) == 50
        self.hands = [hands[s] for s in range(4)]
        self.deck = deck_from(dealer, self.hands, sowee, self.stock)


# --------------------------------------------------------------------------------------------
# running a case


def legal_strings(state):
    acts = state.legal_actions()
    assert list(acts) == sorted(set(acts)), "legal actions must ascend without duplicates"
    return [state.action_to_string(a) for a in acts]


class Run:
    """A state dealt from ``deal``, driven by action strings.  ``pos`` counts the stock cards
    drawn, so ``deal.stock[pos]`` is the top of the stock."""

    def __init__(self, impl, deal, seed=11, decks=None, **config):
        self.deal = deal
        self.game = impl.load_game("cuajo", first_dealer=deal.dealer, **config)
        if decks is None:
            self.state = self.game.new_initial_state(seed, deck=deal.deck)
        else:
            self.state = self.game.new_initial_state(seed, decks=[deal.deck] + list(decks))
        self.pos = 0

    def legal(self):
        return legal_strings(self.state)

    def view(self, seat=None):
        return self.state.view(seat)

    def act(self, seat, text):
        st = self.state
        assert st.current_player() == seat, (text, st.current_player(), seat)
        legal = legal_strings(st)
        assert text in legal, (seat, text, legal)
        action = st.string_to_action(text)
        assert st.action_to_string(action) == text
        st.apply_action(action)
        if text == "draw":
            self.pos += 1

    def top(self, k=1):
        return self.deal.stock[self.pos : self.pos + k]

    def cycle(self, seat):
        """``seat`` draws the top of the stock and discards it."""
        card = self.deal.stock[self.pos]
        self.act(seat, "draw")
        self.act(seat, f"discard {card}")

    def cycles(self, first, n):
        for i in range(n):
            self.cycle((first + i) % 4)

    def finished(self):
        st = self.state
        assert st.is_terminal() and st.current_player() == tapete.TERMINAL
        v = st.view()
        assert v["phase"] == "over" and v["to_play"] is None
        return v["result"]


def discard_strings(cards):
    """The ``discard`` actions a player holding ``cards`` has: every non-king kind."""
    return [f"discard {c}" for c in by_id(set(cards)) if not is_king(c)]


def team(balances):
    return [balances[s] + balances[(s + 2) % 4] for s in range(4)]


def payments(winner, per):
    """End-of-hand payments: each opponent pays ``per`` to ``winner``."""
    out = [0] * 4
    for o in ((winner + 1) % 4, (winner + 3) % 4):
        out[o] -= per
        out[winner] += per
    return out


def secret_paid(seat, amount=50):
    return payments(seat, amount)


def add(*vectors):
    return [sum(v[i] for v in vectors) for i in range(4)]
