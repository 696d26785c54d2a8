"""Explicit chance nodes (docs/engine.md, "Explicit chance nodes"): the API, the probabilities of
each game's physical procedure, and the seeded mode's equivalence, on the engine.

The distribution tests compare a statistic of the dealt cards over many deals of both modes
(explicit outcomes drawn by their probabilities with a seeded ``random.Random``, seeded deals
from consecutive seeds) against each other and against its exact law, by chi-square at the
0.1% level. Every sample is fixed by seeds, so the tests are deterministic.
"""

from __future__ import annotations

import json
import math
import pickle
import random
from collections import Counter
from collections.abc import Callable
from typing import Any

import pytest

import tapete
from tapete import _core
from tapete.errors import ConfigError, IllegalActionError, ParseError

GAMES = ["spoil_five", "cicera", "cau_robat", "cuajo"]

#: Chi-square critical values at p = 0.001 by degrees of freedom.
CHI2_999 = {1: 10.83, 2: 13.82, 3: 16.27, 4: 18.47, 5: 20.52, 6: 22.46, 7: 24.32, 8: 26.12}


def explicit(name: str, **config: Any) -> tapete.Game:
    return _core.load_game(name, explicit_chance=True, **config)


def as_explicit(impl: Any, state: Any) -> Any:
    """A seeded ``state`` of its match's first deal replayed in ``impl``'s explicit-chance mode,
    its seed's first dealer and its deck dealt as the chance outcomes."""
    data = json.loads(state.serialize())
    assert len(data["decks"]) == 1, "one deal: the cards of later ones come in other orders"
    seeded = impl.load_game(data["game"], **data["config"]).new_initial_state(data["seed"])
    game = impl.load_game(data["game"], **{**data["config"], "explicit_chance": True})
    out = game.new_initial_state(data["seed"])
    cards = iter(data["decks"][0])
    for a in [*data["history"], None]:
        while out.is_chance_node():
            first = out.action_to_string(out.chance_outcomes()[0][0])
            text = f"dealer {seeded.view()['dealer']}" if first.startswith("dealer") else ""
            out.apply_action(out.string_to_action(text or f"deal {next(cards)}"))
        if a is not None:
            out.apply_action(a)
    return out


def draw(state: tapete.State, rng: random.Random) -> int:
    """A chance outcome drawn by its probability."""
    ids, probs = zip(*state.chance_outcomes(), strict=True)
    return rng.choices(ids, probs)[0]


def deal(state: tapete.State, rng: random.Random) -> tapete.State:
    """Applies chance outcomes until a decision (or the end)."""
    while state.is_chance_node():
        state.apply_action(draw(state, rng))
    return state


def play(state: tapete.State, rng: random.Random, check: Callable[[tapete.State], None]) -> None:
    """Plays to the end, outcomes by their probabilities, decisions at random."""
    while not state.is_terminal():
        check(state)
        if state.is_chance_node():
            state.apply_action(draw(state, rng))
        else:
            state.apply_action(rng.choice(state.legal_actions()))
    check(state)


def chi2_same(a: Counter[Any], b: Counter[Any]) -> tuple[float, int]:
    """Chi-square statistic of homogeneity of two samples, and its degrees of freedom."""
    keys = sorted(set(a) | set(b))
    na, nb = sum(a.values()), sum(b.values())
    stat = 0.0
    for k in keys:
        total = a[k] + b[k]
        for count, n in ((a[k], na), (b[k], nb)):
            expected = total * n / (na + nb)
            stat += (count - expected) ** 2 / expected
    return stat, len(keys) - 1


def chi2_fit(sample: Counter[Any], law: dict[Any, float]) -> tuple[float, int]:
    """Chi-square statistic of `sample` against the probabilities `law`."""
    n = sum(sample.values())
    assert set(sample) <= set(law)
    stat = sum((sample[k] - n * p) ** 2 / (n * p) for k, p in law.items())
    return stat, len(law) - 1


