"""``tapete watch GAME --bots SPEC...``: bots play a whole game while you watch, narrated.

You watch over the shoulder of one seat (``--seat``, default 0): the table is drawn as that seat
sees it and the moves are told as it witnessed them, so the other hands stay hidden exactly as
in ``tapete play`` (the narration calls that seat "you"). ``--delay`` seconds pass after each
move that shows something; between deals the watch waits for Enter on a terminal.
"""

from __future__ import annotations

import argparse
import math
import sys
import time
from collections.abc import Callable

from rich.console import Console
from rich.text import Text

from tapete.cli import (
    _seed,
    make_bots,
    pause_between_deals,
    print_game_over,
    seated_game,
    split_bot_specs,
    ui_for,
)
from tapete.cli._ui import CliError, Move

__all__ = ["add_arguments", "cmd_watch"]

DEFAULT_DELAY = 0.5


def _delay(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a number of seconds, got {text!r}") from None
    if not (math.isfinite(value) and 0 <= value <= 3600):
        raise argparse.ArgumentTypeError(f"a delay is 0 … 3600 seconds, got {text}")
    return value


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """The arguments of ``tapete watch``."""
    parser.add_argument("game", help="a game name (see 'tapete games')")
    parser.add_argument("options", nargs="*", default=[], metavar="key=value", help="game options")
    parser.add_argument(
        "--bots",
        nargs="+",
        default=["heuristic"],
        metavar="SPEC",
        help="the players: one bot spec for every seat or one per seat, e.g. "
        "heuristic,random,ismcts:iterations=200,random (default heuristic)",
    )
    parser.add_argument(
        "--players", type=int, help="number of players (games with a variable count only)"
    )
    parser.add_argument(
        "--seat", type=int, default=0, help="the seat whose cards you see (default 0)"
    )
    parser.add_argument("--seed", type=_seed, help="seed of the game and the bots")
    parser.add_argument(
        "--delay",
        type=_delay,
        default=DEFAULT_DELAY,
        metavar="S",
        help=f"seconds to wait after each move (default {DEFAULT_DELAY}; 0: no wait)",
    )
    parser.add_argument(
        "--no-pause", action="store_true", help="do not wait for Enter between deals"
    )


def cmd_watch(
    args: argparse.Namespace, console: Console, sleep: Callable[[float], None] = time.sleep
) -> int:
    """``tapete watch``: the bots of ``--bots`` play one game, narrated as ``--seat`` sees it;
    ``sleep`` is how the ``--delay`` is waited (never called with a delay of 0)."""
    game, seat, seed, state = seated_game(args)
    n = game.num_players()
    specs = split_bot_specs(args.bots)
    if len(specs) not in (1, n):
        raise CliError(f"give one bot spec for all {n} seats or one each, got {len(specs)}")
    bots = make_bots(game, specs, n, seed)
    ui = ui_for(game.name)
    intro = Text(f"{ui.title}", style="bold")
    who = ", ".join(
        f"{s}: {spec}" for s, spec in enumerate(specs * n if len(specs) == 1 else specs)
    )
    intro.append(f": {n} bots play ({who}); you watch over the shoulder of seat {seat}")
    # The seed decides every hand: said when the game is over (print_game_over).
    intro.append(' ("you" below, whose cards you see). Ctrl-C stops.', style="dim")
    console.print(intro)
    pause = not args.no_pause and sys.stdin.isatty()
    ui.draw(console, game, state, seat)
    while not state.is_terminal():
        actor = state.current_player()
        if actor == seat and state.history():
            ui.draw(console, game, state, seat)
        action = bots[actor].choose(state)
        before = state.clone()
        text = state.action_to_string(action)
        state.apply_action(action)
        console.begin_capture()
        try:
            ui.narrate(console, Move(game, before, state, actor, action, text, seat))
        finally:
            said = console.end_capture()
        if said:  # a move the seat did not see shows nothing, and is not waited for
            console.file.write(said)
            console.file.flush()
            if args.delay > 0:
                sleep(args.delay)
        if pause and not pause_between_deals(console, ui, before, state, seat):
            console.print(Text("Bye: the game was left unfinished.", style="dim"))
            return 0
    ui.draw(console, game, state, seat)
    print_game_over(console, game, state, seat, seed)
    return 0
