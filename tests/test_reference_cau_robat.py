"""Tests of the pure-Python Cau Robat reference model alone (tapete.reference.cau_robat).

Covers the card numbering, the evaluator ``run``, every capture case C1-C18 of rules §7.1, every
cau case K1-K14 (§7.2), the deal, turn and scoring cases D1-D5 and S1-S4 (§7.3), the options of
§9, the action encoding, the view and the observation tensor layout of docs/rules/cau_robat.md,
the error contract, and random playouts across player counts and options checking the
invariants of rules §10 (card conservation, distinct table ranks, chains, penalties moving cards
only between piles, zero-sum returns, serialization and clone round trips, resampling).

Positions with prepared piles are set up white-box: a fresh state whose hand fields (hands,
table, piles, seat to play, last play) are overwritten.  The rules only look at those fields.
Unless a case needs the hand to end, one spare card (the highest unused id, never played) stays
in a hand so that the hand goes on.
"""

from __future__ import annotations

import json
import pickle
import random
from typing import Any

import numpy as np
import pytest

from tapete.errors import ConfigError, IllegalActionError, ParseError
from tapete.reference import TERMINAL, list_games, load_game
from tapete.reference.cards import SPANISH
from tapete.reference.cau_robat import (
    OBSERVATION_SIZE,
    RANKS,
    CauRobatGame,
    CauRobatState,
    _assign,
    _LastPlay,
    deal_table,
    run,
)
from tapete.reference.rng import SplitMix64

# ----------------------------------------------------------------------------------------------
# helpers
# ----------------------------------------------------------------------------------------------


def cid(text: str) -> int:
    return SPANISH.parse(text)


def ids(texts: str) -> list[int]:
    return [cid(t) for t in texts.split()]


def canon(texts: str) -> list[str]:
    """Canonical strings, in the given order."""
    return SPANISH.format_many(ids(texts))


def canon_sorted(texts: str) -> list[str]:
    return SPANISH.format_many(sorted(ids(texts)))


def position(
    table: str,
    piles: dict[int, str] | None = None,
    hands: dict[int, str] | None = None,
    *,
    players: int = 4,
    to_play: int = 0,
    last_play: tuple[int, str, bool] | None = None,
    last_capturer: int | None = None,
    spare: bool = True,
    **config: Any,
) -> CauRobatState:
    """A white-box position: the given table, piles (bottom -> top) and hands."""
    game = CauRobatGame(players=players, first_dealer=(to_play - 1) % players, **config)
    state = game.new_initial_state(seed=0)
    h = state._hand
    h.table = sorted(ids(table))
    h.piles = [ids((piles or {}).get(q, "")) for q in range(players)]
    h.hands = [sorted(ids((hands or {}).get(q, ""))) for q in range(players)]
    h.chain = None
    h.plays = []
    h.to_play = to_play
    h.last_capturer = last_capturer
    h.last_play = None
    if last_play is not None:
        h.last_play = _LastPlay(last_play[0], cid(last_play[1]), last_play[2])
    used = set(h.table) | {c for p in h.piles for c in p} | {c for p in h.hands for c in p}
    assert len(used) == len(h.table) + sum(map(len, h.piles)) + sum(map(len, h.hands))
    if spare:
        h.hands[(to_play - 1) % players].append(max(set(range(40)) - used))
    return state


def cards_in_play(state: CauRobatState) -> list[int]:
    h = state._hand
    out = list(h.table) + [c for p in h.piles for c in p] + [c for p in h.hands for c in p]
    if h.chain is not None:
        out += h.chain.cards
    return out


def play(state: CauRobatState, seat: int, card: str) -> None:
    """Seat ``seat`` plays ``card`` (which must be its lowest card of that rank)."""
    assert state.current_player() == seat
    before = sorted(cards_in_play(state))
    rank = RANKS[SPANISH.rank(cid(card))]
    state.apply_action(state.string_to_action(f"play {rank}"))
    assert state._hand.plays[-1] == (seat, cid(card))
    assert sorted(cards_in_play(state)) == before  # conservation


def piles_of(state: CauRobatState) -> list[list[str]]:
    return [list(p) for p in state.view()["piles"]]


def random_play(state: CauRobatState, rng: random.Random, steps: int | None = None) -> None:
    done = 0
    while not state.is_terminal() and (steps is None or done < steps):
        state.apply_action(rng.choice(state.legal_actions()))
        done += 1


# ----------------------------------------------------------------------------------------------
# cards, registry, config
# ----------------------------------------------------------------------------------------------


def test_card_ids_and_strings() -> None:
    # Rules §8.1 / docs: id = 4 * rank_index + suit, suits O C E B.
    assert SPANISH.num_kinds == 40
    examples = {"1O": 0, "1C": 1, "1B": 3, "2O": 4, "7O": 24, "7C": 25, "10O": 28, "12B": 39}
    for text, number in examples.items():
        assert SPANISH.parse(text) == number
        assert SPANISH.to_string(number) == text
        assert SPANISH.parse(text.lower()) == number
    for r in range(10):
        for s in range(4):
            assert SPANISH.card(s, r) == 4 * r + s
            assert SPANISH.rank(4 * r + s) == r and SPANISH.suit(4 * r + s) == s
    assert [SPANISH.parse(SPANISH.to_string(c)) for c in range(40)] == list(range(40))
    for bad in ("8O", "9C", "13B", "0O", "7X", "O7", "", "10", 7, None):
        with pytest.raises(ParseError):
            SPANISH.parse(bad)


def test_registry_and_game_properties() -> None:
    assert "cau_robat" in list_games()
    for n in (3, 4, 5):
        game = load_game("cau_robat", players=n)
        assert isinstance(game, CauRobatGame)
        assert game.name == "cau_robat"
        assert game.num_players() == n
        assert game.num_distinct_actions() == 10
        assert game.observation_tensor_shape() == (OBSERVATION_SIZE,) == (243,)
        assert game.max_game_length() == (35 if n == 5 else 36)
        assert load_game("cau_robat", players=n, hands_to_win=3, max_hands=7).max_game_length() == (
            7 * (35 if n == 5 else 36)
        )
    game = load_game("cau_robat")
    assert game == CauRobatGame() and hash(game) == hash(CauRobatGame())
    assert game != load_game("cau_robat", net_bonus=True)
    assert pickle.loads(pickle.dumps(game)) == game
    assert repr(game) == "load_game('cau_robat')"
    assert repr(load_game("cau_robat", net_bonus=True)) == "load_game('cau_robat', net_bonus=True)"


def test_config_defaults_and_values() -> None:
    cfg = load_game("cau_robat").config()
    assert cfg == {
        "players": 4,
        "hands_to_win": 1,
        "first_dealer": "random",
        "sequence_direction": "both",
        "rank_conflict": "table_priority",
        "own_pile_links": False,
        "multi_pile_same_rank": "all",
        "direct_pile_match": False,
        "stack_order": "walk",
        "cau_enabled": True,
        "chain_penalty_payers": "chain_members",
        "net_bonus": False,
        "leftover_table_cards": "unclaimed",
        "hand_tie": "void",
        "max_hands": 1,
        "explicit_chance": False,
    }
    assert load_game("cau_robat", hands_to_win=30).config()["max_hands"] == 2 * (4 * 29 + 1)
    full = {
        "players": 5,
        "hands_to_win": 1000,
        "first_dealer": 4,
        "sequence_direction": "down_only",
        "rank_conflict": "stop",
        "own_pile_links": True,
        "multi_pile_same_rank": "first_only",
        "direct_pile_match": True,
        "stack_order": "played_on_top",
        "cau_enabled": False,
        "chain_penalty_payers": "all_opponents",
        "net_bonus": True,
        "leftover_table_cards": "last_capturer",
        "hand_tie": "shared",
        "max_hands": 100_000,
    }
    assert load_game("cau_robat", **full).config() == {**full, "explicit_chance": False}
    assert load_game("cau_robat", players=np.int64(3)).config()["players"] == 3
    game = load_game("cau_robat")
    game.config()["players"] = 9  # a copy
    assert game.num_players() == 4


