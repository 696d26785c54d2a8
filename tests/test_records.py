"""Game records (docs/records.md): write/read/replay for every game and both implementations,
the JSON Schema, every ParseError naming its line, arena and self-play records."""

from __future__ import annotations

import gzip
import importlib
import itertools
import json
import random
import re
from pathlib import Path
from typing import Any

import jsonschema
import numpy as np
import pytest

import tapete
import tapete.reference
from tapete import ParseError, records

GAMES = tapete.list_games()
IMPLS = {"engine": tapete, "reference": tapete.reference}
VALIDATOR = jsonschema.Draft202012Validator(records.schema())


def played(impl: Any, name: str, seed: int, moves: int | None = None, **config: Any) -> Any:
    """A game of ``impl`` played at random from ``seed`` (``moves`` actions, or to the end)."""
    state = impl.load_game(name, **config).new_initial_state(seed=seed)
    rng = random.Random(seed)
    while not state.is_terminal() and (moves is None or len(state.history()) < moves):
        state.apply_action(rng.choice(state.legal_actions()))
    return state


def play_out(state: Any, rng: random.Random) -> None:
    """Plays ``state`` to the end: chance outcomes by their probabilities, decisions at
    random."""
    while not state.is_terminal():
        if state.is_chance_node():
            outcomes, weights = zip(*state.chance_outcomes(), strict=True)
            state.apply_action(rng.choices(outcomes, weights)[0])
        else:
            state.apply_action(rng.choice(state.legal_actions()))


def valid(rec: dict[str, Any]) -> dict[str, Any]:
    VALIDATOR.validate(rec)
    return rec


@pytest.fixture(scope="module")
def finished() -> dict[tuple[str, str], Any]:
    """One finished game per (implementation, game): the same game in both."""
    return {(i, g): played(IMPLS[i], g, seed=11) for i in IMPLS for g in GAMES}


# ---- round trips ----------------------------------------------------------------------------


@pytest.mark.parametrize("suffix", [".jsonl", ".jsonl.gz"])
@pytest.mark.parametrize("impl", sorted(IMPLS))
@pytest.mark.parametrize("name", GAMES)
def test_round_trip(
    tmp_path: Path, finished: dict[tuple[str, str], Any], impl: str, name: str, suffix: str
) -> None:
    state = finished[(impl, name)]
    n = state.num_players() if impl == "engine" else len(state.returns())
    rec = valid(records.record(state, bots=[f"bot{s}" for s in range(n)]))
    assert rec["game"] == name and rec["seed"] == 11 and "decks" not in rec
    assert rec["config"] == IMPLS[impl].load_game(name).config()
    assert rec["actions"] == [state.action_to_string(a) for a in state.history()]
    assert rec["returns"] == state.returns() and rec["terminal"] is True
    assert rec["length"] == len(rec["actions"]) and rec["tapete"] == records.version()
    path = tmp_path / f"games{suffix}"
    assert records.write(path, state) == 1
    assert records.write(path, [rec, rec]) == 2  # appends
    back = list(records.read(path))
    assert back[1:] == [rec, rec]
    assert back[0] == {k: v for k, v in rec.items() if k != "bots"}
    if suffix == ".jsonl.gz":
        with gzip.open(path, "rt") as f:  # plain gzip: any tool reads it
            assert len(f.read().splitlines()) == 3
    for other in IMPLS.values():  # the same record replays on both implementations
        final = records.replay(rec, load_game=other.load_game)
        assert final.returns() == state.returns() and final.history() == state.history()
        if other is IMPLS[impl]:
            assert final == state
    assert records.check(path) == 3
    assert records.check(path, load_game=tapete.reference.load_game) == 3
    # the engine and the reference write the same record of the same game
    assert rec == records.record(
        finished[("reference" if impl == "engine" else "engine", name)], bots=rec["bots"]
    )


EXPLICIT = {
    "spoil_five": {"num_deals": 2},
    "cicera": {"game_mode": "single_hand"},
    "cau_robat": {"players": 3},
    "cuajo": {"max_turns": 30},
}


