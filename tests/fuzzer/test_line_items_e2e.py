"""Line items, end to end: an SQS order-intake handler (`order_intake/`, a SAM template
with two tables and a topic) iterates `order["lines"]` and reads each line's `qty`, then
its `price`. A record field named as a plural is now and then a list of records
(`json_files.RECORD_LIST_P`, and an edge plan step), so a seeded frontier campaign gets
past the quantity to the price within a small budget. With the generator and edge plan
before line items, this campaign found nothing at the price line (checked), nor did
6,000 executions through the CLI. Seeds 2 and 4 of 0-5 reach it at this budget (with the key
shapes, world references and size schedule of issue 42; seeds 0 and 1 of 0-3 before them)."""

from __future__ import annotations

from pathlib import Path

from handler_lines import line_of

from lambdafuzz.config import load_target
from lambdafuzz.fuzzer.campaign import build_engine
from lambdafuzz.fuzzer.events import CampaignFinished, NewFailure

ORDER_INTAKE = Path(__file__).parent / "order_intake"
HANDLER = ORDER_INTAKE / "orders" / "intake.py"
EXECS = 1500
SEED = 2


def test_a_campaign_gets_past_the_quantity_to_the_line_items_price(tmp_path: Path) -> None:
    target = load_target(ORDER_INTAKE / "template.yaml", warn=False)
    engine = build_engine(target, out_dir=tmp_path, strategy="frontier", seed=SEED, max_execs=EXECS)
    events = list(engine.run())
    assert isinstance(events[-1], CampaignFinished)
    found = {e.record.info.location for e in events if isinstance(e, NewFailure)}
    quantity = f"orders/intake.py:{line_of(HANDLER, 'int(line["qty"])')}"
    price = f"orders/intake.py:{line_of(HANDLER, 'line["price"]')}"
    assert quantity in found  # a line that is not a record, or whose qty is not a number
    assert price in found, sorted(found)  # a line with a positive quantity and a bad price