def assert_same_law(
    name: str, stat: Callable[[tapete.State], Any], deals: int, law: dict[Any, float]
) -> None:
    """`stat` of the first decision's state, over `deals` deals of each mode: the two samples
    agree, and each fits `law`."""
    seeded_game = _core.load_game(name)
    game = explicit(name)
    rng = random.Random(name)
    seeded = Counter(stat(seeded_game.new_initial_state(seed=s)) for s in range(deals))
    chance = Counter(stat(deal(game.new_initial_state(seed=0), rng)) for _ in range(deals))
    for sample in (seeded, chance):
        value, df = chi2_fit(sample, law)
        assert value < CHI2_999[df], (name, sample, law)
    value, df = chi2_same(seeded, chance)
    assert value < CHI2_999[df], (name, seeded, chance)


# --------------------------------------------------------------------------------------------
# The API


def test_chance_constant_and_config_key():
    assert tapete.CHANCE == -1
    for name in GAMES:
        assert _core.load_game(name).config()["explicit_chance"] is False
        game = explicit(name)
        assert game.config()["explicit_chance"] is True
        assert _core.load_game(name, **game.config()) == game
        assert game != _core.load_game(name)
        assert game.max_chance_outcomes() == {"cuajo": 28, "cau_robat": 40}.get(name, 52)
        for bad in ("yes", 1, None, [True]):
            with pytest.raises(ConfigError, match="explicit_chance"):
                _core.load_game(name, explicit_chance=bad)
        with pytest.raises(ConfigError):
            _core.load_game(name, explicit_chance=True, no_such_key=1)
        deck = json.loads(_core.load_game(name).new_initial_state(1).serialize())["decks"][0]
        with pytest.raises(ConfigError, match="deck"):
            game.new_initial_state(seed=1, deck=deck)


def test_seeded_mode_has_no_chance_node():
    for name in GAMES:
        state = _core.load_game(name).new_initial_state(seed=5)
        rng = random.Random(5)
        while not state.is_terminal():
            assert not state.is_chance_node() and state.chance_outcomes() == []
            assert state.current_player() >= 0
            state.apply_action(rng.choice(state.legal_actions()))
        assert not state.is_chance_node() and state.chance_outcomes() == []


@pytest.mark.parametrize("name", GAMES)
def test_explicit_game_runs_through_its_chance_nodes(name):
    game = explicit(name)
    state = game.new_initial_state(seed=3)
    n = game.num_players()
    seen: dict[str, int] = Counter()
    total = [0.0] * n

    def check(s: tapete.State) -> None:
        if s.is_chance_node():
            seen["chance"] += 1
            assert s.current_player() == tapete.CHANCE and not s.is_terminal()
            outcomes = s.chance_outcomes()
            ids = [c for c, _ in outcomes]
            assert ids == sorted(set(ids)) == s.legal_actions()
            assert all(0 < p <= 1 for _, p in outcomes)
            assert math.isclose(sum(p for _, p in outcomes), 1.0)
            mask = s.legal_actions_mask()
            assert mask.shape == (game.max_chance_outcomes(),)
            assert [i for i, m in enumerate(mask) if m] == ids
            for c in ids[:3]:
                text = s.action_to_string(c)
                assert text.startswith("deal ") or text.startswith("dealer ")
                assert s.string_to_action(text) == c
                assert s.string_to_action(text.upper()) == c
            assert s.view(0)["phase"] == "chance"
            assert not s.observation_tensor(0).any()
        else:
            seen["decision"] += 1
        for p, r in enumerate(s.rewards()):
            total[p] += r

    play(state, random.Random(1), check)
    assert seen["chance"] > 0 and seen["decision"] > 0
    assert state.chance_outcomes() == []
    # The history holds the outcomes too, and replays to the same state.
    assert len(state.history()) == seen["chance"] + seen["decision"] - 1
    again = game.new_initial_state(seed=3)
    for a in state.history():
        again.apply_action(a)
    assert again == state
    # Rewards (one per move, chance outcomes included) add up to the returns.
    assert all(
        math.isclose(t, r, abs_tol=1e-9) for t, r in zip(total, state.returns(), strict=True)
    )