@pytest.mark.parametrize(
    "config",
    [
        {"players": 2},
        {"players": 6},
        {"players": "4"},
        {"players": True},
        {"players": 4.0},
        {"hands_to_win": 0},
        {"hands_to_win": 1001},
        {"max_hands": 0},
        {"max_hands": 100_001},
        {"hands_to_win": 3, "max_hands": 2},
        {"first_dealer": 4},
        {"first_dealer": "0"},
        {"first_dealer": -1},
        {"players": 3, "first_dealer": 3},
        {"sequence_direction": "up"},
        {"rank_conflict": "priority"},
        {"own_pile_links": 1},
        {"multi_pile_same_rank": "first"},
        {"direct_pile_match": "yes"},
        {"stack_order": "reverse"},
        {"cau_enabled": None},
        {"chain_penalty_payers": "all"},
        {"net_bonus": 0},
        {"leftover_table_cards": "dealer"},
        {"hand_tie": "split"},
        {"num_player": 4},
        {"foo": 1},
    ],
)
def test_bad_configs(config: dict[str, Any]) -> None:
    with pytest.raises(ConfigError):
        load_game("cau_robat", **config)


def test_seeds_and_decks_errors() -> None:
    game = load_game("cau_robat")
    for seed in (-1, 2**64, 1.5, "3", True):
        with pytest.raises(ConfigError):
            game.new_initial_state(seed=seed)  # type: ignore[arg-type]
    deck = SPANISH.format_many(range(40))
    game.new_initial_state(seed=1, deck=deck)
    for bad in (deck[:-1], deck[:-1] + ["1O"], deck[:-1] + ["8O"], "1O 1C", 5):
        with pytest.raises(ConfigError):
            game.new_initial_state(seed=1, deck=bad)  # type: ignore[arg-type]
    with pytest.raises(ConfigError):
        game.new_initial_state(seed=1, deck=deck, decks=[deck])
    with pytest.raises(ConfigError):
        game.new_initial_state(seed=1, decks="x")  # type: ignore[arg-type]
    with pytest.raises(ConfigError):
        load_game("nope")
    assert game.new_initial_state() is not None  # fresh seed


# ----------------------------------------------------------------------------------------------
# the evaluator run() (docs/rules/cau_robat.md, "Strings and evaluator")
# ----------------------------------------------------------------------------------------------


def test_run_evaluator() -> None:
    assert run([3, 4, 6, 7, 10, 11], 11) == [6, 7, 10, 11]  # C3
    assert run([3, 4, 6, 7, 10, 11], 5) == []  # C4
    assert run([3, 4, 5, 6, 7, 10, 11], 11) == [3, 4, 5, 6, 7, 10, 11]
    assert run([1, 2, 6, 12], 1) == [1, 2, 12]  # C9 without piles
    assert run(list(RANKS), 5) == list(RANKS)  # C15
    assert run([2, 5, 10], 5) == [5]  # C1
    assert run([], 3) == []  # C16
    assert run([11, 12, 1, 2, 3], 2) == [1, 2, 3, 11, 12]  # cycle order in the answer
    assert run((7, 10), 7) == [7, 10]
    assert run([np.int64(4)], 4) == [4]
    for table, rank in (([1, 1], 1), ([8], 1), ([1], 8), ([1], 0), ([True], 1), ([1], True)):
        with pytest.raises(ValueError):
            run(table, rank)
    with pytest.raises(ValueError):
        run("12", 1)  # type: ignore[arg-type]
    with pytest.raises(ValueError):
        run([1.0], 1)  # type: ignore[list-item]


# ----------------------------------------------------------------------------------------------
# capture cases C1-C18 (rules §7.1)
# ----------------------------------------------------------------------------------------------

# (name, config, table, piles, card played by P0, packet or None, table after, robbed seats)
CAPTURE_CASES: list[tuple[str, dict[str, Any], str, dict[int, str], str, str | None, str, str]] = [
    ("C1", {}, "2o 5o 10o", {}, "5c", "5o 5c", "2o 10o", ""),
    ("C2", {}, "2o 5o 10o", {}, "6c", None, "2o 5o 6c 10o", ""),
    ("C3", {}, "3o 4o 6o 7o 10o 11o", {}, "11c", "11o 11c 10o 7o 6o", "3o 4o", ""),
    ("C4", {}, "3o 4o 6o 7o 10o 11o", {}, "5c", None, "3o 4o 5c 6o 7o 10o 11o", ""),
    (
        "C5",
        {},
        "3o 4o 6o 7o 10o 11o",
        {2: "12c 1c 5o"},
        "11c",
        "11o 11c 10o 7o 6o 12c 1c 5o 4o 3o",
        "",
        "2",
    ),
    ("C6", {}, "3o 4o 6o 7o 10o 11o", {2: "12c 1c 5o"}, "5c", None, "3o 4o 5c 6o 7o 10o 11o", ""),
    (
        "C7",
        {},
        "3o 4o 5c 6o 7o 10o 11o",
        {2: "12c 1c 5o"},
        "11c",
        "11o 11c 10o 7o 6o 5c 4o 3o",
        "",
        "",
    ),
    (
        "C7 stop",
        {"rank_conflict": "stop"},
        "3o 4o 5c 6o 7o 10o 11o",
        {2: "12c 1c 5o"},
        "11c",
        "11o 11c 10o 7o 6o",
        "3o 4o 5c",
        "",
    ),
    (
        "C8",
        {},
        "4o 11o 12o",
        {0: "3o", 1: "6o 1o", 3: "5o"},
        "11c",
        "11o 11c 12o 6o 1o",
        "4o",
        "1",
    ),
    (
        "C9",
        {},
        "1o 2o 6o 12o",
        {0: "4o", 1: "10o", 2: "5o", 3: "7o"},
        "1c",
        "1o 1c 12o 2o",
        "6o",
        "",
    ),
    (
        "C10",
        {},
        "4o 6o 7o 10o",
        {0: "3o 5o", 1: "1o", 2: "2o", 3: "12o"},
        "7c",
        "7o 7c 6o 10o",
        "4o",
        "",
    ),
    (
        "C10 own pile",
        {"own_pile_links": True},
        "4o 6o 7o 10o",
        {0: "3o 5o", 1: "1o", 2: "2o", 3: "12o"},
        "7c",
        "7o 7c 6o 4o 10o",
        "",
        "",
    ),
    (
        "C11",
        {},
        "2o 3o",
        {0: "12o", 1: "6o 4o", 2: "10o", 3: "11o 4c"},
        "3c",
        "3o 3c 2o 6o 4o 11o 4c",
        "",
        "1 3",
    ),
    (
        "C11 first only",
        {"multi_pile_same_rank": "first_only"},
        "2o 3o",
        {0: "12o", 1: "6o 4o", 2: "10o", 3: "11o 4c"},
        "3c",
        "3o 3c 2o 6o 4o",
        "",
        "1",
    ),
    (
        "C12",
        {},
        "6o",
        {0: "2o", 1: "1o 7o", 2: "3o 10o", 3: "12o 5o"},
        "6c",
        "6o 6c 12o 5o 1o 7o 3o 10o",
        "",
        "1 2 3",
    ),
    ("C13", {}, "5o", {0: "2o", 1: "1o 5c", 2: "3o", 3: "12o"}, "5e", "5o 5e", "", ""),
    ("C14", {}, "2o", {0: "4o", 1: "1o 7o", 2: "3o", 3: "12o"}, "7c", None, "2o 7c", ""),
    (
        "C15",
        {},
        "1o 2o 3o 4o 5o 6o 7o 10o 11o 12o",
        {},
        "5c",
        "5o 5c 4o 3o 2o 1o 12o 11o 10o 7o 6o",
        "",
        "",
    ),
    ("C16", {}, "", {0: "1o"}, "3c", None, "3c", ""),
    (
        "C17",
        {"stack_order": "played_on_top"},
        "3o 4o 6o 7o 10o 11o",
        {2: "12c 1c 5o"},
        "11c",
        "3o 4o 12c 1c 5o 6o 7o 10o 11o 11c",
        "",
        "2",
    ),
    (
        "C18",
        {},
        "10o 11o",
        {1: "3o 7o", 2: "6o", 3: "1o"},
        "11c",
        "11o 11c 10o 3o 7o 6o",
        "",
        "1 2",
    ),
]


