"""tapete.distributed on a real Ray cluster: identical to the local runs, whatever the chunks;
a worker killed mid-run changes nothing; Ctrl-C cancels; clear errors instead of hangs.

One Ray head (2 CPUs, 127.0.0.1, a private temp dir) is started for the whole file and killed at
the end whatever happened: its process tree only, never another Ray on the machine. The tests
share it, so they run in one pytest-xdist worker (``xdist_group``, with ``--dist loadgroup``).
"""

from __future__ import annotations

import asyncio
import json
import os
import re
import secrets
import select
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import numpy as np
import pytest

ray = pytest.importorskip("ray")

import tapete  # noqa: E402
import tapete.distributed as td  # noqa: E402
from tapete import ConfigError  # noqa: E402
from tapete.cli import main  # noqa: E402

pytestmark = [
    pytest.mark.xdist_group("ray"),
    pytest.mark.skipif(sys.platform != "linux", reason="the fixture walks /proc"),
]

#: Short games: cau_robat single hands of 3 players, and one-deal Spoil Five.
CAU = {"players": 3}
SPOIL = {"num_deals": 1, "leftover_pool": "split_equally"}
BOTS = ["heuristic", "random", "random"]


# --------------------------------------------------------------------------------------------
# The cluster


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _children() -> dict[int, list[int]]:
    tree: dict[int, list[int]] = {}
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            stat = Path(f"/proc/{entry}/stat").read_text()
        except OSError:
            continue
        ppid = int(stat.rsplit(")", 1)[1].split()[1])
        tree.setdefault(ppid, []).append(int(entry))
    return tree


def _tree(root: int) -> list[int]:
    """``root`` and every process below it (Ray's workers put themselves in their own process
    groups, so the group alone would miss them)."""
    tree, out, todo = _children(), [], [root]
    while todo:
        pid = todo.pop()
        out.append(pid)
        todo.extend(tree.get(pid, []))
    return out


