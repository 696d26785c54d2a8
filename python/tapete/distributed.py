"""Arenas and self-play on a Ray cluster, with results identical to the local runs
(docs/distributed.md).

    import tapete.distributed as td
    res = td.arena("cicera", ["heuristic", "random"] * 2, 10_000, address="auto")
    out = td.selfplay("spoil_five", 1_000_000, records="games.jsonl.gz")

A run is split into ranges of consecutive deals (seeds); each range is one Ray task that plays
it with the native engine (the GIL released) exactly as the local run plays those deals, and
returns their per-deal values, game lengths and, when asked, records. The driver merges the
ranges in seed order and writes the records itself, in that order: a task is a pure function of
its range, so a task that Ray retries after its worker died gives the same result, and nothing
is written twice. ``import tapete`` never imports this module (nor Ray).
"""

from __future__ import annotations

import logging
import math
import os
import socket
import time
from collections.abc import Callable, Sequence
from importlib import metadata
from typing import Any, TypeAlias

import numpy as np
import numpy.typing as npt

try:
    import ray
    import ray.exceptions
except ImportError as error:
    raise ImportError(
        "tapete.distributed runs on Ray, which is not installed: pip install 'tapete[ray]'"
    ) from error

from tapete import _core
from tapete import records as _records
from tapete._adapt import plain
from tapete._core import Game
from tapete.arena import ArenaResult
from tapete.bots import Bot
from tapete.errors import ConfigError
from tapete.selfplay import RANDOM, SelfPlayResult, check_run, game_of, is_random, seat_specs

__all__ = ["Interrupted", "arena", "connect", "selfplay"]

#: How often Ray runs a task again after the process or node running it died.
MAX_RETRIES = 3
#: Seconds to wait for a TCP connection to a cluster's address before giving up.
CONNECT_TIMEOUT = 10.0
#: Seconds of work an automatically sized task aims at: long enough that the few ms a task
#: costs Ray are lost in it, short enough for a live progress bar and a balanced end.
TASK_SECONDS = 1.0
#: Most deals one task plays (its results take 8·(entries + rotations) bytes a deal, more with
#: records).
MAX_CHUNK = 100_000

#: How a run plays its deals: the arena with duplicate, the arena without (one game a deal),
#: or `Game.play_random` (random self-play).
DUPLICATE, SINGLE, RANDOM_SELFPLAY = "duplicate", "single", "random"

Path: TypeAlias = str | os.PathLike[str]
Progress: TypeAlias = Callable[[int], None]
#: What a task gives back: per-deal values, game lengths, records (or None), the seconds it
#: played, and the worker's tapete version.
Chunk: TypeAlias = tuple[
    npt.NDArray[np.float64], npt.NDArray[np.uint64], list[dict[str, Any]] | None, float, str
]


class Interrupted(KeyboardInterrupt):
    """Ctrl-C during a distributed run: no more tasks are started. ``result`` is the run's
    result over the deals that had finished in seed order (seeds ``seed .. seed + k - 1``), and
    the records file holds exactly their records."""

    def __init__(self, result: ArenaResult | SelfPlayResult) -> None:
        super().__init__(f"interrupted after {len(_deal_values(result))} deals")
        self.result = result


def _deal_values(result: ArenaResult | SelfPlayResult) -> npt.NDArray[np.float64]:
    return result.values if isinstance(result, ArenaResult) else result.returns


def _version() -> str:
    try:
        return metadata.version("tapete")
    except metadata.PackageNotFoundError:
        return "unknown"


# --------------------------------------------------------------------------------------------
# The task


def _play(
    game: Game,
    specs: list[str],
    first: int,
    count: int,
    seed: int,
    threads: int,
    mode: str,
    keep: bool,
) -> Chunk:
    """Deals ``first .. first + count - 1`` of a run, as the local run plays them: the native
    arena with or without duplicate, or `Game.play_random` (``mode``, see `DUPLICATE`)."""
    start = time.perf_counter()
    recs: list[dict[str, Any]] | None = None
    if mode == RANDOM_SELFPLAY:
        game_seed = (seed + first) % 2**64
        values, lengths = game.play_random(count, game_seed, threads)
        if keep:
            from tapete import records

            recs = list(records.selfplay_records(game, count, game_seed))
    else:
        values, lengths, kept = _core.arena(
            game, specs, first, count, seed, threads, mode == DUPLICATE, keep
        )
        if keep:
            from tapete.arena import native_records

            assert kept is not None
            recs = list(native_records(game, specs, seed, first, values, kept))
    return values, lengths, recs, time.perf_counter() - start, _version()