@pytest.mark.parametrize("case", CAPTURE_CASES, ids=[c[0] for c in CAPTURE_CASES])
def test_capture_cases(
    case: tuple[str, dict[str, Any], str, dict[int, str], str, str | None, str, str],
) -> None:
    _, config, table, piles, card, packet, table_after, robbed = case
    state = position(table, piles, {0: card}, **config)
    before = piles_of(state)
    play(state, 0, card)
    v = state.view()
    assert v["table"] == canon_sorted(table_after)
    expected = [list(p) for p in before]
    if packet is None:
        assert v["last_play"] == {"seat": 0, "card": canon(card)[0], "captured": False}
        assert v["last_capturer"] is None
    else:
        for q in map(int, robbed.split()):
            expected[q] = []
        expected[0] += canon(packet)
        assert v["last_play"] == {"seat": 0, "card": canon(card)[0], "captured": True}
        assert v["last_capturer"] == 0
    assert v["piles"] == expected
    assert v["chain"] is None
    assert v["to_play"] == 1


def test_c5_top_card_and_c8_full_pile() -> None:
    state = position("3o 4o 6o 7o 10o 11o", {2: "12c 1c 5o"}, {0: "11c"})
    play(state, 0, "11c")
    assert state.view()["piles"][0][-1] == "3O"
    state = position("4o 11o 12o", {0: "3o", 1: "6o 1o", 3: "5o"}, {0: "11c"})
    play(state, 0, "11c")
    assert state.view()["piles"][0] == canon("3o 11o 11c 12o 6o 1o")
    assert state.view()["piles"][3] == ["5O"]


def test_sequence_direction_options() -> None:
    table, piles = "1o 2o 6o 12o", {0: "4o", 1: "10o", 2: "5o", 3: "7o"}
    for direction, packet in (("down_only", "1o 1c 12o"), ("up_only", "1o 1c 2o")):
        state = position(table, piles, {0: "1c"}, sequence_direction=direction)
        play(state, 0, "1c")
        assert state.view()["piles"][0] == canon("4o " + packet)
    # C5 downward robbery disappears with up_only.
    state = position(
        "3o 4o 6o 7o 10o 11o", {2: "12c 1c 5o"}, {0: "11c"}, sequence_direction="up_only"
    )
    play(state, 0, "11c")
    assert state.view()["piles"][0] == canon("11o 11c")


def test_direct_pile_match_option() -> None:
    # C6 with direct_pile_match: the 5 takes the pile whose top is a 5, and runs on both ways.
    config: dict[str, Any] = {"direct_pile_match": True}
    state = position("3o 4o 6o 7o 10o 11o", {2: "12c 1c 5o"}, {0: "5c"}, **config)
    play(state, 0, "5c")
    v = state.view()
    assert v["piles"][0] == canon("12c 1c 5o 5c 4o 3o 6o 7o 10o 11o")
    assert v["piles"][2] == [] and v["table"] == []
    assert v["last_play"]["captured"] is True and v["last_capturer"] == 0
    # Several piles: all of them (seat order from the capturer), or only the first.
    piles = {0: "1b", 1: "2o 7o", 2: "1o", 3: "3o 7c"}
    state = position("4o", piles, {0: "7e"}, **config)
    play(state, 0, "7e")
    assert state.view()["piles"][0] == canon("1b 2o 7o 3o 7c 7e")
    state = position("4o", piles, {0: "7e"}, multi_pile_same_rank="first_only", **config)
    play(state, 0, "7e")
    assert state.view()["piles"][0] == canon("1b 2o 7o 7e")
    assert state.view()["piles"][3] == canon("3o 7c")
    # played_on_top: down far -> near, up, then the pile blocks and the played card.
    state = position(
        "3o 4o 6o 10o", {2: "12c 1c 5o"}, {0: "5c"}, stack_order="played_on_top", **config
    )
    play(state, 0, "5c")
    assert state.view()["piles"][0] == canon("3o 4o 6o 12c 1c 5o 5c")
    # A direct match is never a cau: P1's 7 finds no table 7 and robs P0's new pile instead.
    state = position("4o", {1: "2o 7o"}, {0: "7c 1b", 1: "7e"}, **config)
    play(state, 0, "7c")
    assert state.view()["last_play"]["captured"] is True
    play(state, 1, "7e")
    v = state.view()
    assert v["chain"] is None and v["table"] == ["4O"]
    assert v["piles"][:2] == [[], canon("2o 7o 7c 7e")]
    # Off by default: nothing is taken (C6).
    state = position("4o", {1: "2o 7o"}, {0: "7c"})
    play(state, 0, "7c")
    assert state.view()["table"] == canon_sorted("4o 7c")


# ----------------------------------------------------------------------------------------------
# cau, recau, contracau K1-K14 (rules §7.2)
# ----------------------------------------------------------------------------------------------

PK_TABLE = "6o 10o 11o"
PK_PILES = {0: "2o 4o", 1: "3o 1o", 2: "4c 2c", 3: "1c 3c"}


def chain_position(
    plays: list[tuple[int, str]],
    table: str = PK_TABLE,
    piles: dict[int, str] | None = None,
    spare: bool = True,
    **kwargs: Any,
) -> CauRobatState:
    hands: dict[int, str] = {}
    for seat, card in plays:
        hands[seat] = (hands.get(seat, "") + " " + card).strip()
    return position(
        table,
        PK_PILES if piles is None else piles,
        hands,
        to_play=plays[0][0],
        spare=spare,
        **kwargs,
    )


def run_plays(state: CauRobatState, plays: list[tuple[int, str]]) -> None:
    for seat, card in plays:
        play(state, seat, card)


def test_k1_cau_step_by_step() -> None:
    plays = [(0, "7o"), (1, "7c"), (2, "5o")]
    state = chain_position(plays)
    play(state, 0, "7o")
    v = state.view()
    assert v["table"] == canon_sorted("6o 7o 10o 11o") and v["chain"] is None
    assert v["last_play"] == {"seat": 0, "card": "7O", "captured": False}
    play(state, 1, "7c")
    v = state.view()
    assert v["chain"] == {"rank": 7, "cards": ["7O", "7C"], "seats": [0, 1]}
    assert v["table"] == canon_sorted("6o 10o 11o")
    assert v["piles"] == [canon(PK_PILES[q]) for q in range(4)]  # nothing moved yet
    assert v["last_play"] == {"seat": 1, "card": "7C", "captured": True}
    assert v["last_capturer"] is None
    play(state, 2, "5o")
    v = state.view()
    assert v["chain"] is None
    assert v["piles"][1] == canon("3o 1o 7o 7c 6o 10o 11o 4o")
    assert v["piles"][0] == ["2O"]
    assert v["table"] == ["5O"]
    assert v["last_play"] == {"seat": 2, "card": "5O", "captured": False}
    assert v["last_capturer"] == 1