@pytest.mark.parametrize("impl", sorted(IMPLS))
@pytest.mark.parametrize("name", GAMES)
def test_explicit_chance_round_trip(tmp_path: Path, impl: str, name: str) -> None:
    """With explicit chance the record's actions hold the chance outcomes ("dealer 2",
    "deal 7H"), each named where it was taken, and replay on both implementations."""
    state = (
        IMPLS[impl]
        .load_game(name, explicit_chance=True, **EXPLICIT[name])
        .new_initial_state(seed=5)
    )
    play_out(state, random.Random(5))
    rec = valid(records.record(state))
    assert rec["config"]["explicit_chance"] is True and "decks" not in rec
    assert rec["actions"][0].startswith("dealer ")  # the random first dealer, then the cards
    assert sum(a.startswith("deal ") for a in rec["actions"]) > 0
    path = tmp_path / "chance.jsonl"
    records.write(path, [rec])
    for other in IMPLS.values():
        final = records.replay(next(records.read(path)), load_game=other.load_game)
        assert final.returns() == state.returns() and final.history() == state.history()
        with pytest.raises(ParseError, match="an explicit-chance game .* has no rng"):
            records.replay({**rec, "rng": 5}, load_game=other.load_game)


@pytest.mark.parametrize(
    ("name", "config"),
    [
        ("spoil_five", {"players": 5, "jinking": False, "partnerships": "none", "num_deals": 2}),
        ("spoil_five", {"players": 6, "partnerships": [[0, 3], [1, 4], [2, 5]], "num_deals": 1}),
        ("cicera", {"game_mode": "single_hand", "first_dealer": 2}),
        ("cau_robat", {"players": 3, "hands_to_win": 2}),
        ("cuajo", {"hands_per_match": 2, "returns": "individual"}),
    ],
)
def test_round_trip_of_other_configs(name: str, config: dict[str, Any]) -> None:
    for impl in IMPLS.values():
        state = played(impl, name, seed=21, **config)
        rec = valid(records.record(state))
        assert {k: rec["config"][k] for k in config} == config
        for other in IMPLS.values():
            assert records.replay(rec, load_game=other.load_game).returns() == state.returns()


@pytest.mark.parametrize("name", GAMES)
def test_unfinished_game(name: str) -> None:
    state = played(tapete, name, seed=4, moves=9)
    rec = valid(records.record(state))
    assert rec["terminal"] is False and rec["length"] == 9 and "bots" not in rec
    again = records.replay(rec)
    assert again == state and not again.is_terminal()
    del rec["terminal"]  # a record without the flag is a finished game: its actions stop early
    with pytest.raises(ParseError, match="not over after its 9 actions"):
        records.replay(rec)


def test_states_the_seed_does_not_rebuild_record_their_decks() -> None:
    game = tapete.load_game("spoil_five")
    deck = json.loads(game.new_initial_state(seed=99).serialize())["decks"][0]
    state = game.new_initial_state(seed=5, deck=deck)  # dealt from a given deck
    while not state.is_terminal():
        state.apply_action(state.legal_actions()[-1])
    rec = valid(records.record(state))
    assert rec["decks"][0] == deck and len(rec["decks"]) >= 2
    assert records.replay(rec) == state
    # a determinisation re-deals the hidden cards of the current deal
    mid = played(tapete, "cicera", seed=3, moves=30)
    world = mid.resample_from_infostate(0, seed=8)
    rec = valid(records.record(world))
    assert "decks" in rec and "rng" in rec  # and the RNG of its deals to come
    assert records.replay(rec) == world
    assert records.replay(rec, load_game=tapete.reference.load_game).history() == world.history()
    while not world.is_terminal():  # the same later deals
        world.apply_action(world.legal_actions()[0])
    assert records.replay(valid(records.record(world))) == world
    # the reference model's own determinisation too
    ref_world = played(tapete.reference, "cau_robat", seed=3, moves=5).resample_from_infostate(
        1, seed=8
    )
    rec = valid(records.record(ref_world))
    assert records.replay(rec, load_game=tapete.reference.load_game).history() == (
        ref_world.history()
    )


