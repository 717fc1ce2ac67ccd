"""A seeded campaign whose workers keep their recordings saves exactly what one that is sent
every recording saves: the same corpus, failures (with their tracebacks), recordings and
world summaries, whether
the campaign fetches the kept recordings (with the summaries the workers made) or, when a
worker cannot give one, regenerates it."""

from __future__ import annotations

from pathlib import Path

import pytest

from lambdafuzz.config import load_config
from lambdafuzz.fuzzer.campaign import build_engine
from lambdafuzz.fuzzer.corpus import SavedInput, iter_inputs
from lambdafuzz.fuzzer.engine import Engine
from lambdafuzz.fuzzer.events import CampaignFinished
from lambdafuzz.fuzzer.out_dir import OutDir
from lambdafuzz.harness.process.pool import WorkerPool

PLANTED = Path(__file__).parent / "planted"
EXECS = 200


def _campaign(out: Path, *, every_recording: bool = False) -> Engine:
    engine = build_engine(
        load_config(PLANTED), out_dir=out, strategy="zest", seed=5, max_execs=EXECS
    )
    if every_recording:  # an observer of every child is sent every recording
        engine.child_observer = lambda child: None
    finished = list(engine.run())[-1]
    assert isinstance(finished, CampaignFinished) and finished.stats.execs == EXECS
    return engine


def _saved(out: Path) -> dict[str, tuple]:
    """Every saved input (corpus and failures) by name: its recording and what it was."""
    failures = OutDir(out).read().failures
    saved = [*iter_inputs(out / "corpus"), *(f.saved for f in failures)]
    assert saved and failures and all(isinstance(s, SavedInput) for s in saved)
    inputs = {s.name: (s.sequence, s.seed, s.outcome, s.world, s.event) for s in saved}
    # the failures' tracebacks, which workers that keep recordings format only when asked
    tracebacks = {f.signature: f.record.info.traceback for f in failures}
    assert all("Traceback (most recent call last)" in t for t in tracebacks.values())
    return inputs | tracebacks


@pytest.fixture(scope="module")
def sent_every_recording(tmp_path_factory) -> dict[str, tuple]:
    out = tmp_path_factory.mktemp("every")
    engine = _campaign(out, every_recording=True)
    assert engine.recordings.fetched == engine.recordings.regenerated == 0
    return _saved(out)


def test_fetched_recordings_save_the_same_campaign(tmp_path, sent_every_recording):
    engine = _campaign(tmp_path)
    assert engine.recordings.fetched >= 3 and engine.recordings.regenerated == 0
    assert _saved(tmp_path) == sent_every_recording


def test_regenerated_recordings_save_the_same_campaign(tmp_path, sent_every_recording, monkeypatch):
    monkeypatch.setattr(WorkerPool, "kept", lambda self, request: None)
    engine = _campaign(tmp_path)
    assert engine.recordings.regenerated >= 3 and engine.recordings.fetched == 0
    assert _saved(tmp_path) == sent_every_recording
