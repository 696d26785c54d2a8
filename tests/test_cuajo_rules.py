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
from functools import cache

import numpy as np
import pytest
from test_chance import as_explicit

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


@cache
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
    bonus = {(True, True): 110, (True, False): 60, (False, True): 70, (False, False): 20}[(r1, r2)]
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
        (H1, "3B", "discard", "JO", EXTRA_PO05,
         (False, True, True, 110, split(EXTRA_PO05)[:14], 150)),
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


@pytest.mark.parametrize(
    "config, bonus", [({"bonus_mode": "additive"}, 90), ({"bonus_r2": 71}, 71)]
)
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


# seats 0 and 1 become purro with KO as their marker (their lowest king); seat 2 then discards
# into HE-15, which waits only on KO; the sowee is KO, so three copies are in play
MARKED_0 = split("3O 4O 5O · JC HC KC · AO AC AE · 5C 5E 5B · 3C 3E · KO")
MARKED_1 = split("3O 4O 5O · JE HE KE · AO AC AB · 5C 5E 5B · 3C 3B · KO")
HE15 = split("JO JO HO HO KO · 3C 4C 5C · AO AC AE · 5O 5E 5B · KB")


def test_dead_waits_marker_data():
    assert oracle_waits(MARKED_0, "KO") == ["3O", "3B"]
    assert oracle_waits(MARKED_1, "KO") == ["3O", "3E"]
    assert oracle_waits(minus(MARKED_1, "KO") + ["KC"], "KO") == ["3O", "3E"]
    assert oracle_waits(HE15, "KO") == ["KO"]


@pytest.mark.parametrize(
    "dead_waits_count, marker_1, purro",
    [(True, "KO", True), (False, "KO", False), (False, "KC", True)],
    ids=["dead-waits-count", "both-markers-KO", "one-marker-KO"],
)
def test_dead_waits_count_sees_the_markers(impl, dead_waits_count, marker_1, purro):
    """Rules 4.4: with ``dead_waits_count = false`` a face-up marker king is a visible card.
    Seat 2's HE-15 waits on KO (sowee KO: three copies in play, one held by seat 2); the other
    two are the markers of seats 0 and 1, so none is left and seat 2 is not purro.  With seat
    1's marker KC only one KO is visible and one copy is still available."""
    hand_1 = MARKED_1 if marker_1 == "KO" else minus(MARKED_1, "KO") + ["KC"]
    deal = Deal(3, {0: MARKED_0, 1: hand_1, 2: HE15}, "KO", head="HB HB HB", opening="JB")
    run = Run(impl, deal, dead_waits_count=dead_waits_count)
    run.act(3, "discard JB")
    run.cycles(0, 2)
    assert run.view(2)["marker"] == ["KO", marker_1, None, None]
    run.cycle(2)
    v = run.view(3)
    assert v["purro"] == [True, True, purro, False]
    assert v["marker"] == ["KO", marker_1, "KO" if purro else None, None]


def test_fl03_forced_purro_and_shown_draws(impl):
    deal, run = first_discard(impl, HE16, "JB", head="HO JO JC JC HO")
    v = run.view(2)
    assert v["purro"] == [True, False, False, False]
    assert v["marker"] == ["KO", None, None, None]  # KO and KE held: the lowest id
    assert "KO" in run.view(0)["concealed"][0]  # the marker king stays in the hand
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
    v = run.view(0)
    assert (v["phase"], v["to_play"]) == ("marker", 0)
    assert (run.view(1)["phase"], run.view(1)["to_play"]) == ("action", 0)  # hidden
    assert run.state.current_player() == 0
    assert run.legal() == ["marker KO", "marker KE"]
    assert [run.state.string_to_action(a) for a in run.legal()] == [89, 91]
    run.act(0, "marker KE")
    v = run.view(1)
    assert v["marker"] == ["KE", None, None, None] and v["purro"][0] is True
    assert (v["phase"], v["to_play"]) == ("draw", 1)


@pytest.mark.parametrize("hand", ["HE-12", "no-king"])
def test_purro_marker_player_choice_with_one_king_suit(impl, hand):
    """Rules 3.3 and 5.3: the marker decision exists only with kings of two or more suits in
    hand.  HE-12 holds only KC: the marker is KC at once and the turn passes; a hand without a
    king gets the coin."""
    cards = HE12 if hand == "HE-12" else minus(HE12, "KC") + ["4E"]
    assert oracle_waits(cards, "HB") == (["4E"] if hand == "HE-12" else ["KC"])
    _, run = first_discard(impl, cards, "HB", purro_marker="player_choice")
    for seat in (None, 0, 1):
        v = run.view(seat)
        assert v["marker"] == ["KC" if hand == "HE-12" else "coin", None, None, None]
        assert v["purro"][0] is True and (v["phase"], v["to_play"]) == ("draw", 1)
    assert run.legal() == ["draw", "take"]


def seen(state, seat):
    """Everything ``seat`` can observe of ``state``."""
    return (
        state.view(seat),
        state.observation_tensor(seat).tolist(),
        state.observation_string(seat),
        state.information_state_string(seat),
    )


# HE-16-like hands waiting only on 4E: two kings of two suits, or two of one suit
TWO_SUITS = split("3O 4O 5O · 3C 4C 5C · AO AC AE AB · 4E 4E 4E · KO KE")
ONE_SUIT = minus(TWO_SUITS, "KE") + ["KO"]


def test_marker_decision_data():
    assert oracle_waits(TWO_SUITS, "HB") == oracle_waits(ONE_SUIT, "HB") == ["4E"]


def marker_call_nodes(impl, hand, choose=None):
    """Seat 0 holds ``hand``, draws HO and discards it, becoming purro: the states before the
    discard, after it and (with ``choose``) after the marker decision."""
    deal = Deal(3, {0: hand}, "HB", head="HO", opening="JB")
    run = Run(impl, deal, purro_marker="player_choice")
    run.act(3, "discard JB")
    run.act(0, "draw")
    nodes = [run.state.clone()]
    run.act(0, "discard HO")
    nodes.append(run.state.clone())
    if choose is not None:
        assert run.legal() == ["marker KO", "marker KE"]
        run.act(0, choose)
        nodes.append(run.state.clone())
    return nodes


def test_marker_decision_is_hidden_from_the_other_seats(impl):
    """With KO and KE the new purro player chooses his marker; the other seats cannot tell
    that decision from the automatic marker of a player whose kings are all KO: during it they
    see the table as it was before his discard, then the discard with the marker chosen."""
    before, decision, after = marker_call_nodes(impl, TWO_SUITS, "marker KO")
    one_before, one_after = marker_call_nodes(impl, ONE_SUIT)
    assert decision.current_player() == 0
    for seat in (None, 0):
        v = decision.view(seat)
        assert (v["phase"], v["to_play"]) == ("marker", 0)
        assert v["purro"][0] is True and v["marker"][0] is None
    assert (after.view(0)["marker"], one_after.view(0)["marker"]) == (["KO", None, None, None],) * 2
    for seat in (1, 2, 3):
        assert seen(before, seat) == seen(one_before, seat), seat
        assert seen(decision, seat) == seen(before, seat), seat
        assert seen(after, seat) == seen(one_after, seat), seat
        v = decision.view(seat)
        assert (v["phase"], v["to_play"], v["purro"][0]) == ("action", 0, False)
        assert v["hand_sizes"] == [16, 15, 15, 15] and v["top_discard"] == "JB"


