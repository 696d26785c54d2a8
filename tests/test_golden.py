"""Golden playthroughs (OpenSpiel's playthrough files): seeded games with every step's player,
legal moves and chosen move, and the final view and returns, replayed by both implementations.
A rule change shows up as a reviewable diff of tests/data/golden/<game>.json.

Regenerate after a deliberate rule change with ``python tests/test_golden.py``.
"""

from __future__ import annotations

import json
import random
from pathlib import Path
from typing import Any

import pytest
from cuajo_bot import choose as cuajo_choose

import tapete

GOLDEN = Path(__file__).parent / "data" / "golden"

# Per game: (config, seed) of each playthrough.
PLAYTHROUGHS: dict[str, list[tuple[dict[str, Any], int]]] = {
    "spoil_five": [
        ({"players": 4, "first_dealer": 0}, 1),
        ({"players": 2, "rob_policy": "penalty", "num_deals": 3}, 2),
        ({"players": 6, "partnerships": [[0, 2, 4], [1, 3, 5]], "num_deals": 2}, 3),
        ({"players": 10, "renege_reference": "highest_trump_so_far", "num_deals": 1}, 4),
        ({"players": 3, "ante_mode": "reduced_after_spoil", "jink_payment": "jinker_stake"}, 5),
    ],
    "cau_robat": [
        ({"first_dealer": 0}, 1),
        ({"players": 3, "hands_to_win": 2, "net_bonus": True}, 2),
        (
            {"players": 5, "stack_order": "played_on_top", "chain_penalty_payers": "all_opponents"},
            3,
        ),
    ],
    "cuajo": [
        ({"first_dealer": 0}, 1),
        ({"first_dealer": 1}, 3),
        ({"hands_per_match": 3, "purro_call": "optional", "purro_marker": "player_choice"}, 2),
        ({"returns": "individual", "king_basis": "payer", "bonus_mode": "additive"}, 4),
    ],
    "cicera": [
        ({"game_mode": "single_hand", "first_dealer": 0}, 1),
        ({"game_mode": "single_hand", "packet_size": 6, "left_bonus_mode": "rank_match"}, 2),
        ({"target_score": 11, "max_hands": 3, "force_single_match": True}, 3),
    ],
}


def record(module: Any, game_name: str, config: dict[str, Any], seed: int) -> dict[str, Any]:
    """Plays the seeded game with a seeded random bot and records every step."""
    state = module.load_game(game_name, **config).new_initial_state(seed=seed)
    bot = random.Random(seed)
    steps = []
    while not state.is_terminal():
        legal = state.legal_actions()
        # Cuajo's bot plays towards complete hands: random play would almost never win.
        action = cuajo_choose(state, bot) if game_name == "cuajo" else bot.choice(legal)
        steps.append(
            {
                "player": state.current_player(),
                "legal": [state.action_to_string(a) for a in legal],
                "action": state.action_to_string(action),
            }
        )
        state.apply_action(action)
    return {
        "config": config,
        "seed": seed,
        "steps": steps,
        "final_view": state.view(),
        "returns": state.returns(),
    }


def information_states(game_name: str, config: dict[str, Any], seed: int) -> list[str]:
    """The engine's information state of every seat at the end of the playthrough (each one
    asked before is a prefix of it: a seeded game's transcript only grows)."""
    state = tapete.load_game(game_name, **config).new_initial_state(seed=seed)
    bot = random.Random(seed)
    seats = range(state.num_players())
    seen: list[list[str]] = [[] for _ in seats]
    while not state.is_terminal():
        for q in seats:
            seen[q].append(state.information_state_string(q))
        legal = state.legal_actions()
        action = cuajo_choose(state, bot) if game_name == "cuajo" else bot.choice(legal)
        state.apply_action(action)
    final = [state.information_state_string(q) for q in seats]
    for q in seats:
        assert all(final[q].startswith(text) for text in seen[q])
    return final


def golden(game_name: str) -> list[dict[str, Any]]:
    return json.loads((GOLDEN / f"{game_name}.json").read_text())


@pytest.mark.parametrize("game_name", sorted(PLAYTHROUGHS))
def test_playthroughs(impl: Any, game_name: str) -> None:
    for expected in golden(game_name):
        got = record(impl, game_name, expected["config"], expected["seed"])
        for i, (a, b) in enumerate(zip(got["steps"], expected["steps"])):
            assert a == b, f"{expected['config']} seed {expected['seed']}, step {i}"
        assert len(got["steps"]) == len(expected["steps"])
        assert got["final_view"] == expected["final_view"]
        assert got["returns"] == expected["returns"]


@pytest.mark.parametrize("game_name", sorted(PLAYTHROUGHS))
def test_information_states(game_name: str) -> None:
    """The engine's information state strings at the end of each playthrough, line by line
    (their format is the engine's own: the reference writes its own), so that a change to what
    a seat is told shows as a reviewable diff of tests/data/golden/<game>.information_states.json.
    """
    path = GOLDEN / f"{game_name}.information_states.json"
    for expected in json.loads(path.read_text()):
        got = information_states(game_name, expected["config"], expected["seed"])
        lines = [text.split("\n") for text in got]
        assert lines == expected["final"], f"{expected['config']} seed {expected['seed']}"


def test_every_registered_game_has_playthroughs() -> None:
    assert sorted(PLAYTHROUGHS) == sorted(tapete.list_games())


if __name__ == "__main__":
    GOLDEN.mkdir(parents=True, exist_ok=True)
    for name, cases in PLAYTHROUGHS.items():
        data = [record(tapete, name, config, seed) for config, seed in cases]
        (GOLDEN / f"{name}.json").write_text(json.dumps(data, indent=1) + "\n")
        states = [
            {
                "config": c,
                "seed": seed,
                "final": [text.split("\n") for text in information_states(name, c, seed)],
            }
            for c, seed in cases
        ]
        text = json.dumps(states, indent=1) + "\n"
        (GOLDEN / f"{name}.information_states.json").write_text(text)
        print(f"wrote {GOLDEN / name}.json: {sum(len(d['steps']) for d in data)} steps")
