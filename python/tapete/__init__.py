"""tapete: fast, exact engines for Spoil Five, Cicera, Cau Robat and Cuajo.

The engine is the Rust extension ``tapete._core``; this package re-exports its API, adds the
per-game evaluators (``tapete.spoil_five``, ``tapete.cicera``, ``tapete.cau_robat``,
``tapete.cuajo``), the errors (``tapete.errors``), the batch environment
(``tapete.VectorEnv``), the bots (``tapete.bots``), the arena (``tapete.arena``) and self-play
(``tapete.selfplay``), game records (``tapete.records``), the command line (``tapete.cli``) and the
pure-Python reference model (``tapete.reference``).

The adapters to other libraries (``tapete.pettingzoo``, ``tapete.gymnasium``,
``tapete.openspiel``) and ``tapete.distributed`` (Ray) need their optional extras; ``import
tapete`` never imports them: they load on first use.
"""

import importlib
from typing import Any

from tapete import bots, cau_robat, cicera, cuajo, records, spoil_five
from tapete._core import CHANCE, TERMINAL, Game, State, list_games, load_game
from tapete.arena import ArenaResult, arena
from tapete.errors import ConfigError, IllegalActionError, ParseError, TapeteError
from tapete.selfplay import SelfPlayResult, selfplay
from tapete.vector import Batch, VectorEnv

__all__ = [
    "CHANCE",
    "TERMINAL",
    "ArenaResult",
    "Batch",
    "ConfigError",
    "Game",
    "IllegalActionError",
    "ParseError",
    "SelfPlayResult",
    "State",
    "TapeteError",
    "VectorEnv",
    "arena",
    "bots",
    "cau_robat",
    "cicera",
    "cuajo",
    "list_games",
    "load_game",
    "records",
    "selfplay",
    "spoil_five",
]

#: Submodules imported on first attribute access: the adapters and Ray need their optional
#: extras, and the reference model is for tests.
_LAZY = ("pettingzoo", "gymnasium", "openspiel", "distributed", "reference")


def __getattr__(name: str) -> Any:
    """``tapete.pettingzoo``, ``tapete.distributed``, ... without importing them up front."""
    if name in _LAZY:
        return importlib.import_module(f"tapete.{name}")
    raise AttributeError(f"module 'tapete' has no attribute {name!r}")
