"""Random playouts driven from Python, timed side by side in one run: the engine, the reference
model and, when open-spiel is installed, OpenSpiel's hearts driven the same way.

Prints the median decisions per second of several rounds and the ratios. Never run in CI.
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
import tapete.reference


def tapete_loop(module: Any, game_name: str, games: int, **config: Any) -> Callable[[], int]:
    game = module.load_game(game_name, **config)

    def run() -> int:
        choice = random.Random(0).choice
        decisions = 0
        for seed in range(games):
            state = game.new_initial_state(seed=seed)
            while not state.is_terminal():
                state.apply_action(choice(state.legal_actions()))
                decisions += 1
        return decisions

    return run


def native_loop(game_name: str, games: int, **config: Any) -> Callable[[], int]:
    game = tapete.load_game(game_name, **config)

    def run() -> int:
        _, lengths = game.play_random(games, seed=0, threads=1)
        return int(lengths.sum())

    return run


def openspiel_loop(games: int) -> Callable[[], int] | None:
    try:
        import pyspiel  # type: ignore[import-not-found]
    except ImportError:
        return None
    game = pyspiel.load_game("hearts")

    def run() -> int:
        rng = random.Random(0)
        decisions = 0
        for _ in range(games):
            state = game.new_initial_state()
            while not state.is_terminal():
                if state.is_chance_node():  # hearts deals uniformly: any outcome is as likely
                    state.apply_action(rng.choice(state.legal_actions()))
                else:
                    state.apply_action(rng.choice(state.legal_actions()))
                    decisions += 1
        return decisions

    return run


def measure(run: Callable[[], int], rounds: int) -> float:
    """Median decisions per second over `rounds` runs."""
    rates = []
    for _ in range(rounds):
        start = time.perf_counter()
        decisions = run()
        rates.append(decisions / (time.perf_counter() - start))
    return statistics.median(rates)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--games", type=int, default=2000, help="engine games per round")
    args = parser.parse_args()
    config = {"players": 4}
    loops: dict[str, Callable[[], int]] = {
        "tapete native play_random, 1 thread": native_loop("spoil_five", args.games * 20, **config),
        "tapete engine, spoil_five 4p": tapete_loop(tapete, "spoil_five", args.games, **config),
        "tapete reference, spoil_five 4p": tapete_loop(
            tapete.reference, "spoil_five", max(args.games // 100, 10), **config
        ),
    }
    hearts = openspiel_loop(max(args.games // 10, 20))
    if hearts is not None:
        loops["OpenSpiel hearts (pyspiel)"] = hearts
    print(f"# {platform.processor() or platform.machine()}, Python {platform.python_version()}")
    results = {name: measure(run, args.rounds) for name, run in loops.items()}
    engine = results["tapete engine, spoil_five 4p"]
    native = results["tapete native play_random, 1 thread"]
    print(
        f"{'loop':38} {'decisions/s':>14} {'Python-driven engine / this':>28} {'native / this':>14}"
    )
    for name, rate in results.items():
        print(f"{name:38} {rate:14,.0f} {engine / rate:28.2f} {native / rate:14.1f}")
    # Cuajo (whole hands, default rules): the same three loops, with their own ratios.
    cuajo = {
        "cuajo native play_random, 1 thread": native_loop("cuajo", args.games * 2),
        "cuajo engine, Python loop": tapete_loop(tapete, "cuajo", max(args.games // 10, 10)),
        "cuajo reference, Python loop": tapete_loop(
            tapete.reference, "cuajo", max(args.games // 200, 5)
        ),
    }
    rates = {name: measure(run, args.rounds) for name, run in cuajo.items()}
    print(f"{'loop':38} {'decisions/s':>14} {'engine / this':>28} {'native / this':>14}")
    for name, rate in rates.items():
        engine_rate = rates["cuajo engine, Python loop"]
        native_rate = rates["cuajo native play_random, 1 thread"]
        print(f"{name:38} {rate:14,.0f} {engine_rate / rate:28.2f} {native_rate / rate:14.1f}")


if __name__ == "__main__":
    main()
