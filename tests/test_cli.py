"""The command line: ``tapete games``, ``tapete play`` (stdin scripted), ``tapete selfplay``."""

from __future__ import annotations

import io
import json
import math
import random
import re
import subprocess
import sys
from typing import Any

import pytest

import tapete
from tapete import cli
from tapete.cli import main, parse_options
from tapete.reference.rng import SplitMix64

ONE_DEAL = ["num_deals=1", "leftover_pool=split_equally"]


def run_play(
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    lines: list[str],
    *args: str,
) -> tuple[int, str, str]:
    monkeypatch.setattr("sys.stdin", io.StringIO("".join(f"{line}\n" for line in lines)))
    code = main(["play", "spoil_five", *args])
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def simulate(seed: int, config: dict[str, Any], seat: int = 0) -> list[tuple[int, str, str]]:
    """The game ``tapete play`` runs when the person always types ``1``: (actor, phase, action)."""
    state = tapete.load_game("spoil_five", **config).new_initial_state(seed)
    bots = random.Random(seed)
    events = []
    while not state.is_terminal():
        actor = state.current_player()
        legal = state.legal_actions()
        action = legal[0] if actor == seat else bots.choice(legal)
        events.append((actor, state.view(seat)["phase"], state.action_to_string(action)))
        state.apply_action(action)
    return events


def first_seed(config: dict[str, Any], wanted: Any) -> tuple[int, list[tuple[int, str, str]]]:
    for seed in range(300):
        events = simulate(seed, config)
        if any(wanted(event) for event in events):
            return seed, events
    raise AssertionError("no seed found")


def assert_one_error_line(err: str, fragment: str) -> None:
    assert "Traceback" not in err
    lines = err.strip().splitlines()
    assert len(lines) == 1, err
    assert lines[0].startswith("tapete: error:")
    assert fragment in lines[0]


# ---- option parsing ---------------------------------------------------------------------------


def test_parse_options_json_then_string() -> None:
    assert parse_options(
        ["jinking=false", "partnerships=[[0,2],[1,3]]", "num_deals=2", "rob_policy=penalty"]
    ) == {
        "jinking": False,
        "partnerships": [[0, 2], [1, 3]],
        "num_deals": 2,
        "rob_policy": "penalty",
    }
    assert parse_options(["num_deals=null", "first-dealer=2"]) == {
        "num_deals": None,
        "first_dealer": 2,
    }


# ---- games ------------------------------------------------------------------------------------


def test_games_lists_players_and_defaults(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["games"]) == 0
    out = capsys.readouterr().out
    assert "spoil_five" in out
    assert "2–10 (default 4)" in out
    for option in ("rob_policy=enforced", "jinking=true", "deal_batches=[2,3]", "num_deals=4"):
        assert option in out
    assert "\x1b[" not in out  # no colour codes when the output is not a terminal


def test_games_lists_cicera(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["games"]) == 0
    out = capsys.readouterr().out
    assert re.search(r"│ cicera\s+│ 4\s+│", out)  # a fixed count: no range, no default
    assert "Cicera" in out
    for option in ("target_score=51", "packet_size=12", "left_bonus_mode=any", "game_mode=match"):
        assert option in out


def test_help_and_version(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["--help"]) == 0
    assert "selfplay" in capsys.readouterr().out
    assert main(["--version"]) == 0
    assert "tapete" in capsys.readouterr().out


# ---- play -------------------------------------------------------------------------------------


