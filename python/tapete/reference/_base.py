"""What every reference model shares: argument checks and the generic parts of the contract.

The game modules (``spoil_five``, ``cicera``, ``cau_robat``, ``cuajo``) hold the rules of their
game; what does not depend on the rules lives here: the checks of integers, seeds, decks, seats
and config values, and the base classes ``ReferenceGame`` and ``ReferenceState`` with the methods
that only depend on the configuration, the seed, the decks and the history, and the chance nodes.

Chance (docs/engine.md, "Chance nodes").  Every random event of a game is a chance node: the
first dealer when it is random, and each card a deal takes from its deck, one at a time, in the
dealing order of the game's rules document.  A game asks for the next card with
``_await_card(then)`` and returns; the card comes back through the method named ``then``.  With
``explicit_chance`` the state stops there (``current_player() == CHANCE``) until
``apply_action(outcome)``; otherwise the card is the next one of the deal's seeded (or given)
deck, so both modes go through the same procedure and a seeded game's deck, read in dealing
order, is its sequence of chance outcomes.
"""

from __future__ import annotations

import copy
import json
import marshal
import operator
import secrets
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence, Set
from typing import Any, ClassVar, Generic, Self, TypeVar

import numpy as np
import numpy.typing as npt

from tapete.errors import ConfigError, IllegalActionError, ParseError
from tapete.reference._text import shown
from tapete.reference.cards import Pack
from tapete.reference.rng import MASK64, SplitMix64

