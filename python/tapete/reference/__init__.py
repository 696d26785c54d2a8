"""tapete.reference: pure-Python reference models of the games, for differential tests.

Written from the rules documents only; clear rather than fast.  Same public contract as the
engine (``list_games``, ``load_game``, ``Game``/``State``), same card and action encodings and
the same RNG, so the same seed deals the same cards in both.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from tapete.errors import ConfigError
from tapete.reference._base import CHANCE, TERMINAL
from tapete.reference._text import shown
from tapete.reference.cau_robat import CauRobatGame
from tapete.reference.cicera import CiceraGame
from tapete.reference.cuajo import CuajoGame
from tapete.reference.spoil_five import SpoilFiveGame

__all__ = ["CHANCE", "TERMINAL", "list_games", "load_game"]

# One line per game: registry name -> constructor taking the config as keyword arguments.
_GAMES: dict[str, Callable[..., Any]] = {
    "spoil_five": SpoilFiveGame,
    "cicera": CiceraGame,
    "cau_robat": CauRobatGame,
    "cuajo": CuajoGame,
}


def list_games() -> list[str]:
    """Registry names of the games the reference model implements."""
    return list(_GAMES)


def load_game(name: str, /, **config: Any) -> Any:
    """A game by registry name; ``ConfigError`` for an unknown game or a bad config.

    ``explicit_chance=True`` gives states whose random events are chance nodes (``CHANCE`` to
    act, ``chance_outcomes()``), applied with ``apply_action`` like actions.
    """
    if not isinstance(name, str) or name not in _GAMES:
        raise ConfigError(f"unknown game {shown(name)} (expected one of: {', '.join(_GAMES)})")
    return _GAMES[name](**config)
