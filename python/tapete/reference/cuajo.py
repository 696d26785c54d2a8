"""Cuajo: the pure-Python reference model.

Written from the rules documents only (``shared/rules/cuajo.md``, ``docs/rules/cuajo.md``,
``docs/engine.md`` and ``shared/design/api.md``); it is clear rather than fast.  It is the second,
independent implementation that the Rust engine is tested against.

A game is a *match* of ``hands_per_match`` hands (one by default).  Everything that happens
without a decision (the shuffle and the deal, the stock draw and whether it is shown, the purro
update at the end of a turn with the default options, the extra draws of the final payment, the
next deal) happens inside ``apply_action`` or when the state is created, so every non-terminal
state is a decision node of one player, except with ``explicit_chance``: then the first dealer
(when random) and every card taken from the deck (the 61 dealt, the sowee, each stock draw and
each extra draw of the final payment) are chance nodes whose outcome is a kind (rules §8.2).

Cards are the 28 kinds ``id = 7 * suit + rank`` (suits ``O C E B``, ranks ``A 3 4 5 J H K``),
four identical copies of each: every rule works on counts per kind (lists of 28 ints).  Hand
evaluation is the simple recursive search of rules §4.2 (cover the lowest kind present first),
memoised on the counts.
"""

from __future__ import annotations

import bisect
import copy
import functools
import math
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from itertools import accumulate, combinations, product
from typing import Any

import numpy as np
import numpy.typing as npt

from tapete.errors import IllegalActionError, ParseError
from tapete.reference._base import (
    TERMINAL,
    ReferenceGame,
    ReferenceState,
    TensorBlocks,
    boolean,
    choice,
    first_dealer,
    int_in,
    json_copy,
    merge_config,
)
from tapete.reference._base import seat_name as _p
from tapete.reference._text import shown
from tapete.reference.cards import CUAJO
from tapete.reference.rng import MASK64, SplitMix64

__all__ = [
    "CLAIM",
    "CuajoGame",
    "CuajoState",
    "DRAW",
    "KINGS",
    "MARKER_BASE",
    "NO_PURRO",
    "NUM_DISTINCT_ACTIONS",
    "OBSERVATION_SIZE",
    "PASS",
    "PURRO",
    "SECRET_BASE",
    "SOWEE_BASE",
    "TAKE",
    "TERMINAL",
    "WIN",
    "arrangement",
    "deal_seat",
    "has_companions",
    "is_complete",
    "partitionable",
    "special_hand",
    "waits",
]

GAME_NAME = "cuajo"
NUM_PLAYERS = 4
NUM_KINDS = 28
COPIES = 4
PACK_SIZE = NUM_KINDS * COPIES  # 112
ACE, THREE, FOUR, FIVE, JACK, HORSE, KING = range(7)
KINGS = (6, 13, 20, 27)  # KO KC KE KB
COIN = -1  # a purro marker that is a coin

DEALT = 61  # deck positions 0..60 go to the players
SOWEE_POS = 61
STOCK_START = 62
STOCK_SIZE = PACK_SIZE - STOCK_START  # 50

# Action ids (docs/rules/cuajo.md, "Actions").
DISCARD_BASE = 0
SECRET_BASE = 28
SOWEE_BASE = 56
DRAW = 84
TAKE = 85
WIN = 86
CLAIM = 87
PASS = 88
MARKER_BASE = 89
PURRO = 93
NO_PURRO = 94
NUM_DISTINCT_ACTIONS = 95

OBSERVATION_SIZE = 1443
PHASES = ("opening", "draw", "drawer_option", "claim", "action", "purro_call", "marker", "over")

Counts = list[int]


# ----------------------------------------------------------------------------------------------
# Cards
# ----------------------------------------------------------------------------------------------


def suit_of(card: int) -> int:
    """Suit index of a kind (0 coins, 1 cups, 2 swords, 3 batons)."""
    return card // 7


def rank_of(card: int) -> int:
    """Rank index of a kind (0 ace, 1 three, ... 6 king)."""
    return card % 7


def is_king(card: int) -> bool:
    """Whether the kind is a king."""
    return rank_of(card) == KING


def _fmt(card: int) -> str:
    return CUAJO.to_string(card)


def _expand(counts: Sequence[int]) -> list[int]:
    """The kinds of ``counts`` with repeats, ascending."""
    return [t for t in range(NUM_KINDS) for _ in range(counts[t])]


def _fmt_counts(counts: Sequence[int]) -> list[str]:
    return [_fmt(t) for t in _expand(counts)]


def _text(cards: Iterable[int]) -> str:
    return " ".join(_fmt(c) for c in cards) or "-"


def _counts(cards: Iterable[int]) -> Counts:
    out = [0] * NUM_KINDS
    for c in cards:
        out[c] += 1
    return out


def _plus(a: Sequence[int], b: Sequence[int]) -> Counts:
    return [x + y for x, y in zip(a, b)]


# ----------------------------------------------------------------------------------------------
# Hand evaluation (rules §4)
# ----------------------------------------------------------------------------------------------


@functools.lru_cache(maxsize=1 << 20)
def _partitionable(counts: tuple[int, ...], quad_ok: bool, triple: int) -> bool:
    """Rules §4.2: can ``counts`` be split into combinations?

    Cover the lowest kind ``t`` present: every kind below it is empty, so a combination holding
    ``t`` uses ``t`` with higher suits of its rank (sets) or the next ranks of its suit (a
    sequence starting at ``t``).  ``quad_ok``: four identical cards are a combination (undeclared
    quads); ``triple``: the kind whose three copies are a combination (the sowee with
    ``sowee_triple_undeclared_valid``), or -1.
    """
    t = next((i for i, n in enumerate(counts) if n), -1)
    if t < 0:
        return True
    s, r = divmod(t, 7)

    def without(cards: Sequence[int]) -> bool:
        rest = list(counts)
        for c in cards:
            rest[c] -= 1
        return _partitionable(tuple(rest), quad_ok, triple)

    if r == KING:  # a king alone is always a combination
        return without([t])
    if quad_ok and counts[t] >= 4 and without([t] * 4):
        return True
    if t == triple and counts[t] >= 3 and without([t] * 3):
        return True
    higher = [7 * q + r for q in range(s + 1, 4) if counts[7 * q + r] > 0]
    for k in (2, 3):  # sets of 3 or 4 cards of distinct suits
        for others in combinations(higher, k):
            if without([t, *others]):
                return True
    if r in (THREE, JACK) and counts[t + 1] > 0 and counts[t + 2] > 0:
        if without([t, t + 1, t + 2]):
            return True
    return False


def partitionable(counts: Sequence[int], quad_ok: bool = True, triple: int = -1) -> bool:
    """Whether the cards with per-kind ``counts`` split into combinations (rules §4.2)."""
    return _partitionable(tuple(int(n) for n in counts), quad_ok, triple)


def _arrange(counts: tuple[int, ...], quad_ok: bool, triple: int) -> list[list[int]] | None:
    """One split of ``counts`` into combinations (the first the §4.2 search finds), or None."""
    if not _partitionable(counts, quad_ok, triple):
        return None
    t = next((i for i, n in enumerate(counts) if n), -1)
    if t < 0:
        return []
    s, r = divmod(t, 7)
    options: list[list[int]] = []
    if r == KING:
        options.append([t])
    else:
        if quad_ok and counts[t] >= 4:
            options.append([t] * 4)
        if t == triple and counts[t] >= 3:
            options.append([t] * 3)
        higher = [7 * q + r for q in range(s + 1, 4) if counts[7 * q + r] > 0]
        for k in (2, 3):
            options += [[t, *others] for others in combinations(higher, k)]
        if r in (THREE, JACK) and counts[t + 1] > 0 and counts[t + 2] > 0:
            options.append([t, t + 1, t + 2])
    for group in options:
        rest = list(counts)
        for c in group:
            rest[c] -= 1
        tail = _arrange(tuple(rest), quad_ok, triple)
        if tail is not None:
            return [group, *tail]
    raise AssertionError("partitionable but no arrangement found")


def has_companions(card: int, counts: Sequence[int]) -> bool:
    """Rules §5.5: ``counts`` hold the companions of ``card``.

    For an ace, aces of two suits other than its own (different from each other); for any other
    card, the two other cards of its sequence (3-4-5 or J-H-K) in its suit.
    """
    s, r = divmod(card, 7)
    if r == ACE:
        return sum(1 for q in range(4) if q != s and counts[7 * q] > 0) >= 2
    group = (THREE, FOUR, FIVE) if r in (THREE, FOUR, FIVE) else (JACK, HORSE, KING)
    return all(counts[7 * s + g] > 0 for g in group if g != r)


def special_hand(pool: Sequence[int], committed: Sequence[int], quad_ok: bool, triple: int) -> bool:
    """Rules §4.5: no king among the 16 cards, or exactly one, which can be in its J-H-K."""
    final = _plus(pool, committed)
    kings = [k for k in KINGS for _ in range(final[k])]
    if not kings:
        return True
    if len(kings) > 1:
        return False
    k = kings[0]
    if pool[k] < 1 or pool[k - 1] < 1 or pool[k - 2] < 1:
        return False
    rest = list(pool)
    for c in (k - 2, k - 1, k):
        rest[c] -= 1
    return partitionable(rest, quad_ok, triple)


# ---------------------------------------------------------------- public evaluators ----------


def _parse_cards(cards: object, size: int, limits: Sequence[int]) -> Counts:
    if isinstance(cards, (str, bytes)) or not isinstance(cards, Iterable):
        raise ParseError(f"expected a list of cuajo cards, got {shown(cards)}")
    ids = CUAJO.parse_many(list(cards))
    if len(ids) != size:
        raise ValueError(f"expected {size} cards, got {len(ids)}")
    counts = _counts(ids)
    for t in range(NUM_KINDS):
        if counts[t] > limits[t]:
            raise ValueError(f"at most {limits[t]} copies of {_fmt(t)} exist, got {counts[t]}")
    return counts


def is_complete(cards: Sequence[str]) -> bool:
    """Whether 16 cards (no declared secrets, default options) form a complete hand."""
    return partitionable(_parse_cards(cards, 16, [COPIES] * NUM_KINDS))


def arrangement(cards: Sequence[str]) -> list[list[str]] | None:
    """One split of 16 cards into combinations (groups ascending, in lexicographic order)."""
    counts = _parse_cards(cards, 16, [COPIES] * NUM_KINDS)
    groups = _arrange(tuple(counts), True, -1)
    if groups is None:
        return None
    return [[_fmt(c) for c in g] for g in sorted(sorted(g) for g in groups)]


def waits(cards: Sequence[str], sowee: str | None = None) -> list[str]:
    """The waits of 15 cards, ascending (only three copies of the sowee's kind exist)."""
    w = -1 if sowee is None else CUAJO.parse(sowee)
    limits = [3 if t == w else COPIES for t in range(NUM_KINDS)]
    counts = _parse_cards(cards, 15, limits)
    return [_fmt(t) for t in _waits_of(counts, [0] * NUM_KINDS, w, True, -1, None)]


def _waits_of(
    pool: Sequence[int],
    committed: Sequence[int],
    sowee: int,
    quad_ok: bool,
    triple: int,
    unavailable: Sequence[int] | None,
) -> list[int]:
    """Rules §4.4: the kinds still available that complete the 15 cards ``pool + committed``.

    ``unavailable`` counts further copies that cannot be drawn (``dead_waits_count = false``).
    """
    out = []
    for t in range(NUM_KINDS):
        left = (3 if t == sowee else COPIES) - pool[t] - committed[t]
        if unavailable is not None:
            left -= unavailable[t]
        if left <= 0:
            continue
        trial = list(pool)
        trial[t] += 1
        if partitionable(trial, quad_ok, triple):
            out.append(t)
    return out


# ----------------------------------------------------------------------------------------------
# Configuration (docs/rules/cuajo.md, "Configuration")
# ----------------------------------------------------------------------------------------------

_DEFAULTS: dict[str, Any] = {
    "first_dealer": "random",
    "dealer_after_wash": "same",
    "dealer_natural_win": True,
    "empty_stock": "last_discard_then_wash",
    "max_turns": 300,
    "may_rediscard_taken_card": True,
    "undeclared_quad_valid": True,
    "sowee_triple_undeclared_valid": False,
    "secret_payment": 50,
    "secret_on_winning_turn": True,
    "secret_kind_public": False,
    "purro_call": "forced",
    "purro_marker": "lowest_type",
    "dead_waits_count": True,
    "purro_loss_penalty_turns": 2,
    "penalty_draws_claimable": True,
    "claim_priority": "drawer_then_turn_order",
    "king_basis": "winner",
    "king_coins": 50,
    "king_other": 20,
    "special_hand": 300,
    "special_flat": True,
    "bonus_full": 110,
    "bonus_r1": 60,
    "bonus_r2": 70,
    "bonus_none": 20,
    "bonus_mode": "table",
    "r2_needs_sowee_copy": True,
    "extra_draw": 15,
    "returns": "team",
    "hands_per_match": 1,
}
_CHOICES: dict[str, tuple[str, ...]] = {
    "dealer_after_wash": ("same", "next"),
    "empty_stock": ("last_discard_then_wash", "immediate_wash"),
    "purro_call": ("forced", "optional"),
    "purro_marker": ("lowest_type", "player_choice"),
    "claim_priority": ("drawer_then_turn_order",),
    "king_basis": ("winner", "payer"),
    "bonus_mode": ("table", "additive"),
    "returns": ("team", "individual"),
}
_RANGES: dict[str, tuple[int, int]] = {
    "max_turns": (1, 10000),
    "secret_payment": (0, 100000),
    "purro_loss_penalty_turns": (0, 100),
    "king_coins": (0, 100000),
    "king_other": (0, 100000),
    "special_hand": (0, 100000),
    "bonus_full": (0, 100000),
    "bonus_r1": (0, 100000),
    "bonus_r2": (0, 100000),
    "bonus_none": (0, 100000),
    "extra_draw": (0, 50),
    "hands_per_match": (1, 1000),
}


