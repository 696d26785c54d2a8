"""Contract tests of the public API (shared/design/api.md, docs/engine.md, docs/rules/<game>.md).

Every test runs on both implementations through the ``impl`` fixture of ``conftest.py`` (the
Rust engine ``tapete`` and the pure-Python reference ``tapete.reference``), except the tests of
``Game.play_random``, which only the engine has.

Generic checks loop over ``impl.list_games()``; what depends on the game (its config table, a
bad card string, its deal formula) lives in ``GAMES`` below, keyed by registry name.  Every
rejected input is checked for the exact exception class of ``tapete.errors`` (plain
``ValueError`` for a seat out of range) and for leaving the state exactly as it was.
"""

import copy
import importlib
import json
import pickle
import random

import numpy as np
import pytest

import tapete
import tapete.errors
from tapete.errors import ConfigError, IllegalActionError, ParseError, TapeteError
from tapete.reference.rng import MASK64, SplitMix64

# --------------------------------------------------------------------------------------------
# per-game data

REGISTRY_NAMES = {"spoil_five", "cicera", "cau_robat", "cuajo"}  # api.md, "Names"

SPOIL_FIVE_RANKS = ["2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K", "A"]
SPOIL_FIVE_PACK = [r + s for s in "CDHS" for r in SPOIL_FIVE_RANKS]  # ascending card id


