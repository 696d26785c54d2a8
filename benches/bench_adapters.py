"""The PettingZoo and Gymnasium adapters against the raw State loop, side by side in one run.

Every loop plays uniformly random legal actions picked from the action mask and fetches the
acting seat's observation tensor and mask at every decision, as an RL loop would:

* state: ``observation_tensor(p)``, ``legal_actions_mask()``, ``apply_action`` on a State;
* pettingzoo: ``tapete.pettingzoo.env`` through ``agent_iter()`` / ``last()`` / ``step()``;
  +wrappers: the same inside PettingZoo's three standard wrappers (what its classic games use;
  tapete builds their behaviour in instead, for this cost);
* gymnasium: ``tapete.gymnasium.make(game, opponents="random")``: its steps are the agent's
  decisions, each also playing the three random opponents natively (actions/s counts all);
* PettingZoo's own classic games (texas_holdem_v4, connect_four_v3) through the same AEC loop,
  when installed (``pip install pygame rlcard``).

Steps per second of the process's CPU time (``time.process_time``: the machine may be shared),
medians of several rounds; steps are game actions (an AEC step of a finished agent is not one).
Never in CI.
"""

from __future__ import annotations

import argparse
import os
import platform
import random
import statistics
import time
from collections.abc import Callable
from typing import Any

import numpy as np
from pettingzoo.utils import wrappers

import tapete
import tapete.gymnasium as tgym
import tapete.pettingzoo as tpz

GAMES = ["spoil_five", "cicera", "cau_robat", "cuajo"]


def state_loop(name: str, steps: int) -> Callable[[], int]:
    game = tapete.load_game(name)
    rnd = random.Random(0).random
    box = [game.new_initial_state(seed=0), 1]

    def run() -> int:
        state, seed = box
        for _ in range(steps):
            p = state.current_player()
            state.observation_tensor(p)
            legal = state.legal_actions_mask().nonzero()[0]
            state.apply_action(int(legal[int(rnd() * len(legal))]))
            if state.is_terminal():
                state, seed = game.new_initial_state(seed=seed), seed + 1
        box[:] = [state, seed]
        return steps

    return run


def aec_loop(env: Any, steps: int) -> Callable[[], int]:
    rnd = random.Random(0).random
    env.reset(seed=0)

    def run() -> int:
        done = 0
        while done < steps:
            for _agent in env.agent_iter():
                obs, _, terminated, truncated, _ = env.last()
                if terminated or truncated:
                    env.step(None)
                    continue
                legal = obs["action_mask"].nonzero()[0]
                env.step(int(legal[int(rnd() * len(legal))]))
                done += 1
                if done == steps:
                    break
            if not env.agents:
                env.reset()
        return done

    return run


def wrapped(name: str) -> Any:
    env = wrappers.TerminateIllegalWrapper(tpz.raw_env(name), illegal_reward=-1)
    return wrappers.OrderEnforcingWrapper(wrappers.AssertOutOfBoundsWrapper(env))


def gym_loop(name: str, steps: int, actions: list[int]) -> Callable[[], int]:
    env = tgym.make(name, opponents="random")
    rnd = random.Random(0).random
    box = list(env.reset(seed=0))

    def run() -> int:
        _, info = box
        played = -len(env.game_state.history())
        for _ in range(steps):
            legal = info["action_mask"].nonzero()[0]
            _, _, terminated, _, info = env.step(int(legal[int(rnd() * len(legal))]))
            if terminated:
                played += len(env.game_state.history())
                _, info = env.reset()
                played -= len(env.game_state.history())
        played += len(env.game_state.history())
        box[1] = info
        actions.append(played)
        return steps

    return run


def classic(env_name: str) -> Any | None:
    try:
        if env_name == "texas_holdem_v4":
            from pettingzoo.classic import texas_holdem_v4 as module
        else:
            from pettingzoo.classic import connect_four_v3 as module
    except ImportError:
        return None
    return module.env()


def median_rate(run: Callable[[], int], rounds: int) -> float:
    """Steps per second of this process's CPU time (the machine may be shared), median."""
    run()  # warm up
    rates = []
    for _ in range(rounds):
        start = time.process_time()
        done = run()
        rates.append(done / (time.process_time() - start))
    return statistics.median(rates)


def cpu_model() -> str:
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine()


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__)
    p.add_argument("--steps", type=int, default=20_000, help="game actions a round")
    p.add_argument("--rounds", type=int, default=5)
    p.add_argument("--games", nargs="*", default=GAMES)
    args = p.parse_args()
    print(
        f"{cpu_model()}, {os.cpu_count()} cores, Python {platform.python_version()}, "
        f"numpy {np.__version__}, load average {os.getloadavg()[0]:.2f} at start"
    )
    print(f"{args.steps} steps a round, median of {args.rounds} rounds; k steps per CPU second")
    print(
        f"{'game':<11} {'state':>7} {'pz':>7} {'+wrappers':>10} {'gym':>7} {'gym act':>8} "
        f"{'state/pz':>9} {'state/gym act':>14}"
    )
    steps, rounds = args.steps, args.rounds
    for name in args.games:
        state = median_rate(state_loop(name, steps), rounds)
        pz = median_rate(aec_loop(tpz.env(name), steps), rounds)
        slow = median_rate(aec_loop(wrapped(name), max(1, steps // 10)), rounds)
        actions: list[int] = []
        # A gym step is several actions: fewer steps a round, about as many actions.
        gym_steps = max(1, steps // 4)
        gym = median_rate(gym_loop(name, gym_steps, actions), rounds)
        per_step = sum(actions) / (gym_steps * len(actions))
        print(
            f"{name:<11} {state / 1e3:7.1f} {pz / 1e3:7.1f} {slow / 1e3:10.1f} "
            f"{gym / 1e3:7.1f} {gym * per_step / 1e3:8.1f} {state / pz:8.2f}x "
            f"{state / (gym * per_step):13.2f}x"
        )
    for env_name in ("texas_holdem_v4", "connect_four_v3"):
        env = classic(env_name)
        if env is None:
            print(f"PettingZoo {env_name}: not installed (pip install pygame rlcard)")
            continue
        rate = median_rate(aec_loop(env, max(1, steps // 4)), rounds)
        print(f"PettingZoo {env_name} (the same AEC loop): {rate / 1e3:.1f} k steps/s")
    print(f"load average {os.getloadavg()[0]:.2f} at end")


if __name__ == "__main__":
    main()
