"""tapete.openspiel: the games as pyspiel Python games (docs/openspiel.md).

OpenSpiel's own checks (``random_sim_test``) and algorithms (the Python MCTS and IS-MCTS bots)
run on every game; an independent tapete state, fed the same actions, mirrors each adapter
state so that the two can be compared step by step.
"""

import os
import pickle
import subprocess
import sys

import numpy as np
import pytest

import tapete

if os.environ.get("CI"):
    import pyspiel  # the test extra installs it: a missing package is a failure in CI
else:
    pyspiel = pytest.importorskip("pyspiel", reason="needs tapete[openspiel]")

from open_spiel.python.algorithms import ismcts, mcts  # noqa: E402

import tapete.openspiel as tos  # noqa: E402

GAMES = sorted(tapete.list_games())
NAMES = tos.register()

# Short configs where a whole game through the Python adapter (and OpenSpiel's per-step
# checks) would cost seconds: one Cicera hand, and Cuajo hands that wash out after 40 turns.
SHORT = {
    "spoil_five": {},
    "cicera": {"game_mode": "single_hand"},
    "cau_robat": {},
    "cuajo": {"max_turns": 40},
}


def load(name, **params):
    return pyspiel.load_game(tos.PREFIX + name, params)


def short(name):
    return load(name, **SHORT[name])


def chance_step(state, rng):
    outcomes, probs = zip(*state.chance_outcomes(), strict=True)
    state.apply_action(int(rng.choice(outcomes, p=probs)))


def check_mirror(state, mirror):
    """The adapter state says what the tapete state says."""
    assert state.is_terminal() == mirror.is_terminal()
    assert state.is_chance_node() == mirror.is_chance_node()
    assert state.history() == mirror.history()
    assert str(state) == str(mirror)
    if mirror.is_terminal():
        assert state.current_player() == pyspiel.PlayerId.TERMINAL
        assert state.returns() == mirror.returns()
        assert state.rewards() == mirror.returns()
    elif mirror.is_chance_node():
        assert state.current_player() == pyspiel.PlayerId.CHANCE == tapete._core.CHANCE
        assert state.chance_outcomes() == mirror.chance_outcomes()
        assert state.legal_actions() == mirror.legal_actions()
    else:
        assert state.current_player() == mirror.current_player()
        assert state.legal_actions() == mirror.legal_actions()
        assert state.returns() == [0.0] * mirror.num_players()
    for seat in range(mirror.num_players()):
        assert state.information_state_string(seat) == mirror.information_state_string(seat)
        assert state.observation_string(seat) == mirror.observation_string(seat)
        np.testing.assert_array_equal(
            state.observation_tensor(seat), mirror.observation_tensor(seat).ravel()
        )


# --------------------------------------------------------------------------------------------
# Import, registration, exit


def run_python(code):
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(sys.path))
    return subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, env=env, timeout=120
    )


def test_import_tapete_does_not_import_open_spiel():
    done = run_python("import sys, tapete; print('pyspiel' in sys.modules)")
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "False"


def test_missing_open_spiel_names_the_extra():
    done = run_python("import sys; sys.modules['pyspiel'] = None; import tapete.openspiel")
    assert done.returncode != 0
    assert "ImportError" in done.stderr and "tapete[openspiel]" in done.stderr


def test_register_then_exit_returns_zero():
    code = (
        "import pyspiel, tapete.openspiel as t\n"
        "names = t.register(); t.register()\n"
        "for n in names:\n"
        "    s = pyspiel.load_game(n).new_initial_state(); s.apply_action(s.legal_actions()[0])\n"
        "print(names)"
    )
    done = run_python(code)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == str([tos.PREFIX + name for name in tapete.list_games()])


def test_register_is_idempotent():
    assert NAMES == [tos.PREFIX + name for name in tapete.list_games()]
    assert tos.register() == NAMES
    assert set(NAMES) <= set(pyspiel.registered_names())


# --------------------------------------------------------------------------------------------
# Game type, game info, parameters


