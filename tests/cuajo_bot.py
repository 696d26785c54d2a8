"""A Cuajo test bot that plays towards complete hands, so random games end in wins of every
kind (self-drawn, taken, claimed) and exercise the scoring; purely random play mostly washes."""

from __future__ import annotations

import random
from typing import Any

from tapete import cuajo

WIN, CLAIM, DRAW, TAKE = 86, 87, 84, 85


def choose(state: Any, rng: random.Random) -> int:
    """Wins and claims when it can; discards the card that leaves the hand closest to complete;
    takes a discard that brings it closer; otherwise (and 15% of the time) a random action."""
    legal = state.legal_actions()
    if rng.random() < 0.15:
        return rng.choice(legal)
    for action in (WIN, CLAIM):
        if action in legal:
            return action
    seat = state.current_player()
    view = state.view(seat)
    hand = view["concealed"][seat]
    discards = [a for a in legal if a < 28]
    if discards and len(hand) == 16:

        def after(action: int) -> int:
            rest = list(hand)
            rest.remove(state.action_to_string(action).split()[1])
            return cuajo.distance(rest)

        return min(discards, key=lambda a: (after(a), rng.random()))
    if DRAW in legal and TAKE in legal and len(hand) == 15 and view["top_discard"]:
        closer = cuajo.distance([*hand, view["top_discard"]]) < cuajo.distance(hand)
        return TAKE if closer else DRAW
    return rng.choice(legal)