def test_marker_decision_after_the_optional_call_is_hidden(impl):
    """``purro_call = "optional"``: the ``purro`` call of a player with kings of two suits
    brings his marker decision; the others see it as his purro decision until he chooses."""
    deal = Deal(3, {0: TWO_SUITS}, "HB", head="HO", opening="JB")
    run = Run(impl, deal, purro_marker="player_choice", purro_call="optional")
    run.act(3, "discard JB")
    run.act(3, "no-purro")
    run.act(0, "draw")
    run.act(0, "discard HO")
    assert run.legal() == ["purro", "no-purro"]
    call = run.state.clone()
    run.act(0, "purro")
    decision = run.state.clone()
    assert run.legal() == ["marker KO", "marker KE"]
    run.act(0, "marker KE")
    for seat in (1, 2, 3):
        assert seen(decision, seat) == seen(call, seat), seat
        assert decision.view(seat)["phase"] == "purro_call"
        v = run.view(seat)
        assert v["marker"] == ["KE", None, None, None] and (v["phase"], v["to_play"]) == (
            "draw",
            1,
        )


@pytest.mark.parametrize("explicit", [False, True])
@pytest.mark.parametrize("trigger", ["discard", "purro"])
def test_the_worlds_of_a_hidden_marker_decision_are_those_before_it(impl, trigger, explicit):
    """During a seat's marker decision the others see the table as before the action that
    brought it, so their resampled worlds are drawn from that state: seed for seed the worlds
    of the state before the action. (They once held the decider's true discard, which those
    seats have not seen: in every world with the decision, the discard was the true one.)"""
    if trigger == "discard":
        before, decision = marker_call_nodes(impl, TWO_SUITS)
    else:
        run = Run(
            impl,
            Deal(3, {0: TWO_SUITS}, "HB", head="HO", opening="JB"),
            purro_marker="player_choice",
            purro_call="optional",
        )
        for seat, text in ((3, "discard JB"), (3, "no-purro"), (0, "draw"), (0, "discard HO")):
            run.act(seat, text)
        before = run.state.clone()
        run.act(0, "purro")
        decision = run.state
    if explicit:
        before, decision = as_explicit(impl, before), as_explicit(impl, decision)
    assert decision.legal_actions() != before.legal_actions()  # the marker decision
    for seat in (1, 2, 3):
        for k in range(3):
            world = decision.resample_from_infostate(seat, k)
            assert seen(world, seat) == seen(decision, seat)
            assert world.serialize() == before.resample_from_infostate(seat, k).serialize()


@pytest.mark.parametrize("marker", ["lowest_type", "player_choice"])
def test_marker_king_into_a_secret_becomes_a_coin(impl, marker):
    """Rules 5.3: the marker king goes into a secret and no king is left: the marker becomes a
    coin, at once with ``lowest_type``; with ``player_choice`` at the end of the turn (after
    the discard), the moment a marker decision would come, so until then he shows none."""
    hand = ["KO"] * 4 + split("3O 4O 5O 3C 4C 5C AO AC AE JE HE")
    assert oracle_waits(hand, "HB") == ["KE"]
    _, run = first_discard(impl, hand, "HB", head="HO JO JC JC HO", purro_marker=marker)
    assert run.view(1)["marker"][0] == "KO"  # one suit: no decision, also with player_choice
    run.cycles(1, 3)
    run.act(0, "draw")
    run.act(0, "secret KO")
    assert run.view(1)["marker"][0] == ("coin" if marker == "lowest_type" else None)
    assert run.view(1)["purro"][0] is True
    run.act(0, "discard HO")
    v = run.view(1)
    assert v["purro"][0] is True and v["marker"][0] == "coin"
    assert (v["phase"], v["to_play"]) == ("draw", 1)


def test_dead_waits_count_marker_among_known_cards(impl):
    """A marker king that may be one of its owner's known copies is not one copy more: seat 1
    draws KO (shown, as seat 0 is purro) and becomes purro with it as marker; seat 2's HE-15
    (sowee AB: four KO in play, one his) sees seat 0's marker KO and one KO of seat 1, so one
    copy is left and he is purro."""
    hand_1 = minus(MARKED_1, "KO") + ["HB"]
    assert oracle_waits(hand_1, "AB") == [] and oracle_waits(HE15, "AB") == ["KO"]
    deal = Deal(3, {0: MARKED_0, 1: hand_1, 2: HE15}, "AB", head="JB KO JB", opening="JO")
    run = Run(impl, deal, dead_waits_count=False)
    run.act(3, "discard JO")
    run.cycle(0)
    run.act(1, "draw")
    run.act(1, "discard HB")
    v = run.view(2)
    assert v["known"][1] == ["KO"] and v["marker"][:2] == ["KO", "KO"]
    run.cycle(2)
    assert run.view(3)["purro"] == [True, True, True, False]


# four KO and kings of two more suits: the marker KO goes into a secret
RECHOOSE = ["KO"] * 4 + split("3O 4O 5O 3C 4C 5C AO AC AE KC KE")


def test_rechoose_data():
    assert oracle_waits(RECHOOSE, "HB") == ["KC", "KE", "AB", "KB"]
    assert oracle_waits(minus(RECHOOSE, "KE") + ["KC"], "HB") == ["KC", "KE", "AB", "KB"]


def rechoose_nodes(impl, hand, marker="player_choice"):
    """Seat 0 holds ``hand``, becomes purro with the marker KO, draws HO in his next turn and
    lays the secret KO: the states after the secret and after his discard of HO."""
    _, run = first_discard(impl, hand, "HB", head="HO JO JC JC HO", purro_marker=marker)
    if marker == "player_choice":
        assert run.legal()[0] == "marker KO"
        run.act(0, "marker KO")
    assert run.view(1)["marker"][0] == "KO"
    run.cycles(1, 3)
    run.act(0, "draw")
    run.act(0, "secret KO")
    secret = run.state.clone()
    run.act(0, "discard HO")
    return run, secret, run.state.clone()


def test_marker_rechosen_by_the_lowest_type(impl):
    run, secret, discarded = rechoose_nodes(impl, RECHOOSE, "lowest_type")
    assert secret.view(1)["marker"][0] == "KC"
    assert discarded.view(1)["marker"][0] == "KC" and discarded.view(1)["phase"] == "draw"


def test_marker_rechosen_by_the_player(impl):
    """Rules 5.3: the marker KO goes into a secret; with KC and KE left in hand the player
    chooses the new marker "by the same rule" as at the call: a decision after his discard
    (he is still purro), hidden from the others exactly like the first one: they cannot tell
    it from the automatic marker of a player left with kings of one suit (KC KC)."""
    run, secret, decision = rechoose_nodes(impl, RECHOOSE)
    _, one_secret, one_discarded = rechoose_nodes(impl, minus(RECHOOSE, "KE") + ["KC"])
    assert secret.view(1)["marker"][0] is None and secret.view(1)["purro"][0] is True
    assert (decision.view()["phase"], decision.current_player()) == ("marker", 0)
    assert run.legal() == ["marker KC", "marker KE"]
    run.act(0, "marker KC")
    assert one_discarded.view(1)["marker"][0] == "KC"
    for seat in (1, 2, 3):
        assert seen(secret, seat) == seen(one_secret, seat), seat
        assert seen(decision, seat) == seen(secret, seat), seat
        assert seen(run.state, seat) == seen(one_discarded, seat), seat
    v = run.view(2)
    assert v["marker"][0] == "KC" and v["purro"][0] is True
    assert (v["phase"], v["to_play"]) == ("draw", 1)


def test_marker_rechosen_only_if_still_purro(impl):
    """The marker king goes into a secret and the discard then leaves no wait: purro is lost,
    so no new marker is placed (no decision either)."""
    hand = ["KO"] * 4 + split("3O 4O 5O 3C 4C 5C AO AC AE KC KE")
    _, run = first_discard(impl, hand, "HB", head="HO JO JC JC HO", purro_marker="player_choice")
    run.act(0, "marker KO")
    run.cycles(1, 3)
    run.act(0, "draw")
    run.act(0, "secret KO")
    run.act(0, "discard 3O")
    v = run.view(1)
    assert (v["purro"][0], v["marker"][0], v["penalty"][0]) == (False, None, 2)
    assert (v["phase"], v["to_play"]) == ("draw", 1)


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


# --------------------------------------------------------------------------------------------
# ledger cases: PO-16 (secrets and a win, then the next deal), FL-08


