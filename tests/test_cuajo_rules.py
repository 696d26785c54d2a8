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
                    assert i < 100, "no room for the kings"
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


def oracle_settle(final, f, source, sowee, stock_after, extra_draw=15):
    """Appendix A with the default amounts: ``(special, r1, r2, bonus, extra_draws, per)``."""
    if oracle_special(final):
        return True, None, None, 0, [], 300
    kings = sum(50 if k == "KO" else 20 for k in final if is_king(k))
    if source in ("stock", "natural"):
        return False, None, None, 110, [], kings + 110
    rest = minus(final, f)
    extra = []

    def check():
        r1 = companions(f, rest + extra)
        r2 = sowee in final + extra and companions(sowee, final + extra)
        return r1, r2

    r1, r2 = check()
    while not (r1 and r2) and len(extra) < min(extra_draw, len(stock_after)):
        extra.append(stock_after[len(extra)])
        r1, r2 = check()
    bonus = {(True, True): 110, (True, False): 60, (False, True): 70, (False, False): 20}[
        (r1, r2)
    ]
    return False, r1, r2, bonus, extra, kings + bonus


# --------------------------------------------------------------------------------------------
# the hands of section 7

H1 = split("3O 4O 5O · JC HC KC · AO AC AE · 5C 5E 5B · 3C 3E 3B · KB")
SP1 = split("3O 4O 5O · 3C 4C 5C · 3E 4E 5E · AO AC AE AB · JO JC JE")
SP2 = split("JO HO KO · 3C 4C 5C · 3E 4E 5E · AO AC AE AB · HC HE HB")
SP3 = split("JO JC JE · 3C 4C 5C · 3E 4E 5E · AO AC AE · HC HE HB · KB")
SP4 = split("JO HO KO · JC JE JB · 3E 4E 5E · AO AC AE AB · HC HE HB")
HE12 = split("3O 4O 5O · JC HC KC · AO AC AE · 5C 5E 5B · 4E 4E 4E")
HE16 = split("3O 4O 5O 5O 5C · JE HE KE · AB AC AE · 3B 4B 5B · KO")
PO12 = split("AO AC AE AB · 3C 4C 5C · 5O 5E 5B · 3O 3E 3B · KO KC KB")
PO13 = split("AO AO AO AO · 3C 4C 5C · 5O 5E 5B · 3O 3E 3B · KO KC KB")
PO11_POOL = split("3C 4C 5C · AO AC AE · 5O 5E 5B · JE HE KE")
PO15_POOL = split("3E 3O 3C · 4E 4O 4C · JC HC KC · AO AC AE · KB")
HE06_POOL = split("JE JO JC · 3O 4O 5O · AO AC AE · 5C 5E 5B · KB")
HE07_POOL = split("JE JO 4O · 3O 4O 5O · AO AC AE · 5C 5E 5B · KB")
EXTRA15 = "AB 3O 4C JO HE 5O KE 4E JC AC 3E HO 5C KO 4O"  # PO-03
EXTRA_PO04 = "JB 3O 4C JO HE 5O KE 4E JC AC 3E HO 5C KO 4O"
EXTRA_PO05 = "AB 3O 4C JO HE 4B KE 4E JC AC HO 3E 5C KO 4O"
EXTRA_PO06 = "AB 3O 4C JE HE 4B KE 4E JC AC HO 3E 5C KO 4O"


def expected_result(winner, source, card, special, r1, r2, bonus, extra, per, hands):
    return {
        "winner": winner,
        "source": source,
        "reason": "win",
        "card": card,
        "special": special,
        "r1": r1,
        "r2": r2,
        "bonus": bonus,
        "extra_draws": split(extra),
        "payments": payments(winner, per),
        "hands": [by_id(h) for h in hands],
    }


def final_hands(deal, winner, final):
    """Every seat's cards at the end: the winner's 16, the idle seats as dealt (they discard
    what they draw)."""
    return [final if s == winner else deal.idle[s] for s in range(4)]


# --------------------------------------------------------------------------------------------
# H1 won by seat 0, the first player (dealer 3): PO-01 .. PO-06, FL-10


def h1_deal(f, sowee, head="", opening="JB", **kw):
    return Deal(3, {0: minus(H1, f)}, sowee, head=head, opening=opening, **kw)


