"""The command line: ``tapete games``, ``tapete play`` (stdin scripted), ``tapete selfplay``."""

from __future__ import annotations

import dataclasses
import io
import json
import math
import random
import re
import subprocess
import sys
from collections.abc import Iterator
from typing import Any, cast

import pytest

import tapete
from tapete import cicera, cli
from tapete.cli import cau_robat as cli_cau_robat
from tapete.cli import cicera as cli_cicera
from tapete.cli import cuajo as cli_cuajo
from tapete.cli import main, parse_options
from tapete.reference.rng import SplitMix64

ONE_DEAL = ["num_deals=1", "leftover_pool=split_equally"]


def run_play(
    game: str,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    lines: list[str],
    *args: str,
) -> tuple[int, str, str]:
    """``tapete play <game> *args`` with ``lines`` typed on stdin: exit code, stdout, stderr."""
    monkeypatch.setattr("sys.stdin", io.StringIO("".join(f"{line}\n" for line in lines)))
    if game == "cuajo" and "--bots" not in args:
        # the scripted Cuajo games (cuajo_script) are played against random bots
        args = (*args, "--bots", "random")
    code = main(["play", game, *args])
    captured = capsys.readouterr()
    return code, captured.out, captured.err


class PlayBots:
    """The opponents ``tapete play`` makes (default ``--bots heuristic``): the other seats in
    order, the i-th seeded ``seed + i``."""

    def __init__(
        self, state: tapete.State, seed: int, seat: int = 0, spec: str = "heuristic"
    ) -> None:
        game = state.get_game()
        others = [q for q in range(game.num_players()) if q != seat]
        self.bots = {
            q: tapete.bots.make(spec, game, seed=(seed + i) % 2**64) for i, q in enumerate(others)
        }

    def choose(self, state: tapete.State) -> int:
        return self.bots[state.current_player()].choose(state)


def simulate(seed: int, config: dict[str, Any], seat: int = 0) -> list[tuple[int, str, str]]:
    """The game ``tapete play`` runs when the person always types ``1``: (actor, phase, action)."""
    state = tapete.load_game("spoil_five", **config).new_initial_state(seed)
    bots = PlayBots(state, seed, seat)
    events = []
    while not state.is_terminal():
        actor = state.current_player()
        legal = state.legal_actions()
        action = legal[0] if actor == seat else bots.choose(state)
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
    code, out, err = run_play("spoil_five", monkeypatch, capsys, lines, "--seed", "3")
    assert code == 0, err
    assert err == ""
    assert "is not a Spoil Five action" in out
    assert "there is no move 0" in out
    assert "there is no move 99" in out
    assert "'stand' is not legal now" in out
    assert "Your moves:" in out and "Trumps" in out and "pool" in out
    assert re.search(r"Seat [123] plays (10|[2-9AJQK])[CDHS]", out)  # bot moves are shown
    assert "Game over" in out
    # The seed decides every hand: named once the game is over, not before.
    before, after = out.split("Game over", 1)
    assert "seed 3" not in before.lower() and "Seed 3: --seed 3" in after
    match = re.search(r"Returns: (\[.*\]); yours: ([+-]\d+)", out)
    assert match is not None
    returns = json.loads(match.group(1))
    assert len(returns) == 4 and math.isclose(sum(returns), 0.0, abs_tol=1e-9)
    # the same seed and the same answers replay the same game
    code, again, _ = run_play("spoil_five", monkeypatch, capsys, lines, "--seed", "3")
    assert code == 0 and again == out