@pytest.mark.parametrize("name", GAMES)
def test_game_type_and_info(name):
    game = load(name)
    ours = tapete.load_game(name, explicit_chance=True)
    kind = game.get_type()
    assert kind.short_name == tos.PREFIX + name
    assert kind.dynamics == pyspiel.GameType.Dynamics.SEQUENTIAL
    assert kind.chance_mode == pyspiel.GameType.ChanceMode.EXPLICIT_STOCHASTIC
    assert kind.information == pyspiel.GameType.Information.IMPERFECT_INFORMATION
    assert kind.utility == pyspiel.GameType.Utility.ZERO_SUM
    assert kind.reward_model == pyspiel.GameType.RewardModel.TERMINAL
    assert kind.provides_information_state_string and kind.provides_observation_tensor
    assert not kind.provides_information_state_tensor
    # asked anyway: an error, as OpenSpiel's own games give, not an empty tensor to size a net by
    with pytest.raises(pyspiel.SpielError, match="no information state tensor"):
        game.information_state_tensor_size()
    assert set(kind.parameter_specification) == set(ours.config()) - {"explicit_chance"}
    assert game.num_players() == ours.num_players()
    assert game.num_distinct_actions() == ours.num_distinct_actions()
    assert game.max_chance_outcomes() == ours.max_chance_outcomes()
    assert game.min_utility() == ours.min_utility()
    assert game.max_utility() == ours.max_utility()
    assert game.utility_sum() == 0.0
    assert game.max_game_length() == tapete.load_game(name).max_game_length()
    assert game.observation_tensor_shape() == [int(np.prod(ours.observation_tensor_shape()))]
    assert game.tapete_game == ours


def test_chance_nodes_are_not_bounded_by_a_wrong_figure():
    # pyspiel's default would be max_game_length(), fewer than a Cau Robat hand's chance nodes
    with pytest.raises(NotImplementedError, match="chance nodes"):
        load("cau_robat").max_chance_nodes_in_history()


def test_player_counts():
    assert pyspiel.load_game("tapete_spoil_five").get_type().min_num_players == 2
    assert pyspiel.load_game("tapete_spoil_five").get_type().max_num_players == 10
    kind = pyspiel.load_game("tapete_cau_robat").get_type()
    assert (kind.min_num_players, kind.max_num_players) == (3, 5)
    kind = pyspiel.load_game("tapete_cicera").get_type()
    assert (kind.min_num_players, kind.max_num_players) == (4, 4)
    assert pyspiel.load_game("tapete_cau_robat(players=3)").num_players() == 3


def test_parameters_map_to_our_config():
    spec = pyspiel.load_game("tapete_spoil_five").get_type().parameter_specification
    assert spec["jinking"] is True and spec["players"] == 4 and spec["rob_policy"] == "enforced"
    assert spec["deal_batches"] == "[2 3]" and spec["partnerships"] == "none"
    # Options whose default is computed or a word besides numbers: UNSET leaves the default.
    assert spec["num_deals"] == spec["first_dealer"] == tos.UNSET
    text = "tapete_spoil_five(players=5,jinking=False,deal_batches=[3 2],num_deals=2)"
    game = pyspiel.load_game(text)
    expected = tapete.load_game(
        "spoil_five", explicit_chance=True, players=5, jinking=False, deal_batches=[3, 2],
        num_deals=2,
    )  # fmt: skip
    assert game.tapete_game == expected
    # num_deals left unset follows the player count, as in tapete.
    assert pyspiel.load_game("tapete_spoil_five(players=5)").tapete_game.config()["num_deals"] == 5
    params = {"partnerships": "[[0,2],[1,3]]", "first_dealer": 2}
    game = pyspiel.load_game("tapete_spoil_five", params)
    assert game.tapete_game.config()["partnerships"] == [[0, 2], [1, 3]]
    assert game.tapete_game.config()["first_dealer"] == 2
    # The game string holds lists without commas, so pyspiel can read it back.
    assert "partnerships=[[0 2] [1 3]]" in str(game)
    assert pyspiel.load_game(str(game)).tapete_game == game.tapete_game
    assert pickle.loads(pickle.dumps(game)).tapete_game == game.tapete_game


def test_not_zero_sum_config_is_general_sum():
    game = pyspiel.load_game("tapete_spoil_five(leftover_pool=unresolved)")
    assert game.get_type().utility == pyspiel.GameType.Utility.GENERAL_SUM
    # and its returns indeed do not always sum to zero
    returns, _ = tapete.load_game("spoil_five", leftover_pool="unresolved").play_random(50, seed=1)
    assert np.abs(returns.sum(axis=1)).max() > 0


