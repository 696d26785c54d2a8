"""Every tapete game as a PettingZoo AEC environment (docs/interop.md).

``env(game)`` is what PettingZoo's classic games give: the raw environment inside PettingZoo's
standard wrappers, so an illegal action ends the game with the worst result of the game for
the player who made it (``game.min_utility()``). ``raw_env(game)`` is the bare environment: an
illegal action raises `tapete.IllegalActionError` and changes nothing.
"""

from __future__ import annotations

import operator
from typing import Any

import numpy as np
import numpy.typing as npt

from tapete._adapt import game_arg, missing_extra
from tapete._core import Game, State
from tapete.errors import ConfigError

try:
    import gymnasium
    from gymnasium import spaces
    from pettingzoo import AECEnv
    from pettingzoo.utils import wrappers
except ImportError as error:
    raise missing_extra("pettingzoo", "pettingzoo") from error

__all__ = ["env", "raw_env"]

Observation = dict[str, npt.NDArray[Any]]


def env(game: str | Game, render_mode: str | None = None, **config: Any) -> AECEnv:
    """The AEC environment of ``game`` (a name, then ``config`` as for `tapete.load_game`, or a
    `tapete.Game`), wrapped as PettingZoo's classic games are: an illegal action ends the game
    with ``game.min_utility()`` for its player and 0 for the others (``TerminateIllegalWrapper``);
    an action outside the action space is an ``AssertionError`` (``AssertOutOfBoundsWrapper``);
    calls out of order are refused (``OrderEnforcingWrapper``). The game's state is never
    changed by a refused action."""
    raw = raw_env(game, render_mode=render_mode, **config)
    wrapped = wrappers.TerminateIllegalWrapper(raw, illegal_reward=raw.game.min_utility())
    wrapped = wrappers.AssertOutOfBoundsWrapper(wrapped)
    return wrappers.OrderEnforcingWrapper(wrapped)


class raw_env(AECEnv):  # type: ignore[misc]  # PettingZoo ships no type information
    """One tapete game as an AEC environment, without wrappers.

    Agents ``"player_0"`` … are the seats. An observation is ``{"observation": the seat's
    observation tensor, "action_mask": int8, 1 for each legal action}``; the mask is all zeros
    for a seat that is not to act. Rewards are the state's ``rewards()`` after every action,
    so an agent's rewards add up to its ``returns()``. Every agent terminates when the game
    ends; nothing is ever truncated (every game ends). An illegal action raises
    `tapete.IllegalActionError` and changes nothing.
    """

    metadata: dict[str, Any] = {
        "render_modes": ["human", "ansi"],
        "name": "tapete",
        "is_parallelizable": False,
        "render_fps": 1,
    }

    def __init__(self, game: str | Game, render_mode: str | None = None, **config: Any) -> None:
        super().__init__()
        self.game: Game = game_arg(game, config)
        if self.game.config().get("explicit_chance"):
            raise ConfigError(
                "PettingZoo has no chance player: load the game without explicit_chance"
            )
        if render_mode is not None and render_mode not in self.metadata["render_modes"]:
            raise ConfigError(
                f"render_mode must be None, 'human' or 'ansi', got {render_mode!r:.40}"
            )
        self.render_mode = render_mode
        self.metadata = {**type(self).metadata, "name": f"tapete_{self.game.name}_v0"}
        self._num_actions = self.game.num_distinct_actions()
        self.possible_agents: list[str] = [f"player_{s}" for s in range(self.game.num_players())]
        self._seat = {agent: seat for seat, agent in enumerate(self.possible_agents)}
        shape = self.game.observation_tensor_shape()
        # Some tensor cells (balances, scores) have no bound a generic layer can know.
        self.observation_spaces = {
            agent: spaces.Dict(
                {
                    "observation": spaces.Box(-np.inf, np.inf, shape, np.float32),
                    "action_mask": spaces.Box(0, 1, (self._num_actions,), np.int8),
                }
            )
            for agent in self.possible_agents
        }
        self.action_spaces = {
            agent: spaces.Discrete(self._num_actions) for agent in self.possible_agents
        }
        # Draws the deal seeds of unseeded resets; reseeded by every seeded reset.
        self._rng = np.random.default_rng()
        self.reset()

    def observation_space(self, agent: str) -> spaces.Space[Any]:
        """The agent's observation space (the same object on every call)."""
        return self.observation_spaces[agent]

    def action_space(self, agent: str) -> spaces.Space[Any]:
        """The agent's action space: ``Discrete(game.num_distinct_actions())``."""
        return self.action_spaces[agent]

    def reset(self, seed: int | None = None, options: dict[str, Any] | None = None) -> None:
        """Starts a new game: ``game.new_initial_state(seed=seed)``; without a seed, the seed is
        drawn from a generator seeded by the last seeded reset (or fresh at construction)."""
        if seed is None:
            self.game_state: State = self.game.new_initial_state(
                seed=int(self._rng.integers(2**63))
            )
        else:
            self.game_state = self.game.new_initial_state(seed=seed)  # ConfigError if bad
            self._rng = np.random.default_rng(seed)
        self.agents = self.possible_agents[:]
        self.rewards = dict.fromkeys(self.agents, 0.0)
        self._cumulative_rewards = dict.fromkeys(self.agents, 0.0)
        self.terminations = dict.fromkeys(self.agents, False)
        self.truncations = dict.fromkeys(self.agents, False)
        self.infos: dict[str, dict[str, Any]] = {agent: {} for agent in self.agents}
        self.agent_selection = self.agents[self.game_state.current_player()]

    def step(self, action: int | None) -> None:
        """Applies the selected agent's action (``None`` once it has terminated)."""
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        state = self.game_state
        state.apply_action(operator.index(action))  # type: ignore[arg-type]  # TypeError if None
        cumulative = self._cumulative_rewards
        cumulative[agent] = 0.0
        for other, reward in zip(self.possible_agents, state.rewards(), strict=True):
            self.rewards[other] = reward
            cumulative[other] += reward
        player = state.current_player()
        if player >= 0:
            self.agent_selection = self.possible_agents[player]
        else:
            self.terminations = dict.fromkeys(self.agents, True)
            self._deads_step_first()
        if self.render_mode == "human":
            self.render()

    def observe(self, agent: str) -> Observation:
        """The agent's observation tensor and its action mask (zeros unless it is to act)."""
        seat = self._seat[agent]
        state = self.game_state
        if seat == state.current_player():
            mask = state.legal_actions_mask().view(np.int8)
        else:
            mask = np.zeros(self._num_actions, np.int8)
        return {"observation": state.observation_tensor(seat), "action_mask": mask}

    def render(self) -> str | None:
        """The table (every seat's cards: a spectator's picture): printed with
        ``render_mode="human"``, returned with ``"ansi"``."""
        if self.render_mode is None:
            gymnasium.logger.warn("render() was called without a render_mode")
            return None
        text = str(self.game_state)
        if self.render_mode == "ansi":
            return text
        print(text)
        return None

    def close(self) -> None:
        """Nothing to release."""