__all__ = [
    "CHANCE",
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
CHANCE = -1  # ``current_player()`` at a chance node (explicit chance only)
_RESAMPLE_SALT = 0x5DEECE66D2545F49  # seed ^ salt seeds the sampler of resample_from_infostate


def _unique_keys(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    """A JSON object's fields, refusing a field given twice (which ``json`` would take last)."""
    out: dict[str, Any] = {}
    for key, value in pairs:
        if key in out:
            raise ValueError(f"duplicate field {shown(key)}")
        out[key] = value
    return out


def as_int(value: object) -> int | None:
    """``value`` as an int when it is an integer: an int or any type with ``__index__``
    (numpy's, a 0-d integer array), but not a bool; else ``None``."""
    if isinstance(value, (bool, np.bool_)):
        return None
    try:
        return operator.index(value)  # type: ignore[arg-type]
    except TypeError:
        return None


def seat_name(seat: int) -> str:
    """How events and pictures name a seat: ``P0``, ``P1``, ..."""
    return f"P{seat}"


# ----------------------------------------------------------------------------------------------
# Configuration values
# ----------------------------------------------------------------------------------------------


def merge_config(game: str, raw: dict[str, Any], defaults: dict[str, Any]) -> dict[str, Any]:
    """``raw`` over ``defaults``; ``ConfigError`` for a key ``defaults`` does not have."""
    for key in raw:
        if isinstance(key, str) and not key.isascii():
            try:
                key.encode("utf-8")
            except UnicodeEncodeError:
                raise ConfigError(f"a config key is not valid Unicode: {key!r}") from None
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


def in_order(items: object, what: str) -> list[Any]:
    """``items`` as a list, read in their order: any iterable but a string, a mapping or a set
    (no order to deal in); a ``ConfigError`` starting with ``what`` otherwise."""
    if isinstance(items, (str, bytes, Mapping, Set)) or not isinstance(items, Iterable):
        raise ConfigError(f"{what}, got {shown(items)}")
    return list(items)


def check_deck(deck: object, pack: Pack) -> list[int]:
    """Card ids of a whole ``pack`` given as card strings, top card first; a pack with copies
    (Cuajo's) holds each kind ``copies`` times. A bad deck's error names what is wrong."""
    size = len(pack.full_pack())
    cards = in_order(deck, f"a deck must be a list of {size} card strings, top card first")
    ids: list[int] = []
    for card in cards:
        if not isinstance(card, str):
            raise ConfigError(f"a card of a deck is a string, got {shown(card)}")
        try:
            ids.append(pack.parse(card))
        except ParseError as err:
            raise ConfigError(f"bad card in deck: {err}") from None
    if len(ids) != size:
        raise ConfigError(f"a deck must hold all {size} cards, got {len(ids)}")
    times = "once" if pack.copies == 1 else f"{pack.copies} times"
    have = Counter(ids)
    counts = [have[kind] for kind in range(pack.num_kinds)]
    if counts != [pack.copies] * pack.num_kinds:
        # the card there too often (a whole deck short of another card has one)
        kind = max(range(pack.num_kinds), key=counts.__getitem__)
        raise ConfigError(
            f"a deck must hold each card exactly {times}: "
            f"{pack.to_string(kind)} is there {counts[kind]} times"
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
    _max_chance_outcomes: ClassVar[int]  # number of distinct chance outcome ids

    def __init__(self, explicit_chance: object = False, **config: Any) -> None:
        self._explicit: bool = boolean("explicit_chance", explicit_chance)
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

    def max_chance_outcomes(self) -> int:
        """Chance outcome ids are ``0 .. max_chance_outcomes() - 1``: a card id (a kind in
        Cuajo), or the seat of the first dealer."""
        return self._max_chance_outcomes

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
        """Every config key with its effective value, ``explicit_chance`` included, so that
        ``load_game(name, **game.config())`` gives the same game."""
        cfg = copy.deepcopy(self._cfg)
        cfg["explicit_chance"] = self._explicit
        return cfg

    def new_initial_state(
        self,
        seed: int | None = None,
        deck: Sequence[str] | None = None,
        decks: Sequence[Sequence[str]] | None = None,
    ) -> StateT:
        """The state at the start of a game from ``seed`` (and given decks), as the engine's."""
        if deck is not None and decks is not None:
            raise ConfigError("give either deck or decks, not both")
        if self._explicit and (deck is not None or decks is not None):
            raise ConfigError(
                "with explicit_chance the cards are chance outcomes applied one at a time: "
                "no deck can be given"
            )
        given: list[list[int]] = []
        if deck is not None:
            given = [check_deck(deck, self._pack)]
        elif decks is not None:
            given = [
                check_deck(d, self._pack) for d in in_order(decks, "decks must be a list of decks")
            ]
        return self._new_state(check_seed(seed), given)

    def deserialize_state(self, data: str) -> StateT:
        """The state that ``serialize()`` wrote, replayed; ParseError otherwise."""
        if not isinstance(data, str):
            raise ParseError(f"a serialized state is a JSON string, got {type(data).__name__}")
        try:
            obj = json.loads(data, object_pairs_hook=_unique_keys)
        except RecursionError:
            raise ParseError("serialized state is not valid JSON: nested too deeply") from None
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
        if self._explicit and decks:
            raise ParseError(
                "serialized decks must be empty with explicit_chance (the cards dealt are "
                "chance outcomes in the history)"
            )
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
            and other._explicit == self._explicit
        )

    def __hash__(self) -> int:
        return hash((json.dumps(self._cfg, sort_keys=True), self._explicit))

    def _changed_config(self) -> dict[str, Any]:
        """The options ``repr`` shows: those that differ from their defaults."""
        return {k: v for k, v in self._cfg.items() if v != self._defaults[k]}

    def __repr__(self) -> str:
        changed = self._changed_config()
        if self._explicit:
            changed["explicit_chance"] = True
        args = "".join(f", {k}={v!r}" for k, v in changed.items())
        return f"load_game({self._name!r}{args})"  # as the engine's: the call that loads it


# ----------------------------------------------------------------------------------------------
# State
# ----------------------------------------------------------------------------------------------

_DEALER = "dealer"  # chance node kinds: the first dealer, the next card of the deal's deck
_CARD = "card"


class ReferenceState:
    """The parts of a state that do not depend on the rules.

    A game's state calls ``__init__`` first (it draws the first dealer when it is seeded), sets
    up its own fields and calls ``_begin``, which starts the first deal with ``_first_deal``
    (after the first dealer's chance node with explicit chance).  It implements the rules
    through ``_to_play``, ``_legal_actions``, ``_apply``, ``_action_string``,
    ``_string_action``, ``returns``, ``_view``, ``_observation_tensor``, ``_render_view``,
    ``_describe`` and ``_resample``; its deals take their cards with ``_draw_deck`` and
    ``_await_card`` (module docstring), and ``_dealable``, ``_deal_order`` and ``_sees_position``
    describe its chance nodes.
    """

    _game: ReferenceGame[Any]
    _unit: ClassVar[str] = "game"  # what is over at the end: "the game is over"

    def __init__(self, game: ReferenceGame[Any], seed: int, given_decks: list[list[int]]) -> None:
        self._game = game
        self._cfg: dict[str, Any] = game._cfg
        self._explicit = game._explicit
        self._n: int = game.num_players()
        self._seed = seed
        self._rng = SplitMix64(seed)
        self._given: list[list[int]] = [list(d) for d in given_decks]
        self._decks: list[list[int]] = []  # the deck of every deal so far
        self._history: list[int] = []
        self._events: list[tuple[int | None, str]] = []  # (seat that sees it or None, text)
        self._rewards: list[float] = [0.0] * self._n
        self._terminal = False
        # The chance node waiting for its outcome: its kind (None at a decision node) and, for
        # a card, the name of the method that takes it (a name, so that states deep-copy).
        self._chance: str | None = None
        self._then = ""
        self._sequence: list[int] = []  # the current deal's cards in dealing order (see _draw_deck)
        self._drawn = 0  # how many of them are dealt
        self._opened_at = 0  # length of the history when the current deal's deck was opened
        self._override: tuple[int, list[int]] | None = None  # replays: (deal, its outcomes)
        self._first_dealer: int | None = None
        if self._cfg["first_dealer"] != "random":
            self._first_dealer = int(self._cfg["first_dealer"])
        elif not self._explicit:
            self._first_dealer = self._rng.below(self._n)

    def _begin(self) -> None:
        """Start the match: the first dealer's chance node, or the first deal at once."""
        if self._first_dealer is None:
            self._chance = _DEALER
        else:
            self._first_deal(self._first_dealer)
        self._deal_known_cards()

    def _first_deal(self, dealer: int) -> None:
        """Start the first deal of the match with ``dealer``."""
        raise NotImplementedError

    def _event(self, seat: int | None, text: str) -> None:
        """Log ``text`` for the information state of ``seat`` (of everybody for ``None``)."""
        self._events.append((seat, text))

    # ---------------------------------------------------------------- chance ---------------

    def _draw_deck(self, index: int) -> list[int]:
        """Open the deck of deal ``index``, recorded in ``_decks``, and return it.

        Seeded: the deck is shuffled (``_shuffled_deck``) and its cards, in the game's dealing
        order (``_deal_order``), are the outcomes of the deal's chance nodes.  Explicit: nothing
        is drawn; the deck is the deal's dealt cards in dealing order followed by the cards not
        dealt yet in ascending order (a placeholder nobody sees), and each outcome moves its
        card to the end of the dealt part, so the deck is always a whole pack.
        """
        if self._explicit:
            deck = self._game._pack.full_pack()
            self._sequence = deck
        else:
            deck = self._shuffled_deck(index)
            self._sequence = self._deal_order(deck)
        self._decks.append(deck)
        self._drawn = 0
        self._opened_at = len(self._history)
        return deck

    def _shuffled_deck(self, index: int) -> list[int]:
        """The seeded deck of deal ``index``: the pack shuffled, replaced by a given deck."""
        deck = self._game._pack.full_pack()
        self._rng.shuffle(deck)  # always drawn, even when a deck is given
        if index < len(self._given):
            deck = list(self._given[index])
        return deck

    def _deal_order(self, deck: list[int]) -> list[int]:
        """A recorded deck's cards in the order the deal takes them (the deck itself)."""
        return deck

    def _await_card(self, then: str) -> None:
        """A chance node: the next card of the deal's deck goes to the method named ``then``.

        The caller returns right after: the card comes from the seeded deck as soon as the
        action under way is done, or from ``apply_action`` with explicit chance.
        """
        self._chance, self._then = _CARD, then

    def _dealable(self, undealt: list[int]) -> list[int]:
        """The cards of ``undealt`` (the deck's cards not dealt yet) the pending chance node
        may deal: all of them but in Cau Robat's table."""
        return undealt

    def _deal_known_cards(self) -> None:
        """Resolve the chance nodes whose outcome is known: every one when seeded."""
        while self._chance == _CARD and not self._explicit:
            self._resolve(self._sequence[self._drawn])

    def _resolve(self, outcome: int) -> None:
        """Apply a chance outcome (already checked) and everything that follows it."""
        kind, self._chance = self._chance, None
        if kind == _DEALER:
            self._first_dealer = outcome
            self._first_deal(outcome)
            return
        if self._explicit:  # move the card from the undealt part to the end of the dealt part
            seq = self._sequence
            seq.insert(self._drawn, seq.pop(seq.index(outcome, self._drawn)))
        self._drawn += 1
        getattr(self, self._then)(outcome)

    def is_chance_node(self) -> bool:
        """Whether the state waits for a chance outcome (never without explicit chance)."""
        return self._chance is not None

    def chance_outcomes(self) -> list[tuple[int, float]]:
        """``(outcome, probability)`` of the pending chance node, ascending outcome ids; empty
        at a decision node or a terminal state.

        A card is drawn uniformly from the cards of the deck not dealt yet that the node may
        deal, so a Cuajo kind has probability ``remaining copies / remaining cards``.
        """
        if self._chance == _DEALER:
            return [(seat, 1.0 / self._n) for seat in range(self._n)]
        if self._chance is None:
            return []
        counts = Counter(self._dealable(self._sequence[self._drawn :]))
        total = sum(counts.values())
        return [(card, counts[card] / total) for card in sorted(counts)]

    def _chance_string(self, outcome: object) -> str:
        if self._chance == _DEALER:
            a = as_int(outcome)
            if a is None or not 0 <= a < self._n:
                raise IllegalActionError(
                    f"a first dealer is a seat 0..{self._n - 1}, got {shown(outcome)}"
                )
            return f"dealer {a}"
        top = self._game.max_chance_outcomes() - 1
        a = as_int(outcome)
        if a is None or not 0 <= a <= top:
            raise IllegalActionError(f"chance outcome {shown(outcome)} is out of range 0..{top}")
        return f"deal {self._game._pack.to_string(a)}"

    def _chance_action(self, text: str) -> int:
        words = text.split()
        if self._chance == _DEALER:
            if (
                len(words) == 2
                and words[0].lower() == "dealer"
                and words[1] in {str(q) for q in range(self._n)}
            ):
                return int(words[1])
            raise ParseError(
                f"not an outcome of this chance node: {shown(text)} (expected 'dealer <seat>' "
                f"with a seat 0..{self._n - 1})"
            )
        if len(words) == 2 and words[0].lower() == "deal":
            return self._game._pack.parse(words[1])
        raise ParseError(
            f"not an outcome of this chance node: {shown(text)} (expected 'deal <card>')"
        )

    # ---------------------------------------------------------------- actions --------------

    def _to_play(self) -> int | None:
        """The seat to act, ``None`` once the game is over."""
        raise NotImplementedError

    def current_player(self) -> int:
        """The seat to act, ``CHANCE`` (-1) at a chance node, or ``TERMINAL`` (-4) once the
        game is over."""
        if self._chance is not None:
            return CHANCE
        to_play = self._to_play()
        return TERMINAL if to_play is None else to_play

    def is_terminal(self) -> bool:
        """Whether the game is over."""
        return self._terminal

    def legal_actions(self) -> list[int]:
        """The current player's actions, ascending; the possible outcomes at a chance node."""
        if self._chance is not None:
            return [outcome for outcome, _ in self.chance_outcomes()]
        return self._legal_actions()

    def _legal_actions(self) -> list[int]:
        """The legal actions of the seat to act (a decision node), ascending."""
        raise NotImplementedError

    def legal_actions_mask(self) -> npt.NDArray[np.bool_]:
        """``legal_actions()`` as a mask of ``num_distinct_actions`` entries (of
        ``max_chance_outcomes`` at a chance node, as in pyspiel)."""
        if self._chance is not None:
            size = self._game.max_chance_outcomes()
        else:
            size = self._game.num_distinct_actions()
        mask = np.zeros(size, dtype=np.bool_)
        for a in self.legal_actions():
            mask[a] = True
        return mask

    def _illegal_note(self) -> str:
        """Words after "is not legal now" in the error for an illegal action."""
        return ""

    def _check_action(self, action: object) -> int:
        if self._chance is not None:
            return self._check_outcome(action)
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
        ids = (
            self._game.max_chance_outcomes()
            if self._chance is not None
            else self._game.num_distinct_actions()
        )
        if a is None or not 0 <= a < ids:
            self._check_action(action)  # raises
        try:
            self._check_action(action)
        except IllegalActionError as error:
            return str(error)
        return None

    def _check_outcome(self, outcome: object) -> int:
        top = self._game.max_chance_outcomes() - 1
        a = as_int(outcome)
        if a is None:
            raise IllegalActionError(
                f"a chance outcome is an integer id 0..{top}, got {shown(outcome)}"
            )
        if self._chance == _DEALER:
            possible = 0 <= a < self._n
        else:
            possible = a in self._dealable(self._sequence[self._drawn :])
        if not possible:
            legal = self.legal_actions()
            try:
                what = self._chance_string(a)
            except IllegalActionError:
                what = "out of range"
            raise IllegalActionError(
                f"chance outcome {a} ({what}) is not possible now; possible: "
                + ", ".join(f"{x} ({self._chance_string(x)})" for x in legal)
            )
        return a

    def apply_action(self, action: int) -> None:
        """Apply a legal action of the current player, or an outcome at a chance node."""
        a = self._check_action(action)
        # Rewards count from zero: money paid in at the deal belongs to the first action, so
        # the rewards of a whole game add up to its returns.
        before = self.returns() if self._history else [0.0] * self._n
        self._history.append(a)
        if self._chance is not None:
            self._resolve(a)
        else:
            self._apply(a)
        self._deal_known_cards()
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
        """The canonical string of an action (of a chance outcome at a chance node:
        ``deal <card>``, or ``dealer <seat>`` for the first dealer)."""
        if self._chance is not None:
            return self._chance_string(action)
        return self._action_string(action)

    def _action_string(self, action: int) -> str:
        raise NotImplementedError

    def string_to_action(self, text: str) -> int:
        """The action (chance outcome at a chance node) a canonical string names."""
        if not isinstance(text, str):
            raise ParseError(f"an action string is expected, got {shown(text)}")
        if self._chance is not None:
            return self._chance_action(text)
        return self._string_action(text)

    def _string_action(self, text: str) -> int:
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
        """What ``player`` may know (everything for ``None``), JSON-ready.

        Before the first deal (the first dealer's chance node) nothing has happened yet: the
        view only names the game, the viewer, the players and the phase ``"chance"``.
        """
        viewer = None if player is None else self._check_seat(player)
        if self._chance == _DEALER:
            return {
                "game": self._game.name,
                "viewer": viewer,
                "players": self._n,
                "phase": "chance",
                "to_play": None,
                "dealer": None,
            }
        return self._view(viewer)

    def _view(self, viewer: int | None) -> dict[str, Any]:
        raise NotImplementedError

    def observation_tensor(self, player: int) -> npt.NDArray[np.float32]:
        """``player``'s observation tensor (all zeros before the first deal)."""
        seat = self._check_seat(player)
        if self._chance == _DEALER:
            return np.zeros(self._game.observation_tensor_shape(), dtype=np.float32)
        return self._observation_tensor(seat)

    def _observation_tensor(self, seat: int) -> npt.NDArray[np.float32]:
        raise NotImplementedError

    def _render_view(self, view: dict[str, Any]) -> str:
        """A readable picture of the table from a view."""
        raise NotImplementedError

    def _picture(self, view: dict[str, Any]) -> str:
        if self._chance == _DEALER:
            return f"{self._game.name}: the first dealer is to be drawn"
        return self._render_view(view)

    def observation_string(self, player: int) -> str:
        """The table as ``player`` sees it, as text."""
        return self._picture(self.view(self._check_seat(player)))

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
        return self._picture(self.view(None))

    def _describe(self) -> str:
        """The middle of ``repr``: where the game stands."""
        raise NotImplementedError

    def __repr__(self) -> str:
        where = "first dealer to draw" if self._chance == _DEALER else self._describe()
        return (
            f"<{type(self).__name__} {self._game!r} seed={self._seed} {where} "
            f"history={self._history}>"
        )

    # ---------------------------------------------------------------- copies, equality -----

    def clone(self) -> Self:
        """An independent copy of the state."""
        return copy.deepcopy(self)

    def __copy__(self) -> Self:
        return self.clone()  # a shallow copy would share the history and hands

    def _pending_decks(self) -> list[list[int]]:
        """The decks dealt so far, then the given decks still to come."""
        return self._decks + self._given[len(self._decks) :]

    def _key(self) -> tuple[Any, ...]:
        if self._explicit:  # the moves make the state: the seed and its RNG decide nothing
            return (self._game, self._history)
        return (self._game, self._seed, self._pending_decks(), self._rng.state, self._history)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, ReferenceState) and other._key() == self._key()

    __hash__ = None  # type: ignore[assignment]

    # ---------------------------------------------------------------- serialization --------

    def serialize(self) -> str:
        """The state as JSON that ``deserialize_state`` replays."""
        pack = self._game._pack
        # With explicit chance the dealt cards are outcomes in the history: no deck to record.
        decks = [] if self._explicit else self._pending_decks()
        return json.dumps(
            {
                "game": self._game.name,
                # explicit_chance only when on: seeded states serialize as before it existed
                "config": {
                    k: v
                    for k, v in self._game.config().items()
                    if k != "explicit_chance" or self._explicit
                },
                "seed": self._seed,
                "decks": [pack.format_many(deck) for deck in decks],
                "rng": self._rng.state,
                "history": self._history,
            },
            separators=(",", ":"),
        )

    # ---------------------------------------------------------------- determinisation ------

    def resample_from_infostate(self, player: int, seed: int) -> Self:
        """A state that ``player`` cannot tell from this one (docs/engine.md, Determinisation).

        The game's ``_resample`` says how the cards ``player`` has not seen are re-dealt; future
        deals come from a new generator seeded with ``seed``.  At a chance node of a deal no
        decision has been taken in yet, the hidden cards dealt so far are re-dealt here.
        """
        seat = self._check_seat(player)
        seed = check_seed(seed)
        sampler = SplitMix64(seed ^ _RESAMPLE_SALT)
        before = self._before_hidden_action(seat)
        if before is not None:
            # What ``seat`` sees is the state before that action: worlds come from there.
            state = before.resample_from_infostate(seat, seed)
        elif self._chance == _DEALER:
            state = self.clone()
        elif self._chance == _CARD and len(self._history) - self._opened_at == self._drawn:
            state = self._resample_deal(seat, sampler)
        else:
            state = self._resample(seat, sampler)
        state._rng = SplitMix64(seed)
        state._override = None
        return state

    def _before_hidden_action(self, seat: int) -> Self | None:
        """The state before the last action, replayed, if ``seat`` has not been shown that
        action yet and sees that state (another seat's Cuajo marker decision); else None."""
        return None

    def _resample(self, seat: int, sampler: SplitMix64) -> Self:
        """A state ``seat`` cannot tell from this one, drawn with ``sampler``."""
        raise NotImplementedError

    def _sees_position(self, seat: int, k: int) -> bool:
        """Whether ``seat`` sees the card at dealing position ``k`` of the current deal."""
        raise NotImplementedError

    def _resample_deal(self, seat: int, sampler: SplitMix64) -> Self:
        """During a deal nobody has acted in yet, ``seat`` has seen only its own cards and the
        face-up ones: the other dealt cards are a uniform draw, in order, from the cards it has
        not seen."""
        hidden = [k for k in range(self._drawn) if not self._sees_position(seat, k)]
        sequence = list(self._sequence)
        unseen = [sequence[k] for k in hidden] + sequence[self._drawn :]
        sampler.shuffle(unseen)
        for k, card in zip(hidden, unseen):
            sequence[k] = card
        return self._replayed(sequence)

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

    def _restarted(self, deck: list[int]) -> Self:
        """A new state of the same game and seed whose current deal will be dealt from
        ``deck`` (in dealing order with explicit chance, see ``_feed``); earlier deals as
        they were."""
        if not self._explicit:
            return type(self)(self._game, self._seed, self._decks[:-1] + [deck])
        state = type(self)(self._game, self._seed, [])
        state._override = (len(self._decks) - 1, self._deal_order(deck))
        return state

    def _overriding_card(self) -> int | None:
        """In a replay with explicit chance: the next card of the overridden deal, when the
        state waits for one."""
        override = self._override
        if override is None or self._chance != _CARD or len(self._decks) - 1 != override[0]:
            return None
        return override[1][self._drawn]

    def _feed(self) -> None:
        """In a replay with explicit chance: deal the overridden deal's cards while it waits for
        them (seeded, its deck is given and there is nothing to do)."""
        while (card := self._overriding_card()) is not None:
            self.apply_action(card)

    def _replayed(self, deck: list[int], upto: int | None = None) -> Self:
        """The history (its first ``upto`` actions) replayed with ``deck`` for the current deal
        (earlier deals as they were)."""
        state = self._restarted(deck)
        for action in self._history[:upto]:
            card = state._overriding_card()  # the new deck's card in place of the old one
            state.apply_action(action if card is None else card)
        return state
