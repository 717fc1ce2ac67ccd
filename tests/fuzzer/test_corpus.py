"""Saved inputs: atomic writes, exact round trips, corrupt files skipped and kept."""

from __future__ import annotations

import json

import pytest

from lambdafuzz.errors import CorpusError
from lambdafuzz.fuzzer.corpus import SavedInput, iter_inputs, load_input, save_input
from lambdafuzz.fuzzer.failures import failure_slug
from lambdafuzz.generators.core import Choices, ReplayMode
from lambdafuzz.generators.file_attributes import file_attributes


def saved(name: str, seed: int = 1) -> SavedInput:
    choices = Choices(seed=seed)
    file_attributes(choices)
    return SavedInput(
        name=name,
        sequence=choices.recording(),
        seed=seed,
        mode=ReplayMode.EXECUTION_INDEXED,
        outcome="VALID",
        provenance="src:3 +cov",
        world={"buckets": []},
        event={"Records": []},
    )


def test_saved_input_round_trips(tmp_path):
    item = saved("id-000001")
    save_input(tmp_path / "id-000001.json", item)
    back = load_input(tmp_path / "id-000001.json")
    assert back.sequence == item.sequence
    assert (back.seed, back.mode, back.outcome, back.provenance) == (
        1,
        item.mode,
        "VALID",
        "src:3 +cov",
    )
    assert not list(tmp_path.glob("*.tmp")) and not list(tmp_path.glob(".*"))


def test_corrupt_files_are_reported_not_deleted(tmp_path):
    save_input(tmp_path / "id-000000.json", saved("id-000000"))
    (tmp_path / "id-000001.json").write_text('{"sequence": [')  # truncated
    (tmp_path / "id-000002.json").write_text(json.dumps({"no": "sequence"}))
    items = list(iter_inputs(tmp_path))
    assert isinstance(items[0], SavedInput)
    assert all(isinstance(i, CorpusError) for i in items[1:])
    assert "id-000001.json" in str(items[1])
    assert (tmp_path / "id-000001.json").exists() and (tmp_path / "id-000002.json").exists()


def test_load_input_names_the_file(tmp_path):
    path = tmp_path / "x.json"
    path.write_text("not json")
    with pytest.raises(CorpusError, match="x.json"):
        load_input(path)


def test_failure_slugs_keep_the_whole_location_and_differ():
    a = failure_slug("botocore.errorfactory.NoSuchKey at gradebook/handler.py:59")
    b = failure_slug("botocore.errorfactory.NoSuchKey at gradebook/handler.py:5")
    assert "handler-py-59" in a and a != b
    assert a == failure_slug("botocore.errorfactory.NoSuchKey at gradebook/handler.py:59")
