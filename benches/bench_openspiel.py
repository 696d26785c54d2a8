"""Overhead of the OpenSpiel adapter (tapete.openspiel): uniformly random games with explicit
chance driven from Python, through ``pyspiel`` states and through raw tapete states.

Both loops do the same steps (chance outcomes drawn by their probabilities, decisions uniformly
at random, the same RNG); prints the median steps per second of several rounds and the ratio.
Never run in CI.
"""

from __future__ import annotations

import argparse
import platform
import random
import statistics
import time
from collections.abc import Callable
from typing import Any

import tapete


def raw_loop(name: str, games: int) -> Callable[[], int]:
    game = tapete.load_game(name, explicit_chance=True)

    def run() -> int:
        rng = random.Random(0)
        steps = 0
        for _ in range(games):
            state = game.new_initial_state()
            while not state.is_terminal():
                if state.is_chance_node():
                    outcomes, weights = zip(*state.chance_outcomes(), strict=True)
                    state.apply_action(rng.choices(outcomes, weights)[0])
                else:
                    state.apply_action(rng.choice(state.legal_actions()))
                steps += 1
        return steps

    return run


def adapter_loop(name: str, games: int) -> Callable[[], int]:
    import pyspiel  # type: ignore[import-not-found]

    import tapete.openspiel

    tapete.openspiel.register()
    game = pyspiel.load_game(tapete.openspiel.PREFIX + name)

    def run() -> int:
        rng = random.Random(0)
        steps = 0
        for _ in range(games):
            state: Any = game.new_initial_state()
            while not state.is_terminal():
                if state.is_chance_node():
                    outcomes, weights = zip(*state.chance_outcomes(), strict=True)
                    state.apply_action(rng.choices(outcomes, weights)[0])
                else:
                    state.apply_action(rng.choice(state.legal_actions()))
                steps += 1
        return steps

    return run


def measure(run: Callable[[], int], rounds: int) -> float:
    """Median steps per second over `rounds` runs."""
    rates = []
    for _ in range(rounds):
        start = time.perf_counter()
        steps = run()
        rates.append(steps / (time.perf_counter() - start))
    return statistics.median(rates)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--games", type=int, default=50, help="games per round and game")
    args = parser.parse_args()
    print(f"# {platform.processor() or platform.machine()}, Python {platform.python_version()}")
    print(f"{'game':12} {'raw State steps/s':>18} {'adapter steps/s':>16} {'raw / adapter':>14}")
    for name in tapete.list_games():
        games = max(args.games // 10, 2) if name in ("cicera", "cuajo") else args.games
        raw = measure(raw_loop(name, games), args.rounds)
        adapter = measure(adapter_loop(name, games), args.rounds)
        print(f"{name:12} {raw:18,.0f} {adapter:16,.0f} {raw / adapter:14.2f}")


if __name__ == "__main__":
    main()
