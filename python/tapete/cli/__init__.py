"""The ``tapete`` command line: list the games, play one against bots, measure bots in a duplicate
arena, time self-play.

    tapete games
    tapete rules cicera
    tapete play spoil_five --seat 0 --seed 3 jinking=false --auto-forced
    tapete watch cuajo --bots heuristic,random --delay 1
    tapete play cicera --bots heuristic,ismcts:iterations=200,heuristic
    tapete arena cau_robat --bots ismcts:iterations=200 heuristic random random --games 200
    tapete play cicera --seed 3 game_mode=single_hand
    tapete play cau_robat --players 3 --seed 3 hands_to_win=2
    tapete play cuajo --seat 1 --seed 3 hands_per_match=2
    tapete selfplay spoil_five --games 10000 --seed 1 players=5

Everything generic (the game list, option parsing, self-play, the play loop, ``watch`` in
``tapete.cli.watch`` and ``rules`` in ``tapete.cli.rules``) works for any registered game. What
depends on a game's ``view()`` layout is the table drawing and the move narration of ``play``,
kept in a small :class:`GameUI` per game, one module each
(``tapete.cli.spoil_five`` … ``tapete.cli.cuajo``, gathered in :data:`GAME_UIS`); a game without
one is drawn with ``state.observation_string(seat)`` and narrated from what is new in
``state.information_state_string(seat)``, so it never shows a person what their seat may not know.
"""

from __future__ import annotations

import argparse
import contextlib
import difflib
import json
import math
import os
import random
import signal
import sys
import textwrap
import time
from collections.abc import Callable, Collection, Iterator, Sequence
from dataclasses import dataclass
from decimal import Decimal
from typing import Any, NoReturn

import numpy as np
from rich import box
from rich.console import Console
from rich.progress import (
    BarColumn,
    MofNCompleteColumn,
    Progress,
    TextColumn,
    TimeElapsedColumn,
    TimeRemainingColumn,
)
from rich.table import Table
from rich.text import Text

import tapete
from tapete import ConfigError, Game, State, TapeteError
from tapete import records as _records
from tapete.arena import Z95, _finite
from tapete.cli import cau_robat, cicera, cluster, cuajo, spoil_five
from tapete.cli import replay as records_cli
from tapete.cli._ui import (
    CANCEL_WORDS,
    HELP_WORDS,
    MAX_SEED,
    PLAYER_PROBE,
    QUIT_WORDS,
    CliError,
    GameUI,
    Move,
    _no_bold,
    draw_generic,
    french_card_style,
    narrate_generic,
    plain_card_style,
    plain_text_streams,
    print_rule,
    print_table,
    spanish_card_style,
    styled_action,
)

__all__ = ["GAME_UIS", "GameUI", "Move", "main", "parse_options"]

GAME_UIS: dict[str, GameUI] = {
    "spoil_five": spoil_five.UI,
    "cicera": cicera.UI,
    "cau_robat": cau_robat.UI,
    "cuajo": cuajo.UI,
}
CARD_STYLES: dict[str, Callable[[str], str]] = {
    "spoil_five": french_card_style,
    "cicera": french_card_style,
    "cau_robat": spanish_card_style,
    "cuajo": spanish_card_style,
}


def ui_for(name: str) -> GameUI:
    """The :class:`GameUI` of game ``name``; the generic one for a game without its own."""
    return GAME_UIS.get(name) or GameUI(
        title=name.replace("_", " ").title(),
        draw=draw_generic,
        narrate=narrate_generic,
        card_style=CARD_STYLES.get(name, plain_card_style),
        bold_cards=_no_bold,
    )


# --------------------------------------------------------------------------------------------
# Options and games


#: Digits beyond which a number typed is too large for anything (and is not built exactly).
MAX_DIGITS = 100

# Python's spellings, as a person used to Python types them (any case for the booleans).
PYTHON_WORDS: dict[str, Any] = {"true": True, "false": False}


def _option_value(text: str) -> Any:
    """A value typed after ``key=``: JSON (``false``, ``2``, ``[[0,2],[1,3]]``), Python's
    ``True``/``False``/``None``, a number written as a whole one (``1e3``, ``4.0``: the integer,
    exactly, however large), or else the text itself (``penalty``)."""
    if text.lower() in PYTHON_WORDS:
        return PYTHON_WORDS[text.lower()]
    if text == "None":
        return None

    def whole(v: Any) -> Any:
        if isinstance(v, Decimal):
            # (Beyond a hundred digits no option is in range: a float, so that 1e9999999
            # does not build a number of ten million digits first.)
            exact = v.is_finite() and v.adjusted() <= MAX_DIGITS
            return int(v) if exact and v == v.to_integral_value() else float(v)
        if isinstance(v, list):
            return [whole(x) for x in v]
        if isinstance(v, dict):
            return {k: whole(x) for k, x in v.items()}
        return v

    try:
        return whole(json.loads(text, parse_float=Decimal))
    except ValueError:
        return text
    except RecursionError:  # in the decoder or in `whole`
        raise ConfigError(f"a value nested too deeply: {text[:40]}...") from None


def parse_options(items: Sequence[str]) -> dict[str, Any]:
    """``key=value`` items to a config dict (each value read by :func:`_option_value`: JSON when
    possible, Python's ``True``/``False``/``None`` too, else the text)."""
    config: dict[str, Any] = {}
    for item in items:
        key, sep, text = item.partition("=")
        if key.startswith("-"):
            raise CliError(
                f"bad option {item[:40]!r}: a flag goes before the game's key=value options "
                "and before '--'"
            )
        key = key.strip().replace("-", "_")
        if not sep or not key.isidentifier():
            raise CliError(f"bad option {item!r}: expected key=value, e.g. jinking=false")
        if key in config:
            raise CliError(f"option {key!r} is given twice")
        config[key] = _option_value(text)
    return config


def check_game_name(name: str) -> str:
    """``name`` if it is a registered game; otherwise a :class:`CliError` that suggests the
    closest one ("did you mean spoil_five?" for ``spoil-five``)."""
    games = tapete.list_games()
    if name in games:
        return name
    close = difflib.get_close_matches(name.lower().replace("-", "_"), games, n=1, cutoff=0.6)
    hint = f"did you mean {close[0]}? " if close else ""
    raise CliError(f"unknown game {name!r}: {hint}the games are {', '.join(games)}")


