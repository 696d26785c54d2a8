"""tapete.VectorEnv against single states, env by env (docs/vector.md).

The model below steps one `State` per env by the contract's seeding formula and autoreset rules;
the batch must give exactly its arrays, whatever the thread count.
"""

import subprocess
import sys
import textwrap
import threading

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import tapete
from tapete.reference.rng import MASK64, SplitMix64

# Short games, so that episodes end and restart within a few hundred steps.
SHORT = {
    "spoil_five": {"players": 3, "num_deals": 1},
    "cicera": {"game_mode": "single_hand"},
    "cau_robat": {"players": 3, "hands_to_win": 1},
    "cuajo": {"hands_per_match": 1, "max_turns": 6},
}
GAMES = sorted(SHORT)


class Model:
    """The batch as the contract describes it, built from single states."""

    def __init__(self, game, n, seed, observe, autoreset):
        self.game, self.n, self.observe, self.autoreset = game, n, observe, autoreset
        self.reset(seed)

    def start(self, i, k):
        self.episode[i] = k
        self.states[i] = self.game.new_initial_state(seed=(self.seed + k * self.n + i) & MASK64)

    def reset(self, seed=None):
        if seed is not None:
            self.seed = seed
        self.states = [None] * self.n
        self.episode = [0] * self.n
        for i in range(self.n):
            self.start(i, 0)
        return self.batch([[0.0] * self.game.num_players()] * self.n, [False] * self.n)

    def step(self, actions):
        rewards, terminated = [], []
        for i, s in enumerate(self.states):
            r, t = [0.0] * self.game.num_players(), False
            if s.is_terminal():
                if self.autoreset == "next_step":
                    self.start(i, self.episode[i] + 1)
            else:
                s.apply_action(int(actions[i]))
                r = s.rewards()
                if s.is_terminal():
                    t = True
                    if self.autoreset == "same_step":
                        self.start(i, self.episode[i] + 1)
            rewards.append(r)
            terminated.append(t)
        return self.batch(rewards, terminated)

    def batch(self, rewards, terminated):
        g = self.game
        n, p, shape = self.n, g.num_players(), g.observation_tensor_shape()
        obs = {"current": np.zeros((n, *shape), np.float32), "all": None, "none": None}
        obs["all"] = np.zeros((n, p, *shape), np.float32)
        mask = np.zeros((n, g.num_distinct_actions()), bool)
        for i, s in enumerate(self.states):
            if s.is_terminal():
                continue
            mask[i] = s.legal_actions_mask()
            obs["current"][i] = s.observation_tensor(s.current_player())
            for seat in range(p):
                obs["all"][i, seat] = s.observation_tensor(seat)
        return {
            "observation": obs[self.observe],
            "legal_mask": mask,
            "current_player": np.array([s.current_player() for s in self.states], np.int32),
            "rewards": np.array(rewards, np.float32).reshape(n, p),
            "terminated": np.array(terminated, bool),
            "episode": np.array(self.episode, np.int64),
        }


FIELDS = ("observation", "legal_mask", "current_player", "rewards", "terminated", "episode")
DTYPES = {
    "observation": np.float32,
    "legal_mask": np.bool_,
    "current_player": np.int32,
    "rewards": np.float32,
    "terminated": np.bool_,
    "episode": np.int64,
}


def assert_same(batch, expected):
    for f in FIELDS:
        got, want = getattr(batch, f), expected[f]
        if want is None:
            assert got is None, f
            continue
        assert got.dtype == DTYPES[f], f
        assert got.shape == want.shape, f
        np.testing.assert_array_equal(got, want, err_msg=f)


def run(
    name, n, *, seed=0, threads=1, observe="current", autoreset="same_step", steps=200, config=None
):
    config = SHORT[name] if config is None else config
    env = tapete.VectorEnv(
        name, n, seed=seed, threads=threads, observe=observe, autoreset=autoreset, **config
    )
    model = Model(env.game, n, seed, observe, autoreset)
    assert_same(env.reset(), model.reset())
    ended = 0
    for t in range(steps):
        actions = env.random_actions(seed=t)
        out = env.step(actions)
        assert_same(out, model.step(actions))
        ended += int(out.terminated.sum())
    for i in range(n):
        got, want = env.state(i), model.states[i]
        assert got == want and got.serialize() == want.serialize()
        # an env restarts its game in place, keeping its buffers: what a search starts from
        # (the deal's start, the information states) is a fresh game's too
        if not want.is_terminal():
            p = want.current_player()
            assert got.information_state_string(p) == want.information_state_string(p)
            assert got.resample_from_infostate(p, 5) == want.resample_from_infostate(p, 5)
    return ended


