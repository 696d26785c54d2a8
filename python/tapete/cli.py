"""The ``tapete`` command line: list the games, play one against random bots, time self-play.

    tapete games
    tapete play spoil_five --seat 0 --seed 3 jinking=false
    tapete play cicera --seed 3 game_mode=single_hand
    tapete play cau_robat --players 3 --seed 3 hands_to_win=2
    tapete play cuajo --seat 1 --seed 3 hands_per_match=2
    tapete selfplay spoil_five --games 10000 --seed 1 players=5

Everything generic (the game list, option parsing, self-play, the play loop) works for any
registered game. What depends on a game's ``view()`` layout is the table drawing and the move
narration of ``play``, kept in a small :class:`GameUI` per game (:data:`GAME_UIS`); a game without
one is drawn with ``state.observation_string(seat)`` and narrated from what is new in
``state.information_state_string(seat)``, so it never shows a person what their seat may not know.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import random
import re
import sys
import textwrap
import time
from collections import Counter
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from typing import Any, NoReturn

from rich import box
from rich.console import Console
from rich.table import Table
from rich.text import Text

import tapete
from tapete import ConfigError, Game, State, TapeteError

__all__ = ["GAME_UIS", "GameUI", "Move", "main", "parse_options"]

MAX_SEED = 2**64
PLAYER_PROBE = range(1, 13)
QUIT_WORDS = frozenset({"quit", "exit", "q"})
HELP_WORDS = frozenset({"help", "?", "h"})


class CliError(Exception):
    """A mistake in the command line: printed as one red line, exit code 2."""


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
    what the returns count (Cuajo: cents); ``keys_help`` explains the keys in ``tapete play
    --help``.
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


def _no_bold(state: State, seat: int) -> frozenset[str]:
    return frozenset()


def draw_generic(console: Console, game: Game, state: State, seat: int) -> None:
    console.rule(Text(game.name))
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


def ui_for(name: str) -> GameUI:
    return GAME_UIS.get(name) or GameUI(
        title=name.replace("_", " ").title(),
        draw=draw_generic,
        narrate=narrate_generic,
        card_style=CARD_STYLES.get(name, plain_card_style),
        bold_cards=_no_bold,
    )


# ---- Spoil Five (layout of view(): docs/rules/spoil_five.md) --------------------------------

SUIT_NAMES = {"C": "clubs", "D": "diamonds", "H": "hearts", "S": "spades"}
SUIT_SYMBOLS = {"C": "♣", "D": "♦", "H": "♥", "S": "♠"}
TURN_UP_PLACES = {
    "stock": "on the stock",
    "dealer": "earmarked for the dealer",
    "hand": "taken into a hand",
    "played": "played",
}


def _sf_trumps(state: State, seat: int) -> frozenset[str]:
    return frozenset(tapete.spoil_five.trump_order(state.view(seat)["trump"]))


def _sf_card(card: str, trumps: frozenset[str]) -> Text:
    style = french_card_style(card)
    if card in trumps:
        style = f"{style} bold".strip()
    return Text(card, style=style)


def _sf_cards(cards: Sequence[str], trumps: frozenset[str]) -> Text:
    return Text(" ").join(_sf_card(card, trumps) for card in cards)


def _sf_plays(plays: Sequence[Sequence[Any]], trumps: frozenset[str], seat: int) -> Text:
    parts = []
    for who, card in plays:
        part = Text("you" if who == seat else f"seat {who}", style="dim")
        part.append(" ")
        part.append_text(_sf_card(card, trumps))
        parts.append(part)
    return Text(", ").join(parts)


def _seat_name(who: int, seat: int) -> str:
    return "you" if who == seat else f"seat {who}"


def _sf_outcome(deal: dict[str, Any], seat: int, pool: int | None = None) -> str:
    winner = deal["winner"]
    who = _seat_name(winner, seat) if winner is not None else ""
    pool_text = f" of {pool}" if pool is not None else ""
    outcome = deal["outcome"]
    if outcome == "win":
        return f"{who} won the pool{pool_text}"
    if outcome == "jink_success":
        return f"{who} jinked and won all five tricks: the pool{pool_text} and the jink payments"
    if outcome == "jink_failed":
        return f"{who} jinked and lost a trick: the pool carries over"
    if outcome == "forfeited_win":
        return f"{who} reached three tricks after declining the rob: forfeited, pool carried over"
    if outcome == "spoil":
        return "spoiled: nobody reached three tricks, the pool carries over"
    return str(outcome)


def _sf_short_outcome(deal: dict[str, Any], seat: int) -> str:
    who = _seat_name(deal["winner"], seat) if deal["winner"] is not None else ""
    return {
        "win": f"won by {who}",
        "jink_success": f"jinked by {who}, won",
        "jink_failed": f"jinked by {who}, failed",
        "forfeited_win": f"forfeited by {who}",
        "spoil": "spoiled",
    }.get(deal["outcome"], str(deal["outcome"]))


def _sf_deal_intro(v: dict[str, Any], seat: int, fancy: bool) -> Text:
    trump: str = v["trump"]
    trumps = frozenset(tapete.spoil_five.trump_order(trump))
    text = Text(f"Deal {v['deal'] + 1}: dealer {_seat_name(v['dealer'], seat)}, trumps ")
    symbol = f"{SUIT_SYMBOLS[trump]} " if fancy else ""
    text.append(f"{symbol}{SUIT_NAMES[trump]}", style=f"{french_card_style('A' + trump)} bold")
    text.append(" (turn-up ")
    text.append_text(_sf_card(v["turn_up"], trumps))
    text.append(f"), pool {v['pool']}")
    return text


def draw_spoil_five(console: Console, game: Game, state: State, seat: int) -> None:
    v = state.view(seat)
    n: int = v["players"]
    trump: str = v["trump"]
    trumps = frozenset(tapete.spoil_five.trump_order(trump))
    fancy = console.encoding.lower().startswith("utf")
    num_deals = int(game.config().get("num_deals") or n)
    deal: int = v["deal"]
    if deal < num_deals:
        deal_text = f"deal {deal + 1} of {num_deals}"
    else:
        deal_text = f"deal {deal + 1} (extra deal {deal + 1 - num_deals})"
    console.print()
    console.rule(Text(f"Spoil Five · {deal_text} · dealer: {_seat_name(v['dealer'], seat)}"))

    head = Text("Trumps ")
    suit_style = f"{french_card_style('A' + trump)} bold".strip()
    symbol = f"{SUIT_SYMBOLS[trump]} " if fancy else ""
    head.append(f"{symbol}{SUIT_NAMES[trump]}", style=suit_style)
    head.append("   turn-up ")
    head.append_text(_sf_card(v["turn_up"], trumps))
    head.append(f" ({TURN_UP_PLACES.get(v['turn_up_at'], v['turn_up_at'])})", style="dim")
    head.append("   pool ")
    head.append(str(v["pool"]), style="bold yellow")
    console.print(head)

    teams: list[list[int]] = v["teams"]
    team_of = {s: i for i, team in enumerate(teams) for s in team}
    partnerships = any(len(team) > 1 for team in teams)
    table = Table(box=box.SIMPLE_HEAD, padding=(0, 1), show_edge=False)
    table.add_column("", no_wrap=True)
    table.add_column("seat", no_wrap=True)
    if partnerships:
        table.add_column("team", justify="center")
    table.add_column("balance", justify="right")
    table.add_column("tricks", justify="right")
    table.add_column("cards", justify="right")
    table.add_column("notes")
    for s in range(n):
        notes = []
        if s == v["dealer"]:
            notes.append("dealer")
        if s == v["robber"]:
            notes.append("robbed")
        if v["put_out"][s] is not None:
            notes.append(f"put out {v['put_out'][s]}")
        if v["declined"][s]:
            notes.append("declined")
        if s == v["jinker"]:
            notes.append("jinking")
        pointer = ("▶" if fancy else ">") if s == v["to_play"] else ""
        row = [
            Text(pointer, style="bold green"),
            Text(f"{s} (you)" if s == seat else f"{s}", style="bold" if s == seat else ""),
        ]
        if partnerships:
            row.append(Text(chr(ord("A") + team_of.get(s, 0))))
        row += [
            Text(f"{v['balances'][s]:+d}", style="green" if v["balances"][s] > 0 else ""),
            Text(str(v["tricks_won"][s])),
            Text(str(v["hand_sizes"][s])),
            Text(", ".join(notes), style="dim"),
        ]
        table.add_row(*row)
    console.print(table)

    hand = v["hands"][seat]
    if hand:
        line = Text("Your hand  ", style="bold")
        line.append_text(_sf_cards(hand, trumps))
        if v["turn_up_at"] == "dealer" and v["dealer"] == seat:
            line.append("  + the turn-up ")
            line.append_text(_sf_card(v["turn_up"], trumps))
            line.append(" at your turn", style="dim")
        line.append("   (trumps in bold)", style="dim")
        console.print(line)

    for i, trick in enumerate(v["tricks"]):
        line = Text(f"Trick {i + 1}  ", style="dim")
        line.append_text(_sf_plays(trick["plays"], trumps, seat))
        line.append(f"  → {_seat_name(trick['winner'], seat)}", style="dim")
        console.print(line)
    current = v["current_trick"]
    if current is not None:
        line = Text(f"Trick {len(v['tricks']) + 1}  ", style="bold")
        if current["plays"]:
            line.append_text(_sf_plays(current["plays"], trumps, seat))
        else:
            line.append(f"{_seat_name(current['leader'], seat)} to lead", style="dim")
        console.print(line)

    if v["past_deals"]:
        past = Table(title="Past deals", box=box.SIMPLE_HEAD, show_edge=False, title_justify="left")
        past.add_column("deal", justify="right")
        past.add_column("dealer", justify="right")
        past.add_column("tricks", justify="center")
        past.add_column("outcome")
        for i, old in enumerate(v["past_deals"]):
            past.add_row(
                str(i + 1),
                str(old["dealer"]),
                "-".join(str(t) for t in old["tricks_won"]),
                _sf_short_outcome(old, seat),
            )
        console.print(past)


def narrate_spoil_five(console: Console, move: Move) -> None:
    before = move.before.view(move.seat)
    after = move.after.view(move.seat)
    trumps = frozenset(tapete.spoil_five.trump_order(before["trump"]))
    words = move.text.split(" ")
    verb = words[0]
    mine = move.actor == move.seat
    who = Text("You" if mine else f"Seat {move.actor}", style="bold" if mine else "cyan")
    line = who.copy()
    if verb == "play" and len(words) == 2:
        line.append(" play " if mine else " plays ")
        line.append_text(_sf_card(words[1], trumps))
    elif verb == "rob" and len(words) == 2:
        turn_up = _sf_card(before["turn_up"], trumps)
        if before["phase"] == "dealer_rob":
            line.append(" put " if mine else " puts ")
            line.append_text(_sf_card(words[1], trumps) if mine else Text("a card"))
            line.append(" face down for the turned-up ")
        else:
            line.append(" rob: put " if mine else " robs: puts ")
            line.append_text(_sf_card(words[1], trumps) if mine else Text("a card"))
            line.append(" face down and take " if mine else " face down and takes ")
        line.append_text(turn_up)
    elif verb == "decline":
        if not mine and before["phase"] != "dealer_rob":
            return  # declining a rob from the hand is private: the seat never sees it
        line.append(" decline the rob" if mine else " declines the turned-up ace")
    elif verb == "stand":
        line.append(" stand and take the pool" if mine else " stands and takes the pool")
    elif verb == "jink":
        line.append(" jink!" if mine else " jinks!", style="bold magenta")
        line.append(" Playing on for all five tricks")
    else:
        line.append(f": {move.text}")
    console.print(line)

    deal_over = len(after["past_deals"]) > len(before["past_deals"])
    if verb == "play" and before["current_trick"] is not None:
        plays = [*before["current_trick"]["plays"], [move.actor, words[1]]]
        if len(plays) == before["players"]:
            if not deal_over:
                winner: int = after["tricks"][-1]["winner"]
            else:
                index = tapete.spoil_five.trick_winner(before["trump"], [c for _, c in plays])
                winner = plays[index][0]
            line = Text(f"  {_seat_name(winner, move.seat)} won trick {len(before['tricks']) + 1}")
            line.append(f"  ({_tricks_after(before, winner)})", style="dim")
            console.print(line)
    if deal_over:
        last = after["past_deals"][-1]
        text = f"Deal {len(after['past_deals'])}: {_sf_outcome(last, move.seat, before['pool'])}."
        console.print(Text(text, style="bold yellow"))
        if after["phase"] != "over":
            fancy = console.encoding.lower().startswith("utf")
            console.print(_sf_deal_intro(after, move.seat, fancy))


def _tricks_after(before: dict[str, Any], winner: int) -> str:
    """The tricks of each seat (and of each team, with partnerships) once ``winner`` has won."""
    tricks = list(before["tricks_won"])
    tricks[winner] += 1
    text = "tricks " + "-".join(str(t) for t in tricks)
    teams: list[list[int]] = before["teams"]
    if any(len(team) > 1 for team in teams):
        totals = (str(sum(tricks[s] for s in team)) for team in teams)
        text += "; teams " + "-".join(totals)
    return text


# ---- Cicera (layout of view(): docs/rules/cicera.md) ----------------------------------------

CI_SUITS = "SHDC"
CI_RANKS = ("A", "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K")
CI_CATEGORIES = (
    ("cards", "cards"),
    ("spades", "spades"),
    ("two_of_spades", "2S"),
    ("napola", "napola"),
    ("ten_of_diamonds", "10D"),
    ("jack_of_hearts", "JH"),
    ("bonus", "bonus"),
    ("total", "total"),
)
CI_KEY_CARDS = ("AS", "2S", "3S", "10D", "JH")  # the napola's start, and the one-point cards


def _ci_id(card: str) -> int:
    """The engine's card id, ``13 · suit + rank``: the order of hands, table and piles."""
    return 13 * CI_SUITS.index(card[-1]) + CI_RANKS.index(card[:-1])


