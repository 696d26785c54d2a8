"""What every game's part of the command line shares: errors, card styles, moves and the
:class:`GameUI` a game plugs in, and the generic drawing for a game without one."""

from __future__ import annotations

import codecs
import re
import sys
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from rich.console import Console
from rich.measure import Measurement
from rich.table import Table
from rich.text import Text

from tapete import Game, State

MAX_SEED = 2**64
PLAYER_PROBE = range(1, 13)
QUIT_WORDS = frozenset({"quit", "exit", "q"})
HELP_WORDS = frozenset({"help", "?", "h"})
CANCEL_WORDS = frozenset({"cancel", "undo", "back"})


class CliError(Exception):
    """A mistake in the command line: printed as one red line, exit code 2."""


# --------------------------------------------------------------------------------------------
# Terminals that cannot show Unicode (PYTHONIOENCODING=ascii, a Latin-1 locale)

ASCII_FALLBACK = {
    "·": "-",
    "…": "...",
    "▶": ">",
    "◂": "<",
    "✗": "x",
    "→": "->",
    "←": "<-",
    "–": "-",
    "—": "-",
    "−": "-",
    "±": "+/-",
    "×": "x",
    "♣": "C",
    "♦": "D",
    "♥": "H",
    "♠": "S",
    "•": "*",
    "≥": ">=",
    "≤": "<=",
    "√": "sqrt",
}


def _ascii_fallback(error: UnicodeError) -> tuple[str, int]:
    if not isinstance(error, UnicodeEncodeError):
        raise error
    bad = error.object[error.start : error.end]
    return "".join(ASCII_FALLBACK.get(ch, "?") for ch in bad), error.end


codecs.register_error("tapete-ascii", _ascii_fallback)


def plain_text_streams() -> None:
    """On a stdout or stderr whose encoding is not a Unicode one, write what it cannot encode
    as ASCII look-alikes (``▶`` as ``>``, ``…`` as ``...``, ``♦`` as ``D``) instead of failing.
    Rich already draws its boxes and rules in ASCII there."""
    for stream in (sys.stdout, sys.stderr):
        encoding = (getattr(stream, "encoding", None) or "").lower().replace("-", "")
        reconfigure = getattr(stream, "reconfigure", None)
        if not encoding.startswith("utf") and reconfigure is not None:
            reconfigure(errors="tapete-ascii")


# --------------------------------------------------------------------------------------------
# Cards


def _french_suit(card: str) -> str | None:
    match = re.fullmatch(r"(?:[2-9]|10|[AJQKT])([CDHS])", card, re.IGNORECASE)
    return match.group(1).upper() if match else None


def french_card_style(card: str) -> str:
    """Hearts and diamonds red, clubs and spades in the default colour."""
    return "red" if _french_suit(card) in ("H", "D") else ""


SPANISH_SUIT_STYLES = {"O": "yellow", "C": "red", "E": "blue", "B": "green"}


def spanish_card_style(card: str) -> str:
    """Oros yellow, copas red, espadas blue, bastos green (Spanish 40 and Cuajo packs)."""
    match = re.fullmatch(r"(?:[1-7]|1[0-2]|[AJHK])([OCEB])", card, re.IGNORECASE)
    return SPANISH_SUIT_STYLES[match.group(1).upper()] if match else ""


def plain_card_style(card: str) -> str:
    """No style: the cards of a game without colours."""
    return ""


def styled_action(text: str, card_style: Callable[[str], str], bold: frozenset[str]) -> Text:
    """An action string with its card tokens coloured (and bold when in ``bold``)."""
    out = Text()
    for i, token in enumerate(text.split(" ")):
        if i:
            out.append(" ")
        style = card_style(token)
        if token in bold:
            style = f"{style} bold".strip()
        out.append(token, style=style)
    return out


# --------------------------------------------------------------------------------------------
# Narrow terminals: nothing is ever cut off or dropped


def print_rule(console: Console, title: Text) -> None:
    """A horizontal rule headed by ``title``; on a console too narrow for the title in the rule
    (rich would cut it short), the title on its own line under a plain rule."""
    if title.cell_len + 6 <= console.width:
        console.rule(title)
        return
    console.rule()
    console.print(title)