@pytest.mark.parametrize("name", GAMES)
@pytest.mark.parametrize("autoreset", ["same_step", "next_step", "disabled"])
def test_equivalent_to_single_states(name, autoreset):
    ended = run(
        name,
        3,
        seed=11,
        observe="all" if autoreset == "next_step" else "current",
        autoreset=autoreset,
        steps=250,
    )
    assert ended > 0  # the autoreset rule was exercised


@pytest.mark.parametrize(
    ("name", "config"),
    [
        ("spoil_five", {"players": 3, "num_deals": 3}),
        ("cau_robat", {"players": 3, "hands_to_win": 2}),
    ],
)
def test_games_of_several_deals_restart_as_new(name, config):
    """An env restarts its game in place: after games of several deals (their decks and deal
    starts replaced as they went) the next game is still exactly a new one."""
    assert run(name, 3, seed=4, steps=300, config=config) > 3


@pytest.mark.parametrize("name", GAMES)
def test_observe_none_and_all(name):
    run(name, 2, observe="none", steps=60)
    env = tapete.VectorEnv(name, 2, observe="all", **SHORT[name])
    out = env.reset()
    p, shape = env.game.num_players(), env.game.observation_tensor_shape()
    assert out.observation.shape == (2, p, *shape)
    for seat in range(p):
        np.testing.assert_array_equal(
            out.observation[1, seat], env.state(1).observation_tensor(seat)
        )


@pytest.mark.parametrize("name", GAMES)
def test_results_do_not_depend_on_threads(name):
    envs = [
        tapete.VectorEnv(name, 7, seed=5, threads=t, observe="all", **SHORT[name])
        for t in (1, 2, 3)
    ]
    for t in range(150):
        actions = envs[0].random_actions(seed=100 + t)
        outs = [e.step(actions) for e in envs]
        for out in outs[1:]:
            for f in FIELDS:
                np.testing.assert_array_equal(getattr(out, f), getattr(outs[0], f))
        for e in envs[1:]:
            np.testing.assert_array_equal(e.random_actions(t), envs[0].random_actions(t))


