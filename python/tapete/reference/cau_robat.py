"""Cau Robat: the pure-Python reference model.

Written from the rules documents only (``shared/rules/cau_robat.md``, ``docs/rules/cau_robat.md``,
``docs/engine.md`` and ``shared/design/api.md``); it is clear rather than fast.  It is the second,
independent implementation that the Rust engine is tested against.

A game is a *match* of hands (one hand with the default ``hands_to_win = 1``).  Everything that
happens without a decision (the shuffle and the deal, captures, robberies, the settling of a cau
chain with its penalties, the net bonus, the end of a hand, the next deal) happens inside
``apply_action`` or when the state is created, so every non-terminal state is a decision node of
one player, except with ``explicit_chance``: then the first dealer (when random) and every card
dealt are chance nodes, the table cards first, each among the cards of ranks not yet on the table
(rules §2, §8.1).

Cards use the Spanish pack numbered rank-major: ``id = 4 * rank_index + suit`` with ranks
``1 2 3 4 5 6 7 10 11 12`` (rank index 0-9) and suits ``O C E B``.  Action ``k`` (0-9) plays the
lowest card id of rank index ``k`` held by the player (``play <rank>``).  Inside this module
ranks are handled as rank indices; the rank value (1..7, 10, 11, 12) only appears in strings,
in the ``chain`` of the view and in the evaluator ``run``.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import numpy.typing as npt

from tapete.errors import ConfigError, ParseError
from tapete.reference._base import (
    TERMINAL,
    ReferenceGame,
    ReferenceState,
    TensorBlocks,
    as_int,
    boolean,
    choice,
    first_dealer,
    int_in,
    json_copy,
    merge_config,
)
from tapete.reference._base import seat_name as _p
from tapete.reference._text import shown
from tapete.reference.cards import SPANISH
from tapete.reference.rng import SplitMix64

__all__ = [
    "CauRobatGame",
    "CauRobatState",
    "NUM_DISTINCT_ACTIONS",
    "OBSERVATION_SIZE",
    "RANKS",
    "TERMINAL",
    "run",
]

GAME_NAME = "cau_robat"
NUM_CARDS = 40
NUM_RANKS = 10
RANKS = (1, 2, 3, 4, 5, 6, 7, 10, 11, 12)  # rank value of each rank index, in cycle order
NUM_DISTINCT_ACTIONS = 10
MAX_SEATS = 5
OBSERVATION_SIZE = 243
_PHASES = ("play", "over")


# ----------------------------------------------------------------------------------------------
# Cards and ranks (rules §1, §8.1)
# ----------------------------------------------------------------------------------------------


def rank_of(card: int) -> int:
    """Rank index (0-9) of a card id."""
    return card // 4


def _fmt(card: int) -> str:
    return SPANISH.to_string(card)


def _fmt_many(cards: Sequence[int]) -> list[str]:
    return [SPANISH.to_string(c) for c in cards]


def _text(cards: Sequence[int]) -> str:
    return " ".join(_fmt_many(cards)) or "-"


def _step(k: int, direction: int) -> int:
    """The next rank index along the cycle: ``direction`` -1 is pred, +1 is succ."""
    return (k + direction) % NUM_RANKS


# ----------------------------------------------------------------------------------------------
# The run (rules §3.4), on a plain position description
# ----------------------------------------------------------------------------------------------

# A run item: ("T", card) for a table card, ("P", seat) for a robbed pile, ("O", seat) for the
# capturer's own pile bridging the run (option own_pile_links; nothing is taken).
_Item = tuple[str, int]


def collect_run(
    k: int,
    p: int,
    table: Sequence[int],
    piles: Sequence[Sequence[int]],
    cfg: dict[str, Any],
) -> tuple[list[_Item], list[_Item]]:
    """The DOWN and UP items of the run through rank index ``k`` for capturer ``p``.

    A rank is present if it is on the table or on top of another player's pile; a table card
    has priority (``rank_conflict = "stop"`` ends the run instead when both hold the rank);
    every other pile with that top is robbed, in seat order from ``p + 1`` (or only the first
    with ``multi_pile_same_rank = "first_only"``); the capturer's own top only bridges with
    ``own_pile_links``.  Ranks already used end the walk.
    """
    n = len(piles)
    on_table = {rank_of(c): c for c in table}
    directions = {"both": (-1, 1), "down_only": (-1,), "up_only": (1,)}[cfg["sequence_direction"]]
    visited = {k}
    parts: dict[int, list[_Item]] = {-1: [], 1: []}
    for direction in directions:
        items = parts[direction]
        x = _step(k, direction)
        while x not in visited:
            others = [
                q
                for q in ((p + i) % n for i in range(1, n))
                if piles[q] and rank_of(piles[q][-1]) == x
            ]
            own = bool(cfg["own_pile_links"]) and bool(piles[p]) and rank_of(piles[p][-1]) == x
            if x in on_table:
                if cfg["rank_conflict"] == "stop" and others:
                    break
                items.append(("T", on_table[x]))
            elif others:
                if cfg["multi_pile_same_rank"] == "first_only":
                    others = others[:1]
                items.extend(("P", q) for q in others)
            elif own:
                items.append(("O", p))
            else:
                break
            visited.add(x)
            x = _step(x, direction)
    return parts[-1], parts[1]


def _parse_rank(value: object, what: str) -> int:
    """Rank index of a rank value 1..7, 10, 11, 12 (``ValueError`` otherwise)."""
    number = as_int(value)
    if number is None:
        raise ValueError(f"{what} must be a rank among {RANKS}, got {shown(value)}")
    if number not in RANKS:
        raise ValueError(f"{what} must be a rank among {RANKS}, got {number}")
    return RANKS.index(number)


def run(table_ranks: Sequence[int], rank: int) -> list[int]:
    """The ranks a play of ``rank`` captures from a table of ``table_ranks`` (docs/rules).

    Distinct table ranks, no piles, default options.  ``[]`` if ``rank`` is not on the table;
    else the matched rank and the run through it, in the cycle order ``1 2 .. 7 10 11 12``.
    """
    if isinstance(table_ranks, (str, bytes)) or not isinstance(table_ranks, Sequence):
        raise ValueError(f"table_ranks must be a list of ranks, got {shown(table_ranks)}")
    indices = [_parse_rank(r, "a table rank") for r in table_ranks]
    if len(set(indices)) != len(indices):
        raise ValueError(f"the table ranks must be distinct, got {shown(list(table_ranks))}")
    k = _parse_rank(rank, "the played rank")
    if k not in indices:
        return []
    table = [4 * i for i in indices]
    down, up = collect_run(k, 0, table, [[]], dict(_DEFAULTS))
    taken = {k} | {rank_of(card) for _, card in down + up}
    return [RANKS[i] for i in sorted(taken)]


# ----------------------------------------------------------------------------------------------
# Configuration (docs/rules/cau_robat.md, "Configuration")
# ----------------------------------------------------------------------------------------------

_DEFAULTS: dict[str, Any] = {
    "players": 4,
    "hands_to_win": 1,
    "first_dealer": "random",
    "sequence_direction": "both",
    "rank_conflict": "table_priority",
    "own_pile_links": False,
    "multi_pile_same_rank": "all",
    "direct_pile_match": False,
    "stack_order": "walk",
    "cau_enabled": True,
    "chain_penalty_payers": "chain_members",
    "net_bonus": False,
    "leftover_table_cards": "unclaimed",
    "hand_tie": "void",
    "max_hands": None,  # derived from hands_to_win and players (default_max_hands)
}
_CHOICES: dict[str, tuple[str, ...]] = {
    "sequence_direction": ("both", "up_only", "down_only"),
    "rank_conflict": ("table_priority", "stop"),
    "multi_pile_same_rank": ("all", "first_only"),
    "stack_order": ("walk", "played_on_top"),
    "chain_penalty_payers": ("chain_members", "all_opponents"),
    "leftover_table_cards": ("unclaimed", "last_capturer"),
    "hand_tie": ("void", "shared"),
}
_BOOLS = ("own_pile_links", "direct_pile_match", "cau_enabled", "net_bonus")
MAX_HANDS_TO_WIN = 1000
MAX_MAX_HANDS = 100_000


def default_max_hands(n: int, hands_to_win: int) -> int:
    """The default cap on the hands of a match (docs/rules/cau_robat.md, "The end of a hand and
    the match"): twice the most hands that can be won before somebody reaches the target."""
    if hands_to_win == 1:
        return 1
    return 2 * (n * (hands_to_win - 1) + 1)


# Rules §9: named sets of options, the defaults of a config that names one (``preset``).
_PRESETS: dict[str, dict[str, Any]] = {
    "seed": {},
    "pagat": {"net_bonus": True, "hands_to_win": 1},
}


def _validate_config(raw: dict[str, Any]) -> dict[str, Any]:
    if "num_players" in raw:  # the name of rules §9
        if "players" in raw:
            raise ConfigError("cau_robat: players and num_players are one option: give one")
        raw = {("players" if k == "num_players" else k): v for k, v in raw.items()}
    if "preset" in raw:
        name = raw["preset"]
        if not isinstance(name, str) or name not in _PRESETS:
            raise ConfigError(f"preset must be one of {', '.join(_PRESETS)}, got {shown(name)}")
        raw = {**_PRESETS[name], **{k: v for k, v in raw.items() if k != "preset"}}
    merged = merge_config(GAME_NAME, raw, _DEFAULTS)
    cfg: dict[str, Any] = {}
    n = int_in("players", merged["players"], 3, 5)
    for key in _DEFAULTS:
        value = merged[key]
        if key == "players":
            cfg[key] = n
        elif key == "hands_to_win":
            cfg[key] = int_in(key, value, 1, MAX_HANDS_TO_WIN)
        elif key == "max_hands":
            pass  # below, once hands_to_win is known
        elif key == "first_dealer":
            cfg[key] = first_dealer(value, n)
        elif key in _BOOLS:
            cfg[key] = boolean(key, value)
        else:
            cfg[key] = choice(key, value, _CHOICES[key])
    target = cfg["hands_to_win"]
    cap = merged["max_hands"]
    if cap is None:
        cfg["max_hands"] = default_max_hands(n, target)
    elif target == 1:  # one hand is the whole match
        int_in("max_hands", cap, 1, MAX_MAX_HANDS)
        cfg["max_hands"] = 1
    else:
        number = as_int(cap)
        if number is not None and number < target:
            raise ConfigError(
                f"max_hands must be at least hands_to_win ({target}), or nobody could win the "
                f"match; got {number}"
            )
        cfg["max_hands"] = int_in("max_hands", cap, target, MAX_MAX_HANDS)
    return cfg


def table_size(n: int) -> int:
    """Table cards of a deal: 4 with 3 or 4 players, 5 with 5."""
    return 5 if n == 5 else 4


def plays_per_hand(n: int) -> int:
    """Turns in a hand: every card not on the table is played once (36, or 35 with 5)."""
    return NUM_CARDS - table_size(n)


def deal_seat(dealer: int, i: int, n: int) -> int:
    """Seat receiving hand-deal position ``i`` (docs/rules/cau_robat.md, "The deal")."""
    if n == 5 and i >= 30:
        return (dealer + 1 + (i - 30)) % n
    return (dealer + 1 + (i % (3 * n)) // 3) % n


def deal_table(deck: Sequence[int], n: int) -> tuple[list[int], list[int]]:
    """The table (first cards of distinct ranks met from the top) and the rest, in order."""
    k = table_size(n)
    table: list[int] = []
    rest: list[int] = []
    ranks: set[int] = set()
    for card in deck:
        if len(table) < k and rank_of(card) not in ranks:
            table.append(card)
            ranks.add(rank_of(card))
        else:
            rest.append(card)
    return table, rest


# ----------------------------------------------------------------------------------------------
# Game
# ----------------------------------------------------------------------------------------------


class CauRobatGame(ReferenceGame["CauRobatState"]):
    """A Cau Robat match (one hand by default) with a fixed configuration."""

    _name = GAME_NAME
    _pack = SPANISH
    _defaults = _DEFAULTS
    _num_actions = NUM_DISTINCT_ACTIONS
    _max_chance_outcomes = NUM_CARDS

    def _validate(self, raw: dict[str, Any]) -> dict[str, Any]:
        return _validate_config(raw)

    def _new_state(self, seed: int, given: list[list[int]]) -> CauRobatState:
        return CauRobatState(self, seed, given)

    def observation_tensor_shape(self) -> tuple[int, ...]:
        return (OBSERVATION_SIZE,)

    def max_game_length(self) -> int:
        return int(plays_per_hand(self.num_players()) * self._cfg["max_hands"])

    def _utility_bounds(self) -> tuple[float, float]:
        # +1 for a lone winner; a loser pays 1/(n-1), or everything if n-1 players share a win.
        if self._cfg["hand_tie"] == "shared":
            return (-1.0, 1.0)
        return (-1.0 / (self.num_players() - 1), 1.0)

    def _changed_config(self) -> dict[str, Any]:
        cfg = self._cfg
        changed = {k: v for k, v in cfg.items() if k != "max_hands" and v != _DEFAULTS[k]}
        if cfg["max_hands"] != default_max_hands(cfg["players"], cfg["hands_to_win"]):
            changed["max_hands"] = cfg["max_hands"]
        return changed


# ----------------------------------------------------------------------------------------------
# State
# ----------------------------------------------------------------------------------------------


@dataclass
class _Chain:
    """A pending cau chain (rules §4.2): the cards in play order and who played them."""

    rank: int  # rank index
    cards: list[int]
    seats: list[int]


@dataclass
class _LastPlay:
    seat: int
    card: int
    captured: bool  # a card that joined a chain counts as captured


@dataclass
class _Hand:
    """Everything about the hand under way (or the last hand, at the end of the match)."""

    index: int
    dealer: int
    deck: list[int]
    n: int
    dealt_table: list[int] = field(default_factory=list)  # in dealing order
    hands: list[list[int]] = field(default_factory=list)  # each kept ascending
    table: list[int] = field(default_factory=list)  # kept ascending
    piles: list[list[int]] = field(default_factory=list)  # bottom -> top
    chain: _Chain | None = None
    last_play: _LastPlay | None = None
    last_capturer: int | None = None
    plays: list[tuple[int, int]] = field(default_factory=list)  # (seat, card) this hand
    to_play: int = 0
    over: bool = False


class CauRobatState(ReferenceState):
    """A Cau Robat match in progress.  Create it with ``CauRobatGame.new_initial_state``."""

    _game: CauRobatGame

    def __init__(self, game: CauRobatGame, seed: int, given_decks: list[list[int]]) -> None:
        super().__init__(game, seed, given_decks)
        self._hands_won: list[int] = [0] * self._n
        self._past: list[dict[str, Any]] = []
        self._winners: list[int] | None = None
        self._hand: _Hand
        self._begin()

    def _first_deal(self, dealer: int) -> None:
        self._start_hand(0, dealer)

    # ---------------------------------------------------------------- hand flow ------------

    def _shuffled_deck(self, index: int) -> list[int]:
        """The seeded deck of deal ``index`` (docs/rules/cau_robat.md, "The deal").

        The pack is shuffled; the table is the first cards of distinct ranks from the top; if a
        card was passed over, the cards not on the table are shuffled once more (the reshuffle
        after a duplicate goes back).  Its deck is the effective order: the table cards as met,
        then the hand cards in dealing order.  These random numbers are drawn at every deal,
        even when a deck is given; a given deck replaces the result.
        """
        deck = self._game._pack.full_pack()
        self._rng.shuffle(deck)
        table, rest = deal_table(deck, self._n)
        if deck[: len(table)] != table:
            self._rng.shuffle(rest)
        deck = table + rest
        if index < len(self._given):
            deck = list(self._given[index])
        return deck

    def _deal_order(self, deck: list[int]) -> list[int]:
        """The table (the first cards of distinct ranks) first, then the hand cards in order."""
        table, rest = deal_table(deck, self._n)
        return table + rest

    def _start_hand(self, index: int, dealer: int) -> None:
        """The deal: table cards one at a time, then the hands (rules §2)."""
        n = self._n
        deck = self._draw_deck(index)
        h = _Hand(index=index, dealer=dealer, deck=deck, n=n)
        h.piles = [[] for _ in range(n)]
        h.hands = [[] for _ in range(n)]
        h.to_play = (dealer + 1) % n
        self._hand = h
        self._event(None, f"hand {index}: dealer {_p(dealer)}")
        self._await_card("_table_card")

    def _dealable(self, undealt: list[int]) -> list[int]:
        if self._then != "_table_card":
            return undealt
        # Rules §2.4: a table card's rank is not on the table yet.
        ranks = {rank_of(c) for c in self._hand.dealt_table}
        return [c for c in undealt if rank_of(c) not in ranks]

    def _table_card(self, card: int) -> None:
        h = self._hand
        h.dealt_table.append(card)
        h.table = sorted(h.dealt_table)
        if len(h.dealt_table) < table_size(self._n):
            self._await_card("_table_card")
            return
        self._event(None, f"table {_text(h.table)}")
        self._await_card("_hand_card")

    def _hand_card(self, card: int) -> None:
        h = self._hand
        n = self._n
        i = self._drawn - 1 - table_size(n)  # position in the hand-dealing sequence
        seat = deal_seat(h.dealer, i, n)
        h.hands[seat] = sorted(h.hands[seat] + [card])
        if i + 1 < plays_per_hand(n):
            self._await_card("_hand_card")
            return
        for q in range(n):
            self._event(q, f"{_p(q)} is dealt {_text(h.hands[q])}")

    def _sees_position(self, seat: int, k: int) -> bool:
        n = self._n
        return k < table_size(n) or deal_seat(self._hand.dealer, k - table_size(n), n) == seat

    def _execute_capture(self, k: int, p: int, rank_cards: list[int]) -> None:
        """Rules §3.5-3.6: take ``rank_cards`` and the run through ``k`` onto ``p``'s pile."""
        h = self._hand
        down, up = collect_run(k, p, h.table, h.piles, self._cfg)

        def block(item: _Item) -> list[int]:
            kind, value = item
            if kind == "T":
                return [value]
            if kind == "P":
                return list(h.piles[value])
            return []  # own pile bridging: stays in place

        down_blocks = [block(item) for item in down]
        up_blocks = [block(item) for item in up]
        taken_table = {value for kind, value in down + up if kind == "T"} | set(rank_cards)
        robbed = [value for kind, value in down + up if kind == "P"]
        h.table = [c for c in h.table if c not in taken_table]
        for q in robbed:
            h.piles[q] = []
        if self._cfg["stack_order"] == "walk":
            packet = list(rank_cards)
            for b in down_blocks + up_blocks:
                packet += b
        else:  # played_on_top
            packet = []
            for b in list(reversed(down_blocks)) + up_blocks:
                packet += b
            packet += rank_cards
        h.piles[p] += packet
        h.last_capturer = p
        text = f"{_p(p)} captures {_text(packet)}"
        if robbed:
            text += " robbing " + ", ".join(_p(q) for q in robbed)
        self._event(None, text)

    def _pay(self, payer: int, to: int, why: str) -> None:
        h = self._hand
        if h.piles[payer]:
            card = h.piles[payer].pop()
            h.piles[to].append(card)
            self._event(None, f"{_p(payer)} pays {_fmt(card)} to {_p(to)} ({why})")
        else:
            self._event(None, f"{_p(payer)} has no card to pay ({why})")

    def _net_check(self, p: int) -> None:
        """Rules §4.6: with ``net_bonus``, a capture leaving the table empty earns a card from
        every other player, in seat order from ``p + 1``."""
        h = self._hand
        if self._cfg["net_bonus"] and not h.table:
            for i in range(1, self._n):
                self._pay((p + i) % self._n, p, "net")

    def _finalize_chain(self) -> None:
        """Rules §4.3: the last caller captures, the other members (or all) pay, then net."""
        h = self._hand
        chain = h.chain
        assert chain is not None
        h.chain = None
        p = chain.seats[-1]
        level = {2: "cau", 3: "recau", 4: "contracau"}[len(chain.cards)]
        self._event(None, f"the {level} of {_p(p)} is settled")
        self._execute_capture(chain.rank, p, list(chain.cards))
        n = self._n
        order = [(p + i) % n for i in range(1, n)]
        if self._cfg["chain_penalty_payers"] == "all_opponents":
            payers = order
        else:
            members = set(chain.seats)
            payers = [q for q in order if q in members]
        for q in payers:
            self._pay(q, p, level)
        self._net_check(p)

    def _apply(self, k: int) -> None:
        """The step function of rules §4.7 for a play of rank index ``k``."""
        h = self._hand
        cfg = self._cfg
        n = self._n
        p = h.to_play
        card = min(c for c in h.hands[p] if rank_of(c) == k)
        h.hands[p].remove(card)
        h.plays.append((p, card))
        self._event(None, f"{_p(p)} plays {_fmt(card)}")
        joined = False
        if h.chain is not None:
            if h.chain.rank == k:
                h.chain.cards.append(card)
                h.chain.seats.append(p)
                level = "recau" if len(h.chain.cards) == 3 else "contracau"
                self._event(None, f"{_p(p)} makes a {level}")
                h.last_play = _LastPlay(p, card, True)
                joined = True
                if len(h.chain.cards) == 4:
                    self._finalize_chain()
            else:
                self._finalize_chain()
        if not joined:
            match = next((c for c in h.table if rank_of(c) == k), None)
            last = h.last_play
            if match is None:
                robbed = [
                    q
                    for q in ((p + i) % n for i in range(1, n))
                    if h.piles[q] and rank_of(h.piles[q][-1]) == k
                ]
                if cfg["direct_pile_match"] and robbed:
                    if cfg["multi_pile_same_rank"] == "first_only":
                        robbed = robbed[:1]
                    first: list[int] = []
                    for q in robbed:
                        first += h.piles[q]
                        h.piles[q] = []
                    self._event(
                        None,
                        f"{_p(p)} matches the pile of " + ", ".join(_p(q) for q in robbed),
                    )
                    self._execute_capture(k, p, first + [card])
                    self._net_check(p)
                    h.last_play = _LastPlay(p, card, True)
                else:
                    h.table = sorted(h.table + [card])
                    h.last_play = _LastPlay(p, card, False)
            elif (
                cfg["cau_enabled"]
                and last is not None
                and not last.captured
                and rank_of(last.card) == k
            ):
                h.table.remove(match)
                h.chain = _Chain(k, [match, card], [last.seat, p])
                self._event(None, f"{_p(p)} calls cau on {_fmt(match)}")
                h.last_play = _LastPlay(p, card, True)
            else:
                self._execute_capture(k, p, [match, card])
                self._net_check(p)
                h.last_play = _LastPlay(p, card, True)
        h.to_play = (p + 1) % n
        if not any(h.hands):
            self._end_hand()

    def _end_hand(self) -> None:
        """Rules §5: settle a pending chain, the leftovers, the hand winner, the match."""
        h = self._hand
        cfg = self._cfg
        n = self._n
        if h.chain is not None:
            self._finalize_chain()
        if h.table and cfg["leftover_table_cards"] == "last_capturer":
            if h.last_capturer is not None:
                self._event(None, f"leftovers {_text(h.table)} go to {_p(h.last_capturer)}")
                h.piles[h.last_capturer] += h.table
                h.table = []
        sizes = [len(pile) for pile in h.piles]
        best = max(sizes)
        top = [q for q in range(n) if sizes[q] == best]
        if len(top) == 1 or cfg["hand_tie"] == "shared":
            winners = top
        else:
            winners = []
        for q in winners:
            self._hands_won[q] += 1
        self._past.append({"dealer": h.dealer, "pile_sizes": sizes, "winners": list(winners)})
        self._event(
            None,
            f"hand {h.index} over: pile sizes {' '.join(map(str, sizes))}; winners "
            + (" ".join(_p(q) for q in winners) or "none"),
        )
        target = cfg["hands_to_win"]
        reached = [q for q in range(n) if self._hands_won[q] >= target]
        if not reached and h.index + 1 < cfg["max_hands"]:
            self._start_hand(h.index + 1, (h.dealer + 1) % n)
            return
        h.over = True
        self._terminal = True
        self._winners = reached
        self._event(
            None,
            "match over: " + (" ".join(_p(q) for q in reached) + " win" if reached else "draw"),
        )

    # ---------------------------------------------------------------- actions --------------

    def _legal_actions(self) -> list[int]:
        if self._terminal:
            return []
        h = self._hand
        return sorted({rank_of(c) for c in h.hands[h.to_play]})

    def _illegal_note(self) -> str:
        return f": {_p(self._hand.to_play)} holds no card of that rank"

    def _action_string(self, action: int) -> str:
        a = self._action_id(action)
        return f"play {RANKS[a]}"

    def _string_action(self, text: str) -> int:
        words = text.split()
        if len(words) == 2 and words[0].lower() == "play" and words[1] in map(str, RANKS):
            return RANKS.index(int(words[1]))
        raise ParseError(
            f"not a cau_robat action: {shown(text)} (expected 'play <rank>' with a rank among "
            f"{' '.join(map(str, RANKS))})"
        )

    # ---------------------------------------------------------------- returns --------------

    def returns(self) -> list[float]:
        n = self._n
        winners = self._winners
        if not self._terminal or not winners or len(winners) == n:
            return [0.0] * n
        k = len(winners)
        return [1.0 / k if q in winners else -1.0 / (n - k) for q in range(n)]

    # ---------------------------------------------------------------- observations ---------

    def _to_play(self) -> int | None:
        return None if self._terminal or self._chance is not None else self._hand.to_play

    def _phase(self) -> str:
        return "over" if self._terminal else "chance" if self._chance is not None else "play"

    def _view(self, viewer: int | None) -> dict[str, Any]:
        h = self._hand
        n = self._n
        chain = h.chain
        last = h.last_play
        return {
            "game": GAME_NAME,
            "viewer": viewer,
            "players": n,
            "hand": h.index,
            "dealer": h.dealer,
            "phase": self._phase(),
            "to_play": self._to_play(),
            "hands": [
                _fmt_many(h.hands[q]) if viewer is None or viewer == q else None for q in range(n)
            ],
            "hand_sizes": [len(cards) for cards in h.hands],
            "table": _fmt_many(h.table),
            "piles": [_fmt_many(pile) for pile in h.piles],
            "chain": None
            if chain is None
            else {
                "rank": RANKS[chain.rank],
                "cards": _fmt_many(chain.cards),
                "seats": list(chain.seats),
            },
            "last_play": None
            if last is None
            else {"seat": last.seat, "card": _fmt(last.card), "captured": last.captured},
            "last_capturer": h.last_capturer,
            "hands_won": list(self._hands_won),
            "past_hands": json_copy(self._past),
            "winners": None if self._winners is None else list(self._winners),
        }

    def _observation_tensor(self, seat: int) -> npt.NDArray[np.float32]:
        h = self._hand
        n = self._n
        tensor = TensorBlocks(self._game.observation_tensor_shape())
        out, block = tensor.out, tensor.block

        def rel(q: int) -> int:
            return (q - seat) % n

        b = block(2)
        if self._chance is None:  # no phase bit while cards are dealt
            out[b + (1 if self._terminal else 0)] = 1
        b = block(MAX_SEATS)
        to_play = self._to_play()
        if to_play is not None:
            out[b + rel(to_play)] = 1
        b = block(5 * NUM_RANKS)
        own = [0] * NUM_RANKS
        for card in h.hands[seat]:
            own[rank_of(card)] += 1
        for k in range(NUM_RANKS):
            out[b + 5 * k + own[k]] = 1
        b = block(NUM_RANKS)
        for card in h.table:
            out[b + rank_of(card)] = 1
        b = block(22 * MAX_SEATS)
        for q in range(n):
            base = b + 22 * rel(q)
            pile = h.piles[q]
            out[base] = len(pile) / 40.0
            if pile:
                out[base + 1 + rank_of(pile[-1])] = 1
            else:
                out[base + 11] = 1
            counts = [0] * NUM_RANKS
            for card in pile:
                counts[rank_of(card)] += 1
            for k in range(NUM_RANKS):
                out[base + 12 + k] = counts[k] / 4.0
        b = block(MAX_SEATS)
        for q in range(n):
            out[b + rel(q)] = len(h.hands[q]) / 12.0
        b = block(23)
        chain = h.chain
        if chain is not None:
            out[b] = 1
            out[b + 1 + chain.rank] = 1
            out[b + 11 + (len(chain.cards) - 2)] = 1
            for q in chain.seats:
                out[b + 13 + rel(q)] = 1
            out[b + 18 + rel(chain.seats[-1])] = 1
        b = block(16)
        last = h.last_play
        if last is not None:
            out[b + rel(last.seat)] = 1
            out[b + 5 + rank_of(last.card)] = 1
            out[b + 15] = 1 if last.captured else 0
        b = block(6)
        out[b + rel(h.dealer)] = 1
        out[b + 5] = len(h.plays) / 36.0
        b = block(6)
        target = float(self._cfg["hands_to_win"])
        for q in range(n):
            out[b + rel(q)] = self._hands_won[q] / target
        out[b + 5] = target / 100.0
        b = block(NUM_RANKS)
        seen = list(h.hands[seat]) + list(h.table) + [c for pile in h.piles for c in pile]
        if chain is not None:
            seen += chain.cards
        unseen = [4] * NUM_RANKS
        for card in seen:
            unseen[rank_of(card)] -= 1
        for k in range(NUM_RANKS):
            out[b + k] = unseen[k] / 4.0
        return tensor.done()

    def _render_view(self, view: dict[str, Any]) -> str:
        return _render(view)

    def _describe(self) -> str:
        return f"hand={self._hand.index} to_play={self._to_play()}"

    # ---------------------------------------------------------------- determinisation ------

    def _resample(self, seat: int, sampler: SplitMix64) -> CauRobatState:
        """A state that ``seat`` cannot tell from this one (docs/engine.md, Determinisation).

        The other players' unplayed cards of the current hand are re-dealt among them, each
        keeping his hand size and every card he was seen to play this hand.  A play shows the
        lowest card id of its rank in the player's hand, so a player who played a card of a rank
        held no lower card of that rank then, nor since: an unplayed card only goes to a player
        whose plays of its rank all have lower ids.  The hand's deck is rebuilt (table cards
        first, then the hands in the canonical dealing order), earlier hands are kept, and the
        history is replayed unchanged.
        """
        h = self._hand
        n = self._n
        deck = list(h.deck)
        others = [q for q in range(n) if q != seat]
        # sorted: drawn in the true hands' order, a world and its seed would give them back
        hidden = sorted(c for q in others for c in h.hands[q])
        if hidden:
            played: list[list[int]] = [[] for _ in range(n)]
            for q, card in h.plays:
                played[q].append(card)
            floor = [[-1] * NUM_RANKS for _ in range(n)]
            for q in range(n):
                for card in played[q]:
                    floor[q][rank_of(card)] = max(floor[q][rank_of(card)], card)

            def allowed(card: int, q: int) -> bool:
                return card > floor[q][rank_of(card)]

            room = {q: len(h.hands[q]) for q in others}
            assignment = _assign(hidden, room, allowed, sampler)
            dealt: list[list[int]] = [[] for _ in range(n)]
            _, rest = deal_table(h.deck, n)
            for i, card in enumerate(rest):
                dealt[deal_seat(h.dealer, i, n)].append(card)
            for q in others:
                cards = played[q] + [c for c in hidden if assignment[c] == q]
                sampler.shuffle(cards)
                dealt[q] = cards
            taken = [0] * n
            deck = list(h.dealt_table)
            for i in range(NUM_CARDS - len(deck)):
                q = deal_seat(h.dealer, i, n)
                deck.append(dealt[q][taken[q]])
                taken[q] += 1
        return self._replayed(deck)


_ASSIGN_TRIES = 10_000  # plain shuffles before the approximate placement of _assign


def _assign(
    cards: list[int], room: dict[int, int], allowed: Any, rng: SplitMix64
) -> dict[int, int]:
    """A random placement of ``cards`` into seats with ``room[q]`` free places each, every card
    going to a seat where ``allowed(card, seat)``.

    Uniform among those placements: plain shuffles dealt out in seat order, the first whose
    every card may be where it lands (rejection; a shuffle gives every placement alike).  After
    ``_ASSIGN_TRIES`` of them (seen only on placements built to be tight, in a unit test; never
    in 405 resamples of played hands) an approximate draw: the most
    constrained cards are placed first, each into an allowed seat drawn with probability
    proportional to its free room; if that gets stuck, a maximum matching by augmenting paths
    (in random order).  The true deal is a valid placement, so one always exists.
    """
    seats = sorted(room)
    order = list(cards)
    placed: dict[int, int] = {}
    for _ in range(_ASSIGN_TRIES):
        rng.shuffle(order)
        placed.clear()
        at = 0
        for q in seats:
            placed.update((c, q) for c in order[at : at + room[q]])
            at += room[q]
        if all(allowed(c, q) for c, q in placed.items()):
            return placed
    rng.shuffle(order)
    options = {c: [q for q in seats if allowed(c, q)] for c in order}
    order.sort(key=lambda c: len(options[c]))  # stable: random among equally constrained
    free = dict(room)
    placed.clear()
    for card in order:
        choices = [q for q in options[card] if free[q] > 0]
        if not choices:
            break
        pick = rng.below(sum(free[q] for q in choices))
        for q in choices:
            if pick < free[q]:
                placed[card] = q
                free[q] -= 1
                break
            pick -= free[q]
    else:
        return placed
    # Matching: one unit per free place, cards matched by augmenting paths.
    units = [q for q in seats for _ in range(room[q])]
    rng.shuffle(units)
    holder: list[int | None] = [None] * len(units)

    def augment(card: int, seen: set[int]) -> bool:
        for u, q in enumerate(units):
            if u in seen or q not in options[card]:
                continue
            seen.add(u)
            other = holder[u]
            if other is None or augment(other, seen):
                holder[u] = card
                return True
        return False

    for card in order:
        if not augment(card, set()):
            raise AssertionError("no placement of the hidden cards exists")
    return {card: units[u] for u, card in enumerate(holder) if card is not None}


def _render(v: dict[str, Any]) -> str:
    """A readable picture of the table from a view."""
    n = v["players"]
    who = "full view" if v["viewer"] is None else f"seen by P{v['viewer']}"
    to_play = "-" if v["to_play"] is None else f"P{v['to_play']}"
    lines = [
        f"Cau Robat ({who}): hand {v['hand']}, dealer P{v['dealer']}, phase {v['phase']}, "
        f"to play {to_play}",
        f"table: {' '.join(v['table']) or '-'}",
    ]
    chain = v["chain"]
    if chain is not None:
        level = {2: "cau", 3: "recau"}.get(len(chain["cards"]), "chain")
        members = ", ".join(f"P{s} {c}" for s, c in zip(chain["seats"], chain["cards"]))
        lines.append(f"pending {level} on {chain['rank']}: {members}")
    last = v["last_play"]
    if last is not None:
        how = "captured" if last["captured"] else "on the table"
        lines.append(f"last play: P{last['seat']} {last['card']} ({how})")
    for q in range(n):
        hand = v["hands"][q]
        shown = " ".join(hand) if hand is not None else f"({v['hand_sizes'][q]} cards)"
        pile = v["piles"][q]
        top = pile[-1] if pile else "-"
        lines.append(
            f"  P{q}: {shown:<36} pile {len(pile):>2} top {top:<3} won {v['hands_won'][q]}"
        )
    for i, past in enumerate(v["past_hands"]):
        winners = " ".join(f"P{q}" for q in past["winners"]) or "none"
        sizes = " ".join(map(str, past["pile_sizes"]))
        lines.append(f"  hand {i}: dealer P{past['dealer']}, piles {sizes}, won by {winners}")
    if v["winners"] is not None:
        lines.append("  match: " + (" ".join(f"P{q}" for q in v["winners"]) or "draw"))
    return "\n".join(lines)