def win_by_draw(run, card, seat=0, opening="JB"):
    run.act(3, f"discard {opening}")
    assert run.legal() == ["draw", "take"]
    run.act(seat, "draw")
    assert run.view(seat)["last_draw"] == {"seat": seat, "card": card, "shown": False}
    assert "win" in run.legal()
    run.act(seat, "win")
    return run.finished()


def win_by_take(run, card, seat=0):
    run.act(3, f"discard {card}")
    run.act(seat, "take")
    v = run.view(seat)
    assert v["discards"] == [{"seat": 3, "card": card, "taken_by": seat}]
    assert v["top_discard"] is None
    assert "win" in run.legal()
    run.act(seat, "win")
    return run.finished()


def test_po_scenario_data():
    """The payments of section 7.5 agree with this file's model of Appendix A."""
    cases = [
        (H1, "4O", "stock", "HB", "", (False, None, None, 110, [], 150)),
        (H1, "4O", "discard", "AE", "", (False, True, True, 110, [], 150)),
        (H1, "4O", "discard", "HB", EXTRA15, (False, True, False, 60, split(EXTRA15), 100)),
        (H1, "KB", "claim", "AE", EXTRA_PO04, (False, False, True, 70, split(EXTRA_PO04), 110)),
        (H1, "3B", "discard", "JO", EXTRA_PO05, (False, True, True, 110, split(EXTRA_PO05)[:14], 150)),
        (H1, "3B", "discard", "JO", EXTRA_PO06, (False, True, False, 60, split(EXTRA_PO06), 100)),
        (H1, "3B", "discard", "JO", "4B JO HO", (False, True, False, 60, split("4B JO HO"), 100)),
        (SP1, "JE", "discard", "KB", "", (True, None, None, 0, [], 300)),
        (SP2, "HB", "stock", "KB", "", (True, None, None, 0, [], 300)),
        (SP3, "HE", "stock", "KO", "", (False, None, None, 110, [], 130)),
        (SP4, "HB", "stock", "3O", "", (True, None, None, 0, [], 300)),
        (PO11_POOL + ["KO"] * 4, "KE", "stock", "3B", "", (False, None, None, 110, [], 330)),
        (PO12, "AB", "discard", "4C", "", (False, True, True, 110, [], 200)),
        (PO13, "AO", "discard", "4C", "AC JO", (False, False, True, 70, ["AC", "JO"], 160)),
        (PO13, "AO", "discard", "4C", "AC JO AE", (False, True, True, 110, split("AC JO AE"), 200)),
        (PO15_POOL + ["5E"] * 3, "4E", "discard", "5E", "", (False, True, True, 110, [], 150)),
    ]  # fmt: skip
    for final, f, source, sowee, after, expected in cases:
        assert len(final) == 16
        assert oracle_settle(final, f, source, sowee, split(after)) == expected, (final, f)
    for hand in (H1, SP1, SP2, SP3, SP4, PO12, PO13, PO11_POOL + ["KO"] * 4):
        assert oracle_partitionable(hand)
    assert oracle_partitionable(PO15_POOL) and oracle_partitionable(HE06_POOL)
    assert not oracle_partitionable(HE07_POOL)
    assert not oracle_partitionable(PO15_POOL + ["5E"] * 3)  # the triple only when declared
    assert [oracle_special(h) for h in (SP1, SP2, SP3, SP4)] == [True, True, False, True]


@pytest.mark.parametrize("returns", ["team", "individual"])
def test_po01_self_draw(impl, returns):
    deal = h1_deal("4O", "HB", head="4O")
    run = Run(impl, deal, returns=returns)
    assert run.view(1)["last_draw"] is None
    result = win_by_draw(run, "4O")
    assert result == expected_result(
        0, "stock", "4O", False, None, None, 110, "", 150, final_hands(deal, 0, H1)
    )
    balances = [300, -150, 0, -150]
    assert run.view(2)["balances"] == balances
    assert run.view(2)["totals"] == balances
    expected = team(balances) if returns == "team" else balances
    assert run.state.returns() == expected
    assert run.state.rewards() == expected
    # at the end every seat sees everything
    v = run.view(1)
    assert v["concealed"][0] == by_id(H1)
    assert v["last_draw"] == {"seat": 0, "card": "4O", "shown": False}