def test_threads_sharing_one_env_take_turns():
    # While one thread steps (without the GIL), others read the same env: each call waits for
    # the step to finish instead of failing ("Already mutably borrowed" before), and the
    # stepping thread's results are those of an env nobody else touched.
    env = tapete.VectorEnv("cuajo", 512, seed=1, observe="all")
    alone = tapete.VectorEnv("cuajo", 512, seed=1, observe="all")
    start = threading.Barrier(3)
    errors = []

    def stepper():
        start.wait()
        for t in range(12):
            try:
                out = env.step(env.random_actions(t))
                expected = alone.step(alone.random_actions(t))
                for f in FIELDS:
                    np.testing.assert_array_equal(getattr(out, f), getattr(expected, f))
            except BaseException as e:  # noqa: BLE001 - a thread's failure, reported below
                errors.append(e)
                return

    def reader():
        start.wait()
        for i in range(60):
            try:
                assert env.state(i % 512).num_players() == 4
                assert env.random_actions(i).shape == (512,)
                assert env.game.name == "cuajo" and env.num_envs == 512
            except BaseException as e:  # noqa: BLE001
                errors.append(e)
                return

    threads = [threading.Thread(target=f) for f in (stepper, reader, reader)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert errors == []


def test_random_actions_follow_the_documented_draw():
    env = tapete.VectorEnv("cau_robat", 6, seed=3, autoreset="disabled", **SHORT["cau_robat"])
    for t in range(400):
        acts = env.random_actions(seed=t)
        assert acts.dtype == np.int64 and acts.shape == (6,)
        for i in range(6):
            s = env.state(i)
            if s.is_terminal():
                assert acts[i] == -1
                continue
            legal = s.legal_actions()
            rng = SplitMix64(((t + i) * 0x2545F4914F6CDD1D) & MASK64)
            assert acts[i] == legal[rng.below(len(legal))]
        env.step(acts)
    assert all(env.state(i).is_terminal() for i in range(6))
    # every finished env stays over and ignores whatever it is given
    out = env.step(np.full(6, -7))
    assert (out.current_player == tapete.TERMINAL).all() and not out.terminated.any()
    assert not out.legal_mask.any() and not out.observation.any() and not out.rewards.any()


def test_rewards_of_an_episode_add_up_to_its_returns():
    env = tapete.VectorEnv("spoil_five", 4, seed=2, autoreset="next_step", **SHORT["spoil_five"])
    totals = np.zeros((4, 3))
    finished = 0
    for t in range(300):
        out = env.step(env.random_actions(t))
        totals += out.rewards
        for i in np.flatnonzero(out.terminated):
            np.testing.assert_allclose(totals[i], env.state(i).returns(), rtol=0, atol=1e-4)
            totals[i] = 0
            finished += 1
    assert finished > 4


def test_reset_restarts_the_seeded_games():
    env = tapete.VectorEnv("cicera", 3, seed=9, **SHORT["cicera"])
    for t in range(40):
        env.step(env.random_actions(t))
    out = env.reset()
    assert (out.episode == 0).all() and not out.rewards.any() and not out.terminated.any()
    for i in range(3):
        assert env.state(i) == env.game.new_initial_state(seed=9 + i)
    env.reset(seed=2**64 - 2)
    assert env.state(1) == env.game.new_initial_state(seed=2**64 - 1)
    assert env.state(2) == env.game.new_initial_state(seed=0)  # the seed wraps mod 2**64


def test_batches_are_fresh_arrays():
    env = tapete.VectorEnv("spoil_five", 2)
    a = env.reset()
    b = env.step(env.random_actions(0))
    assert not np.shares_memory(a.observation, b.observation)
    a.observation[:] = 5  # writable and the env's own state is not touched
    assert env.step(env.random_actions(1)).observation.max() <= 1.0


def test_illegal_action_names_the_env_and_steps_nothing():
    env = tapete.VectorEnv("spoil_five", 3, seed=4)
    before = [env.state(i) for i in range(3)]
    actions = env.random_actions(0)
    bad = next(
        a for a in range(env.game.num_distinct_actions()) if not before[1].legal_actions_mask()[a]
    )
    actions[1] = bad
    with pytest.raises(tapete.IllegalActionError, match=rf"env 1: action {bad} .*not legal"):
        env.step(actions)
    actions[1] = -1
    with pytest.raises(tapete.IllegalActionError, match="env 1: action -1"):
        env.step(actions)
    actions[1] = 10**6
    with pytest.raises(tapete.IllegalActionError, match="out of range"):
        env.step(actions)
    assert [env.state(i) for i in range(3)] == before


def test_bad_arguments():
    env = tapete.VectorEnv("cicera", 2)
    with pytest.raises(ValueError, match=r"shape \(2,\)"):
        env.step([0, 0, 0])
    with pytest.raises(ValueError, match="shape"):
        env.step(np.zeros((2, 1), np.int64))
    with pytest.raises(TypeError, match="integers"):
        env.step(np.zeros(2))
    with pytest.raises(TypeError, match="integers"):
        env.step([True, False])
    with pytest.raises(TypeError, match="integers"):
        env.step(["a", "b"])
    with pytest.raises(TypeError, match="integers, got str"):
        env.step("ab")  # no numbers at all: a TypeError whatever its shape
    with pytest.raises(TypeError, match="integers, got NoneType"):
        env.step(None)
    legal = int(env.random_actions(0)[0])
    with pytest.raises(TypeError, match="got a list of bool, int"):
        env.step([True, legal])  # numpy would read True as action 1
    with pytest.raises(TypeError, match="dtype object"):
        env.step(np.array([legal, legal], dtype=object))
    with pytest.raises(tapete.IllegalActionError, match=f"env 1: action {2**63} "):
        env.step([legal, 2**63])  # numpy would make this list floats
    with pytest.raises(tapete.IllegalActionError, match=f"env 1: action {2**70} .*no env was"):
        env.step([legal, 2**70])  # Python ints beyond int64: dtype object
    with pytest.raises(tapete.IllegalActionError, match=f"env 0: action {-(2**70)} "):
        env.step([-(2**70), legal])
    with pytest.raises(tapete.IllegalActionError, match=f"env 0: action {2**64 - 1} "):
        env.step(np.array([2**64 - 1, 2**64 - 1], np.uint64))
    with pytest.raises(tapete.IllegalActionError, match=f"env 1: action {2**63} "):
        env.step(np.array([env.random_actions(0)[0], 2**63], np.uint64))
    with pytest.raises(IndexError):
        env.state(2)
    with pytest.raises(IndexError):
        env.state(-1)
    for not_an_env in ("0", 1.0, None, True):
        with pytest.raises(TypeError, match=f"env must be an int, got {not_an_env!r}"):
            env.state(not_an_env)  # type: ignore[arg-type]
    for kwargs, match in [
        ({"num_envs": 0}, "num_envs"),
        ({"num_envs": -3}, "num_envs"),
        ({"num_envs": True}, "num_envs"),
        ({"num_envs": 2.0}, "num_envs"),
        ({"num_envs": 2**21}, "num_envs"),
        ({"num_envs": 2, "observe": "seat"}, "observe"),
        ({"num_envs": 2, "observe": None}, "observe"),
        ({"num_envs": 2, "autoreset": "always"}, "autoreset"),
        ({"num_envs": 2, "threads": 0}, "threads"),
        ({"num_envs": 2, "threads": 10**6}, "threads"),
        ({"num_envs": 2, "seed": -1}, "seed"),
        ({"num_envs": 2, "seed": 2**64}, "seed"),
        ({"num_envs": 2, "no_such_option": 1}, "no_such_option"),
    ]:
        with pytest.raises(tapete.ConfigError, match=match):
            tapete.VectorEnv("cicera", **kwargs)
    with pytest.raises(tapete.ConfigError, match="unknown game|no game"):
        tapete.VectorEnv("chess", 2)
    with pytest.raises(tapete.ConfigError, match="game name"):
        tapete.VectorEnv(tapete.load_game("cicera"), 2, packet_size=4)
    with pytest.raises(TypeError):
        tapete.VectorEnv(tapete.reference.load_game("cicera"), 2)
    with pytest.raises(tapete.ConfigError, match="seed"):
        env.reset(seed=-5)


@pytest.mark.skipif(sys.platform != "linux", reason="limits the address space with RLIMIT_AS")
def test_out_of_memory_is_a_memory_error():
    """A batch or an env too big for the memory left is a MemoryError, never a panic or an
    abort: run in a child whose address space is capped at 3 GB."""
    script = textwrap.dedent(
        """
        import resource, tapete
        resource.setrlimit(resource.RLIMIT_AS, (3 << 30, 3 << 30))
        env = tapete.VectorEnv("cuajo", 200_000, observe="all")  # 4.3 GB of tensors a batch
        calls = (
            env.reset,
            lambda: tapete.VectorEnv("cuajo", 2**20),
            # aborted while making its envs: the room reserved left out their peak
            lambda: tapete.VectorEnv("cau_robat", 2**20),
        )
        for call in calls:
            try:
                call()
            except MemoryError as e:
                print("MemoryError:", e)
        print(tapete.VectorEnv("cuajo", 2).reset().legal_mask.shape)
        """
    )
    out = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, timeout=120
    )
    assert out.returncode == 0, out.stderr
    assert out.stdout.count("MemoryError:") == 3, out.stdout + out.stderr
    assert "(2, 95)" in out.stdout and "Panic" not in out.stderr, out.stderr


