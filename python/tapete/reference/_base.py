"""What every reference model shares: argument checks and the generic parts of the contract.

The game modules (``spoil_five``, ``cicera``, ``cau_robat``) hold the rules of their game; what
does not depend on the rules lives here: the checks of integers, seeds, decks, seats and config
values, and the base classes ``ReferenceGame`` and ``ReferenceState`` with the methods that only
depend on the configuration, the seed, the decks and the history.
"""

from __future__ import annotations

import copy
import json
import marshal
import numbers
import operator
import secrets
from collections.abc import Sequence
from typing import Any, ClassVar, Generic, Self, TypeVar

import numpy as np
import numpy.typing as npt

from tapete.errors import ConfigError, IllegalActionError, ParseError
from tapete.reference._text import shown
from tapete.reference.cards import Pack
from tapete.reference.rng import MASK64, SplitMix64

__all__ = [
    "json_copy",
    "ReferenceGame",
    "ReferenceState",
    "TERMINAL",
    "TensorBlocks",
    "as_int",
    "boolean",
    "check_deck",
    "check_seed",
    "choice",
    "first_dealer",
    "int_in",
    "merge_config",
    "seat_name",
    "shown",
    "uniform_assignment",
]


def json_copy(value: Any) -> Any:
    """A deep copy of JSON-ready data (dicts, lists, strings, numbers, None), as views hand out
    their history: marshal copies it in C, many times faster than ``copy.deepcopy``."""
    return marshal.loads(marshal.dumps(value))


TERMINAL = -4  # ``current_player()`` once the game is over
_RESAMPLE_SALT = 0x5DEECE66D2545F49  # seed ^ salt seeds the sampler of resample_from_infostate


def as_int(value: object) -> int | None:
    """``value`` as an int when it is an integer (a bool is not), else ``None``."""
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, numbers.Integral):
        return None
    return operator.index(value)


def seat_name(seat: int) -> str:
    """How events and pictures name a seat: ``P0``, ``P1``, ..."""
    return f"P{seat}"


# ----------------------------------------------------------------------------------------------
# Configuration values
# ----------------------------------------------------------------------------------------------


def merge_config(game: str, raw: dict[str, Any], defaults: dict[str, Any]) -> dict[str, Any]:
    """``raw`` over ``defaults``; ``ConfigError`` for a key ``defaults`` does not have."""
    unknown = sorted(str(k) for k in set(raw) - set(defaults))
    if unknown:
        raise ConfigError(
            f"unknown config key(s) for {game}: {', '.join(unknown)} "
            f"(expected some of: {', '.join(defaults)})"
        )
    return {**defaults, **raw}


def int_in(key: str, value: object, low: int, high: int) -> int:
    """``value`` if it is an integer in ``low..high``, else ``ConfigError``."""
    number = as_int(value)
    if number is None:
        raise ConfigError(f"{key} must be an integer in {low}..{high}, got {shown(value)}")
    if not low <= number <= high:
        raise ConfigError(f"{key} must be in {low}..{high}, got {number}")
    return number


def choice(key: str, value: object, options: Sequence[str]) -> str:
    """``value`` if it is one of the strings ``options``, else ``ConfigError``."""
    if not isinstance(value, str) or value not in options:
        raise ConfigError(
            f"{key} must be one of {', '.join(map(repr, options))}, got {shown(value)}"
        )
    return value


def boolean(key: str, value: object) -> bool:
    """``value`` if it is a bool (numpy's too), else ``ConfigError``."""
    if not isinstance(value, (bool, np.bool_)):
        raise ConfigError(f"{key} must be true or false, got {shown(value)}")
    return bool(value)


def first_dealer(value: object, n: int, seat: str | None = None) -> int | str:
    """The ``first_dealer`` option: ``"random"`` or a seat ``0..n-1``.

    ``seat`` words the seat in the error message (by default ``a seat 0..n-1``).
    """
    if isinstance(value, str):
        if value != "random":
            wanted = f"a seat 0..{n - 1}" if seat is None else seat
            raise ConfigError(f'first_dealer must be "random" or {wanted}, got {shown(value)}')
        return "random"
    return int_in("first_dealer", value, 0, n - 1)