def po16_deal():
    """Seat 0 holds H1 less 4O (sowee HB), seat 1 four JB, seat 2 the three HB."""
    return h1_deal(
        "4O", "HB", head="HE HE HO HO 4O", opening="JE", hold={1: "JB JB JB JB", 2: "HB HB HB"}
    )


def test_po16_scenario_data():
    deal = po16_deal()
    waits0 = oracle_waits(minus(H1, "4O"), "HB")
    assert not set(split("HE HO")) & set(waits0)
    y = next(c for c in by_id(deal.idle[2]) if c != "HB")
    pool2 = minus(deal.idle[2], "HB", "HB", "HB")
    assert y in pool2 and not oracle_waits(pool2, "HB", held=["HB"] * 3)
    pool1 = minus(deal.idle[1], *["JB"] * 4)
    assert not oracle_waits(pool1, "HB", held=["JB"] * 4)


def test_po16_ledger_and_next_dealer(impl):
    deal = po16_deal()
    y = next(c for c in by_id(deal.idle[2]) if c != "HB")
    run = Run(impl, deal, hands_per_match=2)
    run.act(3, "discard JE")
    run.cycle(0)
    assert run.view(1)["purro"] == [True, False, False, False]
    # FL-08: seat 1 declares a normal secret
    run.act(1, "draw")
    assert run.view(2)["last_draw"] == {"seat": 1, "card": "HE", "shown": True}
    assert "secret JB" in run.legal()
    run.act(1, "secret JB")
    v = run.view(1)
    assert v["balances"] == [-50, 100, -50, 0]
    assert run.state.rewards() == team([-50, 100, -50, 0])
    assert v["hand_sizes"] == [15, 16, 15, 15]
    assert v["concealed"][1] == by_id(minus(deal.idle[1], *["JB"] * 4) + ["HE"])
    assert run.legal() == discard_strings(v["concealed"][1])  # no JB any more
    assert run.view(0)["secrets"][1] == [{"kind": None, "cards": None, "extra": None}]
    run.act(1, "discard HE")
    # seat 2 declares a sowee secret with any card of its hand
    run.act(2, "draw")
    sowee_secrets = [a for a in run.legal() if a.startswith("sowee-secret")]
    expected = [f"sowee-secret {c}" for c in by_id(set(deal.idle[2] + ["HO"]) - {"HB"})]
    assert sowee_secrets == expected
    run.act(2, f"sowee-secret {y}")
    assert run.view(2)["balances"] == [-50, 50, 50, -50]
    assert run.view(0)["secrets"][2] == [{"kind": None, "cards": None, "extra": None}]
    run.act(2, "discard HO")
    run.cycle(3)
    # seat 0 draws its 4O and wins as in PO-01 (the draw is shown here: seat 0 is purro since
    # its first discard; the payment is the same)
    run.act(0, "draw")
    assert run.view(3)["last_draw"] == {"seat": 0, "card": "4O", "shown": True}
    run.act(0, "win")
    ledger = [250, -100, 50, -200]
    v = run.view(1)
    assert not run.state.is_terminal()
    assert v["hand"] == 1 and v["dealer"] == 0
    assert (v["phase"], v["to_play"]) == ("opening", 0)
    assert v["totals"] == ledger and v["balances"] == [0, 0, 0, 0]
    assert v["past_hands"] == [{"dealer": 3, "winner": 0, "source": "stock", "balances": ledger}]
    result = v["result"]
    assert (result["winner"], result["source"], result["card"]) == (0, "stock", "4O")
    assert result["payments"] == payments(0, 150)
    assert result["hands"][1] == by_id(deal.idle[1])
    assert result["hands"][2] == by_id(deal.idle[2])
    assert run.state.returns() == team(ledger) == [300, -300, 300, -300]
    assert v["secrets"] == [[], [], [], []]
    assert v["stock_size"] == 50 and v["discards"] == []


# --------------------------------------------------------------------------------------------
# hands that use up the stock: PO-07, PO-13, PO-17, FL-07, empty_stock


def no_kings(stock, n):
    assert not any(is_king(c) for c in stock[:n])


def po07_deal():
    """Dealer 3 holds H1 less 3B (waits 3O, 3B); every other 3O and 3B is held by the idle
    seats; the stock ends 4B JO HO."""
    deal = Deal(
        3,
        {3: minus(H1, "3B") + ["JE"]},
        "JO",
        tail="4B JO HO",
        hold={0: "3O 3B", 1: "3O 3B", 2: "3O 3B 3B"},
        kings_in_hands=True,
    )
    no_kings(deal.stock, 47)
    return deal


def test_po07_scenario_data():
    deal = po07_deal()
    assert oracle_waits(minus(H1, "3B"), "JO") == ["3O", "3B"]
    assert not {"3O", "3B"} & set(deal.stock)


def test_po07_extra_draws_until_the_stock_is_empty(impl):
    deal = po07_deal()
    run = Run(impl, deal)
    run.act(3, "discard JE")
    assert run.view(0)["purro"] == [False, False, False, True]
    run.cycles(0, 46)
    run.act(2, "draw")
    run.act(2, "discard 3B")
    assert run.view(3)["stock_size"] == 3
    run.act(3, "take")
    run.act(3, "win")
    result = run.finished()
    assert result["hands"][3] == by_id(H1)
    assert (result["winner"], result["source"], result["card"]) == (3, "discard", "3B")
    assert (result["r1"], result["r2"], result["bonus"]) == (True, False, 60)
    assert result["extra_draws"] == ["4B", "JO", "HO"]
    assert result["payments"] == payments(3, 100)
    assert run.view()["stock_size"] == 0


def po13_deal():
    deal = Deal(
        3,
        {0: minus(PO13, "AO")},
        "4C",
        tail="AC JO",
        opening="JE",
        hold={3: "AO"},
        kings_in_hands=True,
    )
    no_kings(deal.stock, 48)
    return deal


def test_po13_stock_holds_only_two_cards(impl):
    deal = po13_deal()
    assert oracle_waits(minus(PO13, "AO"), "4C") == ["AO"] and "AO" not in deal.stock
    run = Run(impl, deal)
    run.act(3, "discard JE")
    run.cycles(0, 47)
    run.act(3, "draw")
    run.act(3, "discard AO")
    assert run.view(0)["stock_size"] == 2 and run.view(0)["purro"][0] is True
    run.act(0, "take")
    run.act(0, "win")
    result = run.finished()
    assert result == expected_result(
        0, "discard", "AO", False, False, True, 70, "AC JO", 160, result["hands"]
    )
    assert result["hands"][0] == by_id(PO13)


def test_po14_extra_draws_stop_after_the_third(impl):
    deal = Deal(3, {0: minus(PO13, "AO")}, "4C", head="AC JO AE", opening="AO")
    result = win_by_take(Run(impl, deal), "AO")
    assert result == expected_result(
        0, "discard", "AO", False, True, True, 110, "AC JO AE", 200, final_hands(deal, 0, PO13)
    )


def po17_deal():
    deal = Deal(3, {}, "HB", opening="JE", hold={3: "JB JB JB JB"}, kings_in_hands=True)
    no_kings(deal.stock, 50)
    return deal


def play_po17(run):
    run.act(3, "secret JB")
    run.act(3, "discard JE")
    assert run.view(0)["balances"] == [-50, 0, -50, 100]
    run.cycles(0, 50)


