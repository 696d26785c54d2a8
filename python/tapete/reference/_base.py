"""What every reference model shares: argument checks and the generic parts of the contract.

The game modules (``spoil_five``, ``cicera``, ``cau_robat``) hold the rules of their game; what
does not depend on the rules lives here: integers that are not bools, seeds, decks, seats and
config values.
"""

from __future__ import annotations

import numbers
import operator
import secrets
from collections.abc import Sequence
from typing import Any

import numpy as np

from tapete.errors import ConfigError, ParseError
from tapete.reference.cards import Pack
from tapete.reference.rng import MASK64

__all__ = [
    "TERMINAL",
    "as_int",
    "boolean",
    "check_deck",
    "check_seed",
    "choice",
    "first_dealer",
    "int_in",
    "merge_config",
    "seat_name",
]

TERMINAL = -4  # ``current_player()`` once the game is over


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
        raise ConfigError(f"{key} must be an integer in {low}..{high}, got {value!r}")
    if not low <= number <= high:
        raise ConfigError(f"{key} must be in {low}..{high}, got {number}")
    return number


def choice(key: str, value: object, options: Sequence[str]) -> str:
    """``value`` if it is one of the strings ``options``, else ``ConfigError``."""
    if not isinstance(value, str) or value not in options:
        raise ConfigError(f"{key} must be one of {', '.join(map(repr, options))}, got {value!r}")
    return value


def boolean(key: str, value: object) -> bool:
    """``value`` if it is a bool (numpy's too), else ``ConfigError``."""
    if not isinstance(value, (bool, np.bool_)):
        raise ConfigError(f"{key} must be true or false, got {value!r}")
    return bool(value)


def first_dealer(value: object, n: int, seat: str | None = None) -> int | str:
    """The ``first_dealer`` option: ``"random"`` or a seat ``0..n-1``.

    ``seat`` words the seat in the error message (by default ``a seat 0..n-1``).
    """
    if isinstance(value, str):
        if value != "random":
            wanted = f"a seat 0..{n - 1}" if seat is None else seat
            raise ConfigError(f'first_dealer must be "random" or {wanted}, got {value!r}')
        return "random"
    return int_in("first_dealer", value, 0, n - 1)


# ----------------------------------------------------------------------------------------------
# Seeds and decks
# ----------------------------------------------------------------------------------------------


def check_seed(seed: object) -> int:
    """A seed in ``[0, 2**64)`` (a random one for ``None``); ``ConfigError`` otherwise."""
    if seed is None:
        return secrets.randbits(64)
    number = as_int(seed)
    if number is None or not 0 <= number <= MASK64:
        raise ConfigError(f"a seed must be an integer with 0 <= seed < 2**64, got {seed!r}")
    return number


def check_deck(deck: object, pack: Pack) -> list[int]:
    """Card ids of a whole ``pack`` in a given order, top card first (strings or ids)."""
    size = pack.num_kinds
    if isinstance(deck, (str, bytes)) or not isinstance(deck, Sequence):
        raise ConfigError(
            f"a deck must be a list of {size} card strings, top card first, got {deck!r}"
        )
    ids: list[int] = []
    for card in deck:
        number = as_int(card)
        if number is not None and 0 <= number < size:
            ids.append(number)
            continue
        try:
            ids.append(pack.parse(card))
        except ParseError as err:
            raise ConfigError(f"bad card in deck: {err}") from None
    if sorted(ids) != list(range(size)):
        raise ConfigError(f"a deck must hold each of the {size} cards exactly once")
    return ids
