"""Hostile input never crashes: every public call, given any argument, either works or raises a
``tapete`` error (or the plain ``ValueError``/``TypeError`` the contract names), says briefly
what was wrong, and leaves the state as it was. A Rust panic reaching Python
(``pyo3_runtime.PanicException``, a ``BaseException``) is always a bug.

The property tests run on both implementations; ``Game.play_random`` only exists in the engine.
"""

import json
import re

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import tapete
from tapete.errors import ConfigError, IllegalActionError, ParseError, TapeteError

ALLOWED = (TapeteError, ValueError, TypeError)

# Anything a caller might pass: every JSON-like value, huge and negative integers, bools,
# floats (nan, inf), strings with lone surrogates, bytes, numpy scalars, nested containers.
scalars = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(min_value=-(2**70), max_value=2**70),
    st.sampled_from([0, 1, -1, 2**63, 2**64, 2**64 - 1, 10**10, 2**61]),
    st.floats(allow_nan=True, allow_infinity=True),
    st.text(max_size=20),
    st.sampled_from(["\ud800", "play \udfff", "AS", "10D", "x" * 500, "", " ", "1O", "KB"]),
    st.binary(max_size=8),
    st.sampled_from([np.int64(3), np.bool_(True), np.float32(1.5), np.uint8(255)]),
)
hostile = st.recursive(
    scalars,
    lambda inner: st.one_of(
        st.lists(inner, max_size=4),
        st.tuples(inner, inner),
        st.dictionaries(st.text(max_size=5), inner, max_size=3),
    ),
    max_leaves=8,
)

SETTINGS = settings(
    max_examples=60,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)

STATE_CALLS = [
    ("apply_action", 1),
    ("action_to_string", 1),
    ("string_to_action", 1),
    ("observation_tensor", 1),
    ("observation_string", 1),
    ("information_state_string", 1),
    ("view", 1),
    ("resample_from_infostate", 2),
]


