"""End to end under `frontier`: bugs of FIFO consumers and CloudTrail audits that only
inputs as AWS sends them show, each found within a few hundred executions:

* a FIFO consumer keeping one state item per message group crashes on a group's item
  stored without the field it reads (the record's `MessageGroupId` is an item key of
  the world, `world_refs.draw_fifo_id`);
* an audit of CloudTrail's records of a call reads the request's parameters, which a
  failed (denied) call's record lacks (`cloudtrail.draw_error`);
* the same audit crashes past its lookup only for a table of the world (the record's
  `tableName` names one of the world's now and then, `world_refs.fill_names`).
"""

from __future__ import annotations

from pathlib import Path

import pytest
from campaign_findings import found_signatures

HERE = Path(__file__).parent
EXECS = 300

pytestmark = pytest.mark.timeout(60)


def _found(app: str, out: Path, seed: int = 1) -> set[str]:
    return found_signatures(HERE / app, out, seed=seed, execs=EXECS)


def test_a_message_groups_item_without_its_field_is_found(tmp_path: Path) -> None:
    found = _found("world_event/fifo_lanes", tmp_path)
    assert "KeyError at app/lanes.py:13" in found, found  # state["opened_at"]


def test_a_failed_calls_record_and_an_existing_table_are_found(tmp_path: Path) -> None:
    found = _found("world_event/table_audit", tmp_path)
    assert any(s.startswith("TypeError at app/audit.py:8") for s in found), found  # null
    assert "KeyError at app/audit.py:13" in found, found  # table["StreamSpecification"]
