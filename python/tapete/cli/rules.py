"""``tapete rules GAME``: a game's rules page, rendered from the Markdown shipped in the package.

The pages are ``tapete/rules/<game>.md`` inside the installed package; in the source tree those
files are symbolic links to ``docs/rules/<game>.md``, the one copy that is edited (a wheel holds
the files themselves), so the page ``tapete rules`` shows is the page of the docs.
"""

from __future__ import annotations

import argparse
import os
from importlib import resources

from rich.console import Console
from rich.markdown import Markdown

from tapete.cli._ui import CliError

__all__ = ["add_arguments", "cmd_rules", "rules_text"]


def rules_text(name: str) -> str:
    """The rules page of game ``name`` (Markdown), as shipped in the package; a
    :class:`CliError` if the package holds none for it."""
    page = resources.files("tapete") / "rules" / f"{name}.md"
    try:
        return page.read_text(encoding="utf-8")
    except (FileNotFoundError, NotADirectoryError):
        raise CliError(f"no rules page is shipped for {name}") from None


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """The arguments of ``tapete rules``."""
    parser.add_argument("game", help="a game name (see 'tapete games')")
    parser.add_argument(
        "--no-pager",
        action="store_true",
        help="print the whole page instead of paging it (paged only on a terminal)",
    )


def cmd_rules(args: argparse.Namespace, console: Console) -> int:
    """``tapete rules GAME``: the rules page rendered with rich, through the system pager
    (``$PAGER``, else ``less``) when the output is a terminal, unless ``--no-pager``."""
    page = Markdown(rules_text(args.game), hyperlinks=False)
    if args.no_pager or not console.is_terminal:
        console.print(page)
        return 0
    os.environ.setdefault("LESS", "-R")  # less shows the colours instead of escape codes
    with console.pager(styles=True):
        console.print(page)
    return 0
