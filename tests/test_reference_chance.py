"""Explicit chance nodes (api.md, "Explicit chance nodes") in the reference model, checked against
the rules documents: the outcomes and probabilities of every chance node, the distribution of
the deal in both modes, seeded games replayed through their cards as chance outcomes, and what
a chance node shows, serializes, refuses and resamples.  The last tests run the engine and the
reference in lock step with explicit chance, when the installed engine has it."""

from __future__ import annotations

import json
import pickle
import random
from collections import Counter
from typing import Any

import numpy as np
import pytest
from cuajo_bot import choose as cuajo_choose

import tapete
import tapete.reference as R
from tapete.errors import ConfigError, IllegalActionError, ParseError

MAX_OUTCOMES = {"spoil_five": 52, "cicera": 52, "cau_robat": 40, "cuajo": 28}
PACK_SIZE = {"spoil_five": 52, "cicera": 52, "cau_robat": 40, "cuajo": 112}
DEAL_KEY = {"spoil_five": "deal", "cicera": "hand", "cau_robat": "hand", "cuajo": "hand"}

# Configurations that reach every chance node of each game's rules document: random and fixed
# first dealers, several deals, deal batches, packets, five players, extra draws.
CONFIGS: dict[str, list[dict[str, Any]]] = {
    "spoil_five": [
        {"players": 4},
        {"players": 3, "first_dealer": 1, "deal_batches": [3, 2], "num_deals": 2},
        {"players": 10, "num_deals": 1},
    ],
    "cicera": [
        {"game_mode": "single_hand"},
        {"game_mode": "single_hand", "packet_size": 6, "first_dealer": 2},
        {"packet_size": 4, "deal_style": "packets", "max_hands": 2, "target_score": 11},
    ],
    "cau_robat": [
        {"players": 4},
        {"players": 3, "hands_to_win": 2, "first_dealer": 0},
        {"players": 5},
    ],
    "cuajo": [
        {},
        {"first_dealer": 2, "hands_per_match": 2},
    ],
}
CASES = [(name, config) for name, configs in CONFIGS.items() for config in configs]
CASE_IDS = [f"{name}-{i}" for name, configs in CONFIGS.items() for i in range(len(configs))]


def explicit(name: str, **config: Any) -> Any:
    return R.load_game(name, explicit_chance=True, **config).new_initial_state(seed=0)


def pick_outcome(state: Any, rng: random.Random) -> int:
    """A chance outcome drawn with the node's probabilities."""
    outcomes = state.chance_outcomes()
    return rng.choices([o for o, _ in outcomes], [p for _, p in outcomes])[0]


def choose_action(name: str, state: Any, rng: random.Random) -> int:
    # Cuajo's bot plays towards wins, so hands end in payments and extra draws.
    return cuajo_choose(state, rng) if name == "cuajo" else rng.choice(state.legal_actions())


def is_dealer_node(state: Any) -> bool:
    return state.action_to_string(state.legal_actions()[0]).startswith("dealer ")


def rank_of(card: str) -> str:
    return card[:-1].upper()


def deal_order(name: str, deck: list[str], players: int) -> list[str]:
    """A recorded deck's cards in the order its deal takes them: Cau Robat's table is the first
    cards of distinct ranks met from the top (rules §2), the others keep their order."""
    if name != "cau_robat":
        return deck
    size = 5 if players == 5 else 4
    table: list[str] = []
    for card in deck:
        if len(table) < size and rank_of(card) not in {rank_of(t) for t in table}:
            table.append(card)
    return table + [card for card in deck if card not in table]


def deal_cards(state: Any, rng: random.Random) -> list[int]:
    """Apply chance outcomes (with their probabilities) up to the next decision node."""
    applied = []
    while state.is_chance_node():
        applied.append(pick_outcome(state, rng))
        state.apply_action(applied[-1])
    return applied


# --------------------------------------------------------------------------------------------
# The API