def _validate_config(raw: dict[str, Any]) -> dict[str, Any]:
    merged = merge_config(GAME_NAME, raw, _DEFAULTS)
    cfg: dict[str, Any] = {}
    for key, value in merged.items():
        if key == "first_dealer":
            cfg[key] = first_dealer(value, NUM_PLAYERS)
        elif key in _CHOICES:
            cfg[key] = choice(key, value, _CHOICES[key])
        elif key in _RANGES:
            cfg[key] = int_in(key, value, *_RANGES[key])
        else:
            cfg[key] = boolean(key, value)
    return {key: cfg[key] for key in _DEFAULTS}


def deal_seat(dealer: int, i: int) -> int:
    """Seat receiving deck position ``i`` (0..60) of the deal (docs/rules/cuajo.md)."""
    if i < 21:
        offset = 3 if i >= 15 else i // 5
    else:
        offset = ((i - 21) % 20) // 5
    return (dealer + 1 + offset) % NUM_PLAYERS


# ----------------------------------------------------------------------------------------------
# Game
# ----------------------------------------------------------------------------------------------


class CuajoGame(ReferenceGame["CuajoState"]):
    """A Cuajo match (one hand by default) with a fixed configuration."""

    _name = GAME_NAME
    _pack = CUAJO
    _defaults = _DEFAULTS
    _num_actions = NUM_DISTINCT_ACTIONS
    _max_chance_outcomes = NUM_KINDS

    def _validate(self, raw: dict[str, Any]) -> dict[str, Any]:
        return _validate_config(raw)

    def _new_state(self, seed: int, given: list[list[int]]) -> CuajoState:
        return CuajoState(self, seed, given)

    def num_players(self) -> int:
        return NUM_PLAYERS

    def observation_tensor_shape(self) -> tuple[int, ...]:
        return (OBSERVATION_SIZE,)

    def max_game_length(self) -> int:
        return int(self._cfg["hands_per_match"]) * (12 * int(self._cfg["max_turns"]) + 12)

    def _utility_bounds(self) -> tuple[float, float]:
        cfg = self._cfg
        # A hand: at most four secrets a seat, paid by both opponents; a win paid by both
        # opponents at most the special hand or all 16 kings with the largest bonus.
        kings = 4 * cfg["king_coins"] + 12 * cfg["king_other"]
        if cfg["bonus_mode"] == "table":
            bonus = max(cfg["bonus_full"], cfg["bonus_r1"], cfg["bonus_r2"], cfg["bonus_none"])
        else:
            bonus = max(cfg["bonus_full"], cfg["bonus_none"] + cfg["bonus_r1"] + cfg["bonus_r2"])
        special = cfg["special_hand"] + (0 if cfg["special_flat"] else kings)
        win = max(special, kings + bonus)
        secret = cfg["secret_payment"]
        if cfg["returns"] == "team":
            most = least = 16 * secret + 2 * win
        else:
            most, least = 8 * secret + 2 * win, 8 * secret + win
        hands = cfg["hands_per_match"]
        return (float(0 - least * hands), float(most * hands))


# ----------------------------------------------------------------------------------------------
# Final payment (rules §5.5, Appendix A)
# ----------------------------------------------------------------------------------------------


def _requirements(
    final: Sequence[int], card: int, sowee: int, extra: Sequence[int], cfg: dict[str, Any]
) -> tuple[bool, bool]:
    """R1 and R2 of rules §5.5 for the winner's 16 cards ``final`` (counts) and winning ``card``,
    the extra draws ``extra`` counting as if in the hand."""
    cards = _plus(final, _counts(extra))
    others = list(cards)
    others[card] -= 1
    one = has_companions(card, others)
    need_copy = bool(cfg["r2_needs_sowee_copy"])
    two = (cards[sowee] > 0 or not need_copy) and has_companions(sowee, cards)
    return one, two


def wants_extra_draw(
    pool: Sequence[int],
    committed: Sequence[int],
    card: int | None,
    source: str,
    sowee: int,
    extra: Sequence[int],
    stock_left: int,
    cfg: dict[str, Any],
) -> bool:
    """Whether the winner turns up another stock card (rules §5.5 step 3), after the extra draws
    ``extra``, with ``stock_left`` cards in the stock: a discard or claim win of a hand that is
    not special, while R1 and R2 do not both hold, below ``extra_draw`` cards."""
    if source in ("stock", "natural") or card is None:
        return False
    quad_ok = bool(cfg["undeclared_quad_valid"])
    triple = sowee if cfg["sowee_triple_undeclared_valid"] else -1
    if special_hand(pool, committed, quad_ok, triple):
        return False
    r1, r2 = _requirements(_plus(pool, committed), card, sowee, extra, cfg)
    return not (r1 and r2) and len(extra) < int(cfg["extra_draw"]) and stock_left > 0


@dataclass
class Settlement:
    """The end-of-hand payment of a win."""

    special: bool
    r1: bool | None
    r2: bool | None
    bonus: int  # per opponent for the final card (0 for a special hand)
    extra_draws: list[int]
    per_opponent: dict[int, int]  # seat -> cents it pays the winner


def settle(
    winner: int,
    pool: Sequence[int],
    committed: Sequence[int],
    card: int | None,
    source: str,
    sowee: int,
    stock: Sequence[int],
    opponents_cards: dict[int, Sequence[int]],
    cfg: dict[str, Any],
) -> Settlement:
    """The payment of each opponent of ``winner`` (rules §5.5).

    ``pool``/``committed``: the winner's 16 cards (counts); ``card``: the winning card (None for
    a natural win); ``stock``: the stock, top first (extra draws come from it);
    ``opponents_cards``: each opponent's own cards (counts), for ``king_basis = "payer"``.
    """
    quad_ok = bool(cfg["undeclared_quad_valid"])
    triple = sowee if cfg["sowee_triple_undeclared_valid"] else -1
    final = _plus(pool, committed)

    def kings_value(counts: Sequence[int]) -> int:
        value = 0
        for k in KINGS:
            each = cfg["king_coins"] if suit_of(k) == 0 else cfg["king_other"]
            value += int(each) * counts[k]
        return value

    if special_hand(pool, committed, quad_ok, triple):
        amount = int(cfg["special_hand"])
        if not cfg["special_flat"]:
            amount += kings_value(final)
        return Settlement(True, None, None, 0, [], {o: amount for o in opponents_cards})
    r1: bool | None = None
    r2: bool | None = None
    extra: list[int] = []
    if source in ("stock", "natural"):
        bonus = int(cfg["bonus_full"])
    else:
        assert card is not None
        while wants_extra_draw(
            pool, committed, card, source, sowee, extra, len(stock) - len(extra), cfg
        ):
            extra.append(stock[len(extra)])
        r1, r2 = _requirements(final, card, sowee, extra, cfg)
        if cfg["bonus_mode"] == "additive":
            bonus = int(cfg["bonus_none"]) + int(cfg["bonus_r1"]) * r1 + int(cfg["bonus_r2"]) * r2
        elif r1 and r2:
            bonus = int(cfg["bonus_full"])
        elif r1:
            bonus = int(cfg["bonus_r1"])
        elif r2:
            bonus = int(cfg["bonus_r2"])
        else:
            bonus = int(cfg["bonus_none"])
    per: dict[int, int] = {}
    for o, cards in opponents_cards.items():
        kings = kings_value(final if cfg["king_basis"] == "winner" else cards)
        per[o] = kings + bonus
    return Settlement(False, r1, r2, bonus, extra, per)


# ----------------------------------------------------------------------------------------------
# State
# ----------------------------------------------------------------------------------------------


@dataclass
class _Secret:
    kind: str  # "normal" or "sowee"
    card: int  # the kind of the four cards (normal) or of the three sowee copies
    extra: int | None = None  # a sowee secret's extra card


@dataclass
class _Hand:
    """Everything about the hand under way (or the last hand, at the end of the match)."""

    index: int
    dealer: int
    deck: list[int]
    sowee: int | None  # None while the deal is under way
    pos: int = STOCK_START  # deck position of the top of the stock
    concealed: list[Counts] = field(default_factory=list)
    secrets: list[list[_Secret]] = field(default_factory=list)
    known: list[Counts] = field(default_factory=list)
    discards: list[list[Any]] = field(default_factory=list)  # [seat, card, taken_by]
    purro: list[bool] = field(default_factory=lambda: [False] * NUM_PLAYERS)
    marker: list[int | None] = field(default_factory=lambda: [None] * NUM_PLAYERS)
    penalty: list[int] = field(default_factory=lambda: [0] * NUM_PLAYERS)
    balances: list[int] = field(default_factory=lambda: [0] * NUM_PLAYERS)
    phase: str = "opening"
    to_play: int = 0  # the seat that decides now
    current: int = 0  # the seat whose turn it is
    claimants: list[int] = field(default_factory=list)  # claimants still to decide, in order
    last_draw: tuple[int, int, bool] | None = None  # (seat, card, shown)
    draws: list[tuple[int, int, bool]] = field(default_factory=list)  # (position, seat, shown)
    source: str | None = None  # how the 16th card came this turn: "stock" or "discard"
    got: int | None = None  # that card
    taken: int | None = None  # kind taken from the pile this turn
    secret_this_turn: bool = False
    empty_take: bool = False  # took the last discard with the stock empty
    turn: int = 0
    marker_event: str = ""  # during a marker decision: "calls purro, marker" or "marker"
    # The end of the hand while the winner turns up extra cards: (reason, winner, source, card).
    ending: tuple[str, int | None, str | None, int | None] | None = None
    extra: list[int] = field(default_factory=list)  # the extra draws so far