def spoil_five_deal(deck, dealer, config):
    """Hands and turn-up dealt from ``deck`` (docs/rules/spoil_five.md, "The deal")."""
    n = config["players"]
    a, b = config["deal_batches"]
    hands = [[] for _ in range(n)]
    for k in range(5 * n):
        if k < a * n:
            seat = (dealer + 1 + k // a) % n
        else:
            seat = (dealer + 1 + (k - a * n) // b) % n
        hands[seat].append(deck[k])
    order = {card: i for i, card in enumerate(SPOIL_FIVE_PACK)}
    return {"hands": [sorted(h, key=order.__getitem__) for h in hands], "turn_up": deck[5 * n]}


CICERA_RANKS = ["A", "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K"]
CICERA_PACK = [r + s for s in "SHDC" for r in CICERA_RANKS]  # ascending card id


def cicera_deal(deck, dealer, config):
    """Hands and table dealt from ``deck`` (docs/rules/cicera.md, "A hand")."""
    packet = config["packet_size"]
    hands = [[] for _ in range(4)]
    for i in range(4 * packet):
        step = i % 4 if config["deal_style"] == "one_at_a_time" else i // packet
        hands[(dealer + 1 + step) % 4].append(deck[i])
    order = {card: i for i, card in enumerate(CICERA_PACK)}
    table = sorted(deck[4 * packet : 4 * packet + 4], key=order.__getitem__)
    return {"hands": [sorted(h, key=order.__getitem__) for h in hands], "table": table}


CAU_ROBAT_RANKS = ["1", "2", "3", "4", "5", "6", "7", "10", "11", "12"]
CAU_ROBAT_PACK = [r + s for r in CAU_ROBAT_RANKS for s in "OCEB"]  # ascending card id


def cau_robat_deal(deck, dealer, config):
    """Table and hands dealt from ``deck`` (docs/rules/cau_robat.md, "The deal")."""
    n = config["players"]
    size = 5 if n == 5 else 4
    table, rest = [], []
    for card in deck:
        rank = card[:-1]
        if len(table) < size and all(t[:-1] != rank for t in table):
            table.append(card)
        else:
            rest.append(card)
    hands = [[] for _ in range(n)]
    for i, card in enumerate(rest):
        offset = i - 30 if n == 5 and i >= 30 else (i % (3 * n)) // 3
        hands[(dealer + 1 + offset) % n].append(card)
    order = {card: i for i, card in enumerate(CAU_ROBAT_PACK)}
    return {
        "hands": [sorted(h, key=order.__getitem__) for h in hands],
        "table": sorted(table, key=order.__getitem__),
    }


CUAJO_PACK = [r + s for s in "OCEB" for r in "A345JHK" for _ in range(4)]  # ascending id


def cuajo_deal(deck, dealer, config):
    """Hands and sowee dealt from ``deck`` (docs/rules/cuajo.md, "The deal")."""
    hands = [[] for _ in range(4)]
    for i, card in enumerate(deck[:61]):
        k = min(i // 5, 3) if i < 21 else (i - 21) % 20 // 5
        hands[(dealer + 1 + k) % 4].append(card)
    order = {card: i // 4 for i, card in enumerate(CUAJO_PACK)}
    return {"concealed": [sorted(h, key=order.__getitem__) for h in hands], "sowee": deck[61]}


def spoil_five_max_length(config):
    extra = config["max_extra_deals"] if config["leftover_pool"] == "play_on" else 0
    return (config["num_deals"] + extra) * (5 * config["players"] + 2)


GAMES = {
    "spoil_five": {
        # docs/rules/spoil_five.md, "Configuration"; num_deals None = one deal per player
        "defaults": {
            "explicit_chance": False,  # docs/engine.md, "Explicit chance nodes"
            "players": 4,
            "partnerships": "none",
            "first_dealer": "random",
            "deal_batches": [2, 3],
            "ante_mode": "every_deal",
            "base_stake": 1,
            "dealer_stake": 2,
            "pool_stake": 2,
            "spoil_stake": 1,
            "dealer_extra": 1,
            "rob_policy": "enforced",
            "rob_timing": "at_turn",
            "renege_reference": "led_card",
            "jinking": True,
            "jink_payment": "payer_stake",
            "team_remainder": "to_pool",
            "early_spoil_stop": False,
            "num_deals": None,
            "leftover_pool": "play_on",
            "max_extra_deals": 10,
        },
        "effective": lambda cfg: {
            **cfg,
            "num_deals": cfg["players"] if cfg["num_deals"] is None else cfg["num_deals"],
        },
        "num_players": lambda cfg: cfg["players"],
        "num_distinct_actions": 107,
        "tensor_shape": lambda cfg: (277 * cfg["players"] + 181,),
        "max_game_length": spoil_five_max_length,
        # valid non-default configs, played through in the positive checks
        "configs": [
            {"players": 3, "first_dealer": 2},
            {"players": 2, "deal_batches": [3, 2], "rob_policy": "optional", "num_deals": 3},
            {"players": 4, "partnerships": [[0, 2], [1, 3]], "leftover_pool": "split_equally"},
            {"players": 6, "rob_policy": "penalty", "rob_timing": "before_first_lead"},
        ],
        "other_config": {"players": 3},
        "bad_configs": {
            "players=1": {"players": 1},
            "players=11": {"players": 11},
            "players=0": {"players": 0},
            "first_dealer=9": {"players": 4, "first_dealer": 9},
            "first_dealer=-1": {"first_dealer": -1},
            "first_dealer=word": {"first_dealer": "left"},
            "partnerships-seat-twice": {"partnerships": [[0, 1], [1, 2, 3]]},
            "partnerships-seat-missing": {"partnerships": [[0, 2], [1]]},
            "partnerships-seat-4": {"partnerships": [[0, 2], [1, 4]]},
            "partnerships-one-team": {"partnerships": [[0, 1, 2, 3]]},
            "partnerships-empty-team": {"partnerships": [[0, 1, 2, 3], []]},
            "partnerships-word": {"partnerships": "teams"},
            "partnerships-float-seat": {"partnerships": [[0, 2], [1, 3.0]]},
            "deal_batches=[1,4]": {"deal_batches": [1, 4]},
            "deal_batches=str": {"deal_batches": "23"},
            "num_deals=0": {"num_deals": 0},
            "num_deals=1001": {"num_deals": 1001},
            "base_stake=-1": {"base_stake": -1},
            "dealer_stake=1001": {"dealer_stake": 1001},
            "max_extra_deals=-1": {"max_extra_deals": -1},
            "rob_policy=word": {"rob_policy": "sometimes"},
            "ante_mode=word": {"ante_mode": "never"},
            "team_remainder=split": {"team_remainder": "split"},
            "players=True": {"players": True},
            "players='4'": {"players": "4"},
            "players=4.0": {"players": 4.0},
            "players=None": {"players": None},
            "jinking=1": {"jinking": 1},
            "jinking='true'": {"jinking": "true"},
            "early_spoil_stop=0": {"early_spoil_stop": 0},
            "base_stake=True": {"base_stake": True},
            "num_deals=2.0": {"num_deals": 2.0},
        },
        "pack": SPOIL_FIVE_PACK,
        "bad_card": "1S",
        "bad_cards": ["ZZ", "1S", "11S", "AX", "A", "10", "", "ÄH"],
        "bad_action_strings": [
            "play",
            "play 1S",
            "play AH AH",
            "rob",
            "fly",
            "play ZZ",
            "rob ZZ",
            "stand now",
            "jink jink",
            "playAH",
            "capture AH",
            "play ÄH",
            "spiele AH",
            "♠♥",
            "play A♠",
        ],
        "aliases": {"play TD": "play 10D", "ROB th": "rob 10H", "Play ah": "play AH"},
        "deal": spoil_five_deal,
        "deal_key": "deal",
        # plays, stand and jink; a rob names the hidden put-out card, a decline is private
        "public_action": lambda a: a < 52 or a > 104,
        "view_keys": [
            "game",
            "viewer",
            "players",
            "teams",
            "deal",
            "dealer",
            "phase",
            "to_play",
            "trump",
            "turn_up",
            "turn_up_at",
            "robber",
            "hands",
            "hand_sizes",
            "put_out",
            "declined",
            "tricks",
            "current_trick",
            "tricks_won",
            "jinker",
            "pool",
            "balances",
            "antes",
            "past_deals",
        ],
    },
    "cicera": {
        # docs/rules/cicera.md, "Configuration"
        "defaults": {
            "explicit_chance": False,  # docs/engine.md, "Explicit chance nodes"
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
        },
        "effective": lambda cfg: cfg,
        "num_players": lambda cfg: 4,
        "num_distinct_actions": 156,
        "tensor_shape": lambda cfg: (677,),
        "max_game_length": lambda cfg: (
            100 * (1 if cfg["game_mode"] == "single_hand" else cfg["max_hands"])
        ),
        "configs": [
            {"game_mode": "single_hand", "first_dealer": 2},
            {"packet_size": 6, "deal_style": "packets", "max_hands": 2},
            {"packet_size": 4, "force_single_match": True, "game_mode": "single_hand"},
            {"capture_compulsory": True, "target_score": 11, "max_hands": 3},
            {"auto_complete_unique": True, "game_mode": "single_hand"},
        ],
        "other_config": {"target_score": 21},
        "bad_configs": {
            "players=4": {"players": 4},
            "target_score=0": {"target_score": 0},
            "target_score=1001": {"target_score": 1001},
            "packet_size=5": {"packet_size": 5},
            "deal_style=word": {"deal_style": "randomly"},
            "first_dealer=4": {"first_dealer": 4},
            "left_bonus_mode=word": {"left_bonus_mode": "some"},
            "cards_tie=word": {"cards_tie": "two_each"},
            "spades_majority_points=11": {"spades_majority_points": 11},
            "game_mode=word": {"game_mode": "tournament"},
            "max_hands=0": {"max_hands": 0},
            "bonus_sweep=1": {"bonus_sweep": 1},
            "auto_complete_unique=yes": {"auto_complete_unique": "yes"},
            "packet_size='12'": {"packet_size": "12"},
            "target_score=True": {"target_score": True},
        },
        "pack": CICERA_PACK,
        "bad_card": "1S",
        "bad_cards": ["ZZ", "1S", "11S", "AX", "A", "10", "", "ÄH"],
        "bad_action_strings": [
            "play",
            "capture",
            "take",
            "play 1S",
            "capture AH AH",
            "rob AH",
            "trail AH",
            "take ZZ",
            "playAH",
            "♠♥",
        ],
        "aliases": {"play TD": "play 10D", "CAPTURE th": "capture 10H", "Take ah": "take AH"},
        "deal": cicera_deal,
        "deal_key": "hand",
        "public_action": lambda a: True,
        "view_keys": [
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
        ],
    },
    "cau_robat": {
        # docs/rules/cau_robat.md, "Configuration"
        "defaults": {
            "explicit_chance": False,  # docs/engine.md, "Explicit chance nodes"
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
            "max_hands": None,
        },
        # max_hands: 2 (n (hands_to_win - 1) + 1) unless given; 1 for a one-hand match
        "effective": lambda cfg: {
            **cfg,
            "max_hands": 1
            if cfg["hands_to_win"] == 1
            else 2 * (cfg["players"] * (cfg["hands_to_win"] - 1) + 1)
            if cfg["max_hands"] is None
            else cfg["max_hands"],
        },
        "num_players": lambda cfg: cfg["players"],
        "num_distinct_actions": 10,
        "tensor_shape": lambda cfg: (243,),
        "max_game_length": lambda cfg: (35 if cfg["players"] == 5 else 36) * cfg["max_hands"],
        "configs": [
            {"players": 3, "first_dealer": 1},
            {"players": 5, "hands_to_win": 2, "hand_tie": "shared"},
            {"stack_order": "played_on_top", "net_bonus": True, "direct_pile_match": True},
            {"sequence_direction": "down_only", "cau_enabled": False, "max_hands": 3},
            {"hands_to_win": 4, "max_hands": 4, "players": 3},
        ],
        "other_config": {"players": 3},
        "bad_configs": {
            "players=2": {"players": 2},
            "players=6": {"players": 6},
            "first_dealer=4": {"players": 4, "first_dealer": 4},
            "hands_to_win=0": {"hands_to_win": 0},
            "max_hands=0": {"max_hands": 0},
            "max_hands<hands_to_win": {"hands_to_win": 5, "max_hands": 4},
            "hands_to_win=1001": {"hands_to_win": 1001},
            "sequence_direction=word": {"sequence_direction": "sideways"},
            "stack_order=word": {"stack_order": "random"},
            "hand_tie=word": {"hand_tie": "replay"},
            "net_bonus=1": {"net_bonus": 1},
            "players=True": {"players": True},
            "players='4'": {"players": "4"},
            "unknown": {"num_player": 4},
        },
        "pack": CAU_ROBAT_PACK,
        "bad_card": "8O",
        "bad_cards": ["ZZ", "8O", "13O", "0O", "1X", "8", "", "ÄO"],
        "bad_action_strings": [
            "play",
            "play 8",
            "play 0",
            "play 13",
            "play 7O",
            "play 7 7",
            "take 7",
            "play seven",
            "play7",
            "♠♥",
        ],
        "aliases": {"PLAY 7": "play 7", "Play 12": "play 12", "play  10": "play 10"},
        "deal": cau_robat_deal,
        "multi_deal_config": {"hands_to_win": 3},
        "deal_key": "hand",
        "public_action": lambda a: True,
        "view_keys": [
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
        ],
    },
    "cuajo": {
        # docs/rules/cuajo.md, "Configuration"
        "defaults": {
            "explicit_chance": False,  # docs/engine.md, "Explicit chance nodes"
            "first_dealer": "random",
            "dealer_after_wash": "same",
            "dealer_natural_win": True,
            "empty_stock": "last_discard_then_wash",
            "max_turns": 300,
            "may_rediscard_taken_card": True,
            "undeclared_quad_valid": True,
            "sowee_triple_undeclared_valid": False,
            "secret_payment": 50,
            "secret_on_winning_turn": True,
            "secret_kind_public": False,
            "purro_call": "forced",
            "purro_marker": "lowest_type",
            "dead_waits_count": True,
            "purro_loss_penalty_turns": 2,
            "penalty_draws_claimable": True,
            "claim_priority": "drawer_then_turn_order",
            "king_basis": "winner",
            "king_coins": 50,
            "king_other": 20,
            "special_hand": 300,
            "special_flat": True,
            "bonus_full": 110,
            "bonus_r1": 60,
            "bonus_r2": 70,
            "bonus_none": 20,
            "bonus_mode": "table",
            "r2_needs_sowee_copy": True,
            "extra_draw": 15,
            "returns": "team",
            "hands_per_match": 1,
        },
        "effective": lambda cfg: cfg,
        "num_players": lambda cfg: 4,
        "num_distinct_actions": 95,
        "tensor_shape": lambda cfg: (1443,),
        "max_game_length": lambda cfg: cfg["hands_per_match"] * (12 * cfg["max_turns"] + 12),
        "configs": [
            {"first_dealer": 2, "hands_per_match": 2, "dealer_after_wash": "next"},
            {"purro_call": "optional", "purro_marker": "player_choice", "max_turns": 80},
            {"returns": "individual", "empty_stock": "immediate_wash", "secret_kind_public": True},
            {"undeclared_quad_valid": False, "dead_waits_count": False, "bonus_mode": "additive"},
        ],
        "other_config": {"max_turns": 100},
        "bad_configs": {
            "first_dealer=4": {"first_dealer": 4},
            "max_turns=0": {"max_turns": 0},
            "hands_per_match=0": {"hands_per_match": 0},
            "extra_draw=51": {"extra_draw": 51},
            "secret_payment=-1": {"secret_payment": -1},
            "purro_call=word": {"purro_call": "sometimes"},
            "returns=word": {"returns": "both"},
            "claim_priority=word": {"claim_priority": "partner_first"},
            "dealer_natural_win=1": {"dealer_natural_win": 1},
            "max_turns=True": {"max_turns": True},
            "max_turns='300'": {"max_turns": "300"},
            "unknown": {"players": 4},
        },
        "pack": CUAJO_PACK,
        "bad_card": "2O",
        "bad_cards": ["ZZ", "2O", "QO", "6C", "AX", "K", "", "ÄO"],
        "bad_action_strings": [
            "discard",
            "discard 2O",
            "discard KO KO",
            "secret",
            "sowee secret AO",
            "marker 3O",
            "marker",
            "draw 3O",
            "take KO",
            "win now",
            "purro KO",
            "drawx",
            "♠♥",
        ],
        "aliases": {
            "DRAW": "draw",
            "Discard 3o": "discard 3O",
            "discard 10c": "discard JC",
            "SECRET 1O": "secret AO",
            "marker 12b": "marker KB",
            "No-Purro": "no-purro",
            "sowee-secret  11e": "sowee-secret HE",
        },
        "deal": cuajo_deal,
        "multi_deal_config": {"hands_per_match": 3},
        "next_dealer": lambda view, dealer: (
            dealer if view["result"]["winner"] is None else view["result"]["winner"]
        ),
        "deal_key": "hand",
        # discards, draws, takes, wins, claims, purro decisions; secrets and passes are private
        "public_action": lambda a: a < 28 or 84 <= a <= 87 or a >= 89,
        "view_keys": [
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
        ],
    },
}


def data(name):
    assert name in GAMES, f"add per-game test data for {name!r} to GAMES in {__file__}"
    return GAMES[name]


def effective_config(name, config):
    d = data(name)
    return d["effective"]({**d["defaults"], **config})


def hands_of(state):
    """Every seat's hand in the full view (Cuajo calls them ``concealed``)."""
    view = state.view()
    return view["concealed"] if view["game"] == "cuajo" else view["hands"]


def evaluators(impl, name):
    return importlib.import_module(f"{impl.__name__}.{name}")


# --------------------------------------------------------------------------------------------
# helpers


def assert_raises(cls, fn, *args, state=None, **kwargs):
    """``fn(*args, **kwargs)`` raises exactly ``cls`` and leaves ``state`` as it was."""
    before = state.clone() if state is not None else None
    text = state.serialize() if state is not None else None
    with pytest.raises(BaseException) as info:
        fn(*args, **kwargs)
    assert type(info.value) is cls, (
        f"expected {cls.__name__}, got {type(info.value).__name__}: {info.value}"
    )
    assert str(info.value), "an error message says what was wrong"
    if state is not None:
        assert state == before
        assert state.serialize() == text
    return info.value


def random_play(state, rng, steps=None):
    """Apply uniformly random legal actions (``steps`` of them, or to the end)."""
    done = 0
    while not state.is_terminal() and (steps is None or done < steps):
        state.apply_action(rng.choice(state.legal_actions()))
        done += 1
    return state


def sample_states(game, seed=1):
    """A few states of one game: initial, early, mid-game and terminal (independent)."""
    rng = random.Random(seed)
    state = game.new_initial_state(seed)
    states = [state.clone()]
    for steps in (1, 6, 11):
        random_play(state, rng, steps)
        states.append(state.clone())
    random_play(state, rng)
    states.append(state)
    return states


def live_states(game, seed=1):
    return [s for s in sample_states(game, seed) if not s.is_terminal()]


def terminal_state(game, seed=3):
    return random_play(game.new_initial_state(seed), random.Random(seed))


def all_configs(name):
    return [{}] + data(name)["configs"]


# --------------------------------------------------------------------------------------------
# module level


def test_list_games(impl):
    games = impl.list_games()
    assert isinstance(games, list)
    assert all(isinstance(g, str) for g in games)
    assert len(set(games)) == len(games)
    assert "spoil_five" in games
    assert set(games) <= REGISTRY_NAMES
    for name in games:
        data(name)


def test_terminal_constant(impl):
    assert impl.TERMINAL == -4
    assert tapete.TERMINAL == -4


def test_errors_hierarchy():
    assert tapete.ConfigError is tapete.errors.ConfigError
    assert tapete.IllegalActionError is tapete.errors.IllegalActionError
    assert tapete.ParseError is tapete.errors.ParseError
    assert tapete.TapeteError is tapete.errors.TapeteError
    for cls in (ConfigError, IllegalActionError, ParseError):
        assert issubclass(cls, TapeteError)
        assert issubclass(cls, ValueError)
    assert issubclass(TapeteError, Exception)


@pytest.mark.parametrize("name", ["no_such_game", "", "spoil five", "spoil_fivex", 42, None])
def test_unknown_game(impl, name):
    assert_raises(ConfigError, impl.load_game, name)


def test_unknown_config_key(impl):
    for name in impl.list_games():
        assert_raises(ConfigError, impl.load_game, name, no_such_key=1)
        assert_raises(ConfigError, impl.load_game, name, **{"Players": 4})
        defaults = data(name)["defaults"]
        assert_raises(ConfigError, impl.load_game, name, **defaults, colour="red")


def test_bad_config_values(impl):
    for name in impl.list_games():
        for label, config in data(name)["bad_configs"].items():
            try:
                assert_raises(ConfigError, impl.load_game, name, **config)
            except AssertionError as err:
                raise AssertionError(f"{name} {label}: {err}") from None


# --------------------------------------------------------------------------------------------
# Game


def test_game_properties(impl):
    for name in impl.list_games():
        d = data(name)
        for config in all_configs(name):
            game = impl.load_game(name, **config)
            effective = effective_config(name, config)
            assert game.name == name
            assert game.num_players() == d["num_players"](effective)
            assert game.num_distinct_actions() == d["num_distinct_actions"]
            shape = game.observation_tensor_shape()
            assert isinstance(shape, tuple) and shape == d["tensor_shape"](effective)
            assert game.max_game_length() == d["max_game_length"](effective)


def test_config_lists_every_key_with_effective_values(impl):
    for name in impl.list_games():
        d = data(name)
        for config in all_configs(name):
            game = impl.load_game(name, **config)
            assert game.config() == effective_config(name, config)
            assert set(game.config()) == set(d["defaults"])
        if name == "spoil_five":
            assert impl.load_game(name).config()["num_deals"] == 4
            assert impl.load_game(name, players=7).config()["num_deals"] == 7
            assert impl.load_game(name, players=7, num_deals=None).config()["num_deals"] == 7


def test_config_reloads_the_same_game(impl):
    for name in impl.list_games():
        for config in all_configs(name):
            game = impl.load_game(name, **config)
            again = impl.load_game(name, **game.config())
            assert again == game
            assert again.config() == game.config()
        other = impl.load_game(name, **data(name)["other_config"])
        assert other != impl.load_game(name)


def test_config_is_a_copy(impl):
    for name in impl.list_games():
        game = impl.load_game(name)
        config = game.config()
        config[next(iter(config))] = "changed"
        config["no_such_key"] = 1
        assert game.config() == effective_config(name, {})


def test_game_pickle_and_repr(impl):
    for name in impl.list_games():
        for config in all_configs(name):
            game = impl.load_game(name, **config)
            for protocol in (2, 5):
                again = pickle.loads(pickle.dumps(game, protocol=protocol))
                assert again == game
                assert again.config() == game.config()
                assert again.name == game.name
            assert eval(repr(game), {"load_game": impl.load_game}) == game  # the call itself
            other = tapete.reference if impl is tapete else tapete
            assert repr(game) == repr(other.load_game(name, **config))  # as the other writes it
            assert isinstance(str(game), str) and str(game)


# --------------------------------------------------------------------------------------------
# seeds and decks


@pytest.mark.parametrize("seed", [-1, 2**64, 2**70, "x", "1", 1.5, 1.0, [1]])
def test_bad_seed(impl, seed):
    for name in impl.list_games():
        game = impl.load_game(name)
        config = game.config()
        assert_raises(ConfigError, game.new_initial_state, seed)
        assert_raises(ConfigError, game.new_initial_state, seed=seed)
        assert game.config() == config
        assert game == impl.load_game(name)


def test_extreme_seeds_are_fine(impl):
    for name in impl.list_games():
        game = impl.load_game(name)
        for seed in (0, 2**63, MASK64):
            state = game.new_initial_state(seed)
            assert state.legal_actions()
            random_play(state, random.Random(seed), 20)


def test_bad_decks(impl):
    for name in impl.list_games():
        d = data(name)
        game = impl.load_game(name)
        pack = list(d["pack"])
        deck = list(pack)
        random.Random(5).shuffle(deck)
        bad = {
            "duplicate": deck[:-1] + [deck[0]],
            "short": deck[:-1],
            "long": deck + [deck[0]],
            "bad card": deck[:-1] + [d["bad_card"]],
            "empty": [],
            "one string": deck[0],
            "joined": " ".join(deck),
            "a set": set(deck),  # no order to deal in
            "a dict": dict.fromkeys(deck),
            "a dict's keys": dict.fromkeys(deck).keys(),
            "a control character": deck[:-1] + [deck[-1] + "\x1f"],  # not ASCII whitespace
        }
        for label, wrong in bad.items():
            try:
                assert_raises(ConfigError, game.new_initial_state, 1, deck=wrong)
                assert_raises(ConfigError, game.new_initial_state, 1, decks=[wrong])
                assert_raises(ConfigError, game.new_initial_state, 1, decks=[deck, wrong])
            except AssertionError as err:
                raise AssertionError(f"{name} deck {label}: {err}") from None
        assert_raises(ConfigError, game.new_initial_state, 1, deck=deck, decks=[deck])
        assert_raises(ConfigError, game.new_initial_state, 1, decks=" ".join(deck))
        # a good deck, lower case, spaced or in any iterable, is accepted
        want = game.new_initial_state(1, deck=deck)
        assert game.new_initial_state(1, deck=[f" {c.lower()} " for c in deck]) == want
        assert game.new_initial_state(1, deck=iter(deck)) == want
        assert game.new_initial_state(1, deck=np.array(deck)) == want
        assert game.new_initial_state(1, decks=(tuple(deck),)) == want


def test_deck_fixes_the_first_deal_and_decks_the_second(impl):
    for name in impl.list_games():
        d = data(name)
        game = impl.load_game(name, **d.get("multi_deal_config", {}))  # several deals
        config = game.config()
        d0, d1 = list(d["pack"]), list(d["pack"])
        random.Random(10).shuffle(d0)
        random.Random(11).shuffle(d1)
        for seed in (3, 4):
            state = game.new_initial_state(seed, deck=d0)
            view = state.view()
            expected = d["deal"](d0, view["dealer"], config)
            assert {k: view[k] for k in expected} == expected

            state = game.new_initial_state(seed, decks=[d0, d1])
            plain = game.new_initial_state(seed)
            view = state.view()
            dealer0 = view["dealer"]
            assert plain.view()["dealer"] == dealer0
            assert {k: view[k] for k in expected} == expected
            rng = random.Random(seed)
            while state.view()[d["deal_key"]] == 0:
                state.apply_action(rng.choice(state.legal_actions()))
            view = state.view()
            assert view[d["deal_key"]] == 1
            next_dealer = d.get("next_dealer", lambda _view, dealer: (dealer + 1) % 4)
            if "next_dealer" not in d:
                assert view["dealer"] == (dealer0 + 1) % game.num_players()
            else:
                assert view["dealer"] == next_dealer(view, dealer0)
            expected1 = d["deal"](d1, view["dealer"], config)
            assert {k: view[k] for k in expected1} == expected1

            # a given first deck does not change the second deal's shuffle
            with_deck = game.new_initial_state(seed, deck=d0)
            for s in (with_deck, plain):
                while s.view()[d["deal_key"]] == 0:
                    s.apply_action(rng.choice(s.legal_actions()))
            second = [{k: s.view()[k] for k in expected1} for s in (with_deck, plain)]
            assert second[0] == second[1]


def test_same_seed_same_game_different_seed_different_deal(impl):
    for name in impl.list_games():
        for config in all_configs(name):
            game = impl.load_game(name, **config)
            a = game.new_initial_state(42)
            b = game.new_initial_state(42)
            assert a == b and a.serialize() == b.serialize()
            ra, rb = random.Random(9), random.Random(9)
            while not a.is_terminal():
                assert a.legal_actions() == b.legal_actions()
                a.apply_action(ra.choice(a.legal_actions()))
                b.apply_action(rb.choice(b.legal_actions()))
                assert a.view() == b.view()
            assert b.is_terminal()
            assert a.serialize() == b.serialize()
            assert a == b
            assert a.returns() == b.returns()
            deals = {json.dumps(hands_of(game.new_initial_state(s))) for s in range(6)}
            assert len(deals) == 6
            assert game.new_initial_state(1) != game.new_initial_state(2)


def test_seed_none(impl):
    for name in impl.list_games():
        game = impl.load_game(name)
        states = [game.new_initial_state(), game.new_initial_state(None)]
        states.append(game.new_initial_state(seed=None))
        for state in states:
            assert state.legal_actions()
            random_play(state, random.Random(0))
            assert state.is_terminal()
            again = game.deserialize_state(state.serialize())
            assert again == state
        hands = {json.dumps(hands_of(game.new_initial_state())) for _ in range(4)}
        assert len(hands) > 1


# --------------------------------------------------------------------------------------------
# actions


def test_illegal_action_ids(impl):
    for name in impl.list_games():
        game = impl.load_game(name)
        nd = game.num_distinct_actions()
        for state in live_states(game):
            legal = state.legal_actions()
            for action in (-1, -(2**63) - 1, -(2**70), nd, nd + 1, 10**9, 2**64, True, False):
                assert_raises(IllegalActionError, state.apply_action, action, state=state)
            illegal = [a for a in range(nd) if a not in legal]
            assert illegal
            for action in illegal:
                assert_raises(IllegalActionError, state.apply_action, action, state=state)


def test_action_legal_elsewhere_is_illegal_here(impl):
    for name in impl.list_games():
        game = impl.load_game(name)
        found = 0
        for state in live_states(game, seed=2):
            legal = set(state.legal_actions())
            for seed in range(20):
                other = game.new_initial_state(seed)
                random_play(other, random.Random(seed), seed % 7)
                elsewhere = [a for a in other.legal_actions() if a not in legal]
                for action in elsewhere:
                    other.clone().apply_action(action)  # legal there
                    assert_raises(IllegalActionError, state.apply_action, action, state=state)
                    found += 1
        assert found


def test_any_action_on_a_terminal_state(impl):
    for name in impl.list_games():
        for config in all_configs(name):
            game = impl.load_game(name, **config)
            state = terminal_state(game)
            assert state.is_terminal()
            assert state.current_player() == impl.TERMINAL
            assert state.legal_actions() == []
            mask = state.legal_actions_mask()
            assert mask.dtype == np.bool_ and not mask.any()
            for action in [*range(game.num_distinct_actions()), -1, 10**9]:
                assert_raises(IllegalActionError, state.apply_action, action, state=state)


def test_bad_action_strings(impl):
    generic = ["", " ", "   ", "\n", "日本語", "ação", "\x00", "play\x00AH", "🂡", "é" * 10]
    for name in impl.list_games():
        d = data(name)
        game = impl.load_game(name)
        for state in sample_states(game):
            for text in generic + d["bad_action_strings"]:
                try:
                    assert_raises(ParseError, state.string_to_action, text, state=state)
                except AssertionError as err:
                    raise AssertionError(f"{name} {text!r}: {err}") from None
            for card in d["bad_cards"]:
                assert_raises(ParseError, state.string_to_action, f"play {card}", state=state)
        # a message quotes the text as typed
        verb = {"cau_robat": "play", "cuajo": "discard"}.get(name, "play")
        with pytest.raises(ParseError, match="TO"):
            game.new_initial_state(1).string_to_action(f"{verb} TO")


def test_action_strings_round_trip(impl):
    for name in impl.list_games():
        d = data(name)
        for config in all_configs(name):
            game = impl.load_game(name, **config)
            state = game.new_initial_state(7)
            rng = random.Random(7)
            while not state.is_terminal():
                for action in state.legal_actions():
                    text = state.action_to_string(action)
                    assert isinstance(text, str) and text == text.strip()
                    assert "  " not in text
                    for variant in (text, text.upper(), text.lower(), text.swapcase()):
                        assert state.string_to_action(variant) == action, variant
                state.apply_action(rng.choice(state.legal_actions()))
        state = impl.load_game(name).new_initial_state(1)
        for alias, canonical in d["aliases"].items():
            action = state.string_to_action(alias)
            assert action == state.string_to_action(canonical)
            assert state.action_to_string(action) == canonical


def test_action_to_string_out_of_range(impl):
    for name in impl.list_games():
        game = impl.load_game(name)
        state = game.new_initial_state(1)
        for action in (-1, game.num_distinct_actions(), 10**9, 2**64):
            assert_raises(IllegalActionError, state.action_to_string, action, state=state)


# --------------------------------------------------------------------------------------------
# State


def test_legal_actions_and_mask(impl):
    for name in impl.list_games():
        for config in all_configs(name):
            game = impl.load_game(name, **config)
            nd = game.num_distinct_actions()
            state = game.new_initial_state(11)
            rng = random.Random(11)
            while True:
                legal = state.legal_actions()
                assert isinstance(legal, list) and all(type(a) is int for a in legal)
                assert legal == sorted(set(legal))
                assert all(0 <= a < nd for a in legal)
                mask = state.legal_actions_mask()
                assert isinstance(mask, np.ndarray)
                assert mask.dtype == np.bool_ and mask.shape == (nd,)
                assert np.flatnonzero(mask).tolist() == legal
                if state.is_terminal():
                    assert legal == [] and state.current_player() == impl.TERMINAL
                    break
                assert legal
                assert 0 <= state.current_player() < game.num_players()
                state.apply_action(rng.choice(legal))
            assert len(state.history()) <= game.max_game_length()


def test_observation_tensor(impl):
    for name in impl.list_games():
        for config in all_configs(name):
            game = impl.load_game(name, **config)
            shape = game.observation_tensor_shape()
            for state in sample_states(game, seed=4):
                for seat in range(game.num_players()):
                    tensor = state.observation_tensor(seat)
                    assert isinstance(tensor, np.ndarray)
                    assert tensor.dtype == np.float32 and tensor.shape == shape
                    assert np.isfinite(tensor).all()
                    assert isinstance(state.observation_string(seat), str)
                    assert isinstance(state.information_state_string(seat), str)


def test_returns_rewards_history(impl):
    for name in impl.list_games():
        for config in all_configs(name):
            game = impl.load_game(name, **config)
            n = game.num_players()
            for seed in (1, 2):
                state = game.new_initial_state(seed)
                assert state.history() == []
                assert state.rewards() == [0.0] * n
                rng = random.Random(seed)
                applied = []
                while not state.is_terminal():
                    # rewards count from zero: what the deal took counts towards the first action
                    before = state.returns() if applied else [0.0] * n
                    assert len(state.returns()) == n
                    action = rng.choice(state.legal_actions())
                    state.apply_action(action)
                    applied.append(action)
                    assert state.history() == applied
                    after, rewards = state.returns(), state.rewards()
                    assert len(after) == n and len(rewards) == n
                    assert rewards == pytest.approx([a - b for a, b in zip(after, before)])
                if config == {}:
                    assert sum(state.returns()) == pytest.approx(0.0, abs=1e-9)


@pytest.mark.parametrize("how", ["clone", "copy"])
def test_clone_is_independent(impl, how):
    for name in impl.list_games():
        game = impl.load_game(name)
        for state in live_states(game, seed=5):
            text, history, view = state.serialize(), state.history(), state.view()
            clone = state.clone() if how == "clone" else copy.copy(state)
            assert clone == state
            clone.apply_action(clone.legal_actions()[-1])
            assert clone != state
            assert state.serialize() == text
            assert state.history() == history
            assert state.view() == view
            # and the other way round
            clone = state.clone() if how == "clone" else copy.copy(state)
            clone_text = clone.serialize()
            state.apply_action(state.legal_actions()[0])
            assert clone.serialize() == clone_text
            assert clone != state


def test_equality(impl):
    for name in impl.list_games():
        game = impl.load_game(name)
        a, b = game.new_initial_state(8), game.new_initial_state(8)
        assert a == b and not (a != b)
        assert a != game.new_initial_state(9)
        legal = a.legal_actions()
        a.apply_action(legal[0])
        assert a != b
        b.apply_action(legal[0])
        assert a == b
        if len(legal) > 1:
            c = game.new_initial_state(8)
            c.apply_action(legal[1])
            assert c != a
        other = impl.load_game(name, **data(name)["other_config"]).new_initial_state(8)
        assert a != other
        assert a != "state" and a != None and a != game  # noqa: E711


def test_state_pickle(impl):
    for name in impl.list_games():
        for config in all_configs(name):
            game = impl.load_game(name, **config)
            for state in sample_states(game, seed=6):
                for protocol in (2, 5):
                    again = pickle.loads(pickle.dumps(state, protocol=protocol))
                    assert again == state
                    assert again.serialize() == state.serialize()
                    assert again.view() == state.view()
                    if not state.is_terminal():
                        action = state.legal_actions()[0]
                        copy_ = state.clone()
                        copy_.apply_action(action)
                        again.apply_action(action)
                        assert again == copy_


def test_serialize_round_trip(impl):
    for name in impl.list_games():
        for config in all_configs(name):
            game = impl.load_game(name, **config)
            for state in sample_states(game, seed=7):
                text = state.serialize()
                assert isinstance(text, str)
                json.loads(text)
                again = game.deserialize_state(text)
                assert again == state
                assert again.serialize() == text
                assert again.view() == state.view()
                assert again.returns() == state.returns()
                assert again.history() == state.history()
                if not state.is_terminal():
                    rng_a, rng_b = random.Random(1), random.Random(1)
                    a, b = state.clone(), again
                    random_play(a, rng_a)
                    random_play(b, rng_b)
                    assert a == b and a.returns() == b.returns()


def test_serialize_with_pending_decks(impl):
    for name in impl.list_games():
        d = data(name)
        game = impl.load_game(name)
        d0, d1 = list(d["pack"]), list(d["pack"])
        random.Random(1).shuffle(d0)
        random.Random(2).shuffle(d1)
        state = game.new_initial_state(5, decks=[d0, d1])
        again = game.deserialize_state(state.serialize())
        assert again == state
        rng_a, rng_b = random.Random(3), random.Random(3)
        random_play(state, rng_a)
        random_play(again, rng_b)
        assert again == state


def test_corrupt_serialized_states(impl):
    for name in impl.list_games():
        game = impl.load_game(name)
        state = sample_states(game, seed=8)[3]
        assert len(state.history()) >= 2
        text = state.serialize()
        obj = json.loads(text)
        assert isinstance(obj.get("history"), list)
        bad = {
            "truncated": text[: len(text) // 2],
            "truncated by one": text[:-1],
            "empty": "",
            "not json": "{not json",
            "json list": "[]",
            "json null": "null",
            "json number": "42",
            "other game config": impl.load_game(name, **data(name)["other_config"])
            .new_initial_state(8)
            .serialize(),
        }
        tampered = copy.deepcopy(obj)
        tampered["game"] = "no_such_game"
        bad["game name"] = json.dumps(tampered)
        tampered = copy.deepcopy(obj)
        tampered["game"] = None
        bad["game name null"] = json.dumps(tampered)
        for key in obj:
            tampered = copy.deepcopy(obj)
            del tampered[key]
            bad[f"no {key}"] = json.dumps(tampered)
        # one action id of the history changed to one that is illegal there
        for index in (0, len(obj["history"]) // 2, len(obj["history"]) - 1):
            replay = game.new_initial_state(8)
            for action in obj["history"][:index]:
                replay.apply_action(action)
            legal = replay.legal_actions()
            for wrong in (
                next(a for a in range(game.num_distinct_actions()) if a not in legal),
                game.num_distinct_actions(),
                -1,
                10**30,
            ):
                tampered = copy.deepcopy(obj)
                tampered["history"][index] = wrong
                bad[f"history[{index}]={wrong}"] = json.dumps(tampered)
        tampered = copy.deepcopy(obj)
        tampered["history"] = "0 1 2"
        bad["history string"] = json.dumps(tampered)
        bad["a field more"] = text[:-1] + ', "note": 1}'
        bad["a field twice"] = text[:-1] + f', "seed": {obj["seed"]}}}'
        option, value = next(iter(obj["config"].items()))
        again = json.dumps({option: value})[1:-1]
        bad["an option twice"] = text.replace('"config":{', f'"config":{{{again},', 1)
        bad["nested too deeply"] = "[" * 100_000 + "]" * 100_000
        for label, wrong in bad.items():
            try:
                assert_raises(ParseError, game.deserialize_state, wrong, state=state)
            except AssertionError as err:
                raise AssertionError(f"{name} {label}: {err}") from None
        for wrong in (None, 42, text.encode()):
            assert_raises(ParseError, game.deserialize_state, wrong, state=state)


def test_deserialize_history_past_the_end(impl):
    for name in impl.list_games():
        game = impl.load_game(name)
        state = terminal_state(game)
        obj = json.loads(state.serialize())
        obj["history"].append(0)
        assert_raises(ParseError, game.deserialize_state, json.dumps(obj), state=state)


@pytest.mark.parametrize(
    "method",
    [
        "observation_tensor",
        "observation_string",
        "information_state_string",
        "view",
        "resample_from_infostate",
    ],
)
def test_seat_out_of_range(impl, method):
    for name in impl.list_games():
        game = impl.load_game(name)
        n = game.num_players()
        for state in sample_states(game, seed=9):
            for seat in (-1, n, 99):
                args = (seat, 1) if method == "resample_from_infostate" else (seat,)
                assert_raises(ValueError, getattr(state, method), *args, state=state)


@pytest.mark.parametrize(
    "method",
    [
        "observation_tensor",
        "observation_string",
        "information_state_string",
        "view",
        "resample_from_infostate",
    ],
)
def test_huge_seat_out_of_range(impl, method):
    """A seat that does not fit in a machine word is still just a seat out of range."""
    for name in impl.list_games():
        state = impl.load_game(name).new_initial_state(1)
        for seat in (2**64, -(2**64)):
            args = (seat, 1) if method == "resample_from_infostate" else (seat,)
            assert_raises(ValueError, getattr(state, method), *args, state=state)


def test_a_seat_that_is_no_int_says_so(impl):
    state = impl.load_game("cicera").new_initial_state(1)
    for seat in (True, "0", 1.5, None):
        with pytest.raises(ValueError, match=r"is not an int|must be an integer"):
            state.observation_string(seat)
    with pytest.raises(ValueError, match=r"out of range|must be an integer in 0\.\.3, got 4"):
        state.observation_string(4)


def test_resample_bad_seed(impl):
    for name in impl.list_games():
        state = impl.load_game(name).new_initial_state(1)
        for seed in (-1, 2**64, "x", 1.5):
            assert_raises(ConfigError, state.resample_from_infostate, 0, seed, state=state)


def test_view_layout(impl):
    for name in impl.list_games():
        d = data(name)
        for config in all_configs(name):
            game = impl.load_game(name, **config)
            n = game.num_players()
            for state in sample_states(game, seed=12):
                for seat in [None, *range(n)]:
                    view = state.view(seat) if seat is not None else state.view()
                    assert sorted(view) == sorted(d["view_keys"])
                    assert json.loads(json.dumps(view)) == view
                    assert view["game"] == name
                    assert view["viewer"] == seat
                assert state.view(None) == state.view()


def test_view_key_order(impl):
    """The rules page lists the keys of ``view()`` "in this order"."""
    for name in impl.list_games():
        state = impl.load_game(name).new_initial_state(1)
        assert list(state.view()) == data(name)["view_keys"]
        assert list(state.view(0)) == data(name)["view_keys"]


def test_repr_and_str(impl):
    for name in impl.list_games():
        game = impl.load_game(name)
        for state in sample_states(game, seed=13):
            for text in (repr(state), str(state)):
                assert isinstance(text, str) and text.strip()
            for seat in range(game.num_players()):
                assert state.observation_string(seat).strip()
                assert state.information_state_string(seat).strip()


def test_an_information_state_asked_again_follows_the_state(impl):
    """Asked twice, the same text; after an action, or illegal action refused, the state's own."""
    for name in impl.list_games():
        game = impl.load_game(name)
        state = game.new_initial_state(5)
        rng = random.Random(5)
        for _ in range(40):
            if state.is_terminal():
                break
            before = [state.information_state_string(s) for s in range(game.num_players())]
            assert before == [state.information_state_string(s) for s in range(game.num_players())]
            illegal = next(
                a for a in range(game.num_distinct_actions()) if a not in state.legal_actions()
            )
            with pytest.raises(IllegalActionError):
                state.apply_action(illegal)
            assert before == [state.information_state_string(s) for s in range(game.num_players())]
            state.apply_action(rng.choice(state.legal_actions()))
            fresh = game.deserialize_state(state.serialize())
            after = [state.information_state_string(s) for s in range(game.num_players())]
            assert after == [fresh.information_state_string(s) for s in range(game.num_players())]
            assert after != before  # the actor at least saw its own action


def test_resample_keeps_what_the_player_knows(impl):
    for name in impl.list_games():
        game = impl.load_game(name)
        for state in sample_states(game, seed=14):
            for seat in range(game.num_players()):
                sample = state.resample_from_infostate(seat, 3)
                public = data(name)["public_action"]
                assert [a for a in sample.history() if public(a)] == [
                    a for a in state.history() if public(a)
                ]
                assert sample.view(seat) == state.view(seat)
                assert sample.information_state_string(seat) == (
                    state.information_state_string(seat)
                )
                assert np.array_equal(
                    sample.observation_tensor(seat), state.observation_tensor(seat)
                )


# --------------------------------------------------------------------------------------------
# evaluators

SPOIL_FIVE_BAD_SUITS = ["X", "", "CD", "♠", "1", " ", "Z"]
SPOIL_FIVE_BAD_CARDS = ["ZZ", "1S", "11S", "AX", "", "10", "A♠", "ÄH"]


def test_spoil_five_evaluators_positive(impl):
    ev = evaluators(impl, "spoil_five")
    assert ev.trump_order("S") == [
        "5S",
        "JS",
        "AH",
        "AS",
        "KS",
        "QS",
        "2S",
        "3S",
        "4S",
        "6S",
        "7S",
        "8S",
        "9S",
        "10S",
    ]
    assert ev.trump_order("h")[:3] == ["5H", "JH", "AH"] and len(ev.trump_order("H")) == 13
    assert ev.trick_winner("S", ["KH", "AH"]) == 1
    assert ev.trick_winner("D", ["AD", "KD", "2C"]) == 0
    assert ev.legal_plays("S", ["2C", "KH", "5S"], []) == ["2C", "KH", "5S"]


def test_spoil_five_evaluators_reject_bad_input(impl):
    ev = evaluators(impl, "spoil_five")
    for suit in SPOIL_FIVE_BAD_SUITS:
        assert_raises(ParseError, ev.trump_order, suit)
        assert_raises(ParseError, ev.trick_winner, suit, ["AS", "KS"])
        assert_raises(ParseError, ev.legal_plays, suit, ["AS"], ["KS"])
    for card in SPOIL_FIVE_BAD_CARDS:
        assert_raises(ParseError, ev.trick_winner, "S", ["AS", card])
        assert_raises(ParseError, ev.trick_winner, "S", [card])
        assert_raises(ParseError, ev.legal_plays, "S", ["AS", card], [])
        assert_raises(ParseError, ev.legal_plays, "S", ["AS"], [card])
    value_errors = [
        (ev.trick_winner, ("S", ["AS", "AS"])),
        (ev.trick_winner, ("S", ["AS", "KH", "as"])),
        (ev.trick_winner, ("S", [])),
        (ev.trick_winner, ("S", SPOIL_FIVE_PACK[:11])),
        (ev.legal_plays, ("S", ["AS", "AS"], [])),
        (ev.legal_plays, ("S", ["AS"], ["KS", "KS"])),
        (ev.legal_plays, ("S", ["AS"], ["AS"])),
        (ev.legal_plays, ("S", [], [])),
        (ev.legal_plays, ("S", SPOIL_FIVE_PACK[:6], [])),
    ]
    for fn, args in value_errors:
        with pytest.raises(ValueError):
            fn(*args)


# --------------------------------------------------------------------------------------------
# engine only: Game.play_random


def bot_playout(game, seed):
    """The documented bot: state from ``seed``, choices from SplitMix64(~seed mod 2**64)."""
    state = game.new_initial_state(seed)
    bot = SplitMix64((~seed) % 2**64)
    while not state.is_terminal():
        legal = state.legal_actions()
        state.apply_action(legal[bot.below(len(legal))])
    return state


def test_play_random_engine():
    for name in tapete.list_games():
        for config in all_configs(name):
            game = tapete.load_game(name, **config)
            n = game.num_players()
            games, seed = 24, 1000
            returns, lengths = game.play_random(games, seed, 1)
            assert isinstance(returns, np.ndarray) and returns.shape == (games, n)
            assert isinstance(lengths, np.ndarray) and lengths.shape == (games,)
            assert np.issubdtype(lengths.dtype, np.integer)
            assert (lengths > 0).all() and (lengths <= game.max_game_length()).all()
            if config == {}:
                np.testing.assert_allclose(returns.sum(axis=1), 0.0, atol=1e-9)
            again_returns, again_lengths = game.play_random(games, seed, 3)
            assert np.array_equal(returns, again_returns)
            assert np.array_equal(lengths, again_lengths)
            for i in range(games):
                state = bot_playout(game, seed + i)
                assert state.returns() == returns[i].tolist(), (name, config, i)
                assert len(state.history()) == lengths[i]


def test_play_random_engine_edge_cases():
    for name in tapete.list_games():
        game = tapete.load_game(name)
        n = game.num_players()
        returns, lengths = game.play_random(0, 5, 2)
        assert returns.shape == (0, n) and lengths.shape == (0,)
        one_returns, one_lengths = game.play_random(1, 7)
        many_returns, many_lengths = game.play_random(5, 7, 16)
        assert np.array_equal(one_returns[0], many_returns[0])
        assert one_lengths[0] == many_lengths[0]
        shifted_returns, shifted_lengths = game.play_random(4, 8, 2)
        assert np.array_equal(shifted_returns, many_returns[1:])
        assert np.array_equal(shifted_lengths, many_lengths[1:])


def test_action_strings_are_read_in_any_case_and_spacing(impl):
    """docs/engine.md, "Packs and decks": the canonical string is written, and read back also
    in another case and with other whitespace; tokens run together name nothing."""
    for name in impl.list_games():
        state = impl.load_game(name).new_initial_state(2)
        for a in state.legal_actions():
            text = state.action_to_string(a)
            assert text == " ".join(text.split())  # one space between tokens
            for variant in (f" {text.upper()}\t", text.lower().replace(" ", "  ")):
                assert state.string_to_action(variant) == a, variant
            if " " in text:
                with pytest.raises(ParseError):
                    state.string_to_action(text.replace(" ", ""))
