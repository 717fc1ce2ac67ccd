"""End to end under `frontier`: a handler that unpacks `<object key>#<operation>` from its
key and fails on an operation it does not know is found within a few hundred executions;
only a key packed with the code's separator, its head an object of the bucket, reaches the
bug (`key_shapes.packed_key`)."""

from __future__ import annotations

from pathlib import Path

import pytest

from lambdafuzz.config import load_config
from lambdafuzz.fuzzer.campaign import build_engine
from lambdafuzz.fuzzer.events import CampaignFinished, NewFailure

HERE = Path(__file__).parent
EXECS = 300

pytestmark = pytest.mark.timeout(60)


def test_an_unknown_packed_operation_is_found(tmp_path: Path) -> None:
    engine = build_engine(
        load_config(HERE / "packed_keys" / "lambdafuzz.yaml"), out_dir=tmp_path,
        strategy="frontier", seed=1, max_execs=EXECS,
    )  # fmt: skip
    events = list(engine.run())
    assert isinstance(events[-1], CampaignFinished)
    found = {e.record.signature for e in events if isinstance(e, NewFailure)}
    assert any("NotImplementedError" in s for s in found), found
