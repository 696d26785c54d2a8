"""Cau Robat invariants on both implementations, at every step of random games (rules §10):
every card in exactly one place, table ranks distinct, chains of two or three cards, nothing
hidden in a seat's view, determinisation invisible to the seat."""

from __future__ import annotations

import random
from typing import Any

import numpy as np
import pytest

CONFIGS = [
    {"players": 3},
    {"players": 4, "net_bonus": True, "stack_order": "played_on_top"},
    {"players": 5, "chain_penalty_payers": "all_opponents", "direct_pile_match": True},
    {"players": 4, "hands_to_win": 2, "hand_tie": "shared", "max_hands": 3},
]


def check_cards(view: dict[str, Any]) -> None:
    chain = view["chain"]["cards"] if view["chain"] else []
    places = [*view["hands"], view["table"], *view["piles"], chain]
    cards = [c for place in places for c in place]
    assert len(cards) == 40 and len(set(cards)) == 40, "a card is lost or in two places"
    ranks = [c[:-1] for c in view["table"]]
    assert len(ranks) == len(set(ranks)), "two table cards of one rank"
    assert len(chain) in (0, 2, 3)
    assert [len(h) for h in view["hands"]] == view["hand_sizes"]


@pytest.mark.parametrize("config", CONFIGS, ids=[str(c) for c in CONFIGS])
def test_invariants_and_no_leaks(impl: Any, config: dict[str, Any]) -> None:
    game = impl.load_game("cau_robat", **config)
    n = game.num_players()
    moved = 0
    for seed in range(3):
        state = game.new_initial_state(seed)
        rng = random.Random(seed)
        step = 0
        while True:
            full = state.view()
            check_cards(full)
            for seat in range(n):
                view = state.view(seat)
                assert view["hands"] == [full["hands"][s] if s == seat else None for s in range(n)]
                assert {k: v for k, v in view.items() if k not in ("hands", "viewer")} == {
                    k: v for k, v in full.items() if k not in ("hands", "viewer")
                }
            if step % 5 == 0:
                seat = step % n
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
        assert abs(sum(state.returns())) < 1e-9
    assert moved > 0, "resampling never re-dealt a hidden card"
