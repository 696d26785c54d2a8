"""Acceptance tests for Spoil Five: the worked cases of shared/rules/spoil_five.md, section 7.

Every test runs on both implementations through the ``impl`` fixture of ``conftest.py``
(the Rust engine ``tapete`` and the pure-Python reference ``tapete.reference``).

* 7.1 / 7.2 (TR-xx, LM-xx) and the orders of 2.2 / 2.3 go through the hand evaluators
  ``<impl>.spoil_five.trump_order / trick_winner / legal_plays``.
* 7.2 (RB-xx, JD-xx) and the complete hands of 7.3 (Examples A-D) are played as full games
  from a deck built with the deal formula of 1.5 (batches [2, 3]).
* 7.4 (PAY-x) are played as matches with ``new_initial_state(seed, decks=[...])``; each deal's
  hands and scripted play (tests/data/spoil_five_scenarios.json) produce the result of its row.

Card strings are the canonical ASCII ones of docs/rules/spoil_five.md (``10D``, ``AH``).
"""

import importlib
import json
import pathlib

import pytest

DATA = json.loads(
    (pathlib.Path(__file__).parent / "data" / "spoil_five_scenarios.json").read_text()
)

# --------------------------------------------------------------------------------------------
# cards

SUITS = "CDHS"
RANKS = ["2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K", "A"]
PACK = [r + s for s in SUITS for r in RANKS]  # ascending card id


def card_id(card):
    """id = 13*suit + rank_index (rules 0 / 8.1)."""
    return 13 * SUITS.index(card[-1]) + RANKS.index(card[:-1])


def by_id(cards):
    return sorted(cards, key=card_id)


def test_card_ids_of_the_rules_document():
    # the examples listed in rules section 0
    expected = {
        "AH": 38,
        "5H": 29,
        "JH": 35,
        "5C": 3,
        "JC": 9,
        "AC": 12,
        "5D": 16,
        "JD": 22,
        "AD": 25,
        "5S": 42,
        "JS": 48,
        "AS": 51,
    }
    assert {c: card_id(c) for c in expected} == expected
    assert [card_id(c) for c in PACK] == list(range(52))


# --------------------------------------------------------------------------------------------
# decks (rules 1.5, deal_batches = [2, 3])


def build_deck(n, dealer, hands, turn_up):
    """52-card deck, top first, that deals ``hands`` ({seat: 5 cards}) and turns up ``turn_up``.

    Positions k < 2n go to seat (d+1+k//2) % n, 2n <= k < 5n to seat (d+1+(k-2n)//3) % n,
    position 5n is the turn-up.  A hand's first two cards are its 2-card batch, the other three
    its 3-card batch.  The cards not listed fill the stock in ascending card id.
    """
    deck = [None] * 52
    for seat, hand in hands.items():
        seat = int(seat)
        assert len(hand) == 5, hand
        i = (seat - dealer - 1) % n  # position of the seat in the dealing order
        deck[2 * i], deck[2 * i + 1] = hand[0], hand[1]
        deck[2 * n + 3 * i : 2 * n + 3 * i + 3] = hand[2:]
    deck[5 * n] = turn_up
    listed = [c for c in deck if c is not None]
    assert len(listed) == 5 * n + 1 and len(set(listed)) == len(listed), "bad scenario"
    rest = iter(c for c in PACK if c not in listed)
    deck = [c if c is not None else next(rest) for c in deck]
    assert sorted(deck, key=card_id) == PACK
    return deck


