"""tapete: fast, exact engines for Spoil Five, Cicera, Cau Robat and Cuajo.

The engine is the Rust extension ``tapete._core``; this package re-exports its API, adds the
per-game evaluators (``tapete.spoil_five``, ``tapete.cicera``, ``tapete.cau_robat``,
``tapete.cuajo``), the errors (``tapete.errors``), the batch environment
(``tapete.VectorEnv``), the bots (``tapete.bots``), the arena (``tapete.arena``) and self-play
(``tapete.selfplay``), the command line (``tapete.cli``) and the pure-Python reference model
(``tapete.reference``). ``tapete.distributed`` runs the arena and self-play on Ray (an extra).
"""

from tapete import bots, cau_robat, cicera, cuajo, spoil_five
from tapete._core import TERMINAL, Game, State, list_games, load_game
from tapete.arena import ArenaResult, arena
from tapete.errors import ConfigError, IllegalActionError, ParseError, TapeteError
from tapete.selfplay import SelfPlayResult, selfplay
from tapete.vector import Batch, VectorEnv

__all__ = [
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
    "selfplay",
    "spoil_five",
]
