"""How the reference model quotes a bad input in an error message."""

from __future__ import annotations

import reprlib

__all__ = ["shown"]

_SHOWN = reprlib.Repr()
_SHOWN.maxlevel, _SHOWN.maxstring, _SHOWN.maxother = 3, 40, 40
_SHOWN.maxlist = _SHOWN.maxtuple = 6
_SHOWN.maxdict = 4


def shown(value: object) -> str:
    """``repr(value)`` cut short: a message names a bad input without copying a huge or deeply
    nested one."""
    if isinstance(value, int) and value.bit_length() > 128:
        return f"an integer of {value.bit_length()} bits"
    try:
        return _SHOWN.repr(value)
    except Exception:  # a repr that fails: name the type instead
        return f"<{type(value).__name__}>"
