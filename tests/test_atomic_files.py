"""A file written by lambdafuzz is either the old one or the new one, never half of each."""

from pathlib import Path

import pytest

from lambdafuzz.atomic_files import write_bytes_atomic, write_text_atomic


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