def _ci_value(card: str) -> int | None:
    """The capture value of a numeral (the ace is 1); ``None`` for a court."""
    rank = CI_RANKS.index(card[:-1])
    return rank + 1 if rank < 10 else None


def _ci_span(text: str, style: str) -> Text:
    """``text`` in ``style``, as a span: what is appended after it keeps its own style."""
    out = Text()
    out.append(text, style=style)
    return out


def _ci_card(card: str, style: str = "") -> Text:
    return Text(card, style=f"{french_card_style(card)} {style}".strip())


def _ci_cards(cards: Sequence[str], sep: str = " ") -> Text:
    return Text(sep).join(_ci_card(card) for card in cards)


def _ci_by_suit(cards: Sequence[str]) -> Text:
    """A hand grouped by suit (spades, hearts, diamonds, clubs), the groups two spaces apart."""
    groups = [[c for c in cards if c[-1] == suit] for suit in CI_SUITS]
    return Text("  ").join(_ci_cards(group) for group in groups if group)


def _ci_team_name(team: Sequence[int]) -> str:
    return "+".join(str(s) for s in team)


def _ci_team_of(v: dict[str, Any], who: int) -> int:
    teams: list[list[int]] = v["teams"]
    return next(i for i, team in enumerate(teams) if who in team)


def _ci_pair(values: Sequence[int]) -> str:
    return f"{values[0]}-{values[1]}"


def _ci_still_to_take(pending: str, taken: Sequence[str]) -> str:
    value = _ci_value(pending)
    if value is None:
        return f"a {pending[:-1]} to take"
    if not taken:
        return f"cards adding up to {value}"
    rest = value - sum(_ci_value(card) or 0 for card in taken)
    return f"{rest} more to make {value}"


def _ci_trail_mark(fancy: bool) -> str:
    return "◂" if fancy else "*"


def _ci_table_line(label: str, cards: Sequence[str], trail: str | None, fancy: bool) -> Text:
    """The table cards, the one just trailed bold and marked (◂, or * on a plain terminal)."""
    line = _ci_span(label, "bold")
    if not cards:
        line.append("empty", style="dim")
    for i, card in enumerate(cards):
        if i:
            line.append(" ")
        if card == trail:
            line.append_text(_ci_card(card, "bold underline"))
            line.append(_ci_trail_mark(fancy), style="bold yellow")
        else:
            line.append_text(_ci_card(card))
    return line


def _ci_trail_note(v: dict[str, Any], config: dict[str, Any], seat: int, fancy: bool) -> Text:
    """The line under the table about the card trailed on the preceding turn."""
    trail: str = v["last_trail"]
    note = _ci_span(f"       {_ci_trail_mark(fancy)} ", "bold yellow")
    note.append_text(_ci_card(trail, "bold"))
    note.append(" just trailed")
    if v["plays"]:
        note.append(f" by {_seat_name(v['plays'][-1]['seat'], seat)}")
    if config.get("bonus_left", True) and v["to_play"] is not None:
        alone = " alone" if config.get("left_bonus_mode") == "rank_match" else ""
        taker = "you" if v["to_play"] == seat else f"seat {v['to_play']}"
        verb = "capture" if taker == "you" else "captures"
        note.append(f": +1 (left capture) if {taker} {verb} it{alone} now", style="dim")
    return note


def draw_cicera(console: Console, game: Game, state: State, seat: int) -> None:
    v = state.view(seat)
    config = game.config()
    fancy = console.encoding.lower().startswith("utf")
    teams: list[list[int]] = v["teams"]
    my_team = _ci_team_of(v, seat)

    if v["phase"] == "capture" and v["to_play"] == seat:
        # the table was drawn at the start of this turn: show only what is left to take from
        left = [card for card in v["table"] if card not in v["taken"]]
        label = "Still on the table  " if v["taken"] else "Table  "
        console.print(_ci_table_line(label, left, v["last_trail"], fancy))
        return

    target = config.get("target_score", 51)
    single = config.get("game_mode") == "single_hand"
    hand_text = "single hand" if single else f"hand {v['hand'] + 1} · match to {target}"
    console.print()
    console.rule(Text(f"Cicera · {hand_text} · dealer: {_seat_name(v['dealer'], seat)}"))

    scores = Table(box=box.SIMPLE_HEAD, padding=(0, 1), show_edge=False)
    scores.add_column("team", no_wrap=True)
    scores.add_column("score" if single else "match", justify="right")
    scores.add_column("hand bonus", justify="right")
    scores.add_column("pile", justify="right")
    scores.add_column("spades", justify="right")
    scores.add_column("key cards")
    for t, team in enumerate(teams):
        mine = t == my_team
        pile: list[str] = v["piles"][t]
        name = Text(_ci_team_name(team), style="bold" if mine else "")
        if mine:
            name.append(" (you)")
        score = Text(str(v["scores"][t]) if single else f"{v['scores'][t]} / {target}")
        if v["winner"] == t:
            score.stylize("bold green")
        scores.add_row(
            name,
            score,
            Text(f"+{v['bonus'][t]}" if v["bonus"][t] else "0"),
            Text(f"{len(pile)}"),
            Text(str(sum(1 for card in pile if card.endswith("S")))),
            _ci_cards([card for card in CI_KEY_CARDS if card in pile]),
        )
    console.print(scores)

    seats = Table(box=box.SIMPLE_HEAD, padding=(0, 1), show_edge=False)
    seats.add_column("", no_wrap=True)
    seats.add_column("seat", no_wrap=True)
    seats.add_column("team")
    seats.add_column("in hand", justify="right")
    seats.add_column("notes")
    for s in range(v["players"]):
        notes = []
        if s == v["dealer"]:
            notes.append("dealer")
        if s == v["last_capturer"]:
            notes.append("captured last")
        if s in teams[my_team] and s != seat:
            notes.append("partner")
        pointer = ("▶" if fancy else ">") if s == v["to_play"] else ""
        seats.add_row(
            Text(pointer, style="bold green"),
            Text(f"{s} (you)" if s == seat else str(s), style="bold" if s == seat else ""),
            Text(_ci_team_name(teams[_ci_team_of(v, s)])),
            Text(str(v["hand_sizes"][s])),
            Text(", ".join(notes), style="dim"),
        )
    console.print(seats)
    if v["stock_size"] or config.get("packet_size", 12) != 12:
        stock = _ci_span(f"Stock  {v['stock_size']} cards", "bold")
        if v["stock_size"]:
            stock.append("  (the next packet is dealt when all hands are empty)", style="dim")
        console.print(stock)

    console.print(_ci_table_line("Table  ", v["table"], v["last_trail"], fancy))
    if v["last_trail"] is not None and v["last_trail"] in v["table"]:
        console.print(_ci_trail_note(v, config, seat, fancy))
    if v["pending"] is not None:
        line = _ci_span("Capture under way  ", "bold")
        line.append(f"{_seat_name(v['to_play'], seat)} plays ")
        line.append_text(_ci_card(v["pending"]))
        if v["taken"]:
            line.append(", has taken ")
            line.append_text(_ci_cards(v["taken"], " + "))
        line.append(f" ({_ci_still_to_take(v['pending'], v['taken'])})", style="dim")
        console.print(line)

    hand = v["hands"][seat]
    if hand:
        line = _ci_span("Your hand  ", "bold")
        line.append_text(_ci_by_suit(hand))
        console.print(line)

    if v["past_hands"]:
        past = Table(
            title=f"Past hands ({_ci_team_name(teams[0])} - {_ci_team_name(teams[1])})",
            box=box.SIMPLE_HEAD,
            show_edge=False,
            title_justify="left",
            padding=(0, 1, 0, 0),
        )
        past.add_column("hand", justify="right")
        past.add_column("dealer", justify="right")
        for _, header in CI_CATEGORIES:
            past.add_column(header, justify="center")
        past.add_column("match", justify="center")
        for i, old in enumerate(v["past_hands"]):
            points: dict[str, list[int]] = old["points"]
            cells = [_ci_pair(points.get(key, [0, 0])) for key, _ in CI_CATEGORIES]
            past.add_row(
                str(i + 1),
                str(old["dealer"]),
                *cells[:-1],
                Text(cells[-1], style="bold"),
                Text(_ci_pair(old["scores"]), style="bold"),
            )
        console.print(past)


def _ci_bonus_names(
    config: dict[str, Any], before: dict[str, Any], played: str, captured: Sequence[str]
) -> list[str]:
    """The bonuses that a capture earns under the rules (docs/rules/cicera.md), in rule order."""
    names = []
    if config.get("bonus_sweep", True) and set(captured) == set(before["table"]):
        names.append("sweep")
    trail = before["last_trail"]
    if config.get("bonus_left", True) and trail is not None:
        if config.get("left_bonus_mode") == "rank_match":
            left = list(captured) == [trail]
        else:
            left = trail in captured
        if left:
            names.append("left capture")
    suit = played[-1]
    if config.get("bonus_single_suit", True) and len(captured) >= 2:
        if all(card[-1] == suit for card in captured):
            names.append("single suit")
    if config.get("bonus_three_plus", True) and len(captured) >= 3:
        names.append("three or more")
    return names


def _ci_bonus_text(names: list[str], gained: int) -> str:
    if gained <= 0:
        return ""
    if len(names) != gained and "sweep" in names and len(names) - 1 == gained:
        names = [name for name in names if name != "sweep"]  # no sweep on the hand's last play
    if len(names) == gained:
        return f" (+{gained} bonus: {', '.join(names)})"
    return f" (+{gained} bonus)"


def narrate_cicera(console: Console, move: Move) -> None:
    before = move.before.view(move.seat)
    after = move.after.view(move.seat)
    config = move.game.config()
    verb, _, card = move.text.partition(" ")
    mine = move.actor == move.seat
    who = _ci_span("You" if mine else f"Seat {move.actor}", "bold" if mine else "cyan")
    hand_over = len(after["past_hands"]) > len(before["past_hands"])
    captured: list[str] | None = None
    line = who.copy()
    if verb == "play":
        line.append(" trail " if mine else " trails ")
        line.append_text(_ci_card(card))
    elif verb == "capture":
        if not mine:
            return  # told once, when the capture resolves
        line.append(" play ")
        line.append_text(_ci_card(card))
        line.append(" to capture: take the table cards one by one, in table order")
    elif verb == "take":
        if after["phase"] == "capture" and not hand_over:
            return  # the capture goes on
        played: str = before["pending"]
        if after["hand"] == before["hand"] and len(after["plays"]) > len(before["plays"]):
            captured = list(after["plays"][-1]["captured"] or [])
        else:  # a new hand has been dealt: the capture is what was taken, and this card
            captured = [*before["taken"], card]
        team = _ci_team_of(before, move.actor)
        if hand_over:
            gained = after["past_hands"][-1]["points"]["bonus"][team] - before["bonus"][team]
        else:
            gained = after["bonus"][team] - before["bonus"][team]
        names = _ci_bonus_names(config, before, played, captured)
        line.append(" capture " if mine else " captures ")
        line.append_text(_ci_cards(captured, " + "))
        line.append(" with ")
        line.append_text(_ci_card(played))
        bonus = _ci_bonus_text(names, gained)
        if bonus:
            line.append(bonus, style="bold magenta")
    else:
        line.append(f": {move.text}")
    console.print(line)

    if hand_over:
        _ci_narrate_hand_end(console, move, before, after, verb, card, captured)
    elif sum(after["hand_sizes"]) > sum(before["hand_sizes"]):
        size = max(after["hand_sizes"])
        text = f"A new packet: {size} cards each, {after['stock_size']} left in the stock."
        console.print(Text(text, style="bold yellow"))


def _ci_narrate_hand_end(
    console: Console,
    move: Move,
    before: dict[str, Any],
    after: dict[str, Any],
    verb: str,
    card: str,
    captured: list[str] | None,
) -> None:
    config = move.game.config()
    teams: list[list[int]] = before["teams"]
    if captured is not None:
        left = [c for c in before["table"] if c not in captured]
        capturer: int | None = move.actor
    else:
        left = sorted([*before["table"], card] if verb == "play" else before["table"], key=_ci_id)
        capturer = before["last_capturer"]
    if left:
        line = Text(f"The last {len(left)} table card{'s' * (len(left) > 1)} (")
        line.append_text(_ci_cards(left))
        if capturer is not None:
            team = teams[_ci_team_of(before, capturer)]
            line.append(f") go to team {_ci_team_name(team)}")
            line.append(f", {_seat_name(capturer, move.seat)} captured last.")
        elif config.get("leftover_if_no_capture") == "dealer_team":
            team = teams[_ci_team_of(before, before["dealer"])]
            line.append(f") go to the dealer's team {_ci_team_name(team)}: nobody captured.")
        else:
            line.append(") go to nobody: nobody captured.")
        console.print(line)
    last = after["past_hands"][-1]
    points: dict[str, list[int]] = last["points"]
    number = len(after["past_hands"])
    line = _ci_span(f"Hand {number} over: ", "bold yellow")
    line.append(
        f"team {_ci_team_name(teams[0])} scores {points['total'][0]}, "
        f"team {_ci_team_name(teams[1])} {points['total'][1]}",
        style="bold yellow",
    )
    details = ", ".join(
        f"{header} {_ci_pair(points[key])}" for key, header in CI_CATEGORIES[:-1] if key in points
    )
    line.append(f"  ({details})", style="dim")
    console.print(line)
    if config.get("game_mode") == "single_hand":
        return
    scores = _ci_span(f"Match {_ci_pair(last['scores'])}", "bold")
    scores.append(f" (target {config.get('target_score', 51)})", style="dim")
    if after["phase"] == "over":
        winner = after["winner"]
        if winner is None:
            scores.append(": the match is drawn.", style="bold")
        else:
            won = "you" if move.seat in teams[winner] else "they"
            scores.append(
                f": team {_ci_team_name(teams[winner])} wins the match ({won} won).",
                style="bold green" if won == "you" else "bold red",
            )
    console.print(scores)
    if after["phase"] != "over":
        intro = Text(f"Hand {after['hand'] + 1}: {_seat_name(after['dealer'], move.seat)} deal")
        intro.append("s" if after["dealer"] != move.seat else "")
        intro.append("; table ")
        intro.append_text(_ci_cards(after["table"]))
        console.print(intro)


