"""Spoil Five: the pure-Python reference model.

Written from the rules documents only (``shared/rules/spoil_five.md``, ``docs/rules/spoil_five.md``,
``docs/engine.md`` and ``shared/design/api.md``); it is clear rather than fast.  It is the second,
independent implementation that the Rust engine is tested against.

A game is a *match* of several deals.  Everything that happens without a decision (antes, the
shuffle and the deal, the dealer's pick-up of a turned-up ace, trick collection, settlement, the
next deal, the final split of a leftover pool) happens inside ``apply_action`` or when the state
is created, so every non-terminal state is a decision node of one player, except with
``explicit_chance``: then the first dealer (when random) and each of the ``5n + 1`` cards of a
deal (rules §8.3) are chance nodes.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import numpy.typing as npt

from tapete.errors import ConfigError, IllegalActionError, ParseError
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
    shown,
    uniform_assignment,
)
from tapete.reference._base import seat_name as _p
from tapete.reference.cards import FRENCH
from tapete.reference.rng import SplitMix64

__all__ = [
    "DECLINE",
    "DISCARD_BASE",
    "JINK",
    "NUM_DISTINCT_ACTIONS",
    "STAND",
    "SpoilFiveGame",
    "SpoilFiveState",
    "TERMINAL",
    "legal_plays",
    "trick_winner",
    "trump_order",
]

GAME_NAME = "spoil_five"

# Action ids (rules §8.2).
NUM_DISTINCT_ACTIONS = 107
PLAY_BASE = 0  # 0..51: play card id
DISCARD_BASE = 52  # 52..103: put card id-52 face down (rob, or the dealer's put-out)
DECLINE = 104
STAND = 105
JINK = 106

# Suits and ranks (card id = 13 * suit + rank).
CLUBS, DIAMONDS, HEARTS, SPADES = 0, 1, 2, 3
SUIT_LETTERS = "CDHS"
RANK_2, RANK_3, RANK_4, RANK_5, RANK_6, RANK_7, RANK_8, RANK_9, RANK_10 = range(9)
JACK, QUEEN, KING, ACE = 9, 10, 11, 12
ACE_OF_HEARTS = 13 * HEARTS + ACE  # 38

_PHASES_SEEN = ("dealer_rob", "rob", "play", "jink", "over")
_TURN_UP_PLACES = ("stock", "dealer", "hand", "played")
_WON = ("win", "jink_success")


# ----------------------------------------------------------------------------------------------
# Card ranking (rules §2)
# ----------------------------------------------------------------------------------------------


def _card(suit: int, rank: int) -> int:
    return 13 * suit + rank


def suit_of(card: int) -> int:
    """Printed suit of a card id (0 clubs, 1 diamonds, 2 hearts, 3 spades)."""
    return card // 13


def _is_red(suit: int) -> bool:
    return suit in (DIAMONDS, HEARTS)


def _build_trump_order(trump: int) -> tuple[int, ...]:
    """Rules §2.2: the trumps of ``trump``, best first (14 cards, 13 for hearts)."""
    top = [_card(trump, RANK_5), _card(trump, JACK), ACE_OF_HEARTS]
    if trump != HEARTS:
        top.append(_card(trump, ACE))
    top += [_card(trump, KING), _card(trump, QUEEN)]
    if _is_red(trump):  # 10 9 8 7 6 4 3 2: highest in red
        low = [RANK_10, RANK_9, RANK_8, RANK_7, RANK_6, RANK_4, RANK_3, RANK_2]
    else:  # 2 3 4 6 7 8 9 10: lowest in black
        low = [RANK_2, RANK_3, RANK_4, RANK_6, RANK_7, RANK_8, RANK_9, RANK_10]
    return tuple(top + [_card(trump, r) for r in low])


def _build_plain_order(suit: int) -> tuple[int, ...]:
    """Rules §2.3: a suit that is not trumps, best first (hearts never hold their ace)."""
    if _is_red(suit):  # K Q J 10 9 8 7 6 5 4 3 2 A
        ranks = [KING, QUEEN, JACK] + list(range(RANK_10, RANK_2 - 1, -1)) + [ACE]
    else:  # K Q J A 2 3 4 5 6 7 8 9 10
        ranks = [KING, QUEEN, JACK, ACE] + list(range(RANK_2, RANK_10 + 1))
    return tuple(_card(suit, r) for r in ranks if _card(suit, r) != ACE_OF_HEARTS)


TRUMP_ORDER: dict[int, tuple[int, ...]] = {t: _build_trump_order(t) for t in range(4)}
PLAIN_ORDER: dict[int, tuple[int, ...]] = {s: _build_plain_order(s) for s in range(4)}
# Rules §2.4: larger is better.
_TRUMP_STRENGTH: dict[int, dict[int, int]] = {
    t: {c: len(order) - i for i, c in enumerate(order)} for t, order in TRUMP_ORDER.items()
}
_PLAIN_STRENGTH: dict[int, int] = {
    c: len(order) - i for order in PLAIN_ORDER.values() for i, c in enumerate(order)
}


def is_trump(card: int, trump: int) -> bool:
    """The ace of hearts and every card of the trump suit are trumps."""
    return card == ACE_OF_HEARTS or suit_of(card) == trump


def effective_suit(card: int, trump: int) -> int:
    """``trump`` for a trump, else the printed suit."""
    return trump if is_trump(card, trump) else suit_of(card)


def trump_strength(card: int, trump: int) -> int:
    """Rank of a trump (14 best .. 1), 0 for a card that is not a trump."""
    return _TRUMP_STRENGTH[trump].get(card, 0)


def plain_strength(card: int) -> int:
    """Rank of a card in its plain suit (13 best .. 1)."""
    return _PLAIN_STRENGTH[card]


def is_privileged(card: int, trump: int) -> bool:
    """The five and jack of trumps and the ace of hearts (rules §4.3)."""
    return card in (_card(trump, RANK_5), _card(trump, JACK), ACE_OF_HEARTS)


def is_exempt(card: int, reference: int, trump: int) -> bool:
    """Whether a privileged ``card`` may be withheld when the trump ``reference`` sets the bar."""
    return (
        is_privileged(card, trump)
        and is_trump(reference, trump)
        and trump_strength(card, trump) > trump_strength(reference, trump)
    )


def renege_reference_card(trick: Sequence[int], trump: int, renege_reference: str) -> int:
    """The card that exemptions are judged against on a trump lead."""
    if renege_reference == "led_card":
        return trick[0]
    trumps = [c for c in trick if is_trump(c, trump)]
    return max(trumps, key=lambda c: trump_strength(c, trump))


def legal_play_ids(
    hand: Sequence[int], trick: Sequence[int], trump: int, renege_reference: str = "led_card"
) -> list[int]:
    """Rules §4.5 ``legal_plays``: the cards of ``hand`` playable to ``trick``, ascending."""
    if not trick:
        return sorted(hand)
    led = trick[0]
    trumps = {c for c in hand if is_trump(c, trump)}
    if is_trump(led, trump):
        reference = renege_reference_card(trick, trump, renege_reference)
        if any(not is_exempt(c, reference, trump) for c in trumps):
            return sorted(trumps)
        return sorted(hand)
    follow = {c for c in hand if effective_suit(c, trump) == effective_suit(led, trump)}
    if follow:
        return sorted(follow | trumps)
    return sorted(hand)


def trick_winner_index(cards: Sequence[int], trump: int) -> int:
    """Rules §4.5 ``trick_winner``: index into ``cards`` (play order, leader first)."""
    trumps = [i for i, c in enumerate(cards) if is_trump(c, trump)]
    if trumps:
        return max(trumps, key=lambda i: trump_strength(cards[i], trump))
    led_suit = effective_suit(cards[0], trump)
    followers = [i for i, c in enumerate(cards) if effective_suit(c, trump) == led_suit]
    return max(followers, key=lambda i: plain_strength(cards[i]))


# ----------------------------------------------------------------------------------------------
# Public evaluators (strings in, strings out)
# ----------------------------------------------------------------------------------------------


def _parse_trump(trump: object) -> int:
    if isinstance(trump, str) and len(trump) == 1 and trump.upper() in SUIT_LETTERS:
        return SUIT_LETTERS.index(trump.upper())
    raise ParseError(f"not a trump suit: {shown(trump)} (expected one of C D H S)")


def _parse_distinct(cards: object, what: str) -> list[int]:
    if isinstance(cards, (str, bytes)) or not isinstance(cards, Sequence):
        raise ParseError(f"{what} must be a list of card strings, got {shown(cards)}")
    ids = FRENCH.parse_many(cards)
    if len(set(ids)) != len(ids):
        raise ValueError(f"{what} holds the same card twice: {shown(list(cards))}")
    return ids


def trump_order(trump: str) -> list[str]:
    """The trumps when ``trump`` (C, D, H or S) is trumps, best first."""
    return FRENCH.format_many(TRUMP_ORDER[_parse_trump(trump)])


def trick_winner(trump: str, cards: Sequence[str]) -> int:
    """Index in ``cards`` (leader first) of the card that wins the trick."""
    t = _parse_trump(trump)
    ids = _parse_distinct(cards, "a trick")
    if not 1 <= len(ids) <= 10:
        raise ValueError(f"a trick holds 1 to 10 cards, got {len(ids)}")
    return trick_winner_index(ids, t)


def legal_plays(trump: str, hand: Sequence[str], trick: Sequence[str]) -> list[str]:
    """The cards of ``hand`` that may be played to ``trick`` (renege_reference = led_card)."""
    t = _parse_trump(trump)
    hand_ids = _parse_distinct(hand, "a hand")
    trick_ids = _parse_distinct(trick, "a trick")
    if not 1 <= len(hand_ids) <= 5:
        raise ValueError(f"a hand holds 1 to 5 cards, got {len(hand_ids)}")
    if len(trick_ids) > 9:
        raise ValueError(f"a trick being played to holds at most 9 cards, got {len(trick_ids)}")
    if set(hand_ids) & set(trick_ids):
        raise ValueError("a card cannot be both in the hand and in the trick")
    return FRENCH.format_many(legal_play_ids(hand_ids, trick_ids, t))


# ----------------------------------------------------------------------------------------------
# Configuration
# ----------------------------------------------------------------------------------------------

_DEFAULTS: dict[str, Any] = {
    "players": 4,
    "partnerships": "none",
    "first_dealer": "random",
    "deal_batches": [2, 3],
    "ante_mode": "every_deal",
    "base_stake": 1,
    "dealer_stake": 2,
    "pool_stake": 2,
    "spoil_stake": 1,
    "dealer_extra": 1,
    "rob_policy": "enforced",
    "rob_timing": "at_turn",
    "renege_reference": "led_card",
    "jinking": True,
    "jink_payment": "payer_stake",
    "team_remainder": "to_pool",
    "early_spoil_stop": False,
    "num_deals": None,
    "leftover_pool": "play_on",
    "max_extra_deals": 10,
}
_CHOICES: dict[str, tuple[str, ...]] = {
    "ante_mode": ("every_deal", "reduced_after_spoil", "dealer_only_after_spoil"),
    "rob_policy": ("enforced", "penalty", "optional", "disabled"),
    "rob_timing": ("at_turn", "before_first_lead"),
    "renege_reference": ("led_card", "highest_trump_so_far"),
    "jink_payment": ("payer_stake", "jinker_stake"),
    "team_remainder": ("to_pool",),
    "leftover_pool": ("play_on", "split_equally", "unresolved"),
}
_STAKE_KEYS = ("base_stake", "dealer_stake", "pool_stake", "spoil_stake", "dealer_extra")


def _validate_config(raw: dict[str, Any]) -> dict[str, Any]:
    merged = merge_config(GAME_NAME, raw, _DEFAULTS)
    cfg: dict[str, Any] = {}
    n = int_in("players", merged["players"], 2, 10)
    cfg["players"] = n

    parts = merged["partnerships"]
    if isinstance(parts, str):
        if parts != "none":
            raise ConfigError(f'partnerships must be "none" or a list of teams, got {shown(parts)}')
        cfg["partnerships"] = "none"
    elif isinstance(parts, (list, tuple)):
        teams: list[list[int]] = []
        for team in parts:
            if not isinstance(team, (list, tuple)) or not team:
                raise ConfigError(f"each team must be a non-empty list of seats, got {shown(team)}")
            teams.append([int_in("a partnership seat", s, 0, n - 1) for s in team])
        seats = sorted(s for team in teams for s in team)
        if seats != list(range(n)):
            raise ConfigError(
                f"partnerships must cover every seat 0..{n - 1} exactly once, got {shown(parts)}"
            )
        if len(teams) < 2:
            raise ConfigError(f"partnerships need at least two teams, got {shown(parts)}")
        cfg["partnerships"] = teams
    else:
        raise ConfigError(f'partnerships must be "none" or a list of teams, got {shown(parts)}')

    cfg["first_dealer"] = first_dealer(merged["first_dealer"], n, "a seat")

    batches = merged["deal_batches"]
    if (
        not isinstance(batches, (list, tuple))
        or not all(as_int(b) is not None for b in batches)
        or [int(b) for b in batches] not in ([2, 3], [3, 2])
    ):
        raise ConfigError(f"deal_batches must be [2, 3] or [3, 2], got {shown(batches)}")
    cfg["deal_batches"] = [int(b) for b in batches]

    for key in ("ante_mode",):
        cfg[key] = choice(key, merged[key], _CHOICES[key])
    for key in _STAKE_KEYS:
        cfg[key] = int_in(key, merged[key], 0, 1000)
    for key in ("rob_policy", "rob_timing", "renege_reference"):
        cfg[key] = choice(key, merged[key], _CHOICES[key])
    cfg["jinking"] = boolean("jinking", merged["jinking"])
    for key in ("jink_payment", "team_remainder"):
        cfg[key] = choice(key, merged[key], _CHOICES[key])
    cfg["early_spoil_stop"] = boolean("early_spoil_stop", merged["early_spoil_stop"])
    deals = merged["num_deals"]
    cfg["num_deals"] = n if deals is None else int_in("num_deals", deals, 1, 1000)
    for key in ("leftover_pool",):
        cfg[key] = choice(key, merged[key], _CHOICES[key])
    cfg["max_extra_deals"] = int_in("max_extra_deals", merged["max_extra_deals"], 0, 1000)
    return cfg


# ----------------------------------------------------------------------------------------------
# Game
# ----------------------------------------------------------------------------------------------


class SpoilFiveGame(ReferenceGame["SpoilFiveState"]):
    """A Spoil Five match with a fixed configuration."""

    _name = GAME_NAME
    _pack = FRENCH
    _defaults = _DEFAULTS
    _num_actions = NUM_DISTINCT_ACTIONS
    _max_chance_outcomes = 52

    def __init__(self, **config: Any) -> None:
        super().__init__(**config)
        n: int = self._cfg["players"]
        if self._cfg["partnerships"] == "none":
            teams = [[s] for s in range(n)]
        else:
            teams = [list(t) for t in self._cfg["partnerships"]]
        self._teams: list[list[int]] = teams
        self._side_of: list[int] = [0] * n
        for i, team in enumerate(teams):
            for s in team:
                self._side_of[s] = i

    def _validate(self, raw: dict[str, Any]) -> dict[str, Any]:
        return _validate_config(raw)

    def _new_state(self, seed: int, given: list[list[int]]) -> SpoilFiveState:
        return SpoilFiveState(self, seed, given)

    def observation_tensor_shape(self) -> tuple[int, ...]:
        return (277 * self.num_players() + 181,)

    def max_game_length(self) -> int:
        n = self.num_players()
        extra = self._cfg["max_extra_deals"] if self._cfg["leftover_pool"] == "play_on" else 0
        return int((self._cfg["num_deals"] + extra) * (5 * n + 2))

    def _utility_bounds(self) -> tuple[float, float]:
        cfg = self._cfg
        # Per deal a seat pays at most its largest ante and one jink payment, and wins at most
        # what all the others pay, over every deal the match can have.
        extra = cfg["max_extra_deals"] if cfg["leftover_pool"] == "play_on" else 0
        deals = cfg["num_deals"] + extra
        fresh = max(cfg["base_stake"], cfg["dealer_stake"])
        if cfg["ante_mode"] == "reduced_after_spoil":
            ante = max(cfg["pool_stake"], cfg["spoil_stake"]) + cfg["dealer_extra"]
            jink = cfg["pool_stake"] + cfg["dealer_extra"]
        else:
            ante = jink = fresh
        per_deal = ante + (jink if cfg["jinking"] else 0)
        return (float(0 - deals * per_deal), float((self.num_players() - 1) * deals * per_deal))

    def _changed_config(self) -> dict[str, Any]:
        changed = {k: v for k, v in self._cfg.items() if k != "num_deals" and v != _DEFAULTS[k]}
        if self._cfg["num_deals"] != self._cfg["players"]:
            changed["num_deals"] = self._cfg["num_deals"]
        return changed


# ----------------------------------------------------------------------------------------------
# State
# ----------------------------------------------------------------------------------------------


@dataclass
class _Trick:
    leader: int
    plays: list[tuple[int, int]] = field(default_factory=list)  # (seat, card)
    winner: int | None = None

    def cards(self) -> list[int]:
        return [c for _, c in self.plays]


@dataclass
class _Deal:
    """Everything about the deal under way (or the last deal, at the end of the match)."""

    index: int
    dealer: int
    eldest: int
    deck: list[int]
    antes: list[int]
    dealt: list[list[int]]
    hands: list[list[int]]  # kept sorted
    turn_up: int | None  # None (and trump too) while the deal is under way
    trump: int | None
    dealer_ace: bool  # the turn-up is an ace (rules §3.2)
    holder: int | None  # who was dealt the ace of trumps (rules §3.3), if anybody
    rob_pending: bool  # the holder's ROB decision is still to come
    turn_up_at: str | None  # stock / dealer / hand / played
    robber: int | None
    put_out: list[int | None]
    declined: list[bool]
    ineligible: list[bool]
    phase: str  # chance (the deal) / dealer_rob / rob / play / jink / over
    to_play: int
    tricks: list[_Trick]
    current: _Trick | None
    tricks_won: list[int]  # per seat, every trick of the deal
    side_tricks: list[int]  # per side, as counted by rules §5.1
    jinker: int | None = None
    outcome: str | None = None
    winner: int | None = None


def _cards_text(cards: Sequence[int]) -> str:
    return " ".join(FRENCH.to_string(c) for c in cards)


class SpoilFiveState(ReferenceState):
    """A Spoil Five match in progress.  Create it with ``SpoilFiveGame.new_initial_state``."""

    _game: SpoilFiveGame

    _unit = "match"

    def __init__(self, game: SpoilFiveGame, seed: int, given_decks: list[list[int]]) -> None:
        super().__init__(game, seed, given_decks)
        self._log: list[tuple[int, int, str]] = []  # (actor, action, phase) per decision
        self._deal_starts: list[tuple[int, int]] = []  # (history, log) lengths at each deal

        self._balances: list[int] = [0] * self._n
        self._pool = 0
        self._past: list[dict[str, Any]] = []
        self._share = 0.0  # each seat's share of the pool left at the end of the match
        self._deal: _Deal
        self._begin()

    def _first_deal(self, dealer: int) -> None:
        self._start_deal(0, dealer)

    # ---------------------------------------------------------------- match flow -----------

    def _full_stake(self, seat: int, dealer: int) -> int:
        """Rules §1.4: what ``seat`` would ante on a fresh pool in his role this deal."""
        c = self._cfg
        if c["ante_mode"] == "reduced_after_spoil":
            return int(c["pool_stake"] + (c["dealer_extra"] if seat == dealer else 0))
        return int(c["dealer_stake"] if seat == dealer else c["base_stake"])

    def _antes(self, dealer: int, fresh: bool) -> list[int]:
        c = self._cfg
        mode = c["ante_mode"]
        antes = []
        for q in range(self._n):
            if mode == "every_deal" or fresh:
                antes.append(self._full_stake(q, dealer))
            elif mode == "reduced_after_spoil":
                antes.append(c["spoil_stake"] + (c["dealer_extra"] if q == dealer else 0))
            else:  # dealer_only_after_spoil
                antes.append(c["dealer_stake"] if q == dealer else 0)
        return antes

    def _start_deal(self, index: int, dealer: int) -> None:
        """Antes (rules §1.4), then the deal's ``5n + 1`` chance nodes (§1.5, §8.3)."""
        n = self._n
        fresh = index == 0 or self._past[-1]["outcome"] in _WON
        antes = self._antes(dealer, fresh)
        for q in range(n):
            self._balances[q] -= antes[q]
            self._pool += antes[q]
        deck = self._draw_deck(index)
        self._deal_starts.append((len(self._history), len(self._log)))
        eldest = (dealer + 1) % n
        self._deal = _Deal(
            index=index,
            dealer=dealer,
            eldest=eldest,
            deck=deck,
            antes=antes,
            dealt=[[] for _ in range(n)],
            hands=[[] for _ in range(n)],
            turn_up=None,
            trump=None,
            dealer_ace=False,
            holder=None,
            rob_pending=False,
            turn_up_at=None,
            robber=None,
            put_out=[None] * n,
            declined=[False] * n,
            ineligible=[False] * n,
            phase="chance",
            to_play=eldest,
            tricks=[],
            current=None,
            tricks_won=[0] * n,
            side_tricks=[0] * len(self._game._teams),
        )
        self._event(
            None,
            f"deal {index}: dealer {_p(dealer)}, antes {antes}, pool {self._pool}, "
            f"balances {self._balances}",
        )
        self._await_card("_deal_card")

    def _recipient(self, k: int) -> int:
        """The seat dealt deck position ``k < 5n`` (rules §1.5, with ``deal_batches``)."""
        d = self._deal
        first, second = (int(b) for b in self._cfg["deal_batches"])
        if k < first * self._n:
            return (d.dealer + 1 + k // first) % self._n
        return (d.dealer + 1 + (k - first * self._n) // second) % self._n

    def _sees_position(self, seat: int, k: int) -> bool:
        return k == 5 * self._n or self._recipient(k) == seat

    def _deal_card(self, card: int) -> None:
        """Deck position ``k``: a card to a hand, or (``k = 5n``) the turn-up."""
        d = self._deal
        k = self._drawn - 1
        if k < 5 * self._n:
            seat = self._recipient(k)
            d.dealt[seat].append(card)
            d.hands[seat] = sorted(d.dealt[seat])
            self._await_card("_deal_card")
            return
        n = self._n
        turn_up = card
        trump = suit_of(turn_up)
        ace = _card(trump, ACE)
        d.dealt = [sorted(h) for h in d.dealt]
        d.turn_up, d.trump, d.turn_up_at = turn_up, trump, "stock"
        d.dealer_ace = turn_up == ace
        if not d.dealer_ace:
            d.holder = next((q for q in range(n) if ace in d.dealt[q]), None)
        policy = self._cfg["rob_policy"]
        d.rob_pending = d.holder is not None and policy != "disabled"
        d.phase = "play"
        d.current = _Trick(leader=d.eldest)
        for q in range(n):
            self._event(q, f"{_p(q)} is dealt {_cards_text(d.dealt[q])}")
        self._event(None, f"turn-up {FRENCH.to_string(turn_up)}: {SUIT_LETTERS[trump]} are trumps")
        if d.dealer_ace and policy != "disabled":
            d.phase = "dealer_rob"
            d.to_play = d.dealer
        elif d.rob_pending and self._cfg["rob_timing"] == "before_first_lead":
            d.phase = "rob"
            assert d.holder is not None
            d.to_play = d.holder
        else:
            self._begin_turn()

    def _begin_turn(self) -> None:
        """Automatic events when ``to_play`` reaches his turn in trick 1 (rules §3.2, §3.3)."""
        d = self._deal
        if d.tricks:
            return
        p = d.to_play
        if d.dealer_ace and p == d.dealer and d.turn_up_at == "dealer":
            assert d.turn_up is not None
            d.hands[p] = sorted(d.hands[p] + [d.turn_up])
            d.turn_up_at = "hand"
            self._event(None, f"{FRENCH.to_string(d.turn_up)} joins {_p(p)}'s hand")
        if d.rob_pending and p == d.holder and self._cfg["rob_timing"] == "at_turn":
            d.phase = "rob"

    def _finish_trick(self) -> None:
        """Rules §5.1, after each completed trick."""
        d = self._deal
        trick = d.current
        assert trick is not None and d.trump is not None
        w = trick.plays[trick_winner_index(trick.cards(), d.trump)][0]
        trick.winner = w
        d.tricks.append(trick)
        d.current = None
        d.tricks_won[w] += 1
        k = len(d.tricks)
        self._event(None, f"trick {k} won by {_p(w)}")
        side_of = self._game._side_of
        side = side_of[w]
        if d.jinker is not None:
            if side != side_of[d.jinker]:
                self._end_deal("jink_failed", d.jinker)
            elif k == 5:
                self._end_deal("jink_success", d.jinker)
            else:
                self._next_trick(w)
            return
        d.side_tricks[side] += 1
        if d.side_tricks[side] == 3:
            if self._side_ineligible(side):
                self._end_deal("forfeited_win", w)
            elif self._cfg["jinking"] and k == 3:
                d.phase = "jink"
                d.to_play = w
            else:
                self._end_deal("win", w)
        elif k == 5:
            self._end_deal("spoil", None)
        elif self._cfg["early_spoil_stop"] and not any(
            not self._side_ineligible(s) and d.side_tricks[s] + (5 - k) >= 3
            for s in range(len(d.side_tricks))
        ):
            self._end_deal("spoil", None)
        else:
            self._next_trick(w)

    def _next_trick(self, leader: int) -> None:
        d = self._deal
        d.current = _Trick(leader=leader)
        d.phase = "play"
        d.to_play = leader

    def _side_ineligible(self, side: int) -> bool:
        return any(self._deal.ineligible[q] for q in self._game._teams[side])

    def _credit(self, side: int, amount: int) -> None:
        """Rules §5.4 ``credit``: shared by the side's members, the remainder to the pool."""
        members = self._game._teams[side]
        for q in members:
            self._balances[q] += amount // len(members)
        self._pool += amount % len(members)

    def _end_deal(self, outcome: str, winner: int | None) -> None:
        """Settlement (rules §5.4), then the next deal or the end of the match (§5.7)."""
        d = self._deal
        d.outcome = outcome
        d.winner = winner
        d.phase = "over"
        d.current = None
        side_of = self._game._side_of
        if outcome in _WON:
            assert winner is not None
            side = side_of[winner]
            pool, self._pool = self._pool, 0
            self._credit(side, pool)
            if outcome == "jink_success":
                total = 0
                for q in range(self._n):
                    if side_of[q] != side:
                        if self._cfg["jink_payment"] == "payer_stake":
                            amount = self._full_stake(q, d.dealer)
                        else:
                            amount = self._full_stake(winner, d.dealer)
                        self._balances[q] -= amount
                        total += amount
                self._credit(side, total)
        self._past.append(
            {
                "dealer": d.dealer,
                "outcome": outcome,
                "winner": winner,
                "tricks_won": list(d.tricks_won),
                "ineligible": list(d.ineligible),
            }
        )
        text = f"deal {d.index} over: {outcome}"
        if winner is not None:
            text += f" ({_p(winner)})"
        text += f"; pool {self._pool}, balances {self._balances}"
        if self._cfg["rob_policy"] == "penalty":
            text += f", ineligible {d.ineligible}"
        self._event(None, text)

        num_deals = self._cfg["num_deals"]
        more = False
        if d.index + 1 < num_deals:
            more = True
        elif self._pool != 0 and outcome not in _WON:
            if self._cfg["leftover_pool"] == "play_on":
                more = d.index + 1 - num_deals < self._cfg["max_extra_deals"]
        if more:
            self._start_deal(d.index + 1, (d.dealer + 1) % self._n)
            return
        self._terminal = True
        if self._cfg["leftover_pool"] != "unresolved":
            self._share = self._pool / self._n
        self._event(None, f"match over: returns {self.returns()}")

    # ---------------------------------------------------------------- actions --------------

    def _to_play(self) -> int | None:
        return None if self._terminal else self._deal.to_play

    def _legal_actions(self) -> list[int]:
        if self._terminal:
            return []
        d = self._deal
        if d.phase in ("dealer_rob", "rob"):
            actions = [DISCARD_BASE + c for c in d.hands[d.to_play]]
            if self._cfg["rob_policy"] in ("penalty", "optional"):
                actions.append(DECLINE)
            return actions
        if d.phase == "jink":
            return [STAND, JINK]
        assert d.current is not None and d.trump is not None
        return legal_play_ids(
            d.hands[d.to_play], d.current.cards(), d.trump, self._cfg["renege_reference"]
        )

    def _apply(self, action: int) -> None:
        d = self._deal
        p = d.to_play
        phase = d.phase
        self._log.append((p, action, phase))
        policy_penalty = self._cfg["rob_policy"] == "penalty"
        if phase == "dealer_rob":
            if action == DECLINE:
                d.declined[p] = True
                d.ineligible[p] = policy_penalty
                self._event(
                    None, f"{_p(p)} (dealer) declines to rob; the turn-up stays on the stock"
                )
            else:
                card = action - DISCARD_BASE
                d.hands[p].remove(card)
                d.put_out[p] = card
                d.robber = p
                d.turn_up_at = "dealer"
                self._event(None, f"{_p(p)} (dealer) puts out a card face down")
                self._event(p, f"{_p(p)} puts out {FRENCH.to_string(card)}")
            d.phase = "play"
            d.to_play = d.eldest
            self._begin_turn()
        elif phase == "rob":
            d.rob_pending = False
            if action == DECLINE:
                d.declined[p] = True
                d.ineligible[p] = policy_penalty
                self._event(p, f"{_p(p)} declines to rob")
            else:
                card = action - DISCARD_BASE
                assert d.turn_up is not None
                d.hands[p].remove(card)
                d.hands[p] = sorted(d.hands[p] + [d.turn_up])
                d.put_out[p] = card
                d.robber = p
                d.turn_up_at = "hand"
                self._event(None, f"{_p(p)} robs: takes {FRENCH.to_string(d.turn_up)}")
                self._event(p, f"{_p(p)} puts out {FRENCH.to_string(card)}")
            d.phase = "play"
            if self._cfg["rob_timing"] == "before_first_lead":
                d.to_play = d.eldest
                self._begin_turn()
        elif phase == "jink":
            if action == STAND:
                self._event(None, f"{_p(p)} stands")
                self._end_deal("win", p)
            else:
                d.jinker = p
                self._event(None, f"{_p(p)} jinks")
                self._next_trick(p)
        else:
            assert d.current is not None
            d.hands[p].remove(action)
            d.current.plays.append((p, action))
            if action == d.turn_up:
                d.turn_up_at = "played"
            self._event(None, f"{_p(p)} plays {FRENCH.to_string(action)}")
            if len(d.current.plays) < self._n:
                d.to_play = (p + 1) % self._n
                self._begin_turn()
            else:
                self._finish_trick()

    def _action_string(self, action: int) -> str:
        a = self._action_id(action)
        if a < DISCARD_BASE:
            return f"play {FRENCH.to_string(a)}"
        if a < DECLINE:
            return f"rob {FRENCH.to_string(a - DISCARD_BASE)}"
        return {DECLINE: "decline", STAND: "stand", JINK: "jink"}[a]

    def _string_action(self, text: str) -> int:
        words = text.split()
        if len(words) == 1:
            word = words[0].lower()
            if word in ("decline", "stand", "jink"):
                return {"decline": DECLINE, "stand": STAND, "jink": JINK}[word]
        elif len(words) == 2 and words[0].lower() in ("play", "rob"):
            card = FRENCH.parse(words[1])
            return (PLAY_BASE if words[0].lower() == "play" else DISCARD_BASE) + card
        raise ParseError(
            f"not a spoil_five action: {shown(text)} (expected 'play <card>', 'rob <card>', "
            "'decline', 'stand' or 'jink')"
        )

    # ---------------------------------------------------------------- money ----------------

    def returns(self) -> list[float]:
        return [float(b) + self._share for b in self._balances]

    # ---------------------------------------------------------------- observations ---------

    def _seen_phase(self, viewer: int | None) -> tuple[str, int | None]:
        """Phase and player to act as ``viewer`` sees them (a hand-held rob node is private)."""
        if self._terminal:
            return "over", None
        if self._chance is not None:
            return "chance", None
        d = self._deal
        if d.phase == "rob" and viewer is not None and viewer != d.to_play:
            if self._cfg["rob_timing"] == "at_turn":
                return "play", d.to_play
            return "play", d.eldest
        return d.phase, d.to_play

    def _view(self, viewer: int | None) -> dict[str, Any]:
        d = self._deal
        n = self._n

        def sees(q: int) -> bool:
            return viewer is None or viewer == q

        phase, to_play = self._seen_phase(viewer)
        current: dict[str, Any] | None = None
        if phase not in ("jink", "over") and d.current is not None:
            current = {
                "leader": d.current.leader,
                "plays": [[s, FRENCH.to_string(c)] for s, c in d.current.plays],
            }
        put_out: list[str | None] = []
        for q in range(n):
            card = d.put_out[q]
            put_out.append(FRENCH.to_string(card) if card is not None and sees(q) else None)
        return {
            "game": GAME_NAME,
            "viewer": viewer,
            "players": n,
            "teams": [sorted(t) for t in self._game._teams],
            "deal": d.index,
            "dealer": d.dealer,
            "phase": phase,
            "to_play": to_play,
            "trump": None if d.trump is None else SUIT_LETTERS[d.trump],
            "turn_up": None if d.turn_up is None else FRENCH.to_string(d.turn_up),
            "turn_up_at": d.turn_up_at,
            "robber": d.robber,
            "hands": [FRENCH.format_many(d.hands[q]) if sees(q) else None for q in range(n)],
            "hand_sizes": [len(h) for h in d.hands],
            "put_out": put_out,
            "declined": [d.declined[q] if sees(q) else None for q in range(n)],
            "tricks": [
                {
                    "leader": t.leader,
                    "plays": [[s, FRENCH.to_string(c)] for s, c in t.plays],
                    "winner": t.winner,
                }
                for t in d.tricks
            ],
            "current_trick": current,
            "tricks_won": list(d.tricks_won),
            "jinker": d.jinker,
            "pool": self._pool,
            "balances": list(self._balances),
            "antes": list(d.antes),
            "past_deals": json_copy(self._past),
        }

    def _observation_tensor(self, seat: int) -> npt.NDArray[np.float32]:
        v = self.view(seat)
        d = self._deal
        n = self._n
        c = self._cfg
        scale = float(
            n * max(1, c["base_stake"], c["dealer_stake"], c["pool_stake"] + c["dealer_extra"])
        )

        def rel(q: int) -> int:
            return (q - seat) % n

        tensor = TensorBlocks(self._game.observation_tensor_shape())
        out, block = tensor.out, tensor.block

        b = block(5)
        if v["phase"] in _PHASES_SEEN:  # no phase bit during the deal
            out[b + _PHASES_SEEN.index(v["phase"])] = 1
        b = block(n)
        if v["to_play"] is not None:
            out[b + rel(v["to_play"])] = 1
        b = block(n)
        out[b + rel(d.dealer)] = 1
        b = block(4)
        if d.trump is not None:
            out[b + d.trump] = 1
        b = block(52)
        if d.turn_up is not None:
            out[b + d.turn_up] = 1
        b = block(4)
        if d.turn_up_at is not None:
            out[b + _TURN_UP_PLACES.index(d.turn_up_at)] = 1
        b = block(n + 1)
        out[b + (n if d.robber is None else rel(d.robber))] = 1
        b = block(52)
        for card in d.hands[seat]:
            out[b + card] = 1
        b = block(52)
        own_put = d.put_out[seat]
        if own_put is not None:
            out[b + own_put] = 1
        tricks = list(d.tricks)
        if v["current_trick"] is not None and d.current is not None:
            tricks.append(d.current)
        b = block(260 * n)
        for t, trick in enumerate(tricks):
            for s, card in trick.plays:
                out[b + t * n * 52 + rel(s) * 52 + card] = 1
        b = block(5 * (n + 1))
        for t in range(5):
            if t < len(tricks):
                out[b + t * (n + 1) + rel(tricks[t].leader)] = 1
            else:
                out[b + t * (n + 1) + n] = 1
        b = block(6 * n)
        for q in range(n):
            out[b + rel(q) * 6 + d.tricks_won[q]] = 1
        b = block(3)
        if v["phase"] == "jink":
            out[b + 1] = 1
        elif d.jinker is not None:
            out[b + 2] = 1
        else:
            out[b] = 1
        b = block(n)
        if d.declined[seat]:
            out[b] = 1
        num_deals = c["num_deals"]
        b = block(3)
        out[b] = self._pool / scale
        out[b + 1] = d.index / num_deals
        out[b + 2] = max(num_deals - d.index, 0) / num_deals
        b = block(n)
        for q in range(n):
            out[b + rel(q)] = self._balances[q] / scale
        b = block(n)
        for q in range(n):
            out[b + rel(q)] = d.antes[q] / scale
        return tensor.done()

    def _render_view(self, view: dict[str, Any]) -> str:
        return _render(view)

    def _describe(self) -> str:
        phase, to_play = self._seen_phase(None)
        return f"deal={self._deal.index} phase={phase} to_play={to_play}"

    # ---------------------------------------------------------------- determinisation ------

    def _resample(self, seat: int, sampler: SplitMix64) -> SpoilFiveState:
        """A state that ``seat`` cannot tell from this one (docs/engine.md, Determinisation).

        Every card of the current deal that ``seat`` cannot see is re-dealt uniformly among the
        places it could be (other hands, put-out cards, the stock), respecting what ``seat`` can
        infer: failures to follow suit, reneges on trump leads, who robbed, and who could still
        hold or have declined to rob with the ace of trumps.  Earlier deals are kept as they
        were.  Each candidate is replayed through the checked ``apply_action`` and kept only if
        ``seat`` observes exactly the same (``_seen_by``: its view, observation and information
        state, its turn and legal actions), so the kept world is uniform over the consistent
        ones; after 2000 failed candidates the true hidden cards are kept.
        """
        target = self._seen_by(seat)
        for _ in range(2000):
            candidate = self._try_resample(seat, sampler)
            if candidate is not None and candidate._seen_by(seat) == target:
                return candidate
        fallback = self.clone()
        fallback._given = [list(deck) for deck in fallback._decks]
        return fallback

    def _try_resample(self, seat: int, sampler: SplitMix64) -> SpoilFiveState | None:
        d = self._deal
        n = self._n
        trump = d.trump
        assert trump is not None and d.turn_up is not None
        ace = _card(trump, ACE)
        all_tricks = list(d.tricks) + ([d.current] if d.current is not None else [])
        played: list[list[int]] = [[] for _ in range(n)]
        for trick in all_tricks:
            for s, card in trick.plays:
                played[s].append(card)

        known: set[int] = set(d.hands[seat]) | {d.turn_up}
        known |= {c for plays in played for c in plays}
        own_put = d.put_out[seat]
        if own_put is not None:
            known.add(own_put)
        hidden = [c for c in range(52) if c not in known]

        # Places for hidden cards: (kind, seat, capacity).
        turn_up_in_hand = d.turn_up_at == "hand"
        slots: list[tuple[str, int, int]] = []
        for q in range(n):
            if q == seat:
                continue
            size = len(d.hands[q]) - (1 if turn_up_in_hand and d.robber == q else 0)
            slots.append(("hand", q, size))
            if d.put_out[q] is not None:
                slots.append(("put", q, 1))
        stock_size = len(hidden) - sum(cap for _, _, cap in slots)
        slots.append(("stock", -1, stock_size))

        # What the viewer can infer from the plays: voids and reneges.
        forbidden: list[set[int]] = [set() for _ in range(n)]
        for trick in all_tricks:
            cards = trick.cards()
            if not cards:
                continue
            led = cards[0]
            for i in range(1, len(trick.plays)):
                q, card = trick.plays[i]
                if q == seat or is_trump(card, trump):
                    continue
                if is_trump(led, trump):
                    reference = renege_reference_card(
                        cards[:i], trump, self._cfg["renege_reference"]
                    )
                    forbidden[q] |= {
                        t for t in TRUMP_ORDER[trump] if not is_exempt(t, reference, trump)
                    }
                elif suit_of(card) != suit_of(led):
                    led_suit = suit_of(led)
                    forbidden[q] |= {c for c in PLAIN_ORDER[led_suit] if not is_trump(c, trump)}

        # Where the ace of trumps may be, when it is dealt to a hand and hidden (rules §3.3-3.5).
        policy = self._cfg["rob_policy"]
        ace_hand_ok: list[bool] = [True] * n
        ace_put_ok: list[bool] = [False] * n
        ace_stock_ok = True
        if not d.dealer_ace and ace in hidden:
            trick1 = d.tricks[0] if d.tricks else d.current
            trick1_players = {s for s, _ in trick1.plays} if trick1 is not None else set()
            any_play = bool(d.tricks) or bool(trick1_players)
            if d.robber is not None:
                ace_hand_ok = [q == d.robber for q in range(n)]
                ace_put_ok = [q == d.robber for q in range(n)]
                ace_stock_ok = False
            elif policy != "disabled":
                for q in range(n):
                    if self._cfg["rob_timing"] == "at_turn":
                        passed = q in trick1_players or bool(d.tricks)
                    else:
                        passed = any_play
                    if not passed or policy == "optional":
                        continue
                    if policy == "enforced":
                        ace_hand_ok[q] = False
                    elif d.outcome is not None:  # penalty, flags public at settlement
                        ace_hand_ok[q] = d.ineligible[q]
                    else:  # penalty: a side known to be eligible has no decliner
                        ace_hand_ok[q] = d.side_tricks[self._game._side_of[q]] < 3
                if (
                    policy == "penalty"
                    and d.outcome is not None
                    and any(d.ineligible[q] for q in range(n) if q != seat)
                ):
                    ace_stock_ok = False

        def allowed(card: int, place: int) -> bool:
            kind, q, _ = slots[place]
            if kind == "hand":
                if card in forbidden[q]:
                    return False
                return card != ace or ace_hand_ok[q]
            if kind == "put":
                return card != ace or ace_put_ok[q]
            return card != ace or ace_stock_ok

        places = uniform_assignment(hidden, [cap for _, _, cap in slots], allowed, sampler)
        if places is None:
            return None

        # Rebuild the deal's deck from the sampled places.
        hands: list[list[int]] = [list(d.hands[q]) if q == seat else [] for q in range(n)]
        put_out: list[int | None] = list(d.put_out)
        stock: list[int] = []
        for (kind, q, _), cards in zip(slots, places):
            if kind == "hand":
                hands[q].extend(cards)
            elif kind == "put":
                put_out[q] = cards[0]
            else:
                stock.extend(cards)
        for q in range(n):
            if q != seat and turn_up_in_hand and d.robber == q:
                hands[q].append(d.turn_up)
        dealt: list[list[int]] = []
        for q in range(n):
            cards = hands[q] + played[q]
            put_card = put_out[q]
            if put_card is not None:
                cards.append(put_card)
            if d.robber == q and d.turn_up_at in ("hand", "played"):
                cards.remove(d.turn_up)
            if len(cards) != 5:
                return None
            sampler.shuffle(cards)
            dealt.append(cards)
        sampler.shuffle(stock)
        first, second = self._cfg["deal_batches"]
        deck = [0] * 52
        taken = [0] * n
        for k in range(5 * n):
            if k < first * n:
                q = (d.dealer + 1 + k // first) % n
            else:
                q = (d.dealer + 1 + (k - first * n) // second) % n
            deck[k] = dealt[q][taken[q]]
            taken[q] += 1
        deck[5 * n] = d.turn_up
        deck[5 * n + 1 :] = stock

        # Replay: earlier deals exactly, this deal with the sampled hidden choices.
        state = self._restarted(deck)
        start, logged = self._deal_starts[-1]
        try:
            for action in self._history[:start]:
                state.apply_action(action)
            state._feed()
            if state._deal.index != d.index:
                return None
            for actor, action, phase in self._log[logged:]:
                if phase == "rob" and actor != seat and action == DECLINE:
                    continue  # a private decision the viewer never saw
                # The sampled world may have the ace of trumps with a player who declined.
                while (
                    state._deal.phase == "rob"
                    and state._deal.to_play != seat
                    and not (phase == "rob" and actor == state._deal.to_play)
                ):
                    state.apply_action(DECLINE)
                if phase in ("rob", "dealer_rob") and actor != seat and action != DECLINE:
                    put_card = put_out[actor]
                    if put_card is None:
                        return None
                    state.apply_action(DISCARD_BASE + put_card)
                else:
                    state.apply_action(action)
            # Where the true deal is not waiting on a decision the viewer cannot see, the
            # sampled one is not either: a new holder of the ace declines unseen.
            if not (d.phase == "rob" and d.to_play != seat):
                while state._deal.phase == "rob" and state._deal.to_play != seat:
                    state.apply_action(DECLINE)
        except IllegalActionError:
            return None
        return state


def _render(v: dict[str, Any]) -> str:
    """A readable picture of the table from a view."""
    n = v["players"]
    who = "full view" if v["viewer"] is None else f"seen by P{v['viewer']}"
    to_play = "-" if v["to_play"] is None else _p(v["to_play"])
    lines = [
        f"Spoil Five ({who}): deal {v['deal']}, dealer {_p(v['dealer'])}, "
        f"phase {v['phase']}, to play {to_play}",
        f"trumps {v['trump']}, turn-up {v['turn_up']} ({v['turn_up_at']})"
        + ("" if v["robber"] is None else f", robbed by {_p(v['robber'])}")
        + ("" if v["jinker"] is None else f", jink by {_p(v['jinker'])}"),
        f"pool {v['pool']}",
    ]
    for q in range(n):
        hand = v["hands"][q]
        shown = " ".join(hand) if hand is not None else f"({v['hand_sizes'][q]} cards)"
        extra = ""
        if v["put_out"][q] is not None:
            extra += f" put out {v['put_out'][q]}"
        if v["declined"][q]:
            extra += " declined"
        lines.append(
            f"  {_p(q)}: {shown:<16} tricks {v['tricks_won'][q]}  balance {v['balances'][q]:+d}"
            f"  ante {v['antes'][q]}{extra}"
        )
    for i, trick in enumerate(v["tricks"]):
        plays = ", ".join(f"{_p(s)} {c}" for s, c in trick["plays"])
        lines.append(f"  trick {i + 1}: {plays} -> {_p(trick['winner'])}")
    cur = v["current_trick"]
    if cur is not None:
        plays = ", ".join(f"{_p(s)} {c}" for s, c in cur["plays"]) or "-"
        lines.append(f"  trick {len(v['tricks']) + 1} (led by {_p(cur['leader'])}): {plays}")
    for i, past in enumerate(v["past_deals"]):
        winner = "" if past["winner"] is None else f" {_p(past['winner'])}"
        lines.append(f"  deal {i}: dealer {_p(past['dealer'])}, {past['outcome']}{winner}")
    return "\n".join(lines)
