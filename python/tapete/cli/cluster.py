"""``--ray [ADDRESS]`` and ``--chunk N`` of ``tapete arena`` and ``tapete selfplay``: the same
runs on a Ray cluster through `tapete.distributed`, with the same results (docs/distributed.md).
Ray is imported only when ``--ray`` is given."""

from __future__ import annotations

import argparse
import time
from collections.abc import Callable
from types import ModuleType
from typing import Any

import numpy as np
import numpy.typing as npt
from rich.console import Console
from rich.text import Text

from tapete._core import Game
from tapete.cli._ui import CliError

__all__ = ["WRITTEN_ALONG", "add_arguments", "arena", "check", "connect", "selfplay"]

#: How long writing --out took on Ray: the driver writes each range's records as it merges
#: them, while the tasks play on, so that time is not apart from the run's.
WRITTEN_ALONG = "written during the run: within its wall time"


def add_arguments(parser: argparse.ArgumentParser, positive: Callable[[str], int]) -> None:
    """Adds ``--ray [ADDRESS]`` and ``--chunk N`` to a subcommand."""
    parser.add_argument(
        "--ray",
        nargs="?",
        const="",
        metavar="ADDRESS",
        help="play on a Ray cluster: ADDRESS is host:port or auto; without it, the cluster "
        "'ray start' made on this machine, else a new local one (pip install 'tapete[ray]'; "
        "docs/distributed.md)",
    )
    parser.add_argument(
        "--chunk",
        type=positive,
        metavar="N",
        help="with --ray: deals (games) per Ray task (default: about a second of play each)",
    )


def check(args: argparse.Namespace) -> None:
    """Refuses ``--chunk`` without ``--ray``."""
    if args.chunk is not None and args.ray is None:
        raise CliError("--chunk sets the Ray task size: it goes with --ray")


def _distributed() -> ModuleType:
    try:
        import tapete.distributed as distributed
    except ImportError as error:
        raise CliError(str(error)) from None
    return distributed


def connect(args: argparse.Namespace) -> None:
    """Joins (or starts) the Ray cluster of ``--ray``: before the clock starts, as joining is
    not play. An unreachable address is a `CliError`."""
    if "=" in args.ray:
        raise CliError(
            f"--ray {args.ray}: an address is host:port or auto (key=value options go before --ray)"
        )
    try:
        _distributed().connect(args.ray or None)
    except RuntimeError as error:
        raise CliError(str(error)) from None


def arena(
    args: argparse.Namespace,
    game: Game,
    specs: list[str],
    seed: int,
    deals: int,
    duplicate: bool,
    on_progress: Callable[[int], None],
) -> tuple[list[npt.NDArray[np.float64]], int, bool]:
    """The arena of ``tapete arena --ray``: its per-deal values, actions, and whether Ctrl-C
    stopped it (then the values are those of the deals finished in order)."""
    distributed = _distributed()
    try:
        res = distributed.arena(
            game,
            specs,
            deals,
            seed=seed,
            threads=args.threads,
            duplicate=duplicate,
            records=getattr(args, "out", None),
            address=args.ray or None,
            chunk=args.chunk,
            progress=on_progress,
        )
        interrupted = False
    except distributed.Interrupted as stop:
        res, interrupted = stop.result, True
    except RuntimeError as error:
        raise CliError(str(error)) from None
    return ([res.values] if len(res.values) else []), res.actions, interrupted


def selfplay(args: argparse.Namespace, console: Console, game: Game, games: int, seed: int) -> Any:
    """The games of ``tapete selfplay --ray``: the native random self-play of ``tapete
    selfplay`` (`tapete.selfplay`) as `SelfPlayStats`. Ctrl-C prints the games finished in
    order and stops."""
    from tapete.cli import SelfPlayStats, progress_bar

    if args.python_loop:
        raise CliError("--ray plays natively: drop --python-loop")
    distributed = _distributed()
    records = getattr(args, "out", None)  # --out, when the records are a CLI option
    # the tasks build the records and the driver writes them: nothing is left for the local
    # writer of --out after the run, which would write them a second time
    args.out = None
    bar = progress_bar(console, "games", disable=not console.is_terminal)
    start = time.perf_counter()
    try:
        with bar:
            task = bar.add_task(f"{game.name} on Ray", total=games)
            res = distributed.selfplay(
                game,
                games,
                seed=seed,
                threads=args.threads,
                records=records,
                address=args.ray or None,
                chunk=args.chunk,
                progress=lambda done: bar.update(task, completed=done),
            )
    except distributed.Interrupted as stop:
        part = stop.result
        console.print(
            Text(f"interrupted: {part.games:,} of {games:,} games finished in order", style="red")
        )
        for s, (mean, half) in enumerate(zip(part.mean, part.ci95)):
            console.print(f"seat {s}: mean return {mean:+.3f} ± {half:.3f}")
        raise KeyboardInterrupt from None
    except RuntimeError as error:
        raise CliError(str(error)) from None
    seconds = time.perf_counter() - start
    returns = res.returns
    return SelfPlayStats(
        games=res.games,
        actions=res.actions,
        seconds=seconds,
        sums=[float(x) for x in returns.sum(axis=0)],
        squares=[float(x) for x in (returns * returns).sum(axis=0)],
    )
