"""Workers forked from a preloaded server (the default) run tests exactly as spawned ones
(`LAMBDAFUZZ_WORKER_START=spawn`) do, see the campaign's environment as it was at their
start, and end with the campaign, leaving no directory behind."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from lambdafuzz.config import load_config
from lambdafuzz.generators.core import ReplayMode
from lambdafuzz.harness.process.fork_server import START_ENV, worker_context
from lambdafuzz.harness.process.protocol import TestRequest, WorkerSpec
from lambdafuzz.harness.process.worker import Worker
from tests.fixtures.process_table import alive, campaign_processes, command

APP = Path(__file__).parent / "aws_path_app"


def run_once(seed: int) -> tuple[int, tuple[object, ...]]:
    """(the worker's parent pid, what a test in it gave)."""
    worker = Worker(WorkerSpec(target=load_config(APP / "lambdafuzz.yaml")))
    try:
        assert worker._proc is not None
        parent = int(Path(f"/proc/{worker._proc.pid}/stat").read_text().split(")")[1].split()[1])
        result = worker.run(TestRequest({}, seed, ReplayMode.EXECUTION_INDEXED, want_log=True))
    finally:
        worker.close()
    return parent, (result.status, result.failure, result.return_value, sorted(result.coverage))


def test_forked_from_the_server_by_default_spawned_when_asked(monkeypatch) -> None:
    monkeypatch.setenv(START_ENV, "spawn")
    assert worker_context().get_start_method() == "spawn"
    spawned_parent, spawned = run_once(7)
    monkeypatch.delenv(START_ENV)
    assert worker_context().get_start_method() == "forkserver"
    forked_parent, forked = run_once(7)
    assert spawned_parent == os.getpid()
    assert forked_parent != os.getpid()  # the server's child
    assert forked == spawned


@pytest.mark.parametrize("value", ["first", "second"])
def test_a_forked_worker_sees_the_environment_of_its_start(monkeypatch, value) -> None:
    """The server started with the first test's environment; the second test's worker
    still reads its own (the handler prints `LAMBDAFUZZ_PROBE_MARK`: a name a worker keeps,
    see `clean_env`)."""
    monkeypatch.delenv(START_ENV, raising=False)
    monkeypatch.setenv("LAMBDAFUZZ_PROBE_MARK", value)
    worker = Worker(WorkerSpec(target=load_config(APP / "lambdafuzz.yaml")))
    try:
        result = worker.run(TestRequest({}, 3, ReplayMode.EXECUTION_INDEXED, want_log=True))
    finally:
        worker.close()
    assert f"mark: {value}" in result.log


def test_the_server_and_its_workers_end_with_a_killed_campaign(tmp_path) -> None:
    import signal
    import subprocess
    import sys
    import time

    app = Path(__file__).parents[3] / "benchmarks" / "lambdas" / "gradebook"
    import shutil
    import tempfile

    short_tmp = Path(tempfile.mkdtemp(prefix="lf", dir="/tmp"))  # room for a socket path
    env = {**os.environ, "TMPDIR": str(short_tmp)}
    env.pop(START_ENV, None)
    cmd = [sys.executable, "-m", "lambdafuzz", "fuzz", str(app), "--execs", "100000"]
    proc = subprocess.Popen(
        [*cmd, "--out", str(tmp_path / "out"), "--quiet"],
        env=env,
        start_new_session=True,
        stdout=subprocess.DEVNULL,
        stderr=(tmp_path / "err").open("w"),
    )
    try:
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline and not (tmp_path / "out" / "corpus").is_dir():
            time.sleep(0.05)
        time.sleep(1.0)  # tests under way in a worker forked from the server
        before = campaign_processes(proc.pid)
        commands = [command(p) for p in before]
        assert any("multiprocessing.forkserver" in c for c in commands), (
            commands,
            (tmp_path / "err").read_text(),
        )
        os.kill(proc.pid, signal.SIGKILL)  # the campaign alone, not its group
        proc.wait(timeout=30)
        deadline = time.monotonic() + 15
        while time.monotonic() < deadline and alive(before):
            time.sleep(0.1)
        assert alive(before) == set()
        while time.monotonic() < deadline and any(short_tmp.iterdir()):
            time.sleep(0.1)
        assert list(short_tmp.iterdir()) == []  # the server's socket dir included
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
        shutil.rmtree(short_tmp, ignore_errors=True)


def test_a_tmpdir_too_long_for_a_socket_path_starts_new_interpreters(monkeypatch, tmp_path) -> None:
    import tempfile

    from lambdafuzz.harness.process import fork_server

    long_dir = tmp_path / ("x" * 80)
    long_dir.mkdir()
    monkeypatch.delenv(START_ENV, raising=False)
    monkeypatch.setattr(tempfile, "tempdir", str(long_dir))
    monkeypatch.setattr(fork_server, "_guard", None)
    monkeypatch.setattr(fork_server, "_context", None)
    assert worker_context().get_start_method() == "spawn"
    assert list(long_dir.iterdir()) == []


@pytest.mark.parametrize("start", ["forkserver", "spawn"])
def test_a_worker_does_not_import_the_campaign_s_main_module(start) -> None:
    """multiprocessing imports the starting process's main script again in each child; a
    worker needs none of it (in a Ray actor it was all of Ray, for every worker)."""
    probe = Path(__file__).parent / "main_module_probe"
    env = {**os.environ, START_ENV: start, "PYTHONPATH": str(Path(__file__).parents[3])}
    done = subprocess.run(
        [sys.executable, str(probe / "start_worker.py")],
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    status, returned = done.stdout.strip().splitlines()[-1].split(" ", 1)
    assert status == "VALID", done.stdout
    assert returned == "{'campaign_main': None}"  # before: the script's path


def test_the_main_module_is_hidden_only_while_a_worker_starts() -> None:
    from multiprocessing import spawn

    from lambdafuzz.harness.process.fork_server import campaign_main_hidden

    main = sys.modules["__main__"]
    before = (main.__spec__, getattr(main, "__file__", None))
    assert {"init_main_from_name", "init_main_from_path"} & set(spawn.get_preparation_data("w"))
    with campaign_main_hidden():
        assert not {"init_main_from_name", "init_main_from_path"} & set(
            spawn.get_preparation_data("w")
        )
    assert (main.__spec__, getattr(main, "__file__", None)) == before
