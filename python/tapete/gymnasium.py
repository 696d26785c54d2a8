"""Every tapete game as a single-agent Gymnasium environment, the other seats played by bots
(docs/interop.md).

Importing this module registers ``gymnasium.make("tapete/<game>-v0", ...)`` for every game;
``gymnasium.make("tapete.gymnasium:tapete/<game>-v0")`` imports it on the way.
"""

from __future__ import annotations

import contextlib
import operator
from collections.abc import Sequence
from typing import Any

import numpy as np
import numpy.typing as npt

from tapete import _core
from tapete._adapt import action_id, game_arg, missing_extra, render
from tapete._core import Game, State, list_games
from tapete.bots import Bot
from tapete.bots import make as make_bot
from tapete.errors import ConfigError, IllegalActionError

try:
    import gymnasium
    from gymnasium import spaces
except ImportError as error:
    raise missing_extra("gymnasium", "gymnasium") from error

__all__ = ["TapeteEnv", "make", "register"]

ILLEGAL_ACTION_MODES = ("terminate", "raise")
#: reset gives up (ConfigError) after this many deals in a row that end before the seat acts.
MAX_SKIPPED_DEALS = 100


def make(
    game: str | Game,
    seat: int = 0,
    opponents: str | Bot | Sequence[str | Bot] = "random",
    *,
    render_mode: str | None = None,
    illegal_action: str = "terminate",
    **config: Any,
) -> TapeteEnv:
    """The Gymnasium environment of ``game`` (a name, then ``config`` as for
    `tapete.load_game`, or a `tapete.Game`) seen from ``seat``, the other seats played by
    ``opponents``: one bot spec (or `tapete.bots.Bot`) for all of them, or one per other seat
    in seat order. See `TapeteEnv`."""
    return TapeteEnv(
        game, seat, opponents, render_mode=render_mode, illegal_action=illegal_action, **config
    )