def test_record_arguments() -> None:
    state = played(tapete, "cau_robat", seed=1)
    with pytest.raises(ValueError, match="one bot per seat: 4 seats, got 2"):
        records.record(state, bots=["a", "b"])
    with pytest.raises(TypeError, match="sequence of strings"):
        records.record(state, bots="random")  # type: ignore[arg-type]
    with pytest.raises(TypeError, match="from a tapete State"):
        records.record("state")  # type: ignore[arg-type]
    with pytest.raises(TypeError, match="states or records"):
        records.write("unused.jsonl", 42)
    with pytest.raises(TypeError, match="load_game must be None or a function"):
        records.replay(records.record(state), load_game=5)  # type: ignore[arg-type]


def test_write_checks_records_before_writing(tmp_path: Path) -> None:
    path = tmp_path / "r.jsonl"
    good = records.record(played(tapete, "cau_robat", seed=2))
    with pytest.raises(ParseError, match="missing field returns"):
        records.write(path, [good, {k: v for k, v in good.items() if k != "returns"}])
    assert len(path.read_text().splitlines()) == 1  # the good record before the bad one
    with pytest.raises(TypeError, match="states or records, got int"):
        records.write(path, [good, 3])


def test_write_refuses_what_json_cannot_hold(tmp_path: Path) -> None:
    path = tmp_path / "r.jsonl"
    good = records.record(played(tapete, "cau_robat", seed=2))
    for bad in ({**good, "config": {"players": float("nan")}}, {**good, "note": object()}):
        with pytest.raises(ParseError, match="cannot be written as JSON"):
            records.write(path, bad)
    assert not path.read_text()


@pytest.mark.parametrize("impl", sorted(IMPLS))
@pytest.mark.parametrize("name", sorted(EXPLICIT))
def test_resampled_explicit_chance_states_replay_from_their_record(
    tmp_path: Path, name: str, impl: str
) -> None:
    """A resampled world's undealt cards differ from the seed's, but with explicit chance the
    actions hold every card dealt: its record has no decks (which such a game refuses), and
    the state it replays to is the world (the moves make an explicit state)."""
    game = IMPLS[impl].load_game(name, explicit_chance=True, **EXPLICIT[name])
    for seed in range(2 if impl == "reference" else 4):
        state = game.new_initial_state(seed=seed)
        rng = random.Random(seed)
        for _ in range(40 + seed):
            state.apply_action(rng.choice(state.legal_actions()))
        while state.is_chance_node():
            state.apply_action(state.legal_actions()[0])
        world = state.resample_from_infostate(state.current_player(), seed)
        path = tmp_path / f"{seed}.jsonl"
        records.write(path, world)
        rec = next(records.read(path))
        assert "decks" not in rec
        final = records.replay(rec, load_game=IMPLS[impl].load_game)
        assert final.history() == world.history() and final.view() == world.view()
        assert final == world


@pytest.mark.parametrize("impl", sorted(IMPLS))
def test_explicit_states_are_equal_when_their_moves_are(impl: str) -> None:
    """An explicit state is its moves: the same moves from another seed give an equal state
    (the seeds' placeholders for undealt cards differ); a seeded state's seed is its future."""
    game = IMPLS[impl].load_game("cicera", explicit_chance=True, **EXPLICIT["cicera"])
    one, two = game.new_initial_state(seed=1), game.new_initial_state(seed=2)
    rng = random.Random(1)
    for _ in range(30):
        action = rng.choice(one.legal_actions())
        one.apply_action(action)
        two.apply_action(action)
    assert one == two and one.serialize() != two.serialize()
    two.apply_action(two.legal_actions()[0])
    assert one != two
    seeded = IMPLS[impl].load_game("cicera", **EXPLICIT["cicera"])
    assert seeded.new_initial_state(seed=1) != seeded.new_initial_state(seed=2)


