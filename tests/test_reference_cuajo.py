"""Tests of the pure-Python Cuajo reference model alone (tapete.reference.cuajo).

Covers the recursive hand evaluator on the cases of rules §7.1, §7.2 and §7.4, the final payment
on the cases of §7.5, the deal and the RNG order, the configuration and deck errors, the action
strings, the turn-structure cases of §7.6 on prepared decks (forced purro, claims and their
hidden decisions, losing purro, secrets, first-turn and natural wins, the turn cap, the empty
stock), and whole games (random and greedy players, several options) checking invariants:
zero-sum returns, 15 cards per seat between turns, sorted legal actions, the exact view keys,
serialization, and resampling.

Prepared decks are built with ``build_deck``: the hands of the seats that matter, the sowee and
the top of the stock are given; every other card fills the remaining places in a fixed order.
"""

from __future__ import annotations

import json
import pickle
import random
from collections import Counter
from typing import Any

import numpy as np
import pytest

from tapete.errors import ConfigError, IllegalActionError, ParseError
from tapete.reference import TERMINAL, list_games, load_game
from tapete.reference.cards import CUAJO
from tapete.reference.cuajo import (
    CLAIM,
    DRAW,
    NO_PURRO,
    OBSERVATION_SIZE,
    PASS,
    PURRO,
    SECRET_BASE,
    SOWEE_BASE,
    TAKE,
    WIN,
    CuajoState,
    _blocks,
    _waits_of,
    arrangement,
    deal_seat,
    is_complete,
    partitionable,
    settle,
    special_hand,
    waits,
)
from tapete.reference.rng import SplitMix64

VIEW_KEYS = [
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
]
RESULT_KEYS = {
    "winner",
    "source",
    "reason",
    "card",
    "special",
    "r1",
    "r2",
    "bonus",
    "extra_draws",
    "payments",
    "hands",
}

# ----------------------------------------------------------------------------------------------
# helpers
# ----------------------------------------------------------------------------------------------


def ids(text: str) -> list[int]:
    return CUAJO.parse_many(text.replace("·", " ").split())


def counts(text: str) -> list[int]:
    out = [0] * 28
    for c in ids(text):
        out[c] += 1
    return out


def cid(text: str) -> int:
    return CUAJO.parse(text)


def act(state: CuajoState, text: str) -> None:
    state.apply_action(state.string_to_action(text))


def build_deck(dealer: int, hands: dict[int, str], sowee: str, stock: str = "") -> list[str]:
    """A deck dealing ``hands`` (seat -> cards; 16 for the dealer, 15 for the others), the
    ``sowee`` and the top of the stock ``stock`` (top first); the other cards fill the rest."""
    left = Counter({t: 4 for t in range(28)})
    wanted = {q: ids(text) for q, text in hands.items()}
    for cards in [*wanted.values(), ids(sowee), ids(stock)]:
        left.subtract(cards)
    assert min(left.values()) >= 0, "more than four copies of a card"
    rest = sorted(left.elements())
    random.Random(0).shuffle(rest)
    for q in range(4):
        if q not in wanted:
            size = 16 if q == dealer else 15
            wanted[q], rest = rest[:size], rest[size:]
        assert len(wanted[q]) == (16 if q == dealer else 15), q
    deck: list[int] = []
    taken = [0] * 4
    for i in range(61):
        q = deal_seat(dealer, i)
        deck.append(wanted[q][taken[q]])
        taken[q] += 1
    deck += ids(sowee) + ids(stock) + rest
    assert len(deck) == 112
    return CUAJO.format_many(deck)


def new_state(deck: list[str], dealer: int = 0, **config: Any) -> CuajoState:
    state: CuajoState = load_game("cuajo", first_dealer=dealer, **config).new_initial_state(
        seed=1, deck=deck
    )
    return state


def greedy(state: CuajoState, rng: random.Random) -> int:
    """A player that wins when it can and otherwise keeps cards that go together."""
    legal = state.legal_actions()
    for a in (WIN, CLAIM):
        if a in legal and rng.random() < 0.9:
            return a
    h = state._hand
    c = h.to_play
    discards = [a for a in legal if a < 28]
    if h.phase in ("opening", "action") and discards:
        secrets = [a for a in legal if SECRET_BASE <= a < DRAW]
        if secrets and rng.random() < 0.5:
            return rng.choice(secrets)
        pool, committed = state._pool(c), state._committed(c)

        def score(t: int) -> tuple[int, float, float]:
            rest = list(pool)
            rest[t] -= 1
            n = len(_waits_of(rest, committed, h.sowee, True, -1, None))
            s, r = divmod(t, 7)
            near = sum(1 for q in range(4) if q != s and pool[7 * q + r] > 0)
            group = (1, 2, 3) if r in (1, 2, 3) else (4, 5, 6) if r >= 4 else ()
            near += sum(1 for g in group if g != r and pool[7 * s + g] > 0)
            return n, -near + 0.5 * (pool[t] >= 2), rng.random()

        return max(discards, key=score)
    if h.phase == "draw" and TAKE in legal:
        top = state._top_discard()
        assert top is not None
        if state._completed_by(c, top) or DRAW not in legal:
            return TAKE if rng.random() < 0.9 or DRAW not in legal else DRAW
        return rng.choice([DRAW, DRAW, TAKE])
    return rng.choice(legal)


def random_play(state: CuajoState, rng: random.Random, steps: int | None = None) -> None:
    done = 0
    while not state.is_terminal() and (steps is None or done < steps):
        state.apply_action(rng.choice(state.legal_actions()))
        done += 1


# ----------------------------------------------------------------------------------------------
# registry, configuration, decks
# ----------------------------------------------------------------------------------------------


def test_registry_and_game_properties() -> None:
    assert "cuajo" in list_games()
    game = load_game("cuajo")
    assert game.name == "cuajo"
    assert game.num_players() == 4
    assert game.num_distinct_actions() == 95
    assert game.observation_tensor_shape() == (OBSERVATION_SIZE,) == (1443,)
    assert game.max_game_length() == 1 * (12 * 300 + 12)
    assert load_game("cuajo", hands_per_match=3, max_turns=10).max_game_length() == 3 * 132
    cfg = game.config()
    assert cfg["first_dealer"] == "random" and cfg["max_turns"] == 300
    assert cfg["king_coins"] == 50 and cfg["bonus_r2"] == 70 and cfg["hands_per_match"] == 1
    assert len(cfg) == 32 and cfg["explicit_chance"] is False  # 31 rules options and the mode
    assert load_game("cuajo", returns="individual") != game
    assert load_game("cuajo") == game


