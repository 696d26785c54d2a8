"""The README's Python examples run as written, and print what their comments say."""

from __future__ import annotations

import contextlib
import io
import re
from pathlib import Path

README = Path(__file__).resolve().parent.parent / "README.md"


def test_readme_python_examples_run() -> None:
    blocks = re.findall(r"```python\n(.*?)```", README.read_text(), re.S)
    assert blocks, "the README has Python examples"
    for block in blocks:
        with contextlib.redirect_stdout(io.StringIO()):
            exec(compile(block, str(README), "exec"), {})


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
