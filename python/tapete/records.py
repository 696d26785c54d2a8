"""Game records: one finished (or abandoned) game a line of JSON Lines, enough to rebuild it
exactly from its game, config, seed and canonical action strings (docs/records.md).

    tapete.records.write("games.jsonl.gz", [state, ...])   # appends; gzip by the ".gz" suffix
    for rec in tapete.records.read("games.jsonl.gz"): ...
    state = tapete.records.replay(rec)                      # rebuilt and checked
    tapete.records.check("games.jsonl.gz")                  # every record, errors name the line

A record is checked when it is replayed: it must load its game, deal from its seed (or its
``decks``), accept every action in order and end with its ``returns``; anything else is a
`tapete.ParseError` (naming the file and line when the record was read from a file).
"""

from __future__ import annotations

import gzip
import io
import json
import math
import os
import reprlib
import stat
import tempfile
import zlib
from collections.abc import Callable, Iterable, Iterator, Mapping
from functools import cache
from typing import Any, Protocol, TypeAlias

from tapete import _core
from tapete._adapt import plain
from tapete._core import Game, State
from tapete.errors import ConfigError, IllegalActionError, ParseError, TapeteError

__all__ = [
    "MAX_LINE",
    "REQUIRED",
    "check",
    "check_fields",
    "enumerate_records",
    "random_game",
    "read",
    "record",
    "replay",
    "schema",
    "selfplay_records",
    "version",
    "write",
]

Path: TypeAlias = str | bytes | os.PathLike[str] | os.PathLike[bytes]

#: The fields every record has (the contract's minimum).
REQUIRED = ("game", "config", "seed", "actions", "returns", "tapete")

MAX_SEED = 2**64 - 1

#: The longest line `read` takes, in characters: far beyond any game's record (one of the longest
#: matches the options allow, Cau Robat for 5 players to 1,000 hands won, takes 1.6 MB; its
#: explicit-chance record 3.7 MB).
MAX_LINE = 64 * 2**20

#: Native self-play checked and recorded this many games at a time.
_CHUNK = 1000

_shown = reprlib.Repr()
_shown.maxstring = _shown.maxother = 40
_shown.maxlist = _shown.maxdict = 6


class _StateLike(Protocol):
    """What a record is made from: a state of the engine or of the reference model."""

    def serialize(self) -> str: ...
    def action_to_string(self, action: int) -> str: ...
    def returns(self) -> list[float]: ...
    def is_terminal(self) -> bool: ...


@cache
def version() -> str:
    """The installed tapete's version (``"unknown"`` when run from a source tree that was never
    installed): what a record's ``tapete`` field says."""
    from importlib import metadata  # slow to import: only when a record is written

    try:
        return metadata.version("tapete")
    except metadata.PackageNotFoundError:
        return "unknown"


def schema() -> dict[str, Any]:
    """The JSON Schema of a record (``record.schema.json``, shipped in the package)."""
    from importlib import resources

    text = resources.files("tapete").joinpath("record.schema.json").read_text(encoding="utf-8")
    out: dict[str, Any] = json.loads(text)
    return out


# --------------------------------------------------------------------------------------------
# Building records


def _make(
    game: Any,
    seed: int,
    actions: list[str],
    returns: Iterable[float],
    terminal: bool,
    bots: list[str] | None,
    decks: list[list[str]] | None = None,
    extra: Mapping[str, Any] | None = None,
) -> dict[str, Any]:
    rec: dict[str, Any] = {"game": game.name, "config": game.config(), "seed": seed}
    if decks is not None:
        rec["decks"] = decks
    rec["actions"] = actions
    rec["returns"] = [float(r) for r in returns]
    rec["terminal"] = terminal
    rec["length"] = len(actions)
    if bots is not None:
        rec["bots"] = list(bots)
    if extra:
        rec.update(extra)
    rec["tapete"] = version()
    return rec


def _loader_of(state: object) -> Callable[..., Any]:
    if isinstance(state, State):
        return _core.load_game
    from tapete.reference._base import ReferenceState  # only a reference state needs it

    if isinstance(state, ReferenceState):
        from tapete import reference

        return reference.load_game
    raise TypeError(f"a record is made from a tapete State, got {type(state).__name__}")