def _ci_bold(state: State, seat: int) -> frozenset[str]:
    """The card just trailed (a ``take`` of it earns the left-capture bonus)."""
    trail = state.view(seat)["last_trail"]
    return frozenset({trail}) if trail else frozenset()


def _ci_moves_title(state: State, seat: int) -> Text:
    v = state.view(seat)
    if v["phase"] != "capture":
        title = _ci_span("Your moves:", "bold")
        title.append("  play = trail the card, capture = capture with it", style="dim")
        return title
    title = _ci_span("Taking for ", "bold")
    title.append_text(_ci_card(v["pending"], "bold"))
    title.append(": choose the next card", style="bold")
    hint = " (" + (f"taken {' + '.join(v['taken'])}; " if v["taken"] else "")
    hint += _ci_still_to_take(v["pending"], v["taken"])
    title.append(f"{hint})", style="dim")
    return title


# ---- Cau Robat (layout of view(): docs/rules/cau_robat.md) ----------------------------------

CR_RANKS = (1, 2, 3, 4, 5, 6, 7, 10, 11, 12)  # the cycle of the runs: 12 and 1 are neighbours
CR_SUITS = "OCEB"
CR_PACK = tuple(f"{rank}{suit}" for rank in CR_RANKS for suit in CR_SUITS)  # ascending id
CR_LEVELS = {2: "cau", 3: "recau", 4: "contracau"}  # by the number of cards in the chain
CR_LEVELS_INDEX = {level: size for size, level in CR_LEVELS.items()}


def _cr_index(card: str) -> int:
    """The rank index (0-9, in cycle order) of a card."""
    return CR_RANKS.index(int(card[:-1]))


def _cr_id(card: str) -> int:
    """The engine's card id, ``4 · rank index + suit``: the order of hands and table."""
    return 4 * _cr_index(card) + CR_SUITS.index(card[-1].upper())


def _cr_card(card: str, style: str = "") -> Text:
    return Text(card, style=f"{spanish_card_style(card)} {style}".strip())


def _cr_cards(cards: Sequence[str], sep: str = " ") -> Text:
    return Text(sep).join(_cr_card(card) for card in cards)


def _cr_by_rank(cards: Sequence[str], sep: str = "  ") -> Text:
    """Cards in cycle order, grouped by rank, the groups ``sep`` apart."""
    groups: dict[int, list[str]] = {}
    for card in sorted(cards, key=_cr_id):
        groups.setdefault(_cr_index(card), []).append(card)
    return Text(sep).join(_cr_cards(group) for group in groups.values())


def _cr_who(who: int, seat: int) -> str:
    """The subject of a sentence: "You" or "Seat 2"."""
    return "You" if who == seat else f"Seat {who}"


def _cr_whose(who: int, seat: int) -> str:
    return "your" if who == seat else f"seat {who}'s"


def _cr_verb(who: int, seat: int, verb: str) -> str:
    """``verb`` agreeing with its subject: "you pay", "seat 2 pays"."""
    return f"{_seat_name(who, seat)} {verb}{'' if who == seat else 's'}"


def _cr_seats(seats: Sequence[int], seat: int) -> str:
    names = [_seat_name(s, seat) for s in seats]
    return names[0] if len(names) == 1 else f"{', '.join(names[:-1])} and {names[-1]}"


# The public position of a hand, moved on by one play exactly as the engine does (rules §3-§5),
# so that a move can be told step by step: the view after a move shows only where it ended.


@dataclass
class _CrChain:
    rank: int  # rank index
    cards: list[str]
    seats: list[int]


@dataclass
class _CrPosition:
    table: list[str]
    piles: list[list[str]]
    chain: _CrChain | None
    last_play: tuple[int, str, bool] | None  # seat, card, captured
    last_capturer: int | None
    hand_sizes: list[int]

    @staticmethod
    def of(v: dict[str, Any]) -> _CrPosition:
        chain = v["chain"]
        last = v["last_play"]
        return _CrPosition(
            table=list(v["table"]),
            piles=[list(pile) for pile in v["piles"]],
            chain=None
            if chain is None
            else _CrChain(
                CR_RANKS.index(chain["rank"]), list(chain["cards"]), list(chain["seats"])
            ),
            last_play=None if last is None else (last["seat"], last["card"], last["captured"]),
            last_capturer=v["last_capturer"],
            hand_sizes=list(v["hand_sizes"]),
        )


@dataclass
class _CrCapture:
    """``seat`` put ``packet`` on its pile (bottom to top), ``robbed`` piles among it."""

    seat: int
    packet: list[str]
    robbed: list[tuple[int, list[str]]]  # (seat, its whole pile), in the order taken
    direct: bool = False  # direct_pile_match: the played card matched pile tops, not the table


@dataclass
class _CrPayment:
    payer: int
    to: int
    card: str | None  # None: the payer's pile was empty


@dataclass
class _CrSettle:
    """A chain settled ``when``: "before" the next card (another rank), "now" (contracau) or at
    the "end" of the hand."""

    when: str
    level: str
    seats: list[int]
    capture: _CrCapture
    penalties: list[_CrPayment]
    net: list[_CrPayment]


@dataclass
class _CrOutcome:
    """What the played card did: "none" (stays on the table), "take", "cau", "recau" or
    "contracau" (joins the chain; a contracau is settled at once, ``settle``)."""

    card: str
    kind: str
    capture: _CrCapture | None = None
    net: list[_CrPayment] | None = None
    caued: tuple[int, str] | None = None  # the seat and card a cau (or recau...) answers
    settle: _CrSettle | None = None


@dataclass
class _CrLeftovers:
    cards: list[str]
    to: int | None  # None: they count for nobody


_CrEvent = _CrSettle | _CrOutcome | _CrLeftovers


def _cr_walk(
    k: int, p: int, pos: _CrPosition, cfg: dict[str, Any]
) -> tuple[list[str | int | None], list[str | int | None]]:
    """The downward and upward run through rank index ``k`` for capturer ``p``: a table card
    (str), a robbed seat (int) or the capturer's own pile bridging (None), nearest first."""
    n = len(pos.piles)
    on_table = {_cr_index(card): card for card in pos.table}
    direction = cfg.get("sequence_direction", "both")
    steps = {"both": (-1, 1), "down_only": (-1,), "up_only": (1,)}.get(direction, (-1, 1))
    visited = {k}
    parts: dict[int, list[str | int | None]] = {-1: [], 1: []}
    for step in steps:
        items = parts[step]
        x = (k + step) % len(CR_RANKS)
        while x not in visited:
            others = [
                q
                for q in ((p + i) % n for i in range(1, n))
                if pos.piles[q] and _cr_index(pos.piles[q][-1]) == x
            ]
            own = pos.piles[p] and _cr_index(pos.piles[p][-1]) == x
            if x in on_table:
                if cfg.get("rank_conflict") == "stop" and others:
                    break
                items.append(on_table[x])
            elif others:
                if cfg.get("multi_pile_same_rank") == "first_only":
                    others = others[:1]
                items.extend(others)
            elif own and cfg.get("own_pile_links"):
                items.append(None)
            else:
                break
            visited.add(x)
            x = (x + step) % len(CR_RANKS)
    return parts[-1], parts[1]


def _cr_capture(
    k: int,
    p: int,
    rank_cards: list[str],
    pos: _CrPosition,
    cfg: dict[str, Any],
    robbed_first: list[tuple[int, list[str]]] | None = None,
) -> _CrCapture:
    down, up = _cr_walk(k, p, pos, cfg)
    robbed = [(item, list(pos.piles[item])) for item in down + up if isinstance(item, int)]

    def block(item: str | int | None) -> list[str]:
        if isinstance(item, str):
            return [item]
        return list(pos.piles[item]) if item is not None else []

    down_blocks = [block(item) for item in down]
    up_blocks = [block(item) for item in up]
    taken = {item for item in down + up if isinstance(item, str)} | set(rank_cards)
    pos.table = [card for card in pos.table if card not in taken]
    for q, _ in robbed:
        pos.piles[q] = []
    packet = []
    if cfg.get("stack_order") == "played_on_top":
        for cards in [*reversed(down_blocks), *up_blocks]:
            packet += cards
        packet += rank_cards
    else:
        packet = list(rank_cards)
        for cards in down_blocks + up_blocks:
            packet += cards
    pos.piles[p] += packet
    pos.last_capturer = p
    return _CrCapture(p, packet, [*(robbed_first or []), *robbed], robbed_first is not None)


def _cr_pay(payer: int, to: int, pos: _CrPosition) -> _CrPayment:
    card = pos.piles[payer].pop() if pos.piles[payer] else None
    if card is not None:
        pos.piles[to].append(card)
    return _CrPayment(payer, to, card)


def _cr_net(p: int, pos: _CrPosition, cfg: dict[str, Any]) -> list[_CrPayment]:
    """``net_bonus``: a capture that empties the table earns every other player's top card."""
    if not cfg.get("net_bonus") or pos.table:
        return []
    n = len(pos.piles)
    return [_cr_pay((p + i) % n, p, pos) for i in range(1, n)]


def _cr_settle(pos: _CrPosition, cfg: dict[str, Any], when: str) -> _CrSettle:
    chain = pos.chain
    assert chain is not None
    pos.chain = None
    p = chain.seats[-1]
    capture = _cr_capture(chain.rank, p, list(chain.cards), pos, cfg)
    n = len(pos.piles)
    order = [(p + i) % n for i in range(1, n)]
    if cfg.get("chain_penalty_payers") != "all_opponents":
        order = [q for q in order if q in chain.seats]
    penalties = [_cr_pay(q, p, pos) for q in order]
    net = _cr_net(p, pos, cfg)
    return _CrSettle(when, CR_LEVELS[len(chain.cards)], list(chain.seats), capture, penalties, net)


def _cr_resolve(
    v: dict[str, Any], actor: int, card: str, cfg: dict[str, Any]
) -> tuple[list[_CrEvent], _CrPosition]:
    """What ``actor`` playing ``card`` does to the position of view ``v``, step by step."""
    pos = _CrPosition.of(v)
    n = len(pos.piles)
    k = _cr_index(card)
    events: list[_CrEvent] = []
    pos.hand_sizes[actor] -= 1
    chain = pos.chain
    if chain is not None and chain.rank == k:
        chain.cards.append(card)
        chain.seats.append(actor)
        pos.last_play = (actor, card, True)
        outcome = _CrOutcome(card, CR_LEVELS[len(chain.cards)], caued=(chain.seats[-2], ""))
        if len(chain.cards) == 4:
            outcome.settle = _cr_settle(pos, cfg, "now")
        events.append(outcome)
    else:
        if chain is not None:
            events.append(_cr_settle(pos, cfg, "before"))
        match = next((c for c in pos.table if _cr_index(c) == k), None)
        last = pos.last_play
        if match is None:
            tops = [
                q
                for q in ((actor + i) % n for i in range(1, n))
                if pos.piles[q] and _cr_index(pos.piles[q][-1]) == k
            ]
            if cfg.get("direct_pile_match") and tops:
                if cfg.get("multi_pile_same_rank") == "first_only":
                    tops = tops[:1]
                robbed = [(q, pos.piles[q]) for q in tops]
                first = [c for _, pile in robbed for c in pile]
                for q in tops:
                    pos.piles[q] = []
                capture = _cr_capture(k, actor, [*first, card], pos, cfg, robbed)
                events.append(_CrOutcome(card, "take", capture, _cr_net(actor, pos, cfg)))
                pos.last_play = (actor, card, True)
            else:
                pos.table = sorted([*pos.table, card], key=_cr_id)
                pos.last_play = (actor, card, False)
                events.append(_CrOutcome(card, "none"))
        elif cfg.get("cau_enabled", True) and last and not last[2] and _cr_index(last[1]) == k:
            pos.table.remove(match)
            pos.chain = _CrChain(k, [match, card], [last[0], actor])
            pos.last_play = (actor, card, True)
            events.append(_CrOutcome(card, "cau", caued=(last[0], match)))
        else:
            capture = _cr_capture(k, actor, [match, card], pos, cfg)
            events.append(_CrOutcome(card, "take", capture, _cr_net(actor, pos, cfg)))
            pos.last_play = (actor, card, True)
    if not any(pos.hand_sizes):
        if pos.chain is not None:
            events.append(_cr_settle(pos, cfg, "end"))
        if pos.table:
            to = pos.last_capturer if cfg.get("leftover_table_cards") == "last_capturer" else None
            events.append(_CrLeftovers(list(pos.table), to))
            if to is not None:
                pos.piles[to] += pos.table
                pos.table = []
    return events, pos


def _cr_lowest(cards: Sequence[str], k: int) -> str | None:
    """The card the engine plays for rank index ``k`` from ``cards``: the lowest id."""
    held = [card for card in cards if _cr_index(card) == k]
    return min(held, key=_cr_id) if held else None


def _cr_seen(v: dict[str, Any]) -> set[str]:
    seen = {*v["table"], *(card for pile in v["piles"] for card in pile)}
    if v["chain"] is not None:
        seen.update(v["chain"]["cards"])
    seen.update(card for hand in v["hands"] if hand is not None for card in hand)
    return seen


