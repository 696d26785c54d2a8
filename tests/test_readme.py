"""The README's and the docs' Python examples run as written, and print what their comments
say."""

from __future__ import annotations

import contextlib
import io
import re
from pathlib import Path

import pytest

README = Path(__file__).resolve().parent.parent / "README.md"
DOCS = README.parent / "docs"
#: Examples of docs/ that are not run, each found by a phrase of its own, and why.
ILLUSTRATIVE = {
    ("bots.md", 'tapete.arena("cau_robat"'): "a thousand duplicate deals of IS-MCTS",
    ("distributed.md", 'address="auto"'): "needs a Ray cluster at an address",
    ("engine.md", "tapete.CHANCE == -1"): "a list of calls, not a program",
    ("interop.md", "MaskablePPO"): "trains MaskablePPO (sb3-contrib) for 100,000 steps",
    ("vector.md", "policy(out.observation)"): "policy, sample and buffer are the reader's",
}


def test_readme_python_examples_run() -> None:
    blocks = re.findall(r"```python\n(.*?)```", README.read_text(), re.S)
    assert blocks, "the README has Python examples"
    for block in blocks:
        with contextlib.redirect_stdout(io.StringIO()):
            exec(compile(block, str(README), "exec"), {})


def test_docs_python_examples_run(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)  # the examples write files of their own
    skipped, ran = set(), 0
    for page in sorted(DOCS.glob("*.md")):
        for block in re.findall(r"```python\n(.*?)```", page.read_text(), re.S):
            skip = {key for key in ILLUSTRATIVE if key[0] == page.name and key[1] in block}
            if skip:
                skipped |= skip
                continue
            with contextlib.redirect_stdout(io.StringIO()):
                exec(compile(block, page.name, "exec"), {})
            ran += 1
    assert skipped == set(ILLUSTRATIVE) and ran >= 5  # every phrase still finds its example


def test_readme_evaluator_comments_are_true() -> None:
    """Lines of the form ``expr  # value`` where the value is a Python literal (after the
    assignments of string literals above them, such as ``hand = "3O 4O ...".split()``)."""
    namespace: dict[str, object] = {}
    exec("import tapete", namespace)
    checked = 0
    for line in README.read_text().splitlines():
        if re.match(r'\w+ = "', line):  # a card list the examples below use
            exec(line, namespace)
        match = re.match(r"(tapete\.\w+\.\w+\(.*\))\s+# (\[.*\]|\d+)$", line)
        if match and "..." not in line:
            assert eval(match.group(1), namespace) == eval(match.group(2)), line
            checked += 1
    assert checked >= 4


def test_quick_start_is_two_one_line_commands_in_a_virtual_environment() -> None:
    text = README.read_text()
    start = text.index("## Quick start")
    block = re.search(r"```sh\n(.*?)```", text[start:], re.S)
    assert block is not None
    commands = [line for line in block.group(1).splitlines() if line and not line.startswith("#")]
    assert len(commands) == 2, commands
    first, second = commands
    assert first.startswith("python3 -m venv .venv && . .venv/bin/activate && ")
    assert "tapete selfplay spoil_five" in first
    # each works on a fresh machine on its own
    assert second.startswith("python3 -m venv .venv && . .venv/bin/activate && ")
    assert second.endswith("make test")
    intro = text[start : start + block.start()]
    assert "rustfmt" in intro and "clippy" in intro
    assert "minutes" in block.group(1)  # how long the build and the tests take