def test_first_dealer_is_one_uniform_chance_node():
    for name in GAMES:
        game = explicit(name)
        n = game.num_players()
        state = game.new_initial_state(seed=1)
        assert state.chance_outcomes() == [(s, 1 / n) for s in range(n)]
        assert state.action_to_string(n - 1) == f"dealer {n - 1}"
        assert state.returns() == [0.0] * n
        state.apply_action(n - 1)
        if name == "spoil_five":  # the antes are paid before the cards (rules §1.5)
            assert state.returns() == [-1.0, -1.0, -1.0, -2.0] == state.rewards()
        assert state.view()["deal"] == 0 and state.view()["cards_dealt"] == 0
        assert state.action_to_string(0).startswith("deal ")
        assert deal(state, random.Random(0)).view()["dealer"] == n - 1
        # A fixed first dealer has no such node: the first outcome is a card.
        fixed = explicit(name, first_dealer=1).new_initial_state(seed=1)
        assert len(fixed.chance_outcomes()) == game.max_chance_outcomes()
        assert deal(fixed, random.Random(0)).view()["dealer"] == 1


def test_illegal_outcomes_are_refused_and_change_nothing():
    for name in GAMES:
        game = explicit(name)
        state = game.new_initial_state(seed=2)
        n = game.num_players()
        for bad in (n, 99, -1, 2**70, "0", True, 1.0):
            before = state.serialize()
            with pytest.raises((IllegalActionError, ValueError)):
                state.apply_action(bad)
            assert state.serialize() == before
        for first in (
            state,
            tapete.reference.load_game(name, explicit_chance=True).new_initial_state(),
        ):  # the dealer's seat is named in range
            with pytest.raises(
                ParseError, match=rf"['\"]dealer <seat>['\"] with a seat 0\.\.{n - 1}"
            ):
                first.string_to_action(f"dealer {n}")
        state.apply_action(0)
        first = state.chance_outcomes()[0][0]
        state.apply_action(first)
        if name != "cuajo":  # a card dealt once cannot come again
            with pytest.raises(IllegalActionError, match="not a possible chance outcome"):
                state.apply_action(first)
        for bad in (game.max_chance_outcomes(), 1000):
            before = state.serialize()
            with pytest.raises(IllegalActionError):
                state.apply_action(bad)
            assert state.serialize() == before
        with pytest.raises(ParseError, match="not a card"):
            state.string_to_action("deal ZZ")
        for text in ("deal", "dealer 0", "play 7H", ""):
            with pytest.raises(ParseError, match="deal <card>"):
                state.string_to_action(text)
        with pytest.raises(IllegalActionError):
            state.action_to_string(1000)


@pytest.mark.parametrize("impl", ["engine", "reference"])
def test_explain_illegal_at_chance_nodes(impl):
    """At a chance node explain_illegal is about its outcomes (None for each, else what
    apply_action says), whatever the seed: never the rules state's seeded hands."""
    load = _core.load_game if impl == "engine" else tapete.reference.load_game
    for name in GAMES:
        rng = random.Random(5)
        game = load(name, explicit_chance=True)
        states = [game.new_initial_state(s) for s in (3, 4)]
        while states[0].is_chance_node():  # the first dealer and the first deal
            state = states[0]
            outcomes = {o for o, _ in state.chance_outcomes()}
            for a in (game.max_chance_outcomes(), 1000):  # no outcome id: an error
                with pytest.raises(IllegalActionError):
                    state.explain_illegal(a)
            for a in range(game.max_chance_outcomes()):
                why = [s.explain_illegal(a) for s in states]
                assert why[0] == why[1], (name, a)  # nothing of the seed shows
                if a in outcomes:
                    assert why[0] is None
                else:
                    with pytest.raises(IllegalActionError) as error:
                        state.apply_action(a)
                    assert str(error.value) == why[0]
            a = draw(state, rng)
            for s in states:
                s.apply_action(a)
        # At the first decision both seeds hold the same dealt cards: the same answers.
        for a in range(game.num_distinct_actions()):
            assert states[0].explain_illegal(a) == states[1].explain_illegal(a)


def test_round_trips_at_chance_nodes():
    for name in GAMES:
        game = explicit(name)
        state = game.new_initial_state(seed=4)
        rng = random.Random(4)
        for _ in range(20):  # the first dealer and a deal's first cards
            state.apply_action(draw(state, rng))
            assert state.is_chance_node()
            assert game.deserialize_state(state.serialize()) == state
            assert pickle.loads(pickle.dumps(state)) == state
            assert state.clone() == state
        assert json.loads(state.serialize())["config"]["explicit_chance"] is True


