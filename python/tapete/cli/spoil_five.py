"""Spoil Five on the command line (layout of ``view()``: docs/rules/spoil_five.md)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from rich import box
from rich.console import Console
from rich.table import Table
from rich.text import Text

import tapete
from tapete import Game, State
from tapete.cli._ui import GameUI, Move, french_card_style, print_rule, print_table

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
    """The Spoil Five table as ``seat`` sees it (its ``view``), for ``tapete play``."""
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
    print_rule(console, Text(f"Spoil Five · {deal_text} · dealer: {_seat_name(v['dealer'], seat)}"))

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
    print_table(console, table)

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
        print_table(console, past)


def narrate_spoil_five(console: Console, move: Move) -> None:
    """What ``move.seat`` witnessed of one applied Spoil Five move, in words."""
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


def _sf_moves_title(state: State, seat: int) -> Text:
    """ "Your moves:", and at a rob what robbing and declining do."""
    v = state.view(seat)
    title = Text("Your moves:", style="bold")
    if v["phase"] in ("rob", "dealer_rob"):
        when = " when your turn in trick 1 comes" if v["phase"] == "dealer_rob" else ""
        hint = f"  rob X = lay X face down and take the turned-up {v['turn_up']}{when}"
        policy = state.get_game().config()["rob_policy"]
        if policy == "penalty":
            hint += "; decline = keep your hand, but then you (and your team) cannot win the pool"
            hint += " or jink this deal"
        elif policy == "optional":
            hint += "; decline = keep your hand"
        title.append(hint, style="dim")
    return title


UI = GameUI(
    title="Spoil Five",
    draw=draw_spoil_five,
    narrate=narrate_spoil_five,
    card_style=french_card_style,
    bold_cards=_sf_trumps,
    moves_title=_sf_moves_title,
    unit="chips",
    deal_of=lambda state, seat: int(state.view(seat)["deal"]),
)