def test_chance_api_surface() -> None:
    assert R.CHANCE == -1
    for name, top in MAX_OUTCOMES.items():
        seeded = R.load_game(name)
        state = seeded.new_initial_state(seed=1)
        assert not state.is_chance_node() and state.chance_outcomes() == []
        assert state.current_player() >= 0
        game = R.load_game(name, explicit_chance=True)
        assert game.max_chance_outcomes() == seeded.max_chance_outcomes() == top
        assert game.config() == {**seeded.config(), "explicit_chance": True}
        assert R.load_game(name, **game.config()) == game != seeded
        assert "explicit_chance=True" in repr(game)
        assert pickle.loads(pickle.dumps(game)) == game
        with pytest.raises(ConfigError):
            R.load_game(name, explicit_chance="yes")
        with pytest.raises(ConfigError):
            game.new_initial_state(seed=1, deck=json.loads(state.serialize())["decks"][0])
        with pytest.raises(ConfigError):
            game.new_initial_state(seed=1, decks=[])


@pytest.mark.parametrize("name", MAX_OUTCOMES)
def test_first_dealer_node(name: str) -> None:
    state = explicit(name)
    n = state.view()["players"]
    assert state.is_chance_node() and state.current_player() == R.CHANCE
    assert state.chance_outcomes() == [(seat, 1.0 / n) for seat in range(n)]
    assert state.legal_actions() == list(range(n))
    assert state.legal_actions_mask().shape == (MAX_OUTCOMES[name],)
    assert [state.action_to_string(s) for s in range(n)] == [f"dealer {s}" for s in range(n)]
    assert state.string_to_action("Dealer 2") == 2
    for text in (f"dealer {n}", "dealer -1", "first dealer 1", "dealer"):
        with pytest.raises(ParseError):
            state.string_to_action(text)
    with pytest.raises(ParseError):
        state.string_to_action("deal 3O")
    with pytest.raises(IllegalActionError):
        state.action_to_string(n)
    # Nothing has happened yet: the view only names the game; the tensor is all zeros.
    assert state.view(0) == {
        "game": name,
        "viewer": 0,
        "players": n,
        "phase": "chance",
        "to_play": None,
        "dealer": None,
    }
    assert not state.observation_tensor(1).any()
    assert "first dealer" in str(state) and "first dealer" in repr(state)
    state.apply_action(2)
    assert state.history() == [2] and state.view()["dealer"] == 2
    assert state.is_chance_node() and not is_dealer_node(state)
    # A fixed first dealer has no chance node: the deal starts at once.
    fixed = R.load_game(name, explicit_chance=True, first_dealer=1).new_initial_state()
    assert fixed.view()["dealer"] == 1 and fixed.action_to_string(0).startswith("deal ")


# --------------------------------------------------------------------------------------------
# The outcomes and probabilities of every chance node, from the rules documents