def _game_config(name: str, players: int | None, options: Sequence[str]) -> dict[str, Any]:
    """The config of ``key=value`` options and ``--players``; a player count for a game whose
    count is fixed (no ``players`` option, e.g. Cicera's four) is refused with a clear message."""
    config = parse_options(options)
    if players is not None:
        if "players" in config and config["players"] != players:
            raise CliError("the number of players is given twice (--players and players=)")
    if players is not None or "players" in config:
        default = load(name, {})
        if "players" not in default.config():
            given = "--players" if players is not None else "the option players="
            raise CliError(
                f"{name} is always played by {default.num_players()} players: "
                f"{given} does not apply to it"
            )
    if players is not None:
        config["players"] = players
    return config


def load(name: str, config: dict[str, Any]) -> Game:
    """``tapete.load_game(name, **config)``, a bad config as a :class:`CliError`."""
    try:
        return tapete.load_game(name, **config)
    except ConfigError as error:
        raise CliError(str(error)) from None


def new_state(game: Game, seed: int) -> State:
    """The initial state of ``seed``, a bad seed as a :class:`CliError`."""
    try:
        return game.new_initial_state(seed)
    except ConfigError as error:
        raise CliError(str(error)) from None


def fresh_seed() -> int:
    """A seed drawn from the system's randomness, for a command given no ``--seed``."""
    return random.SystemRandom().randrange(2**32)


def format_value(value: Any) -> str:
    """A config value as it is typed on the command line (``key=value``)."""
    return value if isinstance(value, str) else json.dumps(value, separators=(",", ":"))


def player_counts(name: str, game: Game) -> str:
    """The player counts game ``name`` accepts, as ranges (``2–10 (default 4)``)."""
    config = game.config()
    if "players" not in config:
        return str(game.num_players())
    accepted = []
    for k in PLAYER_PROBE:
        try:
            tapete.load_game(name, players=k)
        except ConfigError:
            continue
        accepted.append(k)
    runs: list[list[int]] = []
    for k in accepted:
        if runs and runs[-1][-1] == k - 1:
            runs[-1].append(k)
        else:
            runs.append([k])
    text = ", ".join(f"{r[0]}–{r[-1]}" if len(r) > 1 else str(r[0]) for r in runs)
    return f"{text} (default {config['players']})"


def cmd_games(console: Console) -> int:
    """``tapete games``: every registered game with its player counts and default options."""
    table = Table(title="tapete games", box=box.ROUNDED, show_lines=True, title_style="bold")
    table.add_column("game", style="bold cyan", no_wrap=True)
    table.add_column("players", no_wrap=True)
    table.add_column("options (key=default)")
    for name in tapete.list_games():
        game = tapete.load_game(name)
        options = Text()
        for key, value in game.config().items():
            if key == "players":
                continue
            if options:
                options.append("\n")
            options.append(key, style="green")
            options.append("=")
            options.append(format_value(value))
        label = Text(name)
        label.append(f"\n{ui_for(name).title}", style="dim")
        table.add_row(label, player_counts(name, game), options)
    print_table(console, table)
    console.print(
        Text(
            "Options are given as key=value (JSON values: jinking=false, "
            "partnerships=[[0,2],[1,3]]); each game's rules and options: tapete rules <game>",
            style="dim",
        )
    )
    return 0


# --------------------------------------------------------------------------------------------
# play


def _read_line(console: Console, prompt: Text) -> str | None:
    console.print(prompt, end="")
    try:
        line = input()
    except EOFError:
        console.print()
        return None
    if not sys.stdin.isatty():
        # Echo piped input so transcripts read well, control characters escaped (an escape
        # sequence in the input must not drive the terminal).
        shown = "".join(c if c.isprintable() else repr(c)[1:-1] for c in line[:200])
        if len(line) > 200:  # as an error message cuts what it quotes
            shown += f"… ({len(line):,} characters)"
        console.print(Text(shown), highlight=False)
    return line


def _move_keys(ui: GameUI, state: State, legal: list[int]) -> dict[str, int] | None:
    """The words typed for the legal actions (lower case), when the game has them."""
    if ui.move_key is None:
        return None
    return {ui.move_key(state, action).lower(): action for action in legal}