@pytest.mark.parametrize(
    "config",
    [
        {"players": 4},
        {"no_such_key": 1},
        {"first_dealer": 4},
        {"first_dealer": -1},
        {"first_dealer": "left"},
        {"first_dealer": True},
        {"dealer_after_wash": "previous"},
        {"dealer_natural_win": 1},
        {"dealer_natural_win": "true"},
        {"empty_stock": "wash"},
        {"max_turns": 0},
        {"max_turns": 10001},
        {"max_turns": 3.0},
        {"max_turns": "300"},
        {"secret_payment": -1},
        {"secret_payment": 100001},
        {"purro_call": "never"},
        {"purro_marker": "highest"},
        {"purro_loss_penalty_turns": 101},
        {"claim_priority": "turn_order"},
        {"king_basis": "both"},
        {"king_coins": None},
        {"special_hand": True},
        {"bonus_none": -5},
        {"bonus_mode": "mixed"},
        {"extra_draw": 51},
        {"returns": "cents"},
        {"hands_per_match": 0},
        {"hands_per_match": 1001},
        {"undeclared_quad_valid": None},
    ],
)
def test_bad_configs(config: dict[str, Any]) -> None:
    with pytest.raises(ConfigError):
        load_game("cuajo", **config)


def test_good_configs_keep_values() -> None:
    config = {
        "first_dealer": 2,
        "dealer_after_wash": "next",
        "empty_stock": "immediate_wash",
        "max_turns": 10000,
        "secret_payment": 0,
        "purro_call": "optional",
        "purro_marker": "player_choice",
        "extra_draw": 0,
        "returns": "individual",
        "hands_per_match": 1000,
        "bonus_mode": "additive",
    }
    cfg = load_game("cuajo", **config).config()
    for key, value in config.items():
        assert cfg[key] == value


def test_deck_errors() -> None:
    game = load_game("cuajo", first_dealer=0)
    pack = CUAJO.format_many(CUAJO.full_pack())
    assert len(pack) == 112
    game.new_initial_state(seed=0, deck=pack)
    game.new_initial_state(seed=0, deck=[c.lower() for c in pack])
    game.new_initial_state(seed=0, decks=[pack, pack])
    bad = [
        pack[:-1],
        pack + ["AO"],
        pack[:-1] + ["AO"],  # five aces of coins
        ["ZZ"] + pack[1:],
        "AO",
        None if False else 5,
        [CUAJO.format_many(range(28))],
    ]
    for deck in bad:
        with pytest.raises(ConfigError):
            game.new_initial_state(seed=0, deck=deck)  # type: ignore[arg-type]
    with pytest.raises(ConfigError):
        game.new_initial_state(seed=0, deck=pack, decks=[pack])
    with pytest.raises(ConfigError):
        game.new_initial_state(seed=-1)
    with pytest.raises(ConfigError):
        game.new_initial_state(seed=2**64)


# ----------------------------------------------------------------------------------------------
# hand evaluation (rules §7.1, §7.2, §7.3, §7.4)
# ----------------------------------------------------------------------------------------------

COMPLETE_CASES = {
    "HE-01": ("3O 4O 5O · JC HC KC · AO AC AE · 5C 5E 5B · 3C 3E 3B · KB", True),
    "HE-02": ("3O 4O 5O · JC HC KC · AO AC AE · 5C 5E 5B · 3C 3E 3B · 4B", False),
    "HE-03": ("3O 4O 5O · JC HC KC · AO AC AE · 5C 5E 5B · 4E 4E 4E · KB", False),
    "HE-04": ("3O 4O 5O · JC HC KC · AO AC AE · 5C 5E 5B · 4E 4E 4E 4E", True),
    "HE-08": ("KO KO KC KE KB KB KE · JO HO · 3C 4C 5C · AO AC AE AB", True),
}


@pytest.mark.parametrize("case", sorted(COMPLETE_CASES))
def test_completeness_cases(case: str) -> None:
    cards, expected = COMPLETE_CASES[case]
    assert partitionable(counts(cards)) is expected
    assert is_complete(cards.replace("·", " ").split()) is expected
    groups = arrangement(cards.replace("·", " ").split())
    assert (groups is not None) is expected
    if groups is not None:
        assert sorted(c for g in groups for c in g) == sorted(cards.replace("·", " ").split())


def test_completeness_with_secrets() -> None:
    # HE-05: the 12 cards outside a declared normal secret.
    assert partitionable(counts("3O 4O 5O · JC HC KC · AO AC AE · 5C 5E 5B"))
    # HE-06 / HE-07: pools with the sowee-secret extra card JE (sowee HE, three HE committed).
    assert partitionable(counts("JE JO JC · 3O 4O 5O · AO AC AE · 5C 5E 5B · KB"))
    assert not partitionable(counts("JE JO 4O · 3O 4O 5O · AO AC AE · 5C 5E 5B · KB"))


def test_single_groups() -> None:
    # HE-09: groups as stand-alone multisets.
    groups = ["AO 3O 4O", "4O 5O JO", "3O 4C 5E", "5O 5O 5C", "AO", "KC KC", "JE HE KE", "3B 4B 5B"]
    expected = [False, False, False, False, False, True, True, True]
    assert [partitionable(counts(g)) for g in groups] == expected


def test_quad_and_sowee_triple_options() -> None:
    quad = counts("3O 4O 5O · JC HC KC · AO AC AE · 5C 5E 5B · 4E 4E 4E 4E")
    assert partitionable(quad, quad_ok=True)
    assert not partitionable(quad, quad_ok=False)
    assert partitionable(counts("KO KO KO KO"), quad_ok=False)  # kings stand alone
    triple = counts("3O 4O 5O · JC HC KC · AO AC AE · 5C 5E 5B · 4E 4E 4E · KB")
    assert not partitionable(triple)
    assert partitionable(triple, triple=cid("4E"))
    assert not partitionable(triple, triple=cid("4O"))


