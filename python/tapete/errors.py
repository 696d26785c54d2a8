"""Exceptions raised by tapete, by the Rust engine and the Python reference alike."""

from __future__ import annotations

__all__ = ["ConfigError", "IllegalActionError", "ParseError", "TapeteError"]


class TapeteError(Exception):
    """Base class of every error tapete raises on purpose."""


class IllegalActionError(TapeteError, ValueError):
    """An action that is out of range, not legal now, or applied to a finished game."""


class ConfigError(TapeteError, ValueError):
    """An unknown game, an unknown config key, a bad value, seed or deck."""


class ParseError(TapeteError, ValueError):
    """A malformed or unknown card string, action string or serialized state."""