def _check_bots(bots: Iterable[str] | None, players: int) -> list[str] | None:
    if bots is None:
        return None
    names = [] if isinstance(bots, str) or not isinstance(bots, Iterable) else list(bots)
    if not names or not all(isinstance(b, str) for b in names):
        raise TypeError(
            f"bots must be a sequence of strings, one per seat, got {_shown.repr(bots)}"
        )
    if len(names) != players:
        raise ValueError(f"bots must name one bot per seat: {players} seats, got {len(names)}")
    return names


def record(state: _StateLike, bots: Iterable[str] | None = None) -> dict[str, Any]:
    """The record of ``state`` (engine or reference): its game, effective config, seed,
    canonical action strings and returns so far, with ``bots`` (one name per seat) when given.

    A seeded state that its seed alone does not rebuild (dealt from a given ``deck``, or made
    by ``resample_from_infostate``) also records the packs of its deals (``decks``), and the
    RNG of its deals to come when the seed does not give it (``rng``: a resampled state); with
    explicit chance the actions hold every card dealt, and the record has neither."""
    load = _loader_of(state)
    info = json.loads(state.serialize())
    history: list[int] = info["history"]
    game = load(info["game"], **info["config"])
    fresh = game.new_initial_state(seed=info["seed"])
    explicit = bool(info["config"].get("explicit_chance"))
    # Each action's text where it was taken: an id names a chance outcome at a chance node
    # (explicit_chance) and a move elsewhere.
    actions: list[str] = []
    try:
        for action in history:
            actions.append(fresh.action_to_string(action))
            fresh.apply_action(action)
        replayed = json.loads(fresh.serialize())
        # With explicit chance the history holds every card dealt: the decks' undealt rest is a
        # placeholder that nothing reads (and such a game takes no decks).
        from_seed = explicit or replayed["decks"] == info["decks"]
    except TapeteError:  # another deal made these actions illegal (seeded: texts need no context)
        from_seed = False
        actions = [state.action_to_string(a) for a in history]
    decks = None if from_seed else info["decks"]
    # The deals still to come: a resampled state draws them from an RNG of its own.
    extra = None
    if not explicit:
        if decks is not None:  # the history replayed on the decks instead
            rebuilt = game.new_initial_state(info["seed"], decks=decks)
            for action in history:
                rebuilt.apply_action(action)
            replayed = json.loads(rebuilt.serialize())
        if replayed["rng"] != info["rng"]:
            extra = {"rng": info["rng"]}
    return _make(
        game,
        info["seed"],
        actions,
        state.returns(),
        state.is_terminal(),
        _check_bots(bots, game.num_players()),
        decks,
        extra,
    )


def random_game(game: Game, seed: int) -> State:
    """The game ``game.play_random`` plays from ``seed``, rebuilt through the Python API: the
    state from ``seed``, every move ``legal[rng.below(len(legal))]`` of the legal actions with
    one SplitMix64 stream seeded ``~seed`` (mod 2**64) for all seats, as ``rust/bots/mod.rs``
    (``random_playout``) does."""
    from tapete.reference.rng import MASK64, SplitMix64

    state = game.new_initial_state(seed)
    below = SplitMix64(~seed & MASK64).below
    legal_actions, apply_action = state.legal_actions, state.apply_action
    while legal := legal_actions():
        apply_action(legal[below(len(legal))])
    return state


def selfplay_records(game: Game, games: int, seed: int = 0) -> Iterator[dict[str, Any]]:
    """The records of ``game.play_random(games, seed)``'s games (seeds ``seed + i``, mod
    2**64), in order.

    Native play keeps no actions, so each game is played again from Python (`random_game`,
    ~100,000 actions/s) and checked against the native returns and length: the records are the
    very games whose results ``play_random`` reports. ``games`` and ``seed`` are checked as
    ``play_random`` checks them (a `tapete.ConfigError`), before any game is played."""
    games, seed = plain(games), plain(seed)
    game.play_random(0, seed)
    if isinstance(games, bool) or not isinstance(games, int) or games < 0:
        raise ConfigError(f"games must be an int >= 0, got {_shown.repr(games)}")
    return _selfplay_records(game, games, seed)


