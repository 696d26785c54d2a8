"""Cau Robat on the command line (layout of ``view()``: docs/rules/cau_robat.md)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from rich import box
from rich.console import Console
from rich.table import Table
from rich.text import Text

from tapete import Game, State
from tapete.cli._ui import GameUI, Move, print_rule, print_table, spanish_card_style
from tapete.cli.spoil_five import _seat_name

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
    """What ``move.seat`` witnessed of one applied Cau Robat move, in words."""
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
    """The Cau Robat table as ``seat`` sees it (its ``view``), for ``tapete play``."""
    v = state.view(seat)
    cfg = game.config()
    fancy = console.encoding.lower().startswith("utf")
    n: int = v["players"]
    target = int(cfg.get("hands_to_win", 1))
    title = f"Cau Robat · hand {v['hand'] + 1}"
    if target > 1:
        title += f" · first to win {target} hands"
    console.print()
    print_rule(console, Text(f"{title} · dealer: {_seat_name(v['dealer'], seat)}"))

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
    print_table(console, seats)

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
        print_table(console, past)


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


UI = GameUI(
    title="Cau Robat",
    draw=draw_cau_robat,
    narrate=narrate_cau_robat,
    card_style=spanish_card_style,
    bold_cards=_cr_bold,
    moves_title=_cr_moves_title,
    move_key=_cr_move_key,
    key_name="rank",
    keys_help="the rank to play (7 for 'play 7')",
    unit_of=lambda config: "hands" if config.get("hands_to_win", 1) == 1 else "matches",
    deal_of=lambda state, seat: int(state.view(seat)["hand"]),
)