def _cr_played_card(before: dict[str, Any], after: dict[str, Any], actor: int, k: int) -> str:
    """The card ``actor`` played (face up, so public), from the seat's views only: its own
    hand, the last play of the hand, or, once a new hand is dealt, the only card of the old
    hand the seat had not seen (the last play of a hand is the last card in anybody's hand)."""
    own = before["hands"][actor]
    if own is not None:
        return _cr_lowest(own, k) or f"{CR_RANKS[k]}?"
    last = after["last_play"]
    if last is not None and after["hand"] == before["hand"] and last["seat"] == actor:
        return str(last["card"])
    seen = _cr_seen(before)
    unseen = [card for card in CR_PACK if card not in seen and _cr_index(card) == k]
    return unseen[0] if len(unseen) == 1 else f"{CR_RANKS[k]}?"


def _cr_consistent(
    before: dict[str, Any], after: dict[str, Any], pos: _CrPosition, hand_over: bool
) -> bool:
    """Whether the told position is the one the engine reached (always, unless a rule changes
    without this file: then only the bare play is told)."""
    if hand_over and after["hand"] != before["hand"]:
        return bool(after["past_hands"][-1]["pile_sizes"] == [len(p) for p in pos.piles])
    return bool(after["piles"] == pos.piles and after["table"] == pos.table)


def _cr_payments(payments: Sequence[_CrPayment], seat: int) -> Text:
    parts = []
    for pay in payments:
        if pay.card is None:
            has = "have" if pay.payer == seat else "has"
            parts.append(Text(f"{_seat_name(pay.payer, seat)} {has} no card to pay"))
        else:
            part = Text(f"{_cr_verb(pay.payer, seat, 'pay')} ")
            part.append_text(_cr_card(pay.card))
            parts.append(part)
    return Text(", ").join(parts)


def _cr_taking(capture: _CrCapture, seat: int) -> Text:
    """``takes 11O 11C 10O and robs seat 2's pile (3 cards, top 7O)`` (the capturer named by
    the caller), or ``you take ... and rob ...`` when the capturer is the person."""
    robbed = {card for _, pile in capture.robbed for card in pile}
    taken = [card for card in capture.packet if card not in robbed]
    mine = capture.seat == seat
    text = Text("you take " if mine else "takes ")
    text.append_text(_cr_cards(taken))
    for i, (q, pile) in enumerate(capture.robbed):
        text.append((" and rob " if mine else " and robs ") if i == 0 else " and ")
        size = f"{len(pile)} card{'s' * (len(pile) != 1)}"
        text.append(f"{_cr_whose(q, seat)} pile ({size}, top ", style="bold magenta")
        text.append_text(_cr_card(pile[-1], "bold"))
        text.append(")", style="bold magenta")
    return text


def _cr_net_text(net: Sequence[_CrPayment], seat: int) -> Text:
    text = Text("; the table is empty, net bonus: ", style="bold")
    text.append_text(_cr_payments(net, seat))
    return text


def _cr_settle_text(settle: _CrSettle, seat: int) -> Text:
    """``takes 7E 7C 6O, seat 2 pays 4O``."""
    text = _cr_taking(settle.capture, seat)
    if settle.penalties:
        text.append(", ")
        text.append_text(_cr_payments(settle.penalties, seat))
    if settle.net:
        text.append_text(_cr_net_text(settle.net, seat))
    return text


def _cr_outcome_text(outcome: _CrOutcome, seat: int) -> Text:
    if outcome.kind == "none":
        return Text("no capture", style="dim")
    if outcome.kind == "take" and outcome.capture is not None:
        text = Text()
        if outcome.capture.direct:
            tops = _cr_seats([q for q, _ in outcome.capture.robbed], seat)
            text.append(f"matches the pile top of {tops}: ")
        text.append_text(_cr_taking(outcome.capture, seat))
        if outcome.net:
            text.append_text(_cr_net_text(outcome.net, seat))
        return text
    if outcome.kind == "cau" and outcome.caued is not None:
        q, card = outcome.caued
        text = Text("cau", style="bold magenta")
        text.append(f" on {_cr_whose(q, seat)} ")
        text.append_text(_cr_card(card))
        text.append(" (pending)", style="dim")
        return text
    text = Text(outcome.kind, style="bold magenta")
    if outcome.caued is not None:
        previous = CR_LEVELS[CR_LEVELS_INDEX[outcome.kind] - 1]
        text.append(f" on {_cr_whose(outcome.caued[0], seat)} {previous}")
    if outcome.settle is None:
        text.append(" (pending)", style="dim")
        return text
    text.append(", settled at once: ")
    text.append_text(_cr_settle_text(outcome.settle, seat))
    return text


def narrate_cau_robat(console: Console, move: Move) -> None:
    before = move.before.view(move.seat)
    after = move.after.view(move.seat)
    cfg = move.game.config()
    seat = move.seat
    k = CR_RANKS.index(int(move.text.split(" ")[-1]))
    card = _cr_played_card(before, after, move.actor, k)
    hand_over = len(after["past_hands"]) > len(before["past_hands"])
    mine = move.actor == seat
    line = Text(_cr_who(move.actor, seat), style="bold" if mine else "cyan")
    line.append(" play " if mine else " plays ")
    line.append_text(_cr_card(card))
    events: list[_CrEvent] = []
    if not card.endswith("?"):
        events, pos = _cr_resolve(before, move.actor, card, cfg)
        if not _cr_consistent(before, after, pos, hand_over):
            events = []
    lines = [line]
    for event in events:
        if isinstance(event, _CrSettle):
            if event.when == "before":
                line.append(f": settles {_cr_whose(event.capture.seat, seat)} {event.level}: ")
                line.append_text(_cr_settle_text(event, seat))
                line = Text("  then ")
                line.append_text(_cr_card(card))
                lines.append(line)
            else:
                end = Text("  The hand is over: ")
                end.append(f"{_cr_whose(event.capture.seat, seat)} {event.level} is settled: ")
                end.append_text(_cr_settle_text(event, seat))
                lines.append(end)
        elif isinstance(event, _CrOutcome):
            line.append(": ")
            line.append_text(_cr_outcome_text(event, seat))
        else:
            left = Text(f"  The last {len(event.cards)} table card{'s' * (len(event.cards) > 1)} (")
            left.append_text(_cr_cards(event.cards))
            if event.to is None:
                left.append(") count for nobody.")
            else:
                left.append(f") go to {_seat_name(event.to, seat)}, who captured last.")
            lines.append(left)
    for text in lines:
        console.print(text)
    if hand_over:
        _cr_narrate_hand_end(console, move, after)


def _cr_narrate_hand_end(console: Console, move: Move, after: dict[str, Any]) -> None:
    seat = move.seat
    target = int(move.game.config().get("hands_to_win", 1))
    last = after["past_hands"][-1]
    sizes: list[int] = last["pile_sizes"]
    winners: list[int] = last["winners"]
    line = Text(f"Hand {len(after['past_hands'])} over: piles {'-'.join(map(str, sizes))}: ")
    if not winners:
        line.append(f"a tie for most ({max(sizes)}), nobody wins the hand")
    elif len(winners) == 1:
        line.append(f"{_cr_verb(winners[0], seat, 'win')} the hand")
    else:
        line.append(f"{_cr_seats(winners, seat)} share the hand")
    if target > 1:
        line.append(f" (hands won {'-'.join(map(str, after['hands_won']))}, target {target})")
    line.stylize("bold yellow")
    console.print(line)
    if after["phase"] == "over":
        match: list[int] = after["winners"] or []
        if not match:
            console.print(Text("The match is drawn.", style="bold"))
        else:
            style = "bold green" if seat in match else "bold red"
            if len(match) == 1:
                console.print(
                    Text(f"{_cr_verb(match[0], seat, 'win')} the match.".capitalize(), style=style)
                )
            else:
                console.print(
                    Text(f"{_cr_seats(match, seat)} share the match.".capitalize(), style=style)
                )
        return
    intro = Text(f"Hand {after['hand'] + 1}: {_cr_verb(after['dealer'], seat, 'deal')}; table ")
    intro.append_text(_cr_table_cards(after["table"]))
    console.print(intro)


def _cr_table_cards(cards: Sequence[str]) -> Text:
    """The table in cycle order, a ``·`` between ranks that do not follow each other."""
    if not cards:
        return Text("empty", style="dim")
    ordered = sorted(cards, key=_cr_id)
    out = Text()
    for i, card in enumerate(ordered):
        if i:
            linked = _cr_index(card) == _cr_index(ordered[i - 1]) + 1
            out.append(" " if linked else " · ", style="dim")
        out.append_text(_cr_card(card))
    return out


def _cr_chain_lines(v: dict[str, Any], cfg: dict[str, Any], seat: int, fancy: bool) -> list[Text]:
    chain = v["chain"]
    level = CR_LEVELS[len(chain["cards"])]
    capturer: int = chain["seats"][-1]
    head = Text(f"Pending {level}  ", style="bold magenta")
    head.append(f"on the {chain['rank']}s: ")
    head.append_text(
        Text(" → " if fancy else " -> ").join(
            Text(f"{_seat_name(s, seat)} ").append_text(_cr_card(c))
            for s, c in zip(chain["seats"], chain["cards"], strict=True)
        )
    )
    if cfg.get("chain_penalty_payers") == "all_opponents":
        payers = "every other player pays"
    else:
        others = [s for s in dict.fromkeys(chain["seats"]) if s != capturer]
        payers = f"{_cr_seats(others, seat)} pay{'s' * (len(others) == 1 and others[0] != seat)}"
    head.append(
        f"; {_cr_verb(capturer, seat, 'capture')} them and the run through {chain['rank']} "
        f"when it is settled, {payers} a top card",
        style="dim",
    )
    lines = [head]
    nxt = v["to_play"]
    if nxt is not None and len(chain["cards"]) < 4:
        more = CR_LEVELS[len(chain["cards"]) + 1]
        hint = Text(
            f"    a {chain['rank']} from {_seat_name(nxt, seat)} makes it a {more}; "
            "any other rank settles it first",
            style="dim",
        )
        lines.append(hint)
    return lines


def _cr_cau_hint(v: dict[str, Any], seat: int) -> Text | None:
    """The chance to cau the previous card, which captured nothing."""
    last = v["last_play"]
    nxt = v["to_play"]
    if v["chain"] is not None or last is None or last["captured"] or nxt is None:
        return None
    rank = last["card"][:-1]
    hint = Text("Cau chance  ", style="bold magenta")
    hint.append(f"{_cr_whose(last['seat'], seat)} ")
    hint.append_text(_cr_card(last["card"]))
    hint.append(f" captured nothing: a {rank} from {_seat_name(nxt, seat)} now is a cau")
    if nxt == seat:
        held = _cr_lowest(v["hands"][seat] or [], CR_RANKS.index(int(rank)))
        hint.append(
            f" (you hold {held}: 'play {rank}')" if held else f" (you hold no {rank})",
            style="dim",
        )
    return hint


def draw_cau_robat(console: Console, game: Game, state: State, seat: int) -> None:
    v = state.view(seat)
    cfg = game.config()
    fancy = console.encoding.lower().startswith("utf")
    n: int = v["players"]
    target = int(cfg.get("hands_to_win", 1))
    title = f"Cau Robat · hand {v['hand'] + 1}"
    if target > 1:
        title += f" · first to win {target} hands"
    console.print()
    console.rule(Text(f"{title} · dealer: {_seat_name(v['dealer'], seat)}"))

    table_line = Text("Table  ", style="bold")
    table_line.append_text(_cr_table_cards(v["table"]))
    ranks = {_cr_index(card) for card in v["table"]}
    if {0, len(CR_RANKS) - 1} <= ranks:
        table_line.append("  (12 and 1 are neighbours)", style="dim")
    console.print(table_line)

    chain = v["chain"]
    seats = Table(box=box.SIMPLE_HEAD, padding=(0, 1), show_edge=False)
    seats.add_column("", no_wrap=True)
    seats.add_column("seat", no_wrap=True)
    seats.add_column("in hand", justify="right")
    seats.add_column("pile", justify="right")
    seats.add_column("top", justify="center")
    seats.add_column("hands won", justify="right")
    seats.add_column("notes")
    for s in range(n):
        pile: list[str] = v["piles"][s]
        notes = []
        if s == v["dealer"]:
            notes.append("dealer")
        if s == v["last_capturer"]:
            notes.append("captured last")
        if chain is not None and s in chain["seats"]:
            notes.append("takes the chain" if s == chain["seats"][-1] else "in the chain")
        pointer = ("▶" if fancy else ">") if s == v["to_play"] else ""
        won = Text(f"{v['hands_won'][s]} / {target}")
        if v["winners"] and s in v["winners"]:
            won.stylize("bold green")
        seats.add_row(
            Text(pointer, style="bold green"),
            Text(f"{s} (you)" if s == seat else str(s), style="bold" if s == seat else ""),
            Text(str(v["hand_sizes"][s])),
            Text(str(len(pile))),
            _cr_card(pile[-1], "bold") if pile else Text("-", style="dim"),
            won,
            Text(", ".join(notes), style="dim"),
        )
    console.print(seats)

    if chain is not None:
        for line in _cr_chain_lines(v, cfg, seat, fancy):
            console.print(line)
    elif cfg.get("cau_enabled", True):
        hint = _cr_cau_hint(v, seat)
        if hint is not None:
            console.print(hint)

    hand = v["hands"][seat]
    if hand:
        line = Text("Your hand  ", style="bold")
        line.append_text(_cr_by_rank(hand))
        console.print(line)

    if v["past_hands"]:
        past = Table(
            title="Past hands (pile sizes)",
            box=box.SIMPLE_HEAD,
            show_edge=False,
            title_justify="left",
            padding=(0, 1, 0, 0),
        )
        past.add_column("hand", justify="right")
        past.add_column("dealer", justify="right")
        for s in range(n):
            past.add_column(f"{s} (you)" if s == seat else str(s), justify="right")
        past.add_column("won by")
        for i, old in enumerate(v["past_hands"]):
            winners: list[int] = old["winners"]
            sizes = [
                Text(str(size), style="bold green" if s in winners else "")
                for s, size in enumerate(old["pile_sizes"])
            ]
            won_by = _cr_seats(winners, seat) if winners else "nobody (tie)"
            past.add_row(str(i + 1), str(old["dealer"]), *sizes, won_by)
        console.print(past)


