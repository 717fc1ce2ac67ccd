"""Kinesis payloads end to end: a consumer (`kinesis_refunds/`) that json-decodes each
record's data and branches on its `action` reaches the refund branch within a small
budget, as its records are JSON objects of the field names it reads (seeds 0, 1, 2, 5, 6
and 9 of 0-9 reach it at this budget, measured with the key shapes, world references and
size schedule of issue 42; 1, 4, 5, 6, 8 and 9 before them)."""

from __future__ import annotations

import json
from pathlib import Path

from lambdafuzz.config import load_config
from lambdafuzz.fuzzer.campaign import build_engine
from lambdafuzz.fuzzer.events import CampaignFinished

KINESIS_REFUNDS = Path(__file__).parent / "kinesis_refunds"
EXECS = 200
SEED = 1


def test_a_kinesis_campaign_reaches_the_branch_on_a_json_field(tmp_path: Path) -> None:
    target = load_config(KINESIS_REFUNDS / "lambdafuzz.yaml")
    engine = build_engine(target, out_dir=tmp_path, strategy="frontier", seed=SEED, max_execs=EXECS)
    events = list(engine.run())
    assert isinstance(events[-1], CampaignFinished)
    returned = [
        json.loads(path.read_text()).get("return_value") or ""
        for path in sorted((tmp_path / "corpus").glob("*.json"))
    ]
    assert any("refunded" in str(value) for value in returned), (SEED, returned)
