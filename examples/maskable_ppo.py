"""Train sb3-contrib's MaskablePPO on Cau Robat against three random players (not run in CI).

    pip install 'tapete[gymnasium]' sb3-contrib
    python examples/maskable_ppo.py --timesteps 200000

Prints the agent's win rate and mean return against random opponents before and after training,
with two references measured the same way: uniformly random play (about 1/4 of the wins and a
mean return of 0, by symmetry) and tapete's heuristic bot. The evaluation deals (seeds from
10**9) are not among the training deals.
"""

from __future__ import annotations

import argparse
import time
from collections.abc import Callable

import numpy as np
import torch
from sb3_contrib import MaskablePPO

import tapete
import tapete.gymnasium as tgym

GAME = "cau_robat"


def evaluate(choose: Callable[[tgym.TapeteEnv, np.ndarray], int], episodes: int) -> str:
    """Win rate and mean return of ``choose(env, obs)`` over ``episodes`` fresh deals."""
    env = tgym.make(GAME, seat=0, opponents="random")
    wins, total = 0, 0.0
    for episode in range(episodes):
        obs, _ = env.reset(seed=10**9 + episode)
        episode_return, terminated = 0.0, False
        while not terminated:
            obs, reward, terminated, _, _ = env.step(choose(env, obs))
            episode_return += reward
        wins += episode_return > 0
        total += episode_return
    return f"win rate {wins / episodes:6.1%}, mean return {total / episodes:+.3f}"


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__)
    p.add_argument("--timesteps", type=int, default=200_000, help="agent decisions to train on")
    p.add_argument("--episodes", type=int, default=2000, help="evaluation deals")
    p.add_argument("--seed", type=int, default=0)
    args = p.parse_args()
    torch.set_num_threads(1)  # a small MLP: more threads only contend for the cores

    env = tgym.make(GAME, seat=0, opponents="random")
    env.reset(seed=args.seed)  # the training deals follow from this seed
    model = MaskablePPO("MlpPolicy", env, seed=args.seed, verbose=0)

    def policy(env: tgym.TapeteEnv, obs: np.ndarray) -> int:
        action, _ = model.predict(obs, action_masks=env.action_masks(), deterministic=True)
        return int(action)

    rng = np.random.default_rng(args.seed)

    def uniform(env: tgym.TapeteEnv, obs: np.ndarray) -> int:
        return int(rng.choice(np.flatnonzero(env.action_masks())))

    bot = tapete.bots.make("heuristic", env.game, seed=args.seed)

    def heuristic(env: tgym.TapeteEnv, obs: np.ndarray) -> int:
        return bot.choose(env.game_state)

    print(f"{GAME}, 4 players, seat 0 against 3 random players, {args.episodes} deals each")
    print(f"  uniformly random play: {evaluate(uniform, args.episodes)}")
    print(f"  tapete's heuristic:    {evaluate(heuristic, args.episodes)}")
    print(f"  MaskablePPO untrained: {evaluate(policy, args.episodes)}")
    start = time.perf_counter()
    model.learn(total_timesteps=args.timesteps)
    seconds = time.perf_counter() - start
    print(f"  MaskablePPO trained:   {evaluate(policy, args.episodes)}")
    print(f"  ({args.timesteps} decisions in {seconds:.0f} s: {args.timesteps / seconds:.0f}/s)")


if __name__ == "__main__":
    main()
