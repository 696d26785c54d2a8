"""tapete.VectorEnv against the Python loop over single states, side by side in one run.

For each game: env-steps per second of `VectorEnv.step(env.random_actions(t))` with
observe="current" (1 and 2 threads), of the Python loop that steps the same number of single
states and fetches `observation_tensor` + `legal_actions_mask` after every step, and of the
write-only limit (allocating and filling the same observation bytes, as `np.ones` does).
Optionally pgx (JAX on CPU) on its closest card game. Medians of several rounds, the rounds of
one game's four measurements interleaved. Never in CI.
"""

from __future__ import annotations

import argparse
import os
import platform
import random
import statistics
import time
from collections.abc import Callable
from functools import partial

import numpy as np

import tapete

WARM_UP = 0.3  # seconds, before each timed round

CONFIGS = {"spoil_five": {}, "cicera": {}, "cau_robat": {}, "cuajo": {}}


def vector(name: str, n: int, threads: int, steps: int) -> Callable[[], int]:
    env = tapete.VectorEnv(name, n, threads=threads, observe="current", **CONFIGS[name])
    env.reset()
    t = [0]

    def run() -> int:
        for _ in range(steps):
            env.step(env.random_actions(t[0]))
            t[0] += 1
        return n * steps

    return run


def python_loop(name: str, n: int, steps: int) -> Callable[[], int]:
    game = tapete.load_game(name, **CONFIGS[name])
    states = [game.new_initial_state(seed=i) for i in range(n)]
    choice = random.Random(0).choice
    next_seed = [n]

    def run() -> int:
        for _ in range(steps):
            for i, s in enumerate(states):
                s.apply_action(choice(s.legal_actions()))
                if s.is_terminal():
                    s = states[i] = game.new_initial_state(seed=next_seed[0])
                    next_seed[0] += 1
                s.observation_tensor(s.current_player())
                s.legal_actions_mask()
        return n * steps

    return run


def write_limit(name: str, n: int, steps: int) -> Callable[[], int]:
    shape = (n, *tapete.load_game(name, **CONFIGS[name]).observation_tensor_shape())

    def run() -> int:
        for _ in range(steps):
            np.ones(shape, np.float32)
        return n * steps

    return run


def pgx_loop(n: int, steps: int) -> tuple[str, Callable[[], int]] | None:
    try:
        import jax  # type: ignore[import-not-found]
        import pgx  # type: ignore[import-not-found]
    except ImportError:
        return None
    env_id = "leduc_holdem"
    env = pgx.make(env_id)
    init, step = jax.jit(jax.vmap(env.init)), jax.jit(jax.vmap(env.step))
    key = jax.random.PRNGKey(0)
    state = init(jax.random.split(key, n))

    def act(state: object, key: object) -> object:
        logits = jax.numpy.where(state.legal_action_mask, 0.0, -jax.numpy.inf)  # type: ignore[attr-defined]
        return jax.random.categorical(key, logits)

    def keep_live(done: object, old: object, fresh: object) -> object:
        where = done.reshape(done.shape + (1,) * (old.ndim - 1))  # type: ignore[attr-defined]
        return jax.numpy.where(where, fresh, old)

    act = jax.jit(act)
    box = [state, key]

    def run() -> int:
        s, k = box
        for _ in range(steps):
            k, sub = jax.random.split(k)
            s = step(s, act(s, sub))
            # autoreset by hand: pgx leaves finished envs terminal
            done = s.terminated | s.truncated
            if bool(done.any()):
                k, sub = jax.random.split(k)
                fresh = init(jax.random.split(sub, n))
                s = jax.tree_util.tree_map(partial(keep_live, done), s, fresh)
        s.observation.block_until_ready()
        box[0], box[1] = s, k
        return n * steps

    return env_id, run


def median_rate(run: Callable[[], int], rounds: int) -> float:
    return median_rates([run], rounds)[0]


def median_rates(runs: list[Callable[[], int]], rounds: int) -> list[float]:
    """The median rate of each run, their rounds interleaved (one round of each in turn), so
    that the machine's drift over the minutes of a run weighs on all of them alike. Each round
    is timed after WARM_UP seconds of the same run: on this VM an idle core takes about 0.1 s
    to come back to full speed (a two-thread step took 350 µs, then 125 µs once warm), and
    the rounds of the other runs leave it idle. A learner stepping without pause sees the
    warm rate."""
    for run in runs:
        run()  # warm up (and compile, for pgx)
    rates: list[list[float]] = [[] for _ in runs]
    for _ in range(rounds):
        for run, out in zip(runs, rates, strict=True):
            until = time.perf_counter() + WARM_UP
            while time.perf_counter() < until:
                run()
            start = time.perf_counter()
            done = run()
            out.append(done / (time.perf_counter() - start))
    return [statistics.median(r) for r in rates]


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__)
    p.add_argument("--envs", type=int, default=1024)
    p.add_argument("--steps", type=int, default=50)
    p.add_argument("--rounds", type=int, default=5)
    p.add_argument("--games", nargs="*", default=list(CONFIGS))
    args = p.parse_args()
    print(
        f"{platform.processor() or platform.machine()}, {os.cpu_count()} cores, "
        f"Python {platform.python_version()}, numpy {np.__version__}, "
        f"load average {os.getloadavg()[0]:.2f} at start"
    )
    print(
        f"{args.envs} envs, {args.steps} steps a round, median of {args.rounds} rounds; "
        "M env-steps/s"
    )
    print(
        f"{'game':<11} {'loop':>7} {'vec 1t':>7} {'vec 2t':>7} {'limit':>7} "
        f"{'vec/loop':>9} {'2t/1t':>6} {'limit/vec':>10}"
    )
    n, steps, rounds = args.envs, args.steps, args.rounds
    for name in args.games:
        # The loop is slow: fewer steps a round, the same rate.
        loop, one, two, limit = median_rates(
            [
                python_loop(name, n, max(1, steps // 10)),
                vector(name, n, 1, steps),
                vector(name, n, 2, steps),
                write_limit(name, n, steps),
            ],
            rounds,
        )
        print(
            f"{name:<11} {loop / 1e6:7.3f} {one / 1e6:7.3f} {two / 1e6:7.3f} "
            f"{limit / 1e6:7.2f} {one / loop:8.1f}x {two / one:5.2f}x {limit / one:9.1f}x"
        )
    pgx = pgx_loop(n, steps)
    if pgx is None:
        print("pgx: not installed (pip install pgx 'jax[cpu]')")
    else:
        env_id, run = pgx
        rate = median_rate(run, rounds)
        print(f"pgx {env_id} (JAX CPU, vmap + jit, random legal actions): {rate / 1e6:.3f} M/s")
    print(f"load average {os.getloadavg()[0]:.2f} at end")


if __name__ == "__main__":
    main()