def test_game_and_config_pass_through():
    game = tapete.load_game("cau_robat", players=5)
    env = tapete.VectorEnv(game, 3, threads=2)
    assert env.game == game and env.num_envs == 3
    assert tapete.VectorEnv("cau_robat", 1, players=5).game == game
    assert "cau_robat" in repr(env)


@settings(max_examples=25, deadline=None)
@given(
    name=st.sampled_from(GAMES),
    option=st.integers(0, 1),
    n=st.integers(1, 6),
    threads=st.integers(1, 3),
    autoreset=st.sampled_from(["same_step", "next_step", "disabled"]),
    seed=st.integers(0, 2**64 - 1),
    picks=st.lists(st.integers(0, 2**16), min_size=1, max_size=60),
)
def test_hypothesis_against_single_states(name, option, n, threads, autoreset, seed, picks):
    config = SHORT[name] if option else {}
    env = tapete.VectorEnv(name, n, seed=seed, threads=threads, autoreset=autoreset, **config)
    model = Model(env.game, n, seed, "current", autoreset)
    assert_same(env.reset(), model.batch([[0.0] * env.game.num_players()] * n, [False] * n))
    for t, pick in enumerate(picks):
        actions = []
        for i, s in enumerate(model.states):
            legal = s.legal_actions()
            actions.append(legal[(pick + i * t) % len(legal)] if legal else 0)
        assert_same(env.step(actions), model.step(actions))
