"""The engine and the reference model in lock step from the same seed: legal action strings,
every seat's view and the full view, observation tensors, returns and rewards at every step."""

from __future__ import annotations

import os
import random
from collections.abc import Callable
from typing import Any

import numpy as np
from cuajo_bot import choose as cuajo_choose
from hypothesis import HealthCheck, given, settings
from hypothesis import seed as hypothesis_seed
from hypothesis import strategies as st

import tapete
import tapete.reference

GAMES = int(os.environ.get("TAPETE_DIFFERENTIAL_GAMES", "2000"))
CICERA_GAMES = int(os.environ.get("TAPETE_DIFFERENTIAL_CICERA_GAMES", "1000"))
CAU_ROBAT_GAMES = int(os.environ.get("TAPETE_DIFFERENTIAL_CAU_ROBAT_GAMES", "1000"))
CUAJO_GAMES = int(os.environ.get("TAPETE_DIFFERENTIAL_CUAJO_GAMES", "300"))


@st.composite
def spoil_five_configs(draw: st.DrawFn) -> dict[str, Any]:
    players = draw(st.integers(2, 10))
    config: dict[str, Any] = {"players": players, "num_deals": draw(st.integers(1, 3))}
    if players in (4, 6, 8) and draw(st.booleans()):
        half = players // 2
        config["partnerships"] = (
            [[s for s in range(players) if s % 2 == t] for t in range(2)]
            if draw(st.booleans())
            else [[t, t + half] for t in range(half)]
        )
    if draw(st.booleans()):
        config["first_dealer"] = draw(st.integers(0, players - 1))
    options = {
        "deal_batches": st.sampled_from([[2, 3], [3, 2]]),
        "ante_mode": st.sampled_from(
            ["every_deal", "reduced_after_spoil", "dealer_only_after_spoil"]
        ),
        "rob_policy": st.sampled_from(["enforced", "penalty", "optional", "disabled"]),
        "rob_timing": st.sampled_from(["at_turn", "before_first_lead"]),
        "renege_reference": st.sampled_from(["led_card", "highest_trump_so_far"]),
        "jinking": st.booleans(),
        "jink_payment": st.sampled_from(["payer_stake", "jinker_stake"]),
        "early_spoil_stop": st.booleans(),
        "leftover_pool": st.sampled_from(["play_on", "split_equally", "unresolved"]),
        "max_extra_deals": st.integers(0, 3),
        "dealer_stake": st.integers(0, 3),
    }
    for key, strategy in options.items():
        if draw(st.booleans()):
            config[key] = draw(strategy)
    return config


@st.composite
def cicera_configs(draw: st.DrawFn) -> dict[str, Any]:
    config: dict[str, Any] = {
        "game_mode": draw(st.sampled_from(["single_hand", "single_hand", "match"])),
        "max_hands": draw(st.integers(1, 3)),
    }
    if draw(st.booleans()):
        config["first_dealer"] = draw(st.integers(0, 3))
    options = {
        "target_score": st.sampled_from([11, 21, 51]),
        "packet_size": st.sampled_from([12, 6, 4]),
        "deal_style": st.sampled_from(["one_at_a_time", "packets"]),
        "force_single_match": st.booleans(),
        "capture_compulsory": st.booleans(),
        "left_bonus_mode": st.sampled_from(["any", "rank_match"]),
        "sweep_on_last_play_counts": st.booleans(),
        "bonus_sweep": st.booleans(),
        "bonus_left": st.booleans(),
        "bonus_single_suit": st.booleans(),
        "bonus_three_plus": st.booleans(),
        "cards_tie": st.sampled_from(["none", "one_each"]),
        "spades_majority_points": st.integers(0, 2),
        "napola_courts_extend": st.booleans(),
        "all_spades_wins_match": st.booleans(),
        "leftover_if_no_capture": st.sampled_from(["nobody", "dealer_team"]),
        "auto_complete_unique": st.booleans(),
    }
    for key, strategy in options.items():
        if draw(st.booleans()):
            config[key] = draw(strategy)
    return config


@st.composite
def cau_robat_configs(draw: st.DrawFn) -> dict[str, Any]:
    players = draw(st.integers(3, 5))
    hands_to_win = draw(st.integers(1, 2))
    config: dict[str, Any] = {"players": players, "hands_to_win": hands_to_win}
    if draw(st.booleans()):
        config["first_dealer"] = draw(st.integers(0, players - 1))
    options = {
        "sequence_direction": st.sampled_from(["both", "up_only", "down_only"]),
        "rank_conflict": st.sampled_from(["table_priority", "stop"]),
        "own_pile_links": st.booleans(),
        "multi_pile_same_rank": st.sampled_from(["all", "first_only"]),
        "direct_pile_match": st.booleans(),
        "stack_order": st.sampled_from(["walk", "played_on_top"]),
        "cau_enabled": st.booleans(),
        "chain_penalty_payers": st.sampled_from(["chain_members", "all_opponents"]),
        "net_bonus": st.booleans(),
        "leftover_table_cards": st.sampled_from(["unclaimed", "last_capturer"]),
        "hand_tie": st.sampled_from(["void", "shared"]),
        "max_hands": st.integers(hands_to_win, 4),
    }
    for key, strategy in options.items():
        if draw(st.booleans()):
            config[key] = draw(strategy)
    return config


