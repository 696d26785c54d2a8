"""Invariants checked at every step of seeded random playouts, on both implementations.

* every card is in exactly one place (docs/rules/spoil_five.md, ``view()``);
* no hidden information leaks: a seat's view hides the other seats' private fields, public
  fields are the same for everybody (a rob held in the hand is hidden from the others), and a
  state resampled for a seat looks the same to that seat (view, information state, tensor);
* the properties of section 7.5 of shared/rules/spoil_five.md that the view shows.

The playouts are a handful of seeded games per config (``PLAYOUTS``, keyed by game name); some
of them start from a deck arranged so that the rarer rob situations come up.
"""

import importlib
import random

import numpy as np
import pytest

# --------------------------------------------------------------------------------------------
# per-game data

RANKS = ["2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K", "A"]
SUITS = "CDHS"
PACK = [r + s for s in SUITS for r in RANKS]  # ascending card id
CARD_ID = {card: i for i, card in enumerate(PACK)}
PHASES = ["dealer_rob", "rob", "play", "jink", "over"]  # tensor order
PRIVATE_KEYS = ("hands", "put_out", "declined")
PLAY, ROB, DECLINE, STAND, JINK = 0, 52, 104, 105, 106

PLAYOUTS = {
    "spoil_five": {
        "games": 3,
        "configs": {
            "2p": {"players": 2},
            "4p": {"players": 4},
            "10p": {"players": 10, "num_deals": 2, "leftover_pool": "split_equally"},
            "teams-2x2": {"players": 4, "partnerships": [[0, 2], [1, 3]]},
            "teams-3x2": {"players": 6, "partnerships": [[0, 3], [1, 4], [2, 5]], "num_deals": 3},
            "penalty-before-lead": {
                "players": 3,
                "rob_policy": "penalty",
                "rob_timing": "before_first_lead",
            },
            "optional-before-lead": {
                "players": 5,
                "rob_policy": "optional",
                "rob_timing": "before_first_lead",
                "num_deals": 3,
            },
            "optional-at-turn": {"players": 4, "rob_policy": "optional"},
            "batches-3-2": {"players": 4, "deal_batches": [3, 2]},
        },
    },
}

CASES = [(game, label) for game, d in PLAYOUTS.items() for label in d["configs"]]


def test_every_game_has_playouts(impl):
    # Cicera, Cau Robat and Cuajo have their own invariants modules.
    for name in set(impl.list_games()) - {"cicera", "cau_robat", "cuajo"}:
        assert name in PLAYOUTS, f"add random-playout configs for {name!r} to PLAYOUTS"


# --------------------------------------------------------------------------------------------
# Spoil Five helpers


def cards_of(plays):
    return [card for _, card in plays]


def ascending(cards):
    return [CARD_ID[c] for c in cards] == sorted(CARD_ID[c] for c in cards)


def arranged_deck(rng, n, kind):
    """A shuffled pack; ``kind`` "ace_up": the turn-up is an ace (the dealer robs);
    "ace_in_hand": a player was dealt the ace of trumps; "any": as shuffled."""
    deck = list(PACK)
    rng.shuffle(deck)
    up = 5 * n
    if kind == "ace_up":
        k = next(i for i, c in enumerate(deck) if c.startswith("A"))
        deck[k], deck[up] = deck[up], deck[k]
    elif kind == "ace_in_hand":
        if deck[up].startswith("A"):
            k = next(i for i, c in enumerate(deck) if i > up and not c.startswith("A"))
            deck[k], deck[up] = deck[up], deck[k]
        k = deck.index("A" + deck[up][-1])
        j = rng.randrange(up)
        deck[k], deck[j] = deck[j], deck[k]
    return deck


def sides_of(view):
    side = {}
    for i, team in enumerate(view["teams"]):
        for seat in team:
            side[seat] = i
    return side


def check_cards(v, n):
    """Every card in exactly one place; the unseen stock holds the rest (52 - 5n - 1)."""
    assert all(h is not None and ascending(h) for h in v["hands"])
    assert v["hand_sizes"] == [len(h) for h in v["hands"]]
    shown = [c for h in v["hands"] for c in h]
    shown += [c for c in v["put_out"] if c is not None]
    for trick in v["tricks"]:
        shown += cards_of(trick["plays"])
    if v["current_trick"] is not None:
        shown += cards_of(v["current_trick"]["plays"])
    if v["turn_up_at"] in ("stock", "dealer"):
        shown.append(v["turn_up"])
    assert all(c in CARD_ID for c in shown), shown
    assert len(set(shown)) == len(shown), f"a card in two places: {sorted(shown)}"
    assert len(shown) == 5 * n + 1
    assert v["turn_up"] in shown
    stock = set(PACK) - set(shown)
    assert len(stock) == 52 - 5 * n - 1
    if v["turn_up_at"] == "hand":
        assert any(v["turn_up"] in h for h in v["hands"])
    if v["turn_up_at"] == "played":
        played = [c for t in v["tricks"] for c in cards_of(t["plays"])]
        if v["current_trick"] is not None:
            played += cards_of(v["current_trick"]["plays"])
        assert v["turn_up"] in played