def test_schema_is_shipped_and_matches_the_checks() -> None:
    schema = records.schema()
    assert schema["required"] == list(records.REQUIRED)
    jsonschema.Draft202012Validator.check_schema(schema)
    good = records.record(played(tapete, "cau_robat", seed=2), bots=["random"] * 4)
    good["arena"] = {"seed": 0, "deal": 1, "rotation": 2}
    valid(good)
    records.check_fields(good)
    broken: list[dict[str, Any]] = [
        {k: v for k, v in good.items() if k != key} for key in records.REQUIRED
    ]
    for key, value in [
        ("game", 3),
        ("config", []),
        ("seed", -1),
        ("seed", 2**64),
        ("seed", 1.5),
        ("actions", ["play 3", 4]),
        ("returns", []),
        ("returns", ["1"]),
        ("tapete", None),
        ("decks", []),
        ("decks", [["AH", 3]]),
        ("terminal", "yes"),
        ("length", -1),
        ("bots", [None]),
        ("arena", {"seed": 0, "deal": 1}),
        ("arena", {"seed": 0, "deal": -1, "rotation": 0}),
        ("arena", {"seed": 0, "deal": 2**64, "rotation": 0}),
    ]:
        broken.append({**good, key: value})
    for rec in broken:
        assert not VALIDATOR.is_valid(rec), rec
        with pytest.raises(ParseError, match="not a valid game record"):
            records.check_fields(rec)


# ---- errors name the line ------------------------------------------------------------------


def tampered(rec: dict[str, Any], case: str) -> dict[str, Any] | str:
    bad = json.loads(json.dumps(rec))
    if case == "returns":
        bad["returns"][0] += 1
    elif case == "game":
        bad["game"] = "poker"
    elif case == "config":
        bad["config"]["no_such_option"] = 1
    elif case == "config_name":
        bad["config"]["name"] = "x"  # not load_game's argument: an unknown option
    elif case == "action":
        bad["actions"][3] = "fly away"
    elif case == "illegal":
        first = tapete.load_game(rec["game"]).new_initial_state(seed=rec["seed"])
        legal = first.legal_actions()
        bad["actions"][0] = first.action_to_string(min(set(range(10)) - set(legal)))
    elif case == "extra":
        bad["actions"].append(bad["actions"][-1])
        bad["length"] += 1
    elif case == "missing":
        del bad["seed"]
    elif case == "seats":
        bad["bots"] = ["random"]
    elif case == "length":
        bad["length"] = 2
    elif case == "deck":
        bad["decks"] = [["AH"]]
    elif case == "arena_seed":
        bad["arena"] = {"seed": rec["seed"], "deal": 1, "rotation": 0}
    elif case == "rotation":
        bad["arena"] = {"seed": rec["seed"], "deal": 0, "rotation": 4}
    elif case == "json":
        return json.dumps(rec)[:-1] + "\n"
    elif case == "array":
        return "[1, 2]\n"
    elif case == "deep":
        return "[" * 100_000 + "\n"
    elif case == "huge":
        return json.dumps(rec).replace('"returns": [', '"returns": [1' + "0" * 400 + ", ") + "\n"
    elif case == "nan":
        return json.dumps(rec).replace('"returns": [', '"returns": [NaN, ') + "\n"
    return bad


CASES = {
    "returns": "records returns .* but the game replays to",
    "game": "unknown game .poker.",
    "config": "no_such_option",
    "config_name": "name",
    "action": "action 3 'fly away'",
    "illegal": "action 0 .* is not legal there",
    "extra": "is not legal there",
    "missing": "missing field seed",
    "seats": "4 seats but the record names 1 bots",
    "length": "length 2 but 36 actions",
    "deck": "cannot deal",
    "arena_seed": "its arena deal 1 from seed 6 is not its seed 6",
    "rotation": "arena rotation 4, but cau_robat has 4 seats",
    "json": "not JSON",
    "array": "a game record is a JSON object",
    "nan": "not JSON: NaN is not a number",
    "huge": "field 'returns' must be a list of numbers",  # was an OverflowError
    "deep": "not JSON: nested too deeply",
}


#: the cases that reading alone (the fields, not the replay) finds
READ_CASES = {"missing", "length", "json", "array", "nan", "deep", "huge"}


