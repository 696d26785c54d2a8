"""Game records on the command line: ``--out FILE`` of ``play``, ``arena`` and ``selfplay``, and
``tapete replay`` (docs/records.md).

    tapete replay games.jsonl --index 3 --seat 1   # step through record 3 as seat 1 saw it
    tapete replay games.jsonl.gz                   # ... or with every card shown
    tapete replay --check games.jsonl.gz           # replay every record; exit 1 at a bad one

Stepping: Enter, Space or → shows the next move, ← (or Backspace, p) the one before, Home/End
(g/G) the start and the end, q (or Esc) quits. Keys are read one at a time from a terminal;
from a pipe, one command a line (an empty line or ``n`` next, ``b`` back, ``q`` quit).
"""

from __future__ import annotations

import argparse
import os
import select
import sys
import time
from collections.abc import Sequence
from contextlib import AbstractContextManager
from types import TracebackType
from typing import Any

from rich.console import Console
from rich.text import Text

from tapete import CHANCE, Game, ParseError, State
from tapete import records as _records
from tapete.arena import native_records
from tapete.cli._ui import CliError, Move

__all__ = [
    "add_out_argument",
    "add_replay_parser",
    "cmd_replay",
    "save_played",
    "write_arena_records",
    "write_selfplay_records",
]

KEYS_HELP = "Enter/→ next · ← back · Home/End start/end · q quit"
LINES_HELP = "n (or an empty line) next · b back · g start · end · q quit"  # from a pipe


# --------------------------------------------------------------------------------------------
# --out


def add_out_argument(parser: argparse.ArgumentParser, what: str) -> None:
    """The ``--out FILE`` option of a command that writes records."""
    parser.add_argument(
        "--out",
        metavar="FILE",
        type=_out_path,
        help=f"append {what} to FILE as game records (JSON Lines; gzip when FILE ends in "
        ".gz; see 'tapete replay')",
    )


def _out_path(text: str) -> str:
    if not text.strip():
        raise argparse.ArgumentTypeError("expected a file name, got an empty one")
    return text


def _write(path: str, items: Any) -> int:
    try:
        return _records.write(path, items)
    except OSError as error:
        raise CliError(f"cannot write records to {path}: {error.strerror or error}") from None


def save_played(console: Console, path: str, state: State, names: Sequence[str]) -> None:
    """Appends the game played in ``tapete play`` (finished or not) to ``path``."""
    _write(path, _records.record(state, names))
    over = "" if state.is_terminal() else " (unfinished)"
    console.print(Text(f"The game{over} was saved to {path}.", style="dim"), soft_wrap=True)


def write_arena_records(
    path: str,
    game: Game,
    specs: Sequence[str],
    seed: int,
    first: int,
    values: Any,
    kept: list[tuple[int, int, list[int]]] | None,
) -> int:
    """Appends the games of one native arena call (``keep_games``) to ``path``."""
    assert kept is not None
    return _write(path, native_records(game, specs, seed, first, values, kept))


def write_selfplay_records(
    console: Console, path: str, game: Game, games: int, seed: int, progress: Any
) -> tuple[int, float]:
    """Appends the records of native self-play's games ``seed .. seed + games - 1`` to ``path``
    (played again from Python and checked against the native results): how many, and the
    seconds it took. ``progress`` is a progress bar factory (``unit -> Progress``)."""
    start = time.perf_counter()
    written = 0
    show = console.is_terminal and games > 200
    bar = progress("records", disable=not show)
    with bar:
        task = bar.add_task("records", total=games)
        step = 200
        source = _records.selfplay_records(game, games, seed)
        while written < games:
            chunk = [rec for _, rec in zip(range(step), source, strict=False)]
            written += _write(path, chunk)
            bar.update(task, completed=written)
    return written, time.perf_counter() - start


# --------------------------------------------------------------------------------------------
# tapete replay


def add_replay_parser(commands: Any) -> None:
    """Adds ``tapete replay`` to the subcommands."""
    replay = commands.add_parser(
        "replay",
        help="step through a recorded game, or check a file of records",
        description="Step through a recorded game (Enter/→ next, ← back, q quit), drawn as one "
        "seat saw it or with every card shown; or, with --check, replay every record of the "
        "file and check it ends with its returns.",
    )
    replay.add_argument("file", help="a JSON Lines file of game records (.jsonl or .jsonl.gz)")
    replay.add_argument(
        "--index", type=int, default=0, help="which record: 0 for the first (default), -1 the last"
    )
    replay.add_argument(
        "--seat", type=int, help="show the game as this seat saw it (default: every card)"
    )
    replay.add_argument(
        "--check", action="store_true", help="replay every record; exit 1 at the first bad one"
    )


