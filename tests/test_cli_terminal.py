"""The command line in a real terminal and the things a newcomer hit: ``play``, ``watch`` and
``rules`` through a pseudo-terminal at 60 and 80 columns (illegal moves explained, forced moves,
the pause between deals, a Cicera capture cancelled, stacked tables), the narrow layouts, ASCII
terminals, option spellings, self-play's determinism, ``--json`` and Ctrl-C, units, docstrings."""

from __future__ import annotations

import fcntl
import importlib
import inspect
import io
import json
import os
import pkgutil
import pty
import re
import select
import struct
import subprocess
import sys
import termios
from importlib import resources
from pathlib import Path
from typing import Any

import pytest
from rich.console import Console
from rich.table import Table
from rich.text import Text
from test_cli import PlayBots, expected_means

import tapete
from tapete import cli
from tapete.cli import main, parse_options, ui_for
from tapete.cli._ui import print_table
from tapete.cli.watch import cmd_watch

ROOT = Path(__file__).resolve().parent.parent
ANSI = re.compile(
    r"\x1b\[[0-9;?]*[ -/]*[@-~]|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)|\x1b[()][0-9A-Za-z]"
)
TIMEOUT = 60  # seconds without any output before a terminal test fails (never waited on)


class Terminal:
    """``python -m tapete *args`` on a pseudo-terminal of ``width`` columns: ``expect`` reads
    its output (colours stripped) until a pattern shows, ``send`` types a line."""

    def __init__(self, args: list[str], width: int, env: dict[str, str] | None = None) -> None:
        master, slave = pty.openpty()
        fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", 50, width, 0, 0))
        environ = {k: v for k, v in os.environ.items() if k not in ("COLUMNS", "LINES")}
        environ.update({"TERM": "xterm-256color", **(env or {})})
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "tapete", *args],
            stdin=slave,
            stdout=slave,
            stderr=slave,
            env=environ,
            start_new_session=True,
        )
        os.close(slave)
        self.fd = master
        self.raw = b""
        self.text = ""
        self.seen = 0

    def _read(self) -> bool:
        ready, _, _ = select.select([self.fd], [], [], TIMEOUT)
        if not ready:
            return False
        try:
            data = os.read(self.fd, 1 << 16)
        except OSError:  # the other end closed: the program ended
            return False
        if not data:
            return False
        self.raw += data  # escape codes and characters may be split between reads
        self.text = ANSI.sub("", self.raw.decode("utf-8", "replace")).replace("\r", "")
        return True

    def expect(self, pattern: str) -> re.Match[str]:
        """The first match of ``pattern`` in the output not read yet; a space in the pattern
        matches any run of white space (rich wraps long lines at the terminal's width)."""
        spaced = pattern.replace("\\ ", " ").rstrip(" ").replace(" ", r"\s+")  # re.escape'd too
        compiled = re.compile(spaced, re.M)
        while True:
            found = compiled.search(self.text, self.seen)
            if found:
                self.seen = found.end()
                return found
            if not self._read():
                self.proc.kill()
                raise AssertionError(f"no {pattern!r} in the output:\n{self.text[-3000:]}")

    def send(self, line: str) -> None:
        os.write(self.fd, (line + "\r").encode())

    def finish(self) -> int:
        """Reads the rest of the output; the exit code."""
        while self._read():
            pass
        os.close(self.fd)
        return self.proc.wait(timeout=TIMEOUT)

    def lines(self) -> list[str]:
        return self.text.splitlines()


def assert_fits(lines: list[str], width: int) -> None:
    too_long = [line for line in lines if len(line) > width]
    assert not too_long, too_long


# ---- play, watch and rules through a pseudo-terminal -----------------------------------------

ONE_THEN_ANOTHER = ["num_deals=2", "leftover_pool=split_equally"]


