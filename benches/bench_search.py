"""The search primitives and IS-MCTS, side by side with OpenSpiel's ``hearts`` in one run.

Positions: each game played by uniformly random decisions (seeded) to its 5th decision and to
its last decision (a whole default match for tapete's games: 4 deals of Spoil Five, a match
to 51 of Cicera). At each, the median time of one call from Python of
``information_state_string`` (asked again of the same state), the same of a successor (a clone
after one action; the column before is its cost without the string), the same of a state never
asked before (a clone of one, which builds it from the start of the match), ``observation_string``,
``resample_from_infostate``, the same with the world's first ``information_state_string`` of
the observer and of the next seat, ``serialize`` + deserialize and a pickle round trip. Then IS-MCTS
iterations per second of one decision at the 5th decision: ``pyspiel.ISMCTSBot`` (random
rollouts) on hearts against tapete's ``ismcts`` on every game (random and heuristic rollouts),
each bot warmed up by one decision, then the median of 5 rounds in which every bot decides once.
Before those, Cuajo's ``resample_from_infostate`` at the 60th action of 12 random hands
(``cuajo_mid_hand``: the median of their medians and the range).
Never in CI: run ``make bench-search``.
"""

from __future__ import annotations

import argparse
import pickle
import platform
import random
import statistics
import time
from collections.abc import Callable
from functools import partial
from typing import Any

import tapete

GAMES = ["spoil_five", "cicera", "cau_robat", "cuajo"]


def positions(new: Callable[[], Any], seed: int) -> tuple[Any, Any]:
    """The states at the 5th and at the last decision of one random game."""
    rng = random.Random(seed)
    state, decisions, fifth, last = new(), 0, None, None
    while not state.is_terminal():
        if state.is_chance_node():
            outcomes, probs = zip(*state.chance_outcomes(), strict=True)
            state.apply_action(rng.choices(outcomes, probs)[0])
            continue
        decisions += 1
        if decisions == 5:
            fifth = state.clone()
        last = state.clone()
        state.apply_action(rng.choice(state.legal_actions()))
    return fifth, last


def median_us(call: Callable[[], object], target: float = 0.2) -> float:
    """Median microseconds per call over 7 rounds of about ``target / 7`` seconds; NaN if the
    game does not implement the call."""
    start = time.perf_counter()
    try:
        call()
    except Exception as e:  # pyspiel.SpielError: "... is not implemented"
        if "not implemented" not in str(e):
            raise
        return float("nan")
    once = max(time.perf_counter() - start, 1e-7)
    n = max(1, int(target / 7 / once))
    rounds = []
    for _ in range(7):
        start = time.perf_counter()
        for _ in range(n):
            call()
        rounds.append((time.perf_counter() - start) / n)
    return statistics.median(rounds) * 1e6


def primitives(state: Any, game: Any, sampler: Callable[[Any, int], Any]) -> dict[str, float]:
    seat = state.current_player()
    other = (seat + 1) % game.num_players()
    text = state.serialize()
    action = state.legal_actions()[0]
    # A copy never asked for its information state: each of its clones builds one from the
    # start of the match, as a state just loaded or resampled does.
    fresh = state.clone()
    state.information_state_string(seat)

    def successor() -> Any:
        child = state.clone()
        child.apply_action(action)
        return child

    return {
        "information_state_string": median_us(lambda: state.information_state_string(seat)),
        "clone + apply": median_us(successor),
        "the same + information_state_string": median_us(
            lambda: successor().information_state_string(seat)
        ),
        "the same, first asked (clone + string)": median_us(
            lambda: fresh.clone().information_state_string(seat)
        ),
        "observation_string": median_us(lambda: state.observation_string(seat)),
        "resample_from_infostate": median_us(lambda: sampler(state, seat)),
        # A world's first strings: the observer's, and the next seat's (the first of those
        # builds its transcript once; later worlds take what it holds of earlier deals).
        "resample + its information_state_string": median_us(
            lambda: sampler(state, seat).information_state_string(seat)
        ),
        "the same, of the next seat": median_us(
            lambda: sampler(state, seat).information_state_string(other)
        ),
        "serialize + deserialize": median_us(lambda: game.deserialize_state(state.serialize())),
        "deserialize": median_us(lambda: game.deserialize_state(text)),
        "pickle round trip": median_us(lambda: pickle.loads(pickle.dumps(state))),
    }


