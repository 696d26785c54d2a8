"""The random number generator shared by the reference model and the engine.

SplitMix64 (Steele, Lea and Flood; constants from Vigna's reference code), with
a 64-bit state and all arithmetic modulo 2**64::

    next():  state = state + 0x9E3779B97F4A7C15
             z = state
             z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9
             z = (z ^ (z >> 27)) * 0x94D049BB133111EB
             return z ^ (z >> 31)

* A generator made from seed ``s`` (``0 <= s < 2**64``) starts with ``state = s``.
* ``below(n)`` (Lemire's multiply-and-reject): draw ``x = next()`` and let ``m = x * n``
  (a 128-bit product); draw again while ``m mod 2**64 < (2**64 - n) mod n``; return
  ``m >> 64`` (uniform, by rejection).
* ``shuffle(items)``: Fisher-Yates from the last position down:
  ``for i in len-1 .. 1: j = below(i + 1); swap(items[i], items[j])``.
"""

from __future__ import annotations

from typing import TypeVar

from tapete.reference._text import shown

__all__ = ["MASK64", "SplitMix64"]

MASK64 = (1 << 64) - 1
_GOLDEN_GAMMA = 0x9E3779B97F4A7C15
_MIX1 = 0xBF58476D1CE4E5B9
_MIX2 = 0x94D049BB133111EB

T = TypeVar("T")


class SplitMix64:
    """SplitMix64 generator; see the module docstring for the exact algorithm."""

    __slots__ = ("state",)

    def __init__(self, seed: int) -> None:
        if isinstance(seed, bool) or not isinstance(seed, int) or not 0 <= seed <= MASK64:
            raise ValueError(f"SplitMix64 seed must be an int in [0, 2**64), got {shown(seed)}")
        self.state: int = seed

    def next_u64(self) -> int:
        """Advance the state and return the next 64-bit output."""
        self.state = (self.state + _GOLDEN_GAMMA) & MASK64
        z = self.state
        z = ((z ^ (z >> 30)) * _MIX1) & MASK64
        z = ((z ^ (z >> 27)) * _MIX2) & MASK64
        return z ^ (z >> 31)

    def below(self, n: int) -> int:
        """A uniform integer in ``0 .. n-1`` (``n >= 1``), by rejection."""
        if isinstance(n, bool) or not isinstance(n, int) or n < 1:
            raise ValueError(f"below(n) needs an int n >= 1, got {shown(n)}")
        threshold = ((1 << 64) - n) % n
        while True:
            m = self.next_u64() * n
            if m & MASK64 >= threshold:
                return m >> 64

    def shuffle(self, items: list[T]) -> None:
        """Shuffle ``items`` in place (Fisher-Yates, from the last position down)."""
        for i in range(len(items) - 1, 0, -1):
            j = self.below(i + 1)
            items[i], items[j] = items[j], items[i]

    def __eq__(self, other: object) -> bool:
        return isinstance(other, SplitMix64) and other.state == self.state

    def __hash__(self) -> int:
        return hash(("SplitMix64", self.state))

    def __repr__(self) -> str:
        return f"SplitMix64(state={self.state:#018x})"

    def __getstate__(self) -> int:
        return self.state

    def __setstate__(self, state: int) -> None:
        self.state = state