def test_po01_amounts_are_options(impl):
    run = Run(impl, h1_deal("4O", "HB", head="4O"), king_coins=7, king_other=3, bonus_full=111)
    result = win_by_draw(run, "4O")
    assert result["bonus"] == 111
    assert result["payments"] == payments(0, 3 + 3 + 111)


def test_po01_king_basis_payer(impl):
    """``king_basis = "payer"``: each opponent pays for the kings of his own 15 cards."""
    deal = h1_deal("4O", "HB", head="4O", hold={1: "KO KE", 3: "KB"})
    run = Run(impl, deal, king_basis="payer")
    result = win_by_draw(run, "4O")
    assert result["bonus"] == 110
    assert result["payments"] == [(50 + 20 + 110) + (20 + 110), -(50 + 20 + 110), 0, -(20 + 110)]
    # the default pays for the winner's kings (KC, KB)
    run = Run(impl, deal)
    assert win_by_draw(run, "4O")["payments"] == payments(0, 150)


def test_po02_first_turn_win_with_the_opening_discard(impl):
    """PO-02 and FL-10: the first player wins with the dealer's discard, never purro."""
    deal = h1_deal("4O", "AE", opening="4O")
    run = Run(impl, deal)
    assert run.view(0)["purro"] == [False] * 4
    result = win_by_take(run, "4O")
    assert result == expected_result(
        0, "discard", "4O", False, True, True, 110, "", 150, final_hands(deal, 0, H1)
    )
    assert run.state.returns() == team(payments(0, 150))


@pytest.mark.parametrize("may_rediscard", [True, False])
def test_may_rediscard_taken_card(impl, may_rediscard):
    run = Run(impl, h1_deal("4O", "AE", opening="4O"), may_rediscard_taken_card=may_rediscard)
    run.act(3, "discard 4O")
    run.act(0, "take")
    expected = discard_strings(H1) + ["win"]
    if not may_rediscard:
        expected.remove("discard 4O")
    assert run.legal() == expected


def test_po03_extra_draws_all_fifteen(impl):
    deal = h1_deal("4O", "HB", head=EXTRA15, opening="4O")
    result = win_by_take(Run(impl, deal), "4O")
    assert result == expected_result(
        0, "discard", "4O", False, True, False, 60, EXTRA15, 100, final_hands(deal, 0, H1)
    )


@pytest.mark.parametrize(
    "config, bonus",
    [({"bonus_mode": "additive"}, 20 + 60), ({"bonus_r1": 61}, 61), ({"extra_draw": 15}, 60)],
)
def test_po03_bonus_options(impl, config, bonus):
    deal = h1_deal("4O", "HB", head=EXTRA15, opening="4O")
    result = win_by_take(Run(impl, deal, **config), "4O")
    assert (result["r1"], result["r2"], result["bonus"]) == (True, False, bonus)
    assert result["payments"] == payments(0, 40 + bonus)


def po04_run(impl, **config):
    """PO-04: seat 0 (H1 less KB, sowee AE) becomes purro, seat 1 draws KB, shown."""
    deal = h1_deal("KB", "AE", head="JE KB " + EXTRA_PO04, opening="HB")
    run = Run(impl, deal, **config)
    run.act(3, "discard HB")
    run.cycle(0)
    v = run.view(2)
    assert v["purro"] == [True, False, False, False]
    assert v["marker"] == ["KC", None, None, None]
    run.act(1, "draw")
    return deal, run


def test_po04_claim(impl):
    deal, run = po04_run(impl)
    st = run.state
    assert st.current_player() == 0
    assert run.view()["phase"] == "claim" and run.view()["to_play"] == 0
    assert run.view(0)["phase"] == "claim" and run.view(0)["to_play"] == 0
    for seat in (1, 2, 3):
        v = run.view(seat)
        assert (v["phase"], v["to_play"]) == ("action", 1), seat
        assert v["last_draw"] == {"seat": 1, "card": "KB", "shown": True}
    assert run.legal() == ["claim", "pass"]
    run.act(0, "claim")
    result = run.finished()
    assert result == expected_result(
        0, "claim", "KB", False, False, True, 70, EXTRA_PO04, 110, final_hands(deal, 0, H1)
    )


