"""Saved inputs: atomic writes, exact round trips, corrupt files skipped and kept, and a
resume that re-runs corpus/ where it is (names kept, nothing moved away or lost)."""

from __future__ import annotations

import json
import os
from collections.abc import Iterable, Iterator
from pathlib import Path

import pytest

from lambdafuzz.config import load_target
from lambdafuzz.errors import CorpusError
from lambdafuzz.fuzzer.corpus import SavedInput, iter_inputs, load_input, save_input
from lambdafuzz.fuzzer.engine import Engine
from lambdafuzz.fuzzer.events import NewCoverage, Notice
from lambdafuzz.fuzzer.failures import failure_slug
from lambdafuzz.fuzzer.options import CampaignOptions
from lambdafuzz.fuzzer.out_dir import OutDir
from lambdafuzz.generators.core import Choices, ReplayMode
from lambdafuzz.generators.file_attributes import file_attributes
from lambdafuzz.harness.measure.arm_catalog import ArmCatalog
from lambdafuzz.harness.process.protocol import TestRequest, TestResult, WorkerInfo, WorkerSpec
from lambdafuzz.model.outcome import Status
from tests.fuzzer.pool_doubles import PoolDouble

PLANTED = Path(__file__).parent / "planted"


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


def test_the_name_on_disk_wins_and_a_recorded_path_is_refused(tmp_path):
    save_input(tmp_path / "id-000004.json", saved("id-000001"))
    assert load_input(tmp_path / "id-000004.json").name == "id-000004"
    for bad in ("../../x", "/tmp/x", "a/b", "..", 7):
        data = saved("x").to_json()
        data["name"] = bad
        (tmp_path / "bad.json").write_text(json.dumps(data))
        with pytest.raises(CorpusError, match=r"bad\.json: field 'name': expected a plain file"):
            load_input(tmp_path / "bad.json")


def test_out_dir_never_writes_a_name_that_is_a_path(tmp_path):
    out = OutDir(tmp_path / "out")
    with pytest.raises(CorpusError, match="plain file name"):
        out.save_corpus_input(saved("../../escaped"))
    assert not (tmp_path / "escaped.json").exists()


# =========================================================================== resume
def _write_corpus(folder: Path, seeds: Iterable[int], *, first: int = 0) -> list[str]:
    names = []
    for i, seed in enumerate(seeds, start=first):
        name = f"id-{i:06d}"
        save_input(folder / f"{name}.json", saved(name, seed=seed))
        names.append(name)
    return names


def test_legacy_corpus_prev_folders_are_merged_once_without_duplicates(tmp_path):
    out = OutDir(tmp_path)
    _write_corpus(out.corpus_dir, [1, 2])  # re-saved copies of prev0's first two
    _write_corpus(tmp_path / "corpus.prev0", [1, 2, 3, 4])
    _write_corpus(tmp_path / "corpus.prev1", [5])
    (tmp_path / "corpus.prev1" / "broken.json").write_text("{")
    (out.corpus_dir / ".id-000000.json.a1b2c3d4e5f6.tmp").write_text("{")  # a killed write
    notes = out.prepare_resume()
    assert not list(tmp_path.glob("corpus.prev*"))
    assert any("2 duplicate(s) dropped" in n for n in notes), notes
    assert any("temporary file" in n for n in notes), notes
    names = sorted(p.name for p in out.corpus_dir.iterdir())
    # prev0's id-000002/3 keep their names; prev1's id-000000 takes the next free one
    assert names == [
        "broken.json",
        "id-000000.json",
        "id-000001.json",
        "id-000002.json",
        "id-000003.json",
        "id-000004.json",
    ]
    seeds = sorted(s.seed for s in iter_inputs(out.corpus_dir) if isinstance(s, SavedInput))
    assert seeds == [1, 2, 3, 4, 5]
    assert out.prepare_resume() == []  # merged once
    assert out.read_existing().next_number == 5


def test_a_symlinked_failures_folder_is_refused_before_anything_is_written(tmp_path):
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    out = OutDir(tmp_path / "out")
    out.path.mkdir()
    (out.path / "failures").symlink_to(elsewhere)
    with pytest.raises(CorpusError, match="failures: expected a directory"):
        out.prepare_resume()
    assert list(elsewhere.iterdir()) == []


class ScriptedPool(PoolDouble):
    def __init__(self, results: list[TestResult]) -> None:
        self.results = list(results)
        self.sent: list[TestRequest] = []
        self.info = WorkerInfo(pid=0, app_arms_total=8, import_coverage={})
        self.restarts = 0

    def imap(self, requests: Iterable[TestRequest]) -> Iterator[tuple[TestRequest, TestResult]]:
        for request in requests:
            self.sent.append(request)
            yield request, self.results.pop(0)

    def close(self) -> None:
        pass