def print_table(console: Console, table: Table) -> None:
    """Print ``table``, or, when the console is narrower than the table's least width (rich
    would squeeze columns to an ellipsis or drop them), the same rows stacked: one line per row
    (wrapped, never cut), each non-empty cell after its column's header, e.g.
    ``▶ seat 2 (you) · team 0+2 · cards 15``. Nothing is dropped in either layout."""
    wide = console.options.update_width(1 << 16)  # measured unclamped by the console width
    if Measurement.get(console, wide, table).minimum <= console.width:
        console.print(table)
        return
    if table.title:
        console.print(Text(str(table.title), style="bold"))
    headers = [str(column.header) for column in table.columns]
    cells = [list(column.cells) for column in table.columns]
    for row in range(table.row_count):
        line = Text()
        separator = ""
        for header, column in zip(headers, cells):
            cell = column[row]
            text = cell.copy() if isinstance(cell, Text) else Text(str(cell))
            if not text.plain.strip():
                continue
            line.append(separator, style="dim")
            if header:
                line.append(f"{header} ", style="dim")
            line.append_text(text)
            separator = " · " if header else " "  # a marker (▶) heads its row
        console.print(line)


# --------------------------------------------------------------------------------------------
# Per-game presentation


@dataclass(frozen=True)
class Move:
    """One applied action, as the person at ``seat`` witnessed it."""

    game: Game
    before: State
    after: State
    actor: int
    action: int
    text: str
    seat: int


@dataclass(frozen=True)
class GameUI:
    """How ``tapete play`` presents one game.

    ``draw`` prints the table as ``seat`` sees it; ``narrate`` prints what ``seat`` witnessed of
    one applied move (nothing for a move it cannot see); ``card_style`` gives a card token its
    rich style; ``bold_cards`` names the cards to emphasise in the move list (trumps);
    ``moves_title``, when given, heads the move list instead of "Your moves:" (what the moves are
    for, e.g. the next card of a capture being built); ``move_key``, when given, is the short
    word a person types for a legal action and sees before it in the list, instead of its number
    (Cau Robat: the rank, ``7`` for ``play 7``), and ``key_name`` what that word is;
    ``print_moves``, when given, prints the legal moves instead of the plain list (Cuajo: the
    discards on one line, keyed by their cards, then the other moves and hints); ``unit`` names
    what the returns count (Cuajo: cents), or ``unit_of`` does from the game's config (Cicera:
    points for a single hand, matches otherwise); ``keys_help`` explains the keys in ``tapete
    play --help``; ``deal_of`` gives the number of the deal (hand) under way, from ``seat``'s
    view, so that ``play`` and ``watch`` can pause between deals; ``building``, when given, says
    that ``seat`` is in the middle of a move made of several actions that reveal nothing and can
    be taken back (Cicera: a capture, taken card by card), so that ``play`` offers ``cancel``.
    """

    title: str
    draw: Callable[[Console, Game, State, int], None]
    narrate: Callable[[Console, Move], None]
    card_style: Callable[[str], str]
    bold_cards: Callable[[State, int], frozenset[str]]
    moves_title: Callable[[State, int], Text] | None = None
    move_key: Callable[[State, int], str] | None = None
    key_name: str = "number"
    print_moves: Callable[[Console, State, int, list[int]], None] | None = None
    unit: str = ""
    keys_help: str = ""
    unit_of: Callable[[dict[str, Any]], str] | None = None
    deal_of: Callable[[State, int], int] | None = None
    building: Callable[[State, int], bool] | None = None

    def unit_for(self, config: dict[str, Any]) -> str:
        """What the returns of a game of ``config`` count ("chips", "points", ...)."""
        return self.unit_of(config) if self.unit_of is not None else self.unit


def _no_bold(state: State, seat: int) -> frozenset[str]:
    """No card in bold."""
    return frozenset()


def draw_generic(console: Console, game: Game, state: State, seat: int) -> None:
    """The table of a game without a :class:`GameUI`: its observation string for ``seat``."""
    print_rule(console, Text(game.name))
    console.print(Text(state.observation_string(seat)))


def narrate_generic(console: Console, move: Move) -> None:
    """Print the lines that the move added to the seat's perfect-recall information state."""
    old = move.before.information_state_string(move.seat)
    new = move.after.information_state_string(move.seat)
    if not new.startswith(old):  # not perfect recall after all: show only the person's own move
        if move.actor == move.seat:
            console.print(Text(f"You: {move.text}"))
        return
    for line in new[len(old) :].splitlines():
        if line.strip():
            console.print(Text(line))
