"""Card packs of the four games: ids, canonical strings and parsing.

A card id is ``len(ranks) * suit_index + rank_index`` (suit-major), or, for a
rank-major pack, ``len(suits) * rank_index + suit_index``; a pack lists its cards in
ascending id.  Card strings are the rank token followed by the suit token; parsing
is case-insensitive and output is canonical.

* French 52 (``spoil_five``): suits ``C D H S``, ranks
  ``2 3 4 5 6 7 8 9 10 J Q K A`` (``T`` accepted for ``10``).  ``AH`` is 38.
* French 52 in Cicera's order (``cicera``): suits ``S H D C``, ranks
  ``A 2 3 4 5 6 7 8 9 10 J Q K`` (``T`` accepted for ``10``).  ``AS`` is 0, ``JH`` 23,
  ``10D`` 35, ``KC`` 51.
* Spanish 40 (``cau_robat``): suits ``O C E B`` (oros, copas, espadas, bastos),
  ranks ``1 2 3 4 5 6 7 10 11 12``, rank-major as Cau Robat's rules number it
  (``id = 4 * rank_index + suit``): ``1O`` is 0, ``7O`` 24, ``10C`` 29, ``12B`` 39.
* Cuajo 28 kinds (``cuajo``): suits ``O C E B``, ranks ``A 3 4 5 J H K`` (ace, 3,
  4, 5, jack, horse, king; ``1 10 11 12`` accepted for ``A J H K``).  The Cuajo
  pack holds four copies of each kind; a card string names the kind.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence

from tapete.errors import ParseError
from tapete.reference._text import shown

__all__ = ["CICERA", "CUAJO", "FRENCH", "Pack", "SPANISH"]


class Pack:
    """One kind of pack: suits, ranks, and the card-string grammar."""

    def __init__(
        self,
        name: str,
        suits: Sequence[str],
        ranks: Sequence[str],
        rank_aliases: Mapping[str, str] | None = None,
        copies: int = 1,
        rank_major: bool = False,
    ) -> None:
        self.name = name
        self.suits: tuple[str, ...] = tuple(suits)
        self.ranks: tuple[str, ...] = tuple(ranks)
        self.copies = copies
        self.rank_major = rank_major
        self._rank_index: dict[str, int] = {r: i for i, r in enumerate(self.ranks)}
        for alias, target in (rank_aliases or {}).items():
            self._rank_index[alias.upper()] = self._rank_index[target]
        self._suit_index: dict[str, int] = {s: i for i, s in enumerate(self.suits)}
        # Views format thousands of cards per step: look the strings up instead of building them.
        self._strings: tuple[str, ...] = tuple(
            self.ranks[self.rank(c)] + self.suits[self.suit(c)] for c in range(self.num_kinds)
        )

    @property
    def num_kinds(self) -> int:
        """Number of distinct card ids."""
        return len(self.suits) * len(self.ranks)

    def ids(self) -> list[int]:
        """Every card id once, ascending."""
        return list(range(self.num_kinds))

    def full_pack(self) -> list[int]:
        """The physical pack, ascending (each kind ``copies`` times)."""
        return [c for c in range(self.num_kinds) for _ in range(self.copies)]

    def card(self, suit: int, rank: int) -> int:
        """The id of the card of ``suit`` index and ``rank`` index."""
        if self.rank_major:
            return rank * len(self.suits) + suit
        return suit * len(self.ranks) + rank

    def suit(self, card: int) -> int:
        """Suit index of a card id."""
        if self.rank_major:
            return card % len(self.suits)
        return card // len(self.ranks)

    def rank(self, card: int) -> int:
        """Rank index of a card id."""
        if self.rank_major:
            return card // len(self.suits)
        return card % len(self.ranks)

    def is_id(self, card: object) -> bool:
        """Whether ``card`` is a valid card id (an int, not a bool)."""
        return isinstance(card, int) and not isinstance(card, bool) and 0 <= card < self.num_kinds

    def to_string(self, card: int) -> str:
        """Canonical string of a card id."""
        if not self.is_id(card):
            raise ValueError(
                f"not a {self.name} card id: {shown(card)} (expected 0..{self.num_kinds - 1})"
            )
        return self._strings[card]

    def parse(self, text: object) -> int:
        """Card id of a card string (case-insensitive); ``ParseError`` if malformed."""
        if not isinstance(text, str):
            raise ParseError(
                f"a {self.name} card must be a string like "
                f"{shown(self.to_string(self.num_kinds - 1))}, got {shown(text)}"
            )
        upper = text.strip(" \t\n\r\f").upper()  # ASCII whitespace, as the engine
        if len(upper) >= 2:
            rank = self._rank_index.get(upper[:-1])
            suit = self._suit_index.get(upper[-1])
            if rank is not None and suit is not None:
                return self.card(suit, rank)
        raise ParseError(
            f"not a {self.name} card: {shown(text)} (expected a rank among "
            f"{' '.join(self.ranks)} followed by a suit among {' '.join(self.suits)})"
        )

    def parse_many(self, texts: Iterable[object]) -> list[int]:
        """Card ids of a sequence of card strings, in the given order."""
        if isinstance(texts, str):
            raise ParseError(f"expected a list of {self.name} cards, got the string {shown(texts)}")
        return [self.parse(t) for t in texts]

    def format_many(self, cards: Iterable[int]) -> list[str]:
        """Canonical strings of card ids, in the given order."""
        return [self.to_string(c) for c in cards]

    def __repr__(self) -> str:
        return f"Pack({self.name!r})"


FRENCH = Pack(
    "french52",
    suits="C D H S".split(),
    ranks="2 3 4 5 6 7 8 9 10 J Q K A".split(),
    rank_aliases={"T": "10"},
)
CICERA = Pack(
    "cicera52",
    suits="S H D C".split(),
    ranks="A 2 3 4 5 6 7 8 9 10 J Q K".split(),
    rank_aliases={"T": "10"},
)
SPANISH = Pack(
    "spanish40",
    suits="O C E B".split(),
    ranks="1 2 3 4 5 6 7 10 11 12".split(),
    rank_major=True,
)
CUAJO = Pack(
    "cuajo",
    suits="O C E B".split(),
    ranks="A 3 4 5 J H K".split(),
    rank_aliases={"1": "A", "10": "J", "11": "H", "12": "K"},
    copies=4,
)