class CuajoState(ReferenceState):
    """A Cuajo match in progress.  Create it with ``CuajoGame.new_initial_state``."""

    _game: CuajoGame

    def __init__(self, game: CuajoGame, seed: int, given_decks: list[list[int]]) -> None:
        super().__init__(game, seed, given_decks)
        self._totals: list[int] = [0] * NUM_PLAYERS
        self._past: list[dict[str, Any]] = []
        self._result: dict[str, Any] | None = None
        self._hand: _Hand
        # During a marker decision (hidden from the other seats): the hand as it was before the
        # action that brought it, and that action's public events, which the others get with
        # the chosen marker.
        self._hidden: tuple[_Hand, list[str]] | None = None
        self._begin()

    def _first_deal(self, dealer: int) -> None:
        self._start_hand(0, dealer)

    # ---------------------------------------------------------------- rules helpers --------

    @property
    def _quad_ok(self) -> bool:
        return bool(self._cfg["undeclared_quad_valid"])

    @property
    def _sowee(self) -> int:
        """The sowee (dealt before any decision of the hand)."""
        sowee = self._hand.sowee
        assert sowee is not None
        return sowee

    @property
    def _triple(self) -> int:
        return self._sowee if self._cfg["sowee_triple_undeclared_valid"] else -1

    def _extra(self, s: int) -> int | None:
        for secret in self._hand.secrets[s]:
            if secret.kind == "sowee":
                return secret.extra
        return None

    def _pool(self, s: int) -> Counts:
        """Rules §3.1: the cards still to be arranged (hand and sowee-secret extra card)."""
        pool = list(self._hand.concealed[s])
        extra = self._extra(s)
        if extra is not None:
            pool[extra] += 1
        return pool

    def _committed(self, s: int) -> Counts:
        """The cards of the seat's secrets (four of a normal one, the three sowee copies)."""
        out = [0] * NUM_KINDS
        for secret in self._hand.secrets[s]:
            out[secret.card] += 4 if secret.kind == "normal" else 3
        return out

    def _all_cards(self, s: int) -> Counts:
        return _plus(self._pool(s), self._committed(s))

    def _size(self, s: int) -> int:
        return sum(self._hand.concealed[s]) + 4 * len(self._hand.secrets[s])

    def _partitionable(self, pool: Sequence[int]) -> bool:
        return partitionable(pool, self._quad_ok, self._triple)

    def _complete(self, s: int) -> bool:
        return self._size(s) == 16 and self._partitionable(self._pool(s))

    def _completed_by(self, s: int, card: int) -> bool:
        pool = self._pool(s)
        pool[card] += 1
        return self._partitionable(pool)

    def _shown_held(self, q: int) -> Counts:
        """Copies of each kind publicly known to be among ``q``'s cards: the taken discards and
        shown draws it still holds (``known``), and its face-up marker king, which may be one
        of those, so it makes at least one copy of its kind, not one more."""
        h = self._hand
        shown = list(h.known[q])
        marker = h.marker[q]
        if marker is not None and marker != COIN:
            shown[marker] = max(shown[marker], 1)
        return shown

    def _waits(self, s: int) -> list[int]:
        h = self._hand
        unavailable: Counts | None = None
        if not self._cfg["dead_waits_count"]:
            unavailable = [0] * NUM_KINDS
            for _, card, taken_by in h.discards:
                if taken_by is None:
                    unavailable[card] += 1
            for q in range(NUM_PLAYERS):
                if q != s:
                    unavailable = _plus(unavailable, self._shown_held(q))
        return _waits_of(
            self._pool(s), self._committed(s), self._sowee, self._quad_ok, self._triple, unavailable
        )

    def _top_discard(self) -> int | None:
        h = self._hand
        if h.discards and h.discards[-1][2] is None:
            return int(h.discards[-1][1])
        return None

    def _stock_size(self) -> int:
        return PACK_SIZE - self._hand.pos

    # ---------------------------------------------------------------- hand flow ------------

    def _start_hand(self, index: int, dealer: int) -> None:
        """The deal: 61 cards in the canonical order, then the sowee (rules §2, §8.2)."""
        deck = self._draw_deck(index)
        h = _Hand(index=index, dealer=dealer, deck=deck, sowee=None)
        h.concealed = [[0] * NUM_KINDS for _ in range(NUM_PLAYERS)]
        h.secrets = [[] for _ in range(NUM_PLAYERS)]
        h.known = [[0] * NUM_KINDS for _ in range(NUM_PLAYERS)]
        h.phase = "opening"
        h.to_play = h.current = dealer
        self._hand = h
        self._await_card("_deal_card")

    def _deal_card(self, card: int) -> None:
        h = self._hand
        i = self._drawn - 1  # deck position
        if i < DEALT:
            h.concealed[deal_seat(h.dealer, i)][card] += 1
            self._await_card("_deal_card")
            return
        h.sowee = card
        self._event(None, f"hand {h.index}: dealer {_p(h.dealer)}, sowee {_fmt(card)}")
        for q in range(NUM_PLAYERS):
            self._event(q, f"{_p(q)} is dealt {_text(_expand(h.concealed[q]))}")

    def _sees_position(self, seat: int, k: int) -> bool:
        h = self._hand
        if k < DEALT:
            return deal_seat(h.dealer, k) == seat
        for pos, q, face_up in h.draws:
            if pos == k:
                return face_up or q == seat
        return True  # the sowee and the extra draws are face up

    def _pay(self, to: int, amounts: dict[int, int]) -> None:
        h = self._hand
        for payer, amount in amounts.items():
            h.balances[payer] -= amount
            h.balances[to] += amount
            self._totals[payer] -= amount
            self._totals[to] += amount

    @staticmethod
    def _opponents(s: int) -> list[int]:
        return [(s + 1) % NUM_PLAYERS, (s + 3) % NUM_PLAYERS]

    def _enter_action(self, c: int) -> None:
        h = self._hand
        h.phase = "action"
        h.to_play = h.current = c
        h.claimants = []
        self._end_if_dead(c)

    def _plays(self, c: int) -> list[int]:
        """What ``c`` may do at the opening or in the action phase (rules 3.3): discard a
        non-king, lay a secret (four identical cards, or the sowee's three and another card),
        win."""
        hand = self._hand.concealed[c]
        out = [DISCARD_BASE + t for t in self._discard_options(c)]
        out += [
            SECRET_BASE + t
            for t in range(NUM_KINDS)
            if hand[t] == 4 and self._secret_allowed(c, t, 4)
        ]
        sowee = self._sowee
        if hand[sowee] == 3 and self._secret_allowed(c, sowee, 3):
            out += [SOWEE_BASE + x for x in range(NUM_KINDS) if x != sowee and hand[x] >= 1]
        if self._win_allowed(c):
            out.append(WIN)
        return sorted(out)

    def _secret_allowed(self, c: int, kind: int, count: int) -> bool:
        """After taking the last discard from an empty stock the turn ends in the win (rules
        3.3: "only DECLARE_WIN, optionally preceded by secret declarations"): only secrets
        (``count`` cards of ``kind`` laid down) after which the hand is complete and may win."""
        h = self._hand
        if not h.empty_take:
            return True
        if not self._cfg["secret_on_winning_turn"]:
            return False
        pool = self._pool(c)
        pool[kind] -= count
        return self._partitionable(pool)

    def _end_if_dead(self, c: int) -> None:
        """Rules A-45: a player who may neither discard, lay a secret nor win ends the hand as
        a wash at once (left with kings, secrets, a sowee secret's extra card and, without
        ``may_rediscard_taken_card``, the card he took).  A deal is never dead: a dealer with
        nothing to discard holds all sixteen kings, four secrets."""
        if not self._discard_options(c) and not self._plays(c):  # discards first: cheap
            self._event(None, f"{_p(c)} can neither discard, lay a secret nor win: dead hand")
            self._end_hand("dead_hand")

    def _start_turn(self, c: int) -> None:
        h = self._hand
        h.phase = "draw"
        h.to_play = h.current = c
        h.last_draw = None
        h.source = h.got = h.taken = None
        h.secret_this_turn = False
        h.empty_take = False
        h.claimants = []

    def _draw(self, c: int) -> None:
        """``draw``: the top stock card is a chance node (rules §3.2 STOCK_CARD)."""
        self._await_card("_stock_card")

    def _stock_card(self, x: int) -> None:
        h = self._hand
        c = h.current
        pos = h.pos
        h.pos += 1
        shown = any(h.purro) or h.penalty[c] > 0
        h.concealed[c][x] += 1
        h.last_draw = (c, x, shown)
        h.draws.append((pos, c, shown))
        h.source, h.got = "stock", x
        if shown:
            h.known[c][x] += 1
            self._event(None, f"{_p(c)} draws {_fmt(x)} (shown)")
        else:
            self._event(None, f"{_p(c)} draws a card")
            self._event(c, f"{_p(c)} draws {_fmt(x)}")
        eligible: list[int] = []
        if shown and (self._cfg["penalty_draws_claimable"] or h.penalty[c] == 0):
            for q in ((c + 1) % 4, (c + 2) % 4, (c + 3) % 4):
                if h.purro[q] and h.penalty[q] == 0 and self._completed_by(q, x):
                    eligible.append(q)
        if not eligible:
            self._enter_action(c)
        elif h.penalty[c] == 0 and self._complete(c):
            h.phase = "drawer_option"
            h.to_play = c
            h.claimants = eligible
        else:
            h.phase = "claim"
            h.to_play = eligible[0]
            h.claimants = eligible

    def _discard(self, c: int, t: int) -> None:
        h = self._hand
        h.concealed[c][t] -= 1
        h.discards.append([c, t, None])
        h.known[c][t] = max(0, h.known[c][t] - 1)
        self._event(None, f"{_p(c)} discards {_fmt(t)}")
        self._end_turn(c)

    def _end_turn(self, s: int) -> None:
        """After a discard: the purro update (rules §3.3 END_TURN), then the turn ends."""
        h = self._hand
        if h.penalty[s] > 0:
            h.penalty[s] -= 1
        elif h.purro[s]:
            if not self._waits(s):
                h.purro[s] = False
                h.marker[s] = None
                h.penalty[s] = int(self._cfg["purro_loss_penalty_turns"])
                self._event(None, f"{_p(s)} loses purro (penalty {h.penalty[s]})")
            elif h.marker[s] is None:  # the marker king went into a secret this turn
                self._place_marker(s, "marker")
                return
        elif self._cfg["purro_call"] == "optional":
            h.phase = "purro_call"
            h.to_play = s
            return
        elif self._waits(s):
            self._call_purro(s)
            return
        self._finish_turn(s)

    def _call_purro(self, s: int) -> None:
        self._hand.purro[s] = True
        self._place_marker(s, "calls purro, marker")

    def _place_marker(self, s: int, what: str) -> None:
        """Rules 5.3, at the end of the turn of ``s`` (a purro call, or his marker king gone
        into a secret): with ``player_choice`` and kings of two or more suits in hand, his
        decision; otherwise at once his lowest king (his only suit), or a coin."""
        h = self._hand
        kings = [k for k in KINGS if h.concealed[s][k] > 0]
        if self._cfg["purro_marker"] == "player_choice" and len(kings) >= 2:
            h.phase = "marker"
            h.to_play = s
            h.marker_event = what
            self._event(s, f"{_p(s)} chooses a marker")
            return
        h.marker[s] = kings[0] if kings else COIN
        self._event(None, f"{_p(s)} {what} {_marker_text(h.marker[s])}")
        self._finish_turn(s)

    def _finish_turn(self, s: int) -> None:
        h = self._hand
        h.turn += 1
        if h.turn >= int(self._cfg["max_turns"]):
            self._event(None, f"turn limit {h.turn} reached")
            self._end_hand("turn_limit")
        elif self._cfg["empty_stock"] == "immediate_wash" and self._stock_size() == 0:
            self._event(None, "the stock is empty")
            self._end_hand("empty_stock")
        else:
            self._start_turn((s + 1) % NUM_PLAYERS)

    def _fix_marker(self, s: int) -> None:
        """A marker king gone into a secret: the lowest king left in hand, or a coin; with
        ``player_choice`` none until the end of the turn, where it is placed as at a call."""
        h = self._hand
        marker = h.marker[s]
        if h.purro[s] and marker is not None and marker != COIN and h.concealed[s][marker] == 0:
            if self._cfg["purro_marker"] == "player_choice":
                h.marker[s] = None
                self._event(None, f"{_p(s)} takes back the marker")
                return
            kings = [k for k in KINGS if h.concealed[s][k] > 0]
            h.marker[s] = kings[0] if kings else COIN
            self._event(None, f"{_p(s)} marker {_marker_text(h.marker[s])}")

    def _declare_secret(self, c: int, secret: _Secret) -> None:
        h = self._hand
        if secret.kind == "normal":
            h.concealed[c][secret.card] -= 4
            self._event(c, f"{_p(c)} lays the secret {_text([secret.card] * 4)}")
        else:
            assert secret.extra is not None
            h.concealed[c][secret.card] -= 3
            h.concealed[c][secret.extra] -= 1
            self._event(
                c,
                f"{_p(c)} lays the sowee secret {_text([secret.card] * 3)} "
                f"with {_fmt(secret.extra)}",
            )
        h.secrets[c].append(secret)
        kind = f" ({secret.kind})" if self._cfg["secret_kind_public"] else ""
        self._event(None, f"{_p(c)} declares a secret{kind}")
        amount = int(self._cfg["secret_payment"])
        self._pay(c, {o: amount for o in self._opponents(c)})
        h.secret_this_turn = True
        self._fix_marker(c)
        self._end_if_dead(c)

    def _win(self, w: int, source: str, card: int | None) -> None:
        self._event(
            None,
            f"{_p(w)} wins ({source}" + ("" if card is None else f", {_fmt(card)}") + ")",
        )
        self._end_hand("win", w, source, card)

    def _end_hand(
        self,
        reason: str,
        winner: int | None = None,
        source: str | None = None,
        card: int | None = None,
    ) -> None:
        """The hand is over: the winner's extra draws (rules §5.5), then ``_close_hand``."""
        h = self._hand
        h.ending = (reason, winner, source, card)
        h.extra = []
        self._extra_or_close()

    def _extra_or_close(self) -> None:
        h = self._hand
        assert h.ending is not None
        _, winner, source, card = h.ending
        if (
            winner is not None
            and source is not None
            and wants_extra_draw(
                self._pool(winner),
                self._committed(winner),
                card,
                source,
                self._sowee,
                h.extra,
                self._stock_size(),
                self._cfg,
            )
        ):
            self._await_card("_extra_card")  # each turned-up card is a public chance node
            return
        self._close_hand()

    def _extra_card(self, x: int) -> None:
        h = self._hand
        h.pos += 1
        h.extra.append(x)
        self._event(None, f"extra draw {_fmt(x)}")
        self._extra_or_close()

    def _close_hand(self) -> None:
        """Payments, the result, then the next hand or the end of the match."""
        h = self._hand
        cfg = self._cfg
        assert h.ending is not None
        reason, winner, source, card = h.ending
        payments = [0] * NUM_PLAYERS
        special = False
        r1: bool | None = None
        r2: bool | None = None
        bonus = 0
        extra: list[int] = []
        if winner is not None:
            assert source is not None
            result = settle(
                winner,
                self._pool(winner),
                self._committed(winner),
                card,
                source,
                self._sowee,
                h.extra,  # the cards turned up: settle turns up the same ones
                {o: self._all_cards(o) for o in self._opponents(winner)},
                cfg,
            )
            special, r1, r2, bonus, extra = (
                result.special,
                result.r1,
                result.r2,
                result.bonus,
                result.extra_draws,
            )
            assert extra == h.extra
            for o, amount in result.per_opponent.items():
                payments[o] -= amount
                payments[winner] += amount
            self._pay(winner, result.per_opponent)
        hands = [_fmt_counts(self._all_cards(q)) for q in range(NUM_PLAYERS)]
        self._result = {
            "winner": winner,
            "source": source,
            "reason": reason,
            "card": None if card is None else _fmt(card),
            "special": special,
            "r1": r1,
            "r2": r2,
            "bonus": bonus,
            "extra_draws": [_fmt(x) for x in extra],
            "payments": payments,
            "hands": hands,
        }
        self._past.append(
            {"dealer": h.dealer, "winner": winner, "source": source, "balances": list(h.balances)}
        )
        self._event(
            None,
            f"hand {h.index} over ({reason}): payments {' '.join(map(str, payments))}; "
            f"balances {' '.join(map(str, h.balances))}",
        )
        for q in range(NUM_PLAYERS):
            secrets = "; ".join(
                _text([s.card] * (4 if s.kind == "normal" else 3))
                + ("" if s.extra is None else f" + {_fmt(s.extra)}")
                for s in h.secrets[q]
            )
            self._event(
                None,
                f"{_p(q)} shows {_text(_expand(h.concealed[q]))}"
                + (f" | secrets {secrets}" if secrets else ""),
            )
        if h.index + 1 < int(cfg["hands_per_match"]):
            if winner is not None:
                dealer = winner
            elif cfg["dealer_after_wash"] == "same":
                dealer = h.dealer
            else:
                dealer = (h.dealer + 1) % NUM_PLAYERS
            self._start_hand(h.index + 1, dealer)
            return
        self._terminal = True
        h.phase = "over"
        self._event(None, f"match over: totals {' '.join(map(str, self._totals))}")

    # ---------------------------------------------------------------- actions --------------

    def _discard_options(self, c: int) -> list[int]:
        h = self._hand
        if h.empty_take:
            return []
        out = []
        for t in range(NUM_KINDS):
            if is_king(t) or h.concealed[c][t] < 1:
                continue
            if t == h.taken and not self._cfg["may_rediscard_taken_card"]:
                continue
            out.append(t)
        return out

    def _win_allowed(self, c: int) -> bool:
        h = self._hand
        if h.penalty[c] > 0:
            return False
        if h.phase == "opening" and not self._cfg["dealer_natural_win"]:
            return False
        if h.secret_this_turn and not self._cfg["secret_on_winning_turn"]:
            return False
        return self._complete(c)

    def _legal_actions(self) -> list[int]:
        if self._terminal:
            return []
        h = self._hand
        c = h.to_play
        phase = h.phase
        if phase in ("opening", "action"):
            return self._plays(c)
        if phase == "draw":
            top = self._top_discard()
            assert top is not None
            if self._stock_size() > 0:
                return [DRAW, TAKE]
            if h.penalty[c] == 0 and self._completed_by(c, top):
                return [TAKE, PASS]
            return [PASS]
        if phase == "drawer_option":
            return [WIN, PASS]
        if phase == "claim":
            return [CLAIM, PASS]
        if phase == "purro_call":
            return ([PURRO] if self._waits(c) else []) + [NO_PURRO]
        if phase == "marker":
            return [MARKER_BASE + suit_of(k) for k in KINGS if h.concealed[c][k] > 0]
        raise AssertionError(f"unknown phase {phase}")

    def _apply(self, action: int) -> None:
        h = self._hand
        c = h.to_play
        before: _Hand | None = None
        if (
            self._cfg["purro_marker"] == "player_choice"
            and (action < SECRET_BASE or action == PURRO)
            and sum(1 for k in KINGS if h.concealed[c][k] > 0) >= 2
        ):
            before = copy.deepcopy(h)  # this action may bring a marker decision
        logged = len(self._events)
        self._play(action)
        if before is not None and self._hand.phase == "marker":
            # Hidden from the others: they get this action's public events with the marker.
            deferred = []
            for i in range(logged, len(self._events)):
                seat, text = self._events[i]
                if seat is None:
                    self._events[i] = (c, text)
                    deferred.append(text)
            self._hidden = (before, deferred)

    def _play(self, action: int) -> None:
        h = self._hand
        c = h.to_play
        phase = h.phase
        if action < SECRET_BASE:
            self._discard(c, action - DISCARD_BASE)
        elif action < SOWEE_BASE:
            self._declare_secret(c, _Secret("normal", action - SECRET_BASE))
        elif action < DRAW:
            self._declare_secret(c, _Secret("sowee", self._sowee, action - SOWEE_BASE))
        elif action == DRAW:
            self._draw(c)
        elif action == TAKE:
            top = self._top_discard()
            assert top is not None
            h.discards[-1][2] = c
            h.concealed[c][top] += 1
            h.known[c][top] += 1
            h.source, h.got, h.taken = "discard", top, top
            h.empty_take = self._stock_size() == 0
            self._event(None, f"{_p(c)} takes {_fmt(top)}")
            self._enter_action(c)
        elif action == WIN:
            if phase == "opening":
                self._win(c, "natural", None)
            else:
                assert h.source is not None
                self._win(c, h.source, h.got)
        elif action == CLAIM:
            drawer = h.current
            x = h.got
            assert x is not None
            h.concealed[drawer][x] -= 1
            h.concealed[c][x] += 1
            self._event(None, f"{_p(c)} claims {_fmt(x)} from {_p(drawer)}")
            self._win(c, "claim", x)
        elif action == PASS:
            if phase == "draw":
                self._event(None, f"{_p(c)} passes: the stock is empty")
                self._end_hand("empty_stock")
            elif phase == "drawer_option":
                assert h.got is not None
                self._event(c, f"{_p(c)} could win with {_fmt(h.got)}: passes")
                self._next_claimant()
            else:
                assert h.got is not None
                self._event(c, f"{_p(c)} could claim {_fmt(h.got)}: passes")
                h.claimants.pop(0)
                self._next_claimant()
        elif action < PURRO:
            assert self._hidden is not None
            for text in self._hidden[1]:
                for q in range(NUM_PLAYERS):
                    if q != c:
                        self._event(q, text)
            self._hidden = None
            h.marker[c] = KINGS[action - MARKER_BASE]
            self._event(None, f"{_p(c)} {h.marker_event} {_marker_text(h.marker[c])}")
            self._finish_turn(c)
        elif action == PURRO:
            self._call_purro(c)
        else:
            self._event(None, f"{_p(c)} does not call purro")
            self._finish_turn(c)

    def _next_claimant(self) -> None:
        h = self._hand
        if h.claimants:
            h.phase = "claim"
            h.to_play = h.claimants[0]
        else:
            self._enter_action(h.current)

    def _action_string(self, action: int) -> str:
        a = self._action_id(action)
        if a < SECRET_BASE:
            return f"discard {_fmt(a - DISCARD_BASE)}"
        if a < SOWEE_BASE:
            return f"secret {_fmt(a - SECRET_BASE)}"
        if a < DRAW:
            return f"sowee-secret {_fmt(a - SOWEE_BASE)}"
        if a < MARKER_BASE:
            return ("draw", "take", "win", "claim", "pass")[a - DRAW]
        if a < PURRO:
            return f"marker {_fmt(KINGS[a - MARKER_BASE])}"
        return "purro" if a == PURRO else "no-purro"

    def _string_action(self, text: str) -> int:
        words = text.split()
        expected = (
            "expected draw, take, win, claim, pass, purro, no-purro, discard <card>, "
            "secret <card>, sowee-secret <card> or marker <king>"
        )
        if len(words) == 1:
            simple = {"draw": DRAW, "take": TAKE, "win": WIN, "claim": CLAIM, "pass": PASS}
            simple.update({"purro": PURRO, "no-purro": NO_PURRO})
            word = words[0].lower()
            if word in simple:
                return simple[word]
        elif len(words) == 2:
            base = {"discard": DISCARD_BASE, "secret": SECRET_BASE, "sowee-secret": SOWEE_BASE}
            word = words[0].lower()
            if word in base or word == "marker":
                try:
                    card = CUAJO.parse(words[1])
                except ParseError as err:
                    raise ParseError(f"not a cuajo action: {shown(text)} ({err})") from None
                if word != "marker":
                    return base[word] + card
                if is_king(card):
                    return MARKER_BASE + suit_of(card)
                raise ParseError(f"not a cuajo action: {shown(text)} (a marker is a king)")
        raise ParseError(f"not a cuajo action: {shown(text)} ({expected})")

    # ---------------------------------------------------------------- returns --------------

    def returns(self) -> list[float]:
        t = self._totals
        if self._cfg["returns"] == "team":
            return [float(t[q] + t[(q + 2) % NUM_PLAYERS]) for q in range(NUM_PLAYERS)]
        return [float(x) for x in t]

    # ---------------------------------------------------------------- observations ---------

    def _to_play(self) -> int | None:
        return None if self._terminal or self._chance is not None else self._hand.to_play

    def _seen_turn(self, viewer: int | None) -> tuple[str, int | None]:
        """Phase and seat to play as ``viewer`` sees them: the decision to win or claim after a
        draw is shown only to its decider; the others see the drawer in his action phase."""
        h = self._hand
        if self._terminal:
            return "over", None
        if self._chance is not None:
            return "chance", None
        if h.phase in ("drawer_option", "claim") and viewer is not None and viewer != h.to_play:
            return "action", h.current
        return h.phase, h.to_play

    def _seen_last_draw(self, viewer: int | None) -> tuple[int, int | None, bool] | None:
        h = self._hand
        if h.last_draw is None:
            return None
        seat, card, shown = h.last_draw
        visible = shown or viewer is None or viewer == seat or self._terminal
        return seat, card if visible else None, shown

    def _masked_for(self, viewer: int | None) -> CuajoState:
        """The state as ``viewer`` sees it: during another seat's marker decision, the table as
        it was before the action that brought the decision (docs/rules/cuajo.md, Purro)."""
        if self._hidden is None or viewer is None or viewer == self._hand.to_play:
            return self
        seen = copy.copy(self)
        seen._hand, seen._hidden = self._hidden[0], None
        return seen

    def _before_hidden_action(self, seat: int) -> CuajoState | None:
        if self._masked_for(seat) is self:
            return None
        return self._replayed(list(self._hand.deck), len(self._history) - 1)

    def _view(self, viewer: int | None) -> dict[str, Any]:
        masked = self._masked_for(viewer)
        if masked is not self:
            return masked._view(viewer)
        h = self._hand
        everything = viewer is None or self._terminal
        phase, to_play = self._seen_turn(viewer)
        last = self._seen_last_draw(viewer)
        top = self._top_discard()
        kind_public = bool(self._cfg["secret_kind_public"])

        def secret_view(q: int, s: _Secret) -> dict[str, Any]:
            if everything or viewer == q:
                count = 4 if s.kind == "normal" else 3
                return {
                    "kind": s.kind,
                    "cards": [_fmt(s.card)] * count,
                    "extra": None if s.extra is None else _fmt(s.extra),
                }
            return {"kind": s.kind if kind_public else None, "cards": None, "extra": None}

        return {
            "game": GAME_NAME,
            "viewer": viewer,
            "hand": h.index,
            "dealer": h.dealer,
            "phase": phase,
            "to_play": to_play,
            "sowee": None if h.sowee is None else _fmt(h.sowee),
            "stock_size": self._stock_size(),
            "discards": [
                {"seat": seat, "card": _fmt(card), "taken_by": taken_by}
                for seat, card, taken_by in h.discards
            ],
            "top_discard": None if top is None else _fmt(top),
            "concealed": [
                _fmt_counts(h.concealed[q]) if everything or viewer == q else None
                for q in range(NUM_PLAYERS)
            ],
            "secrets": [[secret_view(q, s) for s in h.secrets[q]] for q in range(NUM_PLAYERS)],
            "known": [_fmt_counts(h.known[q]) for q in range(NUM_PLAYERS)],
            "hand_sizes": [self._size(q) for q in range(NUM_PLAYERS)],
            "purro": list(h.purro),
            "marker": [_marker_view(m) for m in h.marker],
            "penalty": list(h.penalty),
            "last_draw": None
            if last is None
            else {
                "seat": last[0],
                "card": None if last[1] is None else _fmt(last[1]),
                "shown": last[2],
            },
            "turn": h.turn,
            "balances": list(h.balances),
            "totals": list(self._totals),
            "result": json_copy(self._result),
            "past_hands": json_copy(self._past),
        }

    def _observation_tensor(self, seat: int) -> npt.NDArray[np.float32]:
        masked = self._masked_for(seat)
        if masked is not self:
            return masked._observation_tensor(seat)
        h = self._hand
        tensor = TensorBlocks(self._game.observation_tensor_shape())
        out, block = tensor.out, tensor.block

        def rel(q: int) -> int:
            return (q - seat) % NUM_PLAYERS

        def thermometer(start: int, counts: Sequence[int]) -> None:
            for t in range(NUM_KINDS):
                for k in range(min(counts[t], 4)):
                    out[start + 4 * t + k] = 1

        phase, to_play = self._seen_turn(seat)
        b = block(len(PHASES))
        if phase in PHASES:  # no phase bit at a chance node
            out[b + PHASES.index(phase)] = 1
        b = block(4)
        if to_play is not None:
            out[b + rel(to_play)] = 1
        b = block(4)
        out[b + rel(h.dealer)] = 1
        b = block(112)
        thermometer(b, h.concealed[seat])
        b = block(112)
        thermometer(b, self._committed(seat))
        b = block(NUM_KINDS)
        extra = self._extra(seat)
        if extra is not None:
            out[b + extra] = 1
        b = block(NUM_KINDS)
        if h.sowee is not None:
            out[b + h.sowee] = 1
        b = block(NUM_KINDS + 1)
        top = self._top_discard()
        out[b + (NUM_KINDS if top is None else top)] = 1
        b = block(NUM_KINDS + 1)
        last = self._seen_last_draw(seat)
        seen_card = None if last is None else last[1]
        out[b + (NUM_KINDS if seen_card is None else seen_card)] = 1
        b = block(4 * 112)
        discarded = [[0] * NUM_KINDS for _ in range(NUM_PLAYERS)]
        for q, card, _ in h.discards:
            discarded[q][card] += 1
        for q in range(NUM_PLAYERS):
            thermometer(b + 112 * rel(q), discarded[q])
        b = block(4 * 112)
        for q in range(NUM_PLAYERS):
            thermometer(b + 112 * rel(q), h.known[q])
        b = block(112)
        seen = self._all_cards(seat)
        if h.sowee is not None:
            seen[h.sowee] += 1
        for _, card, taken_by in h.discards:
            if taken_by is None:
                seen[card] += 1
        for q in range(NUM_PLAYERS):
            if q != seat:
                seen = _plus(seen, h.known[q])
        thermometer(b, seen)
        b = block(4 * 15)
        for q in range(NUM_PLAYERS):
            base = b + 15 * rel(q)
            out[base + min(len(h.secrets[q]), 4)] = 1
            out[base + 5] = 1 if h.purro[q] else 0
            marker = h.marker[q]
            index = 0 if marker is None else 1 if marker == COIN else 2 + suit_of(marker)
            out[base + 6 + index] = 1
            out[base + 12 + min(h.penalty[q], 2)] = 1
        b = block(11)
        stock = self._stock_size()
        for k in range(1, 11):
            out[b + k - 1] = 1 if stock >= 5 * k else 0
        out[b + 10] = stock / 50.0
        b = block(4)
        for q in range(NUM_PLAYERS):
            out[b + rel(q)] = h.balances[q] / 1000.0
        b = block(1)
        out[b] = h.turn / float(self._cfg["max_turns"])
        b = block(1)
        out[b] = h.index / float(self._cfg["hands_per_match"])
        b = block(4)
        for q in range(NUM_PLAYERS):
            out[b + rel(q)] = self._totals[q] / 1000.0
        return tensor.done()

    def _render_view(self, view: dict[str, Any]) -> str:
        return _render(view)

    def _describe(self) -> str:
        return f"hand={self._hand.index} phase={self._hand.phase} to_play={self._to_play()}"

    # ---------------------------------------------------------------- determinisation ------

    def _resample(self, seat: int, sampler: SplitMix64) -> CuajoState:
        """A state that ``seat`` cannot tell from this one, drawn uniformly among the worlds
        consistent with what it saw (docs/rules/cuajo.md, Determinisation), unless the work
        bounds below are reached first.

        Only the current deal is re-dealt (earlier hands of a match were shown at their end).
        A world is a deal of the deck positions ``seat`` has not seen together with the kinds
        of the other seats' secrets, which nobody else sees; the other seats' hidden decisions
        (a pass on a win or a claim, a marker decision) are redone as the new cards need.

        Proposal (exact, see ``_propose``): the secrets' kinds in proportion to the proposals
        they allow, then every card a seat must have held for a discard or a secret beyond the
        copies it was seen to receive at one of its unseen positions received before, uniformly,
        and the other unseen cards shuffled over the other unseen positions.  A deal arises
        from ``w`` such placements, so it is kept with probability ``1 / w``: every world is
        then proposed and kept with the same probability.  Cheap tests of the waits and
        markers seen reject most misfits before the replay, which keeps a world only if
        ``seat`` sees exactly the same in it.  At the end of a match the hands are shown, so
        each seat's unseen positions keep their cards as a set and are shuffled among
        themselves.  After ``_RESAMPLE_WORK`` proposals (or ``_RESAMPLE_REPLAYS`` replays)
        without a fit, as many again without the ``1 / w`` step, whose worlds come in
        proportion to ``w`` but are drawn from what ``seat`` knows; if none fits either, the
        hidden cards stay as they are and only the undrawn stock, which nothing has shown yet,
        is shuffled (docs/engine.md).
        """
        plan = self._analyse(seat)
        world = _propose(self, plan, sampler)
        if world is not None:
            return world
        deck = list(self._hand.deck)
        stock = [deck[p] for p in plan.stock]
        sampler.shuffle(stock)
        for p, card in zip(plan.stock, stock):
            deck[p] = card
        return self._replayed(deck)

    def _analyse(self, seat: int) -> _Plan:
        """What ``seat`` knows of the current deal: replays the history on the true deck and
        records, per other seat, the positions it received unseen and what its actions say of
        its cards, and, per action, what a new world needs to redo it."""
        h = self._hand
        others = {q: _Other(q) for q in range(NUM_PLAYERS) if q != seat}
        for pos in range(DEALT):
            q = deal_seat(h.dealer, pos)
            if q != seat:
                others[q].receive(pos)
        forced = self._cfg["purro_call"] == "forced"
        # With dead waits not counted, whether a hand waits also depends on the table: only
        # "it waits" is then a safe quick test (own holdings allow at least as many waits).
        own_waits = bool(self._cfg["dead_waits_count"])
        public_kind = bool(self._cfg["secret_kind_public"])
        sowee = self._sowee
        script: list[_Step] = []
        secrets: list[tuple[int, list[int]]] = []
        state = self._restarted(list(h.deck))
        for a in self._history:
            chance = state._chance is not None
            sh: _Hand | None = getattr(state, "_hand", None)
            current = sh is not None and sh.index == h.index
            if sh is None or not current:
                card = state._overriding_card()
                state.apply_action(a if card is None else card)
                script.append(_Step(a, chance, -1, "", False, -1, ()))
                continue
            actor = -1 if chance else sh.to_play
            phase = "" if chance else sh.phase
            drawn = len(sh.draws)
            marker = sh.marker[actor] if actor >= 0 else None
            purro, penalty = sh.purro[actor], sh.penalty[actor]
            top, got, drawer = state._top_discard(), sh.got, sh.current
            card = state._overriding_card()
            state.apply_action(a if card is None else card)
            for pos, q, face_up in sh.draws[drawn:]:
                if q != seat:
                    if face_up:
                        others[q].ops.append((_SEEN, sh.deck[pos], 0))
                    else:
                        others[q].receive(pos)
            hidden = actor not in (-1, seat) and (
                phase == "marker" or (phase in ("drawer_option", "claim") and a == PASS)
            )
            secret = -1
            if a == CLAIM and drawer != seat:
                assert got is not None
                others[drawer].ops.append((_USE, got, 1))
            if actor not in (-1, seat):
                o = others[actor]
                if phase in ("opening", "action") and a < SECRET_BASE:
                    o.ops.append((_USE, a - DISCARD_BASE, 1))
                    if penalty == 0 and (purro or forced) and (sh.purro[actor] or own_waits):
                        o.ops.append((_WAITS, int(sh.purro[actor]), 0))
                elif phase in ("opening", "action") and a < DRAW:
                    secret = len(secrets)
                    secrets.append((actor, self._secret_options(a, public_kind, sowee)))
                    o.ops.append((_SECRET, secret, 0))
                elif a == TAKE:
                    assert top is not None
                    o.ops.append((_SEEN, top, 0))
                elif a == CLAIM:
                    assert got is not None
                    o.ops.append((_SEEN, got, 0))
                elif a == PURRO:
                    o.ops.append((_WAITS, 1, 0))
                placed = sh.marker[actor]
                if placed is not None and placed != marker:
                    o.ops.append((_MARKER, placed, 0))
            script.append(_Step(a, chance, actor, phase, hidden, secret, tuple(sh.marker)))
        if self._terminal:  # every hand and secret has been shown
            secrets = [(q, [options[0]]) for q, options in secrets]
            if h.last_draw is not None and h.draws[-1][1] != seat:
                # and the last draw (the winning card of a stock win): its last position
                pos, q, _ = h.draws[-1]
                o = others[q]
                if o.positions and o.positions[-1] == pos:
                    o.positions.pop()
                    o.ops[o.ops.index((_POS, len(o.positions), 0))] = (_SEEN, h.deck[pos], 0)
        waiting = not self._terminal and self._chance is None and h.to_play != seat
        return _Plan(
            seat=seat,
            index=h.index,
            terminal=self._terminal,
            others=sorted(others.values(), key=_Other.rarity, reverse=True),
            stock=list(range(h.pos, PACK_SIZE)),
            secrets=secrets,
            script=script,
            stop_hidden=waiting and h.phase in _HIDDEN_PHASES,
            target=self._seen_by(seat),
        )

    def _secret_options(self, action: int, public_kind: bool, sowee: int) -> list[int]:
        """The secrets another seat's secret may be, as ``action - SECRET_BASE``: the true one
        first, then the others of its kind when the kind is shown, else of both kinds."""
        true = action - SECRET_BASE
        options = [true]
        for c in range(2 * NUM_KINDS):
            if c == true or c % NUM_KINDS == sowee:
                continue
            if public_kind and (c < NUM_KINDS) != (true < NUM_KINDS):
                continue
            options.append(c)
        return options

    def _world(self, deck: list[int], choices: Sequence[int], plan: _Plan) -> CuajoState | None:
        """The history replayed on ``deck`` with the other seats' secrets ``choices``, their
        hidden decisions redone: a pass on a win or a claim unless the true history shows that
        win or claim next, a marker decision showing the marker the true history showed.
        ``None`` when an action the viewer saw cannot be played."""
        state = self._restarted(deck)
        script, seat = plan.script, plan.seat
        n, i = len(script), 0
        try:
            while True:
                if state._chance is None and not state._terminal:
                    h = state._hand
                    d = h.to_play
                    if d != seat and h.index == plan.index and h.phase in _HIDDEN_PHASES:
                        j = i
                        while j < n and script[j].hidden:
                            j += 1
                        if j >= n and plan.stop_hidden:
                            break  # the true state waits for such a decision too
                        if h.phase == "marker":
                            step = script[i] if i < n else None
                            if step and step.hidden and step.phase == "marker" and step.actor == d:
                                state.apply_action(step.action)  # the same decision
                            else:
                                m = script[i - 1].markers[d]
                                if m is None or m == COIN:
                                    return None
                                state.apply_action(MARKER_BASE + suit_of(m))
                            continue
                        end = WIN if h.phase == "drawer_option" else CLAIM
                        if j < n and script[j].actor == d and script[j].action == end:
                            state.apply_action(end)
                            i = j + 1
                        else:
                            state.apply_action(PASS)
                        continue
                while i < n and script[i].hidden:
                    i += 1
                if i >= n:
                    break
                step = script[i]
                i += 1
                if step.chance != (state._chance is not None):
                    return None
                card = state._overriding_card()
                if card is not None:
                    state.apply_action(card)
                elif step.secret >= 0:
                    state.apply_action(SECRET_BASE + choices[step.secret])
                else:
                    state.apply_action(step.action)
        except IllegalActionError:
            return None
        return state