def spoil_five_session(seed: int) -> tuple[list[tuple[str, str | None]], bool] | None:
    """What ``tapete play spoil_five --auto-forced`` asks seat 0 in deal 1 when it always
    types ``1``: per question, an illegal card to try first (with the engine's reason) or None;
    and whether a forced move was played for it. None if deal 1 has no renege to try."""
    state = tapete.load_game("spoil_five", num_deals=2).new_initial_state(seed)
    bots = PlayBots(state, seed)
    asked: list[tuple[str, str | None]] = []
    forced = False
    tried = False
    while state.view(0)["deal"] == 0:
        legal = state.legal_actions()
        if state.current_player() != 0:
            state.apply_action(bots.choose(state))
            continue
        if len(legal) == 1:
            forced = True
        else:
            v = state.view(0)
            wrong = [
                a
                for a in (state.string_to_action(f"play {c}") for c in v["hands"][0])
                if a not in legal
            ]
            if wrong and not tried and v["phase"] == "play":
                tried = True
                why = state.explain_illegal(wrong[0])
                assert why is not None
                asked.append((state.action_to_string(wrong[0]), why.split("; seat 0 may")[0]))
            else:
                asked.append(("1", None))
        state.apply_action(legal[0])
    return (asked, forced) if tried and forced else None


@pytest.mark.parametrize("width", [60, 80])
def test_play_spoil_five_in_a_terminal(width: int) -> None:
    seed = next(s for s in range(40) if spoil_five_session(s) is not None)
    session = spoil_five_session(seed)
    assert session is not None
    asked, _ = session
    term = Terminal(
        ["play", "spoil_five", "--seed", str(seed), "--auto-forced", *ONE_THEN_ANOTHER], width
    )
    for typed, why in asked:
        term.expect(r"Your move> ")
        term.send(typed)
        if why is not None:
            card = typed.split()[1]
            reason = why.split(" is not legal now: ")[1]
            first = reason.split()[0]
            term.expect(rf"✗ '{re.escape(typed)}' is not legal now: {first}")
            assert re.search(r"you must (follow suit|play a trump)|trumps were led", reason)
            term.expect(r"Your move> ")
            term.send("1")
            assert card
    term.expect(r"Press Enter for the next deal \(q to quit\)> ")
    term.send("")
    term.expect(r"Deal 2 of 2|deal 2 of 2")
    term.expect(r"Your move> ")
    term.send("quit")
    term.expect(r"Bye: the game was left unfinished\.")
    assert term.finish() == 0
    out = term.text
    assert "is played (--auto-forced)" in out and "Your only move" in out
    assert "Traceback" not in out
    # the reason is whole, whatever the width: rich wraps it, never cuts it
    flat = " ".join(out.split())
    assert " ".join(next(w for _, w in asked if w).split(" is not legal now: ")[1].split()) in flat
    assert "▶" in out
    assert_fits(term.lines(), width)


def cicera_capture(seed: int) -> tuple[str, str, str] | None:
    """Seat 0's first turn of a single hand of Cicera: a card with a capture of two or more
    table cards, a card of that set whose take is illegal first, and the engine's reason."""
    state = tapete.load_game("cicera", game_mode="single_hand").new_initial_state(seed)
    bots = PlayBots(state, seed)
    while state.current_player() != 0:
        state.apply_action(bots.choose(state))
    v = state.view(0)
    for card in v["hands"][0]:
        for cards in tapete.cicera.captures(v["table"], card):
            if len(cards) < 2:
                continue
            after = state.clone()
            after.apply_action(after.string_to_action(f"capture {card}"))
            for taken in cards:
                take = after.string_to_action(f"take {taken}")
                if take not in after.legal_actions():
                    why = after.explain_illegal(take)
                    assert why is not None
                    return card, taken, why.split(" is not legal now: ")[1].split("; seat")[0]
    return None


