"""The duplicate arena: bots play the same deals from every seat, and each entry's mean return
comes with its 95% interval (docs/bots.md)."""

from __future__ import annotations

import math
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import numpy.typing as npt

from tapete import _core
from tapete import records as _records
from tapete._adapt import action_id, plain
from tapete._core import Game, State, load_game
from tapete.bots import Bot, make
from tapete.errors import ConfigError, IllegalActionError

__all__ = ["ArenaResult", "arena"]

#: Two-sided 95% normal quantile.
Z95 = 1.959963984540054

#: With records, the native arena plays this many deals a call and writes their games.
RECORD_CHUNK = 256


def _ci95(samples: npt.NDArray[np.float64]) -> float:
    n = len(samples)
    return float(Z95 * samples.std(ddof=1) / math.sqrt(n)) if n > 1 else math.inf


def _finite(x: float) -> float | None:
    return float(x) if math.isfinite(x) else None


@dataclass(frozen=True)
class ArenaResult:
    """Per entry (one per seat, as given): the mean return per game and its 95% interval."""

    game: str
    bots: list[str]
    #: ``(deals, entries)``: each entry's return per deal (averaged over its seats with
    #: duplicate); the means and intervals are taken over these independent deals.
    values: npt.NDArray[np.float64] = field(repr=False)
    #: games played: deals, times the number of seats with duplicate
    games: int
    duplicate: bool
    seed: int
    #: actions of every game, in play order
    actions: int

    @property
    def mean(self) -> npt.NDArray[np.float64]:
        """Each entry's mean return per deal, in the game's unit (NaN without deals)."""
        if len(self.values) == 0:
            return np.full(len(self.bots), np.nan)
        return np.asarray(self.values.mean(axis=0), dtype=np.float64)

    @property
    def ci95(self) -> npt.NDArray[np.float64]:
        """Half the 95% interval of each entry's mean (Z95 · sd / √deals)."""
        return np.array([_ci95(self.values[:, e]) for e in range(len(self.bots))])

    def difference(self, a: int, b: int) -> tuple[float, float]:
        """Entry ``a``'s mean minus entry ``b``'s, with the 95% interval of the paired
        per-deal differences; ``a`` and ``b`` are entries ``0 .. len(bots) - 1``."""
        n = len(self.bots)
        for e in (a, b):
            if isinstance(e, bool) or not isinstance(e, int | np.integer):
                raise TypeError(f"an entry is an int, got {e!r:.40}")
            if not 0 <= e < n:
                raise ValueError(f"entry {e} is out of range: the entries are 0..{n - 1}")
        d = self.values[:, a] - self.values[:, b]
        # No deal: no mean (as `mean` gives), without numpy's warning about an empty slice.
        return (float(d.mean()) if len(d) else math.nan), _ci95(d)

    def to_dict(self) -> dict[str, Any]:
        """The result as JSON-ready plain values (what ``tapete arena --json`` prints); a
        mean or interval that does not exist (no deal; one deal's interval) is ``None``, as
        strict JSON has no NaN or infinity."""
        return {
            "game": self.game,
            "bots": list(self.bots),
            "mean": [_finite(x) for x in self.mean],
            "ci95": [_finite(x) for x in self.ci95],
            "games": self.games,
            "deals": len(self.values),
            "duplicate": self.duplicate,
            "seed": self.seed,
            "actions": self.actions,
        }


def _name(bot: str | Bot) -> str:
    return bot if isinstance(bot, str) else str(getattr(bot, "name", type(bot).__name__))