def mid_game_state(impl, name):
    state = impl.load_game(name).new_initial_state(3)
    for _ in range(7):
        state.apply_action(state.legal_actions()[len(state.legal_actions()) // 2])
    return state


def calls(fn, *args, **kwargs):
    """Calls ``fn``; any exception must be one the contract allows, with a short message."""
    try:
        fn(*args, **kwargs)
    except ALLOWED as e:
        assert len(str(e)) < 2500, f"message of {len(str(e))} characters"
    except BaseException as e:  # PanicException, RecursionError, OverflowError, ...
        raise AssertionError(f"{fn.__name__}{args!r:.80} raised {type(e).__name__}: {e}") from e


@pytest.mark.parametrize("name", ["spoil_five", "cicera", "cau_robat", "cuajo"])
@pytest.mark.parametrize("method", [m for m, _ in STATE_CALLS])
@SETTINGS
@given(args=st.lists(hostile, min_size=2, max_size=2))
def test_state_calls_with_hostile_arguments(impl, name, method, args):
    state = mid_game_state(impl, name)
    before = state.serialize()
    arity = dict(STATE_CALLS)[method]
    calls(getattr(state, method), *args[:arity])
    if method != "apply_action" or state.serialize() != before:
        # Only a legal apply_action may change the state.
        assert method == "apply_action" or state.serialize() == before


@pytest.mark.parametrize("name", ["spoil_five", "cicera", "cau_robat", "cuajo"])
def test_numpy_integers_are_action_ids(impl, name):
    """An action id of any integer type (numpy's, as `VectorEnv.random_actions` gives them) is
    the id; numpy's bools and floats are not ids."""
    state = mid_game_state(impl, name)
    a = state.legal_actions()[0]
    illegal = next(
        x for x in range(len(state.legal_actions_mask())) if x not in state.legal_actions()
    )
    for kind in (np.int64, np.uint8, np.int32):
        assert state.action_to_string(kind(a)) == state.action_to_string(a)
        assert state.explain_illegal(kind(a)) is None
        assert state.explain_illegal(kind(illegal)) == state.explain_illegal(illegal)
    for bad in (np.bool_(True), np.float64(a), np.float32(a)):
        with pytest.raises(tapete.IllegalActionError):
            state.apply_action(bad)
    child = state.clone()
    child.apply_action(np.int64(a))
    state.apply_action(a)
    assert child == state


def test_integer_types_the_two_implementations_share(impl):
    """Any integer type with ``__index__`` (numpy's scalars, a 0-d integer array) is an
    action id and a seed on both implementations (the engine refused numpy seeds, the
    reference 0-d arrays as actions); bools are neither."""
    game = impl.load_game("cicera")
    assert game.new_initial_state(np.int64(5)) == game.new_initial_state(5)
    state = game.new_initial_state(np.uint64(5))
    world = state.resample_from_infostate(0, np.uint32(7))
    assert world == state.resample_from_infostate(0, 7)
    child = state.clone()
    child.apply_action(np.array(state.legal_actions()[0]))
    state.apply_action(state.legal_actions()[0])
    assert child == state
    for bad in (True, np.bool_(True), 5.0, np.array([3])):
        with pytest.raises(tapete.ConfigError):
            game.new_initial_state(bad)


def test_numbers_in_action_names_are_plain(impl):
    """Rank tokens and seats are written without sign or leading zero; the engine read
    "play +1" and "play 012" with Rust's number parsing."""
    state = impl.load_game("cau_robat").new_initial_state(1)
    assert state.action_to_string(state.string_to_action("play 12")) == "play 12"
    for text in ("play +1", "play 012", "play 01", "play 1.0"):
        with pytest.raises(tapete.ParseError):
            state.string_to_action(text)
    chance = impl.load_game("cau_robat", explicit_chance=True).new_initial_state(1)
    assert chance.string_to_action("dealer 1") == 1
    for text in ("dealer +1", "dealer 01"):
        with pytest.raises(tapete.ParseError):
            chance.string_to_action(text)
    with pytest.raises(tapete.IllegalActionError, match=r"out of range 0\.\.9\b"):
        state.apply_action(10)


def test_a_bad_deck_names_the_card(impl):
    game = impl.load_game("cau_robat")
    deck = json.loads(game.new_initial_state(seed=1).serialize())["decks"][0]
    with pytest.raises(tapete.ConfigError, match=re.escape(deck[0])):
        game.new_initial_state(seed=1, deck=[*deck[:-1], deck[0]])  # deck[0] twice
    with pytest.raises(tapete.ConfigError, match="got 5"):
        game.new_initial_state(seed=1, deck=[*deck[:-1], 5])


@pytest.mark.parametrize("name", ["spoil_five", "cicera", "cau_robat", "cuajo"])
@SETTINGS
@given(seed=hostile, deck=hostile, data=hostile, key=st.text(max_size=12), value=hostile)
def test_game_calls_with_hostile_arguments(impl, name, seed, deck, data, key, value):
    game = impl.load_game(name)
    calls(game.new_initial_state, seed)
    calls(game.new_initial_state, 1, deck)
    calls(game.deserialize_state, data)
    calls(impl.load_game, name, **{key: value})
    calls(impl.load_game, value)
    option = next(iter(game.config()))
    calls(impl.load_game, name, **{option: value})


@SETTINGS
@given(args=st.lists(hostile, min_size=3, max_size=3))
def test_evaluators_with_hostile_arguments(impl, args):
    a, b, c = args
    ev = impl if impl is tapete else __import__("tapete.reference", fromlist=["x"])
    calls(ev.spoil_five.trump_order, a)
    calls(ev.spoil_five.trick_winner, a, b)
    calls(ev.spoil_five.legal_plays, a, b, c)
    calls(ev.cicera.captures, a, b)
    calls(ev.cicera.score_hand, a, b)
    calls(ev.cau_robat.run, a, b)
    calls(ev.cuajo.is_complete, a)
    calls(ev.cuajo.arrangement, a)
    calls(ev.cuajo.waits, a, b)


@settings(max_examples=150, deadline=None)
@given(games=hostile, seed=hostile, threads=hostile)
def test_play_random_with_hostile_arguments(games, seed, threads):
    game = tapete.load_game("cau_robat")
    if isinstance(games, int) and not isinstance(games, bool) and 0 <= games <= 20:
        games += 10**10  # never run a big valid request: only its refusal is under test
    calls(game.play_random, games, seed, threads)


@pytest.mark.parametrize(
    ("games", "seed", "threads"),
    [
        (10**10, 0, 1),  # used to abort the interpreter allocating the output
        (2**61, 0, 1),  # used to panic: capacity overflow
        (-1, 0, 1),
        (2**64, 0, 1),
        (True, 0, 1),
        (3, True, 1),
        (3, -1, 1),
        (3, 2**64, 1),
        (3, 0, 0),
        (3, 0, -2),
        (3, 0, True),
        (3, 0, 10**6),
        ("3", 0, 1),
        (3.0, 0, 1),
    ],
)
def test_play_random_refuses_bad_arguments(games, seed, threads):
    game = tapete.load_game("spoil_five")
    with pytest.raises(ConfigError):
        game.play_random(games, seed, threads)
    # keywords and defaults still work
    returns, lengths = game.play_random(2, seed=5, threads=2)
    assert returns.shape == (2, 4) and lengths.shape == (2,)


def test_numpy_scalars_are_config_values(impl):
    plain = impl.load_game("spoil_five", players=5, jinking=False, base_stake=2)
    numpy = impl.load_game(
        "spoil_five", players=np.int64(5), jinking=np.bool_(False), base_stake=np.uint16(2)
    )
    assert numpy.config() == plain.config()
    assert impl.load_game("cau_robat", players=np.int32(3)).num_players() == 3
    with pytest.raises(ConfigError):
        impl.load_game("spoil_five", players=np.float64(4.5))


def test_deeply_nested_config_values(impl):
    deep: list = []
    for _ in range(5000):
        deep = [deep]
    with pytest.raises(ConfigError):
        impl.load_game("spoil_five", partnerships=deep)


@pytest.mark.parametrize("name", ["spoil_five", "cicera", "cau_robat", "cuajo"])
def test_lone_surrogates(impl, name):
    game = impl.load_game(name)
    state = game.new_initial_state(1)
    text = state.serialize()
    with pytest.raises(ParseError):
        game.deserialize_state(text[:-2] + '"\ud800"}')
    with pytest.raises(ParseError):
        game.deserialize_state("\ud800")
    with pytest.raises(ParseError):
        state.string_to_action("play \ud800")
    with pytest.raises(ConfigError):
        impl.load_game("\ud800")
    # a config key that is no valid Unicode is named escaped: the message can be printed
    with pytest.raises(ConfigError, match=r"a config key is not valid Unicode: '\\ud800'") as e:
        impl.load_game(name, **{"\ud800": 1})
    str(e.value).encode("utf-8")
    assert state.serialize() == text


@pytest.mark.parametrize("name", ["spoil_five", "cicera", "cau_robat", "cuajo"])
def test_serialized_config_must_be_an_object(impl, name):
    game = impl.load_game(name)
    state = game.new_initial_state(1)
    data = json.loads(state.serialize())
    data["config"] = list(data["config"].values())  # positional values, no names
    with pytest.raises(ParseError):
        game.deserialize_state(json.dumps(data))
    data["config"] = "players=4"
    with pytest.raises(ParseError):
        game.deserialize_state(json.dumps(data))
    if impl is tapete:  # what unpickling a state calls
        with pytest.raises(ParseError):
            tapete._core._state_from_json(json.dumps(data))


@pytest.mark.parametrize("name", ["spoil_five", "cicera", "cau_robat", "cuajo"])
def test_long_inputs_are_cut_in_messages(impl, name):
    game = impl.load_game(name)
    state = game.new_initial_state(1)
    huge = "x" * 100_000
    for fn, arg, cls in [
        (state.string_to_action, huge, ParseError),
        (state.string_to_action, "play " + huge, ParseError),
        (game.deserialize_state, huge, ParseError),
        (impl.load_game, huge, ConfigError),
        (game.new_initial_state, [huge] * 1000, ConfigError),
        (state.apply_action, 10**5000, IllegalActionError),
    ]:
        with pytest.raises(cls) as info:
            fn(arg)
        assert len(str(info.value)) < 400, (fn.__name__, len(str(info.value)))