@pytest.mark.parametrize("width", [60, 80])
def test_play_cicera_capture_cancelled_in_a_terminal(width: int) -> None:
    seed = next(s for s in range(40) if cicera_capture(s) is not None)
    found = cicera_capture(seed)
    assert found is not None
    card, taken, reason = found
    term = Terminal(["play", "cicera", "--seed", str(seed), "game_mode=single_hand"], width)
    term.expect(r"Your move> ")
    term.send(f"capture {card}")
    term.expect(rf"Taking for {card}: choose the next card")
    term.expect(r"Type 'cancel' to take this move back\.")
    term.expect(r"Your move> ")
    term.send(f"take {taken}")
    term.expect(rf"✗ 'take {taken}' is not legal now: {re.escape(reason.split()[0])}")
    term.expect(r"Your move> ")
    term.send("cancel")
    term.expect(rf"Cancelled 'capture {card}': the table is back as it was before it\.")
    term.expect(rf"Your hand .*{card}")  # the card is back in the hand, the turn starts again
    term.expect(r"capture = capture with it")
    term.expect(r"Your move> ")
    term.send("cancel")
    term.expect(r"✗ there is no move under way to cancel")
    term.send("quit")
    term.expect(r"Bye")
    assert term.finish() == 0
    assert " ".join(reason.split()) in " ".join(term.text.split())
    assert_fits(term.lines(), width)


def test_watch_cuajo_stacks_the_seats_at_60_columns() -> None:
    term = Terminal(["watch", "cuajo", "--seed", "1", "--seat", "1", "--delay", "0"], 60)
    term.expect(r"you watch over the shoulder of seat 1")
    term.expect(r"^(▶ )?seat 1 \(you\) · team 1\+3 · cards 1[56]")
    term.expect(r"^▶ seat \d")  # the turn marker leads its seat's line
    term.expect(r"Game over")
    assert term.finish() == 0
    assert "…" not in term.text.replace("… ", "")  # only "… N older" discards are elided
    assert re.search(r"^(You|Seat \d) (discard|draw|take)", term.text, re.M)
    assert_fits(term.lines(), 60)


def test_watch_spoil_five_pauses_between_deals_at_80_columns() -> None:
    args = ["watch", "spoil_five", "--seed", "3", "--delay", "0", *ONE_THEN_ANOTHER]
    term = Terminal(args, 80)
    term.expect(
        r"Spoil Five: 4 bots play \(0: heuristic, 1: heuristic, 2: heuristic, 3: heuristic\)"
    )
    term.expect(r"^Seat \d plays ")
    term.expect(r"Press Enter for the next deal \(q to quit\)> ")
    term.send("")
    term.expect(r"Deal 2:|deal 2 of 2")
    term.expect(r"Game over")
    term.expect(r"Returns: \[")
    assert term.finish() == 0
    assert_fits(term.lines(), 80)


@pytest.mark.parametrize("width", [60, 80])
def test_rules_in_a_terminal(width: int) -> None:
    paged = width == 60  # through the pager ($PAGER=cat here), else printed
    args = ["rules", "cau_robat"] + ([] if paged else ["--no-pager"])
    term = Terminal(args, width, env={"PAGER": "cat"} if paged else None)
    term.expect(r"Cau Robat in tapete")
    term.expect(r"The deal")
    term.expect(r"The heuristic bot")
    assert term.finish() == 0
    assert_fits(term.lines(), width)


# ---- narrow tables, in process --------------------------------------------------------------


def test_stacked_layout_keeps_every_cell() -> None:
    table = Table(title="Seats")
    headers = ["", "seat", "team", "cards", "secrets", "purro", "known", "cents", "match"]
    for header in headers:
        table.add_column(header, no_wrap=True)
    rows = [
        ["▶", "0 (you)", "0+2", "15", "1 sowee", "purro KO", "JC 4E", "+100", "-50"],
        ["", "1 (partner)", "1+3", "16", "", "", "", "0", "+50"],
    ]
    for row in rows:
        table.add_row(*(Text(cell) for cell in row))
    wide = Console(width=200, file=io.StringIO(), color_system=None)
    print_table(wide, table)
    assert "┃ cents" in wide.file.getvalue()  # a real table when it fits
    for width in (40, 60):
        narrow = Console(width=width, file=io.StringIO(), color_system=None)
        print_table(narrow, table)
        out = narrow.file.getvalue()
        flat = " ".join(out.split())
        assert out.startswith("Seats\n")
        assert "▶ seat 0 (you) · team 0+2 · cards 15 · secrets 1 sowee · purro purro KO" in flat
        assert "known JC 4E · cents +100 · match -50" in flat
        assert "seat 1 (partner) · team 1+3 · cards 16 · cents 0 · match +50" in flat
        assert "…" not in out
        assert_fits(out.splitlines(), width)


