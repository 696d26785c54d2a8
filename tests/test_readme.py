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
