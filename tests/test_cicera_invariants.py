"""Cicera invariants on both implementations, at every step of random games: every card in
exactly one place, nothing hidden in a seat's view, determinisation invisible to the seat."""

from __future__ import annotations

import random
from typing import Any

import numpy as np
import pytest

CONFIGS = [
    {"game_mode": "single_hand"},
    {"game_mode": "single_hand", "packet_size": 4, "deal_style": "packets"},
    {"game_mode": "single_hand", "packet_size": 6, "capture_compulsory": True},
    {"game_mode": "single_hand", "auto_complete_unique": True},
    {"target_score": 11, "max_hands": 2, "leftover_if_no_capture": "dealer_team"},
]
PRIVATE = {"hands", "viewer"}


def check_cards(view: dict[str, Any]) -> None:
    places = [*view["hands"], view["table"], *view["piles"]]
    if view["pending"] is not None:
        places.append([view["pending"]])
    cards = [c for place in places for c in place]
    assert len(cards) == len(set(cards)), "a card is in two places"
    assert len(cards) + view["stock_size"] == 52
    assert [len(h) for h in view["hands"]] == view["hand_sizes"]
    assert set(view["taken"]) <= set(view["table"])


@pytest.mark.parametrize("config", CONFIGS, ids=[str(c) for c in CONFIGS])
def test_invariants_and_no_leaks(impl: Any, config: dict[str, Any]) -> None:
    game = impl.load_game("cicera", **config)
    moved = 0
    for seed in range(2):
        state = game.new_initial_state(seed)
        rng = random.Random(seed)
        step = 0
        while True:
            full = state.view()
            check_cards(full)
            for seat in range(4):
                view = state.view(seat)
                assert view["hands"] == [full["hands"][s] if s == seat else None for s in range(4)]
                assert {k: v for k, v in view.items() if k not in PRIVATE} == {
                    k: v for k, v in full.items() if k not in PRIVATE
                }
            if step % 9 == 0:
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
                moved += other.view()["hands"] != full["hands"]
            if state.is_terminal():
                break
            state.apply_action(rng.choice(state.legal_actions()))
            step += 1
        returns = state.returns()
        assert sum(returns) == 0 and returns[0] == returns[2] and returns[1] == returns[3]
    assert moved > 0, "resampling never re-dealt a hidden card"