def test_piped_input_is_echoed_without_control_characters(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    line = "abc\x1b[2J\x1b]0;title\x07"
    code, out, _ = run_play("spoil_five", monkeypatch, capsys, [line, "quit"], "--seed", "1")
    assert code == 0
    assert "\x1b" not in out and "\x07" not in out
    assert "abc\\x1b[2J" in out  # shown escaped


def test_play_action_text_and_bare_card(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    def seat_0_plays_first(seed: int) -> bool:
        return next(t for a, _, t in simulate(seed, {}) if a == 0).startswith("play ")

    seed = str(next(s for s in range(100) if seat_0_plays_first(s)))
    first = next(text for actor, _, text in simulate(int(seed), {}) if actor == 0)
    code, out, _ = run_play(
        "spoil_five", monkeypatch, capsys, [first.upper(), "quit"], "--seed", seed
    )
    assert code == 0
    assert f"You play {first.split()[1]}" in out
    assert "Bye" in out
    card = first.split()[1]
    code, out, _ = run_play(
        "spoil_five", monkeypatch, capsys, [card.lower(), "quit"], "--seed", seed
    )
    assert code == 0
    assert f"You play {card}" in out


def test_play_quit_and_eof(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, err = run_play("spoil_five", monkeypatch, capsys, ["quit"], "--seed", "1")
    assert code == 0 and "Bye" in out and err == ""
    code, out, err = run_play("spoil_five", monkeypatch, capsys, [], "--seed", "1", "--seat", "2")
    assert code == 0 and "Bye" in out and err == ""


def test_play_bot_rob_hides_the_put_out_card(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    config = {"num_deals": 1, "leftover_pool": "split_equally"}
    seed, events = first_seed(config, lambda e: e[0] != 0 and e[2].startswith("rob "))
    hidden = next(text.split()[1] for actor, _, text in events if actor != 0 and "rob" in text)
    code, out, _ = run_play(
        "spoil_five", monkeypatch, capsys, ["1"] * 20, "--seed", str(seed), *ONE_DEAL
    )
    assert code == 0
    assert "robs: puts a card face down" in out
    assert not re.search(rf"\b{hidden}\b", out)  # the card put out is never seen again


def test_play_own_rob(monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    config = {"num_deals": 1, "leftover_pool": "split_equally"}
    seed, events = first_seed(config, lambda e: e[0] == 0 and e[2].startswith("rob "))
    card = next(text.split()[1] for actor, _, text in events if actor == 0 and "rob" in text)
    code, out, _ = run_play(
        "spoil_five", monkeypatch, capsys, ["1"] * 20, "--seed", str(seed), *ONE_DEAL
    )
    assert code == 0
    assert re.search(rf"You (rob: )?put {card} face down", out)
    assert "Game over" in out


def test_play_options_partnerships(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    args = ["--seed", "5", "--seat", "1", "partnerships=[[0,2],[1,3]]", "rob_policy=penalty"]
    code, out, _ = run_play("spoil_five", monkeypatch, capsys, ["1"] * 400, *args)
    assert code == 0
    assert "team" in out and "teams" in out
    assert "1 (you)" in out and "Game over" in out


def test_play_generic_fallback(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """A game without its own GameUI is drawn from observation_string and narrated from the
    information state: what the later games get until they have a table of their own."""
    monkeypatch.setattr(cli, "GAME_UIS", {})
    code, out, _ = run_play("spoil_five", monkeypatch, capsys, ["x", *["1"] * 400], "--seed", "3")
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
        (["play", "cicera", "explicit_chance=true"], "seeded games"),
        (["selfplay", "spoil_five", "--games", "3", "--out", ""], "empty"),
        (["play", "spoil_five", "--", "--seed=5"], "a flag goes before"),
        (["watch", "spoil_five", "explicit_chance=true"], "seeded games"),
        # Numbers too large for anything are refused before they are built.
        (["selfplay", "cau_robat", "--games", "1e5000"], "too large"),
        (["selfplay", "cau_robat", "--games", "1e10000000"], "too large"),
        (["selfplay", "cau_robat", "--games", "2", "players=1e10000000"], "not finite"),
        (["selfplay", "cau_robat", "--games", "2", "--seed", "9" * 5000], "seed must lie"),
        (["selfplay", "cau_robat", "--games", "2", "x=" + "[" * 3000 + "]" * 3000], "too deeply"),
        (["selfplay", "cau_robat", "--games", "2", "x=" + "[" * 600 + "]" * 600], "too deeply"),
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
    games: int, seed: int, config: dict[str, Any], name: str = "spoil_five"
) -> list[float]:
    """Means of the documented random bots, replayed move by move from Python: game i's bot
    draws ``below(len(legal))`` from SplitMix64(~(seed + i)), natively and in the Python loop
    alike (docs/cli.md)."""
    game = tapete.load_game(name, **config)
    sums = [0.0] * game.num_players()
    for i in range(games):
        state = game.new_initial_state(seed + i)
        bot = SplitMix64(~(seed + i) % 2**64)
        while not state.is_terminal():
            legal = state.legal_actions()
            state.apply_action(legal[bot.below(len(legal))])
        for p, value in enumerate(state.returns()):
            sums[p] += value
    return [s / games for s in sums]


def test_selfplay_python_loop(capsys: pytest.CaptureFixture[str]) -> None:
    args = ["selfplay", "spoil_five", "--games", "40", "--seed", "3", "--python-loop"]
    assert main(args) == 0
    out = capsys.readouterr().out
    assert "Python loop" in out
    for mean in expected_means(40, 3, {}):
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


def cicera_script(seed: int, config: dict[str, Any]) -> tuple[list[str], tapete.State, Any]:
    """What a person at seat 0 types in ``tapete play cicera``, and the game it makes: the
    first capture of two or more table cards on offer is built with ``capture``/``take`` (a
    mistyped move, an ambiguous bare card and an out-of-order take on the way); every other turn
    is move ``1``. Returns the lines, the final state and the capture (card, set) or None."""
    state = tapete.load_game("cicera", **config).new_initial_state(seed)
    bots = PlayBots(state, seed)
    lines = ["banana"]
    capture: tuple[str, list[str]] | None = None
    while not state.is_terminal():
        legal = state.legal_actions()
        if state.current_player() != 0:
            state.apply_action(bots.choose(state))
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
    code, out, err = run_play(
        "cicera", monkeypatch, capsys, lines, "--seed", str(seed), *SINGLE_HAND
    )
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
    code, again, _ = run_play(
        "cicera", monkeypatch, capsys, lines, "--seed", str(seed), *SINGLE_HAND
    )
    assert code == 0 and again == out


def test_play_cicera_never_shows_hidden_cards(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """Quit half-way through a hand: the bots' cards and the undealt packets never appear."""
    for seed, config in ((4, []), (9, ["packet_size=4"])):
        options = [*SINGLE_HAND, *config]
        code, out, _ = run_play(
            "cicera", monkeypatch, capsys, [*["1"] * 5, "quit"], "--seed", str(seed), *options
        )
        assert code == 0 and "Bye" in out
        game = tapete.load_game("cicera", **parse_options(options))
        state = game.new_initial_state(seed)
        bots = PlayBots(state, seed)
        for _ in range(5):  # replay the game that was played
            while state.current_player() != 0:
                state.apply_action(bots.choose(state))
            state.apply_action(state.legal_actions()[0])
        while state.current_player() != 0:
            state.apply_action(bots.choose(state))
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
    args = ["--seed", "1", "--seat", "1", "target_score=11", "packet_size=6", "--bots", "random"]
    code, out, err = run_play("cicera", monkeypatch, capsys, ["1"] * 3000, *args)
    assert code == 0, err
    assert "match to 11" in out and "/ 11" in out
    assert "Stock  24 cards" in out and "A new packet: 6 cards each" in out
    assert "Hand 1 over" in out and "Hand 2: " in out and "Past hands" in out
    assert re.search(r"Match \d+-\d+ \(target 11\)", out)
    assert "wins the match" in out or "drawn" in out
    assert "1 (you)" in out and "Game over" in out


def _cicera_moves(game: tapete.Game, seed: int) -> Iterator[cli.Move]:
    """A random game of ``game`` that captures whenever it can, move by move, each as its
    actor witnessed it (``after`` is the live state: read it before the next move)."""
    state = game.new_initial_state(seed)
    rng = random.Random(seed)
    while not state.is_terminal():
        legal = state.legal_actions()
        captures = [a for a in legal if a >= 52]
        action = rng.choice(captures) if captures else rng.choice(legal)
        before, actor = state.clone(), state.current_player()
        text = state.action_to_string(action)
        state.apply_action(action)
        yield cli.Move(game, before, state, actor, action, text, actor)


def test_cicera_narration_of_every_capture() -> None:
    """Driven directly: each capture is told once, with its cards and the bonus the engine gave;
    trails as 'trails'; the bonus points told add up to the engine's bonus category."""
    from rich.console import Console

    for config in (
        {},
        {"sweep_on_last_play_counts": False},
        {"left_bonus_mode": "rank_match"},
        {"auto_complete_unique": True},
        {"auto_complete_unique": True, "force_single_match": True},
    ):
        game = tapete.load_game("cicera", game_mode="single_hand", **config)
        for seed in range(8):
            buffer = io.StringIO()
            console = Console(file=buffer, width=200)
            for move in _cicera_moves(game, seed):
                cli_cicera.narrate_cicera(console, dataclasses.replace(move, seat=0))
                state = move.after
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


def test_cicera_capture_completed_at_the_end_of_a_hand() -> None:
    """When a hand's last capture resolves, the next hand is dealt and its set is gone from the
    view: the narration finds the one set extending what was taken (auto_complete_unique may
    have taken the rest at once), under force_single_match too."""
    table = ["7H", "5C", "2D", "KS"]
    plain = {"force_single_match": False}
    sets = cicera.captures(table, "7S")
    pair = next(s for s in sets if len(s) == 2)  # 5C + 2D, ascending by id
    assert sorted(map(tuple, sets)) == sorted([("7H",), tuple(pair)])
    assert cli_cicera._ci_completion(plain, table, "7S", pair[:1]) == pair
    assert cli_cicera._ci_completion(plain, table, "7S", pair) == pair
    assert cli_cicera._ci_completion(plain, table, "7S", ["7H"]) == ["7H"]
    assert cli_cicera._ci_completion(plain, table, "KH", []) == ["KS"]
    assert cli_cicera._ci_completion({"force_single_match": True}, table, "7S", []) == ["7H"]


def test_cicera_narration_of_a_hands_last_capture_in_a_match() -> None:
    """Through the engine: the capture that ends a hand of a match (the next hand dealt at once)
    is told with the cards it took, those its move took at once with auto_complete_unique
    included, as the engine's own transcript line of that move tells them."""
    from rich.console import Console

    game = tapete.load_game("cicera", max_hands=3, auto_complete_unique=True)
    told = 0
    for seed in range(6):
        for move in _cicera_moves(game, seed):
            before, state, actor, text = move.before, move.after, move.actor, move.text
            verb, card = text.split()
            if verb == "play" or state.view()["hand"] == before.view()["hand"]:
                continue
            buffer = io.StringIO()
            cli_cicera.narrate_cicera(Console(file=buffer, width=300), move)
            line = next(x for x in buffer.getvalue().splitlines() if x.startswith("You capture "))
            seen = state.information_state_string(actor).splitlines()
            move = [x for x in seen if x.startswith(f"seat {actor}: {text}")][-1]
            more = [part.split()[1] for part in move.split(", ")[1:]]
            first = before.view()
            played = card if verb == "capture" else first["pending"]
            taken = [*first["taken"], *([card] if verb == "take" else []), *more]
            order = {c: i for i, c in enumerate(first["table"])}  # the view lists by id
            taken.sort(key=order.__getitem__)
            assert line.startswith(f"You capture {' + '.join(taken)} with {played}"), line
            told += 1
    assert told >= 3


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


def cau_robat_script(
    seed: int, config: dict[str, Any], seat: int = 0, turns: int | None = None
) -> tuple[list[str], tapete.State, list[str]]:
    """What a person at ``seat`` types in ``tapete play cau_robat``: at the first turn a
    mistyped move, a number that is no rank and a rank not held; then the highest rank held,
    typed in turn as a bare rank, as ``play <rank>`` and as ``PLAY <rank>``; ``turns`` turns
    (all the game when None; then the state is left at the next turn of ``seat``, where the
    person quits). Returns the lines, the state reached and every card played."""
    state = tapete.load_game("cau_robat", **config).new_initial_state(seed)
    bots = PlayBots(state, seed, seat)
    lines: list[str] = []
    played: list[str] = []
    mine = 0
    while not state.is_terminal():
        legal = state.legal_actions()
        actor = state.current_player()
        if actor == seat and mine == turns:
            break
        if actor != seat:
            action = bots.choose(state)
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
    code, out, err = run_play("cau_robat", monkeypatch, capsys, lines, "--seed", str(seed))
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
    code, again, _ = run_play("cau_robat", monkeypatch, capsys, lines, "--seed", str(seed))
    assert code == 0 and again == out


def test_play_cau_robat_match(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    config = {"players": 3, "hands_to_win": 2}
    lines, final, played = cau_robat_script(4, config, seat=1)
    args = ["--seed", "4", "--seat", "1", "--players", "3", "hands_to_win=2"]
    code, out, err = run_play("cau_robat", monkeypatch, capsys, lines, *args)
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
        code, out, _ = run_play("cau_robat", monkeypatch, capsys, [*lines, "quit"], *args)
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
            _, position = cli_cau_robat._cr_resolve(before_view, actor, cards[-1], game.config())
            over = len(after_view["past_hands"]) > len(before_view["past_hands"])
            assert cli_cau_robat._cr_consistent(before_view, after_view, position, over)
            cli_cau_robat.narrate_cau_robat(console, move)
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


# ---- Cuajo ------------------------------------------------------------------------------------

CJ_CARD = r"[A345JHK][OCEB]"
CJ_DISCARD_LINE = re.compile(rf"^(?:You discard|Seat \d discards) ({CJ_CARD})(?: to open)?$")


def cuajo_script(
    seed: int,
    config: dict[str, Any],
    seat: int = 0,
    turns: int | None = None,
    first: list[str] | None = None,
) -> tuple[list[str], tapete.State, list[str]]:
    """What a person at ``seat`` types in ``tapete play cuajo``, playing towards complete hands
    (the test bot, with its own generator) against the CLI's random bots: each move's key, a
    discard alternately as ``discard <card>`` and as the bare card in lower case; ``first``
    (mistakes) before the first decision that has discards. ``turns`` decisions (all the game
    when None; then the state is left at the person's next decision). Returns the lines, the
    state and every discard."""
    from cuajo_bot import choose

    state = tapete.load_game("cuajo", **config).new_initial_state(seed)
    bots = PlayBots(state, seed, seat, "random")  # run_play gives Cuajo random bots
    person = random.Random(seed + 1)
    lines: list[str] = []
    discards: list[str] = []
    mine = own = 0
    while not state.is_terminal():
        legal = state.legal_actions()
        if state.current_player() != seat:
            action = bots.choose(state)
        elif mine == turns:
            break
        else:
            texts = [state.action_to_string(a) for a in legal]
            if first and any(text.startswith("discard ") for text in texts):
                lines += first
                first = None
            action = choose(state, person)
            text = state.action_to_string(action)
            key = cli_cuajo._cj_move_key(state, action)
            if text.startswith("discard "):
                key = key.lower() if own % 2 else text
                own += 1
            lines.append(key)
            mine += 1
        text = state.action_to_string(action)
        if text.startswith("discard "):
            discards.append(text.split(" ")[1])
        state.apply_action(action)
    return lines, state, discards


def test_games_lists_cuajo(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["games"]) == 0
    out = capsys.readouterr().out
    assert re.search(r"│ cuajo\s+│ 4\s+│", out)
    assert "Cuajo" in out
    for option in ("purro_call=forced", "secret_payment=50", "hands_per_match=1", "extra_draw=15"):
        assert option in out


def test_play_cuajo_help_lists_the_keys(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["play", "cuajo", "--help"]) == 0
    out = capsys.readouterr().out
    assert "cuajo: a card to discard it" in out and "d draw" in out and "ss<card>" in out


def test_play_spoil_five_says_what_a_rob_does(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """Seed 3 turns up the ace of trumps to the person, the dealer: the moves say what robbing
    and (under the penalty rule) declining mean."""
    args = ("--seed", "3", "rob_policy=penalty", "--no-pause")
    code, out, err = run_play("spoil_five", monkeypatch, capsys, ["quit"], *args)
    assert code == 0, err
    out = " ".join(out.split())  # the title wraps
    assert "rob X = lay X face down and take the turned-up AD when your turn in trick 1" in out
    assert "decline = keep your hand, but then you (and your team) cannot win the pool" in out


def test_a_long_piped_line_is_echoed_cut(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, err = run_play("cau_robat", monkeypatch, capsys, ["x" * 5000, "quit"], "--seed", "1")
    assert code == 0, err
    flat = out.replace("\n", "")  # the echo wraps
    assert "x" * 201 not in flat and "x" * 200 + "… (5,000 characters)" in flat


def test_play_cuajo_whole_hand(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """A whole hand typed on stdin, won by the person: mistakes, keys, bare cards and move
    texts; every discard told once, in order; the hand's end and the returns in cents."""
    seed = 4  # the person claims a shown draw and wins
    first = ["banana", "7", "kb", "w", "help"]
    lines, final, discards = cuajo_script(seed, {}, first=first)
    result = final.view(0)["result"]
    assert result["winner"] == 0 and result["source"] == "claim"
    code, out, err = run_play("cuajo", monkeypatch, capsys, lines, "--seed", str(seed))
    assert code == 0, err
    assert err == ""
    assert '"banana" is not a Cuajo action' in out
    assert "'7' is not the key of a move now" in out
    assert "'w' is not the key of a move now" in out  # a win: not before the hand is complete
    assert "'discard KB' is not legal now" in out  # kings are never discarded
    assert "Type the key of a move" in out  # help
    assert "Cuajo · hand 1 · dealer:" in out and "Sowee" in out and "Stock" in out
    assert "Discards" in out and "team" in out and "known" in out and "cents" in out
    assert "Your hand (15)" in out and "Your hand (16)" in out
    assert "Your moves (type the key):" in out and "d draw from the stock" in out
    assert re.search(rf"t take {CJ_CARD}", out)
    assert re.search(r"\d cards? away from a complete hand", out)
    assert re.search(rf"Seat \d draws from the stock|Seat \d takes {CJ_CARD}", out)
    told = [m.group(1) for m in map(CJ_DISCARD_LINE.match, out.splitlines()) if m]
    assert told == discards
    assert re.search(rf"Your move> discard {CJ_CARD}\n", out)  # the move text
    assert re.search(r"Your move> [a345jhk][oceb]\n", out)  # the bare card, lower case
    claim = result["card"]
    assert f"c claim {claim} and win!" in out
    assert f"You claim {claim} and win!" in out
    assert f"Hand 1 over: you win with {claim}, claimed from seat " in out
    assert re.search(r"Final card: R1 (yes|no) \(the companions of", out)
    payments = ", ".join(
        f"{'you' if s == 0 else f'seat {s}'} {p:+d}"
        if p
        else f"{'you' if s == 0 else f'seat {s}'} 0"
        for s, p in enumerate(result["payments"])
    )
    assert f"Payments  {payments}" in out
    assert "Game over" in out and "return (cents)" in out
    match = re.search(r"Returns: (\[.*\]); yours: ([+-]\d+) cents", out)
    assert match is not None
    assert json.loads(match.group(1)) == final.returns()
    # the same seed and the same answers replay the same game
    code, again, _ = run_play("cuajo", monkeypatch, capsys, lines, "--seed", str(seed))
    assert code == 0 and again == out


def test_play_cuajo_wins_and_washes(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    for seed, source in ((7, "stock"), (12, "discard"), (1, None)):
        lines, final, _ = cuajo_script(seed, {})
        assert final.view(0)["result"]["source"] == source
        code, out, err = run_play("cuajo", monkeypatch, capsys, lines, "--seed", str(seed))
        assert code == 0 and err == ""
        if source == "stock":
            assert re.search(rf"You draw {CJ_CARD}\n", out)
            assert "w win!" in out and "You declare a win!" in out
            assert re.search(rf"Hand 1 over: you win with {CJ_CARD}, self-drawn", out)
            assert "Final card (stock): 110; kings " in out
        elif source == "discard":
            assert re.search(rf"You take {CJ_CARD} \(seat 3's discard\)", out)
            assert re.search(rf"Hand 1 over: you win with {CJ_CARD}, seat 3's discard", out)
        else:
            assert "Hand 1 over: a wash (the stock ran out); nobody wins" in out
            assert "passes: the stock is empty" in out or "You pass: the stock is empty" in out
        assert "Your hand  [" in out or source is None  # the winner's hand, arranged
        assert "Game over" in out


def test_play_cuajo_match_from_another_seat(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    config = {"hands_per_match": 2}
    lines, final, discards = cuajo_script(2, config, seat=2)
    code, out, err = run_play(
        "cuajo", monkeypatch, capsys, lines, "--seed", "2", "--seat", "2", "hands_per_match=2"
    )
    assert code == 0, err
    assert "Cuajo · hand 1 of 2" in out and "Cuajo · hand 2 of 2" in out
    assert "2 (you)" in out and "0 (partner)" in out and "match" in out
    assert out.count(" over: ") == 2 and "Hand 2: " in out and "Past hands (cents)" in out
    told = [m.group(1) for m in map(CJ_DISCARD_LINE.match, out.splitlines()) if m]
    assert told == discards
    match = re.search(r"Returns: (\[.*\]); yours: ([+-]\d+) cents", out)
    assert match is not None and json.loads(match.group(1)) == final.returns()


class OneSeat:
    """A State seen from one seat: its views, its own legal moves, the game; anything else (the
    full view, other seats' views, the history, the information of another seat) fails."""

    def __init__(self, state: tapete.State, seat: int) -> None:
        self._state = state
        self._seat = seat

    def view(self, seat: int | None = None) -> dict[str, Any]:
        assert seat == self._seat, f"view({seat}) from seat {self._seat}"
        return self._state.view(seat)

    def legal_actions(self) -> list[int]:
        assert self._state.current_player() == self._seat, "another seat's legal actions"
        return self._state.legal_actions()

    def action_to_string(self, action: int) -> str:
        return self._state.action_to_string(action)

    def string_to_action(self, text: str) -> int:
        return self._state.string_to_action(text)

    def get_game(self) -> tapete.Game:
        return self._state.get_game()

    def is_terminal(self) -> bool:
        return self._state.is_terminal()

    def current_player(self) -> int:
        return self._state.current_player()

    def __getattr__(self, name: str) -> Any:
        raise AssertionError(f"the CLI looked at state.{name}")


def one_seat(state: tapete.State, seat: int) -> tapete.State:
    return cast(tapete.State, OneSeat(state, seat))


def cuajo_eager(state: tapete.State, rng: random.Random) -> int:
    """The test bot, also declaring every secret it can and passing a third of its chances to
    claim or win a shown draw (so that secrets and hidden passes are told)."""
    from cuajo_bot import choose

    texts = {state.action_to_string(action): action for action in state.legal_actions()}
    for text, action in texts.items():
        if text.startswith(("secret ", "sowee-secret ")):
            return action
    phase = state.view(state.current_player())["phase"]
    if phase in ("claim", "drawer_option") and rng.random() < 0.3:
        return texts["pass"]
    return choose(state, rng)


CJ_CONFIGS: list[dict[str, Any]] = [
    {},
    {"hands_per_match": 2},
    {"purro_call": "optional", "purro_marker": "player_choice", "secret_kind_public": True},
    {"undeclared_quad_valid": False, "sowee_triple_undeclared_valid": True},
    {"dead_waits_count": False, "empty_stock": "immediate_wash", "dealer_after_wash": "next"},
    {"king_basis": "payer", "special_flat": False, "bonus_mode": "additive", "max_turns": 30},
]


@pytest.mark.parametrize("config", CJ_CONFIGS)
def test_cuajo_narration_shows_only_what_the_seat_sees(config: dict[str, Any]) -> None:
    """Driven directly with eager bots, every state seen through ``OneSeat``: the table and the
    moves drawn at each decision of the seat, each move told as the seat witnessed it (other
    seats' secrets without their cards, unshown draws without theirs, hidden passes not at
    all), every discard told in order, and each hand's end told once with the engine's
    result."""
    from rich.console import Console

    game = tapete.load_game("cuajo", **config)
    ui = cli.GAME_UIS["cuajo"]
    seen: set[str] = set()
    for seed in range(4 if config else 10):
        seat = seed % 4
        buffer = io.StringIO()
        console = Console(file=buffer, width=120)
        state = game.new_initial_state(seed)
        rng = random.Random(seed)
        discards: list[str] = []
        results: list[dict[str, Any]] = []
        while not state.is_terminal():
            actor = state.current_player()
            if actor == seat:
                ui.draw(console, game, one_seat(state, seat), seat)
                cli._print_moves(console, ui, one_seat(state, seat), seat, state.legal_actions())
            action = cuajo_eager(state, rng)
            text = state.action_to_string(action)
            verb = text.split(" ")[0]
            hidden = actor != seat and verb in ("secret", "sowee-secret")
            told_text = f"{verb} ZZ" if hidden else text  # the card must not be needed
            seen_phase = state.view(seat)["phase"]
            before = state.clone()
            state.apply_action(action)
            after = state.view(seat)
            start = buffer.tell()
            move = cli.Move(
                game, one_seat(before, seat), one_seat(state, seat), actor, action, told_text, seat
            )
            ui.narrate(console, move)
            told = buffer.getvalue()[start:]
            if verb == "discard":
                discards.append(text.split(" ")[1])
            if actor != seat and verb == "pass" and seen_phase != "draw":
                assert told == ""  # a drawer's or claimant's pass: invisible
                seen.add("hidden pass")
            elif actor != seat and verb == "no-purro":
                assert told == ""
            elif actor != seat and state.view()["phase"] == "marker":
                assert told == ""  # it brought another seat's marker decision: hidden
                seen.add("hidden marker decision")
            elif actor != seat and verb == "marker":  # told as the move that brought it
                assert told.startswith((f"Seat {actor} discards ", f"Seat {actor} calls purro"))
                assert "marker" in told and "choose" not in told
            else:
                assert told.startswith("You " if actor == seat else f"Seat {actor} ")
            if hidden:
                assert "ZZ" not in told and "declares " in told
                seen.add("secret")
            if actor != seat and verb == "draw" and after["hand"] == before.view(seat)["hand"]:
                draw = after["last_draw"]
                if draw["card"] is None:
                    assert told.splitlines()[0] == f"Seat {actor} draws from the stock"
                else:
                    assert told.splitlines()[0] == f"Seat {actor} draws {draw['card']} (shown)"
                    seen.add("shown draw")
            if len(after["past_hands"]) > len(before.view(seat)["past_hands"]):
                result = after["result"]
                results.append(result)
                assert f"Hand {len(after['past_hands'])} over: " in told
                winner = result["winner"]
                if winner is None:
                    assert "a wash" in told
                    seen.add("wash")
                else:
                    who = "you win" if winner == seat else f"seat {winner} wins"
                    assert f"over: {who} " in told
                    seen.add(result["source"])
                    if result["special"]:
                        assert "Special hand" in told
                    elif result["source"] in ("discard", "claim"):
                        r1 = "yes" if result["r1"] else "no"
                        assert f"R1 {r1} (the companions of {result['card']})" in told
                    if result["extra_draws"]:
                        extra = " ".join(result["extra_draws"])
                        assert (
                            f"{len(result['extra_draws'])} extra draws turned up: {extra}" in told
                        )
                for s, cents in enumerate(result["payments"]):
                    if any(result["payments"]):
                        name = "you" if s == seat else f"seat {s}"
                        assert f"{name} {cents:+d}" in told or (cents == 0 and f"{name} 0" in told)
            for s in range(4):
                if after["purro"][s] and not before.view(seat)["purro"][s]:
                    seen.add("purro")
                if before.view(seat)["purro"][s] and not after["purro"][s]:
                    if after["hand"] == before.view(seat)["hand"]:
                        assert "lose" in told and "purro" in told
                        seen.add("lost purro")
        ui.draw(console, game, one_seat(state, seat), seat)
        out = buffer.getvalue()
        told_discards = [m.group(1) for m in map(CJ_DISCARD_LINE.match, out.splitlines()) if m]
        assert told_discards == discards
        assert out.count(" over: ") == len(results) == len(state.view()["past_hands"])
    assert {"shown draw", "purro", "secret", "claim"} <= seen
    if config.get("purro_marker") == "player_choice":
        assert "hidden marker decision" in seen
    if not config:
        assert {"stock", "hidden pass", "lost purro", "wash"} <= seen


def test_play_cuajo_never_shows_hidden_cards(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """Through the command line, every state the UI draws or narrates is seen from the
    person's seat only (``OneSeat``); quitting half-way, the cards of another seat that its
    seat has never seen do not appear anywhere."""
    real = cli.GAME_UIS["cuajo"]

    def draw(console: Any, game: tapete.Game, state: tapete.State, seat: int) -> None:
        real.draw(console, game, one_seat(state, seat), seat)

    def narrate(console: Any, move: cli.Move) -> None:
        wrapped = cli.Move(
            move.game,
            one_seat(move.before, move.seat),
            one_seat(move.after, move.seat),
            move.actor,
            move.action,
            move.text,
            move.seat,
        )
        real.narrate(console, wrapped)

    def print_moves(console: Any, state: tapete.State, seat: int, legal: list[int]) -> None:
        assert real.print_moves is not None
        real.print_moves(console, one_seat(state, seat), seat, legal)

    import dataclasses

    spy = dataclasses.replace(real, draw=draw, narrate=narrate, print_moves=print_moves)
    monkeypatch.setitem(cli.GAME_UIS, "cuajo", spy)
    for seed, seat in ((5, 0), (6, 1), (7, 3)):
        lines, state, _ = cuajo_script(seed, {}, seat=seat, turns=12)
        code, out, _ = run_play(
            "cuajo", monkeypatch, capsys, [*lines, "quit"], "--seed", str(seed), "--seat", str(seat)
        )
        assert code == 0 and "Bye" in out
        assert state.current_player() == seat
        # every kind the seat may know of: its cards, the sowee, the discards, known and
        # shown cards, purro markers, and whatever its hand could use (waits, hints)
        game = state.get_game()
        replay = game.new_initial_state(seed)
        visible: set[str] = set()
        for action in state.history():
            v = replay.view(seat)
            visible.update(v["concealed"][seat], [v["sowee"]])
            visible.update(d["card"] for d in v["discards"])
            visible.update(card for known in v["known"] for card in known)
            visible.update(m for m in v["marker"] if m and m != "coin")  # public kings
            if v["last_draw"] and v["last_draw"]["card"]:
                visible.add(v["last_draw"]["card"])
            replay.apply_action(action)
        hints = ("waiting", "closest to complete", "taking ")
        hint_lines = "\n".join(line for line in out.splitlines() if any(h in line for h in hints))
        full = state.view()
        hidden = {c for s in range(4) if s != seat for c in full["concealed"][s]} - visible
        assert hidden
        for card in hidden:
            if re.search(CARD_TOKEN.format(card), hint_lines):
                continue  # named as what the seat's own hand waits for
            assert not re.search(CARD_TOKEN.format(card), out), card


def test_cuajo_move_keys() -> None:
    """A discard by its card (any case), a secret by s<card>, the letters, the texts; numbers
    are not keys."""
    state = tapete.load_game("cuajo").new_initial_state(3)
    legal = state.legal_actions()
    keys = {cli_cuajo._cj_move_key(state, a).lower(): a for a in legal}
    assert len(keys) == len(legal)
    for action in legal:
        text = state.action_to_string(action)
        card = text.split(" ")[1]
        assert cli.parse_move(state, legal, card.lower(), keys, "key") == action
        assert cli.parse_move(state, legal, f" DISCARD  {card} ", keys, "key") == action
    with pytest.raises(cli.CliError, match="is not the key of a move now"):
        cli.parse_move(state, legal, "1", keys, "key")
    state.apply_action(legal[0])
    while state.current_player() != 0 or state.view(0)["phase"] != "draw":
        state.apply_action(state.legal_actions()[0])
    legal = state.legal_actions()
    keys = {cli_cuajo._cj_move_key(state, a).lower(): a for a in legal}
    assert set(keys) == {"d", "t"}
    assert cli.parse_move(state, legal, "T", keys, "key") == state.string_to_action("take")
    assert cli.parse_move(state, legal, "draw", keys, "key") == state.string_to_action("draw")
    for text, key in (
        ("secret JC", "sJC"),
        ("sowee-secret KB", "ssKB"),
        ("marker KE", "KE"),
        ("win", "w"),
        ("claim", "c"),
        ("pass", "p"),
        ("purro", "y"),
        ("no-purro", "n"),
    ):
        assert cli_cuajo._cj_move_key(state, state.string_to_action(text)) == key


def test_cuajo_hand_split_agrees_with_the_evaluators() -> None:
    """The split the CLI shows (tapete.cuajo.best_arrangement, which also serves hands with
    secrets and the options) leaves nothing over exactly when the hand is complete, gives the
    same waits, and its groups are combinations that, with the cards left over, make up the
    hand."""
    rules = cli_cuajo._CjRules(quad_ok=True, triple=None, sowee="KO", dead_waits_count=True)
    pack = [card for card in cli_cuajo.CJ_KINDS for _ in range(4)]
    triples = [
        [f"{r}{s}" for s in suits] for r in "A345JHK" for suits in ("OCE", "OCB", "OEB", "CEB")
    ]
    triples += [[f"{r}{s}" for r in ranks] for s in "OCEB" for ranks in ("345", "JHK")]
    rng = random.Random(5)
    complete = 0
    for i in range(400):
        cards = rng.sample(pack, 16)
        if i % 2:  # complete hands are rare among random ones: build near-complete ones
            cards = [c for _ in range(5) for c in rng.choice(triples)] + [rng.choice(pack)]
            if any(cards.count(c) > 4 for c in cards):
                continue
        cards.sort(key=cli_cuajo._cj_id)
        groups, loose = cli_cuajo._cj_split(cards, rules)
        assert sorted([*loose, *(c for g in groups for c in g)]) == sorted(cards)
        for group in groups:
            ranks = {c[0] for c in group}
            suits = {c[1] for c in group}
            assert (
                (len(ranks) == 1 and len(suits) == len(group) in (3, 4))  # a set
                or (len(group) == 4 and len(set(group)) == 1)  # a quad
                or (len(suits) == 1 and ranks in ({"3", "4", "5"}, {"J", "H", "K"}))
                or (group[0][0] == "K" and len(group) == 1)
            ), group
        assert (not loose) == tapete.cuajo.is_complete(cards)
        complete += not loose
        fifteen = cards[1:]
        expected = [
            kind
            for kind in cli_cuajo.CJ_KINDS
            if fifteen.count(kind) < 4 and not cli_cuajo._cj_split([*fifteen, kind], rules)[1]
        ]
        assert tapete.cuajo.waits(fifteen) == expected
    assert complete > 20


def test_selfplay_cuajo(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["selfplay", "cuajo", "--games", "40", "--seed", "1"]) == 0
    captured = capsys.readouterr()
    assert captured.err == ""
    out = captured.out
    assert "cuajo · 4 players · 40 random games" in out
    assert "mean return (cents)" in out
    for fragment in ("95% interval", "games/s", "mean game length"):
        assert fragment in out
    for mean in expected_means(40, 1, {}, name="cuajo"):
        assert f"{mean:+.3f}" in out


def test_play_cuajo_through_a_pipe() -> None:
    lines, _, _ = cuajo_script(6, {}, turns=4)
    result = subprocess.run(
        [sys.executable, "-m", "tapete", "play", "cuajo", "--seed", "6"],
        input="".join(f"{line}\n" for line in [*lines, "quit"]),
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert result.returncode == 0, result.stderr
    assert result.stderr == ""
    assert "\x1b[" not in result.stdout
    assert f"Your move> {lines[0]}" in result.stdout
    assert "Bye" in result.stdout