GAME_CONFIGS: list[tuple[str, dict[str, Any]]] = [
    ("spoil_five", {"players": 10}),
    ("spoil_five", {"partnerships": [[0, 2], [1, 3]], "num_deals": 2}),
    ("cicera", {}),
    ("cau_robat", {"players": 5, "hands_to_win": 2}),
    ("cuajo", {"hands_per_match": 2}),
]


@pytest.mark.parametrize(("name", "config"), GAME_CONFIGS)
def test_every_table_fits_at_60_and_80_columns(name: str, config: dict[str, Any]) -> None:
    """Along a game, every drawing of the table and of the move list fits the width, cuts
    nothing short (no "…" but Cuajo's "… N older" discards) and shows whose turn it is."""
    import random

    game = tapete.load_game(name, **config)
    ui = ui_for(name)
    state = game.new_initial_state(2)
    rng = random.Random(2)
    drawn = 0
    while not state.is_terminal() and drawn < 20:
        seat = state.current_player()
        if len(state.history()) % 5 == 0:
            for width in (60, 80):
                console = Console(width=width, file=io.StringIO(), color_system=None)
                ui.draw(console, game, state, seat)
                cli._print_moves(console, ui, state, seat, state.legal_actions())
                out = console.file.getvalue()
                assert_fits(out.splitlines(), width)
                assert "…" not in re.sub(r"…\s+\d+\s+older", "", out), out
                if re.search(r"\bseat\b", out) and "Your hand" in out:
                    assert out.count("▶") == 1, out
            drawn += 1
        state.apply_action(rng.choice(state.legal_actions()))
    assert drawn >= 5


# ---- play, watch and selfplay in process ----------------------------------------------------


def run(argv: list[str], capsys: pytest.CaptureFixture[str], stdin: str = "") -> tuple[int, str]:
    sys.stdin = io.StringIO(stdin)
    try:
        code = main(argv)
    finally:
        sys.stdin = sys.__stdin__
    captured = capsys.readouterr()
    return code, captured.out + captured.err


def test_watch_waits_the_delay_only_after_moves_it_shows() -> None:
    parser = cli.build_parser()
    for delay, expected in (("0.25", 0.25), ("0", None)):
        args = parser.parse_args(
            ["watch", "cicera", "--seed", "4", "--delay", delay, "--no-pause", "--bots", "random"]
        )
        args.options = ["game_mode=single_hand"]
        waits: list[float] = []
        console = Console(width=80, file=io.StringIO(), color_system=None)
        assert cmd_watch(args, console, sleep=waits.append) == 0
        out = console.file.getvalue()
        told = len(re.findall(r"^(You|Seat \d) (trail|capture)", out, re.M))
        assert "Game over" in out and told >= 40
        if expected is None:
            assert waits == []
        else:
            # one wait per move told: every play of the hand (48), and seat 0's own
            # "capture" (it is told to the seat that makes it); the takes show nothing
            assert told == 48 and told <= len(waits) <= told + 12
            assert set(waits) == {expected}


def test_watch_errors(capsys: pytest.CaptureFixture[str]) -> None:
    code, out = run(["watch", "spoil_five", "--delay", "-1"], capsys)
    assert code == 2 and "a delay is 0 … 3600 seconds" in out
    code, out = run(["watch", "cicera", "--bots", "random", "heuristic"], capsys)
    assert code == 2 and "one bot spec for all 4 seats or one each" in out
    code, out = run(["watch", "cicera", "--seat", "4"], capsys)
    assert code == 2 and "seat 4 is out of range" in out


