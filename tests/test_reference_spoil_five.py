"""Tests of the pure-Python Spoil Five reference model alone (tapete.reference).

Covers the RNG, the card packs, the ranking tables of rules §2, every trick-resolution case
TR-01..TR-20 and legal-move case LM-01..LM-19 of rules §7, the rob and jink legal sets, the
complete example hands A-D, the error contract, and random playouts checking invariants.
"""

from __future__ import annotations

import json
import pickle
import random
from collections.abc import Sequence
from typing import Any

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tapete.errors import ConfigError, IllegalActionError, ParseError, TapeteError
from tapete.reference import TERMINAL, list_games, load_game
from tapete.reference.cards import CUAJO, FRENCH, SPANISH
from tapete.reference.rng import SplitMix64
from tapete.reference.spoil_five import (
    DECLINE,
    JINK,
    STAND,
    SpoilFiveGame,
    SpoilFiveState,
    legal_play_ids,
    legal_plays,
    trick_winner,
    trump_order,
)

# ----------------------------------------------------------------------------------------------
# helpers
# ----------------------------------------------------------------------------------------------


def cid(text: str) -> int:
    return FRENCH.parse(text)


def ids(texts: str) -> list[int]:
    return [cid(t) for t in texts.split()]


def deck_from_hands(
    n: int, dealer: int, hands: dict[int, str], turn_up: str, batches: Sequence[int] = (2, 3)
) -> list[str]:
    """A deck (top first) that deals ``hands`` (seat -> 5 cards) and turns up ``turn_up``."""
    a, b = batches
    queues = {seat: texts.split() for seat, texts in hands.items()}
    deck: list[str] = []
    for k in range(5 * n):
        seat = (dealer + 1 + k // a) % n if k < a * n else (dealer + 1 + (k - a * n) // b) % n
        deck.append(queues[seat].pop(0))
    deck.append(turn_up)
    used = {cid(c) for c in deck}
    deck += [FRENCH.to_string(c) for c in range(52) if c not in used]
    return deck


def play(state: SpoilFiveState, text: str) -> None:
    state.apply_action(state.string_to_action(text))


def legal_cards(state: SpoilFiveState) -> list[str]:
    return sorted(
        (state.action_to_string(a).split()[1] for a in state.legal_actions() if a < 52), key=cid
    )


# ----------------------------------------------------------------------------------------------
# RNG
# ----------------------------------------------------------------------------------------------


def test_splitmix64_known_vectors() -> None:
    rng = SplitMix64(1234567)
    assert [rng.next_u64() for _ in range(5)] == [
        6457827717110365317,
        3203168211198807973,
        9817491932198370423,
        4593380528125082431,
        16408922859458223821,
    ]
    assert SplitMix64(0).next_u64() == 0xE220A8397B1DCDAF


def test_splitmix64_wraps_modulo_2_64() -> None:
    rng = SplitMix64(2**64 - 1)
    value = rng.next_u64()
    assert 0 <= value < 2**64
    assert rng.state == (2**64 - 1 + 0x9E3779B97F4A7C15) % 2**64


def test_below_is_rejection_sampling() -> None:
    for n in (1, 2, 3, 7, 52, 1000, 2**63 + 5):
        a, b = SplitMix64(99), SplitMix64(99)
        for _ in range(50):
            got = a.below(n)
            threshold = (2**64 - n) % n  # Lemire's multiply-and-reject (docs/engine.md)
            while True:
                m = b.next_u64() * n
                if m % 2**64 >= threshold:
                    break
            assert got == m >> 64
            assert 0 <= got < n
    with pytest.raises(ValueError):
        SplitMix64(1).below(0)


def test_shuffle_is_fisher_yates_from_the_end() -> None:
    items = list(range(52))
    SplitMix64(7).shuffle(items)
    expected = list(range(52))
    rng = SplitMix64(7)
    for i in range(51, 0, -1):
        j = rng.below(i + 1)
        expected[i], expected[j] = expected[j], expected[i]
    assert items == expected
    assert sorted(items) == list(range(52))
    single = [5]
    SplitMix64(3).shuffle(single)
    assert single == [5]


def test_same_seed_same_deal() -> None:
    game = load_game("spoil_five")
    a, b = game.new_initial_state(seed=123), game.new_initial_state(seed=123)
    assert a == b and a.view() == b.view()
    # The first dealer is below(n) and the first deck the first shuffle of the stream.
    rng = SplitMix64(123)
    dealer = rng.below(4)
    deck = list(range(52))
    rng.shuffle(deck)
    assert a.view()["dealer"] == dealer
    assert a.view()["turn_up"] == FRENCH.to_string(deck[20])


# ----------------------------------------------------------------------------------------------
# cards
# ----------------------------------------------------------------------------------------------


def test_french_ids_and_strings() -> None:
    examples = {
        "AH": 38,
        "5H": 29,
        "JH": 35,
        "5C": 3,
        "JC": 9,
        "AC": 12,
        "5D": 16,
        "JD": 22,
        "AD": 25,
        "5S": 42,
        "JS": 48,
        "AS": 51,
        "2C": 0,
        "10D": 21,
    }
    for text, card in examples.items():
        assert FRENCH.parse(text) == card
        assert FRENCH.to_string(card) == text
    assert FRENCH.parse("td") == 21 and FRENCH.parse("10d") == 21 and FRENCH.parse("ah") == 38
    assert [FRENCH.parse(FRENCH.to_string(c)) for c in range(52)] == list(range(52))
    for bad in ("", "A", "1H", "11H", "AX", "HA", "10", "A H", 38, None):
        with pytest.raises(ParseError):
            FRENCH.parse(bad)
    assert FRENCH.parse(" AH\n") == 38  # whitespace around, as the engine


def test_spanish_and_cuajo_packs() -> None:
    assert SPANISH.num_kinds == 40
    assert SPANISH.to_string(0) == "1O" and SPANISH.to_string(39) == "12B"
    assert SPANISH.parse("7o") == 24 and SPANISH.parse("12B") == 39 and SPANISH.parse("10C") == 29
    assert [SPANISH.parse(SPANISH.to_string(c)) for c in range(40)] == list(range(40))
    assert CUAJO.num_kinds == 28 and len(CUAJO.full_pack()) == 112
    assert CUAJO.to_string(CUAJO.parse("ko")) == "KO" and CUAJO.parse("KO") == 6
    assert CUAJO.parse("3B") == 22
    assert CUAJO.parse("1E") == CUAJO.parse("AE")
    assert CUAJO.parse("10c") == CUAJO.parse("JC")
    assert CUAJO.parse("11O") == CUAJO.parse("HO")
    assert CUAJO.parse("12B") == CUAJO.parse("KB")
    for bad in ("2O", "8C", "QO", "KX"):
        with pytest.raises(ParseError):
            CUAJO.parse(bad)
    for bad in ("8O", "AO", "13B"):
        with pytest.raises(ParseError):
            SPANISH.parse(bad)


# ----------------------------------------------------------------------------------------------
# ranking tables (rules §2)
# ----------------------------------------------------------------------------------------------

TRUMP_TABLES = {
    "H": "5H JH AH KH QH 10H 9H 8H 7H 6H 4H 3H 2H",
    "D": "5D JD AH AD KD QD 10D 9D 8D 7D 6D 4D 3D 2D",
    "C": "5C JC AH AC KC QC 2C 3C 4C 6C 7C 8C 9C 10C",
    "S": "5S JS AH AS KS QS 2S 3S 4S 6S 7S 8S 9S 10S",
}
PLAIN_TABLES = {
    "H": "KH QH JH 10H 9H 8H 7H 6H 5H 4H 3H 2H",
    "D": "KD QD JD 10D 9D 8D 7D 6D 5D 4D 3D 2D AD",
    "C": "KC QC JC AC 2C 3C 4C 5C 6C 7C 8C 9C 10C",
    "S": "KS QS JS AS 2S 3S 4S 5S 6S 7S 8S 9S 10S",
}


@pytest.mark.parametrize("trump", "CDHS")
def test_trump_order_tables(trump: str) -> None:
    assert trump_order(trump) == TRUMP_TABLES[trump].split()
    assert trump_order(trump.lower()) == TRUMP_TABLES[trump].split()


@pytest.mark.parametrize("trump", "CDHS")
def test_plain_orders_and_partition(trump: str) -> None:
    # Plain order: in a trick of non-trumps of one suit, the earlier card in the table wins.
    for suit, line in PLAIN_TABLES.items():
        if suit == trump:
            continue
        cards = line.split()
        for hi in range(len(cards)):
            for lo in range(hi + 1, len(cards)):
                assert trick_winner(trump, [cards[lo], cards[hi]]) == 1
                assert trick_winner(trump, [cards[hi], cards[lo]]) == 0
    everything = trump_order(trump) + [
        c for s, line in PLAIN_TABLES.items() if s != trump for c in line.split()
    ]
    assert sorted(everything, key=cid) == [FRENCH.to_string(c) for c in range(52)]


def test_trump_order_is_the_trick_order() -> None:
    for trump in "CDHS":
        order = trump_order(trump)
        for hi in range(len(order)):
            for lo in range(hi + 1, len(order)):
                assert trick_winner(trump, [order[lo], order[hi]]) == 1


def test_evaluator_errors() -> None:
    with pytest.raises(ParseError):
        trump_order("X")
    with pytest.raises(ParseError):
        trick_winner("S", ["AH", "ZZ"])
    with pytest.raises(ValueError):
        trick_winner("S", [])
    with pytest.raises(ValueError):
        trick_winner("S", ["AH", "AH"])
    with pytest.raises(ValueError):
        legal_plays("S", [], [])
    with pytest.raises(ValueError):
        legal_plays("S", ["AH", "2C"], ["AH"])
    with pytest.raises(ParseError):
        legal_plays("S", "AH", [])


# ----------------------------------------------------------------------------------------------
# rules §7.2: the worked cases run on both implementations in test_spoil_five_rules.py
# ----------------------------------------------------------------------------------------------


def test_lm17_highest_trump_so_far() -> None:
    trump = "CDHS".index("D")
    assert legal_play_ids(ids("JD KH QC"), ids("6D 5D"), trump, "highest_trump_so_far") == [22]
    assert legal_play_ids(ids("JD KH QC"), ids("6D 5D"), trump, "led_card") == [10, 22, 37]


@settings(max_examples=300, deadline=None)
@given(st.permutations(list(range(52))), st.integers(0, 3), st.integers(1, 5), st.integers(0, 9))
def test_legal_plays_properties(perm: list[int], trump: int, size: int, trick_len: int) -> None:
    hand, trick = perm[:size], perm[size : size + trick_len]
    legal = legal_play_ids(hand, trick, trump)
    assert legal and set(legal) <= set(hand) and legal == sorted(legal)
    if trick:
        winner = trick_winner("CDHS"[trump], [FRENCH.to_string(c) for c in trick])
        assert 0 <= winner < len(trick)


# ----------------------------------------------------------------------------------------------
# rules §7.2-7.3: rob and jink legal sets, complete hands
# ----------------------------------------------------------------------------------------------

EXAMPLE_A_DECK = "5S KH AS JD JS AH 2D QC 7H 10H 3C 4S 8D 6C KC 9S".split()


def example_a(**config: Any) -> SpoilFiveState:
    game: SpoilFiveGame = load_game("spoil_five", players=3, first_dealer=0, num_deals=1, **config)
    rest = [FRENCH.to_string(c) for c in range(52) if FRENCH.to_string(c) not in EXAMPLE_A_DECK]
    return game.new_initial_state(seed=1, deck=EXAMPLE_A_DECK + rest)


def test_example_a_robbing_in_hand() -> None:
    s = example_a()
    v = s.view()
    assert v["hands"] == [
        ["6C", "KC", "8D", "AH", "JS"],
        ["QC", "2D", "7H", "KH", "5S"],
        ["3C", "JD", "10H", "4S", "AS"],
    ]
    assert v["trump"] == "S" and v["turn_up"] == "9S" and v["antes"] == [2, 1, 1]
    assert s.current_player() == 1
    play(s, "play 5S")
    assert s.current_player() == 2
    assert s.legal_actions() == [53, 74, 86, 93, 103]  # RB-01
    # The other seats do not see the rob node.
    assert s.view(0)["phase"] == "play" and s.view(0)["to_play"] == 2
    assert s.view(2)["phase"] == "rob"
    play(s, "rob 10H")
    assert s.view(0)["robber"] == 2 and s.view(0)["turn_up_at"] == "hand"
    assert s.view(0)["put_out"] == [None, None, None] and s.view(2)["put_out"][2] == "10H"
    assert legal_cards(s) == ["4S", "9S", "AS"]
    play(s, "play 9S")
    assert s.view()["turn_up_at"] == "played"
    assert set(legal_cards(s)) == {"AH", "JS"}
    play(s, "play AH")
    assert s.view()["tricks"][0]["winner"] == 1
    for text in ("play KH", "play 4S", "play JS"):
        play(s, text)
    assert s.view()["tricks"][1]["winner"] == 0
    play(s, "play KC")
    assert legal_cards(s) == ["QC"]
    play(s, "play QC")
    assert set(legal_cards(s)) == {"3C", "AS"}
    play(s, "play AS")
    assert s.view()["tricks"][2]["winner"] == 2
    for text in ("play JD", "play 8D", "play 2D", "play 3C", "play 6C", "play 7H"):
        play(s, text)
    assert s.is_terminal() and s.current_player() == TERMINAL
    v = s.view()
    assert v["past_deals"] == [
        {
            "dealer": 0,
            "outcome": "win",
            "winner": 2,
            "tricks_won": [1, 1, 3],
            "ineligible": [False, False, False],
        }
    ]
    assert s.returns() == [-2.0, -1.0, 3.0]
    assert v["phase"] == "over" and v["to_play"] is None and v["current_trick"] is None


def test_example_a_rob_policies() -> None:
    for policy in ("penalty", "optional"):
        s = example_a(rob_policy=policy)
        play(s, "play 5S")
        assert s.legal_actions() == [53, 74, 86, 93, 103, DECLINE]  # RB-02
        seen = [
            (s.view(q), s.information_state_string(q), s.observation_tensor(q).tobytes())
            for q in (0, 1)
        ]
        s.apply_action(DECLINE)
        # Nobody else can tell that a decision was taken.
        assert seen == [
            (s.view(q), s.information_state_string(q), s.observation_tensor(q).tobytes())
            for q in (0, 1)
        ]
        assert s.current_player() == 2 and s.view(2)["phase"] == "play"
        assert s.view(2)["declined"] == [None, None, True]
        assert s.view(0)["declined"] == [False, None, None]
        assert s.view()["turn_up_at"] == "stock" and s.view()["robber"] is None
    s = example_a(rob_policy="disabled")
    play(s, "play 5S")
    assert s.view()["phase"] == "play" and s.current_player() == 2
    assert all(a < 52 for a in s.legal_actions())


def test_example_a_before_first_lead() -> None:
    s = example_a(rob_timing="before_first_lead")
    assert s.current_player() == 2 and s.view()["phase"] == "rob"
    assert s.view(1)["phase"] == "play" and s.view(1)["to_play"] == 1
    assert s.view(0)["to_play"] == 1
    play(s, "rob 10H")
    assert s.current_player() == 1 and s.view()["robber"] == 2


def example_b(**config: Any) -> SpoilFiveState:
    hands = {0: "7H KS 2C 9D QD", 1: "5H 3S 4C 10D JC", 2: "KH QS 6C 2D 8S", 3: "JH AC 9C 4D 2S"}
    game: SpoilFiveGame = load_game("spoil_five", players=4, first_dealer=3, num_deals=1, **config)
    return game.new_initial_state(seed=2, deck=deck_from_hands(4, 3, hands, "AH"))


def test_example_b_dealer_ace_reneging_spoil() -> None:
    s = example_b()
    assert s.view()["phase"] == "dealer_rob" and s.current_player() == 3
    assert s.view(0)["phase"] == "dealer_rob"
    assert s.legal_actions() == [59, 64, 67, 87, 91]  # RB-03
    assert s.view()["turn_up_at"] == "stock"
    play(s, "rob 2S")
    v = s.view(0)
    assert v["robber"] == 3 and v["turn_up_at"] == "dealer" and v["hand_sizes"] == [5, 5, 5, 4]
    assert v["put_out"][3] is None and s.view(3)["put_out"][3] == "2S"
    assert s.current_player() == 0
    play(s, "play 7H")
    assert set(legal_cards(s)) == {"5H", "3S", "4C", "10D", "JC"}
    play(s, "play 3S")
    assert legal_cards(s) == ["KH"]
    play(s, "play KH")
    assert s.view()["hand_sizes"][3] == 5 and s.view()["turn_up_at"] == "hand"
    assert set(legal_cards(s)) == {"JH", "AC", "9C", "4D", "AH"}
    play(s, "play 4D")
    assert s.view()["tricks"][0]["winner"] == 2
    play(s, "play QS")
    play(s, "play AH")
    assert legal_cards(s) == ["KS"]
    play(s, "play KS")
    play(s, "play 5H")
    assert s.view()["tricks"][1]["winner"] == 1
    play(s, "play 4C")
    assert legal_cards(s) == ["6C"]
    play(s, "play 6C")
    assert set(legal_cards(s)) == {"AC", "9C", "JH"}
    play(s, "play 9C")
    assert legal_cards(s) == ["2C"]
    play(s, "play 2C")
    assert s.view()["tricks"][2]["winner"] == 0
    for text in ("play QD", "play 10D", "play 2D", "play JH"):
        play(s, text)
    assert s.view()["tricks"][3]["winner"] == 3
    for text in ("play AC", "play 9D", "play JC", "play 8S"):
        play(s, text)
    v = s.view()
    assert v["past_deals"][0]["outcome"] == "spoil" and v["past_deals"][0]["winner"] is None
    assert v["past_deals"][0]["tricks_won"] == [1, 2, 1, 1]
    # play_on: an extra deal follows, the pool of 5 carried plus new antes.
    assert not s.is_terminal() and v["deal"] == 1 and v["dealer"] == 0
    assert v["pool"] == 10 and v["antes"] == [2, 1, 1, 1]
    assert sum(v["balances"]) + v["pool"] == 0


def example_c(**config: Any) -> SpoilFiveState:
    hands = {1: "5C JC AH KD QD", 0: "AC 2C 3S 4S 9H"}
    game: SpoilFiveGame = load_game("spoil_five", players=2, first_dealer=0, num_deals=1, **config)
    return game.new_initial_state(seed=3, deck=deck_from_hands(2, 0, hands, "8C"))


def play_example_c(s: SpoilFiveState) -> None:
    play(s, "play 5C")
    play(s, "rob 9H")
    assert set(legal_cards(s)) == {"2C", "8C", "AC"}
    play(s, "play 8C")
    play(s, "play JC")
    assert set(legal_cards(s)) == {"2C", "AC"}
    play(s, "play 2C")
    play(s, "play AH")
    assert legal_cards(s) == ["AC"]
    play(s, "play AC")
    assert s.legal_actions() == [STAND, JINK]  # JD-01
    assert s.view(0)["phase"] == "jink" and s.view(0)["current_trick"] is None
    play(s, "jink")
    assert s.view()["jinker"] == 1 and s.current_player() == 1
    play(s, "play KD")
    play(s, "play 3S")
    play(s, "play QD")
    play(s, "play 4S")


def test_example_c_jink_success() -> None:
    s = example_c()
    play_example_c(s)
    assert s.is_terminal()
    assert s.returns() == [-4.0, 4.0]
    assert s.view()["past_deals"][0]["outcome"] == "jink_success"
    assert s.view()["past_deals"][0]["tricks_won"] == [0, 5]
    s = example_c(jink_payment="jinker_stake")
    play_example_c(s)
    assert s.returns() == [-3.0, 3.0]


def test_example_c_stand_and_no_jinking() -> None:
    s = example_c()
    for text in ("play 5C", "rob 9H", "play 8C", "play JC", "play 2C", "play AH", "play AC"):
        play(s, text)
    play(s, "stand")
    assert s.is_terminal() and s.returns() == [-2.0, 2.0]
    assert s.view()["past_deals"][0]["outcome"] == "win"
    s = example_c(jinking=False)
    for text in ("play 5C", "rob 9H", "play 8C", "play JC", "play 2C", "play AH", "play AC"):
        play(s, text)
    assert s.is_terminal() and s.returns() == [-2.0, 2.0]  # JD-03


def test_example_d_failed_jink() -> None:
    hands = {0: "5D JD AH KS 9C", 1: "QS 2S 3H 4H 10C", 2: "KD 6C 7C 8H JS"}
    game = load_game(
        "spoil_five", players=3, first_dealer=2, num_deals=1, leftover_pool="split_equally"
    )
    s = game.new_initial_state(seed=4, deck=deck_from_hands(3, 2, hands, "7D"))
    assert s.view()["phase"] == "play" and s.current_player() == 0
    play(s, "play 5D")
    assert set(legal_cards(s)) == {"QS", "2S", "3H", "4H", "10C"}
    play(s, "play 3H")
    assert legal_cards(s) == ["KD"]
    for text in ("play KD", "play JD", "play 4H", "play 8H", "play AH", "play 10C", "play 6C"):
        play(s, text)
    assert s.legal_actions() == [STAND, JINK]
    play(s, "jink")
    play(s, "play KS")
    assert set(legal_cards(s)) == {"QS", "2S"}
    play(s, "play 2S")
    assert legal_cards(s) == ["JS"]
    play(s, "play JS")
    play(s, "play 9C")
    play(s, "play QS")
    assert legal_cards(s) == ["7C"]
    play(s, "play 7C")
    assert s.is_terminal()
    v = s.view()
    assert v["past_deals"][0]["outcome"] == "jink_failed" and v["past_deals"][0]["winner"] == 0
    assert v["pool"] == 4 and v["balances"] == [-1, -1, -2]
    assert s.returns() == [-1 + 4 / 3, -1 + 4 / 3, -2 + 4 / 3]


def test_no_rob_node_for_ace_of_hearts_when_not_trumps() -> None:
    # RB-04: P1 holds AH while clubs are trumps; the AC is in the stock (RB-05).
    hands = {1: "AH 2D 3D 4D 5D", 2: "6D 7D 8D 9D 10D", 0: "2H 3H 4H 5H 6H"}
    game = load_game("spoil_five", players=3, first_dealer=0, num_deals=1)
    s = game.new_initial_state(seed=5, deck=deck_from_hands(3, 0, hands, "2C"))
    phases = set()
    while not s.is_terminal():
        phases.add(s.view()["phase"])
        s.apply_action(s.legal_actions()[0])
    assert phases <= {"play", "jink"}


# ----------------------------------------------------------------------------------------------
# errors and the contract
# ----------------------------------------------------------------------------------------------


def test_registry() -> None:
    assert list_games()[0] == "spoil_five"
    with pytest.raises(ConfigError):
        load_game("poker")
    game = load_game("spoil_five")
    assert isinstance(game, SpoilFiveGame) and game.name == "spoil_five"
    assert game.num_players() == 4 and game.num_distinct_actions() == 107
    assert game.observation_tensor_shape() == (277 * 4 + 181,)
    assert game.max_game_length() == (4 + 10) * 22
    assert load_game("spoil_five", leftover_pool="split_equally").max_game_length() == 4 * 22
    assert game == load_game("spoil_five", players=4) and game != load_game("spoil_five", players=3)
    assert pickle.loads(pickle.dumps(game)) == game
    assert repr(load_game("spoil_five", players=3)) == "load_game('spoil_five', players=3)"


def test_config_defaults_and_effective_values() -> None:
    cfg = load_game("spoil_five", players=6).config()
    assert cfg["num_deals"] == 6 and cfg["partnerships"] == "none"
    assert list(cfg) == [
        "players",
        "partnerships",
        "first_dealer",
        "deal_batches",
        "ante_mode",
        "base_stake",
        "dealer_stake",
        "pool_stake",
        "spoil_stake",
        "dealer_extra",
        "rob_policy",
        "rob_timing",
        "renege_reference",
        "jinking",
        "jink_payment",
        "team_remainder",
        "early_spoil_stop",
        "num_deals",
        "leftover_pool",
        "max_extra_deals",
        "explicit_chance",
    ]
    cfg = load_game("spoil_five", partnerships=[[0, 2], [1, 3]], deal_batches=(3, 2)).config()
    assert cfg["partnerships"] == [[0, 2], [1, 3]] and cfg["deal_batches"] == [3, 2]


@pytest.mark.parametrize(
    "config",
    [
        {"colour": "red"},
        {"players": 1},
        {"players": 11},
        {"players": True},
        {"players": 4.0},
        {"players": "4"},
        {"base_stake": True},
        {"base_stake": -1},
        {"dealer_stake": 1001},
        {"first_dealer": 4},
        {"first_dealer": -1},
        {"first_dealer": "left"},
        {"partnerships": [[0, 1], [1, 2, 3]]},
        {"partnerships": [[0, 1], [2]]},
        {"partnerships": [[0, 1, 2, 3]]},
        {"partnerships": [[0, 2], [1, 4]]},
        {"partnerships": [[0, 2], []]},
        {"partnerships": "pairs"},
        {"partnerships": None},
        {"deal_batches": [1, 4]},
        {"deal_batches": "23"},
        {"ante_mode": "sometimes"},
        {"rob_policy": "never"},
        {"jinking": 1},
        {"jinking": "true"},
        {"early_spoil_stop": None},
        {"num_deals": 0},
        {"num_deals": False},
        {"leftover_pool": "burn"},
        {"max_extra_deals": -1},
        {"team_remainder": "to_dealer"},
    ],
)
def test_bad_configs(config: dict[str, Any]) -> None:
    with pytest.raises(ConfigError) as info:
        load_game("spoil_five", **config)
    assert str(info.value)
    assert isinstance(info.value, ValueError) and isinstance(info.value, TapeteError)


def test_seeds_and_decks() -> None:
    game = load_game("spoil_five")
    for bad in (-1, 2**64, 1.5, True, "7"):
        with pytest.raises(ConfigError):
            game.new_initial_state(seed=bad)
    game.new_initial_state(seed=2**64 - 1)
    assert game.new_initial_state().view()["phase"] in ("dealer_rob", "rob", "play")
    deck = [FRENCH.to_string(c) for c in range(52)]
    for bad_deck in (deck[:-1], deck[:-1] + ["2C"], deck[:-1] + ["ZZ"], "2C 3C"):
        with pytest.raises(ConfigError):
            game.new_initial_state(seed=1, deck=bad_deck)
    with pytest.raises(ConfigError):
        game.new_initial_state(seed=1, deck=deck, decks=[deck])
    lower = [c.lower() for c in deck]
    s = game.new_initial_state(seed=1, deck=lower)
    assert s == game.new_initial_state(seed=1, deck=deck)
    # A given deck replaces only the first shuffle; the stream of numbers is unchanged.
    s1 = game.new_initial_state(seed=9, deck=deck)
    s2 = game.new_initial_state(seed=9, decks=[deck])
    assert s1 == s2


def test_errors_leave_state_unchanged() -> None:
    game = load_game("spoil_five", first_dealer=0)
    s = game.new_initial_state(seed=11)
    before = s.serialize()
    illegal = next(a for a in range(107) if a not in s.legal_actions())
    for bad in (illegal, -1, 107, 3.0, "play AH", True):
        with pytest.raises(IllegalActionError):
            s.apply_action(bad)
    assert s.serialize() == before
    for text in ("", "play", "play ZZ", "rob", "hit", "play AH now", "stand up"):
        with pytest.raises(ParseError):
            s.string_to_action(text)
    assert s.string_to_action("PLAY th") == 34 and s.string_to_action("rob 2c") == 52
    assert s.string_to_action("decline") == DECLINE
    for seat in (-1, 4, None, 1.0):
        with pytest.raises(ValueError):
            s.observation_tensor(seat)
        with pytest.raises(ValueError):
            s.information_state_string(seat)
        with pytest.raises(ValueError):
            s.observation_string(seat)
        with pytest.raises(ValueError):
            s.resample_from_infostate(seat, 1)
    with pytest.raises(ValueError):
        s.view(4)
    with pytest.raises(IllegalActionError):
        s.action_to_string(107)
    while not s.is_terminal():
        s.apply_action(s.legal_actions()[-1])
    assert s.legal_actions() == [] and not s.legal_actions_mask().any()
    with pytest.raises(IllegalActionError):
        s.apply_action(0)


@pytest.mark.parametrize(
    "text",
    ["", "{", "[]", "null", '{"game": "spoil_five"}', "not json at all"],
)
def test_corrupt_serialization(text: str) -> None:
    with pytest.raises(ParseError):
        load_game("spoil_five").deserialize_state(text)


def test_tampered_serialization() -> None:
    game = load_game("spoil_five", first_dealer=1)
    s = game.new_initial_state(seed=5)
    for _ in range(6):
        s.apply_action(s.legal_actions()[0])
    obj = json.loads(s.serialize())
    assert game.deserialize_state(s.serialize()) == s
    for key, value in (
        ("history", obj["history"] + [200]),
        ("history", [True]),
        ("seed", -3),
        ("rng", "x"),
        ("decks", [["AH"] * 52]),
        ("game", "cicera"),
        ("config", {**obj["config"], "players": 3}),
        ("config", {**obj["config"], "bogus": 1}),
    ):
        bad = dict(obj)
        bad[key] = value
        with pytest.raises(ParseError):
            game.deserialize_state(json.dumps(bad))


# ----------------------------------------------------------------------------------------------
# random playouts
# ----------------------------------------------------------------------------------------------


def random_config(r: random.Random) -> dict[str, Any]:
    n = r.randint(2, 10)
    cfg: dict[str, Any] = {"players": n}
    if n in (4, 6, 8) and r.random() < 0.3:
        cfg["partnerships"] = [[s for s in range(n) if s % 2 == i] for i in range(2)]
        if n == 6 and r.random() < 0.5:
            cfg["partnerships"] = [[0, 3], [1, 4], [2, 5]]
    if r.random() < 0.5:
        cfg["first_dealer"] = r.randrange(n)
    cfg["deal_batches"] = r.choice([[2, 3], [3, 2]])
    cfg["ante_mode"] = r.choice(["every_deal", "reduced_after_spoil", "dealer_only_after_spoil"])
    cfg["rob_policy"] = r.choice(["enforced", "penalty", "optional", "disabled"])
    cfg["rob_timing"] = r.choice(["at_turn", "before_first_lead"])
    cfg["renege_reference"] = r.choice(["led_card", "highest_trump_so_far"])
    cfg["jinking"] = r.random() < 0.8
    cfg["jink_payment"] = r.choice(["payer_stake", "jinker_stake"])
    cfg["early_spoil_stop"] = r.random() < 0.3
    cfg["num_deals"] = r.choice([None, 1, 2, 3])
    cfg["leftover_pool"] = r.choice(["play_on", "split_equally", "unresolved"])
    cfg["max_extra_deals"] = r.choice([0, 2, 10])
    return cfg


def check_views(s: SpoilFiveState, n: int) -> None:
    full = s.view()
    json.dumps(full)
    assert sum(full["balances"]) + full["pool"] == 0
    hidden_keys = {"viewer", "hands", "put_out", "declined", "phase", "to_play"}
    holder_node = full["phase"] == "rob"
    for seat in range(n):
        v = s.view(seat)
        assert json.loads(json.dumps(v)) == v
        for key in full:
            if key not in hidden_keys:
                assert v[key] == full[key], key
        for q in range(n):
            if q != seat:
                assert v["hands"][q] is None and v["put_out"][q] is None
                assert v["declined"][q] is None
        assert v["hands"][seat] == full["hands"][seat]
        if not holder_node or seat == s.current_player():
            assert (v["phase"], v["to_play"]) == (full["phase"], full["to_play"])
        else:
            assert v["phase"] == "play"
        t = s.observation_tensor(seat)
        assert t.dtype == np.float32 and t.shape == (277 * n + 181,)
        assert isinstance(s.observation_string(seat), str)


def check_resample(s: SpoilFiveState, n: int, r: random.Random) -> None:
    seat = r.randrange(n)
    resampled = s.resample_from_infostate(seat, r.randrange(2**64))
    assert resampled.view(seat) == s.view(seat)
    assert resampled.information_state_string(seat) == s.information_state_string(seat)
    assert np.array_equal(resampled.observation_tensor(seat), s.observation_tensor(seat))
    assert resampled.is_terminal() == s.is_terminal()
    if not s.is_terminal():
        # The resampled state can be played on.
        clone = resampled.clone()
        clone.apply_action(r.choice(clone.legal_actions()))


def full_stake(cfg: dict[str, Any], seat: int, dealer: int) -> int:
    if cfg["ante_mode"] == "reduced_after_spoil":
        return int(cfg["pool_stake"]) + (int(cfg["dealer_extra"]) if seat == dealer else 0)
    return int(cfg["dealer_stake"] if seat == dealer else cfg["base_stake"])


def expected_antes(cfg: dict[str, Any], dealer: int, fresh: bool) -> list[int]:
    n = cfg["players"]
    if cfg["ante_mode"] == "every_deal" or fresh:
        return [full_stake(cfg, q, dealer) for q in range(n)]
    if cfg["ante_mode"] == "reduced_after_spoil":
        return [cfg["spoil_stake"] + (cfg["dealer_extra"] if q == dealer else 0) for q in range(n)]
    return [cfg["dealer_stake"] if q == dealer else 0 for q in range(n)]


def check_settlement(
    cfg: dict[str, Any], prev: dict[str, Any], cur: dict[str, Any], terminal: bool
) -> None:
    """Rules §5.4 money flow of the deal that just ended, and §1.4 antes of the next one."""
    n = cfg["players"]
    past = cur["past_deals"][-1]
    balances, pool = list(prev["balances"]), prev["pool"]
    teams = [[q] for q in range(n)] if cfg["partnerships"] == "none" else cfg["partnerships"]
    if past["outcome"] in ("win", "jink_success"):
        side = next(t for t in teams if past["winner"] in t)
        for q in side:
            balances[q] += pool // len(side)
        pool %= len(side)
        if past["outcome"] == "jink_success":
            total = 0
            for q in range(n):
                if q not in side:
                    payer = q if cfg["jink_payment"] == "payer_stake" else past["winner"]
                    amount = full_stake(cfg, payer, past["dealer"])
                    balances[q] -= amount
                    total += amount
            for q in side:
                balances[q] += total // len(side)
            pool += total % len(side)
    if terminal:
        assert (cur["balances"], cur["pool"]) == (balances, pool)
        return
    antes = expected_antes(cfg, cur["dealer"], past["outcome"] in ("win", "jink_success"))
    assert cur["antes"] == antes
    assert cur["balances"] == [b - a for b, a in zip(balances, antes)]
    assert cur["pool"] == pool + sum(antes)


@pytest.mark.parametrize("chunk", range(6))
def test_random_playouts(chunk: int) -> None:
    r = random.Random(1000 + chunk)
    for _ in range(50):
        cfg = random_config(r)
        game = load_game("spoil_five", **cfg)
        n = game.num_players()
        s = game.new_initial_state(seed=r.randrange(2**64))
        assert s.rewards() == [0.0] * n
        steps = 0
        last_deal, last_dealer = 0, s.view()["dealer"]
        prev = s.view()
        assert prev["antes"] == expected_antes(game.config(), prev["dealer"], True)
        check_points = {r.randrange(1, 40) for _ in range(2)}
        while not s.is_terminal():
            legal = s.legal_actions()
            assert legal and legal == sorted(set(legal))
            mask = s.legal_actions_mask()
            assert mask.dtype == np.bool_ and mask.shape == (107,)
            assert list(np.flatnonzero(mask)) == legal
            for a in legal:
                assert s.string_to_action(s.action_to_string(a)) == a
            v = s.view()
            if v["phase"] == "play" and v["current_trick"]["plays"] == []:
                sizes = v["hand_sizes"]
                expected = 5 - len(v["tricks"])
                for q in range(n):
                    dealer_ace_wait = (
                        not v["tricks"] and q == v["dealer"] and v["turn_up_at"] == "dealer"
                    )
                    assert sizes[q] == (expected - 1 if dealer_ace_wait else expected)
            if steps in check_points:
                check_views(s, n)
                check_resample(s, n, r)
                clone = s.clone()
                assert clone == s
                assert game.deserialize_state(s.serialize()) == s
                assert pickle.loads(pickle.dumps(s)) == s
            # rewards count from zero: the first deal's antes belong to the first action
            before = s.returns() if s.history() else [0.0] * n
            s.apply_action(r.choice(legal))
            steps += 1
            after = s.returns()
            assert s.rewards() == pytest.approx([a - b for a, b in zip(after, before)])
            v = s.view()
            if len(v["past_deals"]) > len(prev["past_deals"]):
                check_settlement(game.config(), prev, v, s.is_terminal())
            prev = v
            if v["deal"] != last_deal:
                assert v["deal"] == last_deal + 1
                assert v["dealer"] == (last_dealer + 1) % n
                last_deal, last_dealer = v["deal"], v["dealer"]
        assert steps <= game.max_game_length()
        assert s.current_player() == TERMINAL and s.legal_actions() == []
        v = s.view()
        cfgv = game.config()
        if cfgv["leftover_pool"] != "unresolved":
            assert sum(s.returns()) == pytest.approx(0.0, abs=1e-9)
        else:
            assert sum(s.returns()) == pytest.approx(-v["pool"])
        assert len(v["past_deals"]) >= cfgv["num_deals"]
        if n == 2 or (cfgv["partnerships"] != "none" and len(cfgv["partnerships"]) == 2):
            assert all(d["outcome"] != "spoil" for d in v["past_deals"])
        if cfgv["rob_policy"] != "penalty":
            assert all(d["outcome"] != "forfeited_win" for d in v["past_deals"])
        teams = [[q] for q in range(n)] if cfgv["partnerships"] == "none" else cfgv["partnerships"]
        for d in v["past_deals"]:
            side_tricks = [sum(d["tricks_won"][q] for q in t) for t in teams]
            side_bad = [any(d["ineligible"][q] for q in t) for t in teams]
            played = sum(d["tricks_won"])
            assert played <= 5
            if cfgv["rob_policy"] != "penalty":
                assert not any(d["ineligible"])
            if d["outcome"] in ("win", "forfeited_win", "jink_success", "jink_failed"):
                side = next(i for i, t in enumerate(teams) if d["winner"] in t)
                want = {"win": 3, "forfeited_win": 3, "jink_success": 5}.get(d["outcome"])
                if want is not None:
                    assert side_tricks[side] == want
                assert side_bad[side] == (d["outcome"] == "forfeited_win")
            if d["outcome"] == "spoil":
                assert all(t < 3 or bad for t, bad in zip(side_tricks, side_bad))
                if not cfgv["early_spoil_stop"]:
                    assert played == 5
                else:
                    assert not any(
                        not bad and t + 5 - played >= 3 for t, bad in zip(side_tricks, side_bad)
                    )
        check_views(s, n)
        check_resample(s, n, r)
        assert game.deserialize_state(s.serialize()) == s
        assert s.clone() == s


def test_resample_moves_hidden_cards_and_the_ace() -> None:
    """Resampling from a seat that has seen nothing moves hidden cards, the ace of trumps too."""
    game = load_game("spoil_five", players=4, first_dealer=0, num_deals=1)
    for seed in range(200):
        s = game.new_initial_state(seed=seed)
        v = s.view()
        trump_ace = "A" + v["trump"]
        holder = next((q for q in range(4) if trump_ace in v["hands"][q]), None)
        if holder in (2, 3) and v["phase"] == "play":
            break
    else:
        pytest.fail("no suitable deal found")
    seat = 1  # eldest: plays before the holder, has seen nothing
    places = set()
    hands_seen = set()
    for k in range(30):
        other = s.resample_from_infostate(seat, k)
        ov = other.view()
        assert other.view(seat) == s.view(seat)
        places.add(next((q for q in range(4) if trump_ace in ov["hands"][q]), None))
        hands_seen.add(tuple(ov["hands"][0]))
    assert len(places) >= 2 and len(hands_seen) >= 2


def test_resample_respects_voids() -> None:
    r = random.Random(77)
    game = load_game("spoil_five", players=5, num_deals=2)
    for _ in range(30):
        s = game.new_initial_state(seed=r.randrange(2**64))
        for _ in range(r.randrange(5, 40)):
            if s.is_terminal():
                break
            s.apply_action(r.choice(s.legal_actions()))
        if s.is_terminal():
            continue
        for seat in range(5):
            other = s.resample_from_infostate(seat, r.randrange(2**64))
            assert other.view(seat) == s.view(seat)
            # Whatever the resampled hands, the public history is identical.
            assert other.view()["tricks"] == s.view()["tricks"]


def test_partnership_settlement_remainder_to_pool() -> None:
    # PAY-4 deal 1: team {0,2} takes a pool of 5: 2 each, 1 stays.
    hands = {
        1: "2C 3C 4C 6C 7C",
        2: "5S JS AH KS QS",
        3: "2D 3D 4D 6D 7D",
        0: "2H 3H 4H 6H 7H",
    }
    game = load_game(
        "spoil_five",
        players=4,
        first_dealer=0,
        num_deals=1,
        partnerships=[[0, 2], [1, 3]],
        jinking=False,
    )
    s = game.new_initial_state(seed=8, deck=deck_from_hands(4, 0, hands, "9S"))
    # P1 leads clubs; P2 trumps every trick with his top spades.
    for _ in range(3):
        while s.current_player() != 2:
            s.apply_action(s.legal_actions()[0])
        s.apply_action(min(a for a in s.legal_actions() if a >= 39))
        while s.view()["current_trick"] is not None and s.view()["current_trick"]["plays"]:
            s.apply_action(s.legal_actions()[0])
    v = s.view()
    assert v["past_deals"][0]["outcome"] == "win" and v["past_deals"][0]["winner"] == 2
    assert s.is_terminal()
    assert v["balances"] == [0, -1, 1, -1] and v["pool"] == 1
    assert s.returns() == [0.25, -0.75, 1.25, -0.75]


def test_penalty_decline_forfeits_the_win() -> None:
    # PAY-5 deal 2 in miniature: P2 declines to rob, then takes tricks 1-3.
    hands = {2: "5S JS AS KS QS", 0: "2C 3C 4C 6C 7C", 1: "2D 3D 4D 6D 7D"}
    game = load_game("spoil_five", players=3, first_dealer=1, num_deals=1, rob_policy="penalty")
    s = game.new_initial_state(seed=6, deck=deck_from_hands(3, 1, hands, "9S"))
    assert s.current_player() == 2 and s.view()["phase"] == "rob"
    assert s.view(0)["phase"] == "play" and s.view(0)["to_play"] == 2
    s.apply_action(DECLINE)
    for card in ("5S", "JS", "AS"):
        play(s, f"play {card}")
        s.apply_action(s.legal_actions()[0])
        s.apply_action(s.legal_actions()[0])
    v = s.view(0)
    assert v["past_deals"] == [
        {
            "dealer": 1,
            "outcome": "forfeited_win",
            "winner": 2,
            "tricks_won": [0, 0, 3],
            "ineligible": [False, False, True],
        }
    ]
    # The pool of 4 is carried into the extra deal (play_on) and the new antes added to it.
    assert v["deal"] == 1 and v["pool"] == 4 + 4 and not s.is_terminal()
    assert v["balances"] == [-1 - 1, -2 - 1, -1 - 2] and v["antes"] == [1, 1, 2]


_ANY_VALUE = st.recursive(
    st.none()
    | st.booleans()
    | st.integers(-5, 12)
    | st.floats(allow_nan=False)
    | st.text(max_size=6),
    lambda inner: st.lists(inner, max_size=4),
    max_leaves=8,
)


@settings(max_examples=300, deadline=None)
@given(st.sampled_from(sorted(SpoilFiveGame().config()) + ["bogus"]), _ANY_VALUE)
def test_fuzz_config_only_raises_config_error(key: str, value: Any) -> None:
    try:
        game = load_game("spoil_five", **{key: value})
    except ConfigError:
        return
    game.new_initial_state(seed=0)


@settings(max_examples=300, deadline=None)
@given(st.text(max_size=30))
def test_fuzz_strings_only_raise_parse_error(text: str) -> None:
    game = load_game("spoil_five")
    state = game.new_initial_state(seed=0)
    try:
        action = state.string_to_action(text)
        assert 0 <= action < 107
    except ParseError:
        pass
    with pytest.raises(ParseError):
        game.deserialize_state(text)