def _cr_move_outcomes(state: State, seat: int) -> dict[str, _CrOutcome]:
    """What each legal ``play <rank>`` of ``seat`` would do now, keyed by the rank."""
    v = state.view(seat)
    cfg = state.get_game().config()
    outcomes = {}
    for action in state.legal_actions():
        rank = state.action_to_string(action).split(" ")[-1]
        card = _cr_lowest(v["hands"][seat] or [], CR_RANKS.index(int(rank)))
        if card is None:
            continue
        events, _ = _cr_resolve(v, seat, card, cfg)
        outcomes[rank] = next(e for e in events if isinstance(e, _CrOutcome))
    return outcomes


def _cr_bold(state: State, seat: int) -> frozenset[str]:
    """The ranks whose card captures (a cau or a place in the chain included)."""
    if state.is_terminal() or state.current_player() != seat:
        return frozenset()
    outcomes = _cr_move_outcomes(state, seat)
    return frozenset(rank for rank, outcome in outcomes.items() if outcome.kind != "none")


def _cr_moves_title(state: State, seat: int) -> Text:
    title = Text("Your moves", style="bold")
    title.append(" (type the rank)", style="bold")
    notes = []
    for rank, outcome in _cr_move_outcomes(state, seat).items():
        if outcome.kind == "take" and outcome.capture is not None:
            robbed = len(outcome.capture.robbed)
            rob = f", robbing {robbed} pile{'s' * (robbed > 1)}" if robbed else ""
            notes.append(f"{rank} takes {len(outcome.capture.packet)}{rob}")
        elif outcome.kind != "none":
            notes.append(f"{rank} is a {outcome.kind}")
    title.append(":")
    if notes:
        title.append(f"  {'; '.join(notes)}", style="dim")
    return title


def _cr_move_key(state: State, action: int) -> str:
    return state.action_to_string(action).split(" ")[-1]


# ---- Cuajo (layout of view(): docs/rules/cuajo.md) ------------------------------------------

CJ_SUITS = "OCEB"
CJ_RANKS = "A345JHK"
CJ_KINDS = tuple(f"{rank}{suit}" for suit in CJ_SUITS for rank in CJ_RANKS)  # ascending id
CJ_KING = 6
CJ_TEAMS = ((0, 2), (1, 3))
CJ_RECENT_DISCARDS = 10
CJ_KEYS = {
    "draw": "d",
    "take": "t",
    "win": "w",
    "claim": "c",
    "pass": "p",
    "purro": "y",
    "no-purro": "n",
}
CJ_REASONS = {
    "empty_stock": "the stock ran out",
    "turn_limit": "the turn limit was reached",
    "dead_hand": "a dead hand: the player to act could neither discard nor win",
}


def _cj_id(card: str) -> int:
    """The engine's card id, ``7 · suit + rank``: the order of hands and evaluator results."""
    return CJ_KINDS.index(card.upper())


def _cj_sorted(cards: Iterable[str]) -> list[str]:
    return sorted(cards, key=_cj_id)


def _cj_card(card: str, style: str = "") -> Text:
    return Text(card, style=f"{spanish_card_style(card)} {style}".strip())


def _cj_cards(cards: Sequence[str], sep: str = " ") -> Text:
    return Text(sep).join(_cj_card(card) for card in cards)


def _cj_counted(cards: Sequence[str], times: str = "×") -> Text:
    """``AO×2 3C 4C``: each kind once, with its count when above one."""
    counts = Counter(cards)
    parts = []
    for card in dict.fromkeys(cards):
        part = _cj_card(card)
        if counts[card] > 1:
            part.append(f"{times}{counts[card]}", style="dim")
        parts.append(part)
    return Text(" ").join(parts)


def _cj_groups(
    groups: Sequence[Sequence[str]], loose: Sequence[str] = (), mark: str | None = None
) -> Text:
    """``[3C 4C 5C] [AO AC AE] [KB]  + 3E HE`` (combinations, then the cards left over); one
    copy of ``mark`` (the card just drawn) underlined, among the loose cards if it is there."""
    marked = [False]

    def cards(group: Sequence[str]) -> Text:
        parts = []
        for card in group:
            style = ""
            if card == mark and not marked[0]:
                style, marked[0] = "bold underline", True
            parts.append(_cj_card(card, style))
        return Text(" ").join(parts)

    tail = cards(loose) if mark in loose else None
    out = Text(" ").join(Text("[").append_text(cards(g)).append("]") for g in groups)
    if loose:
        if groups:
            out.append("  + ", style="dim")
        out.append_text(tail if tail is not None else cards(loose))
    return out


def _cj_team(who: int) -> tuple[int, int]:
    return CJ_TEAMS[who % 2]


def _cj_team_name(who: int) -> str:
    return "+".join(str(s) for s in _cj_team(who))


def _cj_who(who: int, seat: int) -> str:
    """The subject of a sentence: "You" or "Seat 2"."""
    return "You" if who == seat else f"Seat {who}"


def _cj_verb(who: int, seat: int, verb: str) -> str:
    """``verb`` agreeing with its subject: "you draw", "seat 2 draws"."""
    return f"{_seat_name(who, seat)} {verb}{'' if who == seat else 's'}"


def _cj_whose(who: int, seat: int) -> str:
    return "your" if who == seat else f"seat {who}'s"


def _cj_cents(value: int) -> str:
    return f"{value:+d}" if value else "0"


def _cj_block(kind: int) -> int:
    """No combination mixes the aces (0), the low cards 3 4 5 (1) and the high cards J H K (2)."""
    rank = kind % 7
    return 0 if rank == 0 else (1 if rank <= 3 else 2)


@dataclass(frozen=True)
class _CjRules:
    """What the hand evaluation depends on: the options and the sowee."""

    quad_ok: bool  # undeclared_quad_valid
    triple: str | None  # the sowee when its undeclared triple counts
    sowee: str
    dead_waits_count: bool

    @staticmethod
    def of(config: dict[str, Any], v: dict[str, Any]) -> _CjRules:
        sowee: str = v["sowee"]
        return _CjRules(
            quad_ok=bool(config.get("undeclared_quad_valid", True)),
            triple=sowee if config.get("sowee_triple_undeclared_valid") else None,
            sowee=sowee,
            dead_waits_count=bool(config.get("dead_waits_count", True)),
        )

    @property
    def default(self) -> bool:
        """Whether tapete.cuajo's evaluators (default options) apply."""
        return self.quad_ok and self.triple is None

    def limit(self, card: str) -> int:
        return 3 if card == self.sowee else 4


def _cj_split(cards: Sequence[str], rules: _CjRules) -> tuple[list[list[str]], list[str]]:
    """A best arrangement of ``cards``: the most cards in combinations, and the cards left."""
    groups, left = tapete.cuajo.best_arrangement(
        cards, undeclared_quad_valid=rules.quad_ok, sowee_triple=rules.triple
    )
    return _cj_ordered(groups), left


def _cj_ordered(groups: Iterable[Sequence[str]]) -> list[list[str]]:
    """Combinations in reading order: aces, 3 4 5, J H K by rank, single kings last."""

    def key(group: Sequence[str]) -> tuple[int, int, int, list[int]]:
        first = _cj_id(group[0])
        alone = len(group) == 1 and first % 7 == CJ_KING
        return (alone, _cj_block(first), first % 7, [_cj_id(c) for c in group])

    return [list(g) for g in sorted(groups, key=key)]


def _cj_complete(cards: Sequence[str], rules: _CjRules, secrets: bool) -> bool:
    """Whether the cards outside the secrets split into combinations (with 16 in all)."""
    if rules.default and not secrets and len(cards) == 16:
        return tapete.cuajo.is_complete(cards)
    return not _cj_split(cards, rules)[1]


def _cj_secret_cards(secrets: Sequence[dict[str, Any]]) -> list[str]:
    """The face-down cards of known secrets (the four, or the three sowee copies)."""
    return [card for secret in secrets for card in secret["cards"] or []]


def _cj_unavailable(v: dict[str, Any], seat: int) -> Counter[str]:
    """``dead_waits_count = false``: the copies lying in the discard pile (not taken) and those
    publicly known to be held by another seat."""
    dead: Counter[str] = Counter(d["card"] for d in v["discards"] if d["taken_by"] is None)
    for s, known in enumerate(v["known"]):
        if s != seat:
            dead.update(known)
    return dead


def _cj_waits(
    held: Sequence[str],
    secrets: Sequence[dict[str, Any]],
    rules: _CjRules,
    dead: Counter[str] | None = None,
) -> list[str]:
    """The waits of a 15-card hand: ``held`` (the cards outside secrets) and ``secrets``."""
    owned = Counter([*held, *_cj_secret_cards(secrets)])
    if rules.default and not secrets:
        found = tapete.cuajo.waits(list(held), rules.sowee)
    else:
        found = [
            kind
            for kind in CJ_KINDS
            if owned[kind] < rules.limit(kind) and not _cj_split([*held, kind], rules)[1]
        ]
    if dead is None:
        return found
    return [kind for kind in found if owned[kind] + dead[kind] < rules.limit(kind)]


@dataclass
class _CjHand:
    """A seat's own hand as it sees it."""

    held: list[str]  # in hand, with the sowee-secret extra card: the cards to arrange
    secrets: list[dict[str, Any]]
    size: int  # hand_sizes: 15, or 16 between the draw and the discard
    groups: list[list[str]]
    loose: list[str]
    complete: bool
    away: int | None  # tapete.cuajo.distance: cards to get in (0: complete); None: unknown
    waits: list[str] | None  # for 15 cards


def _cj_hand(v: dict[str, Any], seat: int, rules: _CjRules) -> _CjHand:
    secrets: list[dict[str, Any]] = v["secrets"][seat]
    extras = [s["extra"] for s in secrets if s["extra"] is not None]
    held = _cj_sorted([*v["concealed"][seat], *extras])
    size: int = v["hand_sizes"][seat]
    arranged = None
    if size == 16 and rules.default and not secrets:
        arranged = tapete.cuajo.arrangement(held)
    loose: list[str] = []
    if arranged is not None:
        groups = _cj_ordered(arranged)
    else:
        groups, loose = _cj_split(held, rules)
    complete = size == 16 and not loose
    away = None
    if rules.default and not secrets and len(held) in (15, 16):
        away = tapete.cuajo.distance(held)
    waits = None
    if size == 15:
        dead = None if rules.dead_waits_count else _cj_unavailable(v, seat)
        waits = _cj_waits(held, secrets, rules, dead)
    return _CjHand(held, secrets, size, groups, loose, complete, away, waits)


def _cj_new_card(v: dict[str, Any], seat: int) -> str | None:
    """The card ``seat`` drew or took this turn (it is between its draw and its discard)."""
    if v["hand_sizes"][seat] != 16 or v["to_play"] != seat or v["phase"] == "opening":
        return None
    draw = v["last_draw"]
    card: str | None = None
    if draw is not None and draw["seat"] == seat:
        card = draw["card"]
    elif v["discards"] and v["discards"][-1]["taken_by"] == seat:
        card = v["discards"][-1]["card"]
    held = [*v["concealed"][seat], *(s["extra"] for s in v["secrets"][seat])]
    return card if card in held else None  # not once it has gone into a secret


def _cj_hand_lines(v: dict[str, Any], seat: int, rules: _CjRules) -> list[Text]:
    hand = _cj_hand(v, seat, rules)
    new = _cj_new_card(v, seat)
    line = Text(f"Your hand ({hand.size})  ", style="bold")
    line.append_text(_cj_groups(hand.groups, hand.loose, new))
    lines = [line]

    status = Text("           ")
    if new is not None:
        status.append("new ", style="dim")
        status.append_text(_cj_card(new, "bold underline"))
        status.append("   ")
    penalty: int = v["penalty"][seat]
    if hand.complete:
        status.append("complete!", style="bold green")
        if penalty:
            status.append(f" but penalty {penalty}: no win yet", style="red")
    elif hand.away is not None:
        away = "1 card away" if hand.away == 1 else f"{hand.away} cards away"
        status.append(f"{away} from a complete hand", style="dim")
    elif hand.loose:
        status.append(f"{len(hand.loose)} card(s) not in a combination", style="dim")
    if hand.waits:
        status.append("   waiting on ", style="bold")
        status.append_text(_cj_cards(hand.waits))
    elif hand.size == 15 and v["purro"][seat]:
        status.append("   no waits left", style="red")
    if v["purro"][seat]:
        marker = v["marker"][seat]
        status.append(f"   purro (marker {marker or 'to choose'})", style="bold magenta")
    elif penalty:
        status.append(f"   penalty {penalty}: no win, your draws are shown", style="red")
    if status.plain.strip():
        lines.append(status)

    if hand.secrets:
        line = Text("Your secrets  ", style="bold")
        parts = []
        for secret in hand.secrets:
            part = Text("[").append_text(_cj_cards(secret["cards"] or [])).append("]")
            if secret["extra"] is not None:
                part.append(" + ")
                part.append_text(_cj_card(secret["extra"]))
                part.append(" (sowee secret: the extra card plays with the hand)", style="dim")
            parts.append(part)
        line.append_text(Text("  ").join(parts))
        lines.append(line)
    return lines


def _cj_discard_line(v: dict[str, Any], fancy: bool) -> Text:
    discards: list[dict[str, Any]] = v["discards"]
    line = Text("Discards  ", style="bold")
    if not discards:
        line.append("none yet", style="dim")
        return line
    arrow = "→" if fancy else ">"
    recent = list(reversed(discards))[:CJ_RECENT_DISCARDS]
    parts = []
    for i, d in enumerate(recent):
        taken = d["taken_by"]
        if taken is not None:
            part = _cj_card(d["card"], "dim")
            part.append(f"{arrow}{taken}", style="dim")
        elif i == 0:
            part = _cj_card(d["card"], "bold reverse")
        else:
            part = _cj_card(d["card"])
        parts.append(part)
    line.append_text(Text(" ").join(parts))
    if len(discards) > len(recent):
        line.append(f" … {len(discards) - len(recent)} older", style="dim")
    taken = any(d["taken_by"] is not None for d in recent)
    line.append(f" (newest first{f', {arrow}s: taken by s' if taken else ''})", style="dim")
    return line


