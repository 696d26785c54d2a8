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

import copy
import functools
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from itertools import combinations
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
from tapete.reference.rng import SplitMix64

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
        return (-float(least * hands), float(most * hands))


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

    def _dead(self, c: int) -> bool:
        """Rules A-45: a player who must discard but can neither discard nor win; ``pass``
        ends the hand as a wash (rules 3.3: the secrets he holds are still legal before it)."""
        return not self._discard_options(c) and not self._win_allowed(c)

    def _secret_allowed(self, c: int, kind: int, count: int) -> bool:
        """After taking the last discard from an empty stock the turn must end in a win: only
        secrets (``count`` cards of ``kind`` laid down) that keep the hand complete."""
        h = self._hand
        if not h.empty_take:
            return True
        if not self._cfg["secret_on_winning_turn"]:
            return False
        pool = self._pool(c)
        pool[kind] -= count
        return self._partitionable(pool)

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
            hand = h.concealed[c]
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
            if self._dead(c):
                out.append(PASS)  # the secrets he holds may still be laid before it
            return sorted(out)
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
            if phase in ("opening", "action"):
                self._event(None, f"{_p(c)} can neither discard nor win: dead hand")
                self._end_hand("dead_hand")
            elif phase == "draw":
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

    def _signature(self, seat: int) -> tuple[Any, bytes, str]:
        return (
            self.view(seat),
            self.observation_tensor(seat).tobytes(),
            self.information_state_string(seat),
        )

    def _resample(self, seat: int, sampler: SplitMix64) -> CuajoState:
        """A state that ``seat`` cannot tell from this one (docs/engine.md, Determinisation).

        Only the current deal is re-dealt (earlier hands of a match were shown at their end);
        the history is replayed unchanged.  The deck positions ``seat`` has not seen are the
        other players' dealt cards, their unshown stock draws and the stock still undrawn.
        The undrawn stock is shuffled (nobody has seen any of it).  Then swaps of two unseen
        positions holding different kinds, at least one of them in another player's hand, are
        tried one at a time; a swap is kept when the replayed history is legal and ``seat``'s
        view, observation and information state are unchanged (which checks every inference:
        discards, secrets, forced purro calls, claims, wins).  If no swap passes, the hands
        stay as they were.
        """
        h = self._hand
        deck = list(h.deck)
        undrawn = list(range(h.pos, PACK_SIZE))
        cards = [deck[i] for i in undrawn]
        sampler.shuffle(cards)
        for i, card in zip(undrawn, cards):
            deck[i] = card
        held = [i for i in range(DEALT) if deal_seat(h.dealer, i) != seat]
        held += [pos for pos, q, shown in h.draws if q != seat and not shown]
        target = self._signature(seat)
        best = self._replayed(deck)
        candidates = held + undrawn
        for _ in range(_RESAMPLE_SWAPS if held else 0):
            i = held[sampler.below(len(held))]
            j = candidates[sampler.below(len(candidates))]
            if deck[i] == deck[j]:
                continue
            trial = list(deck)
            trial[i], trial[j] = trial[j], trial[i]
            try:
                state = self._replayed(trial)
            except IllegalActionError:
                continue
            if state._signature(seat) == target:
                deck, best = trial, state
        return best


_RESAMPLE_SWAPS = 24


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
