"""tapete.pettingzoo: PettingZoo's own api_test and seed_test for every game, the rewards, the
observations, seeding, bad input and the optional extra (docs/interop.md)."""

import os
import subprocess
import sys
import warnings

import numpy as np
import pytest

import tapete

if not os.environ.get("CI"):  # CI installs the test extra: there a missing package fails
    pytest.importorskip("pettingzoo")

from pettingzoo.test import api_test, seed_test  # noqa: E402

import tapete.pettingzoo as tpz  # noqa: E402

GAMES = tapete.list_games()
# PettingZoo warns about every Dict observation of a game not on its own list of classic games.
DICT_OBSERVATION_WARNINGS = ("Observation is not a NumPy array", "Observation space for each")


def play(env, seed, choose=None):
    """Plays one whole game through ``agent_iter``/``last``; per agent the rewards ``last``
    gave, and the checks on every observation made on the way."""
    rng = np.random.default_rng(seed)
    env.reset(seed=seed)
    got = dict.fromkeys(env.possible_agents, 0.0)
    raw = env.unwrapped
    for agent in env.agent_iter():
        obs, reward, terminated, truncated, info = env.last()
        got[agent] += reward
        assert not truncated and info == {}
        state = raw.game_state
        seat = int(agent.split("_")[1])
        np.testing.assert_array_equal(obs["observation"], state.observation_tensor(seat))
        assert obs["observation"].dtype == np.float32 and obs["action_mask"].dtype == np.int8
        if terminated:
            assert state.is_terminal() and not obs["action_mask"].any()
            env.step(None)
            continue
        assert state.current_player() == seat
        np.testing.assert_array_equal(obs["action_mask"], state.legal_actions_mask())
        for other in env.agents:  # no one else is told anything about the legal actions
            if other != agent:
                assert not env.observe(other)["action_mask"].any()
        legal = np.flatnonzero(obs["action_mask"])
        env.step(int(legal[rng.integers(len(legal))]) if choose is None else choose(state))
    assert env.agents == []
    return got, raw.game_state


@pytest.mark.parametrize("game", GAMES)
def test_api_test_and_seed_test_pass_on_every_game(game):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        api_test(tpz.env(game), num_cycles=1000)  # long enough for a whole default game
        seed_test(lambda: tpz.env(game), num_cycles=1000)
    unexpected = {str(w.message) for w in caught} - {
        str(w.message) for w in caught if str(w.message).startswith(DICT_OBSERVATION_WARNINGS)
    }
    assert not unexpected


@pytest.mark.filterwarnings("ignore:Observation is not a NumPy array")
@pytest.mark.filterwarnings("ignore:Observation space for each agent")
@pytest.mark.parametrize(
    "game, config",
    [("spoil_five", {"players": 3}), ("cau_robat", {"players": 5}), ("cicera", {})],
)
def test_api_test_on_other_configs_and_on_the_raw_env(game, config):
    env = tpz.env(game, **config)
    assert env.possible_agents == [f"player_{s}" for s in range(env.unwrapped.game.num_players())]
    api_test(env, num_cycles=1000)
    api_test(tpz.raw_env(game, **config), num_cycles=50)


def test_spaces_are_pettingzoo_classic_dicts():
    env = tpz.env("cau_robat")
    env.reset(seed=1)
    game = env.unwrapped.game
    space = env.observation_space("player_2")
    assert space is env.observation_space("player_2")
    assert space["observation"].shape == game.observation_tensor_shape()
    assert space["observation"].dtype == np.float32
    assert space["action_mask"].shape == (game.num_distinct_actions(),)
    assert space["action_mask"].dtype == np.int8
    assert env.action_space("player_0").n == game.num_distinct_actions()
    assert str(env) == "tapete_cau_robat_v0"


@pytest.mark.parametrize("game", GAMES)
def test_rewards_add_up_to_returns_and_observations_are_the_seats_own(game):
    got, state = play(tpz.env(game), seed=3)
    assert list(got.values()) == pytest.approx(state.returns())


def test_reset_seed_is_the_games_seed_and_unseeded_resets_follow_it():
    game = tapete.load_game("cicera")
    env = tpz.env(game)
    env.reset(seed=11)
    assert env.unwrapped.game_state == game.new_initial_state(seed=11)
    env.reset()
    after_11 = env.unwrapped.game_state
    env.reset(seed=11)
    env.reset()
    assert env.unwrapped.game_state == after_11
    env.reset()
    assert env.unwrapped.game_state != after_11


def test_same_seed_and_actions_give_the_same_game():
    a, state_a = play(tpz.env("spoil_five", players=5), seed=8)
    b, state_b = play(tpz.env("spoil_five", players=5), seed=8)
    assert a == b and state_a == state_b


def test_bots_can_drive_it():
    game = tapete.load_game("cuajo")
    bot = tapete.bots.make("heuristic", game, seed=1)
    got, state = play(tpz.env(game), seed=2, choose=bot.choose)
    assert list(got.values()) == pytest.approx(state.returns())