def test_po17_wash_when_the_stock_runs_out(impl):
    deal = po17_deal()
    run = Run(impl, deal, hands_per_match=2)
    play_po17(run)
    v = run.view(2)
    assert v["stock_size"] == 0 and (v["phase"], v["to_play"]) == ("draw", 2)
    assert v["turn"] == 51
    assert run.legal() == ["pass"]  # FL-07: the top discard does not complete seat 2
    run.act(2, "pass")
    v = run.view(0)
    assert v["hand"] == 1 and v["dealer"] == 3  # the same dealer deals again
    assert v["totals"] == [-50, 0, -50, 100]
    assert v["past_hands"] == [
        {"dealer": 3, "winner": None, "source": None, "balances": [-50, 0, -50, 100]}
    ]
    result = v["result"]
    expected = {
        "winner": None,
        "source": None,
        "reason": "empty_stock",
        "card": None,
        "special": False,
        "r1": None,
        "r2": None,
        "bonus": 0,
        "extra_draws": [],
        "payments": [0, 0, 0, 0],
    }
    assert {k: result[k] for k in expected} == expected
    hands = [by_id(h) for h in deal.idle.values()]
    assert result["hands"] == [hands[0], hands[1], hands[2], hands[3]]
    assert run.state.returns() == team([-50, 0, -50, 100])


def test_empty_stock_immediate_wash(impl):
    run = Run(impl, po17_deal(), empty_stock="immediate_wash")
    play_po17(run)
    result = run.finished()
    assert result["reason"] == "empty_stock" and result["winner"] is None
    assert run.view()["balances"] == [-50, 0, -50, 100]


FL07 = split("3O 4O 5O · AO AC AE · 5C 5E 5B · 4E 4E 4E · KO KC KB")


def fl07_deal():
    """Seat 2 waits on 4E only (sowee HB); seat 1 holds the fourth 4E."""
    deal = Deal(3, {2: FL07}, "HB", opening="JE", hold={1: "4E"}, kings_in_hands=True)
    no_kings(deal.stock, 50)
    assert "4E" not in deal.stock
    assert oracle_waits(FL07, "HB") == ["4E"]
    return deal


@pytest.mark.parametrize("take", [True, False])
def test_fl07_empty_stock_take_only_to_win(impl, take):
    run = Run(impl, fl07_deal())
    run.act(3, "discard JE")
    run.cycles(0, 49)
    assert run.view(0)["purro"] == [False, False, True, False]
    run.act(1, "draw")
    run.act(1, "discard 4E")
    assert run.view(2)["stock_size"] == 0
    assert run.legal() == ["take", "pass"]
    if not take:
        run.act(2, "pass")
        assert run.finished()["reason"] == "empty_stock"
        return
    run.act(2, "take")
    # no discard after an empty-stock take: only secrets and the win
    assert run.legal() == ["secret 4E", "win"]
    run.act(2, "secret 4E")
    assert run.legal() == ["win"]
    run.act(2, "win")
    result = run.finished()
    # R1 (3E 5E: no 3E) and R2 (no HB) fail and the stock is empty: 20 + kings 90
    assert (result["winner"], result["source"], result["card"]) == (2, "discard", "4E")
    assert (result["r1"], result["r2"], result["bonus"]) == (False, False, 20)
    assert result["extra_draws"] == [] and result["payments"] == payments(2, 110)
    assert run.view()["balances"] == add(payments(2, 110), secret_paid(2))


# --------------------------------------------------------------------------------------------
# turn cap, washes, natural wins


def test_fl09_turn_cap(impl):
    deal = Deal(3, {}, "HB", opening="JE")
    run = Run(impl, deal, max_turns=3)
    run.act(3, "discard JE")
    run.cycles(0, 2)
    result = run.finished()
    assert result["reason"] == "turn_limit" and result["winner"] is None
    assert result["payments"] == [0, 0, 0, 0] and result["source"] is None
    assert run.view()["turn"] == 3
    assert result["hands"] == [by_id(deal.idle[s]) for s in range(4)]
    assert run.state.returns() == [0, 0, 0, 0]


def test_dead_hand_is_a_wash(impl):
    """A-45: seat 0 holds twelve kings and the three HB (the sowee), draws AO and lays the
    sowee secret with AO as its extra card: nothing is left to discard, no secret and AO cannot
    be melded, so "the only thing legal would be nothing" and the hand ends at once as a wash
    (the secret payment stands)."""
    hand = split("KO KO KO KC KC KC KE KE KE KB KB KB HB HB HB")
    deal = Deal(3, {0: hand}, "HB", head="AO", opening="JB")
    run = Run(impl, deal)
    run.act(3, "discard JB")
    run.act(0, "draw")
    assert run.legal() == ["discard AO", "discard HB"] + [
        f"sowee-secret {c}" for c in split("AO KO KC KE KB")
    ]
    run.act(0, "sowee-secret AO")
    result = run.finished()
    assert (result["winner"], result["reason"], result["payments"]) == (
        None,
        "dead_hand",
        [0, 0, 0, 0],
    )
    assert run.view()["balances"] == secret_paid(0)


def test_dead_hand_lays_its_king_secret_then_ends(impl):
    """Rules 3.3 and A-45: four identical kings in hand are a secret at any own turn, also when
    nothing else is legal: seat 0 (as in the case above, but with four KO) may then only lay the
    secret KO, paid at once, and the hand ends as a wash as soon as nothing is legal."""
    hand = split("KO KO KO KO KC KC KC KE KE KE KB KB HB HB HB")
    deal = Deal(3, {0: hand}, "HB", head="AO", opening="JB")
    run = Run(impl, deal)
    run.act(3, "discard JB")
    run.act(0, "draw")
    run.act(0, "sowee-secret AO")
    assert run.legal() == ["secret KO"]
    run.act(0, "secret KO")
    result = run.finished()
    assert (result["winner"], result["reason"]) == (None, "dead_hand")
    assert run.view()["balances"] == [200, -100, 0, -100]


def test_empty_stock_take_offers_no_secret_that_breaks_the_hand(impl):
    """Rules 3.3 DRAW and FL-07: after taking the last discard from an empty stock no discard
    is legal, only the win "optionally preceded by secret declarations": a secret that would
    leave the hand incomplete is not offered.  With ``undeclared_quad_valid = false`` seat 3's
    3O×4 4O×4 5O×4 AO AC AE KB is complete (four 3-4-5 of coins) and each of its three secrets
    would break it (with quads valid, the default, all three keep it)."""
    seat3 = split("3O 3O 3O 3O 4O 4O 4O 5O 5O 5O 5O AO AC AE KB")  # waits on 4O
    rest = list(FULL_PACK)
    for card in seat3 + ["HB", "4O"]:
        rest.remove(card)
    # The stock: 49 cards nobody keeps (no kings, no AB), then the 4O seat 2 will discard.
    stock = [c for c in rest if not is_king(c) and c != "AB"][:49] + ["4O"]
    for card in stock[:-1]:
        rest.remove(card)
    others = iter(rest)
    order = [s for r in range(3) for s in [1] * 5 + [2] * 5 + [3] * 5 + [0] * (6 if r == 0 else 5)]
    mine = iter(seat3)
    deck = [next(mine) if s == 3 else next(others) for s in order] + ["HB"] + stock + list(others)
    state = impl.load_game("cuajo", first_dealer=0, undeclared_quad_valid=False).new_initial_state(
        0, deck=deck
    )

    def act(text):
        state.apply_action(state.string_to_action(text))

    act(legal_strings(state)[0])  # the dealer's opening discard
    while state.view()["stock_size"] > 0 or state.view()["phase"] != "draw":
        phase, seat = state.view()["phase"], state.current_player()
        if phase == "draw":
            act("draw")
        elif phase in ("drawer_option", "claim"):
            act("pass")
        else:
            act("discard " + state.view(seat)["last_draw"]["card"])
    assert state.current_player() == 3 and legal_strings(state) == ["take", "pass"]
    act("take")
    assert legal_strings(state) == ["win"]


@pytest.mark.parametrize("after_wash, dealer", [("same", 3), ("next", 0)])
def test_dealer_after_wash(impl, after_wash, dealer):
    deal = Deal(3, {}, "HB", opening="JE")
    run = Run(impl, deal, max_turns=1, hands_per_match=2, dealer_after_wash=after_wash)
    run.act(3, "discard JE")
    v = run.view(1)
    assert v["hand"] == 1 and v["dealer"] == dealer
    assert (v["phase"], v["to_play"]) == ("opening", dealer)
    assert run.state.current_player() == dealer
    assert v["result"]["reason"] == "turn_limit"
    assert v["past_hands"] == [
        {"dealer": 3, "winner": None, "source": None, "balances": [0, 0, 0, 0]}
    ]