@pytest.mark.parametrize(
    ("text", "error", "match"),
    [
        ("tapete_spoil_five(players=11)", tapete.ConfigError, "players"),
        ("tapete_spoil_five(deal_batches=[4 4])", tapete.ConfigError, "deal_batches"),
        ("tapete_spoil_five(rob_policy=sometimes)", tapete.ConfigError, "rob_policy"),
        ("tapete_cau_robat(first_dealer=7)", tapete.ConfigError, "first_dealer"),
        # nothing at stake: OpenSpiel wants min_utility < max_utility
        (
            "tapete_spoil_five(base_stake=0,dealer_stake=0)",
            tapete.ConfigError,
            r"nothing can be won or lost .*min_utility = max_utility = 0\.0\)",
        ),
        ("tapete_spoil_five(no_such_option=1)", pyspiel.SpielError, "Unknown parameter"),
        ("tapete_spoil_five(jinking=1)", pyspiel.SpielError, "Wrong type for parameter jinking"),
        ("tapete_cicera(players=5)", pyspiel.SpielError, "Unknown parameter"),
        # nested past Python's stack: read as a word, refused by the engine
        (
            "tapete_spoil_five(partnerships=" + "[" * 5000 + "]" * 5000 + ")",
            tapete.ConfigError,
            "partnerships",
        ),
    ],
)
def test_bad_parameters(text, error, match):
    with pytest.raises(error, match=match):
        pyspiel.load_game(text)


def test_direct_construction_refuses_unknown_parameters():
    cls = type(pyspiel.load_game("tapete_cau_robat"))
    with pytest.raises(tapete.ConfigError, match="unknown parameter"):
        cls({"no_such_option": 1})


# --------------------------------------------------------------------------------------------
# OpenSpiel's own checks


# The default configs, then variants. A default Cicera match (to 51) costs ~10 s here: its
# information state strings grow with the match and are asked for every seat at every step;
# a match to 11 (a few hands) tests the same.
SIMULATIONS = [
    ("tapete_spoil_five", 2),
    ("tapete_cicera(target_score=11)", 1),
    ("tapete_cau_robat", 3),
    ("tapete_cuajo", 1),
    ("tapete_spoil_five(players=6,deal_batches=[3 2],num_deals=2,first_dealer=3)", 2),
    ("tapete_spoil_five(partnerships=[[0 2] [1 3]],leftover_pool=unresolved)", 2),
    ("tapete_cicera(game_mode=single_hand,deal_style=packets)", 2),
    ("tapete_cau_robat(players=3,hands_to_win=2)", 2),
    ("tapete_cuajo(returns=individual,max_turns=30,hands_per_match=2)", 1),
]


@pytest.mark.parametrize(("text", "sims"), SIMULATIONS)
def test_random_sim_test(text, sims):
    game = pyspiel.load_game(text)

    def same_as_ours(state):
        # the adapter's information state is tapete's for every seat
        for seat in range(game.num_players()):
            ours = state.tapete_state.information_state_string(seat)
            assert state.information_state_string(seat) == ours

    pyspiel.random_sim_test(
        game, num_sims=sims, serialize=True, verbose=False, state_checker_fn=same_as_ours
    )


@pytest.mark.parametrize("name", GAMES)
def test_states_mirror_ours(name):
    """A random game through the adapter, and the same actions on a tapete state."""
    game = short(name)
    rng = np.random.default_rng(7)
    state = game.new_initial_state()
    mirror = game.tapete_game.new_initial_state()
    check_mirror(state, mirror)
    while not state.is_terminal():
        if state.is_chance_node():
            outcomes, probs = zip(*state.chance_outcomes(), strict=True)
            action = int(rng.choice(outcomes, p=probs))
        else:
            action = int(rng.choice(state.legal_actions()))
        assert state.action_to_string(action) == mirror.action_to_string(action)
        state.apply_action(action)
        mirror.apply_action(action)
        check_mirror(state, mirror)