def _print_moves(console: Console, ui: GameUI, state: State, seat: int, legal: list[int]) -> None:
    if ui.print_moves is not None:
        ui.print_moves(console, state, seat, legal)
        return
    bold = ui.bold_cards(state, seat)
    items = []
    for number, action in enumerate(legal, start=1):
        label = ui.move_key(state, action) if ui.move_key else str(number)
        item = Text(f"{label:>2}", style="bold cyan")
        item.append(" ")
        item.append_text(styled_action(state.action_to_string(action), ui.card_style, bold))
        items.append(item)
    width = max(len(item) for item in items) + 3
    per_row = max(1, min(len(items), (console.width - 2) // width))
    title = ui.moves_title(state, seat) if ui.moves_title else Text("Your moves:", style="bold")
    console.print(title)
    for start in range(0, len(items), per_row):
        row = Text("  ")
        for item in items[start : start + per_row]:
            row.append_text(item)
            row.append(" " * (width - len(item)))
        row.rstrip()
        console.print(row)


def parse_move(
    state: State,
    legal: list[int],
    text: str,
    keys: dict[str, int] | None = None,
    key_name: str = "number",
    every_key: Collection[str] = (),
) -> int:
    """The legal action that ``text`` names: a number in the move list (or, when the game gives
    ``keys``, one of those words: a rank in Cau Robat), an action string, or just the argument
    of one (``2h`` for ``play 2H``, ``7`` for ``play 7``) when that names exactly one legal
    move. ``every_key``: the keys of all the game's moves, for the message of one not open
    now (Cuajo's ``w`` before the hand is complete)."""
    text = " ".join(text.split())
    if keys is not None:
        word = str(int(text)) if text.isascii() and text.isdigit() else text.lower()
        if word in keys:
            return keys[word]
        if text.isascii() and text.isdigit():
            raise CliError(
                f"{text!r} is not the {key_name} of a move now: type one of {', '.join(keys)}"
            )
    elif text.isascii() and text.isdigit():
        number = int(text)
        if 1 <= number <= len(legal):
            return legal[number - 1]
        raise CliError(f"there is no move {number}: choose a number from 1 to {len(legal)}")
    try:
        action = state.string_to_action(text)
    except TapeteError as error:
        verbs = dict.fromkeys(state.action_to_string(a).split(" ")[0] for a in legal)
        found: set[int] = set()
        illegal: set[int] = set()
        for verb in verbs:
            try:
                candidate = state.string_to_action(f"{verb} {text}")
            except TapeteError:
                continue
            (found if candidate in legal else illegal).add(candidate)
        if len(found) == 1:
            return found.pop()
        if len(found) > 1:
            names = " or ".join(repr(state.action_to_string(a)) for a in sorted(found))
            raise CliError(
                f"{text!r} could be {names}: type the whole move or its number"
            ) from None
        if illegal:
            raise CliError(illegal_message(state, min(illegal))) from None
        if keys is not None and text.lower() in every_key:  # of a move not open now
            raise CliError(
                f"{text!r} is not the {key_name} of a move now: type one of {', '.join(keys)}"
            ) from None
        raise CliError(
            f"{error}; type a move's {key_name} or an action such as "
            f"{state.action_to_string(legal[0])!r}"
        ) from None
    if action not in legal:
        raise CliError(illegal_message(state, action))
    return action


def illegal_message(state: State, action: int) -> str:
    """Why ``action`` is not legal now, as the engine explains it to the player to act
    (``State.explain_illegal``), without the list of legal actions the person sees anyway."""
    text = state.action_to_string(action)
    message = state.explain_illegal(action) or f"{text} is not legal now"
    message = message.split(f"; seat {state.current_player()} may play:")[0]
    prefix = f"{text} is not legal now"
    if message.startswith(prefix):
        message = f"{text!r} is not legal now{message[len(prefix) :]}"
    return f"{message}; choose one of the moves listed"


#: The native bots' parameters (``ismcts:iterations=200,c=0.5``): after ``--bots``, such a
#: ``key=value`` word of its own belongs to the bot spec before it, not to the game.
BOT_PARAMETERS = frozenset({"iterations", "c", "rollout", "horizon", "threads"})


def _is_option(word: str) -> bool:
    """A command-line word after ``--bots`` that is a game option (``key=value``), not a bot
    spec nor a bot's parameter."""
    key, eq, _ = word.partition("=")
    return bool(eq) and not any(x in key for x in ":,") and key not in BOT_PARAMETERS


def split_bot_specs(items: Sequence[str]) -> list[str]:
    """Bot specs from the command line: ``heuristic,ismcts:iterations=200,c=0.5 random`` gives
    ``['heuristic', 'ismcts:iterations=200,c=0.5', 'random']`` (a ``name=value`` piece after a
    comma belongs to the spec before it)."""
    specs: list[str] = []
    for item in items:
        for piece in item.split(","):
            piece = piece.strip()
            if not piece:
                continue
            if "=" in piece and ":" not in piece and specs:
                specs[-1] += "," + piece
            else:
                specs.append(piece)
    return specs


def make_bots(game: Game, specs: list[str], count: int, seed: int) -> list[tapete.bots.Bot]:
    """``count`` native bots: one spec for all, or one spec each."""
    if len(specs) == 1:
        specs = specs * count
    if len(specs) != count:
        raise CliError(f"give one bot spec for all {count} opponents or one each, got {len(specs)}")
    try:
        return [
            tapete.bots.make(spec, game, seed=(seed + i) % MAX_SEED) for i, spec in enumerate(specs)
        ]
    except ConfigError as error:
        raise CliError(str(error)) from None


def seated_game(args: argparse.Namespace) -> tuple[Game, int, int, State]:
    """The game of ``play``/``watch`` arguments, the checked ``--seat``, the seed (``--seed`` or
    a fresh one) and the initial state."""
    game = load(args.game, _game_config(args.game, args.players, args.options))
    n = game.num_players()
    seat: int = args.seat
    if not 0 <= seat < n:
        raise CliError(
            f"seat {seat} is out of range: {game.name} with {n} players has seats 0 to {n - 1}"
        )
    if game.config().get("explicit_chance"):
        raise CliError(
            f"{args.command} deals seeded games: leave out explicit_chance (the seed deals "
            "the same cards)"
        )
    seed: int = fresh_seed() if args.seed is None else args.seed
    return game, seat, seed, new_state(game, seed)


def cmd_play(args: argparse.Namespace, console: Console) -> int:
    """``tapete play``: a game against bots, the table drawn and the moves narrated as the
    person's seat sees them."""
    game, seat, seed, state = seated_game(args)
    n = game.num_players()
    specs = split_bot_specs(args.bots)
    others = make_bots(game, specs, n - 1, seed)
    bots = {s: others[i] for i, s in enumerate(q for q in range(n) if q != seat)}
    others_specs = iter(specs * (n - 1) if len(specs) == 1 else specs)
    seat_names = ["human" if s == seat else next(others_specs) for s in range(n)]
    if args.out:
        _records.check_destination(args.out)
    ui = ui_for(game.name)
    intro = Text(f"{ui.title}", style="bold")
    names = sorted(set(specs))
    intro.append(
        f": you are seat {seat}, against {n - 1} bot{'s' if n > 2 else ''} ({', '.join(names)})"
    )
    # The seed decides every hand: said when the game is over (print_game_over).
    intro.append(
        f". Type a move's {ui.key_name} or its text, 'help', or 'quit'.",
        style="dim",
    )
    console.print(intro)
    if not state.is_terminal() and state.current_player() != seat:
        ui.draw(console, game, state, seat)

    pause = not args.no_pause and sys.stdin.isatty()
    undo: tuple[State, str] | None = None  # before a move being built (ui.building), its text
    every_key = _move_keys(ui, state, list(range(game.num_distinct_actions()))) or ()
    saved = False

    def save() -> None:
        """The game as it stands to --out, once (quitting, then Ctrl-C, must not add it twice)."""
        nonlocal saved
        if args.out and not saved:
            saved = True
            records_cli.save_played(console, args.out, state, seat_names)

    with _saved_when_interrupted(save):
        while not state.is_terminal():
            actor = state.current_player()
            legal = state.legal_actions()
            forced = actor == seat and args.auto_forced and len(legal) == 1
            if forced:
                action = legal[0]
            elif actor == seat:
                ui.draw(console, game, state, seat)
                _print_moves(console, ui, state, seat, legal)
                building = undo is not None and ui.building is not None and ui.building(state, seat)
                if building:
                    console.print(Text("Type 'cancel' to take this move back.", style="dim"))
                chosen: int | None = None
                while chosen is None:
                    line = _read_line(console, Text("Your move> ", style="bold green"))
                    if line is None or line.strip().lower() in QUIT_WORDS:
                        console.print(Text("Bye: the game was left unfinished.", style="dim"))
                        save()
                        return 0
                    keys = _move_keys(ui, state, legal)
                    word = line.strip().lower()
                    if word in HELP_WORDS:
                        example = f" (e.g. {next(iter(keys))!r})" if keys else ""
                        cancel = ", 'cancel' to take this move back" if building else ""
                        console.print(
                            Text(
                                f"Type the {ui.key_name} of a move{example}, its text (case does "
                                f"not matter, e.g. {state.action_to_string(legal[0])!r}){cancel}, "
                                "or 'quit'.",
                                style="dim",
                            )
                        )
                        _print_moves(console, ui, state, seat, legal)
                        continue
                    if word in CANCEL_WORDS and undo is not None and building:
                        break
                    if word in CANCEL_WORDS:
                        console.print(Text("✗ there is no move under way to cancel", style="red"))
                        continue
                    if not word:
                        continue
                    try:
                        chosen = parse_move(state, legal, line, keys, ui.key_name, every_key)
                    except CliError as error:
                        console.print(Text(f"✗ {error}", style="red"))
                if chosen is None and undo is not None:  # cancelled: the state before the move
                    state, text = undo
                    undo = None
                    console.print(
                        Text(
                            f"Cancelled {text!r}: the table is back as it was before it.", "yellow"
                        )
                    )
                    continue
                assert chosen is not None
                action = chosen
            else:
                action = bots[actor].choose(state)
            before = state.clone()
            text = state.action_to_string(action)
            try:
                state.apply_action(action)
            except TapeteError as error:  # cannot happen for a legal action; never a traceback
                raise CliError(f"the engine refused {text!r}: {error}") from None
            if forced:
                console.print(Text(f"Your only move, {text!r}, is played (--auto-forced).", "dim"))
            ui.narrate(console, Move(game, before, state, actor, action, text, seat))
            if actor == seat and ui.building is not None:
                if not ui.building(state, seat):
                    undo = None
                elif undo is None:
                    undo = (before, text)
            if pause and not pause_between_deals(console, ui, before, state, seat):
                console.print(Text("Bye: the game was left unfinished.", style="dim"))
                save()
                return 0

        ui.draw(console, game, state, seat)
        print_game_over(console, game, state, seat, seed)
        save()
    return 0


class HangUp(KeyboardInterrupt):
    """The terminal closed (SIGHUP): stopped as by Ctrl-C, with exit code 129."""


def _hang_up(signum: int, frame: object) -> None:
    raise HangUp


@contextlib.contextmanager
def _saved_when_interrupted(save: Callable[[], None]) -> Iterator[None]:
    """Ctrl-C, or the terminal closing (SIGHUP, unless ignored, as under nohup), calls
    ``save`` and goes on as the KeyboardInterrupt it is; both are ignored while it saves, as a
    second one (a closing terminal often sends two) would cut the record short."""
    hup = getattr(signal, "SIGHUP", None)  # none on Windows
    try:
        before = {stop: signal.getsignal(stop) for stop in (signal.SIGINT, hup) if stop}
        if hup and before[hup] is not signal.SIG_IGN:
            signal.signal(hup, _hang_up)
    except ValueError:  # not the main thread: signals are the main thread's
        before = {}
    try:
        yield
    except KeyboardInterrupt:
        for stop in before:
            signal.signal(stop, signal.SIG_IGN)
        save()
        raise
    finally:
        for stop, handler in before.items():
            signal.signal(stop, signal.SIG_DFL if handler is None else handler)


def pause_between_deals(
    console: Console, ui: GameUI, before: State, after: State, seat: int
) -> bool:
    """After a move that ended a deal (``ui.deal_of`` moved on) in a game not over, waits for
    Enter; ``False`` if the person quits (``q`` or end of input) instead."""
    if ui.deal_of is None or after.is_terminal():
        return True
    if ui.deal_of(after, seat) == ui.deal_of(before, seat):
        return True
    line = _read_line(console, Text("Press Enter for the next deal (q to quit)> ", style="bold"))
    return line is not None and line.strip().lower() not in QUIT_WORDS


def print_game_over(
    console: Console, game: Game, state: State, seat: int | None, seed: int
) -> None:
    """The final returns of a finished game, in the game's unit ("chips", "points", ...), with
    ``seat`` marked as "you" (``None``: nobody), then its ``seed``: said only now, as it
    decides every hand."""
    ui = ui_for(game.name)
    unit = ui.unit_for(game.config())
    console.print()
    print_rule(console, Text("Game over", style="bold"))
    returns = state.returns()
    table = Table(box=box.SIMPLE_HEAD, show_edge=False)
    table.add_column("seat", justify="right")
    table.add_column(f"return ({unit})" if unit else "return", justify="right")
    best = max(returns)
    for s, value in enumerate(returns):
        style = "bold green" if value == best and value > 0 else ("red" if value < 0 else "")
        table.add_row(f"{s} (you)" if s == seat else str(s), Text(_signed(value), style=style))
    print_table(console, table)
    text = f"Returns: {[_number(r) for r in returns]}"
    if seat is not None:
        text += f"; yours: {_signed(returns[seat])}"
    console.print(Text(text + (f" {unit}" if unit else ""), style="bold"))
    console.print(Text(f"Seed {seed}: --seed {seed} deals this game again.", style="dim"))


def _number(value: float) -> float | int:
    return int(value) if float(value).is_integer() else round(value, 4)


def _signed(value: float) -> str:
    if float(value).is_integer():
        return f"{int(value):+d}"
    return f"{value:+.2f}"


# --------------------------------------------------------------------------------------------
# selfplay


@dataclass
class SelfPlayStats:
    """Running totals of a self-play run: games and actions played, wall time from the first
    game on, and per seat the sum and the sum of squares of the returns."""

    games: int
    actions: int
    seconds: float
    sums: list[float]
    squares: list[float]
    interrupted: bool = False

    def mean(self, seat: int) -> float:
        """The mean return of ``seat``."""
        return self.sums[seat] / self.games

    def half_width(self, seat: int) -> float:
        """Half the 95% interval of the mean: Z95 · sd / √N (NaN for a single game)."""
        if self.games < 2:
            return math.nan
        mean = self.mean(seat)
        variance = max(0.0, (self.squares[seat] - self.games * mean * mean) / (self.games - 1))
        return Z95 * math.sqrt(variance / self.games)

    def add(self, returns: Sequence[float], actions: int) -> None:
        """Count one finished game."""
        for p, value in enumerate(returns):
            self.sums[p] += value
            self.squares[p] += value * value
        self.actions += actions
        self.games += 1


def play_random_games(game: Game, seeds: range, stats: SelfPlayStats) -> None:
    """The hot loop of ``tapete selfplay --python-loop``: game ``i`` is
    ``new_initial_state(seeds[i])`` and every move is applied from Python, chosen by the native
    ``random`` bot seeded with the bitwise complement of the game's seed, the bot that native
    play (``Game.play_random``) uses: so the same seeds give the same games either way. A game
    cut short by Ctrl-C is not counted."""
    new_initial_state = game.new_initial_state
    make = tapete.bots.make
    finished: list[tuple[list[float], int]] = []  # one append per game: safe against Ctrl-C
    try:
        for game_seed in seeds:
            state = new_initial_state(game_seed)
            choose = make("random", game, seed=~game_seed % MAX_SEED).choose
            is_terminal = state.is_terminal
            apply_action = state.apply_action
            while not is_terminal():
                apply_action(choose(state))
            finished.append((state.returns(), len(state.history())))
    finally:
        for returns, actions in finished:
            stats.add(returns, actions)


def play_native_games(game: Game, seeds: range, threads: int, stats: SelfPlayStats) -> None:
    """The same random play inside the engine (``Game.play_random``), without the GIL."""
    returns, lengths = game.play_random(len(seeds), seeds.start, threads)
    for p in range(game.num_players()):
        column = returns[:, p]
        stats.sums[p] += float(column.sum())
        stats.squares[p] += float((column * column).sum())
    stats.actions += int(lengths.sum())
    stats.games += len(seeds)


def progress_bar(console: Console, unit: str, **options: Any) -> Progress:
    """The transient progress bar of long runs: done of total ``unit``, elapsed, eta."""
    return Progress(
        TextColumn("[bold]{task.description}"),
        BarColumn(),
        MofNCompleteColumn(),
        TextColumn(unit),
        TimeElapsedColumn(),
        TextColumn("eta"),
        TimeRemainingColumn(),
        console=console,
        transient=True,
        **options,
    )


def run_selfplay(
    game: Game,
    games: int,
    seed: int,
    console: Console,
    native: bool = True,
    threads: int = 1,
    clock: Callable[[], float] = time.perf_counter,
) -> SelfPlayStats:
    """Play ``games`` random games with seeds ``seed + i``, natively or driven from Python; a
    transient progress bar is shown on a terminal once the run looks longer than a second.
    Chunks last ~0.1 s (at most 1000 games from Python, 100,000 natively). The wall time is
    ``clock``'s from just before the first game to the end of the last (start-up not counted).
    Ctrl-C stops the run: the games finished so far are returned, ``interrupted`` set."""
    n = game.num_players()
    stats = SelfPlayStats(0, 0, 0.0, [0.0] * n, [0.0] * n)
    progress: Progress | None = None
    task = None
    step = 8
    start = clock()
    try:
        while stats.games < games:
            count = min(step, games - stats.games)
            first = seed + stats.games
            t0 = clock()
            if native:
                play_native_games(game, range(first, first + count), threads, stats)
            else:
                play_random_games(game, range(first, first + count), stats)
            now = clock()
            rate = count / max(now - t0, 1e-9)
            step = max(1, min(100_000 if native else 1000, int(rate * 0.1)))
            if progress is None and console.is_terminal and stats.games < games:
                if now - start + (games - stats.games) / rate > 1.0:
                    # no refresh thread competing with the hot loop
                    progress = progress_bar(console, "games", auto_refresh=False)
                    progress.start()
                    task = progress.add_task(game.name, total=games)
            if progress is not None and task is not None:
                progress.update(task, completed=stats.games, refresh=True)
    except KeyboardInterrupt:
        stats.interrupted = True
    finally:
        stats.seconds = clock() - start
        if progress is not None:
            progress.stop()
    return stats


def _check_seed_range(seed: int, games: int) -> None:
    if seed < 0 or seed + games > MAX_SEED:
        raise CliError(
            f"seed {seed} with {games} games: the game seeds seed … seed+games-1 "
            f"must lie in 0 … 2^64-1"
        )


def cmd_selfplay(args: argparse.Namespace, console: Console) -> int:
    """``tapete selfplay``: random bots play ``--games`` games; their returns and the speed."""
    games: int = args.games
    if args.python_loop and args.threads != 1:
        raise CliError(
            "--python-loop plays on one thread, from Python: --threads does not apply to it "
            "(drop --threads, or drop --python-loop for native play on several threads)"
        )
    game = load(args.game, _game_config(args.game, args.players, args.options))
    seed: int = fresh_seed() if args.seed is None else args.seed
    _check_seed_range(seed, games)
    new_state(game, seed)  # a bad seed is reported before any work
    if args.out:
        _records.check_destination(args.out)
    cluster.check(args)
    recorded = ""
    if args.ray is not None:
        cluster.connect(args)
        out_file = args.out
        stats = cluster.selfplay(args, console, game, games, seed)  # writes --out itself
        if out_file:
            recorded = f"{stats.games:,} records appended to {out_file} ({cluster.WRITTEN_ALONG})"
    else:
        stats = run_selfplay(game, games, seed, console, not args.python_loop, args.threads)
    if stats.games == 0:
        raise CliError("interrupted before the first game finished")
    if args.out:  # the games just played (both loops play the same games), after the timing
        written, took = records_cli.write_selfplay_records(
            console,
            args.out,
            game,
            stats.games,
            seed,
            lambda unit, **kw: progress_bar(console, unit, **kw),
        )
        recorded = f"{written:,} records appended to {args.out} ({took:,.2f} s)"
    n = game.num_players()
    played = stats.games
    unit = ui_for(game.name).unit_for(game.config())
    seconds = max(stats.seconds, 1e-9)
    bots = "Python loop" if args.python_loop else f"native, {args.threads} thread(s)"
    if args.json:
        out = {
            "game": game.name,
            "config": game.config(),
            "players": n,
            "games": played,
            "games_requested": games,
            "interrupted": stats.interrupted,
            "seed": seed,
            "seeds": [seed, seed + played - 1],
            "bots": "random",
            "loop": "python" if args.python_loop else "native",
            "threads": args.threads,
            "unit": unit,
            "mean": [stats.mean(s) for s in range(n)],
            "ci95": [_finite(stats.half_width(s)) for s in range(n)],
            "mean_length": stats.actions / played,
            "seconds": stats.seconds,
            "games_per_second": played / seconds,
            "actions_per_second": stats.actions / seconds,
        }
        console.print_json(json.dumps(out, allow_nan=False))
        return 130 if stats.interrupted else 0
    title = f"{game.name} · {n} players · {played:,} random game{'s' if played > 1 else ''}"
    table = Table(title=title, box=box.ROUNDED, title_style="bold")
    table.add_column("seat", justify="right", style="bold")
    table.add_column(f"mean return{f' ({unit})' if unit else ''}", justify="right")
    table.add_column("± 95%", justify="right", style="dim")
    table.add_column("95% interval", justify="center")
    for s in range(n):
        mean = stats.mean(s)
        half = stats.half_width(s)
        style = "green" if mean - half > 0 else ("red" if mean + half < 0 else "")
        if math.isnan(half):
            table.add_row(str(s), Text(f"{mean:+.3f}"), "—", "—")
        else:
            table.add_row(
                str(s),
                Text(f"{mean:+.3f}", style=style),
                f"{half:.3f}",
                Text(f"[{mean - half:+.3f}, {mean + half:+.3f}]", style=style),
            )
    print_table(console, table)
    summary = Table.grid(padding=(0, 2))
    summary.add_column(style="dim")
    summary.add_column(justify="right", style="bold")
    summary.add_row("seeds", f"{seed} … {seed + played - 1}")
    if args.options:
        summary.add_row("options", " ".join(args.options))
    summary.add_row("bots", bots)
    summary.add_row("mean game length", f"{stats.actions / played:,.1f} actions")
    summary.add_row("wall time", f"{stats.seconds:,.3f} s (from the first game)")
    summary.add_row("games/s", f"{played / seconds:,.0f}")
    summary.add_row("actions/s", f"{stats.actions / seconds:,.0f}")
    print_table(console, summary)
    if recorded:
        console.print(Text(recorded, style="dim"), soft_wrap=True)
    if stats.interrupted:
        console.print(Text(f"interrupted: {played:,} of {games:,} games played", style="red"))
        return 130
    return 0


# --------------------------------------------------------------------------------------------
# arena


def cmd_arena(args: argparse.Namespace, console: Console) -> int:
    """``tapete arena``: bots against each other on duplicate deals, with 95% intervals."""
    from tapete import _core
    from tapete.arena import ArenaResult

    game = load(args.game, _game_config(args.game, args.players, args.options))
    n = game.num_players()
    specs = split_bot_specs(args.bots)
    if len(specs) != n:
        raise CliError(
            f"{game.name} with {n} players needs {n} bot specs, one per seat, got {len(specs)}"
        )
    for spec in specs:
        try:
            tapete.bots.make(spec, game)
        except ConfigError as error:
            raise CliError(str(error)) from None
    deals: int = args.games
    seed: int = args.seed
    _check_seed_range(seed, deals)
    duplicate = not args.no_duplicate
    cluster.check(args)
    if args.ray is not None:
        cluster.connect(args)
    parts: list[Any] = []
    actions = 0
    done = 0
    step = max(1, args.threads)
    interrupted = False
    if args.out:
        _records.check_destination(args.out)
    record_seconds = 0.0
    progress = progress_bar(console, "deals", disable=args.json or not console.is_terminal)
    start = time.perf_counter()
    with progress:
        task = progress.add_task(f"{game.name} arena", total=deals)
        try:
            if args.ray is not None:  # the whole run on Ray, its bar updated as tasks finish
                parts, actions, interrupted = cluster.arena(
                    args, game, specs, seed, deals, duplicate,
                    lambda d: progress.update(task, completed=d),
                )  # fmt: skip
                done = deals
            while done < deals:
                count = min(step, deals - done)
                t0 = time.perf_counter()
                values, lengths, kept = _core.arena(
                    game, specs, done, count, seed, args.threads, duplicate, bool(args.out)
                )
                if args.out:
                    t1 = time.perf_counter()
                    records_cli.write_arena_records(args.out, game, specs, seed, done, values, kept)
                    record_seconds += time.perf_counter() - t1
                parts.append(values)
                actions += int(lengths.sum())
                done += count
                progress.update(task, completed=done)
                # chunks of about half a second: a live bar, and little lost to Ctrl-C
                rate = count / max(time.perf_counter() - t0, 1e-9)
                step = max(args.threads, min(256 if args.out else 100_000, int(rate * 0.5)))
        except KeyboardInterrupt:
            interrupted = True
    seconds = time.perf_counter() - start - record_seconds  # the arena's speed, not the file's
    if not parts:
        raise CliError("interrupted before the first deal finished")
    values = np.concatenate(parts)
    res = ArenaResult(
        game=game.name,
        bots=specs,
        values=values,
        games=len(values) * (n if duplicate else 1),
        duplicate=duplicate,
        seed=seed,
        actions=actions,
    )
    pairs = _arena_pairs(specs)
    if args.json:
        out = res.to_dict()
        out["differences"] = [
            {"a": a, "b": b, "mean": _finite(m), "ci95": _finite(c)}
            for a, b in pairs
            for m, c in [res.difference(a, b)]
        ]
        out["seconds"] = seconds
        out["interrupted"] = interrupted
        if args.out:
            # on Ray the driver writes them while tasks play: their time is in the run's
            out["records"] = {
                "file": args.out,
                "games": res.games,
                "seconds": None if args.ray is not None else record_seconds,
            }
        console.print_json(json.dumps(out, allow_nan=False))
        return 130 if interrupted else 0
    unit = ui_for(game.name).unit_for(game.config())
    kind = "duplicate " if duplicate else ""
    title = f"{game.name} · {n} players · {len(values):,} {kind}deals"
    table = Table(title=title, box=box.ROUNDED, title_style="bold")
    table.add_column("entry", justify="right", style="bold")
    table.add_column("bot")
    table.add_column(f"mean return{f' ({unit})' if unit else ''}", justify="right")
    table.add_column("± 95%", justify="right", style="dim")
    for e, spec in enumerate(specs):
        mean, half = float(res.mean[e]), float(res.ci95[e])
        style = "green" if mean - half > 0 else ("red" if mean + half < 0 else "")
        table.add_row(
            str(e),
            spec,
            Text(f"{mean:+.3f}", style=style),
            f"{half:.3f}" if math.isfinite(half) else "—",
        )
    print_table(console, table)
    if pairs:
        diffs = Table(title="differences (paired over the same deals)", box=box.SIMPLE_HEAD)
        diffs.add_column("entries")
        diffs.add_column(f"mean difference{f' ({unit})' if unit else ''}", justify="right")
        diffs.add_column("95% interval", justify="center")
        for a, b in pairs:
            m, c = res.difference(a, b)
            style = "green" if m - c > 0 else ("red" if m + c < 0 else "")
            diffs.add_row(
                f"{a} {specs[a]} − {b} {specs[b]}",
                Text(f"{m:+.3f}", style=style),
                Text(f"[{m - c:+.3f}, {m + c:+.3f}]" if math.isfinite(c) else "—", style=style),
            )
        print_table(console, diffs)
    summary = Table.grid(padding=(0, 2))
    summary.add_column(style="dim")
    summary.add_column(justify="right", style="bold")
    summary.add_row("seeds", f"{seed} … {seed + len(values) - 1}")
    summary.add_row("games", f"{res.games:,}")
    summary.add_row("threads", str(args.threads))
    summary.add_row("wall time", f"{seconds:,.2f} s")
    summary.add_row("games/s", f"{res.games / max(seconds, 1e-9):,.1f}")
    summary.add_row("actions/s", f"{actions / max(seconds, 1e-9):,.0f}")
    print_table(console, summary)
    if args.out:
        took = cluster.WRITTEN_ALONG if args.ray is not None else f"{record_seconds:,.2f} s"
        console.print(
            Text(f"{res.games:,} records appended to {args.out} ({took})", style="dim"),
            soft_wrap=True,
        )
    if interrupted:
        console.print(Text(f"interrupted: {len(values)} of {deals} deals played", style="red"))
        return 130
    return 0


def _arena_pairs(specs: list[str]) -> list[tuple[int, int]]:
    """The entry pairs worth comparing: the first entry of each distinct spec, in order."""
    firsts: list[int] = []
    for e, spec in enumerate(specs):
        if spec not in [specs[f] for f in firsts]:
            firsts.append(e)
    return [(a, b) for i, a in enumerate(firsts) for b in firsts[i + 1 :]]


# --------------------------------------------------------------------------------------------
# Entry point


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> NoReturn:
        raise CliError(f"{message} (see '{self.prog} --help')")


def _positive(text: str) -> int:
    """A count of at least 1: ``100000``, ``100_000`` or ``1e5`` (a whole number, exactly)."""
    try:
        number = Decimal(text.strip())
        if not number.is_finite() or number != number.to_integral_value():
            raise ValueError(text)
        if number.adjusted() > MAX_DIGITS:
            raise argparse.ArgumentTypeError(f"{text[:40]!r} is too large a count")
        value = int(number)
    except (ValueError, ArithmeticError):
        raise argparse.ArgumentTypeError(
            f"expected a positive integer, got {text[:40]!r}"
        ) from None
    if value < 1:
        raise argparse.ArgumentTypeError(f"expected a positive integer, got {value}")
    return value


def _seed(text: str) -> int:
    """A seed: an integer in 0 … 2^64-1."""
    if len(text) > MAX_DIGITS:
        raise argparse.ArgumentTypeError(f"a seed must lie in 0 … 2^64-1, got {text[:40]!r}…")
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected an integer seed, got {text[:40]!r}") from None
    if not 0 <= value < MAX_SEED:
        raise argparse.ArgumentTypeError(f"a seed must lie in 0 … 2^64-1, got {value}")
    return value


def build_parser() -> argparse.ArgumentParser:
    """The parser of every ``tapete`` command."""
    try:
        from importlib.metadata import version

        tapete_version = version("tapete")
    except Exception:  # a missing distribution only hides the version
        tapete_version = "unknown"
    parser = _Parser(
        prog="tapete",
        description="Card games with a fast Rust engine: list them, play one, time self-play.",
        epilog="Options are key=value (values read as JSON when possible): "
        "tapete play spoil_five jinking=false partnerships=[[0,2],[1,3]]",
    )
    parser.add_argument("--version", action="version", version=f"tapete {tapete_version}")
    commands = parser.add_subparsers(dest="command", metavar="command", required=True)

    commands.add_parser("games", help="list the games, their player counts and options")

    moves = textwrap.fill(
        "A move is typed as its number in the list, its text (e.g. 'play 2H'), or its card "
        "alone when that is unambiguous; some games key their moves instead:",
        width=78,
    )
    for name, ui in GAME_UIS.items():
        if ui.keys_help:
            moves += "\n" + textwrap.fill(
                f"{name}: {ui.keys_help}", width=78, initial_indent="  ", subsequent_indent="    "
            )
    play = commands.add_parser(
        "play",
        help="play a game against bots (heuristic by default)",
        formatter_class=argparse.RawDescriptionHelpFormatter,
        epilog=moves,
    )
    play.add_argument("game", help="a game name (see 'tapete games')")
    play.add_argument("options", nargs="*", default=[], metavar="key=value", help="game options")
    play.add_argument(
        "--players", type=int, help="number of players (games with a variable count only)"
    )
    play.add_argument("--seat", type=int, default=0, help="your seat (default 0)")
    play.add_argument("--seed", type=_seed, help="seed of the game and the bots")
    play.add_argument(
        "--bots",
        nargs="+",
        default=["heuristic"],
        metavar="SPEC",
        help="the opponents: one bot spec for all or one per opponent, e.g. "
        "heuristic,ismcts:iterations=200 (default heuristic; see docs/bots.md)",
    )
    records_cli.add_out_argument(play, "the game (finished or not)")
    play.add_argument(
        "--auto-forced",
        action="store_true",
        help="play your move for you when it is the only legal one (it is narrated)",
    )
    play.add_argument("--no-pause", action="store_true", help="do not wait for Enter between deals")

    from tapete.cli import rules, watch  # their own modules; they import this one

    watch.add_arguments(
        commands.add_parser("watch", help="watch bots play a game, narrated move by move")
    )
    rules.add_arguments(
        commands.add_parser("rules", help="show a game's rules page (shipped in the package)")
    )

    arena = commands.add_parser("arena", help="measure bots against each other on duplicate deals")
    arena.add_argument("game", help="a game name (see 'tapete games')")
    arena.add_argument("options", nargs="*", default=[], metavar="key=value", help="game options")
    arena.add_argument(
        "--bots",
        nargs="+",
        required=True,
        metavar="SPEC",
        help="one bot spec per seat: random, heuristic, ismcts[:iterations=N,c=X,"
        "rollout=random|heuristic,horizon=deal|game,threads=T]",
    )
    arena.add_argument("--games", type=_positive, required=True, help="number of deals")
    arena.add_argument(
        "--players", type=int, help="number of players (games with a variable count only)"
    )
    arena.add_argument("--seed", type=_seed, default=0, help="first deal seed (default 0)")
    arena.add_argument("--threads", type=_positive, default=1, help="native threads (default 1)")
    arena.add_argument(
        "--no-duplicate", action="store_true", help="play each deal once instead of from every seat"
    )
    arena.add_argument("--json", action="store_true", help="print machine-readable results")
    records_cli.add_out_argument(arena, "every game played")
    cluster.add_arguments(arena, _positive)

    selfplay = commands.add_parser("selfplay", help="time random bots playing many games")
    selfplay.add_argument("game", help="a game name (see 'tapete games')")
    selfplay.add_argument(
        "options", nargs="*", default=[], metavar="key=value", help="game options"
    )
    selfplay.add_argument("--games", type=_positive, required=True, help="number of games")
    selfplay.add_argument(
        "--players", type=int, help="number of players (games with a variable count only)"
    )
    selfplay.add_argument(
        "--seed",
        type=_seed,
        help="first game seed (game i uses seed + i; default: drawn afresh, printed with the "
        "results)",
    )
    selfplay.add_argument(
        "--python-loop",
        action="store_true",
        help="drive the engine from Python (state.apply_action per move) instead of natively; "
        "the same random bot chooses, so the same seeds give the same games",
    )
    selfplay.add_argument(
        "--threads",
        type=_positive,
        default=1,
        help="threads for native play (default 1; --python-loop plays on one)",
    )
    records_cli.add_out_argument(selfplay, "every game played")
    records_cli.add_replay_parser(commands)
    selfplay.add_argument("--json", action="store_true", help="print machine-readable results")
    cluster.add_arguments(selfplay, _positive)
    return parser


def main(argv: list[str] | None = None) -> int:
    """Run the command line with ``argv`` (default ``sys.argv[1:]``); returns the exit code."""
    plain_text_streams()
    console = Console(highlight=False)
    errors = Console(stderr=True, highlight=False)
    parser = build_parser()
    try:
        try:
            args, extra = parser.parse_known_args(sys.argv[1:] if argv is None else argv)
        except SystemExit as done:  # --help and --version
            return done.code if isinstance(done.code, int) else 0
        if args.command in ("play", "selfplay", "arena", "watch"):
            unknown = [item for item in extra if item.startswith("-")]
            args.options = [*args.options, *(item for item in extra if not item.startswith("-"))]
            if getattr(args, "bots", None):
                # `--bots` takes every word up to the next flag: a word `key=value` of its own
                # is a game option written after the bots (a bot spec is `name[:params]`),
                # unless its key is a bot parameter (it then joins the spec before it).
                options = [item for item in args.bots if _is_option(item)]
                args.bots = [item for item in args.bots if not _is_option(item)]
                args.options = [*args.options, *options]
                if not args.bots:
                    raise CliError("--bots needs at least one bot spec, e.g. --bots heuristic")
        else:
            unknown = extra
        if unknown:
            raise CliError(
                f"unrecognized arguments: {' '.join(unknown)} (see 'tapete {args.command} --help')"
            )
        if getattr(args, "game", None) is not None:
            args.game = check_game_name(args.game)
        if args.command == "games":
            return cmd_games(console)
        if args.command == "rules":
            from tapete.cli.rules import cmd_rules

            return cmd_rules(args, console)
        if args.command == "watch":
            from tapete.cli.watch import cmd_watch

            return cmd_watch(args, console)
        if args.command == "play":
            return cmd_play(args, console)
        if args.command == "arena":
            return cmd_arena(args, console)
        if args.command == "replay":
            return records_cli.cmd_replay(args, console)
        return cmd_selfplay(args, console)
    except CliError as error:
        errors.print(Text(f"tapete: error: {error}", style="bold red"), soft_wrap=True)
        return 2
    except TapeteError as error:
        errors.print(Text(f"tapete: error: {error}", style="bold red"), soft_wrap=True)
        return 2
    except KeyboardInterrupt as stop:
        errors.print(Text("tapete: interrupted", style="red"))
        return 129 if isinstance(stop, HangUp) else 130
    except BrokenPipeError:
        try:  # the reader went away (tapete games | head): exit quietly
            devnull = os.open(os.devnull, os.O_WRONLY)
            os.dup2(devnull, sys.stdout.fileno())
        except (OSError, ValueError):
            pass
        return 1
