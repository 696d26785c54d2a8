"""tapete.gymnasium: Gymnasium's own check_env for every game, the registered ids, rewards,
observations, seeding (the arena's), bad input and illegal actions (docs/interop.md)."""

import contextlib
import copy
import io
import os
import pickle
import subprocess
import sys
import warnings

import numpy as np
import pytest

import tapete
from tapete import _core

if not os.environ.get("CI"):  # CI installs the test extra: there a missing package fails
    pytest.importorskip("gymnasium")

import gymnasium  # noqa: E402
from gymnasium.utils.env_checker import check_env  # noqa: E402

import tapete.gymnasium as tgym  # noqa: E402

GAMES = tapete.list_games()
# check_env's warning about the unbounded Box (balances and scores have no generic bound).
UNBOUNDED = ("A Box observation space",)


def legal(mask, rng):
    actions = np.flatnonzero(mask)
    return int(actions[rng.integers(len(actions))])


def episode(env, seed, choose=None):
    """One episode with random legal actions (or ``choose(state)``): rewards, final info and
    the checks on every observation made on the way."""
    rng = np.random.default_rng(seed)
    obs, info = env.reset(seed=seed)
    rewards = []
    while True:
        state = env.unwrapped.game_state
        seat = env.unwrapped.seat
        np.testing.assert_array_equal(obs, state.observation_tensor(seat))
        assert obs.dtype == np.float32 and info["action_mask"].dtype == np.int8
        if state.is_terminal():
            assert not env.unwrapped.action_masks().any() and not info["action_mask"].any()
            return rewards, info
        assert state.current_player() == seat  # the agent only ever sees its own turns
        mask = env.unwrapped.action_masks()
        assert mask.dtype == np.bool_
        np.testing.assert_array_equal(mask, state.legal_actions_mask())
        np.testing.assert_array_equal(info["action_mask"], mask)
        action = legal(mask, rng) if choose is None else choose(state)
        obs, reward, terminated, truncated, info = env.step(action)
        assert isinstance(reward, float) and not truncated
        assert terminated == env.unwrapped.game_state.is_terminal()
        rewards.append(reward)


@pytest.mark.parametrize("game", GAMES)
def test_check_env_passes_on_every_game(game, capsys):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        # Through the registry, so that check_env also renders with every render mode.
        check_env(gymnasium.make(f"tapete/{game}-v0").unwrapped)
        check_env(tgym.make(game, seat=1, opponents="heuristic"), skip_render_check=True)
    unexpected = {str(w.message) for w in caught if UNBOUNDED[0] not in str(w.message)}
    assert not unexpected
    assert "seat 0" in capsys.readouterr().out  # render_mode="human" printed the table


def test_every_game_is_registered_and_make_passes_arguments_on():
    for game in GAMES:
        assert f"tapete/{game}-v0" in gymnasium.registry
    env = gymnasium.make("tapete/spoil_five-v0", seat=2, opponents="heuristic", players=3)
    assert env.unwrapped.game == tapete.load_game("spoil_five", players=3)
    assert env.unwrapped.seat == 2
    assert tgym.register() == [f"tapete/{game}-v0" for game in GAMES]  # again: no-op