def _pick(path: str, index: int) -> tuple[int, int, dict[str, Any]]:
    """(index, line, record) of record ``index`` of ``path`` (negative: from the end)."""
    if index >= 0:
        count = 0
        for line, rec in _records.enumerate_records(path):
            if count == index:
                return index, line, rec
            count += 1
    else:
        found = list(_records.enumerate_records(path))
        count = len(found)
        if -index <= count:
            line, rec = found[index]
            return count + index, line, rec
    if count == 0:
        raise CliError(f"{path} holds no records")
    raise CliError(
        f"{path} holds {count} record{'s' if count > 1 else ''}: "
        f"--index goes from 0 to {count - 1} (or -1 for the last)"
    )


def cmd_replay(args: argparse.Namespace, console: Console) -> int:
    """``tapete replay``: exit 0, or 1 (with one error line naming the line) for a bad file."""
    errors = Console(stderr=True, highlight=False)
    path: str = args.file
    try:
        if args.check:
            count = _records.check(path)
            plural = "s" if count != 1 else ""
            console.print(
                f"{path}: {count} record{plural}, each replays to its returns", soft_wrap=True
            )
            return 0
        index, line, rec = _pick(path, args.index)
        try:
            final = _records.replay(rec)
        except ParseError as error:
            raise ParseError(f"{path}: line {line}: {error}") from None
    except FileNotFoundError:
        raise CliError(f"no such file: {path}") from None
    except OSError as error:
        raise CliError(f"cannot read {path}: {error.strerror or error}") from None
    except ParseError as error:
        errors.print(Text(f"tapete: error: {error}", style="bold red"), soft_wrap=True)
        return 1
    game = final.get_game()
    seat: int | None = args.seat
    n = game.num_players()
    if seat is not None and not 0 <= seat < n:
        raise CliError(f"seat {seat} is out of range: this {game.name} has seats 0 to {n - 1}")
    _Replay(console, game, rec, index, line, seat).run()
    return 0