def _resume(out: Path, results: list[TestResult]) -> tuple[Engine, list, ScriptedPool]:
    pool = ScriptedPool(results)
    options = CampaignOptions(
        target=load_target(PLANTED),
        out_dir=out,
        seed=5,
        max_execs=len(results),
        stability_check=False,
    )

    def factory(spec: WorkerSpec, workers: int) -> ScriptedPool:
        return pool

    engine = Engine(options, catalog=ArmCatalog(files=()), pool_factory=factory)
    return engine, list(engine.run()), pool


def _result(seed: int, arms: dict) -> TestResult:
    return TestResult(Status.VALID, saved("x", seed=seed).sequence, arms)


def test_resume_reruns_corpus_in_place_keeping_names_and_losing_nothing(tmp_path):
    out = OutDir(tmp_path)
    names = _write_corpus(out.corpus_dir, [11, 12, 13, 14])
    (out.corpus_dir / "id-000009.json").write_text('{"lambdafuzz": 1')  # corrupt, kept
    arm_a, arm_b, arm_c = (("planted/handler.py", 1, n) for n in (2, 3, 4))
    # a budget of two executions re-runs only two of the four saved inputs
    engine, events, pool = _resume(tmp_path, [_result(11, {arm_a: 0}), _result(12, {arm_a: 0})])
    assert [r.seed for r in pool.sent] == [11, 12]
    assert [e.name for e in events if isinstance(e, NewCoverage)] == ["id-000000"]
    notices = [e for e in events if isinstance(e, Notice)]
    assert any("id-000009.json" in n.message and n.slug == "corpus-corrupt" for n in notices)
    on_disk = sorted(p.name for p in out.corpus_dir.iterdir())
    assert on_disk == [f"{n}.json" for n in names] + ["id-000009.json"]
    first = json.loads((out.corpus_dir / "id-000000.json").read_text())
    assert (first["name"], first["provenance"], first["seed"]) == ("id-000000", "src:3 +cov", 11)
    for name in names:  # never moved, never emptied
        assert load_input(out.corpus_dir / f"{name}.json").seed in (11, 12, 13, 14)

    # the next resume still has everything; new inputs are named after the highest name
    results = [_result(s, {arm_a: 0}) for s in (11, 12, 13, 14)]
    results += [_result(99, {arm_a: 0, arm_b: 0}), _result(98, {arm_c: 0})]
    engine, events, pool = _resume(tmp_path, results)
    assert [r.seed for r in pool.sent[:4]] == [11, 12, 13, 14]
    saved_names = [e.name for e in events if isinstance(e, NewCoverage)]
    assert saved_names == ["id-000000", "id-000010", "id-000011"]
    assert len(list(out.corpus_dir.glob("*.json"))) == 7
    assert not [p for p in tmp_path.rglob("*") if p.name.startswith("corpus.prev")]


def test_a_resumed_input_with_an_unusual_file_name_is_rewritten_under_it(tmp_path):
    out = OutDir(tmp_path)
    save_input(out.corpus_dir / "my seed (copy).json", saved("whatever", seed=11))
    engine, events, _ = _resume(tmp_path, [_result(11, {("planted/handler.py", 1, 2): 0})])
    assert [e.name for e in events if isinstance(e, NewCoverage)] == ["my seed (copy)"]
    assert os.listdir(out.corpus_dir) == ["my seed (copy).json"]
    assert load_input(out.corpus_dir / "my seed (copy).json").name == "my seed (copy)"


def test_a_seed_corpus_input_never_overwrites_a_corpus_input_of_the_same_name(tmp_path):
    out = OutDir(tmp_path / "out")
    _write_corpus(out.corpus_dir, [11])
    other = tmp_path / "other"
    _write_corpus(other, [21])  # also named id-000000
    arm_a, arm_b = (("planted/handler.py", 1, n) for n in (2, 3))
    pool = ScriptedPool([_result(11, {arm_a: 0}), _result(21, {arm_b: 0})])
    options = CampaignOptions(
        target=load_target(PLANTED),
        out_dir=out.path,
        max_execs=2,
        stability_check=False,
        seed_corpora=(other,),
    )
    engine = Engine(options, catalog=ArmCatalog(files=()), pool_factory=lambda s, w: pool)
    saved_events = [e for e in engine.run() if isinstance(e, NewCoverage)]
    assert [e.name for e in saved_events] == ["id-000000", "id-000001"]
    assert saved_events[1].provenance.startswith("seed:seed-corpus/id-000000")
    assert load_input(out.corpus_dir / "id-000000.json").seed == 11
    assert load_input(out.corpus_dir / "id-000001.json").seed == 21
    assert os.listdir(other) == ["id-000000.json"]