# Looked up at every submission (so tests can wrap it); options are given per run.
_task = ray.remote(_play)


# --------------------------------------------------------------------------------------------
# Connecting


def _resolve(address: str | None) -> str | None:
    """The ``host:port`` that ``ray.init`` would join (None: it would start a local instance),
    found the way Ray finds it (``RAY_ADDRESS``, the latest ``ray start`` on this machine)."""
    if address is not None and address != "auto":
        return address
    env = os.environ.get("RAY_ADDRESS", "")
    if env.startswith("ray://"):  # Ray Client: ray.init takes it as it is
        _host_port(env)
        return env
    try:
        from ray._private.services import canonicalize_bootstrap_address
    except ImportError:  # another Ray version: let ray.init resolve it
        return address
    try:
        # typed as taking a str, it handles None and "auto" (Ray's own ray.init passes them)
        found: str | None = canonicalize_bootstrap_address(address)  # type: ignore[arg-type]
    except ConnectionError as error:
        raise RuntimeError(f"no Ray cluster to join: {error}") from None
    except ValueError as error:
        raise ConfigError(f"RAY_ADDRESS={env!r:.60} is not a Ray address ({error})") from None
    return found


def _host_port(address: str) -> tuple[str, int]:
    host, sep, port = address.removeprefix("ray://").rpartition(":")
    if not sep or not host or not port.isdigit():
        raise ConfigError(f"a Ray address is host:port (or 'auto'), got {address!r:.60}")
    return host.strip("[]"), int(port)


#: The HTTP/2 connection preface of a client and an empty SETTINGS frame (RFC 9113, 3.4).
_HTTP2_PREFACE = b"PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n" + bytes([0, 0, 0, 4, 0, 0, 0, 0, 0])


def _check_reachable(target: str, found_by: str) -> None:
    """A clear error within `CONNECT_TIMEOUT` when nothing listens at ``target``, or something
    that is not a Ray cluster (the dashboard's port, a web server), instead of ``ray.init``
    retrying for minutes. A cluster's address (its GCS, or Ray Client's server) speaks gRPC:
    HTTP/2, whose server opens with a SETTINGS frame. (Not checked under TLS, RAY_USE_TLS.)"""
    hint = (
        "start one with 'ray start --head' or give the address 'ray start' printed "
        f"(docs/distributed.md){found_by}"
    )
    try:
        with socket.create_connection(_host_port(target), timeout=CONNECT_TIMEOUT) as sock:
            if os.environ.get("RAY_USE_TLS", "0").lower() in ("1", "true"):
                return
            sock.sendall(_HTTP2_PREFACE)
            head = b""
            while len(head) < 9 and (more := sock.recv(9 - len(head))):
                head += more
    except OSError as error:
        raise RuntimeError(
            f"cannot reach a Ray cluster at {target} ({error or type(error).__name__}); {hint}"
        ) from None
    if len(head) < 9 or head[3] != 4:
        raise RuntimeError(
            f"{target} answers, but not as a Ray cluster (is it the dashboard's port?); {hint}"
        )


def connect(address: str | None = None) -> None:
    """Joins the Ray cluster at ``address`` (``"host:port"``, ``"ray://host:port"`` or
    ``"auto"``), or with None the one ``ray.init`` finds (``RAY_ADDRESS``, the latest ``ray
    start`` on this machine) or else a new local instance on this machine's cores.

    An address where nothing answers is a RuntimeError within `CONNECT_TIMEOUT` seconds. When
    this process is already connected to Ray (``ray.init`` was called), that connection is
    used, whatever ``address`` says: call ``ray.shutdown()`` first to join another cluster.
    """
    if address is not None and not isinstance(address, str):
        raise ConfigError(f"address must be a string or None, got {address!r:.60}")
    if address not in (None, "auto"):
        _host_port(address)
    if ray.is_initialized():
        return
    target = _resolve(address)
    options: dict[str, Any] = {"logging_level": logging.WARNING}
    if target is None:
        options["include_dashboard"] = False
    else:
        found_by = ""
        if address in (None, "auto"):
            found_by = (
                f"; found in RAY_ADDRESS={os.environ['RAY_ADDRESS']!r:.60}"
                if os.environ.get("RAY_ADDRESS")
                else "; found where the latest 'ray start' on this machine left it ('ray stop' "
                "clears a stale one)"
            )
        _check_reachable(target, found_by)
    try:
        # None and "auto" go to Ray as they are: it then also finds a local cluster's token
        _init(address, options, client=(target or "").startswith("ray://"))
    except ConnectionError as error:
        raise RuntimeError(
            f"cannot join the Ray cluster at {target}: {error} (a cluster with token "
            "authentication needs RAY_AUTH_MODE=token and its token here: docs/distributed.md)"
        ) from None