def check_views(state, v, views, config, n):
    """Other seats' private fields are None; public fields agree (a held rob is hidden)."""
    public = [k for k in v if k not in PRIVATE_KEYS and k != "viewer"]
    assert v["viewer"] is None
    pending_rob = v["phase"] == "rob"
    holder = v["to_play"] if pending_rob else None
    for s, vs in enumerate(views):
        assert vs["viewer"] == s
        assert list(vs) == list(v)
        for key in PRIVATE_KEYS:
            for q in range(n):
                if q == s:
                    assert vs[key][q] == v[key][q], (key, s)
                else:
                    assert vs[key][q] is None, f"seat {s} sees {key}[{q}] = {vs[key][q]!r}"
        if pending_rob and s != holder:
            shown_to_play = holder if config["rob_timing"] == "at_turn" else (v["dealer"] + 1) % n
            assert vs["phase"] == "play", (s, vs["phase"])
            assert vs["to_play"] == shown_to_play
            for key in public:
                if key not in ("phase", "to_play"):
                    assert vs[key] == v[key], key
        else:
            for key in public:
                assert vs[key] == v[key], (s, key)
        # the tensor shows the phase and the player to act as the view does
        tensor = state.observation_tensor(s)
        phase = np.zeros(5, np.float32)
        phase[PHASES.index(vs["phase"])] = 1
        assert np.array_equal(tensor[:5], phase), (s, vs["phase"], tensor[:5])
        to_play = np.zeros(n, np.float32)
        if vs["to_play"] is not None:
            to_play[(vs["to_play"] - s) % n] = 1
        assert np.array_equal(tensor[5 : 5 + n], to_play)
    # all non-holders see the same public picture
    others = [views[s] for s in range(n) if s != holder]
    for vs in others[1:]:
        assert {k: vs[k] for k in public} == {k: others[0][k] for k in public}


def check_rules(state, v, config, n, ev, track):
    """Section 7.5 properties readable from the full view."""
    side = sides_of(v)
    assert sum(v["balances"]) + v["pool"] == 0
    assert v["players"] == n
    # the dealer moves on by one seat per deal; deal fields stay put within a deal
    if track["view"] is not None:
        prev = track["view"]
        if v["deal"] != prev["deal"]:
            assert v["deal"] == prev["deal"] + 1
            assert v["dealer"] == (prev["dealer"] + 1) % n
            assert len(v["past_deals"]) == v["deal"]
        else:
            assert v["dealer"] == prev["dealer"]
            assert v["turn_up"] == prev["turn_up"]
            if prev["robber"] is not None:
                assert v["robber"] == prev["robber"]
    if isinstance(config.get("first_dealer"), int) and v["deal"] == 0:
        assert v["dealer"] == config["first_dealer"]
    past = v["past_deals"]
    if past:
        for i, p in enumerate(past):
            assert p["dealer"] == (past[0]["dealer"] + i) % n
        assert v["dealer"] == (past[-1]["dealer"] + 1) % n or state.is_terminal()
    assert v["trump"] == v["turn_up"][-1]
    # the hand ends by trick 5; tricks are played in turn and won as the rules say
    tricks = v["tricks"]
    assert len(tricks) <= 5
    assert sum(v["tricks_won"]) == len(tricks)
    for t in tricks:
        plays = t["plays"]
        assert len(plays) == n
        assert [s for s, _ in plays] == [(t["leader"] + i) % n for i in range(n)]
        assert t["winner"] == plays[ev.trick_winner(v["trump"], cards_of(plays))][0]
    for a, b in zip(tricks, tricks[1:]):
        assert b["leader"] == a["winner"]
    for p in past:
        assert sum(p["tricks_won"]) <= 5
        if p["outcome"] == "spoil":
            assert p["winner"] is None
    if len(v["teams"]) == 2:
        assert all(p["outcome"] != "spoil" for p in past), past
    # at each trick start everybody holds 5 - tricks played (the dealer 4 while his ace waits)
    current = v["current_trick"]
    if current is not None and not current["plays"]:
        for q in range(n):
            expected = 5 - len(tricks)
            if q == v["dealer"] and v["turn_up_at"] == "dealer":
                expected = 4
            assert v["hand_sizes"][q] == expected, (q, v["hand_sizes"], len(tricks))
        if tricks:
            assert current["leader"] == tricks[-1]["winner"]
    phase = v["phase"]
    legal = state.legal_actions()
    mover = v["to_play"]
    if phase == "jink":
        # only right after trick 3, when one side won tricks 1-3
        assert len(tricks) == 3 and current is None and v["jinker"] is None
        assert len({side[t["winner"]] for t in tricks}) == 1
        assert mover == tricks[2]["winner"]
        assert config["jinking"]
        assert legal == [STAND, JINK]
    if v["jinker"] is not None:
        assert len(tricks) >= 3
        assert len({side[t["winner"]] for t in tricks[:3]}) == 1
    # rob nodes only for the dealer with an ace turned up, or the holder of the ace of trumps
    policy = config["rob_policy"]
    if phase in ("dealer_rob", "rob"):
        assert policy != "disabled" and v["robber"] is None and not tricks
        hand = v["hands"][mover]
        expected = [ROB + CARD_ID[c] for c in hand]
        if policy in ("penalty", "optional"):
            expected.append(DECLINE)
        assert legal == expected
        assert current is not None
        if phase == "dealer_rob":
            assert v["turn_up"].startswith("A") and mover == v["dealer"]
            assert v["turn_up_at"] == "stock" and not current["plays"]
        else:
            assert "A" + v["trump"] in hand and v["turn_up_at"] == "stock"
            if config["rob_timing"] == "at_turn":
                assert mover == (current["leader"] + len(current["plays"])) % n
            else:
                assert not current["plays"]
    if phase == "play":
        plays = cards_of(current["plays"])
        hand = v["hands"][mover]
        assert mover == (current["leader"] + len(plays)) % n
        assert legal == [PLAY + CARD_ID[c] for c in ev.legal_plays(v["trump"], hand, plays)]
        assert legal
    if phase == "over":
        assert state.is_terminal() and v["to_play"] is None and current is None
    else:
        assert not state.is_terminal() and state.current_player() == mover