def test_play_whole_game_with_mistakes(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    lines = ["banana", "0", "99", "stand", "play 2x", "", "help", *["1"] * 400]
    code, out, err = run_play(monkeypatch, capsys, lines, "--seed", "3")
    assert code == 0, err
    assert err == ""
    assert "is not a Spoil Five action" in out
    assert "there is no move 0" in out
    assert "there is no move 99" in out
    assert "'stand' is not legal now" in out
    assert "Your moves:" in out and "Trumps" in out and "pool" in out
    assert re.search(r"Seat [123] plays (10|[2-9AJQK])[CDHS]", out)  # bot moves are shown
    assert "Game over" in out
    match = re.search(r"Returns: (\[.*\]); yours: ([+-]\d+)", out)
    assert match is not None
    returns = json.loads(match.group(1))
    assert len(returns) == 4 and math.isclose(sum(returns), 0.0, abs_tol=1e-9)
    # the same seed and the same answers replay the same game
    code, again, _ = run_play(monkeypatch, capsys, lines, "--seed", "3")
    assert code == 0 and again == out


def test_play_action_text_and_bare_card(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    def seat_0_plays_first(seed: int) -> bool:
        return next(t for a, _, t in simulate(seed, {}) if a == 0).startswith("play ")

    seed = str(next(s for s in range(100) if seat_0_plays_first(s)))
    first = next(text for actor, _, text in simulate(int(seed), {}) if actor == 0)
    code, out, _ = run_play(monkeypatch, capsys, [first.upper(), "quit"], "--seed", seed)
    assert code == 0
    assert f"You play {first.split()[1]}" in out
    assert "Bye" in out
    card = first.split()[1]
    code, out, _ = run_play(monkeypatch, capsys, [card.lower(), "quit"], "--seed", seed)
    assert code == 0
    assert f"You play {card}" in out


def test_play_quit_and_eof(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, err = run_play(monkeypatch, capsys, ["quit"], "--seed", "1")
    assert code == 0 and "Bye" in out and err == ""
    code, out, err = run_play(monkeypatch, capsys, [], "--seed", "1", "--seat", "2")
    assert code == 0 and "Bye" in out and err == ""


def test_play_bot_rob_hides_the_put_out_card(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    config = {"num_deals": 1, "leftover_pool": "split_equally"}
    seed, events = first_seed(config, lambda e: e[0] != 0 and e[2].startswith("rob "))
    hidden = next(text.split()[1] for actor, _, text in events if actor != 0 and "rob" in text)
    code, out, _ = run_play(monkeypatch, capsys, ["1"] * 20, "--seed", str(seed), *ONE_DEAL)
    assert code == 0
    assert "robs: puts a card face down" in out
    assert not re.search(rf"\b{hidden}\b", out)  # the card put out is never seen again


def test_play_own_rob(monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    config = {"num_deals": 1, "leftover_pool": "split_equally"}
    seed, events = first_seed(config, lambda e: e[0] == 0 and e[2].startswith("rob "))
    card = next(text.split()[1] for actor, _, text in events if actor == 0 and "rob" in text)
    code, out, _ = run_play(monkeypatch, capsys, ["1"] * 20, "--seed", str(seed), *ONE_DEAL)
    assert code == 0
    assert re.search(rf"You (rob: )?put {card} face down", out)
    assert "Game over" in out


def test_play_options_partnerships(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    args = ["--seed", "5", "--seat", "1", "partnerships=[[0,2],[1,3]]", "rob_policy=penalty"]
    code, out, _ = run_play(monkeypatch, capsys, ["1"] * 400, *args)
    assert code == 0
    assert "team" in out and "teams" in out
    assert "1 (you)" in out and "Game over" in out


def test_play_generic_fallback(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """A game without its own GameUI is drawn from observation_string and narrated from the
    information state: what the later games get until they have a table of their own."""
    monkeypatch.setattr(cli, "GAME_UIS", {})
    code, out, _ = run_play(monkeypatch, capsys, ["x", *["1"] * 400], "--seed", "3")
    assert code == 0
    start = tapete.load_game("spoil_five").new_initial_state(3)
    hand = " ".join(start.view(0)["hands"][0])
    assert f"hand {hand}" in out  # the observation string of seat 0
    seat_2 = next(text for actor, _, text in simulate(3, {}) if actor == 2)
    assert f"seat 2: {seat_2}" in out  # a line of the information state
    assert "Game over" in out


@pytest.mark.parametrize(
    ("args", "fragment"),
    [
        (["play", "no_such_game"], "unknown game"),
        (["play", "spoil_five", "--seat", "7"], "seat 7 is out of range"),
        (["play", "spoil_five", "--seat", "-1"], "seat -1 is out of range"),
        (["play", "spoil_five", "--players", "3", "--seat", "3"], "seat 3 is out of range"),
        (["play", "spoil_five", "no_such_key=1"], "no_such_key"),
        (["play", "spoil_five", "jinking"], "expected key=value"),
        (["play", "spoil_five", "players=1"], "players"),
        (["play", "spoil_five", "rob_policy=sometimes"], "sometimes"),
        (["play", "spoil_five", "--players", "3", "players=4"], "given twice"),
        (["play", "spoil_five", "--seed", "-4"], "seed"),
        (["play", "spoil_five", "--bogus"], "unrecognized arguments"),
        (["selfplay", "spoil_five"], "--games"),
        (["selfplay", "spoil_five", "--games", "0"], "positive integer"),
        (["selfplay", "nope", "--games", "3"], "unknown game"),
        (["selfplay", "spoil_five", "--games", "3", "partnerships=[[0,1]]"], "partnerships"),
        (["selfplay", "spoil_five", "--games", "3", "--seed", str(2**64 - 2)], "seed"),
        (["play", "cicera", "--players", "4"], "cicera is always played by 4 players"),
        (["play", "cicera", "players=4"], "players= does not apply"),
        (["selfplay", "cicera", "--games", "3", "--players", "3"], "--players does not apply"),
        (["play", "cicera", "game_mode=forever"], "forever"),
        (["games", "extra"], "unrecognized arguments"),
        ([], "required"),
    ],
)
def test_errors_are_one_red_line(
    capsys: pytest.CaptureFixture[str], args: list[str], fragment: str
) -> None:
    assert main(args) == 2
    captured = capsys.readouterr()
    assert_one_error_line(captured.err, fragment)


# ---- selfplay ---------------------------------------------------------------------------------


def expected_means(
    games: int, seed: int, config: dict[str, Any], native: bool = True, name: str = "spoil_five"
) -> list[float]:
    """Means of the documented random bots, replayed move by move from Python: natively, game
    i's bot draws ``below(len(legal))`` from SplitMix64(~(seed + i)); the Python loop draws
    ``random.Random(seed).choice`` across all games."""
    game = tapete.load_game(name, **config)
    rng = random.Random(seed)
    sums = [0.0] * game.num_players()
    for i in range(games):
        state = game.new_initial_state(seed + i)
        bot = SplitMix64(~(seed + i) % 2**64)
        while not state.is_terminal():
            legal = state.legal_actions()
            state.apply_action(legal[bot.below(len(legal))] if native else rng.choice(legal))
        for p, value in enumerate(state.returns()):
            sums[p] += value
    return [s / games for s in sums]


def test_selfplay_python_loop(capsys: pytest.CaptureFixture[str]) -> None:
    args = ["selfplay", "spoil_five", "--games", "40", "--seed", "3", "--python-loop"]
    assert main(args) == 0
    out = capsys.readouterr().out
    assert "Python loop" in out
    for mean in expected_means(40, 3, {}, native=False):
        assert f"{mean:+.3f}" in out


def test_native_play_is_the_same_whatever_the_threads() -> None:
    game = tapete.load_game("spoil_five", players=5)
    one = game.play_random(50, seed=11, threads=1)
    three = game.play_random(50, seed=11, threads=3)
    assert (one[0] == three[0]).all() and (one[1] == three[1]).all()
    assert one[0].shape == (50, 5) and abs(one[0].sum(axis=1)).max() < 1e-9


def test_selfplay_table(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["selfplay", "spoil_five", "--games", "60", "--seed", "7"]) == 0
    captured = capsys.readouterr()
    assert captured.err == ""
    out = captured.out
    for fragment in ("60 random games", "mean return", "95% interval", "games/s", "actions/s"):
        assert fragment in out
    assert "mean game length" in out and "wall time" in out
    for mean in expected_means(60, 7, {}):
        assert f"{mean:+.3f}" in out


def test_selfplay_options_and_players(capsys: pytest.CaptureFixture[str]) -> None:
    args = ["selfplay", "spoil_five", "--games", "30", "--seed", "2", "--players", "6"]
    args += ["partnerships=[[0,3],[1,4],[2,5]]", "jinking=false", "rob_policy=penalty"]
    assert main(args) == 0
    out = capsys.readouterr().out
    assert "6 players" in out
    config = {
        "players": 6,
        "partnerships": [[0, 3], [1, 4], [2, 5]],
        "jinking": False,
        "rob_policy": "penalty",
    }
    for mean in expected_means(30, 2, config):
        assert f"{mean:+.3f}" in out


def test_selfplay_single_game(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["selfplay", "spoil_five", "--games", "1", "--seed", "0", "--players", "2"]) == 0
    assert "1 random game" in capsys.readouterr().out


def test_python_dash_m_selfplay() -> None:
    result = subprocess.run(
        [sys.executable, "-m", "tapete", "selfplay", "spoil_five", "--games", "20", "--seed", "1"],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert result.returncode == 0, result.stderr
    assert result.stderr == ""
    assert "20 random games" in result.stdout and "games/s" in result.stdout
    assert "\x1b[" not in result.stdout  # no progress bar or colour into a pipe


# ---- Cicera -----------------------------------------------------------------------------------

SINGLE_HAND = ["game_mode=single_hand"]
FRENCH_PACK = [f"{rank}{suit}" for suit in "SHDC" for rank in "A 2 3 4 5 6 7 8 9 10 J Q K".split()]
CARD_TOKEN = r"(?<![0-9A-Za-z]){}(?![0-9A-Za-z])"


def run_cicera(
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    lines: list[str],
    *args: str,
) -> tuple[int, str, str]:
    monkeypatch.setattr("sys.stdin", io.StringIO("".join(f"{line}\n" for line in lines)))
    code = main(["play", "cicera", *args])
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def cicera_script(seed: int, config: dict[str, Any]) -> tuple[list[str], tapete.State, Any]:
    """What a person at seat 0 types in ``tapete play cicera``, and the game it makes: the
    first capture of two or more table cards on offer is built with ``capture``/``take`` (a
    mistyped move, an ambiguous bare card and an out-of-order take on the way); every other turn
    is move ``1``. Returns the lines, the final state and the capture (card, set) or None."""
    state = tapete.load_game("cicera", **config).new_initial_state(seed)
    bots = random.Random(seed)  # the bots of cmd_play
    lines = ["banana"]
    capture: tuple[str, list[str]] | None = None
    while not state.is_terminal():
        legal = state.legal_actions()
        if state.current_player() != 0:
            state.apply_action(bots.choice(legal))
            continue
        v = state.view(0)
        if capture is None and v["phase"] == "play":
            for card in v["hands"][0]:
                sets = [s for s in tapete.cicera.captures(v["table"], card) if len(s) >= 2]
                if sets:
                    capture = (card, sets[0])
                    break
            if capture is not None:
                card, cards = capture
                lines += [card.lower(), f"capture {card}"]  # ambiguous, then the whole move
                state.apply_action(state.string_to_action(f"capture {card}"))
                wrong = [c for c in v["table"] if c not in cards[:1]]
                lines.append(wrong[-1])  # a later card first: not legal
                assert state.string_to_action(f"take {wrong[-1]}") not in state.legal_actions()
                for i, taken in enumerate(cards):
                    action = state.string_to_action(f"take {taken}")
                    lines.append(f"take {taken.lower()}" if i == 0 else taken)
                    state.apply_action(action)
                continue
        lines.append("1")
        state.apply_action(legal[0])
    return lines, state, capture


def test_play_cicera_single_hand_with_a_capture(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    seed = next(s for s in range(100) if cicera_script(s, {"game_mode": "single_hand"})[2])
    lines, final, capture = cicera_script(seed, {"game_mode": "single_hand"})
    assert capture is not None
    card, cards = capture
    code, out, err = run_cicera(monkeypatch, capsys, lines, "--seed", str(seed), *SINGLE_HAND)
    assert code == 0, err
    assert err == ""
    assert "is not a Cicera action" in out  # banana
    assert f"could be 'play {card}' or 'capture {card}'" in out
    assert "is not legal now" in out  # the out-of-order take
    assert f"Taking for {card}: choose the next card" in out
    assert f"You play {card} to capture" in out
    assert f"You capture {' + '.join(cards)} with {card}" in out
    assert re.search(r"Seat [123] trails (10|[2-9AJQK])[SHDC]", out)
    assert re.search(r"Seat [123] captures .* with (10|[2-9AJQK])[SHDC]", out)
    assert "take " not in "".join(line for line in out.splitlines() if line.startswith("Seat"))
    assert "Cicera · single hand" in out and "Your hand" in out and "Table" in out
    assert "Hand 1 over: team 0+2 scores" in out and "Past hands" in out
    assert "Game over" in out
    match = re.search(r"Returns: (\[.*\]); yours: ([+-]\d+)", out)
    assert match is not None
    returns = json.loads(match.group(1))
    assert returns == pytest.approx(final.returns())
    assert returns[0] == returns[2] == -returns[1] == -returns[3]
    # the same seed and the same answers replay the same game
    code, again, _ = run_cicera(monkeypatch, capsys, lines, "--seed", str(seed), *SINGLE_HAND)
    assert code == 0 and again == out


def test_play_cicera_never_shows_hidden_cards(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """Quit half-way through a hand: the bots' cards and the undealt packets never appear."""
    for seed, config in ((4, []), (9, ["packet_size=4"])):
        options = [*SINGLE_HAND, *config]
        code, out, _ = run_cicera(
            monkeypatch, capsys, [*["1"] * 5, "quit"], "--seed", str(seed), *options
        )
        assert code == 0 and "Bye" in out
        game = tapete.load_game("cicera", **parse_options(options))
        state = game.new_initial_state(seed)
        bots = random.Random(seed)
        for _ in range(5):  # replay the game that was played
            while state.current_player() != 0:
                state.apply_action(bots.choice(state.legal_actions()))
            state.apply_action(state.legal_actions()[0])
        while state.current_player() != 0:
            state.apply_action(bots.choice(state.legal_actions()))
        full = state.view()
        assert full["hands"][0] == state.view(0)["hands"][0]
        hidden = [card for seat in (1, 2, 3) for card in full["hands"][seat]]
        seen = {*full["table"], *full["piles"][0], *full["piles"][1]}
        seen.update(card for hand in full["hands"] for card in hand)
        undealt = [card for card in FRENCH_PACK if card not in seen]
        assert hidden and (undealt or not config)
        hand_lines = [line for line in out.splitlines() if line.startswith("Your hand")]
        assert hand_lines
        for card in hidden + undealt:
            pattern = CARD_TOKEN.format(card)
            assert not any(re.search(pattern, line) for line in hand_lines), card
            assert not re.search(pattern, out), card  # nowhere at all: never played
        mine = state.view(0)["hands"][0]
        assert all(re.search(CARD_TOKEN.format(c), hand_lines[-1]) for c in mine)


def test_play_cicera_match_with_packets(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    args = ["--seed", "1", "--seat", "1", "target_score=11", "packet_size=6"]
    code, out, err = run_cicera(monkeypatch, capsys, ["1"] * 3000, *args)
    assert code == 0, err
    assert "match to 11" in out and "/ 11" in out
    assert "Stock  24 cards" in out and "A new packet: 6 cards each" in out
    assert "Hand 1 over" in out and "Hand 2: " in out and "Past hands" in out
    assert re.search(r"Match \d+-\d+ \(target 11\)", out)
    assert "wins the match" in out or "drawn" in out
    assert "1 (you)" in out and "Game over" in out


def test_cicera_narration_of_every_capture() -> None:
    """Driven directly: each capture is told once, with its cards and the bonus the engine gave;
    trails as 'trails'; the bonus points told add up to the engine's bonus category."""
    from rich.console import Console

    for config in ({}, {"sweep_on_last_play_counts": False}, {"left_bonus_mode": "rank_match"}):
        game = tapete.load_game("cicera", game_mode="single_hand", **config)
        for seed in range(8):
            buffer = io.StringIO()
            console = Console(file=buffer, width=200)
            state = game.new_initial_state(seed)
            rng = random.Random(seed)
            while not state.is_terminal():
                legal = state.legal_actions()
                captures = [a for a in legal if a >= 52]
                action = rng.choice(captures) if captures else rng.choice(legal)
                before = state.clone()
                actor = state.current_player()
                text = state.action_to_string(action)
                state.apply_action(action)
                cli.narrate_cicera(console, cli.Move(game, before, state, actor, action, text, 0))
            out = buffer.getvalue()
            view = state.view()
            told = [
                line
                for line in out.splitlines()
                if re.match(r"(Seat \d|You) ", line) and " to capture:" not in line
            ]
            assert len(told) == len(view["plays"])
            bonus = [0, 0]
            for line, play in zip(told, view["plays"], strict=True):
                who = "You" if play["seat"] == 0 else f"Seat {play['seat']}"
                if play["captured"] is None:
                    assert line == f"{who} trail{'s' * (who != 'You')} {play['card']}"
                    continue
                verb = "capture" if who == "You" else "captures"
                head = f"{who} {verb} {' + '.join(play['captured'])} with {play['card']}"
                assert line.startswith(head), (line, head)
                match = re.fullmatch(r" \(\+(\d) bonus: ([a-z ,]+)\)", line[len(head) :])
                if match:
                    points = int(match.group(1))
                    assert len(match.group(2).split(", ")) == points
                    bonus[play["seat"] % 2] += points
                else:
                    assert line == head
            assert bonus == view["past_hands"][-1]["points"]["bonus"]


def test_selfplay_cicera(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["selfplay", "cicera", "--games", "50", "--seed", "1"]) == 0
    captured = capsys.readouterr()
    assert captured.err == ""
    out = captured.out
    assert "cicera · 4 players · 50 random games" in out
    for fragment in ("mean return", "95% interval", "games/s", "mean game length"):
        assert fragment in out
    for mean in expected_means(50, 1, {}, name="cicera"):
        assert f"{mean:+.3f}" in out


# ---- Cau Robat --------------------------------------------------------------------------------

SPANISH_PACK = [f"{rank}{suit}" for rank in (1, 2, 3, 4, 5, 6, 7, 10, 11, 12) for suit in "OCEB"]
CR_CARD = r"(?:1[0-2]|[1-7])[OCEB]"
CR_PLAY_LINE = re.compile(rf"^(?:You play|Seat \d plays) ({CR_CARD})(?::|$)")


def run_cau_robat(
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    lines: list[str],
    *args: str,
) -> tuple[int, str, str]:
    monkeypatch.setattr("sys.stdin", io.StringIO("".join(f"{line}\n" for line in lines)))
    code = main(["play", "cau_robat", *args])
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def cau_robat_script(
    seed: int, config: dict[str, Any], seat: int = 0, turns: int | None = None
) -> tuple[list[str], tapete.State, list[str]]:
    """What a person at ``seat`` types in ``tapete play cau_robat``: at the first turn a
    mistyped move, a number that is no rank and a rank not held; then the highest rank held,
    typed in turn as a bare rank, as ``play <rank>`` and as ``PLAY <rank>``; ``turns`` turns
    (all the game when None; then the state is left at the next turn of ``seat``, where the
    person quits). Returns the lines, the state reached and every card played."""
    state = tapete.load_game("cau_robat", **config).new_initial_state(seed)
    bots = random.Random(seed)  # the bots of cmd_play
    lines: list[str] = []
    played: list[str] = []
    mine = 0
    while not state.is_terminal():
        legal = state.legal_actions()
        actor = state.current_player()
        if actor == seat and mine == turns:
            break
        if actor != seat:
            action = bots.choice(legal)
        else:
            hand = state.view(seat)["hands"][seat]
            if not lines:
                held = {card[:-1] for card in hand}
                ranks = ("1", "2", "3", "4", "5", "6", "7", "10", "11", "12")
                lines += ["banana", "8", next((r for r in ranks if r not in held), "9")]
            action = legal[-1]
            rank = state.action_to_string(action).split(" ")[1]
            lines.append([rank, f"play {rank}", f"PLAY {rank}"][mine % 3])
            mine += 1
        rank = state.action_to_string(action).split(" ")[1]
        played.append(next(c for c in state.view()["hands"][actor] if c[:-1] == rank))
        state.apply_action(action)
    return lines, state, played


def test_games_lists_cau_robat(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["games"]) == 0
    out = capsys.readouterr().out
    assert re.search(r"│ cau_robat\s+│ 3–5 \(default 4\)\s+│", out)
    assert "Cau Robat" in out
    for option in ("hands_to_win=1", "cau_enabled=true", "stack_order=walk", "net_bonus=false"):
        assert option in out


def test_play_cau_robat_hand(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """A whole hand (the default match) typed on stdin: errors, bare ranks and move texts; every
    play told once with its card; a cau and a robbed pile on the way; the returns at the end."""

    def eventful(seed: int) -> bool:
        state = tapete.load_game("cau_robat").new_initial_state(seed)
        _, final, _ = cau_robat_script(seed, {})
        cau = robbed = False
        for action in final.history():
            before = state.view()
            state.apply_action(action)
            after = state.view()
            cau = cau or after["chain"] is not None
            robbed = robbed or any(b and not a for b, a in zip(before["piles"], after["piles"]))
        return cau and robbed

    seed = next(s for s in range(60) if eventful(s))
    lines, final, played = cau_robat_script(seed, {})
    code, out, err = run_cau_robat(monkeypatch, capsys, lines, "--seed", str(seed))
    assert code == 0, err
    assert err == ""
    assert '"banana" is not a Cau Robat action' in out
    assert "'8' is not the rank of a move now" in out
    assert f"{lines[2]!r} is not the rank of a move now" in out
    assert "Cau Robat · hand 1 · dealer:" in out and "Your hand" in out and "Table" in out
    assert "Your moves (type the rank)" in out and "hands won" in out and "top" in out
    told = [m.group(1) for m in map(CR_PLAY_LINE.match, out.splitlines()) if m]
    assert told == played and len(told) == 36  # every play, with its card, in order
    assert re.search(rf"Seat \d plays {CR_CARD}: no capture", out)
    assert re.search(rf"(Seat \d plays|You play) {CR_CARD}: cau on (your|seat \d's) {CR_CARD}", out)
    assert re.search(r"and robs? (your|seat \d's) pile \(\d+ cards?, top", out)
    assert re.search(r"settles (your|seat \d's) cau: (you )?takes? ", out)
    assert re.search(r"Hand 1 over: piles \d+-\d+-\d+-\d+: ", out)
    assert "Past hands" in out and "Game over" in out
    match = re.search(r"Returns: (\[.*\]); yours: ([+-][\d.]+)", out)
    assert match is not None
    returns = json.loads(match.group(1))
    assert returns == pytest.approx(final.returns(), abs=1e-4)
    # the same seed and the same answers replay the same game
    code, again, _ = run_cau_robat(monkeypatch, capsys, lines, "--seed", str(seed))
    assert code == 0 and again == out


def test_play_cau_robat_match(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    config = {"players": 3, "hands_to_win": 2}
    lines, final, played = cau_robat_script(4, config, seat=1)
    args = ["--seed", "4", "--seat", "1", "--players", "3", "hands_to_win=2"]
    code, out, err = run_cau_robat(monkeypatch, capsys, lines, *args)
    assert code == 0, err
    assert "first to win 2 hands" in out and "/ 2" in out
    told = [m.group(1) for m in map(CR_PLAY_LINE.match, out.splitlines()) if m]
    assert told == played  # the last card of a hand too, once the next hand is dealt
    hands = len(final.view()["past_hands"])
    assert hands >= 2 and out.count(" over: piles ") == hands
    assert "Hand 2: " in out and "deal" in out and "Past hands" in out
    assert re.search(r"hands won \d-\d-\d, target 2", out)
    assert re.search(r"(wins|win|share) the match|The match is drawn", out)
    assert "1 (you)" in out and "Game over" in out


def test_play_cau_robat_never_shows_hidden_cards(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """Quit half-way through a hand: no card still in another hand ever appears."""
    for seed, seat, config in ((2, 0, {}), (7, 2, {"players": 5}), (11, 1, {"players": 3})):
        lines, state, _ = cau_robat_script(seed, config, seat=seat, turns=4)
        options = [f"players={config['players']}"] if config else []
        args = ["--seed", str(seed), "--seat", str(seat), *options]
        code, out, _ = run_cau_robat(monkeypatch, capsys, [*lines, "quit"], *args)
        assert code == 0 and "Bye" in out
        full = state.view()
        assert full["to_play"] == seat and full["phase"] == "play"
        hidden = [card for s, hand in enumerate(full["hands"]) if s != seat for card in hand]
        assert hidden
        for card in hidden:
            assert not re.search(CARD_TOKEN.format(card), out), card
        mine = state.view(seat)["hands"][seat]
        hand_lines = [line for line in out.splitlines() if line.startswith("Your hand")]
        assert all(re.search(CARD_TOKEN.format(c), hand_lines[-1]) for c in mine)
        assert len(re.findall(CR_CARD, hand_lines[-1])) == len(mine)


CR_CONFIGS: list[dict[str, Any]] = [
    {},
    {"players": 3, "hands_to_win": 2},
    {"players": 5, "chain_penalty_payers": "all_opponents"},
    {"sequence_direction": "up_only", "rank_conflict": "stop"},
    {"own_pile_links": True, "multi_pile_same_rank": "first_only"},
    {"direct_pile_match": True, "stack_order": "played_on_top"},
    {"net_bonus": True, "leftover_table_cards": "last_capturer", "players": 3},
    {"cau_enabled": False, "hand_tie": "shared", "hands_to_win": 2},
]


@pytest.mark.parametrize("config", CR_CONFIGS)
def test_cau_robat_narration_follows_the_engine(config: dict[str, Any]) -> None:
    """Driven directly, bots eager to cau: each play is told in one line (then the chain it
    settles, the leftovers and the hand's end), and the position the narration steps through
    is the engine's after every move, under every option."""
    from rich.console import Console

    game = tapete.load_game("cau_robat", **config)
    n = game.num_players()
    seen: set[str] = set()
    for seed in range(4):
        seat = seed % n
        buffer = io.StringIO()
        console = Console(file=buffer, width=400)
        state = game.new_initial_state(seed)
        rng = random.Random(seed)
        cards = []
        while not state.is_terminal():
            v = state.view()
            legal = {state.action_to_string(a): a for a in state.legal_actions()}
            if v["chain"] is not None:
                eager = f"play {v['chain']['rank']}"
            elif v["last_play"] is not None and not v["last_play"]["captured"]:
                eager = f"play {v['last_play']['card'][:-1]}"
            else:
                eager = ""
            action = legal.get(eager, rng.choice(list(legal.values())))
            text = state.action_to_string(action)
            cards.append(next(c for c in v["hands"][v["to_play"]] if c[:-1] == text[5:]))
            before = state.clone()
            actor = state.current_player()
            state.apply_action(action)
            move = cli.Move(game, before, state, actor, action, text, seat)
            before_view, after_view = before.view(seat), state.view(seat)
            _, position = cli._cr_resolve(before_view, actor, cards[-1], game.config())
            over = len(after_view["past_hands"]) > len(before_view["past_hands"])
            assert cli._cr_consistent(before_view, after_view, position, over)
            cli.narrate_cau_robat(console, move)
        out = buffer.getvalue()
        told = [m.group(1) for m in map(CR_PLAY_LINE.match, out.splitlines()) if m]
        assert told == cards
        hidden_free = [line for line in out.splitlines() if "?" in line]
        assert not hidden_free
        hands = len(state.view()["past_hands"])
        assert out.count(" over: piles ") == hands
        for fragment in ("cau on", "recau on", "contracau on", "settles", "robs", "net bonus"):
            if fragment in out:
                seen.add(fragment)
    if config.get("cau_enabled", True):
        assert {"cau on", "recau on", "settles"} <= seen
    else:
        assert not seen & {"cau on", "recau on", "settles"}
    if config.get("net_bonus"):
        assert "net bonus" in seen


def test_cau_robat_bare_rank_is_not_a_move_number() -> None:
    state = tapete.load_game("cau_robat").new_initial_state(3)
    legal = state.legal_actions()
    keys = {state.action_to_string(a).split(" ")[1]: a for a in legal}
    for rank, action in keys.items():
        assert cli.parse_move(state, legal, rank, keys, "rank") == action
        assert cli.parse_move(state, legal, f" play  {rank} ", keys, "rank") == action
    missing = next(r for r in ("1", "2", "3", "4", "5", "6", "7") if r not in keys)
    with pytest.raises(cli.CliError, match="is not the rank of a move now"):
        cli.parse_move(state, legal, missing, keys, "rank")
    with pytest.raises(cli.CliError, match="not legal now"):
        cli.parse_move(state, legal, f"play {missing}", keys, "rank")


def test_selfplay_cau_robat(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["selfplay", "cau_robat", "--games", "50", "--seed", "1", "--players", "5"]) == 0
    captured = capsys.readouterr()
    assert captured.err == ""
    out = captured.out
    assert "cau_robat · 5 players · 50 random games" in out
    for fragment in ("mean return", "95% interval", "games/s", "mean game length"):
        assert fragment in out
    assert "35.0 actions" in out  # one hand of seven cards each
    for mean in expected_means(50, 1, {"players": 5}, name="cau_robat"):
        assert f"{mean:+.3f}" in out


def test_play_cau_robat_through_a_pipe() -> None:
    lines, _, _ = cau_robat_script(6, {}, turns=3)
    result = subprocess.run(
        [sys.executable, "-m", "tapete", "play", "cau_robat", "--seed", "6"],
        input="".join(f"{line}\n" for line in [*lines, "quit"]),
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert result.returncode == 0, result.stderr
    assert result.stderr == ""
    assert "\x1b[" not in result.stdout  # no colour into a pipe
    assert "Your move> banana" in result.stdout  # piped answers are echoed
    assert "Bye" in result.stdout
