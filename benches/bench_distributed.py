"""tapete.distributed against the local arena on this machine: throughput with 1 and 2 Ray
workers (a local Ray instance with that many CPUs), and what one Ray task costs.

For each workload: deals (games) per second of `tapete.arena` (`tapete.selfplay`) with 1 and 2
native threads, then of `tapete.distributed.arena` (`.selfplay`; automatic task size) on a Ray
instance with 1 and 2 CPUs, each result checked identical to the local one. The task cost is
the wall time per task of a run of one-deal tasks whose native work is negligible (random
self-play of 3-player Cau Robat hands, ~20 µs a game); last, how fast the driver appends the
records the tasks return.
Medians of several rounds. Never in CI: run ``make bench-distributed``.
"""

from __future__ import annotations

import argparse
import os
import platform
import secrets
import statistics
import tempfile
import time
from collections.abc import Callable
from functools import partial
from typing import Any

# The local Ray instances take only this process's token (set before Ray reads it, at import),
# and no token file is left in ~/.ray.
os.environ.setdefault("RAY_AUTH_MODE", "token")
os.environ.setdefault("RAY_AUTH_TOKEN", secrets.token_hex(32))

import numpy as np  # noqa: E402
import ray  # noqa: E402

import tapete  # noqa: E402
import tapete.distributed as td  # noqa: E402

#: (label, local run, distributed run, deals): a cheap arena, an expensive one, random
#: self-play (the largest results per second of work). Each run takes ``threads=``.
WORKLOADS: list[tuple[str, Callable[..., Any], Callable[..., Any], int]] = [
    (
        "Spoil Five arena, heuristic vs random (duplicate)",
        partial(tapete.arena, "spoil_five", ["heuristic", "random", "heuristic", "random"], 20_000),
        partial(td.arena, "spoil_five", ["heuristic", "random", "heuristic", "random"], 20_000),
        20_000,
    ),
    (
        "Cau Robat arena, ismcts:iterations=200 vs heuristic (duplicate)",
        partial(tapete.arena, "cau_robat", ["ismcts:iterations=200"] + ["heuristic"] * 3, 40),
        partial(td.arena, "cau_robat", ["ismcts:iterations=200"] + ["heuristic"] * 3, 40),
        40,
    ),
    (
        "Spoil Five random self-play (Game.play_random)",
        partial(tapete.selfplay, "spoil_five", 400_000),
        partial(td.selfplay, "spoil_five", 400_000),
        400_000,
    ),
]


def values(result: Any) -> Any:
    return result.values if isinstance(result, tapete.ArenaResult) else result.returns


def median_seconds(run: Callable[[], Any], rounds: int) -> tuple[float, Any]:
    times, out = [], None
    for _ in range(rounds):
        start = time.perf_counter()
        out = run()
        times.append(time.perf_counter() - start)
    return statistics.median(times), out


def cpu_model() -> str:
    try:
        with open("/proc/cpuinfo") as info:
            for line in info:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.machine()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--tasks", type=int, default=2000, help="one-deal tasks for the cost")
    args = parser.parse_args()
    print(f"{cpu_model()}, {os.cpu_count()} cores, "
          f"Python {platform.python_version()}, Ray {ray.__version__}, "
          f"load average {os.getloadavg()[0]:.2f}")  # fmt: skip

    local: dict[tuple[str, int], tuple[float, Any]] = {}
    for label, local_run, _, _ in WORKLOADS:
        for threads in (1, 2):
            local[label, threads] = median_seconds(partial(local_run, threads=threads), args.rounds)

    distributed: dict[tuple[str, int], float] = {}
    cost: dict[int, float] = {}
    for cpus in (1, 2):
        ray.init(num_cpus=cpus, include_dashboard=False, logging_level="WARNING")
        try:
            td.arena("cau_robat", ["random"] * 4, 8 * cpus, chunk=1)  # start the workers
            for label, _, distributed_run, _ in WORKLOADS:
                run = partial(distributed_run, progress=False)
                seconds, res = median_seconds(run, args.rounds)
                expected = local[label, 1][1]
                assert np.array_equal(values(res), values(expected)), "not the local result"
                distributed[label, cpus] = seconds
            run = partial(td.selfplay, "cau_robat", args.tasks, chunk=1, players=3, progress=False)
            seconds, _ = median_seconds(run, args.rounds)
            cost[cpus] = seconds / args.tasks
        finally:
            ray.shutdown()

    print()
    print("| workload | deals | local 1 thread | local 2 threads | Ray, 1 CPU | Ray, 2 CPUs |")
    print("|---|---:|---:|---:|---:|---:|")
    for label, _, _, deals in WORKLOADS:
        cells = [f"{deals / local[label, t][0]:,.1f}" for t in (1, 2)]
        cells += [f"{deals / distributed[label, c]:,.1f}" for c in (1, 2)]
        print(f"| {label} | {deals:,} | " + " | ".join(cells) + " |")
    print("(deals or games per second, medians)")
    print()
    for cpus, seconds in cost.items():
        print(f"one-deal tasks, {cpus} CPU(s): {seconds * 1e3:.2f} ms of wall time per task "
              f"({1 / seconds:,.0f} tasks/s)")  # fmt: skip
    print()
    for game, games in (("spoil_five", 2000), ("cau_robat", 5000)):
        rate = driver_records(game, games, args.rounds)
        if rate is not None:
            print(f"the driver appends {rate:,.0f} {game} records/s to a .jsonl file")


def driver_records(game: str, games: int, rounds: int) -> float | None:
    """Records the driver writes per second (what it does with each task's records)."""
    try:
        from tapete import records
    except ImportError:
        return None
    recs = list(records.selfplay_records(tapete.load_game(game), games))
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "games.jsonl")
        seconds, _ = median_seconds(partial(td._append, path, recs), rounds)
    return games / seconds


if __name__ == "__main__":
    main()
