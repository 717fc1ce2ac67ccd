"""A file written by lambdafuzz is either the old one or the new one, never half of each."""

import os
import stat
from pathlib import Path

import pytest

from lambdafuzz.atomic_files import remove_stale_temps, write_bytes_atomic, write_text_atomic


def test_replaces_the_file_and_creates_missing_directories(tmp_path: Path):
    target = tmp_path / "deep" / "er" / "stats.json"
    write_text_atomic(target, "first é", durable=True)
    assert target.read_text(encoding="utf-8") == "first é"
    write_bytes_atomic(target, b"\x00second")
    assert target.read_bytes() == b"\x00second"
    assert [p.name for p in target.parent.iterdir()] == ["stats.json"]  # no temp left


def test_a_failed_write_keeps_the_old_file_and_leaves_no_temp(tmp_path: Path):
    target = tmp_path / "input.json"
    target.write_bytes(b"old, complete")
    with pytest.raises(TypeError):
        write_bytes_atomic(target, "not bytes")  # type: ignore[arg-type]  # fails mid-write
    assert target.read_bytes() == b"old, complete"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["input.json"]


def test_files_get_0666_less_the_umask_not_0600(tmp_path: Path):
    old = os.umask(0o022)
    try:
        write_text_atomic(tmp_path / "a.json", "{}", durable=True)
        os.umask(0o077)
        write_text_atomic(tmp_path / "b.json", "{}")
    finally:
        os.umask(old)
    assert stat.S_IMODE((tmp_path / "a.json").stat().st_mode) == 0o644
    assert stat.S_IMODE((tmp_path / "b.json").stat().st_mode) == 0o600


def test_a_durable_write_fsyncs_the_directory_after_the_rename(tmp_path: Path, monkeypatch):
    synced: list[str] = []
    real_fsync = os.fsync

    def fsync(fd: int) -> None:
        synced.append("dir" if stat.S_ISDIR(os.fstat(fd).st_mode) else "file")
        real_fsync(fd)

    monkeypatch.setattr(os, "fsync", fsync)
    write_text_atomic(tmp_path / "input.json", "{}", durable=True)
    assert synced == ["file", "dir"]
    synced.clear()
    write_text_atomic(tmp_path / "plot.csv", "x")
    assert synced == []


def test_stale_temps_of_a_killed_writer_are_removed_and_nothing_else(tmp_path: Path):
    (tmp_path / "id-000001.json").write_text("{}")
    (tmp_path / ".id-000001.json.0a1b2c3d4e5f.tmp").write_text("{")  # this writer's
    (tmp_path / ".stats.json.k3_9xq2b.tmp").write_text("{")  # mkstemp's, earlier releases
    (tmp_path / ".hidden").write_text("user's")
    (tmp_path / "notes.tmp").write_text("user's")
    assert remove_stale_temps(tmp_path) == 2
    assert sorted(p.name for p in tmp_path.iterdir()) == [".hidden", "id-000001.json", "notes.tmp"]
    assert remove_stale_temps(tmp_path / "missing") == 0