def _cj_shown_draws(v: dict[str, Any], seat: int) -> str | None:
    """Why stock draws are shown to everybody now (rules, "Shown draws"), or None."""
    purro = [s for s in range(4) if v["purro"][s]]
    if len(purro) == 1:
        verb = "are" if purro == [seat] else "is"
        return f"draws are shown: {_seat_name(purro[0], seat)} {verb} purro"
    if purro:
        return "draws are shown: seats are purro"
    return None


def _cj_last_draw(v: dict[str, Any], seat: int) -> Text | None:
    draw = v["last_draw"]
    if draw is None:
        return None
    line = Text("Last draw  ", style="bold")
    who: int = draw["seat"]
    if draw["card"] is None:
        line.append(f"{_seat_name(who, seat)} drew from the stock (unseen)")
        return line
    line.append(f"{_seat_name(who, seat)} drew ")
    line.append_text(_cj_card(draw["card"], "bold"))
    if draw["shown"]:
        line.append(" (shown to everybody)", style="dim")
    return line


def draw_cuajo(console: Console, game: Game, state: State, seat: int) -> None:
    v = state.view(seat)
    config = game.config()
    rules = _CjRules.of(config, v)
    fancy = console.encoding.lower().startswith("utf")
    if v["to_play"] == seat and v["phase"] in ("action", "drawer_option", "purro_call", "marker"):
        # the table was drawn at the start of this turn (or just before the discard)
        for line in _cj_hand_lines(v, seat, rules):
            console.print(line)
        return

    hands = int(config.get("hands_per_match", 1))
    title = f"Cuajo · hand {v['hand'] + 1}" + (f" of {hands}" if hands > 1 else "")
    title += f" · dealer: {_seat_name(v['dealer'], seat)} · turn {v['turn'] + 1}"
    console.print()
    console.rule(Text(title))

    head = Text("Sowee ", style="bold")
    head.append_text(_cj_card(v["sowee"], "bold"))
    head.append(" (out of play)", style="dim")
    head.append("   Stock ", style="bold")
    head.append(f"{v['stock_size']} cards")
    shown = _cj_shown_draws(v, seat)
    if shown:
        head.append(f"   {shown}", style="magenta")
    console.print(head)
    console.print(_cj_discard_line(v, fancy))

    seats = Table(box=box.SIMPLE_HEAD, padding=(0, 1), show_edge=False)
    seats.add_column("", no_wrap=True)
    seats.add_column("seat", no_wrap=True)
    seats.add_column("team", no_wrap=True)
    seats.add_column("cards", justify="right", no_wrap=True)
    seats.add_column("secrets", justify="right", no_wrap=True)
    seats.add_column("purro", no_wrap=True)
    seats.add_column("known")
    seats.add_column("cents" if hands == 1 else "hand", justify="right", no_wrap=True)
    if hands > 1:
        seats.add_column("match", justify="right", no_wrap=True)
    for s in range(4):
        name = str(s)
        if s == seat:
            name += " (you)"
        elif s in _cj_team(seat):
            name += " (partner)"
        secrets: list[dict[str, Any]] = v["secrets"][s]
        secret_text = str(len(secrets)) if secrets else ""
        if any(x["kind"] == "sowee" for x in secrets):
            secret_text += " sowee"
        pointer = ("▶" if fancy else ">") if s == v["to_play"] else ""
        if v["purro"][s]:
            marker = v["marker"][s]
            purro = Text(f"purro {marker}" if marker else "purro", style="bold magenta")
        elif v["penalty"][s]:
            purro = Text(f"penalty {v['penalty'][s]}", style="red")
        else:
            purro = Text("")
        row = [
            Text(pointer, style="bold green"),
            Text(name, style="bold" if s == seat else ""),
            Text(_cj_team_name(s)),
            Text(str(v["hand_sizes"][s])),
            Text(secret_text),
            purro,
            _cj_counted(v["known"][s], "×" if fancy else "x"),
            Text(_cj_cents(v["balances"][s]), style="green" if v["balances"][s] > 0 else ""),
        ]
        if hands > 1:
            row.append(Text(_cj_cents(v["totals"][s]), style="bold"))
        seats.add_row(*row)
    console.print(seats)
    if any(v["balances"]) or any(v["totals"]):
        money = "totals" if hands > 1 else "balances"
        line = Text("Teams  ", style="bold")
        parts = []
        for team in CJ_TEAMS:
            amount = sum(v[money][s] for s in team)
            part = Text(f"{'+'.join(map(str, team))}{' (you)' if seat in team else ''} ")
            part.append(_cj_cents(amount), style="bold green" if amount > 0 else "bold")
            parts.append(part)
        line.append_text(Text("   ").join(parts))
        line.append("  (cents)", style="dim")
        console.print(line)

    last = _cj_last_draw(v, seat)
    if last is not None:
        console.print(last)
    if v["concealed"][seat] is not None and v["phase"] != "over":
        for line in _cj_hand_lines(v, seat, rules):
            console.print(line)
    if v["past_hands"] and hands > 1:
        past = Table(
            title="Past hands (cents)",
            box=box.SIMPLE_HEAD,
            show_edge=False,
            title_justify="left",
            padding=(0, 1, 0, 0),
        )
        past.add_column("hand", justify="right")
        past.add_column("dealer", justify="right")
        past.add_column("won by")
        for s in range(4):
            past.add_column(f"{s} (you)" if s == seat else str(s), justify="right")
        for i, old in enumerate(v["past_hands"]):
            winner = old["winner"]
            won = "wash" if winner is None else f"{_seat_name(winner, seat)} ({old['source']})"
            cells = [Text(_cj_cents(b)) for b in old["balances"]]
            past.add_row(str(i + 1), str(old["dealer"]), won, *cells)
        console.print(past)


def _cj_rules_of(state: State, v: dict[str, Any]) -> _CjRules:
    return _CjRules.of(state.get_game().config(), v)


def _cj_discard_hints(state: State, seat: int) -> list[tuple[str, list[str], int | None]]:
    """For each legal discard: the card, the waits of the hand left, and how far that hand is
    from complete (None when unknown)."""
    v = state.view(seat)
    rules = _cj_rules_of(state, v)
    hand = _cj_hand(v, seat, rules)
    dead = None if rules.dead_waits_count else _cj_unavailable(v, seat)
    hints = []
    for action in state.legal_actions():
        verb, _, card = state.action_to_string(action).partition(" ")
        if verb != "discard":
            continue
        rest = list(hand.held)
        rest.remove(card)
        waits = _cj_waits(rest, hand.secrets, rules, dead) if hand.size == 16 else []
        away = None
        if rules.default and not hand.secrets and len(rest) == 15:
            away = tapete.cuajo.distance(rest)
        hints.append((card, waits, away))
    return hints


def _cj_bold(state: State, seat: int) -> frozenset[str]:
    """The discards after which the hand waits (the player becomes or stays purro)."""
    if state.is_terminal() or state.current_player() != seat:
        return frozenset()
    return frozenset(card for card, waits, _ in _cj_discard_hints(state, seat) if waits)


def _cj_move_key(state: State, action: int) -> str:
    """The word typed for a move: the card for a discard, ``s<card>`` for a secret, ``ss<card>``
    for a sowee secret, the king for a marker, a letter for the others."""
    verb, _, card = state.action_to_string(action).partition(" ")
    if verb == "discard" or verb == "marker":
        return card
    if verb == "secret":
        return f"s{card}"
    if verb == "sowee-secret":
        return f"ss{card}"
    return CJ_KEYS.get(verb, verb)


def _cj_move_title(state: State, seat: int, action: int) -> Text:
    """A move as a person reads it: ``take 4C``, ``claim 4C and win``."""
    v = state.view(seat)
    verb, _, card = state.action_to_string(action).partition(" ")
    out = Text()
    if verb == "draw":
        out.append("draw from the stock")
        if _cj_shown_draws(v, seat) or v["penalty"][seat]:
            out.append(" (shown)", style="dim")
    elif verb == "take":
        out.append("take ")
        out.append_text(_cj_card(v["top_discard"], "bold"))
        if v["stock_size"] == 0:
            out.append(" and win", style="dim")
    elif verb == "discard":
        out.append("discard ")
        out.append_text(_cj_card(card))
    elif verb == "secret":
        out.append("secret ")
        out.append_text(_cj_cards([card] * 4))
    elif verb == "sowee-secret":
        out.append("sowee secret ")
        out.append_text(_cj_cards([v["sowee"]] * 3))
        out.append(" + ")
        out.append_text(_cj_card(card))
    elif verb == "win":
        out.append("win!", style="bold green")
    elif verb == "claim":
        out.append("claim ")
        drawn = v["last_draw"]["card"] if v["last_draw"] else None
        if drawn:
            out.append_text(_cj_card(drawn, "bold"))
        out.append(" and win!", style="bold green")
    elif verb == "pass":
        if v["phase"] == "draw":
            out.append("pass: the hand is a wash")
        elif v["phase"] == "drawer_option":
            out.append("pass: do not win now (the others may claim)")
        else:
            out.append("pass: do not claim")
    elif verb == "purro":
        out.append("call purro", style="bold magenta")
    elif verb == "no-purro":
        out.append("do not call purro")
    elif verb == "marker":
        out.append("marker ")
        out.append_text(_cj_card(card))
    else:
        out.append(state.action_to_string(action))
    return out


def _cj_moves_title(state: State, seat: int) -> Text:
    v = state.view(seat)
    phase = v["phase"]
    title = Text("Your moves", style="bold")
    title.append(" (type the key):", style="bold")
    note = ""
    if phase == "opening":
        note = "you deal: discard a card that is not a king to open"
    elif phase == "draw":
        if v["stock_size"] == 0:
            note = "the stock is empty"
        elif v["top_discard"] is not None:
            discard = v["discards"][-1]
            note = f"draw from the stock or take {_cj_whose(discard['seat'], seat)} discard"
    elif phase == "action":
        note = "a card alone discards it"
    elif phase == "drawer_option":
        note = "your shown draw completes your hand, and another seat could claim it"
    elif phase == "claim":
        draw = v["last_draw"]
        if draw is not None:
            note = f"seat {draw['seat']}'s shown draw {draw['card']} completes your hand"
    elif phase == "purro_call":
        if any(state.action_to_string(a) == "purro" for a in state.legal_actions()):
            note = "your hand waits: purro lets you claim shown draws (and shows your draws)"
        else:
            note = "no waits: you cannot call purro now"
    elif phase == "marker":
        note = "choose the king that marks you purro (it stays in your hand)"
    if note:
        title.append(f"  {note}", style="dim")
    return title


def _cj_take_hint(v: dict[str, Any], seat: int, rules: _CjRules) -> Text | None:
    top = v["top_discard"]
    hand = _cj_hand(v, seat, rules)
    if top is None or hand.size != 15:
        return None
    with_top = [*hand.held, top]
    if _cj_complete(with_top, rules, bool(hand.secrets)):
        text = Text("taking ", style="dim")
        text.append_text(_cj_card(top, "bold"))
        text.append(" completes your hand", style="bold green")
        return text
    if not rules.default or hand.secrets or hand.away is None:
        return None
    away = tapete.cuajo.distance(with_top)
    text = Text("taking ", style="dim")
    text.append_text(_cj_card(top))
    text.append(f" leaves you {away} away (now {hand.away})")
    return text


