"""The working directory is restored before every test (issue 39): back through a
descriptor of it, made again when a test removed it, the private temp dir when it cannot
be; the two fallbacks are said in the next test's log.  (Campaigns with handlers that move
away: tests/harness/sandbox/test_hostile.py.)  Runs `WorkerRuntime._restore_cwd` on a bare
runtime in this process: nothing is started, nothing leaves tmp_path."""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

import pytest

from lambdafuzz.harness.process import runtime as worker_module
from lambdafuzz.harness.process.runtime import WorkerRuntime


@dataclass
class _Isolation:
    tmp_dir: str


def _runtime(start: Path, tmp_dir: Path) -> WorkerRuntime:
    """A runtime with only what `_fresh_sandbox`'s working-directory part reads."""
    runtime = object.__new__(WorkerRuntime)
    os.chdir(start)
    runtime._cwd = worker_module._current_dir()
    runtime._cwd_fd = worker_module._open_dir(runtime._cwd)
    runtime.isolation = _Isolation(str(tmp_dir))
    return runtime


@pytest.fixture
def start(tmp_path, monkeypatch) -> Path:
    monkeypatch.chdir(tmp_path)  # put back after the test
    folder = tmp_path / "a" / "start"
    folder.mkdir(parents=True)
    (tmp_path / "tmp").mkdir()
    return folder


def test_a_test_that_moved_away_is_moved_back_through_a_descriptor(start, capfd):
    runtime = _runtime(start, start.parent.parent / "tmp")
    fd = runtime._cwd_fd
    assert fd is not None and fd >= 64  # out of reach of a handler closing low ones
    os.chdir("/")
    runtime._restore_cwd()
    assert os.getcwd() == str(start) and runtime._cwd_fd == fd
    assert capfd.readouterr().err == ""  # nothing to say


def test_a_closed_descriptor_falls_back_to_the_path(start, capfd):
    runtime = _runtime(start, start.parent.parent / "tmp")
    os.close(runtime._cwd_fd)
    os.chdir("/")
    runtime._restore_cwd()
    assert os.getcwd() == str(start) and runtime._cwd_fd is not None
    assert capfd.readouterr().err == ""


def test_a_removed_start_dir_is_made_again_and_said(start, capfd):
    runtime = _runtime(start, start.parent.parent / "tmp")
    os.chdir("/")
    start.rmdir()
    runtime._restore_cwd()
    assert os.getcwd() == str(start) and start.is_dir()
    err = capfd.readouterr().err
    assert f"lambdafuzz: working directory {start} was removed by a test" in err
    assert "made it again, empty" in err


def test_a_start_dir_that_cannot_be_made_again_falls_back_to_the_temp_dir(start, capfd):
    tmp_dir = start.parent.parent / "tmp"
    runtime = _runtime(start, tmp_dir)
    start.rmdir()  # and removed while the worker was in it (getcwd fails)
    start.parent.rmdir()
    start.parent.write_text("a file where its parent was")
    runtime._restore_cwd()
    assert os.getcwd() == str(tmp_dir) and runtime._cwd == str(tmp_dir)
    assert "cannot be made again" in capfd.readouterr().err
    os.chdir("/")
    runtime._restore_cwd()  # from now on the fallback is where tests start
    assert os.getcwd() == str(tmp_dir)