def test_nothing_dealt_is_shown_at_a_chance_node():
    """Mid-deal, no seat's view, observation or information state names a dealt card (or, in
    the full view, any card): the cards being dealt are seen when the last of them is."""
    for name in GAMES:
        game = explicit(name, first_dealer=0)
        state = game.new_initial_state(seed=6)
        rng = random.Random(6)
        dealt = []
        for _ in range(12):
            c = draw(state, rng)
            dealt.append(state.action_to_string(c).split()[1])
            state.apply_action(c)
        texts = [json.dumps(state.view()), str(state)]
        for seat in range(game.num_players()):
            texts += [
                json.dumps(state.view(seat)),
                state.observation_string(seat),
                state.information_state_string(seat),
            ]
            assert not state.observation_tensor(seat).any()
        for text in texts:
            for card in dealt:
                assert f" {card}" not in text and f'"{card}"' not in text, (name, card, text)


@pytest.mark.parametrize("name", GAMES)
def test_seeded_cards_as_outcomes_give_the_seeded_game(name):
    """A seeded game's decks (and first dealer) applied as outcomes replay it exactly."""
    seeded_game = _core.load_game(name)
    game = explicit(name)
    seeded = seeded_game.new_initial_state(seed=11)
    rng = random.Random(11)
    actions = []
    while not seeded.is_terminal():
        actions.append(rng.choice(seeded.legal_actions()))
        seeded.apply_action(actions[-1])
    decks = json.loads(seeded.serialize())["decks"]
    replay = seeded_game.new_initial_state(seed=11)
    state = game.new_initial_state(seed=11)
    for i, a in enumerate([*actions, None]):
        while state.is_chance_node():
            view = state.view()
            if view["deal"] is None:
                state.apply_action(seeded_game.new_initial_state(seed=11).view()["dealer"])
            else:
                card = decks[view["deal"]][view["cards_dealt"]]
                state.apply_action(state.string_to_action(f"deal {card}"))
        assert state.view() == replay.view(), i
        assert state.returns() == replay.returns()
        assert state.legal_actions() == replay.legal_actions()
        if a is None:
            break
        state.apply_action(a)
        replay.apply_action(a)
    assert state.is_terminal()
    for seat in range(game.num_players()):
        assert state.information_state_string(seat) == replay.information_state_string(seat)
        assert (state.observation_tensor(seat) == replay.observation_tensor(seat)).all()


# --------------------------------------------------------------------------------------------
# Each game's chance model


def test_spoil_five_turn_up_is_uniform():
    assert_same_law("spoil_five", lambda s: s.view()["trump"], 300, dict.fromkeys("CDHS", 0.25))


def test_cicera_table_courts():
    """Courts (J Q K: 12 of the 52 cards) among the 4 face-up table cards: hypergeometric."""
    p = [math.comb(12, k) * math.comb(40, 4 - k) / math.comb(52, 4) for k in range(5)]
    law = {0: p[0], 1: p[1], 2: p[2] + p[3] + p[4]}

    def courts(s: tapete.State) -> int:
        return min(2, sum(c[:-1] in ("J", "Q", "K") for c in s.view()["table"]))

    assert_same_law("cicera", courts, 300, law)


def test_cau_robat_table_ranks():
    """The table shows 4 distinct ranks, a uniform set of them: the number of ranks 1-5 (of
    the ten) on it is hypergeometric."""
    law = {k: math.comb(5, k) * math.comb(5, 4 - k) / math.comb(10, 4) for k in range(5)}
    law = {0: law[0] + law[1], 2: law[2], 3: law[3] + law[4]}

    def low(s: tapete.State) -> int:
        ranks = [c[:-1] for c in s.view()["table"]]
        assert len(set(ranks)) == 4
        k = sum(r in ("1", "2", "3", "4", "5") for r in ranks)
        return 0 if k <= 1 else min(k, 3)

    assert_same_law("cau_robat", low, 300, law)