class _Keys(AbstractContextManager["_Keys"]):
    """Commands from stdin: single keys from a terminal (cbreak mode, restored on exit), or
    one command a line from a pipe."""

    def __init__(self) -> None:
        try:
            self.fd = sys.stdin.fileno()
        except (AttributeError, OSError, ValueError):  # no stdin, or one without a descriptor
            self.fd = -1
        self.tty = self.fd >= 0 and os.isatty(self.fd)
        self.typed = ""  # the line of the last command read from a pipe
        self.saved: list[Any] | None = None

    def __enter__(self) -> _Keys:
        if self.tty:
            import termios
            import tty

            self.saved = termios.tcgetattr(self.fd)
            tty.setcbreak(self.fd, termios.TCSANOW)  # keep keys typed ahead
        return self

    def __exit__(
        self,
        kind: type[BaseException] | None,
        value: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        if self.saved is not None:
            import termios

            termios.tcsetattr(self.fd, termios.TCSADRAIN, self.saved)

    def _byte(self, wait: float | None) -> bytes:
        if wait is not None and not select.select([self.fd], [], [], wait)[0]:
            return b""
        return os.read(self.fd, 1)

    def next(self) -> str:
        """One of ``next``, ``back``, ``start``, ``end``, ``quit`` or ``other``."""
        if not self.tty:
            line = sys.stdin.readline()
            if not line:
                return "quit"
            word = line.strip().lower()
            self.typed = word[:40]
            return LINE_COMMANDS.get(word, "other")
        key = self._byte(None)
        if key == b"\x1b":
            first = self._byte(0.1)  # a lone Esc, or the start of an arrow key's sequence
            if not first:
                return "quit"
            seq = first
            if first in (b"[", b"O"):
                while len(seq) < 8:
                    byte = self._byte(0.1)
                    seq += byte
                    if not byte or 0x40 <= byte[0] <= 0x7E:
                        break
            return ESCAPES.get(seq, "other")
        if not key:
            return "quit"
        return KEYS.get(key, "other")


KEYS = {
    b"\n": "next",
    b"\r": "next",
    b" ": "next",
    b"n": "next",
    b"\x7f": "back",
    b"\x08": "back",
    b"p": "back",
    b"b": "back",
    b"g": "start",
    b"G": "end",
    b"q": "quit",
    b"Q": "quit",
    b"\x04": "quit",
}
ESCAPES = {
    b"[C": "next",
    b"OC": "next",
    b"[D": "back",
    b"OD": "back",
    b"[H": "start",
    b"OH": "start",
    b"[1~": "start",
    b"[F": "end",
    b"OF": "end",
    b"[4~": "end",
}
LINE_COMMANDS = {
    "": "next",
    "n": "next",
    "next": "next",
    "b": "back",
    "p": "back",
    "back": "back",
    "g": "start",
    "start": "start",
    "e": "end",
    "end": "end",
    "q": "quit",
    "quit": "quit",
}


class _Replay:
    """One recorded game shown move by move."""

    def __init__(
        self,
        console: Console,
        game: Game,
        rec: dict[str, Any],
        index: int,
        line: int,
        seat: int | None,
    ) -> None:
        from tapete.cli import ui_for  # the package imports this module lazily

        self.console, self.game, self.rec, self.seat = console, game, rec, seat
        self.help = KEYS_HELP
        self.ui = ui_for(game.name)
        self.label = f"record {index} (line {line})"
        start = (
            game.new_initial_state(seed=rec["seed"], decks=rec["decks"])
            if "decks" in rec
            else game.new_initial_state(seed=rec["seed"])
        )
        self.states = [start]
        self.actions: list[int] = []
        self.actors: list[int] = []
        for text in rec["actions"]:
            state = self.states[-1].clone()
            action = state.string_to_action(text)
            self.actors.append(state.current_player())
            self.actions.append(action)
            state.apply_action(action)
            self.states.append(state)
        # The positions shown: every one with every card shown; for a seat, those where what
        # it knows changed and that it is told of. So none at a chance node (explicit chance
        # records: the cards being dealt are seen when the deal is over, as in a seeded game),
        # none after a move hidden from it (a private decline, a marker being chosen), whose
        # screen and number would tell it that a move it cannot see was made, and none saying
        # nothing (another seat's Cicera capture under way, told when it is complete).
        if seat is None:
            self.shown = list(range(len(self.states)))
        else:
            changed, known = [], None
            for k, state in enumerate(self.states):
                if state.is_chance_node():
                    continue
                if (info := state.information_state_string(seat)) != known:
                    changed.append(k)
                    known = info
            self.shown = changed[:1]
            for k in changed[1:]:
                with console.capture() as told:
                    self._narrate(self.shown[-1], k)
                if told.get().strip() or k == changed[-1]:
                    self.shown.append(k)
        if not self.shown:
            raise CliError(
                f"{self.label} ends before its first deal is over: seat {seat} has seen "
                "nothing yet (replay it without --seat)"
            )

    def show(self, i: int) -> None:
        """Shows the ``i``-th of the positions shown."""
        console, game, ui, seat = self.console, self.game, self.ui, self.seat
        k = self.shown[i]
        total = len(self.actions)
        if console.is_terminal:
            console.clear()
        where = (
            f"move {k} of {total} · everything shown"
            if seat is None
            else f"step {i} of {len(self.shown) - 1} · as seat {seat} saw it"
        )
        console.rule(Text(f"{ui.title} · {self.label} · {where}"))
        if i == 0:
            bots = self.rec.get("bots")
            players = (
                ", ".join(f"seat {s}: {name}" for s, name in enumerate(bots))
                if bots
                else "players not recorded"
            )
            # the seed decides every hand: shown only when every card is
            seed = f"seed {self.rec['seed']} · " if seat is None else ""
            console.print(Text(f"{seed}{players}", style="dim"))
        elif seat is None:
            actor, action = self.actors[k - 1], self.actions[k - 1]
            who = "chance" if actor == CHANCE else f"seat {actor}"
            text = self.states[k - 1].action_to_string(action)
            console.print(Text(f"Move {k}: {who}: {text}", style="bold"))
        else:
            self._narrate(self.shown[i - 1], k)
        state = self.states[k]
        if seat is None:
            console.print(Text(str(state)))
        else:
            ui.draw(console, game, state, seat)
        if i == len(self.shown) - 1:
            returns = ", ".join(f"seat {s}: {r:+g}" for s, r in enumerate(state.returns()))
            unit = f" {ui.unit}" if ui.unit else ""
            over = "Game over" if state.is_terminal() else "End of the record (unfinished game)"
            console.print(Text(f"{over}. Returns{unit}: {returns}", style="bold"))
        console.print(Text(self.help, style="dim"))

    def _narrate(self, a: int, k: int) -> None:
        """The moves from position ``a`` to ``k``, each as the seat witnessed it (as ``play``
        tells them: nothing of a move it cannot see); a decision's cards, dealt at chance
        nodes, with it."""
        assert self.seat is not None
        for m in range(a, k):
            if self.actors[m] == CHANCE:
                continue
            after = next(j for j in range(m + 1, k + 1) if not self.states[j].is_chance_node())
            before, action = self.states[m], self.actions[m]
            text = before.action_to_string(action)
            move = Move(
                self.game, before, self.states[after], self.actors[m], action, text, self.seat
            )
            self.ui.narrate(self.console, move)

    def run(self) -> None:
        i, last = 0, len(self.shown) - 1  # index in the positions shown
        with _Keys() as keys:
            self.help = KEYS_HELP if keys.tty else LINES_HELP
            self.show(i)
            while True:
                command = keys.next()
                if command == "quit":
                    return
                target = {
                    "next": min(last, i + 1),
                    "back": max(0, i - 1),
                    "start": 0,
                    "end": last,
                }.get(command, i)
                if target != i:
                    i = target
                    self.show(i)
                elif command == "other":
                    typed = f"{keys.typed!r} is not a command here: " if keys.typed else ""
                    self.console.print(Text(f"{typed}{self.help}", style="dim"))
