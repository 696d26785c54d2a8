"""The batch environment: many games stepped at once in Rust into numpy arrays (docs/vector.md)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np
import numpy.typing as npt

from tapete import _core
from tapete._adapt import action_id, integer
from tapete._core import Game, State, load_game
from tapete.errors import ConfigError, IllegalActionError

__all__ = ["Batch", "VectorEnv"]

_INT64_MAX = int(np.iinfo(np.int64).max)


def _action_ids(items: list[Any] | tuple[Any, ...]) -> list[int] | None:
    """The items as int action ids (`action_id`), or ``None`` if one is not an integer."""
    if all(type(x) is int for x in items):  # the usual list, without a call per item
        return list(items)
    try:
        return [action_id(x) for x in items]
    except TypeError:
        return None


@dataclass(frozen=True, slots=True)
class Batch:
    """What `VectorEnv.reset` and `VectorEnv.step` return: fresh arrays, one row per env."""

    #: float32 ``(N, *obs)`` (``observe="current"``), ``(N, P, *obs)`` (``"all"``) or ``None``;
    #: zeros where an env's game is over.
    observation: npt.NDArray[np.float32] | None
    #: bool ``(N, A)``: the current player's legal actions.
    legal_mask: npt.NDArray[np.bool_]
    #: int32 ``(N,)``: the seat to act, ``tapete.TERMINAL`` where an env's game is over.
    current_player: npt.NDArray[np.int32]
    #: float32 ``(N, P)``: every seat's reward for the action just applied (zeros after reset).
    rewards: npt.NDArray[np.float32]
    #: bool ``(N,)``: env i's game ended with this step.
    terminated: npt.NDArray[np.bool_]
    #: int64 ``(N,)``: index k of the game env i is now in (0 after reset).
    episode: npt.NDArray[np.int64]


class VectorEnv:
    """``num_envs`` games of one config, stepped together natively (without the GIL).

    Game ``k`` of env ``i`` is ``game.new_initial_state(seed=seed + k * num_envs + i)``.
    ``observe``: ``"current"`` (the current player's tensor), ``"all"`` (every seat's) or
    ``"none"``. ``autoreset``: ``"same_step"`` (a finished env already shows its next game),
    ``"next_step"`` (it shows the end; its next step starts the next game and ignores the
    action) or ``"disabled"`` (it stays over and ignores its actions). ``threads`` splits the
    envs over native threads; the results do not depend on it.
    """

    def __init__(
        self,
        game: str | Game,
        num_envs: int,
        *,
        seed: int = 0,
        threads: int = 1,
        observe: str = "current",
        autoreset: str = "same_step",
        **config: Any,
    ) -> None:
        if isinstance(game, str):
            game = load_game(game, **config)
        elif not isinstance(game, Game):
            raise TypeError(f"game must be a game name or a tapete.Game, got {type(game).__name__}")
        elif config:
            raise ConfigError(
                f"config options ({', '.join(sorted(config))}) go with a game name, "
                "not with a tapete.Game that already has its config"
            )
        self._env = _core.VectorEnv(game, num_envs, seed, threads, observe, autoreset)
        self._num_envs: int = self._env.num_envs

    @property
    def num_envs(self) -> int:
        """The number of games stepped together."""
        return self._num_envs

    @property
    def game(self) -> Game:
        """The game (with its config) every env plays."""
        return self._env.game

    def reset(self, seed: int | None = None) -> Batch:
        """Starts game 0 of every env (from ``seed`` if given, else the last seed) and returns
        the first batch."""
        return Batch(*self._env.reset(seed))

    def step(self, actions: npt.ArrayLike) -> Batch:
        """Applies ``actions[i]`` in env ``i`` (ignored where the env's game is over).

        An illegal action in any env raises `tapete.IllegalActionError` naming the env and the
        action, and no env is stepped; ``actions`` of another shape than ``(num_envs,)`` is a
        ``ValueError``, of a non-integer dtype (or a str, or None) a ``TypeError``.
        """
        given: Any = actions
        listed = isinstance(given, list | tuple)
        ids = _action_ids(given) if listed else None
        a: Any
        if ids is None:
            a = np.asarray(given)
        else:
            # A list read as Python ints: numpy would make [5, 2**63] floats and [2**70] objects;
            # those beyond int64 stay Python ints, for their message below.
            try:
                a = np.array(ids, dtype=np.int64)
            except OverflowError:
                a = np.array(ids, dtype=object)
        if given is None or isinstance(given, str | bytes):  # not an array of any shape
            raise TypeError(f"actions must be integers, got {type(given).__name__}")
        if a.shape != (self._num_envs,):
            raise ValueError(f"actions must have shape ({self._num_envs},), got {a.shape}")
        if listed and ids is None:
            # not all integers: [True, 3] would read as [1, 3], [1.0, 3] as floats
            kinds = ", ".join(sorted({type(x).__name__ for x in given}))
            raise TypeError(f"actions must be integers, got a list of {kinds}")
        if a.dtype.kind not in "iu" and not listed:
            raise TypeError(f"actions must be integers, got dtype {a.dtype}")
        if a.dtype == np.int64 or not ((a > _INT64_MAX) | (a < -_INT64_MAX - 1)).any():
            return Batch(*self._env.step(np.ascontiguousarray(a, dtype=np.int64)))
        # Beyond int64: out of range either way, stepped as int64's nearest, and the message
        # of such an env's action given back its own value.
        clipped = np.clip(a, -_INT64_MAX - 1, _INT64_MAX).astype(np.int64)
        try:
            return Batch(*self._env.step(clipped))
        except IllegalActionError as error:
            env = int(str(error).split(":", 1)[0].removeprefix("env "))
            message = str(error).replace(f"action {clipped[env]} ", f"action {a[env]} ", 1)
            raise IllegalActionError(message) from None

    def random_actions(self, seed: int) -> npt.NDArray[np.int64]:
        """A uniformly random legal action per env (-1 where its game is over), env ``i``
        drawing from SplitMix64 seeded with ``(seed + i) * 0x2545F4914F6CDD1D mod 2**64``."""
        return self._env.random_actions(seed)

    def state(self, i: int) -> State:
        """A copy of env ``i``'s current state."""
        return self._env.state(integer(i, "env must be an int"))

    def __repr__(self) -> str:
        return f"VectorEnv({self.game.name!r}, num_envs={self._num_envs})"
