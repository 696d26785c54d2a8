"""Tests of the pure-Python Cicera reference model alone (tapete.reference.cicera).

Covers the card numbering, every capture case C1-C22 of rules §10.1 (C20 in canonical order, the
``force_single_match`` variants), captures against a brute-force enumeration, the bonus cases
P1-P17 (§10.2), the scoring cases E1-E8 (§10.3) through ``score_hand`` and through the end of a
hand, the match-end cases M1-M6 (§10.4), the action encoding of §10.5, the deal of
docs/rules/cicera.md (both deal styles, the packet variants, the RNG order), the error contract,
and random playouts across options checking invariants.

Positions in the middle of a hand are set up white-box: a fresh state whose hand fields (hands,
table, last trail, piles, ...) are overwritten, with no undealt card left (``pos = 52``).  The
rules only look at those fields, so this reproduces the rules' "before play 45" situations.
"""

from __future__ import annotations

import itertools
import json
import pickle
import random
from typing import Any

import numpy as np
import pytest

from tapete.errors import ConfigError, IllegalActionError, ParseError
from tapete.reference import TERMINAL, list_games, load_game
from tapete.reference.cards import CICERA, FRENCH
from tapete.reference.cicera import (
    CATEGORIES,
    CiceraGame,
    CiceraState,
    capture_sets,
    captures,
    score_hand,
)
from tapete.reference.rng import SplitMix64

# ----------------------------------------------------------------------------------------------
# helpers
# ----------------------------------------------------------------------------------------------

RANKS = "A 2 3 4 5 6 7 8 9 10 J Q K".split()


def cid(text: str) -> int:
    return CICERA.parse(text)


def ids(texts: str) -> list[int]:
    return [cid(t) for t in texts.split()]


def canon(texts: str) -> list[str]:
    return CICERA.format_many(sorted(ids(texts)))


def as_sets(result: list[list[str]]) -> set[frozenset[str]]:
    return {frozenset(s) for s in result}


def sets(spec: str) -> set[frozenset[str]]:
    """``"7H; 2D 5C"`` -> the set of capture sets."""
    return {frozenset(part.split()) for part in spec.split(";") if part.strip()}


def pile(spec: str) -> list[str]:
    """Cards of a pile written by suit as in rules §10.3: ``"S A 2 3; H all; D all but 10"``."""
    out: list[str] = []
    for part in spec.split(";"):
        words = part.split()
        if not words:
            continue
        suit, rest = words[0], words[1:]
        if rest[:1] == ["all"]:
            excluded = set(rest[2:]) if rest[1:2] == ["but"] else set()
            ranks = [r for r in RANKS if r not in excluded]
        else:
            ranks = []
            for word in rest:
                if ".." in word:
                    lo, hi = word.split("..")
                    ranks += RANKS[RANKS.index(lo) : RANKS.index(hi) + 1]
                else:
                    ranks.append(word)
        out += [r + suit for r in ranks]
    return out


def position(
    hands: dict[int, str],
    table: str,
    *,
    dealer: int = 3,
    to_play: int | None = None,
    last_trail: str | None = None,
    last_capturer: int | None = None,
    piles: tuple[str, str] = ("", ""),
    bonus: tuple[int, int] = (0, 0),
    scores: tuple[int, int] = (0, 0),
    **config: Any,
) -> CiceraState:
    """A white-box position: no stock, the given hands, table and hand fields."""
    game = CiceraGame(first_dealer=dealer, **config)
    state = game.new_initial_state(seed=0)
    h = state._hand
    h.hands = [sorted(ids(hands.get(q, ""))) for q in range(4)]
    h.table = sorted(ids(table))
    h.pos = 52
    h.to_play = (dealer + 1) % 4 if to_play is None else to_play
    h.last_trail = None if last_trail is None else cid(last_trail)
    h.last_capturer = last_capturer
    h.piles = [sorted(ids(piles[0])), sorted(ids(piles[1]))]
    h.bonus = list(bonus)
    state._scores = list(scores)
    return state


def act(state: CiceraState, *texts: str) -> None:
    for text in texts:
        state.apply_action(state.string_to_action(text))


def legal_strings(state: CiceraState) -> list[str]:
    return [state.action_to_string(a) for a in state.legal_actions()]


def capture_bonus(table: str, card: str, chosen: str, last_trail: str | None, **config: Any) -> int:
    """Bonus points earned by seat 0 capturing ``chosen`` with ``card`` (not the last play)."""
    state = position({0: f"{card} JC", 1: "QC"}, table, last_trail=last_trail, **config)
    act(state, f"capture {card}", *(f"take {t}" for t in canon(chosen)))
    assert state.view()["phase"] == "play"
    return int(state.view()["bonus"][0])