def _selfplay_records(game: Game, games: int, seed: int) -> Iterator[dict[str, Any]]:
    n = game.num_players()
    for start in range(0, games, _CHUNK):
        count = min(_CHUNK, games - start)
        returns, lengths = game.play_random(count, (seed + start) & MAX_SEED)
        for i in range(count):
            game_seed = (seed + start + i) & MAX_SEED
            state = random_game(game, game_seed)
            history = state.history()
            if state.returns() != list(returns[i]) or len(history) != int(lengths[i]):
                raise RuntimeError(f"seed {game_seed}: the Python replay differs from native play")
            actions = [state.action_to_string(a) for a in history]
            yield _make(game, game_seed, actions, state.returns(), True, ["random"] * n)


# --------------------------------------------------------------------------------------------
# Checking records


def _fail(what: str) -> ParseError:
    return ParseError(f"not a valid game record: {what}")


def _is_int(value: object) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _is_number(value: object) -> bool:
    """A finite number that a float holds (the returns are compared as floats)."""
    if _is_int(value):
        try:
            float(value)  # type: ignore[arg-type]
        except OverflowError:
            return False
        return True
    return isinstance(value, float) and math.isfinite(value)


def _strings(value: object) -> bool:
    return isinstance(value, list) and all(isinstance(v, str) for v in value)


def _arena_info(value: object) -> bool:
    return (
        isinstance(value, dict)
        and all(_is_int(value.get(key)) and 0 <= value[key] for key in ("seed", "deal", "rotation"))
        and value["seed"] <= MAX_SEED
        and value["deal"] <= MAX_SEED
    )


def check_fields(rec: object) -> dict[str, Any]:
    """``rec`` if it has the fields and types of a record (``record.schema.json``), else a
    `tapete.ParseError` saying what is missing or wrong. Nothing is replayed."""
    if not isinstance(rec, dict):
        raise ParseError(f"a game record is a JSON object, got {_shown.repr(rec)}")
    missing = [key for key in REQUIRED if key not in rec]
    if missing:
        raise _fail(f"missing field{'s' if len(missing) > 1 else ''} {', '.join(missing)}")
    checks: dict[str, tuple[Callable[[object], bool], str]] = {
        "game": (lambda v: isinstance(v, str), "a game name"),
        "config": (lambda v: isinstance(v, dict), "an object of config options"),
        "seed": (lambda v: _is_int(v) and 0 <= v <= MAX_SEED, "an integer in 0 … 2^64-1"),  # type: ignore[operator]
        "actions": (_strings, "a list of action strings"),
        "returns": (
            lambda v: isinstance(v, list) and len(v) > 0 and all(map(_is_number, v)),
            "a list of numbers, one per seat",
        ),
        "tapete": (lambda v: isinstance(v, str), "a version string"),
        "decks": (
            lambda v: isinstance(v, list) and len(v) > 0 and all(map(_strings, v)),
            "a list of decks (lists of card strings)",
        ),
        "terminal": (lambda v: isinstance(v, bool), "true or false"),
        "length": (lambda v: _is_int(v) and v >= 0, "a count of actions"),  # type: ignore[operator]
        "bots": (_strings, "a list of bot names, one per seat"),
        "arena": (_arena_info, "an object with integers seed, deal and rotation"),
        "rng": (lambda v: _is_int(v) and 0 <= v <= MAX_SEED, "an integer in 0 … 2^64-1"),  # type: ignore[operator]
    }
    for key, (ok, expected) in checks.items():
        if key in rec and not ok(rec[key]):
            raise _fail(f"field {key!r} must be {expected}, got {_shown.repr(rec[key])}")
    if "length" in rec and rec["length"] != len(rec["actions"]):
        raise _fail(f"length {rec['length']} but {len(rec['actions'])} actions")
    return rec