def test_make_by_module_path_in_a_fresh_interpreter():
    code = (
        "import sys, gymnasium\n"
        "assert 'tapete.gymnasium' not in sys.modules\n"
        "env = gymnasium.make('tapete.gymnasium:tapete/cau_robat-v0', seat=1)\n"
        "obs, info = env.reset(seed=1)\n"
        "print(obs.shape, int(info['action_mask'].sum()) > 0)\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == ["(243,)", "True"]


@pytest.mark.parametrize("game", GAMES)
def test_rewards_add_up_to_the_seats_returns_from_every_seat(game):
    for seat in range(4):  # whoever opens, and whatever was paid before the seat's first turn
        env = tgym.make(game, seat=seat)
        rewards, info = episode(env, seed=2)
        returns = env.game_state.returns()
        assert sum(rewards) == pytest.approx(returns[seat])
        assert info["returns"] == returns


@pytest.mark.parametrize("seat", [0, 2])
def test_an_episode_is_the_arenas_game_with_the_same_seed(seat):
    """reset(seed=s) deals game s and seeds the opponents as the arena seeds deal s; an agent
    that plays like the arena's bot of its seat plays the arena's game."""
    game = tapete.load_game("spoil_five")
    specs = ["heuristic", "random", "random", "heuristic"]
    env = tgym.make(game, seat=seat, opponents=specs[:seat] + specs[seat + 1 :])
    for s in (5, 6):
        agent = tapete.bots.make(specs[seat], game, _core.bot_seed(s, 0, 0, seat))
        rewards, _ = episode(env, seed=s, choose=agent.choose)
        result = tapete.arena(game, specs, 1, seed=s, duplicate=False)
        assert sum(rewards) == pytest.approx(result.mean[seat])
        _, _, games = _core.arena(game, specs, 0, 1, s, 1, False, True)
        assert games[0][2] == env.game_state.history()  # the same actions, move for move


def test_reset_seed_is_the_deal_and_determinism():
    game = tapete.load_game("cicera", game_mode="single_hand")
    env = tgym.make(game, seat=1, opponents=["heuristic", "random", "heuristic"])
    obs, _ = env.reset(seed=9)
    replay = game.new_initial_state(seed=9)
    for action in env.game_state.history():
        replay.apply_action(action)
    assert replay == env.game_state
    first = episode(env, seed=9)
    env.reset()
    unseeded = env.game_state.clone()
    again = episode(tgym.make(game, seat=1, opponents=["heuristic", "random", "heuristic"]), 9)
    assert first[0] == again[0]
    env.reset(seed=9)
    env.reset()
    assert env.game_state == unseeded  # unseeded resets follow the last seed


def test_illegal_action_terminates_by_default_and_changes_nothing():
    env = tgym.make("cau_robat", seat=1)
    _, info = env.reset(seed=3)
    before = env.game_state.serialize()
    illegal = int(np.flatnonzero(info["action_mask"] == 0)[0])
    obs, reward, terminated, truncated, info = env.step(illegal)
    assert (terminated, truncated, info["illegal_action"]) == (True, False, True)
    assert reward == env.game.min_utility()
    assert not info["action_mask"].any() and not env.action_masks().any()
    assert env.game_state.serialize() == before
    np.testing.assert_array_equal(obs, env.game_state.observation_tensor(1))
    with pytest.raises(tapete.IllegalActionError, match="reset"):
        env.step(illegal)
    env.reset(seed=3)
    for action in (-1, 10, 2**70):  # outside the action space: refused, the episode goes on
        with pytest.raises(tapete.IllegalActionError):
            env.step(action)
    with pytest.raises(TypeError):
        env.step(1.0)
    assert env.game_state.serialize() == before
    assert env.step(int(np.flatnonzero(env.action_masks())[0]))[2] is False


def test_illegal_action_raises_on_request_and_the_episode_goes_on():
    env = tgym.make("cuajo", seat=2, illegal_action="raise")
    _, info = env.reset(seed=4)
    before = env.game_state.serialize()
    mask = info["action_mask"]
    for action in (int(np.flatnonzero(mask == 0)[0]), -1, len(mask)):
        with pytest.raises(tapete.IllegalActionError):
            env.step(action)
    for action in (1.0, None, "1", True, np.bool_(False)):  # a bool is no action id either
        with pytest.raises(TypeError):
            env.step(action)
    assert env.game_state.serialize() == before
    env.step(np.int64(np.flatnonzero(mask)[0]))
    assert env.game_state.serialize() != before


def test_a_reset_env_can_be_copied_and_goes_on_alike():
    """Its opponents (native bots) pickle with their streams: checkpoints, copies for search."""
    env = tgym.make("cau_robat", opponents="heuristic")
    _, info = env.reset(seed=3)
    twin = copy.deepcopy(env)
    again = pickle.loads(pickle.dumps(env))
    done = False
    while not done:
        action = int(np.flatnonzero(info["action_mask"])[0])
        out = env.step(action)
        for other in (twin, again):
            assert np.array_equal(other.step(action)[0], out[0])
        _, _, done, _, info = out


def test_step_before_reset_is_refused():
    env = tgym.make("cicera")
    with pytest.raises(tapete.IllegalActionError, match="reset"):
        env.step(0)
    with pytest.raises(gymnasium.error.ResetNeeded):
        gymnasium.make("tapete/cicera-v0").step(0)


def test_bad_arguments():
    with pytest.raises(tapete.ConfigError, match="unknown game"):
        tgym.make("whist")
    with pytest.raises(tapete.ConfigError):
        tgym.make("cau_robat", players=9)
    with pytest.raises(tapete.ConfigError, match="go with a game name"):
        tgym.make(tapete.load_game("cicera"), target_score=31)
    for seat in (-1, 4, True, np.True_, "0", 1.0, None, np.int64(4), np.array([1, 2])):
        with pytest.raises(tapete.ConfigError, match="seat"):
            tgym.make("cau_robat", seat=seat)
    assert tgym.make("cau_robat", players=5, seat=4).seat == 4
    # Any integer, as for seeds and counts: numpy's too.
    seat = tgym.make("cau_robat", seat=np.int64(1)).seat
    assert seat == 1 and type(seat) is int
    for opponents in ("random,random", "ismcts:iterations=-3", ["random"] * 2, ["random"] * 4):
        with pytest.raises(tapete.ConfigError):
            tgym.make("cau_robat", opponents=opponents)
    for opponents in (3, [object()] * 3, None):
        with pytest.raises(tapete.ConfigError, match="opponents|bot"):
            tgym.make("cau_robat", opponents=opponents)
    with pytest.raises(tapete.ConfigError, match="illegal_action"):
        tgym.make("cau_robat", illegal_action="ignore")
    with pytest.raises(tapete.ConfigError, match="render_mode"):
        tgym.make("cau_robat", render_mode="rgb_array")
    env = tgym.make("cau_robat")
    env.reset(seed=1)
    before = env.game_state
    for seed in (-1, 2**64, 1.5):
        with pytest.raises(tapete.ConfigError):
            env.reset(seed=seed)
    assert env.game_state == before
    # numpy's integers are seeds as for the engine (Gymnasium itself takes only an int)
    env.reset(seed=np.uint64(7))
    first = env.game_state
    env.reset(seed=7)
    assert env.game_state == first
    env.reset(seed=1)
    with pytest.raises(TypeError, match="an action is an int action id, got array"):
        env.step(np.array([env.action_masks().argmax()]))


def test_explicit_chance_games_are_refused():
    try:
        game = tapete.load_game("cau_robat", explicit_chance=True)
    except tapete.ConfigError:
        pytest.skip("this build has no explicit chance nodes")
    with pytest.raises(tapete.ConfigError, match="chance"):
        tgym.make(game)


class LeftHand:
    """A Python bot: the lowest legal action."""

    def choose(self, state):
        return state.legal_actions()[0]


def test_python_bots_as_opponents():
    env = tgym.make("cau_robat", seat=0, opponents=[LeftHand(), "heuristic", LeftHand()])
    rewards, info = episode(env, seed=7)
    assert sum(rewards) == pytest.approx(info["returns"][0])


def test_a_failing_opponent_ends_the_episode():
    """An opponent that chooses an illegal action or raises ends the episode, and the error
    names it: the next step must not play the agent's action for the opponent's seat."""

    class Illegal:
        name = "illegal"

        def choose(self, state):
            return 10**6

    class Broken:
        def choose(self, state):
            raise RuntimeError("broken bot")

    env = tgym.make("cau_robat", seat=0, opponents=Illegal())
    env.reset(seed=0)
    history = list(env.unwrapped.game_state.history())
    with pytest.raises(tapete.IllegalActionError, match=r"opponent at seat 1 \(illegal\)"):
        env.step(int(np.flatnonzero(env.unwrapped.action_masks())[0]))
    with pytest.raises(tapete.IllegalActionError, match="call reset"):
        env.step(0)
    assert len(env.unwrapped.game_state.history()) == len(history) + 1  # only the seat's own
    env = tgym.make("cau_robat", seat=1, opponents=Broken())
    with pytest.raises(RuntimeError, match="broken bot"):
        env.reset(seed=0)
    with pytest.raises(tapete.IllegalActionError, match="call reset"):
        env.step(0)


def test_deals_that_end_before_the_seat_acts_are_skipped(monkeypatch):
    """No default deal ends before every seat acts; a finished state stands in for one."""
    env = tgym.make("cau_robat", seat=1)
    finished = env.game.new_initial_state(seed=1)
    while not finished.is_terminal():
        finished.apply_action(finished.legal_actions()[0])
    real_start = env._start
    deals = []

    def start(deal):
        deals.append(deal)
        real_start(deal)
        if len(deals) == 1:
            env.game_state = finished.clone()

    monkeypatch.setattr(env, "_start", start)
    env.reset(seed=12)
    # The next deal comes from np_random, which reset(seed=12) seeded.
    assert deals == [12, int(np.random.default_rng(12).integers(2**63))]
    replay = env.game.new_initial_state(seed=deals[1])
    for action in env.game_state.history():
        replay.apply_action(action)
    assert replay == env.game_state and not env.game_state.is_terminal()
    monkeypatch.setattr(env, "_start", lambda deal: setattr(env, "game_state", finished.clone()))
    with pytest.raises(tapete.ConfigError, match="no decision"):
        env.reset(seed=12)


def test_render_modes(capsys):
    env = tgym.make("cau_robat", render_mode="ansi")
    env.reset(seed=2)
    assert env.render() == str(env.game_state)
    env = tgym.make("cau_robat", render_mode="human")
    _, info = env.reset(seed=2)
    capsys.readouterr()
    env.step(int(np.flatnonzero(info["action_mask"])[0]))
    assert capsys.readouterr().out == str(env.game_state) + "\n"
    with contextlib.redirect_stderr(io.StringIO()), warnings.catch_warnings(record=True):
        warnings.simplefilter("always")
        assert tgym.make("cau_robat").render() is None


def test_a_missing_extra_says_which():
    done = subprocess.run(
        [
            sys.executable,
            "-c",
            "import sys; sys.modules['gymnasium'] = None\n"
            "import tapete\n"
            "try:\n"
            "    tapete.gymnasium\n"
            "except ImportError as e:\n"
            "    print(e)\n",
        ],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    assert "pip install 'tapete[gymnasium]'" in done.stdout