@pytest.mark.parametrize("case", sorted(CASES))
def test_a_bad_record_is_a_parse_error_naming_its_line(tmp_path: Path, case: str) -> None:
    rec = records.record(played(tapete, "cau_robat", seed=6), bots=["random"] * 4)
    assert rec["length"] == 36
    bad = tampered(rec, case)
    path = tmp_path / "games.jsonl"
    records.write(path, [rec, rec])
    with open(path, "a") as f:
        f.write("\n")  # a blank line is skipped, and still counted
        f.write(bad if isinstance(bad, str) else json.dumps(bad) + "\n")
    records.write(path, rec)
    pattern = rf"^{re.escape(str(path))}: line 4: .*{CASES[case]}"
    with pytest.raises(ParseError, match=pattern):
        records.check(path)
    with pytest.raises(ParseError, match=pattern):  # both implementations refuse it
        records.check(path, load_game=tapete.reference.load_game)
    if case not in READ_CASES:
        assert isinstance(bad, dict)
        with pytest.raises(ParseError, match=CASES[case]):
            records.replay(bad)  # without a file, the same reason
        assert len(list(records.read(path))) == 4  # read checks only the fields
        with pytest.raises(ParseError, match=pattern):  # a record read names its line
            [records.replay(r) for r in records.read(path)]
    else:
        with pytest.raises(ParseError, match=pattern):
            list(records.read(path))


def test_a_json_error_names_its_column_on_the_line(tmp_path: Path) -> None:
    path = tmp_path / "cut.jsonl"
    path.write_text('{"game": "cicera",\n')  # cut short, yet ending its line
    with pytest.raises(
        ParseError, match=r"line 1: not JSON: Expecting property name .* column 19$"
    ):
        list(records.read(path))


def test_a_huge_action_is_cut_in_the_message() -> None:
    rec = records.record(played(tapete, "cau_robat", seed=6))
    rec["actions"][2] = "x" * 10**6
    with pytest.raises(ParseError, match=r"action 2 'xxx.*\.\.\.") as error:
        records.replay(rec)
    assert len(str(error.value)) < 1000