@pytest.mark.parametrize("config, bonus", [({"bonus_mode": "additive"}, 90), ({"bonus_r2": 71}, 71)])
def test_po04_bonus_options(impl, config, bonus):
    _, run = po04_run(impl, **config)
    run.act(0, "claim")
    result = run.finished()
    assert (result["r1"], result["r2"], result["bonus"]) == (False, True, bonus)
    assert result["payments"] == payments(0, 40 + bonus)


def test_po04_pass_then_the_drawer_plays_on(impl):
    deal, run = po04_run(impl)
    run.act(0, "pass")
    assert run.state.current_player() == 1
    assert run.view()["phase"] == "action" and run.view()["to_play"] == 1
    # an idle seat holding a king cannot discard it
    assert run.legal() == discard_strings(deal.idle[1])
    run.act(1, f"discard {deal.idle[1][0]}")
    assert run.view()["purro"][0] is True


@pytest.mark.parametrize(
    "extra, r2, stop",
    [(EXTRA_PO05, True, 14), (EXTRA_PO06, False, 15)],
    ids=["PO-05", "PO-06"],
)
def test_po05_po06_extra_draws_stop_when_both_hold(impl, extra, r2, stop):
    deal = h1_deal("3B", "JO", head=extra, opening="3B")
    result = win_by_take(Run(impl, deal), "3B")
    per = 150 if r2 else 100
    assert result == expected_result(
        0,
        "discard",
        "3B",
        False,
        True,
        r2,
        110 if r2 else 60,
        " ".join(split(extra)[:stop]),
        per,
        final_hands(deal, 0, H1),
    )


@pytest.mark.parametrize(
    "config, r1, r2, bonus, drawn",
    [
        ({"extra_draw": 0}, False, False, 20, 0),
        ({"extra_draw": 0, "bonus_none": 21}, False, False, 21, 0),
        ({"extra_draw": 6}, True, False, 60, 6),
        ({"bonus_mode": "additive"}, True, True, 20 + 60 + 70, 14),
    ],
)
def test_po05_extra_draw_options(impl, config, r1, r2, bonus, drawn):
    deal = h1_deal("3B", "JO", head=EXTRA_PO05, opening="3B")
    result = win_by_take(Run(impl, deal, **config), "3B")
    assert (result["r1"], result["r2"], result["bonus"]) == (r1, r2, bonus)
    assert result["extra_draws"] == split(EXTRA_PO05)[:drawn]
    assert result["payments"] == payments(0, 40 + bonus)


@pytest.mark.parametrize("needs_copy", [True, False])
def test_r2_needs_sowee_copy(impl, needs_copy):
    """Sowee AB: H1 holds AO and AC (its companions) but no AB; the 15 stock cards hold none."""
    head = "3O 4C JO HE 5O KE 4E JC AC 3E HO 5C KO 4O JB"
    deal = h1_deal("4O", "AB", head=head, opening="4O")
    result = win_by_take(Run(impl, deal, r2_needs_sowee_copy=needs_copy), "4O")
    if needs_copy:
        assert (result["r1"], result["r2"], result["bonus"]) == (True, False, 60)
        assert result["extra_draws"] == split(head)
    else:
        assert (result["r1"], result["r2"], result["bonus"]) == (True, True, 110)
        assert result["extra_draws"] == []
    assert result["payments"] == payments(0, 40 + result["bonus"])


# --------------------------------------------------------------------------------------------
# 7.4 special hands, paid (PO-08 .. PO-10, SP-4)


@pytest.mark.parametrize(
    "case, hand, f, source, sowee, special, per",
    [
        ("PO-08", SP1, "JE", "discard", "KB", True, 300),
        ("PO-09", SP2, "HB", "stock", "KB", True, 300),
        ("PO-10", SP3, "HE", "stock", "KO", False, 130),
        ("SP-4", SP4, "HB", "stock", "3O", True, 300),
    ],
    ids=lambda x: x if isinstance(x, str) and "-" in x else "",
)
def test_special_hands(impl, case, hand, f, source, sowee, special, per):
    if source == "stock":
        deal = Deal(3, {0: minus(hand, f)}, sowee, head=f, opening="5B")
        result = win_by_draw(Run(impl, deal), f, opening="5B")
    else:
        deal = Deal(3, {0: minus(hand, f)}, sowee, opening=f)
        result = win_by_take(Run(impl, deal), f)
    bonus = 0 if special else 110
    assert result == expected_result(
        0, source, f, special, None, None, bonus, "", per, final_hands(deal, 0, hand)
    )