@pytest.mark.parametrize("natural", [True, False])
def test_dealer_natural_win(impl, natural):
    deal = Deal(3, {3: H1}, "HB")
    run = Run(impl, deal, dealer_natural_win=natural)
    assert run.view(0)["phase"] == "opening"
    expected = discard_strings(H1) + (["win"] if natural else [])
    assert run.legal() == expected
    if natural:
        run.act(3, "win")
        result = run.finished()
        assert (result["winner"], result["source"], result["reason"]) == (3, "natural", "win")
        assert (result["special"], result["r1"], result["r2"]) == (False, None, None)
        assert result["bonus"] == 110 and result["payments"] == payments(3, 150)
        assert result["extra_draws"] == []


# --------------------------------------------------------------------------------------------
# FL-04: claim order, and the hidden drawer-option and claim decisions (rules 8.6)

FL04 = {
    1: split("3O 4O 5O · 3C 4C 5C · 3E 4E 5E · 3B 4B 5B · JO HO KO"),
    2: split("3O 4O 5O · 3C 4C 5C · 3E 4E 5E · JB HB KB · AO AC AE"),
    3: split("3O 4O 5O · 3C 4C 5C · 3E 4E 5E · 3B 4B 5B · JC HC KC"),
}
FL04_HEAD = "JE JB HO HC AO KE JE HE"


def fl04_deal():
    return Deal(0, FL04, "HE", head=FL04_HEAD, opening="JO")


def test_fl04_scenario_data():
    for s, hand in FL04.items():
        w = oracle_waits(hand, "HE")
        assert "KE" in w
        assert not set(split(FL04_HEAD)[:5]) & set(w), s
    after = split(FL04_HEAD)[6:]
    assert oracle_settle(FL04[2] + ["KE"], "KE", "stock", "HE", after)[5] == 150
    assert oracle_settle(FL04[3] + ["KE"], "KE", "claim", "HE", after)[1:] == (
        True,
        True,
        110,
        ["JE", "HE"],
        150,
    )
    assert oracle_settle(FL04[1] + ["KE"], "KE", "claim", "HE", after)[5] == 180


def fl04_run(impl, **config):
    """Dealer 0; seats 1, 2, 3 become purro; seat 2 then draws KE, which completes all three."""
    deal = fl04_deal()
    run = Run(impl, deal, **config)
    run.act(0, "discard JO")
    run.cycles(1, 5)
    assert run.view(0)["purro"] == [False, True, True, True]
    run.act(2, "draw")
    return deal, run


def snapshot(state, seat):
    return (
        state.view(seat),
        state.observation_tensor(seat).tolist(),
        state.observation_string(seat),
    )


def test_fl04_claim_order(impl):
    deal, run = fl04_run(impl)
    st = run.state
    assert st.current_player() == 2
    assert (run.view()["phase"], run.view()["to_play"]) == ("drawer_option", 2)
    assert (run.view(2)["phase"], run.view(2)["to_play"]) == ("drawer_option", 2)
    assert run.legal() == ["win", "pass"]
    run.act(2, "pass")
    assert st.current_player() == 3
    assert (run.view()["phase"], run.view()["to_play"]) == ("claim", 3)
    assert run.legal() == ["claim", "pass"]
    run.act(3, "pass")
    assert st.current_player() == 1  # seat 0 (not purro) is skipped
    assert (run.view()["phase"], run.view()["to_play"]) == ("claim", 1)
    assert run.legal() == ["claim", "pass"]
    run.act(1, "pass")
    assert st.current_player() == 2
    assert (run.view()["phase"], run.view()["to_play"]) == ("action", 2)
    # nobody claimed: the drawer may still win (self-drawn)
    assert "win" in run.legal()
    run.act(2, "win")
    result = run.finished()
    assert (result["winner"], result["source"], result["card"]) == (2, "stock", "KE")
    assert result["payments"] == payments(2, 150)


def test_fl04_drawer_wins_first(impl):
    _, run = fl04_run(impl)
    run.act(2, "win")
    result = run.finished()
    assert (result["winner"], result["source"]) == (2, "stock")
    assert result["payments"] == payments(2, 150) and result["extra_draws"] == []


def test_fl04_next_claimant_claims(impl):
    deal, run = fl04_run(impl)
    run.act(2, "pass")
    run.act(3, "claim")
    result = run.finished()
    assert (result["winner"], result["source"], result["card"]) == (3, "claim", "KE")
    assert (result["r1"], result["r2"], result["extra_draws"]) == (True, True, ["JE", "HE"])
    assert result["payments"] == payments(3, 150)
    assert result["hands"][3] == by_id(FL04[3] + ["KE"])
    assert result["hands"][2] == by_id(FL04[2])  # the card left the drawer's hand


def test_fl04_last_claimant_claims(impl):
    _, run = fl04_run(impl)
    run.act(2, "pass")
    run.act(3, "pass")
    run.act(1, "claim")
    result = run.finished()
    assert (result["winner"], result["source"], result["card"]) == (1, "claim", "KE")
    assert result["payments"] == payments(1, 180)


def test_hidden_decisions_do_not_leak(impl):
    """At the drawer's decision and at each claim, every other seat sees the drawer in his
    action phase, exactly as after the last pass (a pass is seen by nobody else)."""
    _, run = fl04_run(impl)
    st = run.state
    nodes = [st.clone()]
    for seat in (2, 3, 1):
        run.act(seat, "pass")
        nodes.append(st.clone())
    deciders = [2, 3, 1, None]
    final = {s: snapshot(nodes[-1], s) for s in range(4)}
    for node, decider in zip(nodes, deciders):
        for seat in range(4):
            v = node.view(seat)
            if seat == decider:
                assert v["phase"] == ("drawer_option" if seat == 2 else "claim")
                assert v["to_play"] == seat
                continue
            assert (v["phase"], v["to_play"]) == ("action", 2), (decider, seat)
            assert snapshot(node, seat) == final[seat], (decider, seat)
    # seat 0 never decides: its information state is the same throughout
    assert len({n.information_state_string(0) for n in nodes}) == 1
    # the view of the others at the drawer's decision is the one of a drawer who cannot win:
    # nothing but the card (unknown to them) distinguishes the two
    v = nodes[0].view(0)
    assert v["last_draw"] == {"seat": 2, "card": "KE", "shown": True}
    assert v["hand_sizes"] == [15, 15, 16, 15]


def test_no_leak_at_a_single_claim(impl):
    """PO-04's claim node: seats 1, 2, 3 see seat 1 in its action phase, as after a pass."""
    _, run = po04_run(impl)
    at_claim = run.state.clone()
    run.act(0, "pass")
    for seat in (1, 2, 3):
        assert snapshot(at_claim, seat) == snapshot(run.state, seat), seat
        assert at_claim.information_state_string(seat) == run.state.information_state_string(seat)


# --------------------------------------------------------------------------------------------
# FL-05: losing purro by a king; the penalty; FL-06: keeping purro after a king

FL05_HEAD = "HO JO JC HC KC JO JC HC AO JO JC HC 5E 5B HO HO 5B"


def fl05_deal(**kw):
    return Deal(0, {1: HE16}, "JB", head=FL05_HEAD, opening="JE", **kw)


def test_fl05_scenario_data():
    for d in discard_strings(HE16 + ["KC"]):
        assert not oracle_waits(minus(HE16 + ["KC"], d.split()[1]), "JB"), d
    lost = minus(HE16 + ["KC"], "JE")
    assert not oracle_waits(lost, "JB")
    turn_a = minus(lost + ["AO"], "HE")
    assert oracle_waits(turn_a, "JB") == ["5E", "5B"]
    assert oracle_partitionable(turn_a + ["5E"]) and oracle_partitionable(turn_a + ["5B"])
    assert oracle_settle(turn_a + ["5B"], "5B", "stock", "JB", [])[5] == 50 + 20 + 20 + 110


