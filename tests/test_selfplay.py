"""tapete.selfplay, the local self-play that tapete.distributed.selfplay reproduces."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import numpy as np
import pytest

import tapete
from tapete import ConfigError

CAU = {"players": 3}


def test_random_selfplay_is_play_random() -> None:
    game = tapete.load_game("cau_robat", **CAU)
    returns, lengths = game.play_random(60, 9)
    for threads in (1, 2):
        res = tapete.selfplay("cau_robat", 60, seed=9, threads=threads, **CAU)
        assert np.array_equal(res.returns, returns) and np.array_equal(res.lengths, lengths)
    assert res.bots == ["random"] * 3
    assert (res.games, res.actions) == (60, int(lengths.sum()))


def test_bot_selfplay_is_the_arena_without_duplicate() -> None:
    bots = ["heuristic", "random", "random"]
    arena = tapete.arena("cau_robat", bots, 25, seed=4, duplicate=False, **CAU)
    res = tapete.selfplay("cau_robat", 25, seed=4, bots=bots, threads=2, **CAU)
    assert np.array_equal(res.returns, arena.values)
    assert (res.games, res.actions) == (arena.games, arena.actions)
    one = tapete.selfplay("cau_robat", 25, seed=4, bots="heuristic", **CAU)
    every = tapete.arena("cau_robat", ["heuristic"] * 3, 25, seed=4, duplicate=False, **CAU)
    assert np.array_equal(one.returns, every.values)


def test_result_statistics() -> None:
    res = tapete.selfplay("cau_robat", 40, seed=1, **CAU)
    out = res.to_dict()
    assert out["mean"] == pytest.approx(res.returns.mean(axis=0).tolist())
    half = 1.959963984540054 * res.returns.std(axis=0, ddof=1) / np.sqrt(40)
    assert out["ci95"] == pytest.approx(half.tolist())
    assert {k: out[k] for k in ("game", "games", "seed", "actions")} == {
        "game": "cau_robat",
        "games": 40,
        "seed": 1,
        "actions": res.actions,
    }
    empty = tapete.selfplay("cau_robat", 0, bots="heuristic", **CAU)
    assert empty.returns.shape == (0, 3) and empty.games == 0
    # means and intervals that do not exist are None, as strict JSON has no NaN or infinity
    for res, mean in ((empty, [None] * 3), (tapete.selfplay("cau_robat", 1, **CAU), None)):
        out = res.to_dict()
        assert json.loads(json.dumps(out, allow_nan=False)) == out
        assert out["ci95"] == [None] * 3 and (mean is None or out["mean"] == mean)


def test_records(tmp_path: Path) -> None:
    records = pytest.importorskip("tapete.records")
    game = tapete.load_game("cau_robat", **CAU)
    path = tmp_path / "random.jsonl"
    tapete.selfplay(game, 5, seed=2, records=path)
    assert list(records.read(path)) == list(records.selfplay_records(game, 5, 2))
    path = tmp_path / "bots.jsonl.gz"
    res = tapete.selfplay(game, 5, seed=2, bots=["random", "heuristic", "random"], records=path)
    recs = list(records.read(path))
    assert [rec["seed"] for rec in recs] == [2, 3, 4, 5, 6]
    assert all(rec["bots"] == ["random", "heuristic", "random"] for rec in recs)
    assert [records.replay(rec).returns() for rec in recs] == res.returns.tolist()


def test_numpy_integers_are_counts_and_seeds(tmp_path: Path) -> None:
    """Seeds and counts of any integer type, as the engine takes them (numpy's bool is none)."""
    a = tapete.selfplay("cau_robat", np.int64(3), seed=np.uint64(2), threads=np.int8(1), **CAU)
    b = tapete.selfplay("cau_robat", 3, seed=2, **CAU)
    assert (a.returns == b.returns).all() and type(a.seed) is int and a.to_dict() == b.to_dict()
    path = tmp_path / "r.jsonl"
    c = tapete.selfplay("cau_robat", np.int32(2), bots="heuristic", records=path, **CAU)
    assert c.games == 2 and len(path.read_text().splitlines()) == 2
    r = tapete.arena("cau_robat", ["random"] * 3, np.int32(2), seed=np.int64(1), **CAU)
    assert r.to_dict() == tapete.arena("cau_robat", ["random"] * 3, 2, seed=1, **CAU).to_dict()
    with pytest.raises(ConfigError):
        tapete.selfplay("cau_robat", np.bool_(True), **CAU)


def test_bad_arguments(tmp_path: Path) -> None:
    class Lowest:
        def choose(self, state: tapete.State) -> int:
            return state.legal_actions()[0]

    cases: list[tuple[dict[str, Any], str]] = [
        ({"bots": [Lowest()] * 3}, "native bot specs"),
        ({"bots": ["random"] * 2}, "one bot per seat"),
        ({"bots": "randomly"}, "unknown bot"),
        ({"games": -1}, "games must be"),
        ({"seed": 2**64}, "seed"),
        ({"threads": 0}, "threads"),
    ]
    for change, message in cases:
        path = tmp_path / "never.jsonl"
        kwargs: dict[str, Any] = {"games": 3, "records": path, **CAU, **change}
        with pytest.raises(ConfigError, match=message):
            tapete.selfplay("cau_robat", **kwargs)
        assert not path.exists()  # checked before the file is touched
    for where in (tmp_path, tmp_path / "no" / "such.jsonl", ""):  # before any game is played
        with pytest.raises(ConfigError, match="records"):
            tapete.selfplay("cau_robat", 3, records=where, **CAU)
        with pytest.raises(ConfigError, match="records"):
            tapete.arena("cau_robat", ["random"] * 3, 3, records=where, **CAU)
    with pytest.raises(ConfigError, match="config options go with a game name"):
        tapete.selfplay(tapete.load_game("cicera"), 2, players=4)
    with pytest.raises(TypeError, match="game must be"):
        tapete.selfplay(3, 2)  # type: ignore[arg-type]


def test_records_do_not_lift_the_games_bound(tmp_path: Path) -> None:
    """With records a run is written in chunks; it takes no more games than without."""
    out = tmp_path / "x.jsonl"
    for bots in ("heuristic", "random"):
        with pytest.raises(ConfigError, match="games must be"):
            tapete.selfplay("cau_robat", 2**63, bots=bots, records=out)
    assert not out.exists()


def test_records_file_name_too_long(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="longer than"):
        tapete.selfplay("cau_robat", 1, records=tmp_path / ("a" * 300 + ".jsonl"))