def cuajo_mid_hand(at: int = 60, hands: int = 12) -> None:
    """Cuajo's ``resample_from_infostate`` in the middle of a hand, where it costs most often:
    at the ``at``-th action of ``hands`` random hands (seeds 0, 1, ...; the seat to act), the
    median of their medians and the range (a few positions, beside a purro seat, take
    milliseconds: docs/engine.md, "Determinisation")."""
    game, medians = tapete.load_game("cuajo"), []
    for seed in range(hands):
        state, rng = game.new_initial_state(seed=seed), random.Random(seed)
        for _ in range(at):
            state.apply_action(rng.choice(state.legal_actions()))
        seeds = iter(range(10**9))
        call = partial(state.resample_from_infostate, state.current_player())
        medians.append(median_us(lambda call=call, seeds=seeds: call(next(seeds))))
    print(
        f"\nCuajo resample_from_infostate at action {at} of {hands} random hands: median "
        f"{statistics.median(medians):.1f} µs (from {min(medians):.1f} to {max(medians):,.0f}): "
        + " ".join(f"{m:.0f}" for m in medians)
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--iterations", type=int, default=2000)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    print(f"{platform.machine()}, CPython {platform.python_version()}; microseconds per call")
    rows: dict[str, dict[str, float]] = {}
    try:
        import pyspiel
    except ImportError:
        pyspiel = None
    if pyspiel is not None:
        hearts = pyspiel.load_game("hearts")
        r = random.Random(0)
        fifth, last = positions(hearts.new_initial_state, args.seed)
        for label, st in (("5th", fifth), ("last", last)):
            rows[f"hearts ({label})"] = primitives(
                st, hearts, lambda s, p: s.resample_from_infostate(p, r.random)
            )
    seeds = iter(range(10**9))
    for name in GAMES:
        game = tapete.load_game(name)
        fifth, last = positions(lambda game=game: game.new_initial_state(args.seed), args.seed)
        for label, st in (("5th", fifth), ("last", last)):
            rows[f"{name} ({label})"] = primitives(
                st, game, lambda s, p: s.resample_from_infostate(p, next(seeds))
            )
    columns = list(next(iter(rows.values())))
    print("| position | " + " | ".join(columns) + " |")
    print("|---|" + "---:|" * len(columns))
    for label, row in rows.items():
        print(f"| {label} | " + " | ".join(f"{row[c]:.2f}" for c in columns) + " |")

    cuajo_mid_hand()

    n = args.iterations
    print(f"\nIS-MCTS, one decision at the 5th decision, {n} iterations, 1 thread")
    # Every bot decides once to warm up, then 5 rounds of one decision each, the bots in turn
    # in every round (the machine's drift weighs on all alike); the median per bot.
    runs: list[tuple[str, str, Callable[[], object]]] = []
    if pyspiel is not None:
        hearts = pyspiel.load_game("hearts")
        fifth, _ = positions(hearts.new_initial_state, args.seed)
        evaluator = pyspiel.RandomRolloutEvaluator(1, 0)
        bot = pyspiel.ISMCTSBot(0, evaluator, 2.0, n)
        runs.append(("hearts", "pyspiel.ISMCTSBot, random rollouts", partial(bot.step, fifth)))
    for name in GAMES:
        game = tapete.load_game(name)
        fifth, _ = positions(lambda game=game: game.new_initial_state(args.seed), args.seed)
        specs = ["", ",rollout=heuristic"] + ([",horizon=game"] if name == "spoil_five" else [])
        for extra in specs:
            spec = f"ismcts:iterations={n}{extra}"
            bot = tapete.bots.make(spec, game, seed=0)
            runs.append((name, spec, partial(bot.choose, fifth)))
    times: list[list[float]] = [[] for _ in runs]
    for _, _, choose in runs:
        choose()
    for _ in range(5):
        for (_, _, choose), out in zip(runs, times, strict=True):
            start = time.perf_counter()
            choose()
            out.append(time.perf_counter() - start)
    for (name, spec, _), out in zip(runs, times, strict=True):
        print(f"| {name} | {spec} | {n / statistics.median(out):,.0f} it/s |")


if __name__ == "__main__":
    main()
