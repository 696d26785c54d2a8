"""OpenSpiel adapter: every tapete game as a pyspiel Python game ``tapete_<game>``.

``register()`` registers them; then ``pyspiel.load_game("tapete_cau_robat")`` (or with
parameters, ``pyspiel.load_game("tapete_spoil_five(players=5,jinking=False)")``) gives a
``pyspiel.Game`` whose states wrap tapete states with explicit chance nodes
(``load_game(..., explicit_chance=True)``). The games are sequential, imperfect-information,
explicitly stochastic, with terminal rewards; see docs/openspiel.md for the parameters, the
observations and ``resample_from_infostate``.

This module imports OpenSpiel; ``import tapete`` does not import it.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Mapping
from typing import Any, ClassVar

import numpy as np
import numpy.typing as npt

try:
    import pyspiel
except ImportError as error:  # pragma: no cover - exercised in a subprocess test
    raise ImportError(
        "tapete.openspiel needs OpenSpiel: pip install 'tapete[openspiel]'"
    ) from error

from tapete._core import Game, State, list_games, load_game
from tapete.errors import ConfigError, ParseError

__all__ = ["PREFIX", "UNSET", "Observer", "TapeteGame", "TapeteState", "register"]

#: The pyspiel name of tapete game ``g`` is ``PREFIX + g``.
PREFIX = "tapete_"

#: The value of an int parameter that leaves its option at tapete's default, for the options
#: whose default is not a fixed int: one computed from other options (``num_deals``: one deal
#: per player) or a word besides numbers (``first_dealer``: ``"random"`` or a seat).
UNSET = -1

# The config key that makes chance nodes explicit.
_EXPLICIT = "explicit_chance"

# Player counts probed for a game with a ``players`` option (as the CLI's ``tapete games``).
_PLAYER_PROBE = range(1, 13)

# The configs whose final returns do not sum to zero (every other config's do: docs/engine.md):
# under Spoil Five's ``leftover_pool = "unresolved"`` the chips left in the pool are dropped.
_NOT_ZERO_SUM: Mapping[str, Mapping[str, object]] = {"spoil_five": {"leftover_pool": "unresolved"}}

# Items of a list written with spaces instead of commas (game strings cannot hold commas):
# the whitespace between two items, not just after "[" or before "]".
_ITEM_GAP = re.compile(r"(?<=[^\[\s,:])\s+(?=[^\]\s,:])")


def _accepts(name: str, key: str, value: object) -> bool:
    try:
        load_game(name, **{key: value})
    except ConfigError:
        return False
    return True


def _spec(name: str) -> tuple[dict[str, Any], frozenset[str]]:
    """The pyspiel parameter specification of game ``name`` (every config key with its
    default, typed as pyspiel parameters are) and the keys whose ``UNSET`` means "default"."""
    spec: dict[str, Any] = {}
    unset: set[str] = set()
    for key, value in load_game(name).config().items():
        if key == _EXPLICIT:
            continue  # always on: pyspiel needs the chance nodes
        if isinstance(value, bool | float):
            spec[key] = value
        elif isinstance(value, int) and not _accepts(name, key, None):
            spec[key] = value
        elif isinstance(value, int) or (isinstance(value, str) and _accepts(name, key, 0)):
            # An int whose default is computed (``None``), or a word that also takes ints (its
            # only word then is the default, as ``first_dealer``'s "random").
            if _accepts(name, key, UNSET):
                raise RuntimeError(f"{name}: option {key} accepts {UNSET}, so it cannot mean unset")
            spec[key] = UNSET
            unset.add(key)
        else:
            spec[key] = _to_text(value)
    return spec, frozenset(unset)


def _to_text(value: object) -> str:
    """An option value as a pyspiel string parameter: a word as itself, anything else as JSON
    with spaces for commas (``[[0 2] [1 3]]``), so that game strings can hold it."""
    if isinstance(value, str):
        return value
    return json.dumps(value, separators=(" ", ":"))


def _from_text(text: str) -> object:
    """Inverse of `_to_text`; JSON with commas is accepted too, as on the command line."""
    for candidate in (text, _ITEM_GAP.sub(",", text.strip())):
        try:
            return json.loads(candidate)
        except (ValueError, RecursionError):  # not JSON, or nested past Python's stack
            continue
    return text


def _player_range(name: str, game: Game) -> tuple[int, int]:
    if "players" not in game.config():
        return game.num_players(), game.num_players()
    counts = [k for k in _PLAYER_PROBE if _accepts(name, "players", k)]
    return min(counts), max(counts)


def _zero_sum(name: str, config: Mapping[str, object]) -> bool:
    exceptions = _NOT_ZERO_SUM.get(name, {})
    return not any(config.get(key) == value for key, value in exceptions.items())


def _game_type(cls: type[TapeteGame], game: Game) -> Any:
    zero_sum = _zero_sum(cls.tapete_name, game.config())
    utility = pyspiel.GameType.Utility
    return pyspiel.GameType(
        short_name=PREFIX + cls.tapete_name,
        long_name="tapete " + cls.tapete_name.replace("_", " ").title(),
        dynamics=pyspiel.GameType.Dynamics.SEQUENTIAL,
        chance_mode=pyspiel.GameType.ChanceMode.EXPLICIT_STOCHASTIC,
        information=pyspiel.GameType.Information.IMPERFECT_INFORMATION,
        utility=utility.ZERO_SUM if zero_sum else utility.GENERAL_SUM,
        reward_model=pyspiel.GameType.RewardModel.TERMINAL,
        min_num_players=cls.player_range[0],
        max_num_players=cls.player_range[1],
        provides_information_state_string=True,
        provides_information_state_tensor=False,
        provides_observation_string=True,
        provides_observation_tensor=True,
        parameter_specification=cls.parameter_spec,
    )


class TapeteGame(pyspiel.Game):  # type: ignore[misc]
    """A tapete game as a pyspiel game; one subclass per tapete game (made by `register`).

    ``params`` are pyspiel parameters, one per config key (docs/openspiel.md says how each is
    written); a bad value raises `tapete.ConfigError`, an unknown or mistyped one pyspiel's
    ``SpielError``.
    """

    tapete_name: ClassVar[str]
    parameter_spec: ClassVar[dict[str, Any]]
    unset_keys: ClassVar[frozenset[str]]
    player_range: ClassVar[tuple[int, int]]

    def __init__(self, params: Mapping[str, Any] | None = None) -> None:
        given = dict(params or {})
        unknown = sorted(set(given) - set(self.parameter_spec))
        if unknown:
            raise ConfigError(f"{PREFIX}{self.tapete_name}: unknown parameter(s) {unknown}")
        config: dict[str, Any] = {}
        for key, value in given.items():
            if key in self.unset_keys and value == UNSET:
                continue
            config[key] = _from_text(value) if isinstance(value, str) else value
        game = load_game(self.tapete_name, **config, **{_EXPLICIT: True})
        if not game.min_utility() < game.max_utility():
            # OpenSpiel's checks (random_sim_test) want a range; a game without one is moot.
            raise ConfigError(
                f"{PREFIX}{self.tapete_name}: nothing can be won or lost with these parameters "
                f"(min_utility = max_utility = {game.max_utility()}); OpenSpiel needs "
                "min_utility < max_utility"
            )
        # Store the parameters as game strings can read them back (lists with spaces).
        canonical = {
            key: _to_text(_from_text(value)) if isinstance(value, str) else value
            for key, value in given.items()
        }
        info = pyspiel.GameInfo(
            num_distinct_actions=game.num_distinct_actions(),
            max_chance_outcomes=game.max_chance_outcomes(),
            num_players=game.num_players(),
            min_utility=game.min_utility(),
            max_utility=game.max_utility(),
            utility_sum=0.0 if _zero_sum(self.tapete_name, game.config()) else None,
            max_game_length=_max_decisions(self.tapete_name, config),
        )
        super().__init__(_game_type(type(self), game), info, canonical)
        self.tapete_game = game

    def new_initial_state(self) -> TapeteState:
        """The initial state (a chance node when the deal or the first dealer is random)."""
        return TapeteState(self)

    def deserialize_state(self, data: str) -> TapeteState:
        """pyspiel's own reading of ``data`` (what ``state.serialize()`` wrote), refusing a
        state of another tapete game or config, and one whose history or move number (which
        pyspiel keeps apart) is not its tapete state's: a `tapete.ParseError`. pyspiel unpickles
        the state, so never deserialize a text you do not trust."""
        state: TapeteState = super().deserialize_state(data)
        inner = getattr(state, "tapete_state", None)
        if not isinstance(inner, State) or inner.get_game() != self.tapete_game:
            what = inner.get_game() if isinstance(inner, State) else type(inner).__name__
            raise ParseError(
                f"the serialized state is not one of this game ({str(self)!r:.120}): it holds "
                f"one of {what!r:.120}"
            )
        # pyspiel keeps the history apart from the pickled tapete state: both must agree.
        ours, theirs, moves = inner.history(), list(state.history()), state.move_number()
        if theirs != ours:
            at = next((i for i, (a, b) in enumerate(zip(ours, theirs)) if a != b), None)
            raise ParseError(
                f"the serialized history ({len(theirs)} actions) is not that of its tapete "
                f"state ({len(ours)} actions)" + ("" if at is None else f": action {at} differs")
            )
        if moves != len(ours):
            raise ParseError(
                f"the serialized move number {moves} is not {len(ours)}, the history's"
            )
        return state

    def max_chance_nodes_in_history(self) -> int:
        """Not known: the engine gives no bound on the chance nodes of a game (pyspiel's own
        default, ``max_game_length()``, would be wrong: a Cau Robat hand has 36 decisions and
        41 chance nodes), so this raises ``NotImplementedError``, as do ``max_move_number()``
        and ``max_history_length()`` that add it."""
        raise NotImplementedError(
            f"{self.get_type().short_name}: the number of chance nodes is not bounded yet"
        )

    def __reduce__(self) -> tuple[Any, tuple[str]]:
        # By the game string, registering first: the unpickling process may not have yet.
        return _load, (str(self),)

    def make_py_observer(
        self, iig_obs_type: Any = None, params: Mapping[str, Any] | None = None
    ) -> Observer:
        """The observer of ``iig_obs_type`` (pyspiel's default observation when ``None``)."""
        if isinstance(iig_obs_type, Mapping):  # pyspiel passes only params when it has no type
            iig_obs_type, params = None, iig_obs_type
        return Observer(self, iig_obs_type, params)


def _max_decisions(name: str, config: Mapping[str, Any]) -> int:
    """The most decisions of one game: pyspiel's ``max_game_length`` counts no chance node."""
    return load_game(name, **config).max_game_length()


class TapeteState(pyspiel.State):  # type: ignore[misc]
    """A pyspiel state wrapping ``tapete_state``, a tapete `State` with explicit chance.

    ``returns()`` are all zero until the end (the reward model is terminal) and then the
    tapete state's returns.
    """

    def __init__(self, game: TapeteGame, tapete_state: State | None = None) -> None:
        super().__init__(game)
        if tapete_state is None:
            tapete_state = game.tapete_game.new_initial_state()
        self.tapete_state = tapete_state

    def current_player(self) -> int:
        """The seat to act, ``pyspiel.PlayerId.CHANCE`` or ``pyspiel.PlayerId.TERMINAL`` (the
        engine's ``tapete.CHANCE`` and ``tapete.TERMINAL`` have pyspiel's values)."""
        return self.tapete_state.current_player()

    def _legal_actions(self, player: int) -> list[int]:
        # pyspiel asks only for the seat to act (others have none; chance uses the outcomes).
        return self.tapete_state.legal_actions()

    def chance_outcomes(self) -> list[tuple[int, float]]:
        """The chance outcomes with their probabilities, ascending."""
        return self.tapete_state.chance_outcomes()

    def _apply_action(self, action: int) -> None:
        self.tapete_state.apply_action(action)

    def _action_to_string(self, player: int, action: int) -> str:
        return self.tapete_state.action_to_string(action)

    def is_terminal(self) -> bool:
        """Whether the game is over."""
        return self.tapete_state.is_terminal()

    def returns(self) -> list[float]:
        """Every seat's final return at the end, zeros before."""
        if self.tapete_state.is_terminal():
            return self.tapete_state.returns()
        return [0.0] * self.tapete_state.num_players()

    def resample_from_infostate(
        self, player_id: int, probability_sampler: Callable[[], float]
    ) -> TapeteState:
        """A state ``player_id`` cannot tell from this one, drawn uniformly among those
        consistent with what it has seen (tapete's ``resample_from_infostate``), as
        ``open_spiel.python.algorithms.ismcts`` asks for it.

        The engine's seed is one draw ``u`` of ``probability_sampler`` (a value in [0, 1],
        e.g. a ``pyspiel.UniformProbabilitySampler``): ``int(u * 2**53)``. A seeded sampler
        makes the resampling reproducible.
        """
        u = float(probability_sampler())
        if not 0.0 <= u <= 1.0:
            raise ValueError(f"the probability sampler returned {u}, not a value in [0, 1]")
        sampled = self.tapete_state.resample_from_infostate(player_id, int(u * 2**53))
        # Replay the history so that pyspiel's own record of it (history(), move_number())
        # is that of the new state, then keep the engine's state itself.
        state: TapeteState = self.get_game().new_initial_state()
        for action in sampled.history():
            state.apply_action(action)
        state.tapete_state = sampled
        return state

    def __str__(self) -> str:
        return str(self.tapete_state)

    def __reduce__(self) -> tuple[Any, tuple[str, str]]:
        return _load_state, (str(self.get_game()), self.serialize())


class Observer:
    """pyspiel's Python observer of a tapete game (see ``open_spiel.python.observation``).

    Two kinds, both of the observing seat's private and the public information: the default
    observation (``perfect_recall=False``) has tapete's observation tensor and string; the
    information state (``perfect_recall=True``) has tapete's information state string and no
    tensor.
    """

    def __init__(self, game: TapeteGame, iig_obs_type: Any, params: Mapping[str, Any] | None):
        if params:
            raise ValueError(f"observation parameters are not supported, got {dict(params)}")
        perfect_recall = False
        if iig_obs_type is not None:
            if not (
                iig_obs_type.public_info
                and iig_obs_type.private_info == pyspiel.PrivateInfoType.SINGLE_PLAYER
            ):
                raise ValueError(
                    "tapete games observe one seat's private and the public information "
                    "(public_info=True, private_info=SINGLE_PLAYER)"
                )
            perfect_recall = bool(iig_obs_type.perfect_recall)
        self.perfect_recall = perfect_recall
        self.tensor: npt.NDArray[np.float32] | None = None
        self.dict: dict[str, npt.NDArray[np.float32]] = {}
        if not perfect_recall:
            shape = game.tapete_game.observation_tensor_shape()
            self.tensor = np.zeros(int(np.prod(shape)), np.float32)
            self.dict["observation"] = self.tensor.reshape(shape)

    def set_from(self, state: TapeteState, player: int) -> None:
        """Write ``player``'s observation of ``state`` into ``tensor``; the information state
        has none to write (an error, as OpenSpiel's own games give, not an empty tensor)."""
        if self.tensor is None:
            raise pyspiel.SpielError(
                "tapete games have no information state tensor (provides_information_state_"
                "tensor=False): use information_state_string, or the observation tensor"
            )
        self.tensor[:] = state.tapete_state.observation_tensor(player).ravel()

    def string_from(self, state: TapeteState, player: int) -> str:
        """``player``'s information state string (perfect recall) or observation string."""
        if self.perfect_recall:
            return state.tapete_state.information_state_string(player)
        return state.tapete_state.observation_string(player)


def _load(game_string: str) -> TapeteGame:
    register()
    game: TapeteGame = pyspiel.load_game(game_string)
    return game


def _load_state(game_string: str, data: str) -> TapeteState:
    state: TapeteState = _load(game_string).deserialize_state(data)
    return state


_CLASSES: dict[str, type[TapeteGame]] = {}


def register() -> list[str]:
    """Register every tapete game with pyspiel as ``tapete_<game>`` and return those names.

    Calling it again is harmless. Each game is registered with its own `TapeteGame` subclass
    (a lambda factory can abort the interpreter at exit).
    """
    registered = set(pyspiel.registered_names())
    names = []
    for name in list_games():
        short_name = PREFIX + name
        if name not in _CLASSES:
            spec, unset = _spec(name)
            default = load_game(name)
            cls = type(
                name.title().replace("_", "") + "Game",
                (TapeteGame,),
                {
                    "__doc__": f"tapete's {name} as a pyspiel game ({short_name}).",
                    "__module__": __name__,
                    "tapete_name": name,
                    "parameter_spec": spec,
                    "unset_keys": unset,
                    "player_range": _player_range(name, default),
                },
            )
            _CLASSES[name] = cls
        if short_name not in registered:
            cls = _CLASSES[name]
            pyspiel.register_game(_game_type(cls, load_game(name)), cls)
        names.append(short_name)
    return names