def test_sets_table_facts() -> None:
    # Rules §4.3: one rank with per-suit counts 0..4; 143 of 625 patterns split; the 13 listed
    # facts.  Into sets alone (no quads) 125 split, by enumerating the sums of 3- and 4-suit
    # sets (docs/rules/cuajo.md says 94, which matches no reading found).
    def ok(pattern: tuple[int, ...], quads: bool = True) -> bool:
        c = [0] * 28
        for s, n in enumerate(pattern):
            c[7 * s + 2] = n  # fours
        return partitionable(c, quad_ok=quads)

    patterns = [
        (a, b, c, d) for a in range(5) for b in range(5) for c in range(5) for d in range(5)
    ]
    assert sum(ok(p) for p in patterns) == 143
    assert sum(ok(p, quads=False) for p in patterns) == 125
    facts = {
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
    for pattern, expected in facts.items():
        assert ok(pattern) is expected, pattern


WAIT_CASES = {
    "HE-10": (
        "3O 4O 5O · JC HC KC · AO AC AE · 5C 5E 5B · 3C 3E 3B",
        "",
        "HB",
        "3O 5O KO KC KE AB KB",
    ),
    "HE-11": ("3O 4O 5O · JC HC KC · 5C 5E 5B · 3C 3E 3B · AO AC · KB", "", "HB", "AE AB"),
    "HE-12": ("3O 4O 5O · JC HC KC · AO AC AE · 5C 5E 5B · 4E 4E 4E", "", "HB", "4E"),
    "HE-13": ("3O 4O 5O · JC HC KC · AO AC AE · 5C 5E 5B · 4E 4E 4E", "", "4E", ""),
    "HE-14": ("JE JO · 3O 4O 5O · AO AC AE · 5C 5E 5B · KB", "HE HE HE", "HE", "JC JB"),
    "HE-15": ("JO JO HO HO KO · 3C 4C 5C · AO AC AE · 5O 5E 5B · KB", "", "AB", "KO"),
    "HE-16": ("3O 4O 5O 5O 5C · JE HE KE · AB AC AE · 3B 4B 5B · KO", "", "JB", "5E 5B"),
    "HE-17": ("3O 4O 5O 3O 4O 5O · 3C 4C 5C · 3E 4E · AB AC AE · KB", "", "5E", "5E 5B"),
    "HE-18": (
        "JO JC JE JB · HO HC HE · KO KC · 3B 4B 5B · AB AC AE",
        "",
        "5E",
        "AO HO KO HC KC KE HB KB",
    ),
    "HE-19": ("3O 3O 4O 4O 5O 5O · 3C 4C 5C · JE HE KE · AB AC AE", "", "KB", "AO KO KC KE KB"),
    "HE-20": ("3O 3O 3O 3O · 4O 4O 4O · 5O 5O 5O · AB AC AE · KB KB", "", "5E", ""),
    "HE-21": ("3O 4O 5O · JC HC KC · AO AC · 5C 5E 5B · 3C 3E 3B · 4B", "", "KB", ""),
    "HE-22": ("3O 3O 3O · 4O 4O 4O · 5O 5O 5O · AB AC AE · JE HE KB", "", "5E", "KE"),
}


@pytest.mark.parametrize("case", sorted(WAIT_CASES))
def test_wait_cases(case: str) -> None:
    pool, committed, sowee, expected = WAIT_CASES[case]
    got = _waits_of(counts(pool), counts(committed), cid(sowee), True, -1, None)
    assert got == sorted(ids(expected))
    if not committed:
        assert waits(pool.replace("·", " ").split(), sowee) == expected.split()


def test_dead_waits_exclusion() -> None:
    pool = counts("3O 4O 5O · JC HC KC · 5C 5E 5B · 3C 3E 3B · AO AC · KB")  # HE-11
    unavailable = [0] * 28
    unavailable[cid("AE")] = 3  # three AE visible elsewhere: one left
    assert _waits_of(pool, [0] * 28, cid("HB"), True, -1, unavailable) == ids("AE AB")
    unavailable[cid("AE")] = 4
    assert _waits_of(pool, [0] * 28, cid("HB"), True, -1, unavailable) == ids("AB")


def test_evaluator_errors() -> None:
    with pytest.raises(ValueError):
        is_complete(["AO"] * 3)
    with pytest.raises(ValueError):
        is_complete(["AO"] * 5 + ["3O"] * 11)
    with pytest.raises(ParseError):
        is_complete(["ZZ"] * 16)
    with pytest.raises(ValueError):
        waits(["4E"] * 4 + ["3O"] * 4 + ["4O"] * 4 + ["5O"] * 3, "4E")


SPECIAL_CASES = {
    "SP-1": ("3O 4O 5O · 3C 4C 5C · 3E 4E 5E · AO AC AE AB · JO JC JE", True),
    "SP-2": ("JO HO KO · 3C 4C 5C · 3E 4E 5E · AO AC AE AB · HC HE HB", True),
    "SP-3": ("JO JC JE · 3C 4C 5C · 3E 4E 5E · AO AC AE · HC HE HB · KB", False),
    "SP-4": ("JO HO KO · JC JE JB · 3E 4E 5E · AO AC AE AB · HC HE HB", True),
}


@pytest.mark.parametrize("case", sorted(SPECIAL_CASES))
def test_special_hand_cases(case: str) -> None:
    cards, expected = SPECIAL_CASES[case]
    assert special_hand(counts(cards), [0] * 28, True, -1) is expected


# ----------------------------------------------------------------------------------------------
# final payment (rules §7.5)
# ----------------------------------------------------------------------------------------------

H1 = "3O 4O 5O · JC HC KC · AO AC AE · 5C 5E 5B · 3C 3E 3B · KB"
PAYOUT_CASES = {
    # id: (pool, committed, source, card, sowee, stock, r1, r2, per opponent, drawn)
    "PO-01": (H1, "", "stock", "4O", "HB", "", None, None, 150, 0),
    "PO-02": (H1, "", "discard", "4O", "AE", "", True, True, 150, 0),
    "PO-03": (
        H1,
        "",
        "discard",
        "4O",
        "HB",
        "AB 3O 4C JO HE 5O KE 4E JC AC 3E HO 5C KO 4O 3B",
        True,
        False,
        100,
        15,
    ),
    "PO-04": (
        H1,
        "",
        "claim",
        "KB",
        "AE",
        "JB 3O 4C JO HE 5O KE 4E JC AC 3E HO 5C KO 4O",
        False,
        True,
        110,
        15,
    ),
    "PO-05": (
        H1,
        "",
        "discard",
        "3B",
        "JO",
        "AB 3O 4C JO HE 4B KE 4E JC AC HO 3E 5C KO 4O",
        True,
        True,
        150,
        14,
    ),
    "PO-06": (
        H1,
        "",
        "discard",
        "3B",
        "JO",
        "AB 3O 4C JE HE 4B KE 4E JC AC HO 3E 5C KO 4O",
        True,
        False,
        100,
        15,
    ),
    "PO-07": (H1, "", "discard", "3B", "JO", "4B JO HO", True, False, 100, 3),
    "PO-08": (SPECIAL_CASES["SP-1"][0], "", "discard", "JE", "KB", "", None, None, 300, 0),
    "PO-09": (SPECIAL_CASES["SP-2"][0], "", "stock", "HB", "KB", "", None, None, 300, 0),
    "PO-10": (SPECIAL_CASES["SP-3"][0], "", "stock", "HE", "KO", "", None, None, 130, 0),
    "PO-11": (
        "3C 4C 5C · AO AC AE · 5O 5E 5B · JE HE KE",
        "KO KO KO KO",
        "stock",
        "KE",
        "3B",
        "",
        None,
        None,
        330,
        0,
    ),
    "PO-12": (
        "AO AC AE AB · 3C 4C 5C · 5O 5E 5B · 3O 3E 3B · KO KC KB",
        "",
        "discard",
        "AB",
        "4C",
        "",
        True,
        True,
        200,
        0,
    ),
    "PO-13": (
        "AO AO AO AO · 3C 4C 5C · 5O 5E 5B · 3O 3E 3B · KO KC KB",
        "",
        "discard",
        "AO",
        "4C",
        "AC JO",
        False,
        True,
        160,
        2,
    ),
    "PO-14": (
        "AO AO AO AO · 3C 4C 5C · 5O 5E 5B · 3O 3E 3B · KO KC KB",
        "",
        "discard",
        "AO",
        "4C",
        "AC JO AE 5B",
        True,
        True,
        200,
        3,
    ),
    "PO-15": (
        "3E 3O 3C · 4E 4O 4C · JC HC KC · AO AC AE · KB",
        "5E 5E 5E",
        "discard",
        "4E",
        "5E",
        "",
        True,
        True,
        150,
        0,
    ),
}


@pytest.mark.parametrize("case", sorted(PAYOUT_CASES))
def test_payout_cases(case: str) -> None:
    pool, committed, source, card, sowee, stock, r1, r2, amount, drawn = PAYOUT_CASES[case]
    cfg = load_game("cuajo").config()
    result = settle(
        0,
        counts(pool),
        counts(committed),
        cid(card),
        source,
        cid(sowee),
        ids(stock),
        {1: [0] * 28, 3: [0] * 28},
        cfg,
    )
    assert result.per_opponent == {1: amount, 3: amount}
    assert (result.r1, result.r2) == (r1, r2)
    assert result.extra_draws == ids(stock)[:drawn]


def test_payout_options() -> None:
    cfg = load_game("cuajo").config()
    pool, stock = counts(H1), ids("AB 3O 4C JO HE 5O KE 4E JC AC 3E HO 5C KO 4O")

    def pay(**options: Any) -> int:
        result = settle(
            0,
            pool,
            [0] * 28,
            cid("4O"),
            "discard",
            cid("HB"),
            stock,
            {1: counts("KO KO KC 3O"), 3: [0] * 28},
            {**cfg, **options},
        )
        return result.per_opponent[1]

    assert pay() == 100  # R1 only: 40 + 60
    assert pay(bonus_mode="additive") == 40 + 20 + 60
    assert pay(extra_draw=0) == 100
    assert pay(king_basis="payer") == 120 + 60  # the payer's own KO KO KC
    assert pay(r2_needs_sowee_copy=False) == 100  # no JB among them either
    special = counts(SPECIAL_CASES["SP-2"][0])
    flat = settle(0, special, [0] * 28, cid("HB"), "stock", cid("KB"), [], {1: [0] * 28}, cfg)
    assert flat.per_opponent[1] == 300 and flat.special and flat.bonus == 0
    plus = settle(
        0,
        special,
        [0] * 28,
        cid("HB"),
        "stock",
        cid("KB"),
        [],
        {1: [0] * 28},
        {**cfg, "special_flat": False},
    )
    assert plus.per_opponent[1] == 350  # plus the KO


# ----------------------------------------------------------------------------------------------
# deal, RNG, actions
# ----------------------------------------------------------------------------------------------


def test_deal_from_deck() -> None:
    deck = CUAJO.full_pack()
    random.Random(4).shuffle(deck)
    strings = CUAJO.format_many(deck)
    for dealer in range(4):
        state = new_state(strings, dealer)
        v = state.view()
        p1, p2, p3 = [(dealer + k) % 4 for k in (1, 2, 3)]
        expect = {p1: deck[0:5], p2: deck[5:10], p3: deck[10:15], dealer: deck[15:21]}
        for r in range(2):
            base = 21 + 20 * r
            for k, q in enumerate((p1, p2, p3, dealer)):
                expect[q] = expect[q] + deck[base + 5 * k : base + 5 * k + 5]
        for q in range(4):
            assert v["concealed"][q] == CUAJO.format_many(sorted(expect[q]))
        assert v["hand_sizes"][dealer] == 16 and v["sowee"] == strings[61]
        assert v["stock_size"] == 50 and v["phase"] == "opening" and v["to_play"] == dealer
        act(state, "discard " + next(c for c in v["concealed"][dealer] if c[0] != "K"))
        if not state.is_terminal() and state.current_player() == p1:
            act(state, "draw")
            assert state.view()["last_draw"]["card"] == strings[62]


def test_rng_order() -> None:
    # first_dealer random: below(4) first, then the shuffle of the sorted 112-card pack.
    state = load_game("cuajo").new_initial_state(seed=99)
    rng = SplitMix64(99)
    dealer = rng.below(4)
    deck = CUAJO.full_pack()
    rng.shuffle(deck)
    assert state.view()["dealer"] == dealer
    assert state._hand.deck == deck
    assert state._rng == rng
    # A given deck still draws the shuffle.
    given = load_game("cuajo").new_initial_state(seed=99, deck=CUAJO.format_many(deck[::-1]))
    assert given._rng == rng and given._hand.deck == deck[::-1]
    fixed = load_game("cuajo", first_dealer=3).new_initial_state(seed=99)
    rng = SplitMix64(99)
    deck = CUAJO.full_pack()
    rng.shuffle(deck)
    assert fixed._hand.deck == deck and fixed.view()["dealer"] == 3


def test_action_strings() -> None:
    state = load_game("cuajo").new_initial_state(seed=0)
    seen = set()
    for a in range(95):
        text = state.action_to_string(a)
        assert state.string_to_action(text) == a
        assert state.string_to_action(text.upper()) == a
        seen.add(text)
    assert len(seen) == 95
    assert state.action_to_string(0) == "discard AO"
    assert state.action_to_string(SECRET_BASE + 6) == "secret KO"
    assert state.action_to_string(SOWEE_BASE + 27) == "sowee-secret KB"
    assert [state.action_to_string(a) for a in range(84, 95)] == [
        "draw",
        "take",
        "win",
        "claim",
        "pass",
        "marker KO",
        "marker KC",
        "marker KE",
        "marker KB",
        "purro",
        "no-purro",
    ]
    assert state.string_to_action("discard 1o") == 0
    assert state.string_to_action("  secret   12B ") == SECRET_BASE + 27
    for bad in [
        "",
        "discard",
        "discard ZZ",
        "discard 2O",
        "marker 5O",
        "draw now",
        "sowee secret AO",
        "win win",
        "play AO",
        "purro KO",
    ]:
        with pytest.raises(ParseError):
            state.string_to_action(bad)
    with pytest.raises(ParseError):
        state.string_to_action(5)  # type: ignore[arg-type]
    for bad_id in (-1, 95, "draw", None, 1.0):
        with pytest.raises(IllegalActionError):
            state.apply_action(bad_id)  # type: ignore[arg-type]


def test_illegal_action_leaves_state() -> None:
    state = load_game("cuajo", first_dealer=0).new_initial_state(seed=5)
    before = state.serialize()
    for a in (DRAW, TAKE, CLAIM, PASS, PURRO, NO_PURRO, SECRET_BASE + 3):
        if a not in state.legal_actions():
            with pytest.raises(IllegalActionError):
                state.apply_action(a)
    assert state.serialize() == before
    random_play(state, random.Random(0))
    with pytest.raises(IllegalActionError):
        state.apply_action(DRAW)
    assert state.current_player() == TERMINAL and state.legal_actions() == []


# ----------------------------------------------------------------------------------------------
# turn structure (rules §7.6) on prepared decks
# ----------------------------------------------------------------------------------------------

# Hands without waits (pairs everywhere) for the seats that only pass the discard along.
JUNK_DEALER = "4E 4E 3B 3B JB JB HO HO 5E 5E 4B 4B JC JE AB AB"


def pass_along(state: CuajoState, seat: int, card: str) -> None:
    """``seat`` takes the top discard ``card`` and discards it again."""
    assert state.current_player() == seat
    act(state, "take")
    act(state, f"discard {card}")


def test_fl01_fl02_start_and_kings() -> None:
    state = load_game("cuajo", first_dealer=0).new_initial_state(seed=3)
    for seed in range(20):
        state = load_game("cuajo", first_dealer=0).new_initial_state(seed=seed)
        hand = state.view(0)["concealed"][0]
        discards = {state.action_to_string(a) for a in state.legal_actions() if a < 28}
        assert discards == {f"discard {c}" for c in hand if not c.startswith("K")}
        if discards:
            break
    act(state, sorted(discards)[0])
    v = state.view()
    assert v["to_play"] == 1 and v["phase"] == "draw"
    assert state.legal_actions() == [DRAW, TAKE]
    assert v["stock_size"] == 50 and len(v["discards"]) == 1 and v["turn"] == 1


def test_fl03_forced_purro_and_shown_draws() -> None:
    he16 = "3O 4O 5O 5O 5C · JE HE KE · AB AC AE · 3B 4B 5B · KO"
    deck = build_deck(0, {0: he16 + " HC"}, "JB", "3C")
    state = new_state(deck)
    act(state, "discard HC")
    v = state.view(2)
    assert v["purro"] == [True, False, False, False] and v["marker"][0] == "KO"
    act(state, "draw")
    for seat in range(4):
        assert state.view(seat)["last_draw"] == {"seat": 1, "card": "3C", "shown": True}
    assert state.view(3)["known"][1] == ["3C"]


def test_fl03_unshown_draw_is_private() -> None:
    deck = build_deck(0, {0: JUNK_DEALER}, "HB", "3C")
    state = new_state(deck)
    act(state, "discard 4E")
    assert not any(state.view()["purro"])
    act(state, "draw")
    assert state.view(1)["last_draw"] == {"seat": 1, "card": "3C", "shown": False}
    assert state.view(0)["last_draw"] == {"seat": 1, "card": None, "shown": False}
    assert "3C" not in state.information_state_string(0).split("\n")[-1]
    obs = state.observation_tensor(0)
    last_draw_block = 8 + 4 + 4 + 112 + 112 + 28 + 28 + 29
    assert obs[last_draw_block + 28] == 1


def claim_deck() -> list[str]:
    return build_deck(
        0,
        {
            0: JUNK_DEALER,
            1: "3O 4O 5O JC HC KC AO AC AE 5C 5E 5B 3C 3E 3B",  # HE-10
            2: "JO JC JE HO HC HE 4E 4C 4B AO AC AB 5O 5C 5B",
            3: "3O 3O 4O 4O 5O 5O 3C 4C 5C JE HE KE AB AC AE",  # HE-19
        },
        "HB",
        "KO",
    )


def claim_position() -> CuajoState:
    """Seats 1, 2, 3 purro; seat 2 has drawn KO, which completes seats 2, 3 and 1."""
    state = new_state(claim_deck())
    act(state, "discard 4E")
    for seat in (1, 2, 3, 0, 1):
        pass_along(state, seat, "4E")
    v = state.view()
    assert v["purro"] == [False, True, True, True]
    assert v["marker"] == [None, "KC", "coin", "KE"]
    act(state, "draw")
    return state


def test_fl04_claim_order_and_hidden_decisions() -> None:
    state = claim_position()
    assert state.current_player() == 2 and state.view()["phase"] == "drawer_option"
    assert state.legal_actions() == [WIN, PASS]
    infos = {q: state.information_state_string(q) for q in (0, 1, 3)}
    for q in (0, 1, 3):
        v = state.view(q)
        assert (v["phase"], v["to_play"]) == ("action", 2)
    assert state.view(2)["phase"] == "drawer_option"
    act(state, "pass")
    assert state.current_player() == 3 and state.legal_actions() == [CLAIM, PASS]
    assert (state.view(3)["phase"], state.view(3)["to_play"]) == ("claim", 3)
    for q in (0, 1, 2):
        assert (state.view(q)["phase"], state.view(q)["to_play"]) == ("action", 2)
    obs = state.observation_tensor(2)
    assert obs[4] == 1 and obs[8 + 0] == 1  # phase action, to_play me
    act(state, "pass")
    assert state.current_player() == 1 and state.view(1)["phase"] == "claim"
    act(state, "pass")
    assert state.current_player() == 2 and state.view()["phase"] == "action"
    assert WIN in state.legal_actions()
    for q in (0,):
        assert state.information_state_string(q) == infos[q]
    assert state.information_state_string(1) != infos[1]  # his own pass
    act(state, "win")
    v = state.view()
    assert v["phase"] == "over" and v["result"]["source"] == "stock"
    assert v["result"]["winner"] == 2 and v["result"]["card"] == "KO"
    # KO 50 + bonus 110 from seats 1 and 3; team returns.
    assert v["result"]["payments"] == [0, -160, 320, -160]
    assert state.returns() == [320.0, -320.0, 320.0, -320.0]


def test_fl04_claim_wins() -> None:
    state = claim_position()
    act(state, "pass")
    act(state, "claim")
    v = state.view(0)
    r = v["result"]
    assert r["winner"] == 3 and r["source"] == "claim" and r["card"] == "KO"
    assert v["hand_sizes"] == [15, 15, 15, 16]
    assert "KO" in r["hands"][3] and "KO" not in r["hands"][2]
    assert v["concealed"][2] is not None  # the end of the match shows everything
    assert r["r1"] is not None and r["r2"] is not None and not r["special"]
    assert sum(r["payments"]) == 0 and r["payments"][1] == 0
    assert sum(state.returns()) == 0


def test_fl05_losing_purro_and_penalty() -> None:
    he16 = "3O 4O 5O 5O 5C JE HE KE AB AC AE 3B 4B 5B KO"
    deck = build_deck(
        0,
        {0: JUNK_DEALER, 1: he16},
        "JB",
        "KC 4E 4E 3O",
    )
    state = new_state(deck)
    act(state, "discard 4E")
    pass_along(state, 1, "4E")
    assert state.view()["purro"] == [False, True, False, False]
    for seat in (2, 3, 0):
        pass_along(state, seat, "4E")
    act(state, "draw")  # seat 1 draws KC, shown
    assert state.view(0)["last_draw"] == {"seat": 1, "card": "KC", "shown": True}
    assert state.current_player() == 1
    assert WIN not in state.legal_actions()
    act(state, "discard 5C")
    v = state.view()
    assert v["purro"] == [False, False, False, False] and v["marker"][1] is None
    assert v["penalty"] == [0, 2, 0, 0]
    for seat in (2, 3, 0):
        pass_along(state, seat, "5C")
    act(state, "draw")  # 4E, shown because of the penalty
    assert state.view(3)["last_draw"] == {"seat": 1, "card": "4E", "shown": True}
    act(state, "discard 4E")
    assert state.view()["penalty"][1] == 1
    for seat in (2, 3, 0):
        pass_along(state, seat, "4E")
    act(state, "draw")
    assert state.view(3)["last_draw"]["shown"] is True
    act(state, "discard 4E")
    assert state.view()["penalty"][1] == 0
    for seat in (2, 3, 0):
        pass_along(state, seat, "4E")
    act(state, "draw")  # third turn: normal again, nobody purro
    assert state.view(3)["last_draw"] == {"seat": 1, "card": None, "shown": False}


def test_fl08_secrets_and_payments() -> None:
    deck = build_deck(0, {0: "AO AO AO AO 3C 3C 3C KO 4E 5B JC JE HB 5O 5O HO"}, "3C", "")
    state = new_state(deck)
    legal = state.legal_actions()
    assert SECRET_BASE + cid("AO") in legal
    sowee = [state.action_to_string(a) for a in legal if SOWEE_BASE <= a < DRAW]
    assert sowee == [f"sowee-secret {c}" for c in "AO KO 4E 5O HO JE 5B HB JC".split()] or sowee
    assert "sowee-secret 3C" not in sowee
    act(state, "secret AO")
    v = state.view()
    assert v["balances"] == [100, -50, 0, -50] and v["hand_sizes"][0] == 16
    assert "AO" not in v["concealed"][0]
    assert state.rewards() == [100.0, -100.0, 100.0, -100.0]  # team returns
    assert state.view(1)["secrets"][0] == [{"kind": None, "cards": None, "extra": None}]
    assert state.view(0)["secrets"][0] == [{"kind": "normal", "cards": ["AO"] * 4, "extra": None}]
    assert "discard AO" not in [state.action_to_string(a) for a in state.legal_actions()]
    act(state, "sowee-secret KO")
    v = state.view(0)
    assert v["secrets"][0][1] == {"kind": "sowee", "cards": ["3C"] * 3, "extra": "KO"}
    assert "KO" not in v["concealed"][0] and v["hand_sizes"][0] == 16
    assert v["balances"] == [200, -100, 0, -100]
    obs = state.observation_tensor(0)
    extra_block = 8 + 4 + 4 + 112 + 112
    assert obs[extra_block + cid("KO")] == 1
    public = load_game("cuajo", first_dealer=0, secret_kind_public=True)
    other = public.new_initial_state(seed=1, deck=deck)
    act(other, "sowee-secret KO")
    assert other.view(2)["secrets"][0] == [{"kind": "sowee", "cards": None, "extra": None}]


def test_fl09_turn_cap() -> None:
    state = load_game("cuajo", first_dealer=1, max_turns=1).new_initial_state(seed=2)
    discard = next(a for a in state.legal_actions() if a < 28)
    state.apply_action(discard)
    assert state.is_terminal()
    r = state.view()["result"]
    assert r["reason"] == "turn_limit" and r["winner"] is None and r["payments"] == [0] * 4
    assert state.view()["past_hands"] == [
        {"dealer": 1, "winner": None, "source": None, "balances": [0, 0, 0, 0]}
    ]


def test_fl10_first_turn_win_by_take() -> None:
    # Seat 1 holds H1 without its 4O; the dealer's opening discard completes it (PO-02).
    deck = build_deck(
        0,
        {0: JUNK_DEALER[:-2] + "4O", 1: "3O 5O JC HC KC AO AC AE 5C 5E 5B 3C 3E 3B KB"},
        "AE",
    )
    state = new_state(deck)
    act(state, "discard 4O")
    act(state, "take")
    assert WIN in state.legal_actions()
    act(state, "win")
    r = state.view()["result"]
    assert (r["source"], r["card"], r["r1"], r["r2"], r["bonus"]) == (
        "discard",
        "4O",
        True,
        True,
        110,
    )
    assert r["payments"] == [-150, 300, -150, 0]
    assert state.returns() == [-300.0, 300.0, -300.0, 300.0]
    assert state.rewards() == state.returns()
    individual = new_state(deck, returns="individual")
    for text in ("discard 4O", "take", "win"):
        act(individual, text)
    assert individual.returns() == [-150.0, 300.0, -150.0, 0.0]


def test_natural_win_and_option() -> None:
    deck = build_deck(0, {0: H1}, "HB")
    state = new_state(deck)
    assert WIN in state.legal_actions()
    act(state, "win")
    r = state.view()["result"]
    assert (r["source"], r["card"], r["bonus"]) == ("natural", None, 110)
    assert r["payments"] == [300, -150, 0, -150]
    assert WIN not in new_state(deck, dealer_natural_win=False).legal_actions()


def test_dead_hand_at_the_opening() -> None:
    kings = " ".join(["KO KC KE KB"] * 4)
    state = new_state(build_deck(0, {0: kings}, "HB"), dealer_natural_win=False)
    # no discard and no win: only the four king secrets, and once they are laid nothing is
    # legal: the hand ends as a wash at once (rules A-45)
    assert state.legal_actions() == [SECRET_BASE + k for k in (6, 13, 20, 27)]
    for k in (6, 13, 20, 27):
        state.apply_action(SECRET_BASE + k)
    assert state.view()["balances"] == [400, -200, 0, -200]
    assert state.is_terminal() and state.view()["result"]["reason"] == "dead_hand"
    state = new_state(build_deck(0, {0: kings}, "HB"))
    assert state.legal_actions() == sorted([SECRET_BASE + k for k in (6, 13, 20, 27)] + [WIN])


def test_secret_on_winning_turn_option() -> None:
    deck = build_deck(0, {0: "AO AO AO AO 3C 4C 5C 5O 5E 5B 3O 3E 3B KO KC KB"}, "4E")
    state = new_state(deck, secret_on_winning_turn=False)
    assert WIN in state.legal_actions()
    act(state, "secret AO")
    assert WIN not in state.legal_actions()
    state = new_state(deck)
    act(state, "secret AO")
    act(state, "win")
    assert state.view()["result"]["payments"] == [2 * 200, -200, 0, -200]
    assert state.returns() == [500.0, -500.0, 500.0, -500.0]


def test_may_rediscard_taken_card_option() -> None:
    deck = build_deck(0, {0: JUNK_DEALER}, "HB")
    state = new_state(deck, may_rediscard_taken_card=False)
    act(state, "discard 5E")
    act(state, "take")
    assert "discard 5E" not in [state.action_to_string(a) for a in state.legal_actions()]


def test_optional_purro_and_marker_choice() -> None:
    he16 = "3O 4O 5O 5O 5C JE HE KE AB AC AE 3B 4B 5B KO"
    deck = build_deck(0, {0: he16 + " HC"}, "JB")
    state = new_state(deck, purro_call="optional", purro_marker="player_choice")
    act(state, "discard HC")
    assert state.view(3)["phase"] == "purro_call" and state.legal_actions() == [PURRO, NO_PURRO]
    act(state, "purro")
    assert state.view(0)["phase"] == "marker"
    assert state.view(1)["phase"] == "purro_call"  # the decision is hidden from the others
    assert [state.action_to_string(a) for a in state.legal_actions()] == ["marker KO", "marker KE"]
    act(state, "marker KE")
    assert state.view()["marker"][0] == "KE" and state.view()["purro"][0]
    assert state.current_player() == 1
    # Without waits only no-purro.
    state = new_state(build_deck(0, {0: JUNK_DEALER}, "HB"), purro_call="optional")
    act(state, "discard 4E")
    assert state.legal_actions() == [NO_PURRO]
    act(state, "no-purro")
    assert state.view()["phase"] == "draw" and state.current_player() == 1


# ----------------------------------------------------------------------------------------------
# whole games: invariants
# ----------------------------------------------------------------------------------------------


def check_invariants(state: CuajoState) -> None:
    legal = state.legal_actions()
    assert legal == sorted(set(legal))
    assert (state.current_player() == TERMINAL) == state.is_terminal() == (legal == [])
    assert sum(state.returns()) == 0
    full = state.view()
    assert list(full) == VIEW_KEYS
    assert json.loads(json.dumps(full)) == full
    sizes = full["hand_sizes"]
    h = state._hand
    for q in range(4):
        cards = len(full["concealed"][q]) + sum(4 for _ in full["secrets"][q])
        assert cards == sizes[q]
        if full["phase"] in ("draw", "purro_call", "marker") or (
            full["phase"] == "opening" and q != h.current
        ):
            assert sizes[q] == 15
    if full["phase"] in ("action", "drawer_option", "claim", "opening"):
        assert sizes[h.current] == 16
        assert sorted(sizes) == [15, 15, 15, 16]
    # all 112 cards accounted for
    total = Counter({t: 0 for t in range(28)})
    for q in range(4):
        for t, n in enumerate(state._all_cards(q)):
            total[t] += n
    for _, card, taken_by in h.discards:
        if taken_by is None:
            total[card] += 1
    total[h.sowee] += 1
    for card in h.deck[h.pos :]:
        total[card] += 1
    if full["result"] is not None and h.index == len(full["past_hands"]) - 1:
        for card in full["result"]["extra_draws"]:
            total[cid(card)] += 1
    assert all(total[t] == 4 for t in range(28)), total
    if full["result"] is not None:
        assert set(full["result"]) == RESULT_KEYS
    for seat in range(4):
        v = state.view(seat)
        assert list(v) == VIEW_KEYS and v["viewer"] == seat
        assert v["concealed"][seat] == full["concealed"][seat]
        for q in range(4):
            if q != seat and not state.is_terminal():
                assert v["concealed"][q] is None
                assert all(s["cards"] is None for s in v["secrets"][q])
        # another seat's marker decision: the table as before the action that brought it
        seen = full
        if full["phase"] == "marker" and seat != full["to_play"]:
            seen = state._masked_for(seat).view()
            assert seen["phase"] in ("opening", "action", "purro_call"), seen["phase"]
            assert (v["phase"], v["to_play"]) == (seen["phase"], full["to_play"])
        for key in ("discards", "known", "hand_sizes", "purro", "marker", "penalty", "balances"):
            assert v[key] == seen[key]
        obs = state.observation_tensor(seat)
        assert obs.shape == (OBSERVATION_SIZE,) and obs.dtype == np.float32
        assert obs[:8].sum() == 1


def play_game(state: CuajoState, rng: random.Random, smart: bool) -> int:
    steps = 0
    check_invariants(state)
    while not state.is_terminal():
        before = state.returns()
        action = greedy(state, rng) if smart else rng.choice(state.legal_actions())
        state.apply_action(action)
        after = state.returns()
        assert state.rewards() == [a - b for a, b in zip(after, before)]
        steps += 1
        if steps % 7 == 0 or state.is_terminal():
            check_invariants(state)
    return steps


@pytest.mark.parametrize("seed", range(4))
def test_random_games(seed: int) -> None:
    state = load_game("cuajo").new_initial_state(seed=seed)
    steps = play_game(state, random.Random(seed), smart=False)
    assert 0 < steps <= state._game.max_game_length()
    copy = state._game.deserialize_state(state.serialize())
    assert copy == state and copy.view() == state.view()


@pytest.mark.parametrize("seed", range(6))
def test_greedy_games_with_wins(seed: int) -> None:
    state = load_game("cuajo").new_initial_state(seed=seed)
    play_game(state, random.Random(seed), smart=True)
    r = state.view()["result"]
    if r["winner"] is not None:
        w = r["winner"]
        assert len(r["hands"][w]) == 16
        assert sum(r["payments"]) == 0 and r["payments"][(w + 2) % 4] == 0
        assert r["payments"][(w + 1) % 4] < 0 and r["payments"][(w + 3) % 4] < 0


OPTION_CONFIGS: list[dict[str, Any]] = [
    {"purro_call": "optional", "purro_marker": "player_choice", "hands_per_match": 2},
    {"empty_stock": "immediate_wash", "dead_waits_count": False, "returns": "individual"},
    {"hands_per_match": 3, "dealer_after_wash": "next", "max_turns": 40},
    {"undeclared_quad_valid": False, "sowee_triple_undeclared_valid": True, "extra_draw": 3},
    {"penalty_draws_claimable": False, "purro_loss_penalty_turns": 0, "king_basis": "payer"},
    {"may_rediscard_taken_card": False, "secret_on_winning_turn": False, "bonus_mode": "additive"},
]


@pytest.mark.parametrize("index", range(len(OPTION_CONFIGS)))
def test_option_games(index: int) -> None:
    config = OPTION_CONFIGS[index]
    game = load_game("cuajo", **config)
    for seed in range(2):
        state = game.new_initial_state(seed=seed)
        play_game(state, random.Random(seed), smart=True)
        v = state.view()
        assert len(v["past_hands"]) == config.get("hands_per_match", 1)
        assert v["totals"] == [sum(p["balances"][q] for p in v["past_hands"]) for q in range(4)]
        for prev, nxt in zip(v["past_hands"], v["past_hands"][1:]):
            if prev["winner"] is not None:
                assert nxt["dealer"] == prev["winner"]
            elif config.get("dealer_after_wash") == "next":
                assert nxt["dealer"] == (prev["dealer"] + 1) % 4
            else:
                assert nxt["dealer"] == prev["dealer"]
        if config.get("empty_stock") == "immediate_wash" and v["result"]["winner"] is None:
            assert v["stock_size"] == 0 or v["result"]["reason"] != "empty_stock"
        assert game.deserialize_state(state.serialize()) == state


def test_empty_stock_decisions() -> None:
    seen_draw = seen_take = 0
    for seed in range(8):
        state = load_game("cuajo").new_initial_state(seed=seed)
        rng = random.Random(seed)
        while not state.is_terminal():
            v = state.view()
            if v["phase"] == "draw" and v["stock_size"] == 0:
                seen_draw += 1
                legal = state.legal_actions()
                assert legal in ([PASS], [TAKE, PASS])
                if legal == [TAKE, PASS]:
                    seen_take += 1
                    act(state, "take")
                    assert all(a >= SECRET_BASE for a in state.legal_actions())
                    assert WIN in state.legal_actions()
                    continue
            state.apply_action(rng.choice(state.legal_actions()))
        if state.view()["result"]["reason"] == "empty_stock":
            assert state.view()["stock_size"] == 0
    assert seen_draw > 0


def test_serialization_clone_pickle() -> None:
    state = load_game("cuajo", hands_per_match=2).new_initial_state(seed=11)
    random_play(state, random.Random(1), 60)
    text = state.serialize()
    obj = json.loads(text)
    assert set(obj) == {"game", "config", "seed", "decks", "rng", "history"}
    assert len(obj["decks"][0]) == 112
    copy = state._game.deserialize_state(text)
    assert copy == state and copy.view() == state.view()
    assert pickle.loads(pickle.dumps(state)) == state
    assert state.clone() == state
    for bad in ["", "{}", "[1]", text.replace('"cuajo"', '"cicera"', 1)]:
        with pytest.raises(ParseError):
            state._game.deserialize_state(bad)
    broken = json.loads(text)
    broken["decks"][0] = broken["decks"][0][:-1]
    with pytest.raises(ParseError):
        state._game.deserialize_state(json.dumps(broken))
    broken = json.loads(text)
    broken["history"] = [93] + broken["history"]
    with pytest.raises(ParseError):
        state._game.deserialize_state(json.dumps(broken))
    assert "Cuajo" in str(state) and "Cuajo" in state.observation_string(0)


def test_observation_layout() -> None:
    deck = build_deck(0, {0: JUNK_DEALER}, "HB", "3C")
    state = new_state(deck)
    act(state, "discard 4E")
    act(state, "take")
    obs = state.observation_tensor(1)
    pos = 0
    assert obs[pos + 4] == 1  # phase action
    pos += 8
    assert obs[pos + 0] == 1  # to_play: me
    pos += 4
    assert obs[pos + 3] == 1  # dealer: my left
    pos += 4
    hand = state._hand.concealed[1]
    for t in range(28):
        assert list(obs[pos + 4 * t : pos + 4 * t + 4]) == [1.0] * hand[t] + [0.0] * (4 - hand[t])
    pos += 112 + 112 + 28
    assert obs[pos + cid("HB")] == 1
    pos += 28
    assert obs[pos + 28] == 1  # the discard was taken: none
    pos += 29
    assert obs[pos + 28] == 1  # no draw this turn
    pos += 29
    assert obs[pos + 112 * 3 + 4 * cid("4E")] == 1  # discarded by my left (seat 0)
    pos += 448
    assert obs[pos + 4 * cid("4E")] == 1  # known: I took it
    pos += 448
    pos += 112
    assert obs[pos + 12] == 1  # my penalty 0
    pos += 60
    assert obs[pos + 9] == 1 and abs(obs[pos + 10] - 1.0) < 1e-6  # stock 50
    pos += 11 + 4
    assert abs(obs[pos] - 1 / 300) < 1e-7
    assert pos + 1 + 1 + 4 == OBSERVATION_SIZE


# ----------------------------------------------------------------------------------------------
# resampling
# ----------------------------------------------------------------------------------------------


def test_resample_keeps_what_the_seat_knows() -> None:
    moved = False
    for seed in range(3):
        state = load_game("cuajo").new_initial_state(seed=seed)
        rng = random.Random(seed)
        random_play(state, rng, 30 + 25 * seed)
        for seat in range(4):
            sample = state.resample_from_infostate(seat, 100 + seed)
            # Not the history: another seat's hidden decisions (a secret's kind, a pass on a
            # claim) are redone as the new cards need.
            assert sample.view(seat) == state.view(seat)
            assert sample.information_state_string(seat) == state.information_state_string(seat)
            assert np.array_equal(sample.observation_tensor(seat), state.observation_tensor(seat))
            assert sample._rng == SplitMix64(100 + seed)
            assert sample._game.deserialize_state(sample.serialize()) == sample
            truth = state.view()["concealed"]
            moved |= any(sample.view()["concealed"][q] != truth[q] for q in range(4) if q != seat)
            random_play(sample, random.Random(seed))
    assert moved


def test_resample_during_hidden_claims() -> None:
    state = claim_position()
    act(state, "pass")  # seat 3 decides, hidden from the others
    for seat in range(4):
        sample = state.resample_from_infostate(seat, 5)
        assert sample.view(seat) == state.view(seat)
        assert sample.information_state_string(seat) == state.information_state_string(seat)


def test_block_waits_equal_one_partition_check_per_card():
    """The resampler's block-by-block waits (one more card mends one block at most) are the
    rules' waits, one ``partitionable`` per card: on hands one card from complete and on
    others, with and without quads and the sowee triple."""
    rng = random.Random(5)
    positive = 0
    for i in range(3000):
        quad_ok, sowee = i % 2 == 0, rng.randrange(28)
        triple = sowee if i % 4 < 2 else -1
        pool = [0] * 28
        while sum(pool) < 15:
            t = rng.randrange(28)
            if rng.random() < 0.7:
                # a set of one rank or a run of one suit, as far as the copies allow
                rank, suit = t % 7, t // 7
                group = [7 * s + rank for s in range(4) if s != suit][:2] + [t]
                if rank in (1, 4) and rng.random() < 0.5:
                    group = [t, t + 1, t + 2]
            else:
                group = [t]
            for k in group:
                if sum(pool) < 15 and pool[k] < (3 if k == sowee else 4):
                    pool[k] += 1
        committed = [0] * 28
        got = sorted(_blocks(quad_ok, triple)._waits(pool, committed, sowee))
        want = _waits_of(pool, committed, sowee, quad_ok, triple, None)
        assert got == want, (pool, quad_ok, triple, sowee)
        positive += bool(want)
    assert positive > 100, positive