def test_truncated_files(tmp_path: Path) -> None:
    rec = records.record(played(tapete, "cau_robat", seed=6))
    plain = tmp_path / "cut.jsonl"
    records.write(plain, [rec, rec, rec])
    text = plain.read_text()
    plain.write_text(text[: len(text) - 40])
    with pytest.raises(ParseError, match=rf"^{plain}: line 3: not JSON \(the line is truncated\)"):
        list(records.read(plain))
    lines = text.splitlines(keepends=True)  # a line cut short in the middle of the file
    plain.write_text(lines[0] + lines[1][:-40] + "\n" + lines[2])
    with pytest.raises(ParseError, match=rf"^{plain}: line 2: not JSON: \w[\w ]+ at column \d+$"):
        list(records.read(plain))
    packed = tmp_path / "cut.jsonl.gz"
    records.write(packed, [rec] * 50)
    data = packed.read_bytes()
    packed.write_bytes(data[: len(data) // 2])
    with pytest.raises(ParseError, match=rf"^{packed}: line \d+: "):
        records.check(packed)
    garbage = tmp_path / "not.jsonl.gz"
    garbage.write_bytes(b"this is no gzip stream\n")
    with pytest.raises(ParseError, match=rf"^{garbage}: line 1: unreadable"):
        list(records.read(garbage))
    latin = tmp_path / "latin.jsonl"
    latin.write_bytes(b'{"game": "caf\xe9"}\n')
    with pytest.raises(ParseError, match=rf"^{latin}: line 1: unreadable"):
        list(records.read(latin))
    with pytest.raises(FileNotFoundError):
        list(records.read(tmp_path / "missing.jsonl"))


@pytest.mark.parametrize("suffix", [".jsonl", ".jsonl.gz"])
def test_a_line_too_long_is_refused_unread(
    tmp_path: Path, suffix: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    # a gzip bomb of one endless line once took the machine's memory: the reader stops at
    # MAX_LINE characters (lowered here so that the test writes little)
    rec = records.record(played(tapete, "cau_robat", seed=6))
    path = tmp_path / f"long{suffix}"
    records.write(path, [rec])
    with gzip.open(path, "at") if suffix.endswith(".gz") else path.open("a") as out:
        out.write("x" * 5000)
    assert records.MAX_LINE >= 2**20  # the real bound is far above any record
    monkeypatch.setattr(records, "MAX_LINE", len(json.dumps(rec)) + 100)
    with pytest.raises(ParseError, match=rf"^{path}: line 2: longer than [\d,]+ characters"):
        list(records.read(path))


def test_paths_as_bytes_and_path_like(tmp_path: Path) -> None:
    rec = records.record(played(tapete, "cicera", seed=2))
    for path in (bytes(tmp_path / "b.jsonl"), tmp_path / "p.jsonl.gz", str(tmp_path / "s.jsonl")):
        assert records.write(path, [rec]) == 1
        assert list(records.read(path)) == [rec] and records.check(path) == 1
    with pytest.raises(TypeError, match="a records path must be a str, bytes or os.PathLike"):
        list(records.read(42))  # type: ignore[arg-type]


@pytest.mark.parametrize("suffix", [".jsonl", ".jsonl.gz"])
def test_a_file_written_to_itself_is_copied_once(tmp_path: Path, suffix: str) -> None:
    # Larger than any read buffer: the reader would otherwise meet the lines being appended.
    path = tmp_path / f"self{suffix}"
    originals = list(records.selfplay_records(tapete.load_game("cicera"), 40, seed=0))
    assert records.write(path, originals) == 40
    assert path.stat().st_size > 100_000 or suffix.endswith(".gz")
    # (islice: a reader that saw the appended lines would otherwise copy them forever)
    assert records.write(path, itertools.islice(records.read(path), 100)) == 40
    assert list(records.read(path)) == originals * 2


@pytest.mark.parametrize(
    ("name", "why"),
    [
        ("\ud800.jsonl", "not a file name this system takes"),  # a lone surrogate
        ("a\x00b.jsonl", "not a file name this system takes"),  # a NUL byte
        ("x" * 300 + ".jsonl", "longer than the"),
        ("missing/x.jsonl", "no such directory"),
    ],
)
def test_a_path_records_cannot_be_written_to_is_a_config_error_first(
    tmp_path: Path, name: str, why: str
) -> None:
    path = str(tmp_path / name)
    rec = records.record(played(tapete, "cau_robat", seed=1))
    with pytest.raises(tapete.ConfigError, match=f"cannot write records to .*: .*{why}"):
        records.write(path, [rec])
    with pytest.raises(tapete.ConfigError, match="cannot write records to"):
        tapete.arena("cau_robat", ["random"] * 4, 2, records=path)
    assert records.unwritable(path) is not None and list(tmp_path.iterdir()) == []


def test_a_destination_under_a_file_says_so(tmp_path: Path) -> None:
    (tmp_path / "file").write_text("")
    for under in ("x.jsonl", "more/x.jsonl"):
        assert (
            records.unwritable(tmp_path / "file" / under) == f"{tmp_path}/file is not a directory"
        )


def test_checking_a_destination_makes_no_file(tmp_path: Path) -> None:
    path = tmp_path / "new.jsonl"
    assert records.unwritable(path) is None and list(tmp_path.iterdir()) == []
    rec = records.record(played(tapete, "cau_robat", seed=1))
    records.write(path, [rec])
    before = path.read_bytes()
    assert records.unwritable(path) is None and path.read_bytes() == before
    # a link to a file not made yet is written through, as open() does
    link, target = tmp_path / "link.jsonl", tmp_path / "target.jsonl"
    link.symlink_to(target)
    assert records.unwritable(link) is None and records.write(link, [rec]) == 1
    assert list(records.read(target)) == [rec]


# ---- arena and self-play --------------------------------------------------------------------


def arena_values(recs: list[dict[str, Any]], n: int, rotations: int) -> np.ndarray:
    """Each entry's mean return per deal, from the replayed records, as the arena adds them."""
    values = np.zeros((len(recs) // rotations, n))
    for rec in recs:
        final = records.replay(rec)
        info = rec["arena"]
        for s, value in enumerate(final.returns()):
            values[info["deal"], (s + info["rotation"]) % n] += value / rotations
    return values


@pytest.mark.parametrize("name", GAMES)
def test_arena_records_are_the_games_played(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, name: str
) -> None:
    game = tapete.load_game(name)
    n = game.num_players()
    specs = ["heuristic"] + ["random"] * (n - 1)
    monkeypatch.setattr(
        importlib.import_module("tapete.arena"), "RECORD_CHUNK", 2
    )  # several native calls
    path = tmp_path / "arena.jsonl.gz"
    res = tapete.arena(name, specs, 3, seed=40, records=str(path))
    recs = [valid(r) for r in records.read(path)]
    assert len(recs) == res.games == 3 * n
    assert [(r["arena"]["deal"], r["arena"]["rotation"]) for r in recs] == [
        (d, r) for d in range(3) for r in range(n)
    ]
    for rec in recs:
        d, r = rec["arena"]["deal"], rec["arena"]["rotation"]
        assert rec["seed"] == 40 + d and rec["arena"]["seed"] == 40
        assert rec["bots"] == [specs[(s + r) % n] for s in range(n)]
    assert np.array_equal(arena_values(recs, n, n), res.values)
    assert res.actions == sum(r["length"] for r in recs)
    plain = tapete.arena(name, specs, 3, seed=40)  # records change nothing
    assert np.array_equal(plain.values, res.values)
    two = tmp_path / "two.jsonl.gz"
    tapete.arena(name, specs, 3, seed=40, threads=2, records=two)
    assert list(records.read(two)) == recs


def test_arena_records_without_duplicate_and_with_python_bots(tmp_path: Path) -> None:
    game = tapete.load_game("cau_robat", players=3)

    class Lowest:
        name = "lowest"

        def choose(self, state: tapete.State) -> int:
            return state.legal_actions()[0]

    path = tmp_path / "py.jsonl"
    res = tapete.arena(game, [Lowest(), "heuristic", "random"], 2, seed=7, records=path)
    recs = [valid(r) for r in records.read(path)]
    assert [r["bots"] for r in recs[:3]] == [
        ["lowest", "heuristic", "random"],
        ["heuristic", "random", "lowest"],
        ["random", "lowest", "heuristic"],
    ]
    assert np.array_equal(arena_values(recs, 3, 3), res.values)
    native = tmp_path / "native.jsonl"
    res = tapete.arena(game, ["heuristic"] * 3, 4, seed=7, duplicate=False, records=native)
    recs = list(records.read(native))
    assert [r["arena"]["rotation"] for r in recs] == [0] * 4 and res.games == 4
    assert np.array_equal(arena_values(recs, 3, 1), res.values)
    with pytest.raises(tapete.ConfigError, match="games must be an int"):
        tapete.arena(game, ["random"] * 3, -1, records=tmp_path / "never.jsonl")
    with pytest.raises(tapete.ConfigError):
        tapete.arena(game, ["random"] * 2, 1, records=tmp_path / "never.jsonl")
    assert not (tmp_path / "never.jsonl").exists()  # arguments are checked first


@pytest.mark.parametrize("name", GAMES)
def test_selfplay_records_are_the_native_games(name: str) -> None:
    game = tapete.load_game(name)
    returns, lengths = game.play_random(4, seed=2**64 - 2)  # the seeds wrap around
    recs = [valid(r) for r in records.selfplay_records(game, 4, seed=2**64 - 2)]
    assert [r["seed"] for r in recs] == [2**64 - 2, 2**64 - 1, 0, 1]
    for rec, ret, length in zip(recs, returns, lengths, strict=True):
        assert records.replay(rec).returns() == list(ret) == rec["returns"]
        assert rec["length"] == length and rec["bots"] == ["random"] * game.num_players()


@pytest.mark.parametrize(
    ("games", "seed", "what"),
    [(-1, 0, "games"), (True, 0, "games"), (1.0, 0, "games"), (1, -1, "seed"), (1, True, "seed")],
)
def test_selfplay_records_check_their_arguments_first(games: Any, seed: Any, what: str) -> None:
    game = tapete.load_game("cau_robat")
    with pytest.raises(tapete.ConfigError, match=f"^{what} must be"):
        records.selfplay_records(game, games, seed)  # before any record is asked for
    assert len(list(records.selfplay_records(game, np.int64(2), np.uint64(3)))) == 2


def test_version_and_schema_files() -> None:
    assert isinstance(records.version(), str) and records.version()
    assert records.schema()["title"] == "tapete game record"


def test_the_docs_show_the_shipped_schema() -> None:
    doc = (Path(__file__).parent.parent / "docs" / "records.md").read_text()
    block = re.search(r"```json\n(\{\n  \"\$schema\".*?)\n```", doc, re.S)
    assert block is not None
    assert json.loads(block.group(1)) == records.schema()