def fl05_to_king(impl, **config):
    """Dealer 0; seat 1 (HE-16) becomes purro, then draws KC (shown)."""
    run = Run(impl, fl05_deal(), **config)
    run.act(0, "discard JE")
    run.cycle(1)
    assert run.view(0)["purro"] == [False, True, False, False]
    assert run.view(0)["marker"] == [None, "KO", None, None]
    run.cycles(2, 3)
    run.act(1, "draw")
    assert run.view(3)["last_draw"] == {"seat": 1, "card": "KC", "shown": True}
    return run


def test_fl05_every_discard_loses_purro(impl):
    run = fl05_to_king(impl)
    legal = run.legal()
    assert legal == discard_strings(HE16)
    assert len(legal) == 12
    for action in legal:
        st = run.state.clone()
        st.apply_action(st.string_to_action(action))
        v = st.view(2)
        assert v["purro"][1] is False, action
        assert v["marker"][1] is None, action
        assert v["penalty"][1] == 2, action
        assert v["concealed"][2] is not None and v["concealed"][1] is None


def test_fl05_penalty_turns(impl):
    run = fl05_to_king(impl)
    run.act(1, "discard JE")
    assert run.view(0)["penalty"] == [0, 2, 0, 0]
    assert run.view(1)["concealed"][1] == by_id(minus(HE16 + ["KC"], "JE"))
    # nobody is purro now: the others' draws are not shown
    run.act(2, "draw")
    assert run.view(3)["last_draw"] == {"seat": 2, "card": None, "shown": False}
    assert run.view(2)["last_draw"] == {"seat": 2, "card": "JO", "shown": False}
    run.act(2, "discard JO")
    run.cycles(3, 2)
    # turn A of the penalty: the draw is shown; the hand becomes one card away, not purro
    run.act(1, "draw")
    assert run.view(0)["last_draw"] == {"seat": 1, "card": "AO", "shown": True}
    assert "win" not in run.legal()
    run.act(1, "discard HE")
    v = run.view(0)
    assert v["purro"][1] is False and v["penalty"][1] == 1 and v["marker"][1] is None
    run.cycles(2, 3)
    # turn B: the draw completes the hand, but no win during the penalty
    run.act(1, "draw")
    assert run.view(2)["last_draw"] == {"seat": 1, "card": "5E", "shown": True}
    assert "win" not in run.legal()
    assert run.legal() == discard_strings(run.view(1)["concealed"][1])
    run.act(1, "discard 5E")
    v = run.view(0)
    assert v["purro"][1] is False and v["penalty"][1] == 0  # not called at this discard
    # seat 2 draws a card that completes seat 1: no claim (seat 1 is not purro), not shown
    run.act(2, "draw")
    assert run.state.current_player() == 2 and run.view()["phase"] == "action"
    assert run.view(1)["last_draw"] == {"seat": 2, "card": None, "shown": False}
    assert run.view(2)["last_draw"] == {"seat": 2, "card": "5B", "shown": False}
    run.act(2, "discard 5B")
    run.cycles(3, 2)
    # turn C: back to normal; the draw is not shown and the win is allowed again
    run.act(1, "draw")
    assert run.view(0)["last_draw"] == {"seat": 1, "card": None, "shown": False}
    assert "win" in run.legal()
    at_c = run.state.clone()
    run.act(1, "win")
    result = run.finished()
    assert (result["winner"], result["source"], result["card"]) == (1, "stock", "5B")
    assert result["payments"] == payments(1, 200)
    # or it discards: purro is evaluated again at the discard of its third turn
    at_c.apply_action(at_c.string_to_action("discard 5B"))
    v = at_c.view(0)
    assert v["purro"][1] is True and v["marker"][1] == "KO" and v["penalty"][1] == 0


def test_purro_loss_penalty_turns_one(impl):
    run = fl05_to_king(impl, purro_loss_penalty_turns=1)
    run.act(1, "discard JE")
    assert run.view(0)["penalty"][1] == 1
    run.cycles(2, 3)
    run.act(1, "draw")
    assert run.view(0)["last_draw"] == {"seat": 1, "card": "AO", "shown": True}
    run.act(1, "discard HE")
    assert run.view(0)["purro"][1] is False and run.view(0)["penalty"][1] == 0
    run.cycles(2, 3)
    run.act(1, "draw")
    assert run.view(0)["last_draw"] == {"seat": 1, "card": None, "shown": False}
    assert "win" in run.legal()


def test_purro_loss_penalty_turns_zero(impl):
    run = fl05_to_king(impl, purro_loss_penalty_turns=0)
    run.act(1, "discard JE")
    v = run.view(0)
    assert v["purro"][1] is False and v["penalty"][1] == 0 and v["marker"][1] is None
    run.cycles(2, 3)
    run.act(1, "draw")
    assert run.view(0)["last_draw"] == {"seat": 1, "card": None, "shown": False}
    run.act(1, "discard HE")
    assert run.view(0)["purro"][1] is True  # called again at once


FL05B_SEAT3 = split("3O 4O 5O · JC HC KC · 5C 5E 5B · 3C 3E 3B · AC AE · KB")  # waits AO AB


@pytest.mark.parametrize("claimable", [True, False])
def test_penalty_draws_claimable(impl, claimable):
    """FL-05 with seat 3 purro (waiting on AO): seat 1, penalised, draws AO (shown)."""
    assert oracle_waits(FL05B_SEAT3, "JB") == ["AO", "AB"]
    head = "HO JO JE HO KC JO JE HO AO"
    deal = Deal(0, {1: HE16, 3: FL05B_SEAT3}, "JB", head=head, opening="JE")
    run = Run(impl, deal, penalty_draws_claimable=claimable)
    run.act(0, "discard JE")
    run.cycles(1, 4)
    assert run.view(0)["purro"] == [False, True, False, True]
    run.act(1, "draw")
    run.act(1, "discard JE")
    assert run.view(0)["penalty"][1] == 2
    run.cycles(2, 3)
    run.act(1, "draw")
    assert run.view(0)["last_draw"] == {"seat": 1, "card": "AO", "shown": True}
    if claimable:
        assert run.state.current_player() == 3
        assert run.legal() == ["claim", "pass"]
        run.act(3, "claim")
        result = run.finished()
        assert (result["winner"], result["source"], result["card"]) == (3, "claim", "AO")
    else:
        assert run.state.current_player() == 1
        assert run.view()["phase"] == "action"


FL06 = split("AO AC AE AB · JO JC · 3O 4O 5O · 3C 3E 3B · KB KE KC")  # waits JE JB


@pytest.mark.parametrize(
    "discard, kept, claims_ho",
    [("AO", True, False), ("AB", True, False), ("JC", True, True), ("JO", True, False)]
    + [(c, False, False) for c in split("3O 4O 5O 3C 3E 3B")],
)
def test_fl06_keeping_purro_after_a_king(impl, discard, kept, claims_ho):
    deal = Deal(0, {1: FL06}, "5E", head="HO JO HE HC KO HO", opening="JE")
    assert oracle_waits(FL06, "5E") == ["JE", "JB"]
    waits = oracle_waits(minus(FL06 + ["KO"], discard), "5E")
    assert bool(waits) is kept and ("HO" in waits) is claims_ho
    run = Run(impl, deal)
    run.act(0, "discard JE")
    run.cycle(1)
    assert run.view(0)["marker"][1] == "KC"
    run.cycles(2, 3)
    run.act(1, "draw")
    assert "win" not in run.legal()
    assert run.legal() == discard_strings(FL06)
    run.act(1, f"discard {discard}")
    v = run.view(0)
    assert v["purro"][1] is kept
    assert v["marker"][1] == ("KC" if kept else None)
    assert v["penalty"][1] == (0 if kept else 2)
    run.act(2, "draw")  # HO: a wait only after discarding JC (J-H-K of coins)
    assert run.state.current_player() == (1 if claims_ho else 2)