# (name, players, config, table, piles, plays, spare, expected piles, expected table)
K_CASES: list[
    tuple[str, int, dict[str, Any], str, dict[int, str], str, bool, dict[int, str], str]
] = [
    (
        "K1",
        4,
        {},
        PK_TABLE,
        PK_PILES,
        "0:7o 1:7c 2:5o",
        True,
        {0: "2o", 1: "3o 1o 7o 7c 6o 10o 11o 4o", 2: "4c 2c", 3: "1c 3c"},
        "5o",
    ),
    (
        "K2",
        4,
        {},
        PK_TABLE,
        PK_PILES,
        "0:7o 1:7c 2:7e 3:5o",
        True,
        {0: "2o", 1: "3o", 2: "4c 2c 7o 7c 7e 6o 10o 11o 4o 1o", 3: "1c 3c"},
        "5o",
    ),
    (
        "K3",
        4,
        {},
        PK_TABLE,
        PK_PILES,
        "0:7o 1:7c 2:7e 3:7b",
        True,
        {0: "2o", 1: "3o", 2: "4c", 3: "1c 3c 7o 7c 7e 7b 6o 10o 11o 4o 1o 2c"},
        "",
    ),
    (
        "K4",
        4,
        {},
        PK_TABLE,
        {**PK_PILES, 0: ""},
        "0:7o 1:7c 2:5o",
        True,
        {0: "", 1: "3o 1o 7o 7c 6o 10o 11o", 2: "4c 2c", 3: "1c 3c"},
        "5o",
    ),
    (
        "K5",
        3,
        {},
        PK_TABLE,
        {0: "2o 4o", 1: "3o 1o", 2: "4c 2c"},
        "0:7o 1:7c 2:7e 0:7b",
        True,
        {0: "2o 4o 7o 7c 7e 7b 6o 10o 11o 1o 2c", 1: "3o", 2: "4c"},
        "",
    ),
    (
        "K6",
        4,
        {},
        "6o 10o",
        {0: "2c 1o", 1: "3o 5o", 2: "", 3: "12c"},
        "0:7o 1:7c 2:7e 3:2o",
        True,
        {0: "2c", 1: "", 2: "7o 7c 7e 6o 3o 5o 10o 1o", 3: "12c"},
        "2o",
    ),
    ("K7", 4, {}, "3o 6o", {}, "0:6c 1:6e", True, {0: "6o 6c"}, "3o 6e"),
    ("K8", 4, {}, "3o", {}, "0:7o 1:10o 2:7c", True, {2: "7o 7c 10o"}, "3o"),
    (
        "K9",
        4,
        {},
        "6o",
        PK_PILES,
        "2:5o 3:5c",
        False,
        {0: "", 1: "3o 1o", 2: "4c", 3: "1c 3c 5o 5c 2o 4o 6o 2c"},
        "",
    ),
    (
        "K10",
        4,
        {"net_bonus": True},
        PK_TABLE,
        PK_PILES,
        "0:7o 1:7c 2:5o",
        True,
        {0: "", 1: "3o 1o 7o 7c 6o 10o 11o 4o 2c 3c 2o", 2: "4c", 3: "1c"},
        "5o",
    ),
    (
        "K11",
        4,
        {},
        PK_TABLE,
        {**PK_PILES, 0: "2o 5o"},
        "0:7o 1:7c 2:1e",
        True,
        {0: "", 1: "3o 1o 7o 7c 6o 2o 5o 10o 11o", 2: "4c 2c", 3: "1c 3c"},
        "1e",
    ),
    (
        "K12",
        5,
        {},
        PK_TABLE,
        {**PK_PILES, 4: "12e 2e"},
        "0:7o 1:7c 2:7e 3:7b",
        True,
        {0: "2o", 1: "3o", 2: "4c", 3: "1c 3c 7o 7c 7e 7b 6o 10o 11o 4o 1o 2c", 4: "12e 2e"},
        "",
    ),
    (
        "K12 all opponents",
        5,
        {"chain_penalty_payers": "all_opponents"},
        PK_TABLE,
        {**PK_PILES, 4: "12e 2e"},
        "0:7o 1:7c 2:7e 3:7b",
        True,
        {0: "2o", 1: "3o", 2: "4c", 3: "1c 3c 7o 7c 7e 7b 6o 10o 11o 2e 4o 1o 2c", 4: "12e"},
        "",
    ),
    ("K13", 4, {}, "6o", {}, "0:3o 1:5o 2:3c", True, {2: "3o 3c"}, "5o 6o"),
    (
        "K14",
        4,
        {},
        PK_TABLE,
        PK_PILES,
        "0:7o 1:7c 2:5o 3:5c 0:1b",
        True,
        {0: "2o", 1: "", 2: "4c", 3: "1c 3c 5o 5c 3o 1o 7o 7c 6o 10o 11o 4o 2c"},
        "1b",
    ),
    (
        "K1 cau disabled",
        4,
        {"cau_enabled": False},
        PK_TABLE,
        PK_PILES,
        "0:7o 1:7c 2:5o",
        True,
        {0: "2o 4o", 1: "3o 1o 7o 7c 6o 10o 11o", 2: "4c 2c", 3: "1c 3c"},
        "5o",
    ),
]


def parse_plays(text: str) -> list[tuple[int, str]]:
    out = []
    for word in text.split():
        seat, card = word.split(":")
        out.append((int(seat), card))
    return out


@pytest.mark.parametrize("case", K_CASES, ids=[c[0] for c in K_CASES])
def test_chain_cases(
    case: tuple[str, int, dict[str, Any], str, dict[int, str], str, bool, dict[int, str], str],
) -> None:
    name, n, config, table, piles, plays_text, spare, expected, table_after = case
    plays = parse_plays(plays_text)
    state = chain_position(plays, table, piles, spare, players=n, **config)
    run_plays(state, plays)
    v = state.view()
    full = {q: piles.get(q, "") for q in range(n)} | expected
    assert v["piles"] == [canon(full[q]) for q in range(n)]
    assert v["table"] == canon_sorted(table_after)
    assert v["chain"] is None
    if name == "K9":  # the chain was settled at the end of the hand, before scoring
        assert state.is_terminal()
        assert v["past_hands"] == [{"dealer": 1, "pile_sizes": [0, 2, 1, 8], "winners": [3]}]
        assert v["winners"] == [3]
        assert state.returns() == [-1 / 3, -1 / 3, -1 / 3, 1.0]


def test_chain_views_and_intermediate_levels() -> None:
    # K2/K3: the chain grows in the view, nothing moves until it is settled.
    plays = parse_plays("0:7o 1:7c 2:7e 3:7b")
    state = chain_position(plays)
    run_plays(state, plays[:3])
    v = state.view()
    assert v["chain"] == {"rank": 7, "cards": ["7O", "7C", "7E"], "seats": [0, 1, 2]}
    assert v["piles"] == [canon(PK_PILES[q]) for q in range(4)]
    obs = state.observation_tensor(3)
    chain = obs[182:205]  # after 2 + 5 + 50 + 10 + 110 + 5 = 182 cells
    assert chain[0] == 1 and chain[1 + 6] == 1  # rank index 6 is the 7
    assert list(chain[11:13]) == [0, 1]  # level 3
    assert list(chain[13:18]) == [0, 1, 1, 1, 0]  # P0, P1, P2 relative to P3: 1, 2, 3
    assert list(chain[18:23]) == [0, 0, 0, 1, 0]  # P2 is rel 3
    play(state, 3, "7b")
    assert state.view()["chain"] is None
    assert state.view()["last_play"] == {"seat": 3, "card": "7B", "captured": True}
    # A recau'd caller gets nothing; the chain seat before the caller does not either.
    k2 = chain_position(parse_plays("0:7o 1:7c 2:7e 3:5o"))
    run_plays(k2, parse_plays("0:7o 1:7c 2:7e 3:5o"))
    assert k2.view()["piles"][1] == ["3O"]