class TapeteEnv(gymnasium.Env[npt.NDArray[np.float32], np.int64]):
    """One seat of a tapete game; the others are played by bots between the agent's turns.

    * Observation: the seat's observation tensor (float32); action: ``Discrete(A)`` with
      ``A = game.num_distinct_actions()``. `action_masks` (bool, sb3-contrib's MaskablePPO
      convention) and ``info["action_mask"]`` (int8, for ``action_space.sample(mask)``) give
      the legal actions; both are all zeros once the game is over.
    * Reward: the change of the seat's ``returns()`` from its action and every opponent action
      until its next turn (or the end); the first step's also holds what came before it (the
      antes, the opponents' moves in reset), so an episode's rewards add up to the returns.
      ``terminated`` when the game ends (``info["returns"]`` then holds every seat's
      returns); never truncated.
    * ``reset(seed=s)`` plays the deal ``game.new_initial_state(seed=s)`` with the opponent of
      seat ``p`` made with seed ``bot_seed(s, 0, 0, p)``, as ``tapete.arena(game, bots, 1,
      seed=s, duplicate=False)`` seeds them; ``reset()`` draws the deal from ``np_random``,
      which the last seeded reset seeded. A deal that ends before the seat's first decision is
      skipped for the next one drawn.
    * An illegal action changes nothing in the game. With ``illegal_action="terminate"`` (the
      default, PettingZoo's convention) it ends the episode with reward ``game.min_utility()``
      and ``info["illegal_action"] = True``; with ``"raise"`` it raises
      `tapete.IllegalActionError` and the episode goes on. An action outside the action space
      is a `tapete.IllegalActionError` (a ``TypeError`` if not an int) in both modes, and so
      is a step after the end.
    """

    metadata: dict[str, Any] = {"render_modes": ["human", "ansi"], "render_fps": 1}

    def __init__(
        self,
        game: str | Game,
        seat: int = 0,
        opponents: str | Bot | Sequence[str | Bot] = "random",
        *,
        render_mode: str | None = None,
        illegal_action: str = "terminate",
        **config: Any,
    ) -> None:
        self.game: Game = game_arg(game, config)
        if self.game.config().get("explicit_chance"):
            raise ConfigError(
                "Gymnasium has no chance player: load the game without explicit_chance"
            )
        n = self.game.num_players()
        # Any integer (numpy's too, as seeds and counts are), but not a bool.
        index = None
        if not isinstance(seat, (bool, np.bool_)):
            with contextlib.suppress(TypeError):  # no integer (a float, an array of several)
                index = operator.index(seat)
        if index is None or not 0 <= index < n:
            raise ConfigError(f"seat must be an int 0 <= seat < {n}, got {seat!r:.40}")
        self.seat = index
        self._opponents = _opponents(self.game, index, opponents)
        if render_mode is not None and render_mode not in self.metadata["render_modes"]:
            raise ConfigError(
                f"render_mode must be None, 'human' or 'ansi', got {render_mode!r:.40}"
            )
        self.render_mode = render_mode
        if illegal_action not in ILLEGAL_ACTION_MODES:
            raise ConfigError(
                f"illegal_action must be 'terminate' or 'raise', got {illegal_action!r:.40}"
            )
        self._raise_illegal = illegal_action == "raise"
        self._num_actions = self.game.num_distinct_actions()
        # Some tensor cells (balances, scores) have no bound a generic layer can know.
        self.observation_space = spaces.Box(
            -np.inf, np.inf, self.game.observation_tensor_shape(), np.float32
        )
        self.action_space = spaces.Discrete(self._num_actions)
        self._bots: dict[int, Bot] = {}
        self.game_state: State = self.game.new_initial_state(seed=0)
        self._over = True  # until the first reset
        self._paid = 0.0

    def reset(
        self, *, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[npt.NDArray[np.float32], dict[str, Any]]:
        """Starts a new game (see the class) and plays the opponents up to the seat's turn."""
        if seed is not None:
            self.game.new_initial_state(seed=seed)  # a bad seed is a ConfigError, before anything
            seed = operator.index(seed)  # numpy's integers as Gymnasium takes seeds: an int
        super().reset(seed=seed)
        deal = seed
        for _ in range(MAX_SKIPPED_DEALS):
            if deal is None:
                deal = int(self.np_random.integers(2**63))
            self._start(deal)
            self._play_opponents()
            if not self.game_state.is_terminal():
                break
            deal = None
        else:
            raise ConfigError(
                f"seat {self.seat} had no decision to make in {MAX_SKIPPED_DEALS} deals in a row"
            )
        self._over = False
        self._paid = 0.0  # the seat's returns that steps have reported so far
        return self._observation(), self._info()

    def step(
        self, action: int | np.integer[Any]
    ) -> tuple[npt.NDArray[np.float32], float, bool, bool, dict[str, Any]]:
        """Applies the seat's action, then the opponents' up to its next turn or the end."""
        if self._over:
            raise IllegalActionError("no episode under way: call reset()")
        state = self.game_state
        action = action_id(action)
        try:
            state.apply_action(action)
        except IllegalActionError:
            # Outside the action space is always an error; inside it, illegal_action decides.
            if self._raise_illegal or not 0 <= action < self._num_actions:
                raise
            self._over = True
            info = self._info()
            info["illegal_action"] = True
            return self._observation(), self.game.min_utility(), True, False, info
        self._play_opponents()
        # The change of the seat's returns since its last action: what the opponents' moves
        # brought meanwhile, and on the first step what was paid before it (antes, moves made
        # in reset), so that an episode's rewards add up to the returns.
        returns = state.returns()
        reward = returns[self.seat] - self._paid
        self._paid = returns[self.seat]
        terminated = state.is_terminal()
        self._over = terminated
        info = self._info()
        if terminated:
            info["returns"] = returns
        if self.render_mode == "human":
            self.render()
        return self._observation(), reward, terminated, False, info

    def action_masks(self) -> npt.NDArray[np.bool_]:
        """The seat's legal actions now, as a bool mask (all zeros once the game is over)."""
        if self.game_state.current_player() == self.seat and not self._over:
            return self.game_state.legal_actions_mask()
        return np.zeros(self._num_actions, np.bool_)

    def render(self) -> str | None:
        """The table (every seat's cards: a spectator's picture): printed with
        ``render_mode="human"``, returned with ``"ansi"``."""
        return render(self.render_mode, self.game_state)

    def _start(self, deal: int) -> None:
        self.game_state = self.game.new_initial_state(seed=deal)
        self._bots = {
            p: make_bot(b, self.game, _core.bot_seed(deal, 0, 0, p)) if isinstance(b, str) else b
            for p, b in self._opponents.items()
        }

    def _play_opponents(self) -> None:
        """Plays the bots up to the seat's turn or the end. A bot that fails (raises, or
        chooses an illegal action) ends the episode: the next ``step`` must not act for its
        seat."""
        state, seat, bots = self.game_state, self.seat, self._bots
        player = state.current_player()
        while player != seat and player >= 0:
            bot = bots[player]
            try:
                state.apply_action(bot.choose(state))
            except IllegalActionError as e:
                self._over = True
                name = getattr(bot, "name", type(bot).__name__)
                raise IllegalActionError(
                    f"the opponent at seat {player} ({name}) chose an illegal action: {e}; "
                    "the episode is over: call reset()"
                ) from None
            except BaseException:
                self._over = True
                raise
            player = state.current_player()

    def _observation(self) -> npt.NDArray[np.float32]:
        return self.game_state.observation_tensor(self.seat)

    def _info(self) -> dict[str, Any]:
        return {"action_mask": self.action_masks().view(np.int8)}


def _opponents(
    game: Game, seat: int, opponents: str | Bot | Sequence[str | Bot]
) -> dict[int, str | Bot]:
    """The bot (spec or object) of every seat but ``seat``; bad specs fail here, not mid-game."""
    others = [p for p in range(game.num_players()) if p != seat]
    if isinstance(opponents, str) or isinstance(opponents, Bot):
        chosen: list[str | Bot] = [opponents] * len(others)
    elif isinstance(opponents, Sequence) and len(opponents) == len(others):
        chosen = list(opponents)
    else:
        raise ConfigError(
            f"opponents must be one bot spec (or bot) or a sequence of {len(others)}, one per "
            f"other seat, got {opponents!r:.60}"
        )
    for b in chosen:
        if isinstance(b, str):
            make_bot(b, game, 0)  # ConfigError on a bad spec
        elif not isinstance(b, Bot):
            raise ConfigError(f"a bot is a spec string or has choose(state), got {b!r:.60}")
    return dict(zip(others, chosen, strict=True))


def register() -> list[str]:
    """Registers ``tapete/<game>-v0`` with Gymnasium for every game (done on import); the
    ids. ``gymnasium.make(id, seat=..., opponents=..., **config)`` passes its arguments on."""
    ids = []
    for name in list_games():
        env_id = f"tapete/{name}-v0"
        if env_id not in gymnasium.registry:
            gymnasium.register(
                id=env_id, entry_point="tapete.gymnasium:make", kwargs={"game": name}
            )
        ids.append(env_id)
    return ids


register()