@pytest.mark.parametrize(
    "hand, f, sowee, config, per",
    [
        (SP2, "HB", "KB", {"special_flat": False}, 300 + 50),  # PO-09: plus its KO
        (SP4, "HB", "3O", {"special_flat": False}, 300 + 50),
        (SP1, "JE", "KB", {"special_flat": False}, 300),  # no king: nothing to add
        (SP1, "JE", "KB", {"special_hand": 500}, 500),
        (SP2, "HB", "KB", {"special_hand": 500, "special_flat": False}, 550),
    ],
)
def test_special_hand_options(impl, hand, f, sowee, config, per):
    deal = Deal(3, {0: minus(hand, f)}, sowee, head=f, opening="5B")
    result = win_by_draw(Run(impl, deal, **config), f, opening="5B")
    assert result["special"] is True and result["bonus"] == 0
    assert result["payments"] == payments(0, per)


# --------------------------------------------------------------------------------------------
# secrets (PO-11, PO-15, HE-05 .. HE-07, FL-08)


def po11_run(impl, **config):
    """Seat 0 holds KO KO KO KO and the pool less KE; it draws KE (sowee 3B)."""
    deal = Deal(3, {0: ["KO"] * 4 + minus(PO11_POOL, "KE")}, "3B", head="KE", opening="JB")
    run = Run(impl, deal, **config)
    run.act(3, "discard JB")
    run.act(0, "draw")
    legal = run.legal()
    assert "secret KO" in legal and "win" in legal  # an undeclared quad is valid
    assert [a for a in legal if a.startswith("secret")] == ["secret KO"]
    run.act(0, "secret KO")
    return deal, run


def test_po11_king_secret_then_win(impl):
    deal, run = po11_run(impl)
    v = run.view(0)
    assert v["balances"] == [100, -50, 0, -50]
    assert run.state.returns() == team([100, -50, 0, -50])
    assert run.state.rewards() == team([100, -50, 0, -50])
    assert v["secrets"][0] == [{"kind": "normal", "cards": ["KO"] * 4, "extra": None}]
    assert v["concealed"][0] == by_id(PO11_POOL)
    assert v["hand_sizes"] == [16, 15, 15, 15]
    assert run.view(1)["secrets"] == [[{"kind": None, "cards": None, "extra": None}], [], [], []]
    assert run.legal() == discard_strings(PO11_POOL) + ["win"]
    run.act(0, "win")
    result = run.finished()
    final = PO11_POOL + ["KO"] * 4
    assert result == expected_result(
        0, "stock", "KE", False, None, None, 110, "", 330, final_hands(deal, 0, final)
    )
    assert run.view(1)["balances"] == [760, -380, 0, -380]
    assert run.state.returns() == team([760, -380, 0, -380])
    # at the end every secret is shown
    assert run.view(1)["secrets"][0] == [{"kind": "normal", "cards": ["KO"] * 4, "extra": None}]


def test_secret_on_winning_turn_false(impl):
    _, run = po11_run(impl, secret_on_winning_turn=False)
    assert run.legal() == discard_strings(PO11_POOL)
    assert run.view()["balances"] == [100, -50, 0, -50]


def test_secret_payment_option(impl):
    _, run = po11_run(impl, secret_payment=30)
    assert run.view()["balances"] == [60, -30, 0, -30]


def test_secret_kind_public(impl):
    _, run = po11_run(impl, secret_kind_public=True)
    assert run.view(1)["secrets"][0] == [{"kind": "normal", "cards": None, "extra": None}]
    assert run.view(0)["secrets"][0] == [{"kind": "normal", "cards": ["KO"] * 4, "extra": None}]


def po15_run(impl, **config):
    """Seat 0 holds the three 5E (the sowee) and the pool less 4E; it takes 4E."""
    hand = ["5E"] * 3 + minus(PO15_POOL, "4E")
    deal = Deal(3, {0: hand}, "5E", opening="4E")
    run = Run(impl, deal, **config)
    run.act(3, "discard 4E")
    run.act(0, "take")
    return deal, run