def replay(record: Mapping[str, Any], *, load_game: Callable[..., Any] | None = None) -> Any:
    """The final state of ``record``, rebuilt from its game, config, seed (and ``decks``) and
    actions, and checked: it must end with the record's ``returns`` (and be over, unless the
    record says ``"terminal": false``), with one bot per seat when ``bots`` is given.

    Any mismatch, an unknown game or config, a bad or illegal action, a missing field: a
    `tapete.ParseError`, naming the file and line of a record that `read` gave. ``load_game``
    chooses the implementation (default the engine, ``tapete.load_game``;
    ``tapete.reference.load_game`` for the reference model)."""
    if not (load_game is None or callable(load_game)):
        raise TypeError(
            f"load_game must be None or a function such as tapete.load_game, got {load_game!r}"
        )
    try:
        return _replay(record, load_game)
    except ParseError as error:
        where = getattr(record, "where", None)
        if where is None:
            raise
        raise ParseError(f"{where}: {error}") from None


def _replay(record: Mapping[str, Any], load_game: Callable[..., Any] | None) -> Any:
    rec = check_fields(dict(record) if isinstance(record, Mapping) else record)
    load = _core.load_game if load_game is None else load_game
    try:
        game = load(rec["game"], **rec["config"])
    except ConfigError as error:
        raise _fail(str(error)) from None
    n = game.num_players()
    if len(rec["returns"]) != n:
        raise _fail(f"{game.name} has {n} seats but the record has {len(rec['returns'])} returns")
    if "bots" in rec and len(rec["bots"]) != n:
        raise _fail(f"{game.name} has {n} seats but the record names {len(rec['bots'])} bots")
    if "arena" in rec:
        arena = rec["arena"]
        if (arena["seed"] + arena["deal"]) % (MAX_SEED + 1) != rec["seed"]:
            raise _fail(
                f"its arena deal {arena['deal']} from seed {arena['seed']} is not its seed "
                f"{rec['seed']} (the game's seed is the arena's seed + the deal)"
            )
        if arena["rotation"] >= n:
            raise _fail(f"arena rotation {arena['rotation']}, but {game.name} has {n} seats")
    if "rng" in rec and game.config().get("explicit_chance"):
        raise _fail("an explicit-chance game deals by its chance outcomes: it has no rng")
    try:
        if "decks" in rec:
            state = game.new_initial_state(seed=rec["seed"], decks=rec["decks"])
        else:
            state = game.new_initial_state(seed=rec["seed"])
    except TapeteError as error:
        raise _fail(f"cannot deal: {error}") from None
    for i, text in enumerate(rec["actions"]):
        try:
            action = state.string_to_action(text)
            state.apply_action(action)
        except IllegalActionError as error:
            raise _fail(f"action {i} {_shown.repr(text)} is not legal there: {error}") from None
        except TapeteError as error:
            raise _fail(f"action {i} {_shown.repr(text)}: {error}") from None
    over = state.is_terminal()
    if over != rec.get("terminal", True):
        if over:
            raise _fail("the game is over after its actions, yet the record says it is not")
        raise _fail(
            f"the game is not over after its {len(rec['actions'])} actions "
            '(an unfinished game says "terminal": false)'
        )
    got = state.returns()
    if any(
        not math.isclose(a, b, rel_tol=1e-12, abs_tol=1e-9) for a, b in zip(got, rec["returns"])
    ):
        raise _fail(f"it records returns {rec['returns']} but the game replays to {got}")
    if "rng" in rec:
        # The RNG of the deals to come (a resampled state): set through the serialized state.
        saved = json.loads(state.serialize())
        saved["rng"] = rec["rng"]
        state = game.deserialize_state(json.dumps(saved))
    return state


# --------------------------------------------------------------------------------------------
# Files


def _path(path: object) -> str:
    """``path`` (a str, bytes or `os.PathLike`) as a str; a `TypeError` for anything else."""
    try:
        return os.fsdecode(path)  # type: ignore[arg-type]
    except TypeError:
        raise TypeError(
            f"a records path must be a str, bytes or os.PathLike, got {type(path).__name__}"
        ) from None


def _gzipped(path: str) -> bool:
    return path.endswith(".gz")


def _no_constant(name: str) -> float:
    raise ValueError(f"{name} is not a number JSON allows")


