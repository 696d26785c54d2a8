"""Cicera: the pure-Python reference model.

Written from the rules documents only (``shared/rules/cicera.md``, ``docs/rules/cicera.md``,
``docs/engine.md`` and ``shared/design/api.md``); it is clear rather than fast.  It is the second,
independent implementation that the Rust engine is tested against.

A game is a *match* of several hands (or one hand, ``game_mode = "single_hand"``).  Everything
that happens without a decision (the shuffle and the deal of every packet, the leftovers, the
scoring of a hand, the next hand) happens inside ``apply_action`` or when the state is created,
so every non-terminal state is a decision node of one player, except with ``explicit_chance``:
then the first dealer (when random) and every card dealt are chance nodes (rules §3, §12.2).

Cards use Cicera's numbering (rules §1.3): ``id = 13 * suit + rank`` with suits ``S H D C`` and
ranks ``A 2 .. 10 J Q K``.  A move is a sequence of actions: ``play <c>`` (trail, id ``c``),
or ``capture <c>`` (id ``52 + c``) followed by one ``take <t>`` (id ``104 + t``) per table card
of the capture set, in ascending id (rules §12).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
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
from tapete.reference.cards import CICERA
from tapete.reference.rng import SplitMix64

__all__ = [
    "CAPTURE_BASE",
    "CATEGORIES",
    "CiceraGame",
    "CiceraState",
    "NUM_DISTINCT_ACTIONS",
    "OBSERVATION_SIZE",
    "TAKE_BASE",
    "TERMINAL",
    "TRAIL_BASE",
    "capture_sets",
    "captures",
    "score_hand",
    "score_piles",
]

GAME_NAME = "cicera"
NUM_PLAYERS = 4
NUM_CARDS = 52

# Action ids (rules §12.2).
NUM_DISTINCT_ACTIONS = 156
TRAIL_BASE = 0  # 0..51: play card id without capturing
CAPTURE_BASE = 52  # 52..103: play card id-52 to capture
TAKE_BASE = 104  # 104..155: take table card id-104 into the capture under way

# Suits (rules §1.1) and the special cards (rules §1.4).
SPADES, HEARTS, DIAMONDS, CLUBS = range(4)
ACE_OF_SPADES = 0
TWO_OF_SPADES = 1
THREE_OF_SPADES = 2
TEN_OF_DIAMONDS = 13 * DIAMONDS + 9  # 35
JACK_OF_HEARTS = 13 * HEARTS + 10  # 23
SPADE_CARDS = frozenset(range(13))

OBSERVATION_SIZE = 677
_PHASES = ("play", "capture", "over")

# End-of-hand categories, in the order of docs/rules/cicera.md ("view", past_hands).
CATEGORIES = (
    "cards",
    "spades",
    "two_of_spades",
    "napola",
    "ten_of_diamonds",
    "jack_of_hearts",
    "bonus",
    "total",
)


# ----------------------------------------------------------------------------------------------
# Cards (rules §1)
# ----------------------------------------------------------------------------------------------


def suit_of(card: int) -> int:
    """Suit index (0 spades, 1 hearts, 2 diamonds, 3 clubs)."""
    return card // 13


def rank_of(card: int) -> int:
    """Rank index (0 ace .. 9 ten, 10 jack, 11 queen, 12 king)."""
    return card % 13


def is_numeral(card: int) -> bool:
    """Whether the card has a capture value (ace to ten)."""
    return rank_of(card) <= 9


def value_of(card: int) -> int:
    """Capture value of a numeral (A = 1 .. 10 = 10); courts have none."""
    assert is_numeral(card)
    return rank_of(card) + 1


def _fmt(card: int) -> str:
    return CICERA.to_string(card)


def _fmt_many(cards: Iterable[int]) -> list[str]:
    return [CICERA.to_string(c) for c in cards]


def _text(cards: Iterable[int]) -> str:
    return " ".join(_fmt_many(cards)) or "-"


# ----------------------------------------------------------------------------------------------
# Capture enumeration (rules §11.1) and step legality (§11.3)
# ----------------------------------------------------------------------------------------------


def capture_sets(
    table: Iterable[int], card: int, force_single_match: bool = False
) -> list[tuple[int, ...]]:
    """Every legal capture set of ``card`` on ``table``, in canonical order.

    Each set is ascending by id; the sets are in lexicographic order of their id tuples.  With
    ``force_single_match`` a numeral that can take a single card of its value may only take
    such single cards (rules §7, option hooks).
    """
    ordered = sorted(table)
    if not is_numeral(card):
        return [(t,) for t in ordered if rank_of(t) == rank_of(card)]
    target = value_of(card)
    nums = [t for t in ordered if is_numeral(t)]
    m = len(nums)
    # reach[i]: bit s set iff some subset of nums[i:] adds up to s (sums 0..10 only).
    reach = [0] * (m + 1)
    reach[m] = 1
    for i in range(m - 1, -1, -1):
        reach[i] = (reach[i + 1] | (reach[i + 1] << value_of(nums[i]))) & 0x7FF
    found: list[tuple[int, ...]] = []
    if not (reach[0] >> target) & 1:
        return found

    def dfs(start: int, rem: int, cur: list[int]) -> None:
        if rem == 0:
            found.append(tuple(cur))
            return
        for j in range(start, m):
            x = value_of(nums[j])
            if x <= rem and (reach[j + 1] >> (rem - x)) & 1:
                cur.append(nums[j])
                dfs(j + 1, rem - x, cur)
                cur.pop()

    dfs(0, target, [])
    if force_single_match:
        singles: list[tuple[int, ...]] = [s for s in found if len(s) == 1]
        if singles:
            return singles
    return found


def can_capture(table: Iterable[int], card: int) -> bool:
    """Whether ``card`` has at least one capture set on ``table`` (the O(m) test of §11.1)."""
    if not is_numeral(card):
        return any(rank_of(t) == rank_of(card) for t in table)
    reach = 1
    for t in table:
        if is_numeral(t):
            reach = (reach | (reach << value_of(t))) & 0x7FF
    return bool((reach >> value_of(card)) & 1)


# ----------------------------------------------------------------------------------------------
# Scoring (rules §5.1)
# ----------------------------------------------------------------------------------------------


def napola(pile: Iterable[int], courts_extend: bool = True) -> int:
    """Length of the unbroken spade run from the ace, if the pile holds AS, 2S and 3S."""
    cards = set(pile)
    if not {ACE_OF_SPADES, TWO_OF_SPADES, THREE_OF_SPADES} <= cards:
        return 0
    top = 13 if courts_extend else 10
    length = 0
    while length < top and length in cards:  # the spade of rank index k has id k
        length += 1
    return length


def score_piles(
    piles: Sequence[Iterable[int]],
    bonus: Sequence[int] = (0, 0),
    *,
    cards_tie: str = "none",
    spades_majority_points: int = 1,
    napola_courts_extend: bool = True,
) -> dict[str, list[int]]:
    """The end-of-hand points of two team piles by category (``CATEGORIES``, total last)."""
    sets = [set(piles[0]), set(piles[1])]
    pts: dict[str, list[int]] = {}
    a, b = len(sets[0]), len(sets[1])
    if a != b:
        pts["cards"] = [2, 0] if a > b else [0, 2]
    else:
        # A tie scores under "one_each", unless neither team has a card at all.
        pts["cards"] = [1, 1] if cards_tie == "one_each" and a > 0 else [0, 0]
    sa, sb = (len(s & SPADE_CARDS) for s in sets)
    k = spades_majority_points
    pts["spades"] = [k, 0] if sa > sb else [0, k] if sb > sa else [0, 0]
    pts["two_of_spades"] = [int(TWO_OF_SPADES in s) for s in sets]
    pts["napola"] = [napola(s, napola_courts_extend) for s in sets]
    pts["ten_of_diamonds"] = [int(TEN_OF_DIAMONDS in s) for s in sets]
    pts["jack_of_hearts"] = [int(JACK_OF_HEARTS in s) for s in sets]
    pts["bonus"] = [int(bonus[0]), int(bonus[1])]
    pts["total"] = [sum(pts[c][t] for c in CATEGORIES[:-1]) for t in range(2)]
    return pts


# ----------------------------------------------------------------------------------------------
# Public evaluators (strings in, strings out)
# ----------------------------------------------------------------------------------------------


def _parse_cards(cards: object, what: str) -> list[int]:
    if isinstance(cards, (str, bytes)) or not isinstance(cards, Sequence):
        raise ParseError(f"{what} must be a list of card strings, got {shown(cards)}")
    ids = CICERA.parse_many(cards)
    if len(set(ids)) != len(ids):
        raise ValueError(f"{what} holds the same card twice: {shown(list(cards))}")
    return ids


def captures(table: Sequence[str], card: str, force_single_match: bool = False) -> list[list[str]]:
    """Every legal capture set of ``card`` on ``table`` (default rules, or with the option
    ``force_single_match``), canonical order."""
    table_ids = _parse_cards(table, "a table")
    played = CICERA.parse(card)
    if played in table_ids:
        raise ValueError(f"the played card {_fmt(played)} cannot also be on the table")
    return [_fmt_many(s) for s in capture_sets(table_ids, played, force_single_match)]


def score_hand(team0: Sequence[str], team1: Sequence[str]) -> dict[str, list[int]]:
    """End-of-hand points by category of two team piles (default options, no bonus)."""
    a = _parse_cards(team0, "team 0's pile")
    b = _parse_cards(team1, "team 1's pile")
    both = set(a) & set(b)
    if both:
        raise ValueError(f"a card cannot be in both piles: {_text(sorted(both))}")
    pts = score_piles([a, b])
    del pts["bonus"]
    return pts


# ----------------------------------------------------------------------------------------------
# Configuration (docs/rules/cicera.md, "Configuration")
# ----------------------------------------------------------------------------------------------

_DEFAULTS: dict[str, Any] = {
    "target_score": 51,
    "packet_size": 12,
    "deal_style": "one_at_a_time",
    "first_dealer": "random",
    "force_single_match": False,
    "capture_compulsory": False,
    "left_bonus_mode": "any",
    "sweep_on_last_play_counts": True,
    "bonus_sweep": True,
    "bonus_left": True,
    "bonus_single_suit": True,
    "bonus_three_plus": True,
    "cards_tie": "none",
    "spades_majority_points": 1,
    "napola_courts_extend": True,
    "all_spades_wins_match": False,
    "leftover_if_no_capture": "nobody",
    "game_mode": "match",
    "max_hands": 100,
    "auto_complete_unique": False,
}
_CHOICES: dict[str, tuple[str, ...]] = {
    "deal_style": ("one_at_a_time", "packets"),
    "left_bonus_mode": ("any", "rank_match"),
    "cards_tie": ("none", "one_each"),
    "leftover_if_no_capture": ("nobody", "dealer_team"),
    "game_mode": ("match", "single_hand"),
}
_BOOLS = (
    "force_single_match",
    "capture_compulsory",
    "sweep_on_last_play_counts",
    "bonus_sweep",
    "bonus_left",
    "bonus_single_suit",
    "bonus_three_plus",
    "napola_courts_extend",
    "all_spades_wins_match",
    "auto_complete_unique",
)
_PACKET_SIZES = (12, 6, 4)


def _validate_config(raw: dict[str, Any]) -> dict[str, Any]:
    merged = merge_config(GAME_NAME, raw, _DEFAULTS)
    cfg: dict[str, Any] = {}
    for key in _DEFAULTS:
        value = merged[key]
        if key == "target_score":
            cfg[key] = int_in(key, value, 1, 1000)
        elif key == "packet_size":
            number = as_int(value)
            if number not in _PACKET_SIZES:
                raise ConfigError(f"packet_size must be 12, 6 or 4, got {shown(value)}")
            cfg[key] = number
        elif key == "first_dealer":
            cfg[key] = first_dealer(value, NUM_PLAYERS)
        elif key == "spades_majority_points":
            cfg[key] = int_in(key, value, 0, 10)
        elif key == "max_hands":
            cfg[key] = int_in(key, value, 1, 1000)
        elif key in _BOOLS:
            cfg[key] = boolean(key, value)
        else:
            cfg[key] = choice(key, value, _CHOICES[key])
    return cfg


def packet_seat(dealer: int, j: int, packet_size: int, deal_style: str) -> int:
    """Seat receiving the ``j``-th card of a packet (docs/rules/cicera.md, "The deal")."""
    if deal_style == "one_at_a_time":
        return (dealer + 1 + j % NUM_PLAYERS) % NUM_PLAYERS
    return (dealer + 1 + j // packet_size) % NUM_PLAYERS


# ----------------------------------------------------------------------------------------------
# Game
# ----------------------------------------------------------------------------------------------


class CiceraGame(ReferenceGame["CiceraState"]):
    """A Cicera match (or single hand) with a fixed configuration."""

    _name = GAME_NAME
    _pack = CICERA
    _defaults = _DEFAULTS
    _num_actions = NUM_DISTINCT_ACTIONS
    _max_chance_outcomes = NUM_CARDS

    def _validate(self, raw: dict[str, Any]) -> dict[str, Any]:
        return _validate_config(raw)

    def _new_state(self, seed: int, given: list[list[int]]) -> CiceraState:
        return CiceraState(self, seed, given)

    def num_players(self) -> int:
        return NUM_PLAYERS

    def observation_tensor_shape(self) -> tuple[int, ...]:
        return (OBSERVATION_SIZE,)

    def max_game_length(self) -> int:
        hands = 1 if self._cfg["game_mode"] == "single_hand" else self._cfg["max_hands"]
        return int(100 * hands)

    def _utility_bounds(self) -> tuple[float, float]:
        cfg = self._cfg
        if cfg["game_mode"] == "match":
            return (-1.0, 1.0)
        # Every category of one hand to one team, and each enabled bonus on all its 24 plays.
        bonus_keys = ("bonus_sweep", "bonus_left", "bonus_single_suit", "bonus_three_plus")
        bonuses = sum(bool(cfg[k]) for k in bonus_keys)
        napola = 13 if cfg["napola_courts_extend"] else 10
        most = 2 + cfg["spades_majority_points"] + 1 + napola + 1 + 1 + 24 * bonuses
        return (-float(most), float(most))


# ----------------------------------------------------------------------------------------------
# State
# ----------------------------------------------------------------------------------------------


@dataclass
class _Play:
    seat: int
    card: int
    captured: tuple[int, ...] | None  # None for a trail


@dataclass
class _Hand:
    """Everything about the hand under way (or the last hand, at the end of the match)."""

    index: int
    dealer: int
    deck: list[int]
    start: int  # index in the history of the first action of this hand
    pos: int = 0  # deck position of the next undealt card
    packets: int = 0  # packets dealt so far
    received: list[list[int]] = field(default_factory=list)  # per seat, of the packet under way
    hands: list[list[int]] = field(default_factory=lambda: [[] for _ in range(NUM_PLAYERS)])
    table: list[int] = field(default_factory=list)  # kept sorted
    piles: list[list[int]] = field(default_factory=lambda: [[], []])  # kept sorted
    bonus: list[int] = field(default_factory=lambda: [0, 0])
    last_trail: int | None = None
    last_capturer: int | None = None
    pending: int | None = None
    taken: list[int] = field(default_factory=list)
    options: list[tuple[int, ...]] = field(default_factory=list)  # capture sets of pending
    plays: list[_Play] = field(default_factory=list)
    phase: str = "play"  # chance (a packet or the table being dealt) / play / capture / over
    to_play: int = 0


class CiceraState(ReferenceState):
    """A Cicera match in progress.  Create it with ``CiceraGame.new_initial_state``."""

    _game: CiceraGame

    def __init__(self, game: CiceraGame, seed: int, given_decks: list[list[int]]) -> None:
        super().__init__(game, seed, given_decks)
        self._scores: list[int] = [0, 0]
        self._past: list[dict[str, Any]] = []
        self._winner: int | None = None
        self._hand: _Hand
        self._begin()

    def _first_deal(self, dealer: int) -> None:
        self._start_hand(0, dealer)

    # ---------------------------------------------------------------- hand flow ------------

    def _start_hand(self, index: int, dealer: int) -> None:
        deck = self._draw_deck(index)
        h = _Hand(index=index, dealer=dealer, deck=deck, start=len(self._history))
        self._hand = h
        self._event(None, f"hand {index}: dealer {_p(dealer)}")
        h.to_play = (dealer + 1) % NUM_PLAYERS
        self._deal_packet()

    def _packet_cards(self) -> int:
        return NUM_PLAYERS * int(self._cfg["packet_size"])

    def _deal_packet(self) -> None:
        """Deal ``packet_size`` cards to each player, one chance node per card
        (docs/rules/cicera.md, "The deal"); after the first packet, four table cards."""
        h = self._hand
        h.phase = "chance"
        h.received = [[] for _ in range(NUM_PLAYERS)]
        self._await_card("_packet_card")

    def _packet_card(self, card: int) -> None:
        h = self._hand
        j = sum(len(cards) for cards in h.received)  # the card's place in the packet
        seat = packet_seat(h.dealer, j, int(self._cfg["packet_size"]), str(self._cfg["deal_style"]))
        h.received[seat].append(card)
        h.hands[seat] = sorted(h.hands[seat] + [card])
        h.pos += 1
        if j + 1 < self._packet_cards():
            self._await_card("_packet_card")
            return
        h.packets += 1
        if h.packets > 1:
            self._event(None, f"packet {h.packets}: stock {NUM_CARDS - h.pos}")
        for q in range(NUM_PLAYERS):
            self._event(q, f"{_p(q)} is dealt {_text(sorted(h.received[q]))}")
        h.received = []
        if h.packets == 1:
            self._await_card("_table_card")
        else:
            h.phase = "play"

    def _table_card(self, card: int) -> None:
        h = self._hand
        h.table = sorted(h.table + [card])
        h.pos += 1
        if len(h.table) < 4:
            self._await_card("_table_card")
            return
        self._event(None, f"table {_text(h.table)}")
        h.phase = "play"

    def _sees_position(self, seat: int, k: int) -> bool:
        first = self._packet_cards()
        if first <= k < first + 4:
            return True  # a table card
        j = k if k < first else (k - first - 4) % first
        size, style = int(self._cfg["packet_size"]), str(self._cfg["deal_style"])
        return packet_seat(self._hand.dealer, j, size, style) == seat

    def _end_turn(self, seat: int) -> None:
        h = self._hand
        if any(h.hands):
            h.to_play = (seat + 1) % NUM_PLAYERS
        elif h.pos < NUM_CARDS:
            h.to_play = (seat + 1) % NUM_PLAYERS
            self._deal_packet()
        else:
            self._hand_over()

    def _last_play(self) -> bool:
        """Whether the play under way is the last of the hand (no card held nor undealt)."""
        h = self._hand
        return not any(h.hands) and h.pos >= NUM_CARDS

    def _hand_over(self) -> None:
        h = self._hand
        cfg = self._cfg
        if h.table:
            team: int | None = None
            if h.last_capturer is not None:
                team = h.last_capturer % 2
            elif cfg["leftover_if_no_capture"] == "dealer_team":
                team = h.dealer % 2
            if team is None:
                # Nobody takes them: they stay on the table, scored by neither team.
                self._event(None, f"leftovers {_text(h.table)} go to nobody")
            else:
                h.piles[team] = sorted(h.piles[team] + h.table)
                self._event(None, f"leftovers {_text(h.table)} go to team {team}")
                h.table = []
        pts = score_piles(
            h.piles,
            h.bonus,
            cards_tie=cfg["cards_tie"],
            spades_majority_points=cfg["spades_majority_points"],
            napola_courts_extend=cfg["napola_courts_extend"],
        )
        for t in range(2):
            self._scores[t] += pts["total"][t]
        self._past.append({"dealer": h.dealer, "points": pts, "scores": list(self._scores)})
        self._event(
            None,
            f"hand {h.index} over: "
            + ", ".join(f"{c} {pts[c][0]}-{pts[c][1]}" for c in CATEGORIES)
            + f"; scores {self._scores[0]}-{self._scores[1]}",
        )
        winner: int | None = None
        over = False
        if cfg["game_mode"] == "single_hand":
            over = True
        else:
            spades = [len(set(p) & SPADE_CARDS) for p in h.piles]
            if cfg["all_spades_wins_match"] and 13 in spades:
                winner = spades.index(13)
            elif max(self._scores) >= cfg["target_score"] and self._scores[0] != self._scores[1]:
                winner = 0 if self._scores[0] > self._scores[1] else 1
            over = winner is not None or h.index + 1 >= cfg["max_hands"]
        if not over:
            self._start_hand(h.index + 1, (h.dealer + 1) % NUM_PLAYERS)
            return
        self._terminal = True
        self._winner = winner
        h.phase = "over"
        if cfg["game_mode"] == "single_hand":
            self._event(None, "game over: single hand")
        elif winner is None:
            self._event(None, "match over: draw")
        else:
            self._event(None, f"match over: team {winner} wins")

    # ---------------------------------------------------------------- actions --------------

    def _options(self, card: int) -> list[tuple[int, ...]]:
        return capture_sets(self._hand.table, card, bool(self._cfg["force_single_match"]))

    def _sets_left(self) -> list[tuple[int, ...]]:
        """The capture sets of the capture being made that extend the cards taken so far."""
        h = self._hand
        k = len(h.taken)
        return [s for s in h.options if list(s[:k]) == h.taken]

    def _legal_actions(self) -> list[int]:
        if self._terminal:
            return []
        h = self._hand
        if h.phase == "capture":
            nxt = {s[len(h.taken)] for s in self._sets_left()}
            return sorted(TAKE_BASE + t for t in nxt)
        trails: list[int] = []
        caps: list[int] = []
        for card in h.hands[h.to_play]:
            able = can_capture(h.table, card)
            if able:
                caps.append(CAPTURE_BASE + card)
            if not (able and self._cfg["capture_compulsory"]):
                trails.append(TRAIL_BASE + card)
        return trails + caps

    def _apply(self, action: int) -> None:
        h = self._hand
        p = h.to_play
        if action < CAPTURE_BASE:  # trail (rules §7 play_trail)
            card = action - TRAIL_BASE
            h.hands[p].remove(card)
            h.table = sorted(h.table + [card])
            h.last_trail = card
            h.plays.append(_Play(p, card, None))
            self._event(None, f"{_p(p)} trails {_fmt(card)}")
            self._end_turn(p)
        elif action < TAKE_BASE:  # play to capture (play_capture)
            card = action - CAPTURE_BASE
            h.hands[p].remove(card)
            h.pending = card
            h.taken = []
            h.options = self._options(card)
            h.phase = "capture"
            self._event(None, f"{_p(p)} plays {_fmt(card)} to capture")
            self._complete_if_unique(p)
        else:  # take one table card (take)
            t = action - TAKE_BASE
            h.taken.append(t)
            self._event(None, f"{_p(p)} takes {_fmt(t)}")
            if tuple(h.taken) in h.options:
                self._resolve_capture(p)
            else:
                self._complete_if_unique(p)

    def _complete_if_unique(self, p: int) -> None:
        """Option ``auto_complete_unique`` (rules §12.2): when only one capture set still
        extends the cards taken, its other cards are taken at once."""
        h = self._hand
        if not self._cfg["auto_complete_unique"]:
            return
        left = self._sets_left()
        if len(left) != 1:
            return
        for t in left[0][len(h.taken) :]:
            h.taken.append(t)
            self._event(None, f"{_p(p)} takes {_fmt(t)}")
        self._resolve_capture(p)

    def _resolve_capture(self, p: int) -> None:
        """The capture set is complete: bonuses (rules §4.5), piles, end of the turn."""
        h = self._hand
        cfg = self._cfg
        card = h.pending
        assert card is not None
        taken = set(h.taken)
        names: list[str] = []
        if (
            cfg["bonus_sweep"]
            and taken == set(h.table)
            and (cfg["sweep_on_last_play_counts"] or not self._last_play())
        ):
            names.append("sweep")
        lt = h.last_trail
        if cfg["bonus_left"] and lt is not None:
            if (cfg["left_bonus_mode"] == "any" and lt in taken) or (
                cfg["left_bonus_mode"] == "rank_match" and taken == {lt}
            ):
                names.append("left")
        if cfg["bonus_single_suit"] and all(suit_of(x) == suit_of(card) for x in taken):
            names.append("single suit")
        if cfg["bonus_three_plus"] and len(taken) >= 3:
            names.append("three or more")
        team = p % 2
        h.bonus[team] += len(names)
        h.table = [t for t in h.table if t not in taken]
        h.piles[team] = sorted(h.piles[team] + list(taken) + [card])
        h.plays.append(_Play(p, card, tuple(sorted(taken))))
        h.last_capturer = p
        h.last_trail = None
        h.pending = None
        h.taken = []
        h.options = []
        h.phase = "play"
        self._event(
            None,
            f"{_p(p)} captures {_text(sorted(taken))} with {_fmt(card)}: "
            f"{len(names)} bonus" + (f" ({', '.join(names)})" if names else ""),
        )
        self._end_turn(p)

    def _action_string(self, action: int) -> str:
        a = self._action_id(action)
        if a < CAPTURE_BASE:
            return f"play {_fmt(a - TRAIL_BASE)}"
        if a < TAKE_BASE:
            return f"capture {_fmt(a - CAPTURE_BASE)}"
        return f"take {_fmt(a - TAKE_BASE)}"

    def _string_action(self, text: str) -> int:
        words = text.split()
        bases = {"play": TRAIL_BASE, "capture": CAPTURE_BASE, "take": TAKE_BASE}
        if len(words) == 2 and words[0].lower() in bases:
            return bases[words[0].lower()] + CICERA.parse(words[1])
        raise ParseError(
            f"not a cicera action: {shown(text)} (expected 'play <card>', 'capture <card>' "
            "or 'take <card>')"
        )

    # ---------------------------------------------------------------- returns --------------

    def returns(self) -> list[float]:
        if not self._terminal:
            return [0.0] * NUM_PLAYERS
        if self._cfg["game_mode"] == "single_hand":
            total = self._past[-1]["points"]["total"]
            diff = float(total[0] - total[1])
            return [diff if q % 2 == 0 else -diff for q in range(NUM_PLAYERS)]
        if self._winner is None:
            return [0.0] * NUM_PLAYERS
        return [1.0 if q % 2 == self._winner else -1.0 for q in range(NUM_PLAYERS)]

    # ---------------------------------------------------------------- observations ---------

    def _to_play(self) -> int | None:
        return None if self._terminal or self._chance is not None else self._hand.to_play

    def _view(self, viewer: int | None) -> dict[str, Any]:
        h = self._hand
        return {
            "game": GAME_NAME,
            "viewer": viewer,
            "players": NUM_PLAYERS,
            "teams": [[0, 2], [1, 3]],
            "hand": h.index,
            "dealer": h.dealer,
            "phase": h.phase,
            "to_play": self._to_play(),
            "hands": [
                _fmt_many(h.hands[q]) if viewer is None or viewer == q else None
                for q in range(NUM_PLAYERS)
            ],
            "hand_sizes": [len(cards) for cards in h.hands],
            "stock_size": NUM_CARDS - h.pos,
            "table": _fmt_many(h.table),
            "last_trail": None if h.last_trail is None else _fmt(h.last_trail),
            "pending": None if h.pending is None else _fmt(h.pending),
            "taken": _fmt_many(sorted(h.taken)),
            "plays": [
                {
                    "seat": play.seat,
                    "card": _fmt(play.card),
                    "captured": None if play.captured is None else _fmt_many(play.captured),
                }
                for play in h.plays
            ],
            "piles": [_fmt_many(pile) for pile in h.piles],
            "bonus": list(h.bonus),
            "last_capturer": h.last_capturer,
            "scores": list(self._scores),
            "past_hands": json_copy(self._past),
            "winner": self._winner,
        }

    def _observation_tensor(self, seat: int) -> npt.NDArray[np.float32]:
        h = self._hand
        tensor = TensorBlocks(self._game.observation_tensor_shape())
        out, block = tensor.out, tensor.block

        def rel(q: int) -> int:
            return (q - seat) % NUM_PLAYERS

        mine = seat % 2
        b = block(3)
        if h.phase in _PHASES:  # no phase bit while cards are dealt
            out[b + _PHASES.index(h.phase)] = 1
        b = block(4)
        out[b + rel(h.dealer)] = 1
        b = block(4)
        to_play = self._to_play()
        if to_play is not None:
            out[b + rel(to_play)] = 1
        b = block(52)
        for card in h.hands[seat]:
            out[b + card] = 1
        b = block(52)
        for card in h.table:
            out[b + card] = 1
        b = block(52)
        if h.pending is not None:
            out[b + h.pending] = 1
        b = block(52)
        for card in h.taken:
            out[b + card] = 1
        b = block(52)
        if h.last_trail is not None:
            out[b + h.last_trail] = 1
        b = block(104)
        for k, team in enumerate((mine, 1 - mine)):
            for card in h.piles[team]:
                out[b + 52 * k + card] = 1
        b = block(208)
        for play in h.plays:
            out[b + 52 * rel(play.seat) + play.card] = 1
        b = block(5)
        out[b + (4 if h.last_capturer is None else rel(h.last_capturer))] = 1
        b = block(52)
        for q in range(NUM_PLAYERS):
            out[b + 13 * rel(q) + len(h.hands[q])] = 1
        b = block(33)
        if NUM_CARDS - h.pos <= 32:  # more only while the first packet is dealt: no bit
            out[b + NUM_CARDS - h.pos] = 1
        b = block(4)
        target = float(self._cfg["target_score"])
        out[b] = h.bonus[mine] / 10.0
        out[b + 1] = h.bonus[1 - mine] / 10.0
        out[b + 2] = self._scores[mine] / target
        out[b + 3] = self._scores[1 - mine] / target
        return tensor.done()

    def _render_view(self, view: dict[str, Any]) -> str:
        return _render(view)

    def _describe(self) -> str:
        return f"hand={self._hand.index} phase={self._hand.phase} to_play={self._to_play()}"

    # ---------------------------------------------------------------- determinisation ------

    def _resample(self, seat: int, sampler: SplitMix64) -> CiceraState:
        """A state that ``seat`` cannot tell from this one (docs/engine.md, Determinisation).

        Every card of the current hand that ``seat`` has not seen (the other players'
        unplayed cards and the undealt stock) is re-dealt at random: each other player keeps
        the number of cards he holds, and every card that was played stays with the player who
        played it, in the packet it came from.  Cicera allows no inference about a hand from
        the plays (capturing is optional, and with ``capture_compulsory`` a play only tells
        about the card played), so the hidden cards are uniformly mixed.  Earlier hands are
        kept as they were (every card of theirs was played in public); the history is replayed
        unchanged.
        """
        h = self._hand
        deck = list(h.deck)
        if not self._terminal:
            others = [q for q in range(NUM_PLAYERS) if q != seat]
            # sorted first: shuffled in the true deal's order, a world and its seed would give
            # the true deal back
            hidden = sorted([c for q in others for c in h.hands[q]] + deck[h.pos :])
            sampler.shuffle(hidden)
            held = {c for q in others for c in h.hands[q]}
            slots = [i for i in range(h.pos) if h.deck[i] in held]  # dealt, still unplayed
            for k, i in enumerate(slots):
                deck[i] = hidden[k]
            deck[h.pos :] = hidden[len(slots) :]
        return self._replayed(deck)


def _render(v: dict[str, Any]) -> str:
    """A readable picture of the table from a view."""
    who = "full view" if v["viewer"] is None else f"seen by P{v['viewer']}"
    to_play = "-" if v["to_play"] is None else _p(v["to_play"])
    lines = [
        f"Cicera ({who}): hand {v['hand']}, dealer {_p(v['dealer'])}, phase {v['phase']}, "
        f"to play {to_play}, stock {v['stock_size']}",
        f"scores {v['scores'][0]}-{v['scores'][1]}, hand bonus {v['bonus'][0]}-{v['bonus'][1]}",
        f"table: {' '.join(v['table']) or '-'}"
        + ("" if v["last_trail"] is None else f"  (just trailed {v['last_trail']})"),
    ]
    if v["pending"] is not None:
        lines.append(f"capturing with {v['pending']}, taken: {' '.join(v['taken']) or '-'}")
    for q in range(v["players"]):
        hand = v["hands"][q]
        shown = " ".join(hand) if hand is not None else f"({v['hand_sizes'][q]} cards)"
        lines.append(f"  {_p(q)}: {shown}")
    for t in range(2):
        lines.append(f"  pile {t}: {' '.join(v['piles'][t]) or '-'}")
    if v["last_capturer"] is not None:
        lines.append(f"  last capture by {_p(v['last_capturer'])}")
    for i, past in enumerate(v["past_hands"]):
        total = past["points"]["total"]
        lines.append(
            f"  hand {i}: dealer {_p(past['dealer'])}, points {total[0]}-{total[1]}, "
            f"scores {past['scores'][0]}-{past['scores'][1]}"
        )
    if v["phase"] == "over":
        lines.append("  winner: " + ("-" if v["winner"] is None else f"team {v['winner']}"))
    return "\n".join(lines)
