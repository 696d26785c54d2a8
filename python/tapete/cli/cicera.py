"""Cicera on the command line (layout of ``view()``: docs/rules/cicera.md)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from rich import box
from rich.console import Console
from rich.table import Table
from rich.text import Text

from tapete import Game, State, cicera
from tapete.cli._ui import GameUI, Move, french_card_style, print_rule, print_table
from tapete.cli.spoil_five import _seat_name

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
    """The Cicera table as ``seat`` sees it (its ``view``), for ``tapete play``."""
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
    print_rule(console, Text(f"Cicera · {hand_text} · dealer: {_seat_name(v['dealer'], seat)}"))

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
    print_table(console, scores)

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
    print_table(console, seats)
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
        print_table(console, past)


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


def _ci_completion(
    config: dict[str, Any], table: list[str], played: str, taken: list[str]
) -> list[str]:
    """The capture set of ``played`` on ``table`` that a capture which has ``taken`` (ascending)
    was completed with: the only one left (itself when complete)."""
    sets = cicera.captures(table, played, bool(config.get("force_single_match")))
    left = [s for s in sets if s[: len(taken)] == taken]
    return left[0] if len(left) == 1 else taken


def narrate_cicera(console: Console, move: Move) -> None:
    """What ``move.seat`` witnessed of one applied Cicera move, in words."""
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
    elif verb in ("capture", "take") and after["phase"] == "capture" and not hand_over:
        if verb == "take" or not mine:
            return  # the capture goes on; told once, when it resolves
        line.append(" play ")
        line.append_text(_ci_card(card))
        line.append(" to capture: take the table cards one by one, in table order")
    elif verb in ("capture", "take"):
        # Resolved by this move (with auto_complete_unique a capture may resolve at once).
        played: str = card if verb == "capture" else before["pending"]
        if after["hand"] == before["hand"] and len(after["plays"]) > len(before["plays"]):
            captured = list(after["plays"][-1]["captured"] or [])
        else:  # a new hand has been dealt: the one capture set extending what was taken
            taken = [] if verb == "capture" else [*before["taken"], card]
            captured = _ci_completion(config, before["table"], played, taken)
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


def _ci_building(state: State, seat: int) -> bool:
    """``seat`` is taking the table cards of a capture one by one (it can start again)."""
    v = state.view(seat)
    return bool(v["phase"] == "capture" and v["to_play"] == seat)


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


UI = GameUI(
    title="Cicera",
    draw=draw_cicera,
    narrate=narrate_cicera,
    card_style=french_card_style,
    bold_cards=_ci_bold,
    moves_title=_ci_moves_title,
    unit_of=lambda config: "points" if config.get("game_mode") == "single_hand" else "matches",
    deal_of=lambda state, seat: int(state.view(seat)["hand"]),
    building=_ci_building,
)