def arena(
    game: str | Game,
    bots: Sequence[str | Bot],
    games: int,
    *,
    seed: int = 0,
    threads: int = 1,
    duplicate: bool = True,
    records: _records.Path | None = None,
    **config: Any,
) -> ArenaResult:
    """Plays deals ``seed .. seed + games - 1`` between ``bots`` (one per seat).

    With ``duplicate`` every deal is played once per seat rotation (seat ``s`` played by entry
    ``(s + r) mod n`` in rotation ``r``) and each entry's result is averaged over its seats,
    so that deal luck cancels. Native bots (specs) play inside Rust without the GIL, over
    ``threads``; Python bots (any object with ``choose(state)``) play in this process. The
    result does not depend on ``threads``.

    ``records=PATH`` appends every game played to the JSON Lines file ``PATH`` (gzip if it
    ends in ``.gz``) as a record (`tapete.records`, docs/records.md) naming the bot of each seat,
    in order of deal, then rotation.
    """
    games, seed, threads = plain(games), plain(seed), plain(threads)
    if isinstance(game, str):
        game = load_game(game, **config)
    elif not isinstance(game, Game):
        raise TypeError(f"game must be a game name or a tapete.Game, got {type(game).__name__}")
    elif config:
        raise ConfigError("config options go with a game name, not with a tapete.Game")
    if game.config().get("explicit_chance"):
        raise ConfigError(
            "the arena plays seeded games only: load the game without explicit_chance (the "
            "seed deals the same cards)"
        )
    if isinstance(bots, str) or not isinstance(bots, Sequence):
        raise ConfigError("bots must be a sequence of bot specs or bots, one per seat")
    for b in bots:
        if not isinstance(b, str) and not isinstance(b, Bot):
            raise ConfigError(f"a bot is a spec string or has choose(state), got {b!r:.60}")
    if not isinstance(duplicate, bool):
        raise ConfigError(f"duplicate must be a bool, got {duplicate!r:.40}")
    check_games(games)
    if records is not None:
        _records.check_destination(records)
    specs = [b for b in bots if isinstance(b, str)]
    names = [_name(b) for b in bots]
    if len(specs) == len(bots):
        if records is None:
            values, lengths, _ = _core.arena(game, specs, 0, games, seed, threads, duplicate, False)
        else:
            values, lengths = _native_with_records(
                game, specs, names, games, seed, threads, duplicate, records
            )
    else:
        if isinstance(threads, bool) or not isinstance(threads, int) or threads != 1:
            raise ConfigError(
                f"Python bots play in this process: threads must be 1, got {threads!r:.40}"
            )
        for spec in specs:  # refused as the native arena refuses them, before any deal
            make(spec, game, 0)
        on_game = None
        if records is not None:
            out = records

            def on_game(state: State, seat_names: list[str], info: dict[str, int]) -> None:
                rec = _records.record(state, seat_names)
                rec["arena"] = info
                _records.write(out, rec)

        values, lengths = _python_arena(game, bots, games, seed, duplicate, on_game)
    return ArenaResult(
        game=game.name,
        bots=names,
        values=values,
        games=len(lengths),
        duplicate=duplicate,
        seed=seed,
        actions=int(lengths.sum()),
    )


def check_games(games: object) -> None:
    """The bound of one native run on its games (deals), for the Python paths too."""
    most = _core.ARENA_MAX_DEALS
    if isinstance(games, bool) or not isinstance(games, int) or not 0 <= games <= most:
        raise ConfigError(f"games must be an int 0..={most}, got {games!r:.40}")


def _native_with_records(
    game: Game,
    specs: list[str],
    names: list[str],
    games: int,
    seed: int,
    threads: int,
    duplicate: bool,
    path: _records.Path,
) -> tuple[npt.NDArray[np.float64], npt.NDArray[np.uint64]]:
    """The native arena in chunks of deals, each chunk's games written to ``path``; the
    results are those of a single call (consecutive ranges of deals add up to the run)."""
    # a call without deals checks every other argument before the file is touched
    values, lengths, _ = _core.arena(game, specs, 0, 0, seed, threads, duplicate, False)
    parts, all_lengths = [values], [lengths]
    for first in range(0, games, RECORD_CHUNK):
        count = min(RECORD_CHUNK, games - first)
        values, lengths, kept = _core.arena(
            game, specs, first, count, seed, threads, duplicate, True
        )
        assert kept is not None
        _records.write(path, native_records(game, names, seed, first, values, kept))
        parts.append(values)
        all_lengths.append(lengths)
    return np.concatenate(parts), np.concatenate(all_lengths)