def test_po15_sowee_secret_then_win(impl):
    deal, run = po15_run(impl)
    legal = run.legal()
    assert "win" not in legal  # three identical cards are nothing until declared
    others = by_id(set(PO15_POOL))
    assert [a for a in legal if a.startswith("sowee-secret")] == [
        f"sowee-secret {c}" for c in others
    ]
    assert not [a for a in legal if a.startswith("secret")]
    run.act(0, "sowee-secret AO")
    v = run.view(0)
    assert v["secrets"][0] == [{"kind": "sowee", "cards": ["5E"] * 3, "extra": "AO"}]
    assert v["concealed"][0] == by_id(minus(PO15_POOL, "AO"))
    assert v["hand_sizes"][0] == 16
    assert v["balances"] == [100, -50, 0, -50]
    assert run.view(3)["secrets"][0] == [{"kind": None, "cards": None, "extra": None}]
    legal = run.legal()
    assert "win" in legal and "discard AO" not in legal and "discard 5E" not in legal
    assert not [a for a in legal if "secret" in a]  # only one sowee secret per hand
    run.act(0, "win")
    result = run.finished()
    final = PO15_POOL + ["5E"] * 3
    assert result == expected_result(
        0, "discard", "4E", False, True, True, 110, "", 150, final_hands(deal, 0, final)
    )
    assert run.view(2)["balances"] == [400, -200, 0, -200]
    assert run.view(2)["secrets"][0] == [{"kind": "sowee", "cards": ["5E"] * 3, "extra": "AO"}]


def test_po15_secret_kind_public(impl):
    _, run = po15_run(impl, secret_kind_public=True)
    run.act(0, "sowee-secret AO")
    assert run.view(1)["secrets"][0] == [{"kind": "sowee", "cards": None, "extra": None}]


def test_po15_sowee_triple_undeclared_valid(impl):
    deal, run = po15_run(impl, sowee_triple_undeclared_valid=True)
    assert "win" in run.legal()
    run.act(0, "win")
    result = run.finished()
    assert (result["r1"], result["r2"], result["bonus"]) == (True, True, 110)
    assert result["payments"] == payments(0, 150)
    assert run.view()["balances"] == payments(0, 150)


def test_he05_quad_valid_declared_or_not(impl):
    """HE-05: the pool and four HE, declared as a secret or not.  The 16 cards hold one king,
    KC, in J-H-K of cups: a special hand (300 flat)."""
    pool = split("3O 4O 5O · JC HC KC · AO AC AE · 5C 5E 5B")
    assert oracle_special(pool + ["HE"] * 4)
    for declare in (False, True):
        deal = Deal(3, {0: ["HE"] * 4 + minus(pool, "5B")}, "HB", opening="5B")
        run = Run(impl, deal)
        run.act(3, "discard 5B")
        run.act(0, "take")
        assert "win" in run.legal() and "secret HE" in run.legal()
        if declare:
            run.act(0, "secret HE")
        run.act(0, "win")
        result = run.finished()
        assert result == expected_result(
            0,
            "discard",
            "5B",
            True,
            None,
            None,
            0,
            "",
            300,
            final_hands(deal, 0, pool + ["HE"] * 4),
        )
        secret = secret_paid(0) if declare else [0] * 4
        assert run.view()["balances"] == add(secret, payments(0, 300))


def test_undeclared_quad_valid_false(impl):
    """HE-04 / HE-05: with the option, four identical held cards count only as a secret."""
    pool = split("3O 4O 5O · JC HC KC · AO AC AE · 5C 5E 5B")
    deal = Deal(3, {0: ["HE"] * 4 + minus(pool, "5B")}, "HB", opening="5B")
    run = Run(impl, deal, undeclared_quad_valid=False)
    run.act(3, "discard 5B")
    run.act(0, "take")
    assert "win" not in run.legal()
    run.act(0, "secret HE")
    assert "win" in run.legal()


def he06_run(impl, pool, head="KE"):
    """HE-06 / HE-07: seat 0 holds the three HE (the sowee) and the pool less one 4O, takes 4O
    and declares the sowee secret with JE as its extra card."""
    deal = Deal(3, {0: ["HE"] * 3 + minus(pool, "4O")}, "HE", head=head, opening="4O")
    run = Run(impl, deal)
    run.act(3, "discard 4O")
    run.act(0, "take")
    assert "win" not in run.legal()
    run.act(0, "sowee-secret JE")
    return deal, run