def test_cau_needs_the_previous_uncaptured_card() -> None:
    # The first play of a hand matching a dealt table card is an ordinary capture.
    state = position("7o 3o", {}, {0: "7c"})
    play(state, 0, "7c")
    assert state.view()["chain"] is None and state.view()["piles"][0] == canon("7o 7c")
    # The table card the previous player did not play (same rank impossible) -> ordinary.
    state = position("7o", {}, {0: "7c"}, last_play=(3, "3o", False))
    play(state, 0, "7c")
    assert state.view()["chain"] is None
    # A 3-player cau with recau by the starter is impossible (chain members rotate), but a
    # 3-player chain reaching 4 cards is settled at once.
    plays = parse_plays("0:7o 1:7c 2:7e 0:7b")
    state = chain_position(plays, piles={0: "2o 4o", 1: "3o 1o", 2: "4c 2c"}, players=3)
    run_plays(state, plays)
    assert state.view()["chain"] is None and state.view()["to_play"] == 1


# ----------------------------------------------------------------------------------------------
# deal, turns, scoring D1-D5 and S1-S4 (rules §7.3)
# ----------------------------------------------------------------------------------------------

DEAL_ORDERS = {
    (3, 0): [1, 1, 1, 2, 2, 2, 0, 0, 0] * 4,
    (4, 2): [3, 3, 3, 0, 0, 0, 1, 1, 1, 2, 2, 2] * 3,
    (5, 4): [0, 0, 0, 1, 1, 1, 2, 2, 2, 3, 3, 3, 4, 4, 4] * 2 + [0, 1, 2, 3, 4],
}


@pytest.mark.parametrize(("n", "dealer"), sorted(DEAL_ORDERS), ids=["D1", "D2", "D3"])
def test_deal_cases(n: int, dealer: int) -> None:
    order = DEAL_ORDERS[(n, dealer)]
    k = 5 if n == 5 else 4
    for deck_seed in range(3):
        deck = list(range(40))
        if deck_seed:
            SplitMix64(deck_seed).shuffle(deck)
        game = load_game("cau_robat", players=n, first_dealer=dealer)
        state = game.new_initial_state(seed=deck_seed, deck=SPANISH.format_many(deck))
        table, rest = deal_table(deck, n)
        assert len(table) == k and len({SPANISH.rank(c) for c in table}) == k
        assert len(rest) == len(order) == 40 - k
        v = state.view()
        assert v["table"] == SPANISH.format_many(sorted(table))
        assert v["dealer"] == dealer
        for q in range(n):
            expected = sorted(c for c, s in zip(rest, order) if s == q)
            assert v["hands"][q] == SPANISH.format_many(expected)
            assert len(expected) == {3: 12, 4: 9, 5: 7}[n]
        rng = random.Random(deck_seed)
        turns = 0
        while not state.is_terminal():
            assert state.current_player() == (dealer + 1 + turns) % n
            sizes = state.view()["hand_sizes"]
            if state.current_player() == (dealer + 1) % n:
                assert len(set(sizes)) == 1
            state.apply_action(rng.choice(state.legal_actions()))
            turns += 1
        assert turns == 40 - k
        assert state.current_player() == TERMINAL


def test_deal_table_passes_over_duplicates() -> None:
    deck = ids("5o 5c 3o 5e 3c 7o 1o 12b")
    deck += [c for c in range(40) if c not in deck]
    state = load_game("cau_robat", first_dealer=0).new_initial_state(
        seed=1, deck=SPANISH.format_many(deck)
    )
    assert state.view()["table"] == canon_sorted("5o 3o 7o 1o")
    # The passed-over cards stay in the deck, in their place: 5c 5e 3c 12b ... go to P1.
    table, rest = deal_table(deck, 4)
    assert table == ids("5o 3o 7o 1o") and rest[:4] == ids("5c 5e 3c 12b")
    assert set(ids("5c 5e 3c")) <= set(state._hand.hands[1])
    assert cid("12b") in state._hand.hands[2]
    # Five players: five ranks.
    state = load_game("cau_robat", players=5, first_dealer=0).new_initial_state(
        seed=1, deck=SPANISH.format_many(deck)
    )
    assert state.view()["table"] == canon_sorted("5o 3o 7o 1o 12b")


def test_d4_next_table_card_has_a_new_rank() -> None:
    # With 5O already on the table, the next table card is any of the 36 cards of other ranks.
    possible = set()
    for c in range(40):
        if c == cid("5o"):
            continue
        deck = [cid("5o"), c] + [x for x in range(40) if x not in (cid("5o"), c)]
        table, _ = deal_table(deck, 4)
        possible.add(table[1])
    assert len(possible) == 36 and all(SPANISH.rank(c) != 4 for c in possible)
    # Shuffled decks: every card is on a 4-card table with probability 4/10 * 1/4.
    counts = [0] * 40
    trials = 3000
    rng = SplitMix64(99)
    for _ in range(trials):
        deck = list(range(40))
        rng.shuffle(deck)
        for c in deal_table(deck, 4)[0]:
            counts[c] += 1
    assert all(abs(x / trials - 0.1) < 0.03 for x in counts)


def seeded_deck(rng: SplitMix64, n: int) -> list[int]:
    """The deck of a seeded deal (docs/rules/cau_robat.md, "The deal"): the pack shuffled, the
    table its first cards of distinct ranks and, if a card was passed over, the other cards
    shuffled once more; the table cards first, then the hand cards."""
    deck = list(range(40))
    rng.shuffle(deck)
    table, rest = deal_table(deck, n)
    if deck[: len(table)] != table:
        rng.shuffle(rest)
    return table + rest


def test_first_dealer_and_shuffle_come_from_the_seed() -> None:
    game = load_game("cau_robat", players=5)
    state = game.new_initial_state(seed=7)
    rng = SplitMix64(7)
    dealer = rng.below(5)
    deck = seeded_deck(rng, 5)
    assert state.view()["dealer"] == dealer
    assert state._hand.deck == deck
    assert state.current_player() == (dealer + 1) % 5
    # A given deck replaces the shuffle, which is drawn anyway.
    given = game.new_initial_state(seed=7, deck=SPANISH.format_many(range(40)))
    assert given._rng == state._rng and given.view()["dealer"] == dealer
    fixed = load_game("cau_robat", first_dealer=2).new_initial_state(seed=7)
    deck = seeded_deck(SplitMix64(7), 4)
    assert fixed._hand.deck == deck and fixed.view()["dealer"] == 2
    # without a passed-over card nothing more is drawn
    for seed in range(200):
        rng = SplitMix64(seed)
        order = list(range(40))
        rng.shuffle(order)
        if len({SPANISH.rank(c) for c in order[:4]}) == 4:
            state = load_game("cau_robat", first_dealer=0).new_initial_state(seed=seed)
            assert state._hand.deck == order and state._rng == rng
            break
    else:
        raise AssertionError("no seed without a passed-over card")


def finish_hand(
    state: CauRobatState, sizes: list[int], table_count: int, last_capturer: int | None = None
) -> None:
    """White-box: make the current hand end with these pile sizes and ``table_count + 1`` table
    cards (the last play, a 12B, joins the table)."""
    h = state._hand
    n = len(sizes)
    assert sum(sizes) + table_count + 1 == 40
    table = [4 * k for k in range(table_count)]  # 1O 2O 3O ...: distinct ranks, no 12
    rest = [c for c in range(40) if c not in table and c != cid("12b")]
    h.table = table
    h.piles = []
    for q in range(n):
        h.piles.append(rest[: sizes[q]])
        rest = rest[sizes[q] :]
    h.hands = [[] for _ in range(n)]
    h.hands[h.to_play] = [cid("12b")]
    h.chain = None
    h.last_play = None
    h.last_capturer = last_capturer
    state.apply_action(9)


