"""Native bots and the duplicate arena (docs/bots.md)."""

import _thread
import copy
import json
import math
import pickle
import random
import threading
import warnings

import numpy as np
import pytest

import tapete
from tapete import _core
from tapete.arena import _python_arena

GAMES = ["spoil_five", "cicera", "cau_robat", "cuajo"]
# Short games for the arena tests.
SHORT = {
    "spoil_five": {"players": 3, "num_deals": 1},
    "cicera": {"game_mode": "single_hand"},
    "cau_robat": {"players": 3, "hands_to_win": 1},
    "cuajo": {"hands_per_match": 1, "max_turns": 8},
}
SPECS = [
    "random",
    "heuristic",
    "ismcts:iterations=16",
    "ismcts:iterations=16,rollout=heuristic",
    "ismcts:iterations=16,horizon=game",
]


def states(name, count=6, seed=0):
    """Positions from random play, one every few actions."""
    game = tapete.load_game(name, **SHORT[name])
    rng = random.Random(seed)
    out = []
    s = game.new_initial_state(seed=seed)
    while len(out) < count:
        if s.is_terminal():
            s = game.new_initial_state(seed=rng.randrange(1000))
        for _ in range(rng.randrange(1, 12)):
            if s.is_terminal():
                break
            s.apply_action(rng.choice(s.legal_actions()))
        if not s.is_terminal():
            out.append(s.clone())
    return game, out


def test_names():
    assert tapete.bots.names() == ["random", "heuristic", "ismcts"]


@pytest.mark.parametrize("name", GAMES)
@pytest.mark.parametrize("spec", SPECS)
def test_bots_choose_legal_actions_and_leave_the_state_alone(name, spec):
    game, positions = states(name, count=4 if "ismcts" in spec and name == "cuajo" else 8)
    bot = tapete.bots.make(spec, game, seed=3)
    again = tapete.bots.make(spec, game, seed=3)
    assert bot.name == spec and isinstance(bot, tapete.bots.Bot)
    for s in positions:
        before = s.clone()
        a = bot.choose(s)
        assert a in s.legal_actions()
        assert s == before and s.serialize() == before.serialize()
        assert again.choose(s) == a  # same seed, same states: same choices


def test_root_parallel_ismcts_is_deterministic():
    game, positions = states("cau_robat", count=3)
    spec = "ismcts:iterations=40,threads=2"
    a = [tapete.bots.make(spec, game, seed=9).choose(s) for s in positions]
    b = [tapete.bots.make(spec, game, seed=9).choose(s) for s in positions]
    assert a == b


