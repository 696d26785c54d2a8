"""Records on the command line: ``--out`` of ``play``, ``arena`` and ``selfplay``, and
``tapete replay`` (keys through a real pseudo-terminal, ``--check``)."""

from __future__ import annotations

import fcntl
import io
import json
import os
import random
import re
import select
import signal
import struct
import subprocess
import sys
import termios
from pathlib import Path
from typing import Any

import jsonschema
import pytest
from test_records import play_out

import tapete
from tapete import records
from tapete.cli import main

ANSI = re.compile(r"\x1b(?:\[[0-?]*[ -/]*[@-~]|[@-Z\\-_])")


def run(
    capsys: pytest.CaptureFixture[str], *args: str, stdin: str | None = None, **kw: Any
) -> tuple[int, str, str]:
    if stdin is not None:
        kw["monkeypatch"].setattr("sys.stdin", io.StringIO(stdin))
    code = main(list(args))
    out = capsys.readouterr()
    return code, out.out, out.err


# ---- --out ----------------------------------------------------------------------------------


def test_selfplay_out(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "self.jsonl.gz"
    code, out, err = run(capsys, "selfplay", "spoil_five", "--games", "30", "--seed", "5",
                         "--out", str(path))  # fmt: skip
    assert code == 0 and err == ""
    assert f"30 records appended to {path}" in out
    recs = list(records.read(path))
    assert [r["seed"] for r in recs] == list(range(5, 35))
    returns, _ = tapete.load_game("spoil_five").play_random(30, seed=5)
    assert [r["returns"] for r in recs] == returns.tolist()
    for s in range(4):  # the table reports these very games
        assert f"{returns[:, s].mean():+.3f}" in out
    assert records.check(path) == 30
    loop = tmp_path / "loop.jsonl"  # the Python loop plays the native games: the same records
    code, _, err = run(capsys, "selfplay", "spoil_five", "--games", "30", "--seed", "5",
                       "--python-loop", "--out", str(loop))  # fmt: skip
    assert code == 0 and err == ""
    assert list(records.read(loop)) == recs
    code, _, err = run(capsys, "selfplay", "cicera", "--games", "2", "--out", str(tmp_path))
    assert code == 2 and "cannot write records to" in err


def test_arena_out(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "arena.jsonl"
    args = ["arena", "cau_robat", "players=3", "--bots", "heuristic", "random", "random"]
    code, out, err = run(capsys, *args, "--games", "5", "--seed", "9", "--json", "--out", str(path))
    assert code == 0, err
    result = json.loads(out)
    assert result["records"]["games"] == 15 and result["records"]["file"] == str(path)
    recs = list(records.read(path))
    assert len(recs) == 15 and records.check(path) == 15
    api = tapete.arena("cau_robat", ["heuristic", "random", "random"], 5, seed=9, players=3)
    assert result["mean"] == api.mean.tolist()
    assert recs[1]["bots"] == ["random", "random", "heuristic"]
    again = tmp_path / "again.jsonl"
    tapete.arena("cau_robat", ["heuristic", "random", "random"], 5, seed=9, players=3,
                 records=again)  # fmt: skip
    assert list(records.read(again)) == recs  # the CLI writes what the API writes


def test_play_out_saves_finished_and_unfinished_games(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "mine.jsonl"
    args = ["play", "spoil_five", "--seed", "3", "--seat", "1", "num_deals=1"]
    args += ["leftover_pool=split_equally", "--out", str(path)]
    code, out, _ = run(capsys, *args, stdin="1\n" * 300, monkeypatch=monkeypatch)
    assert code == 0 and "Game over" in out and f"The game was saved to {path}." in out
    code, out, _ = run(capsys, *args, stdin="1\n1\nquit\n", monkeypatch=monkeypatch)
    assert code == 0 and f"The game (unfinished) was saved to {path}." in out
    done, left = records.read(path)
    for rec in (done, left):
        jsonschema.validate(rec, records.schema())
    assert done["bots"] == ["heuristic", "human", "heuristic", "heuristic"]
    assert done["terminal"] is True and left["terminal"] is False
    final = records.replay(done)
    assert final.is_terminal() and final.returns() == done["returns"]
    assert not records.replay(left).is_terminal()
    assert left["actions"] == done["actions"][: left["length"]]  # the same game, cut short


# ---- tapete replay --check -------------------------------------------------------------------


def record_file(tmp_path: Path, name: str = "games.jsonl") -> tuple[Path, list[dict[str, Any]]]:
    path = tmp_path / name
    tapete.arena("cau_robat", ["heuristic", "random", "random", "random"], 1, seed=3,
                 records=path)  # fmt: skip
    return path, list(records.read(path))


def test_replay_check(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path, recs = record_file(tmp_path, "games.jsonl.gz")
    code, out, err = run(capsys, "replay", "--check", str(path))
    assert code == 0 and err == "" and f"{path}: 4 records, each replays to its returns" in out
    bad = tmp_path / "bad.jsonl"
    recs[2]["returns"] = [9.0, -3.0, -3.0, -3.0]
    records.write(bad, recs)
    code, out, err = run(capsys, "replay", "--check", str(bad))
    assert code == 1 and out == ""
    assert err.startswith(f"tapete: error: {bad}: line 3: not a valid game record: it records")
    assert len(err.strip().splitlines()) == 1
    code, _, err = run(capsys, "replay", str(bad), "--index", "2")  # showing it fails too
    assert code == 1 and f"{bad}: line 3:" in err
    # a real process exits non-zero
    result = subprocess.run([sys.executable, "-m", "tapete", "replay", "--check", str(bad)],
                            capture_output=True, text=True, timeout=60, check=False)  # fmt: skip
    assert result.returncode == 1 and f"{bad}: line 3:" in result.stderr
    for args, message in [
        ([str(tmp_path / "none.jsonl")], "no such file"),
        ([str(tmp_path)], "cannot read"),
        ([str(path), "--index", "4"], "holds 4 records: --index goes from 0 to 3"),
        ([str(path), "--index", "-5"], "holds 4 records"),
        ([str(path), "--seat", "4"], "seat 4 is out of range"),
    ]:
        code, _, err = run(capsys, "replay", *args)
        assert code == 2 and message in err, err
    empty = tmp_path / "empty.jsonl"
    empty.write_text("")
    code, _, err = run(capsys, "replay", str(empty))
    assert code == 2 and "holds no records" in err


def test_replay_from_a_pipe(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    path, recs = record_file(tmp_path)
    code, out, _ = run(capsys, "replay", str(path), "--index", "-1", stdin="\nn\nb\nwhat\nend\nq\n",
                       monkeypatch=monkeypatch)  # fmt: skip
    assert code == 0
    moves = re.findall(r"record 3 \(line 4\) · move (\d+) of 36", out)
    assert moves == ["0", "1", "2", "1", "36"]
    assert out.count("n (or an empty line) next · b back") == 6  # a pipe's commands: per screen,
    assert "'what' is not a command here: n (or an empty line)" in out  # and the unknown one
    assert "Enter/→" not in out
    assert "Game over. Returns" in out


def test_a_failing_run_makes_no_records_file(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "never.jsonl"
    for args in (
        ["selfplay", "cau_robat", "--games", "3", "explicit_chance=true"],
        ["arena", "cau_robat", "--bots", "random", "--games", "3", "players=9"],
        ["play", "cicera", "explicit_chance=true"],
    ):
        assert main([*args, "--out", str(path)]) == 2
        assert not path.exists()
    assert main(["selfplay", "cau_robat", "--games", "3", "--out", str(tmp_path)]) == 2
    assert "is a directory" in capsys.readouterr().err


@pytest.mark.parametrize("name", ["spoil_five", "cicera", "cau_robat", "cuajo"])
def test_replay_of_an_explicit_chance_record(
    name: str, tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """A record of a game with explicit chance nodes replays as a seat saw it: its chance
    moves are not positions of their own (the cards dealt are seen once the deal is over);
    with every card shown they are, each told as chance's."""
    config = {"hands_per_match": 1} if name == "cuajo" else {}
    state = tapete.load_game(name, explicit_chance=True, **config).new_initial_state(seed=2)
    play_out(state, random.Random(2))
    path = tmp_path / "chance.jsonl"
    records.write(path, state)
    code, out, err = run(capsys, "replay", str(path), "--seat", "1", stdin="n\n" * 40 + "end\nq\n",
                         monkeypatch=monkeypatch)  # fmt: skip
    assert code == 0, err
    assert "Game over. Returns" in out
    # The steps: the decisions (no chance node) after which what seat 1 knows changed.
    replayed = tapete.load_game(name, explicit_chance=True, **config).new_initial_state(seed=2)
    known = [] if replayed.is_chance_node() else [replayed.information_state_string(1)]
    for action in state.history():
        replayed.apply_action(action)
        if (
            not replayed.is_chance_node()
            and (info := replayed.information_state_string(1)) not in known
        ):
            known.append(info)
    steps = [int(n) for n in re.findall(r"· step \d+ of (\d+) · as seat 1", out)]
    (last,) = set(steps)
    if name == "cicera":  # another seat's take in a capture under way is told with its last
        assert 0 < last < len(known) - 1
    else:
        assert last == len(known) - 1
    assert len(steps) == (last + 1 if last <= 40 else 42)  # 40 "n", then "end"
    code, out, err = run(capsys, "replay", str(path), stdin="\nend\nq\n", monkeypatch=monkeypatch)
    assert code == 0, err
    assert "Move 1: chance: dealer" in out and "Game over. Returns" in out
    # A record cut inside its first deal: nothing for a seat to see yet.
    start = tapete.load_game(name, explicit_chance=True, **config).new_initial_state(seed=2)
    for action in state.history()[:3]:
        start.apply_action(action)
    cut = tmp_path / "cut.jsonl"
    records.write(cut, start)
    assert main(["replay", str(cut), "--seat", "1"]) == 2
    assert "ends before its first deal is over" in capsys.readouterr().err


def test_replay_as_a_seat_shows_no_trace_of_a_move_hidden_from_it(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """The holder of the ace of trumps declines to rob, privately (rob_policy=penalty): the
    next seat's replay has no step for it (a screen that told nothing, numbered apart, would
    tell that a move was made), and its steps are the positions where what it knows changed."""
    game = tapete.load_game("spoil_five", rob_policy="penalty", num_deals=1)
    state, rng = game.new_initial_state(seed=1), random.Random(1)

    def moves() -> dict[str, int]:
        return {state.action_to_string(a): a for a in state.legal_actions()}

    while "decline" not in moves() or state.view()["dealer"] == state.current_player():
        state.apply_action(rng.choice([a for t, a in moves().items() if t != "decline"]))
    seat = (state.current_player() + 1) % 4  # not the holder
    state.apply_action(moves()["decline"])
    play_out(state, rng)
    path = tmp_path / "decline.jsonl"
    records.write(path, state)
    code, out, err = run(capsys, "replay", str(path), "--seat", str(seat), stdin="n\n" * 90 + "q\n",
                         monkeypatch=monkeypatch)  # fmt: skip
    assert code == 0, err
    steps = re.split(r"^─+ Spoil Five · record 0 \(line 1\) · step \d+ of (\d+) · .*$", out,
                     flags=re.M)  # fmt: skip
    replayed, known = game.new_initial_state(seed=1), set()
    for action in [None, *state.history()]:
        if action is not None:
            replayed.apply_action(action)
        known.add(replayed.information_state_string(seat))
    assert int(steps[1]) == len(known) - 1 < len(state.history())
    for text in steps[4::2]:  # after step 0, each step tells a move before the table
        assert not text.strip().startswith("─"), text[:200]


def test_play_saves_the_game_when_interrupted_or_hung_up(tmp_path: Path) -> None:
    """Ctrl-C (SIGINT) or the terminal closing (SIGHUP) at a prompt saves the unfinished game
    with --out, as quitting does."""
    for sig, code in ((signal.SIGINT, 130), (signal.SIGHUP, 129)):
        path = tmp_path / f"{sig.name}.jsonl"
        term = Terminal("play", "cau_robat", "--seed", "4", "--out", str(path))
        term.expect(r"Your move>")
        term.proc.send_signal(sig)
        # A signal that lands just before input() reads is seen when the line comes (CPython
        # checks for one before it reads): a person presses Ctrl-C while it waits.
        term.send("\r")
        assert term.close() == code
        (rec,) = records.read(path)
        assert rec["terminal"] is False and records.replay(rec).current_player() == 0


# ---- tapete replay through a real terminal --------------------------------------------------


class Terminal:
    """``python -m tapete *args`` on a pseudo-terminal of 100 columns."""

    def __init__(self, *args: str) -> None:
        self.master, slave = os.openpty()
        fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", 50, 100, 0, 0))
        env = {**os.environ, "TERM": "xterm-256color", "COLUMNS": "100", "LINES": "50"}
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "tapete", *args],
            stdin=slave,
            stdout=slave,
            stderr=slave,
            env=env,
            close_fds=True,
        )
        os.close(slave)
        self.seen = ""

    def expect(self, pattern: str) -> str:
        """The output up to ``pattern`` (searched in what came after the last match)."""
        while not (found := re.search(pattern, self.seen)):
            ready, _, _ = select.select([self.master], [], [], 60)  # a guard against a hang
            assert ready, f"no {pattern!r} in {self.seen[-2000:]!r}"
            try:
                chunk = os.read(self.master, 65536)
            except OSError:  # the child closed the terminal
                chunk = b""
            assert chunk, f"no {pattern!r} before the end: {self.seen[-2000:]!r}"
            self.seen += ANSI.sub("", chunk.decode("utf-8", "replace"))
        before, self.seen = self.seen[: found.end()], self.seen[found.end() :]
        return before

    def send(self, keys: str) -> None:
        os.write(self.master, keys.encode())

    def close(self) -> int:
        code = self.proc.wait(timeout=60)
        os.close(self.master)
        return code


def test_replay_keys_through_a_pty(tmp_path: Path) -> None:
    path, recs = record_file(tmp_path)
    final = records.replay(recs[1])
    term = Terminal("replay", str(path), "--index", "1", "--seat", "2")
    screen = term.expect(r"step 0 of 36 · as seat 2 saw it")
    screen += term.expect(r"q quit")
    assert "seat 0: random, seat 1: random, seat 2: random, seat 3: heuristic" in screen
    assert "seed" not in screen  # the seed decides every hand
    term.send("\r")  # Enter
    term.expect(r"step 1 of 36")
    term.send("\x1b[C")  # →
    screen = term.expect(r"step 2 of 36") + term.expect("q quit")
    assert "Your hand" in screen
    term.send("\x1b[D")  # ←
    term.expect(r"step 1 of 36")
    term.send("\x1b[F")  # End
    screen = term.expect(r"step 36 of 36") + term.expect(r"q quit")
    assert "Game over. Returns" in screen
    returns = ", ".join(f"seat {s}: {r:+g}" for s, r in enumerate(final.returns()))
    assert returns in screen
    term.send(" ")  # past the end: nothing moves
    term.send("g")  # back to the start
    term.expect(r"step 0 of 36")
    term.send("q")
    assert term.close() == 0
    # every card shown: the table as str(state) draws it, each seat's hand
    term = Terminal("replay", str(path), "--index", "1")
    screen = term.expect(r"move 0 of 36 · everything shown") + term.expect(r"q quit")
    start = tapete.load_game("cau_robat").new_initial_state(seed=3)
    assert "seed 3 · seat 0: random" in screen
    for line in str(start).splitlines():
        assert line.strip() in screen
    term.send("\x1b[C")
    screen = term.expect(r"move 1 of 36") + term.expect(r"q quit")
    assert f"Move 1: seat {start.current_player()}: {recs[1]['actions'][0]}" in screen
    term.send("x")  # not a key: the keys are shown again
    term.expect(r"Enter/→ next")
    term.send("\x1b")  # a lone Esc quits
    assert term.close() == 0


def test_replay_seat_view_hides_the_other_hands(tmp_path: Path) -> None:
    """In seat mode only that seat's cards are drawn: no other seat's hand appears."""
    path, recs = record_file(tmp_path)
    start = tapete.load_game("cau_robat").new_initial_state(seed=3)
    hands = start.view(None)["hands"]
    term = Terminal("replay", str(path), "--seat", "0")
    screen = term.expect(r"step 0 of 36") + term.expect(r"q quit")
    term.send("q")
    assert term.close() == 0
    mine = " ".join(hands[0])
    assert all(card in screen for card in hands[0]), mine
    for s in (1, 2, 3):  # an other seat's card that seat 0 does not hold and the table lacks
        hidden = set(hands[s]) - set(hands[0]) - set(start.view(0)["table"])
        assert not any(re.search(rf"(?<![0-9A-Z]){c}(?![0-9A-Z])", screen) for c in hidden)
