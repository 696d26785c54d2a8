"""Every tapete game as a PettingZoo AEC environment (docs/interop.md).

``env(game)`` behaves as PettingZoo's classic games do inside their standard wrappers: an
illegal action ends the game, with the worst result of the game (``game.min_utility()``) for
the player who made it. ``raw_env(game)`` raises `tapete.IllegalActionError` instead. Either
way the game's state is never changed by a refused action. Both are one class with no wrapper
layers: PettingZoo's wrappers cost more per step than the whole game (docs/interop.md).
"""

from __future__ import annotations

from typing import Any

import numpy as np
import numpy.typing as npt

from tapete._adapt import action_id, game_arg, missing_extra, render
from tapete._core import Game, State
from tapete.errors import ConfigError, IllegalActionError

try:
    from gymnasium import spaces
    from pettingzoo import AECEnv
    from pettingzoo.utils.env_logger import EnvLogger
except ImportError as error:
    raise missing_extra("pettingzoo", "pettingzoo") from error

__all__ = ["TapeteAECEnv", "env", "raw_env"]

Observation = dict[str, npt.NDArray[Any]]

ILLEGAL_ACTION_MODES = ("terminate", "raise")
_INT8 = np.dtype(np.int8)


def env(
    game: str | Game,
    render_mode: str | None = None,
    *,
    illegal_action: str = "terminate",
    **config: Any,
) -> TapeteAECEnv:
    """The AEC environment of ``game`` (a name, then ``config`` as for `tapete.load_game`, or a
    `tapete.Game`). An illegal action ends the game as PettingZoo's classic games do (see
    `TapeteAECEnv`)."""
    return TapeteAECEnv(game, render_mode, illegal_action=illegal_action, **config)


def raw_env(game: str | Game, render_mode: str | None = None, **config: Any) -> TapeteAECEnv:
    """The same environment where an illegal action raises `tapete.IllegalActionError` and the
    game goes on."""
    return TapeteAECEnv(game, render_mode, illegal_action="raise", **config)