def test_watch_says_the_seed_only_when_the_game_is_over(
    capsys: pytest.CaptureFixture[str],
) -> None:
    code, out = run(["watch", "cau_robat", "--seed", "2", "--delay", "0", "--no-pause"], capsys)
    assert code == 0
    before, after = out.split("Game over", 1)
    assert "seed 2" not in before.lower() and "Seed 2: --seed 2" in after


def test_play_shows_reasons_from_a_pipe(capsys: pytest.CaptureFixture[str]) -> None:
    state = tapete.load_game("cau_robat").new_initial_state(6)
    bots = PlayBots(state, 6)
    while state.current_player() != 0:
        state.apply_action(bots.choose(state))
    held = {int(c[:-1]) for c in state.view(0)["hands"][0]}
    rank = next(r for r in (1, 2, 3, 4, 5, 6, 7, 10, 11, 12) if r not in held)
    code, out = run(["play", "cau_robat", "--seed", "6"], capsys, f"play {rank}\ncancel\nquit\n")
    assert code == 0
    assert f"'play {rank}' is not legal now: you hold no card of rank {rank}; your ranks:" in out
    assert "there is no move under way to cancel" in out
    assert "Press Enter" not in out  # piped input is never paused on


def test_units_in_every_result_table(capsys: pytest.CaptureFixture[str]) -> None:
    cases = [
        (["spoil_five"], "chips"),
        (["cicera"], "matches"),
        (["cicera", "game_mode=single_hand"], "points"),
        (["cau_robat"], "hands"),
        (["cau_robat", "hands_to_win=2"], "matches"),
        (["cuajo"], "cents"),
    ]
    for args, unit in cases:
        code, out = run(["selfplay", *args, "--games", "3", "--seed", "1"], capsys)
        assert code == 0 and f"mean return ({unit})" in out, out
    code, out = run(["arena", "cau_robat", "--games", "2", "--bots"] + ["random"] * 4, capsys)
    assert code == 0 and "mean return (hands)" in out and "mean difference" not in out
    argv = ["play", "spoil_five", "--seed", "1", "--auto-forced", "num_deals=1"]
    code, out = run([*argv, "leftover_pool=split_equally"], capsys, "1\n" * 40)
    assert code == 0 and "return (chips)" in out and re.search(r"yours: [+-][\d.]+ chips", out)


def test_selfplay_python_loop_plays_the_native_games(capsys: pytest.CaptureFixture[str]) -> None:
    for name in ("spoil_five", "cuajo"):
        outs = []
        for loop in ([], ["--python-loop"]):
            code, out = run(
                ["selfplay", name, "--games", "12", "--seed", "5", "--json", *loop], capsys
            )
            assert code == 0
            outs.append(json.loads(out))
        native, python = outs
        assert native["loop"] == "native" and python["loop"] == "python"
        assert native["mean"] == python["mean"] and native["mean_length"] == python["mean_length"]
    assert outs[0]["mean"] == pytest.approx(expected_means(12, 5, {}, name="cuajo"))


def test_arena_json_is_strict_where_no_interval_exists(capsys: pytest.CaptureFixture[str]) -> None:
    """One deal has no interval, per entry nor paired: null in the JSON (which has no
    Infinity), a dash in the tables."""

    def strict(constant: str) -> Any:
        raise ValueError(f"not JSON: {constant}")

    bots = ["--bots", "heuristic", "random", "random", "random"]
    for duplicate in ([], ["--no-duplicate"]):
        args = ["arena", "spoil_five", *bots, "--games", "1", *duplicate]
        code, out = run([*args, "--json"], capsys)
        assert code == 0
        result = json.loads(out, parse_constant=strict)
        assert result["ci95"] == [None] * 4
        assert [d["ci95"] for d in result["differences"]] == [None]  # heuristic − random
        code, out = run(args, capsys)
        assert code == 0 and "inf" not in out and "—" in out


