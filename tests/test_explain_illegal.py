"""``State.explain_illegal``: why an action is not legal now, told to the player to act, never
with a card that player may not know; the same text is ``apply_action``'s error."""

from __future__ import annotations

import json
import random
import re
from typing import Any

import pytest

import tapete
from tapete import reference

CARD = re.compile(r"(?<![0-9A-Za-z])(?:10|[2-9AJQKH1-7]|1[0-2])[CDHSOEB](?![0-9A-Za-z])")
CONFIGS: list[tuple[str, dict[str, Any]]] = [
    ("spoil_five", {}),
    ("spoil_five", {"players": 3, "rob_policy": "penalty", "rob_timing": "before_first_lead"}),
    ("cicera", {"game_mode": "single_hand", "capture_compulsory": True}),
    ("cicera", {"game_mode": "single_hand", "force_single_match": True}),
    ("cau_robat", {}),
    ("cuajo", {"purro_call": "optional", "purro_marker": "player_choice"}),
    ("cuajo", {"may_rediscard_taken_card": False, "secret_on_winning_turn": False}),
]


def known_cards(state: tapete.State, seat: int) -> set[str]:
    """Every card token in what ``seat`` may know (its view)."""
    return set(CARD.findall(json.dumps(state.view(seat))))


def reason(state: tapete.State, action: int) -> str:
    """The reason alone: between "is not legal now: " and the list of legal actions."""
    message = state.explain_illegal(action)
    assert message is not None
    head, _, rest = message.partition(" is not legal now: ")
    assert head == state.action_to_string(action) and rest, message
    return rest.split(f"; seat {state.current_player()} may play:")[0]


@pytest.mark.parametrize(("name", "config"), CONFIGS)
def test_explanations_along_random_games(name: str, config: dict[str, Any]) -> None:
    """At every step: legal actions have no explanation; every illegal one has one that
    starts with the action, ends with the legal actions, and names no card the player to act
    cannot know (only his own, the public ones, and the card he named himself)."""
    game = tapete.load_game(name, **config)
    rng = random.Random(7)
    explained = 0
    for seed in range(2):
        state = game.new_initial_state(seed)
        steps = 0
        while not state.is_terminal() and steps < 150:
            seat = state.current_player()
            legal = state.legal_actions()
            known = known_cards(state, seat)
            names = ", ".join(state.action_to_string(a) for a in legal)
            for action in range(game.num_distinct_actions()):
                message = state.explain_illegal(action)
                if action in legal:
                    assert message is None
                    continue
                assert message is not None
                text = state.action_to_string(action)
                assert message.startswith(f"{text} is not legal now")
                assert message.endswith(f"; seat {seat} may play: {names}")
                leaked = set(CARD.findall(message)) - known - set(CARD.findall(text))
                assert not leaked, (message, leaked)
                explained += 1
            state.apply_action(rng.choice(legal))
            steps += 1
    assert explained > 300


@pytest.mark.parametrize("name", tapete.list_games())
def test_apply_action_error_is_the_explanation(name: str) -> None:
    game = tapete.load_game(name)
    state = game.new_initial_state(3)
    before = state.clone()
    illegal = next(a for a in range(game.num_distinct_actions()) if a not in state.legal_actions())
    with pytest.raises(tapete.IllegalActionError) as error:
        state.apply_action(illegal)
    assert str(error.value) == state.explain_illegal(illegal)
    assert state == before
    with pytest.raises(tapete.IllegalActionError):
        state.explain_illegal(game.num_distinct_actions())
    with pytest.raises(tapete.IllegalActionError):
        state.explain_illegal(-1)


def play_to(
    name: str, config: dict[str, Any], wanted: Any, seeds: int = 40
) -> tuple[tapete.State, Any]:
    """The first state along random games where ``wanted(state)`` is not None, and that."""
    game = tapete.load_game(name, **config)
    for seed in range(seeds):
        state = game.new_initial_state(seed)
        rng = random.Random(seed)
        while not state.is_terminal():
            found = wanted(state)
            if found is not None:
                return state, found
            state.apply_action(rng.choice(state.legal_actions()))
    raise AssertionError("no such state")


def test_spoil_five_follow_suit_and_trumps() -> None:
    def renege(state: tapete.State) -> Any:
        v = state.view(state.current_player())
        trick = v["current_trick"]
        if v["phase"] != "play" or not trick or not trick["plays"]:
            return None
        hand = v["hands"][state.current_player()]
        legal = tapete.spoil_five.legal_plays(v["trump"], hand, [c for _, c in trick["plays"]])
        wrong = [c for c in hand if c not in legal]
        return (v, hand, legal, wrong[0]) if wrong else None

    for led_trump in (False, True):

        def wanted(state: tapete.State, led_trump: bool = led_trump) -> Any:
            found = renege(state)
            if found is None:
                return None
            v = found[0]
            led = v["current_trick"]["plays"][0][1]
            trumps = tapete.spoil_five.trump_order(v["trump"])
            return found if (led in trumps) == led_trump else None

        state, (v, hand, legal, wrong) = play_to("spoil_five", {}, wanted)
        led = v["current_trick"]["plays"][0][1]
        why = reason(state, state.string_to_action(f"play {wrong}"))
        trumps = tapete.spoil_five.trump_order(v["trump"])
        if led_trump:
            held = " ".join(c for c in hand if c in trumps)
            assert why == f"trumps were led ({led}): you must play a trump, and you hold {held}"
        else:
            suit = {"C": "clubs", "D": "diamonds", "H": "hearts", "S": "spades"}[led[-1]]
            follow = [c for c in legal if c not in trumps]
            assert why.startswith(
                f"you must follow suit: {suit} were led ({led}) and you hold {' '.join(follow)}"
            ), why
    state = tapete.load_game("spoil_five").new_initial_state(1)
    hand = state.view(state.current_player())["hands"][state.current_player()]
    missing = next(c for c in ("AS", "KS", "QS", "2C") if c not in hand)
    assert reason(state, state.string_to_action(f"play {missing}")).startswith(
        f"you do not hold {missing}"
    )