def native_records(
    game: Game,
    names: Sequence[str],
    seed: int,
    first: int,
    values: npt.NDArray[np.float64],
    kept: list[tuple[int, int, list[int]]],
) -> Iterator[dict[str, Any]]:
    """The records of the games a native arena call on deals ``first ..`` kept
    (``keep_games``): each game replayed through the engine for its action strings and
    returns, which must add up to the call's ``values`` exactly as the arena adds them."""
    n = game.num_players()
    rotations = len(kept) // max(1, len(values))
    totals = np.zeros(n)
    for game_seed, rotation, actions in kept:
        deal = (game_seed - seed) % 2**64
        state = game.new_initial_state(game_seed)
        strings = []
        for action in actions:
            strings.append(state.action_to_string(action))
            state.apply_action(action)
        returns = state.returns()
        for s, value in enumerate(returns):
            totals[(s + rotation) % n] += value / rotations
        if rotation == rotations - 1:
            if not np.array_equal(totals, values[deal - first]):
                raise RuntimeError(f"deal {deal}: the replayed games differ from the arena's")
            totals[:] = 0.0
        rec = _records._make(
            game,
            game_seed,
            strings,
            returns,
            state.is_terminal(),
            [names[(s + rotation) % n] for s in range(n)],
            extra={"arena": {"seed": seed, "deal": deal, "rotation": rotation}},
        )
        yield rec


def _python_arena(
    game: Game,
    bots: Sequence[str | Bot],
    deals: int,
    seed: int,
    duplicate: bool,
    on_game: Callable[[State, list[str], dict[str, int]], None] | None = None,
) -> tuple[npt.NDArray[np.float64], npt.NDArray[np.uint64]]:
    """The arena played from Python, bot seeds as in the native one (``_core.bot_seed``);
    ``on_game`` is given every finished game, the bot name of each seat and where it was
    played (``seed``, ``deal``, ``rotation``)."""
    n = game.num_players()
    if len(bots) != n:
        raise ConfigError(f"{game.name} needs one bot per seat: {n} bots, got {len(bots)}")
    _core.bot_seed(seed, 0, 0, 0)  # checks the seed like the native arena
    rotations = n if duplicate else 1
    values = np.zeros((deals, n))
    lengths: list[int] = []
    for d in range(deals):
        for r in range(rotations):
            seat_bots: list[Bot] = []
            for s in range(n):
                e = (s + r) % n
                b = bots[e]
                seat_bots.append(
                    make(b, game, _core.bot_seed(seed, d, r, e)) if isinstance(b, str) else b
                )
            state = game.new_initial_state(seed=(seed + d) % 2**64)
            while not state.is_terminal():
                p = state.current_player()
                given = state.clone()  # a bot that applies actions to it spoils no game
                choice = seat_bots[p].choose(given)
                if given != state:
                    raise IllegalActionError(
                        f"bot {_name(bots[(p + r) % n])} changed the state it was given "
                        "(choose must not: it may work on state.clone())"
                    )
                try:
                    action: int | None = action_id(choice)
                except TypeError:  # no integer
                    action = None
                if action is None or action not in state.legal_actions():
                    raise IllegalActionError(
                        f"bot {_name(bots[(p + r) % n])} chose {choice!r:.40}, not a legal action"
                    )
                state.apply_action(action)
            for s, ret in enumerate(state.returns()):
                values[d, (s + r) % n] += ret / rotations
            lengths.append(len(state.history()))
            if on_game is not None:
                seat_names = [_name(bots[(s + r) % n]) for s in range(n)]
                on_game(state, seat_names, {"seed": seed, "deal": d, "rotation": r})
    return values, np.array(lengths, dtype=np.uint64)