def test_game_options_after_the_bots_are_game_options(capsys: pytest.CaptureFixture[str]) -> None:
    """``--bots`` takes every word up to the next flag: a ``key=value`` word of its own there
    is a game option, as it would be before ``--bots``."""
    base = ["arena", "cau_robat", "--games", "3", "--json"]
    for bots, options in [
        (["random"] * 3, ["players=3", "hands_to_win=2"]),
        (["random", "ismcts:iterations=4,c=0.5", "heuristic"], ["players=3"]),
    ]:
        results = []
        for argv in ([*base, "--bots", *bots, *options], [*base, *options, "--bots", *bots]):
            code, out = run(argv, capsys)
            assert code == 0, out
            results.append({k: v for k, v in json.loads(out).items() if k != "seconds"})
        assert results[0] == results[1] and len(results[0]["mean"]) == 3
    code, out = run([*base, "--bots", "players=3"], capsys)
    assert code == 2 and "--bots needs at least one bot spec" in out
    # A bot parameter as a word of its own joins the spec before it, as after a comma.
    bots = ["ismcts:iterations=4", "c=0.5", "random", "random", "players=3"]
    code, out = run([*base, "--bots", *bots], capsys)
    assert code == 0 and json.loads(out)["bots"] == [
        "ismcts:iterations=4,c=0.5",
        "random",
        "random",
    ]


def test_the_cli_knows_every_bot_parameter() -> None:
    """The words `--bots` keeps for the bot before them are the parameters the engine lists."""
    with pytest.raises(tapete.ConfigError, match="the parameters are: ") as error:
        tapete.bots.make("ismcts:no_such=1", tapete.load_game("cicera"))
    listed = re.findall(r"(\w+) \(", str(error.value).split("the parameters are: ")[1])
    assert set(listed) == cli.BOT_PARAMETERS


def test_selfplay_json(capsys: pytest.CaptureFixture[str]) -> None:
    code, out = run(["selfplay", "spoil_five", "--games", "30", "--seed", "7", "--json"], capsys)
    assert code == 0
    result = json.loads(out)
    assert result["games"] == result["games_requested"] == 30 and not result["interrupted"]
    assert result["seeds"] == [7, 36] and result["unit"] == "chips" and result["bots"] == "random"
    assert result["mean"] == pytest.approx(expected_means(30, 7, {}))
    assert all(h > 0 for h in result["ci95"]) and result["config"]["players"] == 4
    assert result["games_per_second"] > 0 and result["mean_length"] > 20


def test_selfplay_python_loop_refuses_threads(capsys: pytest.CaptureFixture[str]) -> None:
    code, out = run(
        ["selfplay", "cicera", "--games", "3", "--python-loop", "--threads", "2"], capsys
    )
    assert code == 2 and "--python-loop plays on one thread" in out