def test_raw_env_refuses_an_illegal_action_and_changes_nothing():
    env = tpz.raw_env("cau_robat")
    env.reset(seed=4)
    env.step(int(np.flatnonzero(env.observe(env.agent_selection)["action_mask"])[0]))
    before = (env.game_state.serialize(), env.agent_selection, dict(env._cumulative_rewards))
    mask = env.observe(env.agent_selection)["action_mask"]
    illegal = int(np.flatnonzero(mask == 0)[0])
    for action in (illegal, -1, len(mask), 10**30):
        with pytest.raises(tapete.IllegalActionError):
            env.step(action)
    for action in (None, 1.0, "1", True, np.bool_(False)):  # a bool is no action id either
        with pytest.raises(TypeError):
            env.step(action)
    assert (env.game_state.serialize(), env.agent_selection, env._cumulative_rewards) == (
        before[0],
        before[1],
        before[2],
    )
    env.step(int(np.flatnonzero(mask)[0]))  # and it plays on
    assert env.agent_selection == env.possible_agents[env.game_state.current_player()]
    assert env.agent_selection != before[1] and not any(env.terminations.values())


def test_env_ends_the_game_on_an_illegal_action_as_classic_envs_do():
    env = tpz.env("spoil_five")
    env.reset(seed=5)
    agent = env.agent_selection
    obs, *_ = env.last()
    before = env.game_state.serialize()
    for action in (-1, len(obs["action_mask"])):  # outside the action space: refused
        with pytest.raises(tapete.IllegalActionError):
            env.step(action)
    with pytest.raises(TypeError):
        env.step(None)
    assert not any(env.terminations.values())
    with warnings.catch_warnings(record=True):
        warnings.simplefilter("always")
        env.step(int(np.flatnonzero(obs["action_mask"] == 0)[0]))
    assert env.game_state.serialize() == before  # the game itself is untouched
    assert all(env.terminations.values()) and not any(env.truncations.values())
    assert env.rewards[agent] == env.game.min_utility() == -56
    assert all(r == 0 for a, r in env.rewards.items() if a != agent)
    assert env.infos[agent] == {"illegal_action": True}
    seen = {}
    for a in env.agent_iter():
        obs, reward, terminated, _, _ = env.last()
        assert terminated and not obs["action_mask"].any()
        seen[a] = reward
        env.step(None)
    assert seen[agent] == -56 and env.agents == []
    with warnings.catch_warnings(record=True):
        warnings.simplefilter("always")
        env.step(None)  # after the end: PettingZoo's warning, nothing else
    env.reset(seed=5)
    assert env.game_state.serialize() == before


def test_bad_arguments():
    with pytest.raises(tapete.ConfigError, match="unknown game"):
        tpz.env("whist")
    with pytest.raises(tapete.ConfigError):
        tpz.env("spoil_five", players=11)
    with pytest.raises(tapete.ConfigError):
        tpz.env("spoil_five", colour="red")
    with pytest.raises(tapete.ConfigError, match="go with a game name"):
        tpz.env(tapete.load_game("cicera"), target_score=31)
    with pytest.raises(TypeError):
        tpz.env(3)
    with pytest.raises(tapete.ConfigError, match="render_mode"):
        tpz.env("cicera", render_mode="rgb_array")
    with pytest.raises(tapete.ConfigError, match="illegal_action"):
        tpz.env("cicera", illegal_action="ignore")
    env = tpz.env("cicera")
    env.reset(seed=1)
    before = env.unwrapped.game_state
    for seed in (-1, 2**64, 1.5, True):
        with pytest.raises(tapete.ConfigError):
            env.reset(seed=seed)
    assert env.unwrapped.game_state == before
    for agent in ("player_9", None, 0):
        for ask in (env.observe, env.action_space, env.observation_space):
            with pytest.raises(KeyError, match="the agents are player_0, player_1"):
                ask(agent)
    with pytest.raises(TypeError, match="an action is an int action id, got array"):
        env.step(np.array([1]))


def test_explicit_chance_games_are_refused():
    try:
        game = tapete.load_game("cau_robat", explicit_chance=True)
    except tapete.ConfigError:
        pytest.skip("this build has no explicit chance nodes")
    with pytest.raises(tapete.ConfigError, match="chance"):
        tpz.env(game)


def test_render_draws_the_table(capsys):
    env = tpz.env("cau_robat", render_mode="ansi")
    env.reset(seed=6)
    assert env.render() == str(env.unwrapped.game_state)
    human = tpz.env("cau_robat", render_mode="human")
    human.reset(seed=6)
    capsys.readouterr()
    assert human.render() is None
    assert capsys.readouterr().out == str(human.unwrapped.game_state) + "\n"
    human.step(int(np.flatnonzero(human.last()[0]["action_mask"])[0]))  # human: every step
    assert capsys.readouterr().out == str(human.unwrapped.game_state) + "\n"
    quiet = tpz.env("cau_robat")
    quiet.reset(seed=6)
    with warnings.catch_warnings(record=True):
        warnings.simplefilter("always")
        assert quiet.render() is None
    quiet.close()


def run_python(code):
    return subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=False, timeout=120
    )


def test_import_tapete_imports_no_adapter_and_a_missing_extra_says_which():
    done = run_python(
        "import sys, tapete\n"
        "assert not {m.split('.')[0] for m in sys.modules} & {'pettingzoo', 'gymnasium'}\n"
        "assert tapete.pettingzoo.env and 'pettingzoo' in sys.modules\n"
    )
    assert done.returncode == 0, done.stderr
    for missing in ("pettingzoo", "gymnasium"):
        done = run_python(
            f"import sys; sys.modules[{missing!r}] = None\n"
            "import tapete\n"
            "try:\n"
            "    import tapete.pettingzoo\n"
            "except ImportError as e:\n"
            "    print(e)\n"
        )
        assert done.returncode == 0, done.stderr
        assert "pip install 'tapete[pettingzoo]'" in done.stdout