def _kill_tree(proc: subprocess.Popen[str]) -> None:
    for pid in _tree(proc.pid):
        try:
            os.kill(pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
    proc.wait(timeout=30)


AUTH = ("RAY_AUTH_MODE", "RAY_AUTH_TOKEN")


def _set_auth(values: dict[str, str | None]) -> None:
    """Ray's token authentication settings for this process (and the processes it starts):
    the test cluster listens on every interface, so it takes only drivers and workers with its
    token. Ray reads them once, at import; ``Config.initialize`` reads them again, as Ray itself
    does when it turns token authentication on."""
    for key, value in values.items():
        if value is None:
            os.environ.pop(key, None)
        else:
            os.environ[key] = value
    try:
        from ray._raylet import Config
    except ImportError:  # a Ray without token authentication: nothing to set
        return
    Config.initialize("")


#: The Ray Client address (``ray://``) of the test cluster, once the fixture started it.
CLIENT: dict[str, str] = {}


@pytest.fixture(scope="session")
def cluster() -> Iterator[str]:
    """The address of a Ray head started for these tests, this process connected to it (and
    its Ray Client server's address in ``CLIENT``)."""
    ray_cli = Path(sys.executable).with_name("ray")
    if not ray_cli.exists():
        found = shutil.which("ray")
        if found is None:
            pytest.skip("the ray command is not installed")
        ray_cli = Path(found)
    temp = tempfile.mkdtemp(prefix="tapete-ray-")  # short: Ray's socket paths must fit
    port, client_port = _free_port(), _free_port()
    command = [
        str(ray_cli), "start", "--head", "--block", "--node-ip-address", "127.0.0.1",
        "--port", str(port), "--ray-client-server-port", str(client_port), "--num-cpus", "2",
        "--include-dashboard", "false", "--temp-dir", temp, "--disable-usage-stats",
    ]  # fmt: skip
    saved = {key: os.environ.get(key) for key in AUTH}
    _set_auth({"RAY_AUTH_MODE": "token", "RAY_AUTH_TOKEN": secrets.token_hex(32)})
    proc = subprocess.Popen(
        command, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, start_new_session=True
    )
    ready = threading.Event()
    output: list[str] = []

    def pump() -> None:
        assert proc.stdout is not None
        for line in proc.stdout:
            output.append(line)
            if "Ray runtime started" in line:
                ready.set()
        ready.set()  # it ended

    threading.Thread(target=pump, daemon=True).start()
    try:
        if not ready.wait(timeout=120) or proc.poll() is not None:
            pytest.fail("ray start did not start:\n" + "".join(output[-30:]))
        address = f"127.0.0.1:{port}"
        CLIENT["address"] = f"ray://127.0.0.1:{client_port}"
        td.connect(address)
        yield address
    finally:
        ray.shutdown()
        _kill_tree(proc)
        shutil.rmtree(temp, ignore_errors=True)
        _set_auth(saved)


@pytest.fixture
def task(monkeypatch: pytest.MonkeyPatch) -> Callable[..., None]:
    """Replaces the Ray task of tapete.distributed for one test: ``task(function, **options)``
    (the function gets the task's arguments and calls ``td._play`` itself)."""

    def replace(function: Callable[..., Any], **options: Any) -> None:
        remote = ray.remote(**options)(function) if options else ray.remote(function)
        monkeypatch.setattr(td, "_task", remote)

    return replace


# --------------------------------------------------------------------------------------------
# Identical to the local runs


@pytest.mark.parametrize("chunk", [None, 1, 7, 1000])
def test_arena_is_the_local_arena(cluster: str, chunk: int | None) -> None:
    local = tapete.arena("cau_robat", BOTS, 30, seed=11, **CAU)
    res = td.arena("cau_robat", BOTS, 30, seed=11, chunk=chunk, progress=False, **CAU)
    assert np.array_equal(res.values, local.values)
    assert res.to_dict() == local.to_dict()
    assert (res.games, res.actions) == (90, local.actions)


def test_threads_no_duplicate_and_seeds_that_wrap(cluster: str) -> None:
    game = tapete.load_game("spoil_five", **SPOIL)
    bots = ["heuristic", "random", "random", "random"]
    seed = 2**64 - 20  # deals 20 … 39 have game seeds 0 … 19
    local = tapete.arena(game, bots, 40, seed=seed, duplicate=False, threads=2)
    res = td.arena(game, bots, 40, seed=seed, duplicate=False, threads=2, chunk=9)
    assert np.array_equal(res.values, local.values)
    assert res.to_dict() == local.to_dict()
    returns, lengths = game.play_random(40, seed)
    random = td.selfplay(game, 40, seed=seed, chunk=7)
    assert np.array_equal(random.returns, returns) and np.array_equal(random.lengths, lengths)


@pytest.mark.parametrize("chunk", [None, 3, 64])
def test_selfplay_is_the_local_selfplay(cluster: str, chunk: int | None) -> None:
    # all random: Game.play_random's games (tapete selfplay); other bots: the arena's
    for bots in ["random", ["heuristic", "random", "random"]]:
        local = tapete.selfplay("cau_robat", 50, seed=7, bots=bots, **CAU)
        res = td.selfplay("cau_robat", 50, seed=7, bots=bots, chunk=chunk, **CAU)
        assert np.array_equal(res.returns, local.returns)
        assert np.array_equal(res.lengths, local.lengths)
        assert res.to_dict() == local.to_dict()
    returns, lengths = tapete.load_game("cau_robat", **CAU).play_random(50, 7)
    random = td.selfplay("cau_robat", 50, seed=7, chunk=chunk, **CAU)  # tapete selfplay's games
    assert np.array_equal(random.returns, returns) and np.array_equal(random.lengths, lengths)


@pytest.mark.parametrize("suffix", [".jsonl", ".jsonl.gz"])
def test_records_are_the_local_records(cluster: str, tmp_path: Path, suffix: str) -> None:
    records = pytest.importorskip("tapete.records")
    runs: list[tuple[str, Callable[..., Any], Callable[..., Any]]] = [
        ("arena", tapete.arena, td.arena),
        ("random", tapete.selfplay, td.selfplay),
        ("bots", tapete.selfplay, td.selfplay),
    ]
    for name, local_run, distributed_run in runs:
        args: dict[str, Any] = {"seed": 3, **CAU}
        if name == "arena":
            args["bots"] = BOTS
        elif name == "bots":
            args["bots"] = ["random", "heuristic", "random"]
        local_path, ray_path = tmp_path / f"l{name}{suffix}", tmp_path / f"r{name}{suffix}"
        local_run("cau_robat", games=12, records=local_path, **args)
        distributed_run("cau_robat", games=12, records=ray_path, chunk=5, **args)
        local, distributed = list(records.read(local_path)), list(records.read(ray_path))
        assert distributed == local
        assert len(local) == (36 if name == "arena" else 12)
        assert all(records.replay(rec).returns() == rec["returns"] for rec in distributed[:3])


def test_a_ray_client_address_joins_the_same_cluster(cluster: str, tmp_path: Path) -> None:
    """``ray://`` (Ray Client, ``ray[client]``): the driver runs no Ray node of its own, and
    the results and records are still the local run's."""
    local = tapete.arena("cau_robat", BOTS, 12, seed=3, **CAU)
    local_records, client_records = tmp_path / "local.jsonl", tmp_path / "client.jsonl"
    tapete.selfplay("cau_robat", 6, seed=5, bots=BOTS, records=local_records, **CAU)
    ray.shutdown()
    try:
        res = td.arena("cau_robat", BOTS, 12, seed=3, address=CLIENT["address"], **CAU)
        assert ray.util.client.ray.is_connected()  # through the client, not a node
        td.selfplay("cau_robat", 6, seed=5, bots=BOTS, records=client_records, chunk=4, **CAU)
    finally:
        ray.shutdown()
        td.connect(cluster)  # back to the connection the other tests use
    assert np.array_equal(res.values, local.values) and res.to_dict() == local.to_dict()
    assert client_records.read_text() == local_records.read_text()


def test_cli_runs_on_ray(cluster: str, capsys: pytest.CaptureFixture[str]) -> None:
    args = ["arena", "cau_robat", "--players", "3", "--bots", *BOTS, "--games", "20", "--json"]
    assert main(args) == 0
    local = json.loads(capsys.readouterr().out)
    assert main([*args, "--ray", cluster, "--chunk", "6"]) == 0
    distributed = json.loads(capsys.readouterr().out)
    for out in (local, distributed):
        del out["seconds"]
    assert distributed == local

    def seat_rows(argv: list[str]) -> list[str]:
        assert main(argv) == 0
        return [line for line in capsys.readouterr().out.splitlines() if re.match(r"│ +\d │", line)]

    args = ["selfplay", "cicera", "--games", "30", "--seed", "4", "game_mode=single_hand"]
    assert seat_rows([*args, "--ray", cluster]) == seat_rows(args)
    assert len(seat_rows(args)) == 4


def test_cli_records_on_ray(
    cluster: str, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    records = _records()
    from tapete.cli import build_parser

    probe = ["arena", "cicera", "--bots", "random", "--games", "1", "--out", "x.jsonl"]
    if records is None or not hasattr(build_parser().parse_known_args(probe)[0], "out"):
        pytest.skip("this tapete has no records (--out)")
    runs = {
        "arena": ["arena", "cau_robat", "--players", "3", "--bots", *BOTS, "--games", "8"],
        "selfplay": ["selfplay", "cau_robat", "--players", "3", "--games", "30", "--seed", "2"],
    }
    for name, args in runs.items():
        local, distributed = tmp_path / f"{name}.jsonl", tmp_path / f"{name}-ray.jsonl.gz"
        assert main([*args, "--out", str(local)]) == 0
        capsys.readouterr()
        assert main([*args, "--out", str(distributed), "--ray", cluster, "--chunk", "3"]) == 0
        # written by the driver as the tasks play: said so, not timed apart
        told = " ".join(capsys.readouterr().out.split())
        assert f"records appended to {distributed} (written during the run" in told
        # written once, by the Ray run: the same records as the local run's
        assert list(records.read(distributed)) == list(records.read(local))
        assert len(list(records.read(local))) == (24 if name == "arena" else 30)


# --------------------------------------------------------------------------------------------
# Faults


def _records() -> Any:
    """tapete.records, or None on a branch without it (then records are not checked)."""
    try:
        from tapete import records
    except ImportError:
        return None
    return records


def _gate() -> Any:
    """A Ray actor through which tasks announce themselves and wait to be let through."""

    @ray.remote(num_cpus=0)
    class Gate:
        def __init__(self) -> None:
            self.arrivals: asyncio.Queue[tuple[int, int]] = asyncio.Queue()
            self.log: list[tuple[int, int]] = []
            self.opened = asyncio.Event()
            self.plays: asyncio.Queue[int] = asyncio.Queue()

        async def arrive(self, first: int, pid: int) -> None:
            self.log.append((first, pid))
            await self.arrivals.put((first, pid))

        async def next_arrival(self) -> tuple[int, int]:
            return await self.arrivals.get()

        async def wait_open(self) -> None:
            await self.opened.wait()

        async def played(self, first: int) -> None:
            await self.plays.put(first)

        async def next_played(self) -> int:
            return await self.plays.get()

        def open(self) -> None:
            self.opened.set()

        def seen(self) -> list[tuple[int, int]]:
            return self.log

    return Gate.remote()  # type: ignore[attr-defined]


def _holding(gate: Any, held_from: int) -> Callable[..., Any]:
    """A task that reports its first deal and pid, (from deal ``held_from`` on) waits at the
    gate before playing, and reports that it played."""

    def play(*args: Any) -> Any:
        first = args[2]
        ray.get(gate.arrive.remote(first, os.getpid()))
        if first >= held_from:
            ray.get(gate.wait_open.remote(), timeout=60)
        out = td._play(*args)
        ray.get(gate.played.remote(first), timeout=60)
        return out

    return play


def _held_arrival(gate: Any, held_from: int) -> tuple[int, int]:
    while True:
        first, pid = ray.get(gate.next_arrival.remote(), timeout=60)
        if first >= held_from:
            return first, pid


def _wait_exit(pid: int, timeout: float) -> bool:
    """Whether process ``pid`` ended within ``timeout`` seconds (woken by its exit)."""
    try:
        fd = os.pidfd_open(pid)
    except ProcessLookupError:
        return True
    try:
        return bool(select.select([fd], [], [], timeout)[0])
    finally:
        os.close(fd)


def test_a_killed_worker_changes_nothing(cluster: str, task: Callable[..., None]) -> None:
    gate = _gate()
    task(_holding(gate, 4), max_retries=td.MAX_RETRIES)
    out: dict[str, Any] = {}

    def run() -> None:
        try:
            out["res"] = td.arena("cau_robat", BOTS, 16, seed=5, chunk=4, **CAU)
        except BaseException as error:  # reported below
            out["error"] = error

    driver = threading.Thread(target=run)
    driver.start()
    try:
        first, pid = _held_arrival(gate, 4)
        os.kill(pid, signal.SIGKILL)  # mid-task: it is waiting at the gate
        assert _wait_exit(pid, 30)
    finally:
        gate.open.remote()
        driver.join(timeout=90)
    assert not driver.is_alive()
    assert "error" not in out, out.get("error")
    local = tapete.arena("cau_robat", BOTS, 16, seed=5, **CAU)
    assert np.array_equal(out["res"].values, local.values)
    assert out["res"].to_dict() == local.to_dict()
    # the killed range ran again in another process
    pids = [p for f, p in ray.get(gate.seen.remote()) if f == first]
    assert pid in pids and len(set(pids)) == 2
    ray.kill(gate)


def test_ctrl_c_keeps_what_finished(
    cluster: str, task: Callable[..., None], tmp_path: Path
) -> None:
    gate = _gate()
    task(_holding(gate, 3))

    def progress(done: int) -> None:
        # the first range is done; once a held one runs, Ctrl-C
        _held_arrival(gate, 3)
        raise KeyboardInterrupt

    records = _records()
    path = tmp_path / "games.jsonl" if records else None
    try:
        # the run stops at once: it does not wait for the tasks held at the gate
        with pytest.raises(td.Interrupted) as stop:
            td.arena("cau_robat", BOTS, 12, seed=8, chunk=3, progress=progress, records=path, **CAU)
    finally:
        gate.open.remote()
    part = stop.value.result
    local = tapete.arena("cau_robat", BOTS, 3, seed=8, **CAU)
    assert part.to_dict() == local.to_dict()
    assert np.array_equal(part.values, local.values)
    # the tasks that were out end on their own (ranges 0, 3, 6, 9: two per slot), unused
    assert sorted(ray.get(gate.next_played.remote(), timeout=60) for _ in range(4)) == [0, 3, 6, 9]
    if records and path:
        assert len(list(records.read(path))) == 9  # the 3 deals finished, 3 games each
    ray.kill(gate)


def test_workers_without_tapete(cluster: str, task: Callable[..., None], tmp_path: Path) -> None:
    # a package named tapete that fails like a missing one, first on the workers' path
    shadow = tmp_path / "tapete"
    shadow.mkdir()
    (shadow / "__init__.py").write_text("raise ModuleNotFoundError(\"No module named 'tapete'\")")
    task(td._play, runtime_env={"env_vars": {"PYTHONPATH": str(tmp_path)}})
    with pytest.raises(RuntimeError, match="cannot import tapete.*every node"):
        td.arena("cau_robat", BOTS, 4, chunk=2, **CAU)


def test_workers_with_another_tapete(cluster: str, task: Callable[..., None]) -> None:
    def other_version(*args: Any) -> Any:
        out = td._play(*args)
        return (*out[:4], "0.0.0-other")

    task(other_version)
    with pytest.raises(RuntimeError, match="0.0.0-other.*same version"):
        td.selfplay("cau_robat", 4, chunk=2, **CAU)


def test_workers_are_asked_their_version_before_any_deal(
    cluster: str, task: Callable[..., None], monkeypatch: pytest.MonkeyPatch
) -> None:
    """A version probe runs before the deals: another tapete on the workers is named even when
    its tasks would fail (an argument more or less) instead of returning their version."""

    def never(*args: Any) -> Any:
        raise AssertionError("a deal was played")

    task(never)
    monkeypatch.setattr(td, "_version", lambda: "0.0.0-driver")
    with pytest.raises(RuntimeError, match=r"workers run tapete .*this process 0\.0\.0-driver"):
        td.arena("cau_robat", BOTS, 4, chunk=2, **CAU)


def _fails_to_connect(address: str | None, env: dict[str, str] | None = None) -> str:
    """stderr of a process whose arena tries ``address`` (must fail within a minute)."""
    code = (
        "import tapete.distributed as td\n"
        f"td.arena('cau_robat', ['random'] * 3, 5, players=3, address={address!r})"
    )
    done = subprocess.run(
        [sys.executable, "-c", code],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
        env={**os.environ, **(env or {})},
    )
    assert done.returncode != 0
    return done.stderr


def test_an_address_that_is_not_a_cluster_is_a_quick_clear_error() -> None:
    """A web server (the dashboard's port, a proxy) accepts the connection but is no cluster:
    ray.init would retry for minutes."""
    server = socket.create_server(("127.0.0.1", 0))
    port = server.getsockname()[1]

    def answer() -> None:
        with server:
            while True:
                try:
                    conn, _ = server.accept()
                except OSError:
                    return
                with conn:
                    conn.recv(64)
                    conn.sendall(b"HTTP/1.1 400 Bad Request\r\nContent-Length: 0\r\n\r\n")

    threading.Thread(target=answer, daemon=True).start()
    try:
        err = _fails_to_connect(f"127.0.0.1:{port}")
    finally:
        server.close()
    assert f"RuntimeError: 127.0.0.1:{port} answers, but not as a Ray cluster" in err


def test_ray_address_from_the_environment() -> None:
    """``address=None`` takes ``RAY_ADDRESS`` as ray.init does: a Ray Client address too, and a
    malformed one is a ConfigError naming it."""
    err = _fails_to_connect(None, {"RAY_ADDRESS": "garbage"})
    assert "ConfigError: RAY_ADDRESS='garbage' is not a Ray address" in err
    port = _free_port()
    err = _fails_to_connect(None, {"RAY_ADDRESS": f"ray://127.0.0.1:{port}"})
    assert f"RuntimeError: cannot reach a Ray cluster at ray://127.0.0.1:{port}" in err
    assert "found in RAY_ADDRESS" in err


def test_a_ray_client_server_that_fails_to_start_is_tried_again(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Ray Client's per-client server sometimes dies at birth: a connection through Ray Client
    (a ``ray://`` address, given or in ``RAY_ADDRESS``) is tried again after a shutdown, at most
    ``CLIENT_ATTEMPTS`` times in all; any other failure, and any other address, is final."""
    log: list[str] = []
    failures: list[Exception] = []

    def init(address: str | None, **options: Any) -> None:
        log.append(f"init {address}")
        if failures:
            raise failures.pop(0)

    monkeypatch.setattr(ray, "init", init)
    monkeypatch.setattr(ray, "shutdown", lambda: log.append("shutdown"))
    monkeypatch.setattr(ray, "is_initialized", lambda: False)
    monkeypatch.setattr(td, "_check_reachable", lambda target, found_by: None)
    monkeypatch.delenv("RAY_ADDRESS", raising=False)
    client = "ray://127.0.0.1:10001"
    died = ConnectionError("Initialization failure from server:\nTraceback ... ZombieProcess")
    failed = RuntimeError("Starting Ray client server failed. See ray_client_server_23007.err")
    failures[:] = [died, failed]
    td.connect(client)
    assert log == [f"init {client}", "shutdown"] * 2 + [f"init {client}"] and not failures
    monkeypatch.setenv("RAY_ADDRESS", client)
    log.clear()
    failures[:] = [died]
    td.connect(None)
    assert log == ["init None", "shutdown", "init None"]
    monkeypatch.delenv("RAY_ADDRESS")
    log.clear()
    failures[:] = [died] * td.CLIENT_ATTEMPTS
    with pytest.raises(RuntimeError, match="cannot join the Ray cluster at ray://"):
        td.connect(client)
    assert log.count(f"init {client}") == td.CLIENT_ATTEMPTS
    for address, error in [
        (client, ConnectionError("Initialization failure from server: bad runtime_env")),
        ("127.0.0.1:6379", failed),
    ]:
        log.clear()
        failures[:] = [error]
        with pytest.raises(RuntimeError):
            td.connect(address)
        assert log == [f"init {address}"]


def test_unreachable_address_is_a_quick_clear_error() -> None:
    port = _free_port()  # nothing listens there
    code = (
        "import tapete.distributed as td\n"
        f"td.arena('cau_robat', ['random'] * 3, 5, players=3, address='127.0.0.1:{port}')"
    )
    start = time.monotonic()
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=60, check=False
    )
    assert done.returncode != 0
    assert f"RuntimeError: cannot reach a Ray cluster at 127.0.0.1:{port}" in done.stderr
    assert time.monotonic() - start < 60


# --------------------------------------------------------------------------------------------
# Arguments, imports


def test_bad_arguments(cluster: str, capsys: pytest.CaptureFixture[str]) -> None:
    class Lowest:
        def choose(self, state: tapete.State) -> int:
            return state.legal_actions()[0]

    cases: list[tuple[dict[str, Any], str]] = [
        ({"bots": [Lowest(), "random", "random"]}, "native bots"),
        ({"chunk": 0}, "chunk must be"),
        ({"games": -1}, "games must be"),
        ({"threads": 3}, "no node of the Ray cluster has 3 CPUs"),
        ({"bots": ["random"] * 2}, "one bot per seat"),
        ({"seed": -1}, "seed"),
        ({"address": "nowhere"}, "host:port"),
    ]
    for change, message in cases:
        kwargs: dict[str, Any] = {"bots": BOTS, "games": 4, **CAU, **change}
        with pytest.raises(ConfigError, match=message):
            td.arena("cau_robat", **kwargs)
    with pytest.raises(ConfigError, match="native bot specs"):
        td.selfplay("cau_robat", 4, bots=[Lowest()] * 3, **CAU)  # type: ignore[list-item]
    assert td.arena("cau_robat", BOTS, 0, **CAU).values.shape == (0, 3)
    args = ["arena", "cau_robat", "--players", "3", "--bots", *BOTS, "--games", "2"]
    assert main([*args, "--chunk", "2"]) == 2
    assert "--chunk sets the Ray task size" in capsys.readouterr().err
    assert main([*args, "--ray", "players=4"]) == 2
    assert "key=value options go before --ray" in capsys.readouterr().err


def test_arguments_are_checked_before_connecting(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """What the cluster would find out late (or never) is a ConfigError before connecting."""

    def no_cluster(address: str | None = None) -> None:
        raise AssertionError("connected before the arguments were checked")

    monkeypatch.setattr(td, "connect", no_cluster)
    cases: list[tuple[dict[str, Any], str]] = [
        ({"games": 10**30}, "at most 2"),
        ({"games": 2**64 + 1}, "at most 2"),
        ({"records": tmp_path / "no" / "x.jsonl"}, "no such directory"),
        ({"records": tmp_path}, "is a directory"),
        ({"records": 5}, "records must be"),
        ({"records": ""}, "records must be"),
        ({"progress": "yes"}, "progress must be"),
    ]
    for change, message in cases:
        kwargs: dict[str, Any] = {"games": 4, **CAU, **change}
        with pytest.raises(ConfigError, match=message):
            td.arena("cau_robat", BOTS, **kwargs)
        with pytest.raises(ConfigError, match=message):
            td.selfplay("cau_robat", **kwargs)
    assert list(tmp_path.iterdir()) == []  # no file made


def test_import_tapete_does_not_import_ray() -> None:
    code = "import sys, tapete, tapete.cli; print([m for m in sys.modules if m.startswith('ray')])"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"
    # ... until first used, as an attribute of the package (api.md writes tapete.distributed).
    code = (
        "import sys, tapete; tapete.distributed.arena; tapete.reference.load_game; "
        "print('ray' in sys.modules)"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "True"


def test_missing_ray_names_the_extra(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "ray", None)
    monkeypatch.delitem(sys.modules, "tapete.distributed")
    with pytest.raises(ImportError, match=r"pip install 'tapete\[ray\]'"):
        import tapete.distributed  # noqa: F401
    monkeypatch.setitem(sys.modules, "tapete.distributed", td)
