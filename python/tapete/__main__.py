"""``python -m tapete``: the command line (see :mod:`tapete.cli`)."""

from tapete.cli import main

if __name__ == "__main__":
    raise SystemExit(main())