class TapeteAECEnv(AECEnv):  # type: ignore[misc]  # PettingZoo ships no type information
    """One tapete game as a PettingZoo AEC environment.

    * Agents ``"player_0"`` … are the seats. An observation is ``{"observation": the seat's
      observation tensor (float32), "action_mask": int8, 1 for each legal action}``; the mask
      is all zeros for a seat that is not to act, and for everyone once the game is over.
    * Rewards are the state's ``rewards()`` after every action, so an agent's rewards (what
      ``last()`` reports, accumulated since its previous turn) add up to its ``returns()``.
      Every agent terminates when the game ends; nothing is truncated (every game ends).
    * ``reset(seed=s)`` plays ``game.new_initial_state(seed=s)``; ``reset()`` draws the seed
      from a generator that the last seeded reset seeded (fresh entropy at construction).
    * An action must be an int in the action space: anything else is a ``TypeError`` or
      `tapete.IllegalActionError`. An illegal one, with ``illegal_action="terminate"``, ends
      the game as PettingZoo's ``TerminateIllegalWrapper`` does: reward
      ``game.min_utility()`` for its player (and ``infos[agent]["illegal_action"]``), 0 for
      the others, everyone terminated; with ``"raise"`` it raises
      `tapete.IllegalActionError` and the game goes on. The state is left as it was.
    """

    metadata: dict[str, Any] = {
        "render_modes": ["human", "ansi"],
        "name": "tapete",
        "is_parallelizable": False,
        "render_fps": 1,
    }

    def __init__(
        self,
        game: str | Game,
        render_mode: str | None = None,
        *,
        illegal_action: str = "terminate",
        **config: Any,
    ) -> None:
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
        if illegal_action not in ILLEGAL_ACTION_MODES:
            raise ConfigError(
                f"illegal_action must be 'terminate' or 'raise', got {illegal_action!r:.40}"
            )
        self.render_mode = render_mode
        self._raise_illegal = illegal_action == "raise"
        self.metadata = {**type(self).metadata, "name": f"tapete_{self.game.name}_v0"}
        self._num_actions = self.game.num_distinct_actions()
        self._no_actions = np.zeros(self._num_actions, _INT8)
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
        # Draws the seeds of unseeded resets; reseeded by every seeded reset.
        self._rng = np.random.default_rng()
        self.reset()

    def observation_space(self, agent: str) -> spaces.Space[Any]:
        """The agent's observation space (the same object on every call)."""
        return self.observation_spaces[self._agent(agent)]

    def action_space(self, agent: str) -> spaces.Space[Any]:
        """The agent's action space: ``Discrete(game.num_distinct_actions())``."""
        return self.action_spaces[self._agent(agent)]

    def _agent(self, agent: object) -> str:
        """``agent`` if it names one of the agents, else a `KeyError` that lists them."""
        if not isinstance(agent, str) or agent not in self._seat:
            raise KeyError(
                f"no agent {agent!r:.40}: the agents are {', '.join(self.possible_agents)}"
            )
        return agent

    def reset(self, seed: int | None = None, options: dict[str, Any] | None = None) -> None:
        """Starts a new game (see the class); a bad seed is a `tapete.ConfigError` and changes
        nothing."""
        if seed is None:
            state = self.game.new_initial_state(seed=int(self._rng.integers(2**63)))
        else:
            state = self.game.new_initial_state(seed=seed)
            self._rng = np.random.default_rng(seed)
        self.game_state: State = state
        self._over = False
        self._rewarded = False  # whether self.rewards holds a nonzero reward
        self.agents = self.possible_agents[:]
        self.rewards = dict.fromkeys(self.agents, 0.0)
        self._cumulative_rewards = dict.fromkeys(self.agents, 0.0)
        self.terminations = dict.fromkeys(self.agents, False)
        self.truncations = dict.fromkeys(self.agents, False)
        self.infos: dict[str, dict[str, Any]] = {agent: {} for agent in self.agents}
        self.agent_selection = self.agents[state.current_player()]

    def step(self, action: int | None) -> None:
        """Applies the selected agent's action (``None`` once it has terminated)."""
        if not self.agents:
            EnvLogger.warn_step_after_terminated_truncated()
            return
        agent = self.agent_selection
        if self._over:
            self._was_dead_step(action)
            return
        if action is None:
            raise TypeError(f"{agent} is to act: None is only for a terminated agent")
        state = self.game_state
        action = action_id(action)
        try:
            state.apply_action(action)
        except IllegalActionError:
            if self._raise_illegal or not 0 <= action < self._num_actions:
                raise
            self._end_on_illegal(agent)
            return
        cumulative = self._cumulative_rewards
        cumulative[agent] = 0.0
        rewards = state.rewards()
        # Most actions earn nothing: the dicts are rewritten only when rewards change.
        if any(rewards) or self._rewarded:
            self._rewarded = any(rewards)
            self.rewards = dict(zip(self.possible_agents, rewards, strict=True))
            for other, reward in self.rewards.items():
                cumulative[other] += reward
        player = state.current_player()
        if player >= 0:
            self.agent_selection = self.possible_agents[player]
        else:
            self._over = True
            self.terminations = dict.fromkeys(self.agents, True)
            self._deads_step_first()
        if self.render_mode == "human":
            self.render()

    def _end_on_illegal(self, agent: str) -> None:
        EnvLogger.warn_on_illegal_move()
        self._over = True
        self.rewards = dict.fromkeys(self.agents, 0.0)
        self.rewards[agent] = self.game.min_utility()
        self._cumulative_rewards[agent] = self.rewards[agent]
        self.terminations = dict.fromkeys(self.agents, True)
        self.infos[agent] = {"illegal_action": True}
        self._deads_step_first()

    def observe(self, agent: str) -> Observation:
        """The agent's observation tensor and its action mask (zeros unless it is to act)."""
        seat = self._seat[self._agent(agent)]
        state = self.game_state
        if seat == state.current_player() and not self._over:
            mask = state.legal_actions_mask().view(_INT8)
        else:
            mask = self._no_actions.copy()
        return {"observation": state.observation_tensor(seat), "action_mask": mask}

    def render(self) -> str | None:
        """The table (every seat's cards: a spectator's picture): printed with
        ``render_mode="human"``, returned with ``"ansi"``."""
        return render(self.render_mode, self.game_state)

    def close(self) -> None:
        """Nothing to release."""