def test_action_strings_are_ours():
    game = load("cau_robat")
    state = game.new_initial_state()
    rng = np.random.default_rng(1)
    while state.is_chance_node():
        outcome = state.chance_outcomes()[0][0]
        assert state.action_to_string(outcome) == state.tapete_state.action_to_string(outcome)
        assert state.action_to_string(outcome).startswith(("dealer ", "deal "))
        chance_step(state, rng)
    for action in state.legal_actions():
        assert state.action_to_string(action) == state.tapete_state.action_to_string(action)
        assert state.string_to_action(state.action_to_string(action)) == action


def test_illegal_action_leaves_the_state_unchanged():
    state = load("cau_robat").new_initial_state()
    rng = np.random.default_rng(2)
    while state.is_chance_node():
        chance_step(state, rng)
    before = (str(state), state.history())
    illegal = next(
        a for a in range(state.get_game().num_distinct_actions()) if a not in state.legal_actions()
    )
    with pytest.raises(tapete.IllegalActionError):
        state.apply_action(illegal)
    assert (str(state), state.history()) == before


def test_clone_serialize_and_copy_are_independent():
    game = short("spoil_five")
    state = game.new_initial_state()
    rng = np.random.default_rng(3)
    for _ in range(40):
        if state.is_chance_node():
            chance_step(state, rng)
        else:
            state.apply_action(state.legal_actions()[0])
    clone = state.clone()
    restored = game.deserialize_state(state.serialize())
    for other in (clone, restored):
        assert str(other) == str(state) and other.history() == state.history()
        assert other.tapete_state == state.tapete_state
    clone.apply_action(clone.legal_actions()[0])
    assert clone.history() != state.history() and restored.history() == state.history()
    again = pyspiel.deserialize_game_and_state(pyspiel.serialize_game_and_state(game, state))
    assert again[1].tapete_state == state.tapete_state
    unpickled = pickle.loads(pickle.dumps(state))
    assert unpickled.tapete_state == state.tapete_state
    assert unpickled.history() == state.history()


def test_a_state_of_another_game_or_config_is_refused():
    game = short("cau_robat")
    for other in (short("cicera"), pyspiel.load_game("tapete_cau_robat(players=5)")):
        state = other.new_initial_state()
        state.apply_action(state.legal_actions()[0])
        with pytest.raises(tapete.ParseError, match="not one of this game"):
            game.deserialize_state(state.serialize())
    state = game.new_initial_state()
    state.apply_action(state.legal_actions()[0])
    assert game.deserialize_state(state.serialize()).tapete_state == state.tapete_state


def test_a_serialized_history_apart_from_its_state_is_refused():
    # pyspiel's text keeps the history and the move number beside the pickled tapete state
    game = short("cau_robat")
    state = game.new_initial_state()
    rng = np.random.default_rng(0)
    while len(state.history()) < 45 and not state.is_terminal():
        if state.is_chance_node():
            chance_step(state, rng)
        else:
            state.apply_action(int(rng.choice(state.legal_actions())))
    n = len(state.history())
    text = state.serialize()
    head, rest = text.split("\n", 1)
    actions = head.removeprefix("history=").split(",")
    changed = ",".join([actions[0].rsplit(":", 1)[0] + ":999", *actions[1:]])
    for bad, match in [
        (f"history={changed}\n{rest}", "action 0 differs"),
        (f"history={','.join(actions[:5])}\n{rest}", r"\(5 actions\) is not that of its"),
        (text.replace(f"move_number={n}", "move_number=3"), f"move number 3 is not {n}"),
    ]:
        with pytest.raises(tapete.ParseError, match=match):
            game.deserialize_state(bad)
    assert game.deserialize_state(text).history() == state.history()


def test_observers():
    from open_spiel.python.observation import make_observation

    game = short("cicera")
    state = game.new_initial_state()
    rng = np.random.default_rng(4)
    while state.is_chance_node():
        chance_step(state, rng)
    observation = make_observation(game)
    observation.set_from(state, 1)
    np.testing.assert_array_equal(observation.tensor, state.tapete_state.observation_tensor(1))
    assert observation.string_from(state, 1) == state.tapete_state.observation_string(1)
    info = make_observation(game, pyspiel.IIGObservationType(perfect_recall=True))
    assert info.tensor is None
    assert info.string_from(state, 2) == state.tapete_state.information_state_string(2)
    with pytest.raises(ValueError, match="private_info"):
        game.make_py_observer(
            pyspiel.IIGObservationType(
                perfect_recall=False, private_info=pyspiel.PrivateInfoType.ALL_PLAYERS
            )
        )
    with pytest.raises(ValueError, match="parameters"):
        game.make_py_observer(None, {"x": 1})


