"""Cuajo on the command line (layout of ``view()``: docs/rules/cuajo.md)."""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from rich import box
from rich.console import Console
from rich.table import Table
from rich.text import Text

import tapete
from tapete import Game, State
from tapete.cli._ui import GameUI, Move, print_rule, print_table, spanish_card_style
from tapete.cli.spoil_five import _seat_name

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
    publicly known to be held by another seat (its ``known`` cards and its marker king)."""
    dead: Counter[str] = Counter(d["card"] for d in v["discards"] if d["taken_by"] is None)
    for s, known in enumerate(v["known"]):
        if s != seat:
            held = Counter(known)
            marker = v["marker"][s]
            if marker is not None and marker != "coin":  # a face-up king, maybe a known one
                held[marker] = max(held[marker], 1)
            dead.update(held)
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
    """The Cuajo table as ``seat`` sees it (its ``view``), for ``tapete play``."""
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
    print_rule(console, Text(title))

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
    print_table(console, seats)
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
        print_table(console, past)


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
        note.append(f" (or {len(cards) - 5} more)" if len(cards) > 5 else "")
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
    """What ``move.seat`` witnessed of one applied Cuajo move, in words."""
    before = move.before.view(move.seat)
    after = move.after.view(move.seat)
    seat = move.seat
    verb, _, card = move.text.partition(" ")
    mine = move.actor == seat
    hand_over = len(after["past_hands"]) > len(before["past_hands"])
    if not mine and verb == "pass" and before["phase"] != "draw":
        return  # a drawer's or claimant's decision: nobody else sees it (rules, "Claims")
    if not mine and verb in ("discard", "purro") and after == before:
        return  # it brought a marker decision, hidden (rules, "Purro"): told with the marker
    if not mine and verb == "marker":
        # the end of a hidden marker decision: the seat now sees the discard or the purro call
        # that brought it, with its marker, as if the marker had been placed at once
        if before["phase"] == "purro_call":
            verb, card = "purro", ""
        else:
            verb = "discard"
            card = "" if hand_over or not after["discards"] else after["discards"][-1]["card"]
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
        line.append_text(_cj_card(card, "bold") if card else Text("a card"))
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


UI = GameUI(
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
    deal_of=lambda state, seat: int(state.view(seat)["hand"]),
    keys_help="a card to discard it (5c), d draw, t take, w win, c claim, p pass, "
    "s<card> secret (sjc), ss<card> sowee secret with that extra card, y/n purro or not, "
    "a king for the purro marker",
)
