"""Exhaustive sweeps of the Spoil Five evaluators, the engine against the reference model: every
trump x led card x other card for trick winners, and every hand of up to two cards (plus many
random five-card hands) against every led card for legal plays."""

from __future__ import annotations

import itertools
import random

import tapete.reference.spoil_five as ref
import tapete.spoil_five as eng

CARDS = [f"{r}{s}" for s in "CDHS" for r in "2 3 4 5 6 7 8 9 10 J Q K A".split()]
SUITS = "CDHS"


def test_trick_winners_of_every_pair() -> None:
    for trump in SUITS:
        for led, other in itertools.permutations(CARDS, 2):
            assert eng.trick_winner(trump, [led, other]) == ref.trick_winner(trump, [led, other])


def test_trick_winners_of_random_full_tricks() -> None:
    rng = random.Random(5)
    for _ in range(20_000):
        trump = rng.choice(SUITS)
        cards = rng.sample(CARDS, rng.randint(3, 10))
        assert eng.trick_winner(trump, cards) == ref.trick_winner(trump, cards), (trump, cards)


def test_legal_plays_of_every_small_hand() -> None:
    for trump in SUITS:
        for size in (1, 2):
            for hand in itertools.combinations(CARDS, size):
                rest = [c for c in CARDS if c not in hand]
                assert eng.legal_plays(trump, hand, []) == ref.legal_plays(trump, list(hand), [])
                for led in rest:
                    expected = ref.legal_plays(trump, list(hand), [led])
                    assert eng.legal_plays(trump, hand, [led]) == expected, (trump, hand, led)


def test_legal_plays_of_random_full_hands() -> None:
    rng = random.Random(7)
    for _ in range(20_000):
        trump = rng.choice(SUITS)
        cards = rng.sample(CARDS, 5 + rng.randint(1, 4))
        hand, trick = cards[:5], cards[5:]
        assert eng.legal_plays(trump, hand, trick) == ref.legal_plays(trump, hand, trick), (
            trump,
            hand,
            trick,
        )