#: What Ray Client's errors say when its server's process for this client died at birth (the
#: process gone before the server could read its command line, or found gone just after).
CLIENT_START_FAILURES = ("ZombieProcess", "Starting Ray client server failed")
#: Connections tried to a Ray Client address, when its server fails to start that process.
CLIENT_ATTEMPTS = 3


def _init(address: str | None, options: dict[str, Any], *, client: bool) -> None:
    """``ray.init``; through Ray Client (``client``), tried again when the Ray Client server
    fails to start this client's own server process: with Ray 2.60 that process sometimes dies
    at once, without a line of log (about one connection in ten on the 2-core VM of the
    README), and the next try starts another. Any other failure is final."""
    for attempt in range(1, CLIENT_ATTEMPTS + 1):
        try:
            ray.init(address=address, **options)
            return
        except (ConnectionError, RuntimeError) as error:
            if not (
                client
                and any(text in str(error) for text in CLIENT_START_FAILURES)
                and attempt < CLIENT_ATTEMPTS
            ):
                raise
            ray.shutdown()


def _slots(threads: int) -> int:
    """How many tasks of ``threads`` CPUs the cluster runs at once; a task that no node can
    hold would wait forever, so it is refused."""
    nodes = [n for n in ray.nodes() if n.get("Alive")]  # type: ignore[no-untyped-call]
    largest = max((float(n.get("Resources", {}).get("CPU", 0)) for n in nodes), default=0.0)
    if largest < threads:
        raise ConfigError(
            f"threads={threads}: no node of the Ray cluster has {threads} CPUs "
            f"(the largest has {largest:g})"
        )
    total = sum(float(n.get("Resources", {}).get("CPU", 0)) for n in nodes)
    return max(1, int(total // threads))


# --------------------------------------------------------------------------------------------
# Running


class _Sizer:
    """Deals per task: ``chunk`` when given, else sized from the measured speed so that a task
    lasts about `TASK_SECONDS` (starting from one deal, growing at most 8× a step, and shrinking
    near the end so that every slot finishes at about the same time)."""

    def __init__(self, games: int, slots: int, chunk: int | None) -> None:
        self.games, self.slots, self.chunk = games, slots, chunk
        self.size = 1
        self.deals = 0
        self.seconds = 0.0

    def next(self, first: int) -> int:
        remaining = self.games - first
        if self.chunk is not None:
            return min(self.chunk, remaining)
        if self.seconds > 0:
            wanted = int(TASK_SECONDS * self.deals / self.seconds)
            tail = math.ceil(remaining / (2 * self.slots))
            self.size = max(1, min(wanted, 8 * self.size, MAX_CHUNK, tail))
        return min(self.size, remaining)

    def observe(self, deals: int, seconds: float) -> None:
        self.deals += deals
        self.seconds += seconds


def _check_workers() -> None:
    """Before any deal: a worker runs the same tapete as this process (another version would
    play other games, or fail in ways that do not say why)."""

    # Nested, so that Ray ships it by value: a worker whose tapete lacks this module runs it.
    def worker_version() -> str | None:
        try:
            import tapete  # noqa: F401
        except ImportError:
            return None
        from importlib import metadata

        try:
            return metadata.version("tapete")
        except metadata.PackageNotFoundError:
            return "unknown"

    probe = ray.remote(num_cpus=0, max_retries=MAX_RETRIES)(worker_version)
    theirs = ray.get(probe.remote())
    if theirs is None:
        raise RuntimeError(_NO_TAPETE)
    _check_version(theirs)


_NO_TAPETE = (
    "the Ray workers cannot import tapete: install the same tapete on every node of the "
    "cluster (pip install 'tapete[ray]'), or start the nodes from an environment where it is "
    "importable"
)


def _check_version(theirs: str) -> None:
    if theirs != _version():
        raise RuntimeError(
            f"the Ray workers run tapete {theirs}, this process {_version()}: install the "
            "same version everywhere (results would differ)"
        )


def _fetch(ref: Any, first: int, count: int) -> Chunk:
    try:
        out: Chunk = ray.get(ref)
    except ray.exceptions.RayTaskError as error:
        if "No module named 'tapete" in str(error):
            raise RuntimeError(_NO_TAPETE) from None
        raise
    except (ray.exceptions.WorkerCrashedError, ray.exceptions.NodeDiedError) as error:
        raise RuntimeError(
            f"deals {first} … {first + count - 1}: the Ray worker playing them died "
            f"{MAX_RETRIES + 1} times ({type(error).__name__})"
        ) from None
    _check_version(out[4])
    return out


def _run(
    game: Game,
    specs: list[str],
    games: int,
    seed: int,
    threads: int,
    mode: str,
    records: Path | None,
    chunk: int | None,
    on_progress: Progress | None,
) -> tuple[npt.NDArray[np.float64], npt.NDArray[np.uint64], bool]:
    """Plays the run's deals as Ray tasks (connected already) and merges them in seed order:
    the per-deal values and game lengths of the deals finished in order, and whether Ctrl-C
    stopped the run."""
    slots = _slots(threads)
    _check_workers()
    sizer = _Sizer(games, slots, chunk)
    options = {"num_cpus": threads, "max_retries": MAX_RETRIES, "retry_exceptions": False}
    keep = records is not None
    in_flight: dict[Any, tuple[int, int]] = {}
    finished: dict[int, Chunk] = {}  # by first deal: done, not yet merged
    values: list[npt.NDArray[np.float64]] = []
    lengths: list[npt.NDArray[np.uint64]] = []
    merged = submitted = done = 0
    interrupted = False
    try:
        while merged < games:
            # two tasks per slot keep every CPU busy; the bound on unmerged ranges bounds the
            # memory a slow range can hold up
            while submitted < games and len(in_flight) < 2 * slots and len(finished) < 4 * slots:
                count = sizer.next(submitted)
                ref = _task.options(**options).remote(
                    game, specs, submitted, count, seed, threads, mode, keep
                )
                in_flight[ref] = (submitted, count)
                submitted += count
            ready, _ = ray.wait(list(in_flight), num_returns=1)
            for ref in ready:
                first, count = in_flight.pop(ref)
                out = _fetch(ref, first, count)
                sizer.observe(count, out[3])
                finished[first] = out
                done += count
            while merged in finished:
                part, part_lengths, recs, _, _ = finished.pop(merged)
                if recs is not None:
                    assert records is not None
                    _append(records, recs)
                values.append(part)
                lengths.append(part_lengths)
                merged += len(part)
            if on_progress is not None:
                on_progress(done)
    except KeyboardInterrupt:
        # The tasks still out (at most two per slot) are dropped, not cancelled: ray.cancel
        # races with a task's completion in Ray 2.60 and can then abort this process ("Tried
        # to complete task that was not pending", ray-project/ray#54846). They end on their
        # own, their results unused; Ray stops them at once when this process exits.
        interrupted = True
    except BaseException:
        # A failed run reads what its other tasks give within a few seconds (sized tasks last
        # about one) and drops it, failures included: Ray prints every failure left unread.
        # The run's own error is the one to report.
        refs = list(in_flight)
        ready = ray.wait(refs, num_returns=len(refs), timeout=CONNECT_TIMEOUT)[0] if refs else []
        for ref in ready:
            try:
                ray.get(ref)
            except Exception:
                pass
        raise
    entries = len(specs)
    return (
        np.concatenate(values) if values else np.zeros((0, entries)),
        np.concatenate(lengths) if lengths else np.zeros(0, dtype=np.uint64),
        interrupted,
    )


def _append(path: Path, recs: list[dict[str, Any]]) -> None:
    """Appends one range's records, all or none: a write cut short (Ctrl-C, a full disk) is cut
    off, so that the file holds exactly the records of the deals merged."""
    from tapete import records

    size = os.path.getsize(path) if os.path.exists(path) else 0
    try:
        records.write(path, recs)
    except BaseException:
        with open(path, "r+b") as out:
            out.truncate(size)
        raise


def _check_run_arguments(games: object, chunk: object, records: object, progress: object) -> None:
    """What the cluster would find out late: checked before connecting."""
    if isinstance(games, bool) or not isinstance(games, int) or games < 0:
        raise ConfigError(f"games must be an int >= 0, got {games!r:.40}")
    if games > 2**64:
        raise ConfigError(f"games must be at most 2**64 (one deal a seed), got {games!r:.40}")
    if chunk is not None and (isinstance(chunk, bool) or not isinstance(chunk, int) or chunk < 1):
        raise ConfigError(f"chunk must be an int >= 1 (deals per task) or None, got {chunk!r:.40}")
    if not (progress is None or isinstance(progress, bool) or callable(progress)):
        raise ConfigError(
            f"progress must be True, False, None or a function of the deals done, got "
            f"{progress!r:.40}"
        )
    if records is not None:
        _records.check_destination(records)


def _show_progress(progress: bool | None, label: str, total: int) -> Any:
    """A transient rich progress bar on stderr (by default when it is a terminal), or None."""
    from rich.console import Console

    console = Console(stderr=True)
    if progress is False or (progress is None and not console.is_terminal):
        return None
    from tapete.cli import progress_bar

    bar = progress_bar(console, "deals")
    bar.add_task(label, total=total)
    return bar


def _execute(
    game: Game,
    specs: list[str],
    games: int,
    seed: int,
    threads: int,
    mode: str,
    records: Path | None,
    address: str | None,
    chunk: int | None,
    progress: bool | Progress | None,
) -> tuple[npt.NDArray[np.float64], npt.NDArray[np.uint64], bool]:
    chunk = plain(chunk)
    _check_run_arguments(games, chunk, records, progress)
    if games == 0:
        if records is not None and mode == RANDOM_SELFPLAY:  # as tapete.selfplay does
            _records.write(records, [])
        return np.zeros((0, len(specs))), np.zeros(0, dtype=np.uint64), False
    connect(address)
    if callable(progress):
        return _run(game, specs, games, seed, threads, mode, records, chunk, progress)
    bar = _show_progress(progress, game.name, games)
    if bar is None:
        return _run(game, specs, games, seed, threads, mode, records, chunk, None)
    with bar:
        task = bar.task_ids[0]
        return _run(
            game,
            specs,
            games,
            seed,
            threads,
            mode,
            records,
            chunk,
            lambda done: bar.update(task, completed=done),
        )


# --------------------------------------------------------------------------------------------
# The public runs


def arena(
    game: str | Game,
    bots: Sequence[str | Bot],
    games: int,
    *,
    seed: int = 0,
    threads: int = 1,
    duplicate: bool = True,
    records: Path | None = None,
    address: str | None = None,
    chunk: int | None = None,
    progress: bool | Progress | None = None,
    **config: Any,
) -> ArenaResult:
    """`tapete.arena` on a Ray cluster: the same arguments and an identical result (values,
    means, intervals, games, actions; records in the same order), whatever the cluster.

    ``address``: see `connect`. ``chunk``: deals per task (default: sized so a task lasts about
    a second). ``threads``: native threads (and CPUs reserved) per task. ``progress``: a
    progress bar over the whole cluster on stderr (default: when stderr is a terminal), or a
    function called with the number of deals done whenever a task finishes.
    Bots are native specs (a Python bot's state lives in this process). Ctrl-C stops the run
    (no new task; the few still out end unused) and raises `Interrupted` with the result of
    the deals finished in order.
    """
    games, seed, threads = plain(games), plain(seed), plain(threads)
    game = game_of(game, config)
    if isinstance(bots, str) or not isinstance(bots, Sequence):
        raise ConfigError("bots must be a sequence of bot specs, one per seat")
    for b in bots:
        if not isinstance(b, str):
            raise ConfigError(
                "a distributed arena plays native bots (specs such as 'heuristic'); a Python "
                f"bot plays in tapete.arena, got {b!r:.60}"
            )
    specs = [str(b) for b in bots]
    check_run(game, specs, seed, threads, duplicate)
    mode = DUPLICATE if duplicate else SINGLE
    values, lengths, interrupted = _execute(
        game, specs, games, seed, threads, mode, records, address, chunk, progress
    )  # fmt: skip
    res = ArenaResult(
        game=game.name,
        bots=specs,
        values=values,
        games=len(lengths),
        duplicate=duplicate,
        seed=seed,
        actions=int(lengths.sum()),
    )
    if interrupted:
        raise Interrupted(res)
    return res


def selfplay(
    game: str | Game,
    games: int,
    *,
    seed: int = 0,
    bots: str | Sequence[str] = RANDOM,
    threads: int = 1,
    records: Path | None = None,
    address: str | None = None,
    chunk: int | None = None,
    progress: bool | Progress | None = None,
    **config: Any,
) -> SelfPlayResult:
    """`tapete.selfplay` on a Ray cluster: the same arguments and an identical result (every
    game's returns and length; records in seed order), whatever the cluster. ``address``,
    ``chunk``, ``progress`` and Ctrl-C as in `arena`."""
    games, seed, threads = plain(games), plain(seed), plain(threads)
    game = game_of(game, config)
    specs = seat_specs(game, bots)
    check_run(game, specs, seed, threads, False)
    returns, lengths, interrupted = _execute(
        game, specs, games, seed, threads, RANDOM_SELFPLAY if is_random(specs) else SINGLE,
        records, address, chunk, progress,
    )  # fmt: skip
    res = SelfPlayResult(game=game.name, bots=specs, returns=returns, lengths=lengths, seed=seed)
    if interrupted:
        raise Interrupted(res)
    return res