def apply_and_track(state, action, v, track):
    if ROB <= action < DECLINE:
        key = v["deal"]
        track["robs"][key] = track["robs"].get(key, 0) + 1
        assert track["robs"][key] == 1, f"two robs in deal {key}"
    state.apply_action(action)


def check_resample(state, v, views, config, n, step, track):
    """Resampled for seat s, the state looks the same to s.  Seats: the one to act and one
    that rotates with the step (all seats every step would be slow on the reference)."""
    seats = {step % n}
    if not state.is_terminal():
        seats.add(state.current_player())
    for s in sorted(seats):
        tensor = state.observation_tensor(s)
        info = state.information_state_string(s)
        for k in (step, step + 7919):
            sample = state.resample_from_infostate(s, k)
            assert sample.view(s) == views[s], (s, k)
            assert sample.information_state_string(s) == info, (s, k)
            assert np.array_equal(sample.observation_tensor(s), tensor), (s, k)
            if state.current_player() == s:
                # the seat to act is to act in the sample too, with the same options
                assert sample.current_player() == s
                assert sample.legal_actions() == state.legal_actions()
            track["resamples"] += 1
            track["seats"].add(s)
            if sample.view() != v:
                track["resampled_differently"] += 1


# --------------------------------------------------------------------------------------------
# the playouts


@pytest.mark.parametrize(("name", "label"), CASES, ids=[f"{g}-{c}" for g, c in CASES])
def test_random_playouts(impl, name, label):
    if name not in impl.list_games():
        pytest.skip(f"{name} is not registered in {impl.__name__}")
    game = impl.load_game(name, **PLAYOUTS[name]["configs"][label])
    config = game.config()  # every key, effective values
    ev = importlib.import_module(f"{impl.__name__}.{name}")
    n = game.num_players()
    rng = random.Random(f"{name}-{label}")
    track = {"resamples": 0, "resampled_differently": 0, "seats": set(), "phases": set()}
    outcomes = set()
    kinds = ["any", "ace_up", "ace_in_hand"]
    for g in range(PLAYOUTS[name]["games"]):
        deck = arranged_deck(rng, n, kinds[g % 3])
        state = game.new_initial_state(rng.randrange(2**64), deck=deck)
        track.update(view=None, robs={})
        step = 0
        while True:
            v = state.view()
            views = [state.view(s) for s in range(n)]
            check_cards(v, n)
            check_views(state, v, views, config, n)
            check_rules(state, v, config, n, ev, track)
            check_resample(state, v, views, config, n, step, track)
            track["phases"].add(v["phase"])
            track["view"] = v
            if state.is_terminal():
                break
            apply_and_track(state, rng.choice(state.legal_actions()), v, track)
            step += 1
        assert step <= game.max_game_length()
        assert sum(state.returns()) == pytest.approx(0.0, abs=1e-9)
        outcomes |= {p["outcome"] for p in state.view()["past_deals"]}
    assert outcomes
    # the arranged decks make the dealer's rob and a held rob come up
    assert {"dealer_rob", "rob", "play", "over"} <= track["phases"], track["phases"]
    assert track["seats"] == set(range(n))
    # resampling re-deals hidden cards: it must change the full picture somewhere
    assert track["resampled_differently"] > 0, track
