"""Cau Robat evaluator: pure functions on ranks (rules: docs/rules/cau_robat.md)."""

from __future__ import annotations

from collections.abc import Sequence

from tapete import _core

__all__ = ["run"]


def run(table_ranks: Sequence[int], rank: int) -> list[int]:
    """The ranks a play of ``rank`` captures from a table holding ``table_ranks`` (distinct
    ranks among 1-7, 10, 11, 12; no piles, default rules): ``[]`` if ``rank`` is not on the
    table, else the matched rank and the run through it, in the order 1 2 ... 7 10 11 12."""
    return _core.cau_robat_run(table_ranks, rank)