# --------------------------------------------------------------------------------------------
# purro_call = "optional"


def test_purro_call_optional_accept_and_claim(impl):
    deal = h1_deal("4O", "HB", head="HE 4O HB JB", opening="JE")
    run = Run(impl, deal, purro_call="optional")
    run.act(3, "discard JE")
    v = run.view(1)
    assert (v["phase"], v["to_play"]) == ("purro_call", 3)
    assert run.legal() == ["no-purro"]  # the decision exists even without waits
    run.act(3, "no-purro")
    run.act(0, "draw")
    run.act(0, "discard HE")
    assert (run.view(2)["phase"], run.view(2)["to_play"]) == ("purro_call", 0)
    assert run.legal() == ["purro", "no-purro"]
    assert [run.state.string_to_action(a) for a in run.legal()] == [93, 94]
    run.act(0, "purro")
    v = run.view(2)
    assert v["purro"][0] is True and v["marker"][0] == "KC"
    assert (v["phase"], v["to_play"]) == ("draw", 1)
    run.act(1, "draw")
    assert run.legal() == ["claim", "pass"] and run.state.current_player() == 0
    run.act(0, "claim")
    result = run.finished()
    assert (result["winner"], result["source"], result["card"]) == (0, "claim", "4O")
    assert (result["r1"], result["r2"], result["extra_draws"]) == (True, True, ["HB", "JB"])
    assert result["payments"] == payments(0, 150)


def test_purro_call_optional_decline(impl):
    """A player who declines cannot claim, but can still win by drawing."""
    deal = h1_deal("4O", "HB", head="HE 4O HO HO 4O", opening="JE")
    run = Run(impl, deal, purro_call="optional")
    run.act(3, "discard JE")
    run.act(3, "no-purro")
    run.act(0, "draw")
    run.act(0, "discard HE")
    run.act(0, "no-purro")
    assert run.view(1)["purro"] == [False] * 4
    run.act(1, "draw")  # 4O, which would complete seat 0: not shown, no claim
    assert run.state.current_player() == 1 and run.view()["phase"] == "action"
    assert run.view(0)["last_draw"] == {"seat": 1, "card": None, "shown": False}
    run.act(1, "discard 4O")
    assert run.legal() == ["no-purro"]
    run.act(1, "no-purro")
    for seat in (2, 3):
        run.cycle(seat)
        run.act(seat, "no-purro")
    run.act(0, "draw")
    assert "win" in run.legal()
    run.act(0, "win")
    result = run.finished()
    assert (result["winner"], result["source"]) == (0, "stock")
    assert result["payments"] == payments(0, 150)


# --------------------------------------------------------------------------------------------
# the deal, the first dealer and the seeded shuffle (docs/engine.md), FL-01, FL-02

MASK64 = (1 << 64) - 1


class SplitMix64:
    def __init__(self, seed):
        self.state = seed

    def next(self):
        self.state = (self.state + 0x9E3779B97F4A7C15) & MASK64
        z = self.state
        z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & MASK64
        z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & MASK64
        return z ^ (z >> 31)

    def below(self, n):
        while True:
            m = self.next() * n
            if m & MASK64 >= ((1 << 64) - n) % n:
                return m >> 64

    def shuffle(self, items):
        for i in range(len(items) - 1, 0, -1):
            j = self.below(i + 1)
            items[i], items[j] = items[j], items[i]


def test_splitmix_matches_the_shared_vectors():
    import json
    from pathlib import Path

    vectors = json.loads((Path(__file__).parent / "data" / "rng_vectors.json").read_text())
    for case in vectors["next_u64"]:
        rng = SplitMix64(int(case["seed"]))
        assert [rng.next() for _ in case["outputs"]] == [int(x) for x in case["outputs"]]
    for case in vectors["shuffle52"]:
        rng = SplitMix64(int(case["seed"]))
        deck = list(range(52))
        rng.shuffle(deck)
        assert deck == case["deck"]


def dealt(deck, dealer):
    hands = [[] for _ in range(4)]
    for card, seat in zip(deck, deal_seats(dealer)):
        hands[seat].append(card)
    return [by_id(h) for h in hands]


def check_deal(state, deck, dealer):
    v = state.view()
    assert v["dealer"] == dealer and v["hand"] == 0
    assert v["concealed"] == dealt(deck, dealer)
    assert v["sowee"] == deck[61]
    assert v["stock_size"] == 50
    assert v["hand_sizes"] == [16 if s == dealer else 15 for s in range(4)]
    assert (v["phase"], v["to_play"]) == ("opening", dealer)
    assert state.current_player() == dealer
    assert v["discards"] == [] and v["top_discard"] is None and v["last_draw"] is None
    assert v["purro"] == [False] * 4 and v["penalty"] == [0] * 4 and v["marker"] == [None] * 4
    assert v["balances"] == [0] * 4 and v["turn"] == 0 and v["result"] is None


def test_deal_positions():
    seats = deal_seats(3)
    assert seats[:21] == [0] * 5 + [1] * 5 + [2] * 5 + [3] * 6
    assert seats[21:41] == [0] * 5 + [1] * 5 + [2] * 5 + [3] * 5
    assert seats[41:] == seats[21:41]
    assert deal_seats(1)[:21] == [2] * 5 + [3] * 5 + [0] * 5 + [1] * 6


@pytest.mark.parametrize("dealer", range(4))
def test_deal_order_from_a_deck(impl, dealer):
    deck = list(FULL_PACK)
    SplitMix64(100 + dealer).shuffle(deck)
    game = impl.load_game("cuajo", first_dealer=dealer)
    state = game.new_initial_state(5, deck=deck)
    check_deal(state, deck, dealer)
    for seat in range(4):
        v = state.view(seat)
        assert v["viewer"] == seat
        assert v["concealed"] == [dealt(deck, dealer)[s] if s == seat else None for s in range(4)]
    # the dealer discards; the first player draws position 62
    discard = legal_strings(state)[0]
    assert discard.startswith("discard ")
    state.apply_action(state.string_to_action(discard))
    p1 = (dealer + 1) % 4
    assert state.current_player() == p1
    state.apply_action(state.string_to_action("draw"))
    assert state.view(p1)["last_draw"]["card"] == deck[62]
    assert state.view()["stock_size"] == 49


@pytest.mark.parametrize("seed", [0, 1, 42, 2024])
def test_seeded_deal_and_first_dealer(impl, seed):
    """docs/engine.md: ``below(4)`` picks a random first dealer, then the sorted pack is
    shuffled; with a fixed first dealer nothing is drawn before the shuffle."""
    rng = SplitMix64(seed)
    dealer = rng.below(4)
    deck = list(FULL_PACK)
    rng.shuffle(deck)
    check_deal(impl.load_game("cuajo").new_initial_state(seed), deck, dealer)
    rng = SplitMix64(seed)
    deck = list(FULL_PACK)
    rng.shuffle(deck)
    check_deal(impl.load_game("cuajo", first_dealer=2).new_initial_state(seed), deck, 2)
    # a given deck replaces the shuffle only; the first dealer still comes from the seed
    given = list(reversed(FULL_PACK))
    check_deal(impl.load_game("cuajo").new_initial_state(seed, deck=given), given, dealer)


def test_fl01_start(impl):
    state = impl.load_game("cuajo", first_dealer=0).new_initial_state(7)
    v = state.view()
    hand = v["concealed"][0]
    assert legal_strings(state)[: len(discard_strings(hand))] == discard_strings(hand)
    first = discard_strings(hand)[0]
    state.apply_action(state.string_to_action(first))
    v = state.view(2)
    assert state.current_player() == 1
    assert (v["phase"], v["to_play"]) == ("draw", 1)
    assert legal_strings(state) == ["draw", "take"]
    assert v["stock_size"] == 50
    assert v["discards"] == [{"seat": 0, "card": first.split()[1], "taken_by": None}]
    assert v["top_discard"] == first.split()[1]
    assert v["hand_sizes"] == [15] * 4 and v["turn"] == 1


