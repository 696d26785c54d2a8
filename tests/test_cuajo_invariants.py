"""Cuajo invariants on both implementations, at every step of games played by the test bot:
every card in exactly one place, 15 cards a seat between turns, publicly known cards really
held, nothing hidden in a seat's view, zero-sum returns, determinisation invisible to the seat."""

from __future__ import annotations

import random
from collections import Counter
from typing import Any

import numpy as np
import pytest
from cuajo_bot import choose

CONFIGS = [
    {},
    {"purro_call": "optional", "purro_marker": "player_choice", "secret_kind_public": True},
    {"hands_per_match": 2, "returns": "individual", "dealer_after_wash": "next", "max_turns": 60},
    {"undeclared_quad_valid": False, "dead_waits_count": False, "empty_stock": "immediate_wash"},
]


def cards_of(view: dict[str, Any], seat: int) -> Counter[str]:
    """Every card of ``seat`` in the full view: hand, secrets and extra card."""
    held = Counter(view["concealed"][seat])
    for secret in view["secrets"][seat]:
        held.update(secret["cards"])
        if secret["extra"]:
            held[secret["extra"]] += 1
    return held


def check_cards(view: dict[str, Any]) -> None:
    everywhere: Counter[str] = Counter()
    for seat in range(4):
        everywhere.update(cards_of(view, seat))
    everywhere.update(d["card"] for d in view["discards"] if d["taken_by"] is None)
    everywhere[view["sowee"]] += 1
    if view["phase"] == "over":
        everywhere.update(view["result"]["extra_draws"])
    assert sum(everywhere.values()) + view["stock_size"] == 112, "a card is lost or doubled"
    assert max(everywhere.values()) <= 4
    sizes = [sum(cards_of(view, s).values()) for s in range(4)]
    assert sizes == view["hand_sizes"]
    if view["phase"] in ("draw", "purro_call", "marker"):
        assert sizes == [15] * 4, sizes
    if view["phase"] in ("action", "drawer_option", "claim", "opening"):
        assert sorted(sizes) == [15, 15, 15, 16], sizes
    if view["phase"] in ("action", "drawer_option", "opening"):
        assert sizes[view["to_play"]] == 16  # the claimant of a "claim" still holds 15
    if view["phase"] != "over":  # a claimed card leaves the drawer as the hand ends
        for seat in range(4):
            assert not Counter(view["known"][seat]) - cards_of(view, seat), "known but not held"


def check_seat_view(view: dict[str, Any], full: dict[str, Any], seat: int) -> None:
    over = full["phase"] == "over"
    for q in range(4):
        if q == seat or over:
            assert view["concealed"][q] == full["concealed"][q]
            assert view["secrets"][q] == full["secrets"][q]
        else:
            assert view["concealed"][q] is None
            for mine, real in zip(view["secrets"][q], full["secrets"][q], strict=True):
                assert mine["cards"] is None and mine["extra"] is None
                assert mine["kind"] in (None, real["kind"])
    draw = full["last_draw"]
    if draw and not (draw["shown"] or draw["seat"] == seat or over):
        assert view["last_draw"] == {**draw, "card": None}
    else:
        assert view["last_draw"] == draw
    if full["phase"] in ("drawer_option", "claim") and full["to_play"] != seat:
        assert view["phase"] == "action" and view["to_play"] != full["to_play"]
    same = {"concealed", "secrets", "last_draw", "viewer", "phase", "to_play"}
    assert {k: v for k, v in view.items() if k not in same} == {
        k: v for k, v in full.items() if k not in same
    }


@pytest.mark.parametrize("config", CONFIGS, ids=[str(c) for c in CONFIGS])
def test_invariants_and_no_leaks(impl: Any, config: dict[str, Any]) -> None:
    game = impl.load_game("cuajo", **config)
    moved = 0
    for seed in range(3):
        state = game.new_initial_state(seed)
        rng = random.Random(seed)
        step = 0
        seen_before: list[Any] = []
        while True:
            full = state.view()
            check_cards(full)
            seen_now = [(state.view(s), state.observation_tensor(s).tolist()) for s in range(4)]
            for seat in range(4):
                if full["phase"] == "marker" and full["to_play"] != seat:
                    # another seat's marker decision: seen as the table before the action
                    # (a discard or a purro call) that brought it
                    assert seen_now[seat] == seen_before[seat]
                else:
                    check_seat_view(seen_now[seat][0], full, seat)
            seen_before = seen_now
            if step % 9 == 0 and step < 180:  # resampling late in a hand can be slow
                seat = step % 4
                other = state.resample_from_infostate(seat, seed * 1000 + step)
                assert other.view(seat) == state.view(seat)
                assert np.array_equal(
                    other.observation_tensor(seat), state.observation_tensor(seat)
                )
                assert other.information_state_string(seat) == (
                    state.information_state_string(seat)
                )
                check_cards(other.view())
                moved += other.view()["concealed"] != full["concealed"]
            if state.is_terminal():
                break
            state.apply_action(choose(state, rng))
            step += 1
        returns = state.returns()
        assert abs(sum(returns)) < 1e-9
        if game.config()["returns"] == "team":
            assert returns[0] == returns[2] and returns[1] == returns[3]
    assert moved > 0, "resampling never re-dealt a hidden card"