def test_s1_s2_s3() -> None:
    third = -1 / 3
    state = load_game("cau_robat", first_dealer=0).new_initial_state(seed=1)
    finish_hand(state, [14, 10, 8, 4], 3)
    v = state.view()
    assert state.is_terminal() and len(v["table"]) == 4
    assert v["past_hands"] == [{"dealer": 0, "pile_sizes": [14, 10, 8, 4], "winners": [0]}]
    assert v["winners"] == [0] and v["hands_won"] == [1, 0, 0, 0]
    assert state.returns() == [1.0, third, third, third] == state.rewards()
    # S2: a tie for most.
    state = load_game("cau_robat", first_dealer=0).new_initial_state(seed=1)
    finish_hand(state, [12, 12, 8, 4], 3)
    assert state.is_terminal() and state.view()["winners"] == []
    assert state.view()["past_hands"][0]["winners"] == []
    assert state.returns() == [0.0] * 4
    state = load_game("cau_robat", first_dealer=0, hand_tie="shared").new_initial_state(seed=1)
    finish_hand(state, [12, 12, 8, 4], 3)
    assert state.view()["winners"] == [0, 1] and state.view()["hands_won"] == [1, 1, 0, 0]
    assert state.returns() == [0.5, 0.5, -0.5, -0.5]
    # S3: leftovers.
    state = load_game("cau_robat", first_dealer=0).new_initial_state(seed=1)
    finish_hand(state, [12, 11, 10, 4], 2, last_capturer=2)
    assert state.view()["winners"] == [0] and len(state.view()["table"]) == 3
    state = load_game(
        "cau_robat", first_dealer=0, leftover_table_cards="last_capturer"
    ).new_initial_state(seed=1)
    finish_hand(state, [12, 11, 10, 4], 2, last_capturer=2)
    v = state.view()
    assert v["past_hands"][0]["pile_sizes"] == [12, 11, 13, 4] and v["winners"] == [2]
    assert v["table"] == [] and v["piles"][2][-3:] == canon("1o 2o 12b")
    # Nobody captured: the leftovers stay unclaimed.
    state = load_game(
        "cau_robat", first_dealer=0, leftover_table_cards="last_capturer"
    ).new_initial_state(seed=1)
    finish_hand(state, [12, 11, 10, 4], 2, last_capturer=None)
    assert len(state.view()["table"]) == 3


def test_all_players_tied_and_shared_is_a_draw_for_returns() -> None:
    state = load_game("cau_robat", players=3, first_dealer=0, hand_tie="shared").new_initial_state(
        seed=1
    )
    finish_hand(state, [12, 12, 12], 3)
    assert state.view()["winners"] == [0, 1, 2]
    assert state.returns() == [0.0, 0.0, 0.0]


def test_s4_match() -> None:
    game = load_game("cau_robat", players=3, hands_to_win=2, first_dealer=0)
    assert game.max_game_length() == 36 * 8  # 2 (3 (2 - 1) + 1) hands
    state = game.new_initial_state(seed=5)
    assert state.view()["dealer"] == 0 and state.current_player() == 1
    finish_hand(state, [10, 20, 6], 3)  # hand 1 won by P1
    v = state.view()
    assert not state.is_terminal() and state.rewards() == [0.0] * 3
    assert v["hand"] == 1 and v["dealer"] == 1 and v["hands_won"] == [0, 1, 0]
    assert v["winners"] is None and v["piles"] == [[], [], []] and v["last_play"] is None
    assert state.current_player() == 2 and len(v["table"]) == 4
    assert sum(v["hand_sizes"]) == 36
    finish_hand(state, [15, 15, 6], 3)  # hand 2 void
    v = state.view()
    assert v["hand"] == 2 and v["dealer"] == 2 and v["hands_won"] == [0, 1, 0]
    finish_hand(state, [5, 25, 6], 3)  # hand 3 won by P1
    v = state.view()
    assert state.is_terminal() and v["phase"] == "over" and v["to_play"] is None
    assert [p["dealer"] for p in v["past_hands"]] == [0, 1, 2]
    assert [p["winners"] for p in v["past_hands"]] == [[1], [], [1]]
    assert v["winners"] == [1] and v["hands_won"] == [0, 2, 0]
    assert state.returns() == [-0.5, 1.0, -0.5] == state.rewards()
    # Later hands are shuffled from the seed.
    rng = SplitMix64(5)
    decks = [seeded_deck(rng, 3) for _ in range(3)]
    assert state._decks == decks


def test_max_hands_draw() -> None:
    game = load_game("cau_robat", players=3, hands_to_win=2, max_hands=2, first_dealer=0)
    state = game.new_initial_state(seed=5)
    finish_hand(state, [10, 20, 6], 3)
    finish_hand(state, [20, 10, 6], 3)
    assert state.is_terminal() and state.view()["winners"] == []
    assert state.returns() == [0.0] * 3
    # With shared ties, two players reaching the target together share the match.
    game = load_game("cau_robat", players=3, hands_to_win=2, first_dealer=0, hand_tie="shared")
    state = game.new_initial_state(seed=5)
    finish_hand(state, [15, 15, 6], 3)
    finish_hand(state, [15, 15, 6], 3)
    assert state.is_terminal() and state.view()["winners"] == [0, 1]
    assert state.returns() == [0.5, 0.5, -1.0]


# ----------------------------------------------------------------------------------------------
# actions, strings, errors
# ----------------------------------------------------------------------------------------------


def test_actions_and_strings() -> None:
    state = position("2o", {}, {0: "7c 7b 10e 1b 12o"})
    assert state.legal_actions() == [0, 6, 7, 9]
    assert list(np.flatnonzero(state.legal_actions_mask())) == [0, 6, 7, 9]
    assert [state.action_to_string(a) for a in range(10)] == [f"play {r}" for r in RANKS]
    for a in range(10):
        assert state.string_to_action(state.action_to_string(a)) == a
    assert state.string_to_action("PLAY 10") == 7 and state.string_to_action(" play  7 ") == 6
    for bad in ("play 8", "play", "play 7c", "7", "take 7", "play 7 7", "", None):
        with pytest.raises(ParseError):
            state.string_to_action(bad)  # type: ignore[arg-type]
    for bad in (-1, 10, True, "1", 1.0):
        with pytest.raises(IllegalActionError):
            state.action_to_string(bad)  # type: ignore[arg-type]
    play(state, 0, "7c")  # the lowest id of the rank
    assert state.view()["table"] == canon_sorted("2o 7c")


def test_errors_leave_the_state_unchanged() -> None:
    game = load_game("cau_robat")
    state = game.new_initial_state(seed=3)
    random_play(state, random.Random(1), 5)
    text = state.serialize()
    view = state.view()
    illegal = [a for a in range(10) if a not in state.legal_actions()]
    for bad in [*illegal, -1, 10, True, "3", None, 2.0]:
        with pytest.raises(IllegalActionError):
            state.apply_action(bad)  # type: ignore[arg-type]
    assert state.serialize() == text and state.view() == view
    for seat in (-1, 4, None, "0", True):
        with pytest.raises(ValueError):
            state.observation_tensor(seat)  # type: ignore[arg-type]
        with pytest.raises(ValueError):
            state.information_state_string(seat)  # type: ignore[arg-type]
    with pytest.raises(ValueError):
        state.view(4)
    random_play(state, random.Random(1))
    assert state.is_terminal() and state.legal_actions() == []
    assert not state.legal_actions_mask().any()
    with pytest.raises(IllegalActionError):
        state.apply_action(0)