def uniform_assignment(
    cards: Sequence[int],
    sizes: Sequence[int],
    allowed: Any,
    rng: SplitMix64,
    tries: int = 20_000,
) -> list[list[int]] | None:
    """``cards`` dealt into places of ``sizes``, uniformly among the deals in which
    ``allowed(card, place)`` holds for every card; ``None`` if ``tries`` draws all failed.

    Rejection sampling: shuffle, cut into the places, keep the deal if every card may be where
    it landed. Every fitting deal is equally likely to be the first kept.
    """
    order = list(cards)
    for _ in range(tries):
        rng.shuffle(order)
        places, at = [], 0
        for p, size in enumerate(sizes):
            chunk = order[at : at + size]
            if not all(allowed(card, p) for card in chunk):
                break
            places.append(chunk)
            at += size
        else:
            return places
    return None


# ----------------------------------------------------------------------------------------------
# Seeds and decks
# ----------------------------------------------------------------------------------------------


def check_seed(seed: object) -> int:
    """A seed in ``[0, 2**64)`` (a random one for ``None``); ``ConfigError`` otherwise."""
    if seed is None:
        return secrets.randbits(64)
    number = as_int(seed)
    if number is None or not 0 <= number <= MASK64:
        raise ConfigError(f"a seed must be an integer with 0 <= seed < 2**64, got {shown(seed)}")
    return number


def check_deck(deck: object, pack: Pack) -> list[int]:
    """Card ids of a whole ``pack`` in a given order, top card first (strings or ids); a pack
    with copies (Cuajo's) holds each kind ``copies`` times."""
    size = len(pack.full_pack())
    if isinstance(deck, (str, bytes)) or not isinstance(deck, Sequence):
        raise ConfigError(
            f"a deck must be a list of {size} card strings, top card first, got {shown(deck)}"
        )
    ids: list[int] = []
    for card in deck:
        number = as_int(card)
        if number is not None and 0 <= number < pack.num_kinds:
            ids.append(number)
            continue
        try:
            ids.append(pack.parse(card))
        except ParseError as err:
            raise ConfigError(f"bad card in deck: {err}") from None
    if sorted(ids) != pack.full_pack():
        times = "once" if pack.copies == 1 else f"{pack.copies} times"
        raise ConfigError(
            f"a deck must hold each of the {pack.num_kinds} cards exactly {times} "
            f"({size} cards, got {len(ids)})"
        )
    return ids


# ----------------------------------------------------------------------------------------------
# Observation tensors
# ----------------------------------------------------------------------------------------------


class TensorBlocks:
    """A flat float32 tensor written block after block, in the order of its layout."""

    def __init__(self, shape: tuple[int, ...]) -> None:
        self.out = np.zeros(shape, dtype=np.float32)
        self.pos = 0

    def block(self, size: int) -> int:
        """The index of the first of the next ``size`` entries."""
        start = self.pos
        self.pos += size
        return start

    def done(self) -> npt.NDArray[np.float32]:
        """The tensor, whose blocks must fill it exactly."""
        assert self.pos == self.out.shape[0]
        return self.out


# ----------------------------------------------------------------------------------------------
# Game
# ----------------------------------------------------------------------------------------------

StateT = TypeVar("StateT", bound="ReferenceState")