class _Upto(io.RawIOBase):
    """The first ``size`` bytes of a binary file, then its end."""

    def __init__(self, raw: io.FileIO, size: int) -> None:
        self.raw, self.left = raw, size

    def readable(self) -> bool:
        return True

    def readinto(self, buffer: Any) -> int:
        view = memoryview(buffer).cast("B")[: self.left]
        n = self.raw.readinto(view) or 0
        self.left -= n
        return n

    def close(self) -> None:
        self.raw.close()
        super().close()


def _open_text(path: str) -> tuple[io.TextIOWrapper, io.FileIO]:
    """``path`` as text (gunzipped when it ends in ``.gz``), and the file under it, which the
    caller closes (a `gzip.GzipFile` leaves it open). A regular file is read only up to the
    size it had when opened: lines appended meanwhile (a `write` of what is being read, to the
    same file) are not read, so that such a copy ends."""
    raw = open(path, "rb", buffering=0)
    try:
        info = os.fstat(raw.fileno())
        binary: Any = io.BufferedReader(
            _Upto(raw, info.st_size) if stat.S_ISREG(info.st_mode) else raw
        )
        if _gzipped(path):
            binary = gzip.GzipFile(fileobj=binary, mode="rb")
        return io.TextIOWrapper(binary, encoding="utf-8"), raw
    except BaseException:
        raw.close()
        raise


def enumerate_records(path: Path) -> Iterator[tuple[int, dict[str, Any]]]:
    """``(line number, record)`` for every record of the JSON Lines file ``path`` (gzip when
    it ends in ``.gz``), blank lines skipped; the lines the file held when reading began. A
    line that is not a JSON object with the fields of a record (a truncated line, say) is a
    `tapete.ParseError` naming the file and line, and so is a line longer than `MAX_LINE`
    characters, read no further (a file that is no records file, or a gzip bomb, must not take
    the memory of the machine)."""
    path = _path(path)
    opened, raw = _open_text(path)
    number = 0
    with raw, opened as lines:
        try:
            while line := lines.readline(MAX_LINE + 1):
                number += 1
                if len(line) > MAX_LINE:
                    raise ParseError(
                        f"{path}: line {number}: longer than {MAX_LINE:,} characters: not a record"
                    )
                if not line.strip():
                    continue
                try:
                    # without its end of line, whose position an error would otherwise name
                    obj = json.loads(line.rstrip("\r\n"), parse_constant=_no_constant)
                except RecursionError:
                    raise ParseError(
                        f"{path}: line {number}: not JSON: nested too deeply"
                    ) from None
                except ValueError as error:
                    cut = "" if line.endswith("\n") else " (the line is truncated)"
                    reason = (
                        f"{error.msg.removesuffix(' at')} at column {error.colno}"
                        if isinstance(error, json.JSONDecodeError)
                        else str(error)
                    )
                    raise ParseError(f"{path}: line {number}: not JSON{cut}: {reason}") from None
                try:
                    rec = check_fields(obj)
                except ParseError as error:
                    raise ParseError(f"{path}: line {number}: {error}") from None
                yield number, rec
        except (EOFError, OSError, UnicodeDecodeError, zlib.error) as error:
            # a gzip stream cut short or corrupt, bytes that are not UTF-8
            raise ParseError(f"{path}: line {number + 1}: unreadable: {error}") from None


class Record(dict[str, Any]):
    """A record as `read` gives it: a plain dict that also knows where it was read
    (``where``: the file and line), so that `replay` names them in its errors."""

    where: str


def read(path: Path) -> Iterator[dict[str, Any]]:
    """The records of the JSON Lines file ``path`` (``.jsonl``, or gzip ``.jsonl.gz``), in
    order. Each has the fields of a record (or a `tapete.ParseError` names the file and line);
    `replay` checks that it replays, and names the file and line when it does not."""
    name = _path(path)
    for number, rec in enumerate_records(name):
        out = Record(rec)
        out.where = f"{name}: line {number}"
        yield out