def test_a_bot_and_a_state_shared_between_threads():
    # Two threads ask one search bot about one state while a third tries moves on that state:
    # the searches take turns and do not hold the state while they run (the third got "Already
    # borrowed" before; it gets the engine's own answer now), and the choices are those of the
    # same bot asked alone.
    game, positions = states("spoil_five", count=1)
    s = positions[0]
    spec = "ismcts:iterations=2000"
    alone = tapete.bots.make(spec, game, seed=4)
    expected = sorted(alone.choose(s) for _ in range(4))
    bot = tapete.bots.make(spec, game, seed=4)
    start, searched = threading.Barrier(3), threading.Semaphore(0)
    chosen, errors = [], []

    def search():
        start.wait()
        try:
            chosen.extend(bot.choose(s) for _ in range(2))
        except Exception as e:  # noqa: BLE001 - reported by the assertion below
            errors.append(e)
        searched.release()

    def play():
        start.wait()
        done = 0
        while done < 2:
            try:
                s.apply_action(game.num_distinct_actions())
            except tapete.IllegalActionError:
                pass
            except Exception as e:  # noqa: BLE001
                errors.append(e)
            done += searched.acquire(blocking=False)

    threads = [threading.Thread(target=f) for f in (search, search, play)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert errors == [] and sorted(chosen) == expected


def heuristic_play(game, seed: int, actions: int):
    state = game.new_initial_state(seed=seed)
    players = [tapete.bots.make("heuristic", game, seed * 4 + i) for i in range(4)]
    for _ in range(actions):
        state.apply_action(players[state.current_player()].choose(state))
    return state


def random_play(game, seed: int, actions: int):
    state = game.new_initial_state(seed=seed)
    rng = random.Random(seed)
    for _ in range(actions):
        state.apply_action(rng.choice(state.legal_actions()))
    return state


@pytest.mark.parametrize(
    "position",
    [
        # 150 actions into a hand of random play: no seat purro, no secret
        lambda game: random_play(game, 5, 150),
        # two other seats purro for several turns since their last unseen card, a third with
        # a hidden secret (the walk keeps the kind it drew)
        lambda game: heuristic_play(game, 25, 60),
    ],
)
def test_a_search_sees_only_what_its_seat_knows_where_cuajo_walks(position):
    """Where no exact Cuajo proposal fits, the worlds come from the fallback walk (docs/engine.md,
    "Determinisation"). It used to start from the true deal and replay the true secrets: two
    states the seat cannot tell apart gave other worlds for one seed, and the search other moves
    (5 of 6 seeds at the first position). It starts from a proposal drawn from what the seat
    knows now, so they are the same."""
    game = tapete.load_game("cuajo")
    state = position(game)
    seat = state.current_player()
    other = state.resample_from_infostate(seat, 7)  # the seat cannot tell them apart
    assert other.view(seat) == state.view(seat) and other.legal_actions() == state.legal_actions()
    assert other.information_state_string(seat) == state.information_state_string(seat)
    assert other.view()["concealed"] != state.view()["concealed"]
    world = state.resample_from_infostate(seat, 0)
    assert world.serialize() == other.resample_from_infostate(seat, 0).serialize()
    bots = [tapete.bots.make("ismcts:iterations=30", game, seed=1) for _ in range(2)]
    assert bots[0].choose(state) == bots[1].choose(other)


@pytest.mark.parametrize("spec", ["random", "heuristic", "ismcts:iterations=20"])
def test_a_pickled_bot_goes_on_as_the_bot_would(spec):
    """A copy (pickle or deepcopy) chooses from where the bot's random stream is."""
    game = tapete.load_game("cau_robat", players=3)
    bot = tapete.bots.make(spec, game, seed=5)
    state = game.new_initial_state(seed=5)
    state.apply_action(bot.choose(state))  # the stream has moved on
    copies = [pickle.loads(pickle.dumps(bot)), copy.deepcopy(bot)]
    assert all(c.name == spec for c in copies)
    while not state.is_terminal():
        action = bot.choose(state)
        assert all(c.choose(state) == action for c in copies)
        state.apply_action(action)


def test_ctrl_c_stops_the_wait_for_a_search():
    """A search runs on a thread of its own: an interrupt reaches the caller at once, not when
    a long search is over (the search, left alone, finishes unseen)."""
    game = tapete.load_game("spoil_five")
    state = game.new_initial_state(seed=1)
    while len(state.legal_actions()) < 2:
        state.apply_action(state.legal_actions()[0])
    bot = tapete.bots.make("ismcts:iterations=500000", game, seed=1)  # about a second
    threading.Timer(0.05, _thread.interrupt_main).start()
    chosen = []
    with pytest.raises(KeyboardInterrupt):
        chosen.append(bot.choose(state))
    assert not chosen  # interrupted while it searched, not after


def test_bad_specs_list_what_is_valid():
    game = tapete.load_game("cicera")
    for spec, match in [
        ("alphazero", "the bots are: random, heuristic, ismcts"),
        ("ismcts:iterations=0", "the parameters are"),
        ("ismcts:iterations=-1", "the parameters are"),
        ("ismcts:c=x", "the parameters are"),
        ("ismcts:rollout=smart", "the parameters are"),
        ("ismcts:horizon=hand", 'horizon cannot be "hand"; the parameters are'),
        ("ismcts:depth=2", "unknown ismcts parameter"),
        ("heuristic:x=1", "takes no parameters"),
    ]:
        with pytest.raises(tapete.ConfigError, match=match):
            tapete.bots.make(spec, game)
    with pytest.raises(tapete.ConfigError):
        tapete.bots.make(3, game)
    with pytest.raises(TypeError):
        tapete.bots.make("random", "cicera")
    with pytest.raises(tapete.ConfigError, match="seed"):
        tapete.bots.make("random", game, seed=-1)


def test_a_bot_plays_its_own_game_only():
    bot = tapete.bots.make("random", tapete.load_game("cicera"))
    with pytest.raises(ValueError, match="plays cicera"):
        bot.choose(tapete.load_game("cau_robat").new_initial_state(1))
    state = tapete.load_game("cicera", game_mode="single_hand").new_initial_state(1)
    while not state.is_terminal():
        state.apply_action(state.legal_actions()[0])
    with pytest.raises(tapete.IllegalActionError, match="over"):
        tapete.bots.make("random", state.get_game()).choose(state)


@pytest.mark.parametrize("name", GAMES)
def test_arena_does_not_depend_on_threads(name):
    game = tapete.load_game(name, **SHORT[name])
    n = game.num_players()
    bots = ["heuristic"] + ["random"] * (n - 1)
    one = tapete.arena(game, bots, 12, seed=4, threads=1)
    two = tapete.arena(game, bots, 12, seed=4, threads=2)
    np.testing.assert_array_equal(one.values, two.values)
    assert one.to_dict() == two.to_dict()
    assert one.games == 12 * n and one.values.shape == (12, n)
    # the Python arena plays the same games from the same bot seeds
    values, lengths = _python_arena(game, bots, 12, 4, True)
    np.testing.assert_array_equal(values, one.values)
    assert int(lengths.sum()) == one.actions


def test_arena_means_intervals_and_duplicate():
    game = tapete.load_game("cau_robat", players=3, hands_to_win=1)
    res = tapete.arena(game, ["random"] * 3, 40, seed=1)
    d = res.to_dict()
    assert json.loads(json.dumps(d)) == d
    assert d["games"] == 120 and d["deals"] == 40 and d["bots"] == ["random"] * 3
    np.testing.assert_allclose(res.mean, res.values.mean(axis=0))
    sd = res.values[:, 0].std(ddof=1)
    assert res.ci95[0] == pytest.approx(1.959963984540054 * sd / np.sqrt(40))
    diff, ci = res.difference(0, 1)
    assert abs(diff) <= 1 and ci >= 0
    # without duplicate, entry e plays seat e of each deal once
    single = tapete.arena(game, ["random"] * 3, 10, seed=1, duplicate=False)
    assert single.games == 10
    for d_ in range(10):
        state = game.new_initial_state(seed=1 + d_)
        bots = [tapete.bots.make("random", game, _core.bot_seed(1, d_, 0, e)) for e in range(3)]
        while not state.is_terminal():
            state.apply_action(bots[state.current_player()].choose(state))
        np.testing.assert_allclose(single.values[d_], state.returns())


def test_arena_with_a_python_bot():
    class Lowest:
        name = "lowest"

        def choose(self, state):
            return state.legal_actions()[0]

    res = tapete.arena(
        "cicera", [Lowest(), "random", "heuristic", "random"], 3, game_mode="single_hand"
    )
    assert res.bots == ["lowest", "random", "heuristic", "random"] and res.games == 12
    with pytest.raises(tapete.ConfigError, match="threads must be 1"):
        tapete.arena("cicera", [Lowest(), "random", "random", "random"], 3, threads=2)
    for threads in (True, 1.0):
        with pytest.raises(tapete.ConfigError, match="threads must be 1"):
            tapete.arena("cicera", [Lowest(), "random", "random", "random"], 3, threads=threads)
    # the specs beside a Python bot are checked as the native arena checks them, even for no deal
    with pytest.raises(tapete.ConfigError, match='unknown bot "bogus"'):
        tapete.arena("cicera", [Lowest(), "bogus", "random", "random"], 0)

    class Cheat:
        def choose(self, state):
            return 10**6

    with pytest.raises(tapete.IllegalActionError, match="not a legal action"):
        tapete.arena("cicera", [Cheat(), "random", "random", "random"], 1)

    class Meddler:
        name = "meddler"

        def choose(self, state):
            action = state.legal_actions()[0]
            state.apply_action(action)  # plays on the arena's game: caught at once
            return action

    with pytest.raises(tapete.IllegalActionError, match="bot meddler changed the state"):
        tapete.arena("cicera", ["random", Meddler(), "random", "random"], 1)


def test_arena_bad_arguments(tmp_path):
    for kwargs, match in [
        ({"bots": ["random"] * 3}, "one bot per seat"),
        ({"bots": "random"}, "sequence"),
        ({"bots": ["random", "random", "random", 5]}, "spec string"),
        ({"bots": ["random"] * 4, "games": -1}, "games"),
        ({"bots": ["random"] * 4, "threads": 0}, "threads"),
        ({"bots": ["random"] * 4, "seed": 2**64}, "seed"),
        ({"bots": ["random"] * 3 + ["ismcts:iterations=0"]}, "parameters"),
        ({"bots": ["random"] * 3 + ["ismcts:iterations=9,iterations=8"]}, "given twice"),
        ({"bots": ["random"] * 4, "no_option": 1}, "no_option"),
    ]:
        kwargs.setdefault("games", 2)
        with pytest.raises(tapete.ConfigError, match=match):
            tapete.arena("cicera", **kwargs)

    class Lowest:
        def choose(self, state):
            return state.legal_actions()[0]

    # The same bound on deals, natively, with records and with Python bots (which would
    # otherwise run on and fill the disk, or fail in numpy).
    most = tapete._core.ARENA_MAX_DEALS
    for games in (most + 1, 2**64, -1, True, 2.0):
        for bots, extra in [
            (["random"] * 4, {}),
            (["random"] * 4, {"records": tmp_path / "never.jsonl"}),
            (["random"] * 3 + [Lowest()], {}),
        ]:
            with pytest.raises(tapete.ConfigError, match=f"games must be an int 0..={most}"):
                tapete.arena("cicera", bots, games, **extra)
    assert not (tmp_path / "never.jsonl").exists()
    for seed in (-1, 2**64, 1.5):
        with pytest.raises(tapete.ConfigError, match="seed"):
            tapete.arena("cicera", [Lowest()] * 4, 1, seed=seed)

    class Everything:
        def choose(self, state):
            return np.array(state.legal_actions())

    with pytest.raises(tapete.IllegalActionError, match=r"chose array\(\[.*not a legal action"):
        tapete.arena("cicera", [Everything()] + ["random"] * 3, 1)
    # the native arena's deals may not run past the last deal index
    game = tapete.load_game("cicera")
    with pytest.raises(tapete.ConfigError, match="do not fit below 2"):
        tapete._core.arena(game, ["random"] * 4, 2**64 - 1, 2, 0, 1, True, False)


def test_arena_difference_names_its_entries():
    res = tapete.arena("cau_robat", ["heuristic", "random", "random"], 4, players=3)
    mean, half = res.difference(0, 1)
    assert mean == pytest.approx(res.mean[0] - res.mean[1]) and half > 0
    for a, b, error in [(0, 3, ValueError), (-1, 0, ValueError), (True, 1, TypeError)]:
        with pytest.raises(error, match="entr"):
            res.difference(a, b)


def test_arena_results_are_strict_json():
    """An interval of one deal and the means of none do not exist: None, not inf or NaN."""
    for games in (0, 1):
        d = tapete.arena("cau_robat", ["random"] * 4, games).to_dict()
        assert json.loads(json.dumps(d, allow_nan=False)) == d
        assert d["ci95"] == [None] * 4
    assert None not in tapete.arena("cau_robat", ["random"] * 4, 2).to_dict()["ci95"]
    # The difference of no deal does not exist either, and says so without numpy's warnings.
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        mean, ci = tapete.arena("cau_robat", ["random"] * 4, 0).difference(0, 1)
    assert math.isnan(mean) and ci == math.inf


# A strength smoke test per game: the heuristic beats random players on a few hundred duplicate
# deals (the full tables, IS-MCTS included, are benchmarks: README).
STRENGTH = {
    "spoil_five": ({}, ["heuristic", "random", "random", "random"], 200),
    "cicera": ({"game_mode": "single_hand"}, ["heuristic", "random", "heuristic", "random"], 60),
    "cau_robat": ({}, ["heuristic", "random", "random", "random"], 200),
    "cuajo": ({"hands_per_match": 1}, ["heuristic", "random", "heuristic", "random"], 40),
}


@pytest.mark.parametrize("name", sorted(STRENGTH))
def test_heuristic_beats_random(name):
    config, bots, deals = STRENGTH[name]
    res = tapete.arena(name, bots, deals, seed=0, threads=2, **config)
    diff, ci = res.difference(0, 1)
    assert diff - ci > 0, res.to_dict()
    assert res.mean[0] - res.ci95[0] > 0