def test_cicera_capture_not_complete_and_takes() -> None:
    def building(state: tapete.State) -> Any:
        v = state.view(state.current_player())
        if v["phase"] != "capture" or v["taken"] or v["pending"][:-1] in "JQK":
            return None
        return v

    state, v = play_to("cicera", {"game_mode": "single_hand"}, building)
    pending = v["pending"]
    value = {"A": 1}.get(pending[:-1]) or int(pending[:-1])
    hand = v["hands"][state.current_player()]
    why = reason(state, state.string_to_action(f"play {hand[0]}"))
    assert why == f"the capture with {pending} is not complete: take table cards summing to {value}"
    off_table = next(c for c in ("AS", "2H", "KD", "5C") if c not in v["table"])
    assert reason(state, state.string_to_action(f"take {off_table}")) == (
        f"{off_table} is not on the table"
    )

    def nothing_to_capture(state: tapete.State) -> Any:
        v = state.view(state.current_player())
        if v["phase"] != "play":
            return None
        idle = [
            c
            for c in v["hands"][state.current_player()]
            if not tapete.cicera.captures(v["table"], c)
        ]
        numerals = [c for c in idle if c[:-1] not in "JQK"]
        return numerals[0] if numerals else None

    state, card = play_to("cicera", {"game_mode": "single_hand"}, nothing_to_capture)
    value = {"A": 1}.get(card[:-1]) or int(card[:-1])
    assert reason(state, state.string_to_action(f"capture {card}")) == (
        f"{card} captures nothing: no table numerals add up to {value}"
    )


def test_cau_robat_rank_not_held() -> None:
    state = tapete.load_game("cau_robat").new_initial_state(2)
    seat = state.current_player()
    held = sorted({int(c[:-1]) for c in state.view(seat)["hands"][seat]})
    rank = next(r for r in (1, 2, 3, 4, 5, 6, 7, 10, 11, 12) if r not in held)
    assert reason(state, state.string_to_action(f"play {rank}")) == (
        f"you hold no card of rank {rank}; your ranks: {' '.join(map(str, held))}"
    )


def test_cuajo_kings_draw_and_missing_cards() -> None:
    def opening_with_king(state: tapete.State) -> Any:
        v = state.view(state.current_player())
        kings = [c for c in v["concealed"][state.current_player()] if c.startswith("K")]
        return kings[0] if v["phase"] in ("opening", "action") and kings else None

    state, king = play_to("cuajo", {}, opening_with_king)
    assert reason(state, state.string_to_action(f"discard {king}")) == (
        f"{king} is a king: kings are never discarded"
    )
    v = state.view(state.current_player())
    missing = next(
        c
        for c in ("AO", "3C", "4E", "5B", "JO", "HC")
        if c not in v["concealed"][state.current_player()]
    )
    assert (
        reason(state, state.string_to_action(f"discard {missing}")) == f"you do not hold {missing}"
    )
    assert reason(state, state.string_to_action("claim")) == "there is no shown card to claim now"

    def drawing(state: tapete.State) -> Any:
        v = state.view(state.current_player())
        return v["top_discard"] if v["phase"] == "draw" and v["stock_size"] else None

    state, top = play_to("cuajo", {}, drawing)
    hand = state.view(state.current_player())["concealed"][state.current_player()]
    assert reason(state, state.string_to_action(f"discard {hand[0]}")) == (
        f"start your turn with 'draw' (the top stock card) or 'take' (the last discard, {top})"
    )


def test_vector_env_error_gives_the_reason() -> None:
    env = tapete.VectorEnv("cau_robat", 2, seed=4)
    env.reset()
    state = env.state(1)
    bad = next(a for a in range(10) if a not in state.legal_actions())
    actions = [env.state(0).legal_actions()[0], bad]
    with pytest.raises(tapete.IllegalActionError, match=r"env 1: .*you hold no card of rank"):
        env.step(actions)


@pytest.mark.parametrize("name", tapete.list_games())
def test_reference_explains_like_its_errors(name: str) -> None:
    game = reference.load_game(name)
    state = game.new_initial_state(5)
    legal = state.legal_actions()
    assert all(state.explain_illegal(a) is None for a in legal)
    illegal = next(a for a in range(game.num_distinct_actions()) if a not in legal)
    message = state.explain_illegal(illegal)
    with pytest.raises(tapete.IllegalActionError) as error:
        state.apply_action(illegal)
    assert message == str(error.value)
    with pytest.raises(tapete.IllegalActionError):
        state.explain_illegal(game.num_distinct_actions())