# ----------------------------------------------------------------------------------------------
# Determinisation (docs/rules/cuajo.md, "Determinisation")
# ----------------------------------------------------------------------------------------------

_HIDDEN_PHASES = ("drawer_option", "claim", "marker")
# Work bounds of one resample before the hidden cards are kept (about half a second): a
# proposal costs 1, each purro seat's cards drawn directly 1 more (they take about as long),
# and at most so many proposals pass the quick tests and are replayed.
_RESAMPLE_WORK = 20_000
_DIRECT_WORK = 1
_RESAMPLE_REPLAYS = 50
_MAX_SECRET_CHOICES = 4_000  # combined kinds of the hidden secrets weighed one by one

# What another seat's actions say of its cards, in the order they happened (``_Other.ops``):
_POS = 0  # (_POS, i, 0): it receives the card at its i-th unseen position
_SEEN = 1  # (_SEEN, t, 0): it receives a t the viewer saw (taken, shown draw, claimed)
_USE = 2  # (_USE, t, n): n copies of t leave its hand (a discard, the card claimed from it)
_SECRET = 3  # (_SECRET, j, 0): it lays the j-th hidden secret
_WAITS = 4  # (_WAITS, 1 or 0, 0): its cards had waits, or had none, at the end of its turn
_MARKER = 5  # (_MARKER, m, 0): its marker m (a king or COIN) was placed