class ReferenceGame(Generic[StateT]):
    """The parts of a game that depend only on its configuration.

    A game sets the class attributes below and implements ``_validate`` and ``_new_state``, plus
    ``observation_tensor_shape`` and ``max_game_length`` (and ``num_players`` when the config
    has no ``players``).
    """

    _name: ClassVar[str]  # registry name
    _pack: ClassVar[Pack]  # the cards of a deck
    _defaults: ClassVar[dict[str, Any]]  # every config key with its default
    _num_actions: ClassVar[int]  # number of distinct action ids

    def __init__(self, **config: Any) -> None:
        self._cfg: dict[str, Any] = self._validate(dict(config))

    def _validate(self, raw: dict[str, Any]) -> dict[str, Any]:
        """The checked, complete configuration from keyword arguments (``ConfigError``)."""
        raise NotImplementedError

    def _new_state(self, seed: int, given: list[list[int]]) -> StateT:
        """A new state of the game from a checked seed and checked given decks."""
        raise NotImplementedError

    @property
    def name(self) -> str:
        """The registry name of the game."""
        return self._name

    def num_players(self) -> int:
        """The number of seats."""
        return int(self._cfg["players"])

    def num_distinct_actions(self) -> int:
        """The number of action ids."""
        return self._num_actions

    def observation_tensor_shape(self) -> tuple[int, ...]:
        """The shape of ``observation_tensor(seat)``."""
        raise NotImplementedError

    def max_game_length(self) -> int:
        """The most actions a game of this config can take."""
        raise NotImplementedError

    def _utility_bounds(self) -> tuple[float, float]:
        """The least and greatest final return of a seat (the game's rules page)."""
        raise NotImplementedError

    def min_utility(self) -> float:
        """The least return a seat can end a game with."""
        return self._utility_bounds()[0]

    def max_utility(self) -> float:
        """The greatest return a seat can end a game with."""
        return self._utility_bounds()[1]

    def config(self) -> dict[str, Any]:
        """Every config option with its effective value."""
        return copy.deepcopy(self._cfg)

    def new_initial_state(
        self,
        seed: int | None = None,
        deck: Sequence[str] | None = None,
        decks: Sequence[Sequence[str]] | None = None,
    ) -> StateT:
        """The state at the start of a game from ``seed`` (and given decks), as the engine's."""
        if deck is not None and decks is not None:
            raise ConfigError("give either deck or decks, not both")
        given: list[list[int]] = []
        if deck is not None:
            given = [check_deck(deck, self._pack)]
        elif decks is not None:
            if isinstance(decks, (str, bytes)) or not isinstance(decks, Sequence):
                raise ConfigError(f"decks must be a list of decks, got {shown(decks)}")
            given = [check_deck(d, self._pack) for d in decks]
        return self._new_state(check_seed(seed), given)

    def deserialize_state(self, data: str) -> StateT:
        """The state that ``serialize()`` wrote, replayed; ParseError otherwise."""
        if not isinstance(data, str):
            raise ParseError(f"a serialized state is a JSON string, got {type(data).__name__}")
        try:
            obj = json.loads(data)
        except ValueError as err:
            raise ParseError(f"serialized state is not valid JSON: {err}") from None
        keys = {"game", "config", "seed", "decks", "rng", "history"}
        if not isinstance(obj, dict) or set(obj) != keys:
            raise ParseError(
                "serialized state must be an object with keys game, config, seed, "
                "decks, rng, history"
            )
        if obj["game"] != self._name:
            raise ParseError(f"serialized state is not a {self._name} state: {shown(obj['game'])}")
        if not isinstance(obj["config"], dict):
            raise ParseError("serialized config must be an object")
        try:
            other = type(self)(**obj["config"])
        except ConfigError as err:
            raise ParseError(f"serialized config is invalid: {err}") from None
        if other != self:
            raise ParseError("serialized state belongs to a game with another configuration")
        seed, rng, history, decks = obj["seed"], obj["rng"], obj["history"], obj["decks"]
        for name, value in (("seed", seed), ("rng", rng)):
            number = as_int(value)
            if number is None or not 0 <= number <= MASK64:
                raise ParseError(f"serialized {name} must be an integer in [0, 2**64)")
        if not isinstance(history, list) or not all(as_int(a) is not None for a in history):
            raise ParseError("serialized history must be a list of action ids")
        if not isinstance(decks, list):
            raise ParseError("serialized decks must be a list of decks")
        try:
            given = [check_deck(deck, self._pack) for deck in decks]
        except ConfigError as err:
            raise ParseError(f"serialized deck is invalid: {err}") from None
        state = self._new_state(seed, given)
        for i, action in enumerate(history):
            try:
                state.apply_action(action)
            except IllegalActionError as err:
                raise ParseError(f"serialized history entry {i} is illegal: {err}") from None
        state._rng.state = rng
        return state

    def __eq__(self, other: object) -> bool:
        return (
            isinstance(other, ReferenceGame)
            and other._name == self._name
            and other._cfg == self._cfg
        )

    def __hash__(self) -> int:
        return hash(json.dumps(self._cfg, sort_keys=True))

    def _changed_config(self) -> dict[str, Any]:
        """The options ``repr`` shows: those that differ from their defaults."""
        return {k: v for k, v in self._cfg.items() if v != self._defaults[k]}

    def __repr__(self) -> str:
        args = ", ".join(f"{k}={v!r}" for k, v in self._changed_config().items())
        return f"{type(self).__name__}({args})"


# ----------------------------------------------------------------------------------------------
# State
# ----------------------------------------------------------------------------------------------


