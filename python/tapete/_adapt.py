"""What the adapters to other libraries share: the game argument, the action id, rendering
and the missing-extra error."""

from __future__ import annotations

import operator
from typing import Any

import numpy as np

from tapete._core import Game, State, load_game
from tapete.errors import ConfigError

__all__ = ["action_id", "game_arg", "missing_extra", "render"]


def game_arg(game: str | Game, config: dict[str, Any]) -> Game:
    """``game`` as a `Game`: a name is loaded with ``config``; a `Game` already has its config,
    so none may be given with it."""
    if isinstance(game, str):
        return load_game(game, **config)
    if not isinstance(game, Game):
        raise TypeError(f"game must be a game name or a tapete.Game, got {type(game).__name__}")
    if config:
        raise ConfigError(
            f"config options ({', '.join(sorted(config))}) go with a game name, "
            "not with a tapete.Game that already has its config"
        )
    return game


def integer(value: object, what: str) -> int:
    """``value`` as an int: any integer (numpy's too), but not a bool (numpy's neither, which
    numpy 1 gives ``__index__``); anything else is a `TypeError` saying ``what`` it must be."""
    if not isinstance(value, (bool, np.bool_)):
        try:
            return operator.index(value)  # type: ignore[arg-type]
        except TypeError:  # no integer (an array of one integer has __index__ yet refuses)
            pass
    raise TypeError(f"{what}, got {value!r:.40}")


def action_id(action: object) -> int:
    """``action`` as an int action id (`integer`), as `State.apply_action` takes one."""
    return integer(action, "an action is an int action id")


def plain(value: Any) -> Any:
    """A numpy integer as the Python int it is: seeds and counts take any integer type, as the
    engine does (numpy's bool is no integer); anything else as given, for the checks to judge."""
    return int(value) if isinstance(value, np.integer) else value


def missing_extra(module: str, extra: str) -> ImportError:
    """The error an adapter raises when its host library is not installed."""
    return ImportError(
        f"tapete.{module} needs the optional dependency {extra!r}: pip install 'tapete[{extra}]'"
    )


def render(render_mode: str | None, state: State) -> str | None:
    """The table (every seat's cards: a spectator's picture): printed with
    ``render_mode="human"``, returned with ``"ansi"``; a warning without a render mode."""
    if render_mode is None:
        import gymnasium  # both host libraries log through Gymnasium

        gymnasium.logger.warn("render() was called without a render_mode")
        return None
    text = str(state)
    if render_mode == "ansi":
        return text
    print(text)
    return None