def test_cau_robat_table_offers_only_new_ranks():
    """Rules case D4: with 5 of coins on the table, the next table card is any of the 36 deck
    cards of another rank, each with probability 1/36; the hands then take any card."""
    state = explicit("cau_robat", first_dealer=0).new_initial_state(seed=1)
    state.apply_action(state.string_to_action("deal 5O"))
    outcomes = state.chance_outcomes()
    names = [state.action_to_string(c).split()[1] for c, _ in outcomes]
    assert len(outcomes) == 36 and all(math.isclose(p, 1 / 36) for _, p in outcomes)
    assert not any(n.startswith("5") for n in names)
    with pytest.raises(IllegalActionError):
        state.apply_action(state.string_to_action("deal 5C"))
    for card in ("6O", "7O", "10O"):
        state.apply_action(state.string_to_action(f"deal {card}"))
    # The table is full: every remaining card may come, the other fives too.
    assert len(state.chance_outcomes()) == 36
    assert state.string_to_action("deal 5C") in state.legal_actions()
    assert deal(state, random.Random(0)).view()["table"] == ["5O", "6O", "7O", "10O"]


def test_cuajo_sowee_rank_is_uniform():
    ranks = "A345JHK"
    assert_same_law("cuajo", lambda s: s.view()["sowee"][:-1], 280, dict.fromkeys(ranks, 1 / 7))


def test_cuajo_outcomes_are_card_types_weighted_by_what_remains():
    """Outcome = card type 0..27, probability remaining[t] / total: at the first card, at a
    stock draw, and at the scoring draws."""
    game = explicit("cuajo", first_dealer=0)
    state = game.new_initial_state(seed=8)
    assert state.chance_outcomes() == [(t, 4 / 112) for t in range(28)]
    ko = state.string_to_action("deal KO")
    assert ko == 6
    state.apply_action(ko)
    assert dict(state.chance_outcomes())[ko] == 3 / 111
    assert dict(state.chance_outcomes())[0] == 4 / 111
    for _ in range(3):
        state.apply_action(ko)
    assert ko not in dict(state.chance_outcomes())
    rng = random.Random(8)
    checked = 0
    while not state.is_terminal() and checked < 5:
        if state.is_chance_node():
            if state.view()["cards_dealt"] >= 62:  # a stock (or scoring) draw
                full = json.loads(state.serialize())
                deck = full["decks"][state.view()["deal"]][: state.view()["cards_dealt"]]
                remaining = Counter({t: 4 for t in range(28)})
                remaining.subtract(Counter(state.string_to_action(f"deal {c}") for c in deck))
                total = sum(remaining.values())
                expected = [(t, k / total) for t, k in sorted(remaining.items()) if k > 0]
                got = state.chance_outcomes()
                assert [t for t, _ in got] == [t for t, _ in expected]
                assert all(math.isclose(p, q) for (_, p), (_, q) in zip(got, expected, strict=True))
                checked += 1
            state.apply_action(draw(state, rng))
        else:
            legal = state.legal_actions()
            draw_id = state.string_to_action("draw")
            state.apply_action(draw_id if draw_id in legal else rng.choice(legal))
    assert checked == 5


# --------------------------------------------------------------------------------------------
# Determinisation, bots and the generic layers


def test_resample_in_explicit_mode():
    for name in GAMES:
        game = explicit(name)
        state = deal(game.new_initial_state(seed=9), random.Random(9))
        rng = random.Random(9)
        for _ in range(5):
            state.apply_action(rng.choice(state.legal_actions()))
            state = deal(state, rng)
        for seat in range(game.num_players()):
            other = state.resample_from_infostate(seat, 3)
            assert other.view(seat) == state.view(seat)
            assert other.information_state_string(seat) == state.information_state_string(seat)
            assert (other.observation_tensor(seat) == state.observation_tensor(seat)).all()
        # At a chance node: a state at the same chance node.
        mid = game.new_initial_state(seed=9)
        for _ in range(7):
            mid.apply_action(draw(mid, rng))
        other = mid.resample_from_infostate(0, 5)
        assert other.is_chance_node() and other.view(0) == mid.view(0)