def test_he06_extra_card_melded(impl):
    deal, run = he06_run(impl, HE06_POOL)
    assert "win" in run.legal()
    run.act(0, "win")
    result = run.finished()
    # R1: 3O 5O; R2: a HE copy (the secret), JE (the extra card) and KE (first extra draw)
    assert (result["r1"], result["r2"], result["bonus"]) == (True, True, 110)
    assert result["extra_draws"] == ["KE"]
    assert result["payments"] == payments(0, 20 + 110)
    assert result["hands"][0] == by_id(HE06_POOL + ["HE"] * 3)
    assert run.view()["balances"] == add(payments(0, 130), secret_paid(0))


def test_he07_extra_card_cannot_be_melded(impl):
    _, run = he06_run(impl, HE07_POOL)
    assert "win" not in run.legal()
    assert "discard JE" not in run.legal()  # the extra card is never discarded
    assert run.legal() == discard_strings(minus(HE07_POOL, "JE"))


# --------------------------------------------------------------------------------------------
# purro: HE-12 / HE-13, HE-14, FL-03, markers, dead waits


def first_discard(impl, hand, sowee, head="HO", opening="JB", **config):
    """Seat 0 holds ``hand``; the dealer discards ``opening``; seat 0 draws and discards."""
    deal = Deal(3, {0: hand}, sowee, head=head, opening=opening)
    run = Run(impl, deal, **config)
    run.act(3, f"discard {opening}")
    run.cycle(0)
    return deal, run


def test_purro_data():
    assert oracle_waits(HE12, "HB") == ["4E"] and oracle_waits(HE12, "4E") == []
    assert oracle_waits(HE16, "JB") == ["5E", "5B"]
    assert oracle_waits(minus(H1, "4O"), "HB") == split("4O KO 4C KC 4E KE AB 4B KB")
    assert oracle_waits(minus(H1, "KB"), "AE") == split("3O 5O KO KC KE AB KB")


@pytest.mark.parametrize("sowee, purro", [("HB", True), ("4E", False)], ids=["HE-12", "HE-13"])
def test_he12_he13_purro_needs_an_available_copy(impl, sowee, purro):
    _, run = first_discard(impl, HE12, sowee)
    v = run.view(1)
    assert v["purro"] == [purro, False, False, False]
    assert v["marker"] == ["KC" if purro else None, None, None, None]
    assert v["penalty"] == [0, 0, 0, 0]
    assert v["to_play"] == 1 and v["phase"] == "draw"


@pytest.mark.parametrize("dead_waits_count", [True, False])
def test_dead_waits_count(impl, dead_waits_count):
    """HE-12 (sowee HB) waits only on the fourth 4E, which the dealer has discarded (and
    nobody took): with ``dead_waits_count = false`` that copy is not available."""
    _, run = first_discard(impl, HE12, "HB", opening="4E", dead_waits_count=dead_waits_count)
    assert run.view(1)["purro"][0] is dead_waits_count


def test_fl03_forced_purro_and_shown_draws(impl):
    deal, run = first_discard(impl, HE16, "JB", head="HO JO JC JC HO")
    v = run.view(2)
    assert v["purro"] == [True, False, False, False]
    assert v["marker"] == ["KO", None, None, None]  # KO and KE held: the lowest id
    assert v["last_draw"] is None  # cleared at the end of the turn
    # from now on every stock draw of every seat is public
    for seat, card in ((1, "JO"), (2, "JC"), (3, "JC"), (0, "HO")):
        run.act(seat, "draw")
        for viewer in range(4):
            assert run.view(viewer)["last_draw"] == {"seat": seat, "card": card, "shown": True}
        assert run.view((seat + 1) % 4)["known"][seat] == [card]
        run.act(seat, f"discard {card}")
        assert run.view((seat + 1) % 4)["known"][seat] == []
    assert run.view(1)["discards"] == [
        {"seat": s, "card": c, "taken_by": None}
        for s, c in ((3, "JB"), (0, "HO"), (1, "JO"), (2, "JC"), (3, "JC"), (0, "HO"))
    ]


