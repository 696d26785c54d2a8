"""Spoil Five hand evaluators: pure functions on card strings (rules: docs/rules/spoil_five.md)."""

from __future__ import annotations

from collections.abc import Sequence

from tapete import _core

__all__ = ["legal_plays", "trick_winner", "trump_order"]


def trump_order(trump: str) -> list[str]:
    """The trumps when ``trump`` (C, D, H or S) is the trump suit, best first."""
    return _core.spoil_five_trump_order(trump)


def trick_winner(trump: str, cards: Sequence[str]) -> int:
    """Index into ``cards`` (in play order, led card first) of the card that wins the trick."""
    return _core.spoil_five_trick_winner(trump, cards)


def legal_plays(trump: str, hand: Sequence[str], trick: Sequence[str]) -> list[str]:
    """The cards of ``hand`` that may be played to ``trick`` (empty: leading), ascending."""
    return _core.spoil_five_legal_plays(trump, hand, trick)
