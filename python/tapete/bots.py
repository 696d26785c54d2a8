"""Bots: the native ones (``random``, ``heuristic``, ``ismcts``) and the protocol any Python
object with ``choose(state) -> int`` meets (docs/bots.md)."""

from __future__ import annotations

from typing import Protocol, runtime_checkable

from tapete import _core
from tapete._core import Game, State

__all__ = ["Bot", "make", "names"]


@runtime_checkable
class Bot(Protocol):
    """Anything that picks a legal action for ``state.current_player()`` without changing
    ``state``."""

    def choose(self, state: State) -> int:
        """A legal action id for ``state.current_player()``; ``state`` is not changed."""
        ...


def names() -> list[str]:
    """The native bots' names."""
    return _core.bot_names()


def make(spec: str, game: Game, seed: int = 0) -> _core.Bot:
    """A native bot of ``game`` from a spec: ``"random"``, ``"heuristic"``, ``"ismcts"`` or
    ``"ismcts:iterations=1000,c=0.7,rollout=heuristic,threads=2"``.

    Its choices depend only on the spec, the seed and the states it is given. A bad spec is a
    `tapete.ConfigError` that lists the valid bots or parameters.
    """
    if not isinstance(game, Game):
        raise TypeError(f"game must be a tapete.Game, got {type(game).__name__}")
    return _core.make_bot(spec, game, seed)