def test_unshown_draw_is_private(impl):
    _, run = first_discard(impl, HE12, "4E", head="HO JO")
    run.act(1, "draw")
    assert run.view(1)["last_draw"] == {"seat": 1, "card": "JO", "shown": False}
    assert run.view(1)["hand_sizes"] == [15, 16, 15, 15]
    for viewer in (0, 2, 3):
        v = run.view(viewer)
        assert v["last_draw"] == {"seat": 1, "card": None, "shown": False}
        assert v["known"][1] == []
        assert v["concealed"][1] is None and v["concealed"][viewer] is not None


def test_taken_discard_is_known(impl):
    deal = h1_deal("KB", "AE", opening="HB")
    run = Run(impl, deal)
    run.act(3, "discard HB")
    run.act(0, "take")
    assert run.view(2)["known"] == [["HB"], [], [], []]
    run.act(0, "discard HB")
    assert run.view(2)["known"] == [[], [], [], []]
    assert run.view(2)["discards"] == [
        {"seat": 3, "card": "HB", "taken_by": 0},
        {"seat": 0, "card": "HB", "taken_by": None},
    ]
    assert run.view(2)["top_discard"] == "HB"


def test_purro_marker_player_choice(impl):
    _, run = first_discard(impl, HE16, "JB", purro_marker="player_choice")
    v = run.view(1)
    assert (v["phase"], v["to_play"]) == ("marker", 0)
    assert run.state.current_player() == 0
    assert run.legal() == ["marker KO", "marker KE"]
    assert [run.state.string_to_action(a) for a in run.legal()] == [89, 91]
    run.act(0, "marker KE")
    v = run.view(1)
    assert v["marker"] == ["KE", None, None, None] and v["purro"][0] is True
    assert (v["phase"], v["to_play"]) == ("draw", 1)


def test_purro_marker_player_choice_with_one_king_suit(impl):
    _, run = first_discard(impl, HE12, "HB", purro_marker="player_choice")
    v = run.view(1)
    assert v["marker"] == ["KC", None, None, None]
    assert (v["phase"], v["to_play"]) == ("draw", 1)


@pytest.mark.parametrize("marker", ["lowest_type", "player_choice"])
def test_marker_king_into_a_secret_becomes_a_coin(impl, marker):
    hand = ["KO"] * 4 + split("3O 4O 5O 3C 4C 5C AO AC AE JE HE")
    assert oracle_waits(hand, "HB") == ["KE"]
    _, run = first_discard(impl, hand, "HB", head="HO JO JC JC HO", purro_marker=marker)
    assert run.view(1)["marker"][0] == "KO"
    run.cycles(1, 3)
    run.act(0, "draw")
    run.act(0, "secret KO")
    assert run.view(1)["marker"][0] == "coin"
    run.act(0, "discard HO")
    v = run.view(1)
    assert v["purro"][0] is True and v["marker"][0] == "coin"


def test_he14_sowee_secret_pool_waits_and_claim(impl):
    """HE-14: after the sowee secret (extra JE) the pool waits on JC and JB; seat 1 draws JC,
    shown, and seat 0 claims it.  R1 (HC KC) and R2 (KE) come from the extra draws."""
    pool = split("JE JO · 3O 4O 5O · AO AC AE · 5C 5E 5B · KB")
    deal = Deal(3, {0: ["HE"] * 3 + pool}, "HE", head="HO JC HC KE KC", opening="JB")
    run = Run(impl, deal)
    run.act(3, "discard JB")
    run.act(0, "draw")
    run.act(0, "sowee-secret JE")
    run.act(0, "discard HO")
    v = run.view(2)
    assert v["purro"][0] is True and v["marker"][0] == "KB"
    assert v["concealed"][0] is None and v["hand_sizes"][0] == 15
    assert v["balances"] == secret_paid(0)
    run.act(1, "draw")
    assert run.state.current_player() == 0 and run.legal() == ["claim", "pass"]
    run.act(0, "claim")
    result = run.finished()
    final = ["HE"] * 3 + pool + ["JC"]
    assert result == expected_result(
        0, "claim", "JC", False, True, True, 110, "HC KE KC", 130, final_hands(deal, 0, final)
    )
    assert oracle_settle(final, "JC", "claim", "HE", split("HC KE KC"))[1:] == (
        True,
        True,
        110,
        ["HC", "KE", "KC"],
        130,
    )