def dealt_hands(deck, n, dealer):
    """The hands the 1.5 formula deals from ``deck`` (used to double-check build_deck)."""
    hands = [[] for _ in range(n)]
    for k in range(5 * n):
        seat = (dealer + 1 + k // 2) % n if k < 2 * n else (dealer + 1 + (k - 2 * n) // 3) % n
        hands[seat].append(deck[k])
    return hands


@pytest.mark.parametrize("name", sorted(DATA["examples"]))
def test_scenario_decks_deal_the_listed_hands(name):
    ex = DATA["examples"][name]
    n, d = ex["players"], ex["dealer"]
    deck = build_deck(n, d, ex["hands"], ex["turn_up"])
    hands = dealt_hands(deck, n, d)
    for seat in range(n):
        assert by_id(hands[seat]) == by_id(ex["hands"][str(seat)])
    assert deck[5 * n] == ex["turn_up"]
    if "deck_top" in ex:  # Example A prints its deck top -> bottom
        assert deck[: 5 * n + 1] == ex["deck_top"]


def test_pay_decks_deal_the_listed_hands():
    for seq in DATA["pay"].values():
        n = seq["players"]
        for deal in seq["deals"]:
            deck = build_deck(n, deal["dealer"], deal["hands"], deal["turn_up"])
            hands = dealt_hands(deck, n, deal["dealer"])
            for seat in range(n):
                assert by_id(hands[seat]) == by_id(deal["hands"][str(seat)])


# --------------------------------------------------------------------------------------------
# evaluator adapter


def evaluators(impl):
    mod = getattr(impl, "spoil_five", None)
    if mod is None:
        mod = importlib.import_module(impl.__name__ + ".spoil_five")
    return mod


@pytest.fixture
def sf(impl):
    """``<impl>.spoil_five``: trump_order, trick_winner and legal_plays, as in api.md."""
    return evaluators(impl)


# --------------------------------------------------------------------------------------------
# 2.2 / 2.3 orders

TRUMP_ORDERS = {
    "H": "5H JH AH KH QH 10H 9H 8H 7H 6H 4H 3H 2H",
    "D": "5D JD AH AD KD QD 10D 9D 8D 7D 6D 4D 3D 2D",
    "C": "5C JC AH AC KC QC 2C 3C 4C 6C 7C 8C 9C 10C",
    "S": "5S JS AH AS KS QS 2S 3S 4S 6S 7S 8S 9S 10S",
}
PLAIN_ORDERS = {
    "H": "KH QH JH 10H 9H 8H 7H 6H 5H 4H 3H 2H",
    "D": "KD QD JD 10D 9D 8D 7D 6D 5D 4D 3D 2D AD",
    "C": "KC QC JC AC 2C 3C 4C 5C 6C 7C 8C 9C 10C",
    "S": "KS QS JS AS 2S 3S 4S 5S 6S 7S 8S 9S 10S",
}


def test_orders_partition_the_pack():
    # rules 2.4 sanity test, on the tables used below
    for trump in SUITS:
        cards = TRUMP_ORDERS[trump].split()
        for s in SUITS:
            if s != trump:
                cards += PLAIN_ORDERS[s].split()
        assert sorted(cards, key=card_id) == PACK, trump


@pytest.mark.parametrize("trump", list(SUITS))
def test_trump_order_full_list(sf, trump):
    assert list(sf.trump_order(trump)) == TRUMP_ORDERS[trump].split()


@pytest.mark.parametrize("trump", list(SUITS))
def test_trump_order_decides_tricks(sf, trump):
    order = TRUMP_ORDERS[trump].split()
    for i, high in enumerate(order):
        for low in order[i + 1 :]:
            assert sf.trick_winner(trump, [low, high]) == 1, (trump, low, high)
            assert sf.trick_winner(trump, [high, low]) == 0, (trump, high, low)


@pytest.mark.parametrize("trump", list(SUITS))
def test_plain_orders_decide_tricks(sf, trump):
    for s in SUITS:
        if s == trump:
            continue
        order = PLAIN_ORDERS[s].split()
        for i, high in enumerate(order):
            for low in order[i + 1 :]:
                assert sf.trick_winner(trump, [low, high]) == 1, (trump, low, high)
                assert sf.trick_winner(trump, [high, low]) == 0, (trump, high, low)


# --------------------------------------------------------------------------------------------
# 7.1 trick resolution

TR_CASES = [
    # id, trump, players, leader, "seat:card ..." in play order, winner seat
    ("TR-01", "S", 4, 0, "0:2D 1:10D 2:AD 3:5D", 1),
    ("TR-02", "H", 4, 0, "0:10C 1:AC 2:2C 3:JC", 3),
    ("TR-03", "H", 2, 1, "1:AC 0:2C", 1),
    ("TR-04", "C", 3, 2, "2:AD 0:2D 1:9S", 0),
    ("TR-05", "D", 3, 0, "0:KS 1:2D 2:AS", 1),
    ("TR-06", "C", 3, 2, "2:KH 0:AH 1:QH", 0),
    ("TR-07", "S", 3, 0, "0:AS 1:AH 2:KS", 1),
    ("TR-08", "D", 4, 1, "1:AH 2:JD 3:5D 0:AD", 3),
    ("TR-09", "C", 3, 0, "0:10C 1:6C 2:2C", 2),
    ("TR-10", "D", 3, 0, "0:2D 1:10D 2:6D", 1),
    ("TR-11", "H", 4, 0, "0:3S 1:KC 2:4S 3:10S", 0),
    ("TR-12", "H", 3, 2, "2:KH 0:AH 1:JH", 1),
    ("TR-13", "D", 4, 0, "0:2H 1:5H 2:KH 3:4D", 3),
    ("TR-14", "D", 4, 0, "0:AH 1:AD 2:KD 3:5C", 0),
    ("TR-15", "S", 3, 0, "0:7S 1:JC 2:10S", 0),
    ("TR-16", "H", 3, 0, "0:4H 1:6H 2:2H", 1),
    ("TR-17", "C", 10, 4, "4:9D 5:2S 6:KH 7:3C 8:QD 9:10C 0:AC 1:JD 2:4C 3:KD", 0),
    ("TR-18", "S", 4, 0, "0:QC 1:3D 2:9H 3:5C", 0),
    ("TR-19", "H", 5, 0, "0:JD 1:AD 2:5D 3:2S 4:2H", 4),
    ("TR-20", "C", 4, 0, "0:QS 1:AH 2:2C 3:5H", 1),
]


@pytest.mark.parametrize("case", TR_CASES, ids=[c[0] for c in TR_CASES])
def test_trick_resolution(sf, case):
    _, trump, n, leader, plays, winner = case
    plays = [(int(s), c) for s, c in (p.split(":") for p in plays.split())]
    assert [s for s, _ in plays] == [(leader + i) % n for i in range(n)]  # the table itself
    index = sf.trick_winner(trump, [c for _, c in plays])
    assert plays[index][0] == winner, plays[index]


# --------------------------------------------------------------------------------------------
# 7.2 legal moves (renege_reference = led_card)

LM_CASES = [
    # id, trump, hand, trick so far, legal PLAY ids (= card ids) ascending
    ("LM-01", "S", "3C 7D 4S AH KD", "9C", [1, 38, 41]),
    ("LM-02", "S", "7D 4H KH QD", "9C", [18, 23, 28, 37]),
    ("LM-03", "C", "AH 9D 2S", "2H", [20, 38, 39]),
    ("LM-04", "C", "AH 6H 2S KD", "2H", [30, 38]),
    ("LM-05", "D", "5D 2C KS", "AH", [0, 16, 50]),
    ("LM-06", "D", "JD 3D KS", "AH", [14, 22]),
    ("LM-07", "S", "JS AH 9D", "5S", [38, 48]),
    ("LM-08", "S", "5S AH 9D", "JS", [38, 42]),
    ("LM-09", "C", "5C JC 8D", "AH", [3, 9, 19]),
    ("LM-10", "C", "10C 5C KD", "2C", [3, 8]),
    ("LM-11", "H", "AH KS 2C", "2H", [0, 38, 50]),
    ("LM-12", "H", "AH KS 2C", "JH", [38]),
    ("LM-13", "D", "AD KS 2C 9C QC", "3D 2D", [25]),
    ("LM-14", "H", "AH KS 2C 9D QC", "7H", [0, 10, 20, 38, 50]),
    ("LM-15", "S", "KD 9H 2C", "3S", [0, 24, 33]),
    ("LM-16", "S", "5S JS AH AS", "", [38, 42, 48, 51]),
    ("LM-17", "D", "JD KH QC", "6D 5D", [10, 22, 37]),
    ("LM-18", "D", "JD KH QC", "5D", [22]),
    ("LM-19", "H", "5H 2C 9S", "KS JH", [29, 46]),
]


@pytest.mark.parametrize("case", LM_CASES, ids=[c[0] for c in LM_CASES])
def test_legal_plays(sf, case):
    _, trump, hand, trick, ids = case
    legal = list(sf.legal_plays(trump, hand.split(), trick.split()))
    assert [card_id(c) for c in legal] == ids  # exact set, canonical (ascending id) order
    assert legal == [PACK[i] for i in ids]  # canonical card strings


# --------------------------------------------------------------------------------------------
# full-game helpers


def load(impl, players, dealer, **config):
    config.setdefault("num_deals", 1)
    return impl.load_game("spoil_five", players=players, first_dealer=dealer, **config)


def legal_strings(state):
    acts = state.legal_actions()
    assert list(acts) == sorted(set(acts)), "legal actions must ascend without duplicates"
    return [state.action_to_string(a) for a in acts]


def play(state, text, seat=None):
    """Apply the action named ``text`` (checking it is legal and who is to act)."""
    if seat is not None:
        assert state.current_player() == seat, (text, state.current_player(), seat)
    action = state.string_to_action(text)
    assert action in state.legal_actions(), (text, legal_strings(state))
    assert state.action_to_string(action) == text
    state.apply_action(action)


def trick_summary(view):
    return [
        {"leader": t["leader"], "plays": [list(p) for p in t["plays"]], "winner": t["winner"]}
        for t in view["tricks"]
    ]


def expected_tricks(steps, n, winners):
    plays = [(s["seat"], s["action"].split()[1]) for s in steps if s["action"].startswith("play ")]
    tricks = []
    for t in range(len(plays) // n):
        chunk = plays[t * n : (t + 1) * n]
        tricks.append(
            {"leader": chunk[0][0], "plays": [[s, c] for s, c in chunk], "winner": winners[t]}
        )
    return tricks


def start_example(impl, name, **config):
    ex = DATA["examples"][name]
    n, d = ex["players"], ex["dealer"]
    game = load(impl, n, d, **config)
    state = game.new_initial_state(seed=1, deck=build_deck(n, d, ex["hands"], ex["turn_up"]))
    view = state.view()
    assert view["dealer"] == d
    assert view["turn_up"] == ex["turn_up"]
    assert view["trump"] == ex["turn_up"][-1]
    assert view["hands"] == [by_id(ex["hands"][str(s)]) for s in range(n)]
    assert view["antes"] == [2 if s == d else 1 for s in range(n)]
    assert view["pool"] == n + 1
    return ex, state


def play_example(ex, state, steps=None):
    """Play the example's steps, checking the phase, the player and the exact legal set of each."""
    for step in ex["steps"] if steps is None else steps:
        view = state.view()
        assert view["phase"] == step["phase"], step
        assert view["to_play"] == step["seat"], step
        assert state.current_player() == step["seat"], step
        assert legal_strings(state) == step["legal"], step
        play(state, step["action"])
        view = state.view()
        if not view["past_deals"]:  # deal still under way: the tricks so far
            got = [t["winner"] for t in view["tricks"]]
            assert got == ex["trick_winners"][: len(got)], (step, got)
    return state


def assert_deal_record(view, ex, index=-1):
    rec = view["past_deals"][index]
    assert rec["dealer"] == ex["dealer"]
    assert rec["outcome"] == ex["outcome"]
    assert rec["winner"] == ex["winner"]
    if "tricks_won" in ex:
        assert rec["tricks_won"] == ex["tricks_won"]
    assert rec["ineligible"] == [False] * ex["players"]


# --------------------------------------------------------------------------------------------
# 7.3 Example A (robbing in hand, black plain order, WIN at trick 5) + RB-01, JD-02


def test_example_a(impl):
    ex, state = start_example(impl, "A")
    play_example(ex, state)
    assert state.is_terminal()
    view = state.view()
    assert trick_summary(view) == expected_tricks(ex["steps"], 3, ex["trick_winners"])
    assert [t["winner"] for t in view["tricks"]] == [1, 0, 2, 2, 2]
    assert view["tricks_won"] == [1, 1, 3]
    assert len(view["past_deals"]) == 1
    assert_deal_record(view, ex)  # WIN(P2) at trick 5
    assert view["balances"] == [-2, -1, 3]
    assert view["pool"] == 0
    assert state.returns() == pytest.approx([-2, -1, 3])


def test_example_a_turn_up_and_robber_in_view(impl):
    ex, state = start_example(impl, "A")
    steps = ex["steps"]
    play_example(ex, state, steps[:1])  # P1 leads 5S
    view = state.view()
    assert view["phase"] == "rob" and view["robber"] is None and view["turn_up_at"] == "stock"
    play_example(ex, state, steps[1:2])  # P2 robs: 10H out, 9S in
    view = state.view()
    assert view["robber"] == 2
    assert view["turn_up_at"] == "hand"
    assert view["hands"][2] == by_id(["AS", "JD", "3C", "4S", "9S"])
    assert view["hand_sizes"] == [5, 4, 5]
    assert view["put_out"][2] == "10H"
    assert state.view(0)["put_out"][2] is None  # never shown to anybody else
    assert state.view(1)["put_out"][2] is None
    play_example(ex, state, steps[2:3])  # P2 plays the turn-up 9S
    assert state.view()["turn_up_at"] == "played"


def test_rb01_rob_node_enforced(impl):
    ex, state = start_example(impl, "A")
    play(state, "play 5S", seat=1)
    assert state.current_player() == 2
    assert state.legal_actions() == [53, 74, 86, 93, 103]
    assert legal_strings(state) == ["rob 3C", "rob JD", "rob 10H", "rob 4S", "rob AS"]


@pytest.mark.parametrize("policy", ["penalty", "optional"])
def test_rb02_rob_node_with_decline(impl, policy):
    ex, state = start_example(impl, "A", rob_policy=policy, leftover_pool="unresolved")
    play(state, "play 5S", seat=1)
    assert state.current_player() == 2
    assert state.legal_actions() == [53, 74, 86, 93, 103, 104]
    assert state.action_to_string(104) == "decline"
    play(state, "decline", seat=2)
    # no rob: the turn-up stays on the stock, P2 follows the 5S lead from his dealt cards
    assert state.current_player() == 2
    assert legal_strings(state) == ["play 4S", "play AS"]
    view = state.view()
    assert view["robber"] is None and view["turn_up_at"] == "stock"
    assert view["declined"][2] is True


def test_jd02_win_at_trick_5_needs_no_decision(impl):
    ex, state = start_example(impl, "A")
    for step in ex["steps"]:
        assert state.view()["phase"] != "jink"
        assert not set(state.legal_actions()) & {105, 106}
        play(state, step["action"], seat=step["seat"])
    assert state.view()["past_deals"][-1]["outcome"] == "win"


# --------------------------------------------------------------------------------------------
# 7.3 Example B (dealer turns up an ace, reneging, SPOIL) + RB-03


def test_example_b(impl):
    ex, state = start_example(impl, "B", leftover_pool="unresolved")
    play_example(ex, state)
    assert state.is_terminal()
    view = state.view()
    assert trick_summary(view) == expected_tricks(ex["steps"], 4, ex["trick_winners"])
    assert [t["winner"] for t in view["tricks"]] == [2, 1, 0, 3, 1]
    assert view["tricks_won"] == [1, 2, 1, 1]
    assert_deal_record(view, ex)  # SPOIL, winner None
    assert view["balances"] == [-1, -1, -1, -2]
    # leftover_pool = "unresolved": the pool of 5 is dropped, returns are the balances
    assert state.returns() == pytest.approx([-1, -1, -1, -2])


def test_example_b_pool_is_carried(impl):
    ex, state = start_example(impl, "B")  # default leftover_pool = play_on
    play_example(ex, state)
    assert not state.is_terminal()
    view = state.view()
    assert view["deal"] == 1 and len(view["past_deals"]) == 1
    assert_deal_record(view, ex, 0)
    assert view["dealer"] == 0  # the deal passes to the left
    assert view["antes"] == [2, 1, 1, 1]
    assert view["pool"] == 5 + 5  # carried 5 + new antes
    assert view["balances"] == [-1 - 2, -1 - 1, -1 - 1, -2 - 1]


def test_rb03_dealer_rob_node(impl):
    ex, state = start_example(impl, "B")
    view = state.view()
    assert view["phase"] == "dealer_rob" and view["to_play"] == 3
    assert state.current_player() == 3
    assert state.legal_actions() == [59, 64, 67, 87, 91]
    assert legal_strings(state) == ["rob 9C", "rob AC", "rob 4D", "rob JH", "rob 2S"]


def test_example_b_dealer_ace_joins_hand_at_his_turn(impl):
    ex, state = start_example(impl, "B")
    steps = ex["steps"]
    play_example(ex, state, steps[:1])  # P3 puts out 2S
    view = state.view()
    assert view["robber"] == 3
    assert view["turn_up_at"] == "dealer"
    assert view["hand_sizes"] == [5, 5, 5, 4]
    assert view["hands"][3] == by_id(["JH", "AC", "9C", "4D"])
    assert view["put_out"][3] == "2S"
    assert state.view(0)["put_out"][3] is None
    play_example(ex, state, steps[1:4])  # P0 7H, P1 3S, P2 KH
    view = state.view()
    assert view["to_play"] == 3
    assert view["turn_up_at"] == "hand"
    assert view["hands"][3] == by_id(["JH", "AC", "9C", "4D", "AH"])
    assert view["hand_sizes"] == [4, 4, 4, 5]
    play_example(ex, state, steps[4:6])  # P3 4D; P2 leads QS
    assert state.view()["turn_up_at"] == "hand"
    play_example(ex, state, steps[6:7])  # P3 plays AH
    assert state.view()["turn_up_at"] == "played"


# --------------------------------------------------------------------------------------------
# 7.3 Example C (successful jink) + JD-01, JD-03


def test_example_c(impl):
    ex, state = start_example(impl, "C")
    play_example(ex, state)
    assert state.is_terminal()
    view = state.view()
    assert trick_summary(view) == expected_tricks(ex["steps"], 2, ex["trick_winners"])
    assert view["jinker"] == 1
    assert_deal_record(view, ex)  # JINK_SUCCESS by P1
    # pool 3 to P1, P0 pays his own full stake 2
    assert view["balances"] == [-4, 4]
    assert view["pool"] == 0
    assert state.returns() == pytest.approx([-4, 4])


def test_example_c_jinker_stake(impl):
    ex, state = start_example(impl, "C", jink_payment="jinker_stake")
    play_example(ex, state)
    assert state.is_terminal()
    view = state.view()
    assert view["past_deals"][-1]["outcome"] == "jink_success"
    assert view["balances"] == [-3, 3]
    assert state.returns() == pytest.approx([-3, 3])


def test_jd01_jink_decision(impl):
    ex, state = start_example(impl, "C")
    steps = ex["steps"]
    k = [s["action"] for s in steps].index("jink")
    play_example(ex, state, steps[:k])
    view = state.view()
    assert view["phase"] == "jink"
    assert view["to_play"] == 1 and state.current_player() == 1
    assert view["current_trick"] is None
    assert view["tricks_won"] == [0, 3]
    assert state.legal_actions() == [105, 106]
    assert legal_strings(state) == ["stand", "jink"]
    play(state, "jink", seat=1)
    view = state.view()
    assert view["jinker"] == 1
    assert view["current_trick"] == {"leader": 1, "plays": []}


def test_example_c_stand(impl):
    ex, state = start_example(impl, "C")
    steps = ex["steps"]
    k = [s["action"] for s in steps].index("jink")
    play_example(ex, state, steps[:k])
    play(state, "stand", seat=1)
    assert state.is_terminal()
    view = state.view()
    rec = view["past_deals"][-1]
    assert rec["outcome"] == "win" and rec["winner"] == 1
    assert len(view["tricks"]) == 3
    assert view["balances"] == [-2, 2]
    assert state.returns() == pytest.approx([-2, 2])


def test_jd03_no_jinking(impl):
    ex, state = start_example(impl, "C", jinking=False)
    steps = ex["steps"]
    k = [s["action"] for s in steps].index("jink")
    for step in steps[:k]:
        assert not set(state.legal_actions()) & {105, 106}
        play(state, step["action"], seat=step["seat"])
    assert state.is_terminal()  # WIN immediately after trick 3
    view = state.view()
    rec = view["past_deals"][-1]
    assert rec["outcome"] == "win" and rec["winner"] == 1
    assert [t["winner"] for t in view["tricks"]] == [1, 1, 1]
    assert view["balances"] == [-2, 2]
    assert state.returns() == pytest.approx([-2, 2])


# --------------------------------------------------------------------------------------------
# 7.3 Example D (failed jink) + RB-05


def test_example_d(impl):
    ex, state = start_example(impl, "D", leftover_pool="unresolved")
    play_example(ex, state)
    assert state.is_terminal()
    view = state.view()
    assert trick_summary(view) == expected_tricks(ex["steps"], 3, ex["trick_winners"])
    assert [t["winner"] for t in view["tricks"]] == [0, 0, 0, 0, 2]
    assert view["jinker"] == 0
    # JINK_FAILED; the record's winner is "the jinker for jinks" (docs/rules/spoil_five.md, view)
    assert_deal_record(view, ex)
    assert view["balances"] == [-1, -1, -2]
    assert state.returns() == pytest.approx([-1, -1, -2])


def test_example_d_pool_is_carried(impl):
    ex, state = start_example(impl, "D")  # default leftover_pool = play_on
    play_example(ex, state)
    assert not state.is_terminal()
    view = state.view()
    assert view["deal"] == 1
    assert view["past_deals"][0]["outcome"] == "jink_failed"
    assert view["dealer"] == 0
    assert view["antes"] == [2, 1, 1]
    assert view["pool"] == 4 + 4
    assert view["balances"] == [-1 - 2, -1 - 1, -2 - 1]


def test_example_d_stand_instead(impl):
    ex, state = start_example(impl, "D")
    steps = ex["steps"]
    k = [s["action"] for s in steps].index("jink")
    play_example(ex, state, steps[:k])
    assert legal_strings(state) == ["stand", "jink"]
    play(state, "stand", seat=0)
    assert state.is_terminal()
    view = state.view()
    assert view["past_deals"][-1]["outcome"] == "win"
    assert view["past_deals"][-1]["winner"] == 0
    assert view["balances"] == [3, -1, -2]


def test_rb05_no_rob_node_when_ace_of_trumps_undealt(impl):
    # Example D: diamonds are trumps and AD is in the stock
    ex, state = start_example(impl, "D", leftover_pool="unresolved")
    for step in ex["steps"]:
        view = state.view()
        assert view["phase"] in ("play", "jink")
        assert all(a < 52 or a in (105, 106) for a in state.legal_actions())
        assert view["robber"] is None and view["turn_up_at"] == "stock"
        play(state, step["action"], seat=step["seat"])
    assert state.is_terminal()
    assert state.view()["robber"] is None


def test_rb04_ace_of_hearts_gives_no_rob_when_clubs_are_trumps(impl):
    # 4 players, dealer P0, turn-up 9C (clubs trumps), AC in the stock, P1 holds AH.
    hands = {
        1: ["AH", "KD", "2D", "3H", "4S"],
        2: ["5C", "JC", "KC", "QD", "2S"],
        3: ["QC", "2C", "KH", "QH", "3S"],
        0: ["KS", "QS", "JD", "10D", "4H"],
    }
    game = load(impl, 4, 0, leftover_pool="unresolved")
    state = game.new_initial_state(seed=3, deck=build_deck(4, 0, hands, "9C"))
    assert state.view()["hands"][1] == by_id(hands[1])
    assert state.view()["trump"] == "C"
    moves = 0
    while not state.is_terminal():
        view = state.view()
        assert view["phase"] in ("play", "jink")
        assert view["robber"] is None and view["turn_up_at"] == "stock"
        acts = state.legal_actions()
        assert all(a < 52 or a in (105, 106) for a in acts)
        state.apply_action(acts[0])
        moves += 1
        assert moves <= 21
    assert len(state.view()["past_deals"]) == 1


# --------------------------------------------------------------------------------------------
# LM-17 with renege_reference = highest_trump_so_far, through a full game


@pytest.mark.parametrize(
    "reference, legal",
    [
        ("led_card", ["play QC", "play JD", "play KH"]),  # [10, 22, 37]
        ("highest_trump_so_far", ["play JD"]),  # [22]
    ],
)
def test_lm17_renege_reference_in_game(impl, reference, legal):
    # 3 players, dealer P2, turn-up 9D (AD and AH stay in the stock). P0 wins two spade tricks,
    # then leads 6D; P1 plays 5D; P2 holds exactly JD KH QC.
    hands = {
        0: ["KS", "QS", "6D", "7C", "8C"],
        1: ["5D", "2H", "3H", "4H", "6H"],
        2: ["JD", "KH", "QC", "2S", "3S"],
    }
    game = load(impl, 3, 2, renege_reference=reference)
    assert game.config()["renege_reference"] == reference
    state = game.new_initial_state(seed=5, deck=build_deck(3, 2, hands, "9D"))
    script = [
        (0, "play KS"),
        (1, "play 2H"),
        (2, "play 2S"),
        (0, "play QS"),
        (1, "play 3H"),
        (2, "play 3S"),
        (0, "play 6D"),
        (1, "play 5D"),
    ]
    for seat, text in script:
        play(state, text, seat=seat)
    view = state.view()
    assert [t["winner"] for t in view["tricks"]] == [0, 0]
    assert view["hands"][2] == ["QC", "JD", "KH"]
    assert state.current_player() == 2
    assert legal_strings(state) == legal
    assert state.legal_actions() == [state.string_to_action(s) for s in legal]


# --------------------------------------------------------------------------------------------
# 7.4 pool and payout sequences


def run_sequence(impl, name, **extra_config):
    """Play every deal of a PAY table and check antes, balances, pool and outcome after each."""
    seq = DATA["pay"][name]
    n, rows, deals = seq["players"], seq["rows"], seq["deals"]
    config = dict(seq["config"])
    config.update(extra_config)
    game = load(impl, n, rows[0]["dealer"], num_deals=len(rows), **config)
    decks = [build_deck(n, d["dealer"], d["hands"], d["turn_up"]) for d in deals]
    state = game.new_initial_state(seed=2024, decks=decks)
    before_bal, before_pool = [0] * n, 0
    for i, (row, deal) in enumerate(zip(rows, deals)):
        where = f"{name} deal {i + 1}"
        view = state.view()
        # the state of the table when deal i starts: the previous row plus this row's antes
        assert view["deal"] == i, where
        assert view["dealer"] == row["dealer"] == deal["dealer"], where
        assert view["antes"] == row["antes"], where
        assert view["balances"] == [b - a for b, a in zip(before_bal, row["antes"])], where
        assert view["pool"] == before_pool + sum(row["antes"]), where
        assert state.returns() == pytest.approx(view["balances"]), where
        assert view["turn_up"] == deal["turn_up"], where
        assert view["hands"] == [by_id(deal["hands"][str(s)]) for s in range(n)], where
        steps = deal["steps"]
        for k, (seat, text) in enumerate(steps):
            if k == len(steps) - 1:  # the last trick is still on the table
                got = [t["winner"] for t in state.view()["tricks"]]
                assert got == deal["trick_winners"][: len(got)], where
            play(state, text, seat=seat)
            if k < len(steps) - 1:
                assert len(state.view()["past_deals"]) == i, (where, "deal ended early", k)
        view = state.view()
        assert len(view["past_deals"]) == i + 1, (where, "deal did not end with its script")
        rec = view["past_deals"][i]
        assert rec["dealer"] == row["dealer"], where
        assert rec["outcome"] == deal["outcome"], where
        assert rec["winner"] == deal["winner"], where
        if deal["outcome"] in ("win", "spoil", "forfeited_win"):
            assert rec["tricks_won"] == deal["tricks_won"], where
        before_bal, before_pool = row["balances"], row["pool"]
    view = state.view()
    return state, view, before_bal, before_pool


def check_match_end(state, view, balances, pool, n, leftover="play_on"):
    if state.is_terminal():
        assert view["balances"] == balances
        share = pool / n if (pool and leftover != "unresolved") else 0
        assert state.returns() == pytest.approx([b + share for b in balances])
    else:
        # the match goes on (play_on with a pool left): the last row is the next deal's start
        # less its antes
        assert view["balances"] == [b - a for b, a in zip(balances, view["antes"])]
        assert view["pool"] == pool + sum(view["antes"])


def test_pay1_default_rules(impl):
    state, view, bal, pool = run_sequence(impl, "PAY-1")
    assert state.is_terminal()
    assert bal == [1, 1, -3, 1] and pool == 0
    assert view["balances"] == [1, 1, -3, 1]
    assert view["pool"] == 0
    assert state.returns() == pytest.approx([1, 1, -3, 1])


def test_pay1b_jinker_stake(impl):
    state, view, bal, pool = run_sequence(impl, "PAY-1b", jink_payment="jinker_stake")
    assert state.is_terminal()
    assert view["balances"] == [1, 0, -3, 2]
    assert view["pool"] == 0
    assert state.returns() == pytest.approx([1, 0, -3, 2])


def test_pay2_reduced_after_spoil(impl):
    state, view, bal, pool = run_sequence(impl, "PAY-2")
    # deal 4 is spoiled: under play_on an extra deal starts (spoil_stake 1, dealer +1)
    assert not state.is_terminal()
    assert view["dealer"] == 4
    assert view["antes"] == [1, 1, 1, 1, 2]
    check_match_end(state, view, [-7, -7, -7, -7, 17], 11, 5)


def test_pay2_reduced_after_spoil_unresolved(impl):
    state, view, bal, pool = run_sequence(impl, "PAY-2", leftover_pool="unresolved")
    assert state.is_terminal()
    check_match_end(state, view, [-7, -7, -7, -7, 17], 11, 5, leftover="unresolved")


def test_pay3_two_players(impl):
    state, view, bal, pool = run_sequence(impl, "PAY-3")
    assert state.is_terminal()
    assert view["balances"] == [0, 0]
    assert state.returns() == pytest.approx([0, 0])
    assert all(d["outcome"] != "spoil" for d in view["past_deals"])


def test_pay4_partnerships(impl):
    state, view, bal, pool = run_sequence(impl, "PAY-4")
    # the last deal was won: the match ends; the remainder 1 left in the pool is shared equally
    assert state.is_terminal()
    check_match_end(state, view, [-2, 1, -2, 2], 1, 4)


def test_pay5_dealer_jink_and_penalty_forfeit(impl):
    state, view, bal, pool = run_sequence(impl, "PAY-5")
    assert state.is_terminal()
    assert view["balances"] == [2, 3, -5]
    assert state.returns() == pytest.approx([2, 3, -5])
    forfeit = view["past_deals"][1]
    assert forfeit["ineligible"] == [False, False, True]
    assert view["past_deals"][0]["ineligible"] == [False, False, False]


def test_pay5_penalty_decline_node(impl):
    # deal 2 of PAY-5: P2 (eldest) holds AC; under rob_policy = penalty he may decline
    seq = DATA["pay"]["PAY-5"]
    deal = seq["deals"][1]
    game = load(impl, 3, 1, rob_policy="penalty", leftover_pool="unresolved")
    state = game.new_initial_state(seed=9, deck=build_deck(3, 1, deal["hands"], deal["turn_up"]))
    assert state.current_player() == 2
    assert state.view()["phase"] == "rob"
    assert legal_strings(state) == ["rob 5C", "rob JC", "rob KC", "rob AC", "rob AH", "decline"]
    for seat, text in deal["steps"]:
        play(state, text, seat=seat)
    assert state.is_terminal()
    view = state.view()
    rec = view["past_deals"][-1]
    assert rec["outcome"] == "forfeited_win" and rec["winner"] == 2
    assert rec["ineligible"] == [False, False, True]
    assert view["balances"] == [-1, -2, -1]  # nothing moved: the pool of 4 is not won


def test_pay5_jinker_stake_first_deal(impl):
    state, view, bal, pool = run_sequence(impl, "PAY-5-jinker-stake", jink_payment="jinker_stake")
    assert state.is_terminal()
    assert view["balances"] == [6, -3, -3]
    assert state.returns() == pytest.approx([6, -3, -3])


def test_pay6_dealer_only_after_spoil(impl):
    state, view, bal, pool = run_sequence(impl, "PAY-6")
    assert state.is_terminal()
    assert view["balances"] == [-3, 5, 1, -3]
    assert view["pool"] == 0
    assert state.returns() == pytest.approx([-3, 5, 1, -3])


# --------------------------------------------------------------------------------------------
# Options of rules §9 with exact expectations (docs/rules/spoil_five.md)


def test_rob_policy_disabled(impl):
    ex, state = start_example(impl, "A", rob_policy="disabled", leftover_pool="unresolved")
    play(state, "play 5S", seat=1)
    view = state.view()
    assert view["phase"] == "play" and view["to_play"] == 2  # no rob for the ace holder
    assert not any(s.startswith("rob") for s in legal_strings(state))
    assert view["turn_up_at"] == "stock" and view["robber"] is None
    ex, state = start_example(impl, "B", rob_policy="disabled", leftover_pool="unresolved")
    view = state.view()
    assert view["phase"] == "play" and view["to_play"] == 0  # no dealer rob for the ace
    assert view["hand_sizes"][3] == 5 and view["turn_up_at"] == "stock"


def test_rob_timing_before_first_lead(impl):
    ex, state = start_example(impl, "A", rob_timing="before_first_lead")
    full, eldest = state.view(), state.view(1)
    assert full["phase"] == "rob" and full["to_play"] == 2
    assert legal_strings(state) == ["rob 3C", "rob JD", "rob 10H", "rob 4S", "rob AS"]
    # the other seats see the eldest about to lead, not who holds the ace of trumps
    assert eldest["phase"] == "play" and eldest["to_play"] == 1
    play(state, "rob 10H", seat=2)
    view = state.view()
    assert view["phase"] == "play" and view["to_play"] == 1 and view["robber"] == 2
    assert "9S" in view["hands"][2] and "10H" not in view["hands"][2]
    assert view["put_out"] == [None, None, "10H"]


def test_early_spoil_stop_ends_example_b_after_trick_4(impl):
    ex, state = start_example(impl, "B", early_spoil_stop=True, leftover_pool="unresolved")
    play_example(ex, state, ex["steps"][:17])  # the dealer's rob and tricks 1-4
    assert state.is_terminal()
    record = state.view()["past_deals"][-1]
    assert record["outcome"] == "spoil" and record["tricks_won"] == [1, 1, 1, 1]


@pytest.mark.parametrize(
    ("config", "returns"),
    [
        ({"leftover_pool": "split_equally"}, [-1 + 1.25, -1 + 1.25, -1 + 1.25, -2 + 1.25]),
        ({"leftover_pool": "play_on", "max_extra_deals": 0}, [0.25, 0.25, 0.25, -0.75]),
        ({"leftover_pool": "unresolved"}, [-1, -1, -1, -2]),
    ],
)
def test_leftover_pool_after_a_spoil(impl, config, returns):
    ex, state = start_example(impl, "B", **config)
    play_example(ex, state)
    assert state.is_terminal()
    assert state.view()["pool"] == 5
    assert state.returns() == returns


def test_the_robbers_observation_shows_his_put_out_card(impl):
    """Who robbed is public; the card he put out is his alone: his observation string names it,
    the others' do not (an audit found the engine's string left it out)."""
    state = impl.load_game("spoil_five").new_initial_state(seed=3)
    rob = next(a for a in state.legal_actions() if state.action_to_string(a).startswith("rob"))
    state.apply_action(rob)
    robber = state.view(None)["robber"]
    put_out = state.view(robber)["put_out"][robber]
    assert put_out is not None
    assert f"put out {put_out}" in state.observation_string(robber)
    for seat in range(4):
        if seat != robber:
            assert put_out not in state.observation_string(seat)
            assert "robbed" in state.observation_string(seat)