def deal_positions(dealer: int, packet: int, style: str) -> tuple[list[list[int]], list[int]]:
    """Deck positions of each seat's cards and of the table (docs/rules/cicera.md, the deal)."""
    seats: list[list[int]] = [[] for _ in range(4)]
    table: list[int] = []
    pos = 0
    while pos < 52:
        for j in range(4 * packet):
            if style == "one_at_a_time":
                q = (dealer + 1 + j % 4) % 4
            else:
                q = (dealer + 1 + j // packet) % 4
            seats[q].append(pos + j)
        pos += 4 * packet
        if not table:
            table = list(range(pos, pos + 4))
            pos += 4
    return seats, table


def random_play(state: CiceraState, rng: random.Random, steps: int | None = None) -> CiceraState:
    done = 0
    while not state.is_terminal() and (steps is None or done < steps):
        state.apply_action(rng.choice(state.legal_actions()))
        done += 1
    return state


# ----------------------------------------------------------------------------------------------
# cards, registry, config
# ----------------------------------------------------------------------------------------------


def test_card_ids_and_strings() -> None:
    examples = {"AS": 0, "2S": 1, "KS": 12, "AH": 13, "JH": 23, "KH": 25, "AD": 26, "2D": 27}
    examples |= {"10D": 35, "AC": 39, "5C": 43, "KC": 51, "7H": 19, "5S": 4}
    for text, card in examples.items():
        assert CICERA.parse(text) == card
        assert CICERA.to_string(card) == text
    assert CICERA.parse("td") == 35 and CICERA.parse("10d") == 35 and CICERA.parse("jh") == 23
    assert [CICERA.parse(CICERA.to_string(c)) for c in range(52)] == list(range(52))
    for bad in ("", "A", "1H", "11H", "AX", "HA", "10", "A S", "0S", 5, None):
        with pytest.raises(ParseError):
            CICERA.parse(bad)
    assert CICERA.parse(" AS\t") == CICERA.parse("AS")  # whitespace around, as the engine
    # The Spoil Five pack keeps its own numbering.
    assert FRENCH.parse("AH") == 38 and FRENCH.parse("2C") == 0


def test_registry_and_game_properties() -> None:
    assert "cicera" in list_games()
    game = load_game("cicera")
    assert isinstance(game, CiceraGame)
    assert game.name == "cicera"
    assert game.num_players() == 4
    assert game.num_distinct_actions() == 156
    assert game.observation_tensor_shape() == (677,)
    assert game.max_game_length() == 100 * 100
    assert load_game("cicera", max_hands=7).max_game_length() == 700
    assert load_game("cicera", game_mode="single_hand").max_game_length() == 100
    assert TERMINAL == -4


DEFAULTS = {
    "target_score": 51,
    "packet_size": 12,
    "deal_style": "one_at_a_time",
    "first_dealer": "random",
    "force_single_match": False,
    "capture_compulsory": False,
    "left_bonus_mode": "any",
    "sweep_on_last_play_counts": True,
    "bonus_sweep": True,
    "bonus_left": True,
    "bonus_single_suit": True,
    "bonus_three_plus": True,
    "cards_tie": "none",
    "spades_majority_points": 1,
    "napola_courts_extend": True,
    "all_spades_wins_match": False,
    "leftover_if_no_capture": "nobody",
    "game_mode": "match",
    "max_hands": 100,
    "auto_complete_unique": False,
    "explicit_chance": False,
}


def test_config_defaults_and_values() -> None:
    assert load_game("cicera").config() == DEFAULTS
    config = {
        "target_score": 21,
        "packet_size": 6,
        "deal_style": "packets",
        "first_dealer": 2,
        "force_single_match": True,
        "capture_compulsory": True,
        "left_bonus_mode": "rank_match",
        "sweep_on_last_play_counts": False,
        "bonus_sweep": False,
        "bonus_left": False,
        "bonus_single_suit": False,
        "bonus_three_plus": False,
        "cards_tie": "one_each",
        "spades_majority_points": 2,
        "napola_courts_extend": False,
        "all_spades_wins_match": True,
        "leftover_if_no_capture": "dealer_team",
        "game_mode": "single_hand",
        "max_hands": 3,
        "auto_complete_unique": True,
    }
    game = load_game("cicera", **config)
    assert game.config() == {**config, "explicit_chance": False}
    assert game == load_game("cicera", **game.config())
    assert game != load_game("cicera")
    config_copy = game.config()
    config_copy["max_hands"] = 9
    assert game.config()["max_hands"] == 3
    assert "packet_size=6" in repr(game)
    assert pickle.loads(pickle.dumps(game)) == game
    assert load_game("cicera", packet_size=4).config()["packet_size"] == 4
    assert load_game("cicera", target_score=1000, max_hands=1).config()["target_score"] == 1000
    assert load_game("cicera", spades_majority_points=0).config()["spades_majority_points"] == 0


BAD_CONFIGS = [
    {"no_such_key": 1},
    {"Target_score": 51},
    {"target_score": 0},
    {"target_score": 1001},
    {"target_score": 51.0},
    {"target_score": "51"},
    {"target_score": True},
    {"target_score": None},
    {"packet_size": 5},
    {"packet_size": 13},
    {"packet_size": 12.0},
    {"packet_size": True},
    {"packet_size": "12"},
    {"deal_style": "one-at-a-time"},
    {"deal_style": 1},
    {"first_dealer": 4},
    {"first_dealer": -1},
    {"first_dealer": "left"},
    {"first_dealer": 1.0},
    {"first_dealer": True},
    {"force_single_match": 1},
    {"capture_compulsory": "true"},
    {"left_bonus_mode": "rank"},
    {"sweep_on_last_play_counts": None},
    {"bonus_sweep": 0},
    {"bonus_left": "yes"},
    {"bonus_single_suit": 1.0},
    {"bonus_three_plus": []},
    {"cards_tie": "split"},
    {"cards_tie": None},
    {"spades_majority_points": -1},
    {"spades_majority_points": 11},
    {"spades_majority_points": False},
    {"napola_courts_extend": "false"},
    {"all_spades_wins_match": 0},
    {"leftover_if_no_capture": "dealer"},
    {"game_mode": "hand"},
    {"max_hands": 0},
    {"max_hands": 1001},
    {"max_hands": 2.5},
]


@pytest.mark.parametrize("config", BAD_CONFIGS, ids=lambda c: repr(c))
def test_bad_configs(config: dict[str, Any]) -> None:
    with pytest.raises(ConfigError) as info:
        load_game("cicera", **config)
    assert type(info.value) is ConfigError and str(info.value)


def test_seeds_and_decks_errors() -> None:
    game = load_game("cicera")
    for seed in (-1, 2**64, 1.5, "1", True):
        with pytest.raises(ConfigError):
            game.new_initial_state(seed=seed)  # type: ignore[arg-type]
    pack = CICERA.format_many(range(52))
    for deck in (pack[:-1], pack[:-1] + ["AS"], pack[:-1] + ["ZZ"], pack + ["AS"], "AS 2S", 5):
        with pytest.raises(ConfigError):
            game.new_initial_state(seed=1, deck=deck)  # type: ignore[arg-type]
    with pytest.raises(ConfigError):
        game.new_initial_state(seed=1, deck=pack, decks=[pack])
    with pytest.raises(ConfigError):
        game.new_initial_state(seed=1, decks=[pack, pack[1:]])
    assert game.new_initial_state(seed=2**64 - 1).current_player() in range(4)


# ----------------------------------------------------------------------------------------------
# capture enumeration (rules §10.1, §11)
# ----------------------------------------------------------------------------------------------

CAPTURE_CASES = [
    ("C1", "7H 5C 2D KS", "7S", "7H; 2D 5C"),
    ("C2", "AS 3C 4D 2H 6S", "7C", "AS 6S; AS 2H 4D; 4D 3C"),
    ("C3", "KH KD 5S", "KS", "KH; KD"),
    ("C4", "QH 5S", "KC", ""),
    ("C5", "JS QS 3H", "3D", "3H"),
    ("C6", "5H 5D AS", "5C", "5H; 5D"),
    ("C7", "5H 5D AS", "10S", "5H 5D"),
    ("C8", "AS AH 2C", "AD", "AS; AH"),
    ("C9", "", "7D", ""),
    ("C10", "JH QD KC", "9S", ""),
    ("C11", "2S 2H 3D 3C", "5D", "2S 3D; 2S 3C; 2H 3D; 2H 3C"),
    ("C12", "AS 2S 3S 4S", "10D", "AS 2S 3S 4S"),
    ("C13", "9C 8D", "10H", ""),
    ("C14", "6H 4H 3S 2S AC 5D", "6C", "2S 3S AC; 2S 4H; 6H; 5D AC"),
    ("C15", "10S JS 5H 5C KD", "JD", "JS"),
    (
        "C16",
        "AH 2H 3H 4H 5H 6H 7H 8H 9H",
        "10H",
        "AH 2H 3H 4H; AH 2H 7H; AH 3H 6H; AH 4H 5H; AH 9H; 2H 3H 5H; 2H 8H; 3H 7H; 4H 6H",
    ),
    ("C17", "4C 5C 9D", "9C", "9D; 4C 5C"),
    ("C18", "2D 3D 5D 5S KH JD", "5H", "5S; 2D 3D; 5D"),
    ("C19", "AC 2C 3C 4C 6S KS", "7D", "6S AC; AC 2C 4C; 3C 4C"),
]


@pytest.mark.parametrize("case", CAPTURE_CASES, ids=lambda c: c[0])
def test_capture_cases(case: tuple[str, str, str, str]) -> None:
    _, table, card, expected = case
    got = captures(table.split(), card)
    assert as_sets(got) == sets(expected)
    # Canonical order: each set ascending, the sets in lexicographic order of id tuples.
    keys = [[cid(c) for c in s] for s in got]
    assert all(k == sorted(k) for k in keys)
    assert keys == sorted(keys)


C20_CANONICAL = """AS 2S AH 2H AD 2D AC; AS 2S AH 2H 4C; AS 2S AH AD AC 4C; AS 2S AH 2D 4C;
AS 2S 2H AD 4C; AS 2S 2H AC 4C; AS 2S AD 2D 4C; AS 2S 2D AC 4C; AS AH 2H AD AC 4C; AS AH 2H 2D 4C;
AS AH AD 2D AC 4C; AS 2H AD 2D 4C; AS 2H 2D AC 4C; 2S AH 2H AD 4C; 2S AH 2H AC 4C; 2S AH AD 2D 4C;
2S AH 2D AC 4C; 2S 2H AD AC 4C; 2S 2H 2D 4C; 2S AD 2D AC 4C; AH 2H AD 2D 4C; AH 2H 2D AC 4C;
2H AD 2D AC 4C"""


def test_c20_canonical_order() -> None:
    got = captures("AS AH AD AC 2S 2H 2D 4C".split(), "10H")
    expected = [part.split() for part in C20_CANONICAL.split(";")]
    assert got == expected
    assert len(got) == 23
    assert max(got, key=len) == ["AS", "2S", "AH", "2H", "AD", "2D", "AC"]
    assert [s for s in got if len(s) == 4] == [["2S", "2H", "2D", "4C"]]


def test_c21_c22_counts() -> None:
    hd = [r + s for s in "HD" for r in RANKS[:10]]
    assert [len(captures(hd, c)) for c in ("10S", "9S", "5S", "AS")] == [93, 66, 14, 2]
    expected = [3, 9, 23, 50, 99, 189, 343, 600, 1023, 1701]
    for r, count in zip(RANKS[:10], expected, strict=True):
        card = r + "S"
        table = [x + s for s in "SHDC" for x in RANKS[:10] if x + s != card]
        assert len(captures(table, card)) == count


def test_force_single_match_variants() -> None:
    def reduced(table: str, card: str) -> set[frozenset[str]]:
        got = capture_sets(ids(table), cid(card), force_single_match=True)
        return {frozenset(CICERA.format_many(s)) for s in got}

    assert reduced("7H 5C 2D KS", "7S") == sets("7H")
    assert reduced("6H 4H 3S 2S AC 5D", "6C") == sets("6H")
    assert reduced("4C 5C 9D", "9C") == sets("9D")
    assert reduced("2D 3D 5D 5S KH JD", "5H") == sets("5S; 5D")
    # No single card of the value: combinations stay.
    assert reduced("AS 3C 4D 2H 6S", "7C") == sets("AS 6S; AS 2H 4D; 4D 3C")
    assert reduced("KH KD 5S", "KS") == sets("KH; KD")
    # Through the state: after ``capture 7S`` only ``take 7H``.
    state = position({0: "7S 9C", 1: "QC"}, "7H 5C 2D KS", force_single_match=True)
    assert "capture 7S" in legal_strings(state) and "play 7S" in legal_strings(state)
    act(state, "capture 7S")
    assert legal_strings(state) == ["take 7H"]


def brute_force(table: list[int], card: int) -> list[tuple[int, ...]]:
    found = []
    for size in range(1, len(table) + 1):
        for subset in itertools.combinations(sorted(table), size):
            rank = card % 13
            if rank >= 10:
                ok = size == 1 and subset[0] % 13 == rank
            else:
                ok = (
                    all(t % 13 <= 9 for t in subset) and sum(t % 13 + 1 for t in subset) == rank + 1
                )
            if ok:
                found.append(subset)
    return sorted(found)


def test_captures_against_brute_force() -> None:
    rng = random.Random(2024)
    low = [c for c in range(52) if c % 13 <= 4 or c % 13 >= 10]
    for trial in range(300):
        pool = low if trial % 2 else list(range(52))
        cards = rng.sample(pool, rng.randint(1, 13))
        card, table = cards[0], cards[1:]
        got = capture_sets(table, card)
        assert got == brute_force(table, card), (table, card)
        assert captures(CICERA.format_many(table), CICERA.to_string(card)) == [
            CICERA.format_many(s) for s in got
        ]


def test_capture_count_by_generating_function() -> None:
    """Rules §11.2: the number of sets is the coefficient of z^v in prod (1 + z^x)^k_x."""
    rng = random.Random(5)
    for _ in range(200):
        cards = rng.sample(range(52), rng.randint(2, 30))
        card, table = cards[0], cards[1:]
        if card % 13 > 9:
            continue
        poly = [1] + [0] * 10
        for t in table:
            if t % 13 <= 9:
                x = t % 13 + 1
                poly = [poly[s] + (poly[s - x] if s >= x else 0) for s in range(11)]
        assert len(capture_sets(table, card)) == poly[card % 13 + 1]


def test_evaluator_errors() -> None:
    for bad in (["ZZ"], ["1S"], ["AS", "11H"], [5], [None]):
        with pytest.raises(ParseError):
            captures(bad, "7S")  # type: ignore[arg-type]
        with pytest.raises(ParseError):
            score_hand(bad, [])  # type: ignore[arg-type]
        with pytest.raises(ParseError):
            score_hand([], bad)  # type: ignore[arg-type]
    for bad_card in ("ZZ", "", "7X", "S7", None):
        with pytest.raises(ParseError):
            captures(["AS"], bad_card)  # type: ignore[arg-type]
    with pytest.raises(ParseError):
        captures("AS 2S", "3S")  # type: ignore[arg-type]
    with pytest.raises(ValueError):
        captures(["AS", "as"], "3S")
    with pytest.raises(ValueError):
        captures(["AS", "2S"], "2S")
    with pytest.raises(ValueError):
        score_hand(["AS", "AS"], [])
    with pytest.raises(ValueError):
        score_hand(["AS"], ["2S", "as"])
    assert captures(["th", "5c"], "ts") == [["10H"]]


# ----------------------------------------------------------------------------------------------
# bonuses (rules §10.2)
# ----------------------------------------------------------------------------------------------

# table, card, chosen, last trail, total (any), total (rank_match)
BONUS_CASES = [
    ("P1", "3H 4C", "7D", "3H 4C", None, 1, 1),
    ("P2", "4S 5S KH", "9S", "4S 5S", None, 1, 1),
    ("P3", "2C 3D 4H 8S", "9C", "2C 3D 4H", None, 1, 1),
    ("P4", "2H 3H 4H", "9H", "2H 3H 4H", "4H", 4, 3),
    ("P5", "9C 6D", "6S", "6D", "6D", 1, 1),
    ("P6a", "6H 6D 9C", "6S", "6H", "6D", 0, 0),
    ("P6b", "6H 6D 9C", "6S", "6D", "6D", 1, 1),
    ("P7", "3C 4D KS", "7S", "3C 4D", "3C", 1, 0),
    ("P8", "QD", "QS", "QD", "QD", 2, 2),
    ("P9", "4S 5S", "9H", "4S 5S", None, 1, 1),
    ("P10", "AS 2S 3S 4S", "10S", "AS 2S 3S 4S", None, 3, 3),
    ("P11", "AD 2D 3D 4D KC", "10D", "AD 2D 3D 4D", "KC", 2, 2),
    ("P12", "5C 2C 3C AH", "5H", "2C 3C", None, 0, 0),
]


@pytest.mark.parametrize("case", BONUS_CASES, ids=lambda c: c[0])
def test_bonus_cases(case: tuple[str, str, str, str, str | None, int, int]) -> None:
    _, table, card, chosen, last, total_any, total_rank = case
    assert capture_bonus(table, card, chosen, last) == total_any
    assert capture_bonus(table, card, chosen, last, left_bonus_mode="rank_match") == total_rank


def test_bonus_switches() -> None:
    # P4 earns all four; each switch removes exactly its own point.
    for key in ("bonus_sweep", "bonus_left", "bonus_single_suit", "bonus_three_plus"):
        assert capture_bonus("2H 3H 4H", "9H", "2H 3H 4H", "4H", **{key: False}) == 3
    off = {k: False for k in ("bonus_sweep", "bonus_left", "bonus_single_suit", "bonus_three_plus")}
    assert capture_bonus("2H 3H 4H", "9H", "2H 3H 4H", "4H", **off) == 0
    # P12's alternative {5C} is a one-card set: never single suit, no sweep.
    assert capture_bonus("5C 2C 3C AH", "5H", "5C", None) == 0
    # P3: the only option.
    assert captures("2C 3D 4H 8S".split(), "9C") == [["4H", "3D", "2C"]]


def test_p13_trailing_never_scores() -> None:
    state = position({0: "5H KC", 1: "QC"}, "5C")
    act(state, "play 5H")
    v = state.view()
    assert v["table"] == ["5H", "5C"] and v["bonus"] == [0, 0]
    assert v["last_trail"] == "5H" and v["to_play"] == 1


def test_p14_partners_card_does_not_qualify() -> None:
    state = position({0: "5H KC", 1: "8C QC", 2: "5S JD", 3: "KH"}, "KD")
    act(state, "play 5H", "play 8C")
    assert state.view()["last_trail"] == "8C"
    act(state, "capture 5S", "take 5H")
    v = state.view()
    assert v["bonus"] == [0, 0]
    assert v["table"] == ["KD", "8C"]
    assert v["piles"][0] == ["5S", "5H"]


def test_p15_preceding_capture_clears_last_trail() -> None:
    state = position({0: "7D KC", 1: "2S QC", 2: "JD", 3: "KH"}, "7C 2H")
    act(state, "capture 7D")
    assert legal_strings(state) == ["take 7C"]
    act(state, "take 7C")
    v = state.view()
    assert v["bonus"] == [0, 0] and v["last_trail"] is None and v["last_capturer"] == 0
    act(state, "capture 2S", "take 2H")
    assert state.view()["bonus"] == [0, 1]  # sweep only


def p16(**config: Any) -> CiceraState:
    return position(
        {0: "4S", 1: "5C", 2: "QH", 3: "8D"}, "5H 9C KD", game_mode="single_hand", **config
    )


def test_p16_last_four_plays_and_leftovers() -> None:
    state = p16()
    act(state, "play 4S", "capture 5C")
    assert legal_strings(state) == ["take 5H"]
    act(state, "take 5H")
    assert state.view()["bonus"] == [0, 0]
    assert state.view()["table"] == canon("4S 9C KD")
    assert legal_strings(state) == ["play QH"]
    act(state, "play QH")
    assert legal_strings(state) == ["play 8D"]
    act(state, "play 8D")
    assert state.is_terminal()
    v = state.view()
    assert v["table"] == [] and v["phase"] == "over" and v["to_play"] is None
    assert v["piles"] == [[], canon("5C 5H 9C KD 4S QH 8D")]
    assert v["bonus"] == [0, 0]
    points = v["past_hands"][0]["points"]
    assert points["bonus"] == [0, 0]
    assert points["cards"] == [0, 2]  # 0 against 7 cards
    assert points["spades"] == [0, 1]


def test_e8_leftovers_score_without_bonus() -> None:
    state = position({0: "4S", 1: "5C", 2: "QH", 3: "10D"}, "5H 9C KD", game_mode="single_hand")
    act(state, "play 4S", "capture 5C", "take 5H", "play QH")
    assert legal_strings(state) == ["play 10D"]
    act(state, "play 10D")
    points = state.view()["past_hands"][0]["points"]
    assert points["ten_of_diamonds"] == [0, 1]
    assert points["bonus"] == [0, 0]


@pytest.mark.parametrize(
    ("config", "expected"),
    [
        ({}, 4),
        ({"left_bonus_mode": "rank_match"}, 3),
        ({"sweep_on_last_play_counts": False}, 3),
        ({"left_bonus_mode": "rank_match", "sweep_on_last_play_counts": False}, 2),
    ],
)
def test_p17_sweeps_at_the_end(config: dict[str, Any], expected: int) -> None:
    state = position({0: "3D", 1: "5S", 2: "4H", 3: "4C"}, "2C", game_mode="single_hand", **config)
    act(state, "play 3D", "capture 5S", "take 3D", "take 2C")
    first = 1 if config.get("left_bonus_mode") == "rank_match" else 2
    assert state.view()["bonus"] == [0, first]
    act(state, "play 4H", "capture 4C", "take 4H")
    assert state.is_terminal()
    v = state.view()
    assert v["bonus"] == [0, expected]
    assert v["past_hands"][0]["points"]["bonus"] == [0, expected]
    assert v["table"] == [] and v["last_capturer"] == 3


# ----------------------------------------------------------------------------------------------
# scoring (rules §10.3)
# ----------------------------------------------------------------------------------------------

E_CASES = {
    "E1": (
        "S A 2 3 4 5 8 10; H A 2 3 4 5 6 7 8 9 10 Q K; D A 2 3 4 5 6 7 10",
        "S 6 7 9 J Q K; H J; D 8 9 J Q K; C all",
        [2, 1, 1, 5, 1, 0],
        [0, 0, 0, 0, 0, 1],
    ),
    "E2": (
        "S A 2 4 5 6 7 8; H all; D A 2 3 4 5 6",
        "S 3 9 10 J Q K; D 7 8 9 10 J Q K; C all",
        [0, 1, 1, 0, 0, 1],
        [0, 0, 0, 0, 1, 0],
    ),
    "E3": (
        "S A 2 3 5 6 7 8 9 10; C all; D 10",
        "S 4 J Q K; H all; D all but 10",
        [0, 1, 1, 3, 1, 0],
        [2, 0, 0, 0, 0, 1],
    ),
    "E4": (
        "S 2..K; D all; H A 2",
        "S A; H 3..K; C all",
        [2, 1, 1, 0, 1, 0],
        [0, 0, 0, 0, 0, 1],
    ),
    "E5": (
        "S all; H 2..10 Q K",
        "H A J; D all; C all",
        [0, 1, 1, 13, 0, 0],
        [2, 0, 0, 0, 1, 1],
    ),
    "E6": (
        "S A..J; C all; H J",
        "S Q K; H all but J; D all",
        [0, 1, 1, 11, 0, 1],
        [2, 0, 0, 0, 1, 0],
    ),
}
E_SIZES = {"E1": (27, 25), "E2": (26, 26), "E3": (23, 29), "E4": (27, 25), "E5": (24, 28)}


@pytest.mark.parametrize("name", sorted(E_CASES))
def test_score_hand_cases(name: str) -> None:
    a_spec, b_spec, a_pts, b_pts = E_CASES[name]
    a, b = pile(a_spec), pile(b_spec)
    assert len(set(a) | set(b)) == 52 and len(a) + len(b) == 52
    if name in E_SIZES:
        assert (len(a), len(b)) == E_SIZES[name]
    got = score_hand(a, b)
    assert list(got) == [c for c in CATEGORIES if c != "bonus"]
    for i, category in enumerate(CATEGORIES[:6]):
        assert got[category] == [a_pts[i], b_pts[i]], category
    assert got["total"] == [sum(a_pts), sum(b_pts)]


def test_score_hand_totals_from_the_rules() -> None:
    totals = {"E1": [10, 1], "E2": [3, 1], "E3": [6, 3], "E4": [5, 1], "E5": [15, 4]}
    totals["E6"] = [14, 3]  # without E6's bonuses 2 and 5
    for name, expected in totals.items():
        a_spec, b_spec, _, _ = E_CASES[name]
        assert score_hand(pile(a_spec), pile(b_spec))["total"] == expected, name
    assert score_hand([], []) == {c: [0, 0] for c in CATEGORIES if c != "bonus"}  # E7 nobody
    # SEED example: the spade-related part of E1 is 7.
    e1 = score_hand(pile(E_CASES["E1"][0]), pile(E_CASES["E1"][1]))
    assert e1["spades"][0] + e1["two_of_spades"][0] + e1["napola"][0] == 7


def finish_with(
    a_spec: str, b_spec: str, bonus: tuple[int, int] = (0, 0), **config: Any
) -> CiceraState:
    """Play the last card of a hand so that the piles end as ``a_spec`` / ``b_spec``.

    The last card of team 0's pile is held by seat 0, who trails it; team 0 made the last
    capture, so it comes back as a leftover (no bonus).
    """
    a, b = pile(a_spec), pile(b_spec)
    last = a[-1]
    state = position(
        {0: last},
        "",
        dealer=3,
        last_capturer=2,
        piles=(" ".join(a[:-1]), " ".join(b)),
        bonus=bonus,
        **config,
    )
    act(state, f"play {last}")
    return state


@pytest.mark.parametrize("name", sorted(E_CASES))
def test_scoring_through_the_end_of_a_hand(name: str) -> None:
    a_spec, b_spec, a_pts, b_pts = E_CASES[name]
    bonus = (2, 5) if name == "E6" else (0, 0)
    state = finish_with(a_spec, b_spec, bonus, game_mode="single_hand")
    assert state.is_terminal()
    points = state.view()["past_hands"][0]["points"]
    assert list(points) == list(CATEGORIES)
    for i, category in enumerate(CATEGORIES[:6]):
        assert points[category] == [a_pts[i], b_pts[i]], category
    assert points["bonus"] == list(bonus)
    total = [sum(a_pts) + bonus[0], sum(b_pts) + bonus[1]]
    assert points["total"] == total
    diff = float(total[0] - total[1])
    assert state.returns() == [diff, -diff, diff, -diff]
    assert state.rewards() == state.returns()
    assert state.view()["scores"] == total
    assert state.view()["winner"] is None


def test_scoring_options() -> None:
    e2 = E_CASES["E2"]
    points = finish_with(e2[0], e2[1], game_mode="single_hand", cards_tie="one_each")
    assert points.view()["past_hands"][0]["points"]["total"] == [4, 2]
    e5 = E_CASES["E5"]
    state = finish_with(e5[0], e5[1], game_mode="single_hand", napola_courts_extend=False)
    assert state.view()["past_hands"][0]["points"]["total"] == [12, 4]
    e6 = E_CASES["E6"]
    state = finish_with(e6[0], e6[1], (2, 5), game_mode="single_hand", napola_courts_extend=False)
    assert state.view()["past_hands"][0]["points"]["total"] == [15, 8]
    e1 = E_CASES["E1"]
    state = finish_with(e1[0], e1[1], game_mode="single_hand", spades_majority_points=2)
    assert state.view()["past_hands"][0]["points"]["spades"] == [2, 0]


def always_trail(state: CiceraState) -> None:
    while not state.is_terminal():
        state.apply_action(min(state.legal_actions()))


@pytest.mark.parametrize("dealer", [0, 1, 2, 3])
def test_e7_nobody_captures(dealer: int) -> None:
    game = load_game("cicera", game_mode="single_hand", first_dealer=dealer)
    state = game.new_initial_state(seed=dealer)
    always_trail(state)
    v = state.view()
    assert all(p["captured"] is None for p in v["plays"]) and len(v["plays"]) == 48
    assert v["past_hands"][0]["points"] == {c: [0, 0] for c in CATEGORIES}
    assert v["piles"] == [[], []] and len(v["table"]) == 52  # they stay, scored by nobody
    assert state.returns() == [0.0] * 4
    game = load_game(
        "cicera", game_mode="single_hand", first_dealer=dealer, leftover_if_no_capture="dealer_team"
    )
    state = game.new_initial_state(seed=dealer)
    always_trail(state)
    v = state.view()
    expected = [0, 0]
    expected[dealer % 2] = 19
    assert v["past_hands"][0]["points"]["total"] == expected
    assert len(v["piles"][dealer % 2]) == 52
    diff = float(expected[0] - expected[1])
    assert state.returns() == [diff, -diff, diff, -diff]


def test_one_capture_then_trails_gives_the_leftovers() -> None:
    """The only capture of the hand wins all 52 cards: 19 points plus its bonuses."""
    game = load_game("cicera", game_mode="single_hand", first_dealer=3)
    for seed in range(40):
        state = game.new_initial_state(seed=seed)
        caps = [a for a in state.legal_actions() if 52 <= a < 104]
        if not caps:
            continue
        state.apply_action(caps[0])
        while state.view()["phase"] == "capture":
            state.apply_action(state.legal_actions()[0])
        bonus = state.view()["bonus"][0]
        always_trail(state)
        v = state.view()
        assert v["last_capturer"] == 0
        assert len(v["piles"][0]) == 52
        assert v["past_hands"][0]["points"]["total"] == [19 + bonus, 0]
        return
    raise AssertionError("no seed gave the eldest a capture")


# ----------------------------------------------------------------------------------------------
# the match (rules §10.4)
# ----------------------------------------------------------------------------------------------


def end_hand(scores: tuple[int, int], bonus: tuple[int, int], **config: Any) -> CiceraState:
    """The last play of a hand with no pile: the hand points are the bonuses."""
    state = position({0: "7S"}, "", scores=scores, bonus=bonus, **config)
    act(state, "play 7S")
    return state


def test_m1_to_m4() -> None:
    m1 = end_hand((45, 40), (6, 5))
    assert m1.is_terminal() and m1.view()["winner"] == 0 and m1.view()["scores"] == [51, 45]
    assert m1.returns() == [1.0, -1.0, 1.0, -1.0] and m1.rewards() == m1.returns()
    m2 = end_hand((48, 47), (5, 6))
    assert not m2.is_terminal() and m2.view()["scores"] == [53, 53]
    assert m2.view()["hand"] == 1 and m2.view()["dealer"] == 0 and m2.current_player() == 1
    assert m2.view()["past_hands"][0]["scores"] == [53, 53]
    assert m2.returns() == [0.0] * 4
    m3 = end_hand((49, 47), (4, 9))
    assert m3.is_terminal() and m3.view()["winner"] == 1 and m3.view()["scores"] == [53, 56]
    assert m3.returns() == [-1.0, 1.0, -1.0, 1.0]
    m4 = end_hand((50, 20), (0, 3))
    assert not m4.is_terminal() and m4.view()["scores"] == [50, 23]
    # Other targets.
    assert end_hand((20, 0), (1, 0), target_score=21).view()["winner"] == 0
    assert not end_hand((20, 0), (0, 0), target_score=21).is_terminal()


def test_m5_no_mid_hand_win() -> None:
    state = position({0: "10S KC", 1: "QC", 2: "JC", 3: "KD"}, "AS 2S 3S 4S", scores=(49, 30))
    act(state, "capture 10S", "take AS", "take 2S", "take 3S", "take 4S")
    v = state.view()
    assert v["bonus"] == [3, 0] and v["scores"] == [49, 30]
    assert not state.is_terminal() and state.returns() == [0.0] * 4


@pytest.mark.parametrize("napoleone", [False, True])
def test_m6_all_spades(napoleone: bool) -> None:
    a_spec, b_spec, _, _ = E_CASES["E5"]
    state = finish_with(a_spec, b_spec, all_spades_wins_match=napoleone)
    points = state.view()["past_hands"][0]
    assert points["points"]["total"] == [15, 4]
    # scores before the hand: 10-40
    state = position(
        {0: "KH"},
        "",
        last_capturer=0,
        piles=(" ".join(x for x in pile(a_spec) if x != "KH"), " ".join(pile(b_spec))),
        scores=(10, 40),
        all_spades_wins_match=napoleone,
    )
    act(state, "play KH")
    assert state.view()["past_hands"][0]["scores"] == [25, 44]
    if napoleone:
        assert state.is_terminal() and state.view()["winner"] == 0
        assert state.returns() == [1.0, -1.0, 1.0, -1.0]
    else:
        assert not state.is_terminal() and state.view()["hand"] == 1


def test_max_hands_draw_and_single_hand() -> None:
    state = end_hand((10, 10), (1, 1), max_hands=1)
    assert state.is_terminal() and state.view()["winner"] is None
    assert state.returns() == [0.0] * 4
    state = end_hand((60, 20), (1, 1), max_hands=1)  # a winner beats the safeguard
    assert state.view()["winner"] == 0
    state = end_hand((0, 0), (3, 1), game_mode="single_hand")
    assert state.is_terminal() and state.view()["winner"] is None
    assert state.returns() == [2.0, -2.0, 2.0, -2.0]


def test_match_rotates_the_dealer_and_uses_the_seed() -> None:
    game = load_game("cicera", first_dealer=1, target_score=30)
    state = game.new_initial_state(seed=77)
    rng = random.Random(1)
    dealers = [state.view()["dealer"]]
    decks = []
    while not state.is_terminal():
        h = state.view()["hand"]
        state.apply_action(rng.choice(state.legal_actions()))
        if not state.is_terminal() and state.view()["hand"] != h:
            dealers.append(state.view()["dealer"])
            assert state.current_player() == (dealers[-1] + 1) % 4
    decks = state._decks
    assert dealers == [(1 + i) % 4 for i in range(len(dealers))]
    assert len(dealers) >= 2
    stream = SplitMix64(77)
    for deck in decks:
        fresh = list(range(52))
        stream.shuffle(fresh)
        assert deck == fresh
    past = state.view()["past_hands"]
    assert [p["dealer"] for p in past] == dealers
    assert past[-1]["scores"] == state.view()["scores"]
    assert max(state.view()["scores"]) >= 30


# ----------------------------------------------------------------------------------------------
# the deal
# ----------------------------------------------------------------------------------------------


@pytest.mark.parametrize("style", ["one_at_a_time", "packets"])
@pytest.mark.parametrize("packet", [12, 6, 4])
@pytest.mark.parametrize("dealer", [0, 3])
def test_the_deal(style: str, packet: int, dealer: int) -> None:
    rng = random.Random(packet * 10 + dealer)
    deck = list(range(52))
    rng.shuffle(deck)
    game = load_game(
        "cicera",
        packet_size=packet,
        deal_style=style,
        first_dealer=dealer,
        game_mode="single_hand",
    )
    state = game.new_initial_state(seed=5, deck=CICERA.format_many(deck))
    seats, table = deal_positions(dealer, packet, style)
    v = state.view()
    assert v["dealer"] == dealer and v["to_play"] == (dealer + 1) % 4
    assert v["table"] == CICERA.format_many(sorted(deck[i] for i in table))
    assert v["stock_size"] == 52 - 4 * packet - 4
    assert v["hand_sizes"] == [packet] * 4
    per_packet = [[seats[q][k * packet : (k + 1) * packet] for q in range(4)] for k in range(4)]
    for k in range(12 // packet):
        v = state.view()
        for q in range(4):
            assert v["hands"][q] == CICERA.format_many(sorted(deck[i] for i in per_packet[k][q]))
            assert state.view(q)["hands"][q] == v["hands"][q]
        assert v["to_play"] == (dealer + 1) % 4
        for _ in range(4 * packet):
            state.apply_action(min(state.legal_actions()))  # trail the lowest card
        if k < 12 // packet - 1:
            assert state.view()["stock_size"] == 52 - 4 - 4 * packet * (k + 2)
    assert state.is_terminal()


def test_first_dealer_and_shuffle_come_from_the_seed() -> None:
    for seed in (0, 1, 123, 2**64 - 1):
        state = load_game("cicera").new_initial_state(seed=seed)
        rng = SplitMix64(seed)
        dealer = rng.below(4)
        deck = list(range(52))
        rng.shuffle(deck)
        v = state.view()
        assert v["dealer"] == dealer
        assert v["table"] == CICERA.format_many(sorted(deck[48:]))
        for q in range(4):
            mine = [deck[i] for i in range(48) if (dealer + 1 + i % 4) % 4 == q]
            assert v["hands"][q] == CICERA.format_many(sorted(mine))
        fixed = load_game("cicera", first_dealer=2).new_initial_state(seed=seed)
        rng = SplitMix64(seed)
        deck = list(range(52))
        rng.shuffle(deck)
        assert fixed.view()["table"] == CICERA.format_many(sorted(deck[48:]))
    same = load_game("cicera").new_initial_state(seed=9)
    assert same == load_game("cicera").new_initial_state(seed=9)
    assert same.view() == load_game("cicera").new_initial_state(seed=9).view()


def test_given_decks() -> None:
    pack = CICERA.format_many(range(52))
    second = pack[::-1]
    game = load_game("cicera", first_dealer=0)
    state = game.new_initial_state(seed=3, decks=[pack, second])
    v = state.view()
    assert v["table"] == pack[48:]
    assert v["hands"][1] == pack[0:48:4]
    for _ in range(48):
        state.apply_action(min(state.legal_actions()))
    assert state.view()["hand"] == 1
    assert state.view()["table"] == sorted(second[48:], key=cid)
    assert state.view()["hands"][2] == sorted(second[0:48:4], key=cid)
    # Same stream as without decks: the shuffle is still drawn.
    plain = game.new_initial_state(seed=3)
    assert game.new_initial_state(seed=3, deck=pack)._rng == plain._rng


def test_last_trail_carries_over_between_packets() -> None:
    """The dealer's trail that ends a packet is the eldest's left capture candidate."""
    deck = list(range(52))
    random.Random(8).shuffle(deck)
    game = load_game("cicera", packet_size=4, first_dealer=3, game_mode="single_hand")
    state = game.new_initial_state(seed=1, deck=CICERA.format_many(deck))
    for _ in range(15):
        state.apply_action(min(state.legal_actions()))
    dealer_card = min(state.legal_actions())
    state.apply_action(dealer_card)
    v = state.view()
    assert v["hand_sizes"] == [4, 4, 4, 4] and v["to_play"] == 0
    assert v["last_trail"] == CICERA.to_string(dealer_card)


# ----------------------------------------------------------------------------------------------
# actions (rules §10.5, §12)
# ----------------------------------------------------------------------------------------------


def test_action_encoding_cases() -> None:
    state = position({0: "7S 9C", 1: "QC"}, "7H 5C 2D KS")
    legal = state.legal_actions()
    assert 6 in legal and 58 in legal
    assert legal == sorted(legal)
    assert state.action_to_string(6) == "play 7S" and state.action_to_string(58) == "capture 7S"
    branch = state.clone()
    state.apply_action(58)
    assert state.legal_actions() == [123, 131]
    assert state.current_player() == 0
    v = state.view()
    assert v["phase"] == "capture" and v["pending"] == "7S" and v["taken"] == []
    assert v["hands"][0] == ["9C"] and v["table"] == ["KS", "7H", "2D", "5C"]
    state.apply_action(131)
    assert state.legal_actions() == [147]
    assert state.view()["taken"] == ["2D"] and state.view()["plays"] == []
    state.apply_action(147)
    v = state.view()
    assert v["phase"] == "play" and v["pending"] is None and v["taken"] == []
    assert v["piles"][0] == ["7S", "2D", "5C"] and v["table"] == ["KS", "7H"]
    assert v["plays"] == [{"seat": 0, "card": "7S", "captured": ["2D", "5C"]}]
    assert state.current_player() == 1
    branch.apply_action(58)
    branch.apply_action(123)
    assert branch.view()["piles"][0] == ["7S", "7H"] and branch.current_player() == 1
    with pytest.raises(IllegalActionError):
        state.clone().apply_action(147)

    kings = position({0: "KS", 1: "QC"}, "KH KD 5S")
    kings.apply_action(64)
    assert kings.legal_actions() == [129, 142]
    assert [kings.action_to_string(a) for a in (129, 142)] == ["take KH", "take KD"]


def take_sequences(state: CiceraState) -> list[tuple[int, ...]]:
    """Every TAKE sequence from a capture under way to its resolution."""
    out: list[tuple[int, ...]] = []
    for a in state.legal_actions():
        assert 104 <= a < 156
        child = state.clone()
        child.apply_action(a)
        if child.view()["phase"] == "capture" and child.view()["to_play"] == state.current_player():
            out += [(a - 104,) + rest for rest in take_sequences(child)]
        else:
            out.append((a - 104,))
    return out


def test_take_sequences_are_the_capture_sets() -> None:
    rng = random.Random(11)
    checked = 0
    while checked < 150:
        cards = rng.sample(range(52), rng.randint(2, 11))
        card, table = cards[0], cards[1:]
        fsm = rng.random() < 0.3
        spare = CICERA.format_many(c for c in range(52) if c not in cards)
        state = position(
            {0: f"{CICERA.to_string(card)} {spare[0]}", 1: spare[1], 2: spare[2], 3: spare[3]},
            " ".join(CICERA.format_many(table)),
            force_single_match=fsm,
        )
        expected = capture_sets(table, card, fsm)
        assert (52 + card in state.legal_actions()) == bool(expected)
        assert card in state.legal_actions()  # trailing is always legal by default
        if not expected:
            continue
        state.apply_action(52 + card)
        assert take_sequences(state) == expected
        checked += 1


def test_capture_compulsory() -> None:
    # 7S takes 7H or 2D+5C, KH takes KS, 8C cannot capture.
    state = position({0: "7S 8C KH", 1: "QC"}, "7H 5C 2D KS", capture_compulsory=True)
    assert legal_strings(state) == ["play 8C", "capture 7S", "capture KH"]
    plain = position({0: "7S 8C KH", 1: "QC"}, "7H 5C 2D KS")
    assert legal_strings(plain) == ["play 7S", "play KH", "play 8C", "capture 7S", "capture KH"]
    # Nothing can capture: every card may be trailed.
    empty = position({0: "7S 8C KH", 1: "QC"}, "", capture_compulsory=True)
    assert legal_strings(empty) == ["play 7S", "play KH", "play 8C"]


def test_action_strings() -> None:
    state = load_game("cicera").new_initial_state(seed=4)
    for a in range(156):
        text = state.action_to_string(a)
        assert state.string_to_action(text) == a
    assert state.string_to_action("play TD") == 35
    assert state.string_to_action("Capture 10d") == 52 + 35
    assert state.string_to_action("TAKE jh") == 104 + 23
    assert state.string_to_action("  play   AS ") == 0
    for bad in ("play", "play 1S", "take", "capture AS AS", "trail AS", "playAS", "", "rob AS"):
        with pytest.raises(ParseError):
            state.string_to_action(bad)
    with pytest.raises(ParseError):
        state.string_to_action(5)  # type: ignore[arg-type]
    for bad_id in (-1, 156, 1.0, "0", None, True):
        with pytest.raises(IllegalActionError):
            state.action_to_string(bad_id)  # type: ignore[arg-type]


def test_errors_leave_the_state_unchanged() -> None:
    state = load_game("cicera").new_initial_state(seed=6)
    random_play(state, random.Random(6), 5)
    before, text = state.clone(), state.serialize()
    legal = set(state.legal_actions())
    for bad in [a for a in range(156) if a not in legal][:20] + [-1, 156, 2.0, None, True]:
        with pytest.raises(IllegalActionError):
            state.apply_action(bad)  # type: ignore[arg-type]
        assert state == before and state.serialize() == text
    for method in ("view", "observation_tensor", "observation_string", "information_state_string"):
        for seat in (-1, 4, 1.5, "0"):
            with pytest.raises(ValueError):
                getattr(state, method)(seat)
    with pytest.raises(ValueError):
        state.resample_from_infostate(4, 1)
    with pytest.raises(ConfigError):
        state.resample_from_infostate(0, -1)
    random_play(state, random.Random(1))
    with pytest.raises(IllegalActionError):
        state.apply_action(0)
    assert state.legal_actions() == [] and state.current_player() == TERMINAL
    assert not state.legal_actions_mask().any()


# ----------------------------------------------------------------------------------------------
# view and observation layout
# ----------------------------------------------------------------------------------------------

VIEW_KEYS = [
    "game",
    "viewer",
    "players",
    "teams",
    "hand",
    "dealer",
    "phase",
    "to_play",
    "hands",
    "hand_sizes",
    "stock_size",
    "table",
    "last_trail",
    "pending",
    "taken",
    "plays",
    "piles",
    "bonus",
    "last_capturer",
    "scores",
    "past_hands",
    "winner",
]
BLOCKS = [
    ("phase", 3),
    ("dealer", 4),
    ("to_play", 4),
    ("hand", 52),
    ("table", 52),
    ("pending", 52),
    ("taken", 52),
    ("last_trail", 52),
    ("piles", 104),
    ("played", 208),
    ("last_capturer", 5),
    ("sizes", 52),
    ("stock", 33),
    ("scalars", 4),
]


def decode(obs: np.ndarray) -> dict[str, np.ndarray]:
    out, pos = {}, 0
    for name, size in BLOCKS:
        out[name] = obs[pos : pos + size]
        pos += size
    assert pos == 677 == obs.shape[0]
    return out


def onehot(n: int, i: int | None) -> list[float]:
    return [1.0 if k == i else 0.0 for k in range(n)]


def cards_vector(cards: list[str] | None) -> list[float]:
    vec = [0.0] * 52
    for c in cards or []:
        vec[cid(c)] = 1.0
    return vec


def check_observation(state: CiceraState, seat: int) -> None:
    """The observation tensor against the view of ``seat`` (docs/rules/cicera.md)."""
    v = state.view(seat)
    obs = state.observation_tensor(seat)
    assert obs.dtype == np.float32 and obs.shape == (677,)
    b = decode(obs)

    def rel(q: int) -> int:
        return (q - seat) % 4

    mine = seat % 2
    assert list(b["phase"]) == onehot(3, ["play", "capture", "over"].index(v["phase"]))
    assert list(b["dealer"]) == onehot(4, rel(v["dealer"]))
    assert list(b["to_play"]) == onehot(4, None if v["to_play"] is None else rel(v["to_play"]))
    assert list(b["hand"]) == cards_vector(v["hands"][seat])
    assert list(b["table"]) == cards_vector(v["table"])
    assert list(b["pending"]) == cards_vector([v["pending"]] if v["pending"] else [])
    assert list(b["taken"]) == cards_vector(v["taken"])
    assert list(b["last_trail"]) == cards_vector([v["last_trail"]] if v["last_trail"] else [])
    assert list(b["piles"]) == cards_vector(v["piles"][mine]) + cards_vector(v["piles"][1 - mine])
    played: list[list[str]] = [[] for _ in range(4)]
    for play in v["plays"]:
        played[rel(play["seat"])].append(play["card"])
    assert list(b["played"]) == sum((cards_vector(p) for p in played), [])
    lc = v["last_capturer"]
    assert list(b["last_capturer"]) == onehot(5, 4 if lc is None else rel(lc))
    sizes = [0] * 4
    for q in range(4):
        sizes[rel(q)] = v["hand_sizes"][q]
    assert list(b["sizes"]) == sum((onehot(13, s) for s in sizes), [])
    assert list(b["stock"]) == onehot(33, v["stock_size"])
    target = state._cfg["target_score"]
    expected = [
        v["bonus"][mine] / 10,
        v["bonus"][1 - mine] / 10,
        v["scores"][mine] / target,
        v["scores"][1 - mine] / target,
    ]
    assert list(b["scalars"]) == list(np.array(expected, dtype=np.float64).astype(np.float32))


def test_view_layout_and_observation() -> None:
    state = position({0: "7S 9C", 1: "QC KD", 2: "AH", 3: "2C"}, "7H 5C 2D KS", dealer=3)
    state._scores = [12, 7]
    for seat in [None, 0, 1, 2, 3]:
        v = state.view(seat)
        assert list(v) == VIEW_KEYS
        assert json.loads(json.dumps(v)) == v
        assert v["viewer"] == seat and v["teams"] == [[0, 2], [1, 3]] and v["players"] == 4
        for q in range(4):
            assert (v["hands"][q] is None) == (seat is not None and seat != q)
    act(state, "capture 7S", "take 2D")
    v = state.view(2)
    assert v["pending"] == "7S" and v["taken"] == ["2D"] and v["plays"] == []
    assert v["hand_sizes"] == [1, 2, 1, 1] and v["last_trail"] is None
    for seat in range(4):
        check_observation(state, seat)
    obs = decode(state.observation_tensor(1))
    assert obs["played"].sum() == 0  # the capture under way counts once resolved
    assert obs["pending"][cid("7S")] == 1 and obs["taken"][cid("2D")] == 1
    assert list(obs["to_play"]) == onehot(4, 3) and list(obs["dealer"]) == onehot(4, 2)
    assert obs["scalars"][2] == np.float32(7 / 51) and obs["scalars"][3] == np.float32(12 / 51)
    act(state, "take 5C")
    obs = decode(state.observation_tensor(1))
    assert obs["played"][52 * 3 + cid("7S")] == 1
    assert obs["piles"][52 + cid("5C")] == 1 and obs["last_capturer"][3] == 1
    for seat in range(4):
        check_observation(state, seat)


# ----------------------------------------------------------------------------------------------
# serialization and copies
# ----------------------------------------------------------------------------------------------


def test_serialization_round_trip_and_corruption() -> None:
    game = load_game("cicera", packet_size=6, target_score=21)
    state = game.new_initial_state(seed=31)
    random_play(state, random.Random(2), 200)
    text = state.serialize()
    back = game.deserialize_state(text)
    assert back == state and back.view() == state.view() and back.serialize() == text
    assert pickle.loads(pickle.dumps(state)) == state
    obj = json.loads(text)
    for broken in (
        "",
        "nope",
        "[]",
        json.dumps({**obj, "game": "spoil_five"}),
        json.dumps({**obj, "history": obj["history"] + [999]}),
        json.dumps({**obj, "history": [1.5]}),
        json.dumps({**obj, "seed": -1}),
        json.dumps({**obj, "rng": "x"}),
        json.dumps({**obj, "decks": [["AS"]]}),
        json.dumps({**obj, "config": {"packet_size": 7}}),
        json.dumps({**obj, "config": {}}),
        json.dumps({k: v for k, v in obj.items() if k != "rng"}),
    ):
        with pytest.raises(ParseError):
            game.deserialize_state(broken)
    with pytest.raises(ParseError):
        game.deserialize_state(None)  # type: ignore[arg-type]
    given = game.new_initial_state(seed=1, decks=[CICERA.format_many(range(52))] * 3)
    assert game.deserialize_state(given.serialize()) == given
    assert len(json.loads(given.serialize())["decks"]) == 3


# ----------------------------------------------------------------------------------------------
# random playouts
# ----------------------------------------------------------------------------------------------

PLAYOUT_CONFIGS: list[dict[str, Any]] = [
    {"game_mode": "single_hand"},
    {"game_mode": "single_hand", "packet_size": 6},
    {"game_mode": "single_hand", "packet_size": 4, "deal_style": "packets"},
    {"game_mode": "single_hand", "deal_style": "packets", "force_single_match": True},
    {"game_mode": "single_hand", "capture_compulsory": True, "left_bonus_mode": "rank_match"},
    {"game_mode": "single_hand", "sweep_on_last_play_counts": False, "cards_tie": "one_each"},
    {"game_mode": "single_hand", "leftover_if_no_capture": "dealer_team", "bonus_left": False},
    {"target_score": 21, "all_spades_wins_match": True, "napola_courts_extend": False},
    {"target_score": 31, "packet_size": 4, "max_hands": 3, "spades_majority_points": 2},
    {"max_hands": 2, "capture_compulsory": True, "force_single_match": True},
]


def check_cards_everywhere(state: CiceraState) -> None:
    h = state._hand
    places: list[int] = []
    for cards in h.hands:
        places += cards
    places += h.table + h.piles[0] + h.piles[1] + h.deck[h.pos :]
    if h.pending is not None:
        places.append(h.pending)
    if state.is_terminal():
        assert len(places) == len(set(places)) <= 52
    else:
        assert sorted(places) == list(range(52))
    v = state.view()
    assert sum(v["hand_sizes"]) + len(v["table"]) + sum(map(len, v["piles"])) + v["stock_size"] + (
        v["pending"] is not None
    ) == len(places)


def check_resample(state: CiceraState, seed: int) -> None:
    for seat in range(4):
        sample = state.resample_from_infostate(seat, seed)
        assert sample.history() == state.history()
        assert sample.view(seat) == state.view(seat)
        assert sample.information_state_string(seat) == state.information_state_string(seat)
        assert np.array_equal(sample.observation_tensor(seat), state.observation_tensor(seat))
        assert sample.view()["table"] == state.view()["table"]
        assert sample.legal_actions() == state.legal_actions() or seat != state.current_player()
        assert sample._game == state._game
        assert sample._game.deserialize_state(sample.serialize()) == sample
        if state._hand.pos == 52:  # no stock: the other hands hold the same cards between them
            others = [q for q in range(4) if q != seat]
            assert sorted(c for q in others for c in sample.view()["hands"][q]) == sorted(
                c for q in others for c in state.view()["hands"][q]
            )


def test_resample_redeals_hidden_cards() -> None:
    game = load_game("cicera", packet_size=4)
    state = game.new_initial_state(seed=21)
    random_play(state, random.Random(3), 10)
    seat = state.current_player()
    truth = state.view()
    hidden = sorted(
        [c for q in range(4) if q != seat for c in truth["hands"][q]]
        + CICERA.format_many(state._hand.deck[state._hand.pos :]),
        key=cid,
    )
    moved = False
    for seed in range(5):
        sample = state.resample_from_infostate(seat, seed)
        full = sample.view()
        assert full["hands"][seat] == truth["hands"][seat]
        assert [len(h) for h in full["hands"]] == [len(h) for h in truth["hands"]]
        again = sorted(
            [c for q in range(4) if q != seat for c in full["hands"][q]]
            + CICERA.format_many(sample._hand.deck[sample._hand.pos :]),
            key=cid,
        )
        assert again == hidden
        moved |= full["hands"] != truth["hands"]
        assert sample._rng == SplitMix64(seed)
        random_play(sample, random.Random(seed))
    assert moved


@pytest.mark.parametrize("index", range(len(PLAYOUT_CONFIGS)))
def test_random_playouts(index: int) -> None:
    config = PLAYOUT_CONFIGS[index]
    game = load_game("cicera", **config)
    single = config.get("game_mode") == "single_hand"
    games = 30 if single else 6
    for g in range(games):
        seed = 1000 * index + g
        rng = random.Random(seed)
        state = game.new_initial_state(seed=seed)
        total = [0.0] * 4
        steps = 0
        check_at = {rng.randrange(1, 60), rng.randrange(60, 120)}
        while not state.is_terminal():
            legal = state.legal_actions()
            assert legal and legal == sorted(set(legal))
            assert list(np.flatnonzero(state.legal_actions_mask())) == legal
            v = state.view()
            player = state.current_player()
            if v["phase"] == "capture":
                assert all(104 <= a < 156 for a in legal)
            else:
                assert all(a < 104 for a in legal)
                assert all(
                    cid(state.action_to_string(a).split()[1]) in state._hand.hands[player]
                    for a in legal
                )
            action = rng.choice(legal)
            state.apply_action(action)
            steps += 1
            if v["phase"] == "capture" or 52 <= action < 104:
                if not state.is_terminal() and state.view()["phase"] == "capture":
                    assert state.current_player() == player  # the capture is still building
            total = [t + r for t, r in zip(total, state.rewards(), strict=True)]
            if steps % 7 == 0:
                check_cards_everywhere(state)
            if steps in check_at and not state.is_terminal():
                text = state.serialize()
                assert game.deserialize_state(text) == state
                assert state.clone() == state
                for seat in range(4):
                    check_observation(state, seat)
                check_resample(state, seed)
                other = state.resample_from_infostate(state.current_player(), seed + 1)
                random_play(other, random.Random(seed))
                assert other.is_terminal()
        assert steps <= game.max_game_length()
        returns = state.returns()
        assert total == returns
        assert sum(returns) == 0 and returns[0] == returns[2] and returns[1] == returns[3]
        check_cards_everywhere(state)
        v = state.view()
        assert v["phase"] == "over" and v["to_play"] is None and v["table"] == []
        assert v["hand_sizes"] == [0] * 4 and v["stock_size"] == 0
        assert len(v["plays"]) == 48
        for past in v["past_hands"]:
            pts = past["points"]
            assert pts["total"] == [sum(pts[c][t] for c in CATEGORIES[:-1]) for t in range(2)]
        assert v["scores"] == [
            sum(p["points"]["total"][t] for p in v["past_hands"]) for t in (0, 1)
        ]
        if single:
            diff = v["past_hands"][0]["points"]["total"]
            assert returns[0] == diff[0] - diff[1] and v["winner"] is None
        elif v["winner"] is None:
            assert returns == [0.0] * 4
            assert len(v["past_hands"]) == game.config()["max_hands"]
        else:
            assert returns[0] == (1.0 if v["winner"] == 0 else -1.0)
        for seat in range(4):
            check_observation(state, seat)
        assert game.deserialize_state(state.serialize()) == state
        assert pickle.loads(pickle.dumps(state)) == state
        assert str(state) and repr(state) and state.observation_string(0)
