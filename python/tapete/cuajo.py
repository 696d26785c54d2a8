"""Cuajo evaluators: pure functions on card strings (rules: docs/rules/cuajo.md).

Cards are kinds such as ``"KO"`` (king of coins) or ``"3B"``; each kind has four identical
copies, so a hand may repeat a card up to four times. Results list cards in ascending id.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from tapete import _core

__all__ = ["arrangement", "best_arrangement", "distance", "is_complete", "waits"]


def is_complete(cards: Sequence[str]) -> bool:
    """Whether 16 cards (no declared secrets) split into combinations: sets of 3–4 suits,
    3-4-5 or J-H-K of one suit, four identical cards, single kings."""
    return _core.cuajo_is_complete(cards)


def arrangement(cards: Sequence[str]) -> list[list[str]] | None:
    """One split of 16 cards into combinations (each ascending, groups in ascending order),
    or ``None`` if the hand is not complete."""
    return _core.cuajo_arrangement(cards)


def best_arrangement(
    cards: Sequence[str], *, undeclared_quad_valid: bool = True, sowee_triple: str | None = None
) -> tuple[list[list[str]], list[str]]:
    """Any number of cards split so that as few as possible are left over: the combinations
    (ordered as by :func:`arrangement`) and the leftover cards, ascending. Nothing is left over
    exactly when the cards split completely. The options are the game's: four identical cards
    count only if ``undeclared_quad_valid``; ``sowee_triple`` names the sowee when its three
    undeclared copies count as a combination."""
    if not isinstance(undeclared_quad_valid, bool | np.bool_):
        raise TypeError(f"undeclared_quad_valid must be a bool, got {undeclared_quad_valid!r:.40}")
    return _core.cuajo_best_arrangement(
        cards, undeclared_quad_valid=undeclared_quad_valid, sowee_triple=sowee_triple
    )


def waits(cards: Sequence[str], sowee: str | None = None) -> list[str]:
    """The cards that would complete 15 cards, ascending, counting only copies still available
    to the holder (four of each kind, three of the sowee's)."""
    return _core.cuajo_waits(cards, sowee)


def distance(cards: Sequence[str]) -> int:
    """16 cards: fewest exchanges to a complete hand (0 = complete). 15 cards: one more than
    the fewest exchanges to a hand with waits (1 = it has waits)."""
    return _core.cuajo_distance(cards)
