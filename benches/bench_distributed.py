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


RUNS = ("local 1", "local 2", "ray 1", "ray 2")


def timed(run: Callable[[], Any]) -> tuple[float, Any]:
    start = time.perf_counter()
    out = run()
    return time.perf_counter() - start, out


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

    # The rounds alternate local and Ray runs, so that whatever else the machine does falls on
    # both alike; each round starts the Ray instances afresh.
    times: dict[tuple[str, str], list[float]] = {}
    costs: dict[int, list[float]] = {}
    expected: dict[str, Any] = {}
    for _ in range(args.rounds):
        for label, local_run, _, _ in WORKLOADS:
            for threads in (1, 2):
                seconds, res = timed(partial(local_run, threads=threads))
                times.setdefault((label, f"local {threads}"), []).append(seconds)
                expected[label] = values(res)
        for cpus in (1, 2):
            ray.init(num_cpus=cpus, include_dashboard=False, logging_level="WARNING")
            try:
                td.arena("cau_robat", ["random"] * 4, 8 * cpus, chunk=1)  # start the workers
                for label, _, distributed_run, _ in WORKLOADS:
                    seconds, res = timed(partial(distributed_run, progress=False))
                    assert np.array_equal(values(res), expected[label]), "not the local result"
                    times.setdefault((label, f"ray {cpus}"), []).append(seconds)
                tasks = partial(
                    td.selfplay, "cau_robat", args.tasks, chunk=1, players=3, progress=False
                )
                costs.setdefault(cpus, []).append(timed(tasks)[0] / args.tasks)
            finally:
                ray.shutdown()
    median = {key: statistics.median(v) for key, v in times.items()}
    cost = {cpus: statistics.median(v) for cpus, v in costs.items()}

    print()
    print("| workload | deals | local 1 thread | local 2 threads | Ray, 1 CPU | Ray, 2 CPUs |")
    print("|---|---:|---:|---:|---:|---:|")
    for label, _, _, deals in WORKLOADS:
        cells = [f"{deals / median[label, run]:,.1f}" for run in RUNS]
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
        seconds = statistics.median(
            timed(partial(td._append, path, recs))[0] for _ in range(rounds)
        )
    return games / seconds


if __name__ == "__main__":
    main()