# ----------------------------------------------------------------------------------------------
# view and observation
# ----------------------------------------------------------------------------------------------


def onehot(size: int, index: int | None) -> list[float]:
    out = [0.0] * size
    if index is not None:
        out[index] = 1.0
    return out


def rank_index(card: str) -> int:
    return SPANISH.rank(cid(card))


def expected_observation(state: CauRobatState, seat: int) -> np.ndarray:
    """The 243 cells rebuilt from the seat's view (docs/rules/cau_robat.md, the tensor table)."""
    v = state.view(seat)
    n = v["players"]

    def rel(q: int) -> int:
        return (q - seat) % n

    out: list[float] = []
    out += [1.0, 0.0] if v["phase"] == "play" else [0.0, 1.0]
    out += onehot(5, None if v["to_play"] is None else rel(v["to_play"]))
    counts = [0] * 10
    for card in v["hands"][seat]:
        counts[rank_index(card)] += 1
    for k in range(10):
        out += onehot(5, counts[k])
    table = {rank_index(c) for c in v["table"]}
    out += [1.0 if k in table else 0.0 for k in range(10)]
    seats: list[list[float]] = [[0.0] * 22 for _ in range(5)]
    for q in range(n):
        pile = v["piles"][q]
        cells = [len(pile) / 40]
        cells += onehot(11, rank_index(pile[-1]) if pile else 10)
        cells += [sum(rank_index(c) == k for c in pile) / 4 for k in range(10)]
        seats[rel(q)] = cells
    for cells in seats:
        out += cells
    sizes = [0.0] * 5
    for q in range(n):
        sizes[rel(q)] = v["hand_sizes"][q] / 12
    out += sizes
    chain = v["chain"]
    if chain is None:
        out += [0.0] * 23
    else:
        out += [1.0] + onehot(10, RANKS.index(chain["rank"]))
        out += onehot(2, len(chain["cards"]) - 2)
        members = [0.0] * 5
        for q in chain["seats"]:
            members[rel(q)] = 1.0
        out += members + onehot(5, rel(chain["seats"][-1]))
    last = v["last_play"]
    if last is None:
        out += [0.0] * 16
    else:
        out += onehot(5, rel(last["seat"])) + onehot(10, rank_index(last["card"]))
        out += [1.0 if last["captured"] else 0.0]
    plays = len(state._hand.plays)
    out += onehot(5, rel(v["dealer"])) + [plays / 36]
    won = [0.0] * 5
    target = state._cfg["hands_to_win"]
    for q in range(n):
        won[rel(q)] = v["hands_won"][q] / target
    out += won + [target / 100]
    seen = list(v["hands"][seat]) + v["table"] + [c for p in v["piles"] for c in p]
    if chain is not None:
        seen += chain["cards"]
    out += [(4 - sum(rank_index(c) == k for c in seen)) / 4 for k in range(10)]
    assert len(out) == 243
    return np.array(out, dtype=np.float32)


def check_observation(state: CauRobatState, seat: int) -> None:
    obs = state.observation_tensor(seat)
    assert obs.dtype == np.float32 and obs.shape == (243,)
    assert np.array_equal(obs, expected_observation(state, seat))


VIEW_KEYS = [
    "game",
    "viewer",
    "players",
    "hand",
    "dealer",
    "phase",
    "to_play",
    "hands",
    "hand_sizes",
    "table",
    "piles",
    "chain",
    "last_play",
    "last_capturer",
    "hands_won",
    "past_hands",
    "winners",
]


def check_view(state: CauRobatState) -> None:
    full = state.view()
    assert list(full) == VIEW_KEYS
    json.dumps(full)
    n = full["players"]
    assert full["viewer"] is None and full["game"] == "cau_robat"
    for seat in range(n):
        v = state.view(seat)
        assert list(v) == VIEW_KEYS and v["viewer"] == seat
        for key in VIEW_KEYS:
            if key == "hands":
                assert v["hands"][seat] == full["hands"][seat]
                assert all(v["hands"][q] is None for q in range(n) if q != seat)
            elif key != "viewer":
                assert v[key] == full[key]
    for q in range(n):
        assert full["hands"][q] == SPANISH.format_many(sorted(ids(" ".join(full["hands"][q]))))
        assert len(full["hands"][q]) == full["hand_sizes"][q]
    assert full["table"] == SPANISH.format_many(sorted(ids(" ".join(full["table"]))))


def test_view_layout_and_observation() -> None:
    plays = parse_plays("0:7o 1:7c 2:5o")
    state = chain_position(plays)
    for step in range(len(plays) + 1):
        check_view(state)
        for seat in range(4):
            check_observation(state, seat)
        if step < len(plays):
            play(state, *plays[step])
    for n in (3, 5):
        state = load_game("cau_robat", players=n).new_initial_state(seed=n)
        rng = random.Random(n)
        while not state.is_terminal():
            if rng.random() < 0.3:
                check_view(state)
                check_observation(state, rng.randrange(n))
            state.apply_action(rng.choice(state.legal_actions()))
        check_view(state)
        for seat in range(n):
            check_observation(state, seat)
    assert "Cau Robat" in str(state) and "match:" in str(state)
    assert "CauRobatState" in repr(state)


def test_strings_hide_other_hands() -> None:
    state = load_game("cau_robat").new_initial_state(seed=11)
    random_play(state, random.Random(2), 9)
    full = state.view()
    for seat in range(4):
        obs = state.observation_string(seat)
        info = state.information_state_string(seat)
        assert " ".join(full["hands"][seat]) in obs
        assert f"seat {seat}" in info
        for q in range(4):
            if q != seat:
                assert f"P{q} is dealt" not in info
                assert " ".join(full["hands"][q]) not in obs
    assert "pile" in str(state) and "table:" in str(state)


# ----------------------------------------------------------------------------------------------
# serialization, equality, pickling, resampling
# ----------------------------------------------------------------------------------------------


def test_serialization_round_trip_and_corruption() -> None:
    game = load_game("cau_robat", hands_to_win=2, players=3)
    state = game.new_initial_state(seed=8)
    random_play(state, random.Random(8), 50)  # into the second hand
    assert state.view()["hand"] == 1
    text = state.serialize()
    again = game.deserialize_state(text)
    assert again == state and again.view() == state.view() and again.history() == state.history()
    assert again.information_state_string(1) == state.information_state_string(1)
    clone = state.clone()
    assert clone == state
    clone.apply_action(clone.legal_actions()[0])
    assert clone != state
    assert pickle.loads(pickle.dumps(state)) == state
    # Both continue identically (the RNG state round-trips too).
    for s in (state, again):
        random_play(s, random.Random(4))
    assert state == again and state.returns() == again.returns()
    obj = json.loads(text)
    for bad in (
        "",
        "{",
        "[]",
        json.dumps({**obj, "game": "cicera"}),
        json.dumps({**obj, "config": {**obj["config"], "players": 4}}),
        json.dumps({**obj, "config": {**obj["config"], "players": 9}}),
        json.dumps({**obj, "history": obj["history"] + [99]}),
        json.dumps({**obj, "history": [0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0]}),
        json.dumps({**obj, "history": "0 1"}),
        json.dumps({**obj, "seed": -1}),
        json.dumps({**obj, "rng": "x"}),
        json.dumps({**obj, "decks": [obj["decks"][0][:-1]]}),
        json.dumps({k: v for k, v in obj.items() if k != "rng"}),
    ):
        with pytest.raises(ParseError):
            game.deserialize_state(bad)
    with pytest.raises(ParseError):
        game.deserialize_state(None)  # type: ignore[arg-type]
    given = game.new_initial_state(seed=1, decks=[SPANISH.format_many(range(40))] * 3)
    assert game.deserialize_state(given.serialize()) == given
    assert len(json.loads(given.serialize())["decks"]) == 3


