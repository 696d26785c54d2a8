"""Cicera evaluators: pure functions on card strings (rules: docs/rules/cicera.md)."""

from __future__ import annotations

from collections.abc import Sequence

from tapete import _core

__all__ = ["captures", "score_hand"]


def captures(table: Sequence[str], card: str, force_single_match: bool = False) -> list[list[str]]:
    """Every capture set of ``card`` on ``table``: each set ascending by card id, the sets in
    lexicographic order (by default no single-card priority; ``force_single_match`` as the
    option of that name). Empty: ``card`` can only trail.
    """
    return _core.cicera_captures(table, card, force_single_match)


def score_hand(team0: Sequence[str], team1: Sequence[str]) -> dict[str, list[int]]:
    """End-of-hand points of two piles by category (default options, no bonus points):
    ``cards``, ``spades``, ``two_of_spades``, ``napola``, ``ten_of_diamonds``,
    ``jack_of_hearts`` and ``total``, each ``[team 0, team 1]``."""
    return _core.cicera_score_hand(team0, team1)