def test_selfplay_ctrl_c_prints_the_games_so_far(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    real = cli.play_native_games
    calls: list[int] = []

    def interrupted(game: tapete.Game, seeds: range, threads: int, stats: Any) -> None:
        calls.append(len(seeds))
        if len(calls) > 1:
            raise KeyboardInterrupt
        real(game, seeds, threads, stats)

    monkeypatch.setattr(cli, "play_native_games", interrupted)
    code, out = run(["selfplay", "spoil_five", "--games", "1000", "--seed", "3"], capsys)
    assert code == 130
    first = calls[0]
    assert f"{first} random games" in out and f"interrupted: {first} of 1,000 games" in out
    for mean in expected_means(first, 3, {}):
        assert f"{mean:+.3f}" in out
    calls.clear()
    code, out = run(["selfplay", "spoil_five", "--games", "1000", "--seed", "3", "--json"], capsys)
    assert code == 130 and json.loads(out)["interrupted"] is True

    def at_once(*args: Any) -> None:
        raise KeyboardInterrupt

    monkeypatch.setattr(cli, "play_native_games", at_once)
    code, out = run(["selfplay", "spoil_five", "--games", "10"], capsys)
    assert code == 2 and "interrupted before the first game finished" in out


def test_selfplay_python_loop_ctrl_c_counts_finished_games_only(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    game = tapete.load_game("cau_robat")
    stats = cli.SelfPlayStats(0, 0, 0.0, [0.0] * 4, [0.0] * 4)
    real = tapete.bots.make
    made: list[int] = []

    def make(spec: str, game: tapete.Game, seed: int = 0) -> Any:
        made.append(seed)
        if len(made) == 4:  # the fourth game never finishes
            raise KeyboardInterrupt
        return real(spec, game, seed)

    monkeypatch.setattr(tapete.bots, "make", make)
    with pytest.raises(KeyboardInterrupt):
        cli.play_random_games(game, range(10, 20), stats)
    assert stats.games == 3
    assert stats.mean(0) == pytest.approx(expected_means(3, 10, {}, name="cau_robat")[0])


def test_selfplay_time_runs_from_the_first_game() -> None:
    ticks = iter(range(100, 200))
    readings: list[int] = []

    def clock() -> float:
        readings.append(next(ticks))
        return float(readings[-1])

    game = tapete.load_game("spoil_five")
    console = Console(file=io.StringIO())
    stats = cli.run_selfplay(game, 8, 0, console, clock=clock)
    assert stats.games == 8 and stats.seconds == readings[-1] - readings[0]


# ---- options, names, encodings --------------------------------------------------------------


def test_python_spellings_and_whole_numbers() -> None:
    assert parse_options(["jinking=False", "early_spoil_stop=TRUE", "num_deals=None"]) == {
        "jinking": False,
        "early_spoil_stop": True,
        "num_deals": None,
    }
    assert parse_options(["target_score=1e3", "players=4.0", "x=2.5", "y=none"]) == {
        "target_score": 1000,
        "players": 4,
        "x": 2.5,
        "y": "none",  # a string value such as partnerships=none stays a string
    }
    huge = parse_options(["players=1e30", "base_stake=123456789012345678901234567890"])
    assert huge == {"players": 10**30, "base_stake": 123456789012345678901234567890}
    assert (
        tapete.load_game("spoil_five", **parse_options(["jinking=False"])).config()["jinking"]
        is False
    )


def test_huge_numbers_are_shown_as_integers(capsys: pytest.CaptureFixture[str]) -> None:
    code, out = run(["play", "spoil_five", "players=1e20"], capsys)
    assert code == 2 and "100000000000000000000" in out and "e+20" not in out
    code, out = run(["selfplay", "spoil_five", "--games", "1e2", "--seed", "1"], capsys)
    assert code == 0 and "100 random games" in out
    code, out = run(["selfplay", "spoil_five", "--games", "2_0", "--seed", "1"], capsys)
    assert code == 0 and "20 random games" in out
    code, out = run(["selfplay", "spoil_five", "--games", "1.5"], capsys)
    assert code == 2 and "expected a positive integer" in out


def test_did_you_mean(capsys: pytest.CaptureFixture[str]) -> None:
    for argv in (
        ["play", "spoil-five"],
        ["rules", "Cicera"],
        ["selfplay", "cau-robat", "--games", "1"],
    ):
        code, out = run(argv, capsys)
        assert code == 2 and "did you mean" in out, out
    code, out = run(["play", "spoil-five"], capsys)
    assert "unknown game 'spoil-five': did you mean spoil_five?" in out
    code, out = run(["watch", "poker"], capsys)
    assert code == 2 and "did you mean" not in out and "the games are spoil_five" in out


def test_ascii_terminal_in_process(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    for argv, stdin in (
        (["games"], ""),
        (["rules", "cuajo"], ""),
        (["play", "spoil_five", "--seed", "1", "--players", "6"], "1\n" * 8 + "quit\n"),
        (["play", "cicera", "--seed", "1"], "1\nquit\n"),
        (["watch", "cau_robat", "--seed", "2", "--delay", "0"], ""),
        (["selfplay", "cuajo", "--games", "3"], ""),
    ):
        raw = io.BytesIO()
        stream = io.TextIOWrapper(raw, encoding="ascii", write_through=True)
        monkeypatch.setattr(sys, "stdout", stream)
        monkeypatch.setattr(sys, "stderr", stream)
        monkeypatch.setattr(sys, "stdin", io.StringIO(stdin))
        assert main(argv) == 0
        stream.flush()
        out = raw.getvalue().decode("ascii")  # every byte ASCII: nothing failed to encode
        assert "Traceback" not in out and len(out) > 200
    assert "?" not in out.replace("'?'", "")  # the known symbols have look-alikes, no "?"


def test_ascii_terminal_for_real() -> None:
    result = subprocess.run(
        [sys.executable, "-m", "tapete", "play", "spoil_five", "--seed", "4"],
        input=b"1\n1\n1\nquit\n",
        capture_output=True,
        env={**os.environ, "PYTHONIOENCODING": "ascii"},
        timeout=60,
        check=False,
    )
    assert result.returncode == 0, result.stderr
    assert result.stderr == b""
    out = result.stdout.decode("ascii")
    assert "Spoil Five - deal 1 of 4" in out and "Bye" in out


# ---- rules, games, docstrings ---------------------------------------------------------------


def test_rules_pages_are_the_docs() -> None:
    for name in tapete.list_games():
        packaged = resources.files("tapete") / "rules" / f"{name}.md"
        assert packaged.read_text(encoding="utf-8") == (
            ROOT / "docs" / "rules" / f"{name}.md"
        ).read_text(encoding="utf-8")
        link = ROOT / "python" / "tapete" / "rules" / f"{name}.md"
        if (ROOT / "python").is_dir():  # the source tree (not a test of the installed wheel)
            assert link.is_symlink() and os.readlink(link) == f"../../../docs/rules/{name}.md"


def test_rules_and_games_point_to_them(capsys: pytest.CaptureFixture[str]) -> None:
    code, out = run(["rules", "spoil_five"], capsys)  # not a terminal: printed, never paged
    assert code == 0 and "Spoil Five in tapete" in out and "The heuristic bot" in out
    assert "# " not in out  # rendered, not raw Markdown
    code, out = run(["games"], capsys)
    assert code == 0 and "tapete rules <game>" in out and "docs/rules" not in out


def public_objects() -> list[tuple[str, Any]]:
    """Every public module, class, function and method of the package (but ``tapete._core``,
    whose public names are re-exported or wrapped and are checked there)."""
    found: list[tuple[str, Any]] = []
    names = ["tapete"] + [
        m.name for m in pkgutil.walk_packages(tapete.__path__, "tapete.") if "._" not in m.name
    ]
    for module_name in names:
        module = importlib.import_module(module_name)
        found.append((module_name, module))
        public = {*getattr(module, "__all__", []), *(n for n in vars(module) if n[0] != "_")}
        for name in sorted(public):
            obj = getattr(module, name)
            if not (inspect.isclass(obj) or inspect.isroutine(obj)):
                continue
            if not getattr(obj, "__module__", "").startswith("tapete"):
                continue
            found.append((f"{module_name}.{name}", obj))
            if inspect.isclass(obj):
                for attr in dir(obj):
                    owner = next((k for k in obj.__mro__ if attr in vars(k)), obj)
                    if attr.startswith("_") or not owner.__module__.startswith("tapete"):
                        continue  # what a host library's base class defines is not ours
                    static = inspect.getattr_static(obj, attr)
                    member = getattr(obj, attr)
                    if isinstance(static, property):
                        found.append((f"{module_name}.{name}.{attr}", static))
                    elif inspect.isroutine(member):
                        found.append((f"{module_name}.{name}.{attr}", member))
    return found


def test_every_public_thing_has_a_docstring() -> None:
    objects = public_objects()
    assert len(objects) > 200
    missing = [name for name, obj in objects if not (inspect.getdoc(obj) or "").strip()]
    assert not missing, missing
    assert "IllegalActionError" in (inspect.getdoc(tapete.State.apply_action) or "")
    assert "None" in (inspect.getdoc(tapete.State.explain_illegal) or "")