_Op = tuple[int, int, int]

_ACES = (0, 7, 14, 21)
_LOWS = tuple(7 * s + r for s in range(4) for r in (THREE, FOUR, FIVE))
_HIGHS = tuple(7 * s + r for s in range(4) for r in (JACK, HORSE, KING))
_BLOCK_KINDS = (_ACES, _LOWS, _HIGHS)


@functools.cache
def _rank_table(quad_ok: bool, triple_suit: int) -> bytes:
    """For every pattern of one rank (its four suits' counts n0..n3, as n0 + 5 n1 + 25 n2 +
    125 n3): whether it splits into sets (three or four suits), quads when they count, and the
    three copies of suit ``triple_suit`` (-1: none)."""
    melds = [sum(5**s for s in suits) for size in (3, 4) for suits in combinations(range(4), size)]
    if quad_ok:
        melds += [4 * 5**s for s in range(4)]
    if triple_suit >= 0:
        melds.append(3 * 5**triple_suit)
    digits = [[(code // 5**s) % 5 for s in range(4)] for code in range(625)]
    ok = bytearray(625)
    ok[0] = 1
    for code in range(1, 625):  # a pattern less a meld has a lower code: already decided
        ok[code] = any(
            ok[code - m] and all(x >= y for x, y in zip(digits[code], digits[m])) for m in melds
        )
    return bytes(ok)


class _Blocks:
    """Completeness decided block by block, much faster than the search of rules §4.2 for the
    quick tests of a resample: no combination mixes the aces, the 3-4-5 and the J-H-K, so
    each block splits alone.  Once each suit's sequences are chosen, what is left of a rank
    must split into sets (a table of the 625 patterns of a rank); leftover kings stand alone."""

    def __init__(self, quad_ok: bool, triple: int) -> None:
        def triple_suit(rank: int) -> int:
            return suit_of(triple) if triple >= 0 and rank_of(triple) == rank else -1

        self._tables = [_rank_table(quad_ok, triple_suit(r)) for r in range(KING)]
        self._memo: list[dict[tuple[int, ...], bool]] = [{}, {}, {}]

    def _ok(self, block: int, key: tuple[int, ...]) -> bool:
        memo = self._memo[block]
        got = memo.get(key)
        if got is None:
            if len(memo) > 500_000:
                memo.clear()
            got = memo[key] = self._decide(block, key)
        return got

    def _decide(self, block: int, c: tuple[int, ...]) -> bool:
        tables = self._tables
        if block == 0:
            return bool(tables[ACE][c[0] + 5 * c[1] + 25 * c[2] + 125 * c[3]])
        low = THREE if block == 1 else JACK
        first, second = tables[low], tables[low + 1]
        third = tables[low + 2] if block == 1 else None  # kings may always stand alone
        most = [min(c[3 * s], c[3 * s + 1], c[3 * s + 2]) for s in range(4)]
        for runs in product(*(range(m + 1) for m in most)):  # sequences per suit
            if not first[sum((c[3 * s] - runs[s]) * 5**s for s in range(4))]:
                continue
            if not second[sum((c[3 * s + 1] - runs[s]) * 5**s for s in range(4))]:
                continue
            if third is None or third[sum((c[3 * s + 2] - runs[s]) * 5**s for s in range(4))]:
                return True
        return False

    def _waits(self, pool: Sequence[int], committed: Sequence[int], sowee: int) -> Iterator[int]:
        """The waits of ``pool`` (with ``committed`` in secrets), rules §4.4: the kinds its
        holder has fewer than all copies of whose one more card makes it split."""
        keys = (
            (pool[0], pool[7], pool[14], pool[21]),
            tuple([pool[t] for t in _LOWS]),
            tuple([pool[t] for t in _HIGHS]),
        )
        failing = [b for b in range(3) if not self._ok(b, keys[b])]
        if len(failing) > 1:
            return  # one more card mends one block at most
        for b in failing or (0, 1, 2):
            key = list(keys[b])
            for i, t in enumerate(_BLOCK_KINDS[b]):
                if (3 if t == sowee else COPIES) - pool[t] - committed[t] > 0:
                    key[i] += 1
                    if self._ok(b, tuple(key)):
                        yield t
                    key[i] -= 1

    def has_waits(self, pool: Sequence[int], committed: Sequence[int], sowee: int) -> bool:
        """Whether ``pool`` has a wait."""
        return any(True for _ in self._waits(pool, committed, sowee))

    def count_waits(self, pool: Sequence[int], committed: Sequence[int], sowee: int) -> int:
        """How many waits ``pool`` has."""
        return sum(1 for _ in self._waits(pool, committed, sowee))


@functools.cache
def _blocks(quad_ok: bool, triple: int) -> _Blocks:
    return _Blocks(quad_ok, triple)


@dataclass
class _Step:
    """One action of the true history, as a new world replays it."""

    action: int
    chance: bool
    actor: int  # the seat that decided; -1 for a chance outcome and in earlier deals
    phase: str
    hidden: bool  # another seat's decision the viewer does not see: redone, not replayed
    secret: int  # the index of the hidden secret it lays, or -1
    markers: tuple[int | None, ...]  # every seat's marker after it (current deal)


@dataclass
class _Other:
    """What the viewer knows of another seat's cards in the current deal."""

    seat: int
    positions: list[int] = field(default_factory=list)  # unseen, in the order received
    ops: list[_Op] = field(default_factory=list)  # what happened to its cards, in order

    def receive(self, pos: int) -> None:
        self.ops.append((_POS, len(self.positions), 0))
        self.positions.append(pos)

    def rarity(self) -> tuple[int, int]:
        """Seats a random deal rarely fits come first: hands seen with waits, then the most
        tests."""
        waits = sum(1 for op, a, _ in self.ops if op == _WAITS and a)
        return waits, sum(1 for op, _, _ in self.ops if op in (_USE, _SECRET, _WAITS, _MARKER))


@dataclass
class _Plan:
    """What a seat knows of the current deal (``CuajoState._analyse``)."""

    seat: int
    index: int  # of the current deal
    terminal: bool  # every hand has been shown
    others: list[_Other]  # in the order their cards are drawn
    stock: list[int]  # the undrawn positions
    secrets: list[tuple[int, list[int]]]  # per hidden secret: its seat, what it may be
    script: list[_Step]
    stop_hidden: bool  # the true state waits for another seat's hidden decision
    target: tuple[Any, ...]  # what the seat sees (``_seen_by``)


@dataclass
class _Layout:
    """The proposal for one choice of the hidden secrets."""

    choices: tuple[int, ...]  # per hidden secret: its action less SECRET_BASE
    needs: list[list[tuple[int, int]]]  # per other seat: (deadline, kind), by deadline
    pools: list[list[int]]  # cards to shuffle: one pool, or per seat and the stock (terminal)
    weight: int  # the proposals it allows: placements times arrangements of the pool


def _secret_uses(choice: int, sowee: int) -> list[tuple[int, int]]:
    """The cards a secret takes from the hand: four of a kind, or the sowee's three and the
    extra card."""
    if choice < NUM_KINDS:
        return [(choice, 4)]
    return [(sowee, 3), (choice - NUM_KINDS, 1)]


def _needs(other: _Other, choices: Sequence[int], sowee: int) -> list[tuple[int, int]]:
    """The cards ``other`` must have held beyond the copies it was seen to receive, each with
    its deadline (how many of its unseen positions it had received by then), by deadline.

    Seen copies cover the first uses after them: that leaves the fewest cards to place by
    every time, so a deal lets the needed cards be placed exactly when the holder had every
    card it used."""
    spare = [0] * NUM_KINDS
    received = 0
    out: list[tuple[int, int]] = []
    for op, a, b in other.ops:
        if op == _POS:
            received += 1
        elif op == _SEEN:
            spare[a] += 1
        elif op in (_USE, _SECRET):
            for t, n in [(a, b)] if op == _USE else _secret_uses(choices[a], sowee):
                covered = min(spare[t], n)
                spare[t] -= covered
                out += [(received, t)] * (n - covered)
    out.sort()
    return out


def _placements(need: Sequence[tuple[int, int]]) -> int:
    """How many ways the needed cards can be given distinct positions before their deadlines
    (taken by deadline, the k-th has ``deadline - k`` positions left); 0 if none."""
    ways = 1
    for k, (deadline, _) in enumerate(need):
        if deadline <= k:
            return 0
        ways *= deadline - k
    return ways


def _ways(need: Sequence[tuple[int, int]], cards: Sequence[int]) -> int:
    """How many placements of the needed cards give the seat's unseen ``cards``: the k-th
    needed copy of a kind goes to one of the copies before its deadline not yet used."""
    ways = 1
    used = [0] * NUM_KINDS
    for deadline, t in need:
        free = cards[:deadline].count(t) - used[t]
        if free <= 0:
            return 0  # it did not have the card in time
        ways *= free
        used[t] += 1
    return ways


def _layouts(state: CuajoState, plan: _Plan) -> list[_Layout]:
    """The proposals per choice of the hidden secrets, with positive weights; empty when
    there are too many choices to weigh."""
    deck = state._hand.deck
    sowee = state._sowee
    if plan.terminal:  # the hands are shown: each seat keeps its unseen cards as a set
        choices = tuple(options[0] for _, options in plan.secrets)
        needs, pools = [], []
        for o in plan.others:
            need = _needs(o, choices, sowee)
            pool = sorted(deck[p] for p in o.positions)  # not in the true order
            for _, t in need:
                pool.remove(t)
            needs.append(need)
            pools.append(pool)
        pools.append(sorted(deck[p] for p in plan.stock))  # not in the true order
        return [_Layout(choices, needs, pools, 1)]
    counts = _counts([deck[p] for o in plan.others for p in o.positions])
    counts = _plus(counts, _counts(deck[p] for p in plan.stock))
    # in a canonical order (the true one comes first in the plan): the draw must not depend on it
    options = [sorted(opts) for _, opts in plan.secrets]
    size = 1
    for opts in options:
        size *= len(opts)
    if size > _MAX_SECRET_CHOICES:
        return []
    with_secret = {q for q, _ in plan.secrets}
    fixed = {o.seat: _needs(o, (), sowee) for o in plan.others if o.seat not in with_secret}
    layouts = []
    for choices in product(*options):
        needs = [
            fixed[o.seat] if o.seat in fixed else _needs(o, choices, sowee) for o in plan.others
        ]
        weight = 1
        left = list(counts)
        for need in needs:
            weight *= _placements(need)
            for _, t in need:
                left[t] -= 1
        if weight == 0 or min(left) < 0:
            continue
        # times the arrangements of the rest: a multinomial coefficient
        weight *= math.factorial(sum(left))
        for n in left:
            weight //= math.factorial(n)
        layouts.append(_Layout(tuple(choices), needs, [_expand(left)], weight))
    return layouts


def _below_big(sampler: SplitMix64, n: int) -> int:
    """A uniform integer in ``0 .. n-1`` for any ``n >= 1``, by rejection over whole words."""
    if n <= MASK64:
        return sampler.below(n)
    words = (n.bit_length() + 63) // 64
    top = (1 << (64 * words)) // n * n
    while True:
        x = 0
        for _ in range(words):
            x = (x << 64) | sampler.next_u64()
        if x < top:
            return x % n


def _draws(sampler: SplitMix64, sizes: Sequence[int]) -> list[int]:
    """Independent uniform integers in ``0 .. size-1``, one per size: as many as fit are drawn
    together as one uniform integer below their product (exact, fewer draws)."""
    out: list[int] = []
    i = 0
    while i < len(sizes):
        j, product = i, 1
        while j < len(sizes) and product * sizes[j] <= MASK64:
            product *= sizes[j]
            j += 1
        x = sampler.below(product)
        for size in sizes[i:j]:
            x, r = divmod(x, size)
            out.append(r)
        i = j
    return out


def _fits(
    other: _Other,
    cards: Sequence[int],
    choices: Sequence[int],
    sowee: int,
    rules: _Blocks,
    lowest: bool,
) -> bool:
    """Whether ``other``'s unseen ``cards`` give the waits and markers the viewer saw (quick
    tests of what the replay checks; the rare "has waits" first, "has none" last)."""
    hand = [0] * NUM_KINDS
    committed = [0] * NUM_KINDS
    extra = -1
    later: list[tuple[Counts, Counts]] = []
    for op, a, b in other.ops:
        if op == _POS:
            hand[cards[a]] += 1
        elif op == _SEEN:
            hand[a] += 1
        elif op == _USE:
            hand[a] -= b
            if hand[a] < 0:
                return False
        elif op == _SECRET:
            for t, n in _secret_uses(choices[a], sowee):
                hand[t] -= n
            if choices[a] < NUM_KINDS:
                committed[choices[a]] += 4
            else:
                committed[sowee] += 3
                extra = choices[a] - NUM_KINDS
        elif op == _MARKER:
            kings = [k for k in KINGS if hand[k] > 0]
            if a == COIN:
                if kings:
                    return False
            elif a not in kings or (lowest and a != kings[0]):
                return False
        else:
            pool = list(hand)
            if extra >= 0:
                pool[extra] += 1
            if max(pool) > COPIES or pool[sowee] > 3:
                return False  # more copies than exist: another seat's cards are short
            if not a:
                later.append((pool, list(committed)))
            elif not rules.has_waits(pool, committed, sowee):
                return False
    return not any(rules.has_waits(pool, held, sowee) for pool, held in later)


# ---------------------------------------------------------------- purro seats' cards ---------

_FULL = 16  # cards of a complete hand
# The parts of a complete hand's blocks, by the ranks of each suit they hold: the aces, the
# 3-4-5, the jacks and horses of the J-H-K block, and its kings (which may always stand alone).
_PARTS = ((ACE,), (THREE, FOUR, FIVE), (JACK, HORSE), (KING,))
_CORES = tuple(7 * s + r for s in range(4) for r in (JACK, HORSE))


def _code(counts: Sequence[int]) -> int:
    """Counts 0-4 as one number in base 5, the first count lowest."""
    return sum(n * 5**i for i, n in enumerate(counts))


class _Patterns:
    """The blocks of every complete hand of at most 16 cards (undeclared quads counting or
    not), for ``_WaitingHand``: the aces' and the 3-4-5 patterns that split, and the patterns
    of jacks and horses that split once some J-H-K sequences are taken out, each with the set
    of king counts that allows it (at least the sequences of one of its ways to split, per
    suit; other kings stand alone).  The docs count them: 143, 64,715, 21,979 (157 sets).

    Each pattern is a row of counts, suit by suit (``_PARTS``), and per suit the code of its
    part (so a weight that is a product over kinds is a product of four table lookups)."""

    def __init__(self, quad_ok: bool) -> None:
        table = _rank_table(quad_ok, -1)
        ok = sorted((v for v in product(range(5), repeat=4) if table[_code(v)]), key=sum)
        low: set[tuple[int, ...]] = set()
        core: dict[tuple[int, ...], list[tuple[int, ...]]] = {}
        # every pattern is some sequences per suit plus, per rank, a pattern that splits
        for runs in product(range(5), repeat=4):
            fits = [v for v in ok if all(v[s] + runs[s] <= 4 for s in range(4))]
            used = 3 * sum(runs)
            for a in fits:
                if used + sum(a) > _FULL:
                    break
                for b in fits:
                    if used + sum(a) + sum(b) > _FULL:
                        break
                    jh = tuple(x for s in range(4) for x in (a[s] + runs[s], b[s] + runs[s]))
                    core.setdefault(jh, []).append(runs)
                    for c in fits:
                        if used + sum(a) + sum(b) + sum(c) > _FULL:
                            break
                        low.add(
                            tuple(
                                x
                                for s in range(4)
                                for x in (a[s] + runs[s], b[s] + runs[s], c[s] + runs[s])
                            )
                        )
        sets: dict[frozenset[tuple[int, ...]], int] = {}
        cores, set_of = [], []
        for jh, ways in sorted(core.items()):
            least = frozenset(
                w for w in ways if not any(v != w and all(map(int.__le__, v, w)) for v in ways)
            )
            cores.append(jh)
            set_of.append(sets.setdefault(least, len(sets)))
        # aces and 3-4-5 sorted by size (size n is rows starts[n] to starts[n + 1])
        aces, lows = sorted(ok, key=sum), sorted(low, key=sum)
        self.starts = [
            [bisect.bisect_left([sum(p) for p in rows], n) for n in range(_FULL + 2)]
            for rows in (aces, lows)
        ]
        kings = list(product(range(5), repeat=4))
        self.rows = [np.array(rows, dtype=np.int64) for rows in (aces, lows, cores, kings)]
        self.codes = [
            np.array([[_code(r[w * s : w * s + w]) for s in range(4)] for r in rows])
            for rows, w in zip((aces, lows, cores, kings), (1, 3, 2, 1))
        ]
        self.core_set = np.array(set_of, dtype=np.int64)
        self.core_size = self.rows[2].sum(axis=1)
        self.king_size = self.rows[3].sum(axis=1)
        self.allowed = np.zeros((len(sets), len(kings)), dtype=np.int64)  # 1: the set allows
        for least, u in sets.items():
            for m in least:
                self.allowed[u] |= np.all(self.rows[3] >= np.array(m), axis=1)
        # the J-H patterns grouped by their set of king counts and their size
        pairs = sorted(set(zip(set_of, self.core_size.tolist())))
        index = {pair: g for g, pair in enumerate(pairs)}
        self.core_group = np.array(
            [index[pair] for pair in zip(set_of, self.core_size.tolist())], dtype=np.int64
        )
        self.groups = pairs


@functools.cache
def _patterns(quad_ok: bool) -> _Patterns:
    return _Patterns(quad_ok)


def _pick_cumulative(sampler: SplitMix64, cumulative: npt.NDArray[np.int64]) -> int:
    """An index drawn in proportion to the weights whose running sums are ``cumulative``."""
    return int(np.searchsorted(cumulative, _below_big(sampler, int(cumulative[-1])), "right"))


def _others_product(factors: Sequence[npt.NDArray[np.int64]]) -> list[npt.NDArray[np.int64]]:
    """Per factor, the product of the other factors."""
    out = []
    for i in range(len(factors)):
        rest = np.ones_like(factors[0])
        for j, f in enumerate(factors):
            if j != i:
                rest = rest * f
        out.append(rest)
    return out


class _WaitingHand:
    """Draws a hand ``h`` with a wait for a seat seen with waits after its last unseen card,
    in proportion to how often a uniform deal of ``pool`` gives it: its unseen cards are
    ``a = h + offset`` (its hand less the cards it was seen to receive, plus those it used),
    weighed ``prod comb(pool[k], a[k])``, with ``h[k]`` within ``bounds[k]`` (at least the
    copies it uses later; the kings its marker shows or excludes).

    A complete hand ``g`` and a wait ``t`` with ``h = g - t`` are drawn in proportion to the
    weight of ``h``.  The weight is a product over kinds and ``g`` is complete when each block
    (aces, 3-4-5, J-H-K) splits, so the sums over ``g`` are taken block by block and size by
    size, from the lists of ``_Patterns``.  A hand comes up once per wait it has: the caller
    keeps it with probability one over its number of waits.  All weights are exact integers
    (per pattern at most ``12 * 6**12``; sums stay far below ``2**63``, or are taken in
    Python's integers)."""

    def __init__(
        self,
        pool: Sequence[int],
        offset: Sequence[int],
        bounds: Sequence[tuple[int, int]],
        sowee: int,
        quad_ok: bool,
    ) -> None:
        p = self._p = _patterns(quad_ok)
        # weight[k][x]: x copies of k in g, none of them the wait; spare[k][x]: one is the wait
        # (h[k] = x - 1, and a copy of the wait is left to draw)
        weight = [[0] * 5 for _ in range(NUM_KINDS)]
        spare = [[0] * 5 for _ in range(NUM_KINDS)]
        for k, (least, most) in enumerate(bounds):
            for h in range(least, most + 1):
                if 0 <= h + offset[k] <= pool[k]:
                    weight[k][h] = math.comb(pool[k], h + offset[k])
                    if h < (3 if k == sowee else COPIES):
                        spare[k][h + 1] = weight[k][h]
        # per part and suit, per code of its counts: the weight, and per column the weight
        # with the wait of that column's kind
        self._tables: list[list[tuple[list[int], list[list[int]]]]] = []
        self._full: list[npt.NDArray[np.int64]] = []  # per part: each pattern's weight
        self._wait: list[npt.NDArray[np.int64]] = []  # per part: summed over the wait's kind
        for part, ranks in enumerate(_PARTS):
            suits = []
            for s in range(4):
                kinds = [7 * s + r for r in ranks]
                full = [0] * 5 ** len(ranks)
                cols: list[list[int]] = [[]] * 5 ** len(ranks)
                for counts in product(range(5), repeat=len(ranks)):
                    ws = [weight[k][x] for k, x in zip(kinds, counts)]
                    full[_code(counts)] = math.prod(ws)
                    cols[_code(counts)] = [
                        math.prod(ws[:i] + ws[i + 1 :]) * spare[k][x]
                        for i, (k, x) in enumerate(zip(kinds, counts))
                    ]
                suits.append((full, cols))
            self._tables.append(suits)
            codes = p.codes[part]
            fulls = [np.array(suits[s][0], dtype=np.int64)[codes[:, s]] for s in range(4)]
            waits = [
                np.array([sum(c) for c in suits[s][1]], dtype=np.int64)[codes[:, s]]
                for s in range(4)
            ]
            self._full.append(fulls[0] * fulls[1] * fulls[2] * fulls[3])
            others = _others_product(fulls)
            self._wait.append(sum((w * o for w, o in zip(waits, others)), np.zeros_like(fulls[0])))
        # king counts: per set and number of kings, their summed weight without and with the wait
        by_size = np.stack([p.king_size == n for n in range(_FULL + 1)], axis=1)
        self._king_sets = p.allowed @ (self._full[3][:, None] * by_size)
        self._king_wait_sets = p.allowed @ (self._wait[3][:, None] * by_size)
        sums = [self._sums(part) for part in range(2)] + [self._high_sums()]
        self._cumulative: dict[tuple[int, int, bool], npt.NDArray[np.int64]] = {}
        self._kings: dict[tuple[int, int, bool], npt.NDArray[np.int64]] = {}
        self._splits: list[tuple[tuple[int, int, int], int]] = []
        self._running: list[int] = []  # running sums of the splits' weights
        self.total = 0
        for a in range(_FULL + 1):
            for b in range(_FULL + 1 - a):
                sizes = (a, b, _FULL - a - b)
                for wait_block in range(3):
                    ways = 1
                    for block in range(3):
                        ways *= sums[block][block == wait_block][sizes[block]]
                    if ways:
                        self.total += ways
                        self._splits.append((sizes, wait_block))
                        self._running.append(self.total)

    def _sums(self, part: int) -> tuple[list[int], list[int]]:
        """Per size, the summed weight of the block's patterns without and with the wait."""
        starts = self._p.starts[part]
        bounds = [(starts[n], starts[n + 1]) for n in range(_FULL + 1)]
        return (
            [int(self._full[part][lo:hi].sum()) for lo, hi in bounds],
            [int(self._wait[part][lo:hi].sum()) for lo, hi in bounds],
        )

    def _high_sums(self) -> tuple[list[int], list[int]]:
        """Per size, the J-H-K block's summed weight without and with the wait: per group of
        J-H patterns (same set of king counts, same size), times the weight of the kings
        that set allows, in Python's integers."""
        p = self._p
        full = np.zeros(len(p.groups), dtype=np.int64)
        wait = np.zeros(len(p.groups), dtype=np.int64)
        np.add.at(full, p.core_group, self._full[2])
        np.add.at(wait, p.core_group, self._wait[2])
        kings = self._king_sets.tolist()
        kings_wait = self._king_wait_sets.tolist()
        no_wait, with_wait = [0] * (_FULL + 1), [0] * (_FULL + 1)
        for (u, size), f, w in zip(p.groups, full.tolist(), wait.tolist()):
            if f or w:
                for n in range(_FULL + 1 - size):
                    no_wait[size + n] += f * kings[u][n]
                    with_wait[size + n] += w * kings[u][n] + f * kings_wait[u][n]
        return no_wait, with_wait

    def _high(self, size: int, wait: bool) -> npt.NDArray[np.int64]:
        """Per J-H pattern, the weight of the J-H-K patterns of ``size`` cards built on it (with
        the wait among them when ``wait``)."""
        p = self._p
        kings = size - p.core_size
        fits = kings >= 0
        kings = np.where(fits, kings, 0)
        full: npt.NDArray[np.int64] = self._king_sets[p.core_set, kings] * fits
        if not wait:
            out: npt.NDArray[np.int64] = self._full[2] * full
            return out
        waiting: npt.NDArray[np.int64] = self._king_wait_sets[p.core_set, kings] * fits
        out = self._wait[2] * full + self._full[2] * waiting
        return out

    def _wait_kind(self, sampler: SplitMix64, part: int, row: int) -> int:
        """The wait's kind in a pattern drawn with it, in proportion to its weight."""
        codes = self._p.codes[part][row].tolist()
        fulls = [self._tables[part][s][0][codes[s]] for s in range(4)]
        weights = []
        for s in range(4):
            rest = math.prod(fulls[:s] + fulls[s + 1 :])
            weights += [rest * w for w in self._tables[part][s][1][codes[s]]]
        r = _below_big(sampler, sum(weights))
        i = 0
        while r >= weights[i]:
            r -= weights[i]
            i += 1
        ranks = _PARTS[part]
        return 7 * (i // len(ranks)) + ranks[i % len(ranks)]

    def _cached(self, key: tuple[int, int, bool]) -> npt.NDArray[np.int64]:
        """Running sums of the weights a draw picks a pattern from, per block, size and wait."""
        if key not in self._cumulative:
            block, size, wait = key
            if block == 2:
                weights = self._high(size, wait)
            else:
                lo, hi = self._p.starts[block][size], self._p.starts[block][size + 1]
                weights = (self._wait if wait else self._full)[block][lo:hi]
            self._cumulative[key] = np.cumsum(weights)
        return self._cumulative[key]

    def _king_sums(self, u: int, kings: int, wait: bool) -> npt.NDArray[np.int64]:
        """Running sums of the weights of the king counts of ``kings`` kings that set ``u``
        allows (with the wait among them when ``wait``)."""
        key = (u, kings, wait)
        if key not in self._kings:
            allowed = self._p.allowed[u] * (self._p.king_size == kings)
            self._kings[key] = np.cumsum(allowed * (self._wait if wait else self._full)[3])
        return self._kings[key]

    def draw(self, sampler: SplitMix64) -> Counts:
        """A hand ``h`` with a wait, drawn as ``g - t`` (each hand once per wait it has)."""
        p = self._p
        # the sizes of the blocks and the wait's block
        split = bisect.bisect_right(self._running, _below_big(sampler, self.total))
        sizes, wait_block = self._splits[split]
        hand = [0] * NUM_KINDS
        wait = -1
        for block in range(2):
            row = _pick_cumulative(
                sampler, self._cached((block, sizes[block], block == wait_block))
            )
            row += p.starts[block][sizes[block]]
            if block == wait_block:
                wait = self._wait_kind(sampler, block, row)
            for t, n in zip(_ACES if block == 0 else _LOWS, p.rows[block][row].tolist()):
                hand[t] += n
        j = _pick_cumulative(sampler, self._cached((2, sizes[2], wait_block == 2)))
        u, kings = int(p.core_set[j]), sizes[2] - int(p.core_size[j])
        in_core = 0
        if wait_block == 2:
            in_core = int(self._wait[2][j]) * int(self._king_sets[u, kings])
            in_kings = int(self._full[2][j]) * int(self._king_wait_sets[u, kings])
            if _below_big(sampler, in_core + in_kings) < in_core:
                wait = self._wait_kind(sampler, 2, j)
            else:
                in_core = -1  # the wait is a king
        row = _pick_cumulative(sampler, self._king_sums(u, kings, in_core < 0))
        if in_core < 0:
            wait = self._wait_kind(sampler, 3, row)
        for t, n in zip(_CORES, p.rows[2][j].tolist()):
            hand[t] += n
        for t, n in zip(KINGS, p.rows[3][row].tolist()):
            hand[t] += n
        hand[wait] -= 1
        return hand


class _Direct:
    """A seat's unseen cards drawn by ``_WaitingHand`` instead of placed and shuffled (a purro
    seat would almost never be dealt waits by chance, docs/rules/cuajo.md).

    In the proposal such a seat's cards are a uniform draw from what is left of ``pool`` (the
    unseen cards less those placed for the other seats): drawn first, its cards ``a`` come up
    in proportion to ``prod comb(pool[k], a[k])`` and then lie in a uniform order; that is
    what this draws, but only among the ``a`` that give its hand waits at its check after its
    last unseen card, which the tests would demand anyway.  For a seat drawn after others,
    from ``left`` (``pool`` less their cards), a draw is kept with probability ``prod
    comb(left[k], a[k]) / prod comb(pool[k], a[k])`` (at most 1): its cards then come up in
    proportion to their weight in ``left``, and it succeeds as often, relative to the other
    draws, as a uniform draw from ``left`` would pass.  Its other tests (the cards it used
    received in time, its other waits and markers) stay tests, with no ``1 / w`` step: no
    card is placed for it."""

    def __init__(
        self, other: _Other, check: int, pool: Counts, sowee: int, quad_ok: bool, lowest: bool
    ) -> None:
        self.offset = [0] * NUM_KINDS  # its unseen cards less its hand at the check
        for op, a, b in other.ops[:check]:
            if op == _SEEN:
                self.offset[a] -= 1
            elif op == _USE:
                self.offset[a] += b
        # copies its hand must hold for its later uses, and may hold with those it receives
        least = [0] * NUM_KINDS
        most = [3 if k == sowee else COPIES for k in range(NUM_KINDS)]
        spare = [0] * NUM_KINDS
        gained = [0] * NUM_KINDS
        for op, a, b in other.ops[check:]:
            if op == _SEEN:
                spare[a] += 1
                gained[a] += 1
                most[a] = min(most[a], (3 if a == sowee else COPIES) - gained[a])
            elif op == _USE:
                covered = min(spare[a], b)
                spare[a] -= covered
                least[a] += b - covered
                gained[a] -= b
        if check + 1 < len(other.ops) and other.ops[check + 1][0] == _MARKER:
            # the marker placed at the check: that king in hand (and, chosen as the lowest,
            # none below it), or a coin: no king at all
            marker = other.ops[check + 1][1]
            for k in KINGS:
                if marker == COIN or (lowest and k < marker):
                    most[k] = 0
            if marker != COIN:
                least[marker] = max(least[marker], 1)
        self.seat = other.seat
        self.pool = pool
        self.hands = _WaitingHand(pool, self.offset, list(zip(least, most)), sowee, quad_ok)
        self.sowee = sowee
        self.rules = _blocks(quad_ok, -1)

    def cards(self, sampler: SplitMix64, left: Sequence[int]) -> list[int] | None:
        """The seat's unseen cards in a uniform order, drawn from ``left``, or ``None``."""
        hand = self.hands.draw(sampler)
        a = [n + d for n, d in zip(hand, self.offset)]
        if left is not self.pool:
            kept = math.prod(math.comb(n, x) for n, x in zip(left, a))
            drawn = math.prod(math.comb(n, x) for n, x in zip(self.pool, a))
            if kept < drawn and _below_big(sampler, drawn) >= kept:
                return None
        waits = self.rules.count_waits(hand, [0] * NUM_KINDS, self.sowee)
        if waits > 1 and sampler.below(waits) != 0:
            return None  # drawn once per wait
        cards = _expand(a)
        sampler.shuffle(cards)
        return cards


def _directs(state: CuajoState, plan: _Plan, layouts: Sequence[_Layout]) -> list[_Direct]:
    """The seats whose cards ``_Direct`` draws, in ``plan.others`` order: before the end of a
    match, with no hidden secret and without the undeclared sowee triple, every seat seen
    with waits after its last unseen card."""
    if plan.terminal or len(layouts) != 1 or plan.secrets or state._triple >= 0:
        return []
    chosen = {}
    for i, other in enumerate(plan.others):
        check = _direct_check(other)
        if check is not None:
            chosen[i] = check
    if not chosen:
        return []
    deck = state._hand.deck
    pool = _counts([deck[p] for o in plan.others for p in o.positions])
    pool = _plus(pool, _counts(deck[p] for p in plan.stock))
    for i, need in enumerate(layouts[0].needs):
        if i not in chosen:
            for _, t in need:
                pool[t] -= 1
    lowest = state._cfg["purro_marker"] == "lowest_type"
    return [
        _Direct(plan.others[i], check, pool, state._sowee, state._quad_ok, lowest)
        for i, check in chosen.items()
    ]


def _direct_check(other: _Other) -> int | None:
    """The index in ``other.ops`` of its first check with waits after its last unseen card,
    if it then held 15 cards (no secret); else ``None``."""
    held = 0
    last = max((i for i, op in enumerate(other.ops) if op[0] == _POS), default=-1)
    for i, (op, a, b) in enumerate(other.ops):
        if op in (_POS, _SEEN):
            held += 1
        elif op == _USE:
            held -= b
        elif op == _SECRET:
            return None
        elif op == _WAITS and a and i > last:
            return i if held == _FULL - 1 else None
    return None


def _draw_directs(
    directs: Sequence[_Direct],
    order: Sequence[_Other],
    needs_of: dict[int, list[tuple[int, int]]],
    deck: list[int],
    sampler: SplitMix64,
    layout: _Layout,
    rules: _Blocks,
    lowest: bool,
) -> tuple[Counts | None, int]:
    """The cards of the seats drawn by ``_Direct`` (the first of ``order``), put in ``deck``
    when they pass their tests: the pool left, or ``None``, and how many were drawn."""
    left = directs[0].pool
    for drawn, (direct, other) in enumerate(zip(directs, order), 1):
        cards = direct.cards(sampler, left)
        if cards is None or not _ways(needs_of[other.seat], cards):
            return None, drawn  # a card it used was not received in time
        if not _fits(other, cards, layout.choices, direct.sowee, rules, lowest):
            return None, drawn
        for pos, card in zip(other.positions, cards):
            deck[pos] = card
        left = list(left)
        for card in cards:
            left[card] -= 1
    return left, len(directs)


def _propose(state: CuajoState, plan: _Plan, sampler: SplitMix64) -> CuajoState | None:
    """A world drawn uniformly among those ``plan.seat`` cannot tell from ``state``; if the
    work bounds are reached first, as many tries again without the ``1 / w`` step (worlds in
    proportion to ``w``, below); ``None`` if those fail too.

    Why it is uniform: a layout (the hidden secrets' kinds) is drawn in proportion to its
    proposals; in it each needed card goes, taken by deadline, to a free unseen position of
    its seat received before its deadline (every placement equally likely), and the pool is
    dealt over the other unseen positions in a uniform order.  So every proposal is equally
    likely, and a world with ``w`` placements that give it arises from ``w`` of them: kept
    with probability ``1 / w`` (per seat, as each seat's factor is known), every world whose
    hands had the cards they used is kept with the same probability.  The cards of the seats
    seen with waits after their last unseen card come first, from ``_Direct``: no card is
    placed for them, and their cards come up as a plain draw from the pool would give them,
    restricted to those their waits test would keep.  The quick tests and the replay then only
    reject; the rest stays uniform, and a rejected proposal starts again from scratch."""
    layouts = _layouts(state, plan)
    if not layouts:
        return None
    running = list(accumulate(layout.weight for layout in layouts))
    directs = _directs(state, plan, layouts)
    # the seats drawn directly come first, the others after them in their order
    order = [o for o in plan.others if o.seat in {d.seat for d in directs}]
    order += [o for o in plan.others if o not in order]
    deck0 = state._hand.deck
    sowee = state._sowee
    rules = _blocks(state._quad_ok, state._triple)
    lowest = state._cfg["purro_marker"] == "lowest_type"
    single = not plan.terminal
    for exact in (True, False):  # then without the 1 / w step (see the docstring)
        replays = work = 0
        while work < _RESAMPLE_WORK:
            work += 1
            layout = layouts[0]
            if len(layouts) > 1:
                layout = layouts[bisect.bisect_right(running, _below_big(sampler, running[-1]))]
            needs_of = {o.seat: need for o, need in zip(plan.others, layout.needs)}
            deck = list(deck0)
            if directs:
                left, drawn = _draw_directs(
                    directs, order, needs_of, deck, sampler, layout, rules, lowest
                )
                work += _DIRECT_WORK * drawn
                if left is None:
                    continue
                pools = [_expand(left)]
            else:
                pools = [list(pool) for pool in layout.pools]
            at = 0  # the cards of the single pool dealt so far
            fitted = True
            for i, other in enumerate(order):
                if i < len(directs):
                    continue
                need = needs_of[other.seat]
                pool = pools[0] if single else pools[i]
                start = at if single else 0
                cards = [-1] * len(other.positions)
                free = list(range(len(cards)))  # its positions no needed card took yet
                picks = _draws(
                    sampler,
                    [deadline - k for k, (deadline, _) in enumerate(need)]
                    + [len(pool) - start - j for j in range(len(cards) - len(need))],
                )
                for k, (_, t) in enumerate(need):
                    # the picked free position before the deadline: the ``deadline - k`` free
                    # ones there are the first of ``free``, as needs are taken by deadline
                    cards[free.pop(picks[k])] = t
                for j, idx in enumerate(free):  # the next cards of a uniform order of the pool
                    pick = start + picks[len(need) + j]
                    pool[start], pool[pick] = pool[pick], pool[start]
                    cards[idx] = pool[start]
                    start += 1
                if single:
                    at = start
                ways = _ways(need, cards)  # cheap: before the waits tests
                if exact and ways > 1 and sampler.below(ways) != 0:
                    fitted = False
                    break
                if not _fits(other, cards, layout.choices, sowee, rules, lowest):
                    fitted = False
                    break
                for pos, card in zip(other.positions, cards):
                    deck[pos] = card
            if not fitted:
                continue
            stock = pools[0][at:] if single else pools[-1]
            sampler.shuffle(stock)
            for pos, card in zip(plan.stock, stock):
                deck[pos] = card
            world = state._world(deck, layout.choices, plan)
            if world is not None and world._seen_by(plan.seat) == plan.target:
                return world
            replays += 1
            if replays >= _RESAMPLE_REPLAYS:
                break
    return None


def _marker_view(marker: int | None) -> str | None:
    if marker is None:
        return None
    return "coin" if marker == COIN else _fmt(marker)


def _marker_text(marker: int | None) -> str:
    return _marker_view(marker) or "-"


def _render(v: dict[str, Any]) -> str:
    """A readable picture of the table from a view."""
    who = "full view" if v["viewer"] is None else f"seen by P{v['viewer']}"
    to_play = "-" if v["to_play"] is None else f"P{v['to_play']}"
    lines = [
        f"Cuajo ({who}): hand {v['hand']}, dealer P{v['dealer']}, phase {v['phase']}, "
        f"to play {to_play}, turn {v['turn']}",
        f"sowee {v['sowee']}, stock {v['stock_size']}, top discard {v['top_discard'] or '-'}",
    ]
    last = v["last_draw"]
    if last is not None:
        card = last["card"] or "??"
        lines.append(f"last draw: P{last['seat']} {card}" + (" (shown)" if last["shown"] else ""))
    for q in range(NUM_PLAYERS):
        hand = v["concealed"][q]
        shown = " ".join(hand) if hand is not None else f"({v['hand_sizes'][q]} cards)"
        secrets = []
        for s in v["secrets"][q]:
            if s["cards"] is None:
                secrets.append("[secret" + (f" {s['kind']}" if s["kind"] else "") + "]")
            else:
                extra = "" if s["extra"] is None else f" + {s['extra']}"
                secrets.append("[" + " ".join(s["cards"]) + extra + "]")
        status = []
        if v["purro"][q]:
            status.append(f"purro ({v['marker'][q]})")
        if v["penalty"][q]:
            status.append(f"penalty {v['penalty'][q]}")
        if v["known"][q]:
            status.append("known " + " ".join(v["known"][q]))
        lines.append(
            f"  P{q}: {shown} {' '.join(secrets)}".rstrip()
            + (f"  {'; '.join(status)}" if status else "")
            + f"  balance {v['balances'][q]:+d} total {v['totals'][q]:+d}"
        )
    if v["discards"]:
        pile = " ".join(
            f"{d['card']}" + ("" if d["taken_by"] is None else f"->P{d['taken_by']}")
            for d in v["discards"][-12:]
        )
        lines.append(f"discards (last 12): {pile}")
    result = v["result"]
    if result is not None:
        if result["winner"] is None:
            lines.append(f"last hand: no winner ({result['reason']})")
        else:
            lines.append(
                f"last hand: P{result['winner']} won ({result['source']}"
                + ("" if result["card"] is None else f", {result['card']}")
                + f"), payments {' '.join(map(str, result['payments']))}"
            )
    return "\n".join(lines)