def test_fl02_kings_are_never_discarded(impl):
    """FL-02: the dealer's 16 cards hold KO KC KB (PO-12 less AB plus JB): no king discard."""
    hand = minus(PO12, "AB") + ["JB"]
    deal = Deal(3, {3: hand}, "4C")
    run = Run(impl, deal)
    assert run.legal() == discard_strings(hand)
    assert not any(is_king(a.split()[1]) for a in run.legal())
    # and a player after taking: PO-12 less AB takes the dealer's AB
    deal = Deal(3, {0: minus(PO12, "AB")}, "4C", opening="AB")
    run = Run(impl, deal)
    run.act(3, "discard AB")
    run.act(0, "take")
    assert run.legal() == discard_strings(PO12) + ["win"]
    run.act(0, "win")
    result = run.finished()
    assert (result["r1"], result["r2"], result["bonus"]) == (True, True, 110)
    assert result["payments"] == payments(0, 200)  # PO-12


# --------------------------------------------------------------------------------------------
# the interface: constants, configuration, action strings, errors

DEFAULT_CONFIG = {
    "explicit_chance": False,  # docs/engine.md, "Explicit chance nodes"
    "first_dealer": "random",
    "dealer_after_wash": "same",
    "dealer_natural_win": True,
    "empty_stock": "last_discard_then_wash",
    "max_turns": 300,
    "may_rediscard_taken_card": True,
    "undeclared_quad_valid": True,
    "sowee_triple_undeclared_valid": False,
    "secret_payment": 50,
    "secret_on_winning_turn": True,
    "secret_kind_public": False,
    "purro_call": "forced",
    "purro_marker": "lowest_type",
    "dead_waits_count": True,
    "purro_loss_penalty_turns": 2,
    "penalty_draws_claimable": True,
    "claim_priority": "drawer_then_turn_order",
    "king_basis": "winner",
    "king_coins": 50,
    "king_other": 20,
    "special_hand": 300,
    "special_flat": True,
    "bonus_full": 110,
    "bonus_r1": 60,
    "bonus_r2": 70,
    "bonus_none": 20,
    "bonus_mode": "table",
    "r2_needs_sowee_copy": True,
    "extra_draw": 15,
    "returns": "team",
    "hands_per_match": 1,
}


def test_game_constants_and_config(impl):
    game = impl.load_game("cuajo")
    assert game.name == "cuajo"
    assert game.num_players() == 4
    assert game.num_distinct_actions() == 95
    assert tuple(game.observation_tensor_shape()) == (1443,)
    assert game.max_game_length() == 12 * 300 + 12
    assert game.config() == DEFAULT_CONFIG
    game = impl.load_game("cuajo", hands_per_match=3, max_turns=10)
    assert game.max_game_length() == 3 * (12 * 10 + 12)
    changed = {
        "first_dealer": 2,
        "dealer_after_wash": "next",
        "claim_priority": "drawer_then_turn_order",
        "purro_call": "optional",
        "bonus_mode": "additive",
        "returns": "individual",
    }
    assert impl.load_game("cuajo", **changed).config() == dict(DEFAULT_CONFIG, **changed)


@pytest.mark.parametrize(
    "config",
    [
        {"nonsense": 1},
        {"first_dealer": 4},
        {"max_turns": 0},
        {"max_turns": 10001},
        {"extra_draw": 51},
        {"purro_call": "sometimes"},
        {"purro_marker": "random"},
        {"king_basis": "partner"},
        {"bonus_mode": "sum"},
        {"returns": "teams"},
        {"claim_priority": "turn_order"},
        {"empty_stock": "never"},
        {"dealer_after_wash": "previous"},
        {"hands_per_match": 0},
        {"secret_payment": -1},
        {"special_flat": "yes"},
        {"purro_loss_penalty_turns": 101},
    ],
)
def test_bad_config(impl, config):
    with pytest.raises(tapete.ConfigError):
        impl.load_game("cuajo", **config)


def test_bad_decks(impl):
    game = impl.load_game("cuajo", first_dealer=0)
    for deck in (FULL_PACK[:-1], FULL_PACK + ["AO"], ["AO"] * 5 + FULL_PACK[5:]):
        with pytest.raises(tapete.ConfigError):
            game.new_initial_state(1, deck=deck)
    # card strings are case-insensitive and accept 1 10 11 12
    aliases = {"A": "1", "J": "10", "H": "11", "K": "12"}
    spelled = [aliases.get(c[0], c[0]) + c[1].lower() for c in FULL_PACK]
    state = game.new_initial_state(1, deck=spelled)
    check_deal(state, FULL_PACK, 0)


ACTION_IDS = (
    [(f"discard {c}", i) for i, c in enumerate(PACK)]
    + [(f"secret {c}", 28 + i) for i, c in enumerate(PACK)]
    + [(f"sowee-secret {c}", 56 + i) for i, c in enumerate(PACK)]
    + [("draw", 84), ("take", 85), ("win", 86), ("claim", 87), ("pass", 88)]
    + [(f"marker {k}", 89 + i) for i, k in enumerate(KINGS)]
    + [("purro", 93), ("no-purro", 94)]
)


def test_action_ids(impl):
    state = impl.load_game("cuajo", first_dealer=0).new_initial_state(3)
    assert len(ACTION_IDS) == 95
    for text, action in ACTION_IDS:
        assert state.string_to_action(text) == action, text
        assert state.action_to_string(action) == text
    for bad in ("discard", "discard XX", "discard 2O", "hello", "", "secret", "marker AO"):
        with pytest.raises(tapete.ParseError):
            state.string_to_action(bad)


def test_illegal_actions_leave_the_state_unchanged(impl):
    deal = h1_deal("4O", "HB", head="4O")
    run = Run(impl, deal)
    before = run.state.serialize()
    for action in (84, 86, 87, 6, 95, -1):  # draw, win, claim, discard KO, out of range
        with pytest.raises(tapete.IllegalActionError):
            run.state.apply_action(action)
    assert run.state.serialize() == before
    run.act(3, "discard JB")
    run.act(0, "draw")
    run.act(0, "win")
    with pytest.raises(tapete.IllegalActionError):
        run.state.apply_action(84)


def test_view_is_json_ready_and_hides_hands(impl):
    import json

    _, run = po04_run(impl)
    for seat in (None, 0, 1, 2, 3):
        v = run.view(seat)
        json.dumps(v)
        assert set(v) == {
            "game",
            "viewer",
            "hand",
            "dealer",
            "phase",
            "to_play",
            "sowee",
            "stock_size",
            "discards",
            "top_discard",
            "concealed",
            "secrets",
            "known",
            "hand_sizes",
            "purro",
            "marker",
            "penalty",
            "last_draw",
            "turn",
            "balances",
            "totals",
            "result",
            "past_hands",
        }
        assert v["game"] == "cuajo" and v["viewer"] == seat
    assert all(h is not None for h in run.view()["concealed"])
    assert isinstance(run.state.observation_tensor(0), np.ndarray)


def test_fl07_no_secret_after_an_empty_stock_take_without_secret_on_winning_turn(impl):
    """After the empty-stock take the turn must end in a win ("only DECLARE_WIN, optionally
    preceded by secret declarations"); with ``secret_on_winning_turn = false`` a secret would
    forbid it, so none is offered."""
    run = Run(impl, fl07_deal(), secret_on_winning_turn=False)
    run.act(3, "discard JE")
    run.cycles(0, 49)
    run.act(1, "draw")
    run.act(1, "discard 4E")
    run.act(2, "take")
    assert run.legal() == ["win"]