# --------------------------------------------------------------------------------------------
# resample_from_infostate


def test_resample_from_infostate():
    game = load("spoil_five")
    state = game.new_initial_state()
    rng = np.random.default_rng(5)
    while state.is_chance_node() or len(state.history()) < 30:
        if state.is_chance_node():
            chance_step(state, rng)
        else:
            state.apply_action(state.legal_actions()[-1])
    seat = state.current_player()
    before = str(state)
    sampler = pyspiel.UniformProbabilitySampler(11, 0.0, 1.0)
    sampled = [state.resample_from_infostate(seat, sampler) for _ in range(8)]
    assert str(state) == before
    for other in sampled:
        assert isinstance(other, tos.TapeteState)
        assert other.information_state_string(seat) == state.information_state_string(seat)
        assert other.legal_actions() == state.legal_actions()
        # pyspiel's record of the history is the resampled state's own
        assert other.history() == other.tapete_state.history()
        assert other.move_number() == len(other.history())
    assert len({str(other) for other in sampled}) > 1  # the hidden cards do change
    # a seeded sampler makes it reproducible
    again = pyspiel.UniformProbabilitySampler(11, 0.0, 1.0)
    assert [str(state.resample_from_infostate(seat, again)) for _ in range(8)] == [
        str(other) for other in sampled
    ]
    with pytest.raises(ValueError, match="probability sampler"):
        state.resample_from_infostate(seat, lambda: 2.0)
    with pytest.raises(ValueError, match="seat"):
        state.resample_from_infostate(game.num_players(), sampler)
    assert str(state) == before


# --------------------------------------------------------------------------------------------
# OpenSpiel's Python bots


def play(game, bots, seed):
    """A whole game: ``bots[seat]`` (None: uniformly random) for every seat."""
    rng = np.random.default_rng(seed)
    state = game.new_initial_state()
    mirror = game.tapete_game.new_initial_state()
    while not state.is_terminal():
        if state.is_chance_node():
            chance_step(state, rng)
        else:
            bot = bots[state.current_player()]
            action = bot.step(state) if bot else int(rng.choice(state.legal_actions()))
            state.apply_action(action)
        mirror.apply_action(state.history()[-1])
    assert state.returns() == mirror.returns()
    return state.returns()


@pytest.mark.parametrize("name", GAMES)
def test_mcts_bot_plays_a_game(name):
    game = short(name)
    evaluator = mcts.RandomRolloutEvaluator(n_rollouts=1, random_state=np.random.RandomState(1))
    bot = mcts.MCTSBot(
        game, uct_c=2.0, max_simulations=3, evaluator=evaluator,
        random_state=np.random.RandomState(2), solve=False,
    )  # fmt: skip
    returns = play(game, [bot] + [None] * (game.num_players() - 1), seed=1)
    assert len(returns) == game.num_players()


def ismcts_bot(game, seed):
    evaluator = mcts.RandomRolloutEvaluator(n_rollouts=1, random_state=np.random.RandomState(seed))
    bot = ismcts.ISMCTSBot(
        game, evaluator, uct_c=2.0, max_simulations=4, random_state=np.random.RandomState(seed)
    )
    # The bot's own sampler is seeded at random on every call; a seeded one is reproducible.
    sampler = pyspiel.UniformProbabilitySampler(seed, 0.0, 1.0)
    bot.set_resampler(lambda state, player: state.resample_from_infostate(player, sampler))
    return bot


@pytest.mark.parametrize("name", GAMES)
def test_ismcts_bot_plays_a_game(name):
    game = short(name)
    bots = [ismcts_bot(game, 3), None] + [ismcts_bot(game, 4)] + [None] * (game.num_players() - 3)
    returns = play(game, bots, seed=2)
    assert len(returns) == game.num_players()
    # the same seeds, the same game
    bots = [ismcts_bot(game, 3), None] + [ismcts_bot(game, 4)] + [None] * (game.num_players() - 3)
    assert play(game, bots, seed=2) == returns