def check_resample(state: CauRobatState, seed: int) -> CauRobatState:
    n = state._n
    sample = state
    for seat in range(n):
        sample = state.resample_from_infostate(seat, seed)
        assert sample.history() == state.history()
        assert sample.view(seat) == state.view(seat)
        assert sample.information_state_string(seat) == state.information_state_string(seat)
        assert np.array_equal(sample.observation_tensor(seat), state.observation_tensor(seat))
        assert sample.legal_actions() == state.legal_actions() or seat != state.current_player()
        assert sample._rng == SplitMix64(seed)
        assert sample._game.deserialize_state(sample.serialize()) == sample
        full, truth = sample.view(), state.view()
        others = [q for q in range(n) if q != seat]
        assert sorted(c for q in others for c in full["hands"][q]) == sorted(
            c for q in others for c in truth["hands"][q]
        )
        assert sorted(cards_in_play(sample)) == list(range(40))
    return sample


def test_resample_redeals_hidden_cards() -> None:
    game = load_game("cau_robat")
    state = game.new_initial_state(seed=21)
    random_play(state, random.Random(3), 14)
    seat = state.current_player()
    truth = state.view()
    moved = False
    for seed in range(6):
        sample = check_resample(state, seed)
        sample = state.resample_from_infostate(seat, seed)
        full = sample.view()
        assert full["hands"][seat] == truth["hands"][seat]
        moved |= full["hands"] != truth["hands"]
        random_play(sample, random.Random(seed))
        assert sample.is_terminal()
    assert moved


def test_resample_respects_played_ranks() -> None:
    # Real deals: whenever a player has shown a card, the re-dealt cards of that rank he holds
    # all have higher ids (replay would otherwise show another card; the view check catches it).
    for seed in range(12):
        state = load_game("cau_robat", players=3 + seed % 3).new_initial_state(seed=seed)
        random_play(state, random.Random(seed), 5 + seed)
        for seat in range(state._n):
            sample = state.resample_from_infostate(seat, seed + 100)
            assert sample.view(seat) == state.view(seat)
            plays = sample._hand.plays
            assert plays == state._hand.plays
            for q, card in plays:
                for other in sample._hand.hands[q]:
                    assert SPANISH.rank(other) != SPANISH.rank(card) or other > card


def test_assign_places_every_card_where_allowed() -> None:
    rng = random.Random(5)
    for trial in range(300):
        seats = [1, 2, 3]
        truth = {c: rng.choice(seats) for c in rng.sample(range(40), rng.randrange(1, 20))}
        room = {q: sum(1 for s in truth.values() if s == q) for q in seats}
        allowed_sets = {c: {truth[c]} | {q for q in seats if rng.random() < 0.4} for c in truth}
        placed = _assign(
            list(truth), room, lambda c, q, a=allowed_sets: q in a[c], SplitMix64(trial)
        )
        assert sorted(placed) == sorted(truth)
        assert all(q in allowed_sets[c] for c, q in placed.items())
        assert all(sum(1 for s in placed.values() if s == q) == room[q] for q in seats)


def test_resample_at_the_end_and_in_a_later_hand() -> None:
    game = load_game("cau_robat", players=4, hands_to_win=3)
    state = game.new_initial_state(seed=2)
    random_play(state, random.Random(2), 40)
    assert state.view()["hand"] == 1
    check_resample(state, 5)
    random_play(state, random.Random(2))
    sample = state.resample_from_infostate(1, 3)
    assert sample.view() == state.view()


# ----------------------------------------------------------------------------------------------
# random playouts: the invariants of rules §10
# ----------------------------------------------------------------------------------------------

PLAYOUT_CONFIGS: list[dict[str, Any]] = [
    {"players": 3},
    {"players": 4},
    {"players": 5},
    {"players": 3, "net_bonus": True, "stack_order": "played_on_top"},
    {"players": 4, "own_pile_links": True, "multi_pile_same_rank": "first_only"},
    {"players": 5, "chain_penalty_payers": "all_opponents", "rank_conflict": "stop"},
    {"players": 4, "direct_pile_match": True, "leftover_table_cards": "last_capturer"},
    {"players": 3, "sequence_direction": "up_only", "hand_tie": "shared"},
    {"players": 5, "sequence_direction": "down_only", "cau_enabled": False},
    {"players": 4, "hands_to_win": 2, "max_hands": 4, "net_bonus": True},
    {"players": 3, "hands_to_win": 3, "hand_tie": "shared", "direct_pile_match": True},
    {"players": 5, "hands_to_win": 2, "max_hands": 3, "own_pile_links": True},
]


def check_invariants(state: CauRobatState) -> None:
    h = state._hand
    n = state._n
    cards = cards_in_play(state)
    assert sorted(cards) == list(range(40))  # every card in exactly one place
    ranks = [SPANISH.rank(c) for c in h.table]
    assert len(ranks) == len(set(ranks))
    if h.chain is not None:
        assert 2 <= len(h.chain.cards) <= 3
        assert {SPANISH.rank(c) for c in h.chain.cards} == {h.chain.rank}
        assert h.chain.seats[-1] == (h.to_play - 1) % n
        assert all((b - a) % n == 1 for a, b in zip(h.chain.seats, h.chain.seats[1:]))
    if not state.is_terminal():
        assert h.hands[h.to_play]  # D5
        assert state.legal_actions() == sorted({SPANISH.rank(c) for c in h.hands[h.to_play]})
        if h.to_play == (h.dealer + 1) % n:
            assert len({len(x) for x in h.hands}) == 1
    else:
        assert h.chain is None and not any(h.hands)


@pytest.mark.parametrize("index", range(len(PLAYOUT_CONFIGS)))
def test_random_playouts(index: int) -> None:
    config = PLAYOUT_CONFIGS[index]
    game = load_game("cau_robat", **config)
    n = game.num_players()
    games = 40 if config.get("hands_to_win", 1) == 1 else 10
    for g in range(games):
        seed = 1000 * index + g
        rng = random.Random(seed)
        state = game.new_initial_state(seed=seed)
        total = [0.0] * n
        steps = 0
        check_at = rng.randrange(1, 30)
        while not state.is_terminal():
            check_invariants(state)
            h = state._hand
            hand_index, in_piles = h.index, sum(map(len, h.piles))
            on_board = len(h.table) + in_piles + (len(h.chain.cards) if h.chain else 0)
            events = len(state._events)
            state.apply_action(rng.choice(state.legal_actions()))
            steps += 1
            h = state._hand
            if h.index == hand_index:
                board = (
                    len(h.table) + sum(map(len, h.piles)) + (len(h.chain.cards) if h.chain else 0)
                )
                assert board == on_board + 1  # penalties and net only move cards between piles
            pays = sum(" pays " in text for _, text in state._events[events:])
            assert pays <= 2 * n  # at most a chain's and a net's payments per play
            total = [t + r for t, r in zip(total, state.rewards())]
            if steps == check_at and g % 3 == 0:
                assert game.deserialize_state(state.serialize()) == state
                assert state.clone() == state
                for seat in range(n):
                    check_observation(state, seat)
                check_resample(state, seed)
        check_invariants(state)
        returns = state.returns()
        assert abs(sum(returns)) < 1e-9
        assert total == pytest.approx(returns)
        assert steps <= game.max_game_length()
        assert steps % (35 if n == 5 else 36) == 0
        v = state.view()
        assert v["winners"] is not None and len(v["past_hands"]) == v["hand"] + 1
        target = config.get("hands_to_win", 1)
        if v["winners"]:
            assert all(v["hands_won"][q] >= target for q in v["winners"])
        if target > 1 and not v["winners"]:
            assert len(v["past_hands"]) == game.config()["max_hands"]
        check_view(state)