def expected_outcomes(
    name: str, players: int, dealt: list[int], position: int
) -> list[tuple[int, float]]:
    """The rules' chance outcomes after the cards ``dealt`` of the current deal: uniform over
    the cards not dealt (Spoil Five §8.3, Cicera §3.1); Cau Robat's table cards (rules §2.4)
    only among ranks not on the table yet; Cuajo (§8.2) kind t with remaining[t] / total."""
    if name == "cuajo":
        remaining = [4 - dealt.count(t) for t in range(28)]
        total = sum(remaining)
        return [(t, remaining[t] / total) for t in range(28) if remaining[t]]
    cards = [c for c in range(PACK_SIZE[name]) if c not in dealt]
    if name == "cau_robat" and position < (5 if players == 5 else 4):
        cards = [c for c in cards if all(c // 4 != t // 4 for t in dealt)]
    return [(c, 1.0 / len(cards)) for c in cards]


@pytest.mark.parametrize(("name", "config"), CASES, ids=CASE_IDS)
def test_every_chance_node_follows_the_rules(name: str, config: dict[str, Any]) -> None:
    game = R.load_game(name, explicit_chance=True, **config)
    players = game.num_players()
    rng = random.Random(7)
    state = game.new_initial_state()
    dealt: list[int] = []
    deal = None
    nodes = 0
    while not state.is_terminal():
        if not state.is_chance_node():
            state.apply_action(choose_action(name, state, rng))
            continue
        if is_dealer_node(state):
            assert state.chance_outcomes() == [(s, 1.0 / players) for s in range(players)]
            state.apply_action(rng.randrange(players))
            continue
        view = state.view()
        if view[DEAL_KEY[name]] != deal:
            deal, dealt = view[DEAL_KEY[name]], []
        outcomes = state.chance_outcomes()
        assert outcomes == expected_outcomes(name, players, dealt, len(dealt))
        assert state.legal_actions() == [o for o, _ in outcomes]
        assert abs(sum(p for _, p in outcomes) - 1.0) < 1e-12
        mask = state.legal_actions_mask()
        assert mask.shape == (MAX_OUTCOMES[name],) and list(np.flatnonzero(mask)) == [
            o for o, _ in outcomes
        ]
        assert state.current_player() == R.CHANCE
        outcome = pick_outcome(state, rng)
        text = state.action_to_string(outcome)
        assert text.startswith("deal ") and state.string_to_action(text) == outcome
        assert state.string_to_action(text.upper()) == outcome
        with pytest.raises(ParseError):
            state.string_to_action("pass")
        state.apply_action(outcome)
        assert state.history()[-1] == outcome
        dealt.append(outcome)
        nodes += 1
        if name == "cau_robat":  # the table never shows a rank twice
            table = state.view()["table"]
            assert len({rank_of(c) for c in table}) == len(table)
    assert nodes >= PACK_SIZE[name] // 2
    with pytest.raises(ParseError):
        state.string_to_action("deal 3O")  # a decision (here terminal) node has no deal


def test_cau_robat_case_d4() -> None:
    """Rules §7.3 D4: with 5o on the table, the next table node offers the 36 deck cards whose
    rank is not 5, each with probability 1/36."""
    state = R.load_game("cau_robat", explicit_chance=True, first_dealer=0).new_initial_state()
    five_o = state.string_to_action("deal 5O")
    state.apply_action(five_o)
    outcomes = state.chance_outcomes()
    fives = {state.string_to_action(f"deal 5{s}") for s in "OCEB"}
    assert [o for o, _ in outcomes] == [c for c in range(40) if c not in fives]
    assert len(outcomes) == 36 and all(p == 1 / 36 for _, p in outcomes)
    before = state.serialize()
    for other in sorted(fives - {five_o}):
        with pytest.raises(IllegalActionError):
            state.apply_action(other)
    assert state.serialize() == before
    # Once the table is dealt, a hand card may be of any rank left, a 5 included.
    for _ in range(3):
        state.apply_action(next(o for o, _ in state.chance_outcomes() if o // 4 != 4))
    assert [o for o, _ in state.chance_outcomes()] == [
        c for c in range(40) if c not in state.history()
    ]
    assert state.string_to_action("deal 5C") in state.legal_actions()


def test_cuajo_probabilities_are_remaining_over_total() -> None:
    """Rules §8.2: kind t has probability remaining[t] / total over the cards not yet dealt."""
    state = R.load_game("cuajo", explicit_chance=True, first_dealer=0).new_initial_state()
    ko = state.string_to_action("deal KO")
    for k in range(4):
        outcomes = dict(state.chance_outcomes())
        assert outcomes[ko] == (4 - k) / (112 - k)
        assert outcomes[0] == 4 / (112 - k)
        state.apply_action(ko)
    assert ko not in dict(state.chance_outcomes())  # every copy is dealt
    with pytest.raises(IllegalActionError):
        state.apply_action(ko)
    assert state.view(1)["concealed"][1] == ["KO"] * 4  # positions 0-3 go to p1 = dealer + 1


# --------------------------------------------------------------------------------------------
# The distribution of a deal, both modes

CHI2_999 = {2: 13.82, 3: 16.27, 4: 18.47, 5: 20.52, 6: 22.46, 27: 55.48}  # p = 0.001


def chi_square(observed: Counter[Any], expected: dict[Any, float]) -> float:
    return sum((observed[k] - e) ** 2 / e for k, e in expected.items())


def where_is(name: str, view: dict[str, Any], card: str) -> str:
    """Where ``card`` went in a deal: a seat's hand, the table or turn-up, or undealt."""
    hands = view["concealed"] if name == "cuajo" else view["hands"]
    for q, hand in enumerate(hands):
        if card in hand:
            return f"P{q}"
    if card == view.get("turn_up") or card in view.get("table", []):
        return "face up"
    return "undealt"


# Per game: config, the card followed, its expected place probabilities after the opening deal.
PLACES: dict[str, tuple[dict[str, Any], str, dict[str, float]]] = {
    "spoil_five": (
        {"players": 4, "first_dealer": 0},
        "AH",
        {**{f"P{q}": 5 / 52 for q in range(4)}, "face up": 1 / 52, "undealt": 31 / 52},
    ),
    "cicera": (
        {"packet_size": 6, "first_dealer": 0},
        "QD",
        {**{f"P{q}": 6 / 52 for q in range(4)}, "face up": 4 / 52, "undealt": 24 / 52},
    ),
    # The table: 4 distinct ranks of 10, one card of each, so any card is on it with
    # probability 4/10 * 1/4; otherwise it is in one of four hands of 9.
    "cau_robat": (
        {"players": 4, "first_dealer": 0},
        "7O",
        {**{f"P{q}": 0.9 / 4 for q in range(4)}, "face up": 0.1},
    ),
}


@pytest.mark.parametrize("mode", ["seeded", "explicit"])
@pytest.mark.parametrize("name", sorted(PLACES))
def test_deal_distribution(name: str, mode: str) -> None:
    config, card, expected = PLACES[name]
    deals = 800
    game = R.load_game(name, explicit_chance=mode == "explicit", **config)
    rng = random.Random(11)
    seen: Counter[str] = Counter()
    for i in range(deals):
        state = game.new_initial_state(seed=1000 + i)
        deal_cards(state, rng)
        seen[where_is(name, state.view(), card)] += 1
    assert sum(seen.values()) == deals and set(seen) <= set(expected)
    stat = chi_square(seen, {k: p * deals for k, p in expected.items()})
    assert stat < CHI2_999[len(expected) - 1], (seen, stat)


@pytest.mark.parametrize("mode", ["seeded", "explicit"])
def test_cuajo_sowee_distribution(mode: str) -> None:
    """The sowee (the 62nd card) is a uniformly random kind, and the dealer holds 16 cards."""
    deals = 400
    game = R.load_game("cuajo", explicit_chance=mode == "explicit", first_dealer=0)
    rng = random.Random(5)
    suits: Counter[str] = Counter()
    for i in range(deals):
        state = game.new_initial_state(seed=i)
        deal_cards(state, rng)
        view = state.view()
        suits[view["sowee"][-1]] += 1
        assert [len(h) for h in view["concealed"]] == [16, 15, 15, 15]
    assert chi_square(suits, {s: deals / 4 for s in "OCEB"}) < CHI2_999[3], suits


# --------------------------------------------------------------------------------------------
# A seeded game's cards, applied as chance outcomes, replay it exactly


def snapshot(state: Any, players: int) -> tuple[Any, ...]:
    legal = state.legal_actions()
    return (
        state.current_player(),
        state.is_terminal(),
        legal,
        [state.action_to_string(a) for a in legal],
        state.returns(),
        state.view(),
        [state.view(q) for q in range(players)],
        [state.observation_tensor(q).tobytes() for q in range(players)],
        [state.information_state_string(q) for q in range(players)],
        str(state),
    )


REPLAYS = [(name, config, 1) for name, config in CASES] + [
    ("cuajo", {}, 0),  # a claim with 7 extra draws, to the end of the stock
    ("cuajo", {}, 1),  # a claim with all 15 extra draws
]


@pytest.mark.parametrize(
    ("name", "config", "seed"), REPLAYS, ids=[*CASE_IDS, "cuajo-0-0", "cuajo-0-1"]
)
def test_seeded_game_replays_as_chance_outcomes(
    name: str, config: dict[str, Any], seed: int
) -> None:
    seeded = R.load_game(name, **config).new_initial_state(seed=seed)
    players = len(seeded.returns())
    first_dealer = seeded.view()["dealer"]
    rng = random.Random(seed)
    steps = []
    while not seeded.is_terminal():
        assert not seeded.is_chance_node() and seeded.chance_outcomes() == []
        action = choose_action(name, seeded, rng)
        steps.append((snapshot(seeded, players), action, seeded.rewards()))
        seeded.apply_action(action)
    steps.append((snapshot(seeded, players), None, seeded.rewards()))
    decks = json.loads(seeded.serialize())["decks"]
    if name == "cuajo" and seed in (0, 1) and not config:
        assert len(seeded.view()["result"]["extra_draws"]) == (7 if seed == 0 else 15)

    state = R.load_game(name, explicit_chance=True, **config).new_initial_state(seed=seed)
    used: Counter[int] = Counter()
    applied = 0
    for i, (expected, action, rewards) in enumerate(steps):
        before = applied
        while state.is_chance_node():
            applied += 1
            if is_dealer_node(state):
                state.apply_action(first_dealer)
                continue
            deal = state.view()[DEAL_KEY[name]]
            order = [
                state.string_to_action(f"deal {c}") for c in deal_order(name, decks[deal], players)
            ]
            # Every node (Cuajo's extra draws too) offers what the rules say.
            dealt = order[: used[deal]]
            assert state.chance_outcomes() == expected_outcomes(name, players, dealt, len(dealt))
            state.apply_action(order[used[deal]])
            used[deal] += 1
        assert snapshot(state, players) == expected, f"{name} {config} seed {seed} step {i}"
        if applied == before and i > 1:  # the rewards of the same action (the first
            assert state.rewards() == rewards  # deal's antes go to a chance outcome here)
        if action is not None:
            state.apply_action(action)
    assert state.is_terminal()
    decisions = len(state.history()) - applied
    assert decisions == len(seeded.history())
    assert sum(used.values()) == applied - (config.get("first_dealer") is None)


# --------------------------------------------------------------------------------------------
# Chance nodes: what they show, serialize, refuse and resample


class Node:
    """A chance node of a random explicit game, with the chance outcomes of its deal so far:
    card strings, and their indices in the history."""

    def __init__(self, state: Any, dealt: list[str], chance_at: list[int]) -> None:
        self.state, self.dealt, self.chance_at = state, dealt, chance_at


def chance_nodes(name: str, config: dict[str, Any], seed: int, every: int = 9) -> list[Node]:
    """Every ``every``-th chance node of a random explicit game (and, in Cuajo, its stock and
    extra draws), at most 40."""
    rng = random.Random(seed)
    state = R.load_game(name, explicit_chance=True, **config).new_initial_state(seed=seed)
    found: list[Node] = []
    dealt: list[str] = []
    chance_at: list[int] = []
    deal = None
    while not state.is_terminal():
        if not state.is_chance_node():
            state.apply_action(choose_action(name, state, rng))
            continue
        if not is_dealer_node(state):
            if state.view()[DEAL_KEY[name]] != deal:
                deal, dealt, chance_at = state.view()[DEAL_KEY[name]], [], []
            late = name == "cuajo" and len(dealt) > 62
            if len(dealt) % every == 1 or late:
                found.append(Node(state.clone(), list(dealt), list(chance_at)))
        outcome = pick_outcome(state, rng)
        if not is_dealer_node(state):
            chance_at.append(len(state.history()))
            dealt.append(state.action_to_string(outcome)[len("deal ") :])
        state.apply_action(outcome)
    return found[:40]


@pytest.mark.parametrize(("name", "config"), CASES, ids=CASE_IDS)
def test_serialize_pickle_clone_at_chance_nodes(name: str, config: dict[str, Any]) -> None:
    game = R.load_game(name, explicit_chance=True, **config)
    for node in chance_nodes(name, config, 3)[::3]:
        state = node.state
        text = state.serialize()
        assert json.loads(text)["decks"] == []
        again = game.deserialize_state(text)
        assert again == state and again.serialize() == text
        assert again.chance_outcomes() == state.chance_outcomes()
        assert again.view() == state.view() and again.history() == state.history()
        assert pickle.loads(pickle.dumps(state)) == state
        assert state.clone() == state
        with pytest.raises(ParseError):  # the seeded game of the same config is another game
            R.load_game(name, **config).deserialize_state(text)
    obj = json.loads(game.new_initial_state(seed=1).serialize())
    obj["decks"] = [
        json.loads(R.load_game(name, **config).new_initial_state(1).serialize())["decks"][0]
    ]
    with pytest.raises(ParseError):
        game.deserialize_state(json.dumps(obj))


@pytest.mark.parametrize("name", MAX_OUTCOMES)
def test_illegal_outcomes_leave_the_state_unchanged(name: str) -> None:
    state = explicit(name, first_dealer=0)
    first = state.legal_actions()[0]
    state.apply_action(first)
    before, view = state.serialize(), state.view()
    bad: list[Any] = [-1, MAX_OUTCOMES[name], 10**30, "3", 2.0, None, True]
    if name != "cuajo":
        bad.append(first)  # already dealt (Cuajo has three more copies of it)
    for outcome in bad:
        with pytest.raises(IllegalActionError):
            state.apply_action(outcome)
        assert state.serialize() == before and state.view() == view
    with pytest.raises(IllegalActionError):
        state.action_to_string(MAX_OUTCOMES[name])
    with pytest.raises(ParseError):
        state.string_to_action("deal XX")
    # A terminal state refuses outcomes like actions.
    rng = random.Random(2)
    while not state.is_terminal():
        state.apply_action(
            pick_outcome(state, rng) if state.is_chance_node() else choose_action(name, state, rng)
        )
    with pytest.raises(IllegalActionError):
        state.apply_action(0)


def shown_cards(name: str, view: dict[str, Any]) -> list[str]:
    """The cards a full view shows in hands and face up."""
    hands = view["concealed"] if name == "cuajo" else view["hands"]
    cards = [c for hand in hands for c in hand] + view.get("table", [])
    cards += [view[k] for k in ("turn_up", "sowee") if view.get(k) is not None]
    return cards


def without_hands(name: str, view: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in view.items() if k not in ("hands", "concealed")}


def replay_with(game: Any, history: list[int], index: int, rng: random.Random) -> Any:
    """The history with its chance outcome at ``index`` replaced by another possible one, or
    None if the rest of the history is then illegal."""
    state = game.new_initial_state(seed=0)
    try:
        for i, action in enumerate(history):
            if i == index:
                others = [o for o in state.legal_actions() if o != action]
                if not others:
                    return None
                action = rng.choice(others)
            state.apply_action(action)
    except IllegalActionError:
        return None
    return state


@pytest.mark.parametrize(("name", "config"), CASES, ids=CASE_IDS)
def test_chance_nodes_never_leak(name: str, config: dict[str, Any]) -> None:
    """At a chance node a view never shows a card not dealt yet, no seat sees another's hand,
    and changing one dealt card that ends in a hand changes nothing the other seats observe
    (a seat's information state records only its own cards and the face-up ones)."""
    game = R.load_game(name, explicit_chance=True, **config)
    players = game.num_players()
    rng = random.Random(4)
    compared = 0
    for node in chance_nodes(name, config, 5, every=5)[:12]:
        state = node.state
        full = state.view()
        assert not Counter(shown_cards(name, full)) - Counter(node.dealt), node.dealt
        for seat in range(players):
            hands = state.view(seat)["concealed" if name == "cuajo" else "hands"]
            assert all(hands[q] is None for q in range(players) if q != seat)
        for index in node.chance_at[-3:]:
            other = replay_with(game, state.history(), index, rng)
            if other is None or not other.is_chance_node():
                continue
            changed = other.view()
            if without_hands(name, changed) != without_hands(name, full):
                continue  # the changed card is face up (or public through the play)
            key = "concealed" if name == "cuajo" else "hands"
            owners = [q for q in range(players) if changed[key][q] != full[key][q]]
            for seat in set(range(players)) - set(owners):
                assert other.view(seat) == state.view(seat), (index, seat)
                assert other.information_state_string(seat) == (
                    state.information_state_string(seat)
                ), (index, seat)
                assert np.array_equal(
                    other.observation_tensor(seat), state.observation_tensor(seat)
                ), (index, seat)
                compared += 1
    assert compared > 0


@pytest.mark.parametrize(("name", "config"), CASES, ids=CASE_IDS)
def test_resample_at_chance_nodes(name: str, config: dict[str, Any]) -> None:
    game = R.load_game(name, explicit_chance=True, **config)
    players = game.num_players()
    changed = 0
    # Cuajo's resampler replays the hand for its proposals: fewer nodes.
    nodes = chance_nodes(name, config, 9)[:: 12 if name == "cuajo" else 4]
    for k, node in enumerate(nodes):
        state = node.state
        seat = k % players
        for seed in (1, 2):
            sample = state.resample_from_infostate(seat, seed)
            assert sample.is_chance_node() and sample.current_player() == R.CHANCE
            assert sample.view(seat) == state.view(seat)
            assert sample.information_state_string(seat) == state.information_state_string(seat)
            assert np.array_equal(sample.observation_tensor(seat), state.observation_tensor(seat))
            if name != "cuajo":
                # A Cuajo world may hold a hidden pass more or less (another seat's claim).
                assert len(sample.history()) == len(state.history())
            assert game.deserialize_state(sample.serialize()) == sample
            changed += sample.view() != state.view()
    assert changed > 0  # other seats' hidden cards are really re-dealt


def test_resample_during_a_deal_is_uniform() -> None:
    """Six Spoil Five cards dealt (dealer 3: two each to seats 0, 1, 2): seat 0 knows its own
    two, so the four others are a uniform draw from the other 50 cards; their suits follow."""
    state = R.load_game("spoil_five", explicit_chance=True, first_dealer=3).new_initial_state()
    rng = random.Random(8)
    for _ in range(6):
        state.apply_action(pick_outcome(state, rng))
    own = state.view(0)["hands"][0]
    unseen = Counter({suit: 13 for suit in "CDHS"})
    unseen.subtract(Counter(c[-1] for c in own))
    samples = 300
    suits: Counter[str] = Counter()
    for seed in range(samples):
        sample = state.resample_from_infostate(0, seed)
        assert sample.view(0) == state.view(0) and len(sample.history()) == 6
        others = sample.view()["hands"][1] + sample.view()["hands"][2]
        assert len(others) == 4 and not set(others) & set(own)
        suits.update(c[-1] for c in others)
    expected = {suit: 4 * samples * unseen[suit] / 50 for suit in "CDHS"}
    assert chi_square(suits, expected) < CHI2_999[3], suits


@pytest.mark.parametrize(("name", "config"), CASES, ids=CASE_IDS)
def test_resample_at_decision_nodes(name: str, config: dict[str, Any]) -> None:
    """With explicit chance a resampled state replays the history with the re-dealt cards as
    its chance outcomes; the seat observes exactly the same and may do the same."""
    game = R.load_game(name, explicit_chance=True, **config)
    players = game.num_players()
    rng = random.Random(6)
    state = game.new_initial_state()
    decisions = checked = 0
    limit = 2 if name == "cuajo" else 4
    while not state.is_terminal() and checked < limit:
        if state.is_chance_node():
            state.apply_action(pick_outcome(state, rng))
            continue
        decisions += 1
        if decisions % 7 == 3:
            checked += 1
            for seat in {state.current_player(), decisions % players}:
                sample = state.resample_from_infostate(seat, decisions)
                assert not sample.is_chance_node()
                assert sample.current_player() == state.current_player()
                if seat == state.current_player():
                    assert sample.legal_actions() == state.legal_actions()
                assert sample.view(seat) == state.view(seat)
                assert sample.information_state_string(seat) == (
                    state.information_state_string(seat)
                )
                assert np.array_equal(
                    sample.observation_tensor(seat), state.observation_tensor(seat)
                )
                if name != "cuajo":
                    # A Cuajo world may hold a hidden pass more or less (another seat's claim).
                    assert len(sample.history()) == len(state.history())
        state.apply_action(choose_action(name, state, rng))
    assert checked >= 2


# --------------------------------------------------------------------------------------------
# Engine and reference in lock step with explicit chance


def engine_has_explicit_chance() -> bool:
    try:
        state = tapete.load_game("spoil_five", explicit_chance=True).new_initial_state(seed=0)
        return bool(state.is_chance_node())
    except (TypeError, ValueError, AttributeError):
        return False


ENGINE_CHANCE = engine_has_explicit_chance()
needs_engine = pytest.mark.skipif(
    not ENGINE_CHANCE,
    reason="the installed engine (tapete._core) has no explicit chance nodes yet",
)


def assert_lock_step(engine: Any, reference: Any, players: int, where: str) -> None:
    """What both implementations must agree on at every node; returns and views at decision
    nodes only (what a chance node shows, and when the money of the action that led to it
    counts, is each implementation's own: docs/engine.md)."""
    assert engine.is_chance_node() == reference.is_chance_node(), where
    assert engine.current_player() == reference.current_player(), where
    assert engine.is_terminal() == reference.is_terminal(), where
    legal = reference.legal_actions()
    assert list(engine.legal_actions()) == legal, where
    assert [engine.action_to_string(a) for a in legal] == [
        reference.action_to_string(a) for a in legal
    ], where
    assert [tuple(o) for o in engine.chance_outcomes()] == reference.chance_outcomes(), where
    assert engine.history() == reference.history(), where
    if not reference.is_chance_node():
        assert engine.returns() == reference.returns(), where
        assert engine.view() == reference.view(), where
        for seat in range(players):
            assert engine.view(seat) == reference.view(seat), f"{where}, seat {seat}"
            assert np.array_equal(
                engine.observation_tensor(seat), reference.observation_tensor(seat)
            ), f"{where}, observation of seat {seat}"


LOCK_STEP = [(name, config, 21) for name, config in CASES] + [("cuajo", {}, 1)]
LOCK_STEP_IDS = [*CASE_IDS, "cuajo-0-1"]


def lock_step(name: str, config: dict[str, Any], seed: int, check: Any) -> None:
    """Engine and reference from the same seed, each outcome drawn with the reference's
    probabilities and each decision by the test bot; ``check(engine, reference, where)`` at
    every node."""
    engine = tapete.load_game(name, explicit_chance=True, **config).new_initial_state(seed=seed)
    reference = R.load_game(name, explicit_chance=True, **config).new_initial_state(seed=seed)
    rng = random.Random(seed)
    step = 0
    while True:
        check(engine, reference, f"{name} {config} seed {seed} step {step}")
        if reference.is_terminal():
            break
        if reference.is_chance_node():
            action = pick_outcome(reference, rng)
        else:
            action = choose_action(name, reference, rng)
        engine.apply_action(action)
        reference.apply_action(action)
        step += 1


@needs_engine
@pytest.mark.parametrize(("name", "config", "seed"), LOCK_STEP, ids=LOCK_STEP_IDS)
def test_engine_and_reference_in_lock_step(name: str, config: dict[str, Any], seed: int) -> None:
    players = R.load_game(name, **config).num_players()
    # The rewards of a decision and of the chance outcomes it calls for add up to the same.
    since = {"engine": [0.0] * players, "reference": [0.0] * players}

    def check(engine: Any, reference: Any, where: str) -> None:
        assert_lock_step(engine, reference, players, where)
        for key, state in (("engine", engine), ("reference", reference)):
            since[key] = [a + b for a, b in zip(since[key], state.rewards())]
        if not reference.is_chance_node():
            assert since["engine"] == pytest.approx(since["reference"], abs=1e-9), where
            since["engine"] = since["reference"] = [0.0] * players

    lock_step(name, config, seed, check)


@needs_engine
@pytest.mark.parametrize(("name", "config", "seed"), LOCK_STEP, ids=LOCK_STEP_IDS)
def test_engine_and_reference_returns_at_chance_nodes(
    name: str, config: dict[str, Any], seed: int
) -> None:
    """Returns and rewards at every node, chance nodes too.  The rules order the events: Spoil
    Five's antes are posted before the deck is shuffled and dealt (rules §1.4, §1.5 steps 1-2);
    Cuajo's hand is paid (§5.5) before the winner deals the next one (§5.6); and ``returns()`` is
    "accumulated so far" (api.md).  So at a deal's chance nodes the money paid before it counts,
    and the rewards belong to the action that paid it."""

    def check(engine: Any, reference: Any, where: str) -> None:
        assert engine.returns() == reference.returns(), where
        assert engine.rewards() == reference.rewards(), where

    lock_step(name, config, seed, check)