def check(path: Path, *, load_game: Callable[..., Any] | None = None) -> int:
    """Replays every record of ``path`` (`replay`) and gives how many there are; the first bad
    one is a `tapete.ParseError` naming the file and line."""
    count, name = 0, _path(path)
    for number, rec in enumerate_records(name):
        try:
            replay(rec, load_game=load_game)
        except ParseError as error:
            raise ParseError(f"{name}: line {number}: {error}") from None
        count += 1
    return count


def _is_state(item: object) -> bool:
    return not isinstance(item, Mapping) and hasattr(item, "serialize")


def unwritable(path: Path) -> str | None:
    """Why records could not be appended to ``path`` (a directory, no such directory, no
    permission, a name the system refuses), or ``None``; never opens or makes the file itself
    and leaves none, so that a run can check its file first. Where the file is new, the
    directory is asked by making a file of another name in it and removing it: the system's
    own answer (a directory root may write to by its mode can still refuse files, as
    ``/proc`` does)."""
    target = _path(path)
    try:
        os.fsencode(target)  # a lone surrogate has no bytes
    except UnicodeError as error:
        return f"not a file name this system takes: {error}"
    if "\x00" in target:
        return "not a file name this system takes: it holds a NUL byte"
    if os.path.isdir(target):
        return "it is a directory"
    if os.path.exists(target):  # a file, or a pipe or device the writer will open
        return None if os.access(target, os.W_OK) else "permission denied"
    parent = os.path.dirname(os.path.abspath(target))
    if not os.path.isdir(parent):
        above = parent
        while not os.path.exists(above) and os.path.dirname(above) != above:
            above = os.path.dirname(above)
        if os.path.exists(above) and not os.path.isdir(above):
            return f"{above} is not a directory"
        return "no such directory"
    try:
        longest = os.pathconf(parent, "PC_NAME_MAX")
    except (OSError, ValueError, AttributeError):  # no such limit to ask for (Windows)
        longest = 255
    if len(os.fsencode(os.path.basename(target))) > longest:
        return f"the file name is longer than the {longest} bytes this file system takes"
    try:
        probe, name = tempfile.mkstemp(prefix=".tapete-", dir=parent)
    except OSError as error:  # no permission, a read-only file system, ...
        return "permission denied" if isinstance(error, PermissionError) else error.strerror
    os.close(probe)
    os.remove(name)
    return None


def check_destination(path: object) -> None:
    """A `tapete.ConfigError` unless records can be appended to ``path``: checked before a run
    plays anything (and leaves no file)."""
    if not isinstance(path, str | bytes | os.PathLike) or not os.fspath(path):
        raise ConfigError(f"records must be a file path or None, got {_shown.repr(path)}")
    why = unwritable(path)
    if why is not None:
        raise ConfigError(f"cannot write records to {_shown.repr(_path(path))}: {why}")


def write(path: Path, states_or_records: Any) -> int:
    """Appends records to the JSON Lines file ``path`` (gzip when it ends in ``.gz``; a new
    gzip member per call, which readers see as one stream) and gives how many were written.

    ``states_or_records``: a state or a record, or an iterable of them; a state is written as
    its `record`, a record (a mapping) after `check_fields`. One line per game, written as each
    item comes, so a generator is streamed."""
    items: Iterable[Any] = (
        [states_or_records]
        if isinstance(states_or_records, Mapping) or _is_state(states_or_records)
        else states_or_records
    )
    if isinstance(items, (str, bytes)) or not isinstance(items, Iterable):
        raise TypeError(f"write takes states or records, got {type(states_or_records).__name__}")
    path = _path(path)
    check_destination(path)
    opened = (
        gzip.open(path, "at", encoding="utf-8", compresslevel=6)
        if _gzipped(path)
        else open(path, "a", encoding="utf-8")
    )
    count = 0
    with opened as out:
        for item in items:
            if _is_state(item):
                rec = record(item)
            elif isinstance(item, Mapping):
                rec = check_fields(dict(item))
            else:
                raise TypeError(f"write takes states or records, got {type(item).__name__}")
            try:
                line = json.dumps(rec, separators=(",", ":"), allow_nan=False)
            except (ValueError, TypeError, RecursionError) as error:
                raise _fail(f"it cannot be written as JSON: {error}") from None
            out.write(line + "\n")
            count += 1
    return count
