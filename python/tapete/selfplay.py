"""Self-play: every seat played by native bots, one game per seed, with each game's returns and
length (and its record when asked). The same run on a Ray cluster is
`tapete.distributed.selfplay`; both give identical results."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import numpy.typing as npt

from tapete import _core
from tapete import records as _records
from tapete._adapt import plain
from tapete._core import Game, load_game
from tapete.arena import _ci95, _finite, check_games
from tapete.errors import ConfigError

__all__ = ["SelfPlayResult", "selfplay"]

#: With records, native bots play this many games a call and their records are written.
RECORD_CHUNK = 1024

#: The spec whose self-play is `Game.play_random` (see `selfplay`).
RANDOM = "random"


@dataclass(frozen=True)
class SelfPlayResult:
    """Every game's returns (one per seat) and length, in seed order."""

    game: str
    #: the bot of each seat
    bots: list[str]
    #: ``(games, players)``: the returns of game ``i`` (seed ``seed + i``)
    returns: npt.NDArray[np.float64] = field(repr=False)
    #: ``(games,)``: actions of game ``i``
    lengths: npt.NDArray[np.uint64] = field(repr=False)
    seed: int

    @property
    def games(self) -> int:
        """The number of games played."""
        return len(self.lengths)

    @property
    def actions(self) -> int:
        """The actions of every game."""
        return int(self.lengths.sum())

    @property
    def mean(self) -> npt.NDArray[np.float64]:
        """Each seat's mean return per game (NaN without games)."""
        if len(self.returns) == 0:
            return np.full(len(self.bots), np.nan)
        return np.asarray(self.returns.mean(axis=0), dtype=np.float64)

    @property
    def ci95(self) -> npt.NDArray[np.float64]:
        """The half-width of the 95% interval of each seat's mean."""
        return np.array([_ci95(self.returns[:, s]) for s in range(len(self.bots))])

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready: the means, intervals and counts (not the per-game arrays); a mean or
        interval that does not exist (no game; one game's interval) is ``None``, as strict
        JSON has no NaN or infinity."""
        return {
            "game": self.game,
            "bots": list(self.bots),
            "mean": [_finite(x) for x in self.mean],
            "ci95": [_finite(x) for x in self.ci95],
            "games": self.games,
            "seed": self.seed,
            "actions": self.actions,
        }


def game_of(game: str | Game, config: dict[str, Any]) -> Game:
    """``game`` loaded with ``config`` when it is a name; a `tapete.Game` takes no config."""
    if isinstance(game, str):
        return load_game(game, **config)
    if not isinstance(game, Game):
        raise TypeError(f"game must be a game name or a tapete.Game, got {type(game).__name__}")
    if config:
        raise ConfigError("config options go with a game name, not with a tapete.Game")
    return game


def seat_specs(game: Game, bots: str | Sequence[str]) -> list[str]:
    """One bot spec per seat: ``bots`` for every seat, or one each."""
    n = game.num_players()
    if isinstance(bots, str):
        return [bots] * n
    if not isinstance(bots, Sequence) or not all(isinstance(b, str) for b in bots):
        raise ConfigError(
            "self-play bots are native bot specs: one spec for every seat or one per seat "
            f"(Python bots play in tapete.arena(..., duplicate=False)), got {bots!r:.60}"
        )
    if len(bots) != n:
        raise ConfigError(f"{game.name} needs one bot per seat: {n} bots, got {len(bots)}")
    return list(bots)


def is_random(specs: Sequence[str]) -> bool:
    """Whether every seat is the plain ``random`` bot: then self-play is `Game.play_random`."""
    return all(spec == RANDOM for spec in specs)


def check_run(game: Game, specs: list[str], seed: int, threads: int, duplicate: bool) -> None:
    """Checks every argument of a run by a call that plays nothing (a bad spec, seed or thread
    count is a `tapete.ConfigError` before any work or any file is touched)."""
    if not isinstance(duplicate, bool):
        raise ConfigError(f"duplicate must be a bool, got {duplicate!r:.40}")
    if is_random(specs) and not duplicate:
        game.play_random(0, seed, threads)
    else:
        _core.arena(game, specs, 0, 0, seed, threads, duplicate, False)


def selfplay(
    game: str | Game,
    games: int,
    *,
    seed: int = 0,
    bots: str | Sequence[str] = RANDOM,
    threads: int = 1,
    records: _records.Path | None = None,
    **config: Any,
) -> SelfPlayResult:
    """Plays games ``seed .. seed + games - 1`` (one game per seed) with ``bots`` at the seats:
    one spec for every seat or one per seat.

    When every seat is ``"random"`` this is `Game.play_random` (the games of ``tapete
    selfplay``: one random stream per game, seeded from its game seed). Otherwise seat ``s`` of
    game ``i`` is played by ``bots[s]`` seeded ``tapete._core.bot_seed(seed, i, 0, s)``: the
    games of ``tapete.arena(..., duplicate=False)``. Native play runs without the GIL over
    ``threads``; the result does not depend on it. ``records=PATH`` appends every game to the
    JSON Lines file ``PATH`` (gzip if it ends in ``.gz``; `tapete.records`), in seed order.
    """
    games, seed, threads = plain(games), plain(seed), plain(threads)
    game = game_of(game, config)
    specs = seat_specs(game, bots)
    check_run(game, specs, seed, threads, False)
    if records is not None:
        _records.check_destination(records)
    if is_random(specs):
        returns, lengths = game.play_random(games, seed, threads)
        if records is not None:
            _records.write(records, _records.selfplay_records(game, games, seed))
    elif records is None:
        returns, lengths, _ = _core.arena(game, specs, 0, games, seed, threads, False, False)
    else:
        from tapete.arena import native_records

        check_games(games)  # as without records
        parts, all_lengths = [], []
        for first in range(0, games, RECORD_CHUNK):
            count = min(RECORD_CHUNK, games - first)
            values, part_lengths, kept = _core.arena(
                game, specs, first, count, seed, threads, False, True
            )
            assert kept is not None
            _records.write(records, native_records(game, specs, seed, first, values, kept))
            parts.append(values)
            all_lengths.append(part_lengths)
        n = game.num_players()
        returns = np.concatenate(parts) if parts else np.zeros((0, n))
        lengths = np.concatenate(all_lengths) if all_lengths else np.zeros(0, dtype=np.uint64)
    return SelfPlayResult(game=game.name, bots=specs, returns=returns, lengths=lengths, seed=seed)