class ReferenceState:
    """The parts of a state that do not depend on the rules.

    A game's state calls ``__init__`` first (it draws the first dealer) and then deals; it
    implements the rules through ``_to_play``, ``legal_actions``, ``_apply``,
    ``action_to_string``, ``string_to_action``, ``returns``, ``view``, ``observation_tensor``,
    ``_render_view`` and ``_resample``.
    """

    _game: ReferenceGame[Any]
    _unit: ClassVar[str] = "game"  # what is over at the end: "the game is over"

    def __init__(self, game: ReferenceGame[Any], seed: int, given_decks: list[list[int]]) -> None:
        self._game = game
        self._cfg: dict[str, Any] = game._cfg
        self._n: int = game.num_players()
        self._seed = seed
        self._rng = SplitMix64(seed)
        self._given: list[list[int]] = [list(d) for d in given_decks]
        self._decks: list[list[int]] = []  # the deck of every deal so far
        self._history: list[int] = []
        self._events: list[tuple[int | None, str]] = []  # (seat that sees it or None, text)
        self._rewards: list[float] = [0.0] * self._n
        self._terminal = False
        if self._cfg["first_dealer"] == "random":
            self._first_dealer = self._rng.below(self._n)
        else:
            self._first_dealer = int(self._cfg["first_dealer"])

    def _draw_deck(self, index: int) -> list[int]:
        """The deck of deal ``index`` (a given one, else shuffled), recorded in ``_decks``."""
        deck = self._game._pack.full_pack()
        self._rng.shuffle(deck)  # always drawn, even when a deck is given
        if index < len(self._given):
            deck = list(self._given[index])
        self._decks.append(deck)
        return deck

    def _event(self, seat: int | None, text: str) -> None:
        """Log ``text`` for the information state of ``seat`` (of everybody for ``None``)."""
        self._events.append((seat, text))

    # ---------------------------------------------------------------- actions --------------

    def _to_play(self) -> int | None:
        """The seat to act, ``None`` once the game is over."""
        raise NotImplementedError

    def current_player(self) -> int:
        """The seat to act, or ``TERMINAL`` (-4) once the game is over."""
        to_play = self._to_play()
        return TERMINAL if to_play is None else to_play

    def is_terminal(self) -> bool:
        """Whether the game is over."""
        return self._terminal

    def legal_actions(self) -> list[int]:
        """The legal action ids, ascending."""
        raise NotImplementedError

    def legal_actions_mask(self) -> npt.NDArray[np.bool_]:
        """A bool array: True for each legal action."""
        mask = np.zeros(self._game.num_distinct_actions(), dtype=np.bool_)
        for a in self.legal_actions():
            mask[a] = True
        return mask

    def _illegal_note(self) -> str:
        """Words after "is not legal now" in the error for an illegal action."""
        return ""

    def _check_action(self, action: object) -> int:
        top = self._game.num_distinct_actions() - 1
        a = as_int(action)
        if a is None:
            raise IllegalActionError(f"an action is an integer id 0..{top}, got {shown(action)}")
        if not 0 <= a <= top:
            raise IllegalActionError(f"action id {shown(a)} is out of range 0..{top}")
        if self._terminal:
            raise IllegalActionError(f"the {self._unit} is over; no action is legal (got {a})")
        legal = self.legal_actions()
        if a not in legal:
            raise IllegalActionError(
                f"action {a} ({self.action_to_string(a)}) is not legal now{self._illegal_note()}; "
                "legal: " + ", ".join(f"{x} ({self.action_to_string(x)})" for x in legal)
            )
        return a

    def explain_illegal(self, action: int) -> str | None:
        """Why ``action`` is not legal now (the message ``apply_action`` would raise), ``None``
        when it is legal; an action that is no id at all is an IllegalActionError, as in the
        engine."""
        a = as_int(action)
        if a is None or not 0 <= a < self._game.num_distinct_actions():
            self._check_action(action)  # raises
        try:
            self._check_action(action)
        except IllegalActionError as error:
            return str(error)
        return None

    def apply_action(self, action: int) -> None:
        """Applies a legal action id; IllegalActionError (state unchanged) otherwise."""
        a = self._check_action(action)
        # Rewards count from zero: money paid in at the deal belongs to the first action, so
        # the rewards of a whole game add up to its returns.
        before = self.returns() if self._history else [0.0] * self._n
        self._history.append(a)
        self._apply(a)
        self._rewards = [after - b for after, b in zip(self.returns(), before)]

    def _apply(self, action: int) -> None:
        """Play the legal ``action`` (already in the history) and all that follows it."""
        raise NotImplementedError

    def _action_id(self, action: object) -> int:
        """``action`` as an action id; ``IllegalActionError`` if it is none."""
        top = self._game.num_distinct_actions() - 1
        a = as_int(action)
        if a is None or not 0 <= a <= top:
            raise IllegalActionError(f"action id {shown(action)} is out of range 0..{top}")
        return a

    def action_to_string(self, action: int) -> str:
        """The canonical text of an action id."""
        raise NotImplementedError

    def string_to_action(self, text: str) -> int:
        """The action id of an action text; ParseError otherwise."""
        raise NotImplementedError

    def history(self) -> list[int]:
        """The action ids applied so far."""
        return list(self._history)

    def returns(self) -> list[float]:
        """Every seat's return so far."""
        raise NotImplementedError

    def rewards(self) -> list[float]:
        """Every seat's reward for the last action."""
        return list(self._rewards)

    # ---------------------------------------------------------------- observations ---------

    def _check_seat(self, player: object) -> int:
        seat = as_int(player)
        if seat is None or not 0 <= seat < self._n:
            raise ValueError(f"seat must be an integer in 0..{self._n - 1}, got {shown(player)}")
        return seat

    def view(self, player: int | None = None) -> dict[str, Any]:
        """A JSON-ready dict of what ``player`` may know (None: everything)."""
        raise NotImplementedError

    def observation_tensor(self, player: int) -> npt.NDArray[np.float32]:
        """What ``player`` may know, as a float32 array."""
        raise NotImplementedError

    def _render_view(self, view: dict[str, Any]) -> str:
        """A readable picture of the table from a view."""
        raise NotImplementedError

    def observation_string(self, player: int) -> str:
        """The table as ``player`` sees it, as text."""
        return self._render_view(self.view(self._check_seat(player)))

    def information_state_string(self, player: int) -> str:
        """Everything ``player`` has seen, in order (perfect recall)."""
        seat = self._check_seat(player)
        lines = [
            f"{self._game.name} {json.dumps(self._cfg, sort_keys=True, separators=(',', ':'))}",
            f"seat {seat}",
        ]
        lines += [text for who, text in self._events if who is None or who == seat]
        return "\n".join(lines)

    def __str__(self) -> str:
        return self._render_view(self.view(None))

    # ---------------------------------------------------------------- copies, equality -----

    def clone(self) -> Self:
        """An independent copy of the state."""
        return copy.deepcopy(self)

    def _pending_decks(self) -> list[list[int]]:
        """The decks dealt so far, then the given decks still to come."""
        return self._decks + self._given[len(self._decks) :]

    def _key(self) -> tuple[Any, ...]:
        return (self._game, self._seed, self._pending_decks(), self._rng.state, self._history)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, ReferenceState) and other._key() == self._key()

    __hash__ = None  # type: ignore[assignment]

    # ---------------------------------------------------------------- serialization --------

    def serialize(self) -> str:
        """The state as JSON that ``deserialize_state`` replays."""
        pack = self._game._pack
        return json.dumps(
            {
                "game": self._game.name,
                "config": self._cfg,
                "seed": self._seed,
                "decks": [pack.format_many(deck) for deck in self._pending_decks()],
                "rng": self._rng.state,
                "history": self._history,
            },
            separators=(",", ":"),
        )

    # ---------------------------------------------------------------- determinisation ------

    def resample_from_infostate(self, player: int, seed: int) -> Self:
        """A state that ``player`` cannot tell from this one (docs/engine.md, Determinisation).

        The game's ``_resample`` says how the cards ``player`` has not seen are re-dealt; future
        deals come from a new generator seeded with ``seed``.
        """
        seat = self._check_seat(player)
        seed = check_seed(seed)
        state = self._resample(seat, SplitMix64(seed ^ _RESAMPLE_SALT))
        state._rng = SplitMix64(seed)
        return state

    def _resample(self, seat: int, sampler: SplitMix64) -> Self:
        """A state ``seat`` cannot tell from this one, drawn with ``sampler``."""
        raise NotImplementedError

    def _seen_by(self, seat: int) -> tuple[Any, ...]:
        """Everything ``seat`` observes: a resampled world must give exactly the same.

        Its view, information state and tensor, whether it is to act, and then what it may do.
        """
        to_act = self.current_player() == seat
        return (
            self.view(seat),
            self.information_state_string(seat),
            self.observation_tensor(seat).tobytes(),
            to_act,
            self.legal_actions() if to_act else None,
        )

    def _replayed(self, deck: list[int]) -> Self:
        """The history replayed with ``deck`` for the current deal (earlier deals as they were)."""
        state = type(self)(self._game, self._seed, self._decks[:-1] + [deck])
        for action in self._history:
            state.apply_action(action)
        return state