def _cj_print_moves(console: Console, state: State, seat: int, legal: list[int]) -> None:
    """The moves, the discards on one line keyed by their cards, then hints."""
    v = state.view(seat)
    rules = _cj_rules_of(state, v)
    console.print(_cj_moves_title(state, seat))
    discards = [a for a in legal if state.action_to_string(a).startswith("discard ")]
    hints = _cj_discard_hints(state, seat) if discards else []
    waiting = {card: waits for card, waits, _ in hints if waits}
    if discards:
        line = Text("  discard  ", style="bold cyan")
        cards = [state.action_to_string(a).split(" ")[1] for a in discards]
        line.append_text(
            Text(" ").join(_cj_card(c, "bold underline" if c in waiting else "") for c in cards)
        )
        console.print(line)
    sowee = [a for a in legal if state.action_to_string(a).startswith("sowee-secret ")]
    if sowee:
        line = Text("  sowee secret ", style="bold cyan")
        line.append_text(_cj_cards([v["sowee"]] * 3))
        line.append(" + a card, type ss and the card: ")
        extras = [state.action_to_string(a).split(" ")[1] for a in sowee]
        line.append_text(_cj_cards(extras))
        console.print(line)
    items = []
    for action in legal:
        if action in discards or action in sowee:
            continue
        item = Text(_cj_move_key(state, action), style="bold cyan")
        item.append(" ")
        item.append_text(_cj_move_title(state, seat, action))
        items.append(item)
    if items:
        width = max(len(item) for item in items) + 3
        per_row = max(1, min(len(items), (console.width - 2) // width))
        for start in range(0, len(items), per_row):
            row = Text("  ")
            for item in items[start : start + per_row]:
                row.append_text(item)
                row.append(" " * (width - len(item)))
            row.rstrip()
            console.print(row)
    notes: list[Text] = []
    if waiting:
        note = Text("underlined: discarding leaves you waiting: ", style="dim")
        note.append_text(
            Text("; ").join(
                _cj_card(card, "bold").append(" → ").append_text(_cj_cards(waits))
                for card, waits in waiting.items()
            )
        )
        notes.append(note)
    elif hints and any(away is not None for _, _, away in hints):
        best = min(away for _, _, away in hints if away is not None)
        cards = [card for card, _, away in hints if away == best]
        note = Text("closest to complete: discard ", style="dim")
        note.append_text(_cj_cards(cards[:5], " or "))
        note.append(" …" if len(cards) > 5 else "")
        note.append(f" ({best} away)")
        notes.append(note)
    if v["phase"] == "draw":
        hint = _cj_take_hint(v, seat, rules)
        if hint is not None:
            notes.append(hint)
    for note in notes:
        console.print(Text("  ", style="dim").append_text(note))


def _cj_drawn_card(move: Move, before: dict[str, Any], after: dict[str, Any]) -> str | None:
    """The card ``move`` drew, when the seat may know it (its own draw, or a shown one)."""
    draw = after["last_draw"]
    if after["hand"] == before["hand"] and draw is not None and draw["seat"] == move.actor:
        if draw["card"] is not None and (draw["shown"] or move.actor == move.seat):
            return str(draw["card"])
        return None
    result = after["result"]
    if move.actor != move.seat or result is None:
        return None
    # the hand ended at once (a dead hand): the card is what the seat's cards gained
    mine = Counter(result["hands"][move.seat])
    mine.subtract(before["concealed"][move.seat])
    for secret in before["secrets"][move.seat]:
        mine.subtract([*secret["cards"], *([secret["extra"]] if secret["extra"] else [])])
    gained = [card for card, n in mine.items() if n > 0]
    return gained[0] if len(gained) == 1 else None


def _cj_payers(before: dict[str, Any], after: dict[str, Any], actor: int, seat: int) -> str:
    """Who paid what for a secret, from the balances."""
    paid = [
        (s, before["balances"][s] - after["balances"][s])
        for s in range(4)
        if s != actor and after["balances"][s] < before["balances"][s]
    ]
    if not paid:
        return ""
    amounts = {amount for _, amount in paid}
    names = " and ".join(_seat_name(s, seat) for s, _ in paid)
    if len(amounts) == 1:
        return f"{names} pay{'s' * (len(paid) == 1 and paid[0][0] != seat)} {amounts.pop()} each"
    return ", ".join(f"{_cj_verb(s, seat, 'pay')} {amount}" for s, amount in paid)


def narrate_cuajo(console: Console, move: Move) -> None:
    before = move.before.view(move.seat)
    after = move.after.view(move.seat)
    seat = move.seat
    verb, _, card = move.text.partition(" ")
    mine = move.actor == seat
    hand_over = len(after["past_hands"]) > len(before["past_hands"])
    if not mine and verb == "pass" and before["phase"] != "draw":
        return  # a drawer's or claimant's decision: nobody else sees it (rules, "Claims")
    line = Text(_cj_who(move.actor, seat), style="bold" if mine else "cyan")
    if verb == "draw":
        drawn = _cj_drawn_card(move, before, after)
        line.append(" draw " if mine else " draws ")
        if drawn is None:
            line.append("from the stock")
        else:
            line.append_text(_cj_card(drawn, "bold"))
            draw = after["last_draw"]
            if draw is not None and draw["shown"] and after["hand"] == before["hand"]:
                line.append(" (shown)", style="dim")
    elif verb == "take":
        top = before["top_discard"]
        line.append(" take " if mine else " takes ")
        line.append_text(_cj_card(top, "bold") if top else Text("the discard"))
        if before["discards"]:
            line.append(
                f" ({_cj_whose(before['discards'][-1]['seat'], seat)} discard)", style="dim"
            )
    elif verb == "discard":
        line.append(" discard " if mine else " discards ")
        line.append_text(_cj_card(card, "bold"))
        if before["phase"] == "opening":
            line.append(" to open", style="dim")
    elif verb in ("secret", "sowee-secret"):
        line.append(" declare " if mine else " declares ")
        if mine:
            sowee = verb == "sowee-secret"
            line.append("the sowee secret " if sowee else "a secret ", style="bold magenta")
            line.append_text(_cj_cards([before["sowee"]] * 3 if sowee else [card] * 4))
            if sowee:
                line.append(" + ")
                line.append_text(_cj_card(card))
        else:  # the cards stay face down; only the kind with secret_kind_public
            secrets = after["secrets"][move.actor]
            kind = secrets[-1]["kind"] if secrets and after["hand"] == before["hand"] else None
            text = "the sowee secret" if kind == "sowee" else "a secret"
            line.append(text, style="bold magenta")
            line.append(" (four cards face down)", style="dim")
        payers = _cj_payers(before, after, move.actor, seat)
        if payers:
            line.append(f": {payers}")
    elif verb == "win":
        line.append(" declare " if mine else " declares ")
        line.append("a win!" if before["phase"] != "opening" else "a natural win!", style="bold")
    elif verb == "claim":
        drawn = before["last_draw"]["card"] if before["last_draw"] else None
        line.append(" claim " if mine else " claims ")
        if drawn:
            line.append_text(_cj_card(drawn, "bold"))
        line.append(" and win!" if mine else " and wins!", style="bold")
    elif verb == "pass":
        if before["phase"] == "draw":
            line.append(" pass: the stock is empty" if mine else " passes: the stock is empty")
        elif before["phase"] == "drawer_option":
            line.append(" pass: the others may claim your draw")
        else:
            line.append(" pass: no claim")
    elif verb == "purro":
        line.append(" call purro!" if mine else " calls purro!", style="bold magenta")
        marker = after["marker"][move.actor] if not hand_over else None
        line.append(f" (marker {marker})" if marker else " (marker to choose)")
        if mine and not hand_over:
            waits = _cj_hand(after, seat, _cj_rules_of(move.after, after)).waits
            if waits:
                line.append(": waiting on ")
                line.append_text(_cj_cards(waits))
    elif verb == "no-purro":
        if not mine:
            return  # the decision comes whether or not the hand waits: it tells nothing
        line.append(" do not call purro")
    elif verb == "marker":
        line.append(" choose " if mine else " chooses ")
        line.append_text(_cj_card(card, "bold"))
        line.append(" as purro marker")
    else:
        line.append(f": {move.text}")
    console.print(line)
    if hand_over:
        _cj_narrate_hand_end(console, move, before, after)
    else:
        told = move.actor if verb in ("purro", "marker") else None
        _cj_narrate_purro(console, before, after, seat, _cj_rules_of(move.after, after), told)


def _cj_narrate_purro(
    console: Console,
    before: dict[str, Any],
    after: dict[str, Any],
    seat: int,
    rules: _CjRules,
    told: int | None = None,
) -> None:
    """What a move changed in purro, markers and penalties (the end of a turn, a secret that
    held the marker king), except for the seat ``told`` whose move already said it."""
    for s in range(4):
        if s == told:
            continue
        was, now = before["purro"][s], after["purro"][s]
        marker = after["marker"][s]
        if now and not was:
            line = Text("  You are" if s == seat else f"  Seat {s} is", style="magenta")
            line.append(" purro", style="bold magenta")
            line.append(f" (marker {marker})" if marker else " (marker to choose)")
            if s == seat:
                hand = _cj_hand(after, seat, rules)
                if hand.waits:
                    line.append(": waiting on ")
                    line.append_text(_cj_cards(hand.waits))
            line.append("; stock draws are now shown", style="dim")
            console.print(line)
        elif was and not now:
            penalty = after["penalty"][s]
            line = Text(f"  {_cj_verb(s, seat, 'lose').capitalize()} purro", style="red")
            line.append(": no waits after the discard")
            if penalty:
                line.append(f"; penalty for {penalty} turns (no win, draws shown)")
            console.print(line)
        elif now and marker != before["marker"][s] and marker is not None:
            console.print(Text(f"  {_cj_whose(s, seat).capitalize()} marker is now {marker}"))


def _cj_source_text(
    result: dict[str, Any], before: dict[str, Any], after: dict[str, Any], seat: int
) -> Text:
    source = result["source"]
    card = result["card"]
    out = Text()
    if source == "natural":
        out.append("with a natural: the complete deal")
        return out
    out.append("with ")
    if card:
        out.append_text(_cj_card(card, "bold"))
    if source == "stock":
        out.append(", self-drawn")
    elif source == "discard":
        taken = [d for d in before["discards"] if d["taken_by"] == result["winner"]]
        if taken:
            out.append(f", {_cj_whose(taken[-1]['seat'], seat)} discard")
    elif source == "claim":
        draw = before["last_draw"]
        out.append(", claimed")
        if draw is not None:
            out.append(f" from {_cj_whose(draw['seat'], seat)} shown draw")
    return out


def _cj_narrate_hand_end(
    console: Console, move: Move, before: dict[str, Any], after: dict[str, Any]
) -> None:
    seat = move.seat
    config = move.game.config()
    result: dict[str, Any] = after["result"]
    number = len(after["past_hands"])
    winner = result["winner"]
    payments: list[int] = result["payments"]
    line = Text(f"Hand {number} over: ", style="bold yellow")
    if winner is None:
        reason = CJ_REASONS.get(result["reason"], str(result["reason"]))
        line.append(f"a wash ({reason}); nobody wins", style="bold yellow")
        console.print(line)
    else:
        line.append(f"{_cj_verb(winner, seat, 'win')} ", style="bold yellow")
        line.append_text(_cj_source_text(result, before, after, seat))
        console.print(line)
        sowee_hand = _CjRules(True, before["sowee"], before["sowee"], True)
        cards = result["hands"][winner]
        arranged = tapete.cuajo.arrangement(cards) if len(cards) == 16 else None
        loose: list[str] = []
        if arranged is None:
            groups, loose = _cj_split(cards, sowee_hand)
        else:
            groups = _cj_ordered(arranged)
        hand = Text(f"  {_cj_whose(winner, seat).capitalize()} hand  ")
        hand.append_text(_cj_groups(groups, loose))
        console.print(hand)
        opponents = [s for s in range(4) if s not in _cj_team(winner)]
        paid = [-payments[s] for s in opponents]
        each = f"{paid[0]} from each opponent" if len(set(paid)) == 1 else "from the opponents"
        detail = Text("  ")
        if result["special"]:
            detail.append("Special hand", style="bold magenta")
            detail.append(" (no king, or one king in its J-H-K): ")
            detail.append(each)
        else:
            bonus: int = result["bonus"]
            if result["source"] in ("discard", "claim"):
                if result["extra_draws"]:
                    extra = Text(f"  {len(result['extra_draws'])} extra draws turned up: ")
                    extra.append_text(_cj_cards(result["extra_draws"]))
                    console.print(extra)
                r1, r2 = result["r1"], result["r2"]
                detail.append(f"Final card: R1 {'yes' if r1 else 'no'}", style="bold")
                detail.append(f" (the companions of {result['card']})")
                detail.append(f", R2 {'yes' if r2 else 'no'}", style="bold")
                detail.append(f" (a sowee {before['sowee']} with its companions): {bonus}")
            else:
                detail.append(f"Final card ({result['source']}): {bonus}")
            if len(set(paid)) == 1 and config.get("king_basis", "winner") == "winner":
                detail.append(f"; kings {paid[0] - bonus}")
            detail.append(f"; {each}")
        console.print(detail)
    if any(payments):
        pays = Text("  Payments  ")
        pays.append_text(
            Text(", ").join(
                Text(f"{_seat_name(s, seat)} {_cj_cents(p)}", style="bold" if s == seat else "")
                for s, p in enumerate(payments)
            )
        )
        console.print(pays)
    balances: list[int] = after["past_hands"][-1]["balances"]
    if balances != payments:
        line = Text("  Hand balances (secrets included)  ")
        line.append(
            ", ".join(f"{_seat_name(s, seat)} {_cj_cents(b)}" for s, b in enumerate(balances))
        )
        console.print(line)
    for s, cards in enumerate(result["hands"]):
        if s == winner:
            continue
        others = Text(f"  {_cj_whose(s, seat).capitalize()} cards  ", style="dim")
        others.append_text(_cj_cards(cards))
        console.print(others)
    if after["phase"] != "over":
        intro = Text(f"Hand {after['hand'] + 1}: {_cj_verb(after['dealer'], seat, 'deal')}; sowee ")
        intro.append_text(_cj_card(after["sowee"], "bold"))
        console.print(intro)


GAME_UIS: dict[str, GameUI] = {
    "spoil_five": GameUI(
        title="Spoil Five",
        draw=draw_spoil_five,
        narrate=narrate_spoil_five,
        card_style=french_card_style,
        bold_cards=_sf_trumps,
    ),
    "cicera": GameUI(
        title="Cicera",
        draw=draw_cicera,
        narrate=narrate_cicera,
        card_style=french_card_style,
        bold_cards=_ci_bold,
        moves_title=_ci_moves_title,
    ),
    "cau_robat": GameUI(
        title="Cau Robat",
        draw=draw_cau_robat,
        narrate=narrate_cau_robat,
        card_style=spanish_card_style,
        bold_cards=_cr_bold,
        moves_title=_cr_moves_title,
        move_key=_cr_move_key,
        key_name="rank",
        keys_help="the rank to play (7 for 'play 7')",
    ),
    "cuajo": GameUI(
        title="Cuajo",
        draw=draw_cuajo,
        narrate=narrate_cuajo,
        card_style=spanish_card_style,
        bold_cards=_cj_bold,
        moves_title=_cj_moves_title,
        move_key=_cj_move_key,
        key_name="key",
        print_moves=_cj_print_moves,
        unit="cents",
        keys_help="a card to discard it (5c), d draw, t take, w win, c claim, p pass, "
        "s<card> secret (sjc), ss<card> sowee secret with that extra card, y/n purro or not, "
        "a king for the purro marker",
    ),
}
CARD_STYLES: dict[str, Callable[[str], str]] = {
    "spoil_five": french_card_style,
    "cicera": french_card_style,
    "cau_robat": spanish_card_style,
    "cuajo": spanish_card_style,
}


# --------------------------------------------------------------------------------------------
# Options and games


def parse_options(items: Sequence[str]) -> dict[str, Any]:
    """``key=value`` items to a config dict: values parsed as JSON when possible, else strings."""
    config: dict[str, Any] = {}
    for item in items:
        key, sep, text = item.partition("=")
        key = key.strip().replace("-", "_")
        if not sep or not key.isidentifier():
            raise CliError(f"bad option {item!r}: expected key=value, e.g. jinking=false")
        if key in config:
            raise CliError(f"option {key!r} is given twice")
        try:
            value: Any = json.loads(text)
        except ValueError:
            value = text
        config[key] = value
    return config


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
    try:
        return tapete.load_game(name, **config)
    except ConfigError as error:
        raise CliError(str(error)) from None


def new_state(game: Game, seed: int) -> State:
    try:
        return game.new_initial_state(seed)
    except ConfigError as error:
        raise CliError(str(error)) from None


def fresh_seed() -> int:
    return random.SystemRandom().randrange(2**32)


def format_value(value: Any) -> str:
    """A config value as it is typed on the command line (``key=value``)."""
    return value if isinstance(value, str) else json.dumps(value, separators=(",", ":"))


def player_counts(name: str, game: Game) -> str:
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
    console.print(table)
    console.print(
        Text(
            "Options are given as key=value (JSON values: jinking=false, "
            "partnerships=[[0,2],[1,3]]); rules: docs/rules/<game>.md",
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
        console.print(Text(line), highlight=False)  # echo piped input so transcripts read well
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
) -> int:
    """The legal action that ``text`` names: a number in the move list (or, when the game gives
    ``keys``, one of those words: a rank in Cau Robat), an action string, or just the argument
    of one (``2h`` for ``play 2H``, ``7`` for ``play 7``) when that names exactly one legal
    move."""
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
            raise CliError(
                f"{state.action_to_string(min(illegal))!r} is not legal now; "
                "choose one of the moves listed"
            ) from None
        raise CliError(
            f"{error}; type a move's {key_name} or an action such as "
            f"{state.action_to_string(legal[0])!r}"
        ) from None
    if action not in legal:
        raise CliError(
            f"{state.action_to_string(action)!r} is not legal now; choose one of the moves listed"
        )
    return action


def cmd_play(args: argparse.Namespace, console: Console) -> int:
    game = load(args.game, _game_config(args.game, args.players, args.options))
    n = game.num_players()
    seat: int = args.seat
    if not 0 <= seat < n:
        raise CliError(
            f"seat {seat} is out of range: {game.name} with {n} players has seats 0 to {n - 1}"
        )
    seed: int = fresh_seed() if args.seed is None else args.seed
    state = new_state(game, seed)
    bots = random.Random(seed)
    ui = ui_for(game.name)
    intro = Text(f"{ui.title}", style="bold")
    intro.append(f": you are seat {seat}, against {n - 1} random bot{'s' if n > 2 else ''}")
    intro.append(
        f" (seed {seed}). Type a move's {ui.key_name} or its text, 'help', or 'quit'.",
        style="dim",
    )
    console.print(intro)
    if not state.is_terminal() and state.current_player() != seat:
        ui.draw(console, game, state, seat)

    while not state.is_terminal():
        actor = state.current_player()
        legal = state.legal_actions()
        if actor == seat:
            ui.draw(console, game, state, seat)
            _print_moves(console, ui, state, seat, legal)
            while True:
                line = _read_line(console, Text("Your move> ", style="bold green"))
                if line is None or line.strip().lower() in QUIT_WORDS:
                    console.print(Text("Bye: the game was left unfinished.", style="dim"))
                    return 0
                keys = _move_keys(ui, state, legal)
                if line.strip().lower() in HELP_WORDS:
                    example = f" (e.g. {next(iter(keys))!r})" if keys else ""
                    console.print(
                        Text(
                            f"Type the {ui.key_name} of a move{example}, its text (case does "
                            f"not matter, e.g. {state.action_to_string(legal[0])!r}), or 'quit'.",
                            style="dim",
                        )
                    )
                    _print_moves(console, ui, state, seat, legal)
                    continue
                if not line.strip():
                    continue
                try:
                    action = parse_move(state, legal, line, keys, ui.key_name)
                except CliError as error:
                    console.print(Text(f"✗ {error}", style="red"))
                    continue
                break
        else:
            action = bots.choice(legal)
        before = state.clone()
        text = state.action_to_string(action)
        try:
            state.apply_action(action)
        except TapeteError as error:  # cannot happen for a legal action; never a traceback
            raise CliError(f"the engine refused {text!r}: {error}") from None
        ui.narrate(console, Move(game, before, state, actor, action, text, seat))

    ui.draw(console, game, state, seat)
    console.print()
    console.rule(Text("Game over", style="bold"))
    returns = state.returns()
    table = Table(box=box.SIMPLE_HEAD, show_edge=False)
    table.add_column("seat", justify="right")
    unit = f" ({ui.unit})" if ui.unit else ""
    table.add_column(f"return{unit}", justify="right")
    best = max(returns)
    for s, value in enumerate(returns):
        style = "bold green" if value == best and value > 0 else ("red" if value < 0 else "")
        table.add_row(f"{s} (you)" if s == seat else str(s), Text(_signed(value), style=style))
    console.print(table)
    console.print(
        Text(
            f"Returns: {[_number(r) for r in returns]}; yours: {_signed(returns[seat])}"
            + (f" {ui.unit}" if ui.unit else ""),
            style="bold",
        )
    )
    return 0


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
    games: int
    actions: int
    seconds: float
    sums: list[float]
    squares: list[float]

    def mean(self, seat: int) -> float:
        return self.sums[seat] / self.games

    def half_width(self, seat: int) -> float:
        """Half the 95% interval of the mean: 1.96 · sd / √N (NaN for a single game)."""
        if self.games < 2:
            return math.nan
        mean = self.mean(seat)
        variance = max(0.0, (self.squares[seat] - self.games * mean * mean) / (self.games - 1))
        return 1.96 * math.sqrt(variance / self.games)


def play_random_games(
    game: Game, choice: Callable[[list[int]], int], seeds: range, stats: SelfPlayStats
) -> None:
    """Random play of one game per seed; the hot loop of ``tapete selfplay``."""
    new_initial_state = game.new_initial_state
    sums = stats.sums
    squares = stats.squares
    actions = 0
    for game_seed in seeds:
        state = new_initial_state(game_seed)
        legal_actions = state.legal_actions
        apply_action = state.apply_action
        while legal := legal_actions():
            apply_action(choice(legal))
        if not state.is_terminal():
            raise CliError(f"seed {game_seed}: a state that is not over has no legal action")
        actions += len(state.history())
        for p, value in enumerate(state.returns()):
            sums[p] += value
            squares[p] += value * value
    stats.actions += actions
    stats.games += len(seeds)


def play_native_games(game: Game, seeds: range, threads: int, stats: SelfPlayStats) -> None:
    """The same random play inside the engine (``Game.play_random``), without the GIL."""
    returns, lengths = game.play_random(len(seeds), seeds.start, threads)
    for p in range(game.num_players()):
        column = returns[:, p]
        stats.sums[p] += float(column.sum())
        stats.squares[p] += float((column * column).sum())
    stats.actions += int(lengths.sum())
    stats.games += len(seeds)


def run_selfplay(
    game: Game, games: int, seed: int, console: Console, native: bool = True, threads: int = 1
) -> SelfPlayStats:
    """Play ``games`` random games with seeds ``seed + i``, natively or driven from Python; a
    transient progress bar is shown on a terminal once the run looks longer than a second.
    Chunks last ~0.1 s (at most 1000 games from Python, 100,000 natively)."""
    from rich.progress import (
        BarColumn,
        MofNCompleteColumn,
        Progress,
        TextColumn,
        TimeElapsedColumn,
        TimeRemainingColumn,
    )

    n = game.num_players()
    stats = SelfPlayStats(0, 0, 0.0, [0.0] * n, [0.0] * n)
    choice = random.Random(seed).choice
    progress: Progress | None = None
    task = None
    step = 8
    start = time.perf_counter()
    try:
        while stats.games < games:
            count = min(step, games - stats.games)
            first = seed + stats.games
            t0 = time.perf_counter()
            if native:
                play_native_games(game, range(first, first + count), threads, stats)
            else:
                play_random_games(game, choice, range(first, first + count), stats)
            now = time.perf_counter()
            rate = count / max(now - t0, 1e-9)
            step = max(1, min(100_000 if native else 1000, int(rate * 0.1)))
            if progress is None and console.is_terminal and stats.games < games:
                if now - start + (games - stats.games) / rate > 1.0:
                    progress = Progress(
                        TextColumn("[bold]{task.description}"),
                        BarColumn(),
                        MofNCompleteColumn(),
                        TextColumn("games"),
                        TimeElapsedColumn(),
                        TextColumn("eta"),
                        TimeRemainingColumn(),
                        console=console,
                        transient=True,
                        auto_refresh=False,  # no refresh thread competing with the hot loop
                    )
                    progress.start()
                    task = progress.add_task(game.name, total=games)
            if progress is not None and task is not None:
                progress.update(task, completed=stats.games, refresh=True)
    finally:
        stats.seconds = time.perf_counter() - start
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
    games: int = args.games
    game = load(args.game, _game_config(args.game, args.players, args.options))
    seed: int = fresh_seed() if args.seed is None else args.seed
    _check_seed_range(seed, games)
    new_state(game, seed)  # a bad seed is reported before any work
    stats = run_selfplay(game, games, seed, console, not args.python_loop, args.threads)
    n = game.num_players()
    title = f"{game.name} · {n} players · {games:,} random game{'s' if games > 1 else ''}"
    table = Table(title=title, box=box.ROUNDED, title_style="bold")
    table.add_column("seat", justify="right", style="bold")
    unit = ui_for(game.name).unit
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
    console.print(table)
    seconds = max(stats.seconds, 1e-9)
    summary = Table.grid(padding=(0, 2))
    summary.add_column(style="dim")
    summary.add_column(justify="right", style="bold")
    summary.add_row("seeds", f"{seed} … {seed + games - 1}")
    if args.options:
        summary.add_row("options", " ".join(args.options))
    summary.add_row(
        "bots", "Python loop" if args.python_loop else f"native, {args.threads} thread(s)"
    )
    summary.add_row("mean game length", f"{stats.actions / games:,.1f} actions")
    summary.add_row("wall time", f"{stats.seconds:,.3f} s")
    summary.add_row("games/s", f"{games / seconds:,.0f}")
    summary.add_row("actions/s", f"{stats.actions / seconds:,.0f}")
    console.print(summary)
    return 0


# --------------------------------------------------------------------------------------------
# Entry point


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> NoReturn:
        raise CliError(f"{message} (see '{self.prog} --help')")


def _positive(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a positive integer, got {text!r}") from None
    if value < 1:
        raise argparse.ArgumentTypeError(f"expected a positive integer, got {value}")
    return value


def _seed(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected an integer seed, got {text!r}") from None
    if not 0 <= value < MAX_SEED:
        raise argparse.ArgumentTypeError(f"a seed must lie in 0 … 2^64-1, got {value}")
    return value


def build_parser() -> argparse.ArgumentParser:
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
        help="play a game against random bots",
        formatter_class=argparse.RawDescriptionHelpFormatter,
        epilog=moves,
    )
    play.add_argument("game", help="a game name (see 'tapete games')")
    play.add_argument("options", nargs="*", metavar="key=value", help="game options")
    play.add_argument(
        "--players", type=int, help="number of players (games with a variable count only)"
    )
    play.add_argument("--seat", type=int, default=0, help="your seat (default 0)")
    play.add_argument("--seed", type=_seed, help="seed of the game and the bots")

    selfplay = commands.add_parser("selfplay", help="time random bots playing many games")
    selfplay.add_argument("game", help="a game name (see 'tapete games')")
    selfplay.add_argument("options", nargs="*", metavar="key=value", help="game options")
    selfplay.add_argument("--games", type=_positive, required=True, help="number of games")
    selfplay.add_argument(
        "--players", type=int, help="number of players (games with a variable count only)"
    )
    selfplay.add_argument("--seed", type=_seed, help="first game seed (game i uses seed + i)")
    selfplay.add_argument(
        "--python-loop",
        action="store_true",
        help="drive the engine from Python (state.apply_action per move) instead of natively",
    )
    selfplay.add_argument(
        "--threads", type=_positive, default=1, help="threads for native play (default 1)"
    )
    return parser


def main(argv: list[str] | None = None) -> int:
    """Run the command line with ``argv`` (default ``sys.argv[1:]``); returns the exit code."""
    console = Console(highlight=False)
    errors = Console(stderr=True, highlight=False)
    parser = build_parser()
    try:
        try:
            args, extra = parser.parse_known_args(sys.argv[1:] if argv is None else argv)
        except SystemExit as done:  # --help and --version
            return done.code if isinstance(done.code, int) else 0
        if args.command in ("play", "selfplay"):
            unknown = [item for item in extra if item.startswith("-")]
            args.options = [*args.options, *(item for item in extra if not item.startswith("-"))]
        else:
            unknown = extra
        if unknown:
            raise CliError(
                f"unrecognized arguments: {' '.join(unknown)} (see 'tapete {args.command} --help')"
            )
        if args.command == "games":
            return cmd_games(console)
        if args.command == "play":
            return cmd_play(args, console)
        return cmd_selfplay(args, console)
    except CliError as error:
        errors.print(Text(f"tapete: error: {error}", style="bold red"), soft_wrap=True)
        return 2
    except TapeteError as error:
        errors.print(Text(f"tapete: error: {error}", style="bold red"), soft_wrap=True)
        return 2
    except KeyboardInterrupt:
        errors.print(Text("tapete: interrupted", style="red"))
        return 130
    except BrokenPipeError:
        try:  # the reader went away (tapete games | head): exit quietly
            devnull = os.open(os.devnull, os.O_WRONLY)
            os.dup2(devnull, sys.stdout.fileno())
        except (OSError, ValueError):
            pass
        return 1