@st.composite
def cuajo_configs(draw: st.DrawFn) -> dict[str, Any]:
    config: dict[str, Any] = {}
    options = {
        "first_dealer": st.integers(0, 3),
        "dealer_after_wash": st.sampled_from(["same", "next"]),
        "dealer_natural_win": st.booleans(),
        "empty_stock": st.sampled_from(["last_discard_then_wash", "immediate_wash"]),
        "max_turns": st.integers(1, 120),
        "may_rediscard_taken_card": st.booleans(),
        "undeclared_quad_valid": st.booleans(),
        "sowee_triple_undeclared_valid": st.booleans(),
        "secret_payment": st.integers(0, 100),
        "secret_on_winning_turn": st.booleans(),
        "secret_kind_public": st.booleans(),
        "purro_call": st.sampled_from(["forced", "optional"]),
        "purro_marker": st.sampled_from(["lowest_type", "player_choice"]),
        "dead_waits_count": st.booleans(),
        "purro_loss_penalty_turns": st.integers(0, 3),
        "penalty_draws_claimable": st.booleans(),
        "king_basis": st.sampled_from(["winner", "payer"]),
        "king_coins": st.integers(0, 100),
        "special_flat": st.booleans(),
        "bonus_r1": st.integers(0, 100),
        "bonus_mode": st.sampled_from(["table", "additive"]),
        "r2_needs_sowee_copy": st.booleans(),
        "extra_draw": st.integers(0, 50),
        "returns": st.sampled_from(["team", "individual"]),
        "hands_per_match": st.integers(1, 3),
    }
    for key, strategy in options.items():
        if draw(st.booleans()):
            config[key] = draw(strategy)
    return config


def assert_same(engine: Any, reference: Any, players: int, where: str) -> None:
    assert engine.current_player() == reference.current_player(), where
    legal = engine.legal_actions()
    assert legal == reference.legal_actions(), where
    assert [engine.action_to_string(a) for a in legal] == [
        reference.action_to_string(a) for a in legal
    ], where
    assert engine.returns() == reference.returns(), where
    assert engine.rewards() == reference.rewards(), where
    assert engine.view() == reference.view(), where
    for seat in range(players):
        assert engine.view(seat) == reference.view(seat), f"{where}, seat {seat}"
        assert np.array_equal(
            engine.observation_tensor(seat), reference.observation_tensor(seat)
        ), f"{where}, observation of seat {seat}"


def lock_step(
    game_name: str,
    config: dict[str, Any],
    seed: int,
    choose: Callable[[Any, random.Random], int] = lambda state, rng: rng.choice(
        state.legal_actions()
    ),
) -> None:
    engine = tapete.load_game(game_name, **config).new_initial_state(seed=seed)
    reference = tapete.reference.load_game(game_name, **config).new_initial_state(seed=seed)
    players = engine.num_players()
    chooser = random.Random(seed)
    step = 0
    while True:
        assert_same(engine, reference, players, f"{game_name} {config} seed {seed} step {step}")
        if engine.is_terminal():
            break
        action = choose(engine, chooser)
        engine.apply_action(action)
        reference.apply_action(action)
        step += 1
    assert engine.history() == reference.history()


SETTINGS = settings(
    max_examples=GAMES,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow],
    derandomize=True,
)


# Each lock-step test is split in PARTS tests, each with a fixed seed of its own, so that
# pytest-xdist spreads them over the cores.
PARTS = 3


def _lock_step_tests(game_name: str, configs: Any, games: int, choose: Any = None) -> None:
    for part in range(PARTS):

        def run(config: dict[str, Any], seed: int) -> None:
            if choose is None:
                lock_step(game_name, config, seed)
            else:
                lock_step(game_name, config, seed, choose)

        name = f"test_{game_name}_lock_step_part{part}"
        run.__name__ = run.__qualname__ = name
        test = settings(SETTINGS, max_examples=max(1, games // PARTS), derandomize=False)(
            given(config=configs(), seed=st.integers(0, 2**64 - 1))(run)
        )
        # A fixed seed of its own per part: the same examples on every run, none shared.
        globals()[name] = hypothesis_seed(1000 + part)(test)


_lock_step_tests("spoil_five", spoil_five_configs, GAMES)
_lock_step_tests("cicera", cicera_configs, CICERA_GAMES)
_lock_step_tests("cau_robat", cau_robat_configs, CAU_ROBAT_GAMES)
_lock_step_tests("cuajo", cuajo_configs, CUAJO_GAMES, cuajo_choose)