@pytest.mark.parametrize(
    ("name", "config"),
    [
        ("spoil_five", {"players": 3, "rob_policy": "penalty"}),
        ("spoil_five", {"players": 2, "rob_policy": "optional", "rob_timing": "before_first_lead"}),
        ("cuajo", {}),
    ],
)
def test_explicit_resample_replays_as_itself(impl, name, config):
    """A re-dealt world may hold more or fewer hidden decisions than the true one (a private
    rob decline): its moves are rebuilt, so its history replays as the same world (an engine
    that patched the moves in place panicked or replayed another world)."""
    game = impl.load_game(name, explicit_chance=True, **config)
    rounds = 1 if impl is tapete.reference and name == "cuajo" else 4
    for seed in range(rounds):
        rng = random.Random(seed)
        state = deal(game.new_initial_state(seed=seed), rng)
        for step in range(24 if name == "cuajo" else 12):
            if state.is_terminal():
                break
            seat = step % game.num_players()
            other = state.resample_from_infostate(seat, 100 * seed + step)
            assert other.view(seat) == state.view(seat)
            copy = game.deserialize_state(other.serialize())
            assert copy == other and copy.view() == other.view()
            state.apply_action(rng.choice(state.legal_actions()))
            state = deal(state, rng)


def test_bots_decide_and_the_seeded_layers_refuse():
    for name in GAMES:
        game = explicit(name)
        state = game.new_initial_state(seed=1)
        for spec in ("random", "heuristic", "ismcts:iterations=20"):
            bot = tapete.bots.make(spec, game, seed=1)
            with pytest.raises(IllegalActionError, match="chance"):
                bot.choose(state)
            ready = deal(state.clone(), random.Random(1))
            assert bot.choose(ready) in ready.legal_actions()
        with pytest.raises(ConfigError, match="explicit_chance"):
            tapete.arena(game, ["random"] * game.num_players(), 1)
        with pytest.raises(ConfigError, match="explicit_chance"):
            tapete.arena(name, ["random"] * game.num_players(), 1, explicit_chance=True)
        with pytest.raises(ConfigError, match="explicit_chance"):
            tapete.VectorEnv(game, 2)
        with pytest.raises(ConfigError, match="explicit_chance"):
            game.play_random(2)


# --------------------------------------------------------------------------------------------
# Lock step with the reference model


def reference_explicit(name: str) -> tapete.Game | None:
    """The reference model's explicit-chance game, or None while it has none."""
    import tapete.reference

    try:
        return tapete.reference.load_game(name, explicit_chance=True)
    except ConfigError:
        return None


@pytest.mark.parametrize("name", GAMES)
def test_lock_step_with_the_reference(name):
    """Both implementations in the explicit mode from the same outcomes and decisions: the same
    chance outcomes and probabilities at every chance node, the same game at every decision."""
    ref_game = reference_explicit(name)
    if ref_game is None:
        pytest.skip("the reference model has no explicit_chance yet")
    game = explicit(name)
    n = game.num_players()
    for seed in range(2):
        a, b = game.new_initial_state(seed=seed), ref_game.new_initial_state(seed=seed)
        rng = random.Random(seed)
        steps = 0
        while not a.is_terminal() and steps < 400:
            assert a.is_chance_node() == b.is_chance_node()
            assert a.current_player() == b.current_player()
            if a.is_chance_node():
                ours, theirs = a.chance_outcomes(), b.chance_outcomes()
                assert [c for c, _ in ours] == [c for c, _ in theirs]
                assert all(math.isclose(p, q) for (_, p), (_, q) in zip(ours, theirs, strict=True))
                action = draw(a, rng)
            else:
                assert a.view() == b.view()
                for seat in range(n):
                    assert a.view(seat) == b.view(seat)
                assert [a.action_to_string(x) for x in a.legal_actions()] == [
                    b.action_to_string(x) for x in b.legal_actions()
                ]
                action = rng.choice(a.legal_actions())
            assert a.action_to_string(action) == b.action_to_string(action)
            a.apply_action(action)
            b.apply_action(action)
            assert a.returns() == pytest.approx(b.returns())
            steps += 1
        assert a.history() == b.history()
