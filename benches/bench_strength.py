"""Strength of the native bots in the duplicate arena, per game (default rules).

For each game (default rules, except as ``CONFIG`` says): ``heuristic`` against ``random``
seats, then ``ismcts`` (heuristic rollouts, the iteration count of ``ITERATIONS``) against
``heuristic`` seats. In partnership games (Cicera,
Cuajo) the measured bot holds both seats of one team, so that a team is compared with a team;
otherwise it holds one seat. Deals are played in batches of ``--batch`` until the 95% interval
of the paired difference (entry 0 minus entry 1, docs/bots.md) excludes zero or ``--max-deals``
is reached (each batch's running figure goes to stderr). Prints the mean difference per game
with its interval, the deals played and the time per move of the measured bot. Stopping at the
first batch whose interval excludes zero makes a chance result likelier than 5% (the intervals
are not corrected for the looks). Never in CI: run ``make bench-strength``.
"""

from __future__ import annotations

import argparse
import platform
import sys
import time

import numpy as np

import tapete

#: IS-MCTS iterations per decision, per game.
ITERATIONS = {"spoil_five": 200, "cicera": 200, "cau_robat": 300, "cuajo": 1000}
TEAMS = {"cicera", "cuajo"}
#: Options other than the defaults: a whole Cicera match with heuristic rollouts in every
#: decision takes minutes per deal, so Cicera is measured on single hands.
CONFIG: dict[str, dict[str, object]] = {"cicera": {"game_mode": "single_hand"}}


def seats(game: str, bot: str, other: str, players: int) -> list[str]:
    if game in TEAMS:
        return [bot, other] * (players // 2)
    return [bot] + [other] * (players - 1)


def measure(game: str, bot: str, other: str, args: argparse.Namespace) -> str:
    g = tapete.load_game(game, **CONFIG.get(game, {}))
    bots = seats(game, bot, other, g.num_players())
    share = bots.count(bot) / len(bots)
    parts, actions, start = [], 0, time.perf_counter()
    while sum(len(p) for p in parts) < args.max_deals:
        played = sum(len(p) for p in parts)
        res = tapete.arena(g, bots, games=args.batch, seed=played, threads=args.threads)
        parts.append(res.values[:, 0] - res.values[:, 1])
        actions += res.actions
        d = np.concatenate(parts)
        mean, half = float(d.mean()), 1.96 * float(d.std(ddof=1)) / len(d) ** 0.5
        print(f"  {game}, {bot}: {len(d)} deals, {mean:+.3f} ± {half:.3f}", file=sys.stderr)
        if abs(mean) > half:
            break
    seconds = time.perf_counter() - start
    # Heuristic and random moves cost next to nothing: the time is the measured bot's.
    per_move = seconds * args.threads / max(1.0, actions * share)
    return (
        f"| {game} | {bot} vs {other} | {mean:+.3f} ± {half:.3f} | {len(d)} | "
        f"{per_move * 1e3:.2f} ms |"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--games", nargs="*", default=list(ITERATIONS))
    parser.add_argument("--batch", type=int, default=100)
    parser.add_argument("--max-deals", type=int, default=1000)
    parser.add_argument("--threads", type=int, default=2)
    args = parser.parse_args()
    print(f"{platform.machine()}, {args.threads} threads")
    print("| game | bot vs seats | mean difference per deal ± 95% | deals | time per move |")
    print("|---|---|---:|---:|---:|")
    for game in args.games:
        print(measure(game, "heuristic", "random", args), flush=True)
        spec = f"ismcts:iterations={ITERATIONS[game]},rollout=heuristic"
        print(measure(game, spec, "heuristic", args), flush=True)


if __name__ == "__main__":
    main()
